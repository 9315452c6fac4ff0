"""Independent oracle for mkfixture's summary files (spec summary.md §3-§7, §15).

    summary_records.py [--count] DIALECT FILE

DIALECT is mindspore, explain, tensorflow or lineage. Walks the TFRecord framing of FILE, checks
both masked CRC-32C values of every record with a CRC written here from the spec (not libcommon's),
and decodes each payload with the field numbers of the spec's tables, printing it in protobuf text
style: packed repeated fields as `name: [a, b] (packed)`, unpacked ones one per line. PNG images
are decoded with zlib (chunk CRCs checked, filters undone) and four corner pixels printed.

--count prints only totals: records, CRC errors, events by kind and values by kind.

Uses the standard library only.
"""
import struct
import sys
import zlib

# ---------------------------------------------------------------------------------------------
# CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) and the TFRecord mask (§3.4).

_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283
assert masked(struct.pack("<Q", 28)) == 0x1D95C1C8

# ---------------------------------------------------------------------------------------------
# Schemas: message -> {field: (name, type)}. Scalar types: double, float, int32, int64, uint64,
# bool, enum, string, bytes, png; anything else names a message.

MS = {
    "Event": {1: ("wall_time", "double"), 2: ("step", "int64"), 3: ("version", "string"),
              4: ("graph_def", "GraphProto"), 5: ("summary", "Summary"), 6: ("explain", "Explain")},
    "Summary": {1: ("value", "Value")},
    "Value": {1: ("tag", "string"), 3: ("scalar_value", "float"), 4: ("image", "Image"),
              8: ("tensor", "TensorProto"), 9: ("histogram", "Histogram"),
              10: ("loss_landscape", "LossLandscape")},
    "Image": {1: ("height", "int32"), 2: ("width", "int32"), 3: ("colorspace", "int32"),
              4: ("encoded_image", "png")},
    "Histogram": {1: ("buckets", "Bucket"), 2: ("nan_count", "int64"), 3: ("pos_inf_count", "int64"),
                  4: ("neg_inf_count", "int64"), 5: ("max", "double"), 6: ("min", "double"),
                  7: ("sum", "double"), 8: ("count", "int64")},
    "Bucket": {1: ("left", "double"), 2: ("width", "double"), 3: ("count", "int64")},
    "TensorProto": {1: ("dims", "int64"), 2: ("data_type", "enum"), 3: ("float_data", "float"),
                    4: ("int32_data", "int32"), 5: ("int64_data", "int64"),
                    6: ("double_data", "double"), 7: ("uint64_data", "uint64"),
                    8: ("raw_data", "bytes")},
    "LossLandscape": {1: ("landscape", "Point"), 2: ("loss_path", "LossPath"),
                      3: ("metadata", "LandscapeMetadata"), 4: ("convergence_point", "Point")},
    "Point": {1: ("x", "TensorProto"), 2: ("y", "TensorProto"), 3: ("z", "TensorProto")},
    "LossPath": {1: ("intervals", "int32"), 2: ("points", "Point")},
    "LandscapeMetadata": {1: ("decomposition", "string"), 2: ("unit", "string"),
                          3: ("step_per_epoch", "int32")},
    "Explain": {1: ("sample_id", "int32"), 2: ("image_path", "string"),
                3: ("ground_truth_label", "int32"), 4: ("inference", "Inference"),
                5: ("explanation", "Explanation"), 6: ("benchmark", "Benchmark"),
                7: ("metadata", "ExplainMetadata"), 8: ("status", "string"), 9: ("hoc", "Hoc")},
    "Inference": {1: ("ground_truth_prob", "float"), 2: ("predicted_label", "int32"),
                  3: ("predicted_prob", "float"), 4: ("ground_truth_prob_sd", "float"),
                  5: ("ground_truth_prob_itl95_low", "float"),
                  6: ("ground_truth_prob_itl95_hi", "float"), 7: ("predicted_prob_sd", "float"),
                  8: ("predicted_prob_itl95_low", "float"), 9: ("predicted_prob_itl95_hi", "float")},
    "Explanation": {1: ("explain_method", "string"), 2: ("label", "int32"),
                    3: ("heatmap_path", "string")},
    "Benchmark": {1: ("benchmark_method", "string"), 2: ("explain_method", "string"),
                  3: ("total_score", "float"), 4: ("label_score", "float")},
    "ExplainMetadata": {1: ("label", "string"), 2: ("explain_method", "string"),
                        3: ("benchmark_method", "string")},
    "Hoc": {1: ("label", "int32"), 2: ("mask", "string"), 3: ("layer", "HocLayer")},
    "HocLayer": {1: ("prob", "float"), 2: ("box", "int32")},
    # A graph is summarised (name, parameters, node op types), not printed whole.
    "GraphProto": {1: ("node", "NodeProto"), 2: ("name", "string"), 3: ("parameters", "Named"),
                   4: ("outputs", "Named"), 5: ("const_vals", "Named")},
    "NodeProto": {2: ("name", "string"), 3: ("op_type", "string")},
    "Named": {1: ("name", "string")},
}

