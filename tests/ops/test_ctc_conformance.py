"""CTCGreedyDecoder-1, CTCGreedyDecoderSeqLen-6, GatherTree-1 and CTCLoss-4 (ops/ctc.py) against OpenVINO: shape
rules and CPU kernels.

Kernels: 160 seeded cases of each op, 80 to a model compiled once for OpenVINO CPU. The decoders and GatherTree bit
for bit: data of small integers (ties in most steps), with NaN, +-inf and +-0 among them, in f32, f16 and f64; masks
with zeros and NaN; lengths from 0 to T, of i32, i64, i16 and u16; blank indices inside and outside [0, C), of i32,
i64 and u8, scalars and [1]; every output type the kernel models; GatherTree in i32, i64, i16, u16, f32, f16 and f64,
with fractional parents and lengths, lengths beyond T and NaN end tokens. CTCLoss within its rounding rule's bound:
f32, f16 and f64 logits of scales 1 to 10 (some with NaN, -0.0 or a logit past f32 exp's overflow), labels with
repeats (i32, i64, i16, u8), every flag, impossible labels (an infinite loss) among them. Shape rules: 200 seeded
nodes of each op on Parameters (partial shapes, element types real or not, dynamic) must give our rule's output, or
both refuse.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as ops1
import openvino.opset4 as ops4
import openvino.opset6 as ops6
import pytest

from ir_tools.base.errors import IrToolsError
from ir_tools.ops import attrs as A
from ir_tools.ops.core import NoAttrs
from ir_tools.ops.ctc import (
    CTC_GREEDY_DECODER_SEQ_LEN_6,
    CTC_LOSS_4,
    GATHER_TREE_1,
    CtcLossAttrs,
    GreedyDecoderSeqLenAttrs,
)
from ir_tools.ops.opsets import lookup

from .conformance import (
    Case,
    assert_all_pass,
    assert_bounds_carry_moves,
    assert_compare_passes,
    assert_shapes_agree,
    check_versions,
    openvino_outcome,
    our_outcome,
    parameters,
    pick,
    random_bounds,
    rule_limits,
    show,
    tensor_types,
)

pytestmark = pytest.mark.openvino

SEED = 6106
PER_MODEL = 80
CASES = 160  # per op version
FLOATS = (np.float32, np.float16, np.float64)
SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])


def logits(rng: np.random.Generator, shape: tuple[int, ...], dtype, special: float) -> np.ndarray:
    """Small integers (ties in most rows), a share ``special`` of them NaN, +-inf or +-0."""
    x = rng.integers(-2, 3, shape).astype(np.float64)
    chosen = rng.random(shape) < special
    x[chosen] = rng.choice(SPECIALS, int(chosen.sum()))
    return x.astype(dtype)


def greedy_decoder_cases(rng: np.random.Generator, n: int, special: float = 0.08) -> list[Case]:
    """``n`` cases, f32, f16 and f64 in turn: ``logits`` (``special`` of them special values) and masks of zeros and
    ones (and NaN, where ``special``)."""
    cases = []
    for i in range(n):
        dtype = FLOATS[i % 3]
        steps, batch, classes = (int(v) for v in rng.integers(1, 7, 3))
        mask = (rng.random((steps, batch)) < 0.85).astype(np.float64)
        mask[rng.random((steps, batch)) < special] = np.nan
        merge = bool(rng.integers(2))
        cases.append(Case(f"CTCGreedyDecoder {np.dtype(dtype)}[{steps},{batch},{classes}] merge {merge}",
                          [logits(rng, (steps, batch, classes), dtype, special), mask.astype(dtype)],
                          lambda ps, m=merge: ops1.ctc_greedy_decoder(ps[0], ps[1], m), bits=True))
    return cases


INDEX_OUTPUTS = ("i32", "i64", "i16", "u8", "f32")


def seq_len_cases(rng: np.random.Generator, n: int, special: float = 0.08) -> list[Case]:
    """``n`` cases, f32, f16 and f64 in turn: ``logits`` (``special`` of them special values), lengths within [0, T],
    blank indices of several types inside and outside [0, C) or none, every output type the kernel models."""
    cases = []
    for i in range(n):
        dtype = FLOATS[i % 3]
        batch, steps, classes = (int(v) for v in rng.integers(1, 7, 3))
        lengths = rng.integers(0, steps + 1, batch).astype(pick(rng, [np.int32, np.int64, np.int16, np.uint16]))
        inputs = [logits(rng, (batch, steps, classes), dtype, special), lengths]
        if rng.random() < 0.6:
            blank = np.array(int(rng.integers(-1, classes + 2)) if i % 5 else classes - 1)
            blank_type = pick(rng, [np.int32, np.int64, np.uint8])
            inputs.append(np.abs(blank).astype(blank_type) if blank_type is np.uint8 else blank.astype(blank_type))
            if rng.random() < 0.5:
                inputs[-1] = inputs[-1].reshape(1)
        merge = bool(rng.integers(2))
        classes_type, lengths_type = pick(rng, INDEX_OUTPUTS), pick(rng, INDEX_OUTPUTS)
        cases.append(Case(f"CTCGreedyDecoderSeqLen {np.dtype(dtype)}[{batch},{steps},{classes}] lengths "
                          f"{lengths.tolist()} blank {inputs[2].tolist() if len(inputs) > 2 else None} merge {merge} "
                          f"{classes_type} {lengths_type}", inputs,
                          lambda ps, m=merge, c=classes_type, s=lengths_type: ops6.ctc_greedy_decoder_seq_len(
                              *ps, merge_repeated=m, classes_index_type=c, sequence_length_type=s), bits=True))
    return cases


TREE_TYPES = (np.int32, np.float32, np.int64, np.float16, np.float64, np.int16, np.uint16)


def gather_tree_case(rng: np.random.Generator, dtype) -> Case:
    """Step ids and parents [T, B, W] of ``dtype`` (float ones with fractions, NaN parents at step 0 now and then),
    max_seq_len from 1 to T + 2 and an end token (NaN now and then)."""
    steps, batch, beams = (int(v) for v in rng.integers(1, 7, 3))
    step = rng.integers(0, 6, (steps, batch, beams)).astype(np.float64)
    parents = rng.integers(0, beams, (steps, batch, beams)).astype(np.float64)
    longest = rng.integers(1, steps + 3, batch).astype(np.float64)
    end = np.array(float(rng.integers(0, 6)))
    if np.dtype(dtype).kind == "f":
        step += rng.choice([0.0, 0.5], step.shape)
        parents += rng.uniform(0, 0.99, parents.shape)
        longest += rng.uniform(0, 0.99, batch)
        if rng.random() < 0.15:
            end = np.array(np.nan)
        if rng.random() < 0.15:
            parents[0] = np.nan  # (the parents read at step 0 OpenVINO CPU never uses)
    inputs = [v.astype(dtype) for v in (step, parents, longest, end)]
    return Case(f"GatherTree {np.dtype(dtype)}[{steps},{batch},{beams}] max_seq_len {inputs[2].tolist()} end "
                f"{end.tolist()}", inputs, lambda ps: ops1.gather_tree(*ps), bits=True)


def gather_tree_cases(rng: np.random.Generator, n: int) -> list[Case]:
    return [gather_tree_case(rng, TREE_TYPES[i % len(TREE_TYPES)]) for i in range(n)]


LOSS_FLAGS = ("preprocess_collapse_repeated", "ctc_merge_repeated", "unique")


def ctc_loss_inputs(rng: np.random.Generator, dtype, special: float) -> list[np.ndarray]:
    """Logits [N, T, C] of ``dtype`` (normal, of scale 1 to 10; a share ``special`` of the cases with a NaN, -0.0 or a
    logit past f32 exp's overflow), logit lengths from 1 to T, label lengths from 1 to the logit length, labels of few
    classes (repeats), i32 or i64; a blank index (any class) or none."""
    batch, steps, classes = int(rng.integers(1, 4)), int(rng.integers(1, 16)), int(rng.integers(2, 8))
    x = rng.standard_normal((batch, steps, classes)) * pick(rng, [1.0, 3.0, 10.0])
    if rng.random() < special:
        x[tuple(int(rng.integers(n)) for n in x.shape)] = pick(rng, [np.nan, -0.0, 89.0, 100.0])
    index = pick(rng, [np.int32, np.int64, np.uint8, np.int16])
    logit_length = rng.integers(1, steps + 1, batch)
    label_length = np.array([rng.integers(1, n + 1) for n in logit_length])
    labels = rng.integers(0, min(classes, 3), (batch, steps))
    inputs = [x.astype(dtype), *(v.astype(index) for v in (logit_length, labels, label_length))]
    if rng.random() < 0.5:
        inputs.append(np.array(int(rng.integers(classes))).astype(index))
    return inputs


def ctc_loss_cases(rng: np.random.Generator, n: int, special: float = 0.15, fixed: bool = False) -> list[Case]:
    """``n`` cases, f32, f16 and f64 in turn (``ctc_loss_inputs``), every combination of the flags, judged within
    the rounding rule's bound; ``fixed``: the lengths, labels and blank as Constants (a model fed zeros, a label length
    of 0, crashes OpenVINO CPU)."""
    cases = []
    for i in range(n):
        inputs = ctc_loss_inputs(rng, FLOATS[i % 3], special)
        raw = {f: pick(rng, ["true", "false"]) for f in LOSS_FLAGS}
        cases.append(Case(f"CTCLoss {inputs[0].dtype}{list(inputs[0].shape)} {[v.tolist() for v in inputs[1:]]} {raw}",
                          inputs, lambda ps, r=raw: ops4.ctc_loss(*ps, **{k: v == "true" for k, v in r.items()}),
                          rule_limits(CTC_LOSS_4, raw, inputs), consts=range(1, len(inputs)) if fixed else ()))
    return cases


def test_ctc_loss_within_its_bound(tmp_path: Path) -> None:
    """``ctc_loss_cases`` within the rule's bound (measured: OpenVINO's loss at most 13% of it from ours; a
    ctc_merge_repeated ignored puts 22 of 80 cases outside it)."""
    rng = np.random.default_rng([SEED, 4])
    for _ in range(CASES // PER_MODEL):
        assert_all_pass(ctc_loss_cases(rng, PER_MODEL), tmp_path)


def test_ctc_loss_bound_carries_moved_inputs() -> None:
    """The rule's propagation: logits moved anywhere within their bounds move the loss by no more than the rule's
    bound for those input bounds (2 per step times the step's largest bound)."""
    rng = np.random.default_rng([SEED, 5])
    for _ in range(60):
        inputs = ctc_loss_inputs(rng, np.float32, 0.0)
        bounds = [np.abs(inputs[0]) * 10.0 ** rng.uniform(-6, -2), *(np.zeros(()) for _ in inputs[1:])]
        raw = {f: pick(rng, ["true", "false"]) for f in LOSS_FLAGS}
        if np.isfinite(CTC_LOSS_4.kernel(A.decode(CTC_LOSS_4.attrs, raw), inputs)[0]).all():  # (no impossible labels)
            assert_bounds_carry_moves(CTC_LOSS_4, raw, inputs, bounds, rng, raw)


@pytest.mark.parametrize("make", [greedy_decoder_cases, seq_len_cases, gather_tree_cases])
def test_values_bit_for_bit(make, tmp_path: Path) -> None:
    rng = np.random.default_rng([SEED, len(make.__name__)])
    for _ in range(CASES // PER_MODEL):
        assert_all_pass(make(rng, PER_MODEL), tmp_path)


def test_refused_where_openvino_cpu_fails() -> None:
    """A length above T (OpenVINO CPU refuses it), a negative one (it crashes), a parent outside the beams (refused)
    and a max_seq_len of 0 (the output left unwritten) are refused; C = 0 too (memory read); CTCLoss's label length of
    0 (a write outside its buffers), label outside the classes (a read outside the logits) and label length above the
    logit length (refused)."""
    seq_len = CTC_GREEDY_DECODER_SEQ_LEN_6.kernel
    attrs = GreedyDecoderSeqLenAttrs()
    x = np.zeros((1, 3, 4), np.float32)
    for lengths in ([4], [-1]):
        with pytest.raises(IrToolsError):
            seq_len(attrs, [x, np.array(lengths, np.int32)])
    with pytest.raises(IrToolsError):
        seq_len(attrs, [np.zeros((1, 3, 0), np.float32), np.array([2], np.int32)])
    step = np.zeros((3, 1, 2), np.int32)
    for parents, longest in ((np.full((3, 1, 2), 2, np.int32), [3]), (np.zeros((3, 1, 2), np.int32), [0])):
        with pytest.raises(IrToolsError):
            GATHER_TREE_1.kernel(NoAttrs(), [step, parents, np.array(longest, np.int32), np.array(0, np.int32)])
    loss, logits = CTC_LOSS_4.kernel, np.zeros((1, 3, 4), np.float32)
    for labels, label_length in (([[0, 1, 2]], [0]), ([[0, 4, 1]], [2]), ([[0, 1, 2]], [4])):
        with pytest.raises(IrToolsError):
            loss(CtcLossAttrs(), [logits, np.array([3], np.int32), np.array(labels, np.int32),
                                  np.array(label_length, np.int32)])


#: Per op, the builder of a node on Parameters of these element types and shapes, the layer's inputs, each input's
#: usual element type: every element type tried at one input at a time.
CPU_NODES = {"CTCGreedyDecoder": (lambda ps: ops1.ctc_greedy_decoder(*ps), [[3, 2, 4], [3, 2]], ["f32", "f32"]),
             "CTCGreedyDecoderSeqLen": (lambda ps: ops6.ctc_greedy_decoder_seq_len(*ps), [[2, 3, 4], [2]],
                                        ["f32", "i32"]),
             "CTCLoss": (lambda ps: ops4.ctc_loss(*ps), [[2, 3, 4], [2], [2, 3], [2]], ["f32", "i32", "i32", "i32"])}
TYPES = ["f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"]


def test_cpu_refuses_what_openvino_cpu_does_not_compile() -> None:
    """Each element type at each input of a layer on Parameters (GatherTree's four alike) its shape inference takes:
    ``cpu_refuses`` says why exactly where OpenVINO CPU refuses to compile it (measured: integer data and masks of the
    decoders; float, i8 and u8 lengths of CTCGreedyDecoderSeqLen; GatherTree of i8, u8 and bf16; CTCLoss compiles
    every one)."""
    core, compiled, compiles = ov.Core(), [], []
    nodes = [(op, build, shapes, [t if j == i else usual for j, usual in enumerate(kinds)])
             for op, (build, shapes, kinds) in CPU_NODES.items() for i in range(len(kinds)) for t in TYPES]
    nodes += [("GatherTree", lambda ps: ops1.gather_tree(*ps), [[3, 2, 4], [3, 2, 4], [2], []], [t] * 4) for t in TYPES]
    for op, build, shapes, kinds in nodes:
        params = [ops1.parameter(shape, getattr(ov.Type, kind)) for shape, kind in zip(shapes, kinds, strict=True)]
        try:
            node = build(params)
        except RuntimeError:  # (its shape inference refuses it: the shape rules' test)
            continue
        refuses = lookup(op, "opset6").cpu_refuses
        if refuses is None or refuses(None, tensor_types(kinds, [tuple((n, n) for n in s) for s in shapes]),
                                      [None] * len(shapes)) is None:
            compiled.append((node, params))  # (all in one model, below: OpenVINO CPU compiles it)
            continue
        try:
            core.compile_model(ov.Model(node.outputs(), params), "CPU")
            compiles.append(f"{op} {kinds}")
        except RuntimeError:
            pass
    assert not compiles, f"refused by cpu_refuses, compiled by OpenVINO CPU: {compiles}"
    core.compile_model(ov.Model([o for node, _ in compiled for o in node.outputs()],
                                [p for _, params in compiled for p in params]), "CPU")


ANY_TYPES = ["f32", "f16", "f64", "i32", "i64", "u8", "boolean", None]


def _shape_case(rng: np.random.Generator, op: str, version: str, build, lengths: list[list[int]],
                elements: list[str | None], raw: dict[str, str]):
    shapes = [None if rng.random() < 0.1 else random_bounds(rng, n) for n in lengths]

    def theirs(shapes=shapes, elements=elements):
        return openvino_outcome(lambda: build(parameters(elements, shapes)))

    def ours(shapes=shapes, elements=elements):
        return our_outcome(op, version, raw, tensor_types(elements, shapes), [None] * len(shapes))

    return (f"{op} {elements} {[show(s) for s in shapes]} {raw}", theirs, ours)


def _off(rng: np.random.Generator, lengths: list[list[int]], dims: list[int]) -> list[list[int]]:
    """The op's usual shapes ``lengths``, one of them now and then of another rank or dims (drawn from ``dims``)."""
    out = [list(n) for n in lengths]
    if rng.random() < 0.3:
        out[int(rng.integers(len(out)))] = [int(pick(rng, dims)) for _ in range(int(rng.integers(0, 4)))]
    return out


def test_shape_rules_agree() -> None:
    rng = np.random.default_rng([SEED, 1])
    cases = []
    for _ in range(200):
        t, n, c = (int(v) for v in rng.integers(1, 5, 3))
        dims = [t, n, c]
        merge = pick(rng, ["true", "false"])
        cases.append(_shape_case(rng, "CTCGreedyDecoder", "opset1",
                                 lambda ps, m=merge: ops1.ctc_greedy_decoder(ps[0], ps[1], m == "true"),
                                 _off(rng, [[t, n, c], [t, n]], dims), [pick(rng, ANY_TYPES) for _ in range(2)],
                                 {"ctc_merge_repeated": merge}))
        blank = rng.random() < 0.5
        shapes = _off(rng, [[n, t, c], [n], *([pick(rng, [[], [1], [2], [1, 1]])] if blank else [])], dims)
        elements = [pick(rng, ANY_TYPES) for _ in shapes]
        types = {"classes_index_type": pick(rng, ["i32", "i64", "f32"]),
                 "sequence_length_type": pick(rng, ["i32", "i64", "u8"])}
        cases.append(_shape_case(rng, "CTCGreedyDecoderSeqLen", "opset6",
                                 lambda ps, k=types: ops6.ctc_greedy_decoder_seq_len(*ps, **k), shapes, elements,
                                 {**types, "merge_repeated": "true"}))
        element = pick(rng, ANY_TYPES)
        elements = [element if rng.random() < 0.95 else pick(rng, ANY_TYPES) for _ in range(4)]
        cases.append(_shape_case(rng, "GatherTree", "opset1", lambda ps: ops1.gather_tree(*ps),
                                 _off(rng, [[t, n, c], [t, n, c], [n], []], dims), elements, {}))
        shapes = _off(rng, [[n, t, c], [n], [n, t], [n], *([[]] if rng.random() < 0.5 else [])], dims)
        kinds = ("f32", "i32", "i64", "i32", "i64")
        elements = [pick(rng, ANY_TYPES) if rng.random() < 0.2 else kind for kind in kinds]
        flags = {f: pick(rng, ["true", "false"]) for f in LOSS_FLAGS}
        cases.append(_shape_case(rng, "CTCLoss", "opset4",
                                 lambda ps, f=flags: ops4.ctc_loss(*ps, **{k: v == "true" for k, v in f.items()}),
                                 shapes, elements[:len(shapes)], flags))
    assert_shapes_agree(cases)


def test_opsets(tmp_path: Path) -> None:
    x, mask = ops1.parameter([3, 2, 4], np.float32), ops1.parameter([3, 2], np.float32)
    lengths = ops1.parameter([3], np.int32)
    ids = [ops1.parameter(s, np.int32) for s in ([3, 2, 4], [3, 2, 4], [2], [])]
    labels, labels_length = ops1.parameter([3, 2], np.int32), ops1.parameter([3], np.int32)
    nodes = {"CTCGreedyDecoder": ops1.ctc_greedy_decoder(x, mask), "GatherTree": ops1.gather_tree(*ids),
             "CTCGreedyDecoderSeqLen": ops6.ctc_greedy_decoder_seq_len(x, lengths),
             "CTCLoss": ops4.ctc_loss(x, lengths, labels, labels_length)}
    assert check_versions(nodes, [x, mask, lengths, *ids, labels, labels_length], tmp_path) == []


def test_compare_checks_them(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Seeded logits decoded by CTCGreedyDecoderSeqLen (its lengths seeded within [0, T]: its spec's index_input and
    lengths_axis) and by CTCGreedyDecoder, the decoded classes backtracked by GatherTree, and the CTCLoss of fixed
    labels, compared end to end and per layer, nothing left unchecked."""
    rng = np.random.default_rng(3)
    x = ops1.parameter([2, 6, 5], np.float32, name="logits")
    lengths = ops1.parameter([2], np.int32, name="lengths")
    decoded = ops6.ctc_greedy_decoder_seq_len(x, lengths)
    mask = ops1.constant((rng.random((6, 2)) < 0.8).astype(np.float32))
    greedy = ops1.ctc_greedy_decoder(ops1.transpose(x, ops1.constant(np.array([1, 0, 2]))), mask)
    steps = ops1.reshape(decoded.output(0), ops1.constant(np.array([6, 1, 2])), False)
    tree = ops1.gather_tree(steps, ops1.constant(rng.integers(0, 2, (6, 1, 2)).astype(np.int32)),
                            ops1.constant(np.array([5], np.int32)), ops1.constant(np.array(-1, np.int32)))
    loss = ops4.ctc_loss(x, ops1.constant(np.array([6, 5], np.int32)), ops1.constant(np.array([[0, 1, 1, 2, 0, 0]] * 2,
                                                                                             np.int32)),
                         ops1.constant(np.array([4, 2], np.int32)))
    xml = tmp_path / "ctc.xml"
    model = ov.Model([ops1.result(o) for o in (decoded.output(1), greedy.output(0), tree.output(0), loss.output(0))],
                     [x, lengths])
    ov.save_model(model, xml)
    assert_compare_passes(xml, capsys, {"CTCGreedyDecoderSeqLen@opset6", "CTCGreedyDecoder@opset1",
                                        "GatherTree@opset1", "CTCLoss@opset4"}, outputs=4)
