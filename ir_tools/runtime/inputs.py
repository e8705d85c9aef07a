"""Model inputs: from a dict, ``.npy``/``.npz`` files, or seeded random data."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..base.diagnostics import Diagnostic
from ..base.dims import Dim, parse_shape, shape_from_ints
from ..base.dtypes import element_type
from ..base.errors import AttrError, IrToolsError, UnsupportedError, did_you_mean
from ..base.packed import element_type_of, held_dtype, is_bf16, to_bf16
from ..ir.model import Graph, Layer
from ..ir.names import input_name, tensor_names
from ..ir.reader import graph_of
from ..ir.walker import PortKey
from ..ops.opsets import lookup
from ..ops.spec import TensorType
from ..passes.shapes import ShapeWalker
from ..passes.stateless import variable_shape


class InputError(IrToolsError):
    code = "E-INPUT"


def parse_shape_overrides(specs: list[str]) -> dict[str, tuple[int, ...]]:
    """``["x:1,3,224,224", ...]`` -> ``{"x": (1, 3, 224, 224)}``."""
    out = {}
    for spec in specs:
        name, sep, dims = spec.rpartition(":")
        try:
            if not sep or not name:
                raise ValueError
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            raise InputError(f"--shape expects NAME:D1,D2,... with integers, got '{spec}'") from None
        if any(d < 0 for d in shape):
            raise InputError(f"--shape {spec}: a dim is the size to run with, 0 or more (a dynamic dim is what "
                             "--shape fixes)")
        if out.setdefault(name, shape) != shape:
            raise InputError(f"--shape {name}: given twice, as {list(out[name])} and {list(shape)}")
    return out


def load_inputs(path: Path, graph: Graph) -> dict[str, np.ndarray]:
    """Inputs from an ``.npz`` (keys are input names: any of an input tensor's names, as OpenVINO takes them) or an
    ``.npy`` (a model with one input); keyed by ``input_name``."""
    try:
        if path.suffix == ".npy":
            names = [input_name(graph, p) for p in graph.parameters()]
            if len(names) != 1:
                raise InputError(f"{path}: an .npy file can feed a model with one input; this one has {len(names)}")
            return {names[0]: np.load(path, allow_pickle=False)}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read inputs from {path}: {exc}") from None
    aliases = input_aliases(graph)
    return {aliases.get(name, name): value for name, value in load_npz(path).items()}


def input_aliases(graph: Graph) -> dict[str, str]:
    """Each name of an input tensor -> ``input_name`` of its input: OpenVINO takes an input by any of its names (in
    ``--inputs`` keys and ``--shape`` alike), the commands key it by the first."""
    return {alias: input_name(graph, p) for p in graph.parameters() if p.outputs
            for alias in tensor_names(p.outputs[0].names)}


def load_npz(path: Path) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file (no pickles)."""
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
        if not magic.startswith(b"PK\x03\x04") and magic != b"\x93NUMPY":
            raise InputError(f"cannot read arrays from {path}: it is not an .npz file (numpy.savez writes one, keyed "
                             "by input name) nor an .npy")
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read arrays from {path}: {exc}") from None


#: Inputs whose fitting values the graph does not tell and no field of a spec says (a modelled op's ``value_inputs``
#: and ``index_input`` do), by op: input -> what they are (``_unfit_use``). Seeded at random, OpenVINO CPU refuses
#: offsets past the indices ("Offset value exceeds indices size"; measured on 2026.4), as the embedding bags' kernels
#: do. (Multinomial's sample count and RandomUniform's output shape were here until ops/random.py modelled both ops:
#: their ``value_inputs`` name them now.)
_UNFIT_INPUTS = {"EmbeddingBagOffsetsSum": {2: "offsets into its input 1"},
                 "EmbeddingBagOffsets": {2: "offsets into its input 1"}}

#: Inputs an op requires sorted along their last axis, by op: the input (SearchSorted's sequence, which its binary
#: search takes as sorted; SegmentMax's segment ids, unsorted ones of which OpenVINO CPU refuses).
_SORTED_INPUTS = {"SearchSorted": 0, "SegmentMax": 1}

#: The prefix of a sequence-to-sequence decoder's inputs from its encoder (``encoder_hidden_states``,
#: ``encoder_attention_mask``, as optimum-intel names them): they hold the encoder's sequence, which no generation step
#: and no past lengthens (a BART decoder's cross-attention mask grown to 9 beside its cached 8 keys: refused).
ENCODER_INPUTS = "encoder_"

#: The dims a dynamic input takes when neither ``--shape`` nor the model fixes them (docs/SEMANTICS.md section 8).
DEFAULT_BATCH = 1
DEFAULT_SEQUENCE = 8
DEFAULT_CHANNELS = 3  # an image's, where the model leaves them dynamic: RGB
#: An image's height and width: every layer of a classifier still sees more than one pixel (ResNet's last stage 2 x 2),
#: and a model's reference run stays small (at 224 a small diffusers UNet ran out of memory: docs/SEMANTICS.md 8).
DEFAULT_SIDE = 64
DEFAULT_FRAMES = 8  # a video's [batch, channels, frames, height, width]
#: What ``_fitting`` tries after an image's defaults, where the model's shape rules refuse them, in this order (the
#: last varying fastest): channels (a grayscale model's), frames (a video model's) and sides (a model made for one
#: image size: a ViT's position embeddings, ImageNet's 224 first; last the default sequence, for a [batch, heads,
#: sequence, size] tensor a transformer's part is cut at).
_OTHER_IMAGES = {"channels": (1,), "frames": (2, 4, 16, 32),
                 "side": (224, 16, 32, 128, 256, 384, 512, 1024, DEFAULT_SEQUENCE)}

#: Ops that hand their input 0's values on unchanged (a Convert to a number type too): an input's use is looked for
#: through them.
_CARRIERS = frozenset({"Convert", "Reshape", "Squeeze", "Unsqueeze"})
#: Ops that keep the one number of a rank-1 shape (``_tested_length``): the carriers, and a Gather of it.
_ONE_NUMBER = _CARRIERS | {"Gather"}
#: Seeded pads of a Pad (its pads_begin or pads_end an input) are below this: none negative (a dim left negative
#: fails), and below a dim of 2 (reflect pads less than the dim).
_PADS = 2
#: How many layers downstream a KV cache's Concat may reach an attention's key or value (``_holds_cache``: through
#: grouped-query attention's Unsqueeze, Broadcast and Reshape of its heads).
_CACHE_DEPTH = 6
#: The input of each op whose values are the dims of its output's shape (``_shaped``).
_SHAPE_INPUTS = {"Broadcast": 1, "Reshape": 1}
#: How many layers downstream an input converted to float may reach RoPE's Sin or Cos (the angles: positions times
#: the inverse frequencies, transposed and concatenated).
_ROPE_DEPTH = 8

# What an input's values are (``Recipe.kind``).
NORMAL, UNIFORM, ONES, ZEROS, POSITIONS, BATCH = "normal", "uniform", "ones", "zeros", "positions", "batch"
BOXES = "boxes"

#: The names that say what an input is when its use in the graph does not (the inputs of transformers' exports).
_BY_NAME = {"attention_mask": (ONES, "an attention mask"), "position_ids": (POSITIONS, "positions"),
            "token_type_ids": (ZEROS, "token types"), "beam_idx": (BATCH, "a beam index"),
            "cache_position": (POSITIONS, "positions in the cache")}
#: transformers' input of the positions in the cache a step writes, one per token of the step: a rank-1 input whose
#: one axis is the sequence (``_cache_positions_shape``).
_CACHE_POSITIONS = "cache_position"


@dataclass(frozen=True)
class Recipe:
    """How one input is made: its shape (and where its dims came from) and what its values are (and why)."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    dims: str  # where the dims came from: "the model's", "--shape", "batch 1, sequence 8 by default"...
    kind: str  # NORMAL, UNIFORM (in [low, high)), ONES, ZEROS, POSITIONS (0, 1... on the last axis), BATCH (0, 1...),
    # BOXES ([x1, y1, x2, y2] rows within ``extent``, after a batch index in [0, batches) where ``batches``)
    why: str  # what the values are, and what says so
    low: int = 0
    high: int = 0
    unfit: str = ""  # drawn at random into a layer input whose fitting values the graph does not tell (``_unfit_use``)
    sequence: int | None = None  # the axis that is the sequence, where the model leaves it dynamic
    start: int = 0  # POSITIONS: the first position (a generation step's, after the past)
    extent: tuple[float, float] = (0.0, 0.0)  # BOXES: the image's width and height in the boxes' coordinates
    batches: int = 0  # BOXES: rows [batch, x1, y1, x2, y2] of a batch index below it (ROIPooling's, PSROIPooling's)
    ordered: bool = False  # sorted along the last axis (``_SORTED_INPUTS``: NORMAL and UNIFORM ones)
    cumulative: bool = True  # ONES on a sequence axis: a later generation step's covers the past too (a KV cache's)

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """The values, of ``shape`` and ``dtype``; NORMAL and UNIFORM drawn from ``rng``."""
        shape = self.shape
        if self.kind == NORMAL:
            value = rng.standard_normal(shape)
        elif self.kind == UNIFORM:
            value = rng.integers(self.low, self.high, shape)
        elif self.kind == BOXES:  # each axis's two corners uniform within the image, the smaller first
            corners = np.sort(rng.uniform(0.0, 1.0, (*shape[:-1], 2, 2)), axis=-2) * np.array(self.extent)
            value = corners.reshape((*shape[:-1], 4))
            if self.batches:
                value = np.concatenate([rng.integers(0, self.batches, (*shape[:-1], 1)), value], -1)
        elif self.kind in (ONES, ZEROS):
            value = np.full(shape, 1 if self.kind == ONES else 0)
        else:  # POSITIONS, BATCH: a range along the last axis, reduced below ``high`` (the rows an index may take)
            row = np.arange(self.start, self.start + (shape[-1] if shape else 1))
            if self.high:
                row %= self.high
            value = np.broadcast_to(row, shape) if shape else row[0]
        if self.ordered and shape:
            value = np.sort(value, axis=-1)
        return to_bf16(value) if is_bf16(self.dtype) else np.asarray(value).astype(self.dtype)

    def describe(self) -> dict[str, object]:
        """The report's entry: name, element type, shape, where the dims came from, what the values are (and, drawn at
        random where the graph does not tell what fits, that they may not)."""
        values = f"{self.why}; into {self.unfit}: no seeded value is sure to fit (--inputs gives values that do)" \
            if self.unfit else self.why
        return {"name": self.name, "element_type": _type_name(self.dtype), "shape": list(self.shape),
                "dims": self.dims, "values": values}


def random_inputs(graph: Graph | str | Path, seed: int = 0, shapes: Mapping[str, tuple[int, ...]] | None = None
                  ) -> dict[str, np.ndarray]:
    """Seeded inputs that fit the model, as the commands make them (``recipes``: token ids within the embedding's
    rows, masks of ones, positions a range; dynamic dims batch 1, sequence 8, an image 64 x 64 unless ``shapes``
    gives an input's; docs/SEMANTICS.md section 8). Checked as the commands check them (``check_inputs``: a shape
    the model does not accept is E-INPUT), a name in ``shapes`` no input has E-USAGE (``recipes``)."""
    graph = graph_of(graph)  # (or the IR file at a path)
    return check_inputs(graph, draw(recipes(graph, shapes or {}), seed))


def random_steps(graph: Graph, count: int = 2, seed: int = 0, shapes: Mapping[str, tuple[int, ...]] | None = None
                 ) -> list[dict[str, np.ndarray]]:
    """Seeded inputs of ``count`` steps of a generation loop over a stateful model, as ``compare --steps`` draws them:
    the first as ``random_inputs`` gives it (the prompt), each later one from its own seed (``seed`` plus its index),
    one token longer (``generation_step``)."""
    made = recipes(graph, shapes or {})
    first = draw(made, seed)
    return [first, *later_steps(made, count, seed, first)]


def later_steps(made: Mapping[str, Recipe], count: int, seed: int, first: Mapping[str, np.ndarray],
                ) -> list[dict[str, np.ndarray]]:
    """The inputs of steps 2 to ``count`` of a generation loop whose first step ``made`` drew with ``seed`` (``first``:
    that step's inputs). An encoder's output (``ENCODER_INPUTS``) is the first step's at each: the encoder ran once,
    and a seq2seq decoder holds what it computed of it at the first step (``passes/stateless.held_states``)."""
    if not isinstance(count, int | np.integer) or count < 1:
        raise IrToolsError(f"steps: give a whole number of 1 or more, got {count!r}", code="E-USAGE")
    encoded = {name: first[name] for name in made if name.startswith(ENCODER_INPUTS) and name in first}
    return [{**draw(generation_step(made, step), seed + step), **encoded} for step in range(1, count)]


def draw(made: Mapping[str, Recipe], seed: int) -> dict[str, np.ndarray]:
    """The values of every recipe, drawn in the order given from one generator seeded with ``seed`` (0 or more)."""
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise IrToolsError(f"seed {seed!r}: give a whole number of 0 or more", code="E-USAGE")
    rng = np.random.default_rng(seed)
    out = {}
    for name, recipe in made.items():
        try:
            out[name] = recipe.draw(rng)
        except (MemoryError, ValueError):
            raise InputError(f"input '{name}' of shape {list(recipe.shape)} ({math.prod(recipe.shape)} elements) "
                             "does not fit in this machine's memory") from None
    return out


def recipes(graph: Graph, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, Recipe]:
    """How each input of ``graph`` is made, by name: dims from ``shapes`` (``--shape``), else the model's, else the
    defaults; values by how the graph uses the input, else by its name, else floats ~ N(0, 1) and integers in
    [-50, 50) (unsigned [0, 100)). E-USAGE for a name in ``shapes`` no input has (its shape would go unused)."""
    names = [input_name(graph, p) for p in graph.parameters()]
    aliases = input_aliases(graph)
    shapes = {aliases.get(name, name): shape for name, shape in shapes.items()}
    for name in shapes:
        if name not in names:
            raise IrToolsError(f"--shape {name}: the model has no input '{name}'{did_you_mean(name, names)}; its "
                               f"inputs: {', '.join(names)}", code="E-USAGE")
    made = _fitting(graph, shapes, _defaults(graph, shapes))
    fed = {param.id: shape for param, _, shape, _ in made.values()}  # (an index's rows may be another input's dim)
    out = {name: _boxes(graph, param, name, dtype, shape, dims, fed) or
           _sorted(graph, param, Recipe(name, dtype, shape, dims, *_values(graph, param, dtype.type, fed),
                                        sequence=None if name.startswith(ENCODER_INPUTS) else _sequence_axis(
                                            param, dtype.type)))
           for name, (param, dtype, shape, dims) in made.items()}
    if _states_keep_their_shape(graph):
        out = {name: replace(recipe, cumulative=False) for name, recipe in out.items()}
    past = max((_past_length(graph, param, shape) for param, _, shape, _ in made.values()), default=0)
    return {name: _after_past(recipe, past) if name not in shapes else recipe for name, recipe in out.items()}


#: Made: an input's Parameter, element type, shape and where its dims came from, by name.
_Made = dict[str, tuple[Layer, np.dtype, tuple[int, ...], str]]


def _made(graph: Graph, shapes: Mapping[str, tuple[int, ...]], defaults: _Defaults,
          params: list[Layer] | None = None) -> _Made:
    """Each input's shape (of ``params`` alone, where given): ``shapes``' (``--shape``), else the model's and
    ``defaults``."""
    made: _Made = {}
    for param in graph.parameters() if params is None else params:
        name = input_name(graph, param)
        dtype = _held_input_type(name, param)
        if name in shapes:
            shape, dims = tuple(shapes[name]), "--shape"
        else:
            shape, dims = _cache_positions_shape(graph, param, defaults) or _default_shape(
                param, name, dtype.type, defaults, _past_axis(graph, param))
        made[name] = (param, dtype, shape, dims)
    return made


def _fitting(graph: Graph, shapes: Mapping[str, tuple[int, ...]], defaults: _Defaults) -> _Made:
    """``_made``, where the model's shape rules refuse its inputs, with the first of ``_others`` they take: an audio
    model's samples (wav2vec2's first convolution, kernel 10, refuses 8; a log-mel front end's reflect pad of half a
    400-sample window too), a small ViT's side (its position embeddings fixed at its own image size). Where none is
    taken, the defaults', which the run then refuses, saying so."""
    made = _made(graph, shapes, defaults)
    varying = [param for name, (param, *_) in made.items() if name not in shapes and not _declared_static(param)]
    if not varying:
        return made  # (no input's shape comes from the defaults: a model of thousands of static inputs)
    refused = ""
    for other, how in _others(defaults):
        tried = {**made, **_made(graph, shapes, other, varying)}
        if tried == made:
            continue  # (no input takes that default)
        if not refused:
            refused = _refusal(graph, made) or ""
            if not refused:
                return made
        if _refusal(graph, tried) is None:  # (the note where the input's shape is not the defaults')
            with_note = replace(other, said=f"{defaults.said}, {how}: {refused})")
            noted = {**made, **_made(graph, shapes, with_note, varying)}
            return {name: noted[name] if tried[name][2] != made[name][2] else made[name] for name in made}
    return made


