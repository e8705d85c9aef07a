"""SearchSorted-15 (ops/search_sorted.py), SliceScatter-15 (ops/scatter.py) and Col2Im-15 (ops/col2im.py) against
OpenVINO: shape rules and CPU kernels.

SearchSorted: 320 seeded cases (f32, f16, bf16, f64, i32, i64, i8, u8, i16, u16, u32, u64 and boolean; a 1-D sequence
with values of rank 0 to 3, or a sequence of rank 2 to 4 with values of its leading dims; sorted sequences with ties,
infinities, +-0 and NaNs at the end, one in four not sorted at all; values equal to elements, beyond them, NaN; the
32- and 64-bit integers near 2^24 and the ends of i32's range; right_mode and output_type either way; the sequence a
Const now and then), bit for bit, dtype included; beyond i32's range the CPU's answer depends on whether the sequence
is fed (wrapped) or a Const (saturated), which the kernel refuses. SliceScatter: 240 seeded cases (f32, f16, i32,
i64, i8, u8, boolean; rank 1 to 4, 1 to rank axes given or not, negative ones, negative steps, bounds beyond the ends
and the i64 limits, empty slices; i32 or i64 Const bounds), bit for bit. Col2Im: 320 seeded cases (f32, f16, f64,
i32, i8, u8, i16, i64 within i32's range, boolean; kernels 1 to 4 by 1 to 3, strides, dilations and pads 0 to 3,
batched or not; NaN, infinities, +-0, subnormals, sums that cancel, overflow or wrap), bit for bit: the kernel sums
in OpenVINO CPU's order and precision. Batched 80 cases to a model, compiled once per model. Shape rules: 200 seeded
nodes each on Parameters (partial shapes, dynamic ranks, element types alike or not and dynamic; value inputs known
or not) must give our rule's output, or both refuse.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest
from openvino.utils.node_factory import NodeFactory

from ir_tools.base.errors import UnsupportedError
from ir_tools.ops.col2im import COL2IM_15
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.movement import SLICE_8
from ir_tools.ops.search_sorted import SEARCH_SORTED_15, SearchSortedAttrs

from .conformance import (
    ELEMENTS,
    NUMPY,
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    partial_shape,
    pick,
    random_bounds,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 1515
CASES_PER_MODEL = 80
OPSET15 = NodeFactory("opset15")

#: SearchSorted's input types: numpy's, and bf16 made by a Convert inside the model (numpy holds none).
SEARCH_TYPES = ("f32", "f16", "bf16", "f64", "i32", "i64", "i8", "u8", "i16", "u16", "u32", "u64", "boolean")
_NUMPY = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "f64": np.float64, "i32": np.int32,
          "i64": np.int64, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "u32": np.uint32,
          "u64": np.uint64, "boolean": np.bool_}
_SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 65504.0, 1e6], np.float64)


def _numbers(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Numbers of ``kind``: a few distinct ones (ties), small or, for the 32- and 64-bit integers, near 2^24 and the
    ends of i32's range now and then; floats with +-0, infinities and subnormals (not bf16's: the Convert making them
    flushes f32 subnormals or not by instruction set, base/packed.to_bf16)."""
    dtype = np.dtype(_NUMPY[kind])
    if kind == "boolean":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind == "f":
        value = np.asarray(rng.choice(rng.integers(-8, 9, 6), shape) * float(pick(rng, [1.0, 0.25, 1e3, 1e-3])))
        special = _SPECIAL[1:] if kind != "bf16" else _SPECIAL[1:][_SPECIAL[1:] != 1e-40]  # (Convert's, per ISA)
        value = np.where(rng.random(shape) < 0.15, rng.choice(special, shape), value)
        with np.errstate(over="ignore"):  # (1e6 is inf in f16)
            return np.asarray(value.astype(dtype))
    info = np.iinfo(dtype)
    value = rng.integers(max(info.min, -9), min(info.max, 9), shape, endpoint=True)
    if dtype.itemsize >= 4 and rng.random() < 0.5:  # within i32's range: neighbours f32 would not tell apart
        base = int(pick(rng, [-2**31 + 8, -2**24, 2**24, 2**31 - 9] if info.min else [2**24, 2**31 - 9]))
        wide = (base + rng.integers(-8, 9, shape)).astype(dtype)
        return np.asarray(np.where(rng.random(shape) < 0.5, wide, value.astype(dtype)))
    return np.asarray(value.astype(dtype))


