//! What a reproduction report says about a claim: whether its expectation holds with and without
//! randomness (over the 95 % interval or for the estimate only), the verdict and its reason, and
//! how numbers and estimates are written.

use super::{Claim, Estimate, Expect};

/// Whether an expectation holds: for the whole interval, for the estimate only, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Holds {
    Significant,
    PointOnly,
    No,
}

pub(super) fn holds(e: &Estimate, x: Expect) -> Holds {
    let ok = |v: f64| match x {
        Expect::Above(t) => v > t,
        Expect::Below(t) => v < t,
        Expect::Between([lo, hi]) => v >= lo && v <= hi,
    };
    if !e.value.is_finite() || !ok(e.value) {
        return Holds::No;
    }
    // The interval's side that matters must satisfy the expectation too (an unbounded side
    // fails it).
    let lo_ok = |lo: f64| lo.is_finite() && ok(lo);
    match (x, e.ci) {
        (Expect::Above(_), Some((lo, _))) if lo_ok(lo) => Holds::Significant,
        (Expect::Below(_), Some((_, hi))) if lo_ok(hi) => Holds::Significant,
        (Expect::Between(_), Some((lo, hi))) if lo_ok(lo) && lo_ok(hi) => Holds::Significant,
        _ => Holds::PointOnly,
    }
}

pub(super) fn expect_text(x: Expect) -> String {
    match x {
        Expect::Above(t) => format!("> {}", num(t)),
        Expect::Below(t) => format!("< {}", num(t)),
        Expect::Between([a, b]) => format!("in [{}, {}]", num(a), num(b)),
    }
}

