//! The crate's integration tests, one module per file, in one test binary (one link of
//! the workspace instead of one per file: issue 39, item 1).

mod architecture;
mod guide;
mod library;
mod pcap;
