"""check --format sarif (validated against the SARIF 2.1.0 schema) and --format github (workflow annotations).

The schema is the official one (sarif-2.1.0-rtm.5), as the npm package @microsoft/jest-sarif ships it;
the test fetches that package with npm (the registry is reachable from CI) and skips, saying so,
where npm or the registry is not available.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import jsonschema
import pytest

from ir_tools.base.codes import CODES
from ir_tools.cli import main
from tests.conftest import ROOT, SAMPLES

BAD = ROOT / "tests" / "data" / "bad"
SCHEMA_PACKAGE = "@microsoft/jest-sarif@1.0.0-beta.0"
SCHEMA_MEMBER = "package/lib/schemas/sarif-2.1.0-rtm.5.json"
#: The documented syntax: ::error file={name},line={line},title={title}::{message} (properties optional).
ANNOTATION = re.compile(r"^::(error|warning|notice) file=[^,:]+(,line=[1-9][0-9]*)?,title=[A-Z0-9-]+::[^\r\n]*$")


@pytest.fixture(scope="module")
def sarif_schema(tmp_path_factory) -> dict:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not installed: the SARIF 2.1.0 schema comes from the npm package {SCHEMA_PACKAGE}")
    folder = tmp_path_factory.mktemp("sarif-schema")
    done = subprocess.run([npm, "pack", SCHEMA_PACKAGE, "--pack-destination", str(folder)], capture_output=True,
                          text=True, timeout=180, cwd=folder)
    if done.returncode != 0:
        pytest.skip(f"npm could not fetch {SCHEMA_PACKAGE} (the SARIF schema): {done.stderr.strip()[-300:]}")
    with tarfile.open(next(folder.glob("*.tgz"))) as archive:
        return json.load(archive.extractfile(SCHEMA_MEMBER))


def _models() -> list[str]:
    return [str(SAMPLES / "wrong_dims.xml"), str(SAMPLES / "mixed_network.xml"), str(BAD)]


def test_sarif_validates_against_the_schema(sarif_schema: dict, capsys) -> None:
    assert main(["check", *_models(), "--format", "sarif", "--no-openvino", "--jobs", "1"]) == 2
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, sarif_schema)
    run = log["runs"][0]
    results = run["results"]
    assert len(results) > 100 and {r["level"] for r in results} == {"error", "warning"}
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    # each rule described, as code scanning shows it atop an alert, in the codes table's words
    described = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert described["E-SHAPE"]["fullDescription"]["text"] == CODES["E-SHAPE"].meaning
    assert all(rule["shortDescription"]["text"] and rule["defaultConfiguration"]["level"] ==
               ("warning" if code.startswith("W-") else "error") for code, rule in described.items()), described
    shape = next(r for r in results if r["ruleId"] == "E-SHAPE" and "wrong_dims" in
                 r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    assert shape["locations"][0]["physicalLocation"]["region"]["startLine"] > 0
    assert shape["locations"][0]["logicalLocations"][0]["kind"] == "element"


def test_github_annotations_follow_the_documented_syntax(capsys) -> None:
    assert main(["check", *_models(), "--format", "github", "--no-openvino", "--jobs", "1"]) == 2
    lines = capsys.readouterr().out.splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    assert len(annotations) > 100
    bad = [line for line in annotations if not ANNOTATION.match(line)]
    assert not bad, bad[:5]
    assert any(a.startswith("::error file=") and ",line=" in a and "title=E-SHAPE::" in a for a in annotations)
    assert lines[-1].endswith("with errors")  # the summary follows the annotations


def test_github_escapes_what_would_end_a_command(tmp_path: Path, capsys) -> None:
    from ir_tools.base.diagnostics import Diagnostic, render_github
    from ir_tools.base.errors import SourceLoc

    text = render_github({"a,b:c.xml": [Diagnostic("error", "E-OP", "50% done\nnext", SourceLoc("a,b:c.xml", 3))]})
    assert text == "::error file=a%2Cb%3Ac.xml,line=3,title=E-OP::50%25 done%0Anext"


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_a_refused_command_line_is_still_a_document(form: str, tmp_path: Path, capsys) -> None:
    """check DIR --format json|sarif on a directory with no IR printed nothing on stdout (exit 2): `> ir.sarif` then
    upload-sarif got an empty file (found by a QA run). The refusal is now a document: E-USAGE, of no file."""
    (tmp_path / "model.onnx").write_bytes(b"")
    assert main(["check", str(tmp_path), "--format", form]) == 2
    document = json.loads(capsys.readouterr().out)
    if form == "json":
        [entry] = document["files"]
        assert entry["file"] is None and [d["code"] for d in entry["diagnostics"]] == ["E-USAGE"]
        assert entry["diagnostics"][0]["fatal"]
    else:
        [run] = document["runs"]
        assert run["results"] == [] and not run["invocations"][0]["executionSuccessful"]
        [note] = run["invocations"][0]["toolExecutionNotifications"]
        assert note["descriptor"]["id"] == "E-USAGE" and "no IR .xml file" in note["message"]["text"]


def test_a_refused_command_line_is_an_annotation(tmp_path: Path, capsys) -> None:
    """With --format github, a refusal of the command line was text on stderr alone, which a workflow shows as no
    annotation: it is one now, of no file (and a refusal of a file names it)."""
    (tmp_path / "model.onnx").write_bytes(b"")
    assert main(["check", str(tmp_path), "--format", "github"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("::error title=E-USAGE::") and "no IR .xml file" in out and out.count("\n") == 1, out
    assert main(["check", str(tmp_path / "absent.xml"), "--format", "github"]) == 2
    assert capsys.readouterr().out.startswith(f"::error file={tmp_path / 'absent.xml'},title=E-READ::")


def test_sarif_locates_files_as_code_scanning_resolves_them(tmp_path: Path, monkeypatch, capsys) -> None:
    """A file under the working directory is a URI relative to it (%SRCROOT%), any other an absolute file:// URI (an
    absolute path was written as a bare "/tmp/..." URI, which a consumer reads as relative: found by a QA run)."""
    monkeypatch.chdir(SAMPLES)
    assert main(["check", "wrong_dims.xml", str(BAD / "dead.xml"), "--format", "sarif", "--no-openvino",
                 "--jobs", "1"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    places = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]:
              r["locations"][0]["physicalLocation"]["artifactLocation"].get("uriBaseId") for r in run["results"]}
    assert places == {"wrong_dims.xml": "%SRCROOT%", (BAD / "dead.xml").as_uri(): None}, places
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == SAMPLES.as_uri() + "/"


def test_refusals_validate_against_the_schema(sarif_schema: dict, tmp_path: Path, capsys) -> None:
    (tmp_path / "model.onnx").write_bytes(b"")
    assert main(["check", str(tmp_path), "--format", "sarif"]) == 2
    jsonschema.validate(json.loads(capsys.readouterr().out), sarif_schema)
    assert main(["check", str(SAMPLES / "wrong_dims.xml"), "--format", "sarif", "--no-openvino"]) == 1
    jsonschema.validate(json.loads(capsys.readouterr().out), sarif_schema)


@pytest.mark.parametrize("form", ["text", "json", "sarif"])
def test_the_hook_handed_other_xml_alone_passes(form: str, tmp_path: Path, capsys) -> None:
    """The pre-commit hook's command line (.pre-commit-hooks.yaml) on a commit staging only a pom.xml failed it:
    E-USAGE, exit 2 (found by a QA run). --ir-only is for that: a note, nothing checked, exit 0 (an empty document)."""
    hook = ROOT.joinpath(".pre-commit-hooks.yaml").read_text().split("entry: ir-tools ", 1)[1].split("\n")[0].split()
    pom = tmp_path / "pom.xml"
    pom.write_text('<?xml version="1.0"?>\n<project><a/></project>\n')
    assert main([*hook, str(pom), "--format", form]) == 0
    out, err = capsys.readouterr()
    assert "none of the files named is IR" in (out if form == "text" else err)
    if form == "json":
        assert json.loads(out)["files"] == []
    elif form == "sarif":
        assert json.loads(out)["runs"][0]["results"] == []


@pytest.mark.openvino
def test_an_operation_openvino_names_is_located_at_its_layer(tmp_path: Path, capsys) -> None:
    """OpenVINO's compile refusal names the operation ("Operation name: x"); E-OPENVINO had no line, and its SARIF
    result no region (found by a QA run): the line of the one layer of that name."""
    import numpy as np
    import openvino as ov
    import openvino.opset13 as o

    x = o.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    model = tmp_path / "dynrank.xml"
    ov.save_model(ov.Model([o.relu(x)], [x]), model)
    line = next(i for i, text in enumerate(model.read_text().splitlines(), 1) if 'name="x"' in text)
    assert main(["check", str(model), "--compile", "--format", "sarif"]) == 1
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["ruleId"] == "E-OPENVINO" and "Operation name: x" in result["message"]["text"], result
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": line}
