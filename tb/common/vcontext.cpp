#include "common/vcontext.hpp"

#include "verilated.h"

#ifdef COSIM_RTL_COVERAGE
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "verilated_cov.h"
#endif

namespace tb {

#ifdef COSIM_RTL_COVERAGE
namespace {
std::mutex& graveyard_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<VerilatedModel*>& graveyard() {
  static auto* v = new std::vector<VerilatedModel*>;  // never destroyed: read at exit
  return *v;
}
// At exit: every model ever built in this process, live or retired, into one file.
void write_coverage() {
  const char* env = std::getenv("COSIM_COVERAGE_DIR");
  const std::filesystem::path dir = (env && *env) ? env : COSIM_COVERAGE_DIR_DEFAULT;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (dir / (std::to_string(::getpid()) + ".dat")).string();
  shared_context()->coveragep()->write(path.c_str());
}
}  // namespace

void RetireModel::operator()(VerilatedModel* m) const {
  const std::lock_guard<std::mutex> lock(graveyard_mutex());
  graveyard().push_back(m);
}
#endif

VerilatedContext* shared_context() {
  static VerilatedContext* ctx = [] {
    auto* c = new VerilatedContext;
    c->fatalOnError(false);
#ifdef COSIM_RTL_COVERAGE
    c->coveragep();  // create the database before the exit handler is registered
    std::atexit(write_coverage);
#endif
    return c;
  }();
  return ctx;
}

}  // namespace tb
