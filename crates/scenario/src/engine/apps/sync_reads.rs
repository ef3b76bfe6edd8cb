//! Synchronized reads (the incast workload): the client requests a block from every server; each
//! server answers after its start jitter; the next block starts when every part has arrived.
//! A request lost to an overfull buffer or link loss is asked for again after a timeout.

use crate::engine::transport::FlowEnds;
use crate::plan::SyncReadsPlan;
use incastsim_core::{Duration, FlowId, HostId, Packet, PacketKind, SimRng, Time};

use crate::engine::event::{Event, Events};

/// The synchronized-reads application (the incast pattern): block k + 1 is requested only when
/// every server's part of block k has arrived.
pub struct SyncReads {
    /// The host that requests the blocks.
    pub client: HostId,
    /// Bytes flow f sends per block.
    pub per_flow_bytes: Vec<u64>,
    /// Blocks to read.
    pub blocks_total: u32,
    /// Current block, 0-based.
    pub block: u32,
    block_start: Time,
    flows_pending: u32,
    /// Cumulative bytes flow f must have delivered for the current block to be complete.
    target: Vec<u64>,
    delivered: Vec<u64>,
    done: Vec<bool>,
    /// Next block each server will serve (deduplicates retried requests).
    next_to_serve: Vec<u32>,
    jitter_rngs: Vec<SimRng>,
    start_jitter: Duration,
    request_bytes: u32,
    request_timeout: Duration,
    /// When the first block is requested (`workload.warmup`).
    pub warmup: Duration,
    /// Completion time of every finished block (request to last byte).
    pub block_times: Vec<Duration>,
}

/// What a delivery meant for the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The flow's part of the block is not complete yet.
    Partial,
    /// The flow delivered its part; other parts are pending.
    FlowDone,
    /// The last part of a block arrived and another block follows.
    BlockDone,
    /// The last part of the last block arrived.
    AllBlocksDone,
}

impl SyncReads {
    /// The application the plan describes, before its first request.
    pub fn new(p: SyncReadsPlan) -> SyncReads {
        let n = p.per_flow_bytes.len();
        SyncReads {
            client: p.client,
            target: vec![0; n],
            delivered: vec![0; n],
            done: vec![false; n],
            next_to_serve: vec![0; n],
            per_flow_bytes: p.per_flow_bytes,
            blocks_total: p.blocks,
            block: 0,
            block_start: Time::ZERO,
            flows_pending: 0,
            jitter_rngs: p.jitter_rngs,
            start_jitter: p.start_jitter,
            request_bytes: p.request_bytes,
            request_timeout: p.request_timeout,
            warmup: p.warmup,
            // Grown as blocks complete: `blocks` may be far more than a run reaches.
            block_times: Vec::with_capacity((p.blocks as usize).min(1 << 16)),
        }
    }

    /// The client starts the current block: a request to every server goes into `outbox`.
    /// Returns when to check for servers that have not answered (one check per block, not one
    /// timer per server, keeps the event heap small); schedule it after sending the requests.
    pub fn start_block(
        &mut self,
        now: Time,
        flows: &[FlowEnds],
        header_bytes: u16,
        outbox: &mut Vec<(HostId, Packet)>,
    ) -> (Time, Event) {
        self.block_start = now;
        self.flows_pending = self.per_flow_bytes.len() as u32;
        for f in 0..self.per_flow_bytes.len() {
            self.target[f] += self.per_flow_bytes[f];
            self.done[f] = false;
        }
        for (f, &ends) in flows.iter().enumerate().take(self.per_flow_bytes.len()) {
            outbox.push(self.request(now, f, ends, header_bytes));
        }
        self.next_check(now, self.block)
    }

    fn next_check(&self, now: Time, block: u32) -> (Time, Event) {
        (now + self.request_timeout, Event::RequestCheck { block })
    }

    /// The request for the current block from the server of flow f, as sent by the client.
    fn request(&self, now: Time, f: usize, ends: FlowEnds, header_bytes: u16) -> (HostId, Packet) {
        let header = (header_bytes as u32).min(self.request_bytes);
        let FlowEnds {
            src: server,
            dst: client,
        } = ends;
        debug_assert_eq!(client, self.client);
        let mut packet = Packet::new(
            PacketKind::Request,
            f as FlowId,
            server,
            self.request_bytes - header,
            header as u16,
        );
        packet.seq = self.block as u64;
        packet.timestamp_ps = now.as_ps();
        (client, packet)
    }

    /// A request is only lost to link loss (or an overfull buffer): re-request from every server
    /// from which no byte of the current block has arrived, and check again later (the returned
    /// time). Late duplicates of the previous block do not count as an answer.
    /// `highest_received(f)`: one past the highest byte flow f's receiver holds.
    pub fn on_request_check(
        &mut self,
        now: Time,
        block: u32,
        highest_received: impl Fn(usize) -> u64,
        flows: &[FlowEnds],
        header_bytes: u16,
        outbox: &mut Vec<(HostId, Packet)>,
    ) -> Option<(Time, Event)> {
        if block != self.block || self.block >= self.blocks_total {
            return None; // that block is complete
        }
        for (f, &ends) in flows.iter().enumerate().take(self.per_flow_bytes.len()) {
            let block_start = self.target[f] - self.per_flow_bytes[f];
            if !self.done[f] && highest_received(f) <= block_start {
                outbox.push(self.request(now, f, ends, header_bytes));
            }
        }
        Some(self.next_check(now, block))
    }

    /// Server f receives a request for `block`; it answers after its start jitter.
    pub fn on_request(&mut self, now: Time, f: usize, block: u32, events: &mut Events) {
        if block != self.next_to_serve[f] {
            return; // a duplicate of a request already being served
        }
        self.next_to_serve[f] += 1;
        let at = now + self.jitter_rngs[f].duration_up_to(self.start_jitter);
        events.schedule(at, Event::ServerStart { flow: f as u32 }.into());
    }

    /// Flow f delivered `bytes` more to the client.
    pub fn on_delivery(&mut self, now: Time, f: usize, bytes: u64) -> Delivery {
        self.delivered[f] += bytes;
        if self.done[f] || self.delivered[f] < self.target[f] {
            return Delivery::Partial;
        }
        debug_assert_eq!(
            self.delivered[f], self.target[f],
            "a server sent more than it was asked for"
        );
        self.done[f] = true;
        self.flows_pending -= 1;
        if self.flows_pending > 0 {
            return Delivery::FlowDone;
        }
        self.block_times.push(now.since(self.block_start));
        self.block += 1;
        if self.block < self.blocks_total {
            Delivery::BlockDone
        } else {
            Delivery::AllBlocksDone
        }
    }

    /// Blocks requested so far (the current one counts while it is incomplete).
    pub fn blocks_requested(&self) -> u64 {
        self.block_times.len() as u64 + u64::from(self.block < self.blocks_total)
    }
}
