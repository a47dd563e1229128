//! The ring: a first-in-first-out queue of `Copy` items on a power-of-two buffer.

/// Items in first-in-first-out order, indexed from the oldest, on one buffer whose length is a
/// power of two, so that an index wraps with a mask (no division, no comparison). It grows by
/// doubling when full and never shrinks: its memory follows the most items it held at once.
///
/// What a discrete-event model keeps in arrival order (a station's queue, the requests in
/// flight, timers due in the order they were set) is pushed at the back, read anywhere and
/// popped at the front.
///
/// ```
/// use tail_lab_core::des::Ring;
/// let mut ring = Ring::new();
/// for i in 0..10 {
///     ring.push_back(i);
/// }
/// assert_eq!((ring.pop_front(), ring.pop_front(), ring.len()), (Some(0), Some(1), 8));
/// ring.push_back(10);
/// assert_eq!((ring[0], ring[8], ring.front()), (2, 10, Some(&2)));
/// ```
#[derive(Debug, Clone)]
pub struct Ring<T> {
    /// Empty, or a power of two long; item `i` (from the front) at `(head + i) & mask`.
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Default for Ring<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Ring<T> {
    /// An empty ring (it allocates at its first push).
    pub const fn new() -> Self {
        Ring {
            buf: Vec::new(),
            head: 0,
            len: 0,
        }
    }

    /// Items in the ring.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the ring holds nothing.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// The buffer's slot `slot`, a masked index into a non-empty buffer.
    #[inline(always)]
    fn slot(&self, slot: usize) -> &T {
        debug_assert!(slot < self.buf.len());
        // SAFETY: every caller passes `x & self.mask()` while the buffer is non-empty (the
        // ring holds an item, or `push_back` has just grown it): its length is a power of two
        // and the mask one less, so the slot is below the length.
        unsafe { self.buf.get_unchecked(slot) }
    }

    /// [`Ring::slot`], mutably.
    #[inline(always)]
    fn slot_mut(&mut self, slot: usize) -> &mut T {
        debug_assert!(slot < self.buf.len());
        // SAFETY: as in `slot`: a masked index into a non-empty power-of-two buffer.
        unsafe { self.buf.get_unchecked_mut(slot) }
    }

    /// Puts `item` at the back.
    #[inline]
    pub fn push_back(&mut self, item: T) {
        if self.len == self.buf.len() {
            self.grow(item);
        }
        let slot = (self.head + self.len) & self.mask();
        *self.slot_mut(slot) = item;
        self.len += 1;
    }

    /// Doubles the buffer (to 8 at first), the items moved to its start in order; `fill`
    /// stands in the free slots.
    #[cold]
    fn grow(&mut self, fill: T) {
        let capacity = (2 * self.buf.len()).max(8);
        let mut buf = Vec::with_capacity(capacity);
        buf.extend((0..self.len).map(|i| self[i]));
        buf.resize(capacity, fill);
        self.buf = buf;
        self.head = 0;
    }

    /// Removes and returns the front item.
    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = *self.slot(self.head);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(item)
    }

    /// The front item.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| self.slot(self.head))
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;

    /// Item `i` from the front (`i` below [`Ring::len`]).
    #[inline]
    fn index(&self, i: usize) -> &T {
        assert!(i < self.len, "index {i} in a ring of {}", self.len);
        self.slot((self.head + i) & self.mask())
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for Ring<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        assert!(i < self.len, "index {i} in a ring of {}", self.len);
        let slot = (self.head + i) & self.mask();
        self.slot_mut(slot)
    }
}
