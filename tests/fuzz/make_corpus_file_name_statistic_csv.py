#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_file_name and fuzz_statistic_csv.

Seeds are the file names and side files of the dump spec (§3, §6, §10.1, §13), one grammar or
quirk per seed, so libFuzzer starts from every branch of the parsers. Run from anywhere:
    python3 tests/fuzz/make_corpus_file_name_statistic_csv.py
It rewrites tests/fuzz/corpus/file_name/ and tests/fuzz/corpus/statistic_csv/ (files it did not
write, such as crash reproducers added later, are kept).
"""
import hashlib
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

FILE_NAMES = [
    # format A (§3.1, §13 samples)
    b"moments.fc3.bias_output_0_shape_10_Float32_DefaultFormat.bin",
    b"Default--network-WithLossCell--_backbone-AlexNet--ReLUV2-op300_output_1_shape_256_UInt32_DefaultFormat.bin",
    b"Default--network-WithLossCell--_backbone-AlexNet--conv3-Conv2d--Conv2D-op308_output_0_shape_4_4_4_4_kNumberTypeFloat32_NCHW.bin",
    b"cst1_output_0_shape_0_Int32_DefaultFormat.bin",
    b"Default--Conv2D-op5_input_1_shape_1_2_Float16_NC1HWC0_C04.bin",
    b"Default--Conv2D-op5_output_0_shape_1_2_Float16_FRACTAL_Z_3D.bin",
    b"Default--Conv2D-op5_output_0_shape_1_2_Float16_FracZ.bin",
    b"Add_output_0_shape_99999999999999999999_Float32_DefaultFormat.bin",
    # npy (§3.2, §3.3, §3.5, §3.7)
    b"Parameter.fc2.bias.0.0.2.output.0.DefaultFormat.npy",
    b"Add.Default_Add-op1.0.0.1716000000000000.output.0.DefaultFormat.float32.npy",
    b"Add..0.0.1623124369613540.output.0.DefaultFormat.npy",
    b"Cast.Default_network-WithLossCell_Cast-op0.9.10.1735011096426349.input.0.ND.FLOAT.npy",
    b"MatMul.Default_MatMul-op3.65535.65535.1716000000000000.output.0.FRACTAL_NZ.float16.npy",
    b"123456789.npy",
    # binary containers and overflow (§3.4, §5.8)
    b"Conv2D.Default_network-WithLossCell__backbone-AlexNet_conv3-Conv2d_Conv2D-op12.2.7.161243956333802",
    b"Add.Default_Add-op1.2.161243956333802",
    b"Opdebug.Node_OpDebug.11.3.1716000000000000",
    b"Opdebug.Node_OpDebug.11.3.1716000000000000.output.0.json",
    # msprobe raw (§3.7)
    b"Cast.Default_network-WithLossCell_Cast-op0.9.10.1735011096426349.input.0.ND.BF16",
    # msaccucmp output (§10.1)
    b"Conv2D.Default_conv1-Conv2d_Conv2D-op1.2.7.1608983934774491.input.0.npy",
    b"Conv2D.Default_conv1-Conv2d_Conv2D-op1.2.7.1608983934774491.input.0.30x1024x17x17.npy",
    # side files (§2, §6)
    b"statistic.csv",
    b"mapping.csv",
    b"ms_execution_order_graph_12.csv",
    b"ms_global_execution_order_graph_0.csv",
    b"ms_output_trace_code_graph_4.pb",
    b"acl_dump_3.json",
    b"MatMul.Default_MatMul-op2.json",
    b"convert_failed_file_list.txt",
    # bytes that are not UTF-8
    b"Add.\xc3\x28\xff.0.0.5.output.0.DefaultFormat.npy",
]

STATISTIC_CSV = [
    # 1.6-2.2 fixed header (§6.1)
    b"Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
    b"Min Value,Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf "
    b"Count,Positive Inf Count,Zero Count\r\n"
    b"Conv2D,Conv2D-op1,0,0,1650000000000000,input,0,24,float32,\"(2,3)\",5,-1.5,0.25,6,1,2,0,0,"
    b"1,3,\r\n",
    # 2.3+ configurable header with nulls, MD5 and SHA1
    b"Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
    b"Min Value,L2Norm Value,Nan Count,MD5,SHA1\n"
    b"Mul,Default_Mul-op3,0,0,1716000000000000,output,0,16,float32,\"(4,)\",2.5,-1,2.7386127,0,"
    b"d41d8cd98f00b204e9800998ecf8427e,da39a3ee5e6b4b0d3255bfef95601890afd80709,\n"
    b"Add,Default_Add-op1,0,0,1716000000000001,output,0,0,float16,\"()\",null,null,null,null,,,\n",
    # an unterminated quote and a malformed number
    b"Op Type,Op Name,Shape,Max Value\nA,a,\"(2,3),1\n",
    b"Op Type,Op Name,Shape,Max Value\nA,a,\"(2,3)\",abc,\n",
    # mapping.csv (§3.8)
    b"1234567890.npy,Add.Default_Add-op1.0.0.1.output.0.DefaultFormat.npy\n",
    # execution-order files (§6.2)
    b"NodeExecutionOrder-FullNameWithScope\nDefault/network-WithLossCell/_backbone-AlexNet/"
    b"conv3-Conv2d/Conv2D-op107\nDefault/Add-op1\n",
    b"0\n1\n2\n\n3\n",
]


def write(directory, seeds):
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob("seed-*"):
        old.unlink()
    for seed in seeds:
        # Content-named like libFuzzer's own corpus files, so reruns are stable.
        (directory / ("seed-" + hashlib.sha1(seed).hexdigest())).write_bytes(seed)


write(HERE / "corpus" / "file_name", FILE_NAMES)
write(HERE / "corpus" / "statistic_csv", STATISTIC_CSV)
