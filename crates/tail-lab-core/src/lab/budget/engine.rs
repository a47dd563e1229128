//! The discrete-event simulation of one policy over a budget run, on [`crate::des`].
//!
//! Events are kept in three places and numbered from one counter, so that together they pop
//! as one [`crate::des::EventQueue`] would (time, then the order they were scheduled,
//! [`EventKey`]): the next arrival (each arrival schedules the next), the hedge timers in
//! [`Timers`] (their delay may track the latency, so they do not come due in the order they
//! were set) and each replica's next completion, in the kernel's [`ReplicaSet`]. Requests in
//! flight live in a [`Slab`]; a replica queues copy ids (request slot, attempt). A copy
//! cancelled while it waits is skipped when it reaches the head (lazy cancellation); a copy
//! cancelled in service frees its server at once, and its completion is replaced by the next
//! copy's (or cleared). An answered request's hedge timer is cancelled with it, so no event
//! outlives its request: memory follows the requests in flight, and the time series are a
//! [`Timeline`] fixed when the run starts.
//!
//! Draws are addressed per request (its gap, its two replica choices, its two copies' service
//! times), so every policy sees the same arrivals and the same work.

use super::params::{BudgetConfig, MAX_IN_FLIGHT, STREAM};
use super::result::{PolicyRun, Unstable};
use super::rules::{DelayTracker, TokenBucket, UtilisationMeter};
use super::{BudgetPolicy, params::DelayRule};
use crate::des::{EventKey, Slab, SlotKey, Timers};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::replicas::draws::{SERVICE, gap_ms, primary_and_backup};
use crate::lab::replicas::{Cancellation, ReplicaSet};
use crate::lab::service::ServiceSampler;
use crate::sampling::address::RequestKey;
use crate::sampling::batch::BatchHistogram;
use crate::sampling::histogram::{BIN_COUNT, LogBins, shared_bins};
use crate::sampling::timeline::Timeline;
use std::rc::Rc;

// A request's sub-streams, by purpose, are the kernel's (`replicas::draws`).

// The timeline's series.
pub(super) const REQUESTS: usize = 0;
pub(super) const BACKUPS: usize = 1;
pub(super) const WORK: usize = 2;
pub(super) const TOKENS: usize = 3;
pub(super) const TIMERS: usize = 4;
pub(super) const DELAY: usize = 5;
const SERIES: usize = 6;

/// What happens to the copy that did not answer first: removed from its queue, or its server
/// freed at once, even mid-hiccup. The only rule this engine runs: a request leaves the slab
/// when it is answered, so no loser may be left to run.
const LOSER_RULE: Cancellation = Cancellation::EitherAny;

/// The replica that slows down in the outage.
pub const SLOW_REPLICA: u32 = 0;

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
    /// The hedge timer, while it is pending.
    timer: Option<SlotKey>,
}

