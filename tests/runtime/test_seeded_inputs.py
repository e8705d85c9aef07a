"""Seeded inputs that fit the model (runtime/inputs.py, docs/SEMANTICS.md section 8): what each input of a
language model is, found from how the graph uses it first and from its name second, with dynamic dims from the
defaults; the same inputs in compare (and its report), run, migrate --check and convert-onnx --check.

The language model is built here with GraphBuilder, a transformer's input pattern on a small scale: token ids into
an embedding table, positions into RoPE's Sin, a mask converted to boolean, and three inputs that only their names
tell apart (a mask used in arithmetic, token types and positions into small tables). The inputs the graph
recognises have names that say nothing. The stateful Llama is the committed fixture of tests/data/target.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import ir_tools
from ir_tools.base.dims import DYNAMIC, Dim
from ir_tools.cli import main
from ir_tools.ir.model import Graph
from ir_tools.passes.builder import GraphBuilder, output_of
from ir_tools.runtime.executor import Interpreter
from ir_tools.runtime.inputs import draw, random_inputs, recipes
from tests.conftest import ROOT

VOCAB, TYPES, POSITIONS = 37, 2, 16
STATEFUL = ROOT / "tests" / "data" / "target" / "tiny_llama_stateful_f16.xml"


def _lm(path: Path) -> Path:
    """A [batch, sequence] language model's inputs, each used as a transformer uses it; written to ``path``."""
    rng = np.random.default_rng(7)
    b = GraphBuilder(Graph("tiny_lm"))
    tokens = (DYNAMIC, DYNAMIC)
    ids, pos, keep = (b.parameter(n, "i64", tokens) for n in ("ids", "pos", "keep"))
    mask, types, positions = (b.parameter(n, "i64", tokens) for n in ("attention_mask", "token_type_ids",
                                                                       "position_ids"))
    x = b.parameter("x", "f32", (DYNAMIC, DYNAMIC, Dim(4, 4)))
    axis0, axis2 = b.const(np.array(0, np.int64), "axis0"), b.const(np.array([2], np.int64), "axis2")

    def table(rows: int, indices, name: str):
        weights = b.const(rng.standard_normal((rows, 4)).astype(np.float32), f"{name}/weights")
        return b.add("Gather", "opset8", None, [weights, indices, axis0], name)

    def unsqueezed(value, name: str):
        return b.add("Unsqueeze", "opset1", None, [value, axis2], name)

    ids32 = b.add("Convert", "opset1", {"destination_type": "i32"}, [ids], "ids/convert")
    h = table(VOCAB, ids32, "embed")
    angles = b.add("Multiply", "opset1", None, [unsqueezed(b.add("Convert", "opset1", {"destination_type": "f32"},
                                                                  [pos], "pos/convert"), "pos/unsqueeze"),
                                                b.const(np.full((1, 1, 4), 0.5, np.float32), "inv_freq")], "angles")
    h = b.add("Add", "opset1", None, [h, b.add("Sin", "opset1", None, [angles], "rope/sin")], "add_rope")
    kept = unsqueezed(b.add("Convert", "opset1", {"destination_type": "boolean"}, [keep], "keep/convert"),
                      "keep/unsqueeze")
    h = b.add("Select", "opset1", None, [kept, h, b.const(np.array(0, np.float32), "zero")], "masked")
    scale = unsqueezed(b.add("Convert", "opset1", {"destination_type": "f32"}, [mask], "mask/convert"),
                       "mask/unsqueeze")
    h = b.add("Multiply", "opset1", None, [h, scale], "scaled")
    h = b.add("Add", "opset1", None, [h, table(TYPES, types, "token_types")], "add_types")
    h = b.add("Add", "opset1", None, [h, table(POSITIONS, positions, "positions")], "add_positions")
    b.result(b.add("Add", "opset1", None, [h, x], "add_x", names="y"), "y/result")
    ir_tools.write_ir(b.graph, path, 11)
    return path


@pytest.fixture(scope="module")
def lm(tmp_path_factory) -> Path:
    return _lm(tmp_path_factory.mktemp("lm") / "tiny_lm.xml")


def test_the_graph_says_what_an_input_is_and_names_say_the_rest(lm: Path) -> None:
    made = recipes(ir_tools.read_valid(lm), {})
    values = draw(made, 0)
    assert {name: r.shape for name, r in made.items()} == {**dict.fromkeys(
        ["ids", "pos", "keep", "attention_mask", "token_type_ids", "position_ids"], (1, 8)), "x": (1, 8, 4)}
    assert all(r.dims == "batch 1, sequence 8 by default" for r in made.values())
    ids = values["ids"]
    assert ids.dtype == np.int64 and ids.min() >= 0 and 4 <= ids.max() < VOCAB  # the table's rows, not its width
    assert "uniform in [0, 37)" in made["ids"].why and "'embed'" in made["ids"].why
    np.testing.assert_array_equal(values["pos"], [np.arange(8)])
    assert "Sin 'rope/sin'" in made["pos"].why
    np.testing.assert_array_equal(values["keep"], np.ones((1, 8)))
    assert "boolean" in made["keep"].why
    np.testing.assert_array_equal(values["attention_mask"], np.ones((1, 8)))
    assert "by its name" in made["attention_mask"].why
    np.testing.assert_array_equal(values["token_type_ids"], np.zeros((1, 8)))
    np.testing.assert_array_equal(values["position_ids"], [np.arange(8)])
    assert "token types (by its name), within the 2 rows of Gather 'token_types'" in made["token_type_ids"].why
    assert "positions (by its name), within the 16 rows" in made["position_ids"].why
    assert values["x"].dtype == np.float32 and made["x"].why == "normal(0, 1)"
    assert values.keys() == random_inputs(ir_tools.read_valid(lm), 0, {}).keys()


def test_one_shape_given_shapes_the_other_token_inputs(lm: Path) -> None:
    made = recipes(ir_tools.read_valid(lm), {"ids": (2, 5)})
    assert made["ids"].dims == "--shape"
    assert made["keep"].shape == (2, 5) and made["keep"].dims == "batch 2, sequence 5 as --shape ids"
    assert made["x"].shape == (2, 5, 4)
    np.testing.assert_array_equal(draw(made, 0)["position_ids"], np.tile(np.arange(5), (2, 1)))


def test_a_scalar_position_is_zero() -> None:
    b = GraphBuilder(Graph("scalar"))
    b.result(b.parameter("position_ids", "i32", ()), "out")
    made = recipes(b.graph, {})
    assert draw(made, 0)["position_ids"].shape == () and draw(made, 0)["position_ids"] == 0


