# fish completion for ir-to-dot (msdt). Installed in share/fish/vendor_completions.d.

# -o: a directory when an input is a directory or there are several inputs, else any path (the
# DOT file to write, or a directory for inputs still to come).
function __ir_to_dot_output
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l inputs 0
    set -l directory 0
    set -l skip 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $token
            case -o --output --scope-depth --focus --radius --max-nodes --rankdir -j --jobs
                set skip 1
            case '-?*'
            case '*'
                set inputs (math $inputs + 1)
                test -d $token; and set directory 1
        end
    end
    if test $directory -eq 1 -o $inputs -gt 1
        __fish_complete_directories (commandline -ct)
    else
        __fish_complete_path (commandline -ct)
    end
end

# Positional arguments are graph files (recognised by content, so any name) or directories.
complete -c ir-to-dot -F
complete -c ir-to-dot -s o -l output -x -a '(__ir_to_dot_output)' -d 'DOT file (one input) or directory (directory or several inputs)'
complete -c ir-to-dot -l no-types -d 'Do not label edges with dtype and shape'
complete -c ir-to-dot -l no-monads -d "Hide U/IO monads, UpdateState, Load's monad input, Depend's second input"
complete -c ir-to-dot -l scope-depth -x -d 'Collapse scopes deeper than N into one box per scope'
complete -c ir-to-dot -l focus -x -d 'Keep nodes matching this RE2 regex and --radius hops around them'
complete -c ir-to-dot -l radius -x -d 'Hops kept around --focus nodes (default 2)'
complete -c ir-to-dot -l max-nodes -x -d 'Refuse to draw more nodes than this (default 20000; 0: no limit)'
complete -c ir-to-dot -l rankdir -x -a 'TB LR BT RL' -d 'Layout direction (default TB)'
complete -c ir-to-dot -l whole -d "analyze_fail files: draw every graph, not only the failure's neighbourhood"
complete -c ir-to-dot -l json -d 'The graph model (or --stats, --why) as JSON'
complete -c ir-to-dot -l stats -d 'Node counts by op type, graph and scope'
complete -c ir-to-dot -l why -d 'Explain an analyze_fail file in one screen'
complete -c ir-to-dot -l diff -d 'A B: draw B with what changed since A'
complete -c ir-to-dot -s j -l jobs -x -d 'Parallel workers for directories (default: all cores)'
complete -c ir-to-dot -s h -l help -d 'Print the usage and exit'
complete -c ir-to-dot -l version -d 'Print the version and exit'
