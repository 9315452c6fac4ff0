#!/usr/bin/env bash
# Whole-command benchmark of watch-check against the same ten watchpoints written in NumPy,
# measured in the same run on the same generated tree (see bench/README.md):
#   watch-check -j2 --json -w WATCH.json TREE  vs  bench/numpy_watch.py TREE   target: >= 5 times faster
#   watch-check throughput                                                     target: >= 1 GB/s per core
#   peak RSS of watch-check on a 0.5 GB and a 2 GB tree                         target: no growth
# and both must find the same number of hits and check errors.
#
#   bench/watch_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds the built tools (default: build/release, else build-release); nothing is built
# here. Environment: BENCH_TENSORS (6000), BENCH_BYTES (2000000000), BENCH_SMALL_BYTES
# (500000000), BENCH_ITERATIONS (3), BENCH_WARM_RUNS (2; the fastest counts), BENCH_TMPDIR
# (where the trees go; default $TMPDIR or /tmp; needs about 1.3 times BENCH_BYTES free),
# BENCH_STRICT=1 (exit 1 when a target is missed).
#
# As in compare_commands.sh, page caches are not dropped (that needs root): the trees are read
# once before the first round, then each contender runs once ("first") and BENCH_WARM_RUNS more
# times in turn ("warm": the fastest counts; the peak RSS is the largest seen).
set -euo pipefail

bench_name=watch_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

watch_check=$(find_program_in_build watch-check)
mkfixture=$(find_program_in_build mkfixture)
[[ -n $watch_check ]] || die "watch-check is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"

tensors=${BENCH_TENSORS:-6000}
bytes=${BENCH_BYTES:-2000000000}
small_bytes=${BENCH_SMALL_BYTES:-500000000}
iterations=${BENCH_ITERATIONS:-3}
small_tensors=$((tensors * small_bytes / bytes))
warm_runs=${BENCH_WARM_RUNS:-2}
cores=$(nproc)

bench_workdir msdt-watch-bench
# watch-check exits 1 when something hit: that is its answer, not a failure.
accepts_status() { [[ $1 == watch* && $2 == 1 ]]; }

# generate OUT TENSORS BYTES: float32 .npy (format G), the same tensors in every iteration, and
# the graph history that the change conditions need (tests/mkfixture/README.md).
generate() {
    local out=$1 count=$2 size=$3
    printf '{ "kind": "generate", "seed": 1, "ranks": 2, "iterations": %d, "tensors": %d,
  "total_bytes": %d, "mix": { "npy": 1 }, "dtype": "float32", "steps": true, "history": true }\n' \
        "$iterations" "$count" "$size" >"$work/generate.json"
    "$mkfixture" "$work/generate.json" -o "$out" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the tree: $(head -n 1 "$work/generate.log")"
}

# Hits and check errors, "hits N errors M", from watch-check's JSON Lines.
count_json() {
    "$python" -c '
import json, sys
hits = errors = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    hits += r["hit"]
    errors += r["error_code"] != 0
print(f"hits {hits} errors {errors}")' "$1"
}

payload_bytes() { find "$1" -name '*.npy' -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f", s }'; }

log "generating the trees in $work (about $((bytes / 1000000)) MB and $((small_bytes / 1000000)) MB, $iterations iterations, float32)"
big=$work/tree-big
small=$work/tree-small
generate "$big" "$tensors" "$bytes"
generate "$small" "$small_tensors" "$small_bytes"
big_bytes=$(payload_bytes "$big")
small_disk=$(payload_bytes "$small")
big_files=$(find "$big" -name '*.npy' | wc -l)
"$python" bench/numpy_watch.py --watch-file >"$work/watch.json"

declare -A first_wall warm_wall warm_cpu warm_rss
declare -A labels=([watch]="watch-check -j2 --json -w W TREE" [numpy]="numpy_watch.py TREE")
run_contender() {
    case $1 in
        watch) run watch "$watch_check" -j2 --json -w "$work/watch.json" "$2" ;;
        numpy) run numpy "$python" bench/numpy_watch.py "$2" ;;
    esac
}

