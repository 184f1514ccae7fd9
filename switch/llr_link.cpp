// sw::LlrLink: see llr_link.hpp and docs/switch.md "LLR on links". The wiring of the two
// partners follows tb/llr/llr_env.cpp (the LLR testbench): the wire takes a block's item
// when it frees up before the next edge, items go back to back, arrivals enter r_* one
// per edge, a corrupted frame arrives with ok = 0 and a scrambled token.
#include "switch/llr_link.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace sw {

LinkStats& LinkStats::operator+=(const LinkStats& y) {
  frames += y.frames;
  frames_replayed += y.frames_replayed;
  replays += y.replays;
  nacks += y.nacks;
  acks += y.acks;
  bad_frames += y.bad_frames;
  dropped_frames += y.dropped_frames;
  lost_pkts += y.lost_pkts;
  flushes += y.flushes;
  buf_frames_max = std::max(buf_frames_max, y.buf_frames_max);
  buf_bytes_max = std::max(buf_bytes_max, y.buf_bytes_max);
  delivered_pkts += y.delivered_pkts;
  delivered_bytes += y.delivered_bytes;
  txq_max = std::max(txq_max, y.txq_max);
  return *this;
}

lnk::Ctl::Kind llr_ctl_kind(uint32_t type) {
  switch (type) {
    case llr::kAck: return lnk::Ctl::Kind::ack;
    case llr::kNack: return lnk::Ctl::Kind::nack;
    case llr::kInitCtl: return lnk::Ctl::Kind::init;
    default: return lnk::Ctl::Kind::init_echo;
  }
}
uint32_t llr_ctl_type(lnk::Ctl::Kind k) {
  switch (k) {
    case lnk::Ctl::Kind::ack: return llr::kAck;
    case lnk::Ctl::Kind::nack: return llr::kNack;
    case lnk::Ctl::Kind::init: return llr::kInitCtl;
    default: return llr::kInitEcho;
  }
}

namespace {
constexpr uint64_t kCorrupt = 0x5a5a5a5a5a5a5a5aull;  // what a bad payload does to the token
}  // namespace

LlrLink::LlrLink(const LlrLinkParams& p, uint64_t seed, const std::string& stream, std::unique_ptr<LlrEngine> a,
                 std::unique_ptr<LlrEngine> b)
    : p_(p), chan_{lnk::Channel(p.wire), lnk::Channel(p.wire_ba.value_or(p.wire))} {
  if (std::string e = p_.wire.validate(); !e.empty()) throw std::invalid_argument(e);
  if (p_.wire_ba)
    if (std::string e = p_.wire_ba->validate(); !e.empty()) throw std::invalid_argument("wire_ba: " + e);
  m_[A] = std::move(a);
  m_[B] = std::move(b);
  smask_ = p_.llr.seq_bits >= 32 ? 0xffffffffu : (1u << p_.llr.seq_bits) - 1u;
  if (p_.faults.any()) {
    inj_[A] = std::make_unique<lnk::FaultInjector>(p_.faults, seed, stream + ".ab");
    inj_[B] = std::make_unique<lnk::FaultInjector>(p_.faults, seed, stream + ".ba");
    chan_[A].attach(inj_[A].get());
    chan_[B].attach(inj_[B].get());
  }
  llr::In r;
  r.rst_n = false;
  r.cfg = p_.cfg;
  for (unsigned s : {A, B}) {
    if (!m_[s]) m_[s] = std::make_unique<LlrModelEngine>(p_.llr);  // throws on bad llr::Params
    m_[s]->tick(r, 0);
    out_[s] = m_[s]->outputs();
  }
}

void LlrLink::offer(Side s, const Packet& p) {
  q_[s].push_back(p);
  st_[s].txq_max = std::max(st_[s].txq_max, q_[s].size());
}

void LlrLink::lose(Side from, uint64_t token) {
  auto it = held_[from].find(token);
  if (it == held_[from].end()) return;
  lost_[from == A ? B : A].push_back(it->second.p);
  held_[from].erase(it);
  ++st_[from].lost_pkts;
}

// Side s's transmit: the wire takes the item in s's wire register.
void LlrLink::send(Side s, llr::In& in, Ps T) {
  const llr::Out& o = out_[s];
  lnk::Channel& ch = chan_[s];
  if (!o.w_valid || ch.wire_free_at() >= T + p_.period) return;
  in.w_ready = true;
  const Ps start = std::max(T, ch.wire_free_at());
  // The rest of the LLR cycle after a control word: the LLR puts one item on the wire per edge,
  // so an item behind a short control word waits for the next edge. It counts when a client frame
  // waits (this item, or one in the FIFO or the TX holding register).
  if (ctl_end_[s] >= 0) {
    const bool waiting = (!o.w_is_ctl && !o.w_replay) || !q_[s].empty() || !o.c_ready;
    if (waiting && ctl_end_[s] > T - p_.period && start > ctl_end_[s]) unsched_[s] += start - ctl_end_[s];
  }
  ctl_end_[s] = -1;
  if (o.w_is_ctl) {
    lnk::Ctl c;
    c.kind = llr_ctl_kind(o.w_ctl_type);
    c.value = o.w_ctl_seq;
    ctl_end_[s] = ch.send(T, c);
    LinkStats& about = st_[s == A ? B : A];  // an ACK/NACK reports on the other direction's frames
    if (o.w_ctl_type == llr::kAck) ++about.acks;
    if (o.w_ctl_type == llr::kNack) ++about.nacks;
    unsched_[s] += ch.params().serialization(ch.params().ctl_bytes);
    return;
  }
  lnk::Frame f;
  f.id = o.w_token;
  f.len = o.w_len;
  f.cls = o.w_class;
  f.seq = o.w_seq;
  f.eligible = o.w_eligible;
  f.replay = o.w_replay;
  const uint64_t dropped = inj_[s] ? inj_[s]->stats().frames_dropped : 0;
  ch.send(T, f);
  auto it = held_[s].find(o.w_token);
  if (it != held_[s].end()) {
    if (it->second.first_bit < 0) it->second.first_bit = start;
    ++it->second.sends;
  }
  if (o.w_replay) {
    ++st_[s].frames_replayed;
    if (!last_replay_[s] || o.w_seq != ((last_seq_[s] + 1u) & smask_)) ++st_[s].replays;
    last_seq_[s] = o.w_seq;
    unsched_[s] += ch.params().serialization(uint64_t{o.w_len} + ch.params().overhead_bytes);
  } else {
    ++st_[s].frames;
  }
  last_replay_[s] = o.w_replay;
  // An ineligible frame (lossy class) is never replayed: lost on the wire, it is lost for good.
  if (!o.w_eligible && inj_[s] && inj_[s]->stats().frames_dropped != dropped) lose(s, o.w_token);
}

