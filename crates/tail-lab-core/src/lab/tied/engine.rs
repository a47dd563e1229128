//! The discrete-event simulation of one tied run, on [`crate::des`].
//!
//! Events, each in the order it pops and numbered from one counter so that together they pop as
//! one [`crate::des::EventQueue`] would (time, then the order they were scheduled):
//! - the next arrival (each arrival schedules the next);
//! - the cancellations in flight, a FIFO: each lands a fixed delay after its request's first
//!   copy started, so they come due in the order they were sent;
//! - each replica's next completion, in the kernel's [`ReplicaSet`] (an aborted copy's
//!   completion is replaced by the next copy's, or cleared).
//!
//! A request's copies live inline in a window of requests in flight (`tie` copies a request,
//! in a second [`Ring`] beside the requests); a replica's queue holds copy ids
//! (`request · tie + copy`) and skips a cancelled one when it reaches the head.
//!
//! Draws are the loaded engine's, address for address: the gap before request `k`, its replica
//! choices (the first uniform over the replicas; copy j ≥ 1 at an offset drawn without
//! replacement from 1..replicas, by a partial Fisher–Yates shuffle of the offsets, whose first
//! step is the loaded engine's `primary + 1 + u`), and copy j's service time at attempt j. So a
//! tie of 2 that never lands its cancellations is the loaded model's never-cancelled duplicate
//! on the same stream, bit for bit (a unit test below).

use super::config::{MAX_IN_FLIGHT_COPIES, TiedConfig, TiedPolicy, TiedResult};
use crate::des::{EventKey, FifoTimers, Ring};
use crate::lab::hedge_idle::Percentiles;
use crate::lab::loaded::{LoadedService, Unstable};
use crate::lab::replicas::draws::{CHOICE, ONCE, gap_ms};
use crate::lab::replicas::{Answers, ReplicaSet, uniform_below};
use crate::lab::service::ServiceSampler;
use crate::sampling::address::{RequestKey, Stream};
use std::rc::Rc;

// A request's sub-streams, by purpose, are the kernel's (`replicas::draws`), as the loaded
// engine's: copy j's service at attempt j, the replica choices, the gap before it.

/// Where a copy is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CopyState {
    /// Not yet in its queue (only during its request's arrival).
    Unsent,
    Waiting,
    InService,
    /// Ran to the end of its service.
    Done,
    /// Removed from its queue, or aborted in service, by the cancellation.
    Cancelled,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Copy {
    pub(super) replica: u32,
    pub(super) service_ms: f64,
    pub(super) started_at: f64,
    pub(super) state: CopyState,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Request {
    arrival: f64,
    answered: bool,
    /// The copy that started first, once one has: it sent the cancellation.
    pub(super) owner: Option<u32>,
    /// The owner's cancellation is in flight (sent, not landed).
    cancel_pending: bool,
    /// The siblings are still to be sent (a staggered tie).
    siblings_unsent: bool,
    /// Copies waiting or in service.
    live: u32,
}

/// What happened at one step (for stepping a run in tests).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Event {
    Arrival(u64),
    /// A staggered request's siblings are sent.
    Send(u64),
    Cancellation(u64),
    Completion {
        replica: u32,
    },
}

