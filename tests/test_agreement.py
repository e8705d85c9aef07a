"""check agrees with OpenVINO on seeded one-mutation variants of OpenVINO-saved models.

Whenever OpenVINO's read_model or compile refuses a variant, ``check`` exits non-zero; whenever
``check`` exits 0, OpenVINO reads and compiles it. (``check`` may be stricter: a wrong declared dim
OpenVINO ignores is an error here; scripts/check_agreement.py prints the whole confusion matrix.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ir_tools.cli import main
from tests.mutations import KINDS, mutate, openvino_accepts, source_models, zoo_sources
from tests.zoo import HOW_TO_BUILD

pytestmark = pytest.mark.openvino

VARIANTS = 180


def test_check_never_passes_what_openvino_refuses(tmp_path: Path, capsys) -> None:
    sources = source_models(tmp_path / "sources")
    missed = []
    for seed in range(VARIANTS):
        # Consecutive seeds take every mutation kind on one source before moving to the next.
        variant = mutate(sources[(seed // len(KINDS)) % len(sources)], tmp_path / f"v{seed}.xml", seed)
        code = main(["check", str(variant.path), "--compile"])
        capsys.readouterr()
        if code == 0 and not openvino_accepts(variant.path):
            missed.append(f"{variant.kind}: {variant.what}")
    assert not missed, f"check passed {len(missed)} variant(s) OpenVINO refuses: {missed[:10]}"


def test_check_never_passes_what_openvino_refuses_on_zoo_networks(tmp_path: Path, capsys) -> None:
    """The same on a real network converted by OpenVINO (dynamic batch and spatial dims, shape arithmetic),
    f16-compressed and f32; and with --no-openvino too, ir_tools' own rules alone."""
    sources = zoo_sources(tmp_path, ("squeezenet1_1_op17_dyn",))
    if not sources:
        pytest.skip(HOW_TO_BUILD)
    missed = []
    for seed in range(4 * len(KINDS)):
        variant = mutate(sources[(seed // len(KINDS)) % len(sources)], tmp_path / f"v{seed}.xml", seed)
        codes = [main(["check", str(variant.path), "--compile", *options]) for options in ([], ["--no-openvino"])]
        capsys.readouterr()
        if 0 in codes and not openvino_accepts(variant.path):
            missed.append(f"{variant.path.stem} {variant.kind}: {variant.what} (exit codes {codes})")
    assert not missed, f"check passed {len(missed)} variant(s) OpenVINO refuses: {missed[:10]}"
