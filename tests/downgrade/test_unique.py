"""Unique-10 migrated for releases before 2022.3 (passes/downgrade/unique.py: rows compared pairwise, NonZero-3),
run on OpenVINO 2023.0 and the current OpenVINO equal to the current OpenVINO on the original; the forms it leaves
refused."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from ir_tools.passes.downgrade import UniqueTo8
from tests.downgrade.runs import NEEDS_2023, assert_runs_equal, left_for_2021_4, migrate

pytestmark = NEEDS_2023

#: The data types, each with the numpy type of its inputs (f16: an f32 input converted inside the model).
_TYPES = {"i32": np.int32, "f32": np.float32, "i64": np.int64, "f16": np.float16, "i8": np.int8, "u8": np.uint8}


def _planted(rng: np.random.Generator, shape: list[int], dtype: type) -> np.ndarray:
    """Data drawn from a few values (ties): on floats small numbers, NaN, +-inf and signed zeros; on i32 and i64
    the i32 limits and values near 2^24 (inexact in f32), on i8 and u8 their limits."""
    if dtype in (np.int32, np.int64):
        special = [-2**31, 2**31 - 1, 2**31 - 2, 2**24, 2**24 + 1, 65536, 65535]
        pool = np.array([*rng.integers(-3, 4, 3), *special], np.int64)
    elif dtype in (np.int8, np.uint8):
        info = np.iinfo(dtype)
        pool = np.array([*rng.integers(0, 4, 3), info.min, info.max, info.max - 1], np.int64)
    else:
        pool = np.array([*rng.integers(-3, 4, 3), np.nan, np.inf, -np.inf, 0.0, -0.0], np.float64)
    chosen = rng.choice(pool, int(rng.integers(1, 5)), replace=False)
    return rng.choice(chosen, shape).astype(dtype)


def unique_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` Unique-10 layers on Parameters of ranks 1..4 (the types of ``_TYPES`` in turn): sorted true (not
    on floats) or false, flattened or along a constant axis (negative too; i8 and u8 flattened only), i32 or i64
    indices and counts, static dims or some dynamic; all four outputs read; with seeded inputs (``_planted``)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset10 as o10

    params, results, inputs = [], [], {}
    for i in range(cases):
        element, dtype = list(_TYPES.items())[i % len(_TYPES)]
        j = i // len(_TYPES)
        rank = int(rng.integers(1, 5))
        shape = [int(n) for n in rng.integers(1, 5, rank)]
        declared = [-1 if j % 3 == 2 and rng.random() < 0.5 else n for n in shape]
        axis = []  # (flattened, or along an axis after dims of 1: the CPU's slices are wrong after others)
        if j // 2 % 2 and element not in ("i8", "u8"):
            at = int(rng.integers(0, rank))
            shape[:at], declared[:at] = [1] * at, [1] * at
            axis = [o1.constant(np.int64(at - rank * int(rng.integers(0, 2))))]
        x = o1.parameter(declared, np.float32 if dtype == np.float16 else dtype, name=f"x{i}")
        data = o1.convert(x, np.float16) if dtype == np.float16 else x
        sorted_ = element not in ("f32", "f16") and j % 2 == 0
        unique = o10.unique(data, *axis, sorted=sorted_, index_element_type=("i32", "i64")[j // 4 % 2],
                            count_element_type=("i64", "i32")[j // 3 % 2], name=f"unique{i}")
        values = unique.output(0)
        if dtype == np.float16:
            values = o1.convert(values, np.float32).output(0)
        params.append(x)
        results += [o1.result(out, name=f"{what}{i}") for out, what in zip(
            (values, unique.output(1), unique.output(2), unique.output(3)), "vird", strict=True)]
        inputs[f"x{i}"] = _planted(rng, shape, dtype).astype(x.get_element_type().to_dtype())
    ov.save_model(ov.Model(results, params, "uniques"), str(path), compress_to_fp16=False)
    return path, inputs


def test_unique_10_runs_on_older_releases_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """120 seeded layers (20 of each type): ``check --target 2021.4`` names each and says migrate rewrites it;
    migrated for 2022.1 (IR v11, whose outputs keep their types: 2023.0 reads an IR v10's i64 outputs as i32)
    ``check --target 2021.4`` names none of their layers (only the IR version: migrate writes v10 for 2021.4), and
    they give the current OpenVINO CPU's four outputs bit for bit (NaN, the sign of zero, the index and count
    types) on 2023.0 and the current OpenVINO."""
    model, inputs = unique_model(tmp_path / "uniques.xml", np.random.default_rng(1013), 120)
    assert main(["check", str(model), "--target", "2021.4"]) == 1
    said = capsys.readouterr().out
    assert "cannot create Unique of opset10" in said, said
    assert f"`ir-tools migrate --target` rewrites it {UniqueTo8.rewrites['Unique-10']} (and 119 more like it" \
           in said, said
    assert "no rewrite applies" not in said, said
    out, printed = migrate(model, capsys, "2022.1")
    assert "rewrote 80 x Unique-10 (sorted false) -> rows compared pairwise, NonZero-3" in printed, printed
    assert "rewrote 40 x Unique-10 (sorted true) -> rows compared pairwise, NonZero-3" in printed, printed
    left = left_for_2021_4(out, "Unique")
    assert not left, left[:3]
    assert assert_runs_equal(model, out, inputs=inputs) == 480


def refused_model(path: Path, how: str) -> Path:
    """One Unique-10 layer, ``unique``, that the rewrite leaves: 5000 elements flattened (``long``), 5000 slices
    along its axis (``slices``), sorted on f32 (``sorted``), flattened sorted false with its reverse indices unread
    (``unread``), slices of i8 (``slices_i8``), slices along axis 1 after a dim of 4 (``after``)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset10 as o10

    element = {"sorted": np.float32, "slices_i8": np.int8}.get(how, np.int32)
    x = o1.parameter({"long": [50, 100], "slices": [5000, 2]}.get(how, [4, 3]), element, name="x")
    axis = [o1.constant(np.int64({"slices": 0, "slices_i8": -2, "after": 1}[how]))] if how in (
        "slices", "slices_i8", "after") else []
    unique = o10.unique(x, *axis, sorted=how == "sorted", name="unique")
    read = (0, 1, 3) if how == "unread" else (0, 1, 2, 3)
    ov.save_model(ov.Model([o1.result(unique.output(i)) for i in read], [x], "left"), str(path))
    return path


@pytest.mark.parametrize(("how", "why"), [
    ("long", "it has 5000 elements: the rewrite compares every pair of them"),
    ("slices", "it has 5000 slices along its axis: the rewrite compares every pair of them"),
    ("sorted", "it is sorted on floats: the current OpenVINO CPU's sort orders NaN"),
    ("unread", "it is flattened with sorted false and its reverse indices are not read"),
    ("slices_i8", "it has slices of i8"),
    ("after", "it takes slices along axis 1 after dims other than 1")])
def test_unique_10_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, why: str) -> None:
    """Past 4096 elements or slices, sorted on floats, flattened unsorted without its reverse indices read, slices
    of i8, slices after a dim other than 1: refused (exit 2, nothing written), saying why."""
    model = refused_model(tmp_path / f"{how}.xml", how)
    out = tmp_path / "out.xml"
    assert main(["migrate", str(model), "--target", "2021.4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(r"error\[E-TARGET\]: layer 'unique' .*Unique of opset10.*no rewrite applies to this layer: "
                     rf"{re.escape(why)}", err), err
    assert not out.exists()
