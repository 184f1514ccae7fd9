// Unit tests of the cycle-exact CBFC reference model (models/cbfc), per docs/cbfc.md.
// Every expectation below is a concrete value derived by hand from the document.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cbfc/cbfc.hpp"

namespace {

using cbfc::Params;
using cbfc::RxIn;
using cbfc::RxModel;
using cbfc::RxOut;
using cbfc::TxIn;
using cbfc::TxModel;
using cbfc::TxOut;

Params make_params(unsigned n, unsigned cnt_w, unsigned len_w, unsigned cu_log2,
                   unsigned tmr_w = 16, unsigned rfr_w = 16) {
  Params p;
  p.num_classes = n;
  p.cnt_width = cnt_w;
  p.len_width = len_w;
  p.credit_unit_log2 = cu_log2;
  p.timer_width = tmr_w;
  p.refresh_width = rfr_w;
  return p;
}

// ------------------------------------------------------------ tx bench
// Drives one TxModel edge by edge; every helper performs exactly one edge.
struct TxBench {
  TxModel m;
  cbfc::TxCfg cfg;
  explicit TxBench(const Params& p) : m(p) {}

  void reset(const std::vector<uint32_t>& init, uint32_t mtu, int edges = 1) {
    cfg = cbfc::TxCfg{};
    for (size_t i = 0; i < init.size(); ++i) cfg.init_credits[i] = init[i];
    cfg.mtu = mtu;
    TxIn in;
    in.rst_n = false;
    in.cfg = cfg;
    for (int i = 0; i < edges; ++i) m.tick(in);
  }
  TxIn idle() const {
    TxIn in;
    in.rst_n = true;
    in.cfg = cfg;
    return in;
  }
  TxOut edge(const TxIn& in) {
    m.tick(in);
    return m.outputs();
  }
  TxOut send(uint32_t cls, uint32_t len) {
    TxIn in = idle();
    in.tx_valid = true;
    in.tx_class = cls;
    in.tx_len = len;
    return edge(in);
  }
  TxOut update(uint32_t cls, uint32_t limit) {
    TxIn in = idle();
    in.cu_valid = true;
    in.cu_class = cls;
    in.cu_limit = limit;
    return edge(in);
  }
  TxOut send_and_update(uint32_t tcls, uint32_t len, uint32_t ucls, uint32_t limit) {
    TxIn in = idle();
    in.tx_valid = true;
    in.tx_class = tcls;
    in.tx_len = len;
    in.cu_valid = true;
    in.cu_class = ucls;
    in.cu_limit = limit;
    return edge(in);
  }
  TxOut nop() { return edge(idle()); }
};

// ------------------------------------------------------------ rx bench
struct RxBench {
  RxModel m;
  cbfc::RxCfg cfg;
  explicit RxBench(const Params& p) : m(p) {}

  void reset(const std::vector<uint32_t>& buf, uint32_t thr, uint32_t timer, uint32_t refresh = 0) {
    cfg = cbfc::RxCfg{};
    for (size_t i = 0; i < buf.size(); ++i) cfg.buf_credits[i] = buf[i];
    cfg.threshold = thr;
    cfg.timer = timer;
    cfg.refresh = refresh;
    RxIn in;
    in.rst_n = false;
    in.cfg = cfg;
    m.tick(in);
  }
  RxIn idle() const {
    RxIn in;
    in.rst_n = true;
    in.cfg = cfg;
    return in;
  }
  RxOut edge(const RxIn& in) {
    m.tick(in);
    return m.outputs();
  }
  RxOut arrive(uint32_t cls, uint32_t len) {
    RxIn in = idle();
    in.rx_valid = true;
    in.rx_class = cls;
    in.rx_len = len;
    return edge(in);
  }
  RxOut free(uint32_t cls, uint32_t len) {
    RxIn in = idle();
    in.free_valid = true;
    in.free_class = cls;
    in.free_len = len;
    return edge(in);
  }
  RxOut arrive_and_free(uint32_t acls, uint32_t alen, uint32_t fcls, uint32_t flen) {
    RxIn in = idle();
    in.rx_valid = true;
    in.rx_class = acls;
    in.rx_len = alen;
    in.free_valid = true;
    in.free_class = fcls;
    in.free_len = flen;
    return edge(in);
  }
  RxOut nop() { return edge(idle()); }
};

// ================================================================ Params

TEST(CbfcModelParams, CreditsByteUnits) {
  const Params p = make_params(4, 16, 14, 0);
  EXPECT_EQ(p.credits(0), 0u);
  EXPECT_EQ(p.credits(1), 1u);
  EXPECT_EQ(p.credits(2), 2u);
  EXPECT_EQ(p.credits(1500), 1500u);
  EXPECT_EQ(p.credits(16383), 16383u);
}

TEST(CbfcModelParams, CreditsCellUnits) {
  const Params p = make_params(4, 16, 14, 6);
  EXPECT_EQ(p.credits(0), 0u);
  EXPECT_EQ(p.credits(1), 1u);
  EXPECT_EQ(p.credits(63), 1u);
  EXPECT_EQ(p.credits(64), 1u);
  EXPECT_EQ(p.credits(65), 2u);
  EXPECT_EQ(p.credits(128), 2u);
  EXPECT_EQ(p.credits(129), 3u);
  EXPECT_EQ(p.credits(1500), 24u);
  EXPECT_EQ(p.credits(16383), 256u);
  // Does not wrap for a full 32-bit argument.
  EXPECT_EQ(p.credits(0xffffffffu), 1u << 26);
}

TEST(CbfcModelParams, CreditsOtherUnits) {
  EXPECT_EQ(make_params(4, 16, 14, 3).credits(9), 2u);
  EXPECT_EQ(make_params(4, 16, 14, 3).credits(8), 1u);
  EXPECT_EQ(make_params(4, 16, 16, 12).credits(4096), 1u);
  EXPECT_EQ(make_params(4, 16, 16, 12).credits(4097), 2u);
  EXPECT_EQ(make_params(4, 16, 16, 12).credits(65535), 16u);
}

TEST(CbfcModelParams, DefaultsValid) {
  Params p;
  EXPECT_EQ(p.validate(), "");
  EXPECT_EQ(p.num_classes, 4u);
  EXPECT_EQ(p.cnt_width, 16u);
  EXPECT_EQ(p.len_width, 14u);
  EXPECT_EQ(p.credit_unit_log2, 6u);
  EXPECT_EQ(p.timer_width, 16u);
  EXPECT_EQ(p.refresh_width, 16u);
  EXPECT_EQ(p.cnt_mask(), 0xffffu);
  // The refresh is off unless configured: a default RxCfg behaves as before it existed.
  EXPECT_EQ(cbfc::RxCfg{}.refresh, 0u);
}

TEST(CbfcModelParams, BoundariesValid) {
  EXPECT_EQ(make_params(1, 2, 1, 0, 1, 1).validate(), "");
  EXPECT_EQ(make_params(32, 31, 16, 12, 31, 31).validate(), "");
}

TEST(CbfcModelParams, ValidateNumClasses) {
  EXPECT_EQ(make_params(0, 16, 14, 6).validate(), "num_classes=0 out of range (allowed 1..32)");
  EXPECT_EQ(make_params(33, 16, 14, 6).validate(),
            "num_classes=33 out of range (allowed 1..32)");
}

TEST(CbfcModelParams, ValidateCntWidth) {
  EXPECT_EQ(make_params(4, 1, 14, 6).validate(), "cnt_width=1 out of range (allowed 2..31)");
  EXPECT_EQ(make_params(4, 0, 14, 6).validate(), "cnt_width=0 out of range (allowed 2..31)");
  EXPECT_EQ(make_params(4, 32, 14, 6).validate(), "cnt_width=32 out of range (allowed 2..31)");
}

TEST(CbfcModelParams, ValidateLenWidth) {
  EXPECT_EQ(make_params(4, 16, 0, 6).validate(), "len_width=0 out of range (allowed 1..16)");
  EXPECT_EQ(make_params(4, 16, 17, 6).validate(), "len_width=17 out of range (allowed 1..16)");
}

TEST(CbfcModelParams, ValidateCreditUnit) {
  EXPECT_EQ(make_params(4, 16, 14, 13).validate(),
            "credit_unit_log2=13 out of range (allowed 0..12)");
}

TEST(CbfcModelParams, ValidateTimerWidth) {
  EXPECT_EQ(make_params(4, 16, 14, 6, 0).validate(),
            "timer_width=0 out of range (allowed 1..31)");
  EXPECT_EQ(make_params(4, 16, 14, 6, 32).validate(),
            "timer_width=32 out of range (allowed 1..31)");
}

TEST(CbfcModelParams, ValidateRefreshWidth) {
  EXPECT_EQ(make_params(4, 16, 14, 6, 16, 0).validate(),
            "refresh_width=0 out of range (allowed 1..31)");
  EXPECT_EQ(make_params(4, 16, 14, 6, 16, 32).validate(),
            "refresh_width=32 out of range (allowed 1..31)");
  EXPECT_THROW(RxModel(make_params(4, 16, 14, 6, 16, 0)), std::invalid_argument);
}

TEST(CbfcModelParams, ValidateIsOneLine) {
  // Several bad parameters: still exactly one line, naming one parameter.
  const std::string s = make_params(0, 0, 0, 99, 0).validate();
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.find('\n'), std::string::npos);
}

