//! The discrete-event simulation of one loaded run, on [`crate::des`]: an [`EventQueue`] of
//! arrivals, hedge timers and completions, a [`Slab`] of the copies in flight (a cancelled
//! copy is removed from it, and its queue entry and completion event go stale), and one
//! single-server [`FifoStation`] per replica.

use super::config::{LoadedConfig, LoadedResult, LoadedService, MAX_IN_FLIGHT, Unstable};
use super::policy::Cancellation;
use crate::des::{EventQueue, FifoStation, Slab, SlotKey};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::service::ServiceSampler;
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::histogram::{BIN_COUNT, Histogram, shared_bins};
use std::collections::VecDeque;

// A request's sub-streams, by purpose (the "leaf" of its address): its copies' service times
// (attempt 0 the primary, 1 the backup), its replica choices, and the gap before it.
const SERVICE: u32 = 0;
const CHOICE: u32 = 1;
const GAP: u32 = 2;
const PRIMARY: u32 = 0;
const BACKUP: u32 = 1;
// The attempt of a sub-stream drawn once per request (the gap, the choices).
const ONCE: u32 = 0;

/// What a loaded run's clock does next. A completion names its copy: one whose copy was
/// cancelled and released is stale and ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Arrival(u64),
    HedgeTimer(u64),
    Completion { replica: u32, copy: CopyRef },
}

/// A copy's key in the slab of copies in flight.
type CopyRef = SlotKey;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopyState {
    Waiting,
    InService,
    /// Cancelled while its server finishes the service it is in (a hiccup under `Either`).
    Draining,
}

#[derive(Debug, Clone, Copy)]
struct Copy {
    request: u64,
    service_ms: f64,
    slow: bool,
    enqueued_at: f64,
    started_at: f64,
    state: CopyState,
    backup: bool,
    replica: u32,
}

/// A replica: one server and its FIFO queue of copies.
type Replica = FifoStation<CopyRef>;

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    answered: bool,
    copies: [Option<CopyRef>; 2],
    backup_replica: u32,
}

pub(super) struct Simulation<'a> {
    config: &'a LoadedConfig,
    stream: Stream,
    delay_ms: Option<f64>,
    sampler: Option<ServiceSampler>,
    events: EventQueue<Event>,
    replicas: Vec<Replica>,
    /// Copies in flight: a slab whose free slots are reused, so memory follows the queues,
    /// not the length of the run.
    copies: Slab<Copy>,
    /// Requests from the oldest one still in flight (request `first`) to the newest.
    requests: VecDeque<Request>,
    first: u64,
    peak_in_flight: usize,
    /// Set when the backlog passed [`MAX_IN_FLIGHT`]: the arrivals so far; no more arrive.
    runaway: Option<u64>,
    /// Requests arrived and not yet answered.
    unanswered: usize,
    /// True when a measured latency passed the histogram's top edge.
    off_scale: bool,
    /// Stability known in closed form, when it is.
    stable_by_theory: Option<bool>,
    arrival_rate: f64,
    latency: Histogram,
    latency_sum: f64,
    measured: u64,
    warmup: u64,
    block_sums: [f64; 4],
    block_counts: [u64; 4],
    sojourn_sum: f64,
    sojourn_count: u64,
    backups: u64,
    /// Backups that ran to the end of their service (answered first, or finished as losers).
    backups_completed: u64,
    backup_work: f64,
    primary_work: f64,
    consumed_work: f64,
    last_arrival: f64,
}

impl<'a> Simulation<'a> {
    /// A run of `config` on the draws of `stream`, sending backups after `delay_ms` (`None`:
    /// no backups, whatever the policy says).
    pub(super) fn new(config: &'a LoadedConfig, stream: Stream, delay_ms: Option<f64>) -> Self {
        let mean = config.service.mean_ms();
        Simulation {
            config,
            stream,
            delay_ms,
            sampler: match config.service {
                LoadedService::Lab(m) => Some(ServiceSampler::new(m)),
                LoadedService::Exponential(_) => None,
            },
            events: EventQueue::new(),
            replicas: vec![Replica::new(1); config.replicas as usize],
            copies: Slab::new(),
            requests: VecDeque::new(),
            first: 0,
            peak_in_flight: 0,
            runaway: None,
            unanswered: 0,
            off_scale: false,
            stable_by_theory: None,
            arrival_rate: config.load * f64::from(config.replicas) / mean,
            latency: Histogram::new(),
            latency_sum: 0.0,
            measured: 0,
            warmup: config.requests / 10,
            block_sums: [0.0; 4],
            block_counts: [0; 4],
            sojourn_sum: 0.0,
            sojourn_count: 0,
            backups: 0,
            backups_completed: 0,
            backup_work: 0.0,
            primary_work: 0.0,
            consumed_work: 0.0,
            last_arrival: 0.0,
        }
    }

