//! The native executor: runs an order or a schedule of a graph with real kernels and real
//! allocations, and measures the peak the allocator saw.
//!
//! One driver loop ([`execute`]) serves every backend. It follows the core's memory model
//! (docs/design.md §1) step by step through the same [`Graph`] accessors the simulator reads
//! (`input_storages`, `creates`, `workspace`, `size`) and the schedule simulator's frees
//! ([`peakorder::recompute::schedule::frees_of`]): every graph input is allocated and filled
//! first; then, for each step, the op's new storages and its workspace are allocated just before
//! it runs, the op runs, its workspace is freed, and every storage the simulator frees after
//! that step (its last use before its producer runs again, or nobody's) is freed. A step that
//! runs an op again (a recomputation) allocates its outputs again: their previous instance was
//! freed before, so the slot is empty. A backend only allocates, frees, copies and launches
//! what the loop tells it to, so its high-water mark is the simulator's peak, up to the
//! allocator's own rounding ([`Backend::charge`]).
//!
//! Views own no memory: a view reads its root's storage from its start, reinterpreted with the
//! view's own shape (a reshape; strides are not modelled). Ops never write through a view, so
//! every valid order computes bit-for-bit the same outputs.

mod backend;
pub mod cpu;
pub mod cuda;
pub mod data;
mod error;
pub mod kernel;

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use peakorder::error::show_id;
use peakorder::{Graph, OpIx};

pub use backend::{Backend, Slot};
pub use error::ExecError;
pub use kernel::{prepare, Kernel, Prepared};

/// Where to execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// f32 kernels on the host, with an allocator that counts exact bytes.
    Cpu,
    /// CUDA device 0, allocating from a dedicated stream-ordered memory pool.
    Cuda,
}

impl Device {
    pub fn name(self) -> &'static str {
        match self {
            Device::Cpu => "cpu",
            Device::Cuda => "cuda",
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Device {
    type Err = ExecError;
    fn from_str(s: &str) -> Result<Device, ExecError> {
        match s {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda),
            _ => Err(ExecError::BadInput(format!(
                "unknown device {s:?}; expected cpu or cuda"
            ))),
        }
    }
}

/// What one execution measured.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// The simulator's peak for this order (docs/design.md §1).
    pub planned_peak_bytes: u64,
    /// The allocator's high-water mark.
    pub measured_peak_bytes: u64,
    /// The peak in the allocator's units: the same walk with every allocation rounded as the
    /// allocator rounds it. Equals `planned_peak_bytes` on the CPU.
    pub charged_peak_bytes: u64,
    pub inputs_bytes: u64,
    /// Wall time from the first input allocation to the last op finishing.
    pub elapsed_ms: f64,
    /// FNV-1a 64 of every graph output's bytes, in the graph's output order.
    pub outputs_checksum: u64,
    /// Arena mode: the layout's arena (what the high-water mark must be); `None` otherwise.
    pub arena_bytes: Option<u64>,
}

impl RunResult {
    /// Bytes the allocator's rounding may add to the planned peak.
    pub fn rounding_allowance_bytes(&self) -> u64 {
        self.charged_peak_bytes
            .saturating_sub(self.arena_bytes.unwrap_or(self.planned_peak_bytes))
    }
    /// True when the measurement agrees with the plan up to the allocator's rounding: the
    /// simulator's peak, or in arena mode the layout's arena.
    pub fn matches_plan(&self) -> bool {
        let planned = self.arena_bytes.unwrap_or(self.planned_peak_bytes);
        self.measured_peak_bytes >= planned && self.measured_peak_bytes <= self.charged_peak_bytes
    }
}

/// Checks `schedule` (an order, or a schedule with recomputations) and returns its simulated
/// peak. An order without repeats is checked as an order (its errors name a repeated op, as
/// before schedules); otherwise as the recompute model checks schedules.
fn planned_peak(g: &Graph, schedule: &[OpIx]) -> Result<u64, ExecError> {
    let mut seen = vec![false; g.num_ops()];
    let repeats = schedule.iter().any(|&v| {
        seen.get_mut(v as usize)
            .is_some_and(|s| std::mem::replace(s, true))
    });
    if repeats {
        Ok(peakorder::recompute::checked_schedule_peak(g, schedule)?)
    } else {
        g.check_order(schedule)?;
        Ok(peakorder::simulate::peak_of(g, schedule))
    }
}

/// Runs `schedule` on `backend`: an order, or a schedule in which an op may run more than once
/// (docs/design.md §1, "Recomputation"; each run allocates its outputs again). `prepared` comes
/// from [`prepare`] on the same graph; the schedule is checked first. On any error everything
/// allocated is freed before returning.
pub fn execute<B: Backend + ?Sized>(
    g: &Graph,
    prepared: &Prepared,
    schedule: &[OpIx],
    backend: &mut B,
) -> Result<RunResult, ExecError> {
    let planned = planned_peak(g, schedule)?;
    let result = drive(g, prepared, schedule, backend, planned, None);
    backend.free_all();
    result
}

