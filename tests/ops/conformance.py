"""The harness the op conformance suites share: seeded cases batched into one model, run by ir_tools and by
OpenVINO CPU (or its evaluator) and compared within per-output limits (``Case``, ``run_cases``); partial shapes as
``Bounds``, and the outcome of a shape rule on both sides (``openvino_outcome``, ``our_outcome``,
``compare_shapes``); which opsets OpenVINO's reader accepts per type (``check_versions``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import pytest

from ir_tools import read_ir
from ir_tools.cli import main
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.spec import OpSpec, TensorType
from ir_tools.runtime.executor import run
from ir_tools.runtime.openvino import CPU_CONFIG

# The OpenVINO-free half of the harness, re-exported: the suites import all of it from here.
from .verdicts import (  # noqa: F401
    Bounds,
    Limit,
    Outcome,
    describe,
    from_dims,
    mismatch,
    our_outcome,
    rule_limits,
    show,
    to_dims,
    tolerance,
)

U = 2.0**-24
F16_ULP = (2.0**-10, 2.0**-24)
TINY = float(np.finfo(np.float32).tiny)


@dataclass
class Case:
    """One node built on ``inputs`` (Parameters, or Constants at the indices in ``consts``); every output of the
    node is compared.

    ``limits``: per output, the allowed difference (None: equal, NaN matching NaN); ``signed_zeros``: a zero must
    have OpenVINO's sign too. ``evaluator``: OpenVINO's answer is its evaluator's (``Node.evaluate`` on Constants),
    where the CPU plugin cannot run the node or is wrong; the case is then left out of the compiled model.
    ``here``: ours -> what OpenVINO CPU gives on this CPU, where that depends on the instruction set
    (docs/SEMANTICS.md, Corrections). ``bits``: compared bit for bit (NaN payloads and zeros' signs too), ``limits``
    aside.
    """

    what: str
    inputs: list[np.ndarray]
    build: Callable[[list[ov.Node]], ov.Node]
    limits: Sequence[Limit | None] = (None,)
    consts: Sequence[int] = ()
    signed_zeros: bool = False
    evaluator: bool = False
    here: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    bits: bool = False  # every output must be OpenVINO's bit for bit (element type, shape and bytes)


def named_parameters(case: int, inputs: Sequence[np.ndarray], feed: dict[str, np.ndarray]) -> list[ov.Node]:
    """Parameters ``c{case}_{j}`` for the inputs of one case of a batched model, their values added to ``feed``."""
    params = []
    for j, x in enumerate(inputs):
        p = ops1.parameter(list(x.shape), x.dtype, name=f"c{case}_{j}")
        p.output(0).get_tensor().set_names({f"c{case}_{j}"})
        feed[f"c{case}_{j}"] = x
        params.append(p)
    return params


def run_cases(cases: Sequence[Case], tmp_path: Path, per_model: int | None = None) -> list[str]:
    """Run every case in ours (the model saved as IR, read back and run by the executor, which validates it with
    our shape rules first) and in OpenVINO (CPU, the model compiled once; the evaluator for an ``evaluator``
    case), ``per_model`` cases to a model (all by default); the failures, described."""
    step = per_model or max(len(cases), 1)
    return [failure for start in range(0, len(cases), step) for failure in _run_model(cases[start:start + step],
                                                                                       tmp_path)]


def _run_model(cases: Sequence[Case], tmp_path: Path) -> list[str]:
    """One batch of ``run_cases``: ``case_outputs`` compared, each output within its case's limit (or bits)."""
    failures = []
    for case, (ours, theirs, on_cpu) in zip(cases, case_outputs(cases, tmp_path), strict=True):
        for k, (got, want) in enumerate(zip(ours, theirs, strict=True)):
            if got is not None and on_cpu and case.here is not None:
                got = case.here(got)
            limit = case.limits[k] if k < len(case.limits) else None
            problem = "missing from ours" if got is None else bits_differ(got, want) if case.bits else \
                mismatch(got, want, limit, case.signed_zeros)
            if problem:
                failures.append(f"{case.what} (output {k}): {problem}")
    return failures


def case_outputs(cases: Sequence[Case], tmp_path: Path
                 ) -> list[tuple[list[np.ndarray | None], list[np.ndarray], bool]]:
    """``cases`` in one model, saved, run by ours and compiled once for CPU (without the evaluator cases): per case,
    our outputs (None where missing), OpenVINO's (CPU's, or the evaluator's), and whether CPU computed them."""
    params, outputs, feed = [], [], {}
    cpu_params, cpu_outputs, at = [], [], []  # at: per case, its outputs' places in the compiled model (or None)
    for i, case in enumerate(cases):
        fed = [x for j, x in enumerate(case.inputs) if j not in case.consts]
        ps = named_parameters(i, fed, feed)
        it = iter(ps)
        node = case.build([constant(x) if j in case.consts else next(it) for j, x in enumerate(case.inputs)])
        for k in range(node.get_output_size()):
            node.output(k).get_tensor().set_names({f"c{i}_o{k}"})
        params += ps
        outputs += node.outputs()
        at.append(None if case.evaluator else range(len(cpu_outputs), len(cpu_outputs) + node.get_output_size()))
        if not case.evaluator:
            cpu_params += ps
            cpu_outputs += node.outputs()
    path = tmp_path / f"cases_{len(list(tmp_path.glob('*.xml')))}.xml"
    ov.save_model(ov.Model(outputs, params, "cases"), str(path), compress_to_fp16=False)
    ours = run(read_ir(path), feed)
    cpu = ov.Model(cpu_outputs, cpu_params, "cases")
    request = ov.Core().compile_model(cpu, "CPU", CPU_CONFIG).create_infer_request()
    request.infer({p.get_friendly_name(): feed[p.get_friendly_name()] for p in cpu_params})
    found = []
    for i, (case, places) in enumerate(zip(cases, at, strict=True)):
        theirs = evaluate(case.build([constant(x) for x in case.inputs])) if places is None else \
            [request.get_output_tensor(n).data for n in places]
        found.append(([ours.get(f"c{i}_o{k}") for k in range(len(theirs))], theirs, places is not None))
    return found


def bits_differ(got: np.ndarray, want: np.ndarray) -> str | None:
    """What differs between ours and OpenVINO's, bit for bit, or None."""
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"ours {got.dtype}{list(got.shape)}, OpenVINO {want.dtype}{list(want.shape)}"
    if got.tobytes() != want.tobytes():
        return f"not bit-equal: ours {got.reshape(-1)[:8].tolist()}, OpenVINO {want.reshape(-1)[:8].tolist()}"
    return None


def evaluate(node: ov.Node) -> list[np.ndarray]:
    """OpenVINO's evaluator (its reference implementation) on a node whose inputs are Constants: every output."""
    inputs = [ov.Tensor(np.ascontiguousarray(node.input_value(i).get_node().get_data()))
              for i in range(node.get_input_size())]
    outputs = [ov.Tensor(node.get_output_element_type(k), node.get_output_shape(k))
               for k in range(node.get_output_size())]
    assert node.evaluate(outputs, inputs), f"OpenVINO cannot evaluate {node}"
    return [o.data.copy() for o in outputs]


def f16_ulp(dtype) -> Callable[[np.ndarray], np.ndarray | float]:
    """One f16 ulp of the result when ``dtype`` is f16 (the CPU rounds its f32 result once), else 0."""
    if np.dtype(dtype) != np.float16:
        return lambda w: 0.0
    return lambda w: F16_ULP[0] * np.abs(w) + F16_ULP[1]


def assert_bounds_carry_moves(spec: OpSpec, raw: dict[str, str], inputs: Sequence[np.ndarray],
                              bounds: Sequence[np.ndarray], rng: np.random.Generator, what: object = "") -> None:
    """The rule's propagation: float ``inputs`` moved anywhere within their ``bounds`` (a random sign per element,
    four times) move the exact (float64) result by no more than the rule's bound for those input bounds."""
    attrs = A.decode(spec.attrs, raw)
    exact = [np.asarray(x, np.float64) if np.asarray(x).dtype.kind == "f" else x for x in inputs]
    results = spec.kernel(attrs, exact)
    with np.errstate(over="ignore"):  # (an exact result beyond f32's range is inf in f32, as a CPU gives it)
        outputs = [y.astype(np.float32) for y in results]
    limits = spec.rounding(spec.kernel, attrs, list(inputs), list(bounds), outputs)
    for _ in range(4):
        moved = spec.kernel(attrs, [x if np.asarray(x).dtype.kind != "f" else x + rng.choice([-1.0, 1.0], x.shape) * b
                                    for x, b in zip(exact, bounds, strict=True)])
        for y, m, limit in zip(results, moved, limits, strict=True):
            slack = 1e-12 * (np.abs(y) + np.abs(m))  # (the float64 arithmetic of the moved values)
            assert np.all(np.abs(m - y) <= limit + slack), what


def assert_all_pass(cases: list[Case], tmp_path: Path) -> None:
    failures = run_cases(cases, tmp_path)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def i64(values) -> ov.Node:
    return ops1.constant(np.array(values, np.int64))


def constant(values: np.ndarray) -> ov.Node:
    """A Constant, empty ones included (openvino's Python constant() refuses those)."""
    values = np.asarray(values)
    if values.size == 0:
        return ov.op.Constant(ov.Type(values.dtype), ov.Shape(list(values.shape)), [])
    return ops1.constant(values)


def floats(rng: np.random.Generator, shape, dtype=np.float32, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(dtype)


def partial_shape(shape: Bounds) -> ov.PartialShape:
    if shape is None:
        return ov.PartialShape.dynamic()
    return ov.PartialShape([ov.Dimension(lo, -1 if hi is None else hi) for lo, hi in shape])


def from_openvino(ps: ov.PartialShape) -> Bounds:
    if ps.rank.is_dynamic:
        return None
    return tuple((d.get_min_length(), None if d.get_max_length() == -1 else d.get_max_length()) for d in ps)


ELEMENTS = {"f32": ov.Type.f32, "f16": ov.Type.f16, "bf16": ov.Type.bf16, "f64": ov.Type.f64, "i32": ov.Type.i32,
            "i64": ov.Type.i64, "boolean": ov.Type.boolean, "u8": ov.Type.u8, None: ov.Type.dynamic}
#: The numpy type of a Constant ``Operand`` of each element type.
NUMPY = {"f32": np.float32, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "boolean": np.bool_}


class Operand:
    """A shape-rule case's node input: a Constant holding ``value`` or a Parameter of ``element`` and ``shape``."""

    def __init__(self, element: str | None, shape: Bounds = None, value: list | None = None):
        self.element, self.shape, self.value = element, shape, value
        if value is not None:
            self.array = np.array(value, NUMPY[element])
            self.shape = tuple((n, n) for n in self.array.shape)

    def node(self) -> ov.Node:
        if self.value is not None:
            return ov.op.Constant(self.array)
        return ops1.parameter(partial_shape(self.shape), ELEMENTS[self.element])

    def ours(self) -> tuple[TensorType, np.ndarray | None]:
        return TensorType(self.element, to_dims(self.shape)), None if self.value is None else self.array

    def __str__(self) -> str:
        return f"{self.element}{show(self.shape)}" + ("" if self.value is None else f"={self.value}")


def element_name(t: ov.Type) -> str | None:
    return None if t == ov.Type.dynamic else t.get_type_name()


def openvino_outcome(build: Callable[[], ov.Node]) -> Outcome:
    try:
        node = build()
    except RuntimeError:  # NodeValidationFailure and friends
        return "rejects"
    return tuple((element_name(node.get_output_element_type(i)), from_openvino(node.get_output_partial_shape(i)))
                 for i in range(node.get_output_size()))


def equal_duplicates(updates: np.ndarray, flat: np.ndarray, axis: int) -> None:
    """Give the updates of each repeated index (``flat``: the indices, flattened) the last one's slices, in place:
    the order a scatter writes duplicates in is undefined (the specification; OpenVINO CPU's threads wrote another
    last under CI's load), where the reference writes the last. ``updates`` has the index dims at ``axis``."""
    by_index = updates.reshape(updates.shape[:axis] + (flat.size,) + updates.shape[axis + flat.ndim:])  # (a view)
    for i in np.unique(flat):
        at = np.flatnonzero(flat == i)
        by_index[(slice(None),) * axis + (at,)] = by_index[(slice(None),) * axis + (at[-1:],)]


def pick(rng: np.random.Generator, choices: Sequence):
    """One of ``choices`` (any objects, None included)."""
    return choices[int(rng.integers(len(choices)))]


def blur(rng: np.random.Generator, n: int, statics: int = 3) -> tuple[int, int | None]:
    """A dim around ``n``: static (``statics`` chances in ``statics`` + 3), dynamic, an interval (possibly not
    containing n) or unbounded above."""
    kind = pick(rng, ["static"] * statics + ["dynamic", "interval", "unbounded"])
    if kind == "static":
        return (n, n)
    if kind == "dynamic":
        return (0, None)
    if kind == "interval":
        lo = int(rng.integers(0, n + 2))
        return (lo, lo + int(rng.integers(0, 4)))
    return (int(rng.integers(0, n + 2)), None)


def random_bounds(rng: np.random.Generator, lengths: Sequence[int]) -> Bounds:
    """A partial shape around ``lengths``: each dim static, dynamic, an interval or unbounded above."""
    dims = []
    for n in lengths:
        kind = rng.choice(["static"] * 3 + ["dynamic", "interval", "unbounded"])
        if kind == "static":
            dims.append((n, n))
        elif kind == "dynamic":
            dims.append((0, None))
        elif kind == "interval":
            lo = int(rng.integers(0, n + 1))
            dims.append((lo, n + int(rng.integers(0, 5))))
        else:
            dims.append((int(rng.integers(0, n + 1)), None))
    return tuple(dims)


def tensor_types(elements: Sequence[str | None], shapes: Sequence[Bounds]) -> list[TensorType]:
    """Our rule's inputs: element types and partial shapes."""
    return [TensorType(e, to_dims(s)) for e, s in zip(elements, shapes, strict=True)]


def parameters(elements: Sequence[str | None], shapes: Sequence[Bounds]) -> list[ov.Node]:
    """OpenVINO Parameters of those element types and partial shapes."""
    return [ops1.parameter(partial_shape(s), ELEMENTS[e]) for e, s in zip(elements, shapes, strict=True)]


def assert_shapes_agree(cases) -> None:
    """Every (what, theirs, ours) case of ``compare_shapes`` agrees."""
    failures = compare_shapes(cases)
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def compare_shapes(cases) -> list[str]:
    failures = []
    for what, theirs, ours in cases:
        want, got = theirs(), ours()
        if want != got:
            failures.append(f"{what}: OpenVINO {describe(want)}, ours {describe(got)}")
    return failures


def check_versions(nodes: dict[str, ov.Node], params: list[ov.Node], tmp_path: Path) -> list[str]:
    """``check_model_versions`` of a model per node (keyed by its type), on ``params``."""
    return check_model_versions({op: ov.Model(node.outputs(), params) for op, node in nodes.items()}, tmp_path)


def check_model_versions(models: dict[str, ov.Model], tmp_path: Path) -> list[str]:
    """Per type and opset0..18: OpenVINO reads the IR (a model with an op of that type) exactly when ``lookup`` finds
    a spec, and as its version."""
    mismatches = []
    for op, model in models.items():
        path = tmp_path / f"{op}.xml"
        ov.save_model(model, str(path), compress_to_fp16=False)
        text, weights = path.read_text(), ov.Tensor(np.fromfile(path.with_suffix(".bin"), np.uint8))
        assert f'type="{op}" version="opset' in text, op
        for n in range(19):
            spec = lookup(op, f"opset{n}")
            try:
                model = ov.Core().read_model(re.sub(f'(type="{op}" version=")opset\\d+"', f'\\g<1>opset{n}"', text),
                                             weights)
            except RuntimeError:
                if spec is not None:
                    mismatches.append(f"{op} opset{n}: OpenVINO refuses it, we have {spec.label}")
                continue
            found = [o for o in model.get_ordered_ops() if o.get_type_name().lower() == op.lower()]
            version = found[0].get_type_info().version_id if found else None
            if spec is None or version != f"opset{spec.label.rsplit('-', 1)[1]}":
                mismatches.append(f"{op} opset{n}: OpenVINO reads {version}, we have {spec and spec.label}")
    return mismatches


def assert_compare_passes(xml: Path, capsys: pytest.CaptureFixture[str], kinds: set[str],
                          outputs: int | None = None) -> None:
    """``ir-tools compare XML``, end to end and ``--per-layer``: passed, nothing left unchecked (``outputs`` outputs
    compared, where given), and a layer of each of ``kinds`` ("TopK@opset11") among the layers compared."""
    for args in ([], ["--per-layer"]):
        capsys.readouterr()
        code = main(["compare", str(xml), *args, "--format", "json"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0 and report["passed"] and report["not_checked"] == [], report["not_checked"]
        assert outputs is None or len(report["outputs"]) == outputs
    found = {layer["type"] for layer in report["layers"]}
    assert kinds <= found, found
