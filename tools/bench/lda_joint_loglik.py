#!/usr/bin/env python3
"""Joint log p(w, z) per token of a saved LDA state, one formula for gyre-lda and WarpLDA.

    lda_joint_loglik.py gyre DIR      --topics K --alpha A --beta B [--vocab V]
    lda_joint_loglik.py warplda ZFILE --topics K --alpha A --beta B [--vocab V]

gyre: DIR is gyre-lda --out's directory (word_topic.tsv "id<TAB>word<TAB>k:n ...",
doc_topic.tsv "doc<TAB>k:n ..."). warplda: ZFILE is WarpLDA's --dumpz file (one document a
line: "N w:k w:k ..."). A is the prior of one topic (gyre-lda's --alpha; WarpLDA's --alpha
over K). V defaults to the number of words with at least one token, which is the same for both
tools on the same tokens (a UCI vocabulary's tokenless words reach gyre-lda's V, never
WarpLDA's); pass --vocab to use another.

    log p(w | z) = sum_k [ lgamma(V b) - lgamma(n_k + V b) + sum_w (lgamma(n_wk + b) - lgamma(b)) ]
    log p(z)     = sum_d [ lgamma(K a) - lgamma(N_d + K a) + sum_k (lgamma(n_dk + a) - lgamma(a)) ]

Only non-zero counts contribute to the inner sums. Prints "LOGLIK_PER_TOKEN TOKENS V".
"""
import argparse
import collections
import math
import sys

lg = math.lgamma


def gyre_counts(out):
    words, docs = [], []
    for name, into, skip in (("word_topic.tsv", words, 2), ("doc_topic.tsv", docs, 1)):
        with open("%s/%s" % (out, name)) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                row = {}
                for pair in " ".join(fields[skip:]).split():
                    k, n = pair.split(":")
                    row[int(k)] = int(n)
                into.append(row)
    return words, docs


def warplda_counts(zfile):
    words = collections.defaultdict(collections.Counter)
    docs = []
    with open(zfile) as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            n, pairs = int(fields[0]), fields[1:]
            if n != len(pairs):
                sys.exit("%s: a document says %d tokens and lists %d" % (zfile, n, len(pairs)))
            row = collections.Counter()
            for pair in pairs:
                w, k = pair.split(":")
                row[int(k)] += 1
                words[int(w)][int(k)] += 1
            docs.append(row)
    return list(words.values()), docs


def joint_loglik(words, docs, K, a, b, V):
    nk = collections.Counter()
    ll = 0.0
    for row in words:
        for k, n in row.items():
            nk[k] += n
            ll += lg(n + b) - lg(b)
    for k in range(K):
        ll += lg(V * b) - lg(nk.get(k, 0) + V * b)
    tokens = 0
    for row in docs:
        nd = sum(row.values())
        tokens += nd
        ll += lg(K * a) - lg(nd + K * a)
        for n in row.values():
            ll += lg(n + a) - lg(a)
    if tokens != sum(nk.values()):
        sys.exit("word and document counts disagree: %d and %d tokens" % (sum(nk.values()), tokens))
    if nk and max(nk) >= K:
        sys.exit("a topic %d is not below K = %d" % (max(nk), K))
    return ll / tokens, tokens


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("tool", choices=("gyre", "warplda"))
    p.add_argument("state")
    p.add_argument("--topics", type=int, required=True)
    p.add_argument("--alpha", type=float, required=True)
    p.add_argument("--beta", type=float, required=True)
    p.add_argument("--vocab", type=int)
    o = p.parse_args()
    words, docs = gyre_counts(o.state) if o.tool == "gyre" else warplda_counts(o.state)
    V = o.vocab or sum(1 for row in words if row)
    ll, tokens = joint_loglik(words, docs, o.topics, o.alpha, o.beta, V)
    print("%.6f %d %d" % (ll, tokens, V))


if __name__ == "__main__":
    main()
