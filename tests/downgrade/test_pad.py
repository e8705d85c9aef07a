"""Pad-12 migrated for OpenVINO 2023.0 (passes/downgrade/pad.py): non-negative Const pads as Pad-1, negative or
computed ones as Pad-1 with the positive pads then a StridedSlice-1 crop, in every mode; equal to the current
OpenVINO exactly."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ir_tools.cli import main
from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate
from tests.test_target import side_pythons

pytestmark = NEEDS_2023

MODES = ("constant", "edge", "reflect", "symmetric")


def _pads(rng: np.random.Generator, n: int, mode: str) -> tuple[int, int]:
    """A begin and end pad on an axis of length n that the mode takes (reflect < n, symmetric <= n, edge any
    positive on n >= 1) and leave at least one element."""
    high = {"reflect": n - 1, "symmetric": n}.get(mode, 4)
    while True:
        b, e = (int(v) for v in rng.integers(-n, high + 1, 2))
        if n + b + e >= 1:
            return b, e


#: Element types of pads_begin and pads_end where they differ (``pads_model``'s ``mixed``): i32 beside i64 (a QA run's
#: model), and the narrower types OpenVINO takes too; an unsigned one only for pads of no negative value.
MIXED = ((np.int32, np.int64), (np.int64, np.int32), (np.int8, np.int64), (np.int64, np.int16), (np.uint8, np.int32),
         (np.int32, np.uint16))


def pads_model(path: Path, rng: np.random.Generator, cases: int,
               fed: dict[str, np.ndarray] | None = None, mixed: bool = False) -> tuple[Path, int]:
    """``cases`` Pad-12 layers on Parameters of ranks 1..4 (each mode in turn; constant with or without a pad value,
    f32 or i32 data, i64 or i32 pads), two in three with some pad negative; returns the path and how many. With
    ``fed``, the pads are Parameters too, their values put in ``fed``. ``mixed``: pads_begin and pads_end of two
    element types (``MIXED``, in turn; an unsigned pad of a negative value made 0)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    params, results, negative = [], [], 0
    for i in range(cases):
        mode = MODES[i % 4]
        rank = int(rng.integers(1, 5))
        low = 2 if mode == "reflect" else 1
        shape = [int(n) for n in rng.integers(low, 6, rank)]
        pads = [_pads(rng, n, mode) for n in shape]
        if i % 3 == 0:
            cap = {"reflect": -1, "symmetric": 0}.get(mode)  # within the data: n - 1 for reflect, n symmetric
            pads = [(min(abs(b), n + cap), min(abs(e), n + cap)) if cap is not None else (abs(b), abs(e))
                    for (b, e), n in zip(pads, shape, strict=True)]
        dtype = np.int32 if i % 5 == 4 else np.float32
        index = np.int32 if i % 7 == 3 else np.int64
        x = o1.parameter(shape, dtype, name=f"x{i}")
        value = o1.constant(dtype(rng.integers(-9, 9))) if mode == "constant" and i % 8 else None
        types = MIXED[i % len(MIXED)] if mixed else (index, index)
        begin, end = (np.array([max(pair[j], 0) if np.dtype(t).kind == "u" else pair[j] for pair in pads], t)
                      for j, t in enumerate(types))
        if fed is None:
            begin_in, end_in = o1.constant(begin), o1.constant(end)
        else:
            begin_in, end_in = (o1.parameter([rank], t, name=f"{w}{i}") for w, t in (("begin", types[0]),
                                                                                        ("end", types[1])))
            fed.update({f"begin{i}": begin, f"end{i}": end})
            params += [begin_in, end_in]
        negative += min(begin.min(), end.min()) < 0
        pad = o12.pad(x, begin_in, end_in, mode, value, name=f"pad{i}")
        params.append(x)
        results.append(o1.result(pad, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "pads"), str(path), compress_to_fp16=False)
    return path, negative


