"""incastsim from Python: runs, sweeps and the analytic models as pandas DataFrames.

    import incastsim
    r = incastsim.run("configs/incast-classic.yaml", seed=3, set={"senders": 32})
    r.runs.goodput_mbps[0], r.flows.head(), r.config["tcp"]["rto_min"]

    s = incastsim.sweep("configs/incast-sweep.yaml", jobs=8, set={"sweep.seeds": 5})
    s.summary[s.summary.metric == "goodput_mbps"]

    incastsim.model("rto-max", rto_min="10ms", delta="4ms", senders=[4, 8, 16])

A config is a path (str or pathlib.Path), a YAML string, or a dict with the YAML's structure.
`set` takes the CLI's `--set` overrides as a dict ({"tcp.rto_min": "1ms"}) or a list of
"key.path=value" strings. The tables have the columns and dtypes of the CSV files `incastsim
run` and `incastsim sweep` write (they are read from the same CSV text). Errors raise
`incastsim.ConfigError` (and the other subclasses of `incastsim.Error`) with the CLI's message.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import re
import shutil
import tempfile
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Union

import pandas as pd

from . import _native
from ._native import ConfigError, Error, ModelError, OutputError, RunError, SweepError

__version__ = _native.__version__
__all__ = [
    "run",
    "sweep",
    "model",
    "check",
    "RunResult",
    "SweepResult",
    "Error",
    "ConfigError",
    "RunError",
    "SweepError",
    "OutputError",
    "ModelError",
]

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Overrides = Union[None, Mapping[str, Any], Iterable[str]]


def _source(config: Config) -> "tuple[str, bool]":
    """(text or path, is_path)."""
    if isinstance(config, Mapping):
        return json.dumps(config), False  # JSON is YAML
    if isinstance(config, os.PathLike):
        return os.fspath(config), True
    if isinstance(config, str):
        if "\n" in config or (":" in config and not os.path.exists(config)):
            return config, False
        return config, True
    raise TypeError(f"config must be a path, a YAML string or a dict, not {type(config).__name__}")


def _overrides(overrides: Overrides) -> "list[str]":
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    return list(overrides)


def _table(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


class RunResult:
    """One run: `runs` (one row), `flows`, `senders`, `ports`, `port_classes`, `drop_runs`,
    `blocks` and `timeseries` (empty without `time_series:`) as DataFrames, and `config`, the
    resolved config as a dict (every default filled in)."""

    runs: pd.DataFrame
    flows: pd.DataFrame
    senders: pd.DataFrame
    ports: pd.DataFrame
    port_classes: pd.DataFrame
    drop_runs: pd.DataFrame
    blocks: pd.DataFrame
    timeseries: pd.DataFrame
    config: Dict[str, Any]

    def __init__(self, tables: "list[tuple[str, str]]", config_json: str):
        for name, text in tables:
            setattr(self, name[: -len(".csv")], _table(text))
        self.config = json.loads(config_json)

    def __repr__(self) -> str:
        r = self.runs.iloc[0]
        return (
            f"<incastsim.RunResult {r.scenario} seed {r.seed}: {r.goodput_mbps:.1f} Mbps, "
            f"{r.rto_count} RTOs, {len(self.flows)} flows>"
        )


def run(
    config: Config,
    seed: Optional[int] = None,
    set: Overrides = None,  # noqa: A002 - the CLI's --set
    out: Union[None, str, "os.PathLike[str]"] = None,
    max_memory: str = "50%",
) -> RunResult:
    """Runs one scenario (`incastsim run`); the simulation runs with the GIL released.

    `seed` overrides the config's seed; `set` the CLI's `--set` overrides; with `out`, the run's
    folder (CSVs, resolved config, manifest, pcap traces) is also written there. A run whose
    memory estimate exceeds `max_memory` (a size such as "8GB", or a share of the machine's
    memory such as "50%", the CLI's default) is refused with ConfigError before it is built.
    Ctrl-C stops the run within about 50 ms and raises KeyboardInterrupt."""
    source, is_path = _source(config)
    tables, resolved = _native.run(
        source,
        is_path,
        seed,
        _overrides(set),
        None if out is None else os.fspath(out),
        max_memory,
    )
    return RunResult(tables, resolved)


def check(config: Config, set: Overrides = None) -> str:  # noqa: A002
    """The resolved config as YAML (`incastsim check`); raises ConfigError if it is invalid."""
    source, is_path = _source(config)
    return _native.check(source, is_path, _overrides(set))


# A duration as configs and sweep tables write it ("200ms", "1.5us", "0s").
_DURATION = re.compile(r"^(\d+(?:\.\d+)?(?:e[+-]?\d+)?)(ps|ns|us|µs|ms|s)$")
_SECONDS = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def _with_seconds(df: pd.DataFrame) -> pd.DataFrame:
    """Beside every text column whose values are all durations ("200ms": a swept `tcp.rto_min`),
    a float column of seconds named `<column>_s` (`tcp.rto_min_s`), so it sorts and plots as a
    number."""
    added = []
    for name in list(df.columns):
        col = df[name]
        # Text columns are `object` before pandas 3 and a string dtype from it on.
        text = col.dtype == object or pd.api.types.is_string_dtype(col.dtype)
        if not text or col.isna().all():
            continue
        matches = col.dropna().astype(str).str.fullmatch(_DURATION)
        if not matches.all():
            continue
        seconds = col.map(
            lambda v: None
            if pd.isna(v)
            else float(_DURATION.match(str(v)).group(1)) * _SECONDS[_DURATION.match(str(v)).group(2)]
        ).astype(float)
        added.append((name, seconds))
    if added:
        # One copy first: a frame built column by column (a sweep's long tables) is
        # fragmented, and inserting into it warns (PerformanceWarning) on every call.
        df = df.copy()
        for name, seconds in added:
            df.insert(df.columns.get_loc(name) + 1, f"{name}_s", seconds)
    return df


def _read_summary(path: pathlib.Path) -> pd.DataFrame:
    """summary.csv, `censored_fraction` always float (it is 0 or 1 in many sweeps, which pandas
    would read as integers), durations with seconds beside them."""
    return _with_seconds(pd.read_csv(path, dtype={"censored_fraction": "float64"}))


class SweepResult:
    """A sweep's `summary` (per point and metric: runs, censored_fraction, count (completed runs), mean, std, ci95_low, ci95_high, ...),
    `runs` (one row per run) and `flows` (one row per flow of every run) as DataFrames; `dir`
    is the results folder (None if it was a temporary one, now deleted). A swept duration
    (`tcp.rto_min`: "200ms") also comes as seconds in `<key>_s` (`tcp.rto_min_s`: 0.2) in
    `summary` and `runs`; `censored_fraction` is always a float."""

    def __init__(self, folder: pathlib.Path, keep: bool):
        self.summary = _read_summary(folder / "summary.csv")
        self.runs = _with_seconds(pd.read_csv(folder / "runs.csv"))
        self.flows = pd.read_csv(folder / "flows.csv")
        self.dir = folder if keep else None

    def __repr__(self) -> str:
        return (
            f"<incastsim.SweepResult {len(self.runs)} runs, "
            f"{self.summary.point.nunique() if len(self.summary) else 0} points>"
        )


class _Bar:
    """A tqdm progress bar (a widget in notebooks, a bar in terminals), or nothing."""

    def __init__(self, enabled: bool):
        self.bar = None
        self.enabled = enabled

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self.enabled = False
                return
            self.bar = tqdm(total=total, initial=done, unit="run", desc="sweep")
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(
    config: Config,
    jobs: Optional[int] = None,
    out: Union[None, str, "os.PathLike[str]"] = None,
    set: Overrides = None,  # noqa: A002
    progress: Union[bool, Callable[[int, int], None]] = True,
) -> SweepResult:
    """Runs every point of the config's `sweep:` section with every seed (`incastsim sweep`),
    in parallel on `jobs` threads (default: every core) with the GIL released.

    Results do not depend on `jobs`. With `out`, results go to that folder and a sweep stopped
    by Ctrl-C (KeyboardInterrupt, raised once the runs in progress are stored) resumes when
    called again; without it they go to a temporary folder that is deleted after reading.
    `progress`: True for a progress bar, False for none, or a callable(done, total)."""
    source, is_path = _source(config)
    keep = out is not None
    folder = pathlib.Path(out) if keep else pathlib.Path(tempfile.mkdtemp(prefix="incastsim-sweep-"))
    bar = progress if callable(progress) else _Bar(bool(progress))
    try:
        _native.sweep(source, is_path, os.fspath(folder), jobs, _overrides(set), bar)
        return SweepResult(folder, keep)
    finally:
        if isinstance(bar, _Bar):
            bar.close()
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)


def model(name: str, **params: Any) -> pd.DataFrame:
    """An analytic model (`incastsim model NAME --param value ...`) as a DataFrame.

    `name`: "rto-max", "nmax" or "book". Parameters by the CLI's flag names with `_` for `-`
    (rto_min="10ms", senders=[4, 8], block_packets=...); lists become comma-separated values,
    True a bare flag. See `incastsim model NAME --help`."""
    argv = [name.replace("_", "-")]
    for key, value in params.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        argv += [flag, str(value)]
    return _table(_native.model(argv))
