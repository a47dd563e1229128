//! The Lab's models (core `lab`).

pub mod loaded;
pub mod supermarket;