def _declared_static(param: Layer) -> bool:
    """Whether every dim of ``param`` is declared static (its shape is the model's, whatever the defaults)."""
    declared = parse_shape(param.attrs.get("shape", ""))
    return declared is not None and all(d.is_static for d in declared)


def _others(defaults: _Defaults) -> Iterator[tuple[_Defaults, str]]:
    """The defaults ``_fitting`` tries after ``defaults``, in order, each with how it came (the refusal of
    ``defaults`` follows): a default sequence (not one ``--shape`` gave) doubled up to ``_LONGEST``, then each
    image of ``_OTHER_IMAGES``."""
    if defaults.said == _BY_DEFAULT:
        length = 2 * defaults.sequence
        while length <= _LONGEST:
            yield replace(defaults, sequence=length), f"doubled until the model took it (at {defaults.sequence}"
            length *= 2
    tried = {field: (getattr(defaults, field), *others) for field, others in _OTHER_IMAGES.items()}
    for values in itertools.product(*tried.values()):
        changed = {field: n for field, n in zip(tried, values, strict=True) if n != getattr(defaults, field)}
        if changed:
            yield replace(defaults, **changed), ", ".join(f"{field} {n}" for field, n in changed.items()) + \
                " the first the model took (at " + ", ".join(f"{field} {getattr(defaults, field)}" for field in changed)


