//! The discrete-event simulation of one loaded run, on [`crate::des`].
//!
//! Its events are kept in three places, each in the order it pops, and numbered from one
//! counter so that together they pop exactly as one [`crate::des::EventQueue`] would (time,
//! then the order they were scheduled, [`EventKey`]):
//! - the next arrival (there is only ever one: each arrival schedules the next);
//! - the hedge timers, a FIFO: each fires a fixed delay after its request arrived, so they come
//!   due in arrival order;
//! - each replica's next completion, in the kernel's [`ReplicaSet`]: a replica serves one
//!   copy at a time, and a copy cancelled in service simply has its completion replaced by the
//!   next one's (or cleared), so no stale event is ever stored.
//!
//! A request's copies live inline in its record, in a window from the oldest request in flight
//! to the newest; a replica's queue holds copy ids (`request << 1 | attempt`), and a
//! cancelled copy still queued is skipped when it reaches the head (lazy cancellation). The
//! random draws a request needs at arrival (its gap, replica choices and primary service) are
//! computed a block of requests ahead: they are addressed, so when they are drawn changes no
//! number.

use super::config::{LoadedConfig, LoadedResult, MAX_IN_FLIGHT, TenantOutcome, Unstable};
use super::policy::Cancellation;
use crate::des::{EventKey, FifoTimers, Ring};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::replicas::draws::{CHOICE, ONCE, gap_ms, primary_and_backup};
use crate::lab::replicas::{Answers, ReplicaSet, uniform_below};
use crate::lab::service::ServiceSampler;
use crate::sampling::address::{RequestKey, Stream};
use crate::sampling::batch::BatchHistogram;
use crate::sampling::histogram::{BIN_COUNT, BinTally, Histogram, shared_bins};
use std::rc::Rc;

// A request's sub-streams, by purpose (the "leaf" of its address), are the kernel's
// (`replicas::draws`: its copies' service times, attempt 0 the primary and 1 the backup, its
// replica choices and the gap before it), and one more:
/// The request's tenant (a run with two tenants only): its own sub-stream, so drawing it moves
/// no other draw.
const TENANT: u32 = 3;
const PRIMARY: u32 = 0;
const BACKUP: u32 = 1;

/// Requests whose arrival draws are computed together.
const BLOCK: usize = 64;

/// What happened at one step of a run (for stepping it in tests, and for a trace's observer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Event {
    Arrival(u64),
    HedgeTimer(u64),
    Completion {
        replica: u32,
    },
    /// A delayed cancellation of request `k`'s copy landed (`cancel_delay_ms`).
    Cancel(u64),
}

/// Where a copy of a request is. `Unsent` and `Released` copies hold no server and no queue
/// place that counts (a released copy's queue entry is skipped when it reaches the head).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopyState {
    /// Not sent (yet).
    Unsent,
    Waiting,
    InService,
    /// Cancelled while its server finishes the service it is in (a hiccup under `Either`).
    Draining,
    /// Finished, or cancelled and gone.
    Released,
}

impl CopyState {
    /// The copy holds a queue place or a server.
    #[inline(always)]
    fn live(self) -> bool {
        matches!(
            self,
            CopyState::Waiting | CopyState::InService | CopyState::Draining
        )
    }
}

#[derive(Debug, Clone, Copy)]
struct Copy {
    service_ms: f64,
    enqueued_at: f64,
    started_at: f64,
    slow: bool,
    state: CopyState,
}

const UNSENT: Copy = Copy {
    service_ms: 0.0,
    enqueued_at: 0.0,
    started_at: 0.0,
    slow: false,
    state: CopyState::Unsent,
};

/// A copy's id in a replica's queue: its request and attempt.
#[inline(always)]
fn copy_id(k: u64, attempt: u32) -> u64 {
    (k << 1) | u64::from(attempt)
}

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    key: RequestKey,
    answered: bool,
    /// The request is tenant B's, which sends no backup (a run with two tenants).
    tenant_b: bool,
    primary_replica: u32,
    backup_replica: u32,
    copies: [Copy; 2],
}

