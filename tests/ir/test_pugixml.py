"""Documents OpenVINO's parser (pugixml) reads and libxml2 refuses (``ir/pugixml.py``): ``read_ir`` reads a file
exactly where OpenVINO's ``read_model`` does, and as it reads it, on seeded cases:

- what follows ``</net>`` (W-TRAILING): sequences of parts pugixml reads past or stops at, and their near misses (a
  part cut short, or a markup character put into it): DOCTYPEs, declarations, entities, attributes;
- inside the root (W-XML): comments holding ``--``, references pugixml keeps as written, ``<`` in values, repeated
  attributes, XML declarations, ``]]>`` in text, put anywhere in an OpenVINO-saved IR, and near misses; where both
  read the file, OpenVINO reads what ``write_ir`` writes of ours as it reads the file (names, types, shapes);
- before the root (W-XML): text a tool wrote above ``<net>``, with the markup pugixml reads or stops at.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import openvino as ov
import pytest
from lxml import etree

from ir_tools.base.errors import ReadError
from ir_tools.ir import reader
from ir_tools.ir.reader import read_ir
from ir_tools.ir.writer import write_ir

pytestmark = pytest.mark.openvino

SAMPLE = Path(__file__).parents[2] / "samples" / "avgpool1_same_upper.xml"
CASES = 500
NETWORK = Path(__file__).parents[2] / "samples" / "mixed_network.xml"  # saved by OpenVINO
INSIDE_CASES = 300

#: Parts that may follow the root: most read past, some refused (a DOCTYPE inside an element, one left open, an
#: element never closed or closed unopened, a bare ``<``, an unquoted value).
PARTS = [
    "<!DOCTYPE net>", "<!DOCTYPEnet>", '<!DOCTYPE net SYSTEM "http://example.invalid/net.dtd">',
    '<!DOCTYPE net [<!ENTITY e "v">]>',
    '<!DOCTYPE net [<!ELEMENT a (#PCDATA)> <!-- c > --> <?p x?> <![IGNORE[ <![ ]]> x ]]> "q>" ]>',
    "<!DOCTYPE net", "<!DOCTYPE net [", '<!DOCTYPE net "x>', "<!DOCTYPE net <x>>", "<!DOCTYPE net <!-x>",
    '<?xml version="1.0"?>', "<?p x?>", "<?p", "<? p?>", "<!-- c -->", "<!-c>", "<![CDATA[x<]]>", "<![CDATA[x",
    "tail", "&e;", "a & b", "\n", " ",
    "<a/>", "<a>t</a>", "<a>&e;</a>", "<a><b/></a>", "<a><!DOCTYPE x></a>", '<a><?xml version="1.0"?></a>',
    "<a>", "</b>", "< x", "<a></b>", '<net name="x" version="11"><layers/></net>', "<a b=c/>", '<a b="1" b="2"/>',
    '<a b="&e;"/>', '<a b="<"/>', '<a b="1"c="2"/>', "<a b = '1' />", '<a b="1"/ >', "<a / >", "<a\t/>", "<1a/>",
]
#: What a near miss puts into a part.
MARKUP = ["<", ">", '"', "'", "/", "!", "?", "-", "[", "]", "=", "&", " ", "<!", "-->", "]]>", "?>"]


def _tails(rng: random.Random) -> list[str]:
    """``CASES`` texts to follow the root: one to four parts, maybe one of them a near miss."""
    tails = []
    for _ in range(CASES):
        parts = [rng.choice(PARTS) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.5:
            i = rng.randrange(len(parts))
            at = rng.randint(0, len(parts[i]))
            parts[i] = parts[i][:at] if rng.random() < 0.3 else parts[i][:at] + rng.choice(MARKUP) + parts[i][at:]
        tails.append(rng.choice(["", "\n"]).join(parts))
    return tails


def _well_formed(path: Path) -> bool:
    try:
        etree.parse(str(path), etree.XMLParser(**reader._SAFE))
    except etree.XMLSyntaxError:
        return False
    return True


def test_what_follows_the_root_is_read_past_as_openvino_reads_past_it(tmp_path: Path) -> None:
    shutil.copy(SAMPLE.with_suffix(".bin"), tmp_path / "model.bin")
    root = SAMPLE.read_text().rstrip("\n")
    core = ov.Core()
    disagree, outcomes = [], {True: 0, False: 0}
    for i, tail in enumerate(_tails(random.Random(2611))):
        model = tmp_path / "model.xml"
        model.write_text(f"{root}\n{tail}\n")
        try:
            core.read_model(model)
            openvino_reads = True
        except RuntimeError:
            openvino_reads = False
        outcomes[openvino_reads] += 1
        try:
            lines = [d.loc.line for d in read_ir(model).load_diagnostics if d.code == "W-TRAILING"]
        except ReadError as exc:
            if openvino_reads or exc.code != "E-READ":
                disagree.append((i, tail, f"OpenVINO reads it: {openvino_reads}; ours: {exc.code} {exc.message}"))
            continue
        blanks = len(tail) - len(tail.lstrip())  # (the warning is at the first line that is not blank, where the
        # document is not XML: comments and processing instructions may follow the root)
        expected = [] if _well_formed(model) else [root.count("\n") + 2 + tail[:blanks].count("\n")]
        if not openvino_reads or lines != expected:
            disagree.append((i, tail, f"OpenVINO reads it: {openvino_reads}; ours: W-TRAILING at {lines}"))
    assert not disagree, f"{len(disagree)} of {CASES} disagree with OpenVINO: {disagree[:5]}"
    assert min(outcomes.values()) >= CASES // 5, outcomes  # (both outcomes well represented)


#: What a case puts between two elements of the root, or into an attribute value, or into a start tag: most
#: pugixml reads (libxml2 refuses), some it refuses too.
BETWEEN = ["<!-- converted with --compress_to_fp16 -->", "<!-- x --->", "<!--->", '<?xml version="1.0"?>',
           "<?XML x?>", "<?pi x?>", "]]>", "&nbsp;", "&", "&#xZZ;", "&#;", "<![CDATA[]]>]]>", "<!-- x", "<", "&#0;",
           "<!DOCTYPE x>", "<?", "</x>"]
IN_VALUE = ["&", "a & b", "&nbsp;", "&#xZZ;", "&#12a;", "<", "a<b>c", "]]>", "&amp;", "&#x41;", '"']
#: In a start tag: an attribute of it repeated with another value (OpenVINO reads the first), or not an attribute.
IN_TAG = ["y=z", 'q="1"r="2"', "q", 'q="1']


def _inside(text: str, rng: random.Random) -> str:
    """``text`` with one to three of ``BETWEEN`` (between elements), ``IN_VALUE`` (in a name) and ``IN_TAG`` put at
    random places: what OpenVINO reads of it is what it reads of ``text``."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(3)
        if kind == 0:
            at = rng.choice([m.end() for m in re.finditer(">\n", text)][1:-1])  # (not in a <dim>'s text)
            text = text[:at] + rng.choice(BETWEEN) + text[at:]
        elif kind == 1:
            value = rng.choice(list(re.finditer(r' names?="([^"]*)"', text)))  # (values that are any text)
            at = rng.randint(value.start(1), value.end(1))
            text = text[:at] + rng.choice(IN_VALUE) + text[at:]
        else:
            tag = rng.choice(list(re.finditer(r"<[a-z]+ (([a-z_-]+)=\"[^\"]*\")", text)))
            put = rng.choice([f'{tag[2]}="{rng.choice(["0", "x", "-1"])}"', *IN_TAG])
            text = text[:tag.end()] + " " + put + text[tag.end():]
    return text


