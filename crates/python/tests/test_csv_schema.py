"""Every CSV incastsim writes, read with pandas' default `read_csv`, has one documented dtype per
column (the guide, docs/outputs.md): integer, float (numeric with missing values), boolean or string, and
a column keeps its kind across every file and config. Checked on the golden outputs of every
shipped config (tests/golden/), which the golden test keeps equal to what the binary writes."""

import pathlib

import pandas as pd
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
GOLDEN = sorted((REPO / "tests" / "golden").rglob("*.csv"))


def kind(dtype) -> str:
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_numeric_dtype(dtype):
        return "number"
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        return "string"
    return str(dtype)


def looks_numeric(value) -> bool:
    try:
        float(value)
        return True
    except (TypeError, ValueError):
        return False


def test_there_are_golden_csvs():
    assert len(GOLDEN) > 50


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: str(p.relative_to(REPO / "tests" / "golden")))
def test_every_column_has_one_documented_dtype(path):
    frame = pd.read_csv(path)
    with open(path) as f:
        assert len(frame) == sum(1 for _ in f) - 1, "one row per line after the header"
    for column in frame.columns:
        k = kind(frame[column].dtype)
        assert k in ("bool", "number", "string"), f"{column}: {frame[column].dtype}"
        if k == "string":
            # A text column holds no value pandas could have read as a number (a mixed column
            # reads as text and silently turns numbers into strings).
            mixed = [v for v in frame[column].dropna() if looks_numeric(v)]
            assert not mixed, f"{column}: numbers in a text column, e.g. {mixed[:3]}"


def test_a_column_keeps_its_kind_across_files():
    seen: dict[tuple[str, str], tuple[str, pathlib.Path]] = {}
    for path in GOLDEN:
        frame = pd.read_csv(path)
        for column in frame.columns:
            if frame[column].isna().all():
                continue  # all missing: float64 by convention, says nothing about the kind
            k = kind(frame[column].dtype)
            key = (path.name, column)
            if key in seen:
                assert seen[key][0] == k, (
                    f"{path.name} column {column}: {k} in {path}, {seen[key][0]} in {seen[key][1]}"
                )
            else:
                seen[key] = (k, path)
