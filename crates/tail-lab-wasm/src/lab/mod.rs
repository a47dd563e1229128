//! The Lab's models (core `lab`).

pub mod fanout;
pub mod hedge_idle;
pub mod loaded;
pub mod service;
pub mod supermarket;
