"""DFT-7 and IDFT-7 of a dynamic shape, which 2023.0 to 2025.1 read but do not compile
(``dft_dynamic_not_compiled``): ``check --target`` names each, ``migrate --target`` refuses it."""

from __future__ import annotations

from collections import Counter

from ...ir.model import Graph, Layer
from ..base import PassResult
from ..shapes import declared_type
from .base import Downgrade


def _dynamic(graph: Graph, layer: Layer) -> bool:
    """True for a DFT-7 or IDFT-7 whose data input or output has a dynamic dim or rank (the output's: a signal_size
    known only at inference): 2023.0 to 2025.1's CPU plugin does not compile it ("Doesn't support op with dynamic
    shapes"); of static dims it does."""
    shapes = (declared_type(layer.inputs[0]).shape, declared_type(layer.outputs[0]).shape)
    return any(shape is None or not all(d.is_static for d in shape) for shape in shapes)


class DftDynamic(Downgrade):
    """For a target whose CPU plugin compiles no DFT-7 or IDFT-7 of a dynamic input (``dft_dynamic_not_compiled``,
    measured: 2023.0 to 2025.1): no rewrite, each such layer is declined for ``retarget`` to refuse (the model
    reshaped to static dims, ``ir-tools transform``, is what those releases compile)."""

    rewrites = {"DFT-7": "none: refused where its input or output has a dynamic dim (of static dims written as it is)",
                "IDFT-7": "none: refused where its input or output has a dynamic dim (of static dims written as it is)"}
    repairs = {"dft_dynamic_not_compiled": _dynamic}

    def apply(self, graph: Graph) -> PassResult:
        return PassResult(graph, False, Counter())

    def declines(self, graph: Graph, layer: Layer) -> str | None:
        return ("its input or output has a dynamic dim (these releases compile DFT-7 and IDFT-7 of static dims only: "
                "the model reshaped to static input dims, its signal_size a Const)")
