#include "system/system_tb.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <regex>

#include "common/table.hpp"
#include "sue/goodput.hpp"
#include "system/system_flit.hpp"
#include "common/vcontext.hpp"
#include "llr/llr_blocks.hpp"
#include "sue/sue_rx_block.hpp"
#include "sue/sue_tx_block.hpp"
#include "verilated.h"

namespace tb::system_tb {

namespace {

constexpr uint64_t kCycles = 20000;  // 12.5 us of traffic at 1.6 GHz
// Warm-up that measures steady state at full load (the throughput report's; docs/system.md "DataW 1024, ACK delay
// 512 and a steady-state window": the queues fill over ~5 us).
constexpr uint64_t kSteadyWarmup = 10000;
constexpr const char* kLlrVariant = "l20";  // the default LLR RTL variant (SeqBits 20, BufLog2 8, TimerWidth 20)

const std::vector<std::string> kConfigs = {"s1", "s2", "s4", "lite"};
const std::vector<std::string> kPatterns = {"uniform", "permutation", "incast", "alltoall", "allreduce", "fanout"};

void declare(core::Schema& s) {
  s.add_int("xpus", 8, 2, 1024, "XPUs (XPU a has id a; planes: one switch port per XPU, so at most the switch radix); no peer "
            "tables: every instance addresses every XPU (NumXpus = xpus; with RTL sue_tx/sue_rx at most the compiled NumXpus, 8)");
  s.add_int("instances", 1, 1, 64, "SUE instances per XPU (spec figure 1: 12); mesh: one per matching, xpus-1 (even) or xpus (odd)");
  s.add_choice("sue_config", "s4", kConfigs,
               "every instance follows this compiled parameterization: s1 (1 port, 256-bit XPU bus), s2 (2 ports, 1024-bit), "
               "s4 (4 ports, 1024-bit), lite (SUE Lite, 1 port)");
  s.add_int("qdepth", 0, 0, 256,
            "QDepth of every instance: XPU credits per {XPU, VC}, back at the ingress while the shared pool has a free slot "
            "for every credit the XPUs hold (else when the command is formed into a PDU); the command pool shared by the "
            "queues holds NQ*QDepth + 3072 slots rounded up to a power of 2 (0: the compiled 64; C++ models only; power of 2)");
  s.add_int("qcap", 0, 0, 1024,
            "QCap of every instance: commands one {XPU, VC} queue may hold unsent; credits go back at the ingress only while "
            "the queue has room for all QDepth the XPU may then send, so qcap=qdepth returns every credit at PDU formation "
            "(0: 4 x QDepth, the compiled 256; C++ models only; power of 2, qdepth..1024)");
  s.add_int("window", 0, 0, 256, "Window of every instance: PDUs in flight per connection (0: the compiled 64; models only; "
            "power of 2)");
  s.add_int("data_w", 0, 0, 1024, "DataW of every instance: XPU bus bits per SUE cycle (0: the compiled width; C++ models "
            "only; 128, 256, 512 or 1024)");
  s.add_choice("topology", "planes", {"planes", "mesh"},
               "planes: port p of instance m on plane m*ports+p, one switch per plane (figure 1); mesh: direct cables (figure 2)");
  s.add_choice("mode", "strict", {"strict", "unordered"}, "cfg_strict_i: strict (order per {src, dst, VC}) or unordered");
  s.add_choice("port_gbps", "200", {"100", "200", "400"}, "NIC and switch port rate, Gb/s");
  s.add_real("cable_ns", 9.2, 0, 1000, "cable delay per hop, ns (9.2 = 2 m twinax)");
  s.add_real("nic_tx_ns", 23, 0, 1000, "NIC transmit PHY: MAC + PCS + PMA + FEC encode, ns (docs/latency-budget.md)");
  s.add_real("nic_rx_ns", 60, 0, 1000, "NIC receive PHY: PMA + PCS + MAC + FEC decode, ns (docs/latency-budget.md)");
  s.add_real("core_mhz", 1000, 100, 5000, "switch core clock, MHz (128-byte flits: at least port_gbps/1.024)");
  s.add_int("switch_credits", 512, 33, 32767,
            "CBFC credits each switch ingress grants its NIC per class, 128-byte cells (cbfc_buf_cells)");
  s.add_int("nic_buf_cells", 512, 33, 32767,
            "NIC receive buffer per class, 128-byte cells: the credits of the switch egress (or the mesh peer)");
  s.add_int("switch_buffer_mib", 0, 0, 65536, "switch cell memory, MiB (0: 64, or more when the CBFC reservation needs it)");
  s.add_choice("pattern", "uniform", kPatterns,
               "uniform: random destination; permutation: a fixed random derangement; incast: XPUs 1..fan_in to XPU 0; "
               "alltoall: each XPU cycles over every other; allreduce: ring all-reduce steps (writes to the successor); fanout: "
               "uniform over `fanout` fixed destinations (XPU a: a+1..a+fanout mod N)");
  s.add_int("fanout", 4, 1, 1023, "pattern=fanout: destinations per XPU");
  s.add_choice("direction", "bi", {"bi", "uni"},
               "bi: every XPU sends; uni: XPUs 0..N/2-1 send only to N/2..N-1, which only receive (uniform: over all "
               "receivers; permutation: a to a+N/2; fanout: a to N/2+(a+j mod N/2)); incast is one-way anyway");
  s.add_real("load", 0.5, 0.01, 1.0,
             "offered command bytes (op header + control + data) per XPU, requests and responses it sends / its port "
             "bandwidth (instances x ports x port_gbps)");
  s.add_int("dlen_min", 0, 0, 4095, "smallest command data (write) or read length, bytes");
  s.add_int("dlen_max", 256, 0, 4095, "largest, bytes (at most MaxData = 256)");
  s.add_choice("size_dist", "uniform", {"uniform", "bimodal"}, "sizes uniform in [dlen_min, dlen_max], or one of the two");
  s.add_real("read_ratio", 0.25, 0, 1,
             "share of requests that are reads: a read request (VC 0, no data) makes the target send a read response of "
             "the requested length (VC 1)");
  s.add_int("fan_in", 0, 0, 1023, "incast: senders XPU 1..fan_in (0: every other XPU)");
  s.add_int("chunk_bytes", 4096, 1, 1 << 24, "allreduce: bytes each XPU sends to its successor per step (2(N-1) steps)");
  s.add_int("pending_max", 8, 1, 256, "XPU: requests generated and waiting for an instance's interface");
  s.add_int("rx_credits", 16, 1, 255, "XPU receive credits per VC (cfg_rx_credits_i)");
  s.add_int("sink_delay", 0, 0, 1000000, "cycles before the receiving XPU returns a receive credit");
  s.add_int("rto", 65536, 1, (1 << 24) - 1, "cfg_rto_i: retransmit timeout, cycles without ACK progress");
  s.add_int("ack_delay", 4096, 0, 65535, "cfg_ack_delay_i: cycles an owed ACK waits for a data PDU");
  s.add_int("ack_count", 4, 0, 255, "cfg_ack_count_i: an owed ACK goes alone once this many accepted or duplicate PDUs are owed, whatever its age (0: off)");
  s.add_int("window_bytes", 131072, 0, (1 << 24) - 1, "cfg_win_bytes_i: the byte window, a connection starts a PDU only while its unacknowledged PDUs hold fewer bytes (0: off; default: 400 Gb/s x the 2.5 us design round trip, rounded up to 128 KiB; docs/sue.md \"Window and QDepth\")");
  s.add_text("rtl", "none", "none|(x[0-9]+\\.(tx|rx|llr)|sw[0-9]+\\.p[0-9]+\\.llr)(,(x[0-9]+\\.(tx|rx|llr)|sw[0-9]+\\.p[0-9]+\\.llr))*",
             "none|xN.tx|xN.rx|xN.llr|swP.pN.llr[,...] (e.g. x0.tx,x0.rx,sw0.p3.llr)",
             "blocks that are verilated RTL: xN.tx / xN.rx the sue_tx / sue_rx of every instance of XPU N, xN.llr the "
             "NIC-side LLR partners of XPU N (every port), swP.pN.llr the LLR partner at port N (XPU N) of plane P's "
             "switch (both need llr=true); the others are C++ models");
  s.add_bool("lockstep", true, "an RTL block runs its C++ model beside it and compares every output, every cycle");
  s.add_bool("check_frames", true, "sue::decode every frame a NIC sends (FCS, headers, RH, commands)");
  s.add_bool("llr", false,
             "link layer retry on every NIC <-> switch link, both directions (sw::LlrLink: an LLR partner at the NIC port "
             "and at the switch port, clocked by the switch core clock; topology=planes)");
  s.add_real("fer", 0, 0, 1, "frame error rate of every wire, both directions: a frame fails its FCS with this probability "
             "(lnk::FaultConfig::fer)");
  s.add_real("ber", 0, 0, 1, "bit error rate of every wire: a frame of L bytes is corrupted with 1-(1-ber)^(8L) (LLR "
             "control words too)");
  s.add_real("drop_prob", 0, 0, 1, "every wire drops each frame with this probability (it never arrives)");
  s.add_text("burst", "none", "none|[0-9]{1,9}\\+[0-9]{1,6}", "none|FIRST+COUNT (e.g. 200+16)",
             "every wire, both directions, drops COUNT consecutive frames from its frame index FIRST (0 = its first "
             "frame): a burst error (lnk::FaultConfig::bursts)");
  s.add_real("ctl_drop_prob", 0, 0, 1, "every wire loses each LLR control word (ACK, NACK, INIT) with this probability "
             "(needs llr=true)");
  s.add_choice("llr_variant", kLlrVariant, tb::names_of(llr_tb::rtl_variants(), true),
               "the compiled LLR RTL parameterization (rtl/llr/CMakeLists.txt) whose parameters every LLR partner, model "
               "or RTL, uses (l20: SeqBits 20, 256-frame buffer; l7: SeqBits 7, 32 frames; *_mutant: a planted bug, to "
               "see the lockstep catch it)");
  s.add_int("llr_frames_max", 32, 1, 256, "LLR replay buffer, frames (cfg_frames_max_i; at most min(2^BufLog2, "
            "2^(SeqBits-1)-1) of llr_variant)");
  s.add_int("llr_replay_timer", 1000, 1, (1 << 20) - 1,
            "LLR switch-clock cycles without ACK progress before a replay (cfg_replay_timer_i)");
  s.add_text("fail_plane", "none", "none|[0-9]{1,4}@[0-9]{1,12}", "none|P@cycle (e.g. 1@3000)",
             "the switch of plane P fails at the start of SUE cycle `cycle`, with every link to it: what it and its "
             "wires hold is lost, and port P mod ports of every XPU's instance P / ports goes down (port_up), so SUE "
             "fails over to the instance's other ports (topology=planes, nic=cycle)");
  s.add_text("fail_link", "none", "none|x[0-9]{1,4}\\.i[0-9]{1,2}\\.p[0-9]@[0-9]{1,12}", "none|xA.iM.pP@cycle (e.g. x0.i2.p1@3000)",
             "topology=mesh: the cable of port P between instance M of XPU A and its partner fails at the start of SUE "
             "cycle `cycle` (both ends go down, what it carries is lost; SUE fails over to the instance's other ports; "
             "nic=cycle)");
  s.add_choice("nic", "cycle", {"cycle", "flit"},
               "NIC model: cycle (sue_tx + sue_rx, the cycle-exact C++ twins, ticked every SUE cycle, or RTL) or flit "
               "(sue::Nic: frame granularity, event-driven, for fabric-scale runs; docs/system.md \"The flit NIC model\")");
  s.add_int("warmup_cycles", 0, 0, 1000000000, "cycles before the measurement window (throughput, fairness, planes)");
  s.add_int("drain_cycles", 400000, 1000, 1000000000, "cycles allowed to settle after the traffic stops");
}

}  // namespace

SysConfig config_from_settings(const core::Settings& s, uint64_t seed) {
  SysConfig c;
  c.seed = seed;
  c.xpus = static_cast<unsigned>(s.i("xpus"));
  c.instances = static_cast<unsigned>(s.i("instances"));
  c.variant = s.s("sue_config");
  const sue_tb::TxVariant* tv = sue_tb::find_tx_variant(c.variant);
  const sue_tb::RxVariant* rv = sue_tb::find_rx_variant(c.variant);
  if (!tv || !rv)
    throw core::UsageError(fmt::format("setting 'sue_config'='{}' is not compiled into this build (allowed: s1|s2|s4|lite)",
                                       c.variant));
  c.tp = tv->params;
  c.rp = rv->params;
  c.strict = s.s("mode") == "strict";
  c.topology = s.s("topology") == "mesh" ? Topology::mesh : Topology::planes;
  c.port_gbps = static_cast<unsigned>(std::stoul(s.s("port_gbps")));
  c.cable_ns = s.r("cable_ns");
  c.nic_tx_ns = s.r("nic_tx_ns");
  c.nic_rx_ns = s.r("nic_rx_ns");
  const std::string pat = s.s("pattern");
  c.pattern = pat == "permutation" ? Pattern::permutation
              : pat == "incast"    ? Pattern::incast
              : pat == "alltoall"  ? Pattern::alltoall
              : pat == "allreduce" ? Pattern::allreduce
              : pat == "fanout"    ? Pattern::fanout
                                   : Pattern::uniform;
  c.fanout = static_cast<unsigned>(s.i("fanout"));
  c.uni = s.s("direction") == "uni";
  c.load = s.r("load");
  c.dlen_min = static_cast<unsigned>(s.i("dlen_min"));
  c.dlen_max = static_cast<unsigned>(s.i("dlen_max"));
  c.bimodal = s.s("size_dist") == "bimodal";
  c.read_ratio = s.r("read_ratio");
  c.fan_in = static_cast<unsigned>(s.i("fan_in"));
  c.chunk_bytes = static_cast<uint32_t>(s.i("chunk_bytes"));
  c.pending_max = static_cast<unsigned>(s.i("pending_max"));
  c.rx_credits = static_cast<uint32_t>(s.i("rx_credits"));
  c.sink_delay = static_cast<unsigned>(s.i("sink_delay"));
  c.rto = static_cast<uint32_t>(s.i("rto"));
  c.ack_delay = static_cast<uint32_t>(s.i("ack_delay"));
  c.ack_count = static_cast<uint32_t>(s.i("ack_count"));
  c.win_bytes = static_cast<uint32_t>(s.i("window_bytes"));
  c.nic_buf_cells = static_cast<uint32_t>(s.i("nic_buf_cells"));
  c.check_frames = s.b("check_frames");
  c.warmup_cycles = static_cast<uint64_t>(s.i("warmup_cycles"));
  const unsigned N = c.xpus;

  // Blocks.
  c.tx_kind.assign(N, Kind::model);
  c.rx_kind.assign(N, Kind::model);
  c.llr = s.b("llr");
  c.faults.fer = s.r("fer");
  c.faults.ber = s.r("ber");
  c.faults.drop_prob = s.r("drop_prob");
  c.faults.ctl_drop_prob = s.r("ctl_drop_prob");
  if (const std::string b = s.s("burst"); b != "none") {
    const size_t plus = b.find('+');
    const uint64_t first = std::stoull(b.substr(0, plus)), count = std::stoull(b.substr(plus + 1));
    if (count == 0)
      throw core::UsageError(fmt::format("setting 'burst'={}: a burst of 0 frames (allowed: none, or FIRST+COUNT with "
                                         "COUNT 1..999999)", b));
    c.faults.bursts.push_back({first, count});
  }
  if (std::string e = c.faults.validate(); !e.empty()) throw core::UsageError("setting " + e);
  if (c.llr && c.topology == Topology::mesh)
    throw core::UsageError("setting 'llr'=true with topology=mesh: LLR runs on the NIC <-> switch links (allowed: llr=false, "
                           "or topology=planes)");
  if (c.faults.ctl_drop_prob > 0 && !c.llr)
    throw core::UsageError(fmt::format("setting 'ctl_drop_prob'={} needs llr=true: only LLR puts control words on the wire "
                                       "(allowed: 0 with llr=false)", c.faults.ctl_drop_prob));
  // LLR: the parameters of the compiled RTL variant (rtl/llr/CMakeLists.txt), so any partner can be RTL.
  c.llr_variant = s.s("llr_variant");
  const llr_tb::RtlVariant* lv = llr_tb::find_variant(c.llr_variant);
  if (!lv)
    throw core::UsageError(fmt::format("setting 'llr_variant'={} is not compiled into this build (allowed: {})", c.llr_variant,
                                       kLlrVariant));
  c.llr_params = lv->params;
  c.llr_cfg.frames_max = static_cast<uint32_t>(s.i("llr_frames_max"));
  {
    const uint32_t fmax = std::min<uint32_t>(1u << c.llr_params.buf_log2, (1u << (c.llr_params.seq_bits - 1)) - 1u);
    if (c.llr_cfg.frames_max > fmax)
      throw core::UsageError(fmt::format("setting 'llr_frames_max'={} with llr_variant={} (allowed: 1..{}: min(2^BufLog2, "
                                         "2^(SeqBits-1)-1))", c.llr_cfg.frames_max, c.llr_variant, fmax));
  }
  c.llr_cfg.replay_timer = static_cast<uint32_t>(s.i("llr_replay_timer"));
  const std::string rtl = s.s("rtl");
  const Kind rk = s.b("lockstep") ? Kind::lockstep : Kind::rtl;
  if (rtl != "none") {
    const unsigned planes = c.planes();
    std::regex item("x([0-9]+)\\.(tx|rx|llr)|sw([0-9]+)\\.p([0-9]+)\\.llr");
    for (std::sregex_iterator it(rtl.begin(), rtl.end(), item), end; it != end; ++it) {
      const bool sw_item = (*it)[3].matched;
      const std::string what = (*it)[0].str();
      if ((sw_item || (*it)[2].str() == "llr") && !c.llr)
        throw core::UsageError(fmt::format("setting 'rtl'={} names the LLR partner {} but llr=false (allowed: with llr=true, "
                                           "or rtl items xN.tx|xN.rx)", rtl, what));
      if (sw_item) {
        const unsigned long pl = std::stoul((*it)[3].str()), port = std::stoul((*it)[4].str());
        if (pl >= planes)
          throw core::UsageError(fmt::format("setting 'rtl'={} names plane {} but there are {} planes (allowed: sw0..sw{})",
                                             rtl, pl, planes, planes - 1));
        if (port >= N)
          throw core::UsageError(fmt::format("setting 'rtl'={} names port {} but the switches have {} ports, one per XPU "
                                             "(allowed: p0..p{})", rtl, port, N, N - 1));
        c.llr_sw_kind.resize(static_cast<size_t>(planes) * N, Kind::model);
        c.llr_sw_kind[pl * N + port] = rk;
        continue;
      }
      const unsigned long x = std::stoul((*it)[1].str());
      if (x >= N)
        throw core::UsageError(fmt::format("setting 'rtl'={} names XPU {} but xpus={} (allowed: x0..x{})", rtl, x, N, N - 1));
      if ((*it)[2].str() == "llr") {
        c.llr_nic_kind.resize(N, Kind::model);
        c.llr_nic_kind[x] = rk;
      } else {
        ((*it)[2].str() == "tx" ? c.tx_kind : c.rx_kind)[x] = rk;
      }
    }
  }

  // Checks that need several settings.
  if (c.dlen_max > c.tp.max_data)
    throw core::UsageError(fmt::format("setting 'dlen_max'={} exceeds MaxData={} of sue_config={} (allowed: 0..{})",
                                       c.dlen_max, c.tp.max_data, c.variant, c.tp.max_data));
  if (c.dlen_min > c.dlen_max)
    throw core::UsageError(fmt::format("setting 'dlen_min'={} is above dlen_max={} (allowed: 0..{})", c.dlen_min,
                                       c.dlen_max, c.dlen_max));
  if (c.pattern == Pattern::allreduce && c.dlen_max == 0)
    throw core::UsageError("setting 'dlen_max'=0 with pattern=allreduce: the steps carry data (allowed: 1..256)");
  if (c.uni && c.pattern != Pattern::uniform && c.pattern != Pattern::permutation && c.pattern != Pattern::fanout &&
      c.pattern != Pattern::incast)
    throw core::UsageError(fmt::format("setting 'direction'=uni with pattern={}: only uniform, permutation, fanout and "
                                       "incast have a one-way form (allowed: direction=bi)", pat));
  if (c.uni && (N & 1u))
    throw core::UsageError(fmt::format("setting 'direction'=uni with xpus={}: half the XPUs send to the other half "
                                       "(allowed: an even xpus)", N));
  if (c.pattern == Pattern::fanout && c.fanout > (c.uni ? N / 2 : N - 1))
    throw core::UsageError(fmt::format("setting 'fanout'={} with xpus={} direction={}: more destinations than {} (allowed: "
                                       "1..{})", c.fanout, N, c.uni ? "uni" : "bi", c.uni ? "receivers" : "other XPUs",
                                       c.uni ? N / 2 : N - 1));
  if (c.pattern == Pattern::incast && c.fan_in > N - 1)
    throw core::UsageError(fmt::format("setting 'fan_in'={} needs {} XPUs besides the target but xpus={} (allowed: 0..{})",
                                       c.fan_in, c.fan_in, N, N - 1));
  const unsigned Ne = N + (N & 1u);
  if (c.topology == Topology::mesh && c.instances != Ne - 1)
    throw core::UsageError(fmt::format("setting 'instances'={} with topology=mesh: every XPU needs one instance per "
                                       "matching, a cable to each of the other {} XPUs (allowed: instances={} for xpus={})",
                                       c.instances, N - 1, Ne - 1, N));
  if (c.topology == Topology::planes && N > sw::kMaxRadix)
    throw core::UsageError(fmt::format("setting 'xpus'={} needs switches of {} ports but the switch model allows radix "
                                       "1..{} (allowed: xpus 2..{} with topology=planes)",
                                       N, N, sw::kMaxRadix, sw::kMaxRadix));
  if (c.port_gbps > 400 || (c.tp.data_w == 256 && c.tp.num_ports == 1 && c.port_gbps > 409))
    throw core::UsageError("setting 'port_gbps' above 409.6 Gb/s: one 256-bit beat per 1.6 GHz cycle (allowed: 100|200|400)");

  // NumXpus: no peer tables, every instance addresses every XPU by its id (docs/system.md "Addressing"). The
  // C++ models (twins and sue::Nic) take NumXpus = xpus; RTL blocks have the compiled variant's, which must
  // cover the XPU ids 0..xpus-1 (every block then follows it, the twins in lockstep too).
  c.flit = s.s("nic") == "flit";
  if (c.any_rtl()) {
    if (N > c.tp.num_xpus)
      throw core::UsageError(fmt::format("setting 'xpus'={} with RTL blocks: the compiled sue_config={} addresses NumXpus={} "
                                         "XPU ids (allowed: xpus 2..{} with rtl=xN.tx|xN.rx, or rtl without them)",
                                         N, c.variant, c.tp.num_xpus, c.tp.num_xpus));
  } else {
    c.tp.num_xpus = N;
  }
  c.rp.num_xpus = c.tp.num_xpus;
  for (const char* key : {"qdepth", "window"}) {
    const unsigned v = static_cast<unsigned>(s.i(key));
    if (!v) continue;
    const unsigned compiled = key[0] == 'q' ? c.tp.qdepth : c.tp.window;
    if (c.any_rtl() && v != compiled)
      throw core::UsageError(fmt::format("setting '{}'={} with RTL blocks: the compiled sue_config={} has {} (allowed: 0 or {})",
                                         key, v, c.variant, compiled, compiled));
    if (v & (v - 1))
      throw core::UsageError(fmt::format("setting '{}'={} is not a power of 2 (allowed: 1, 2, 4, ..., 256{})", key, v,
                                         key[0] == 'q' ? ", at least 2" : ""));
    (key[0] == 'q' ? c.tp.qdepth : c.tp.window) = v;
    (key[0] == 'q' ? c.rp.qdepth : c.rp.window) = v;
  }
  if (const unsigned v = static_cast<unsigned>(s.i("qcap")); v) {
    if (c.any_rtl() && v != c.tp.q_cap())
      throw core::UsageError(fmt::format("setting 'qcap'={} with RTL blocks: the compiled sue_config={} has {} (allowed: 0 or {})",
                                         v, c.variant, c.tp.q_cap(), c.tp.q_cap()));
    if ((v & (v - 1)) || v < c.tp.qdepth)
      throw core::UsageError(fmt::format("setting 'qcap'={} (allowed: 0 or a power of 2, {}..1024: at least qdepth)", v,
                                         c.tp.qdepth));
    c.tp.qcap = v;
  }
  if (const unsigned v = static_cast<unsigned>(s.i("data_w")); v) {
    if (c.any_rtl() && v != c.tp.data_w)
      throw core::UsageError(fmt::format("setting 'data_w'={} with RTL blocks: the compiled sue_config={} has {} (allowed: 0 or {})",
                                         v, c.variant, c.tp.data_w, c.tp.data_w));
    if (v != 128 && v != 256 && v != 512 && v != 1024)
      throw core::UsageError(fmt::format("setting 'data_w'={} (allowed: 0, 128, 256, 512, 1024)", v));
    c.tp.data_w = c.rp.data_w = v;
  }
  if (std::string e = c.tp.validate(); !e.empty()) throw core::UsageError("sue_config: " + e);

  // Switch per plane.
  sw::Params& w = c.swp;
  w.radix = N;
  w.port_gbps = c.port_gbps;
  w.lane_gbps = c.port_gbps == 100 ? 100 : 200;
  w.core_mhz = s.r("core_mhz");
  w.mtu_bytes = std::max<unsigned>(1088, c.tp.max_pack + 40);
  w.num_classes = kClasses;
  w.cbfc_buf_cells = static_cast<uint32_t>(s.i("switch_credits"));
  w.cbfc_downstream_cells = c.nic_buf_cells;
  const uint64_t need_cells = static_cast<uint64_t>(N) * kClasses * w.cbfc_buf_cells + static_cast<uint64_t>(N) * w.cells(w.mtu_bytes);
  const uint64_t mib = static_cast<uint64_t>(s.i("switch_buffer_mib"));
  w.buffer_bytes = mib ? mib << 20 : std::max<uint64_t>(64ull << 20, ((need_cells * w.flit_bytes >> 20) + 1) << 20);
  w.seed = seed;
  w.max_xpus = std::max<uint32_t>(w.max_xpus, N);
  if (c.topology == Topology::planes)
    if (std::string e = w.validate(); !e.empty()) throw core::UsageError("switch: " + e);
  if (c.llr && (1u << c.llr_params.len_width) - 1u < w.mtu_bytes)
    throw core::UsageError(fmt::format("setting 'llr'=true: the LLR's LenWidth={} cannot carry the {}-byte frames of "
                                       "sue_config={} (allowed: llr=false)", c.llr_params.len_width, w.mtu_bytes, c.variant));
  const uint32_t frame_cells = (w.mtu_bytes + 127) / 128;
  if (c.topology == Topology::mesh && c.nic_buf_cells < frame_cells)
    throw core::UsageError(fmt::format("setting 'nic_buf_cells'={} is below one largest frame (allowed: {}..32767)",
                                       c.nic_buf_cells, frame_cells));
  if (c.topology == Topology::planes && c.nic_buf_cells < frame_cells)
    throw core::UsageError(fmt::format("setting 'nic_buf_cells'={} is below one largest frame (allowed: {}..32767)",
                                       c.nic_buf_cells, frame_cells));
  // Failures (docs/system.md "Plane failure"): what both kinds need, then each its own.
  auto failure = [&](const char* key, const std::string& v) {
    if (c.flit)
      throw core::UsageError(fmt::format("setting '{}'={} with nic=flit: the flit NIC model has no failover (allowed: none "
                                         "with nic=flit, or nic=cycle)", key, v));
    if (c.tp.lite())
      throw core::UsageError(fmt::format("setting '{}'={}: SUE Lite has no failover (allowed: none with sue_config=lite)",
                                         key, v));
    if (c.tp.num_ports < 2)
      throw core::UsageError(fmt::format("setting '{}'={} needs a second port in the instance to fail over to, sue_config={} "
                                         "has one (allowed: none, or sue_config=s2|s4)", key, v, c.variant));
    const uint64_t cyc = std::stoull(v.substr(v.find('@') + 1));
    if (cyc < c.reset_cycles)
      throw core::UsageError(fmt::format("setting '{}'={}: the cycle is inside reset (allowed: cycle >= {})", key, v,
                                         c.reset_cycles));
    c.fail_cycle = cyc;
  };
  if (const std::string fp = s.s("fail_plane"); fp != "none") {
    if (c.topology != Topology::planes)
      throw core::UsageError(fmt::format("setting 'fail_plane'={} with topology=mesh: there are no planes (allowed: none, or "
                                         "topology=planes; a mesh cable: fail_link)", fp));
    const unsigned long pl = std::stoul(fp.substr(0, fp.find('@')));
    if (pl >= c.planes())
      throw core::UsageError(fmt::format("setting 'fail_plane'={} names plane {} but there are {} planes (allowed: 0..{})",
                                         fp, pl, c.planes(), c.planes() - 1));
    failure("fail_plane", fp);
    c.fail_plane = static_cast<int>(pl);
  }
  if (const std::string fl = s.s("fail_link"); fl != "none") {
    if (c.topology != Topology::mesh)
      throw core::UsageError(fmt::format("setting 'fail_link'={} with topology=planes: one NIC-switch link failing leaves "
                                         "the far ends of that plane up, and SUE here fails over only ports that are dead "
                                         "at both ends (docs/system.md \"Plane failure\"; allowed: none, fail_plane, or "
                                         "topology=mesh)", fl));
    std::smatch mm;
    const std::regex form("x([0-9]+)\\.i([0-9]+)\\.p([0-9]+)@.*");
    std::regex_match(fl, mm, form);
    const unsigned long x = std::stoul(mm[1].str()), m = std::stoul(mm[2].str()), p = std::stoul(mm[3].str());
    if (x >= N || m >= c.instances || p >= c.tp.num_ports)
      throw core::UsageError(fmt::format("setting 'fail_link'={} names XPU {} instance {} port {} (allowed: x0..x{}, "
                                         "i0..i{}, p0..p{})", fl, x, m, p, N - 1, c.instances - 1, c.tp.num_ports - 1));
    failure("fail_link", fl);
    c.fail_xpu = static_cast<int>(x);
    c.fail_inst = static_cast<unsigned>(m);
    c.fail_port = static_cast<unsigned>(p);
  }
  if (c.flit)
    if (std::string e = c.flit_refusal(); !e.empty()) throw core::UsageError(e);
  if (c.fail_xpu >= 0 && mesh_partner(Ne, static_cast<unsigned>(c.fail_xpu), c.fail_inst) >= N)
    throw core::UsageError(fmt::format("setting 'fail_link'={}: instance {} of XPU {} has no partner (odd xpus), so no "
                                       "cable (allowed: another instance of XPU {})", s.s("fail_link"), c.fail_inst,
                                       c.fail_xpu, c.fail_xpu));
  return c;
}

namespace {

struct Built {
  VerilatedContext* ctx = nullptr;
  std::unique_ptr<Waves> waves;
  std::unique_ptr<System> sys;
  std::unique_ptr<FlitSystem> flit;  // nic=flit (then sys is empty)
  std::vector<std::string> desc;  // per XPU with RTL
  std::vector<std::string> llr_desc;  // per RTL LLR partner
};

Built build(const SysConfig& c, const std::string& waves_path) {
  Built b;
  if (c.flit) {
    if (!waves_path.empty())
      throw core::UsageError("option --waves with nic=flit: the flit NIC model has no signals to dump (allowed: nic=cycle)");
    b.flit = std::make_unique<FlitSystem>(c);
    return b;
  }
  const unsigned N = c.xpus, M = c.instances;
  std::vector<std::unique_ptr<TxBlock>> tx(static_cast<size_t>(N) * M);
  std::vector<std::unique_ptr<RxBlock>> rx(static_cast<size_t>(N) * M);
  Waves* w = nullptr;
  LlrEngines llr;
  if (c.any_rtl() || c.any_llr_rtl()) {
    b.ctx = shared_context();
    b.ctx->assertOn(true);
    if (!waves_path.empty()) {
      b.waves = std::make_unique<Waves>();
      w = b.waves.get();
    }
  }
  if (c.any_llr_rtl()) {
    // LLR partners as RTL: the compiled variant behind sw::LlrEngine (tb::llr_tb::LinkEngine).
    const llr_tb::RtlVariant& v = *llr_tb::find_variant(c.llr_variant);
    llr.resize(llr_engine_index(c.planes(), N, 0, sw::LlrLink::A));
    for (unsigned pl = 0; pl < c.planes(); ++pl)
      for (unsigned a = 0; a < N; ++a)
        for (sw::LlrLink::Side side : {sw::LlrLink::A, sw::LlrLink::B}) {
          const Kind k = c.llr_kind(pl, a, side);
          if (k == Kind::model) continue;
          const unsigned m = pl / c.ports(), p = pl % c.ports();
          const std::string name = side == sw::LlrLink::A ? fmt::format("x{}i{}p{}.llr", a, m, p) : fmt::format("sw{}.p{}.llr", pl, a);
          std::string scope = name;
          for (char& ch : scope)
            if (ch == '.') ch = '_';
          auto r = llr_tb::make_rtl(v, b.ctx, scope, w);
          std::unique_ptr<llr_tb::LlrBlock> blk;
          if (k == Kind::lockstep)
            blk = llr_tb::make_lockstep(std::move(r), c.llr_params, scope);
          else
            blk = std::move(r);
          llr[llr_engine_index(pl, N, a, side)] = std::make_unique<llr_tb::LinkEngine>(std::move(blk), name);
          b.llr_desc.push_back(fmt::format("LLR {} ({} of the link of XPU {} on plane {}): rtl {}{}", name,
                                           side == sw::LlrLink::A ? "NIC side" : "switch side", a, pl, v.name,
                                           k == Kind::lockstep ? " + lockstep model" : ""));
        }
  }
  if (c.any_rtl()) {
    const sue_tb::TxVariant& tv = *sue_tb::find_tx_variant(c.variant);
    const sue_tb::RxVariant& rv = *sue_tb::find_rx_variant(c.variant);
    for (unsigned a = 0; a < N; ++a)
      for (unsigned m = 0; m < M; ++m) {
        const size_t i = static_cast<size_t>(a) * M + m;
        const std::string base = fmt::format("x{}i{}", a, m);
        if (c.tx_kind[a] != Kind::model) {
          auto r = sue_tb::make_tx_rtl(tv, b.ctx, base + "_tx", w);
          tx[i] = c.tx_kind[a] == Kind::lockstep ? sue_tb::make_tx_lockstep(std::move(r), c.tp, base + "_tx") : std::move(r);
        }
        if (c.rx_kind[a] != Kind::model) {
          auto r = sue_tb::make_rx_rtl(rv, b.ctx, base + "_rx", w);
          rx[i] = c.rx_kind[a] == Kind::lockstep ? sue_tb::make_rx_lockstep(std::move(r), c.rp, base + "_rx") : std::move(r);
        }
      }
    auto kind = [&](Kind k) { return k == Kind::model ? std::string("model") : k == Kind::rtl ? "rtl " + c.variant : "rtl " + c.variant + " + lockstep model"; };
    for (unsigned a = 0; a < N; ++a)
      if (c.tx_kind[a] != Kind::model || c.rx_kind[a] != Kind::model)
        b.desc.push_back(fmt::format("XPU {}: sue_tx {}, sue_rx {}", a, kind(c.tx_kind[a]), kind(c.rx_kind[a])));
  }
  if (w)
    if (std::string err = w->open(waves_path); !err.empty()) throw core::UsageError(err);
  b.sys = std::make_unique<System>(c, std::move(tx), std::move(rx), std::move(llr));
  if (w) b.sys->set_waves(w);
  return b;
}

/// The run: warm-up + traffic cycles (allreduce: until done, at most that), then the drain.
void run_loop(Built& b, uint64_t traffic, uint64_t drain) {
  if (b.flit) {  // events only; checked every 1,000 cycles for the stop and the drain, as often as that matters
    FlitSystem& fs = *b.flit;
    const uint64_t stop_at = fs.config().warmup_cycles + traffic;
    while (fs.cycles() < stop_at && !fs.figures().ar_done_cycle) fs.run_to(std::min(stop_at, fs.cycles() + 1000));
    fs.stop_traffic();
    const uint64_t stopped = fs.cycles();
    while (!fs.idle() && fs.cycles() < stopped + drain) fs.run_to(std::min(stopped + drain, fs.cycles() + 1000));
    return;
  }
  System& sys = *b.sys;
  const uint64_t stop_at = sys.config().warmup_cycles + traffic;
  uint64_t stopped = 0;
  for (;;) {
    sys.cycle();
    if (sys.mismatched() || (b.ctx && b.ctx->gotError())) break;
    const uint64_t n = sys.cycles();
    if (sys.traffic()) {
      if (n >= stop_at || sys.figures().ar_done_cycle) {
        sys.stop_traffic();
        stopped = n;
      }
    } else if (sys.idle() || n >= stopped + drain) {
      break;
    }
  }
  if (b.waves) b.waves->close();
}

std::string ns3(double v) { return fmt::format("{:.1f}", v); }

struct Tput {
  std::vector<double> tx, rx;  // Gb/s per XPU in the window
  double jain = 1, offered = 0;
  std::vector<double> plane_gbps;
  double plane_imbalance = 1;
  // Goodput in XPU command bytes (control + data, op headers out) against the wire limit of an XPU's ports at
  // the window's mean command size (sue/goodput.hpp): per XPU sent (delivered) and received, and the limit.
  std::vector<double> good_tx, good_rx;
  double mean_dlen = 0;
  sue::Goodput limit;
  // Structural bounds below the wire limit (docs/system.md "Summary"), Gb/s of goodput per XPU (0: none):
  // the XPU bus (one beat of DB bytes per cycle, a command of d data bytes taking max(1, ceil(d/DB)) beats,
  // at the window's delivered commands) and strict pinning (the port with the most flows caps a sender
  // whose requests spread evenly over its destinations).
  double bus_gbps = 0;
  double pin_fraction = 1;
};

sue::WireFormat wire_format(const SysConfig& c) {
  return {c.tp.lite(), c.tp.lite() ? 6u : 14u, c.tp.max_pack};
}

/// Strict mode, one instance per XPU: an XPU's request flows {destination, VC 0} are pinned to port
/// sue::pin_base(own, destination, 0, P) (all ports live). The generator spreads an XPU's requests evenly over its
/// destinations and waits when the chosen one's queue is full, so the port holding the most flows caps the
/// XPU at k / (P x max flows per port) of its ports (k destinations); the same on the receiving side. The
/// fraction: the smaller of the senders' and the receivers' means (1 in unordered mode or without spread).
double pin_fraction(const SysConfig& c) {
  const unsigned P = c.ports(), N = c.xpus;
  if (!c.strict || P < 2 || c.instances != 1 || c.tp.lite() ||
      (c.pattern != Pattern::uniform && c.pattern != Pattern::fanout && c.pattern != Pattern::alltoall))
    return 1.0;
  const unsigned H = N / 2;
  std::vector<std::vector<unsigned>> to(N), from(N);
  for (unsigned a = 0; a < N; ++a) {
    if (c.uni && a >= H) continue;
    std::vector<unsigned> d;
    if (c.pattern == Pattern::fanout) {
      for (unsigned j = 0; j < c.fanout; ++j) d.push_back(fanout_destination(c, a, j));
    } else {
      for (unsigned b = c.uni ? H : 0; b < N; ++b)  // every other XPU (uni: every receiver)
        if (b != a) d.push_back(b);
    }
    for (unsigned b : d) to[a].push_back(b), from[b].push_back(a);
  }
  auto side = [&](const std::vector<std::vector<unsigned>>& fl) {
    double sum = 0;
    unsigned n = 0;
    for (unsigned a = 0; a < N; ++a) {
      if (fl[a].empty()) continue;
      std::vector<unsigned> per(P, 0);
      for (unsigned b : fl[a]) ++per[sue::pin_base(a, b, 0, P)];
      const unsigned mx = *std::max_element(per.begin(), per.end());
      sum += static_cast<double>(fl[a].size()) / (static_cast<double>(P) * mx);
      ++n;
    }
    return n ? std::min(1.0, sum / n) : 1.0;
  };
  return std::min(side(to), side(from));
}

template <class S>
Tput throughput(const S& sys) {
  const auto& c = sys.config();
  const auto& f = sys.figures();
  Tput t;
  const uint64_t end = f.win_end ? f.win_end : sys.cycles();
  const double ns = core::to_ns(static_cast<core::Ps>(end > f.win_start ? end - f.win_start : 1) * c.clock_ps);
  // Jain over the XPUs that send requests (incast: the fan-in senders, not the target's responses).
  std::vector<double> senders;
  const unsigned fan = c.fan_in ? c.fan_in : c.xpus - 1;
  for (unsigned a = 0; a < sys.xpu_stats().size(); ++a) {
    const auto& x = sys.xpu_stats()[a];
    t.tx.push_back(static_cast<double>(x.win_tx_bytes) * 8.0 / ns);
    t.rx.push_back(static_cast<double>(x.win_rx_bytes) * 8.0 / ns);
    const bool sender = c.pattern == Pattern::incast ? (a >= 1 && a <= fan) : x.req_issued > 0;
    if (sender) senders.push_back(t.tx.back());
  }
  t.jain = senders.empty() ? 1.0 : core::jain_fairness(senders);
  t.offered = c.load * c.instances * c.ports() * c.port_gbps;
  uint64_t cmds = 0, bytes = 0, beats = 0;
  for (const auto& x : sys.xpu_stats()) {
    beats += x.win_rx_beats;
    t.good_tx.push_back(static_cast<double>(x.win_tx_bytes - sue::kOpHeaderBytes * x.win_tx_cmds) * 8.0 / ns);
    t.good_rx.push_back(static_cast<double>(x.win_rx_bytes - sue::kOpHeaderBytes * x.win_rx_cmds) * 8.0 / ns);
    cmds += x.win_rx_cmds;
    bytes += x.win_rx_bytes;
  }
  const double per_cmd = sue::kOpHeaderBytes + sue::kControlBytes;
  t.mean_dlen = cmds ? std::max(0.0, static_cast<double>(bytes) / static_cast<double>(cmds) - per_cmd) : 0.0;
  t.limit = sue::wire_limited(wire_format(c), static_cast<double>(c.instances) * c.ports() * c.port_gbps,
                              std::min(t.mean_dlen, c.tp.max_pack - per_cmd));
  if (beats)  // goodput bytes (control + data) per beat x beats per second x instances
    t.bus_gbps = static_cast<double>(bytes - sue::kOpHeaderBytes * cmds) / static_cast<double>(beats) * 8.0 * 1000.0 /
                 static_cast<double>(c.clock_ps) * c.instances;
  t.pin_fraction = pin_fraction(c);
  double sum = 0, mx = 0;
  for (uint64_t bytes : f.plane_bytes_win) {
    t.plane_gbps.push_back(static_cast<double>(bytes) * 8.0 / ns);
    sum += t.plane_gbps.back();
    mx = std::max(mx, t.plane_gbps.back());
  }
  if (!t.plane_gbps.empty() && sum > 0) t.plane_imbalance = mx / (sum / static_cast<double>(t.plane_gbps.size()));
  return t;
}

/// The goodput lines under the throughput table: the wire limit of an XPU's ports at the window's mean
/// command size, and what the busiest senders and receivers carried of it.
template <class Mean>
std::string goodput_lines(const SysConfig& c, const Tput& tp, Mean mean) {
  auto top = [](std::vector<double> v) {  // mean of the XPUs that carried anything (one-way patterns: half of them)
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return x <= 0; }), v.end());
    return v;
  };
  const auto tx = top(tp.good_tx), rx = top(tp.good_rx);
  const double lim = tp.limit.gbps;
  std::string out = fmt::format("  goodput (XPU command bytes: control + data) against the wire limit of {} x {} x {} Gb/s "
                                "packed full at the mean command size: {}\n",
                                c.instances, c.ports(), c.port_gbps, tp.limit.formula());
  out += fmt::format("    sent per sending XPU: mean {:.1f} Gb/s ({:.1f} % of {:.1f}), min {:.1f}; received per receiving "
                     "XPU: mean {:.1f} Gb/s ({:.1f} %), max {:.1f}\n",
                     mean(tx), lim > 0 ? 100 * mean(tx) / lim : 0.0, lim, tx.empty() ? 0.0 : *std::min_element(tx.begin(), tx.end()),
                     mean(rx), lim > 0 ? 100 * mean(rx) / lim : 0.0, rx.empty() ? 0.0 : *std::max_element(rx.begin(), rx.end()));
  return out;
}

