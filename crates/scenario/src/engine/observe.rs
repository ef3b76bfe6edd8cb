//! Every observer of a run under one owner, [`Observers`]: the incast diagnostics (always on:
//! an O(1) count per admission), the `time_series` sampler (its own events), the pcap capture
//! and the probes. The network and the engine's glue call one place for what they observe;
//! where nothing watches, a packet path pays one predictable flag test (`watched`) per arrival
//! and per host send, and the engine's glue one per hook site (`probes.on`).

use super::capture::Capture;
use super::diagnostics::Diagnostics;
use super::sampler::Sampler;
use crate::probe::{PortView, ProbeSet};
use incastsim_core::{HostId, Packet, Time};
use incastsim_switch::DropReason;

/// The run's observers (owned by the simulation, handed to the network's packet paths).
pub struct Observers {
    /// Drop runs, loss events and the book's model inputs (`crate::engine::diagnostics`).
    pub diag: Diagnostics,
    /// The `time_series` sampler (idle without `time_series:`).
    pub sampler: Sampler,
    /// Packets copied for pcap traces (off unless the config has `pcap:`).
    pub capture: Capture,
    /// The run's probes (`crate::probe`). Off (one flag test per hook site) without.
    pub(crate) probes: ProbeSet,
    /// The capture or a probe is on: the packet paths take their watched (out-of-line) copies.
    pub(crate) watched: bool,
}

impl Observers {
    /// The observers of a run: its diagnostics, sampler and capture; probes are added after.
    pub fn new(diag: Diagnostics, sampler: Sampler, capture: Capture) -> Observers {
        Observers {
            watched: capture.on,
            diag,
            sampler,
            capture,
            probes: ProbeSet::default(),
        }
    }

    /// Adds a probe (and watches the packet paths from now on).
    pub(crate) fn add_probe(&mut self, probe: Box<dyn crate::probe::Probe>) {
        self.probes.push(probe);
        self.watched = true;
    }

    /// A host hands `packet` to its NIC (watched runs only).
    #[inline]
    pub(crate) fn on_host_send(&mut self, now: Time, host: HostId, packet: &Packet) {
        if self.capture.on {
            self.capture.on_host_send(now, host, packet);
        }
    }

    /// `packet` reached the far end of `port`'s link (watched runs only); `at_host`: the far
    /// end is its host.
    #[inline]
    pub(crate) fn on_arrival(&mut self, now: Time, port: u32, packet: &Packet, at_host: bool) {
        if self.capture.on {
            self.capture.on_arrival(now, port, packet, at_host);
        }
    }

    /// `port`'s link lost `packet`.
    pub(crate) fn on_link_loss(&mut self, now: Time, port: &PortView, packet: &Packet) {
        self.probes
            .each(|pr| pr.on_drop(now, port, packet, DropReason::LinkLoss));
    }

    /// `packet` reached its destination host.
    pub(crate) fn on_deliver(&mut self, now: Time, packet: &Packet) {
        self.probes
            .each(|pr| pr.on_deliver(now, packet.dst, packet));
    }

    /// `port` refused `packet` at admission, for `reason`.
    pub(crate) fn on_admission_drop(
        &mut self,
        now: Time,
        port: &PortView,
        packet: &Packet,
        reason: DropReason,
    ) {
        self.probes.each(|pr| pr.on_drop(now, port, packet, reason));
    }

    /// `port` admitted `packet` (as stored: marked if it was), `marked` if the admission set
    /// CE; `tx_start`: when its transmission starts, if the port fixed it at admission.
    pub(crate) fn on_admitted(
        &mut self,
        now: Time,
        port: &PortView,
        packet: &Packet,
        marked: bool,
        tx_start: Option<Time>,
    ) {
        if marked {
            self.probes.each(|pr| pr.on_mark(now, port, packet));
        }
        self.probes.each(|pr| pr.on_enqueue(now, port, packet));
        if let Some(start) = tx_start {
            self.probes
                .each(|pr| pr.on_dequeue(now, port, packet, now, start));
        }
    }

    /// A strict-priority port started sending `packet`, admitted at `admitted`.
    pub(crate) fn on_dequeue(
        &mut self,
        now: Time,
        port: &PortView,
        packet: &Packet,
        admitted: Time,
        tx_start: Time,
    ) {
        self.probes
            .each(|pr| pr.on_dequeue(now, port, packet, admitted, tx_start));
    }
}
