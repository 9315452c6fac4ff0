#!/usr/bin/env bash
# Whole-command benchmark of dump-convert and dump-parse against reference commands, measured in
# the same run on the same generated tree (see bench/README.md):
#   dump-convert -d TREE -out OUT   vs  cp -r TREE OUT             target: >= 1.0 of cp's speed
#   dump-convert -d TREE -out OUT   vs  bench/numpy_convert.py     target: >= 10 times faster
#   dump-parse --stats -j2 on a float32 tree vs bench/numpy_stats.py  target: >= 10 times faster
#   dump-parse --stats on float32                                  target: >= 1 GB/s per core
#   peak RSS of both tools on a 0.5 GB and a 2 GB tree             target: no growth
#   dump-convert vs cp -r on 10 000 tensors of about 4 KiB          target: >= 1.0 of cp's speed
#
#   bench/compare_commands.sh [BUILD_DIR]
#
# BUILD_DIR holds the built tools (default: build/release, else build-release); nothing is built
# here. Environment: BENCH_TENSORS (10000), BENCH_BYTES (2000000000), BENCH_SMALL_BYTES
# (500000000), BENCH_WARM_RUNS (2; the fastest counts), BENCH_TMPDIR (where the trees go;
# default $TMPDIR or /tmp; needs about 4.5 times BENCH_BYTES free), BENCH_STRICT=1 (exit 1 when a
# target is missed), BENCH_CONTENDERS (default "cp convert numpy stats numpy_stats": a subset
# runs only those; the targets of the others then read n/a).
#
# Page caches cannot be dropped without root, so every contender gets the same treatment instead:
# the source tree is read once before the first round, then each contender runs once ("first":
# new output files, first start of the program and its libraries), then BENCH_WARM_RUNS more
# times in turn ("warm": the fastest of them). The outputs are deleted and synced between runs,
# outside the timings, so no run pays for the write-back of another.
set -euo pipefail

bench_name=compare_commands
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

dump_convert=$(find_program_in_build dump-convert)
dump_parse=$(find_program_in_build dump-parse)
mkfixture=$(find_program_in_build mkfixture)
[[ -n $dump_convert ]] || die "dump-convert is not built in $build"
[[ -n $dump_parse ]] || die "dump-parse is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"

tensors=${BENCH_TENSORS:-10000}
bytes=${BENCH_BYTES:-2000000000}
small_bytes=${BENCH_SMALL_BYTES:-500000000}
small_tensors=$((tensors * small_bytes / bytes))
cores=$(nproc)

bench_workdir msdt-bench

# generate OUT TENSORS BYTES: the tree comes from the fixture writer, like every test input
# (tests/mkfixture/README.md, "Generated trees": format G .npy, format A .bin and format D DumpData
# containers, the three kinds dump-convert reads most).
generate() {
    local out=$1 count=$2 size=$3 mix=${4:-'"npy": 2, "bin": 1, "ascend": 1'}
    printf '{ "kind": "generate", "seed": 1, "ranks": 2, "iterations": 5, "tensors": %d,
  "total_bytes": %d, "mix": { %s } }\n' "$count" "$size" "$mix" \
        >"$work/generate.json"
    "$mkfixture" "$work/generate.json" -o "$out" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the tree: $(head -n 1 "$work/generate.log")"
}

# float32 payload bytes as dump-parse itself sees them.
float32_bytes() {
    "$dump_parse" --json --dtype float32 "$1" 2>/dev/null |
        "$python" -c 'import json, sys; print(sum(json.loads(l).get("bytes") or 0 for l in sys.stdin))'
}

log "generating the trees in $work (about $((bytes / 1000000)) MB and $((small_bytes / 1000000)) MB)"
big=$work/tree-big
small=$work/tree-small
read -r -a contenders <<<"${BENCH_CONTENDERS:-cp convert numpy stats numpy_stats}"
has() { [[ " ${contenders[*]} " == *" $1 "* ]]; }
# The mixed trees are needed only by the conversion contenders.
mkdir -p "$big" "$small"
if has cp || has convert || has numpy; then
    generate "$big" "$tensors" "$bytes"
    generate "$small" "$small_tensors" "$small_bytes"
fi
big_bytes=$(du -sb "$big" | cut -f1)
small_disk=$(du -sb "$small" | cut -f1)
big_files=$(find "$big" -type f | wc -l)
# The statistics contenders read a tree of float32 only (format A .bin, raw float32 that NumPy
# loads with np.fromfile), so that both compute over exactly the same tensors.
big32=$work/tree-f32
small32=$work/tree-f32-small
generate "$big32" "$tensors" "$bytes" '"bin": 1'
generate "$small32" "$small_tensors" "$small_bytes" '"bin": 1'
big_f32=$(float32_bytes "$big32")