/// Settings that bound an XPU's send rate below the wire limit (docs/system.md "Summary"): one line each, naming
/// the setting, the bound and the rate it allows. The round trip is estimated from the configured path (NIC
/// PHYs, cables, the switch's 250 ns, both ways) plus the ACK's wait: ack_delay, or with ack_count the time a
/// saturated connection takes to bring that many full PDUs (MaxPack + 50 wire bytes each at one port's rate).
std::string bound_lines(const SysConfig& c, const Tput& tp, unsigned dests) {
  const double one_way = c.nic_tx_ns + c.cable_ns + (c.topology == Topology::planes ? 250.0 + c.cable_ns : 0.0) + c.nic_rx_ns;
  double ack_wait_ns = c.ack_delay * 0.625;
  if (c.ack_count)
    ack_wait_ns = std::min(ack_wait_ns, c.ack_count * (c.tp.max_pack + 50.0) * 8 / c.port_gbps);
  const double rtt_ns = 2 * one_way + ack_wait_ns + 10 * 0.625;
  const double cmd = sue::kOpHeaderBytes + sue::kControlBytes + tp.mean_dlen;
  const double lim = tp.limit.gbps;
  std::string out;
  if (tp.bus_gbps > 0 && tp.bus_gbps < lim)
    out += fmt::format("  bound: the XPU bus (DataW={}, one beat of {} B per cycle at {:.0f} MHz; a command of d data bytes takes "
                       "max(1, ceil(d/{})) beats) carries the window's commands at {:.1f} Gb/s x {} instance(s): {:.1f} % of the "
                       "{:.1f} Gb/s wire limit\n",
                       c.tp.data_w, c.tp.db(), 1e6 / static_cast<double>(c.clock_ps), c.tp.db(), tp.bus_gbps / c.instances,
                       c.instances, 100 * tp.bus_gbps / lim, lim);
  if (tp.pin_fraction < 1)
    out += fmt::format("  bound: strict mode pins each flow {{destination, VC}} to port (own + destination XPU id + VC) mod {}; the port with the most "
                       "of an XPU's flows allows {:.1f} % of its ports ({:.1f} of the {:.1f} Gb/s wire limit; mode=unordered spreads "
                       "every PDU)\n",
                       c.ports(), 100 * tp.pin_fraction, tp.pin_fraction * lim, lim);
  if (c.tp.lite() || dests == 0) return out;
  // Sent, unacknowledged commands held by all queues of an instance together: Pool - NQ*QDepth (the shared pool).
  const double held = static_cast<double>(c.tp.held_max());
  const double per_x = held * cmd * 8 / rtt_ns * c.instances;  // one pool per SUE instance
  if (per_x < lim)
    out += fmt::format("  bound: setting 'qdepth'={} with NumXpus={} gives a pool of {} slots holding {} sent commands for all "
                       "queues of an instance (Pool - NQ*QDepth): {:.0f} x {:.0f} B per {:.0f} ns round trip x {} instance(s) allow "
                       "{:.1f} of the {:.1f} Gb/s wire limit\n",
                       c.tp.qdepth, c.tp.num_xpus, c.tp.pool_slots(), held, held, cmd, rtt_ns, c.instances, per_x, lim);
  // PDUs per connection: Window, each at most MaxPack bytes; strict mode keeps a queue on one connection.
  const double per_c = static_cast<double>(c.tp.window) * c.tp.max_pack * 8 / rtt_ns;
  const double conns = static_cast<double>(dests) * (c.strict ? 1 : c.tp.num_ports);
  if (per_c * conns < lim)
    out += fmt::format("  bound: setting 'window'={} keeps {} PDUs of at most {} B per connection: {:.1f} Gb/s per connection "
                       "per {:.0f} ns round trip; {:.0f} connection(s) per XPU allow {:.1f} of the {:.1f} Gb/s wire limit\n",
                       c.tp.window, c.tp.window, c.tp.max_pack, per_c, rtt_ns, conns, per_c * conns, lim);
  // Bytes per connection: window_bytes, and the PDU started below it (at most MaxPack more); named only
  // where it holds a connection below its port's rate (a strict flow never exceeds one port anyway).
  if (c.win_bytes) {
    // A window that holds fewer than ack_count full PDUs never brings the count trigger: its ACKs wait
    // the whole ack_delay.
    const double inb = c.win_bytes + static_cast<double>(c.tp.max_pack);
    const double rtt_b = c.ack_count && inb < static_cast<double>(c.ack_count) * c.tp.max_pack
                             ? 2 * one_way + c.ack_delay * 0.625 + 10 * 0.625
                             : rtt_ns;
    const double per_b = inb * 8 / rtt_b;
    if (per_b * conns < lim && per_b < c.port_gbps)
      out += fmt::format("  bound: setting 'window_bytes'={} keeps fewer than {} + {} (MaxPack) bytes in flight per "
                         "connection: {:.1f} Gb/s per connection per {:.0f} ns round trip; {:.0f} connection(s) per XPU "
                         "allow {:.1f} of the {:.1f} Gb/s wire limit\n",
                         c.win_bytes, c.win_bytes, c.tp.max_pack, per_b, rtt_b, conns, per_b * conns, lim);
  }
  return out;
}

