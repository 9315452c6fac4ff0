#!/usr/bin/env bash
# Whole-command benchmark of dump-compare on two generated dump trees, "mine" and "golden" (the
# same float32 .npy tensors, mine's values perturbed; tests/mkfixture/README.md, "Generated
# trees"), with the references measured in the same run (see bench/README.md):
#   dump-compare --json MINE GOLDEN > /dev/null   vs find MINE GOLDEN -type f -exec cat {} +
#     measured warm (both trees in the page cache) and cold (every file evicted first with
#     posix_fadvise(DONTNEED), as summary_bench.sh does)    target: >= 0.5 of cat's MB/s
#   dump-compare --json MINE GOLDEN                vs bench/numpy_compare.py MINE GOLDEN (the same
#     metrics in float64, one process)                       target: >= 10 x its MB/s
#   dump-compare -j1 (one worker)                 no target: the share of the default -j
#   dump-compare --alg without KL divergence      no target: the metric with a second pass
#   peak RSS of dump-compare on a 0.5 GB and a 2 GB pair of trees of 10 000 tensors each
#     target: flat (bounded by the pairs in flight, not by the bytes); and, for information, on
#     a 0.5 GB pair of 2 500 tensors (what the rows themselves cost)
# and dump-compare and NumPy must pair the same tensors and agree on every metric.
#
#   bench/compare_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds the built tools (default: build/release, else build-release); nothing is built
# here. Environment: BENCH_TENSORS (10000), BENCH_BYTES (2000000000: payload bytes of each big
# tree), BENCH_SMALL_BYTES (500000000; the small pairs, for the RSS ratios), BENCH_PERTURB (1e-4:
# mine's relative perturbation), BENCH_RUNS (3; the fastest counts), BENCH_PY_RUNS (as
# BENCH_RUNS), BENCH_JOBS (dump-compare -j for the default contender; default all cores),
# BENCH_TREES (a directory where the four trees are kept and reused when their description has
# not changed; default: generated in the temporary work directory and removed on exit),
# BENCH_TMPDIR (default $TMPDIR or /tmp; needs about 3.1 x BENCH_BYTES free without
# BENCH_TREES), BENCH_STRICT=1 (exit 1 when a target is missed).
set -euo pipefail

bench_name=compare_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

dump_compare=$(find_program_in_build dump-compare)
mkfixture=$(find_program_in_build mkfixture)
[[ -n $dump_compare ]] || die "dump-compare is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"

tensors=${BENCH_TENSORS:-10000}
bytes=${BENCH_BYTES:-2000000000}
small_bytes=${BENCH_SMALL_BYTES:-500000000}
small_tensors=$((tensors * small_bytes / bytes))
((small_tensors > 0)) || small_tensors=1
perturb=${BENCH_PERTURB:-1e-4}
runs=${BENCH_RUNS:-3}
py_runs=${BENCH_PY_RUNS:-$runs}
jobs=()
[[ -n ${BENCH_JOBS:-} ]] && jobs=(-j "$BENCH_JOBS")
cores=$(nproc)

bench_workdir msdt-compare-bench
trees=${BENCH_TREES:-$work/trees}
mkdir -p "$trees"
trees=$(cd "$trees" && pwd)
# dump-compare exits 1 when a row fails: that is its answer, not a failure of the run.
accepts_status() { [[ $1 == *compare* && $2 == 1 ]]; }

# generate NAME TENSORS BYTES [PERTURB]: rank_R/Net/0/ITER trees of float32 .npy (format G, 2.4
# names), the same seed on both sides; with PERTURB mine's values are perturbed copies. A tree
# already in $trees with the same description is kept.
generate() {
    local name=$1 count=$2 size=$3 extra=""
    [[ -n ${4:-} ]] && extra=", \"perturb\": { \"seed\": 2, \"relative\": $4 }"
    printf '{ "kind": "generate", "seed": 1, "ranks": 2, "iterations": 5, "tensors": %d,
  "total_bytes": %d, "mix": { "npy": 1 }, "dtype": "float32"%s }\n' "$count" "$size" "$extra" \
        >"$work/$name.json"
    if [[ -d $trees/$name && -f $trees/$name.json ]] && cmp -s "$work/$name.json" "$trees/$name.json"; then
        log "$bench_name: reusing $trees/$name"
        return
    fi
    log "$bench_name: generating $trees/$name ($count tensors, $((size / 1000000)) MB)"
    rm -rf "${trees:?}/$name" "$trees/$name.json"
    "$mkfixture" "$work/$name.json" -o "$trees/$name" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the tree: $(head -n 1 "$work/generate.log")"
    cp "$work/$name.json" "$trees/$name.json"
}