#: The longest default sequence ``_fitting`` tries: 2 s of 16 kHz audio.
_LONGEST = 1 << 15


def _refusal(graph: Graph, made: _Made) -> str | None:
    """What first refuses inputs of ``made``'s shapes in the model's shape rules (a layer, its line and why), if
    anything does."""
    walker = _FedShapes(graph, {param.id: shape for param, _, shape, _ in made.values()})
    walker.run()
    found = next((d for d in walker.result.diagnostics if d.severity == "error" and d.code == "E-OP"), None)
    if found is None:
        return None
    layer = graph.layer(found.loc.layer_id) if found.loc.layer_id and graph.has_layer(found.loc.layer_id) else None
    return found.message if layer is None else f"{layer.type} '{layer.name}' (line {layer.line}): {found.message}"


def static_when_fed(graph: Graph, inputs: Mapping[str, np.ndarray]) -> set[PortKey]:
    """The output ports of ``graph`` whose dims its inputs' shapes in ``inputs`` fix (by our shape rules): where a
    tensor's dims differ between two runs fed inputs of one shape, the models differ there, unless a dim follows from
    the data (the boxes an NMS keeps), which these leave out."""
    walker = _FedShapes(graph, {p.id: np.shape(inputs[input_name(graph, p)]) for p in graph.parameters()
                                if input_name(graph, p) in inputs})
    walker.run()
    return {key for key, t in walker.env.items() if _static(t)}


class _FedShapes(ShapeWalker):
    """Shape propagation of ``graph`` with each input of ``fed`` (by Parameter id) of that static shape; what
    OpenVINO's shape inference lets pass but its kernels refuse (``_KERNEL_REFUSALS``) is refused too."""

    def __init__(self, graph: Graph, fed: Mapping[str, tuple[int, ...]]):
        super().__init__(graph)
        self.fed = fed

    def run_node(self, layer: Layer, args: list[TensorType]) -> list[TensorType]:
        outputs = super().run_node(layer, args)
        refusal = _KERNEL_REFUSALS.get(layer.type)
        found = refusal(args, outputs) if refusal is not None and args and outputs else None
        if found:
            self.result.diagnostics.append(Diagnostic("error", "E-OP", found, layer.loc))
        shape = self.fed.get(layer.id)
        return outputs if shape is None else [self.intern(TensorType(outputs[0].element, shape_from_ints(shape)))]


def _static(*types: TensorType) -> bool:
    return all(t.shape is not None and all(d.is_static for d in t.shape) for t in types)


def _recounted(args: list[TensorType], outputs: list[TensorType]) -> str | None:
    """A Reshape of static data into a static shape of another element count: OpenVINO's shape inference does not
    check it where the target holds a special zero (MaxViT's window partition at another image size)."""
    data, out = args[0], outputs[0]
    if not _static(data, out) or math.prod(d.lo for d in data.shape) == math.prod(d.lo for d in out.shape):
        return None
    return f"[{','.join(map(str, data.shape))}] reshaped into [{','.join(map(str, out.shape))}], another element " \
        "count (OpenVINO's shape inference lets a special zero pass; its CPU refuses it)"


def _input_size(states: int) -> Callable[[list[TensorType], list[TensorType]], str | None]:
    """A recurrent sequence (``states`` of them) whose X's features are not W's input size: OpenVINO's shape
    inference does not compare them (a CRNN's GRU fed another image height)."""
    def refused(args: list[TensorType], outputs: list[TensorType]) -> str | None:
        x, w = args[0], args[2 + states] if len(args) > 2 + states else None
        if w is None or not _static(x, w) or len(x.shape) != 3 or len(w.shape) != 3 or x.shape[2] == w.shape[2]:
            return None
        return f"X of {x.shape[2]} features into W of input size {w.shape[2]} (OpenVINO's shape inference does not " \
            "compare them; its CPU refuses them)"
    return refused


