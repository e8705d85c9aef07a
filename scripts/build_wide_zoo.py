"""Build a wide zoo of language models not in the target zoo, for sweeps of ``migrate --target`` beyond it.

Runs where scripts/build_target_zoo.py runs (torch, transformers, optimum-intel, nncf: its docstring says how to
install them) and reuses its functions by import; the project never imports this script. Nothing is downloaded: tiny
configs of transformers families (vocabulary 1024, width 64, 2 layers), random weights seeded per model name::

    HF_HUB_OFFLINE=1 python scripts/build_wide_zoo.py [--out DIR] [--only NAME ...]
    IR_TOOLS_TARGET_ZOO=DIR python scripts/zoo_targets.py --release 2023.0 2024.0 2025.0

Where: ``--out``, else ``~/.cache/ir_tools/wide_zoo_lm``; ``manifest.json`` as build_target_zoo.py writes it (the
format tests/target_zoo.py reads). 99 IRs of under 1.1 MB each (45 MB), 6 to 8 minutes on 2 busy cores.

What (f16-compressed as ``save_model`` saves by default, ``kind: language_model``):

- decoders (``WIDE_DECODERS``), each traced with ``input_ids``, ``attention_mask`` and (where forward takes them)
  ``position_ids`` into ``logits`` (``<family>_tiny_f16``), run at length 8 (batch 1 and 2) as the target zoo's:
  Mistral (sliding window 4, below the length), Phi (partial rotary), Phi3 (fused qkv), Gemma, Gemma2 (final logit
  softcapping; SDPA attention, which leaves out the attention softcapping: eager attention does not trace here),
  Falcon (multi-query, parallel attention), Falcon with ALiBi, GPT-NeoX, GPT-J, BLOOM (ALiBi), MPT (ALiBi), StableLM,
  OLMo (clipped qkv), Starcoder2, OPT, CodeGen, Mixtral and Qwen2-MoE (mixtures of experts, 4 experts, 2 a token:
  TopK-11, NonZero, ScatterElementsUpdate-12), GPT-BigCode (multi-query), GPT-Neo (local attention, window 4),
  Cohere (qk norm), Qwen3 (qk norm), Granite (multipliers), XGLM (sinusoidal positions), Persimmon, BioGPT and Mamba
  (selective scan, no attention). XGLM (and Funnel below) convert with ``verified`` False (the current
  OpenVINO's output is not torch's at the run shapes; not looked into): the sweep compares with the current OpenVINO
  on the same IR, not with torch;
- each decoder also exported stateful for text generation by optimum-intel (``<family>_tiny_stateful_f16``, KV
  cache in ReadValue/Assign, ``beam_idx``; Mamba's convolution and SSM states, ``cache_position``), the manifest's
  inputs those the export has;
- ``COMPRESSED`` decoders' f32 weights compressed by NNCF (int8 asymmetric per channel, int4 symmetric in groups of
  16), plain (``<family>_tiny_<int8|int4_sym>``) and stateful (``<family>_tiny_stateful_<int8|int4_sym>``);
- encoders traced with ``input_ids`` and ``attention_mask`` (and ``token_type_ids`` where their embeddings have types)
  into ``last_hidden_state``, run at batch 1 length 8 and batch 2 length 5: T5's encoder (relative position buckets),
  BART (encoder and decoder, the decoder's ids shifted from the inputs; length 8 only), RoBERTa, DistilBERT, ALBERT
  (shared layers, factorised embedding), ELECTRA, XLM-RoBERTa, MPNet (relative attention bias), Longformer (sliding
  window of 4 plus global attention: Pad-12; length 8 only), FNet (DFT-7 over the sequence and the width), XLNet
  (relative attention: Eye-9), SqueezeBERT (grouped Conv1d), ConvBERT (span-based dynamic convolution), ESM (rotary;
  called once before tracing, which fills its tables), Funnel (AvgPool-14, BitwiseOr-13, Pad-12), DeBERTa (v1,
  BitwiseNot-13), BigBird (full attention), CLIP's text encoder, Nystromformer (Eye-9; length 8 only), wav2vec 2.0
  (``input_values``: Conv1d feature extractor, GroupNormalization-12) and Whisper's encoder (``input_features``, 8 mel
  bins by 32 frames);
- encoder-decoders exported for generation by optimum-intel (``SEQ2SEQ``): T5 and Whisper, their encoder and their
  stateful decoder (``<name>_decoder_stateful_f16``: the cross-attention's KV made by ReadValue initializers from
  ``encoder_hidden_states``).

Skipped: CANINE (kept listed, a refused entry at each build: OpenVINO's PyTorch frontend fails on an ``aten::slice`` of
its downsampling); not listed: RecurrentGemma (tracing's check finds constants differing between two traces), Gemma2
with eager attention (its mask function does not trace), Whisper's and T5's full seq2seq traced plainly (optimum's
exports instead), Reformer and YOSO (custom kernels or hashing, not tried), the stateful Phi with grouped-query
attention (optimum-intel's patched attention refuses it: Phi is built with as many KV heads as heads). What fails to
convert is written as a ``refused`` entry (the sweep skips it) and printed, not the end of the build.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openvino as ov
import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_target_zoo import (
    COMPRESSIONS,
    DECODERS,
    Logits,
    Spec,
    build_into,  # noqa: E402 (after the path is set)
    compress,
    convert,
    entry,
    has_nncf,
    has_optimum,
    quiet,
    report,
    seed_of,
    stateful,
    stateful_spec,
)

DEFAULT_OUT = Path.home() / ".cache" / "ir_tools" / "wide_zoo_lm"
VOCAB = 1024
WIDTH = 64
#: The NNCF compressions of the wide zoo's compressed decoders (keys of build_target_zoo's ``COMPRESSIONS``).
COMPRESS_TO = ("int8", "int4_sym")
#: Decoders compressed by NNCF, plain and stateful.
COMPRESSED = ("mistral", "phi3", "gemma2", "falcon", "bloom")
CAUSAL = {"input_ids": "tokens", "attention_mask": "mask", "position_ids": "positions"}
IDS = {"input_ids": "tokens", "attention_mask": "mask"}
BERT = {"input_ids": "tokens", "attention_mask": "mask", "token_type_ids": "token_types"}
SPECIAL = {"bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0}  # within the tiny vocabulary
#: Mamba's convolution width: optimum-intel feeds its first step ``cache_position`` 0 .. MAMBA_CONV_KERNEL-1.
MAMBA_CONV_KERNEL = 4


@dataclass
class Family:
    """A transformers model class and its tiny config (``config(vocab, width)``), the inputs it is traced with."""

    cls: str
    config: Callable[[int, int], Any]
    inputs: dict[str, str]


def configured(name: str, **fields: Any) -> Callable[[int, int], Any]:
    """``transformers.<name>`` of ``fields``, where each callable value is called with (vocab, width)."""

    def make(vocab: int, width: int) -> Any:
        import transformers

        return getattr(transformers, name)(**{k: v(vocab, width) if callable(v) else v for k, v in fields.items()})

    return make


def vocab_(vocab: int, _: int) -> int:
    return vocab


def width_(_: int, width: int) -> int:
    return width


def double(_: int, width: int) -> int:
    return 2 * width


LLAMA_LIKE = {"vocab_size": vocab_, "hidden_size": width_, "intermediate_size": double, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 256, **SPECIAL}
ENCODER = {"vocab_size": vocab_, "hidden_size": width_, "intermediate_size": double, "num_hidden_layers": 2,
           "num_attention_heads": 4, "max_position_embeddings": 256, **SPECIAL}

#: Decoder families: name -> its class, tiny config and traced inputs.
WIDE_DECODERS = {
    "mistral": Family("MistralForCausalLM", configured("MistralConfig", **LLAMA_LIKE, sliding_window=4), CAUSAL),
    "phi": Family("PhiForCausalLM", configured("PhiConfig", **{**LLAMA_LIKE, "num_key_value_heads": 4},
                                                  partial_rotary_factor=0.5), CAUSAL),
    "phi3": Family("Phi3ForCausalLM", configured("Phi3Config", **LLAMA_LIKE), CAUSAL),
    "gemma": Family("GemmaForCausalLM", configured("GemmaConfig", **LLAMA_LIKE, head_dim=16), CAUSAL),
    "gemma2": Family("Gemma2ForCausalLM",
                     configured("Gemma2Config", **LLAMA_LIKE, head_dim=16, sliding_window=4,
                                attn_logit_softcapping=50.0, final_logit_softcapping=30.0), CAUSAL),
    "falcon": Family("FalconForCausalLM",
                     configured("FalconConfig", vocab_size=vocab_, hidden_size=width_, num_hidden_layers=2,
                                num_attention_heads=4, **SPECIAL), CAUSAL),
    "falcon_alibi": Family("FalconForCausalLM",
                           configured("FalconConfig", vocab_size=vocab_, hidden_size=width_, num_hidden_layers=2,
                                      num_attention_heads=4, alibi=True, multi_query=False, parallel_attn=False,
                                      **SPECIAL), IDS),
    "gpt_neox": Family("GPTNeoXForCausalLM",
                       configured("GPTNeoXConfig", vocab_size=vocab_, hidden_size=width_, intermediate_size=double,
                                  num_hidden_layers=2, num_attention_heads=4, rotary_pct=0.5,
                                  max_position_embeddings=256, **SPECIAL), CAUSAL),
    "gptj": Family("GPTJForCausalLM",
                   configured("GPTJConfig", vocab_size=vocab_, n_embd=width_, n_layer=2, n_head=4, rotary_dim=8,
                              n_positions=256, **SPECIAL), CAUSAL),
    "bloom": Family("BloomForCausalLM",
                    configured("BloomConfig", vocab_size=vocab_, hidden_size=width_, n_layer=2, n_head=4, **SPECIAL),
                    IDS),
    "mpt": Family("MptForCausalLM",
                  configured("MptConfig", vocab_size=vocab_, d_model=width_, n_layers=2, n_heads=4, max_seq_len=256,
                             expansion_ratio=2), IDS),
    "stablelm": Family("StableLmForCausalLM", configured("StableLmConfig", **LLAMA_LIKE, partial_rotary_factor=0.25),
                       CAUSAL),
    "olmo": Family("OlmoForCausalLM", configured("OlmoConfig", **LLAMA_LIKE, clip_qkv=8.0), CAUSAL),
    "starcoder2": Family("Starcoder2ForCausalLM", configured("Starcoder2Config", **LLAMA_LIKE, sliding_window=None),
                         CAUSAL),
    "opt": Family("OPTForCausalLM",
                  configured("OPTConfig", vocab_size=vocab_, hidden_size=width_, ffn_dim=double, num_hidden_layers=2,
                             num_attention_heads=4, word_embed_proj_dim=width_, max_position_embeddings=256,
                             **SPECIAL), CAUSAL),
    "codegen": Family("CodeGenForCausalLM",
                      configured("CodeGenConfig", vocab_size=vocab_, n_embd=width_, n_layer=2, n_head=4, rotary_dim=8,
                                 n_positions=256, n_ctx=256, **SPECIAL), CAUSAL),
    "mixtral": Family("MixtralForCausalLM",
                      configured("MixtralConfig", **LLAMA_LIKE, num_local_experts=4, num_experts_per_tok=2), CAUSAL),
    "gpt_bigcode": Family("GPTBigCodeForCausalLM",
                          configured("GPTBigCodeConfig", vocab_size=vocab_, n_embd=width_, n_layer=2, n_head=4,
                                     n_positions=256, multi_query=True, **SPECIAL), CAUSAL),
    "gpt_neo": Family("GPTNeoForCausalLM",
                      configured("GPTNeoConfig", vocab_size=vocab_, hidden_size=width_, num_layers=2, num_heads=4,
                                 attention_types=[[["global", "local"], 1]], window_size=4,
                                 max_position_embeddings=256, **SPECIAL), CAUSAL),
    "cohere": Family("CohereForCausalLM", configured("CohereConfig", **LLAMA_LIKE, use_qk_norm=True), CAUSAL),
    "qwen3": Family("Qwen3ForCausalLM", configured("Qwen3Config", **LLAMA_LIKE, head_dim=16), CAUSAL),
    "qwen2_moe": Family("Qwen2MoeForCausalLM",
                        configured("Qwen2MoeConfig", **LLAMA_LIKE, num_experts=4, num_experts_per_tok=2,
                                   moe_intermediate_size=width_, shared_expert_intermediate_size=width_), CAUSAL),
    "granite": Family("GraniteForCausalLM",
                      configured("GraniteConfig", **LLAMA_LIKE, embedding_multiplier=12.0, logits_scaling=8.0,
                                 residual_multiplier=0.22, attention_multiplier=0.0625), CAUSAL),
    "xglm": Family("XGLMForCausalLM",
                   configured("XGLMConfig", vocab_size=vocab_, d_model=width_, ffn_dim=double, num_layers=2,
                              attention_heads=4, max_position_embeddings=256, **SPECIAL), CAUSAL),
    "persimmon": Family("PersimmonForCausalLM",
                        configured("PersimmonConfig", **{**LLAMA_LIKE, "num_key_value_heads": 4}), CAUSAL),
    "biogpt": Family("BioGptForCausalLM",
                     configured("BioGptConfig", vocab_size=vocab_, hidden_size=width_, intermediate_size=double,
                                num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=256, **SPECIAL),
                     CAUSAL),
    "mamba": Family("MambaForCausalLM",
                    configured("MambaConfig", vocab_size=vocab_, hidden_size=width_, state_size=8,
                               num_hidden_layers=2, expand=2, conv_kernel=MAMBA_CONV_KERNEL, **SPECIAL), IDS),
}


class WhisperEncoderOf(nn.Module):
    """Whisper's encoder alone (``input_features`` into ``last_hidden_state``)."""

    def __init__(self, config: Any):
        super().__init__()
        from transformers import WhisperModel

        self.encoder = WhisperModel(config).get_encoder()

    def forward(self, input_features: torch.Tensor) -> torch.Tensor:
        return self.encoder(input_features=input_features).last_hidden_state