/// Runs `layout.order_ix` (an order or a schedule) in one arena of `layout.arena_bytes`
/// (docs/layout.md): the backend allocates that one buffer, and every storage and workspace is
/// placed at its offset in it instead of being allocated; a recomputation's outputs at their
/// own run's offsets. The layout must be for this graph with the backend's
/// [`Backend::arena_align`] (a multiple of it).
pub fn execute_arena<B: Backend + ?Sized>(
    g: &Graph,
    prepared: &Prepared,
    layout: &peakorder::Layout,
    backend: &mut B,
) -> Result<RunResult, ExecError> {
    let order = &layout.order_ix;
    let planned = planned_peak(g, order)?;
    let made: usize = order.iter().map(|&v| g.creates(v).len()).sum();
    let align = backend
        .arena_align()
        .ok_or_else(|| ExecError::BadInput(format!("{} has no arena mode", backend.describe())))?;
    if layout.align % align != 0
        || layout.tensor_offsets.len() != g.num_tensors()
        || layout.op_workspace_offsets.len() != g.num_ops()
        || layout.made_offsets.len() != made
        || layout.step_workspace_offsets.len() != order.len()
    {
        return Err(ExecError::BadInput(format!(
            "the layout does not fit this graph and device (alignment {} where the device needs              a multiple of {align})",
            layout.align
        )));
    }
    let result = drive(g, prepared, order, backend, planned, Some(layout));
    backend.free_all();
    result
}

/// Gives `slot` its memory: an allocation, or its place in the arena.
fn take<B: Backend + ?Sized>(
    backend: &mut B,
    arena: Option<&peakorder::Layout>,
    slot: Slot,
    offset: u64,
    bytes: u64,
    what: &dyn Fn() -> String,
) -> Result<u64, ExecError> {
    match arena {
        None => {
            backend.alloc(slot, bytes, what)?;
            Ok(backend.charge(bytes))
        }
        Some(_) => {
            backend.place(slot, offset, bytes)?;
            Ok(0)
        }
    }
}

fn drive<B: Backend + ?Sized>(
    g: &Graph,
    prepared: &Prepared,
    order: &[OpIx],
    backend: &mut B,
    planned: u64,
    arena: Option<&peakorder::Layout>,
) -> Result<RunResult, ExecError> {
    let mut sizes: Vec<u64> = match arena {
        // In arena mode the arena is the only allocation.
        Some(l) => vec![l.arena_bytes],
        None => {
            let mut v: Vec<u64> = (0..g.num_tensors() as u32).map(|s| g.size(s)).collect();
            v.extend((0..g.num_ops() as u32).map(|v| g.workspace(v)));
            v
        }
    };
    sizes.retain(|&b| b > 0);
    sizes.sort_unstable();
    sizes.dedup();
    backend.prepare(&sizes)?;
    backend.reset_peak()?;

    // The same walk in the allocator's units, to know what rounding the measurement may show.
    let mut charged: u64 = 0;
    let mut charged_peak: u64 = 0;
    let start = Instant::now();
    let (off, made_off, ws_off): (&[u64], &[u64], &[u64]) = match arena {
        Some(l) => {
            backend.open_arena(l.arena_bytes, &|| "the arena".to_string())?;
            charged += backend.charge(l.arena_bytes);
            (
                &l.tensor_offsets,
                &l.made_offsets,
                &l.step_workspace_offsets,
            )
        }
        None => (&[], &[], &[]),
    };
    let at = |table: &[u64], i: usize| table.get(i).copied().unwrap_or(0);
    for s in g.input_storages() {
        let bytes = g.size(s);
        let id = &g.tensors()[s as usize].id;
        let what = || format!("graph input {}", show_id(id));
        charged += take(
            backend,
            arena,
            Slot::Storage(s),
            at(off, s as usize),
            bytes,
            &what,
        )?;
        backend.upload(Slot::Storage(s), &data::input_bytes(id, bytes))?;
    }
    charged_peak = charged_peak.max(charged);

    // The simulator's frees, step by step: a storage read before its producer runs again is
    // kept; its last read before that (or the run itself, when nothing reads it) frees it.
    let frees = peakorder::recompute::schedule::frees_of(g, order);
    let release = |backend: &mut B, bytes: u64| -> u64 {
        if arena.is_some() {
            0
        } else {
            backend.charge(bytes)
        }
    };
    let mut made = 0usize;
    for (i, &v) in order.iter().enumerate() {
        let op = &g.ops()[v as usize].id;
        let what = || format!("op {}", show_id(op));
        for &s in g.creates(v) {
            charged += take(
                backend,
                arena,
                Slot::Storage(s),
                at(made_off, made),
                g.size(s),
                &what,
            )?;
            made += 1;
        }
        let ws = g.workspace(v);
        if ws > 0 {
            charged += take(backend, arena, Slot::Workspace, at(ws_off, i), ws, &what)?;
        }
        charged_peak = charged_peak.max(charged);
        backend.launch(&prepared.kernels[v as usize])?;
        if ws > 0 {
            backend.free(Slot::Workspace)?;
            charged -= release(backend, ws);
        }
        for &s in frees.after(i) {
            backend.free(Slot::Storage(s))?;
            charged -= release(backend, g.size(s));
        }
    }
    backend.sync()?;
    let elapsed_ms = start.elapsed().as_secs_f64() * 1000.0;
    let measured = backend.peak()?;

    let mut hash = data::Fnv::new();
    for &t in g.outputs() {
        let (root, bytes) = prepared.extent(t);
        hash.write(&backend.download(Slot::Storage(root), bytes)?);
    }
    Ok(RunResult {
        planned_peak_bytes: planned,
        measured_peak_bytes: measured,
        charged_peak_bytes: charged_peak,
        inputs_bytes: g.inputs_bytes(),
        elapsed_ms,
        outputs_checksum: hash.finish(),
        arena_bytes: arena.map(|l| l.arena_bytes),
    })
}

/// Opens a backend for `device`.
pub fn open(device: Device) -> Result<Box<dyn Backend>, ExecError> {
    match device {
        Device::Cpu => Ok(Box::new(cpu::CpuBackend::new())),
        Device::Cuda => Ok(Box::new(cuda::CudaBackend::open()?)),
    }
}

/// True when a CUDA driver library can be loaded and reports at least one device.
pub fn cuda_available() -> bool {
    cuda::probe().is_ok()
}
