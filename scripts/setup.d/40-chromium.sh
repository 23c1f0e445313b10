#!/usr/bin/env bash
# What the browser tests (tests/browser/, docs/web.md) need: Debian's Chromium, and the npm dev
# dependencies (playwright-core drives that Chromium and downloads no browser; esbuild and dagre
# build the web bundle). Idempotent and fast when everything is there.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "40-chromium: installing Debian's chromium (once)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "40-chromium: /usr/bin/chromium is missing; install Debian's chromium package (as root: apt-get install chromium)" >&2
    exit 1
  fi
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "40-chromium: npm not found; install Node.js 20 or newer" >&2
  exit 1
fi
if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/esbuild ] || [ ! -d node_modules/@dagrejs/dagre ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
