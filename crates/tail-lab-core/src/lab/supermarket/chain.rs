//! The supermarket chain's event loop ([`SupermarketConfig::run`]).
//!
//! Each event draws, from the one stream, in this order: its exponential clock (an open unit
//! through `libm::log`), whether it is an arrival (a unit against `λN / (λN + B)`), then an
//! arrival's `d` servers (by rejection up to [`REJECTION_MAX`] choices, by Floyd's method
//! above) or a departure's busy server. Every float operation of the clock, the sums and the
//! level shares happens in event order, so a run's numbers are a function of its parameters
//! alone (the value vectors pin them).
//!
//! What an event touches is kept small: a server is one 16-byte [`Queue`] (its length, which
//! is all a choice reads, and where its ring of arrival times sits in one shared arena), a
//! job is one `f64` (its arrival time, or −∞ for a job that is not measured), the
//! busy servers are a list a departure indexes (so a server's place in it is the index just
//! drawn, and needs no table), and a measured time is binned into whole counts
//! ([`BinTally`]) that become the histogram once, at the end.

use super::{
    LevelShares, SHARE_LEVELS, STREAM, SupermarketConfig, SupermarketResult, fixed_point_mean_time,
};
use crate::sampling::address::SampleStream;
use crate::sampling::batch::BatchHistogram;
use crate::sampling::histogram::{LogBins, shared_bins};

/// Up to this many choices are drawn by rejection (a draw equal to an earlier one is drawn
/// again); more by Floyd's method.
pub(super) const REJECTION_MAX: usize = 8;

/// `⌊bits · m / 2⁶⁴⌋`, a uniform integer below `m` from 64 uniform bits: exactly
/// `(u128::from(bits) * m) >> 64`, computed from two 64-bit products, which wasm has as
/// instructions (its 128-bit product is a call). `m` < 2³² makes both products and their sum
/// fit: `hi·m + ⌊lo·m / 2³²⌋ ≤ (2³² − 1)² + 2³² < 2⁶⁴`.
#[inline(always)]
pub(super) fn below(bits: u64, m: u32) -> u32 {
    let m = u64::from(m);
    let low = ((bits & 0xFFFF_FFFF) * m) >> 32;
    (((bits >> 32) * m + low) >> 32) as u32
}

/// One server's FIFO of arrival times: a ring of `mask + 1` slots (a power of two, or none
/// yet: `mask` is `u32::MAX`) at `base` in the shared arena, its oldest job at `head`.
#[derive(Debug, Clone, Copy)]
struct Queue {
    /// Jobs at the server, queued or in service.
    len: u32,
    head: u32,
    base: u32,
    mask: u32,
}

/// Every server's queue and the arena their rings live in.
struct Queues {
    queues: Vec<Queue>,
    arena: Vec<f64>,
}

impl Queues {
    /// The slots a server's ring starts with.
    const FIRST_RING: u32 = 4;

    fn new(servers: usize) -> Self {
        Queues {
            queues: vec![
                Queue {
                    len: 0,
                    head: 0,
                    base: 0,
                    mask: u32::MAX,
                };
                servers
            ],
            arena: Vec::new(),
        }
    }

    #[inline(always)]
    fn len(&self, server: u32) -> u32 {
        self.queues[server as usize].len
    }

    /// Adds a job that arrived at `arrived_at` to `server`'s queue; returns its new length.
    #[inline(always)]
    fn push(&mut self, server: u32, arrived_at: f64) -> u32 {
        let q = &mut self.queues[server as usize];
        if q.len == q.mask.wrapping_add(1) {
            grow(q, &mut self.arena);
        }
        let slot = q.base.wrapping_add(q.head.wrapping_add(q.len) & q.mask);
        self.arena[slot as usize] = arrived_at;
        q.len = q.len.wrapping_add(1);
        q.len
    }

    /// Removes the oldest job of a busy `server`: its arrival time and the length the queue
    /// had before.
    #[inline(always)]
    fn pop(&mut self, server: u32) -> (f64, u32) {
        let q = &mut self.queues[server as usize];
        debug_assert!(q.len > 0, "a busy server has a job");
        let arrived_at = self.arena[q.base.wrapping_add(q.head) as usize];
        q.head = q.head.wrapping_add(1) & q.mask;
        let before = q.len;
        q.len = before.wrapping_sub(1);
        (arrived_at, before)
    }
}

