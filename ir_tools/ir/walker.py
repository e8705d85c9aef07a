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
    then ends with only the values nobody consumed). ``order`` is the graph's topological order when
    the caller has it already (several walks of one graph sort it once)."""

    def __init__(self, graph: Graph, free: bool = False, order: list[Layer] | None = None):
        self.graph = graph
        self.order = graph.topological_order() if order is None else order  # raises on a cycle: validate first
        self.free = free
        self.env: dict[PortKey, V] = {}
        # ``Graph.input_keys`` of each layer the last ``run`` ran (unless a subclass overrides ``source``), for a
        # subclass that reads them again (the producers of a value, say): found once per layer and walk
        self.sources: dict[str, list[PortKey | None]] = {}

    def run(self, env: Mapping[PortKey, V] | None = None, dirty: set[str] | None = None) -> dict[PortKey, V]:
        """Run every layer in order; returns the environment (seeded with ``env``). With ``dirty``, ``env`` holds an
        earlier walk's values and only the layers in ``dirty`` run, and the consumers of each whose outputs ``spread``
        (``dirty`` grows as the walk goes): a walk after a few layers changed."""
        self.env = env = dict(env or {})
        self.sources = sources = {}
        graph = self.graph
        input_keys = graph.input_keys
        # the source and fetch hooks are inlined below unless a subclass overrides them
        source = None if type(self).source is Walker.source else self.source
        fetch = None if type(self).fetch is Walker.fetch else self.fetch
        uses = Counter((link[0], link[1]) for link in graph.links()) if self.free else None
        out_links = graph.out_links
        run_node = self.run_node
        for layer in self.order:
            lid = layer.id
            if dirty is not None and lid not in dirty:
                continue
            ids = layer.input_ids()  # ids only: a layer read from a file makes no Port objects here
            if source is not None:
                keys = [source(layer, port) for port in layer.inputs]
            else:
                keys = sources[lid] = input_keys(lid, ids) if ids else ids  # (no input port: a Const, a Parameter)
            if keys and keys[-1] is None:
                keys = keys[:]  # (``sources`` keeps them all)
                spec = lookup(layer.type, layer.version)
                while (keys and keys[-1] is None and spec is not None and len(keys) > spec.n_inputs[0]
                       and not graph.producers(lid, ids[len(keys) - 1])):
                    keys.pop()  # an optional input declared without an edge: OpenVINO creates the op without it
            if fetch is not None:
                args = [fetch(layer, port, key) for port, key in zip(layer.inputs, keys, strict=False)]
            else:
                try:
                    args = list(map(env.__getitem__, keys))
                except KeyError:  # (None is no key) an input without a value: what ``missing`` says
                    args = [env[key] if key is not None and key in env else self.missing(layer, layer.inputs[i])
                            for i, key in enumerate(keys)]
            if uses is not None:
                for key in keys:
                    uses[key] -= 1
                    if uses[key] == 0:
                        env.pop(key, None)
            try:
                results = run_node(layer, args)
            except IrToolsError as exc:
                raise ExecutionError(exc.message, layer.loc, exc.code) from exc
            except _DATA_ERRORS as exc:
                raise ExecutionError(f"{type(exc).__name__}: {exc}", layer.loc) from exc
            if dirty is None:
                for pid, value in zip(layer.output_ids(), results, strict=False):
                    env[(lid, pid)] = value
                continue
            for pid, value in zip(layer.output_ids(), results, strict=False):
                if self.spreads((lid, pid), env.get((lid, pid)), value):
                    dirty.update(link[2] for link in out_links(lid))
                env[(lid, pid)] = value
        return env

    def spreads(self, key: PortKey, before: V | None, now: V) -> bool:
        """Whether a walk after changes (``run``'s ``dirty``) must run the consumers of output ``key`` again: by
        default, when its value is not the one it had."""
        return before is not now

    def source(self, layer: Layer, port: Port) -> PortKey | None:
        """The output port feeding an input port, if exactly one edge does."""
        return self.graph.producer_key(layer.id, port.id)

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
