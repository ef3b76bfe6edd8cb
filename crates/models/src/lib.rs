//! The source papers' analytic incast models, as pure functions.
//!
//! Nothing here simulates anything: every function maps parameters (plain `f64` values whose
//! names carry their unit, e.g. `rtt_s`, `buffer_bytes`) to a number, so the same code serves
//! `incastsim model` on the command line and, later, model columns fed with quantities measured
//! from a simulated run.
//!
//! | module | paper | formulas |
//! |---|---|---|
//! | [`rto`] | Hafeez et al., "Mitigating Datacenter Incast Congestion Using RTO Randomization" (seed 000) | Eq. 4 (tail of the max RTO), Eq. 6 (E[max RTO]), Eq. 7 (its variance) |
//! | [`packet_size`] | Ge et al., "An effective solution of TCP Incast problem" (seed 001) | Eq. 1–3 (N < (B + 2CT)/(5L)) |
//! | [`padhye`] | Padhye et al., "Modeling TCP Throughput" (SIGCOMM 1998) | Eq. 32 (send rate of one Reno flow under loss p) |
//! | [`book`] | Kulkarni & Agrawal, "Analysis of TCP Performance in Data Center Networks", Ch. 3 (seed 003) | Eq. 3.21 (TD-only), Eq. 3.39 (Full), Eq. 3.40 (Split) and their parts |
//!
//! Invalid inputs (zero senders, a probability outside its range, a negative delay, NaN, …) give
//! a [`ModelError`] naming the parameter; no function panics or returns NaN for them.

#![warn(missing_docs)]

pub mod book;
pub mod packet_size;
pub mod padhye;
pub mod rto;

pub use book::{BookModel, BookParams, DEFAULT_N_STAR};
pub use packet_size::NmaxBound;

/// A parameter outside the domain where a model is defined.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A real-valued parameter is NaN, infinite, or outside its allowed range.
    #[error("invalid {name} = {value}: must be {allowed}")]
    OutOfRange {
        /// The parameter, as named in the function signature / struct field.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The allowed range, in words.
        allowed: &'static str,
    },
    /// A count (of senders) is zero.
    #[error("invalid {name} = 0: must be at least 1")]
    Zero {
        /// The parameter, as named in the function signature / struct field.
        name: &'static str,
    },
}

/// Checks `value` is finite and `>= 0`.
pub(crate) fn non_negative(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ModelError::OutOfRange {
            name,
            value,
            allowed: "a finite number >= 0",
        })
    }
}

/// Checks `value` is finite and `> 0`.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ModelError::OutOfRange {
            name,
            value,
            allowed: "a finite number > 0",
        })
    }
}

/// Checks `value` is a probability in `(0, 1]`.
pub(crate) fn probability(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(ModelError::OutOfRange {
            name,
            value,
            allowed: "a probability in (0, 1]",
        })
    }
}

/// Checks a count is at least 1.
pub(crate) fn at_least_one(name: &'static str, value: u64) -> Result<u64, ModelError> {
    if value == 0 {
        Err(ModelError::Zero { name })
    } else {
        Ok(value)
    }
}
