//! Sampling primitives (core `sampling`).

pub mod histogram;
