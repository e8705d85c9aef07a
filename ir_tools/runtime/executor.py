"""The numpy reference executor: an interpreter over the Graph, one layer at a time.

A layer runs with its OpSpec's kernel, or else with a kernel from ops.support_kernels (the ops
the rewrites emit, which have kernels but no shape rules).

Like torch.fx's Interpreter, ``run_layer`` is the one place a layer is executed, so a
subclass can observe or replace it; every error raised while running a layer is re-raised
as an ExecutionError naming that layer and its file:line. Values are dropped after their
last consumer has run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import numpy as np

from ..errors import ExecutionError, IrToolsError, UnsupportedError
from ..ir.model import Graph, Layer
from ..ops import attrs as A
from ..ops.core import const_array
from ..ops.registry import lookup
from ..ops.support_kernels import support_kernel
from .naming import input_name, output_name

PortKey = tuple[str, int]


def supported(layer: Layer) -> bool:
    """True if the executor can run this layer."""
    t = layer.type.lower()
    if t in ("parameter", "const", "result"):
        return True
    spec = lookup(layer.type, layer.version)
    return (spec is not None and spec.kernel is not None) or support_kernel(layer.type, layer.version) is not None


class Interpreter:
    """Runs a Graph with numpy; ``keep`` names ports whose values are kept after use."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.order = graph.topological_order()
        unsupported = [layer for layer in self.order if not supported(layer)]
        if unsupported:
            names = ", ".join(f"'{lay.name}' ({lay.kind}, line {lay.line})" for lay in unsupported[:10])
            more = f" and {len(unsupported) - 10} more" if len(unsupported) > 10 else ""
            raise UnsupportedError(f"the reference executor cannot run {len(unsupported)} layer(s): {names}{more}")

    def run(self, inputs: Mapping[str, np.ndarray], keep_all: bool = False) -> dict[str, np.ndarray]:
        """Outputs keyed by output name; with ``keep_all`` also ``self.values`` for every port."""
        self.inputs = inputs
        uses = Counter((e.from_layer, e.from_port) for e in self.graph.edges())
        values: dict[PortKey, np.ndarray] = {}
        outputs: dict[str, np.ndarray] = {}
        for layer in self.order:
            args = []
            for port in layer.inputs:
                edge = self.graph.producers(layer.id, port.id)[0]
                key = (edge.from_layer, edge.from_port)
                args.append(values[key])
                uses[key] -= 1
                if uses[key] == 0 and not keep_all:
                    del values[key]
            try:
                results = self.run_layer(layer, args)
            except IrToolsError as exc:
                raise ExecutionError(exc.message, layer.loc) from None
            except (ValueError, TypeError, KeyError, IndexError, MemoryError) as exc:
                raise ExecutionError(f"{type(exc).__name__}: {exc}", layer.loc) from None
            if layer.type.lower() == "result":
                outputs[output_name(self.graph, layer)] = args[0]
            for port, value in zip(layer.outputs, results, strict=True):
                values[(layer.id, port.id)] = value
        self.values = values
        return outputs

    def run_layer(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
        """Execute one layer on its input values; returns its output values."""
        if layer.type.lower() == "parameter":
            name = input_name(self.graph, layer)
            if name not in self.inputs:
                raise IrToolsError(f"no value given for input '{name}'")
            return [np.asarray(self.inputs[name])]
        return execute(self.graph, layer, args)


def execute(graph: Graph, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
    """Run one non-Parameter layer on given input values (the per-layer comparison feeds it OpenVINO's)."""
    kind = layer.type.lower()
    if kind == "const":
        return [const_array(graph, layer)]
    if kind == "result":
        return []
    spec = lookup(layer.type, layer.version)
    if spec is not None and spec.kernel is not None:
        return spec.kernel(A.decode(spec.attrs, layer.attrs, layer.loc), args)
    return support_kernel(layer.type, layer.version)(layer.attrs, args)


def run(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run ``graph`` with the numpy reference kernels; outputs keyed by output name."""
    return Interpreter(graph).run(inputs)