def test_a_batch_size_cut_out_of_a_shape_is_one_and_no_position() -> None:
    """A part extracted at the batch size a model takes from ShapeOf(input_ids) (Qwen2's and Gemma2's rotary
    embedding: the inverse frequencies broadcast to [batch, 4, 1], then times the positions, into Sin): its values
    reached Sin through the Broadcast's target shape, so it was taken for positions and fed [0], an empty batch
    (OpenVINO's fused RoPE gave batch 1 all the same: compare FAILED). Values that only shape a tensor are no
    positions; dims of a Broadcast's or Reshape's shape are the default batch, 1. Positions through a Range's bounds
    still are."""
    b = GraphBuilder(Graph("rotary"))
    batch = b.parameter("72", "i64", (Dim(1, 1),))
    positions = b.parameter("position_ids", "i64", (DYNAMIC, DYNAMIC))
    one = b.const(np.array([1], np.int64), "one")
    shape = b.add("Concat", "opset1", {"axis": "0"}, [batch, b.const(np.array([4], np.int64), "half"), one], "shape")
    freq = b.add("Broadcast", "opset3", {"mode": "bidirectional"},
                 [b.const(np.full((1, 4, 1), 0.5, np.float32), "inv_freq"), shape], "expand")
    pos = b.add("Unsqueeze", "opset1", None, [b.add("Convert", "opset1", {"destination_type": "f32"}, [positions],
                                                    "pos/convert"), one], "pos/unsqueeze")
    b.result(b.add("Sin", "opset1", None, [b.add("MatMul", "opset1", None, [freq, pos], "angles")], "sin"), "out")
    start = b.parameter("past_length", "i64", ())
    ranged = b.add("Range", "opset4", {"output_type": "f32"},
                   [start, b.const(np.array(8, np.int64), "stop"), b.const(np.array(1, np.int64), "step")], "range")
    b.result(b.add("Cos", "opset1", None, [ranged], "cos"), "range_out")
    made = recipes(b.graph, {})
    assert made["72"].why.startswith("ones: dims of the shape Broadcast 'expand'"), made["72"].why
    assert draw(made, 0)["72"].tolist() == [1]
    assert "Sin 'sin'" in made["position_ids"].why and "Cos 'cos'" in made["past_length"].why


def test_an_index_into_an_input_is_within_that_inputs_dim_on_the_gathers_axis() -> None:
    """The stateless form of a KV cache (``migrate --stateless``): the past is an input [?, 2, ?, 4], reordered by a
    beam index, a Gather on axis 0. The rows were the smallest static dim of the past (its 2 heads) where its batch
    is dynamic: beam_idx uniform in [0, 2), and [1] for a batch of 1 gathered nothing (OpenVINO's zeros). They are
    now the batch the past is fed: by name 0, 1, ..., batch - 1; an index named otherwise uniform below it."""
    b = GraphBuilder(Graph("stateless_cache"))
    past = b.parameter("past_key_values.0.key", "f32", (DYNAMIC, Dim(2, 2), DYNAMIC, Dim(4, 4)))
    axis0 = b.const(np.array(0, np.int64), "axis0")
    for name in ("beam_idx", "reorder"):
        index = b.parameter(name, "i32", (DYNAMIC,))
        b.result(b.add("Gather", "opset8", None, [past, index, axis0], f"{name}/gather"), f"{name}/out")
    for batch in (1, 3):
        made = recipes(b.graph, {"past_key_values.0.key": (batch, 2, 5, 4), "beam_idx": (batch,),
                                 "reorder": (batch,)})
        values = draw(made, 5)
        assert values["beam_idx"].tolist() == list(range(batch)), made["beam_idx"].why
        assert f"within the {batch} rows of Gather 'beam_idx/gather'" in made["beam_idx"].why
        assert made["reorder"].why.startswith(f"uniform in [0, {batch})"), made["reorder"].why
        assert 0 <= values["reorder"].min() and values["reorder"].max() < batch


def test_a_past_fed_as_an_input_lengthens_the_mask_and_moves_the_positions() -> None:
    """The stateless form of a KV cache fed a past of 5 (section 8a's generation step at any length): the mask of
    ones covers the past and the sequence (it stayed [1, 8] beside a past of 4 in the target zoo's Llama migrated
    --stateless: 12 tokens attended), the positions start after the past; a past of 0 leaves them as they were."""
    b = GraphBuilder(Graph("stateless_cache"))
    cache = (DYNAMIC, Dim(2, 2), DYNAMIC, Dim(4, 4))
    past, new = b.parameter("past_key_values.0.key", "f32", cache), b.parameter("new_key", "f32", cache)
    beam = b.parameter("beam_idx", "i32", (DYNAMIC,))
    gathered = b.add("Gather", "opset8", None, [past, beam, b.const(np.array(0, np.int64), "axis0")], "reorder")
    b.result(b.add("Concat", "opset1", {"axis": "-2"}, [gathered, new], "present"), "present.0.key")
    for name in ("attention_mask", "position_ids"):
        b.result(b.parameter(name, "i64", (DYNAMIC, DYNAMIC)), f"{name}/out")
    made = recipes(b.graph, {"past_key_values.0.key": (1, 2, 5, 4), "new_key": (1, 2, 8, 4)})
    values = draw(made, 0)
    assert values["attention_mask"].tolist() == [[1] * 13], made["attention_mask"].dims
    assert values["position_ids"].tolist() == [list(range(5, 13))] and "after the past" in made["position_ids"].why
    values = draw(recipes(b.graph, {"past_key_values.0.key": (1, 2, 0, 4), "new_key": (1, 2, 8, 4)}), 0)
    assert values["attention_mask"].tolist() == [[1] * 8] and values["position_ids"].tolist() == [list(range(8))]
    made = recipes(b.graph, {"new_key": (1, 2, 8, 4)})  # (the past's length by default: the sequence's)
    assert made["past_key_values.0.key"].shape == (1, 2, 8, 4) and made["attention_mask"].shape == (1, 16)
    assert made["past_key_values.0.key"].dims == "batch 1, past 8 by default"


def test_a_past_a_part_is_cut_at_is_as_long_as_the_sequence() -> None:
    """A part cut out of a stateful model at its ReadValues (``ir-tools extract``): the past is an input, and its
    Concat with the new keys is no output (the present was an Assign's) but the attention's key, here through
    grouped-query attention's repeat of its 2 heads into 4. The past [?, 2, ?, 16] was taken for an image, 64 "high",
    and the attention refused the part (E-EXEC, 20 parts of the wide zoo's LMs); it is a past, as long as the
    sequence."""
    b = GraphBuilder(Graph("cut_at_read_value"))
    past = b.parameter("past_key_values.0.key", "f32", (DYNAMIC, Dim(2, 2), DYNAMIC, Dim(16, 16)))
    new = b.parameter("new_key", "f32", (DYNAMIC, Dim(2, 2), DYNAMIC, Dim(16, 16)))
    query = b.parameter("query", "f32", (DYNAMIC, Dim(4, 4), DYNAMIC, Dim(16, 16)))
    cache = b.add("Concat", "opset1", {"axis": "2"}, [past, new], "cache")
    heads = b.add("Broadcast", "opset3", {"mode": "bidirectional"},
                  [b.add("Unsqueeze", "opset1", None, [cache, b.const(np.array([2], np.int64), "at2")], "unsqueeze"),
                   b.const(np.array([1, 1, 2, 1, 1], np.int64), "twice")], "repeat")
    keys = b.add("Reshape", "opset1", {"special_zero": "true"},
                 [heads, b.const(np.array([0, 4, -1, 16], np.int64), "four_heads")], "keys")
    b.result(b.add("ScaledDotProductAttention", "opset13", {"causal": "false"}, [query, keys, keys], "attention"),
             "out")
    made = recipes(b.graph, {})
    assert made["past_key_values.0.key"].shape == (1, 2, 8, 16), made["past_key_values.0.key"].dims
    assert made["past_key_values.0.key"].dims == "batch 1, past 8 by default"