    fn schedule(&mut self, time: f64, event: Event) {
        self.events.schedule(time, event);
    }

    fn key(&self, k: u64) -> RequestKey {
        RequestKey::new(self.config.seed, self.stream, k)
    }

    /// Service time of copy `attempt` of request `k`, and whether it is a hiccup.
    fn service(&self, k: u64, attempt: u32) -> (f64, bool) {
        let mut stream = self.key(k).sample(SERVICE, attempt);
        match (&self.sampler, self.config.service) {
            (_, LoadedService::Exponential(mean)) => {
                (-mean.get() * libm::log(stream.next_open_unit()), false)
            }
            (Some(s), LoadedService::Lab(_)) => {
                let d = s.sample(stream);
                (d.ms, d.slow)
            }
            (None, LoadedService::Lab(_)) => unreachable!("Lab service always has a sampler"),
        }
    }

    fn uniform_below(bits: u64, n: u32) -> u32 {
        ((u128::from(bits) * u128::from(n)) >> 64) as u32
    }

    pub(super) fn run(mut self) -> LoadedResult {
        self.stable_by_theory = self.theory_stable();
        self.schedule(self.gap(0), Event::Arrival(0));
        while let Some((time, event)) = self.events.pop() {
            match event {
                Event::Arrival(k) => self.arrive(time, k),
                Event::HedgeTimer(k) => self.hedge(time, k),
                Event::Completion { replica, copy } => self.complete(time, replica, copy),
            }
        }
        self.result()
    }

    /// Stability known in closed form: no backups → ρ < 1; every request duplicated and never
    /// cancelled → (1 + h)ρ < 1 with h = 1; nothing is stable at ρ ≥ 1. Everything else is
    /// judged from the run itself.
    fn theory_stable(&self) -> Option<bool> {
        let rho = self.config.load;
        match (self.delay_ms, self.config.cancellation) {
            (None, _) => Some(rho < 1.0),
            (Some(d), Cancellation::Never) if d <= 0.0 => {
                Some(crate::theory::duplication_stable(rho, 1.0))
            }
            _ if rho >= 1.0 => Some(false),
            _ => None,
        }
    }

    fn gap(&self, k: u64) -> f64 {
        let mut s = self.key(k).sample(GAP, ONCE);
        -libm::log(s.next_open_unit()) / self.arrival_rate
    }

    fn arrive(&mut self, now: f64, k: u64) {
        self.last_arrival = now;
        let mut choice = self.key(k).sample(CHOICE, ONCE);
        let n = self.config.replicas;
        let primary = Self::uniform_below(choice.next_bits(), n);
        let backup_replica = (primary + 1 + Self::uniform_below(choice.next_bits(), n - 1)) % n;
        debug_assert_eq!(k, self.first + self.requests.len() as u64);
        self.peak_in_flight = self.peak_in_flight.max(self.requests.len() + 1);
        self.requests.push_back(Request {
            arrival: now,
            answered: false,
            copies: [None, None],
            backup_replica,
        });
        let (service, _) = self.service(k, PRIMARY);
        self.primary_work += service;
        self.enqueue(now, k, primary, false);
        match self.delay_ms {
            Some(d) if d <= 0.0 => self.hedge(now, k),
            Some(d) => self.schedule(now + d, Event::HedgeTimer(k)),
            None => {}
        }
        self.unanswered += 1;
        if self.unanswered > MAX_IN_FLIGHT && self.stable_by_theory != Some(true) {
            self.runaway = Some(k + 1);
        } else if k + 1 < self.config.requests {
            let next = now + self.gap(k + 1);
            self.schedule(next, Event::Arrival(k + 1));
        }
    }

    /// Request `k`, which must still be in flight.
    fn request(&mut self, k: u64) -> &mut Request {
        &mut self.requests[(k - self.first) as usize]
    }

    /// Gives the copy's slot back; every reference to it goes stale.
    fn release(&mut self, r: CopyRef) {
        self.copies.remove(r);
        self.retire();
    }

    /// Drops answered requests with no copy left from the front of the window.
    fn retire(&mut self) {
        while let Some(r) = self.requests.front() {
            let busy = r.copies.iter().flatten().any(|&c| self.copies.contains(c));
            if !r.answered || busy {
                return;
            }
            self.requests.pop_front();
            self.first += 1;
        }
    }

    fn hedge(&mut self, now: f64, k: u64) {
        if k < self.first {
            return; // answered and retired long ago
        }
        let r = *self.request(k);
        if r.answered || r.copies[1].is_some() {
            return;
        }
        self.backups += 1;
        self.enqueue(now, k, r.backup_replica, true);
    }

