// A minimal FlatBuffers builder for test inputs (mkfixture's "ms_lite" and the .ms reader's unit
// tests), written the way the official builder writes: back to front, children before the tables
// that refer to them, every scalar aligned to its size, a vtable in front of each table, the root
// offset and file identifier last (mindir spec §9.2). No vtable is shared, so every table's layout
// is visible on its own.
//
// Objects are referred to by their distance from the end of the buffer (a Ref), which does not
// change as more is written in front of them. Fields are added with their field id; ids left out
// are absent (offset 0 in the vtable).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace msdt::testing {

class FlatBufferWriter {
 public:
  using Ref = uint32_t;

  // Bytes written so far (the distance of the front from the end).
  uint32_t size() const { return static_cast<uint32_t>(rev_.size()); }

  Ref string(std::string_view text) {
    align(4, text.size() + 1);
    push_byte(std::byte{0});
    push_bytes(std::as_bytes(std::span(text.data(), text.size())));
    push_scalar<uint32_t>(static_cast<uint32_t>(text.size()));
    return size();
  }

  // A vector of scalars given as their little-endian bytes, `element_size` bytes each (1, 2, 4 or
  // 8), aligned to that size and to 4 for the count.
  Ref scalar_vector(std::span<const std::byte> elements, size_t element_size) {
    align(std::max<size_t>(4, element_size), elements.size());
    push_bytes(elements);
    push_scalar<uint32_t>(static_cast<uint32_t>(elements.size() / element_size));
    return size();
  }
  template <class T>
  Ref vector_of(std::span<const T> values) {
    std::vector<std::byte> bytes;
    for (T v : values) append_le(bytes, v);
    return scalar_vector(bytes, sizeof(T));
  }
  // A vector of tables (or strings): uoffsets, each relative to its own slot.
  Ref ref_vector(std::span<const Ref> refs) {
    align(4, refs.size() * 4);
    for (size_t i = refs.size(); i-- > 0;) push_scalar<uint32_t>(size() + 4 - refs[i]);
    push_scalar<uint32_t>(static_cast<uint32_t>(refs.size()));
    return size();
  }

  void start_table() {
    fields_.clear();
    table_start_ = size();
  }
  template <class T>
  void add_scalar(uint16_t field, T value) {
    align(sizeof(T), 0);
    push_scalar(value);
    fields_.emplace_back(field, size());
  }
  void add_ref(uint16_t field, Ref ref) {
    align(4, 0);
    push_scalar<uint32_t>(size() + 4 - ref);
    fields_.emplace_back(field, size());
  }
  Ref end_table() {
    align(4, 0);
    push_scalar<int32_t>(0);  // the soffset to the vtable, patched below
    const uint32_t table = size();
    uint16_t count = 0;
    for (const auto& [field, at] : fields_) count = std::max<uint16_t>(count, field + 1);
    std::vector<uint16_t> slots(count, 0);
    for (const auto& [field, at] : fields_) slots[field] = static_cast<uint16_t>(table - at);
    // The vtable goes right in front of the table, so the soffset (table - vtable) is positive.
    for (size_t i = slots.size(); i-- > 0;) push_scalar<uint16_t>(slots[i]);
    push_scalar<uint16_t>(static_cast<uint16_t>(table - table_start_));
    push_scalar<uint16_t>(static_cast<uint16_t>(4 + 2 * count));
    patch_i32(table, static_cast<int32_t>(size() - table));
    return table;
  }

  // The finished buffer: the root uoffset, then the 4-character identifier when one is given.
  std::vector<std::byte> finish(Ref root, std::string_view identifier) {
    align(max_align_, 4 + identifier.size());
    for (size_t i = identifier.size(); i-- > 0;) push_byte(static_cast<std::byte>(identifier[i]));
    push_scalar<uint32_t>(size() + 4 - root);
    std::vector<std::byte> out(rev_.rbegin(), rev_.rend());
    return out;
  }

  template <class T>
  static void append_le(std::vector<std::byte>& out, T value) {
    std::byte raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));  // every supported host is little-endian
    out.insert(out.end(), raw, raw + sizeof(T));
  }

 private:
  // Pads so that, once `then` more bytes are written, the front is aligned to `alignment`.
  void align(size_t alignment, size_t then) {
    max_align_ = std::max(max_align_, alignment);
    while ((rev_.size() + then) % alignment != 0) rev_.push_back(std::byte{0});
  }
  void push_byte(std::byte b) { rev_.push_back(b); }
  void push_bytes(std::span<const std::byte> bytes) {
    for (size_t i = bytes.size(); i-- > 0;) rev_.push_back(bytes[i]);
  }
  template <class T>
  void push_scalar(T value) {
    std::vector<std::byte> bytes;
    append_le(bytes, value);
    push_bytes(bytes);
  }
  // The int32 whose first byte lies `at` bytes from the end.
  void patch_i32(uint32_t at, int32_t value) {
    std::vector<std::byte> bytes;
    append_le(bytes, value);
    for (size_t i = 0; i < 4; ++i) rev_[at - 1 - i] = bytes[i];
  }

  std::vector<std::byte> rev_;  // the buffer back to front
  std::vector<std::pair<uint16_t, uint32_t>> fields_;
  uint32_t table_start_ = 0;
  size_t max_align_ = 1;
};

}  // namespace msdt::testing
