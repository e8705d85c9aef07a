"""The target zoo (scripts/build_target_zoo.py builds it) and the committed fixtures of tests/data/target: where they
are, how to feed them, and the one measurement every user of them makes (``measure``).

``measure(entry, release, python)``: ``ir-tools migrate MODEL --target RELEASE`` in this process (with ``--stateless``
for a stateful model and a release that cannot run its dynamic state), then whether the result (the original itself
where there is nothing to migrate) loads and runs on that release (the OpenVINO of ``python``), holds only op versions
it creates and passes ``check`` (OpenVINO's verdict included: its dims are what OpenVINO infers) with no warning the
original had not, keeps input and output names (as the current OpenVINO reports them; a stateless form adds the
state's), and whether its outputs equal the current OpenVINO's on the original within 1e-4 of max|output| at every run
shape (``run_shapes``: the manifest's, and for a stateful model one token; a stateless form fed the initial state: the
first step). Used by
scripts/zoo_targets.py, benchmarks/bench_migrate.py and tests/test_target_fixtures.py; needs no torch.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: ``$IR_TOOLS_TARGET_ZOO``, else ``~/.cache/ir_tools/target_zoo``.
TARGET_ZOO_DIR = Path(os.environ.get("IR_TOOLS_TARGET_ZOO") or Path.home() / ".cache" / "ir_tools" / "target_zoo")
#: Six small IRs converted today (a CNN with MaxPool-14 ceil_torch, a ViT, a GPT-2 in f16 and one in int8, a stateful
#: Llama in f16 and one in int4), committed.
FIXTURES_DIR = Path(__file__).parent / "data" / "target"
HOW_TO_BUILD = ("the target zoo is not built: run `python scripts/build_target_zoo.py` in an environment with torch, "
                "torchvision, transformers and optimum-intel (its docstring says how to install them)")
TOLERANCE = 1e-4  # of max|output|


def side_pythons() -> dict[str, str]:
    """``IR_TOOLS_RELEASE_PYTHONS="2023.0=/venv/bin/python,..."`` as {release: python}."""
    value = os.environ.get("IR_TOOLS_RELEASE_PYTHONS", "")
    return dict(item.split("=", 1) for item in value.split(",") if "=" in item)


def entries(directory: Path) -> list[dict[str, Any]]:
    """The manifest's entries whose ``.xml`` exists, each with ``path`` added; [] without a manifest."""
    manifest = directory / "manifest.json"
    if not manifest.is_file():
        return []
    return [dict(e, path=directory / e["file"]) for e in json.loads(manifest.read_text())["files"]
            if e.get("file") and (directory / e["file"]).is_file()]


def model_inputs(graph: Any, entry: dict[str, Any], shapes: dict[str, list[int]], seed: int) -> dict[str, np.ndarray]:
    """Seeded inputs (``random_inputs``) at ``shapes``, with the language models' inputs made meaningful: token ids
    below the vocabulary, attention masks of ones, position ids 0, 1, ..., token types 0, beam indices 0..batch-1."""
    from ir_tools.runtime.inputs import random_inputs

    values = random_inputs(graph, seed, {name: tuple(shape) for name, shape in shapes.items()})
    rng = np.random.default_rng(seed + 1000)
    for name, kind in entry["inputs"].items():
        if name not in values or kind == "float":
            continue
        dtype, shape = values[name].dtype, tuple(shapes[name])
        if kind == "tokens":
            values[name] = rng.integers(0, entry["vocab"], shape).astype(dtype)
        elif kind == "mask":
            values[name] = np.ones(shape, dtype)
        elif kind == "positions":
            values[name] = np.broadcast_to(np.arange(shape[-1]), shape).astype(dtype)
        elif kind == "token_types":
            values[name] = np.zeros(shape, dtype)
        elif kind == "beam":
            values[name] = np.arange(shape[0]).astype(dtype)
    return values


#: The kinds of input (the manifest's) a step of one token feeds one of, along their axis 1.
_PER_TOKEN = ("tokens", "mask", "positions")


def run_shapes(entry: dict[str, Any]) -> list[dict[str, list[int]]]:
    """The shapes ``entry``'s model is run at: the manifest's, and for a stateful model a step of one token too (the
    first shape's batch; an encoder's inputs as they are), as a generation loop's steps after the prompt are, whose
    attention reads the KV cache (2023.3 reads it rounded to f16: ``kv_cache_f16``)."""
    shapes = entry["shapes"]
    if not entry["stateful"]:
        return shapes
    one = {name: [shape[0], 1] if entry["inputs"].get(name) in _PER_TOKEN and len(shape) == 2
           and not name.startswith("encoder_") else shape for name, shape in shapes[0].items()}
    return shapes if one in shapes else [*shapes, one]


def migrate(xml: Path, out: Path, target: str, stateless: bool = False) -> tuple[int, str]:
    """``ir-tools migrate XML --target TARGET [--stateless] -o OUT`` in this process: its exit code and what it
    printed to stderr."""
    from ir_tools.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["migrate", str(xml), "--target", target, "-o", str(out), *(["--stateless"] if stateless else [])])
    return code, err.getvalue()


def refusals(text: str) -> str:
    """What E-TARGET diagnostics say cannot be created, counted: ``2 x ScaledDotProductAttention of opset13``."""
    found = Counter(re.findall(r"cannot create (.+?); ", text))
    if not found:
        lines = [line for line in text.splitlines() if "error" in line]
        return (lines[0] if lines else text.strip())[:300]
    return ", ".join(f"{n} x {what}" for what, n in sorted(found.items()))


