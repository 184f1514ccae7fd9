#include "sue/sue_env.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tb::sue_tb {

namespace {
constexpr unsigned kCtrlBytes = 18;
}

System::System(const EnvConfig& cfg, std::vector<std::unique_ptr<TxBlock>> tx, std::vector<std::unique_ptr<RxBlock>> rx,
               Waves* waves)
    : cfg_(cfg), waves_(waves), net_(cfg.net), sb_("XPU to XPU", cfg.strict), rng_(cfg.seed, "sue.traffic") {
  nodes_.resize(cfg_.nodes);
  for (unsigned n = 0; n < cfg_.nodes; ++n) {
    Node& N = nodes_[n];
    N.idx = n;
    N.xpu = n;  // XPU id = node index; no peer table: the instance addresses every XPU by its id
    N.tx = std::move(tx[n]);
    N.rx = std::move(rx[n]);
    N.ltx = dynamic_cast<LockTx*>(N.tx.get());
    N.lrx = dynamic_cast<LockRx*>(N.rx.get());
    auto& t = N.tcfg;
    t.own_xpuid = N.xpu;
    t.strict = cfg_.strict;
    t.partition = cfg_.partition;
    t.hop_count = cfg_.hop_count;
    t.vc_weight = cfg_.vc_weight;
    t.rto = cfg_.rto;
    t.ack_delay = cfg_.ack_delay;
    t.ack_count = cfg_.ack_count;
    t.win_bytes = cfg_.win_bytes;
    t.fo_retry = cfg_.fo_retry;
    auto& r = N.rcfg;
    r.own_xpuid = N.xpu;
    r.strict = cfg_.strict;
    r.partition = cfg_.partition;
    r.rx_credits = {cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits};
    N.credits.assign(cfg_.tp.nq(), cfg_.tp.qdepth);
    N.next_id.assign(cfg_.nodes * 4, 1);
    N.to = N.tx->outputs();
    N.ro = N.rx->outputs();
  }
  net_.on_tx_frame = [this](WireFrame& f) { on_tx_frame(f); };
  net_.on_lost = [this](WireFrame& f) {
    if (!cfg_.tp.lite()) return;  // SUE recovers it
    for (auto& [flow, id] : f.cmds) {
      sb_.discard(flow, id);
      ++fig_.lite_lost_cmds;
    }
  };
  net_.on_rx_eof = [this](WireFrame& f, uint64_t c) {
    for (size_t i = 0; i < f.cmds.size(); ++i) {
      auto it = trace_.find(key(f.cmds[i].first, f.cmds[i].second));
      if (it == trace_.end()) continue;
      it->second.eof_cycle = c;
      it->second.first_of_pdu = i == 0;
    }
    if (cfg_.tp.lite() && f.fcs_bad)  // sue_rx drops it (drop_mac): SUE Lite has no recovery here
      for (auto& [flow, id] : f.cmds) {
        sb_.discard(flow, id);
        ++fig_.lite_lost_cmds;
      }
  };
}

uint64_t System::digest(const uint8_t* ctrl, const uint8_t* data, size_t dlen) const {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&](uint8_t b) {
    h ^= b;
    h *= 0x100000001b3ull;
  };
  for (unsigned i = 0; i < kCtrlBytes; ++i) add(ctrl[i]);
  for (size_t i = 0; i < dlen; ++i) add(data[i]);
  return core::mix64(h ^ core::mix64(cfg_.seed + dlen));
}

bool System::decode_cmd(const uint8_t* c, size_t len, uint32_t& flow, uint64_t& id) const {
  if (len < kCtrlBytes) return false;
  if (c[3] >= cfg_.nodes || c[4] >= cfg_.nodes || c[5] >= 4) return false;
  flow = flow_of(c[3], c[4], c[5]);
  id = 0;
  for (unsigned i = 6; i < 12; ++i) id = id << 8 | c[i];
  return true;
}

