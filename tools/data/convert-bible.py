#!/usr/bin/env python3
"""Convert Debian's bible-kjv-text data file to one chapter per line.

Usage: convert-bible.py [--data /usr/lib/bible.data] OUTDIR

Writes OUTDIR/docs.txt (one chapter per line: its verses joined by single
spaces, verse numbers removed) and OUTDIR/ids.txt (same order,
"Book<TAB>chapter", e.g. "Genesis<TAB>1").

/usr/lib/bible.data is the Bible Retrieval System's "EC02" file: a
fixed header, a big-endian table of block offsets, then blocks each
holding 64 KiB of text compressed independently with Unix compress(1)
(LZW). Python's standard library has no LZW decoder, so one is here.
The decompressed text is a title line followed by one verse per line,
"Ge1:1 In the beginning ...".

Standard library only.
"""

import argparse
import os
import re
import struct
import sys

MAGIC = b"EC02"
HEADER_INTS_AT = 0x54  # block size (uncompressed), block count, offsets

# Abbreviations used in bible.data, in canonical order, with full names.
BOOKS = [
    ("Ge", "Genesis"), ("Exo", "Exodus"), ("Lev", "Leviticus"),
    ("Num", "Numbers"), ("Deu", "Deuteronomy"), ("Josh", "Joshua"),
    ("Jdgs", "Judges"), ("Ruth", "Ruth"), ("1Sm", "1 Samuel"),
    ("2Sm", "2 Samuel"), ("1Ki", "1 Kings"), ("2Ki", "2 Kings"),
    ("1Chr", "1 Chronicles"), ("2Chr", "2 Chronicles"), ("Ezra", "Ezra"),
    ("Neh", "Nehemiah"), ("Est", "Esther"), ("Job", "Job"),
    ("Psa", "Psalms"), ("Prv", "Proverbs"), ("Eccl", "Ecclesiastes"),
    ("SSol", "Song of Solomon"), ("Isa", "Isaiah"), ("Jer", "Jeremiah"),
    ("Lam", "Lamentations"), ("Eze", "Ezekiel"), ("Dan", "Daniel"),
    ("Hos", "Hosea"), ("Joel", "Joel"), ("Amos", "Amos"),
    ("Obad", "Obadiah"), ("Jonah", "Jonah"), ("Mic", "Micah"),
    ("Nahum", "Nahum"), ("Hab", "Habakkuk"), ("Zep", "Zephaniah"),
    ("Hag", "Haggai"), ("Zec", "Zechariah"), ("Mal", "Malachi"),
    ("Mat", "Matthew"), ("Mark", "Mark"), ("Luke", "Luke"),
    ("John", "John"), ("Acts", "Acts"), ("Rom", "Romans"),
    ("1Cor", "1 Corinthians"), ("2Cor", "2 Corinthians"),
    ("Gal", "Galatians"), ("Eph", "Ephesians"), ("Phi", "Philippians"),
    ("Col", "Colossians"), ("1Th", "1 Thessalonians"),
    ("2Th", "2 Thessalonians"), ("1Tim", "1 Timothy"),
    ("2Tim", "2 Timothy"), ("Titus", "Titus"), ("Phmn", "Philemon"),
    ("Heb", "Hebrews"), ("Jas", "James"), ("1Pet", "1 Peter"),
    ("2Pet", "2 Peter"), ("1Jn", "1 John"), ("2Jn", "2 John"),
    ("3Jn", "3 John"), ("Jude", "Jude"), ("Rev", "Revelation"),
]
BOOK_NAME = dict(BOOKS)
BOOK_ORDER = {abbr: i for i, (abbr, _) in enumerate(BOOKS)}

VERSE_RE = re.compile(r"^(\d?[A-Za-z]+)(\d+):(\d+) (.*)$")