/// Moves a full ring to twice the room at the arena's end (the old slots are not reused: a
/// server's rings sum to less than twice its last one).
#[cold]
#[inline(never)]
fn grow(q: &mut Queue, arena: &mut Vec<f64>) {
    let room = if q.len == 0 {
        Queues::FIRST_RING
    } else {
        q.len * 2
    };
    let base = u32::try_from(arena.len())
        .ok()
        .filter(|b| b.checked_add(room).is_some())
        .expect("the queues' arena stays below 2^32 slots");
    for k in 0..q.len {
        let from = q.base + (q.head.wrapping_add(k) & q.mask);
        arena.push(arena[from as usize]);
    }
    arena.resize(arena.len() + (room - q.len) as usize, 0.0);
    *q = Queue {
        len: q.len,
        head: 0,
        base,
        mask: room - 1,
    };
}

/// What a run tells an observer, event by event: the hook a trace ([`super::trace`]) records
/// through. Every method does nothing by default, and an ordinary run's [`NoRecord`] keeps the
/// defaults, so it compiles to the code it had without the hook and gives the same bits (the
/// observer only reads: it draws nothing and changes no state of the chain).
pub(super) trait Recorder {
    /// An arrival sampled `server` (called `d` times an arrival, in draw order, before
    /// [`Recorder::arrived`]).
    #[inline(always)]
    fn sampled(&mut self, _server: u32) {}
    /// An arrival at `now` joined `server`, whose queue now holds `len` jobs.
    #[inline(always)]
    fn arrived(&mut self, _now: f64, _server: u32, _len: u32) {}
    /// A job left `server` at `now`, which now holds `len` jobs.
    #[inline(always)]
    fn departed(&mut self, _now: f64, _server: u32, _len: u32) {}
}

/// The observer of an ordinary run: nothing.
pub(super) struct NoRecord;

impl Recorder for NoRecord {}

/// How an arrival picks its server among `d` sampled ones.
trait Choose {
    /// The server a new arrival joins: the first shortest among its samples, in draw order;
    /// each sample is shown to `rec`.
    fn choose<R: Recorder>(
        &mut self,
        rng: &mut SampleStream,
        queues: &Queues,
        servers: u32,
        rec: &mut R,
    ) -> u32;
}

/// `D` ≤ [`REJECTION_MAX`] distinct samples by rejection, `D` known when compiled.
struct Fixed<const D: usize>;

impl<const D: usize> Choose for Fixed<D> {
    #[inline(always)]
    fn choose<R: Recorder>(
        &mut self,
        rng: &mut SampleStream,
        queues: &Queues,
        servers: u32,
        rec: &mut R,
    ) -> u32 {
        let mut picks = [0u32; D];
        let mut best = below(rng.next_bits(), servers);
        let mut best_len = queues.len(best);
        picks[0] = best;
        rec.sampled(best);
        for chosen in 1..D {
            let s = loop {
                let s = below(rng.next_bits(), servers);
                if !picks[..chosen].contains(&s) {
                    break s;
                }
            };
            picks[chosen] = s;
            rec.sampled(s);
            let len = queues.len(s);
            // Strictly shorter only: the first shortest in draw order (a select, not a branch).
            let shorter = len < best_len;
            best = if shorter { s } else { best };
            best_len = if shorter { len } else { best_len };
        }
        best
    }
}

/// `d` ≤ [`REJECTION_MAX`] distinct samples by rejection, `d` known when run.
struct Rejection {
    d: usize,
}

impl Choose for Rejection {
    #[inline(always)]
    fn choose<R: Recorder>(
        &mut self,
        rng: &mut SampleStream,
        queues: &Queues,
        servers: u32,
        rec: &mut R,
    ) -> u32 {
        let mut picks = [0u32; REJECTION_MAX];
        let mut best = below(rng.next_bits(), servers);
        let mut best_len = queues.len(best);
        picks[0] = best;
        rec.sampled(best);
        for chosen in 1..self.d.min(REJECTION_MAX) {
            let s = loop {
                let s = below(rng.next_bits(), servers);
                if !picks[..chosen].contains(&s) {
                    break s;
                }
            };
            picks[chosen] = s;
            rec.sampled(s);
            let len = queues.len(s);
            let shorter = len < best_len;
            best = if shorter { s } else { best };
            best_len = if shorter { len } else { best_len };
        }
        best
    }
}

/// Large `d`: Floyd's sampling of `d` distinct servers in O(d) (not O(servers)), then the
/// shortest, ties broken uniformly by reservoir sampling. A mark per server (cleared after
/// each arrival through the list of the marked) makes membership one load, with no hashing.
struct Floyd {
    d: u32,
    marked: Vec<bool>,
    marked_list: Vec<u32>,
}

