#!/usr/bin/env bash
# Whole-command benchmark of summary-cat on generated MindSpore summary files (mostly scalars,
# a tensor and an image every 100 steps; tests/mkfixture/README.md, "Generated summary files"),
# with the references measured in the same run (see bench/README.md):
#   summary-cat --tags FILE (CRCs checked)    vs cat FILE > /dev/null   target: >= 0.8 of its MB/s
#     measured warm (the file in the page cache) and cold (evicted first with
#     posix_fadvise(DONTNEED): the disk's speed)
#   summary-cat --scalars --json FILE         vs bench/summary_reader.py (pure Python, the spec's
#     framing, no CRC)                        target: >= 20 x its MB/s
#   peak RSS of --tags                        target: flat as the file grows (the largest file
#     needs at most 25 % more than the smallest)
#   crc_floor FILE (bench/crc_floor.cpp)      no target: CRC-32C of every byte on every core, no
#     framing or decoding, the least any checking reader does; its share of cat's speed is how
#     close to cat --tags could come at best on this machine
#
#   bench/summary_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds the built tools (default: build/release, else build-release); nothing is built
# here. Environment: BENCH_SIZES ("250 1000": file sizes in MB; the largest gets the throughput
# targets), BENCH_PY_MB (100: the size the Python reference reads, about 25 s; the summary-cat
# --scalars --json figure it is compared with is taken on the same file), BENCH_RUNS (3; the
# fastest counts), BENCH_JOBS (summary-cat -j; default all cores), BENCH_TMPDIR (default $TMPDIR
# or /tmp; needs the sum of the sizes), BENCH_STRICT=1 (exit 1 when a target is missed).
set -euo pipefail

bench_name=summary_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

summary_cat=$(find_program_in_build summary-cat)
mkfixture=$(find_program_in_build mkfixture)
crc_floor=$(find_program_in_build crc_floor)
[[ -n $summary_cat ]] || die "summary-cat is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"
[[ -n $crc_floor ]] || die "crc_floor is not built in $build (configure with -DMSDT_BUILD_BENCH=ON)"

read -r -a sizes <<<"${BENCH_SIZES:-250 1000}"
py_mb=${BENCH_PY_MB:-100}
runs=${BENCH_RUNS:-3}
jobs=()
[[ -n ${BENCH_JOBS:-} ]] && jobs=(-j "$BENCH_JOBS")

bench_workdir msdt-summary-bench

# generate MB OUT: a summary file of about MB megabytes.
generate() {
    printf '{ "kind": "file", "summary": { "generate": { "bytes": %d, "seed": 1, "tags": 8, "tensor_every": 100, "image_every": 100 } } }\n' \
        "$(($1 * 1000000))" >"$work/generate.json"
    "$mkfixture" "$work/generate.json" -o "$2" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the file: $(head -n 1 "$work/generate.log")"
}

declare -A best_wall best_cpu peak_rss file_bytes broken