TEST(CbfcModelParams, ClassWidth) {
  const std::vector<std::pair<unsigned, unsigned>> cases = {
      {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {16, 4}, {17, 5}, {32, 5}};
  for (const auto& [n, w] : cases) {
    EXPECT_EQ(make_params(n, 16, 14, 6).class_width(), w) << "num_classes=" << n;
  }
}

TEST(CbfcModelParams, ModelsRejectInvalidParams) {
  EXPECT_THROW(TxModel(make_params(0, 16, 14, 6)), std::invalid_argument);
  EXPECT_THROW(RxModel(make_params(4, 16, 14, 6, 0)), std::invalid_argument);
  EXPECT_NO_THROW(TxModel(make_params(32, 31, 16, 12, 31)));
  EXPECT_NO_THROW(RxModel(make_params(1, 2, 1, 0, 1)));
}

TEST(CbfcModelParams, OutputEqualityComparesAllFields) {
  TxOut a, b;
  EXPECT_EQ(a, b);
  b.avail[31] = 1;
  EXPECT_NE(a, b);
  b = a;
  b.elig = 4;
  EXPECT_NE(a, b);
  b = a;
  b.err_underflow = 1;
  EXPECT_NE(a, b);
  b = a;
  b.err_overflow = 2;
  EXPECT_NE(a, b);
  b = a;
  b.err_class = true;
  EXPECT_NE(a, b);

  RxOut x, y;
  EXPECT_EQ(x, y);
  y.cu_valid = true;
  EXPECT_NE(x, y);
  y = x;
  y.cu_class = 1;
  EXPECT_NE(x, y);
  y = x;
  y.cu_limit = 1;
  EXPECT_NE(x, y);
  y = x;
  y.occ[7] = 1;
  EXPECT_NE(x, y);
  y = x;
  y.pend[0] = 1;
  EXPECT_NE(x, y);
  y = x;
  y.err_overflow = 1;
  EXPECT_NE(x, y);
  y = x;
  y.err_underflow = 1;
  EXPECT_NE(x, y);
  y = x;
  y.err_class = true;
  EXPECT_NE(x, y);
}

// ================================================================ Tx

TEST(CbfcModelTx, ResetValues) {
  TxBench b(make_params(4, 16, 14, 6));
  b.reset({10, 20, 2, 3}, 3 * 64);
  const TxOut o = b.m.outputs();
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[1], 20u);
  EXPECT_EQ(o.avail[2], 2u);
  EXPECT_EQ(o.avail[3], 3u);
  for (unsigned c = 4; c < cbfc::kMaxClasses; ++c) EXPECT_EQ(o.avail[c], 0u) << c;
  EXPECT_EQ(o.elig, 0b1011u);  // mtu = 3 credits; class 2 has only 2
  EXPECT_EQ(o.err_underflow, 0u);
  EXPECT_EQ(o.err_overflow, 0u);
  EXPECT_FALSE(o.err_class);
}

TEST(CbfcModelTx, OutputsForUnusedClassesAreZero) {
  TxBench b(make_params(2, 16, 14, 0));
  cbfc::TxCfg cfg;
  for (auto& v : cfg.init_credits) v = 100;
  TxIn in;
  in.rst_n = false;
  in.cfg = cfg;
  b.m.tick(in);
  const TxOut o = b.m.outputs();
  EXPECT_EQ(o.avail[0], 100u);
  EXPECT_EQ(o.avail[1], 100u);
  for (unsigned c = 2; c < cbfc::kMaxClasses; ++c) EXPECT_EQ(o.avail[c], 0u) << c;
  EXPECT_EQ(o.elig, 0b11u);  // mtu = 0
}

TEST(CbfcModelTx, ConfigSampledOnlyInReset) {
  TxBench b(make_params(2, 16, 14, 0));
  b.reset({10, 10}, 5);
  TxIn in = b.idle();
  in.cfg.init_credits[0] = 99;
  in.cfg.init_credits[1] = 1;
  in.cfg.mtu = 50;
  TxOut o = b.edge(in);
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.elig, 0b11u);  // still mtu 5
  // The new cfg is only sampled at the next reset edge.
  in.rst_n = false;
  o = b.edge(in);
  EXPECT_EQ(o.avail[0], 99u);
  EXPECT_EQ(o.avail[1], 1u);
  EXPECT_EQ(o.elig, 0b01u);  // mtu 50: only class 0
  // init_q was re-sampled too: overflow check against 99, not 10.
  b.cfg = in.cfg;
  o = b.send(0, 90);
  EXPECT_EQ(o.avail[0], 9u);
  o = b.update(0, 99 + 90);
  EXPECT_EQ(o.avail[0], 99u);
  EXPECT_EQ(o.err_overflow, 0u);
}

TEST(CbfcModelTx, ResetClearsStateAndIgnoresTraffic) {
  TxBench b(make_params(3, 16, 14, 0));
  b.reset({10, 10, 10}, 0);
  b.send(0, 4);
  b.send(1, 11);           // underflow
  b.update(0, 1000);       // overflow
  TxOut o = b.send(3, 1);  // bad class
  EXPECT_EQ(o.avail[0], 6u);
  EXPECT_EQ(o.err_underflow, 0b10u);
  EXPECT_EQ(o.err_overflow, 0b01u);
  EXPECT_TRUE(o.err_class);
  // Reset with traffic on the inputs: traffic is ignored, everything restored.
  TxIn in = b.idle();
  in.rst_n = false;
  in.tx_valid = true;
  in.tx_class = 0;
  in.tx_len = 5;
  in.cu_valid = true;
  in.cu_class = 1;
  in.cu_limit = 3;
  o = b.edge(in);
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.avail[2], 10u);
  EXPECT_EQ(o.err_underflow, 0u);
  EXPECT_EQ(o.err_overflow, 0u);
  EXPECT_FALSE(o.err_class);
  // Held in reset for several edges: same state.
  EXPECT_EQ(b.edge(in), o);
}

TEST(CbfcModelTx, ConsumeCells) {
  TxBench b(make_params(4, 16, 14, 6));
  b.reset({10, 10, 10, 10}, 0);
  TxOut o = b.send(1, 100);  // 2 cells
  EXPECT_EQ(o.avail[1], 8u);
  o = b.send(1, 64);  // 1 cell
  EXPECT_EQ(o.avail[1], 7u);
  o = b.send(1, 65);  // 2 cells
  EXPECT_EQ(o.avail[1], 5u);
  o = b.send(1, 1);  // 1 cell
  EXPECT_EQ(o.avail[1], 4u);
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[2], 10u);
  EXPECT_EQ(o.avail[3], 10u);
  EXPECT_EQ(o.err_underflow, 0u);
}

TEST(CbfcModelTx, ZeroLengthFrameNeedsNoCredit) {
  TxBench b(make_params(1, 16, 14, 6));
  b.reset({1}, 0);
  TxOut o = b.send(0, 64);
  EXPECT_EQ(o.avail[0], 0u);
  o = b.send(0, 0);
  EXPECT_EQ(o.avail[0], 0u);
  EXPECT_EQ(o.err_underflow, 0u);
}

TEST(CbfcModelTx, OutputsChangeOnlyAtEdge) {
  TxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 0);
  // outputs() is a pure function of state: calling it twice with no edge
  // gives the same values, and a nop edge changes nothing.
  EXPECT_EQ(b.m.outputs(), b.m.outputs());
  const TxOut before = b.m.outputs();
  EXPECT_EQ(b.nop(), before);
}

TEST(CbfcModelTx, ExactFitAllowed) {
  TxBench b(make_params(2, 16, 14, 6));
  b.reset({5, 5}, 0);
  TxOut o = b.send(0, 5 * 64);
  EXPECT_EQ(o.avail[0], 0u);
  EXPECT_EQ(o.err_underflow, 0u);
  // Byte credits: exact fit of several frames.
  TxBench bb(make_params(1, 16, 14, 0));
  bb.reset({1500}, 1500);
  o = bb.send(0, 1000);
  EXPECT_EQ(o.avail[0], 500u);
  o = bb.send(0, 500);
  EXPECT_EQ(o.avail[0], 0u);
  EXPECT_EQ(o.err_underflow, 0u);
}

TEST(CbfcModelTx, UnderflowStickyNoConsumption) {
  TxBench b(make_params(4, 16, 14, 6));
  b.reset({3, 3, 3, 3}, 0);
  TxOut o = b.send(2, 4 * 64);  // needs 4, has 3
  EXPECT_EQ(o.avail[2], 3u);
  EXPECT_EQ(o.err_underflow, 0b0100u);
  EXPECT_EQ(o.err_overflow, 0u);
  EXPECT_FALSE(o.err_class);
  o = b.send(2, 3 * 64);  // fits; error stays
  EXPECT_EQ(o.avail[2], 0u);
  EXPECT_EQ(o.err_underflow, 0b0100u);
  o = b.nop();
  EXPECT_EQ(o.err_underflow, 0b0100u);
  o = b.update(2, 6);  // credits come back; error is sticky
  EXPECT_EQ(o.avail[2], 3u);
  EXPECT_EQ(o.err_underflow, 0b0100u);
  o = b.send(0, 1);  // another class underflows independently? no: fits
  EXPECT_EQ(o.err_underflow, 0b0100u);
  EXPECT_EQ(o.avail[0], 2u);
  o = b.send(0, 3 * 64);
  EXPECT_EQ(o.err_underflow, 0b0101u);
  EXPECT_EQ(o.avail[0], 2u);
}

