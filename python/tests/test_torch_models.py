"""torchvision training steps (batch 4, 64x64, make_fx of forward + cross-entropy + backward +
SGD update) reordered by peakorder.torch.reorder, measured by PyTorch's allocator: never above
the unreordered graph, lower on mobilenet_v2 and efficientnet_b0, calibrated prediction =
measurement (within 1%), the same output bits and BatchNorm statistics."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import torch_steps as ts  # noqa: E402

import peakorder.torch as pt  # noqa: E402

LOWER = {"mobilenet_v2", "efficientnet_b0"}


@pytest.mark.parametrize("name", ts.MODELS)
def test_reordered_training_step(name):
    step = ts.FxStep(name)
    want = step.run_fresh()
    before = step.measure()
    plan = pt.reorder(step.gm, step.flat_inputs(), calibrate=True)
    got = step.run_fresh()
    after = step.measure()
    assert len(got) == len(want) and all(torch.equal(a, b) for a, b in zip(want, got))
    assert after <= before
    if name in LOWER:
        assert after < before
    ib = plan["inputs_bytes"]
    for measured, predicted in ((before, plan["program_order_peak_bytes"] - ib), (after, plan["applied_peak_bytes"] - ib)):
        assert abs(measured - predicted) <= 0.01 * measured, (name, measured, predicted)
