"""A layered graph layout computed in Python, so that the browser only draws.

Sugiyama's method, kept simple enough for networks of 50,000 layers:

1. Cycles (only broken models have them) are cut: a topological sort that, when stuck, takes the
   earliest unplaced layer in file order; the edges into it from layers not yet placed become back edges.
2. Rank (x) is the longest path from the inputs. Layers that no input reaches (Consts and what they
   feed alone) are then ranked as late as possible instead, right before their first consumer: else
   every Const of a deep network would sit in rank 0 with an edge across the whole drawing.
3. Order within a rank (y) comes from three barycentre sweeps (down, up, down): a layer moves to
   the mean position of its neighbours in the sweep's direction, layers fed by the inputs before
   Consts on ties, so a chain's main line stays straight.
4. A network much wider than high (a deep chain) is wrapped into bands of ranks, like lines of text,
   until the drawing has about a screen's aspect ratio: a 5,000-layer chain is a few dozen rows
   instead of one ribbon a hundred thousand pixels long. Edges that cross a band boundary are drawn
   as stubs by the browser.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import ceil, log

NODE_W, NODE_H = 120, 34  # a layer's box
COL, ROW = 160, 50  # distance between ranks (x) and between positions in a rank (y)
BAND_GAP = 90  # vertical space between two bands of wrapped ranks
ASPECT = 1.6  # width / height the wrapping aims at (a landscape screen)
MIN_BAND = 16  # ranks: a drawing this wide or narrower is never wrapped

EDGE_FORWARD, EDGE_WRAPPED, EDGE_BACK = 0, 1, 2


@dataclass(frozen=True)
class Layout:
    """Top-left corners per node (file order), every distinct edge with how it is drawn, the bands."""

    x: list[int]
    y: list[int]
    rank: list[int]
    edges: list[tuple[int, int, int]]  # (source, target, EDGE_*)
    bands: list[tuple[int, int]]  # (top, height) of each band of ranks
    band_ranks: int  # ranks per band
    width: int
    height: int


def layered_layout(n: int, edges: Iterable[tuple[int, int]], inputs: Iterable[int]) -> Layout:
    """Lay out ``n`` nodes (indices in file order) joined by ``edges``; ``inputs`` are the model's Parameters."""
    pairs = list(dict.fromkeys(edges))  # parallel edges (two ports, same layers) are drawn once
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in pairs:
        succ[u].append(v)
    order, back = _topological_order(n, succ)
    fsucc = [[v for v in succ[u] if (u, v) not in back] for u in range(n)]
    fpred: list[list[int]] = [[] for _ in range(n)]
    for u in range(n):
        for v in fsucc[u]:
            fpred[v].append(u)
    rank, live = _ranks(order, fpred, fsucc, set(inputs))
    ranks = max(rank, default=-1) + 1
    pos = _order_within_ranks(rank, ranks, fpred, fsucc, live)
    return _place(rank, ranks, pos, pairs, back)


def _topological_order(n: int, succ: Sequence[list[int]]) -> tuple[list[int], set[tuple[int, int]]]:
    """Kahn's sort in file order; when every unplaced node waits on another (a cycle), the earliest is
    placed anyway and the edges into it that arrive later are returned as back edges."""
    indegree = [0] * n
    for targets in succ:
        for v in targets:
            indegree[v] += 1
    ready = deque(v for v in range(n) if indegree[v] == 0)
    placed = [False] * n
    order: list[int] = []
    back: set[tuple[int, int]] = set()
    earliest = 0
    while len(order) < n:
        if not ready:
            while placed[earliest]:
                earliest += 1
            ready.append(earliest)
        u = ready.popleft()
        if placed[u]:
            continue
        placed[u] = True
        order.append(u)
        for v in succ[u]:
            if placed[v]:
                back.add((u, v))
            else:
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)
    return order, back


