//! Bulk transfer: every workload flow's application always has data, from its start (after its
//! start jitter) until the workload's fixed duration ends.

use crate::engine::event::{Event, Events};
use incastsim_core::{Duration, SimRng, Time};

/// The bulk workload: flows start after their jitter and always have data until `duration`.
pub struct Bulk {
    /// How long the flows send (the run ends then).
    pub duration: Duration,
    /// Each flow starts after U[0, start_jitter] (phase effects need a little randomness).
    pub start_jitter: Duration,
    /// Per sender: its start jitter's random stream.
    pub jitter_rngs: Vec<SimRng>,
}

impl Bulk {
    /// Schedules every sender's start (after its jitter), then the end of the run.
    pub fn start(&mut self, now: Time, events: &mut Events) {
        for (f, rng) in self.jitter_rngs.iter_mut().enumerate() {
            let at = now + rng.duration_up_to(self.start_jitter);
            events.schedule(at, Event::ServerStart { flow: f as u32 }.into());
        }
        events.schedule(now + self.duration, Event::End.into());
    }
}
