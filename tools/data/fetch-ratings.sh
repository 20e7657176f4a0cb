#!/usr/bin/env bash
# Fetch a real public ratings data set from a Debian package and write it as
# rating triples for gyre-mf, split deterministically into train and test.
#
# Usage: tools/data/fetch-ratings.sh [--out DIR] [--force] [insteval|all ...]
#
# For each data set NAME writes DIR/NAME/train.tsv and DIR/NAME/test.tsv
# (lines "user<TAB>item<TAB>rating", what `gyre-mf --train/--test` reads;
# every user and item of test.tsv also has ratings in train.tsv) and
# DIR/NAME/SOURCE (package, version, licence, counts, how the split is made).
# DIR defaults to ${GYRE_DATA_DIR:-$HOME/.cache/gyre}/ratings. A data set
# whose directory already holds all three files is skipped (--force redoes
# it); each is built in a temporary directory renamed into place when
# complete.
#
#   insteval  r-cran-lme4: InstEval, students' ratings (1..5) of their
#             lecturers at ETH Zürich: 2,972 students x 1,128 lecturers,
#             73,421 ratings; test = the ~10% of (student, lecturer) pairs
#             picked by a fixed hash (convert-insteval.R says which).
#
# Needs r-base-core and r-cran-lme4. Missing Debian packages are installed
# with apt-get when running as root; otherwise the script says what to
# install and exits 1.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${GYRE_DATA_DIR:-$HOME/.cache/gyre}/ratings
tool=fetch-ratings
# shellcheck source=fetch-lib.sh
source "$here/fetch-lib.sh"
outputs=(train.tsv test.tsv SOURCE)

# distinct FIELD FILE...: the number of distinct values of tab-separated field FIELD.
distinct() {
    local f=$1
    shift
    cut -f "$f" "$@" | sort -u | wc -l
}

summary() {
    local name=$1 d=$2 note=$3 train test bytes
    train=$(wc -l <"$d/train.tsv")
    test=$(wc -l <"$d/test.tsv")
    bytes=$(($(wc -c <"$d/train.tsv") + $(wc -c <"$d/test.tsv")))
    printf '%-9s %6d users %6d items %8d train %7d test ratings  %5.1f MB  %s%s\n' "$name" \
        "$(distinct 1 "$d/train.tsv")" "$(distinct 2 "$d/train.tsv")" "$train" "$test" \
        "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$d" "$note"
}

# check_split DIR: every user and item of test.tsv has a rating in train.tsv.
check_split() {
    local d=$1 f
    for f in 1 2; do
        [[ -z $(comm -13 <(cut -f "$f" "$d/train.tsv" | sort -u) <(cut -f "$f" "$d/test.tsv" | sort -u)) ]] ||
            die "$d/test.tsv has a $( ((f == 1)) && echo user || echo item) with no rating in train.tsv"
    done
}

build_insteval() {
    local d=$1 v rv
    v=$(deb_version r-cran-lme4)
    rv=$(deb_version r-base-core)
    Rscript "$here/convert-insteval.R" "$d" >"$d/notes.txt" || die "insteval: convert-insteval.R failed"
    check_split "$d"
    {
        echo "data set: insteval"
        echo "package: r-cran-lme4 $v (Debian), data set InstEval, read with r-base-core $rv"
        echo "what: University lecture/instructor evaluations by students at ETH Zürich (lme4's ?InstEval): user = student (factor s), item = lecturer (factor d), rating = y, 1 (poor) .. 5 (very good); the other columns (studage, lectage, service, dept) are dropped"
        cat "$d/notes.txt"
        echo "split: a rating (s, d) is in test.tsv when floor(h * 10 / 2^32) < 1 with h = (s * 2654435761 + d * 2246822519) mod 2^32 (s, d: InstEval's integer labels), except when its student or lecturer would have no training rating (then it stays in train.tsv); see tools/data/convert-insteval.R"
        echo "licence: lme4 is GPL (>= 2) (/usr/lib/R/site-library/lme4/DESCRIPTION; Debian's /usr/share/doc/r-cran-lme4/copyright: GPL); the data set is distributed with it"
        echo "files: train.tsv, test.tsv: student<TAB>lecturer<TAB>rating, InstEval's labels as ids, the package's row order"
        echo "made by: tools/data/fetch-ratings.sh"
    } >"$d/SOURCE"
    rm -f -- "$d/notes.txt"
}

parse_args "insteval" "$@"
need_debs r-base-core r-cran-lme4
fetch_requested
