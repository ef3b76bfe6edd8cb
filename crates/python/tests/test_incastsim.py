"""The Python package against the CLI: the same tables, the same errors, and the GIL released
during sweeps. Run from anywhere: `python -m pytest crates/python/tests` (the tests work in the
repository root). The CLI binary is $INCASTSIM_CLI, else target/{debug,release}/incastsim."""

import io
import json
import os
import pathlib
import subprocess
import threading
import time

import pandas as pd
import pytest

import incastsim

REPO = pathlib.Path(__file__).resolve().parents[3]
S1 = "configs/incast-classic.yaml"
SMALL = {"senders": 4, "workload.blocks": 3}


@pytest.fixture(autouse=True)
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def cli():
    candidates = [os.environ.get("INCASTSIM_CLI")] + [
        str(REPO / "target" / p / "incastsim") for p in ("debug", "release")
    ]
    for c in candidates:
        if c and os.path.exists(c):
            return c
    pytest.skip("no incastsim CLI binary: build it (cargo build -p incastsim-cli) or set INCASTSIM_CLI")


def overrides(d):
    """--set arguments as the package makes them (non-strings as JSON, which is YAML)."""
    return [a for k, v in d.items() for a in ("--set", f"{k}={v if isinstance(v, str) else json.dumps(v)}")]


def test_run_tables_equal_the_cli_csvs(tmp_path):
    sets = dict(SMALL)
    sets["time_series"] = '{interval: 1ms, ports: ["switch0->host4"], flows: [0]}'
    subprocess.run(
        [cli(), "run", S1, "--seed", "7", "--out", str(tmp_path), *overrides(sets)],
        check=True,
        capture_output=True,
    )
    r = incastsim.run(S1, seed=7, set=sets)
    for table in ["runs", "flows", "senders", "ports", "port_classes", "drop_runs", "blocks", "timeseries"]:
        from_file = pd.read_csv(tmp_path / f"{table}.csv")
        frame = getattr(r, table)
        assert len(frame) > 0 or table == "drop_runs", table
        pd.testing.assert_frame_equal(frame, from_file, check_exact=True)
    assert r.config["senders"] == 4 and r.config["seed"] == 7
    assert r.config["tcp"]["rto_min"] == "200ms"


def test_a_dict_or_a_yaml_string_is_the_same_config():
    text = (REPO / S1).read_text()
    by_path = incastsim.run(S1, set=SMALL)
    by_text = incastsim.run(text, set=SMALL)
    as_dict = dict(by_path.config)
    by_dict = incastsim.run(as_dict)
    pd.testing.assert_frame_equal(by_path.flows, by_text.flows)
    pd.testing.assert_frame_equal(by_path.flows, by_dict.flows)


def test_errors_carry_the_cli_message():
    bad = {"tcp.rto_min": "200xs"}
    p = subprocess.run([cli(), "run", S1, *overrides(bad)], capture_output=True, text=True)
    assert p.returncode != 0
    with pytest.raises(incastsim.ConfigError) as e:
        incastsim.run(S1, set=bad)
    assert p.stderr.strip() == f"error: {e.value}"
    assert isinstance(e.value, incastsim.Error)
    with pytest.raises(incastsim.ConfigError, match="senders"):
        incastsim.run({"senders": "many", "topology": {"kind": "star"}, "workload": {"kind": "bulk"}})
    with pytest.raises(incastsim.ConfigError, match="sweep"):
        incastsim.sweep(S1)  # no sweep: section
    with pytest.raises(incastsim.ModelError, match="delta"):
        incastsim.model("rto-max", rto_min="1ms", delta="5ms")


def test_model_equals_the_cli():
    frame = incastsim.model("rto-max", rto_min="10ms", delta="4ms", senders=[4, 8, 64])
    p = subprocess.run(
        [cli(), "model", "rto-max", "--rto-min", "10ms", "--delta", "4ms", "--senders", "4,8,64"],
        check=True,
        capture_output=True,
        text=True,
    )
    pd.testing.assert_frame_equal(frame, pd.read_csv(io.StringIO(p.stdout)))


SWEEP = {
    "sweep.seeds": 6,
    "sweep.grid": {"senders": [2, 4, 8]},
    "sweep.plots": [],
    "workload.blocks": 10,
}


