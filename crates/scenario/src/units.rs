//! Human units in configs ("25us", "1Gbps", "32KB", "100 packets"): `incastsim_config::units`.

pub use incastsim_config::units::*;
