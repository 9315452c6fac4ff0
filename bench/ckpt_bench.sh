#!/usr/bin/env bash
# Whole-command benchmark of ckpt-inspect on generated checkpoints (tests/mkfixture/README.md,
# "Generated checkpoints"): A, a 2 GB .ckpt of 2 000 float32 parameters, B the same file with every
# element perturbed, and two smaller pairs with the same 2 000 parameters; the references are
# measured in the same run (see bench/README.md):
#   ckpt-inspect A > /dev/null (listing)  on 2 GB and on a 2 MB checkpoint of the same 2 000
#     parameters, warm and cold                 target: the same time (listing reads no tensor
#                                               bytes), peak RSS flat; cold, the MB read from disk
#   ckpt-inspect --diff A B > /dev/null   vs cat A B > /dev/null, warm (both files in the page
#     cache) and cold (both evicted first with posix_fadvise(DONTNEED), as compare_bench.sh does)
#                                               target: >= 0.5 of cat's MB/s
#   ckpt-inspect --diff A B               vs bench/numpy_ckpt_diff.py A B (the .ckpt parsed by
#     hand in Python, numpy.frombuffer, the same metrics in float64)   target: >= 10 x its speed
#   ckpt-inspect --diff -j1               no target: the share of the default -j
#   ckpt-inspect --stats A                no target: the statistics of every parameter
#   peak RSS of --diff on a 0.5 GB and a 2 GB pair of 2 000 parameters   target: flat
# and ckpt-inspect and NumPy must pair the same parameters and agree on every metric.
#
#   bench/ckpt_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds the built ckpt-inspect and mkfixture (default: build/release, else
# build-release); nothing is built here. Environment: BENCH_PARAMS (2000), BENCH_BYTES
# (2000000000: tensor bytes of each big checkpoint), BENCH_MID_BYTES (500000000: the pair for the
# --diff RSS ratio), BENCH_SMALL_BYTES (2000000: the small-tensor checkpoint for listing),
# BENCH_PERTURB (1e-4: B's relative perturbation), BENCH_RUNS (3; the fastest counts),
# BENCH_LIST_RUNS (10: listing runs), BENCH_PY_RUNS (as BENCH_RUNS), BENCH_JOBS (ckpt-inspect -j
# of the default contender; default all cores), BENCH_CKPTS (a directory where the checkpoints are
# kept and reused when their description has not changed; default: generated in the temporary
# work directory and removed on exit), BENCH_TMPDIR (default $TMPDIR or /tmp; needs about
# 2.6 x BENCH_BYTES free without BENCH_CKPTS), BENCH_STRICT=1 (exit 1 when a target is missed).
set -euo pipefail

bench_name=ckpt_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

ckpt_inspect=$(find_program_in_build ckpt-inspect)
mkfixture=$(find_program_in_build mkfixture)
[[ -n $ckpt_inspect ]] || die "ckpt-inspect is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"

params=${BENCH_PARAMS:-2000}
bytes=${BENCH_BYTES:-2000000000}
mid_bytes=${BENCH_MID_BYTES:-500000000}
small_bytes=${BENCH_SMALL_BYTES:-2000000}
perturb=${BENCH_PERTURB:-1e-4}
runs=${BENCH_RUNS:-3}
list_runs=${BENCH_LIST_RUNS:-10}
py_runs=${BENCH_PY_RUNS:-$runs}
jobs=()
[[ -n ${BENCH_JOBS:-} ]] && jobs=(-j "$BENCH_JOBS")
cores=$(nproc)

bench_workdir msdt-ckpt-bench
ckpts=${BENCH_CKPTS:-$work/ckpts}
mkdir -p "$ckpts"
ckpts=$(cd "$ckpts" && pwd)
# ckpt-inspect --diff exits 1 when a parameter differs (every one does here): that is its answer.
accepts_status() { [[ $1 == *diff* && $2 == 1 ]]; }

# generate NAME BYTES [PERTURB]: a .ckpt of $params float32 parameters with BYTES tensor bytes
# (the same seed, so the same names and shapes for every size); with PERTURB every element is a
# perturbed copy. A checkpoint already in $ckpts with the same description is kept.
generate() {
    local name=$1 size=$2 extra=""
    [[ -n ${3:-} ]] && extra=", \"perturb\": { \"seed\": 2, \"relative\": $3 }"
    printf '{ "kind": "generate_ckpt", "parameters": %d, "total_bytes": %d, "seed": 1%s }\n' \
        "$params" "$size" "$extra" >"$work/$name.json"
    if [[ -f $ckpts/$name.ckpt && -f $ckpts/$name.json ]] && cmp -s "$work/$name.json" "$ckpts/$name.json"; then
        log "$bench_name: reusing $ckpts/$name.ckpt"
        return
    fi
    log "$bench_name: generating $ckpts/$name.ckpt ($params parameters, $((size / 1000000)) MB)"
    rm -f "$ckpts/$name.ckpt" "$ckpts/$name.json"
    "$mkfixture" "$work/$name.json" -o "$ckpts/$name.ckpt" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the checkpoint: $(head -n 1 "$work/generate.log")"
    cp "$work/$name.json" "$ckpts/$name.json"
}

