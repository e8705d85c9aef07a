"""Shape propagation: re-infer every port we model and compare with the declared dims.

Rules:
1. Layers are visited in topological order; a modelled op takes its inputs' *inferred*
   types (as OpenVINO does: it ignores declared dims), an unknown op its declared ones.
2. An op that rejects its inputs reports E-OP (or E-ATTR for unreadable attributes) and
   falls back to its declared output dims so the walk goes on.
3. Every output port whose declared dims or precision differ from the inferred ones gets
   E-SHAPE / E-TYPE; a port without <dim> matches a dynamic rank.
4. Ops with no shape rule (unknown ones, and modelled ones that have only a kernel so far) keep
   their declared dims and are counted as "not re-inferred", never silently skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..base.diagnostics import Diagnostic
from ..base.dims import shape_from_ints, shape_to_ints, show
from ..base.dtypes import element_type
from ..base.errors import IrToolsError
from ..ir.model import Graph, Layer, Port
from ..ir.walker import PortKey, Walker
from ..ops import attrs as A
from ..ops.core import convert_values
from ..ops.opsets import lookup
from ..ops.spec import OpSpec, TensorType


@dataclass
class Propagation:
    types: dict[PortKey, TensorType] = field(default_factory=dict)  # inferred, per output port
    diagnostics: list[Diagnostic] = field(default_factory=list)
    inferred: int = 0  # layers re-inferred by our own rules
    not_inferred: list[Layer] = field(default_factory=list)  # layers whose declared dims were trusted
    by_openvino: list[Layer] = field(default_factory=list)  # of those, the ones OpenVINO's inference then checked


def declared_type(port: Port) -> TensorType:
    return _declared_type(port.precision, port.dims)


@lru_cache(maxsize=1024)  # a model has few distinct port types; the result is immutable, so shared
def _declared_type(precision: str | None, dims: tuple[int, ...] | None) -> TensorType:
    et = element_type(precision or "")
    return TensorType(et.name if et else None, shape_from_ints(dims))


class ShapeWalker(Walker[TensorType]):
    """Shape propagation as a walk: a layer's values are its output types (rules 1-4)."""

    def __init__(self, graph: Graph):
        super().__init__(graph)
        self.result = Propagation()

    def missing(self, layer: Layer, port: Port) -> TensorType:
        return declared_type(port)  # an unfed port (E-INPUT-UNFED): its declared type keeps the walk going

    def run_node(self, layer: Layer, args: list[TensorType]) -> list[TensorType]:
        spec = lookup(layer.type, layer.version)
        if spec is None or spec.infer is None:
            self.result.not_inferred.append(layer)
            return [declared_type(port) for port in layer.outputs]
        try:
            outputs = self.infer(layer, spec, args)
        except IrToolsError as exc:
            loc = exc.loc if exc.loc.layer_id else layer.loc  # e.g. a broken Const feeding this layer
            self.result.diagnostics.append(Diagnostic("error", exc.code, exc.message, loc))
            return [declared_type(port) for port in layer.outputs]
        self.result.inferred += 1
        for port, inferred in zip(layer.outputs, outputs, strict=False):
            _compare(self.result, layer, port, inferred)
        return list(outputs) + [declared_type(port) for port in layer.outputs[len(outputs):]]

    def infer(self, layer: Layer, spec: OpSpec, inputs: list[TensorType]) -> list[TensorType]:
        lo, hi = spec.n_inputs
        if not lo <= len(inputs) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise IrToolsError(f"{spec.label} takes {want} inputs, the layer has {len(inputs)}", layer.loc, "E-ARITY")
        if len(layer.outputs) != spec.n_outputs:
            raise IrToolsError(f"{spec.label} has {spec.n_outputs} outputs, the layer declares {len(layer.outputs)}",
                               layer.loc, "E-ARITY")
        attrs = A.decode(spec.attrs, layer.attrs)  # located by run_node, should it fail
        values = [self.constant(layer, port) if i in spec.value_inputs else None
                  for i, port in enumerate(layer.inputs)]
        return spec.infer(attrs, inputs, values)

    def constant(self, layer: Layer, port: Port) -> np.ndarray | None:
        """The value feeding ``port`` when it is a Const, or a Convert of a Const; else None."""
        key = self.source(layer, port)
        if key is None:
            return None
        src = self.graph.layer(key[0])
        if src.is_a("Const"):
            return self.graph.const_array(src)
        if src.is_a("Convert") and src.inputs:
            inner = self.constant(src, src.inputs[0])
            if inner is not None:
                return convert_values(inner, src.attrs.get("destination_type", ""))
        return None


def propagate(graph: Graph) -> Propagation:
    """Infer every output port's type; the graph must be acyclic (see checks.E-CYCLE)."""
    walker = ShapeWalker(graph)
    walker.run()
    walker.result.types = walker.env
    return walker.result


def adopt(result: Propagation, types: dict[PortKey, TensorType]) -> list[Diagnostic]:
    """Check the layers we have no shape rule for against ``types`` (OpenVINO's own inference of the
    same file): their declared dims are compared (E-SHAPE/E-TYPE) and ``fix_dims`` will write these."""
    start = len(result.diagnostics)
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


def infer_shapes(graph: Graph) -> list[Diagnostic]:
    """Public entry: the diagnostics of shape propagation over ``graph``."""
    return propagate(graph).diagnostics


def fix_dims(graph: Graph, result: Propagation) -> int:
    """Write the inferred dims and precisions into every port; returns the number of ports changed."""
    changed = 0
    for layer in graph.layers():
        for port in layer.outputs:
            changed += _apply(port, result.types.get((layer.id, port.id)))
        for port in layer.inputs:
            edges = graph.producers(layer.id, port.id)
            if len(edges) == 1:
                changed += _apply(port, result.types.get((edges[0].from_layer, edges[0].from_port)))
    return changed


def _apply(port: Port, t: TensorType | None) -> int:
    if t is None:
        return 0
    dims = shape_to_ints(t.shape) or ()
    et = element_type(t.element) if t.element else None
    precision = et.precision if et else port.precision
    if port.dims == dims and port.precision == precision:
        return 0
    port.dims, port.precision = dims, precision
    return 1


def _compare(result: Propagation, layer: Layer, port: Port, inferred: TensorType, how: str = "inferred") -> None:
    want = shape_to_ints(inferred.shape)
    if not (want == port.dims or (want is None and port.dims == ())):
        result.diagnostics.append(Diagnostic(
            "error", "E-SHAPE",
            f"output port {port.id}: declared {show(port.dims)}, {how} {show(want)}",
            layer.port_loc(port),
        ))
    declared = element_type(port.precision or "")
    if inferred.element and port.precision is not None and (declared is None or declared.name != inferred.element):
        want_p = element_type(inferred.element)
        want_text = want_p.precision if want_p else inferred.element
        result.diagnostics.append(Diagnostic(
            "error", "E-TYPE",
            f"output port {port.id}: declared precision {port.precision}, {how} {want_text}",
            layer.port_loc(port),
        ))
