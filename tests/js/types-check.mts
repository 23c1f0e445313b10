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
  const n: number = s.ops + s.tensors + s.inputs_bytes;
  const inForest: boolean = s.in_forest;
  const options: PlanOptions = { method: 'greedy', budget_ms: 50, max_states: 1000 };
  const p: Plan = plan(graph, options);
  const first: string = p.order[0];
  const peak: number = p.peak_bytes;
  const program: number | null = p.program_order_peak_bytes;
  plan(JSON.stringify(graph));
  plan(graph);
  plan(graph, { method: 'auto' });
  // @ts-expect-error: not a method of the core (MethodName lists them all)
  plan(graph, { method: 'fastest' });
  const sim: Simulation = simulate(graph, p);
  const during: Float64Array = sim.during;
  const at: number | null = sim.peak_step;
  simulate(graph, p.order);
  const c: Comparison = compare(graph, { budget_ms: 10 });
  const rows: (number | null)[] = c.methods.map((m) => m.peak_bytes);
  const v: string = version();
  const fuseOptions: FuseOptions = { peak_limit: 1 << 20, budget_ms: 100, max_states: 1000 };
  const f: Fusion = fuse(graph, fuseOptions);
  fuse(JSON.stringify(graph));
  const regions: string[][] = f.regions;
  const kernels: number = f.ops_before - f.ops_after + f.peak_after_bytes + f.limit_bytes;
  const base: FusedGraph = f.baseline;
  const raised: boolean = base.peak_after_bytes > f.peak_before_bytes && f.exhaustive;
  console.log(regions, kernels, raised, f.order, f.planner, f.evaluations, web.fuse(graph).baseline.ops_after);
  try {
    plan(graph, { method: 'exact' });
  } catch (e) {
    const err = e as PeakorderError;
    const code: ErrorCode = err.code;
    const ops: string[] | undefined = err.ops;
    console.log(code, ops, err.op, err.tensor, err.region, err.limit_bytes, err.best_bytes);
    const fusionCodes: ErrorCode[] = ['bad_region', 'region_cycle', 'peak_limit'];
    console.log(fusionCodes);
  }
  // The browser build has the same functions plus initSync.
  await web.default({ module_or_path: new URL('https://example.invalid/peakorder_bg.wasm') });
  const wp: web.Plan = web.plan(graph);
  web.initSync({ module: new Uint8Array(8) });
  console.log(n, inForest, first, peak, program, during, at, rows, v, wp);

  // @ts-expect-error: a number is not a graph
  plan(42);
  // @ts-expect-error: options are typed
  plan(graph, { budget_ms: 'soon' });
  // @ts-expect-error: compare has no method option
  compare(graph, { method: 'greedy' });
  // @ts-expect-error: orders are op ids
  simulate(graph, [1, 2]);
  // @ts-expect-error: fuse has no method option
  fuse(graph, { method: 'greedy' });
  // @ts-expect-error: peak_limit is a byte count
  fuse(graph, { peak_limit: '1 MiB' });
  // @ts-expect-error: tensors need an id
  validate({ tensors: [{ bytes: 1 }], ops: [] });

  // A memory limit (docs/design.md §3): bytes or text with a unit, and the plan's added fields.
  const costly: Graph = { tensors: [{ id: 'x', bytes: 1 }, { id: 'y', bytes: 1 }], ops: [{ id: 'f', inputs: ['x'], outputs: ['y'], cost: 2.5, recompute: false }] };
  const limited: Plan = plan(costly, { memory_limit_bytes: '64MiB', recompute_method: 'evict' });
  plan(costly, { memory_limit_bytes: 1 << 26 });
  const added: number | undefined = limited.added_cost;
  const runs: Record<string, number> | undefined = limited.runs;
  const least: number | undefined = limited.least_limit_bytes;
  const forcedBy: string | null | undefined = limited.least_limit_op;
  const by: 'order' | 'exact' | 'revolve' | 'evict' | undefined = limited.recompute_method;
  const again: Simulation = simulate(costly, ['f', 'f']);
  console.log(added, runs, least, forcedBy, by, again.peak_bytes, limited.added_cost_lower_bound, limited.memory_limit_bytes);
  try {
    plan(costly, { memory_limit_bytes: 0 });
  } catch (e) {
    const err = e as PeakorderError;
    const codes: ErrorCode[] = ['infeasible', 'bad_limit', 'not_recomputable', 'stale_view'];
    console.log(codes, err.limit_bytes, err.least_limit_bytes, err.least_limit_lower_bound_bytes, err.runs, err.value, err.alias_of);
  }
  // @ts-expect-error: not a recompute method of the core
  plan(costly, { memory_limit_bytes: 1, recompute_method: 'checkmate' });
  // @ts-expect-error: a limit is a number or text
  plan(costly, { memory_limit_bytes: true });
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
