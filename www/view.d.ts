// Types of `peakorder/view` (www/dist/peakorder-view.js): the web view for pages and notebooks.
// See docs/web.md.

/** A peakorder/1 graph (docs/design.md §2) as an object, or its JSON text. */
export type GraphLike = string | Record<string, unknown>;

export interface ViewOptions {
  /** Planning method; default: the strongest the planner offers. */
  method?: string | null;
  /** Time a search may take, in milliseconds (default 1000). */
  budget_ms?: number;
  /** Most search states a search may expand. */
  max_states?: number;
  /** Show the loader (examples, file picker, drag and drop, paste) and the method/budget pickers. */
  controls?: boolean;
  /** Key of a built-in example to start with when no graph is given (e.g. "seed-nvfuser"). */
  example?: string;
  /** Label used in the status line for the first graph. */
  exampleLabel?: string;
  /** Height of the memory chart in CSS pixels (default 280). */
  chartHeight?: number;
  /**
   * Also run memory-aware fusion (the wasm `fuse`, in the worker, under `budget_ms`): its regions
   * are outlined in the DAG and the summary shows kernels before -> after and the fused peak next
   * to the Thunder-style baseline's. Default false; the controls' "Fuse" toggle sets it.
   */
  fuse?: boolean;
  /** Fusion regions to outline in the DAG instead: arrays of op ids. */
  regions?: string[][];
  /**
   * A memory limit: bytes, or text with a unit ("64MiB"). The view then plans the schedule within
   * it that recomputes least (the npm `plan` option, docs/design.md §3), draws the limit as a line
   * in the memory chart, shows it and the added cost in the summary, and marks the steps that run
   * an op again. The controls' "memory limit" box sets it. Default: none.
   */
  memory_limit_bytes?: number | string | null;
  /** How the limit is met: "auto" (default), "exact", "revolve" or "evict". */
  recompute_method?: string | null;
  /**
   * A plan to show instead of planning: the plan object (e.g. `peakorder plan --json`, with or
   * without a memory limit), or an order or schedule of op ids. Its peak is simulated again by
   * the view; its other fields are shown as given.
   */
  plan?: { order: string[]; [key: string]: unknown } | string[] | null;
  /**
   * A static memory layout to draw in the arena panel (offset × step): the `peakorder layout
   * --json` object (docs/layout.md); at least arena_bytes, lower_bound_bytes, optimal, method,
   * align, order, peak_bytes and buffers [{kind, id, offset, bytes, first_step, last_step}].
   */
  arena?: Record<string, unknown>;
}

/** The wasm `fuse()` object (`peakorder fuse --json`, docs/design.md §4), one side of it. */
export interface FusedSide {
  regions: string[][]; ops_before: number; ops_after: number; peak_before_bytes: number;
  peak_after_bytes: number; limit_bytes: number; inputs_bytes: number; within_limit: boolean;
  order: string[];
}

export interface FusionResult extends FusedSide {
  planner: string; exhaustive: boolean; evaluations: number; baseline: FusedSide;
}

/** What the view computed: the plan (docs/design.md §3), both simulations, the indexed graph. */
export interface ViewResult {
  plan: {
    /** Op ids; with a memory limit (or a given schedule) an op may appear more than once. */
    order: string[]; peak_bytes: number; inputs_bytes: number; lower_bound_bytes: number | null;
    optimal: boolean; method: string; program_order_peak_bytes: number | null; elapsed_ms: number;
    /** With a memory limit (docs/design.md §3). */
    memory_limit_bytes?: number; recompute_method?: string; added_cost?: number;
    added_cost_lower_bound?: number; runs?: Record<string, number>; least_limit_bytes?: number;
    least_limit_lower_bound_bytes?: number; least_limit_op?: string | null;
    /** True when the plan was given (`plan` option), not planned by the view. */
    given?: boolean;
  };
  /** Which run of its op each planned step is (1: the first; 2 and up recompute). */
  stepRun: Int32Array;
  /** Each op's first step in the planned order. */
  firstStep: Int32Array;
  program: Simulation | null;
  planned: Simulation;
  /** With `fuse`: the fusion, or null when it was refused (then `fusionError` says why). */
  fusion?: FusionResult | null;
  fusionError?: { message: string; code: string } | null;
  [key: string]: unknown;
}

export interface Simulation {
  peak_bytes: number; inputs_bytes: number; peak_step: number | null; live_at_peak: string[];
  during: Float64Array; after: Float64Array;
}

export interface ViewHandle {
  /** Resolves after the first plan is drawn (null when no graph was given); rejects on a bad graph. */
  ready: Promise<ViewResult | null>;
  /** Plans another graph (or the same with new options) in the same view. */
  update(graph: GraphLike | null, options?: ViewOptions): Promise<ViewResult | null>;
  /** Turns fusion on or off for the graph shown (as the "Fuse" toggle does); resolves when drawn. */
  fuse(on: boolean): Promise<ViewResult | null>;
  /** The latest result. */
  result(): ViewResult | null;
  /** The arena panel, when a layout is shown. */
  arena(): { rectsAt(step: number): unknown[]; select(id: string | null): boolean; selected(): string | null } | null;
  /** The memory timeline of one order ("planned" or "program"), when it is shown. */
  timeline(order?: 'planned' | 'program'): Timeline | null;
  /** The DAG as drawn. */
  dag(): { visible(): { nodes: number; groups: number; clusters: number } } | null;
  /** Selects an op or a tensor by id in every panel (the DAG opens the groups around it); false when there is none. */
  select(kind: 'op' | 'tensor', id: string): boolean;
  /** Removes the view. */
  destroy(): void;
}

/** Mounts the view in `element` and plans `graph` in a Web Worker. */
export function mount(element: HTMLElement, graph: GraphLike | null, options?: ViewOptions): ViewHandle;

/** One band of the memory timeline at a step (pixel positions are the canvas's CSS pixels). */
export interface BandAt {
  kind: 'storage' | 'workspace';
  /** The tensor id (storages) or "workspace of OP". */
  id: string;
  bytes: number;
  /** Bytes stacked below it there. */
  bottom: number;
  /** Which run of its producer made it (2 and up: made again by a recomputation). */
  run: number;
  /** Its rows at the step (y0 top, y1 bottom), the step's middle, and the stretch where it keeps that bottom. */
  y0: number; y1: number; x: number; x0: number; x1: number;
  color: string;
}

export interface Timeline {
  /** The bands live while step `step` runs (-1: at the start), bottom to top, and the merged "other" band's bytes there. */
  bandsAt(step: number): { bands: BandAt[]; other: { count: number; bytes: number } };
  /** The selected band's tensor id, or null. */
  selected(): string | null;
  /** The steps that run an op again (its second or later run). */
  recomputeSteps(): number[];
}

/** The anywidget model surface the view uses. */
export interface WidgetModel {
  get(name: string): any;
  on(event: string, callback: () => void): void;
  off(event: string, callback: () => void): void;
}

/** anywidget entry: traits `graph` (JSON text), optional `method`, `budget_ms`, `controls`, `fuse`,
 * `memory_limit_bytes`. */
export function render(context: { model: WidgetModel; el: HTMLElement }): () => void;

/** Built-in example graphs. */
export const EXAMPLES: { key: string; label: string; graph(): Record<string, unknown> }[];
/** A deterministic random graph of `n` ops. */
export function randomGraph(n: number, seed?: number): Record<string, unknown>;
/** Bytes in binary units, as the CLI prints them ("5.50 MiB"). */
export function formatBytes(bytes: number): string;

declare const widget: { render: typeof render };
export default widget;
