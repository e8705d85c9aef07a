"""Float conversions a release computes otherwise than the current OpenVINO (measured: ``ops/releases.DEFECTS``):
Convert-1 of a float, or of a signed integer, into boolean as the specification's comparison, IsNaN/IsInf/IsFinite-10
as an IR v10 model's output as comparisons, and the f16 model inputs and outputs a release reads or writes saturated
(no rewrite: a refusal, or for an input a warning); with the magnitude a float output provably keeps to
(``magnitude``), which tells the layers no such defect can reach."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from ...base.dtypes import INTEGER_TYPES, element_type
from ...ir.model import Graph, Layer
from ...ops.releases import FLOAT_BOOLEAN_EXACT_WITHIN, NEGATIVE_BOOLEAN_TYPES, op_label
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type, declared_type_of
from .base import Downgrade, numpy_dtype, source

#: The float types whose Convert-1 into boolean the table measured (``scripts/probe_release.py``, float_boolean).
_PROBED = frozenset({"f32", "f16"})
#: f16's greatest finite value: an f16 model output of a greater magnitude (65520 and up rounds to infinity) is
#: written otherwise by a release that saturates (``f16_io_saturates``).
F16_MAX = 65504.0
#: Layers whose output's values are some of their inputs' (by input index), or kept within a bound: by type in
#: lower case. Concat, Select and the shape-moving ops pass values on; Relu, Abs and Negative keep the magnitude.
_PASSING = {"reshape": (0,), "squeeze": (0,), "unsqueeze": (0,), "transpose": (0,), "gather": (0,),
            "stridedslice": (0,), "slice": (0,), "broadcast": (0,), "tile": (0,), "maxpool": (0,), "reducemax": (0,),
            "reducemin": (0,), "relu": (0,), "abs": (0,), "negative": (0,), "concat": None, "select": (1, 2),
            "convert": (0,)}
#: Layers whose outputs lie within [-1, 1] (NaN aside).
_UNIT = frozenset({"sigmoid", "tanh", "softmax"})


def magnitude(graph: Graph, out: Output) -> float | None:
    """The greatest magnitude a value ``out`` carries may have on any release (NaN aside; inf where it may be
    infinite): a Const's; an integer type's range; f16's largest for an f16 model input (an infinity fed to one is
    its own diagnostic, ``f16_io_saturates``); within [-1, 1] for Sigmoid, Tanh and SoftMax; Clamp's bounds; the
    inputs' for ops that pass values on (``_PASSING``); else None (unknown: a float input, a computed value)."""
    layer = graph.layer(out[0])
    if layer.is_a("Const"):
        value = graph.const_array(layer).astype(np.float64)
        kept = np.abs(value[~np.isnan(value)])
        return float(kept.max()) if kept.size else 0.0
    element = declared_type(layer.output(out[1])).element if layer.output_record(out[1]) is not None else None
    if element == "boolean":
        return 1.0
    if element in INTEGER_TYPES:
        return float(2 ** (element_type(element).bits - element.startswith("i")))
    kind = layer.type.lower()
    if kind == "parameter":
        return F16_MAX if element == "f16" else None
    if kind in _UNIT:
        return 1.0
    if kind == "clamp":
        return max(abs(float(layer.attrs.get("min", "nan"))), abs(float(layer.attrs.get("max", "nan"))))
    if kind not in _PASSING:
        return None
    found = [magnitude(graph, key) for key in _inputs(graph, layer, _PASSING[kind])]
    return None if not found or None in found else max(found)  # type: ignore[type-var]


def may_be_nan(graph: Graph, out: Output) -> bool:
    """Whether ``out`` may carry a NaN on some input: not an integer or boolean output, a Const without NaN, nor what
    the ops of ``_PASSING``, Sigmoid and Tanh make of such values."""
    layer = graph.layer(out[0])
    element = declared_type(layer.output(out[1])).element if layer.output_record(out[1]) is not None else None
    if element == "boolean" or element in INTEGER_TYPES:
        return False
    kind = layer.type.lower()
    if layer.is_a("Const"):
        value = graph.const_array(layer)
        return value.dtype.kind == "f" and bool(np.isnan(value).any())
    if kind not in _PASSING and kind not in ("sigmoid", "tanh"):
        return True
    found = _inputs(graph, layer, _PASSING.get(kind, (0,)))
    return not found or any(may_be_nan(graph, key) for key in found)


def _inputs(graph: Graph, layer: Layer, indices: tuple[int, ...] | None) -> list[Output]:
    """The outputs feeding ``layer``'s inputs of ``indices`` (every one for None)."""
    ports = layer.input_ids()
    picked = ports if indices is None else [ports[i] for i in indices if i < len(ports)]
    keys = [graph.producer_key(layer.id, port) for port in picked]
    return [key for key in keys if key is not None]


