# fish completion for dump-parse (msdt). Installed in share/fish/vendor_completions.d.

# --dtype takes a comma-separated list: offer each name after what is already typed.
function __dump_parse_dtypes
    set -l head (string replace -r '^--dtype=' '' -- (commandline -ct) | string replace -r '[^,]*$' '')
    for name in bool int2 int4 int8 int16 int32 int64 uint1 uint2 uint8 uint16 uint32 uint64 \
            float16 fp16 half bfloat16 bf16 float32 float64 complex32 complex64 complex128 \
            float8_e5m2 float8_e4m3fn float8_e8m0 hifloat8 float6_e3m2 float6_e2m3 float4_e2m1 float4_e1m2 hifloat4
        printf '%s%s\n' "$head" $name
    end
end

complete -c dump-parse -l csv -d 'Print CSV (RFC 4180) with a header line'
complete -c dump-parse -l json -d 'Print JSON Lines (one object with --show or --summary)'
complete -c dump-parse -l no-header -d 'Leave out the header line'
complete -c dump-parse -l stats -d 'Add count, min, max, mean, std, abs_mean, l2norm, value counts'
complete -c dump-parse -s j -l jobs -x -d 'Parallel workers for --stats (default: all cores)'
complete -c dump-parse -l op -x -d 'Keep tensors whose op name matches an RE2 regex'
complete -c dump-parse -l iteration -x -d 'Keep the listed iterations (e.g. 0,3,5-8)'
complete -c dump-parse -l rank -x -d 'Keep the listed ranks (e.g. 0,3,5-8)'
complete -c dump-parse -l graph -x -d 'Keep the listed graph ids (e.g. 0,3,5-8)'
complete -c dump-parse -l io -x -a 'input output' -d 'Keep only inputs or only outputs'
complete -c dump-parse -l dtype -x -a '(__dump_parse_dtypes)' -d 'Keep the listed dtypes'
complete -c dump-parse -l show -d 'Print everything known about one file (the PATH) and its values'
complete -c dump-parse -l max-elements -x -d 'Values printed per tensor by --show (default 1000)'
complete -c dump-parse -l summary -d 'Counts and bytes per rank and iteration, and tree checks'
complete -c dump-parse -s h -l help -d 'Print the usage and exit'
complete -c dump-parse -l version -d 'Print the version and exit'
