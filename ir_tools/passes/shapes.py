"""Shape propagation: re-infer every port we model and compare with the declared dims.

Rules:
1. Layers are visited in topological order; a modelled op takes its inputs' *inferred*
   types (as OpenVINO does: it ignores declared dims), an unknown op its declared ones.
2. An op that rejects its inputs reports E-OP (or E-ATTR for unreadable attributes) and
   falls back to its declared output dims so the walk goes on.
3. Every output port whose declared dims contradict the inferred ones, or whose precision differs, gets
   E-SHAPE / E-TYPE: a declared length must lie within its inferred interval (a static one inside refines it,
   as OpenVINO's IR v10 serializer wrote intervals), -1 stands for a dim not static, and a dynamic rank
   holds any dims.
4. Ops with no shape rule (unknown ones, and modelled ones that have only a kernel so far) keep
   their declared dims and are counted as "not re-inferred", never silently skipped; so does a
   layer whose rule answers None (a case it cannot match with OpenVINO, say Broadcast pdpd), and a
   layer with a value input (a target shape, axes, pads...) we can neither compute nor bound unless OpenVINO cannot
   either: OpenVINO may know more of such a value than we do (symbols, bounds through an op we do not bound) and
   infer more. A value OpenVINO can neither compute nor bound (``opaque``: a
   Parameter's, one computed from a Parameter's data or from the output of a decompression layer or of an op OpenVINO
   has no evaluate() for, and an unfed port's) is given to the rule as None. ``adopt`` later checks the layers not
   re-inferred against OpenVINO's own inference.
5. A value input is known when it comes from a Const, a ShapeOf of a fully static shape, or a layer whose op has a
   kernel and whose inputs are all known (a Convert of a Const, ShapeOf -> Gather -> Concat...), as long as every
   tensor on the way has at most ``MAX_VALUE_ELEMENTS`` elements; each port's value is computed once. Not through a
   decompression layer of IR v11 (``_decompression``: ``ov.save_model``'s fp16 compression marks so the Convert after
   each compressed Const), whose output OpenVINO 2024.0 and later neither fold nor bound (docs/SEMANTICS.md section
   1), nor through a layer whose op OpenVINO has no evaluate() for, or one that does not take its inputs' element
   types (``OpSpec.evaluates``: never for Inverse-14, Convolution, the pooling, the FFTs and 97 other op versions;
   Abs not on f64, i8, i16, u8, u16, Gather on i32 and i64 indices alone...; measured by
   tests/passes/test_unevaluated_ops.py), whose output it neither folds nor bounds either (``_unfolded``, on the
   inputs' inferred types). A value we cannot compute OpenVINO may bound (``ShapeWalker.bounds``, ops/bounds.py): a
   ShapeOf of a shape not static by its dims' intervals, and an op with a bound rule (``OpSpec.bounds``: the movement
   ops, the arithmetic on shapes, the reductions) from its inputs'. A value of equal bounds is known (OpenVINO reads
   it as a constant), and a rule that ``reads_bounds`` (Broadcast, Reshape, Range-4, Slice, StridedSlice, Pad,
   VariadicSplit, Tile, Interpolate) is given the bounds of another, as OpenVINO's reads them. A value OpenVINO has
   no bounds of (``NO_BOUNDS``: through Floor of one not exact) is unknown to it, as a Parameter's data is; of such a
   value, a rule that ``reads_concat`` (Broadcast) is given what OpenVINO reads of the Concat making it
   (``ShapeWalker.concat_read``).
6. A TensorIterator, Loop or If re-infers its bodies (ir/bodies.py makes each a Graph) by a walk of their own, their
   Parameters given the shapes the layer feeds them (ops/control_flow.py says which); what that walk finds inside
   (E-SHAPE, E-OP...) is reported at the layer, naming the body layer ``LAYER/BODY/INNER``; a body layer this walk
   cannot re-infer leaves the layer not re-inferred (rule 4). Its trip count or condition, where computed from a
   Parameter's data with no ShapeOf upstream, is unknown to OpenVINO as to us (neither a constant nor bounded). What
   each body's last re-inference found (a Loop's body inferred again with its merged Parameters relaxed: the last)
   is kept (``Propagation.bodies``), and ``fix_dims`` writes it into the body as into the model (``_fix_bodies``).
   OpenVINO's reader also builds each body from its Parameters' declared shapes and validates it before the layer
   feeds it, and refuses the file where a body layer refuses them: so a body whose layer feeds a Parameter another
   shape than it declares is walked once more, as declared, its port dims not compared (``_ShapeBody.as_declared``:
   once per body, nested ones too); what its layers refuse there is reported at the body layer as above, saying so,
   unless the walk as fed reports at that body layer (docs/SEMANTICS.md section 8b).
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..base.diagnostics import Diagnostic
from ..base.dims import Shape, declared_within, format_shape, shape_from_ints, shape_to_ints, show, show_shape
from ..base.dtypes import element_type
from ..base.errors import IrToolsError
from ..ir.bodies import Subgraph, fresh_subgraphs, located, subgraphs, with_bodies
from ..ir.model import Graph, Layer, Port, PortRecord, RtNode
from ..ir.reader import graph_of
from ..ir.walker import PortKey, Walker
from ..ops import attrs as A
from ..ops.bounds import NO_BOUNDS, Bounds, NoBounds
from ..ops.control_flow import UNKNOWN_TO_US, Bodies, BodyValue
from ..ops.core import CONST_1
from ..ops.intervals import INF
from ..ops.opsets import lookup
from ..ops.spec import OpSpec, TensorType

#: The largest value (in elements) computed for a value input (rule 5).
MAX_VALUE_ELEMENTS = 1024
#: What a kernel may raise on values it refuses; the layer's own rule then reports the problem.
_UNKNOWN = object()  # no answer remembered yet
_KERNEL_ERRORS = (IrToolsError, ArithmeticError, IndexError, KeyError, MemoryError, TypeError, ValueError)


@dataclass
class Propagation:
    types: dict[PortKey, TensorType] = field(default_factory=dict)  # inferred, per output port
    diagnostics: list[Diagnostic] = field(default_factory=list)
    inferred: set[str] = field(default_factory=set)  # ids of the layers re-inferred by our own rules
    not_inferred: list[Layer] = field(default_factory=list)  # layers whose declared dims were trusted
    by_openvino: list[Layer] = field(default_factory=list)  # of those, the ones OpenVINO's inference then checked
    openvino: dict[PortKey, TensorType] | None = None  # OpenVINO's inference ``adopt`` was given (None: not asked)
    revision: int = 0  # how many ``Graph.changes`` the graph had when it was propagated
    walked: set[str] | None = None  # continued from an earlier propagation: the ids of the layers walked again
    # a TensorIterator, Loop or If this walk ran (by id) -> its bodies' last re-inference, by position (rule 6)
    bodies: dict[str, dict[int, Propagation]] = field(default_factory=dict)
    # of a body's: the shapes its layer fed its Parameters (by id) where their ``shape`` attribute gives another
    fed: dict[str, Shape] = field(default_factory=dict)


#: The element types of the values whose bounds are modelled (a boolean one as 0 and 1: Select's condition; an f32
#: one as float32, ops/bounds.py), and their numpy types.
_BOUNDED_TYPES: dict[str | None, type] = {"i32": np.int32, "i64": np.int64, "boolean": np.bool_, "f32": np.float32}


def _bound_rule(layer: Layer, spec: OpSpec, inputs: list[Bounds], elements: list[str | None],
                ) -> list[Bounds] | NoBounds | None:
    """An op's bounds from its inputs' (``elements``: their element types): its bound rule's, else, its inputs all
    exact, its kernel's values on them (OpenVINO evaluates such an op, ``default_lower_bound_evaluator``: a Convert of
    a boolean, a Broadcast of a shape's dims); None where the layer refuses them (its own rule reports it), and where
    an input is f32 and its bound rule was not measured on such (``OpSpec.float_bounds``)."""
    if spec.bounds is not None and not spec.float_bounds and "f32" in elements:
        return None
    try:
        attrs = A.decode(spec.attrs, layer.attrs)
        if spec.bounds is not None:
            return spec.bounds(attrs, inputs)
        args = [b.lo.astype(_BOUNDED_TYPES[e]) for b, e in zip(inputs, elements, strict=True)]
        return [Bounds.of(v) for v in spec.compute(attrs, args, folded=True)]
    except _KERNEL_ERRORS:
        return None


def declared_type(port: Port) -> TensorType:
    return declared_type_of(port.precision, port.dims)


@lru_cache(maxsize=1024)  # a model has few distinct port types; the result is immutable, so shared
def declared_type_of(precision: str | None, dims: tuple[int, ...] | None) -> TensorType:
    """The type a port declaring ``precision`` and ``dims`` stands for."""
    et = element_type(precision or "")
    return TensorType(et.name if et else None, shape_from_ints(dims))


class Memo:
    """What a walk remembers of rules' answers, keyed by everything an answer depends on (so it cannot go stale): kept
    per graph (``memo``) for as long as the graph lives, so that the walks after a pass (its re-inference of every
    port, a later gate) cost a look-up for every layer like one met before. The keys hold the identities of interned
    types, which the memo keeps alive."""

    def __init__(self) -> None:
        self.interned: dict[TensorType, TensorType] = {}  # every type handed out, by value
        self.declared: dict[tuple[str | None, tuple[int, ...] | None], TensorType] = {}  # (precision, dims) -> type
        # (spec id, raw attributes, input type ids, outputs declared, input ports or the values read), or a Const's
        # (element type, shape) texts (const_kind) -> the rule's interned answer
        self.answers: dict[tuple, tuple[TensorType, ...] | None] = {}
        self.const_values: dict[tuple[tuple[str, str], ...], np.ndarray] = {}  # a read Const's attributes -> value
        # (type, version, raw attributes, input type ids, Layer.declared_outputs) of a layer without value inputs whose
        # rule's answer agreed with every declared output, or (type, version, const_kind, Layer.declared_outputs) of
        # such a Const -> that answer (padded with the declared types past it)
        self.clean: dict[tuple, tuple[TensorType, ...]] = {}
        # (precision, dims, id of an interned inferred type) -> whether a port declaring them agrees with it
        self.agreeing: dict[tuple[str | None, tuple[int, ...] | None, int], bool] = {}
        self.small: dict[int, tuple[TensorType, bool]] = {}  # id of a type -> (that type, ``_small`` of it)
        # (spec id, raw attributes, each input's bounds as bytes) -> the bound rule's answer (``ShapeWalker._bound``): a
        # model's shape subgraphs repeat, and each walk after a pass meets them again
        self.bound_answers: dict[tuple, list[Bounds] | NoBounds | None] = {}
        # a body's: what its layers refuse of its Parameters' declared shapes (``_ShapeBody.as_declared``)
        self.as_declared: list[Diagnostic] | None = None


_MEMOS: weakref.WeakKeyDictionary[Graph, Memo] = weakref.WeakKeyDictionary()


def memo(graph: Graph) -> Memo:
    """The memo of ``graph``'s walks (a read Const's value depends on the graph's weights: one memo per graph)."""
    found = _MEMOS.get(graph)
    if found is None:
        found = _MEMOS[graph] = Memo()
    return found