def warmed(model: nn.Module, inputs: dict[str, str], warm: bool) -> nn.Module:
    """``model``, called once on tokens of length 8 when ``warm``: a model that fills a cache on its first call (ESM's
    rotary tables) traces differently on the first and the second, which tracing's check refuses."""
    if warm:
        with torch.no_grad():
            model(*(torch.ones(1, 8, dtype=torch.long) for _ in inputs))
    return model


def encoder(name: str, cls: str, config: Callable[[int, int], Any], inputs: dict[str, str],
            same_length: bool = False, warm: bool = False) -> Spec:
    """``transformers.<cls>`` of ``config`` traced into ``last_hidden_state``, run at [1, 8] and [2, 5]
    (``same_length``: [2, 8], for what tracing fixes the length of)."""
    import transformers

    second = 8 if same_length else 5
    return Spec(name, "language_model",
                lambda: warmed(Logits(getattr(transformers, cls)(config(VOCAB, WIDTH)), list(inputs),
                                      "last_hidden_state"), inputs, warm),
                inputs, [{n: [1, 8] for n in inputs}, {n: [2, second] for n in inputs}], ["last_hidden_state"],
                f32=False, vocab=VOCAB)


def encoders() -> list[Spec]:
    from transformers import Wav2Vec2Config, WhisperConfig

    whisper = WhisperConfig(vocab_size=VOCAB, num_mel_bins=8, d_model=WIDTH, encoder_layers=2,
                            encoder_attention_heads=4, decoder_layers=1, decoder_attention_heads=4,
                            encoder_ffn_dim=2 * WIDTH, decoder_ffn_dim=2 * WIDTH, max_source_positions=16,
                            max_target_positions=32, **SPECIAL, decoder_start_token_id=1)
    wav2vec2 = Wav2Vec2Config(hidden_size=WIDTH, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=2 * WIDTH, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                              num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, vocab_size=32)
    return [
        encoder("t5_encoder_tiny", "T5EncoderModel",
                configured("T5Config", vocab_size=vocab_, d_model=width_, d_kv=16, d_ff=double, num_layers=2,
                           num_heads=4, relative_attention_num_buckets=8, feed_forward_proj="gated-gelu",
                           pad_token_id=0, eos_token_id=2), IDS),
        encoder("bart_tiny", "BartModel",
                configured("BartConfig", vocab_size=vocab_, d_model=width_, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=double,
                           decoder_ffn_dim=double, max_position_embeddings=256, **SPECIAL,
                           decoder_start_token_id=2, use_cache=False), IDS, same_length=True),
        encoder("roberta_tiny", "RobertaModel", configured("RobertaConfig", **ENCODER), BERT),
        encoder("distilbert_tiny", "DistilBertModel",
                configured("DistilBertConfig", vocab_size=vocab_, dim=width_, hidden_dim=double, n_layers=2,
                           n_heads=4, max_position_embeddings=256, pad_token_id=0), IDS),
        encoder("albert_tiny", "AlbertModel", configured("AlbertConfig", **ENCODER, embedding_size=32), BERT),
        encoder("electra_tiny", "ElectraModel", configured("ElectraConfig", **ENCODER, embedding_size=32), BERT),
        encoder("xlm_roberta_tiny", "XLMRobertaModel", configured("XLMRobertaConfig", **ENCODER), BERT),
        encoder("mpnet_tiny", "MPNetModel", configured("MPNetConfig", **ENCODER), IDS),
        encoder("longformer_tiny", "LongformerModel",
                configured("LongformerConfig", **ENCODER, attention_window=4), IDS, same_length=True),
        encoder("fnet_tiny", "FNetModel",
                configured("FNetConfig", **{k: v for k, v in ENCODER.items() if k != "num_attention_heads"}),
                {"input_ids": "tokens", "token_type_ids": "token_types"}),
        encoder("xlnet_tiny", "XLNetModel",
                configured("XLNetConfig", vocab_size=vocab_, d_model=width_, n_layer=2, n_head=4, d_inner=double,
                           **SPECIAL), BERT),
        encoder("squeezebert_tiny", "SqueezeBertModel",
                configured("SqueezeBertConfig", **ENCODER, embedding_size=width_, q_groups=2, k_groups=2, v_groups=2,
                           post_attention_groups=2, intermediate_groups=2, output_groups=2), BERT),
        encoder("convbert_tiny", "ConvBertModel",
                configured("ConvBertConfig", **ENCODER, embedding_size=width_, conv_kernel_size=3, head_ratio=2),
                BERT),
        encoder("canine_tiny", "CanineModel",
                configured("CanineConfig", hidden_size=width_, intermediate_size=double, num_hidden_layers=2,
                           num_attention_heads=4, max_position_embeddings=256, num_hash_buckets=64,
                           downsampling_rate=2, local_transformer_stride=4, **SPECIAL), BERT),
        encoder("esm_tiny", "EsmModel",
                configured("EsmConfig", **ENCODER, position_embedding_type="rotary", mask_token_id=3), IDS,
                warm=True),
        encoder("funnel_tiny", "FunnelBaseModel",
                configured("FunnelConfig", vocab_size=vocab_, d_model=width_, n_head=4, d_head=16, d_inner=double,
                           block_sizes=[1, 1], pad_token_id=0), BERT),
        encoder("deberta_tiny", "DebertaModel",
                configured("DebertaConfig", **ENCODER, relative_attention=True, pos_att_type=["p2c", "c2p"],
                           max_relative_positions=16), BERT),
        encoder("big_bird_tiny", "BigBirdModel",
                configured("BigBirdConfig", **ENCODER, attention_type="original_full"), BERT),
        encoder("clip_text_tiny", "CLIPTextModel",
                configured("CLIPTextConfig", vocab_size=vocab_, hidden_size=width_, intermediate_size=double,
                           num_hidden_layers=2, num_attention_heads=4, max_position_embeddings=32, **SPECIAL), IDS),
        encoder("nystromformer_tiny", "NystromformerModel",
                configured("NystromformerConfig", **ENCODER, num_landmarks=4, segment_means_seq_len=8), BERT,
                same_length=True),
        Spec("wav2vec2_tiny", "language_model",
             lambda: Logits(__import__("transformers").Wav2Vec2Model(wav2vec2), ["input_values"], "last_hidden_state"),
             {"input_values": "float"}, [{"input_values": [1, 400]}, {"input_values": [2, 320]}],
             ["last_hidden_state"], f32=False),
        Spec("whisper_encoder_tiny", "language_model", lambda: WhisperEncoderOf(whisper),
             {"input_features": "float"}, [{"input_features": [1, 8, 32]}, {"input_features": [2, 8, 32]}],
             ["last_hidden_state"], f32=False),
    ]


