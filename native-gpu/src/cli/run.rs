//! `peakorder run`: execute orders with real kernels and allocations, measured vs planned peak.

use std::path::PathBuf;

use clap::Args;
use peakorder::units::{format_bytes, format_bytes_signed};
use peakorder::{Graph, LayoutOptions, Method, OpIx};
use peakorder_gpu::exec::{self, Backend, Device, ExecError, Prepared, RunResult};
use serde::Serialize;

use super::input::{read_graph, read_schedule};
use super::plan::to_json;
use super::search_args::{MemoryLimitArg, MethodArg, SearchLimits};
use super::table::{ms, Table};
use super::{CliError, StdClock};

/// The method `run` plans with unless told otherwise: it measures execution, and greedy plans
/// in well under a millisecond with no search.
const RUN_METHOD: Method = Method::Greedy;

/// `peakorder run GRAPH [--device cpu|cuda] [--memory-limit BYTES] [--compare] [--json]`.
#[derive(Args, Debug)]
#[command(mut_arg("method", |a| a
    .default_value(RUN_METHOD.name())
    .help("Planning method for the planned order")))]
#[command(mut_arg("memory_limit", |a| a
    .conflicts_with("order")
    .help("Plan within this many bytes (64MiB, 1.5GiB, 1048576), recomputing what must be, and \
           run that schedule, its recomputations included")))]
pub struct RunArgs {
    /// Graph JSON file, or `-` for stdin.
    graph: PathBuf,
    /// cpu (exact byte counting), cuda (a dedicated CUDA memory pool), or auto (cuda when
    /// a driver and device are present, else cpu).
    #[arg(long, default_value = "cpu")]
    device: String,
    #[command(flatten)]
    method: MethodArg,
    /// Run this order instead of planning one: a JSON array of op ids, or a plan. An op may
    /// be listed more than once (a schedule with recomputations, as `plan --memory-limit`
    /// gives).
    #[arg(long, conflicts_with = "method")]
    order: Option<PathBuf>,
    #[command(flatten)]
    limit: MemoryLimitArg,
    /// Also run the program order (the file's order), first.
    #[arg(long)]
    compare: bool,
    #[command(flatten)]
    limits: SearchLimits,
    /// Run each order in one buffer of its layout's arena, every tensor at its offset
    /// (docs/layout.md); the measured high-water mark must be the arena.
    #[arg(long)]
    arena: bool,
    /// With --arena: round sizes and offsets up to a multiple of this many bytes and of the
    /// device's own (4 on the CPU, 256 on CUDA).
    #[arg(long, requires = "arena")]
    align: Option<u64>,
    /// Print exact JSON instead of a table.
    #[arg(long)]
    json: bool,
}

impl From<ExecError> for CliError {
    fn from(e: ExecError) -> Self {
        if e.is_input_error() {
            CliError::Input(e.to_string())
        } else {
            CliError::Other(e.to_string())
        }
    }
}

/// `--device`: a device, or `auto` (CUDA when a driver and device are present, else the CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    Auto,
    Only(Device),
}

impl std::str::FromStr for DeviceChoice {
    type Err = CliError;
    fn from_str(s: &str) -> Result<Self, CliError> {
        if s == "auto" {
            return Ok(DeviceChoice::Auto);
        }
        s.parse::<Device>().map(DeviceChoice::Only).map_err(|_| {
            CliError::Input(format!("unknown device {s:?}; expected cpu, cuda or auto"))
        })
    }
}

/// One run in `--json` (docs/design.md §5).
#[derive(Serialize, Clone, Debug)]
pub struct RunRow {
    pub order: String,
    pub planned_peak_bytes: u64,
    pub measured_peak_bytes: u64,
    pub inputs_bytes: u64,
    pub elapsed_ms: f64,
    /// Steps that run an op again (a schedule with recomputations); absent for an order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recomputed_steps: Option<usize>,
    /// `--arena`: the layout's arena, which the measured high-water mark must equal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arena_bytes: Option<u64>,
    /// `--arena`: the layout's alignment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
}

