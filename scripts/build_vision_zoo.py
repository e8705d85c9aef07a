"""Build the wide vision zoo: vision, video, audio and diffusion networks outside the target zoo, converted today, for
a sweep of ``migrate --target`` (``IR_TOOLS_TARGET_ZOO=DIR python scripts/zoo_targets.py``).

Runs in the target zoo's environment (scripts/build_target_zoo.py says how to install it; diffusers too) and reuses
that script's building blocks; the project never imports it. Nothing is downloaded: random weights from a seed per
model name, torchvision ``weights=None``, transformers and diffusers models from small configs::

    HF_HUB_OFFLINE=1 python scripts/build_vision_zoo.py [--out DIR] [--only NAME ...]

Where: ``--out``, else ``~/.cache/ir_tools/wide_zoo_vision``. ``manifest.json`` is the target zoo's format
(build_target_zoo.py's docstring). Each model is ``ov.convert_model(model, example_input=...)`` as a user converts
today (dynamic dims as the converter leaves them, unless named static: ``input=[...]``), saved f16-compressed (and f32
unless the spec says ``f32=False``), each under 25 MB; about 90 IRs, 120 MB, 5 minutes on 2 cores:

- ``kind: detection``: torchvision's ssdlite320_mobilenet_v3_large and, around a small feature pyramid
  (``TinyPyramid``: four strided convolutions and ``FeaturePyramidNetwork``, 32 channels), its FasterRCNN, MaskRCNN,
  KeypointRCNN, RetinaNet and FCOS (NonMaxSuppression, ROIAlign, TopK, NonZero, ScatterElementsUpdate; every score
  kept, 20 detections: boxes, scores and labels of one image); DETR (its own ResNet backbone) and YOLOS of
  transformers; ``deformable`` (DeformConv2d with a mask) and ``roi_nms`` (roi_align and nms of fixed boxes).
- ``kind: segmentation``: deeplabv3_mobilenet_v3_large (f16 only, 11M weights), an FCN head on resnet18's first three
  stages, SegFormer.
- ``kind: video``: a SwinTransformer3d, an MViT and a (2+1)D VideoResNet of one block a stage (f16 only), small;
  ``video_pools`` (MaxPool3d and AvgPool3d in ceil mode, ConvTranspose3d, AdaptiveAvgPool3d).
- ``kind: optical_flow``: raft_small (GridSample, correlation pyramid), three flow updates, at 128x128 (its
  correlation pyramid asks features of 16x16).
- ``kind: cnn``: ConvNeXt and EfficientNetV2-style (fused MBConv) nets of small widths, a ViT of 16x16 patches; the
  ConvNeXt also static (``input=[1, 3, 64, 64]``) and that with a PrePostProcessor (``_ppp``: u8 NHWC of any size,
  mean, scale, linear resize); a mobilenet_v3_large quantized by NNCF (``mobilenet_v3_large_int8``: FakeQuantize,
  random calibration).
- ``kind: vision_transformer`` (transformers, small configs): ConvNeXt, MobileViT, LeViT, DINOv2, BEiT (relative
  position bias), Data2VecVision, the CLIP vision tower and it quantized by NNCF (transformer scheme,
  ``clip_vision_int8``); ``kind: text``: the CLIP text tower, and it with its weights compressed by NNCF
  (``clip_text_int8``, ``_int4_sym``, ``_int4_asym``: build_target_zoo's ``COMPRESSIONS``).
- ``kind: audio``: wav2vec2 and HuBERT (convolutional feature extractor, GroupNorm), Whisper's encoder (static input
  length); a Whisper-style log-mel front end (STFT-15; also static), a CRNN (bidirectional GRU, LSTM) and a
  conformer-style encoder (torch's TransformerEncoder, GLU, depthwise Conv1d).
- ``kind: diffusion`` (diffusers): UNet2DModel (sample and timestep) and AutoencoderKL (GroupNorm, upsampling
  Interpolate), the latter also static.
- ``kind: blocks``: small networks of rarer layers: super-resolution (PixelShuffle, bicubic and antialiased
  Interpolate), SegNet-style (MaxPool with indices, grouped ConvTranspose2d, InstanceNorm, LRN, AdaptiveMaxPool),
  GFNet's global filter (RDFT, IRDFT; static), a spatial transformer (GridSample in each mode and padding), a ranking
  head (TopK, sort, CumSum, SearchSorted, Bucketize, GatherElements, scatter_reduce amax without self and mean:
  ScatterElementsUpdate-12), most of torch's activations; and segformer static with a PrePostProcessor (BGR, cubic
  resize, NHWC logits: ``segformer_static_ppp``).

Skipped or changed: s3d (its head's AvgPool3d of (2, 7, 7) asks 224x224 clips of 16 frames: too slow here); r3d_18,
mc3_18, r2plus1d_18, mvit_v2_s, efficientnet_v2_s, vit_b_16, fcn_resnet50 and retinanet_resnet50_fpn (over 20M
weights: small configs of their classes instead); what the converter refuses (``affine_grid``, Softshrink,
``roi_pool``; MaxUnpool2d does not trace); roi_align of adaptive sampling (``sampling_ratio=-1``) of a convolution's
output beside nms, which crashed the build (a segmentation fault in the converter or OpenVINO's first run; not
reduced); an f16 output added by the PrePostProcessor (``migrate --target`` refuses it for 2023.0 to 2024.2, which
saturate an f16 output: by design, ``float_convert.f16_io``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import openvino as ov
import torch
import torchvision
from build_target_zoo import (
    Spec,
    build,
    build_into,
    compressed,
    convert,
    entry,
    example,
    name_ports,
    quiet,
    report,
    seed_of,
    tv,
)
from openvino.preprocess import PrePostProcessor, ResizeAlgorithm
from torch import nn
from torch.nn import functional as F
from torchvision.models import detection, efficientnet, segmentation, video
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.ops import FeaturePyramidNetwork
from torchvision.ops.feature_pyramid_network import LastLevelMaxPool, LastLevelP6P7

DEFAULT_OUT = Path.home() / ".cache" / "ir_tools" / "wide_zoo_vision"
WIDTH = 32  # the small feature pyramid's channels


# -- wrappers: one named tensor (or a tuple) out of what each library answers ----------------------------------------
class FirstImage(nn.Module):
    """A torchvision detector on a batch tensor: boxes, scores and labels of the first image (plus its masks or
    keypoints when ``extra`` names them)."""

    def __init__(self, model: nn.Module, extra: str | None = None):
        super().__init__()
        self.model, self.extra = model, extra

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        found = self.model(list(x))[0]
        return (found["boxes"], found["scores"], found["labels"]) + ((found[self.extra],) if self.extra else ())


class Field(nn.Module):
    """A model called with positional tensors (named ``names``, when given) into one field of its output (a dict, a
    list or a transformers output)."""

    def __init__(self, model: nn.Module, key: str | int, names: list[str] | None = None):
        super().__init__()
        self.model, self.key, self.names = model, key, names

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        out = self.model(**dict(zip(self.names, args, strict=True))) if self.names else self.model(*args)
        return out[self.key] if isinstance(self.key, int) or isinstance(out, dict) else getattr(out, self.key)


class Flow(nn.Module):
    """RAFT of ``updates`` flow updates: the last flow."""

    def __init__(self, model: nn.Module, updates: int):
        super().__init__()
        self.model, self.updates = model, updates

    def forward(self, image1: torch.Tensor, image2: torch.Tensor) -> torch.Tensor:
        return self.model(image1, image2, num_flow_updates=self.updates)[-1]


class AutoEncode(nn.Module):
    """diffusers' AutoencoderKL: the image decoded from the mode of its latent distribution."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model.decode(self.model.encode(x).latent_dist.mode()).sample


