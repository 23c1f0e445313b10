"""The seed (../shared/seeds/) through torch.compile, measured by PyTorch's allocator (the CPU
profiler's memory events): Inductor's default order peaks 2.75 MiB above the inputs; with
peakorder's post-grad pass, its scheduler pass, or its AOTAutograd backend, 0.75 MiB, the peak
of the memory-efficient eager function, with the same output bits."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import torch_steps as ts  # noqa: E402

import peakorder.torch as pt  # noqa: E402

QUARTER = 256 * 256 * 4  # one 256x256 f32 tensor: 0.25 MiB
OURS = {
    "inductor_options()": lambda: dict(options=pt.inductor_options()),
    "inductor_options(inductor_reorder=False)": lambda: dict(options=pt.inductor_options(inductor_reorder=False)),
    "inductor_options(scheduler=True)": lambda: dict(options=pt.inductor_options(scheduler=True)),
    "backend()": lambda: dict(backend=pt.backend()),
}


@pytest.fixture(scope="module")
def seed():
    return ts.seed_inputs()


@pytest.mark.parametrize("label", list(ts.SEED_FUNCTIONS))
def test_default_inductor_peaks_at_2_75_mib(seed, label):
    fn = ts.seed_compiled(ts.SEED_FUNCTIONS[label], "default")
    assert pt.measure_peak(fn, *seed) == 11 * QUARTER


def test_eager_efficient_function_peaks_at_0_75_mib(seed):
    assert pt.measure_peak(ts.memory_peak_efficient_func, *seed) == 3 * QUARTER


@pytest.mark.parametrize("how", list(OURS))
@pytest.mark.parametrize("label", list(ts.SEED_FUNCTIONS))
def test_peakorder_in_torch_compile_peaks_at_0_75_mib(seed, label, how):
    fn = ts.SEED_FUNCTIONS[label]
    torch._dynamo.reset()
    compiled = torch.compile(fn, **OURS[how]())
    assert torch.equal(compiled(*seed), fn(*seed))
    assert pt.measure_peak(compiled, *seed) == 3 * QUARTER
