//! The Tail piece (core `tail`).

pub mod leaf_quantiles;
pub mod mitigation;
pub mod profile;
pub mod request;
pub mod tail_run;