/// The whole `--json` output (docs/design.md §5).
#[derive(Serialize, Clone, Debug)]
pub struct Execution {
    pub device: String,
    pub runs: Vec<RunRow>,
    /// The backend's own description, for text reports.
    #[serde(skip)]
    pub describe: String,
    #[serde(skip)]
    pub results: Vec<RunResult>,
}

impl Execution {
    /// True when every run measured the plan, up to the allocator's rounding.
    pub fn all_match(&self) -> bool {
        self.results.iter().all(RunResult::matches_plan)
    }
}

/// Opens the chosen device; `auto` falls back to the CPU when CUDA is missing or fails to open.
pub fn open_device(choice: DeviceChoice) -> Result<(Device, Box<dyn Backend>), CliError> {
    match choice {
        DeviceChoice::Only(d) => Ok((d, exec::open(d)?)),
        DeviceChoice::Auto => {
            if exec::cuda_available() {
                match exec::open(Device::Cuda) {
                    Ok(b) => return Ok((Device::Cuda, b)),
                    Err(e) => eprintln!("peakorder: CUDA is present but could not be used ({e}); running on the CPU"),
                }
            }
            Ok((Device::Cpu, exec::open(Device::Cpu)?))
        }
    }
}

/// Runs each (label, order) on `backend`.
pub fn execute_all(
    g: &Graph,
    prepared: &Prepared,
    device: Device,
    backend: &mut dyn Backend,
    orders: &[(String, Vec<OpIx>)],
) -> Result<Execution, CliError> {
    let mut runs = Vec::new();
    let mut results = Vec::new();
    for (label, order) in orders {
        let r = exec::execute(g, prepared, order, backend)?;
        runs.push(row(label, order, &r, None));
        results.push(r);
    }
    Ok(Execution {
        device: device.name().to_string(),
        runs,
        describe: backend.describe(),
        results,
    })
}

fn row(label: &str, schedule: &[OpIx], r: &RunResult, align: Option<u64>) -> RunRow {
    let again = schedule.len() - {
        let mut seen = std::collections::HashSet::new();
        schedule.iter().filter(|v| seen.insert(**v)).count()
    };
    RunRow {
        order: label.to_string(),
        planned_peak_bytes: r.planned_peak_bytes,
        measured_peak_bytes: r.measured_peak_bytes,
        inputs_bytes: r.inputs_bytes,
        elapsed_ms: r.elapsed_ms,
        recomputed_steps: (again > 0).then_some(again),
        arena_bytes: r.arena_bytes,
        align,
    }
}

/// Runs each (label, layout) in one arena on `backend` (`run --arena`).
pub fn execute_all_in_arenas(
    g: &Graph,
    prepared: &Prepared,
    device: Device,
    backend: &mut dyn Backend,
    layouts: &[(String, peakorder::Layout)],
) -> Result<Execution, CliError> {
    let mut runs = Vec::new();
    let mut results = Vec::new();
    for (label, layout) in layouts {
        let r = exec::execute_arena(g, prepared, layout, backend)?;
        runs.push(row(label, &layout.order_ix, &r, Some(layout.align)));
        results.push(r);
    }
    Ok(Execution {
        device: device.name().to_string(),
        runs,
        describe: backend.describe(),
        results,
    })
}

fn with_above(peak: u64, inputs: u64) -> String {
    format!(
        "{} ({})",
        format_bytes(peak),
        format_bytes_signed(peak as i128 - inputs as i128)
    )
}

