//! `simulateCancellation` (one delay), and the options of the standard sweep over delays
//! (`cancellationSweep`): the same but the delay, with fewer requests a run.

use super::{
    CANCEL_DELAY_MS, CancellationParams, CancellationPoint, REQUESTS_PER_RUN, SWEEP_DELAYS_MS,
    simulate,
};
use crate::api::{
    Call, Kind, OptionSpec, OptionValues, Prepared, SEED_OPTION, SERVICE_OPTION, Work,
};
use crate::describe::{Describe, Unit};
use crate::error::ParamError;
use crate::lab::loaded::Cancellation;
use crate::lab::loaded::options::{LOAD_OPTION, REPLICAS_OPTION, cancellation_option};

const POINT: [OptionSpec; 8] = [
    LOAD_OPTION,
    OptionSpec::number(
        "cancelDelayMs",
        "The delay between the answer and the cancel landing (Infinity: it never lands).",
        Unit::Ms,
        CANCEL_DELAY_MS,
        10.0,
    ),
    cancellation_option("either-any"),
    OptionSpec {
        name: "bisect",
        doc: "Look for the load at which duplicating stops winning, by bisection (12 more runs).",
        unit: Unit::None,
        kind: Kind::Flag { default: true },
    },
    OptionSpec::count(
        "requests",
        "Requests per run.",
        Unit::Count,
        REQUESTS_PER_RUN,
        20_000,
    ),
    REPLICAS_OPTION,
    SEED_OPTION,
    SERVICE_OPTION,
];

/// The options of the standard sweep (`cancellationSweep`): [`CALL`]'s without the delay, and
/// 10,000 requests a run unless told.
pub const SWEEP_OPTIONS: &[OptionSpec] = &[
    POINT[0],
    POINT[2],
    POINT[3],
    OptionSpec::count(
        "requests",
        "Requests per run.",
        Unit::Count,
        REQUESTS_PER_RUN,
        10_000,
    ),
    POINT[5],
    POINT[6],
    POINT[7],
];

/// The parameters `o` sets (read against [`CALL`]'s options or [`SWEEP_OPTIONS`]; the sweep's
/// delay is each of [`SWEEP_DELAYS_MS`] in turn, 10 ms here).
pub fn sweep_params(o: &OptionValues) -> Result<CancellationParams, ParamError> {
    Ok(CancellationParams {
        replicas: o.count("replicas") as u32,
        load: o.number("load").expect("load has a default"),
        cancellation: Cancellation::from_name(
            o.name("cancellation").expect("cancellation has a default"),
        )?,
        cancel_delay_ms: o.number("cancelDelayMs").unwrap_or(10.0),
        requests: o.count("requests"),
        seed: o.seed("seed"),
        service: o.service("service"),
        bisect: o.flag("bisect"),
    })
}

/// The work of one point (`sweep: false`) or of the standard sweep at `p`.
pub fn sweep_work(p: &CancellationParams, sweep: bool) -> Work {
    // The run count comes from the params (`runs()`), so the words cannot drift from the bound.
    if sweep {
        Work {
            units: p.work_units() * SWEEP_DELAYS_MS.len() as f64,
            counted_as: format!(
                "requests × 60 × {} runs × {} delays",
                p.runs(),
                SWEEP_DELAYS_MS.len()
            ),
        }
    } else {
        Work {
            units: p.work_units(),
            counted_as: format!("requests × 60 × {} runs", p.runs()),
        }
    }
}

/// `simulateCancellation`: one cancellation delay at one load.
pub const CALL: Call = Call {
    name: "simulateCancellation",
    doc: "One cancellation delay at one load: no backups, the hedge and duplicating, and (unless \
          `bisect: false`) the load at which duplicating stops winning.",
    options_type: "CancellationOptions",
    options_doc: "Options of `simulateCancellation` and `cancellationSweep` (which takes no \
                  `cancelDelayMs`, and runs 10000 requests unless told): hedging on loaded \
                  replicas when the cancel a request sends its losing copy lands \
                  `cancelDelayMs` after the answer.",
    options: &POINT,
    exclusive: &[],
    result_type: <CancellationPoint as Describe>::TYPE_NAME,
    more: &[],
    prepare: |o: &OptionValues| -> Result<Prepared, ParamError> {
        let p = sweep_params(o)?;
        let work = sweep_work(&p, false);
        Ok(Prepared::new(work, move || Ok(simulate(&p)?.describe())))
    },
};