/// Destination queues an XPU's requests use under the pattern (the busiest XPU).
unsigned destinations(const SysConfig& c) {
  switch (c.pattern) {
    case Pattern::uniform: return c.uni ? c.xpus / 2 : c.xpus - 1;
    case Pattern::fanout: return c.fanout;
    case Pattern::alltoall: return c.xpus - 1;
    default: return 1;
  }
}

nlohmann::json goodput_json(const Tput& tp) {
  return {{"wire_limited_gbps", tp.limit.gbps}, {"efficiency_wire", tp.limit.efficiency}, {"mean_dlen", tp.mean_dlen},
          {"cmds_per_pdu", tp.limit.cmds_per_pdu}, {"wire_bytes_per_frame", tp.limit.wire_bytes},
          {"xpu_bus_gbps", tp.bus_gbps}, {"strict_pin_fraction", tp.pin_fraction},
          {"sent", tp.good_tx}, {"received", tp.good_rx}};
}

nlohmann::json lat_json(const core::Samples& s) {
  return {{"count", s.count()}, {"min", s.min()}, {"p50", s.percentile(50)}, {"p99", s.percentile(99)}, {"p999", s.percentile(99.9)},
          {"max", s.max()}};
}

std::string pattern_name(Pattern p) { return kPatterns[static_cast<size_t>(p)]; }

