// sue::RxModel: docs/sue.md "sue_rx: state and one rising edge", in C++: the parameters, and one
// edge ordered over the stages (sue::RxPort steps 1-3 of every port, their connection writes and
// records, sue::RxUnpacker, step 4). Every right-hand side reads the pre-edge state unless the
// document says otherwise (the ready register and the feedback register are computed from the
// post-edge state).
#include "sue/sue_rx_model.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>


namespace sue {

namespace {

bool pow2(unsigned v) { return v && !(v & (v - 1)); }

const char* const kRxCounterNames[RxCnt::kNum] = {
    "frames_in", "bytes_in", "pdus_ok", "lite_ok", "ack_frames", "fo_frames", "fo_req_deferred", "drop_mac",
    "drop_dead", "drop_malformed", "drop_rcrc", "drop_hdr", "drop_psn", "drop_dup", "nack_owed", "stray_beats",
    "cmds_out"};

}  // namespace

const char* rx_counter_name(unsigned i) { return i < RxCnt::kNum ? kRxCounterNames[i] : "?"; }

unsigned RxParams::max_frame_beats() const {
  unsigned len = lite() ? 6 + max_pack : 14 + 8 + max_pack + 4;
  return (std::max(60u, len) + 31) / 32;
}
unsigned RxParams::buf_ptr_bits() const { return rx_clog2(rx_buf_beats) + 1; }
unsigned RxParams::rec_cnt_bits() const { return rx_clog2(rx_frames) + 1; }

std::string RxParams::validate() const {
  if (profile > 1) return fmt::format("Profile={}: allowed 0 (SUE), 1 (SUE Lite)", profile);
  if (num_ports != 1 && num_ports != 2 && num_ports != 4)
    return fmt::format("NumPorts={}: allowed 1, 2, 4", num_ports);
  if (num_xpus < 2 || num_xpus > 1024) return fmt::format("NumXpus={}: allowed 2..1024", num_xpus);
  if (data_w != 128 && data_w != 256 && data_w != 512 && data_w != 1024)
    return fmt::format("DataW={}: allowed 128, 256, 512, 1024", data_w);
  unsigned pack_max = lite() ? 1024 : 4096;
  if (max_pack > pack_max || max_pack < 21)
    return fmt::format("MaxPack={}: allowed 20+MaxData..{} ({})", max_pack, pack_max, lite() ? "SUE Lite" : "SUE");
  unsigned data_max = std::min(16 * db(), max_pack - 20);
  if (max_data < 1 || max_data > data_max)
    return fmt::format("MaxData={}: allowed 1..{} (min(16*DB, MaxPack-20))", max_data, data_max);
  if (max_pack < 20 + max_data)
    return fmt::format("MaxPack={}: allowed {}..{} (20+MaxData..{})", max_pack, 20 + max_data, pack_max, pack_max);
  if (!pow2(qdepth) || qdepth < 2 || qdepth > 256)
    return fmt::format("QDepth={}: allowed a power of 2, 2..256", qdepth);
  if (!pow2(window) || window > 256) return fmt::format("Window={}: allowed a power of 2, 1..256", window);
  if (!pow2(rx_buf_beats) || rx_buf_beats <= max_frame_beats())
    return fmt::format("RxBufBeats={}: allowed a power of 2 > MaxFrameBeats={}", rx_buf_beats, max_frame_beats());
  if (rx_frames < 1 || rx_frames > 64) return fmt::format("RxFrames={}: allowed 1..64", rx_frames);
  if (cnt_w < 16 || cnt_w > 64) return fmt::format("CntW={}: allowed 16..64", cnt_w);
  return "";
}

bool RxOut::operator==(const RxOut& o) const {
  return mac_rx_ready == o.mac_rx_ready && rx_valid == o.rx_valid && rx_cycle == o.rx_cycle && rx_vc == o.rx_vc &&
         rx_xpuid == o.rx_xpuid && rx_port == o.rx_port && rx_control == o.rx_control && rx_data == o.rx_data &&
         fb == o.fb && dbg_exp == o.dbg_exp && dbg_nacked == o.dbg_nacked && buf_rows == o.buf_rows &&
         rec_count == o.rec_count && cred == o.cred && port_dead == o.port_dead && err_credit == o.err_credit &&
         cnt == o.cnt;
}

RxModel::RxModel(const RxParams& p) : p_(p), unp_(p) {
  std::string e = p.validate();
  if (!e.empty()) throw std::invalid_argument("sue_rx: " + e);
  for (unsigned i = 0; i < p_.num_ports; ++i) port_.emplace_back(p_, i);
  exp_.assign(p_.nc(), 0);
  nacked_.assign(p_.nc(), 0);
  RxIn in;
  reset(in);
}

void RxModel::reset(const RxIn& in) {
  cfg_ = in.cfg;
  cfg_.own_xpuid &= 0x3ff;
  cfg_.partition &= 0x3ff;
  for (auto& x : cfg_.rx_credits) x &= 0xff;
  for (auto& P : port_) P.reset();
  std::fill(exp_.begin(), exp_.end(), 0);
  std::fill(nacked_.begin(), nacked_.end(), 0);
  unp_.reset(cfg_.rx_credits);
  cnt_.fill(0);
  assert_.clear();
  out_ = RxOut{};  // dbg_*: every connection reads 0 after reset
  out_.cred = unp_.cred();
}

void RxModel::tick(const RxIn& in) {
  if (!in.rst_n) {
    reset(in);
    return;
  }
  const unsigned np = p_.num_ports;
  // pre-edge values the verdicts (FO-REQ rule, connection memory) and the unpacker read
  RxVerdictCtx ctx;
  ctx.cfg = &cfg_;
  ctx.exp = &exp_;
  ctx.nacked = &nacked_;
  for (unsigned p = 0; p < np; ++p) ctx.rec_count_q[p] = port_[p].records(), ctx.dead_q[p] = port_[p].dead();
  // steps 1-3 of every port; their records and connection writes are applied after every verdict
  std::array<RxPortEdge, kMaxPorts> ev{};
  for (unsigned p = 0; p < np; ++p) ev[p] = port_[p].edge(in.mac[p], (in.port_up >> p) & 1, ctx, cnt_, assert_);
  for (unsigned p = 0; p < np; ++p) {
    const RxPortEdge& u = ev[p];
    if (u.commit) port_[p].push(u.rec);
    if (u.accept) exp_[u.c] = (exp_[u.c] + 1) & 0xffff, nacked_[u.c] = 0;
    if (u.nack) nacked_[u.c] = 1;
  }
  unp_.edge(port_, ctx.rec_count_q, in.rx_credit, cfg_.rx_credits, out_, cnt_, assert_);
  // 4. ready, from post-edge values
  for (unsigned p = 0; p < np; ++p) port_[p].update_ready(assert_);

  // outputs
  out_.mac_rx_ready = 0;
  out_.port_dead = 0;
  for (unsigned p = 0; p < np; ++p) {
    const RxPort& P = port_[p];
    out_.mac_rx_ready |= uint32_t(P.ready()) << p;
    out_.port_dead |= uint32_t(P.dead()) << p;
    out_.buf_rows[p] = P.rows();
    out_.rec_count[p] = static_cast<uint32_t>(P.records());
    if (ev[p].fb)
      out_.fb[p] = ev[p].f;
    else
      out_.fb[p].valid = false;
  }
  for (unsigned i = 0; i < RxCnt::kNum; ++i) out_.cnt[i] = cnt_[i] & rx_mask(p_.cnt_w);
  // debug read port of the connection memory: dbg_conn_i is clog2(NC) bits wide
  const uint32_t dc = in.dbg_conn & static_cast<uint32_t>(rx_mask(rx_clog2(p_.nc())));
  out_.dbg_exp = conn_exp(dc);
  out_.dbg_nacked = conn_nacked(dc);
}

}  // namespace sue
