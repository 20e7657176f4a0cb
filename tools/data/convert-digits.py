#!/usr/bin/env python3
"""tools/data/convert-digits.py — scikit-learn's handwritten digits as gyre-mlp's CSV, with a fixed train/test split.

Usage: convert-digits.py SOURCE.csv.gz DIR

SOURCE is sklearn/datasets/data/digits.csv.gz (1,797 rows of 64 pixel counts 0-16 and the
digit last). Writes DIR/train.csv and DIR/test.csv, one sample a line, "label,p1,...,p64"
(label first, no header). Sample i (0-based, file order) goes to the test set when
i % 5 == 4, else to the training set: 1,438 training and 359 test samples, every writer
group on both sides, the same split on every machine. Prints "train N test M".
"""
import gzip
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, out = sys.argv[1], sys.argv[2]
    rows = []
    with gzip.open(source, "rt") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            fields = line.split(",")
            if len(fields) != 65:
                sys.exit(f"{source}:{n}: expected 65 fields (64 pixels and the digit), found {len(fields)}")
            values = [int(float(v)) for v in fields]
            if not 0 <= values[64] <= 9 or any(not 0 <= v <= 16 for v in values[:64]):
                sys.exit(f"{source}:{n}: expected pixels 0-16 and a digit 0-9")
            rows.append(values)
    parts = {"train": [], "test": []}
    for i, r in enumerate(rows):
        parts["test" if i % 5 == 4 else "train"].append(r)
    for name, part in parts.items():
        tmp = os.path.join(out, f".{name}.csv.tmp")
        with open(tmp, "w") as f:
            for r in part:
                f.write(",".join(str(v) for v in [r[64]] + r[:64]) + "\n")
        os.replace(tmp, os.path.join(out, f"{name}.csv"))
    print(f"train {len(parts['train'])} test {len(parts['test'])}")


if __name__ == "__main__":
    main()
