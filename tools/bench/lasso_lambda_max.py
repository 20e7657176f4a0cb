#!/usr/bin/python3
# tools/bench/lasso_lambda_max.py — λ_max of a LibSVM regression problem, and λ = fraction·λ_max.
#
#   lasso_lambda_max.py --data FILE.libsvm [--intercept 0|1] [--alpha A] [--fraction 0.1]
#
# λ_max = max_j |x̃_jᵀ ỹ| / (n·A), the smallest λ at which β = 0 minimises
# F = 1/(2n)·||y − Xβ − b||² + λ·(A·||β||₁ + (1−A)/2·||β||²); with the intercept x̃_j and ỹ are
# centred (x̃_jᵀỹ = x_jᵀ(y − ȳ), X stays sparse), without it they are x_j and y as they are.
# Prints one JSON line: {"n":..,"features":..,"nnz":..,"lambda_max":..,"lambda":..}.

import argparse
import json

import numpy as np
from sklearn.datasets import load_svmlight_file


def main():
    ap = argparse.ArgumentParser(description="lambda_max of a LibSVM regression problem")
    ap.add_argument("--data", required=True)
    ap.add_argument("--intercept", type=int, choices=[0, 1], default=1)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--fraction", type=float, default=0.1)
    a = ap.parse_args()
    X, y = load_svmlight_file(a.data, zero_based=False, dtype=np.float64)
    X = X.tocsc()
    n = X.shape[0]
    r = y - y.mean() if a.intercept else y
    lam_max = float(np.abs(X.T @ r).max() / (n * a.alpha))
    print(json.dumps({"n": n, "features": X.shape[1], "nnz": int(X.nnz), "lambda_max": lam_max,
                      "lambda": a.fraction * lam_max}))


if __name__ == "__main__":
    main()
