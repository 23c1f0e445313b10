"""Inference graphs from the ONNX models the onnx wheel ships (``onnx/backend/test/data/light``:
AlexNet, DenseNet-121, Inception v1/v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512),
after ``onnx.shape_inference``, imported with ``peakorder import onnx``.

    python scripts/corpus/onnx_models.py OUT_DIR [--bin target/release/peakorder]
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile


def main() -> None:
    import onnx

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--bin", default=os.environ.get("PEAKORDER_BIN", "target/release/peakorder"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    light = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
    models = sorted(glob.glob(os.path.join(light, "light_*.onnx")))
    if not models:
        sys.exit(f"no models under {light}")
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            name = os.path.basename(m)[len("light_"):-len(".onnx")]
            model = onnx.shape_inference.infer_shapes(onnx.load(m, load_external_data=False), strict_mode=True)
            shaped = os.path.join(tmp, name + ".onnx")
            onnx.save(model, shaped)
            out = os.path.join(a.out, f"onnx-{name}.json")
            r = subprocess.run([a.bin, "import", "onnx", shaped, "-o", out], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{name}: import failed: {r.stderr.strip()}", file=sys.stderr)
                continue
            print(f"{out}: imported", flush=True)


if __name__ == "__main__":
    main()
