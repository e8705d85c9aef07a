"""ReadValue-3/6 and Assign-3/6: the state ops (a variable, named by ``variable_id``, kept between inferences).

The kernels here are the first inference's: ReadValue gives its init input (ReadValue-6 without one: zeros of the
variable's shape, a dynamic dim 0, as OpenVINO CPU starts it), Assign passes its input on. What a variable holds
across inferences is the executor's to keep (runtime/executor.py reads and writes it by ``variable_id``); a kernel
knows no graph and no earlier call.

Shape rules (measured on openvino 2026.4.1, src/core/src/op/read_value.cpp; tests/ops/test_state_conformance.py):

1. ReadValue-3 and Assign-3/6: the output is the input's type and shape.
2. ReadValue-6: the variable is ``variable_type`` / ``variable_shape`` (written by IR v11; absent, or ``dynamic`` and
   ``...``, they are unknown). Both unknown: the output is the init input's type and shape. Otherwise the output is
   the variable's, after two checks against an init input: its type is the variable's (unless that is unknown), and
   the variable's shape relaxes the input's (unknown rank; or the same rank, each variable dim's interval holding
   the input dim's).
3. ReadValue-6 without an init input: the variable's type and shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base.dims import Shape, format_shape, parse_shape
from ..base.dtypes import element_type
from ..base.errors import OpValidationError
from . import attrs as A
from .rounding import moves
from .spec import OpSpec, TensorType, never

#: The spelling OpenVINO writes for a variable whose type or shape is not known.
_DYNAMIC_TYPE = "dynamic"


def _variable_type(text: str) -> str | None:
    """An element type, or None for OpenVINO's ``dynamic``."""
    if text.lower() == _DYNAMIC_TYPE:
        return None
    et = element_type(text)
    if et is None or text.lower() != et.name:
        raise ValueError(text)
    return et.name


VARIABLE_TYPE = A.Codec("an element type such as f32, or dynamic", _variable_type,
                        lambda v: _DYNAMIC_TYPE if v is None else v)
VARIABLE_SHAPE = A.Codec("a shape such as '?,2,?,8' or '...'", parse_shape, format_shape)


@dataclass(frozen=True, slots=True)
class VariableAttrs:
    """ReadValue-3, Assign-3/6: the variable's name only."""

    variable_id: str = A.attr("variable_id", A.STRING)


@dataclass(frozen=True, slots=True)
class ReadValue6Attrs:
    variable_id: str = A.attr("variable_id", A.STRING)
    variable_type: str | None = A.attr("variable_type", VARIABLE_TYPE, None)
    variable_shape: Shape = A.attr("variable_shape", VARIABLE_SHAPE, None)


def _relaxes(wide: Shape, narrow: Shape) -> bool:
    """OpenVINO's ``PartialShape::relaxes``: every shape ``narrow`` allows, ``wide`` allows."""
    if wide is None:
        return True
    if narrow is None or len(wide) != len(narrow):
        return False
    return all(w.lo <= n.lo and (w.hi is None or (n.hi is not None and w.hi >= n.hi))
               for w, n in zip(wide, narrow, strict=True))


def _same(a, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """Rule 1."""
    return [inputs[0]]


def _read_value_6(a: ReadValue6Attrs, inputs: Sequence[TensorType], values) -> list[TensorType]:
    """Rules 2 and 3."""
    if not inputs:
        return [TensorType(a.variable_type, a.variable_shape)]
    init = inputs[0]
    if a.variable_type is None and a.variable_shape is None:
        return [init]
    if a.variable_type is not None and init.element != a.variable_type:
        raise OpValidationError(f"the init input is {init.element or 'of unknown type'}, the variable "
                                f"'{a.variable_id}' is {a.variable_type}")
    if not _relaxes(a.variable_shape, init.shape):
        raise OpValidationError(f"the variable '{a.variable_id}' has shape [{format_shape(a.variable_shape)}], "
                                f"which does not hold the init input's [{format_shape(init.shape)}]")
    return [TensorType(a.variable_type, a.variable_shape)]


def _pass_on(a, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """ReadValue's first inference (its init value) and Assign (the value it writes): the input, unchanged."""
    return [args[0]]


def _run_read_value_6(a: ReadValue6Attrs, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The init input, else zeros of the variable's shape, each dynamic dim 0 as OpenVINO CPU starts it (bounded ones
    too: [1,?,4] and [1..4,2] start as [1,0,4] and [0,2], measured on 2026.4; ``MakeStateful`` writes such a
    ReadValue for a KV cache's past, which the reference refused)."""
    if args:
        return [args[0]]
    et = element_type(a.variable_type or "")
    shape = a.variable_shape
    if et is None or et.numpy is None or shape is None:
        raise OpValidationError(f"ReadValue without an init input needs a variable of known rank and type to start "
                                f"from zeros; '{a.variable_id}' is {a.variable_type or 'dynamic'}"
                                f"[{format_shape(shape)}]")
    return [np.zeros(tuple(d.lo if d.is_static else 0 for d in shape), et.numpy)]


def _dynamic_variable_type(a: ReadValue6Attrs, read: frozenset[int]) -> str | None:
    """A variable of unknown type beside a known shape, or of a known type beside an unknown shape (a dynamic rank):
    the output is the variable's (rule 2 or 3), of a dynamic element type or rank, which OpenVINO's CPU plugin cannot
    compile ("unsupported src_prc: dynamic", "CPU plug-in doesn't support ReadValue operation with dynamic rank"; with
    an init input or without one; measured on 2026.4)."""
    if a.variable_type is None and a.variable_shape is not None:
        return (f"variable '{a.variable_id}' has a variable_shape but no variable_type (or 'dynamic'): OpenVINO reads "
                f"the layer's output as of a dynamic element type, which its CPU plugin cannot compile; write the "
                f"variable's type")
    if a.variable_type is not None and a.variable_shape is None:
        return (f"variable '{a.variable_id}' has a variable_type but no variable_shape (or '...'): OpenVINO reads the "
                f"layer's output as of a dynamic rank, which its CPU plugin cannot compile; write the variable's shape "
                f"('?' for a dynamic dim)")
    return None


def _unknown_variable(a: ReadValue6Attrs, inputs: Sequence[TensorType], values) -> str | None:
    """Neither the variable's type nor its shape, and no init input: the output (rule 3) is of a dynamic type and
    rank, which OpenVINO's CPU plugin cannot compile ("doesn't support ReadValue operation with dynamic rank", measured
    on 2026.4); with an init input the output is the init's (rule 2), which it compiles."""
    if inputs or a.variable_type is not None or a.variable_shape is not None:
        return None
    return (f"variable '{a.variable_id}' has neither a variable_type nor a variable_shape, and the layer no init "
            f"input: OpenVINO reads its output as of a dynamic type and rank, which its CPU plugin cannot compile")


READ_VALUE_3 = OpSpec("ReadValue", "ReadValue-3", VariableAttrs, (1, 1), 1, _same, _pass_on, rounding=moves(),
                      evaluates=never)
READ_VALUE_6 = OpSpec("ReadValue", "ReadValue-6", ReadValue6Attrs, (0, 1), 1, _read_value_6, _run_read_value_6,
                      rounding=moves(), crashes=_dynamic_variable_type, cpu_refuses=_unknown_variable, evaluates=never)
ASSIGN_3 = OpSpec("Assign", "Assign-3", VariableAttrs, (1, 1), 1, _same, _pass_on, rounding=moves(), evaluates=never)
ASSIGN_6 = OpSpec("Assign", "Assign-6", VariableAttrs, (1, 1), 1, _same, _pass_on, rounding=moves(), evaluates=never)
