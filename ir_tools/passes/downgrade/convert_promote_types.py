"""ConvertPromoteTypes-14 as a Convert-1 of each input (releases before 2024.0 have no opset14); Convert-1 and
ConvertPromoteTypes-14 between integer types a release converts otherwise than the current OpenVINO, as the current
one's wrap (``integer_wrap``) where it can be built, else refused."""

from __future__ import annotations

from collections import Counter

from ...base.dtypes import ELEMENT_TYPES, INTEGER_TYPES, REAL_TYPES, is_signed
from ...ir.model import Graph, Layer, PortRecord
from ...ops import attrs as A
from ...ops.core import ConvertPromoteTypesAttrs, promoted_type
from ...ops.releases import Release, converts_probed, op_label
from ...ops.spec import TensorType
from ..base import PassResult
from ..builder import GraphBuilder, Output, origin_text, output_of
from ..shapes import declared_type, declared_type_of, propagate
from ..validate import last_passed
from .base import Downgrade
from .float_convert import constant, f32_boundary
from .integer_wrap import converted_alike, wrapped, wraps_exactly


def _converted_otherwise(graph: Graph, layer: Layer, target: Release) -> dict[str, list[Output]]:
    """The conversions ``target`` computes otherwise ("u32->i64") a Convert-1 or ConvertPromoteTypes-14 ``layer``
    makes, as its ports declare them, each with the inputs it converts that some release may convert otherwise (not
    ``converted_alike``: a value in the destination's range, and i32's, is converted alike by every release; nor, but
    into f16, one computed from Consts alone, which every release folds alike: measured on 2023.0 to 2025.3, Consts of
    every integer type a release converts otherwise, edges and 200 seeded values each, converted and folded; into f16
    the current OpenVINO folds i32 beyond f16's range to +-65504, 2023.0 to 2024.0 to +-inf). An input whose
    converted value is no model output (``_model_output``) is judged by ``Release.converts_otherwise_inside``: inside
    a model 2023.0 to 2024.2 convert integers into f16 as the current OpenVINO does (they hold the f16 in f32, as it
    does), where as its output they write i32 70000 as 65504, the current one inf. Nor a conversion into the type
    the input holds ("u32->u32", which the table lists: a u32 of 2^31 or more is read as 2147483647), the identity on
    every release: what the target's CPU does to such a u32 it does to the Convert's input alike (measured on 2023.0,
    2024.0, 2024.1 and 2025.0: u32 and u64 from a Parameter, an Add and a Const, with and without a Convert to their
    own type, equal; ``own_tensor`` adds one)."""
    destination = _element(layer.output_records()[0])
    found: dict[str, list[Output]] = {}
    for index, port in enumerate(layer.input_records()):  # (records: no Port objects for the layers only looked at)
        source = _element(port)
        pair = f"{source}->{destination}"
        if pair not in target.converts_otherwise or source == destination:  # (nor then in its subset
            continue  # converts_otherwise_inside: most layers)
        pairs = target.converts_otherwise if _model_output(graph, layer, index) else target.converts_otherwise_inside
        key = graph.producer_key(layer.id, port[0])
        if pair in pairs and key is not None and not converted_alike(graph, key, destination) and \
                not (destination != "f16" and constant(graph, key)) and \
                not (pair in INDICES_ALIKE and _read_as_indices(graph, layer)):
            found.setdefault(pair, []).append(key)
    return found


#: The conversions no release computes otherwise where only Gathers' indices read them: i32 into u32, which a
#: saturating release makes 0 of a negative index, reads as the current OpenVINO does (a negative index from the end,
#: one out of range as zeros): measured bit for bit on every release from 2023.0 to 2025.3 and on 2026.4, Gather-1,
#: -7 and -8 on axes 0 and 1, two Gathers reading one Convert, indices -2^31 to 2^31-1 (torchvision's Faster R-CNN,
#: SSDlite and RetinaNet, converted today, index their boxes so; found by a helper migrating them).
INDICES_ALIKE = frozenset({"i32->u32"})


def _read_as_indices(graph: Graph, layer: Layer) -> bool:
    """Whether the Convert-1 ``layer``'s output is read, and only as a Gather's indices (its input 1)."""
    outputs = layer.output_ids()
    if not layer.is_a("Convert") or not outputs:
        return False
    edges = graph.consumers(layer.id, outputs[0])
    return bool(edges) and all(reader.is_a("Gather") and reader.input_ids()[1:2] == [edge.to_port]
                               for edge in edges for reader in [graph.layer(edge.to_layer)])


def _element(record: PortRecord) -> str | None:
    """The element type a port's record declares."""
    return declared_type_of(record[1], record[2]).element


