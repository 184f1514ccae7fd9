// Plain-text tables for run summaries.
#pragma once
#include <string>
#include <vector>

namespace tb {

class Table {
 public:
  explicit Table(std::string title = "") : title_(std::move(title)) {}
  Table& header(std::vector<std::string> h) { header_ = std::move(h); return *this; }
  Table& row(std::vector<std::string> r) { rows_.push_back(std::move(r)); return *this; }
  std::string str() const;

 private:
  std::string title_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tb

namespace tb {
/// Peak resident memory of this process, MiB (for `cosim bench`).
double peak_rss_mib();
}  // namespace tb
