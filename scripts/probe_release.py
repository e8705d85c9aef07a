"""Print, as JSON, what the installed OpenVINO release creates: its version, the op types of each opsetN (with their
op versions), the IR
versions its reader takes, the attribute values of newer op versions it knows (``rounding_type="ceil_torch"``
came after opset14 itself: 2024.0 has MaxPool-14 but refuses that value; RandomUniform-8's ``alignment="pytorch"``
counts where its CPU plugin draws another sequence than of "tensorflow": 2024.0 reads it and ignores it, 2024.3
does not compile it), whether its reader takes an IR (v10,
v11) in which two layers have the same ``name`` (2023.0 refuses one: "Invalid IR! same name is not unique!"), and
answers of its CPU plugin, from tiny IRs compiled (inference precision f32) and run: whether it computes
ScaledDotProductAttention-13 with a boolean mask as the specification says (True: the key takes part; 2024.0 takes
it as masked out), null where the release has no SDPA-13; whether it runs a model whose state (a ReadValue-6 /
Assign-6 variable) has a dynamic shape, two inferences in a row (2023.0 fails: "Evaluation failed on node of type:
ReadValue"); what it does with SDPA-13 given float masks of seven shapes that broadcast to the scores
(``sdpa_float_mask_shapes``: "refused" by its reader, "right", "wrong" or "fails"; 2024.0 refuses [1, 6], "Check
'attention_mask_input_correctness' failed"), null where it has no SDPA-13; whether it compiles and runs Identity-16
(``identity``; 2025.0: "Unsupported operation of type: Identity"), null where it has none; and whether it computes
BitwiseNot/And/Or/Xor-13 on u8, i8, u16, i16, u32, i32, u64 and i64 exactly as numpy does (``bitwise``: op -> type
-> bool; 2024.0 gives 0 for Not on u16; i64 and u64 within i32) and on booleans (``bitwise_boolean``: op -> bool;
2023.2 gives True for Not of either), null where it has no opset13; what ScatterElementsUpdate-12 of each reduction
gives fed 0 updates (``scatter_empty``: "right", "wrong" or "fails"; 2023.1 fails but on none), null where it has
no opset12; what it does with
Squeeze-1/15 and Unsqueeze-1 of an axis whose static dim is not 1 (``squeeze_axes``; 2024.0 refuses Squeeze-1's:
"Only axes of size 1 may be removed"); whether it runs a KV-cache in small whose variable has a dynamic shape, for
three inits (``state_shapes``; 2024.0 fails where the init's shape is static); digests of Convert-1 from each integer
type into f16 and f32 (``int_to_float``, the f16 a model output; 2024.0 gives 65504 where the current gives inf) and
into f16 used inside the model (``int_to_f16_inside``; 2024.0 as the current, 70000 kept); Convert-1 of special floats
(``float_convert``), IR v10 models whose output is a boolean (``v10_boolean_outputs``; 2023.0 does not compile
IsNaN-10's), where f16 values are held within +-65504 (``f16_io``; 2024.0 at the model's f16 inputs and outputs only),
Convert-1 of f32 and f16 into boolean on many values (``float_boolean``; 2024.0 gives False for 256), what each Reduce
op gives over an axis of length 0 (``reduce_empty_axis``; 2023.0 to 2024.5 whatever the output's memory held), what
ReduceMax and ReduceMin of i16, u32 and u64 give there (``reduce_empty_integers``; 2025.0: -32768 where the current
gives 0), what each Reduce op computes on integers (``reduce_integers``; 2024.0 rounds a mean where the current
truncates), whether it computes an RMS norm as the PyTorch frontend writes it within its rounding bound (``rms_norm``;
2024.4 fuses it and scales rows up to 2.4e-4 off), and which of
13,656 AvgPool-1 layers (1-D to 3-D, static and dynamic, every auto_pad, rounding and exclude-pad) its CPU plugin
does not compile or run (``avg_pool_pads``; 2023.0 refuses L=1, K=2, S=2, pads 0/2, ceil: "Supported primitive
descriptors list is empty"); and digests of FakeConvert-13 on seeded data, fed and folded (``fake_convert``; 2024.0
keeps NaN where the current one gives the f8 type's lowest).

Runs with any OpenVINO release from 2023.0 on, with nothing but openvino (it is run by the Python of a
side virtual environment; ``scripts/make_release_table.py`` collects the answers). OpenVINO has no call listing an
opset, so every CamelCase word found in its libraries is offered to ``NodeFactory("opsetN").create``, which
succeeds exactly for the types of opsetN (Const, the IR's Constant, which NodeFactory will not build bare, is added
by scripts/make_release_table.py).

    /path/to/venv/bin/python scripts/probe_release.py > release.json
    /path/to/venv/bin/python scripts/probe_release.py squeeze_axes state_shapes > some.json  # those answers only
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

try:  # 2024.0 and later
    import openvino as ov
    from openvino.utils.node_factory import NodeFactory
except ImportError:  # 2023.x
    import openvino.runtime as ov
    from openvino.runtime.utils.node_factory import NodeFactory

MAX_PROBED = 30

LAYER = """<layer id="{id}" name="{name}" type="{type}" version="{version}">{data}
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output>{outputs}</output></layer>"""
NET = """<?xml version="1.0"?>
<net name="probe" version="{ir}"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,1,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
{layer}
<layer id="2" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32">{dims}</port></input>
</layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>"""
#: Parameter x -> ReLU "same" -> Exp "same" -> Result: two layers share a name.
DUPLICATE_NAMES = """<?xml version="1.0"?>
<net name="probe" version="{ir}"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,1,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="1" name="same" type="ReLU" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="2" name="same" type="Exp" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></output></layer>
<layer id="3" name="r" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="0"/></edges></net>"""
#: Parameters q, k, v [1, 4, 8] and a boolean mask [4, 4] -> ScaledDotProductAttention-13 -> Result.
SDPA = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{params}
<layer id="4" name="sdpa" type="ScaledDotProductAttention" version="opset13"><data causal="false"/>
<input>{q0}{q1}{q2}{mask}</input><output>{q4}</output></layer>
<layer id="5" name="r" type="Result" version="opset1"><input>{q0}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="4" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="4" to-port="1"/>
<edge from-layer="2" from-port="0" to-layer="4" to-port="2"/>
<edge from-layer="3" from-port="0" to-layer="4" to-port="3"/>
<edge from-layer="4" from-port="4" to-layer="5" to-port="0"/>
</edges></net>"""
#: Parameter x [?, 4]; ReadValue "v" (variable shape ?,4, initialised with x - x = 0) + x -> Assign "v", Result.
STATE = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{x}
<layer id="1" name="zero" type="Subtract" version="opset1"><input>{p0}{p1}</input><output>{p2}</output></layer>
<layer id="2" name="read" type="ReadValue" version="opset6">
<data variable_id="v" variable_type="f32" variable_shape="?,4"/><input>{p0}</input><output>{p1}</output></layer>
<layer id="3" name="sum" type="Add" version="opset1"><input>{p0}{p1}</input><output>{p2}</output></layer>
<layer id="4" name="assign" type="Assign" version="opset6"><data variable_id="v"/><input>{p0}</input>
<output>{p1}</output></layer>
<layer id="5" name="r" type="Result" version="opset1"><input>{p0}</input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>
<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>
<edge from-layer="2" from-port="1" to-layer="3" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>
<edge from-layer="3" from-port="2" to-layer="5" to-port="0"/>
</edges></net>"""
#: Mask shapes (of a float mask) probed in ScaledDotProductAttention-13 with q [1, 2, 4, 8], k and v [1, 2, 6, 8]:
#: the full [L, S] first, then masks of 1 in the place of L, of S, of both, and with batch dims.
MASK_SHAPES = [[4, 6], [1, 6], [4, 1], [1, 1], [1, 1, 4, 6], [2, 4, 6], [1, 1, 1, 6]]
#: Parameters (a, and b but for BitwiseNot) -> Bitwise op of opset13 (layer 2) -> Result.
BITWISE = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{params}
<layer id="2" name="op" type="{op}" version="opset13"><input>{inputs}</input><output>{out}</output></layer>
<layer id="3" name="r" type="Result" version="opset1"><input>{result}</input></layer>
</layers><edges>{edges}<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/></edges></net>"""
#: The integer element types the Bitwise ops are probed on, with their numpy types.
BITWISE_TYPES = {"u8": "uint8", "i8": "int8", "u16": "uint16", "i16": "int16", "u32": "uint32", "i32": "int32",
                 "u64": "uint64", "i64": "int64"}
BITWISE_NUMPY = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor}
#: Attribute values added after their op version: (type, opset, attribute, value, the layer's <data>).
VALUES = [
    ("MaxPool", "opset14", "rounding_type", "ceil_torch",
     '<data strides="1" dilations="1" pads_begin="0" pads_end="0" kernel="2" rounding_type="ceil_torch" '
     'auto_pad="explicit" index_element_type="i64" axis="0"/>'),
    ("AvgPool", "opset14", "rounding_type", "ceil_torch",
     '<data strides="1" pads_begin="0" pads_end="0" kernel="2" exclude-pad="false" rounding_type="ceil_torch" '
     'auto_pad="explicit"/>'),
]


def candidates() -> set[str]:
    package = Path(ov.__file__).parent
    libs = package / "libs" if (package / "libs").is_dir() else package.parent / "libs"  # (2023.x: openvino.runtime)
    words: set[str] = set()
    for lib in [*libs.glob("libopenvino.so*"), *libs.glob("libopenvino_ir_frontend.so*")]:
        words |= {m.decode() for m in re.findall(rb"[A-Za-z0-9_]{2,60}", lib.read_bytes())}
    return {w[i:] for w in words for i in range(len(w) - 1) if w[i].isupper()}


def reads(xml: str) -> bool:
    """True if the release reads this IR (from a file: releases before 2024 read no model from memory)."""
    return read(xml) is not None


def read(xml: str) -> ov.Model | None:
    """The model this IR (of no weights) is, as the release reads it from a file; None if it refuses it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.xml"
        path.write_text(xml)
        path.with_suffix(".bin").write_bytes(b"")
        try:
            return ov.Core().read_model(str(path))
        except RuntimeError:
            return None


def port(port_id: int, precision: str, dims: list[int]) -> str:
    return f'<port id="{port_id}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def parameter(layer_id: int, name: str, element: str, precision: str, dims: list[int]) -> str:
    shape = ",".join("?" if d < 0 else str(d) for d in dims)
    return (f'<layer id="{layer_id}" name="{name}" type="Parameter" version="opset1"><data shape="{shape}" '
            f'element_type="{element}"/><output>{port(0, precision, dims)}</output></layer>')


def compiled(model: ov.Model) -> ov.CompiledModel:
    """``model`` compiled for CPU at f32 (a CPU with bf16 would otherwise compute in bf16)."""
    return ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})


def sdpa_boolean_mask() -> bool | None:
    """True if the CPU plugin computes ScaledDotProductAttention-13 with a boolean mask as the specification says
    (True: the key takes part), for a lower-triangular, an all-True and a scattered mask (every row keeps key 0), within
    1e-5 of float64 numpy; None if the release does not read SDPA-13."""
    q = [1, 4, 8]
    params = "".join(parameter(i, n, "f32", "FP32", q) for i, n in enumerate("qkv"))
    params += parameter(3, "mask", "boolean", "BOOL", [4, 4])
    model = read(SDPA.format(params=params, q0=port(0, "FP32", q), q1=port(1, "FP32", q), q2=port(2, "FP32", q),
                             mask=port(3, "BOOL", [4, 4]), q4=port(4, "FP32", q)))
    if model is None:
        return None
    network = compiled(model)
    rng = np.random.default_rng(0)
    query, key, value = (rng.standard_normal(q).astype(np.float32) for _ in range(3))
    scattered = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 1], [1, 1, 1, 0]], bool)
    right = True
    for mask in (np.tril(np.ones((4, 4), bool)), np.ones((4, 4), bool), scattered):
        scores = query.astype(np.float64) @ key.transpose(0, 2, 1) / np.sqrt(8) + np.where(mask, 0.0, -np.inf)
        weights = np.exp(scores - scores.max(-1, keepdims=True))
        want = weights / weights.sum(-1, keepdims=True) @ value
        # (a request each: 2025.0 refuses a second inference of one request, "expecting [1,2,2,8]")
        got = network.create_infer_request().infer([query, key, value, mask])[0]
        right &= bool(np.allclose(got, want, rtol=1e-5, atol=1e-5))
    return right


def sdpa_float_mask_shapes(dynamic: bool = False) -> dict[str, str] | None:
    """What the release does with ScaledDotProductAttention-13 (q [1, 2, 4, 8], k and v [1, 2, 6, 8]; with
    ``dynamic`` declared [1, 2, ?, 8], as a language model's are) given a float mask of each of ``MASK_SHAPES`` (every
    one broadcasts to the scores [1, 2, 4, 6], as the specification allows): "refused" if its reader refuses the IR
    (shape inference), "right" if its CPU plugin computes it within 1e-5 of float64 numpy, "wrong" if not, "fails"
    if it does not compile or run it (2023.3, declared dynamic: "attention_mask_input_correctness" at inference);
    None if it does not read SDPA-13 with the full mask [4, 6]."""
    q, kv = [1, 2, 4, 8], [1, 2, 6, 8]
    declared_q, declared_kv = ([1, 2, -1, 8], [1, 2, -1, 8]) if dynamic else (q, kv)
    rng = np.random.default_rng(1)
    query, key, value = (rng.standard_normal(d).astype(np.float32) for d in (q, kv, kv))
    answers = {}
    for dims in MASK_SHAPES:
        model = read(_float_sdpa(declared_q, declared_kv, dims))
        shape = ",".join(map(str, dims))
        if model is None:
            answers[shape] = "refused"
            continue
        mask = rng.standard_normal(dims).astype(np.float32)
        want = _attended(query.astype(np.float64) @ key.transpose(0, 1, 3, 2) / np.sqrt(8) + mask, value)
        answers[shape] = _computed(model, [query, key, value, mask], want, f"SDPA float mask {shape}")
    return None if answers[",".join(map(str, MASK_SHAPES[0]))] == "refused" else answers


def _float_sdpa(declared_q: list[int], declared_kv: list[int], mask: list[int],
                declared_v: list[int] | None = None) -> str:
    """The IR of one ScaledDotProductAttention-13 of f32 inputs q, k and v, declared of those dims (v of
    ``declared_kv`` unless given), and a float mask."""
    declared_v = declared_v or declared_kv
    params = "".join(parameter(i, n, "f32", "FP32", d)
                     for i, n, d in ((0, "q", declared_q), (1, "k", declared_kv), (2, "v", declared_v)))
    params += parameter(3, "mask", "f32", "FP32", mask)
    return SDPA.format(params=params, q0=port(0, "FP32", declared_q), q1=port(1, "FP32", declared_kv),
                       q2=port(2, "FP32", declared_v), mask=port(3, "FP32", mask),
                       q4=port(4, "FP32", [*declared_q[:-1], declared_v[-1]]))


def _attended(scores: np.ndarray, value: np.ndarray) -> np.ndarray:
    """SoftMax of ``scores`` over the last axis, times ``value``: attention in float64, the probes' reference."""
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return weights / weights.sum(-1, keepdims=True) @ value


def _computed(model: object, inputs: list[np.ndarray], want: np.ndarray, what: str) -> str:
    """"right" if the CPU plugin computes ``model`` on ``inputs`` within 1e-5 of ``want``, "wrong" if not, "fails"
    if it does not compile or run it (its words on stderr, after ``what``)."""
    try:
        got = compiled(model).create_infer_request().infer(inputs)[0]
    except RuntimeError as error:
        print(f"{what}: {error}", file=sys.stderr)
        return "fails"
    return "right" if got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5) else "wrong"