class TinyPyramid(nn.Module):
    """Four strided convolution stages and a FeaturePyramidNetwork of ``WIDTH`` channels on the last ``levels``: a
    detection backbone of a few hundred kilobytes (``out_channels``, as torchvision's detectors ask)."""

    def __init__(self, extra: nn.Module, levels: int):
        super().__init__()
        widths = [3, 16, 24, 32, 48]
        self.stages = nn.ModuleList(
            nn.Sequential(nn.Conv2d(a, b, 3, stride=2, padding=1), nn.BatchNorm2d(b), nn.ReLU())
            for a, b in zip(widths, widths[1:], strict=False))
        self.first = len(self.stages) - levels
        self.fpn = FeaturePyramidNetwork(widths[1 + self.first:], WIDTH, extra_blocks=extra)
        self.out_channels = WIDTH

    def forward(self, x: torch.Tensor) -> OrderedDict[str, torch.Tensor]:
        features = OrderedDict()
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i >= self.first:
                features[str(i - self.first)] = x
        return self.fpn(features)


# -- the models ------------------------------------------------------------------------------------------------------
def images(side: int, other: int | None = None, batch2: bool = True, name: str = "input",
           frames: int | None = None) -> tuple[dict[str, str], list[dict[str, list[int]]]]:
    """One float image (or clip of ``frames``) input, run at batch 1 and at batch 2 (at ``other`` size, if given)."""
    time_ = [frames] if frames else []
    shapes = [{name: [1, 3, *time_, side, side]}]
    if batch2:
        shapes.append({name: [2, 3, *time_, other or side, other or side]})
    return {name: "float"}, shapes


SMALL_DETECTOR = {"min_size": 96, "max_size": 96, "box_score_thresh": 0.0, "box_detections_per_img": 20}


def detector(name: str, make: Callable[[], nn.Module], extra: str | None = None) -> Spec:
    outputs = ["boxes", "scores", "labels"] + ([extra] if extra else [])
    return Spec(name, "detection", lambda: FirstImage(make(), extra), *images(96, batch2=False), outputs, f32=False)