struct SwTel {
  double q_p95_kib = 0, q_max_kib = 0;
  double credit_stall_us = 0, credit_stall_max_us = 0;  // switch egress held by NIC credits: sum, worst port-class
  uint64_t ecn = 0, pkts = 0, drops_lossless = 0, credit_updates = 0;
};
SwTel telemetry(const sw::Switch& s) {
  SwTel t;
  const auto sum = s.summary();
  t.q_p95_kib = sum.q_bytes_p95_max / 1024.0;
  t.q_max_kib = static_cast<double>(sum.q_bytes_max) / 1024.0;
  t.ecn = sum.ecn_marks;
  t.pkts = sum.tx_pkts;
  t.drops_lossless = sum.drops_lossless;
  for (unsigned e = 0; e < s.params().radix; ++e)
    for (unsigned c = 0; c < s.params().num_classes; ++c) {
      const double us = core::to_ns(s.stats(e, c).credit_stall) / 1000.0;
      t.credit_stall_us += us;
      t.credit_stall_max_us = std::max(t.credit_stall_max_us, us);
      t.credit_updates += s.stats(e, c).credit_updates;
    }
  return t;
}

template <class S>
RunResult report(const RunConfig& cfg, const SysConfig& c, Built& b, S& sys, uint64_t traffic, uint64_t drain, double wall);

