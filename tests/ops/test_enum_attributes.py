"""Every enum, element-type and flag attribute of the op table against OpenVINO's IR reader: ``check`` refuses
(E-ATTR) a spelling exactly where OpenVINO's reader refuses it, and reads every other as OpenVINO reads it.

The attributes are found from the specs' attribute classes (a field whose codec is ``attrs.BOOL``, an
``attrs.enum`` or ``core.ELEMENT``), so a new op's are covered as soon as it is in the table. Per op version, a
one-layer IR is built from its first stored answer (tests/data/answers) that OpenVINO reads, every flag and enum
written out; then each attribute is rewritten in turn with the spellings of ``SPELLINGS`` (and, for a flag,
``FLAG_SPELLINGS``) and both
readers asked. Measured on openvino 2026.4.1:

- an enum (auto_pad, rounding_type, mode, direction, auto_broadcast, ... and the element types output_type and
  index_element_type) is matched in any case ("SAME_UPPER", "Ceil"), but exactly otherwise: a blank, tab or line
  break before or after it, an empty value, a Kelvin sign for "k", are refused (``EnumNames::as_enum`` lower-cases
  ASCII, strips nothing);
- a flag is never refused: "true"/"1" and "false"/"0" in any case are read; any other value (" true", "yes",
  "01", "") is skipped without a word, the op's default kept, as for an omitted attribute.

Where ``check`` reads a spelling, OpenVINO must read it as ``check``'s value written canonically (a skipped flag as
ir_tools' default): the same verdict (both may refuse a layer whose flag changes its shapes: GRUSequence's
linear_before_reset, MatMul's transpose_b) and, read, the same attribute value.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import quoteattr

import openvino as ov
import pytest

import ir_tools
from ir_tools import Graph, GraphBuilder, output_of
from ir_tools.base.errors import AttrError
from ir_tools.ops import attrs as A
from ir_tools.ops import opsets
from ir_tools.ops.core import ELEMENT
from ir_tools.ops.spec import OpSpec

from .test_answers import BY_LABEL, Answers

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

#: Spellings of an attribute's value ``v`` tried for every enum and flag.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "as is": lambda v: v,
    "leading blank": lambda v: " " + v,
    "trailing blank": lambda v: v + " ",
    "leading tab": lambda v: "\t" + v,
    "trailing line break": lambda v: v + "\n",
    "upper case": str.upper,
    "mixed case": lambda v: "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(v)),
    "empty": lambda v: "",
    "kelvin sign": lambda v: v.replace("k", "\u212a").replace("K", "\u212a"),  # "k" to str.lower, not to C's tolower
}
#: Flag spellings tried besides.
FLAG_SPELLINGS = ("True", "TRUE", "1", "0", " true", "true ", "\ttrue", "false", "False", " false", " 1", "01", "2",
                  "yes")

CORE = ov.Core()


def coded(spec: OpSpec) -> list[dataclasses.Field]:
    """The flag, enum and element-type attributes of ``spec``."""
    return [f for f in dataclasses.fields(spec.attrs)
            if f.metadata["codec"] in (A.BOOL, ELEMENT) or f.metadata["codec"].choices]


#: (Const aside: its element_type sizes its payload in the .bin, which the stored answers do not hold.)
SPECS = {spec.label: spec for spec in opsets.specs() if coded(spec) and spec.type != "Const"}


def test_the_table_has_the_attributes_looked_for() -> None:
    """The search finds what the table declares (a bug in ``coded`` would leave the test below nothing to try)."""
    names = {(label, f.metadata["xml"]) for label, spec in SPECS.items() for f in coded(spec)}
    assert {("AvgPool-1", "exclude-pad"), ("AvgPool-1", "auto_pad"), ("MaxPool-14", "rounding_type"),
            ("Convolution-1", "auto_pad"), ("Add-1", "auto_broadcast"), ("TopK-11", "index_element_type"),
            ("NonZero-3", "output_type"), ("Interpolate-11", "nearest_mode"), ("MVN-6", "eps_mode")} <= names
    assert len(names) >= 100


def static(record: dict) -> bool:
    return record["outputs"] != "rejects" and all(
        dims is not None and all(isinstance(d, int) for d in dims) for _, dims, _, _ in record["inputs"])


def build(spec: OpSpec, file: Answers, record: dict, raw: dict[str, str], path: Path) -> None:
    """The record's layer, named "op", fed by Parameters and Consts, its outputs Results, written to ``path``."""
    graph = Graph("enum_attributes")
    b = GraphBuilder(graph)
    inputs = [b.const(file.value(ref), f"c{k}") if source == "const" else b.parameter(f"p{k}", element, tuple(dims))
              for k, (element, dims, source, ref) in enumerate(record["inputs"])]
    layer = b.add(record["op"], record["version"], raw, inputs, "op")
    for j in range(len(layer.outputs)):
        b.result(output_of(layer, j), f"r{j}")
    ir_tools.write_ir(graph, path)