/// The text report of an execution.
pub fn render(ex: &Execution) -> String {
    let arena = ex.results.iter().any(|r| r.arena_bytes.is_some());
    let again = ex.runs.iter().any(|r| r.recomputed_steps.is_some());
    let mut cols = vec![("order", false)];
    if again {
        cols.push(("recomputed", true));
    }
    cols.push(("planned peak (above inputs)", true));
    if arena {
        cols.push(("arena (above inputs)", true));
    }
    cols.extend([
        ("measured peak (above inputs)", true),
        ("difference", true),
        ("time", true),
    ]);
    let mut t = Table::new(&cols);
    for (row, r) in ex.runs.iter().zip(&ex.results) {
        let target = r.arena_bytes.unwrap_or(r.planned_peak_bytes);
        let mut cells = vec![row.order.clone()];
        if again {
            cells.push(row.recomputed_steps.unwrap_or(0).to_string());
        }
        cells.push(with_above(r.planned_peak_bytes, r.inputs_bytes));
        if let Some(a) = r.arena_bytes {
            cells.push(with_above(a, r.inputs_bytes));
        }
        cells.extend([
            with_above(r.measured_peak_bytes, r.inputs_bytes),
            format_bytes_signed(r.measured_peak_bytes as i128 - target as i128),
            ms(r.elapsed_ms),
        ]);
        t.row(cells);
    }
    let mut s = format!("{:<10}{}\n\n{}\n", "device", ex.describe, t.render());
    let exact = ex
        .results
        .iter()
        .all(|r| r.measured_peak_bytes == r.arena_bytes.unwrap_or(r.planned_peak_bytes));
    if exact && arena {
        s.push_str("measured = planned arena, to the byte, in every run (one buffer, every tensor at its offset)\n");
    } else if exact {
        s.push_str("measured = planned, to the byte, in every run\n");
    } else {
        for (row, r) in ex.runs.iter().zip(&ex.results) {
            s.push_str(&format!(
                "{}: the allocator's rounding allows up to +{} ({} bytes) over the plan: {}\n",
                row.order,
                format_bytes(r.rounding_allowance_bytes()),
                r.rounding_allowance_bytes(),
                if r.matches_plan() {
                    "within it"
                } else {
                    "OUTSIDE it"
                }
            ));
        }
    }
    if ex.results.len() > 1 {
        let first = ex.results[0].outputs_checksum;
        let same = ex.results.iter().all(|r| r.outputs_checksum == first);
        s.push_str(&format!(
            "outputs identical in every order: {} (checksum {first:016x})\n",
            if same { "yes" } else { "NO" }
        ));
    }
    s
}

pub fn run(a: RunArgs) -> Result<(), CliError> {
    let opts = a.limit.apply(a.limits.plan_options(a.method.method()?))?;
    let g = read_graph(&a.graph)?;
    let choice: DeviceChoice = a.device.parse()?;
    let mut orders: Vec<(String, Vec<OpIx>)> = Vec::new();
    if a.compare {
        let program = peakorder::order::program::program_order(&g)
            .map_err(|e| CliError::Input(format!("the program order cannot run: {e}")))?;
        orders.push(("program".into(), program));
    }
    match &a.order {
        Some(path) => orders.push((path.display().to_string(), read_schedule(&g, path)?)),
        None => {
            let plan = peakorder::plan(&g, &opts, &StdClock::new())?;
            orders.push(("planned".into(), plan.order_ix));
        }
    }
    if a.align == Some(0) {
        return Err(CliError::Input("--align must be at least 1 byte".into()));
    }
    // Refuse unfit ops before touching any device.
    let prepared = exec::prepare(&g)?;
    let (device, mut backend) = open_device(choice)?;
    let ex = if a.arena {
        let device_align = backend
            .arena_align()
            .ok_or_else(|| CliError::Other(format!("{} has no arena mode", backend.describe())))?;
        let align = lcm(a.align.unwrap_or(1), device_align)
            .ok_or_else(|| CliError::Input("--align is too large".into()))?;
        let opts = LayoutOptions {
            align,
            budget_ms: Some(a.limits.budget.budget_ms),
            ..LayoutOptions::default()
        };
        let mut layouts = Vec::new();
        for (label, order) in orders {
            let l = peakorder::layout(&g, &order, &opts, &StdClock::new())?;
            layouts.push((label, l));
        }
        execute_all_in_arenas(&g, &prepared, device, backend.as_mut(), &layouts)?
    } else {
        execute_all(&g, &prepared, device, backend.as_mut(), &orders)?
    };
    if a.json {
        println!("{}", to_json(&ex));
    } else {
        print!("{}", render(&ex));
    }
    if !ex.all_match() {
        return Err(CliError::Other(
            "a measured peak differs from the plan by more than the allocator's rounding".into(),
        ));
    }
    Ok(())
}

/// Least common multiple, `None` on overflow.
fn lcm(a: u64, b: u64) -> Option<u64> {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    (a / x).checked_mul(b)
}
