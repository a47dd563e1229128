//! Timers that come due in the order they are set: a fixed delay after events in time order.

use super::{EventKey, Ring};

/// Pending timers, each due at an [`EventKey`] with a payload `T`, that come due in the order
/// they were set: what a fixed delay after each of a run's events gives (a hedge timer a fixed
/// delay after its request's arrival, a cancellation a fixed delay after its answer), since
/// the events come in time order and the keys' sequence numbers grow. So a FIFO ([`Ring`])
/// holds them in due order, with no heap: set and pop are O(1). A timer set out of order is a
/// bug (a debug assertion); timers whose delays differ belong in [`crate::des::Timers`].
///
/// A timer cannot be cancelled: one that would do nothing when due is dropped when it reaches
/// the front ([`FifoTimers::drop_front_while`]), so the memory follows the timers set over the
/// last delay.
///
/// ```
/// use tail_lab_core::des::{EventKey, FifoTimers};
/// let mut timers = FifoTimers::new();
/// timers.set(EventKey::new(1.0, 1), 'a');
/// timers.set(EventKey::new(1.0, 2), 'b');
/// timers.set(EventKey::new(3.0, 5), 'c');
/// assert_eq!(timers.first(), EventKey::new(1.0, 1));
/// timers.drop_front_while(|&p| p == 'a');
/// assert_eq!(timers.pop(), Some((EventKey::new(1.0, 2), 'b')));
/// assert_eq!((timers.len(), timers.front(), timers.first().time()), (1, Some(&'c'), 3.0));
/// ```
#[derive(Debug, Clone)]
pub struct FifoTimers<T> {
    ring: Ring<(EventKey, T)>,
}

impl<T: Copy> Default for FifoTimers<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> FifoTimers<T> {
    /// No timer.
    pub const fn new() -> Self {
        FifoTimers { ring: Ring::new() }
    }

    /// Timers pending.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    /// True when no timer is pending.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// Sets a timer due at `key`, which must come after every pending timer's.
    #[inline]
    pub fn set(&mut self, key: EventKey, payload: T) {
        debug_assert!(key.is_some());
        debug_assert!(
            self.ring.is_empty() || self.ring[self.ring.len() - 1].0 < key,
            "a FIFO timer set out of due order"
        );
        self.ring.push_back((key, payload));
    }

    /// The first timer's key ([`EventKey::NONE`] when none is pending).
    #[inline(always)]
    pub fn first(&self) -> EventKey {
        self.ring.front().map_or(EventKey::NONE, |&(key, _)| key)
    }

    /// The first timer's payload.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.ring.front().map(|(_, payload)| payload)
    }

    /// Removes and returns the first timer, with its key.
    #[inline]
    pub fn pop(&mut self) -> Option<(EventKey, T)> {
        self.ring.pop_front()
    }

    /// Drops timers from the front while `idle` says their payload would do nothing when due.
    #[inline]
    pub fn drop_front_while(&mut self, mut idle: impl FnMut(&T) -> bool) {
        while let Some((_, payload)) = self.ring.front() {
            if !idle(payload) {
                return;
            }
            self.ring.pop_front();
        }
    }
}
