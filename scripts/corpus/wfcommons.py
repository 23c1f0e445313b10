"""Scientific workflows (WfCommons instances, https://github.com/wfcommons/WfInstances) as
peakorder graphs: each task is an op, each file a tensor of its recorded size.

- A task's input files are the op's inputs, its output files the op's outputs.
- A file no task writes is a graph input, donated (a staged input file may be deleted once its
  last reader ran); a file no task reads is a graph output (a product of the workflow).
- A parent→child dependency with no file between them becomes a 0-byte tensor, so the order
  keeps every precedence of the instance.
- A file written by two tasks keeps its first writer; later writes become their own tensors.

    python scripts/corpus/wfcommons.py SRC OUT_DIR [--max-ops N]

SRC is a directory of WfCommons JSON instances (searched recursively), e.g. a checkout of
wfcommons/WfInstances, or a bare git directory of it (read with `git show`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys


def _tasks_and_sizes(doc: dict):
    w = doc["workflow"]
    spec = w.get("specification")
    if spec is not None:  # schema 1.5
        sizes = {f["id"]: int(f.get("sizeInBytes", 0)) for f in spec.get("files", [])}
        tasks = []
        for t in spec["tasks"]:
            tasks.append((t["id"], t.get("name", t["id"]), list(t.get("inputFiles", [])),
                          list(t.get("outputFiles", [])), list(t.get("parents", []))))
        return tasks, sizes
    # schema <= 1.4: files listed per task with a link
    sizes = {}
    tasks = []
    for t in w["tasks"]:
        ins, outs = [], []
        for f in t.get("files", []):
            name = f.get("name") or f.get("id")
            size = int(f.get("sizeInBytes", f.get("size", 0)))
            sizes[name] = max(sizes.get(name, 0), size)
            (ins if f.get("link") == "input" else outs).append(name)
        tid = t.get("id", t.get("name"))
        tasks.append((tid, t.get("name", tid), ins, outs, list(t.get("parents", []))))
    return tasks, sizes


def convert(doc: dict, label: str) -> dict:
    tasks, sizes = _tasks_and_sizes(doc)
    by_id = {t[0]: t for t in tasks}
    # Topological order of tasks (Kahn), parents first; the instance's own order breaks ties.
    indeg = {t[0]: 0 for t in tasks}
    kids = {t[0]: [] for t in tasks}
    writer = {}
    for tid, _n, _i, outs, _p in tasks:
        for f in outs:
            writer.setdefault(f, tid)
    deps = {}
    for tid, _n, ins, _o, parents in tasks:
        d = set(p for p in parents if p in by_id)
        d.update(writer[f] for f in ins if f in writer and writer[f] != tid)
        deps[tid] = d
        for p in d:
            kids[p].append(tid)
            indeg[tid] += 1
    ready = [t[0] for t in tasks if indeg[t[0]] == 0]
    order = []
    while ready:
        tid = ready.pop(0)
        order.append(tid)
        for k in kids[tid]:
            indeg[k] -= 1
            if indeg[k] == 0:
                ready.append(k)
    if len(order) != len(tasks):
        raise ValueError(f"{label}: the task dependencies have a cycle")

    tensors = {}
    readers = {}
    for tid, _n, ins, _o, _p in tasks:
        for f in ins:
            readers.setdefault(f, set()).add(tid)
    made = set()
    ops = []
    for tid in order:
        _t, name, ins, outs, _p = by_id[tid]
        op_outs = []
        for f in dict.fromkeys(outs):
            fid = f if writer[f] == tid else f"{f}#written-by:{tid}"
            tensors[fid] = {"id": fid, "bytes": sizes.get(f, 0)}
            op_outs.append(fid)
            made.add(fid)
        op_ins = []
        for f in dict.fromkeys(ins):
            if f in writer and writer[f] == tid:
                continue  # a task reading its own output
            if f not in writer and f not in tensors:
                tensors[f] = {"id": f, "bytes": sizes.get(f, 0), "donated": True}
            op_ins.append(f)
        # Precedences with no file between the tasks: a 0-byte token.
        carried = {writer[f] for f in op_ins if f in writer}
        for p in sorted(deps[tid] - carried):
            tok = f"{p}->{tid}"
            tensors[tok] = {"id": tok, "bytes": 0}
            next(o for o in ops if o["id"] == p)["outputs"].append(tok)
            op_ins.append(tok)
        ops.append({"id": tid, "kind": name.split(".")[-1].rsplit("_ID", 1)[0], "inputs": op_ins,
                    "outputs": op_outs})
    outputs = [t for t in made if t.split("#written-by:")[0] not in readers]
    outputs.sort()
    return {
        "format": "peakorder/1",
        "tensors": list(tensors.values()),
        "ops": ops,
        "outputs": outputs,
        "meta": {"family": "workflow", "source": label, "name": doc.get("name"),
                 "note": "WfCommons instance: tasks as ops, files as tensors; input files donated, "
                         "unread files are graph outputs"},
    }


def _sources(src: str):
    if os.path.isdir(os.path.join(src, "objects")) or src.endswith(".git") or os.path.basename(src) == "repo":
        names = subprocess.run(["git", "-C", src, "ls-tree", "-r", "--name-only", "HEAD"], check=True,
                               capture_output=True, text=True).stdout.split()
        for n in names:
            if n.endswith(".json"):
                r = subprocess.run(["git", "-C", src, "show", f"HEAD:{n}"], capture_output=True)
                if r.returncode == 0:
                    yield n, r.stdout
        return
    for root, _d, files in os.walk(src):
        for f in sorted(files):
            if f.endswith(".json"):
                p = os.path.join(root, f)
                with open(p, "rb") as fh:
                    yield os.path.relpath(p, src), fh.read()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--max-ops", type=int, default=5000)
    ap.add_argument("--per-family", type=int, default=6,
                    help="keep at most this many instances per workflow family, spread over their "
                         "sizes, and only the first run (-001) of each configuration; 0 keeps all")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    graphs = []
    for rel, data in _sources(a.src):
        try:
            doc = json.loads(data)
        except ValueError:
            print(f"{rel}: not JSON (a large file left out of the snapshot?)", file=sys.stderr)
            continue
        if "workflow" not in doc:
            continue
        try:
            g = convert(doc, rel)
        except (KeyError, ValueError) as e:
            print(f"{rel}: skipped: {e}", file=sys.stderr)
            continue
        if len(g["ops"]) > a.max_ops or len(g["ops"]) < 2:
            continue
        name = "wf-" + os.path.splitext(os.path.basename(rel))[0].replace("-chameleon", "").replace("-dirt02", "")
        if a.per_family and not name.endswith("-001"):
            continue
        graphs.append((name, g))
    if a.per_family:
        families = {}
        for name, g in graphs:
            families.setdefault(name.split("-")[1], []).append((len(g["ops"]), name, g))
        graphs = []
        for fam in families.values():
            fam.sort(key=lambda x: (x[0], x[1]))
            k = min(a.per_family, len(fam))
            # Evenly spread over the sizes, smallest and largest included.
            picks = sorted({round(i * (len(fam) - 1) / max(k - 1, 1)) for i in range(k)})
            graphs.extend((fam[i][1], fam[i][2]) for i in picks)
    for name, g in graphs:
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(g, f, separators=(",", ":"))
        print(f"{name}: {len(g['ops'])} ops, {len(g['tensors'])} tensors", flush=True)
    print(f"{len(graphs)} workflows written to {a.out}")


if __name__ == "__main__":
    main()