def sdpa_lower_rank() -> dict[str, str] | None:
    """What the CPU plugin does with ScaledDotProductAttention-13 of a rank-4 query ([1, 2, 4, 8]) and a key and value
    of rank 3 ([2, 6, 8], which broadcast to [1, 2, 6, 8]; a float mask [4, 6] of zeros), declared "static" and
    "dynamic" (every dim ?): "right" if it computes it within 1e-5 of float64 numpy, "wrong" if not (2023.3, 2024.0
    static), "fails" if it does not compile or run it (2023.3 dynamic: "m_dims=[2,6,8,] expect_dims=[1,6,8,8,]" at
    inference); None if it does not read SDPA-13."""
    q, kv, dims = [1, 2, 4, 8], [2, 6, 8], [4, 6]
    rng = np.random.default_rng(2)
    query, key, value = (rng.standard_normal(d).astype(np.float32) for d in (q, kv, kv))
    mask = np.zeros(dims, np.float32)
    want = _attended(query.astype(np.float64) @ key.transpose(0, 2, 1) / np.sqrt(8), value)
    answers = {}
    for declared in ("static", "dynamic"):
        declared_q, declared_kv = (q, kv) if declared == "static" else ([-1] * 4, [-1] * 3)
        model = read(_float_sdpa(declared_q, declared_kv, dims))
        if model is None:
            return None
        answers[declared] = _computed(model, [query, key, value, mask], want,
                                      f"SDPA of a rank-3 key and value ({declared})")
    return answers


def sdpa_value_width() -> dict[str, str] | None:
    """What the CPU plugin does with ScaledDotProductAttention-13 whose value is narrower than the query and key (q
    [1, 2, 4, 16], k [1, 2, 6, 16], v [1, 2, 6, 8]: LeViT's and Nystromformer's attention; a float mask [4, 6] of
    zeros), declared "static" and "dynamic" (every dim ?): as ``sdpa_lower_rank`` ("fails": 2023.3 dynamic,
    "m_dims=[1,2,6,8,] expect_dims=[1,2,6,16,]" at inference); None if it does not read SDPA-13."""
    q, k, v, dims = [1, 2, 4, 16], [1, 2, 6, 16], [1, 2, 6, 8], [4, 6]
    rng = np.random.default_rng(3)
    query, key, value = (rng.standard_normal(d).astype(np.float32) for d in (q, k, v))
    want = _attended(query.astype(np.float64) @ key.transpose(0, 1, 3, 2) / np.sqrt(16), value)
    answers = {}
    for declared in ("static", "dynamic"):
        shapes = (q, k, v) if declared == "static" else ([-1] * 4,) * 3
        model = read(_float_sdpa(shapes[0], shapes[1], dims, shapes[2]))
        if model is None:
            return None
        answers[declared] = _computed(model, [query, key, value, np.zeros(dims, np.float32)], want,
                                      f"SDPA of a narrower value ({declared})")
    return answers


def sdpa_scalar_mask() -> str | None:
    """What the CPU plugin does with ScaledDotProductAttention-13 of q [1, 1, 4, 8], k and v [1, 1, 6, 8] (batch dims
    of 1) and a float mask of rank 0 fed at inference (a Parameter): "right" if it computes it within 1e-5 of float64
    numpy, "wrong" if not, "crashes" if the process running it dies (2023.3 to 2025.0: SIGSEGV; so it runs in a child
    process); None if the release does not read SDPA-13."""
    import subprocess

    q, kv = [1, 1, 4, 8], [1, 1, 6, 8]
    params = "".join(parameter(i, n, "f32", "FP32", d) for i, n, d in ((0, "q", q), (1, "k", kv), (2, "v", kv)))
    params += parameter(3, "mask", "f32", "FP32", [])
    xml = SDPA.format(params=params, q0=port(0, "FP32", q), q1=port(1, "FP32", kv), q2=port(2, "FP32", kv),
                      mask=port(3, "FP32", []), q4=port(4, "FP32", q))
    if read(xml) is None:
        return None
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(d).astype(np.float32) for d in (q, kv, kv)] + [np.array(0.5, np.float32)]
    query, key, value, mask = (x.astype(np.float64) for x in inputs)
    scores = query @ key.transpose(0, 1, 3, 2) / np.sqrt(8) + mask
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    want = weights / weights.sum(-1, keepdims=True) @ value
    child = ("import sys, numpy as np, openvino as ov\n"
             "inputs = [np.load(f'{sys.argv[1]}/{i}.npy') for i in range(4)]\n"
             "model = ov.Core().read_model(f'{sys.argv[1]}/probe.xml')\n"
             "compiled = ov.Core().compile_model(model, 'CPU', {'INFERENCE_PRECISION_HINT': 'f32'})\n"
             "np.save(f'{sys.argv[1]}/out.npy', compiled.create_infer_request().infer(inputs)[0])\n")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "probe.xml").write_text(xml)
        (Path(folder) / "probe.bin").write_bytes(b"")
        for i, x in enumerate(inputs):
            np.save(Path(folder) / f"{i}.npy", x)
        done = subprocess.run([sys.executable, "-c", child, folder], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"SDPA of a scalar mask fed: exit {done.returncode} {done.stderr[-200:]}", file=sys.stderr)
            return "crashes"
        got = np.load(Path(folder) / "out.npy")
    return "right" if got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5) else "wrong"


def scatter_min_max() -> bool | None:
    """True if the CPU plugin computes ScatterElementsUpdate-12 min and max of f32 (use_init_val, axis 0) as the
    current one does, ``acc = u < acc ? u : acc`` (max: ``acc < u ? u : acc``) in index order, bits included, where a
    NaN or a signed zero meets another value (data NaN or -0.0 beside updates 2.0 and +0.0, updates NaN then 3.0 at
    one place), and without use_init_val from -/+3.4028235e38 (updates 1.0 then NaN, -0.0 then +0.0, +0.0 then
    -0.0, -inf alone); False if it computes otherwise (2024.0: a NaN of the data gives way to the update, -0.0 to
    +0.0; without use_init_val a NaN update after 1.0 is kept); None if the release has no opset12."""
    try:
        import openvino.opset12 as ops
    except ImportError:  # 2023.x
        try:
            import openvino.runtime.opset12 as ops
        except ImportError:
            return None
    data = np.array([np.nan, -0.0, 1.0, 5.0], np.float32)
    indices = np.array([0, 1, 2, 2], np.int64)
    updates = np.array([2.0, 0.0, np.nan, 3.0], np.float32)
    right = True
    for reduction in ("min", "max"):
        want = data.copy()
        for i, u in zip(indices, updates, strict=True):
            acc = want[i]
            want[i] = (u if u < acc else acc) if reduction == "min" else (u if acc < u else acc)
        x, y = ops.parameter([4], np.float32, name="x"), ops.parameter([4], np.float32, name="u")
        node = ops.scatter_elements_update(x, ops.constant(indices), y, ops.constant(np.int64(0)), reduction, True)
        got = compiled(ov.Model([node], [x, y], "scatter")).create_infer_request().infer([data, updates])[0]
        right &= bool(np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want)))
    lowest = float(np.finfo(np.float32).min)
    fresh = {"min": np.array([1.0, -0.0, 0.0, -np.inf, 7.0], np.float32),
             "max": np.array([1.0, -0.0, 0.0, lowest, 7.0], np.float32)}
    for reduction, want in fresh.items():  # (use_init_val false: the data's 7.0 untouched but the last)
        x, y = ops.parameter([5], np.float32, name="x"), ops.parameter([7], np.float32, name="u")
        at = ops.constant(np.array([0, 0, 1, 1, 2, 2, 3], np.int64))
        node = ops.scatter_elements_update(x, at, y, ops.constant(np.int64(0)), reduction, False)
        got = compiled(ov.Model([node], [x, y], "scatter")).create_infer_request().infer(
            [np.full([5], 7.0, np.float32), np.array([1.0, np.nan, -0.0, 0.0, 0.0, -0.0, -np.inf], np.float32)])[0]
        right &= bool(np.array_equal(got, want, equal_nan=True) and np.array_equal(np.signbit(got), np.signbit(want)))
    return right


def scatter_no_init() -> dict[str, bool] | None:
    """Whether the CPU plugin computes ScatterElementsUpdate-12 (axis 0) as the current one does where the updates
    alone decide: ``max`` of f32 with use_init_val false where a place's updates are all negative (2023.1: f32's least
    positive normal, 1.1754944e-38, not their maximum), and ``mean`` of i32 (use_init_val true and false) where a
    mean is negative and not whole (2023.1 to 2024.0: -3 / 2 gives -2, the current one -1); None if the release has
    no opset12."""
    try:
        import openvino.opset12 as ops
    except ImportError:  # 2023.x
        try:
            import openvino.runtime.opset12 as ops
        except ImportError:
            return None
    indices = np.array([0, 0, 1, 2, 2, 3], np.int64)
    asked = {"max": (np.float32, [(False, np.array([-1.5, -2.5, -6.0, 2.0, -5.0, 0.0], np.float32),
                                    np.array([-1.5, -6.0, 2.0, 0.0, 4.0], np.float32))]),
             "mean": (np.int32, [(True, np.array([-1, 0, -6, 2, -5, 0], np.int32),
                                  np.array([-1, -1, -3, -4, 4], np.int32)),
                                 (False, np.array([-1, -2, -6, 2, -5, 0], np.int32),
                                  np.array([-1, -6, -1, 0, 4], np.int32))])}
    right = {}
    for reduction, (dtype, cases) in asked.items():
        right[reduction] = True
        for use_init_val, updates, want in cases:
            data = np.array([-2, 3, -7, -9, 4], dtype)
            x, y = ops.parameter([5], dtype, name="x"), ops.parameter([6], dtype, name="u")
            node = ops.scatter_elements_update(x, ops.constant(indices), y, ops.constant(np.int64(0)), reduction,
                                               use_init_val)
            got = compiled(ov.Model([node], [x, y], "scatter")).create_infer_request().infer([data, updates])[0]
            right[reduction] &= bool(np.array_equal(got, want))
    return right


def scatter_empty() -> dict[str, str] | None:
    """What the CPU plugin does with ScatterElementsUpdate-12 (axis 0, use_init_val true) of data [?, 4] given
    indices and updates of 0 rows at inference (aten::index_add_ of an MoE model, for an expert no token goes to), per
    reduction: "right" if it gives the data, "wrong" if other values, "fails" if it fails at inference (2023.1 and
    2023.2 on every reduction but none: "Cannot get dims for non static shape"); None if the release has no opset12."""
    try:
        import openvino.opset12 as ops
    except ImportError:  # 2023.x
        try:
            import openvino.runtime.opset12 as ops
        except ImportError:
            return None
    data = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    answers = {}
    for reduction in ("none", "sum", "prod", "min", "max", "mean"):
        x, i, u = (ops.parameter([-1, 4], t, name=n) for n, t in (("x", np.float32), ("i", np.int64),
                                                                   ("u", np.float32)))
        node = ops.scatter_elements_update(x, i, u, ops.constant(np.int64(0)), reduction, True)
        network = compiled(ov.Model([node], [x, i, u], "scatter"))
        try:
            got = network.create_infer_request().infer([data, np.zeros((0, 4), np.int64),
                                                        np.zeros((0, 4), np.float32)])[0]
        except RuntimeError as error:
            print(f"ScatterElementsUpdate-12 {reduction} of 0 updates: {error}", file=sys.stderr)
            answers[reduction] = "fails"
            continue
        answers[reduction] = "right" if np.array_equal(got, data) else "wrong"
    return answers


def max_pool_ceil_torch() -> bool | None:
    """Whether the CPU plugin computes MaxPool-14 with rounding_type ceil_torch as the current one does: values and
    indices of [1, 1, 6, 6] with kernel 2, stride 2, pads 1/0 (4 windows an axis; 2024.2: 3) and with kernel 2,
    dilation 2, stride 1, pads 0/1 and 0/0 ([4, 5] windows; 2024.2: [4, 4]); None if it does not read the value."""
    try:
        import openvino.opset14 as ops
    except ImportError:
        try:
            import openvino.runtime.opset14 as ops
        except ImportError:
            return None
    data = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)[:, :, ::-1].copy()
    cases = (([2, 2], [1, 1], [1, 1], [0, 0], np.array([[30, 32, 34, 35], [24, 26, 28, 29], [12, 14, 16, 17],
                                                         [0, 2, 4, 5]], np.float32)),
             ([1, 1], [2, 2], [0, 1], [0, 0], np.array([[31, 32, 33, 34, 35], [25, 26, 27, 28, 29],
                                                         [19, 20, 21, 22, 23], [13, 14, 15, 16, 17]], np.float32)))
    for strides, dilations, pads_begin, pads_end, want in cases:
        x = ops.parameter([1, 1, 6, 6], np.float32, name="x")
        try:
            node = ops.max_pool(x, strides, dilations, pads_begin, pads_end, [2, 2], "ceil_torch", "explicit", "i64")
            got = compiled(ov.Model([node.output(0)], [x], "pool")).create_infer_request().infer([data])[0]
        except RuntimeError:  # ("ceil_torch" is not a member of enum ov::op::RoundingType: 2024.0)
            return None
        if got.shape != (1, 1, *want.shape) or not np.array_equal(got[0, 0], want):
            return False
    return True


def left_shift_16() -> bool | None:
    """Whether the CPU plugin computes BitwiseLeftShift-15 on i16 and u16 as the current one does, wrapping (i16
    32767 << 1 is -2, u16 65535 << 1 is 65534; 2024.4 to 2025.3 saturate); None if the release has no such op."""
    try:
        import openvino.opset1 as o1
        import openvino.opset15 as ops
    except ImportError:
        try:
            import openvino.runtime.opset1 as o1
            import openvino.runtime.opset15 as ops
        except ImportError:
            return None
    if not hasattr(ops, "bitwise_left_shift"):  # (2024.2 and 2024.3: an opset15 without it)
        return None
    for dtype, values, want in ((np.int16, [32767, -32768, 5], [-2, 0, 10]),
                                (np.uint16, [65535, 1, 5], [65534, 2, 10])):
        x = o1.parameter([3], dtype, name="x")
        node = ops.bitwise_left_shift(x, o1.constant(np.ones(3, dtype)))
        got = compiled(ov.Model([node], [x], "shift")).create_infer_request().infer([np.array(values, dtype)])[0]
        if not np.array_equal(got, np.array(want, dtype)):
            return False
    return True


#: What ``fake_convert`` plants among its seeded data: NaN, infinities, signed zeros, an f32 subnormal, ties of the
#: f8e4m3 and f8e5m2 grids (1.0625, 1.125: their midpoints by 1), their subnormal ranges (2^-10, 2^-17) and f16's
#: carries (just below 2^-15 and 2^-16), and the saturation limits (448, 464, 57344, 61440).
FAKE_CONVERT_PLANTED = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e-40, 1.0625, -1.0625, 1.125, 1.1875,
                        2.0**-10, 3 * 2.0**-10, 2.0**-17, 2.0**-15 * (1 - 2.0**-13), 2.0**-16 * (1 - 2.0**-13), 448.0,
                        464.0, -480.0, 57344.0, 61440.0, -65536.0, 1e30]


