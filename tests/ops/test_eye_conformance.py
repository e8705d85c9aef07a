"""Eye-9 (ops/eye.py) against OpenVINO: shape rule, CPU kernel and what its CPU plugin refuses.

Kernel: 400 seeded cases (num_rows and num_columns 0 to 6, diagonal indices from below -num_rows - 1 to above
num_columns + 1, 0 among them; no batch_shape or one of 1 to 3 values in [0, 3]; inputs i32 or i64, scalars or of
shape [1], each a Const or fed; every output type OpenVINO CPU compiles and the reference holds: f32, f16, bf16
(read back through a Convert to f32), f64, i8, u8, i16, u16, i32, u32, i64, u64, boolean) batched into one model
compiled once for OpenVINO CPU: every output must be OpenVINO's bit for bit (element type and shape included), and
so must 5 matrices of 2.8 MB, which CPU fills otherwise (beyond its L2 cache). What CPU refuses when it runs (a
negative count or batch value) the kernel refuses too; what it reads otherwise (in 32 bits; an empty batch_shape it
does not run) the kernel refuses where it would differ. Shape rule: 700 seeded nodes (inputs of i32, i64 or other
element types; counts and diagonal of shape [], [1], [2], [0], [1,1], [?], [1..2], [?,?] or a dynamic rank; Consts
negative, 0, positive or INT64_MAX, or Parameters; batch_shape absent, of shape [n], [?], [1..3], [], [2,1] or a
dynamic rank, a Const holding -1, -2, 0, positive values or INT64_MAX, or a Parameter; output types any, dynamic
ones too; about half refused) must give our rule's output, or both refuse. ``crashes`` and ``cpu_refuses`` say
exactly what the CPU plugin cannot compile or run; opset9..16 read Eye-9.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset9 as ops9
import pytest

from ir_tools.base.dims import INT64_MAX
from ir_tools.base.errors import OpValidationError, UnsupportedError
from ir_tools.ops import attrs as A
from ir_tools.ops.eye import EYE_9

from .conformance import (
    Bounds,
    Case,
    assert_all_pass,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    constant,
    from_openvino,
    openvino_outcome,
    our_outcome,
    partial_shape,
    pick,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 909
#: The output types OpenVINO CPU compiles an Eye of and the reference holds.
OUTPUT_TYPES = ("f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "boolean")
COUNT_TYPES = (np.int32, np.int64)


def eye(output_type: str) -> Callable[[list[ov.Node]], ov.Node]:
    """The node on (num_rows, num_columns, diagonal_index[, batch_shape]); a bf16 one read back as f32 (numpy holds no
    bf16: OpenVINO's Python hands its bits over as f16)."""
    def build(p: list[ov.Node]) -> ov.Node:
        node = ops9.eye(p[0], p[1], p[2], output_type, p[3] if len(p) == 4 else None)
        return ops1.convert(node, "f32") if output_type == "bf16" else node

    return build


def count(rng: np.random.Generator, value: int) -> np.ndarray:
    """A count or diagonal index: i32 or i64, a scalar or of shape [1]."""
    return np.array(value, pick(rng, COUNT_TYPES)).reshape([1] * int(rng.random() < 0.3))


def kernel_case(rng: np.random.Generator, output_type: str) -> Case:
    rows, columns = (int(n) for n in rng.integers(0, 7, 2))
    diagonal = int(rng.integers(-rows - 2, columns + 3)) if rng.random() < 0.9 else int(pick(rng, [0, 1, -1]))
    inputs = [count(rng, rows), count(rng, columns), count(rng, diagonal)]
    if rng.random() < 0.6:
        inputs.append(rng.integers(0, 4, int(rng.integers(1, 4))).astype(pick(rng, COUNT_TYPES)))
    consts = [j for j in range(len(inputs)) if rng.random() < 0.5]
    what = (f"Eye {output_type} rows {rows} columns {columns} diagonal {diagonal} batch "
            f"{inputs[3].tolist() if len(inputs) == 4 else None}, Consts {consts}")
    return Case(what, inputs, eye(output_type), consts=consts, bits=True)


def kernel_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [kernel_case(rng, OUTPUT_TYPES[i % len(OUTPUT_TYPES)]) for i in range(n)]


def test_values_bit_equal(tmp_path: Path) -> None:
    assert_all_pass(kernel_cases(np.random.default_rng(SEED), 400), tmp_path)


def test_matrices_beyond_the_l2_cache_bit_equal(tmp_path: Path) -> None:
    """CPU fills a matrix of more bytes than its L2 cache otherwise (zeros by all its threads, then the ones of each
    matrix split among them): 1000 x 700 of f32 or i32, 2.8 MB, diagonals within, below and beyond either edge."""
    cases = [Case(f"Eye {t} 1000 x 700 diagonal {d} batch {b}", [*i64(1000, 700, d), *([] if b is None else [b])],
                  eye(t), consts=consts, bits=True)
             for t, d, b, consts in (("f32", 5, None, []), ("f32", -7, np.array([2], np.int64), [3]),
                                     ("i32", 700, None, [0, 1]), ("f32", -1000, None, []), ("i32", 0, None, [2]))]
    assert_all_pass(cases, tmp_path)


def cpu_eye(inputs: list[np.ndarray]) -> np.ndarray:
    """OpenVINO CPU's f32 Eye of every input fed."""
    params = [ops1.parameter(list(x.shape), x.dtype) for x in inputs]
    compiled = ov.Core().compile_model(ov.Model([eye("f32")(params)], params), "CPU")
    return compiled(inputs)[0]


def our_eye(inputs: list[np.ndarray]) -> np.ndarray:
    (found,) = EYE_9.kernel(A.decode(EYE_9.attrs, {"output_type": "f32"}), inputs)
    return found


def i64(*values: int) -> list[np.ndarray]:
    return [np.array(v, np.int64) for v in values]


@pytest.mark.parametrize("inputs", [i64(-2, 3, 0), i64(2, -1, 0), [*i64(2, 3, 0), np.array([2, -1], np.int64)]],
                         ids=["rows", "columns", "batch"])
def test_a_negative_count_fed_is_refused(inputs: list[np.ndarray]) -> None:
    with pytest.raises(RuntimeError, match="not in range"):
        cpu_eye(inputs)
    with pytest.raises(OpValidationError):
        our_eye(inputs)


def test_a_diagonal_beyond_32_bits_is_refused_where_cpu_reads_it_on_the_matrix() -> None:
    """A fed i64 diagonal index CPU reads in 32 bits: 2^32 + 1 is 1 there (the specification's is all zeros), which
    the kernel refuses; 2^31 is -2^31 there, off the matrix like the value itself, which it computes."""
    on = i64(3, 3, 2**32 + 1)
    assert cpu_eye(on).tolist() == np.eye(3, 3, 1).tolist()
    with pytest.raises(UnsupportedError):
        our_eye(on)
    off = i64(3, 3, 2**31)
    assert cpu_eye(off).tolist() == our_eye(off).tolist() == np.zeros((3, 3)).tolist()


def test_an_empty_batch_shape_is_refused() -> None:
    """CPU does not run a node with an input of no element: an Eye fed an empty batch_shape leaves its output as the
    memory was (no assertion on garbage), folded from Consts it is the matrix: the kernel refuses it."""
    consts = [constant(x) for x in (*i64(2, 3, 0), np.zeros(0, np.int64))]
    folded = ov.Core().compile_model(ov.Model([eye("f32")(consts)], []), "CPU")([])[0]
    assert folded.tolist() == np.eye(2, 3).tolist()
    with pytest.raises(UnsupportedError):
        our_eye([*i64(2, 3, 0), np.zeros(0, np.int64)])


def test_output_types_cpu_cannot_compile_are_said() -> None:
    """``crashes`` names exactly the output types CPU has no Eye of (the dynamic one: output_type missing)."""
    for name in ("f32", "f16", "bf16", "f64", "i4", "u4", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64",
                 "boolean", "u1", "u2", "u3", "u6", "nf4", "f4e2m1", "f8e4m3", "f8e5m2", "f8e8m0", "string", None):
        rows = ops1.parameter([], np.int64)
        node = ops9.eye(rows, constant(np.int64(3)), constant(np.int64(0)), name or "dynamic")
        try:
            ov.Core().compile_model(ov.Model([node], [rows]), "CPU")
            compiles = True
        except RuntimeError as exc:
            assert "doesn't support demanded output precision" in str(exc), exc
            compiles = False
        raw = {} if name is None else {"output_type": name}
        assert (EYE_9.crashes(A.decode(EYE_9.attrs, raw), frozenset({0})) is None) == compiles, name


def refusal_cases() -> list[tuple[str, list[ov.Node], list[np.ndarray], list[np.ndarray | None]]]:
    """(what, the node's inputs, the Parameters' values, the Consts' values per input or None) of Eyes OpenVINO's
    shape inference takes."""
    rows = ops1.parameter([], np.int64)
    out = []
    for batch in ([-1, 2], [-2, 2], [0, 2], [2, 3]):
        for folded in (False, True):
            first = constant(np.int64(2)) if folded else rows
            out.append((f"batch {batch} Const, rows {'Const' if folded else 'fed'}",
                        [first, constant(np.int64(3)), constant(np.int64(0)), constant(np.array(batch, np.int64))],
                        [] if folded else [np.int64(2)], [np.int64(2) if folded else None, np.int64(3), np.int64(0),
                                                          np.array(batch, np.int64)]))
    for shape in ([-1], [ov.Dimension(1, 3)], ov.PartialShape.dynamic(), [2]):
        batch = ops1.parameter(shape, np.int64)
        out.append((f"batch fed of shape {shape}", [constant(np.int64(2)), constant(np.int64(3)),
                                                     constant(np.int64(0)), batch], [np.array([2, 1], np.int64)],
                    [np.int64(2), np.int64(3), np.int64(0), None]))
    return out


def test_cpu_refuses_what_cpu_refuses_says() -> None:
    """``cpu_refuses`` says exactly which of these Eyes CPU refuses to compile or run: a batch_shape of a shape not
    static (a dynamic rank), a Const batch_shape holding a negative value (folded from Consts but for -1: 0)."""
    for what, inputs, fed, values in refusal_cases():
        node = eye("f32")(inputs)
        params = [n for n in inputs if n.get_type_name() == "Parameter"]
        try:
            ov.Core().compile_model(ov.Model([node], params), "CPU")(fed)
            runs = True
        except RuntimeError:
            runs = False
        types = tensor_types([n.get_element_type().get_type_name() for n in inputs],
                             [from_openvino(n.get_output_partial_shape(0)) for n in inputs])
        said = EYE_9.cpu_refuses(A.decode(EYE_9.attrs, {"output_type": "f32"}), types,
                                 [None if v is None else np.asarray(v) for v in values])
        assert (said is None) == runs, (what, said)


def test_a_model_of_eyes_passes_compare(tmp_path: Path, capsys) -> None:
    """An Eye of the sequence's length (ShapeOf, Gather: a value OpenVINO bounds, which leaves the layer's shape to it)
    and one of Consts, end to end and per layer."""
    x = ops1.parameter([1, -1, 4], np.float32, name="x")
    length = ops1.gather(ops1.shape_of(x), constant(np.int64(1)), constant(np.int64(0)))
    mask = ops1.convert(ops9.eye(length, length, constant(np.int32(-1)), "i32"), "f32")
    band = ops9.eye(constant(np.int32(4)), constant(np.int64(4)), constant(np.int64(1)), "f32",
                    constant(np.array([1], np.int32)))
    y = ops1.add(ops1.matmul(mask, ops1.squeeze(x, constant(np.int64(0))), False, False), ops1.matmul(x, band, False,
                                                                                                         False))
    xml = tmp_path / "eye.xml"
    ov.save_model(ov.Model([y], [x], "eye"), xml)
    assert_compare_passes(xml, capsys, {"Eye@opset9"}, outputs=1)


# --- shape rule ------------------------------------------------------------------------------------

COUNT_SHAPES: tuple[Bounds, ...] = ((), ((1, 1),), ((2, 2),), ((0, 0),), ((1, 1), (1, 1)), ((0, None),), ((1, 2),),
                                    ((0, None), (0, None)), None)
BATCH_SHAPES: tuple[Bounds, ...] = (((0, None),), ((1, 3),), (), ((2, 2), (1, 1)), None)
NUMPY = {"i32": np.int32, "i64": np.int64}


def element(rng: np.random.Generator) -> str | None:
    return pick(rng, ["i32", "i64"]) if rng.random() < 0.96 else pick(rng, ["i16", "u64", "f32", None])


def shape_case(rng: np.random.Generator):
    elements = [element(rng) for _ in range(4)]
    shapes: list[Bounds] = [() if rng.random() < 0.75 else pick(rng, COUNT_SHAPES) for _ in range(3)]
    values: list[np.ndarray | None] = [None] * 4
    for i in range(3):
        if rng.random() < 0.6 and elements[i] in NUMPY and shapes[i] in ((), ((1, 1),)):
            v = pick(rng, [-1, 0, 1, 3, 5]) if rng.random() < 0.97 else INT64_MAX
            values[i] = np.array(v, NUMPY[elements[i]] if v != INT64_MAX else np.int64).reshape([1] * len(shapes[i]))
            elements[i] = str(np.dtype(values[i].dtype).name).replace("int", "i")
    if rng.random() < 0.6:
        n = int(rng.integers(1, 4))
        shapes.append(((n, n),) if rng.random() < 0.7 else pick(rng, BATCH_SHAPES))
        if rng.random() < 0.6 and shapes[3] == ((n, n),) and elements[3] in NUMPY:
            choices = [-1, -2, 0, 1, 2, 3] + ([INT64_MAX] if elements[3] == "i64" else [])
            values[3] = np.array([pick(rng, choices) for _ in range(n)], NUMPY[elements[3]])
    else:
        elements, values = elements[:3], values[:3]
    output_type = pick(rng, ["f32", "i32", "i64", "f16", "boolean", "u1", None])
    raw = {} if output_type is None else {"output_type": output_type}
    what = (f"Eye {raw} " + " ".join(f"{e}{show(s)}{'' if v is None else '=' + str(v.tolist())}"
                                     for e, s, v in zip(elements, shapes, values, strict=True)))

    def theirs():
        def node():
            ins = [constant(v) if v is not None else ops1.parameter(partial_shape(s), getattr(ov.Type, e or "dynamic"))
                   for e, s, v in zip(elements, shapes, values, strict=True)]
            return ops9.eye(ins[0], ins[1], ins[2], output_type or "dynamic", ins[3] if len(ins) == 4 else None)

        return openvino_outcome(node)

    def ours():
        return our_outcome("Eye", "opset9", raw, tensor_types(elements, shapes), values)

    return what, theirs, ours


def test_shape_rule_agrees() -> None:
    """Where OpenVINO's answer holds an empty dim (a count or batch value of INT64_MAX: ``Dimension(v)``'s empty
    interval, of bounds -1 in its Python), which no dim of ours holds, the rule declines."""
    rng = np.random.default_rng([SEED, 1])
    cases, empty = [], 0
    for what, theirs, ours in (shape_case(rng) for _ in range(700)):
        want = theirs()
        if isinstance(want, tuple) and any(dims and (-1, None) in dims for _, dims in want):
            assert ours() == "declines", what
            empty += 1
        else:
            cases.append((what, lambda want=want: want, ours))
    assert_shapes_agree(cases)
    assert 0 < empty < 50


def test_opsets(tmp_path: Path) -> None:
    """opset9..16 read Eye-9 (opset1..8 and 17 have no Eye)."""
    rows = ops1.parameter([], np.int64)
    node = ops9.eye(rows, constant(np.int64(3)), constant(np.int64(0)), "f32")
    assert check_versions({"Eye": node}, [rows], tmp_path) == []