def test_dims_within_the_models_bounds_and_a_dim_without_a_default() -> None:
    b = GraphBuilder(Graph("bounded"))
    b.result(b.parameter("a", "i64", (Dim(2, 4), Dim(3, 3), Dim(1, 10), Dim(0, 6))), "out")
    (made,) = recipes(b.graph, {}).values()
    assert made.shape == (2, 3, 1, 1)
    assert made.dims == "batch 2, dim 2 1 (its bound), dim 3 1 (its bound) by default"
    b = GraphBuilder(Graph("labels"))
    b.result(b.parameter("labels", "i64", (DYNAMIC, Dim(3, 3), DYNAMIC, DYNAMIC)), "out")
    with pytest.raises(ir_tools.IrToolsError, match=r"dim 2 has no default: give one with --shape labels:"):
        recipes(b.graph, {})
    with pytest.raises(ir_tools.IrToolsError, match=r"random_inputs: shapes=\{'labels': \(D1, D2, \.\.\.\)\}\)$"):
        ir_tools.random_inputs(b.graph)  # (a library user is told the library's way too, in Python's spelling)
    # [batch, sequence, heads, size], a transformer's queries cut out of it: no image (its height and width static,
    # channels 1 for its sequence was a false FAIL), and no default either, which refused 12 parts of the zoos
    b = GraphBuilder(Graph("queries"))
    b.result(b.parameter("queries", "f32", (DYNAMIC, DYNAMIC, Dim(4, 4), Dim(32, 32))), "out")
    made = recipes(b.graph, {})["queries"]
    assert (made.shape, made.dims) == ((1, 8, 4, 32), "batch 1, sequence 8 by default")


@pytest.mark.parametrize(("element", "declared", "shape", "dims"), [
    ("f32", (DYNAMIC, Dim(3, 3), DYNAMIC, DYNAMIC), (1, 3, 64, 64), "batch 1, height 64, width 64"),
    ("f16", (DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC), (1, 3, 64, 64), "batch 1, channels 3, height 64, width 64"),
    ("u8", (Dim(1, 1), DYNAMIC, DYNAMIC, Dim(3, 3)), (1, 64, 64, 3), "height 64, width 64"),
    ("f32", (DYNAMIC, Dim(3, 3), Dim(1, 40), Dim(300, None)), (1, 3, 40, 300), "batch 1, height 40, width 300"),
    ("f32", (DYNAMIC, Dim(3, 3), Dim(1, 40), Dim(1, 40), DYNAMIC), (1, 3, 8, 40, 64),
     "batch 1, frames 8, height 40, width 64"),
    ("f32", (DYNAMIC, Dim(16, 16), DYNAMIC), (1, 16, 8), "batch 1, sequence 8")])
def test_an_image_takes_64_pixels_a_side_a_video_8_frames(element: str, declared: tuple[Dim, ...],
                                                        shape: tuple[int, ...], dims: str) -> None:
    """An image's dynamic height and width had no default: compare stopped (E-INPUT) on 105 of the 253 IRs of the
    zoos, every torchvision CNN converted with dynamic dims among them. They are 64 (within the model's bounds), a
    dynamic channel count 3, a video's frames 8; the last dim of [batch, features, frames] (whisper's log-mel
    frames) is the sequence."""
    b = GraphBuilder(Graph("pixels"))
    b.result(b.parameter("pixels", element, declared), "out")
    (made,) = recipes(b.graph, {}).values()
    assert (made.shape, made.dims) == (shape, f"{dims} by default")


@pytest.mark.openvino
def test_a_side_the_model_refuses_is_the_first_it_takes(tmp_path: Path, capsys) -> None:
    """A model made for one image size (a small ViT's position embeddings, MaxViT's window partition; here a Reshape
    of the pixels to [0, 3, 1024], special zero: OpenVINO's shape inference lets that pass at any size, its CPU
    refuses another count) refuses 64: the side is the first of 224, 16, 32, ... that it takes (32), the report saying
    why; a shape --shape gives is kept."""
    b = GraphBuilder(Graph("fixed_side"))
    b.result(b.parameter("tokens", "i64", (DYNAMIC, DYNAMIC)), "tokens/out")
    image = b.parameter("image", "f32", (DYNAMIC, Dim(3, 3), DYNAMIC, DYNAMIC))
    flat = b.add("Reshape", "opset1", {"special_zero": "true"},
                 [image, b.const(np.array([0, 3, 1024], np.int64), "flat_shape")], "flat")
    b.result(output_of(flat), "out")
    made = recipes(b.graph, {})
    assert made["image"].shape == (1, 3, 32, 32), made["image"].dims
    dims = made["image"].dims
    assert "by default, side 32 the first the model took (at side 64: Reshape 'flat' (line" in dims
    assert made["tokens"].dims == "batch 1, sequence 8 by default"  # (the side's note where the side is)
    assert recipes(b.graph, {"image": (1, 3, 16, 64)})["image"].shape == (1, 3, 16, 64)
    model = tmp_path / "fixed_side.xml"
    ir_tools.write_ir(b.graph, model)
    assert main(["compare", str(model)]) == 0, capsys.readouterr()


@pytest.mark.openvino
def test_an_extended_attention_mask_takes_the_sequence(tmp_path: Path, capsys) -> None:
    """A [batch, 1, 1, sequence] mask (a transformer's extended attention mask, added to its scores) had no default
    for its last dim: compare, run and migrate --check stopped with E-INPUT unless --shape gave it (found by a QA
    run). Its last dim is the sequence, as a [batch, sequence] input's."""
    b = GraphBuilder(Graph("masked"))
    x = b.parameter("x", "f32", (DYNAMIC, DYNAMIC))
    mask = b.parameter("extended_mask", "f32", (DYNAMIC, Dim(1, 1), Dim(1, 1), DYNAMIC))
    axes = b.const(np.array([1, 2], np.int64), "axes")
    wide = b.add("Unsqueeze", "opset1", None, [x, axes], "wide")
    b.result(output_of(b.add("Add", "opset1", None, [wide, mask], "scores")), "out")
    made = recipes(b.graph, {})
    assert made["extended_mask"].shape == (1, 1, 1, 8) and made["x"].shape == (1, 8)
    assert made["extended_mask"].dims == "batch 1, sequence 8 by default"
    model = tmp_path / "masked.xml"
    ir_tools.write_ir(b.graph, model)
    assert main(["compare", str(model)]) == 0, capsys.readouterr()


