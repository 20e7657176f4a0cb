#!/usr/bin/python3
# tools/bench/mf_real_baselines.py — the held-out RMSE of the two predictors every MF model must beat.
#
#   mf_real_baselines.py --train F --test F [--lambda L]
#
# Files of "user item rating" triples (tabs, spaces or commas). Prints two lines:
#   global_mean_rmse X      predict the training mean for every test rating
#   bias_rmse X             mean + user bias + item bias (Koren 2008's baseline predictor):
#                           b_u = Σ(r − μ − b_i)/(L + n_u), then b_i likewise, 20 alternations
# L (default 10) is the ridge penalty of both kinds of bias; standard library only.

import argparse
import math
import re
from collections import defaultdict


def read(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                u, i, r = re.split(r"[\s,]+", line)[:3]
                out.append((u, i, float(r)))
    return out


def main():
    ap = argparse.ArgumentParser(description="held-out RMSE of the global mean and of user+item biases")
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--lambda", dest="lam", type=float, default=10.0)
    a = ap.parse_args()
    train, test = read(a.train), read(a.test)
    mu = sum(r for _, _, r in train) / len(train)
    bu, bi = defaultdict(float), defaultdict(float)
    for _ in range(20):
        for key, bias, other in ((0, bu, bi), (1, bi, bu)):
            num, cnt = defaultdict(float), defaultdict(int)
            for t in train:
                num[t[key]] += t[2] - mu - other[t[1 - key]]
                cnt[t[key]] += 1
            for k in num:
                bias[k] = num[k] / (a.lam + cnt[k])

    def rmse(pred):
        return math.sqrt(sum((r - pred(u, i)) ** 2 for u, i, r in test) / len(test))

    print("global_mean_rmse %.6f" % rmse(lambda u, i: mu))
    print("bias_rmse %.6f" % rmse(lambda u, i: mu + bu[u] + bi[i]))


if __name__ == "__main__":
    main()