#: What OpenVINO's shape inference lets pass and its kernels refuse, by op type (``_FedShapes``).
_KERNEL_REFUSALS = {"Reshape": _recounted, "GRUSequence": _input_size(1), "RNNSequence": _input_size(1),
                    "LSTMSequence": _input_size(2)}


def _states_keep_their_shape(graph: Graph) -> bool:
    """Whether ``graph`` holds state, none of which grows with the sequence (each variable dynamic in its batch alone:
    Mamba's convolution and SSM states, no KV cache). Its mask then covers a step's tokens alone, as optimum-intel
    feeds Mamba's later steps (a mask of the past and the token: OpenVINO fails in a Broadcast)."""
    shapes = [variable_shape(read) for read in graph.by_type("ReadValue")]
    return bool(shapes) and all(shape is not None and all(d.is_static for d in shape[1:]) for shape in shapes)


def _boxes(graph: Graph, param: Layer, name: str, dtype: np.dtype, shape: tuple[int, ...], dims: str,
           fed: Mapping[str, tuple[int, ...]]) -> Recipe | None:
    """The recipe of a float [R, 4] input that is a ROIAlign's rois (its input 1), or [R, 5] a ROIPooling's or
    PSROIPooling's (a batch index first), where that layer's image size is known (declared, or the shape its image
    input is fed) and its spatial_scale above 0: boxes [x1, y1, x2, y2] inside the image, in its coordinates over the
    scale (ROIPooling's bilinear ones in [0, 1], PSROIPooling's in [0, 1] over the scale), after a batch index below
    the image's batch for the pooling ops; None for any other input. N(0, 1) values are boxes about the origin:
    half-pixel ones of a negative size, whose bins hold no sample (NaN in OpenVINO and the reference alike), and the
    pooling ops' batch indices out of range."""
    if dtype.kind != "f" or len(shape) != 2 or shape[1] not in (4, 5):
        return None
    kinds, first = (("ROIAlign",), 2) if shape[1] == 4 else (("ROIPooling", "PSROIPooling"), 0)  # (dims needed)
    for layer, index in _uses(graph, param):
        if index != 1 or not any(layer.is_a(kind) for kind in kinds):
            continue
        image = list(layer.inputs[0].dims or ())
        source = graph.producer(layer.id, layer.inputs[0].id)
        if len(image) == 4 and min(image[first:]) <= 0 and source is not None and source[0].id in fed:
            image = list(fed[source[0].id])
        try:
            scale = float(layer.attrs.get("spatial_scale", "0"))
        except ValueError:
            continue
        if len(image) != 4 or min(image[first:]) <= 0 or not 0.0 < scale < math.inf:
            continue
        bilinear = "bilinear" in (layer.attrs.get("method"), layer.attrs.get("mode"))
        unit = (1.0 if layer.is_a("ROIPooling") else 1.0 / scale) if bilinear else 0.0
        extent = (unit, unit) if bilinear else (image[3] / scale, image[2] / scale)
        batches = image[0] if shape[1] == 5 else 0
        normalized = "in [0, 1]" if layer.is_a("ROIPooling") else "times the scale in [0, 1]"
        where = (f"the image, normalized as {layer.type} bilinear takes them ({normalized})" if bilinear else
                 f"the {image[3]}x{image[2]} image")
        why = (f"boxes [x1, y1, x2, y2] inside {where} of {layer.type} '{layer.name}' (line {layer.line}) at its "
               f"spatial_scale {scale:g}: corners uniform in [0, {extent[0]:g}] x [0, {extent[1]:g}]"
               + (f", after a batch index in [0, {batches})" if batches else ""))
        return Recipe(name, dtype, shape, dims, BOXES, why, extent=extent, batches=batches)
    return None


def _sorted(graph: Graph, param: Layer, recipe: Recipe) -> Recipe:
    """``recipe``, sorted along its last axis where an op requires it so (``_SORTED_INPUTS``)."""
    if recipe.kind not in (NORMAL, UNIFORM):
        return recipe
    for layer, index in _uses(graph, param):
        if _SORTED_INPUTS.get(layer.type) == index:
            return replace(recipe, ordered=True, why=f"{recipe.why}, sorted along the last axis (the "
                                       f"{'sequence' if index == 0 else 'segment ids'} of {layer.type} '{layer.name}' "
                                       f"(line {layer.line}))")
    return recipe


def _past_length(graph: Graph, param: Layer, shape: tuple[int, ...]) -> int:
    """The length of the past ``param`` holds where it is a KV cache's past fed as an input (``_past_axis``): its dim
    on that axis; 0 for any other input."""
    axis = _past_axis(graph, param)
    return 0 if axis is None or axis >= len(shape) else shape[axis]


def _past_axis(graph: Graph, param: Layer) -> int | None:
    """The axis of the past where ``param`` is a KV cache's past fed as an input (``migrate --stateless``'s form, a
    part cut at a state's ReadValue): a float input a Concat puts first, before the new keys or values, into a cache
    (``_holds_cache``), directly or after a Gather reorders it (by a beam index); the Concat's axis, counted from the
    start. None for any other input."""
    et = element_type(param.attrs.get("element_type", ""))
    declared = parse_shape(param.attrs.get("shape", "..."))
    if et is None or et.numpy is None or np.dtype(et.numpy).kind != "f" or declared is None:
        return None
    for consumer, index in _uses(graph, param):
        joined = list(_uses(graph, consumer)) if consumer.is_a("Gather") and index == 0 else [(consumer, index)]
        cache = next((c for c, i in joined if c.is_a("Concat") and i == 0 and _holds_cache(graph, c)), None)
        if cache is not None:
            axis = int(cache.attrs.get("axis", 0))
            axis = axis + len(declared) if axis < 0 else axis
            return axis if 0 <= axis < len(declared) else None
    return None


def _holds_cache(graph: Graph, concat: Layer) -> bool:
    """Whether a Concat is a KV cache's: an output of the model (the present), or read as an attention's key or value
    within ``_CACHE_DEPTH`` layers (``_reached``: a part cut out of a stateful model at its ReadValue, whose present was
    an Assign's, not an output; grouped-query attention repeats the cache's heads on the way)."""
    if any(graph.layer(e.to_layer).is_a("Result") for e in graph.consumers(concat.id, concat.outputs[0].id)):
        return True
    return _reached(graph, concat, _CACHE_DEPTH,
                    lambda layer, index: layer.is_a("ScaledDotProductAttention") and index in (1, 2)) is not None


def _after_past(recipe: Recipe, past: int) -> Recipe:
    """``recipe`` for an inference fed a past of length ``past`` (section 8a's generation step, at any length): a
    mask of ones covers the past and the sequence, positions start after the past; the rest as made."""
    axis = recipe.sequence
    if not past or axis is None or recipe.kind not in (ONES, POSITIONS):
        return recipe
    if recipe.kind == POSITIONS:
        return replace(recipe, start=past, why=f"{recipe.why}; from {past}, after the past")
    shape = recipe.shape[:axis] + (recipe.shape[axis] + past,) + recipe.shape[axis + 1:]
    return replace(recipe, shape=shape, dims=f"{recipe.dims}; the past ({past}) and the sequence")


