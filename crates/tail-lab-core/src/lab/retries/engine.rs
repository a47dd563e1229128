//! The discrete-event simulation of one retries run, on [`crate::des`].
//!
//! Events are kept in three places and numbered from one counter, so that together they pop
//! as one [`crate::des::EventQueue`] would (time, then the order they were scheduled,
//! [`EventKey`]): the next arrival, each replica's next completion (in the kernel's
//! [`ReplicaSet`]: an attempt in service always runs to its end, so a replica has one pending
//! completion while it is busy), and the timers in [`Timers`] (attempt and request timeouts,
//! retries waiting out their backoff, hedge timers). Requests live in a [`Slab`] while the
//! client waits on them; a timer or an attempt whose request has gone finds its key stale.
//!
//! A timer is not cancelled when its request resolves: it stays until it is due and then does
//! nothing, because every event, even one that does nothing, ends a step of the attempts-at-
//! the-replicas integral (`integrate`), and a step split in two sums to other bits than the
//! step whole. Cancelling them would make the timers' memory follow the requests in flight,
//! and change that series' last bits.
//!
//! Each replica queues attempts that carry their own service time, because the replica serves
//! an attempt whether or not its client still waits for it: an abandoned attempt costs its
//! full service. Only a hedge's loser still queued when its sibling answers
//! is cancelled (the client tells the replica): its queue entry holds a ticket, and a ticket
//! removed from the ticket slab makes the entry skipped when it reaches the head.

use super::params::{Policy, RetriesConfig, RetriesResult, Unstable};
use super::rules::{ArrivalClock, Bucket};
use super::{MAX_IN_FLIGHT, MAX_IN_SYSTEM, STREAM};
use crate::des::{EventKey, Slab, SlotKey, Timers};
use crate::lab::replicas::{ReplicaSet, elsewhere, uniform_below};
use crate::lab::service::ServiceSampler;
use crate::sampling::address::RequestKey;
use crate::sampling::histogram::{BIN_COUNT, Histogram, LogBins, shared_bins};
use crate::sampling::timeline::Timeline;
use std::rc::Rc;

// A request's sub-streams, by purpose: its arrival gap, each attempt's replica, each attempt's
// service time, each retry's jitter.
const GAP: u32 = 0;
const CHOICE: u32 = 1;
const SERVICE: u32 = 2;
const JITTER: u32 = 3;

/// The attempt number of a request-wide timeout (a hedging or no-backup client's).
const WHOLE: u32 = u32::MAX;

// The timeline's series.
const REQUESTS: usize = 0;
const ATTEMPTS: usize = 1;
const GOODPUT: usize = 2;
const FAILURES: usize = 3;
const IN_SYSTEM: usize = 4;
const SERIES: usize = 5;

/// A timer's event.
#[derive(Debug, Clone, Copy)]
enum Timer {
    /// Attempt `.1` of a request times out (`WHOLE`: the request does).
    Timeout(SlotKey, u32),
    /// A retry's backoff is over: send the next attempt.
    Retry(SlotKey),
    /// A hedge's delay is over: send the backup.
    Hedge(SlotKey),
}

/// An attempt at a replica.
#[derive(Debug, Clone, Copy)]
struct Job {
    request: SlotKey,
    attempt: u32,
    service_ms: f64,
    /// A hedge's copy: removed from the ticket slab when the copy is cancelled while queued.
    ticket: Option<SlotKey>,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    arrival: f64,
    key: RequestKey,
    /// Attempts sent so far (the first included).
    sent: u32,
    /// The attempt the client waits on (a retrying client waits on one at a time).
    current: u32,
    /// The client waits for an answer (false while a retry waits out its backoff).
    waiting: bool,
    measured: bool,
    /// A hedge's copies: their replicas and tickets.
    replica: [u32; 2],
    ticket: [Option<SlotKey>; 2],
}