def decoder(name: str, family: Family) -> Spec:
    """``family`` traced into ``logits`` at length 8, run at [1, 8] and [2, 8] (as the target zoo's decoders)."""
    import transformers

    return Spec(name, "language_model",
                lambda: Logits(getattr(transformers, family.cls)(family.config(VOCAB, WIDTH)), list(family.inputs),
                               "logits"),
                family.inputs, [{n: [1, 8] for n in family.inputs}, {n: [2, 8] for n in family.inputs}], ["logits"],
                f32=False, vocab=VOCAB)


def held_inputs(entry: dict[str, Any], out: Path) -> dict[str, Any]:
    """``entry`` with only the inputs (and their shapes) its IR has: an export without ``position_ids`` (ALiBi); and
    Mamba's ``cache_position``, as optimum-intel feeds its first step (0 .. MAMBA_CONV_KERNEL-1, whatever the
    prompt's length: ``positions`` of that length)."""
    names = {n for port in ov.Core().read_model(out / entry["file"]).inputs for n in port.get_names()}
    inputs = {k: v for k, v in entry["inputs"].items() if k in names}
    shapes = [{k: v for k, v in shape.items() if k in names} for shape in entry["shapes"]]
    if "cache_position" in names:
        inputs["cache_position"] = "positions"
        shapes = [{**shape, "cache_position": [MAMBA_CONV_KERNEL]} for shape in shapes]
    return {**entry, "inputs": inputs, "shapes": shapes}


