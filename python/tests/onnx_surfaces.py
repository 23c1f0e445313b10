"""Shared by the ONNX tests: one model imported by the CLI, Python and Node must give the same
graph JSON text (or the same error message, with the code on both in-process surfaces)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import peakorder

from conftest import cli

ROOT = Path(__file__).resolve().parents[2]
NODE_SCRIPT = ROOT / "tests" / "js" / "onnx-import.mjs"
HAVE_NODE = shutil.which("node") is not None and (ROOT / "pkg" / "node" / "peakorder_onnx.js").exists()


def node_import(paths):
    """The npm package's answer for each path: {"text"} or {"code", "message"}."""
    out = subprocess.run(["node", str(NODE_SCRIPT), *map(str, paths)], check=True,
                         capture_output=True, cwd=ROOT).stdout.decode()
    return [json.loads(line) for line in out.splitlines()]


def cli_import(path):
    r = cli("import", "onnx", path, check=False)
    if r.returncode == 0:
        return {"text": r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout}
    assert r.returncode == 2, r.stderr
    err = r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr
    prefix = f"peakorder: {path}: "
    assert err.startswith(prefix), err
    return {"message": err[len(prefix):].rstrip("\n")}


def python_import(path):
    try:
        return {"text": peakorder.import_onnx(path, as_text=True) + "\n"}
    except peakorder.PeakorderError as e:
        return {"message": str(e), "code": e.code}


def assert_surfaces_agree(paths):
    """CLI, Python and (where built) Node agree on every path; returns how many imported."""
    paths = [os.fspath(p) for p in paths]
    node = node_import(paths) if HAVE_NODE else [None] * len(paths)
    ok = 0
    for p, n in zip(paths, node):
        c, py = cli_import(p), python_import(p)
        if "text" in c:
            assert py.get("text") == c["text"], (p, py.get("message"))
            if n is not None:
                assert n.get("text", "") + "\n" == c["text"], (p, n.get("message"))
            ok += 1
        else:
            assert py.get("message") == c["message"], p
            if n is not None:
                assert (n.get("code"), n.get("message")) == (py["code"], c["message"]), p
    return ok
