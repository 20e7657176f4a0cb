#!/usr/bin/env python3
"""tests/embed/plumbing_lines.py FILE... — an embedder's plumbing: the lines that are not the algorithm.

Counts, per file, the non-blank lines that are not comments below the line "// ---- plumbing ----"
(the entry point: backend, job, engine call, cancel, output, errors), plus the lines above it that
only connect to gyre (#include <gyre/...>, using namespace gyre). Prints "FILE: N lines of plumbing".
"""
import re
import sys

for path in sys.argv[1:]:
    lines = open(path).read().split('\n')
    marker = lines.index('// ---- plumbing ----')
    code = lambda l: l.strip() and not l.strip().startswith('//')
    below = [l for l in lines[marker + 1:] if code(l)]
    above = [l for l in lines[:marker] if re.match(r'#include <gyre/|using namespace gyre;', l)]
    print(f"{path.split('/')[-1]}: {len(below) + len(above)} lines of plumbing")
