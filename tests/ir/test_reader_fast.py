"""The reader's fast path (regular expressions for the spelling OpenVINO writes) against its lxml path, which reads
everything else, one element at a time. Every IR file the tests hold, the IR zoo when it is built, and seeded
respellings of an OpenVINO-saved IR that take each way out of the fast path (quotes, references, comments, CRLF,
port rt_info, attribute order, subgraph bodies...) must read to the same graph, lines and diagnostics whichever
path reads each element, and whether lxml reads them one by one or in runs cut where a guess found them; and their
lines are libxml2's, from a whole-document parse."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from ir_tools.base.errors import ReadError
from ir_tools.ir import reader
from ir_tools.ir.reader import read_ir
from tests.zoo import ir_zoo_entries

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "samples" / "mixed_network.xml"  # saved by OpenVINO
_NEVER = re.compile(r"(?!)")


def _summary(path: Path) -> tuple:
    try:
        graph = read_ir(path)
    except ReadError as exc:
        return ("refused", exc.code, exc.message, exc.loc)
    return (graph.name, graph.ir_version, graph.line, graph.net_extra, graph.rt_info, list(graph.layers()),
            graph.edges(), graph.load_diagnostics, graph.new_id())


#: How the lxml path is made to read: (fast path on, elements in a row before a run is guessed, run size). Short
#: guessed runs cut the file at many places (inside comments, subgraph bodies, past a section), so both of
#: guessed_run's ways are taken.
_WAYS = {
    "fast path, guessed runs": (True, 1, 512),
    "lxml, guessed runs": (False, 1, 512),
    "lxml, one by one": (False, 10**9, reader._RUN),
}


def _assert_paths_agree(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple:
    fast = _summary(path)
    for way, (fast_path, probe, run) in _WAYS.items():
        with monkeypatch.context() as patch:
            if not fast_path:
                patch.setattr(reader, "_LAYER", _NEVER)
                patch.setattr(reader, "_EDGE", _NEVER)
            patch.setattr(reader, "_PROBE", probe)
            patch.setattr(reader, "_RUN", run)
            assert _summary(path) == fast, (path.name, way)
    return fast


def _id_read(text: str) -> str:
    """A layer id as OpenVINO reads it, an integer as a stream reads one to the end of the text: "07", "+7" and
    " 7" are layer 7, "7 " is refused (kept as written)."""
    if text.isascii() and text.isdigit():
        return str(int(text))
    read = int(text) if re.fullmatch(r"[ \t\n\v\f\r]*[+-]?[0-9]+", text) else -1
    return str(read) if 0 <= read < 2**63 else text


def _files() -> list[Path]:
    files = sorted((ROOT / "samples").glob("*.xml")) + sorted((ROOT / "tests" / "data").rglob("*.xml"))
    return files + [Path(entry["path"]) for entry in ir_zoo_entries()]


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_every_file_reads_alike_on_both_paths(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _assert_paths_agree(path, monkeypatch)


def _some(pattern: str, change: Callable[[re.Match], str]) -> Callable[[str, random.Random], str]:
    """A respelling of about half of the matches of ``pattern`` (the others keep the fast spelling)."""
    def respell(text: str, rng: random.Random) -> str:
        return re.sub(pattern, lambda m: change(m) if rng.random() < 0.5 else m.group(0), text)
    return respell


_PORT_RT = '\n<rt_info><attribute name="layout" version="0" layout="[N,C,H,W]" /></rt_info>'
_BODY = ('<body><layers><layer id="0" name="inner" type="Parameter" version="opset1"><output><port id="0" '
         'precision="FP32"><dim>1</dim></port></output></layer></layers><edges/></body>')
_LAYER_END = r"(</layer>)(?! -->)"  # (not the one "comment in a layer" writes)
#: Each respelling on its own, then all together (read, not refused).
RESPELLINGS: dict[str, Callable[[str, random.Random], str]] = {
    "single quotes": _some(r'<layer id="(\d+)"', lambda m: f"<layer id='{m.group(1)}'"),
    "reference in a name": _some(r'name="([^"]*)" type', lambda m: f'name="{m.group(1)}&amp;&#233;" type'),
    "comment in a layer": _some(r"(<layer [^>]*>)", lambda m: m.group(1) + "<!-- a </layer> -->"),
    "comment between layers": _some(_LAYER_END, lambda m: m.group(1) + "\n<!-- x -->"),
    "layer in a comment": _some(_LAYER_END, lambda m: m.group(1) + '<!-- <layer id="99"> -->'),
    "two layers sections": _some(_LAYER_END + r"(\s*<layer )", lambda m: m.group(1) + "</layers><layers>" + m.group(2)),
    "two edges sections": _some(r"(/>)(\s*<edge )", lambda m: m.group(1) + "</edges><edges>" + m.group(2)),
    "processing instruction": _some(_LAYER_END, lambda m: m.group(1) + "<?pi data?>"),
    "CDATA in a dim": _some(r"<dim>(\d+)</dim>", lambda m: f"<dim><![CDATA[{m.group(1)}]]></dim>"),
    "CRLF": lambda text, rng: text.replace("\n", "\r\n"),
    "lone CR": lambda text, rng: text.replace("\n", "\r"),
    "port rt_info": _some(r'(<port id="\d+" precision="\w+"[^>/]*>)', lambda m: m.group(1) + _PORT_RT),
    "attribute order": _some(r'name="([^"]*)" type="([^"]*)"', lambda m: f'type="{m.group(2)}" name="{m.group(1)}"'),
    "extra layer attribute": _some(r'(version="opset\d+")>', lambda m: m.group(1) + ' extra="1">'),
    "blank before >": _some(r'(version="opset\d+")>', lambda m: m.group(1) + "\n   >"),
    "tab in a value": _some(r'(<data [^>]*?)="([^"]*)"', lambda m: f'{m.group(1)}="\t{m.group(2)}"'),
    "blanks in dims": _some(r"<dim>(\d+)</dim>", lambda m: f"<dim> {m.group(1)}\n</dim>"),
    "reference in a dim": _some(r"<dim>(\d+)</dim>", lambda m: f"<dim>&#{ord(m.group(1)[0])};{m.group(1)[1:]}</dim>"),
    "bad dim": _some(r"<dim>(\d+)</dim>", lambda m: "<dim>-2</dim>"),
    "data after input": _some(r"(<data [^>]*/>)(\s*)(<input>.*?</input>)",
                              lambda m: m.group(3) + m.group(2) + m.group(1)),
    "empty sections": _some(r"(<output>)", lambda m: "<input/><input></input>" + m.group(1)),
    "empty port": _some(r'<port id="(\d+)" precision="(\w+)">', lambda m: f'<port id="{m.group(1)}" '
                        f'precision="{m.group(2)}"></port><port id="9{m.group(1)}" precision="{m.group(2)}">'),
    "names on every port": lambda text, rng: re.sub(r'(<port id="\d+" precision="\w+")(?=\s*/?>)',
                                                    lambda m: f'{m.group(1)} names="t{m.start()}"', text),
    "empty names": _some(r' names="[^"]*"', lambda m: ' names=""'),
    "repeated port id": _some(r'<port id="\d+"', lambda m: '<port id="0"'),
    "repeated layer id": _some(r'<layer id="\d+"', lambda m: '<layer id="1"'),
    "layer id not a number": _some(r'<layer id="(\d+)"', lambda m: f'<layer id="L{m.group(1)}"'),
    "huge layer id": _some(r'<layer id="(\d+)"', lambda m: f'<layer id="{2**64 + int(m.group(1))}"'),
    "subgraph body": _some(r"(</output>)(\s*</layer>)", lambda m: m.group(1) + _BODY + m.group(2)),
    "edge attribute order": _some(r'<edge from-layer="(\d+)" from-port="(\d+)"',
                                  lambda m: f'<edge from-port="{m.group(2)}" from-layer="{m.group(1)}"'),
    "edge port not a number": _some(r'to-port="(\d+)"', lambda m: 'to-port="x"'),
    "edge to no layer": _some(r'to-layer="(\d+)"', lambda m: 'to-layer="999"'),
    "non-ASCII name": _some(r'name="([^"]*)" type', lambda m: f'name="{m.group(1)}é✓" type'),
    "edges first": lambda text, rng: re.sub(r"(\s*<layers>.*</layers>)(\s*<edges>.*</edges>)",
                                            lambda m: m.group(2) + m.group(1), text, flags=re.S),
    "leading zeros in ids": _some(r'(<layer id="|layer=")(\d+)"', lambda m: f'{m.group(1)}0{m.group(2)}"'),
    "default namespace": lambda text, rng: text.replace("<net ", '<net xmlns="http://example.com/ir" ', 1),
    "default namespace on a layer": _some(r'<layer id="(\d+)" (name="[^"]*" type="[^"]*" version="[^"]*")',
                                          lambda m: f'<layer xmlns="http://x" id="{m.group(1)}" {m.group(2)} '
                                          'xmlns:p="http://p" p:a="1"'),
    "prefixed elements": lambda text, rng: _some(_LAYER_END, lambda m: '<ir:note ir:a="1"><ir:x/></ir:note>'
                                                 + m.group(1))(text.replace("<net ", '<net xmlns:ir="http://i" ', 1),
                                                               rng),
    "root rt_info and others": lambda text, rng: text.replace(
        "</net>", '<rt_info><a x="1"><b/></a></rt_info><statistics><x>1</x></statistics></net>'),
}


def _respelled(name: str, seed: object, folder: Path) -> Path:
    """The source IR after one respelling, or all but "lone CR" (after which libxml2's lines are not an editor's)."""
    rng = random.Random(seed)
    text = SOURCE.read_text()
    for respell in [RESPELLINGS[name]] if name != "all" else [r for n, r in RESPELLINGS.items() if n != "lone CR"]:
        text = respell(text, rng)
    path = folder / SOURCE.name
    path.write_bytes(text.encode())
    (folder / SOURCE.with_suffix(".bin").name).write_bytes(SOURCE.with_suffix(".bin").read_bytes())
    return path


@pytest.mark.parametrize("name", [*RESPELLINGS, "all"])
def test_respellings_read_alike_with_libxml2s_lines(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = _respelled(name, name, tmp_path)
    summary = _assert_paths_agree(path, monkeypatch)
    assert name != "all" or summary[0] != "refused", summary
    if summary[0] == "refused" or name == "lone CR":  # (libxml2 counts no line at a lone CR, an editor does: so do we)
        return
    root = etree.parse(str(path)).getroot()
    expected = {}
    for el in root.iterfind("{*}layers/{*}layer"):  # (in a namespace too: OpenVINO reads those, named as written)
        expected.setdefault(_id_read(el.get("id")), el.sourceline)  # (a repeated id: the first layer is kept)
    assert [(layer.id, layer.line) for layer in summary[5]] == list(expected.items())
    assert [e.line for e in summary[6]] == sorted(e.line for e in summary[6])


def test_guessed_runs_cut_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs guessed at every size from 200 to 6,000 characters in a file with every respelling: cuts that land in a
    comment or a subgraph body (malformed) or past a section (escaped) are found, and the reads stay alike."""
    path = _respelled("all", 7, tmp_path)
    expected = _summary(path)
    assert expected[0] != "refused", expected
    cuts: Counter[str] = Counter()
    fragment = reader._Reader.fragment

    def counted(self: reader._Reader, start: int, end: int, whole: bool = False) -> list | None:
        try:
            elements = fragment(self, start, end, whole)
        except etree.XMLSyntaxError:
            cuts["malformed"] += 1
            raise
        cuts["run" if elements is not None else "escaped"] += whole
        return elements

    monkeypatch.setattr(reader._Reader, "fragment", counted)
    monkeypatch.setattr(reader, "_LAYER", _NEVER)
    monkeypatch.setattr(reader, "_EDGE", _NEVER)
    monkeypatch.setattr(reader, "_PROBE", 1)
    for run in range(200, 6000, 50):
        monkeypatch.setattr(reader, "_RUN", run)
        assert _summary(path) == expected, run
    assert min(cuts["run"], cuts["malformed"], cuts["escaped"]) > 20, cuts


