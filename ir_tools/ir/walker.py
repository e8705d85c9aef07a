"""The one graph walker: visit layers in topological order, each fed its inputs' values.

Modelled on torch.fx's Interpreter. A subclass says what a value is (a TensorType for shape
propagation, an array for execution) by overriding ``run_node``; the walker owns the order, the
producer lookup and the environment, a dict from output port ``(layer id, port id)`` to value,
which the caller may seed (with OpenVINO's activations, say). Every error a layer raises is
re-raised as an ExecutionError naming the layer, with the original kept as its ``__cause__``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Generic, TypeVar

from ..base.errors import ExecutionError, IrToolsError
from ..ops.opsets import lookup
from .model import Graph, Layer, Port

V = TypeVar("V")
PortKey = tuple[str, int]

#: What a faulty kernel or rule may raise on bad data; anything else is a bug and propagates.
_DATA_ERRORS = (ArithmeticError, IndexError, KeyError, MemoryError, TypeError, ValueError)


class Walker(Generic[V]):
    """Walks ``graph``; ``free`` drops a value once its last consumer has run (the environment
    then ends with only the values nobody consumed)."""

    def __init__(self, graph: Graph, free: bool = False):
        self.graph = graph
        self.order = graph.topological_order()  # raises on a cycle: validate first
        self.free = free
        self.env: dict[PortKey, V] = {}

    def run(self, env: Mapping[PortKey, V] | None = None) -> dict[PortKey, V]:
        """Run every layer in order; returns the environment (seeded with ``env``)."""
        self.env = dict(env or {})
        uses = Counter((e.from_layer, e.from_port) for e in self.graph.edges()) if self.free else None
        for layer in self.order:
            keys = [self.source(layer, port) for port in layer.inputs]
            spec = lookup(layer.type, layer.version)
            while (keys and keys[-1] is None and spec is not None and len(keys) > spec.n_inputs[0]
                   and not self.graph.producers(layer.id, layer.inputs[len(keys) - 1].id)):
                keys.pop()  # an optional input declared without an edge: OpenVINO creates the op without it
            args = [self.fetch(layer, port, key) for port, key in zip(layer.inputs, keys, strict=False)]
            if uses is not None:
                for key in keys:
                    uses[key] -= 1
                    if uses[key] == 0:
                        self.env.pop(key, None)
            try:
                results = self.run_node(layer, args)
            except IrToolsError as exc:
                raise ExecutionError(exc.message, layer.loc, exc.code) from exc
            except _DATA_ERRORS as exc:
                raise ExecutionError(f"{type(exc).__name__}: {exc}", layer.loc) from exc
            for port, value in zip(layer.outputs, results, strict=False):
                self.env[(layer.id, port.id)] = value
        return self.env

    def source(self, layer: Layer, port: Port) -> PortKey | None:
        """The output port feeding an input port, if exactly one edge does."""
        edges = self.graph.producers(layer.id, port.id)
        return (edges[0].from_layer, edges[0].from_port) if len(edges) == 1 else None

    def fetch(self, layer: Layer, port: Port, key: PortKey | None) -> V:
        """The value of one input: the environment's, else what ``missing`` says."""
        if key is not None and key in self.env:
            return self.env[key]
        return self.missing(layer, port)

    def missing(self, layer: Layer, port: Port) -> V:
        """An input with no value in the environment; by default an error."""
        raise IrToolsError(f"input port {port.id} has no value (no single producer that has run)", layer.loc)

    def run_node(self, layer: Layer, args: list[V]) -> list[V]:
        """One layer's output values from its input values; override."""
        raise NotImplementedError