@pytest.mark.openvino
def test_a_default_sequence_too_short_for_the_model_is_doubled_until_it_fits(tmp_path: Path, capsys) -> None:
    """Audio samples, [batch, samples], take the default sequence of 8, which wav2vec2's and HuBERT's first
    convolution (kernel 10, stride 5) and a log-mel front end's reflect pad (half its window) refuse: compare stopped
    (E-OP, E-OPENVINO) unless --shape gave a length. The default is doubled until the model's shape rules take it
    (here 16: 8 refused by the kernel, 16 gives 2 outputs), the report saying why; a length --shape gives is kept."""
    b = GraphBuilder(Graph("audio"))
    samples = b.parameter("input_values", "f32", (DYNAMIC, DYNAMIC))
    wide = b.add("Unsqueeze", "opset1", None, [samples, b.const(np.array([1], np.int64), "channel")], "wide")
    kernel = b.const(np.random.default_rng(0).standard_normal((2, 1, 10)).astype(np.float32), "kernel")
    conv = b.add("Convolution", "opset1", {"strides": "5", "dilations": "1", "pads_begin": "0", "pads_end": "0",
                                           "auto_pad": "explicit"}, [wide, kernel], "conv")
    b.result(output_of(conv), "out")
    made = recipes(b.graph, {})
    assert made["input_values"].shape == (1, 16), made["input_values"].dims
    assert "doubled until the model took it (at 8: Convolution 'conv'" in made["input_values"].dims
    assert recipes(b.graph, {"input_values": (1, 12)})["input_values"].shape == (1, 12)
    model = tmp_path / "audio.xml"
    ir_tools.write_ir(b.graph, model)
    assert main(["compare", str(model)]) == 0, capsys.readouterr()


@pytest.mark.openvino
@pytest.mark.parametrize("op", ["LSTMSequence", "GRUSequence"])
def test_a_grayscale_text_recognisers_channels_and_height_are_the_first_it_takes(op: str, tmp_path: Path,
                                                                                 capsys) -> None:
    """A CRNN (text recognition, [?, ?, ?, ?] pixels): a convolution of one input channel, then each column's
    features (channels x height) into a recurrent sequence of input size 32. Three channels are refused by the
    convolution's rule, a height of 64 only by the sequence's kernel: OpenVINO's shape inference does not compare X's
    features with W's input size (compare stopped, E-OP from the kernel). The first the model takes is 1 channel,
    side 16."""
    rng = np.random.default_rng(5)
    hidden, gates = 2, {"LSTMSequence": 4, "GRUSequence": 3}[op]
    b = GraphBuilder(Graph("crnn"))
    image = b.parameter("image", "f32", (Dim(1, 1), DYNAMIC, DYNAMIC, DYNAMIC))
    conv = b.add("Convolution", "opset1", {"strides": "1,1", "dilations": "1,1", "pads_begin": "1,1",
                                           "pads_end": "1,1", "auto_pad": "explicit"},
                 [image, b.const(rng.standard_normal((2, 1, 3, 3)).astype(np.float32), "kernel")], "conv")
    columns = b.add("Transpose", "opset1", None, [conv, b.const(np.array([0, 3, 1, 2], np.int64), "order")], "columns")
    x = b.add("Reshape", "opset1", {"special_zero": "true"}, [columns, b.const(np.array([0, 0, -1], np.int64),
                                                                                "features")], "x")
    states = [b.const(np.zeros((1, 1, hidden), np.float32), n) for n in ("h", "c")[:2 if op == "LSTMSequence" else 1]]
    weights = [b.const(rng.standard_normal(shape).astype(np.float32), n) for n, shape in (
        ("w", (1, gates * hidden, 32)), ("r", (1, gates * hidden, hidden)), ("b", (1, gates * hidden)))]
    lengths = b.const(np.array([16], np.int32), "lengths")
    activations = "sigmoid, tanh, tanh" if op == "LSTMSequence" else "sigmoid, tanh"
    sequence = b.add(op, "opset5", {"hidden_size": str(hidden), "direction": "forward", "activations": activations},
                     [x, *states, lengths, *weights], "sequence")
    b.result(output_of(sequence), "out")
    made = recipes(b.graph, {})
    assert made["image"].shape == (1, 1, 16, 16), made["image"].dims
    assert "channels 1, side 16 the first the model took (at channels 3, side 64: Convolution 'conv'" in \
        made["image"].dims
    model = tmp_path / "crnn.xml"
    ir_tools.write_ir(b.graph, model)
    assert main(["compare", str(model)]) == 0, capsys.readouterr()


def test_what_is_not_a_shape_or_an_inputs_file_is_named(tmp_path: Path) -> None:
    """A negative dim in --shape was said not to fit in memory ("-192 elements"); a file that is not .npz or .npy
    given as --inputs got numpy's advice to unpickle it."""
    from ir_tools.runtime.inputs import load_npz, parse_shape_overrides

    with pytest.raises(ir_tools.IrToolsError, match=r"--shape input:1,3,-1,64: a dim is the size to run with, 0 or"):
        parse_shape_overrides(["input:1,3,-1,64"])
    with pytest.raises(ir_tools.IrToolsError, match=r"it is not an .npz file \(numpy.savez writes one"):
        load_npz(ROOT / "samples" / "mixed_network.xml")


@pytest.mark.openvino
def test_compare_runs_a_dynamic_language_model_with_no_options(lm: Path, tmp_path: Path, capsys,
                                                                 check_report) -> None:
    html = tmp_path / "report.html"
    assert main(["compare", str(lm), "--format", "json", "--html", str(html)]) == 0
    report = check_report(json.loads(capsys.readouterr().out))
    assert report["passed"] and report["not_checked"] == []
    expected = [r.describe() for r in recipes(ir_tools.read_valid(lm), {}).values()]
    assert report["inputs"] == expected
    blob = re.search(r'<script id="data" type="application/json">(.*?)</script>', html.read_text(), re.S).group(1)
    assert json.loads(blob)["summary"]["inputs"] == expected
    assert main(["compare", str(lm), "--per-layer", "--shape", "ids:2,5"]) == 0
    text = capsys.readouterr().out
    assert "inputs:\n  ids: i64 [2, 5] (dims: --shape); uniform in [0, 37)" in text
    assert "  keep: i64 [2, 5] (dims: batch 2, sequence 5 as --shape ids); ones: a mask" in text
    assert "not checked" not in text and text.rstrip().endswith("PASSED")
    given = tmp_path / "given.npz"
    np.savez(given, **random_inputs(ir_tools.read_valid(lm), 3, {"ids": (1, 3)}))
    assert main(["compare", str(lm), "--inputs", str(given), "--format", "json"]) == 0
    report = check_report(json.loads(capsys.readouterr().out))
    names = recipes(ir_tools.read_valid(lm), {})
    assert {(i["name"], tuple(i["shape"]), i["dims"], i["values"]) for i in report["inputs"]} == {
        (name, (1, 3, 4) if name == "x" else (1, 3), f"from {given}", f"from {given}") for name in names}


