"""SearchSorted-15 migrated for 2023.0 (no opset15) as Unsqueeze-1, Less-1 (LessEqual-1), Convert-1 and ReduceSum-1
(passes/downgrade/search_sorted.py): run on OpenVINO 2023.0 and the current one equal to the current OpenVINO on the
original, every output, dtype included."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from tests.downgrade.runs import NEEDS_2023, assert_refused, assert_runs_equal, migrate

pytestmark = NEEDS_2023

#: Input types (bf16 converted from f32 inside the model: numpy holds none). u32 and u64 are refused.
TYPES = ("f32", "f16", "i32", "i64", "i8", "u8", "bf16", "f64", "i16", "u16", "boolean")
FLOATS = ("f32", "f16", "bf16", "f64")
#: i32 and i64 are drawn around one of these (i64 within i32, which the CPU holds), where f32, in which the CPU
#: compares them, tells neighbours apart no more.
WIDE = (-2**31, -123456789, -2**24, 0, 2**24, 123456789, 2**31 - 7)


def _draw(rng: np.random.Generator, kind: str, shape: tuple[int, ...], ties: bool, base: int) -> np.ndarray:
    """Numbers of ``kind`` (f32 for the floats, to be made the type): a few distinct ones (``ties``: a few repeated)
    around 0, or for i32 and i64 around ``base`` (one of ``WIDE``), and now and then the integer type's extremes;
    booleans of them."""
    signed = kind in FLOATS or kind.startswith("i")
    lo, hi = (-6, 7) if signed else (0, 13)
    value = rng.choice(rng.integers(lo, hi, 4), shape) if ties else rng.integers(lo, hi, shape)
    if kind in FLOATS:
        return (value * rng.choice([1.0, 0.5, 1e3])).astype(np.float32)
    if kind == "boolean":
        return value % 2 == 1
    dtype = np.dtype(kind.replace("i", "int").replace("u", "uint"))
    info = np.iinfo(dtype)
    if info.bits >= 32:
        value, info = np.clip(value + base, -2**31, 2**31 - 1), np.iinfo(np.int32)
    value = np.where(rng.random(shape) < 0.1, np.array([info.min, info.max])[rng.integers(0, 2, shape)], value)
    return value.astype(dtype)


#: Edges, each a (type, sequence, values), searched in every mode, output type and Const or fed sequence and values:
#: i32 and i64 neighbours f32 does not tell apart, and -2^31, whose negation i32 lacks; NaN, infinities and zeros of
#: either sign, the sequence ending in NaN as a sort leaves it (then still ordered by ``<``). f16's are finite:
#: 2023.0 and 2024.0 CPU read an f16 input's infinities as +-65504 (any model: measured), unlike a Const's.
FLOAT_EDGE = ([-np.inf, -1.0, -0.0, 0.0, 0.0, 1.0, np.inf, np.nan], [np.nan, -np.inf, -2.0, -1.0, -0.0, 0.0, 0.5, 1.0,
                                                                    np.inf])
EDGES = (*((kind, [-2**31, -2**31, -2**31 + 1, -1, 0, 2**24, 2**24 + 1, 2**24 + 1, 2**31 - 1],
            [-2**31, -2**31 + 1, -2**31 + 2, -2, -1, 0, 1, 2**24 - 1, 2**24, 2**24 + 1, 2**24 + 2, 2**31 - 2,
             2**31 - 1]) for kind in ("i32", "i64")),
         ("f32", *FLOAT_EDGE), ("bf16", *FLOAT_EDGE),
         ("f16", *(np.nan_to_num(np.array(e), nan=np.nan, posinf=65504.0, neginf=-65504.0) for e in FLOAT_EDGE)))


def search_sorted_model(path: Path, rng: np.random.Generator, cases: int) -> tuple[Path, dict[str, np.ndarray]]:
    """``cases`` SearchSorted-15 layers: every type of ``TYPES`` in turn, right_mode false and true, output_type i32
    and i64; a 1-D sequence with values of rank 0 to 3, or a sequence of rank 2 to 4 with values of the same leading
    dims; sequences of repeated elements, values among them, below and above them all (the type's extremes for the
    integers, infinities and NaN for the floats, -0.0 beside 0.0); the sequence a Const one case in three, the values
    one in seven, else Parameters (some of dynamic dims). Then ``EDGES``, 16 layers each."""
    import openvino as ov
    import openvino.opset1 as o1
    from openvino.utils.node_factory import NodeFactory

    factory = NodeFactory("opset15")
    params, results, fed = [], [], {}

    def tensor(array: np.ndarray, kind: str, what: str, const: bool) -> ov.Output:
        if kind == "bf16":
            return o1.convert(tensor(array.astype(np.float32), "f32", what, const), "bf16").output(0)
        if kind in ("f16", "f64", "i32", "i64"):
            array = array.astype(kind.replace("i", "int").replace("f", "float"))
        if const:
            return o1.constant(array).output(0)
        dims = [-1 if rng.random() < 0.2 else d for d in array.shape]
        param = o1.parameter(dims, array.dtype, name=what)
        params.append(param)
        fed[what] = array
        return param.output(0)

    layers = []
    for i in range(cases):
        kind = TYPES[i % len(TYPES)]
        n, m = (int(d) for d in rng.integers(1, 8, 2))
        if i % 2:
            lead = tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(1, 4))))
            sorted_shape, values_shape = (*lead, n), (*lead, m)
        else:
            sorted_shape, values_shape = (n,), tuple(int(d) for d in rng.integers(1, 4, int(rng.integers(0, 4))))
        base = int(rng.choice(WIDE))
        ordered = np.sort(_draw(rng, kind, sorted_shape, True, base), axis=-1)
        values = _draw(rng, kind, values_shape, False, base)
        if values.size and rng.random() < 0.5:  # values equal to elements of the sequence
            flat = values.reshape(-1)
            picks = rng.random(flat.size) < 0.5
            flat[picks] = rng.choice(ordered.reshape(-1), int(picks.sum()))
        if kind in FLOATS and values.size:
            flat = values.reshape(-1)
            special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)
            picks = rng.random(flat.size) < 0.3
            flat[picks] = rng.choice(special, int(picks.sum()))
        layers.append((kind, bool(i // len(TYPES) % 2), ("i32", "i64")[i // (2 * len(TYPES)) % 2], ordered, values,
                       i % 3 == 0, i % 7 == 3))
    for kind, ordered, values in EDGES:
        for j in range(16):
            layers.append((kind, bool(j % 2), ("i32", "i64")[j // 2 % 2], np.array(ordered), np.array(values),
                           bool(j // 4 % 2), bool(j // 8)))
    for i, (kind, right, output_type, ordered, values, const_sorted, const_values) in enumerate(layers):
        inputs = [tensor(ordered, kind, f"sorted{i}", const_sorted), tensor(values, kind, f"values{i}", const_values)]
        search = factory.create("SearchSorted", inputs, {"right_mode": right, "output_type": output_type})
        search.set_friendly_name(f"search{i}")
        results.append(o1.result(search, name=f"y{i}"))
    ov.save_model(ov.Model(results, params, "search_sorted"), str(path), compress_to_fp16=False)
    return path, fed


def test_search_sorted_15_migrated_for_2023_0_runs_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """320 seeded SearchSorted-15 layers and 80 of edges: the same indices and dtype on 2023.0 and the current
    OpenVINO."""
    model, fed = search_sorted_model(tmp_path / "search.xml", np.random.default_rng(15), 320)
    # right_mode in other spellings OpenVINO reads: "1" is true, "0" false, " TRUE" skipped (the default, false)
    spellings = {"true": itertools.cycle(["1", "true"]), "false": itertools.cycle([" TRUE", "0", "false"])}
    model.write_text(re.sub(r'right_mode="(true|false)"', lambda found: f'right_mode="{next(spellings[found[1]])}"',
                            model.read_text()))
    out, printed = migrate(model, capsys)
    assert "rewrote 400 x SearchSorted-15 -> Less-1 + Convert-1 + ReduceSum-1" in printed, printed
    assert assert_runs_equal(model, out, inputs=fed) == 400


@pytest.mark.parametrize(("element", "rank"), [(np.float32, None), (np.uint32, 1), (np.uint64, 2)])
def test_search_sorted_15_left_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], element: type,
                                          rank: int | None) -> None:
    """A sequence of a dynamic rank (no rank: a 1-D one cannot be told from others) and u32 or u64 inputs (compared
    in f32 by the CPU, their difference unsigned): no rewrite, so migrate --target 2023.0 refuses."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset15 as o15

    shape = ov.PartialShape.dynamic() if rank is None else ov.PartialShape([2] * rank)
    ordered = o1.parameter(shape, element, name="sorted")
    values = o1.parameter([2, 3], element, name="values")
    model = tmp_path / "left.xml"
    ov.save_model(ov.Model([o1.result(o15.search_sorted(ordered, values, name="search"))], [ordered, values],
                           "left"), str(model))
    assert_refused(model, "search", "SearchSorted of opset15", capsys)
