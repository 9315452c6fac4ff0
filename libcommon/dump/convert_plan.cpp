// What one source becomes (dump spec §10.1): the outputs of a DumpData container (per tensor, in
// the device layout or after -f, buffers, workspaces, overflow JSON), of an .npy (copied, or
// rewritten as a standard file), of a 1.1/1.2 .bin or an msprobe raw file.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "dump/ascend_dump.h"
#include "dump/convert_internal.h"
#include "dump/dump_file.h"
#include "tensor/element_convert.h"
#include "tensor/layout.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

bool is_container(const DumpFile& file, Bytes contents) {
  if (looks_like_npy(contents)) return false;
  switch (file.name.kind) {
    case FileKind::AscendBinary:
    case FileKind::Overflow:
      return true;
    case FileKind::Unknown:
      return looks_like_ascend_dump(contents);
    default:
      return false;
  }
}

// A .npy any reader loads as it is: version 1.0, little-endian (or single-byte), C order, the
// elements 64-byte aligned as NumPy writes them. Anything else is rewritten.
bool is_standard_npy(const NpyHeader& header) {
  bool one_byte = dtype_bits(header.dtype) <= 8;
  bool c_order = !header.fortran_order || header.shape.size() <= 1;
  return header.major_version == 1 && header.minor_version == 0 &&
         (!header.big_endian || one_byte) && c_order && header.data_offset % 64 == 0;
}

// The elements of a big-endian and/or Fortran-order npy as a little-endian C-order array.
Expected<std::vector<std::byte>> standard_elements(const NpyHeader& header, Bytes contents) {
  MSDT_TRY(uint64_t count, element_count(header.shape));
  unsigned bits = dtype_bits(header.dtype);
  if (bits == 0 || bits % 8 != 0)
    return Error{fmt::format("cannot rewrite an npy of dtype {}", dtype_name(header.dtype))};
  const size_t width = bits / 8;
  // Complex numbers swap each of their two parts.
  const bool complex = header.dtype == DType::Complex32 || header.dtype == DType::Complex64 ||
                       header.dtype == DType::Complex128;
  const size_t swap_width = header.big_endian ? (complex ? width / 2 : width) : 1;
  Bytes data = contents.subspan(header.data_offset, header.data_size);
  std::vector<std::byte> out(data.size());
  const size_t rank = header.shape.size();
  std::vector<uint64_t> index(rank, 0), fortran_stride(rank, 1);
  for (size_t k = 1; k < rank; ++k) fortran_stride[k] = fortran_stride[k - 1] * header.shape[k - 1];
  const bool fortran = header.fortran_order && rank > 1;
  for (uint64_t c = 0; c < count; ++c) {
    uint64_t from = c;
    if (fortran) {
      from = 0;
      for (size_t k = 0; k < rank; ++k) from += index[k] * fortran_stride[k];
      // Next C-order index: the last axis moves fastest.
      for (size_t k = rank; k-- > 0;) {
        if (++index[k] < header.shape[k]) break;
        index[k] = 0;
      }
    }
    const std::byte* source = data.data() + from * width;
    std::byte* target = out.data() + c * width;
    for (size_t part = 0; part < width; part += swap_width)
      for (size_t b = 0; b < swap_width; ++b) target[part + b] = source[part + swap_width - 1 - b];
  }
  return out;
}

class Planner {
 public:
  Planner(const ConvertOptions& options, const DumpFile& file, std::string_view basename,
          Bytes contents, const PlanCallbacks& callbacks)
      : options_(options), file_(file), basename_(basename), contents_(contents), out_(callbacks) {}

  Status plan() {
    if (is_container(file_, contents_)) {
      Status status = plan_container();
      if (status) explain_line_endings(file_, contents_, *status);
      return status;
    }
    if (file_.name.kind == FileKind::Unknown && !looks_like_npy(contents_)) {
      // Not a dump file (a README, a note): skipped with a warning, like dump-parse does, rather
      // than failing a whole tree for a stray file.
      std::string why = file_.name.problem.empty() ? std::string("unknown file")
                                                   : "unknown file: " + file_.name.problem;
      out_.warning(Error{fmt::format("{}; not converted", why)});
      return std::nullopt;
    }
    return plan_other();
  }

 private:
  // ---- DumpData containers ----

  Status plan_container() {
    MSDT_TRY(AscendDump dump, parse_ascend_dump(contents_));
    for (const Error& warning : dump.warnings) out_.warning(warning);  // trailing bytes (§5.3)
    if (file_.name.kind == FileKind::Overflow || basename_.starts_with("Opdebug.Node_OpDebug."))
      return plan_overflow(dump);
    if (!options_.target_format.empty()) return plan_all_formatted(dump);
    for (const AscendTensor& tensor : dump.inputs) plan_device(dump, tensor, "input");
    for (const AscendTensor& tensor : dump.outputs) plan_device(dump, tensor, "output");
    for (const AscendTensor& buffer : dump.buffers)
      emit_raw(buffer.payload, buffer_output_name(basename_, buffer.buffer_type, buffer.index));
    for (const AscendTensor& space : dump.workspaces)
      emit_raw(space.payload, workspace_output_name(basename_, space.index));
    return std::nullopt;
  }

