"""One interface for every backend that runs a model: ``Runner.run(inputs)`` gives its outputs by output name.

The backends: OpenVINO in this process (``OpenVinoRunner``), the OpenVINO of another Python interpreter in a child
process (``ChildOpenVinoRunner``), onnxruntime on an ONNX file (``OnnxRuntimeRunner``) and the numpy reference
(``ReferenceRunner``). The two OpenVINO runners also give each layer's activations (``ActivationRunner.infer``),
which ``numeric_check.compare_model`` needs. No runner validates its inputs: whoever runs them does, once
(``inputs.check_inputs``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from ..base.dtypes import element_type
from ..base.errors import IrToolsError, SourceLoc
from ..base.packed import untagged
from ..ir.model import Graph
from ..ir.names import input_name, output_names, output_renames, tensor_names
from ..ir.writer import to_bytes
from ..ops import attrs as A
from .children import run_child
from .compare import TensorComparison, Tolerances, compare_tensors, peak, specials
from .executor import Interpreter
from .onnxruntime import run_onnxruntime
from .openvino import (
    CPU_CONFIG,
    OPENVINO_VERSION,
    ModelFiles,
    OpenVinoRun,
    openvino_run,
    parameter_inputs,
    refused,
    run_openvino,
)


class Runner(Protocol):
    """A backend running one model: ``model`` is what it runs (a model file or a graph), ``name`` says who runs it
    (for messages), ``run`` gives the outputs for ``inputs`` (both keyed by name)."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> Path | Graph: ...

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]: ...


class ActivationRunner(Runner, Protocol):
    """A runner that also gives each layer's activations: OpenVINO, in this process or in a child, of ``version``."""

    @property
    def version(self) -> str: ...

    def infer(self, inputs: Mapping[str, np.ndarray], per_layer: bool = False,
              hidden: frozenset[str] = frozenset()) -> OpenVinoRun: ...


