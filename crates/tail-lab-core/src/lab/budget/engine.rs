//! The discrete-event simulation of one policy over a budget run, on [`crate::des`].
//!
//! Events sit in one [`EventQueue`] (time, then the order scheduled): the next arrival, the
//! hedge timers and each replica's completion. Requests in flight live in a [`Slab`]; each
//! replica is a [`FifoStation`] of copy ids (request slot, attempt). A copy cancelled while it
//! waits is skipped when it reaches the head (lazy cancellation); a copy cancelled in service
//! frees its server at once, and the completion it had scheduled is recognised as stale by
//! the replica's service counter. Memory follows the requests in flight, the time series are
//! a [`Timeline`] fixed when the run starts.
//!
//! Draws are addressed per request (its gap, its two replica choices, its two copies' service
//! times), so every policy sees the same arrivals and the same work.

use super::params::{BudgetConfig, MAX_IN_FLIGHT, STREAM};
use super::result::{PolicyRun, Unstable};
use super::rules::{DelayTracker, TokenBucket, UtilisationMeter};
use super::{BudgetPolicy, params::DelayRule};
use crate::des::{EventQueue, FifoStation, Slab, SlotKey};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::replicas::{elsewhere, uniform_below};
use crate::lab::service::ServiceSampler;
use crate::sampling::address::RequestKey;
use crate::sampling::batch::BatchHistogram;
use crate::sampling::histogram::{BIN_COUNT, LogBins, shared_bins};
use crate::sampling::timeline::Timeline;
use std::rc::Rc;

// A request's sub-streams, by purpose.
const SERVICE: u32 = 0;
const CHOICE: u32 = 1;
const GAP: u32 = 2;

// The timeline's series.
pub(super) const REQUESTS: usize = 0;
pub(super) const BACKUPS: usize = 1;
pub(super) const WORK: usize = 2;
pub(super) const TOKENS: usize = 3;
pub(super) const TIMERS: usize = 4;
pub(super) const DELAY: usize = 5;
const SERIES: usize = 6;

/// The replica that slows down in the outage.
pub const SLOW_REPLICA: u32 = 0;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    Arrival(u64),
    Timer(SlotKey),
    Done { replica: u32, service: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Unsent,
    Waiting,
    InService,
}

#[derive(Debug, Clone, Copy)]
struct Copy {
    replica: u32,
    state: State,
    started: f64,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    k: u64,
    arrival: f64,
    copies: [Copy; 2],
}

struct Replica {
    station: FifoStation<(SlotKey, u8)>,
    /// Copies queued or in service (cancelled ones left in the queue not counted).
    depth: u32,
    /// Services started so far: a completion carries the count at its start.
    services: u64,
}

pub(super) struct Simulation<'a> {
    config: &'a BudgetConfig,
    policy: BudgetPolicy,
    sampler: Rc<ServiceSampler>,
    rate: f64,
    events: EventQueue<Event>,
    requests: Slab<Request>,
    replicas: Vec<Replica>,
    bucket: TokenBucket,
    tracker: DelayTracker,
    meter: UtilisationMeter,
    timeline: Timeline,
    bins: &'static LogBins,
    latency: BatchHistogram,
    latency_sum: f64,
    measured: u64,
    warmup_ms: f64,
    arrived: u64,
    unanswered: usize,
    peak_in_flight: usize,
    runaway: Option<u64>,
    off_scale: bool,
    backups: u64,
    backups_queued: u64,
    suppressed: u64,
    primary_work: f64,
    backup_work: f64,
}

impl<'a> Simulation<'a> {
    pub(super) fn new(config: &'a BudgetConfig, policy: BudgetPolicy) -> Self {
        let p = config.params();
        let rate = config.arrival_rate();
        let warmup_ms = p.span_ms / 10.0;
        Simulation {
            config,
            policy,
            sampler: ServiceSampler::shared(config.service.clone()),
            rate,
            events: EventQueue::new(),
            requests: Slab::new(),
            replicas: (0..p.replicas)
                .map(|_| Replica {
                    station: FifoStation::new(1),
                    depth: 0,
                    services: 0,
                })
                .collect(),
            bucket: TokenBucket::new(p.max_tokens, config.ratio_milli),
            tracker: DelayTracker::new(config.delay_ms),
            meter: UtilisationMeter::new(p.replicas, config.service.mean_ms()),
            timeline: Timeline::new(p.span_ms, p.windows as usize, SERIES).expect("checked"),
            bins: shared_bins(),
            latency: BatchHistogram::new((rate * (p.span_ms - warmup_ms)) as u64),
            latency_sum: 0.0,
            measured: 0,
            warmup_ms,
            arrived: 0,
            unanswered: 0,
            peak_in_flight: 0,
            runaway: None,
            off_scale: false,
            backups: 0,
            backups_queued: 0,
            suppressed: 0,
            primary_work: 0.0,
            backup_work: 0.0,
        }
    }