TEST(CbfcModelTx, UnderflowUsesPreEdgeAvail) {
  TxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 0);
  b.send(0, 10);
  // avail 0; a send and an update in the same cycle: the send sees avail 0.
  TxOut o = b.send_and_update(0, 1, 0, 20);
  EXPECT_EQ(o.err_underflow, 1u);
  EXPECT_EQ(o.avail[0], 10u);  // update applied, send not
}

TEST(CbfcModelTx, UpdateAccepted) {
  TxBench b(make_params(2, 16, 14, 0));
  b.reset({10, 10}, 0);
  b.send(0, 6);
  TxOut o = b.update(0, 13);  // navail = 13 - 6 = 7
  EXPECT_EQ(o.avail[0], 7u);
  o = b.update(0, 16);  // navail = 10 == init: allowed
  EXPECT_EQ(o.avail[0], 10u);
  o = b.update(0, 16);  // duplicate: harmless
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.err_overflow, 0u);
  // A stale (older) update that does not go below consumed is accepted as the
  // whole truth (avail = limit - consumed <= init).
  o = b.update(0, 14);
  EXPECT_EQ(o.avail[0], 8u);
  EXPECT_EQ(o.err_overflow, 0u);
}

TEST(CbfcModelTx, OverflowRejectedSticky) {
  TxBench b(make_params(2, 16, 14, 0));
  b.reset({10, 10}, 0);
  TxOut o = b.update(1, 11);  // navail 11 > 10
  EXPECT_EQ(o.err_overflow, 0b10u);
  EXPECT_EQ(o.avail[1], 10u);
  b.send(1, 6);  // consumed 6, limit 10
  o = b.update(1, 5);  // backwards past zero: 5 - 6 = 65535 (mod 2^16) > 10
  EXPECT_EQ(o.avail[1], 4u);
  EXPECT_EQ(o.err_overflow, 0b10u);
  o = b.update(1, 16);  // good update; error stays
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.err_overflow, 0b10u);
  EXPECT_EQ(o.err_underflow, 0u);
  // Class 0 unaffected until its own overflow.
  EXPECT_EQ(o.avail[0], 10u);
  b.send(0, 6);
  o = b.update(0, 5);  // backwards past zero on a clean class
  EXPECT_EQ(o.err_overflow, 0b11u);
  EXPECT_EQ(o.avail[0], 4u);
}

TEST(CbfcModelTx, OverflowUsesPreEdgeConsumed) {
  TxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 0);
  b.send(0, 4);  // consumed 4, limit 10
  // Update to 15 together with a send of 3: navail uses consumed 4 -> 11 > 10.
  TxOut o = b.send_and_update(0, 3, 0, 15);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.avail[0], 3u);  // limit 10, consumed 7
  // Update to 17 with send of 2: navail = 17 - 7 = 10 ok; consumed 9 -> avail 8.
  o = b.send_and_update(0, 2, 0, 17);
  EXPECT_EQ(o.avail[0], 8u);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.err_underflow, 0u);
}

TEST(CbfcModelTx, SameCycleSendAndUpdateDifferentClasses) {
  TxBench b(make_params(2, 16, 14, 0));
  b.reset({10, 10}, 0);
  b.send(1, 5);
  TxOut o = b.send_and_update(0, 3, 1, 15);
  EXPECT_EQ(o.avail[0], 7u);
  EXPECT_EQ(o.avail[1], 10u);
}

TEST(CbfcModelTx, WrapAroundSmallCounters) {
  // CntWidth 6: counters wrap modulo 64. init 20 < 32.
  const Params p = make_params(2, 6, 14, 0);
  TxBench b(p);
  b.reset({20, 20}, 0);
  uint64_t consumed = 0;  // unbounded reference
  uint32_t limit = 20;
  for (int i = 0; i < 500; ++i) {
    const uint32_t len = 1 + static_cast<uint32_t>(i % 20);
    TxOut o = b.send(0, len);
    consumed += len;
    ASSERT_EQ(o.avail[0], 20u - len) << "frame " << i;
    limit = static_cast<uint32_t>((limit + len) & 63u);  // cumulative limit, wrapped
    o = b.update(0, limit);
    ASSERT_EQ(o.avail[0], 20u) << "frame " << i;
    ASSERT_EQ(o.err_overflow, 0u);
    ASSERT_EQ(o.err_underflow, 0u);
  }
  EXPECT_GT(consumed, 64u * 50);  // wrapped many times
  // A concrete point across the wrap: consume to 60 (mod 64), then limit 80 -> 16.
  TxBench w(p);
  w.reset({20}, 0);
  for (int i = 0; i < 6; ++i) {
    w.send(0, 10);
    w.update(0, static_cast<uint32_t>((20 + 10 * (i + 1)) & 63));
  }
  // consumed = 60, limit = 80 mod 64 = 16
  TxOut o = w.nop();
  EXPECT_EQ(o.avail[0], 20u);
  o = w.send(0, 7);  // consumed 67 -> 3
  EXPECT_EQ(o.avail[0], 13u);
  o = w.update(0, 16 + 7);  // limit 23, consumed 3
  EXPECT_EQ(o.avail[0], 20u);
  o = w.update(0, 24);  // navail 21 > 20: overflow even across the wrap
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.avail[0], 20u);
}

TEST(CbfcModelTx, EligAgainstMtu) {
  TxBench b(make_params(3, 16, 14, 6));
  b.reset({24, 23, 100}, 1500);  // mtu = 24 cells
  TxOut o = b.nop();
  EXPECT_EQ(o.elig, 0b101u);
  o = b.send(0, 1);  // 23 left
  EXPECT_EQ(o.avail[0], 23u);
  EXPECT_EQ(o.elig, 0b100u);
  o = b.update(0, 25);  // back to 24
  EXPECT_EQ(o.elig, 0b101u);
  o = b.send(2, 76 * 64);  // 24 left
  EXPECT_EQ(o.elig, 0b101u);
  o = b.send(2, 1);
  EXPECT_EQ(o.elig, 0b001u);
}

TEST(CbfcModelTx, EligMtuZeroAlwaysEligible) {
  TxBench b(make_params(2, 16, 14, 6));
  b.reset({0, 1}, 0);
  EXPECT_EQ(b.nop().elig, 0b11u);
}

TEST(CbfcModelTx, MtuLargerThanCounterNeverEligible) {
  // credits(mtu) = 100 does not fit CntWidth 6: compared at full precision.
  TxBench b(make_params(1, 6, 14, 0));
  b.reset({63}, 100);
  EXPECT_EQ(b.nop().elig, 0u);
}

TEST(CbfcModelTx, BadClassSetsErrClass) {
  TxBench b(make_params(3, 16, 14, 0));  // ClassWidth 2: class 3 is representable
  b.reset({10, 10, 10}, 0);
  TxOut o = b.send(3, 5);
  EXPECT_TRUE(o.err_class);
  EXPECT_EQ(o.avail[0], 10u);
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.avail[2], 10u);
  EXPECT_EQ(o.err_underflow, 0u);
  o = b.nop();
  EXPECT_TRUE(o.err_class);  // sticky
  TxBench u(make_params(3, 16, 14, 0));
  u.reset({10, 10, 10}, 0);
  o = u.update(3, 10);
  EXPECT_TRUE(o.err_class);
  EXPECT_EQ(o.err_overflow, 0u);
  // One class, ClassWidth 1: class 1 is bad.
  TxBench one(make_params(1, 16, 14, 0));
  one.reset({10}, 0);
  o = one.send(1, 5);
  EXPECT_TRUE(o.err_class);
  EXPECT_EQ(o.avail[0], 10u);
}

TEST(CbfcModelTx, InputsMaskedToPortWidths) {
  // num_classes 4 -> ClassWidth 2: class 5 is seen as class 1 (no err_class).
  TxBench b(make_params(4, 6, 8, 0));
  b.reset({10, 10, 10, 10}, 0);
  TxOut o = b.send(5, 256 + 3);  // len masked to 8 bits: 3
  EXPECT_FALSE(o.err_class);
  EXPECT_EQ(o.avail[1], 7u);
  EXPECT_EQ(o.err_underflow, 0u);
  o = b.update(4 + 1, 64 + 13);  // limit masked to 6 bits: 13 -> avail 10
  EXPECT_EQ(o.avail[1], 10u);
  EXPECT_EQ(o.err_overflow, 0u);
  // cfg masked: init 64 + 5 -> 5; mtu 256 + 6 (8 bits) -> 6.
  TxBench c(make_params(2, 6, 8, 0));
  c.reset({64 + 5, 7}, 256 + 6);
  o = c.nop();
  EXPECT_EQ(o.avail[0], 5u);
  EXPECT_EQ(o.avail[1], 7u);
  EXPECT_EQ(o.elig, 0b10u);
}

