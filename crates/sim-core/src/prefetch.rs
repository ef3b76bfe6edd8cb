//! A cache hint: start loading the line that holds a value the loop will soon read.
//!
//! At scale (a k = 32 fat-tree: tens of thousands of ports and flows) almost every packet hop
//! reads state no cache holds, and each read waits on the one before it (the event names the
//! port, the port the packet, the packet the next port). Loading what the *coming* events
//! touch while the current one runs overlaps those waits. A hint changes no result.

/// Asks the CPU to bring the cache line holding `value` into the first-level cache. A no-op
/// where the architecture has no such hint.
#[inline(always)]
pub fn prefetch<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no effect a program can observe, whatever the
    // address; `value` is not dereferenced.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(value.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// [`prefetch`] for every cache line of the `bytes` bytes starting at `value`.
#[inline(always)]
pub fn prefetch_bytes<T>(value: *const T, bytes: usize) {
    let start = value.cast::<u8>();
    let mut offset = 0;
    while offset < bytes {
        prefetch(start.wrapping_add(offset));
        offset += 64;
    }
}
