//! The discrete-event core on its own: its pieces, then M/M/1 and M/M/c queues built from
//! nothing but [`super`] and the addressed streams, against their closed forms.

use super::*;
use crate::sampling::address::{SampleStream, Stream};

#[test]
fn events_pop_in_time_order_and_ties_in_scheduling_order() {
    let mut q = EventQueue::new();
    for (t, e) in [
        (3.0, 'a'),
        (1.0, 'b'),
        (2.0, 'c'),
        (1.0, 'd'),
        (3.0, 'e'),
        (0.5, 'f'),
    ] {
        q.schedule(t, e);
    }
    assert_eq!(q.len(), 6);
    let order: Vec<(f64, char)> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(
        order,
        [
            (0.5, 'f'),
            (1.0, 'b'),
            (1.0, 'd'),
            (2.0, 'c'),
            (3.0, 'a'),
            (3.0, 'e')
        ]
    );
    assert!(q.is_empty());
    assert_eq!(q.scheduled(), 6);
}

#[test]
fn event_keys_order_as_total_cmp_then_sequence() {
    let times = [
        f64::NEG_INFINITY,
        -1e300,
        -1.0,
        -f64::MIN_POSITIVE,
        -0.0,
        0.0,
        5e-324,
        1.0,
        1.0 + f64::EPSILON,
        1e300,
        f64::INFINITY,
        f64::NAN,
    ];
    for &a in &times {
        assert_eq!(EventKey::new(a, 3).time().to_bits(), a.to_bits());
        for &b in &times {
            for (sa, sb) in [(1u64, 2u64), (2, 1), (7, 7)] {
                let want = a.total_cmp(&b).then(sa.cmp(&sb));
                assert_eq!(
                    EventKey::new(a, sa).cmp(&EventKey::new(b, sb)),
                    want,
                    "{a} {b}"
                );
            }
        }
        assert!(EventKey::new(a, u64::MAX - 1) < EventKey::NONE);
    }
}

#[test]
fn station_clocks_pop_as_one_event_queue_would() {
    // Random sets, replacements and clears on 1..=13 stations, against the earliest live
    // event found by scanning, ties (equal times) included.
    let mut s = SampleStream::from_state(21);
    for stations in 1..=13usize {
        let mut clocks = StationClocks::new(stations);
        let mut live: Vec<Option<(f64, u64)>> = vec![None; stations];
        for seq in 1..3_000u64 {
            let station = (s.next_bits() % stations as u64) as usize;
            if s.next_bits() % 4 == 0 {
                clocks.clear(station);
                live[station] = None;
            } else {
                // Few distinct times, so ties are common.
                let time = (s.next_bits() % 8) as f64;
                clocks.set(station, time, seq);
                live[station] = Some((time, seq));
            }
            let want = live
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.map(|(t, q)| (i, t, q)))
                .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
            assert_eq!(clocks.peek(), want, "{stations} stations, step {seq}");
        }
    }
}

#[test]
fn a_ring_is_a_fifo_indexed_from_the_front() {
    let mut s = SampleStream::from_state(5);
    let mut ring = Ring::new();
    let mut want = std::collections::VecDeque::new();
    for i in 0..20_000u64 {
        if s.next_bits() % 3 == 0 {
            assert_eq!(ring.pop_front(), want.pop_front());
        } else {
            ring.push_back(i);
            want.push_back(i);
        }
        assert_eq!((ring.len(), ring.front()), (want.len(), want.front()));
        if !want.is_empty() {
            let j = (s.next_bits() % want.len() as u64) as usize;
            assert_eq!(ring[j], want[j]);
            ring[j] += 1;
            want[j] += 1;
        }
    }
    assert!(std::panic::catch_unwind(|| Ring::<u8>::new()[0]).is_err());
}

#[test]
fn a_removed_record_goes_stale_even_when_its_slot_is_reused() {
    let mut slab = Slab::new();
    let a = slab.insert("a");
    let b = slab.insert("b");
    assert_eq!(slab.remove(a), Some("a"));
    assert_eq!(slab.remove(a), None, "removing twice does nothing");
    let c = slab.insert("c");
    assert_eq!(c.slot(), a.slot(), "the freed slot is reused");
    assert_eq!((slab.get(a), slab.get(c)), (None, Some(&"c")));
    assert!(!slab.contains(a) && slab.contains(b));
    *slab.get_mut(b).unwrap() = "B";
    assert_eq!(slab.get(b), Some(&"B"));
    assert_eq!((slab.len(), slab.capacity()), (2, 2));
}