@pytest.mark.openvino
def test_run_and_the_checks_of_migrate_and_convert_onnx_make_the_same_inputs(lm: Path, tmp_path: Path,
                                                                              capsys) -> None:
    out = tmp_path / "out.npz"
    assert main(["run", str(lm), "-o", str(out)]) == 0
    graph = ir_tools.read_valid(lm)
    with np.load(out) as saved:
        np.testing.assert_array_equal(saved["y"], Interpreter(graph).evaluate(random_inputs(graph, 0, {}))["y"])
    assert main(["migrate", str(lm), "--ir-version", "10", "--check", "-o", str(tmp_path / "v10.xml")]) == 0
    assert "not written" not in capsys.readouterr().out
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from tests.onnx.models import make_model

    weights = numpy_helper.from_array(np.arange(VOCAB * 4, dtype=np.float32).reshape(VOCAB, 4), "weights")
    model = make_model(helper.make_graph(
        [helper.make_node("Gather", ["weights", "input_ids"], ["embedded"])], "embedding",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, ["batch", "sequence", 4])], [weights]), 13)
    onnx.save(model, tmp_path / "embedding.onnx")
    assert main(["convert-onnx", str(tmp_path / "embedding.onnx"), "--check", "-o", str(tmp_path / "e.xml")]) == 0
    assert "not written" not in capsys.readouterr().out


@pytest.mark.openvino
def test_a_stateful_model_gets_fitting_inputs_and_compared_steps(capsys) -> None:
    made = recipes(ir_tools.read_valid(STATEFUL), {})
    values = draw(made, 0)
    assert values["beam_idx"].tolist() == [0] and "a beam index (reorders the batch of a state" in made["beam_idx"].why
    vocab = int(re.search(r"uniform in \[0, (\d+)\)", made["input_ids"].why).group(1))
    assert vocab > 8 and values["input_ids"].min() >= 0 and values["input_ids"].max() < vocab
    assert values["attention_mask"].tolist() == [[1] * 8] and values["position_ids"].tolist() == [list(range(8))]
    assert "Cos" in made["position_ids"].why or "Sin" in made["position_ids"].why
    assert main(["compare", str(STATEFUL)]) == 0  # two steps, the state carried (tests/runtime/test_state.py)
    out = capsys.readouterr().out
    assert "steps (2, state carried from each to the next): 1 PASS, 2 PASS" in out and "PASSED" in out


@pytest.mark.openvino
def test_a_stateless_form_runs_with_no_options(tmp_path: Path, capsys) -> None:
    """``migrate --stateless`` makes the KV cache inputs ([batch, heads, ?, size]) and outputs; ``compare`` of that
    form stopped with E-INPUT (the past's length had no default). The past is as long as the sequence, 8, and the
    mask covers both."""
    stateless = tmp_path / "stateless.xml"
    assert main(["migrate", str(STATEFUL), "--stateless", "-o", str(stateless), "-q"]) == 0
    capsys.readouterr()
    assert main(["compare", str(stateless), "--format", "json"]) == 0
    inputs = {i["name"]: i for i in json.loads(capsys.readouterr().out)["inputs"]}
    pasts = [i for name, i in inputs.items() if name.startswith("past_key_values")]
    assert pasts and all(i["shape"][2] == 8 and i["dims"].endswith("past 8 by default") for i in pasts), pasts
    assert inputs["attention_mask"]["shape"] == [1, 16], inputs["attention_mask"]


def test_a_decoders_inputs_from_its_encoder_keep_the_encoders_sequence() -> None:
    """A generation step lengthened every input of a dynamic sequence axis: a BART decoder's encoder_attention_mask
    grew to 9 at step 2 beside the 8 cross-attention keys it cached at step 1, and OpenVINO refused the inputs
    (compare could not run optimum-intel's seq2seq decoders). The encoder's inputs keep its sequence; the decoder's own
    follow the generation loop."""
    from ir_tools.runtime.inputs import generation_step

    graph = Graph("seq2seq_decoder")
    builder = GraphBuilder(graph)
    for name, element, shape in (("input_ids", "i64", [-1, -1]), ("attention_mask", "i64", [-1, -1]),
                                 ("encoder_attention_mask", "i64", [-1, -1]),
                                 ("encoder_hidden_states", "f32", [-1, -1, 16])):
        builder.result(builder.parameter(name, element, shape), f"{name}_out")
    made = recipes(graph, {})
    fed = [draw(generation_step(made, step), step) for step in range(3)]
    assert [x["input_ids"].shape for x in fed] == [(1, 8), (1, 1), (1, 1)]
    assert [x["attention_mask"].shape for x in fed] == [(1, 8), (1, 9), (1, 10)]
    assert [x["encoder_attention_mask"].shape for x in fed] == [(1, 8)] * 3
    assert [x["encoder_hidden_states"].shape for x in fed] == [(1, 8, 16)] * 3


def _cached(state: tuple[Dim, ...], tested: bool) -> Graph:
    """A decoder holding one state of shape ``state`` (its variable's), with transformers' ``cache_position`` whose
    length the graph compares with 4 where ``tested`` (as optimum-intel's Mamba tells its prompt)."""
    b = GraphBuilder(Graph("cached"))
    for name in ("input_ids", "attention_mask"):
        b.result(b.parameter(name, "i64", (DYNAMIC, DYNAMIC)), f"{name}/out")
    positions = b.parameter("cache_position", "i64", (DYNAMIC,))
    b.result(positions, "cache_position/out")
    if tested:
        length = b.add("ShapeOf", "opset3", {"output_type": "i64"}, [positions], "size")
        one = b.add("Squeeze", "opset1", None, [length], "size/Squeeze")
        b.result(b.add("Equal", "opset1", None, [one, b.const(np.array(4, np.int64), "kernel")], "is_prefill"),
                 "is_prefill/out")
    text = ",".join("?" if not d.is_static else str(d.lo) for d in state)
    init = b.const(np.zeros([1 if not d.is_static else d.lo for d in state], np.float32), "init")
    read = b.add("ReadValue", "opset6", {"variable_id": "state", "variable_type": "f32", "variable_shape": text},
                 [init], "read")
    b.add("Assign", "opset6", {"variable_id": "state"}, [read], "write")
    return b.graph