def rcnn(cls: type) -> Callable[[], nn.Module]:
    """FasterRCNN or MaskRCNN on the small pyramid (four levels and a pooled one, as its anchors ask)."""
    return lambda: cls(TinyPyramid(LastLevelMaxPool(), 4), num_classes=5, **SMALL_DETECTOR)


def keypoint_rcnn() -> nn.Module:
    heads = detection.keypoint_rcnn.KeypointRCNNHeads(WIDTH, (64, 64))
    return detection.KeypointRCNN(TinyPyramid(LastLevelMaxPool(), 4), num_classes=2, keypoint_head=heads,
                                  keypoint_predictor=detection.keypoint_rcnn.KeypointRCNNPredictor(64, 5),
                                  **SMALL_DETECTOR)


def one_stage(cls: type) -> Callable[[], nn.Module]:
    """RetinaNet or FCOS on the small pyramid (P3 to P7)."""
    return lambda: cls(TinyPyramid(LastLevelP6P7(WIDTH, WIDTH), 3), num_classes=5, min_size=96, max_size=96,
                       score_thresh=0.0, detections_per_img=20)


def fcn_resnet18() -> nn.Module:
    backbone = torchvision.models._utils.IntermediateLayerGetter(torchvision.models.resnet18(weights=None),
                                                                 {"layer3": "out"})
    return segmentation.fcn.FCN(backbone, segmentation.fcn.FCNHead(256, 5))


def mvit() -> nn.Module:
    config = video.mvit.MSBlockConfig
    blocks = [config(num_heads=1, input_channels=16, output_channels=16, kernel_q=[3, 3, 3], kernel_kv=[3, 3, 3],
                     stride_q=[1, 1, 1], stride_kv=[1, 2, 2]),
              config(num_heads=2, input_channels=16, output_channels=32, kernel_q=[3, 3, 3], kernel_kv=[3, 3, 3],
                     stride_q=[1, 2, 2], stride_kv=[1, 1, 1])]
    return video.mvit.MViT(spatial_size=(32, 32), temporal_size=4, block_setting=blocks, residual_pool=True,
                           residual_with_cls_embed=False, rel_pos_embed=True, proj_after_attn=True, num_classes=10)


def efficientnet_v2_small() -> nn.Module:
    fused, mb = efficientnet.FusedMBConvConfig, efficientnet.MBConvConfig
    setting = [fused(1, 3, 1, 16, 16, 1), fused(4, 3, 2, 16, 24, 1), mb(4, 3, 2, 24, 32, 1), mb(6, 3, 1, 32, 48, 2)]
    return efficientnet.EfficientNet(setting, dropout=0.2, last_channel=128, num_classes=10)


def convnext_small() -> nn.Module:
    return ConvNeXt([CNBlockConfig(16, 32, 2), CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 1)],
                    num_classes=10)


def torchvision_models() -> list[Spec]:
    static = {"convert": {"input": [1, 3, 64, 64]}}
    return [
        detector("ssdlite320", lambda: detection.ssdlite320_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=5, score_thresh=0.0, detections_per_img=20)),
        detector("fasterrcnn_small", rcnn(detection.FasterRCNN)),
        detector("maskrcnn_small", rcnn(detection.MaskRCNN), "masks"),
        detector("keypointrcnn_small", keypoint_rcnn, "keypoints"),
        detector("retinanet_small", one_stage(detection.RetinaNet)),
        detector("fcos_small", one_stage(detection.FCOS)),
        Spec("deeplabv3_mobilenet_v3_large", "segmentation",
             lambda: Field(segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                      num_classes=5), "out"),
             *images(64, 48), ["out"], f32=False, calibrate=True),
        Spec("fcn_resnet18", "segmentation", lambda: Field(fcn_resnet18(), "out"), *images(64, 48), ["out"],
             calibrate=True),
        Spec("swin3d_small_test", "video",
             lambda: video.swin_transformer.SwinTransformer3d(patch_size=[2, 4, 4], embed_dim=16, depths=[2, 2],
                                                              num_heads=[2, 4], window_size=[2, 4, 4],
                                                              stochastic_depth_prob=0.0, num_classes=10),
             *images(32, frames=4), ["logits"]),
        Spec("mvit_small_test", "video", mvit, *images(32, frames=4), ["logits"]),
        Spec("r2plus1d_small", "video",
             lambda: video.resnet.VideoResNet(video.resnet.BasicBlock, [video.resnet.Conv2Plus1D] * 4, [1, 1, 1, 1],
                                              video.resnet.R2Plus1dStem, num_classes=10),
             *images(32, frames=4), ["logits"], f32=False, calibrate=True),
        Spec("raft_small", "optical_flow", lambda: Flow(torchvision.models.optical_flow.raft_small(weights=None), 3),
             {"image1": "float", "image2": "float"},
             [{"image1": [1, 3, 128, 128], "image2": [1, 3, 128, 128]}], ["flow"]),
        Spec("convnext_small", "cnn", convnext_small, *images(64, 48), ["logits"]),
        Spec("convnext_small_static", "cnn", convnext_small, *images(64, batch2=False), ["logits"], extra=static),
        Spec("efficientnet_v2_small", "cnn", efficientnet_v2_small, *images(64, 72), ["logits"], calibrate=True),
        Spec("vit_patch16_small", "cnn",
             lambda: torchvision.models.VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4,
                                                          hidden_dim=64, mlp_dim=128, num_classes=10),
             *images(64), ["logits"]),
    ]