def _as_read(model: ov.Model) -> list[tuple]:
    """What OpenVINO read: each op's name, type and outputs (shape, element type, names), in order."""
    return [(op.get_friendly_name(), op.get_type_name(),
             [(str(out.get_partial_shape()), out.get_element_type().get_type_name(), sorted(out.get_names()))
              for out in op.outputs()]) for op in model.get_ordered_ops()]


def _read_as_openvino_reads(documents: list[str], folder: Path) -> None:
    """Each document (beside the network's weights) is read by ``read_ir`` exactly where ``read_model`` reads it (else
    E-READ), and what ``write_ir`` writes of it is read by OpenVINO as the document is; at least a fifth read by both,
    a fifth refused by both, and a fifth read with W-XML."""
    shutil.copy(NETWORK.with_suffix(".bin"), folder / "model.bin")
    core = ov.Core()
    disagree, outcomes, warned = [], {True: 0, False: 0}, 0
    for i, document in enumerate(documents):
        model = folder / "model.xml"
        model.write_text(document)
        try:
            read = _as_read(core.read_model(model))
        except RuntimeError:
            read = None
        outcomes[read is not None] += 1
        try:
            graph = read_ir(model)
        except ReadError as exc:
            if read is not None or exc.code != "E-READ":
                disagree.append((i, f"OpenVINO reads it: {read is not None}; ours: {exc.code} {exc.message}"))
            continue
        if read is None:
            disagree.append((i, "OpenVINO refuses it; ours reads it"))
            continue
        warned += any(d.code == "W-XML" for d in graph.load_diagnostics)
        written = folder / "written.xml"
        write_ir(graph, written, graph.ir_version)
        if _as_read(core.read_model(written)) != read:
            disagree.append((i, "OpenVINO reads what we wrote of it otherwise"))
    assert not disagree, f"{len(disagree)} of {len(documents)} disagree with OpenVINO: {disagree[:5]}"
    assert min(outcomes.values()) >= len(documents) // 5 and warned >= len(documents) // 5, (outcomes, warned)


def test_what_openvino_reads_inside_the_root_is_read_as_it_reads_it(tmp_path: Path) -> None:
    text = NETWORK.read_text()
    _read_as_openvino_reads([_inside(text, random.Random(7100 + i)) for i in range(INSIDE_CASES)], tmp_path)


#: What a case puts before the root: text pugixml skips (with references and ``>`` it does not look into), and markup
#: it reads (a comment, holding ``--`` or not, a processing instruction, a declaration) or stops at (a bare ``<``, a
#: second root, which OpenVINO does not take for the IR).
BEFORE = ["converted by tool x 1.2", "a & b", "&nbsp;", "]]>", "x > y", "é ü", "\ttext", "<!-- c -->",
          "<!-- a -- b -->", "<?p x?>", '<?xml version="1.0"?>', "<a/>", "< x", "<", "<!-c>", "\n", " "]
BEFORE_CASES = 200


def _before(text: str, rng: random.Random) -> str:
    """``text`` with one to three of ``BEFORE`` put before its XML declaration or after it, before the root."""
    head = "\n".join(rng.choice(BEFORE) for _ in range(rng.randint(1, 3))) + rng.choice(["\n", ""])
    at = rng.choice([0, text.index("<net")])
    return text[:at] + head + text[at:]


def test_what_openvino_reads_before_the_root_is_read_as_it_reads_it(tmp_path: Path) -> None:
    text = NETWORK.read_text()
    _read_as_openvino_reads([_before(text, random.Random(7500 + i)) for i in range(BEFORE_CASES)], tmp_path)
