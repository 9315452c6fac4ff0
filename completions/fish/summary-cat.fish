# fish completion for summary-cat (msdt). Installed in share/fish/vendor_completions.d.

# --kind takes a comma-separated list: offer each kind after what is already typed.
function __summary_cat_kinds
    set -l head (string replace -r '^--kind=' '' -- (commandline -ct) | string replace -r '[^,]*$' '')
    for kind in scalar image histogram tensor landscape text audio lineage explain
        printf '%s%s\n' "$head" $kind
    end
end

# --plot, --plot-histograms, --plot-tensors: the PNG file to write (.png files, and directories to
# reach one).
function __summary_cat_png
    __fish_complete_suffix .png | string match -ri -- '^.*(?:\.png|/)$'
end

# Positional arguments are summary or tfevents files, run directories, or - for standard input.
complete -c summary-cat -F
complete -c summary-cat -l tags -d 'One line per tag: kind, steps, first and last step and value'
complete -c summary-cat -l scalars -d 'Scalar rows: tag,step,wall_time (unit: seconds),value'
complete -c summary-cat -l tag -x -d 'Only tags matching this RE2 regex (searched)'
complete -c summary-cat -l kind -x -a '(__summary_cat_kinds)' -d 'Only these kinds, comma-separated'
complete -c summary-cat -l steps -x -d 'Only steps A-B (A-, -B, or one step)'
complete -c summary-cat -l runs -d 'Each directory argument holds runs (a run column is added)'
complete -c summary-cat -l csv -d 'Print CSV (RFC 4180) with a header line'
complete -c summary-cat -l json -d 'Print JSON Lines'
complete -c summary-cat -l no-header -d 'Leave out the header line of text, TSV and CSV output'
complete -c summary-cat -l export -x -a '(__fish_complete_directories)' -d 'Write scalar.csv, image/, histogram/, tensor/, graph, lineage here'
complete -c summary-cat -l plot -x -a '(__summary_cat_png)' -d 'Draw the selected scalars as line charts into this PNG file'
complete -c summary-cat -l overlay -d '--plot: every tag in one panel'
complete -c summary-cat -l smooth -x -d "--plot: exponential smoothing weight in [0, 1) (TensorBoard's)"
complete -c summary-cat -l log -d '--plot: logarithmic value axis'
complete -c summary-cat -l plot-histograms -x -a '(__summary_cat_png)' -d 'Draw the selected histograms over steps into this PNG file'
complete -c summary-cat -l heat -d '--plot-histograms: a heat strip instead of ridgelines'
complete -c summary-cat -l plot-tensors -x -a '(__summary_cat_png)' -d 'Draw the last step of each rank-2 tensor as a heatmap (PNG)'
complete -c summary-cat -l width -x -d 'Plot panel width in pixels (200-4000, default 640)'
complete -c summary-cat -l height -x -d 'Plot panel height in pixels (150-4000, default 400)'
complete -c summary-cat -s f -l follow -d 'Keep reading as the files grow and new files appear'
complete -c summary-cat -l no-crc -d 'Do not verify record CRCs (checked only when decoding fails)'
complete -c summary-cat -l strict -d 'A truncated record at the end is an error'
complete -c summary-cat -s j -l jobs -x -d 'Threads checking and decoding records (default: all cores)'
complete -c summary-cat -l max-record -x -d 'Refuse records longer than this many bytes (default 2147483647)'
complete -c summary-cat -s h -l help -d 'Print the usage and exit'
complete -c summary-cat -l version -d 'Print the version and exit'
