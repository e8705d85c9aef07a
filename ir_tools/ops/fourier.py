"""DFT-7, IDFT-7, RDFT-9, IRDFT-9 and STFT-15: shape rules, reference kernels and rounding rules.

Checked against the installed openvino (shape inference and CPU kernels) by tests/ops/test_fourier_conformance.py.
Measured on OpenVINO 2026.4.1 and read in its sources (``fft_base``, ``rdft``, ``irdft`` and ``stft`` shape inference;
the CPU plugin's nodes/dft.cpp, rdft.cpp and stft.cpp):

- Data [..., 2] is a complex tensor, its trailing dim (re, im); RDFT's data is real and its output gains that dim,
  IRDFT's output loses it. Axes and signal_size are 1-D; a negative axis counts from the end of the complex shape
  (r - 1 for DFT, IDFT and IRDFT, r for RDFT); a signal size of -1 keeps the axis' length, another trims or pads it
  with zeros at the end. RDFT's last axis (the last one named) comes out n // 2 + 1 long; IRDFT's is 2 (n - 1) long
  unless a signal size says otherwise, and it reads the first n // 2 + 1 of its half spectrum. The inverses divide by
  the transform's size.
- STFT-15: frames of frame_size every frame_step along the signal ([batch, length] or [length]; the output
  [batch, frames, frame_size // 2 + 1, 2], bins before frames for transpose_frames), each times the window (zero-padded
  to the frame, centred: (frame_size - w) // 2 zeros before it), then RDFT-9 of it. Signal and window must be of one
  element type. CPU multiplies in f32 and runs RDFT-9's executor on each frame.
- CPU computes in f32 (f16 data converted on the way in, the result rounded once on the way out). Along an axis of
  power-of-two length (DFT-7: 1 too; RDFT-9: above 1) it runs a radix-2 FFT, log2(n) butterfly stages; along another
  a naive DFT, sums of n complex products. DFT-7 makes its twiddles in f32 from an f32 phase (2 pi n k / n for the
  naive DFT, pi b / B for the FFT); RDFT-9 and IRDFT-9 from a double phase, rounded once to f32.
- CPU refuses an RDFT or IRDFT signal size of -1 (it does not compile) and an RDFT one above the input's length
  ("Signal size greater than input size is not supported yet", when it runs): ``cpu_refuses``. CPU's IRDFT is wrong
  (values read beyond the data: huge, NaN, or merely other numbers) where it pads an axis other than the last, where
  its last signal size is 1, and over three axes or more where a signal size trims the input; not modelled (compare
  fails such a layer, rightly). OpenVINO's shape inference crashes on RDFT and IRDFT with no axes: the rule refuses.

Rounding rule (``_fourier_bound``), derived for that CPU algorithm in the style of ``rounding.accumulation``. Let S be
the sum over the transformed block of the input's |re| + |im| (an upper bound on every |value| the algorithm forms,
scaled by 1/n per inverse axis; IRDFT's half spectrum counted twice, for its mirrored half). A twiddle's components
are off by e_t: 4 u theta + 2 u for DFT-7 (an f32 phase theta with up to four roundings, then an f32 cos or sin of
it; theta reaches 2 pi k (n - 1) / n in the naive DFT, pi in the FFT), 2 u for RDFT and IRDFT (a double value rounded
to f32). A naive axis of length n adds, per output, sqrt(2) (gamma(2n) (1 + e) + e_t) S (2n real products summed
per component, the modulus of a component pair at most sqrt(2) of its larger one), plus 2 u S for the inverse's
division; an FFT axis adds log2(n) (e + sqrt(2) gamma(3) (1 + e)) S, e = sqrt(2) e_t (each butterfly a + w b adds at
most that of its inputs' magnitude, and the magnitudes of a stage's outputs sum to S: Higham's FFT analysis, taken
elementwise). Errors grow by (1 + e) per stage (taken over the whole, a little more than they need), and input bounds
carry through as S of the bounds does. Then one rounding of the output on each side. STFT (``_stft_bound``): u of
each |x w| for the window's f32 product, then RDFT's bound on the frame's S = sum |x w|.

ISTFT-16 (measured on openvino 2026.4.1, tests/ops/test_unique_istft_conformance.py; passes/downgrade/istft.py reads
the CPU's steps the same way):

- Data [batch?, bins, frames, 2] of a real type, a window of its type [w], scalar i32 or i64 frame_size and
  frame_step, an optional length (a scalar or of one element); ``center`` and ``normalized`` false when omitted.
  Shape inference refuses a frame_size or frame_step below 1 and a static window outside [1, frame_size] (where their
  values are known), and gives [batch?, length] (a known length), else [batch?, (frames - 1) step + frame_size]
  in Dimension arithmetic, its last term frame_size % 2 where center (center drops frame_size // 2 samples at each
  end; the 2025 source read adds no last term there, 2026.4 does), else [batch?, ?].
- CPU: each frame's IRDFT (frame_size long, of the first frame_size // 2 + 1 bins), times the window zero-padded to
  the frame and centred as STFT pads it, added ``step`` apart into a row from +0.0 frame after frame; the window's
  squares (f32 products) added alike; each sum, times sqrt(frame_size) where normalized, divided by its squares' sum,
  0 where that is 0; then frame_size // 2 samples skipped where center and ``length`` kept (zeros past the row), in
  f32 (f16 data converted on the way in, the result rounded once on the way out; f64 assumed computed alike, not
  measured). The kernel computes in float64 but the squares' sums, which it adds in f32 as CPU does (so the zeros
  and tiny sums of a window's tails are CPU's). Refused (``UnsupportedError``): a NaN or an infinity among the
  inputs (how it spreads through a frame is CPU's FFT's own: ours and CPU's NaN and infinities differed in 9 of 80
  seeded layers), bins other than frame_size // 2 + 1, a length below 1 (CPU reads or writes past its tensors:
  passes/downgrade/istft.py), data of no frame (not measured).
- Rounding rule (``_istft_bound``): each frame's samples within IRDFT-9's bound (``_axis_error`` on the frame's S,
  twice its half spectrum's sum of |re| + |im| over frame_size) plus their f32 rounding; the windowed sum of up to
  K = ceil(frame_size / step) frames within gamma(K + 1) of the sum of |f w|; sqrt(frame_size)'s and the product's
  roundings (gamma(2)); the quotient by the (exact) squares' sum, rounded once more before an f16 output. Measured on
  openvino 2026.4.1, 900 seeded layers (frame sizes 1 to 128, powers of two and not; steps 1 to past the frame; f32
  and f16; spectra of scales 1e-3 to 1e20 with signed zeros; windows with zero or 1e-30 tails): CPU within 0.115 of
  the bound for f32 (relative error at most 1.6e-7, under 3 u), 0.66 for f16 (its two roundings of the output).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.errors import OpValidationError, UnsupportedError
from . import attrs as A
from .core import NoAttrs
from .intervals import ANY, INF, ONE, Iv, canon, compatible, dadd, dmul, dsub, guarded, iv, to_dim
from .operands import ints
from .rounding import ACCUMULATION_UNIT, any_differs, gamma, is_exact, output_rounding
from .spec import OpSpec, TensorType, never

U = ACCUMULATION_UNIT


@dataclass(frozen=True, slots=True)
class Transform:
    """What distinguishes the four ops: its name, whether it is an inverse, which side is real (``real_in``: RDFT,
    ``real_out``: IRDFT), and whether its twiddles come from an f32 phase (DFT-7, IDFT-7)."""

    name: str
    inverse: bool
    real_in: bool = False
    real_out: bool = False
    f32_phase: bool = False

    @property
    def complex_in(self) -> bool:
        return not self.real_in

    def axes_rank(self, rank: int) -> int:
        """The rank of the shape the axes count in: the complex shape (the data's without its trailing 2), or the
        real data's own."""
        return rank if self.real_in else rank - 1


DFT = Transform("DFT", inverse=False, f32_phase=True)
IDFT = Transform("IDFT", inverse=True, f32_phase=True)
RDFT = Transform("RDFT", inverse=False, real_in=True)
IRDFT = Transform("IRDFT", inverse=True, real_out=True)


def _index_type(t: TensorType, what: str, op: str) -> None:
    if t.element is not None and t.element not in ("i32", "i64"):
        raise OpValidationError(f"{op} {what} must be i32 or i64, got {t.element}")


def _normalized_axes(op: Transform, rank: int, axes: Sequence[int]) -> list[int]:
    """The axes made non-negative (a negative one counts from the end of the complex shape); repeated or out of range
    ones refused."""
    r = op.axes_rank(rank)
    out = []
    for axis in axes:
        if not -r <= axis < r:
            raise OpValidationError(f"{op.name} axis {axis} is out of the range [{-r}, {r - 1}]")
        out.append(axis + r if axis < 0 else axis)
    if len(set(out)) != len(out):
        raise OpValidationError(f"{op.name} axes {list(axes)} must be unique")
    if op.real_out and rank - 1 in out:
        raise OpValidationError(f"{op.name} axes {list(axes)} cannot contain the last axis")
    return out


def _half_length(d: Iv) -> Iv:
    """RDFT's last axis: each bound b above 0 becomes b // 2 + 1 (OpenVINO's ``get_rdft_output_dimension``)."""
    lo, hi = d
    return canon(lo // 2 + 1 if lo > 0 else lo, hi // 2 + 1 if 0 < hi < INF else hi)


def _full_length(d: Iv) -> Iv:
    """IRDFT's last axis by default: 2 (n - 1), as OpenVINO's Dimension arithmetic gives it."""
    return dmul((2, 2), dsub(d, ONE))


def _infer(op: Transform):
    """OpenVINO's shape inference of ``op``: data, axes and an optional signal_size."""

    def rule(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
        data, axes_t = inputs[0], inputs[1]
        signal_t = inputs[2] if len(inputs) > 2 else None
        _index_type(axes_t, "axes", op.name)
        if signal_t is not None:
            _index_type(signal_t, "signal_size", op.name)
        if data.element is not None and data.element not in ("f32", "f16", "bf16", "f64"):
            raise OpValidationError(f"{op.name} data must be of a floating-point type, got {data.element}")
        shape = data.shape
        axes = None if values[1] is None else ints(values[1])
        n_axes = None if axes_t.shape is None or len(axes_t.shape) != 1 or not axes_t.shape[0].is_static \
            else axes_t.shape[0].lo
        if shape is not None:
            rank = len(shape)
            least = 1 if op.real_in else 2
            if rank < least:
                raise OpValidationError(f"{op.name} data must have rank {least} or more, got {rank}")
            if op.complex_in and not compatible(iv(shape[-1]), (2, 2)):
                raise OpValidationError(f"{op.name} data's last dim must be 2 (re, im), got {shape[-1]}")
            if n_axes is not None and op.axes_rank(rank) < n_axes:
                raise OpValidationError(f"{op.name} has {n_axes} axes for a rank-{rank} input")
            if axes is not None:
                axes = _normalized_axes(op, rank, axes)
        for t, what in ((axes_t, "axes"), (signal_t, "signal_size")):
            if t is not None and t.shape is not None and len(t.shape) != 1:
                raise OpValidationError(f"{op.name} {what} must be 1-D, got rank {len(t.shape)}")
        if signal_t is not None and n_axes is not None and signal_t.shape is not None \
                and signal_t.shape[0].is_static and signal_t.shape[0].lo != n_axes:
            raise OpValidationError(f"{op.name} axes and signal_size differ in length: {n_axes} and "
                                    f"{signal_t.shape[0].lo}")
        if shape is None:
            return [TensorType(data.element, None)]
        dims = [iv(d) for d in shape]
        if op.real_in:
            dims.append((2, 2))
        if op.real_out:
            dims.pop()
        complex_rank = op.axes_rank(len(shape))
        if axes is None and not op.real_in and not op.real_out and signal_t is None:
            return [TensorType(data.element, shape)]  # (a DFT of unknown axes and no signal size keeps its shape)
        if axes is None:
            return [TensorType(data.element, tuple(to_dim(d) for d in [ANY] * complex_rank + dims[complex_rank:]))]
        sizes = None if signal_t is None or values[2] is None else ints(values[2])
        if sizes is not None and len(sizes) != len(axes):
            raise OpValidationError(f"{op.name} axes and signal_size differ in length: {len(axes)} and {len(sizes)}")
        ends_real = op.real_in or op.real_out
        if ends_real and not axes:  # (OpenVINO's own inference reads the last of no axes: it crashes)
            raise OpValidationError(f"{op.name} needs at least one axis")
        last = axes[-1] if axes else 0
        if signal_t is not None and sizes is None:
            for axis in (axes if not ends_real else axes[-1:]):
                dims[axis] = ANY
        for axis, size in zip(axes, sizes or (), strict=False):
            if size != -1:
                dims[axis] = canon(size, size)  # (a negative size other than -1: a dim of 0, as OpenVINO's)
        if op.real_in and (signal_t is None or sizes is not None):
            dims[last] = _half_length(dims[last])
        if op.real_out and (signal_t is None or (sizes is not None and sizes[-1] == -1)):
            dims[last] = _full_length(iv(shape[last]))
        return [TensorType(data.element, tuple(to_dim(d) for d in dims))]

    return guarded(rule)


@dataclass(frozen=True, slots=True)
class Plan:
    """One layer's transform on its values: the axes (non-negative) and their transform lengths."""

    axes: list[int]
    lengths: list[int]


def _plan(op: Transform, args: Sequence[np.ndarray]) -> Plan:
    """The axes and transform lengths of ``op`` on these values (a -1 signal size, or none: the axis' length; IRDFT's
    last: 2 (n - 1)); bad ones refused."""
    x = np.asarray(args[0])
    if x.dtype.kind != "f":
        raise UnsupportedError(f"{op.name} of element type {x.dtype}")
    if op.complex_in and (x.ndim < 2 or x.shape[-1] != 2):
        raise OpValidationError(f"{op.name} data of shape {list(x.shape)}: its last dim must be 2 (re, im)")
    if x.ndim < 1:
        raise OpValidationError(f"{op.name} data must have rank 1 or more")
    for i, what in ((1, "axes"), (2, "signal_size")):
        if i < len(args) and (np.asarray(args[i]).dtype not in (np.int32, np.int64) or np.asarray(args[i]).ndim != 1):
            raise OpValidationError(f"{op.name} {what} must be a 1-D i32 or i64 tensor")
    axes = _normalized_axes(op, x.ndim, ints(args[1]))
    sizes = ints(args[2]) if len(args) > 2 else [-1] * len(axes)
    if len(sizes) != len(axes):
        raise OpValidationError(f"{op.name} axes and signal_size differ in length: {len(axes)} and {len(sizes)}")
    lengths = []
    for i, (axis, size) in enumerate(zip(axes, sizes, strict=True)):
        if size == -1:
            size = 2 * (x.shape[axis] - 1) if op.real_out and i == len(axes) - 1 else x.shape[axis]
        if size < 1:
            raise OpValidationError(f"{op.name} transform length {size} along axis {axis}: it must be 1 or more")
        lengths.append(size)
    return Plan(axes, lengths)


def _complex(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return x[..., 0] + 1j * x[..., 1]


def _pairs(z: np.ndarray) -> np.ndarray:
    return np.stack([z.real, z.imag], axis=-1)


def _kernel(op: Transform):
    def run(a: NoAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The transform in float64 (numpy's FFT: trimmed or zero-padded to the lengths, the inverses divided by
        them), rounded once into the data's type."""
        x = np.asarray(args[0])
        plan = _plan(op, args)
        if op.real_in:
            y = _pairs(np.fft.rfftn(x.astype(np.float64), plan.lengths, plan.axes))
        elif op.real_out:
            y = np.fft.irfftn(_complex(x), plan.lengths, plan.axes)
        else:
            transform = np.fft.ifftn if op.inverse else np.fft.fftn
            y = _pairs(transform(_complex(x), plan.lengths, plan.axes))
        return [y.astype(x.dtype)]

    return run


def _uses_fft(op: Transform, n: int) -> bool:
    """Whether CPU runs a radix-2 FFT along an axis of transform length ``n`` (else a naive DFT)."""
    return n & (n - 1) == 0 and (n > 1 or op.f32_phase)


def _twiddle_error(op: Transform, n: int, fft: bool, out_length: int) -> np.ndarray:
    """Per output index k along the axis, the most a twiddle's component may be off (see the module's docstring)."""
    if not op.f32_phase:
        return np.full(out_length, 2 * U)
    if fft:
        return np.full(out_length, 4 * U * math.pi + 2 * U)
    theta = 2 * math.pi * np.arange(out_length, dtype=np.float64) * (n - 1) / n
    return 4 * U * theta + 2 * U


def _block_sum(op: Transform, plan: Plan, v: np.ndarray) -> np.ndarray:
    """S: the sum over the transformed block of |re| + |im| (RDFT: |x|) of ``v``, trimmed to the lengths (IRDFT's
    last axis to the half spectrum it reads, counted twice), scaled by 1/n per inverse axis, broadcastable to the
    output."""
    v = np.abs(np.asarray(v, np.float64))
    if op.complex_in:
        v = v.sum(axis=-1)
    for i, (axis, n) in enumerate(zip(plan.axes, plan.lengths, strict=True)):
        used = n // 2 + 1 if op.real_out and i == len(plan.axes) - 1 else n
        v = np.take(v, np.arange(min(used, v.shape[axis])), axis=axis)
    total = v.sum(axis=tuple(plan.axes), keepdims=True) if plan.axes else v
    if op.real_out and plan.axes:
        total *= 2.0
    if op.inverse:
        total /= math.prod(plan.lengths)
    return total if op.real_out else total[..., np.newaxis]


def _axis_error(op: Transform, n: int, out_length: int) -> tuple[np.ndarray, float]:
    """Along one axis of transform length ``n``: per output index, what its step adds to the error, as a multiple of
    S; and how much it grows the errors made before it."""
    fft = _uses_fft(op, n)
    twiddle = _twiddle_error(op, n, fft, out_length)
    e = math.sqrt(2) * float(twiddle.max())
    if fft:
        stages = int(math.log2(n))
        return np.full(out_length, stages * (e + math.sqrt(2) * gamma(3) * (1 + e))), (1 + e) ** stages
    own = math.sqrt(2) * (gamma(2 * n) * (1 + e) + twiddle) + (2 * U if op.inverse else 0.0)
    return own, 1 + e


def _fourier_bound(op: Transform):
    def rule(kernel, a: NoAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
             outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if any_differs(args, bounds, (1, 2)):
            return [np.full((), np.inf)]
        plan = _plan(op, args)
        y = outputs[0]
        own: np.ndarray | float = 0.0
        growth = 1.0
        for axis, n in zip(plan.axes, plan.lengths, strict=True):
            part, grows = _axis_error(op, n, y.shape[axis])
            own = own + part.reshape([-1 if i == axis else 1 for i in range(y.ndim)])
            growth *= grows
        bound = growth * own * _block_sum(op, plan, args[0])
        if len(bounds) and not is_exact(bounds[0]):
            bound = bound + growth * _block_sum(op, plan, np.broadcast_to(bounds[0], np.shape(args[0])))
        return [np.asarray(bound + output_rounding(y), np.float64)]

    return rule


@dataclass(frozen=True, slots=True)
class StftAttrs:
    transpose_frames: bool = A.attr("transpose_frames", A.BOOL, False)  # (OpenVINO reads it so when omitted)


def _floor_div(d: Iv, step: int) -> Iv:
    """Dimension // step with both bounds floored (OpenVINO's ``dim::floor_div``)."""
    return canon(d[0] // step, INF if d[1] == INF else d[1] // step)


def _stft_infer(a: StftAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """OpenVINO's STFT-15: signal [batch, length] or [length], window [w] with 0 < w <= frame_size, scalar
    frame_size in [1, length] and frame_step above 0; frames (length - frame_size) // frame_step + 1, each giving
    frame_size // 2 + 1 complex values."""
    signal, window, size_t, step_t = inputs
    for t, what, ranks in ((signal, "signal", (1, 2)), (window, "window", (1,)), (size_t, "frame_size", (0,)),
                           (step_t, "frame_step", (0,))):
        if t.shape is not None and len(t.shape) not in ranks:
            raise OpValidationError(f"STFT {what} must have rank {' or '.join(map(str, ranks))}, got {len(t.shape)}")
    for t, what in ((size_t, "frame_size"), (step_t, "frame_step")):
        _index_type(t, what, "STFT")
    if None not in (signal.element, window.element) and signal.element != window.element:
        raise OpValidationError(f"STFT signal of {signal.element} and window of {window.element}: they must match")
    element = signal.element or window.element
    if signal.shape is None:
        return [TensorType(element, None)]
    batch = [iv(d) for d in signal.shape[:-1]]
    if values[2] is None or values[3] is None:
        return [TensorType(element, tuple(to_dim(d) for d in [*batch, ANY, ANY, (2, 2)]))]
    size, step = ints(values[2])[0], ints(values[3])[0]
    length = iv(signal.shape[-1])
    if not 0 < size <= length[1]:
        raise OpValidationError(f"STFT frame_size {size} is not within [1, {signal.shape[-1]}]")
    if step <= 0:
        raise OpValidationError(f"STFT frame_step {step} must be above 0")
    if window.shape is not None and window.shape[0].is_static and not 0 < window.shape[0].lo <= size:
        raise OpValidationError(f"STFT window of {window.shape[0].lo} is not within [1, {size}] (the frame size)")
    frames = _floor_div(dsub(length, (size, size)), step)
    frames = (frames[0] + 1, INF if frames[1] == INF else frames[1] + 1)
    bins = (size // 2 + 1, size // 2 + 1)
    dims = [*batch, bins, frames, (2, 2)] if a.transpose_frames else [*batch, frames, bins, (2, 2)]
    return [TensorType(element, tuple(to_dim(d) for d in dims))]


def _stft_frames(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The signal's frames [..., frames, frame_size] and the window, zero-padded to the frame size and centred, as
    CPU lays it out, both float64."""
    x, window = (np.asarray(v) for v in args[:2])
    size, step = ints(args[2])[0], ints(args[3])[0]
    if x.ndim not in (1, 2) or window.ndim != 1 or not 0 < window.shape[0] <= size <= x.shape[-1] or step <= 0:
        raise OpValidationError(f"STFT of signal {list(x.shape)}, window {list(window.shape)}, frame_size {size} and "
                                f"frame_step {step}")
    frames = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), size, axis=-1)[..., ::step, :]
    padded = np.zeros(size)
    start = (size - window.shape[0]) // 2
    padded[start:start + window.shape[0]] = window
    return frames, padded


def _stft_layout(a: StftAttrs, y: np.ndarray) -> np.ndarray:
    """[..., frames, bins, 2] as the op lays it out: frames and bins swapped for transpose_frames."""
    return np.swapaxes(y, -3, -2) if a.transpose_frames else y


def _stft(a: StftAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each frame times the window, its real DFT, in float64; rounded once into the signal's type."""
    frames, window = _stft_frames(args)
    y = _pairs(np.fft.rfft(frames * window, axis=-1))
    return [np.ascontiguousarray(_stft_layout(a, y)).astype(np.asarray(args[0]).dtype)]


def _stft_bound(kernel, a: StftAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's f32 product of each frame with the window (u of each |product|), then RDFT-9's bound along the frame
    (``_axis_error``) on S, the frame's sum of |x w| (with the input bounds: of |x| b_w + b_x |w| + b_x b_w)."""
    if any_differs(args, bounds, (2, 3)):
        return [np.full((), np.inf)]
    frames, window = _stft_frames(args)
    size = frames.shape[-1]
    part, growth = _axis_error(RDFT, size, size // 2 + 1)
    s = np.abs(frames) @ np.abs(window)
    bound = growth * (float(part.max()) + U) * s
    b_x, b_w = (bounds[i] if i < len(bounds) else np.zeros(()) for i in (0, 1))
    if not (is_exact(b_x) and is_exact(b_w)):
        bx = _stft_frames([np.broadcast_to(b_x, np.shape(args[0])), *args[1:]])[0]
        bw = _stft_frames([args[0], np.broadcast_to(b_w, np.shape(args[1])), *args[2:]])[1]
        bound = bound + growth * ((np.abs(frames) @ bw) + bx @ (np.abs(window) + bw))
    bound = _stft_layout(a, np.broadcast_to(bound[..., np.newaxis, np.newaxis], (*s.shape, size // 2 + 1, 2)))
    return [np.asarray(bound + output_rounding(outputs[0]), np.float64)]


def _cpu_refuses(op: Transform):
    """Const signal sizes OpenVINO's CPU plugin refuses for RDFT and IRDFT (measured on 2026.4): a -1 it does not
    compile ("cannot create std::vector larger than max_size()"); an RDFT one above the input's length it refuses
    when it runs ("Signal size greater than input size is not supported yet")."""

    def refuses(a: NoAttrs, inputs: Sequence[TensorType], values) -> str | None:
        if len(inputs) < 3 or values[2] is None:
            return None
        sizes = ints(values[2])
        if -1 in sizes:
            return f"a signal size of -1 ({sizes}): OpenVINO CPU cannot compile {op.name} with it"
        shape = inputs[0].shape
        if not op.real_in or values[1] is None or shape is None:
            return None
        try:
            axes = _normalized_axes(op, len(shape), ints(values[1]))
        except OpValidationError:
            return None
        for axis, size in zip(axes, sizes, strict=False):
            if shape[axis].hi is not None and size > shape[axis].hi:
                return (f"signal size {size} above the input's length {shape[axis].hi} along axis {axis}: OpenVINO "
                        f"CPU refuses it (\"Signal size greater than input size is not supported yet\")")
        return None

    return refuses


def _spec(op: Transform, version: int, **extra) -> OpSpec:
    return OpSpec(op.name, f"{op.name}-{version}", NoAttrs, (2, 3), 1, _infer(op), _kernel(op), value_inputs=(1, 2),
                  rounding=_fourier_bound(op), **extra, evaluates=never)


DFT_7 = _spec(DFT, 7)
IDFT_7 = _spec(IDFT, 7)
RDFT_9 = _spec(RDFT, 9, cpu_refuses=_cpu_refuses(RDFT))
IRDFT_9 = _spec(IRDFT, 9, cpu_refuses=_cpu_refuses(IRDFT))
STFT_15 = OpSpec("STFT", "STFT-15", StftAttrs, (4, 4), 1, guarded(_stft_infer), _stft, value_inputs=(2, 3),
                 rounding=_stft_bound, evaluates=never)


@dataclass(frozen=True, slots=True)
class IstftAttrs:
    center: bool = A.attr("center", A.BOOL, False)
    normalized: bool = A.attr("normalized", A.BOOL, False)


_REAL = ("f32", "f16", "bf16", "f64")


def _istft_infer(a: IstftAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """OpenVINO's ISTFT-16: data [batch?, bins, frames, 2] of a real type, a window of its type [w] with 0 < w <=
    frame_size, scalar frame_size and frame_step above 0, an optional length (a scalar or of one element); the output
    [batch?, length], else [batch?, (frames - 1) step + frame_size] in OpenVINO's Dimension arithmetic (frame_size % 2
    for its last term where center), else [batch?, ?]."""
    data, window, size_t, step_t = inputs[:4]
    length_t = inputs[4] if len(inputs) > 4 else None
    if data.element is not None and data.element not in _REAL:
        raise OpValidationError(f"ISTFT data must be of a floating-point type, got {data.element}")
    if window.element is not None and (window.element not in _REAL or data.element not in (None, window.element)):
        raise OpValidationError(f"ISTFT window of {window.element}: it must be of the data's floating-point type")
    for t, what in ((size_t, "frame_size"), (step_t, "frame_step"), (length_t, "length")):
        if t is not None:
            _index_type(t, what, "ISTFT")
    for t, what, ranks in ((data, "data", (3, 4)), (window, "window", (1,)), (size_t, "frame_size", (0,)),
                           (step_t, "frame_step", (0,))):
        if t.shape is not None and len(t.shape) not in ranks:
            raise OpValidationError(f"ISTFT {what} must have rank {' or '.join(map(str, ranks))}, got {len(t.shape)}")
    size = None if values[2] is None else ints(values[2])[0]
    step = None if values[3] is None else ints(values[3])[0]
    if size is not None:
        if size <= 0:
            raise OpValidationError(f"ISTFT frame_size {size} must be above 0")
        if window.shape is not None and window.shape[0].is_static and not 0 < window.shape[0].lo <= size:
            raise OpValidationError(f"ISTFT window of {window.shape[0].lo} is not within [1, {size}] (the frame size)")
    if step is not None and step <= 0:
        raise OpValidationError(f"ISTFT frame_step {step} must be above 0")
    element = data.element or window.element
    if data.shape is None:
        return [TensorType(element, None)]
    if length_t is not None:
        if length_t.shape is not None and (len(length_t.shape) > 1 or
                                           (length_t.shape and not compatible(iv(length_t.shape[0]), ONE))):
            raise OpValidationError("ISTFT length must be a scalar or of one element")
        wanted = None if values[4] is None else ints(values[4])[0]
        if wanted is not None and wanted < 0:
            return None  # (not measured: OpenVINO's dim of a negative value)
        length = ANY if wanted is None else (wanted, wanted)
    elif size is not None and step is not None:
        kept = size % 2 if a.center else size  # (center drops frame_size // 2 samples at each end)
        length = dadd(dmul(dsub(iv(data.shape[-2]), ONE), (step, step)), (kept, kept))
    else:
        length = ANY
    return [TensorType(element, tuple(to_dim(d) for d in [*(iv(d) for d in data.shape[:-3]), length]))]


def _istft_parts(args: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int | None]:
    """ISTFT's frames [..., frames, frame_size] (each its IRDFT, float64), the window zero-padded to the frame and
    centred (float64), each sample's sum of the window's squares as CPU adds them (f32, frame after frame from +0.0),
    frame_step and the length (None: none given); what CPU cannot run refused."""
    x, window = np.asarray(args[0]), np.asarray(args[1])
    if x.dtype not in (np.float32, np.float16, np.float64):
        raise UnsupportedError(f"ISTFT-16 of element type {x.dtype}: f32, f16 and f64 are modelled (ops/fourier.py)")
    size, step = ints(args[2])[0], ints(args[3])[0]
    length = ints(args[4])[0] if len(args) > 4 else None
    if x.ndim not in (3, 4) or x.shape[-1] != 2 or window.ndim != 1 or not 0 < window.shape[0] <= size or step <= 0:
        raise OpValidationError(f"ISTFT of data {list(x.shape)}, window {list(window.shape)}, frame_size {size} and "
                                f"frame_step {step}")
    if not (np.isfinite(x).all() and np.isfinite(window).all()):
        raise UnsupportedError("ISTFT-16 of a NaN or an infinity: how it spreads through the frame is OpenVINO CPU's "
                               "FFT's own (not modelled)")
    if x.shape[-3] != size // 2 + 1 or length is not None and length < 1 or x.shape[-2] == 0:
        raise UnsupportedError(f"ISTFT-16 of data {list(x.shape)}, frame_size {size} and length {length}: OpenVINO CPU "
                               "reads or writes past its tensors there (not modelled)")
    frames = np.swapaxes(np.fft.irfft(_complex(x), size, axis=-2), -1, -2)
    padded = np.zeros(size)
    start = (size - window.shape[0]) // 2
    padded[start:start + window.shape[0]] = window.astype(np.float64)
    square = padded.astype(np.float32) * padded.astype(np.float32)
    squares = _overlap_add(np.broadcast_to(square, frames.shape[-2:]), step, np.float32)
    return frames, padded, squares.astype(np.float64), step, length


def _overlap_add(v: np.ndarray, step: int, dtype: type = np.float64) -> np.ndarray:
    """Frames ``v`` [..., frames, frame_size] added ``step`` apart into rows [..., (frames - 1) step + frame_size] of
    ``dtype``, frame after frame from +0.0 (CPU's order)."""
    count, size = v.shape[-2:]
    out = np.zeros((*v.shape[:-2], (count - 1) * step + size), dtype)
    for t in range(count):
        out[..., t * step:t * step + size] += v[..., t, :].astype(dtype)
    return out


def _istft_trim(a: IstftAttrs, row: np.ndarray, size: int, length: int | None) -> np.ndarray:
    """The samples ISTFT keeps of ``row``: from ``frame_size // 2`` on where center, ``length`` of them (zeros past
    the row), else all but the last ``frame_size // 2`` where center."""
    margin = size // 2 if a.center else 0
    total = length if length is not None else row.shape[-1] - 2 * margin
    out = np.zeros((*row.shape[:-1], total))
    kept = max(0, min(total, row.shape[-1] - margin))
    out[..., :kept] = row[..., margin:margin + kept]
    return out


def _istft(a: IstftAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Each frame's IRDFT times the padded window, overlap-added (float64), times sqrt(frame_size) where normalized,
    divided by the window's summed squares (0 where they are: CPU's f32 sums, computed as it does), trimmed; rounded
    once into the data's type."""
    frames, window, squares, step, length = _istft_parts(args)
    size = window.shape[0]
    row = _overlap_add(frames * window, step) * (math.sqrt(size) if a.normalized else 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        row = np.where(squares != 0, row / np.where(squares != 0, squares, 1.0), 0.0)
    with np.errstate(over="ignore"):  # (an f16 quotient past 65504: inf, as CPU gives it)
        return [_istft_trim(a, row, size, length).astype(np.asarray(args[0]).dtype)]


def _istft_bound(kernel, a: IstftAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
                 outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """CPU's error, per sample: each frame's IRDFT-9 within its bound B (``_axis_error`` on the frame's S, twice the
    half spectrum's sum of |re| + |im| over frame_size, and the f32 rounding of its samples); the products with the
    window and their sum in frame order, of up to K = ceil(frame_size / step) terms, within gamma(K + 1) of the sum of
    |f w| (B's share carried: (1 + gamma(K + 1)) |w| B); times sqrt(frame_size) (rounded to f32, the product rounded:
    gamma(2)); the window's squares exact (the kernel sums them as CPU does), so the quotient's error is the sum's over
    them, plus its f32 rounding before an f16 output's. Data bounds carry through the IRDFT as S of the bounds does;
    a window, frame_size, frame_step or length that may differ: no bound."""
    if any_differs(args, bounds, (1, 2, 3, 4)):
        return [np.full((), np.inf)]
    frames, window, squares, step, length = _istft_parts(args)
    size = window.shape[0]
    x = np.asarray(args[0])
    part, growth = _axis_error(IRDFT, size, size)

    def spread(v: np.ndarray) -> np.ndarray:
        """S per frame [..., frames, 1]: twice the half spectrum's sum of |re| + |im|, over frame_size."""
        return (2.0 / size) * np.abs(np.asarray(v, np.float64)).sum(axis=(-3, -1))[..., np.newaxis]

    b = growth * part * spread(x) + U * np.abs(frames)
    if len(bounds) and not is_exact(bounds[0]):
        b = b + growth * spread(np.broadcast_to(bounds[0], x.shape))
    g = gamma(-(-size // step) + 1)
    weight = np.abs(window)
    err = _overlap_add((1 + g) * weight * b + g * weight * (np.abs(frames) + b), step)
    if a.normalized:
        err = math.sqrt(size) * ((1 + U) ** 2 * err + gamma(2) * _overlap_add(np.abs(frames) * weight, step))
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(squares != 0, err / np.where(squares != 0, squares, 1.0), 0.0)
        if x.dtype != np.float32:
            row = _overlap_add(np.abs(frames) * weight, step) * (math.sqrt(size) if a.normalized else 1.0)
            err = err + np.where(squares != 0, U * (row / np.where(squares != 0, squares, 1.0) + err), 0.0)
    return [np.asarray(_istft_trim(a, err, size, length) + output_rounding(outputs[0]), np.float64)]


ISTFT_16 = OpSpec("ISTFT", "ISTFT-16", IstftAttrs, (4, 5), 1, guarded(_istft_infer), _istft, value_inputs=(2, 3, 4),
                  rounding=_istft_bound, evaluates=never)
