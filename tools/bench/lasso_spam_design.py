#!/usr/bin/python3
# tools/bench/lasso_spam_design.py — the SpamAssassin mails (tools/data/fetch-corpora.sh spam) as a
# sparse regression design for tools/bench/lasso-glmnet: one row a mail, one column a word of the
# mails' vocabulary (gyre's default tokenisation, tools/bench/gyre_text.py), x_ij = 1 when mail
# i has word j, y_i = 1 for spam and 0 for ham (ids.txt's group: spam-*, or easy-ham/hard-ham).
#
#   lasso_spam_design.py DOCS.txt IDS.txt OUT.libsvm
#
# Columns are numbered in the order words first appear; a row's indices increase. Writes
# OUT.libsvm.tmp, then renames.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gyre_text import tokens  # noqa: E402


def main():
    docs, ids, out = sys.argv[1:4]
    column = {}
    with open(docs, "rb") as d, open(ids) as g, open(out + ".tmp", "w") as o:
        for line, id_line in zip(d, g):
            label = 1 if id_line.split("\t")[0].startswith("spam") else 0
            cols = sorted({column.setdefault(w, len(column) + 1) for w in tokens(line)})
            o.write(str(label) + "".join(" %d:1" % c for c in cols) + "\n")
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