pub(super) struct Simulation<'a> {
    config: &'a TiedConfig,
    stream: Stream,
    tie: u32,
    delay_ms: f64,
    sampler: Option<Rc<ServiceSampler>>,
    /// The offsets 1..replicas a tie's siblings are drawn from (restored after each draw).
    offsets: Vec<u32>,
    swaps: Vec<u32>,
    /// The arriving request's copies (replica, service), reused from one to the next.
    draw: Vec<(u32, f64)>,
    seq: u64,
    arrival: (EventKey, u64),
    /// The cancellations in flight, each with its request: each lands a fixed delay after its
    /// request's first copy started.
    cancels: FifoTimers<u64>,
    /// The staggered siblings' sends, each with its request: each is due a fixed delay after
    /// its request.
    sends: FifoTimers<u64>,
    stagger_ms: f64,
    /// The replicas, queueing copy ids (`request · tie + copy`), and their completions.
    replicas: ReplicaSet<u64>,
    pub(super) requests: Ring<Request>,
    pub(super) copies: Ring<Copy>,
    pub(super) first: u64,
    peak_in_flight: usize,
    runaway: Option<u64>,
    max_unanswered: usize,
    unanswered: usize,
    stable_by_theory: Option<bool>,
    arrival_rate: f64,
    /// The measured latencies.
    answers: Answers,
    pub(super) useful_work: f64,
    pub(super) wasted_work: f64,
    pub(super) consumed_work: f64,
    /// Each arrived request's first copy's full service: the work it costs without a tie.
    pub(super) own_work: f64,
    pub(super) cancels_sent: u64,
    pub(super) cancels_aborted: u64,
    pub(super) cancels_after_finish: u64,
    pub(super) copies_started: u64,
    last_arrival: f64,
}

/// The mean (ms) of an exponential service; `None` for the Lab's forms.
pub(super) fn exponential_mean(service: &LoadedService) -> Option<f64> {
    match service {
        LoadedService::Exponential(m) => Some(m.get()),
        LoadedService::Lab(_) => None,
    }
}