def hf(cls: str, config: Callable[[], Any], key: str, names: list[str] | None = None) -> Callable[[], nn.Module]:
    """A transformers model of ``config`` with random weights, into its output ``key``."""
    import transformers

    return lambda: Field(getattr(transformers, cls)(config()), key, names)


def warmed(make: Callable[[], nn.Module], shape: list[int]) -> Callable[[], nn.Module]:
    """``make``'s model run once in eval mode: LeViT caches its attention biases at the first call, which tracing's
    second call would otherwise see differ from the first."""

    def made() -> nn.Module:
        model = make().eval()
        with torch.no_grad():
            model(torch.zeros(shape))
        return model

    return made


def transformers_models() -> list[Spec]:
    import transformers as t

    small = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
    vit = {**small, "image_size": 32, "patch_size": 8}
    audio = {**small, "conv_dim": (16, 16, 16), "conv_stride": (5, 2, 2), "conv_kernel": (10, 3, 3),
             "num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 2, "feat_extract_norm": "group"}
    pixels = images(32, name="pixel_values")
    clip_text = {"input_ids": "tokens", "attention_mask": "mask"}
    whisper = t.WhisperConfig(d_model=32, encoder_layers=2, encoder_attention_heads=2, encoder_ffn_dim=64,
                              num_mel_bins=16, max_source_positions=32, decoder_layers=1,
                              decoder_attention_heads=2, decoder_ffn_dim=64)
    return [
        Spec("hf_convnext", "vision_transformer",
             hf("ConvNextModel", lambda: t.ConvNextConfig(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2),
                "pooler_output"), *pixels, ["pooler_output"]),
        Spec("segformer", "segmentation",
             hf("SegformerForSemanticSegmentation",
                lambda: t.SegformerConfig(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
                                          num_attention_heads=[1, 2], decoder_hidden_size=32, num_labels=5,
                                          patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2]), "logits"),
             *images(64, 48, name="pixel_values"), ["logits"]),
        Spec("mobilevit", "vision_transformer",
             hf("MobileViTModel", lambda: t.MobileViTConfig(image_size=64, hidden_sizes=[24, 32, 40],
                                                             neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64],
                                                             num_attention_heads=2), "pooler_output"),
             *images(64, name="pixel_values"), ["pooler_output"]),
        Spec("levit", "vision_transformer",
             warmed(hf("LevitModel", lambda: t.LevitConfig(image_size=64, hidden_sizes=[16, 32, 48],
                                                           num_attention_heads=[1, 2, 3], depths=[1, 1, 1],
                                                           key_dim=[8, 8, 8], mlp_ratio=[2, 2, 2],
                                                           attention_ratio=[2, 2, 2]), "pooler_output"),
                    [1, 3, 64, 64]),
             *images(64, name="pixel_values"), ["pooler_output"]),
        Spec("dinov2", "vision_transformer", hf("Dinov2Model", lambda: t.Dinov2Config(**vit), "last_hidden_state"),
             *images(32, 40, name="pixel_values"), ["last_hidden_state"]),
        Spec("beit", "vision_transformer",
             hf("BeitModel", lambda: t.BeitConfig(**vit, use_relative_position_bias=True, use_mask_token=False),
                "last_hidden_state"), *pixels, ["last_hidden_state"]),
        Spec("data2vec_vision", "vision_transformer",
             hf("Data2VecVisionModel", lambda: t.Data2VecVisionConfig(**vit, use_shared_relative_position_bias=True),
                "last_hidden_state"), *pixels, ["last_hidden_state"]),
        Spec("clip_vision", "vision_transformer",
             hf("CLIPVisionModel", lambda: t.CLIPVisionConfig(**vit), "pooler_output"), *pixels, ["pooler_output"]),
        Spec("clip_text", "text",
             hf("CLIPTextModel", lambda: t.CLIPTextConfig(**small, vocab_size=256, max_position_embeddings=32),
                "pooler_output", list(clip_text)),
             clip_text, [{n: [1, 8] for n in clip_text}, {n: [2, 8] for n in clip_text}], ["pooler_output"],
             vocab=256),
        Spec("yolos", "detection",
             hf("YolosForObjectDetection",
                lambda: t.YolosConfig(**{**vit, "image_size": [32, 32]}, num_detection_tokens=4, num_labels=5),
                "pred_boxes"), *pixels, ["pred_boxes"]),
        Spec("detr", "detection",
             hf("DetrForObjectDetection",
                lambda: t.DetrConfig(use_timm_backbone=False, use_pretrained_backbone=False,
                                     backbone_config=t.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 32, 64],
                                                                    depths=[1, 1, 1, 1], out_features=["stage4"]),
                                     d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                                     decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=8,
                                     num_labels=5), "pred_boxes"),
             *images(64, 48, name="pixel_values"), ["pred_boxes"]),
        Spec("wav2vec2", "audio", hf("Wav2Vec2Model", lambda: t.Wav2Vec2Config(**audio), "last_hidden_state"),
             {"input_values": "float"}, [{"input_values": [1, 1600]}, {"input_values": [2, 2000]}],
             ["last_hidden_state"]),
        Spec("hubert", "audio", hf("HubertModel", lambda: t.HubertConfig(**audio), "last_hidden_state"),
             {"input_values": "float"}, [{"input_values": [1, 1600]}, {"input_values": [2, 2000]}],
             ["last_hidden_state"]),
        Spec("whisper_encoder", "audio", lambda: Field(t.WhisperModel(whisper).encoder, "last_hidden_state"),
             {"input_features": "float"}, [{"input_features": [1, 16, 64]}, {"input_features": [2, 16, 64]}],
             ["last_hidden_state"]),
    ]


