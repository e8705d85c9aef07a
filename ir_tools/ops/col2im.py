"""Col2Im-15 (torch's nn.Fold): attributes, shape rule, reference kernel and rounding rule.

``out[n, c, h, w]`` starts at +0 and adds ``data[n, c*K + k, b]`` for each kernel offset ``k = ih*kw + iw`` in turn
whose block ``b = (bh, bw)`` lands there, ``h = bh*s0 - pb0 + ih*d0`` (``w`` alike); unbatched data ([C*K, L]) gives
[C, H, W]. Checked against the installed openvino by tests/ops/test_search_scatter_conformance.py. Measured on
openvino 2026.4.1:

- opset15..16. Attributes strides, dilations, pads_begin and pads_end, each a list of two; omitted, OpenVINO's reader
  takes an empty list, and its shape inference then reads past its end: a segmentation fault reading a model whose
  data's last dim is static (strides of one value: "strides must be non-zero", its second read as 0), which ``check``
  refuses (``crashes``). output_size and kernel_size must be both i32 or both i64 (a dynamic type refused), 1-D of two
  elements where their rank is known (a dynamic dim refused); data of rank 2 or 3 (or dynamic). The output, of the
  data's element type: [N, C, H, W] batched, [C, H, W] not, N the data's first dim, C its channel dim over the
  kernel's product (which must divide it) where the kernel is known and that dim static, else dynamic; H and W
  output_size's where known (-1 dynamic), else dynamic; and where the data's last dim, output_size and the kernel are
  all known, the blocks ``prod((size + pb + pe - (d*(k - 1) + 1)) // s + 1)`` must be that dim. A kernel value of 0 or
  less is refused where the channel dim is static. A data rank that is dynamic gives a dynamic rank. The blocks are
  counted in 64-bit unsigned arithmetic (the attributes are size_t): a window wider than the padded output makes a
  count no data holds. The rule declines (OpenVINO's inference adopted) an output_size below -1.
- CPU runs the reference: each output element's terms in the order above, one at a time, from +0 (so -0 data gives
  +0). f32 in f32 (1e8 + 1 - 1e8 is 0); f16 and f64 in f32, rounded once at the end (f16 2048 + 1 + 1 is 2050, 65504 +
  65504 - 65504 is 65504, not inf; f64 saturated into f32's range going in and coming out, an infinity or a sum past
  it giving +-3.4028235e38); bf16 in bf16, each sum rounded by ``ov::bfloat16``'s rule (``base.packed.ov_bfloat16``:
  256 + 1.5 is 256, 258 + 1 is 260; on 80 seeded cases, the data made bf16 by a Convert, every output so); integers in
  i32, wrapping (i8 100 + 100 + 100 is 44, i16 32767 + 1 is -32768, u32 2^32 - 1 + 2 is 1, i64 2^31 - 1 + 1 is -2^31),
  booleans as u8 read back as nonzero. The kernel computes exactly so, bit for bit, but for bf16, which the executor
  hands it as f32 (it sums those in f32, and the executor rounds the result once: the rounding rule bounds the
  difference); i64, u32 and u64 values beyond i32's range (CPU wraps a fed one, saturates a Const) it refuses
  (UnsupportedError), as SearchSorted's kernel does. On 320 seeded cases of nine element types: bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Dim
from ..base.errors import OpValidationError, UnsupportedError
from ..base.packed import is_bf16
from . import attrs as A
from .embedding import cpu_values
from .rounding import ACCUMULATION_UNIT, BF16_UNIT, EXACT, accumulation, is_exact
from .spec import OpSpec, TensorType, never

_I32 = np.iinfo(np.int32)
_U64 = 2**64


@dataclass(frozen=True, slots=True)
class Col2ImAttrs:
    """Defaults are what OpenVINO's IR reader takes for an omitted attribute: an empty list (``_crashes``)."""

    strides: tuple[int, ...] = A.attr("strides", A.UINT_LIST, ())
    dilations: tuple[int, ...] = A.attr("dilations", A.UINT_LIST, ())
    pads_begin: tuple[int, ...] = A.attr("pads_begin", A.UINT_LIST, ())
    pads_end: tuple[int, ...] = A.attr("pads_end", A.UINT_LIST, ())


def _short(a: Col2ImAttrs) -> str | None:
    """The first attribute holding fewer than two values, which OpenVINO reads past the end of."""
    return next((name for name in ("strides", "dilations", "pads_begin", "pads_end") if len(getattr(a, name)) < 2),
                None)


def _crashes(a: Col2ImAttrs, read: frozenset[int]) -> str | None:
    name = _short(a)
    if name is None:
        return None
    return (f"{name} holds {len(getattr(a, name))} values: OpenVINO's shape inference reads two, past the end of the "
            "list (a segmentation fault reading the model where the data's last dim is static)")


