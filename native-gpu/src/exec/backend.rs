//! What a backend does for the driver loop ([`Backend`]) and the places it allocates ([`Slot`]).

use super::error::ExecError;
use super::kernel::Kernel;

/// A place the driver allocates: a storage (indexed by its root tensor) or the running op's
/// workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    Storage(u32),
    Workspace,
}

/// What a backend does for the driver loop. Every method is told exactly which storage to touch;
/// a backend makes no memory decisions of its own.
pub trait Backend {
    /// A line describing the device and its allocator, for reports.
    fn describe(&self) -> String;
    /// Called once before a run with every size the run will allocate, so a backend can learn
    /// its allocator's rounding before measuring.
    fn prepare(&mut self, sizes: &[u64]) -> Result<(), ExecError>;
    /// Bytes the allocator really takes for a request of `bytes` (its documented rounding).
    fn charge(&self, bytes: u64) -> u64;
    /// Starts a measurement: nothing is allocated; the high-water mark is reset.
    fn reset_peak(&mut self) -> Result<(), ExecError>;
    /// Allocates `bytes` for `slot`. `what` names what it is for, e.g. `op "mm1_0"`, for
    /// error messages.
    fn alloc(&mut self, slot: Slot, bytes: u64, what: &dyn Fn() -> String)
        -> Result<(), ExecError>;
    /// Frees `slot`'s memory.
    fn free(&mut self, slot: Slot) -> Result<(), ExecError>;
    /// Writes `data` at the start of storage `slot`.
    fn upload(&mut self, slot: Slot, data: &[u8]) -> Result<(), ExecError>;
    /// Runs one op's kernel.
    fn launch(&mut self, kernel: &Kernel) -> Result<(), ExecError>;
    /// Waits until everything launched has finished.
    fn sync(&mut self) -> Result<(), ExecError>;
    /// The allocator's high-water mark since [`Backend::reset_peak`].
    fn peak(&mut self) -> Result<u64, ExecError>;
    /// Reads the first `bytes` bytes of `slot`.
    fn download(&mut self, slot: Slot, bytes: u64) -> Result<Vec<u8>, ExecError>;
    /// Frees everything still allocated (graph outputs, pinned inputs, or all of it after an
    /// error). Must be safe to call more than once.
    fn free_all(&mut self);

    /// Arena mode: the alignment every offset in the arena must have, or `None` when the
    /// backend has no arena mode.
    fn arena_align(&self) -> Option<u64> {
        None
    }
    /// Arena mode: allocates the one buffer of `bytes` that every storage and workspace of the
    /// run is then placed in (counted like any allocation).
    fn open_arena(&mut self, _bytes: u64, _what: &dyn Fn() -> String) -> Result<(), ExecError> {
        Err(ExecError::BadInput(format!(
            "{} has no arena mode",
            self.describe()
        )))
    }
    /// Arena mode: binds `slot` to `bytes` bytes at `offset` in the arena (nothing is
    /// allocated); [`Backend::free`] unbinds it.
    fn place(&mut self, slot: Slot, _offset: u64, _bytes: u64) -> Result<(), ExecError> {
        Err(ExecError::Internal(format!(
            "{slot:?} placed with no arena mode"
        )))
    }
}
