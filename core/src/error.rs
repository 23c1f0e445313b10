//! Every way input can be wrong, as one typed error. Each variant names the offending op or tensor
//! and has a stable [`Error::code`] that the CLI, the wasm package and tests match on.

use std::fmt;

/// Shortens an id for messages: ids may be megabytes long, messages must stay one readable line.
pub fn show_id(id: &str) -> String {
    const MAX: usize = 80;
    if id.len() <= MAX {
        return format!("{id:?}");
    }
    let mut cut = MAX;
    while !id.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{:?}… ({} bytes)", &id[..cut], id.len())
}

/// A list of ids for a message, e.g. a cycle's ops.
pub fn show_ids(ids: &[String]) -> String {
    const MAX_SHOWN: usize = 12;
    let mut parts: Vec<String> = ids.iter().take(MAX_SHOWN).map(|s| show_id(s)).collect();
    if ids.len() > MAX_SHOWN {
        parts.push(format!("… ({} in all)", ids.len()));
    }
    parts.join(" -> ")
}

/// An error in a graph, an order, or a planning request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not JSON, or JSON of the wrong shape.
    BadJson {
        /// Where (e.g. `tensor #3 "x"`).
        context: String,
        /// The parser's message.
        message: String,
    },
    /// `format` present but not `peakorder/1`.
    BadFormat {
        /// The `format` given.
        found: String,
    },
    /// A tensor declaration that makes no sense on its own (size spec, dtype, empty id...).
    InvalidTensor {
        /// The tensor's id.
        tensor: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An op declaration that makes no sense on its own.
    InvalidOp {
        /// The op's id.
        op: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Two tensors with the same id.
    DuplicateTensor {
        /// The repeated id.
        tensor: String,
    },
    /// Two ops with the same id.
    DuplicateOp {
        /// The repeated id.
        op: String,
    },
    /// An op names a tensor that is not declared.
    UnknownTensor {
        /// The op.
        op: String,
        /// The tensor id it names.
        tensor: String,
    },
    /// `alias_of` names a tensor that is not declared.
    UnknownAlias {
        /// The view.
        tensor: String,
        /// The id its `alias_of` names.
        target: String,
    },
    /// Two ops, or one op twice, produce the same tensor.
    ProducedTwice {
        /// The tensor.
        tensor: String,
        /// The first op that produces it.
        first: String,
        /// The second.
        second: String,
    },
    /// The ops' dependencies loop.
    Cycle {
        /// One cycle, in order.
        ops: Vec<String>,
    },
    /// An `alias_of` chain loops.
    AliasCycle {
        /// The chain.
        tensors: Vec<String>,
    },
    /// Byte counts do not fit in u64.
    SizeOverflow {
        /// Which sum overflowed.
        what: String,
    },
    /// A graph output that is not a declared tensor.
    UnknownOutput {
        /// The id listed in `outputs`.
        tensor: String,
    },
    /// An order names an op the graph does not have.
    UnknownOp {
        /// The id.
        op: String,
    },
    /// An order lists an op twice.
    RepeatedOp {
        /// The op.
        op: String,
    },
    /// An order leaves an op out.
    MissingOp {
        /// The first op left out.
        op: String,
        /// How many are left out.
        count: usize,
    },
    /// An op comes before the producer of one of its inputs.
    NotTopological {
        /// The op that runs too early.
        op: String,
        /// The op it must follow.
        needs: String,
        /// The tensor that makes it depend on it.
        tensor: String,
    },
    /// A schedule runs an op marked `recompute: false` more than once.
    NotRecomputable {
        /// The op.
        op: String,
        /// How often the schedule runs it.
        runs: usize,
    },
    /// A schedule reads a view made before its storage was computed again: the view's
    /// producer must run again after the storage's (views are recomputed with their storage).
    StaleView {
        /// The op that reads it (or `None` for a graph output left stale at the end).
        op: Option<String>,
        /// The view.
        tensor: String,
        /// The tensor it aliases.
        base: String,
    },
    /// No schedule within the memory limit: the limit is below a proven lower bound on every
    /// schedule's peak, or below the least peak the planner found.
    Infeasible {
        /// The limit asked for, in bytes.
        limit: u64,
        /// The least peak any schedule found reaches (unlimited recomputation).
        least: u64,
        /// A proven lower bound on every schedule's peak.
        bound: u64,
        /// The op whose run forces `bound` (its inputs, outputs and workspace, with what is
        /// never freed), when the limit is below it.
        op: Option<String>,
    },
    /// A byte count that does not parse (`64MiB`, `8GiB`, `1048576`).
    BadLimit {
        /// The text given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Unknown planning method name.
    UnknownMethod {
        /// The name given.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// The method cannot handle this graph (e.g. `liu` on a graph that is not an in-forest).
    NotApplicable {
        /// The method.
        method: String,
        /// Why not.
        reason: String,
    },
    /// The graph is too large for this implementation (more than u32::MAX ops or tensors).
    TooLarge {
        /// What there is too much of.
        what: String,
    },
    /// A fusion region that cannot be formed (empty, overlapping, mixed `fusible` tags...).
    BadRegion {
        /// The region's name (member ids joined with `+`).
        region: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Fusing these regions would make the ops depend on each other in a loop.
    RegionCycle {
        /// One cycle of the fused graph's ops.
        ops: Vec<String>,
    },
    /// No fusion found keeps the planned peak within the limit.
    PeakLimit {
        /// The limit asked for, in bytes.
        limit: u64,
        /// The lowest peak found, in bytes.
        best: u64,
    },
    /// A layout request or result that cannot stand (an empty lifetime, a zero alignment, a
    /// solver's layout failing its check).
    BadLayout {
        /// The buffer or layout concerned.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// A malformed line of a MiniMalloc CSV.
    BadCsv {
        /// The line (1 is the header).
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

impl Error {
    /// A stable, machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            Error::BadJson { .. } => "bad_json",
            Error::BadFormat { .. } => "bad_format",
            Error::InvalidTensor { .. } => "invalid_tensor",
            Error::InvalidOp { .. } => "invalid_op",
            Error::DuplicateTensor { .. } | Error::DuplicateOp { .. } => "duplicate_id",
            Error::UnknownTensor { .. } | Error::UnknownAlias { .. } => "unknown_tensor",
            Error::ProducedTwice { .. } => "produced_twice",
            Error::Cycle { .. } => "cycle",
            Error::AliasCycle { .. } => "alias_cycle",
            Error::SizeOverflow { .. } => "size_overflow",
            Error::UnknownOutput { .. } => "unknown_output",
            Error::UnknownOp { .. } => "unknown_op",
            Error::RepeatedOp { .. } => "repeated_op",
            Error::MissingOp { .. } => "missing_op",
            Error::NotTopological { .. } => "not_topological",
            Error::NotRecomputable { .. } => "not_recomputable",
            Error::StaleView { .. } => "stale_view",
            Error::Infeasible { .. } => "infeasible",
            Error::BadLimit { .. } => "bad_limit",
            Error::UnknownMethod { .. } => "unknown_method",
            Error::NotApplicable { .. } => "not_applicable",
            Error::TooLarge { .. } => "too_large",
            Error::BadRegion { .. } => "bad_region",
            Error::RegionCycle { .. } => "region_cycle",
            Error::PeakLimit { .. } => "peak_limit",
            Error::BadLayout { .. } => "bad_layout",
            Error::BadCsv { .. } => "bad_csv",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadJson { context, message } => {
                if context.is_empty() {
                    write!(f, "bad JSON: {message}")
                } else {
                    write!(f, "bad JSON in {context}: {message}")
                }
            }
            Error::BadFormat { found } => {
                write!(
                    f,
                    "unsupported format {}: expected \"peakorder/1\"",
                    show_id(found)
                )
            }
            Error::InvalidTensor { tensor, reason } => {
                write!(f, "tensor {}: {reason}", show_id(tensor))
            }
            Error::InvalidOp { op, reason } => write!(f, "op {}: {reason}", show_id(op)),
            Error::DuplicateTensor { tensor } => {
                write!(f, "duplicate tensor id {}", show_id(tensor))
            }
            Error::DuplicateOp { op } => write!(f, "duplicate op id {}", show_id(op)),
            Error::UnknownTensor { op, tensor } => {
                write!(
                    f,
                    "op {} uses tensor {}, which is not declared",
                    show_id(op),
                    show_id(tensor)
                )
            }
            Error::UnknownAlias { tensor, target } => write!(
                f,
                "tensor {} is alias_of {}, which is not declared",
                show_id(tensor),
                show_id(target)
            ),
            Error::ProducedTwice {
                tensor,
                first,
                second,
            } => {
                if first == second {
                    write!(
                        f,
                        "tensor {} is listed twice in the outputs of op {}",
                        show_id(tensor),
                        show_id(first)
                    )
                } else {
                    write!(
                        f,
                        "tensor {} is produced twice: by op {} and by op {}",
                        show_id(tensor),
                        show_id(first),
                        show_id(second)
                    )
                }
            }
            Error::Cycle { ops } => write!(f, "the ops form a cycle: {}", show_ids(ops)),
            Error::AliasCycle { tensors } => {
                write!(f, "alias_of chain loops: {}", show_ids(tensors))
            }
            Error::SizeOverflow { what } => write!(f, "size overflows u64: {what}"),
            Error::UnknownOutput { tensor } => {
                write!(
                    f,
                    "graph output {} is not a declared tensor",
                    show_id(tensor)
                )
            }
            Error::UnknownOp { op } => write!(
                f,
                "order names op {}, which the graph does not have",
                show_id(op)
            ),
            Error::RepeatedOp { op } => write!(f, "order lists op {} more than once", show_id(op)),
            Error::MissingOp { op, count } => {
                write!(f, "order leaves out op {}", show_id(op))?;
                if *count > 1 {
                    write!(f, " and {} more", count - 1)?;
                }
                Ok(())
            }
            Error::NotTopological { op, needs, tensor } => write!(
                f,
                "op {} runs before op {}, which produces its input {}",
                show_id(op),
                show_id(needs),
                show_id(tensor)
            ),
            Error::NotRecomputable { op, runs } => write!(
                f,
                "op {} has `recompute: false` and must run exactly once; the schedule runs it {runs} times",
                show_id(op)
            ),
            Error::StaleView { op, tensor, base } => match op {
                Some(op) => write!(
                    f,
                    "op {} reads view {} of {}, but {} was computed again after the view was made: run the view's producer again first",
                    show_id(op),
                    show_id(tensor),
                    show_id(base),
                    show_id(base)
                ),
                None => write!(
                    f,
                    "graph output {} is a view of {}, which was computed again after the view was last made",
                    show_id(tensor),
                    show_id(base)
                ),
            },
            Error::Infeasible {
                limit,
                least,
                bound,
                op,
            } => {
                let fb = crate::units::format::format_bytes;
                match op {
                    Some(op) if limit < bound => write!(
                        f,
                        "no schedule fits within {limit} bytes ({}): op {} needs {bound} bytes ({}) while it runs (its inputs, outputs and workspace, and what is never freed) whatever is recomputed; the least limit found is {least} bytes ({})",
                        fb(*limit),
                        show_id(op),
                        fb(*bound),
                        fb(*least)
                    ),
                    _ => write!(
                        f,
                        "no schedule found within {limit} bytes ({}); the least limit found is {least} bytes ({}), and none below {bound} bytes ({}) exists",
                        fb(*limit),
                        fb(*least),
                        fb(*bound)
                    ),
                }
            }
            Error::BadLimit { value, reason } => {
                write!(f, "bad byte count {}: {reason}", show_id(value))
            }
            Error::UnknownMethod { name, known } => {
                write!(
                    f,
                    "unknown method {}: expected one of {known}",
                    show_id(name)
                )
            }
            Error::NotApplicable { method, reason } => {
                write!(f, "method {method} does not apply: {reason}")
            }
            Error::TooLarge { what } => write!(f, "graph too large: {what}"),
            Error::BadRegion { region, reason } => {
                write!(f, "fusion region {}: {reason}", show_id(region))
            }
            Error::RegionCycle { ops } => write!(
                f,
                "fusing these regions would form a cycle: {}",
                show_ids(ops)
            ),
            Error::PeakLimit { limit, best } => write!(
                f,
                "no fusion found keeps the peak within {limit} bytes ({}); the lowest peak found is {best} bytes ({})",
                crate::units::format::format_bytes(*limit),
                crate::units::format::format_bytes(*best)
            ),
            Error::BadLayout { what, reason } => write!(f, "layout of {what}: {reason}"),
            Error::BadCsv { line, reason } => write!(f, "line {line}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}