TEST(CbfcModelTx, NeedWiderThanCounterIsUnderflow) {
  // Byte credits with CntWidth 6: a 100-byte frame needs 100 credits, which is
  // more than any 6-bit avail; it must not be truncated to 36.
  TxBench b(make_params(1, 6, 14, 0));
  b.reset({63}, 0);
  TxOut o = b.send(0, 100);
  EXPECT_EQ(o.err_underflow, 1u);
  EXPECT_EQ(o.avail[0], 63u);
}

// ================================================================ Rx

TEST(CbfcModelRx, ResetValues) {
  RxBench b(make_params(4, 16, 14, 6));
  b.reset({10, 20, 30, 40}, 4, 7);
  const RxOut o = b.m.outputs();
  EXPECT_FALSE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 0u);
  for (unsigned c = 0; c < cbfc::kMaxClasses; ++c) {
    EXPECT_EQ(o.occ[c], 0u);
    EXPECT_EQ(o.pend[c], 0u);
  }
  EXPECT_EQ(o.err_overflow, 0u);
  EXPECT_EQ(o.err_underflow, 0u);
  EXPECT_FALSE(o.err_class);
  EXPECT_EQ(o, RxOut{});
}

TEST(CbfcModelRx, ConfigSampledOnlyInReset) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 5, 0);
  RxIn in = b.idle();
  in.cfg.buf_credits[0] = 100;
  in.cfg.threshold = 1;
  in.rx_valid = true;
  in.rx_len = 11;  // overflows the sampled buffer of 10
  RxOut o = b.edge(in);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.occ[0], 0u);
  o = b.arrive(0, 10);
  o = b.free(0, 1);  // threshold is still 5
  EXPECT_EQ(o.pend[0], 1u);
  o = b.nop();
  EXPECT_FALSE(o.cu_valid);
  // Reset with new cfg: buffer 100, threshold 1, error cleared.
  in = b.idle();
  in.rst_n = false;
  in.cfg.buf_credits[0] = 100;
  in.cfg.threshold = 1;
  o = b.edge(in);
  EXPECT_EQ(o, RxOut{});
  b.cfg = in.cfg;
  o = b.arrive(0, 100);
  EXPECT_EQ(o.occ[0], 100u);
  EXPECT_EQ(o.err_overflow, 0u);
  o = b.free(0, 1);
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 101u);  // limit restarted from the new buffer
}

TEST(CbfcModelRx, ArrivalAndOverflow) {
  RxBench b(make_params(2, 16, 14, 6));
  b.reset({10, 10}, 100, 0);
  RxOut o = b.arrive(0, 100);  // 2 cells
  EXPECT_EQ(o.occ[0], 2u);
  o = b.arrive(0, 8 * 64);  // exact fit: 10
  EXPECT_EQ(o.occ[0], 10u);
  EXPECT_EQ(o.err_overflow, 0u);
  o = b.arrive(0, 1);  // does not fit: dropped, sticky
  EXPECT_EQ(o.occ[0], 10u);
  EXPECT_EQ(o.err_overflow, 1u);
  o = b.arrive(1, 64);
  EXPECT_EQ(o.occ[1], 1u);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.err_underflow, 0u);
  EXPECT_EQ(o.pend[0], 0u);
}

TEST(CbfcModelRx, OverflowSumNotWrapped) {
  // occ + need is compared at full precision: 60 + 10 = 70 > 63 even though
  // (60 + 10) mod 64 = 6.
  RxBench b(make_params(1, 6, 14, 0));
  b.reset({63}, 63, 0);
  b.arrive(0, 60);
  RxOut o = b.arrive(0, 10);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.occ[0], 60u);
  o = b.arrive(0, 100);  // need 100 > any 6-bit buffer
  EXPECT_EQ(o.occ[0], 60u);
}

TEST(CbfcModelRx, FreeAndUnderflow) {
  RxBench b(make_params(2, 16, 14, 0));
  b.reset({100, 100}, 1000, 0);
  b.arrive(1, 30);
  RxOut o = b.free(1, 10);
  EXPECT_EQ(o.occ[1], 20u);
  EXPECT_EQ(o.pend[1], 10u);
  o = b.free(1, 21);  // more than occupied: ignored, sticky
  EXPECT_EQ(o.occ[1], 20u);
  EXPECT_EQ(o.pend[1], 10u);
  EXPECT_EQ(o.err_underflow, 0b10u);
  o = b.free(1, 20);  // exactly all
  EXPECT_EQ(o.occ[1], 0u);
  EXPECT_EQ(o.pend[1], 30u);
  EXPECT_EQ(o.err_underflow, 0b10u);
  o = b.free(0, 1);
  EXPECT_EQ(o.err_underflow, 0b11u);
  EXPECT_EQ(o.pend[0], 0u);
  EXPECT_EQ(o.err_overflow, 0u);
  EXPECT_FALSE(o.cu_valid);
}

TEST(CbfcModelRx, ArrivalAndFreeSameCycleUsePreEdgeOcc) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 1000, 0);
  // occ 0: arrival of 5 and free of 5 together: the free sees occ 0.
  RxOut o = b.arrive_and_free(0, 5, 0, 5);
  EXPECT_EQ(o.occ[0], 5u);
  EXPECT_EQ(o.err_underflow, 1u);
  EXPECT_EQ(o.pend[0], 0u);
  // occ 10 (full): arrival of 1 and free of 3: the arrival sees occ 10.
  b.arrive(0, 5);
  o = b.arrive_and_free(0, 1, 0, 3);
  EXPECT_EQ(o.occ[0], 7u);
  EXPECT_EQ(o.err_overflow, 1u);
  EXPECT_EQ(o.pend[0], 3u);
  // Both valid: 7 + 3 - 4 = 6.
  o = b.arrive_and_free(0, 3, 0, 4);
  EXPECT_EQ(o.occ[0], 6u);
  EXPECT_EQ(o.pend[0], 7u);
}

TEST(CbfcModelRx, BadClassSetsErrClass) {
  RxBench b(make_params(3, 16, 14, 0));
  b.reset({10, 10, 10}, 1, 0);
  RxOut o = b.arrive(3, 5);
  EXPECT_TRUE(o.err_class);
  EXPECT_EQ(o.occ[0] + o.occ[1] + o.occ[2], 0u);
  o = b.nop();
  EXPECT_TRUE(o.err_class);
  RxBench f(make_params(3, 16, 14, 0));
  f.reset({10, 10, 10}, 1, 0);
  o = f.free(3, 5);
  EXPECT_TRUE(o.err_class);
  EXPECT_EQ(o.err_underflow, 0u);
  // Class masked to ClassWidth: 4 classes, class 6 -> class 2.
  RxBench m(make_params(4, 16, 8, 0));
  m.reset({10, 10, 10, 10}, 100, 0);
  o = m.arrive(6, 256 + 4);  // len masked to 8 bits: 4
  EXPECT_FALSE(o.err_class);
  EXPECT_EQ(o.occ[2], 4u);
  o = m.free(4 + 2, 512 + 1);
  EXPECT_EQ(o.occ[2], 3u);
  EXPECT_EQ(o.pend[2], 1u);
}

TEST(CbfcModelRx, ThresholdTriggeredUpdate) {
  RxBench b(make_params(2, 16, 14, 0));
  b.reset({100, 50}, 8, 0);
  b.arrive(1, 40);
  RxOut o = b.free(1, 5);
  EXPECT_EQ(o.pend[1], 5u);
  EXPECT_FALSE(o.cu_valid);
  o = b.nop();
  EXPECT_FALSE(o.cu_valid);  // 5 < 8
  o = b.free(1, 4);          // pend 9 >= 8: request at the next edge
  EXPECT_EQ(o.pend[1], 9u);
  EXPECT_FALSE(o.cu_valid);
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 50u + 9u);  // previous limit + pend
  EXPECT_EQ(o.pend[1], 0u);
  o = b.nop();  // one cycle only; class and limit hold
  EXPECT_FALSE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 59u);
  o = b.free(1, 8);  // exactly the threshold
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 59u + 8u);
  EXPECT_EQ(o.occ[1], 40u - 5u - 4u - 8u);
}

TEST(CbfcModelRx, ThresholdZeroBehavesAsOne) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({10}, 0, 0);
  b.arrive(0, 10);
  RxOut o = b.free(0, 1);
  EXPECT_FALSE(o.cu_valid);
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 11u);
  // Threshold masked to CntWidth: 64 with CntWidth 6 is 0, behaves as 1.
  RxBench m(make_params(1, 6, 14, 0));
  m.reset({10}, 64, 0);
  m.arrive(0, 10);
  m.free(0, 1);
  o = m.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 11u);
}

TEST(CbfcModelRx, LimitWrapsModuloCntWidth) {
  RxBench b(make_params(1, 6, 14, 0));
  b.reset({20}, 1, 0);
  uint32_t expect = 20;
  for (int i = 0; i < 40; ++i) {
    b.arrive(0, 7);
    b.free(0, 7);
    RxOut o = b.nop();
    expect = (expect + 7) & 63u;
    ASSERT_TRUE(o.cu_valid) << i;
    ASSERT_EQ(o.cu_limit, expect) << i;
  }
  EXPECT_EQ(expect, (20u + 40u * 7u) & 63u);
}