    fn key(&self, k: u64) -> RequestKey {
        RequestKey::new(self.config.params().seed, STREAM, k)
    }

    fn gap(&self, k: u64) -> f64 {
        -libm::log(self.key(k).sample(GAP, 0).next_open_unit()) / self.rate
    }

    fn service_ms(&self, k: u64, attempt: u32) -> f64 {
        self.sampler.sample(self.key(k).sample(SERVICE, attempt)).ms
    }

    pub(super) fn run(mut self) -> PolicyRun {
        let first = self.gap(0);
        if first < self.config.params().span_ms {
            self.events.schedule(first, Event::Arrival(0));
        }
        while let Some((now, event)) = self.events.pop() {
            match event {
                Event::Arrival(k) => self.arrive(now, k),
                Event::Timer(key) => self.timer(now, key),
                Event::Done { replica, service } => self.done(now, replica, service),
            }
        }
        self.result()
    }

    fn arrive(&mut self, now: f64, k: u64) {
        let p = *self.config.params();
        self.arrived += 1;
        let next = now + self.gap(k + 1);
        let mut choice = self.key(k).sample(CHOICE, 0);
        let primary = uniform_below(choice.next_bits(), p.replicas);
        let backup = elsewhere(primary, choice.next_bits(), p.replicas);
        let unsent = Copy {
            replica: backup,
            state: State::Unsent,
            started: 0.0,
        };
        let key = self.requests.insert(Request {
            k,
            arrival: now,
            copies: [
                Copy {
                    replica: primary,
                    ..unsent
                },
                unsent,
            ],
        });
        self.unanswered += 1;
        self.peak_in_flight = self.peak_in_flight.max(self.unanswered);
        self.timeline.add(REQUESTS, now, 1.0);
        self.bucket.on_request();
        if let Some(tokens) = self.bucket.tokens() {
            self.timeline.add(TOKENS, now, tokens);
        }
        self.enqueue(now, key, 0);
        if self.policy != BudgetPolicy::None {
            let delay = match p.delay_rule {
                DelayRule::Fixed => self.config.delay_ms,
                DelayRule::Tracking => self.tracker.delay_ms(),
            };
            self.timeline.add(TIMERS, now, 1.0);
            self.timeline.add(DELAY, now, delay);
            self.events.schedule(now + delay, Event::Timer(key));
        }
        if self.unanswered > MAX_IN_FLIGHT {
            self.runaway = Some(self.arrived);
        } else if next < p.span_ms {
            self.events.schedule(next, Event::Arrival(k + 1));
        }
    }

    fn timer(&mut self, now: f64, key: SlotKey) {
        let Some(r) = self.requests.get(key) else {
            return; // answered already
        };
        let target = r.copies[1].replica;
        let p = self.config.params();
        let send = match self.policy {
            BudgetPolicy::None => false,
            BudgetPolicy::Hedge => true,
            BudgetPolicy::Budgeted => self.bucket.try_spend(),
            BudgetPolicy::Disabled => {
                !(f64::from(self.replicas[target as usize].depth) > p.disable_depth
                    || (p.disable_utilisation && self.meter.utilisation(now) > 1.0))
            }
        };
        if !send {
            self.suppressed += 1;
            return;
        }
        self.backups += 1;
        self.backups_queued += u64::from(self.replicas[target as usize].depth > 0);
        self.timeline.add(BACKUPS, now, 1.0);
        self.enqueue(now, key, 1);
    }

    fn enqueue(&mut self, now: f64, key: SlotKey, attempt: u8) {
        let r = self.requests.get_mut(key).expect("in flight");
        let c = &mut r.copies[usize::from(attempt)];
        c.state = State::Waiting;
        let replica = c.replica as usize;
        self.meter.sent(now);
        let rep = &mut self.replicas[replica];
        rep.depth += 1;
        rep.station.push((key, attempt));
        if rep.station.serving(0).is_none() {
            self.start_next(now, replica as u32);
        }
    }

    fn start_next(&mut self, now: f64, replica: u32) {
        let requests = &self.requests;
        let rep = &mut self.replicas[replica as usize];
        let next = rep.station.start_next(0, |(key, a)| {
            requests
                .get(key)
                .is_some_and(|r| r.copies[usize::from(a)].state == State::Waiting)
        });
        let Some((key, attempt)) = next else {
            return;
        };
        rep.services += 1;
        let service = rep.services;
        let k = {
            let r = self.requests.get_mut(key).expect("ready");
            let c = &mut r.copies[usize::from(attempt)];
            c.state = State::InService;
            c.started = now;
            r.k
        };
        let p = self.config.params();
        let mut ms = self.service_ms(k, u32::from(attempt));
        if replica == SLOW_REPLICA && now >= p.outage_start_ms && now < p.outage_end_ms {
            ms *= p.slowdown;
        }
        self.events
            .schedule(now + ms, Event::Done { replica, service });
    }

