"""OpenVINO's inference of a model on CPU, needing only ``openvino`` and ``numpy``.

``runtime/openvino.py`` calls ``infer`` in this process; ``runners.ChildOpenVinoRunner`` runs this file as a
script with another Python interpreter, whose OpenVINO may be an older release in a venv holding nothing else
(so: no ir_tools import, and Python and OpenVINO features old releases have). As a script it reads
``request.json`` and ``inputs.npz`` from the directory it is given and writes ``outputs.npz`` and
``result.json`` there; a refusal is written as OpenVINO's own words, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import openvino as ov

if not hasattr(ov, "get_version"):  # 2023.x: the API lives in openvino.runtime
    import openvino.runtime as ov


def _empty(output: ov.Output) -> bool:
    """An output known to hold no element: OpenVINO CPU crashes the process (SIGFPE, abort) compiling a model with
    one as a model output (swin3d_t's shifted-window masks at 4x64x64: 226 of them); its value is an empty array."""
    shape = output.get_partial_shape()
    return shape.is_static and 0 in list(shape.to_shape())


def _source(output: ov.Output) -> tuple[str, int]:
    return output.get_node().get_friendly_name(), output.get_index()


def supported(core: ov.Core, config: dict[str, str]) -> dict[str, str]:
    """Those of ``config`` this release's CPU plugin has: older ones lack the newer settings, which do not apply
    there."""
    known = core.get_property("CPU", "SUPPORTED_PROPERTIES")
    return {key: value for key, value in config.items() if key in known}


def kernel_reads(model: ov.Model, compiled: ov.CompiledModel) -> dict[str, list[str]]:
    """The layers OpenVINO CPU computes in one kernel with producers of theirs, each with the names of the layers
    whose outputs that kernel reads: its RoPE and RMS fusions, for one, replace a subgraph by a kernel named after
    its last layer and still compute the subgraph's layers whose outputs are asked for, apart. A layer whose kernel
    reads its own producers' outputs (the usual case) is not listed; constants and the nodes the plugin inserts
    (Reorders) are looked through."""
    ops = {op.get_friendly_name(): op for op in model.get_ordered_ops()}
    skip = ("Parameter", "Result", "Constant")

    def sources(node: ov.Node) -> set[str]:
        found, stack = set(), [i.get_source_output().get_node() for i in node.inputs()]
        while stack:
            source = stack.pop()
            op = ops.get(source.get_friendly_name())
            if op is None:  # inserted by the plugin, or a constant it folded
                stack += [i.get_source_output().get_node() for i in source.inputs()]
            elif op.get_type_name() != "Constant":
                found.add(source.get_friendly_name())
        return found

    out = {}
    for node in compiled.get_runtime_model().get_ordered_ops():
        op = ops.get(node.get_friendly_name())
        if op is None or op.get_type_name() in skip:
            continue
        own = {i.get_source_output().get_node().get_friendly_name() for i in op.inputs()
               if i.get_source_output().get_node().get_type_name() != "Constant"}
        reads = sources(node)
        if reads != own:
            out[node.get_friendly_name()] = sorted(reads)
    return out


#: The ops whose outputs a per-layer run does not add as model outputs: Results and Constants, and Assign, a state
#: write, whose output OpenVINO refuses as a model output ("Incorrect output port number for node Assign").
_NOT_ADDED = frozenset({"Result", "Constant", "Assign"})


def add_layer_outputs(model: ov.Model, hidden: frozenset[str]) -> dict[tuple[str, int], np.ndarray]:
    """Add every op's outputs to ``model``'s outputs but for those of the ops named in ``hidden`` and of
    ``_NOT_ADDED``; the empty ones (statically zero elements, which OpenVINO CPU cannot output) are not added but
    returned, as empty arrays by (op name, output index). An IR v10 model is compiled as a later version's: for v10,
    compile_model names every output after its op and refuses a name that another output's tensor holds ("Model
    operation names have collisions with tensor names"), which so many outputs meet (a stateful v10 model, NMS-5's
    Convert that takes "NMS.0"); the outputs are read by their ops, not by those names."""
    if model.has_rt_info("version") and model.get_rt_info("version").astype(int) == 10:
        model.set_rt_info(11, "version")
    outputs = [out for op in model.get_ordered_ops()
               if op.get_type_name() not in _NOT_ADDED and op.get_friendly_name() not in hidden
               for out in op.outputs()]
    empty = {_source(out): np.empty(list(out.get_partial_shape().to_shape()), out.get_element_type().to_dtype())
             for out in outputs if _empty(out)}
    model.add_outputs([out for out in outputs if _source(out) not in empty])
    return empty


#: What OpenVINO refused when it compiled the model and then refused to infer (``InferenceRefused``).
ON_INPUTS = "infer on these inputs (it compiled the model)"


class InferenceRefused(RuntimeError):
    """OpenVINO compiled the model but refused to infer on these inputs: inputs that do not fit it (a Reshape's
    pattern that does not fit their dims), or a kernel it could not make for them on this CPU (2023.0's int8
    Convolution on an AVX-512 CPU: "could not create a primitive")."""


def infer(core: ov.Core, model: ov.Model, inputs: dict[str, np.ndarray], config: dict[str, str],
          per_layer: bool = False, hidden: frozenset[str] = frozenset(),
          reads: dict[str, list[str]] | None = None) -> dict[tuple[str, int], np.ndarray]:
    """Compile ``model`` on CPU with ``config`` (what of it the release has) and run it on ``inputs`` (keyed by the
    Parameter's friendly name); what reaches each Result, and with ``per_layer`` every op's outputs but for those of
    the ops named in ``hidden`` (constant subgraphs, which OpenVINO then folds as it would), by (op name, output
    index); each of the model's own outputs also by (its Result's name, -1), which tells apart producers that share
    a name. ``reads``, when given with ``per_layer``, is filled with ``kernel_reads``."""
    results = [output.get_node().get_friendly_name() for output in model.outputs]
    if per_layer:
        _made_static(model, inputs)
    by_source = add_layer_outputs(model, hidden) if per_layer else {}
    compiled = core.compile_model(model, "CPU", supported(core, config))
    request = compiled.create_infer_request()
    # By position, matched on the Parameter's name: an input need not have a tensor name (IR v11 without
    # ``names``), and a v10 input's name is OpenVINO's, not necessarily the file's.
    fed = {i: _fed(port, inputs[port.get_node().get_friendly_name()]) for i, port in enumerate(model.inputs)}
    try:
        request.start_async(fed)
        if per_layer and reads is not None:  # while OpenVINO infers (it releases the GIL): 0.2 s of 1,300 layers
            reads.update(kernel_reads(model, compiled))
        request.wait()
    except RuntimeError as exc:
        raise InferenceRefused(str(exc)) from None
    for i, result in enumerate(model.outputs):
        by_source[_source(result.get_node().input_value(0))] = _kept(request.get_output_tensor(i))
        if i < len(results):
            by_source[results[i], -1] = by_source[_source(result.get_node().input_value(0))]
    return by_source


def _made_static(model: ov.Model, inputs: dict[str, np.ndarray]) -> None:
    """Give an int8 model's inputs (one holding a FakeQuantize) the static shapes of ``inputs``, where OpenVINO takes
    them (else leave it dynamic). OpenVINO CPU computes such a model compiled with dynamic dims and its layers as
    outputs otherwise than compiled as it is or static (its low-precision transformations; every release measured,
    2024.0 to 2026.4: clip_vision_int8's patch-embedding flatten 5e-6 for 0.20, MobileNetV3's squeeze-and-excitation
    ReLUs rescaled per channel), so its per-layer run, which infers once, is compiled at the shapes it is fed. Not
    another model: compiled static, OpenVINO CPU computes Funnel's Einsum otherwise (last_hidden_state 0.15 off for
    3.0), which its dynamic compile does not."""
    if not any(op.get_type_name() == "FakeQuantize" for op in model.get_ordered_ops()):
        return
    parameters = model.get_parameters()
    declared = [parameter.get_partial_shape() for parameter in parameters]
    fed = [ov.PartialShape(list(np.shape(inputs[parameter.get_friendly_name()]))) for parameter in parameters]
    if fed == declared:
        return
    # (not Model.reshape, whose SmartReshape rewrites Reshape patterns)
    for parameter, shape in zip(parameters, fed, strict=True):
        parameter.set_partial_shape(shape)
    try:
        model.validate_nodes_and_infer_types()
    except RuntimeError:  # (a shape rule that refuses them statically: the run on them says so as it did)
        for parameter, shape in zip(parameters, declared, strict=True):
            parameter.set_partial_shape(shape)
        model.validate_nodes_and_infer_types()


def _fed(port: ov.Output, value: np.ndarray) -> np.ndarray | ov.Tensor:
    """What an input is fed: ``value``, C-ordered; for a bf16 input, a bf16 tensor of its f32 values' upper halves
    (they are bf16 values: ``inputs.check_inputs``), since OpenVINO's Python API reads an f32 array given for a bf16
    input as raw bytes ("could not broadcast input array from shape (8,) into shape (4,)")."""
    value = np.array(value, order="C")
    if port.get_element_type() != ov.Type.bf16 or value.dtype != np.float32:
        return value
    tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(value.shape)))
    tensor.data.view(np.uint16)[...] = value.view(np.uint32) >> 16
    return tensor


