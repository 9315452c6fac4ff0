#include "dump/file_workers.h"

#include "dump/file_roles.h"

namespace msdt::dump {

void DeferredDiagnostics::replay(Diagnostics& diagnostics) const {
  for (const Item& item : items_) {
    if (item.warning)
      diagnostics.warning(item.file, item.error);
    else
      diagnostics.error(item.file, item.error);
  }
}

void read_one_file(const DumpFile& file, const std::function<void(const DumpTensor&)>& visit,
                   DeferredDiagnostics& diagnostics, Reading reading) {
  auto mapped = open_dump_file(file, reading);
  if (!mapped) {
    diagnostics.error(file.display, mapped.error());
    return;
  }
  Bytes contents = (*mapped)->bytes();
  auto warn = [&](const Error& warning) { diagnostics.warning(file.display, warning); };
  if (auto status = read_dump_file(file, contents, warn, visit)) {
    std::string why;
    if (is_unknown_file(file, contents, *status, why))
      diagnostics.warning(file.display, Error("unknown file: " + why));
    else
      diagnostics.error(file.display, *status);
  }
}

}  // namespace msdt::dump
