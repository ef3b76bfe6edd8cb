//! Issue 17, finding 7: configs that cannot mean what they say are named on stderr and in the
//! manifest, and `--strict` refuses them with the same message.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_incastsim"))
}

fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("incastsim-warn-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const CONFIG: &str = "name: warn
senders: 2
topology: {kind: star, switch_buffer: 32KB, switch_queue: {kind: ecn_threshold, k: 64KB}}
workload: {kind: bulk, duration: 1ms}
";

const LINE: &str = "topology.switch_queue.k = 64KB: above topology.switch_buffer (32KB)";

#[test]
fn run_check_and_strict() {
    let dir = tempdir("run");
    let cfg = dir.join("warn.yaml");
    std::fs::write(&cfg, CONFIG).unwrap();
    let out = dir.join("out");
    let o = bin()
        .arg("run")
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("warning: {LINE}")),
        "{}",
        stderr(&o)
    );
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"warnings\""), "{manifest}");
    assert!(manifest.contains(LINE), "{manifest}");

    let o = bin().arg("check").arg(&cfg).output().unwrap();
    assert!(o.status.success());
    assert!(stderr(&o).contains(LINE), "{}", stderr(&o));

    for cmd in ["run", "check"] {
        let strict_out = dir.join("strict");
        let mut c = bin();
        c.arg(cmd).arg(&cfg).arg("--strict");
        if cmd == "run" {
            c.arg("--out").arg(&strict_out);
        }
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        assert!(stderr(&o).contains("--strict"), "{}", stderr(&o));
        assert!(stderr(&o).contains(LINE), "{}", stderr(&o));
        assert!(!strict_out.exists(), "--strict refused before writing");
    }

    // Without warnings, --strict changes nothing.
    let clean = dir.join("clean.yaml");
    std::fs::write(&clean, CONFIG.replace("k: 64KB", "k: 16KB")).unwrap();
    let o = bin()
        .arg("check")
        .arg(&clean)
        .arg("--strict")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sweep_with_duplicate_grid_values() {
    let dir = tempdir("sweep");
    let cfg = dir.join("sweep.yaml");
    let text =
        CONFIG.replace("k: 64KB", "k: 16KB") + "sweep: {seeds: 1, grid: {senders: [1, 2, 1]}}\n";
    std::fs::write(&cfg, text).unwrap();
    let line = "sweep.grid.senders = 1: listed more than once";

    let o = bin().arg("check").arg(&cfg).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(line), "{}", stderr(&o));

    let out = dir.join("strict");
    let o = bin()
        .arg("sweep")
        .arg(&cfg)
        .arg("--strict")
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(line), "{}", stderr(&o));
    assert!(!out.exists());

    let out = dir.join("out");
    let o = bin()
        .args(["sweep", "--jobs", "1", "--no-plots"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains(line), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains(line), "{manifest}");
    let _ = std::fs::remove_dir_all(&dir);
}
