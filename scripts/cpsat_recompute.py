#!/usr/bin/env python3
"""A referee for recomputation (issue #29): a CP-SAT model (Google OR-Tools) of the problem of
docs/design.md §1 "Recomputation", to measure the planner's schedules against what a general
solver finds (docs/recompute.md, "Referee"). Not a test dependency and not part of the product:
run it in a scratch venv (`python3 -m venv /work/venv-ortools && /work/venv-ortools/bin/pip
install ortools`).

    cpsat_recompute.py GRAPH --limit BYTES [--order FILE] [--time 60] [--max-runs 2]
                       [--workers 1] [--hint FILE] [--bin PEAKORDER] [--out SCHEDULE.json]
    cpsat_recompute.py --selftest [--count 300] [--seed 1]   tiny random graphs vs brute force
    cpsat_recompute.py --cases tests/cases [--time 10]       the fixtures, at limits below P0
    cpsat_recompute.py --referee ROWS.json [--time 60]       rows of `--bench recompute --json`

The model is Checkmate's stage structure (Jain et al., "Checkmate: Breaking the Memory Wall
with Optimal Tensor Rematerialization", MLSys 2020) over a FIXED topological order sigma (the
plan's order, --order, else the file's), with Moccasin's retention intervals (Bartan et al.,
"Moccasin: Efficient Tensor Rematerialization for Neural Networks", ICML 2023) so that it has
O(ops x runs) variables instead of Checkmate's O(ops^2):

- Stage t (0..n-1) runs sigma[t] for the first time, preceded by recomputations of earlier ops
  in sigma order: time(t, i) = t*n + i + 1 for the op at position i <= t. An op at position i runs
  first at time(i, i) and again (at most --max-runs times in all) at time(s, i) for stages
  s > i, a variable. Time 0 is the start; H = n*n + 1 is the end.
- Each run of op v makes each storage v creates: an interval [start, end] (inclusive) of its
  bytes, `end` a variable; two instances of one storage never overlap (the simulator frees the
  old one after its last read before the next make); a pinned storage's last instance ends at H.
  Graph inputs are intervals from 0 (a pinned one to H, a donated one to its last read).
- Every run that reads a storage is covered by an instance made before it (a choice among the
  producer's runs); with non-overlap that is the latest make, as in the simulator.
- A run's workspace is a one-step interval. One cumulative constraint: at every time the live
  bytes are within the limit. At a step this is exactly the simulator's memory (live + outputs +
  workspace); at a time where no op runs it is at most the next step's.
- Views (docs/design.md §1): a read of a view whose storage was made again must follow a run of
  the view's producer after that make (and so for views that are graph outputs, at H).
- `recompute: false` ops run once; ops that nothing reads and whose outputs are not pinned are
  never recomputed (it cannot help). Objective: the added cost, sum of `cost` over runs after
  the first (costs scaled to integers when they are not whole numbers).

So `bound` is a lower bound for schedules of this form only (first runs in sigma's order, at
most --max-runs runs of an op, recomputations grouped by stage in sigma's order): a referee's
best and its proof within that class, not a bound over every schedule.

Every schedule it prints is re-simulated by this file's own simulator of the model (written
from docs/design.md, independent of core/src/recompute/schedule.rs), and by `peakorder simulate`
where the CLI is built and accepts it. The JSON printed: {best_added_cost, bound, status,
schedule: [op ids], peak, limit, ...}.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

DTYPE_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "f8e4m3": 1, "f8e5m2": 1, "i64": 8,
               "i32": 4, "i16": 2, "i8": 1, "u8": 1, "bool": 1}
UNITS = {"": 1, "B": 1, "b": 1, "KiB": 1 << 10, "Ki": 1 << 10, "K": 1 << 10, "k": 1 << 10,
         "MiB": 1 << 20, "Mi": 1 << 20, "M": 1 << 20, "GiB": 1 << 30, "Gi": 1 << 30, "G": 1 << 30,
         "TiB": 1 << 40, "Ti": 1 << 40, "T": 1 << 40, "kB": 10**3, "KB": 10**3, "MB": 10**6,
         "GB": 10**9, "TB": 10**12}
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_bytes(text: str) -> int:
    """A byte count as core/src/units.rs reads it: 1048576, 64MiB, 1.5 GiB, 2GB."""
    t = str(text).strip()
    k = 0
    while k < len(t) and (t[k].isdigit() or t[k] == "."):
        k += 1
    num, unit = t[:k], t[k:].strip()
    if not num or unit not in UNITS:
        raise SystemExit(f"bad limit {text!r}: expected bytes or a unit (64MiB, 8GiB, 1048576)")
    if num.isdigit():
        return int(num) * UNITS[unit]
    return int(math.floor(float(num) * UNITS[unit]))


class SimError(Exception):
    def __init__(self, code: str, msg: str):
        super().__init__(f"{code}: {msg}")
        self.code = code


class Graph:
    """The memory model of docs/design.md §1, read from a graph JSON (no peakorder import)."""

    def __init__(self, spec: dict):
        self.spec = spec
        tensors = spec["tensors"]
        self.tid = {t["id"]: i for i, t in enumerate(tensors)}
        nt = len(tensors)
        self.tname = [t["id"] for t in tensors]
        self.alias = [self.tid[t["alias_of"]] if "alias_of" in t else None for t in tensors]
        self.donated = [bool(t.get("donated", False)) for t in tensors]
        own = []
        for t in tensors:
            if "alias_of" in t:
                own.append(0)
            elif "bytes" in t:
                own.append(int(t["bytes"]))
            else:
                n = DTYPE_BYTES[t["dtype"]]
                for d in t["shape"]:
                    n *= int(d)
                own.append(n)
        self.root = []
        for i in range(nt):
            r, seen = i, 0
            while self.alias[r] is not None:
                r = self.alias[r]
                seen += 1
                if seen > nt:
                    raise SimError("alias_cycle", self.tname[i])
            self.root.append(r)
        ops = spec["ops"]
        self.n = len(ops)
        self.oid = {o["id"]: v for v, o in enumerate(ops)}
        self.oname = [o["id"] for o in ops]
        self.inputs = [[self.tid[x] for x in o.get("inputs", [])] for o in ops]
        self.outputs = [[self.tid[x] for x in o.get("outputs", [])] for o in ops]
        self.ws = [int(o.get("workspace", 0)) for o in ops]
        self.cost = [float(o.get("cost", 1.0)) for o in ops]
        self.recomputable = [bool(o.get("recompute", True)) for o in ops]
        self.prod = [None] * nt
        for v, outs in enumerate(self.outputs):
            for t in outs:
                self.prod[t] = v
        self.size = [own[i] if self.alias[i] is None else 0 for i in range(nt)]
        self.graph_outputs = [self.tid[x] for x in spec.get("outputs", [])]
        self.pinned = [False] * nt
        for i in range(nt):
            if self.alias[i] is None and self.prod[i] is None and not self.donated[i]:
                self.pinned[i] = True
        for t in self.graph_outputs:
            self.pinned[self.root[t]] = True
        # What each op reads (storages, deduplicated): its inputs' storages, and the storage
        # of each view it makes unless it made that storage itself.
        self.reads = []
        self.creates = []
        self.preds = []
        for v in range(self.n):
            r = {self.root[t] for t in self.inputs[v]}
            p = {self.prod[t] for t in self.inputs[v] if self.prod[t] is not None}
            for w in self.outputs[v]:
                if self.alias[w] is not None:
                    if self.prod[self.root[w]] != v:
                        r.add(self.root[w])
                    a = self.prod[self.alias[w]]
                    if a is not None and a != v:
                        p.add(a)
            self.reads.append(sorted(r))
            self.creates.append([w for w in self.outputs[v] if self.alias[w] is None])
            self.preds.append(sorted(p))
        self.succs = [[] for _ in range(self.n)]
        for v in range(self.n):
            for p in self.preds[v]:
                self.succs[p].append(v)
        self.input_storages = [i for i in range(nt) if self.prod[i] is None and self.alias[i] is None]
        self.inputs_bytes = sum(self.size[i] for i in self.input_storages)
        self.alloc = [sum(self.size[s] for s in self.creates[v]) for v in range(self.n)]
        # View links to check at each run (docs/design.md §1): for a tensor t read (or the base
        # of a view made), each (view, aliased) step up its alias chain whose two tensors have
        # producers: the view's producer must have run since the aliased one's producer last did.
        # A link whose view v makes itself is current by definition: it is made now.
        self.links = []
        for v in range(self.n):
            ts = list(self.inputs[v]) + [self.alias[w] for w in self.outputs[v] if self.alias[w] is not None]
            self.links.append(sorted({lk for t in ts for lk in self.chain_links(t) if lk[0] != v}))
        self.end_links = sorted({lk for t in self.graph_outputs for lk in self.chain_links(t)})
        self.readers = {s for u in range(self.n) for s in self.reads[u]}

    def chain_links(self, t: int) -> list:
        out = []
        while self.alias[t] is not None:
            a = self.alias[t]
            q, b = self.prod[t], self.prod[a]
            if q is not None and b is not None and q != b:
                out.append((q, b))
            t = a
        return out

    def file_order(self) -> list:
        return list(range(self.n))

    def topo_order(self) -> list:
        """The file's order if it is topological, else Kahn's order by file index."""
        if self.is_topological(list(range(self.n))):
            return list(range(self.n))
        import heapq
        indeg = [len(self.preds[v]) for v in range(self.n)]
        heap = [v for v in range(self.n) if indeg[v] == 0]
        heapq.heapify(heap)
        out = []
        while heap:
            v = heapq.heappop(heap)
            out.append(v)
            for s in self.succs[v]:
                indeg[s] -= 1
                if indeg[s] == 0:
                    heapq.heappush(heap, s)
        if len(out) != self.n:
            raise SimError("cycle", "the graph has a cycle")
        return out

    def is_topological(self, order: list) -> bool:
        seen = [False] * self.n
        for v in order:
            if any(not seen[p] for p in self.preds[v]):
                return False
            seen[v] = True
        return len(order) == self.n and all(seen)


def simulate(g: Graph, sched: list) -> dict:
    """Peak of a schedule (op indices) by docs/design.md §1 "Recomputation", forward: every
    storage instance lives from its make (or the start) to its last read before the next make
    of that storage, to its make when nothing reads it by then, to the end when pinned and last.
    Raises SimError (codes as the core's) for an invalid schedule."""
    L = len(sched)
    runs = [0] * g.n
    last = [None] * g.n
    for i, v in enumerate(sched):
        if not (0 <= v < g.n):
            raise SimError("unknown_op", f"#{v}")
        if runs[v] == 0:
            for p in g.preds[v]:
                if runs[p] == 0:
                    raise SimError("not_topological", f"{g.oname[v]} before {g.oname[p]}")
        elif not g.recomputable[v]:
            raise SimError("not_recomputable", g.oname[v])
        for q, b in g.links[v]:
            if last[b] is not None and (last[q] is None or last[b] > last[q]):
                raise SimError("stale_view", f"{g.oname[v]} reads a view made by {g.oname[q]} "
                                             f"before {g.oname[b]} ran again")
        runs[v] += 1
        last[v] = i
    missing = [g.oname[v] for v in range(g.n) if runs[v] == 0]
    if missing:
        raise SimError("missing_op", missing[0])
    for q, b in g.end_links:
        if last[b] is not None and (last[q] is None or last[b] > last[q]):
            raise SimError("stale_view", f"graph output view of {g.oname[q]}")
    # Events per storage: makes and reads, by step.
    makes: dict = {}
    reads: dict = {}
    for i, v in enumerate(sched):
        for s in g.creates[v]:
            makes.setdefault(s, []).append(i)
        for s in g.reads[v]:
            reads.setdefault(s, []).append(i)
    # delta[i+1] applies from step i on (index 0: the start).
    delta = [0] * (L + 3)
    for s in g.input_storages:
        if g.size[s] == 0:
            continue
        rs = reads.get(s, [])
        end = L if (g.pinned[s] or not rs) else rs[-1]
        delta[0] += g.size[s]
        delta[end + 2] -= g.size[s]
    for s, ms in makes.items():
        if g.size[s] == 0:
            continue
        rs = reads.get(s, [])
        j = 0
        for k, m in enumerate(ms):
            nxt = ms[k + 1] if k + 1 < len(ms) else L + 1
            while j < len(rs) and rs[j] <= m:
                j += 1
            end = m
            while j < len(rs) and rs[j] < nxt:
                end = rs[j]
                j += 1
            if g.pinned[s] and k + 1 == len(ms):
                end = L
            delta[m + 1] += g.size[s]
            delta[end + 2] -= g.size[s]
    live = 0
    peak = 0
    peak_step = None
    during = []
    for i in range(L + 1):
        live += delta[i]
        if i == 0:
            peak = live
            continue
        d = live + g.ws[sched[i - 1]]
        during.append(d)
        if d > peak:
            peak, peak_step = d, i - 1
    added = 0.0
    seen = [False] * g.n
    for v in sched:
        if seen[v]:
            added += g.cost[v]
        seen[v] = True
    return {"peak": peak, "peak_step": peak_step, "during": during, "added_cost": added}


def read_order(g: Graph, path: str | None) -> list:
    if path is None:
        return g.topo_order()
    data = json.load(open(path))
    ids = data["order"] if isinstance(data, dict) else data
    order = [g.oid[x] for x in ids]
    if len(set(order)) != len(order) or not g.is_topological(order):
        raise SystemExit(f"{path}: not a topological order of every op exactly once")
    return order


def solve(g: Graph, limit: int, order: list, seconds: float = 60.0, max_runs: int = 2,
          workers: int = 1, hint: list | None = None, seed: int = 0, cuts: int = 400,
          params: str = "", least: bool = False) -> dict:
    """The CP-SAT model of the module doc over `order`; returns the best schedule found."""
    from ortools.sat.python import cp_model

    n = g.n
    pos = [0] * n
    for i, v in enumerate(order):
        pos[v] = i
    H = n * n + 1

    def t_of(stage, v):
        return stage * n + pos[v] + 1

    sizes = [g.size[s] for s in range(len(g.size)) if g.size[s] > 0] + [w for w in g.ws if w > 0]
    unit = 0
    for x in sizes:
        unit = math.gcd(unit, x)
    unit = max(unit, 1)
    pinned_inputs = sum(g.size[s] for s in g.input_storages if g.pinned[s])
    started = time.time()
    result = {"limit": limit, "ops": n, "max_runs": max_runs, "unit": unit}
    if least:
        # The least peak of the class: a soft limit at the pinned inputs, its excess minimised.
        limit = pinned_inputs
        result["limit"] = None
    if limit < pinned_inputs:
        result.update(status="INFEASIBLE", best_added_cost=None, bound=None, schedule=None,
                      peak=None, note="the pinned inputs alone exceed the limit")
        return result
    cap = (limit - pinned_inputs) // unit
    most_bytes = sum(g.size) + max(g.ws, default=0)

    integral = all(abs(c - round(c)) < 1e-9 for c in g.cost)
    scale = 1 if integral else 1000
    icost = [int(round(c * scale)) for c in g.cost]

    outs = set(g.graph_outputs)
    K = []
    for v in range(n):
        # Running v again can only help when something needs it later: a successor, a reader
        # of what it makes, or a pinned result (made again late instead of kept).
        useful = bool(g.succs[v]) or any(s in g.readers or g.pinned[s] for s in g.creates[v]) \
            or any(t in outs for t in g.outputs[v])
        k = max_runs if g.recomputable[v] and useful and pos[v] < n - 1 else 1
        K.append(k)

    def when(k, lits):
        """Enforcement literals of run k (run 0 always happens)."""
        return lits if k > 0 else lits[1:]

    m = cp_model.CpModel()
    act = []  # act[v][k]: literal (None for the first run, which always happens)
    T = []  # T[v][k]: affine expression or int
    stage = []
    for v in range(n):
        a_v, T_v, st_v = [None], [t_of(pos[v], v)], [pos[v]]
        for k in range(1, K[v]):
            a = m.NewBoolVar(f"a{v}_{k}")
            st = m.NewIntVar(pos[v] + 1, n - 1, f"st{v}_{k}")
            if k >= 2:
                m.AddImplication(a, a_v[-1])
            if k >= 2:
                m.Add(st >= st_v[-1] + 1).OnlyEnforceIf(a)
            a_v.append(a)
            st_v.append(st)
            T_v.append(st * n + pos[v] + 1)
        act.append(a_v)
        T.append(T_v)
        stage.append(st_v)

    intervals, demands = [], []
    # Instance ends: E[(s, k)] for storages made by ops; Ein[s] for donated inputs.
    E = {}
    sizes = {}
    for v in range(n):
        for s in g.creates[v]:
            if g.size[s] == 0:
                continue
            for k in range(K[v]):
                lo = t_of(pos[v], v) if k == 0 else t_of(pos[v] + 1, v)
                e = m.NewIntVar(lo, H, f"e{s}_{k}")
                m.Add(e >= T[v][k])
                E[(s, k)] = e
                if k == 0:
                    iv = m.NewIntervalVar(T[v][k], e + 1 - T[v][k], e + 1, f"iv{s}_{k}")
                else:
                    # CP-SAT wants the size as one variable: start + size == end is the
                    # interval's own constraint when it is present.
                    size = m.NewIntVar(1, H + 1, f"sz{s}_{k}")
                    sizes[(s, k)] = size
                    iv = m.NewOptionalIntervalVar(T[v][k], size, e + 1, act[v][k], f"iv{s}_{k}")
                intervals.append(iv)
                demands.append(g.size[s] // unit)
            for k in range(K[v] - 1):
                # The old instance is gone before the next make.
                m.Add(E[(s, k)] + 1 <= T[v][k + 1]).OnlyEnforceIf(act[v][k + 1])
            if g.pinned[s]:
                # The last instance made lives to the end.
                for k in range(K[v]):
                    cond = when(k, [act[v][k]])
                    if k + 1 < K[v]:
                        cond = cond + [act[v][k + 1].Not()]
                    m.Add(E[(s, k)] == H).OnlyEnforceIf(cond)
        if g.ws[v] > 0:
            for k in range(K[v]):
                if k == 0:
                    iv = m.NewFixedSizeIntervalVar(T[v][k], 1, f"w{v}_{k}")
                else:
                    iv = m.NewOptionalFixedSizeIntervalVar(T[v][k], 1, act[v][k], f"w{v}_{k}")
                intervals.append(iv)
                demands.append(g.ws[v] // unit)
    Ein = {}
    for s in g.input_storages:
        if g.size[s] == 0 or g.pinned[s]:
            continue
        e = m.NewIntVar(0, H, f"ein{s}")
        Ein[s] = e
        intervals.append(m.NewIntervalVar(0, e + 1, e + 1, f"ivin{s}"))
        demands.append(g.size[s] // unit)
    has_reader = set()
    for u in range(n):
        for s in g.reads[u]:
            has_reader.add(s)
    for s, e in Ein.items():
        if s not in has_reader:
            m.Add(e == H)

    # Reads: each run of u is covered by an instance of each storage it reads.
    covers = []  # (u, k, p, literal per run of p)
    views = []  # (q, b, j, u or None for the end, k, lt, literal per run of q)
    for u in range(n):
        by_prod: dict = {}
        for s in g.reads[u]:
            if g.size[s] == 0:
                continue
            p = g.prod[s]
            if p is None:
                if s in Ein:
                    for k in range(K[u]):
                        m.Add(Ein[s] >= T[u][k]).OnlyEnforceIf(when(k, [act[u][k]]))
                continue
            by_prod.setdefault(p, []).append(s)
        for p, ss in by_prod.items():
            for k in range(K[u]):
                if K[p] == 1:
                    for s in ss:
                        m.Add(E[(s, 0)] >= T[u][k]).OnlyEnforceIf(when(k, [act[u][k]]))
                    continue
                lits = []
                for j in range(K[p]):
                    c = m.NewBoolVar(f"c{u}_{k}_{p}_{j}")
                    lits.append(c)
                    if j > 0:
                        m.AddImplication(c, act[p][j])
                        m.Add(T[p][j] + 1 <= T[u][k]).OnlyEnforceIf(c)
                    for s in ss:
                        m.Add(E[(s, j)] >= T[u][k]).OnlyEnforceIf(c)
                m.AddBoolOr(lits).OnlyEnforceIf(when(k, [act[u][k]]))
                covers.append((u, k, p, lits))

    # Views: since the aliased tensor's producer b last ran, the view's producer q ran.
    def view_check(q, b, u, k, tau, present):
        if K[b] == 1:
            return  # b ran once, before q's first run
        for j in range(1, K[b]):
            lt = m.NewBoolVar("")
            # lt is forced true when b's run j comes before tau.
            m.Add(T[b][j] >= tau).OnlyEnforceIf(lt.Not())
            ws_ = []
            for i in range(K[q]):
                w = m.NewBoolVar("")
                if i > 0:
                    m.AddImplication(w, act[q][i])
                m.Add(T[q][i] >= T[b][j] + 1).OnlyEnforceIf(w)
                m.Add(T[q][i] + 1 <= tau).OnlyEnforceIf(w)
                ws_.append(w)
            m.AddBoolOr(ws_).OnlyEnforceIf([lt, act[b][j]] + present)
            views.append((q, b, j, u, k, lt, ws_))

    for u in range(n):
        for q, b in g.links[u]:
            for k in range(K[u]):
                view_check(q, b, u, k, T[u][k], [] if k == 0 else [act[u][k]])
    for q, b in g.end_links:
        view_check(q, b, None, 0, H, [])

    # The limit is soft: the capacity is cap + excess, and the objective puts each unit of
    # excess above every added cost (big = more than all recomputations cost together). So
    # the order itself (nothing recomputed) is a solution from the start, and CP-SAT's LNS
    # workers, which need one, improve it at once; excess 0 is a schedule within the limit.
    big = sum(icost[v] * (K[v] - 1) for v in range(n)) + 1
    excess = m.NewIntVar(0, max(0, (most_bytes - limit) // unit + 1), "excess")
    m.AddCumulative(intervals, demands, excess + cap)
    if cuts and not least:
        result["cuts"] = add_span_cuts(g, m, order, pos, K, act, limit, cuts, excess, unit)
    obj = [icost[v] * act[v][k] for v in range(n) for k in range(1, K[v]) if icost[v]]
    m.Minimize(big * excess + sum(obj))

    # Without a hint, the order itself (nothing recomputed): over the limit only at a few
    # steps near the limit, and a start CP-SAT repairs far sooner than it finds one alone.
    if hint is None and not least:
        # A tenth of the time for the greedy start (docs/recompute.md, "Referee").
        seed_s = time.time()
        hint = greedy_seed(g, order, limit, seconds / 10)
        result["seed_s"] = round(time.time() - seed_s, 2)
        result["seed_peak"] = simulate(g, hint)["peak"]
    excess_hint = apply_hint(g, m, order if hint is None else hint, pos, K, act, stage, E, Ein,
                             sizes, H, covers, views)
    m.AddHint(excess, max(0, -(-(excess_hint - limit) // unit)))

    build_s = time.time() - started
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(0.1, seconds - (time.time() - started))
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    # The interleaved portfolio (LNS included) on `workers` threads, deterministic: on one
    # thread it finds far better schedules than the default search (docs/recompute.md).
    solver.parameters.interleave_search = True
    # Presolve probing took 20 s of a minute on 3.5k-op graphs (jax-train-gpt2) for nothing.
    solver.parameters.cp_model_probing_level = 0
    for kv in params.split(","):
        if kv:
            k_, v_ = kv.split("=")
            cur = getattr(solver.parameters, k_)
            setattr(solver.parameters, k_, (v_ == "true") if isinstance(cur, bool) else type(cur)(v_))
    cpu0 = time.process_time()
    status = solver.Solve(m)
    cpu_s = time.process_time() - cpu0
    name = solver.StatusName(status)
    result.update(status=name, build_s=round(build_s, 2), solve_s=round(solver.WallTime(), 2),
                  cpu_s=round(cpu_s, 2), cost_scale=scale)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        # No solution at all (the hint is one, so only when time ran out building).
        result.update(best_added_cost=None, schedule=None, peak=None,
                      bound=None if status != cp_model.INFEASIBLE else math.inf)
        return result
    runs = []
    for v in range(n):
        for k in range(K[v]):
            if k == 0 or solver.BooleanValue(act[v][k]):
                st = pos[v] if k == 0 else solver.Value(stage[v][k])
                runs.append((st * n + pos[v] + 1, v))
    runs.sort()
    sched = [v for _, v in runs]
    over = solver.Value(excess)
    obj_bound = solver.BestObjectiveBound()
    # Every schedule within the limit has objective = its cost < big: a bound >= big proves
    # there is none; below it, the bound is one on the cost. Excess at least ceil((B-big+1)/big).
    excess_bound = max(0, -(-(int(math.ceil(obj_bound - 1e-9)) - big + 1) // big))
    model_peak = (cap + over) * unit + pinned_inputs
    if least:
        result.update(least_bound=limit + excess_bound * unit, model_peak=model_peak,
                      best_added_cost=None, bound=None, schedule_ix=sched)
        if name == "OPTIMAL":
            result["least_bound"] = max(result["least_bound"], min(model_peak, limit + over * unit))
        return result
    if excess_bound > 0:
        result.update(status="INFEASIBLE", best_added_cost=None, bound=math.inf, schedule=None,
                      peak=None, least_found=model_peak)
        return result
    if over > 0:
        # Time ran out with the limit still exceeded: the best it reached, as a least found.
        result.update(status="OVER_LIMIT", best_added_cost=None, bound=obj_bound / scale,
                      schedule=None, peak=None, least_found=model_peak)
        return result
    result.update(best_added_cost=(solver.ObjectiveValue()) / scale,
                  bound=obj_bound / scale, schedule_ix=sched)
    return result


def class_schedule(order: list, picks: dict) -> list:
    """The schedule of the model's form: stage t runs the ops picked for it (in `order`'s
    order), then order[t]. picks: op -> list of stages of its repeated runs."""
    pos = {v: i for i, v in enumerate(order)}
    at: dict = {}
    for v, stages in picks.items():
        for st in stages:
            at.setdefault(st, []).append(v)
    sched = []
    for t, v in enumerate(order):
        sched += sorted(at.get(t, []), key=lambda u: pos[u])
        sched.append(v)
    return sched


def instances(g: Graph, sched: list) -> dict:
    """Per storage made by an op: its instances [make step, end step] as simulate() frees them."""
    makes: dict = {}
    reads: dict = {}
    for i, v in enumerate(sched):
        for s_ in g.creates[v]:
            makes.setdefault(s_, []).append(i)
        for s_ in g.reads[v]:
            reads.setdefault(s_, []).append(i)
    out = {}
    L = len(sched)
    for s_, ms in makes.items():
        rs = reads.get(s_, [])
        lst = []
        for k, m_ in enumerate(ms):
            nxt = ms[k + 1] if k + 1 < len(ms) else L + 1
            rr = [r for r in rs if m_ < r < nxt]
            end = rr[-1] if rr else m_
            if g.pinned[s_] and k + 1 == len(ms):
                end = L
            lst.append((m_, end, rr))
        out[s_] = lst
    return out


def greedy_seed(g: Graph, order: list, limit: int, seconds: float = 10.0) -> list:
    """A start for CP-SAT at a deep limit, where its LNS alone stalls (a flat peak needs the
    same storages dropped across many steps at once): repeatedly, at the peak step, recompute
    the producer of a storage live across it just before that storage's next read, choosing
    the one that removes the most excess (the sum over steps of the bytes above the limit) per
    unit of cost, counting the inputs it must keep live until then. One repeat per op, so the
    result is in the model's class. Returns the best schedule found (maybe above the limit)."""
    import bisect
    import numpy as np

    pos = {v: i for i, v in enumerate(order)}
    picks: dict = {}
    banned = set()
    deadline = time.time() + seconds
    sched = class_schedule(order, picks)
    sim = simulate(g, sched)
    total = None
    while sim["peak"] > limit and time.time() < deadline:
        during = np.array(sim["during"], dtype=np.int64)
        excess = np.maximum(0, during - limit)
        total = int(excess.sum())
        t_star = int(np.argmax(during))
        inst = instances(g, sched)
        # The stage each step belongs to: the position of the next first run at or after it.
        stage_of = [0] * len(sched)
        nxt = len(order) - 1
        seen = set()
        firsts = set()
        for i, v in enumerate(sched):
            if v not in seen:
                firsts.add(i)
                seen.add(v)
        for i in range(len(sched) - 1, -1, -1):
            if i in firsts:
                nxt = pos[sched[i]]
            stage_of[i] = nxt
        at_star = set(g.reads[sched[t_star]]) | set(g.creates[sched[t_star]])

        def covering(s_, t):
            lst = inst.get(s_)
            if not lst:
                return None
            k = bisect.bisect_right([x[0] for x in lst], t) - 1
            return lst[k] if k >= 0 else None

        best = None
        for s_, lst in inst.items():
            p = g.prod[s_]
            if g.size[s_] == 0 or s_ in at_star or p in picks or p in banned \
                    or not g.recomputable[p]:
                continue
            c = covering(s_, t_star)
            if c is None or not (c[0] < t_star < c[1]):
                continue
            later = [r for r in c[2] if r > t_star]
            if not later:
                continue  # pinned, kept to the end: nothing to read it again for
            r = later[0]
            st = stage_of[r]
            if st <= pos[p]:
                continue
            gain = 0
            for s2 in g.creates[p]:
                c2 = covering(s2, t_star)
                if g.size[s2] == 0 or c2 is None or not (c2[0] < t_star < c2[1]) or s2 in at_star:
                    continue
                before = max([x for x in c2[2] if x <= t_star], default=c2[0])
                a, b = before + 1, r
                if a < b:
                    gain += int(np.minimum(excess[a:b], g.size[s2]).sum())
            loss = 0
            for i_ in g.reads[p]:
                if g.size[i_] == 0 or g.prod[i_] is None and g.pinned[i_]:
                    continue
                if g.prod[i_] is None:
                    rs = [j for j, v in enumerate(sched) if i_ in g.reads[v]]
                    end = rs[-1] if rs else len(sched)
                else:
                    ci = covering(i_, r)
                    end = ci[1] if ci else r
                if end < r:
                    seg = during[end + 1:r] + g.size[i_]
                    loss += int((np.maximum(0, seg - limit) - excess[end + 1:r]).sum())
            score = (gain - loss) / max(g.cost[p], 1e-9)
            if gain > loss and (best is None or score > best[0]):
                best = (score, p, st)
        if best is None:
            break
        _, p, st = best
        picks[p] = [st]
        try:
            trial = class_schedule(order, picks)
            tsim = simulate(g, trial)
            t_total = int(np.maximum(0, np.array(tsim["during"], dtype=np.int64) - limit).sum())
        except SimError:
            t_total = None
        if t_total is None or t_total >= total:
            del picks[p]
            banned.add(p)
            continue
        sched, sim = trial, tsim
    return sched


def add_span_cuts(g, m, order, pos, K, act, limit, most, excess, unit):
    """Redundant cuts for the LP bound: while sigma[t] runs for the first time, every storage
    made before it and read by a first run at or after it (or pinned) is live unless its
    producer runs again somewhere; so base_t + sum(size(s) * (1 - again(p(s)))) <= limit, over
    the `most` steps with the largest excess. Valid for every schedule whose first runs follow
    sigma, whatever the stages."""
    last_first_read = {}
    for t, v in enumerate(order):
        for s in g.reads[v]:
            last_first_read[s] = t
    fixed = sum(g.size[s] for s in g.input_storages if g.pinned[s])
    # Storages the first runs alone keep live: donated inputs until their last first read (to
    # the end when nothing reads them), made ones until their last first read (pinned: the end).
    live = {s for s in g.input_storages if g.size[s] and not g.pinned[s]}
    rows = []
    for t, v in enumerate(order):
        base = fixed + g.alloc[v] + g.ws[v]
        reads_here = set(g.reads[v])
        by_prod: dict = {}
        for s in live:
            p = g.prod[s]
            if p is None or s in reads_here or K[p] == 1:
                base += g.size[s]
            else:
                by_prod[p] = by_prod.get(p, 0) + g.size[s]
        total = base + sum(by_prod.values())
        if total > limit:
            rows.append((total - limit, t, by_prod))
        for s in g.creates[v]:
            if g.size[s] and (g.pinned[s] or last_first_read.get(s, -1) > t):
                live.add(s)
        for s in reads_here:
            if s in live and not g.pinned[s] and last_first_read.get(s) == t:
                live.discard(s)
    rows.sort(key=lambda r: -r[0])
    for over, t, by_prod in rows[:most]:
        # Soft as the limit is: the model's excess relaxes each cut by as many bytes.
        m.Add(sum(sz * act[p][1] for p, sz in by_prod.items()) + unit * excess >= over)
    return min(len(rows), most)


def apply_hint(g, m, hint, pos, K, act, stage, E, Ein, sizes, H, covers, views):
    """Hints every variable of the model with a schedule: each repeated run joins the stage of
    the next first run after it (runs beyond --max-runs are dropped), every instance ends at its
    last read as the simulator frees it, each read is covered by the latest make. A complete
    hint is CP-SAT's first solution (with the excess it needs). Returns the hint's peak."""
    n = g.n
    firsts = {}
    cnt = [0] * n
    for i, v in enumerate(hint):
        if cnt[v] == 0:
            firsts[i] = pos[v]
        cnt[v] += 1
    # The stage of step i: the position of the next first run at or after i (the last stage
    # for recomputations after every first run).
    stage_at = [0] * len(hint)
    nxt = n - 1
    for i in range(len(hint) - 1, -1, -1):
        if i in firsts:
            nxt = firsts[i]
        stage_at[i] = nxt
    chosen = [[pos[v]] for v in range(n)]
    seen = [0] * n
    for i, v in enumerate(hint):
        seen[v] += 1
        if seen[v] > 1 and len(chosen[v]) < K[v]:
            st = min(max(stage_at[i], pos[v] + 1), n - 1)
            if st > chosen[v][-1]:
                chosen[v].append(st)
    times = [[st * n + pos[v] + 1 for st in chosen[v]] for v in range(n)]
    for v in range(n):
        for k in range(1, K[v]):
            on = k < len(chosen[v])
            m.AddHint(act[v][k], on)
            # An idle run sits at its earliest stage.
            m.AddHint(stage[v][k], chosen[v][k] if on else pos[v] + 1)
    # Instance ends, as the simulator frees them on the hinted runs.
    runs = sorted((t, v) for v in range(n) for t in times[v])
    read_times: dict = {}
    for t, u in runs:
        for s_ in g.reads[u]:
            read_times.setdefault(s_, []).append(t)
    delta: dict = {}
    for v in range(n):
        for s_ in g.creates[v]:
            rs = read_times.get(s_, [])
            for k in range(K[v]):
                if (s_, k) not in E:
                    continue
                if k >= len(times[v]):
                    t_idle = (pos[v] + 1) * n + pos[v] + 1
                    m.AddHint(E[(s_, k)], t_idle)
                    if (s_, k) in sizes:
                        m.AddHint(sizes[(s_, k)], 1)
                    continue
                t0 = times[v][k]
                t1 = times[v][k + 1] if k + 1 < len(times[v]) else H + 1
                end = max([r for r in rs if t0 < r < t1], default=t0)
                if g.pinned[s_] and k + 1 == len(times[v]):
                    end = H
                m.AddHint(E[(s_, k)], end)
                if (s_, k) in sizes:
                    m.AddHint(sizes[(s_, k)], end + 1 - t0)
                delta[t0] = delta.get(t0, 0) + g.size[s_]
                delta[end + 1] = delta.get(end + 1, 0) - g.size[s_]
    for s_, e in Ein.items():
        rs = read_times.get(s_)
        end = max(rs) if rs else H
        m.AddHint(e, end)
        delta[0] = delta.get(0, 0) + g.size[s_]
        delta[end + 1] = delta.get(end + 1, 0) - g.size[s_]
    fixed = sum(g.size[s_] for s_ in g.input_storages if g.pinned[s_])
    ws_at = {t: g.ws[v] for t, v in runs}
    live, peak = fixed, fixed
    for t in sorted(set(delta) | set(ws_at)):
        live += delta.get(t, 0)
        peak = max(peak, live + ws_at.get(t, 0))

    def latest(x, tau):
        """Index of x's latest hinted run before tau (None: none)."""
        best = None
        for j, t in enumerate(times[x]):
            if t < tau:
                best = j
        return best

    for u, k, p, lits in covers:
        j = latest(p, times[u][k]) if k < len(times[u]) else None
        for jj, c in enumerate(lits):
            m.AddHint(c, jj == j)
    for q, b, j, u, k, lt, ws_ in views:
        tau = H if u is None else (times[u][k] if k < len(times[u]) else None)
        on = tau is not None and j < len(times[b]) and times[b][j] < tau
        m.AddHint(lt, True)
        pick = None
        if on:
            for i, t in enumerate(times[q]):
                if times[b][j] < t < tau:
                    pick = i
        for i, w in enumerate(ws_):
            m.AddHint(w, i == pick)
    return peak


def cli_peak(bin_path: str | None, graph_path: str, ids: list):
    """`peakorder simulate GRAPH SCHEDULE --json`: (peak, None) or (None, why not)."""
    if not bin_path or not os.path.exists(bin_path):
        return None, "no CLI"
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(ids, f)
        p = f.name
    try:
        r = subprocess.run([bin_path, "simulate", graph_path, p, "--json"], capture_output=True,
                           text=True)
    finally:
        os.unlink(p)
    if r.returncode != 0:
        msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        if "more than once" in msg:
            return None, "the CLI refuses repeats (schedule support lands in another branch)"
        return None, msg
    return json.loads(r.stdout)["peak_bytes"], None


def default_bin():
    for p in (os.environ.get("PEAKORDER_BIN"), os.path.join(REPO, "target/release/peakorder")):
        if p and os.path.exists(p):
            return p
    return None


def finish(g: Graph, res: dict, graph_path: str | None, bin_path: str | None) -> dict:
    """Re-simulates the solver's schedule and records what the simulators say."""
    sched = res.pop("schedule_ix", None)
    if sched is None:
        res["schedule"] = None
        return res
    res["schedule"] = [g.oname[v] for v in sched]
    try:
        sim = simulate(g, sched)
    except SimError as e:
        res["status"] = "ERROR"
        res["error"] = f"the solver's schedule is invalid: {e}"
        return res
    res["peak"] = sim["peak"]
    res["runs"] = len(sched)
    limit = res["limit"] if res["limit"] is not None else res["model_peak"]
    if sim["peak"] > limit:
        res["status"] = "ERROR"
        res["error"] = f"simulated peak {sim['peak']} is above the limit {limit}"
    if res["best_added_cost"] is None:
        res["best_added_cost"] = sim["added_cost"]
    if abs(sim["added_cost"] - res["best_added_cost"]) > 1e-6 * max(1.0, sim["added_cost"]) \
            and res.get("cost_scale", 1) == 1:
        res["status"] = "ERROR"
        res["error"] = f"added cost {sim['added_cost']} != the objective {res['best_added_cost']}"
    res["best_added_cost"] = sim["added_cost"]
    if graph_path is not None:
        peak, why = cli_peak(bin_path, graph_path, res["schedule"])
        res["cli_peak"] = peak
        if why:
            res["cli"] = why
        elif peak != sim["peak"]:
            res["status"] = "ERROR"
            res["error"] = f"peakorder simulate says {peak}, this file's simulator {sim['peak']}"
    return res


# ---------------------------------------------------------------------------------------------
# Self-test: tiny random graphs against brute force.

def random_graph(rng: random.Random, n_ops: int) -> dict:
    tensors, ops = [], []
    avail = []
    for i in range(rng.randint(1, 2)):
        t = {"id": f"in{i}", "bytes": rng.randint(1, 8)}
        if rng.random() < 0.5:
            t["donated"] = True
        tensors.append(t)
        avail.append(t["id"])
    for v in range(n_ops):
        ins = rng.sample(avail, min(len(avail), rng.randint(1, 2)))
        op = {"id": f"o{v}", "inputs": ins, "outputs": []}
        for j in range(rng.choice([1, 1, 1, 2])):
            tid = f"t{v}_{j}"
            if rng.random() < 0.2:
                base = rng.choice(ins if rng.random() < 0.7 else avail)
                tensors.append({"id": tid, "alias_of": base})
            else:
                tensors.append({"id": tid, "bytes": rng.randint(0, 10)})
            op["outputs"].append(tid)
            avail.append(tid)
        if rng.random() < 0.25:
            op["workspace"] = rng.randint(1, 6)
        if rng.random() < 0.3:
            op["cost"] = rng.choice([0, 2, 3, 0.5])
        if rng.random() < 0.1:
            op["recompute"] = False
        ops.append(op)
    made = [t for o in ops for t in o["outputs"]]
    outs = {ops[-1]["outputs"][0]}
    if rng.random() < 0.5:
        outs.add(rng.choice(made))
    return {"format": "peakorder/1", "tensors": tensors, "ops": ops, "outputs": sorted(outs)}


def restricted_schedules(g: Graph, order: list, max_runs: int):
    """Every schedule of the model's form over `order` (the class CP-SAT searches)."""
    n = g.n
    pos = {v: i for i, v in enumerate(order)}
    choices = []
    for v in range(n):
        later = list(range(pos[v] + 1, n))
        opts = [()]
        if g.recomputable[v]:
            for r in range(1, max_runs):
                opts += list(itertools.combinations(later, r))
        choices.append(opts)
    for pick in itertools.product(*choices):
        at = [[] for _ in range(n)]
        for v in range(n):
            for st in pick[v]:
                at[st].append(v)
        sched = []
        for st in range(n):
            sched += sorted(at[st], key=lambda v: pos[v])
            sched.append(order[st])
        yield sched


def all_schedules(g: Graph, max_runs: int, max_extra: int):
    """Every valid prefix-closed schedule with at most max_runs runs of an op and max_extra
    repeated runs in all (any interleaving, first runs in any topological order)."""
    n = g.n
    runs = [0] * n
    seq = []

    def rec(extra):
        if all(r > 0 for r in runs):
            yield list(seq)
        for v in range(n):
            if runs[v] == 0:
                if any(runs[p] == 0 for p in g.preds[v]):
                    continue
            elif runs[v] >= max_runs or extra >= max_extra or not g.recomputable[v]:
                continue
            e = extra + (1 if runs[v] > 0 else 0)
            runs[v] += 1
            seq.append(v)
            yield from rec(e)
            seq.pop()
            runs[v] -= 1

    yield from rec(0)


def best_of(g: Graph, scheds, limit: int):
    best = None
    least = None
    for s in scheds:
        try:
            r = simulate(g, s)
        except SimError:
            continue
        least = r["peak"] if least is None else min(least, r["peak"])
        if r["peak"] <= limit and (best is None or r["added_cost"] < best[0] - 1e-12):
            best = (r["added_cost"], s)
    return best, least


def selftest(count: int, seed: int, bin_path: str | None, dump: str | None) -> int:
    rng = random.Random(seed)
    stats = dict(graphs=0, instances=0, optimal=0, recomputing=0, infeasible=0, agree=0,
                 restricted_worse=0,
                 cli_checked=0, bound_ok=0, sims_dumped=0)
    failures = []
    dumped = []
    t0 = time.time()
    max_runs = 2
    for gi in range(count):
        n_ops = rng.randint(2, 6)
        spec = random_graph(rng, n_ops)
        g = Graph(spec)
        order = g.topo_order()
        if rng.random() < 0.5:
            # Another topological order: random tie-breaking.
            indeg = [len(g.preds[v]) for v in range(g.n)]
            ready = [v for v in range(g.n) if indeg[v] == 0]
            order = []
            while ready:
                v = ready.pop(rng.randrange(len(ready)))
                order.append(v)
                for s in g.succs[v]:
                    indeg[s] -= 1
                    if indeg[s] == 0:
                        ready.append(s)
        stats["graphs"] += 1
        restricted = list(restricted_schedules(g, order, max_runs))
        peaks = set()
        for s in restricted:
            try:
                peaks.add(simulate(g, s)["peak"])
            except SimError:
                pass
        p0 = simulate(g, order)["peak"]
        least = min(peaks)
        limits = sorted({least - 1, least, p0, (least + p0) // 2, rng.randint(least, p0)})
        glob = list(all_schedules(g, max_runs, 3)) if g.n <= 4 else None
        # The simulator against the CLI, on orders (no repeats) and on some schedules.
        if bin_path:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(spec, f)
                gpath = f.name
            for s in [order] + rng.sample(restricted, min(3, len(restricted))):
                try:
                    mine = simulate(g, s)["peak"]
                except SimError as e:
                    mine = e.code
                peak, why = cli_peak(bin_path, gpath, [g.oname[v] for v in s])
                if why is None:
                    stats["cli_checked"] += 1
                    if peak != mine:
                        failures.append(f"graph {gi}: CLI {peak} vs simulator {mine} on {s}")
            os.unlink(gpath)
        if dump:
            # Schedules of the class, and free ones: an order with 1-3 runs of random ops
            # inserted anywhere (so also before a first run, and of `recompute: false` ops).
            # Its own random stream, so that dumping leaves the test's graphs as they are.
            drng = random.Random(seed * 100003 + gi)
            free = []
            for _ in range(3):
                s = list(order)
                for _ in range(drng.randint(1, 3)):
                    s.insert(drng.randrange(len(s) + 1), drng.randrange(g.n))
                free.append(s)
            for s in drng.sample(restricted, min(4, len(restricted))) + free:
                try:
                    r = simulate(g, s)
                    dumped.append({"graph": spec, "schedule": [g.oname[v] for v in s],
                                   "peak": r["peak"]})
                except SimError as e:
                    dumped.append({"graph": spec, "schedule": [g.oname[v] for v in s],
                                   "error": e.code})
        for limit in limits:
            if limit < 0:
                continue
            stats["instances"] += 1
            want, _ = best_of(g, restricted, limit)
            res = finish(g, solve(g, limit, order, seconds=20, max_runs=max_runs), None, None)
            tag = f"graph {gi} ({g.n} ops) limit {limit}: "
            if res["status"] == "ERROR":
                failures.append(tag + res["error"] + " " + json.dumps(spec))
                continue
            if want is None:
                if res["status"] != "INFEASIBLE":
                    failures.append(tag + f"brute force: infeasible, CP-SAT {res['status']} "
                                    f"{res.get('best_added_cost')} " + json.dumps(spec))
                else:
                    stats["infeasible"] += 1
                    stats["agree"] += 1
                continue
            if res["status"] != "OPTIMAL":
                failures.append(tag + f"CP-SAT {res['status']}, brute force {want[0]} "
                                + json.dumps(spec))
                continue
            stats["optimal"] += 1
            if abs(res["best_added_cost"] - want[0]) > 1e-9:
                failures.append(tag + f"CP-SAT {res['best_added_cost']} vs brute force "
                                f"{want[0]} {[g.oname[v] for v in want[1]]} " + json.dumps(spec))
                continue
            stats["agree"] += 1
            stats["recomputing"] += want[0] > 0
            if res["bound"] <= want[0] + 1e-9:
                stats["bound_ok"] += 1
            else:
                failures.append(tag + f"bound {res['bound']} above the optimum {want[0]}")
            if glob is not None:
                gbest, _ = best_of(g, glob, limit)
                if gbest is not None and gbest[0] < want[0] - 1e-9:
                    stats["restricted_worse"] += 1
    if dump:
        with open(dump, "w") as f:
            for d in dumped:
                f.write(json.dumps(d) + "\n")
        stats["sims_dumped"] = len(dumped)
    stats["seconds"] = round(time.time() - t0, 1)
    print(json.dumps(stats))
    for f in failures[:20]:
        print("FAIL", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


def cases(dirname: str, seconds: float, bin_path: str | None) -> int:
    """Each fixture at P0 (its file order's peak) and at limits below it: CP-SAT's best,
    re-simulated (and, on tiny ones, the class's brute-force optimum)."""
    bad = 0
    print("| case | ops | P0 | limit | status | added | bound | peak | brute force | cli |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---|")
    for name in sorted(os.listdir(dirname)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(dirname, name)
        spec = json.load(open(path))
        g = Graph(spec)
        order = g.topo_order()
        p0 = simulate(g, order)["peak"]
        restricted = list(restricted_schedules(g, order, 2)) if g.n <= 7 else None
        least = None
        if restricted is not None:
            _, least = best_of(g, restricted, 0)
        lo = least if least is not None else g.inputs_bytes
        limits = sorted({p0, lo + (p0 - lo) * 3 // 4, lo + (p0 - lo) // 2, lo})
        for limit in limits:
            res = finish(g, solve(g, limit, order, seconds=seconds), path, bin_path)
            bf = ""
            if restricted is not None:
                want, _ = best_of(g, restricted, limit)
                bf = "infeasible" if want is None else f"{want[0]:g}"
                ok = (want is None and res["status"] == "INFEASIBLE") or (
                    want is not None and res["status"] == "OPTIMAL"
                    and abs(res["best_added_cost"] - want[0]) < 1e-9)
                if not ok:
                    bad += 1
                    bf += " MISMATCH"
            if res["status"] == "ERROR":
                bad += 1
            cost = "-" if res.get("best_added_cost") is None else f"{res['best_added_cost']:g}"
            bound = "-" if res.get("bound") is None else f"{res['bound']:g}"
            cli = res.get("cli", "agrees" if res.get("cli_peak") is not None else "-")
            cli = "refuses repeats" if "refuses repeats" in cli else cli
            print(f"| {name[:-5]} | {g.n} | {p0} | {limit} | {res['status']} | {cost} | {bound} "
                  f"| {res.get('peak', '-')} | {bf} | {cli} |")
    print(f"{bad} mismatches")
    return 1 if bad else 0


def referee(rows_path: str, seconds: float, max_runs: int, workers: int, only: str | None,
            params: str = "", fractions: str | None = None, seed_ours: bool = True) -> int:
    """Runs the model on each (graph, limit) row that `cargo bench --bench recompute -- --json`
    wrote, over the plan's order it recorded, and prints ours against the referee's best."""
    data = json.load(open(rows_path))
    orders = data.get("orders", {})
    print("| graph | ops | % | limit | ours | ours bound | referee best | referee bound | status "
          "| ours / best | s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for row in data["rows"]:
        if only and only not in row["graph"]:
            continue
        if row.get("limit") is None:
            continue
        if fractions and not any(abs(row.get("fraction", -1) - float(f)) < 1e-9
                                 for f in fractions.split(",")):
            continue
        spec = json.load(open(row["path"]))
        g = Graph(spec)
        ids = orders.get(row["graph"])
        order = [g.oid[x] for x in ids] if ids else g.topo_order()
        hint = None
        if row.get("schedule") and seed_ours:
            hint = [g.oid[x] for x in row["schedule"]]
        res = finish(g, solve(g, row["limit"], order, seconds=seconds, max_runs=max_runs,
                              workers=workers, hint=hint, params=params), None, None)
        ours = row.get("added_cost")
        best = res.get("best_added_cost")
        ratio = "-"
        if ours is not None and best is not None:
            ratio = "1.000" if ours == best else (f"{ours / best:.3f}" if best > 0 else "inf")
        fmt = lambda x: "-" if x is None else f"{x:g}"  # noqa: E731
        ours_cell = fmt(ours) if ours is not None else ("refused" if row.get("error") else "-")
        status = res["status"]
        if res.get("least_found") is not None:
            status += f" (reached {res['least_found']})"
        print(f"| {row['graph']} | {g.n} | {row.get('fraction', 0) * 100:.0f} | {row['limit']} "
              f"| {ours_cell} "
              f"| {fmt(row.get('added_cost_lower_bound'))} | {fmt(best)} | {fmt(res.get('bound'))} "
              f"| {status} | {ratio} | {res.get('solve_s', 0):.0f} |", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", nargs="?")
    ap.add_argument("--limit", help="bytes or a unit (64MiB)")
    ap.add_argument("--order", help="a plan or a JSON array of op ids (default: the file's order)")
    ap.add_argument("--time", type=float, default=60.0, help="CP-SAT seconds (default 60)")
    ap.add_argument("--max-runs", type=int, default=2, help="most runs of one op (default 2)")
    ap.add_argument("--workers", type=int, default=1, help="CP-SAT workers (default 1)")
    ap.add_argument("--hint", help="a schedule (plan or array of ids) to start from")
    ap.add_argument("--bin", default=None, help="the peakorder CLI (default target/release)")
    ap.add_argument("--out", help="write the schedule (a JSON array of op ids) here")
    ap.add_argument("--least", action="store_true",
                    help="minimise the peak instead (the class's least limit); no --limit")
    ap.add_argument("--cuts", type=int, default=400,
                    help="most redundant span cuts for the bound (default 400; 0: none)")
    ap.add_argument("--params", default="",
                    help="more CP-SAT parameters, k=v,k=v (e.g. interleave_search=false)")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dump-sims", help="selftest: write (graph, schedule, peak) lines here")
    ap.add_argument("--cases", metavar="DIR")
    ap.add_argument("--referee", metavar="ROWS")
    ap.add_argument("--only", help="referee: rows whose graph name contains this")
    ap.add_argument("--fractions", help="referee: only rows at these fractions (0.9,0.5)")
    ap.add_argument("--no-seed", action="store_true",
                    help="referee: do not start from the planner's schedule (from the order)")
    a = ap.parse_args()
    bin_path = a.bin or default_bin()
    if a.selftest:
        return selftest(a.count, a.seed, bin_path, a.dump_sims)
    if a.cases:
        return cases(a.cases, a.time, bin_path)
    if a.referee:
        return referee(a.referee, a.time, a.max_runs, a.workers, a.only, a.params, a.fractions,
                       not a.no_seed)
    if not a.graph or (a.limit is None) == (not a.least):
        ap.error("GRAPH and --limit (or --least) are needed (or --selftest, --cases, --referee)")
    g = Graph(json.load(open(a.graph)))
    order = read_order(g, a.order)
    hint = None
    if a.hint:
        h = json.load(open(a.hint))
        hint = [g.oid[x] for x in (h["order"] if isinstance(h, dict) else h)]
    res = solve(g, parse_bytes(a.limit) if a.limit else 0, order, a.time, a.max_runs, a.workers,
                hint, cuts=a.cuts, params=a.params, least=a.least)
    res = finish(g, res, a.graph, bin_path)
    res["order"] = a.order or "file"
    if a.out and res.get("schedule"):
        json.dump(res["schedule"], open(a.out, "w"))
    if res.get("bound") == math.inf:
        res["bound"] = None  # strict JSON; status INFEASIBLE says it
    print(json.dumps(res))
    return 2 if res["status"] == "ERROR" else 0


if __name__ == "__main__":
    sys.exit(main())
