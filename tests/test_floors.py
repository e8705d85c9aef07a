""".ci/floors.txt pins every dependency of pyproject.toml at the lowest version it admits; .ci/run installs the test
extra under it in a second environment and runs the suite there too. This keeps the two files equal, so a floor
raised (or a dependency added) in one is raised in the other."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
FLOORS = ROOT / ".ci" / "floors.txt"


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    texts = project["build-system"]["requires"] + project["project"]["dependencies"]
    texts += [text for extra in project["project"]["optional-dependencies"].values() for text in extra]
    return [Requirement(text) for text in texts]


def _floor(requirement: Requirement) -> Version:
    floors = [Version(spec.version) for spec in requirement.specifier if spec.operator == ">="]
    assert len(floors) == 1, f"{requirement}: give it one floor (>=), so the floor environment can pin it"
    return floors[0]


def _pins() -> dict[str, Version]:
    pins = {}
    for line in FLOORS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([0-9][0-9A-Za-z.]*)", line)
            assert match, f".ci/floors.txt: {line!r} is not name==version"
            name = canonicalize_name(match[1])
            assert name not in pins, f".ci/floors.txt pins {name} twice"
            pins[name] = Version(match[2])
    return pins


def test_every_dependency_is_pinned_at_its_floor() -> None:
    pins = _pins()
    wanted: dict[str, Requirement] = {}
    for requirement in _requirements():
        name = canonicalize_name(requirement.name)
        floor = _floor(requirement)
        assert name in pins, f"{requirement} has no pin in .ci/floors.txt: add {requirement.name}=={floor}"
        pin = pins[name]
        assert requirement.specifier.contains(pin, prereleases=True), f"{name}=={pin} is not admitted by {requirement}"
        # The lowest published release of the floor: 77.0.1 for >=77 (no 77.0.0 exists), never a later series.
        assert pin.release[: len(floor.release)] == floor.release, f"{name}=={pin} is above {requirement}'s floor"
        if name in wanted:
            assert _floor(wanted[name]) == floor, f"{name}: {wanted[name]} and {requirement} disagree on the floor"
        wanted[name] = requirement
    extra = set(pins) - set(wanted)
    assert not extra, f".ci/floors.txt pins what pyproject.toml does not ask for: {extra}"


def test_ci_runs_the_suite_at_the_floors() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "--constraint .ci/floors.txt" in script and "--build-constraint .ci/floors.txt" in script