impl<'a> Simulation<'a> {
    pub(super) fn new(config: &'a TiedConfig, stream: Stream) -> Self {
        let p = config.params;
        let mean = config.service.mean_ms();
        let tie = p.tie;
        Simulation {
            config,
            stream,
            tie,
            delay_ms: p.message_delay_ms,
            sampler: config.service.sampler(),
            offsets: (1..p.replicas).collect(),
            swaps: Vec::with_capacity(tie as usize),
            draw: Vec::with_capacity(tie as usize),
            seq: 0,
            arrival: (EventKey::NONE, 0),
            cancels: FifoTimers::new(),
            sends: FifoTimers::new(),
            stagger_ms: config.stagger_ms,
            replicas: ReplicaSet::new(p.replicas),
            requests: Ring::new(),
            copies: Ring::new(),
            first: 0,
            peak_in_flight: 0,
            runaway: None,
            max_unanswered: MAX_IN_FLIGHT_COPIES / tie as usize,
            unanswered: 0,
            stable_by_theory: None,
            arrival_rate: p.load * f64::from(p.replicas) / mean,
            answers: Answers::new(p.requests),
            useful_work: 0.0,
            wasted_work: 0.0,
            consumed_work: 0.0,
            own_work: 0.0,
            cancels_sent: 0,
            cancels_aborted: 0,
            cancels_after_finish: 0,
            copies_started: 0,
            last_arrival: 0.0,
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn gap(&self, k: u64) -> f64 {
        gap_ms(
            RequestKey::new(self.config.params.seed, self.stream, k),
            self.arrival_rate,
        )
    }

    fn service(&self, key: RequestKey, attempt: u32) -> f64 {
        let sampler = self.sampler.as_deref();
        self.config.service.sample_copy(sampler, key, attempt).0
    }

    /// Stability known in closed form: cancellations that never land make every copy run,
    /// so the replicas carry `tie · load` (stable below 1); nothing is stable at load ≥ 1.
    /// Everything else is judged from the run.
    fn theory_stable(&self) -> Option<bool> {
        let load = self.config.params.load;
        if self.delay_ms == f64::INFINITY {
            Some(crate::theory::duplication_stable(
                load,
                f64::from(self.tie - 1),
            ))
        } else if load >= 1.0 {
            Some(false)
        } else {
            None
        }
    }

    pub(super) fn start(&mut self) {
        self.stable_by_theory = self.theory_stable();
        let first = self.gap(0);
        let seq = self.next_seq();
        self.arrival = (EventKey::new(first, seq), 0);
    }

    pub(super) fn run(mut self) -> TiedResult {
        self.start();
        while self.step().is_some() {}
        self.result()
    }

    /// Processes the next event and says which it was (`None` when none is left).
    pub(super) fn step(&mut self) -> Option<Event> {
        // A cancellation whose request has retired was accounted for then: dropped now.
        let first = self.first;
        self.cancels.drop_front_while(|&k| k < first);
        let cancel = self.cancels.first();
        let send = self.sends.first();
        let (replica, completion) = self.replicas.next_completion();
        let cancel_first = cancel < self.arrival.0 && cancel < send;
        let send_first = !cancel_first && send < self.arrival.0;
        let key = if cancel_first {
            cancel
        } else if send_first {
            send
        } else {
            self.arrival.0
        };
        if completion < key {
            self.complete(completion.time(), replica);
            Some(Event::Completion { replica })
        } else if !key.is_some() {
            None
        } else if send_first {
            let (_, k) = self.sends.pop().expect("a send is due");
            self.send_siblings(key.time(), k);
            Some(Event::Send(k))
        } else if cancel_first {
            let (_, k) = self.cancels.pop().expect("a cancellation is due");
            self.land(key.time(), k);
            Some(Event::Cancellation(k))
        } else {
            let k = self.arrival.1;
            self.arrival.0 = EventKey::NONE;
            self.arrive(key.time(), k);
            Some(Event::Arrival(k))
        }
    }

    #[inline(always)]
    fn slot(&self, k: u64) -> usize {
        (k - self.first) as usize
    }

    #[inline(always)]
    pub(super) fn copy(&mut self, k: u64, j: u32) -> &mut Copy {
        let i = self.slot(k) * self.tie as usize + j as usize;
        &mut self.copies[i]
    }

    #[inline(always)]
    pub(super) fn request(&mut self, k: u64) -> &mut Request {
        let i = self.slot(k);
        &mut self.requests[i]
    }

    fn arrive(&mut self, now: f64, k: u64) {
        let p = self.config.params;
        let key = RequestKey::new(p.seed, self.stream, k);
        let n = p.replicas;
        let mut choice = key.sample(CHOICE, ONCE);
        let first_replica = uniform_below(choice.next_bits(), n);
        // Copy j ≥ 1: the offset at place j − 1 after swapping in one of places j − 1.. (a
        // partial Fisher–Yates shuffle of 1..n), undone below so the offsets stay in order.
        self.swaps.clear();
        let mut copies = std::mem::take(&mut self.draw);
        copies.clear();
        for j in 0..self.tie {
            let replica = if j == 0 {
                first_replica
            } else {
                let at = (j - 1) as usize;
                let pick = at + uniform_below(choice.next_bits(), n - j) as usize;
                self.offsets.swap(at, pick);
                self.swaps.push(pick as u32);
                let r = first_replica + self.offsets[at];
                if r >= n { r - n } else { r }
            };
            copies.push((replica, self.service(key, j)));
        }
        for (at, &pick) in self.swaps.iter().enumerate().rev() {
            self.offsets.swap(at, pick as usize);
        }
        self.admit(now, k, &copies);
        self.draw = copies;
        self.unanswered += 1;
        if self.unanswered > self.max_unanswered && self.stable_by_theory != Some(true) {
            self.runaway = Some(k + 1);
        } else if k + 1 < p.requests {
            let next = now + self.gap(k + 1);
            let seq = self.next_seq();
            self.arrival = (EventKey::new(next, seq), k + 1);
        }
    }

    /// Request `k` arrives at `now` with its copies' (replica, service ms), in copy order: each
    /// is queued (and started where its replica is idle), in that order.
    fn admit(&mut self, now: f64, k: u64, copies: &[(u32, f64)]) {
        self.last_arrival = now;
        debug_assert_eq!(k, self.first + self.requests.len() as u64);
        self.peak_in_flight = self.peak_in_flight.max(self.requests.len() + 1);
        let staggered = self.stagger_ms > 0.0;
        self.requests.push_back(Request {
            arrival: now,
            answered: false,
            owner: None,
            cancel_pending: false,
            siblings_unsent: staggered,
            live: 0,
        });
        self.own_work += copies[0].1;
        for &(replica, service_ms) in copies {
            self.copies.push_back(Copy {
                replica,
                service_ms,
                started_at: 0.0,
                state: CopyState::Unsent,
            });
        }
        if staggered {
            self.enqueue(now, k, 0);
            let seq = self.next_seq();
            self.sends.set(EventKey::new(now + self.stagger_ms, seq), k);
        } else {
            for j in 0..self.tie {
                self.enqueue(now, k, j);
            }
        }
    }

    /// A staggered request's siblings reach their replicas: each is queued unless its
    /// cancellation has already landed (then it is dropped on arrival, at no cost).
    fn send_siblings(&mut self, now: f64, k: u64) {
        self.request(k).siblings_unsent = false;
        for j in 1..self.tie {
            self.enqueue(now, k, j);
        }
        self.retire();
    }

    /// Puts copy `j` in its replica's queue, unless a cancellation with no delay has already
    /// removed it (a sibling started at this same instant).
    fn enqueue(&mut self, now: f64, k: u64, j: u32) {
        let tie = u64::from(self.tie);
        let c = self.copy(k, j);
        if c.state != CopyState::Unsent {
            return;
        }
        c.state = CopyState::Waiting;
        let replica = c.replica;
        self.request(k).live += 1;
        if self.replicas.push(replica, k * tie + u64::from(j)) {
            self.start_next(now, replica);
        }
    }

    /// Starts the next waiting copy at the head of `replica`'s queue (cancelled ones are
    /// skipped) and sets the replica's next completion (none when it goes idle). A request's
    /// first copy to start sends the cancellation.
    fn start_next(&mut self, now: f64, replica: u32) {
        let (copies, first, tie) = (&self.copies, self.first, u64::from(self.tie));
        let started = self.replicas.start_next(replica, |id| {
            let k = id / tie;
            k >= first
                && copies[((k - first) * tie + id % tie) as usize].state == CopyState::Waiting
        });
        let Some(id) = started else {
            return;
        };
        let (k, j) = (id / tie, (id % tie) as u32);
        let c = self.copy(k, j);
        c.state = CopyState::InService;
        c.started_at = now;
        let done = now + c.service_ms;
        let seq = self.next_seq();
        self.replicas.complete_at(replica, done, seq);
        self.copies_started += 1;
        let delay = self.delay_ms;
        let r = self.request(k);
        if r.owner.is_some() {
            return;
        }
        r.owner = Some(j);
        if delay == f64::INFINITY {
            return; // never lands: nothing is sent
        }
        self.cancels_sent += u64::from(self.tie - 1);
        if delay == 0.0 {
            self.land(now, k);
        } else {
            self.request(k).cancel_pending = true;
            let seq = self.next_seq();
            self.cancels.set(EventKey::new(now + delay, seq), k);
        }
    }

    /// Request `k`'s cancellation lands on each of its copies but the owner: a waiting (or
    /// not yet queued) copy is removed at no cost, one in service is aborted (its server freed,
    /// its work so far wasted), one that has finished is left (the cancellation came late).
    fn land(&mut self, now: f64, k: u64) {
        let owner = self.request(k).owner.expect("a cancellation has a sender");
        self.request(k).cancel_pending = false;
        for j in (0..self.tie).filter(|&j| j != owner) {
            let c = *self.copy(k, j);
            match c.state {
                CopyState::Unsent => self.copy(k, j).state = CopyState::Cancelled,
                CopyState::Waiting => {
                    self.copy(k, j).state = CopyState::Cancelled;
                    self.request(k).live -= 1;
                }
                CopyState::InService => {
                    self.copy(k, j).state = CopyState::Cancelled;
                    self.request(k).live -= 1;
                    self.cancels_aborted += 1;
                    let worked = now - c.started_at;
                    self.consumed_work += worked;
                    self.wasted_work += worked;
                    self.start_next(now, c.replica);
                }
                CopyState::Done => self.cancels_after_finish += 1,
                CopyState::Cancelled => unreachable!("one cancellation a request"),
            }
        }
        self.retire();
    }

    fn complete(&mut self, now: f64, replica: u32) {
        let tie = u64::from(self.tie);
        let id = self
            .replicas
            .serving(replica)
            .expect("a replica with a completion is serving");
        let (k, j) = (id / tie, (id % tie) as u32);
        let c = self.copy(k, j);
        debug_assert_eq!(c.state, CopyState::InService);
        c.state = CopyState::Done;
        let service = c.service_ms;
        self.consumed_work += service;
        let r = self.request(k);
        r.live -= 1;
        if r.answered {
            self.wasted_work += service;
        } else {
            r.answered = true;
            let arrival = r.arrival;
            self.useful_work += service;
            self.answer(k, now - arrival);
        }
        self.retire();
        self.start_next(now, replica);
    }

    fn answer(&mut self, k: u64, latency: f64) {
        self.unanswered -= 1;
        self.answers.record(k, latency);
    }

    /// Drops answered requests with no copy left from the front of the window. A cancellation
    /// still in flight to one would find every sibling finished: counted late now.
    fn retire(&mut self) {
        while let Some(r) = self.requests.front() {
            if !r.answered || r.live > 0 || r.siblings_unsent {
                return;
            }
            if r.cancel_pending {
                self.cancels_after_finish += u64::from(self.tie - 1);
            }
            self.requests.pop_front();
            for _ in 0..self.tie {
                self.copies.pop_front();
            }
            self.first += 1;
        }
    }

    pub(super) fn result(self) -> TiedResult {
        let p = self.config.params;
        let latency = self.answers.merged();
        let capacity = f64::from(p.replicas) * self.last_arrival.max(f64::MIN_POSITIVE);
        let unstable = Unstable::judge(self.runaway, self.stable_by_theory, &self.answers);
        let stable = unstable.is_none() && self.answers.measured() > 0;
        let arrived = self.runaway.unwrap_or(p.requests);
        let sent = self.cancels_sent;
        let share = |x: u64| (sent > 0).then(|| x as f64 / sent as f64);
        TiedResult {
            load: p.load,
            policy: TiedPolicy::Tied,
            replicas: p.replicas,
            requests: p.requests,
            exponential_mean_ms: exponential_mean(&self.config.service),
            tie: Some(p.tie),
            message_delay_ms: p.message_delay_ms.is_finite().then_some(p.message_delay_ms),
            stagger_ms: Some(self.stagger_ms),
            stable,
            latency: stable.then(|| Percentiles::of(&latency)),
            mean_ms: stable.then(|| self.answers.mean_ms()),
            intervals: stable.then(|| self.answers.intervals(&latency)),
            extra_work: self.consumed_work / self.own_work.max(f64::MIN_POSITIVE) - 1.0,
            wasted_over_answering: Some(self.wasted_work / self.useful_work.max(f64::MIN_POSITIVE)),
            late_cancellations: share(self.cancels_aborted + self.cancels_after_finish),
            aborted: share(self.cancels_aborted),
            copies_started: Some(self.copies_started as f64 / arrived as f64),
            utilisation: self.consumed_work / capacity,
            peak_in_flight: self.peak_in_flight as u64,
            unstable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::tied::TiedParams;

    fn config(delay: f64) -> TiedConfig {
        TiedConfig::new(TiedParams {
            replicas: 2,
            tie: 2,
            load: 0.5,
            message_delay_ms: delay,
            requests: 1000,
            seed: 1,
        })
        .unwrap()
    }

    /// When the first of `timers` is due (ms; infinite when none is pending).
    fn due(timers: &FifoTimers<u64>) -> f64 {
        if timers.is_empty() {
            f64::INFINITY
        } else {
            timers.first().time()
        }
    }

    /// Processes every event due before `t`.
    fn run_until(sim: &mut Simulation<'_>, t: f64) {
        loop {
            let cancel = due(&sim.cancels).min(due(&sim.sends));
            let completion = sim
                .replicas
                .completions()
                .peek()
                .map_or(f64::INFINITY, |(_, at, _)| at);
            if cancel.min(completion) >= t {
                return;
            }
            sim.step().expect("an event is due");
        }
    }

    #[test]
    fn a_hand_traced_run_with_a_one_ms_message_delay() {
        let config = config(1.0);
        let mut sim = Simulation::new(&config, STREAM_FOR_TESTS);
        // Requests numbered from the end of warm-up, so every latency is measured.
        sim.first = sim.answers.warmup();
        let k = sim.answers.warmup();
        // t = 0: both replicas idle, both copies start; copy 0 (on replica 0) started first and
        // owns the request; its cancellation lands at 1 and aborts copy 1 after 1 ms of work.
        sim.admit(0.0, k, &[(0, 5.0), (1, 3.0)]);
        sim.unanswered += 1;
        assert_eq!(sim.request(k).owner, Some(0));
        run_until(&mut sim, 1.5);
        assert_eq!(sim.copy(k, 1).state, CopyState::Cancelled);
        // t = 6: copy 0 (replica 1, 0.5 ms) owns and answers at 6.5; the cancellation lands
        // at 7 on copy 1 (replica 0), in service since 6: aborted, 1 ms wasted.
        run_until(&mut sim, 6.0);
        sim.admit(6.0, k + 1, &[(1, 0.5), (0, 4.0)]);
        sim.unanswered += 1;
        // t = 10: the owner (replica 0, 4 ms) is slower than its sibling (replica 1, 0.5 ms),
        // which answers at 10.5, before the cancellation lands at 11: too late, and the owner
        // runs on to 14, all 4 ms wasted.
        run_until(&mut sim, 10.0);
        sim.admit(10.0, k + 2, &[(0, 4.0), (1, 0.5)]);
        sim.unanswered += 1;
        // t = 12: replica 0 is busy until 14, so copy 0 waits; copy 1 starts on replica 1 and
        // owns; its cancellation lands at 13 on the waiting copy 0, in time: removed, no cost.
        run_until(&mut sim, 12.0);
        sim.admit(12.0, k + 3, &[(0, 2.0), (1, 3.0)]);
        sim.unanswered += 1;
        assert_eq!(sim.request(k + 3).owner, Some(1));
        while sim.step().is_some() {}
        assert_eq!(sim.requests.len(), 0, "every request retired");
        assert_eq!(sim.cancels_sent, 4);
        assert_eq!(sim.cancels_aborted, 2);
        assert_eq!(sim.cancels_after_finish, 1);
        assert_eq!(sim.copies_started, 7);
        assert_eq!(sim.useful_work, 5.0 + 0.5 + 0.5 + 3.0);
        assert_eq!(sim.wasted_work, 1.0 + 1.0 + 4.0);
        assert_eq!(sim.consumed_work, 15.0);
        assert_eq!(sim.answers.measured(), 4);
        assert_eq!(sim.answers.sum_ms(), 5.0 + 0.5 + 0.5 + 3.0);
        // The requests' own work: each first copy's full service.
        assert_eq!(sim.own_work, 5.0 + 0.5 + 4.0 + 2.0);
        let r = sim.result();
        assert_eq!(r.late_cancellations, Some(0.75));
        assert_eq!(r.aborted, Some(0.5));
        assert_eq!(r.extra_work, 15.0 / 11.5 - 1.0);
        assert_eq!(r.wasted_over_answering, Some(6.0 / 9.0));
    }

    #[test]
    fn a_hand_traced_staggered_run() {
        let config = config(1.0).with_stagger(2.0).unwrap();
        let mut sim = Simulation::new(&config, STREAM_FOR_TESTS);
        sim.first = sim.answers.warmup();
        let k = sim.answers.warmup();
        // t = 0: only copy 0 is sent; replica 0 is idle, so it starts and owns at once. Its
        // cancellation lands at 1, before copy 1 is sent at 2: copy 1 is dropped unsent, and
        // replica 1 never sees it.
        sim.admit(0.0, k, &[(0, 5.0), (1, 3.0)]);
        sim.unanswered += 1;
        assert_eq!(sim.request(k).owner, Some(0));
        run_until(&mut sim, 2.5);
        assert_eq!(sim.copy(k, 1).state, CopyState::Cancelled);
        assert_eq!(sim.replicas.serving(1), None);
        // t = 3: copy 0 waits behind request k (replica 0 busy to 5); copy 1 is sent at 5. At 5
        // request k's completion comes first (scheduled first): copy 0 starts and owns, its
        // cancellation due at 6. Then copy 1 reaches idle replica 1 and starts too; it answers
        // at 5.5, so the cancellation at 6 finds it finished (late), and copy 0 runs on to 6.
        run_until(&mut sim, 3.0);
        sim.admit(3.0, k + 1, &[(0, 1.0), (1, 0.5)]);
        sim.unanswered += 1;
        while sim.step().is_some() {}
        assert_eq!(sim.requests.len(), 0, "every request retired");
        assert_eq!(sim.copies_started, 3);
        assert_eq!(sim.cancels_sent, 2);
        assert_eq!(sim.cancels_aborted, 0);
        assert_eq!(sim.cancels_after_finish, 1);
        assert_eq!(sim.answers.sum_ms(), 5.0 + 2.5);
        assert_eq!(sim.own_work, 5.0 + 1.0);
        assert_eq!(sim.consumed_work, 5.0 + 1.0 + 0.5);
        assert_eq!(sim.wasted_work, 1.0);
    }

    #[test]
    fn no_message_delay_removes_a_sibling_before_it_is_queued() {
        let config = config(0.0);
        let mut sim = Simulation::new(&config, STREAM_FOR_TESTS);
        sim.first = sim.answers.warmup();
        let k = sim.answers.warmup();
        // Both replicas idle: copy 0 starts and cancels copy 1 at the same instant, before copy
        // 1 reaches its (idle) replica, which stays idle.
        sim.admit(0.0, k, &[(0, 5.0), (1, 3.0)]);
        sim.unanswered += 1;
        assert_eq!(sim.copy(k, 1).state, CopyState::Cancelled);
        assert_eq!(sim.replicas.serving(1), None);
        assert_eq!(sim.replicas.waiting(1), 0);
        while sim.step().is_some() {}
        assert_eq!(
            (
                sim.cancels_sent,
                sim.cancels_aborted,
                sim.cancels_after_finish
            ),
            (1, 0, 0)
        );
        assert_eq!(
            (sim.copies_started, sim.wasted_work, sim.useful_work),
            (1, 0.0, 5.0)
        );
    }

    #[test]
    fn never_landing_cancellations_send_nothing() {
        let config = config(f64::INFINITY);
        let mut sim = Simulation::new(&config, STREAM_FOR_TESTS);
        sim.first = sim.answers.warmup();
        let k = sim.answers.warmup();
        sim.admit(0.0, k, &[(0, 5.0), (1, 3.0)]);
        sim.unanswered += 1;
        while sim.step().is_some() {}
        // Copy 1 answers at 3; copy 0 runs to 5, all wasted.
        assert_eq!(sim.cancels_sent, 0);
        assert_eq!(
            (sim.copies_started, sim.wasted_work, sim.useful_work),
            (2, 5.0, 3.0)
        );
        assert_eq!(sim.answers.sum_ms(), 3.0);
        assert_eq!(sim.result().late_cancellations, None);
    }

    const STREAM_FOR_TESTS: Stream = crate::lab::tied::STREAM;
}