TEST(CbfcModelRx, TimerTriggeredUpdateAfterExactCycles) {
  for (uint32_t T : {1u, 2u, 5u, 17u}) {
    SCOPED_TRACE("timer=" + std::to_string(T));
    RxBench b(make_params(2, 16, 14, 0));
    b.reset({100, 100}, 1000, T);
    b.arrive(1, 50);
    RxOut o = b.free(1, 3);  // edge E0: pend becomes 3, tmr 0
    EXPECT_FALSE(o.cu_valid);
    // Edges E0+1 .. E0+T: tmr counts 1..T, no update yet.
    for (uint32_t k = 1; k <= T; ++k) {
      o = (k == 1) ? b.free(1, 2) : b.nop();  // more frees do not restart the timer
      ASSERT_FALSE(o.cu_valid) << "edge E0+" << k;
    }
    // Edge E0+T+1: pre-edge tmr == T -> granted.
    o = b.nop();
    EXPECT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 1u);
    EXPECT_EQ(o.cu_limit, 105u);
    EXPECT_EQ(o.pend[1], 0u);
    // Nothing pending: no further update.
    for (int k = 0; k < 3 * static_cast<int>(T) + 3; ++k) ASSERT_FALSE(b.nop().cu_valid);
  }
}

TEST(CbfcModelRx, TimerRestartsAfterGrant) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({100}, 1000, 3);
  b.arrive(0, 50);
  b.free(0, 1);  // E0
  b.nop();
  b.nop();
  b.nop();
  RxOut o = b.free(0, 2);  // E0+4: granted with pend 1; the 2 freed now are kept
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 101u);
  EXPECT_EQ(o.pend[0], 2u);
  // Timer restarted at the grant: 3 more edges without update, then update.
  for (int k = 0; k < 3; ++k) ASSERT_FALSE(b.nop().cu_valid) << k;
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 103u);
}

TEST(CbfcModelRx, TimerZeroDisabled) {
  RxBench b(make_params(1, 16, 14, 0, 16));
  b.reset({100}, 1000, 0);
  b.arrive(0, 50);
  b.free(0, 10);
  for (int k = 0; k < 70000; ++k) {  // beyond the 16-bit timer range
    const RxOut o = b.m.outputs();
    ASSERT_FALSE(o.cu_valid) << k;
    b.nop();
  }
  EXPECT_EQ(b.m.outputs().pend[0], 10u);
  // cfg_timer masked to TimerWidth: 16 with TimerWidth 4 is 0 -> disabled.
  RxBench m(make_params(1, 16, 14, 0, 4));
  m.reset({100}, 1000, 16);
  m.arrive(0, 50);
  m.free(0, 10);
  for (int k = 0; k < 100; ++k) ASSERT_FALSE(m.nop().cu_valid) << k;
  // ... and 17 with TimerWidth 4 is 1.
  RxBench one(make_params(1, 16, 14, 0, 4));
  one.reset({100}, 1000, 17);
  one.arrive(0, 50);
  one.free(0, 10);
  EXPECT_FALSE(one.nop().cu_valid);
  EXPECT_TRUE(one.nop().cu_valid);
}

TEST(CbfcModelRx, FreedInGrantCycleKept) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({100}, 4, 0);
  b.arrive(0, 60);
  b.free(0, 4);              // pend 4 >= 4: granted at the next edge
  RxOut o = b.free(0, 3);    // grant edge; 3 freed now
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 104u);  // pend 4 only
  EXPECT_EQ(o.pend[0], 3u);     // 3 carried
  o = b.nop();
  EXPECT_FALSE(o.cu_valid);     // 3 < 4
  o = b.free(0, 1);             // pend 4
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 108u);  // nothing leaked: 104 + 3 + 1
  EXPECT_EQ(o.occ[0], 60u - 8u);
}

TEST(CbfcModelRx, RoundRobinWithRotatingPointer) {
  // 4 classes: timer requests on classes 0 and 2, threshold requests on 1 and 3,
  // arranged to collide, so that the pointer (not class index) decides.
  RxBench b(make_params(4, 16, 14, 0));
  const uint32_t T = 10;
  b.reset({1000, 1000, 1000, 1000}, 10, T);
  for (uint32_t c = 0; c < 4; ++c) b.arrive(c, 500);
  b.free(0, 1);  // E0: class 0 timer starts; requests at E0+T+1
  b.free(2, 1);  // E0+1: class 2 requests at E0+T+2
  for (uint32_t k = 2; k < T; ++k) ASSERT_FALSE(b.nop().cu_valid);
  b.free(3, 10);  // E0+T: class 3 requests from E0+T+1
  // E0+T+1: requests {0, 3}, rr = 0 -> 0; class 1 reaches threshold.
  RxOut o = b.free(1, 10);
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 1001u);
  // E0+T+2: requests {1, 2, 3}, rr = 1 -> 1.
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 1010u);
  // requests {2, 3}, rr = 2 -> 2.
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 2u);
  EXPECT_EQ(o.cu_limit, 1001u);
  o = b.nop();
  EXPECT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 3u);
  EXPECT_EQ(o.cu_limit, 1010u);
  o = b.nop();
  EXPECT_FALSE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 3u);
  EXPECT_EQ(o.cu_limit, 1010u);
}

TEST(CbfcModelRx, RoundRobinPointerHoldsWhenIdleAndWraps) {
  RxBench b(make_params(4, 16, 14, 0));
  b.reset({1000, 1000, 1000, 1000}, 5, 6);
  for (uint32_t c = 0; c < 4; ++c) b.arrive(c, 500);
  b.free(2, 5);  // class 2 alone -> granted, rr = 3
  RxOut o = b.nop();
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 2u);
  for (int k = 0; k < 5; ++k) ASSERT_FALSE(b.nop().cu_valid);  // rr holds at 3
  // Make classes 1 and 3 request together: class 1 via timer, class 3 via threshold.
  b.free(1, 1);  // E0; timer 6 -> requests at E0+7
  for (int k = 1; k < 6; ++k) ASSERT_FALSE(b.nop().cu_valid);
  b.free(3, 5);  // E0+6: class 3 requests from E0+7
  o = b.nop();   // E0+7: requests {1, 3}, rr = 3 -> order 3, 0, 1, 2 -> 3
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 3u);
  EXPECT_EQ(o.cu_limit, 1005u);
  o = b.nop();   // rr wrapped to 0 -> order 0, 1, ... -> 1
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 1001u);
  // A later lone request of class 0 (rr = 2): granted after wrapping around.
  b.free(0, 5);
  o = b.nop();
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 1005u);
}

TEST(CbfcModelRx, RoundRobinFairnessAllClassesRequesting) {
  // Classes 1..3 are primed with timer requests that arrive one per cycle while
  // class 0 requests continuously; every granted class is refilled in its grant
  // cycle (freed credits are kept), so once all have arrived, all four request
  // on every cycle and the grants must rotate 0,1,2,3,0,...
  const unsigned n = 4;
  const uint32_t thr = 4, T = 10, buf = 10000;
  RxBench b(make_params(n, 16, 14, 0));
  b.reset({buf, buf, buf, buf}, thr, T);
  for (uint32_t c = 0; c < n; ++c) b.arrive(c, 5000);
  b.free(1, 1);  // E0 = edge p
  b.free(2, 1);  // p+1
  b.free(3, 1);  // p+2
  b.free(0, 4);  // p+3: class 0 requests from p+4
  // Edge p+4+i. Expected grant: class 0 until class 1's timer expires at p+T+1.
  std::vector<uint32_t> limit(n, buf);
  std::vector<uint32_t> pend = {4, 1, 1, 1};
  std::vector<int> grants(n, 0);
  const int steady_from = static_cast<int>(T) + 4;  // edge p+T+4 (index i from p+4)
  for (int i = 0; i < steady_from - 4 + 200; ++i) {
    const int edge = 4 + i;  // offset from p
    uint32_t expect;
    if (edge < static_cast<int>(T) + 1) {
      expect = 0;
    } else {
      expect = static_cast<uint32_t>((edge - static_cast<int>(T)) % n);
    }
    RxOut o = b.free(expect, thr);  // refill the class being granted
    ASSERT_TRUE(o.cu_valid) << "edge p+" << edge;
    ASSERT_EQ(o.cu_class, expect) << "edge p+" << edge;
    limit[expect] += pend[expect];
    pend[expect] = thr;
    ASSERT_EQ(o.cu_limit, limit[expect]) << "edge p+" << edge;
    for (uint32_t c = 0; c < n; ++c) ASSERT_EQ(o.pend[c], pend[c]) << c;
    if (edge >= steady_from) {
      ++grants[expect];
      // Everybody is requesting on every cycle.
      for (uint32_t c = 0; c < n; ++c) ASSERT_GE(o.pend[c], thr) << c;
    }
  }
  for (uint32_t c = 0; c < n; ++c) EXPECT_EQ(grants[c], 50) << c;
}

