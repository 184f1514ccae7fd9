// sue::TxBuilder: step 5 of "sue_tx: one rising edge" for one port (docs/sue.md), the twin of
// rtl/sue/sue_tx_build.sv.
#include "sue/sue_tx_build.hpp"

#include <algorithm>

namespace sue {
namespace {

// CRC-32C, reflected, one byte (no init / final xor here).
struct Crc32cTable {
  uint32_t t[256];
  Crc32cTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
      t[i] = c;
    }
  }
};
const Crc32cTable kCrc;
uint32_t crc_upd(uint32_t crc, const uint8_t* b, size_t n) {
  for (size_t k = 0; k < n; ++k) crc = (crc >> 8) ^ kCrc.t[(crc ^ b[k]) & 0xffu];
  return crc;
}

constexpr unsigned kMaxChunk = 22 + 20 + 128;  // the largest chunk: header + command chunk (20 + DB), DB <= 128

}  // namespace

void TxBuilder::reset(unsigned acc_bytes) {
  *this = TxBuilder{};
  acc_.assign(acc_bytes, 0);
}

const char* TxBuilder::edge(const Env& e, bool out_free, bool dies, MarkFn mark, void* ctx) {
  const bool lite = e.lite;
  const unsigned DB = e.db;
  if (dies) {
    if (lite && busy_) mark(ctx, job_.i * 4 + job_.v, job_.first, job_.n_cmd);  // lost
    busy_ = false;
    eof_held_ = false;
    acc_n_ = 0;
    std::fill(acc_.begin(), acc_.end(), 0);
    valid = false;
    return nullptr;
  }
  if (!busy_) {
    if (out_free) valid = false;
    return nullptr;
  }
  const char* err = nullptr;
  const uint32_t acc_n_q = acc_n_, phase_q = phase_, k_q = k_, j_q = j_, crc_q = crc_;
  const bool all = phase_q == kPhDone, held_q = eof_held_;
  uint32_t take = 0;
  // With eof_held, acc holds the previous frame's eof beat: it goes first, and the job's first chunk
  // only with it.
  if (out_free && (held_q || acc_n_q >= 32 || (all && acc_n_q > 0))) {
    const uint32_t m = std::min<uint32_t>(32, acc_n_q);
    const bool s0 = first_beat_ && !held_q;
    std::array<uint8_t, 32> beat{};
    std::copy(acc_.begin(), acc_.begin() + m, beat.begin());
    if (lite && s0) {
      const auto& a = acc_;
      beat[1] = a[6], beat[2] = a[7], beat[3] = a[8], beat[4] = a[1], beat[5] = a[2], beat[6] = a[3];
      beat[7] = a[9], beat[8] = a[10], beat[9] = a[11], beat[10] = a[4], beat[11] = a[5];
    }
    const bool e0 = held_q || (all && acc_n_q <= 32);
    if (m != 32 && !e0) err = "nbytes != 32 on a beat that is not eof";
    data = beat;
    valid = true;
    sof = s0;
    eof = e0;
    nbytes = m;
    if (!held_q) first_beat_ = false;
    eof_held_ = false;
    take = m;
    if (e0 && !held_q) {
      busy_ = false;
      if (lite) mark(ctx, job_.i * 4 + job_.v, job_.first, job_.n_cmd);
    }
  } else if (out_free) {
    valid = false;
  }
  // Next chunk (docs/sue.md step 5: the first chunk is the header and the first command chunk).
  std::array<uint8_t, kMaxChunk> ch{};
  uint32_t s = 0, crc_from = 0, nphase = phase_q, nk = k_q, nj = j_q;
  bool crc_it = !lite;
  const TxJob& J = job_;
  const int32_t q = static_cast<int32_t>(J.i * 4 + J.v);
  uint32_t nslot = slot_;
  auto after_cmd = [&](uint32_t k) {  // position after command k's last chunk
    if (k + 1 < J.n_cmd) {
      nphase = kPhOp, nk = k + 1, nj = 0;
      nslot = e.slot[slot_].next;  // the queue's next command: the builder walks the list
    } else {
      nphase = lite ? kPhDone : kPhTrl;
    }
  };
  // n bytes of data beat j of slot si at ch[at] (a slot never written holds zeros: ch is 0).
  auto data_bytes = [&](uint32_t si, uint32_t j, uint32_t n, uint32_t at) {
    if (size_t(si + 1) * e.sb > e.data->size()) return;  // beyond what was ever written: zeros
    const uint8_t* src = e.data->data() + size_t(si) * e.sb + j * DB;
    std::copy(src, src + n, ch.begin() + at);
  };
  // Command chunk of command k at ch[at]: op header, 18 control bytes and the first min(DB, dlen)
  // data bytes (data beat 0). Returns its size and sets the position after it.
  auto cmd_chunk = [&](uint32_t k, uint32_t at) -> uint32_t {
    const uint32_t si = slot_;  // command k's slot (J.first for k = 0)
    if (e.where[si] != q && !err) err = "a builder reads a slot not on its queue's list";
    const TxSlot& sl = e.slot[si];
    const uint32_t hdr = (k + 1 == J.n_cmd ? 0x8000u : 0u) | (18 + sl.dlen);
    ch[at] = static_cast<uint8_t>(hdr >> 8), ch[at + 1] = static_cast<uint8_t>(hdr);
    std::copy(sl.ctrl.begin(), sl.ctrl.end(), ch.begin() + at + 2);
    const uint32_t d = std::min<uint32_t>(DB, sl.dlen);
    data_bytes(si, 0, d, at + 20);
    if (sl.dlen > DB) {
      nphase = kPhData, nk = k, nj = 1;
    } else {
      after_cmd(k);
    }
    return 20 + d;
  };
  switch (phase_q) {
    case kPhHdr: {
      const uint32_t peer = J.i, own = e.own;
      if (!lite) {
        const uint8_t h[22] = {0x02,
                               static_cast<uint8_t>(J.i * 4 + J.v),
                               0,
                               0,
                               static_cast<uint8_t>(peer >> 8),
                               static_cast<uint8_t>(peer),
                               static_cast<uint8_t>((J.v << 4) | 2),
                               static_cast<uint8_t>(e.hop),
                               0,
                               0,
                               static_cast<uint8_t>(own >> 8),
                               static_cast<uint8_t>(own),
                               0x88,
                               0xb6,
                               static_cast<uint8_t>((J.op << 4) | (own >> 8)),
                               static_cast<uint8_t>(own),
                               static_cast<uint8_t>(J.psn >> 8),
                               static_cast<uint8_t>(J.psn),
                               static_cast<uint8_t>((J.v << 6) | (J.rsvd << 2) | (e.partition >> 8)),
                               static_cast<uint8_t>(e.partition),
                               static_cast<uint8_t>(J.apsn >> 8),
                               static_cast<uint8_t>(J.apsn)};
        std::copy(h, h + 22, ch.begin());
        s = 22;
        crc_from = 14;
      } else {
        const uint8_t h[6] = {0x22,
                              static_cast<uint8_t>(peer >> 8),
                              static_cast<uint8_t>(peer),
                              static_cast<uint8_t>((J.v << 4) | 2),
                              static_cast<uint8_t>(own >> 8),
                              static_cast<uint8_t>(own)};
        std::copy(h, h + 6, ch.begin());
        s = 6;
      }
      if (J.n_cmd == 0) {  // the empty PDU: 80 00
        ch[s] = 0x80, ch[s + 1] = 0x00;
        s += 2;
        nphase = lite ? kPhDone : kPhTrl;
      } else {
        s += cmd_chunk(0, s);
      }
      break;
    }
    case kPhOp:
      s = cmd_chunk(k_q, 0);
      break;
    case kPhData: {
      const uint32_t si = slot_;
      const uint32_t rem = e.slot[si].dlen - j_q * DB;
      s = std::min<uint32_t>(DB, rem);
      data_bytes(si, j_q, s, 0);
      if (rem > DB) {
        nj = j_q + 1;
      } else {
        after_cmd(k_q);
      }
      break;
    }
    case kPhTrl: {
      const uint32_t v = crc_q ^ 0xffffffffu;
      ch[0] = static_cast<uint8_t>(v >> 24), ch[1] = static_cast<uint8_t>(v >> 16);
      ch[2] = static_cast<uint8_t>(v >> 8), ch[3] = static_cast<uint8_t>(v);
      s = 4;
      crc_it = false;
      nphase = kPhDone;
      break;
    }
    default:
      break;
  }
  const uint32_t base = acc_n_q - take;
  // Shift out the bytes taken (bytes >= acc_n stay 0).
  if (take > 0) {
    std::copy(acc_.begin() + take, acc_.end(), acc_.begin());
    std::fill(acc_.end() - take, acc_.end(), 0);
  }
  uint32_t acc_n = base;
  if (s > 0 && base + s <= e.acc && (!held_q || take > 0)) {
    std::copy(ch.begin(), ch.begin() + s, acc_.begin() + base);
    acc_n = base + s;
    if (crc_it) crc_ = crc_upd(crc_q, ch.data() + crc_from, s - crc_from);
    phase_ = nphase, k_ = nk, j_ = nj;
    slot_ = nslot;
  }
  acc_n_ = acc_n;
  return err;
}

void TxBuilder::start(const TxJob& j, bool lite, MarkFn mark, void* ctx) {
  eof_held_ = busy_;
  if (lite && busy_) mark(ctx, job_.i * 4 + job_.v, job_.first, job_.n_cmd);
  busy_ = true;
  job_ = j;
  first_beat_ = true;
  crc_ = 0xffffffffu;
  phase_ = kPhHdr, k_ = 0, j_ = 0;
  slot_ = j.first;
}

}  // namespace sue