def diffusers_models() -> list[Spec]:
    from diffusers import AutoencoderKL, UNet2DModel

    def vae() -> nn.Module:
        return AutoEncode(AutoencoderKL(block_out_channels=(16, 32), down_block_types=("DownEncoderBlock2D",) * 2,
                                        up_block_types=("UpDecoderBlock2D",) * 2, norm_num_groups=8,
                                        latent_channels=4, layers_per_block=1))

    def unet() -> nn.Module:
        return Field(UNet2DModel(sample_size=32, block_out_channels=(16, 32), layers_per_block=1, norm_num_groups=8,
                                 down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                                 up_block_types=("AttnUpBlock2D", "UpBlock2D"), attention_head_dim=8), "sample")

    return [
        Spec("unet2d", "diffusion", unet, {"sample": "float", "timestep": "float"},
             [{"sample": [1, 3, 32, 32], "timestep": [1]}, {"sample": [2, 3, 32, 32], "timestep": [2]}],
             ["sample"]),
        Spec("autoencoder_kl", "diffusion", vae, *images(32, 48), ["sample"]),
        Spec("autoencoder_kl_static", "diffusion", vae, *images(32, batch2=False), ["sample"], f32=False,
             extra={"convert": {"input": [1, 3, 32, 32]}}),
    ]


