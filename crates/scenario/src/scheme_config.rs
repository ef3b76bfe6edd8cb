//! The `scheme:` section: the schema is `incastsim_config::scheme` (re-exported here); the
//! sender and receiver state is built by [`crate::scheme_build`].

pub use crate::metrics::fast_retransmit_sender_bound;
pub use crate::scheme_build::{ReceiverFactory, receiver_factory, sender_scheme};
pub use incastsim_config::scheme::*;
