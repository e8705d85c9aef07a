"""Rounding bounds: how far an f32 implementation (OpenVINO CPU) may legitimately be from the reference.

A fixed tolerance cannot tell a long f32 reduction's rounding from a defect: the first depends on the
scale of the terms. So each op version also has a rounding rule (``OpSpec.rounding``) that gives, per
output element, a bound on the error an f32 implementation may have, computed in float64 from the
values the layer actually saw. ``compare`` fails an element only beyond that bound and the user's
tolerances (README, "How compare judges an element").

A bound is a float64 array broadcastable to its output (``EXACT``, a 0-d zero, for "no error").
A rule gets the op's kernel, its typed attributes, the input values, the bounds already on those
inputs (per layer: EXACT for OpenVINO's f32 activations and for constants, ``handed_over`` for its f16
ones, plus a producer's own bound where OpenVINO's kernel computed that producer itself; end to end: what earlier
layers propagated) and the reference outputs, and returns one bound per output. It adds two things:

- the op's own rounding: for a sum of n terms computed in f32, gamma(n) * sum|terms| (Higham's
  bound, gamma(n) = n u / (1 - n u), u = 2^-24), then one rounding of the result on each side (ours
  and OpenVINO's) in the output's element type: 2 u_out |y|, where u_out is 2^-11 for f16 (with a
  floor of half the subnormal spacing);
- what the input bounds do to the output (the error propagated from earlier layers), computed with
  the op's own kernel: moved along by data movement, through sums of |terms|, or by evaluating an
  element-wise op at the corners of its inputs' intervals. A rule may carry a ``statistical`` variant
  for whole-model propagation, where worst cases compound (``accumulation``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from itertools import product
from typing import Any

import numpy as np

from ..base.packed import is_bf16
from .spec import Kernel, RoundingRule

__all__ = ["APPROXIMATION", "APPROXIMATION_ULPS", "EXACT", "SQUARE_FLOOR", "SQUARE_SLACK", "accumulation",
           "any_differs", "elementwise", "exact", "gamma", "handed_over", "is_exact", "may_differ", "moves",
           "output_rounding", "rounding_error", "scaled_squares", "square_scale", "taken_in", "unit",
           "unscaled_squares"]

#: The bound of an exact value; shared, so read-only (an in-place add to it would change every exact bound).
EXACT = np.zeros((), np.float64)
EXACT.flags.writeable = False

#: Unit roundoff (half an ulp at 1) of the precision OpenVINO CPU computes each float type in, at f32 inference
#: precision: f16 and bf16 values are its own, and it accumulates in f32; f64 it converts to f32 on the way in and
#: computes in f32 (measured on 2026.4: f64 Add, MatMul and Exp results are f32 values, equal to the f32
#: computation on f32-rounded inputs; tests/test_f64_models.py). bf16 values are held as ``base.packed.BF16``.
_UNITS = {np.dtype(np.float16): 2.0**-11, np.dtype(np.float32): 2.0**-24, np.dtype(np.float64): 2.0**-24}
BF16_UNIT = 2.0**-8
#: The most one rounding into each type changes a value below its normal range: half the subnormal spacing; for bf16
#: the whole normal range's floor, 2^-126, since OpenVINO CPU with AVX-512 BF16 flushes an f32 subnormal to zero when
#: it rounds to bf16 (and the reference, ``base.packed.to_bf16``, does), where other CPUs keep bf16 subnormals.
_FLOORS = {2.0**-11: 2.0**-25, 2.0**-24: 2.0**-150, BF16_UNIT: 2.0**-126}
ACCUMULATION_UNIT = 2.0**-24
#: f32 ulps of |y| allowed to OpenVINO CPU's approximations (exp, log, tanh, pow...): twice what any needed, measured
#: on 92,000 values (ops.activations) and in tests/ops/test_rounding.py.
APPROXIMATION_ULPS = 4
#: The relative error of one approximated function value: APPROXIMATION_ULPS f32 ulps (an ulp is at most 2u |y|).
APPROXIMATION = 2.0 * APPROXIMATION_ULPS * ACCUMULATION_UNIT


def unit(dtype: np.dtype) -> float:
    """The unit roundoff of an element type (bf16, ``BF16``: 2^-8); 0 for integers and booleans, which are exact."""
    if is_bf16(dtype):
        return BF16_UNIT
    if dtype.kind != "f":
        return 0.0
    return _UNITS.get(np.dtype(dtype), BF16_UNIT)


def gamma(n: int | np.ndarray) -> float | np.ndarray:
    """Higham's gamma(n): the relative bound of a sum of n terms computed in f32, n u / (1 - n u)."""
    nu = np.asarray(n, np.float64) * ACCUMULATION_UNIT
    return nu / np.maximum(1.0 - nu, 0.5)


