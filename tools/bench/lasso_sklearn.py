#!/usr/bin/python3
# tools/bench/lasso_sklearn.py — scikit-learn's coordinate descent as the Lasso/elastic-net peer of gyre-lasso.
#
#   lasso_sklearn.py --data FILE.libsvm --lambda L [--alpha A] [--intercept 0|1]
#                    --tols 1e-2,1e-3,... [--stop-below F] [--budget S] [--coef-out FILE]
#
# Loads FILE with sklearn.datasets.load_svmlight_file (1-based indices) and keeps X sparse (CSC).
# For each tol, fits from scratch Lasso(alpha=L) when A == 1, else ElasticNet(alpha=L, l1_ratio=A),
# with tol, max_iter=100000, selection='cyclic', no standardisation, and times only fit()
# (time.perf_counter). Prints one JSON line per tol:
#   {"tool":"sklearn","tol":..,"seconds":..,"objective":..,"nnz":..,"n_iter":..,"converged":..}
# The objective is computed here, the same way in every peer script:
#   F = 1/(2n)·||y − Xβ − b||² + L·(A·||β||₁ + (1−A)/2·||β||²)   (b = 0 without intercept).
# sklearn's tol (1.2): after a sweep whose largest coefficient change is below tol·max_j|β_j|, it
# stops if the duality gap is below tol·||y − ȳ||²/n (tol·||y||²/n without intercept).
# --stop-below F: stop after the first tol whose objective is <= F (the driver passes the target).
# --budget S: run no further tol once the fits so far took S seconds. Before the timed fits, one
# untimed warm-up fit on the first 100 rows. Note (sklearn 1.2): with fit_intercept and sparse X,
# every coordinate step also sums the whole residual (O(n) per coordinate, O(n·p) per sweep) —
# sklearn pays that here; without an intercept a sweep is O(nnz).
# --coef-out writes the last fit: a line "intercept<TAB>b", then "j<TAB>β_j" (1-based) per non-zero.
# Load time goes to stderr. Python: Debian's /usr/bin/python3 (python3-sklearn).

import argparse
import json
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet, Lasso


def objective(X, y, coef, intercept, lam, alpha):
    r = y - X @ coef - intercept
    n = X.shape[0]
    return float(r @ r / (2 * n) + lam * (alpha * np.abs(coef).sum() + (1 - alpha) / 2 * (coef @ coef)))


def main():
    ap = argparse.ArgumentParser(description="scikit-learn Lasso/ElasticNet peer for tools/bench/lasso")
    ap.add_argument("--data", required=True)
    ap.add_argument("--lambda", dest="lam", type=float, required=True)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--intercept", type=int, choices=[0, 1], default=1)
    ap.add_argument("--tols", required=True, help="comma-separated, loosest first")
    ap.add_argument("--max-iter", type=int, default=100000)
    ap.add_argument("--stop-below", type=float)
    ap.add_argument("--budget", type=float)
    ap.add_argument("--coef-out")
    a = ap.parse_args()
    if not (0 < a.alpha <= 1) or a.lam <= 0:
        ap.error("need L > 0 and 0 < A <= 1")
    tols = [float(t) for t in a.tols.split(",") if t]

    t0 = time.perf_counter()
    X, y = load_svmlight_file(a.data, zero_based=False, dtype=np.float64)
    X = X.tocsc()
    X.sort_indices()
    y = np.ascontiguousarray(y, dtype=np.float64)
    print(f"lasso_sklearn: loaded {a.data}: {X.shape[0]} x {X.shape[1]}, {X.nnz} non-zeros "
          f"in {time.perf_counter() - t0:.2f} s", file=sys.stderr)

    def make(tol):
        common = dict(alpha=a.lam, fit_intercept=bool(a.intercept), tol=tol, max_iter=a.max_iter,
                      selection="cyclic", precompute=False, copy_X=True, warm_start=False)
        return Lasso(**common) if a.alpha == 1 else ElasticNet(l1_ratio=a.alpha, **common)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make(tols[0]).fit(X[:100], y[:100])  # warm-up, not timed

    model = None
    spent = 0.0
    for k, tol in enumerate(tols):
        if a.budget is not None and spent >= a.budget:
            print(f"lasso_sklearn: budget {a.budget:g} s used up ({spent:.1f} s); tols not run: "
                  f"{','.join(f'{t:g}' for t in tols[k:])}", file=sys.stderr)
            break
        model = make(tol)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            start = time.perf_counter()
            model.fit(X, y)
            seconds = time.perf_counter() - start
        converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        coef = np.asarray(model.coef_, dtype=np.float64).ravel()
        b = float(model.intercept_) if a.intercept else 0.0
        rec = {"tool": "sklearn", "tol": tol, "seconds": seconds,
               "objective": objective(X, y, coef, b, a.lam, a.alpha),
               "nnz": int(np.count_nonzero(coef)), "n_iter": int(model.n_iter_),
               "converged": converged, "lambda": a.lam, "alpha": a.alpha, "intercept": b}
        print(json.dumps(rec), flush=True)
        spent += seconds
        if a.stop_below is not None and rec["objective"] <= a.stop_below:
            break

    if a.coef_out and model is not None:
        coef = np.asarray(model.coef_, dtype=np.float64).ravel()
        with open(a.coef_out, "w") as f:
            f.write(f"intercept\t{float(model.intercept_) if a.intercept else 0.0!r}\n")
            for j in np.flatnonzero(coef):
                f.write(f"{j + 1}\t{coef[j]!r}\n")


if __name__ == "__main__":
    main()
