// Checks a GTKWave layout (waves/<testbench>.gtkw) against an FST dump: every
// signal the layout shows must exist in the dump, and the dump's timescale is
// picoseconds. Needs fst2vcd (Debian package gtkwave).
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

inline void expect_layout_matches_dump(const std::string& layout, const std::string& fst) {
  ASSERT_TRUE(std::filesystem::exists(fst)) << fst;
  EXPECT_GT(std::filesystem::file_size(fst), 1000u);
  std::ifstream lay(layout);
  ASSERT_TRUE(lay.good()) << layout;
  std::vector<std::string> sigs;
  for (std::string line; std::getline(lay, line);)
    if (!line.empty() && line[0] != '[' && line[0] != '@' && line[0] != '*' && line[0] != '-') sigs.push_back(line);
  ASSERT_GT(sigs.size(), 10u);
  if (std::system("command -v fst2vcd >/dev/null 2>&1") != 0) GTEST_SKIP() << "fst2vcd (gtkwave) not installed";
  const std::string vcd = fst + ".vcd";
  ASSERT_EQ(std::system(("fst2vcd -f " + fst + " -o " + vcd + " >/dev/null 2>&1").c_str()), 0);
  std::ifstream v(vcd);
  std::stringstream ss;
  ss << v.rdbuf();
  const std::string text = ss.str();
  // dump times are picoseconds: GTKWave must show ns, not seconds
  EXPECT_NE(text.find("$timescale\n\t1ps"), std::string::npos) << text.substr(0, 200);
  std::set<std::string> have;
  std::vector<std::string> scope;
  std::istringstream in(text);
  for (std::string tok; in >> tok;) {
    if (tok == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (tok == "$upscope") {
      if (!scope.empty()) scope.pop_back();
    } else if (tok == "$var") {
      std::string type, width, id, name;
      in >> type >> width >> id >> name;
      std::string full;
      for (auto& sc : scope) full += sc + ".";
      have.insert(full + name);
    } else if (tok == "$enddefinitions") {
      break;
    }
  }
  for (auto& s : sigs) {
    const std::string base = s.substr(0, s.find('['));  // "tx.avail_o[63:0]" -> "tx.avail_o"
    EXPECT_TRUE(have.count(base)) << "layout signal not in the wave: " << s;
  }
}
