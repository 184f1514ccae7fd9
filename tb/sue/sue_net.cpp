#include "sue/sue_net.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sue/crc.hpp"

namespace tb::sue_tb {

namespace {
constexpr uint32_t kPreambleBytes = 8;  // preamble + SFD before the first frame byte
void put_fcs(sue::Bytes& b) {
  const size_t n = b.size() - sue::kFcsBytes;
  const uint32_t v = sue::fcs32(b.data(), n);
  for (unsigned i = 0; i < 4; ++i) b[n + i] = static_cast<uint8_t>(v >> (8 * i));  // LSB first
}
bool fcs_ok(const sue::Bytes& b) {
  if (b.size() < sue::kFcsBytes) return false;
  const size_t n = b.size() - sue::kFcsBytes;
  uint32_t wire = 0;
  for (unsigned i = 0; i < 4; ++i) wire |= static_cast<uint32_t>(b[n + i]) << (8 * i);
  return wire == sue::fcs32(b.data(), n);
}
}  // namespace

Net::Net(const NetConfig& cfg) : cfg_(cfg), rng_corrupt_(cfg.seed, "sue.net.corrupt") {
  if (cfg_.nodes < 2) throw std::invalid_argument("sue net: nodes < 2");
  if (!cfg_.use_switch && cfg_.nodes != 2) throw std::invalid_argument("sue net: a direct cable joins exactly 2 nodes");
  cp_.num_classes = kVcs;
  cp_.cnt_width = 16;
  cp_.len_width = 14;
  cp_.credit_unit_log2 = 6;
  cp_.timer_width = 16;
  cp_.refresh_width = 16;
  for (unsigned v = 0; v < kVcs; ++v) {
    txcfg_.init_credits[v] = cp_.credits(cfg_.cbfc_buffer_bytes);
    rxcfg_.buf_credits[v] = cp_.credits(cfg_.cbfc_buffer_bytes);
  }
  // The largest frame the NIC sends (SUE: 14 + 8 + 4096 + 4, Lite: 6 + 1024), with its FCS.
  txcfg_.mtu = cfg_.lite ? 6 + 1024 + 4 : 14 + 8 + 4096 + 4 + 4;
  mtu_credits_ = cp_.credits(txcfg_.mtu);
  rxcfg_.threshold = cfg_.cbfc_threshold;
  rxcfg_.timer = cfg_.cbfc_timer;
  rxcfg_.refresh = cfg_.cbfc_refresh;
  bytes_per_cycle_ = cfg_.link.rate_gbps / 8.0 * core::to_ns(cfg_.clock_ps);

  ports_.assign(cfg_.nodes, std::vector<Port>(cfg_.ports));
  if (cfg_.use_switch) {
    up_.assign(cfg_.ports, std::vector<Hop*>(cfg_.nodes, nullptr));
    down_.assign(cfg_.ports, std::vector<Hop*>(cfg_.nodes, nullptr));
    egress_.assign(cfg_.ports, std::vector<Egress>(cfg_.nodes));
    for (unsigned p = 0; p < cfg_.ports; ++p)
      for (unsigned n = 0; n < cfg_.nodes; ++n) {
        up_[p][n] = new_hop(fmt::format("sue.faults.n{}p{}.up", n, p));
        down_[p][n] = new_hop(fmt::format("sue.faults.n{}p{}.down", n, p));
        ports_[n][p].out = up_[p][n];
        ports_[n][p].in = down_[p][n];
        if (cfg_.llr) new_llr(up_[p][n], down_[p][n], fmt::format("sue.llr.n{}p{}", n, p));  // A = node, B = switch
      }
  } else {
    for (unsigned p = 0; p < cfg_.ports; ++p)
      for (unsigned n = 0; n < 2; ++n) {
        Hop* h = new_hop(fmt::format("sue.faults.n{}p{}.cable", n, p));
        ports_[n][p].out = h;
        ports_[1 - n][p].in = h;
      }
    if (cfg_.llr)
      for (unsigned p = 0; p < cfg_.ports; ++p)
        new_llr(ports_[0][p].out, ports_[1][p].out, fmt::format("sue.llr.cable.p{}", p));  // A = node 0, B = node 1
  }
}

void Net::new_llr(Hop* ab, Hop* ba, const std::string& stream) {
  sw::LlrLinkParams lp;
  lp.wire = cfg_.link;
  lp.faults = cfg_.faults;
  lp.period = cfg_.clock_ps;
  lp.eligible_classes = 0xff;  // every VC is lossless (CBFC): every frame is kept and replayed
  lp.llr.buf_log2 = 7;
  lp.cfg.frames_max = 127;
  lp.cfg.bytes_max = 1u << 18;
  // Replay timer: well above one round trip (two flights, a longest frame each way, ACK spacing).
  const core::Ps rtt = 2 * cfg_.link.flight() + 2 * cfg_.link.serialization(4200) + 64 * cfg_.clock_ps;
  lp.cfg.replay_timer = static_cast<uint32_t>(std::max<core::Ps>(1000, 2 * rtt / cfg_.clock_ps));
  Llr l;
  l.link = std::make_unique<sw::LlrLink>(lp, cfg_.seed, stream);
  l.ab = ab;
  l.ba = ba;
  ab->llr = ba->llr = l.link.get();
  ab->side = sw::LlrLink::A;
  ba->side = sw::LlrLink::B;
  llr_.push_back(std::move(l));
}

void Net::step_llr(core::Ps t) {
  for (auto& l : llr_) {
    if (l.ab->dead || l.ba->dead) continue;
    l.link->edge(t);
    for (auto [to, h] : {std::pair{sw::LlrLink::B, l.ab}, std::pair{sw::LlrLink::A, l.ba}}) {
      for (const auto& d : l.link->delivered(to)) {
        if (h->pend.empty() || h->pend.front() != d.p.id) throw std::logic_error("sue net: LLR delivered out of order");
        h->pend.pop_front();
        h->dlv.push_back(d.p.id);
      }
      if (!l.link->lost(to).empty()) throw std::logic_error("sue net: LLR lost a frame of a lossless class");
    }
  }
}

Net::Hop* Net::new_hop(const std::string& stream) {
  lnk::Params lp = cfg_.link;
  hops_.push_back(std::make_unique<Hop>(cp_, lp));
  Hop* h = hops_.back().get();
  if (cfg_.faults.any() && !cfg_.llr) {
    h->faults = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream);
    h->data.attach(h->faults.get());
  }
  h->fc.txo = h->fc.tx.outputs();
  h->fc.rxo = h->fc.rx.outputs();
  return h;
}

