//! Every shipped sweep expands into valid points (each point's config validated).

#[test]
fn every_shipped_sweep_expands() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut checked = 0;
    for dir in [root.clone(), root.join("papers")] {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            if !text.lines().any(|l| l.starts_with("sweep:")) {
                continue;
            }
            let s = incastsim_sweep::Sweep::load(&p, &[])
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            assert!(!s.points.is_empty(), "{}", p.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} sweeps");
}
