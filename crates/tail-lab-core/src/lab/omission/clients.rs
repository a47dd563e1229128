//! The four ways of measuring one stalling server, run side by side on the same work.

use super::measure::Measurement;
use super::stalls::{Gaps, Server, Stalls};
use super::{OmissionParams, STALL_STREAM, STREAM, Work, theory};
use crate::error::ParamError;
use crate::lab::service::ServiceSampler;
use crate::sampling::address::SampleStream;
use crate::sampling::histogram::shared_bins;

/// What each way of measuring recorded, at one setting.
#[derive(Debug, Clone, PartialEq)]
pub struct OmissionResult {
    /// The parameters of the run.
    pub params: OmissionParams,
    /// Sends due in the run (the open loop's and the intended-time loop's samples).
    pub sends: u64,
    /// Stalls that began before the end of the run.
    pub stalls: u64,
    /// Closed loop, latency from the actual send.
    pub raw: Measurement,
    /// The raw samples with HdrHistogram's expected-interval fills.
    pub corrected: Measurement,
    /// Closed loop, latency from the intended send time (wrk2).
    pub intended: Measurement,
    /// Open loop: every send on schedule (the truth).
    pub open: Measurement,
    /// The open loop's law in closed form, with random gaps (`None` with fixed ones).
    pub theory: Option<theory::OpenLoop>,
    /// The probe of a loaded replica.
    pub probe: super::probe::ProbeResult,
    /// Abscissae of the survival curves (ms): every fifth shared bin edge from 0.25 ms up to
    /// past the longest sample.
    pub t_ms: Vec<f64>,
}

/// A request's work at send number `k`.
struct WorkDraw {
    constant: Option<f64>,
    sampler: Option<std::rc::Rc<ServiceSampler>>,
    seed: u64,
}

impl WorkDraw {
    #[inline]
    fn at(&self, k: u64) -> f64 {
        match (&self.constant, &self.sampler) {
            (Some(ms), _) => *ms,
            (None, Some(s)) => s.sample(SampleStream::at(self.seed, STREAM, k, 0, 0)).ms,
            (None, None) => unreachable!("a work model is set"),
        }
    }
}

/// Runs the four clients against the same server and the same work.
pub fn simulate(params: OmissionParams) -> Result<OmissionResult, ParamError> {
    params.check()?;
    let p = &params;
    let work = match &p.work {
        Work::Constant(ms) => WorkDraw {
            constant: Some(*ms),
            sampler: None,
            seed: p.seed,
        },
        Work::Model(m) => WorkDraw {
            constant: None,
            sampler: Some(ServiceSampler::shared(m.clone())),
            seed: p.seed,
        },
    };
    let mut stalls = Stalls::new(p.stall_ms, p.every_ms, p.gaps, p.seed, STALL_STREAM);
    let sends = p.sends();
    let t = p.interval_ms;

    // Open loop: send k at k·interval, whatever the server does.
    let mut open = Measurement::default();
    let mut server = Server::new(&mut stalls);
    for k in 0..sends {
        let at = k as f64 * t;
        open.record(server.answer(at, work.at(k)) - at);
    }

    // Closed loop, intended time: send k when due and the last answer is in.
    let mut intended = Measurement::default();
    let mut server = Server::new(&mut stalls);
    let mut last_answer = 0.0f64;
    for k in 0..sends {
        let due = k as f64 * t;
        let at = due.max(last_answer);
        last_answer = server.answer(at, work.at(k));
        intended.record(last_answer - due);
    }

    // Closed loop, raw: the next send at max(last send + interval, last answer); sends that
    // fall due while it waits are never made.
    let mut raw = Measurement::default();
    let mut corrected = Measurement::default();
    let mut server = Server::new(&mut stalls);
    let (mut at, mut k) = (0.0f64, 0u64);
    while at < p.duration_ms {
        let answer = server.answer(at, work.at(k));
        raw.record(answer - at);
        corrected.record_with_expected_interval(answer - at, t);
        at = (at + t).max(answer);
        k += 1;
    }

    let stall_count = stalls
        .spans()
        .iter()
        .filter(|(start, _)| *start < p.duration_ms)
        .count() as u64;
    let theory = match p.gaps {
        Gaps::Random => Some(theory::OpenLoop::new(p)),
        Gaps::Fixed => None,
    };
    let longest = [&raw, &corrected, &intended, &open]
        .iter()
        .map(|m| m.max_ms())
        .fold(0.0, f64::max);
    let edges = shared_bins().edges();
    let t_ms = edges
        .iter()
        .step_by(5)
        .copied()
        .filter(|&e| e >= 0.25)
        .take_while(|&e| e <= longest * 1.5)
        .collect();
    let probe = super::probe::simulate_probe(p.probe.clone(), p.seed)?;
    Ok(OmissionResult {
        probe,
        sends,
        stalls: stall_count,
        raw,
        corrected,
        intended,
        open,
        theory,
        t_ms,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_example_is_exact() {
        let r = simulate(OmissionParams::classic()).unwrap();
        assert_eq!(r.sends, 20_000);
        assert_eq!(r.stalls, 1);
        assert_eq!(r.raw.count(), 10_001.0);
        assert_eq!(r.raw.frac_le_1ms(), 10_000.0 / 10_001.0);
        assert_eq!(r.raw.max_ms(), 100_001.0);
        assert_eq!(r.corrected.count(), 20_000.0);
        assert_eq!(r.corrected.frac_le_1ms(), 0.5);
        assert_eq!(r.open.count(), 20_000.0);
        assert_eq!(r.open.frac_le_1ms(), 0.5);
        assert_eq!(r.intended.frac_le_1ms(), 0.5);
        // The open loop's sends in the stall wait out the rest of it: 100,001 ms down to 11 ms.
        assert_eq!(r.open.max_ms(), 100_001.0);
    }

    #[test]
    fn without_stalls_every_way_reads_the_same() {
        let p = OmissionParams {
            stall_ms: 0.0,
            ..OmissionParams::section_default()
        };
        let r = simulate(p).unwrap();
        assert_eq!(r.raw, r.open);
        assert_eq!(r.corrected, r.open);
        assert_eq!(r.intended, r.open);
    }
}