generate a "$bytes"
generate b "$bytes" "$perturb"
generate mid-a "$mid_bytes"
generate mid-b "$mid_bytes" "$perturb"
generate small "$small_bytes"
a=$ckpts/a.ckpt b=$ckpts/b.ckpt small=$ckpts/small.ckpt

size_of() { stat -c %s "$1"; }
both_bytes=$(($(size_of "$a") + $(size_of "$b")))
mid_both_bytes=$(($(size_of "$ckpts/mid-a.ckpt") + $(size_of "$ckpts/mid-b.ckpt")))

declare -A best_wall best_cpu peak_rss broken cold_read
# shellcheck disable=SC2016 # expanded by the inner shell
cat_cmd=(sh -c 'cat "$1" "$2" >/dev/null' sh "$a" "$b")
# inspect_cmd ARGS...: ckpt-inspect ARGS, its output to /dev/null.
# shellcheck disable=SC2016 # expanded by the inner shell
inspect_cmd=(sh -c 'tool=$1; shift; "$tool" "$@" >/dev/null' sh "$ckpt_inspect")

# cold_bytes KEY FILE ARGS...: evicts FILE, runs ckpt-inspect ARGS FILE once and keeps the bytes
# it read from the disk (GNU time's %I: file system inputs, 512-byte blocks) in cold_read[KEY].
cold_bytes() {
    local key=$1 file=$2 blocks
    shift 2
    evict "$file"
    /usr/bin/time -f '%I' -o "$work/inputs" "$ckpt_inspect" "$@" "$file" >/dev/null 2>&1 || true
    blocks=$(tail -n 1 "$work/inputs")
    cold_read[$key]=$(awk -v b="$blocks" 'BEGIN { printf "%.1f", b * 512 / 1e6 }')
}

log "$bench_name: listing: the 2 GB and the small checkpoint, warm and cold ($list_runs runs each)"
warm_cache "$small"
measure listsmall 0 "$list_runs" "${inspect_cmd[@]}" "$small"
warm_cache "$a"
measure listbig 0 "$list_runs" "${inspect_cmd[@]}" "$a"
cold_paths=("$small")
measure coldlistsmall 1 "$list_runs" "${inspect_cmd[@]}" "$small"
cold_paths=("$a")
measure coldlistbig 1 "$list_runs" "${inspect_cmd[@]}" "$a"
cold_bytes coldlistsmall "$small"
cold_bytes coldlistbig "$a"

log "$bench_name: reading both checkpoints once so that every contender starts from the same page cache"
warm_cache "$a"
warm_cache "$b"
log "$bench_name: warm: cat, ckpt-inspect --diff (-j ${BENCH_JOBS:-$cores}), -j1 and --stats ($runs runs each)"
measure cat 0 "$runs" "${cat_cmd[@]}"
measure diff 0 "$runs" "${inspect_cmd[@]}" --diff "${jobs[@]}" "$a" "$b"
measure diff1 0 "$runs" "${inspect_cmd[@]}" --diff -j 1 "$a" "$b"
measure stats 0 "$runs" "${inspect_cmd[@]}" --stats "${jobs[@]}" "$a"
log "$bench_name: warm: numpy_ckpt_diff.py ($py_runs runs)"
measure numpy 0 "$py_runs" "$python" "$repo/bench/numpy_ckpt_diff.py" "$a" "$b"
cp "$work/numpy.out" "$work/numpy.rows" 2>/dev/null || true
log "$bench_name: cold: cat and ckpt-inspect --diff ($runs runs each, both files evicted before each)"
cold_paths=("$a" "$b")
measure coldcat 1 "$runs" "${cat_cmd[@]}"
measure colddiff 1 "$runs" "${inspect_cmd[@]}" --diff "${jobs[@]}" "$a" "$b"
log "$bench_name: peak memory of --diff on the 0.5 GB pair"
warm_cache "$ckpts/mid-a.ckpt"
warm_cache "$ckpts/mid-b.ckpt"
measure middiff 0 "$runs" "${inspect_cmd[@]}" --diff "${jobs[@]}" "$ckpts/mid-a.ckpt" "$ckpts/mid-b.ckpt"

