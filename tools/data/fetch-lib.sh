# tools/data/fetch-lib.sh — what the fetch scripts share: arguments, errors, Debian packages, and
# building a data set in a temporary directory that is renamed into place only when complete.
# Sourced; the caller sets `tool` (its name in messages), `out_dir` and `outputs` (the files
# every data set directory holds), and defines summary NAME DIR NOTE and build_NAME TMPDIR; its
# header comment, from line 2 to the first blank line, is its usage text.

apt_updated=0
tmp_dir=
force=0
requested=()

usage() {
    sed -n '2,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[-1]}"
}

# is_complete DIR: DIR holds every file of `outputs`, none empty.
is_complete() {
    local f
    for f in "${outputs[@]}"; do
        [[ -s $1/$f ]] || return 1
    done
}

die() {
    echo "$tool: $*" >&2
    exit 1
}

cleanup() {
    if [[ -n $tmp_dir && -d $tmp_dir ]]; then
        rm -rf -- "$tmp_dir"
    fi
}
trap cleanup EXIT

deb_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

deb_version() {
    dpkg-query -W -f='${Version}' "$1"
}

# need_debs PKG...: make sure the Debian packages are installed.
need_debs() {
    local missing=() p
    for p in "$@"; do
        deb_installed "$p" || missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
        die "missing Debian packages; install them with:
    sudo apt-get install -y --no-install-recommends ${missing[*]}"
    fi
    echo "$tool: installing ${missing[*]}" >&2
    local start=$SECONDS
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends "${missing[@]}" >&2; then
        ((apt_updated)) && die "apt-get install ${missing[*]} failed"
        echo "$tool: install failed; running apt-get update and retrying" >&2
        apt-get update -q >&2
        apt_updated=1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${missing[@]}" >&2 ||
            die "apt-get install ${missing[*]} failed"
    fi
    echo "$tool: installed ${missing[*]} in $((SECONDS - start)) s" >&2
}

# fetch_one NAME: build data set NAME into out_dir/NAME unless it is complete (or --force).
fetch_one() {
    local name=$1 final=$out_dir/$1 start=$SECONDS
    if ((!force)) && is_complete "$final"; then
        summary "$name" "$final" "  (already there)"
        return 0
    fi
    mkdir -p "$out_dir"
    # keep the data out of git even if DIR is inside a work tree
    [[ -e $out_dir/.gitignore ]] || printf '*\n' >"$out_dir/.gitignore"
    tmp_dir=$(mktemp -d "$out_dir/.$name.tmp.XXXXXX")
    "build_$name" "$tmp_dir"
    chmod 755 "$tmp_dir"
    if [[ -e $final ]]; then
        rm -rf -- "$final"
    fi
    mv -T -- "$tmp_dir" "$final"
    tmp_dir=
    summary "$name" "$final" "  (built in $((SECONDS - start)) s)"
}

# parse_args "NAME..." ARG...: --out DIR, --force, -h, "all" and the data set names; fills
# `requested` (every name when none is given).
parse_args() {
    local -a names
    read -r -a names <<<"$1"
    shift
    while (($#)); do
        case $1 in
        --out)
            (($# >= 2)) || die "--out needs a directory"
            out_dir=$2
            shift 2
            ;;
        --out=*)
            out_dir=${1#--out=}
            shift
            ;;
        --force)
            force=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        all)
            requested+=("${names[@]}")
            shift
            ;;
        *)
            [[ " ${names[*]} " == *" $1 "* ]] || { usage >&2; die "unknown argument: $1"; }
            requested+=("$1")
            shift
            ;;
        esac
    done
    ((${#requested[@]})) || requested=("${names[@]}")
    [[ -n $out_dir ]] || die "empty output directory"
}

# fetch_requested: fetch_one for each requested data set, once each.
fetch_requested() {
    local -A done_already=()
    local name
    for name in "${requested[@]}"; do
        [[ -n ${done_already[$name]:-} ]] && continue
        done_already[$name]=1
        fetch_one "$name"
    done
}
