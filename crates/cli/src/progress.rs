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
        let secs = elapsed.as_secs_f64();
        let f = p.fraction_done;
        let eta = if f > 0.0 {
            format!("{:.0} s", secs * (1.0 - f) / f)
        } else {
            "unknown".into()
        };
        let simulated = p.sim_time.since(incastsim::core::Time::ZERO).as_secs_f64();
        let rate = p.events as f64 / secs / 1e6;
        let text = match p.draining_flows_left {
            // Past the arrivals the share by time is 100 % and says nothing: count the flows
            // the run still waits for instead (their end is not predictable).
            Some(left) => format!(
                "run: simulated {simulated:.6} s, arrivals over, waiting for {left} flow{} to finish, {rate:.2} M events/s",
                if left == 1 { "" } else { "s" }
            ),
            None => format!(
                "run: simulated {simulated:.6} s ({:.1} % done), {rate:.2} M events/s, ETA {eta}",
                100.0 * f
            ),
        };
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
