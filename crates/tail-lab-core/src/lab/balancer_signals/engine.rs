//! The balancer's event loop.
//!
//! Two clocks: the next arrival (Poisson at `λ·servers`) and the servers' departures, kept in
//! a heap (each server has at most one job in service, so a server has at most one entry).
//! Each arrival draws, from the one sequential stream and in this order, whatever the signal:
//! its exponential gap, its client (uniform in `0..clients`), `d` distinct sampled servers (a
//! partial Fisher–Yates shuffle of a permutation of the servers kept across arrivals: one draw
//! a sample, O(d) for any `d`) and its work (a unit exponential; server 0 serves it
//! `slow_factor` times slower). So every signal sees the same arrivals, clients, samples and
//! work, and a signal that reads the same numbers as another makes the same choices, bit for
//! bit.
//!
//! **The stale view costs O(1) an event, whatever the refresh period.** The refreshes happen
//! at `m·T` (m = 0, 1, …), and the view of server `s` in period `m` (from `m·T` to the next) is
//! its queue length at `m·T`. Rather than copying every length at every refresh (which, for a
//! period much shorter than the gaps between events, would cost far more than the events), the
//! first change to a queue within a period records the length it had before the change, with
//! the period's number: a server changed in the current period reads that record, any other its
//! current length (unchanged since the period began). A refresh at the very instant of an event
//! comes before it.
//!
//! A job's state is its arrival time (stored negative in the warm-up: not measured), its work and its
//! client; memory is bounded by the jobs in the system.

use super::params::{BalancerParams, STREAM, Signal};
use crate::sampling::address::SampleStream;
use crate::sampling::batch::{BatchHistogram, RunIntervals};
use crate::sampling::histogram::shared_bins;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// What a run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// Jobs measured (arrived after warm-up).
    pub measured: u64,
    /// Mean sojourn time (mean service times).
    pub mean: f64,
    /// Median sojourn time.
    pub p50: f64,
    /// 99th percentile of sojourn time.
    pub p99: f64,
    /// 95% batch-means intervals.
    pub intervals: RunIntervals,
    /// Share of the measured arrivals sent to server 0 (the slow one).
    pub slow_share: f64,
    /// The second half of the measured arrivals in [`LATE_BATCHES`] batches of consecutive
    /// arrivals: each batch's arrivals and how many of them went to server 0. What the run
    /// settled to, without the start-up's transient.
    pub late: [(u32, u32); LATE_BATCHES],
    /// Whether the stale view was refreshed before the last arrival (false for every other
    /// signal): a view never refreshed reads 0 everywhere, and the first sample wins.
    pub refreshed: bool,
}

/// Batches the second half of the measured arrivals is cut into for the slow server's share.
pub const LATE_BATCHES: usize = 20;

#[derive(Debug, Clone, Copy)]
struct Job {
    arrived: f64,
    work: f64,
    client: u32,
}

/// `⌊bits · m / 2⁶⁴⌋`: a uniform integer below `m`.
#[inline]
fn below(bits: u64, m: u32) -> u32 {
    ((u128::from(bits) * u128::from(m)) >> 64) as u32
}

