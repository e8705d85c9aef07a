"""A Const of an element type a release cannot read (u2, u3, u6, f8e4m3, f8e5m2, f4e2m1), read by Converts alone,
migrated as one of a wider type holding its values (passes/downgrade/wider_const.py): every value of each type, run
on 2023.0 (and 2024.0 where set) and on the current OpenVINO equal to the current OpenVINO on the original; and the
Consts it leaves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.ops.core import ConstAttrs, const_value
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

#: Each narrow type with the Convert destinations its Consts are read into here.
INTO = {"u2": ("f32", "i32", "u8", "f16"), "u3": ("f32", "i64"), "u6": ("f16", "i8", "f32"),
        "f8e4m3": ("f32",), "f8e5m2": ("f32",), "f4e2m1": ("f32",)}


def _every_value(element: str) -> list[float]:
    """Every value of ``element`` (each bit pattern once; a packed type's codes in turn), as floats."""
    bits = {"u2": 2, "u3": 3, "u6": 6, "f4e2m1": 4}.get(element, 8)
    if element.startswith("u"):
        return [float(v) for v in range(1 << bits)]
    payload = bytes(range(256)) if bits == 8 else bytes((v << 4) | v for v in range(16))
    count = 256 if bits == 8 else 32
    values = const_value(ConstAttrs(element, (count,), 0, len(payload)), payload).astype(np.float32)
    return values.tolist()


def wide_model(path: Path, left: bool = False) -> tuple[Path, dict[str, np.ndarray]]:
    """Per type of ``INTO``, a Const of every value, each Convert of it added to an input of its type, to a Result;
    ``left``: a u2 Const read by a Convert to boolean and an f8e4m3 one by a Convert to f16, which are left."""
    import openvino as ov
    import openvino.opset1 as o1

    params, results, feed = [], [], {}
    made = (("u2", ("boolean",)), ("f8e4m3", ("f16",))) if left else INTO.items()
    for element, destinations in made:
        values = _every_value(element)
        const = ov.op.Constant(getattr(ov.Type, element), ov.Shape([len(values)]), values)
        const.set_friendly_name(f"{element}_weights")
        for into in destinations:
            converted = o1.convert(const, into)
            name = f"{element}_{into}"
            if into == "boolean":
                results.append(o1.result(converted, name=name))
                continue
            x = o1.parameter([len(values)], converted.get_output_element_type(0), name=f"x_{name}")
            params.append(x)
            feed[f"x_{name}"] = np.ones(len(values), x.get_output_element_type(0).to_dtype())
            results.append(o1.result(o1.add(converted, x), name=name))
    if not params:
        params.append(o1.parameter([1], np.float32, name="unused"))
        feed["unused"] = np.ones(1, np.float32)
    ov.save_model(ov.Model(results, params, "wide"), str(path), compress_to_fp16=False)
    return path, feed


def test_narrow_consts_are_written_wider(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check --target 2023.0` names each Const (its reader refuses the types) and says migrate writes it wider;
    `migrate --target 2023.0` does (u8 or f16), and 2023.0 runs the model as the current OpenVINO runs the original,
    every value, NaN, infinities and -0.0 included; for 2024.0 the f8 Consts, which it reads, are left as they are."""
    model, feed = wide_model(tmp_path / "wide.xml")
    named = [d for d in ir_tools.check(model, openvino=False, target="2023.0") if d.code == "E-TARGET"]
    assert len(named) == len(INTO), [str(d) for d in named]
    assert all("`ir-tools migrate --target` writes it in a wider type" in d.message for d in named)
    out, printed = migrate(model, capsys)
    for element, holder in (("u2", "u8"), ("u3", "u8"), ("u6", "u8"), ("f8e4m3", "f16"), ("f8e5m2", "f16"),
                            ("f4e2m1", "f16")):
        assert f"rewrote 1 x {element} Const -> {holder} Const" in printed, printed
    assert assert_runs_equal(model, out, inputs=feed) == sum(map(len, INTO.values()))
    if "2024.0" in side_pythons():
        out, printed = migrate(model, capsys, "2024.0")
        assert "f8e4m3 Const" not in printed and "f4e2m1 Const -> f16 Const" in printed, printed
        assert assert_runs_equal(model, out, inputs=feed, releases=("2024.0",)) == sum(map(len, INTO.values()))


def test_narrow_consts_read_otherwise_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A u2 Const read by a Convert to boolean and an f8e4m3 one by a Convert to f16 (a decompression a release before
    2024.1 may fold in f16) are left: refused for 2023.0, as before."""
    model, _ = wide_model(tmp_path / "left.xml", left=True)
    named = {d.loc.layer_name: d.message for d in ir_tools.check(model, openvino=False, target="2023.0")
             if d.code == "E-TARGET"}
    assert sorted(named) == ["f8e4m3_weights", "u2_weights"], named
    assert all("has no rewrite for it" in message for message in named.values()), named
    assert_refused(model, "u2_weights", "cannot read element type u2", capsys)