std::optional<System::Node::Cmd> System::new_cmd(Node& n) {
  Node::Cmd c;
  const unsigned N = cfg_.nodes;
  auto dest_ok = [&](unsigned d) {
    if (d == n.idx) return false;
    if (cfg_.pattern == "ring") return d == (n.idx + 1) % N;
    if (cfg_.pattern == "incast") return d == (n.idx == 0 ? 1u : 0u);
    return true;
  };
  if (cfg_.pattern == "ring") {
    c.dst = (n.idx + 1) % N;
  } else if (cfg_.pattern == "incast") {
    c.dst = n.idx == 0 ? 1 : 0;
  } else {
    c.dst = static_cast<unsigned>(rng_.uniform(0, N - 2));
    if (c.dst >= n.idx) ++c.dst;
  }
  c.vc = static_cast<unsigned>(rng_.uniform(0, cfg_.vcs - 1));
  // The XPU issues to a queue that holds a credit: when the drawn {destination,
  // VC} has none, another one of the pattern that has; none at all: it waits.
  if (n.credits[c.dst * 4 + c.vc] == 0) {
    std::vector<std::pair<unsigned, unsigned>> ok;
    for (unsigned d = 0; d < N; ++d)
      if (dest_ok(d))
        for (unsigned v = 0; v < cfg_.vcs; ++v)
          if (n.credits[d * 4 + v]) ok.push_back({d, v});
    if (ok.empty()) return std::nullopt;
    const auto& pick = ok[rng_.uniform(0, ok.size() - 1)];
    c.dst = pick.first;
    c.vc = pick.second;
  }
  if (cfg_.bimodal)
    c.dlen = rng_.chance(0.5) ? cfg_.dlen_min : cfg_.dlen_max;
  else
    c.dlen = static_cast<unsigned>(rng_.uniform(cfg_.dlen_min, cfg_.dlen_max));
  c.q = c.dst * 4 + c.vc;  // queue {XPU, VC}: node d is XPU d
  const uint64_t r0 = rng_.next(), r1 = rng_.next();
  c.ctrl[0] = static_cast<uint8_t>(r0);                       // opcode: opaque to SUE
  c.ctrl[1] = static_cast<uint8_t>(c.dlen >> 4);              // dlen, 12 bits
  c.ctrl[2] = static_cast<uint8_t>((c.dlen & 0xf) << 4 | ((r0 >> 8) & 0xf));
  c.ctrl[3] = static_cast<uint8_t>(n.idx);                    // our identity of the command:
  c.ctrl[4] = static_cast<uint8_t>(c.dst);                    //   source, destination, VC
  c.ctrl[5] = static_cast<uint8_t>(c.vc);
  c.id = n.next_id[c.dst * 4 + c.vc]++;                       //   and a number per flow
  for (unsigned i = 0; i < 6; ++i) c.ctrl[6 + i] = static_cast<uint8_t>(c.id >> (8 * (5 - i)));
  for (unsigned i = 0; i < 6; ++i) c.ctrl[12 + i] = static_cast<uint8_t>(r1 >> (8 * i));  // opaque
  c.data.resize(c.dlen);
  for (unsigned i = 0; i < c.dlen; i += 8) {
    const uint64_t r = rng_.next();
    for (unsigned j = 0; j < 8 && i + j < c.dlen; ++j) c.data[i + j] = static_cast<uint8_t>(r >> (8 * j));
  }
  c.flow = flow_of(n.idx, c.dst, c.vc);
  c.digest = digest(c.ctrl.data(), c.data.data(), c.dlen);
  return c;
}