/// A number with three significant digits (more for numbers near 1, fairness indices).
pub(super) fn num(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "n/a".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if (0.9..1.1).contains(&a) {
        format!("{x:.3}")
    } else if a >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

pub(super) fn estimate_text(e: &Estimate, ratio: bool) -> String {
    let x = if ratio { "×" } else { "" };
    let ci = match e.ci {
        Some((lo, hi)) => format!("[{x}{}, {x}{}]", num(lo), num(hi)),
        None => "[unbounded]".into(),
    };
    let cens = |runs: usize, c: usize| {
        if c > 0 {
            format!(", {c} of {} runs censored", runs + c)
        } else {
            String::new()
        }
    };
    match e.denominator {
        None => format!(
            "{x}{} {ci} (n = {}{})",
            num(e.value),
            e.runs,
            cens(e.runs, e.censored)
        ),
        Some((runs, c)) => format!(
            "{x}{} {ci} (n = {}{} / {}{})",
            num(e.value),
            e.runs,
            cens(e.runs, e.censored),
            runs,
            cens(runs, c)
        ),
    }
}

/// The verdict of one arm alone (the same rules applied to its estimate): the table's verdict
/// without randomness.
pub(super) fn arm_verdict(claim: &Claim, e: &Estimate) -> String {
    verdict(claim, e, e).0
}

/// The verdict and why, from both arms.
pub(super) fn verdict(claim: &Claim, without: &Estimate, with: &Estimate) -> (String, String) {
    let Some(expect) = claim.expect else {
        return (
            "measurement".into(),
            "A measurement for the findings below, not a claim of the paper.".into(),
        );
    };
    let (h0, h1) = (holds(without, expect), holds(with, expect));
    let want = expect_text(expect);
    let magnitude = match (claim.paper_value, claim.tolerance, with.ci) {
        (Some(p), Some(tol), Some((lo, hi))) => {
            let (lo, hi) = (lo.min(with.value), hi.max(with.value));
            Some(p >= lo - tol * p.abs() && p <= hi + tol * p.abs())
        }
        (Some(p), Some(tol), None) => Some((with.value - p).abs() <= tol * p.abs()),
        _ => None,
    };
    let without_note = match h0 {
        Holds::Significant => "",
        Holds::PointOnly => " Without randomness only the estimate meets it.",
        Holds::No => " Without randomness it does not hold.",
    };
    match h1 {
        Holds::Significant if with.censored_fraction() > 0.25 => (
            "partly".into(),
            format!(
                "With randomness the expectation ({want}) holds over the 95 % interval of the completed runs, but {:.0} % of the runs hit the time cap (censored): the statistic is biased towards the runs that finished.{without_note}",
                100.0 * with.censored_fraction()
            ),
        ),
        Holds::Significant if magnitude == Some(false) => (
            "partly".into(),
            format!(
                "With randomness the expectation ({want}) holds over the whole 95 % interval, but the size differs from the paper's {} by more than {:.0} %.{without_note}",
                claim.paper,
                100.0 * claim.tolerance.unwrap_or(0.0)
            ),
        ),
        Holds::Significant => (
            "reproduced".into(),
            format!(
                "With randomness the expectation ({want}) holds over the whole 95 % interval.{without_note}"
            ),
        ),
        Holds::PointOnly => (
            "partly".into(),
            format!(
                "With randomness the estimate meets the expectation ({want}) but the 95 % interval does not: not significant at this sample size.{without_note}"
            ),
        ),
        Holds::No if h0 != Holds::No => (
            "not reproduced".into(),
            format!(
                "The expectation ({want}) holds only without randomness ({}); with 1 µs of randomness it does not: the effect rests on exact timing.",
                if h0 == Holds::Significant {
                    "significant"
                } else {
                    "estimate only"
                }
            ),
        ),
        Holds::No => (
            "not reproduced".into(),
            format!("The expectation ({want}) holds neither without nor with randomness."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::{Claim, Estimate, Expect};

    fn est(value: f64, lo: f64, hi: f64) -> Estimate {
        Estimate {
            value,
            ci: Some((lo, hi)),
            runs: 20,
            censored: 0,
            denominator: None,
        }
    }

    #[test]
    fn expectations_over_the_interval() {
        assert_eq!(
            holds(&est(2.0, 1.5, 2.5), Expect::Above(1.0)),
            Holds::Significant
        );
        assert_eq!(
            holds(&est(1.2, 0.9, 1.5), Expect::Above(1.0)),
            Holds::PointOnly
        );
        assert_eq!(holds(&est(0.9, 0.8, 1.1), Expect::Above(1.0)), Holds::No);
        assert_eq!(
            holds(&est(0.5, 0.4, 0.6), Expect::Below(1.0)),
            Holds::Significant
        );
        assert_eq!(
            holds(&est(0.97, 0.96, 0.99), Expect::Between([0.95, 1.0])),
            Holds::Significant
        );
        let unbounded = Estimate {
            ci: None,
            ..est(3.0, 0.0, 0.0)
        };
        assert_eq!(holds(&unbounded, Expect::Above(1.0)), Holds::PointOnly);
    }

    #[test]
    fn verdicts() {
        let claim: Claim = serde_saphyr::from_str(
            "{id: x, claim: c, where: w, sweep: s, metric: m, a: {senders: 4}, b: {senders: 8}, paper: 'x2', paper_value: 2.0, tolerance: 0.25, expect: {above: 1.0}}",
        )
        .unwrap();
        let (v, _) = verdict(&claim, &est(2.1, 1.8, 2.4), &est(2.0, 1.7, 2.3));
        assert_eq!(v, "reproduced");
        let (v, why) = verdict(&claim, &est(2.1, 1.8, 2.4), &est(0.95, 0.9, 1.0));
        assert_eq!(v, "not reproduced");
        assert!(why.contains("only without randomness"), "{why}");
        let (v, why) = verdict(&claim, &est(2.1, 1.8, 2.4), &est(1.2, 1.1, 1.3));
        assert_eq!(v, "partly");
        assert!(why.contains("size differs"), "{why}");
        let (v, _) = verdict(&claim, &est(0.9, 0.8, 1.0), &est(1.1, 0.9, 1.3));
        assert_eq!(v, "partly");
        // Each arm alone: without randomness significant and near the paper's ×2, with it not.
        assert_eq!(arm_verdict(&claim, &est(2.1, 1.8, 2.4)), "reproduced");
        assert_eq!(arm_verdict(&claim, &est(0.95, 0.9, 1.0)), "not reproduced");
        assert_eq!(arm_verdict(&claim, &est(1.1, 0.9, 1.3)), "partly");
    }
}
