//! Bulk work on every core: an order-preserving parallel map over scoped threads.

use std::num::NonZeroUsize;
use std::thread;

/// Fewest items per thread: below this, starting a thread costs more than it saves.
pub const MIN_ITEMS_PER_THREAD: usize = 4;

/// `f` over `items` on up to as many threads as the machine has cores (scoped threads, one
/// contiguous chunk each), results in the order of `items`. Each thread gets its own `S`
/// (a parse buffer, say), made with `Default` and reused for its whole chunk. Small inputs,
/// a one-core machine, or a thread the OS refuses run on the calling thread instead.
///
/// ```
/// let squares = concordia_host::par::map(&[1u64, 2, 3, 4, 5, 6, 7, 8, 9], |_: &mut (), x| x * x);
/// assert_eq!(squares, [1, 4, 9, 16, 25, 36, 49, 64, 81]);
/// ```
pub fn map<T, S, R, F>(items: &[T], f: F) -> Vec<R>
where
    T: Sync,
    S: Default,
    R: Send,
    F: Fn(&mut S, &T) -> R + Sync,
{
    let cores = thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let threads = cores.min(items.len() / MIN_ITEMS_PER_THREAD).max(1);
    let serial = |chunk: &[T]| {
        let mut state = S::default();
        chunk.iter().map(|x| f(&mut state, x)).collect::<Vec<R>>()
    };
    if threads == 1 {
        return serial(items);
    }
    let chunk = items.len().div_ceil(threads);
    thread::scope(|scope| {
        let serial = &serial;
        // The first chunk runs here; the others on threads of their own.
        let mut parts = items.chunks(chunk);
        let first = parts.next().unwrap_or(&[]);
        let spawned: Vec<_> =
            parts.map(|part| (part, thread::Builder::new().spawn_scoped(scope, move || serial(part)).ok())).collect();
        let mut out = serial(first);
        for (part, handle) in spawned {
            // A thread the OS refused (or one that failed) has its chunk done here.
            match handle.map(thread::ScopedJoinHandle::join) {
                Some(Ok(results)) => out.extend(results),
                _ => out.extend(serial(part)),
            }
        }
        out
    })
}
