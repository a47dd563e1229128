//! After any failure the module still answers.
//!
//! Bad input never gets this far: it is validated and thrown as `RangeError`/`TypeError`. What
//! is left is a bug (a panic) or wasm memory running out (an allocation the 4 GiB address space
//! cannot hold). With `panic = "abort"` either one traps, and a trapped instance is not safe to
//! call again: the trap skips the code that pops the shadow stack, so every trap leaks stack,
//! and a panic may leave a model half updated. So both paths *schedule a reinitialisation*
//! (`wasm_bindgen::handler::schedule_reinit`): the call that failed throws, and the next call
//! into the module first replaces the instance with a fresh one from the same compiled module
//! (new memory, new stack). Objects made before it (`TailRun`, `TailRunBuilder`) then throw
//! "Invalid stale object from previous Wasm instance" instead of reading freed memory.
//!
//! Both hooks tell the page: `console.error`, and `globalThis.tailLabOnPanic(message)` when the
//! page defines it.
//!
//! The allocator also counts the live heap (`heapBytes()`), which is what the soak test checks
//! for leaks: wasm memory's size only grows, and moves in 64 KB pages.

use std::sync::atomic::{AtomicUsize, Ordering};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
    #[wasm_bindgen(js_namespace = globalThis, js_name = tailLabOnPanic, catch)]
    fn report_to_page(message: &str) -> Result<(), JsValue>;
}

/// Tells the page, and asks for a fresh instance before the next call.
fn fail(message: &str) {
    wasm_bindgen::handler::schedule_reinit();
    console_error(message);
    let _ = report_to_page(message);
}

/// The panic hook: report the panic and schedule the reset.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message =
            format!("tail-lab: internal error: {info} (the module is reset before the next call)");
        fail(&message);
    }));
}

/// The system allocator, telling the page and scheduling a reset when wasm memory runs out
/// (an allocation failure aborts without running the panic hook), and counting the bytes it
/// has handed out and not had back ([`heap_bytes`]). The message is static: the allocator that
/// just failed is not asked for more.
struct ResettingAllocator;

/// Bytes allocated and not yet freed. Atomic only to be a safe `static`: wasm32 here has one
/// thread, and the counter is a plain add.
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Bytes the module has allocated and not freed (its live heap), for leak checks and for pages
/// that watch memory. Wasm memory's size also counts free blocks, the stack and data, and only
/// grows; this number goes down again when objects are freed. A fresh instance after a reset
/// starts again from its own count.
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    LIVE_BYTES.load(Ordering::Relaxed) as f64
}

const OUT_OF_MEMORY: &str = "tail-lab: out of wasm memory (the module is reset before the next call; \
     objects made before it can no longer be used)";

// SAFETY: every method forwards to `std::alloc::System` with the caller's own arguments, so the
// `GlobalAlloc` contract holds exactly as it does for `System`; on a null return it only calls
// into JS (no allocation) before returning the null.
unsafe impl std::alloc::GlobalAlloc for ResettingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract (non-zero size), passed on unchanged.
        let ptr = unsafe { std::alloc::System.alloc(layout) };
        counted(ptr, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { std::alloc::System.alloc_zeroed(layout) };
        counted(ptr, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with this `layout`.
        unsafe { std::alloc::System.dealloc(ptr, layout) };
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller upholds `realloc`'s contract.
        let new = unsafe { std::alloc::System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // The old block is gone; `counted` adds the new one.
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        counted(new, new_size)
    }
}

/// Counts a block of `size` bytes just handed out, or reports running out of memory when the
/// allocation failed (`ptr` null); returns `ptr`.
fn counted(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        fail(OUT_OF_MEMORY);
    } else {
        LIVE_BYTES.fetch_add(size, Ordering::Relaxed);
    }
    ptr
}

#[global_allocator]
static ALLOCATOR: ResettingAllocator = ResettingAllocator;

/// Failure injection for the recovery tests, in test builds only (`--features fault-injection`;
/// the shipped module has no such export): a panic.
///
/// The injectors take no arguments on purpose: wasm-bindgen 0.2.130 copies string and slice
/// arguments into memory *before* its reset check, so after a reset they would point into the
/// old instance's memory. No shipped export takes such an argument (options cross as
/// `externref`, numbers as numbers); `tests/js/package.test.mjs` checks the generated glue.
#[cfg(feature = "fault-injection")]
#[wasm_bindgen(js_name = injectPanic)]
pub fn inject_panic() {
    panic!("injected fault");
}

/// Failure injection, test builds only: allocates 512 MiB blocks until wasm memory runs out.
#[cfg(feature = "fault-injection")]
#[wasm_bindgen(js_name = injectOutOfMemory)]
pub fn inject_out_of_memory() {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut block = Vec::with_capacity(512 << 20);
        block.push(1u8);
        blocks.push(block);
    }
}