def _kept(tensor: ov.Tensor) -> np.ndarray:
    """An output of a request that infers once, not copied: its array keeps the tensor, and so its memory, alive (so
    on every release from 2023.0 on: the outputs stay intact after the request and the compiled model are gone), and
    is read-only. A copy of every activation of a per-layer run costs page faults and a memcpy of them all."""
    value = _values(tensor)
    value.flags.writeable = False
    return value


def _values(tensor: ov.Tensor) -> np.ndarray:
    """A tensor's values as numpy holds them: a bf16 one, which OpenVINO's ``data`` gives as an f16 array of its raw
    bits (a bf16 2.0 reads 1.904 there), as the f32 values its bits are the upper half of (exact)."""
    if tensor.element_type != ov.Type.bf16:
        return tensor.data
    bits = tensor.data.view(np.uint16).astype(np.uint32)
    bits <<= 16  # (in place: a shift of a 0-d array would give a scalar)
    return bits.view(np.float32)


def infer_steps(core: ov.Core, model: ov.Model, steps: list[dict[str, np.ndarray]], config: dict[str, str],
                per_layer: bool = False, hidden: frozenset[str] = frozenset(), reads: dict[str, list[str]] | None = None
                ) -> list[tuple[dict[tuple[str, int], np.ndarray], dict[str, np.ndarray]]]:
    """Run a stateful ``model`` as a generation loop does: compiled once, one infer request, its state reset, then
    each step's inputs (keyed as ``infer`` takes them) in turn, the state carried from step to step. Per step: what
    ``infer`` gives (``per_layer``, ``hidden`` and ``reads`` as there) and what each variable holds after it
    (``query_state``), by variable id."""
    results = [output.get_node().get_friendly_name() for output in model.outputs]
    empty = add_layer_outputs(model, hidden) if per_layer else {}
    compiled = core.compile_model(model, "CPU", supported(core, config))
    if per_layer and reads is not None:
        reads.update(kernel_reads(model, compiled))
    request = compiled.create_infer_request()
    request.reset_state()
    out = []
    for inputs in steps:
        try:
            request.infer({i: _fed(port, inputs[port.get_node().get_friendly_name()])
                           for i, port in enumerate(model.inputs)})
        except RuntimeError as exc:
            raise InferenceRefused(str(exc)) from None
        by_source = dict(empty)
        for i, result in enumerate(model.outputs):
            by_source[_source(result.get_node().input_value(0))] = np.array(_values(request.get_output_tensor(i)))
            if i < len(results):
                by_source[results[i], -1] = by_source[_source(result.get_node().input_value(0))]
        out.append((by_source, {state.name: np.array(_values(state.state)) for state in request.query_state()}))
    return out


