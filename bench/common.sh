# shellcheck shell=bash
# What the whole-command benchmarks share (sourced by every bench/*.sh):
# finding the build and the programs in it, the tools every run needs, a temporary work
# directory removed on exit, and timing one command with GNU time. Set bench_name before sourcing.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

die() {
    echo "$bench_name: $*" >&2
    exit 2
}
log() { printf '%s\n' "$*" >&2; }

# Every reference writes to /dev/null (cat FILE > /dev/null, the tools' discarded output). If it
# is a regular file (something renamed a file over it as root), each of those writes copies its
# data into the page cache, and every figure measured against it is wrong: refuse to measure.
[[ -c /dev/null ]] ||
    die "/dev/null is not a character device here (it is: $(stat -c %F /dev/null)); as root: rm /dev/null && mknod -m 666 /dev/null c 1 3"

# bench_build [BUILD_DIR]: sets `build` to the absolute build directory (default build/release,
# else build-release).
bench_build() {
    build=${1:-}
    if [[ -z $build ]]; then
        for candidate in build/release build-release; do
            if [[ -d $candidate ]]; then
                build=$candidate
                break
            fi
        done
        [[ -n $build ]] || die "no build directory given and neither build/release nor build-release exists (run scripts/demo first)"
    fi
    [[ -d $build ]] || die "build directory '$build' does not exist"
    build=$(cd "$build" && pwd)
    [[ -x /usr/bin/time ]] || die "GNU time is needed for the timings and peak memory: apt-get install time"
    python=/usr/bin/python3
    "$python" -c 'import numpy' 2>/dev/null || die "$python has no NumPy: apt-get install python3-numpy"
}

# The tools live in tools/ or tools/<name>/ depending on the CMake layout; mkfixture in tests/.
find_program_in_build() {
    local name=$1 path
    for path in "$build/tools/$name" "$build/tools/$name/$name" "$build/tests/mkfixture/$name" \
        "$build/$name"; do
        if [[ -f $path && -x $path ]]; then
            echo "$path"
            return
        fi
    done
    find "$build" -maxdepth 4 -type f -name "$name" -perm -u+x 2>/dev/null | head -n 1
}

# bench_workdir PREFIX: a fresh `work` directory under BENCH_TMPDIR (or TMPDIR, or /tmp), removed
# on exit and on interruption.
bench_workdir() {
    local tmp_root=${BENCH_TMPDIR:-${TMPDIR:-/tmp}}
    work=$(mktemp -d "$tmp_root/$1.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM
}

failed=0
# accepts_status NAME STATUS: whether a non-zero exit status of run NAME is an answer rather than a
# failure (a caller may redefine it; watch-check exits 1 when something hit).
accepts_status() { return 1; }

# run NAME COMMAND...: times one run into the globals wall, cpu (user + system) and rss_mb; its
# output goes to $work/NAME.out and .err. A failure sets failed=1.
run() {
    local name=$1 status=0
    shift
    sync
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
        status=$?
    if ((status != 0)) && ! accepts_status "$name" "$status"; then
        log "error: '$*' failed:"
        head -n 5 "$work/$name.err" >&2
        failed=1
    fi
    local user sys kb
    read -r wall user sys kb < <(tail -n 1 "$work/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    rss_mb=$(awk -v k="$kb" 'BEGIN { printf "%.0f", k / 1024 }')
}

# Reads a tree once, so that every contender starts from the same page cache.
warm_cache() { find "$1" -type f -exec cat {} + >/dev/null; }

# keep_fastest NAME: after a warm run of NAME, keeps the fastest wall time (with its CPU time) in
# warm_wall and warm_cpu. keep_peak NAME: keeps the largest peak RSS seen in warm_rss, so that a
# lucky run cannot hide growth. The caller declares the associative arrays.
keep_fastest() {
    if [[ -z ${warm_wall[$1]:-} ]] || awk -v a="$wall" -v b="${warm_wall[$1]}" 'BEGIN { exit !(a < b) }'; then
        warm_wall[$1]=$wall
        warm_cpu[$1]=$cpu
    fi
}
keep_peak() {
    if [[ -z ${warm_rss[$1]:-} ]] || ((rss_mb > warm_rss[$1])); then
        warm_rss[$1]=$rss_mb
    fi
}

# --- the report's spellings ---
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
verdict() { # value op target
    awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
        if (v == "n/a") { print "n/a"; exit }
        ok = (op == ">=") ? (v + 0 >= t + 0) : (v + 0 <= t + 0); print ok ? "PASS" : "MISS" }'
}
# Peak RSS is flat when the big tree needs at most 25 % more, or at most one largest tensor
# (64 MiB: a mapped file's pages count in RSS while it is read) more, than the small one.
flat() {
    awk -v s="$1" -v b="$2" 'BEGIN { if (s == "" || s == "n/a" || b == "") { print "n/a"; exit }
        print (b <= s * 1.25 || b - s <= 64) ? "PASS" : "MISS" }'
}
gb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e9 }'; }

# keep_best KEY WALL: after a run of KEY that took WALL seconds, keeps the fastest wall time (with
# the run's CPU time) and the largest peak RSS seen, in the caller's associative arrays
# best_wall, best_cpu and peak_rss.
keep_best() {
    local key=$1 wall=$2
    if [[ -z ${best_wall[$key]:-} ]] ||
        awk -v a="$wall" -v b="${best_wall[$key]}" 'BEGIN { exit !(a < b) }'; then
        best_wall[$key]=$wall
        best_cpu[$key]=$cpu
    fi
    if [[ -z ${peak_rss[$key]:-} ]] || ((rss_mb > peak_rss[$key])); then
        peak_rss[$key]=$rss_mb
    fi
}

# evict PATH...: every file at or below each PATH leaves the page cache, for cold runs (clean
# pages; posix_fadvise needs no privileges). Needs $python.
evict() {
    "$python" -c 'import os, sys
def drop(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
for root in sys.argv[1:]:
    if not os.path.isdir(root):
        drop(root)
        continue
    for d, _, names in os.walk(root):
        for n in names:
            drop(os.path.join(d, n))' "$@"
}

# measure KEY COLD COUNT COMMAND...: COUNT runs of COMMAND through `run` (COLD=1: the paths of the
# caller's array cold_paths are evicted before each); the fastest wall time and the largest peak
# RSS are kept under KEY (keep_best), and a failed run marks KEY in the caller's array `broken`.
measure() {
    local key=$1 cold=$2 count=$3 i start wall
    shift 3
    for ((i = 0; i < count; i++)); do
        if ((cold)); then evict "${cold_paths[@]}"; else sync; fi
        failed=0
        start=$EPOCHREALTIME
        run "$key" "$@"
        wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
        if ((failed)); then
            broken[$key]=1
            break
        fi
        keep_best "$key" "$wall"
    done
}
