//! The options of a Tail run (`TailOptions`: `new TailRun`, `reconfigure`, `requestAt`,
//! `leafQuantile`, `parentQuantile`), declared once ([`crate::api`]), and the settings they
//! make: a preset profile or the reader's own latencies, a fix, a fan-out and a seed.

use crate::api::{Kind, OptionSet, OptionSpec, OptionValues, SEED_OPTION};
use crate::describe::Unit;
use crate::error::ParamError;
use crate::sampling::empirical::EmpiricalDistribution;
use crate::tail::mitigation::Mitigation;
use crate::tail::profile::{LeafProfile, ProfileId};
use crate::tail::request::TailConfig;
use crate::theory::FANOUT;
use std::sync::Arc;

/// The profile name of a reader's own latencies.
pub const YOURS: &str = "yours";

/// The profiles a run may have, by name: the presets ([`ProfileId::name`]), then [`YOURS`].
pub const PROFILE_NAMES: [&str; 4] = ["default", "gc-pause", "tight", YOURS];

/// The fixes a run may apply, by name ([`Mitigation::PRESETS`]).
pub const FIX_NAMES: [&str; 4] = ["none", "hedge-p95", "drop-1", "drop-5"];

/// The options of a Tail run, each optional.
pub const TAIL_OPTIONS: OptionSet = OptionSet {
    type_name: "TailOptions",
    doc: "The options of a Tail run (`new TailRun`, `TailRun.prepare`, `reconfigure`, \
          `requestAt`, `leafQuantile`, `parentQuantile`), each optional; `reconfigure` changes \
          only those given.",
    options: &[
        OptionSpec::count(
            "fanout",
            "Leaves per parent request.",
            Unit::Count,
            FANOUT,
            100,
        ),
        OptionSpec {
            name: "profile",
            doc: "A preset leaf profile, or \"yours\": every leaf draws from `leaves`, your own \
                  latencies.",
            unit: Unit::None,
            kind: Kind::Name {
                names: &PROFILE_NAMES,
                expected: "\"default\", \"gc-pause\", \"tight\", \"yours\" (with leaves)",
                default: Some("default"),
            },
        },
        OptionSpec {
            name: "fix",
            doc: "The parent's fix: none, a hedge after the leaf p95, or dropping the slowest 1% \
                  or 5% of leaves.",
            unit: Unit::None,
            kind: Kind::Name {
                names: &FIX_NAMES,
                expected: "\"none\", \"hedge-p95\", \"drop-1\", \"drop-5\"",
                default: Some("none"),
            },
        },
        SEED_OPTION,
        OptionSpec {
            name: "leaves",
            doc: "Your own latencies (`parseLatencies(...).service`), with `profile: \"yours\"` \
                  and only then; a run already on \"yours\" takes new `leaves` without `profile`.",
            unit: Unit::None,
            kind: Kind::Service,
        },
    ],
};

/// Where a run's leaves draw from: a preset, or the reader's own latencies.
#[derive(Debug, Clone, PartialEq)]
pub enum Leaves {
    /// A named preset.
    Preset(ProfileId),
    /// `profile: "yours"` with `leaves`: the reader's distribution.
    Yours(Arc<EmpiricalDistribution>),
}

impl Leaves {
    /// The core's profile.
    pub fn profile(&self) -> LeafProfile {
        match self {
            Leaves::Preset(id) => id.profile(),
            Leaves::Yours(d) => LeafProfile::empirical(Arc::clone(d)),
        }
    }

    /// The name the API gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Leaves::Preset(id) => id.name(),
            Leaves::Yours(_) => YOURS,
        }
    }
}

/// A Tail run's settings, with their names as the API spells them.
#[derive(Debug, Clone, PartialEq)]
pub struct TailSettings {
    /// Leaves per parent (1..=1024; the page offers 1..=256).
    pub fanout: u32,
    /// Profile preset, or the reader's own latencies.
    pub profile: Leaves,
    /// The fix's name (one of [`FIX_NAMES`]).
    pub fix: &'static str,
    /// Seed.
    pub seed: u64,
}

impl Default for TailSettings {
    /// The declared defaults ([`TAIL_OPTIONS`]).
    fn default() -> Self {
        TailSettings::read(
            &OptionValues::complete(TAIL_OPTIONS.options, Vec::new()),
            None,
        )
        .expect("the defaults are valid")
    }
}

/// A shape error about `leaves`: what it goes with.
fn leaves_error(message: String) -> ParamError {
    ParamError::Shape {
        param: "leaves",
        message,
    }
}