def _search(kind: str, right: bool, output_type: str):
    def build(ps: list[ov.Node]) -> ov.Node:
        inputs = [ops1.convert(p, "bf16") if kind == "bf16" else p for p in ps]
        return OPSET15.create("SearchSorted", [x.output(0) for x in inputs],
                              {"right_mode": right, "output_type": output_type})
    return build


def search_sorted_case(rng: np.random.Generator, kind: str) -> Case:
    n = int(rng.integers(1, 12))
    if rng.random() < 0.5:
        lead = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(1, 4))))
        sorted_shape, values_shape = (*lead, n), (*lead, int(rng.integers(1, 8)))
    else:
        sorted_shape, values_shape = (n,), tuple(int(d) for d in rng.integers(1, 5, int(rng.integers(0, 4))))
    ordered = _numbers(rng, kind, sorted_shape)
    shuffled = rng.random() < 0.25
    if not shuffled:
        ordered = np.sort(ordered, axis=-1)  # (NaNs last)
    values = _numbers(rng, kind, values_shape)
    if values.size and ordered.size:  # values equal to elements of the sequence
        flat = values.reshape(-1)
        picks = rng.random(flat.size) < 0.4
        flat[picks] = rng.choice(ordered.reshape(-1), int(picks.sum()))
    if kind in ("f32", "f16", "f64", "bf16") and values.size and rng.random() < 0.3:
        values.reshape(-1)[0] = np.nan
    right, output_type = bool(rng.random() < 0.5), pick(rng, ["i64", "i32"])
    what = (f"SearchSorted {kind}{list(sorted_shape)}{' unsorted' if shuffled else ''} values {list(values_shape)} "
            f"right_mode {right} {output_type}")
    # A Const sequence now and then: not of f16 (openvino's Python refuses its infinities) nor bf16 (the Convert of a
    # Const CPU folds by ov::bfloat16's rounding, which the executor does not follow there), nor holding f32 subnormals
    # (CPU flushes a Const's to zero: the module doc)
    const = rng.random() < 0.2 and kind not in ("f16", "bf16") and not (ordered.dtype.kind == "f" and np.any(
        (np.abs(ordered) < 2.0**-126) & (ordered != 0)))
    return Case(what, [ordered, values], _search(kind, right, output_type), consts=(0,) if const else (), bits=True)


def search_sorted_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [search_sorted_case(rng, SEARCH_TYPES[i % len(SEARCH_TYPES)]) for i in range(n)]


@pytest.mark.parametrize("part", range(4))
def test_search_sorted_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_all_pass(search_sorted_cases(np.random.default_rng([SEED, part]), CASES_PER_MODEL), tmp_path)


