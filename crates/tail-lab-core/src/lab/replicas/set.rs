//! The replicas: FIFO single servers, each with its queue of copies and its next completion.

use crate::des::{EventKey, FifoStation, StationClocks};

/// `replicas` FIFO single servers, each a [`FifoStation`] of jobs `J` (an engine's name for a
/// copy), and each one's next completion in [`StationClocks`]: at most one each, since a
/// replica serves one copy at a time, so no completion is ever stale. A copy cancelled in
/// service simply has its completion replaced by the next copy's, or cleared.
///
/// The set draws nothing and keeps no time: an engine decides how long a copy's service takes
/// and numbers its events ([`EventKey`]) from its own counter. A cancelled copy still queued
/// is skipped when it reaches the head, by the `ready` test the engine gives
/// [`ReplicaSet::start_next`] (lazy cancellation).
#[derive(Debug, Clone)]
pub(crate) struct ReplicaSet<J> {
    stations: Vec<FifoStation<J>>,
    completions: StationClocks,
}

impl<J: Copy> ReplicaSet<J> {
    /// `replicas` (≥ 1) idle replicas.
    pub(crate) fn new(replicas: u32) -> Self {
        ReplicaSet {
            stations: vec![FifoStation::new(1); replicas as usize],
            completions: StationClocks::new(replicas as usize),
        }
    }

    /// Puts `job` at the back of `replica`'s queue; true when the replica is idle, so the job
    /// is the next one [`Self::start_next`] starts there (an engine starts the next job
    /// whenever a replica goes idle, so an idle replica has no ready job queued).
    #[inline]
    pub(crate) fn push(&mut self, replica: u32, job: J) -> bool {
        let station = &mut self.stations[replica as usize];
        station.push(job);
        station.serving(0).is_none()
    }

    /// The job `replica` serves, if any.
    #[inline]
    pub(crate) fn serving(&self, replica: u32) -> Option<J> {
        self.stations[replica as usize].serving(0)
    }

    /// `replica` is done with its job (finished or cancelled), if it had one: it starts the
    /// first queued job `ready` accepts and returns it (the engine then sets its completion,
    /// [`Self::complete_at`]), dropping the rejected ones before it; or it goes idle, its
    /// completion cleared, and returns `None`.
    #[inline]
    pub(crate) fn start_next(&mut self, replica: u32, ready: impl FnMut(J) -> bool) -> Option<J> {
        let started = self.stations[replica as usize].start_next(0, ready);
        if started.is_none() {
            self.completions.clear(replica as usize);
        }
        started
    }

    /// The job `replica` has just started completes at `time` (ms), its event numbered `seq`
    /// (it replaces any completion the replica had).
    #[inline]
    pub(crate) fn complete_at(&mut self, replica: u32, time: f64, seq: u64) {
        self.completions.set(replica as usize, time, seq);
    }

    /// The replica whose completion comes first, and that completion's key
    /// ([`EventKey::NONE`] when every replica is idle).
    #[inline(always)]
    pub(crate) fn next_completion(&self) -> (u32, EventKey) {
        let (replica, key) = self.completions.first();
        (replica as u32, key)
    }

    /// Jobs in `replica`'s queue, cancelled ones not yet skipped included.
    #[cfg(test)]
    pub(crate) fn waiting(&self, replica: u32) -> usize {
        self.stations[replica as usize].waiting()
    }

    /// Each replica's next completion, for a test that steps a run by time.
    #[cfg(test)]
    pub(crate) fn completions(&self) -> &StationClocks {
        &self.completions
    }
}