@pytest.mark.parametrize(("state", "tested", "positions", "masks"), [
    ((DYNAMIC, Dim(8, 8), Dim(4, 4)), True, [[0, 1, 2, 3], [4], [5]], [8, 1, 1]),  # Mamba: states of fixed shape
    ((DYNAMIC, Dim(2, 2), DYNAMIC, Dim(4, 4)), False, [list(range(8)), [8], [9]], [8, 9, 10]),  # a KV cache
], ids=["mamba", "kv_cache"])
def test_cache_positions_and_the_mask_follow_the_generation_loop(state: tuple[Dim, ...], tested: bool,
                                                                 positions: list[list[int]], masks: list[int]) -> None:
    """transformers' ``cache_position``, one position per token of the step: optimum-intel's Mamba feeds its prompt
    the positions 0 .. conv_kernel - 1 (the length its graph tests to tell a prompt), each later step the next one,
    and a mask of that step's token alone (its states keep their shape: no past to cover); a model with a KV cache
    its prompt's positions, then the next, and a mask of the past and the token. Mamba's ``compare`` failed: one
    batch-sized position drawn in [-50, 50), and at step 2 a mask of 9 beside one token, both refused by OpenVINO's
    Broadcast (E-OPENVINO); the wide zoo's Mamba now passes ``compare --steps 3``."""
    from ir_tools.runtime.inputs import generation_step

    made = recipes(_cached(state, tested), {})
    fed = [draw(generation_step(made, step), step) for step in range(3)]
    assert [x["cache_position"].tolist() for x in fed] == positions, made["cache_position"].dims
    assert [x["attention_mask"].shape for x in fed] == [(1, n) for n in masks]
    assert [x["input_ids"].shape for x in fed] == [(1, 8), (1, 1), (1, 1)]
    assert ("the length Equal 'is_prefill'" in made["cache_position"].dims) == tested


@pytest.mark.parametrize(("op", "inputs"), [("EmbeddingBagOffsets", 3), ("EmbeddingBagPacked", 2),
                                           ("EmbeddingBagOffsetsSum", 3)])
def test_the_indices_of_an_embedding_bag_are_rows_of_its_table(op: str, inputs: int) -> None:
    """The indices of EmbeddingBagOffsets-15 and EmbeddingBagPacked-15 (torch's F.embedding_bag, converted today) fed
    as an input are rows of the table, as those of the -3 ops were: they were uniform in [-50, 50), which OpenVINO
    CPU refuses at inference ("has invalid embedding bag index"), so ``compare`` failed (E-OPENVINO)."""
    b = GraphBuilder(Graph("bag"))
    table = b.const(np.ones((20, 6), np.float32), "table")
    indices = b.parameter("indices", "i32", (Dim(8, 8),) if inputs == 3 else (Dim(2, 2), Dim(4, 4)))
    offsets = [b.const(np.array([0, 3, 5], np.int32), "offsets")] if inputs == 3 else []
    version = "opset3" if op.endswith("Sum") else "opset15"
    from ir_tools.ops.spec import TensorType

    b.result(b.add(op, version, {} if version == "opset3" else {"reduction": "sum"}, [table, indices, *offsets],
                   "bag", outputs=[TensorType("f32", (Dim(*(2 * [3 if inputs == 3 else 2])), Dim(6, 6)))]), "bags")
    made = recipes(b.graph, {})
    for seed in range(5):
        drawn = draw(made, seed)["indices"]
        assert 0 <= drawn.min() and drawn.max() < 20, made["indices"].why


def test_a_search_sorted_sequence_and_segment_ids_are_drawn_sorted() -> None:
    """SearchSorted's sequence (its binary search takes it as sorted: on unsorted values it and its rewrite by counting
    disagree) and SegmentMax's segment ids (OpenVINO CPU refuses unsorted ones) fed as inputs are drawn sorted along
    the last axis, the ids within the data's rows; the values beside them as before."""
    from ir_tools.ops.spec import TensorType

    b = GraphBuilder(Graph("sorted"))
    ordered, values = b.parameter("ordered", "f32", (Dim(2, 2), Dim(6, 6))), b.parameter("values", "f32",
                                                                                           (Dim(2, 2), Dim(3, 3)))
    data, ids = b.parameter("data", "f32", (Dim(7, 7), Dim(3, 3))), b.parameter("ids", "i64", (Dim(7, 7),))
    search = b.add("SearchSorted", "opset15", {"right_mode": "false", "output_type": "i64"}, [ordered, values],
                   "search", outputs=[TensorType("i64", (Dim(2, 2), Dim(3, 3)))])
    segments = b.add("SegmentMax", "opset16", {"fill_mode": "zero"}, [data, ids], "segments",
                     outputs=[TensorType("f32", (DYNAMIC, Dim(3, 3)))])
    b.result(search, "found")
    b.result(segments, "maxima")
    made = recipes(b.graph, {})
    assert "sorted along the last axis (the sequence of SearchSorted 'search'" in made["ordered"].why
    assert "sorted along the last axis (the segment ids of SegmentMax 'segments'" in made["ids"].why
    assert not made["values"].ordered and not made["data"].ordered
    unsorted = {name: replace(recipe, ordered=False) for name, recipe in made.items()}
    for seed in range(20):
        drawn, before = draw(made, seed), draw(unsorted, seed)
        assert np.array_equal(drawn["ordered"], np.sort(before["ordered"], axis=-1))
        assert np.array_equal(drawn["ids"], np.sort(before["ids"])) and 0 <= drawn["ids"].min() < drawn["ids"].max() < 7
        assert all(np.array_equal(drawn[name], before[name]) for name in ("values", "data"))
        assert not np.array_equal(before["ordered"], drawn["ordered"])  # (normal draws: not sorted as they come)


def test_rois_are_boxes_inside_the_image_and_batch_indices_in_range() -> None:
    """A ROIAlign's rois fed as an input (its input 1, [R, 4]) are boxes [x1, y1, x2, y2] inside its image, in the
    image's coordinates over its spatial_scale; its batch indices (its ``index_input``) are below the image's batch.
    Normal values were boxes about the origin: half-pixel ones of a negative size, whose bins hold no sample (NaN in
    OpenVINO and the reference alike: 864 of 1,152 outputs of a [16, 8, 3, 3] layer)."""
    from ir_tools.runtime.executor import run
    from ir_tools.runtime.inputs import BOXES

    b = GraphBuilder(Graph("roi_align"))
    image = b.parameter("image", "f32", (Dim(2, 2), Dim(3, 3), Dim(10, 10), Dim(12, 12)))
    rois, batch = b.parameter("rois", "f32", (Dim(5, 5), Dim(4, 4))), b.parameter("batch", "i32", (Dim(5, 5),))
    attrs = {"pooled_h": "3", "pooled_w": "2", "sampling_ratio": "0", "spatial_scale": "0.25", "mode": "avg",
             "aligned_mode": "half_pixel"}
    b.result(b.add("ROIAlign", "opset9", attrs, [image, rois, batch], "roi_align"), "out")
    made = recipes(b.graph, {})
    assert made["rois"].kind == BOXES and "inside the 12x10 image of ROIAlign 'roi_align'" in made["rois"].why
    for seed in range(20):
        values = draw(made, seed)
        boxes = values["rois"]
        assert boxes.dtype == np.float32 and boxes.shape == (5, 4)
        assert np.all(boxes >= 0) and np.all(boxes[:, [0, 2]] <= 48) and np.all(boxes[:, [1, 3]] <= 40)
        assert np.all(boxes[:, :2] <= boxes[:, 2:])
        assert set(values["batch"].tolist()) <= {0, 1}
        assert not np.isnan(run(b.graph, values)["out"]).any()