TF = {
    "Event": {1: ("wall_time", "double"), 2: ("step", "int64"), 3: ("file_version", "string"),
              4: ("graph_def", "bytes"), 5: ("summary", "Summary")},
    "Summary": {1: ("value", "Value")},
    "Value": {1: ("tag", "string"), 2: ("simple_value", "float"), 4: ("image", "Image"),
              5: ("histo", "HistogramProto"), 8: ("tensor", "TensorProto"),
              9: ("metadata", "SummaryMetadata")},
    "Image": {1: ("height", "int32"), 2: ("width", "int32"), 3: ("colorspace", "int32"),
              4: ("encoded_image_string", "png")},
    "HistogramProto": {1: ("min", "double"), 2: ("max", "double"), 3: ("num", "double"),
                       4: ("sum", "double"), 5: ("sum_squares", "double"),
                       6: ("bucket_limit", "double"), 7: ("bucket", "double")},
    "TensorProto": {1: ("dtype", "enum"), 2: ("tensor_shape", "TensorShapeProto"),
                    3: ("version_number", "int32"), 4: ("tensor_content", "bytes"),
                    5: ("float_val", "float"), 6: ("double_val", "double"), 7: ("int_val", "int32"),
                    8: ("string_val", "string"), 10: ("int64_val", "int64"),
                    11: ("bool_val", "bool"), 13: ("half_val", "int32"),
                    16: ("uint32_val", "uint64"), 17: ("uint64_val", "uint64")},
    "TensorShapeProto": {2: ("dim", "Dim"), 3: ("unknown_rank", "bool")},
    "Dim": {1: ("size", "int64"), 2: ("name", "string")},
    "SummaryMetadata": {1: ("plugin_data", "PluginData"), 2: ("display_name", "string"),
                        3: ("summary_description", "string"), 4: ("data_class", "enum")},
    "PluginData": {1: ("plugin_name", "string"), 2: ("content", "bytes")},
}

LINEAGE = {
    "Event": {1: ("wall_time", "double"), 2: ("step", "int64"), 3: ("version", "string"),
              6: ("train_lineage", "TrainLineage"), 7: ("evaluation_lineage", "EvaluationLineage"),
              9: ("dataset_graph", "DatasetGraph"), 10: ("user_defined_info", "UserDefinedInfo")},
    "TrainLineage": {1: ("hyper_parameters", "HyperParameters"),
                     2: ("train_dataset", "TrainDataset"), 3: ("algorithm", "Algorithm"),
                     4: ("model", "Model")},
    "HyperParameters": {1: ("optimizer", "string"), 2: ("learning_rate", "float"),
                        3: ("loss_function", "string"), 4: ("epoch", "int32"),
                        5: ("parallel_mode", "string"), 6: ("device_num", "int32"),
                        8: ("batch_size", "int32")},
    "TrainDataset": {1: ("train_dataset_path", "string"), 2: ("train_dataset_size", "int32")},
    "Algorithm": {1: ("network", "string"), 2: ("loss", "float")},
    "Model": {3: ("path", "string"), 4: ("size", "int64")},
    "EvaluationLineage": {2: ("metric", "string"), 3: ("valid_dataset", "ValidDataset")},
    "ValidDataset": {1: ("valid_dataset_path", "string"), 2: ("valid_dataset_size", "int32")},
    "DatasetGraph": {1: ("children", "DatasetGraph"), 2: ("parameter", "OperationParameter"),
                     3: ("operations", "Operation"), 4: ("sampler", "Operation")},
    "Operation": {1: ("operationParam", "OperationParameter"), 2: ("size", "int32"),
                  3: ("weights", "float")},
    "OperationParameter": {1: ("mapStr", "StrStr"), 2: ("mapStrList", "StrStrList"),
                           3: ("mapBool", "StrBool"), 4: ("mapInt", "StrInt"),
                           5: ("mapDouble", "StrDouble")},
    "StrStr": {1: ("key", "string"), 2: ("value", "string")},
    "StrStrList": {1: ("key", "string"), 2: ("value", "StrList")},
    "StrList": {1: ("strValue", "string")},
    "StrBool": {1: ("key", "string"), 2: ("value", "bool")},
    "StrInt": {1: ("key", "string"), 2: ("value", "int32")},
    "StrDouble": {1: ("key", "string"), 2: ("value", "double")},
    "UserDefinedInfo": {1: ("user_info", "UserDefinedInfo"), 2: ("map_dict", "StrUDI"),
                        3: ("map_int32", "StrInt"), 4: ("map_str", "StrStr"),
                        5: ("map_double", "StrDouble")},
    "StrUDI": {1: ("key", "string"), 2: ("value", "UserDefinedInfo")},
}