def _model_output(graph: Graph, layer: Layer, index: int) -> bool:
    """Whether the output of ``layer`` holding its input ``index`` converted (a Convert-1's one, a
    ConvertPromoteTypes-14's same-numbered one) feeds a Result: a model output, or a body's. Measured: 2023.1 and 2023.2
    compute an integer Convert-1 into f16 whose output is a Result's saturating to +-65504 (for its other consumers
    too), one read by a Reshape before the Result as the current OpenVINO does; 2023.0 to 2024.2 write any
    f16 output saturated (``f16_io_saturates``, its own diagnostic). Not in an IR v10 model, whose f16 outputs every
    release reads as f32 (``f32_boundary``): there the value is converted as inside the model."""
    if f32_boundary(graph):
        return False
    ports = layer.outputs
    if not ports:
        return True
    port = ports[min(index, len(ports) - 1)]
    return any(graph.layer(edge.to_layer).is_a("Result") for edge in graph.consumers(layer.id, port.id))


def _from_integers(graph: Graph, layer: Layer) -> bool:
    """True if the layer converts some integer type to another type (``integer_convert_saturates`` may hit it; the
    pairs are the target's, ``ConvertPromoteTypesTo1.defect``)."""
    return any(_element(port) in INTEGER_TYPES for port in layer.input_records())


#: How a conversion the target computes otherwise is rewritten, and where (``integer_wrap.wraps_exactly``).
_WRAP = ("into i8, u8, i16 or u16 from a type but u32 and u64, as the current OpenVINO's wrap (FloorMod-1 in i32, "
         "then Convert-1 in range; the target's CPU holds no u32 or u64 of 2^31 or more)")


class ConvertPromoteTypesTo1(Downgrade):
    """ConvertPromoteTypes-14 as Convert-1 of each input to the promoted element type, where both input types are
    known and the promoted type holds every value of both: each output is its input converted (a Convert to the
    type it has already is the identity, and keeps the output's names); the type is OpenVINO's
    ``evaluate_common_type`` (the op table's ``promoted_type``, on the ranks our rules infer: the IR declares a
    dynamic rank as a scalar's no dims). Left, for ``retarget`` to refuse: inputs of a dynamic type, with
    pytorch_scalar_promotion one of a dynamic rank among types of one format (its rank decides the type when it
    runs), types OpenVINO refuses to promote, and lossy promotions (promote_unsafe, or pytorch scalar promotion of
    a u16 scalar into i8) but onto a pair the target converts otherwise, below: OpenVINO 2023.0's CPU Convert
    saturates where the current one wraps (i8 -34 into u16: 0, not 65502).

    For a target that converts some pair of integer types otherwise than the current OpenVINO
    (``integer_convert_saturates``, measured: 2023.0 to 2025.3 saturate where 2025.4 on wrap, u32 of 2^31 or more
    into i64 too), the Convert-1 and ConvertPromoteTypes-14 layers making such a conversion of a value that may be
    out of the destination's range are taken too: each such conversion into i8, u8, i16 or u16 from a type but u32
    and u64 is built as the current OpenVINO's wrap (``integer_wrap.wrapped``), and with it a lossy
    ConvertPromoteTypes-14 onto such a pair; one from u32 or u64, or into u32, u64 or f16, is left, for
    ``retarget`` to refuse: the target's CPU holds no u32 or u64 of 2^31 or more (it reads a u32 input of
    4000000000 as 2147483647), and no older op overflows into f16's infinity as the current Convert does. Into f16
    only a conversion whose value feeds a Result is taken (``_model_output``): inside the model 2023.0 to 2024.2
    convert integers into f16 as the current one does (``Release.converts_output_only``; but u32 on 2023.0 to 2023.2).

    A lossy promotion of an integer type into a real one (promote_unsafe: i32 with f32, i16 with f16) is a Convert-1
    of the integer input, which every release converts as the current OpenVINO does where the table measured the
    pair (``converts_probed``) and the target does not convert it otherwise (i32 into f32 and i16 into f16 on every
    release; measured on every value of the 16-bit types, edges and 4000 seeded ones of the wider; i32 into f16 too
    where the output is no model output): rewritten so too (found by a QA run: refused for 2023.0, where Convert-1 is
    bit-exact)."""

    rewrites = {"ConvertPromoteTypes-14": "into Convert-1 of each input where both input element types are known "
                                          "and the promoted type holds every value of both (not a lossy promotion), "
                                          "an integer type is promoted into a real one the target was measured to "
                                          "convert it into as the current OpenVINO does, or the target converts the "
                                          f"pair otherwise; each such conversion {_WRAP}",
                "Convert-1": f"where the target converts its integer types otherwise than the current one, {_WRAP}"}
    repairs = {"integer_convert_saturates": _from_integers}

    def defect(self, graph: Graph, layer: Layer) -> str | None:
        """``integer_convert_saturates`` where the layer makes a conversion the target computes otherwise
        (``Release.converts_otherwise``) of a value that may be out of range, else the base's answer."""
        key = super().defect(graph, layer)
        if key == "integer_convert_saturates":
            return key if self._otherwise(graph, layer) else None
        return key

    def _otherwise(self, graph: Graph, layer: Layer) -> dict[str, list[Output]]:
        """The conversions the target computes otherwise (``_converted_otherwise``), with the inputs to wrap."""
        assert self.target is not None
        return _converted_otherwise(graph, layer, self.target)

    def _converted_alike(self, source: str | None, destination: str, output: bool) -> bool:
        """Whether the target's Convert-1 of ``source`` (an integer type) into ``destination`` (a real one) was
        measured to give the current OpenVINO's numbers: a pair the table probed that it does not convert otherwise
        (none without a target), where the value is a model output (``output``) or inside the model."""
        pair = f"{source}->{destination}"
        otherwise = (self.target.converts_otherwise if output else self.target.converts_otherwise_inside) \
            if self.target is not None else frozenset()
        return (self.target is not None and source in INTEGER_TYPES and destination in REAL_TYPES
                and pair in converts_probed() and pair not in otherwise)

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        builder = GraphBuilder(graph)
        inferred: dict[Output, TensorType] | None = None  # (our rules' types, where the IR cannot tell a rank)
        for layer in self.layers(graph):
            otherwise = self._otherwise(graph, layer) if self.target is not None else {}
            convert = op_label(layer.type, layer.version) == "Convert-1"
            if (convert and not otherwise) or not all(wraps_exactly(pair) for pair in otherwise):
                continue  # (no exact form on the target: left)
            keys = [graph.producer_key(layer.id, port) for port in layer.input_ids()]
            if convert:
                destination = declared_type(layer.outputs[0]).element
                builder.replace_layer(layer, lambda: [wrapped(builder, keys[0], destination, layer.name)],  # noqa: B023
                                      origin_text(layer, "Convert-1"))
                stats[f"Convert-1 ({next(iter(otherwise))}) -> wrap in i32"] += 1
                continue
            types = [builder.type_of(key) for key in keys]
            attrs = A.decode(ConvertPromoteTypesAttrs, layer.attrs, layer.loc)
            ranks = [None if t.shape is None else len(t.shape) for t in types]
            if attrs.pytorch_scalar_promotion and 0 in ranks:  # (no dims declared: a scalar, or a dynamic rank)
                if inferred is None:
                    inferred = propagate(graph, last_passed(graph)).types
                ranks = [_rank(inferred.get(key)) for key in keys]
            target = promoted_type(types[0].element, types[1].element, ranks, attrs)  # (the gate took the pair)
            if target is None or not all(_holds(t.element, target) or f"{t.element}->{target}" in otherwise
                                         or self._converted_alike(t.element, target, _model_output(graph, layer, i))
                                         for i, t in enumerate(types)):  # type: ignore[arg-type]
                continue
            wraps = {key for pair_keys in otherwise.values() for key in pair_keys}
            builder.replace_layer(layer, lambda: _converts(builder, layer, keys, target, wraps),  # noqa: B023
                                  origin_text(layer, "ConvertPromoteTypes-14"))
            stats["ConvertPromoteTypes-14 -> Convert-1"] += 1
        return PassResult(graph, bool(stats), stats)


