//! A progress line for one long run on stderr: simulated time, share done, events/s, ETA.
//! On a terminal it is redrawn in place a few times a second once the run has lasted 2 s;
//! otherwise (logs) one plain line every 30 s, so short runs print nothing.

use incastsim::scenario::RunProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

pub struct RunLine {
    bar: Option<ProgressBar>,
    terminal: bool,
    next: Duration,
}

impl RunLine {
    pub fn new() -> RunLine {
        let terminal = std::io::stderr().is_terminal();
        RunLine {
            bar: None,
            terminal,
            next: Duration::from_secs(if terminal { 2 } else { 30 }),
        }
    }

    pub fn update(&mut self, p: &RunProgress, elapsed: Duration) {
        if elapsed < self.next {
            return;
        }
        let text = status(p, elapsed);
        if self.terminal {
            self.next = elapsed + Duration::from_millis(250);
            let bar = self.bar.get_or_insert_with(|| {
                let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
                b.set_style(ProgressStyle::with_template("{msg}").expect("valid template"));
                b
            });
            bar.set_message(text);
        } else {
            self.next = elapsed + Duration::from_secs(30);
            eprintln!("{text}");
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The line for `p` after `elapsed` of wall time: simulated time, share done, events/s and
/// ETA; past a traffic workload's arrivals ("draining"), the flows it still waits for instead
/// of a share that reads 100 % and an ETA of 0 s.
fn status(p: &RunProgress, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let f = p.fraction_done;
    let simulated = p.sim_time.since(incastsim::core::Time::ZERO).as_secs_f64();
    let rate = p.events as f64 / secs.max(1e-9) / 1e6;
    match p.draining_flows_left {
        // Past the arrivals the share by time is 100 % and says nothing: count the flows
        // the run still waits for instead (their end is not predictable).
        Some(left) => format!(
            "run: simulated {simulated:.6} s, draining: arrivals over, waiting for {left} flow{} to finish, {rate:.2} M events/s",
            if left == 1 { "" } else { "s" }
        ),
        None => {
            let eta = if f > 0.0 {
                format!("{:.0} s", secs * (1.0 - f) / f)
            } else {
                "unknown".into()
            };
            format!(
                "run: simulated {simulated:.6} s ({:.1} % done), {rate:.2} M events/s, ETA {eta}",
                100.0 * f
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use incastsim::core::Time;

    fn at(ms: u64, fraction_done: f64, draining_flows_left: Option<u64>) -> RunProgress {
        RunProgress {
            sim_time: Time::ZERO + incastsim::core::Duration::from_ms(ms),
            events: 4_000_000,
            fraction_done,
            draining_flows_left,
        }
    }

    #[test]
    fn a_run_shows_its_share_and_eta() {
        assert_eq!(
            status(&at(250, 0.25, None), Duration::from_secs(2)),
            "run: simulated 0.250000 s (25.0 % done), 2.00 M events/s, ETA 6 s"
        );
    }

    /// Issue 39, item 2: a traffic run draining past its `duration` is not "100 %, ETA 0 s".
    #[test]
    fn a_draining_run_counts_the_flows_left() {
        let line = status(&at(1200, 1.0, Some(17)), Duration::from_secs(4));
        assert_eq!(
            line,
            "run: simulated 1.200000 s, draining: arrivals over, waiting for 17 flows to finish, 1.00 M events/s"
        );
        assert!(!line.contains("100") && !line.contains("ETA"));
        assert!(status(&at(1300, 1.0, Some(1)), Duration::from_secs(4)).contains("for 1 flow to"));
    }
}
