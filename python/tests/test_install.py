"""As a new user: `pip install ./python` into a fresh venv, with no `peakorder` binary anywhere on
PATH, builds the native extension from source (maturin as the build backend, in pip's isolated
build environment) and `peakorder.plan(seed)` is optimal, in-process. `pip wheel ./python` makes
the wheel. The build backend's wheel comes from .venv/wheelhouse (scripts/setup.d/50-python.sh),
so this runs offline."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

from conftest import REPO

WHEELHOUSE = REPO / ".venv" / "wheelhouse"
SEED = REPO / "tests" / "cases" / "nvfuser-seed-breadth.json"


def user_env(venv):
    """A user's shell: the venv's bin, the Rust toolchain, the system; nothing of this repository."""
    cargo = shutil.which("cargo")
    assert cargo, "the Rust toolchain is needed to build from source"
    path = os.pathsep.join([str(venv / "bin"), os.path.dirname(cargo), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PEAKORDER", "PYTHON", "PIP_", "VIRTUAL_ENV", "CONDA"))}
    env.update(PATH=path, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_CACHE_DIR=str(venv.parent / "pip-cache"))
    return env


def run(args, env, cwd):
    r = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, f"{' '.join(map(str, args))}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


def test_pip_install_into_a_fresh_venv_plans_the_seed_in_process(tmp_path):
    assert any(WHEELHOUSE.glob("maturin-*.whl")), "run scripts/setup.d/50-python.sh"
    venv = tmp_path / "fresh"
    # The base interpreter, not this venv's: a venv with nothing installed.
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    env = user_env(venv)
    assert shutil.which("peakorder", path=env["PATH"]) is None
    py = venv / "bin" / "python"

    run([py, "-m", "pip", "install", "-q", "./python"], env, REPO)

    # Outside the repository, so nothing of it is found by accident.
    work = tmp_path / "elsewhere"
    work.mkdir()
    shutil.copy(SEED, work / "seed.json")
    probe = (
        "import json, sys, peakorder\n"
        "p = peakorder.plan('seed.json')\n"
        "print(json.dumps({'peak': p['peak_bytes'], 'optimal': p['optimal'], 'file': peakorder.__file__,\n"
        "  'version': peakorder.__version__, 'subprocess': 'subprocess' in sys.modules}))\n"
    )
    out = json.loads(run([py, "-c", probe], env, work).stdout)
    assert out["peak"] == 3_670_016 and out["optimal"] is True
    assert out["file"].startswith(str(venv)), out
    # No subprocess anywhere: not even imported by the time a plan is made.
    assert out["subprocess"] is False
    import peakorder

    assert out["version"] == peakorder.__version__

    # pip wheel ./python makes the wheel: one abi3 wheel for every CPython >= 3.9.
    wheels = tmp_path / "wheels"
    run([py, "-m", "pip", "wheel", "-q", "--no-deps", "./python", "-w", wheels], env, REPO)
    (whl,) = list(wheels.glob("peakorder-*.whl"))
    assert "-cp39-abi3-" in whl.name, whl.name
    names = zipfile.ZipFile(whl).namelist()
    assert "peakorder/py.typed" in names and "peakorder/_native.pyi" in names
    assert any(n.startswith("peakorder/_native.") and n.endswith(".so") for n in names)
    assert not any(n.startswith("peakorder/_cli") for n in names)