pub(super) struct Simulation<'a> {
    config: &'a RetriesConfig,
    sampler: Rc<ServiceSampler>,
    /// Events scheduled so far: each event's sequence number.
    seq: u64,
    /// The next arrival (request `next`), [`EventKey::NONE`] when none is due.
    arrival: EventKey,
    /// Timeouts, retries' backoffs and hedge delays, each with its request.
    timers: Timers<Timer>,
    /// The replicas, queueing attempts, and each one's next completion.
    replicas: ReplicaSet<Job>,
    /// Live attempts queued (not in service) at each replica.
    queued: Vec<u32>,
    requests: Slab<Request>,
    tickets: Slab<()>,
    budget: Option<Bucket>,
    clock: ArrivalClock,
    /// Expected arrivals so far (the sum of unit exponential gaps) and the next request.
    u: f64,
    next: u64,
    open: bool,
    runaway: Option<u64>,
    warmup_ms: f64,
    bins: &'static LogBins,
    off_scale: bool,
    timeline: Timeline,
    latency: Histogram,
    latency_sum: f64,
    /// Attempts at the replicas (queued or in service), and since when it has had that value.
    in_system: u64,
    since: f64,
    peak_in_flight: u64,
    peak_in_system: u64,
    r: RetriesResult,
}

impl<'a> Simulation<'a> {
    pub(super) fn new(config: &'a RetriesConfig) -> Self {
        let p = &config.p;
        let rate = p.load * f64::from(p.replicas) / config.service.mean_ms();
        let timeline =
            Timeline::new(p.duration_ms, p.windows as usize, SERIES).expect("checked shape");
        let n = p.replicas as usize;
        Simulation {
            config,
            sampler: ServiceSampler::shared(config.service.clone()),
            seq: 0,
            arrival: EventKey::NONE,
            timers: Timers::new(),
            replicas: ReplicaSet::new(p.replicas),
            queued: vec![0; n],
            requests: Slab::new(),
            tickets: Slab::new(),
            budget: p.budget.map(Bucket::new),
            clock: ArrivalClock::new(rate, p.spike),
            u: 0.0,
            next: 0,
            open: true,
            runaway: None,
            warmup_ms: p.duration_ms / 10.0,
            bins: shared_bins(),
            off_scale: false,
            r: RetriesResult {
                params: *p,
                unstable: None,
                requests: 0,
                attempts: 0,
                retries: 0,
                backups: 0,
                denied: 0,
                rejected: 0,
                successes: 0,
                failures: 0,
                wasted_work_ms: 0.0,
                work_ms: 0.0,
                measured: 0,
                measured_successes: 0,
                p50_ms: None,
                p99_ms: None,
                mean_ms: None,
                peak_in_flight: 0,
                peak_in_system: 0,
                attempts_after_end: 0,
                window_ms: timeline.bucket_ms(),
                window_requests: Vec::new(),
                window_attempts: Vec::new(),
                window_goodput: Vec::new(),
                window_failures: Vec::new(),
                window_p99_ms: Vec::new(),
                window_in_system: Vec::new(),
            },
            timeline,
            latency: Histogram::new(),
            latency_sum: 0.0,
            in_system: 0,
            since: 0.0,
            peak_in_flight: 0,
            peak_in_system: 0,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Sets a timer `timer` due at `time` (ms).
    fn set_timer(&mut self, time: f64, timer: Timer) {
        let seq = self.next_seq();
        self.timers.set(EventKey::new(time, seq), timer);
    }

    pub(super) fn run(mut self) -> RetriesResult {
        self.schedule_arrival();
        loop {
            // The earliest of a completion, a timer and the arrival, each by its key.
            let (replica, completion) = self.replicas.next_completion();
            let timer = self.timers.first();
            let arrival = self.arrival;
            if completion < timer && completion < arrival {
                self.integrate(completion.time());
                self.complete(completion.time(), replica);
            } else if timer < arrival {
                let (key, timer) = self.timers.pop().expect("a timer is due");
                let now = key.time();
                self.integrate(now);
                match timer {
                    Timer::Timeout(slot, attempt) => self.timeout(now, slot, attempt),
                    Timer::Retry(slot) => self.send_next(now, slot),
                    Timer::Hedge(slot) => self.hedge(now, slot),
                }
            } else if arrival.is_some() {
                self.arrival = EventKey::NONE;
                self.integrate(arrival.time());
                self.arrive(arrival.time());
            } else {
                break;
            }
            // Once arrivals are over and every request has resolved, what the replicas still
            // hold is abandoned work nobody waits for: the run ends.
            if !self.open && self.requests.is_empty() {
                break;
            }
        }
        self.result()
    }

    /// Adds the attempts at the replicas, times the time since the last event, to the windows
    /// that time spans.
    fn integrate(&mut self, now: f64) {
        let level = self.in_system as f64;
        let mut from = self.since;
        let end = now.min(self.timeline.span_ms());
        if level > 0.0 {
            while from < end {
                let b = self.timeline.bucket_of(from).expect("inside the span");
                let to = (self.timeline.start_ms(b) + self.timeline.bucket_ms()).min(end);
                // At least the window's own start: never a zero-width step that stalls.
                let to = if to > from { to } else { end };
                self.timeline.add(IN_SYSTEM, from, level * (to - from));
                from = to;
            }
        }
        self.since = now;
    }

    fn schedule_arrival(&mut self) {
        let key = RequestKey::new(self.config.p.seed, STREAM, self.next);
        self.u += -libm::log(key.sample(GAP, 0).next_open_unit());
        let t = self.clock.time(self.u);
        if t < self.config.p.duration_ms {
            let seq = self.next_seq();
            self.arrival = EventKey::new(t, seq);
        } else {
            self.open = false;
        }
    }

    fn arrive(&mut self, now: f64) {
        let p = &self.config.p;
        let key = RequestKey::new(p.seed, STREAM, self.next);
        self.next += 1;
        self.r.requests += 1;
        self.timeline.add(REQUESTS, now, 1.0);
        if let Some(b) = self.budget.as_mut() {
            b.deposit();
        }
        let measured = now >= self.warmup_ms;
        self.r.measured += u64::from(measured);
        let slot = self.requests.insert(Request {
            arrival: now,
            key,
            sent: 0,
            current: 0,
            waiting: false,
            measured,
            replica: [0; 2],
            ticket: [None; 2],
        });
        if p.policy == Policy::Hedge {
            if p.timeout_ms.is_finite() {
                self.set_timer(now + p.timeout_ms, Timer::Timeout(slot, WHOLE));
            }
            if p.hedge_delay_ms.is_finite() {
                self.set_timer(now + p.hedge_delay_ms, Timer::Hedge(slot));
            }
        }
        self.send_next(now, slot);
        self.peak_in_flight = self.peak_in_flight.max(self.requests.len() as u64);
        if self.requests.len() > MAX_IN_FLIGHT || self.in_system > MAX_IN_SYSTEM {
            self.runaway = Some(self.r.requests);
            self.open = false;
        } else {
            self.schedule_arrival();
        }
    }

    fn service_ms(&self, key: RequestKey, attempt: u32) -> f64 {
        self.sampler.sample(key.sample(SERVICE, attempt)).ms
    }

    /// Sends the request's next attempt to a random replica (a hedge's backup: to one other
    /// than its primary's).
    fn send_next(&mut self, now: f64, slot: SlotKey) {
        let p = self.config.p;
        let n = p.replicas;
        let Some(req) = self.requests.get_mut(slot) else {
            return;
        };
        let attempt = req.sent;
        req.sent += 1;
        req.current = attempt;
        req.waiting = true;
        let key = req.key;
        let bits = key.sample(CHOICE, attempt).next_bits();
        let replica = if attempt == 1 && p.policy == Policy::Hedge {
            elsewhere(req.replica[0], bits, n)
        } else {
            uniform_below(bits, n)
        };
        if attempt < 2 {
            req.replica[attempt as usize] = replica;
        }
        match p.policy {
            Policy::Retry if attempt > 0 => self.r.retries += 1,
            Policy::Hedge if attempt > 0 => self.r.backups += 1,
            _ => {}
        }
        let service_ms = self.service_ms(key, attempt);
        let ticket = (p.policy == Policy::Hedge).then(|| self.tickets.insert(()));
        if let (Some(t), Some(req)) = (ticket, self.requests.get_mut(slot)) {
            req.ticket[attempt.min(1) as usize] = Some(t);
        }
        let job = Job {
            request: slot,
            attempt,
            service_ms,
            ticket,
        };
        if self.enqueue(now, replica, job) {
            if p.policy != Policy::Hedge && p.timeout_ms.is_finite() {
                self.set_timer(now + p.timeout_ms, Timer::Timeout(slot, attempt));
            }
        } else {
            if let Some(t) = ticket {
                self.tickets.remove(t);
            }
            match p.policy {
                // A refused backup changes nothing: the request still waits on its primary.
                Policy::Hedge if attempt > 0 => {}
                _ => {
                    if let Some(req) = self.requests.get_mut(slot) {
                        req.waiting = false;
                    }
                    self.attempt_failed(now, slot);
                }
            }
        }
    }

    /// Puts `job` at `replica`, starting it if the replica is idle; false when the replica's
    /// queue is full and refuses it.
    fn enqueue(&mut self, now: f64, replica: u32, job: Job) -> bool {
        self.r.attempts += 1;
        self.timeline.add(ATTEMPTS, now, 1.0);
        if now >= self.config.p.duration_ms {
            self.r.attempts_after_end += 1;
        }
        let r = replica as usize;
        let busy = self.replicas.serving(replica).is_some();
        if busy
            && self
                .config
                .p
                .queue_limit
                .is_some_and(|q| self.queued[r] >= q)
        {
            self.r.rejected += 1;
            return false;
        }
        let idle = self.replicas.push(replica, job);
        debug_assert_eq!(idle, !busy);
        self.queued[r] += 1;
        self.in_system += 1;
        self.peak_in_system = self.peak_in_system.max(self.in_system);
        if idle {
            self.start_next(now, replica);
        }
        true
    }

    fn start_next(&mut self, now: f64, replica: u32) {
        let tickets = &self.tickets;
        let started = self.replicas.start_next(replica, |job| {
            job.ticket.is_none_or(|t| tickets.contains(t))
        });
        if let Some(job) = started {
            self.queued[replica as usize] -= 1;
            if let Some(t) = job.ticket {
                // In service now: it runs to its end whatever happens.
                self.tickets.remove(t);
            }
            let seq = self.next_seq();
            self.replicas
                .complete_at(replica, now + job.service_ms, seq);
        }
    }

    fn complete(&mut self, now: f64, replica: u32) {
        let job = self
            .replicas
            .serving(replica)
            .expect("a replica with a completion is serving");
        self.in_system -= 1;
        self.r.work_ms += job.service_ms;
        let hedge = self.config.p.policy == Policy::Hedge;
        let used = self
            .requests
            .get(job.request)
            .is_some_and(|req| req.waiting && (hedge || req.current == job.attempt));
        if used {
            self.succeed(now, job.request, job.attempt);
        } else {
            self.r.wasted_work_ms += job.service_ms;
        }
        self.start_next(now, replica);
    }

    fn succeed(&mut self, now: f64, slot: SlotKey, attempt: u32) {
        let req = self.requests.remove(slot).expect("a live request");
        // A hedge's other copy, if still queued, is cancelled.
        if attempt < 2 {
            let other = 1 - attempt.min(1) as usize;
            if let Some(t) = req.ticket[other]
                && self.tickets.remove(t).is_some()
            {
                self.queued[req.replica[other] as usize] -= 1;
                self.in_system -= 1;
            }
        }
        let latency = now - req.arrival;
        self.r.successes += 1;
        self.timeline.add(GOODPUT, now, 1.0);
        self.timeline.record_latency(now, latency);
        if req.measured {
            self.r.measured_successes += 1;
            self.off_scale |= latency > self.bins.edges()[BIN_COUNT];
            self.latency.record(self.bins, latency);
            self.latency_sum += latency;
        }
    }

    fn fail(&mut self, now: f64, slot: SlotKey) {
        if self.requests.remove(slot).is_some() {
            self.r.failures += 1;
            self.timeline.add(FAILURES, now, 1.0);
        }
    }

    fn timeout(&mut self, now: f64, slot: SlotKey, attempt: u32) {
        let Some(req) = self.requests.get_mut(slot) else {
            return; // answered or failed already
        };
        if !req.waiting || (attempt != WHOLE && req.current != attempt) {
            return;
        }
        req.waiting = false;
        if attempt == WHOLE {
            self.fail(now, slot);
        } else {
            self.attempt_failed(now, slot);
        }
    }

    /// The attempt the client waited on timed out or was refused: retry if the policy, the
    /// attempts left and the budget allow, else the request fails.
    fn attempt_failed(&mut self, now: f64, slot: SlotKey) {
        let p = self.config.p;
        let Some(req) = self.requests.get(slot) else {
            return;
        };
        let (sent, key) = (req.sent, req.key);
        if p.policy != Policy::Retry || sent >= p.max_attempts {
            return self.fail(now, slot);
        }
        if let Some(b) = self.budget.as_mut()
            && !b.spend()
        {
            self.r.denied += 1;
            return self.fail(now, slot);
        }
        let unit = key.sample(JITTER, sent).next_unit();
        let wait = p.backoff.wait_ms(sent, unit);
        if wait > 0.0 {
            self.set_timer(now + wait, Timer::Retry(slot));
        } else {
            self.send_next(now, slot);
        }
    }

    fn hedge(&mut self, now: f64, slot: SlotKey) {
        let Some(req) = self.requests.get(slot) else {
            return;
        };
        if !req.waiting || req.sent != 1 {
            return;
        }
        if let Some(b) = self.budget.as_mut()
            && !b.spend()
        {
            self.r.denied += 1;
            return;
        }
        self.send_next(now, slot);
    }

    fn result(mut self) -> RetriesResult {
        let end = self.since;
        self.integrate(end);
        let t = &self.timeline;
        let w = t.bucket_ms();
        let r = &mut self.r;
        r.unstable = match self.runaway {
            Some(arrived) => Some(Unstable::Runaway { arrived }),
            None if self.off_scale => Some(Unstable::OffScale),
            None => None,
        };
        if r.unstable.is_none() && r.measured_successes > 0 {
            r.p50_ms = Some(self.latency.percentile(self.bins, 0.5));
            r.p99_ms = Some(self.latency.percentile(self.bins, 0.99));
            r.mean_ms = Some(self.latency_sum / r.measured_successes as f64);
        }
        r.peak_in_flight = self.peak_in_flight;
        r.peak_in_system = self.peak_in_system;
        r.window_requests = t.series(REQUESTS);
        r.window_attempts = t.series(ATTEMPTS);
        r.window_goodput = t.series(GOODPUT);
        r.window_failures = t.series(FAILURES);
        r.window_in_system = t.series(IN_SYSTEM).into_iter().map(|a| a / w).collect();
        r.window_p99_ms = t
            .latency_quantiles(0.99)
            .into_iter()
            .map(|q| q.unwrap_or(f64::NAN))
            .collect();
        self.r
    }
}
