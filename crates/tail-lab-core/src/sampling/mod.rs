//! Sampling primitives shared by every model: addressed random streams, the distributions and
//! their fast table sampler, and histograms on one shared set of log-spaced bins.

pub mod address;
pub mod batch;
pub mod cell_bins;
pub mod empirical;
pub mod histogram;
pub mod inverse_cdf;
pub mod lognormal;
pub mod normal;
pub mod timeline;
