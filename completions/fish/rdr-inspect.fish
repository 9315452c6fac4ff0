# fish completion for rdr-inspect (msdt). Installed in share/fish/vendor_completions.d.

# Positional arguments are directories: the RDR path (holding rank_N/rdr/), a rank_N or rdr
# directory, or a 1.2-1.3 flat directory.
complete -c rdr-inspect -f -a '(__fish_complete_directories)'
complete -c rdr-inspect -l exec-order -d 'The execution order around the last kernel launched'
complete -c rdr-inspect -l around -x -d '--exec-order: centre on kernels matching this RE2 regex'
complete -c rdr-inspect -l context -x -d '--exec-order: kernels shown each side (default 5)'
complete -c rdr-inspect -l memory -d 'Every buffer of the kernels launched, largest first, overlaps flagged'
complete -c rdr-inspect -l streams -d 'Kernels and events per stream'
complete -c rdr-inspect -l graph -x -d 'A text summary of the graph file of this graph id'
complete -c rdr-inspect -l dot -d '--graph: the graph as Graphviz DOT'
complete -c rdr-inspect -l rank -x -d 'Only these ranks: 0,3,5-8'
complete -c rdr-inspect -l time -x -a 'last' -d 'Only the failure of this timestamp (YYYYMMDDHHMMSS) or last'
complete -c rdr-inspect -l json -d 'One JSON document'
complete -c rdr-inspect -s o -l output -r -F -d 'Write to this file (atomically) instead of standard output'
complete -c rdr-inspect -s j -l jobs -x -d 'Parallel readers (default: all cores)'
complete -c rdr-inspect -s h -l help -d 'Print the usage and exit'
complete -c rdr-inspect -l version -d 'Print the version and exit'
