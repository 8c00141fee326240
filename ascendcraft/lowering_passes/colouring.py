"""Which tiles share a UB buffer: a greedy colouring of their interference graph, in time
near linear in the kernel's length (bufferize's buffer assignment)."""
from __future__ import annotations


def colour_intervals(iv: dict, dtype: dict, apart: list, prefer: list = ()) -> dict[str, int]:
    """Buffers for tiles: greedy colouring, largest degree first, of the graph in which two tiles
    interfere when their live ranges overlap (``[start, end)``; a range may start where another
    ends, so a dst may alias a dying src), when their dtypes differ, or when ``apart`` pairs them.

    This is networkx's ``greedy_color(strategy="largest_first")`` on that graph, computed without
    its edges between dtypes (every tile of one dtype against every tile of another: quadratic in
    the kernel's length). Those edges only block, for a tile, every colour a tile of another dtype
    holds, and add the same count to the degree of each tile of a dtype; so a tile takes the
    lowest colour its own dtype already holds that no interfering tile of its dtype has, or the
    next new colour, in the same order.

    ``prefer`` pairs an element-wise op's result with an operand of its shape; the pairs chain tiles
    (a product's tile, its bias add, the activation's steps). A tile takes a colour some tile of its
    chain already holds, if it may, before any other: the chain's ops then run in place, and tiles
    as large as a cube product's do not need a second buffer."""
    names = list(iv)
    group = {n: dtype[n] for n in names}
    groups = _by_group(names, group)
    adjacent: dict[str, set] = {n: set() for n in names}
    for a, b in apart:
        if a in adjacent and b in adjacent and group[a] == group[b]:
            adjacent[a].add(b)
            adjacent[b].add(a)
    for members in groups.values():       # overlapping ranges, by a sweep over starts
        active: list[str] = []
        for n in sorted(members, key=lambda m: iv[m][0]):
            active = [m for m in active if iv[m][1] > iv[n][0]]
            for m in active:
                if iv[n][0] < iv[m][1] and iv[m][0] < iv[n][1]:
                    adjacent[n].add(m)
                    adjacent[m].add(n)
            active.append(n)
    self_loops = {a for a, b in apart if a == b and a in adjacent}
    degree = {n: len(adjacent[n] - {n}) + 2 * (n in self_loops) + len(names) - len(groups[group[n]]) for n in names}
    colour: dict[str, int] = {}
    held: dict[str, list[int]] = {}       # per dtype, the colours its tiles hold, ascending
    fresh = 0
    chain = {n: n for n in names}         # union-find over the pairs that may share a buffer

    def root(n):
        while chain[n] != n:
            chain[n] = chain[chain[n]]
            n = chain[n]
        return n
    for a, b in prefer:
        if a in adjacent and b in adjacent and group[a] == group[b] and b not in adjacent[a]:
            chain[root(a)] = root(b)
    chain_colours: dict[str, list[int]] = {}   # per chain, the colours its tiles took, in order
    for n in sorted(names, key=degree.__getitem__, reverse=True):
        taken = {colour[m] for m in adjacent[n] if m in colour}
        held.setdefault(group[n], [])
        mine = chain_colours.setdefault(root(n), [])
        c = next((c for c in mine if c not in taken), None)
        if c is None:
            c = next((c for c in held[group[n]] if c not in taken), None)
        if c is None:
            c, fresh = fresh, fresh + 1
            held[group[n]].append(c)
        colour[n] = c
        if c not in mine:
            mine.append(c)
    return colour


def _by_group(names: list, group: dict) -> dict[str, list]:
    out: dict[str, list] = {}
    for n in names:
        out.setdefault(group[n], []).append(n)
    return out
