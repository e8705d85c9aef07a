"""``compare A.xml --against B.xml|B.onnx``: an IR against the ONNX file it came from (onnxruntime) and against its
f16-compressed twin (OpenVINO), outputs and every tensor matched by name, a planted defect named as the first drift,
and bad input refused (exit 2, nothing run). One small network (squeezenet1_1, 83 ONNX nodes), converted once by
``ov.convert_model`` at f32 and with f16 weights."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import openvino as ov
import openvino.opset13 as ops
import pytest

from ir_tools.cli import main
from ir_tools.ops.bucketize import BUCKETIZE_3
from ir_tools.runtime.against import IMPLEMENTATION, SPREAD
from tests.conftest import ROOT
from tests.defects import plant
from tests.target_zoo import FIXTURES_DIR

pytestmark = pytest.mark.openvino

ONNX = ROOT / "tests" / "data" / "networks" / "squeezenet1_1_op17_dyn.onnx"
STATEFUL = FIXTURES_DIR / "tiny_llama_stateful_f16.xml"
SHAPE = "input:1,3,64,64"


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The ONNX file, its IR at f32 and with f16 weights (as ovc writes them), and the f32 IR with two output channels
    of a Convolution swapped (``defects.plant``), the layer's name as ``changed``."""
    tmp = tmp_path_factory.mktemp("against")
    model = ov.convert_model(str(ONNX))
    ov.save_model(model, str(tmp / "f32.xml"), compress_to_fp16=False)
    ov.save_model(model, str(tmp / "f16.xml"), compress_to_fp16=True)
    return {"onnx": ONNX, "f32": tmp / "f32.xml", "f16": tmp / "f16.xml", "dir": tmp}


