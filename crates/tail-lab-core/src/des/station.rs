//! The FIFO station: servers in front of one first-come-first-served queue.

use super::Ring;

/// `servers` identical servers sharing one first-come-first-served queue of jobs `J` (a
/// replica is a station with one server; an M/M/c queue one with `c`). Each server holds the
/// job it serves, or none.
///
/// The station keeps no clock and draws nothing: the model decides when a job's service ends
/// and schedules that itself. A job is pushed on the queue and started by
/// [`FifoStation::start_next`] when a server is (or becomes) free. Jobs may be cancelled
/// lazily: `start_next` skips queued jobs its `ready` test rejects, so cancelling a waiting
/// job costs nothing until it reaches the head.
///
/// Invariant kept by every model that starts a job whenever a server is idle: an idle server
/// means no ready job is queued, so a job pushed onto a station with an idle server is the
/// next one started there.
///
/// ```
/// use tail_lab_core::des::FifoStation;
/// let mut two = FifoStation::new(2);
/// for job in [1, 2, 3] {
///     two.push(job);
///     if let Some(server) = two.idle_server() {
///         two.start_next(server, |_| true);
///     }
/// }
/// assert_eq!((two.serving(0), two.serving(1), two.waiting()), (Some(1), Some(2), 1));
/// // Server 0 finishes job 1 and takes job 3.
/// assert_eq!(two.start_next(0, |_| true), Some(3));
/// ```
#[derive(Debug, Clone)]
pub struct FifoStation<J> {
    queue: Ring<J>,
    serving: Vec<Option<J>>,
}

impl<J: Copy> FifoStation<J> {
    /// A station of `servers` (≥ 1) idle servers and an empty queue.
    pub fn new(servers: usize) -> Self {
        assert!(servers >= 1, "a station needs a server");
        FifoStation {
            queue: Ring::new(),
            serving: vec![None; servers],
        }
    }

    /// How many servers the station has.
    pub fn servers(&self) -> usize {
        self.serving.len()
    }

    /// The job server `server` is serving, if any.
    #[inline]
    pub fn serving(&self, server: usize) -> Option<J> {
        self.serving[server]
    }

    /// The first idle server (lowest index), if any. O(servers).
    #[inline]
    pub fn idle_server(&self) -> Option<usize> {
        self.serving.iter().position(Option::is_none)
    }

    /// Servers serving a job. O(servers).
    pub fn busy(&self) -> usize {
        self.serving.iter().filter(|s| s.is_some()).count()
    }

    /// Jobs in the queue, cancelled ones not yet skipped included.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Puts `job` at the back of the queue.
    #[inline]
    pub fn push(&mut self, job: J) {
        self.queue.push_back(job);
    }

    /// Server `server` is done with its job (finished or abandoned), if it had one: it takes
    /// the first queued job `ready` accepts and returns it, or goes idle and returns `None`.
    /// Queued jobs `ready` rejects before that one are dropped from the queue.
    #[inline]
    pub fn start_next(&mut self, server: usize, mut ready: impl FnMut(J) -> bool) -> Option<J> {
        while let Some(job) = self.queue.pop_front() {
            if ready(job) {
                self.serving[server] = Some(job);
                return Some(job);
            }
        }
        self.serving[server] = None;
        None
    }
}