VARINT_TYPES = {"int32", "int64", "uint64", "bool", "enum"}

# ---------------------------------------------------------------------------------------------
# Wire format


class DecodeError(Exception):
    pass


def varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise DecodeError("varint runs past the end")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos
        if shift > 63:
            raise DecodeError("varint longer than 10 bytes")


def fields(data):
    """(number, wire type, value) triples; value is an int or bytes."""
    pos = 0
    out = []
    while pos < len(data):
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise DecodeError("field number 0")
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 1:
            if pos + 8 > len(data):
                raise DecodeError("fixed64 runs past the end")
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            if pos + 4 > len(data):
                raise DecodeError("fixed32 runs past the end")
            value, pos = data[pos:pos + 4], pos + 4
        elif wire == 2:
            n, pos = varint(data, pos)
            if pos + n > len(data):
                raise DecodeError("length-delimited field runs past the end")
            value, pos = data[pos:pos + n], pos + n
        else:
            raise DecodeError(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def short_float(bits):
    """The float32 as the shortest decimal that reads back to the same float32."""
    value = struct.unpack("<f", bits)[0]
    if value != value or value in (float("inf"), float("-inf")):
        return repr(value)
    for digits in range(1, 10):
        text = "%.*g" % (digits, value)
        if struct.pack("<f", float(text)) == bits:
            return text
    return repr(value)


def scalar_text(kind, wire, value):
    if kind in VARINT_TYPES:
        if wire != 0:
            raise DecodeError(f"{kind} with wire type {wire}")
        if kind in ("int32", "int64", "enum") and value >= 1 << 63:
            value -= 1 << 64
        return str(bool(value)).lower() if kind == "bool" else str(value)
    if kind == "double":
        if wire != 1:
            raise DecodeError(f"double with wire type {wire}")
        return repr(struct.unpack("<d", value)[0])
    if kind == "float":
        if wire != 5:
            raise DecodeError(f"float with wire type {wire}")
        return short_float(value)
    raise DecodeError(f"{kind} with wire type {wire}")


def packed(kind, data):
    items = []
    pos = 0
    while pos < len(data):
        if kind in VARINT_TYPES:
            value, pos = varint(data, pos)
            items.append(scalar_text(kind, 0, value))
        else:
            width = 8 if kind == "double" else 4
            if pos + width > len(data):
                raise DecodeError("packed field is not a whole number of elements")
            items.append(scalar_text(kind, 1 if width == 8 else 5, data[pos:pos + width]))
            pos += width
    return items


def bytes_text(data):
    shown = data[:16].hex(" ")
    return f"<{len(data)} bytes: {shown}{' …' if len(data) > 16 else ''}>"

# ---------------------------------------------------------------------------------------------
# PNG


def png_text(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return bytes_text(data)
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            return f"<png: bad CRC in chunk {kind.decode()}>"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    if depth != 8 or interlace != 0:
        return f"<png {width}x{height} depth {depth} interlace {interlace}>"
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        filt, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + a) & 0xFF
            elif filt == 2:
                line[i] = (line[i] + b) & 0xFF
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line

    def pixel(x, y):
        return "(" + ",".join(str(v) for v in rows[y][x * channels:(x + 1) * channels]) + ")"
    corners = [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1)]
    names = {1: "gray", 2: "gray+alpha", 3: "rgb", 4: "rgba"}[channels]
    return (f"<png {width}x{height} {names}: " +
            " ".join(f"{x},{y}={pixel(x, y)}" for x, y in corners) + ">")

