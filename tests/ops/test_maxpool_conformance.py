"""MaxPool-1, MaxPool-8 and MaxPool-14 (ops/pooling.py) against OpenVINO: shape rules and CPU kernels,
with the harness of tests/ops/conformance.py.

Shape rules: seeded MaxPool nodes on Parameters of partial shapes (and dynamic ranks), valid and
invalid attributes (zero or missing strides and dilations, list lengths, ranks, zero batch or
channels, kernels larger than the padded input, ceil_torch before MaxPool-14, axis out of range,
odd index element types) must give our outputs (shapes and element types of both outputs) and
effective pads, or both must refuse. Kernels: seeded cases in one model on OpenVINO CPU, values
and indices (MaxPool-8/14's second output) compared exactly.

OpenVINO 2026.4.1 behaviour measured here that its specification does not state (see also the
docstring of ir_tools/ops/pooling.py):
- MaxPool-14 with ``dilations=""`` and ceil_torch crashes the CPU plugin at compile (empty dilations are ones
  otherwise): check refuses it.
- MaxPool-8/14 check ``axis`` against the input rank before anything else; MaxPool never checks
  that a window reaches the data (AvgPool's exclude-pad check), so pads may exceed the kernel.
- index_element_type may be any element type for shape inference (u8, f32...).
- Values, on CPU as in the reference: a window starts from the lowest float32 (-3.4e38; -inf in f16)
  or the integer minimum and takes a tap only when strictly greater: first maximum wins, NaN and
  -inf are never taken, a window with nothing taken (all padding, NaN or -inf) gives that lowest
  value with the index of its channel's first element.
- Indices count from batch 0, channel 0 over the whole input (n*C*H*W + c*H*W + h*W + w), then are
  taken modulo the product of the dims from ``axis`` on (axis 1: within the batch item, axis 2: within
  the channel); a negative axis counts from the end.
"""

from __future__ import annotations

import re

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset8 as ops8
import openvino.opset14 as ops14
import pytest

from ir_tools.base.errors import IrToolsError, OpValidationError
from ir_tools.ops import attrs as A
from ir_tools.ops.opsets import lookup
from ir_tools.ops.pooling import max_pool_geometry
from ir_tools.ops.spec import TensorType

from .conformance import (
    ELEMENTS,
    Bounds,
    Case,
    assert_all_pass,
    element_name,
    from_openvino,
    partial_shape,
    pick,
    show,
    to_dims,
)

pytestmark = pytest.mark.openvino  # runs OpenVINO: not in the fast tier

SEED = 20268
VERSIONS = {1: ("opset1", ops1), 8: ("opset8", ops8), 14: ("opset14", ops14)}
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")


def build_max_pool(version: int, data: ov.Node, p: dict) -> ov.Node:
    if version == 1:
        return ops1.max_pool(data, p["strides"], p["pads_begin"], p["pads_end"], p["kernel"], p["rounding"],
                             p["auto_pad"])
    make = ops8.max_pool if version == 8 else ops14.max_pool
    return make(data, p["strides"], p["dilations"], p["pads_begin"], p["pads_end"], p["kernel"], p["rounding"],
                p["auto_pad"], p["index"], p["axis"])


def raw_attrs(version: int, p: dict) -> dict[str, str]:
    """The attributes as an IR spells them."""
    raw = {"kernel": ",".join(map(str, p["kernel"])), "strides": ",".join(map(str, p["strides"])),
           "pads_begin": ",".join(map(str, p["pads_begin"])), "pads_end": ",".join(map(str, p["pads_end"])),
           "auto_pad": p["auto_pad"], "rounding_type": p["rounding"]}
    if version != 1:
        raw |= {"dilations": ",".join(map(str, p["dilations"])), "index_element_type": p["index"],
                "axis": str(p["axis"])}
    return raw