/// Runs one validated configuration.
pub(super) fn run(p: &BalancerParams) -> Measured {
    let n = p.servers as usize;
    let k = p.clients as usize;
    let d = p.d as usize;
    let mut rng = SampleStream::at(p.seed, STREAM, 0, 0, 0);
    let arrival_rate = p.lambda * f64::from(p.servers);
    let warmup = p.arrivals / 10;
    let target = p.arrivals - warmup;
    // The refresh period; ∞ when nothing reads a stale view (staleness 0 reads the queues).
    let refresh = if p.signal == Signal::Stale && p.staleness > 0.0 {
        p.staleness
    } else {
        f64::INFINITY
    };
    let stale = refresh.is_finite();
    let mut queues: Vec<VecDeque<Job>> = vec![VecDeque::new(); n];
    let mut view = StaleView::new(n, refresh);
    // Per client and server: in-flight count, peak-EWMA cost, its last update time.
    let mut inflight: Vec<u32> = vec![0; n * k];
    let mut cost: Vec<f64> = vec![0.0; n * k];
    let mut stamp: Vec<f64> = vec![0.0; n * k];
    let mut rr: Vec<u32> = (0..k).map(|c| (c * n / k) as u32).collect();
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let mut tally = BatchHistogram::new(target);
    let bins = shared_bins();
    // A permutation of the servers; each arrival's samples are its first d entries after a
    // partial shuffle.
    let mut order: Vec<u32> = (0..p.servers).collect();

    let mut now;
    let mut next_arrival = -libm::log(rng.next_open_unit()) / arrival_rate;
    let (mut arrived, mut measured, mut to_slow) = (0u64, 0u64, 0u64);
    let mut late = [(0u32, 0u32); LATE_BATCHES];
    let half = target / 2;
    let (mut sum, mut last_arrival) = (0.0, 0.0);
    let slow = p.slow_factor;
    let service = |server: usize, work: f64| if server == 0 { work * slow } else { work };

    loop {
        let next_departure = heap
            .peek()
            .map_or(f64::INFINITY, |Reverse((t, _))| f64::from_bits(*t));
        let arrivals_left = arrived < p.arrivals;
        if !arrivals_left || next_departure <= next_arrival {
            let Some(Reverse((t, s))) = heap.pop() else {
                break;
            };
            now = f64::from_bits(t);
            let s = s as usize;
            if stale {
                view.before_change(s, queues[s].len(), now);
            }
            let job = queues[s]
                .pop_front()
                .expect("a departing server holds a job");
            let slot = job.client as usize * n + s;
            inflight[slot] -= 1;
            if job.arrived >= 0.0 {
                let latency = now - job.arrived;
                sum += latency;
                tally.record(bins, latency);
                measured += 1;
            }
            // Peak-EWMA of this client's observed latency at s (from its send).
            let latency = now - sent_at(&job);
            let w = libm::exp(-(now - stamp[slot]) / p.tau);
            cost[slot] = if latency > cost[slot] {
                latency
            } else {
                cost[slot] * w + latency * (1.0 - w)
            };
            stamp[slot] = now;
            if let Some(next) = queues[s].front() {
                heap.push(Reverse(((now + service(s, next.work)).to_bits(), s as u32)));
            }
            if measured == target {
                break;
            }
        } else {
            now = next_arrival;
            last_arrival = now;
            next_arrival = now - libm::log(rng.next_open_unit()) / arrival_rate;
            let client = below(rng.next_bits(), p.clients) as usize;
            for i in 0..d {
                let j = i + below(rng.next_bits(), p.servers - i as u32) as usize;
                order.swap(i, j);
            }
            let picks = &order[..d];
            let work = -libm::log(rng.next_open_unit());
            let base = client * n;
            let chosen = match p.signal {
                Signal::Random => picks[0],
                Signal::RoundRobin => {
                    let s = rr[client];
                    rr[client] = (s + 1) % p.servers;
                    s
                }
                Signal::Fresh => first_min(picks, |s| queues[s].len() as f64),
                Signal::Stale if !stale => first_min(picks, |s| queues[s].len() as f64),
                Signal::Stale => first_min(picks, |s| view.read(s, queues[s].len(), now)),
                Signal::Inflight => first_min(picks, |s| f64::from(inflight[base + s])),
                Signal::Ewma => {
                    // Reading a cost decays it to now first (Finagle's `get` observes 0).
                    for &s in picks {
                        let slot = base + s as usize;
                        cost[slot] *= libm::exp(-(now - stamp[slot]) / p.tau);
                        stamp[slot] = now;
                    }
                    first_min(picks, |s| ewma_score(cost[base + s], inflight[base + s]))
                }
            } as usize;
            let measured_job = arrived >= warmup;
            if measured_job && chosen == 0 {
                to_slow += 1;
            }
            let m = arrived.saturating_sub(warmup);
            if measured_job && m >= half {
                let b = ((m - half) * LATE_BATCHES as u64 / (target - half)) as usize;
                late[b].0 += 1;
                late[b].1 += u32::from(chosen == 0);
            }
            let job = Job {
                arrived: if measured_job { now } else { -now - 1.0 },
                work,
                client: client as u32,
            };
            arrived += 1;
            inflight[base + chosen] += 1;
            if stale {
                view.before_change(chosen, queues[chosen].len(), now);
            }
            queues[chosen].push_back(job);
            if queues[chosen].len() == 1 {
                heap.push(Reverse((
                    (now + service(chosen, work)).to_bits(),
                    chosen as u32,
                )));
            }
        }
    }
    let histogram = tally.merged();
    let measured_f = measured.max(1) as f64;
    Measured {
        measured,
        mean: sum / measured_f,
        p50: histogram.percentile(bins, 0.5),
        p99: histogram.percentile(bins, 0.99),
        intervals: tally.intervals(bins, &histogram),
        slow_share: to_slow as f64 / (target.max(1)) as f64,
        late,
        refreshed: stale && last_arrival >= refresh,
    }
}

/// The stale view, recorded lazily: refreshes happen at `m·refresh` (m = 0, 1, …), and in
/// period m server `s` reads the length its queue had at `m·refresh`. O(1) a change and a read.
struct StaleView {
    refresh: f64,
    /// The length server s had when period `period[s]` began.
    len: Vec<u32>,
    /// The period of the record (−1: none); an exact integer in f64 (validation keeps
    /// `t/refresh` below 2⁵³).
    period: Vec<f64>,
}

impl StaleView {
    fn new(servers: usize, refresh: f64) -> Self {
        StaleView {
            refresh,
            len: vec![0; servers],
            period: vec![-1.0; servers],
        }
    }

    /// The number of the period time `t` falls in (a refresh at `t` itself comes first).
    #[inline]
    fn period_of(&self, t: f64) -> f64 {
        libm::floor(t / self.refresh)
    }

    /// Before queue `s`, of length `len`, changes at time `t`: the first change in a period
    /// records the length the period began with.
    #[inline]
    fn before_change(&mut self, s: usize, len: usize, t: f64) {
        let m = self.period_of(t);
        if self.period[s] != m {
            self.period[s] = m;
            self.len[s] = len as u32;
        }
    }