  // Only output[k] holds overflow information (dump spec §5.8).
  Status plan_overflow(const AscendDump& dump) {
    for (const AscendTensor& tensor : dump.outputs) {
      auto decoded = decode_overflow(tensor.payload, tensor.payload_offset);
      if (!decoded) {
        out_.fail(std::move(decoded).error().with_context(fmt::format("output {}", tensor.index)));
        continue;
      }
      PlannedOutput out;
      out.kind = PlannedOutput::Kind::Text;
      out.name = shorten_long_name(overflow_output_name(basename_, tensor.index), ".json");
      out.text = decoded->dump(4);
      out_.emit(std::move(out));
    }
    return std::nullopt;
  }

  void emit_raw(Bytes payload, std::string name) {
    PlannedOutput out;
    out.name = shorten_long_name(std::move(name), ".bin");
    out.view.data = payload;
    out_.emit(std::move(out));
  }

  // The device layout as stored (no -f).
  void plan_device(const AscendDump& dump, const AscendTensor& tensor, std::string_view io) {
    auto view = ascend_tensor_view(tensor);
    // ascend_tensor_view names the tensor ("output 0: …") itself.
    if (!view) return out_.fail(std::move(view).error());
    PlannedOutput out;
    out.view = std::move(*view);
    std::string format = ascend_format_string(tensor.format);
    if (options_.type == ConvertType::Bin) {
      auto count = element_count(out.view.shape);
      if (!count) return out_.fail(std::move(count).error());
      out.kind = PlannedOutput::Kind::Raw;
      out.name = shorten_long_name(device_bin_output_name(basename_, io, tensor.index, *count,
                                                          dtype_name(out.view.dtype), format),
                                   ".bin");
      return out_.emit(std::move(out));
    }
    std::string name = options_.type == ConvertType::MsNpy
                           ? msnpy_output_name(basename_, dump.op_name, io, tensor.index, format)
                           : npy_output_name(basename_, io, tensor.index);
    emit_npy(std::move(out), std::move(name), fmt::format("{} {}", io, tensor.index));
  }

  Status plan_all_formatted(const AscendDump& dump) {
    for (auto [io, group] : {std::pair{std::string_view("input"), &dump.inputs},
                             std::pair{std::string_view("output"), &dump.outputs}}) {
      if (options_.only_tensor) {
        if (options_.only_tensor->first != io) continue;
        uint32_t wanted = options_.only_tensor->second;
        if (wanted >= group->size())
          return Error{
              fmt::format("{} index {} is out of range [0, {})", io, wanted, group->size())};
        plan_formatted(dump, (*group)[wanted], io);
        continue;
      }
      for (const AscendTensor& tensor : *group) plan_formatted(dump, tensor, io);
    }
    return std::nullopt;  // msaccucmp writes no buffers or workspaces with -f
  }

  // -f: device layout to host layout, sliced to original_shape or -s (dump spec §8).
  void plan_formatted(const AscendDump& dump, const AscendTensor& tensor, std::string_view io) {
    std::string where = fmt::format("{} {}", io, tensor.index);
    auto device = ascend_tensor_view(tensor);
    if (!device) return out_.fail(std::move(device).error());
    const AscendLayout layout = ascend_layout(tensor, *device);
    const std::string& from = layout.format;
    const std::string& to = options_.target_format;
    std::vector<uint64_t> target = options_.target_shape;
    std::string target_axes = "NCHW";  // -s is N,C,H,W; original_shape is in the origin format
    if (target.empty() && tensor.has_original_shape) {
      target = layout.original_shape;
      target_axes = layout.original_format;
    }

    PlannedOutput out;
    // A host layout kept as it is still goes through transform_layout when a target shape is
    // given: -s is N,C,H,W and original_shape is in the origin format, so the shape is checked and
    // read in its own axis order rather than stamped on as written.
    const bool host_kept = from == to && !target.empty() && is_host_format(from);
    if (from == to && !host_kept) {
      out.view = *device;
      if (!target.empty()) {
        auto wanted = element_count(target);
        auto have = element_count(device->shape);
        if (wanted && have && *wanted == *have) out.view.shape = target;
      }
    } else {
      Status problem;
      if (!can_transform(from, to)) {
        problem = Error{fmt::format("cannot convert format {} to {}", from, to)};
      } else {
        auto result = transform_layout(*device, from, to, target, layout.groups, target_axes);
        if (result) {
          out.owned = std::make_shared<std::vector<std::byte>>(std::move(result->data));
          out.view = TensorView{device->dtype, std::move(result->shape), Bytes(*out.owned)};
        } else {
          problem = std::move(result).error();
        }
      }
      if (problem) {
        if (options_.type != ConvertType::MsNpy)
          return out_.fail(std::move(*problem).with_context(where));
        // msaccucmp's -t msnpy writes the tensor untransformed then (dump spec §10.1), named
        // with the layout it is really in.
        out_.warning(std::move(*problem).with_context(
            fmt::format("{}: written in its device format {}", where, from)));
        out.view = *device;
        emit_npy(std::move(out), msnpy_output_name(basename_, dump.op_name, io, tensor.index, from),
                 where);
        return;
      }
    }
    if (options_.type == ConvertType::Bin) {
      out.kind = PlannedOutput::Kind::Raw;
      out.name = shorten_long_name(bin_output_name(basename_, io, tensor.index, out.view.shape,
                                                   dtype_name(out.view.dtype), to),
                                   ".bin");
      return out_.emit(std::move(out));
    }
    std::string name = options_.type == ConvertType::MsNpy
                           ? msnpy_output_name(basename_, dump.op_name, io, tensor.index, to)
                           : formatted_npy_output_name(basename_, io, tensor.index, out.view.shape);
    emit_npy(std::move(out), std::move(name), where);
  }