@pytest.mark.openvino
def test_a_sequences_lengths_are_within_its_steps(tmp_path: Path, capsys) -> None:
    """The sequence_lengths of an LSTM/GRU/RNNSequence fed as an input (its ``index_input``, lengths along X's axis 1,
    ``OpSpec.lengths_axis``) are drawn in [0, steps], not the seq_len dims' smallest ([0, 3) here) nor integers in
    [-50, 50): a reverse or bidirectional sequence's CPU kernel refused those (E-OPENVINO, its ReverseSequence), and a
    forward one's state past its steps differed from the reference's, which stops there (FAIL)."""
    from ir_tools.runtime.inputs import describe

    rng = np.random.default_rng(3)
    batch, steps, size, hidden = 3, 5, 3, 4
    for op, gates, direction in (("LSTMSequence", 4, "reverse"), ("GRUSequence", 3, "forward"),
                                 ("RNNSequence", 1, "bidirectional")):
        nd = 2 if direction == "bidirectional" else 1
        b = GraphBuilder(Graph(op))
        x = b.parameter("x", "f32", (Dim(batch, batch), Dim(steps, steps), Dim(size, size)))
        states = [b.parameter(n, "f32", (Dim(batch, batch), Dim(nd, nd), Dim(hidden, hidden)))
                  for n in ("h", "c")[:2 if op == "LSTMSequence" else 1]]
        lengths = b.parameter("lengths", "i32", (Dim(batch, batch),))
        weights = [b.const(rng.standard_normal(s).astype(np.float32), n) for n, s in (
            ("w", (nd, gates * hidden, size)), ("r", (nd, gates * hidden, hidden)), ("b", (nd, gates * hidden)))]
        attrs = {"hidden_size": str(hidden), "direction": direction,
                 "activations": ", ".join(["sigmoid", "tanh", "tanh"][:max(gates - 1, 1)])}
        if op == "RNNSequence":
            attrs["activations"] = "tanh"
        layer = b.add(op, "opset5", attrs, [x, *states, lengths, *weights], "sequence")
        for i in range(1 + len(states)):
            b.result(output_of(layer, i), f"out{i}")
        path = tmp_path / f"{op}.xml"
        ir_tools.write_ir(b.graph, path, 11)
        made = recipes(b.graph, {})
        assert f"uniform in [0, 6): lengths of the 5 steps of {op} 'sequence'" in made["lengths"].why
        drawn = np.concatenate([draw(made, seed)["lengths"] for seed in range(20)])
        assert drawn.min() == 0 and drawn.max() == steps
        given = {**draw(made, 0), "lengths": np.array([6, 2, 5], np.int32)}
        assert "; 1 of 3 outside lengths of the 5 steps" in describe(b.graph, given, {}, "given")[-1]["values"]
        assert main(["compare", str(path)]) == 0, op
        assert capsys.readouterr().out.rstrip().endswith("PASSED")
    # steps that are a transposed input's dynamic dim are not known here: the lengths drawn say they may not fit
    b = GraphBuilder(Graph("time_major"))
    x = b.parameter("x", "f32", (DYNAMIC, Dim(1, 1), Dim(size, size)))
    x = b.add("Transpose", "opset1", None, [x, b.const(np.array([1, 0, 2], np.int64), "order")], "batch_major")
    state, lengths = b.parameter("h", "f32", (Dim(1, 1), Dim(1, 1), Dim(hidden, hidden))), b.parameter(
        "lengths", "i32", (Dim(1, 1),))
    weights = [b.const(rng.standard_normal(s).astype(np.float32), n) for n, s in (
        ("w", (1, 3 * hidden, size)), ("r", (1, 3 * hidden, hidden)), ("b", (1, 3 * hidden)))]
    b.add("GRUSequence", "opset5", {"hidden_size": str(hidden), "direction": "reverse",
                                    "activations": "sigmoid, tanh"}, [x, state, lengths, *weights], "gru")
    assert recipes(b.graph, {})["lengths"].unfit == "GRUSequence 'gru' (line None) input 2, lengths along a dim not " \
        "known here"


