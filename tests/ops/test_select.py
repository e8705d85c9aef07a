"""``arithmetic.select`` and the ReLU kernel move bits without a branch per element: they must give what
``np.where`` gives, bit for bit (NaN payloads, -0, infinities and subnormals included), on seeded cases of every
element type and broadcast; the kernels built on them (ReLU, Clamp, Maximum, Minimum, Select) are held to OpenVINO by
tests/ops/test_elementwise_conformance.py."""

from __future__ import annotations

import numpy as np
import pytest

from ir_tools.ops.arithmetic import RELU_1, select
from ir_tools.ops.core import NoAttrs

DTYPES = (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.bool_)
SHAPES = ((), (1,), (7,), (3, 1), (1, 5), (2, 3, 4))


def _draw(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """Random bits of ``dtype``: every NaN payload, -0, infinities and subnormals occur among floats."""
    if dtype is np.bool_:
        return rng.random(shape) < 0.5
    size = np.dtype(dtype).itemsize
    raw = rng.integers(0, 256, (*shape, size), dtype=np.uint8)
    values = raw.view(dtype).reshape(shape)
    if np.dtype(dtype).kind == "f":  # and plenty of ordinary values and zeros
        plain = np.where(rng.random(shape) < 0.1, -0.0, rng.standard_normal(shape) * 3).astype(dtype)
        values = np.where(rng.random(shape) < 0.5, values, plain)
    return np.asarray(values)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_is_where(dtype: type) -> None:
    rng = np.random.default_rng(list(DTYPES).index(dtype))
    for case in range(200):
        shapes = [SHAPES[i] for i in rng.integers(0, len(SHAPES), 3)]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            continue
        cond = _draw(rng, shapes[0], np.bool_)
        then, other = _draw(rng, shapes[1], dtype), _draw(rng, shapes[2], dtype)
        want, got = np.where(cond, then, other), select(cond, then, other)
        assert got.dtype == want.dtype and got.shape == want.shape, case
        assert np.array_equal(_bits(got), _bits(want)), case


def test_select_of_two_types_is_where() -> None:
    cond = np.array([True, False, True])
    then, other = np.array([1.5, 2.5, -0.0], np.float32), np.array([1, 2, 3], np.int64)
    want, got = np.where(cond, then, other), select(cond, then, other)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("dtype", (np.float16, np.float32, np.float64, np.int8, np.int32, np.int64))
def test_relu_is_where(dtype: type) -> None:
    rng = np.random.default_rng(100 + np.dtype(dtype).itemsize)
    x = _draw(rng, (4000,), dtype)
    want = np.where(x > 0, x, np.zeros((), x.dtype))
    got = RELU_1.kernel(NoAttrs(), [x])[0]
    assert got.dtype == want.dtype and np.array_equal(_bits(got), _bits(want))
    strided = x.reshape(40, 100)[:, ::3]  # a view, not contiguous
    assert np.array_equal(_bits(RELU_1.kernel(NoAttrs(), [strided])[0]),
                          _bits(np.where(strided > 0, strided, np.zeros((), x.dtype))))