def random_attrs(rng: np.random.Generator, version: int, spatial: int, lengths: list[int]) -> dict:
    auto_pad = pick(rng, AUTO_PADS)
    kernel = [int(v) for v in rng.integers(1, 4, spatial)]
    dilations = [int(v) for v in rng.integers(1, 4, spatial)] if version != 1 else [1] * spatial
    strides = [int(v) for v in rng.integers(1, 4, spatial)]
    begin = [int(v) for v in rng.integers(0, 4, spatial)]
    end = [int(v) for v in rng.integers(0, 4, spatial)]
    for i in range(spatial):  # the dilated kernel fits the padded input
        pads = 0 if auto_pad == "valid" else begin[i] + end[i]
        lengths[i] = max(lengths[i], dilations[i] * (kernel[i] - 1) + 1 - pads, 1)
    roundings = ("floor", "ceil", "ceil_torch") if version == 14 else ("floor", "ceil")
    rank = spatial + 2
    return {"kernel": kernel, "strides": strides, "dilations": dilations, "pads_begin": begin, "pads_end": end,
            "auto_pad": auto_pad, "rounding": pick(rng, roundings),
            "index": pick(rng, ["i32", "i64"]), "axis": int(rng.integers(-rank, rank))}


# --- kernels ---------------------------------------------------------------------------------------


