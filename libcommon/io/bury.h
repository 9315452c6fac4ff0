// LLVM's BuryPointer: a process about to exit need not free a large structure allocation by
// allocation (a 100 000-node graph is a million of them). The pointer is kept in a static table
// where LeakSanitizer finds it, so the memory is reachable, not leaked, and the OS takes it back.
// Only for what a tool's last step leaves behind: the table is small, and once it is full objects
// are freed as usual.
#pragma once

#include <memory>

namespace msdt {

// True when `pointer` was kept; false when the table is full and the caller must free it.
bool bury_pointer(const void* pointer);

template <class T>
void bury(std::unique_ptr<T> object) {
  if (bury_pointer(object.get())) (void)object.release();
}

}  // namespace msdt
