// FST waves of the verilated RTL blocks of a run (one file, all RTL models).
// Verilated signals only: SystemC signals cannot share a Verilator trace file.
#pragma once
#include <memory>
#include <string>

#include "core/time.hpp"

class VerilatedFstC;

namespace tb {

class Waves {
 public:
  Waves();
  ~Waves();
  /// The trace object models attach to with model.trace(fst(), depth) before open().
  VerilatedFstC* fst() { return fst_.get(); }
  /// Creates the folder if needed. Returns "" or one line naming the problem.
  std::string open(const std::string& path);
  bool active() const { return open_; }
  void dump(core::Ps t);
  /// Dumps before this time are skipped (process-wide: `cosim run --waves-from`).
  static void set_start(core::Ps t);
  void close();
  const std::string& path() const { return path_; }

 private:
  std::unique_ptr<VerilatedFstC> fst_;
  std::string path_;
  bool open_ = false;
};

}  // namespace tb
