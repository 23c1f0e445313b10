//! TypeScript declarations of the JS API's objects, emitted by wasm-bindgen into the generated
//! `.d.ts` (the functions in lib.rs name these types through `typescript_type`). They mirror the
//! serde shapes of the core (docs/design.md §2, §3, §4, §5); tests/js/types-check.mts checks them with
//! `tsc --noEmit` and tests/js/*.test.mjs check the values against them at run time.

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
export type RecomputeMethodName = "auto" | "exact" | "revolve" | "evict";

/** A byte count: a whole number of bytes, or text with a unit ("64MiB", "8GiB", "1.5GB"). */
export type ByteCount = number | string;

export interface PlanOptions {
  /** Default "auto". An unknown name throws with code "unknown_method". */
  method?: MethodName;
  /**
   * A bound on the plan's peak, inputs included, as the simulator counts (docs/design.md §3): the
   * plan is then the schedule within it with the least added cost (an op may run more than once).
   * A malformed value throws "bad_limit"; one below the least limit any schedule reaches throws
   * "infeasible" (with `limit_bytes`, `least_limit_bytes`, `least_limit_lower_bound_bytes` and,
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
  inputs_bytes: number;
  lower_bound_bytes: number;
  /** Peak of the file's order; null when the file's order is not a valid order. */
  program_order_peak_bytes: number | null;
  /** Every op's outputs feed at most one other op. */
  in_forest: boolean;
}

/** A plan (docs/design.md §3). The fields from `memory_limit_bytes` on are there only when the
 * plan was asked for with a memory limit. */
export interface Plan {
  /** Op ids in the order to run them. With a memory limit, a schedule: an op may appear more than
   * once (its later runs compute its outputs again). */
  order: string[];
  peak_bytes: number;
  inputs_bytes: number;
  /** A true lower bound on every order's peak. */
  lower_bound_bytes: number;
  /** True only when proven (with a memory limit: the added cost is proven least). */
  optimal: boolean;
  /** What proved it optimal: "liu", "search", "cut", "last-of-set", "first-of-set", "first-free", "either-side", "nested-set",
   * "join-free", "rewrite-set", "branching", "part" or
   * "simple"; with a memory limit "order" (an order fits), "exact", "revolve" or "evict"; null
   * unless `optimal`. */
  proof: string | null;
  /** What gave `lower_bound_bytes` (the same names; "recompute" with a memory limit). */
  lower_bound_by: string;
  method: string;
  /** Peak of the file's order; null when the file's order is not a valid order. */
  program_order_peak_bytes: number | null;
  elapsed_ms: number;
  /** The limit asked for. */
  memory_limit_bytes?: number;
  /** What found the schedule: "order" (an order fits: nothing recomputed), "exact", "revolve" or
   * "evict". */
  recompute_method?: "order" | "exact" | "revolve" | "evict";
  /** The cost of the repeated runs: the sum of their ops' `cost`. */
  added_cost?: number;
  /** A proven lower bound on the added cost of every schedule within the limit. */
  added_cost_lower_bound?: number;
  /** How often each op that runs more than once runs, by op id. */
  runs?: Record<string, number>;
  /** The least peak the planner found any schedule to reach (unlimited recomputation). */
  least_limit_bytes?: number;
  /** A proven lower bound on every schedule's peak. */
  least_limit_lower_bound_bytes?: number;
  /** The op whose run forces `least_limit_lower_bound_bytes`; null: the start or the end. */
  least_limit_op?: string | null;
}

/** Memory around one op of an order. */
export interface Step {
  op: string;
  /** While the op runs: live + its outputs + its workspace. */
  during_bytes: number;
  /** After it ran and freed what it could. */
  after_bytes: number;
}

/** A simulated order or schedule (docs/design.md §5), plus typed arrays for charts. */
export interface Simulation {
  peak_bytes: number;
  inputs_bytes: number;
  /** Index in `steps` of the first step at the peak; null when the peak is the start. */
  peak_step: number | null;
  /** Tensors live at the peak, the running op's outputs included. */
  live_at_peak: string[];
  steps: Step[];
  /** `steps[i].during_bytes` for every step. */
  during: Float64Array;
  /** `steps[i].after_bytes` for every step. */
  after: Float64Array;
}

/** The memory model's tables (`storages()`), per tensor in file order. */
export interface Storages {
  /** Bytes of the tensor's own storage; 0 for a view. */
  bytes: Float64Array;
  /** Index of the tensor whose storage it lives in (itself unless a view). */
  root: Uint32Array;
  /** 1 when the storage is never freed (a graph output, or an input that is not donated). */
  pinned: Uint8Array;
  /** `users[users_start[t] .. users_start[t + 1]]`: the ops (file-order indices) that keep storage t alive. */
  users_start: Uint32Array;
  users: Uint32Array;
}

