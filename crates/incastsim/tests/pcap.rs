//! pcap traces read by the real tool: tshark opens every file without a malformed packet, sees
//! one TCP stream per flow, counts the simulator's retransmissions, and reports the simulated
//! timestamps. Skipped (with a message) when tshark is not installed, unless
//! `INCASTSIM_REQUIRE_TSHARK` is set (CI sets it after installing tshark).

use incastsim::pcap::write_pcaps;
use incastsim::scenario::engine::capture::CapturePoint;
use incastsim::scenario::{RunResult, load_checked, run_once};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn have_tshark() -> bool {
    let found = Command::new("tshark").arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("INCASTSIM_REQUIRE_TSHARK").is_none(),
            "INCASTSIM_REQUIRE_TSHARK is set but tshark is not installed"
        );
        eprintln!("tshark not installed: skipping the pcap checks");
    }
    found
}

/// Runs `config` with `overrides` and writes its pcap files into a fresh folder.
fn run_with_pcap(config: &str, overrides: &[&str], name: &str) -> (RunResult, PathBuf) {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let cfg = load_checked(&repo().join(config), &overrides).unwrap();
    let result = run_once(&cfg, cfg.seed).unwrap();
    let dir = std::env::temp_dir().join(format!("incastsim-pcap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    write_pcaps(&dir, &result).unwrap();
    (result, dir)
}

/// The fields tshark reports for every frame of a file (one tshark run per file).
const FIELDS: [&str; 16] = [
    "frame.time_epoch",
    "_ws.malformed",
    "_ws.expert.severity",
    "tcp.stream",
    "tcp.analysis.retransmission",
    "tcp.analysis.fast_retransmission",
    "tcp.analysis.out_of_order",
    "ip.dsfield.ecn",
    "tcp.flags.ece",
    "tcp.flags.cwr",
    "tcp.options.sack_le",
    "ip.len",
    "ip.hdr_len",
    "tcp.hdr_len",
    "tcp.len",
    "frame.len",
];

/// One frame as tshark read it: the values of [`FIELDS`].
struct Frame(Vec<String>);

impl Frame {
    fn get(&self, field: &str) -> &str {
        &self.0[FIELDS.iter().position(|f| *f == field).unwrap()]
    }
    fn has(&self, field: &str) -> bool {
        !self.get(field).is_empty()
    }
    fn num(&self, field: &str) -> u32 {
        self.get(field).parse().unwrap()
    }
}

fn tshark(file: &Path) -> Vec<Frame> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(file).arg("-T").arg("fields");
    for f in FIELDS {
        cmd.arg("-e").arg(f);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed on {}: {out:?}",
        file.display()
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| Frame(l.split('\t').map(String::from).collect()))
        .collect()
}

fn count(frames: &[Frame], field: &str) -> usize {
    frames.iter().filter(|f| f.has(field)).count()
}

fn file_of(dir: &Path, point: &CapturePoint) -> PathBuf {
    dir.join(incastsim::pcap::file_name(point))
}

/// Expert severity "error" (tshark's PI_ERROR).
const SEVERITY_ERROR: &str = "8388608";

/// Reads every file: no malformed packet, no expert error, every frame there, and one TCP
/// stream per flow (a port's file: per flow of the run). Returns each point's frames.
fn check_files(result: &RunResult, dir: &Path) -> Vec<Vec<Frame>> {
    let capture = result.capture.as_ref().unwrap();
    let mut all = Vec::new();
    for (i, point) in capture.points.iter().enumerate() {
        let file = file_of(dir, point);
        let frames = tshark(&file);
        let captured = capture
            .packets
            .iter()
            .filter(|c| c.point as usize == i)
            .count();
        assert!(captured > 0, "{point:?} captured nothing");
        assert_eq!(frames.len(), captured, "{}", file.display());
        assert_eq!(count(&frames, "_ws.malformed"), 0, "{}", file.display());
        assert!(
            !frames.iter().any(|f| f
                .get("_ws.expert.severity")
                .split(',')
                .any(|s| s == SEVERITY_ERROR)),
            "{}",
            file.display()
        );
        let mut streams: Vec<&str> = frames
            .iter()
            .map(|f| f.get("tcp.stream"))
            .filter(|s| !s.is_empty())
            .collect();
        streams.sort();
        streams.dedup();
        let flows = match point {
            CapturePoint::Flow(_) => 1,
            CapturePoint::Port(_) => result.flows.len(),
        };
        assert_eq!(streams.len(), flows, "TCP streams in {}", file.display());
        all.push(frames);
    }
    all
}

/// S1 with only timeouts (no fast retransmit): tshark marks exactly the simulator's
/// retransmissions of each flow as retransmissions.
#[test]
fn tshark_counts_the_retransmissions() {
    if !have_tshark() {
        return;
    }
    let (result, dir) = run_with_pcap(
        "configs/incast-classic.yaml",
        &[
            "workload.blocks=3",
            "tcp.dupack_threshold=1000",
            "pcap={flows: [0, 3, 9, 15], ports: [\"switch0->host16\"]}",
        ],
        "timeouts",
    );
    let files = check_files(&result, &dir);
    let mut total = 0;
    for (frames, f) in files.iter().zip([0, 3, 9, 15]) {
        let retx = count(frames, "tcp.analysis.retransmission");
        assert_eq!(
            retx as u64, result.flows[f].retransmitted_segments,
            "flow {f}"
        );
        total += retx;
    }
    assert!(total > 50, "the scenario retransmits: {total}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// S1 with fast retransmit and NewReno recovery. Without a handshake tshark takes 3 ms as the
/// round trip, so a retransmission sent within 3 ms of the highest segment that does not end at
/// it (NewReno's partial-ACK retransmissions) is shown as "out-of-order": every retransmission
/// is one or the other. The timestamps are the simulated times, to the nanosecond.
#[test]
fn tshark_sees_every_retransmission_and_the_simulated_times() {
    if !have_tshark() {
        return;
    }
    let (result, dir) = run_with_pcap(
        "configs/incast-classic.yaml",
        &[
            "workload.blocks=3",
            "pcap={flows: [0, 5], ports: [\"switch0->host16\"]}",
        ],
        "newreno",
    );
    let files = check_files(&result, &dir);
    for (frames, f) in files.iter().zip([0, 5]) {
        let retx = count(frames, "tcp.analysis.retransmission");
        let ooo = count(frames, "tcp.analysis.out_of_order");
        let sim = result.flows[f].retransmitted_segments;
        assert_eq!((retx + ooo) as u64, sim, "flow {f}: {retx} + {ooo}");
        assert!(retx > 0 && count(frames, "tcp.analysis.fast_retransmission") > 0);
    }
    let capture = result.capture.as_ref().unwrap();
    let times: Vec<&str> = files[0].iter().map(|f| f.get("frame.time_epoch")).collect();
    let expected: Vec<String> = capture
        .packets
        .iter()
        .filter(|c| c.point == 0)
        .map(|c| {
            let ns = c.time.as_ps() / 1000;
            format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000)
        })
        .collect();
    assert_eq!(times, expected);
    // The first frame is the request reaching server 0: two links of 25 us plus two
    // serializations of 40 B at 1 Gbps (320 ns each).
    assert_eq!(times[0], "0.000050640");
    std::fs::remove_dir_all(dir).unwrap();
}

/// DCTCP with SACK: ECT(0) and CE in IP, ECE and CWR in TCP, SACK blocks on the ACKs, and the
/// lengths tshark reads agree with the headers.
#[test]
fn tshark_reads_ecn_and_sack() {
    if !have_tshark() {
        return;
    }
    let (result, dir) = run_with_pcap(
        "configs/incast-dctcp.yaml",
        &[
            "workload.blocks=2",
            "senders=48",
            "tcp.loss_recovery=sack",
            "pcap={flows: [0], ports: [\"switch0->host48\"]}",
        ],
        "dctcp",
    );
    let files = check_files(&result, &dir);
    let (flow, port) = (&files[0], &files[1]);
    let with =
        |frames: &[Frame], keep: &dyn Fn(&Frame) -> bool| frames.iter().filter(|f| keep(f)).count();
    assert!(
        with(flow, &|f| f.get("ip.dsfield.ecn") == "2"
            && f.num("tcp.len") > 0)
            > 0,
        "ECT(0)"
    );
    assert!(with(port, &|f| f.get("ip.dsfield.ecn") == "3") > 0, "CE");
    assert!(
        with(flow, &|f| f.get("tcp.flags.ece") == "1"
            && f.num("tcp.len") == 0)
            > 0,
        "ECE"
    );
    assert!(with(flow, &|f| f.get("tcp.flags.cwr") == "1") > 0, "CWR");
    assert!(count(flow, "tcp.options.sack_le") > 0, "SACK");
    // IPv4 total length = IP header + TCP header + payload; the frame adds 14 bytes of Ethernet.
    for f in port.iter().chain(flow).filter(|f| f.has("tcp.stream")) {
        let ip_len = f.num("ip.len");
        assert_eq!(
            ip_len,
            f.num("ip.hdr_len") + f.num("tcp.hdr_len") + f.num("tcp.len")
        );
        assert_eq!(f.num("frame.len"), ip_len + 14);
    }
    std::fs::remove_dir_all(dir).unwrap();
}