def fake_convert() -> dict[str, dict[str, str]] | str:
    """Digests of what the CPU plugin computes for FakeConvert-13 on f32 and f16 data (f16 by Convert-1 inside the
    model, as a compressed model has it), each f8 destination, with a shift and without, on 4 rows of 64 seeded values
    with ``FAKE_CONVERT_PLANTED`` among them: ``fed`` with data, scale and shift fed, ``folded`` with all three Consts
    (which OpenVINO folds by its reference evaluator), each "f16 f8e5m2 shift" -> digest, NaN made one NaN;
    scripts/make_release_table.py holds them against the current release's (2024.0 keeps NaN, gives +-inf, rounds
    otherwise and divides by the scale; 2025.3 on as the current one). "not created" where the release has no
    FakeConvert-13 (before 2023.3)."""
    try:
        import openvino.opset1 as o1
        import openvino.opset13 as o13
    except ImportError:
        try:
            import openvino.runtime.opset1 as o1
            import openvino.runtime.opset13 as o13
        except ImportError:
            return "not created"
    if not hasattr(o13, "fake_convert"):
        return "not created"
    rng = np.random.default_rng(8)
    data = rng.standard_normal((4, 64)) * np.exp2(rng.uniform(-18, 10, (4, 64)))
    data[:, :len(FAKE_CONVERT_PLANTED)] = FAKE_CONVERT_PLANTED
    scale = np.array([[1.0], [0.5], [-3.0], [1.37]])
    shift = np.array([[0.0], [-0.0], [0.25], [-1.3]])
    feed = [data.astype(np.float32), scale.astype(np.float32), shift.astype(np.float32)]
    params = [o1.parameter(list(value.shape), np.float32, name=f"in{i}") for i, value in enumerate(feed)]
    ones = o1.parameter([4, 64], np.float32, name="ones")  # (a folded layer's reader: x * 1 keeps -0.0)
    keys, results = [], []
    for how, element, dest, shifted in itertools.product(("fed", "folded"), ("f32", "f16"), ("f8e4m3", "f8e5m2"),
                                                         (True, False)):
        inputs = params if how == "fed" else [o1.constant(value) for value in feed]
        inputs = inputs if shifted else inputs[:2]
        if element == "f16":
            inputs = [o1.convert(p, "f16") for p in inputs]
        node = o13.fake_convert(*inputs, destination_type=dest)
        node = node if element == "f32" else o1.convert(node, "f32")
        results.append(node if how == "fed" else o1.multiply(node, ones))
        keys.append((how, f"{element} {dest}{' shift' if shifted else ''}"))
    request = compiled(ov.Model(results, [*params, ones], "fake_convert")).create_infer_request()
    request.infer([*feed, np.ones((4, 64), np.float32)])
    digests: dict[str, dict[str, str]] = {"fed": {}, "folded": {}}
    for i, (how, key) in enumerate(keys):
        got = request.get_output_tensor(i).data
        digests[how][key] = _digest(np.where(np.isnan(got), np.float32("nan"), got))
    return digests


def segment_max() -> dict[str, bool] | None:
    """Whether the CPU plugin computes SegmentMax-16 as the current one does: ``zero``, f32 segments [-5, -3] and [-7]
    of fill_mode ZERO as -3 and -7 (2025.1: 0 and 0); ``i16_lowest``, an empty i16 segment of fill_mode LOWEST as 0
    (2025.1 to 2025.3: -32768); None if the release has no SegmentMax-16."""
    try:
        import openvino.opset1 as o1
        import openvino.opset16 as ops
    except ImportError:
        return None
    if not hasattr(ops, "segment_max"):
        return None
    ids = np.array([0, 0, 1, 3, 3], np.int32)
    right = {}
    for key, dtype, fill, want in (("zero", np.float32, "ZERO", [-3, -7, 0, 4]),
                                   ("i16_lowest", np.int16, "LOWEST", [-3, -7, 0, 4])):
        x, s = o1.parameter([5], dtype, name="x"), o1.parameter([5], np.int32, name="ids")
        node = ops.segment_max(x, s, None, fill)
        got = compiled(ov.Model([node], [x, s], "segments")).create_infer_request().infer(
            [np.array([-5, -3, -7, 4, 2], dtype), ids])[0]
        right[key] = bool(np.array_equal(got, np.array(want, dtype)))
    return right


#: Each Reduce op probed over an empty axis (opset, element type) and what the current CPU plugin gives there, the
#: reduction's start: f32's lowest for ReduceMax, its largest for ReduceMin, 0 for the sums and the mean (not NaN).
REDUCE_EMPTY = {"ReduceMax": ("opset1", np.float32, np.finfo(np.float32).min),
                "ReduceMin": ("opset1", np.float32, np.finfo(np.float32).max),
                "ReduceSum": ("opset1", np.float32, 0.0), "ReduceProd": ("opset1", np.float32, 1.0),
                "ReduceMean": ("opset1", np.float32, 0.0), "ReduceL1": ("opset4", np.float32, 0.0),
                "ReduceL2": ("opset4", np.float32, 0.0), "ReduceLogicalAnd": ("opset1", bool, True),
                "ReduceLogicalOr": ("opset1", bool, False)}


def reduce_empty_axis() -> dict[str, dict[str, str]]:
    """What the CPU plugin gives for each Reduce op of ``REDUCE_EMPTY`` over an axis of length 0, x [3, 4] sliced to
    [3, 0] (StridedSlice-1, "static") and x [?, ?] fed [3, 0] ("dynamic"), reduced over axis 1, inferred twice: op ->
    form -> "right" if both inferences give ``REDUCE_EMPTY``'s start for each of the 3 rows, "wrong" if not (2023.0 to
    2024.5: whatever the output's memory held), "fails" if it does not compile or run it."""
    answers: dict[str, dict[str, str]] = {}
    for op, (opset, dtype, start) in REDUCE_EMPTY.items():
        answers[op] = {}
        for form, declared, fed in (("static", [3, 4], np.ones([3, 4], dtype)), ("dynamic", [-1, -1],
                                                                                  np.ones([3, 0], dtype))):
            element = "BOOL" if dtype is bool else "FP32"
            kind = "boolean" if dtype is bool else "f32"
            dims = [3, 0] if form == "static" else [-1, -1]
            ints = '<data element_type="i64" shape="2" offset="{}" size="16"/>'
            body = "".join(f'<layer id="{i}" name="c{i}" type="Const" version="opset1">{ints.format(16 * (i - 1))}'
                           f'<output>{port(0, "I64", [2])}</output></layer>' for i in (1, 2, 3))
            body += ('<layer id="4" name="axis" type="Const" version="opset1"><data element_type="i64" shape="1" '
                     f'offset="48" size="8"/><output>{port(0, "I64", [1])}</output></layer>')
            if form == "static":
                body += ('<layer id="5" name="slice" type="StridedSlice" version="opset1"><data begin_mask="1,0" '
                         'end_mask="1,0" new_axis_mask="" shrink_axis_mask="" ellipsis_mask=""/><input>'
                         f'{port(0, element, declared)}{port(1, "I64", [2])}{port(2, "I64", [2])}'
                         f'{port(3, "I64", [2])}</input><output>{port(4, element, dims)}</output></layer>')
                edges = "".join(f'<edge from-layer="{i}" from-port="0" to-layer="5" to-port="{i}"/>' for i in (1, 2, 3))
                edges += ('<edge from-layer="0" from-port="0" to-layer="5" to-port="0"/>'
                          '<edge from-layer="5" from-port="4" to-layer="6" to-port="0"/>')
            else:
                edges = '<edge from-layer="0" from-port="0" to-layer="6" to-port="0"/>'
            body += (f'<layer id="6" name="op" type="{op}" version="{opset}"><data keep_dims="false"/><input>'
                     f'{port(0, element, dims)}{port(1, "I64", [1])}</input><output>{port(2, element, [3])}</output>'
                     f'</layer><layer id="7" name="r" type="Result" version="opset1"><input>{port(0, element, [3])}'
                     '</input></layer>')
            edges += ('<edge from-layer="4" from-port="0" to-layer="6" to-port="1"/>'
                      '<edge from-layer="6" from-port="2" to-layer="7" to-port="0"/>')
            xml = (f'<?xml version="1.0"?>\n<net name="probe" version="11"><layers>'
                   f'{parameter(0, "x", kind, element, declared)}{body}</layers><edges>{edges}</edges></net>')
            weights = np.array([0, 0, 0, 0, 1, 1, 1], np.int64).tobytes()  # begin, end, strides, axis
            try:
                model = ov.Core().read_model(xml, ov.Tensor(np.frombuffer(weights, np.uint8)))
                request = compiled(model).create_infer_request()
                got = [np.array(request.infer([fed])[0]) for _ in range(2)]
            except RuntimeError as error:
                print(f"{op} over an empty axis ({form}): {str(error).strip()[-200:]}", file=sys.stderr)
                answers[op][form] = "fails"
                continue
            right = all(g.shape == (3,) and (g == np.array(start, dtype)).all() for g in got)
            answers[op][form] = "right" if right else "wrong"
    return answers


#: The Reduce ops and integer types ``reduce_empty_integers`` probes over an empty axis: those whose start the
#: current CPU plugin computes in i32 and casts (i16's ReduceMax 0 and ReduceMin -1, u32's ReduceMax 2^31).
REDUCE_EMPTY_INTEGERS = {"ReduceMax": (("i16", np.int16), ("u32", np.uint32), ("u64", np.uint64)),
                         "ReduceMin": (("i16", np.int16),)}


def reduce_empty_integers() -> dict[str, dict[str, str]]:
    """What the CPU plugin gives for ReduceMax-1 and ReduceMin-1 of ``REDUCE_EMPTY_INTEGERS``' types over an axis of
    length 0 (x [3, 4] sliced to [3, 0] by StridedSlice-1, reduced over axis 1, inferred twice): op -> type -> the
    value, where both inferences give one value for each of the 3 rows (2024.6 to 2025.3: i16 -32768 and 32767, u32
    and u64 0; 2025.4 on 0, -1, 2147483648 and 18446744071562067968), else "garbage" (2023.0 to 2024.5: whatever the
    output's memory held), or "fails" where it does not compile or run it."""
    try:
        import openvino.opset1 as o1
    except ImportError:  # 2023.x
        import openvino.runtime.opset1 as o1
    answers: dict[str, dict[str, str]] = {}
    for op, types in REDUCE_EMPTY_INTEGERS.items():
        answers[op] = {}
        for element, dtype in types:
            x = o1.parameter([3, 4], dtype, name="x")
            zeros, ones = o1.constant(np.zeros(2, np.int64)), o1.constant(np.ones(2, np.int64))
            empty = o1.strided_slice(x, zeros, zeros, ones, [1, 0], [1, 0])
            reduce = o1.reduce_max if op == "ReduceMax" else o1.reduce_min
            node = reduce(empty, o1.constant(np.array([1], np.int64)), False)
            try:
                request = compiled(ov.Model([node], [x], "reduce")).create_infer_request()
                got = [np.array(request.infer([np.ones([3, 4], dtype)])[0]) for _ in range(2)]
            except RuntimeError as error:
                print(f"{op} of {element} over an empty axis: {str(error).strip()[-200:]}", file=sys.stderr)
                answers[op][element] = "fails"
                continue
            values = {int(v) for g in got for v in g.reshape(-1)}
            answers[op][element] = str(values.pop()) if len(values) == 1 and got[0].shape == (3,) else "garbage"
    return answers


#: The Reduce ops ``reduce_integers`` asks on integers, with the opset of each, and the integer types.
REDUCE_INTEGER_OPS = {"ReduceMean": "opset1", "ReduceSum": "opset1", "ReduceProd": "opset1", "ReduceL1": "opset4",
                      "ReduceL2": "opset4", "ReduceMax": "opset1", "ReduceMin": "opset1"}
REDUCE_INTEGER_TYPES = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32,
                        "u32": np.uint32, "i64": np.int64, "u64": np.uint64}
#: The ranges the values are drawn from (each clipped to the type's, and to i32's, through which 2023.0 to 2025.3
#: read u32, i64 and u64): means that round otherwise than they truncate, and sums and products beyond the type.
REDUCE_INTEGER_RANGES = ((-7, 7), (-100, 100), (-100000, 100000), (-2**31, 2**31 - 1))