#: Layers never folded into a constant: their values come from outside or change from one inference to the next.
_UNFOLDED = frozenset({"parameter", "readvalue", "randomuniform", "multinomial"})


def constant(graph: Graph, out: Output) -> bool:
    """Whether ``out`` is computed from Consts alone, so that every release folds it when it compiles the model, by its
    reference implementation, not its CPU plugin (measured: a Const of 255.5, 256, 3e38, +-inf and NaN converted into
    boolean gives True for each on 2023.0, 2024.1 and the current OpenVINO, NaN too, which the CPU makes False)."""
    seen: set[str] = set()
    todo = [out[0]]
    while todo:
        layer = graph.layer(todo.pop())
        if layer.id in seen or layer.is_a("Const"):
            continue
        if layer.type.lower() in _UNFOLDED or not layer.inputs:
            return False
        seen.add(layer.id)
        todo += [edge.from_layer for edge in graph.in_edges(layer.id)]
    return True


def _to_boolean(layer: Layer) -> bool:
    """Whether ``layer`` is a Convert-1 of a probed float type into boolean (asked of every Convert by ``check
    --target``: read from the port records, which makes no Port objects)."""
    outs = layer.output_records()
    if not outs or declared_type_of(outs[0][1], outs[0][2]).element != "boolean":
        return False
    ins = layer.input_records()
    return bool(ins) and declared_type_of(ins[0][1], ins[0][2]).element in _PROBED and \
        op_label(layer.type, layer.version) == "Convert-1"


def _negative(graph: Graph, layer: Layer) -> bool:
    """``integer_boolean_negative_false`` hits a Convert-1 of i16, i32 or i64 (``NEGATIVE_BOOLEAN_TYPES``) into
    boolean whose input is not folded (``constant``: every release folds a Const's conversion alike)."""
    outs, ins = layer.output_records(), layer.input_records()
    if not outs or not ins or declared_type_of(outs[0][1], outs[0][2]).element != "boolean" or \
            op_label(layer.type, layer.version) != "Convert-1":
        return False
    return declared_type_of(ins[0][1], ins[0][2]).element in NEGATIVE_BOOLEAN_TYPES and \
        not constant(graph, source(graph, layer, 0))


def _beyond_exact(graph: Graph, layer: Layer) -> bool:
    """``float_boolean_wrong`` hits a Convert of a float into boolean whose input may lie beyond
    ``FLOAT_BOOLEAN_EXACT_WITHIN`` (every value within it is converted right) and is not folded (``constant``)."""
    if not _to_boolean(layer) or constant(graph, source(graph, layer, 0)):
        return False
    bound = magnitude(graph, source(graph, layer, 0))
    return bound is None or bound > FLOAT_BOOLEAN_EXACT_WITHIN


def _nan(graph: Graph, layer: Layer) -> bool:
    """``float_boolean_nan_true`` hits a Convert of a float into boolean whose input may be NaN (and is not folded:
    ``constant``)."""
    return (_to_boolean(layer) and may_be_nan(graph, source(graph, layer, 0))
            and not constant(graph, source(graph, layer, 0)))


#: The reader an IsNaN/IsInf/IsFinite-10 of an IR v10 model may have, alone, for 2023.0 to compile it (measured: its
#: CPU fuses the check into a LogicalNot-1 or LogicalAnd-1; read by a Result, a Reshape, an Unsqueeze, a Concat, a
#: Convert-1 into boolean, u8 or f32, a Select-1, or by two LogicalNot-1, it is refused alike).
_FUSED_READERS = frozenset({"LogicalNot-1", "LogicalAnd-1"})


def _unfused_boolean_check(graph: Graph, layer: Layer) -> bool:
    """``v10_boolean_output_fails`` hits IsNaN/IsInf/IsFinite-10 but one whose only reader is of ``_FUSED_READERS``
    or, in IR v11, a Result (measured on 2023.0: an IR v11 model whose output it is compiles, one where a Select-1,
    a Convert-1, a Reshape, an Unsqueeze, a Concat, a LogicalOr-1 or two LogicalNot-1 read it does not, as in v10)."""
    if op_label(layer.type, layer.version) not in _CHECKS:
        return False
    readers = [graph.layer(edge.to_layer) for port in layer.outputs for edge in graph.consumers(layer.id, port.id)]
    if len(readers) == 1 and graph.ir_version != 10 and readers[0].type == "Result":
        return False
    return len(readers) != 1 or op_label(readers[0].type, readers[0].version) not in _FUSED_READERS