impl Request {
    fn replica(&self, attempt: usize) -> u32 {
        if attempt == 0 {
            self.primary_replica
        } else {
            self.backup_replica
        }
    }
}

/// The arrival draws of [`BLOCK`] consecutive requests from `start`.
struct Draws {
    start: u64,
    key: [RequestKey; BLOCK],
    gap: [f64; BLOCK],
    primary: [u32; BLOCK],
    backup: [u32; BLOCK],
    service_ms: [f64; BLOCK],
    slow: [bool; BLOCK],
    tenant_b: [bool; BLOCK],
}

pub(super) struct Simulation<'a> {
    config: &'a LoadedConfig,
    stream: Stream,
    delay_ms: Option<f64>,
    sampler: Option<Rc<ServiceSampler>>,
    draws: Box<Draws>,
    /// Events scheduled so far: each event's sequence number.
    seq: u64,
    /// The next arrival ([`EventKey::NONE`] when none is left) and its request.
    arrival: (EventKey, u64),
    /// Pending hedge timers, due in this order, and their requests.
    timers: FifoTimers<u64>,
    /// Pending delayed cancellations (a fixed delay after each answer, so due in this order),
    /// each with its request and the copy it cancels. Empty unless `cancel_delay_ms` is set.
    cancels: FifoTimers<(u64, u8)>,
    /// Each tenant's measured latency, in a run with two tenants.
    tenants: Option<Box<[TenantTally; 2]>>,
    /// The replicas, queueing copy ids ([`copy_id`]), and each one's next completion.
    replicas: ReplicaSet<u64>,
    /// Each replica's live copies (waiting, in service or draining), primaries at `2r` and
    /// backups at `2r + 1`: kept as copies come and go, so a trace reads them in O(replicas)
    /// after an event instead of scanning every request in flight.
    live: Vec<u32>,
    /// Requests from the oldest one still in flight (request `first`) to the newest, with
    /// their copies.
    requests: Ring<Request>,
    first: u64,
    peak_in_flight: usize,
    /// Set when the backlog passed [`MAX_IN_FLIGHT`]: the arrivals so far; no more arrive.
    runaway: Option<u64>,
    /// Requests arrived and not yet answered.
    unanswered: usize,
    /// Stability known in closed form, when it is.
    stable_by_theory: Option<bool>,
    arrival_rate: f64,
    /// The measured latencies.
    answers: Answers,
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

/// One tenant's measured latencies, in a run with two tenants.
struct TenantTally {
    latency: BatchHistogram,
    sum: f64,
    measured: u64,
}

impl TenantTally {
    /// A tenant expected to measure about `expected` requests (its share of the run's).
    fn new(expected: u64) -> Self {
        TenantTally {
            latency: BatchHistogram::new(expected),
            sum: 0.0,
            measured: 0,
        }
    }

    fn record(&mut self, bin: usize, latency: f64) {
        self.latency.record_bin(bin, latency);
        self.sum += latency;
        self.measured += 1;
    }

    /// The tenant's numbers, by the same rules as the run's own: none when the run is not
    /// `stable` or the tenant measured nothing.
    fn outcome(&self, stable: bool) -> TenantOutcome {
        let ok = stable && self.measured > 0;
        let merged = self.latency.merged();
        TenantOutcome {
            measured: self.measured,
            latency: ok.then(|| Percentiles::of(&merged)),
            mean_ms: ok.then(|| self.sum / self.measured as f64),
            intervals: ok.then(|| self.latency.intervals(shared_bins(), &merged)),
        }
    }
}

