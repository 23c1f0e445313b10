#!/usr/bin/env python3
"""A referee for the layout of a fixed order: CP-SAT (Google OR-Tools) on the buffers of a
`peakorder layout ... --json` output, to measure how far our arena is from what a general solver
finds (docs/layout.md, "Is it the layout or the order?"). Not a test dependency and not part of
the product: run it in a scratch venv with `pip install ortools`.

    peakorder layout GRAPH --order ORDER.json --json > L.json
    python scripts/cpsat_layout.py L.json [SECONDS, default 60]

Each buffer is a rectangle: steps [first_step, last_step] (inclusive, as in the JSON) by bytes
[offset, offset + bytes); no two overlap (NoOverlap2D); the arena, between the layout's lower
bound and its arena, is minimised, with our offsets as the hint. One worker, so runs repeat.
Prints the status, the arena found, CP-SAT's proven bound, and ours.
"""

from __future__ import annotations

import json
import sys

from ortools.sat.python import cp_model


def main() -> None:
    layout = json.load(open(sys.argv[1]))
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    bufs = [b for b in layout["buffers"] if b["bytes"] > 0]
    lb, ub = layout["lower_bound_bytes"], layout["arena_bytes"]
    m = cp_model.CpModel()
    arena = m.NewIntVar(lb, ub, "arena")
    steps, spans = [], []
    for i, b in enumerate(bufs):
        off = m.NewIntVar(0, ub - b["bytes"], f"o{i}")
        spans.append(m.NewIntervalVar(off, b["bytes"], off + b["bytes"], f"y{i}"))
        length = b["last_step"] - b["first_step"] + 1
        steps.append(m.NewFixedSizeIntervalVar(b["first_step"], length, f"x{i}"))
        m.Add(off + b["bytes"] <= arena)
        m.AddHint(off, b["offset"])
    m.AddNoOverlap2D(steps, spans)
    m.Minimize(arena)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = 1
    status = solver.Solve(m)
    print(f"{solver.StatusName(status)} arena {solver.Value(arena)} bound "
          f"{int(solver.BestObjectiveBound())} lower bound {lb} ours {ub} "
          f"in {solver.WallTime():.1f} s")


if __name__ == "__main__":
    main()
