//! The crate's integration tests, one module per file, in one test binary (one link of
//! the workspace instead of one per file: issue 39, item 1).

mod bad_input;
mod collectives;
mod common;
mod connections;
mod dctcp_analysis;
mod determinism;
mod diagnostics;
mod diagnostics_memory;
mod features;
mod fig4;
mod invariants;
mod link_loss;
mod packet_spray;
mod padhye;
mod pfc;
mod probes;
mod queue_extension;
mod rdma_cc;
mod reactive_traffic;
mod roce;
mod run_options;
mod s1_shape;
mod scheduling_discipline;
mod schemes;
mod shared_buffer;
mod stepping;
mod tie_order;
mod traffic;
mod traffic_extension;