def unlzw(data, maxbits=16, block_mode=True):
    """Decode a compress(1) LZW stream (without its 3-byte header)."""
    out = bytearray()
    nbits = 9
    maxcode = (1 << nbits) - 1
    limit = 1 << maxbits
    table = [bytes([i]) for i in range(256)]
    if block_mode:
        table.append(b"")  # code 256 is CLEAR
    first_free = len(table)
    total_bits = len(data) * 8
    bitpos = 0
    ngroup = 0  # codes read at the current width (compress pads in 8s)
    prev = None
    while bitpos + nbits <= total_bits:
        i = bitpos >> 3
        chunk = int.from_bytes(data[i:i + 4], "little")
        code = (chunk >> (bitpos & 7)) & maxcode
        bitpos += nbits
        ngroup += 1
        if block_mode and code == 256:
            if ngroup % 8:
                bitpos += (8 - ngroup % 8) * nbits
            nbits, maxcode, ngroup, prev = 9, 511, 0, None
            del table[first_free:]
            continue
        if prev is None:
            if code >= 256:
                raise ValueError("bad first code %d" % code)
            entry = table[code]
        elif code < len(table):
            entry = table[code]
        elif code == len(table):
            entry = prev + prev[:1]
        else:
            raise ValueError("bad LZW code %d (table %d)" % (code, len(table)))
        out += entry
        if prev is not None and len(table) < limit:
            table.append(prev + entry[:1])
            if len(table) > maxcode and nbits < maxbits:
                if ngroup % 8:
                    bitpos += (8 - ngroup % 8) * nbits
                nbits += 1
                maxcode = (1 << nbits) - 1
                ngroup = 0
        prev = entry
    return bytes(out)


def read_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:4] != MAGIC:
        raise ValueError("%s: not an EC02 bible data file" % path)
    block_size, nblocks = struct.unpack_from(">II", raw, HEADER_INTS_AT)
    offsets = struct.unpack_from(">%dI" % (nblocks + 1), raw,
                                 HEADER_INTS_AT + 8)
    if offsets[-1] != len(raw) or list(offsets) != sorted(offsets):
        raise ValueError("%s: inconsistent block offset table" % path)
    maxbits, block_mode = 16, True
    hdr = raw[offsets[0] - 3:offsets[0]]
    if hdr[:2] == b"\x1f\x9d":  # compress(1) header before the first block
        maxbits, block_mode = hdr[2] & 0x1F, bool(hdr[2] & 0x80)
    parts = []
    for b in range(nblocks):
        part = unlzw(raw[offsets[b]:offsets[b + 1]], maxbits, block_mode)
        if b < nblocks - 1 and len(part) != block_size:
            raise ValueError("block %d decoded to %d bytes, expected %d"
                             % (b, len(part), block_size))
        parts.append(part)
    return b"".join(parts).decode("ascii")


def chapters(text):
    """Yield (book abbreviation, chapter, [verse texts]) in file order."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cur_key, verses = None, []
    last = (-1, 0, 0)
    for n, line in enumerate(lines):
        m = VERSE_RE.match(line)
        if not m:
            if n == 0:
                continue  # title line
            raise ValueError("line %d is not a verse: %r" % (n + 1, line[:60]))
        abbr, chap, verse = m.group(1), int(m.group(2)), int(m.group(3))
        if abbr not in BOOK_NAME:
            raise ValueError("unknown book abbreviation %r" % abbr)
        pos = (BOOK_ORDER[abbr], chap, verse)
        if pos <= last:
            raise ValueError("verses out of order at line %d" % (n + 1))
        last = pos
        if (abbr, chap) != cur_key:
            if cur_key is not None:
                yield cur_key[0], cur_key[1], verses
            cur_key, verses = (abbr, chap), []
        verses.append(" ".join(m.group(4).split()))
    if cur_key is not None:
        yield cur_key[0], cur_key[1], verses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/usr/lib/bible.data")
    ap.add_argument("outdir")
    args = ap.parse_args()

    text = read_text(args.data)
    os.makedirs(args.outdir, exist_ok=True)
    ndocs = nverses = 0
    books = set()
    with open(os.path.join(args.outdir, "docs.txt"), "w",
              encoding="utf-8", newline="\n") as docs, \
            open(os.path.join(args.outdir, "ids.txt"), "w",
                 encoding="utf-8", newline="\n") as ids:
        for abbr, chap, verses in chapters(text):
            docs.write(" ".join(verses) + "\n")
            ids.write("%s\t%d\n" % (BOOK_NAME[abbr], chap))
            ndocs += 1
            nverses += len(verses)
            books.add(abbr)
    if len(books) != len(BOOKS):
        raise ValueError("found %d books, expected %d" % (len(books), len(BOOKS)))
    print("bible: %d chapters, %d verses, %d books"
          % (ndocs, nverses, len(books)), file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError) as e:
        print("convert-bible.py: error: %s" % e, file=sys.stderr)
        sys.exit(1)