for mb in "${sizes[@]}"; do
    file=$work/s$mb.summary_MS
    log "$bench_name: generating $mb MB"
    generate "$mb" "$file"
    file_bytes[$mb]=$(stat -c %s "$file")
    cold_paths=("$file")  # what measure evicts for a cold run
    cat "$file" >/dev/null
    log "$bench_name: $mb MB: cat and --tags, warm"
    measure "cat.$mb" 0 "$runs" sh -c 'cat "$1" >/dev/null' sh "$file"
    measure "tags.$mb" 0 "$runs" "$summary_cat" "${jobs[@]}" --tags "$file"
    measure "floor.$mb" 0 "$runs" "$crc_floor" "$file" ${BENCH_JOBS:-}
    log "$bench_name: $mb MB: cat and --tags, cold"
    measure "coldcat.$mb" 1 "$runs" sh -c 'cat "$1" >/dev/null' sh "$file"
    measure "coldtags.$mb" 1 "$runs" "$summary_cat" "${jobs[@]}" --tags "$file"
    measure "coldfloor.$mb" 1 "$runs" "$crc_floor" "$file" ${BENCH_JOBS:-}
    rm -f "$work"/*.out
    [[ $mb == "${sizes[-1]}" ]] || rm -f "$file"
done

file=$work/py.summary_MS
log "$bench_name: generating $py_mb MB for the Python reference"
generate "$py_mb" "$file"
file_bytes[py]=$(stat -c %s "$file")
cat "$file" >/dev/null
# Both read the file by its name in the current directory, so that both print run "." and the
# same file name.
cd "$work"
measure json 0 "$runs" bash -c '"$1" "${@:3}" --scalars --json "$2" >/dev/null' bash "$summary_cat" \
    py.summary_MS "${jobs[@]}"
log "$bench_name: the Python reader (one run)"
runs_saved=$runs
runs=1
measure python 0 "$runs" sh -c '"$1" "$2" "$3" >/dev/null' sh "$python" "$repo/bench/summary_reader.py" \
    py.summary_MS
runs=$runs_saved
# Both printed the same rows (a check that the comparison is fair, not a timing).
"$summary_cat" --scalars --json py.summary_MS >"$work/json.rows"
"$python" "$repo/bench/summary_reader.py" py.summary_MS >"$work/python.rows"
cmp -s "$work/json.rows" "$work/python.rows" ||
    log "$bench_name: warning: summary-cat and summary_reader.py printed different rows"
rm -f "$work"/*.rows
cd "$repo"

# --- report ---
mbs() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
rate() { awk -v b="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "inf" }'; }
ok() {
    local key
    for key in "$@"; do [[ -z ${broken[$key]:-} && -n ${best_wall[$key]:-} ]] || return 1; done
}

echo
printf '%-9s %-52s %8s %8s %8s %9s\n' "file MB" command "best s" "MB/s" "cpu s" "peak RSS"
row() { # KEY SIZE_KEY LABEL
    if ! ok "$1"; then
        printf '%-9s %-52s %8s\n' "$(mbs "${file_bytes[$2]}")" "$3" failed
        return
    fi
    printf '%-9s %-52s %8s %8s %8s %6s MB\n' "$(mbs "${file_bytes[$2]}")" "$3" "${best_wall[$1]}" \
        "$(rate "${file_bytes[$2]}" "${best_wall[$1]}")" "${best_cpu[$1]}" "${peak_rss[$1]}"
}
for mb in "${sizes[@]}"; do
    row "cat.$mb" "$mb" "cat FILE > /dev/null (warm)"
    row "tags.$mb" "$mb" "summary-cat --tags FILE (warm)"
    row "floor.$mb" "$mb" "crc_floor FILE (warm; CRC only, the floor)"
    row "coldcat.$mb" "$mb" "cat FILE > /dev/null (cold)"
    row "coldtags.$mb" "$mb" "summary-cat --tags FILE (cold)"
    row "coldfloor.$mb" "$mb" "crc_floor FILE (cold; CRC only, the floor)"
done
row json py "summary-cat --scalars --json FILE > /dev/null"
row python py "summary_reader.py FILE > /dev/null"

largest=${sizes[-1]}
smallest=${sizes[0]}
missed=0
echo
printf '%-52s %-30s %-8s %s\n' target measured wanted result
for kind in "" cold; do
    key=${kind}tags.$largest ref=${kind}cat.$largest
    name="--tags MB/s / cat MB/s, ${kind:-warm}, $largest MB"
    if ! ok "$key" "$ref"; then
        printf '%-52s %-30s %-8s %s\n' "$name" "command failed" ">= 0.8" n/a
        continue
    fi
    share=$(ratio "${best_wall[$ref]}" "${best_wall[$key]}")
    result=$(verdict "$share" ">=" 0.8)
    [[ $result == MISS ]] && missed=1
    printf '%-52s %-30s %-8s %s\n' "$name" "${best_wall[$ref]} s / ${best_wall[$key]} s = $share" ">= 0.8" "$result"
    floor=${kind}floor.$largest
    if ok "$floor"; then
        printf '%-52s %-30s %-8s %s\n' "  the floor: crc_floor MB/s / cat MB/s, ${kind:-warm}" \
            "${best_wall[$ref]} s / ${best_wall[$floor]} s = $(ratio "${best_wall[$ref]}" "${best_wall[$floor]}")" "-" "(bound)"
    fi
done
if ok json python; then
    speedup=$(ratio "${best_wall[python]}" "${best_wall[json]}")
    result=$(verdict "$speedup" ">=" 20)
    [[ $result == MISS ]] && missed=1
    printf '%-52s %-30s %-8s %s\n' "--scalars --json speed / Python reader's" \
        "${best_wall[python]} s / ${best_wall[json]} s = $speedup" ">= 20" "$result"
fi
if ok "tags.$largest" "tags.$smallest" && [[ $largest != "$smallest" ]]; then
    growth=$(ratio "${peak_rss[tags.$largest]}" "${peak_rss[tags.$smallest]}")
    result=$(verdict "$growth" "<=" 1.25)
    [[ $result == MISS ]] && missed=1
    printf '%-52s %-30s %-8s %s\n' "--tags peak RSS, $largest MB / $smallest MB" \
        "${peak_rss[tags.$largest]} MB / ${peak_rss[tags.$smallest]} MB = $growth" "<= 1.25" "$result"
fi

if ((failed)); then
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && ((missed)); then
    exit 1
fi
exit 0
