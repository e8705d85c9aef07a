"""Build the target zoo: OpenVINO IRs converted today from PyTorch, for ``migrate --target`` (issue 22).

Nothing is downloaded: every model has random weights from a fixed seed (a seed per model name). The project never
imports this script (it needs torch); ``scripts/zoo_targets.py``, ``benchmarks/bench_migrate.py`` and
``tests/test_target_fixtures.py`` only read the files and ``manifest.json`` it writes.

Install by hand, in a virtual environment outside the repository (on x86_64, pip on Python 3.11 takes torch and
torchvision from this machine's disk; optimum-intel wants transformers < 5.6, and transformers 5.x cannot be traced
here, hence ``transformers<5``; openvino the same release as the project's)::

    python -m venv /work/zoo/venv && . /work/zoo/venv/bin/activate
    pip install torch==2.14.1 torchvision==0.29.1
    pip install "transformers<5" openvino==2026.4.1 optimum-intel nncf
    HF_HUB_OFFLINE=1 python scripts/build_target_zoo.py [--out DIR] [--only NAME ...]
    HF_HUB_OFFLINE=1 python scripts/build_target_zoo.py --fixtures tests/data/target

Where: ``--out``, else ``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``. Files are written into a
staging directory and moved into place at the end. About 0.7 GB, 63 IRs, about 4 minutes on 2 cores.

What (``<model>_<f16|f32>.xml`` + ``.bin``; f16: ``save_model``'s default ``compress_to_fp16=True``, f16 weights
and a Convert each; f32: ``compress_to_fp16=False``), each ``ov.convert_model(model, example_input=...)`` +
``ov.save_model`` of the current OpenVINO, as a user converts today (shapes left as the converter makes them,
dynamic batch and spatial dims or sequence length):

- ``kind: cnn``: torchvision classifiers (resnet18, googlenet, squeezenet1_1, mobilenet_v3_small, mobilenet_v2,
  densenet121 at an odd size, efficientnet_b0, shufflenet_v2_x0_5, mnasnet0_5, regnet_y_400mf, alexnet, vgg11)
  and lraspp_mobilenet_v3_large (segmentation, bilinear Interpolate), BatchNorm statistics calibrated on random
  inputs. alexnet and vgg11 (61M and 133M weights) only as f16, to keep the zoo small.
- ``kind: vision_transformer``: small configs of torchvision's VisionTransformer, SwinTransformer (v1 and v2
  blocks) and MaxVit classes (32x32 inputs, under 1 MB each).
- ``kind: language_model``: GPT-2, Llama (grouped-query attention 4:2, RoPE) and BERT of transformers, small
  configs (vocabulary 1024, width 128, 2 layers: about 2 MB in f32), random weights, traced with ``input_ids``,
  ``attention_mask`` (and ``position_ids``, ``token_type_ids``) into ``logits`` (BERT: ``last_hidden_state``);
  Qwen2 (a third decoder family) likewise; the decoders also exported stateful for text generation by
  optimum-intel (``<model>_stateful_*``: KV cache in ReadValue/Assign, ``beam_idx``), when optimum-intel is
  installed; and each decoder, plain and stateful, its f32 weights compressed by NNCF (``nncf.compress_weights``)
  to int8 (asymmetric, per channel), int4 symmetric and int4 asymmetric (groups of 16, every layer but the
  embedding and the head at 4 bits) as ``<model>_<int8|int4_sym|int4_asym>.xml``, when nncf is installed.
- Only when named (``--only llama_50m --out DIR``): ``llama_50m``, a Llama of 50.2M parameters traced at 128
  tokens, and its NNCF compressions, for ``benchmarks/bench_compare.py --generative``.

``--fixtures DIR`` writes instead the seven small IRs committed in tests/data/target (each under 1 MB): a tiny
torchvision-style CNN with ``MaxPool2d(ceil_mode=True)`` (MaxPool-14 ceil_torch), a tiny VisionTransformer
(ScaledDotProductAttention-13), a tiny DeBERTa-v2 (``tiny_deberta_v2_f16``: an If-8 of a dynamic rank, BitwiseNot-13
and BitwiseAnd-13), a tiny GPT-2 (``tiny_gpt2_f16``, vocabulary 256, width 32, 2 layers) and another
(its own seed) with its weights compressed by NNCF to int8 asymmetric per channel (``tiny_gpt2_int8``), a tiny Llama
exported stateful by optimum-intel for text generation (f16), and another with its weights compressed by NNCF to int4
symmetric in groups of 16 (``tiny_llama_int4_stateful_int4_sym``).

``manifest.json`` lists per IR: file, model, kind, compressed, weights (``f16``, ``f32``, ``int8``, ``int4_sym``,
``int4_asym``), stateful, the inputs (name and kind: ``float``,
``tokens`` (ids below ``vocab``), ``mask`` (ones), ``positions`` (0, 1, ...), ``token_types`` (zeros), ``beam``
(0 .. batch-1)), the shapes to run it at (``shapes``: a list of ``{input: shape}``), the output names, the op
versions it holds (``ops``: ``Type-opsetN`` -> count), and whether OpenVINO's output equals torch's
(``verified``: within 1e-3 of max|output|; None for the stateful export).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import openvino as ov
import torch
import torchvision
from torch import nn
from torchvision.models import maxvit
from torchvision.models import swin_transformer as swin

DEFAULT_OUT = Path(os.environ.get("IR_TOOLS_TARGET_ZOO") or Path.home() / ".cache" / "ir_tools" / "target_zoo")
VOCAB = 1024
LARGE_VOCAB = 32000  # llama_50m's, a real tokenizer's size
CALIBRATION_BATCHES = 2


def seed_of(name: str) -> int:
    """A seed that depends on the name only (adding a model leaves the others' weights alone)."""
    return zlib.crc32(name.encode())


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Tracing's and the converters' warnings and prints, hidden."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


# -- what the zoo holds ----------------------------------------------------------------------------------------------
@dataclass
class Spec:
    """One model: ``make`` builds it (seeded by the caller), ``inputs`` names each input with its kind, ``shapes`` the
    shapes to run it at, ``outputs`` the output names; ``f32``: also saved uncompressed."""

    name: str
    kind: str
    make: Callable[[], nn.Module]
    inputs: dict[str, str]
    shapes: list[dict[str, list[int]]]
    outputs: list[str]
    f32: bool = True
    calibrate: bool = False
    vocab: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # "convert": more arguments of ov.convert_model


class Logits(nn.Module):
    """A transformers model traced with named inputs into one named output (``attr`` of its output)."""

    def __init__(self, model: nn.Module, names: list[str], attr: str):
        super().__init__()
        self.model, self.names, self.attr = model, names, attr

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        kwargs = dict(zip(self.names, args, strict=True))
        if self.attr == "logits":
            kwargs["use_cache"] = False
        return getattr(self.model(**kwargs), self.attr)


class SegmentationOut(nn.Module):
    """torchvision's segmentation models answer a dict: its ``out``."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)["out"]


class TinyPoolNet(nn.Module):
    """A torchvision-style stem and two stages around ``MaxPool2d(ceil_mode=True)`` (as googlenet's and
    squeezenet's), on sizes where ceil mode adds a window: converted today, MaxPool-14 with ceil_torch."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, ceil_mode=True),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.MaxPool2d(2, stride=2, ceil_mode=True),
            nn.Conv2d(16, 16, 1), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


def image(side: int, batch2_side: int | None = None) -> tuple[dict[str, str], list[dict[str, list[int]]]]:
    """One image input ``input``, run at batch 1 and at batch 2 (at another size, when given)."""
    other = batch2_side or side
    return {"input": "float"}, [{"input": [1, 3, side, side]}, {"input": [2, 3, other, other]}]


def tv(name: str, **kwargs: Any) -> Callable[[], nn.Module]:
    return lambda: getattr(torchvision.models, name)(weights=None, **kwargs)


def cnn(name: str, side: int, other: int | None = None, f32: bool = True, **kwargs: Any) -> Spec:
    inputs, shapes = image(side, other)
    return Spec(name, "cnn", tv(name, **kwargs), inputs, shapes, ["logits"], f32=f32, calibrate=True)


NO_AUX = {"aux_logits": False, "init_weights": True}
CNNS = [
    cnn("resnet18", 64, 72),
    cnn("googlenet", 64, 71, **NO_AUX),
    cnn("squeezenet1_1", 64, 71),
    cnn("mobilenet_v3_small", 64),
    cnn("mobilenet_v2", 64),
    cnn("densenet121", 65),  # odd lengths into the transitions' AvgPool2d(2, 2)
    cnn("efficientnet_b0", 64),
    cnn("shufflenet_v2_x0_5", 64),
    cnn("mnasnet0_5", 64),
    cnn("regnet_y_400mf", 64),
    cnn("alexnet", 95, f32=False),  # 61M weights: f16 only
    cnn("vgg11", 64, f32=False),  # 133M weights: f16 only
    Spec("lraspp_mobilenet_v3_large", "cnn",
         lambda: SegmentationOut(torchvision.models.segmentation.lraspp_mobilenet_v3_large(
             weights=None, weights_backbone=None, num_classes=5)),
         *image(64, 48), ["out"], calibrate=True),
]
SWIN = {"patch_size": [4, 4], "embed_dim": 16, "depths": [2, 2], "num_heads": [2, 4], "window_size": [4, 4],
        "num_classes": 10}
VISION_TRANSFORMERS = [
    Spec("vit_small_test", "vision_transformer",
         lambda: torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                      hidden_dim=32, mlp_dim=64, num_classes=10),
         *image(32), ["logits"]),
    # traced, Swin keeps its window padding for the size it was traced at: run at 32 (batch 1 and 2)
    Spec("swin_small_test", "vision_transformer", lambda: swin.SwinTransformer(**SWIN), *image(32), ["logits"]),
    Spec("swin_v2_small_test", "vision_transformer",
         lambda: swin.SwinTransformer(**SWIN, block=swin.SwinTransformerBlockV2, downsample_layer=swin.PatchMergingV2),
         *image(32), ["logits"]),
    Spec("maxvit_small_test", "vision_transformer",
         lambda: maxvit.MaxVit(input_size=(32, 32), stem_channels=8, partition_size=2, block_channels=[16, 32],
                               block_layers=[1, 1], head_dim=8, stochastic_depth_prob=0.0, num_classes=10),
         *image(32), ["logits"]),
]


def llama_config(vocab: int, width: int) -> Any:
    from transformers import LlamaConfig

    return LlamaConfig(vocab_size=vocab, hidden_size=width, intermediate_size=2 * width, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, rope_theta=10000.0)


def qwen2_config(vocab: int, width: int) -> Any:
    from transformers import Qwen2Config

    return Qwen2Config(vocab_size=vocab, hidden_size=width, intermediate_size=2 * width, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, rope_theta=10000.0,
                       tie_word_embeddings=False)


def gpt2_config(vocab: int, width: int) -> Any:
    from transformers import GPT2Config

    return GPT2Config(vocab_size=vocab, n_positions=256, n_embd=width, n_layer=2, n_head=4)


#: The decoders exported stateful and compressed: model name -> (transformers class name, its config).
DECODERS = {"llama": ("LlamaForCausalLM", llama_config), "qwen2": ("Qwen2ForCausalLM", qwen2_config),
            "gpt2": ("GPT2LMHeadModel", gpt2_config)}


def language_models() -> list[Spec]:
    from transformers import BertConfig, BertModel, GPT2LMHeadModel, LlamaForCausalLM, Qwen2ForCausalLM

    causal = {"input_ids": "tokens", "attention_mask": "mask", "position_ids": "positions"}
    # traced at length 8, transformers' mask code leaves that length in a Reshape: run at 8 (batch 1 and 2)
    shapes = [{name: [1, 8] for name in causal}, {name: [2, 8] for name in causal}]
    bert = {"input_ids": "tokens", "attention_mask": "mask", "token_type_ids": "token_types"}

    def lm(model: Callable[[], nn.Module], names: dict[str, str], attr: str) -> Callable[[], nn.Module]:
        return lambda: Logits(model(), list(names), attr)

    return [
        Spec("gpt2_small_test", "language_model",
             lm(lambda: GPT2LMHeadModel(gpt2_config(VOCAB, 128)), causal, "logits"),
             causal, shapes, ["logits"], vocab=VOCAB),
        Spec("llama_small_test", "language_model", lm(lambda: LlamaForCausalLM(llama_config(VOCAB, 128)), causal,
                                                      "logits"),
             causal, shapes, ["logits"], vocab=VOCAB),
        Spec("qwen2_small_test", "language_model", lm(lambda: Qwen2ForCausalLM(qwen2_config(VOCAB, 128)), causal,
                                                      "logits"),
             causal, shapes, ["logits"], vocab=VOCAB),
        Spec("bert_small_test", "language_model",
             lm(lambda: BertModel(BertConfig(vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2,
                                             num_attention_heads=4, intermediate_size=256,
                                             max_position_embeddings=256)), bert, "last_hidden_state"),
             bert, [{name: [1, 8] for name in bert}, {name: [2, 5] for name in bert}], ["last_hidden_state"],
             vocab=VOCAB),
    ]


def large_language_models() -> list[Spec]:
    """Built only when named (``--only llama_50m``, best with its own ``--out``: ``--only`` leaves the manifest
    listing what it built alone): a Llama of 50.2M parameters (vocabulary 32000, width 512, 6 layers, grouped-query
    attention 8:4) for ``benchmarks/bench_compare.py --generative``'s speed target at 128 tokens; traced at 128
    tokens, the length transformers' mask code leaves in the graph, so run at 128; compressed like the other
    decoders (its int8 is the one the target names)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    causal = {"input_ids": "tokens", "attention_mask": "mask", "position_ids": "positions"}
    config = LlamaConfig(vocab_size=LARGE_VOCAB, hidden_size=512, intermediate_size=1376, num_hidden_layers=6,
                         num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=256,
                         rope_theta=10000.0)
    return [Spec("llama_50m", "language_model", lambda: Logits(LlamaForCausalLM(config), list(causal), "logits"),
                 causal, [{name: [1, 128] for name in causal}], ["logits"], vocab=LARGE_VOCAB)]


# -- building --------------------------------------------------------------------------------------------------------
def patch_transformers_masks() -> None:
    """transformers 4.5x builds its SDPA masks with torch.vmap, which torch.jit.trace cannot follow: the mask
    function without vmap instead (as optimum-intel's own patcher does)."""
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, sdpa_mask_older_torch

    ALL_MASK_ATTENTION_FUNCTIONS.register("sdpa", sdpa_mask_older_torch)


def calibrate(model: nn.Module, shape: list[int], seed: int) -> None:
    """BatchNorm statistics of random normal inputs (cumulative averages): activations keep a trained scale."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None
    generator = torch.Generator().manual_seed(seed)
    model.train()
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            model(torch.randn(4, *shape[1:], generator=generator))
    model.eval()


def build(spec: Spec) -> nn.Module:
    torch.manual_seed(seed_of(spec.name))
    model = spec.make().eval()
    with torch.no_grad():  # torchvision zero-initialises ViT's head: its logits would be the bias alone
        for layer in model.modules():
            if isinstance(layer, nn.Linear) and not layer.weight.any():
                nn.init.normal_(layer.weight, std=layer.in_features**-0.5)
    if spec.calibrate:
        calibrate(model, spec.shapes[0]["input"], seed_of(spec.name) + 1)
    return model


def example(spec: Spec, shapes: dict[str, list[int]], seed: int) -> dict[str, torch.Tensor]:
    """Inputs of each kind at ``shapes``, as the measurements make them (tokens in range, masks of ones...)."""
    generator = torch.Generator().manual_seed(seed)
    out = {}
    for name, kind in spec.inputs.items():
        shape = shapes[name]
        if kind == "float":
            out[name] = torch.randn(*shape, generator=generator)
        elif kind == "tokens":
            out[name] = torch.randint(0, spec.vocab or 2, shape, generator=generator)
        elif kind == "mask":
            out[name] = torch.ones(shape, dtype=torch.long)
        elif kind == "positions":
            out[name] = torch.arange(shape[-1]).expand(*shape).contiguous()
        elif kind == "token_types":
            out[name] = torch.zeros(shape, dtype=torch.long)
        else:
            raise ValueError(f"no example for an input of kind {kind}")
    return out


def name_ports(model: ov.Model, spec: Spec) -> None:
    """The converter names inputs after forward's arguments, sometimes not at all (a number), and outputs never:
    the names the manifest says."""
    for port, name in zip(model.inputs, spec.inputs, strict=True):
        port.get_tensor().set_names({name})
    for port, name in zip(model.outputs, spec.outputs, strict=True):
        port.get_tensor().set_names({name})


def op_versions(model: ov.Model) -> dict[str, int]:
    found = Counter(f"{op.get_type_name()}-{op.get_type_info().version_id}" for op in model.get_ordered_ops())
    return dict(sorted(found.items()))


def verify(model: ov.Model, torch_model: nn.Module, spec: Spec) -> bool:
    """Each of OpenVINO's outputs equals torch's (a tuple of them, or one) within 1e-3 of max|output| at every run
    shape."""
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    for i, shapes in enumerate(spec.shapes):
        feed = example(spec, shapes, i)
        with torch.no_grad():
            wants = torch_model(*feed.values())
        result = compiled({name: value.numpy() for name, value in feed.items()})
        for k, want in enumerate(wants if isinstance(wants, tuple) else (wants,)):
            got, want = result[k].astype(np.float64), want.numpy().astype(np.float64)
            if got.shape != want.shape or (want.size and np.abs(got - want).max() > 1e-3 * max(np.abs(want).max(),
                                                                                                  1e-6)):
                return False
    return True


def convert(spec: Spec, out: Path, forms: tuple[bool, ...] | None = None) -> list[dict[str, Any]]:
    """``spec`` converted by ``ov.convert_model`` and saved f16-compressed (and f32); its manifest entries."""
    torch_model = build(spec)
    feed = tuple(example(spec, spec.shapes[0], 0).values())
    with quiet(), torch.no_grad():
        model = ov.convert_model(torch_model, example_input=feed, **spec.extra.get("convert", {}))
    name_ports(model, spec)
    verified = verify(model, torch_model, spec)
    entries = []
    for compressed in forms or ((True, False) if spec.f32 else (True,)):
        file = f"{spec.name}_{'f16' if compressed else 'f32'}.xml"
        ov.save_model(model, out / file, compress_to_fp16=compressed)
        entries.append(entry(spec, file, out, compressed, stateful=False, verified=verified))
    return entries


def entry(spec: Spec, file: str, out: Path, compressed: bool, stateful: bool, verified: bool | None,
          weights: str | None = None) -> dict[str, Any]:
    saved = ov.Core().read_model(out / file)
    bytes_ = (out / file).stat().st_size + (out / file).with_suffix(".bin").stat().st_size
    return {"file": file, "model": spec.name, "kind": spec.kind, "compressed": compressed,
            "weights": weights or ("f16" if compressed else "f32"), "stateful": stateful,
            "inputs": spec.inputs, "shapes": spec.shapes, "vocab": spec.vocab,
            "outputs": [sorted(port.get_names()) for port in saved.outputs], "ops": op_versions(saved),
            "bytes": bytes_, "verified": verified}


def stateful(name: str, family: str, vocab: int, width: int, out: Path,
             forms: tuple[bool, ...]) -> list[dict[str, Any]]:
    """A decoder of ``DECODERS`` exported for text generation by optimum-intel (stateful: the KV cache in
    ReadValue/Assign), saved in each form of ``forms`` (f16-compressed or not)."""
    model = stateful_model(name, family, vocab, width)
    spec = stateful_spec(name, vocab)
    entries = []
    for compressed in forms:
        file = f"{name}_{'f16' if compressed else 'f32'}.xml"
        ov.save_model(model, out / file, compress_to_fp16=compressed)
        entries.append(entry(spec, file, out, compressed, stateful=True, verified=None))
    return entries


def stateful_spec(name: str, vocab: int) -> Spec:
    inputs = {"input_ids": "tokens", "attention_mask": "mask", "position_ids": "positions", "beam_idx": "beam"}
    shapes = [{"input_ids": [1, 8], "attention_mask": [1, 8], "position_ids": [1, 8], "beam_idx": [1]},
              {"input_ids": [2, 5], "attention_mask": [2, 5], "position_ids": [2, 5], "beam_idx": [2]}]
    return Spec(name, "language_model", lambda: nn.Identity(), inputs, shapes, ["logits"], vocab=vocab)


def stateful_model(name: str, family: str, vocab: int, width: int) -> ov.Model:
    """``family`` (a key of ``DECODERS``) with random weights seeded by ``name``, exported by optimum-intel."""
    import transformers
    from optimum.exporters.openvino import main_export

    torch.manual_seed(seed_of(name))
    cls, config = DECODERS[family]
    with tempfile.TemporaryDirectory(prefix=f"{family}-") as tmp:
        getattr(transformers, cls)(config(vocab, width)).eval().save_pretrained(Path(tmp) / "src")
        exported = Path(tmp) / "exported"
        with quiet():
            main_export(str(Path(tmp) / "src"), output=exported, task="text-generation-with-past", stateful=True,
                        weight_format="fp32", convert_tokenizer=False)
        # optimum's fp16 weight format leaves small models f32: each form saved as ovc saves it
        return ov.Core().read_model(exported / "openvino_model.xml")


#: NNCF's weight compressions: file suffix -> compress_weights arguments (mode name, group size).
COMPRESSIONS = {"int8": ("INT8_ASYM", None), "int4_sym": ("INT4_SYM", 16), "int4_asym": ("INT4_ASYM", 16)}


def compressed(spec: Spec, source: Path, out: Path, stateful: bool) -> list[dict[str, Any]]:
    """``source`` (an f32 IR of ``spec``) with its weights compressed by NNCF, one IR per ``COMPRESSIONS``."""
    return [compress(ov.Core().read_model(source), spec, out, suffix, stateful) for suffix in COMPRESSIONS]


def compress(model: ov.Model, spec: Spec, out: Path, suffix: str, stateful: bool, file: str | None = None
             ) -> dict[str, Any]:
    """``model`` (f32 weights) compressed by NNCF as ``COMPRESSIONS[suffix]`` says, saved as ``file`` (default
    ``<spec.name>_<suffix>.xml``); its manifest entry."""
    import nncf

    mode, group = COMPRESSIONS[suffix]
    options = {"group_size": group, "ratio": 1.0} if group else {}
    with quiet():
        model = nncf.compress_weights(model, mode=getattr(nncf.CompressWeightsMode, mode), **options)
    file = file or f"{spec.name}_{suffix}.xml"
    ov.save_model(model, out / file, compress_to_fp16=False)
    return entry(spec, file, out, False, stateful=stateful, verified=None, weights=suffix)


def has_optimum() -> bool:
    return importlib.util.find_spec("optimum.exporters.openvino") is not None


def has_nncf() -> bool:
    return importlib.util.find_spec("nncf") is not None


def zoo(out: Path, only: set[str]) -> list[dict[str, Any]]:
    specs = CNNS + VISION_TRANSFORMERS + language_models() + [s for s in large_language_models() if s.name in only]
    entries = []
    for spec in specs:
        if only and spec.name not in only:
            continue
        start = time.perf_counter()
        try:
            made = convert(spec, out)
            if spec.name.split("_")[0] in DECODERS and has_nncf():
                made += compressed(spec, out / f"{spec.name}_f32.xml", out, stateful=False)
        except Exception as exc:  # a refusal is an entry, not the end of the build
            made = [{"file": None, "model": spec.name, "kind": spec.kind, "refused": f"{type(exc).__name__}: {exc}"}]
        report(made, time.perf_counter() - start)
        entries += made
    for family in DECODERS:
        name = f"{family}_small_stateful"
        if only and name not in only:
            continue
        if not has_optimum():
            print(f"optimum-intel is not installed: no {name}")
            continue
        start = time.perf_counter()
        made = stateful(name, family, VOCAB, 128, out, (True, False))
        if has_nncf():
            made += compressed(stateful_spec(name, VOCAB), out / f"{name}_f32.xml", out, stateful=True)
        report(made, time.perf_counter() - start)
        entries += made
    return entries


def gpt2(vocab: int, width: int) -> nn.Module:
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel(gpt2_config(vocab, width))


def deberta_v2(vocab: int, width: int) -> nn.Module:
    """DeBERTa-v2 with relative attention: its traced position buckets hold an If-8 of a dynamic rank whose condition
    is NotEqual of a dim with itself (what 2023.0 to 2025.4 do not compile, and ``migrate --target`` rewrites)."""
    from transformers import DebertaV2Config, DebertaV2Model

    return DebertaV2Model(DebertaV2Config(vocab_size=vocab, hidden_size=width, intermediate_size=2 * width,
                                          num_hidden_layers=1, num_attention_heads=2, max_position_embeddings=64,
                                          relative_attention=True, pos_att_type=["p2c", "c2p"], position_buckets=16))


def fixtures(out: Path) -> list[dict[str, Any]]:
    """The seven IRs committed in tests/data/target."""
    inputs, shapes = image(35, 29)  # 35 -> 18 -> 9 (ceil adds a window) -> 5 (ceil adds one) -> 3
    cnn_spec = Spec("tiny_pool_net", "cnn", TinyPoolNet, inputs, shapes, ["logits"], calibrate=True)
    vit_spec = Spec("tiny_vit", "vision_transformer",
                    lambda: torchvision.models.VisionTransformer(image_size=16, patch_size=4, num_layers=1,
                                                                 num_heads=2, hidden_dim=16, mlp_dim=32,
                                                                 num_classes=10),
                    {"input": "float"}, [{"input": [1, 3, 16, 16]}, {"input": [2, 3, 16, 16]}], ["logits"])
    causal = {"input_ids": "tokens", "attention_mask": "mask", "position_ids": "positions"}
    gpt2_spec = Spec("tiny_gpt2", "language_model", lambda: Logits(gpt2(256, 32), list(causal), "logits"), causal,
                     [{name: [1, 8] for name in causal}, {name: [2, 8] for name in causal}], ["logits"], vocab=256)
    deberta = {"input_ids": "tokens", "attention_mask": "mask"}
    deberta_spec = Spec("tiny_deberta_v2", "language_model", lambda: Logits(deberta_v2(256, 32), list(deberta),
                                                                             "last_hidden_state"),
                        deberta, [{name: [1, 8] for name in deberta}, {name: [2, 5] for name in deberta}],
                        ["last_hidden_state"], vocab=256)
    entries = convert(cnn_spec, out, (True,)) + convert(vit_spec, out, (True,)) + convert(gpt2_spec, out, (True,))
    entries += convert(deberta_spec, out, (True,))
    if not (has_optimum() and has_nncf()):
        sys.exit("optimum-intel and nncf are needed for the generative fixtures (pip install optimum-intel nncf)")
    int8_spec = Spec("tiny_gpt2_int8", "language_model", lambda: Logits(gpt2(256, 32), list(causal), "logits"),
                     causal, gpt2_spec.shapes, ["logits"], vocab=256)
    with tempfile.TemporaryDirectory(prefix="gpt2-") as tmp:  # its f32 IR, compressed to int8 asymmetric
        convert(int8_spec, Path(tmp), (False,))  # before optimum's exports: tracing fails after them
        gpt2_int8 = compress(ov.Core().read_model(Path(tmp) / "tiny_gpt2_int8_f32.xml"), int8_spec, out, "int8",
                             False, "tiny_gpt2_int8.xml")
    entries += stateful("tiny_llama_stateful", "llama", 256, 32, out, (True,))
    name = "tiny_llama_int4_stateful"  # int4 sym in groups of 16, the embedding and the head int8 (NNCF's backup)
    entries.append(compress(stateful_model(name, "llama", 256, 32), stateful_spec(name, 256), out, "int4_sym", True))
    return entries + [gpt2_int8]


def report(entries: list[dict[str, Any]], seconds: float) -> None:
    for e in entries:
        if e.get("file") is None:
            print(f"{e['model']:<32} REFUSED: {e['refused'][:200]}")
            continue
        newer = sorted(op for op in e["ops"] if int(op.rsplit("opset", 1)[1]) > 8)
        print(f"{e['file']:<36} {e['bytes'] / 2**20:7.2f} MB  verified {e['verified']}  {seconds:5.1f} s  "
              f"{' '.join(newer)}")


def install(staging: Path, out: Path, entries: list[dict[str, Any]], seconds: float, generator: str) -> None:
    """Move the files into ``out``, write the manifest, remove what the previous manifest listed and we did not."""
    old = out / "manifest.json"
    previous = {e.get("file") for e in json.loads(old.read_text())["files"]} if old.is_file() else set()
    written = {e["file"] for e in entries if e.get("file")}
    for name in sorted(written):
        for suffix in (".xml", ".bin"):
            os.replace((staging / name).with_suffix(suffix), (out / name).with_suffix(suffix))
    versions = {"torch": torch.__version__, "torchvision": torchvision.__version__, "openvino": ov.get_version()}
    with contextlib.suppress(ImportError):
        import transformers

        versions["transformers"] = transformers.__version__
    with contextlib.suppress(ImportError):
        from optimum.intel.version import __version__ as optimum_intel

        versions["optimum-intel"] = optimum_intel
    manifest = {"generator": generator, **versions, "build_seconds": round(seconds), "files": entries}
    old.write_text(json.dumps(manifest, indent=1) + "\n")
    for name in sorted(n for n in previous - written if n and "/" not in n):
        for suffix in (".xml", ".bin"):
            (out / name).with_suffix(suffix).unlink(missing_ok=True)
        print(f"removed {name} (an earlier build's)")


def build_into(out: Path, build: Callable[[Path], list[dict[str, Any]]], generator: str) -> None:
    """What each zoo builder's command does: ``build`` into a staging directory of ``out``, then ``install`` its
    files there (a failed build leaves ``out`` as it was); prints what was built."""
    torch.set_num_threads(2)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    patch_transformers_masks()
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=out))
    try:
        entries = build(staging)
        install(staging, out, entries, time.perf_counter() - start, generator)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    files = [e for e in entries if e.get("file")]
    print(f"\n{len(files)} IRs, {sum(e['bytes'] for e in files) / 2**20:.1f} MB in {out}; "
          f"{len(entries) - len(files)} refused; {time.perf_counter() - start:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="*", default=[], help="build only these models (the rest stay listed only "
                                                              "if rebuilt: use for trying, not for the zoo)")
    parser.add_argument("--fixtures", type=Path, metavar="DIR", help="write the committed fixtures into DIR instead")
    args = parser.parse_args()
    if args.fixtures:
        build_into(args.fixtures.expanduser(), fixtures, "scripts/build_target_zoo.py --fixtures")
    else:
        build_into(args.out.expanduser(), lambda staging: zoo(staging, set(args.only)), "scripts/build_target_zoo.py")


if __name__ == "__main__":
    main()