impl Choose for Floyd {
    fn choose<R: Recorder>(
        &mut self,
        rng: &mut SampleStream,
        queues: &Queues,
        servers: u32,
        rec: &mut R,
    ) -> u32 {
        let mut best = u32::MAX;
        let mut best_len = 0;
        let mut ties = 0u32;
        for j in servers - self.d..servers {
            let t = below(rng.next_bits(), j + 1);
            let s = if self.marked[t as usize] { j } else { t };
            self.marked[s as usize] = true;
            self.marked_list.push(s);
            rec.sampled(s);
            let len = queues.len(s);
            if best == u32::MAX || len < best_len {
                best = s;
                best_len = len;
                ties = 1;
            } else if len == best_len {
                ties += 1;
                if below(rng.next_bits(), ties) == 0 {
                    best = s;
                }
            }
        }
        for s in self.marked_list.drain(..) {
            self.marked[s as usize] = false;
        }
        best
    }
}

impl SupermarketConfig {
    /// The chain with the choice its `d` calls for (λ < 1).
    pub(super) fn simulate(&self) -> SupermarketResult {
        self.simulate_with(NoRecord).0
    }

    /// [`Self::simulate`] told to `rec` event by event, and `rec` after the run.
    pub(super) fn simulate_with<R: Recorder>(&self, rec: R) -> (SupermarketResult, R) {
        let d = self.choices as usize;
        match d {
            1 => Chain::new(self, Fixed::<1>, rec).finish(),
            2 => Chain::new(self, Fixed::<2>, rec).finish(),
            3 => Chain::new(self, Fixed::<3>, rec).finish(),
            _ if d <= REJECTION_MAX => Chain::new(self, Rejection { d }, rec).finish(),
            _ => Chain::new(
                self,
                Floyd {
                    d: self.choices,
                    marked: vec![false; self.servers as usize],
                    marked_list: Vec::with_capacity(d),
                },
                rec,
            )
            .finish(),
        }
    }
}

/// Events a call of [`Chain::advance`] runs at most. The run is a sequence of such calls, so
/// that a JIT which compiles a hot function anew (V8 first runs wasm from a quick baseline
/// compiler) can switch the run to its optimised code after the first few, which it cannot
/// do inside one long loop; a call costs nothing next to 2¹⁶ events.
const EVENTS_PER_ADVANCE: u32 = 1 << 16;

/// A run in progress.
struct Chain<'a, C, R> {
    config: &'a SupermarketConfig,
    choice: C,
    /// The observer ([`NoRecord`] in an ordinary run).
    recorder: R,
    rng: SampleStream,
    queues: Queues,
    /// The busy servers (the first `busy_len`), in the order a departure indexes them, and a
    /// spare slot.
    busy: Vec<u32>,
    busy_len: u32,
    now: f64,
    arrived: u64,
    /// The next arrival count at which the run changes phase (the warm-up's end, the last
    /// arrival, then `arrivals`: none left), so an ordinary arrival checks one number.
    next_mark: u64,
    /// Added to an arrival's time to stamp its job: −∞ in the warm-up (a job not measured),
    /// then 0 (`now + 0` is `now`, bit for bit, as `now` ≥ 0).
    stamp_offset: f64,
    measured: u64,
    /// The measured times in system, summed in departure order.
    sum: f64,
    /// The measured times by batch of departures, for the histogram and the intervals.
    tally: BatchHistogram,
    levels: LevelShares,
    shares: Option<[f64; SHARE_LEVELS]>,
    done: bool,
}

impl<'a, C: Choose, R: Recorder> Chain<'a, C, R> {
    fn new(config: &'a SupermarketConfig, choice: C, recorder: R) -> Self {
        let n = config.servers as usize;
        Chain {
            config,
            choice,
            recorder,
            rng: SampleStream::at(config.seed, STREAM, 0, 0, 0),
            queues: Queues::new(n),
            busy: vec![0; n + 1],
            busy_len: 0,
            now: 0.0,
            arrived: 0,
            next_mark: config.arrivals / 10,
            stamp_offset: f64::NEG_INFINITY,
            measured: 0,
            sum: 0.0,
            tally: BatchHistogram::new(config.arrivals - config.arrivals / 10),
            levels: LevelShares::default(),
            shares: None,
            done: false,
        }
    }

    /// Runs the chain to its end and reads the result (and the observer).
    fn finish(mut self) -> (SupermarketResult, R) {
        // Two call sites, so that no optimiser inlines the loop into this function (binaryen
        // inlines a function called once): the first call is short, the rest are chunks.
        self.advance(EVENTS_PER_ADVANCE / 16);
        while !self.done {
            self.advance(EVENTS_PER_ADVANCE);
        }
        let config = self.config;
        let measured = self.measured;
        let histogram = self.tally.merged();
        let result = SupermarketResult {
            lambda: config.lambda,
            d: config.choices,
            stable: true,
            mean_time: Some(self.sum / measured.max(1) as f64),
            p99: Some(histogram.percentile(shared_bins(), 0.99)),
            theory: fixed_point_mean_time(config.lambda, config.choices),
            measured,
            share_at_least: self.shares,
            intervals: Some(self.tally.intervals(shared_bins(), &histogram)),
            planned: None,
        };
        (result, self.recorder)
    }