/** An order: op ids, a plan (anything with an `order` array), or JSON text of either. `simulate`
 * also takes a schedule, in which an op may appear more than once (docs/design.md §1). */
export type OrderInput = string[] | { order: string[] } | string;

/** One method's row of `compare`. */
export interface MethodRow {
  method: string;
  /** null when the method does not apply to this graph (then `error` says why). */
  peak_bytes: number | null;
  optimal: boolean;
  /** What proved this row optimal (as `Plan.proof`); null unless `optimal`. */
  proof: string | null;
  elapsed_ms: number;
  error?: string;
}

/** Every method side by side (`compare --json`). */
export interface Comparison {
  lower_bound_bytes: number;
  /** What gave `lower_bound_bytes` (as `Plan.lower_bound_by`). */
  lower_bound_by: string;
  inputs_bytes: number;
  methods: MethodRow[];
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
  ops_before: number;
  /** Ops (kernels) of the fused graph. */
  ops_after: number;
  /** Best peak found for the unfused graph. */
  peak_before_bytes: number;
  /** Planned peak of the fused graph. */
  peak_after_bytes: number;
  limit_bytes: number;
  inputs_bytes: number;
  /** `peak_after_bytes <= limit_bytes`. */
  within_limit: boolean;
  /** The fused graph's planned order; a region is named by its member ids joined with "+". */
  order: string[];
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
  first_step: number;
  last_step: number;
  /** For a schedule: which run of the storage's producer made this buffer (2 and up; absent
   * for the first run and for orders). */
  run?: number;
}

/** What the order search did, when the order was planned. */
export interface OrderSearch {
  planned_method: string;
  planned_peak_bytes: number;
  planned_arena_bytes: number;
  peak_limit_bytes: number;
  slack: number;
  orders_tried: number;
  /** The order laid out is not the planned one. */
  changed: boolean;
}

/** A graph's layout (`peakorder layout --json`). Byte counts are exact integers (below 2^53). */
export interface Layout {
  arena_bytes: number;
  /** A proven lower bound on this order's arena: its peak after alignment, or more. */
  lower_bound_bytes: number;
  /** True only when proven: the arena meets the bound. */
  optimal: boolean;
  method: string;
  align: number;
  /** The order laid out. */
  order: string[];
  /** The order's peak (the simulator's, unaligned). */
  peak_bytes: number;
  inputs_bytes: number;
  /** Every tensor's offset, views included (a view's is its storage's). */
  offsets: Record<string, number>;
  /** Each op's workspace offset (ops with workspace only). */
  workspace_offsets: Record<string, number>;
  /** Every buffer of positive size: storages in tensor order, then workspaces. */
  buffers: LayoutBuffer[];
  search_nodes: number;
  elapsed_ms: number;
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
  arena_bytes: number;
  lower_bound_bytes: number;
  optimal: boolean;
  method: string;
  align: number;
  capacity_bytes: number | null;
  /** `arena_bytes <= capacity_bytes` (true without a capacity). */
  within_capacity: boolean;
  offsets: Record<string, number>;
  buffers: IntervalBuffer[];
  search_nodes: number;
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
  /** The tensor an unknown `alias_of` names ("stale_view": the tensor the view aliases). */
  alias_of?: string;
  /** The ops of a cycle (code "cycle"), or of the fused graph's (code "region_cycle"), in order. */
  ops?: string[];
  /** The region that cannot be formed (code "bad_region"): its member ids joined with "+". */
  region?: string;
  /** The line of a malformed CSV (code "bad_csv"; 1 is the header). */
  line?: number;
  /** The limit no fusion met (code "peak_limit"), or no schedule met ("infeasible"), when below
   * 2^53. */
  limit_bytes?: number;
  /** The least peak any schedule was found to reach (code "infeasible"), when below 2^53. */
  least_limit_bytes?: number;
  /** A proven lower bound on every schedule's peak (code "infeasible"), when below 2^53. */
  least_limit_lower_bound_bytes?: number;
  /** How often the schedule runs an op that must run once (code "not_recomputable"). */
  runs?: number;
  /** The malformed byte count as given (code "bad_limit"). */
  value?: string;
  /** The lowest peak the search found (code "peak_limit"), when below 2^53. */
  best_bytes?: number;
  /** The tensors of an alias cycle (code "alias_cycle"). */
  tensors?: string[];
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