def refused(name: str, exc: Exception) -> list[dict[str, Any]]:
    return [{"file": None, "model": name, "kind": "language_model", "refused": f"{type(exc).__name__}: {exc}"}]


def traced(spec: Spec, out: Path, compressions: tuple[str, ...]) -> list[dict[str, Any]]:
    """``spec`` converted (f16), and its f32 form (left in the staging directory, not listed) compressed by NNCF."""
    made = convert(spec, out, (True, False) if compressions else (True,))
    made = [e for e in made if e["weights"] == "f16"]
    for suffix in compressions:
        made.append(compress(ov.Core().read_model(out / f"{spec.name}_f32.xml"), spec, out, suffix, False))
    return made


def exported(name: str, family: str, out: Path, compressions: tuple[str, ...]) -> list[dict[str, Any]]:
    """``family`` exported stateful by optimum-intel (f16), and its f32 form compressed by NNCF."""
    made = stateful(name, family, VOCAB, WIDTH, out, (True, False) if compressions else (True,))
    made = [held_inputs(e, out) for e in made if e["weights"] == "f16"]
    for suffix in compressions:
        made.append(held_inputs(compress(ov.Core().read_model(out / f"{name}_f32.xml"), stateful_spec(name, VOCAB),
                                         out, suffix, True), out))
    return made


