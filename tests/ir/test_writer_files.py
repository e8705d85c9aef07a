"""The files ``write_ir`` writes hold what ``to_bytes`` gives, however the system's writes go (no OpenVINO)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ir_tools.base.dims import shape_from_ints
from ir_tools.ir.model import Graph
from ir_tools.ir.writer import to_bytes, write_ir
from ir_tools.passes.builder import GraphBuilder


def _many_weights() -> Graph:
    """1100 Consts of distinct payloads (more than one gathered write takes), the first of 2.4 MB (more than one
    write's slice), concatenated."""
    rng = np.random.default_rng(5)
    graph = Graph("many_weights")
    builder = GraphBuilder(graph)
    sizes = [600_000] + [3] * 1100
    parts = [builder.const(rng.standard_normal(n).astype(np.float32), f"w{i}") for i, n in enumerate(sizes)]
    parts.append(builder.parameter("x", "f32", shape_from_ints([5])))
    builder.result(builder.add("Concat", "opset1", builder.attrs("Concat", "opset1", axis=0), parts, "all"), "out")
    return graph


@pytest.mark.parametrize("most", [None, 1000], ids=["whole", "short-writes"])
def test_written_files_are_to_bytes(most: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Payloads gathered into writes, a large one sliced, and writes that take fewer bytes than given (as a
    system call may) give the bytes ``to_bytes`` gives."""
    graph = _many_weights()
    if most is not None:
        writev = os.writev

        def short_writev(fd: int, buffers: list[memoryview]) -> int:
            taken, room = [], most
            for buffer in buffers:
                if room <= 0:
                    break
                taken.append(buffer[:room])
                room -= len(taken[-1])
            return writev(fd, taken)

        monkeypatch.setattr(os, "writev", short_writev)
    xml, bin_path = write_ir(graph, tmp_path / "many.xml")
    assert (xml.read_bytes(), bin_path.read_bytes()) == to_bytes(graph)