class ShapeWalker(Walker[TensorType]):
    """Shape propagation as a walk: a layer's values are its output types (rules 1-5).

    Built for large models, where the same few layers repeat thousands of times: every type it hands
    out is interned (one object per distinct type), so a rule's answer is remembered by its spec, raw
    attributes, the identities of its input types and the constant values it reads, and a layer like
    one seen before costs a dict look-up (a layer without inputs, each a Const of its own, is asked
    afresh); what it remembers is the graph's ``Memo``, shared by every walk of the graph. It reads
    ports as records (``Layer.output_records``) and makes Port objects only for a port it reports on,
    so it leaves few objects for the cyclic GC.
    """

    #: Whether the declared dims of output ports are compared with the inferred ones (rule 3); a body's walk from its
    #: declared Parameter shapes compares none (rule 6): OpenVINO ignores them, and the walk it writes is the fed one.
    compares = True

    def __init__(self, graph: Graph):
        super().__init__(graph)
        self.result = Propagation()
        self.values: dict[PortKey, np.ndarray | None] = {}  # computed values of output ports (rule 5)
        self.bounded: dict[PortKey, Bounds | NoBounds | None] = {}  # OpenVINO's bounds of ports' values (``bounds``)
        self.opaque_layers: dict[str, bool] = {}  # layer id -> whether OpenVINO cannot bound its outputs (``opaque``)
        known = memo(graph)
        self.interned, self.declared, self.answers = known.interned, known.declared, known.answers
        self.const_values, self.clean, self.agreeing = known.const_values, known.clean, known.agreeing
        self.small, self.bound_answers = known.small, known.bound_answers

    def intern(self, t: TensorType) -> TensorType:
        return self.interned.setdefault(t, t)

    def declared_type(self, precision: str | None, dims: tuple[int, ...] | None) -> TensorType:
        """The interned type a port declares."""
        t = self.declared.get((precision, dims))
        if t is None:
            t = self.declared[(precision, dims)] = self.intern(declared_type_of(precision, dims))
        return t

    def agrees(self, record: PortRecord, inferred: TensorType) -> bool:
        """True if an output port declaring ``record``'s precision and dims agrees with ``inferred`` (declared dims
        within it, as a dynamic model declares -1 for a dim inferred at least 1)."""
        key = (record[1], record[2], id(inferred))
        found = self.agreeing.get(key)
        if found is None:
            found = self.agreeing[key] = _contradicts(record[1], record[2], inferred) == (False, False)
        return found

    def missing(self, layer: Layer, port: Port) -> TensorType:
        # an unfed port (E-INPUT-UNFED): its declared type keeps the walk going
        return self.declared_type(port.precision, port.dims)

    def run_node(self, layer: Layer, args: list[TensorType]) -> list[TensorType]:
        # a layer whose op, attributes, input types and declared outputs are those of one whose rule answered and
        # agreed with its declared outputs before: the same answer, nothing to report (see ``clean``); a Const by its
        # element type and shape alone where its offset and size are surely valid (``const_kind``: a model's Consts
        # repeat a few), a Parameter never; only the answer of a rule without value inputs is remembered so, and only
        # such a layer is looked up
        key = items = arg_ids = const = None
        op_type = layer.type
        spec = lookup(op_type, layer.version)
        clean = spec is not None and spec.infer is not None and not spec.value_inputs
        if args and not layer.children:  # (a layer with a body: its answer depends on the body too)
            items, arg_ids = tuple(layer.attrs.items()), tuple(map(id, args))
            if clean:
                key = (op_type, layer.version, items, arg_ids, layer.declared_outputs())
        elif op_type == "Const" and not layer.children and clean:
            const = const_kind(layer.attrs)
            if const is not None:
                key = (op_type, layer.version, const, layer.declared_outputs())
        if key is not None:
            outputs = self.clean.get(key)
            if outputs is not None:
                self.result.inferred.add(layer.id)
                return list(outputs)
        records = layer.output_records()
        outputs = None
        if spec is not None and spec.infer is not None:
            try:
                outputs = self.infer(layer, spec, args, len(records), items, const, arg_ids)
            except IrToolsError as exc:
                loc = exc.loc if exc.loc.layer_id else layer.loc  # e.g. a broken Const feeding this layer
                self.result.diagnostics.append(Diagnostic("error", exc.code, exc.message, loc))
                return [self.declared_type(r[1], r[2]) for r in records]
        if outputs is None:  # no rule, or rule 4: OpenVINO's inference of it is adopted later
            self.result.not_inferred.append(layer)
            # (a port declared without dims is a scalar or a dynamic rank: OpenVINO's serializer writes both so)
            return [self.declared_type(r[1], r[2] or None) for r in records]
        self.result.inferred.add(layer.id)
        clean = key is not None and self.compares
        for record, inferred in zip(records, outputs, strict=False) if self.compares else ():
            # the same interned type, or one the declared dims and precision are known to agree with: nothing to report
            if self.declared_type(record[1], record[2]) is not inferred and not self.agrees(record, inferred) and \
                    not _kept_compressed(layer, record, args, inferred):
                _check(self.result, layer, record[0], record[1], record[2], record[6], inferred, "inferred")
                clean = False
        if len(outputs) < len(records):
            outputs = (*outputs, *(self.declared_type(r[1], r[2]) for r in records[len(outputs):]))
        if clean:
            self.clean[key] = outputs
        return list(outputs)

    def infer(self, layer: Layer, spec: OpSpec, inputs: list[TensorType], n_outputs: int,
              items: tuple[tuple[str, str], ...] | None, const: tuple[str, str] | None = None,
              arg_ids: tuple[int, ...] | None = None) -> tuple[TensorType, ...] | None:
        """The layer's output types by its rule (``items``: its raw attributes, ``const``: its ``const_kind``,
        ``arg_ids``: the identities of ``inputs``, if ``run_node`` has them); None when we cannot match OpenVINO
        (rule 4)."""
        if spec.bodies:  # (its answer depends on its bodies: not remembered)
            check_arity(layer, spec, len(inputs), n_outputs)
            values = self.body_values(layer, spec)
            if values is None:  # (not re-inferred; its bodies and port maps are still read, and refused as OpenVINO
                subgraphs(self.graph, layer)  # refuses them)
                return None
            return self.answer(layer, spec, inputs, values, n_outputs)
        attrs = None
        if spec.value_inputs:
            check_arity(layer, spec, len(inputs), n_outputs)
            attrs = A.decode(spec.attrs, layer.attrs)  # a bad attribute is reported before a value that is not known
            values = self.input_values(layer, spec)
            if values is None:
                return None
            known = tuple([None if v is None else (v.lo.shape, v.lo.tobytes(), v.hi.tobytes()) if isinstance(v, Bounds)
                           else (v.dtype.str, v.shape, v.tobytes()) for v in values])
        elif spec.n_inputs[1] == 0:
            # a Const, a Parameter: the attributes of each (a Const's offset) are its own, so remembering its answer
            # would only keep the key alive; but a Const's type is its element type and shape, once its offset and
            # size are surely valid
            check_arity(layer, spec, len(inputs), n_outputs)
            const = (const or const_kind(layer.attrs)) if spec is CONST_1 else None
            if const is None:
                return self.answer(layer, spec, inputs, (None,) * len(layer.input_ids()), n_outputs)
            outputs = self.answers.get(const, _UNKNOWN)
            if outputs is _UNKNOWN:
                outputs = self.answers[const] = self.answer(layer, spec, inputs, (), n_outputs)
            return outputs
        else:  # (a remembered answer had its arity checked: the key holds the numbers of inputs and outputs)
            values, known = None, len(layer.input_ids())
        memo = (id(spec), tuple(layer.attrs.items()) if items is None else items,
                tuple(map(id, inputs)) if arg_ids is None else arg_ids, n_outputs, known)
        outputs = self.answers.get(memo, _UNKNOWN)
        if outputs is _UNKNOWN:
            if values is None:
                check_arity(layer, spec, len(inputs), n_outputs)
                values = (None,) * known  # one per input port, also those the walker dropped
            outputs = self.answers[memo] = self.answer(layer, spec, inputs, values, n_outputs, attrs)
        return outputs

    def answer(self, layer: Layer, spec: OpSpec, inputs: list[TensorType], values: Sequence[np.ndarray | None],
               n_outputs: int, attrs: object = None) -> tuple[TensorType, ...] | None:
        """What the rule says, its types interned (``attrs``: the layer's decoded attributes, if decoded already)."""
        if attrs is None:
            attrs = self.bind(layer) if spec.bodies else A.decode(spec.attrs, layer.attrs)
        outputs = spec.infer(attrs, inputs, values)  # located by run_node, should it fail
        if outputs is None:
            return None
        if spec.n_outputs < 0 and len(outputs) != n_outputs:
            raise IrToolsError(f"{spec.label} has {len(outputs)} outputs here, the layer declares {n_outputs}",
                               layer.loc, "E-ARITY")
        interned = self.interned.setdefault  # (``intern`` inlined: every answer's types pass here)
        return tuple([interned(t, t) for t in outputs])

    def bind(self, layer: Layer) -> Bodies:
        """A TensorIterator's, Loop's or If's port maps and bodies, each re-inferred by a walk of its own (rule 6)."""
        subs = subgraphs(self.graph, layer)
        return Bodies(tuple(s.port_map for s in subs), tuple(_ShapeBody(s, self, layer, i) for i, s in enumerate(subs)))

    def body_values(self, layer: Layer, spec: OpSpec) -> _BodyInputs | None:
        """``input_values`` for a TensorIterator, Loop or If (rule 6): a trip count or condition computed from a
        Parameter's data, with no ShapeOf upstream, is unknown to OpenVINO too (no constant, no bounds), so given as
        None; another we cannot compute leaves the layer not re-inferred (rule 4). Any other input's value is read
        when the rule asks for it (Loop's, for the input feeding its body condition), ``UNKNOWN_TO_US`` where
        OpenVINO may know it and we cannot compute it."""
        values = _BodyInputs(self, layer)
        for i in spec.value_inputs:
            if i < len(values) and values[i] is UNKNOWN_TO_US:
                return None
        return values

    def known_to_openvino(self, key: PortKey | None) -> np.ndarray | object | None:
        """The value of an output port (rule 5), None where OpenVINO cannot know it either (``opaque``, an unfed port,
        a value it has no bounds of, or one whose bounds are not equal: a body's owner reads constants alone,
        ``get_constant_from_source``), else ``UNKNOWN_TO_US``."""
        value = None if key is None else self.value(key)
        if value is None and key is not None and not self.opaque(key):
            found = self.bounded_value(key)
            return UNKNOWN_TO_US if found is None else None if isinstance(found, (Bounds, NoBounds)) else found
        return value

    def input_values(self, layer: Layer, spec: OpSpec) -> list[np.ndarray | Bounds | None] | None:
        """The values a rule reads, one per input port (None elsewhere, and for one OpenVINO cannot know either:
        ``opaque``, an unfed port's, or one it has no bounds of); one we cannot compute OpenVINO bounds (``bounds``):
        of equal bounds, its constant, else its Bounds for a rule that ``reads_bounds``; None when one is not known to
        us otherwise (rule 4). One OpenVINO cannot know, a rule that ``reads_concat`` is given as ``concat_read``."""
        values: list[np.ndarray | Bounds | None] = []
        for i, key in enumerate(self.input_keys(layer)):
            value: np.ndarray | Bounds | None = None
            if i in spec.value_inputs:
                value = None if key is None else self.value(key)
                if value is None and not (key is None or self.opaque(key)):
                    found = self.bounded_value(key)
                    if found is None or isinstance(found, Bounds) and not spec.reads_bounds:
                        return None  # OpenVINO may know more of the value than we do (rule 4)
                    value = None if isinstance(found, NoBounds) else found
                if value is None and key is not None and spec.reads_concat:
                    value = self.concat_read(key)
            values.append(value)
        return values

    def concat_read(self, key: PortKey) -> Bounds | None:
        """A value OpenVINO cannot know, as its Broadcast reads a target so (``OpSpec.reads_concat``): of a Concat of
        static length with one input per element, each Const input's element exact and any other's unbounded; None
        otherwise, or where a Const input has not one element (OpenVINO would read past it)."""
        layer, t = self.graph.layer(key[0]), self.env.get(key)
        if not layer.is_a("Concat") or t is None or t.shape is None or len(t.shape) != 1 or not t.shape[0].is_static:
            return None
        sources = self.input_keys(layer)
        if len(sources) != t.shape[0].lo:
            return None
        lo, hi = [], []
        for source in sources:
            producer = None if source is None else self.graph.layer(source[0])
            if producer is not None and producer.is_a("Const"):
                try:
                    element = self.graph.const_array(producer).reshape(-1)
                except IrToolsError:
                    return None  # (the Const's own rule reports it)
                if element.size != 1:
                    return None
                lo.append(int(element[0]))
                hi.append(lo[-1])
            else:
                lo.append(0)
                hi.append(INF)
        return Bounds(np.array(lo, np.int64), np.array(hi, np.int64))

    def bounded_value(self, key: PortKey) -> np.ndarray | Bounds | NoBounds | None:
        """What OpenVINO knows of a value we cannot compute (``bounds``): of equal bounds, the constant it reads
        (``get_constant_from_source``), in the port's type (i32, i64, boolean or f32); else its bounds, or
        ``NO_BOUNDS``; None where we do not know them."""
        found = self.bounds(key)
        if found is None or isinstance(found, NoBounds) or not found.exact:
            return found
        return np.asarray(found.lo).astype(_BOUNDED_TYPES.get(getattr(self.env.get(key), "element", None), np.int64))

    def bounds(self, key: PortKey) -> Bounds | NoBounds | None:
        """OpenVINO's bounds of an output port's value (ops.bounds): a known value's own, a ShapeOf's its input's dims,
        an op's with a bound rule (``OpSpec.bounds``) from its inputs'; ``NO_BOUNDS`` where its rule says OpenVINO
        evaluates none, or an input has none; None where OpenVINO bounds none for another reason (``opaque``), and
        where we do not know its bounds (an op without a rule, a value not of i32, i64, boolean or f32). Each port once,
        its producers first, without recursion."""
        found = self.bounded.get(key, _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        todo = [key]
        while todo:
            top = todo[-1]
            if top in self.bounded:
                todo.pop()
                continue
            layer = self.graph.layer(top[0])
            sources = self.input_keys(layer)
            spec = lookup(layer.type, layer.version)
            if spec is not None and (spec.bounds is not None or self._computable(layer)) and \
                    self.value(top) is None and not self.opaque(top) and \
                    getattr(self.env.get(top), "element", None) in _BOUNDED_TYPES:
                waiting = [s for s in sources if s is not None and s not in self.bounded]
                if waiting:
                    todo.extend(waiting)
                    continue
            todo.pop()
            self.bounded[top] = self._bound(layer, top, sources, spec)
        return self.bounded[key]

    def _bound(self, layer: Layer, key: PortKey, sources: list[PortKey | None], spec: OpSpec | None,
               ) -> Bounds | NoBounds | None:
        """``bounds`` of ``key``, its producers' found."""
        t = self.env.get(key)
        if t is None or t.element not in _BOUNDED_TYPES:
            return None
        value = self.value(key)
        if value is not None:
            return Bounds.of(value)
        if self.opaque(key) or spec is None:
            return None
        if layer.is_a("ShapeOf"):
            shape = self.env.get(sources[0]) if sources and sources[0] is not None else None
            if shape is None or shape.shape is None:
                return None
            return Bounds(np.array([d.lo for d in shape.shape], np.int64),
                          np.array([INF if d.hi is None else d.hi for d in shape.shape], np.int64))
        inputs = [None if s is None else self.bounded.get(s) for s in sources]
        if spec.bounds is not None and any(isinstance(b, NoBounds) for b in inputs):
            return NO_BOUNDS  # (OpenVINO's evaluation of the layer fails with its input's)
        known = [b for b in inputs if isinstance(b, Bounds)]
        if len(known) < len(inputs) or spec.bounds is None and not (
                self._computable(layer) and all(b.exact for b in known)):
            return None
        elements = [self.env[s].element for s in sources if s is not None]
        memo = (id(spec), tuple(layer.attrs.items()),
                *((e, b.lo.shape, b.lo.tobytes(), b.hi.tobytes()) for e, b in zip(elements, known, strict=True)))
        found = self.bound_answers.get(memo, _UNKNOWN)
        if found is _UNKNOWN:
            found = self.bound_answers[memo] = _bound_rule(layer, spec, known, elements)
        if found is None or isinstance(found, NoBounds):
            return found
        outputs = layer.output_ids()
        index = outputs.index(key[1]) if key[1] in outputs else len(found)
        return None if index >= len(found) else found[index]

    def input_keys(self, layer: Layer) -> list[PortKey | None]:
        """``Graph.input_keys`` of ``layer``'s input ports: as its run found them (``Walker.sources``), else (a layer a
        continued walk does not run) found now."""
        found = self.sources.get(layer.id)
        return self.graph.input_keys(layer.id, layer.input_ids()) if found is None else found

    def opaque(self, key: PortKey) -> bool:
        """Whether OpenVINO can neither compute nor bound the value of an output port: its bound evaluation
        (``could_propagate``, src/core/src/bound_evaluate.cpp) walks up from the port, not past a ShapeOf, and gives
        up at a layer without inputs other than a Const (a Parameter) or at a decompression layer (``_decompression``;
        a ShapeOf or a Const so marked too). Then it has no value, no bounds and no symbols of it: a rule reads such
        a value as None. Each layer's answer is found once, without recursion."""
        graph, found = self.graph, self.opaque_layers
        todo = [key[0]]
        while todo:
            lid = todo[-1]
            if lid in found:
                todo.pop()
                continue
            layer = graph.layer(lid)
            sources = self.input_keys(layer)
            if _unfolded(self, layer):
                found[lid] = True
            elif not sources:
                found[lid] = not layer.is_a("Const")
            elif layer.is_a("ShapeOf"):
                found[lid] = False
            else:
                waiting = [s[0] for s in sources if s is not None and s[0] not in found]
                if waiting:
                    todo.extend(waiting)
                    continue
                found[lid] = any(s is None or found[s[0]] for s in sources)
            todo.pop()
        return found[key[0]]

    def value(self, key: PortKey) -> np.ndarray | None:
        """The value of an output port (rule 5), computed once; its producers first, without recursion."""
        found = self.values.get(key, _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        layer = self.graph.layer(key[0])
        if not layer.input_ids():  # (a Const, most often: no producer to compute first)
            self._compute(layer, key, [])
            return self.values.setdefault(key, None)
        todo: list[tuple[PortKey, list[PortKey | None] | None]] = [(key, None)]  # (port, its layer's sources once read)
        while todo:
            top, sources = todo[-1]
            if top in self.values:
                todo.pop()
                continue
            layer = self.graph.layer(top[0])
            if sources is None:  # (a layer met again once its producers are computed: they are, none waits)
                sources = self.input_keys(layer)
                waiting = [s for s in sources if s is not None and s not in self.values]
                if waiting and self._computable(layer):
                    todo[-1] = (top, sources)
                    todo.extend((s, None) for s in waiting)
                    continue
            todo.pop()
            self._compute(layer, top, sources)
            self.values.setdefault(top, None)  # an edge from a port the layer lacks (E-EDGE-PORT)
        return self.values[key]

    def _small(self, key: PortKey) -> bool:
        return self.small_type(self.env.get(key))

    def small_type(self, t: TensorType | None) -> bool:
        """``_small`` of ``t``, remembered by its identity (a walk's types are interned: a few distinct ones)."""
        if t is None:
            return False
        found = self.small.get(id(t))
        if found is None or found[0] is not t:
            found = self.small[id(t)] = (t, _small(t))
        return found[1]

    def spreads(self, key: PortKey, before: TensorType | None, now: TensorType) -> bool:
        # another type, or a value a consumer may read (rule 5): the same type may hold another value. Every type of a
        # walk and of the propagation it continues is interned by the graph's memo, so equal types are one object
        return before is not now or self.small_type(now)

    def continue_from(self, since: Propagation) -> Propagation:
        """``propagate`` from ``since``, a propagation of the graph before its latest changes: the layers changed
        since are walked, then each consumer of an output that ``spreads``; the others keep what ``since`` found."""
        graph = self.graph
        changed = set(graph.changes[since.revision:])
        walked = {lid for lid in changed if graph.has_layer(lid)}
        # what each output port still there had: a layer changed whose outputs come out as before changes nothing more
        outputs = {lid: set(graph.layer(lid).output_ids()) for lid in walked}
        kept = {key: t for key, t in since.types.items() if key[0] not in changed or key[1] in outputs.get(key[0], ())}
        self.run(kept, walked)
        gone = changed | walked
        result = self.result
        result.types, result.walked = self.env, walked
        result.diagnostics = [d for d in since.diagnostics if d.loc.layer_id not in gone] + result.diagnostics
        result.inferred |= since.inferred - gone
        trusted = {layer.id for layer in since.not_inferred if layer.id not in gone}
        trusted.update(layer.id for layer in result.not_inferred)
        result.not_inferred = [layer for layer in self.order if layer.id in trusted]
        result.bodies = {owner: found for owner, found in since.bodies.items() if owner not in gone} | result.bodies
        return result

    def _computable(self, layer: Layer) -> bool:
        """Worth computing the producers of: a small output of a layer with a kernel (and no body: a TensorIterator's,
        Loop's or If's value is OpenVINO's to fold, not a shape walk's)."""
        if layer.is_a("Const") or layer.is_a("Parameter") or layer.is_a("ShapeOf") or _unfolded(self, layer):
            return False
        spec = lookup(layer.type, layer.version)
        return spec is not None and spec.kernel is not None and not spec.bodies and all(
            self._small((layer.id, pid)) for pid in layer.output_ids())

    def _compute(self, layer: Layer, key: PortKey, sources: list[PortKey | None]) -> None:
        """Store the values of ``layer``'s outputs (None where unknown); its producers' are stored already."""
        keys = [(layer.id, pid) for pid in layer.output_ids()]
        self.values.update(dict.fromkeys(keys))
        if _unfolded(self, layer):  # (rule 5: OpenVINO neither folds nor bounds its output)
            return
        if layer.is_a("Const"):
            if self._small(key):
                if layer.data is not None:
                    self.values[key] = self.graph.const_array(layer)  # a broken payload raises: run_node reports it
                    return
                # Consts alike read the same bytes of the .bin (OpenVINO writes a repeated constant once): one
                # read-only array serves them all
                attrs = tuple(layer.attrs.items())
                value = self.const_values.get(attrs)
                if value is None:
                    value = self.const_values[attrs] = self.graph.const_array(layer)
                self.values[key] = value
            return
        if layer.is_a("ShapeOf"):
            spec = lookup(layer.type, layer.version)
            t = self.env.get(sources[0]) if sources and sources[0] is not None else None
            if spec is None or t is None or t.shape is None or not all(d.is_static for d in t.shape):
                return
            try:
                et = getattr(A.decode(spec.attrs, layer.attrs), "output_type", "i64")
            except IrToolsError:
                return
            if et in ("i32", "i64"):
                self.values[key] = np.array([d.lo for d in t.shape], np.int32 if et == "i32" else np.int64)
            return
        args = [None if s is None else self.values.get(s) for s in sources]
        if any(a is None for a in args) or not self._computable(layer):  # (an input not known: the most often)
            return
        spec = lookup(layer.type, layer.version)
        try:
            results = spec.compute(A.decode(spec.attrs, layer.attrs), args, folded=True)  # (known to OpenVINO)
        except _KERNEL_ERRORS:
            return  # the layer's own rule reports what is wrong with it
        for k, v in zip(keys, results, strict=False):
            self.values[k] = np.asarray(v)


def _small(t: TensorType | None) -> bool:
    """Whether a tensor of type ``t`` may have its value computed (rule 5): static, at most ``MAX_VALUE_ELEMENTS``."""
    if t is None or t.shape is None or not all(d.is_static for d in t.shape):
        return False
    return math.prod([d.lo for d in t.shape]) <= MAX_VALUE_ELEMENTS


class _BodyInputs(Sequence):
    """The input values of a TensorIterator, Loop or If as its rule reads them, each found on first use
    (``ShapeWalker.known_to_openvino``)."""

    def __init__(self, walker: ShapeWalker, layer: Layer):
        self.walker = walker
        self.keys = [walker.graph.producer_key(layer.id, pid) for pid in layer.input_ids()]
        self.found: dict[int, np.ndarray | object | None] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def __getitem__(self, i: int) -> np.ndarray | object | None:  # type: ignore[override]
        if i not in self.found:
            self.found[i] = self.walker.known_to_openvino(self.keys[i])
        return self.found[i]


class _BodyWalker(ShapeWalker):
    """A body's shape walk, its Parameters given the shapes their layer feeds them (their element types their own);
    ``compares``: as ``ShapeWalker``'s (a walk inside a body walked as declared compares no port either)."""

    def __init__(self, graph: Graph, fed: dict[str, Shape], compares: bool = True):
        super().__init__(graph)
        self.fed, self.compares = fed, compares

    def run_node(self, layer: Layer, args: list[TensorType]) -> list[TensorType]:
        found = super().run_node(layer, args)
        if layer.id in self.fed and layer.is_a("Parameter"):
            shape = self.fed[layer.id]
            if found[0].shape != shape:
                self.result.fed[layer.id] = shape
            return [self.intern(TensorType(found[0].element, shape))]
        return found


class _ShapeBody:
    """One body of a layer, re-inferred on demand (``ops.control_flow.ShapeBody``); its findings, located inside the
    layer (``LAYER/BODY/INNER``), join the outer walk's, those of its last re-inference only, with what the body as
    declared is refused (``as_declared``) at the body layers where that re-inference found nothing."""

    def __init__(self, sub: Subgraph, outer: ShapeWalker, owner: Layer, index: int):
        self.sub, self.outer, self.owner, self.index = sub, outer, owner, index
        self.reported: list[Diagnostic] = []

    def infer(self, shapes: dict[int, Shape]) -> list[BodyValue] | None:
        sub = self.sub
        walker = _BodyWalker(sub.graph, {sub.parameters[i].id: shape for i, shape in shapes.items()},
                             self.outer.compares)
        walker.run()
        walker.result.types = walker.env
        self.outer.result.bodies.setdefault(self.owner.id, {})[self.index] = walker.result  # (the last, rule 6)
        found = [self.located(d) for d in walker.result.diagnostics]
        if walker.result.fed:  # (else the walk was of the body as declared)
            seen = {d.loc.layer_name for d in found}
            found += [d for d in self.as_declared(walker) if d.loc.layer_name not in seen]
        diagnostics = self.outer.result.diagnostics
        for d in self.reported:
            if d in diagnostics:
                diagnostics.remove(d)
        diagnostics.extend(found)
        self.reported = found
        if walker.result.not_inferred:
            return None
        positions = {p.id: i for i, p in enumerate(sub.parameters)}
        values = []
        for result in sub.results:
            key = sub.graph.producer_key(result.id, result.input_ids()[0]) if result.input_ids() else None
            if key is None:
                raise IrToolsError(f"Result '{result.name}' of its body has no input", self.owner.loc, "E-OP")
            values.append(BodyValue(walker.env[key], walker.value(key), positions.get(key[0])))
        return values

    def as_declared(self, fed: _BodyWalker) -> list[Diagnostic]:
        """What the body's layers refuse of its Parameters' declared shapes (rule 6): OpenVINO's reader builds each
        body from them and validates it before its layer feeds it, and refuses the file if a layer refuses them,
        whatever the shapes fed (``fed``: the walk of those) give: E-BODY-SHAPE, which ``shapes --fix`` repairs by
        writing the shapes fed (``_fix_bodies``). Walked once per body (kept by its graph's ``Memo``, whichever walk
        of an enclosing body meets it first), each message saying the Parameters as declared and as first fed, the
        layer's inputs so declared and the op's own words; located as ``located``."""
        known = memo(self.sub.graph)
        if known.as_declared is None:
            graph = self.sub.graph
            walker = _BodyWalker(graph, {}, compares=False)
            walker.run()
            declared = {pid: walker.env.get((pid, graph.layer(pid).output_ids()[0])) for pid in fed.result.fed}
            params = "; ".join(f"'{graph.layer(pid).name}' declares {show_shape(t.shape)}, is fed "
                               f"{show_shape(fed.result.fed[pid])}" for pid, t in declared.items() if t is not None)
            found = []
            for d in walker.result.diagnostics:
                layer = graph.layer(d.loc.layer_id) if d.loc.layer_id and graph.has_layer(d.loc.layer_id) else None
                inputs = [] if layer is None or layer.name != d.loc.layer_name else [  # (not a nested body's finding)
                    walker.env.get(k) for k in walker.input_keys(layer)]
                given = ", ".join(show_shape(t.shape) for t in inputs if t is not None)
                message = (f"the body as declared, before the layer feeds it ({params}), is refused"
                           f"{f' (inputs here {given})' if given else ''}: {d.message}")
                found.append(Diagnostic(d.severity, "E-BODY-SHAPE", message, d.loc))
            known.as_declared = found
        return [self.located(d) for d in known.as_declared]

    def located(self, d: Diagnostic) -> Diagnostic:
        """``d`` at the owning layer's line, naming the body layer as ``LAYER/BODY/INNER``."""
        return Diagnostic(d.severity, d.code, d.message, located(self.owner, self.sub.graph, d.loc))


def const_kind(attrs: dict[str, str]) -> tuple[str, str] | None:
    """``(element_type, shape)`` of a read Const whose other attributes are an ``offset`` and a ``size`` that
    are surely valid (up to 18 ASCII digits); None for any other."""
    offset, size = attrs.get("offset"), attrs.get("size")
    if (len(attrs) != 4 or offset is None or size is None or not offset.isdigit() or not size.isdigit()
            or len(offset) > 18 or len(size) > 18 or not offset.isascii() or not size.isascii()):
        return None
    et, shape = attrs.get("element_type"), attrs.get("shape")
    return None if et is None or shape is None else (et, shape)


def check_arity(layer: Layer, spec: OpSpec, n_inputs: int, n_outputs: int | None) -> None:
    """E-ARITY unless ``spec`` takes ``n_inputs`` inputs and has ``n_outputs`` outputs or more (None: not known yet,
    as where the builder makes a layer). OpenVINO's reader gives a layer's declared output ports its op's outputs by
    position and reads a layer that declares fewer, even none (Model Optimizer before 2022 wrote an Assign so: Model
    Server's summator.xml; OpenVINO's own reader tests an ExperimentalDetectronROIFeatureExtractor of one output);
    one more than the op has it refuses ("node index is out of range")."""
    lo, hi = spec.n_inputs
    if not lo <= n_inputs <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise IrToolsError(f"{spec.label} takes {want} inputs, the layer has {n_inputs}", layer.loc, "E-ARITY")
    if n_outputs is not None and 0 <= spec.n_outputs < n_outputs:
        raise IrToolsError(f"{spec.label} has {spec.n_outputs} outputs, the layer declares {n_outputs}",
                           layer.loc, "E-ARITY")


def propagate(graph: Graph, since: Propagation | None = None) -> Propagation:
    """Infer every output port's type; the graph must be acyclic (see checks.E-CYCLE). ``since``: a propagation of
    ``graph`` before its latest ``Graph.changes``, none of its types OpenVINO's (``adopt``), continued rather than
    started again (``ShapeWalker.continue_from``): the same types, diagnostics and layers not re-inferred as a walk of
    the whole graph, for a walk of what changed."""
    walker = ShapeWalker(graph)
    if since is None:
        walker.run()
        walker.result.types = walker.env
    else:
        walker.continue_from(since)
    walker.result.revision = len(graph.changes)
    return walker.result


def adopt(result: Propagation, types: dict[PortKey, TensorType]) -> list[Diagnostic]:
    """Check the layers we have no shape rule for against ``types`` (OpenVINO's own inference of the
    same file): their declared dims are compared (E-SHAPE/E-TYPE) and ``fix_dims`` will write these."""
    start = len(result.diagnostics)
    result.openvino = dict(types)
    trusted = []
    for layer in result.not_inferred:
        found = [types.get((layer.id, port.id)) for port in layer.outputs]
        if not layer.outputs or None in found:
            trusted.append(layer)
            continue
        result.by_openvino.append(layer)
        for port, inferred in zip(layer.outputs, found, strict=True):
            result.types[(layer.id, port.id)] = inferred
            _compare(result, layer, port, inferred, "OpenVINO infers")
    result.not_inferred = trusted
    return result.diagnostics[start:]


def infer_shapes(graph: Graph | str | Path) -> list[Diagnostic]:
    """Public entry: the diagnostics of shape propagation over ``graph`` (or the IR file at a path)."""
    return propagate(graph_of(graph)).diagnostics


#: The most rounds ``fix_until_settled`` takes (two change dims: see there; a third finds nothing to change).
MAX_FIX_ROUNDS = 8


def fix_until_settled(graph: Graph, result: Propagation,
                      ask: Callable[[Graph, Propagation], dict[PortKey, TensorType] | None] | None = None) -> int:
    """``fix_dims`` of ``result``, then of a new propagation (OpenVINO's inference, ``result.openvino``, adopted again
    where ``result`` had it), until it writes nothing: the dims of a layer not re-inferred by our rules (rule 4) are
    OpenVINO's once written, and the layers after it, which a walk infers from those declared dims (rule 1), are
    re-inferred from them in the next round; OpenVINO ignores declared dims, so its inference holds in every round. A
    ``fix_dims`` alone left the ports after an adopted layer stale: ``shapes --fix`` wrote the 7 ports ``check`` found
    on a stateful Llama made static, then found 76 after them. ``ask``: where OpenVINO was not asked for ``result``
    (``check`` asks it only of a file otherwise clean), it is asked once our rules have nothing more to write (it may
    decline: None), and what it infers is adopted as well. Returns how many ports it corrected (once each), those
    inside bodies too (a body Parameter whose shape attribute alone was rewritten: its port)."""
    before = _port_records(graph, result)
    changed_in = 0
    for _ in range(MAX_FIX_ROUNDS):
        if not fix_dims(graph, result):
            if result.openvino is not None or ask is None:
                break
            types = ask(graph, result)
            ask = None
            if not types:
                break
            adopt(result, types)
            continue
        changed_in += 1
        adopted = result.openvino
        result = propagate(graph)
        if adopted is not None:
            adopt(result, adopted)
    corrected = 0
    for key, (inputs, outputs, shape) in _port_records(graph, result).items() if changed_in else ():
        old_inputs, old_outputs, old_shape = before.get(key, ((), (), shape))
        ports = sum(_corrects(old, (record[2], record[1]))
                    for old, record in zip((*old_inputs, *old_outputs), (*inputs, *outputs), strict=False))
        corrected += ports or shape != old_shape
    return corrected


def _port_records(graph: Graph, result: Propagation, scope: tuple[str | int, ...] = (),
                  ) -> dict[tuple, tuple[tuple[PortRecord, ...], tuple[PortRecord, ...], str | None]]:
    """Each layer's input and output port records and its ``shape`` attribute (a body Parameter's may be rewritten)
    by (scope, layer id), with those of the bodies ``result`` re-inferred (nested ones too; scope: each owner's id
    and the body's position): what ``fix_until_settled`` counts corrections over."""
    found = {(scope, layer.id): (layer.input_records(), layer.output_records(), layer.attrs.get("shape"))
             for layer in graph.layers()}
    for owner, bodies in result.bodies.items():
        for i, sub in enumerate(subgraphs(graph, graph.layer(owner))):
            if i in bodies:
                found.update(_port_records(sub.graph, bodies[i], (*scope, owner, i)))
    return found


#: The propagation each graph's declared dims were last found to agree with (``agreed_with``).
_AGREED: weakref.WeakKeyDictionary[Graph, Propagation] = weakref.WeakKeyDictionary()


def agreed_with(graph: Graph, result: Propagation) -> None:
    """Say that ``graph``'s declared dims agree with ``result``'s types, its bodies' with theirs (a check found no
    error, or ``fix_dims`` wrote them): a declared refinement of a port stays only while the port's inferred type is
    still that one."""
    _AGREED[graph] = result


def fix_dims(graph: Graph, result: Propagation) -> int:
    """Write the inferred dims and precisions into every output port, then copy each into the input ports it
    feeds, so that every edge agrees; returns the number of ports corrected (see ``_corrects``). Ports are compared
    as records: a Port object is made only for a layer with a port to change, which is ``touch``ed. A propagation
    continued from another (``walked``) is written into the ports of the layers it walked and the input ports they
    feed: the others hold what the earlier one wrote.

    Kept as declared: a decompression Convert's input precision (``_kept_compressed``: what check accepts, OpenVINO
    writes), and a declared refinement (static dims within the inferred ones, as OpenVINO's IR v10 serializer wrote
    an interval's upper bound) unless the port's inferred type changed since the graph's declared dims last agreed
    with it (``agreed_with``): then the dims are stale, as after a pass that made an input dynamic, and the
    inferred ones are written (-1 where not static, as OpenVINO's serializer writes them).

    The bodies of the TensorIterators, Loops and Ifs the propagation ran are written alike (``_fix_bodies``)."""
    changed = 0
    # (precision, dims, id of the inferred type, whether a refinement stays) -> what is written (``_written``)
    written: dict[tuple, tuple] = {}
    types, walked = result.types, result.walked
    agreed_result = _AGREED.get(graph)
    agreed = None if agreed_result is None else agreed_result.types
    touched: list[str] = []
    outputs: dict[tuple[str, int], tuple] = {}  # an output port -> its (dims, precision) now (the first of its id)
    for layer in graph.layers() if walked is None else map(graph.layer, walked):
        lid = layer.id
        for i, record in enumerate(layer.output_records()):
            pid, now = record[0], (record[2], record[1])
            t = types.get((lid, pid))
            if t is not None:
                before = t if agreed is None else agreed.get((lid, pid))
                key = (record[1], record[2], id(t), before is t or before == t)
                new = written.get(key)
                if new is None:
                    new = written[key] = _written(record[2], record[1], t, key[3])
                if new != now and layer.type == "Convert" and _kept_compressed(
                        layer, record, [types.get(k) for k in graph.input_keys(lid, layer.input_ids())], t):
                    new = now
                if new != now:
                    port = layer.outputs[i]
                    port.dims, port.precision = new
                    changed += _corrects(record, new)
                    touched.append(lid)
                    now = new
            outputs.setdefault((lid, pid), now)
    if walked is None:
        readers: Iterable[Layer] = graph.layers()
    else:
        ids = set(walked)
        ids.update(link[2] for lid in walked for link in graph.out_links(lid))
        readers = map(graph.layer, ids)
    input_keys = graph.input_keys
    for layer in readers:
        records = layer.input_records()
        if not records:
            continue
        for i, key in enumerate(input_keys(layer.id, layer.input_ids())):
            if key is None:
                continue
            source = outputs.get(key)
            if source is None and walked is not None:  # a producer not walked again (its output ports stay as they are)
                record = graph.layer(key[0]).output_record(key[1])
                if record is None:
                    continue
                source = outputs[key] = (record[2], record[1])
            if source is not None and (records[i][2] != source[0] or records[i][1] != source[1]):
                port = layer.inputs[i]
                port.dims, port.precision = source
                changed += _corrects(records[i], source)
                touched.append(layer.id)
    for owner, bodies in result.bodies.items():
        if walked is not None and owner not in walked:
            continue
        corrected = _fix_bodies(graph, graph.layer(owner), bodies,
                                {} if agreed_result is None else agreed_result.bodies.get(owner, {}))
        if corrected is not None:
            changed += corrected
            touched.append(owner)
    graph.touch(*touched)
    agreed_with(graph, result)
    return changed


def _fix_bodies(graph: Graph, owner: Layer, bodies: dict[int, Propagation], agreed: dict[int, Propagation],
                ) -> int | None:
    """``fix_dims`` inside ``owner``'s bodies, each with its last re-inference (``bodies``, by position: the dims its
    layer's inputs give it, rule 6; an If's body its constant condition does not select, as its Parameters declare,
    as OpenVINO infers it), nested bodies too, a declared refinement staying while the body's inferred type is the one
    its dims last agreed with (``agreed``: the bodies of the owner's ``agreed_with``); a Parameter fed another shape
    than its ``shape`` attribute gives has the attribute written too (as OpenVINO writes it, and its port's dims
    follow from it). The bodies go back through ``with_bodies``, the one way back; returns the number of ports
    corrected (a Parameter whose shape attribute alone was stale: its port), None where nothing changed."""
    subs = fresh_subgraphs(graph, owner)
    corrected = 0
    for i, body in bodies.items():
        inner = subs[i].graph
        if i in agreed:
            agreed_with(inner, agreed[i])
        declared = {pid: inner.layer(pid).output_records() for pid in body.fed}
        for pid, shape in body.fed.items():
            inner.layer(pid).attrs["shape"] = format_shape(shape)
        corrected += fix_dims(inner, body)
        corrected += sum(inner.layer(pid).output_records() == records for pid, records in declared.items())
    if not corrected:
        return None
    owner.children = with_bodies(owner, subs)
    return corrected


def _corrects(declared: PortRecord, written: tuple[tuple[int, ...] | None, str | None]) -> bool:
    """Whether writing (dims, precision) over a port's record corrects it: other dims, or another precision than
    the one it declares. A precision written where the port declares none (Model Optimizer leaves input ports
    without one, and OpenVINO reads them so) corrects nothing: ``shapes --fix`` on a clean file says 0."""
    declared_precision = declared[1]
    return declared[2] != written[0] or (
        declared_precision is not None and element_type(declared_precision) != element_type(written[1] or ""))


def _written(dims: tuple[int, ...] | None, precision: str | None, t: TensorType, refines: bool,
             ) -> tuple[tuple[int, ...] | None, str | None]:
    """The (dims, precision) ``fix_dims`` writes into an output port that declares ``dims`` and ``precision``, ``t``
    inferred: the declared dims where they lie within the inferred ones and may refine them (``refines``), the
    precision where it names the same element type."""
    new_dims = dims if refines and declared_within(dims, t.shape) else shape_to_ints(t.shape) or ()
    et = element_type(t.element) if t.element else None
    return new_dims, et.precision if et and element_type(precision or "") != et else precision


def _compare(result: Propagation, layer: Layer, port: Port, inferred: TensorType, how: str = "inferred") -> None:
    _check(result, layer, port.id, port.precision, port.dims, port.line, inferred, how)


def _unfolded(walker: ShapeWalker, layer: Layer) -> bool:
    """Whether OpenVINO neither folds nor bounds ``layer``'s outputs (rule 5): a decompression layer
    (``read_as_decompression``), or a layer whose inputs' inferred element types OpenVINO's evaluate() of its op does
    not take (``OpSpec.evaluates``). An input of no inferred type (a dynamic one, an unfed port) is given as None,
    which a rule of some types alone does not take: OpenVINO evaluates tensors of static types only, and such an
    input holds no value it knows."""
    if read_as_decompression(walker.graph, layer):
        return True
    spec = lookup(layer.type, layer.version)
    if spec is None:
        return False
    env = walker.env
    return not spec.evaluates([None if key is None or key not in env else env[key].element
                               for key in walker.input_keys(layer)])


def read_as_decompression(graph: Graph, layer: Layer) -> bool:
    """Whether OpenVINO reads ``layer`` of ``graph`` as a decompression layer (``_decompression``), which it neither
    folds nor bounds and whose consumers' kernels it chooses by it: rt_info of IR v11 only (it reads no layer's rt_info
    in IR v10, measured on 2026.4)."""
    return graph.ir_version >= 11 and _decompression(layer)


def _decompression(layer: Layer) -> bool:
    """Whether ``layer`` carries the rt_info OpenVINO's reader makes its ``Decompression`` attribute of
    (``<attribute name="decompression" version="0"/>``, spelled exactly so: another name's case or version is not
    that attribute, measured on 2026.4), as ``ov.save_model``'s fp16 compression marks the Convert after each
    compressed Const."""
    return bool(layer.rt_info) and any(map(decompression_mark, layer.rt_info))  # (most have none: no map then)


def decompression_mark(node: RtNode) -> bool:
    """Whether the rt_info ``node`` is the one OpenVINO reads as a layer's ``Decompression`` (``_decompression``)."""
    return node.tag == "attribute" and ("name", "decompression") in node.attrs and ("version", "0") in node.attrs


def _kept_compressed(layer: Layer, record: PortRecord, args: Sequence[TensorType | None], inferred: TensorType,
                     ) -> bool:
    """Whether the output port is a decompression Convert's (``_decompression``) declaring its input's
    precision, its dims agreeing: OpenVINO's fp16 compression writes it so where a compressed constant is a model
    output, and its reader infers the Convert's own type (an f32 output)."""
    return (layer.type == "Convert" and bool(args) and args[0] is not None
            and element_type(record[1] or "") == element_type(args[0].element or "")
            and _contradicts(record[1], record[2], inferred) == (False, True) and _decompression(layer))


def _contradicts(precision: str | None, dims: tuple[int, ...] | None, inferred: TensorType) -> tuple[bool, bool]:
    """Whether an output port's declared dims contradict ``inferred`` (``declared_within``), and whether its precision
    names another element type."""
    declared = element_type(precision or "")
    element = inferred.element is not None and inferred.element != "" and precision is not None and (
        declared is None or declared.name != inferred.element)
    return not declared_within(dims, inferred.shape), element


def _check(result: Propagation, layer: Layer, port_id: int, precision: str | None, dims: tuple[int, ...] | None,
           line: int | None, inferred: TensorType, how: str) -> None:
    """E-SHAPE / E-TYPE where an output port's declared dims contradict ``inferred`` or its precision differs
    (``_contradicts``)."""
    shape, element = _contradicts(precision, dims, inferred)
    if shape:
        result.diagnostics.append(Diagnostic(
            "error", "E-SHAPE", f"output port {port_id}: declared {show(dims)}, {how} {show_shape(inferred.shape)}",
            layer.line_loc(line),
        ))
    if element:
        want_p = element_type(inferred.element)
        want_text = want_p.precision if want_p else inferred.element
        result.diagnostics.append(Diagnostic(
            "error", "E-TYPE", f"output port {port_id}: declared precision {precision}, {how} {want_text}",
            layer.line_loc(line),
        ))
