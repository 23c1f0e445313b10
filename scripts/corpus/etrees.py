"""Elimination trees of sparse Cholesky factorizations as peakorder graphs (in-trees: the
multifrontal method's memory problem, Liu 1987).

For a symmetric sparse matrix A (pattern only) in a given ordering, column j of the factor L has
structure S_j (its row indices below the diagonal); the elimination tree links j to its parent
min(S_j). In the multifrontal method, op j assembles its frontal matrix from A's column j (a
donated input) and its children's contribution blocks, writes its factor column (|S_j| + 1
entries, a graph output) and passes the contribution block (the lower triangle of an |S_j| x
|S_j| matrix, 8-byte entries) to its parent.

Matrices: 2D 5-point and 3D 7-point grid Laplacians in nested-dissection order (bushy trees) and
in natural order (long paths), and random sparse patterns (average degree 4) in natural order.

    python scripts/corpus/etrees.py OUT_DIR
"""

from __future__ import annotations

import argparse
import json
import os
import random


def grid(dims):
    """Adjacency of a grid graph (5-point in 2D, 7-point in 3D) with vertices 0..N-1."""
    import itertools

    coords = list(itertools.product(*[range(d) for d in dims]))
    index = {c: i for i, c in enumerate(coords)}
    adj = [set() for _ in coords]
    for c, i in index.items():
        for ax in range(len(dims)):
            n = list(c)
            n[ax] += 1
            j = index.get(tuple(n))
            if j is not None:
                adj[i].add(j)
                adj[j].add(i)
    return coords, adj


def nested_dissection(coords, dims):
    """An ordering: split the box along its longest axis by a middle plane, order both halves
    (recursively, by an explicit stack), then the separator last."""
    order = []
    # Stack of (box lo, box hi, stage); a box is emitted as halves first, separator last.
    stack = [(tuple(0 for _ in dims), tuple(dims), False)]
    inside = {}
    for i, c in enumerate(coords):
        inside[c] = i
    while stack:
        lo, hi, sep_only = stack.pop()
        if sep_only:
            order.extend(inside[c] for c in _box(lo, hi))
            continue
        size = [h - l for l, h in zip(lo, hi)]
        if min(size) <= 0:
            continue
        if max(size) <= 2:
            order.extend(inside[c] for c in _box(lo, hi))
            continue
        ax = size.index(max(size))
        mid = lo[ax] + size[ax] // 2
        left_hi = tuple(mid if k == ax else h for k, h in enumerate(hi))
        right_lo = tuple(mid + 1 if k == ax else l for k, l in enumerate(lo))
        sep_lo = tuple(mid if k == ax else l for k, l in enumerate(lo))
        sep_hi = tuple(mid + 1 if k == ax else h for k, h in enumerate(hi))
        # Popped in reverse: left, right, then the separator.
        stack.append((sep_lo, sep_hi, True))
        stack.append((right_lo, hi, False))
        stack.append((lo, left_hi, False))
    return order


def _box(lo, hi):
    import itertools

    return itertools.product(*[range(l, h) for l, h in zip(lo, hi)])


def random_pattern(n, degree, seed):
    rng = random.Random(seed)
    adj = [set() for _ in range(n)]
    for _ in range(n * degree // 2):
        i, j = rng.randrange(n), rng.randrange(n)
        if i != j:
            adj[i].add(j)
            adj[j].add(i)
    return adj


def symbolic(adj, order):
    """Factor column structures S_j (below the diagonal) and the elimination tree, in the
    permuted numbering."""
    n = len(adj)
    pos = {v: k for k, v in enumerate(order)}
    lower = [sorted(pos[u] for u in adj[order[k]] if pos[u] > k) for k in range(n)]
    parent = [-1] * n
    struct = [None] * n
    children = [[] for _ in range(n)]
    for j in range(n):
        s = set(lower[j])
        for c in children[j]:
            s.update(x for x in struct[c] if x != j)
        struct[j] = sorted(s)
        if struct[j]:
            parent[j] = struct[j][0]
            children[parent[j]].append(j)
    return lower, struct, parent


def etree_graph(adj, order, name, note):
    lower, struct, parent = symbolic(adj, order)
    n = len(adj)
    tensors, ops, outputs = [], [], []
    for j in range(n):
        m = len(struct[j])
        a = f"A[:,{j}]"
        tensors.append({"id": a, "bytes": 8 * (len(lower[j]) + 1), "donated": True})
        lcol = f"L[:,{j}]"
        tensors.append({"id": lcol, "bytes": 8 * (m + 1)})
        outputs.append(lcol)
        outs = [lcol]
        if parent[j] >= 0:
            cb = f"CB{j}"
            tensors.append({"id": cb, "bytes": 8 * m * (m + 1) // 2})
            outs.append(cb)
    kids = [[] for _ in range(n)]
    for j in range(n):
        if parent[j] >= 0:
            kids[parent[j]].append(j)
    for j in range(n):
        ins = [f"A[:,{j}]"] + [f"CB{c}" for c in kids[j]]
        outs = [f"L[:,{j}]"] + ([f"CB{j}"] if parent[j] >= 0 else [])
        ops.append({"id": f"col{j}", "kind": "front", "inputs": ins, "outputs": outs})
    nnz = sum(len(s) + 1 for s in struct)
    return {
        "format": "peakorder/1",
        "tensors": tensors,
        "ops": ops,
        "outputs": outputs,
        "meta": {"family": "etree", "matrix": name, "n": n, "nnz_L": nnz, "note": note},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cases = []
    for k in (8, 16, 24, 32):
        coords, adj = grid((k, k))
        cases.append((f"grid2d-{k}x{k}-nd", adj, nested_dissection(coords, (k, k)), "2D 5-point grid, nested dissection"))
    for k in (12, 20):
        coords, adj = grid((k, k))
        cases.append((f"grid2d-{k}x{k}-natural", adj, list(range(len(adj))), "2D 5-point grid, natural order"))
    for k in (5, 7, 9):
        coords, adj = grid((k, k, k))
        cases.append((f"grid3d-{k}x{k}x{k}-nd", adj, nested_dissection(coords, (k, k, k)), "3D 7-point grid, nested dissection"))
    for n, seed in ((100, 1), (300, 2), (600, 3)):
        adj = random_pattern(n, 4, seed)
        cases.append((f"random-{n}", adj, list(range(n)), "random sparse pattern, average degree 4, natural order"))
    for name, adj, order, note in cases:
        g = etree_graph(adj, order, name, note)
        path = os.path.join(a.out, f"etree-{name}.json")
        with open(path, "w") as f:
            json.dump(g, f, separators=(",", ":"))
        print(f"{path}: {len(g['ops'])} ops", flush=True)


if __name__ == "__main__":
    main()