def rounding_error(y: np.ndarray) -> np.ndarray:
    """The most one rounding into ``y``'s element type can change a value near |y|: u |y|, and below the normal
    range its floor (``_FLOORS``: 6e-8 for f16, an f16 activation of 1e-6 is only a few ulps)."""
    return _roundings(y, 1.0)


def output_rounding(y: np.ndarray, ulps: float = 0.0) -> np.ndarray:
    """Both sides round the exact result once into the output's element type; plus ``ulps`` f32 ulps of |y|."""
    return _roundings(y, 2.0, 2.0 * ACCUMULATION_UNIT * ulps)


def _roundings(y: np.ndarray, times: float, relative: float = 0.0) -> np.ndarray:
    """``times`` roundings into y's element type and ``relative`` |y|, in three passes: max(t u |y|, t tiny) +
    r |y| <= max((t u + r) |y|, t tiny + r tiny / u), since t u |y| < t tiny means |y| < tiny / u."""
    y = np.asarray(y)
    u = unit(y.dtype)
    if u == 0.0:
        return EXACT
    tiny = _FLOORS[u]
    out = y.astype(np.float64)
    np.abs(out, out=out)
    out *= times * u + relative
    return np.maximum(out, times * tiny + relative * tiny / u, out=out)


def handed_over(value: np.ndarray) -> np.ndarray:
    """The bound on an activation OpenVINO hands over, against the value its next layer used: OpenVINO CPU at f32
    precision computes f16 tensors in f32 and rounds only what it exposes, by up to half an ulp; bf16 ones likewise
    on a CPU without bf16 instructions (AVX2), and inside a fused kernel (a Multiply and an Add in one Subgraph) on one
    with them, but a bf16 constant it folds (a weight's decompression, exposed) by ``ov::bfloat16``'s rule, which
    truncates where the value's last bit is even: by up to an ulp (docs/SEMANTICS.md)."""
    value = np.asarray(value)
    u = unit(value.dtype)
    if u <= ACCUMULATION_UNIT:
        return EXACT
    return _roundings(value, 2.0) if u == BF16_UNIT else rounding_error(value)


def taken_in(value: np.ndarray) -> np.ndarray:
    """The bound on a value OpenVINO CPU takes in (a model input, a constant) against the value the file or the
    caller gives: an f64 value is rounded to f32, the precision it computes f64 in (``unit``); others are exact."""
    return rounding_error(value) if np.asarray(value).dtype == np.float64 else EXACT


def is_exact(bound: np.ndarray) -> bool:
    return bound.ndim == 0 and float(bound) == 0.0


def may_differ(value: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Where an input the kernel reads as a choice (an index, a size, a length) may differ from the reference's, by
    element: an integer within a bound below 1 is the same integer, a float with any bound may not be; NaN is no
    bound."""
    bound = np.broadcast_to(np.asarray(bound, np.float64), np.shape(value))
    return ~(bound < 1.0) if np.asarray(value).dtype.kind in "iub" else ~(bound <= 0.0)


def any_differs(args: Sequence[np.ndarray], bounds: Sequence[np.ndarray], inputs: Iterable[int]) -> bool:
    """Whether any of these inputs may differ from the reference's (``may_differ``)."""
    return any(i < len(args) and i < len(bounds) and not is_exact(bounds[i]) and may_differ(args[i], bounds[i]).any()
               for i in inputs)


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float64)


