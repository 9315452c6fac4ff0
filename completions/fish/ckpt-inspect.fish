# fish completion for ckpt-inspect (msdt). Installed in share/fish/vendor_completions.d.

# Positional arguments are checkpoints and models, recognised by their content: any file.
complete -c ckpt-inspect -F
complete -c ckpt-inspect -l info -d 'File kind, version fields, parameter count, CRC, model header'
complete -c ckpt-inspect -l diff -d 'Compare two files parameter by parameter'
complete -c ckpt-inspect -l export -x -a '(__fish_complete_directories)' -d 'Write each parameter as DIR/NAME.npy'
complete -c ckpt-inspect -l to-safetensors -r -F -d 'Write the parameters as one safetensors file'
complete -c ckpt-inspect -l csv -d 'CSV (RFC 4180) with a header line'
complete -c ckpt-inspect -l json -d 'JSON Lines, one object per row (per file with --info)'
complete -c ckpt-inspect -l no-header -d 'No header line in text, TSV and CSV'
complete -c ckpt-inspect -l stats -d 'Add count, min, max, mean, std, ... per parameter'
complete -c ckpt-inspect -l name -x -d 'Only parameters whose name matches (RE2, searched)'
complete -c ckpt-inspect -l verify-crc -d 'Check the CRC of a 2.3+ .ckpt or a safetensors file'
complete -c ckpt-inspect -l top -x -d 'With --diff: the N largest changes by l2'
complete -c ckpt-inspect -l tolerance -x -d 'With --diff: differs when max_abs > T (default 0)'
complete -c ckpt-inspect -l bf16 -x -a 'float32 raw' -d 'With --export: how bfloat16 is written'
complete -c ckpt-inspect -s j -l jobs -x -d 'Parallel workers (default: all cores)'
complete -c ckpt-inspect -s h -l help -d 'Print the usage and exit'
complete -c ckpt-inspect -l version -d 'Print the version and exit'