def reduce_integer_input(element: str) -> np.ndarray:
    """The input ``reduce_integers`` reduces on ``element``: [200, 5], 50 rows from each of
    ``REDUCE_INTEGER_RANGES``, of values spread by a multiplicative hash (no random generator, whose stream numpy may
    change: every release's Python draws the same)."""
    dtype = REDUCE_INTEGER_TYPES[element]
    info = np.iinfo(dtype)
    spread = (np.arange(250, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(12345)) % np.uint64(2**32)
    rows = []
    for low, high in REDUCE_INTEGER_RANGES:
        low, high = max(low, int(info.min), -2**31), min(high, int(info.max), 2**31 - 1)
        rows.append((spread.astype(np.int64) % (high - low + 1) + low).reshape(50, 5))
        spread = (spread * np.uint64(2654435761) + np.uint64(977)) % np.uint64(2**32)
    return np.concatenate(rows).astype(dtype)


def reduce_integers() -> dict[str, dict[str, str]]:
    """What the CPU plugin computes for each Reduce op of ``REDUCE_INTEGER_OPS`` on each integer type, over axis 1
    of ``reduce_integer_input`` (keep_dims false): op -> type -> a digest of the 200 values (``make_release_table``
    holds it against the current release's), or "fails" where it does not compile or run it. 2023.0 to 2024.3 round
    a mean where the current one truncates (-20082.6: -20083, not -20082); 2023.0 to 2025.3 saturate an i16 sum
    where it wraps."""
    import hashlib

    try:
        import openvino.opset1 as o1
        import openvino.opset4 as o4
    except ImportError:  # 2023.x
        import openvino.runtime.opset1 as o1
        import openvino.runtime.opset4 as o4
    build = {"ReduceMean": o1.reduce_mean, "ReduceSum": o1.reduce_sum, "ReduceProd": o1.reduce_prod,
             "ReduceL1": o4.reduce_l1, "ReduceL2": o4.reduce_l2, "ReduceMax": o1.reduce_max,
             "ReduceMin": o1.reduce_min}
    answers: dict[str, dict[str, str]] = {}
    for op in REDUCE_INTEGER_OPS:
        answers[op] = {}
        for element, dtype in REDUCE_INTEGER_TYPES.items():
            x = o1.parameter([200, 5], dtype, name="x")
            node = build[op](x, o1.constant(np.array([1], np.int64)), False)
            try:
                got = np.array(compiled(ov.Model([node], [x], "reduce")).create_infer_request().infer(
                    [reduce_integer_input(element)])[0])
            except RuntimeError as error:
                print(f"{op} of {element}: {str(error).strip()[-200:]}", file=sys.stderr)
                answers[op][element] = "fails"
                continue
            answers[op][element] = hashlib.sha256(got.astype(dtype).tobytes()).hexdigest()[:16]
    return answers


def identity() -> bool | None:
    """True if the CPU plugin compiles and runs Identity-16 (f32), its output equal to its input; False if it fails
    to compile or run it (2025.0: "Unsupported operation of type: Identity") or computes something else; None if the
    release does not read Identity-16."""
    dims = "<dim>1</dim><dim>1</dim><dim>4</dim>"
    layer = LAYER.format(id=1, name="identity", type="Identity", version="opset16", data="",
                         outputs=f'<port id="1" precision="FP32">{dims}</port>')
    model = read(NET.format(ir=11, layer=layer, dims=dims))
    if model is None:
        return None
    x = np.array([[[-1.5, 0.0, 2.25, 3e38]]], np.float32)
    try:
        got = compiled(model).create_infer_request().infer([x])[0]
    except RuntimeError as error:
        print(f"Identity-16: {error}", file=sys.stderr)
        return False
    return bool(np.array_equal(got, x))


def _bitwise_values(element: str) -> np.ndarray:
    """Edge values of ``element`` (its minimum, maximum, 0, 1, -1 or max - 1, the high bit, ...) and seeded ones; of
    i64 and u64 only those within i32 (every release computes them through i32, the current one too: BitwiseNot-13
    of u64 2^63 - 1 gives 0 on 2026.4)."""
    info = np.iinfo(np.dtype(BITWISE_TYPES[element]))
    low, high = (max(int(info.min), -2**31), min(int(info.max), 2**31 - 1)) if info.bits == 64 else (info.min, info.max)
    edges = [low, high, 0, 1, high - 1, high // 2, high // 2 + 1, 0x55 % (high + 1)]
    if low < 0:
        edges += [-1, low + 1, -2]
    seeded = np.random.default_rng(2).integers(low, high, 24, dtype=np.dtype(BITWISE_TYPES[element]),
                                              endpoint=True)
    return np.concatenate([np.array(edges, np.dtype(BITWISE_TYPES[element])), seeded])


def bitwise() -> dict[str, dict[str, bool]] | None:
    """Per Bitwise op of opset13 (Not, And, Or, Xor) and integer element type (``BITWISE_TYPES``): True if the CPU
    plugin computes it exactly as numpy does, on edge and seeded values (And/Or/Xor: every pair of 32 values of each
    side), False if not or if it fails to compile or run it; None if the release does not read BitwiseNot-13."""
    answers: dict[str, dict[str, bool]] = {}
    for op in ("BitwiseNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        answers[op] = {}
        for element, dtype in BITWISE_TYPES.items():
            values = _bitwise_values(element)
            n = values.size
            binary = op != "BitwiseNot"
            a = np.repeat(values, n) if binary else values
            b = np.tile(values, n)
            precision = element.upper()
            params = parameter(0, "a", element, precision, [a.size])
            inputs = port(0, precision, [a.size])
            edges = '<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>'
            if binary:
                params += parameter(1, "b", element, precision, [a.size])
                inputs += port(1, precision, [a.size])
                edges += '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>'
            out = port(2, precision, [a.size])
            model = read(BITWISE.format(params=params, op=op, inputs=inputs, out=out, result=port(0, precision,
                                                                                                [a.size]),
                                        edges=edges))
            if model is None:
                if op == "BitwiseNot" and element == "u8":
                    return None
                answers[op][element] = False
                continue
            want = np.invert(a) if not binary else BITWISE_NUMPY[op](a, b)
            try:
                got = compiled(model).create_infer_request().infer([a, b] if binary else [a])[0]
            except RuntimeError as error:
                print(f"{op} {element}: {error}", file=sys.stderr)
                answers[op][element] = False
                continue
            right = got.dtype == np.dtype(dtype) and np.array_equal(got, want)
            if not right:
                wrong = np.flatnonzero(got != want)[:3]
                print(f"{op} {element}: e.g. {[(a[i], b[i] if binary else None, got[i], want[i]) for i in wrong]}",
                      file=sys.stderr)
            answers[op][element] = bool(right)
    return answers


def bitwise_boolean() -> dict[str, bool] | None:
    """Per Bitwise op of opset13 (Not, And, Or, Xor): True if the CPU plugin computes it on booleans as numpy does
    (every pair of False and True; 2023.2 gives True for BitwiseNot of either), False if not or if it fails to compile
    or run it; None if the release does not read BitwiseNot-13."""
    a, b = np.array([False, False, True, True]), np.array([False, True, False, True])
    answers: dict[str, bool] = {}
    for op in ("BitwiseNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        binary = op != "BitwiseNot"
        params, inputs = parameter(0, "a", "boolean", "BOOL", [4]), port(0, "BOOL", [4])
        edges = '<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>'
        if binary:
            params += parameter(1, "b", "boolean", "BOOL", [4])
            inputs += port(1, "BOOL", [4])
            edges += '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>'
        model = read(BITWISE.format(params=params, op=op, inputs=inputs, out=port(2, "BOOL", [4]),
                                    result=port(0, "BOOL", [4]), edges=edges))
        if model is None:
            if op == "BitwiseNot":
                return None
            answers[op] = False
            continue
        want = BITWISE_NUMPY[op](a, b) if binary else np.logical_not(a)
        try:
            got = compiled(model).create_infer_request().infer([a, b] if binary else [a])[0]
        except RuntimeError as error:
            print(f"{op} boolean: {error}", file=sys.stderr)
            answers[op] = False
            continue
        answers[op] = bool(np.array_equal(got.astype(bool), want))
        if not answers[op]:
            print(f"{op} boolean: {got.astype(bool).tolist()}, want {want.tolist()}", file=sys.stderr)
    return answers


def dynamic_state() -> bool:
    """True if the CPU plugin runs, twice in a row, a model whose ReadValue-6 / Assign-6 variable has a dynamic
    shape (``?,4``), with the right answers: x, then 2 x (the state starts at zero, then holds the last sum)."""
    dims = [-1, 4]
    model = read(STATE.format(x=parameter(0, "x", "f32", "FP32", dims), p0=port(0, "FP32", dims),
                              p1=port(1, "FP32", dims), p2=port(2, "FP32", dims)))
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    try:
        request = compiled(model).create_infer_request()
        first, second = (request.infer([x])[0].copy() for _ in range(2))
    except RuntimeError as error:
        print(f"dynamic state: {error}", file=sys.stderr)
        return False
    return bool(np.array_equal(first, x) and np.array_equal(second, 2 * x))


def opsets() -> dict[str, dict[str, str]]:
    """Each opsetN's types, each with its op version: the opset its class came in (``MaxPool`` of opset14 is
    ``opset14``, of opset8 ``opset8``), which says when two spellings are the same op."""
    names = sorted(candidates())
    table = {}
    for n in range(1, MAX_PROBED + 1):
        try:
            factory = NodeFactory(f"opset{n}")
        except RuntimeError:
            break
        found = {}
        for name in names:
            try:
                node = factory.create(name)
            except Exception:  # noqa: BLE001, S112 (not a type of this opset)
                continue
            found[node.get_type_info().name] = node.get_type_info().version_id
        table[f"opset{n}"] = dict(sorted(found.items()))
    return table


def values() -> list[dict[str, str]]:
    """The probed attribute values this release reads (a layer of that op version with that value)."""
    known = []
    for op_type, version, attribute, value, data in VALUES:
        outputs = '<port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>3</dim></port>'
        if op_type == "MaxPool":
            outputs += '<port id="2" precision="I64"><dim>1</dim><dim>1</dim><dim>3</dim></port>'
        layer = LAYER.format(id=1, name="p", type=op_type, version=version, data=data, outputs=outputs)
        xml = NET.format(ir=11, layer=layer, dims="<dim>1</dim><dim>1</dim><dim>3</dim>")
        if reads(xml):
            known.append({"type": op_type, "opset": version, "attribute": attribute, "value": value})
    if random_uniform_alignment():
        known.append({"type": "RandomUniform", "opset": "opset8", "attribute": "alignment", "value": "pytorch"})
    return known


#: RandomUniform-8 of seeds 7 and 11 into f32 [3, 5], its alignment the placeholder (its weights: ``_RANDOM_WEIGHTS``).
RANDOM_UNIFORM = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
<layer id="0" name="shape" type="Const" version="opset1"><data element_type="i64" shape="2" offset="0" size="16"/>
<output><port id="0" precision="I64"><dim>2</dim></port></output></layer>
<layer id="1" name="lo" type="Const" version="opset1"><data element_type="f32" shape="" offset="16" size="4"/>
<output><port id="0" precision="FP32"/></output></layer>
<layer id="2" name="hi" type="Const" version="opset1"><data element_type="f32" shape="" offset="20" size="4"/>
<output><port id="0" precision="FP32"/></output></layer>
<layer id="3" name="u" type="RandomUniform" version="opset8">
<data output_type="f32" global_seed="7" op_seed="11" alignment="{alignment}"/>
<input><port id="0" precision="I64"><dim>2</dim></port><port id="1" precision="FP32"/><port id="2" precision="FP32"/>
</input><output><port id="3" precision="FP32"><dim>3</dim><dim>5</dim></port></output></layer>
<layer id="4" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32"><dim>3</dim><dim>5</dim>
</port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
<edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>
<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/></edges></net>"""
_RANDOM_WEIGHTS = np.array([3, 5], np.int64).tobytes() + np.array([0, 1], np.float32).tobytes()


def random_uniform_alignment() -> bool:
    """Whether the release draws RandomUniform-8 of ``alignment="pytorch"`` (PyTorch's sequence) otherwise than of
    "tensorflow", the seeds fixed, on CPU: 2023.0 to 2024.2 read the attribute and ignore it (the same numbers), and
    2024.3 to 2024.6 read it but their CPU plugin does not compile it ("Only TENSORFLOW alignment mode is supported"),
    which the values probe's reading alone does not tell."""
    drawn = []
    for alignment in ("tensorflow", "pytorch"):
        model = read_with(RANDOM_UNIFORM.format(alignment=alignment), _RANDOM_WEIGHTS)
        if model is None:
            return False
        try:
            request = compiled(model).create_infer_request()
            request.infer()
        except RuntimeError:
            return False
        drawn.append(np.array(request.get_output_tensor(0).data))
    return not np.array_equal(*drawn)


def ir_versions() -> list[int]:
    layer = LAYER.format(id=1, name="a", type="ReLU", version="opset1", data="",
                         outputs='<port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim></port>')
    return [v for v in (10, 11) if reads(NET.format(ir=v, layer=layer, dims="<dim>1</dim><dim>1</dim><dim>4</dim>"))]


def duplicate_layer_names() -> dict[str, bool]:
    """Per IR version ("10", "11"): True if the reader takes an IR in which two layers have the same name."""
    return {str(v): reads(DUPLICATE_NAMES.format(ir=v)) for v in (10, 11)}


def i4_zero_point() -> bool:
    """True if the CPU plugin computes NNCF's weight decompression of i4 weights less an i4 zero point (i4 Consts
    converted to f16, subtracted, times an f16 scale, converted to f32, into a MatMul) within 1e-2 of the largest
    output of float64 numpy (an f16 fold is within 1e-3; 2024.0 is twice the largest output away); False if not."""
    try:
        import openvino.opset1 as ops
    except ImportError:  # 2023.x
        import openvino.runtime.opset1 as ops

    rng = np.random.default_rng(5)
    weights, zero = rng.integers(-8, 8, (32, 64)), rng.integers(-8, 8, (32, 1))
    scale = (rng.random((32, 1)) * 0.01 + 0.001).astype(np.float16)
    x = rng.standard_normal((2, 64)).astype(np.float32)

    def i4(values: np.ndarray) -> ov.Node:
        return ops.convert(ov.op.Constant(ov.Type.i4, ov.Shape(list(values.shape)), values.ravel().tolist()), "f16")

    decompressed = ops.convert(ops.multiply(ops.subtract(i4(weights), i4(zero)), ops.constant(scale)), "f32")
    data = ops.parameter([2, 64], np.float32, name="x")
    model = ov.Model([ops.matmul(data, decompressed, False, True)], [data], "i4_zero_point")
    want = x.astype(np.float64) @ ((weights - zero) * scale.astype(np.float64)).T
    core = ov.Core()
    known = core.get_property("CPU", "SUPPORTED_PROPERTIES")
    config = {"INFERENCE_PRECISION_HINT": "f32", **({"DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
                                                    if "DYNAMIC_QUANTIZATION_GROUP_SIZE" in known else {})}
    try:
        got = core.compile_model(model, "CPU", config).create_infer_request().infer([x])[0]
    except RuntimeError as error:
        print(f"i4 zero point: {error}", file=sys.stderr)
        return False
    error = float(np.abs(got - want).max() / np.abs(want).max())
    print(f"i4 zero point: {error:.2e} of the largest output away", file=sys.stderr)
    return error <= 1e-2


def one_channel_ir() -> str:
    """x [1, ?, 64] -> (its KV-cache: ReadValue-6 of no init, Concat with x, Assign-6) -> ScaledDotProductAttention-13
    of x and the cache -> Result; and x -> Reshape [?, 64] -> MatMul (transpose_b) by f16 weights [1, 64] converted to
    f32 by a decompression Convert -> Result (weights: the shape's i64, then the f16's)."""
    def x(i: int) -> str:
        return port(i, "FP32", [1, -1, 64])

    def w(i: int, precision: str = "FP32") -> str:
        return port(i, precision, [1, 64])

    edges = [(2, 1, 3, 0), (0, 0, 3, 1), (3, 2, 4, 0), (0, 0, 5, 0),
             (3, 2, 5, 1), (3, 2, 5, 2), (5, 3, 6, 0), (0, 0, 8, 0), (7, 0, 8, 1), (9, 0, 10, 0), (8, 2, 11, 0),
             (10, 1, 11, 1), (11, 2, 12, 0)]
    return f"""<?xml version="1.0"?>
<net name="probe" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,?,64" element_type="f32"/>
<output>{x(0)}</output></layer>
<layer id="2" name="read" type="ReadValue" version="opset6"><data variable_id="cache" variable_type="f32"
variable_shape="1,?,64"/><output>{x(1)}</output></layer>
<layer id="3" name="cache" type="Concat" version="opset1"><data axis="1"/><input>{x(0)}{x(1)}</input><output>{x(2)}
</output></layer>
<layer id="4" name="assign" type="Assign" version="opset6"><data variable_id="cache"/><input>{x(0)}</input>
<output>{x(1)}</output></layer>
<layer id="5" name="attention" type="ScaledDotProductAttention" version="opset13"><data causal="false"/>
<input>{x(0)}{x(1)}{x(2)}</input><output>{x(3)}</output></layer>
<layer id="6" name="r0" type="Result" version="opset1"><input>{x(0)}</input></layer>
<layer id="7" name="rows" type="Const" version="opset1"><data element_type="i64" shape="2" offset="0" size="16"/>
<output>{port(0, "I64", [2])}</output></layer>
<layer id="8" name="flat" type="Reshape" version="opset1"><data special_zero="false"/><input>{x(0)}
{port(1, "I64", [2])}</input><output>{port(2, "FP32", [-1, 64])}</output></layer>
<layer id="9" name="w" type="Const" version="opset1"><data element_type="f16" shape="1,64" offset="16" size="128"/>
<output>{w(0, "FP16")}</output></layer>
<layer id="10" name="w32" type="Convert" version="opset1"><data destination_type="f32"/><rt_info>
<attribute name="decompression" version="0"/></rt_info><input>{w(0, "FP16")}</input><output>{w(1)}</output></layer>
<layer id="11" name="gate" type="MatMul" version="opset1"><data transpose_a="false" transpose_b="true"/>
<input>{port(0, "FP32", [-1, 64])}{w(1)}</input><output>{port(2, "FP32", [-1, 1])}</output></layer>
<layer id="12" name="r1" type="Result" version="opset1"><input>{port(0, "FP32", [-1, 1])}</input></layer>
</layers><edges>{"".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                          for a, b, c, d in edges)}</edges></net>"""


def one_channel_decompression() -> bool | None:
    """True if the CPU plugin (at f32) runs a MatMul of f16 weights of one output channel (a [1, 64] Const, converted
    to f32 by a decompression Convert, as ``save_model`` compresses it) beside a ScaledDotProductAttention-13 of a
    KV-cache (``one_channel_ir``), fed 8 rows, within 1e-3 of float64 numpy; False if it fails (2025.0, fed 5 rows or
    more: "could not create a primitive descriptor for an inner product forward propagation primitive"); null where
    its reader refuses the IR (no SDPA-13)."""
    weights = np.random.default_rng(7).standard_normal((1, 64)).astype(np.float16)
    model = read_with(one_channel_ir(), np.array([-1, 64], np.int64).tobytes() + weights.tobytes())
    if model is None:
        return None
    feed = np.random.default_rng(8).standard_normal((1, 8, 64)).astype(np.float32)
    try:
        got = compiled(model).create_infer_request().infer([feed])[1]
    except RuntimeError as error:
        print(f"one-channel decompression: {error}", file=sys.stderr)
        return False
    want = feed.reshape(8, 64).astype(np.float64) @ weights.T.astype(np.float64)
    return bool(np.abs(got - want).max() <= 1e-3 * np.abs(want).max())


def kv_cache_ir() -> str:
    """x [?, 2, ?, 8] -> two KV-caches, as optimum-intel exports a language model's (each a ReadValue-6 initialised
    with zeros [batch, 2, 0, 8], a Gather by beam_idx, a Concat with x, an Assign-6) -> ScaledDotProductAttention-13
    of x over them -> Result (weights: f32 0, then i64 0, 2, 0, 8)."""
    def x(i: int) -> str:
        return port(i, "FP32", [-1, 2, -1, 8])

    def i64(i: int, dims: list[int]) -> str:
        return port(i, "I64", dims)

    def cache(name: str, first: int) -> str:
        """The ReadValue, axis, Gather, Concat and Assign of one cache: layers ``first`` to ``first + 4``."""
        return f"""<layer id="{first}" name="read_{name}" type="ReadValue" version="opset6"><data variable_id="{name}"
variable_type="f32" variable_shape="?,2,?,8"/><input>{port(0, "FP32", [-1, 2, 0, 8])}</input><output>{x(1)}</output>
</layer>
<layer id="{first + 1}" name="axis_{name}" type="Const" version="opset1"><data element_type="i64" shape="" offset="8"
size="8"/><output><port id="0" precision="I64"/></output></layer>
<layer id="{first + 2}" name="reorder_{name}" type="Gather" version="opset8"><data batch_dims="0"/><input>{x(0)}
{port(1, "I32", [-1])}<port id="2" precision="I64"/></input><output>{x(3)}</output></layer>
<layer id="{first + 3}" name="cache_{name}" type="Concat" version="opset1"><data axis="2"/><input>{x(0)}{x(1)}</input>
<output>{x(2)}</output></layer>
<layer id="{first + 4}" name="assign_{name}" type="Assign" version="opset6"><data variable_id="{name}"/><input>{x(0)}
</input><output>{x(1)}</output></layer>"""

    edges = [(0, 0, 2, 0), (2, 1, 4, 0), (3, 0, 4, 1), (3, 0, 4, 2), (4, 3, 6, 0), (5, 0, 6, 1), (7, 0, 8, 0),
             (6, 2, 8, 1), (0, 0, 30, 0), (30, 3, 31, 0)]
    for first, port_id in ((10, 1), (20, 2)):
        edges += [(8, 2, first, 0), (first, 1, first + 2, 0), (1, 0, first + 2, 1), (first + 1, 0, first + 2, 2),
                  (first + 2, 3, first + 3, 0), (0, 0, first + 3, 1), (first + 3, 2, first + 4, 0),
                  (first + 3, 2, 30, port_id)]
    return f"""<?xml version="1.0"?>
<net name="probe" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="?,2,?,8" element_type="f32"/>
<output>{x(0)}</output></layer>
<layer id="1" name="beam_idx" type="Parameter" version="opset1"><data shape="?" element_type="i32"/>
<output>{port(0, "I32", [-1])}</output></layer>
<layer id="2" name="shape" type="ShapeOf" version="opset3"><data output_type="i64"/><input>{x(0)}</input>
<output>{i64(1, [4])}</output></layer>
<layer id="3" name="first" type="Const" version="opset1"><data element_type="i64" shape="1" offset="8" size="8"/>
<output>{i64(0, [1])}</output></layer>
<layer id="4" name="batch" type="Gather" version="opset8"><data batch_dims="0"/><input>{i64(0, [4])}{i64(1, [1])}
{i64(2, [1])}</input><output>{i64(3, [1])}</output></layer>
<layer id="5" name="rest" type="Const" version="opset1"><data element_type="i64" shape="3" offset="16" size="24"/>
<output>{i64(0, [3])}</output></layer>
<layer id="6" name="init_shape" type="Concat" version="opset1"><data axis="0"/><input>{i64(0, [1])}{i64(1, [3])}
</input><output>{i64(2, [4])}</output></layer>
<layer id="7" name="zero" type="Const" version="opset1"><data element_type="f32" shape="" offset="0" size="4"/>
<output><port id="0" precision="FP32"/></output></layer>
<layer id="8" name="init" type="Broadcast" version="opset3"><data mode="numpy"/><input><port id="0" precision="FP32"/>
{i64(1, [4])}</input><output>{port(2, "FP32", [-1, 2, 0, 8])}</output></layer>
{cache("k", 10)}
{cache("v", 20)}
<layer id="30" name="attention" type="ScaledDotProductAttention" version="opset13"><data causal="false"/>
<input>{x(0)}{x(1)}{x(2)}</input><output>{x(3)}</output></layer>
<layer id="31" name="r" type="Result" version="opset1"><input>{x(0)}</input></layer>
</layers><edges>{"".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                          for a, b, c, d in edges)}</edges></net>"""


def kv_cache_f32() -> bool | None:
    """True if the CPU plugin, at f32 and with its KV-cache precision f32 where it has that setting
    (``KV_CACHE_PRECISION``, ``KEY_CACHE_PRECISION``, ``VALUE_CACHE_PRECISION``: 2024.0 on), computes three steps of
    one token of a KV-cache ScaledDotProductAttention-13 (``kv_cache_ir``) from the keys and values as fed, within
    1e-6 of float64 numpy; False if not (2023.3 computes them from the keys and values rounded to f16: within 1e-6 of
    that); None where its reader refuses the IR (no SDPA-13) or it does not run it."""
    model = read_with(kv_cache_ir(), np.float32(0).tobytes() + bytes(4) + np.array([0, 2, 0, 8], np.int64).tobytes())
    if model is None:
        return None
    core = ov.Core()
    settings = core.get_property("CPU", "SUPPORTED_PROPERTIES")
    config = {"INFERENCE_PRECISION_HINT": "f32", **{key: "f32" for key in (
        "KV_CACHE_PRECISION", "KEY_CACHE_PRECISION", "VALUE_CACHE_PRECISION") if key in settings}}
    rng = np.random.default_rng(9)
    past = np.zeros((1, 2, 0, 8))
    right = True
    try:
        request = core.compile_model(model, "CPU", config).create_infer_request()
        for _ in range(3):
            token = rng.standard_normal((1, 2, 1, 8)).astype(np.float32)
            got = request.infer([token, np.zeros(1, np.int32)])[0]
            past = np.concatenate([past, token.astype(np.float64)], 2)
            want = _attended(token.astype(np.float64) @ past.transpose(0, 1, 3, 2) / np.sqrt(8), past)
            right &= bool(np.abs(got - want).max() <= 1e-6 * np.abs(want).max())
    except RuntimeError as error:
        print(f"KV-cache: {error}", file=sys.stderr)
        return None
    return right


def rms_norm_ir() -> str:
    """x [1, ?, 64] -> its RMS norm as the PyTorch frontend writes a Llama-style one: Power(x, 2) -> ReduceMean over
    axis -1 (keep_dims) -> Add(eps) -> Sqrt -> Divide(1, that) -> Multiply(x, that) -> Multiply by gamma [64] -> Result
    (weights: f32 2, i64 -1, f32 eps, f32 1, then gamma)."""
    def x(i: int) -> str:
        return port(i, "FP32", [1, -1, 64])

    def row(i: int) -> str:
        return port(i, "FP32", [1, -1, 1])

    def scalar(layer_id: int, name: str, element: str, offset: int) -> str:
        return (f'<layer id="{layer_id}" name="{name}" type="Const" version="opset1"><data element_type="{element}" '
                f'shape="" offset="{offset}" size="{4 if element == "f32" else 8}"/><output>'
                f'<port id="0" precision="{"FP32" if element == "f32" else "I64"}"/></output></layer>')

    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 4, 0), (3, 0, 4, 1), (4, 2, 6, 0), (5, 0, 6, 1), (6, 2, 7, 0),
             (8, 0, 9, 0), (7, 1, 9, 1), (0, 0, 10, 0), (9, 2, 10, 1), (10, 2, 12, 0), (11, 0, 12, 1), (12, 2, 13, 0)]
    return f"""<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{parameter(0, "x", "f32", "FP32", [1, -1, 64])}
{scalar(1, "two", "f32", 0)}
<layer id="2" name="square" type="Power" version="opset1"><input>{x(0)}<port id="1" precision="FP32"/></input>
<output>{x(2)}</output></layer>
<layer id="3" name="axis" type="Const" version="opset1"><data element_type="i64" shape="1" offset="4" size="8"/>
<output>{port(0, "I64", [1])}</output></layer>
<layer id="4" name="mean" type="ReduceMean" version="opset1"><data keep_dims="true"/><input>{x(0)}
{port(1, "I64", [1])}</input><output>{row(2)}</output></layer>
{scalar(5, "eps", "f32", 12)}
<layer id="6" name="plus_eps" type="Add" version="opset1"><input>{row(0)}<port id="1" precision="FP32"/></input>
<output>{row(2)}</output></layer>
<layer id="7" name="root" type="Sqrt" version="opset1"><input>{row(0)}</input><output>{row(1)}</output></layer>
{scalar(8, "one", "f32", 16)}
<layer id="9" name="inverse" type="Divide" version="opset1"><input><port id="0" precision="FP32"/>{row(1)}</input>
<output>{row(2)}</output></layer>
<layer id="10" name="normal" type="Multiply" version="opset1"><input>{x(0)}{row(1)}</input><output>{x(2)}</output>
</layer>
<layer id="11" name="gamma" type="Const" version="opset1"><data element_type="f32" shape="64" offset="20" size="256"/>
<output>{port(0, "FP32", [64])}</output></layer>
<layer id="12" name="scaled" type="Multiply" version="opset1"><input>{x(0)}{port(1, "FP32", [64])}</input>
<output>{x(2)}</output></layer>
<layer id="13" name="r" type="Result" version="opset1"><input>{x(0)}</input></layer>
</layers><edges>{"".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                          for a, b, c, d in edges)}</edges></net>"""


def rms_norm() -> bool:
    """True if the CPU plugin (at f32) computes an RMS norm as the PyTorch frontend writes it (``rms_norm_ir``: rows
    of 64, gamma not all ones, eps 1e-6) on 512 seeded rows of magnitudes from 0.01 to 100 within the rounding bound
    of float64 numpy per element: each op correctly rounded, the mean of 64 squares summed in any order, (W + 10) / 2
    units of 2^-24 for rows of W (37: 2.2e-6); False if not (2024.4 fuses it into one node, "RMS", off by up to
    2.4e-4; rows of fewer than 64 crash it, so none is asked)."""
    rng = np.random.default_rng(64)
    gamma = rng.uniform(-2, 2, 64).astype(np.float32)
    eps = np.float32(1e-6)
    weights = np.float32(2).tobytes() + np.int64(-1).tobytes() + eps.tobytes() + np.float32(1).tobytes()
    model = read_with(rms_norm_ir(), weights + gamma.tobytes())
    feed = (rng.standard_normal((1, 512, 64)) * rng.uniform(0.01, 100, (1, 512, 1))).astype(np.float32)
    got = compiled(model).create_infer_request().infer([feed])[0]
    x = feed.astype(np.float64)
    want = x / np.sqrt((x * x).mean(-1, keepdims=True) + float(eps)) * gamma.astype(np.float64)
    return bool((np.abs(got - want) / np.abs(want)).max() <= (64 + 10) / 2 * 2.0 ** -24)


def group_norm_2d() -> bool | None:
    """True if the CPU plugin compiles and runs GroupNormalization-12 on a 2-D input ([3, 4], 2 groups) within 1e-5
    of float64 numpy; False if it fails to (2024.0: "Cannot fallback on ngraph reference implementation") or
    computes otherwise; None if the release has no opset12."""
    try:
        import openvino.opset12 as ops
    except ImportError:  # 2023.x
        try:
            import openvino.runtime.opset12 as ops
        except ImportError:
            return None
    rng = np.random.default_rng(12)
    x, scale, bias = rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal(4)
    data = ops.parameter([3, 4], np.float32, name="x")
    node = ops.group_normalization(data, ops.constant(scale.astype(np.float32)), ops.constant(bias.astype(np.float32)),
                                   2, 1e-5)
    groups = x.reshape(3, 2, 2)
    normal = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True) + 1e-5)
    want = normal.reshape(3, 4) * scale + bias
    try:
        got = compiled(ov.Model([node], [data], "group_norm_2d")).create_infer_request().infer(
            [x.astype(np.float32)])[0]
    except RuntimeError as error:
        print(f"GroupNormalization-12 on 2-D: {error}", file=sys.stderr)
        return False
    return bool(np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())))


