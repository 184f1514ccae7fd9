// fst_info FILE: prints "timescale <exp10>", "start <time>" and "signals <n>" of
// an FST dump (for the command-line tests; uses the fstapi reader Verilator ships).
#include <cstdio>

#include "gtkwave/fstapi.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fst_info FILE\n");
    return 2;
  }
  void* ctx = fstReaderOpen(argv[1]);
  if (!ctx) {
    std::fprintf(stderr, "fst_info: cannot read %s\n", argv[1]);
    return 1;
  }
  std::printf("timescale %d\nstart %llu\nsignals %llu\n", static_cast<int>(fstReaderGetTimescale(ctx)),
              static_cast<unsigned long long>(fstReaderGetStartTime(ctx)),
              static_cast<unsigned long long>(fstReaderGetVarCount(ctx)));
  fstReaderClose(ctx);
  return 0;
}