void System::drive_xpu(Node& n, sue::TxIn& in, core::Ps /*t*/) {
  const unsigned DB = cfg_.tp.db();
  auto drive_beat = [&](const Node::Cmd& c, unsigned beat) {
    in.tx_valid = c.dlen ? 2 : 1;
    in.tx_cycle = beat;
    in.tx_vc = c.vc;
    in.tx_xpuid = c.dst;
    in.tx_control = c.ctrl;
    n.dbg_q = (c.dst * 4 + c.vc) & 0x3fff;
    for (unsigned j = 0; j < DB && beat * DB + j < c.dlen; ++j) in.tx_data[j] = c.data[beat * DB + j];
  };
  auto complete = [&](const Node::Cmd& c) {
    sb_.expect(c.flow, c.id, c.digest, static_cast<core::Ps>(cycle_) * cfg_.clock_ps);
    trace_[key(c.flow, c.id)].in_cycle = cycle_;
    ++n.issued;
    n.cur.reset();
    n.started = false;
  };
  // Offered load: tokens accrue every cycle, also while a multi-beat command is on the interface.
  const double per_cycle = cfg_.load * cfg_.net.ports * cfg_.net.link.rate_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
  n.tokens = std::min(n.tokens + per_cycle, 20.0 + cfg_.dlen_max);
  if (n.cur && n.started) {  // the next beat of a multi-beat command
    const Node::Cmd& c = *n.cur;
    drive_beat(c, n.beat);
    const unsigned B = (c.dlen + DB - 1) / DB;
    if (++n.beat == B) complete(c);
    return;
  }
  if (!traffic_ || n.tokens < 0) return;
  n.cur = new_cmd(n);
  if (!n.cur) {
    ++n.credit_stall;
    return;
  }
  const Node::Cmd& c = *n.cur;
  --n.credits[c.q];
  n.tokens -= 20.0 + c.dlen;
  n.started = true;
  n.beat = 0;
  drive_beat(c, 0);
  const unsigned B = (c.dlen + DB - 1) / DB;
  if (B <= 1)
    complete(c);
  else
    n.beat = 1;
}

void System::sink(Node& n, core::Ps /*t*/) {
  const sue::RxOut& o = n.ro;
  if (o.rx_valid != 1 && o.rx_valid != 2) return;
  const unsigned DB = cfg_.tp.db();
  const uint64_t seen = cycle_ + 1;  // registered output: on the XPU interface in the next cycle
  auto& a = n.as;
  auto bad = [&](const std::string& what) {
    if (!fig_.misdelivered++)
      fig_.first_misdelivery = fmt::format("node {} cycle {}: {}", n.idx, seen, what);
  };
  if (o.rx_cycle == 0) {
    if (a.act) bad(fmt::format("a new command began after {} of {} beats of the previous one", a.got, a.beats));
    a = {};
    a.act = true;
    a.ctrl = o.rx_control;
    a.vc = o.rx_vc;
    a.xpuid = o.rx_xpuid;
    a.port = o.rx_port;
    a.dlen = static_cast<uint32_t>(a.ctrl[1]) << 4 | a.ctrl[2] >> 4;
    a.beats = a.dlen ? (a.dlen + DB - 1) / DB : 1;
    a.first_cycle = seen;
    if (o.rx_valid != (a.dlen ? 2u : 1u)) bad(fmt::format("rx_valid={} for dlen={}", o.rx_valid, a.dlen));
    n.ret[a.vc & 3].push_back(seen + cfg_.sink_delay);
    uint32_t flow;
    uint64_t id;
    if (decode_cmd(a.ctrl.data(), kCtrlBytes, flow, id)) {
      auto it = trace_.find(key(flow, id));
      if (it != trace_.end() && it->second.first_of_pdu && it->second.eof_cycle)
        fig_.rx_pipe.add(static_cast<double>(seen - it->second.eof_cycle));
    }
  } else if (!a.act || o.rx_cycle != a.got) {
    bad(fmt::format("rx_cycle={} but beat {} was expected", o.rx_cycle, a.act ? a.got : 0));
    return;
  }
  for (unsigned j = 0; j < DB && a.data.size() < a.dlen; ++j) a.data.push_back(o.rx_data[j]);
  if (++a.got < a.beats) return;
  a.act = false;
  const uint64_t dig = digest(a.ctrl.data(), a.data.data(), a.dlen);
  uint32_t flow = 0;
  uint64_t id = 0;
  if (!decode_cmd(a.ctrl.data(), kCtrlBytes, flow, id)) {
    sb_.observe(~0u, 0, dig, static_cast<core::Ps>(seen) * cfg_.clock_ps);
    return;
  }
  const unsigned src = a.ctrl[3], dst = a.ctrl[4], vc = a.ctrl[5];
  if (dst != n.idx || src != a.xpuid || vc != a.vc)
    bad(fmt::format("command of flow {}->{} vc {} id {} arrived at node {} from XPU {} on vc {}", src, dst, vc, id,
                    n.idx, a.xpuid, a.vc));
  sb_.observe(flow, id, dig, static_cast<core::Ps>(seen) * cfg_.clock_ps);
  ++n.delivered;
  n.delivered_bytes += kCtrlBytes + a.dlen;
  trace_.erase(key(flow, id));
}

