//! The template's components against incastsim's own: `my_reno` gives the built-in NewReno's
//! results; `rto_jitter` runs in a sweep over its own parameter; their bad parameters get the
//! built-ins' error shape. Runs go through this crate's binary (`main_with`), as a user's do.

mod common;
use common::{cli, config, error, scratch, shape, table, without};

use incastsim_extend_template::extensions;
use std::path::Path;

/// `file` (a CSV) as rows of (column, value), the columns naming the controller left out.
fn table_without_controller(file: &Path) -> Vec<Vec<(String, String)>> {
    without(&table(file), &["congestion_control"])
}

/// Runs `config` with the built-in NewReno and with `my_reno` (beta at its default, 0.5):
/// runs.csv and flows.csv agree in every column but `congestion_control`.
fn same_as_builtin(config_name: &str, sets: &[&str], tag: &str) {
    let dir = scratch("template", tag);
    let cfg = config(config_name);
    let run = |cc: &str, out: &Path| {
        let mut args = vec!["run", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()];
        let cc = format!("tcp.congestion_control={cc}");
        for s in sets.iter().copied().chain([cc.as_str()]) {
            args.extend(["--set", s]);
        }
        cli(&args);
    };
    let (builtin, mine) = (dir.join("newreno"), dir.join("my_reno"));
    run("newreno", &builtin);
    run("my_reno", &mine);
    for file in ["runs.csv", "flows.csv"] {
        let a = table_without_controller(&builtin.join(file));
        let b = table_without_controller(&mine.join(file));
        assert!(!a.is_empty(), "{file} has rows");
        assert_eq!(a, b, "{config_name}: {file} differs");
    }
    let flows = std::fs::read_to_string(mine.join("flows.csv")).unwrap();
    assert!(flows.contains("my_reno"), "the controller column names it");
    // The resolved config prints every parameter; the manifest names the providing crate.
    let resolved = std::fs::read_to_string(mine.join("config.resolved.yaml")).unwrap();
    assert!(
        resolved.contains("name: my_reno") && resolved.contains("beta: 0.5"),
        "{resolved}"
    );
    let manifest = std::fs::read_to_string(mine.join("manifest.json")).unwrap();
    assert!(manifest.contains("incastsim-extend-template"), "{manifest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn my_reno_equals_the_builtin_newreno_on_s1() {
    same_as_builtin(
        "incast-classic.yaml",
        &["senders=16", "workload.blocks=20"],
        "s1",
    );
}

#[test]
fn my_reno_equals_the_builtin_newreno_on_s3() {
    same_as_builtin("bulk-dumbbell.yaml", &["workload.duration=0.1s"], "s3");
}

/// A sweep from YAML with a grid over the scheme's own parameter, through the binary.
#[test]
fn rto_jitter_sweeps_over_its_own_parameter() {
    let dir = scratch("template", "sweep");
    let text = std::fs::read_to_string(config("incast-classic.yaml")).unwrap()
        + "\nscheme: {name: rto_jitter}\nsweep: {seeds: 2, grid: {scheme.max_extra: [10us, 5ms]}}\n";
    let yaml = dir.join("jitter.yaml");
    std::fs::write(&yaml, text).unwrap();
    let out = dir.join("out");
    cli(&[
        "sweep",
        yaml.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--set",
        "senders=32",
        "--set",
        "workload.blocks=5",
    ]);
    let runs = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(runs.lines().count(), 1 + 2 * 2, "{runs}");
    assert!(runs.contains("rto_jitter"), "the scheme column names it");
    let header = runs.lines().next().unwrap();
    assert!(header.contains("scheme.max_extra"), "{header}");
    assert!(runs.contains("10us") && runs.contains("5ms"), "{runs}");
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("incastsim-extend-template"), "{manifest}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The controller's parameter is sweepable like any key (`tcp.congestion_control.beta`).
#[test]
fn my_reno_beta_is_a_sweep_key() {
    let text = std::fs::read_to_string(config("incast-classic.yaml")).unwrap()
        + "sweep: {seeds: 1, grid: {tcp.congestion_control.beta: [0.5, 0.7, 0.8]}}\n";
    let sweep = incastsim::sweep::Sweep::from_yaml_with(
        &text,
        &["tcp.congestion_control=my_reno".into()],
        &extensions(),
    )
    .unwrap();
    let betas: Vec<String> = sweep
        .points
        .iter()
        .map(|p| p.config.to_yaml())
        .map(|y| {
            y.lines()
                .find(|l| l.trim_start().starts_with("beta:"))
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(betas, ["beta: 0.5", "beta: 0.7", "beta: 0.8"]);
}

/// A bad parameter of an extension gets the same error shape as a built-in's.
#[test]
fn bad_parameters_are_refused_as_the_builtins_are() {
    let builtin = error(&["scheme={name: tda, delta: 0us}"]);
    let mine = error(&["scheme={name: rto_jitter, max_extra: 0us}"]);
    let (bk, bv, ba) = shape(&builtin);
    let (mk, mv, ma) = shape(&mine);
    assert_eq!(
        (bk, ba),
        ("scheme.delta", "a positive duration"),
        "{builtin}"
    );
    assert_eq!(
        (mk, ma),
        ("scheme.max_extra", "a positive duration"),
        "{mine}"
    );
    assert_eq!(bv, mv);

    let e = error(&["tcp.congestion_control={name: my_reno, beta: 1.5}"]);
    assert_eq!(
        shape(&e),
        ("tcp.congestion_control.beta", "1.5", "a factor in (0, 1)")
    );
    // Inside a flow-override group, under the group's key.
    let e = error(&[
        "flow_overrides=[{flows: [0], tcp: {congestion_control: {name: my_reno, beta: 0}}}]",
    ]);
    assert!(
        e.starts_with("flow_overrides[0].tcp.congestion_control.beta = 0:"),
        "{e}"
    );

    // A value of the wrong type: the key and the units' own message, as for a built-in's
    // (which reads `scheme.name: delta: invalid duration ...`).
    let builtin = error(&["scheme={name: tda, delta: soon}"]);
    let mine = error(&["scheme={name: rto_jitter, max_extra: soon}"]);
    let units_message = |e: &str| e.split("invalid duration").nth(1).map(str::to_string);
    assert!(builtin.contains("delta: invalid duration"), "{builtin}");
    assert!(
        mine.starts_with("scheme.max_extra: invalid duration"),
        "{mine}"
    );
    assert_eq!(
        units_message(&mine).unwrap(),
        units_message(&builtin)
            .unwrap()
            .replace(" (scheme tda)", "")
    );
    // A misspelt parameter names what is allowed.
    let e = error(&["tcp.congestion_control={name: my_reno, betta: 0.7}"]);
    assert!(
        e.starts_with("tcp.congestion_control") && e.contains("beta"),
        "{e}"
    );
}

/// An unknown name lists the built-ins and what is registered.
#[test]
fn unknown_names_list_what_is_registered() {
    let e = error(&["tcp.congestion_control=westwood"]);
    let (key, value, allowed) = shape(&e);
    assert_eq!((key, value), ("tcp.congestion_control", "westwood"));
    assert!(
        allowed.contains("newreno") && allowed.contains("my_reno") && allowed.contains("vegas"),
        "{e}"
    );
    let e = error(&["scheme=jitter"]);
    assert!(e.contains("tda") && e.contains("rto_jitter"), "{e}");
}

/// `components` lists both with their crate and defaults; `check` prints every parameter.
#[test]
fn components_and_check_show_the_extensions() {
    let out = cli(&["components"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("my_reno (from incastsim-extend-template 0.1.0)"),
        "{text}"
    );
    assert!(text.contains("default beta: 0.5"), "{text}");
    assert!(text.contains("default max_extra: 1ms"), "{text}");
    let cfg = config("incast-classic.yaml");
    let out = cli(&["check", cfg.to_str().unwrap(), "--set", "scheme=rto_jitter"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("name: rto_jitter") && text.contains("max_extra: 1ms"),
        "{text}"
    );
}

#[test]
fn a_config_built_in_code_takes_the_extensions() {
    let builder = || {
        incastsim::ConfigBuilder::from_file(&config("incast-classic.yaml"))
            .unwrap()
            .set(
                "tcp.congestion_control",
                serde_json::json!({"name": "my_reno"}),
            )
    };
    // With the template's registry: accepted, the default beta filled in, runnable.
    let cfg = builder().build_with(&extensions()).unwrap();
    let yaml = cfg.to_yaml();
    assert!(yaml.contains("name: my_reno"), "{yaml}");
    assert!(yaml.contains("beta: 0.5"), "{yaml}");
    // Without it: refused by name, as a file loaded without the registry is.
    let e = builder().build().unwrap_err().to_string();
    assert!(
        e.contains("tcp.congestion_control") && e.contains("my_reno"),
        "{e}"
    );
    // A bad parameter: the same key path, value and allowed range as from YAML.
    let e = builder()
        .set("tcp.congestion_control.beta", 1.5)
        .build_with(&extensions())
        .unwrap_err()
        .to_string();
    assert!(e.contains("tcp.congestion_control.beta = 1.5"), "{e}");
}

/// The template's binary is its own program: `--help`, `--version` and the messages that say
/// what to type next name it, not `incastsim` (which would not know its components).
#[test]
fn the_binary_names_itself() {
    let help = String::from_utf8(cli(&["--help"]).stdout).unwrap();
    assert!(
        help.contains("Usage: incastsim-extend-template <COMMAND>")
            && help.contains("with the components of incastsim-extend-template"),
        "{help}"
    );
    let version = String::from_utf8(cli(&["--version"]).stdout).unwrap();
    assert!(
        version.starts_with("incastsim-extend-template 0.1.0 (incastsim "),
        "{version}"
    );
    let sweep = config("incast-classic.yaml").to_str().unwrap().to_string();
    let dir = scratch("template", "name");
    let text = std::fs::read_to_string(&sweep).unwrap() + "\nsweep: {seeds: 2}\n";
    let yaml = dir.join("sweep.yaml");
    std::fs::write(&yaml, text).unwrap();
    let out = common::try_cli(&[
        "run",
        yaml.to_str().unwrap(),
        "--out",
        dir.join("o").to_str().unwrap(),
    ]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("run it with `incastsim-extend-template sweep`"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