unsigned Net::dst_of(const sue::Bytes& b) const {
  uint32_t xpu = 0;
  if (cfg_.lite) {
    if (b.size() < 6) return ~0u;
    xpu = static_cast<uint32_t>(b[4]) << 8 | b[5];
  } else {
    if (b.size() < 6) return ~0u;
    xpu = static_cast<uint32_t>(b[2]) << 24 | static_cast<uint32_t>(b[3]) << 16 | static_cast<uint32_t>(b[4]) << 8 | b[5];
  }
  return xpu < cfg_.nodes ? xpu : ~0u;  // node n is XPU n
}

bool Net::credit_ok(unsigned n, unsigned p, unsigned vc, int presented_vc) const {
  const Port& pt = ports_[n][p];
  const Hop* h = pt.out;
  if (!h || h->dead || !((h->fc.txo.elig >> vc) & 1u)) return false;
  // The gate charges a frame when the MAC takes its eof beat, but sue_tx may start the next frame as soon
  // as it has loaded that beat (its output register may still hold it, or even the frame's first beat):
  // while a frame of this VC is uncharged (presented or in progress), the VC also needs room for it.
  const int pending = pt.tx.in_frame ? static_cast<int>(pt.tx.vc) : presented_vc;
  return !(pending == static_cast<int>(vc) && h->fc.txo.avail[vc] < 2 * mtu_credits_);
}

void Net::lose(uint64_t wid) {
  auto it = frames_.find(wid);
  if (it == frames_.end()) return;
  if (on_lost) on_lost(it->second);
  frames_.erase(it);
}

void Net::send(Hop& h, WireFrame&& f, core::Ps t_start) {
  const uint64_t wid = f.wid;
  const unsigned vc = f.vc;
  const uint32_t len = static_cast<uint32_t>(f.bytes.size());
  frames_.emplace(wid, std::move(f));
  if (h.dead) {
    ++st_.frames_lost_dead;
    lose(wid);
    return;
  }
  if (h.llr) {  // the LLR TX of the sending side takes it when its FIFO and replay buffer allow
    sw::Packet pk;
    pk.id = wid;
    pk.bytes = len;
    pk.cls = static_cast<uint8_t>(vc);
    h.llr->offer(h.side, pk);
    h.pend.push_back(wid);
    return;
  }
  lnk::Frame lf;
  lf.id = wid;
  lf.len = len;
  lf.cls = vc;
  const core::Ps start = std::max(t_start, h.data.wire_free_at());
  const size_t before = h.data.in_flight();
  h.data.send(t_start, lf);
  if (h.data.in_flight() == before) {  // the fault injector dropped it
    ++st_.frames_lost_link;
    lose(wid);
    return;
  }
  h.in.push_back({wid, start + ser(kPreambleBytes) + h.data.params().flight(), false});
}