def _sequence_axis(param: Layer, dtype: type) -> int | None:
    """Axis 1 of a [batch, sequence] input, or of a [batch, sequence, features] float one, where it is dynamic; the
    one axis of positions in the cache (``_CACHE_POSITIONS``)."""
    declared = parse_shape(param.attrs.get("shape", "..."))
    if _is_cache_positions(param, declared):
        return 0
    if declared is None or not (len(declared) == 2 or (len(declared) == 3 and np.issubdtype(dtype, np.floating))):
        return None
    return None if declared[1].is_static else 1


def generation_step(made: Mapping[str, Recipe], step: int) -> dict[str, Recipe]:
    """The recipes of step ``step`` of a generation loop over a stateful model, as optimum-intel's runs it: step 0 is
    the prompt (``made``); each later step adds one token. An input with a sequence axis then holds that one token
    (token ids drawn afresh, positions continuing after the past), but an attention mask (ONES), which covers the
    past and the new token (unless not ``cumulative``: Mamba's); the others (a beam index) stay as made."""
    if step == 0:
        return dict(made)
    out = {}
    for name, recipe in made.items():
        axis = recipe.sequence
        if axis is None:
            out[name] = recipe
            continue
        past = recipe.shape[axis] + step - 1
        length = past + 1 if recipe.kind == ONES and recipe.cumulative else 1
        shape = recipe.shape[:axis] + (length,) + recipe.shape[axis + 1:]
        said = f"step {step}: " + ("the past and the new token" if length > 1 else "one new token")
        out[name] = replace(recipe, shape=shape, dims=said, start=past if recipe.kind == POSITIONS else 0)
    return out


@dataclass(frozen=True)
class _Defaults:
    batch: int
    sequence: int
    said: str  # where they came from
    channels: int = DEFAULT_CHANNELS
    frames: int = DEFAULT_FRAMES
    side: int = DEFAULT_SIDE


def _defaults(graph: Graph, shapes: Mapping[str, tuple[int, ...]]) -> _Defaults:
    """Batch and sequence: those of the first ``--shape`` given for a [batch, sequence] input, else 1 and 8."""
    for param in graph.parameters():
        name = input_name(graph, param)
        given = shapes.get(name)
        declared = parse_shape(param.attrs.get("shape", "..."))
        if given is not None and len(given) == 2 and declared is not None and len(declared) == 2 \
                and not any(d.is_static for d in declared):
            return _Defaults(given[0], given[1], f"as --shape {name}")
    return _Defaults(DEFAULT_BATCH, DEFAULT_SEQUENCE, _BY_DEFAULT)


_BY_DEFAULT = "by default"


def _default_shape(param: Layer, name: str, dtype: type, defaults: _Defaults, past: int | None
                   ) -> tuple[tuple[int, ...], str]:
    """The shape of an input without ``--shape``: static dims as declared; each dynamic dim that has a role
    (``_roles``) its default, within the model's bounds; any other its lower bound when that is at least 1, else 1
    when its upper bound admits it; an unbounded one must be given. ``past``: the axis of the past where the input
    is a KV cache's past (``_past_axis``)."""
    text = param.attrs.get("shape", "")
    declared = parse_shape(text)
    if declared is None:
        raise InputError(f"input '{name}' has a dynamic rank: give its shape with --shape {name}:D1,D2,...")
    roles = _roles(declared, dtype, past)
    shape, said = [], []
    for i, d in enumerate(declared):
        if d.is_static:
            shape.append(d.lo)
            continue
        role = roles.get(i)
        if role is not None:
            n = {"batch": defaults.batch, "sequence": defaults.sequence, "past": defaults.sequence,
                 "channels": defaults.channels, "frames": defaults.frames, "height": defaults.side,
                 "width": defaults.side}[role]
            n = max(d.lo, n) if d.hi is None else min(max(d.lo, n), d.hi)
            said.append(f"{role} {n}")
        elif d.lo >= 1 or d.hi is not None:
            n = d.lo if d.lo >= 1 else min(1, d.hi or 0)
            said.append(f"dim {i} {n} (its bound)")
        else:
            raise InputError(f"input '{name}' has a dynamic shape [{text}] whose dim {i} has no default: give one "
                             f"with --shape {name}:D1,D2,... (the library's random_inputs: shapes={{{name!r}: "
                             "(D1, D2, ...)})")
        shape.append(n)
    if not said:
        return tuple(shape), "the model's"
    return tuple(shape), ", ".join(said) + f" {defaults.said}"


def _roles(declared: list[Dim], dtype: type, past: int | None) -> dict[int, str]:
    """What each dim of an input of ``declared`` dims is, where that gives a dynamic one a default: dim 0 the
    batch; a KV cache's past (``past``: its axis) its length; dim 1 of a rank-2 input (token ids, masks, positions)
    or of a rank-3 float input ([batch, sequence, features]) the sequence, or dim 2 of a rank-3 float input whose dim
    1 is static ([batch, features, frames]: a 1-D convolution's, whisper's log-mel frames); the last dim of a [batch,
    1, 1, sequence] input (an extended attention mask, added to the scores) too; the other dims of a rank-4 input of
    pixels (float or u8) an image's: [batch, channels, height, width], or [batch, height, width, channels] where the
    last is static and at most 4 and dim 1 dynamic (a layout OpenVINO's preprocessing reads); of a rank-5 one a
    video's, [batch, channels, frames, height, width]; where the height or the width is dynamic. Else dim 1 of a
    float input of rank 4 or more whose later dims are static: [batch, sequence, heads, size], a transformer's
    queries cut out of its model before they are transposed."""
    rank, floating = len(declared), np.issubdtype(dtype, np.floating)
    pixels = floating or np.issubdtype(dtype, np.uint8)
    roles = {0: "batch"}
    if past is not None:
        roles[past] = "past"
    elif rank == 2 or (rank == 3 and floating and not declared[1].is_static):
        roles[1] = "sequence"
    elif rank == 3 and floating:
        roles[2] = "sequence"
    elif rank == 4 and all(d.is_static and d.lo == 1 for d in declared[1:3]):
        roles[3] = "sequence"
    elif rank == 4 and pixels:
        last_channels = declared[3].is_static and declared[3].lo <= 4 and not declared[1].is_static
        image = {1: "height", 2: "width", 3: "channels"} if last_channels else {1: "channels", 2: "height", 3: "width"}
        roles.update(image if _sides_dynamic(declared, image) else {})
    elif rank == 5 and pixels:
        video = {1: "channels", 2: "frames", 3: "height", 4: "width"}
        roles.update(video if _sides_dynamic(declared, video) else {})
    if len(roles) == 1 and floating and rank >= 4 and not declared[1].is_static and \
            all(d.is_static for d in declared[2:]):
        roles[1] = "sequence"
    return roles


def _sides_dynamic(declared: list[Dim], image: dict[int, str]) -> bool:
    """Whether an image's ``declared`` dims leave its height or width dynamic, as an image input's do: not a static
    [?, ?, 4, 32] (a transformer's queries, [batch, sequence, heads, size], cut out of its model)."""
    return any(not declared[i].is_static for i, role in image.items() if role in ("height", "width"))


def _is_cache_positions(param: Layer, declared: list[Dim] | None) -> bool:
    """Whether ``param`` is transformers' ``cache_position``, of one dynamic axis."""
    return declared is not None and len(declared) == 1 and not declared[0].is_static and \
        _CACHE_POSITIONS in _names(param)