class OpenVinoRunner:
    """OpenVINO of this process on CPU, every setting that moves numbers pinned (``CPU_CONFIG``), but for the
    ``deployed`` ones: the user's own ``files`` when given (``graph`` is their parse), else ``graph`` itself."""

    def __init__(self, graph: Graph, files: ModelFiles | None = None, deployed: Mapping[str, str] | None = None):
        self.graph = graph
        self.files = files
        self.deployed = dict(deployed or {})

    @property
    def name(self) -> str:
        """Who runs the model, for messages: ``OpenVINO VERSION``."""
        return f"OpenVINO {self.version}"

    @property
    def version(self) -> str:
        """This process's OpenVINO version."""
        return OPENVINO_VERSION

    @property
    def model(self) -> Path | Graph:
        """What OpenVINO reads: the user's ``.xml`` when ``files`` were given, else the graph (written as ``write_ir``
        writes it)."""
        return self.files.xml if self.files is not None else self.graph

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The outputs, by output name, of one inference on ``inputs`` (by input name; not validated: ``compare``
        does)."""
        return self.infer(inputs).outputs

    def infer(self, inputs: Mapping[str, np.ndarray], per_layer: bool = False,
              hidden: frozenset[str] = frozenset()) -> OpenVinoRun:
        """The outputs and, with ``per_layer``, every layer's activations but the ``hidden`` layers' (by name)."""
        return run_openvino(self.graph, dict(inputs), per_layer=per_layer, files=self.files, hidden=hidden,
                            deployed=self.deployed)


class RenamedRunner:
    """``runner`` with the outputs ``renames`` names (its name -> another) given that other name, and those ``rounded``
    names (by that other name) rounded to its numpy type: a migrated model's outputs as the original gives them
    (``as_original``)."""

    def __init__(self, runner: Runner, renames: Mapping[str, str], rounded: Mapping[str, np.dtype] | None = None):
        self.runner = runner
        self.renames = dict(renames)
        self.rounded = dict(rounded or {})

    @property
    def name(self) -> str:
        return self.runner.name

    @property
    def model(self) -> Path | Graph:
        return self.runner.model

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        named = {self.renames.get(name, name): value for name, value in self.runner.run(inputs).items()}
        return {name: value.astype(self.rounded[name]) if name in self.rounded else value
                for name, value in named.items()}


def as_original(runner: Runner, original: Graph, migrated: Graph) -> RenamedRunner:
    """``runner`` of ``migrated`` giving its outputs as ``original`` gives them: under the original's names
    (``output_renames``: an unnamed output, named after its producer in IR v10), and where ``migrated`` is IR v10 and
    the original is not, each output the original declares f16 rounded to f16: read_model gives an IR v10 model's
    f16 output as f32, unrounded (docs/SEMANTICS.md), which rounded is the original's (measured: f16 Convolution,
    MatMul and SoftMax, bit for bit on 2023.0, 2024.0 and 2026.4; unrounded they differ by up to half an f16 ulp)."""
    rounded = {}
    if migrated.ir_version == 10 and original.ir_version != 10:
        named = output_names(original)
        for result in original.by_type("Result"):
            et = element_type(result.inputs[0].precision or "") if result.inputs else None
            if et is not None and et.name == "f16":
                rounded[named[result.id]] = np.dtype(np.float16)
    return RenamedRunner(runner, output_renames(original, migrated), rounded)


#: The signals a child may die of (a crash of OpenVINO: SIGSEGV, SIGFPE, SIGABRT...).
_SIGNALS = frozenset(int(s) for s in signal.Signals)


class ChildOpenVinoRunner:
    """The OpenVINO of another Python interpreter (``python_executable``, say a venv's with an older release), on
    CPU with inference precision f32, in a child process running ``openvino_infer.py``; inputs and outputs pass as
    ``.npz`` files in a temporary directory. A graph without ``files`` is handed over as the writer writes it.
    Whatever the child's OpenVINO refuses, or the child's failure, is an E-OPENVINO error in the child's words."""

    def __init__(self, python_executable: str | Path, graph: Graph, files: ModelFiles | None = None,
                 timeout: float | None = None):
        self.python = str(python_executable)
        self.graph = graph
        self.files = files
        self.timeout = timeout  # seconds before a child that hangs is killed (an E-OPENVINO error); None: never
        self._version: str | None = None

    @property
    def name(self) -> str:
        """Who runs the model, for messages: ``OpenVINO VERSION (PYTHON)``."""
        return f"OpenVINO {self.version} ({self.python})"

    @property
    def model(self) -> Path | Graph:
        """What the child's OpenVINO reads: the ``.xml`` of ``files``, else the graph (handed over as written)."""
        return self.files.xml if self.files is not None else self.graph

    @property
    def version(self) -> str:
        """The child's OpenVINO version (asked of the child once, unless a run has told it)."""
        if self._version is None:
            with tempfile.TemporaryDirectory(prefix="ir-tools-child-") as tmp:
                self._version = self._call(Path(tmp), {"version_only": True})["version"]
        return self._version

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The outputs, by output name, of one inference in the child; E-OPENVINO in the child's words if it fails."""
        return self.infer(inputs).outputs

    def infer(self, inputs: Mapping[str, np.ndarray], per_layer: bool = False,
              hidden: frozenset[str] = frozenset()) -> OpenVinoRun:
        """The outputs and, with ``per_layer``, every layer's activations but the ``hidden`` layers' (by name)."""
        by_layer = parameter_inputs(self.graph, inputs)
        with tempfile.TemporaryDirectory(prefix="ir-tools-child-") as tmp:
            directory = Path(tmp)
            xml, bin_path = self._model_files(directory)
            np.savez(directory / "inputs.npz", **{f"input{i}": untagged(value)  # (numpy writes no bf16 tag)
                                                  for i, value in enumerate(by_layer.values())})
            request = {"xml": str(xml), "bin": str(bin_path) if bin_path else None, "config": CPU_CONFIG,
                       "per_layer": per_layer, "hidden": sorted(hidden), "inputs": list(by_layer)}
            result = self._call(directory, request)
            with np.load(directory / "outputs.npz", allow_pickle=False) as data:
                by_source = {(name, index): data[f"output{i}"] for i, (name, index) in enumerate(result["sources"])}
        self._version = result["version"]
        return openvino_run(self.graph, by_source, per_layer, {"device": "CPU", **result["config"]}, self._version)

    def _model_files(self, directory: Path) -> tuple[Path, Path | None]:
        """The files the child reads: the user's own, else the graph as the writer writes it."""
        if self.files is not None:
            found = self.files.bin if self.files.bin is not None and self.files.bin.exists() else None
            return self.files.xml.resolve(), found.resolve() if found else None
        xml, blob = to_bytes(self.graph, self.graph.ir_version)
        (directory / "model.xml").write_bytes(xml)
        if not blob:
            return directory / "model.xml", None
        (directory / "model.bin").write_bytes(blob)
        return directory / "model.xml", directory / "model.bin"

    def _call(self, directory: Path, request: dict) -> dict:
        """Run the child on ``request``; its result, or its failure as an E-OPENVINO error."""
        (directory / "request.json").write_text(json.dumps(request))
        try:
            code, stderr = run_child(self.python, directory, self.timeout)
        except subprocess.TimeoutExpired:
            where = self.files.xml if self.files else self.graph.source
            raise IrToolsError(f"the OpenVINO of {self.python} did not finish within {self.timeout:g} s: killed (it "
                               "hangs)", SourceLoc(str(where) if where else None), code="E-OPENVINO") from None
        except OSError as exc:
            raise IrToolsError(f"cannot start {self.python} to run its OpenVINO: {exc.strerror or exc}",
                               code="E-OPENVINO") from None
        answer = directory / "result.json"
        result = json.loads(answer.read_text()) if answer.exists() else None
        if result is not None and "error" in result:
            raise refused(result["stage"], self.graph, self.files, result["error"],
                          f"OpenVINO {result['version']} of {self.python}")
        if code != 0 or result is None:
            last = next((line.strip() for line in reversed(stderr.splitlines()) if line.strip()), "")
            ended = f"killed by {signal.Signals(-code).name}" if -code in _SIGNALS else f"exit status {code}"
            where = self.files.xml if self.files else self.graph.source
            raise IrToolsError(f"the OpenVINO of {self.python} failed ({ended})" + (f": {last}" if last else ""),
                               SourceLoc(str(where) if where else None), code="E-OPENVINO")
        return result


class OnnxRuntimeRunner:
    """onnxruntime on an ONNX file, on CPU; ``f16_weights``: with its float weights rounded to f16, as OpenVINO's
    weight compression stores them (see ``run_onnxruntime``). ``converted``: the IR converted from it, whose input and
    output names it takes and gives (OpenVINO may merge several ONNX tensors into one, reporting a name other than
    the ONNX input's or output's: a Parameter that Identity nodes pass on, a Parameter that is an output)."""

    name = "onnxruntime"

    def __init__(self, path: Path, f16_weights: bool = False, converted: Graph | None = None):
        self.path = path
        self.f16_weights = f16_weights
        self.converted = converted

    @property
    def model(self) -> Path | Graph:
        """The ONNX file onnxruntime runs."""
        return self.path

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The outputs of onnxruntime (CPU) on ``inputs``; with ``converted``, fed and keyed by that IR's names."""
        if self.converted is None:
            return run_onnxruntime(self.path, inputs, f16_weights=self.f16_weights)
        import onnx

        model = onnx.load(str(self.path))
        graph = self.converted
        theirs = {i.name for i in model.graph.input}
        fed = {}
        for parameter in graph.parameters():
            name = input_name(graph, parameter)
            if name in inputs:
                names = tensor_names(parameter.outputs[0].names) if parameter.outputs else []
                fed[next((n for n in names if n in theirs), name)] = inputs[name]
        ours, named = {}, output_names(graph)  # an ONNX output name -> the IR's name of that output
        for result in graph.results():
            found = graph.producer(result.id, result.inputs[0].id) if result.inputs else None
            for alias in tensor_names(found[1].names) if found else []:
                ours.setdefault(alias, named[result.id])
        got = run_onnxruntime(self.path, fed, f16_weights=self.f16_weights, model=model)
        return {ours.get(name, name): value for name, value in got.items()}


class ReferenceRunner:
    """The numpy reference on a graph; ``interpreter`` may be a subclass of ``Interpreter`` (``LegacyReference``
    evaluates a parsed legacy graph)."""

    name = "the numpy reference"

    def __init__(self, graph: Graph, interpreter: type[Interpreter] = Interpreter):
        self.graph = graph
        self.interpreter = interpreter

    @property
    def model(self) -> Path | Graph:
        """The graph the reference runs."""
        return self.graph

    def run(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The outputs, by output name, of the numpy reference on ``inputs`` (``ir_tools.run`` without validation)."""
        return self.interpreter(self.graph).evaluate(inputs)


#: The random ops whose attributes ``global_seed`` and ``op_seed`` both 0 mean other values at each inference (the
#: specification: "a random seed is generated"; measured on 2026.4: one compiled RandomUniform-8 gives other values at
#: each of two inferences).
_SEEDED = ("randomuniform", "multinomial")


def unseeded_random(graph: Graph) -> list[str]:
    """The names of ``graph``'s RandomUniform and Multinomial layers (its top level) whose ``global_seed`` and
    ``op_seed`` are both 0 (absent: 0): what depends on them differs between two inferences of one model."""
    def zero(text: str) -> bool:
        try:
            return A.INT.parse(text) == 0
        except ValueError:  # (``check`` names the attribute)
            return False

    return [layer.name for layer in graph.of_types(_SEEDED)
            if all(zero(layer.attrs.get(seed, "0")) for seed in ("global_seed", "op_seed"))]


def varying_outputs(first: Mapping[str, np.ndarray], second: Mapping[str, np.ndarray]) -> list[str]:
    """The outputs (by name) that differ between two inferences of one model on the same inputs (NaN equal to NaN)."""
    return [name for name, value in first.items()
            if name in second and not (value.shape == second[name].shape
                                       and np.array_equal(value, second[name], equal_nan=value.dtype.kind in "fc"))]


@dataclass
class OutputComparison:
    """One output of the expected runner: how the actual runner's compares (None: it has no such output)."""

    name: str
    comparison: TensorComparison | None

    @property
    def passed(self) -> bool:
        """Whether the actual runner has this output and it compares within its tolerances."""
        return self.comparison is not None and self.comparison.passed

    def line(self, what: str) -> str:
        """The output's line: the same in ``what`` (the actual runner's model), different, or missing from it, with
        the tolerances it was held to."""
        c = self.comparison
        if c is None:
            return f"  {self.name}: MISSING from the {what}"
        detail = c.note or (f"{c.mismatches}/{c.elements} elements differ, max abs error {c.max_abs_error:.3g}"
                            f"{specials(c, f'({what}/original)')}")
        return f"  {self.name}: {'same' if c.passed else 'DIFFERENT'} ({detail}; atol {c.atol:.3g}, rtol {c.rtol:.3g})"


def compare_outputs(inputs: Mapping[str, np.ndarray], expected: Runner | Mapping[str, np.ndarray], actual: Runner,
                    tolerances: Tolerances, peak_fraction: float | None = None) -> list[OutputComparison]:
    """Each output of ``expected`` (a runner, or its outputs already computed) against ``actual``'s of the same name,
    both run on ``inputs`` (validated by the caller: ``check_inputs``), within ``tolerances`` (per output name).
    ``peak_fraction``: atol is instead that fraction of the expected output's max|value| and rtol 0 (two
    implementations whose rounding scales with the output; an integer or boolean output exactly, ``holding``)."""
    want = expected if isinstance(expected, Mapping) else expected.run(inputs)
    got = actual.run(inputs)
    held = holding(tolerances, peak_fraction)
    return [OutputComparison(name, compare_tensors(name, got[name], value, *held(name, value)) if name in got else None)
            for name, value in want.items()]


def holding(tolerances: Tolerances, peak_fraction: float | None = None,
            ) -> Callable[[str, np.ndarray], tuple[float, float]]:
    """The (atol, rtol) an output of a name and expected value is held to: ``tolerances``'; with ``peak_fraction``,
    atol that fraction of the expected value's max|value| and rtol 0 (``compare_outputs``), plus, for a real output,
    one step of its type there: two values that far apart may round to neighbours of its type (an f16 output's step
    near its max|value| is 5e-4 to 1e-3 of it, above the fraction; an f32 one's 1.2e-7). 0 for an integer or boolean
    output: its ops do not round, and a fraction of its largest element would pass its small ones wrong (an i32 mean
    of -1 given as -2 beside an element of 4000000: atol 400)."""
    def held(name: str, value: np.ndarray) -> tuple[float, float]:
        if peak_fraction is None:
            return tolerances.for_name(name)
        if value.dtype.kind not in "fc":
            return 0.0, 0.0
        top = peak(value)
        step = float(np.spacing(np.array(top, value.dtype))) if value.dtype.kind == "f" and top else 0.0
        return peak_fraction * top + step, 0.0

    return held