def compare(capsys: pytest.CaptureFixture[str], a: Path, b: Path, *args: str) -> tuple[int, dict]:
    code = main(["compare", str(a), "--against", str(b), "--shape", SHAPE, "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_ir_against_its_onnx_source_matches_every_named_tensor(models, capsys, check_report) -> None:
    code, report = compare(capsys, models["f32"], models["onnx"], "--per-layer")
    check_report(report)
    assert code == 0 and report["passed"]
    against = report["against"]
    assert against["runner"].startswith("onnxruntime") and against["model"] == str(ONNX)
    assert against["tolerance"]["unit"] == 0.0 and against["tolerance"]["weights"] == ["f32", "f32"]
    tensors = against["tensors"]
    assert tensors["named"] > 50 and tensors["matched"] == tensors["named"] and tensors["unmatched"] == []
    assert [o["name"] for o in report["outputs"]] == ["logits"]
    assert len(report["layers"]) == tensors["matched"] - tensors["by_layer_name"]  # one named tensor per layer
    # each tensor's atol: 1e-4 x max|tensor|; its bound W the ops' rounding alone (both models' weights are f32)
    first = report["layers"][0]["outputs"][0]
    assert first["rtol"] == 0 and first["atol"] >= IMPLEMENTATION * first["max_abs_error"]
    assert first["bound_max"] is not None


def test_ir_against_its_f16_twin_derives_the_tolerance_from_the_weights(models, capsys, check_report) -> None:
    code, report = compare(capsys, models["f32"], models["f16"], "--per-layer")
    check_report(report)
    assert code == 0, [t for lay in report["layers"] for t in lay["outputs"] if not t["passed"]]
    tolerance = report["against"]["tolerance"]
    assert tolerance["unit"] == 2.0**-11 and tolerance["weights"] == ["f32", "f16"]
    assert tolerance["spread"] == SPREAD and report["config"]["tolerance"] == tolerance["rule"]
    tensors = report["against"]["tensors"]
    assert tensors["matched"] == tensors["named"] + tensors["by_layer_name"] and not tensors["unmatched_against"]
    # the f16 rounding is larger than compare's reference tolerance would allow: the derived one is larger still
    worst = max(t["max_abs_error"] for lay in report["layers"] for t in lay["outputs"])
    assert worst > 1e-4
    # the text says the rule and the counts; --atol/--rtol replace the rule
    assert main(["compare", str(models["f32"]), "--against", str(models["f16"]), "--shape", SHAPE, "--per-layer"]) == 0
    text = capsys.readouterr().out
    assert "tolerance (derived; --atol/--rtol override it): an element within W or 0.0001 x max|tensor|" in text
    assert f"tensors matched: {tensors['named']} of A's {tensors['named']} named tensors by name (100.0%)" in text
    code, report = compare(capsys, models["f32"], models["f16"], "--atol", "1e-9", "--rtol", "0")
    assert code == 1 and report["against"]["tolerance"] is None and report["config"]["atol"] == 1e-9
    assert report["first_divergence"] is not None  # an output failed: the tensors were compared to find where


def test_planted_defect_is_the_first_drift(models, capsys, check_report) -> None:
    """Two output channels of the 4th Convolution swapped in the f32 IR: against the f16 twin and against the ONNX
    source, the first tensor beyond its tolerance is that Convolution's (the logits may not show it: their tolerance
    carries every layer's)."""
    graph = ov.Core().read_model(models["f32"])
    convolutions = [op.get_friendly_name() for op in graph.get_ordered_ops() if op.get_type_name() == "Convolution"]
    changed = convolutions[3]
    broken = models["dir"] / "channels.xml"
    plant("channels", models["f32"], broken, changed)
    for against in (models["f16"], models["onnx"]):
        code, report = compare(capsys, broken, against, "--per-layer", "--html", str(models["dir"] / "drift.html"))
        check_report(report)
        assert code == 1
        first = report["first_divergence"]
        assert first["name"] == changed, (against, first)
        assert (models["dir"] / "drift.html").is_file()


def test_bad_input_is_refused(models, capsys, tmp_path) -> None:
    renamed = onnx.load(str(ONNX))
    old = renamed.graph.input[0].name
    renamed.graph.input[0].name = "images"
    for node in renamed.graph.node:
        node.input[:] = ["images" if name == old else name for name in node.input]
    onnx.save(renamed, str(tmp_path / "renamed.onnx"))
    assert main(["compare", str(models["f32"]), "--against", str(tmp_path / "renamed.onnx"), "--shape", SHAPE]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "the two models' inputs differ: 'input' (A) is not an input of B; 'images' (B) is not an input of A" in \
        captured.err and "E-INPUT" in captured.err
    cases = [
        ([str(tmp_path / "missing.onnx")], "no such file"),
        ([str(tmp_path / "missing.xml")], "missing.xml"),
        ([str(models["f16"]), "--load-outputs", str(tmp_path / "x.npz")],
         "--load-outputs compares OpenVINO with the numpy reference; --against compares two models"),
    ]
    for args, words in cases:
        assert main(["compare", str(models["f32"]), "--against", *args, "--shape", SHAPE]) == 2, args
        captured = capsys.readouterr()
        assert captured.out == "" and words in captured.err, (args, captured.err)
    values = {"input": np.zeros((1, 3, 64, 65), np.float32)}  # fits A (dynamic) but not a static B
    np.savez(tmp_path / "in.npz", **values)
    static = models["dir"] / "static.xml"
    ov.save_model(ov.convert_model(str(ONNX), input=[1, 3, 64, 64]), str(static), compress_to_fp16=False)
    assert main(["compare", str(models["f32"]), "--against", str(static), "--inputs", str(tmp_path / "in.npz")]) == 2
    err = capsys.readouterr().err  # (B's path and words: A's were said, found by a QA run)
    assert f"{static}: error[E-INPUT]: B (static.xml) does not take A's inputs: input 'input' has shape " \
           "[1, 3, 64, 65], the model accepts [1,3,64,64]" in err, err


def test_weight_rounding_amplified_by_cancellation_and_normalisation_stays_within_its_bound(tmp_path, capsys,
                                                                                            check_report) -> None:
    """f32 weights against their f16 rounding where one rounding error per layer of the output's scale is not what
    happens: a MatMul whose weights carry a folded BatchNorm's scale (40) and whose products cancel (columns nearly
    alike), then groups of 32 nearly equal values normalised (MVN divides by their small deviation), as maxvit's
    LayerNorm and regnet's folded convolutions did. The errors exceed 2^-11 + 2^-18 + 1e-4 of the tensor's peak (the
    earlier rule, one weighted layer), and stay within the bound the rounding rules propagate from the weights'
    actual rounding."""
    rng = np.random.default_rng(0)
    x = ops.parameter([1, 64], np.float32, name="x")
    alike = np.repeat(rng.standard_normal((64, 8)), 32, axis=1) + 1e-3 * rng.standard_normal((64, 256))
    layers = [ops.matmul(x, ops.constant((40 * alike).astype(np.float32)), False, False, name="mm")]
    layers.append(ops.add(layers[-1], ops.constant(np.full((1, 256), 0.5, np.float32)), name="bias"))
    layers.append(ops.reshape(layers[-1], ops.constant(np.array([1, 8, 32], np.int64)), False, name="groups"))
    layers.append(ops.mvn(layers[-1], ops.constant(np.array([2], np.int64)), True, 1e-9, "inside_sqrt", name="norm"))
    for op in layers:
        op.output(0).get_tensor().set_names({op.get_friendly_name()})
    model = ov.Model([layers[-1]], [x], "cancelling")
    ov.save_model(model, str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(model, str(tmp_path / "f16.xml"), compress_to_fp16=True)
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml"), "--per-layer",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    check_report(report)
    assert code == 0, report["first_divergence"]
    tensors = {t["name"]: t for lay in report["layers"] for t in lay["outputs"]}
    for name in ("mm", "norm"):
        t = tensors[name]
        peak = t["atol"] / IMPLEMENTATION
        assert t["max_abs_error"] > (2.0**-11 + 2.0**-18 + IMPLEMENTATION) * peak, (name, t)
        assert t["max_abs_error"] <= t["bound_max"], (name, t)


def test_a_weight_changed_in_its_4th_digit_is_named_against_the_f32_original(models, capsys) -> None:
    """Against the f32 IR it was planted in, every layer up to the changed one is computed alike (the same kernel on
    the same values: no difference allowed), and the changed layer, fed weights that differ from B's (its constant's
    values compared, not assumed alike), is the first drift; it and what follows are held to W, which starts from
    that difference."""
    graph = ov.Core().read_model(models["f32"])
    # (the 6th: in some, the largest weight meets a channel the seeded input leaves 0 after ReLU, and changes nothing)
    changed = [op.get_friendly_name() for op in graph.get_ordered_ops() if op.get_type_name() == "Convolution"][5]
    broken = models["dir"] / "weight.xml"
    plant("weight", models["f32"], broken, changed)
    code, report = compare(capsys, broken, models["f32"], "--per-layer")
    assert code == 1 and report["first_divergence"]["name"] == changed, report["first_divergence"]
    (differ,) = report["against"]["weights_differ"]
    assert differ["name"] == changed and differ["input"] == 1 and differ["consts"][0]["differ"] == 1, differ
    before = [t for lay in report["layers"] for t in lay["outputs"]][:3]  # upstream: alike, held to equality
    assert all(t["atol"] == 0 and t["bound_max"] == 0 and t["max_abs_error"] == 0 for t in before), before
    (at,) = [lay for lay in report["layers"] if lay["name"] == changed]
    assert all(t["bound_max"] > 0 and t["atol"] > 0 for t in at["outputs"][1:]), at  # (the first: the weights)


def test_weights_one_ulp_apart_are_named_and_held_to_their_bound(tmp_path, capsys, check_report) -> None:
    """B's MatMul weights one ulp from A's in one element: any constant input counted as alike, so the MatMul and what
    follows were held to equality and failed, and the report never said the weights differ (resnet18, found by a QA
    run). Now the constants' values are compared: the MatMul is the first drift, its weights compared with B's
    (one value differs), and what it computes and what follows are held to the W that difference starts, not to
    equality: within it."""
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((16, 8)).astype(np.float32)

    def save(path: Path, w: np.ndarray) -> None:
        x = ops.parameter([4, 16], np.float32, name="x")
        product = ops.matmul(x, ops.constant(w, name="W"), False, False, name="product")
        relu = ops.relu(ops.add(product, ops.constant(np.float32(0.5)), name="shift"), name="relu")
        relu.output(0).get_tensor().set_names({"y"})
        ov.save_model(ov.Model([ops.result(relu)], [x], "m"), path, compress_to_fp16=False)

    moved = weights.copy()
    moved[3, 5] = np.nextafter(moved[3, 5], np.float32(np.inf))
    save(tmp_path / "a.xml", weights)
    save(tmp_path / "b.xml", moved)
    code = main(["compare", str(tmp_path / "a.xml"), "--against", str(tmp_path / "b.xml"), "--per-layer",
                 "--format", "json"])
    report = check_report(json.loads(capsys.readouterr().out))
    assert code == 1 and report["first_divergence"]["name"] == "product"
    (differ,) = report["against"]["weights_differ"]
    assert (differ["name"], differ["input"]) == ("product", 1)
    assert differ["consts"] == [{"const": "W", "differ": 1, "of": 128,
                                 "max_abs": float(abs(moved[3, 5] - weights[3, 5]))}]
    (weights, product), relu = [lay["outputs"] for lay in report["layers"] if lay["name"] in ("product", "relu")]
    assert weights["name"] == "weights 'W' (input 1)" and weights["mismatches"] == 1 and not weights["passed"]
    assert all(t["passed"] and t["bound_max"] > 0 for t in (product, *relu)), (product, relu)
    main(["compare", str(tmp_path / "a.xml"), "--against", str(tmp_path / "b.xml")])
    assert "weights differ from B's: layer 'product' (MatMul@opset1, line" in capsys.readouterr().out


def test_stateful_f32_against_its_f16_twin_over_steps(tmp_path, capsys, check_report) -> None:
    """The stateful Llama fixture (f16 weights) decompressed to f32 against itself: over 3 steps every output, state
    and tensor within the derived bound, each variable carrying the bound of what its Assign wrote into the next
    step (its ReadValue there starts from it)."""
    model = ov.Core().read_model(STATEFUL)
    for op in model.get_ordered_ops():  # each f16 weight and its decompressing Convert as one f32 Constant
        source = op.input_value(0).get_node() if op.get_type_name() == "Convert" else None
        if source is not None and source.get_type_name() == "Constant" and \
                source.get_element_type() == ov.Type.f16 and op.get_element_type() == ov.Type.f32:
            op.output(0).replace(ops.constant(source.get_data().astype(np.float32)).output(0))
    ov.save_model(model, str(tmp_path / "f32.xml"), compress_to_fp16=False)
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(STATEFUL), "--steps", "3", "--per-layer",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    check_report(report)
    assert code == 0 and [s["step"] for s in report["steps"] if s["passed"]] == [1, 2, 3], report["first_divergence"]
    assert report["against"]["tolerance"]["weights"] == ["f32", "f16"]
    states = [t for t in report["outputs"] if t["name"].startswith("state ") and t["name"].endswith("(step 3)")]
    assert states and all(0 < t["bound_max"] for t in states), states
    read = [t for lay in report["layers"] if lay["type"].startswith("ReadValue") for t in lay["outputs"]
            if t["name"].endswith("(step 2)")]
    assert read and all(0 < t["bound_max"] and t["max_abs_error"] <= t["bound_max"] for t in read), read
    as_is = report["compiled_as_is"]  # (each step's outputs also as the f32 form is compiled, held to those checked)
    assert {t["name"].rpartition(" (")[2] for t in as_is} == {"step 1)", "step 2)", "step 3)"}, as_is
    assert all(t["passed"] for t in as_is), as_is


def test_an_output_whose_bound_is_too_loose_to_fail_has_every_tensor_compared(tmp_path, capsys,
                                                                              check_report) -> None:
    """Where the end-to-end W of an output reaches the output's own magnitude, a wrong output passes there (on a 50M
    Llama against its f16 twin, W of the logits was 3e8 and a planted defect passed): every tensor is then compared,
    and the first drift found where W is still tight. Here x * 1.0001 - x, whose f16 twin rounds 1.0001 to 1."""
    x = ops.parameter([4, 8], np.float32, name="x")
    scaled = ops.multiply(x, ops.constant(np.full([1, 8], 1.0001, np.float32)), name="scaled")
    small = ops.subtract(scaled, x, name="small")
    for op in (scaled, small):
        op.output(0).get_tensor().set_names({op.get_friendly_name()})
    model = ov.Model([small], [x], "cancelling")
    ov.save_model(model, str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(model, str(tmp_path / "f16.xml"), compress_to_fp16=True)
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    check_report(report)
    assert code == 0 and [t["name"] for t in report["too_loose"]] == ["small"]
    assert {lay["name"] for lay in report["layers"]} == {"scaled", "small"}  # compared without --per-layer
    assert main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml")]) == 0
    assert "PASSED (end-to-end bound too loose to fail, so every tensor compared with B's: small)" in \
        capsys.readouterr().out
    # against itself: the same bits, though A runs with every tensor exposed (which keeps OpenVINO from computing
    # x * c - x as one FMA): B runs so too (it ran without, and this failed)
    assert main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f32.xml"), "-q"]) == 0


def test_models_whose_weights_are_compressed_otherwise_have_no_derived_tolerance(tmp_path, capsys) -> None:
    """An int8 model against its f16 original differs by its quantization, which no rounding rule bounds: compare held
    them to equality (the int8 label said "f16 against f16") and its verdict turned with the direction. Refused, with
    what each holds; --atol/--rtol compare them; reduce --against, which compares parts exactly, refuses them too."""
    int8, f16 = FIXTURES_DIR / "tiny_gpt2_int8.xml", FIXTURES_DIR / "tiny_gpt2_f16.xml"
    for a, b in ((int8, f16), (f16, int8)):
        assert main(["compare", str(a), "--against", str(b)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "error[E-USAGE]: the derived tolerance bounds two copies of one model's " \
            "weights in float types, and these are compressed otherwise" in captured.err
        assert "u8 compressed weight Consts" in captured.err and "no compressed weights" in captured.err
    assert main(["compare", str(int8), "--against", str(f16), "--atol", "10", "-q"]) == 0
    capsys.readouterr()
    assert main(["reduce", str(int8), "--against", str(f16), "-o", str(tmp_path / "min.xml")]) == 2
    assert "their weights differ in kind (A holds" in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_an_input_of_several_names_is_matched_by_the_one_b_knows(models, tmp_path, capsys) -> None:
    """A's input tensor named 'pixels' and 'input' (the ONNX file's name second): it was matched by its first name
    only, and the two models' inputs said to differ (found by a QA run)."""
    text = models["f32"].read_text()
    assert text.count('names="input"') == 1
    aliased = tmp_path / "aliased.xml"
    aliased.write_text(text.replace('names="input"', 'names="pixels,input"'))
    aliased.with_suffix(".bin").write_bytes(models["f32"].with_suffix(".bin").read_bytes())
    assert main(["compare", str(aliased), "--against", str(ONNX), "--shape", "pixels:1,3,64,64", "-q"]) == 0, \
        capsys.readouterr()
    assert "PASSED" in capsys.readouterr().out


def test_an_output_b_computes_as_a_tensor_is_compared_not_failed(tmp_path: Path, capsys) -> None:
    """A is B with a debug output added (an inner tensor made an output, a common transformation): B has no output of
    that name but computes the tensor, which is compared among the tensors; the output is not a failure (it was
    '[FAIL] r: B has no output of this name', found by a QA run). An output B does not compute at all still fails."""
    x = ops.parameter([2, 8], np.float32, name="x")
    inner = ops.relu(x, name="r")
    inner.output(0).get_tensor().set_names({"r"})
    y = ops.exp(inner, name="y")
    y.output(0).get_tensor().set_names({"y"})
    b = tmp_path / "b.xml"
    ov.save_model(ov.Model([y], [x], "b"), b, compress_to_fp16=False)
    a = tmp_path / "a.xml"
    ov.save_model(ov.Model([y, inner], [x], "a"), a, compress_to_fp16=False)
    code = main(["compare", str(a), "--against", str(b), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    extra = next(t for t in report["outputs"] if t["name"] == "r")
    assert code == 0 and not extra["comparable"] and "computes a tensor of this name" in extra["note"], extra
    other = ops.negative(inner, name="n")
    other.output(0).get_tensor().set_names({"n"})
    ov.save_model(ov.Model([y, other], [x], "a"), a, compress_to_fp16=False)
    assert main(["compare", str(a), "--against", str(b)]) == 1
    assert "[FAIL] n: B (b.xml) has no output of this name" in capsys.readouterr().out


def _rms_norm_model(weights: np.ndarray) -> ov.Model:
    """Llama's RMSNorm (x / sqrt(mean(x^2) + eps), Power's exponent a constant 2) times gamma, then a MatMul by
    ``weights``."""
    x = ops.parameter([2, 8, 32], np.float32, name="x")
    square = ops.power(x, ops.constant(np.full([1, 1, 1], 2.0, np.float32)), name="square")
    mean = ops.reduce_mean(square, ops.constant(np.int64([-1])), True, name="mean")
    root = ops.sqrt(ops.add(mean, ops.constant(np.float32(1e-6))), name="root")
    normed = ops.multiply(x, ops.divide(ops.constant(np.float32(1.0)), root), name="normed")
    gamma = ops.multiply(normed, ops.constant(np.linspace(0.5, 1.5, 32, dtype=np.float32)), name="gamma")
    product = ops.matmul(gamma, ops.constant(weights, name="W"), False, False, name="product")
    for op in (square, mean, root, normed, gamma, product):
        op.output(0).get_tensor().set_names({op.get_friendly_name()})
    return ov.Model([product], [x], "rms")


def test_an_f16_model_against_its_f32_original_starts_w_from_what_the_weights_differ_by(tmp_path, capsys,
                                                                                       check_report) -> None:
    """An f16-weight model against its f32 original (Llama and Qwen2 of the target zoo: a negated weight passed).
    W started at each weight of A from the worst case of rounding to f16, u|w|: Power's exponent 2, an f16 Const
    against B's f32 2, moved by 2^-10, and x^(2 +- e) has no bound where x may be negative (NaN): W was infinite from
    the RMSNorm on, and so was every later tensor's. W now starts from exactly what A's weights differ from B's by
    (the exponent: nothing), and a weight that differs by more than rounding it to f16 explains is named, a failure
    at its layer."""
    weights = np.random.default_rng(0).standard_normal((32, 16)).astype(np.float32)
    negated = weights.copy()
    negated[5, 3] = -negated[5, 3]
    ov.save_model(_rms_norm_model(weights), str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(_rms_norm_model(weights), str(tmp_path / "f16.xml"), compress_to_fp16=True)
    ov.save_model(_rms_norm_model(negated), str(tmp_path / "negated.xml"), compress_to_fp16=True)
    code = main(["compare", str(tmp_path / "f16.xml"), "--against", str(tmp_path / "f32.xml"), "--per-layer",
                 "--format", "json"])
    report = check_report(json.loads(capsys.readouterr().out))
    assert code == 0 and not report.get("too_loose") and "weights_differ" not in report["against"]
    square, (product,) = [lay["outputs"][0] for lay in report["layers"] if lay["name"] == "square"], \
        report["outputs"]
    assert square and square[0]["bound_max"] is not None and np.isfinite(square[0]["bound_max"]), square
    assert np.isfinite(product["bound_max"]) and product["error_to_bound"] < 1, product
    # beyond its atol (1e-4 x max|product|), within W: W decided, no atol is needed, and the report says so
    assert product["max_abs_error"] > product["atol"] and product["passed_by"] == "bound", product
    assert product["min_atol_to_pass"] == 0
    code = main(["compare", str(tmp_path / "negated.xml"), "--against", str(tmp_path / "f32.xml"), "--format",
                 "json"])
    report = check_report(json.loads(capsys.readouterr().out))
    assert code == 1 and report["first_divergence"]["name"] == "product", report["first_divergence"]
    (differ,) = report["against"]["weights_differ"]
    assert differ["input"] == 1 and differ["consts"][0]["differ"] == 1, differ
    assert differ["consts"][0]["max_abs"] == pytest.approx(2 * abs(weights[5, 3]), rel=2.0**-10)


def _unnamed_v10(models: dict[str, Path], tmp_path: Path) -> tuple[Path, Path]:
    """The f16 IR with every tensor name removed (an output of no name, as ``ov.convert_model`` leaves a torchvision
    classifier's), and it migrated to IR v10 (its output then named after its producer, its decompression Converts
    no longer read as such)."""
    import re

    unnamed = tmp_path / "unnamed.xml"
    unnamed.write_text(re.sub(r' (output_)?names="[^"]*"', "", models["f16"].read_text()))
    unnamed.with_suffix(".bin").write_bytes(models["f16"].with_suffix(".bin").read_bytes())
    v10 = tmp_path / "unnamed_v10.xml"
    assert main(["migrate", str(unnamed), "--ir-version", "10", "-o", str(v10), "-q"]) == 0
    return unnamed, v10


def test_a_migrated_v10_model_against_its_original_pairs_an_unnamed_output(models, tmp_path, capsys) -> None:
    """`compare OUT.xml --against MODEL.xml` after `migrate --ir-version 10`: the output without a tensor name is named
    after its Result in v11 and after its producer in v10, and was "B has no output of this name" (FAILED). The two are
    paired by their Result."""
    unnamed, v10 = _unnamed_v10(models, tmp_path)
    capsys.readouterr()
    code, report = compare(capsys, v10, unnamed)
    assert code == 0 and [o["name"] for o in report["outputs"]] == ["logits"], report["outputs"]


def test_a_constant_read_as_decompression_in_one_model_only_is_not_computed_alike(models, tmp_path) -> None:
    """IR v11 marks the f16 weights' Converts as decompression, which OpenVINO keeps for the kernel that reads them;
    IR v10's rt_info OpenVINO does not read, so it folds them to f32 weights, and another kernel reads those. The
    layers they feed are not held to the same bits (convnext_tiny migrated to v10 against its original: 27 of 183
    layers failed at atol 0, 3.4e-4 apart)."""
    from ir_tools import read_valid
    from ir_tools.runtime.against import IrModel, against_inputs, derive, same_computations
    from ir_tools.runtime.inputs import random_inputs
    from ir_tools.runtime.openvino import ModelFiles

    unnamed, v10 = _unnamed_v10(models, tmp_path)
    a, b = (IrModel(read_valid(p), ModelFiles(p, p.with_suffix(".bin"))) for p in (v10, unnamed))
    inputs = random_inputs(a.graph, 0, {"input": (1, 3, 64, 64)})
    same = same_computations(a, b, derive(a, b), inputs, against_inputs(a, b, inputs)).same
    weighted = [layer for layer in a.order if layer.type == "Convolution"]
    assert weighted and not any(layer.id in same for layer in weighted)
    alike, twin = (IrModel(read_valid(p), ModelFiles(p, p.with_suffix(".bin"))) for p in (unnamed, unnamed))
    assert all(layer.id in same_computations(alike, twin, derive(alike, twin), inputs,
                                             against_inputs(alike, twin, inputs)).same for layer in weighted)


def test_a_name_written_on_two_tensors_is_matched_where_openvino_reads_it(tmp_path, capsys) -> None:
    """A model whose output name is also written on an earlier tensor (the wide zoo's ranking_head: its TopK's
    '17,75,ordered', then the Multiply feeding the Result 'ordered'): OpenVINO renames the earlier one 'ordered_1'.
    The Multiply was matched with B's first tensor holding 'ordered': the model against itself FAILED per layer."""
    x = ops.parameter([2, 8], np.float32, name="x")
    relu = ops.relu(x, name="relu")
    relu.output(0).get_tensor().set_names({"17", "ordered"})
    scaled = ops.multiply(relu, ops.constant(np.float32(2)), name="scaled")
    scaled.output(0).get_tensor().set_names({"ordered"})
    ov.save_model(ov.Model([scaled], [x], "renamed"), str(tmp_path / "m.xml"), compress_to_fp16=False)
    assert 'names="17,ordered"' in (tmp_path / "m.xml").read_text()
    code = main(["compare", str(tmp_path / "m.xml"), "--against", str(tmp_path / "m.xml"), "--per-layer",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report["first_divergence"]
    assert {t["name"] for lay in report["layers"] for t in lay["outputs"]} == {"17", "ordered"}
    assert report["against"]["tensors"]["unmatched_against"] == []


def _masked_attention(path: Path, flipped: bool) -> None:
    """One attention head over 8 tokens whose every row has a key masked by f32's lowest value (causal, and the last
    key as padding), as HF's eager attention masks (a Select of a scalar, which ovc keeps in f32); ``flipped``: the
    output projection reads its weights transposed (not a weight that differs: a computation)."""
    rng = np.random.default_rng(0)
    x = ops.parameter([1, 8, 16], np.float32, name="x")
    q, k, v = (ops.matmul(x, ops.constant((rng.standard_normal((16, 16)) / 4).astype(np.float32)), False, False,
                          name=name) for name in "qkv")
    scores = ops.matmul(q, k, False, True, name="scores")
    future = ops.constant(~np.tril(np.ones((1, 8, 8), bool)) | (np.arange(8) == 7))
    lowest = ops.constant(np.finfo(np.float32).min, np.float32)
    masked = ops.add(scores, ops.select(future, lowest, ops.constant(np.float32(0)), name="mask"), name="masked")
    probs = ops.softmax(masked, -1, name="probs")
    mixed = ops.matmul(probs, v, False, False, name="mixed")
    out = ops.matmul(mixed, ops.constant((rng.standard_normal((16, 16)) / 4).astype(np.float32)), False, flipped,
                     name="out")
    for op in (q, k, v, scores, masked, probs, mixed, out):
        op.output(0).get_tensor().set_names({op.get_friendly_name()})
    ov.save_model(ov.Model([out], [x], "masked_attention"), str(path), compress_to_fp16=path.stem != "f32")


def test_a_masked_attention_keeps_its_bound_and_a_later_change_fails(tmp_path, capsys, check_report) -> None:
    """The masked scores' own rounding is some 2^-24 of f32's lowest value (4e31), and SoftMax's rule took 0 (the
    masked probability) times e^4e31: every bound of the row infinite, so W from the first attention on (the wide
    zoo's xglm, its logits 'too loose to fail'), and a changed computation after it passed."""
    for name, flipped in (("f32", False), ("f16", False), ("f16_flipped", True)):
        _masked_attention(tmp_path / f"{name}.xml", flipped)

    def against(b: str) -> tuple[int, dict]:
        code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / b), "--per-layer",
                     "--format", "json"])
        return code, json.loads(capsys.readouterr().out)

    code, report = against("f16.xml")
    check_report(report)
    assert code == 0 and not report.get("too_loose"), report.get("too_loose")
    tensors = {t["name"]: t for lay in report["layers"] for t in lay["outputs"]}
    assert tensors["probs"]["bound_max"] < 0.1, tensors["probs"]
    assert tensors["out"]["bound_max"] < 0.1 * tensors["out"]["atol"] / IMPLEMENTATION, tensors["out"]  # max|out|
    code, report = against("f16_flipped.xml")
    assert code == 1 and report["first_divergence"]["name"] == "out", report["first_divergence"]


@pytest.mark.parametrize("modelled", [True, False])
def test_an_index_taken_from_a_float_that_may_differ_may_differ(tmp_path, capsys, check_report, set_aside,
                                                                modelled: bool) -> None:
    """Bucketize of x * 1.0001, whose f16 twin rounds 1.0001 to 1: at x = 1 the f32 model's value lies past the
    boundary 1, the f16 model's on it, and their buckets differ, as the weights' rounding explains. An integer output
    was held exact whatever its input's W (the zoo's ranking_head against its f16 twin FAILED so, a bucket moved
    through scatter_reduce and a sort); it is exact only from exact inputs, and any value otherwise: by Bucketize's
    rule (``rounding.exact``), and, its spec set aside (not ``modelled``), as the output of a layer no rule covers
    (``keep``). The same model against itself (W 0 everywhere) still holds the bucket exact: a planted other boundary
    fails."""
    if not modelled:
        set_aside(BUCKETIZE_3)
    x = ops.parameter([1, 8], np.float32, name="x")
    scaled = ops.multiply(x, ops.constant(np.full([1, 8], 1.0001, np.float32)), name="scaled")

    def bucketed(boundary: float) -> ov.Model:
        bucket = ops.bucketize(scaled, ops.constant(np.array([boundary, 4.0], np.float32)), "i64", True)
        bucket.set_friendly_name("bucket")
        bucket.output(0).get_tensor().set_names({"bucket"})
        return ov.Model([bucket], [x], "buckets")

    ov.save_model(bucketed(1.0), str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(bucketed(1.0), str(tmp_path / "f16.xml"), compress_to_fp16=True)
    ov.save_model(bucketed(1.00005), str(tmp_path / "moved.xml"), compress_to_fp16=False)
    np.savez(tmp_path / "x.npz", x=np.linspace(0.5, 4.5, 8, dtype=np.float32).reshape(1, 8).round(0))
    given = ["--inputs", str(tmp_path / "x.npz"), "--format", "json"]
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml"), *given])
    report = json.loads(capsys.readouterr().out)
    check_report(report)
    [bucket] = report["outputs"]
    assert code == 0 and bucket["passed"] and bucket["max_abs_error"] == 1, bucket
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "moved.xml"), *given])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and not report["passed"], report["outputs"]


def test_shape_arithmetic_is_exact_against_a_twin(tmp_path, capsys) -> None:
    """A Reshape shaped by ceil(dim / 2), computed from a ShapeOf as mobilevit computes its patch count: the rules
    would add an implementation's rounding to 8 / 2, after which the ceiling may be 5 as well as 4 and the Reshape,
    with all it feeds, of no bound. B computes the same shape from the same dims: exact, and the data's W (the f16
    weight) carried through the Reshape."""
    x = ops.parameter([1, 8, 4], np.float32, name="x")
    scaled = ops.multiply(x, ops.constant(np.full([1, 1, 4], 1.0001, np.float32)), name="scaled")
    dim = ops.gather(ops.shape_of(x), ops.constant(np.int64(1)), ops.constant(np.int64(0)))
    half = ops.ceiling(ops.divide(ops.convert(dim, "f32"), ops.constant(np.float32(2.0))))
    shape = ops.concat([ops.constant(np.array([2], np.int64)), ops.unsqueeze(ops.convert(half, "i64"),
                                                                                ops.constant(np.int64(0))),
                        ops.constant(np.array([-1], np.int64))], 0)
    folded = ops.reshape(scaled, shape, False, name="folded")
    folded.output(0).get_tensor().set_names({"folded"})
    model = ov.Model([folded], [x], "patches")
    ov.save_model(model, str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(model, str(tmp_path / "f16.xml"), compress_to_fp16=True)
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml"), "--per-layer",
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    [output] = report["outputs"]
    assert code == 0 and 0 < output["bound_max"] < 1e-2 and output["max_abs_error"] > 0, output


@pytest.mark.parametrize("attention", ["matmul", "sdpa"])
def test_an_error_every_token_shares_is_carried_whole_through_attention(tmp_path, capsys, attention: str) -> None:
    """Attention over V = x Wv + bv, bv near 1000, against its f16 twin: bv's f16 rounding (up to 0.25) is one error
    every token's row of V shares, and the probabilities (summing to 1) pass it on whole, where W added the rows'
    errors in quadrature as if independent (sqrt(sum p^2) of it, an eighth over 64 tokens): the context FAILED at
    1.31 times its W (mobilevit against its f16 twin: two attention outputs 2-3% beyond; whisper's encoder, of
    ScaledDotProductAttention, 1.2 per layer). A MatMul's W and SDPA's now add what an error shared along the summed
    axis moves the sum by; compare against the reference keeps its own bound."""
    rng = np.random.default_rng(5)
    x = ops.parameter([1, 64, 16], np.float32, name="x")
    v = ops.add(ops.matmul(x, ops.constant((rng.standard_normal((16, 16)) * 0.01).astype(np.float32)), False, False),
                ops.constant((1000 + rng.uniform(0, 1, 16)).astype(np.float32)), name="v")
    if attention == "sdpa":
        context = ops.scaled_dot_product_attention(x, x, v, scale=ops.constant(np.float32(0.001)), causal=False,
                                                   name="context")
    else:
        p = ops.softmax(ops.multiply(ops.matmul(x, x, False, True), ops.constant(np.float32(0.001))), -1, name="p")
        context = ops.matmul(p, v, False, False, name="context")
    context.output(0).get_tensor().set_names({"context"})
    model = ov.Model([context], [x], "shared_bias")
    ov.save_model(model, str(tmp_path / "f32.xml"), compress_to_fp16=False)
    ov.save_model(model, str(tmp_path / "f16.xml"), compress_to_fp16=True)
    code = main(["compare", str(tmp_path / "f32.xml"), "--against", str(tmp_path / "f16.xml"), "--format", "json"])
    [found] = json.loads(capsys.readouterr().out)["outputs"]
    assert code == 0 and found["passed"] and found["max_abs_error"] > found["atol"], found
