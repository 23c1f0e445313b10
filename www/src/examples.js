// Built-in examples: the two seed graphs (shared fixtures in tests/cases/, bundled at build time)
// and generated graphs of any size for trying the page at scale.

import breadth from '../../tests/cases/nvfuser-seed-breadth.json';
import paths from '../../tests/cases/nvfuser-seed-paths.json';
import forkJoin from '../../tests/cases/fork-join.json';
import views from '../../tests/cases/views.json';

/** A deterministic random layered graph of `n` ops (a transformer-ish mix of sizes). */
export function randomGraph(n, seed = 7) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const tensors = [];
  const ops = [];
  const avail = [];
  for (let i = 0; i < 8; i++) {
    tensors.push({ id: `in${i}`, bytes: 1 << (16 + Math.floor(rnd() * 6)) });
    avail.push(`in${i}`);
  }
  for (let v = 0; v < n; v++) {
    const k = 1 + Math.floor(rnd() * 2);
    const inputs = [];
    for (let j = 0; j < k; j++) {
      // Mostly recent tensors (locality), sometimes an old one (a skip connection).
      const back = rnd() < 0.85 ? Math.floor(rnd() * 6) : Math.floor(rnd() * 80);
      inputs.push(avail[Math.max(0, avail.length - 1 - back)]);
    }
    const out = `t${v}`;
    tensors.push({ id: out, bytes: 1 << (14 + Math.floor(rnd() * 8)) });
    ops.push({ id: `op${v}`, kind: ['matmul', 'add', 'relu', 'softmax'][v % 4], inputs, outputs: [out] });
    avail.push(out);
  }
  return { format: 'peakorder/1', tensors, ops, outputs: [`t${n - 1}`] };
}

export const EXAMPLES = [
  { key: 'seed-nvfuser', label: 'Seed: nvFuser order, breadth-first (40 ops)', graph: () => breadth },
  { key: 'seed-thunder', label: 'Seed: Thunder report, path by path (40 ops)', graph: () => paths },
  { key: 'fork-join', label: 'Fork-join (5 ops)', graph: () => forkJoin },
  { key: 'views', label: 'Views sharing storage (small)', graph: () => views },
  { key: 'random-300', label: 'Random graph, 300 ops', graph: () => randomGraph(300) },
  { key: 'random-5000', label: 'Random graph, 5,000 ops', graph: () => randomGraph(5000) },
];
