//! The quick variant of every paper's reproduction report (`incastsim reproduce <paper>
//! --quick`): the claims files parse, every sweep runs, every claim is evaluated or listed, and
//! the report and its plots are written. So the generated reports in docs/reproductions/ cannot
//! rot: a change that breaks a claims file, a config or the generator fails here.

use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const PAPERS: [&str; 6] = ["kulkarni", "hafeez", "ge", "tcprand", "plato", "rdma-cc"];

#[test]
fn every_paper_has_a_claims_file_and_a_report() {
    for p in PAPERS {
        assert!(
            repo()
                .join(format!("configs/papers/claims/{p}.yaml"))
                .exists(),
            "{p}"
        );
    }
    let mut files: Vec<String> = std::fs::read_dir(repo().join("configs/papers/claims"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut want: Vec<String> = PAPERS.iter().map(|p| format!("{p}.yaml")).collect();
    want.sort();
    assert_eq!(files, want);
}

#[test]
fn quick_reports_are_generated() {
    let out = std::env::temp_dir().join(format!("incastsim-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    for p in PAPERS {
        let report = out.join(format!("{p}.md"));
        let output = Command::new(env!("CARGO_BIN_EXE_incastsim"))
            .current_dir(repo())
            .args(["reproduce", p, "--quick", "--jobs", "2", "--out"])
            .arg(out.join(p))
            .arg("--report")
            .arg(&report)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let md = std::fs::read_to_string(&report).unwrap();
        assert!(md.contains("| claim | paper | expectation |"), "{p}");
        // Every claim of the file has a row, and at least one was evaluated with a verdict.
        let claims =
            std::fs::read_to_string(repo().join(format!("configs/papers/claims/{p}.yaml")))
                .unwrap();
        for id in claims
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- id: "))
        {
            assert!(md.contains(id), "{p}: claim {id} missing from the report");
        }
        assert!(
            ["**reproduced**", "**partly**", "**not reproduced**"]
                .iter()
                .any(|v| md.contains(v)),
            "{p}: no verdict"
        );
        // The plots are next to the report.
        let plots = out.join(p);
        assert!(
            std::fs::read_dir(&plots).unwrap().any(|e| e
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "png")),
            "{p}: no plots in {}",
            plots.display()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