def test_search_sorted_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 100])
    cases = []
    for _ in range(200):
        sorted_rank, values_rank = int(rng.integers(0, 5)), int(rng.integers(0, 5))
        if rng.random() < 0.5 and sorted_rank > 1:
            values_rank = sorted_rank
        lengths = [int(d) for d in rng.integers(0, 5, max(sorted_rank, values_rank))]
        shapes = [None if rng.random() < 0.1 else random_bounds(rng, lengths[:rank] if rng.random() < 0.8 else
                                                                 [int(d) for d in rng.integers(0, 5, rank)])
                  for rank in (sorted_rank, values_rank)]
        elements = [pick(rng, ["f32", "i32", "i64", None])] * 2
        if rng.random() < 0.2:
            elements[1] = pick(rng, ["f32", "i64", "u8", None])
        raw = {"right_mode": pick(rng, ["true", "false"]), "output_type": pick(rng, ["i32", "i64"])}

        def theirs(shapes=shapes, elements=elements, raw=raw):
            return openvino_outcome(lambda: OPSET15.create(
                "SearchSorted", [ops1.parameter(partial_shape(s), ELEMENTS[e]).output(0) for s, e in
                                 zip(shapes, elements, strict=True)],
                {"right_mode": raw["right_mode"] == "true", "output_type": raw["output_type"]}))

        def ours(shapes=shapes, elements=elements, raw=raw):
            return our_outcome("SearchSorted", "opset15", raw, tensor_types(elements, shapes), [None, None])

        cases.append((f"SearchSorted {elements} {show(shapes[0])} {show(shapes[1])}", theirs, ours))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    s, v = ops1.parameter([5], np.float32), ops1.parameter([3], np.float32)
    search = OPSET15.create("SearchSorted", [s.output(0), v.output(0)], {"right_mode": False, "output_type": "i64"})
    assert check_versions({"SearchSorted": search}, [s, v], tmp_path) == []


