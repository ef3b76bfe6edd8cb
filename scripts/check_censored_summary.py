#!/usr/bin/env python3
"""Checks a refresh of the golden summary.csv files for the censored-runs rule (issue 16).

Usage: check_censored_summary.py OLD_GOLDEN_DIR NEW_GOLDEN_DIR

Every file other than summary.csv must be byte-identical, except a sweep's `sweep.yaml` that
gained `censored: include`. Each summary.csv must equal the old one with two columns inserted
after `metric` (`runs`, `censored_fraction`), except the statistics of points with censored
runs, which must be recomputed from runs.csv over the completed runs only (`count` and `mean`
checked; every other statistic is left to the unit tests) unless the sweep says
`censored: include`, where nothing but the two new columns may change. Prints, per file, how
many rows and which columns changed.
"""
import csv
import math
import pathlib
import sys


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    return r[0], r[1:]


def main(old, new):
    old, new = pathlib.Path(old), pathlib.Path(new)
    bad = []
    old_files = {p.relative_to(old) for p in old.rglob("*") if p.is_file()}
    new_files = {p.relative_to(new) for p in new.rglob("*") if p.is_file()}
    if old_files != new_files:
        bad.append(f"file sets differ: {sorted(map(str, old_files ^ new_files))}")
    for rel in sorted(old_files & new_files):
        a, b = (old / rel).read_bytes(), (new / rel).read_bytes()
        if rel.name == "summary.csv" or a == b:
            continue
        if rel.name == "sweep.yaml" and b"censored: include" in b and b"censored" not in a:
            print(f"{rel}: gained sweep.censored: include")
            continue
        bad.append(f"{rel}: changed")
    for rel in sorted(r for r in old_files & new_files if r.name == "summary.csv"):
        oh, orows = rows(old / rel)
        nh, nrows = rows(new / rel)
        if "runs" not in nh:  # not a sweep summary (e.g. an experiment's)
            if (old / rel).read_bytes() != (new / rel).read_bytes():
                bad.append(f"{rel}: changed")
            continue
        include = b"censored: include" in (new / rel.parent / "sweep.yaml").read_bytes()
        m = nh.index("metric")
        if nh[: m + 1] + nh[m + 3 :] != oh:
            bad.append(f"{rel}: header {nh}")
            continue
        rh, rrows = rows(new / rel.parent / "runs.csv")
        done = rh.index("completed")
        by_point = {}
        for r in rrows:
            by_point.setdefault(r[0], []).append(r)
        changed_rows, changed_cols = 0, set()
        for o, n in zip(orows, nrows, strict=True):
            point_runs = by_point[n[0]]
            cut = sum(r[done] != "true" for r in point_runs)
            if n[m + 1] != str(len(point_runs)):
                bad.append(f"{rel}: point {n[0]} runs {n[m + 1]} != {len(point_runs)}")
            if not math.isclose(float(n[m + 2]), cut / len(point_runs), rel_tol=1e-15):
                bad.append(f"{rel}: point {n[0]} censored_fraction {n[m + 2]}")
            rest = n[: m + 1] + n[m + 3 :]
            if rest == o:
                continue
            changed_rows += 1
            changed_cols |= {oh[i] for i in range(len(o)) if o[i] != rest[i]}
            if include or cut == 0:
                bad.append(f"{rel}: point {n[0]} {n[m]} changed with nothing censored to drop")
                continue
            col = rh.index(n[m])
            vals = [float(r[col]) for r in point_runs if r[done] == "true" and r[col] != ""]
            count = int(n[m + 3])
            mean = float(n[m + 4]) if n[m + 4] else None
            if count != len(vals) or (vals and not math.isclose(mean, sum(vals) / len(vals), rel_tol=1e-9, abs_tol=1e-12)) or (not vals and mean is not None):
                bad.append(f"{rel}: point {n[0]} {n[m]}: count/mean {count}/{mean} != completed runs' {len(vals)}/{sum(vals) / len(vals) if vals else None}")
        if changed_rows:
            print(f"{rel}: {changed_rows} of {len(nrows)} rows changed statistics (points with censored runs), columns {sorted(changed_cols)}")
        else:
            print(f"{rel}: only the runs and censored_fraction columns added")
    for b in bad:
        print("FAIL", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
