#!/usr/bin/python3
# tools/data/convert-regression.py — writes a regression table as data.csv and data.libsvm.
#
# Usage:
#   convert-regression.py diabetes OUTDIR        scikit-learn's bundled diabetes data
#                                                (load_diabetes(scaled=False)); needs python3-sklearn
#   convert-regression.py table RAW.csv OUTDIR   a numeric CSV with a header row and the
#                                                response last (what convert-modeldata.R writes)
#
# Writes OUTDIR/data.csv (header row, one dense row per sample, the response last and named
# "y") and OUTDIR/data.libsvm (same rows and order: "y idx:val ...", indices 1-based and
# increasing, zeros left out). Every number is printed in its shortest round-trip form
# (Python repr; integral values below 1e16 without ".0"), so both files hold exactly the same
# doubles and two runs give identical bytes. Fails on NaN/inf, ragged rows or an all-zero
# last feature (LibSVM readers take the feature count from the largest index).
# Prints "rows features nnz" on stdout.

import csv
import math
import sys
from pathlib import Path


def fmt(v: float) -> str:
    if not math.isfinite(v):
        raise ValueError(f"non-finite value {v!r}")
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def write(outdir: Path, names: list[str], rows: list[list[float]], y: list[float]) -> None:
    if len(rows) != len(y) or not rows:
        raise ValueError(f"{len(rows)} rows but {len(y)} responses")
    p = len(names)
    if p == 0 or "y" in names or len(set(names)) != p:
        raise ValueError("feature names must be non-empty, unique and not 'y'")
    for name in names:
        if any(c in name for c in ',"\r\n'):
            raise ValueError(f"bad feature name {name!r}")
    if not any(r[-1] != 0 for r in rows):
        raise ValueError(f"last feature {names[-1]!r} is zero in every row")
    nnz = 0
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / "data.csv", "w", newline="\n", encoding="ascii") as fc, \
            open(outdir / "data.libsvm", "w", newline="\n", encoding="ascii") as fl:
        fc.write(",".join(names + ["y"]) + "\n")
        for i, (row, yi) in enumerate(zip(rows, y)):
            if len(row) != p:
                raise ValueError(f"row {i + 1} has {len(row)} features, expected {p}")
            cells = [fmt(v) for v in row]
            fc.write(",".join(cells + [fmt(yi)]) + "\n")
            sparse = [f"{j + 1}:{c}" for j, c in enumerate(cells) if c != "0"]
            nnz += len(sparse)
            fl.write(" ".join([fmt(yi)] + sparse) + "\n")
    print(len(rows), p, nnz)


def diabetes(outdir: Path) -> None:
    from sklearn.datasets import load_diabetes
    d = load_diabetes(scaled=False)
    rows = [[float(v) for v in r] for r in d.data]
    write(outdir, list(d.feature_names), rows, [float(v) for v in d.target])


def table(raw: Path, outdir: Path) -> None:
    with open(raw, newline="", encoding="ascii") as f:
        reader = csv.reader(f)
        header = next(reader)
        if not header or header[-1] != "y":
            raise ValueError(f"{raw}: the last column must be named y")
        rows, y = [], []
        for line, rec in enumerate(reader, start=2):
            if len(rec) != len(header):
                raise ValueError(f"{raw}:{line}: {len(rec)} fields, expected {len(header)}")
            vals = [float(v) for v in rec]
            rows.append(vals[:-1])
            y.append(vals[-1])
    write(outdir, header[:-1], rows, y)


def main() -> None:
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "diabetes":
        diabetes(Path(a[1]))
    elif len(a) == 3 and a[0] == "table":
        table(Path(a[1]), Path(a[2]))
    else:
        sys.exit("usage: convert-regression.py diabetes OUTDIR | table RAW.csv OUTDIR")


if __name__ == "__main__":
    main()