def main(directory: Path) -> int:
    """Run the request of ``directory``; 0 when OpenVINO ran it, 1 when it refused (``result.json`` says why)."""
    request = json.loads((directory / "request.json").read_text())
    result = {"version": ov.get_version()}
    if request.get("version_only"):
        (directory / "result.json").write_text(json.dumps(result))
        return 0
    stage = "read the model"
    try:
        core = ov.Core()
        model = core.read_model(request["xml"], request["bin"]) if request["bin"] else core.read_model(request["xml"])
        stage = "compile the model"
        with np.load(directory / "inputs.npz", allow_pickle=False) as data:
            inputs = {name: data[f"input{i}"] for i, name in enumerate(request["inputs"])}
        result["config"] = supported(core, request["config"])
        by_source = infer(core, model, inputs, request["config"], request["per_layer"], frozenset(request["hidden"]))
    except Exception as exc:  # noqa: BLE001 (every refusal is reported in OpenVINO's words)
        result.update(stage=ON_INPUTS if isinstance(exc, InferenceRefused) else stage,
                      error=str(exc) or type(exc).__name__)
        (directory / "result.json").write_text(json.dumps(result))
        return 1
    sources = list(by_source)
    np.savez(directory / "outputs.npz", **{f"output{i}": by_source[key] for i, key in enumerate(sources)})
    result["sources"] = [[name, index] for name, index in sources]
    (directory / "result.json").write_text(json.dumps(result))
    return 0


def serve() -> int:
    """Requests one after another (a child kept for many, ``children``): a directory per line of stdin, each answered
    by ``main``'s exit code on a line of stdout, until stdin ends. What else writes to stdout goes to stderr, and
    reads from stdin find nothing: a process forked meanwhile (OpenVINO's telemetry forks one) closes its stdin, which
    waits for the lock of a file being read, held by a thread that process does not have."""
    requests, answers = os.fdopen(os.dup(0)), os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    sys.stdin, sys.stdout = open(os.devnull), sys.stderr  # noqa: SIM115 (for the life of the process)
    for line in requests:
        print(main(Path(line.rstrip("\n"))), file=answers, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(serve() if sys.argv[1:] == ["--serve"] else main(Path(sys.argv[1])))
