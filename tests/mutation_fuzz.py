"""A seeded mutation fuzzer of the CLI's promises: broken input is diagnosed, never acted on, never a traceback.

Each case is one to three seeded mutations of a small IR (the samples and tests/data/fuzz): dims (huge, negative,
thousands of digits), ids (repeated, 2^32, deleted), attributes, types (a layer retyped), names, encodings (UTF-16
and UTF-32 with and without a byte order mark, invalid UTF-8), markup (what OpenVINO's parser reads and libxml2
refuses, and near misses), edges (deleted, dangling, repeated), the ``.bin`` (truncated, replaced by text) and the
IR version, legacy IR v7 included. Every command runs on it in this process
(``ir_tools.cli.main``) and ``broken_promises`` lists what it must not do (README, "Exit codes", and the
guide): show a traceback or E-INTERNAL, exit other than 0, 1 or 2, write a file on a non-zero exit, act on an
input ``check`` rejects (except ``shapes --fix`` on fixable dims and ``migrate`` on legacy IR), write what
``check`` then rejects, or let OpenVINO print to the process's stderr. Used by tests/test_mutation_fuzz.py (a fast
slice) and scripts/fuzz_mutations.py (as many cases as asked).
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from ir_tools import check
from ir_tools.cli import main
from ir_tools.supervisor import supervised

ROOT = Path(__file__).resolve().parents[1]
SOURCES = (*sorted((ROOT / "samples").glob("*.xml")), *sorted((ROOT / "tests" / "data" / "fuzz").glob("*.xml")))
#: ``shapes --fix`` may act on a model whose only errors are these (it corrects them).
FIXABLE = {"E-SHAPE", "E-TYPE", "E-EDGE-DIMS", "E-EDGE-PRECISION"}

_HUGE = ("9223372036854775807", "9223372036854775808", "18446744073709551616", "4294967296", "2147483648", "9" * 5000)
_DIMS = (*_HUGE, "-2", "-7", "0", "", " 3 ", "1.5", "abc", "-1", "?", "1..3", "+4", "0x10", "١")
_VALUES = ("abc", "-1", "1.5", "", "999999", "0", "9223372036854775807", "-9223372036854775808", "nan", "inf",
           "1,2,3,4,5", "0,0", "-3,-3", "same_upper", "true", "i4", "u1", "f8e4m3", "string", "dynamic", " ")
_TYPES = ("TensorIterator", "TopK", "Loop", "If", "MatMul", "Const", "Parameter", "Result", "Convolution",
          "NonMaxSuppression", "Unknown", "Pooling", "Input", "AvgPool", "Concat", "Split", "ReadValue", "Assign",
          "Reshape", "ShapeOf", "Convert")
_VERSIONS = ("opset1", "opset8", "opset99", "experimental", "extension", "", "opset0", "Opset1", "ie")
_PRECISIONS = ("FP64", "BIN", "U1", "I4", "bogus", "STRING", "f8e4m3", "", "BOOL", "I64", "FP16", "U64", "dynamic")
_IR_VERSIONS = ("7", "6", "2", "10", "11", "12", "abc", "", "-1", "99999999999999999999")


@dataclass
class Mutant:
    """A source being mutated: its tree, its weights, and how its text becomes bytes."""

    root: etree._Element
    weights: bytes | None
    encoding: str = "utf-8"
    bom: bool = False
    declare: bool = True  # whether the declaration names the encoding used
    raw_edits: list[Callable[[bytes], bytes]] = field(default_factory=list)

    def layers(self) -> list[etree._Element]:
        return self.root.findall("./layers/layer")

    def edges(self) -> list[etree._Element]:
        return self.root.findall("./edges/edge")

    def to_bytes(self) -> bytes:
        text = etree.tostring(self.root, encoding="unicode")
        name = self.encoding.replace("-le", "").replace("-be", "").upper() if self.declare else "UTF-8"
        body = f'<?xml version="1.0" encoding="{name}"?>\n{text}\n'
        data = body.encode(self.encoding)
        if self.bom:
            data = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff",
                    "utf-32-le": b"\xff\xfe\x00\x00", "utf-32-be": b"\x00\x00\xfe\xff"}[self.encoding] + data
        for edit in self.raw_edits:
            data = edit(data)
        return data


def _dim(m: Mutant, rng: random.Random) -> str | None:
    dims = list(m.root.iter("dim"))
    if not dims:
        return None
    dim = rng.choice(dims)
    new = rng.choice([*_DIMS, "9" * rng.choice((19, 40, 400, 5000)), "-" + "9" * rng.choice((20, 5000))])
    old, dim.text = dim.text, new
    return f"dim {old} -> {new[:24]!r}{'...' if len(new) > 24 else ''}"


def _layer_id(m: Mutant, rng: random.Random) -> str | None:
    layers = m.layers()
    if not layers:
        return None
    layer = rng.choice(layers)
    old = layer.get("id")
    how = rng.choice(("duplicate", "huge", "delete", "text", "huge-with-edges"))
    if how == "delete":
        layer.attrib.pop("id", None)  # (an earlier mutation may have deleted it)
        return f"layer {old}: id deleted"
    new = {"duplicate": rng.choice(layers).get("id", "0"), "text": rng.choice(("a", "", "-1", "1.0", " 1"))}.get(
        how, rng.choice(_HUGE))
    layer.set("id", new)
    if how == "huge-with-edges":
        for edge in m.edges():
            for end in ("from-layer", "to-layer"):
                if edge.get(end) == old:
                    edge.set(end, new)
    return f"layer {old}: id -> {new[:24]}{'...' if len(new) > 24 else ''} ({how})"


def _port_id(m: Mutant, rng: random.Random) -> str | None:
    ports = [p for layer in m.layers() for p in layer.iter("port")]
    if not ports:
        return None
    port = rng.choice(ports)
    old = port.get("id")
    new = rng.choice((*_HUGE, "-1", "", "x", "0", "1", "2", "9" * 30))
    if rng.random() < 0.2:
        port.attrib.pop("id", None)  # (an earlier mutation may have deleted it)
        return f"port {old}: id deleted"
    port.set("id", new)
    if rng.random() < 0.5:  # and the edges that name it
        layer = port.getparent().getparent().get("id")
        for edge in m.edges():
            for lay, prt in (("from-layer", "from-port"), ("to-layer", "to-port")):
                if edge.get(lay) == layer and edge.get(prt) == old:
                    edge.set(prt, new)
    return f"port {old} -> {new!r}"


def _attribute(m: Mutant, rng: random.Random) -> str | None:
    data = [d for layer in m.layers() for d in layer.findall("data")]
    if not data:
        return None
    el = rng.choice(data)
    how = rng.choice(("drop", "corrupt", "corrupt", "add"))
    if how == "add" or not el.attrib:
        name = rng.choice(("kernel", "pads_begin", "axis", "special_zero", "bogus", "element_type", "shape",
                           "offset", "size", "rounding_type", "auto_pad", "batch_dims", "k"))
        el.set(name, rng.choice(_VALUES))
        return f"data {name}={el.get(name)!r} added"
    name = rng.choice(sorted(el.attrib))
    if how == "drop":
        del el.attrib[name]
        return f"data {name} dropped"
    value = rng.choice([*_VALUES, "9" * 5000, ",".join(["1"] * rng.choice((2, 3, 9)))])
    el.set(name, value)
    return f"data {name}={value[:24]!r}"


def _layer_type(m: Mutant, rng: random.Random) -> str | None:
    layers = m.layers()
    if not layers:
        return None
    layer = rng.choice(layers)
    old = layer.get("type")
    if rng.random() < 0.3:
        version = rng.choice(_VERSIONS)
        layer.set("version", version)
        return f"{old} version -> {version!r}"
    new = rng.choice((*_TYPES, (old or "").lower(), (old or "x")[:-1]))
    layer.set("type", new)
    if rng.random() < 0.1:
        del layer.attrib["type"]
        return f"{old}: type deleted"
    return f"{old} retyped {new}"


def _precision(m: Mutant, rng: random.Random) -> str | None:
    ports = [p for layer in m.layers() for p in layer.iter("port") if "precision" in p.attrib]
    if not ports:
        return None
    port = rng.choice(ports)
    new = rng.choice(_PRECISIONS)
    port.set("precision", new)
    return f"precision -> {new!r}"


def _name(m: Mutant, rng: random.Random) -> str | None:
    layers = m.layers()
    if not layers:
        return None
    layer = rng.choice(layers)
    how = rng.choice(("delete", "empty", "duplicate", "tensor-names", "long"))
    if how == "delete":
        layer.attrib.pop("name", None)
    elif how == "empty":
        layer.set("name", "")
    elif how == "duplicate":
        layer.set("name", rng.choice(layers).get("name", ""))
    elif how == "long":
        layer.set("name", "n" * 100_000)
    else:
        ports = list(layer.iter("port"))
        if not ports:
            return None
        rng.choice(ports).set("names", rng.choice(("", ",", "a,a", layers[0].get("name", "x"), "x\\,y")))
    return f"layer {layer.get('id')}: name {how}"


def _encoding(m: Mutant, rng: random.Random) -> str:
    how = rng.choice(("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8", "invalid-utf-8", "latin"))
    if how == "invalid-utf-8":
        bad = rng.choice((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xc0\xaf"))

        def inject(data: bytes) -> bytes:
            at = data.find(b'name="', data.find(b"<layer"))
            return data if at < 0 else data[:at + 6] + bad + data[at + 6:]

        m.raw_edits.append(inject)
        return f"invalid UTF-8 {bad!r} in a name"
    if how == "latin":
        m.raw_edits.append(lambda data: data.replace(b'encoding="UTF-8"', b'encoding="latin-1"'))
        return "declared latin-1"
    m.encoding, m.bom, m.declare = how, rng.random() < 0.5, rng.random() < 0.7
    return f"{how}{' with BOM' if m.bom else ''}{'' if m.declare else ', declared UTF-8'}"


#: Markup OpenVINO's parser (pugixml) reads and libxml2 refuses (W-XML), or that both refuse: where it goes, what it is.
_MARKUP = ((b"<layers>", b"<!-- converted with --compress_to_fp16 -->"), (b"<layers>", b'<?xml version="1.0"?>'),
           (b"<layers>", b"]]>"), (b"<layers>", b"<!-- never closed"), (b'name="', b"&"), (b'name="', b"&nbsp;"),
           (b'name="', b"a<b"), (b'name="', b'"'), (b"<layer ", b'name="twice" '), (b"<port ", b'id="9" '))


#: Text before the root, after the XML declaration: what OpenVINO's parser skips, and a near miss (a bare ``<``).
_BEFORE_ROOT = (b"\nconverted by tool x 1.2", b"\na & b ]]> &nbsp;", b"\n< x")


def _markup(m: Mutant, rng: random.Random) -> str:
    where, what = rng.choice(_MARKUP) if rng.random() < 0.75 else (b"?>", rng.choice(_BEFORE_ROOT))

    def inject(data: bytes) -> bytes:  # (in UTF-8 text only: the bytes of another encoding are not searched)
        at = data.find(where, 0 if where == b"?>" else data.find(b"<layer"))
        return data if at < 0 or not data.startswith(b"<?xml") else data[:at + len(where)] + what + data[
            at + len(where):]

    m.raw_edits.append(inject)
    return f"{what.decode()!r} after {where.decode()!r}"


def _edge(m: Mutant, rng: random.Random) -> str | None:
    edges = m.edges()
    if not edges:
        return None
    edge = rng.choice(edges)
    how = rng.choice(("delete", "dangling", "duplicate", "self", "swap", "attribute"))
    if how == "delete":
        edge.getparent().remove(edge)
    elif how == "dangling":
        edge.set(rng.choice(("from-layer", "to-layer", "from-port", "to-port")), rng.choice(("999", *_HUGE)))
    elif how == "duplicate":
        edge.addnext(etree.fromstring(etree.tostring(edge)))
    elif how == "self":
        edge.set("to-layer", edge.get("from-layer", ""))
    elif how == "swap":
        edge.set("from-layer", edge.get("to-layer", "")), edge.set("to-layer", edge.get("from-layer", ""))
    else:
        name = rng.choice(("from-layer", "from-port", "to-layer", "to-port"))
        edge.attrib.pop(name, None) if rng.random() < 0.5 else edge.set(name, rng.choice(_VALUES))
    return f"edge {how}"


def _weights(m: Mutant, rng: random.Random) -> str | None:
    if m.weights is None:
        return None
    how = rng.choice(("truncate", "empty", "text", "delete", "junk"))
    if how == "truncate":
        m.weights = m.weights[: rng.randrange(max(len(m.weights), 1))]
    elif how == "empty":
        m.weights = b""
    elif how == "text":
        m.weights = b"this is not a weights file\n" * rng.choice((1, 10, 100))
    elif how == "delete":
        m.weights = None
    else:
        m.weights += bytes(rng.randrange(256) for _ in range(rng.choice((1, 7, 64))))
    return f".bin {how}"


def _const(m: Mutant, rng: random.Random) -> str | None:
    consts = [layer.find("data") for layer in m.layers() if layer.get("type") == "Const"]
    consts = [d for d in consts if d is not None]
    if not consts:
        return None
    data = rng.choice(consts)
    name = rng.choice(("offset", "size", "shape", "element_type"))
    value = rng.choice((*_HUGE, "-4", "0", "1", "3", "", "1,2", "2,3,4", "f64", "u1", "i4", "string", "bogus"))
    data.set(name, value)
    return f"Const {name}={value!r}"


def _structure(m: Mutant, rng: random.Random) -> str | None:
    layers = m.layers()
    how = rng.choice(("delete-layer", "delete-edges", "delete-port", "truncate", "version", "duplicate-layer"))
    if how == "version":
        m.root.set("version", rng.choice(_IR_VERSIONS))
        return f"net version {m.root.get('version')!r}"
    if how == "truncate":
        cut = rng.random()
        m.raw_edits.append(lambda data: data[: int(len(data) * cut)])
        return f"text cut at {cut:.2f}"
    if not layers:
        return None
    layer = rng.choice(layers)
    if how == "delete-layer":
        layer.getparent().remove(layer)
    elif how == "delete-edges":
        section = m.root.find("edges")
        if section is not None:
            m.root.remove(section)
    elif how == "duplicate-layer":
        layer.addnext(etree.fromstring(etree.tostring(layer)))
    else:
        ports = list(layer.iter("port"))
        if not ports:
            return None
        port = rng.choice(ports)
        port.getparent().remove(port)
    return how


MUTATIONS: dict[str, Callable[[Mutant, random.Random], str | None]] = {
    "dim": _dim, "layer-id": _layer_id, "port-id": _port_id, "attribute": _attribute, "type": _layer_type,
    "precision": _precision, "name": _name, "encoding": _encoding, "edge": _edge, "weights": _weights,
    "const": _const, "structure": _structure, "markup": _markup,
}


@dataclass(frozen=True)
class Case:
    """One mutated file (``xml``, weights beside it) and what was done to ``source``."""

    seed: int
    source: Path
    xml: Path
    what: tuple[str, ...]

    def __str__(self) -> str:
        return f"seed {self.seed}: {self.source.name}: {'; '.join(self.what)}"


def make_case(seed: int, folder: Path) -> Case:
    """The case of ``seed``, written into ``folder`` (its own subfolder); the same seed gives the same file."""
    rng = random.Random(seed)
    source = SOURCES[seed % len(SOURCES)]
    root = etree.parse(str(source), etree.XMLParser(resolve_entities=False, no_network=True)).getroot()
    weights = source.with_suffix(".bin")
    mutant = Mutant(root, weights.read_bytes() if weights.exists() else None)
    names = list(MUTATIONS)
    what = []
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        kind = rng.choice(names)
        done = MUTATIONS[kind](mutant, rng)
        if done is not None:
            what.append(f"{kind}: {done}")
    out = folder / f"case{seed}"
    out.mkdir(parents=True, exist_ok=True)
    xml = out / source.name
    xml.write_bytes(mutant.to_bytes())
    if mutant.weights is not None:
        xml.with_suffix(".bin").write_bytes(mutant.weights)
    return Case(seed, source, xml, tuple(what) or ("none",))


@contextlib.contextmanager
def _captured() -> Iterator[dict[str, str]]:
    """Python's stdout and stderr, and what native code (OpenVINO) writes to file descriptors 1 and 2."""
    found: dict[str, str] = {}
    out, err = io.StringIO(), io.StringIO()
    sys.stdout.flush(), sys.stderr.flush()
    with tempfile.TemporaryFile() as native:
        saved = os.dup(1), os.dup(2)
        os.dup2(native.fileno(), 1), os.dup2(native.fileno(), 2)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                yield found
        finally:
            os.dup2(saved[0], 1), os.dup2(saved[1], 2)
            os.close(saved[0]), os.close(saved[1])
            native.seek(0)
            found.update(out=out.getvalue(), err=err.getvalue(), native=native.read().decode(errors="replace"))


