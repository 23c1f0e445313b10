//! The wasm heap: dlmalloc (the allocator std uses on wasm32) over a system layer that grows
//! linear memory geometrically.
//!
//! std's layer grows memory by just what each request needs. When V8 cannot grow a memory in
//! place (no guard-region reservation, as on this project's machines) every `memory.grow` copies
//! the whole memory: a graph that needs 500 MiB then costs thousands of copies (the first plan of
//! a 200,000-op chain took ~17 s, the second ~0.5 s). Growing by at least the current size keeps
//! the copying linear in the final size.

use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;
use std::alloc::{GlobalAlloc, Layout};

use dlmalloc::{Allocator, Dlmalloc};

const PAGE: usize = 64 * 1024;
/// Largest single step (1 GiB): past that, grow by what is needed, not by doubling, so the last
/// steps do not ask for more of the 4 GiB address space than the graph needs.
const MAX_STEP_PAGES: usize = (1 << 30) / PAGE;

struct DoublingMemory;

// SAFETY: regions come from `memory.grow`, are never handed out twice and are never released.
unsafe impl Allocator for DoublingMemory {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let need = size.div_ceil(PAGE);
        let want = need.max(wasm32::memory_size(0).min(MAX_STEP_PAGES));
        for pages in [want, need] {
            let prev = wasm32::memory_grow(0, pages);
            if prev != usize::MAX {
                return ((prev * PAGE) as *mut u8, pages * PAGE, 0);
            }
        }
        (ptr::null_mut(), 0, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

/// The global allocator.
pub struct Heap(UnsafeCell<Dlmalloc<DoublingMemory>>);

// SAFETY: wasm32-unknown-unknown (built without the atomics feature) runs one thread, so the
// allocator is never entered concurrently.
unsafe impl Sync for Heap {}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).malloc(layout.size(), layout.align())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        (*self.0.get()).calloc(layout.size(), layout.align())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        (*self.0.get()).free(ptr, layout.size(), layout.align())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size)
    }
}

#[global_allocator]
static HEAP: Heap = Heap(UnsafeCell::new(Dlmalloc::new_with_allocator(
    DoublingMemory,
)));
