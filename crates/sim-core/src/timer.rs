//! Lazily cancelled timers.
//!
//! An RTO timer is re-armed on almost every ACK. Removing heap entries would cost O(log n) each and
//! the heap would fill with timers; instead each timer keeps its current deadline and the generation
//! of the one event it has in the queue. Re-arming later only moves the deadline; when the queued
//! event pops early it is re-queued at the deadline. A timer has at most one live event at a time,
//! and stale events (old generations) fall through when popped.

use crate::time::Time;

/// A timer that is cheap to re-arm: moving its deadline later schedules no event, the pending
/// one reschedules itself when it pops ([`TimerFire`]), so an RTO re-armed on every ACK costs no
/// event per ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyTimer {
    deadline: Option<Time>,
    /// Time and generation of this timer's live event in the queue, if any.
    queued: Option<(Time, u32)>,
    generation: u32,
}

/// What to do when a timer event pops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerFire {
    /// The deadline is now: run the timer's action.
    Fire,
    /// The deadline moved later: schedule a new event at this time with this generation.
    Reschedule(Time, u32),
    /// A stale or cancelled event: ignore it.
    Stale,
}

impl LazyTimer {
    /// When the timer fires, if armed.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }
    /// Whether a deadline is set.
    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Sets the deadline. Returns `Some((time, generation))` when the caller must schedule a new
    /// event (no live event, or the live one is later than the new deadline).
    #[must_use]
    pub fn arm(&mut self, deadline: Time) -> Option<(Time, u32)> {
        self.deadline = Some(deadline);
        match self.queued {
            Some((t, _)) if t <= deadline => None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.queued = Some((deadline, self.generation));
                self.queued
            }
        }
    }

    /// Cancels the timer; its queued event, if any, will be stale.
    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    /// The generation to hand [`LazyTimer::on_event`] for an event that carries only the low
    /// `bits` bits of its generation (`low`): the live event's if they match, else one that
    /// does not.
    pub fn live_generation(&self, low: u32, bits: u32) -> u32 {
        let mask = if bits >= 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        };
        match self.queued {
            Some((_, g)) if g & mask == low => g,
            Some((_, g)) => !g,
            None => low,
        }
    }

    /// Called when an event of this timer pops at `now` carrying `generation`.
    pub fn on_event(&mut self, now: Time, generation: u32) -> TimerFire {
        match self.queued {
            Some((_, g)) if g == generation => {}
            _ => return TimerFire::Stale,
        }
        self.queued = None;
        match self.deadline {
            None => TimerFire::Stale,
            Some(d) if d <= now => {
                self.deadline = None;
                TimerFire::Fire
            }
            Some(d) => {
                self.generation = self.generation.wrapping_add(1);
                self.queued = Some((d, self.generation));
                TimerFire::Reschedule(d, self.generation)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_with_the_low_bits_of_its_generation_finds_it() {
        let mut t = LazyTimer::default();
        // Each earlier deadline queues a new event: generation 21 at the end.
        for i in 0..20 {
            let _ = t.arm(Time(100 - i));
        }
        let (at, g) = t.arm(Time(9)).expect("a new event");
        assert_eq!(g, 21);
        assert_eq!(at, Time(9));
        let low = g & 0xF;
        assert_eq!(t.live_generation(low, 4), g);
        assert_ne!(t.live_generation(low ^ 1, 4), g);
        assert_eq!(
            t.on_event(Time(9), t.live_generation(low, 4)),
            TimerFire::Fire
        );
    }

    #[test]
    fn rearm_later_reuses_the_queued_event() {
        let mut t = LazyTimer::default();
        let (at, g) = t.arm(Time(100)).expect("first arm schedules");
        assert_eq!(at, Time(100));
        assert_eq!(t.arm(Time(150)), None, "later deadline needs no new event");
        assert_eq!(
            t.on_event(Time(100), g),
            TimerFire::Reschedule(Time(150), g + 1)
        );
        assert_eq!(t.on_event(Time(150), g + 1), TimerFire::Fire);
        assert!(!t.is_armed());
    }

    #[test]
    fn rearm_earlier_schedules_and_old_event_goes_stale() {
        let mut t = LazyTimer::default();
        let (_, g1) = t.arm(Time(100)).unwrap();
        let (at, g2) = t.arm(Time(50)).expect("earlier deadline needs a new event");
        assert_eq!(at, Time(50));
        assert_eq!(t.on_event(Time(50), g2), TimerFire::Fire);
        assert_eq!(t.on_event(Time(100), g1), TimerFire::Stale);
    }

    #[test]
    fn cancelled_timer_never_fires() {
        let mut t = LazyTimer::default();
        let (_, g) = t.arm(Time(10)).unwrap();
        t.cancel();
        assert_eq!(t.on_event(Time(10), g), TimerFire::Stale);
        // Arming again after the stale pop schedules afresh.
        assert!(t.arm(Time(20)).is_some());
    }
}
