# fish completion for watch-check (msdt). Installed in share/fish/vendor_completions.d.

# --condition: the seventeen MindInsight ids with their abbreviations, then the backend names.
function __watch_check_conditions
    printf '%s\t%s\n' \
        weight_initialization 'WI, INIT 14' weight_overflow 'WO, GENERAL_OVERFLOW 13' \
        weight_too_large 'WL, TOO_LARGE 15' weight_too_small 'WS, TOO_SMALL 16' \
        gradient_vanishing 'GV, TOO_SMALL 16' gradient_too_large 'GL, TOO_LARGE 15' \
        gradient_exploding 'GE, GENERAL_OVERFLOW 13' tensor_overflow 'TO, GENERAL_OVERFLOW 13' \
        operator_overflow 'OO, IS_OVERFLOW 2' tensor_too_large 'TL, TOO_LARGE 15' \
        tensor_too_small 'TS, TOO_SMALL 16' tensor_all_zero 'TZ, ALL_ZERO 17' \
        weight_not_changed 'WNC, NOT_CHANGED 20' weight_change_too_large 'WCL, CHANGE_TOO_LARGE 18' \
        weight_change_too_small 'WCS, CHANGE_TOO_SMALL 19' activation_range 'AR, RANGE 21' \
        tensor_range 'TR, RANGE 21' \
        WI weight_initialization WO weight_overflow WL weight_too_large WS weight_too_small \
        GV gradient_vanishing GL gradient_too_large GE gradient_exploding TO tensor_overflow \
        OO operator_overflow TL tensor_too_large TS tensor_too_small TZ tensor_all_zero \
        WNC weight_not_changed WCL weight_change_too_large WCS weight_change_too_small \
        AR activation_range TR tensor_range \
        HAS_NAN 0 HAS_INF 1 IS_OVERFLOW 2 MAX_GT 3 MAX_LT 4 MIN_GT 5 MIN_LT 6 MAX_MIN_GT 7 \
        MAX_MIN_LT 8 MEAN_GT 9 MEAN_LT 10 SD_GT 11 SD_LT 12 GENERAL_OVERFLOW 13 INIT 14 \
        TOO_LARGE 15 TOO_SMALL 16 ALL_ZERO 17 CHANGE_TOO_LARGE 18 CHANGE_TOO_SMALL 19 \
        NOT_CHANGED 20 RANGE 21
end

# --param NAME=VALUE: every parameter name, followed by "=".
function __watch_check_params
    for name in abs_mean_gt abs_mean_lt abs_mean_update_ratio_gt abs_mean_update_ratio_lt atol \
            epsilon equal_nan max_gt max_lt max_min_gt max_min_lt mean_gt mean_lt min_gt min_lt \
            param range_end_inclusive range_percentage_gt range_percentage_lt \
            range_start_inclusive rtol zero_percentage_ge
        printf '%s=\n' $name
    end
end

# Positional arguments are dump directories.
complete -c watch-check -f -a '(__fish_complete_directories)'
complete -c watch-check -s w -l watch -r -F -d 'Watch file (JSON); - for standard input'
complete -c watch-check -l condition -x -a '(__watch_check_conditions)' -d 'One condition: id, abbreviation, backend name or number'
complete -c watch-check -l param -x -a '(__watch_check_params)' -d 'NAME=VALUE for --condition (repeatable)'
complete -c watch-check -l node -x -d 'Watch this node (repeatable); default all'
complete -c watch-check -l node-regex -x -d 'Watch nodes matching this RE2 regex'
complete -c watch-check -l io -x -a 'input output any' -d 'Watch inputs, outputs or any (default any)'
complete -c watch-check -l recommended -d "MindInsight's recommended watchpoints"
complete -c watch-check -l iteration -x -d 'Check only these iterations (e.g. 0,3,5-8 or all)'
complete -c watch-check -l rank -x -d 'Check only these ranks (e.g. 0-3 or all)'
complete -c watch-check -l graph -x -d 'Check only these graph ids (or all)'
complete -c watch-check -l json -d 'JSON Lines; with --summary one JSON document'
complete -c watch-check -l csv -d 'CSV (RFC 4180) with a header line'
complete -c watch-check -l no-header -d 'No header line in text, TSV and CSV'
complete -c watch-check -l all -d 'Also the records that neither hit nor errored'
complete -c watch-check -l junit -r -F -d 'Write a JUnit XML report to this file'
complete -c watch-check -l max-hits -x -d 'Stop after this many hits (0: no limit)'
complete -c watch-check -l summary -d 'Counts per iteration and tensors beyond the float16 range'
complete -c watch-check -l fp16-limit -x -d '|min| or |max| above this is out of range (65500)'
complete -c watch-check -l fail-on -x -a 'hit error any never' -d 'What makes the exit status 1'
complete -c watch-check -s j -l jobs -x -d 'Parallel workers (default: all cores)'
complete -c watch-check -l list-conditions -d 'List every condition with its parameters and exit'
complete -c watch-check -s h -l help -d 'Print the usage and exit'
complete -c watch-check -l version -d 'Print the version and exit'
