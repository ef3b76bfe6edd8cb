//! Collective communication as traffic, before it meets a network: a [`Schedule`] of transfers
//! between ranks and local delays (compute time) that wait for each other, built by the
//! collective algorithms ([`algorithms`]) or read from a trace ([`goal`]).
//!
//! This crate is pure: it knows ranks, bytes and durations, not hosts, ports or packets. The
//! scenario crate maps ranks to hosts, turns each transfer into a flow and each wait into the
//! engine's flow dependencies (a flow starts when the flows and delays it waits for are done;
//! news of a finished flow travels from its receiver to the next sender's host as a control
//! message with a latency).

pub mod algorithms;
pub mod goal;
pub mod schedule;

pub use algorithms::{Algorithm, AlgorithmError, CollectiveSpec};
pub use schedule::{NodeId, Op, Schedule, ScheduleError};
