#!/usr/bin/python3
# tools/bench/lasso_jsonl.py — small queries over the JSON-lines files of tools/bench/lasso (peers and gyre-lasso metrics).
#
#   lasso_jsonl.py min FILE...                 lowest "objective" over every line of every FILE
#   lasso_jsonl.py first FILE TARGET FIELD...  FIELDs of the first line whose objective <= TARGET,
#                                              space-separated; "none" if no line gets there
#   lasso_jsonl.py series FILE FIELD [FMT]     FIELD of every line, space-separated (FMT: %-format)
#   lasso_jsonl.py last FILE FIELD             FIELD of the last line
#   lasso_jsonl.py target F REL                F·(1 + REL), printed exactly (repr)
#   lasso_jsonl.py ratio A B                   A/B with one decimal, "X.X× faster" / "X.X× slower"
#
# Missing or empty files count as having no lines; numbers print with repr (round-trip exact).

import json
import sys


def lines(path):
    try:
        with open(path) as f:
            return [json.loads(s) for s in f if s.strip()]
    except FileNotFoundError:
        return []


def show(v):
    return repr(v) if isinstance(v, float) else str(v)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "min":
        objs = [r["objective"] for p in args for r in lines(p) if r.get("objective") is not None]
        print(repr(min(objs)) if objs else "none")
    elif cmd == "first":
        target = float(args[1])
        for r in lines(args[0]):
            if r.get("objective") is not None and r["objective"] <= target:
                print(" ".join(show(r.get(f)) for f in args[2:]))
                return
        print("none")
    elif cmd == "series":
        fmt = args[2] if len(args) > 2 else None
        print(" ".join((fmt % r[args[1]]) if fmt else show(r[args[1]]) for r in lines(args[0])))
    elif cmd == "last":
        rs = lines(args[0])
        print(show(rs[-1][args[1]]) if rs else "none")
    elif cmd == "target":
        print(repr(float(args[0]) * (1 + float(args[1]))))
    elif cmd == "ratio":
        a, b = args
        if "none" in (a, b) or float(b) == 0:
            print("n/a (a tool did not reach the target)")
            return
        r = float(a) / float(b)
        print(f"{r:.1f}× faster" if r >= 1 else f"{1 / r:.1f}× slower")
    else:
        sys.exit(f"lasso_jsonl: unknown command {cmd}")


if __name__ == "__main__":
    main()