log "reading the trees once so that every contender starts from the same page cache"
warm_cache "$big"
for ((round = 0; round <= warm_runs; round++)); do
    for name in watch numpy; do
        if ((round == 0)); then
            log "first run: ${labels[$name]}"
            run_contender "$name" "$big"
            first_wall[$name]=$wall
            if [[ $name == watch ]]; then
                watch_counts=$(count_json "$work/watch.out")
            else
                numpy_counts=$(tail -n 1 "$work/numpy.out")
            fi
        else
            log "warm run $round/$warm_runs: ${labels[$name]}"
            run_contender "$name" "$big"
            keep_fastest "$name"
        fi
        keep_peak "$name"
    done
done

log "peak memory on the small tree"
warm_cache "$small"
small_rss_watch=0 small_rss_numpy=0
for ((round = 0; round <= warm_runs; round++)); do
    run_contender watch "$small"
    ((rss_mb > small_rss_watch)) && small_rss_watch=$rss_mb
done
run_contender numpy "$small"
small_rss_numpy=$rss_mb

# --- report ------------------------------------------------------------------------------------


echo
echo "msdt watch-check benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $cores cores"
echo "tree: $big_files float32 .npy files, $(gb "$big_bytes") GB, 2 ranks x $iterations iterations," \
    "the same tensors every iteration, generated by mkfixture; small tree $(gb "$small_disk") GB"
echo "watch file: ten watchpoints (bench/numpy_watch.py), two of them change conditions (WCL, WNC)"
echo
printf '%-34s %9s %9s %10s %9s %10s  %s\n' command "first s" "warm s" "warm MB/s" "warm cpu" "peak RSS" "found"
for name in watch numpy; do
    found=$watch_counts
    [[ $name == numpy ]] && found=$numpy_counts
    printf '%-34s %9s %9s %10s %9s %7s MB  %s\n' "${labels[$name]}" "${first_wall[$name]}" \
        "${warm_wall[$name]}" "$(awk -v b="$big_bytes" -v t="${warm_wall[$name]}" \
            'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "n/a" }')" \
        "${warm_cpu[$name]}" "${warm_rss[$name]}" "$found"
done

speed=$(ratio "${warm_wall[numpy]}" "${warm_wall[watch]}")
speed_first=$(ratio "${first_wall[numpy]}" "${first_wall[watch]}")
per_core=$(awk -v b="$big_bytes" -v c="${warm_cpu[watch]}" 'BEGIN { if (c > 0) printf "%.2f", b / 1e9 / c; else print "n/a" }')
wall_rate=$(awk -v b="$big_bytes" -v t="${warm_wall[watch]}" 'BEGIN { if (t > 0) printf "%.2f", b / 1e9 / t; else print "n/a" }')
growth=$(ratio "${warm_rss[watch]}" "$small_rss_watch")
same=MISS
[[ $watch_counts == "$numpy_counts" ]] && same=PASS

echo
printf '%-44s %-40s %-8s %s\n' target measured wanted result
row() { printf '%-44s %-40s %-8s %s\n' "$1" "$2" "$3" "$4"; }
row "watch-check -j2 speed / NumPy speed" "$speed (first run $speed_first)" ">= 5" "$(verdict "$speed" ">=" 5)"
row "watch-check GB/s per core (cpu time)" "$per_core ($wall_rate GB/s wall)" ">= 1" "$(verdict "$per_core" ">=" 1)"
row "watch-check peak RSS, small -> big tree" "$small_rss_watch -> ${warm_rss[watch]} MB (x$growth)" "flat" "$(flat "$small_rss_watch" "${warm_rss[watch]}")"
row "NumPy peak RSS, small -> big tree (info)" "$small_rss_numpy -> ${warm_rss[numpy]} MB" "-" "-"
row "same hits and check errors" "$watch_counts / $numpy_counts" "equal" "$same"
echo "(speed ratios are warm wall-clock times; 'per core' divides the tree's bytes by user+system CPU seconds)"

if ((failed)); then
    echo "watch_bench: some commands failed; their numbers are not meaningful" >&2
    exit 1
fi
if [[ $same != PASS ]]; then
    echo "watch_bench: watch-check and NumPy disagree on what hit" >&2
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && { [[ $(verdict "$speed" ">=" 5) != PASS ]] ||
    [[ $(verdict "$per_core" ">=" 1) != PASS ]] ||
    [[ $(flat "$small_rss_watch" "${warm_rss[watch]}") != PASS ]]; }; then
    exit 1
fi
exit 0