@dataclass
class Seq2Seq:
    """An encoder-decoder exported for generation by optimum-intel: its class, tiny config and task; the encoder's
    input (its kind and the shapes of the two runs); the lengths the encoder gives at those runs."""

    cls: str
    config: Callable[[int, int], Any]
    task: str
    source: str
    kind: str
    shapes: tuple[list[int], list[int]]
    encoded: tuple[int, int]


#: The decoder is stateful: self-attention's KV cache and cross-attention's KV (made at the first step from
#: ``encoder_hidden_states``) in ReadValue/Assign.
SEQ2SEQ = {
    "t5_seq2seq": Seq2Seq("T5ForConditionalGeneration",
                          configured("T5Config", vocab_size=vocab_, d_model=width_, d_kv=16, d_ff=double,
                                     num_layers=2, num_heads=4, relative_attention_num_buckets=8, pad_token_id=0,
                                     eos_token_id=2, decoder_start_token_id=0),
                          "text2text-generation-with-past", "input_ids", "tokens", ([1, 8], [2, 5]), (8, 5)),
    "whisper_seq2seq": Seq2Seq("WhisperForConditionalGeneration",
                               configured("WhisperConfig", vocab_size=vocab_, num_mel_bins=8, d_model=width_,
                                          encoder_layers=2, encoder_attention_heads=4, decoder_layers=2,
                                          decoder_attention_heads=4, encoder_ffn_dim=double, decoder_ffn_dim=double,
                                          max_source_positions=1500, max_target_positions=32, **SPECIAL,
                                          decoder_start_token_id=1),
                               "automatic-speech-recognition-with-past", "input_features", "float",
                               ([1, 8, 3000], [2, 8, 3000]), (1500, 1500)),
}


