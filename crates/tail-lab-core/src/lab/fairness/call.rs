//! `simulateFairness` (one load), and the options of the standard sweep over loads
//! (`fairnessSweep`): the same but the load.

use super::{
    FairnessParams, FairnessPoint, POLICY_NAMES, REQUESTS_PER_RUN, SHARE, SWEEP_LOADS,
    TenantPolicy, simulate,
};
use crate::api::{
    Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::ParamError;
use crate::lab::loaded::Cancellation;
use crate::lab::loaded::options::{LOAD_OPTION, REPLICAS_OPTION, cancellation_option};

const POINT: [OptionSpec; 8] = [
    OptionSpec {
        doc: "Offered utilisation of both tenants together, before backups (`simulateFairness` \
              only).",
        ..LOAD_OPTION
    },
    OptionSpec::number(
        "shareA",
        "The share of requests that are tenant A's.",
        Unit::Fraction,
        SHARE,
        0.5,
    ),
    OptionSpec {
        name: "policy",
        doc: "What tenant A sends; tenant B never sends a backup.",
        unit: Unit::None,
        kind: Kind::Name {
            names: &POLICY_NAMES,
            expected: "\"hedge\", \"duplicate\", \"none\"",
            default: Some("duplicate"),
        },
    },
    cancellation_option("backup"),
    OptionSpec::count(
        "requests",
        "Requests per run (two runs a load).",
        Unit::Count,
        REQUESTS_PER_RUN,
        40_000,
    ),
    REPLICAS_OPTION,
    SEED_OPTION,
    SERVICE_OPTION,
];

/// The options of the standard sweep (`fairnessSweep`): [`CALL`]'s without the load.
pub const SWEEP_OPTIONS: &[OptionSpec] = &[
    POINT[1], POINT[2], POINT[3], POINT[4], POINT[5], POINT[6], POINT[7],
];

/// The parameters `o` sets (read against [`CALL`]'s options or [`SWEEP_OPTIONS`], whose loads
/// are each of [`SWEEP_LOADS`] in turn: 0.5 here).
pub fn params(o: &OptionValues) -> Result<FairnessParams, ParamError> {
    Ok(FairnessParams {
        replicas: o.count("replicas") as u32,
        load: o.number("load").unwrap_or(0.5),
        share_a: o.number("shareA").expect("shareA has a default"),
        policy: TenantPolicy::from_name(o.name("policy").expect("policy has a default"))?,
        cancellation: Cancellation::from_name(
            o.name("cancellation").expect("cancellation has a default"),
        )?,
        requests: o.count("requests"),
        seed: o.seed("seed"),
        service: o.service("service"),
    })
}

/// The work of one load (`sweep: false`) or of the standard sweep at `p`.
pub fn sweep_work(p: &FairnessParams, sweep: bool) -> Work {
    if sweep {
        Work {
            units: p.work_units() * SWEEP_LOADS.len() as f64,
            counted_as: format!("requests × 60 × 2 runs × {} loads", SWEEP_LOADS.len()),
        }
    } else {
        Work {
            units: p.work_units(),
            counted_as: "requests × 60 × 2 runs".into(),
        }
    }
}

/// `simulateFairness`: both tenants at one load.
pub const CALL: Call = Call {
    name: "simulateFairness",
    doc: "Two tenants share loaded replicas and only tenant A sends backups: both tenants' \
          latencies at one load, with and without A's backups.",
    options_type: "FairnessOptions",
    options_doc: "Options of `simulateFairness` and `fairnessSweep` (which takes no `load`): two \
                  tenants share loaded replicas and only tenant A sends backups.",
    options: &POINT,
    exclusive: &[],
    result_type: <FairnessPoint as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let p = params(o)?;
        let work = sweep_work(&p, false);
        Ok(Prepared::new(work, move || Ok(simulate(&p)?.describe())))
    },
};
