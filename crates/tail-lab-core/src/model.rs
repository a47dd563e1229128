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

    /// What a Lab model is missing, as a list of sentences naming the part and where it goes.
    fn missing_parts(
        m: &Model,
        module: &str,
        lab: &std::path::Path,
        it: &std::path::Path,
    ) -> Vec<String> {
        let folder = lab.join(module);
        let file = lab.join(format!("{module}.rs"));
        let mut missing = Vec::new();
        let source = if folder.join("mod.rs").is_file() {
            Some(std::fs::read_to_string(folder.join("mod.rs")).unwrap_or_default())
        } else if file.is_file() {
            Some(std::fs::read_to_string(&file).unwrap_or_default())
        } else {
            missing.push(format!("src/lab/{module}/mod.rs (or src/lab/{module}.rs)"));
            None
        };
        // Its tests: the folder's it.rs (build.rs adds it to tests/it), a file of tests/it
        // named after it, or, for a one-file model, a test module in the file.
        let has_tests = folder.join("it.rs").is_file()
            || std::fs::read_dir(it).is_ok_and(|entries| {
                entries.filter_map(Result::ok).any(|e| {
                    e.file_name()
                        .to_str()
                        .is_some_and(|n| n.starts_with(module) && n.ends_with(".rs"))
                })
            })
            || (file.is_file()
                && source
                    .as_deref()
                    .is_some_and(|s| s.contains("#[cfg(test)]")));
        if !has_tests {
            missing.push(format!("tests: src/lab/{module}/it.rs"));
        }
        if m.streams.is_empty() {
            missing.push("its random streams (`Model::streams`)".into());
        }
        if m.call.is_none() {
            missing.push("its wasm call (`Model::call`)".into());
        }
        if m.api.is_none() {
            missing.push("its declared options (`Model::api`, an `api::Call` in call.rs)".into());
        }
        if m.title.is_empty() || m.result_doc.is_empty() {
            missing.push("its title and result_doc".into());
        }
        if m.runs == 0 {
            missing.push("a report run (`Model::runs` ≥ 1)".into());
        }
        missing
    }

    #[test]
    fn every_lab_model_has_every_part() {
        // Registration is the folder and its line in `lab_models!`: what the folder must then
        // hold is checked here, by name, so a model added without a part fails saying which.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (lab, it) = (root.join("src/lab"), root.join("tests/it"));
        assert_eq!(crate::lab::MODULES.len(), crate::lab::MODELS.len());
        for (m, module) in crate::lab::MODELS.iter().zip(crate::lab::MODULES) {
            let missing = missing_parts(m, module, &lab, &it);
            assert!(
                missing.is_empty(),
                "model {} lacks: {}",
                m.key,
                missing.join("; ")
            );
        }
        // The check can fail: a model with nothing is missing every part.
        let bare = Model {
            key: "no_such_model",
            title: "",
            streams: &[],
            call: None,
            api: None,
            runs: 0,
            ..*crate::lab::MODELS[0]
        };
        let missing = missing_parts(&bare, "no_such_model", &lab, &it);
        assert_eq!(missing.len(), 7, "{missing:?}");
        assert!(
            missing[0].contains("src/lab/no_such_model/mod.rs"),
            "{missing:?}"
        );
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