    /// Server time `worked` (ms) of a copy that left its server at `now`.
    fn account(&mut self, now: f64, attempt: usize, worked: f64) {
        self.timeline.add(WORK, now, worked);
        if attempt == 1 {
            self.backup_work += worked;
        } else {
            self.primary_work += worked;
        }
    }

    fn done(&mut self, now: f64, replica: u32, service: u64) {
        let rep = &self.replicas[replica as usize];
        if rep.services != service {
            return; // its copy was cancelled in service
        }
        let Some((key, attempt)) = rep.station.serving(0) else {
            return;
        };
        let r = *self
            .requests
            .get(key)
            .expect("a served copy's request is in flight");
        let a = usize::from(attempt);
        let worked = now - r.copies[a].started;
        self.account(now, a, worked);
        self.replicas[replica as usize].depth -= 1;
        // The winner answers; the other copy, if sent and still there, is cancelled.
        let latency = now - r.arrival;
        let other = 1 - a;
        let o = r.copies[other];
        match o.state {
            State::Waiting => self.replicas[o.replica as usize].depth -= 1,
            State::InService => {
                self.account(now, other, now - o.started);
                let rep = &mut self.replicas[o.replica as usize];
                rep.depth -= 1;
                rep.services += 1; // its completion is now stale
                self.start_next(now, o.replica);
            }
            State::Unsent => {}
        }
        self.requests.remove(key);
        self.unanswered -= 1;
        self.record(r.arrival, latency);
        self.start_next(now, replica);
    }

    fn record(&mut self, arrival: f64, latency: f64) {
        let bin = self.bins.bin_of(latency);
        self.tracker.record(self.bins, bin);
        self.timeline.record_latency(arrival, latency);
        if arrival >= self.warmup_ms {
            self.off_scale |= latency > self.bins.edges()[BIN_COUNT];
            self.latency.record_bin(bin, latency);
            self.latency_sum += latency;
            self.measured += 1;
        }
    }

    fn result(self) -> PolicyRun {
        let unstable = match self.runaway {
            Some(arrived) => Some(Unstable::Runaway { arrived }),
            None if self.off_scale => Some(Unstable::OffScale),
            None => None,
        };
        let stable = unstable.is_none() && self.measured > 0;
        let merged = self.latency.merged();
        let t = &self.timeline;
        let windows = t.buckets();
        // A window's mean of a per-event series; where it had no event, the last window's.
        let mean_of = |sum: usize, count: usize, start: f64| {
            let mut last = start;
            (0..windows)
                .map(|b| {
                    let n = t.sum(count, b);
                    if n > 0.0 {
                        last = t.sum(sum, b) / n;
                    }
                    last
                })
                .collect::<Vec<f64>>()
        };
        let hedges = self.policy != BudgetPolicy::None;
        let tokens = match (self.policy, self.bucket.tokens()) {
            (BudgetPolicy::Budgeted, Some(_)) => {
                let full = f64::from(self.config.params().max_tokens.unwrap_or(0));
                mean_of(TOKENS, REQUESTS, full)
            }
            _ => Vec::new(),
        };
        PolicyRun {
            policy: self.policy,
            stable,
            latency: stable.then(|| Percentiles::of(&merged)),
            mean_ms: stable.then(|| self.latency_sum / self.measured as f64),
            mean_interval: if stable {
                self.latency.mean_interval()
            } else {
                None
            },
            requests: self.arrived,
            hedge_fraction: self.backups as f64 / self.arrived.max(1) as f64,
            backups: self.backups,
            suppressed: self.suppressed,
            backups_queued: (self.backups > 0)
                .then(|| self.backups_queued as f64 / self.backups as f64),
            extra_work: if self.primary_work > 0.0 {
                self.backup_work / self.primary_work
            } else {
                0.0
            },
            peak_in_flight: self.peak_in_flight as u64,
            unstable,
            window_requests: t.series(REQUESTS),
            window_backups: t.series(BACKUPS),
            window_work_ms: t.series(WORK),
            window_p99_ms: if stable {
                t.latency_quantiles(0.99)
                    .into_iter()
                    .map(|q| q.unwrap_or(f64::NAN))
                    .collect()
            } else {
                Vec::new()
            },
            window_delay_ms: if hedges {
                mean_of(DELAY, TIMERS, self.config.delay_ms)
            } else {
                Vec::new()
            },
            window_tokens: tokens,
        }
    }
}