#[test]
fn a_station_serves_first_come_first_served_and_skips_cancelled_jobs() {
    let mut s = FifoStation::new(1);
    s.push(1);
    assert_eq!(s.idle_server(), Some(0));
    assert_eq!(s.start_next(0, |_| true), Some(1));
    for job in [2, 3, 4] {
        s.push(job);
    }
    assert_eq!((s.idle_server(), s.busy(), s.waiting()), (None, 1, 3));
    // Job 2 was cancelled while it waited: it is dropped when it reaches the head.
    assert_eq!(s.start_next(0, |j| j != 2), Some(3));
    assert_eq!(s.serving(0), Some(3));
    assert_eq!(s.start_next(0, |_| true), Some(4));
    assert_eq!(s.start_next(0, |_| true), None);
    assert_eq!((s.idle_server(), s.busy(), s.waiting()), (Some(0), 0, 0));
}

// ---------------------------------------------------------------------------------------------
// M/M/c from the core alone.

/// A stream for these tests only (no model uses it).
const TEST_STREAM: Stream = Stream::new(1_000_001);

/// Batches per run for the batch-means error.
const BATCHES: usize = 20;

/// Student's t with `BATCHES − 1` = 19 degrees of freedom, two-sided 0.1%: how many standard
/// errors a check allows.
const T_19: f64 = 3.883;

#[derive(Clone, Copy, PartialEq)]
enum Event {
    Arrival(u64),
    Departure(usize),
}

#[derive(Clone, Copy)]
struct Job {
    request: u64,
    arrival: f64,
    waited: bool,
}

/// Per batch of consecutive measured requests: summed sojourn, summed wait, requests that
/// waited, requests.
#[derive(Clone, Copy, Default)]
struct Batch {
    sojourn: f64,
    wait: f64,
    waited: f64,
    n: f64,
}

/// An M/M/c queue (`c` servers, exponential service of mean 1, Poisson arrivals at rate
/// `ρ·c`) for `requests` requests; the first tenth are not measured. Returns the measured
/// requests' statistics in [`BATCHES`] batches by arrival order.
fn mmc(c: usize, rho: f64, requests: u64, seed: u64) -> Vec<Batch> {
    let rate = rho * c as f64;
    let draw = |k: u64, leaf: u32| {
        -libm::log(SampleStream::at(seed, TEST_STREAM, k, leaf, 0).next_open_unit())
    };
    let (gap, service) = (|k| draw(k, 2) / rate, |k| draw(k, 0));
    let warmup = requests / 10;
    let span = requests - warmup;
    let mut batches = vec![Batch::default(); BATCHES];
    let mut events = EventQueue::new();
    let mut jobs = Slab::new();
    let mut station = FifoStation::new(c);
    let mut start = |now: f64,
                     server: usize,
                     station: &mut FifoStation<SlotKey>,
                     jobs: &mut Slab<Job>,
                     events: &mut EventQueue<Event>| {
        if let Some(key) = station.start_next(server, |_| true) {
            let job = jobs.get(key).expect("queued jobs are live");
            if job.request >= warmup {
                let b = &mut batches[((job.request - warmup) * BATCHES as u64 / span) as usize];
                b.wait += now - job.arrival;
            }
            events.schedule(now + service(job.request), Event::Departure(server));
        }
    };
    let mut done: Vec<(u64, f64, bool)> = Vec::new();
    events.schedule(gap(0), Event::Arrival(0));
    while let Some((now, event)) = events.pop() {
        match event {
            Event::Arrival(k) => {
                let idle = station.idle_server();
                station.push(jobs.insert(Job {
                    request: k,
                    arrival: now,
                    waited: idle.is_none(),
                }));
                if let Some(server) = idle {
                    start(now, server, &mut station, &mut jobs, &mut events);
                }
                if k + 1 < requests {
                    events.schedule(now + gap(k + 1), Event::Arrival(k + 1));
                }
            }
            Event::Departure(server) => {
                let key = station.serving(server).expect("a departing server is busy");
                let job = jobs.remove(key).expect("a job in service is live");
                done.push((job.request, now - job.arrival, job.waited));
                start(now, server, &mut station, &mut jobs, &mut events);
            }
        }
    }
    assert!(jobs.is_empty() && done.len() as u64 == requests);
    for (k, sojourn, waited) in done {
        if k >= warmup {
            let b = &mut batches[((k - warmup) * BATCHES as u64 / span) as usize];
            b.sojourn += sojourn;
            b.waited += f64::from(u8::from(waited));
            b.n += 1.0;
        }
    }
    batches
}

/// Erlang C, P(wait) in M/M/c with offered load `a = cρ`, from its defining sum (the model's
/// own closed form uses the Erlang B recursion instead; the two are checked against each other
/// in `lab::queue`).
fn erlang_c(c: usize, rho: f64) -> f64 {
    let a = rho * c as f64;
    let mut term = 1.0; // a^k / k!
    let mut sum = 0.0;
    for k in 0..c {
        sum += term;
        term *= a / (k + 1) as f64;
    }
    // term is now a^c / c!
    let top = term / (1.0 - rho);
    top / (sum + top)
}