def einsum_ellipsis() -> bool:
    """True if the CPU plugin compiles and runs Einsum-7 "...ij,jk->...ik" ([2, 3, 4, 5] by [5, 6]) within 1e-5 of
    float64 numpy; False if it fails to (2025.0: "Unsupported operation of type: Einsum") or computes otherwise."""
    try:
        import openvino.opset7 as ops
    except ImportError:  # 2023.x
        import openvino.runtime.opset7 as ops
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((5, 6))
    params = [ops.parameter(list(v.shape), np.float32, name=n) for n, v in (("a", a), ("b", b))]
    want = np.einsum("...ij,jk->...ik", a, b)
    try:
        got = compiled(ov.Model([ops.einsum(params, "...ij,jk->...ik")], params, "einsum")).create_infer_request(
        ).infer([a.astype(np.float32), b.astype(np.float32)])[0]
    except RuntimeError as error:
        print(f"Einsum-7 with an ellipsis: {error}", file=sys.stderr)
        return False
    return bool(np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())))


def einsum_label_broadcast() -> dict[str, str]:
    """What the release does with Einsum-7 whose labels broadcast (a label of length 1 in one input and 3 in another,
    which the current OpenVINO computes as numpy does): "ij,jk->ik" of [2, 1] and [3, 4] (a summed label) and
    "bij,bjk->bik" of [1, 2, 3] and [2, 3, 4] (a kept one), each declared of those dims ("static") and of dynamic dims
    ("dynamic"), fed those: "refused" if its shape inference refuses them (2024.0: "label_to_shape ... compatible"),
    else as ``_computed`` says."""
    try:
        import openvino.opset7 as ops
    except ImportError:  # 2023.x
        import openvino.runtime.opset7 as ops
    rng = np.random.default_rng(7)
    answers = {}
    for equation, shapes in (("ij,jk->ik", ([2, 1], [3, 4])), ("bij,bjk->bik", ([1, 2, 3], [2, 3, 4]))):
        values = [rng.standard_normal(shape) for shape in shapes]
        want = np.einsum(equation, *values)
        for declared in ("static", "dynamic"):
            key = f"{equation} {declared}"
            params = [ops.parameter(shape if declared == "static" else [-1] * len(shape), np.float32, name=f"x{i}")
                      for i, shape in enumerate(shapes)]
            try:
                model = ov.Model([ops.einsum(params, equation)], params, "einsum")
            except RuntimeError as error:
                print(f"{key}: {error}", file=sys.stderr)
                answers[key] = "refused"
                continue
            answers[key] = _computed(model, [v.astype(np.float32) for v in values], want, key)
    return answers


def dft_dynamic() -> bool:
    """True if the CPU plugin compiles and runs DFT-7 and IDFT-7 (axis 2, no signal_size) of an input of dynamic shape
    ([?, ?, ?, 2], fed [2, 3, 16, 2]) within 1e-5 of float64 numpy; False if it fails to (2025.0: "Unsupported
    operation of type: DFT ... Doesn't support op with dynamic shapes") or computes otherwise."""
    try:
        import openvino.opset7 as ops
    except ImportError:  # 2023.x
        import openvino.runtime.opset7 as ops
    x = np.random.default_rng(7).standard_normal((2, 3, 16, 2))
    signal = x[..., 0] + 1j * x[..., 1]
    for make, want in ((ops.dft, np.fft.fft(signal, axis=2)), (ops.idft, np.fft.ifft(signal, axis=2))):
        data = ops.parameter([-1, -1, -1, 2], np.float32, name="x")
        node = make(data, ops.constant(np.array([2], np.int32)))
        try:
            got = compiled(ov.Model([node], [data], "dft")).create_infer_request().infer([x.astype(np.float32)])[0]
        except RuntimeError as error:
            print(f"DFT-7 on a dynamic shape: {error}", file=sys.stderr)
            return False
        pair = np.stack([want.real, want.imag], -1)
        if got.shape != pair.shape or np.abs(got - pair).max() > 1e-5 * max(1.0, float(np.abs(pair).max())):
            return False
    return True


def if_self_compare() -> bool:
    """True if the CPU plugin compiles and runs an If-8 whose output has a dynamic rank (then body rank 3, else body
    rank 4) and whose condition is NotEqual of a tensor with itself (a dim of the input's shape), as optimum's
    DeBERTa-v2 export has it, giving the else body's output; False if it fails to (2025.4: "CPU plug-in doesn't
    support If operation with dynamic rank"; 2026.0 on fold the If) or computes otherwise."""
    try:  # 2024.0 and later
        import openvino.opset1 as o1
        import openvino.opset3 as o3
        import openvino.opset8 as o8
    except ImportError:  # 2023.x
        import openvino.runtime.opset1 as o1
        import openvino.runtime.opset3 as o3
        import openvino.runtime.opset8 as o8

    def i64(value: object) -> ov.Node:
        return o1.constant(np.array(value, np.int64))

    x, m = o1.parameter([-1, -1, 4, 32], np.float32, name="x"), o1.parameter([1, 1, -1, -1], np.float32, name="m")
    dim = o1.squeeze(o8.gather(o3.shape_of(x, "i64"), i64([1]), i64(0)), i64([0]))
    then_x, else_m = o1.parameter([-1, -1, 4, 32], np.float32), o1.parameter([1, 1, -1, -1], np.float32)
    then_body = ov.Model([o1.result(o1.reshape(then_x, i64([1, -1, 32]), True))], [then_x], "then")
    else_body = ov.Model([o1.result(o1.relu(else_m))], [else_m], "else")
    branch = o8.if_op(o1.not_equal(dim, dim).output(0))
    branch.set_then_body(then_body)
    branch.set_else_body(else_body)
    branch.set_input(x.output(0), then_x, None)
    branch.set_input(m.output(0), None, else_m)
    out = branch.set_output(then_body.get_results()[0], else_body.get_results()[0])
    mask = np.random.default_rng(8).standard_normal((1, 1, 5, 5)).astype(np.float32)
    try:
        got = compiled(ov.Model([o1.result(out)], [x, m], "if_self_compare")).create_infer_request().infer(
            [np.zeros((2, 5, 4, 32), np.float32), mask])[0]
    except RuntimeError as error:
        print(f"If-8 of a dynamic rank on NotEqual(x, x): {error}", file=sys.stderr)
        return False
    return bool(np.array_equal(got, np.maximum(mask, 0)))


