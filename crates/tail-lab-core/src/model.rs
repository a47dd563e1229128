//! The models, registered in one list.
//!
//! A model lives in one place (a file or folder under `lab/` or `tail/`) and declares there,
//! in one [`Model`] constant: its report key and title, the wasm call that runs it, its random
//! streams, its report runs and how they become report entries, and an example result that the
//! binding's TypeScript declarations are generated from. [`MODELS`] lists them; the report, the
//! CLI, the binding's model list and the tests iterate it. Adding a model is its own folder plus
//! one line here.

use crate::describe::Field;
use crate::error::ParamError;
use crate::sampling::address::Stream;
use std::any::Any;

/// What one report run produced, before the model turns its runs into report entries.
pub type RunOutput = Box<dyn Any + Send>;

/// A report section's entries, each described field by field.
pub type Entries = Vec<Vec<Field>>;

/// A registered model.
#[derive(Debug)]
pub struct Model {
    /// The report's key for it, also its JSON key (`"hedge_idle"`).
    pub key: &'static str,
    /// The report's heading for it.
    pub title: &'static str,
    /// What the report's table prints under the heading: the setting, and what the seeds say.
    pub note: &'static str,
    /// The wasm API function that runs one configuration (`"simulateHedge"`); `None` when the
    /// model is reached another way (the Tail piece is a class, `TailRun`).
    pub call: Option<&'static str>,
    /// That call's options and how they become a run ([`crate::api`]); `None` while the call
    /// still reads its options in the binding.
    pub api: Option<&'static crate::api::Call>,
    /// The JS names of the API's closed forms that belong to this model (`"slowShare"`): the
    /// Lab's sections may call these on the main thread, and nothing else of it.
    pub closed_forms: &'static [&'static str],
    /// The TypeScript interface of one entry (`"HedgeResult"`).
    pub result_type: &'static str,
    /// One sentence on what an entry is.
    pub result_doc: &'static str,
    /// The random streams the model draws from: no two models share one.
    pub streams: &'static [Stream],
    /// True when the report holds a list of entries (a sweep), false for one entry.
    pub sweep: bool,
    /// How many runs the report makes of it.
    pub runs: usize,
    /// Runs report run `index` (0..`runs`) under `seed` with `requests` per experiment.
    pub run: fn(index: usize, seed: u64, requests: u64) -> Result<RunOutput, ParamError>,
    /// Turns the outputs of every run, in order, into the report's entries.
    pub entries: fn(Vec<RunOutput>) -> Result<Entries, ParamError>,
    /// A small default run's entry: what the TypeScript declaration is generated from.
    pub example: fn() -> Vec<Field>,
}

/// Every model, in the report's order: the Lab's ([`crate::lab::MODELS`], in their
/// registration order), then the Tail piece.
pub const MODELS: &[&Model] = &ALL;

const COUNT: usize = crate::lab::MODELS.len() + 1;
const ALL: [&Model; COUNT] = {
    let mut all = [&crate::tail::section::MODEL; COUNT];
    let mut i = 0;
    while i < crate::lab::MODELS.len() {
        all[i] = crate::lab::MODELS[i];
        i += 1;
    }
    all
};

/// The model with report key `key`.
pub fn find(key: &str) -> Option<&'static Model> {
    MODELS.iter().copied().find(|m| m.key == key)
}

/// [`Model::entries`] for a model whose runs each give one described result of type `T`.
pub fn each_described<T: crate::describe::Describe + 'static>(
    outputs: Vec<RunOutput>,
) -> Result<Entries, ParamError> {
    outputs
        .into_iter()
        .map(|o| {
            o.downcast::<T>()
                .map(|r| r.describe())
                .map_err(|_| wrong_output())
        })
        .collect()
}

/// The error [`Model::entries`] gives for outputs that are not its runs'.
pub fn wrong_output() -> ParamError {
    ParamError::OutOfRange {
        param: "outputs",
        got: f64::NAN,
        expected: "the outputs of the model's own runs, in order",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_call_is_the_call_and_result_its_model_registers() {
        // `Model::call` and `Model::result_type` are read by the report, the CLI and the
        // binding's `models()`; a declared call states both again: they must agree.
        for m in MODELS {
            if let Some(api) = m.api {
                assert_eq!(Some(api.name), m.call, "{}", m.key);
                assert_eq!(api.result_type, m.result_type, "{}", m.key);
            }
        }
        assert!(MODELS.iter().any(|m| m.api.is_some()));
    }

    #[test]
    fn no_two_models_share_a_key_or_a_stream() {
        let mut keys: Vec<_> = MODELS.iter().map(|m| m.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), MODELS.len(), "report keys are unique");
        let mut streams: Vec<_> = MODELS
            .iter()
            .flat_map(|m| m.streams.iter().copied())
            .collect();
        let all = streams.len();
        streams.sort_unstable();
        streams.dedup();
        assert_eq!(streams.len(), all, "stream ids are unique: {streams:?}");
    }
}
