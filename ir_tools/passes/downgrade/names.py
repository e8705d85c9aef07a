"""Layer names made unique, for releases that refuse two layers of one name."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ...ir.names import tensor_names
from ..base import PassResult
from ..interface_names import own_output_tensors
from .base import Downgrade


def repeated_names(graph: Graph) -> dict[str, list[Layer]]:
    """Each layer name more than one layer has -> those layers, in file order."""
    names = [layer.name for layer in graph.layers()]
    if len(set(names)) == len(names):
        return {}  # (most models: told without a list per name)
    by_name: dict[str, list[Layer]] = {}
    for layer in graph.layers():
        by_name.setdefault(layer.name, []).append(layer)
    return {name: layers for name, layers in by_name.items() if len(layers) > 1}


class UniqueNames(Downgrade):
    """OpenVINO before 2024.1 refuses an IR (v10 or v11) in which two layers have one name ("Invalid IR! ... name
    is not unique!"). For such a target, every layer but one of each name is renamed ``name_1``, ``name_2``... (the
    first that no layer or tensor has). The one kept is the first that names a model input or output (IR v10
    derives their names from it), else the first. A layer name means nothing else, so the numbers do not change.
    Inside each body too (``passes/in_bodies``): those releases refuse two layers of one name in one body alike
    (measured on 2023.0 and 2024.0; a body's layer named as one of the top level or of another body they read)."""

    def apply(self, graph: Graph) -> PassResult:
        stats: Counter[str] = Counter()
        if self.target is None or graph.ir_version in self.target.reads_duplicate_layer_names:
            return PassResult(graph, False, stats)
        repeated = repeated_names(graph)
        if not repeated:
            return PassResult(graph, False, stats)
        taken = {layer.name for layer in graph.layers()}
        taken |= {n for layer in graph.layers() for port in layer.outputs for n in tensor_names(port.names)}
        interface = {layer.id for layer in graph.parameters()}
        interface |= {key[0] for r in graph.results() if r.inputs and (key := graph.producer_key(r.id, r.inputs[0].id))}
        for name, layers in repeated.items():
            kept = next((layer for layer in layers if layer.id in interface), layers[0])
            number = 0
            for layer in layers:
                if layer is kept:
                    continue
                while f"{name}_{number}" in taken:
                    number += 1
                layer.name = f"{name}_{number}"
                graph.touch(layer.id)
                taken.add(layer.name)
                stats["a layer name used twice -> made unique"] += 1
        return PassResult(graph, True, stats)


class OwnOutputTensors(Downgrade):
    """A Result whose own names (``output_names``) are not its producer's tensor names names the output only from
    2025.1 on (``ops/releases.RESULT_NAMES_FROM``); an older release names it after the tensor, so two Results of
    one tensor take one name. For such a target each gets a tensor of its own (``interface_names
    .own_output_tensors``: a Convert to the type it reads, carrying its names)."""

    in_bodies = False

    def apply(self, graph: Graph) -> PassResult:
        if self.target is None or self.target.reads_result_names:
            return PassResult(graph, False)
        made = own_output_tensors(graph)
        return PassResult(graph, bool(made), Counter({"an output named otherwise than its tensor -> a tensor of its "
                                                       "own (Convert to its type)": made} if made else {}))