# Both paired the same parameters and computed the same numbers (a check that the comparison is
# fair, not a timing): ckpt-inspect's JSON rows against numpy_ckpt_diff.py's lines.
log "$bench_name: checking that ckpt-inspect and NumPy agree"
"$ckpt_inspect" --diff --json "$a" "$b" >"$work/diff.rows" 2>"$work/diff.err" || true
agreement=$("$python" - "$work/diff.rows" "$work/numpy.rows" <<'EOF'
import json, math, sys
rows, numpy_rows = sys.argv[1], sys.argv[2]
names = ["l2", "cosine", "max_abs", "rel_l2"]
ref = {}
try:
    for line in open(numpy_rows):
        f = line.rstrip("\n").split("\t")
        if len(f) == 6:
            ref[f[0]] = (f[1], [float(v) if v else None for v in f[2:]])
except OSError:
    pass
seen = missing = status_differs = 0
worst = {n: 0.0 for n in names}
bad = set()
for line in open(rows):
    r = json.loads(line)
    if "name" not in r:
        continue
    if r["name"] not in ref:
        missing += 1
        continue
    seen += 1
    status, want_all = ref[r["name"]]
    if r.get("status") != status:
        status_differs += 1
    for n, want in zip(names, want_all):
        got = r.get(n)
        if got is None or want is None:
            if (got is None) != (want is None):
                bad.add(n)
            continue
        got = float(got)
        diff = abs(got - want) / max(abs(want), 1e-300) if want != 0 else abs(got)
        worst[n] = max(worst[n], diff)
# NumPy prints 10 significant digits: agreement to 1e-8 is all the text can show.
bad |= {n for n, v in worst.items() if not v <= 1e-8}
print(f"{seen} {len(ref)} {missing} {status_differs} {max(worst.values()):.1e} {','.join(sorted(bad)) or '-'}")
EOF
)
read -r agree_rows numpy_params agree_missing agree_status agree_worst agree_bad <<<"$agreement"