RunResult run_system(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  const SysConfig c = config_from_settings(s, cfg.seed);
  const uint64_t traffic = cfg.cycles ? cfg.cycles : kCycles;
  const uint64_t drain = static_cast<uint64_t>(s.i("drain_cycles"));
  using clk = std::chrono::steady_clock;
  const auto w0 = clk::now();
  Built b = build(c, cfg.waves_path);
  run_loop(b, traffic, drain);
  const double wall = std::chrono::duration<double>(clk::now() - w0).count();
  if (b.flit) return report(cfg, c, b, *b.flit, traffic, drain, wall);
  return report(cfg, c, b, *b.sys, traffic, drain, wall);
}

/// The summary and JSON of a run of either engine (System: cycle-exact NICs; FlitSystem: sue::Nic).
template <class S>
RunResult report(const RunConfig& cfg, const SysConfig& c, Built& b, S& sys, uint64_t traffic, uint64_t drain, double wall) {
  const bool drained = sys.idle();
  sys.finish();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  nlohmann::json& j = r.json;
  const auto& f = sys.figures();
  const auto& sb = sys.scoreboard().counts();
  const unsigned N = c.xpus, M = c.instances, P = c.ports();
  const bool lite = c.tp.lite();
  using T = sue::TxCnt;
  using R = sue::RxCnt;

  // ---- header
  std::string out;
  out += fmt::format("  {} XPUs x {} SUE instance(s) x {} port(s) of {} Gb/s ({} Gb/s per XPU); sue_config={} ({}, DataW {}, "
                     "MaxPack {}, QDepth {}, QCap {}, Window {}, NumXpus {}); {} mode\n",
                     N, M, P, c.port_gbps, M * P * c.port_gbps, c.variant, lite ? "SUE Lite" : "SUE", c.tp.data_w,
                     c.tp.max_pack, c.tp.qdepth, c.tp.q_cap(), c.tp.window, c.tp.num_xpus, c.strict ? "strict" : "unordered");
  if (c.topology == Topology::planes)
    out += fmt::format("  topology planes (figure 1): {} planes, one {}-port switch each (sw::Switch, {} MHz core, 128-B "
                       "flits, cut-through, 250 ns pin to pin, CBFC: {} credits per NIC per class, NIC buffers {} cells), "
                       "lookup by AFH destination XPU\n",
                       c.planes(), N, c.swp.core_mhz, c.swp.cbfc_buf_cells, c.nic_buf_cells);
  else
    out += fmt::format("  topology mesh (figure 2): instance m of each XPU cabled to its partner in matching m, {} port(s) in "
                       "parallel; CBFC NIC to NIC, {} cells per class\n", P, c.nic_buf_cells);
  out += fmt::format("  addressing: no peer tables, every instance addresses XPU ids 0..{} directly (queue {{XPU, VC}} = "
                     "XPU x 4 + VC){}\n", c.tp.num_xpus - 1,
                     c.topology == Topology::mesh ? "; instance m carries the traffic to its cable partner of matching m"
                     : M == 1                     ? ""
                     : c.strict ? fmt::format("; a flow {{src, dst, VC}} on instance (src + dst + VC) mod {}", M)
                                : fmt::format("; commands sprayed round robin over the {} instances", M));
  if (c.flit)
    out += "  blocks: every NIC the flit model sue::Nic (frame granularity, event-driven; docs/system.md \"The flit NIC "
           "model\"); no frame bytes, so no frame checks\n";
  else if (b.desc.empty())
    out += "  blocks: every sue_tx and sue_rx a C++ model\n";
  else
    for (auto& d : b.desc) out += "  blocks: " + d + " (every instance); the others C++ models\n";
  for (auto& d : b.llr_desc) out += "  blocks: " + d + "; the other LLR partners C++ models\n";
  out += fmt::format("  links: NIC TX {} ns + cable {} ns + NIC RX {} ns; SUE clock 1600 MHz (625 ps); {} traffic cycles ({}), "
                     "{} in all; wall {:.2f} s\n",
                     c.nic_tx_ns, c.cable_ns, c.nic_rx_ns, traffic, core::format_time(static_cast<core::Ps>(traffic) * 625),
                     r.cycles, wall);
  const bool faulty = c.faults.any();
  if (c.llr || faulty) {
    std::string fl;
    for (auto [k, v] : {std::pair{"fer", c.faults.fer}, {"ber", c.faults.ber}, {"drop_prob", c.faults.drop_prob},
                        {"ctl_drop_prob", c.faults.ctl_drop_prob}})
      if (v > 0) fl += fmt::format("{}{} {}", fl.empty() ? "" : ", ", k, v);
    for (const auto& bu : c.faults.bursts)
      fl += fmt::format("{}a burst of {} frames from frame {}", fl.empty() ? "" : ", ", bu.count, bu.first_frame);
    out += fmt::format("  link faults: {}; {}\n", fl.empty() ? "none" : fl + " on every wire, both directions",
                       c.llr ? fmt::format("LLR on every NIC <-> switch link (sw::LlrLink: a partner at the NIC port and one at "
                                           "the switch port, {} MHz switch clock; llr variant {}, frames_max {}, replay timer "
                                           "{} cycles, ACK every {} frames); SUE retransmits only what LLR loses",
                                           c.swp.core_mhz, c.llr_variant, c.llr_cfg.frames_max, c.llr_cfg.replay_timer,
                                           c.llr_cfg.ack_spacing)
                             : "no LLR: a corrupted frame is forwarded and dropped by the receiving NIC's MAC (bad FCS), a "
                               "dropped one never arrives; SUE recovers both (NACK, go-back-N, RTO)");
  }
  out += fmt::format("  traffic: pattern {}, load {} per XPU ({:.1f} Gb/s), sizes {}..{} B ({}), read ratio {}{}{}; VC 0 "
                     "requests, VC 1 responses\n\n",
                     pattern_name(c.pattern), c.load, c.load * M * P * c.port_gbps, c.dlen_min, c.dlen_max,
                     c.bimodal ? "bimodal" : "uniform", c.read_ratio,
                     c.pattern == Pattern::incast ? fmt::format(", fan-in {}", c.fan_in ? c.fan_in : N - 1) : "",
                     c.pattern == Pattern::allreduce ? fmt::format(", chunk {} B per step", c.chunk_bytes) : "");

  // ---- scoreboard and commands
  Table tsb(std::string("Scoreboard (exactly once, byte-exact, right XPU") + (c.strict ? ", in order per {src, dst, VC})" : ")"));
  tsb.header({"expected", "delivered", "lost", "duplicated", "corrupted", "reordered", "unexpected"});
  tsb.row({std::to_string(sb.expected), std::to_string(sb.matched), std::to_string(sb.lost), std::to_string(sb.duplicated),
           std::to_string(sb.corrupted), std::to_string(sb.reordered), std::to_string(sb.unexpected)});
  out += tsb.str();
  out += fmt::format("  reach: {} of the {} ordered XPU pairs delivered a command\n\n", sys.pairs_reached(),
                     static_cast<uint64_t>(N) * (N - 1));
  uint64_t writes = 0, reads = 0, resps = 0, gen_stall = 0, cstall = 0;
  for (auto& x : sys.xpu_stats()) {
    writes += x.writes;
    reads += x.reads;
    resps += x.resp_issued;
    gen_stall += x.gen_stall;
    cstall += x.credit_stall;
  }
  Table tlat("Latency per command, XPU TX interface -> far XPU RX interface (ns)");
  tlat.header({"VC", "commands", "P50", "P99", "P99.9", "max"});
  auto lrow = [&](const char* what, const core::Samples& x) {
    tlat.row({what, std::to_string(x.count()), ns3(x.percentile(50)), ns3(x.percentile(99)), ns3(x.percentile(99.9)),
              ns3(x.max())});
  };
  lrow("0 requests (writes, read requests)", f.lat_req_ns);
  lrow("1 responses (read responses)", f.lat_resp_ns);
  lrow("all", sys.scoreboard().latency_ns());
  out += tlat.str();
  out += fmt::format("  requests: {} writes, {} reads; {} responses; generator waits {} XPU-cycles, queue-credit waits {} "
                     "instance-cycles\n\n", writes, reads, resps, gen_stall, cstall);

  // ---- throughput and fairness
  const Tput tp = throughput(sys);
  const double win_us = core::to_ns(static_cast<core::Ps>((f.win_end ? f.win_end : sys.cycles()) - f.win_start) * 625) / 1000;
  Table tx(fmt::format("Throughput per XPU, Gb/s of command bytes (op header + control + data), window of {:.2f} us "
                       "(offered {:.1f})", win_us, tp.offered));
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  if (N <= 16) {
    tx.header({"XPU", "sent (delivered)", "received"});
    for (unsigned a = 0; a < N; ++a) tx.row({std::to_string(a), ns3(tp.tx[a]), ns3(tp.rx[a])});
  } else {
    tx.header({"", "min", "mean", "max"});
    auto mm = [&](const std::vector<double>& v) {
      return std::vector<std::string>{ns3(*std::min_element(v.begin(), v.end())), ns3(mean(v)),
                                      ns3(*std::max_element(v.begin(), v.end()))};
    };
    auto a = mm(tp.tx), bb = mm(tp.rx);
    tx.row({"sent (delivered)", a[0], a[1], a[2]});
    tx.row({"received", bb[0], bb[1], bb[2]});
  }
  out += tx.str();
  out += goodput_lines(c, tp, mean);
  out += bound_lines(c, tp, destinations(c));
  if (c.load >= 0.9 && c.warmup_cycles < kSteadyWarmup)
    out += fmt::format("  note: the window starts at cycle {}: at full load the NIC and switch queues fill over ~{} cycles, so "
                       "these figures include the ramp; --set warmup_cycles={} measures steady state (as cosim report "
                       "throughput does)\n",
                       c.warmup_cycles, kSteadyWarmup, kSteadyWarmup);
  out += fmt::format("  Jain fairness over the XPUs that send requests{}: {:.4f}\n", c.pattern == Pattern::incast ? " (the incast senders)" : "", tp.jain);
  if (!tp.plane_gbps.empty()) {
    std::string pl;
    for (size_t k = 0; k < tp.plane_gbps.size() && k < 16; ++k) pl += (k ? ", " : "") + ns3(tp.plane_gbps[k]);
    out += fmt::format("  planes: wire Gb/s into each plane (every frame with headers, pad, FCS, preamble and IFG; "
                       "capacity {} Gb/s) {}{}; imbalance (max/mean) {:.3f}\n",
                       N * c.port_gbps, pl, tp.plane_gbps.size() > 16 ? ", ..." : "", tp.plane_imbalance);
  }
  out += "\n";

  // ---- switch telemetry
  nlohmann::json jsw = nlohmann::json::array();
  if (!sys.switches().empty()) {
    Table ts("Switches (whole run): egress queue depth P95 (largest over queues) / max, egress credit stall (waiting for "
             "NIC credits: sum over port-classes / worst), ECN marks, lossless drops");
    ts.header({"plane", "packets", "queue P95 KiB", "queue max KiB", "credit stall us (sum / worst)", "ECN marks", "lossless drops"});
    for (size_t pl = 0; pl < sys.switches().size(); ++pl) {
      const SwTel t = telemetry(*sys.switches()[pl]);
      if (pl < 16)
        ts.row({std::to_string(pl), std::to_string(t.pkts), ns3(t.q_p95_kib), ns3(t.q_max_kib),
                fmt::format("{:.2f} / {:.2f}", t.credit_stall_us, t.credit_stall_max_us), std::to_string(t.ecn),
                std::to_string(t.drops_lossless)});
      jsw.push_back({{"plane", pl}, {"packets", t.pkts}, {"queue_p95_kib", t.q_p95_kib}, {"queue_max_kib", t.q_max_kib},
                     {"credit_stall_us", t.credit_stall_us}, {"credit_stall_max_us", t.credit_stall_max_us},
                     {"ecn_marks", t.ecn}, {"lossless_drops", t.drops_lossless}});
    }
    out += ts.str();
  }
  const double nic_stall_req = core::to_ns(f.nic_credit_stall[0]) / 1000, nic_stall_resp = core::to_ns(f.nic_credit_stall[1]) / 1000;
  out += fmt::format("  NIC CBFC senders held (gate closed) toward the {}: VC 0 {:.2f} us, VC 1 {:.2f} us summed over {} "
                     "ports\n",
                     c.topology == Topology::planes ? "switches" : "peers", nic_stall_req, nic_stall_resp, N * M * P);
  if (f.late_frames)
    out += fmt::format("  {} frames entered a switch after their head was due at its lookup stage (the NIC MAC knows a "
                       "frame's length at its last beat; frames longer than ~(85 ns + cable + NIC PHY) of wire time): up "
                       "to {:.1f} ns late\n", f.late_frames, core::to_ns(f.late_max));
  out += fmt::format("  network: {} frames ({} data, {} ACK-only{}), {} wire bytes, {} flit-hops (128-B flits leaving a {}); "
                     "drops: {} lossless, {} other\n\n",
                     f.frames, f.data_frames, f.ack_frames, c.check_frames && !c.flit ? "" : ", frame checks off", f.wire_bytes,
                     f.flit_hops, c.topology == Topology::planes ? "switch port" : "NIC port", f.lossless_drops,
                     f.other_drops);

  // ---- transport
  const uint64_t pdus = sys.tx_sum(T::pdus_new);
  out += fmt::format("Transport (sums over {} NICs): {} PDUs, {:.2f} commands per PDU, {} ACK-only, {} ACKs, {} NACKs, {} "
                     "go-back-N, {} RTOs, {} retransmitted PDUs; sue_rx: {} accepted, {} out-of-order and {} duplicate "
                     "drops\n",
                     N * M, pdus, pdus ? static_cast<double>(sys.tx_sum(T::cmds_sent)) / static_cast<double>(pdus) : 0.0,
                     sys.tx_sum(T::ack_only), sys.tx_sum(T::ack_sent), sys.tx_sum(T::nack_sent), sys.tx_sum(T::gbn),
                     sys.tx_sum(T::rto), sys.tx_sum(T::pdus_rtx), sys.rx_sum(lite ? R::lite_ok : R::pdus_ok),
                     sys.rx_sum(R::drop_psn), sys.rx_sum(R::drop_dup));
  if (c.failing()) {
    std::string what;
    nlohmann::json jf;
    if (c.fail_plane >= 0) {
      const unsigned fpl = static_cast<unsigned>(c.fail_plane);
      what = fmt::format("Plane failure: the switch of plane {} (port {} of instance {} of every XPU) and its links", fpl,
                         fpl % P, fpl / P);
      jf["plane"] = fpl;
    } else {
      const unsigned b = mesh_partner(N + (N & 1u), static_cast<unsigned>(c.fail_xpu), c.fail_inst);
      what = fmt::format("Link failure: the cable of port {} between instance {} of XPU {} and of XPU {}", c.fail_port,
                         c.fail_inst, c.fail_xpu, b);
      jf["xpu"] = c.fail_xpu;
      jf["instance"] = c.fail_inst;
      jf["port"] = c.fail_port;
      jf["partner"] = b;
    }
    if (f.failed)
      out += fmt::format("{} failed at cycle {} ({}): {} frames lost with it; SUE failover: {} FO-REQ sent, {} FO-ACK sent, "
                         "{} FO-ACK received, {} failover frames received, {} PDUs migrated to the live ports; {} frames "
                         "sue_rx dropped on the dead ports\n",
                         what, c.fail_cycle, core::format_time(static_cast<core::Ps>(c.fail_cycle) * c.clock_ps),
                         f.failure_lost, sys.tx_sum(T::fo_req_sent), sys.tx_sum(T::fo_ack_sent), sys.tx_sum(T::fo_ack_rcvd),
                         sys.rx_sum(R::fo_frames), sys.tx_sum(T::pdus_mig), sys.rx_sum(R::drop_dead));
    else
      out += fmt::format("{}: did NOT fail: the run ended at cycle {}, before cycle {}\n", what, r.cycles, c.fail_cycle);
    jf["happened"] = f.failed;
    jf["cycle"] = c.fail_cycle;
    jf["frames_lost"] = f.failure_lost;
    jf["fo_req_sent"] = sys.tx_sum(T::fo_req_sent);
    jf["fo_ack_sent"] = sys.tx_sum(T::fo_ack_sent);
    jf["fo_ack_rcvd"] = sys.tx_sum(T::fo_ack_rcvd);
    jf["fo_frames_rcvd"] = sys.rx_sum(R::fo_frames);
    jf["pdus_migrated"] = sys.tx_sum(T::pdus_mig);
    jf["rx_drop_dead"] = sys.rx_sum(R::drop_dead);
    j[c.fail_plane >= 0 ? "fail_plane" : "fail_link"] = jf;
  }
  nlohmann::json jlinks;
  if (c.llr || faulty) {
    const LinkFigures lf = sys.link_figures();
    const uint64_t lost = c.llr ? lf.llr_lost : lf.corrupted + lf.dropped;
    out += fmt::format("Links: {} frames on the wires, {} corrupted (bad FCS), {} dropped; {} frames lost to SUE{}; SUE "
                       "recovery: {} sue_rx MAC (FCS) drops, {} NACKs, {} go-back-N, {} RTOs, {} retransmitted PDUs\n",
                       lf.wire_frames, lf.corrupted, lf.dropped, lost,
                       c.llr ? " (LLR flushes)" : " (every corrupted or dropped frame)", sys.rx_sum(R::drop_mac),
                       sys.tx_sum(T::nack_sent), sys.tx_sum(T::gbn), sys.tx_sum(T::rto), sys.tx_sum(T::pdus_rtx));
    jlinks = {{"llr", c.llr}, {"wire_frames", lf.wire_frames}, {"corrupted", lf.corrupted}, {"dropped", lf.dropped},
              {"frames_lost", lost}, {"sue_mac_drops", sys.rx_sum(R::drop_mac)}, {"sue_nacks", sys.tx_sum(T::nack_sent)},
              {"sue_gbn", sys.tx_sum(T::gbn)}, {"sue_rtos", sys.tx_sum(T::rto)}, {"sue_retransmitted_pdus", sys.tx_sum(T::pdus_rtx)}};
    if (c.llr) {
      Table tl(fmt::format("LLR on {} NIC <-> switch links (sums over the links; replay buffer: the largest)", lf.llr_links));
      tl.header({"direction", "frames", "frames replayed", "replays", "NACKs", "ACKs", "bad frames", "dropped", "flushes",
                 "lost", "replay buffer max (frames)"});
      nlohmann::json jd;
      for (auto [name, key, x] : {std::tuple{"NIC -> switch", "up", &lf.up}, {"switch -> NIC", "down", &lf.down}}) {
        tl.row({name, std::to_string(x->frames), std::to_string(x->frames_replayed), std::to_string(x->replays),
                std::to_string(x->nacks), std::to_string(x->acks), std::to_string(x->bad_frames),
                std::to_string(x->dropped_frames), std::to_string(x->flushes), std::to_string(x->lost_pkts),
                std::to_string(x->buf_frames_max)});
        jd[key] = {{"frames", x->frames}, {"frames_replayed", x->frames_replayed}, {"replays", x->replays}, {"nacks", x->nacks},
                   {"acks", x->acks}, {"bad_frames", x->bad_frames}, {"dropped_frames", x->dropped_frames},
                   {"flushes", x->flushes}, {"lost", x->lost_pkts}, {"buf_frames_max", x->buf_frames_max}};
      }
      out += tl.str();
      jlinks["llr_links"] = lf.llr_links;
      jlinks["directions"] = jd;
      jlinks["frames_replayed"] = lf.up.frames_replayed + lf.down.frames_replayed;
      jlinks["replays"] = lf.up.replays + lf.down.replays;
      jlinks["nacks"] = lf.up.nacks + lf.down.nacks;
      jlinks["bad_frames"] = lf.up.bad_frames + lf.down.bad_frames;
      jlinks["flushes"] = lf.up.flushes + lf.down.flushes;
      jlinks["buf_frames_max"] = std::max(lf.up.buf_frames_max, lf.down.buf_frames_max);
    }
    nlohmann::json jr = nlohmann::json::array();
    for (const llr_tb::LinkEngine* e : sys.llr_rtl()) {
      const llr::Out o = e->outputs();
      out += fmt::format("  RTL LLR {}: {} edges{}; frames sent {} (+{} replayed), received {} good / {} bad, NACKs sent "
                         "{}, state tx {} rx {}\n",
                         e->name(), e->edges(), e->lockstep() ? (e->mismatch() ? " in lockstep: MISMATCH" : " in lockstep, 0 mismatches") : "",
                         o.cnt[llr::tx_ok], o.cnt[llr::tx_replay], o.cnt[llr::rx_ok], o.cnt[llr::rx_bad],
                         o.cnt[llr::tx_nack_ctlos], o.tx_state, o.rx_state);
      nlohmann::json je = {{"name", e->name()}, {"edges", e->edges()}, {"lockstep", e->lockstep()},
                           {"mismatch", static_cast<bool>(e->mismatch())}};
      for (unsigned i = 0; i < llr::kNumCounters; ++i) je[llr::counter_name(i)] = o.cnt[i];
      jr.push_back(je);
    }
    if (!jr.empty()) jlinks["rtl"] = jr;
  }
  if (c.pattern == Pattern::allreduce) {
    const double t_ns = core::to_ns(static_cast<core::Ps>(f.ar_done_cycle) * 625);
    const double bytes = static_cast<double>(c.chunk_bytes) * N;  // the vector each XPU reduces
    out += f.ar_done_cycle
               ? fmt::format("All-reduce: {} steps of {} B done at {:.1f} ns: algorithm bandwidth {:.1f} Gb/s per XPU "
                             "(vector {} B), bus bandwidth {:.1f} Gb/s\n",
                             f.ar_steps, c.chunk_bytes, t_ns, bytes * 8 / t_ns, bytes, bytes * 8 / t_ns * f.ar_steps / N)
               : fmt::format("All-reduce: NOT complete after {} cycles\n", r.cycles);
    j["allreduce"] = {{"steps", f.ar_steps}, {"done_cycle", f.ar_done_cycle}, {"done_ns", t_ns},
                      {"algbw_gbps", f.ar_done_cycle ? bytes * 8 / t_ns : 0.0}};
  }

  // ---- JSON
  j["xpus"] = N;
  if (c.flit) j["nic"] = "flit";  // (absent: the cycle-exact NICs, as before the setting existed)
  j["instances"] = M;
  j["ports"] = P;
  j["planes"] = c.planes();
  j["topology"] = c.topology == Topology::planes ? "planes" : "mesh";
  j["num_xpus"] = c.tp.num_xpus;
  j["pairs_reached"] = sys.pairs_reached();
  j["cycles"] = r.cycles;
  j["traffic_cycles"] = traffic;
  j["drained"] = drained;
  j["wall_s"] = wall;
  j["scoreboard"] = {{"expected", sb.expected}, {"matched", sb.matched}, {"lost", sb.lost}, {"duplicated", sb.duplicated},
                     {"corrupted", sb.corrupted}, {"reordered", sb.reordered}, {"unexpected", sb.unexpected}};
  j["commands"] = {{"writes", writes}, {"reads", reads}, {"responses", resps}, {"issued", sys.issued()},
                   {"delivered", sys.delivered()}};
  j["latency_ns"] = {{"requests", lat_json(f.lat_req_ns)}, {"responses", lat_json(f.lat_resp_ns)},
                     {"all", lat_json(sys.scoreboard().latency_ns())}};
  j["throughput_gbps"] = {{"sent", tp.tx}, {"received", tp.rx}, {"offered", tp.offered}, {"window_us", win_us}};
  j["goodput"] = goodput_json(tp);
  j["jain"] = tp.jain;
  j["plane_gbps"] = tp.plane_gbps;
  j["plane_imbalance"] = tp.plane_imbalance;
  j["switches"] = jsw;
  j["nic_credit_stall_us"] = {nic_stall_req, nic_stall_resp};
  j["frames"] = {{"sent", f.frames}, {"data", f.data_frames}, {"ack_only", f.ack_frames}, {"decode_errors", f.frame_decode_errors},
                 {"wire_bytes", f.wire_bytes}};
  j["flit_hops"] = f.flit_hops;
  j["late_frames"] = {{"count", f.late_frames}, {"max_ns", core::to_ns(f.late_max)}};
  j["drops"] = {{"lossless", f.lossless_drops}, {"other", f.other_drops}};
  j["cbfc_errors"] = f.cbfc_errors;
  nlohmann::json jt, jr;
  for (unsigned i = 0; i < T::kNum; ++i) jt[sue::tx_counter_name(i)] = sys.tx_sum(i);
  for (unsigned i = 0; i < R::kNum; ++i) jr[sue::rx_counter_name(i)] = sys.rx_sum(i);
  j["tx"] = jt;
  j["rx"] = jr;
  if (!jlinks.is_null()) j["links"] = jlinks;

  // ---- verdict
  if (auto m = sys.mismatch()) {
    r.has_mismatch = true;
    r.mismatch = *m;
    r.failures.push_back(fmt::format("lockstep mismatch at cycle {} ({}) in {}: {} rtl={:#x} model={:#x} (seed {})", m->cycle,
                                     core::format_time(m->time), m->block, m->signal, m->rtl, m->model, cfg.seed));
    j["mismatch"] = {{"cycle", m->cycle}, {"time_ns", core::to_ns(m->time)}, {"block", m->block}, {"signal", m->signal},
                     {"rtl", m->rtl}, {"model", m->model}};
  }
  const bool rtl_error = b.ctx && b.ctx->gotError();
  if (rtl_error) r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  if (std::string a = sys.model_assertion(); !a.empty()) r.failures.push_back("model assertion: " + a);
  const bool stopped = r.has_mismatch || rtl_error;
  if (stopped) {
    r.failures.push_back(fmt::format("stopped at cycle {}: {} commands were in flight (scoreboard not settled)", sys.cycles(),
                                     sb.lost));
  } else {
    if (!sb.clean()) {
      r.failures.push_back(fmt::format("scoreboard: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected", sb.lost,
                                       sb.duplicated, sb.corrupted, sb.reordered, sb.unexpected));
      for (auto& line : sys.scoreboard().errors()) r.failures.push_back("  " + line);
    }
    if (!drained) {
      r.failures.push_back(fmt::format("did not settle within drain_cycles={} after the traffic: {}", drain, sys.busy_reason()));
      // A frame lost on a wire without LLR keeps the CBFC credits it was charged (no credit resync).
      if (const LinkFigures lf = sys.link_figures(); !c.llr && lf.dropped > 0)
        r.failures.push_back(fmt::format("  likely cause: {} frames dropped on the wires without LLR took their CBFC credits "
                                         "with them (never returned: no credit resync), so a class can starve (allowed: "
                                         "llr=true, or a lower drop_prob/burst)", lf.dropped));
    }
    if (sys.tx_sum(T::cmds_in) != sys.issued())
      r.failures.push_back(fmt::format("cmds_in {} (sum over sue_tx) but the XPUs issued {}", sys.tx_sum(T::cmds_in), sys.issued()));
    if (sys.rx_sum(R::cmds_out) != sys.delivered())
      r.failures.push_back(fmt::format("cmds_out {} (sum over sue_rx) but the XPUs received {}", sys.rx_sum(R::cmds_out),
                                       sys.delivered()));
    if (c.pattern == Pattern::allreduce && !f.ar_done_cycle)
      r.failures.push_back(fmt::format("all-reduce not complete within {} traffic cycles", traffic));
  }
  if (f.lossless_drops || f.other_drops)
    r.failures.push_back(fmt::format("{} lossless and {} other frames dropped in the switches; first: {}", f.lossless_drops,
                                     f.other_drops, f.first_drop));
  if (f.frame_decode_errors)
    r.failures.push_back(fmt::format("{} frames do not check out; first: {}", f.frame_decode_errors, f.first_decode_error));
  if (f.misdelivered)
    r.failures.push_back(fmt::format("{} XPU receive interface violations; first: {}", f.misdelivered, f.first_misdelivery));
  if (f.cbfc_errors) r.failures.push_back(fmt::format("{} CBFC errors; first: {}", f.cbfc_errors, f.first_cbfc_error));
  if (std::string e = sys.nic_errors(); !e.empty()) r.failures.push_back(e);
  if (sb.expected == 0) r.failures.push_back("no command was issued");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg, c.any_rtl() || c.any_llr_rtl()) + "\n";
  r.summary = out;
  return r;
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The bench's NIC model unless --set nic=... says otherwise (cycle: the cycle-exact sue_tx/sue_rx twins;
// flit: sue::Nic, docs/system.md "The flit NIC model").
constexpr const char* kBenchNic = "flit";

