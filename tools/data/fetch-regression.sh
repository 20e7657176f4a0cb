#!/usr/bin/env bash
# Fetch real regression data sets from Debian packages and write them as
# CSV and LibSVM for the Lasso tool and its benchmark (tools/bench/lasso).
#
# Usage: tools/data/fetch-regression.sh [--out DIR] [--force] [diabetes|ames|chicago|all ...]
#
# For each data set NAME writes DIR/NAME/data.csv (header row, one dense row
# per sample, the response last and named y), DIR/NAME/data.libsvm (the same
# rows: response first, then idx:val with 1-based indices, zeros left out)
# and DIR/NAME/SOURCE (package, version, counts, response, encoding). Numbers
# are printed in their shortest round-trip form, so both files hold the same
# doubles. DIR defaults to ${GYRE_DATA_DIR:-$HOME/.cache/gyre}/regression. A
# data set whose directory already holds all three files is skipped (--force
# redoes it); each is built in a temporary directory renamed into place when
# complete.
#
#   diabetes  python3-sklearn: load_diabetes(scaled=False), 442 x 10,
#             y = disease progression one year after baseline.
#   ames      r-cran-modeldata: Ames housing, 2,930 x 314, y = log10(Sale_Price);
#             33 numeric columns + 40 factors one-hot (all occurring levels).
#   chicago   r-cran-modeldata: Chicago L ridership, 5,698 x 55, y = entries at
#             Clark/Lake (thousands/day); 48 numeric columns + 7 day-of-week
#             indicators.
#
# Needs python3-sklearn and python3-scipy (all sets) and r-base-core with
# r-cran-modeldata (ames, chicago); tools/bench/lasso installs the benchmark's
# peers (r-cran-glmnet, r-cran-matrix) itself. Missing Debian packages are
# installed with apt-get when running as root; otherwise the script says what
# to install and exits 1. Python is ${GYRE_PYTHON:-/usr/bin/python3}, the
# interpreter Debian's python3-* packages install into.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${GYRE_DATA_DIR:-$HOME/.cache/gyre}/regression
py=${GYRE_PYTHON:-/usr/bin/python3}
tool=fetch-regression
# shellcheck source=fetch-lib.sh
source "$here/fetch-lib.sh"
outputs=(data.csv data.libsvm SOURCE)

# counts DIR: print "rows features nnz" of DIR's data set.
counts() {
    local d=$1 rows features nnz
    rows=$(wc -l <"$d/data.libsvm")
    features=$(($(head -1 "$d/data.csv" | tr ',' '\n' | wc -l) - 1))
    nnz=$(($(wc -w <"$d/data.libsvm") - rows))
    echo "$rows $features $nnz"
}

# write_source DIR NAME PACKAGE RESPONSE FEATURES LICENCE [NOTES-FILE]
write_source() {
    local d=$1 name=$2 pkg=$3 response=$4 features=$5 licence=$6 notes=${7:-} c
    read -r -a c <<<"$(counts "$d")"
    [[ ${c[0]} -gt 0 ]] || die "$name: no rows"
    [[ $(($(wc -l <"$d/data.csv") - 1)) -eq ${c[0]} ]] || die "$name: data.csv and data.libsvm differ in rows"
    {
        echo "data set: $name"
        echo "package: $pkg"
        echo "rows: ${c[0]}"
        echo "features: ${c[1]}"
        echo "non-zeros: ${c[2]}"
        echo "response: $response"
        echo "encoding: $features"
        if [[ -n $notes && -s $notes ]]; then
            echo "converter notes:"
            sed 's/^convert-modeldata: [a-z]* /  /' "$notes"
        fi
        echo "licence: $licence"
        echo "files: data.csv (header row, response last, named y), data.libsvm (response first, 1-based idx:val, zeros left out); shortest round-trip numbers, same rows and order"
        echo "made by: tools/data/fetch-regression.sh"
    } >"$d/SOURCE"
}

summary() {
    local name=$1 d=$2 note=$3 c bytes
    read -r -a c <<<"$(counts "$d")"
    bytes=$(($(wc -c <"$d/data.csv") + $(wc -c <"$d/data.libsvm")))
    printf '%-9s %6d rows %5d features %8d non-zeros  %5.1f MB  %s%s\n' "$name" "${c[0]}" "${c[1]}" "${c[2]}" \
        "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$d" "$note"
}

build_diabetes() {
    local d=$1 v
    v=$(deb_version python3-sklearn)
    "$py" "$here/convert-regression.py" diabetes "$d" >/dev/null
    write_source "$d" diabetes "python3-sklearn $v (Debian): sklearn.datasets.load_diabetes(scaled=False)" \
        "y = quantitative measure of disease progression one year after baseline (Efron, Hastie, Johnstone and Tibshirani 2004, Least Angle Regression)" \
        "the 10 baseline variables as shipped, unscaled: age, sex (1/2), bmi, bp, s1..s6 (blood serum measurements); nothing dropped" \
        "scikit-learn is BSD-3-Clause (/usr/share/doc/python3-sklearn/copyright); the data set is distributed with it"
}

# build_modeldata DIR NAME RESPONSE FEATURES
build_modeldata() {
    local d=$1 name=$2 v rv
    v=$(deb_version r-cran-modeldata)
    rv=$(deb_version r-base-core)
    Rscript "$here/convert-modeldata.R" "$name" "$d/raw.csv" 2>"$d/notes.txt" ||
        { cat "$d/notes.txt" >&2; die "$name: convert-modeldata.R failed"; }
    "$py" "$here/convert-regression.py" table "$d/raw.csv" "$d" >/dev/null
    write_source "$d" "$name" "r-cran-modeldata $v (Debian), read with r-base-core $rv" "$3" "$4" \
        "modeldata: MIT (Max Kuhn, RStudio), per /usr/share/doc/r-cran-modeldata/copyright" "$d/notes.txt"
    rm -f -- "$d/raw.csv" "$d/notes.txt"
}

build_ames() {
    build_modeldata "$1" ames \
        "y = log10(Sale_Price), sale price in US dollars of a residential property in Ames, Iowa, 2006-2010 (De Cock 2011, Journal of Statistics Education 19(3); modeldata's copy of AmesHousing::make_ames())" \
        "the 33 other numeric columns unscaled (areas in square feet, years, counts, Longitude/Latitude, ...); the 40 factors one-hot encoded, one 0/1 column named Column=Level per level that occurs (all levels, no reference level dropped; characters outside [A-Za-z0-9_.-] in levels replaced by _); unused levels dropped"
}

build_chicago() {
    build_modeldata "$1" chicago \
        "y = ridership, people (thousands) entering the Clark/Lake L station per day, 2001-2016 (Kuhn and Johnson 2020, Feature Engineering and Selection; modeldata's Chicago)" \
        "the 48 other numeric columns unscaled: 20 stations' ridership lagged 14 days, 18 weather columns, 10 home/away game indicators; the date is replaced by 7 day-of-week indicators dow=Sun..dow=Sat (date itself dropped)"
}

parse_args "diabetes ames chicago" "$@"

# Only what the requested sets need: CI fetches diabetes alone and should not pull in R.
debs=(python3 python3-sklearn python3-scipy)
for s in "${requested[@]}"; do
    [[ $s == diabetes ]] || { debs+=(r-base-core r-cran-modeldata); break; }
done
need_debs "${debs[@]}"
[[ -x $py ]] || die "$py not found (set GYRE_PYTHON to the python3 that has Debian's sklearn)"

fetch_requested
