"""GraphBuilder: add layers to a Graph with ports, dims and edges filled in.

Importers and rewriting passes build layers through this one helper, so new layers always
get OpenVINO's port numbering (inputs 0..n-1, outputs from n), precisions and dims taken from
their producers, and output dims from the op registry's shape rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..dtypes import element_type, from_numpy
from ..errors import IrToolsError
from ..ops import attrs as A
from ..ops.core import const_array
from ..ops.registry import TensorType, lookup
from .dims import Shape, format_shape, shape_from_ints, shape_to_ints
from .model import Edge, Graph, Layer, Port

#: An output of a layer: (layer id, output port id).
Output = tuple[str, int]


def output_of(layer: Layer, index: int = 0) -> Output:
    return (layer.id, layer.outputs[index].id)


class GraphBuilder:
    def __init__(self, graph: Graph):
        self.graph = graph

    def type_of(self, out: Output) -> TensorType:
        """The declared type of an output port."""
        port = self.graph.layer(out[0]).output(out[1])
        et = element_type(port.precision or "")
        return TensorType(et.name if et else None, None if port.dims is None else shape_from_ints(port.dims))

    def parameter(self, name: str, element: str, shape: Shape) -> Output:
        attrs = {"shape": format_shape(shape), "element_type": element}
        return output_of(self.add("Parameter", "opset1", attrs, [], name, names=name))

    def const(self, value: np.ndarray, name: str) -> Output:
        """A Const holding ``value`` in memory (the writer lays it out in the ``.bin``)."""
        value = np.ascontiguousarray(value)
        attrs = {"element_type": from_numpy(value.dtype).name, "shape": ", ".join(map(str, value.shape)),
                 "offset": "0", "size": str(value.nbytes)}
        return output_of(self.add("Const", "opset1", attrs, [], name, data=value.tobytes()))

    def result(self, source: Output, name: str) -> Layer:
        return self.add("Result", "opset1", {}, [source], name)

    def add(
        self,
        op_type: str,
        version: str,
        attrs: Mapping[str, str],
        inputs: Sequence[Output],
        name: str,
        outputs: Sequence[TensorType] | None = None,
        names: str | None = None,
        data: bytes | None = None,
    ) -> Layer:
        """Add a layer fed by ``inputs``; output types come from the registry's shape rule unless given."""
        layer = Layer(self.graph.new_id(), name, op_type, version, dict(attrs), data=data)
        in_types = [self.type_of(o) for o in inputs]
        layer.inputs = [_port(i, t) for i, t in enumerate(in_types)]
        if outputs is None:
            spec = lookup(op_type, version)
            if spec is None:
                raise IrToolsError(f"cannot infer the outputs of {op_type}@{version}; pass them explicitly")
            values = [self._value(o) if i in spec.value_inputs else None for i, o in enumerate(inputs)]
            outputs = spec.infer(A.decode(spec.attrs, layer.attrs, layer.loc), in_types, values)
        layer.outputs = [_port(len(inputs) + j, t) for j, t in enumerate(outputs)]
        if names and layer.outputs:
            layer.outputs[0].names = names
        self.graph.add_layer(layer)
        for i, src in enumerate(inputs):
            self.graph.add_edge(Edge(src[0], src[1], layer.id, i))
        return layer

    def _value(self, out: Output) -> np.ndarray | None:
        layer = self.graph.layer(out[0])
        return const_array(self.graph, layer) if layer.type.lower() == "const" else None


def _port(port_id: int, t: TensorType) -> Port:
    et = element_type(t.element) if t.element else None
    return Port(port_id, et.precision if et else None, shape_to_ints(t.shape))
