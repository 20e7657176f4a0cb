#!/usr/bin/env bash
# Fetch scikit-learn's handwritten digits (from Debian's python3-sklearn) and write them as
# gyre-mlp's CSV with a fixed train/test split, for tools/bench/psp-accuracy and the tests.
#
# Usage: tools/data/fetch-digits.sh [--out DIR] [--force] [digits]
#
# Writes DIR/digits/train.csv (1,438 samples) and DIR/digits/test.csv (359): one sample a
# line, "label,p1,...,p64", the digit 0-9 first, then the 8x8 image's pixel counts 0-16 row
# by row; sample i of the shipped file is a test sample when i % 5 == 4
# (tools/data/convert-digits.py). DIR/digits/SOURCE says where it came from. DIR defaults
# to ${GYRE_DATA_DIR:-$HOME/.cache/gyre}. A complete directory is left alone (--force redoes
# it); it is built in a temporary directory renamed into place when complete.
#
# Needs python3-sklearn, installed with apt-get when running as root; otherwise the script
# says what to install and exits 1.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${GYRE_DATA_DIR:-$HOME/.cache/gyre}
py=${GYRE_PYTHON:-/usr/bin/python3}
source_file=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
tool=fetch-digits
# shellcheck source=fetch-lib.sh
source "$here/fetch-lib.sh"

usage() {
    sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

is_complete() {
    [[ -s $1/train.csv && -s $1/test.csv && -s $1/SOURCE ]]
}

summary() {
    printf '%-9s %5d train %5d test  %s%s\n' "$1" "$(wc -l <"$2/train.csv")" "$(wc -l <"$2/test.csv")" "$2" "$3"
}

build_digits() {
    local d=$1
    [[ -s $source_file ]] || die "$source_file not found (python3-sklearn $(deb_version python3-sklearn))"
    "$py" "$here/convert-digits.py" "$source_file" "$d" >/dev/null
    cat >"$d/SOURCE" <<SRC
python3-sklearn $(deb_version python3-sklearn) (Debian): $source_file
sklearn.datasets.load_digits: 1,797 8x8 images of handwritten digits (UCI Optical Recognition of Handwritten Digits, test part), pixel counts 0-16
split: sample i (0-based, file order) is a test sample when i % 5 == 4
files: train.csv, test.csv; one sample a line, label,p1,...,p64
licence: scikit-learn is BSD-3-Clause (/usr/share/doc/python3-sklearn/copyright); the data set is distributed with it
SRC
}

parse_args "digits" "$@"
need_debs python3 python3-sklearn
[[ -x $py ]] || die "$py not found (set GYRE_PYTHON to the python3 that has Debian's sklearn)"
fetch_requested
