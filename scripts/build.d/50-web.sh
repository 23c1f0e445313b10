#!/usr/bin/env bash
# The web bundle (docs/web.md): www/dist/ (the static page, the self-contained view module for
# notebooks, and the report template that `peakorder report` embeds at its build). Runs after
# the wasm build (scripts/build.d/2x-*) and before the native build, which embeds the template.
set -euo pipefail
cd "$(dirname "$0")/../.."
node www/build.mjs
