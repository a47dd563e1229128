//! Station clocks: the next event of each of `n` stations, at most one each, earliest first.

use std::cmp::Ordering;

/// True when an event at `(time, seq)` pops before one at `(other_time, other_seq)`: earlier
/// time ([`f64::total_cmp`]), then lower sequence number. The one order every queue in
/// [`crate::des`] pops in, so pieces can be combined: a model that keeps some events beside an
/// [`crate::des::EventQueue`] (the one pending arrival, a FIFO of timers, [`StationClocks`])
/// and numbers them from one counter pops them in the order a single queue would.
#[inline(always)]
pub fn earlier(time: f64, seq: u64, other_time: f64, other_seq: u64) -> bool {
    match time.total_cmp(&other_time) {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => seq < other_seq,
    }
}

/// No event: after every real one in [`earlier`]'s order (the greatest NaN, the greatest
/// sequence number, which no counter reaches).
const NONE_TIME: f64 = f64::from_bits(u64::MAX >> 1);
const NONE_SEQ: u64 = u64::MAX;

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
    time: Vec<f64>,
    seq: Vec<u64>,
    /// `winner[node]` for nodes `1..leaves` (node 1 the root, node `i`'s children `2i` and
    /// `2i + 1`); `winner[leaves + s] = s` for the leaves.
    winner: Vec<u32>,
}

impl StationClocks {
    /// `stations` (≥ 1) stations with no event.
    pub fn new(stations: usize) -> Self {
        assert!(stations >= 1, "clocks need a station");
        let leaves = stations.next_power_of_two();
        let mut winner = vec![0u32; 2 * leaves];
        for s in 0..leaves {
            winner[leaves + s] = u32::try_from(s).expect("at most 2^32 stations");
        }
        // Every leaf is empty, so each node's winner is its leftmost leaf.
        for node in (1..leaves).rev() {
            winner[node] = winner[2 * node];
        }
        StationClocks {
            leaves,
            time: vec![NONE_TIME; leaves],
            seq: vec![NONE_SEQ; leaves],
            winner,
        }
    }

    /// Station `station`'s event is now at `time`, sequence number `seq` (below `u64::MAX`),
    /// replacing any it had.
    #[inline]
    pub fn set(&mut self, station: usize, time: f64, seq: u64) {
        debug_assert!(seq != NONE_SEQ);
        self.time[station] = time;
        self.seq[station] = seq;
        self.replay(station);
    }

    /// Station `station` has no event.
    #[inline]
    pub fn clear(&mut self, station: usize) {
        self.time[station] = NONE_TIME;
        self.seq[station] = NONE_SEQ;
        self.replay(station);
    }

    /// The station whose event pops first, with its time and sequence number; `None` when no
    /// station has one.
    #[inline]
    pub fn peek(&self) -> Option<(usize, f64, u64)> {
        let s = self.winner[1] as usize;
        let seq = self.seq[s];
        (seq != NONE_SEQ).then(|| (s, self.time[s], seq))
    }

    /// Replays the matches on the path from `station`'s leaf to the root.
    #[inline]
    fn replay(&mut self, station: usize) {
        let mut node = (self.leaves + station) >> 1;
        while node >= 1 {
            let a = self.winner[2 * node] as usize;
            let b = self.winner[2 * node + 1] as usize;
            self.winner[node] = if earlier(self.time[b], self.seq[b], self.time[a], self.seq[a]) {
                b as u32
            } else {
                a as u32
            };
            node >>= 1;
        }
    }
}
