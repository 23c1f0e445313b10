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
  /** How the limit is met: "auto" (default), "exact", "revolve", "evict" or "repair". */
  recompute_method?: string | null;
  /**
   * A plan to show instead of planning: the plan object (the npm `plan()`'s, camelCase, or
   * `peakorder plan --json`'s, snake_case; with or without a memory limit), or an order or
   * schedule of op ids. Its peak is simulated again by the view; its other fields are shown as
   * given.
   */
  plan?: { order: string[]; [key: string]: unknown } | string[] | null;
  /**
   * A static memory layout to draw in the arena panel (offset × step): the npm `layout()` object
   * or the `peakorder layout --json` one (docs/layout.md; the CLI's snake_case names are read as
   * the npm API's camelCase ones); at least arenaBytes, lowerBoundBytes, optimal, method, align,
   * order, peakBytes and buffers [{kind, id, offset, bytes, firstStep, lastStep}].
   */
  arena?: Record<string, unknown>;
}

/** The npm `fuse()` object (`peakorder fuse --json` in camelCase, docs/design.md §4), one side
 * of it. The snake_case names of the last release read the same values for one release, with a
 * console warning (docs/wasm.md "Names"). */
export interface FusedSide {
  regions: string[][]; opsBefore: number; opsAfter: number; peakBeforeBytes: number;
  peakAfterBytes: number; limitBytes: number; inputsBytes: number; withinLimit: boolean;
  order: string[];
  /** @deprecated since issue #31: use `opsBefore`. */ ops_before: number;
  /** @deprecated since issue #31: use `opsAfter`. */ ops_after: number;
  /** @deprecated since issue #31: use `peakBeforeBytes`. */ peak_before_bytes: number;
  /** @deprecated since issue #31: use `peakAfterBytes`. */ peak_after_bytes: number;
  /** @deprecated since issue #31: use `limitBytes`. */ limit_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes`. */ inputs_bytes: number;
  /** @deprecated since issue #31: use `withinLimit`. */ within_limit: boolean;
}

export interface FusionResult extends FusedSide {
  planner: string; exhaustive: boolean; evaluations: number; baseline: FusedSide;
}

/** What the view computed: the plan (docs/design.md §3), both simulations, the indexed graph.
 * The plan, simulations, arena and fusion have the npm API's camelCase fields; their snake_case
 * names read the same values for one release, with a console warning (docs/wasm.md "Names"). */
export interface ViewResult {
  plan: {
    /** Op ids; with a memory limit (or a given schedule) an op may appear more than once. */
    order: string[]; peakBytes: number; inputsBytes: number; lowerBoundBytes: number | null;
    optimal: boolean; method: string; programOrderPeakBytes: number | null; elapsedMs: number;
    /** With a memory limit (docs/design.md §3). */
    memoryLimitBytes?: number; recomputeMethod?: string; addedCost?: number;
    addedCostLowerBound?: number; runs?: Record<string, number>; leastLimitBytes?: number;
    leastLimitLowerBoundBytes?: number; leastLimitOp?: string | null;
    /** True when the plan was given (`plan` option), not planned by the view. */
    given?: boolean;
    /** @deprecated since issue #31: use `peakBytes`. */ peak_bytes: number;
    /** @deprecated since issue #31: use `inputsBytes`. */ inputs_bytes: number;
    /** @deprecated since issue #31: use `lowerBoundBytes`. */ lower_bound_bytes: number | null;
    /** @deprecated since issue #31: use `programOrderPeakBytes`. */ program_order_peak_bytes: number | null;
    /** @deprecated since issue #31: use `elapsedMs`. */ elapsed_ms: number;
    /** @deprecated since issue #31: use `memoryLimitBytes`. */ memory_limit_bytes?: number;
    /** @deprecated since issue #31: use `recomputeMethod`. */ recompute_method?: string;
    /** @deprecated since issue #31: use `addedCost`. */ added_cost?: number;
    /** @deprecated since issue #31: use `addedCostLowerBound`. */ added_cost_lower_bound?: number;
    /** @deprecated since issue #31: use `leastLimitBytes`. */ least_limit_bytes?: number;
    /** @deprecated since issue #31: use `leastLimitLowerBoundBytes`. */ least_limit_lower_bound_bytes?: number;
    /** @deprecated since issue #31: use `leastLimitOp`. */ least_limit_op?: string | null;
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
  peakBytes: number; inputsBytes: number; peakStep: number | null; liveAtPeak: string[];
  during: Float64Array; after: Float64Array;
  /** @deprecated since issue #31: use `peakBytes`. */ peak_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes`. */ inputs_bytes: number;
  /** @deprecated since issue #31: use `peakStep`. */ peak_step: number | null;
  /** @deprecated since issue #31: use `liveAtPeak`. */ live_at_peak: string[];
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
