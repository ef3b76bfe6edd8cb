//! The built-in RDMA congestion controllers, each a pure state machine behind the
//! [`RateController`](crate::RateController) hooks (no clock, no I/O: time comes in with every
//! call), each written from its paper and from the HPCC authors' ns-3 fork
//! (alibaba-edu/High-Precision-Congestion-Control, `simulation/src/point-to-point/model/rdma-hw.cc`,
//! "the fork" below), which models them as ConnectX-era NICs run them:
//!
//! - [`dcqcn`]: DCQCN's reaction point (Zhu et al., SIGCOMM 2015), the fork's `*Mlx` functions.
//! - [`hpcc`]: HPCC (Li et al., SIGCOMM 2019, Algorithm 1), the fork's `UpdateRateHp`.
//! - [`timely`]: TIMELY (Mittal et al., SIGCOMM 2015, Algorithm 1), the fork's
//!   `UpdateRateTimely`.
//!
//! Where the paper and the fork disagree, the reading is a parameter, both readings are
//! named constructors of the parameter struct, and the struct's doc says which is the default
//! and why. Every parameter struct has a `check` that names the field, the value and what is
//! allowed, for the config layer to turn into its own errors.

pub mod dcqcn;
pub mod hpcc;
pub mod timely;

pub use dcqcn::{AlphaUpdate, Dcqcn, DcqcnParams, DecreaseOrder, HyperIncrease};
pub use hpcc::{Hpcc, HpccParams};
pub use timely::{Timely, TimelyParams, TimelyUpdate};

use incastsim_core::BitsPerSec;

/// A rate in bit/s (f64, the controllers' working unit) as the sender's [`BitsPerSec`]: rounded,
/// and at least 1 bit/s (the sender takes 0 as 1 anyway).
#[inline]
fn to_bps(rate: f64) -> BitsPerSec {
    BitsPerSec((rate.round() as u64).max(1))
}

/// `Err` naming `field` (as `section.field`), its value and what is allowed, unless `ok`.
fn require(
    ok: bool,
    field: &str,
    value: impl std::fmt::Display,
    allowed: &str,
) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{field} = {value}: {allowed}"))
    }
}
