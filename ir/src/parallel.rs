//! Independent pieces of work (the functions of a module, once what the
//! module as a whole says is known) spread over threads, with results
//! that do not depend on the threads: each piece's result is a function of
//! that piece alone, and the results come back in the pieces' order.
//!
//! The heaviest pieces are started first (longest processing time first,
//! Graham 1969), so that a long function does not run alone at the end.

use std::sync::Mutex;

/// Work smaller than this (in the caller's unit of weight, instructions)
/// runs on the calling thread: threads would cost more than they save.
pub const PARALLEL_MIN_WEIGHT: usize = 16_384;

/// `items.map(work)` on up to `threads` threads (one if `threads` is 0),
/// in `items`' order. Each thread makes its own scratch state with
/// `scratch` and hands it to every piece it runs, so buffers are reused
/// from one piece to the next. A panic in `work` is resumed on the calling
/// thread.
pub fn map_in_order<T, S, R>(
    items: Vec<T>,
    weight: impl Fn(&T) -> usize,
    threads: usize,
    scratch: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, T) -> R + Sync,
) -> Vec<R>
where
    T: Send,
    R: Send,
{
    let total: usize = items.iter().map(&weight).sum();
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 || total < PARALLEL_MIN_WEIGHT {
        let mut state = scratch();
        return items
            .into_iter()
            .map(|item| work(&mut state, item))
            .collect();
    }
    let mut queue: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    // Heaviest first, equal weights in order. Which thread takes a piece
    // depends on timing; what the piece gives does not.
    queue.sort_by_key(|(index, item)| (std::cmp::Reverse(weight(item)), *index));
    let queue = Mutex::new(queue.into_iter());
    let (queue, scratch, work) = (&queue, &scratch, &work);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(move || {
                    let mut state = scratch();
                    let mut done = Vec::new();
                    // The lock is held only to take the next piece; a
                    // poisoned lock means another worker panicked, which
                    // its join reports.
                    while let Some((index, item)) = queue.lock().ok().and_then(|mut q| q.next()) {
                        done.push((index, work(&mut state, item)));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| match worker.join() {
                Ok(done) => done,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, result)| result).collect()
}

/// `(a(), b())`, with `b` on a thread of its own while `a` runs on this
/// one (on this one after `a` when the system refuses a thread). A panic
/// in `b` is resumed on the calling thread.
pub fn join<A, B>(a: impl FnOnce() -> A, b: impl FnOnce() -> B + Send) -> (A, B)
where
    B: Send,
{
    // `b` waits here until a thread takes it, so that it is still at hand
    // when the thread cannot be made.
    let b = Mutex::new(Some(b));
    let run_b = || {
        let b = b.lock().ok().and_then(|mut b| b.take());
        b.map(|b| b())
    };
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, run_b);
        let first = a();
        let second = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => run_b(),
        };
        (first, second.expect("`b` ran once"))
    })
}

/// The threads to use by default: what the machine offers.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_gives_both_results_and_resumes_a_panic_of_the_second() {
        let words = ["a", "b"];
        assert_eq!(
            join(|| words.len(), || words.concat()),
            (2, "ab".to_string())
        );
        let panicked = std::panic::catch_unwind(|| join(|| 1, || -> u32 { panic!("in b") }));
        assert!(panicked.is_err());
    }

    #[test]
    fn results_come_back_in_order_on_any_number_of_threads() {
        let items: Vec<usize> = (0..200).map(|i| (i * 7919) % 1000).collect();
        let expected: Vec<usize> = items.iter().map(|x| x * 2).collect();
        for threads in [1, 2, 3, 8] {
            let got = map_in_order(
                items.clone(),
                |&x| x * PARALLEL_MIN_WEIGHT,
                threads,
                || 0usize,
                |count, x| {
                    *count += 1;
                    x * 2
                },
            );
            assert_eq!(got, expected, "{threads} threads");
        }
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let outcome = std::panic::catch_unwind(|| {
            map_in_order(
                vec![1usize, 2, 3],
                |_| PARALLEL_MIN_WEIGHT,
                2,
                || (),
                |_, x| assert_ne!(x, 2, "piece 2 fails"),
            )
        });
        assert!(outcome.is_err());
    }
}
