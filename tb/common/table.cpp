#include "common/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tb {

std::string Table::str() const {
  size_t ncol = header_.size();
  for (auto& r : rows_) ncol = std::max(ncol, r.size());
  std::vector<size_t> w(ncol, 0);
  auto widen = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  };
  widen(header_);
  for (auto& r : rows_) widen(r);
  auto line = [&](const std::vector<std::string>& r) {
    std::string out = " ";
    for (size_t i = 0; i < ncol; ++i) {
      const std::string cell = i < r.size() ? r[i] : "";
      // numbers (and quantities with units) right-aligned, text left-aligned
      bool num = !cell.empty() && (std::isdigit(static_cast<unsigned char>(cell[0])) || cell[0] == '-' || cell[0] == '+');
      std::string sep = i == 0 ? "" : "  ";
      out += (num && i > 0) ? fmt::format("{}{:>{}}", sep, cell, w[i]) : fmt::format("{}{:<{}}", sep, cell, w[i]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!title_.empty()) out += title_ + "\n";
  if (!header_.empty()) {
    out += line(header_);
    size_t total = 1;
    for (size_t i = 0; i < ncol; ++i) total += w[i] + (i ? 2 : 0);
    out += " " + std::string(total - 1, '-') + "\n";
  }
  for (auto& r : rows_) out += line(r);
  return out;
}

}  // namespace tb

#include <sys/resource.h>

namespace tb {
double peak_rss_mib() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}
}  // namespace tb