#: The integer element types Convert-1 and ConvertPromoteTypes-14 are probed on, with their numpy types.
CONVERT_TYPES = {"u8": "uint8", "i8": "int8", "u16": "uint16", "i16": "int16", "u32": "uint32", "i32": "int32",
                 "u64": "uint64", "i64": "int64"}


def _convert_values(element: str) -> np.ndarray:
    """Edge values of ``element`` around each integer type's limits; of i64 and u64 only those within i32 (every
    release computes them through i32, the current one too: Convert-1 of i64 2^40 to i64 gives 0 on 2026.4), of u32
    its whole range (4000000000: 2147483647 on 2024.0, -294967296 on 2026.4 into i64)."""
    dtype = np.dtype(CONVERT_TYPES[element])
    info = np.iinfo(dtype)
    low, high = (max(info.min, -2**31), min(info.max, 2**31 - 1)) if info.bits == 64 else (info.min, info.max)
    edges = {0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769, 2**31 - 1,
             -2**31, 2**31, 3 * 2**30, 4000000000, 2**32 - 1, 123456789, -123456789}
    return np.array(sorted(v for v in edges if low <= v <= high), dtype)


def integer_convert() -> dict[str, dict[str, list[int | float]] | None]:
    """What the CPU plugin computes for Convert-1 from each integer type (``CONVERT_TYPES``) to each and to f32, on
    ``_convert_values`` (``convert``: "u32->i64" -> the outputs), and for ConvertPromoteTypes-14 with promote_unsafe
    on each pair of those types (``promote``: "i32+u32->i64", with the type it promotes to, -> both outputs, one
    after the other; None where the release has no opset14): scripts/make_release_table.py holds each release's
    numbers against the current one's (2024.0 saturates a value out of the destination's range, 300 into u8: 255;
    2026.4 wraps it: 44)."""
    params, results, feed, keys = [], [], [], []

    def add(key: str, node: ov.Node, sources: list[tuple[ov.Node, np.ndarray]]) -> None:
        for source, value in sources:
            params.append(source)
            feed.append(value)
        results.extend(node.outputs())
        keys.append(key)

    for source in CONVERT_TYPES:
        for destination in [*CONVERT_TYPES, "f32"]:
            values = _convert_values(source)
            data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
            add(f"{source}->{destination}", NodeFactory("opset1").create(
                "Convert", [data.output(0)], {"destination_type": destination}), [(data, values)])
    try:
        factory = NodeFactory("opset14")
    except RuntimeError:
        factory = None
    for a in CONVERT_TYPES if factory else ():
        for b in CONVERT_TYPES:
            first, second = _convert_values(a), _convert_values(b)
            n = max(first.size, second.size)
            first, second = np.resize(first, n), np.resize(second, n)
            x, y = (ov.op.Parameter(getattr(ov.Type, t), ov.PartialShape([n])) for t in (a, b))
            try:
                node = factory.create("ConvertPromoteTypes", [x.output(0), y.output(0)],
                                      {"promote_unsafe": True, "pytorch_scalar_promotion": False,
                                       "u64_integer_promotion_target": "f32"})
            except RuntimeError:
                continue
            add(f"{a}+{b}->{node.get_output_element_type(0).get_type_name()}", node, [(x, first), (y, second)])
    model = ov.Model(results, params, "convert")
    request = compiled(model).create_infer_request()
    request.infer(feed)
    outputs = [request.get_output_tensor(i).data.tolist() for i in range(len(results))]
    convert: dict[str, list[int | float]] = {}
    promote: dict[str, list[int | float]] = {}
    for key in keys:
        if "+" in key:
            promote[key] = outputs.pop(0) + outputs.pop(0)
        else:
            convert[key] = outputs.pop(0)
    return {"convert": convert, "promote": promote if factory else None}



#: Squeeze and Unsqueeze probed on axes whose static dim is not 1 (``squeeze_axes``): key -> (type, opset, <data>,
#: input dims, axes). [1, 3, 1, 4] axes [1]: the current OpenVINO skips the axis (2024.0 refuses to read it,
#: "Only axes of size 1 may be removed"); axes [0, 2] of 1 only, as a control; Unsqueeze of an axis before a dim
#: that is not 1, and of a repeated axis.
SQUEEZES = {
    "Squeeze-1 [1]": ("Squeeze", "opset1", "", [1, 3, 1, 4], [1]),
    "Squeeze-1 [0,1]": ("Squeeze", "opset1", "", [1, 3, 1, 4], [0, 1]),
    "Squeeze-1 [-3]": ("Squeeze", "opset1", "", [1, 3, 1, 4], [-3]),
    "Squeeze-1 [0,2]": ("Squeeze", "opset1", "", [1, 3, 1, 4], [0, 2]),
    "Squeeze-15 false [1]": ("Squeeze", "opset15", '<data allow_axis_skip="false"/>', [1, 3, 1, 4], [1]),
    "Squeeze-15 false [0,1]": ("Squeeze", "opset15", '<data allow_axis_skip="false"/>', [1, 3, 1, 4], [0, 1]),
    "Squeeze-15 true [1]": ("Squeeze", "opset15", '<data allow_axis_skip="true"/>', [1, 3, 1, 4], [1]),
    "Unsqueeze-1 [1]": ("Unsqueeze", "opset1", "", [3, 4], [1]),
    "Unsqueeze-1 [1,1]": ("Unsqueeze", "opset1", "", [3, 4], [1, 1]),
}
#: Parameter x -> op (layer 2) with Const axes (layer 1) -> Result.
SQUEEZE = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{x}
<layer id="1" name="axes" type="Const" version="opset1"><data element_type="i64" shape="{n}" offset="0" size="{size}"/>
<output><port id="0" precision="I64"><dim>{n}</dim></port></output></layer>
<layer id="2" name="op" type="{type}" version="{opset}">{data}<input>{p0}<port id="1" precision="I64"><dim>{n}</dim>
</port></input><output><port id="2" precision="FP32"/></output></layer>
<layer id="3" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32"/></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/></edges></net>"""


def read_with(xml: str, weights: bytes) -> ov.Model | None:
    """``read`` of an IR whose ``.bin`` holds ``weights``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "probe.xml"
        path.write_text(xml)
        path.with_suffix(".bin").write_bytes(weights)
        try:
            return ov.Core().read_model(str(path))
        except RuntimeError as error:
            print(f"refused: {str(error).splitlines()[-2:]}", file=sys.stderr)
            return None


def squeeze_axes() -> dict[str, str | None]:
    """What the release does with each of ``SQUEEZES``: "refused" if its reader refuses the IR, "fails" if its CPU
    plugin does not compile or run it, else the output's shape ("1,3,1,4": the axis skipped) where the output holds
    the input's values in order, "wrong" if not; None where it has not the opset."""
    answers: dict[str, str | None] = {}
    for key, (op_type, opset, data, dims, axes) in SQUEEZES.items():
        try:
            NodeFactory(opset)
        except RuntimeError:
            answers[key] = None
            continue
        weights = np.array(axes, np.int64).tobytes()
        model = read_with(SQUEEZE.format(x=parameter(0, "x", "f32", "FP32", dims), n=len(axes), size=len(weights),
                                         type=op_type, opset=opset, data=data, p0=port(0, "FP32", dims)), weights)
        if model is None:
            answers[key] = "refused"
            continue
        x = np.arange(np.prod(dims), dtype=np.float32).reshape(dims)
        try:
            got = compiled(model).create_infer_request().infer([x])[0]
        except RuntimeError as error:
            print(f"{key}: {error}", file=sys.stderr)
            answers[key] = "fails"
            continue
        answers[key] = ",".join(map(str, got.shape)) if np.array_equal(got.ravel(), x.ravel()) else "wrong"
    return answers


#: A stateful model: Parameter x [1, ?] (or as declared) -> ReadValue-6 "kv" (variable of ``shape``, its init
#: ``init``) concatenated with x on axis 1 -> Assign "kv"; ReduceSum over axis 1 -> Result: a language model's
#: KV-cache in small, each step the sum of every x fed so far.
STATE_CONCAT = """<?xml version="1.0"?>
<net name="probe" version="11"><layers>
{x}
{init}
<layer id="5" name="read" type="ReadValue" version="opset6"><data variable_id="kv" variable_type="f32"
 variable_shape="{shape}"/>{init_input}<output>{state_port1}</output></layer>
<layer id="6" name="cat" type="Concat" version="opset1"><data axis="1"/><input>{state_port0}{x_port1}</input>
<output>{state_port2}</output></layer>
<layer id="7" name="assign" type="Assign" version="opset6"><data variable_id="kv"/><input>{state_port0}</input>
<output>{state_port1}</output></layer>
<layer id="8" name="axis" type="Const" version="opset1"><data element_type="i64" shape="1" offset="40" size="8"/>
<output><port id="0" precision="I64"><dim>1</dim></port></output></layer>
<layer id="9" name="sum" type="ReduceSum" version="opset1"><data keep_dims="false"/><input>{state_port0}
<port id="1" precision="I64"><dim>1</dim></port></input><output>{y_port}</output></layer>
<layer id="10" name="r" type="Result" version="opset1"><input>{y_port0}</input></layer>
</layers><edges>{init_edges}
<edge from-layer="5" from-port="1" to-layer="6" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="6" to-port="1"/>
<edge from-layer="6" from-port="2" to-layer="7" to-port="0"/>
<edge from-layer="6" from-port="2" to-layer="9" to-port="0"/>
<edge from-layer="8" from-port="0" to-layer="9" to-port="1"/>
<edge from-layer="9" from-port="2" to-layer="10" to-port="0"/>
</edges></net>"""
#: Inits of the variable: a Broadcast of 0 to a Const shape [rows, 0] ("const"), or to [dim 0 of x, 0] from ShapeOf
#: ("shape", as a language model's KV-cache is initialised: static where x's dim 0 is), or none (a ReadValue-6 of
#: no input: zeros of the variable's shape, where it is static).
STATE_INITS = ("const", "shape", "none")
#: (variable shape, x's declared shape) of the stateful models probed.
STATE_SHAPES = [("?,?", "?,?"), ("?,?", "1,?"), ("1,?", "1,?"), ("1,?", "?,?"), ("2,?", "2,?")]


def _state_concat(shape: str, declared: str, init: str) -> str:
    """``STATE_CONCAT`` for a variable of ``shape``, x declared ``declared``, the init ``init``."""
    dims = [-1 if d == "?" else int(d) for d in declared.split(",")]
    rows = 2 if shape.startswith("2") else 1
    state = [-1 if d == "?" else int(d) for d in shape.split(",")]
    zero = ('<layer id="1" name="zero" type="Const" version="opset1"><data element_type="f32" shape="" offset="0" '
            'size="4"/><output><port id="0" precision="FP32"/></output></layer>')
    if init == "none":
        layers, edges, shape_from = "", "", ""
    elif init == "const":
        layers = zero + (f'<layer id="2" name="to" type="Const" version="opset1"><data element_type="i64" shape="2" '
                         f'offset="{8 if rows == 1 else 24}" size="16"/><output><port id="0" precision="I64">'
                         '<dim>2</dim></port></output></layer>')
        shape_from = "2"
        edges = ""
    elif init == "shape":
        i64 = '<port id="{}" precision="I64">{}</port>'
        one, scalar = i64.format(0, "<dim>1</dim>"), '<port id="0" precision="I64"/>'
        layers = zero + (
            '<layer id="2" name="shape" type="ShapeOf" version="opset1"><input>' + port(0, "FP32", dims) +
            '</input><output>' + i64.format(1, "<dim>2</dim>") + '</output></layer>'
            '<layer id="3" name="first" type="Const" version="opset1"><data element_type="i64" shape="1" offset="48" '
            'size="8"/><output>' + one + '</output></layer>'
            '<layer id="11" name="at" type="Const" version="opset1"><data element_type="i64" shape="" offset="48" '
            'size="8"/><output>' + scalar + '</output></layer>'
            '<layer id="12" name="rows" type="Gather" version="opset1"><input>' + i64.format(0, "<dim>2</dim>") +
            i64.format(1, "<dim>1</dim>") + i64.format(2, "") + '</input><output>' + i64.format(3, "<dim>1</dim>") +
            '</output></layer>'
            '<layer id="13" name="none" type="Const" version="opset1"><data element_type="i64" shape="1" offset="48" '
            'size="8"/><output>' + one + '</output></layer>'
            '<layer id="14" name="to" type="Concat" version="opset1"><data axis="0"/><input>' +
            i64.format(0, "<dim>1</dim>") + i64.format(1, "<dim>1</dim>") + '</input><output>' +
            i64.format(2, "<dim>2</dim>") + '</output></layer>')
        edges = ('<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>'
                 '<edge from-layer="2" from-port="1" to-layer="12" to-port="0"/>'
                 '<edge from-layer="3" from-port="0" to-layer="12" to-port="1"/>'
                 '<edge from-layer="11" from-port="0" to-layer="12" to-port="2"/>'
                 '<edge from-layer="12" from-port="3" to-layer="14" to-port="0"/>'
                 '<edge from-layer="13" from-port="0" to-layer="14" to-port="1"/>')
        shape_from = "14"
    init_dims = [rows if init == "const" else dims[0], 0]
    layers += "" if init == "none" else (
        '<layer id="4" name="init" type="Broadcast" version="opset3"><data mode="numpy"/><input>'
        '<port id="0" precision="FP32"/><port id="1" precision="I64"><dim>2</dim></port></input><output>'
        + port(2, "FP32", init_dims) + '</output></layer>')
    edges += "" if init == "none" else (
        f'<edge from-layer="1" from-port="0" to-layer="4" to-port="0"/>'
        f'<edge from-layer="{shape_from}" from-port="{2 if init != "const" else 0}" to-layer="4" to-port="1"/>')
    out = [-1 if d < 0 else d for d in state]
    return STATE_CONCAT.format(
        x=parameter(0, "x", "f32", "FP32", dims), init=layers, shape=shape,
        init_input="" if init == "none" else f"<input>{port(0, 'FP32', init_dims)}</input>",
        state_port0=port(0, "FP32", out), state_port1=port(1, "FP32", out), state_port2=port(2, "FP32", out),
        x_port1=port(1, "FP32", dims), y_port=port(2, "FP32", out[:1]), y_port0=port(0, "FP32", out[:1]),
        init_edges=edges + ("" if init == "none" else
                            '<edge from-layer="4" from-port="2" to-layer="5" to-port="0"/>'))


def _state_weights() -> bytes:
    """The Consts of ``_state_concat``: f32 0 at offset 0, i64 [1, 0] at 8 (the const init's shape, and the
    multiplier that takes x's shape to [rows, 0]), [2, 0] at 24, the axis [1] at 40, [0] at 48 (Gather's index, its
    axis, Concat's 0)."""
    return (np.array([0.0], np.float32).tobytes() + b"\0" * 4 + np.array([1, 0, 2, 0, 1, 0], np.int64).tobytes())