def test_compare_checks_search_sorted(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A Relu -> SearchSorted model (the sequence an input, drawn sorted) compared end to end and per layer: checked,
    nothing left unchecked."""
    s, v = ops1.parameter([2, 6], np.float32, name="s"), ops1.parameter([2, 4], np.float32, name="v")
    search = OPSET15.create("SearchSorted", [s.output(0), ops1.relu(v).output(0)],
                            {"right_mode": True, "output_type": "i32"})
    xml = tmp_path / "search.xml"
    ov.save_model(ov.Model([ops1.result(search)], [s, v], "search"), xml)
    assert_compare_passes(xml, capsys, {"SearchSorted@opset15"}, outputs=1)


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.uint64])
def test_search_sorted_beyond_i32_is_not_modelled(dtype: type) -> None:
    """OpenVINO CPU compares these in i32: a fed sequence wrapped (2^31 + 100 is negative), a Const one saturated
    (2^31 - 1): the kernel, which cannot tell them apart, refuses such values (compare lists the layer as not
    checked). Should a later OpenVINO compare them alike, this test fails."""
    ordered, values = np.array([5, 2**31 + 100, 2**31 + 200], dtype), np.array([7], dtype)
    answers = []
    for const in (False, True):
        s = ops1.constant(ordered) if const else ops1.parameter([3], dtype)
        v = ops1.parameter([1], dtype)
        search = OPSET15.create("SearchSorted", [s.output(0), v.output(0)], {"right_mode": False, "output_type": "i64"})
        params = [v] if const else [s, v]
        compiled = ov.Core().compile_model(ov.Model([search], params), "CPU")
        answers.append(int(compiled([values] if const else [ordered, values])[0][0]))
    assert answers == [3, 1]  # wrapped: [5, -2^31 + 100, -2^31 + 200]; saturated: [5, 2^31 - 1, 2^31 - 1]
    with pytest.raises(UnsupportedError):
        SEARCH_SORTED_15.kernel(SearchSortedAttrs(), [ordered, values])


SCATTER_TYPES = (np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_)


def _slice_bounds(rng: np.random.Generator, n: int) -> tuple[int, int, int]:
    """A start, stop and step on an axis of ``n``: negative and beyond-the-end values, the i64 limits, negative steps;
    the slice may be empty."""
    step = int(pick(rng, [-3, -2, -1, 1, 1, 2, 3]))
    start, stop = (int(v) for v in rng.integers(-n - 2, n + 3, 2))
    if rng.random() < 0.15:
        start, stop = (2**63 - 1, -2**63) if step < 0 else (-2**63, 2**63 - 1)
    return start, stop, step


def slice_scatter_case(rng: np.random.Generator, dtype: type) -> Case:
    """Data of rank 1 to 4, sliced along 1 to rank axes (given, negative ones too, or left out: the first ones), the
    bounds i32 or i64 Consts (as the CPU computes it right: the module doc of ops/scatter.py)."""
    shape = [int(n) for n in rng.integers(1, 7, int(rng.integers(1, 5)))]
    rank = len(shape)
    given = rng.random() < 0.6
    axes = [int(a) for a in rng.permutation(rank)[:int(rng.integers(1, rank + 1))]] if given else \
        list(range(int(rng.integers(1, rank + 1))))
    triples = [_slice_bounds(rng, shape[a]) for a in axes]
    index = np.int64 if rng.random() < 0.5 or any(abs(v) > 2**31 for t in triples for v in t) else np.int32
    bounds = [np.array(column, index) for column in zip(*triples, strict=True)]
    if given:
        bounds.append(np.array([a - rank if rng.random() < 0.5 else a for a in axes], index))
    sliced = SLICE_8.kernel(NoAttrs(), [np.zeros(shape), *bounds])[0].shape
    if dtype is np.bool_:
        data, updates = rng.random(shape) < 0.5, rng.random(sliced) < 0.5
    else:
        data, updates = ((rng.standard_normal(s) * 50).astype(dtype) for s in (shape, sliced))
    what = f"SliceScatter {data.dtype}{shape} axes {axes if given else None} bounds {triples}"
    return Case(what, [data, updates, *bounds], lambda ps: ov.opset15.slice_scatter(*ps),
                consts=tuple(range(2, 2 + len(bounds))), bits=True)


def slice_scatter_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [slice_scatter_case(rng, SCATTER_TYPES[i % len(SCATTER_TYPES)]) for i in range(n)]


@pytest.mark.parametrize("part", range(3))
def test_slice_scatter_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_all_pass(slice_scatter_cases(np.random.default_rng([SEED, 10 + part]), CASES_PER_MODEL), tmp_path)


def test_slice_scatter_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 200])
    cases = []
    for _ in range(200):
        rank = int(rng.integers(0, 5))
        lengths = [int(d) for d in rng.integers(0, 6, rank)]
        data = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        count = int(rng.integers(0, rank + 2))
        triples = [_slice_bounds(rng, max(lengths[i % rank], 1) if rank else 3) for i in range(count)]
        axes = [int(a) for a in rng.permutation(max(rank, 1))[:count]] if rng.random() < 0.6 else None
        if axes is not None and count > len(axes):
            axes += [0] * (count - len(axes))  # (an axis twice: refused)
        bounds = [np.array(column, np.int64).reshape(count) for column in zip(*triples, strict=True)] or \
            [np.zeros(0, np.int64)] * 3
        if axes is not None:
            bounds.append(np.array(axes, np.int64))
        known = [rng.random() < 0.7 for _ in bounds]
        sliced = None
        if rank and data is not None:
            try:
                sliced = list(SLICE_8.kernel(NoAttrs(), [np.zeros(lengths), *bounds])[0].shape)
            except Exception:  # noqa: BLE001 (refused: updates of the data's dims)
                sliced = lengths
        updates_lengths = sliced if sliced is not None and rng.random() < 0.7 else \
            [int(d) for d in rng.integers(0, 6, rank if rng.random() < 0.9 else int(rng.integers(0, 5)))]
        updates = None if rng.random() < 0.1 else random_bounds(rng, updates_lengths)
        element = pick(rng, ["f32", "i32", None])

        def theirs(data=data, updates=updates, bounds=bounds, known=known, element=element):
            def build():
                ins = [ov.op.Constant(b) if k else ops1.parameter(partial_shape(((b.size, b.size),)), np.int64)
                       for b, k in zip(bounds, known, strict=True)]
                return ov.opset15.slice_scatter(*parameters([element, element], [data, updates]), *ins)
            return openvino_outcome(build)

        def ours(data=data, updates=updates, bounds=bounds, known=known, element=element):
            types = tensor_types([element, element] + ["i64"] * len(bounds),
                                 [data, updates] + [((b.size, b.size),) for b in bounds])
            return our_outcome("SliceScatter", "opset15", {}, types,
                               [None, None] + [b if k else None for b, k in zip(bounds, known, strict=True)])

        cases.append((f"SliceScatter {element} {show(data)} {show(updates)} bounds {[b.tolist() for b in bounds]} "
                      f"known {known}", theirs, ours))
    assert_shapes_agree(cases)


def test_slice_scatter_opsets(tmp_path: Path) -> None:
    data, updates = ops1.parameter([4, 3], np.float32), ops1.parameter([2, 3], np.float32)
    bounds = [ops1.constant(np.array([v], np.int64)) for v in (0, 2, 1, 0)]
    assert check_versions({"SliceScatter": ov.opset15.slice_scatter(data, updates, *bounds)}, [data, updates],
                          tmp_path) == []


FOLD_TYPES = ("f32", "f16", "f64", "i32", "i8", "u8", "i16", "i64", "boolean")


def _fold_data(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values of ``kind``: floats of mixed scales (sums that cancel, f16 ones that overflow f16 but not f32) with NaN,
    infinities, +-0 and subnormals among them, now and then all -0; integers over their whole range (sums that wrap;
    i64 within i32's)."""
    if kind == "boolean":
        return rng.random(shape) < 0.5
    dtype = np.dtype(_NUMPY[kind])
    if dtype.kind in "iu":
        info = np.iinfo(np.int32 if dtype == np.int64 else dtype)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    value = rng.standard_normal(shape) * rng.choice([1.0, 1e-3, 3e4, 1e8] if kind != "f16" else [1.0, 1e-3, 3e4],
                                                    shape)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, -3e-39])
    value = np.where(rng.random(shape) < 0.08, rng.choice(special, shape), value)
    if rng.random() < 0.05:
        value = np.full(shape, -0.0)
    with np.errstate(over="ignore"):
        return value.astype(dtype)


