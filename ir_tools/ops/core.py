"""Parameter, Const, Convert and Result: the plumbing every IR has."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..dtypes import element_type
from ..errors import OpValidationError
from ..ir.dims import Dim, Shape, format_shape, parse_shape
from . import attrs as A
from .registry import OpSpec, TensorType, opset_range, register


def _element(text: str) -> str:
    et = element_type(text)
    if et is None or text.strip().lower() != et.name:
        raise ValueError(text)
    return et.name


ELEMENT = A.Codec("an element type such as f32, f16, i64", _element, str)
PARTIAL_SHAPE = A.Codec("a shape such as '1,3,224,224', '?,3,1..10,-1' or '...'", parse_shape, format_shape)


@dataclass(frozen=True, slots=True)
class ParameterAttrs:
    shape: Shape = A.attr("shape", PARTIAL_SHAPE)
    element_type: str = A.attr("element_type", ELEMENT)


@dataclass(frozen=True, slots=True)
class ConstAttrs:
    element_type: str = A.attr("element_type", ELEMENT)
    shape: tuple[int, ...] = A.attr("shape", A.UINT_LIST)
    offset: int = A.attr("offset", A.Codec("a non-negative integer", A._uint, str))
    size: int = A.attr("size", A.Codec("a non-negative integer", A._uint, str))


@dataclass(frozen=True, slots=True)
class ConvertAttrs:
    destination_type: str = A.attr("destination_type", ELEMENT)


@dataclass(frozen=True, slots=True)
class NoAttrs:
    pass


def _parameter(a: ParameterAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.element_type, a.shape)]


def _const(a: ConstAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.element_type, tuple(Dim(n, n) for n in a.shape))]


def _convert(a: ConvertAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return [TensorType(a.destination_type, inputs[0].shape)]


def _result(a: NoAttrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    return []


def convert_values(value: np.ndarray, destination: str) -> np.ndarray:
    """Convert as OpenVINO CPU does (measured): floats to integers truncate toward zero, then wrap."""
    et = element_type(destination)
    if et is None or et.numpy is None:
        raise OpValidationError(f"cannot convert to {destination}: no numpy equivalent")
    if np.issubdtype(et.numpy, np.integer) and np.issubdtype(value.dtype, np.floating):
        value = np.trunc(value).astype(np.int64)
    return value.astype(et.numpy)


ALL = 17  # highest opset the installed OpenVINO knows

register(OpSpec("Parameter", "Parameter-1", opset_range(1, ALL), ParameterAttrs, _parameter, (0, 0), 1))
register(OpSpec("Const", "Const-1", opset_range(1, ALL - 1), ConstAttrs, _const, (0, 0), 1))
def _run_convert(a: ConvertAttrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [convert_values(args[0], a.destination_type)]


register(OpSpec("Convert", "Convert-1", opset_range(1, ALL), ConvertAttrs, _convert, (1, 1), 1, kernel=_run_convert))
register(OpSpec("Result", "Result-1", opset_range(1, ALL - 1), NoAttrs, _result, (1, 1), 0))


def const_array(graph, layer) -> np.ndarray:
    """A Const layer's value as a numpy array (read-only view of the ``.bin`` where possible)."""
    a = A.decode(ConstAttrs, layer.attrs, layer.loc)
    et = element_type(a.element_type)
    if et is None or et.numpy is None:
        raise OpValidationError(f"Const of element type {a.element_type} has no numpy equivalent", layer.loc)
    count = math.prod(a.shape)  # exact: a huge declared shape must not wrap around
    data = graph.const_bytes(layer)
    if len(data) < count * et.numpy.itemsize:
        raise OpValidationError(
            f"Const payload is {len(data)} bytes, {a.element_type}{list(a.shape)} needs {count * et.numpy.itemsize}",
            layer.loc,
            code="E-CONST-SIZE",
        )
    return np.frombuffer(data, dtype=et.numpy, count=count).reshape(a.shape)
