#!/usr/bin/env bash
# Whole-command benchmark of ir-to-dot on generated graphs of 1 000, 10 000 and 100 000 nodes, as
# .ir text and as graph protobuf (.pb), with `cat FILE > /dev/null` as the reference in the same
# run (see bench/README.md):
#   ir-to-dot --max-nodes 0 FILE -o OUT.dot   and   ir-to-dot --stats FILE
#   time grows linearly                        target: 100k time / 10k time <= 12
#   the 100 000-node file converts             target: < 0.5 s
#   peak memory                                target: < 20 x the file size (100 000 nodes)
#
#   bench/ir_bench.sh [BUILD_DIR]
#
# BUILD_DIR holds the built tools (default: build/release, else build-release); nothing is built
# here. Environment: BENCH_SIZES ("1000 10000 100000"), BENCH_RUNS (3; the fastest counts),
# BENCH_CPU (0: the core every command is pinned to with taskset), BENCH_MKFIXTURE (another
# mkfixture, e.g. of a newer build), BENCH_TMPDIR (default $TMPDIR or /tmp; needs about 100 MB),
# BENCH_STRICT=1 (exit 1 when a target is missed).
set -euo pipefail

bench_name=ir_bench
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
bench_build "${1:-}"

ir_to_dot=$(find_program_in_build ir-to-dot)
mkfixture=${BENCH_MKFIXTURE:-$(find_program_in_build mkfixture)}
[[ -n $ir_to_dot ]] || die "ir-to-dot is not built in $build"
[[ -n $mkfixture && -x $mkfixture ]] || die "mkfixture is not built in $build"

read -r -a sizes <<<"${BENCH_SIZES:-1000 10000 100000}"
runs=${BENCH_RUNS:-3}
core=${BENCH_CPU:-0}
# One core, so that the figures do not depend on what else runs on the machine's other cores.
pin=()
if command -v taskset >/dev/null; then
    pin=(taskset -c "$core")
else
    log "$bench_name: taskset not found; commands are not pinned to one core"
fi

bench_workdir msdt-ir-bench

# generate NODES KEY OUT: a generated network (tests/mkfixture/README.md, "Generated graphs") as
# .ir text (KEY ir) or as the ModelProto MindSpore writes for ms_output_*.pb (KEY graph_proto).
generate() {
    local nodes=$1 key=$2 out=$3 model=""
    [[ $key == graph_proto ]] && model='"model": true, '
    printf '{ "kind": "file", "%s": { %s"style": "C", "version": "2.3",
  "generate": { "nodes": %d, "seed": 1 } } }\n' "$key" "$model" "$nodes" >"$work/generate.json"
    "$mkfixture" "$work/generate.json" -o "$out" >"$work/generate.log" 2>&1 ||
        die "mkfixture cannot generate the graph: $(head -n 1 "$work/generate.log")"
}

declare -A best_wall best_cpu peak_rss file_bytes broken
# measure KEY COMMAND...: BENCH_RUNS runs; the fastest wall time (with its CPU time) and the
# largest peak RSS are kept under KEY. The wall time is taken here in microseconds: GNU time's
# 10 ms steps cannot time cat or a 1 000-node graph. A failed command marks KEY broken.
measure() {
    local key=$1 i before=$failed start
    shift
    for ((i = 0; i < runs; i++)); do
        failed=0
        sync  # run syncs too: done here, it stays out of the timing
        start=$EPOCHREALTIME
        run "$key" "${pin[@]}" "$@"
        wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
        if ((failed)); then
            broken[$key]=1
            failed=1
            break
        fi
        failed=$before
        keep_best "$key" "$wall"
    done
}

for n in "${sizes[@]}"; do
    log "$bench_name: generating $n nodes (.ir and .pb)"
    generate "$n" ir "$work/g$n.ir"
    generate "$n" graph_proto "$work/g$n.pb"
done
# Every command starts from the same page cache.
cat "$work"/g*.ir "$work"/g*.pb >/dev/null

for n in "${sizes[@]}"; do
    for ext in ir pb; do
        file=$work/g$n.$ext
        file_bytes[$n.$ext]=$(stat -c %s "$file")
        log "$bench_name: $n nodes, .$ext ($(awk -v b="${file_bytes[$n.$ext]}" 'BEGIN { printf "%.1f", b / 1e6 }') MB)"
        measure "cat.$n.$ext" sh -c 'cat "$1" >/dev/null' sh "$file"
        measure "dot.$n.$ext" "$ir_to_dot" --max-nodes 0 "$file" -o "$work/out.dot"
        measure "stats.$n.$ext" "$ir_to_dot" --stats "$file"
        rm -f "$work/out.dot"
    done