# -- small networks of the rarer layers of vision and audio pipelines ------------------------------------------------
class SuperResolution(nn.Module):
    """ESPCN-style: convolutions into PixelShuffle (DepthToSpace), added to a bicubic upsampling of the input, then an
    antialiased bilinear downsampling by a non-integer factor."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 5, padding=2), nn.Tanh(), nn.Conv2d(16, 12, 3, padding=1),
                                  nn.PixelShuffle(2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        up = self.body(x) + F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)
        return F.interpolate(up, scale_factor=0.75, mode="bilinear", antialias=True)


class SegNet(nn.Module):
    """SegNet-style: MaxPool2d with its indices (an output: MaxUnpool2d does not trace), a grouped ConvTranspose2d with
    output padding, InstanceNorm2d, LocalResponseNorm and AdaptiveMaxPool2d."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2, return_indices=True)
        self.up = nn.ConvTranspose2d(8, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.norm = nn.InstanceNorm2d(8, affine=True)
        self.lrn = nn.LocalResponseNorm(3)
        self.head = nn.AdaptiveMaxPool2d((5, 7))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y, indices = self.pool(torch.relu(self.enc(x)))
        return self.head(self.lrn(self.norm(self.up(y)))), indices


class LogMel(nn.Module):
    """Whisper-style log-mel front end: STFT (Hann window, centred: reflect padding), power, a mel matrix, log10 of
    the clamped energies, floored 8 below their maximum; a Conv1d and GELU over it."""

    def __init__(self, n_fft: int = 64, mels: int = 16):
        super().__init__()
        self.n_fft = n_fft
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("mel", torch.rand(n_fft // 2 + 1, mels))
        self.conv = nn.Conv1d(mels, 16, 3, padding=1)

    def forward(self, audio: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(audio, self.n_fft, hop_length=16, window=self.window, center=True, return_complex=True)
        energy = (spec.abs() ** 2).transpose(-1, -2) @ self.mel
        log = torch.clamp(energy, min=1e-10).log10()
        log = torch.maximum(log, log.amax(dim=(-2, -1), keepdim=True) - 8.0)
        return F.gelu(self.conv(log.transpose(-1, -2)))


class GlobalFilter(nn.Module):
    """GFNet's global filter layer: rfft2, a learned complex filter, irfft2 (RDFT, IRDFT), a LayerNorm and an MLP."""

    def __init__(self, channels: int = 8, side: int = 16):
        super().__init__()
        self.filter = nn.Parameter(torch.randn(channels, side, side // 2 + 1, 2) * 0.02)
        self.norm = nn.LayerNorm(channels)
        self.mlp = nn.Sequential(nn.Linear(channels, 16), nn.GELU(approximate="tanh"), nn.Linear(16, channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        spectrum = torch.fft.rfft2(x, norm="ortho") * torch.view_as_complex(self.filter)
        y = torch.fft.irfft2(spectrum, s=x.shape[-2:], norm="ortho").permute(0, 2, 3, 1)
        return (y + self.mlp(self.norm(y))).permute(0, 3, 1, 2)


class Warp(nn.Module):
    """A spatial transformer: the sampling grid of a predicted affine (as affine_grid makes it, which the converter
    refuses), and grid_sample in each mode and padding mode."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(48, 6))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        theta = self.loc(x).view(-1, 2, 3) * 0.1 + torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        ys, xs = torch.meshgrid(torch.linspace(-1.2, 1.2, x.shape[-2]), torch.linspace(-1.2, 1.2, x.shape[-1]),
                                indexing="ij")
        base = torch.stack([xs, ys, torch.ones_like(xs)], -1).flatten(0, 1)  # [H*W, 3]
        grid = (base @ theta.transpose(1, 2)).view(x.shape[0], x.shape[-2], x.shape[-1], 2)
        return torch.cat([F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=True),
                          F.grid_sample(x, grid, mode="nearest", padding_mode="zeros", align_corners=False),
                          F.grid_sample(x, grid, mode="bicubic", padding_mode="reflection", align_corners=False)], 1)


class RankingHead(nn.Module):
    """What post-processing heads do with scores: topk, a stable descending sort, cumsum, searchsorted and bucketize
    into thresholds, gather, and scatter_reduce (amax, mean) into bins."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, 3, stride=2)
        self.register_buffer("edges", torch.linspace(-1.0, 1.0, 9))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        scores = self.proj(x).flatten(2)  # [N, 8, L]
        top, where = scores.topk(5, dim=-1)
        ordered, order = torch.sort(scores, dim=1, descending=True, stable=True)
        bins = torch.bucketize(torch.tanh(scores), self.edges)
        found = torch.searchsorted(self.edges, torch.tanh(top).contiguous())
        picked = torch.gather(scores.cumsum(-1), -1, where)
        pooled = torch.zeros(scores.shape[0], 8, 10).scatter_reduce(-1, bins, scores, "amax", include_self=False)
        mean = torch.zeros(scores.shape[0], 8, 10).scatter_reduce(-1, bins, scores, "mean", include_self=True)
        return picked + found, ordered[:, :2] * order[:, :2], pooled, mean


class Activations(nn.Module):
    """Convolutions between the activation functions torch offers, most of them (each its own OpenVINO op or
    decomposition; not Softshrink, which the converter refuses), and a LogSoftmax."""

    def __init__(self):
        super().__init__()
        acts = [nn.GELU(approximate="tanh"), nn.Mish(), nn.Hardswish(), nn.Hardsigmoid(), nn.SELU(),
                nn.Softplus(beta=2.0, threshold=5.0), nn.ELU(0.5), nn.PReLU(8), nn.Softsign(), nn.LogSigmoid(),
                nn.Hardtanh(-0.5, 0.5), nn.CELU(0.7), nn.SiLU(), nn.Tanhshrink()]
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1),
                                  *[nn.Sequential(act, nn.Conv2d(8, 8, 1)) for act in acts], nn.LogSoftmax(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


class Pool3d(nn.Module):
    """A video stem of the 3D pools: MaxPool3d (ceil mode, dilation), AvgPool3d (ceil mode, padding not counted), a
    ConvTranspose3d and AdaptiveAvgPool3d to an odd size."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3, padding=1)
        self.max = nn.MaxPool3d(3, stride=2, dilation=(1, 2, 2), ceil_mode=True)
        self.avg = nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)
        self.up = nn.ConvTranspose3d(8, 4, (1, 3, 3), stride=(1, 2, 2))
        self.head = nn.AdaptiveAvgPool3d((2, 3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.up(self.avg(self.max(torch.relu(self.conv(x))))))


class Deformable(nn.Module):
    """DeformConv2d with a mask, its offsets and mask predicted by a convolution (DeformableConvolution-8)."""

    def __init__(self):
        super().__init__()
        self.offsets = nn.Conv2d(3, 27, 3, padding=1)
        self.deform = torchvision.ops.DeformConv2d(3, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        offsets, mask = self.offsets(x).split([18, 9], dim=1)
        return self.deform(x, offsets, torch.sigmoid(mask))


class RoiNms(nn.Module):
    """roi_align (aligned, 2x2 samples a bin: adaptive sampling, -1, crashed the build) of fixed boxes from convolved
    features, and nms of the boxes scored by what it pooled (not roi_pool, which the converter refuses)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.register_buffer("boxes", torch.tensor([[0, 2.0, 2.0, 20.0, 24.0], [0, 8.0, 1.0, 30.0, 14.0],
                                                    [0, 3.0, 3.0, 21.0, 25.0], [0, 0.0, 0.0, 31.0, 31.0]]))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        aligned = torchvision.ops.roi_align(self.conv(x), self.boxes, (4, 4), spatial_scale=1.0, sampling_ratio=2,
                                            aligned=True)
        return aligned, torchvision.ops.nms(self.boxes[:, 1:], aligned.mean((1, 2, 3)), 0.5)


class Crnn(nn.Module):
    """A CRNN speech or text recogniser: convolutions over a spectrogram, a bidirectional GRU and an LSTM over time,
    log-probabilities per frame."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.gru = nn.GRU(8 * 8, 16, batch_first=True, bidirectional=True)
        self.lstm = nn.LSTM(32, 16, batch_first=True)
        self.out = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)  # [N, 8, 8, T]
        y = y.flatten(1, 2).transpose(1, 2)
        y, _ = self.gru(y)
        y, _ = self.lstm(y)
        return self.out(y).log_softmax(-1)


class ConvSubsampledEncoder(nn.Module):
    """A conformer-style audio encoder: Conv1d subsampling, torch's TransformerEncoder (pre-norm, batch first) and a
    convolution module (GLU, depthwise Conv1d, BatchNorm1d, SiLU)."""

    def __init__(self, width: int = 32):
        super().__init__()
        self.sub = nn.Sequential(nn.Conv1d(16, width, 3, stride=2), nn.GELU())
        layer = nn.TransformerEncoderLayer(width, 4, 64, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.pointwise = nn.Conv1d(width, 2 * width, 1)
        self.depthwise = nn.Conv1d(width, width, 7, padding=3, groups=width)
        self.norm = nn.BatchNorm1d(width)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        y = self.encoder(self.sub(features).transpose(1, 2)).transpose(1, 2)
        return y + F.silu(self.norm(self.depthwise(F.glu(self.pointwise(y), dim=1))))


def block_models() -> list[Spec]:
    return [
        Spec("super_resolution", "blocks", SuperResolution, *images(32, 24), ["image"]),
        Spec("segnet", "blocks", SegNet, *images(32, 40), ["out", "indices"]),
        Spec("log_mel_frontend", "audio", LogMel, {"audio": "float"},
             [{"audio": [1, 1024]}, {"audio": [2, 800]}], ["features"]),
        Spec("log_mel_frontend_static", "audio", LogMel, {"audio": "float"}, [{"audio": [1, 1024]}], ["features"],
             extra={"convert": {"input": [1, 1024]}}),
        Spec("global_filter_static", "blocks", GlobalFilter, {"input": "float"}, [{"input": [1, 8, 16, 16]}], ["out"],
             extra={"convert": {"input": [1, 8, 16, 16]}}),
        Spec("spatial_transformer", "blocks", Warp, *images(32, 24), ["warped"]),
        Spec("ranking_head", "blocks", RankingHead, *images(17, 21), ["picked", "ordered", "pooled", "mean"]),
        Spec("activations", "blocks", Activations, *images(16, 12), ["logits"]),
        Spec("video_pools", "video", Pool3d, *images(16, 13, frames=6), ["out"]),
        Spec("deformable", "detection", Deformable, *images(32, 24), ["out"]),
        Spec("roi_nms", "detection", RoiNms, *images(32, batch2=False), ["aligned", "keep"]),
        Spec("crnn", "audio", Crnn, {"input": "float"}, [{"input": [1, 1, 16, 20]}, {"input": [2, 1, 16, 13]}],
             ["log_probs"], calibrate=True),
        Spec("conformer_small", "audio", ConvSubsampledEncoder, {"features": "float"},
             [{"features": [1, 16, 40]}, {"features": [2, 16, 33]}], ["encoded"]),
    ]


# -- the other forms: a PrePostProcessor's layers, NNCF's int8 -------------------------------------------------------
def classifier_steps(ppp: PrePostProcessor) -> None:
    """A classifier's deployment: u8 NHWC of any size, converted to f32, mean and scale, a linear resize."""
    ppp.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_spatial_dynamic_shape()
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    ppp.input().preprocess().convert_element_type(ov.Type.f32).mean([123.7, 116.3, 103.5]).scale(
        [58.4, 57.1, 57.4]).resize(ResizeAlgorithm.RESIZE_LINEAR)


def segmentation_steps(ppp: PrePostProcessor) -> None:
    """A segmenter's deployment: f32 BGR NHWC of any size, channels reversed, a cubic resize, one scale; the logits
    given NHWC (in f32: an f16 output converted from f32 is refused for 2023.0 to 2024.2, which saturate it)."""
    ppp.input().tensor().set_layout(ov.Layout("NHWC")).set_spatial_dynamic_shape()
    ppp.input().model().set_layout(ov.Layout("NCHW"))
    ppp.input().preprocess().reverse_channels().resize(ResizeAlgorithm.RESIZE_CUBIC).scale(2.0)
    ppp.output().model().set_layout(ov.Layout("NCHW"))
    ppp.output().tensor().set_layout(ov.Layout("NHWC"))


def with_preprocessing(spec: Spec, steps: Callable[[PrePostProcessor], None], out: Path) -> list[dict[str, Any]]:
    """``spec`` (one image input, converted static: a resize asks the model's size) converted f32, then given what a
    deployment adds with a PrePostProcessor (``steps``); saved f16 as ``<name>_ppp``. Its run shapes: NHWC at the
    size it was converted at and at another."""
    with tempfile.TemporaryDirectory(prefix="ppp-", dir=out) as tmp:
        verified = convert(spec, Path(tmp), (False,))[0]["verified"]
        model = ov.Core().read_model(Path(tmp) / f"{spec.name}_f32.xml")
    ppp = PrePostProcessor(model)
    steps(ppp)
    model = ppp.build()
    (name, shape), = spec.shapes[0].items()
    shapes = [{name: [1, shape[2], shape[3], 3]}, {name: [1, shape[2] + 16, shape[3] - 8, 3]}]
    ppp_spec = Spec(f"{spec.name}_ppp", spec.kind, spec.make, spec.inputs, shapes, spec.outputs)
    file = f"{ppp_spec.name}_f16.xml"
    ov.save_model(model, out / file)
    return [entry(ppp_spec, file, out, True, stateful=False, verified=verified)]


def quantized(spec: Spec, out: Path, transformer: bool = False) -> list[dict[str, Any]]:
    """``spec`` (of one float input) quantized by NNCF to int8 (FakeQuantize, calibrated on a few random inputs;
    ``transformer``: NNCF's transformer scheme), saved as ``<name>_int8``."""
    import nncf

    torch_model = build(spec)
    feed = tuple(example(spec, spec.shapes[0], 0).values())
    with quiet(), torch.no_grad():
        model = ov.convert_model(torch_model, example_input=feed)
    name_ports(model, spec)
    samples = [next(iter(example(spec, spec.shapes[0], seed_of(spec.name) + i).values())).numpy() for i in range(4)]
    options = {"model_type": nncf.ModelType.TRANSFORMER} if transformer else {}
    with quiet():
        model = nncf.quantize(model, nncf.Dataset(samples), subset_size=len(samples), **options)
    file = f"{spec.name}_int8.xml"
    ov.save_model(model, out / file, compress_to_fp16=False)
    return [entry(spec, file, out, False, stateful=False, verified=None, weights="int8")]


def zoo(out: Path, only: set[str]) -> list[dict[str, Any]]:
    specs = torchvision_models() + transformers_models() + diffusers_models() + block_models()
    builds: list[tuple[str, Callable[[], list[dict[str, Any]]]]] = [(s.name, lambda s=s: convert(s, out))
                                                                    for s in specs]
    named = {s.name: s for s in specs}
    segformer = named["segformer"]
    segformer_static = Spec("segformer_static", segformer.kind, segformer.make, segformer.inputs,
                            segformer.shapes[:1], segformer.outputs, extra={"convert": {"input": [1, 3, 64, 64]}})
    mobilenet = Spec("mobilenet_v3_large", "cnn", tv("mobilenet_v3_large", num_classes=10), *images(64),
                     ["logits"], calibrate=True)
    builds += [
        ("convnext_small_static_ppp",
         lambda: with_preprocessing(named["convnext_small_static"], classifier_steps, out)),
        ("segformer_static_ppp", lambda: with_preprocessing(segformer_static, segmentation_steps, out)),
        ("mobilenet_v3_large_int8", lambda: quantized(mobilenet, out)),
        ("clip_vision_int8", lambda: quantized(named["clip_vision"], out, transformer=True)),
        # NNCF's weight compressions (int8, int4 in groups of 16) of the CLIP text tower
        ("clip_text_compressed", lambda: compressed(named["clip_text"], out / "clip_text_f32.xml", out, False)),
    ]
    entries = []
    for name, make in builds:
        if only and name not in only:
            continue
        start = time.perf_counter()
        try:
            made = make()
        except Exception as exc:  # a refusal is an entry, not the end of the build
            made = [{"file": None, "model": name, "kind": None, "refused": f"{type(exc).__name__}: {exc}"}]
        report(made, time.perf_counter() - start)
        entries += made
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--only", nargs="*", default=[], help="build only these models (for trying: the manifest "
                                                              "then lists only them)")
    args = parser.parse_args()
    build_into(args.out.expanduser(), lambda staging: zoo(staging, set(args.only)), "scripts/build_vision_zoo.py")


if __name__ == "__main__":
    main()