def _cache_positions_shape(graph: Graph, param: Layer, defaults: _Defaults) -> tuple[tuple[int, ...], str] | None:
    """The shape of positions in the cache (``_is_cache_positions``; else None): the length the graph tests them for,
    where it does, else the sequence's. optimum-intel's Mamba tells its prompt by positions of the convolution's
    width (its first step's are 0 .. width - 1, whatever the prompt's length; others, the sequence's length, fail in
    OpenVINO's Broadcast), and each later step by one position."""
    declared = parse_shape(param.attrs.get("shape", "..."))
    if not _is_cache_positions(param, declared):
        return None
    tested = _tested_length(graph, param)
    if tested is None:
        n, said = defaults.sequence, f"sequence {defaults.sequence} {defaults.said}"
    else:
        n, test = tested
        said = f"{n}: the length {test.type} '{test.name}' (line {test.line}) tests them for"
    dim = declared[0]
    n = max(dim.lo, n) if dim.hi is None else min(max(dim.lo, n), dim.hi)
    return (n,), said


def _tested_length(graph: Graph, param: Layer) -> tuple[int, Layer] | None:
    """The length a rank-1 ``param`` is compared with (ShapeOf, then ops that keep the one number, then Equal with a
    Const of one element, at least 1), and that Equal; None where the graph compares it with none."""
    frontier = [c for c, _ in _uses(graph, param) if c.is_a("ShapeOf")]
    seen = {layer.id for layer in frontier}
    while frontier:
        layer = frontier.pop()
        for edge in graph.consumers(layer.id, layer.output_ids()[0]):
            consumer = graph.layer(edge.to_layer)
            if consumer.is_a("Equal"):
                other = graph.producer(consumer.id, consumer.input_ids()[1 - consumer.input_ids().index(edge.to_port)])
                if other is not None and other[0].is_a("Const"):
                    value = graph.const_array(other[0])
                    if value.size == 1 and value.item() >= 1:
                        return int(value.item()), consumer
            elif any(consumer.is_a(t) for t in _ONE_NUMBER) and consumer.id not in seen:
                seen.add(consumer.id)
                frontier.append(consumer)
    return None


def _values(graph: Graph, param: Layer, dtype: type, fed: Mapping[str, tuple[int, ...]]
            ) -> tuple[str, str, int, int, str]:
    """(kind, why, low, high, unfit) of an input's values: by how the graph uses it first (an index stays within the
    rows it indexes, a sequence's lengths within its steps, a beam index within the batch of the state it reorders;
    positions reach RoPE's Sin/Cos; an input converted to boolean is a mask; a Pad's pads are small and not
    negative), by its name where the graph does not say (or, for an index, to choose among the rows), else random
    (``unfit``: a layer input of such values whose fitting values the graph does not tell, ``_unfit_use``). ``fed``:
    the shape of each input, by layer id (the rows of a dynamic dim an index reads from an input)."""
    integer = np.issubdtype(dtype, np.integer)
    names = _names(param)
    by_name = next((_BY_NAME[n] for n in names if n in _BY_NAME), None)
    if integer:
        for consumer, index in _uses(graph, param):
            if _indexes(consumer, index) and _reads_state(graph, consumer):
                return (BATCH, f"0, 1, ...: a beam index (reorders the batch of a state, Gather '{consumer.name}')", 0,
                        0, "")
        rows, gather = _index_rows(graph, param, fed)
        if gather is not None:
            where = _within(rows, gather)
            if by_name is not None and by_name[0] in (POSITIONS, ZEROS, BATCH):
                kind, what = by_name
                return kind, f"{_SAY[kind]}: {what} (by its name), within {where}", 0, rows, ""
            return UNIFORM, f"uniform in [0, {rows}): {where}", 0, rows, ""
        rope = _reaches_rope(graph, param)
        if rope is not None:
            return (POSITIONS, f"{_SAY[POSITIONS]}: positions (reach {rope.type} '{rope.name}': rotary embedding)", 0,
                    0, "")
        shaped = _shaped(graph, param)
        if shaped is not None:
            return (ONES, f"ones: dims of the shape {shaped.type} '{shaped.name}' (line {shaped.line}) makes, the "
                    "default batch", 0, 0, "")
        mask = next((c for c, _ in _uses(graph, param) if _to_boolean(c)), None)
        if mask is not None:
            return ONES, f"ones: a mask (converted to boolean by '{mask.name}')", 0, 0, ""
        pad = next((c for c, i in _uses(graph, param) if c.is_a("Pad") and i in (1, 2)), None)
        if pad is not None:  # (pads of [-50, 50) leave a negative dim, and OpenVINO fails: nothing is compared)
            return (UNIFORM, f"uniform in [0, {_PADS}): pads of {pad.type} '{pad.name}' (line {pad.line})", 0, _PADS,
                    "")
    if by_name is not None:
        kind, what = by_name
        return kind, f"{_SAY[kind]}: {what} (by its name)", 0, 0, ""
    unfit = _unfit_use(graph, param)
    if np.issubdtype(dtype, np.floating):
        return NORMAL, "normal(0, 1)", 0, 0, unfit
    low, high = (0, 100) if np.issubdtype(dtype, np.unsignedinteger) or dtype is np.bool_ else (-50, 50)
    return UNIFORM, f"uniform in [{low}, {high})", low, high, unfit


def _within(rows: int, layer: Layer) -> str:
    """What [0, ``rows``) of an index into ``layer`` is: its rows, or the lengths of its steps (``_lengths_axis``)."""
    what = f"lengths of the {rows - 1} steps" if _lengths_axis(layer) is not None else f"the {rows} rows"
    return f"{what} of {layer.type} '{layer.name}' (line {layer.line})"


def _unfit_use(graph: Graph, param: Layer) -> str:
    """The first layer input ``param`` feeds whose fitting values the graph does not tell, for an input drawn at
    random: one whose values the layer's shape inference reads (``OpSpec.value_inputs``: a Reshape's target shape, a
    TopK's k, a Range's bounds, a Roll's axes, a Multinomial's sample count), one that no spec says fits only some
    values (``_UNFIT_INPUTS``: an EmbeddingBagOffsetsSum's offsets), or indices or lengths along a dim not known here
    (``_index_rows`` found none: a sequence whose steps are a transposed input's dynamic dim); as "Reshape 'r' (line
    9) input 1, ...", "" where it feeds none. A random value there fits by chance (OpenVINO refuses a target
    shape of -11, a sequence length past its steps gives its own state), and only the caller can say what does."""
    for layer, index in _uses(graph, param):
        spec = lookup(layer.type, layer.version)
        where = f"{layer.type} '{layer.name}' (line {layer.line}) input {index}"
        if spec is not None and index in spec.value_inputs:
            return f"{where}, whose values its shape inference reads"
        unfit = _UNFIT_INPUTS.get(layer.type, {}).get(index)
        if unfit is not None:
            return f"{where}, {unfit}"
        if _indexes(layer, index):
            return f"{where}, {'lengths' if _lengths_axis(layer) is not None else 'indices'} along a dim not known here"
    return ""


def unfitted(made: Mapping[str, Recipe]) -> list[str]:
    """Each seeded input drawn at random into a layer input whose fitting values the graph does not tell
    (``Recipe.unfit``), as "'k' (uniform in [-50, 50)) into TopK 't' (line 9) input 1, ...": what to name where the
    model then fails."""
    return [f"'{r.name}' ({r.why}) into {r.unfit}" for r in made.values() if r.unfit]


_SAY = {ONES: "ones", ZEROS: "zeros", POSITIONS: "0, 1, ... on the last axis", BATCH: "0, 1, ..."}