done

# --- report ---
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
rate() { awk -v b="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", b / 1e6 / t; else print "inf" }'; }
# ok KEY...: every KEY ran without failing.
ok() {
    local key
    for key in "$@"; do [[ -z ${broken[$key]:-} && -n ${best_wall[$key]:-} ]] || return 1; done
}
per_file() { awk -v r="$1" -v b="$2" 'BEGIN { printf "%.1f", r * 1048576 / b }'; }

echo
printf '%-8s %-4s %8s  %-40s %7s %9s %7s %9s %9s\n' nodes file "file MB" command "best s" "MB/s" "cpu s" "peak RSS" "RSS/file"
for n in "${sizes[@]}"; do
    for ext in ir pb; do
        bytes=${file_bytes[$n.$ext]}
        for what in cat dot stats; do
            key=$what.$n.$ext
            case $what in
            cat) label="cat FILE > /dev/null" ;;
            dot) label="ir-to-dot --max-nodes 0 FILE -o OUT.dot" ;;
            stats) label="ir-to-dot --stats FILE" ;;
            esac
            if [[ -n ${broken[$key]:-} ]]; then
                printf '%-8s %-4s %8s  %-40s %7s\n' "$n" ".$ext" "$(mb "$bytes")" "$label" failed
                continue
            fi
            printf '%-8s %-4s %8s  %-40s %7s %9s %7s %6s MB %9s\n' "$n" ".$ext" "$(mb "$bytes")" \
                "$label" "${best_wall[$key]}" "$(rate "$bytes" "${best_wall[$key]}")" \
                "${best_cpu[$key]}" "${peak_rss[$key]}" "$(per_file "${peak_rss[$key]}" "$bytes")"
        done
    done
done

# Targets over the largest size (100 000 by default) and the size ten times smaller.
largest=${sizes[-1]}
smaller=""
for n in "${sizes[@]}"; do
    ((n * 10 == largest)) && smaller=$n
done
missed=0
echo
printf '%-50s %-28s %-10s %s\n' target measured wanted result
for ext in ir pb; do
    for what in dot stats; do
        key=$what.$largest.$ext
        if [[ -z $smaller ]]; then
            growth=n/a result=n/a measured="no size $((largest / 10))"
        elif ! ok "$key" "$what.$smaller.$ext"; then
            result=n/a measured="command failed"
        else
            small=${best_wall[$what.$smaller.$ext]}
            growth=$(ratio "${best_wall[$key]}" "$small")
            result=$(verdict "$growth" "<=" 12)
            measured="${best_wall[$key]} s / $small s = $growth"
        fi
        [[ $result == MISS ]] && missed=1
        printf '%-50s %-28s %-10s %s\n' "$what .$ext: time $largest / time $((largest / 10)) nodes" \
            "$measured" "<= 12" "$result"
    done
done
for ext in ir pb; do
    key=dot.$largest.$ext
    if ! ok "$key"; then
        printf '%-50s %-28s %-10s %s\n' "dot .$ext: $largest nodes converted" "command failed" "< 0.5 s" n/a
        continue
    fi
    result=$(awk -v t="${best_wall[$key]}" 'BEGIN { print (t < 0.5) ? "PASS" : "MISS" }')
    [[ $result == MISS ]] && missed=1
    printf '%-50s %-28s %-10s %s\n' "dot .$ext: $largest nodes converted" "${best_wall[$key]} s" "< 0.5 s" "$result"
done
for ext in ir pb; do
    for what in dot stats; do
        key=$what.$largest.$ext
        if ! ok "$key"; then
            printf '%-50s %-28s %-10s %s\n' "$what .$ext: peak RSS / file size, $largest nodes" \
                "command failed" "< 20" n/a
            continue
        fi
        times=$(per_file "${peak_rss[$key]}" "${file_bytes[$largest.$ext]}")
        result=$(awk -v x="$times" 'BEGIN { print (x < 20) ? "PASS" : "MISS" }')
        [[ $result == MISS ]] && missed=1
        printf '%-50s %-28s %-10s %s\n' "$what .$ext: peak RSS / file size, $largest nodes" \
            "${peak_rss[$key]} MB / $(mb "${file_bytes[$largest.$ext]}") MB = $times" "< 20" "$result"
    done
done

if ((failed)); then
    exit 1
fi
if [[ ${BENCH_STRICT:-0} == 1 ]] && ((missed)); then
    exit 1
fi
exit 0
