#!/usr/bin/python3
# tools/bench/libsvm_binarize.py — a regression LibSVM file as two classes: label 1 above the median response, 0 otherwise.
#
#   libsvm_binarize.py IN OUT
#
# The features are copied as written; blank and comment lines are dropped. Prints one JSON line: samples, ones.
import json
import statistics
import sys

src, dst = sys.argv[1], sys.argv[2]
rows = []
with open(src) as f:
    for line in f:
        body = line.split("#", 1)[0].split(None, 1)
        if body:
            rows.append((float(body[0]), body[1].strip() if len(body) > 1 else ""))
median = statistics.median(y for y, _ in rows)
ones = 0
with open(dst + ".part", "w") as out:
    for y, features in rows:
        label = 1 if y > median else 0
        ones += label
        out.write(f"{label} {features}\n")
import os
os.replace(dst + ".part", dst)
print(json.dumps({"samples": len(rows), "ones": ones}))