def test_pad_12_runs_on_2023_equal_to_the_current_openvino(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """400 seeded Pad-12 layers, every mode, negative pads on two in three."""
    model, negative = pads_model(tmp_path / "pads.xml", np.random.default_rng(12), 400)
    out, printed = migrate(model, capsys)
    assert f"rewrote {negative} x Pad-12 (negative pads) -> Pad-1 + StridedSlice-1" in printed, printed
    assert f"rewrote {400 - negative} x Pad-12 (pads >= 0) -> Pad-1" in printed, printed
    assert negative > 200
    assert assert_runs_equal(model, out) == 400


def test_pad_12_with_computed_pads_runs_on_2023_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """200 seeded Pad-12 layers whose pads are fed (as Swin computes them from its input's shape): Pad-1 with their
    positive parts, then a StridedSlice-1 by their negative parts, computed."""
    import ir_tools
    from ir_tools.runtime.inputs import random_inputs

    fed: dict[str, np.ndarray] = {}
    model, negative = pads_model(tmp_path / "fed.xml", np.random.default_rng(14), 200, fed)
    out, printed = migrate(model, capsys)
    assert "rewrote 200 x Pad-12 (computed pads) -> Pad-1 + StridedSlice-1" in printed, printed
    assert negative > 100
    inputs = {**random_inputs(ir_tools.read_valid(model), 0, {}), **fed}
    assert assert_runs_equal(model, out, inputs=inputs) == 200
    # seeded pads are small and not negative (of [-50, 50) the original failed on the current OpenVINO: --check and
    # --check-with compared nothing on such a model), drawn for the original's Pads, not the migrated model's
    seeded = random_inputs(ir_tools.read_valid(model), 0, {})
    assert all(0 <= seeded[name].min() and seeded[name].max() <= 1 for name in fed)
    assert main(["migrate", str(model), "--target", "2023.0", "-o", str(tmp_path / "checked.xml"), "-q",
                 "--check-with", side_pythons()["2023.0"]]) == 0


def test_pad_12_with_partly_computed_pads_writes_dims_check_passes(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Pads computed but for the channel's, a Const 0 (Swin's: a Concat of a zero and values from the input's shape),
    and a Const pads_begin that crops (rule 3): OpenVINO bounds the rewrite's Pad-1 to [?,?,?,C], our rule cannot (it
    does not know a computed value), and the dims migrate wrote ([-1,-1,-1,-1]) were refused by `check` (found on
    the target zoo's Swin). What the rewrites
    build and our rules do not re-infer now takes OpenVINO's inference (``verdict.refresh_rewritten``); 20 layers,
    equal to the current OpenVINO on 2023.0."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset8 as o8
    import openvino.opset12 as o12

    import ir_tools

    rng = np.random.default_rng(15)
    params, results, fed = [], [], {}
    for i in range(20):
        x = o1.parameter([-1, -1, -1, 8], np.float32, name=f"x{i}")
        window = o1.constant(np.int64(rng.integers(2, 5)))  # the height and width padded up to the window's multiple
        hw = o8.gather(o3.shape_of(x, "i64"), o1.constant(np.array([1, 2], np.int64)), o1.constant(np.int64(0)))
        to_window = o1.floor_mod(o1.subtract(window, o1.floor_mod(hw, window)), window)
        zero = o1.constant(np.zeros(1, np.int64))
        end = o1.concat([zero, to_window, zero], 0)
        begin = o1.constant(np.array([0, -1, int(rng.integers(-1, 2)), 0], np.int64))  # (a crop: rule 3)
        results.append(o1.result(o12.pad(x, begin, end, MODES[i % 4], name=f"pad{i}"), name=f"y{i}"))
        params.append(x)
        fed[f"x{i}"] = rng.standard_normal((1, *(int(v) for v in rng.integers(3, 7, 2)), 8)).astype(np.float32)
    model = tmp_path / "partly.xml"
    ov.save_model(ov.Model(results, params, "partly"), str(model), compress_to_fp16=False)
    out, printed = migrate(model, capsys)  # (``migrate`` asserts `check` passes what was written)
    assert "rewrote 20 x Pad-12 (computed pads) -> Pad-1 + StridedSlice-1" in printed, printed
    padded = [layer for layer in ir_tools.read_ir(out).by_type("Pad")]
    assert len(padded) == 20 and all(layer.outputs[0].dims[-1] == 8 for layer in padded)
    assert all(layer.outputs[0].dims[-1] == 8 for layer in ir_tools.migrate(model, "2023.0").graph.by_type("Pad"))
    assert assert_runs_equal(model, out, inputs=fed) == 20


def test_pad_12_with_pads_no_release_computes_negative_is_pad_1_as_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Swin's pads, (w - n mod w) mod w for the height and width n, through a Concat, Reshape, Split, Squeeze and
    Gather as Swin's exporter builds them: FloorMod by a positive w keeps them in [0, w) on every release
    (``integer_bounds``) where w is a power of two (the target zoo's Swin: 4), or n is below 2^23 (a static shape), so
    the layer is Pad-1 as it is (rule 1), no crop; and, respelled, it keeps the dims OpenVINO judged at read, so
    OpenVINO is not asked to infer the migrated graph (rule 3 and that inference made the zoo's Swin migrate take 3.3
    times OpenVINO's read and save). 20 layers, every mode, equal on 2023.0."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset3 as o3
    import openvino.opset8 as o8
    import openvino.opset12 as o12

    import ir_tools
    from ir_tools.runtime import verdict

    rng = np.random.default_rng(16)
    params, results, fed = [], [], {}
    for i in range(20):
        w = (4, 3, 2, 5, 8, 7)[i % 6]
        hw = [int(v) for v in rng.integers(4, 9, 2)]
        x = o1.parameter([-1, -1, -1, 8] if w & (w - 1) == 0 else [2, *hw, 8], np.float32, name=f"x{i}")
        window = o1.constant(np.int64(w))
        hw_of = o8.gather(o3.shape_of(x, "i64"), o1.constant(np.array([1, 2], np.int64)), o1.constant(np.int64(0)))
        to_window = o1.floor_mod(o1.subtract(window, o1.floor_mod(hw_of, window)), window)
        zero = o1.constant(np.zeros(2, np.int64))
        pairs = o1.reshape(o1.concat([zero, to_window, zero], 0), o1.constant(np.array([3, 2], np.int64)), False)
        halves = o1.split(pairs, o1.constant(1), 2).outputs()
        begins, ends = (o1.squeeze(part, o1.constant(np.int64(1))) for part in halves)
        order = o1.constant(np.array([0, 0, 1, 2], np.int64))
        begin, end = (o8.gather(v, order, o1.constant(np.int64(0))) for v in (begins, ends))
        results.append(o1.result(o12.pad(x, begin, end, MODES[i % 4], name=f"pad{i}"), name=f"y{i}"))
        params.append(x)
        fed[f"x{i}"] = rng.standard_normal((2, *hw, 8)).astype(np.float32)
    model = tmp_path / "swin_pads.xml"
    ov.save_model(ov.Model(results, params, "swin_pads"), str(model), compress_to_fp16=False)

    def asked(*_: object) -> None:
        raise AssertionError("OpenVINO asked to infer the migrated graph")

    monkeypatch.setattr(verdict, "_openvino_inference", asked)
    out, printed = migrate(model, capsys)  # (``migrate`` asserts `check` passes what was written, OpenVINO's verdict)
    assert "rewrote 20 x Pad-12 (pads >= 0) -> Pad-1" in printed, printed
    assert "StridedSlice" not in printed
    assert ir_tools.migrate(model, "2023.0").stats == {"Pad-12 (pads >= 0) -> Pad-1": 20}
    assert assert_runs_equal(model, out, inputs=fed) == 20


def test_pad_12_with_pads_of_two_element_types_runs_on_2023_equal_to_the_current_openvino(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Pads of two element types (i32 pads_begin beside i64 pads_end, and i8, i16, u8, u16 beside them), which
    OpenVINO's Pad-1 and Pad-12 take (2023.0 and 2026.4; ir_tools' rule too: tests/ops/test_shaping_conformance.py):
    300 seeded layers with Const pads and 300 with fed ones. A QA run's Pad-12 of i32 and i64 computed pads failed in
    PadTo1 with E-OP naming no layer (its Maximum of an i64 pad and an i32 zero)."""
    import ir_tools
    from ir_tools.runtime.inputs import random_inputs

    model, negative = pads_model(tmp_path / "mixed.xml", np.random.default_rng(16), 300, mixed=True)
    assert negative > 100
    assert not [d for d in ir_tools.check(model) if d.severity == "error"]  # (OpenVINO's verdict and ours)
    out, printed = migrate(model, capsys)
    assert f"rewrote {negative} x Pad-12 (negative pads) -> Pad-1 + StridedSlice-1" in printed, printed
    assert assert_runs_equal(model, out) == 300

    fed: dict[str, np.ndarray] = {}
    model, negative = pads_model(tmp_path / "mixed_fed.xml", np.random.default_rng(17), 300, fed, mixed=True)
    assert negative > 100
    out, printed = migrate(model, capsys)
    assert "rewrote 300 x Pad-12 (computed pads) -> Pad-1 + StridedSlice-1" in printed, printed
    assert assert_runs_equal(model, out, inputs={**random_inputs(ir_tools.read_valid(model), 0, {}), **fed}) == 300


def test_pad_12_refused_where_it_may_leave_a_negative_dim(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    x = o1.parameter([-1, 4], np.float32, name="x")
    crop = o12.pad(x, o1.constant(np.array([-1, 0], np.int64)), o1.constant(np.array([0, -1], np.int64)),
                   "constant", name="crop")  # the dynamic dim may be 0: OpenVINO refuses a negative dim
    path = tmp_path / "crop.xml"
    ov.save_model(ov.Model([crop], [x], "crop"), str(path))
    assert_refused(path, "crop", "Pad of opset12", capsys)


def test_pad_12_refused_with_why_where_its_data_has_a_dynamic_rank(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Computed or negative pads on data of a dynamic rank (the IR declares no dims): the crop needs the rank. Computed
    pads failed in PadTo1 ('pads_begin has 4 values, the input has rank 0'); now refused at the layer, saying why;
    non-negative Const pads are respelled whatever the rank."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset12 as o12

    x = o1.parameter(ov.PartialShape.dynamic(), np.float32, name="x")
    begin, end = o1.parameter([4], np.int64, name="begin"), o1.parameter([4], np.int32, name="end")
    computed = o12.pad(x, begin, end, "constant", name="computed")
    negative = o12.pad(x, o1.constant(np.array([0, 1, -1, 0], np.int64)), o1.constant(np.array([0, 0, 1, 0], np.int64)),
                       "edge", name="negative")
    kept = o12.pad(x, o1.constant(np.array([0, 1, 1, 0], np.int64)), o1.constant(np.array([0, 0, 1, 0], np.int64)),
                   "edge", name="kept")
    path = tmp_path / "dynamic_rank.xml"
    ov.save_model(ov.Model([computed, negative, kept], [x, begin, end], "dynamic_rank"), str(path))
    assert main(["migrate", str(path), "--target", "2023.0", "-o", str(tmp_path / "out.xml")]) == 2
    err = capsys.readouterr().err
    for name, pads in (("computed", "computed"), ("negative", "negative")):
        assert re.search(rf"error\[E-TARGET\]: layer '{name}' .*no rewrite applies to this layer: its data has a "
                         rf"dynamic rank, which the crop by {pads} pads needs known", err), err
    assert "layer 'kept'" not in err and not (tmp_path / "out.xml").exists()