void System::on_tx_frame(WireFrame& f) {
  sue::DecodeOptions o;
  o.profile = cfg_.tp.lite() ? sue::Profile::SueLite : sue::Profile::Sue;
  o.encap = cfg_.tp.lite() ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12;
  auto r = sue::decode(f.bytes, o);
  auto fail = [&](const std::string& what) {
    if (!fig_.frame_decode_errors++)
      fig_.first_decode_error = fmt::format("node {} port {} frame of {} bytes, first beat at cycle {}: {}", f.src,
                                            f.port, f.bytes.size(), f.sof_cycle, what);
  };
  if (!r) {
    fail(r.error().message());
    return;
  }
  const sue::Frame& fr = r.value().frame;
  const uint32_t own = f.src;
  if (fr.afh2.src_xpu != own) fail(fmt::format("source XPU {} is not the sender {}", fr.afh2.src_xpu, own));
  if (f.dst == ~0u || f.dst == f.src) fail(fmt::format("destination XPU {} is not another node", fr.afh2.dst_xpu));
  if (!cfg_.tp.lite()) {
    const auto& rh = fr.rh;
    if (rh.xpuid != own) fail(fmt::format("RH xpuid {} is not the sender {}", rh.xpuid, own));
    if (rh.vc != (fr.afh2.tc & 3)) fail(fmt::format("RH vc {} but traffic class {}", rh.vc, fr.afh2.tc));
    if (rh.partition != cfg_.partition) fail(fmt::format("RH partition {}", rh.partition));
    if (fr.cmds.empty()) {
      if (rh.rsvd & 8)
        ++(rh.op == 0 ? fig_.fo_req_frames : fig_.fo_ack_frames);
      else
        ++fig_.ack_frames;
      return;
    }
    if (rh.rsvd != 0) fail(fmt::format("data PDU with rsvd={}", rh.rsvd));
  }
  if (fr.cmds.empty()) {
    fail("a SUE Lite frame without commands");
    return;
  }
  ++fig_.data_frames;
  fig_.data_wire_bytes += f.bytes.size() + cfg_.net.link.overhead_bytes;
  for (size_t i = 0; i < fr.cmds.size(); ++i) {
    const sue::Bytes& c = fr.cmds[i];
    fig_.data_cmd_bytes += c.size();
    ++fig_.data_cmds;
    uint32_t flow;
    uint64_t id;
    if (!decode_cmd(c.data(), c.size(), flow, id) || (flow >> 6) != f.src) {
      fail(fmt::format("command {} carries no command of this sender", i));
      continue;
    }
    f.cmds.push_back({flow, id});
    auto it = trace_.find(key(flow, id));
    if (it != trace_.end() && it->second.first_sof == 0) {
      it->second.first_sof = f.sof_cycle;
      it->second.last_of_pdu = i + 1 == fr.cmds.size();
      if (it->second.last_of_pdu) fig_.tx_pipe.add(static_cast<double>(f.sof_cycle - it->second.in_cycle));
    }
  }
}

