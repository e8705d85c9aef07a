"""OpSpec: everything ir_tools knows about one version of one op, in one record.

A spec has typed attributes, and optionally a shape rule and a reference kernel. Which
``version="opsetN"`` spellings mean which spec is not said here but in one table,
``ops.opsets``, built explicitly the way OpenVINO builds its opsetN tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.dims import Shape
from .bounds import BoundRule


@dataclass(frozen=True, slots=True)
class TensorType:
    """What flows along an edge: element type name (``f32``...) and partial shape."""

    element: str | None
    shape: Shape


#: A shape rule: (typed attrs, input types, constant input values or None) -> output types, or None
#: for "this case cannot be inferred by us" (the layer then counts as not re-inferred, as with no rule).
ShapeRule = Callable[[Any, Sequence[TensorType], Sequence["np.ndarray | None"]], "list[TensorType] | None"]
#: A reference kernel: (typed attrs, input arrays) -> output arrays.
Kernel = Callable[[Any, Sequence[np.ndarray]], list[np.ndarray]]
#: A rounding rule (see ops.rounding): (kernel, typed attrs, input values, input bounds, output values) ->
#: per-output bounds on the error an f32 implementation may legitimately have.
RoundingRule = Callable[[Kernel, Any, Sequence[np.ndarray], Sequence[np.ndarray], Sequence[np.ndarray]],
                        list[np.ndarray]]
#: Why OpenVINO's CPU plugin refuses a layer: (typed attrs, input types, the values of the Consts feeding it or None)
#: -> the reason, or None.
CpuRule = Callable[[Any, Sequence[TensorType], Sequence["np.ndarray | None"]], "str | None"]
#: Whether OpenVINO's evaluate() of an op version takes a layer of these input element types (one per input port; None
#: where the type is not known): only then does OpenVINO fold the layer fed by Consts, and bound its outputs.
Evaluates = Callable[[Sequence["str | None"]], bool]

#: The element types evaluate() was measured on (OpenVINO 2026.4.1): a rule of some types alone (``on``) takes no other
#: (f8, i4, u1, string...), unmeasured.
MEASURED = frozenset({"f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "boolean"})
#: The element types OpenVINO's arithmetic evaluates most often: not f64, i8, i16, u8, u16 (its unary math, Power,
#: Divide, MatMul, ReduceSum...).
ARITHMETIC = frozenset({"f32", "f16", "bf16", "i32", "i64", "u32", "u64"})
#: The float types but f64 (HSwish, Gelu-7, ReduceL2...).
FLOATS = frozenset({"f32", "f16", "bf16"})
#: The index types OpenVINO's evaluate() reads where it reads no others (Gather's indices, OneHot's).
I32_I64 = frozenset({"i32", "i64"})


def all_but(*types: str) -> frozenset[str]:
    """The measured element types but ``types``."""
    return MEASURED - frozenset(types)


def always(elements: Sequence[str | None]) -> bool:
    """Evaluated on every element type the op's shape rule accepts (the default)."""
    return True


def never(elements: Sequence[str | None]) -> bool:
    """Never evaluated: OpenVINO's op has no evaluate() (or none it runs on Consts)."""
    return False


def on(types: Iterable[str], *inputs: int) -> Evaluates:
    """Evaluated where each input at ``inputs`` (input 0, the data, when none is named) is of one of ``types``; an
    input the layer lacks (an optional one) takes any, one of no known type (None) none."""
    allowed, at = frozenset(types), inputs or (0,)

    def evaluates(elements: Sequence[str | None]) -> bool:
        return all(elements[i] in allowed for i in at if i < len(elements))
    return evaluates


#: Evaluated on ``ARITHMETIC`` data: the default of the unary math and the binary arithmetic.
on_arithmetic = on(ARITHMETIC)


def all_of(*rules: Evaluates) -> Evaluates:
    """Evaluated where each of ``rules`` says so (the data's types and the indices', say)."""
    def evaluates(elements: Sequence[str | None]) -> bool:
        return all(rule(elements) for rule in rules)
    return evaluates


