#!/usr/bin/env bash
# Budgets are honoured (issue 10; numbers in docs/limits.md). Needs the release build and the
# wasm package (scripts/test.sh makes both). Three parts:
#  1. in-process: `cargo bench --bench budget`, every method with a 50 ms budget on ~5,000-op
#     graphs (also writes them to target/bench-budget/);
#  2. the CLI: `peakorder plan G --budget-ms 50` as a whole process (exec, read, parse, plan,
#     print), wall time and max RSS from /usr/bin/time; and the npm package in Node;
#  3. the exact search's state-table cap: `--max-memory-mb 16` and `64` on an 800-op graph the
#     search cannot finish, max RSS against a run that expands one state.
# With --check, exits 1 when a run with a 50 ms budget takes over 100 ms or a cap is exceeded.
set -euo pipefail
cd "$(dirname "$0")/.."
check=""
[ "${1:-}" = "--check" ] && check="--check"
target="${CARGO_TARGET_DIR:-$PWD/target}"
dir="$target/bench-budget"
cli="$target/release/peakorder"
fail=0

echo "== in-process (cargo bench --bench budget)"
cargo bench -q -p peakorder --bench budget --profile release -- --out "$dir" $check || fail=1

echo "== CLI: peakorder plan G --method M --budget-ms 50 (whole process, worst of 5)"
echo "| graph | method | worst wall ms | max RSS KiB |"
echo "|---|---|---:|---:|"
for g in "$dir"/*-5k.json; do
  for m in auto exact local; do
    worst=0; rss=0
    for _ in 1 2 3 4 5; do
      read -r wall kib < <(/usr/bin/time -f "%e %M" "$cli" plan "$g" --method "$m" --budget-ms 50 --json 2>&1 >/dev/null | tail -1)
      ms=$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1000 }')
      [ "$ms" -gt "$worst" ] && worst=$ms
      [ "$kib" -gt "$rss" ] && rss=$kib
    done
    echo "| $(basename "$g" .json) | $m | $worst | $rss |"
    # /usr/bin/time reports wall time in 10 ms steps.
    [ "$worst" -gt 100 ] && { echo "  over 100 ms"; fail=1; }
  done
done

echo "== npm package in Node (plan(text, {method, budget_ms: 50}))"
node scripts/bench-budget.mjs "$dir" $check || fail=1

echo "== exact search state-table cap (--max-memory-mb), 800-op graph, no time or state limit"
read -r _ base < <(/usr/bin/time -f "%e %M" "$cli" plan "$dir/cap-800.json" --method exact --max-states 1 --json 2>&1 >/dev/null | tail -1)
echo "| cap MiB | wall s | max RSS KiB | RSS above a 1-state run, KiB |"
echo "|---:|---:|---:|---:|"
for mb in 16 64; do
  read -r wall kib < <(/usr/bin/time -f "%e %M" "$cli" plan "$dir/cap-800.json" --method exact --budget-ms 600000 --max-states 1000000000000 --max-memory-mb "$mb" --json 2>&1 >/dev/null | tail -1)
  above=$((kib - base))
  echo "| $mb | $wall | $kib | $above |"
  [ "$above" -gt $((mb * 1024)) ] && { echo "  cap exceeded"; fail=1; }
done
if [ -n "$check" ] && [ "$fail" -ne 0 ]; then
  exit 1
fi