def _ranks(order: list[int], fpred: Sequence[list[int]], fsucc: Sequence[list[int]], inputs: set[int],
           ) -> tuple[list[int], list[bool]]:
    """Longest path from the sources; nodes no input reaches then as late as their consumers allow."""
    n = len(order)
    rank = [0] * n
    live = [False] * n  # reached from an input
    for v in order:
        rank[v] = max((rank[u] + 1 for u in fpred[v]), default=0)
        live[v] = v in inputs or any(live[u] for u in fpred[v])
    for v in reversed(order):
        if not live[v] and fsucc[v]:
            rank[v] = min(rank[w] for w in fsucc[v]) - 1  # never below its longest-path rank
    return rank, live


def _order_within_ranks(rank: list[int], ranks: int, fpred: Sequence[list[int]], fsucc: Sequence[list[int]],
                        live: list[bool]) -> list[int]:
    """Each node's position in its rank after a down, an up and a down barycentre sweep."""
    by_rank: list[list[int]] = [[] for _ in range(ranks)]
    for v, r in enumerate(rank):
        by_rank[r].append(v)  # file order to start with
    pos = [0] * len(rank)
    for nodes in by_rank:
        for i, v in enumerate(nodes):
            pos[v] = i

    def key(v: int, toward: Sequence[list[int]], other: Sequence[list[int]]) -> tuple[float, bool, int]:
        # Consts follow their consumers; a live node only its live neighbours, so Consts do not pull the main line.
        near = [w for w in toward[v] if live[w]] if live[v] else []
        near = near or toward[v] or other[v]
        centre = sum(pos[w] for w in near) / len(near) if near else float(pos[v])
        return centre, not live[v], pos[v]

    for downward in (True, False, True):
        toward, other = (fpred, fsucc) if downward else (fsucc, fpred)
        for nodes in (by_rank if downward else reversed(by_rank)):
            nodes.sort(key=lambda v: key(v, toward, other))
            for i, v in enumerate(nodes):
                pos[v] = i
    return pos


def _place(rank: list[int], ranks: int, pos: list[int], pairs: list[tuple[int, int]],
           back: set[tuple[int, int]]) -> Layout:
    """Coordinates, with the ranks wrapped into bands of about a screen's aspect ratio."""
    size = [0] * ranks
    for v, r in enumerate(rank):
        size[r] = max(size[r], pos[v] + 1)
    per_band = _ranks_per_band(size)
    bands: list[tuple[int, int]] = []
    top = 0
    for start in range(0, ranks, per_band):
        height = max(size[start:start + per_band]) * ROW - (ROW - NODE_H)
        bands.append((top, height))
        top += height + BAND_GAP
    x = [(r % per_band) * COL for r in rank]
    y = [bands[r // per_band][0] + p * ROW for r, p in zip(rank, pos, strict=True)]
    drawn = []
    for u, v in pairs:
        if (u, v) in back or u == v:
            kind = EDGE_BACK
        elif rank[u] // per_band != rank[v] // per_band:
            kind = EDGE_WRAPPED
        else:
            kind = EDGE_FORWARD
        drawn.append((u, v, kind))
    width = min(per_band, ranks) * COL - (COL - NODE_W) if ranks else 0
    return Layout(x, y, rank, drawn, bands, per_band, width, max(top - BAND_GAP, 0))


def _ranks_per_band(size: list[int]) -> int:
    """How many ranks a band holds: unwrapped unless that is wider than ``ASPECT``; else the number of
    bands whose drawing comes closest to it (more bands only ever make the drawing narrower and higher),
    never fewer than ``MIN_BAND`` ranks per band."""
    ranks = len(size)
    if ranks <= MIN_BAND:
        return max(ranks, 1)
    best, best_miss = ranks, float("inf")
    for bands in range(1, ranks + 1):
        per_band = ceil(ranks / bands)
        if per_band < MIN_BAND:
            break
        if bands > 1 and per_band == ceil(ranks / (bands - 1)):
            continue  # the same wrapping as the previous count
        height = sum(max(size[s:s + per_band]) * ROW + BAND_GAP for s in range(0, ranks, per_band)) - BAND_GAP
        aspect = (per_band * COL) / max(height, 1)
        miss = abs(log(aspect / ASPECT))
        if miss < best_miss:
            best, best_miss = per_band, miss
        if aspect < ASPECT:  # narrower from here on
            break
    return best
