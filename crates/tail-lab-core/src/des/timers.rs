//! Timers that leave when cancelled: pending events, each with a payload, earliest first.

use super::{EventKey, Slab, SlotKey};

/// Pending timers, each due at an [`EventKey`] (a time and a sequence number) with a payload
/// `T`, popped earliest first, and cancelled by the [`SlotKey`] setting them returned.
///
/// A binary min-heap whose entries know their place, so a cancelled timer leaves at once
/// (O(log n)) instead of waiting in the heap to be popped and ignored: what the timers hold
/// follows the timers still pending, not every timer set over the last delay. Setting and
/// popping are O(log n); the earliest is read in O(1). Timers due at the same time pop in
/// sequence order, as in [`crate::des::EventQueue`]; the caller numbers them (from the counter
/// it numbers its other events from, so they all pop as one queue would).
///
/// ```
/// use tail_lab_core::des::{EventKey, Timers};
/// let mut timers = Timers::new();
/// let late = timers.set(EventKey::new(9.0, 1), "late");
/// let soon = timers.set(EventKey::new(2.0, 2), "soon");
/// timers.set(EventKey::new(2.0, 3), "soon, second");
/// assert_eq!(timers.cancel(soon), Some("soon"));
/// assert_eq!(timers.cancel(soon), None, "cancelled already");
/// assert_eq!(timers.first(), EventKey::new(2.0, 3));
/// assert_eq!(timers.pop(), Some((EventKey::new(2.0, 3), "soon, second")));
/// assert_eq!((timers.len(), timers.pop().map(|(_, t)| t)), (1, Some("late")));
/// assert_eq!((timers.first(), timers.cancel(late)), (EventKey::NONE, None));
/// ```
#[derive(Debug, Clone)]
pub struct Timers<T> {
    /// The heap: each pending timer's key and name, the earliest at 0, node `i`'s children at
    /// `2i + 1` and `2i + 2`.
    heap: Vec<(EventKey, SlotKey)>,
    /// Each pending timer's payload and place in the heap.
    timers: Slab<(T, usize)>,
}

impl<T> Default for Timers<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Timers<T> {
    /// No timer.
    pub fn new() -> Self {
        Timers {
            heap: Vec::new(),
            timers: Slab::new(),
        }
    }

    /// Timers pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The earliest pending timer's key ([`EventKey::NONE`] when none is).
    #[inline]
    pub fn first(&self) -> EventKey {
        self.heap.first().map_or(EventKey::NONE, |&(key, _)| key)
    }

    /// Sets a timer due at `key` (not [`EventKey::NONE`]) carrying `payload`; the returned
    /// name cancels it, and goes stale when it fires or is cancelled.
    #[inline]
    pub fn set(&mut self, key: EventKey, payload: T) -> SlotKey {
        debug_assert!(key.is_some());
        let at = self.heap.len();
        let name = self.timers.insert((payload, at));
        self.heap.push((key, name));
        self.sift_up(at);
        name
    }

    /// Removes and returns the earliest timer, with its key (`None` when none is pending).
    #[inline]
    pub fn pop(&mut self) -> Option<(EventKey, T)> {
        let &(key, name) = self.heap.first()?;
        let payload = self.take(0);
        debug_assert!(self.timers.get(name).is_none());
        Some((key, payload))
    }

    /// Cancels the timer `name` names and returns its payload; `None`, and nothing changes,
    /// when it has fired or was cancelled already.
    #[inline]
    pub fn cancel(&mut self, name: SlotKey) -> Option<T> {
        let &(_, at) = self.timers.get(name)?;
        Some(self.take(at))
    }

    /// Removes the timer at heap place `at`: the last entry fills its place and moves up or
    /// down to where it belongs.
    fn take(&mut self, at: usize) -> T {
        let (_, name) = self.heap.swap_remove(at);
        if at < self.heap.len() {
            self.place(at);
            self.sift_up(at);
            self.sift_down(at);
        }
        let (payload, _) = self.timers.remove(name).expect("a pending timer");
        payload
    }

    /// Records in its timer that heap entry `at` is at `at`.
    #[inline(always)]
    fn place(&mut self, at: usize) {
        let name = self.heap[at].1;
        self.timers.get_mut(name).expect("a pending timer").1 = at;
    }

    fn sift_up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if self.heap[parent].0 <= self.heap[at].0 {
                break;
            }
            self.heap.swap(parent, at);
            self.place(at);
            at = parent;
        }
        self.place(at);
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let left = 2 * at + 1;
            if left >= self.heap.len() {
                break;
            }
            let right = left + 1;
            let child = if right < self.heap.len() && self.heap[right].0 < self.heap[left].0 {
                right
            } else {
                left
            };
            if self.heap[at].0 <= self.heap[child].0 {
                break;
            }
            self.heap.swap(child, at);
            self.place(at);
            at = child;
        }
        self.place(at);
    }
}