declare -A first_wall warm_wall warm_cpu warm_rss outputs
declare -A labels=(
    [cp]="cp -r TREE OUT"
    [convert]="dump-convert -d TREE -out OUT"
    [numpy]="numpy_convert.py TREE OUT"
    [stats]="dump-parse --stats -j2 F32TREE"
    [numpy_stats]="numpy_stats.py F32TREE"
)

run_contender() {
    local name=$1 tree=$2 record_outputs=${3:-} out=$work/out-$1
    rm -rf "$out"
    case $name in
        cp) run "$name" cp -r "$tree" "$out" ;;
        convert) run "$name" "$dump_convert" -d "$tree" -out "$out" --no-progress ;;
        numpy) run "$name" "$python" bench/numpy_convert.py "$tree" "$out" ;;
        stats) run "$name" "$dump_parse" --stats -j2 "$tree" ;;
        numpy_stats) run "$name" "$python" bench/numpy_stats.py "$tree" ;;
    esac
    if [[ -n $record_outputs && -d $out ]]; then
        outputs[$name]=$(find "$out" -type f | wc -l)
    fi
    rm -rf "$out"
}

# tree_of NAME MIXED F32: the tree a contender reads.
tree_of() { if [[ $1 == stats || $1 == numpy_stats ]]; then echo "$3"; else echo "$2"; fi; }

log "reading the trees once so that every contender starts from the same page cache"
warm_cache "$big"
warm_cache "$big32"
# The machine may be shared: the warm figure is the fastest of BENCH_WARM_RUNS runs.
warm_runs=${BENCH_WARM_RUNS:-2}
for ((round = 0; round <= warm_runs; round++)); do
    for name in "${contenders[@]}"; do
        if ((round == 0)); then
            log "first run: ${labels[$name]}"
            run_contender "$name" "$(tree_of "$name" "$big" "$big32")" record
            first_wall[$name]=$wall
        else
            log "warm run $round/$warm_runs: ${labels[$name]}"
            run_contender "$name" "$(tree_of "$name" "$big" "$big32")"
            keep_fastest "$name"
            keep_peak "$name"
        fi
    done
done

log "peak memory on the small tree"
warm_cache "$small"
warm_cache "$small32"
small_rss_convert=n/a small_rss_stats=n/a
if has convert; then
    run_contender convert "$small"
    small_rss_convert=$rss_mb
fi
if has stats; then
    run_contender stats "$small32"
    small_rss_stats=$rss_mb
fi
sync

# --- small files: dump-convert vs cp -r on many tiny tensors --------------------------------
# Real dumps hold thousands of tiny tensors (biases, scalars, shapes), where the cost per file
# (open, create, rename) counts rather than bytes. BENCH_TINY_TENSORS (10000) tensors of about
# 4 KiB on average, same mix as above; target: at least cp -r's speed.
tiny_tensors=${BENCH_TINY_TENSORS:-10000}
small_files_case() {
    local tree=$work/tree-tiny out=$work/out-tiny best_cp="" best_convert=""
    generate "$tree" "$tiny_tensors" $((tiny_tensors * 4096))
    tiny_files=$(find "$tree" -type f | wc -l)
    warm_cache "$tree"
    for ((round = 0; round <= warm_runs; round++)); do
        rm -rf "$out"
        run tiny-cp cp -r "$tree" "$out"
        if [[ -z $best_cp ]] || awk -v a="$wall" -v b="$best_cp" 'BEGIN { exit !(a < b) }'; then best_cp=$wall; fi
        rm -rf "$out"
        run tiny-convert "$dump_convert" -d "$tree" -out "$out" --no-progress
        if [[ -z $best_convert ]] || awk -v a="$wall" -v b="$best_convert" 'BEGIN { exit !(a < b) }'; then best_convert=$wall; fi
    done
    rm -rf "$out" "$tree"
    tiny_cp=$best_cp
    tiny_convert=$best_convert
}
log "small files: $tiny_tensors tensors of about 4 KiB, cp -r and dump-convert, $((warm_runs + 1)) runs each"
small_files_case

# --- report ------------------------------------------------------------------------------------


echo
echo "msdt whole-command benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $cores cores"
if has cp || has convert || has numpy; then
    echo "mixed tree: $big_files files, about $tensors tensors, $(gb "$big_bytes") GB on disk," \
        "generated by mkfixture; small tree $(gb "$small_disk") GB"