def test_sweep_tables_equal_the_cli_and_the_gil_is_released(tmp_path):
    subprocess.run(
        [cli(), "sweep", "configs/incast-sweep.yaml", "--jobs", "2", "--out", str(tmp_path), "--no-plots",
         *overrides(SWEEP)],
        check=True,
        capture_output=True,
    )
    # A Python thread counts while the sweep runs: it can only if the sweep released the GIL.
    counts = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
        counts.append(n)

    seen = []
    t = threading.Thread(target=count)
    t.start()
    started = time.perf_counter()
    s = incastsim.sweep("configs/incast-sweep.yaml", jobs=2, set=SWEEP, progress=lambda d, n: seen.append((d, n)))
    elapsed = time.perf_counter() - started
    stop.set()
    t.join()
    assert seen[-1] == (18, 18)
    # At least ~1 M loop iterations per second of sweep (a held GIL gives a handful).
    assert counts[0] > 1_000_000 * elapsed * 0.2, (counts[0], elapsed)
    for table in ["summary", "runs", "flows"]:
        cli_table = pd.read_csv(tmp_path / f"{table}.csv")
        mine = getattr(s, table)[cli_table.columns]
        pd.testing.assert_frame_equal(mine, cli_table, check_exact=True, check_dtype=table != "summary")
    assert s.dir is None and len(s.runs) == 18
    goodput = s.summary[s.summary.metric == "goodput_mbps"]
    assert list(goodput.senders) == [2, 4, 8]
    assert (goodput.ci95_low <= goodput["mean"]).all()


# A sweep's tables are wide and built column by column: adding the seconds must not warn.
@pytest.mark.filterwarnings("error::pandas.errors.PerformanceWarning")
def test_swept_durations_come_with_seconds_and_censored_fraction_is_float(tmp_path):
    grid = {"sweep.seeds": 1, "sweep.grid": {"senders": [2], "tcp.rto_min": ["200ms", "1ms"]},
            "sweep.plots": [], "workload.blocks": 3}
    s = incastsim.sweep("configs/incast-sweep.yaml", jobs=2, set=grid, progress=False)
    for table in (s.summary, s.runs):
        assert table["tcp.rto_min_s"].dtype == float
        cols = list(table.columns)
        assert cols.index("tcp.rto_min_s") == cols.index("tcp.rto_min") + 1
        for text, secs in zip(table["tcp.rto_min"], table["tcp.rto_min_s"]):
            assert secs == {"200ms": 0.2, "1ms": 0.001}[text]
    assert s.summary["censored_fraction"].dtype == float
    # Columns that are not durations get no companion.
    assert "scenario_s" not in s.runs.columns and "senders_s" not in s.runs.columns


def test_a_stopped_sweep_resumes(tmp_path):
    """The progress callback raising (as Ctrl-C's KeyboardInterrupt does) stops the sweep after
    the runs in progress are stored; calling it again finishes it."""

    def interrupt(done, total):
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        incastsim.sweep("configs/incast-sweep.yaml", jobs=1, out=tmp_path, set=SWEEP, progress=interrupt)
    kept = len(pd.read_csv(tmp_path / "runs.csv"))
    assert 2 <= kept < 18
    s = incastsim.sweep("configs/incast-sweep.yaml", jobs=2, out=tmp_path, set=SWEEP, progress=False)
    assert len(s.runs) == 18 and s.dir == tmp_path


def test_a_run_over_the_memory_limit_is_refused_as_the_cli_refuses_it():
    """Issue 38, item 3: Python's run builds through the same memory estimate as the CLI."""
    with pytest.raises(incastsim.ConfigError) as e:
        incastsim.run(
            "configs/incast-classic.yaml",
            set={"senders": 1000000, "workload.blocks": 1},
            max_memory="8GB",
        )
    assert "this run needs about" in str(e.value) and "more than the limit" in str(e.value)
    with pytest.raises(ValueError, match="--max-memory"):
        incastsim.run("configs/incast-classic.yaml", max_memory="lots")


def test_ctrl_c_stops_a_run_promptly():
    """Issue 38, item 4: Ctrl-C stops a run within moments and raises KeyboardInterrupt."""
    import signal

    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        incastsim.run(
            "configs/incast-classic.yaml", set={"senders": 64, "workload.blocks": 1000000}
        )
    timer.cancel()
    assert time.monotonic() - t0 < 10


def test_check_accepts_an_experiment_config_as_the_cli_does():
    """Issue 38, item 20: incastsim.check checks an experiment config as `incastsim check` does."""
    resolved = incastsim.check("configs/papers/tcprand-fig5.yaml")
    assert "experiment:" in resolved and "enqueue_probability" in resolved
    with pytest.raises(incastsim.ConfigError, match="experiment.trials"):
        incastsim.check("configs/papers/tcprand-fig5.yaml", set={"experiment.trials": 0})