# ---------------------------------------------------------------------------------------------
# Messages


def graph_summary(data):
    name, ops, params, outputs, consts = "", [], 0, 0, 0
    for number, _, value in fields(data):
        if number == 1:
            ops += [v.decode() for n, _, v in fields(value) if n == 3]
        elif number == 2:
            name = value.decode()
        elif number == 3:
            params += 1
        elif number == 4:
            outputs += 1
        elif number == 5:
            consts += 1
    return (f'graph "{name}": {params} parameters, {len(ops)} nodes ({" ".join(ops)}), '
            f"{outputs} outputs, {consts} constants")


def message_lines(schema, name, data, indent, stats):
    lines = []
    pad = "  " * indent
    for number, wire, value in fields(data):
        if number not in schema[name]:
            lines.append(f"{pad}{number}: <unknown field, wire type {wire}>")
            continue
        field, kind = schema[name][number]
        if stats is not None and name == "Value" and field not in ("tag", "metadata"):
            stats.setdefault("values", {})
            stats["values"][field] = stats["values"].get(field, 0) + 1
        if kind == "string":
            lines.append(f"{pad}{field}: {value.decode('utf-8')!r}")
        elif kind == "bytes":
            lines.append(f"{pad}{field}: {bytes_text(value)}")
        elif kind == "png":
            lines.append(f"{pad}{field}: {png_text(value)}")
        elif kind == "GraphProto":
            lines.append(f"{pad}{field}: {graph_summary(value)}")
        elif kind in schema:
            lines.append(f"{pad}{field} {{")
            lines += message_lines(schema, kind, value, indent + 1, stats)
            lines.append(f"{pad}}}")
        elif wire == 2:
            lines.append(f"{pad}{field}: [{', '.join(packed(kind, value))}] (packed)")
        else:
            lines.append(f"{pad}{field}: {scalar_text(kind, wire, value)}")
    return lines


def event_kind(schema, payload):
    for number, _, _ in fields(payload):
        if number > 2 and number in schema["Event"]:
            return schema["Event"][number][0]
    return "empty"


def main(argv):
    count_only = argv[:1] == ["--count"]
    if count_only:
        argv = argv[1:]
    dialect, path = argv
    schema = {"mindspore": MS, "explain": MS, "tensorflow": TF, "lineage": LINEAGE}[dialect]
    data = open(path, "rb").read()
    pos = index = errors = 0
    stats = {"events": {}}
    while pos < len(data):
        if pos + 12 > len(data):
            print(f"record {index} @{pos:#x}: truncated header ({len(data) - pos} bytes left)")
            errors += 1
            break
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
        checks = []
        if length_crc != masked(header):
            checks.append(f"length CRC mismatch (stored {length_crc:#010x}, computed {masked(header):#010x})")
        if pos + 12 + length + 4 > len(data):
            print(f"record {index} @{pos:#x}: length {length}, truncated "
                  f"({len(data) - pos - 12} bytes after the header)")
            errors += 1
            break
        payload = data[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])
        if data_crc != masked(payload):
            checks.append(f"data CRC mismatch (stored {data_crc:#010x}, computed {masked(payload):#010x})")
        errors += len(checks)
        try:
            kind = event_kind(schema, payload)
            lines = message_lines(schema, "Event", payload, 1, stats)
        except (DecodeError, UnicodeDecodeError, KeyError, struct.error) as e:
            kind, lines = "garbage", [f"  not a protobuf message: {e}"]
        stats["events"][kind] = stats["events"].get(kind, 0) + 1
        if not count_only:
            print(f"record {index} @{pos:#x}: {length} bytes, " + ("; ".join(checks) or "CRCs ok"))
            print("\n".join(lines))
        pos += 16 + length
        index += 1
    if count_only:
        print(f"{index} records, {errors} framing errors")
        print("events: " + (", ".join(f"{k} {v}" for k, v in sorted(stats["events"].items())) or "none"))
        values = stats.get("values", {})
        print("values: " + (", ".join(f"{k} {v}" for k, v in sorted(values.items())) or "none"))


if __name__ == "__main__":
    main(sys.argv[1:])