def seq2seq(name: str, out: Path) -> list[dict[str, Any]]:
    """``SEQ2SEQ[name]`` with random weights seeded by ``name``, exported by optimum-intel: its encoder
    (``<name>_encoder_f16``) and its stateful decoder (``<name>_decoder_stateful_f16``, run at its first step: 1 token
    at batch 1, 3 at batch 2)."""
    import transformers
    from optimum.exporters.openvino import main_export

    made = SEQ2SEQ[name]
    torch.manual_seed(seed_of(name))
    with tempfile.TemporaryDirectory(prefix=f"{name}-") as tmp:
        getattr(transformers, made.cls)(made.config(VOCAB, WIDTH)).eval().save_pretrained(Path(tmp) / "src")
        with quiet():
            main_export(str(Path(tmp) / "src"), output=Path(tmp) / "exported", task=made.task, stateful=True,
                        weight_format="fp32", convert_tokenizer=False)
        parts = {part: ov.Core().read_model(Path(tmp) / "exported" / f"openvino_{part}_model.xml")
                 for part in ("encoder", "decoder")}
    sources = {made.source: made.kind, "attention_mask": "mask"}  # (held_inputs drops a mask it has not)
    encoder_spec = Spec(f"{name}_encoder", "language_model", nn.Identity, sources,
                        [{n: shape if n == made.source else shape[:2] for n in sources} for shape in made.shapes],
                        ["last_hidden_state"], vocab=VOCAB)
    decoder = {"input_ids": "tokens", "encoder_hidden_states": "float", "encoder_attention_mask": "mask",
               "beam_idx": "beam"}
    decoder_spec = Spec(f"{name}_decoder_stateful", "language_model", nn.Identity, decoder,
                        [{"input_ids": [batch, tokens], "encoder_hidden_states": [batch, length, WIDTH],
                          "encoder_attention_mask": [batch, length], "beam_idx": [batch]}
                         for batch, tokens, length in zip((1, 2), (1, 3), made.encoded, strict=True)],
                        ["logits"], vocab=VOCAB)
    entries = []
    for spec, part in ((encoder_spec, "encoder"), (decoder_spec, "decoder")):
        file = f"{spec.name}_f16.xml"
        ov.save_model(parts[part], out / file, compress_to_fp16=True)
        entries.append(held_inputs(entry(spec, file, out, True, stateful=part == "decoder", verified=None), out))
    return entries


