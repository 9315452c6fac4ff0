# fish completion for dump-compare (msdt). Installed in share/fish/vendor_completions.d.

# Comma-separated lists (--only, --fail-on, --alg): offer each item after what is already typed.
function __dump_compare_list
    set -l head (string replace -r '^--[a-z-]+=' '' -- (commandline -ct) | string replace -r '[^,]*$' '')
    for item in $argv
        printf '%s%s\n' "$head" $item
    end
end

# --threshold METRIC=WARN,ERROR: every metric name, followed by "=" (blanks, '_' and '-' are
# ignored in names, so "One Thousandth Err Ratio" is written OneThousandthErrRatio).
function __dump_compare_metrics
    for name in CosineSimilarity MaxAbsoluteError AccumulatedRelativeError \
            RelativeEuclideanDistance KullbackLeiblerDivergence MeanAbsoluteError \
            RootMeanSquareError MaxRelativeError MeanRelativeError Cosine EucDist MaxAbsErr \
            MaxRelativeErr OneThousandthErrRatio FiveThousandthsErrRatio MaxDiff MinDiff MeanDiff \
            L2normDiff MaxRelativeDiff MinRelativeDiff MeanRelativeDiff L2normRelativeDiff
        printf '%s=\n' $name
    end
end

# --png, --plot: the PNG file to write (.png files, and directories to reach one).
function __dump_compare_png
    __fish_complete_suffix .png | string match -ri -- '^.*(?:\.png|/)$'
end

# Positional arguments are dump trees, directories in them, single files, or - for standard input.
complete -c dump-compare -F
complete -c dump-compare -l rename -r -F -d "CSV of 'my name,golden name' lines"
complete -c dump-compare -l key-task-id -d 'The task id is part of the key (msprobe)'
complete -c dump-compare -l last-only -d 'Compare only the last occurrence of a key (msaccucmp)'
complete -c dump-compare -l exact-names -d 'Compare op names as written (no folding to _)'
complete -c dump-compare -l nan -x -a 'propagate same-positions mask mask-if-same-positions mask-all' -d 'NaN/Inf policy (default propagate)'
complete -c dump-compare -l msaccucmp -d 'Round values to float32 first, as msaccucmp does'
complete -c dump-compare -l alg -l algorithm -x -a '(__dump_compare_list all CosineSimilarity MaxAbsoluteError AccumulatedRelativeError RelativeEuclideanDistance KullbackLeiblerDivergence StandardDeviation MeanAbsoluteError RootMeanSquareError MaxRelativeError MeanRelativeError)' -d 'msaccucmp metrics: all, or indices/names 0-9'
complete -c dump-compare -l max-elements -x -d 'Compare the first N elements (0: all)'
complete -c dump-compare -l preset -x -a 'default msprobe dtype' -d 'Thresholds to start from'
complete -c dump-compare -l threshold -x -a '(__dump_compare_metrics)' -d 'METRIC=WARN,ERROR or METRIC=off (repeatable)'
complete -c dump-compare -l fail-on -x -a '(__dump_compare_list warning error unmatched)' -d 'Also fail (exit 1) on these rows'
complete -c dump-compare -l json -d 'JSON Lines after a header record'
complete -c dump-compare -l csv -d 'CSV (RFC 4180) with a header line'
complete -c dump-compare -l no-header -d 'No header line in text, TSV and CSV'
complete -c dump-compare -l only -x -a '(__dump_compare_list pass warning error unmatched skipped)' -d 'Only rows with these verdicts'
complete -c dump-compare -l format -x -a 'own msaccucmp msprobe' -d 'Output format (default own)'
complete -c dump-compare -l overflow-column -d 'With --format msaccucmp: the OverFlow column'
complete -c dump-compare -s o -l output -r -F -d 'Write rows to this file (a directory for msaccucmp, --detail)'
complete -c dump-compare -l summary -d 'Counts, worst rows, first divergence and the advisor'
complete -c dump-compare -l top -x -d 'Rows in --summary (10) or elements in --detail (20)'
complete -c dump-compare -l detail -x -d 'Every element of one tensor of this op'
complete -c dump-compare -l tensor -x -a 'input:0 output:0' -d 'With --detail: input:N or output:N'
complete -c dump-compare -l occurrence -x -d 'With --detail: which occurrence, from 1'
complete -c dump-compare -l max-line -x -d 'With --detail: lines per CSV file (1000000)'
complete -c dump-compare -l png -x -a '(__dump_compare_png)' -d 'With --detail: a heatmap of |my - golden|'
complete -c dump-compare -l plot -x -a '(__dump_compare_png)' -d 'PNG of cosine and max relative error'
complete -c dump-compare -l rank -x -d 'Only these ranks: 0,3,5-8'
complete -c dump-compare -s j -l jobs -x -d 'Parallel workers (default: all cores)'
complete -c dump-compare -s h -l help -d 'Print the usage and exit'
complete -c dump-compare -l version -d 'Print the version and exit'
