"""The numpy reference over a parsed legacy graph, for checking a legacy migration without the old runtime."""

from __future__ import annotations

import numpy as np

from ..ir.model import Layer
from ..passes.exact_pool import reference
from ..passes.legacy import legacy_window
from .executor import Interpreter


class LegacyReference(Interpreter):
    """The numpy executor over a parsed legacy graph: Pooling is evaluated from its WindowSpec."""

    def refuse_unsupported(self) -> None:
        """Parameters, Results and legacy Pooling are all a parsed legacy graph has (``parse_legacy``)."""

    def run_node(self, layer: Layer, args: list[np.ndarray]) -> list[np.ndarray]:
        if layer.type == "Pooling":
            return [reference(args[0], legacy_window(layer, args[0].shape[2:]))]
        return super().run_node(layer, args)