/// Mean of the batch values and its standard error, `s/√B`.
fn batch_mean(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let xs: Vec<f64> = xs.collect();
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (var / n).sqrt())
}

#[test]
fn m_m_1_and_m_m_c_built_on_the_core_match_their_closed_forms() {
    // Tolerance, by batch means. Each run's 900,000 measured requests are cut into 20 batches
    // of 45,000 consecutive ones. Queue outputs are autocorrelated, but only over the time the
    // queue takes to forget its state: for M/M/1 at ρ = 0.8 the relaxation time is
    // 1/(1 − √ρ)² ≈ 90 service times (about 72 arrivals) and the waits' integrated
    // autocorrelation time is some tens of requests (Daley's asymptotic variance over the
    // stationary variance, ≈ 80 at ρ = 0.8); with more servers at the same ρ it is shorter.
    // Batches 500 times longer than that have means that are nearly independent (adjacent
    // ones correlate by ~0.1%) and nearly normal, so (mean − truth)/(s/√20) is Student t with
    // 19 degrees of freedom, and each check allows T_19 = 3.883 standard errors (two-sided
    // 0.1%). The histogram plays no part here: every number is an exact average. The bounds
    // come out at ±0.5–1.5% of P(wait), ±1–4% of the mean sojourn, and ±10% of the small mean
    // wait at c = 16 (0.095 service times).
    for (c, rho) in [(1, 0.5), (1, 0.8), (4, 0.7), (16, 0.8)] {
        let pw = erlang_c(c, rho);
        let mean_wait = pw / (c as f64 * (1.0 - rho)); // C/(cμ − λ) with μ = 1
        if c == 1 {
            assert!((pw - rho).abs() < 1e-12, "M/M/1 waits with probability ρ");
        }
        for seed in 1..=3 {
            let batches = mmc(c, rho, 1_000_000, seed);
            let checks = [
                (
                    "mean sojourn",
                    batch_mean(batches.iter().map(|b| b.sojourn / b.n)),
                    1.0 + mean_wait, // 1/(μ − λ) = 1/(1 − ρ) when c = 1
                ),
                (
                    "mean wait",
                    batch_mean(batches.iter().map(|b| b.wait / b.n)),
                    mean_wait,
                ),
                (
                    "P(wait)",
                    batch_mean(batches.iter().map(|b| b.waited / b.n)),
                    pw,
                ),
            ];
            for (what, (m, se), want) in checks {
                assert!(
                    (m - want).abs() <= T_19 * se,
                    "c={c} ρ={rho} seed {seed}: {what} {m:.5} vs {want:.5} ± {:.5}",
                    T_19 * se
                );
            }
        }
    }
}

#[test]
fn timers_pop_as_one_event_queue_would_and_cancelled_ones_leave() {
    // Random sets, cancels and pops, against the pending timers found by scanning, ties
    // (equal times) included.
    let mut s = SampleStream::from_state(17);
    let mut timers = Timers::new();
    let mut pending: Vec<(EventKey, u64, SlotKey)> = Vec::new();
    let mut gone: Vec<SlotKey> = Vec::new();
    for seq in 1..20_000u64 {
        match s.next_bits() % 5 {
            0 | 1 => {
                let key = EventKey::new((s.next_bits() % 16) as f64, seq);
                pending.push((key, seq, timers.set(key, seq)));
            }
            2 if !pending.is_empty() => {
                let i = (s.next_bits() % pending.len() as u64) as usize;
                let (_, payload, name) = pending.swap_remove(i);
                assert_eq!(timers.cancel(name), Some(payload));
                gone.push(name);
            }
            3 if !gone.is_empty() => {
                let name = gone[(s.next_bits() % gone.len() as u64) as usize];
                assert_eq!(timers.cancel(name), None, "a timer gone stays gone");
            }
            _ => {
                let want = pending.iter().map(|&(key, ..)| key).min();
                let got = timers.pop();
                assert_eq!(got.map(|(key, _)| key), want, "step {seq}");
                if let Some((key, payload)) = got {
                    let i = pending.iter().position(|&(k, ..)| k == key).unwrap();
                    assert_eq!(pending.swap_remove(i).1, payload);
                }
            }
        }
        let want = pending.iter().map(|&(key, ..)| key).min();
        assert_eq!(timers.first(), want.unwrap_or(EventKey::NONE), "step {seq}");
        assert_eq!(timers.len(), pending.len());
    }
}