def run_command(argv: list[str]) -> tuple[int, str, str]:
    """``ir-tools ARGV`` in this process: exit code, what it printed (stdout and stderr), what native code wrote."""
    with _captured() as printed:
        code = main(argv)
    return code, printed["out"] + printed["err"], printed["native"]


def commands(xml: Path, out: Path, openvino: bool) -> dict[str, list[str]]:
    """Each command as a user runs it, writing (if at all) into ``out``; without ``openvino``, those that need none."""
    no_ov = [] if openvino else ["--no-openvino"]
    found = {
        "check": ["check", str(xml), *no_ov],
        "inspect": ["inspect", str(xml)],
        "shapes --fix": ["shapes", str(xml), "--fix", "-o", str(out / "fixed.xml"), *no_ov],
        "migrate": ["migrate", str(xml), "-o", str(out / "migrated.xml")],
        "run": ["run", str(xml), "-o", str(out / "outputs.npz")],
    }
    if openvino:
        found["compare"] = ["compare", str(xml), "--save-outputs", str(out / "saved.npz")]
    return found


_CODE = re.compile(r"(?:error|warning|note)\[([A-Z0-9-]+)\]")


def broken_promises(case: Case, openvino: bool) -> list[str]:
    """Every promise the commands broke on ``case`` (empty when none did); ``openvino``: as ``check`` by default,
    else as ``--no-openvino`` (and no ``compare``)."""
    broken = []
    out = case.xml.parent / "out"
    verdict: set[str] | None = None  # check's codes of errors, once check has run
    for name, argv in commands(case.xml, out, openvino).items():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        code, printed, native = run_command(argv)
        written = sorted(p.name for p in out.iterdir())
        said = f"{name} (exit {code})"
        if "Traceback" in printed or "E-INTERNAL" in printed:
            broken.append(f"{said}: {_first_line(printed, ('Traceback', 'E-INTERNAL'))}")
        if code not in (0, 1, 2):
            broken.append(f"{said}: exit code outside 0, 1, 2")
        if native.strip():
            broken.append(f"{said}: native code wrote to stderr: {native.strip().splitlines()[0][:160]}")
        if code != 0 and written and not (name == "compare" and code == 1):  # compare's 1: a difference found
            broken.append(f"{said}: wrote {written} though it failed")
        if name == "check":
            verdict = {c for c in _CODE.findall(printed) if c.startswith("E-")} if code else set()
            continue
        if code == 0 and verdict and not _acts_on(name, verdict):
            broken.append(f"{said}: went on though check found {sorted(verdict)}")
        for made in (p for p in out.glob("*.xml") if code == 0):
            errors = sorted({d.code for d in check(made, openvino=False) if d.severity == "error"})
            if errors:
                broken.append(f"{said}: wrote {made.name}, which check rejects: {errors}")
    return broken


def apart(work: Callable[[], list[str]]) -> list[str]:
    """``work()``'s lines, computed in a forked child as ``ir-tools`` runs its command (``ir_tools.supervisor``): where
    native code crashes it (OpenVINO, on a file check passed), the E-CRASH that says where, and the caller goes on."""
    with tempfile.TemporaryFile("w+") as lines:
        def child() -> int:
            lines.write("".join(f"{line}\n" for line in work()))
            lines.flush()
            return 0

        crashes: list[str] = []
        supervised(child, crashes.append)
        lines.seek(0)
        return lines.read().splitlines() + [f"crashed: error[E-CRASH]: {text}" for text in crashes]


def _acts_on(command: str, errors: set[str]) -> bool:
    """True where a command's purpose is to act on a file with these errors: ``shapes --fix`` corrects declared dims
    and precisions, ``migrate`` converts legacy IR."""
    return (command == "shapes --fix" and errors <= FIXABLE) or (command == "migrate" and errors == {"E-IR-VERSION"})


def _first_line(text: str, words: tuple[str, ...]) -> str:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if any(w in line for w in words))
    return " | ".join(lines[at:at + 1] + lines[-2:])[:400]