generate golden "$tensors" "$bytes"
generate mine "$tensors" "$bytes" "$perturb"
generate golden-small "$tensors" "$small_bytes"
generate mine-small "$tensors" "$small_bytes" "$perturb"
generate golden-few "$small_tensors" "$small_bytes"
generate mine-few "$small_tensors" "$small_bytes" "$perturb"
mine=$trees/mine golden=$trees/golden

tree_bytes() { find "$@" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.0f", s }'; }
both_bytes=$(tree_bytes "$mine" "$golden")
small_both_bytes=$(tree_bytes "$trees/mine-small" "$trees/golden-small")
few_both_bytes=$(tree_bytes "$trees/mine-few" "$trees/golden-few")
files=$(find "$mine" -name '*.npy' | wc -l)

declare -A best_wall best_cpu peak_rss broken
cold_paths=("$mine" "$golden")  # what measure evicts for a cold run

no_kl=0,1,2,3,5,6,7,8,9
# shellcheck disable=SC2016 # expanded by the inner shell
cat_cmd=(sh -c 'find "$1" "$2" -type f -exec cat {} + >/dev/null' sh "$mine" "$golden")
# compare_cmd MINE GOLDEN [-j N]: dump-compare --json, its rows to /dev/null.
# shellcheck disable=SC2016
compare_cmd=(sh -c 'tool=$1 m=$2 g=$3; shift 3; "$tool" "$@" --json "$m" "$g" >/dev/null' sh "$dump_compare")

log "$bench_name: reading both trees once so that every contender starts from the same page cache"
warm_cache "$mine"
warm_cache "$golden"
log "$bench_name: warm: cat, dump-compare (-j ${BENCH_JOBS:-$cores}), -j1 and without KL ($runs runs each)"
measure cat 0 "$runs" "${cat_cmd[@]}"
measure compare 0 "$runs" "${compare_cmd[@]}" "$mine" "$golden" "${jobs[@]}"
measure compare1 0 "$runs" "${compare_cmd[@]}" "$mine" "$golden" -j 1
# For information: without KullbackLeiblerDivergence (msaccucmp metric 4), the one metric that
# takes a second pass over each pair and the one NumPy does not compute.
measure comparenokl 0 "$runs" "${compare_cmd[@]}" "$mine" "$golden" "${jobs[@]}" --alg "$no_kl"
log "$bench_name: warm: numpy_compare.py ($py_runs runs)"
measure numpy 0 "$py_runs" "$python" "$repo/bench/numpy_compare.py" "$mine" "$golden"
cp "$work/numpy.out" "$work/numpy.rows" 2>/dev/null || true
log "$bench_name: cold: cat and dump-compare ($runs runs each, every file evicted before each)"
measure coldcat 1 "$runs" "${cat_cmd[@]}"
measure coldcompare 1 "$runs" "${compare_cmd[@]}" "$mine" "$golden" "${jobs[@]}"
log "$bench_name: peak memory on the small pairs of trees"
for name in small few; do
    warm_cache "$trees/mine-$name"
    warm_cache "$trees/golden-$name"
    measure "${name}compare" 0 "$runs" "${compare_cmd[@]}" "$trees/mine-$name" "$trees/golden-$name" "${jobs[@]}"
done

# Both paired the same tensors and computed the same numbers (a check that the comparison is
# fair, not a timing): dump-compare's JSON rows against numpy_compare.py's lines.
log "$bench_name: checking that dump-compare and NumPy agree"
"$dump_compare" --json "$mine" "$golden" >"$work/compare.rows" 2>"$work/compare.err" || true
agreement=$("$python" - "$work/compare.rows" "$work/numpy.rows" "$mine" <<'EOF'
import json, math, os, sys
rows, numpy_rows, mine = sys.argv[1], sys.argv[2], sys.argv[3]
# numpy_compare.py's columns after the path, in its order, as dump-compare's JSON names them.
names = ["cosine_similarity", "max_absolute_error", "mean_absolute_error", "root_mean_square_error",
         "max_relative_error", "mean_relative_error", "accumulated_relative_error",
         "relative_euclidean_distance", "my_mean", "my_std", "my_nan", "my_pos_inf", "my_neg_inf",
         "golden_mean", "golden_std", "golden_nan", "golden_pos_inf", "golden_neg_inf",
         "kl_divergence", "euc_dist", "max_relative_err", "one_thousandth_err_ratio",
         "five_thousandths_err_ratio", "max_diff", "min_diff", "mean_diff", "l2norm_diff"]
# Metrics that are differences of nearly equal numbers (KL of two close distributions, the
# statistics' differences) are compared against the size of what was subtracted, not their own.
floor = {"kl_divergence": 1e-6, "max_diff": 1e-3, "min_diff": 1e-3, "mean_diff": 1e-3,
         "l2norm_diff": 1e-3}
ref = {}
try:
    for line in open(numpy_rows):
        f = line.rstrip("\n").split("\t")
        if len(f) == len(names) + 1:
            ref[f[0]] = [float(v) for v in f[1:]]
except OSError:
    pass
seen = 0
worst = {n: 0.0 for n in names}
missing = 0
for line in open(rows):
    r = json.loads(line)
    if "header" in r or r.get("verdict") == "unmatched":
        continue
    key = os.path.relpath(r["my_file"], mine)
    if key not in ref:
        missing += 1
        continue
    seen += 1
    for n, want in zip(names, ref[key]):
        got = r.get(n)
        got = float("nan") if got is None else float(got)
        if math.isnan(got) and math.isnan(want):
            continue
        scale = max(abs(want), floor.get(n, 1e-300))
        worst[n] = max(worst[n], abs(got - want) / scale if scale > 1e-300 or want != 0 else abs(got))
# NumPy prints 10 significant digits: agreement to 1e-8 is all the text can show.
bad = [n for n, v in worst.items() if not v <= 1e-8]
print(f"{seen} {len(ref)} {missing} {max(worst.values()):.1e} {','.join(bad) or '-'}")
EOF
)
read -r agree_rows numpy_pairs agree_missing agree_worst agree_bad <<<"$agreement"

# --- report ------------------------------------------------------------------------------------
mbs() { awk -v b="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "inf" }'; }
ok() {
    local key
    for key in "$@"; do [[ -z ${broken[$key]:-} && -n ${best_wall[$key]:-} ]] || return 1; done
}

echo
echo "msdt dump-compare benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $cores cores"
echo "trees: mine and golden, $files float32 .npy files each, $(gb "$both_bytes") GB together" \
    "(2 ranks x 5 iterations, generated by mkfixture, mine perturbed by $perturb relative);" \
    "small pairs $(gb "$small_both_bytes") GB together ($tensors tensors) and" \
    "$(gb "$few_both_bytes") GB together ($small_tensors tensors)"
echo
printf '%-50s %8s %8s %8s %9s\n' "command (bytes of both trees)" "best s" "MB/s" "cpu s" "peak RSS"
row() { # KEY BYTES LABEL
    if ! ok "$1"; then
        printf '%-50s %8s\n' "$3" failed
        return
    fi
    printf '%-50s %8s %8s %8s %6s MB\n' "$3" "${best_wall[$1]}" "$(mbs "$2" "${best_wall[$1]}")" \
        "${best_cpu[$1]}" "${peak_rss[$1]}"
}
row cat "$both_bytes" "find MINE GOLDEN -exec cat (warm)"
row compare "$both_bytes" "dump-compare --json (-j ${BENCH_JOBS:-$cores}, warm)"
row compare1 "$both_bytes" "dump-compare --json -j1 (warm)"
row comparenokl "$both_bytes" "dump-compare --json --alg $no_kl (warm)"
row numpy "$both_bytes" "numpy_compare.py (warm)"
row coldcat "$both_bytes" "find MINE GOLDEN -exec cat (cold)"
row coldcompare "$both_bytes" "dump-compare --json (-j ${BENCH_JOBS:-$cores}, cold)"
row smallcompare "$small_both_bytes" "dump-compare --json, small pair (warm)"
row fewcompare "$few_both_bytes" "dump-compare --json, small pair, fewer tensors"

missed=0
echo
printf '%-48s %-36s %-8s %s\n' target measured wanted result
target() { # NAME KEY REF WANT: REF's time / KEY's time against WANT
    local name=$1 key=$2 ref=$3 want=$4 share result
    if ! ok "$key" "$ref"; then
        printf '%-48s %-36s %-8s %s\n' "$name" "command failed" ">= $want" n/a
        return
    fi
    share=$(ratio "${best_wall[$ref]}" "${best_wall[$key]}")
    result=$(verdict "$share" ">=" "$want")
    [[ $result == MISS ]] && missed=1
    printf '%-48s %-36s %-8s %s\n' "$name" "${best_wall[$ref]} s / ${best_wall[$key]} s = $share" ">= $want" "$result"
}
target "dump-compare MB/s / cat MB/s, warm" compare cat 0.5
target "dump-compare MB/s / cat MB/s, cold" coldcompare coldcat 0.5
target "dump-compare speed / NumPy speed" compare numpy 10
if ok compare1 compare numpy; then
    printf '%-48s %-36s %-8s %s\n' "  -j1: speed / NumPy speed (info)" \
        "${best_wall[numpy]} s / ${best_wall[compare1]} s = $(ratio "${best_wall[numpy]}" "${best_wall[compare1]}")" "-" "-"
    printf '%-48s %-36s %-8s %s\n' "  -j1 time / default -j time (info)" \
        "${best_wall[compare1]} s / ${best_wall[compare]} s = $(ratio "${best_wall[compare1]}" "${best_wall[compare]}")" "-" "-"
fi
if ok comparenokl numpy; then
    printf '%-48s %-36s %-8s %s\n' "  without KL: speed / NumPy speed (info)" \
        "${best_wall[numpy]} s / ${best_wall[comparenokl]} s = $(ratio "${best_wall[numpy]}" "${best_wall[comparenokl]}")" "-" "-"
fi
if ok compare smallcompare; then
    growth=$(ratio "${peak_rss[compare]}" "${peak_rss[smallcompare]}")
    result=$(flat "${peak_rss[smallcompare]}" "${peak_rss[compare]}")
    [[ $result == MISS ]] && missed=1
    printf '%-48s %-36s %-8s %s\n' "dump-compare peak RSS, small -> big pair" \
        "${peak_rss[smallcompare]} -> ${peak_rss[compare]} MB (x$growth)" "flat" "$result"
fi
if ok fewcompare smallcompare; then
    printf '%-48s %-36s %-8s %s\n' "  peak RSS, fewer -> as many tensors (info)" \
        "${peak_rss[fewcompare]} -> ${peak_rss[smallcompare]} MB (x$(ratio "${peak_rss[smallcompare]}" "${peak_rss[fewcompare]}"))" "-" "-"
fi
same=MISS
[[ ${agree_rows:-0} == "$files" && ${numpy_pairs:-0} == "$files" && ${agree_missing:-1} == 0 &&
    ${agree_bad:-x} == - ]] && same=PASS
printf '%-48s %-36s %-8s %s\n' "same pairs and metrics as NumPy" \
    "${agree_rows:-0}/${numpy_pairs:-0} rows, max rel. diff ${agree_worst:-n/a}" "<= 1e-8" "$same"
[[ ${agree_bad:-} == - || -z ${agree_bad:-} ]] || echo "  metrics that disagree: $agree_bad"
echo "(ratios are best-of-$runs wall-clock times from this run; 'flat' allows 25 % or 64 MB of growth)"

if ((failed)) || [[ -n ${broken[*]:-} ]]; then
    echo "$bench_name: some commands failed; their numbers are not meaningful" >&2
    exit 1
fi
if [[ $same != PASS ]]; then
    echo "$bench_name: dump-compare and NumPy disagree" >&2
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && ((missed)); then
    exit 1
fi
exit 0