def _converts(builder: GraphBuilder, layer: Layer, keys: list[Output], target: str, wraps: set[Output]) -> list[Output]:
    """A Convert-1 of each input to ``target``, those of ``wraps`` as the current OpenVINO's wrap."""
    return [wrapped(builder, key, target, f"{layer.name}/convert{i}") if key in wraps else
            output_of(builder.convert(key, target, f"{layer.name}/convert{i}"))
            for i, key in enumerate(keys)]


#: Significand bits of each real type (the integer magnitudes it holds exactly).
_SIGNIFICAND = {"f8e5m2": 3, "f8e4m3": 4, "bf16": 8, "f16": 11, "f32": 24, "f64": 53}


def _holds(source: str, target: str) -> bool:
    """Whether ``target`` holds every value of ``source`` (so no release's Convert can differ)."""
    if source in (target, "boolean"):
        return True
    if target in REAL_TYPES:
        if source in REAL_TYPES:  # widening: a larger significand and range
            return _SIGNIFICAND[source] <= _SIGNIFICAND[target] and _bits(source) < _bits(target)
        return _bits(source) - is_signed(source) <= _SIGNIFICAND[target]
    if source in REAL_TYPES or target == "boolean" or (is_signed(source) and not is_signed(target)):
        return False
    return _bits(source) + (is_signed(target) and not is_signed(source)) <= _bits(target)


def _rank(inferred: TensorType | None) -> int | None:
    """The rank our rules inferred (None: dynamic, or no type inferred: the promotion is then left)."""
    return None if inferred is None or inferred.shape is None else len(inferred.shape)


def _bits(t: str) -> int:
    return ELEMENT_TYPES[t].bits  # (one ConvertPromoteTypes takes)
