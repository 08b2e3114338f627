//! Large output buffers backed by huge pages where the kernel offers them.
//!
//! glibc serves an allocation of 32 MiB or more (its largest mmap threshold) with a fresh
//! mapping every time, whose 4 KiB pages each fault once as they are first written: the
//! 42 MB reserved for the TOON of 100k nested rows parsed from JSON (25 MB written) took
//! 6,100 faults a call, a third of the encoder's time on this 2-core VM (33 → 22 ms once
//! advised). Advised `MADV_HUGEPAGE`, such a buffer faults once per 2 MiB. Smaller buffers
//! come from the heap, whose pages are reused from call to call: left alone. The advice
//! changes neither the memory nor what the process may do with it; a kernel with
//! transparent huge pages off ignores it (docs/DECISIONS.md, "JSON output").

/// Buffers below this many bytes are left as they are (glibc's `DEFAULT_MMAP_THRESHOLD_MAX`
/// on 64-bit).
const HUGE_MIN: usize = 32 << 20;

/// A huge page's size (x86-64; aarch64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Reserves room for `additional` more elements in `buf`, as `Vec::reserve` does; when that
/// makes a buffer of 32 MiB or more, asks the kernel to back its 2 MiB-aligned middle with
/// huge pages. Output bytes, or any other plain elements (a binding's UTF-16 units).
pub fn reserve_output<T: Copy>(buf: &mut Vec<T>, additional: usize) {
    let before = buf.capacity();
    buf.reserve(additional);
    if buf.capacity() != before {
        let bytes = buf.capacity().saturating_mul(std::mem::size_of::<T>());
        advise_huge(buf.as_mut_ptr().cast::<u8>(), bytes);
    }
}

/// A new buffer with room for `capacity` bytes, advised as by [`reserve_output`].
pub fn output_with_capacity(capacity: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    reserve_output(&mut buf, capacity);
    buf
}

/// Advises the 2 MiB-aligned part of the `len` bytes at `ptr` (one allocation) for huge
/// pages, when `len` is at least [`HUGE_MIN`].
#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, len: usize) {
    if len < HUGE_MIN {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize).saturating_add(len) / HUGE_PAGE * HUGE_PAGE;
    if end <= start {
        return;
    }
    // SAFETY: `[start, end)` is page-aligned and lies inside the allocation of `len` bytes at
    // `ptr`, which the caller owns. `MADV_HUGEPAGE` is advice: it changes neither the
    // memory's contents nor its mapping or protection, and when it fails (a kernel without
    // transparent huge pages) nothing changed, so its result is not needed.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

/// Elsewhere, nothing to advise.
#[cfg(not(target_os = "linux"))]
fn advise_huge(_: *mut u8, _: usize) {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The `VmFlags` of the mapping of this process that holds `addr`.
    fn flags_at(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((a, b)) = range.split_once('-')
                && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
            {
                inside = (a..b).contains(&addr);
            } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.to_owned();
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn a_large_output_buffer_is_advised_for_huge_pages_and_a_small_one_is_not() {
        let mut large = output_with_capacity(HUGE_MIN);
        assert!(large.capacity() >= HUGE_MIN);
        let middle = large.as_ptr() as usize + HUGE_MIN / 2;
        assert!(
            flags_at(middle).split_whitespace().any(|f| f == "hg"),
            "{}",
            flags_at(middle)
        );
        // Still an ordinary buffer.
        large.extend_from_slice(b"toon");
        assert_eq!(&large[..], b"toon");

        let small = output_with_capacity(HUGE_MIN / 4);
        let middle = small.as_ptr() as usize + HUGE_MIN / 8;
        assert!(!flags_at(middle).split_whitespace().any(|f| f == "hg"));

        // Grown past the threshold: advised where it now lies.
        let mut grown = Vec::<u8>::with_capacity(16);
        reserve_output(&mut grown, HUGE_MIN * 2);
        let middle = grown.as_ptr() as usize + HUGE_MIN;
        assert!(flags_at(middle).split_whitespace().any(|f| f == "hg"));

        // Elements of two bytes: the threshold is in bytes.
        let mut units = Vec::<u16>::new();
        reserve_output(&mut units, HUGE_MIN / 2);
        let middle = units.as_ptr() as usize + HUGE_MIN / 2;
        assert!(flags_at(middle).split_whitespace().any(|f| f == "hg"));
        let mut units = Vec::<u16>::new();
        reserve_output(&mut units, HUGE_MIN / 8);
        let middle = units.as_ptr() as usize + HUGE_MIN / 8;
        assert!(!flags_at(middle).split_whitespace().any(|f| f == "hg"));
    }
}
