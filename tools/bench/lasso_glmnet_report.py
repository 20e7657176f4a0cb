#!/usr/bin/env python3
# tools/bench/lasso_glmnet_report.py — tools/bench/lasso-glmnet's figures for one problem and λ:
# each tool's seconds to F*(1 + 1e-6) per repetition and their medians, glmnet/gyre at T = 1 and 2,
# and gyre's T = 2 / T = 1.
#
#   lasso_glmnet_report.py OUT REPEATS TARGET FRACTION PROBLEM
import json, statistics, sys
out, repeats, target, fraction, problem = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
def first(path, field="seconds"):
    for line in open(path):
        r = json.loads(line)
        if r.get("objective") is not None and r["objective"] <= target:
            return r[field]
    return None
runs = {"glmnet": [first("%s/glmnet-%d.jsonl" % (out, i)) for i in range(1, repeats + 1)]}
for T in (1, 2):
    runs["gyre T=%d" % T] = [first("%s/gyre-T%d-%d.jsonl" % (out, T, i)) for i in range(1, repeats + 1)]
def med(name):
    v = runs[name]
    return None if None in v else statistics.median(v)
for name, v in runs.items():
    print("%s %-5s lambda_max %-9s seconds to F*(1+1e-6) = %.12g: %s (median %s)" % (
        problem, fraction, name, target, " ".join("none" if x is None else "%.4f" % x for x in v),
        "none" if med(name) is None else "%.4f" % med(name)))
g = med("glmnet")
for T in (1, 2):
    y = med("gyre T=%d" % T)
    print("%s %-5s lambda_max glmnet/gyre T=%d: %s" % (problem, fraction, T, "n/a" if None in (g, y) else "%.2f" % (g / y)))
y1, y2 = med("gyre T=1"), med("gyre T=2")
if None not in (y1, y2):
    print("%s %-5s lambda_max gyre T=2 / T=1 seconds: %.2f" % (problem, fraction, y2 / y1))