def state_shapes() -> dict[str, str]:
    """What the release does with ``STATE_CONCAT`` for each of ``STATE_SHAPES`` and ``STATE_INITS`` ("var 1,? x 1,?
    const"), three inferences of one request (x of 2, 3 and 1 columns, ``rows`` rows): "right" if each output is the
    sum of every x fed so far, "wrong" if not, "fails" if it does not compile or run it (2024.0: "get_shape was
    called on a descriptor::Tensor with dynamic shape"), "refused" if its reader refuses it."""
    answers = {}
    for shape, declared in STATE_SHAPES:
        rows = 2 if shape.startswith("2") or declared.startswith("2") else 1
        for init in STATE_INITS:
            key = f"var {shape} x {declared} {init}"
            model = read_with(_state_concat(shape, declared, init), _state_weights())
            if model is None:
                answers[key] = "refused"
                continue
            feeds = [np.arange(rows * n, dtype=np.float32).reshape(rows, n) + n for n in (2, 3, 1)]
            try:
                request = compiled(model).create_infer_request()
                got = [request.infer([x])[0].copy() for x in feeds]
            except RuntimeError as error:
                print(f"state {key}: {str(error).strip().splitlines()[-1][:200]}", file=sys.stderr)
                answers[key] = "fails"
                continue
            want = np.cumsum([x.sum(1) for x in feeds], axis=0)
            answers[key] = "right" if all(np.array_equal(g, w) for g, w in zip(got, want, strict=True)) else "wrong"
    return answers


#: The float types integer types are converted to by ``int_to_float``.
FLOAT_DESTINATIONS = ("f16", "f32")


def _float_values(element: str) -> np.ndarray:
    """Values of the integer type ``element`` to convert to floats: every value of an 8- or 16-bit type; of wider
    ones ``_convert_values``, every value within 3 of +-2^k (k from 11 to 32), 65504 to 65536 and 4000 seeded (of
    i64 and u64 within i32, as ``_convert_values``)."""
    dtype = np.dtype(CONVERT_TYPES[element])
    info = np.iinfo(dtype)
    if info.bits <= 16:
        return np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype)
    low, high = (max(info.min, -2**31), min(info.max, 2**31 - 1)) if info.bits == 64 else (info.min, info.max)
    near = {s * 2**k + d for k in range(11, 33) for d in range(-3, 4) for s in (1, -1)}
    near |= set(range(65504, 65537)) | {-v for v in range(65504, 65537)}
    seeded = np.random.default_rng(3).integers(low, high, 4000, dtype=np.int64, endpoint=True)
    values = sorted({int(v) for v in _convert_values(element)} | {v for v in near if low <= v <= high}
                    | {int(v) for v in seeded})
    return np.array(values, dtype)


def _digest(values: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


def _convert_digests(model: ov.Model, feed: list[np.ndarray], keys: list[str],
                     promoting: bool) -> dict[str, dict[str, str] | None]:
    """``model`` run on ``feed``: the digest of each output, by its key ("i32->f16" a Convert's, "i32+f16->f16" a
    ConvertPromoteTypes's), as ``convert`` and ``promote`` (None where the release has no opset14: not
    ``promoting``)."""
    request = compiled(model).create_infer_request()
    request.infer(feed)
    convert: dict[str, str] = {}
    promote: dict[str, str] = {}
    for i, key in enumerate(keys):
        (promote if "+" in key else convert)[key] = _digest(request.get_output_tensor(i).data)
    return {"convert": convert, "promote": promote if promoting else None}


def int_to_float() -> dict[str, dict[str, str] | None]:
    """Digests of what the CPU plugin computes for Convert-1 from each integer type (``CONVERT_TYPES``) to each of
    ``FLOAT_DESTINATIONS`` on ``_float_values`` (``convert``: "i16->f16" -> the digest of the outputs' bytes), and for
    ConvertPromoteTypes-14 with promote_unsafe of each integer type with each of those (``promote``: "i32+f32->f32"
    -> the digest of its first output, the integer converted; None where the release has no opset14):
    scripts/make_release_table.py holds each against the current release's (2023.0 gives 65504 for i32 70000 into
    f16, 2026.4 inf)."""
    params, results, feed, keys = [], [], [], []
    try:
        factory = NodeFactory("opset14")
    except RuntimeError:
        factory = None
    for source in CONVERT_TYPES:
        values = _float_values(source)
        for destination in FLOAT_DESTINATIONS:
            data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
            node = NodeFactory("opset1").create("Convert", [data.output(0)], {"destination_type": destination})
            params.append(data)
            feed.append(values)
            results.append(node.output(0))
            keys.append(f"{source}->{destination}")
            if factory is None:
                continue
            data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
            real = ov.op.Parameter(getattr(ov.Type, destination), ov.PartialShape([1]))
            node = factory.create("ConvertPromoteTypes", [data.output(0), real.output(0)],
                                  {"promote_unsafe": True, "pytorch_scalar_promotion": False,
                                   "u64_integer_promotion_target": "f32"})
            params += [data, real]
            feed += [values, np.ones(1, np.dtype("float16" if destination == "f16" else "float32"))]
            results.append(node.output(0))
            keys.append(f"{source}+{destination}->{node.get_output_element_type(0).get_type_name()}")
    return _convert_digests(ov.Model(results, params, "int_to_float"), feed, keys, factory is not None)


def int_to_f16_inside() -> dict[str, dict[str, str] | None]:
    """Digests of what the CPU plugin computes for Convert-1 from each integer type (``CONVERT_TYPES``) into f16 where
    the f16 is not the model's output, on ``_float_values``: the Convert multiplied by an f16 input of ones (f16
    arithmetic on a value only known at inference) and converted to f32 (``convert``: "i32->f16" -> the digest of the
    f32 outputs' bytes), and likewise the first output of ConvertPromoteTypes-14 with promote_unsafe of each integer
    type with an f16 input (``promote``: "i32+f16->f16"; None where the release has no opset14):
    scripts/make_release_table.py holds each against the current release's. ``int_to_float`` makes the f16 the model's
    output, where 2023.0 to 2024.2 write 65504 for i32 70000 (the current one inf); inside a model every release holds
    the f16 in f32 at f32 inference precision (i32 70000 stays 70000, 2049 stays 2049, the current one too: Multiply,
    Add, Concat, Maximum and a Convert to f32 or i32 of it measured)."""
    params, results, feed, keys = [], [], [], []
    try:
        factory = NodeFactory("opset14")
    except RuntimeError:
        factory = None
    ones = np.ones(1, np.float16)

    def inside(node: ov.Node, output: int = 0) -> ov.Output:
        one = ov.op.Parameter(ov.Type.f16, ov.PartialShape([1]))
        params.append(one)
        feed.append(ones)
        product = NodeFactory("opset1").create("Multiply", [node.output(output), one.output(0)])
        return NodeFactory("opset1").create("Convert", [product.output(0)], {"destination_type": "f32"}).output(0)

    for source in CONVERT_TYPES:
        values = _float_values(source)
        data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
        params.append(data)
        feed.append(values)
        results.append(inside(NodeFactory("opset1").create("Convert", [data.output(0)], {"destination_type": "f16"})))
        keys.append(f"{source}->f16")
        if factory is None:
            continue
        data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
        real = ov.op.Parameter(ov.Type.f16, ov.PartialShape([1]))
        params += [data, real]
        feed += [values, ones]
        node = factory.create("ConvertPromoteTypes", [data.output(0), real.output(0)],
                              {"promote_unsafe": True, "pytorch_scalar_promotion": False,
                               "u64_integer_promotion_target": "f32"})
        results.append(inside(node))
        keys.append(f"{source}+f16->{node.get_output_element_type(0).get_type_name()}")
    return _convert_digests(ov.Model(results, params, "int_to_f16_inside"), feed, keys, factory is not None)


#: Float values ``float_convert`` converts: zeros, halves, the f16 limits and beyond, infinities, NaN.
FLOAT_VALUES = [0.0, -0.0, 0.4, 0.5, 1.0, -1.0, 255.5, 256.0, 1000.0, -1000.0, 1e-3, 1e-8, 65504.0, 65519.0,
                65520.0, 65535.0, 70000.0, -70000.0, 1e5, 3e38, float("inf"), float("-inf"), float("nan")]


def float_convert() -> dict[str, list[float | bool | None]]:
    """What the CPU plugin computes for Convert-1 of f32 into boolean, f16 and i32 and of f16 into f32 and boolean,
    and for IsInf-10, IsNaN-10 and IsFinite-10 of an f16 input, on ``FLOAT_VALUES`` (as f16 where the input is f16):
    the outputs, NaN as None (scripts/make_release_table.py holds them against the current release's: 2023.0 gives
    False for 255.5 into boolean, 65504 for 70000 into f16)."""
    params, results, feed, keys = [], [], [], []
    for source, destination in (("f32", "boolean"), ("f32", "f16"), ("f32", "i32"), ("f16", "f32"),
                                ("f16", "boolean"), ("f16", "IsInf"), ("f16", "IsNaN"), ("f16", "IsFinite")):
        values = np.array(FLOAT_VALUES, np.dtype("float16" if source == "f16" else "float32"))
        data = ov.op.Parameter(getattr(ov.Type, source), ov.PartialShape([values.size]))
        if destination.startswith("Is"):
            node = NodeFactory("opset10").create(destination, [data.output(0)],
                                                 {"detect_negative": True, "detect_positive": True}
                                                 if destination == "IsInf" else {})
        else:
            node = NodeFactory("opset1").create("Convert", [data.output(0)], {"destination_type": destination})
        params.append(data)
        feed.append(values)
        results.append(node.output(0))
        keys.append(f"{source}->{destination}")
    request = compiled(ov.Model(results, params, "float_convert")).create_infer_request()
    request.infer(feed)
    answers = {}
    for i, key in enumerate(keys):
        got = request.get_output_tensor(i).data
        answers[key] = [None if isinstance(v, float) and v != v else v for v in got.tolist()]
    return answers


def _boolean_values(element: str) -> np.ndarray:
    """Values converted into boolean by ``float_boolean``: every f16 (as f32 too), and of f32 quarters from -1000 to
    1000, each power of two and 1.5 times it, and 200000 seeded bit patterns."""
    every = np.arange(65536, dtype=np.uint16).view(np.float16)
    if element == "f16":
        return every
    powers = [s * 2.0**k * m for k in range(-149, 128) for s in (1, -1) for m in (1, 1.5)]
    seeded = np.random.default_rng(7).integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([every.astype(np.float32), np.arange(-1000, 1000, 0.25, dtype=np.float32),
                           np.array(powers, np.float32), seeded])


def float_boolean() -> dict[str, dict[str, float | int | None]]:
    """Convert-1 of f32 and of f16 into boolean on ``_boolean_values``, against the specification (True for every
    value but zeros and NaN): ``wrong``, how many non-NaN values it converts otherwise; ``least``, the least magnitude
    among them (None if none: 2024.0 gives False for 255.5, none of magnitude 255 or less); ``nan``, how many NaNs it
    converts to True (2024.1 all)."""
    answers: dict[str, dict[str, float | int | None]] = {}
    for element in ("f32", "f16"):
        values = _boolean_values(element)
        x = ov.op.Parameter(getattr(ov.Type, element), ov.PartialShape([values.size]))
        node = NodeFactory("opset1").create("Convert", [x.output(0)], {"destination_type": "boolean"})
        got = np.asarray(compiled(ov.Model([node.output(0)], [x], "float_boolean")).create_infer_request().infer(
            [values])[0]).astype(bool)
        nan = np.isnan(values)
        wrong = ~nan & (got != (values != 0))
        answers[element] = {"wrong": int(wrong.sum()), "nan": int(got[nan].sum()),
                            "least": float(np.abs(values[wrong]).min()) if wrong.any() else None}
    return answers


def _integer_boolean_values(element: str) -> np.ndarray:
    """Values of the integer type ``element`` converted into boolean by ``integer_boolean``: every value of an 8- or
    16-bit type; of wider ones every value within 3 of +-2^k (k from 0 to 31) and 20000 seeded, all within
    (-2^31, 2^31): beyond it the current OpenVINO holds the value through i32 (i32 -2^31 and u32 2^31 into False)."""
    dtype = np.dtype(CONVERT_TYPES[element])
    info = np.iinfo(dtype)
    if info.bits <= 16:
        return np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype)
    low, high = max(info.min, -2**31 + 1), min(info.max, 2**31 - 1)
    near = {s * 2**k + d for k in range(32) for s in (1, -1) for d in range(-3, 4)}
    seeded = np.random.default_rng(11).integers(low, high, 20000, endpoint=True)
    return np.array(sorted({int(v) for v in seeded} | {v for v in near if low <= v <= high}), dtype)


def integer_boolean() -> dict[str, dict[str, int | None]]:
    """Convert-1 of each integer type into boolean on ``_integer_boolean_values``, against the specification (True for
    every value but 0): ``wrong``, how many values it converts otherwise; ``negative``, how many of them are negative;
    ``least``, the least magnitude among them (None if none: 2024.0 gives False for i16 -1, the current one True)."""
    answers: dict[str, dict[str, int | None]] = {}
    for element in CONVERT_TYPES:
        values = _integer_boolean_values(element)
        x = ov.op.Parameter(getattr(ov.Type, element), ov.PartialShape([values.size]))
        node = NodeFactory("opset1").create("Convert", [x.output(0)], {"destination_type": "boolean"})
        got = np.asarray(compiled(ov.Model([node.output(0)], [x], "integer_boolean")).create_infer_request().infer(
            [values])[0]).astype(bool)
        wrong = got != (values != 0)
        answers[element] = {"wrong": int(wrong.sum()), "negative": int((wrong & (values < 0)).sum()),
                            "least": int(np.abs(values[wrong].astype(np.int64)).min()) if wrong.any() else None}
    return answers


#: The mask values ``masked_attention_rows`` fills the masked keys with: a finite one that absorbs any score (a row
#: masked whole is then uniform), a language model's (torch.finfo(float32).min), and -inf (whose rows masked whole
#: are NaN by the specification).
MASKED_ROW_FILLS = {"-1e30": -1e30, "f32_min": float(np.finfo(np.float32).min), "-inf": float("-inf")}


def masked_attention_rows() -> dict[str, str]:
    """What the CPU plugin computes of attention written as ops, the form ir_tools writes ScaledDotProductAttention-13
    into (Transpose [0, 2, 1, 3] of q, k, v [1, 8, 4, 8]; MatMul(q * 1/sqrt(8), k, transpose_b) + a constant mask
    [1, 1, 8, 8]; SoftMax-8 over the last axis; MatMul with v; Transpose back), a causal mask whose first two keys are
    masked too, so that rows 0 and 1 are masked whole, per ``MASKED_ROW_FILLS``: "right" if within 1e-5 x max|output|
    of float64 numpy (a row masked whole by a finite value: uniform weights; by -inf: NaN), "nan" if NaN where the
    specification gives numbers, "wrong" otherwise, "fails" if it does not compile or run (2023.0 gives NaN for rows
    masked whole by -1e30 or f32_min, as its CPU fuses the pattern: the current OpenVINO uniform weights)."""
    shape, perm = [1, 8, 4, 8], np.array([0, 2, 1, 3], np.int64)
    rng = np.random.default_rng(0)
    feed = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    answers = {}
    for key, fill in MASKED_ROW_FILLS.items():
        mask = np.zeros((1, 1, 8, 8), np.float32)
        mask[..., :2] = fill
        mask[..., np.triu_indices(8, 1)[0], np.triu_indices(8, 1)[1]] = fill
        params = [ov.op.Parameter(ov.Type.f32, ov.PartialShape(shape)) for _ in range(3)]
        f1, f8 = NodeFactory("opset1"), NodeFactory("opset8")
        order = ov.op.Constant(perm)
        q, k, v = (f1.create("Transpose", [x.output(0), order.output(0)], {}) for x in params)
        scaled = f1.create("Multiply", [q.output(0), ov.op.Constant(np.array(1 / np.sqrt(8), np.float32)).output(0)],
                           {"auto_broadcast": "numpy"})
        scores = f1.create("MatMul", [scaled.output(0), k.output(0)], {"transpose_a": False, "transpose_b": True})
        masked = f1.create("Add", [scores.output(0), ov.op.Constant(mask).output(0)], {"auto_broadcast": "numpy"})
        weights = f8.create("Softmax", [masked.output(0)], {"axis": -1})
        out = f1.create("MatMul", [weights.output(0), v.output(0)], {"transpose_a": False, "transpose_b": False})
        back = f1.create("Transpose", [out.output(0), order.output(0)], {})
        qt, kt, vt = (x.astype(np.float64).transpose(0, 2, 1, 3) for x in feed)
        logits = qt @ kt.transpose(0, 1, 3, 2) / np.sqrt(8) + mask.astype(np.float64)
        with np.errstate(invalid="ignore"):
            e = np.exp(logits - logits.max(-1, keepdims=True))
            want = ((e / e.sum(-1, keepdims=True)) @ vt).transpose(0, 2, 1, 3)
        try:
            got = np.asarray(compiled(ov.Model([back.output(0)], params, "masked_attention_rows"))
                             .create_infer_request().infer(feed)[0], np.float64)
        except Exception:  # noqa: BLE001 (a release's compile or inference error, whatever its type)
            answers[key] = "fails"
            continue
        finite = ~np.isnan(want)
        if np.isnan(got[finite]).any():
            answers[key] = "nan"
        elif np.array_equal(np.isnan(got), ~finite) and np.allclose(got[finite], want[finite], rtol=0,
                                                                    atol=1e-5 * np.abs(want[finite]).max()):
            answers[key] = "right"
        else:
            answers[key] = "wrong"
    return answers