def port_names(xml: Path) -> tuple[list[list[str]], list[list[str]]]:
    """Each input's and output's names as the current OpenVINO reports them."""
    import openvino as ov

    model = ov.Core().read_model(xml)
    return ([sorted(p.get_names()) for p in model.inputs], [sorted(p.get_names()) for p in model.outputs])


def needs_stateless(entry: dict[str, Any], release: str) -> bool:
    """Whether ``entry``'s model is migrated for ``release`` with ``--stateless``: it holds state and the release
    cannot run a dynamic one."""
    from ir_tools.ops.releases import release as release_named

    return bool(entry["stateful"]) and not release_named(release).runs_dynamic_state


def kept(before: tuple[list[list[str]], list[list[str]]], after: tuple[list[list[str]], list[list[str]]]) -> bool:
    """Whether every input and output of ``before`` (``port_names``) is one of ``after``'s, with the same names."""
    return all(names in after[side] for side in (0, 1) for names in before[side])


@dataclass
class Measured:
    """One model migrated for one release: each verdict, and why it failed (None: passed)."""

    model: str
    release: str
    migrated: bool = False
    loads: bool = False
    creates: bool = False
    names: bool = False
    equal: bool = False
    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.migrated and self.loads and self.creates and self.names and self.equal


def warning_counts(diagnostics: list[Any]) -> Counter[str]:
    """How many warnings of each code ``diagnostics`` hold (by code: a rewrite renumbers layers and ports)."""
    return Counter(d.code for d in diagnostics if d.severity == "warning")


def differs(got: np.ndarray, want: np.ndarray) -> str | None:
    """None if ``got`` equals ``want`` within TOLERANCE of max|want| (exactly, for integers and booleans)."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)}, expected {list(want.shape)}"
    if not np.issubdtype(want.dtype, np.floating):
        wrong = int(np.count_nonzero(got != want))
        return f"{wrong}/{want.size} elements differ" if wrong else None
    scale = float(np.abs(want).max()) if want.size else 0.0
    error = float(np.abs(got.astype(np.float64) - want).max()) if want.size else 0.0
    if not np.isfinite(error) or error > TOLERANCE * max(scale, 1e-30):
        return f"max abs error {error:.3g} > {TOLERANCE:g} x max|output| {scale:.3g}"
    return None


def measure(entry: dict[str, Any], release: str, python: str, workdir: Path | None = None) -> Measured:
    """``entry``'s model migrated with ``--target release``, then run on ``python``'s OpenVINO against the current
    OpenVINO on the original (see the module's docstring)."""
    import ir_tools
    from ir_tools.base.errors import IrToolsError
    from ir_tools.runtime.openvino import ModelFiles
    from ir_tools.runtime.runners import ChildOpenVinoRunner, OpenVinoRunner
    from ir_tools.runtime.steps import initial_states

    found = Measured(entry["file"], release)
    xml = Path(entry["path"])
    with tempfile.TemporaryDirectory(prefix="target-", dir=workdir) as tmp:
        out = Path(tmp) / xml.name
        stateless = needs_stateless(entry, release)
        code, err = migrate(xml, out, release, stateless)
        if code == 0 and not out.is_file():  # "nothing to migrate": the release is to run the original as it is
            out = xml
        if code != 0 or not out.is_file():
            found.reasons.append(f"migrate exit {code}: {refusals(err)}")
            return found
        found.migrated = True
        said = ir_tools.check(out, target=release)  # (OpenVINO's verdict too)
        left = [d for d in said if d.severity == "error"]
        before = [d for d in ir_tools.check(xml, openvino=False, target=release) if d.severity == "warning"]
        added = warning_counts(said) - warning_counts(before)
        found.creates = not left and not added
        if left:
            found.reasons.append(f"after migrate, check --target {release}: {refusals(chr(10).join(map(str, left)))}")
        if added:  # (named: one of the code at a layer the original's warnings of that code do not name, if any)
            known = {(d.code, d.loc.layer_name) for d in before}
            more = min((d for d in said if d.code in added), key=lambda d: (d.code, d.loc.layer_name) in known)
            found.reasons.append(f"after migrate, check --target {release} warns more than of the original: {more}")
        found.names = kept(port_names(xml), port_names(out)) if stateless else port_names(out) == port_names(xml)
        if not found.names:
            found.reasons.append(f"names changed: {port_names(xml)} -> {port_names(out)}")
        original, migrated = ir_tools.read_valid(xml), ir_tools.read_valid(out)
        want_runner = OpenVinoRunner(original, ModelFiles(xml, xml.with_suffix(".bin")))
        got_runner = ChildOpenVinoRunner(python, migrated, ModelFiles(out, out.with_suffix(".bin")))
        problems = []
        for i, shapes in enumerate(run_shapes(entry)):
            inputs = model_inputs(original, entry, shapes, i)
            want = want_runner.run(inputs)
            try:
                got = got_runner.run({**inputs, **initial_states(original, inputs)} if stateless else inputs)
            except IrToolsError as exc:
                found.reasons.append(f"OpenVINO {release} refuses it: {exc.message.strip()[:400]}")
                return found
            found.loads = True
            for name, value in want.items():
                problem = differs(got[name], value) if name in got else f"no output '{name}' (has {sorted(got)})"
                if problem:
                    problems.append(f"{name} at {shapes}: {problem}")
        found.equal = not problems
        if problems:
            found.reasons.append("outputs differ: " + "; ".join(problems[:3]))
    return found
