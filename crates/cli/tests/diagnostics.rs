//! The diagnostics on the command line: `run --models`, drop_runs.csv, `experiment`.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_incastsim"))
}

fn config(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../configs")
        .join(name)
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("incastsim-diag-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn run_with_models_writes_model_columns_and_drop_runs() {
    let out = tempdir("models");
    let o = bin()
        .args(["run"])
        .arg(config("incast-classic.yaml"))
        .args([
            "--set",
            "senders=16",
            "--set",
            "workload.blocks=10",
            "--models",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("book models"), "{stdout}");
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    let header: Vec<&str> = runs.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = runs.lines().nth(1).unwrap().split(',').collect();
    let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert!(col("model_split_mbps").parse::<f64>().unwrap() > 0.0);
    assert!(col("p_c").parse::<f64>().unwrap() > 0.0);
    let runs_csv = std::fs::read_to_string(out.join("drop_runs.csv")).unwrap();
    assert!(runs_csv.starts_with("scenario,seed,senders,port,port_name,input_port,input_name"));
}

#[test]
fn enqueue_probability_experiment_writes_csv_and_plot() {
    let out = tempdir("fig5");
    let o = bin()
        .args(["experiment"])
        .arg(config("papers/tcprand-fig5.yaml"))
        .args([
            "--set",
            "experiment.r_min=[1, 1448]",
            "--set",
            "experiment.trials=100",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("enqueue_probability.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3);
    assert!(csv.lines().nth(2).unwrap().starts_with("1448,100,"));
    assert!(out.join("plots/enqueue-probability.png").exists());
    // A bad value names the key and what is allowed; exit code 2, no panic.
    let o = bin()
        .args(["experiment"])
        .arg(config("papers/tcprand-fig5.yaml"))
        .args(["--set", "experiment.r_min=[2000]", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("experiment.r_min") && err.contains("2000"),
        "{err}"
    );
}