void System::cycle() {
  const uint64_t c = cycle_;
  const core::Ps t = now();
  const core::Ps P = cfg_.clock_ps;
  if (cfg_.fail_port >= 0 && c == cfg_.fail_cycle) net_.fail_plane(static_cast<unsigned>(cfg_.fail_port));
  const bool rst = c < cfg_.reset_cycles;
  net_.prepare(c, t);
  const unsigned NP = cfg_.net.ports;
  uint32_t up = 0;
  for (unsigned p = 0; p < NP; ++p)
    if (net_.port_up(p)) up |= 1u << p;

  std::vector<sue::TxIn> tin(nodes_.size());
  std::vector<sue::RxIn> rin(nodes_.size());
  for (Node& n : nodes_) {
    sue::TxIn& ti = tin[n.idx];
    ti.rst_n = !rst;
    ti.cfg = n.tcfg;
    ti.dbg_q = ti.dbg_conn = n.dbg_q;  // its connection on port 0
    ti.port_up = up;
    ti.fb = n.ro.fb;
    for (unsigned p = 0; p < NP; ++p) {
      if (net_.tx_ready(n.idx, p)) ti.mac_tx_ready |= 1u << p;
      const int presented = ((n.to.mac_tx_valid & n.to.mac_tx_sof) >> p) & 1u
                                ? static_cast<int>(Net::vc_of(n.to.mac_tx_data[p].data(), n.to.mac_tx_nbytes[p]))
                                : -1;
      for (unsigned v = 0; v < kVcs; ++v)
        if (net_.credit_ok(n.idx, p, v, presented)) ti.credit_ok |= 1u << (p * 4 + v);
    }
    if (!rst) drive_xpu(n, ti, t);
    sue::RxIn& ri = rin[n.idx];
    ri.rst_n = !rst;
    ri.cfg = n.rcfg;
    ri.port_up = up;
    for (unsigned p = 0; p < NP; ++p) {
      const Beat& b = net_.rx_beat(n.idx, p);
      sue::RxBeat& m = ri.mac[p];
      m.valid = b.valid;
      m.sof = b.sof;
      m.eof = b.eof;
      m.err = b.err;
      m.nbytes = b.valid ? b.nbytes : 0;
      m.data = b.data;
    }
    if (!rst)
      for (unsigned v = 0; v < 4; ++v) {
        const bool held = cfg_.hold_vc == static_cast<int>(v) && c >= cfg_.hold_from && c < cfg_.hold_from + cfg_.hold_cycles;
        if (!held && !n.ret[v].empty() && n.ret[v].front() <= c) {
          ri.rx_credit |= 1u << v;
          n.ret[v].pop_front();
        }
      }
    n.tx->drive(ti);
    n.rx->drive(ri);
    if (n.ltx) n.ltx->set_time(c, t);
    if (n.lrx) n.lrx->set_time(c, t);
  }
  if (waves_) waves_->dump(t - P / 2);
  for (Node& n : nodes_) {
    n.tx->posedge();
    n.rx->posedge();
  }
  // What was transferred at this edge: pre-edge outputs with this cycle's inputs.
  if (!rst)
    for (Node& n : nodes_)
      for (unsigned p = 0; p < NP; ++p) {
        if (((n.to.mac_tx_valid >> p) & 1u) && ((tin[n.idx].mac_tx_ready >> p) & 1u)) {
          Beat b;
          b.valid = true;
          b.sof = (n.to.mac_tx_sof >> p) & 1u;
          b.eof = (n.to.mac_tx_eof >> p) & 1u;
          b.nbytes = n.to.mac_tx_nbytes[p];
          b.data = n.to.mac_tx_data[p];
          net_.tx_transfer(n.idx, p, b, c, t);
        }
        if (rin[n.idx].mac[p].valid) {
          if ((n.ro.mac_rx_ready >> p) & 1u)
            net_.rx_taken(n.idx, p, c);
          else
            ++fig_.rx_backpressure;
        }
      }
  net_.commit(c, t);
  for (Node& n : nodes_) {
    n.to = n.tx->outputs();
    n.ro = n.rx->outputs();
    if (!rst) {
      for (size_t q = 0; q < n.credits.size() && q < n.to.tx_credit.size(); ++q) n.credits[q] += n.to.tx_credit[q];
      sink(n, t);
    }
  }
  if (waves_) waves_->dump(t);
  if (traffic_) fig_.traffic_cycles = c + 1;
  ++cycle_;
}

