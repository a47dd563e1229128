//! Station clocks: the next event of each of `n` stations, at most one each, earliest first.

/// An event's place in the order every queue in [`crate::des`] pops in: earlier time first
/// ([`f64::total_cmp`], so even a NaN has a place), then lower sequence number (the order
/// events were scheduled in). One integer, so comparing two is one comparison with no branch.
///
/// A model that keeps some events beside an [`crate::des::EventQueue`] (the one pending
/// arrival, a FIFO of timers due in the order they were set, [`StationClocks`]) and numbers
/// them all from one counter pops them, by their keys, in the order one queue would.
///
/// ```
/// use tail_lab_core::des::EventKey;
/// let a = EventKey::new(1.5, 7);
/// assert!(a < EventKey::new(1.5, 8) && a < EventKey::new(2.0, 1));
/// assert!(EventKey::new(-0.0, 9) < EventKey::new(0.0, 1)); // total_cmp's order
/// assert_eq!((a.time(), a.seq()), (1.5, 7));
/// assert!(a < EventKey::NONE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKey(u128);

impl EventKey {
    /// No event: after every real one (the greatest NaN in [`f64::total_cmp`]'s order and
    /// the sequence number `u64::MAX`, which no counter reaches).
    pub const NONE: EventKey = EventKey(u128::MAX);

    /// The key of an event at `time` with sequence number `seq` (below `u64::MAX`).
    #[inline(always)]
    pub fn new(time: f64, seq: u64) -> Self {
        // `f64::total_cmp`'s signed key, then its sign bit flipped: an unsigned key in the
        // same order.
        let bits = time.to_bits() as i64;
        let ordered = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
        let unsigned = (ordered as u64) ^ (1 << 63);
        EventKey((u128::from(unsigned) << 64) | u128::from(seq))
    }

    /// The event's time (bit for bit the one it was made with).
    #[inline(always)]
    pub fn time(self) -> f64 {
        let ordered = (((self.0 >> 64) as u64) ^ (1 << 63)) as i64;
        // The same map again: it keeps the sign bit, so it is its own inverse.
        f64::from_bits((ordered ^ ((((ordered >> 63) as u64) >> 1) as i64)) as u64)
    }

    /// The event's sequence number.
    #[inline(always)]
    pub fn seq(self) -> u64 {
        self.0 as u64
    }

    /// False for [`EventKey::NONE`].
    #[inline(always)]
    pub fn is_some(self) -> bool {
        self != Self::NONE
    }
}

/// One pending event per station (a replica's next completion, a server's next departure),
/// stamped with a time and a sequence number, and the earliest of them in O(1).
///
/// A winner tree: each internal node holds the station whose event pops first below it, so
/// setting or clearing one station's event is `log2(n)` comparisons on the path to the root,
/// with no allocation and no stale entries (a new event replaces the old one). Ties pop in
/// sequence order, as in [`crate::des::EventQueue`].
///
/// ```
/// use tail_lab_core::des::StationClocks;
/// let mut clocks = StationClocks::new(3);
/// assert_eq!(clocks.peek(), None);
/// clocks.set(2, 5.0, 1);
/// clocks.set(0, 7.0, 2);
/// clocks.set(1, 5.0, 3); // same time as station 2, scheduled later
/// assert_eq!(clocks.peek(), Some((2, 5.0, 1)));
/// clocks.clear(2);
/// assert_eq!(clocks.peek(), Some((1, 5.0, 3)));
/// clocks.set(1, 9.0, 4); // replaces station 1's event
/// assert_eq!(clocks.peek(), Some((0, 7.0, 2)));
/// ```
#[derive(Debug, Clone)]
pub struct StationClocks {
    /// Leaves: `n` rounded up to a power of two.
    leaves: usize,
    /// For each node (1 the root, node `i`'s children `2i` and `2i + 1`, leaf `s` at
    /// `leaves + s`): the key of the first event below it, and its station.
    key: Vec<EventKey>,
    station: Vec<u32>,
}

impl StationClocks {
    /// `stations` (≥ 1) stations with no event.
    pub fn new(stations: usize) -> Self {
        assert!(stations >= 1, "clocks need a station");
        let leaves = stations.next_power_of_two();
        let mut station = vec![0u32; 2 * leaves];
        for s in 0..leaves {
            station[leaves + s] = u32::try_from(s).expect("at most 2^32 stations");
        }
        // Every leaf is empty, so each node's first is its leftmost leaf.
        for node in (1..leaves).rev() {
            station[node] = station[2 * node];
        }
        StationClocks {
            leaves,
            key: vec![EventKey::NONE; 2 * leaves],
            station,
        }
    }

    /// Station `station`'s event is now at `time`, sequence number `seq` (below `u64::MAX`),
    /// replacing any it had.
    #[inline]
    pub fn set(&mut self, station: usize, time: f64, seq: u64) {
        debug_assert!(seq != u64::MAX);
        self.replay(station, EventKey::new(time, seq));
    }

    /// Station `station` has no event.
    #[inline]
    pub fn clear(&mut self, station: usize) {
        self.replay(station, EventKey::NONE);
    }

    /// The station whose event pops first, with its time and sequence number; `None` when no
    /// station has one.
    #[inline]
    pub fn peek(&self) -> Option<(usize, f64, u64)> {
        let (station, key) = self.first();
        key.is_some().then(|| (station, key.time(), key.seq()))
    }

    /// The station whose event pops first and that event's key ([`EventKey::NONE`] when no
    /// station has one).
    #[inline(always)]
    pub fn first(&self) -> (usize, EventKey) {
        (self.station[1] as usize, self.key[1])
    }

    /// Sets a leaf's key and replays the matches on its path to the root. The winner so far
    /// is carried up and meets each sibling on the way; the one that pops first is picked by
    /// index arithmetic, not a branch (which side wins is a coin flip).
    #[inline]
    fn replay(&mut self, station: usize, key: EventKey) {
        assert!(
            station < self.leaves,
            "station {station} of {}",
            self.leaves
        );
        let mut node = self.leaves + station;
        self.key[node] = key;
        self.station[node] = station as u32;
        let (keys, stations) = (&mut self.key[..], &mut self.station[..]);
        debug_assert!(keys.len() == 2 * self.leaves && stations.len() == 2 * self.leaves);
        while node > 1 {
            // Real events never tie (their sequence numbers differ); between two empty
            // subtrees either will do, since an empty key is never chosen.
            // SAFETY: `node` starts below `2 · leaves` (the station was checked above), the
            // length of both arrays, and only halves; `node ^ 1` and `node ^ 0/1` stay
            // below the same power of two, and `node >> 1` below `node`.
            unsafe {
                let sibling = node ^ 1;
                let winner =
                    node ^ usize::from(keys.get_unchecked(sibling) < keys.get_unchecked(node));
                let (key, station) = (*keys.get_unchecked(winner), *stations.get_unchecked(winner));
                node >>= 1;
                *keys.get_unchecked_mut(node) = key;
                *stations.get_unchecked_mut(node) = station;
            }
        }
    }
}