def _blocks(a: Col2ImAttrs, size: Sequence[int], kernel: Sequence[int]) -> tuple[int, int]:
    """The blocks along the height and the width."""
    return tuple((size[d] + a.pads_begin[d] + a.pads_end[d] - (a.dilations[d] * (kernel[d] - 1) + 1)) // a.strides[d]
                 + 1 for d in (0, 1))  # type: ignore[return-value]


def _unsigned_blocks(a: Col2ImAttrs, size: Sequence[int], kernel: Sequence[int]) -> int:
    """The blocks as OpenVINO's shape inference counts them: ``_blocks`` in 64-bit unsigned arithmetic (its attributes
    are size_t), the product read back as int64, so that a window wider than the padded output makes a count no
    data holds."""
    total = 1
    for d in (0, 1):
        numerator = (size[d] + a.pads_begin[d] + a.pads_end[d] - (a.dilations[d] * (kernel[d] - 1) + 1)) % _U64
        total = total * (numerator // a.strides[d] + 1) % _U64
    return total - _U64 if total >= _U64 // 2 else total


def _pair(t: TensorType, what: str) -> None:
    if t.element not in ("i32", "i64"):
        raise OpValidationError(f"{what} of element type {t.element or 'dynamic'}: it must be i32 or i64")
    if t.shape is not None and (len(t.shape) != 1 or t.shape[0] != Dim(2, 2)):
        raise OpValidationError(f"{what} must be 1-D of 2 elements, got {[str(d) for d in t.shape]}")


def _infer(a: Col2ImAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """col2im_shape_inference.hpp and Col2Im::validate_and_infer_types (the module doc)."""
    data, size_t, kernel_t = inputs
    _pair(size_t, "output_size")
    _pair(kernel_t, "kernel_size")
    if size_t.element != kernel_t.element:
        raise OpValidationError(f"output_size of {size_t.element} and kernel_size of {kernel_t.element}: they must "
                                "have one element type")
    if data.shape is not None and len(data.shape) not in (2, 3):
        raise OpValidationError(f"data must be 2-D (unbatched) or 3-D (batched), got rank {len(data.shape)}")
    if data.shape is None:
        return [TensorType(data.element, None)]
    batched = len(data.shape) == 3
    channels, length = data.shape[-2], data.shape[-1]
    size = None if values[1] is None else [int(v) for v in np.asarray(values[1]).reshape(-1)]
    kernel = None if values[2] is None else [int(v) for v in np.asarray(values[2]).reshape(-1)]
    c = DYNAMIC
    if kernel is not None and channels.is_static:
        if min(kernel) <= 0:
            raise OpValidationError(f"kernel_size {kernel}: its values must be positive")
        product = kernel[0] * kernel[1]
        if channels.lo % product:
            raise OpValidationError(f"data dim {int(batched)} ({channels.lo}) is not divisible by the kernel's product "
                                    f"{product}")
        c = Dim.of(channels.lo // product)
    if size is not None and min(size) < -1:
        return None  # (OpenVINO reads such a shape otherwise: not modelled)
    spatial = (DYNAMIC, DYNAMIC) if size is None else tuple(DYNAMIC if n == -1 else Dim.of(n) for n in size)
    if size is not None and min(size) >= 0 and kernel is not None and length.is_static:
        name = _short(a)
        if name is not None:  # (``_crashes``)
            raise OpValidationError(f"{name} must hold two values, got {list(getattr(a, name))}")
        if a.strides[0] == 0 or a.strides[1] == 0:
            raise OpValidationError("strides must be non-zero")
        blocks = _unsigned_blocks(a, size, kernel)
        if blocks != length.lo:
            raise OpValidationError(f"the output_size, kernel and attributes make {blocks} blocks, the data holds "
                                    f"{length.lo}")
    return [TensorType(data.element, (*data.shape[:1 if batched else 0], c, *spatial))]


def _geometry(a: Col2ImAttrs, args: Sequence[np.ndarray]) -> tuple[list[int], list[int], tuple[int, int]]:
    """output_size, kernel_size and the blocks along each axis, checked against the data as OpenVINO checks them."""
    x, size_v, kernel_v = (np.asarray(v) for v in args)
    for v, what in ((size_v, "output_size"), (kernel_v, "kernel_size")):
        if v.dtype not in (np.int32, np.int64) or v.shape != (2,):
            raise OpValidationError(f"{what} must be i32 or i64 of shape [2], got {v.dtype}{list(v.shape)}")
    if x.ndim not in (2, 3):
        raise OpValidationError(f"data must be 2-D or 3-D, got rank {x.ndim}")
    name = _short(a)
    if name is not None or 0 in a.strides:
        raise OpValidationError(f"strides, dilations and pads must hold two values, strides non-zero: {a}")
    size, kernel = [int(v) for v in size_v], [int(v) for v in kernel_v]
    blocks = _blocks(a, size, kernel)
    product = kernel[0] * kernel[1]
    if min(size) < 0 or min(kernel) < 1 or x.shape[-2] % product or blocks[0] * blocks[1] != x.shape[-1]:
        raise OpValidationError(f"data {list(x.shape)} does not fold into {size} by kernel {kernel} ({a})")
    return size, kernel, blocks


def _landing(n: int, offset: int, dilation: int, stride: int, pad: int, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """Along one axis of ``n`` outputs, for one kernel offset: whether a block lands at each output, and which."""
    shifted = np.arange(n) + pad - offset * dilation
    block = shifted // stride
    lands = (shifted >= 0) & (shifted % stride == 0) & (block < blocks)
    return lands, np.where(lands, block, 0)


def _fold(a: Col2ImAttrs, x: np.ndarray, size: list[int], kernel: list[int], blocks: tuple[int, int],
          add) -> np.ndarray:
    """The folded sums of ``x`` ([N, C*K, L] or [C*K, L]) from +0, one kernel offset after another (``add``: one sum
    of the accumulator and an offset's terms, zeros where none lands, which add nothing to a sum from +0)."""
    batch = x.reshape(-1, x.shape[-2] // (kernel[0] * kernel[1]), *kernel, *blocks)
    out = np.zeros((batch.shape[0], batch.shape[1], *size), x.dtype)
    for ih in range(kernel[0]):
        rows, at_rows = _landing(size[0], ih, a.dilations[0], a.strides[0], a.pads_begin[0], blocks[0])
        for iw in range(kernel[1]):
            cols, at_cols = _landing(size[1], iw, a.dilations[1], a.strides[1], a.pads_begin[1], blocks[1])
            terms = batch[:, :, ih, iw][:, :, at_rows[:, None], at_cols[None, :]]
            out = add(out, np.where(rows[:, None] & cols[None, :], terms, x.dtype.type(0)))
    return out.reshape(*x.shape[:-2], x.shape[-2] // (kernel[0] * kernel[1]), *size)


def _run(a: Col2ImAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The sums as OpenVINO CPU computes them (the module doc): in f32 (f16 rounded at the end; f64 saturated into
    f32's range, going in and coming out), integers wrapping in i32 (booleans as nonzero)."""
    x = np.asarray(args[0])
    size, kernel, blocks = _geometry(a, args)
    if x.dtype.kind == "f":  # (bf16 comes as f32: the executor rounds the sums once, ``_rounding`` bounds the rest)
        held = cpu_values(x, np.dtype(np.float32)).astype(np.float32)
        return [cpu_values(_fold(a, held, size, kernel, blocks, np.add).astype(x.dtype), x.dtype)]
    if x.dtype.kind in "iu" and x.dtype.itemsize >= 4 and x.size and x.dtype != np.int32 and (
            int(x.max()) > _I32.max or int(x.min()) < _I32.min):
        raise UnsupportedError(f"Col2Im-15 of {x.dtype} values beyond i32's range: OpenVINO CPU sums them in i32, "
                               "wrapped where they are fed, saturated where they are a Const (ops/col2im.py)")
    if x.dtype.kind not in "iub":
        raise UnsupportedError(f"Col2Im-15 of element type {x.dtype}")
    with np.errstate(over="ignore"):
        folded = _fold(a, x.astype(np.int32), size, kernel, blocks, np.add)
    return [folded != 0 if x.dtype.kind == "b" else folded.astype(x.dtype)]


def _terms(a: Col2ImAttrs, args: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> np.ndarray:
    """Per output element, the roundings between the two sides' sums of its n terms: 2n + 1 (each side rounds its n
    sums of its own values, in the same order, and the kernel rounds its values into f32 first, where they come as
    float64), in f32 unit roundoffs (bf16 sums, each rounded into bf16, count 2^16 times as many)."""
    size, kernel, blocks = _geometry(a, args)
    ones = np.ones(np.shape(args[0]), np.float32)
    counts = _fold(a, ones, size, kernel, blocks, np.add).astype(np.int64)
    return (2 * counts + 1) * (round(BF16_UNIT / ACCUMULATION_UNIT) if is_bf16(np.asarray(outputs[0]).dtype) else 1)


_SUMS = accumulation(_terms, (0,))


def _rounding(kernel, a: Col2ImAttrs, args: Sequence[np.ndarray], bounds: Sequence[np.ndarray],
              outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Exact where every input is and the output is not bf16: the kernel sums what OpenVINO CPU sums in its order and
    precision (bit for bit); else ``accumulation``'s bound of sums of ``_terms``, the input bounds carried through the
    sums (bf16: the CPU rounds each sum into bf16, the executor the last)."""
    if all(is_exact(b) for b in bounds) and not is_bf16(np.asarray(outputs[0]).dtype):
        return [EXACT]
    return _SUMS(kernel, a, args, bounds, outputs)


COL2IM_15 = OpSpec("Col2Im", "Col2Im-15", Col2ImAttrs, (3, 3), 1, _infer, _run, (1, 2), rounding=_rounding,
                   crashes=_crashes, evaluates=never)