TEST(CbfcModelRx, TimerSaturates) {
  // TimerWidth 2: the timer saturates at 3 = cfg timer. Class 1's timer request
  // loses arbitration once; it must still be requesting on the next cycle
  // (a wrapping timer would read 0 and drop the request for 4 cycles).
  RxBench b(make_params(2, 16, 14, 0, 2));
  b.reset({200, 200}, 100, 3);
  b.arrive(0, 150);
  b.arrive(1, 150);
  b.free(1, 10);  // F1: tmr1 = 0
  b.nop();        // tmr1 = 1
  b.nop();        // tmr1 = 2
  RxOut o = b.free(0, 100);  // tmr1 = 3; class 0 reaches threshold
  EXPECT_FALSE(o.cu_valid);
  o = b.nop();  // requests {0, 1}, rr 0 -> 0; tmr1 saturates at 3
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 300u);
  o = b.nop();  // class 1 still requesting
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 210u);
}

TEST(CbfcModelRx, TimerSaturatesAtMaxWidth3) {
  // TimerWidth 3 (max 7), cfg timer 7: a timer that reached the maximum keeps
  // requesting after losing arbitration although it cannot count further.
  RxBench b(make_params(2, 16, 14, 0, 3));
  b.reset({300, 200}, 100, 7);
  b.arrive(0, 250);
  b.arrive(1, 150);
  b.free(1, 10);  // tmr1 = 0
  for (int k = 0; k < 6; ++k) ASSERT_FALSE(b.nop().cu_valid);  // tmr1 = 1..6
  RxOut o = b.free(0, 100);  // tmr1 = 7 (max); class 0 reaches threshold
  EXPECT_FALSE(o.cu_valid);
  o = b.free(0, 100);  // requests {0, 1} -> 0 (rr 0); refill class 0 to keep it requesting
  ASSERT_TRUE(o.cu_valid);
  ASSERT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 400u);
  o = b.nop();  // requests {0, 1}, rr 1 -> 1: timer stayed at 7
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 1u);
  EXPECT_EQ(o.cu_limit, 210u);
  o = b.nop();
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 500u);
}

// ---------------------------------------------------------------- refresh

TEST(CbfcModelRx, RefreshIdleClassesEveryRefreshPlusOneCycles) {
  // After the reset edge every refresh counter is 0; at edge k it reads k - 1
  // before the edge. Both classes request at edge R+1; round robin grants 0,
  // then 1 (still requesting) at R+2; each restarts at its grant. Updates carry
  // the unchanged limit (= buffer): nothing was freed.
  for (uint32_t R : {1u, 2u, 5u, 17u}) {
    SCOPED_TRACE("refresh=" + std::to_string(R));
    RxBench b(make_params(2, 16, 14, 0));
    b.reset({100, 50}, 1000, 0, R);
    for (uint32_t k = 1; k <= 5 * (R + 1) + 1; ++k) {
      const RxOut o = b.nop();
      const bool c0 = k % (R + 1) == 0;
      const bool c1 = k > R + 1 && (k - 1) % (R + 1) == 0;
      ASSERT_EQ(o.cu_valid, c0 || c1) << "edge " << k;
      if (c0) {
        ASSERT_EQ(o.cu_class, 0u) << "edge " << k;
        ASSERT_EQ(o.cu_limit, 100u) << "edge " << k;
      }
      if (c1) {
        ASSERT_EQ(o.cu_class, 1u) << "edge " << k;
        ASSERT_EQ(o.cu_limit, 50u) << "edge " << k;
      }
      ASSERT_EQ(o.pend[0] + o.pend[1], 0u);
    }
  }
}

TEST(CbfcModelRx, RefreshCarriesPendingCredits) {
  // Threshold out of reach, timer off: only the refresh returns the 3 credits.
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({100}, 1000, 0, 10);
  b.arrive(0, 50);         // edge 1
  RxOut o = b.free(0, 3);  // edge 2
  EXPECT_EQ(o.pend[0], 3u);
  for (int k = 3; k <= 10; ++k) ASSERT_FALSE(b.nop().cu_valid) << "edge " << k;
  o = b.nop();  // edge 11: pre-edge counter 10 -> granted
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_class, 0u);
  EXPECT_EQ(o.cu_limit, 103u);  // limit + pend, like any update
  EXPECT_EQ(o.pend[0], 0u);
  for (int k = 12; k <= 21; ++k) ASSERT_FALSE(b.nop().cu_valid) << "edge " << k;
  o = b.nop();  // edge 22
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 103u);  // nothing new: the same limit again
  EXPECT_EQ(o.occ[0], 47u);
}

TEST(CbfcModelRx, RefreshCounterRestartsAtEveryGrant) {
  // A threshold update at edge 4 restarts the refresh counter: the next
  // update is the refresh at edge 4 + 8 + 1 = 13, not at 9.
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({100}, 5, 0, 8);
  b.arrive(0, 50);         // edge 1
  b.nop();                 // edge 2
  RxOut o = b.free(0, 5);  // edge 3
  EXPECT_FALSE(o.cu_valid);
  o = b.nop();  // edge 4: threshold
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 105u);
  for (int k = 5; k <= 12; ++k) ASSERT_FALSE(b.nop().cu_valid) << "edge " << k;
  o = b.nop();  // edge 13: refresh
  ASSERT_TRUE(o.cu_valid);
  EXPECT_EQ(o.cu_limit, 105u);
}

TEST(CbfcModelRx, RefreshZeroDisabledAndMaskedToWidth) {
  RxBench b(make_params(2, 16, 14, 0));
  b.reset({100, 100}, 1000, 0, 0);
  b.arrive(0, 50);
  b.free(0, 10);  // pending below the threshold, no timer, no refresh: kept
  for (int k = 0; k < 70000; ++k) ASSERT_FALSE(b.nop().cu_valid) << k;  // beyond the 16-bit counter
  EXPECT_EQ(b.m.outputs().pend[0], 10u);
  // cfg_refresh masked to RefreshWidth: 16 with RefreshWidth 4 is 0 -> off ...
  RxBench m(make_params(1, 16, 14, 0, 16, 4));
  m.reset({100}, 1000, 0, 16);
  for (int k = 0; k < 100; ++k) ASSERT_FALSE(m.nop().cu_valid) << k;
  // ... and 17 is 1: updates at edges 2, 4, 6, ...
  RxBench one(make_params(1, 16, 14, 0, 16, 4));
  one.reset({100}, 1000, 0, 17);
  for (int k = 1; k <= 10; ++k) {
    const RxOut o = one.nop();
    ASSERT_EQ(o.cu_valid, k % 2 == 0) << "edge " << k;
  }
}

TEST(CbfcModelRx, RefreshConfigSampledOnlyInReset) {
  RxBench b(make_params(1, 16, 14, 0));
  b.reset({100}, 1000, 0, 0);
  RxIn in = b.idle();
  in.cfg.refresh = 1;  // ignored out of reset
  for (int k = 0; k < 50; ++k) ASSERT_FALSE(b.edge(in).cu_valid) << k;
  in.rst_n = false;  // sampled now: counter restarts from 0
  b.edge(in);
  in.rst_n = true;
  EXPECT_FALSE(b.edge(in).cu_valid);  // edge 1: counter 0 before the edge
  EXPECT_TRUE(b.edge(in).cu_valid);   // edge 2
  EXPECT_FALSE(b.edge(in).cu_valid);
}

TEST(CbfcModelRx, RefreshArbitratedRoundRobinWithNormalUpdates) {
  // A refresh is one more reason to request; the round-robin pointer, not
  // the reason, decides who goes first.
  {
    // Pointer at 0: class 0's refresh goes before class 1's threshold update.
    RxBench b(make_params(2, 16, 14, 0));
    b.reset({100, 100}, 5, 0, 6);
    b.arrive(1, 50);         // edge 1
    b.free(1, 5);            // edge 2
    RxOut o = b.nop();       // edge 3: class 1 threshold; rr -> 0; counters 3 and 0
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 1u);
    EXPECT_EQ(o.cu_limit, 105u);
    EXPECT_FALSE(b.nop().cu_valid);  // edge 4
    EXPECT_FALSE(b.nop().cu_valid);  // edge 5
    o = b.free(1, 5);                // edge 6: class 1 requests from edge 7
    EXPECT_FALSE(o.cu_valid);
    o = b.nop();  // edge 7: {0 refresh, 1 threshold}, rr 0 -> 0
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 0u);
    EXPECT_EQ(o.cu_limit, 100u);
    o = b.nop();  // edge 8: class 1
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 1u);
    EXPECT_EQ(o.cu_limit, 110u);
  }
  {
    // Pointer at 1: class 1's refresh goes before class 0's threshold update.
    RxBench b(make_params(2, 16, 14, 0));
    b.reset({100, 100}, 5, 0, 6);
    b.arrive(0, 50);         // edge 1
    b.free(0, 5);            // edge 2
    RxOut o = b.nop();       // edge 3: class 0 threshold; rr -> 1
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 0u);
    EXPECT_FALSE(b.nop().cu_valid);  // edge 4
    EXPECT_FALSE(b.nop().cu_valid);  // edge 5
    b.free(0, 5);                    // edge 6
    o = b.nop();  // edge 7: {0 threshold, 1 refresh}, rr 1 -> 1
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 1u);
    EXPECT_EQ(o.cu_limit, 100u);
    o = b.nop();  // edge 8: class 0
    ASSERT_TRUE(o.cu_valid);
    EXPECT_EQ(o.cu_class, 0u);
    EXPECT_EQ(o.cu_limit, 110u);
  }
}