impl TailSettings {
    /// The settings `o` (read against [`TAIL_OPTIONS`]) makes: the options given, on top of
    /// `base` when there is one (a run's `reconfigure`), else the declared defaults. `leaves`
    /// goes with `profile: "yours"` (or on top of a base already on it): `"yours"` without
    /// leaves to keep, `leaves` with a preset, or leaves that are not your own latencies are a
    /// [`ParamError::Shape`] naming `leaves`.
    pub fn read(o: &OptionValues, base: Option<&TailSettings>) -> Result<TailSettings, ParamError> {
        let leaves = o
            .given_service("leaves")
            .map(|model| {
                model.as_empirical().cloned().ok_or_else(|| {
                    leaves_error(
                        "leaves must be your own latencies, { empirical: { levels, ms } } as \
                         parseLatencies(...).service gives them (a lognormal body is a preset \
                         profile)"
                            .into(),
                    )
                })
            })
            .transpose()?;
        let name = o.given("profile").then(|| o.name("profile")).flatten();
        let base_yours = match base.map(|b| &b.profile) {
            Some(Leaves::Yours(d)) => Some(d),
            _ => None,
        };
        let profile = match (name, leaves) {
            (Some(YOURS), Some(d)) => Leaves::Yours(d),
            (None, Some(d)) => match base_yours {
                Some(_) => Leaves::Yours(d),
                None => {
                    return Err(leaves_error(
                        "leaves needs profile: \"yours\" (the run's profile is a preset)".into(),
                    ));
                }
            },
            (Some(YOURS), None) => match base_yours {
                Some(d) => Leaves::Yours(Arc::clone(d)),
                None => {
                    return Err(leaves_error(
                        "leaves is required with profile \"yours\": your latencies as { \
                         empirical: { levels, ms } } (parseLatencies(...).service)"
                            .into(),
                    ));
                }
            },
            (Some(preset), Some(_)) => {
                return Err(leaves_error(format!(
                    "leaves is only for profile \"yours\" (got profile {})",
                    crate::error::echoed(preset)
                )));
            }
            (Some(preset), None) => Leaves::Preset(ProfileId::from_name(preset)?),
            (None, None) => match base {
                Some(b) => b.profile.clone(),
                None => Leaves::Preset(ProfileId::from_name(
                    o.name("profile").expect("profile has a default"),
                )?),
            },
        };
        // The base's value where one is kept: the option not given.
        let base_or = |name: &str| base.filter(|_| !o.given(name));
        Ok(TailSettings {
            fanout: match base_or("fanout") {
                Some(b) => b.fanout,
                None => o.count("fanout") as u32,
            },
            profile,
            fix: match base_or("fix") {
                Some(b) => b.fix,
                None => o.name("fix").expect("fix has a default"),
            },
            seed: match base_or("seed") {
                Some(b) => b.seed,
                None => o.seed("seed"),
            },
        })
    }

    /// The core configuration.
    pub fn config(&self) -> Result<TailConfig, ParamError> {
        TailConfig::new(
            self.fanout,
            self.profile.profile(),
            Mitigation::from_name(self.fix)?,
            self.seed,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::OptionValue;

    fn read(
        given: Vec<(&'static str, OptionValue)>,
        base: Option<&TailSettings>,
    ) -> Result<TailSettings, ParamError> {
        TailSettings::read(&OptionValues::complete(TAIL_OPTIONS.options, given), base)
    }

    #[test]
    fn the_names_are_the_presets() {
        let presets: Vec<&str> = ProfileId::ALL.map(ProfileId::name).to_vec();
        assert_eq!(PROFILE_NAMES[..3], presets[..]);
        assert_eq!(
            FIX_NAMES.to_vec(),
            Mitigation::PRESETS.map(|p| p.0).to_vec()
        );
        let d = TailSettings::default();
        assert_eq!((d.fanout, d.fix, d.seed), (100, "none", 1));
        assert_eq!(d.profile, Leaves::Preset(ProfileId::Default));
    }

    #[test]
    fn a_reconfiguration_changes_what_it_gives_and_leaves_go_with_yours() {
        let base = read(vec![("fanout", OptionValue::Count(7))], None).unwrap();
        let next = read(vec![("fix", OptionValue::Name("drop-5"))], Some(&base)).unwrap();
        assert_eq!((next.fanout, next.fix), (7, "drop-5"));
        let e = read(vec![("profile", OptionValue::Name(YOURS))], Some(&base)).unwrap_err();
        assert!(
            e.is_shape() && e.to_string().starts_with("leaves is required"),
            "{e}"
        );
        let lab = OptionValue::Service(Default::default());
        let e = read(vec![("leaves", lab)], None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("leaves must be your own latencies"),
            "{e}"
        );
    }
}