def _names(param: Layer) -> list[str]:
    """Every name of an input: its tensor names and its layer name."""
    port = param.outputs[0] if param.outputs else None
    return [*tensor_names(port.names if port else None), param.name]


def _uses(graph: Graph, param: Layer) -> Iterator[tuple[Layer, int]]:
    """(layer, input index) of every use of ``param``'s values, directly or through ops that carry them unchanged
    (``_CARRIERS``: a Convert to boolean is a use, not a carrier)."""
    frontier, seen = [param], {param.id}
    while frontier:
        layer = frontier.pop()
        for port in layer.outputs:
            for edge in graph.consumers(layer.id, port.id):
                consumer = graph.layer(edge.to_layer)
                index = consumer.inputs.index(consumer.input(edge.to_port))
                yield consumer, index
                carries = any(consumer.is_a(t) for t in _CARRIERS) and index == 0 and not _to_boolean(consumer)
                if carries and consumer.id not in seen:
                    seen.add(consumer.id)
                    frontier.append(consumer)


def _to_boolean(layer: Layer) -> bool:
    return layer.is_a("Convert") and layer.attrs.get("destination_type") == "boolean"


def _indexes(layer: Layer, index: int) -> bool:
    """Whether input ``index`` of ``layer`` holds indices into its input 0."""
    spec = lookup(layer.type, layer.version)
    return spec is not None and index == spec.index_input


def _reads_state(graph: Graph, layer: Layer) -> bool:
    """Whether ``layer``'s input 0 is a ReadValue's output (the state a beam index reorders)."""
    found = graph.producer(layer.id, layer.inputs[0].id) if layer.inputs else None
    return found is not None and found[0].type.lower() == "readvalue"  # unmodelled: OpenVINO's spelling rule


def _index_rows(graph: Graph, param: Layer, fed: Mapping[str, tuple[int, ...]]) -> tuple[int, Layer | None]:
    """The fewest values (rows an index may take: [0, rows)) of any layer ``param`` indexes, and that layer (None: it
    indexes nothing). The rows are the dim of the indexed axis when known (``_index_axis``): static, or dynamic in
    an input fed that layer (``fed``: each input's shape by layer id; the stateless form of a KV cache, whose batch a
    beam index reorders), else unknown (not another dim's: the batch of [?, 2, ?, 32] is not its 2 heads); the
    smallest static dim of the tensor indexed where the axis is not known (every index valid whatever the axis).
    Lengths (``_lengths_axis``) take one value more: 0 to the dim."""
    found: tuple[int, Layer | None] = (0, None)
    for layer, index in _uses(graph, param):
        if not _indexes(layer, index):
            continue
        declared = layer.inputs[0].dims or ()
        dims = [d for d in declared if d > 0]
        axis = _index_axis(graph, layer)
        if axis is not None and 0 <= axis < len(declared):
            source = graph.producer(layer.id, layer.inputs[0].id)
            shape = fed.get(source[0].id) if source is not None else None
            dims = [declared[axis]] if declared[axis] > 0 else [shape[axis]] if shape and axis < len(shape) else []
        if dims and _lengths_axis(layer) is not None:
            dims = [min(dims) + 1]
        if dims and (found[1] is None or min(dims) < found[0]):
            found = (min(dims), layer)
    return found


def _lengths_axis(layer: Layer) -> int | None:
    """The axis of input 0 along which ``layer``'s index input holds lengths (``OpSpec.lengths_axis``: a sequence's
    steps, each in [0, dim]), else None (indices)."""
    spec = lookup(layer.type, layer.version)
    return None if spec is None else spec.lengths_axis


def _index_axis(graph: Graph, layer: Layer) -> int | None:
    """The axis of input 0 a layer's index input runs along: a Gather's when its input 2 is a Const (normalized
    against the data's rank), the axis of the lengths an op declares (``_lengths_axis``), else None (not known)."""
    if not layer.is_a("Gather") or len(layer.inputs) < 3:
        return _lengths_axis(layer)
    found = graph.producer(layer.id, layer.inputs[2].id)
    if found is None or not found[0].is_a("Const"):
        return None
    axis = int(np.asarray(graph.const_array(found[0])).reshape(-1)[0])
    return axis + len(layer.inputs[0].dims or ()) if axis < 0 else axis


def _reaches_rope(graph: Graph, param: Layer) -> Layer | None:
    """The Sin or Cos ``param``'s values reach within ``_ROPE_DEPTH`` layers (``_reached``); None if none: a batch size
    cut out of a ShapeOf reached Sin as the rotary cos's broadcast shape, was taken for positions and fed 0 (an empty
    batch), before a shape's input stopped the walk."""
    return _reached(graph, param, _ROPE_DEPTH, lambda layer, _: layer.is_a("Sin") or layer.is_a("Cos"))


def _reached(graph: Graph, start: Layer, depth: int, wanted: Callable[[Layer, int], bool]) -> Layer | None:
    """The first layer ``start``'s values reach within ``depth`` layers that is ``wanted`` (a layer and the input
    index they reach it at), not through a shape (ShapeOf), an index or an input whose values give only the output's
    shape or where it reads (a Broadcast's target shape, a Slice's bounds: a ``value_inputs`` but a Range's,
    ``_shaping``): the values stop there; None if none."""
    frontier, seen = [start], {start.id}
    for _ in range(depth):
        following = []
        for layer in frontier:
            for port in layer.outputs:
                for edge in graph.consumers(layer.id, port.id):
                    consumer = graph.layer(edge.to_layer)
                    index = consumer.inputs.index(consumer.input(edge.to_port))
                    if wanted(consumer, index):
                        return consumer
                    if consumer.id in seen or consumer.is_a("ShapeOf") or consumer.is_a("Result") or \
                            _indexes(consumer, index) or _shaping(consumer, index):
                        continue
                    seen.add(consumer.id)
                    following.append(consumer)
        frontier = following
    return None


def _shaped(graph: Graph, param: Layer) -> Layer | None:
    """The Broadcast or Reshape whose output shape ``param``'s value is one dim of (``_SHAPE_INPUTS``): one number,
    carried (``_uses``) into a Concat with other dims; None if none. A dim cut out of a ShapeOf, as an extracted
    part's input. (A whole shape fed stays random, saying so: ``_unfit_use``.)"""
    dims = param.outputs[0].dims if param.outputs else None
    if dims is None or any(d != 1 for d in dims):
        return None
    frontier = [consumer for consumer, _ in _uses(graph, param) if consumer.is_a("Concat")]
    seen = {layer.id for layer in frontier}
    while frontier:
        for consumer, index in _uses(graph, frontier.pop()):
            if _SHAPE_INPUTS.get(consumer.type) == index:
                return consumer
            if consumer.is_a("Concat") and consumer.id not in seen:
                seen.add(consumer.id)
                frontier.append(consumer)
    return None


def _shaping(layer: Layer, index: int) -> bool:
    """Whether input ``index`` of ``layer`` is one its shape inference reads whose values do not become the output's
    (all but a Range's bounds, which do)."""
    spec = lookup(layer.type, layer.version)
    return spec is not None and index in spec.value_inputs and not layer.is_a("Range")