void run_cycles(System& sys, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) sys.cycle();
}
void run_cycles(FlitSystem& sys, uint64_t n) { sys.run_to(sys.cycles() + n); }

template <class S>
BenchResult bench_of(const RunConfig& cfg, const SysConfig& c, S& sys, uint64_t cycles);

BenchResult bench(const RunConfig& cfg0) {
  RunConfig cfg = cfg0;
  core::Settings& s = cfg.settings;
  // The bench's system unless the command line says otherwise: 64 XPUs, one instance of 4 x 200G each,
  // 4 planes of 64-port switches, uniform random at 80 %, all C++ models.
  const std::vector<std::pair<std::string, std::string>> defaults = {
      {"xpus", "64"}, {"sue_config", "s4"}, {"port_gbps", "200"}, {"load", "0.8"}, {"pattern", "uniform"},
      {"warmup_cycles", "2000"}, {"nic", kBenchNic}};
  for (auto& [k, v] : defaults)
    if (!s.was_set(k)) s.set(k, v);  // (not is_default: --set nic=cycle or load=0.5 are the settings' defaults)
  const SysConfig c = config_from_settings(s, cfg.seed);
  const uint64_t cycles = cfg.cycles ? cfg.cycles : 8000;
  Built b = build(c, "");
  if (b.flit) return bench_of(cfg, c, *b.flit, cycles);
  return bench_of(cfg, c, *b.sys, cycles);
}

