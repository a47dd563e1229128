//! The Tail piece (seed 002): leaf profiles, one parent request over `n` leaves with its fixes
//! (hedge, partial results), and runs that accumulate parents into histograms.

pub mod leaf_quantiles;
pub mod mitigation;
pub mod profile;
pub mod request;
pub mod section;
pub mod tail_run;
