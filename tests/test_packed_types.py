"""Consts of the element types numpy has no dtype for (u1, u2, u3, u4, i4, u6, nf4, f4e2m1, f8e4m3, f8e5m2,
f8e8m0, bf16) read as OpenVINO reads them: seeded payloads through a Convert to f32, by ir_tools' reference and by
OpenVINO (its constant folding: the reference implementation of Convert; and its CPU plugin)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.base.dtypes import ELEMENT_TYPES, byte_size
from ir_tools.base.packed import VALUE_DTYPES

TYPES = sorted(VALUE_DTYPES)
#: Not a multiple of any packing (the last byte partly used), but for u3: OpenVINO reads the high bits of a last
#: group of fewer than eight u3 values from the byte after the Const's own (2 bytes hold 3 values; it reads 3).
COUNT = {name: 4096 if name == "u3" else 4099 for name in TYPES}


def packed_model(path: Path, rng: np.random.Generator, types: tuple[str, ...] = tuple(TYPES)) -> dict[str, bytes]:
    """An IR with, per type, a Const of COUNT[type] seeded elements (every byte pattern) converted to f32 and output as
    the type's name; returns each payload."""
    layers, edges, payloads, offset = [], [], {}, 0
    for i, name in enumerate(types):
        et = ELEMENT_TYPES[name]
        payload = rng.integers(0, 256, byte_size(et, COUNT[name]), dtype=np.uint8).tobytes()
        payloads[name] = payload
        dims = f"<dim>{COUNT[name]}</dim>"
        c, v, r = 3 * i, 3 * i + 1, 3 * i + 2
        layers += [
            f'<layer id="{c}" name="{name}_const" type="Const" version="opset1"><data element_type="{name}" '
            f'shape="{COUNT[name]}" offset="{offset}" size="{len(payload)}"/><output><port id="0" '
            f'precision="{et.precision}">{dims}</port></output></layer>',
            f'<layer id="{v}" name="{name}" type="Convert" version="opset1"><data destination_type="f32"/><input>'
            f'<port id="0" precision="{et.precision}">{dims}</port></input><output><port id="1" precision="FP32" '
            f'names="{name}">{dims}</port></output></layer>',
            f'<layer id="{r}" name="{name}/sink" type="Result" version="opset1"><input><port id="0" '
            f'precision="FP32">{dims}</port></input></layer>']
        edges += [f'<edge from-layer="{c}" from-port="0" to-layer="{v}" to-port="0"/>',
                  f'<edge from-layer="{v}" from-port="1" to-layer="{r}" to-port="0"/>']
        offset += len(payload)
    path.write_text('<?xml version="1.0"?>\n<net name="packed" version="11">\n<layers>\n' + "\n".join(layers)
                    + "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")
    path.with_suffix(".bin").write_bytes(b"".join(payloads.values()))
    return payloads


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("packed") / "packed.xml"
    packed_model(path, np.random.default_rng(4))
    return path


@pytest.mark.openvino
def test_packed_consts_read_as_openvino_folds_them(model: Path) -> None:
    """Every value equal to OpenVINO's constant folding, bit for bit (NaN where NaN), and check finds the file
    clean with OpenVINO's verdict."""
    import openvino as ov
    from openvino.passes import ConstantFolding, Manager

    assert [d for d in ir_tools.check(model) if d.severity == "error"] == []
    ours = ir_tools.run(ir_tools.read_valid(model), {})
    folded = ov.Core().read_model(model)
    manager = Manager()
    manager.register_pass(ConstantFolding())
    manager.run_passes(folded)
    for result in folded.get_results():
        name = result.output(0).get_any_name()
        want = result.input_value(0).get_node().get_data()
        assert ours[name].dtype == np.float32 and ours[name].shape == (COUNT[name],), name
        np.testing.assert_array_equal(ours[name].view(np.uint32), want.view(np.uint32), err_msg=name)


@pytest.mark.openvino
def test_packed_consts_read_as_openvino_cpu_runs_them(model: Path) -> None:
    """The same values as OpenVINO CPU's Convert, which flushes f32 subnormals (f8e8m0's 2**-127) to zero."""
    import openvino as ov

    ours = ir_tools.run(ir_tools.read_valid(model), {})
    compiled = ov.Core().compile_model(model, "CPU")
    got = {port.get_any_name(): value for port, value in compiled({}).items()}
    for name, value in ours.items():
        flushed = np.where(np.abs(value) < np.finfo(np.float32).tiny, np.float32(0), value)
        np.testing.assert_array_equal(got[name], flushed, err_msg=name)


def test_inspect_and_compare_take_packed_weights(model: Path) -> None:
    """The file's Consts decode in every command: inspect and run exit 0."""
    from ir_tools.cli import main

    assert main(["inspect", str(model)]) == 0
    assert main(["run", str(model), "-o", str(model.with_name("out.npz"))]) == 0
