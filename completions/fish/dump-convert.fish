# fish completion for dump-convert (msdt). Installed in share/fish/vendor_completions.d.
# Options follow msaccucmp convert, including the single-dash long option -out.

complete -c dump-convert -f
complete -c dump-convert -s d -l dump_file -r -F -d 'Input: a file, a comma-separated list or a directory'
complete -c dump-convert -o out -l output -x -a '(__fish_complete_directories)' -d 'Output directory (- for stdout)'
complete -c dump-convert -s f -l format -x -a 'NCHW ND NHWC HWCN NCDHW FRACTAL_Z' -d 'Host format for device-format tensors'
complete -c dump-convert -s s -l shape -x -d 'Target shape N,C,H,W (only with -f)'
complete -c dump-convert -s t -l type -x -a 'npy bin msnpy' -d 'Output type (default npy)'
complete -c dump-convert -s o -l output_tensor -x -d 'Convert only output IDX (only with -f)'
complete -c dump-convert -s i -l input_tensor -x -d 'Convert only input IDX (only with -f)'
complete -c dump-convert -s v -x -a '1 2' -d 'Dump version, for msaccucmp compatibility'
complete -c dump-convert -l bf16 -x -a 'float32 raw' -d 'How bfloat16 is written (default float32)'
complete -c dump-convert -s j -l jobs -x -d 'Parallel workers (default: all cores)'
complete -c dump-convert -l skip-existing -d 'Leave an output that is newer than its source'
complete -c dump-convert -l no-progress -d 'Do not draw the progress bar'
complete -c dump-convert -s h -l help -d 'Print the usage and exit'
complete -c dump-convert -l version -d 'Print the version and exit'