    /// Runs up to `events` events; sets `done` when the last measured job has left.
    ///
    /// Counters step with wrapping adds, which the shipped wasm (built with overflow checks)
    /// does not check: none can wrap (`arrived` and `measured` stop at `arrivals` ≤ 10⁹, a
    /// queue and the busy list hold fewer than 2³² jobs and servers).
    #[inline(never)]
    fn advance(&mut self, events: u32) {
        let config = self.config;
        let servers = config.servers;
        let arrivals = config.arrivals;
        let warmup = arrivals / 10;
        let measured_target = arrivals - warmup;
        let arrival_rate = config.lambda * f64::from(servers);
        let bins: &LogBins = shared_bins();
        let Chain {
            choice,
            recorder,
            rng,
            queues,
            busy,
            levels,
            tally,
            ..
        } = self;
        let mut rng = rng.clone();
        let (mut now, mut arrived, mut measured) = (self.now, self.arrived, self.measured);
        let (mut sum, mut busy_len) = (self.sum, self.busy_len);
        let (mut next_mark, mut stamp_offset) = (self.next_mark, self.stamp_offset);
        let mut done = false;
        // An arrival: the chosen server's queue grows by a job stamped `now + stamp_offset`.
        macro_rules! arrive {
            () => {
                let best = choice.choose(&mut rng, queues, servers, recorder);
                let len = queues.push(best, now + stamp_offset);
                recorder.arrived(now, best, len);
                levels.rise(len, now);
                // Listed as busy if it was idle: the write is unconditional (the list has a
                // spare slot past the last server), the count moves by 0 or 1, no branch.
                busy[busy_len as usize] = best;
                busy_len = busy_len.wrapping_add(u32::from(len == 1));
                arrived = arrived.wrapping_add(1);
            };
        }
        for _ in 0..events {
            let total_rate = arrival_rate + f64::from(busy_len);
            now += -libm::log(rng.next_open_unit()) / total_rate;
            let arrival = rng.next_unit() * total_rate < arrival_rate;
            if arrival {
                if arrived != next_mark {
                    arrive!();
                    continue;
                }
                // A mark: the warm-up's end, the last arrival, or no arrival left.
                if arrived == arrivals {
                    if busy_len == 0 {
                        done = true;
                        break;
                    }
                    continue;
                }
                let last = arrived == arrivals - 1;
                if arrived == warmup {
                    levels.open(now);
                    stamp_offset = 0.0;
                }
                next_mark = if last { arrivals } else { arrivals - 1 };
                arrive!();
                if last {
                    self.shares = Some(levels.close(now, servers as usize));
                }
            } else if busy_len > 0 {
                let at = below(rng.next_bits(), busy_len);
                let s = busy[at as usize];
                let (arrived_at, before) = queues.pop(s);
                levels.fall(before, now);
                recorder.departed(now, s, before.wrapping_sub(1));
                // If the server is now idle, the last busy one takes its place (a select, no
                // branch: otherwise the place keeps its server).
                let idle = before == 1;
                let last = busy[busy_len.wrapping_sub(1) as usize];
                busy_len = busy_len.wrapping_sub(u32::from(idle));
                busy[at as usize] = if idle { last } else { s };
                if arrived_at >= 0.0 {
                    let t = now - arrived_at;
                    sum += t;
                    tally.record_bin(bins.bin_of(t), t);
                    measured = measured.wrapping_add(1);
                    if measured == measured_target {
                        done = true;
                        break;
                    }
                }
            } else if arrived == arrivals {
                done = true;
                break;
            }
        }
        self.rng = rng;
        (self.now, self.arrived, self.measured) = (now, arrived, measured);
        (self.sum, self.busy_len) = (sum, busy_len);
        (self.next_mark, self.stamp_offset) = (next_mark, stamp_offset);
        self.done = done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_the_high_half_of_the_128_bit_product() {
        let mut rng = SampleStream::from_state(11);
        let ms = [
            1u32,
            2,
            3,
            7,
            100,
            65_535,
            65_536,
            100_000,
            u32::MAX - 1,
            u32::MAX,
        ];
        let edges = [
            0u64,
            1,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
            (1 << 32) - 1,
            1 << 32,
        ];
        for &m in &ms {
            let want = |bits: u64| ((u128::from(bits) * u128::from(m)) >> 64) as u32;
            for &bits in &edges {
                assert_eq!(below(bits, m), want(bits), "{bits:#x} · {m}");
            }
            for _ in 0..100_000 {
                let bits = rng.next_bits();
                assert_eq!(below(bits, m), want(bits), "{bits:#x} · {m}");
            }
        }
    }
}