def test_latin1_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = SOURCE.read_text().replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>')
    text = text.replace('<net name="', '<net name="é', 1)
    path = tmp_path / "latin1.xml"
    path.write_bytes(text.encode("latin-1"))
    summary = _assert_paths_agree(path, monkeypatch)
    assert summary[0] == "émixed_network"


_BETWEEN = ["\n", " ", "\t", "\r\n", "<!-- c -->", "<?pi x?>", "text", '<extra a="1"/>', '<data x="1"/>', "<rt_info/>",
            '<port id="5" precision="FP32"/>']
_IN_VALUE = ["&amp;", "&#10;", "&#9;", " ", "\t", "\n", "é", ">", "'", "0", "-", "1.5", ""]


def editable_copy(folder: Path) -> tuple[str, Path]:
    """``SOURCE``'s text, and the path in ``folder`` to write variants of it to (its weights copied beside it)."""
    (folder / SOURCE.with_suffix(".bin").name).write_bytes(SOURCE.with_suffix(".bin").read_bytes())
    return SOURCE.read_text(), folder / SOURCE.name


def test_seeded_edits_read_alike_with_libxml2s_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 variants, each with up to four edits between elements or inside attribute values: both paths agree."""
    rng = random.Random(2)
    source, path = editable_copy(tmp_path)
    read = 0
    for _ in range(300):
        text = source
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.5:
                at = rng.choice([m.end() for m in re.finditer(">", text)])
                text = text[:at] + rng.choice(_BETWEEN) + text[at:]
            else:
                at = rng.choice([m.end() for m in re.finditer('="', text)])
                cut = rng.randint(0, 3)
                if '"' not in text[at:at + cut]:
                    text = text[:at] + rng.choice(_IN_VALUE) + text[at + cut:]
        path.write_text(text)
        summary = _assert_paths_agree(path, monkeypatch)
        if summary[0] == "refused":
            continue
        read += 1
        kept, expected = {layer.id for layer in summary[5]}, {}
        net = text[:text.index("</net>") + len("</net>")]  # (what follows it, OpenVINO and the reader read past)
        for el in etree.fromstring(net.encode()).iterfind("layers/layer"):
            if _id_read(el.get("id") or "") in kept:  # (a layer without an id or type is reported and left out)
                expected.setdefault(_id_read(el.get("id")), el.sourceline)
        assert [(layer.id, layer.line) for layer in summary[5]] == list(expected.items())
    assert read > 250