template <class S>
BenchResult bench_of(const RunConfig& cfg, const SysConfig& c, S& sys, uint64_t cycles) {
  // nic=flit: the NICs' many short events would be slowed by the phase timers, so the measured window
  // runs without them and a further window of traffic (a quarter as long) is profiled.
  const bool split = c.flit;
  sys.set_profiling(!split);
  // Warm-up (not timed), then the measured window.
  run_cycles(sys, c.warmup_cycles);
  const uint64_t hops0 = sys.figures().flit_hops, cmds0 = sys.delivered();
  Profile p0 = sys.profile();
  using clk = std::chrono::steady_clock;
  const double cpu0 = cpu_seconds();
  const auto w0 = clk::now();
  run_cycles(sys, cycles);
  const double wall = std::chrono::duration<double>(clk::now() - w0).count();
  const double cpu = cpu_seconds() - cpu0;
  const uint64_t hops1 = sys.figures().flit_hops, cmds1 = sys.delivered();
  const Tput tp_meas = throughput(sys);  // the measured window (traffic still on: it ends now)
  uint64_t prof_cycles = cycles;
  if (split) {
    sys.set_profiling(true);
    p0 = sys.profile();
    prof_cycles = std::max<uint64_t>(1000, cycles / 4);
    run_cycles(sys, prof_cycles);
  }
  sys.stop_traffic();
  const uint64_t hops = hops1 - hops0, cmds = cmds1 - cmds0;
  const double sim_ns = core::to_ns(static_cast<core::Ps>(cycles) * c.clock_ps);
  Tput tp = throughput(sys);
  if (split) {  // per-XPU figures of the measured window only; the planes' bytes are counted at the stop
    tp.tx = tp_meas.tx;
    tp.rx = tp_meas.rx;
    tp.jain = tp_meas.jain;
  }
  Profile pr = sys.profile();
  pr.xpu -= p0.xpu, pr.tx -= p0.tx, pr.rx -= p0.rx, pr.net -= p0.net, pr.sw -= p0.sw;
  const double tot = pr.xpu + pr.tx + pr.rx + pr.net + pr.sw;
  auto mean = [](const std::vector<double>& v) {
    double x = 0;
    for (double y : v) x += y;
    return v.empty() ? 0.0 : x / static_cast<double>(v.size());
  };
  const auto& sb = sys.scoreboard().counts();
  const bool clean = sb.duplicated + sb.corrupted + sb.reordered + sb.unexpected == 0 && sys.figures().lossless_drops == 0 &&
                     sys.figures().frame_decode_errors == 0 && sys.figures().cbfc_errors == 0 && sys.nic_errors().empty();

  Table t(fmt::format("cosim bench system: {} XPUs x {} instance(s) x {} x {}G ({}), {} planes of {}-port switches, {} at load "
                      "{}, all C++ models, NICs: {}, scoreboard{}; seed {}, {} warm-up + {} measured SUE cycles",
                      c.xpus, c.instances, c.ports(), c.port_gbps, c.variant, c.planes(), c.xpus, pattern_name(c.pattern),
                      c.load,
                      c.flit ? "nic=flit (sue::Nic, frame granularity, event-driven)"
                             : "nic=cycle (sue_tx + sue_rx cycle-exact twins; --set nic=flit for the flit NIC model)",
                      c.check_frames && !c.flit ? " and frame checks" : "", cfg.seed, c.warmup_cycles, cycles));
  t.header({"figure", "value"});
  t.row({"simulated time (measured window)", fmt::format("{:.0f} ns", sim_ns)});
  t.row({"wall time / CPU time", fmt::format("{:.2f} s / {:.2f} s", wall, cpu)});
  t.row({"simulated ns per wall-second", fmt::format("{:.0f}", sim_ns / wall)});
  t.row({"simulated ns per CPU-second", fmt::format("{:.0f}", sim_ns / cpu)});
  t.row({"SUE cycles per wall-second (whole system)", fmt::format("{:.0f}", static_cast<double>(cycles) / wall)});
  t.row({"flit-hops (128-B flits out of switch ports)", std::to_string(hops)});
  t.row({"flit-hops per wall-second", fmt::format("{:.3g}", static_cast<double>(hops) / wall)});
  t.row({"flit-hops per CPU-second", fmt::format("{:.3g}", static_cast<double>(hops) / cpu)});
  t.row({"commands delivered / per wall-second", fmt::format("{} / {:.3g}", cmds, static_cast<double>(cmds) / wall)});
  t.row({"delivered per XPU (mean, Gb/s) / offered", fmt::format("{:.1f} / {:.1f}", mean(tp.rx), tp.offered)});
  t.row({"goodput per XPU (control + data) / wire-limited",
         fmt::format("{:.1f} / {:.1f} Gb/s ({:.1f} %)", mean(tp.good_rx), tp.limit.gbps,
                     tp.limit.gbps > 0 ? 100 * mean(tp.good_rx) / tp.limit.gbps : 0.0)});
  t.row({"Jain over XPUs / plane imbalance", fmt::format("{:.4f} / {:.3f}", tp.jain, tp.plane_imbalance)});
  t.row({"wall time per command delivered / per flit-hop",
         fmt::format("{:.0f} ns / {:.0f} ns", cmds ? 1e9 * wall / static_cast<double>(cmds) : 0.0,
                     hops ? 1e9 * wall / static_cast<double>(hops) : 0.0)});
  t.row({"peak memory", fmt::format("{:.1f} MiB", peak_rss_mib())});
  const double fhps_now = wall > 0 ? static_cast<double>(hops) / wall : 0.0;
  t.row({"targets (docs/system.md \"Figures\"): >= 1e7 flit-hops/s per core, < 1024 MiB",
         fmt::format("speed {} ({:.2f}x of it), memory {}", fhps_now >= 1e7 ? "met" : "NOT met", fhps_now / 1e7,
                     peak_rss_mib() < 1024 ? "met" : "NOT met")});
  t.row({"checks (no duplicate, corruption, reorder, drop, CBFC or frame error)", clean ? "clean" : "ERRORS"});
  BenchResult r;
  r.text = t.str();
  Table tp2(split ? fmt::format("Where the time goes (manual timers around each phase of the loop, in a further window of {} "
                                "cycles of traffic after the measured one, which runs without them)", prof_cycles)
                  : std::string("Where the time goes (share of the measured wall time, manual timers around each phase of the loop)"));
  tp2.header({"phase", "s", "share", "per SUE cycle"});
  auto prow = [&](const char* what, double x) {
    tp2.row({what, fmt::format("{:.2f}", x), fmt::format("{:.1f}%", tot > 0 ? 100 * x / tot : 0),
             fmt::format("{:.2f} us", x / static_cast<double>(prof_cycles) * 1e6)});
  };
  const double ticks = static_cast<double>(cycles) * c.nics();
  if (c.flit) {
    prow("flit NICs (sue::Nic::advance: TX and RX, at their events only)", pr.tx);
    prow("XPU generators, interfaces, sinks, scoreboard, event calendar", pr.xpu);
    prow("wires: frames out to the switches (and faults)", pr.net);
  } else {
    tp2.row({"sue_tx models (tick)", fmt::format("{:.2f}", pr.tx), fmt::format("{:.1f}%", tot > 0 ? 100 * pr.tx / tot : 0),
             fmt::format("{:.2f} us ({:.2f} us per tick of {} connections)", pr.tx / static_cast<double>(cycles) * 1e6,
                         pr.tx / ticks * 1e6, c.tp.nc())});
    tp2.row({"sue_rx models (tick)", fmt::format("{:.2f}", pr.rx), fmt::format("{:.1f}%", tot > 0 ? 100 * pr.rx / tot : 0),
             fmt::format("{:.2f} us ({:.2f} us per tick)", pr.rx / static_cast<double>(cycles) * 1e6, pr.rx / ticks * 1e6)});
    prow("XPU drivers, sinks, scoreboard, CBFC senders", pr.xpu);
    prow("MACs: frames out (pad, FCS, decode check) and in", pr.net);
  }
  prow("switches (tick, credits, departures)", pr.sw);
  r.text += tp2.str();
  const double fhps = static_cast<double>(hops) / wall;
  r.text += fmt::format("flit_hops_per_s {:.3g}\n", fhps);
  r.json = {{"bench", "system"}, {"nic", c.flit ? "flit" : "cycle"}, {"xpus", c.xpus}, {"instances", c.instances}, {"ports", c.ports()}, {"planes", c.planes()},
            {"load", c.load}, {"cycles", cycles}, {"warmup_cycles", c.warmup_cycles}, {"sim_ns", sim_ns}, {"wall_s", wall},
            {"cpu_s", cpu}, {"sim_ns_per_wall_s", sim_ns / wall}, {"sim_ns_per_cpu_s", sim_ns / cpu}, {"flit_hops", hops},
            {"flit_hops_per_s", fhps}, {"flit_hops_per_cpu_s", static_cast<double>(hops) / cpu},
            {"commands", cmds}, {"peak_rss_mib", peak_rss_mib()}, {"clean", clean}, {"jain", tp.jain},
            {"target_flit_hops_per_s", 1e7}, {"speed_target_met", fhps >= 1e7}, {"memory_target_met", peak_rss_mib() < 1024},
            {"plane_imbalance", tp.plane_imbalance}, {"delivered_gbps_per_xpu", mean(tp.rx)},
            {"goodput", goodput_json(tp)},
            {"profile_s", {{"tx", pr.tx}, {"rx", pr.rx}, {"xpu", pr.xpu}, {"mac", pr.net}, {"switch", pr.sw}}}};
  return r;
}

}  // namespace

Testbench system_testbench() {
  Testbench t;
  t.name = "system";
  t.description = "N XPUs x M SUE instances over switch planes or a mesh: patterns, requests/responses on separate VCs, "
                  "end-to-end scoreboard, latency, throughput, fairness, plane imbalance, switch telemetry";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) { config_from_settings(c.settings, c.seed); };
  t.run = run_system;
  t.bench = bench;
  t.bench_name = "system";
  t.clock_period = [](const core::Settings&) { return core::Ps{625}; };
  return t;
}

}  // namespace tb::system_tb
