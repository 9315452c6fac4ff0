#!/usr/bin/env bash
# Checks that the man pages, shell completions and the examples of README.md and docs/*.md stay
# in step with the tools.
#
#   check_docs.sh bash-syntax   SOURCE_DIR
#   check_docs.sh bash-complete SOURCE_DIR
#   check_docs.sh zsh-syntax    SOURCE_DIR
#   check_docs.sh fish-syntax   SOURCE_DIR
#   check_docs.sh fish-complete SOURCE_DIR
#   check_docs.sh man           SOURCE_DIR TOOL
#   check_docs.sh options       SOURCE_DIR TOOL [BINARY]
#   check_docs.sh examples      SOURCE_DIR PAGE [TOOLS_DIR MKFIXTURE]
#
# examples: the examples of one page (README.md or docs/NAME.md) against the tools
# (check_examples.py says how): every relative link names a file and heading that exist, every
# option an example gives a tool is one it has, and every
# ```console transcript, run on the data of scripts/demo-data, prints what the page shows.
#
# Exit 0 pass, 1 fail, 77 skipped (a missing shell, groff or tool binary; the reason is printed,
# and ctest reports the test as skipped through SKIP_RETURN_CODE).
set -uo pipefail

tools=(dump-parse dump-convert watch-check ir-to-dot summary-cat rdr-inspect dump-compare ckpt-inspect)
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

skip() {
    echo "SKIP: $*"
    exit 77
}

finish() {
    if ((failures > 0)); then
        echo "$failures check(s) failed" >&2
        exit 1
    fi
    echo "ok"
    exit 0
}

# --- bash ----------------------------------------------------------------------------------------

check_bash_syntax() {
    local src=$1 tool
    for tool in "${tools[@]}"; do
        bash -n "$src/completions/bash/$tool" || fail "bash -n completions/bash/$tool"
    done
    finish
}