    /// What server `s`, whose queue is `len` long now, shows at time `t`: the record if the
    /// queue changed in this period, else its length now (unchanged since the period began).
    #[inline]
    fn read(&self, s: usize, len: usize, t: f64) -> f64 {
        if self.period[s] == self.period_of(t) {
            f64::from(self.len[s])
        } else {
            len as f64
        }
    }
}

/// Finagle's `PENALTY`, `Long.MaxValue >> 16`: the score of a server with requests in flight
/// and no latency observed yet, plus its in-flight count.
const EWMA_PENALTY: f64 = (i64::MAX >> 16) as f64;

/// The peak-EWMA score of a server whose (decayed) cost is `cost` with `inflight` of this
/// client's requests outstanding: `cost × (inflight + 1)`, except that a server never heard
/// from with requests already in flight scores `PENALTY + inflight`, so that a cold start does
/// not pile every request onto it.
#[inline]
fn ewma_score(cost: f64, inflight: u32) -> f64 {
    if cost == 0.0 && inflight != 0 {
        EWMA_PENALTY + f64::from(inflight)
    } else {
        cost * f64::from(inflight + 1)
    }
}

/// When a job was sent: a warm-up job's arrival time is kept as `−(arrival) − 1`, negative.
fn sent_at(job: &Job) -> f64 {
    if job.arrived >= 0.0 {
        job.arrived
    } else {
        -job.arrived - 1.0
    }
}

/// The first sample, in draw order, with the least `score`.
#[inline]
fn first_min(picks: &[u32], score: impl Fn(usize) -> f64) -> u32 {
    let mut best = picks[0];
    let mut best_score = score(best as usize);
    for &s in &picks[1..] {
        let x = score(s as usize);
        if x < best_score {
            best = s;
            best_score = x;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lazy view against the obvious one: a copy of every length at every refresh instant,
    /// on random changes (±1, never below 0) at random times, with periods from far shorter
    /// than the gaps between changes (many refreshes skipped at once) to far longer.
    #[test]
    fn the_lazy_view_equals_copying_at_every_refresh() {
        let mut rng = SampleStream::at(3, STREAM, 9, 0, 0);
        for refresh in [0.001, 0.07, 1.0, 3.3, 50.0] {
            let servers = 5;
            let mut lazy = StaleView::new(servers, refresh);
            let mut lengths = vec![0usize; servers];
            let mut copy = vec![0usize; servers];
            let mut next_refresh = 0.0;
            let mut t = 0.0;
            for _ in 0..20_000 {
                t += -libm::log(rng.next_open_unit()) * 0.5;
                // Every refresh instant up to t (inclusive: a refresh at t comes first).
                if next_refresh <= t {
                    copy.clone_from(&lengths);
                    let skipped = libm::floor((t - next_refresh) / refresh);
                    next_refresh += (skipped + 1.0) * refresh;
                    while next_refresh <= t {
                        next_refresh += refresh;
                    }
                }
                for s in 0..servers {
                    assert_eq!(
                        lazy.read(s, lengths[s], t),
                        copy[s] as f64,
                        "T={refresh} t={t} s={s}"
                    );
                }
                let s = below(rng.next_bits(), servers as u32) as usize;
                lazy.before_change(s, lengths[s], t);
                if lengths[s] > 0 && rng.next_open_unit() < 0.5 {
                    lengths[s] -= 1;
                } else {
                    lengths[s] += 1;
                }
            }
        }
    }

    #[test]
    fn samples_are_distinct_and_uniform() {
        // A partial Fisher–Yates shuffle of a permutation kept across draws: the d samples are
        // distinct, and each ordered pair (first, second) of the 30 over 6 servers comes up
        // with probability 1/30. 60,000 draws: Pearson's χ² over the 30 cells, 29 degrees of
        // freedom, must stay below 66.4, its 10⁻⁴ upper quantile (Wilson–Hilferty); a swap
        // range one short (never the last server) or a first pick not swapped fails it.
        let (servers, d) = (6u32, 3usize);
        let mut rng = SampleStream::at(1, STREAM, 8, 0, 0);
        let mut order: Vec<u32> = (0..servers).collect();
        let mut pairs = [[0u32; 6]; 6];
        let draws = 60_000;
        for _ in 0..draws {
            for i in 0..d {
                let j = i + below(rng.next_bits(), servers - i as u32) as usize;
                order.swap(i, j);
            }
            let picks = &order[..d];
            assert!(picks[0] != picks[1] && picks[1] != picks[2] && picks[0] != picks[2]);
            pairs[picks[0] as usize][picks[1] as usize] += 1;
        }
        let expected = f64::from(draws) / 30.0;
        let mut chi2 = 0.0;
        for (a, row) in pairs.iter().enumerate() {
            for (b, &c) in row.iter().enumerate() {
                if a == b {
                    assert_eq!(c, 0);
                } else {
                    chi2 += (f64::from(c) - expected) * (f64::from(c) - expected) / expected;
                }
            }
        }
        assert!(chi2 < 66.4, "χ² = {chi2}: {pairs:?}");
    }
}
