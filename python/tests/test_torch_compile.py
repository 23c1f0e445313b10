"""A torchvision training step through torch.compile, measured by PyTorch's allocator:
inductor_options() never peaks above Inductor's default, and the AOTAutograd backend (order
alone, no fusion) comes within 1% of eager. resnet18 only: compiling the other four models'
training steps takes minutes each on CI's two cores (docs/pytorch.md has all five)."""

import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))
import torch_steps as ts  # noqa: E402

import peakorder.torch as pt  # noqa: E402


def peak(mode):
    return pt.measure_peak(ts.CompiledStep("resnet18", mode))


def test_resnet18_training_step_through_torch_compile():
    eager, default, ours = peak("eager"), peak("default"), peak("ours")
    assert ours <= default
    assert abs(peak("backend") - eager) <= 0.01 * eager