    fn enqueue(&mut self, now: f64, k: u64, replica: u32, backup: bool) {
        let (service_ms, slow) = self.service(k, if backup { BACKUP } else { PRIMARY });
        let id = self.copies.insert(Copy {
            request: k,
            service_ms,
            slow,
            enqueued_at: now,
            started_at: 0.0,
            state: CopyState::Waiting,
            backup,
            replica,
        });
        self.request(k).copies[usize::from(backup)] = Some(id);
        let station = &mut self.replicas[replica as usize];
        station.push(id);
        if station.idle_server().is_some() {
            self.start_next(now, replica);
        }
    }

    /// Starts the next live copy at the head of `replica`'s queue (cancelled ones are skipped).
    fn start_next(&mut self, now: f64, replica: u32) {
        let copies = &mut self.copies;
        let started = self.replicas[replica as usize].start_next(0, |id| {
            // Cancelled while it waited: stale, skipped.
            copies
                .get(id)
                .is_some_and(|c| c.state == CopyState::Waiting)
        });
        if let Some(id) = started {
            let c = copies.get_mut(id).expect("a started copy is live");
            c.state = CopyState::InService;
            c.started_at = now;
            let done = now + c.service_ms;
            self.schedule(done, Event::Completion { replica, copy: id });
        }
    }

    fn account(&mut self, copy: &Copy, worked: f64) {
        self.consumed_work += worked;
        if copy.backup {
            self.backup_work += worked;
        }
    }

    /// Counts a copy whose service ran to its end.
    fn ran_to_completion(&mut self, copy: &Copy) {
        self.backups_completed += u64::from(copy.backup);
    }

    fn complete(&mut self, now: f64, replica: u32, id: CopyRef) {
        // A completion event for a copy that was cancelled and freed its server is stale.
        if self.replicas[replica as usize].serving(0) != Some(id) {
            return;
        }
        let Some(&copy) = self.copies.get(id) else {
            return;
        };
        match copy.state {
            CopyState::InService => {
                self.account(&copy, copy.service_ms);
                self.ran_to_completion(&copy);
                self.sojourn_sum += now - copy.enqueued_at;
                self.sojourn_count += 1;
                self.release(id);
                self.answer(now, copy.request);
            }
            CopyState::Draining => {
                // A cancelled copy whose service could not be interrupted has finished.
                self.account(&copy, copy.service_ms);
                self.ran_to_completion(&copy);
                self.release(id);
            }
            CopyState::Waiting => {}
        }
        self.start_next(now, replica);
    }

    fn answer(&mut self, now: f64, k: u64) {
        if k < self.first {
            return; // answered and retired already
        }
        let r = self.request(k);
        if r.answered {
            return;
        }
        r.answered = true;
        let (arrival, copies) = (r.arrival, r.copies);
        self.unanswered -= 1;
        let latency = now - arrival;
        if k >= self.warmup {
            self.off_scale |= latency > shared_bins().edges()[BIN_COUNT];
            self.latency.record(shared_bins(), latency);
            self.latency_sum += latency;
            self.measured += 1;
            let span = (self.config.requests - self.warmup).max(1);
            let block = (((k - self.warmup) * 4) / span).min(3) as usize;
            self.block_sums[block] += latency;
            self.block_counts[block] += 1;
        }
        for id in copies.into_iter().flatten() {
            let Some(&c) = self.copies.get(id) else {
                continue; // finished and released
            };
            let in_service = match c.state {
                CopyState::Waiting => false,
                CopyState::InService => true,
                CopyState::Draining => continue,
            };
            match self
                .config
                .cancellation
                .on_loser(c.backup, in_service, c.slow)
            {
                None => {}
                // Still queued: it leaves the queue lazily (a stale reference), at no cost.
                Some(_) if !in_service => self.release(id),
                Some(true) => {
                    // Freed at once: it cost its service so far.
                    self.account(&c, now - c.started_at);
                    self.release(id);
                    self.start_next(now, c.replica);
                }
                Some(false) => {
                    if let Some(c) = self.copies.get_mut(id) {
                        c.state = CopyState::Draining;
                    }
                }
            }
        }
        self.retire();
    }