impl<'a> Simulation<'a> {
    /// A run of `config` on the draws of `stream`, sending backups after `delay_ms` (`None`:
    /// no backups, whatever the policy says).
    pub(super) fn new(config: &'a LoadedConfig, stream: Stream, delay_ms: Option<f64>) -> Self {
        let mean = config.service.mean_ms();
        let span = Answers::span(config.requests);
        let mut sim = Simulation {
            config,
            stream,
            delay_ms,
            sampler: config.service.sampler(),
            draws: Box::new(Draws {
                start: 0,
                key: [RequestKey::new(0, stream, 0); BLOCK],
                gap: [0.0; BLOCK],
                primary: [0; BLOCK],
                backup: [0; BLOCK],
                service_ms: [0.0; BLOCK],
                slow: [false; BLOCK],
                tenant_b: [false; BLOCK],
            }),
            seq: 0,
            arrival: (EventKey::NONE, 0),
            timers: FifoTimers::new(),
            cancels: FifoTimers::new(),
            tenants: config.tenant_a_share.map(|share| {
                let a = libm::round(span as f64 * share) as u64;
                Box::new([TenantTally::new(a), TenantTally::new(span - a.min(span))])
            }),
            replicas: ReplicaSet::new(config.replicas),
            live: vec![0; 2 * config.replicas as usize],
            requests: Ring::new(),
            first: 0,
            peak_in_flight: 0,
            runaway: None,
            unanswered: 0,
            stable_by_theory: None,
            arrival_rate: config.load * f64::from(config.replicas) / mean,
            answers: Answers::new(config.requests),
            sojourn_sum: 0.0,
            sojourn_count: 0,
            backups: 0,
            backups_completed: 0,
            backup_work: 0.0,
            primary_work: 0.0,
            consumed_work: 0.0,
            last_arrival: 0.0,
        };
        sim.fill_draws(0);
        sim
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Draws the arrival numbers of requests `start..start + BLOCK`.
    fn fill_draws(&mut self, start: u64) {
        let n = self.config.replicas;
        let (seed, stream, rate, service) = (
            self.config.seed,
            self.stream,
            self.arrival_rate,
            &self.config.service,
        );
        let sampler = self.sampler.as_deref();
        let share = self.config.tenant_a_share;
        let d = &mut *self.draws;
        d.start = start;
        for i in 0..BLOCK {
            let key = RequestKey::new(seed, stream, start + i as u64);
            d.key[i] = key;
            d.gap[i] = gap_ms(key, rate);
            (d.primary[i], d.backup[i]) = primary_and_backup(key, n);
            let (ms, slow) = service.sample_copy(sampler, key, PRIMARY);
            d.service_ms[i] = ms;
            d.slow[i] = slow;
            if let Some(share) = share {
                // Tenant A with probability `share`: 1 makes every request A's, 0 none.
                d.tenant_b[i] = key.sample(TENANT, ONCE).next_open_unit() >= share;
            }
        }
    }

    /// The gap before request `k`'s arrival, `k` in or just past the current block.
    fn gap(&mut self, k: u64) -> f64 {
        if k - self.draws.start >= BLOCK as u64 {
            self.fill_draws(k);
        }
        self.draws.gap[(k - self.draws.start) as usize]
    }

    /// Processes the next event, and says which it was (`None` when none is left).
    #[cfg(test)]
    fn step(&mut self) -> Option<Event> {
        self.step_timed().map(|(_, event)| event)
    }

    /// [`Self::step`], with the event's time (ms).
    #[inline(always)]
    fn step_timed(&mut self) -> Option<(f64, Event)> {
        // A timer whose request has been answered (or retired) would do nothing when it
        // fires, so it is dropped now: the events left pop in the same order.
        let (requests, first) = (&self.requests, self.first);
        self.timers
            .drop_front_while(|&k| k < first || requests[(k - first) as usize].answered);
        let mut timer = self.timers.first();
        // Delayed cancellations (none in the loaded model: one predictable branch) compete
        // with the timers for the middle place.
        let mut cancel_first = false;
        if !self.cancels.is_empty() {
            self.drop_idle_cancels();
            let cancel = self.cancels.first();
            if cancel < timer {
                timer = cancel;
                cancel_first = true;
            }
        }
        let (replica, completion) = self.replicas.next_completion();
        // Two comparisons and two branches on them (no jump table on an event kind): a
        // completion, else a timer, else the arrival.
        let timer_first = timer < self.arrival.0;
        let key = if timer_first { timer } else { self.arrival.0 };
        if completion < key {
            self.complete(completion.time(), replica);
            Some((completion.time(), Event::Completion { replica }))
        } else if !key.is_some() {
            None
        } else if timer_first && cancel_first {
            let (_, (k, attempt)) = self.cancels.pop().expect("a cancel is due");
            self.land_cancel(key.time(), k, usize::from(attempt));
            Some((key.time(), Event::Cancel(k)))
        } else if timer_first {
            let (_, k) = self.timers.pop().expect("a timer is due");
            self.hedge(key.time(), k);
            Some((key.time(), Event::HedgeTimer(k)))
        } else {
            let k = self.arrival.1;
            self.arrival.0 = EventKey::NONE;
            self.arrive(key.time(), k);
            Some((key.time(), Event::Arrival(k)))
        }
    }

    fn start(&mut self) {
        self.stable_by_theory = self.theory_stable();
        let first = self.gap(0);
        let seq = self.next_seq();
        self.arrival = (EventKey::new(first, seq), 0);
    }

    /// Runs the simulation to its end, showing `observe` the simulation after each event and
    /// the event's time (ms): the hook a trace records through ([`super::trace`]). An ordinary
    /// run's observer, in [`LoadedConfig::run`], does nothing, and no observer can change the
    /// run: it only reads. With the run's result, each tenant's latency when it has two.
    #[inline(always)]
    pub(super) fn run_observed(
        mut self,
        mut observe: impl FnMut(&Self, f64, Event),
    ) -> (LoadedResult, Option<[TenantOutcome; 2]>) {
        self.start();
        while let Some((now, event)) = self.step_timed() {
            observe(&self, now, event);
        }
        let tenants = self.tenants.take();
        let result = self.result();
        let tenants = tenants.map(|t| t.map(|t| t.outcome(result.stable)));
        (result, tenants)
    }

    /// Drops the pending cancellations at the front whose copy is no longer waiting or in
    /// service: they would do nothing when they land, so the events left pop in the same
    /// order, and the queue holds only cancels that still matter.
    fn drop_idle_cancels(&mut self) {
        let (requests, first) = (&self.requests, self.first);
        self.cancels.drop_front_while(|&(k, attempt)| {
            k < first
                || !matches!(
                    requests[(k - first) as usize].copies[usize::from(attempt)].state,
                    CopyState::Waiting | CopyState::InService
                )
        });
    }

    /// A delayed cancellation of copy `attempt` of request `k` lands: the rule is applied to
    /// the copy as it is now (it may have started, or finished, since it was sent).
    fn land_cancel(&mut self, now: f64, k: u64, attempt: usize) {
        if k < self.first {
            return; // every copy is gone
        }
        let c = self.request(k).copies[attempt];
        self.cancel_loser(now, k, attempt, c);
    }

    /// Applies the cancellation rule to copy `attempt` of answered request `k`, now, whose
    /// state is `c`'s.
    #[inline(always)]
    fn cancel_loser(&mut self, now: f64, k: u64, attempt: usize, c: Copy) {
        // Only a waiting or serving copy is a loser to decide on (two compares, not a jump on
        // the state).
        let in_service = c.state == CopyState::InService;
        if !in_service && c.state != CopyState::Waiting {
            return; // not sent, finished, or already draining
        }
        let backup = attempt == 1;
        match self
            .config
            .cancellation
            .on_loser(backup, in_service, c.slow)
        {
            None => {}
            // Still queued: it leaves the queue lazily (a stale id), at no cost.
            Some(_) if !in_service => self.release(k, attempt),
            Some(true) => {
                // Freed at once: it cost its service so far.
                let replica = self.request(k).replica(attempt);
                self.account(backup, now - c.started_at);
                self.release(k, attempt);
                self.start_next(now, replica);
            }
            Some(false) => self.request(k).copies[attempt].state = CopyState::Draining,
        }
    }

    /// Counts each replica's live copies (queued, in service or draining: what holds a queue
    /// place or its server; a cancelled copy still in the queue is not counted) into
    /// `primaries` and `backups`, one slot a replica.
    pub(super) fn live_copies(&self, primaries: &mut [u32], backups: &mut [u32]) {
        for (r, pair) in self.live.chunks_exact(2).enumerate() {
            primaries[r] = pair[0];
            backups[r] = pair[1];
        }
    }

    /// [`Self::live_copies`] counted the slow way, from every request in flight (for the
    /// test that the kept counts are the same).
    #[cfg(test)]
    pub(super) fn live_copies_scanned(&self, primaries: &mut [u32], backups: &mut [u32]) {
        primaries.fill(0);
        backups.fill(0);
        for i in 0..self.requests.len() {
            let r = &self.requests[i];
            for (attempt, counts) in [&mut *primaries, &mut *backups].into_iter().enumerate() {
                if r.copies[attempt].state.live() {
                    counts[r.replica(attempt) as usize] += 1;
                }
            }
        }
    }

    /// Stability known in closed form: no backups → ρ < 1; every request duplicated and never
    /// cancelled → (1 + h)ρ < 1 with h = 1; nothing is stable at ρ ≥ 1. Everything else is
    /// judged from the run itself.
    fn theory_stable(&self) -> Option<bool> {
        let rho = self.config.load;
        // A cancellation that never lands is no cancellation; with two tenants only tenant A's
        // share of the requests is duplicated.
        let never = self.config.cancel_delay_ms == Some(f64::INFINITY);
        let cancellation = if never {
            Cancellation::Never
        } else {
            self.config.cancellation
        };
        let h = self.config.tenant_a_share.unwrap_or(1.0);
        match (self.delay_ms, cancellation) {
            (None, _) => Some(rho < 1.0),
            (Some(d), Cancellation::Never) if d <= 0.0 => {
                Some(crate::theory::duplication_stable(rho, h))
            }
            _ if rho >= 1.0 => Some(false),
            _ => None,
        }
    }

    fn arrive(&mut self, now: f64, k: u64) {
        self.last_arrival = now;
        let i = (k - self.draws.start) as usize;
        let d = &*self.draws;
        let (key, primary, backup_replica, service, slow, tenant_b) = (
            d.key[i],
            d.primary[i],
            d.backup[i],
            d.service_ms[i],
            d.slow[i],
            d.tenant_b[i],
        );
        debug_assert_eq!(k, self.first + self.requests.len() as u64);
        self.peak_in_flight = self.peak_in_flight.max(self.requests.len() + 1);
        self.requests.push_back(Request {
            arrival: now,
            key,
            answered: false,
            tenant_b,
            primary_replica: primary,
            backup_replica,
            copies: [UNSENT; 2],
        });
        self.primary_work += service;
        self.enqueue(now, k, PRIMARY, service, slow);
        // Tenant B sends no backup (always tenant A with one tenant).
        let delay = if tenant_b { None } else { self.delay_ms };
        match delay {
            Some(d) if d <= 0.0 => self.hedge(now, k),
            Some(d) => {
                let seq = self.next_seq();
                self.timers.set(EventKey::new(now + d, seq), k);
            }
            None => {}
        }
        self.unanswered += 1;
        if self.unanswered > MAX_IN_FLIGHT && self.stable_by_theory != Some(true) {
            self.runaway = Some(k + 1);
        } else if k + 1 < self.config.requests {
            let next = now + self.gap(k + 1);
            let seq = self.next_seq();
            self.arrival = (EventKey::new(next, seq), k + 1);
        }
    }

    /// Request `k`, which must still be in flight.
    #[inline(always)]
    fn request(&mut self, k: u64) -> &mut Request {
        &mut self.requests[(k - self.first) as usize]
    }

    /// The copy is gone: finished, or cancelled.
    fn release(&mut self, k: u64, attempt: usize) {
        let r = self.request(k);
        // Every caller releases a live copy (waiting, in service or draining).
        debug_assert!(r.copies[attempt].state.live());
        r.copies[attempt].state = CopyState::Released;
        let replica = r.replica(attempt) as usize;
        self.live[2 * replica + attempt] -= 1;
        self.retire();
    }

    /// Drops answered requests with no copy left from the front of the window.
    fn retire(&mut self) {
        while let Some(r) = self.requests.front() {
            if !r.answered || r.copies[0].state.live() || r.copies[1].state.live() {
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
        if r.answered || r.copies[1].state != CopyState::Unsent {
            return;
        }
        self.backups += 1;
        let (service_ms, slow) =
            self.config
                .service
                .sample_copy(self.sampler.as_deref(), r.key, BACKUP);
        self.enqueue(now, k, BACKUP, service_ms, slow);
    }

    fn enqueue(&mut self, now: f64, k: u64, attempt: u32, service_ms: f64, slow: bool) {
        let r = self.request(k);
        r.copies[attempt as usize] = Copy {
            service_ms,
            slow,
            enqueued_at: now,
            started_at: 0.0,
            state: CopyState::Waiting,
        };
        let replica = r.replica(attempt as usize);
        self.live[2 * replica as usize + attempt as usize] += 1;
        if self.replicas.push(replica, copy_id(k, attempt)) {
            self.start_next(now, replica);
        }
    }

    /// Starts the next live copy at the head of `replica`'s queue (cancelled ones are
    /// skipped), and sets the replica's next completion (none when it goes idle).
    fn start_next(&mut self, now: f64, replica: u32) {
        let (requests, first) = (&mut self.requests, self.first);
        let started = self.replicas.start_next(replica, |id| {
            // Cancelled while it waited (and perhaps retired since): skipped.
            let k = id >> 1;
            k >= first
                && requests[(k - first) as usize].copies[(id & 1) as usize].state
                    == CopyState::Waiting
        });
        if let Some(id) = started {
            let c = &mut requests[((id >> 1) - first) as usize].copies[(id & 1) as usize];
            c.state = CopyState::InService;
            c.started_at = now;
            let done = now + c.service_ms;
            let seq = self.next_seq();
            self.replicas.complete_at(replica, done, seq);
        }
    }

    fn account(&mut self, backup: bool, worked: f64) {
        self.consumed_work += worked;
        if backup {
            self.backup_work += worked;
        }
    }

    fn complete(&mut self, now: f64, replica: u32) {
        let id = self
            .replicas
            .serving(replica)
            .expect("a replica with a completion is serving");
        let (k, attempt) = (id >> 1, (id & 1) as usize);
        let backup = attempt == 1;
        let copy = self.request(k).copies[attempt];
        match copy.state {
            CopyState::InService => {
                self.account(backup, copy.service_ms);
                self.backups_completed += u64::from(backup);
                self.sojourn_sum += now - copy.enqueued_at;
                self.sojourn_count += 1;
                self.release(k, attempt);
                self.answer(now, k);
            }
            CopyState::Draining => {
                // A cancelled copy whose service could not be interrupted has finished.
                self.account(backup, copy.service_ms);
                self.backups_completed += u64::from(backup);
                self.release(k, attempt);
            }
            _ => unreachable!("the copy a replica serves is in service or draining"),
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
        let (arrival, tenant_b) = (r.arrival, r.tenant_b);
        self.unanswered -= 1;
        let latency = now - arrival;
        if let Some(bin) = self.answers.record(k, latency)
            && let Some(t) = self.tenants.as_deref_mut()
        {
            t[usize::from(tenant_b)].record(bin, latency);
        }
        if let Some(delay) = self.config.cancel_delay_ms {
            self.send_cancels(now, k, delay);
        } else {
            for attempt in 0..2 {
                if k < self.first {
                    break; // retired: every copy is gone
                }
                let c = self.request(k).copies[attempt];
                self.cancel_loser(now, k, attempt, c);
            }
        }
        self.retire();
    }

    /// Sends the cancellations of answered request `k`'s losing copies, to land `delay` ms
    /// from `now` (never, when it is infinite): one for each copy still waiting or serving
    /// that the rule may stop.
    #[cold]
    fn send_cancels(&mut self, now: f64, k: u64, delay: f64) {
        if delay == f64::INFINITY {
            return;
        }
        for attempt in 0..2u8 {
            let c = self.request(k).copies[usize::from(attempt)];
            let live = matches!(c.state, CopyState::Waiting | CopyState::InService);
            if live
                && self
                    .config
                    .cancellation
                    .on_loser(attempt == 1, false, false)
                    .is_some()
            {
                let seq = self.next_seq();
                self.cancels
                    .set(EventKey::new(now + delay, seq), (k, attempt));
            }
        }
    }

    fn result(self) -> LoadedResult {
        let latency = self.answers.merged();
        let capacity = f64::from(self.config.replicas) * self.last_arrival.max(f64::MIN_POSITIVE);
        let unstable = Unstable::judge(self.runaway, self.stable_by_theory, &self.answers);
        let stable = unstable.is_none() && self.answers.measured() > 0;
        let arrived = self.runaway.unwrap_or(self.config.requests);
        let capacity_cost = (self.consumed_work - self.primary_work) / capacity;
        LoadedResult {
            load: self.config.load,
            policy: self.config.policy,
            cancellation: self.config.cancellation,
            delay_ms: self.delay_ms,
            stable,
            latency: stable.then(|| Percentiles::of(&latency)),
            mean_ms: stable.then(|| self.answers.mean_ms()),
            copy_sojourn_ms: stable.then(|| self.sojourn_sum / self.sojourn_count.max(1) as f64),
            extra_requests: self.backups as f64 / arrived as f64,
            backups_completed: (self.backups > 0)
                .then(|| self.backups_completed as f64 / self.backups as f64),
            extra_work: self.backup_work / self.primary_work,
            capacity_cost,
            utilisation: self.consumed_work / capacity,
            peak_in_flight: self.peak_in_flight as u64,
            unstable,
            intervals: if stable {
                Some(self.answers.intervals(&latency))
            } else {
                None
            },
        }
    }
}

/// The p95 (ms) of request latency in a run of `config` with no backups, on the draws of
/// `stream`: what a hedge at the loaded p95 waits for. Bit for bit the p95 of that run through
/// [`Simulation`] (`None` when the run is unstable), computed without its events.
///
/// With no backups each replica is a FIFO single server fed by its own arrivals, so a copy
/// finishes at `max(arrival, the replica's previous finish) + service` (Lindley's recursion):
/// exactly the `now + service` the simulation computes at the copy's start, whose `now` is
/// the arrival when the replica is idle and the previous completion otherwise (equal when they
/// tie, whichever pops first). The histogram's counts do not depend on the order latencies are
/// recorded in. And the run's stability is known without it: the closed form (ρ < 1) decides,
/// as in [`Simulation`], and a stable run is reported only when no latency is off the scale.
pub(super) fn no_backup_p95(config: &LoadedConfig, stream: Stream) -> Option<f64> {
    if config.load >= 1.0 {
        return None; // Overloaded (or a runaway): no latency is reported.
    }
    let n = config.replicas;
    let rate = config.load * f64::from(n) / config.service.mean_ms();
    let sampler = config.service.sampler();
    let bins = shared_bins();
    let top_edge = bins.edges()[BIN_COUNT];
    let warmup = config.requests / 10;
    let mut free = vec![0.0f64; n as usize];
    let mut tally = BinTally::new();
    let mut off_scale = false;
    let mut now = 0.0;
    for k in 0..config.requests {
        let key = RequestKey::new(config.seed, stream, k);
        let gap = gap_ms(key, rate);
        // The first arrival is at its gap (0 + gap is the gap: it is positive).
        now = if k == 0 { gap } else { now + gap };
        let replica = uniform_below(key.sample(CHOICE, ONCE).next_bits(), n) as usize;
        let (service, _) = config.service.sample_copy(sampler.as_deref(), key, PRIMARY);
        let done = now.max(free[replica]) + service;
        free[replica] = done;
        if k >= warmup {
            let latency = done - now;
            off_scale |= latency > top_edge;
            tally.record_bin(bins.bin_of(latency));
            tally.add_to_total(1);
        }
    }
    let mut latency = Histogram::new();
    latency.take_tally(&mut tally);
    (!off_scale).then(|| Percentiles::of(&latency).p95)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::loaded::{LoadedParams, LoadedPolicy, LoadedService, STREAM};

    #[test]
    fn no_backups_cost_nothing_and_duplicates_go_elsewhere() {
        let r = LoadedConfig::new(LoadedParams {
            replicas: 10,
            load: 0.5,
            policy: LoadedPolicy::None,
            requests: 20_000,
            seed: 3,
        })
        .unwrap()
        .run();
        assert_eq!(r.extra_requests, 0.0);
        assert_eq!(r.extra_work, 0.0);
        assert!(r.capacity_cost.abs() < 1e-9);
        let d = LoadedConfig::new(LoadedParams {
            replicas: 10,
            load: 0.2,
            policy: LoadedPolicy::Duplicate,
            requests: 20_000,
            seed: 3,
        })
        .unwrap()
        .run();
        assert_eq!(d.extra_requests, 1.0);
        assert!(d.capacity_cost > 0.0);
        // Duplicating at low load beats waiting on one replica.
        let none = LoadedConfig::new(LoadedParams {
            replicas: 10,
            load: 0.2,
            policy: LoadedPolicy::None,
            requests: 20_000,
            seed: 3,
        })
        .unwrap()
        .run();
        assert!(d.latency.unwrap().p99 < none.latency.unwrap().p99);
        // Elsewhere: every duplicate lands on a replica other than its primary's, and on any
        // of the others. Stepped event by event with nothing cancelled (`Never`), so right
        // after each arrival both copies are live in the slab and say where they queue.
        for replicas in [2u32, 3, 10] {
            let config = LoadedConfig::new(LoadedParams {
                replicas,
                load: 0.3,
                policy: LoadedPolicy::Duplicate,
                requests: 20_000,
                seed: 3,
            })
            .unwrap()
            .with_cancellation(Cancellation::Never);
            let mut sim = Simulation::new(&config, STREAM, config.delay_ms());
            sim.start();
            let n = replicas as usize;
            let mut pairs = vec![0u64; n * n];
            while let Some(event) = sim.step() {
                if let Event::Arrival(k) = event {
                    let r = *sim.request(k);
                    let [primary, backup] = [0, 1].map(|a| {
                        assert!(r.copies[a].state.live(), "both copies sent");
                        r.replica(a) as usize
                    });
                    pairs[primary * n + backup] += 1;
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

    #[test]
    fn the_no_backup_p95_is_the_simulated_runs_bit_for_bit() {
        use crate::lab::loaded::{DELAY_CALIBRATION_STREAM, exponential};
        use crate::lab::service::ServiceModel;
        use crate::sampling::lognormal::LogNormalMs;
        let custom = ServiceModel::new(
            LogNormalMs::new(3.0, 0.9).unwrap(),
            0.05,
            LogNormalMs::new(200.0, 0.5).unwrap(),
        )
        .unwrap();
        let services = [
            LoadedService::Lab(ServiceModel::default()),
            LoadedService::Lab(custom),
            exponential(10.0).unwrap(),
            // Latencies past the histogram's top: no p95.
            exponential(1e5).unwrap(),
        ];
        let mut off_scale = 0;
        for service in &services {
            for replicas in [2u32, 3, 10] {
                for load in [0.05, 0.5, 0.9, 0.99, 1.0, 1.5] {
                    for seed in [1u64, 99] {
                        let config = LoadedConfig::new(LoadedParams {
                            replicas,
                            load,
                            policy: LoadedPolicy::None,
                            requests: 4_000,
                            seed,
                        })
                        .unwrap()
                        .with_service(service.clone());
                        let want = Simulation::new(&config, DELAY_CALIBRATION_STREAM, None)
                            .run_observed(|_, _, _| {})
                            .0
                            .latency
                            .map(|p| p.p95);
                        let got = no_backup_p95(&config, DELAY_CALIBRATION_STREAM);
                        assert_eq!(
                            got.map(f64::to_bits),
                            want.map(f64::to_bits),
                            "{service:?} {replicas} replicas, load {load}, seed {seed}"
                        );
                        off_scale += usize::from(load < 1.0 && got.is_none());
                    }
                }
            }
        }
        assert!(off_scale > 0, "the off-scale case is covered");
    }
}