bool System::idle() const {
  if (traffic_) return false;
  for (const Node& n : nodes_) {
    if (n.cur || n.as.act) return false;
    if (n.to.pool_used) return false;
    for (unsigned p = 0; p < cfg_.net.ports; ++p)
      if (n.ro.rec_count[p] || n.ro.buf_rows[p]) return false;
  }
  return sb_.outstanding() == 0 && net_.empty();
}

std::string System::busy_reason() const {
  if (traffic_) return "traffic running";
  for (const Node& n : nodes_) {
    if (n.cur) return fmt::format("node {}: the XPU driver is inside a command", n.idx);
    if (n.as.act) return fmt::format("node {}: the XPU sink is inside a command", n.idx);
    if (n.to.pool_used) {
      // a port/VC without CBFC credit at the end of the drain: the credits of frames lost on a link
      // without LLR never come back (docs/sue.md "Testbench"), which can stall a VC for good
      std::string nocred;
      for (unsigned p = 0; p < cfg_.net.ports; ++p)
        for (unsigned v = 0; v < 4; ++v)
          if (net_.port_up(p) && !net_.credit_ok(n.idx, p, v)) nocred += fmt::format(" port {} VC {};", p, v);
      return fmt::format("node {}: sue_tx holds {} command slots (queued, or sent and not acknowledged){}", n.idx,
                         n.to.pool_used,
                         nocred.empty() ? std::string()
                                        : "; no CBFC credit on" + nocred.substr(0, nocred.size() - 1) +
                                              " (frames lost on a link without LLR keep their credits)");
    }
    for (unsigned p = 0; p < cfg_.net.ports; ++p)
      if (n.ro.rec_count[p] || n.ro.buf_rows[p])
        return fmt::format("node {}: sue_rx port {} holds {} frames in {} rows", n.idx, p, n.ro.rec_count[p], n.ro.buf_rows[p]);
  }
  if (sb_.outstanding()) return fmt::format("{} commands not delivered", sb_.outstanding());
  if (!net_.empty()) return "frames in the network";
  return "";
}

std::optional<Mismatch> System::mismatch() const {
  for (const Node& n : nodes_) {
    if (n.ltx && n.ltx->mismatch()) return n.ltx->mismatch();
    if (n.lrx && n.lrx->mismatch()) return n.lrx->mismatch();
  }
  return std::nullopt;
}

bool System::mismatched() const {
  for (const Node& n : nodes_)
    if ((n.ltx && n.ltx->mismatch()) || (n.lrx && n.lrx->mismatch())) return true;
  return false;
}

std::string System::model_assertion() const {
  for (const Node& n : nodes_) {
    if (n.ltx && !n.ltx->model().assertion().empty()) return fmt::format("n{}_tx: {}", n.idx, n.ltx->model().assertion());
    if (auto* m = dynamic_cast<const TxModelBlock*>(n.tx.get()); m && !m->model().assertion().empty())
      return fmt::format("n{}_tx: {}", n.idx, m->model().assertion());
  }
  return "";
}

void System::stop_traffic() {
  if (!traffic_) return;
  traffic_ = false;
  fig_.port_bytes_traffic.assign(cfg_.nodes, std::vector<uint64_t>(cfg_.net.ports, 0));
  for (unsigned n = 0; n < cfg_.nodes; ++n)
    for (unsigned p = 0; p < cfg_.net.ports; ++p) fig_.port_bytes_traffic[n][p] = net_.port_wire_bytes(n, p);
}

void System::finish() { sb_.finish(); }

}  // namespace tb::sue_tb
