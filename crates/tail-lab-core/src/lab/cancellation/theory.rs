//! The closed forms the cancellation model is checked against.

/// The load at which duplicating `h` of the requests (0..=1) with no cancellation stops being
/// stable: `(1 + h)ρ < 1`, so `ρ < 1 / (1 + h)` (0.5 for every request duplicated). A delay that
/// never lands is no cancellation, so a duplicate whose cancel never lands has this boundary.
pub fn never_cancel_boundary(h: f64) -> f64 {
    1.0 / (1.0 + h)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_boundary_is_where_the_duplicated_utilisation_reaches_one() {
        for h in [0.0, 0.25, 0.5, 1.0] {
            let rho = super::never_cancel_boundary(h);
            assert!((crate::theory::duplicated_utilisation(rho, h) - 1.0).abs() < 1e-12);
            assert!(crate::theory::duplication_stable(rho * 0.999, h));
            assert!(!crate::theory::duplication_stable(rho, h));
        }
    }
}
