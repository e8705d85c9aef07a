"""Every command over every file of the broken-input corpus (tests/data/bad): validate before acting.

For each file and each of check, inspect, shapes --fix, run, compare, migrate, convert-onnx and extract:
no traceback, never E-INTERNAL; where ``check`` finds an error, exit 1 or 2 and no output file;
where OpenVINO itself refuses the file (read or compile on CPU), never exit 0 and never PASSED.
Two commands exist to act on some of these files: ``migrate`` converts legacy IR v7 (which
OpenVINO cannot read) and ``shapes --fix`` repairs declared dims and precisions; there they may
succeed (tests/ir/test_legacy.py and tests/test_bad_inputs.py check what they write). OpenVINO
running out of memory while compiling a model with absurd dims is a limit of this machine, not
a verdict on the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import openvino as ov
import pytest

from ir_tools.cli import main

BAD = Path(__file__).parent / "data" / "bad"
MANIFEST: list[dict] = json.loads((BAD / "MANIFEST.json").read_text())

pytestmark = pytest.mark.openvino


def commands(model: Path, out: Path) -> dict[str, list[str]]:
    """Each command as a user would run it, writing (if at all) into ``out``."""
    return {
        "check": ["check", str(model)],
        "inspect": ["inspect", str(model)],
        "shapes --fix": ["shapes", str(model), "--fix", "-o", str(out / "fixed.xml")],
        "run": ["run", str(model), "-o", str(out / "outputs.npz")],
        "compare": ["compare", str(model), "--save-outputs", str(out / "saved.npz")],
        "migrate": ["migrate", str(model), "-o", str(out / "migrated.xml")],
        "convert-onnx": ["convert-onnx", str(model), "-o", str(out / "converted.xml")],
        "extract": ["extract", str(model), "--inputs", "input", "--outputs", "output", "-o", str(out / "part.xml")],
    }


#: How OpenVINO words an allocation this machine cannot make.
OUT_OF_MEMORY = ("std::bad_alloc", "Cannot allocate memory")


def openvino_refuses(model: Path) -> bool:
    """True if OpenVINO cannot read the file, or refuses to compile it on CPU for another reason than memory."""
    core = ov.Core()
    weights = model.with_suffix(".bin")
    try:
        core.compile_model(core.read_model(str(model), str(weights) if weights.exists() else None), "CPU")
    except Exception as exc:
        return not any(words in str(exc) for words in OUT_OF_MEMORY)
    return False


def acts_on_it(command: str, entry: dict, code: int) -> bool:
    """True where the command's purpose is to act on this kind of broken file, and it did."""
    legacy = command == "migrate" and entry["code"] == "E-IR-VERSION"
    fixable = command == "shapes --fix" and entry["fixable"]
    return code == 0 and (legacy or fixable)


@pytest.mark.parametrize("entry", MANIFEST, ids=[e["file"] for e in MANIFEST])
def test_every_command_validates_before_acting(entry: dict, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = BAD / entry["file"]
    refused = not model.exists() or openvino_refuses(model)
    has_errors = entry["exit"] != 0
    for name, argv in commands(model, tmp_path).items():
        for p in tmp_path.iterdir():
            p.unlink()
        code = main(argv)
        out, err = capsys.readouterr()
        written = sorted(p.name for p in tmp_path.iterdir())
        assert "Traceback" not in out + err, name
        assert "E-INTERNAL" not in out + err, (name, err)
        if acts_on_it(name, entry, code):
            continue
        if has_errors:
            assert code in (1, 2), (name, code, out, err)
            assert written == [], (name, written)
        if refused:
            assert code != 0 and "PASSED" not in out, (name, code, out)


def test_input_ports_may_leave_precision_to_their_producer(tmp_path: Path) -> None:
    """Model Optimizer and hand-written IRs give precision on output ports only; OpenVINO takes the producer's."""
    text = (BAD / "shape_wrong.xml").read_text().replace("<dim>3</dim>\n\t\t\t\t\t<dim>3</dim>",
                                                          "<dim>2</dim>\n\t\t\t\t\t<dim>2</dim>")
    text = text.replace('\t\t\t<input>\n\t\t\t\t<port id="0" precision="FP32">', '\t\t\t<input>\n\t\t\t\t<port id="0">')
    assert text.count('<port id="0">') == 2
    model = tmp_path / "no_input_precision.xml"
    model.write_text(text)
    assert not openvino_refuses(model)
    assert main(["check", str(model)]) == 0
    assert main(["compare", str(model)]) == 0
