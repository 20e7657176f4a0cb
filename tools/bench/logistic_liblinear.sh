#!/bin/sh
# tools/bench/logistic_liblinear.sh — liblinear's L1-regularised logistic regression (train -s 6) as a peer of gyre-lasso --loss logistic.
#
#   tools/bench/logistic_liblinear.sh FILE.libsvm LAMBDA [EPS]
#
# liblinear -s 6 minimises ||w||₁ + C·Σ_i log(1 + e^{−ỹ_i·wᵀx_i}) (ỹ = ±1, no bias term), which
# divided by C·n is gyre's F with α = 1 and no intercept at λ = 1/(C·n):
#   F = (1/n)·Σ_i [log(1 + e^{m_i}) − y_i·m_i] + λ·||w||₁,  m = Xw, y ∈ {0, 1}.
# So C = 1/(n·LAMBDA). EPS is train's -e (default 1e-10). Labels: any two values, the larger is
# class 1 (as gyre's binary_labels). Times only the train call; prints one JSON line with F
# computed here from the model file. Needs liblinear-tools (liblinear-train) and python3; not run
# in CI.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 FILE.libsvm LAMBDA [EPS]" >&2; exit 2; }
data=$1
lambda=$2
eps=${3:-1e-10}
train=$(command -v liblinear-train || command -v train || true)
[ -n "$train" ] || { echo "logistic_liblinear: liblinear-train not found (apt-get install liblinear-tools)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=$(grep -c -v -E '^[[:space:]]*(#|$)' "$data")
c=$(python3 -c "print(repr(1.0 / ($n * $lambda)))")
start=$(date +%s.%N)
"$train" -s 6 -c "$c" -e "$eps" -q "$data" "$work/model" >&2
end=$(date +%s.%N)
python3 - "$data" "$work/model" "$lambda" "$start" "$end" <<'PY'
import json, math, sys

data, model, lam, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
with open(model) as f:
    lines = f.read().split("\n")
header = {}
at = 0
while lines[at].strip() != "w":
    key, _, value = lines[at].partition(" ")
    header[key] = value.split()
    at += 1
w = [float(line.split()[0]) for line in lines[at + 1:] if line.strip()]
if float(header.get("bias", ["-1"])[0]) >= 0:
    sys.exit("logistic_liblinear: the model has a bias term; this script compares without one")
# wᵀx > 0 predicts the model's first label: flip w if that is the smaller (class 0).
labels = [float(v) for v in header["label"]]
sign = 1.0 if labels[0] == max(labels) else -1.0
loss, n = 0.0, 0
with open(data) as f:
    for line in f:
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        y = 1.0 if float(line[0]) == max(labels) else 0.0
        m = 0.0
        for token in line[1:]:
            index, value = token.split(":")
            if int(index) <= len(w):
                m += sign * w[int(index) - 1] * float(value)
        loss += max(m, 0.0) + math.log1p(math.exp(-abs(m))) - y * m
        n += 1
objective = loss / n + lam * sum(abs(v) for v in w)
print(json.dumps({"tool": "liblinear", "objective": objective, "seconds": end - start,
                  "nnz": sum(v != 0 for v in w), "C": 1.0 / (n * lam)}))
PY
