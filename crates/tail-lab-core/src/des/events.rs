//! The event queue: a binary min-heap on `(time, sequence number)`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Events of type `E`, each due at a time, popped earliest first.
///
/// Events due at the same time pop in the order they were scheduled (first in, first out): each
/// gets a sequence number, and the heap orders on `(time, sequence)`. Times are compared with
/// [`f64::total_cmp`], so even a NaN time has a place and cannot break the heap's order.
///
/// ```
/// use tail_lab_core::des::EventQueue;
/// let mut events = EventQueue::new();
/// events.schedule(2.0, "late");
/// events.schedule(1.0, "early");
/// events.schedule(1.0, "early, second");
/// assert_eq!(events.pop(), Some((1.0, "early")));
/// assert_eq!(events.pop(), Some((1.0, "early, second")));
/// assert_eq!(events.pop(), Some((2.0, "late")));
/// assert_eq!(events.pop(), None);
/// ```
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Scheduled<E>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            seq: 0,
        }
    }

    /// Schedules `event` at `time`, after every event already scheduled at that same time.
    #[inline]
    pub fn schedule(&mut self, time: f64, event: E) {
        self.seq += 1;
        self.heap.push(Scheduled {
            time,
            seq: self.seq,
            event,
        });
    }

    /// Removes and returns the earliest event and its time (`None` when none is left).
    #[inline]
    pub fn pop(&mut self) -> Option<(f64, E)> {
        self.heap.pop().map(|s| (s.time, s.event))
    }

    /// Events still scheduled, stale ones included.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no event is scheduled.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events scheduled since the queue was made: a measure of a run's work.
    pub fn scheduled(&self) -> u64 {
        self.seq
    }
}

/// An event with its time and sequence number; ordered so the max-heap pops the minimum.
#[derive(Debug, Clone)]
struct Scheduled<E> {
    time: f64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Scheduled<E> {}
impl<E> Ord for Scheduled<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: the heap's greatest is the earliest time, then the lowest sequence.
        other
            .time
            .total_cmp(&self.time)
            .then(other.seq.cmp(&self.seq))
    }
}
impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
