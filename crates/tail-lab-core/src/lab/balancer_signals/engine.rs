//! The balancer's event loop.
//!
//! Three clocks: the next arrival (Poisson at `λ·servers`), the next refresh of the stale view
//! (every `staleness`, the stale signal only) and the servers' departures, kept in a heap
//! (each server has at most one job in service, so a server has at most one entry). Each
//! arrival draws, from the one sequential stream and in this order, whatever the signal: its
//! exponential gap, its client (uniform in `0..clients`), `d` distinct sampled servers (by
//! rejection) and its work (a unit exponential; server 0 serves it `slow_factor` times
//! slower). So every signal sees the same arrivals, clients, samples and work, and a signal
//! that reads the same numbers as another makes the same choices, bit for bit.
//!
//! A job's state is its arrival time (−∞ in the warm-up: not measured), its work and its
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
    /// The measured window's length (mean service times): first measured arrival to last
    /// departure.
    pub duration: f64,
}

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
    let mut rng = SampleStream::at(p.seed, STREAM, 0, 0, 0);
    let arrival_rate = p.lambda * f64::from(p.servers);
    let warmup = p.arrivals / 10;
    let target = p.arrivals - warmup;
    let refresh = if p.signal == Signal::Stale && p.staleness > 0.0 {
        p.staleness
    } else {
        f64::INFINITY
    };
    let mut queues: Vec<VecDeque<Job>> = vec![VecDeque::new(); n];
    // The stale view, copied at each refresh.
    let mut view: Vec<u32> = vec![0; n];
    // Per client and server: in-flight count, peak-EWMA cost, its last update time.
    let mut inflight: Vec<u32> = vec![0; n * k];
    let mut cost: Vec<f64> = vec![0.0; n * k];
    let mut stamp: Vec<f64> = vec![0.0; n * k];
    let mut rr: Vec<u32> = (0..k).map(|c| (c * n / k) as u32).collect();
    let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    let mut tally = BatchHistogram::new(target);
    let bins = shared_bins();
    let mut picks = vec![0u32; p.d as usize];

    let mut now;
    let mut next_arrival = -libm::log(rng.next_open_unit()) / arrival_rate;
    let mut next_refresh = refresh;
    let (mut arrived, mut measured, mut to_slow) = (0u64, 0u64, 0u64);
    let (mut sum, mut opened, mut last_departure) = (0.0, 0.0, 0.0);
    let slow = p.slow_factor;
    let service = |server: usize, work: f64| if server == 0 { work * slow } else { work };

    loop {
        let next_departure = heap
            .peek()
            .map_or(f64::INFINITY, |Reverse((t, _))| f64::from_bits(*t));
        let arrivals_left = arrived < p.arrivals;
        if next_departure <= next_refresh && (!arrivals_left || next_departure <= next_arrival) {
            let Some(Reverse((t, s))) = heap.pop() else {
                break;
            };
            now = f64::from_bits(t);
            let s = s as usize;
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
            last_departure = now;
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
        } else if next_refresh <= next_arrival || !arrivals_left {
            if !next_refresh.is_finite() {
                break;
            }
            for (v, q) in view.iter_mut().zip(&queues) {
                *v = q.len() as u32;
            }
            next_refresh += refresh;
            if !arrivals_left && heap.is_empty() {
                break;
            }
        } else {
            now = next_arrival;
            next_arrival = now - libm::log(rng.next_open_unit()) / arrival_rate;
            let client = below(rng.next_bits(), p.clients) as usize;
            for i in 0..picks.len() {
                picks[i] = loop {
                    let s = below(rng.next_bits(), p.servers);
                    if !picks[..i].contains(&s) {
                        break s;
                    }
                };
            }
            let work = -libm::log(rng.next_open_unit());
            let base = client * n;
            let chosen = match p.signal {
                Signal::Random => picks[0],
                Signal::RoundRobin => {
                    let s = rr[client];
                    rr[client] = (s + 1) % p.servers;
                    s
                }
                Signal::Fresh => first_min(&picks, |s| queues[s].len() as f64),
                Signal::Stale if refresh.is_infinite() => {
                    first_min(&picks, |s| queues[s].len() as f64)
                }
                Signal::Stale => first_min(&picks, |s| f64::from(view[s])),
                Signal::Inflight => first_min(&picks, |s| f64::from(inflight[base + s])),
                Signal::Ewma => first_min(&picks, |s| {
                    cost[base + s] * f64::from(inflight[base + s] + 1)
                }),
            } as usize;
            if arrived == warmup {
                opened = now;
            }
            let measured_job = arrived >= warmup;
            if measured_job && chosen == 0 {
                to_slow += 1;
            }
            let job = Job {
                arrived: if measured_job { now } else { -now - 1.0 },
                work,
                client: client as u32,
            };
            arrived += 1;
            inflight[base + chosen] += 1;
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
        duration: last_departure - opened,
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