@dataclass(frozen=True, slots=True)
class OpSpec:
    """One op version. ``infer`` None: its declared output dims are trusted (``shapes`` says so);
    ``kernel`` None: the reference cannot execute it (``compare`` lists it as not checked).

    ``infer`` may also answer None for one case, where it cannot match OpenVINO's inference: that
    layer then counts as not re-inferred, exactly as with no rule (passes/shapes.py, rule 4). A
    value input (one of ``value_inputs``) it is given as None is unknown to OpenVINO too: the rule
    answers what OpenVINO infers without it. ``n_outputs`` -1: as many outputs as the rule gives
    (Split, VariadicSplit). ``rounding``: how far an f32 implementation may be from the kernel's values
    (ops.rounding); every op with a kernel has one.

    What the runtime and the checks need to know of the op is said here too, read through ``opsets.lookup``:
    ``index_input``, the input holding indices into input 0 (random inputs keep it within the data's dims,
    runtime/inputs.py); ``lengths_axis``, the axis of input 0 along which ``index_input`` holds lengths, each in
    [0, dim] (a sequence's steps: OpenVINO refuses, or answers otherwise than the reference, beyond them);
    ``cpu_saturates``, OpenVINO CPU saturates its 8-bit integer results where the
    specification and the kernel wrap around (compare does not check it on i8/u8, runtime/numeric_check.py);
    ``empty_windows``, its windows can hold no data tap (``check`` warns W-EMPTY-WINDOW, passes/checks.py);
    ``crashes``, given the decoded attributes and the indices of the layer's outputs the model reads, why OpenVINO's
    CPU plugin crashes on, or cannot compile or run, such a layer that its reader and shape inference accept, else None
    (``check`` refuses it, E-ATTR, passes/checks.py); ``cpu_refuses``, given the decoded attributes, the layer's
    input types and the values of the Consts feeding it (None for another producer), why OpenVINO's CPU plugin
    refuses to compile it, or to run it on any input the types allow, where its reader and shape inference accept it,
    else None: a rule on the file's constants, not on values only known when it runs (``check`` refuses it on a file
    otherwise clean, E-OP, passes/validate.py).
    ``bodies``: the layer children holding the op's bodies (TensorIterator, Loop, If): its rule, kernel and rounding
    rule are given ``ops.control_flow.Bodies`` (bound by the shape walk, the executor) in place of decoded attributes.
    ``reads_unfed_ports``: OpenVINO's op fills a default for an absent optional input, so its reader takes a layer
    declaring such an input port that no edge feeds; of any other op it refuses that layer ("node index is out of
    range", measured on 2026.4.1 for every op version of the table with optional inputs: passes/checks.py).
    ``bounds``: OpenVINO's lower and upper bounds of the op's output values given its inputs' (ops.bounds), which the
    shape walk carries where a value is not known (a ShapeOf of a shape not static, and what it feeds), of i32, i64
    and boolean values, and of f32 ones where ``float_bounds`` says its rule was measured on them;
    ``reads_bounds``: the rule is given a value input's ``Bounds`` (not exact) where its value is not known, as
    OpenVINO's rule reads them (a value of equal bounds every rule is given as a constant, as OpenVINO reads it);
    ``reads_concat``: where OpenVINO knows neither a value input's value nor its bounds, and a Concat of one element per
    input makes it, the rule is given the Concat's Const inputs as exact bounds and the others as unbounded (OpenVINO's
    Broadcast reads its target so, broadcast_shape_inference: to ``Concat([7], p, [3])`` of a Parameter p, ``[7,?,3]``).
    ``selects_rows``: OpenVINO CPU's output holds the rows the op selects, not as many as its inferred static dims say
    (NonMaxSuppression-1, -3 and -4): ``compare`` takes such an activation as the port's, not as a fused kernel's.
    ``folded``: where OpenVINO's CPU plugin computes otherwise on value inputs fed when it runs (``kernel``) than on
    value inputs known at shape inference (folded, or of a static output), the kernel of the latter, which the shape
    walk runs and the executor runs on a layer whose value inputs are known (``compute``'s ``folded``);
    ``folded_on``: the inputs that must be known for that, where not ``value_inputs`` (or every input of an op without
    value inputs): StridedSlice's data too, since its evaluator differs from CPU only where it folds the layer whole.
    ``evaluates``: given a layer's input element types, whether OpenVINO's evaluate() of the op takes them, measured
    on 2026.4.1 for every op version with a kernel and every element type its rule accepts: where it does not (the op
    has no evaluate(), ``never``: Inverse-14, the convolutions, pooling but MaxPool, normalizations, recurrent cells,
    detection, FFTs, ReadValue, Assign...; or one refusing these types, ``on``: Abs not on f64, i8, i16, u8, u16,
    Gather on i32 and i64 indices alone), OpenVINO neither folds the layer nor bounds its outputs, a layer of Consts
    alone included: the shape walk takes its values as unknown to OpenVINO, as a decompression layer's
    (passes/shapes.py, rule 5), though the kernel computes them. Measured by tests/passes/test_unevaluated_ops.py.
    """

    type: str  # canonical IR spelling, e.g. "AvgPool"
    label: str  # "AvgPool-14": type and first version, used in messages
    attrs: type  # frozen dataclass declared with ops.attrs.attr
    n_inputs: tuple[int, int]  # (min, max) number of inputs
    n_outputs: int
    infer: ShapeRule | None = field(default=None, compare=False)
    kernel: Kernel | None = field(default=None, compare=False)
    value_inputs: tuple[int, ...] = ()  # inputs whose constant values the shape rule reads
    rounding: RoundingRule | None = field(default=None, compare=False)  # None: no bound known (tolerances only)
    index_input: int | None = None  # the input indexing into input 0
    lengths_axis: int | None = None  # index_input holds lengths along this axis of input 0, not indices
    cpu_saturates: bool = False  # OpenVINO CPU saturates 8-bit integer results
    empty_windows: bool = False  # windows may hold no data tap
    crashes: Callable[[Any, frozenset[int]], str | None] | None = field(default=None, compare=False)
    cpu_refuses: CpuRule | None = field(default=None, compare=False)
    bodies: tuple[str, ...] = ()  # layer children holding bodies (ops.control_flow)
    folded: Kernel | None = field(default=None, compare=False)  # the kernel on value inputs known at shape inference
    folded_on: tuple[int, ...] | None = None  # the inputs known at shape inference that select ``folded``
    reads_unfed_ports: bool = False  # OpenVINO reads a declared optional input port no edge feeds
    bounds: BoundRule | None = field(default=None, compare=False)  # OpenVINO's bounds of its outputs' values
    float_bounds: bool = False  # ``bounds`` takes f32 values too (measured), not integers and booleans alone
    reads_bounds: bool = False  # its rule reads a value input's Bounds where the value is not known
    reads_concat: bool = False  # its rule reads a Concat's Const elements where OpenVINO knows no more of the value
    selects_rows: bool = False  # CPU gives the rows it selects, not as many as the inferred dims say
    evaluates: Evaluates = field(default=always, compare=False)  # input types OpenVINO's evaluate() takes

    def compute(self, attrs: Any, args: Sequence[np.ndarray], folded: bool = False) -> list[np.ndarray]:
        """The kernel on ``args``, as the executor and the shape walk run it (``folded``: value inputs known at shape
        inference, ``folded`` where the spec has one): inf and NaN inputs (inf - inf, 0 * inf, x / 0) give OpenVINO's
        inf and NaN, silently."""
        kernel = self.folded if folded and self.folded is not None else self.kernel
        with np.errstate(all="ignore"):
            return kernel(attrs, args)  # type: ignore[misc]