TEST(CbfcModelRx, RefreshCounterSaturates) {
  // RefreshWidth 2, refresh 3: three idle classes all request at edge 4 and
  // are granted at 4, 5, 6. Classes 1 and 2 keep requesting while they wait
  // because their counters stay at 3 (a wrapping counter would read 0 and
  // drop the request for four cycles).
  RxBench b(make_params(3, 16, 14, 0, 16, 2));
  b.reset({10, 20, 30}, 1000, 0, 3);
  const int expect[] = {-1, -1, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
  for (int k = 1; k <= 14; ++k) {
    const RxOut o = b.nop();
    const int e = expect[k - 1];
    ASSERT_EQ(o.cu_valid, e >= 0) << "edge " << k;
    if (e >= 0) {
      ASSERT_EQ(o.cu_class, static_cast<uint32_t>(e)) << "edge " << k;
      ASSERT_EQ(o.cu_limit, 10u * (e + 1)) << "edge " << k;
    }
  }
}

TEST(CbfcModelRx, OutputsForUnusedClassesAreZero) {
  RxBench b(make_params(2, 16, 14, 0));
  cbfc::RxCfg cfg;
  for (auto& v : cfg.buf_credits) v = 50;
  cfg.threshold = 100;
  b.cfg = cfg;
  RxIn in = b.idle();
  in.rst_n = false;
  b.m.tick(in);
  b.arrive(1, 20);
  const RxOut o = b.free(1, 5);
  EXPECT_EQ(o.occ[1], 15u);
  EXPECT_EQ(o.pend[1], 5u);
  for (unsigned c = 2; c < cbfc::kMaxClasses; ++c) {
    EXPECT_EQ(o.occ[c], 0u);
    EXPECT_EQ(o.pend[c], 0u);
  }
}

// ================================================================ closed loop

struct LoopConfig {
  const char* name;
  Params p;
  uint32_t buf;         // per class, in credits
  uint32_t thr;
  uint32_t timer;
  unsigned fwd_delay;   // cycles from tx_valid to rx_valid
  unsigned ret_delay;   // cycles from cu_valid_o to cu_valid_i
  uint32_t max_len;     // bytes
  double p_send;
  double p_drain;
  int cycles;
  uint32_t refresh = 0;  // cfg_refresh (0 = off)
  double p_loss = 0;     // chance that an update is lost on the return link
};

struct Frame {
  uint32_t cls;
  uint32_t len;
};

struct Update {
  uint32_t cls;
  uint32_t limit;
};

// Runs the loop, then quiesces it (no sends, full drain). Returns the credits
// missing at the end over all classes (neither available at the sender nor
// pending at the receiver). With `expect_home` the loop must make progress
// and every credit must be back.
uint64_t run_closed_loop(const LoopConfig& lc, uint32_t seed, bool expect_home = true) {
  SCOPED_TRACE(std::string(lc.name) + " seed " + std::to_string(seed));
  const Params& p = lc.p;
  const unsigned n = p.num_classes;
  const uint32_t mask = p.cnt_mask();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);

  TxModel tx(p);
  RxModel rx(p);
  TxIn ti;
  RxIn ri;
  for (unsigned c = 0; c < n; ++c) {
    ti.cfg.init_credits[c] = lc.buf;
    ri.cfg.buf_credits[c] = lc.buf;
  }
  ti.cfg.mtu = lc.max_len;
  ri.cfg.threshold = lc.thr;
  ri.cfg.timer = lc.timer;
  ri.cfg.refresh = lc.refresh;
  ti.rst_n = ri.rst_n = false;
  for (int i = 0; i < 2; ++i) {
    tx.tick(ti);
    rx.tick(ri);
  }
  ti.rst_n = ri.rst_n = true;

  std::deque<std::optional<Frame>> fwd(lc.fwd_delay);
  std::deque<std::optional<Update>> ret(lc.ret_delay);
  std::vector<std::deque<uint32_t>> rxbuf(n);  // frame lengths held by the receiver
  std::vector<uint32_t> tx_limit(n, lc.buf), rx_limit(n, lc.buf), consumed(n, 0);
  uint64_t sent = 0, freed = 0, updates = 0, lost = 0;

  auto check = [&](int cycle) {
    const TxOut to = tx.outputs();
    const RxOut ro = rx.outputs();
    ASSERT_EQ(to.err_underflow, 0u) << "cycle " << cycle;
    ASSERT_EQ(to.err_overflow, 0u) << "cycle " << cycle;
    ASSERT_FALSE(to.err_class) << "cycle " << cycle;
    ASSERT_EQ(ro.err_underflow, 0u) << "cycle " << cycle;
    ASSERT_EQ(ro.err_overflow, 0u) << "cycle " << cycle;
    ASSERT_FALSE(ro.err_class) << "cycle " << cycle;
    std::vector<uint64_t> inflight(n, 0);
    for (const auto& f : fwd)
      if (f) inflight[f->cls] += p.credits(f->len);
    for (unsigned c = 0; c < n; ++c) {
      uint64_t occ_ref = 0;
      for (uint32_t len : rxbuf[c]) occ_ref += p.credits(len);
      ASSERT_EQ(ro.occ[c], occ_ref) << "cycle " << cycle << " class " << c;
      ASSERT_EQ(to.avail[c], (tx_limit[c] - consumed[c]) & mask)
          << "cycle " << cycle << " class " << c;
      const uint64_t upd_worth = (rx_limit[c] - tx_limit[c]) & mask;
      const uint64_t total =
          uint64_t{to.avail[c]} + inflight[c] + ro.occ[c] + ro.pend[c] + upd_worth;
      ASSERT_EQ(total, lc.buf) << "cycle " << cycle << " class " << c << " avail "
                               << to.avail[c] << " inflight " << inflight[c] << " occ "
                               << ro.occ[c] << " pend " << ro.pend[c] << " upd "
                               << upd_worth;
    }
  };

  auto step = [&](int cycle, bool allow_send, double p_drain) {
    const TxOut to = tx.outputs();
    const RxOut ro = rx.outputs();
    // Sender: a random frame of a random class if it has the credits.
    std::optional<Frame> tx_frame;
    if (allow_send && coin(rng) < lc.p_send) {
      const uint32_t c = static_cast<uint32_t>(rng() % n);
      const uint32_t len = static_cast<uint32_t>(rng() % (lc.max_len + 1));
      if (p.credits(len) <= to.avail[c]) tx_frame = Frame{c, len};
    }
    ti.tx_valid = tx_frame.has_value();
    ti.tx_class = tx_frame ? tx_frame->cls : static_cast<uint32_t>(rng() % n);
    ti.tx_len = tx_frame ? tx_frame->len : static_cast<uint32_t>(rng());  // junk when idle
    // Forward link.
    fwd.push_back(tx_frame);
    const std::optional<Frame> arr = fwd.front();
    fwd.pop_front();
    ri.rx_valid = arr.has_value();
    ri.rx_class = arr ? arr->cls : 0;
    ri.rx_len = arr ? arr->len : 0;
    // Receiver drain: head frame of a random non-empty class.
    std::optional<Frame> fr;
    if (coin(rng) < p_drain) {
      std::vector<uint32_t> ne;
      for (unsigned c = 0; c < n; ++c)
        if (!rxbuf[c].empty()) ne.push_back(c);
      if (!ne.empty()) {
        const uint32_t c = ne[rng() % ne.size()];
        fr = Frame{c, rxbuf[c].front()};
        rxbuf[c].pop_front();
      }
    }
    ri.free_valid = fr.has_value();
    ri.free_class = fr ? fr->cls : 0;
    ri.free_len = fr ? fr->len : 0;
    // Return link: the registered update output travels back.
    std::optional<Update> upd;
    if (ro.cu_valid) upd = Update{ro.cu_class, ro.cu_limit};
    if (upd && lc.p_loss > 0 && coin(rng) < lc.p_loss) {  // lost on the way (no draw without loss)
      upd.reset();
      ++lost;
    }
    ret.push_back(upd);
    const std::optional<Update> cu = ret.front();
    ret.pop_front();
    ti.cu_valid = cu.has_value();
    ti.cu_class = cu ? cu->cls : 0;
    ti.cu_limit = cu ? cu->limit : 0;

    tx.tick(ti);
    rx.tick(ri);

    if (tx_frame) {
      consumed[tx_frame->cls] = (consumed[tx_frame->cls] + p.credits(tx_frame->len)) & mask;
      ++sent;
    }
    if (arr) rxbuf[arr->cls].push_back(arr->len);
    if (fr) ++freed;
    if (cu) tx_limit[cu->cls] = cu->limit;
    const RxOut ro2 = rx.outputs();
    if (ro2.cu_valid) {
      rx_limit[ro2.cu_class] = ro2.cu_limit;
      ++updates;
    }
    check(cycle);
  };

  check(-1);
  int cycle = 0;
  for (; cycle < lc.cycles; ++cycle) {
    step(cycle, true, lc.p_drain);
    if (::testing::Test::HasFatalFailure()) return 0;
  }
  // (A class may stall for good without the refresh: progress only counts when expected.)
  if (expect_home) {
    EXPECT_GT(sent, static_cast<uint64_t>(lc.cycles) * lc.p_send / 10) << "no progress";
  }
  EXPECT_GT(updates, 0u);
  if (lc.p_loss > 0) {
    EXPECT_GT(lost, 0u);
  }
  // Quiesce: stop sending, drain everything. With the timer or the refresh
  // on, every credit must come back to the sender (the refresh also repairs
  // lost updates).
  for (int k = 0; k < 20000; ++k, ++cycle) {
    step(cycle, false, 1.0);
    if (::testing::Test::HasFatalFailure()) return 0;
  }
  const TxOut to = tx.outputs();
  const RxOut ro = rx.outputs();
  uint64_t missing = 0;
  for (unsigned c = 0; c < n; ++c) {
    EXPECT_EQ(ro.occ[c], 0u) << c;
    missing += lc.buf - to.avail[c] - ro.pend[c];
    if (!expect_home) continue;
    if (lc.timer != 0 || lc.refresh != 0) {
      EXPECT_EQ(to.avail[c], lc.buf) << c;
      EXPECT_EQ(ro.pend[c], 0u) << c;
    } else {
      EXPECT_LT(ro.pend[c], std::max<uint32_t>(lc.thr, 1)) << c;
      EXPECT_EQ(to.avail[c] + ro.pend[c], lc.buf) << c;
    }
  }
  EXPECT_EQ(sent, freed);
  return missing;
}

