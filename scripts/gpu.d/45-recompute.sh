#!/usr/bin/env bash
# GPU check for `peakorder run --memory-limit` (issue #29, docs/recompute.md): every fixture in
# tests/cases at its least limit and half way from there to its order's peak, on CUDA, the
# schedule with its recomputations beside the program order. For each run: measured = planned
# to the byte, and the outputs identical to the program order's (the CPU test of the same,
# native-gpu/tests/cli_recompute.rs::run_with_a_memory_limit_on_every_fixture, is the reference).
#
# Expected: "ok" on every line. Exits 1 on any mismatch.
#
# Uses PEAKORDER_BIN or target/release/peakorder (gpu-check.sh builds it); gpu-check.sh gives
# each step 180 s.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin="${PEAKORDER_BIN:-target/release/peakorder}"
if [ ! -x "$bin" ]; then
  echo "recompute check: no peakorder binary ($bin)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
echo "== peakorder run --device cuda --memory-limit --compare (tests/cases, least limit and half way)"
for g in tests/cases/*.json; do
  name=$(basename "$g")
  # The least limit along run's own order (greedy), as the CPU test asks it.
  if ! "$bin" plan "$g" --method greedy --memory-limit 18446744073709551615 --json > "$tmp/p.json" 2> "$tmp/err"; then
    echo "$name: plan failed: $(head -c 300 "$tmp/err")"
    status=1
    continue
  fi
  read -r top least < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["peak_bytes"], p["least_limit_bytes"])' "$tmp/p.json")
  for limit in "$least" $(( least + (top - least) / 2 )); do
    if ! timeout 60 "$bin" run "$g" --device cuda --memory-limit "$limit" --compare --json > "$tmp/r.json" 2> "$tmp/err"; then
      echo "$name at $limit: run failed: $(head -c 300 "$tmp/err")"
      status=1
      continue
    fi
    timeout 60 "$bin" run "$g" --device cuda --memory-limit "$limit" --compare > "$tmp/r.txt" 2>&1
    python3 - "$name" "$limit" "$tmp/r.json" "$tmp/r.txt" <<'PY' || status=1
import json, sys
name, limit, path, text = sys.argv[1], int(sys.argv[2]), sys.argv[3], open(sys.argv[4]).read()
runs = json.load(open(path))["runs"]
bad = [f"{r['order']}: measured {r['measured_peak_bytes']} planned {r['planned_peak_bytes']}"
       for r in runs if r["measured_peak_bytes"] != r["planned_peak_bytes"]]
if runs[-1]["planned_peak_bytes"] > limit:
    bad.append(f"schedule planned {runs[-1]['planned_peak_bytes']} over the limit")
if "outputs identical in every order: yes" not in text:
    bad.append("outputs differ from the program order's")
print(f"{name} at {limit}: " + ("ok" if not bad else "MISMATCH " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
  done
done
exit $status
