// Number formatting shared by the view; matches the CLI (core/src/units.rs) so the page and
// `peakorder plan` print the same figures.

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** Bytes in binary units with two decimals: "5.50 MiB"; a unit is used from half of it up. */
export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined || Number.isNaN(bytes)) return '–';
  if (bytes < 512) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 512 && unit + 1 < UNITS.length) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(2)} ${UNITS[unit]}`;
}

/** A signed difference: "+0.75 MiB", "-2.00 MiB". */
export function formatDelta(delta) {
  return `${delta < 0 ? '-' : '+'}${formatBytes(Math.abs(delta))}`;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '–';
  // Browsers coarsen performance.now() (to 0.1 ms or more), so tiny times read as 0.
  if (ms < 0.1) return '< 0.1 ms';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** An added cost (the sum of `cost` over repeated runs: FLOPs, time, anything additive): whole
 * numbers as "1,234", others to 4 significant digits ("1.5e+9" where large). */
export function formatCost(c) {
  if (c === null || c === undefined || Number.isNaN(c)) return '–';
  if (Number.isInteger(c) && Math.abs(c) < 1e15) return count(c);
  return Math.abs(c) >= 1e6 ? c.toExponential(3).replace(/\.?0+e/, 'e') : String(Number(c.toPrecision(4)));
}

// One formatter (toLocaleString builds one per call).
const NUMBER = new Intl.NumberFormat('en-US');

/** "7,502". */
export function count(n) {
  return NUMBER.format(n);
}

export function plural(n, word) {
  return `${NUMBER.format(n)} ${word}${n === 1 ? '' : 's'}`;
}

// Viridis, sampled at 9 stops: a perceptually even scale that stays readable for colour-blind
// readers and in greyscale (the DAG colours ops by their position in the planned order).
const VIRIDIS = [
  [68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37],
];

/** Colour for t in [0, 1]. */
export function viridis(t) {
  const x = Math.min(1, Math.max(0, t)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const c = VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

/** Black or white text, whichever reads better on viridis(t). */
export function textOn(t) {
  return t > 0.55 ? '#111' : '#fff';
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}