    fn result(self) -> LoadedResult {
        let capacity = f64::from(self.config.replicas) * self.last_arrival.max(f64::MIN_POSITIVE);
        // Empirical instability: the mean latency keeps climbing from block to block and the
        // last quarter waits at least twice as long as the first. A stable queue's block means
        // fluctuate; an unstable one's grow without bound.
        let means: Vec<f64> = self
            .block_sums
            .iter()
            .zip(self.block_counts)
            .map(|(s, c)| s / c.max(1) as f64)
            .collect();
        let drifting = means.windows(2).all(|w| w[1] > w[0]) && means[3] > 2.0 * means[0];
        let unstable = match (self.runaway, self.stable_by_theory) {
            (Some(arrived), _) => Some(Unstable::Runaway { arrived }),
            (None, Some(false)) => Some(Unstable::Overloaded),
            (None, None) if drifting => Some(Unstable::Drifting),
            _ if self.off_scale => Some(Unstable::OffScale),
            // Warm-up is a tenth of at least 1,000 requests, so a finished run measured some.
            _ => None,
        };
        let stable = unstable.is_none() && self.measured > 0;
        let arrived = self.runaway.unwrap_or(self.config.requests);
        let capacity_cost = (self.consumed_work - self.primary_work) / capacity;
        LoadedResult {
            load: self.config.load,
            policy: self.config.policy,
            cancellation: self.config.cancellation,
            delay_ms: self.delay_ms,
            stable,
            latency: stable.then(|| Percentiles::of(&self.latency)),
            mean_ms: stable.then(|| self.latency_sum / self.measured as f64),
            copy_sojourn_ms: stable.then(|| self.sojourn_sum / self.sojourn_count.max(1) as f64),
            extra_requests: self.backups as f64 / arrived as f64,
            backups_completed: (self.backups > 0)
                .then(|| self.backups_completed as f64 / self.backups as f64),
            extra_work: self.backup_work / self.primary_work,
            capacity_cost,
            utilisation: self.consumed_work / capacity,
            peak_in_flight: self.peak_in_flight as u64,
            unstable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::loaded::{LoadedParams, LoadedPolicy, STREAM};

    #[test]
    fn no_backups_cost_nothing_and_duplicates_go_elsewhere() {
        let r = LoadedConfig::new(LoadedParams { replicas: 10, load: 0.5, policy: LoadedPolicy::None, requests: 20_000, seed: 3 })
            .unwrap()
            .run();
        assert_eq!(r.extra_requests, 0.0);
        assert_eq!(r.extra_work, 0.0);
        assert!(r.capacity_cost.abs() < 1e-9);
        let d = LoadedConfig::new(LoadedParams { replicas: 10, load: 0.2, policy: LoadedPolicy::Duplicate, requests: 20_000, seed: 3 })
            .unwrap()
            .run();
        assert_eq!(d.extra_requests, 1.0);
        assert!(d.capacity_cost > 0.0);
        // Duplicating at low load beats waiting on one replica.
        let none = LoadedConfig::new(LoadedParams { replicas: 10, load: 0.2, policy: LoadedPolicy::None, requests: 20_000, seed: 3 })
            .unwrap()
            .run();
        assert!(d.latency.unwrap().p99 < none.latency.unwrap().p99);
        // Elsewhere: every duplicate lands on a replica other than its primary's, and on any
        // of the others. Stepped event by event with nothing cancelled (`Never`), so right
        // after each arrival both copies are live in the slab and say where they queue.
        for replicas in [2u32, 3, 10] {
            let config = LoadedConfig::new(LoadedParams { replicas, load: 0.3, policy: LoadedPolicy::Duplicate, requests: 20_000, seed: 3 })
                .unwrap()
                .with_cancellation(Cancellation::Never);
            let mut sim = Simulation::new(&config, STREAM, config.delay_ms());
            sim.stable_by_theory = sim.theory_stable();
            sim.schedule(sim.gap(0), Event::Arrival(0));
            let n = replicas as usize;
            let mut pairs = vec![0u64; n * n];
            while let Some((time, event)) = sim.events.pop() {
                match event {
                    Event::Arrival(k) => {
                        sim.arrive(time, k);
                        let copies = sim.request(k).copies;
                        let [primary, backup] = copies.map(|c| {
                            let c = sim.copies.get(c.expect("both copies sent")).unwrap();
                            c.replica as usize
                        });
                        pairs[primary * n + backup] += 1;
                    }
                    Event::HedgeTimer(k) => sim.hedge(time, k),
                    Event::Completion { replica, copy } => sim.complete(time, replica, copy),
                }
            }
            for p in 0..n {
                for b in 0..n {
                    let count = pairs[p * n + b];
                    if p == b {
                        assert_eq!(
                            count, 0,
                            "{replicas} replicas: a duplicate on its primary's"
                        );
                    } else {
                        // 20,000 pairs over n(n − 1) ≤ 90 cells: each expects 222 or more.
                        assert!(count > 100, "{replicas} replicas: ({p}, {b}) seen {count}");
                    }
                }
            }
            assert_eq!(pairs.iter().sum::<u64>(), 20_000);
        }
    }
}
