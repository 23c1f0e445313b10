//! TypeScript declarations of the JS API's objects, emitted by wasm-bindgen into the generated
//! `.d.ts` (the functions in lib.rs name these types through `typescript_type`). They mirror the
//! serde shapes of the core (docs/design.md §2, §3, §4, §5) with the result fields camelCase:
//! the package's entry points (js/node.cjs, js/web.mjs) rename what these functions return
//! (js/names.cjs; docs/wasm.md "Names"), and the snake_case names, still readable for one release,
//! are declared `@deprecated`. Graphs (inputs) keep the format's names (`alias_of`).
//! tests/js/types-check.mts checks them with `tsc --noEmit` and tests/js/*.test.mjs check the
//! values against them at run time.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_SECTION: &'static str = TS_TYPES;

/// The declarations (a const of their own so that the tests below can read them). wasm-bindgen
/// copies the text into the section at compile time, a use rustc does not see.
#[allow(dead_code)]
const TS_TYPES: &str = r#"
/** Element types of docs/design.md §2. */
export type Dtype =
  | "f64" | "f32" | "f16" | "bf16" | "f8e4m3" | "f8e5m2"
  | "i64" | "i32" | "i16" | "i8" | "u8" | "bool";

/** A tensor (docs/design.md §2): give `bytes`, or `shape` + `dtype`, or `alias_of`. */
export interface TensorSpec {
  id: string;
  bytes?: number;
  shape?: number[];
  dtype?: Dtype;
  alias_of?: string;
  /** A graph input the caller hands over: freed after its last use. */
  donated?: boolean;
  meta?: Record<string, unknown>;
}