@pytest.mark.openvino
def test_random_values_a_layers_shape_inference_reads_are_named_on_failure(tmp_path: Path, capsys) -> None:
    """Seeded inputs drawn at random into a layer input whose values its shape inference reads (``value_inputs``: a
    Reshape's target shape, a TopK's k) fit only by chance: the inputs listed say so, and where the model then fails,
    the error names each and its layer and asks for --inputs (it named the layer alone: "the target shape has -11 at
    index 0"). A CTCGreedyDecoderSeqLen's lengths are drawn within [0, T] of its T steps (its spec's index_input and
    lengths_axis; OpenVINO refused lengths of 7 over 6 steps)."""
    from ir_tools.ops.spec import TensorType

    b = GraphBuilder(Graph("shaped_by_inputs"))
    data, shape = b.parameter("data", "f32", (Dim(2, 2), Dim(6, 6))), b.parameter("shape", "i64", (Dim(2, 2),))
    scores, k = b.parameter("scores", "f32", (Dim(2, 2), Dim(10, 10))), b.parameter("k", "i64", ())
    b.result(b.add("Reshape", "opset1", {"special_zero": "false"}, [data, shape], "reshape"), "reshaped")
    top = b.add("TopK", "opset11", {"axis": "1", "mode": "max", "sort": "value", "index_element_type": "i32"},
                [scores, k], "top", outputs=[TensorType("f32", (Dim(2, 2), DYNAMIC)), TensorType("i32", (Dim(2, 2),
                                                                                                     DYNAMIC))])
    b.result(output_of(top, 0), "values")
    path = tmp_path / "shaped.xml"
    ir_tools.write_ir(b.graph, path, 11)
    made = recipes(ir_tools.read_valid(path), {})
    assert made["shape"].unfit == "Reshape 'reshape' (line 36) input 1, whose values its shape inference reads"
    assert made["data"].unfit == "" and made["shape"].describe()["values"] == (
        "uniform in [-50, 50); into Reshape 'reshape' (line 36) input 1, whose values its shape inference reads: no "
        "seeded value is sure to fit (--inputs gives values that do)")
    for command in (["run", str(path), "-o", str(tmp_path / "out.npz")], ["compare", str(path)]):
        assert main(command) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert ("(inputs seeded at random where the model does not tell what fits: 'shape' (uniform in [-50, 50)) "
                "into Reshape 'reshape' (line 36) input 1, whose values its shape inference reads; 'k' (uniform in "
                "[-50, 50)) into TopK 'top' (line ") in err
        assert "give values that fit with --inputs F.npz, keyed by input name)" in err
    np.savez(tmp_path / "fit.npz", data=np.ones((2, 6), np.float32), shape=np.array([3, 4]),
             scores=np.ones((2, 10), np.float32), k=np.array(3))
    assert main(["compare", str(path), "--inputs", str(tmp_path / "fit.npz")]) == 0
    capsys.readouterr()

    b = GraphBuilder(Graph("ctc"))
    logits, lengths = b.parameter("logits", "f32", (Dim(3, 3), Dim(6, 6), Dim(5, 5))), b.parameter("lengths", "i32",
                                                                                                   (Dim(3, 3),))
    ctc = b.add("CTCGreedyDecoderSeqLen", "opset6", {"merge_repeated": "true", "classes_index_type": "i32",
                                                     "sequence_length_type": "i32"}, [logits, lengths], "ctc",
                outputs=[TensorType("i32", (Dim(3, 3), Dim(6, 6))), TensorType("i32", (Dim(3, 3),))])
    b.result(output_of(ctc, 0), "decoded")
    b.result(output_of(ctc, 1), "decoded_lengths")
    ir_tools.write_ir(b.graph, tmp_path / "ctc.xml", 11)
    assert "uniform in [0, 7): lengths of the 6 steps of CTCGreedyDecoderSeqLen 'ctc'" in recipes(b.graph, {})[
        "lengths"].why
    assert main(["migrate", str(tmp_path / "ctc.xml"), "--ir-version", "10", "--check", "-o",
                 str(tmp_path / "ctc10.xml")]) == 0


@pytest.mark.openvino
def test_random_values_into_random_ops_that_read_them_are_named(tmp_path: Path, capsys) -> None:
    """Ops whose seeded input OpenVINO CPU refuses (measured on 2026.4): a Multinomial's sample count and a
    RandomUniform's output shape drawn negative ("Value -17 not in range"). The error named the layer alone, with no
    word of the input drawn at random. (Both ops were unmodelled and ``_UNFIT_INPUTS`` named these inputs; their
    specs in ops/random.py name them now, as value inputs.)"""
    import openvino as ov
    import openvino.opset15 as ops

    probs, count = ops.parameter([1, 5], np.float32, name="probs"), ops.parameter([], np.int64, name="count")
    shape = ops.parameter([2], np.int64, name="shape")
    cases = [("count", [probs, count], ops.multinomial(probs, count, "i64", False, False, 1, 1, name="sample"), 3,
              "Multinomial 'sample' (line 19) input 1, whose values its shape inference reads"),
             ("shape", [shape], ops.random_uniform(shape, ops.constant(np.float32(0)), ops.constant(np.float32(1)),
                                                   "f32", 1, 2, name="noise"), 1,
              "RandomUniform 'noise' (line 48) input 0, whose values its shape inference reads")]
    for name, params, output, seed, into in cases:
        path = tmp_path / f"{name}.xml"
        ov.save_model(ov.Model([output], params, name), str(path))
        assert main(["compare", str(path), "--seed", str(seed)]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert "E-OPENVINO" in err and f"(inputs seeded at random where the model does not tell what fits: '{name}' " \
            f"(uniform in [-50, 50)) into {into};" in err, err


@pytest.mark.openvino
def test_random_counts_and_offsets_into_embedding_bags_are_named_with_the_kernels_refusal(tmp_path: Path,
                                                                                       capsys) -> None:
    """EmbeddingSegmentsSum-3 and EmbeddingBagOffsetsSum-3 are modelled (ops/embedding.py): a segment count drawn
    negative (a value input of the spec) and offsets drawn past the indices (``_UNFIT_INPUTS``: no field of the spec
    says it) the reference refuses as OpenVINO CPU does (E-OP), naming the input and the layer input it feeds."""
    import openvino as ov
    import openvino.opset15 as ops

    table, segments = ops.parameter([10, 3], np.float32, name="table"), ops.parameter([], np.int32, name="segments")
    offsets = ops.parameter([2], np.int32, name="offsets")
    indices = ops.constant(np.array([0, 2, 3, 4], np.int32))
    cases = [("segments", [table, segments], ops.embedding_segments_sum(
                 table, indices, ops.constant(np.array([0, 0, 2, 2], np.int32)), segments, name="segment_sum"), 1,
              "EmbeddingSegmentsSum 'segment_sum' (line 35) input 3, whose values its shape inference reads"),
             ("offsets", [table, offsets], ops.embedding_bag_offsets_sum(table, indices, offsets, name="bag_sum"), 0,
              "EmbeddingBagOffsetsSum 'bag_sum' (line 29) input 2, offsets into its input 1")]
    for name, params, output, seed, into in cases:
        path = tmp_path / f"{name}.xml"
        ov.save_model(ov.Model([output], params, name), str(path))
        assert main(["compare", str(path), "--seed", str(seed)]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert f"error[E-OP]: layer '{output.get_friendly_name()}'" in err, err
        assert f"(inputs seeded at random where the model does not tell what fits: '{name}' (uniform in [-50, 50)) " \
            f"into {into};" in err, err


@pytest.mark.openvino
def test_a_random_row_count_into_an_eye_is_named_with_the_kernels_refusal(tmp_path: Path, capsys) -> None:
    """Eye-9 is modelled (ops/eye.py): its row count is a value input of its spec, and the reference refuses a negative
    one drawn at random as OpenVINO CPU does (E-OP), naming the input and the layer input it feeds."""
    import openvino as ov
    import openvino.opset15 as ops

    rows = ops.parameter([], np.int64, name="rows")
    path = tmp_path / "rows.xml"
    ov.save_model(ov.Model([ops.eye(rows, ops.constant(np.int64(3)), ops.constant(np.int64(0)), "f32", name="eye")],
                           [rows], "rows"), str(path))
    assert main(["compare", str(path), "--seed", "1"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "error[E-OP]: layer 'eye'" in err and "num_rows -3 is negative" in err and "Value -3 not in range" in err
    assert ("(inputs seeded at random where the model does not tell what fits: 'rows' (uniform in [-50, 50)) into Eye "
            "'eye' (line 22) input 0, whose values its shape inference reads;") in err, err
