#!/usr/bin/env bash
# Consumer tests (tests/consumers/): a Vite 8 app installs the packed npm tarball, builds, and in
# headless Chromium imports an ONNX model and plans it (issue #31). `npm install` there fetches
# vite (pinned in tests/consumers/vite/package.json) from the npm registry into a scratch folder;
# the test skips itself without Chromium, the release CLI or the onnx wheel in .venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
node --test tests/consumers/
