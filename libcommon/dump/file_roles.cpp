#include "dump/file_roles.h"

#include "dump/ascend_dump.h"
#include "tensor/npy.h"

namespace msdt::dump {

bool kind_holds_tensors(FileKind kind) {
  switch (kind) {
    case FileKind::LegacyBin:
    case FileKind::Npy:
    case FileKind::AscendBinary:
    case FileKind::Overflow:
    case FileKind::MsprobeRaw:
    case FileKind::ConvertedNpy:
      return true;
    default:
      return false;
  }
}

bool kind_is_side_file(FileKind kind) {
  switch (kind) {
    case FileKind::MappingCsv:
    case FileKind::ExecutionOrder:
    case FileKind::GlobalExecutionOrder:
    case FileKind::KernelArgsJson:
    case FileKind::Metadata:
    case FileKind::Graph:
    case FileKind::ConvertFailedList:
      return true;
    default:
      return false;
  }
}

bool is_unknown_file(const DumpFile& file, Bytes contents, const Error& error, std::string& why) {
  // A name no grammar knows, with content that is not a container either, is not damage but a
  // stranger in the tree.
  if (file.name.kind != FileKind::Unknown || looks_like_npy(contents) ||
      looks_like_ascend_dump(contents))
    return false;
  why = file.name.problem.empty() ? error.message : file.name.problem;
  return true;
}

bool report_read_failure(const DumpFile& file, Bytes contents, const Error& error,
                         Diagnostics& diagnostics) {
  std::string why;
  if (is_unknown_file(file, contents, error, why)) {
    diagnostics.warning(file.display, Error("unknown file: " + why));
    return false;
  }
  diagnostics.error(file.display, error);
  return true;
}

}  // namespace msdt::dump
