#!/usr/bin/env bash
# Browser tests (tests/browser/): the page, the embedded view and a report opened from disk, in
# Debian's Chromium driven by playwright-core. Screenshots go to target/browser-screenshots/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p target/browser-screenshots
node --test --test-concurrency=1 tests/browser/