TEST(CbfcModelLoop, ClosedLoopConservesCredits) {
  const std::vector<LoopConfig> cfgs = {
      // name, params, buf, thr, timer, fwd, ret, max_len, p_send, p_drain, cycles
      {"1class_bytes_wrap", make_params(1, 8, 14, 0), 100, 10, 20, 3, 2, 60, 0.9, 0.5, 20000},
      {"4class_cells", make_params(4, 16, 14, 6), 40, 8, 0, 5, 4, 1500, 0.8, 0.6, 20000},
      {"4class_cells_timer", make_params(4, 16, 14, 6), 40, 16, 30, 5, 4, 1500, 0.8, 0.6, 20000},
      {"3class_cnt6_wrap", make_params(3, 6, 14, 0), 31, 5, 7, 1, 1, 20, 0.9, 0.9, 30000},
      {"32class_unit3", make_params(32, 10, 12, 3, 8), 200, 20, 255, 4, 3, 800, 0.9, 0.8, 30000},
      {"2class_zero_delay", make_params(2, 12, 14, 2), 64, 1, 0, 0, 0, 200, 1.0, 0.7, 20000},
      {"5class_thr0_timer1", make_params(5, 7, 10, 4), 60, 0, 1, 2, 7, 1023, 0.7, 0.4, 20000},
  };
  for (const auto& lc : cfgs) {
    ASSERT_EQ(lc.p.validate(), "") << lc.name;
    for (uint32_t seed : {1u, 2u, 3u}) {
      run_closed_loop(lc, seed);
      if (HasFatalFailure()) return;
    }
  }
}

// Lost credit updates, refresh on: the loop still conserves credits cycle by
// cycle, and after the quiesce every credit is back although the last update
// of a class may have been lost (the refresh resends it).
const std::vector<LoopConfig>& lossy_loops() {
  static const std::vector<LoopConfig> cfgs = {
      // name, params, buf, thr, timer, fwd, ret, max_len, p_send, p_drain, cycles, refresh, p_loss
      {"1class_bytes_wrap_loss", make_params(1, 8, 14, 0), 100, 10, 20, 3, 2, 60, 0.9, 0.5, 20000, 40, 0.2},
      {"4class_cells_notimer_loss", make_params(4, 16, 14, 6), 40, 8, 0, 5, 4, 1500, 0.8, 0.6, 20000, 100, 0.3},
      {"3class_cnt6_loss", make_params(3, 6, 14, 0, 16, 3), 31, 5, 7, 1, 1, 20, 0.9, 0.9, 30000, 7, 0.5},
      {"32class_unit3_loss", make_params(32, 10, 12, 3, 8, 10), 200, 20, 255, 4, 3, 800, 0.9, 0.8, 30000, 1000, 0.1},
  };
  return cfgs;
}

TEST(CbfcModelLoop, LostUpdatesRepairedByRefresh) {
  for (const auto& lc : lossy_loops()) {
    ASSERT_EQ(lc.p.validate(), "") << lc.name;
    for (uint32_t seed : {1u, 2u, 3u}) {
      EXPECT_EQ(run_closed_loop(lc, seed), 0u);
      if (HasFatalFailure()) return;
    }
  }
}

// The same loops without the refresh: credits go missing for good (the gap
// the refresh closes). If this stops failing, the lossy loops test nothing.
TEST(CbfcModelLoop, LostUpdatesWithoutRefreshLoseCredits) {
  uint64_t missing = 0;
  for (LoopConfig lc : lossy_loops()) {
    lc.refresh = 0;
    for (uint32_t seed : {1u, 2u, 3u}) missing += run_closed_loop(lc, seed, false);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(missing, 0u);
}

// The known gap, closed: the LAST update of a class is lost (the receiver's
// buffer is empty, nothing more will be freed). Without the refresh the class
// stays stalled forever; with it, the sender has all its credits back exactly
// refresh + 1 cycles later than the lost update would have delivered them.
TEST(CbfcModelLoop, LostLastUpdateRecoversWithinRefreshPlusRoundTrip) {
  const unsigned fwd_delay = 5, ret_delay = 4;
  const uint32_t buf = 10;
  for (uint32_t R : {0u, 1u, 50u, 300u}) {
    SCOPED_TRACE("refresh=" + std::to_string(R));
    const Params p = make_params(1, 16, 14, 0);
    TxModel tx(p);
    RxModel rx(p);
    TxIn ti;
    RxIn ri;
    ti.cfg.init_credits[0] = buf;
    ti.cfg.mtu = 1;
    ri.cfg.buf_credits[0] = buf;
    ri.cfg.threshold = buf;  // one update returns the whole buffer
    ri.cfg.timer = 0;
    ri.cfg.refresh = R;
    tx.tick(ti);
    rx.tick(ri);
    ti.rst_n = ri.rst_n = true;
    std::deque<bool> fwd(fwd_delay, false);
    std::deque<std::optional<uint32_t>> ret(ret_delay);
    std::deque<bool> rxbuf;
    int sent = 0;
    long granted_lost = -1, recovered = -1;
    const long edges = 5000;
    // Loop iteration e computes the inputs from the outputs after edge e-1 and
    // performs edge e.
    for (long e = 1; e <= edges; ++e) {
      const TxOut to = tx.outputs();
      const RxOut ro = rx.outputs();
      if (granted_lost >= 0 && recovered < 0 && to.avail[0] == buf) recovered = e - 1;
      // The sender spends its whole buffer in 1-byte frames, once.
      ti.tx_valid = sent < static_cast<int>(buf) && to.avail[0] >= 1;
      ti.tx_class = 0;
      ti.tx_len = 1;
      if (ti.tx_valid) ++sent;
      fwd.push_back(ti.tx_valid);
      ri.rx_valid = fwd.front();
      fwd.pop_front();
      ri.rx_len = 1;
      ri.free_valid = !rxbuf.empty();  // frames leave one cycle after arriving
      ri.free_len = 1;
      if (ri.free_valid) rxbuf.pop_front();
      if (ri.rx_valid) rxbuf.push_back(true);
      std::optional<uint32_t> upd;
      if (ro.cu_valid) upd = ro.cu_limit;
      if (upd && *upd == 2 * buf && granted_lost < 0) {  // the update returning the whole buffer: lost
        granted_lost = e - 1;
        upd.reset();
        EXPECT_EQ(ro.occ[0], 0u);  // the receiver holds nothing: no other update will follow
        EXPECT_EQ(ro.pend[0], 0u);
      }
      ret.push_back(upd);
      ti.cu_valid = ret.front().has_value();
      ti.cu_limit = ret.front().value_or(0);
      ret.pop_front();
      tx.tick(ti);
      rx.tick(ri);
      ASSERT_EQ(tx.outputs().err_underflow | tx.outputs().err_overflow | rx.outputs().err_overflow |
                    rx.outputs().err_underflow, 0u);
    }
    ASSERT_GE(granted_lost, 0) << "the last update never came";
    if (R == 0) {
      // Stalled for good: no credit, nothing at the receiver to trigger an update.
      EXPECT_EQ(recovered, -1);
      EXPECT_EQ(tx.outputs().avail[0], 0u);
      EXPECT_EQ(rx.outputs().occ[0] + rx.outputs().pend[0], 0u);
      continue;
    }
    // Granted at edge G, the update would have reached the sender at edge
    // G + 1 + ret_delay. The refresh is granted at G + R + 1 and arrives R + 1
    // cycles after the lost one would have.
    ASSERT_GE(recovered, 0) << "never recovered";
    EXPECT_EQ(recovered, granted_lost + static_cast<long>(R) + 2 + ret_delay);
    const long round_trip = static_cast<long>(fwd_delay + ret_delay) + 4;  // links + ingress, free, grant, update edges
    EXPECT_LE(recovered - granted_lost, static_cast<long>(R) + round_trip);
  }
}

}  // namespace
