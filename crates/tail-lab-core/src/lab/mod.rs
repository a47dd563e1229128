//! The Lab's models (seeds 000/001): the service-time model, fan-out, hedging on idle
//! replicas, hedging on loaded replicas, and the power of d choices.

pub mod fanout;
pub mod hedge_idle;
pub mod loaded;
pub mod service;
pub mod supermarket;
