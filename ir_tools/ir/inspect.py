"""``inspect``: a model's inputs, outputs, op histogram and layers (with the name of the tensor each output holds, as
``extract`` takes it), as text or JSON."""

from __future__ import annotations

from collections import Counter

from ..base.dims import show
from .model import Graph
from .names import input_name, output_names, reported_names, resolved_names

#: Version of the document ``inspect --format json`` prints (and ``ir_tools.inspect`` returns); bump on an
#: incompatible change.
INSPECT_SCHEMA_VERSION = 1


def summary(graph: Graph) -> dict:
    """A JSON-ready description of ``graph``."""

    def tensor(name: str, layer, port) -> dict:
        """An input's or output's description; ``shape`` spelled as a Parameter's attribute is (an input's own, which
        may hold intervals; an output's from its dims: ``?`` for a dynamic one, None where the port has no dims)."""
        shape = layer.attrs.get("shape") if layer.is_a("Parameter") else _shape(port.dims)
        return {"name": name, "layer": layer.name, "precision": port.precision,
                "dims": None if port.dims is None else list(port.dims), "shape": shape}

    resolved = resolved_names(graph)  # (the names OpenVINO gives each tensor: a name two hold is renamed on one)
    inputs = [tensor(input_name(graph, p), p, p.outputs[0]) for p in graph.parameters() if p.outputs]
    outputs, named = [], output_names(graph)
    for r in graph.results():
        found = graph.producer(r.id, r.inputs[0].id) if r.inputs else None
        name = named[r.id]  # as run and compare name it
        outputs.append(tensor(name, *found) if found else {"name": name, "layer": r.name})
    histogram = Counter(layer.kind for layer in graph.layers())
    return {
        "schema_version": INSPECT_SCHEMA_VERSION,
        "name": graph.name,
        "ir_version": graph.ir_version,
        "file": str(graph.source) if graph.source else None,
        "layer_count": len(graph),
        "inputs": inputs,
        "outputs": outputs,
        "op_histogram": dict(sorted(histogram.items())),
        "layers": [
            {"id": lay.id, "name": lay.name, "type": lay.type, "version": lay.version, "line": lay.line,
             "attributes": dict(lay.attrs),
             "outputs": [None if p.dims is None else list(p.dims) for p in lay.outputs],
             "tensors": [next(iter(reported_names(graph, lay, p, resolved)), None) for p in lay.outputs],
             "tensor_names": [list(reported_names(graph, lay, p, resolved)) for p in lay.outputs]}
            for lay in graph.layers()
        ],
    }


def render_text(info: dict) -> str:
    lines = [f"model '{info['name']}' (IR v{info['ir_version']}, {info['layer_count']} layers)", "inputs:"]
    for t in info["inputs"]:  # the Parameter's shape as declared (``?`` and intervals), bracketed as the outputs
        shape = f"[{t['shape'].replace(' ', '')}]" if t.get("shape") is not None else _dims(t["dims"])
        lines.append(f"  {t['name']}: {t['precision']} {shape}")
    lines.append("outputs:")
    for t in info["outputs"]:
        lines.append(f"  {t['name']}: {t.get('precision')} {_dims(t.get('dims'))}")
    lines.append("ops:")
    width = max((len(k) for k in info["op_histogram"]), default=0)
    for kind, count in info["op_histogram"].items():
        lines.append(f"  {kind:<{width}}  {count}")
    lines.append("layers:")
    for lay in info["layers"]:
        attrs = " ".join(f"{k}={v}" for k, v in lay["attributes"].items())
        outs = " ".join(_dims(d) + (" " + ",".join(f"'{t}'" for t in names) if names else "")
                        for d, names in zip(lay["outputs"], lay["tensor_names"], strict=True))
        lines.append(f"  {lay['id']:>4} {lay['name']} [{lay['type']}@{lay['version']}] -> {outs}  {attrs}".rstrip())
    return "\n".join(lines)


def _shape(dims: tuple[int, ...] | None) -> str | None:
    """Dims spelled as a Parameter's ``shape`` attribute (``?,?,256``), None where there are none."""
    return None if dims is None else ",".join("?" if d < 0 else str(d) for d in dims)


def _dims(dims: list[int] | None) -> str:
    """A port's declared dims as the inputs' shapes spell them: ``?`` for a dynamic one (-1 in the file and in JSON)."""
    return show(dims) if dims is None else f"[{_shape(dims)}]"