def exact(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
          outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Ops whose result is exact where their inputs are (Range, bitwise ops, logical reductions: integer and boolean
    plumbing); where an input may differ (``may_differ``), no bound."""
    if _steered(args, bounds, ()):
        return [np.full((), np.inf) for _ in outputs]
    return [EXACT for _ in outputs]


def _steered(args: Sequence[np.ndarray], bounds: Sequence[np.ndarray], data: Sequence[int]) -> bool:
    """Whether an input outside ``data`` (an index, shape, axis, shift or count, which the kernel reads as a choice)
    may differ from the reference's: then nothing bounds the output."""
    return any_differs(args, bounds, (i for i in range(len(args)) if i not in data))


def _unmoved(args: Sequence[np.ndarray], bounds: Sequence[np.ndarray], moving: Iterable[int]) -> np.ndarray:
    """The bound of an integer or boolean output of a movement or selection: exact where its data are the same
    (``may_differ``); else no bound (an index output, MaxPool's, may pick any element within rounding of the
    maximum)."""
    return np.full((), np.inf) if any_differs(args, bounds, moving) else EXACT


def moves(*data: int) -> RoundingRule:
    """Data movement and selection (Reshape, Concat, Gather, MaxPool, ReduceMax, Relu...): exact, and an input
    error moves with its element, so the kernel itself applied to the bounds of the ``data`` inputs (in place
    of their values; other inputs unchanged) gives the output bounds. A selection (a max of a window) picks
    one element: the max of the bounds bounds it. No ``data``: every input is data. Where another input may differ
    (``_steered``), no bound. A float64 bound goes to the kernel as it is, a read-only view: a Gather of 128 rows of
    an embedding's 16M-element bound copies no 128 MB."""

    def rule(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        moving = data or range(len(args))
        if data and _steered(args, bounds, data):
            return [np.full((), np.inf) for _ in outputs]
        if all(is_exact(bounds[i]) for i in moving if i < len(bounds)):
            return [EXACT for _ in outputs]
        if all(np.asarray(y).dtype.kind != "f" for y in outputs):  # (no kernel run on the bounds)
            return [_unmoved(args, bounds, moving)] * len(outputs)
        moved = [np.broadcast_to(bounds[i], np.shape(v)).astype(np.float64, copy=False) if i in moving else v
                 for i, v in enumerate(args)]
        return [_f64(b) if np.asarray(y).dtype.kind == "f" else _unmoved(args, bounds, moving)
                for b, y in zip(kernel(attrs, moved), outputs, strict=True)]

    return rule


#: K(|inputs|^exponent) computed by an op itself (accumulation's ``magnitude``).
Magnitude = Callable[[Any, Sequence[np.ndarray], int], list[np.ndarray]]


def accumulation(terms: Callable[[Any, Sequence[np.ndarray], Sequence[np.ndarray]], int],
                 data: Sequence[int] = (0, 1), magnitude: Magnitude | None = None,
                 linear: bool = True) -> RoundingRule:
    """Sums of products (Convolution, MatMul, AvgPool, ReduceSum/Mean...), linear in each ``data`` input:
    the kernel evaluated on |inputs| is sum|terms| per output element. With ``terms(attrs, args, outputs)`` n
    (the longest sum): gamma(n) sum|terms| + 2 u_out |y|.

    Input errors b add K(|x| + b_x, |w| + b_w) - K(|x|, |w|), the worst case (|xw - x'w'| <= |x||w - w'| +
    |x - x'||w'|): right per layer, where an input's bound is the one rounding of an f16 activation handed over; and
    the own rounding is gamma(n) of the sum over |x| + b_x, the values OpenVINO may have summed. For a kernel
    ``linear`` in each data input on its own (K(a x, w) = a K(x, w); not a product's, an L2 norm's or a scatter's
    sums) that difference is K(b_x, |w| + b_w) + K(|x|, b_w): sums of positive terms, each computed on its own (by
    ``magnitude`` in f32, the bounds rounded up into it), where a difference of two large sums cancels unless both are
    float64.
    End to end, the worst case grows by sum|w| per convolution, some 30x, and means nothing after a few layers
    (1e21 at the logits of resnet18): the rule's ``statistical`` variant, which whole-model propagation uses,
    adds the errors of the terms of a product of two inputs in quadrature, sqrt(K(b_x^2, w^2) + K(x^2, b_w^2) +
    K(b_x^2, b_w^2)), the standard model of rounding errors as independent.

    ``magnitude(attrs, args, exponent)`` computes K(|x|^e, |w|^e) (taking the powers itself, a block at a time)
    where the kernel would be needlessly exact (a float64 matrix product of a 100M-element weight matrix) or
    the powers of a whole weight matrix needlessly large: |terms| need no cancellation-free sum, and its own f32
    rounding (relative gamma(n), all terms positive) is covered by scaling it by 1 + gamma(n).

    The rule reads the kernel's ``outputs`` last, for their rounding (``outputs_last``): the executor may run it
    beside the kernel, its sums of |terms| while the kernel makes the terms' sums."""

    def variant(statistical: bool) -> RoundingRule:
        def rule(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                 outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
            if _steered(args, bounds, data):
                return [np.full((), np.inf)]
            if all(np.asarray(args[i]).dtype.kind in "iub" for i in data if i < len(args)):
                return [_unmoved(args, bounds, data)]  # integer sums and products: exact, or wrapped alike
            g = gamma(terms(attrs, args, outputs))

            def size_of(values: Sequence[np.ndarray], exponent: int = 1) -> np.ndarray:
                """K(|values|^exponent) over the data inputs, an array of its own."""
                if magnitude is not None:  # (in float64 and scaled up in one pass, in place where float64 already)
                    found = magnitude(attrs, values, exponent)[0]
                    return np.multiply(found, 1.0 + g, dtype=np.float64, out=_writable(found))
                return _f64(kernel(attrs, [np.abs(_f64(v)) ** exponent if i in data else v
                                           for i, v in enumerate(values)])[0])

            size = size_of(args)
            inexact = [i for i in data if i < len(bounds) and not is_exact(bounds[i])]
            moved: np.ndarray | None = None  # what the input errors add
            twice: np.ndarray | None = None  # what ``moved`` holds of ``own``'s sum again, taken off at the end
            if inexact and statistical and len(data) > 1:
                x, w = (args[i] for i in data[:2])
                bx, bw = (bounds[i] for i in data[:2])
                spread: np.ndarray | None = None
                for pair in ((bx, w), (x, bw), (bx, bw)):
                    if not (is_exact(pair[0]) or is_exact(pair[1])):
                        part = size_of(_with(args, data, pair), 2)
                        spread = part if spread is None else _into(np.add, spread, part)
                moved = np.sqrt(0) if spread is None else np.sqrt(spread, out=_writable(spread))
            elif inexact and linear:
                moved = _moved(args, bounds, inexact, magnitude is not None, size_of)
                moved *= 1.0 + g
            elif inexact:  # K(|x| + b_x, ...) (1 + g) - K(|x|, ...)
                moved = np.multiply(size_of([_widened(v, bounds[i]) if i in inexact else v
                                             for i, v in enumerate(args)]), 1.0 + g)
                twice = size
            own = g * size if twice is not None else np.multiply(size, g, out=_writable(size))
            result = _into(np.add, output_rounding(outputs[0]), own)  # (the outputs, read last)
            if moved is None:
                return [result]
            result = _into(np.add, result, moved)
            return [result if twice is None else _into(np.subtract, result, twice)]

        rule.outputs_last = True  # type: ignore[attr-defined]
        return rule

    worst_case = variant(False)
    worst_case.statistical = variant(True)  # type: ignore[attr-defined]
    return worst_case


def _into(op: np.ufunc, total: np.ndarray, term: np.ndarray) -> np.ndarray:
    """op(total, term), written into ``total`` (an array of the caller's own, float64) where it holds the result's
    shape: no fresh array (a product's bound has the output's size, [128, 32000] for a Llama's logits)."""
    if _writable(total) is not None and np.broadcast_shapes(total.shape, np.shape(term)) == total.shape:
        return op(total, term, out=total)
    return op(total, term)


def _writable(a: np.ndarray) -> np.ndarray | None:
    """``a`` where it is a float64 array that can be written into (the caller's own), else None (ufuncs' ``out``)."""
    return a if a.flags.writeable and a.dtype == np.float64 else None


def _moved(args: Sequence[np.ndarray], bounds: Sequence[np.ndarray], inexact: list[int], in_f32: bool,
           size_of: Callable[[Sequence[np.ndarray]], np.ndarray]) -> np.ndarray:
    """K(|args| + bounds) - K(|args|) for a K linear in each of its ``inexact`` inputs, as the sum over them of K with
    that input's bound in its place, the inputs before it as they are and those after it widened (K(b_x, |w| + b_w)
    + K(|x|, b_w)), each by ``size_of``; ``in_f32``: the bounds (and widened values) of f16, bf16 and f32 inputs go to
    it in f32, rounded up (still upper bounds), so that it sums them at f32 speed as it does the values."""

    def fed(i: int, value: np.ndarray) -> np.ndarray:
        dtype = np.asarray(args[i]).dtype
        value = np.broadcast_to(value, np.shape(args[i]))
        return _rounded_up_f32(value) if in_f32 and dtype.kind == "f" and dtype.itemsize <= 4 else value

    def with_bound(n: int) -> list[np.ndarray]:
        parts = list(args)
        parts[inexact[n]] = fed(inexact[n], bounds[inexact[n]])
        for j in inexact[n + 1:]:
            parts[j] = fed(j, _widened(args[j], bounds[j]))
        return parts

    return sum((size_of(with_bound(n)) for n in range(1, len(inexact))), start=size_of(with_bound(0)))


def _rounded_up_f32(v: np.ndarray) -> np.ndarray:
    """A float64 array of non-negative values in f32, each rounded up to the next f32 value where rounding went down
    (beyond f32's range: inf)."""
    with np.errstate(over="ignore"):
        out = v.astype(np.float32)
    return np.nextafter(out, np.float32(np.inf), out=out, where=out < v)


def _widened(v: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|v| + b in float64, in one fresh array where b broadcasts to v (a decompressed 16M-element weight's float64
    copy, magnitude and sum were three arrays of 128 MB, each faulted in afresh)."""
    out = np.abs(v, dtype=np.float64)
    if np.broadcast_shapes(out.shape, np.shape(b)) != out.shape:
        return out + b
    return np.add(out, b, out=out)


#: Scaled squares summed in f32 are raised to this at least: their products stay normal (subnormals slow BLAS 20x).
SQUARE_FLOOR = np.float32(2.0**-60)
#: The relative rounding of an f32 square, on both factors of a product, covered: K(x^2, w^2) times this.
SQUARE_SLACK = 1.0 + 2.0**-22


def square_scale(v: np.ndarray) -> float | None:
    """A power of 2 that puts v's largest magnitude in [1/2, 1) (its square in f32's range), None where there is
    none (an infinite or NaN element, all zeros, not floats): the statistical bound's squares then go in f64."""
    if v.dtype.kind != "f":
        return None
    if v.dtype == np.float16 and v.size:  # numpy reduces f16 an element at a time: the magnitudes' bits, 50x faster
        bits = int((v.view(np.uint16) & np.uint16(0x7FFF)).max())
        largest = math.inf if bits >= 0x7C00 else float(np.uint16(bits).view(np.float16))  # inf or NaN: inf
    else:
        largest = max(float(v.max()), -float(v.min())) if v.size else 0.0  # no |v| copy of a 100M-element weight
    if not 0.0 < largest < math.inf:
        return None
    return math.ldexp(1.0, -math.frexp(largest)[1])


def unscaled_squares(size: np.ndarray, *scales: float) -> np.ndarray:
    """``size``, sums of products of squares each scaled by the square of one of ``scales`` (``square_scale``'s
    powers of two), unscaled and raised by SQUARE_SLACK, in f64: by the scales' exponents (``np.ldexp``), so that
    scales whose squares' product underflows (values near 2^600 of f64, a bound that grew so) give an infinite
    bound, not a division by zero."""
    shift = 2 * sum(1 - math.frexp(scale)[1] for scale in scales)  # (scale = 2^(e-1): 1/scale^2 = 2^(2 - 2e))
    with np.errstate(over="ignore"):
        return np.ldexp(np.asarray(size, np.float64) * SQUARE_SLACK, shift)


def scaled_squares(v: np.ndarray, scale: float, into: np.ndarray | None = None) -> np.ndarray:
    """(v scale)^2 in f32, at least SQUARE_FLOOR (an upper bound): squares summed by sgemm, twice dgemm's speed.
    Written ``into`` that f32 array of v's shape, where given."""
    scaled = v.dtype.type(scale)
    if v.dtype == np.float32:
        square = np.multiply(v, scaled, out=into)
        np.square(square, out=square)
    else:
        square = np.square(np.multiply(v, scaled), dtype=np.float32, out=into)
    return np.maximum(square, SQUARE_FLOOR, out=square)


def _with(args: Sequence[np.ndarray], at: Sequence[int], values: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``args`` with ``values`` at the indices ``at`` (broadcast to the shape of the value they replace)."""
    out = list(args)
    for i, v in zip(at, values, strict=False):
        out[i] = np.broadcast_to(v, np.shape(args[i]))
    return out


#: A one-input op's bound on |f(x + d) - f(x)| over |d| <= b, from x, the reference output y = f(x) and b.
Change = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: Of an op of one turning point in its first input (Swish, Mish, HSwish), from its attributes, inputs and their
#: bounds: (lo, hi, value), [lo, hi] holding that point and ``value`` beyond the output there (a minimum rounded down,
#: a maximum up), or None where the op has none.
Extremum = Callable[[Any, Sequence[np.ndarray], Sequence[np.ndarray]], tuple[float, float, float] | None]


def elementwise(ulps: float = 0.0, absolute: float = 0.0, data: Sequence[int] | None = None,
                rounds: bool = True, linear: Sequence[float] | None = None, bilinear: bool = False,
                change: Change | None = None, extremum: Extremum | None = None) -> RoundingRule:
    """Element-wise ops: ``ulps`` f32 ulps of |y| for the op's own rounding or approximation (0 for a
    correctly rounded op, whose one rounding the output term already covers), plus ``absolute`` f32 ulps at 1
    (approximations whose error does not shrink with |y|); ``rounds`` False for ops that pick or convert exactly
    (Relu, Maximum, Select, Convert: both sides round the same value the same way). An input error propagates
    as the largest change of the output over the corners of the inputs' intervals [x - b, x + b], each computed
    with the kernel (exact for monotone ops, and for products and quotients whose divisor keeps its sign).
    ``linear`` (Add 1, 1; Subtract 1, -1): the kernel is x + s y, whose largest change is the kernel of the
    bounds times those signs, b_x + b_y, at once (float inputs; four corners of a 2-input op otherwise).
    ``bilinear`` (Multiply): the kernel is x y, whose largest change is |x| b_y + |y| b_x + b_x b_y, at once (float
    inputs).
    ``change`` (a one-input op whose kernel is costly, Gelu, or periodic, Sin): its bound on the change, in place of
    the corners. ``extremum`` (an op that turns once): where x's interval reaches the turning point, the output can
    reach the extremum, which the corners miss."""

    def rule(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        inputs = range(len(args)) if data is None else data
        wide = [i for i in inputs if i < len(bounds) and not is_exact(bounds[i])]
        if linear is not None and not (wide or ulps or absolute) and _sums_exactly(kernel, attrs, args, outputs[0]):
            return [EXACT]
        blocks = _blocks(np.shape(outputs[0]), [*args, *bounds]) if wide else None
        if blocks is not None:  # the same rule on each block: the same bound, element by element
            out = np.empty(np.shape(outputs[0]))
            for block in blocks:
                part = [_block(v, block, out.ndim) for v in args]
                out[block] = rule(kernel, attrs, part, [_block(b, block, out.ndim) for b in bounds],
                                  [_block(outputs[0], block, out.ndim)])[0]
            return [out]
        if rounds:
            local = output_rounding(outputs[0], ulps)
            if absolute:  # (not in place: an integer output's rounding is EXACT)
                local = local + 2.0 * ACCUMULATION_UNIT * absolute
        else:
            local = EXACT
            if ulps or absolute:
                local = 2.0 * ACCUMULATION_UNIT * (ulps * np.abs(_f64(outputs[0])) + absolute)
        if not wide:  # (a Convert of f16 weights: no f64 copy of them)
            return [local if linear is None or is_exact(local) else _exact_below_normal(local, outputs[0])]
        if change is not None:
            return [local + change(np.asarray(args[0]), np.asarray(outputs[0]),
                                   np.broadcast_to(bounds[0], np.shape(outputs[0])))]
        if linear is not None and all(np.asarray(v).dtype.kind == "f" for v in args):  # no f64 copies of the values
            signed = [sign * np.broadcast_to(bounds[i], np.shape(v)) if i in wide else np.zeros(np.shape(v))
                      for i, (v, sign) in enumerate(zip(args, linear, strict=True))]
            moved_by = np.asarray(kernel(attrs, signed)[0], np.float64)  # copy=None is numpy 2 only
            np.abs(moved_by, out=moved_by)
            moved_by += local
            return [moved_by]
        if bilinear and all(np.asarray(v).dtype.kind == "f" for v in args):
            return [_into(np.add, _product_change(*args, *bounds), local)]
        y = _f64(outputs[0])
        values = [_f64(v) if np.asarray(v).dtype.kind == "f" else np.asarray(v) for v in args]
        spread = np.zeros(np.shape(y))
        for signs in product((-1.0, 1.0), repeat=len(wide)):
            moved = list(values)
            for i, sign in zip(wide, signs, strict=True):
                step = sign * bounds[i]
                if moved[i].dtype.kind != "f":  # an integer computed from floats (a shape): whole steps
                    step = np.clip(np.ceil(step), -(2**31), 2**31).astype(moved[i].dtype)
                moved[i] = moved[i] + step
            with np.errstate(all="ignore"):
                moved_by = np.asarray(np.abs(_f64(kernel(attrs, moved)[0]) - y))
            moved_by[np.isnan(moved_by)] = np.inf  # a corner outside the domain (or an infinite one): no bound
            np.maximum(spread, moved_by, out=spread)
        turn = extremum(attrs, args, bounds) if extremum is not None and 0 in wide else None
        if turn is not None:
            lo, hi, value = turn
            with np.errstate(invalid="ignore"):  # (NaN inputs: their corners are already no bound)
                reached = (values[0] - bounds[0] <= hi) & (values[0] + bounds[0] >= lo)
            np.maximum(spread, np.where(reached, np.abs(value - y), 0.0), out=spread)
        return [local + spread]

    return rule


def _product_change(x: np.ndarray, y: np.ndarray, bx: np.ndarray, by: np.ndarray) -> np.ndarray:
    """|x| b_y + |y| b_x + b_x b_y: the largest change of x y over [x - b_x, x + b_x] and [y - b_y, y + b_y] (at the
    corner of x's and y's signs), the terms of an exact input left out; no bound where it is NaN (inf times 0), as
    at the corners."""
    terms = [np.multiply(np.abs(v), b, dtype=np.float64) for v, b in ((y, bx), (x, by)) if not is_exact(b)]
    moved = terms[0] if len(terms) == 1 else terms[0] + terms[1] + np.multiply(bx, by, dtype=np.float64)
    moved = np.asarray(moved)  # (of 0-d values: a scalar made an array)
    moved[np.isnan(moved)] = np.inf
    return moved


def _exact_below_normal(local: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A sum of two floats whose result lies below the normal range (0 included) is exact (Hauser 1996: its terms
    are multiples of the least subnormal, and so is the sum): on exact inputs, both sides' rounding is 0 there (a
    mask's 1 - 1, which a comparison with 0 then reads). A bf16 result is flushed to zero below it (``to_bf16``): exact
    where it is 0, which a CPU that keeps bf16 subnormals gives too but where the exact sum is one (below 2^-126)."""
    y = np.asarray(y)
    smallest_normal = 2.0**-14 if y.dtype == np.float16 else 2.0**-126 if unit(y.dtype) in (BF16_UNIT, 2.0**-24) \
        else 0.0
    below = np.abs(y) < smallest_normal  # (in y's own type: no float64 copy of a residual Add's output)
    if below.any():
        local = np.where(below, 0.0, local)
    return local


def _sums_exactly(kernel: Kernel, attrs: Any, args: Sequence[np.ndarray], y: np.ndarray) -> bool:
    """Whether the f16 (bf16) result ``y`` of a sum of f16 (bf16) inputs (``elementwise``'s ``linear``) is exact
    everywhere: the sum of two such values is exact in float64, so it is where that equals ``y``. Then neither side
    rounds (NNCF's zero point subtracted from integer weights converted to f16 or bf16: integers below 2^11, 2^8),
    and the rule gives EXACT. Checked a block at a time, as the rule bounds (no float64 copy of a 16M-element
    weight)."""
    units = {unit(np.asarray(v).dtype) for v in (*args, y)}
    if units not in ({unit(np.dtype(np.float16))}, {BF16_UNIT}):
        return False
    blocks = _blocks(np.shape(y), args) or [None]
    for block in blocks:
        part = [_f64(v if block is None else _block(v, block, y.ndim)) for v in args]
        if not np.array_equal(kernel(attrs, part)[0], y if block is None else y[block]):
            return False
    return True


#: Elements an element-wise rule bounds at a time: its float64 temporaries (a dozen of the output's size) then stay
#: in cache and are reused rather than faulted in afresh; the 16M-element decompression of an NNCF int8 embedding took
#: 1.5 GB and 2.2 s (12 s on its first, page-faulting, call) whole.
BLOCK_ELEMENTS = 1 << 16


def _blocks(shape: tuple[int, ...], arrays: Sequence[np.ndarray]) -> list[tuple[slice, ...]] | None:
    """Blocks of ``shape`` along its first axis longer than 1, of about ``BLOCK_ELEMENTS``; None for an output that
    fits in one, or where an array (an input or a bound) is not of the output's rank with dims equal or 1 nor of
    one element (so that slicing each along that axis is what broadcasting, in any of OpenVINO's modes, pairs)."""
    if math.prod(shape) <= BLOCK_ELEMENTS:
        return None
    for v in arrays:
        v_shape = np.shape(v)
        if math.prod(v_shape) != 1 and (len(v_shape) != len(shape) or
                                         any(d not in (1, n) for d, n in zip(v_shape, shape, strict=True))):
            return None
    axis = next(i for i, n in enumerate(shape) if n > 1)
    step = max(1, BLOCK_ELEMENTS // math.prod(shape[axis + 1:]))
    if shape[axis] <= step:
        return None
    lead = (slice(None),) * axis
    return [(*lead, slice(start, start + step)) for start in range(0, shape[axis], step)]


def _block(v: np.ndarray, block: tuple[slice, ...], rank: int) -> np.ndarray:
    """``v``'s part in ``block`` of the output (all of it along an axis of 1, or a value of one element)."""
    v = np.asarray(v)
    axis = len(block) - 1
    if v.ndim != rank or v.shape[axis] == 1:
        return v
    return v[block]
