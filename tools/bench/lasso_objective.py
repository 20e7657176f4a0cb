#!/usr/bin/python3
# tools/bench/lasso_objective.py — recompute F from a coefficient file, to check the objective a solver reports.
#
#   lasso_objective.py --data FILE.libsvm --lambda L [--alpha A] --coef FILE
#
# F = 1/(2n)·||y − Xβ − b||² + L·(A·||β||₁ + (1−A)/2·||β||²), exactly as lasso_sklearn.py computes it.
# Coefficient files understood:
#   - gyre-lasso --out: a header row with columns "lambda", "feature" and "coefficient" (tab-separated),
#     feature 0 = the intercept, 1..p the LibSVM indices; with several λ, the rows of the last λ count;
#   - lasso_sklearn.py / lasso_glmnet.R --coef-out: "intercept<TAB>b", then "j<TAB>β_j" (1-based).
# Prints the objective (repr) or exits 2 with a message if the file is in neither form.

import argparse
import sys

import numpy as np
from sklearn.datasets import load_svmlight_file


def read_coef(path, p):
    beta = np.zeros(p)
    b = 0.0
    with open(path) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip() and not line.startswith("#")]
    if not rows:
        sys.exit(f"lasso_objective: {path} is empty")
    head = rows[0]
    if {"feature", "coefficient"} <= set(head):
        jf, jc = head.index("feature"), head.index("coefficient")
        jl = head.index("lambda") if "lambda" in head else None
        body = rows[1:]
        if jl is not None and body:
            last = body[-1][jl]
            body = [r for r in body if r[jl] == last]
        for r in body:
            j, v = int(r[jf]), float(r[jc])
            if j == 0:
                b = v
            else:
                beta[j - 1] = v
    elif head[0] == "intercept" and len(head) == 2:
        b = float(head[1])
        for r in rows[1:]:
            beta[int(r[0]) - 1] = float(r[1])
    else:
        print(f"lasso_objective: {path}: unknown coefficient format (first row {head!r})", file=sys.stderr)
        sys.exit(2)
    return beta, b


def main():
    ap = argparse.ArgumentParser(description="objective F of a coefficient file")
    ap.add_argument("--data", required=True)
    ap.add_argument("--lambda", dest="lam", type=float, required=True)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--coef", required=True)
    a = ap.parse_args()
    X, y = load_svmlight_file(a.data, zero_based=False, dtype=np.float64)
    X = X.tocsc()
    beta, b = read_coef(a.coef, X.shape[1])
    with np.errstate(all="ignore"):  # a diverged solver's coefficients give inf/nan, printed as such
        r = y - X @ beta - b
        n = X.shape[0]
        f = r @ r / (2 * n) + a.lam * (a.alpha * np.abs(beta).sum() + (1 - a.alpha) / 2 * (beta @ beta))
    print(repr(float(f)))


if __name__ == "__main__":
    main()