def _fold(kind: str, strides: list[int], dilations: list[int], pads_begin: list[int], pads_end: list[int]):
    def build(ps: list[ov.Node]) -> ov.Node:
        data = ops1.convert(ps[0], "bf16") if kind == "bf16" else ps[0]
        fold = ov.opset15.col2im(data, ps[1], ps[2], strides, dilations, pads_begin, pads_end)
        return ops1.convert(fold, "f32") if kind == "bf16" else fold
    return build


def col2im_case(rng: np.random.Generator, kind: str) -> Case:
    """Kernels of 1 to 4 by 1 to 3, strides and dilations 1 to 3 (windows overlapping, touching, or with gaps between
    them), pads 0 to 2 at either end (blocks beyond the output dropped), batched ([N, C*K, L]) and unbatched
    ([C*K, L]) data; output_size and kernel_size i32 or i64 Consts."""
    while True:
        kernel = [int(rng.integers(1, 5)), int(rng.integers(1, 4))]
        strides, dilations = ([int(v) for v in rng.integers(1, 4, 2)] for _ in range(2))
        pads_begin, pads_end = ([int(v) for v in rng.integers(0, 3, 2)] for _ in range(2))
        span = [dilations[a] * (kernel[a] - 1) + 1 for a in (0, 1)]
        size = [int(rng.integers(max(1, span[a] - pads_begin[a] - pads_end[a]), 12)) for a in (0, 1)]
        blocks = [(size[a] + pads_begin[a] + pads_end[a] - span[a]) // strides[a] + 1 for a in (0, 1)]
        if min(blocks) >= 1:
            break
    channels = int(rng.integers(1, 4))
    rows = channels * kernel[0] * kernel[1]
    shape = (int(rng.integers(1, 3)), rows, blocks[0] * blocks[1]) if rng.random() < 0.5 else (rows, blocks[0] *
                                                                                                blocks[1])
    index = pick(rng, [np.int32, np.int64])
    data = _fold_data(rng, kind, shape)
    what = (f"Col2Im {kind}{list(shape)} size {size} kernel {kernel} strides {strides} dilations {dilations} pads "
            f"{pads_begin} {pads_end}")
    return Case(what, [data, np.array(size, index), np.array(kernel, index)],
                _fold(kind, strides, dilations, pads_begin, pads_end), consts=(1, 2), bits=True)


def col2im_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [col2im_case(rng, FOLD_TYPES[i % len(FOLD_TYPES)]) for i in range(n)]


@pytest.mark.parametrize("part", range(4))
def test_col2im_bit_for_bit(part: int, tmp_path: Path) -> None:
    assert_all_pass(col2im_cases(np.random.default_rng([SEED, 20 + part]), CASES_PER_MODEL), tmp_path)


def test_col2im_shape_rule_agrees() -> None:
    rng = np.random.default_rng([SEED, 300])
    cases = []
    for _ in range(200):
        kernel = [int(v) for v in rng.integers(1, 4, 2)]
        size = [int(v) for v in rng.integers(2, 9, 2)]
        raw = {name: f"{int(rng.integers(1, 3))},{int(rng.integers(1, 3))}" for name in ("strides", "dilations")}
        raw |= {name: f"{int(rng.integers(0, 2))},{int(rng.integers(0, 2))}" for name in ("pads_begin", "pads_end")}
        attrs = {k: [int(v) for v in raw[k].split(",")] for k in raw}
        blocks = [(size[d] + attrs["pads_begin"][d] + attrs["pads_end"][d] - (attrs["dilations"][d] * (kernel[d] - 1)
                                                                              + 1)) // attrs["strides"][d] + 1
                  for d in (0, 1)]
        rank = int(pick(rng, [2, 3, 3, 1, 4]))
        lengths = [2, int(rng.integers(1, 4)) * kernel[0] * kernel[1] + int(rng.random() < 0.25),
                   max(blocks[0], 0) * max(blocks[1], 0) + int(rng.random() < 0.25)][-rank:] if rank in (2, 3) else \
            [int(d) for d in rng.integers(1, 5, rank)]
        data = None if rng.random() < 0.1 else random_bounds(rng, lengths)
        operands = []
        for value, odd in ((size, -1), (kernel, int(pick(rng, [0, -1])))):
            if rng.random() < 0.1:  # (a dynamic output dim; a kernel value OpenVINO refuses)
                value = [odd, value[1]] if rng.random() < 0.5 else [value[0], odd]
            element = pick(rng, ["i32", "i64", "i64", "i32", "f32", None])
            if rng.random() < 0.6 and element is not None:
                operands.append((element, np.array(value if rng.random() < 0.9 else [*value, 1], NUMPY[element])))
            else:
                operands.append((element, pick(rng, [((2, 2),), ((0, None),), None, ((3, 3),)])))

        def theirs(data=data, operands=operands, attrs=attrs):
            def build():
                ins = [ov.op.Constant(v) if isinstance(v, np.ndarray) else ops1.parameter(partial_shape(v), ELEMENTS[e])
                       for e, v in operands]
                return ov.opset15.col2im(ops1.parameter(partial_shape(data), np.float32), *ins, attrs["strides"],
                                         attrs["dilations"], attrs["pads_begin"], attrs["pads_end"])
            return openvino_outcome(build)

        def ours(data=data, operands=operands, raw=raw):
            shapes = [tuple((n, n) for n in v.shape) if isinstance(v, np.ndarray) else v for _, v in operands]
            types = tensor_types(["f32", *(e for e, _ in operands)], [data, *shapes])
            return our_outcome("Col2Im", "opset15", raw, types,
                               [None, *(v if isinstance(v, np.ndarray) else None for _, v in operands)])

        shown = [(e, v.tolist() if isinstance(v, np.ndarray) else v) for e, v in operands]
        cases.append((f"Col2Im {show(data)} {shown} {raw}", theirs, ours))
    assert_shapes_agree(cases)


def test_col2im_bounds_carry_moved_inputs() -> None:
    """The rounding rule's propagation: data moved anywhere within its bounds (of up to a few f32 ulps, and 0) gives
    results within the bound the rule gives; the kernel then sums in f32 values it rounds into f32 first."""
    rng = np.random.default_rng([SEED, 7])
    for case in col2im_cases(rng, 30):
        data = case.inputs[0]
        if data.dtype.kind != "f":
            continue
        x = np.where(np.isfinite(data), data, 1.0).astype(np.float32)
        bounds = [rng.integers(0, 4, x.shape) * np.spacing(np.abs(x)).astype(np.float64), np.zeros(()), np.zeros(())]
        what = case.what.split(" size ")[1]
        raw = {"strides": what.split("strides [")[1].split("]")[0], "dilations": what.split("dilations [")[1].split(
            "]")[0], "pads_begin": what.split("pads [")[1].split("]")[0], "pads_end": what.split("] [")[-1][:-1]}
        assert_bounds_carry_moves(COL2IM_15, raw, [x, *case.inputs[1:]], bounds, rng, case.what)


def test_col2im_omitted_attributes_crash_openvino_and_check_says_so() -> None:
    """Omitted, each attribute is an empty list, which OpenVINO's shape inference reads past the end of (a
    segmentation fault reading the model, measured on 2026.4.1 in a child process): ``crashes`` says so."""
    from ir_tools.ops.col2im import Col2ImAttrs

    assert COL2IM_15.crashes(Col2ImAttrs((1, 1), (1, 1), (0, 0), (0, 0)), frozenset({0})) is None
    for omitted in ("strides", "dilations", "pads_begin", "pads_end"):
        kept = {"strides": (1, 1), "dilations": (1, 1), "pads_begin": (0, 0), "pads_end": (0, 0)}
        del kept[omitted]
        assert "segmentation fault" in COL2IM_15.crashes(Col2ImAttrs(**kept), frozenset({0}))


def test_col2im_opsets(tmp_path: Path) -> None:
    x = ops1.parameter([1, 4, 9], np.float32)
    fold = ov.opset15.col2im(x, ops1.constant(np.array([4, 4], np.int64)), ops1.constant(np.array([2, 2], np.int64)))
    assert check_versions({"Col2Im": fold}, [x], tmp_path) == []


def test_compare_checks_slice_scatter_and_col2im(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A MatMul -> Col2Im (f32, and bf16 through Converts, which OpenVINO CPU sums rounding each sum into bf16) ->
    SliceScatter model compared end to end and per layer: every layer checked within its bound."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([2, 16, 12], np.float32, name="x")
    h = ops1.matmul(x, ops1.constant(rng.standard_normal((12, 9)).astype(np.float32)), False, False)
    size, kernel = ops1.constant(np.array([4, 4], np.int64)), ops1.constant(np.array([2, 2], np.int64))
    fold = ov.opset15.col2im(h, size, kernel, [1, 1], [1, 1], [0, 0], [0, 0])
    half = ops1.convert(ov.opset15.col2im(ops1.convert(h, "bf16"), size, kernel, [1, 1], [1, 1], [0, 0], [0, 0]),
                        "f32")
    bounds = [ops1.constant(np.array(v, np.int64)) for v in ([1, 0], [4, 4], [2, -1], [2, 3])]
    updates = ops1.multiply(half, ops1.constant(np.array(0.5, np.float32)))
    picked = ov.opset15.slice_scatter(fold, ov.opset8.slice(updates, *bounds), *bounds)
    xml = tmp_path / "fold.xml"
    ov.save_model(ov.Model([ops1.result(picked)], [x], "fold"), xml)
    assert_compare_passes(xml, capsys, {"Col2Im@opset15", "SliceScatter@opset15"}, outputs=1)
