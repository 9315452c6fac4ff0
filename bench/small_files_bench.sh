#!/usr/bin/env bash
# Small files: dump-convert against cp -r on many tiny tensors, in the same run on the same tree
# (see bench/README.md, "small_files_bench.sh"):
#   dump-convert -d TREE -out OUT   vs  cp -r TREE OUT      target: >= 1.0 of cp's speed
# on BENCH_FILES (10000) format A .bin tensors of exactly BENCH_FILE_BYTES (4096) bytes in one
# directory, on tmpfs (/dev/shm) unless BENCH_TMPDIR says otherwise, so that the cost per file
# (system calls, user time) is measured rather than the disk. Also runs small_files_floor (the
# system calls alone, one thread: plain create as cp does, and the atomic ways) and counts the
# system calls of one run of cp and of dump-convert with strace -c -f, per file.
#
#   bench/small_files_bench.sh [BUILD_DIR]
#
# Environment: BENCH_FILES (10000), BENCH_FILE_BYTES (4096), BENCH_RUNS (5; the contenders run in
# turn, the fastest and the median count), BENCH_TMPDIR (/dev/shm when writable, else $TMPDIR or
# /tmp), BENCH_STRICT=1 (exit 1 when the target is missed).
#
# Two ratios are printed: of wall-clock times (what a user waits for) and of CPU times (user +
# system: what the work costs, which a machine shared with other jobs does not distort).
set -euo pipefail

bench_name=small_files_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

dump_convert=$(find_program_in_build dump-convert)
mkfixture=$(find_program_in_build mkfixture)
floor=$(find_program_in_build small_files_floor)
[[ -n $dump_convert ]] || die "dump-convert is not built in $build"
[[ -n $mkfixture ]] || die "mkfixture is not built in $build"

files=${BENCH_FILES:-10000}
file_bytes=${BENCH_FILE_BYTES:-4096}
runs=${BENCH_RUNS:-5}
if [[ -z ${BENCH_TMPDIR:-} && -d /dev/shm && -w /dev/shm ]]; then BENCH_TMPDIR=/dev/shm; fi
bench_workdir msdt-small-files

tree=$work/tree
out=$work/out
log "generating $files .bin tensors of $file_bytes bytes under $tree"
# One rank and iteration: every tensor in one directory, as the issue measured it (and as the
# floor program reads). A total of 1 byte scales every drawn size below min_bytes, so each tensor
# has exactly min_bytes (tests/mkfixture/README.md, "Generated trees").
printf '{ "kind": "generate", "seed": 1, "ranks": 1, "iterations": 1, "tensors": %d,
  "total_bytes": 1, "mix": { "bin": 1 }, "min_bytes": %d }\n' \
    "$files" "$file_bytes" >"$work/generate.json"
"$mkfixture" "$work/generate.json" -o "$tree" >"$work/generate.log" 2>&1 ||
    die "mkfixture cannot generate the tree: $(head -n 1 "$work/generate.log")"
count=$(find "$tree" -type f | wc -l)
bytes=$(du -sb "$tree" | cut -f1)
leaf=$(dirname "$(find "$tree" -type f | head -n 1)")
warm_cache "$tree"

contenders=(cp convert convert_j1)
declare -A labels=(
    [cp]="cp -r TREE OUT"
    [convert]="dump-convert -d TREE -out OUT"
    [convert_j1]="dump-convert ... -j 1"
    [floor_plain]="floor: create + write (cp)"
    [floor_rename]="floor: temporary + renameat"
    [floor_stat]="floor: fstatat + temporary + rename"
    [floor_tmpfile]="floor: O_TMPFILE + linkat"
)
if [[ -n $floor ]]; then contenders+=(floor_plain floor_rename floor_stat floor_tmpfile); fi
declare -A best_wall best_cpu peak_rss best_user best_sys all_walls all_cpus
for ((round = 1; round <= runs; round++)); do
    for name in "${contenders[@]}"; do
        rm -rf "$out"
        case $name in
            cp) run "$name" cp -r "$tree" "$out" ;;
            convert) run "$name" "$dump_convert" -d "$tree" -out "$out" --no-progress ;;
            convert_j1) run "$name" "$dump_convert" -d "$tree" -out "$out" --no-progress -j 1 ;;
            floor_*) run "$name" "$floor" "${name#floor_}" "$leaf" "$out" ;;
        esac
        read -r _ u s _ < <(tail -n 1 "$work/time")
        if [[ -z ${best_wall[$name]:-} ]] || awk -v a="$wall" -v b="${best_wall[$name]}" 'BEGIN { exit !(a < b) }'; then
            best_user[$name]=$u
            best_sys[$name]=$s
        fi
        keep_best "$name" "$wall"
        all_walls[$name]+="$wall "
        all_cpus[$name]+="$cpu "
        if [[ $name == convert && $round == 1 ]]; then outputs=$(find "$out" -name '*.npy' | wc -l); fi
    done
