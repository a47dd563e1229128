//! The shared bins (core `histogram`).

use js_sys::Float64Array;
use tail_lab_core::sampling::histogram::shared_bins;
use wasm_bindgen::prelude::*;

/// The shared bin edges in ms (`binCount + 1` of them), as a fresh `Float64Array`.
#[wasm_bindgen(js_name = binEdges)]
pub fn bin_edges() -> Float64Array {
    Float64Array::from(shared_bins().edges())
}
