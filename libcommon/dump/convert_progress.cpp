// dump-convert's progress bar: files and bytes done, on stderr when it is a terminal.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "dump/convert_internal.h"

namespace msdt::dump {
namespace {

std::string human(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, uint64_t total_files, uint64_t total_bytes)
    : enabled_(enabled), total_files_(total_files), total_bytes_(total_bytes) {
  if (enabled_) thread_ = std::thread([this] { loop(); });
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::file_done(uint64_t bytes) {
  files_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

void ProgressBar::print_line(const std::function<void()>& print) {
  std::lock_guard lock(draw_mutex_);
  if (enabled_ && drawn_) {
    std::cerr << "\r\033[K";
    drawn_ = false;
  }
  print();
}

void ProgressBar::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(stop_mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  std::lock_guard lock(draw_mutex_);
  if (drawn_) std::cerr << "\r\033[K" << std::flush;
  drawn_ = false;
}

void ProgressBar::draw() {
  uint64_t files = files_.load(std::memory_order_relaxed);
  uint64_t bytes = bytes_.load(std::memory_order_relaxed);
  constexpr uint64_t kWidth = 30;
  uint64_t filled = total_files_ ? files * kWidth / total_files_ : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, ' ');
  std::lock_guard lock(draw_mutex_);
  std::cerr << fmt::format("\r\033[Kdump-convert: [{}] {}/{} files, {} / {}", bar, files,
                           total_files_, human(bytes), human(total_bytes_))
            << std::flush;
  drawn_ = true;
}

void ProgressBar::loop() {
  std::unique_lock lock(stop_mutex_);
  // At most 10 redraws a second: a bar must not cost more than the work it reports.
  while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
    lock.unlock();
    draw();
    lock.lock();
  }
}

}  // namespace msdt::dump
