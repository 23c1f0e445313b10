// A small TypeScript user of the package, type-checked (not run) by `tsc -p tests/js`: every
// function and result type must be usable as documented, and misuse must not type-check.
import init, {
  validate, plan, simulate, compare, fuse, version,
  type Graph, type Plan, type Simulation, type Comparison, type Summary, type PeakorderError,
  type PlanOptions, type ErrorCode, type Fusion, type FusedGraph, type FuseOptions,
} from 'peakorder';
import * as web from 'peakorder/web';

const graph: Graph = {
  format: 'peakorder/1',
  tensors: [
    { id: 'x', shape: [256, 256], dtype: 'f32' },
    { id: 'y', bytes: 262144, meta: { note: 'anything' } },
    { id: 'yt', alias_of: 'y' },
  ],
  ops: [{ id: 'relu0', kind: 'relu', inputs: ['x'], outputs: ['y'], workspace: 0, fusible: 'nvfuser' }],
  outputs: ['y'],
};

async function main(): Promise<void> {
  await init();
  const s: Summary = validate(graph);
  const n: number = s.ops + s.tensors + s.inputsBytes;
  const inForest: boolean = s.inForest;
  const options: PlanOptions = { method: 'greedy', budgetMs: 50, maxStates: 1000 };
  const p: Plan = plan(graph, options);
  const first: string = p.order[0];
  const peak: number = p.peakBytes;
  const program: number | null = p.programOrderPeakBytes;
  plan(JSON.stringify(graph));
  plan(graph);
  plan(graph, { method: 'auto' });
  // @ts-expect-error: not a method of the core (MethodName lists them all)
  plan(graph, { method: 'fastest' });
  const sim: Simulation = simulate(graph, p);
  const during: Float64Array = sim.during;
  const at: number | null = sim.peakStep;
  simulate(graph, p.order);
  const c: Comparison = compare(graph, { budgetMs: 10 });
  const rows: (number | null)[] = c.methods.map((m) => m.peakBytes);
  const v: string = version();
  const fuseOptions: FuseOptions = { peakLimit: 1 << 20, budgetMs: 100, maxStates: 1000 };
  const f: Fusion = fuse(graph, fuseOptions);
  fuse(JSON.stringify(graph));
  const regions: string[][] = f.regions;
  const kernels: number = f.opsBefore - f.opsAfter + f.peakAfterBytes + f.limitBytes;
  const base: FusedGraph = f.baseline;
  const raised: boolean = base.peakAfterBytes > f.peakBeforeBytes && f.exhaustive;
  console.log(regions, kernels, raised, f.order, f.planner, f.evaluations, web.fuse(graph).baseline.opsAfter);
  try {
    plan(graph, { method: 'exact' });
  } catch (e) {
    const err = e as PeakorderError;
    const code: ErrorCode = err.code;
    const ops: string[] | undefined = err.ops;
    console.log(code, ops, err.op, err.tensor, err.region, err.limitBytes, err.bestBytes);
    const fusionCodes: ErrorCode[] = ['bad_region', 'region_cycle', 'peak_limit'];
    console.log(fusionCodes);
  }
  // The browser build has the same functions plus initSync.
  await web.default({ module_or_path: new URL('https://example.invalid/peakorder_bg.wasm') });
  const wp: web.Plan = web.plan(graph);
  web.initSync({ module: new Uint8Array(8) });
  console.log(n, inForest, first, peak, program, during, at, rows, v, wp);

  // Result fields are camelCase, nested ones too (docs/wasm.md "Names"); the snake_case names
  // of the last release still type-check for one release, as @deprecated aliases of the same type.
  const step: number = sim.steps[0].duringBytes + sim.steps[0].afterBytes + sim.inputsBytes;
  const live: string[] = sim.liveAtPeak;
  const bound: number = p.lowerBoundBytes + c.lowerBoundBytes + c.inputsBytes + s.lowerBoundBytes;
  const boundBy: string = p.lowerBoundBy + c.lowerBoundBy;
  const ms: number = p.elapsedMs + c.methods[0].elapsedMs;
  const oldPeak: number = p.peak_bytes;
  const oldStep: number = sim.steps[0].during_bytes;
  const oldProgram: number | null = s.program_order_peak_bytes;
  const oldFused: number = f.baseline.peak_after_bytes;
  console.log(step, live, bound, boundBy, ms, oldPeak, oldStep, oldProgram, oldFused);
  // @ts-expect-error: a deprecated alias has its field's type
  const wrongOld: string = p.peak_bytes;
  // @ts-expect-error: no such field (camelCase is peakBytes)
  console.log(p.peakbytes, wrongOld);
  // The old option names too (@deprecated, with a console warning at run time).
  plan(graph, { budget_ms: 50, max_states: 1000 });
  // @ts-expect-error: a deprecated option keeps its type
  plan(graph, { budget_ms: 'soon' });

  // @ts-expect-error: a number is not a graph
  plan(42);
  // @ts-expect-error: options are typed
  plan(graph, { budgetMs: 'soon' });
  // @ts-expect-error: compare has no method option
  compare(graph, { method: 'greedy' });
  // @ts-expect-error: orders are op ids
  simulate(graph, [1, 2]);
  // @ts-expect-error: fuse has no method option
  fuse(graph, { method: 'greedy' });
  // @ts-expect-error: peakLimit is a byte count
  fuse(graph, { peakLimit: '1 MiB' });
  // @ts-expect-error: tensors need an id
  validate({ tensors: [{ bytes: 1 }], ops: [] });

  // A memory limit (docs/design.md §3): bytes or text with a unit, and the plan's added fields.
  const costly: Graph = { tensors: [{ id: 'x', bytes: 1 }, { id: 'y', bytes: 1 }], ops: [{ id: 'f', inputs: ['x'], outputs: ['y'], cost: 2.5, recompute: false }] };
  const limited: Plan = plan(costly, { memoryLimitBytes: '64MiB', recomputeMethod: 'evict' });
  plan(costly, { memoryLimitBytes: '64MiB', recomputeMethod: 'repair' });
  plan(costly, { memoryLimitBytes: 1 << 26 });
  const added: number | undefined = limited.addedCost;
  const runs: Record<string, number> | undefined = limited.runs;
  const least: number | undefined = limited.leastLimitBytes;
  const forcedBy: string | null | undefined = limited.leastLimitOp;
  const by: 'order' | 'exact' | 'revolve' | 'evict' | 'repair' | undefined = limited.recomputeMethod;
  const again: Simulation = simulate(costly, ['f', 'f']);
  console.log(added, runs, least, forcedBy, by, again.peakBytes, limited.addedCostLowerBound, limited.memoryLimitBytes);
  try {
    plan(costly, { memoryLimitBytes: 0 });
  } catch (e) {
    const err = e as PeakorderError;
    const codes: ErrorCode[] = ['infeasible', 'bad_limit', 'not_recomputable', 'stale_view'];
    console.log(codes, err.limitBytes, err.leastLimitBytes, err.leastLimitLowerBoundBytes, err.runs, err.value, err.aliasOf);
  }
  // @ts-expect-error: not a recompute method of the core
  plan(costly, { memoryLimitBytes: 1, recomputeMethod: 'checkmate' });
  // @ts-expect-error: a limit is a number or text
  plan(costly, { memoryLimitBytes: true });
  // @ts-expect-error: recompute is a boolean
  validate({ tensors: [], ops: [{ id: 'f', recompute: 'no' }] });
  // @ts-expect-error: cost is a number
  validate({ tensors: [], ops: [{ id: 'f', cost: 'cheap' }] });
}

void main();

// ONNX (issue #31): importOnnx gives a Graph (or its text), reorderOnnx the model's bytes.
import { importOnnx, reorderOnnx, initOnnx, type ImportOnnxOptions, type OnnxErrorCode } from 'peakorder';
async function onnxUser(bytes: Uint8Array): Promise<void> {
  await initOnnx();
  const o: ImportOnnxOptions = { assumeDims: { batch: 8 }, name: 'model.onnx' };
  const g: Graph = importOnnx(bytes, o);
  const text: string = importOnnx(bytes, { format: 'text' });
  const planned: Uint8Array = reorderOnnx(bytes, plan(g));
  const again: Uint8Array = reorderOnnx(planned, g.ops.map((op) => op.id));
  const code: OnnxErrorCode = 'not_topological';
  // @ts-expect-error snake_case is not an option name
  importOnnx(bytes, { assume_dims: { batch: 8 } });
  // @ts-expect-error an order is op ids
  reorderOnnx(bytes, [1, 2]);
  void text; void again; void code;
}
void onnxUser;
