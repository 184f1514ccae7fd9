#include "common/waves.hpp"

#include <filesystem>
#include <system_error>

#include "verilated.h"
#include "verilated_fst_c.h"

namespace tb {

Waves::Waves() : fst_(std::make_unique<VerilatedFstC>()) { Verilated::traceEverOn(true); }

Waves::~Waves() { close(); }

std::string Waves::open(const std::string& path) {
  std::error_code ec;
  auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return "cannot create folder " + dir.string() + ": " + ec.message();
  // Dump times are integer picoseconds (core::Ps).
  fst_->set_time_unit("1ps");
  fst_->set_time_resolution("1ps");
  fst_->open(path.c_str());
  if (!fst_->isOpen()) return "cannot open wave file " + path;
  path_ = path;
  open_ = true;
  return "";
}

namespace {
core::Ps g_start = 0;
}

void Waves::set_start(core::Ps t) { g_start = t; }

void Waves::dump(core::Ps t) {
  if (open_ && t >= g_start) fst_->dump(static_cast<uint64_t>(t));
}

void Waves::close() {
  if (open_) {
    fst_->close();
    open_ = false;
  }
}

}  // namespace tb