fi
echo "float32 tree: $(find "$big32" -type f | wc -l) .bin files, $(gb "$big_f32") GB, for the statistics"
echo "dump-convert runs with its default -j ($cores workers); cp and NumPy use one core"
echo
printf '%-34s %9s %9s %10s %9s %10s %8s\n' command "first s" "warm s" "warm MB/s" "warm cpu" "peak RSS" outputs
for name in "${contenders[@]}"; do
    denominator=$big_bytes
    [[ $name == stats || $name == numpy_stats ]] && denominator=$big_f32
    printf '%-34s %9s %9s %10s %9s %7s MB %8s\n' "${labels[$name]}" "${first_wall[$name]:-}" \
        "${warm_wall[$name]:-}" "$(awk -v b="$denominator" -v t="${warm_wall[$name]:-}" \
            'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "n/a" }')" \
        "${warm_cpu[$name]:-}" "${warm_rss[$name]:-}" "${outputs[$name]:--}"
done

vs_cp=$(ratio "${warm_wall[cp]:-}" "${warm_wall[convert]:-}")
vs_cp_first=$(ratio "${first_wall[cp]:-}" "${first_wall[convert]:-}")
vs_numpy=$(ratio "${warm_wall[numpy]:-}" "${warm_wall[convert]:-}")
vs_numpy_first=$(ratio "${first_wall[numpy]:-}" "${first_wall[convert]:-}")
stats_vs_numpy=$(ratio "${warm_wall[numpy_stats]:-}" "${warm_wall[stats]:-}")
stats_vs_numpy_first=$(ratio "${first_wall[numpy_stats]:-}" "${first_wall[stats]:-}")
stats_per_core=$(awk -v b="$big_f32" -v c="${warm_cpu[stats]:-}" 'BEGIN { if (c > 0) printf "%.2f", b / 1e9 / c; else print "n/a" }')
stats_wall=$(awk -v b="$big_f32" -v t="${warm_wall[stats]:-}" 'BEGIN { if (t > 0) printf "%.2f", b / 1e9 / t; else print "n/a" }')
growth_convert=$(ratio "${warm_rss[convert]:-}" "$small_rss_convert")
growth_stats=$(ratio "${warm_rss[stats]:-}" "$small_rss_stats")

echo
printf '%-44s %-26s %-8s %s\n' target measured wanted result
row() { printf '%-44s %-26s %-8s %s\n' "$1" "$2" "$3" "$4"; }
row "dump-convert speed / cp -r speed" "$vs_cp (first run $vs_cp_first)" ">= 1.0" "$(verdict "$vs_cp" ">=" 1.0)"
row "dump-convert speed / NumPy speed" "$vs_numpy (first run $vs_numpy_first)" ">= 10" "$(verdict "$vs_numpy" ">=" 10)"
row "dump-parse --stats -j2 speed / NumPy speed" "$stats_vs_numpy (first run $stats_vs_numpy_first)" ">= 10" "$(verdict "$stats_vs_numpy" ">=" 10)"
row "dump-parse --stats GB/s per core (cpu time)" "$stats_per_core ($stats_wall GB/s wall)" ">= 1" "$(verdict "$stats_per_core" ">=" 1)"
row "dump-convert peak RSS, small -> big tree" "$small_rss_convert -> ${warm_rss[convert]:-} MB (x$growth_convert)" "flat" "$(flat "$small_rss_convert" "${warm_rss[convert]:-}")"
row "dump-parse --stats peak RSS, small -> big" "$small_rss_stats -> ${warm_rss[stats]:-} MB (x$growth_stats)" "flat" "$(flat "$small_rss_stats" "${warm_rss[stats]:-}")"
echo "(speed ratios are warm wall-clock times; 'per core' divides by user+system CPU seconds)"

# small files (section above)
tiny_vs_cp=$(ratio "$tiny_cp" "$tiny_convert")
echo
row "small files: dump-convert / cp -r speed" "$tiny_vs_cp ($tiny_files files: $tiny_convert s vs $tiny_cp s)" ">= 1.0" "$(verdict "$tiny_vs_cp" ">=" 1.0)"
if [[ ${BENCH_STRICT:-0} == 1 ]] && [[ $(verdict "$tiny_vs_cp" ">=" 1.0) != PASS ]]; then
    exit 1
fi

if ((failed)); then
    echo "compare_commands: some commands failed; their numbers are not meaningful" >&2
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && { [[ $vs_cp == n/a ]] || [[ $(verdict "$vs_cp" ">=" 1.0) != PASS ]] ||
    [[ $(verdict "$vs_numpy" ">=" 10) != PASS ]] || [[ $(verdict "$stats_per_core" ">=" 1) != PASS ]] ||
    [[ $(verdict "$stats_vs_numpy" ">=" 10) != PASS ]] ||
    [[ $(flat "$small_rss_convert" "${warm_rss[convert]:-}") != PASS ]] ||
    [[ $(flat "$small_rss_stats" "${warm_rss[stats]:-}") != PASS ]]; }; then
    exit 1
fi
exit 0