#: The values ``f16_io`` feeds: infinities, NaN, f16's largest, one, values beyond f16's range.
F16_IO_VALUES = [float("inf"), float("-inf"), float("nan"), 65504.0, 1.0, 70000.0, -70000.0, 0.0]


def f16_io() -> dict[str, list[float | bool | None]]:
    """Where the CPU plugin holds f16 values within +-65504 (outputs, NaN as None; scripts/make_release_table.py holds
    them against the current release's): ``input``, an f16 Parameter of ``F16_IO_VALUES`` converted to f32 (2024.0
    reads an infinity as +-65504); ``output``, an f32 Parameter converted to f16, the model's output (2024.0 writes
    +-65504 for 70000 and infinities); ``inside``, that f16 converted back to f32 and its IsInf-10 (every release keeps
    70000 and the infinities: f16 is computed in f32 inside a model); ``const``, an f16 Const of those values
    converted to f32 and added to an f32 input of zeros; ``arithmetic``, an f16 input doubled (60000 + 60000) and
    converted to f32 (120000 on every release)."""
    f32, f16 = np.array(F16_IO_VALUES, np.float32), np.array(F16_IO_VALUES, np.float16)
    doubled = np.array([60000, -60000, 30000, 1, 0, 40000, 65504, 65504], np.float16)
    cases = {}

    def convert(node: ov.Node, destination: str) -> ov.Node:
        return NodeFactory("opset1").create("Convert", [node.output(0)], {"destination_type": destination})

    def parameter(element: str) -> ov.Node:
        return ov.op.Parameter(getattr(ov.Type, element), ov.PartialShape([f32.size]))

    x = parameter("f16")
    cases["input"] = ([convert(x, "f32")], [x], [f16])
    x = parameter("f32")
    cases["output"] = ([convert(x, "f16")], [x], [f32])
    x = parameter("f32")
    half = convert(x, "f16")
    cases["inside"] = ([convert(half, "f32"), NodeFactory("opset10").create(
        "IsInf", [half.output(0)], {"detect_negative": True, "detect_positive": True})], [x], [f32])
    x = parameter("f32")
    cases["const"] = ([NodeFactory("opset1").create("Add", [convert(ov.op.Constant(f16), "f32").output(0),
                                                             x.output(0)])], [x], [np.zeros_like(f32)])
    x = parameter("f16")
    cases["arithmetic"] = ([convert(NodeFactory("opset1").create("Add", [x.output(0), x.output(0)]), "f32")], [x],
                           [doubled])
    answers: dict[str, list[float | bool | None]] = {}
    for key, (outputs, params, feed) in cases.items():
        request = compiled(ov.Model([o.output(0) for o in outputs], params, key)).create_infer_request()
        request.infer(feed)
        got = [v for i in range(len(outputs)) for v in request.get_output_tensor(i).data.tolist()]
        answers[key] = [None if isinstance(v, float) and v != v else v for v in got]
    return answers


#: IR v10 models of one layer whose boolean output is the model's output: x [6] f32 -> op -> Result.
V10_BOOLEAN = {"IsNaN": ("opset10", ""), "IsInf": ("opset10", ""), "IsFinite": ("opset10", ""),
               "NotEqual": ("opset1", ""), "LogicalNot": ("opset1", "")}


def v10_boolean_outputs() -> dict[str, str]:
    """What the release does with an IR v10 model whose output is a boolean: x [6] f32 -> IsNaN-10, IsInf-10,
    IsFinite-10, NotEqual-1 (x against itself: True for NaN), or LogicalNot-1 of IsNaN-10 -> Result: "right" if it
    computes numpy's answer (as booleans or 0/1), "wrong", "fails" to compile or run it (2023.0 on IsNaN: "Eltwise
    node ... doesn't support BOOL precision"), or "refused" by its reader."""
    x = np.array([0.0, np.nan, np.inf, -np.inf, 1.0, -2.0], np.float32)
    want = {"IsNaN": np.isnan(x), "IsInf": np.isinf(x), "IsFinite": np.isfinite(x), "NotEqual": np.isnan(x),
            "LogicalNot": ~np.isnan(x)}
    dims = [6]
    answers = {}
    for op, (opset, data) in V10_BOOLEAN.items():
        head = '<layer id="1" name="op" type="{}" version="{}">{}<input>{}</input><output>{}</output></layer>'
        if op == "LogicalNot":
            body = (head.format("IsNaN", "opset10", "", port(0, "FP32", dims), port(1, "BOOL", dims)) +
                    '<layer id="3" name="not" type="LogicalNot" version="opset1"><input>' + port(0, "BOOL", dims) +
                    '</input><output>' + port(1, "BOOL", dims) + '</output></layer>')
            edges = ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
                     '<edge from-layer="1" from-port="1" to-layer="3" to-port="0"/>'
                     '<edge from-layer="3" from-port="1" to-layer="2" to-port="0"/>')
        elif op == "NotEqual":
            body = head.format(op, opset, data, port(0, "FP32", dims) + port(1, "FP32", dims), port(2, "BOOL", dims))
            edges = ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
                     '<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>'
                     '<edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>')
        else:
            body = head.format(op, opset, data, port(0, "FP32", dims), port(1, "BOOL", dims))
            edges = ('<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
                     '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>')
        xml = (f'<?xml version="1.0"?>\n<net name="probe" version="10"><layers>'
               f'{parameter(0, "x", "f32", "FP32", dims)}{body}<layer id="2" name="r" type="Result" '
               f'version="opset1"><input>{port(0, "BOOL", dims)}</input></layer></layers><edges>{edges}</edges></net>')
        model = read(xml)
        if model is None:
            answers[op] = "refused"
            continue
        try:
            got = compiled(model).create_infer_request().infer([x])[0]
        except RuntimeError as error:
            print(f"v10 boolean output {op}: {str(error).strip().splitlines()[-1][:200]}", file=sys.stderr)
            answers[op] = "fails"
            continue
        answers[op] = "right" if np.array_equal(np.asarray(got).astype(bool), want[op]) and set(
            np.unique(np.asarray(got).astype(np.int64)).tolist()) <= {0, 1} else "wrong"
    return answers

#: AvgPool-1 geometries ``avg_pool_pads`` compiles, a batch to a model (a failing batch is bisected).
POOL_BATCH = 200


def _pool_valid(shape: list[int], kernel: list[int], strides: list[int], pads: tuple[list[int], list[int]],
                auto_pad: str, exclude: bool) -> bool:
    """Whether OpenVINO reads the AvgPool-1 (the kernel fits each padded axis; with exclude-pad, in neither pad; same_*
    pads as OpenVINO resolves them)."""
    for n, k, s, b, e in zip(shape[2:], kernel, strides, *pads, strict=True):
        if auto_pad in ("same_upper", "same_lower"):
            total = max(0, (-(-n // s) - 1) * s + k - n)
            b, e = (total // 2, total - total // 2) if auto_pad == "same_upper" else (total - total // 2, total // 2)
        elif auto_pad == "valid":
            b, e = 0, 0
        if k > n + b + e or (exclude and (k <= b or k <= e)):
            return False
    return True


def pool_key(shape: list[int], kernel: list[int], strides: list[int], pads: tuple[list[int], list[int]],
             rounding: str, auto_pad: str, exclude: bool, dynamic: bool) -> str:
    """A geometry of ``avg_pool_cases`` as its answer names it: "1,1,3 k4 s2 p0/3 floor explicit exclude dynamic"
    (several spatial axes: "k4,2")."""
    def joined(values: list[int]) -> str:
        return ",".join(map(str, values))

    return (f"{joined(shape)} k{joined(kernel)} s{joined(strides)} p{joined(pads[0])}/{joined(pads[1])} {rounding} "
            f"{auto_pad} {'exclude' if exclude else 'include'}{' dynamic' if dynamic else ''}")


def avg_pool_cases() -> list[tuple]:
    """The AvgPool-1 geometries ``avg_pool_pads`` asks about (pure Python: scripts/make_release_table.py takes the same
    list): every 1-D axis of length 1-6, kernel 1-4, stride 1-4 and pads 0-3, floor and ceil, exclude-pad or not, on a
    static and on a dynamic spatial dim; the same without pads under same_upper, same_lower and valid; and 3000 seeded
    2-D and 3-D layers of each (lengths 1-6, kernels and strides 1-4, pads 0-3, a dim declared dynamic in three
    layers of ten). Each is (shape, kernel, strides, (pads_begin, pads_end), rounding, auto_pad, exclude, dynamic)."""
    import random

    cases = []
    for n, k, s, b, e, exclude, rounding in itertools.product(range(1, 7), range(1, 5), range(1, 5), range(4),
                                                               range(4), (False, True), ("floor", "ceil")):
        for auto_pad in ("explicit",) + (("same_upper", "same_lower", "valid") if b == e == 0 else ()):
            for dynamic in (False, True):
                case = ([1, 1, n], [k], [s], ([b], [e]), rounding, auto_pad, exclude, dynamic)
                if _pool_valid(case[0], case[1], case[2], case[3], auto_pad, exclude):
                    cases.append(case)
    rng = random.Random(5)
    drawn = 0
    while drawn < 3000:
        rank = rng.choice([2, 2, 3])
        axes = [[rng.randint(1, 6) for _ in range(rank)], [rng.randint(1, 4) for _ in range(rank)],
                [rng.randint(1, 4) for _ in range(rank)], [rng.randint(0, 3) for _ in range(rank)],
                [rng.randint(0, 3) for _ in range(rank)]]
        shape = [rng.randint(1, 2), rng.randint(1, 3), *axes[0]]
        exclude, rounding = rng.random() < 0.5, rng.choice(["floor", "ceil"])
        auto_pad, dynamic = rng.choice(["explicit"] * 3 + ["same_upper", "same_lower", "valid"]), rng.random() < 0.3
        if _pool_valid(shape, axes[1], axes[2], (axes[3], axes[4]), auto_pad, exclude):
            cases.append((shape, axes[1], axes[2], (axes[3], axes[4]), rounding, auto_pad, exclude, dynamic))
            drawn += 1
    return cases


def _pools_run(cases: list[tuple]) -> str | None:
    """None if the CPU plugin compiles a model of these AvgPool-1 layers (each on a Parameter of its own) and runs it
    on ones; else the last line of its words."""
    factory, params, results = NodeFactory("opset1"), [], []
    for shape, kernel, strides, (begin, end), rounding, auto_pad, exclude, dynamic in cases:
        declared = [*shape[:2], *(-1 if dynamic else n for n in shape[2:])]
        data = ov.op.Parameter(ov.Type.f32, ov.PartialShape(declared))
        node = factory.create("AvgPool", [data.output(0)], {
            "strides": strides, "pads_begin": begin, "pads_end": end, "kernel": kernel, "exclude-pad": exclude,
            "rounding_type": rounding, "auto_pad": auto_pad})
        params.append(data)
        results.append(node.output(0))
    try:
        request = compiled(ov.Model(results, params, "pools")).create_infer_request()
        request.infer([np.ones(case[0], np.float32) for case in cases])
    except RuntimeError as error:
        return str(error).strip().splitlines()[-1][:200]
    return None


def refused_pools(cases: list[tuple]) -> list[tuple[str, str]]:
    """The ``pool_key`` of each of ``cases`` the CPU plugin does not compile or run (``_pools_run``), with its words:
    ``POOL_BATCH`` layers a model, a batch that fails bisected down to the layers that fail alone."""
    refused: list[tuple[str, str]] = []

    def bisect(batch: list[tuple]) -> None:
        failed = _pools_run(batch)
        if failed is None:
            return
        if len(batch) == 1:
            refused.append((pool_key(*batch[0]), failed))
            return
        bisect(batch[:len(batch) // 2])
        bisect(batch[len(batch) // 2:])

    for start in range(0, len(cases), POOL_BATCH):
        bisect(cases[start:start + POOL_BATCH])
    return refused


def avg_pool_pads() -> dict[str, object]:
    """Which AvgPool-1 layers of ``avg_pool_cases`` the CPU plugin does not compile, or compiles and fails to run
    (dynamic dims: at inference) on an input of ones (``refused_pools``): ``refused``, their ``pool_key``s (2023.0:
    "Supported primitive descriptors list is empty" for L=1, K=2, S=2, pads 0/2, ceil), with ``words`` of the first;
    ``cases`` the number asked and ``digest`` of their keys (scripts/make_release_table.py checks it takes the
    same)."""
    import hashlib

    cases = avg_pool_cases()
    refused = refused_pools(cases)
    keys = "\n".join(pool_key(*case) for case in cases)
    return {"cases": len(cases), "digest": hashlib.sha256(keys.encode()).hexdigest()[:16],
            "refused": [key for key, _ in refused], "words": [words for _, words in refused[:1]]}


def main(only: list[str]) -> None:
    """Print every answer, or with names of questions (``squeeze_axes``) those only, to merge into a kept answer."""
    questions = {"ir_versions": ir_versions, "opsets": opsets, "values": values,
                 "duplicate_layer_names": duplicate_layer_names, "sdpa_boolean_mask": sdpa_boolean_mask,
                 "dynamic_state": dynamic_state, "sdpa_float_mask_shapes": sdpa_float_mask_shapes,
                 "sdpa_float_mask_dynamic": lambda: sdpa_float_mask_shapes(dynamic=True),
                 "sdpa_lower_rank": sdpa_lower_rank, "sdpa_scalar_mask": sdpa_scalar_mask,
                 "sdpa_value_width": sdpa_value_width,
                 "scatter_min_max": scatter_min_max, "scatter_no_init": scatter_no_init,
                 "scatter_empty": scatter_empty,
                 "reduce_empty_axis": reduce_empty_axis, "reduce_empty_integers": reduce_empty_integers,
                 "reduce_integers": reduce_integers, "identity": identity,
                 "bitwise": bitwise, "bitwise_boolean": bitwise_boolean, "i4_zero_point": i4_zero_point,
                 "group_norm_2d": group_norm_2d, "rms_norm": rms_norm,
                 "one_channel_decompression": one_channel_decompression, "kv_cache_f32": kv_cache_f32,
                 "einsum_ellipsis": einsum_ellipsis, "einsum_label_broadcast": einsum_label_broadcast,
                 "dft_dynamic": dft_dynamic,
                 "integer_convert": integer_convert, "squeeze_axes": squeeze_axes, "state_shapes": state_shapes,
                 "int_to_float": int_to_float, "int_to_f16_inside": int_to_f16_inside,
                 "float_convert": float_convert,
                 "v10_boolean_outputs": v10_boolean_outputs, "f16_io": f16_io,
                 "float_boolean": float_boolean, "integer_boolean": integer_boolean, "avg_pool_pads": avg_pool_pads,
                 "masked_attention_rows": masked_attention_rows,
                 "if_self_compare": if_self_compare,
                 "max_pool_ceil_torch": max_pool_ceil_torch, "left_shift_16": left_shift_16,
                 "segment_max": segment_max, "fake_convert": fake_convert}
    unknown = set(only) - set(questions)
    if unknown:
        sys.exit(f"unknown questions {sorted(unknown)}; known: {', '.join(questions)}")
    answers = {"version": ov.get_version(), "python": sys.version.split()[0]}
    answers.update({name: ask() for name, ask in questions.items() if not only or name in only})
    json.dump(answers, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
