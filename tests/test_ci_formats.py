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