def timed(make: Callable[[], list[dict[str, Any]]], name: str) -> list[dict[str, Any]]:
    """What ``make`` builds, reported; a refusal is an entry, not the end of the build."""
    start = time.perf_counter()
    try:
        made = make()
    except Exception as exc:
        made = refused(name, exc)
    report(made, time.perf_counter() - start)
    return made


def wide_zoo(out: Path, only: set[str]) -> list[dict[str, Any]]:
    """Every traced model first (tracing fails after optimum's exports), then the stateful exports."""
    DECODERS.update({name: (f.cls, f.config) for name, f in WIDE_DECODERS.items()})  # what ``stateful`` exports
    nncf = COMPRESS_TO if has_nncf() else ()
    entries = []
    specs = [(decoder(f"{n}_tiny", f), n in COMPRESSED) for n, f in WIDE_DECODERS.items()]
    for spec, squeezed in specs + [(s, False) for s in encoders()]:
        if not only or spec.name in only:
            entries += timed(lambda spec=spec, squeezed=squeezed: traced(spec, out, nncf if squeezed else ()),
                             spec.name)
    for family in WIDE_DECODERS:
        name = f"{family}_tiny_stateful"
        if (only and name not in only) or not has_optimum():
            continue
        entries += timed(lambda name=name, family=family: exported(name, family, out,
                                                                   nncf if family in COMPRESSED else ()), name)
    for name in SEQ2SEQ:
        if (not only or name in only) and has_optimum():
            entries += timed(lambda name=name: seq2seq(name, out), name)
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="*", default=[], help="build only these models (for trying)")
    args = parser.parse_args()
    assert set(COMPRESS_TO) <= set(COMPRESSIONS)
    build_into(args.out.expanduser(), lambda staging: wide_zoo(staging, set(args.only)), "scripts/build_wide_zoo.py")


if __name__ == "__main__":
    main()
