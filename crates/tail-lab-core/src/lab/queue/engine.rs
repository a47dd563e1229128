//! The discrete-event simulation of one single-queue run, on [`crate::des`]: the next arrival
//! and each server's next departure ([`StationClocks`]), stamped with [`EventKey`]s from one
//! counter so that they pop as one event queue would, and one [`FifoStation`] of `c` servers
//! whose jobs are the requests themselves (nothing is ever cancelled, so no slab is needed).

use super::{QueueBatch, QueueConfig, STREAM};
use crate::des::{EventKey, FifoStation, StationClocks};
use crate::sampling::address::RequestKey;
use crate::sampling::batch::BatchHistogram;
use crate::sampling::histogram::{Histogram, shared_bins};

/// A request in the station: its index, arrival time and whether it found every server busy.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Job {
    request: u64,
    arrival: f64,
    waited: bool,
}

/// Running sums over measured requests (all of a run's, or one batch's).
#[derive(Debug, Clone)]
pub(super) struct Tally {
    pub(super) sojourn_sum: f64,
    pub(super) waited: u64,
    pub(super) measured: u64,
    pub(super) histogram: Histogram,
}

impl Tally {
    fn new() -> Self {
        Tally {
            sojourn_sum: 0.0,
            waited: 0,
            measured: 0,
            histogram: Histogram::new(),
        }
    }

    fn record(&mut self, sojourn: f64, waited: bool) {
        self.record_bin(shared_bins().bin_of(sojourn), sojourn, waited);
    }

    /// [`Tally::record`] with the sojourn's bin already found.
    fn record_bin(&mut self, bin: usize, sojourn: f64, waited: bool) {
        self.sojourn_sum += sojourn;
        self.waited += u64::from(waited);
        self.measured += 1;
        self.histogram.record_bin(bin);
    }

    pub(super) fn mean(&self) -> f64 {
        self.sojourn_sum / self.measured.max(1) as f64
    }

    pub(super) fn p99(&self) -> f64 {
        self.histogram.percentile(shared_bins(), 0.99)
    }

    pub(super) fn wait_probability(&self) -> f64 {
        self.waited as f64 / self.measured.max(1) as f64
    }

    pub(super) fn batch(&self) -> QueueBatch {
        QueueBatch {
            requests: self.measured,
            mean: self.mean(),
            p99: self.p99(),
            wait_probability: self.wait_probability(),
        }
    }
}

/// The sub-stream of a request's service time (the loaded model's numbering).
const SERVICE: u32 = 0;
/// The sub-stream of the gap before a request arrives.
const GAP: u32 = 2;
/// Each sub-stream is drawn once a request.
const ONCE: u32 = 0;

/// Simulates `config`, measuring every request from the warm-up on into one tally, and into
/// `batches` tallies by arrival order when `batches > 0`; and into [`BatchHistogram`]'s 20
/// batches by departure, for the result's intervals.
pub(super) fn simulate(config: &QueueConfig, batches: u32) -> (Tally, Vec<Tally>, BatchHistogram) {
    let c = config.servers;
    let rate = config.load * f64::from(c); // λ = cρ with μ = 1
    let key = |k: u64| RequestKey::new(config.seed, STREAM, k);
    // Addressed per request, as the loaded model does: the gap before request k and its service
    // each on their own sub-stream.
    let gap = |k: u64| -libm::log(key(k).sample(GAP, ONCE).next_open_unit()) / rate;
    let service = |k: u64| -libm::log(key(k).sample(SERVICE, ONCE).next_open_unit());
    let warmup = config.requests / 10;
    let span = config.requests - warmup;
    let mut all = Tally::new();
    let mut by_departure = BatchHistogram::new(span);
    let mut parts: Vec<Tally> = (0..batches).map(|_| Tally::new()).collect();
    let mut station: FifoStation<Job> = FifoStation::new(c as usize);
    // Every event scheduled takes the next sequence number: ties pop in scheduling order.
    let mut seq = 1u64;
    let mut arrival = (EventKey::new(gap(0), seq), 0u64);
    let mut departures = StationClocks::new(c as usize);
    let start = |now: f64,
                 server: u32,
                 station: &mut FifoStation<Job>,
                 departures: &mut StationClocks,
                 seq: &mut u64| {
        match station.start_next(server as usize, |_| true) {
            Some(job) => {
                *seq += 1;
                departures.set(server as usize, now + service(job.request), *seq);
            }
            None => departures.clear(server as usize),
        }
    };
    loop {
        let (server, departure) = departures.first();
        if departure < arrival.0 {
            let now = departure.time();
            let job = station
                .serving(server)
                .expect("a departing server is serving");
            if job.request >= warmup {
                let sojourn = now - job.arrival;
                // One bin lookup for the run's tally and its batches.
                let bin = shared_bins().bin_of(sojourn);
                all.record_bin(bin, sojourn, job.waited);
                by_departure.record_bin(bin, sojourn);
                if batches > 0 {
                    let b = (job.request - warmup) * u64::from(batches) / span;
                    parts[b as usize].record(sojourn, job.waited);
                }
            }
            start(now, server as u32, &mut station, &mut departures, &mut seq);
        } else if arrival.0.is_some() {
            let (now, k) = (arrival.0.time(), arrival.1);
            arrival.0 = EventKey::NONE;
            let idle = station.idle_server();
            station.push(Job {
                request: k,
                arrival: now,
                waited: idle.is_none(),
            });
            if let Some(server) = idle {
                start(now, server as u32, &mut station, &mut departures, &mut seq);
            }
            if k + 1 < config.requests {
                seq += 1;
                arrival = (EventKey::new(now + gap(k + 1), seq), k + 1);
            }
        } else {
            break;
        }
    }
    (all, parts, by_departure)
}