void Net::flip_fcs_bit(WireFrame& f) {
  const uint64_t bit = rng_corrupt_.uniform(0, f.bytes.size() * 8 - 1);
  f.bytes[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
  f.fcs_bad = true;
}

void Net::corrupt_after_fcs(WireFrame& f) {
  // A bit of the RH or of a command (never an op header, so the frame still
  // parses and its length still matches: only the R-CRC can tell).
  std::vector<std::pair<size_t, size_t>> spans;  // [begin, end)
  const size_t n = f.bytes.size();
  spans.push_back({14, 22});
  size_t pos = 22;
  while (pos + 2 <= n) {
    const unsigned hdr = static_cast<unsigned>(f.bytes[pos]) << 8 | f.bytes[pos + 1];
    const size_t len = hdr & sue::kOpLengthMask;
    if (pos + 2 + len > n) break;
    if (len) spans.push_back({pos + 2, pos + 2 + len});
    pos += 2 + len;
    if (hdr & sue::kOpLast) break;
  }
  size_t total = 0;
  for (auto& s : spans) total += s.second - s.first;
  if (total == 0) return;
  uint64_t k = rng_corrupt_.uniform(0, total * 8 - 1);
  for (auto& s : spans) {
    const size_t bits = (s.second - s.first) * 8;
    if (k < bits) {
      f.bytes[s.first + k / 8] ^= static_cast<uint8_t>(1u << (k % 8));
      break;
    }
    k -= bits;
  }
  put_fcs(f.bytes);  // the device recomputes the FCS over the corrupted bytes
  f.rcrc_hit = true;
  ++st_.frames_rcrc_corrupted;
}

void Net::arrivals(Hop& h, core::Ps t, const std::function<void(WireFrame&, const InRec&)>& got) {
  if (h.llr) {  // delivered by the LLR RX: whole, FCS good, in order
    while (!h.dlv.empty()) {
      const uint64_t wid = h.dlv.front();
      h.dlv.pop_front();
      WireFrame& f = frames_.at(wid);
      h.in.push_back({wid, t - ser(f.bytes.size()), true});
      got(f, h.in.back());
    }
    return;
  }
  lnk::Item item;
  while (h.data.receive(t, item)) {
    if (h.dead) continue;  // lost with the plane
    const auto& lf = std::get<lnk::Frame>(item);
    InRec* rec = nullptr;
    for (auto& r : h.in)
      if (!r.received) {
        rec = &r;
        break;
      }
    if (!rec || rec->wid != lf.id) throw std::logic_error("sue net: frames out of order on a link");
    rec->received = true;
    WireFrame& f = frames_.at(lf.id);
    if (!lf.ok) {
      flip_fcs_bit(f);
      ++st_.frames_fcs_bad;
    }
    got(f, *rec);
  }
}

void Net::present(Port& pt, core::Ps t) {
  Beat& b = pt.rx.beat;
  b = Beat{};
  Hop* h = pt.in;
  if (!h || h->dead || h->in.empty()) return;
  const InRec& r = h->in.front();
  const WireFrame& f = frames_.at(r.wid);
  const size_t L = f.bytes.size() - sue::kFcsBytes;  // the FCS is stripped; the pad is kept
  const unsigned nbeats = static_cast<unsigned>((L + kBeatBytes - 1) / kBeatBytes);
  const unsigned k = pt.rx.next;
  const bool last = k + 1 == nbeats;
  const bool avail = last ? r.received : t >= r.t_first + ser(static_cast<uint64_t>(kBeatBytes) * (k + 1));
  if (!avail) return;
  b.valid = true;
  b.sof = k == 0;
  b.eof = last;
  b.nbytes = last ? static_cast<unsigned>(L - static_cast<size_t>(kBeatBytes) * k) : kBeatBytes;
  std::copy_n(f.bytes.begin() + static_cast<std::ptrdiff_t>(kBeatBytes) * k, b.nbytes, b.data.begin());
  b.err = last && !fcs_ok(f.bytes);
}

void Net::prepare(uint64_t c, core::Ps t) {
  cycle_ = c;
  const core::Ps P = cfg_.clock_ps;
  step_llr(t);
  // Arrivals at the receiving end of every hop.
  if (cfg_.use_switch) {
    for (unsigned p = 0; p < cfg_.ports; ++p)
      for (unsigned s = 0; s < cfg_.nodes; ++s) {
        Hop& h = *up_[p][s];
        arrivals(h, t, [&](WireFrame& f, const InRec&) { h.fc.arrive.push_back({f.vc, static_cast<uint32_t>(f.bytes.size())}); });
        // Received frames go to their egress: eligible first bit in + latency (cut-through),
        // or at once when the latency is shorter than the frame's wire time.
        while (!h.in.empty() && h.in.front().received) {
          InRec r = h.in.front();
          h.in.pop_front();
          WireFrame& f = frames_.at(r.wid);
          if (!f.fcs_bad && cfg_.rcrc_corrupt > 0 && rng_corrupt_.chance(cfg_.rcrc_corrupt)) corrupt_after_fcs(f);
          if (cfg_.switch_drop > 0 && rng_corrupt_.chance(cfg_.switch_drop)) {
            // Discarded inside the switch (an internal error, a full queue): it was received, so its
            // ingress buffer is freed and the hop's CBFC credits come back; only SUE can recover it.
            h.fc.frees.push_back({f.vc, static_cast<uint32_t>(f.bytes.size()), c + 1});
            ++st_.frames_switch_dropped;
            lose(r.wid);
            continue;
          }
          const unsigned d = dst_of(f.bytes);
          if (d == ~0u || d == s) {  // no such port: dropped, its ingress buffer freed
            h.fc.frees.push_back({f.vc, static_cast<uint32_t>(f.bytes.size()), c + 1});
            // A bit error in the header (the switch forwards before the FCS is known) is a
            // loss on the link; a good frame to nowhere is a sender's error.
            ++(f.fcs_bad ? st_.frames_lost_link : st_.frames_misrouted);
            lose(r.wid);
            continue;
          }
          // The ingress buffer is released when the frame starts out of its egress.
          f.dst = d;
          egress_[p][d].q[f.vc].push_back({r.wid, r.t_first + core::ns(cfg_.switch_ns)});
        }
      }
    // Egress: one frame at a time per port, round robin over VCs whose head is
    // due and has CBFC credit toward the NIC; FIFO within a VC.
    for (unsigned p = 0; p < cfg_.ports; ++p)
      for (unsigned d = 0; d < cfg_.nodes; ++d) {
        Hop& h = *down_[p][d];
        Egress& e = egress_[p][d];
        if (h.dead || (h.llr ? !h.llr->can_take(h.side) : h.data.wire_free_at() >= t + P)) continue;
        for (unsigned i = 0; i < kVcs; ++i) {
          const unsigned v = (e.rr + i) % kVcs;
          if (e.q[v].empty() || e.q[v].front().second > t || !((h.fc.txo.elig >> v) & 1u)) continue;
          const uint64_t wid = e.q[v].front().first;
          e.q[v].pop_front();
          e.rr = (v + 1) % kVcs;
          WireFrame& f = frames_.at(wid);
          const uint32_t len = static_cast<uint32_t>(f.bytes.size());
          h.fc.consume.push_back({v, len});
          up_[p][f.src]->fc.frees.push_back({v, len, c + 1});
          WireFrame g = std::move(f);
          frames_.erase(wid);  // send() stores it again under the same id
          send(h, std::move(g), std::max(t, h.data.wire_free_at()));
          break;
        }
      }
  }
  for (unsigned n = 0; n < cfg_.nodes; ++n)
    for (unsigned p = 0; p < cfg_.ports; ++p) {
      Port& pt = ports_[n][p];
      Hop& h = *pt.in;
      arrivals(h, t, [&](WireFrame& f, const InRec&) {
        if (!cfg_.use_switch && !f.fcs_bad && cfg_.rcrc_corrupt > 0 && rng_corrupt_.chance(cfg_.rcrc_corrupt))
          corrupt_after_fcs(f);
        h.fc.arrive.push_back({f.vc, static_cast<uint32_t>(f.bytes.size())});
      });
      present(pt, t);
      pt.tx.bucket = std::min(pt.tx.bucket + bytes_per_cycle_, static_cast<double>(kBeatBytes));
      pt.tx.ready = pt.tx.bucket > 0 && !plane_dead_[p];
      if (pt.out->llr && pt.out->llr->queued(pt.out->side) >= 2) pt.tx.ready = false;  // the MAC TX FIFO before the LLR
      if (c >= cfg_.reset_cycles + 2)
        for (unsigned v = 0; v < kVcs; ++v)
          if (!credit_ok(n, p, v) && !plane_dead_[p]) ++credit_stall_;
    }
}

void Net::tx_transfer(unsigned n, unsigned p, const Beat& b, uint64_t c, core::Ps t) {
  Port& pt = ports_[n][p];
  MacTx& m = pt.tx;
  if (plane_dead_[p]) return;
  if (b.sof) {
    m.cur.clear();
    m.in_frame = true;
    m.vc = vc_of(b.data.data(), b.nbytes);
    m.sof_cycle = c;
    m.t_sof = t;
  }
  if (!m.in_frame) return;  // a beat outside a frame: sue_tx never does that (the frame check below would fail)
  m.cur.insert(m.cur.end(), b.data.begin(), b.data.begin() + std::min<unsigned>(b.nbytes, kBeatBytes));
  m.bucket -= b.nbytes;
  if (!b.eof) return;
  m.in_frame = false;
  WireFrame f;
  f.wid = next_wid_++;
  f.bytes = std::move(m.cur);
  m.cur = {};
  const size_t pad = f.bytes.size() < sue::kEthMinNoFcs ? sue::kEthMinNoFcs - f.bytes.size() : 0;
  f.bytes.resize(f.bytes.size() + pad + sue::kFcsBytes, 0);
  put_fcs(f.bytes);
  m.bucket -= static_cast<double>(pad + sue::kFcsBytes + cfg_.link.overhead_bytes);
  f.src = n;
  f.port = p;
  f.vc = vc_of(f.bytes);
  f.dst = dst_of(f.bytes);
  f.sof_cycle = m.sof_cycle;
  if (on_tx_frame) on_tx_frame(f);
  const uint32_t len = static_cast<uint32_t>(f.bytes.size());
  ++pt.frames;
  pt.wire_bytes += len + cfg_.link.overhead_bytes;
  ++st_.frames_sent;
  st_.wire_bytes += len + cfg_.link.overhead_bytes;
  pt.out->fc.consume.push_back({f.vc, len});
  send(*pt.out, std::move(f), m.t_sof);
}

void Net::rx_taken(unsigned n, unsigned p, uint64_t c) {
  Port& pt = ports_[n][p];
  const Beat b = pt.rx.beat;
  if (!b.valid) return;
  Hop& h = *pt.in;
  if (!b.eof) {
    ++pt.rx.next;
    return;
  }
  const InRec r = h.in.front();
  h.in.pop_front();
  pt.rx.next = 0;
  WireFrame& f = frames_.at(r.wid);
  h.fc.frees.push_back({f.vc, static_cast<uint32_t>(f.bytes.size()), c + 1});
  if (on_rx_eof) on_rx_eof(f, c);
  frames_.erase(r.wid);
}

void Net::tick_cbfc(Cbfc& fc, uint64_t c, core::Ps t) {
  const bool run = c >= cfg_.reset_cycles;
  cbfc::TxIn ti;
  ti.rst_n = run;
  ti.cfg = txcfg_;
  cbfc::RxIn ri;
  ri.rst_n = run;
  ri.cfg = rxcfg_;
  if (run) {
    if (!fc.consume.empty()) {
      ti.tx_valid = true;
      ti.tx_class = fc.consume.front().first;
      ti.tx_len = fc.consume.front().second;
      fc.consume.pop_front();
    }
    if (!fc.cu.empty()) {
      ti.cu_valid = true;
      ti.cu_class = fc.cu.front().cls;
      ti.cu_limit = fc.cu.front().value;
      fc.cu.pop_front();
    }
    if (!fc.arrive.empty()) {
      ri.rx_valid = true;
      ri.rx_class = fc.arrive.front().first;
      ri.rx_len = fc.arrive.front().second;
      fc.arrive.pop_front();
    }
    if (!fc.frees.empty() && fc.frees.front().not_before <= c) {
      ri.free_valid = true;
      ri.free_class = fc.frees.front().cls;
      ri.free_len = fc.frees.front().len;
      fc.frees.pop_front();
    }
  }
  fc.tx.tick(ti);
  fc.rx.tick(ri);
  fc.txo = fc.tx.outputs();
  fc.rxo = fc.rx.outputs();
  if (fc.rxo.cu_valid) {
    lnk::Ctl cu;
    cu.kind = lnk::Ctl::Kind::credit;
    cu.cls = fc.rxo.cu_class;
    cu.value = fc.rxo.cu_limit;
    fc.back.send(t, cu);
  }
  lnk::Item it;
  while (fc.back.receive(t, it)) fc.cu.push_back(std::get<lnk::Ctl>(it));
  const bool err = fc.txo.err_underflow || fc.txo.err_overflow || fc.txo.err_class || fc.rxo.err_overflow ||
                   fc.rxo.err_underflow || fc.rxo.err_class;
  if (err && !st_.cbfc_errors++)
    st_.cbfc_error_first = fmt::format("CBFC error at cycle {}: tx underflow {:#x} overflow {:#x}, rx overflow {:#x} underflow {:#x}",
                                       c, fc.txo.err_underflow, fc.txo.err_overflow, fc.rxo.err_overflow,
                                       fc.rxo.err_underflow);
}

void Net::commit(uint64_t c, core::Ps t) {
  for (auto& h : hops_)
    if (!h->dead) tick_cbfc(h->fc, c, t);
}

void Net::fail_plane(unsigned p) {
  if (p >= cfg_.ports || plane_dead_[p]) return;
  plane_dead_[p] = true;
  auto kill = [&](Hop* h) {
    if (!h) return;
    h->dead = true;
    for (auto* q : {&h->pend, &h->dlv}) {  // held by the LLR of the failed plane
      for (uint64_t wid : *q) {
        ++st_.frames_lost_dead;
        lose(wid);
      }
      q->clear();
    }
    while (!h->in.empty()) {
      ++st_.frames_lost_dead;
      lose(h->in.front().wid);
      h->in.pop_front();
    }
  };
  for (unsigned n = 0; n < cfg_.nodes; ++n) {
    Port& pt = ports_[n][p];
    pt.tx.in_frame = false;
    pt.tx.cur.clear();
    pt.rx.next = 0;
    pt.rx.beat = Beat{};
    kill(pt.out);
    kill(pt.in);
  }
  if (cfg_.use_switch)
    for (unsigned d = 0; d < cfg_.nodes; ++d)
      for (auto& q : egress_[p][d].q) {
        while (!q.empty()) {
          ++st_.frames_lost_dead;
          lose(q.front().first);
          q.pop_front();
        }
      }
}

bool Net::empty() const {
  for (auto& h : hops_)
    if (!h->dead && (!h->in.empty() || h->data.in_flight() || !h->pend.empty() || !h->dlv.empty())) return false;
  for (auto& pl : egress_)
    for (auto& e : pl)
      for (auto& q : e.q)
        if (!q.empty()) return false;
  for (auto& n : ports_)
    for (auto& pt : n)
      if (pt.tx.in_frame) return false;
  return true;
}

lnk::FaultInjector::Stats Net::fault_stats() const {
  lnk::FaultInjector::Stats s;
  for (auto& h : hops_)
    if (h->faults) {
      const auto& x = h->faults->stats();
      s.frames += x.frames;
      s.frames_dropped += x.frames_dropped;
      s.frames_corrupted += x.frames_corrupted;
      s.ctl += x.ctl;
      s.ctl_dropped += x.ctl_dropped;
      s.ctl_corrupted += x.ctl_corrupted;
      s.ctl_delayed += x.ctl_delayed;
      s.lost_link_down += x.lost_link_down;
    }
  for (auto& l : llr_)
    for (auto side : {sw::LlrLink::A, sw::LlrLink::B}) {
      const sw::LinkStats x = l.link->stats(side);
      s.frames += x.frames + x.frames_replayed;
      s.frames_dropped += x.dropped_frames;
      s.frames_corrupted += x.bad_frames;
    }
  return s;
}

LlrStats Net::llr_stats() const {
  LlrStats s;
  for (auto& l : llr_)
    for (auto side : {sw::LlrLink::A, sw::LlrLink::B}) {
      ++s.links;
      s += l.link->stats(side);
    }
  return s;
}

}  // namespace tb::sue_tb