_BOOLEAN = "as LogicalAnd-1 of NotEqual-1(x, 0) and Equal-1(x, x) (True but for zeros and NaN)"
_INTEGER_BOOLEAN = "as NotEqual-1(x, 0)"
_CHECKS = {"IsNaN-10": "as NotEqual-1(x, x)", "IsInf-10": "as Equal-1 of Abs-1(x), or of x, with inf (or -inf)",
           "IsFinite-10": "as Less-1(Abs-1(x), inf) in f32, and-ed with x being 0 or of at least f32's least normal "
                          "magnitude (the CPU's IsFinite is False for a subnormal)"}


class FloatChecksTo1(Downgrade):
    """Float conversions and tests a release computes otherwise, as comparisons it computes right (measured:
    docs/SEMANTICS.md, section 7):

    1. Convert-1 of f32 or f16 into boolean (``float_boolean_wrong``: 2023.0 to 2024.0 give False for some values of
       magnitude above 255; ``float_boolean_nan_true``: 2024.1 and 2024.2 True for NaN) is
       ``LogicalAnd(NotEqual(x, 0), Equal(x, x))``; a Convert whose input provably lies within +-255 (without NaN for
       the second) is computed right, and left, and so is one of Consts alone, which every release folds alike (the
       rewrite would not: a Const NaN is folded into True); Convert-1 of i16, i32 or i64 into boolean
       (``integer_boolean_negative_false``: 2023.0 to 2024.2 give False for every negative value) is
       ``NotEqual(x, 0)``, as the current OpenVINO computes it for every value within (-2^31, 2^31) (i32 -2^31 it
       converts into False, and an i64 beyond i32 as its low 32 bits: a target holds such an i64 saturated anyway);
       one of Consts alone is left;
    2. IsNaN-10, IsInf-10 and IsFinite-10 but one read by a single LogicalNot-1 or LogicalAnd-1, or in IR v11 by a
       single Result (``v10_boolean_output_fails``: 2023.0 does not compile them) are ``NotEqual(x, x)``,
       ``Equal(Abs(x), inf)`` (``Equal(x, inf)`` or ``Equal(x, -inf)`` where one sign is detected) and
       ``Less(Abs(x), inf)`` in f32 (an f16 input converted), and-ed with ``x == 0 or Abs(x) >= 2^-126``: the
       CPU's IsFinite-10 of an f32 subnormal is False (with AVX-512: True with AVX2 alone, where the form then
       differs at f32 subnormals; 2023.0, 2024.0 and the current OpenVINO;
       an f16 tensor inside a model holds f32 values, an f16 input's subnormal an f32 normal), and so is the form's
       (measured on 300000 seeded f32 bit patterns, 345000 subnormals and every f16, equal to the op on those
       releases, IsNaN and IsInf too); an IsInf detecting neither sign, and inputs of another type than f16 and f32,
       are left."""

    rewrites = {"Convert-1": f"from f32 or f16 into boolean {_BOOLEAN}; from i16, i32 or i64 {_INTEGER_BOOLEAN}",
                **_CHECKS}
    repairs = {"float_boolean_wrong": _beyond_exact, "float_boolean_nan_true": _nan,
               "integer_boolean_negative_false": _negative,
               "v10_boolean_output_fails": _unfused_boolean_check}

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        label = op_label(layer.type, layer.version)
        if label not in _CHECKS or self.defect(graph, layer) is None:
            return None
        if declared_type(layer.inputs[0]).element not in ("f16", "f32"):
            return f"its input is {declared_type(layer.inputs[0]).element}, not f16 or f32 (the forms measured)"
        if label == "IsInf-10" and not _signs(layer):
            return "it detects neither infinity (all False)"
        return None

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        for layer in self.layers(graph):
            if self.defect(graph, layer) is None:
                continue  # (without a target: a layer of these op versions no release computes otherwise)
            label = op_label(layer.type, layer.version) or ""
            x = source(graph, layer, 0)
            builder.replace_layer(layer, lambda: [_comparison(builder, layer, label, x)],  # noqa: B023
                                  origin_text(layer, label))
            stats[f"{label} -> comparisons"] += 1
        return PassResult(graph, bool(stats), stats)


def _signs(layer: Layer) -> list[float]:
    """The infinities an IsInf-10 detects."""
    return [sign for sign, attr in ((1.0, "detect_positive"), (-1.0, "detect_negative"))
            if layer.attrs.get(attr, "true").lower() == "true"]