def describe(graph: Graph, inputs: Mapping[str, np.ndarray], made: Mapping[str, Recipe],
             given: str) -> list[dict[str, object]]:
    """The report's entry of each input (``Recipe.describe``); one no recipe made (``--inputs``, a library call's)
    has its dims and values from ``given``, and says how many of its values fall outside the rows it indexes (a
    token id past the embedding: OpenVINO answers there as it does, another release otherwise)."""
    params = {input_name(graph, p): p for p in graph.parameters()}
    fed = {p.id: np.shape(inputs[name]) for name, p in params.items() if name in inputs}
    out = []
    for name, value in inputs.items():
        recipe = made.get(name)
        if recipe is not None and recipe.shape == np.shape(value):
            out.append(recipe.describe())
            continue
        values = given
        rows, gather = _index_rows(graph, params[name], fed) if name in params else (0, None)
        if gather is not None and np.asarray(value).dtype.kind in "iu":
            least = 0 if _lengths_axis(gather) is not None else -rows  # (a negative index counts from the end)
            outside = int(np.count_nonzero((value < least) | (value >= rows)))
            if outside:
                values += (f"; {outside} of {np.size(value)} outside {_within(rows, gather)}, where OpenVINO's answer "
                           "is its own")
        values += _beyond_i32(np.asarray(value))
        out.append({"name": name, "element_type": _type_name(np.asarray(value).dtype), "shape": list(np.shape(value)),
                    "dims": given, "values": values})
    return out


_I32 = np.iinfo(np.int32)


def _beyond_i32(value: np.ndarray) -> str:
    """For an i64 or u64 input given values beyond i32's range, how many, and what OpenVINO CPU computes of the first:
    every op of its graph but a Convert to a float type (and a Result the input feeds directly) takes the value's low
    32 bits, sign-extended (2^33 + 5 added 1 gives 6, a Gather at 2^32 + 3 reads row 3; measured on 2026.4: Add,
    Multiply, Divide, Abs, Reshape, Concat, Tile, Transpose, Gather, TopK, CumSum, ReduceSum, Select, a Convert to
    boolean or i32 alike), where the reference computes the whole value; "" for any other input. Whatever computes on
    it then differs beyond any tolerance: compare FAILs there, for the value fed, not the model."""
    if value.dtype not in (np.int64, np.uint64) or not value.size:
        return ""
    beyond = (value > _I32.max) | (value < _I32.min) if value.dtype == np.int64 else value > _I32.max
    count = int(np.count_nonzero(beyond))
    if not count:
        return ""
    first = value[np.unravel_index(int(np.argmax(beyond)), value.shape)] if value.shape else value
    return (f"; {count} of {value.size} beyond i32 (the first {first}), which OpenVINO CPU computes in their low 32 "
            f"bits ({first} as {int(np.asarray(first).astype(np.int32))}) in every op but a Convert to a float type: "
            "where they reach another, OpenVINO and the reference differ")


def _type_name(dtype: np.dtype) -> str:
    """The IR's name of a numpy type (``i64``; ``BF16``: bf16), else numpy's."""
    try:
        return element_type_of(dtype)
    except AttrError:
        return str(dtype)


def check_inputs(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every model input present, with a compatible rank and dims, no floats where the model takes integers or
    booleans (token ids of 1.7: which one is meant?) and no integers or booleans where it takes floats (the reference
    computed in integers, and compare passed on a difference of 8.6 its bound could not hold); extra names are
    errors too. Returns them as the model takes them: floats given for a float input of another width (numpy's
    default float64 for an f32 input) in the input's type, as OpenVINO converts them, so that the reference computes
    in the model's type, not in the one given; for a bf16 input, rounded to bf16 (``base.packed.to_bf16``: OpenVINO
    is fed their bits, ``openvino_infer._fed``); integers or booleans given for an integer or boolean input of
    another type (int32 token ids or masks for an i64 input) in the input's type, as OpenVINO converts them, where
    every value fits it (``_as_integers``)."""
    if not isinstance(inputs, Mapping):
        raise InputError(f"inputs are a mapping of input name to array, not {type(inputs).__name__}")
    names = {input_name(graph, p): p for p in graph.parameters()}
    missing = sorted(set(names) - set(inputs))
    extra = sorted(set(inputs) - set(names))
    if missing or extra:
        raise InputError(f"inputs do not match the model: missing {missing}, unexpected {extra}")
    taken = dict(inputs)
    for name, param in names.items():
        et = element_type(param.attrs.get("element_type", ""))
        wanted = _held_input_type(name, param) if et is not None else None
        given = np.asarray(inputs[name]).dtype
        if given.kind not in "biufc":  # (bf16, f8 or i4 arrays numpy saved as raw bytes, strings, objects)
            raise InputError(f"input '{name}' holds values of numpy type {given.str}, not numbers numpy can read "
                             f"(the model takes {param.attrs.get('element_type', '?')})")
        if wanted is not None and ((wanted.kind in "iub" and given.kind in "fc") or (wanted.kind in "fc" and
                                                                                given.kind in "iub")):
            raise InputError(f"input '{name}' holds {given} values, the model takes {et.name}: give it "
                             f"{'float' if is_bf16(wanted) else wanted} values")
        if wanted is not None and is_bf16(wanted) and given.kind == "f":  # (its f32 values rounded to bf16)
            taken[name] = to_bf16(np.asarray(inputs[name]))
        elif wanted is not None and wanted.kind == given.kind == "f" and wanted != given:
            taken[name] = np.asarray(inputs[name]).astype(wanted)
        elif wanted is not None and wanted.kind in "iub" and given.kind in "iub" and wanted != given:
            taken[name] = _as_integers(name, np.asarray(inputs[name]), wanted, et.name)
        declared = parse_shape(param.attrs.get("shape", "..."))
        got = np.shape(inputs[name])
        if declared is None:
            continue
        ok = len(declared) == len(got) and all(
            d.lo <= n and (d.hi is None or n <= d.hi) for d, n in zip(declared, got, strict=True)
        )
        if not ok:
            raise InputError(f"input '{name}' has shape {list(got)}, the model accepts "
                             f"[{param.attrs.get('shape')}]")
    return taken


def _held_input_type(name: str, param: Layer) -> np.dtype:
    """The numpy type the reference holds input ``name``'s values in (``base.packed.held_dtype``). E-UNSUPPORTED for
    an element type it computes in no type of its own (string, u1, i4, u4, f8, nf4...): OpenVINO's CPU runs some (a
    string Parameter, an i4 one fed packed), but the reference has no values of them to compute with nor to feed, and
    said "no numpy type" (seeded) or ran an i4 input on int8 values of any size (``--inputs``)."""
    text = param.attrs.get("element_type", "")
    et = element_type(text)
    dtype = None if et is None else held_dtype(et)
    if dtype is None:
        raise UnsupportedError(f"input '{name}' is of element type {text}: run and compare feed inputs of the types "
                               "the numpy reference computes in (floats, integers of 8 bits or more, boolean, bf16), "
                               "not string, u1, u2, u3, u4, u6, i4, f8, f4 or nf4 ones")
    return dtype


def _as_integers(name: str, value: np.ndarray, wanted: np.dtype, type_name: str) -> np.ndarray:
    """``value`` (integers or booleans) in ``wanted``, the integer or boolean type input ``name`` takes: OpenVINO
    converts them (numpy's cast), and the reference must compute in the model's type, not fail on an op's inputs of
    two types. E-INPUT for a value the type does not hold (300 for u8 would wrap to 44, a mask of 2 become True):
    which one was meant is the caller's to say."""
    converted = value.astype(wanted)
    differs = converted != value
    if np.any(differs):
        first = value[np.unravel_index(int(np.argmax(differs)), value.shape)] if value.shape else value
        raise InputError(f"input '{name}' holds {value.dtype} values, the model takes {type_name}, which does not "
                         f"hold {first}: give values of {type_name}")
    return converted