/** An op (docs/design.md §2). */
export interface OpSpec {
  id: string;
  kind?: string;
  inputs?: string[];
  outputs?: string[];
  workspace?: number;
  fusible?: string;
  /** What one run costs (FLOPs, time, anything additive; a finite number >= 0; default 1): a plan
   * with a memory limit recomputes so that the sum over repeated runs is least. */
  cost?: number;
  /** false: the op must run exactly once (random numbers, in-place writes, side effects); a
   * schedule that runs it again throws "not_recomputable". Default true. */
  recompute?: boolean;
  attrs?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** A graph (docs/design.md §2). Unknown keys are errors, except inside `meta` and `attrs`. */
export interface Graph {
  format?: "peakorder/1";
  tensors: TensorSpec[];
  ops: OpSpec[];
  outputs?: string[];
  meta?: Record<string, unknown>;
}

/** A graph as an object or as its JSON text (both go through the same parser). */
export type GraphInput = Graph | string;

/** Planning methods, every name the core accepts (docs/design.md §3, `peakorder plan --method`). */
export type MethodName =
  | "program" | "greedy" | "sp" | "spize" | "local" | "inductor" | "xla" | "liu" | "exact"
  | "auto";

/** How a memory limit is met (docs/design.md §3, `peakorder plan --recompute-method`). */
export type RecomputeMethodName = "auto" | "exact" | "revolve" | "evict" | "repair";

/** A byte count: a whole number of bytes, or text with a unit ("64MiB", "8GiB", "1.5GB"). */
export type ByteCount = number | string;

export interface PlanOptions {
  /** Default "auto". An unknown name throws with code "unknown_method". */
  method?: MethodName;
  /**
   * A bound on the plan's peak, inputs included, as the simulator counts (docs/design.md §3): the
   * plan is then the schedule within it with the least added cost (an op may run more than once).
   * A malformed value throws "bad_limit"; one below the least limit any schedule reaches throws
   * "infeasible" (with `limitBytes`, `leastLimitBytes`, `leastLimitLowerBoundBytes` and,
   * when one forces it, `op`). Without it nothing changes.
   */
  memoryLimitBytes?: ByteCount;
  /** How the limit is met. Default "auto". Only with `memoryLimitBytes` (else "invalid_argument"). */
  recomputeMethod?: RecomputeMethodName;
  /** Time a search may take, in ms, measured with performance.now(). Default 100. */
  budgetMs?: number;
  /** Most search states a search may expand. Default 2,000,000. */
  maxStates?: number;
  /** Most memory the exact search's state table may hold, in MiB. Default 1024. */
  maxMemoryMb?: number;
  /** @deprecated since issue #31: use `memoryLimitBytes` (accepted, with a console warning, for one release). */
  memory_limit_bytes?: ByteCount;
  /** @deprecated since issue #31: use `recomputeMethod` (accepted, with a console warning, for one release). */
  recompute_method?: RecomputeMethodName;
  /** @deprecated since issue #31: use `budgetMs` (accepted, with a console warning, for one release). */
  budget_ms?: number;
  /** @deprecated since issue #31: use `maxStates` (accepted, with a console warning, for one release). */
  max_states?: number;
  /** @deprecated since issue #31: use `maxMemoryMb` (accepted, with a console warning, for one release). */
  max_memory_mb?: number;
}

/** Options of `compare` (it runs every method, so there is no `method`). */
export interface CompareOptions {
  budgetMs?: number;
  maxStates?: number;
  maxMemoryMb?: number;
  /** @deprecated since issue #31: use `budgetMs` (accepted, with a console warning, for one release). */
  budget_ms?: number;
  /** @deprecated since issue #31: use `maxStates` (accepted, with a console warning, for one release). */
  max_states?: number;
  /** @deprecated since issue #31: use `maxMemoryMb` (accepted, with a console warning, for one release). */
  max_memory_mb?: number;
}

/** What `validate` reports. Byte counts are exact integers (below 2^53). */
export interface Summary {
  format: "peakorder/1";
  ops: number;
  tensors: number;
  /** Graph inputs: tensors no op produces (views included). */
  inputs: number;
  outputs: number;
  inputsBytes: number;
  lowerBoundBytes: number;
  /** Peak of the file's order; null when the file's order is not a valid order. */
  programOrderPeakBytes: number | null;
  /** Every op's outputs feed at most one other op. */
  inForest: boolean;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBytes` (read with a console warning, for one release). */
  lower_bound_bytes: number;
  /** @deprecated since issue #31: use `programOrderPeakBytes` (read with a console warning, for one release). */
  program_order_peak_bytes: number | null;
  /** @deprecated since issue #31: use `inForest` (read with a console warning, for one release). */
  in_forest: boolean;
}

/** A plan (docs/design.md §3). The fields from `memoryLimitBytes` on are there only when the
 * plan was asked for with a memory limit. */
export interface Plan {
  /** Op ids in the order to run them. With a memory limit, a schedule: an op may appear more than
   * once (its later runs compute its outputs again). */
  order: string[];
  peakBytes: number;
  inputsBytes: number;
  /** A true lower bound on every order's peak. */
  lowerBoundBytes: number;
  /** True only when proven (with a memory limit: the added cost is proven least). */
  optimal: boolean;
  /** What proved it optimal: "liu", "search", "cut", "last-of-set", "first-of-set", "first-free", "either-side", "nested-set",
   * "join-free", "rewrite-set", "branching", "part" or
   * "simple"; with a memory limit "order" (an order fits), "exact", "revolve", "evict" or
   * "repair"; null
   * unless `optimal`. */
  proof: string | null;
  /** What gave `lowerBoundBytes` (the same names; "recompute" with a memory limit). */
  lowerBoundBy: string;
  method: string;
  /** Peak of the file's order; null when the file's order is not a valid order. */
  programOrderPeakBytes: number | null;
  elapsedMs: number;
  /** The limit asked for. */
  memoryLimitBytes?: number;
  /** What found the schedule: "order" (an order fits: nothing recomputed), "exact", "revolve",
   * "evict" or "repair". */
  recomputeMethod?: "order" | "exact" | "revolve" | "evict" | "repair";
  /** The cost of the repeated runs: the sum of their ops' `cost`. */
  addedCost?: number;
  /** A proven lower bound on the added cost of every schedule within the limit. */
  addedCostLowerBound?: number;
  /** How often each op that runs more than once runs, by op id. */
  runs?: Record<string, number>;
  /** The least peak the planner found any schedule to reach (unlimited recomputation). */
  leastLimitBytes?: number;
  /** A proven lower bound on every schedule's peak. */
  leastLimitLowerBoundBytes?: number;
  /** The op whose run forces `leastLimitLowerBoundBytes`; null: the start or the end. */
  leastLimitOp?: string | null;
  /** @deprecated since issue #31: use `peakBytes` (read with a console warning, for one release). */
  peak_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBytes` (read with a console warning, for one release). */
  lower_bound_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBy` (read with a console warning, for one release). */
  lower_bound_by: string;
  /** @deprecated since issue #31: use `programOrderPeakBytes` (read with a console warning, for one release). */
  program_order_peak_bytes: number | null;
  /** @deprecated since issue #31: use `elapsedMs` (read with a console warning, for one release). */
  elapsed_ms: number;
  /** @deprecated since issue #31: use `memoryLimitBytes` (read with a console warning, for one release). */
  memory_limit_bytes?: number;
  /** @deprecated since issue #31: use `recomputeMethod` (read with a console warning, for one release). */
  recompute_method?: "order" | "exact" | "revolve" | "evict" | "repair";
  /** @deprecated since issue #31: use `addedCost` (read with a console warning, for one release). */
  added_cost?: number;
  /** @deprecated since issue #31: use `addedCostLowerBound` (read with a console warning, for one release). */
  added_cost_lower_bound?: number;
  /** @deprecated since issue #31: use `leastLimitBytes` (read with a console warning, for one release). */
  least_limit_bytes?: number;
  /** @deprecated since issue #31: use `leastLimitLowerBoundBytes` (read with a console warning, for one release). */
  least_limit_lower_bound_bytes?: number;
  /** @deprecated since issue #31: use `leastLimitOp` (read with a console warning, for one release). */
  least_limit_op?: string | null;
}

/** Memory around one op of an order. */
export interface Step {
  op: string;
  /** While the op runs: live + its outputs + its workspace. */
  duringBytes: number;
  /** After it ran and freed what it could. */
  afterBytes: number;
  /** @deprecated since issue #31: use `duringBytes` (read with a console warning, for one release). */
  during_bytes: number;
  /** @deprecated since issue #31: use `afterBytes` (read with a console warning, for one release). */
  after_bytes: number;
}

/** A simulated order or schedule (docs/design.md §5), plus typed arrays for charts. */
export interface Simulation {
  peakBytes: number;
  inputsBytes: number;
  /** Index in `steps` of the first step at the peak; null when the peak is the start. */
  peakStep: number | null;
  /** Tensors live at the peak, the running op's outputs included. */
  liveAtPeak: string[];
  steps: Step[];
  /** `steps[i].duringBytes` for every step. */
  during: Float64Array;
  /** `steps[i].afterBytes` for every step. */
  after: Float64Array;
  /** @deprecated since issue #31: use `peakBytes` (read with a console warning, for one release). */
  peak_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
  /** @deprecated since issue #31: use `peakStep` (read with a console warning, for one release). */
  peak_step: number | null;
  /** @deprecated since issue #31: use `liveAtPeak` (read with a console warning, for one release). */
  live_at_peak: string[];
}

/** The memory model's tables (`storages()`), per tensor in file order. */
export interface Storages {
  /** Bytes of the tensor's own storage; 0 for a view. */
  bytes: Float64Array;
  /** Index of the tensor whose storage it lives in (itself unless a view). */
  root: Uint32Array;
  /** 1 when the storage is never freed (a graph output, or an input that is not donated). */
  pinned: Uint8Array;
  /** `users[usersStart[t] .. usersStart[t + 1]]`: the ops (file-order indices) that keep storage t alive. */
  usersStart: Uint32Array;
  users: Uint32Array;
  /** @deprecated since issue #31: use `usersStart` (read with a console warning, for one release). */
  users_start: Uint32Array;
}

/** An order: op ids, a plan (anything with an `order` array), or JSON text of either. `simulate`
 * also takes a schedule, in which an op may appear more than once (docs/design.md §1). */
export type OrderInput = string[] | { order: string[] } | string;

/** One method's row of `compare`. */
export interface MethodRow {
  method: string;
  /** null when the method does not apply to this graph (then `error` says why). */
  peakBytes: number | null;
  optimal: boolean;
  /** What proved this row optimal (as `Plan.proof`); null unless `optimal`. */
  proof: string | null;
  elapsedMs: number;
  error?: string;
  /** @deprecated since issue #31: use `peakBytes` (read with a console warning, for one release). */
  peak_bytes: number | null;
  /** @deprecated since issue #31: use `elapsedMs` (read with a console warning, for one release). */
  elapsed_ms: number;
}

/** Every method side by side (`compare --json`). */
export interface Comparison {
  lowerBoundBytes: number;
  /** What gave `lowerBoundBytes` (as `Plan.lowerBoundBy`). */
  lowerBoundBy: string;
  inputsBytes: number;
  methods: MethodRow[];
  /** @deprecated since issue #31: use `lowerBoundBytes` (read with a console warning, for one release). */
  lower_bound_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBy` (read with a console warning, for one release). */
  lower_bound_by: string;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
}

/** Options of `fuse`. */
export interface FuseOptions {
  /**
   * Highest planned peak allowed for the fused graph, in bytes. Default: the best peak found for
   * the unfused graph (fusion never makes memory worse). A limit no fusion meets throws with
   * code "peak_limit".
   */
  peakLimit?: number;
  /** Time the whole search may take, in ms (performance.now()). Default 2000. */
  budgetMs?: number;
  /** Most search states the whole search may expand. Default 100,000,000. */
  maxStates?: number;
  /** @deprecated since issue #31: use `peakLimit` (accepted, with a console warning, for one release). */
  peak_limit?: number;
  /** @deprecated since issue #31: use `budgetMs` (accepted, with a console warning, for one release). */
  budget_ms?: number;
  /** @deprecated since issue #31: use `maxStates` (accepted, with a console warning, for one release). */
  max_states?: number;
}

/** One side of a fusion (docs/design.md §4). Byte counts are exact integers (below 2^53). */
export interface FusedGraph {
  /** Op ids of each region of two or more ops, regions in the order they run. */
  regions: string[][];
  /** Ops (kernels) of the unfused graph. */
  opsBefore: number;
  /** Ops (kernels) of the fused graph. */
  opsAfter: number;
  /** Best peak found for the unfused graph. */
  peakBeforeBytes: number;
  /** Planned peak of the fused graph. */
  peakAfterBytes: number;
  limitBytes: number;
  inputsBytes: number;
  /** `peakAfterBytes <= limitBytes`. */
  withinLimit: boolean;
  /** The fused graph's planned order; a region is named by its member ids joined with "+". */
  order: string[];
  /** @deprecated since issue #31: use `opsBefore` (read with a console warning, for one release). */
  ops_before: number;
  /** @deprecated since issue #31: use `opsAfter` (read with a console warning, for one release). */
  ops_after: number;
  /** @deprecated since issue #31: use `peakBeforeBytes` (read with a console warning, for one release). */
  peak_before_bytes: number;
  /** @deprecated since issue #31: use `peakAfterBytes` (read with a console warning, for one release). */
  peak_after_bytes: number;
  /** @deprecated since issue #31: use `limitBytes` (read with a console warning, for one release). */
  limit_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
  /** @deprecated since issue #31: use `withinLimit` (read with a console warning, for one release). */
  within_limit: boolean;
}

/** What `fuse` returns: the `peakorder fuse --json` object. */
export interface Fusion extends FusedGraph {
  /** The planning method behind every peak. */
  planner: string;
  /** Every region choice was tried (kernel count minimal for this planner). */
  exhaustive: boolean;
  /** Fused graphs planned during the search. */
  evaluations: number;
  /** The Thunder-style pass, which merges without regard to memory. */
  baseline: FusedGraph;
}

/** A graph (object or JSON text), or MiniMalloc CSV text: a header `id,lower,upper,size`, then
 * one buffer per line, live over `[lower, upper)`. */
export type LayoutInput = GraphInput;

/** Layout method names (docs/layout.md). */
export type LayoutMethodName =
  | "auto" | "exact" | "size" | "duration" | "conflicts" | "area" | "online" | "local"
  | (string & {});

/** Options of `layout`. */
export interface LayoutOptions {
  /** Lay out this order (op ids, or a plan) instead of planning one (graphs only). */
  order?: string[] | { order: string[] };
  /** Default "auto". */
  method?: LayoutMethodName;
  /** The planning method when `order` is not given. Default "auto". */
  planMethod?: MethodName;
  /** Every size and offset is rounded up to a multiple of this. Default 1. */
  align?: number;
  /** Time the whole call may take, in ms (planning takes a tenth of it). Default 1000. */
  budgetMs?: number;
  /** Most exact-search nodes. */
  maxStates?: number;
  /** Stop at the first layout whose arena fits this many bytes. */
  capacity?: number;
  /** When the planned order's arena is above its peak, other orders may have a peak up to this
   * fraction above it. Default 0. With `order` or a CSV, `slack` and `planMethod` are refused
   * (`invalid_argument`), not ignored. */
  slack?: number;
  /** @deprecated since issue #31: use `planMethod` (accepted, with a console warning, for one release). */
  plan_method?: MethodName;
  /** @deprecated since issue #31: use `budgetMs` (accepted, with a console warning, for one release). */
  budget_ms?: number;
  /** @deprecated since issue #31: use `maxStates` (accepted, with a console warning, for one release). */
  max_states?: number;
}

/** One buffer of a graph's layout: a rectangle of the arena (offset × step). */
export interface LayoutBuffer {
  /** "tensor" (a storage; `id` is its root tensor's) or "workspace" (`id` is the op's). */
  kind: "tensor" | "workspace";
  id: string;
  offset: number;
  /** Bytes reserved: the size rounded up to the alignment. */
  bytes: number;
  /** First and last step it is live, inclusive: 0 is the start, k while the k-th op runs. */
  firstStep: number;
  lastStep: number;
  /** For a schedule: which run of the storage's producer made this buffer (2 and up; absent
   * for the first run and for orders). */
  run?: number;
  /** @deprecated since issue #31: use `firstStep` (read with a console warning, for one release). */
  first_step: number;
  /** @deprecated since issue #31: use `lastStep` (read with a console warning, for one release). */
  last_step: number;
}

/** What the order search did, when the order was planned. */
export interface OrderSearch {
  plannedMethod: string;
  plannedPeakBytes: number;
  plannedArenaBytes: number;
  peakLimitBytes: number;
  slack: number;
  ordersTried: number;
  /** The order laid out is not the planned one. */
  changed: boolean;
  /** @deprecated since issue #31: use `plannedMethod` (read with a console warning, for one release). */
  planned_method: string;
  /** @deprecated since issue #31: use `plannedPeakBytes` (read with a console warning, for one release). */
  planned_peak_bytes: number;
  /** @deprecated since issue #31: use `plannedArenaBytes` (read with a console warning, for one release). */
  planned_arena_bytes: number;
  /** @deprecated since issue #31: use `peakLimitBytes` (read with a console warning, for one release). */
  peak_limit_bytes: number;
  /** @deprecated since issue #31: use `ordersTried` (read with a console warning, for one release). */
  orders_tried: number;
}

/** A graph's layout (`peakorder layout --json`). Byte counts are exact integers (below 2^53). */
export interface Layout {
  arenaBytes: number;
  /** A proven lower bound on this order's arena: its peak after alignment, or more. */
  lowerBoundBytes: number;
  /** True only when proven: the arena meets the bound. */
  optimal: boolean;
  method: string;
  align: number;
  /** The order laid out. */
  order: string[];
  /** The order's peak (the simulator's, unaligned). */
  peakBytes: number;
  inputsBytes: number;
  /** Every tensor's offset, views included (a view's is its storage's). */
  offsets: Record<string, number>;
  /** Each op's workspace offset (ops with workspace only). */
  workspaceOffsets: Record<string, number>;
  /** Every buffer of positive size: storages in tensor order, then workspaces. */
  buffers: LayoutBuffer[];
  searchNodes: number;
  elapsedMs: number;
  orderSearch?: OrderSearch;
  /** @deprecated since issue #31: use `arenaBytes` (read with a console warning, for one release). */
  arena_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBytes` (read with a console warning, for one release). */
  lower_bound_bytes: number;
  /** @deprecated since issue #31: use `peakBytes` (read with a console warning, for one release). */
  peak_bytes: number;
  /** @deprecated since issue #31: use `inputsBytes` (read with a console warning, for one release). */
  inputs_bytes: number;
  /** @deprecated since issue #31: use `workspaceOffsets` (read with a console warning, for one release). */
  workspace_offsets: Record<string, number>;
  /** @deprecated since issue #31: use `searchNodes` (read with a console warning, for one release). */
  search_nodes: number;
  /** @deprecated since issue #31: use `elapsedMs` (read with a console warning, for one release). */
  elapsed_ms: number;
  /** @deprecated since issue #31: use `orderSearch` (read with a console warning, for one release). */
  order_search?: OrderSearch;
}

/** One buffer of a CSV's layout. */
export interface IntervalBuffer {
  id: string;
  offset: number;
  bytes: number;
  lower: number;
  upper: number;
}

/** A MiniMalloc CSV's layout. */
export interface IntervalLayout {
  arenaBytes: number;
  lowerBoundBytes: number;
  optimal: boolean;
  method: string;
  align: number;
  capacityBytes: number | null;
  /** `arenaBytes <= capacityBytes` (true without a capacity). */
  withinCapacity: boolean;
  offsets: Record<string, number>;
  buffers: IntervalBuffer[];
  searchNodes: number;
  elapsedMs: number;
  /** @deprecated since issue #31: use `arenaBytes` (read with a console warning, for one release). */
  arena_bytes: number;
  /** @deprecated since issue #31: use `lowerBoundBytes` (read with a console warning, for one release). */
  lower_bound_bytes: number;
  /** @deprecated since issue #31: use `capacityBytes` (read with a console warning, for one release). */
  capacity_bytes: number | null;
  /** @deprecated since issue #31: use `withinCapacity` (read with a console warning, for one release). */
  within_capacity: boolean;
  /** @deprecated since issue #31: use `searchNodes` (read with a console warning, for one release). */
  search_nodes: number;
  /** @deprecated since issue #31: use `elapsedMs` (read with a console warning, for one release). */
  elapsed_ms: number;
}

/**
 * Stable error codes: the core's (docs/design.md §2 validation; "bad_region", "region_cycle" and
 * "peak_limit" from fusion; "infeasible", "bad_limit", "not_recomputable" and "stale_view" from
 * memory limits and schedules) plus "invalid_argument" (an option or
 * order of the wrong type or shape), "too_large" (a result byte count at or above 2^53) and, in
 * the web build, "not_initialized" (a call before `init`).
 */
export type ErrorCode =
  | "bad_json" | "bad_format" | "invalid_tensor" | "invalid_op" | "duplicate_id"
  | "unknown_tensor" | "produced_twice" | "cycle" | "alias_cycle" | "size_overflow"
  | "unknown_output" | "unknown_op" | "repeated_op" | "missing_op" | "not_topological"
  | "unknown_method" | "not_applicable" | "too_large" | "invalid_argument" | "not_initialized"
  | "bad_region" | "region_cycle" | "peak_limit" | "bad_layout" | "bad_csv"
  | "infeasible" | "not_recomputable" | "stale_view" | "bad_limit"
  | (string & {});

/** What every function throws on bad input. `instanceof Error` holds. */
export interface PeakorderError extends Error {
  name: "PeakorderError";
  code: ErrorCode;
  /** The offending op, when the error names one (code "infeasible": the op that forces the
   * bound, when the limit is below it; "not_recomputable": the op run twice). */
  op?: string;
  /** The offending tensor, when the error names one ("stale_view": the view). */
  tensor?: string;
  /** The tensor an unknown `alias_of` of the graph names ("stale_view": the tensor the view
   * aliases). */
  aliasOf?: string;
  /** The ops of a cycle (code "cycle"), or of the fused graph's (code "region_cycle"), in order. */
  ops?: string[];
  /** The region that cannot be formed (code "bad_region"): its member ids joined with "+". */
  region?: string;
  /** The line of a malformed CSV (code "bad_csv"; 1 is the header). */
  line?: number;
  /** The limit no fusion met (code "peak_limit"), or no schedule met ("infeasible"), when below
   * 2^53. */
  limitBytes?: number;
  /** The least peak any schedule was found to reach (code "infeasible"), when below 2^53. */
  leastLimitBytes?: number;
  /** A proven lower bound on every schedule's peak (code "infeasible"), when below 2^53. */
  leastLimitLowerBoundBytes?: number;
  /** How often the schedule runs an op that must run once (code "not_recomputable"). */
  runs?: number;
  /** The malformed byte count as given (code "bad_limit"). */
  value?: string;
  /** The lowest peak the search found (code "peak_limit"), when below 2^53. */
  bestBytes?: number;
  /** The tensors of an alias cycle (code "alias_cycle"). */
  tensors?: string[];
  /** @deprecated since issue #31: use `aliasOf` (read with a console warning, for one release). */
  alias_of?: string;
  /** @deprecated since issue #31: use `limitBytes` (read with a console warning, for one release). */
  limit_bytes?: number;
  /** @deprecated since issue #31: use `leastLimitBytes` (read with a console warning, for one release). */
  least_limit_bytes?: number;
  /** @deprecated since issue #31: use `leastLimitLowerBoundBytes` (read with a console warning, for one release). */
  least_limit_lower_bound_bytes?: number;
  /** @deprecated since issue #31: use `bestBytes` (read with a console warning, for one release). */
  best_bytes?: number;
}
"#;

#[cfg(test)]
mod tests {
    use super::TS_TYPES;
    use peakorder::recompute::RecomputeMethod;
    use peakorder::{Method, PlanOptions};

    /// The names declared between `export type NAME =` and its `;`.
    fn declared(name: &str) -> Vec<&'static str> {
        let start = TS_TYPES.find(&format!("export type {name} =")).expect(name);
        let decl = &TS_TYPES[start..start + TS_TYPES[start..].find(';').expect("end")];
        decl.split('"').skip(1).step_by(2).collect()
    }

    #[test]
    fn recompute_method_name_is_every_recompute_method_of_the_core() {
        let core: Vec<&str> = RecomputeMethod::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(declared("RecomputeMethodName"), core);
    }

    /// Every code the core can give is declared.
    #[test]
    fn error_code_has_the_recompute_codes() {
        let codes = declared("ErrorCode");
        for code in ["infeasible", "not_recomputable", "stale_view", "bad_limit"] {
            assert!(codes.contains(&code), "{code}");
        }
    }

    /// The declared names are exactly the core's, and the documented default is the core's.
    #[test]
    fn method_name_is_every_method_of_the_core() {
        let start = TS_TYPES
            .find("export type MethodName =")
            .expect("MethodName");
        let decl = &TS_TYPES[start..start + TS_TYPES[start..].find(';').expect("end")];
        let declared: Vec<&str> = decl.split('"').skip(1).step_by(2).collect();
        let core: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
        assert_eq!(declared, core);
        let default = format!("Default \"{}\".", PlanOptions::default().method.name());
        assert!(
            TS_TYPES.contains(&default),
            "PlanOptions.method documents {default}"
        );
    }
}