pub(super) struct Simulation<'a> {
    config: &'a BudgetConfig,
    policy: BudgetPolicy,
    sampler: Rc<ServiceSampler>,
    rate: f64,
    /// Events scheduled so far: each event's sequence number.
    seq: u64,
    /// The next arrival ([`EventKey::NONE`] when none is left) and its request.
    arrival: (EventKey, u64),
    /// Pending hedge timers, each with its request.
    timers: Timers<SlotKey>,
    requests: Slab<Request>,
    /// The replicas, queueing copy ids (request slot, attempt), and their completions.
    replicas: ReplicaSet<(SlotKey, u8)>,
    /// Each replica's copies queued or in service (cancelled ones left in a queue not
    /// counted).
    depth: Vec<u32>,
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
            seq: 0,
            arrival: (EventKey::NONE, 0),
            timers: Timers::new(),
            requests: Slab::new(),
            replicas: ReplicaSet::new(p.replicas),
            depth: vec![0; p.replicas as usize],
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
        gap_ms(self.key(k), self.rate)
    }

    fn service_ms(&self, k: u64, attempt: u32) -> f64 {
        self.sampler.sample(self.key(k).sample(SERVICE, attempt)).ms
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    pub(super) fn run(mut self) -> PolicyRun {
        let first = self.gap(0);
        if first < self.config.params().span_ms {
            let seq = self.next_seq();
            self.arrival = (EventKey::new(first, seq), 0);
        }
        while self.step() {}
        self.result()
    }

    /// Processes the earliest event (of a completion, a timer and the arrival, each compared
    /// by its key); false when none is left.
    #[inline]
    fn step(&mut self) -> bool {
        let (replica, completion) = self.replicas.next_completion();
        let timer = self.timers.first();
        let arrival = self.arrival.0;
        if completion < timer && completion < arrival {
            self.done(completion.time(), replica);
        } else if timer < arrival {
            let (key, request) = self.timers.pop().expect("a timer is due");
            self.timer(key.time(), request);
        } else if arrival.is_some() {
            self.arrival.0 = EventKey::NONE;
            self.arrive(arrival.time(), self.arrival.1);
        } else {
            return false;
        }
        true
    }

    fn arrive(&mut self, now: f64, k: u64) {
        let p = *self.config.params();
        self.arrived += 1;
        let next = now + self.gap(k + 1);
        let (primary, backup) = primary_and_backup(self.key(k), p.replicas);
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
            timer: None,
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
            let seq = self.next_seq();
            let timer = self.timers.set(EventKey::new(now + delay, seq), key);
            self.requests.get_mut(key).expect("arrived").timer = Some(timer);
        }
        if self.unanswered > MAX_IN_FLIGHT {
            self.runaway = Some(self.arrived);
        } else if next < p.span_ms {
            let seq = self.next_seq();
            self.arrival = (EventKey::new(next, seq), k + 1);
        }
    }

    fn timer(&mut self, now: f64, key: SlotKey) {
        // An answered request's timer was cancelled with it.
        let r = self
            .requests
            .get_mut(key)
            .expect("a timer's request is in flight");
        r.timer = None;
        let target = r.copies[1].replica;
        let p = self.config.params();
        let send = match self.policy {
            BudgetPolicy::None => false,
            BudgetPolicy::Hedge => true,
            BudgetPolicy::Budgeted => self.bucket.try_spend(),
            BudgetPolicy::Disabled => {
                !(f64::from(self.depth[target as usize]) > p.disable_depth
                    || (p.disable_utilisation && self.meter.utilisation(now) > 1.0))
            }
        };
        if !send {
            self.suppressed += 1;
            return;
        }
        self.backups += 1;
        self.backups_queued += u64::from(self.depth[target as usize] > 0);
        self.timeline.add(BACKUPS, now, 1.0);
        self.enqueue(now, key, 1);
    }

    fn enqueue(&mut self, now: f64, key: SlotKey, attempt: u8) {
        let r = self.requests.get_mut(key).expect("in flight");
        let c = &mut r.copies[usize::from(attempt)];
        c.state = State::Waiting;
        let replica = c.replica;
        self.meter.sent(now);
        self.depth[replica as usize] += 1;
        if self.replicas.push(replica, (key, attempt)) {
            self.start_next(now, replica);
        }
    }

    fn start_next(&mut self, now: f64, replica: u32) {
        let requests = &self.requests;
        let next = self.replicas.start_next(replica, |(key, a)| {
            requests
                .get(key)
                .is_some_and(|r| r.copies[usize::from(a)].state == State::Waiting)
        });
        let Some((key, attempt)) = next else {
            return;
        };
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
        let seq = self.next_seq();
        self.replicas.complete_at(replica, now + ms, seq);
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

    fn done(&mut self, now: f64, replica: u32) {
        let (key, attempt) = self
            .replicas
            .serving(replica)
            .expect("a replica with a completion is serving");
        let r = *self
            .requests
            .get(key)
            .expect("a served copy's request is in flight");
        let a = usize::from(attempt);
        let worked = now - r.copies[a].started;
        self.account(now, a, worked);
        self.depth[replica as usize] -= 1;
        // The winner answers; the other copy, if sent and still there, is cancelled.
        let latency = now - r.arrival;
        let other = 1 - a;
        let o = r.copies[other];
        debug_assert!(
            o.state == State::Unsent
                || LOSER_RULE.on_loser(other == 1, o.state == State::InService, false)
                    == Some(true)
        );
        match o.state {
            State::Waiting => self.depth[o.replica as usize] -= 1,
            State::InService => {
                self.account(now, other, now - o.started);
                // Its completion is replaced by the next copy's, or cleared.
                self.depth[o.replica as usize] -= 1;
                self.start_next(now, o.replica);
            }
            State::Unsent => {}
        }
        if let Some(timer) = r.timer {
            self.timers.cancel(timer);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::budget::BudgetParams;

    #[test]
    fn no_timer_outlives_its_request() {
        // Every policy that hedges, with the delay tracking the latency (so timers are set
        // out of order): after each event, each pending timer belongs to a request in flight.
        let config = BudgetConfig::new(BudgetParams {
            delay_rule: DelayRule::Tracking,
            span_ms: 6_000.0,
            outage_start_ms: 2_000.0,
            outage_end_ms: 4_000.0,
            ..BudgetParams::default()
        })
        .unwrap();
        for policy in [
            BudgetPolicy::Hedge,
            BudgetPolicy::Budgeted,
            BudgetPolicy::Disabled,
        ] {
            let mut sim = Simulation::new(&config, policy);
            let first = sim.gap(0);
            let seq = sim.next_seq();
            sim.arrival = (EventKey::new(first, seq), 0);
            let (mut events, mut peak) = (0u64, 0usize);
            while sim.step() {
                events += 1;
                assert!(sim.timers.len() <= sim.requests.len(), "{policy:?}");
                peak = peak.max(sim.timers.len());
            }
            assert!(events > 1_000 && peak > 0, "{policy:?}: {events} events");
            assert!(
                sim.timers.is_empty() && sim.requests.is_empty(),
                "{policy:?}"
            );
        }
    }
}
