//! A server that stalls: when a request sent at some time is answered.
//!
//! The server has as many workers as it needs, and a stall (a GC pause, a VM hiccup, a
//! full-disk flush) freezes them all at once: a request needs `s` ms of *unstalled* time, so a
//! request sent during a stall waits for it to end, and one whose work a stall interrupts
//! waits for that stall too. Stalls last `length_ms` each, and a stall starts every
//! `every_ms` on average (start to start). Between stalls the server runs for a gap of
//! `every_ms − length_ms`: exactly that long ([`Gaps::Fixed`], the first stall starting after
//! one gap), or an exponential time of that mean ([`Gaps::Random`], started in equilibrium,
//! so every moment of the run sees the same chance `length/every` of a stall in progress).

use crate::sampling::address::{SampleStream, Stream};

/// How long the server runs between stalls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gaps {
    /// Exactly `every − length` ms: the first stall starts at `every − length`.
    Fixed,
    /// An exponential time of mean `every − length` ms, each drawn from the stall stream; the
    /// run starts in equilibrium (in a stall with probability `length/every`, then with a
    /// uniform share of it left).
    Random,
}

impl Gaps {
    /// The stable machine name (`"fixed"`, `"random"`).
    pub fn name(self) -> &'static str {
        match self {
            Gaps::Fixed => "fixed",
            Gaps::Random => "random",
        }
    }
}

/// The stalls of one run, generated in time order as far as they are asked for.
#[derive(Debug, Clone)]
pub struct Stalls {
    length_ms: f64,
    gap_ms: f64,
    gaps: Gaps,
    seed: u64,
    stream: Stream,
    /// Stalls generated so far, `[start, end)` in ms, in order.
    spans: Vec<(f64, f64)>,
    /// Where the next generated stall starts from (the end of the last, or 0).
    next_from: f64,
}

impl Stalls {
    /// The stalls of `length_ms` every `every_ms` (ms; `length < every`, or `length = 0` for
    /// none) under `seed`, drawing random gaps from `stream`.
    pub fn new(length_ms: f64, every_ms: f64, gaps: Gaps, seed: u64, stream: Stream) -> Self {
        let mut s = Stalls {
            length_ms,
            gap_ms: every_ms - length_ms,
            gaps,
            seed,
            stream,
            spans: Vec::new(),
            next_from: 0.0,
        };
        if gaps == Gaps::Random && length_ms > 0.0 {
            // Equilibrium: a stall is in progress at 0 with probability length/every, with
            // a uniform share of it left (a stall's length is fixed, so its residual is
            // uniform); otherwise the first one starts after an exponential gap (memoryless).
            let mut u = SampleStream::at(seed, stream, u64::MAX, 0, 0);
            if u.next_unit() < length_ms / every_ms {
                let left = length_ms * u.next_open_unit();
                s.spans.push((0.0, left));
                s.next_from = left;
            }
        }
        s
    }

    /// The stall that ends after `t_ms` and starts first, from stall `from` on (stalls are
    /// generated until one ends after `t_ms`), as its index; `None` when there are no stalls.
    fn first_ending_after(&mut self, from: usize, t_ms: f64) -> Option<usize> {
        if self.length_ms <= 0.0 {
            return None;
        }
        let mut i = from;
        loop {
            while i >= self.spans.len() {
                self.push_next();
            }
            if self.spans[i].1 > t_ms {
                return Some(i);
            }
            i += 1;
        }
    }

    fn push_next(&mut self) {
        let k = self.spans.len() as u64;
        let gap = match self.gaps {
            Gaps::Fixed => self.gap_ms,
            Gaps::Random => {
                -self.gap_ms
                    * libm::log(SampleStream::at(self.seed, self.stream, k, 0, 0).next_open_unit())
            }
        };
        let start = self.next_from + gap;
        let end = start + self.length_ms;
        self.spans.push((start, end));
        self.next_from = end;
    }

    /// The stalls generated so far, `[start, end)` (ms).
    pub fn spans(&self) -> &[(f64, f64)] {
        &self.spans
    }
}

/// A walk over the stalls for a series of sends in nondecreasing time: it remembers the first
/// stall that can still matter, so a run of `n` sends costs `O(n + stalls)`.
#[derive(Debug)]
pub struct Server<'a> {
    stalls: &'a mut Stalls,
    cursor: usize,
}

impl<'a> Server<'a> {
    /// A walk from time 0.
    pub fn new(stalls: &'a mut Stalls) -> Self {
        Server { stalls, cursor: 0 }
    }

    /// When a request sent at `sent_ms` (ms, not before the previous call's) that needs
    /// `work_ms` of unstalled time is answered (ms).
    pub fn answer(&mut self, sent_ms: f64, work_ms: f64) -> f64 {
        let Some(first) = self.stalls.first_ending_after(self.cursor, sent_ms) else {
            return sent_ms + work_ms;
        };
        self.cursor = first;
        let (mut t, mut left, mut i) = (sent_ms, work_ms, first);
        loop {
            let (start, end) = self.stalls.spans[i];
            if t >= start {
                // In the stall: wait for its end.
                t = end;
            } else if t + left <= start {
                return t + left;
            } else {
                // Interrupted: the work before the stall is done, the rest after it.
                left -= start - t;
                t = end;
            }
            i += 1;
            if i >= self.stalls.spans.len() {
                self.stalls.push_next();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Stream = Stream::new(29);

    #[test]
    fn fixed_stalls_are_where_they_are_said_to_be() {
        let mut stalls = Stalls::new(100.0, 1000.0, Gaps::Fixed, 1, S);
        let mut server = Server::new(&mut stalls);
        // Stalls [900, 1000), [1900, 2000), …
        assert_eq!(server.answer(0.0, 1.0), 1.0);
        assert_eq!(server.answer(899.0, 1.0), 900.0);
        // Interrupted: 1 ms done before 900, 1 ms after 1000.
        assert_eq!(server.answer(899.0, 2.0), 1001.0);
        // Sent in the stall: waits for its end.
        assert_eq!(server.answer(950.0, 1.0), 1001.0);
        // Interrupted by two stalls.
        assert_eq!(server.answer(1000.0, 1850.0), 1000.0 + 1850.0 + 200.0);
        assert_eq!(stalls.spans()[..2], [(900.0, 1000.0), (1900.0, 2000.0)]);
    }

    #[test]
    fn no_stalls_is_the_work_alone() {
        let mut stalls = Stalls::new(0.0, 1000.0, Gaps::Random, 1, S);
        let mut server = Server::new(&mut stalls);
        assert_eq!(server.answer(5.0, 2.5), 7.5);
        assert!(stalls.spans().is_empty());
    }

    #[test]
    fn random_stalls_take_their_share_of_time() {
        // Stalled share length/every = 0.1: over 20,000 stalls the share of time stalled has a
        // standard deviation near sqrt(0.1·0.9/20000)·(renewal factor ≈ 1.35) < 0.003: within
        // 0.01 is over three of them.
        let mut stalls = Stalls::new(10.0, 100.0, Gaps::Random, 7, S);
        let mut server = Server::new(&mut stalls);
        let _ = server.answer(2_000_000.0, 0.0);
        let spans = stalls.spans();
        let stalled: f64 = spans.iter().map(|(a, b)| b - a).sum();
        let share = stalled / spans.last().unwrap().1;
        assert!((share - 0.1).abs() < 0.01, "{share}");
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0));
    }
}