# Runs one completion in a fresh bash and prints the candidates, sorted, one per line.
# $1: "plain" (no bash-completion package) or the path of bash_completion to source first.
# $2: completion file, $3: function, $4: the command line typed so far (words split by spaces;
# an empty last word is written as a trailing space).
complete_words() {
    local mode=$1 file=$2 func=$3 line=$4
    (
        cd "$workdir" || exit 1
        # shellcheck disable=SC2016
        bash --norc --noprofile -c '
            mode=$1 file=$2 func=$3 line=$4
            if [[ $mode != plain ]]; then source "$mode" || exit 1; fi
            source "$file" || exit 1
            read -ra COMP_WORDS <<<"$line"
            [[ $line == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE=$line
            COMP_POINT=${#line}
            COMPREPLY=()
            "$func"
            printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$mode" "$file" "$func" "$line"
    )
}

expect_completion() {
    local mode=$1 file=$2 func=$3 line=$4 expected=$5 actual
    actual=$(complete_words "$mode" "$file" "$func" "$line" | paste -sd' ' -)
    if [[ $actual != "$expected" ]]; then
        fail "[$mode] '$line': expected candidates '$expected', got '$actual'"
    fi
}

check_bash_complete() {
    local src=$1
    command -v bash >/dev/null || skip "bash is not installed"
    workdir=$(mktemp -d)
    trap 'rm -rf "$workdir"' EXIT
    mkdir -p "$workdir/rank_0/Net/0/0" "$workdir/out"
    : >"$workdir/rank_0/Net/0/0/Add.Add-op1.0.0.1.output.0.DefaultFormat.npy"
    : >"$workdir/run.log"
    : >"$workdir/watch.json"
    : >"$workdir/loss.png"

    local modes=(plain) bc
    for bc in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
        if [[ -r $bc ]]; then
            modes+=("$bc")
            break
        fi
    done
    if ((${#modes[@]} == 1)); then
        echo "note: bash-completion is not installed; only the plain mode is tested"
    fi

    local p=$src/completions/bash/dump-parse c=$src/completions/bash/dump-convert mode
    local w=$src/completions/bash/watch-check i=$src/completions/bash/ir-to-dot
    local s=$src/completions/bash/summary-cat r=$src/completions/bash/rdr-inspect
    local d=$src/completions/bash/dump-compare k=$src/completions/bash/ckpt-inspect
    for mode in "${modes[@]}"; do
        expect_completion "$mode" "$p" _dump_parse "dump-parse --s" "--show --stats --summary"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --no" "--no-header"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --io o" "output"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --io " "input output"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --dtype float32,bf" "float32,bf16 float32,bfloat16"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --json r" "rank_0 run.log"
        expect_completion "$mode" "$p" _dump_parse "dump-parse --op " ""
        expect_completion "$mode" "$c" _dump_convert "dump-convert --bf" "--bf16"
        expect_completion "$mode" "$c" _dump_convert "dump-convert -t " "bin msnpy npy"
        expect_completion "$mode" "$c" _dump_convert "dump-convert --type m" "msnpy"
        expect_completion "$mode" "$c" _dump_convert "dump-convert -f N" "NCDHW NCHW ND NHWC"
        expect_completion "$mode" "$c" _dump_convert "dump-convert --bf16 " "float32 raw"
        expect_completion "$mode" "$c" _dump_convert "dump-convert -out " "out rank_0"
        expect_completion "$mode" "$c" _dump_convert "dump-convert -d run.log,r" "run.log,rank_0 run.log,run.log"
        expect_completion "$mode" "$c" _dump_convert "dump-convert --skip" "--skip-existing"
        expect_completion "$mode" "$w" _watch_check "watch-check --condition WC" "WCL WCS"
        expect_completion "$mode" "$w" _watch_check "watch-check --condition tensor_r" "tensor_range"
        expect_completion "$mode" "$w" _watch_check "watch-check --condition TL --param " "abs_mean_gt= max_gt= mean_gt= min_gt="
        expect_completion "$mode" "$w" _watch_check "watch-check --condition=WNC --param r" "rtol="
        expect_completion "$mode" "$w" _watch_check "watch-check --io " "any input output"
        expect_completion "$mode" "$w" _watch_check "watch-check --fail-on " "any error hit never"
        expect_completion "$mode" "$w" _watch_check "watch-check -w w" "watch.json"
        expect_completion "$mode" "$w" _watch_check "watch-check --junit r" "rank_0 run.log"
        expect_completion "$mode" "$w" _watch_check "watch-check r" "rank_0"
        expect_completion "$mode" "$w" _watch_check "watch-check --max" "--max-hits"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot --rankdir " "BT LR RL TB"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot --rankdir=L" "LR"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot --no" "--no-monads --no-types"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot --focus " ""
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot r" "rank_0 run.log"
        # -o: any path for one file input, a directory for a directory or several inputs.
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot -o r" "rank_0 run.log"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot rank_0 -o " "out rank_0"
        expect_completion "$mode" "$i" _ir_to_dot "ir-to-dot --focus x run.log watch.json -o " "out rank_0"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --kind " "audio explain histogram image landscape lineage scalar tensor text"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --kind scalar,h" "scalar,histogram"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --kind=t" "tensor text"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --s" "--scalars --smooth --steps --strict"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --plot" "--plot --plot-histograms --plot-tensors"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --no" "--no-crc --no-header"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --tag " ""
        expect_completion "$mode" "$s" _summary_cat "summary-cat --steps " ""
        # Inputs: files and run directories; -f takes no value.
        expect_completion "$mode" "$s" _summary_cat "summary-cat r" "rank_0 run.log"
        expect_completion "$mode" "$s" _summary_cat "summary-cat -f r" "rank_0 run.log"
        # --export: a directory; the plots: .png files and directories.
        expect_completion "$mode" "$s" _summary_cat "summary-cat --export " "out rank_0"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --plot " "loss.png out rank_0"
        expect_completion "$mode" "$s" _summary_cat "summary-cat --plot-histograms=l" "loss.png"
        expect_completion "$mode" "$s" _summary_cat "summary-cat rank_0 --plot-tensors r" "rank_0"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --ti" "--time"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --time " "last"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --time=l" "last"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --e" "--exec-order"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --around " ""
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --graph " ""
        # Inputs: directories only; -o: any path (the file to write).
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect r" "rank_0"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect --memory r" "rank_0"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect -o r" "rank_0 run.log"
        expect_completion "$mode" "$r" _rdr_inspect "rdr-inspect rank_0 --output=r" "rank_0 run.log"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --nan " "mask mask-all mask-if-same-positions propagate same-positions"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --nan=s" "same-positions"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --preset " "default dtype msprobe"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --format m" "msaccucmp msprobe"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --only " "error pass skipped unmatched warning"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --only error,u" "error,unmatched"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --fail-on " "error unmatched warning"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --fail-on=warning,u" "warning,unmatched"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --tensor " "input:0 output:0"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --alg 0,Max" "0,MaxAbsoluteError 0,MaxRelativeError"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --threshold Max" "MaxAbsErr= MaxAbsoluteError= MaxDiff= MaxRelativeDiff= MaxRelativeErr= MaxRelativeError="
        expect_completion "$mode" "$d" _dump_compare "dump-compare --threshold cos=0.9," ""
        expect_completion "$mode" "$d" _dump_compare "dump-compare --detail " ""
        expect_completion "$mode" "$d" _dump_compare "dump-compare --top " ""
        expect_completion "$mode" "$d" _dump_compare "dump-compare --max" "--max-elements --max-line"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --o" "--occurrence --only --output --overflow-column"
        # Inputs: dump trees, directories and single files; --rename and -o: any path; the PNGs:
        # .png files and directories.
        expect_completion "$mode" "$d" _dump_compare "dump-compare r" "rank_0 run.log"
        expect_completion "$mode" "$d" _dump_compare "dump-compare rank_0 r" "rank_0 run.log"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --rename r" "rank_0 run.log"
        expect_completion "$mode" "$d" _dump_compare "dump-compare -o " "loss.png out rank_0 run.log watch.json"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --plot " "loss.png out rank_0"
        expect_completion "$mode" "$d" _dump_compare "dump-compare --detail x --png=l" "loss.png"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --bf16 " "float32 raw"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --bf16=r" "raw"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --t" "--to-safetensors --tolerance --top"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --no" "--no-header"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --name " ""
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --top " ""
        # Inputs: any file (recognised by content); --export: a directory; --to-safetensors: any
        # path (the file to write).
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect r" "rank_0 run.log"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --diff run.log r" "rank_0 run.log"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --export " "out rank_0"
        expect_completion "$mode" "$k" _ckpt_inspect "ckpt-inspect --to-safetensors r" "rank_0 run.log"
    done
    finish
}

# --- zsh and fish --------------------------------------------------------------------------------

check_zsh_syntax() {
    local src=$1 tool
    command -v zsh >/dev/null || skip "zsh is not installed (Debian package zsh)"
    for tool in "${tools[@]}"; do
        zsh -n "$src/completions/zsh/_$tool" || fail "zsh -n completions/zsh/_$tool"
        head -n1 "$src/completions/zsh/_$tool" | grep -qx "#compdef $tool" ||
            fail "completions/zsh/_$tool does not start with '#compdef $tool'"
    done
    finish
}

check_fish_syntax() {
    local src=$1 tool
    command -v fish >/dev/null || skip "fish is not installed (Debian package fish)"
    for tool in "${tools[@]}"; do
        fish --no-execute "$src/completions/fish/$tool.fish" || fail "fish -n completions/fish/$tool.fish"
    done
    finish
}

# expect_fish SOURCE_DIR TOOL "COMMAND LINE" "EXPECTED": the fish completion candidates of the
# command line, sorted and joined by spaces, must be EXPECTED.
expect_fish() {
    local src=$1 tool=$2 line=$3 expected=$4 actual
    actual=$(fish --no-config -c "source $src/completions/fish/$tool.fish
        complete -C'$line'" | cut -f1 | sort | paste -sd' ' -)
    [[ $actual == "$expected" ]] || fail "fish $line: got '$actual'"
}

check_fish_complete() {
    local src=$1
    command -v fish >/dev/null || skip "fish is not installed (Debian package fish)"
    expect_fish "$src" dump-parse "dump-parse --dtype float32,bf" "float32,bf16 float32,bfloat16"
    expect_fish "$src" dump-convert "dump-convert -t " "bin msnpy npy"
    expect_fish "$src" watch-check "watch-check --condition WC" "WCL WCS"
    expect_fish "$src" watch-check "watch-check --fail-on " "any error hit never"
    expect_fish "$src" ir-to-dot "ir-to-dot --rankdir " "BT LR RL TB"
    expect_fish "$src" ir-to-dot "ir-to-dot --no" "--no-monads --no-types"
    expect_fish "$src" summary-cat "summary-cat --kind " "audio explain histogram image landscape lineage scalar tensor text"
    expect_fish "$src" summary-cat "summary-cat --kind scalar,h" "scalar,histogram"
    expect_fish "$src" summary-cat "summary-cat --no" "--no-crc --no-header"
    expect_fish "$src" summary-cat "summary-cat --plot-" "--plot-histograms --plot-tensors"
    expect_fish "$src" rdr-inspect "rdr-inspect --ti" "--time"
    expect_fish "$src" rdr-inspect "rdr-inspect --time " "last"
    expect_fish "$src" dump-compare "dump-compare --nan " "mask mask-all mask-if-same-positions propagate same-positions"
    expect_fish "$src" dump-compare "dump-compare --preset " "default dtype msprobe"
    expect_fish "$src" dump-compare "dump-compare --format " "msaccucmp msprobe own"
    expect_fish "$src" dump-compare "dump-compare --only error,u" "error,unmatched"
    expect_fish "$src" dump-compare "dump-compare --fail-on " "error unmatched warning"
    expect_fish "$src" dump-compare "dump-compare --tensor " "input:0 output:0"
    expect_fish "$src" dump-compare "dump-compare --threshold MaxAbs" "MaxAbsErr= MaxAbsoluteError="
    expect_fish "$src" dump-compare "dump-compare --max-" "--max-elements --max-line"
    expect_fish "$src" ckpt-inspect "ckpt-inspect --bf16 " "float32 raw"
    expect_fish "$src" ckpt-inspect "ckpt-inspect --t" "--to-safetensors --tolerance --top"
    expect_fish "$src" ckpt-inspect "ckpt-inspect --no" "--no-header"
    finish
}

# --- man pages -----------------------------------------------------------------------------------

check_man() {
    local src=$1 tool=$2 page warnings
    page=$src/man/$tool.1
    [[ -r $page ]] || { fail "$page is missing"; finish; }
    command -v groff >/dev/null || skip "groff is not installed (Debian package groff-base)"
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
    if [[ -n $warnings ]]; then
        fail "groff warns about man/$tool.1:"
        echo "$warnings" >&2
    fi
    local section
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        grep -qx "\.SH \"\?$section\"\?" "$page" || fail "man/$tool.1 has no $section section"
    done
    finish
}

# --- options: --help against the man page and the completions ----------------------------------

# Long options (--name) a text mentions, one per line, sorted and unique.
long_options() {
    grep -oE -- '(^|[^A-Za-z0-9_-])--[A-Za-z0-9][A-Za-z0-9_-]*' | sed 's/^[^-]*--/--/' | sort -u
}

# The man page from SYNOPSIS to the end of OPTIONS, with roff's \- turned into -, so that the
# examples (which call other programs) are not taken for options of the tool.
man_option_text() {
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$1" | awk '
        /^\.SH/ { if (in_opts && !/OPTIONS/) exit; if (/SYNOPSIS/) keep = 1; if (/OPTIONS/) in_opts = 1 }
        keep'
}

check_options() {
    local src=$1 tool=$2 binary=${3:-}
    if [[ -z $binary || ! -x $binary ]]; then
        skip "$tool is not built, so its --help cannot be compared with the documentation"
    fi
    local help page=$src/man/$tool.1
    if ! help=$("$binary" --help 2>&1); then
        fail "$tool --help exited with a non-zero status"
    fi

    local help_opts man_opts opt
    help_opts=$(long_options <<<"$help")
    man_opts=$(man_option_text "$page" | long_options)
    [[ -n $help_opts ]] || fail "$tool --help lists no long option"

    local bash_file=$src/completions/bash/$tool zsh_file=$src/completions/zsh/_$tool
    local fish_file=$src/completions/fish/$tool.fish
    for opt in $help_opts; do
        grep -qxF -- "$opt" <<<"$man_opts" || fail "$tool --help has $opt, man/$tool.1 does not"
        grep -qE -- "(^|[^A-Za-z0-9_-])$opt([^A-Za-z0-9_-]|\$)" "$bash_file" ||
            fail "$tool --help has $opt, completions/bash/$tool does not"
        grep -qE -- "(^|[^A-Za-z0-9_-])$opt([^A-Za-z0-9_-]|\$)" "$zsh_file" ||
            fail "$tool --help has $opt, completions/zsh/_$tool does not"
        grep -qE -- "-l ${opt#--}([^A-Za-z0-9_-]|\$)" "$fish_file" ||
            fail "$tool --help has $opt, completions/fish/$tool.fish does not"
    done
    for opt in $man_opts; do
        grep -qxF -- "$opt" <<<"$help_opts" || fail "man/$tool.1 documents $opt, $tool --help does not"
    done
    # Short and single-dash options (-d, -out) the man page documents must be accepted too.
    local short
    for short in $(man_option_text "$page" | grep -oE '^\.(B|BR|TP|OP) -[A-Za-z][A-Za-z]*' |
        awk '{ print $2 }' | sort -u); do
        grep -qE -- "(^|[^A-Za-z0-9_-])$short([^A-Za-z0-9_-]|\$)" <<<"$help" ||
            fail "man/$tool.1 documents $short, $tool --help does not"
    done
    # Every dtype the completions offer must be one the tool accepts (on an empty directory).
    if [[ $tool == dump-parse ]]; then
        local empty name
        empty=$(mktemp -d)
        for name in $(sed -n '/^_msdt_dump_parse_dtypes="/,/"$/p' "$bash_file" | tr -d '"' |
            sed 's/^_msdt_dump_parse_dtypes=//'); do
            "$binary" --dtype "$name" "$empty" >/dev/null 2>&1 ||
                fail "completions offer --dtype $name, $tool rejects it"
        done
        rmdir "$empty"
    fi
    finish
}

# --- examples of README.md and docs/*.md ------------------------------------------------------

check_examples() {
    local src=$1 page=$2 tools_dir=${3:-} mkfixture=${4:-} status
    [[ -r $src/$page ]] || { fail "$page is missing"; finish; }
    if [[ -z $tools_dir || -z $mkfixture || ! -x $mkfixture ]]; then
        skip "the tools or mkfixture are not built, so the examples of $page cannot be run"
    fi
    [[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 is not installed (Debian package python3)"
    /usr/bin/python3 "$src/tests/docs/check_examples.py" options "$src/$page" "$tools_dir"
    status=$?
    ((status == 77)) && exit 77
    ((status == 0)) || failures=$((failures + 1))

    if ! grep -q '^[[:space:]]*```console' "$src/$page"; then
        echo "$page: no console example to run"
        finish
    fi
    local data
    data=$(mktemp -d)
    trap 'rm -rf "$data"' EXIT
    if ! PATH="$(dirname "$mkfixture"):$PATH" "$src/scripts/demo-data" "$data/example" >"$data/log" 2>&1; then
        cat "$data/log" >&2
        fail "scripts/demo-data failed"
        finish
    fi
    /usr/bin/python3 "$src/tests/docs/check_examples.py" run "$src/$page" "$tools_dir" "$data/example"
    status=$?
    ((status == 77)) && exit 77
    ((status == 0)) || failures=$((failures + 1))
    finish
}

command=${1:-}
if [[ -n ${2:-} ]]; then
    # Completion checks run in a temporary directory, so the source directory must be absolute.
    set -- "$1" "$(cd "$2" && pwd)" "${@:3}"
fi
case $command in
    bash-syntax) check_bash_syntax "$2" ;;
    bash-complete) check_bash_complete "$2" ;;
    zsh-syntax) check_zsh_syntax "$2" ;;
    fish-syntax) check_fish_syntax "$2" ;;
    fish-complete) check_fish_complete "$2" ;;
    man) check_man "$2" "$3" ;;
    options) check_options "$2" "$3" "${4:-}" ;;
    examples) check_examples "$2" "$3" "${4:-}" "${5:-}" ;;
    *)
        echo "usage: $0 bash-syntax|bash-complete|zsh-syntax|fish-syntax|fish-complete|man|options|examples SOURCE_DIR [TOOL [BINARY] | PAGE [TOOLS_DIR MKFIXTURE]]" >&2
        exit 2
        ;;
esac