def max_pool_cases(rng: np.random.Generator, count: int) -> list[Case]:
    cases = []
    for i in range(count):
        version = (1, 8, 14)[i % 3]
        spatial = int(rng.choice([1, 2, 2, 3]))
        lengths = [int(v) for v in rng.integers(1, 9 if spatial < 3 else 6, spatial)]
        p = random_attrs(rng, version, spatial, lengths)
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), *lengths)
        dtype = (np.float32, np.float32, np.float16, np.int32, np.uint8, np.int8)[(i // 3) % 6]
        if np.dtype(dtype).kind == "f":
            x = rng.standard_normal(shape).astype(dtype)
            if rng.random() < 0.3:
                flat = x.reshape(-1)
                k = int(rng.integers(1, max(2, x.size // 3)))
                flat[rng.integers(0, x.size, k)] = rng.choice([np.nan, -np.inf, np.inf], k)
        else:
            info = np.iinfo(dtype)
            x = rng.integers(max(info.min, -4), min(info.max, 4) + 1, shape).astype(dtype)  # ties
        what = f"MaxPool-{version} {np.dtype(dtype).name}{list(shape)} {p}"
        cases.append(Case(what, [x], lambda ps, v=version, p=p: build_max_pool(v, ps[0], p), (None, None)))
    return cases


def test_max_pool_kernels(tmp_path):
    cases = max_pool_cases(np.random.default_rng(SEED), 420)
    assert_all_pass(cases, tmp_path)


def test_values_and_indices_documented():
    """The examples of the module doc: first maximum wins, NaN/-inf/padding never taken, index arithmetic."""
    spec = lookup("MaxPool", "opset8")
    x = np.array([[[1, 5, 5, 2, np.nan, 3, -np.inf, -np.inf, np.nan, np.nan, 4, np.nan]]], np.float32)
    values, indices = spec.kernel(A.decode(spec.attrs, {"kernel": "2", "strides": "2", "index_element_type": "i32"}),
                                  [x])
    lowest = np.finfo(np.float32).min
    np.testing.assert_array_equal(values.ravel(), [5, 5, 3, lowest, lowest, 4])
    np.testing.assert_array_equal(indices.ravel(), [1, 2, 5, 0, 0, 10])
    assert indices.dtype == np.int32
    x = np.zeros((2, 3, 4, 4), np.float16)
    x[1, 2] = np.nan
    raw = {"kernel": "2,2", "strides": "2,2", "pads_begin": "1,1", "pads_end": "0,0", "axis": "1"}
    values, indices = spec.kernel(A.decode(spec.attrs, raw), [x])
    assert values[1, 2, 0, 0] == -np.inf  # -3.4e38 in f16
    assert indices[1, 2, 0, 0] == 2 * 16 and indices[1, 1, 1, 1] == 16 + 5 * 1  # channel 2's start; (1, 1)


# --- shape rules -----------------------------------------------------------------------------------

KINDS = ("valid", "valid", "valid", "zero-stride", "zero-dilation", "pads-length", "empty-pads", "strides-length",
         "dilations-length", "kernel-length", "rank", "zero-batch", "zero-channels", "kernel-too-large",
         "zero-kernel", "ceil-torch", "axis", "index-type", "large-pads")


def max_pool_shape_case(rng: np.random.Generator, i: int):
    version = (1, 8, 14)[i % 3]
    opset = pick(rng, {1: range(1, 8), 8: range(8, 14), 14: range(14, 17)}[version])
    kind = pick(rng, KINDS)
    spatial = int(rng.integers(1, 4))
    lengths = [int(v) for v in rng.integers(1, 12, spatial)]
    p = random_attrs(rng, version, spatial, lengths)
    axis_i = int(rng.integers(0, spatial))
    shape: Bounds = (pick(rng, [(1, 1), (2, 2), (0, None), (1, 4)]), pick(rng, [(3, 3), (1, 1), (0, None)]),
                     *[pick(rng, [(n, n), (n, n), (0, None), (max(0, n - 2), n + 3), (n, None)]) for n in lengths])
    if kind == "zero-stride":
        p["strides"][axis_i] = 0
    elif kind == "zero-dilation":
        p["dilations"][axis_i] = 0
    elif kind == "pads-length":
        p[pick(rng, ["pads_begin", "pads_end"])].append(1)
    elif kind == "empty-pads":
        p[pick(rng, ["pads_begin", "pads_end"])] = []
    elif kind == "strides-length":
        p["strides"] = p["strides"][:-1] if rng.random() < 0.5 else [*p["strides"], 1]
    elif kind == "dilations-length":
        p["dilations"] = [] if rng.random() < 0.3 else [*p["dilations"], 1]
    elif kind == "kernel-length":
        for key in ("kernel", "strides", "dilations", "pads_begin", "pads_end"):
            p[key] = [*p[key], 1]
    elif kind == "rank":
        shape = tuple((n, n) for n in pick(rng, [(), (4,), (4, 3), (1, 2, 3, 4, 5, 6)]))
    elif kind == "zero-batch":
        shape = ((0, 0), *shape[1:])
    elif kind == "zero-channels":
        shape = (shape[0], (0, 0), *shape[2:])
    elif kind == "kernel-too-large":
        p["kernel"][axis_i] = lengths[axis_i] + p["pads_begin"][axis_i] + p["pads_end"][axis_i] + 2
    elif kind == "zero-kernel":
        p["kernel"][axis_i] = 0
    elif kind == "ceil-torch":
        p["rounding"] = "ceil_torch"
    elif kind == "axis":
        p["axis"] = pick(rng, [-spatial - 3 - int(rng.integers(0, 3)), spatial + 2 + int(rng.integers(0, 3))])
    elif kind == "index-type":
        p["index"] = pick(rng, ["u8", "f32", "i16"])
    elif kind == "large-pads":
        p["pads_begin"][axis_i] += 4
        p["auto_pad"] = "explicit"
    if rng.random() < 0.07 and kind != "rank":
        shape = None
    element = pick(rng, ["f32", "f32", "f16", "i32", None])
    what = f"MaxPool opset{opset} {element}{show(shape)} {p} [{kind}]"

    def theirs():
        try:
            node = build_max_pool(version, ops1.parameter(partial_shape(shape), ELEMENTS[element]), p)
        except RuntimeError:
            return "rejects"
        attrs = node.get_attributes()
        return (tuple((element_name(node.get_output_element_type(i)), from_openvino(node.get_output_partial_shape(i)))
                      for i in range(node.get_output_size())),
                (tuple(attrs["pads_begin"]), tuple(attrs["pads_end"])))

    def ours():
        spec = lookup("MaxPool", f"opset{opset}")
        data = TensorType(element, to_dims(shape))
        try:
            a = A.decode(spec.attrs, raw_attrs(version, p))
            outs = spec.infer(a, [data], [None])
            g = max_pool_geometry(a, data, spec.label)
        except IrToolsError:
            return "rejects"
        return (tuple((t.element, None if t.shape is None else tuple((d.lo, d.hi) for d in t.shape)) for t in outs),
                (g.pads_begin, g.pads_end))

    return what, theirs, ours


def test_max_pool_shape_rules():
    rng = np.random.default_rng(SEED + 1)
    cases = [max_pool_shape_case(rng, i) for i in range(1500)]
    failures = []
    for what, theirs, ours in cases:
        want, got = theirs(), ours()
        if want != got:
            failures.append(f"{what}: OpenVINO {want}, ours {got}")
    assert not failures, f"{len(failures)} of {len(cases)} differ:\n" + "\n".join(failures[:20])


def test_ceil_torch_needs_max_pool_14():
    spec = lookup("MaxPool", "opset8")
    a = A.decode(spec.attrs, {"kernel": "2", "strides": "2", "rounding_type": "ceil_torch"})
    with pytest.raises(OpValidationError, match="MaxPool-14"):
        spec.infer(a, [TensorType("f32", to_dims(((1, 1), (1, 1), (5, 5))))], [None])


def test_empty_dilations_are_refused_where_openvino_crashes_compiling_them(tmp_path):
    """MaxPool-14 with dilations="" (OpenVINO reads it as ones, as its shape inference and ours do): with
    ceil_torch its CPU plugin crashed compiling it, on static and dynamic dims alike (found by the mutation fuzzer:
    check passed such a file, compare then died), so check refuses that one (E-ATTR) and no other."""
    import subprocess
    import sys

    from ir_tools.passes.validate import check

    disagree = []
    for rounding in ("floor", "ceil", "ceil_torch"):
        for shape in ([1, 2, 9, 9], [-1, 2, -1, -1]):
            x = ops14.parameter(shape, np.float32, name="x")
            node = ops14.max_pool(x, [2, 2], [1, 1], [0, 0], [0, 0], [3, 3], rounding, "explicit")
            path = tmp_path / f"{rounding}{len(shape)}.xml"
            ov.save_model(ov.Model(node.outputs()[:1], [x]), str(path), compress_to_fp16=False)
            path.write_text(re.sub(r'dilations="[^"]*"', 'dilations=""', path.read_text()))
            compiled = subprocess.run([sys.executable, "-c", "import openvino as ov, sys; c = ov.Core(); "
                                       "c.compile_model(c.read_model(sys.argv[1]), 'CPU')", str(path)],
                                      capture_output=True).returncode
            refused = [d.code for d in check(path) if d.severity == "error"]
            if (compiled < 0) != (refused == ["E-ATTR"]) or (compiled > 0):
                disagree.append(f"{rounding} {shape}: OpenVINO's compile exit {compiled}, check {refused}")
    assert not disagree, disagree


def test_versions_match_openvinos_reader(tmp_path):
    """opset0..18: the IR of a MaxPool-1 (one output) and of a MaxPool-8 (two) read as OpenVINO's MaxPool
    version that our table has there, and neither reads where the table has none."""
    x = ops1.parameter([1, 2, 6], np.float32)
    forms = {1: ops1.max_pool(x, [2], [0], [0], [2], "floor", "explicit"),
             8: ops8.max_pool(x, [2], [1], [0], [0], [2], "floor", "explicit", "i32", 1)}
    texts = {}
    for version, node in forms.items():
        path = tmp_path / f"maxpool{version}.xml"
        ov.save_model(ov.Model(node.outputs(), [x]), str(path), compress_to_fp16=False)
        texts[version] = path.read_text()
    weights = ov.Tensor(np.empty(0, np.uint8))
    mismatches = []
    for n in range(19):
        spec = lookup("MaxPool", f"opset{n}")
        read = {}
        for version, text in texts.items():
            try:
                model = ov.Core().read_model(re.sub('(type="MaxPool" version=")opset\\d+"', f'\\g<1>opset{n}"', text),
                                             weights)
            except RuntimeError:
                continue
            read[version] = next(o for o in model.get_ordered_ops() if o.get_type_name() == "MaxPool").get_type_info(
                ).version_id
        if spec is None:
            if read:
                mismatches.append(f"opset{n}: OpenVINO reads {read}, we have no MaxPool")
            continue
        form = 1 if spec.label == "MaxPool-1" else 8
        if read.get(form) != f"opset{spec.label.rsplit('-', 1)[1]}":
            mismatches.append(f"opset{n}: OpenVINO reads {read}, we have {spec.label}")
    assert not mismatches, mismatches
