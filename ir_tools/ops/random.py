"""RandomUniform-8 and Multinomial-13: attributes and shape rules, no kernels (their outputs are pseudo-random, so
``compare`` lists such a layer as not checked; ``check`` re-infers it).

Checked against the installed openvino by tests/ops/test_random_conformance.py. Measured on openvino 2026.4.1 (the
module's rules on 420 seeded RandomUniform nodes and 420 Multinomial ones, each as OpenVINO infers it or both refusing:
300 each on Parameters and Consts, over half of them refused, and 120 each whose shape or num_samples input is
computed from a ShapeOf of a partial shape):

- RandomUniform-8 (opset8..16). Attributes: output_type (required: a missing or dynamic one OpenVINO's reader refuses),
  global_seed and op_seed (int64, 0 where omitted), alignment (tensorflow or pytorch, tensorflow where omitted; the
  2026 reader knows it though its sources of 2023 do not). The shape input i32, i64 or dynamic and of rank 1 (or a
  dynamic rank); min and max of one element type, exactly output_type's (a dynamic one refused), which must be real
  (f16, bf16, f32, f64, the f8 and f4 types) or i32 or i64; each a scalar or of one element ([1], [?], a dynamic rank).
  min and max both known: min < max compared as doubles, else refused (min == max, a NaN, and the i64 2^53 + 1 beside
  2^53). The output's dims: a known shape value's, as ``Dimension(v)`` reads it (-1 dynamic, another negative value 0,
  INT64_MAX the empty interval: not held here, the rule declines); a value OpenVINO bounds (a ShapeOf of a partial
  shape), its bounds; unknown, as many dynamic dims as the shape input's length at most: ``[2..5]`` gives a rank of 5,
  ``[?]`` or ``[2..]`` a dynamic rank (OpenVINO's ``PartialShape::dynamic(shape[0].get_max_length())``).
- Multinomial-13 (opset13..16). Attributes: convert_type (any element type; dynamic where omitted, which OpenVINO
  reads and its CPU cannot compile: ``check`` refuses it), with_replacement
  and log_probs (false where omitted), global_seed and op_seed. probs of rank 2 (a dynamic rank too: 1-D probs are
  refused, unlike the 2023 sources' rank 1 or 2) and of a real type or dynamic; num_samples a scalar or of one element,
  of any type but the real ones and boolean (string, nf4 and u1 pass). The output ``[probs[0], n]`` of convert_type,
  n num_samples' value as a dim (-1 dynamic, another negative value 0; INT64_MAX and a u64 beyond int64 refused), its
  bounds where OpenVINO bounds it, else dynamic; probs of a dynamic rank give a dynamic rank whatever num_samples is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import DYNAMIC, Shape
from ..base.dtypes import REAL_TYPES
from ..base.errors import OpValidationError
from . import attrs as A
from .bounds import Bounds
from .core import ELEMENT
from .intervals import ANY, canon, contains, guarded, is_empty, iv, size_dim, to_dim
from .operands import ints
from .spec import OpSpec, TensorType

#: RandomUniform's output types: OpenVINO's real ones, i32 and i64.
_UNIFORM_TYPES = REAL_TYPES | {"i32", "i64"}


@dataclass(frozen=True, slots=True)
class RandomUniformAttrs:
    output_type: str = A.attr("output_type", ELEMENT)
    global_seed: int = A.attr("global_seed", A.INT, 0)
    op_seed: int = A.attr("op_seed", A.INT, 0)
    alignment: str = A.attr("alignment", A.enum("tensorflow", "pytorch"), "tensorflow")


@dataclass(frozen=True, slots=True)
class MultinomialAttrs:
    convert_type: str | None = A.attr("convert_type", ELEMENT, None)
    with_replacement: bool = A.attr("with_replacement", A.BOOL, False)
    log_probs: bool = A.attr("log_probs", A.BOOL, False)
    global_seed: int = A.attr("global_seed", A.INT, 0)
    op_seed: int = A.attr("op_seed", A.INT, 0)


def _one_element(name: str, shape: Shape) -> None:
    """A scalar or a 1-D tensor of one element, as far as the partial shape says (``[?]`` and a dynamic rank pass)."""
    if shape is not None and (len(shape) > 1 or (len(shape) == 1 and not contains(iv(shape[0]), 1))):
        raise OpValidationError(f"{name} must be a scalar or a 1-D tensor of one element, got {shape}")


def _uniform(a: RandomUniformAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """random_uniform_shape_inference.hpp and RandomUniform::validate_and_infer_types (module doc)."""
    shape_t, low_t, high_t = inputs
    if shape_t.element is not None and shape_t.element not in ("i32", "i64"):
        raise OpValidationError(f"the shape input must be of element type i32 or i64, got {shape_t.element}")
    if low_t.element != high_t.element:
        raise OpValidationError(f"min of {low_t.element} and max of {high_t.element}: they must be of one type")
    if a.output_type not in _UNIFORM_TYPES or low_t.element != a.output_type:
        raise OpValidationError(f"output_type {a.output_type} with min and max of {low_t.element}: it must be real, "
                                "i32 or i64, and theirs")
    if shape_t.shape is not None and len(shape_t.shape) != 1:
        raise OpValidationError(f"the shape input must be 1-D, got rank {len(shape_t.shape)}")
    _one_element("min", low_t.shape)
    _one_element("max", high_t.shape)
    low, high, shape_value = values[1], values[2], values[0]
    if isinstance(low, np.ndarray) and isinstance(high, np.ndarray):
        first, last = (float(np.asarray(v, np.float64).reshape(-1)[0]) for v in (low, high))
        if not first < last:
            raise OpValidationError(f"min {first} must be less than max {last}")
    if isinstance(shape_value, Bounds):
        found = shape_value.dims()
        return None if found is None else [TensorType(a.output_type, tuple(to_dim(d) for d in found))]
    if shape_value is not None:
        return [TensorType(a.output_type, tuple(size_dim(v) for v in ints(shape_value)))]
    length = None if shape_t.shape is None else shape_t.shape[0].hi
    return [TensorType(a.output_type, None if length is None else (DYNAMIC,) * length)]


def _multinomial(a: MultinomialAttrs, inputs: Sequence[TensorType], values) -> list[TensorType] | None:
    """multinomial_shape_inference.hpp and Multinomial::validate_and_infer_types (module doc)."""
    probs, count_t = inputs
    if probs.shape is not None and len(probs.shape) != 2:
        raise OpValidationError(f"probs must be 2-D, got rank {len(probs.shape)}")
    _one_element("num_samples", count_t.shape)
    if probs.element is not None and probs.element not in REAL_TYPES:
        raise OpValidationError(f"probs must be of a real element type, got {probs.element}")
    if count_t.element in REAL_TYPES | {"boolean"}:
        raise OpValidationError(f"num_samples must be of an integral element type, got {count_t.element}")
    if probs.shape is None:
        return [TensorType(a.convert_type, None)]
    count = values[1]
    if isinstance(count, Bounds):
        found = count.dims()
        if found is None:
            return None
        samples = found[0]
    elif count is not None:
        value = ints(count)[0]
        samples = ANY if value == -1 else canon(value, value)  # (beyond int64, or INT64_MAX: empty, refused)
    else:
        samples = ANY
    if is_empty(samples):
        raise OpValidationError("num_samples is INT64_MAX or beyond int64's range: an empty dim")
    return [TensorType(a.convert_type, (probs.shape[0], to_dim(samples)))]


def _omitted_convert_type(a: MultinomialAttrs, inputs: Sequence[TensorType], values) -> str | None:
    """OpenVINO reads a Multinomial without convert_type (its output of a dynamic element type) but its CPU cannot
    compile it ("m_element_type.is_static()", measured on 2026.4.1)."""
    if a.convert_type is not None:
        return None
    return ("it has no convert_type, so its output's element type is dynamic: OpenVINO reads it, but its CPU cannot "
            "compile it")


RANDOM_UNIFORM_8 = OpSpec("RandomUniform", "RandomUniform-8", RandomUniformAttrs, (3, 3), 1, guarded(_uniform),
                          value_inputs=(0, 1, 2), reads_bounds=True)
MULTINOMIAL_13 = OpSpec("Multinomial", "Multinomial-13", MultinomialAttrs, (2, 2), 1, guarded(_multinomial),
                        value_inputs=(1,), reads_bounds=True, cpu_refuses=_omitted_convert_type)
