//! End-to-end tests of `incastsim model`.

use std::process::{Command, Output};

fn model(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incastsim"))
        .arg("model")
        .args(args)
        .output()
        .unwrap()
}

/// stdout as CSV rows of fields, checking the run succeeded.
fn csv(o: &Output) -> Vec<Vec<String>> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn column<'a>(rows: &'a [Vec<String>], name: &str) -> Vec<&'a str> {
    let i = rows[0]
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}: {:?}", rows[0]));
    rows[1..].iter().map(|r| r[i].as_str()).collect()
}

fn f(s: &str) -> f64 {
    s.parse().unwrap()
}

#[test]
fn help_on_every_model_command() {
    for sub in [
        vec!["--help"],
        vec!["rto-max", "--help"],
        vec!["nmax", "--help"],
        vec!["book", "--help"],
    ] {
        let o = model(&sub);
        assert!(o.status.success(), "{sub:?}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage"));
    }
}

#[test]
fn rto_max_prints_eq_6_and_7() {
    let rows = csv(&model(&[
        "rto-max",
        "--rto-min",
        "10ms",
        "--delta",
        "4ms",
        "--senders",
        "4,16,256",
        "--exceeds",
        "11ms",
    ]));
    assert_eq!(rows.len(), 4);
    assert_eq!(column(&rows, "senders"), ["4", "16", "256"]);
    // Eq. 6: 10 + 4·3/10 = 11.2 ms; 10 + 30/17 ms; 10 + 510/257 ms.
    let e: Vec<f64> = column(&rows, "e_max_rto_s").into_iter().map(f).collect();
    assert!((e[0] - 11.2e-3).abs() < 1e-15);
    assert!((e[1] - (10.0 + 30.0 / 17.0) * 1e-3).abs() < 1e-15);
    assert!((e[2] - (10.0 + 510.0 / 257.0) * 1e-3).abs() < 1e-15);
    // Eq. 7 for N = 4: 2Δ²/30 − Δ²/25 with Δ² = 16e-6 s².
    let v = f(column(&rows, "var_max_rto_s2")[0]);
    assert!((v - (32e-6 / 30.0 - 16e-6 / 25.0)).abs() < 1e-18);
    // Eq. 4 for N = 4, k = 11 ms: 1 − (3/4)⁴.
    let p = f(column(&rows, "p_max_rto_greater_than_11ms")[0]);
    assert!((p - (1.0 - 81.0 / 256.0)).abs() < 1e-12);
}

#[test]
fn nmax_prints_eq_3() {
    let rows = csv(&model(&[
        "nmax",
        "--buffer",
        "32KB",
        "--rate",
        "1Gbps",
        "--delay",
        "25us",
        "--packet",
        "1500B,750B",
    ]));
    // (32,000 + 2·1.25e8·25e-6)/(5L) = 38,250/7,500 = 5.1 and 38,250/3,750 = 10.2.
    assert_eq!(column(&rows, "pipe_bytes"), ["6250", "6250"]);
    assert_eq!(column(&rows, "bound"), ["5.1", "10.2"]);
    assert_eq!(column(&rows, "n_max"), ["5", "10"]);
}

#[test]
fn book_prints_the_three_models() {
    // n = 8 as in the library's hand-worked case; n = 2 uses per-n values and n ≤ n*.
    let rows = csv(&model(&[
        "book",
        "--senders",
        "8,2",
        "--pc",
        "0.01,0.02",
        "--pr",
        "0.05,0.03",
        "--delta",
        "0.5,0.1",
        "--rtt",
        "100us",
        "--t0",
        "200ms",
        "--sru",
        "256KB",
        "--segment",
        "1KB",
    ]));
    assert_eq!(rows.len(), 3);
    assert_eq!(column(&rows, "block_packets"), ["2048", "512"]);
    assert_eq!(column(&rows, "w_packets"), ["7", "10"]);
    let rel = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b;
    let td: Vec<f64> = column(&rows, "td_only_pps").into_iter().map(f).collect();
    let full: Vec<f64> = column(&rows, "full_pps").into_iter().map(f).collect();
    let split: Vec<f64> = column(&rows, "split_pps").into_iter().map(f).collect();
    // Reference values from crates/models/tests/reference_values.py.
    assert!(rel(td[0], 433206.5722921098) && rel(td[1], 138943.45159815636));
    assert!(rel(full[0], 847.3635436998773) && rel(full[1], 610.076674523878));
    assert!(rel(split[0], 4263.692600564639) && rel(split[1], 1987.003269333498));
    let mbps = f(column(&rows, "split_mbps")[0]);
    assert!(rel(mbps, 4263.692600564639 * 8000.0 / 1e6));
}

#[test]
fn bad_model_arguments_are_refused_with_a_clear_message() {
    let cases: [(&[&str], &[&str]); 5] = [
        (&["rto-max", "--delta", "4xs"], &["--delta", "4xs", "ms"]),
        (
            &["rto-max", "--rto-min", "10ms", "--delta", "30ms"],
            &["--delta", "30ms", "at most"],
        ),
        (&["nmax", "--packet", "0B"], &["--packet", "0B", "> 0"]),
        (
            &[
                "book",
                "--senders",
                "8",
                "--pc",
                "0",
                "--pr",
                "0.05",
                "--rtt",
                "100us",
                "--block-packets",
                "10",
            ],
            &["--pc", "\"0\"", "(0, 1]"],
        ),
        (
            &[
                "book",
                "--senders",
                "8,16",
                "--pc",
                "0.01,0.02,0.03",
                "--pr",
                "0.05",
                "--rtt",
                "100us",
                "--block-packets",
                "10",
            ],
            &["--pc", "3 values", "one per sender count"],
        ),
    ];
    for (args, expected) in cases {
        let o = model(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        for e in expected {
            assert!(err.contains(e), "{args:?}: {err}");
        }
        assert!(!err.contains("panicked"), "{err}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