def read(path: Path, weights: Path) -> dict | str:
    """The attributes OpenVINO reads layer "op" with, or its error."""
    try:
        model = CORE.read_model(str(path), str(weights))
    except RuntimeError as exc:
        return str(exc).strip().splitlines()[-1]
    return next(node for node in model.get_ops() if node.get_friendly_name() == "op").get_attributes()


def attr_refused(path: Path, weights: Path) -> bool:
    """Whether check --no-openvino reports E-ATTR on layer "op"."""
    return any(d.code == "E-ATTR" and d.loc.layer_name == "op" for d in ir_tools.check(path, weights, openvino=False))


def base_layer(spec: OpSpec, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An IR OpenVINO reads holding one layer of ``spec``, every flag and enum spelled out; and its raw attributes."""
    tried = []
    for file, record in BY_LABEL.get(spec.label, []):
        if not static(record):
            continue
        raw = dict(record["attrs"])
        for f in coded(spec):
            if f.metadata["xml"] not in raw and f.default is not dataclasses.MISSING:
                raw[f.metadata["xml"]] = f.metadata["codec"].format(f.default)
        path = tmp_path / "base.xml"
        build(spec, file, record, raw, path)
        verdict = read(path, path.with_suffix(".bin"))
        if not isinstance(verdict, str):
            return path, raw
        tried.append(verdict)
    pytest.fail(f"no stored answer of {spec.label} gives a layer OpenVINO reads ({tried[:2]}): run "
                "scripts/make_answers.py")


def spelled(text: str, xml: str, value: str) -> str:
    """The IR ``text`` with layer "op"'s attribute ``xml`` spelled ``value`` (a tab or line break as a character
    reference, which both XML parsers keep)."""
    data = re.compile(r'(<layer id="\d+" name="op"[^>]*>\s*<data\b[^>]*? ' + re.escape(xml) + r'=)"[^"]*"')
    changed, n = data.subn(lambda m: m.group(1) + quoteattr(value), text)
    assert n == 1, (xml, n)
    return changed


@pytest.mark.parametrize("label", sorted(SPECS))
def test_check_refuses_the_spellings_openvino_refuses(label: str, tmp_path: Path) -> None:
    spec = SPECS[label]
    base, raw = base_layer(spec, tmp_path)
    weights, text, path = base.with_suffix(".bin"), base.read_text(), tmp_path / "variant.xml"
    assert not attr_refused(base, weights)
    read_base = read(base, weights)
    problems, tried = [], 0
    for f in coded(spec):
        xml, codec = f.metadata["xml"], f.metadata["codec"]
        if xml not in read_base:
            problems.append(f"{xml}: OpenVINO reports no such attribute of the layer ({sorted(read_base)})")
        spellings = {make(raw[xml]): name for name, make in reversed(SPELLINGS.items())}
        if codec is A.BOOL:
            spellings |= {s: repr(s) for s in FLAG_SPELLINGS if s not in spellings}
        as_read: dict[str, dict | str] = {}  # OpenVINO's reading of a canonical spelling
        for value, name in spellings.items():
            path.write_text(spelled(text, xml, value), encoding="utf-8")
            theirs, refused = read(path, weights), attr_refused(path, weights)
            tried += 1
            try:
                ours = getattr(A.decode(spec.attrs, raw | {xml: value}), f.name)
            except AttrError:
                ours = None
            where = f"{xml}={value!r} ({name})"
            if refused != (ours is None):
                problems.append(f"{where}: check's E-ATTR {refused}, decode gives {ours!r}")
            if refused:
                if not isinstance(theirs, str):
                    problems.append(f"{where}: check refuses it (E-ATTR), OpenVINO reads it as {theirs.get(xml)!r}")
                continue
            canonical = codec.format(ours)
            if canonical not in as_read:
                path.write_text(spelled(text, xml, canonical))
                as_read[canonical] = read(path, weights)
            want = as_read[canonical]
            if isinstance(theirs, str) != isinstance(want, str):
                problems.append(f"{where}: check reads it as {canonical!r}; OpenVINO "
                                + (f"refuses it ({theirs[:120]})" if isinstance(theirs, str) else
                                   f"reads it, and refuses {canonical!r} ({want[:120]})"))
            elif not isinstance(theirs, str) and theirs.get(xml) != want.get(xml):
                problems.append(f"{where}: check reads it as {canonical!r}, OpenVINO as {theirs.get(xml)!r}")
    assert not problems, f"{len(problems)} of {tried} spellings differ:\n" + "\n".join(problems[:20])