void llr_receive(const lnk::Item& item, llr::In& in) {
  in.r_valid = true;
  if (const auto* f = std::get_if<lnk::Frame>(&item)) {
    in.r_is_ctl = false;
    in.r_ok = f->ok;
    in.r_eligible = f->eligible;
    in.r_replay = f->replay;
    in.r_seq = f->seq;
    in.r_len = f->len;
    in.r_class = f->cls;
    in.r_token = f->ok ? f->id : (f->id ^ kCorrupt);
  } else {
    const auto& c = std::get<lnk::Ctl>(item);
    in.r_is_ctl = true;
    in.r_ok = c.ok;
    in.r_ctl_type = llr_ctl_type(c.kind);
    in.r_ctl_seq = c.ok ? c.value : ~c.value;
  }
}

// Side s's receive: what arrived from the other side, one item per edge into r_*.
void LlrLink::receive(Side s, llr::In& in, Ps T) {
  const Side from = s == A ? B : A;
  lnk::Item item;
  while (chan_[from].receive(T, item)) arr_[s].push_back(std::move(item));
  if (arr_[s].empty()) return;
  lnk::Item it = std::move(arr_[s].front());
  arr_[s].pop_front();
  llr_receive(it, in);
  if (const auto* f = std::get_if<lnk::Frame>(&it); f && !f->ok) {
    ++st_[from].bad_frames;
    if (!f->eligible) lose(from, f->id);  // the RX drops it and nobody replays it
  }
}

void LlrLink::edge(Ps T) {
  for (unsigned s : {A, B}) {
    dlv_[s].clear();
    lost_[s].clear();
    unsched_[s] = 0;
  }
  for (Side s : {A, B}) {
    llr::In in;
    in.rst_n = true;
    in.cfg = p_.cfg;
    send(s, in, T);
    receive(s, in, T);
    if (!q_[s].empty() && out_[s].c_ready) {
      const Packet& p = q_[s].front();
      in.c_valid = true;
      in.c_eligible = (p_.eligible_classes >> p.cls) & 1u;
      in.c_class = p.cls;
      in.c_len = p.bytes;
      in.c_token = p.id;
      held_[s].emplace(p.id, Held{p, -1, 0});
      q_[s].pop_front();
    }
    m_[s]->tick(in, T);
    out_[s] = m_[s]->outputs();
    LinkStats& st = st_[s];
    st.buf_frames_max = std::max(st.buf_frames_max, out_[s].out_frames);
    st.buf_bytes_max = std::max(st.buf_bytes_max, out_[s].out_bytes);
  }
  // Deliveries of this edge (the RX halves' delivery registers).
  for (Side s : {A, B}) {
    const llr::Out& o = out_[s];
    if (!o.d_valid) continue;
    const Side from = s == A ? B : A;
    auto it = held_[from].find(o.d_token);
    if (it == held_[from].end())
      throw std::logic_error(fmt::format("llr link: side {} delivered an unknown or corrupted frame (token {:#x})",
                                         s == A ? 'A' : 'B', o.d_token));
    dlv_[s].push_back({it->second.p, it->second.first_bit, it->second.sends > 1});
    ++st_[from].delivered_pkts;
    st_[from].delivered_bytes += it->second.p.bytes;
    held_[from].erase(it);
  }
}

std::vector<Packet> LlrLink::held(Side from) const {
  std::vector<Packet> r(q_[from].begin(), q_[from].end());
  const size_t n = r.size();
  for (const auto& kv : held_[from]) r.push_back(kv.second.p);
  std::sort(r.begin() + static_cast<std::ptrdiff_t>(n), r.end(), [](const Packet& x, const Packet& y) { return x.id < y.id; });
  return r;
}

LinkStats LlrLink::stats(Side from) const {
  LinkStats r = st_[from];
  if (inj_[from]) r.dropped_frames = inj_[from]->stats().frames_dropped - dropped0_[from];
  r.flushes = out_[from].cnt[llr::tx_flush] - flush0_[from];
  return r;
}

void LlrLink::reset_stats() {
  for (unsigned s : {A, B}) {
    st_[s] = LinkStats{};
    dropped0_[s] = inj_[s] ? inj_[s]->stats().frames_dropped : 0;
    flush0_[s] = out_[s].cnt[llr::tx_flush];
  }
}

}  // namespace sw