# --- report ------------------------------------------------------------------------------------
mbs() { awk -v b="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "inf" }'; }
ok() {
    local key
    for key in "$@"; do [[ -z ${broken[$key]:-} && -n ${best_wall[$key]:-} ]] || return 1; done
}

echo
echo "msdt ckpt-inspect benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $cores cores"
echo "checkpoints: A and B, $params float32 parameters each, $(gb "$both_bytes") GB together" \
    "(generated by mkfixture, B perturbed by $perturb relative); a pair of" \
    "$(gb "$mid_both_bytes") GB together and a $(size_of "$small")-byte checkpoint, $params" \
    "parameters each"
echo
printf '%-50s %8s %8s %8s %9s\n' "command (bytes read)" "best s" "MB/s" "cpu s" "peak RSS"
row() { # KEY BYTES LABEL
    if ! ok "$1"; then
        printf '%-50s %8s\n' "$3" failed
        return
    fi
    local speed=-
    [[ $2 != - ]] && speed=$(mbs "$2" "${best_wall[$1]}")
    printf '%-50s %8s %8s %8s %6s MB\n' "$3" "${best_wall[$1]}" "$speed" "${best_cpu[$1]}" "${peak_rss[$1]}"
}
row listsmall - "ckpt-inspect SMALL (listing, warm)"
row listbig - "ckpt-inspect A (listing, 2 GB, warm)"
row coldlistsmall - "ckpt-inspect SMALL (listing, cold)"
row coldlistbig - "ckpt-inspect A (listing, 2 GB, cold)"
row cat "$both_bytes" "cat A B (warm)"
row diff "$both_bytes" "ckpt-inspect --diff A B (-j ${BENCH_JOBS:-$cores}, warm)"
row diff1 "$both_bytes" "ckpt-inspect --diff -j1 A B (warm)"
row stats "$(size_of "$a")" "ckpt-inspect --stats A (warm)"
row numpy "$both_bytes" "numpy_ckpt_diff.py A B (warm)"
row coldcat "$both_bytes" "cat A B (cold)"
row colddiff "$both_bytes" "ckpt-inspect --diff A B (-j ${BENCH_JOBS:-$cores}, cold)"
row middiff "$mid_both_bytes" "ckpt-inspect --diff, 0.5 GB pair (warm)"
echo "cold listing read from disk: ${cold_read[coldlistsmall]:-n/a} MB of the small checkpoint" \
    "($(size_of "$small") bytes), ${cold_read[coldlistbig]:-n/a} MB of A ($(gb "$(size_of "$a")") GB)"

missed=0
echo
printf '%-48s %-38s %-8s %s\n' target measured wanted result
target() { # NAME KEY REF WANT: REF's time / KEY's time against WANT
    local name=$1 key=$2 ref=$3 want=$4 share result
    if ! ok "$key" "$ref"; then
        printf '%-48s %-38s %-8s %s\n' "$name" "command failed" ">= $want" n/a
        return
    fi
    share=$(ratio "${best_wall[$ref]}" "${best_wall[$key]}")
    result=$(verdict "$share" ">=" "$want")
    [[ $result == MISS ]] && missed=1
    printf '%-48s %-38s %-8s %s\n' "$name" "${best_wall[$ref]} s / ${best_wall[$key]} s = $share" ">= $want" "$result"
}
# The same time: at most 25 % or 10 ms more for the 2 GB checkpoint than for the small one.
same_time() { # NAME BIG SMALL
    local name=$1 big=$2 small_key=$3 result
    if ! ok "$big" "$small_key"; then
        printf '%-48s %-38s %-8s %s\n' "$name" "command failed" "same" n/a
        return
    fi
    result=$(awk -v s="${best_wall[$small_key]}" -v b="${best_wall[$big]}" \
        'BEGIN { print (b <= s * 1.25 || b - s <= 0.010) ? "PASS" : "MISS" }')
    [[ $result == MISS ]] && missed=1
    printf '%-48s %-38s %-8s %s\n' "$name" \
        "${best_wall[$small_key]} s -> ${best_wall[$big]} s (x$(ratio "${best_wall[$big]}" "${best_wall[$small_key]}"))" "same" "$result"
}
peak_flat() { # NAME BIG SMALL
    local name=$1 big=$2 small_key=$3 result
    if ! ok "$big" "$small_key"; then
        printf '%-48s %-38s %-8s %s\n' "$name" "command failed" "flat" n/a
        return
    fi
    result=$(flat "${peak_rss[$small_key]}" "${peak_rss[$big]}")
    [[ $result == MISS ]] && missed=1
    printf '%-48s %-38s %-8s %s\n' "$name" \
        "${peak_rss[$small_key]} -> ${peak_rss[$big]} MB (x$(ratio "${peak_rss[$big]}" "${peak_rss[$small_key]}"))" "flat" "$result"
}
same_time "listing time, small -> 2 GB, warm" listbig listsmall
same_time "listing time, small -> 2 GB, cold" coldlistbig coldlistsmall
peak_flat "listing peak RSS, small -> 2 GB" listbig listsmall
target "--diff MB/s / cat MB/s, warm" diff cat 0.5
target "--diff MB/s / cat MB/s, cold" colddiff coldcat 0.5
target "--diff speed / NumPy speed" diff numpy 10
if ok diff1 diff numpy; then
    printf '%-48s %-38s %-8s %s\n' "  -j1: speed / NumPy speed (info)" \
        "${best_wall[numpy]} s / ${best_wall[diff1]} s = $(ratio "${best_wall[numpy]}" "${best_wall[diff1]}")" "-" "-"
    printf '%-48s %-38s %-8s %s\n' "  -j1 time / default -j time (info)" \
        "${best_wall[diff1]} s / ${best_wall[diff]} s = $(ratio "${best_wall[diff1]}" "${best_wall[diff]}")" "-" "-"
fi
peak_flat "--diff peak RSS, 0.5 GB -> 2 GB pair" diff middiff
same=MISS
[[ ${agree_rows:-0} == "$params" && ${numpy_params:-0} == "$params" && ${agree_missing:-1} == 0 &&
    ${agree_status:-1} == 0 && ${agree_bad:-x} == - ]] && same=PASS
printf '%-48s %-38s %-8s %s\n' "same parameters and metrics as NumPy" \
    "${agree_rows:-0}/${numpy_params:-0} rows, max rel. diff ${agree_worst:-n/a}" "<= 1e-8" "$same"
[[ ${agree_bad:-} == - || -z ${agree_bad:-} ]] || echo "  metrics that disagree: $agree_bad"
[[ ${agree_status:-0} == 0 ]] || echo "  rows whose status differs: $agree_status"
echo "(ratios are best-of-$runs wall-clock times from this run, listing best-of-$list_runs;" \
    "'flat' allows 25 % or 64 MB of growth, 'same' 25 % or 10 ms)"

if ((failed)) || [[ -n ${broken[*]:-} ]]; then
    echo "$bench_name: some commands failed; their numbers are not meaningful" >&2
    exit 1
fi
if [[ $same != PASS ]]; then
    echo "$bench_name: ckpt-inspect and NumPy disagree" >&2
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && ((missed)); then
    exit 1
fi
exit 0
