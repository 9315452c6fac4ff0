#!/usr/bin/env bash
# Whole-command benchmark of the statistics kernel on one core (issue 25 §4):
#   dump-parse --stats -j1 over BENCH_FILES float32 tensors of BENCH_MB MB each (default 8 x 64 MB)
#   against, in the same run on the same files:
#     cat FILES > /dev/null        the page cache copied once: what reading the bytes costs
#     sum_floor FILES              the files mapped as dump-parse maps them and summed in the
#                                  plainest float loop: the floor of any one-core statistics pass
#     bench/numpy_stats.py TREE    the same statistics in NumPy
#   target: dump-parse --stats -j1 >= 6 GB/s per core (floor 4), bytes / (user + system CPU s)
#
#   bench/stats_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds dump-parse and sum_floor (default: build/release, else build-release); nothing is
# built here. Environment: BENCH_FILES (8), BENCH_MB (64), BENCH_RUNS (5; the fastest counts),
# BENCH_TMPDIR (default /dev/shm: tmpfs, so that no disk is measured), BENCH_NUMPY (1; 0 skips
# NumPy, which takes a while), BENCH_BASELINE (another dump-parse, e.g. one built from main,
# measured in the same run as "baseline"), BENCH_STRICT=1 (exit 1 when the target is missed).
#
# The tensors are float32 normal(0, 100) values (like bench/tensor_bench), written by NumPy as
# format A raw `.bin` files in a 1.1 sync tree, which both dump-parse and numpy_stats.py read.
set -euo pipefail

bench_name=stats_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

dump_parse=$(find_program_in_build dump-parse)
sum_floor=$(find_program_in_build sum_floor)
[[ -n $dump_parse ]] || die "dump-parse is not built in $build"
[[ -n $sum_floor ]] || die "sum_floor is not built in $build"

files=${BENCH_FILES:-8}
mb=${BENCH_MB:-64}
runs=${BENCH_RUNS:-5}
export BENCH_TMPDIR=${BENCH_TMPDIR:-/dev/shm}
bench_workdir msdt-stats-bench

tree=$work/net/device_0/iteration_0
mkdir -p "$tree"
log "writing $files float32 tensors of $mb MB in $tree"
"$python" - "$tree" "$files" "$mb" <<'PY'
import sys
import numpy as np
tree, files, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
count = mb * (1 << 20) // 4
for i in range(files):
    values = (np.random.default_rng(i).standard_normal(count, dtype=np.float32) * 100)
    values.tofile(f"{tree}/Default--op{i}_output_0_shape_{count}_Float32_DefaultFormat.bin")
PY
mapfile -t inputs < <(find "$tree" -type f -name '*.bin' | sort)
total=$(cat "${inputs[@]}" | wc -c)

declare -A best_wall best_cpu peak_rss
contenders=(cat sum_floor stats)
baseline=${BENCH_BASELINE:-}
[[ -z $baseline || -x $baseline ]] || die "BENCH_BASELINE '$baseline' is not an executable"
[[ -n $baseline ]] && contenders+=(baseline)
[[ ${BENCH_NUMPY:-1} == 1 ]] && contenders+=(numpy_stats)
declare -A command_of=(
    [cat]="cat FILES > /dev/null"
    [sum_floor]="sum_floor FILES"
    [stats]="dump-parse --stats -j1 TREE"
    [baseline]="baseline dump-parse --stats -j1"
    [numpy_stats]="numpy_stats.py TREE"
)
for ((round = 0; round < runs; ++round)); do
    for name in "${contenders[@]}"; do
        case $name in
            cat) run "$name" sh -c 'cat "$@" >/dev/null' sh "${inputs[@]}" ;;
            sum_floor) run "$name" "$sum_floor" "${inputs[@]}" ;;
            stats) run "$name" "$dump_parse" --stats -j1 "$work/net" ;;
            baseline) run "$name" "$baseline" --stats -j1 "$work/net" ;;
            numpy_stats) ((round < 2)) || continue; run "$name" "$python" bench/numpy_stats.py "$work/net" ;;
        esac
        keep_best "$name" "$wall"
    done
done
((failed == 0)) || die "a command failed"
rows=$(($(grep -c . "$work/stats.out") - 1))  # and the header line
((rows == files)) || die "dump-parse --stats printed $rows lines for $files tensors"

printf '%s, %s MB float32 in %s (%s), best of %s runs\n\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')" \
    "$((total / 1000000))" "$BENCH_TMPDIR" "$(nproc) cores" "$runs"
printf '%-32s %8s %8s %10s %10s %9s\n' command "wall s" "cpu s" "GB/s wall" "GB/s cpu" "peak RSS"
for name in "${contenders[@]}"; do
    printf '%-32s %8s %8s %10s %10s %6s MB\n' "${command_of[$name]}" "${best_wall[$name]}" \
        "${best_cpu[$name]}" "$(ratio "$(gb "$total")" "${best_wall[$name]}")" \
        "$(ratio "$(gb "$total")" "${best_cpu[$name]}")" "${peak_rss[$name]}"
done
per_core=$(ratio "$(gb "$total")" "${best_cpu[stats]}")
printf '\n%-44s %-10s %-8s %s\n' target measured wanted result
printf '%-44s %-10s %-8s %s\n' "dump-parse --stats -j1 GB/s per core (cpu)" "$per_core" ">= 6" "$(verdict "$per_core" ">=" 6)"
printf '%-44s %-10s %-8s %s\n' "  its share of sum_floor's speed (cpu)" "$(ratio "${best_cpu[sum_floor]}" "${best_cpu[stats]}")" "-" "-"
if [[ -n ${best_cpu[baseline]:-} ]]; then
    printf '%-44s %-10s %-8s %s\n' "  times the baseline's speed (cpu)" "$(ratio "${best_cpu[baseline]}" "${best_cpu[stats]}")" "-" "-"
fi
if [[ -n ${best_wall[numpy_stats]:-} ]]; then
    printf '%-44s %-10s %-8s %s\n' "  times NumPy's speed (wall)" "$(ratio "${best_wall[numpy_stats]}" "${best_wall[stats]}")" "-" "-"
fi
if [[ ${BENCH_STRICT:-0} == 1 && $(verdict "$per_core" ">=" 6) != PASS ]]; then exit 1; fi
exit 0