  void emit_npy(PlannedOutput&& out, std::string name, std::string_view where) {
    if (Status bad = check_npy_storable(out.view.dtype))
      return out_.fail(std::move(*bad).with_context(where));
    out.kind = PlannedOutput::Kind::Npy;
    out.name = shorten_long_name(std::move(name), ".npy");
    out_.emit(std::move(out));
  }

  // ---- npy, format A .bin and msprobe raw files, read through read_dump_file ----

  Status plan_other() {
    return read_dump_file(file_, contents_, [&](const DumpTensor& tensor) {
      bool tensor_file = (tensor.format == "npy" && tensor.npy) || tensor.format == "bin" ||
                         tensor.format == "msprobe-raw";
      if (!tensor_file) return;  // statistic rows and side files are not tensors
      if (options_.type == ConvertType::Bin)
        return out_.fail(Error{fmt::format(
            "-t bin applies to DumpData containers; this {} tensor is not converted (convert it "
            "with -t npy)",
            tensor.format == "npy" ? ".npy" : ".bin")});
      if (tensor.format == "npy") return plan_npy(*tensor.npy, tensor.view);
      if (!tensor.view)
        return out_.fail(Error{fmt::format("elements of dtype {} cannot be read",
                                           tensor.dtype ? dtype_name(*tensor.dtype) : "unknown")});
      if (Status bad = check_npy_storable(tensor.view->dtype)) return out_.fail(std::move(*bad));
      PlannedOutput out;
      out.kind = PlannedOutput::Kind::Npy;
      out.view = *tensor.view;
      out.name = shorten_long_name(raw_tensor_output_name(basename_), ".npy");
      out_.emit(std::move(out));
    });
  }

  void plan_npy(const NpyHeader& header, const std::optional<TensorView>& view) {
    PlannedOutput out;
    // A name that exists on disk is short enough already; only stdin needs a suffix.
    out.name.name = basename_.ends_with(".npy") ? std::string(basename_) : basename_ + ".npy";
    if (Status bad = check_npy_storable(header.dtype)) return out_.fail(std::move(*bad));
    // A copy is written as it is: refused here when NumPy would not load it (the rewritten
    // forms are checked by write_output).
    if (Status bad =
            check_npy_loadable(*npy_storage_dtype(header.dtype, options_.bf16), header.shape))
      return out_.fail(std::move(*bad));
    if (is_standard_npy(header) && stored_as_is(header.dtype, options_.bf16)) {
      // A byte copy keeps the mirror complete at the speed of cp.
      out.kind = PlannedOutput::Kind::CopyWhole;
      return out_.emit(std::move(out));
    }
    // Rewritten as a standard npy (dump spec §9): big-endian, Fortran order, versions 2.0/3.0 or
    // unaligned elements, and '<E2'/'>E2'/'V2' bfloat16 (float32 or raw uint16 per --bf16).
    out.kind = PlannedOutput::Kind::Npy;
    if (header.big_endian || (header.fortran_order && header.shape.size() > 1) || !view) {
      auto elements = standard_elements(header, contents_);
      if (!elements) return out_.fail(std::move(elements).error());
      out.owned = std::make_shared<std::vector<std::byte>>(std::move(*elements));
      out.view = TensorView{header.dtype, header.shape, Bytes(*out.owned)};
    } else {
      out.view = *view;
    }
    out_.emit(std::move(out));
  }

  Status check_npy_storable(DType dtype) const {
    if (npy_storage_dtype(dtype, options_.bf16)) return std::nullopt;
    return Error{fmt::format("dtype {} has no .npy representation", dtype_name(dtype))};
  }

  const ConvertOptions& options_;
  const DumpFile& file_;
  std::string basename_;
  Bytes contents_;
  const PlanCallbacks& out_;
};

}  // namespace

Status plan_outputs(const ConvertOptions& options, const DumpFile& file, std::string_view basename,
                    Bytes contents, const PlanCallbacks& callbacks) {
  return Planner(options, file, basename, contents, callbacks).plan();
}

}  // namespace msdt::dump
