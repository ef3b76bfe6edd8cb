//! TCP PLATO (Shukla et al., "seed 004"): packet labelling to alleviate timeouts.
//!
//! The sender keeps one labelled segment in flight as a heartbeat: the first segment is labelled;
//! when its labelled ACK comes back the sender labels the next new segment (TRANSIENT → LABEL),
//! or, if it cannot send new data, waits for fast recovery (WAIT) or, outside recovery, probes
//! with up to three labelled dummy packets (ARRESTED) and fires the RTO at once if the third dummy
//! ACK still finds it ARRESTED (the ACK clock is dead). All retransmissions are labelled. The
//! receiver answers a labelled segment with a labelled ACK and a dummy with a labelled dummy ACK.
//! The switch side is the `threshold_admit` queue at Th_P (labelled packets pass above it).
//!
//! Reading (`scheme.retransmission_label`): the paper gives retransmissions "a similar label"
//! that lets the switch admit them (§III, §IV-A: the switch admits "the labelled segment/ack,
//! and retransmitted segment"), and lists them apart from the heartbeat. `separate` (default):
//! a retransmission carries the switch's admission bit, but it is not a heartbeat, so its ACK
//! is not labelled and does not move the sender's state machine. `heartbeat`: a retransmission
//! carries the heartbeat label itself and its ACK comes back labelled (this module's behaviour
//! before issue 16); with it and no randomness PLATO holds ~97 % of the link to 96 senders, with
//! 1 µs of switch jitter only to 32 (docs/reproductions/plato.md).

use incastsim_core::packet::flags;
use incastsim_tcp::Segment;
use incastsim_tcp::policy::{
    AckInfo, ReceiverPolicy, SenderAction, SenderPolicy, SenderView, hooks,
};

/// Dummies sent per ARRESTED episode before the RTO is fired.
pub const PLATO_DUMMIES: u8 = 3;

/// PLATO's sender state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlatoState {
    /// Label the next new segment.
    Label,
    /// A labelled segment is in flight.
    DontLabel,
    /// A labelled ACK arrived; decided once the ACK has been processed.
    Transient,
    /// In fast recovery with no new data sendable: the next new segment is labelled.
    Wait,
    /// Probing with dummies; `dummy_acks` dummy ACKs received so far in this episode.
    Arrested {
        /// Dummy ACKs received so far in this episode.
        dummy_acks: u8,
    },
}

/// PLATO's sender: labels one segment per window so the switch admits it, and probes with dummies
/// when the ACK clock dies.
#[derive(Clone, Copy, Debug)]
pub struct PlatoSender {
    /// Where the state machine is.
    pub state: PlatoState,
}

impl Default for PlatoSender {
    fn default() -> Self {
        // "After the 3-way handshake" the connection is in LABEL.
        PlatoSender {
            state: PlatoState::Label,
        }
    }
}

fn probe() -> SenderAction {
    SenderAction::SendDummy {
        flags: flags::LABEL,
    }
}

impl SenderPolicy for PlatoSender {
    fn hooks(&self) -> u16 {
        hooks::FLAGS | hooks::BEFORE_ACK | hooks::ON_ACK | hooks::ON_TIMEOUT
    }
    fn segment_flags(&mut self, _view: &SenderView, segment: &Segment) -> u8 {
        if segment.flags & flags::RETX != 0 {
            // "All the retransmitted segments carry the label."
            return flags::LABEL;
        }
        match self.state {
            PlatoState::DontLabel => 0,
            // LABEL, TRANSIENT with new data sendable, WAIT or ARRESTED when new data can go:
            // label this segment → DON'T LABEL.
            _ => {
                self.state = PlatoState::DontLabel;
                flags::LABEL
            }
        }
    }

    fn before_ack(&mut self, _view: &SenderView, ack: &AckInfo) {
        if ack.flags & flags::LABEL != 0 && self.state == PlatoState::DontLabel {
            self.state = PlatoState::Transient;
        }
    }

    fn on_ack(&mut self, view: &SenderView, ack: &AckInfo) -> SenderAction {
        if view.snd_una >= view.app_bytes_written {
            // Everything sent is acknowledged and there is no more data: no dummies; the next
            // data (a new response) starts labelled, as after the handshake (inferred).
            self.state = PlatoState::Label;
            return SenderAction::None;
        }
        if ack.flags & flags::DUMMY != 0 {
            let PlatoState::Arrested { dummy_acks } = self.state else {
                return SenderAction::None; // a late dummy ACK after leaving ARRESTED
            };
            let n = dummy_acks + 1;
            if n >= PLATO_DUMMIES {
                // The third dummy ACK and still ARRESTED: the ACK clock is dead. After the RTO
                // the connection labels again (not stated; inferred).
                self.state = PlatoState::Label;
                return SenderAction::FireRto;
            }
            self.state = PlatoState::Arrested { dummy_acks: n };
            return probe();
        }
        match self.state {
            // No new segment took the label while the ACK was processed.
            PlatoState::Transient if view.can_send_new => {
                self.state = PlatoState::Label;
                SenderAction::None
            }
            PlatoState::Transient if view.in_recovery => {
                self.state = PlatoState::Wait;
                SenderAction::None
            }
            PlatoState::Transient => {
                self.state = PlatoState::Arrested { dummy_acks: 0 };
                probe()
            }
            // TCP left fast recovery and the heartbeat is still absorbed.
            PlatoState::Wait if !view.in_recovery => {
                self.state = PlatoState::Arrested { dummy_acks: 0 };
                probe()
            }
            _ => SenderAction::None,
        }
    }

    fn on_timeout(&mut self, _view: &SenderView) -> SenderAction {
        self.state = PlatoState::Label;
        SenderAction::None
    }
}

/// How a retransmission is labelled (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RetxLabel {
    /// Admitted by the switch, but not a heartbeat: its ACK is not labelled.
    #[default]
    Separate,
    /// The heartbeat label: its ACK is labelled.
    Heartbeat,
}

/// PLATO's receiver: labelled ACKs for labelled segments (and dummies); with
/// [`RetxLabel::Separate`], not for retransmissions.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlatoReceiver {
    /// Whether retransmissions get labelled ACKs.
    pub retransmission_label: RetxLabel,
}

impl ReceiverPolicy for PlatoReceiver {
    fn ack_flags(&mut self, segment_flags: u8) -> u8 {
        if self.retransmission_label == RetxLabel::Separate
            && segment_flags & flags::RETX != 0
            && segment_flags & flags::DUMMY == 0
        {
            return 0;
        }
        segment_flags & flags::LABEL
    }
}