done
rm -rf "$out"
# shellcheck disable=SC2086
median() { printf '%s\n' $1 | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# System calls of one run each, per input file.
declare -A calls
if command -v strace >/dev/null; then
    for name in cp convert; do
        rm -rf "$out"
        if [[ $name == cp ]]; then
            strace -f -c -o "$work/strace-$name.txt" cp -r "$tree" "$out" >/dev/null 2>&1 || true
        else
            strace -f -c -o "$work/strace-$name.txt" "$dump_convert" -d "$tree" -out "$out" \
                --no-progress >/dev/null 2>&1 || true
        fi
        calls[$name]=$(awk '$NF == "total" { print $4 }' "$work/strace-$name.txt")
    done
    rm -rf "$out"
fi
per_file() { awk -v c="${1:-}" -v n="$count" 'BEGIN { if (c == "") print "n/a"; else printf "%.1f", c / n }'; }

echo
echo "msdt small files, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), on $(df --output=fstype "$work" | tail -n 1)"
echo "$count .bin files of $file_bytes bytes ($bytes bytes) in one directory, $runs runs of each in turn"
echo
printf '%-38s %8s %9s %8s %8s %10s %8s %10s\n' command "best s" "median s" "user s" "sys s" "median cpu" "peak MB" calls/file
for name in "${contenders[@]}"; do
    printf '%-38s %8s %9s %8s %8s %10s %8s %10s\n' "${labels[$name]}" "${best_wall[$name]}" \
        "$(median "${all_walls[$name]}")" "${best_user[$name]}" "${best_sys[$name]}" \
        "$(median "${all_cpus[$name]}")" "${peak_rss[$name]}" "$(per_file "${calls[$name]:-}")"
done
echo "(outputs: ${outputs:-0} .npy; user and sys are those of the fastest run; floors run in one thread)"
for name in convert cp; do
    [[ -f $work/strace-$name.txt ]] || continue
    echo
    echo "${labels[$name]}: system calls per file (strace -c -f, one run, those of 0.05 or more):"
    awk -v n="$count" '$NF != "total" && $1 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ {
        if ($4 / n >= 0.05) printf "  %-18s %6.2f\n", $NF, $4 / n }' \
        "$work/strace-$name.txt" | sort -k2 -g -r
done
wall_ratio=$(ratio "${best_wall[cp]}" "${best_wall[convert]}")
median_ratio=$(ratio "$(median "${all_walls[cp]}")" "$(median "${all_walls[convert]}")")
cpu_ratio=$(ratio "$(median "${all_cpus[cp]}")" "$(median "${all_cpus[convert_j1]}")")
echo
printf '%-50s %-26s %-8s %s\n' target measured wanted result
printf '%-50s %-26s %-8s %s\n' "dump-convert speed / cp -r speed (wall, best)" "$wall_ratio (median $median_ratio)" ">= 1.0" \
    "$(verdict "$wall_ratio" ">=" 1.0)"
printf '%-50s %-26s %-8s %s\n' "cp -r CPU / dump-convert -j 1 CPU (median)" "$cpu_ratio" "(info)" "-"
if [[ -n $floor ]]; then
    printf '%-50s %-26s %-8s %s\n' "floor: plain create / atomic rename (CPU, median)" \
        "$(ratio "$(median "${all_cpus[floor_plain]}")" "$(median "${all_cpus[floor_rename]}")")" "(info)" "-"
fi
if ((failed)); then
    echo "small_files_bench: some commands failed; their numbers are not meaningful" >&2
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 && $(verdict "$wall_ratio" ">=" 1.0) != PASS ]]; then exit 1; fi
exit 0
