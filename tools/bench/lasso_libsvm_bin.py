#!/usr/bin/python3
# tools/bench/lasso_libsvm_bin.py — a LibSVM regression file as one binary CSC file that R reads with readBin.
#
#   lasso_libsvm_bin.py FILE.libsvm OUT.bin
#
# Parses FILE with sklearn.datasets.load_svmlight_file (1-based indices, as lasso_sklearn.py does,
# so every peer sees bitwise the same X and y) and writes OUT.bin, little-endian:
#   int64 n, int64 p, int64 nnz,
#   int32 colptr[p+1], int32 rowind[nnz] (0-based, increasing within a column),
#   float64 values[nnz], float64 y[n].
# tools/bench/lasso_glmnet.R builds its dgCMatrix from these arrays. Writes OUT.bin.tmp, then renames.

import os
import sys

import numpy as np
from sklearn.datasets import load_svmlight_file


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: lasso_libsvm_bin.py FILE.libsvm OUT.bin")
    src, out = sys.argv[1], sys.argv[2]
    X, y = load_svmlight_file(src, zero_based=False, dtype=np.float64)
    X = X.tocsc()
    X.sort_indices()
    X.sum_duplicates()
    n, p = X.shape
    if X.nnz >= 2**31:
        sys.exit(f"lasso_libsvm_bin: {src}: {X.nnz} non-zeros do not fit R's int32 indices")
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        np.array([n, p, X.nnz], dtype="<i8").tofile(f)
        X.indptr.astype("<i4").tofile(f)
        X.indices.astype("<i4").tofile(f)
        X.data.astype("<f8").tofile(f)
        np.asarray(y, dtype="<f8").tofile(f)
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