def _comparison(builder: GraphBuilder, layer: Layer, label: str, x: Output) -> Output:
    """Rules 1 and 2: the comparisons ``layer`` (of ``label``) is."""
    name, dtype = layer.name, numpy_dtype(builder, x)

    def add(op: str, inputs: list[Output], suffix: str) -> Output:
        return output_of(builder.add(op, "opset1", None, inputs, f"{name}/{suffix}" if suffix else name))

    def const(value: float, suffix: str) -> Output:
        return builder.const(np.array(value, dtype), f"{name}/{suffix}")

    if label == "Convert-1" and dtype.kind in "iu":  # (integer_boolean_negative_false)
        return add("NotEqual", [x, const(0, "zero")], "")
    if label == "Convert-1":
        return add("LogicalAnd", [add("NotEqual", [x, const(0.0, "zero")], "nonzero"),
                                  add("Equal", [x, x], "not_nan")], "")
    if label == "IsNaN-10":
        return add("NotEqual", [x, x], "")
    if label == "IsFinite-10":  # (the CPU's IsFinite is False for an f32 subnormal, every release, the current too)
        if dtype != np.float32:  # (f16 is computed in f32 inside a model: an f16 tensor may hold an f32 subnormal)
            x = output_of(builder.convert(x, "f32", f"{name}/f32"))
            dtype = np.dtype(np.float32)
        magnitude = add("Abs", [x], "abs")
        normal = add("LogicalOr", [add("Equal", [x, const(0.0, "zero")], "zero"),
                                   add("GreaterEqual", [magnitude, const(np.finfo(np.float32).tiny, "tiny")],
                                       "normal")], "not_subnormal")
        return add("LogicalAnd", [add("Less", [magnitude, const(np.inf, "inf")], "finite"), normal], "")
    signs = _signs(layer)
    if len(signs) == 2:
        return add("Equal", [add("Abs", [x], "abs"), const(np.inf, "inf")], "")
    return add("Equal", [x, const(signs[0] * np.inf, "inf")], "")


def f32_boundary(graph: Graph) -> bool:
    """Whether OpenVINO reads ``graph``'s f16 model inputs and outputs as f32: an IR v10 model's, whose f16 (as its
    boolean and i64) inputs and outputs ``read_model`` converts, every release (measured on 2023.0, 2024.0, 2024.1 and
    2026.4: an f16 input fed inf, f16 outputs converted from f32 70000 and -1e6 and from i32 70000 and 2049, all kept,
    as f32). No release then saturates f16 at the boundary (``f16_io_saturates``), nor converts an integer into an
    f16 output otherwise than inside the model (``Release.converts_output_only``)."""
    return graph.ir_version == 10


def f16_io(graph: Graph) -> Iterator[tuple[Layer, bool]]:
    """The model inputs and outputs of f16 a release that saturates f16 at the model's boundary
    (``f16_io_saturates``) reads or writes otherwise, each with whether ordinary values of a wider type meet it (True:
    refused) or only an infinity fed or an f16 overflow (False: warned): every f16 Parameter (False: every finite
    f16 lies within +-65504); every Result of f16 whose values may lie beyond +-65504 (``magnitude``), True where they
    come from a conversion into f16 of a wider type (``widened``: f32 data of 70000), False where f16 computation
    makes them (60000 + 60000: the current OpenVINO's output is then an overflow, inf). Inside a model every release
    computes f16 in f32 alike (measured), so no other layer is hit; nor is any of an IR v10 model (``f32_boundary``)."""
    if f32_boundary(graph):
        return
    for layer in graph.parameters():
        if layer.attrs.get("element_type", "").lower() == "f16":
            yield layer, False
    for layer in graph.results():
        if not layer.inputs or declared_type(layer.inputs[0]).element != "f16":
            continue
        key = graph.producer_key(layer.id, layer.input_ids()[0])
        bound = None if key is None else magnitude(graph, key)
        if bound is None or bound > F16_MAX:
            yield layer, key is None or widened(graph, key)


def widened(graph: Graph, out: Output) -> bool:
    """Whether an f16 ``out`` may hold a value beyond +-65504 converted into f16 from a wider type: a Convert-1 from
    another type whose input may lie beyond it, or what the ops of ``_PASSING`` make of one."""
    layer = graph.layer(out[0])
    kind = layer.type.lower()
    if kind == "convert" and layer.inputs and declared_type(layer.inputs[0]).element != "f16":
        bound = magnitude(graph, source(graph, layer, 0))
        return bound is None or bound > F16_MAX
    if kind not in _PASSING:
        return False
    return any(widened(graph, key) for key in _inputs(graph, layer, _PASSING[kind]))
