// Checks a GTKWave layout (waves/<testbench>.gtkw) against an FST dump: every
// signal the layout shows must exist in the dump, and the dump's timescale is
// picoseconds. Reads the FST with the reader of GTKWave's fstapi, which
// Verilator ships and the verilated libraries already link (no external tool).
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "gtkwave/fstapi.h"

/// Full names ("tx.avail_o") of every variable in an FST file; timescale and
/// first dumped time through the out parameters.
inline std::set<std::string> fst_signals(const std::string& fst, int* timescale = nullptr, uint64_t* start = nullptr) {
  std::set<std::string> have;
  void* ctx = fstReaderOpen(fst.c_str());
  if (!ctx) return have;
  if (timescale) *timescale = fstReaderGetTimescale(ctx);
  if (start) *start = fstReaderGetStartTime(ctx);
  std::vector<std::string> scope;
  while (fstHier* h = fstReaderIterateHier(ctx)) {
    if (h->htyp == FST_HT_SCOPE) {
      scope.emplace_back(h->u.scope.name, h->u.scope.name_length);
    } else if (h->htyp == FST_HT_UPSCOPE) {
      if (!scope.empty()) scope.pop_back();
    } else if (h->htyp == FST_HT_VAR) {
      std::string name(h->u.var.name, h->u.var.name_length);
      name = name.substr(0, name.find_first_of(" ["));  // "avail_o [63:0]" -> "avail_o"
      std::string full;
      for (auto& s : scope) full += s + ".";
      have.insert(full + name);
    }
  }
  fstReaderClose(ctx);
  return have;
}

inline void expect_layout_matches_dump(const std::string& layout, const std::string& fst) {
  ASSERT_TRUE(std::filesystem::exists(fst)) << fst;
  EXPECT_GT(std::filesystem::file_size(fst), 1000u);
  std::ifstream lay(layout);
  ASSERT_TRUE(lay.good()) << layout;
  std::vector<std::string> sigs;
  for (std::string line; std::getline(lay, line);)
    if (!line.empty() && line[0] != '[' && line[0] != '@' && line[0] != '*' && line[0] != '-') sigs.push_back(line);
  ASSERT_GT(sigs.size(), 10u);
  int ts = 0;
  const std::set<std::string> have = fst_signals(fst, &ts);
  ASSERT_GT(have.size(), 10u) << "cannot read " << fst;
  // dump times are picoseconds: GTKWave must show ns, not seconds
  EXPECT_EQ(ts, -12);
  for (auto& s : sigs) {
    const std::string base = s.substr(0, s.find('['));  // "tx.avail_o[63:0]" -> "tx.avail_o"
    EXPECT_TRUE(have.count(base)) << "layout signal not in the wave: " << s;
  }
}
