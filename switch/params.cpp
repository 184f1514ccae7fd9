// sw::Params: validation, derived values and the zero-load latency breakdown.
#include <fmt/format.h>

#include <cmath>

#include "switch/switch.hpp"

namespace sw {

const char* to_string(Forwarding f) {
  return f == Forwarding::cut_through ? "cut_through" : "store_and_forward";
}
const char* to_string(FlowControl f) {
  switch (f) {
    case FlowControl::cbfc: return "cbfc";
    case FlowControl::pfc: return "pfc";
    case FlowControl::none: return "none";
  }
  return "?";
}

Params::Params() {
  for (auto& c : classes) c = ClassCfg{};
}

namespace {
bool is_pow2(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }
bool ns_ok(double v) { return v >= 0.0 && v <= 100000.0; }
}  // namespace

std::string Params::validate() const {
  if (radix < 1 || radix > kMaxRadix) return fmt::format("radix={} out of range (allowed 1..{})", radix, kMaxRadix);
  if (port_gbps != 800 && port_gbps != 400 && port_gbps != 200 && port_gbps != 100)
    return fmt::format("port_gbps={} not allowed (allowed 800|400|200|100)", port_gbps);
  if (lane_gbps != 200 && lane_gbps != 100)
    return fmt::format("lane_gbps={} not allowed (allowed 200|100)", lane_gbps);
  if (port_gbps < lane_gbps || (port_gbps / lane_gbps != 1 && port_gbps / lane_gbps != 2 && port_gbps / lane_gbps != 4))
    return fmt::format(
        "lane_gbps={} with port_gbps={} gives {} lanes (allowed 1|2|4 lanes per port, SUE tables 6/7: "
        "800G=4x200G, 400G=2x200G|4x100G, 200G=1x200G|2x100G, 100G=1x100G)",
        lane_gbps, port_gbps, static_cast<double>(port_gbps) / lane_gbps);
  if (!is_pow2(flit_bytes) || flit_bytes < 32 || flit_bytes > 1024)
    return fmt::format("flit_bytes={} not allowed (allowed 32|64|128|256|512|1024)", flit_bytes);
  if (!(core_mhz >= 100.0 && core_mhz <= 5000.0))
    return fmt::format("core_mhz={} out of range (allowed 100..5000)", core_mhz);
  if (static_cast<double>(flit_bytes) * 8.0 * core_mhz / 1000.0 < port_gbps)
    return fmt::format(
        "flit_bytes={} x core_mhz={} carries {} Gb/s per output, below port_gbps={} (allowed flit_bytes*8*core_mhz/1000 >= "
        "port_gbps)",
        flit_bytes, core_mhz, flit_bytes * 8.0 * core_mhz / 1000.0, port_gbps);
  if (mtu_bytes < 64 || mtu_bytes > 9216) return fmt::format("mtu_bytes={} out of range (allowed 64..9216)", mtu_bytes);
  if (max_xpus < 1 || max_xpus > 65536) return fmt::format("max_xpus={} out of range (allowed 1..65536)", max_xpus);
  if (overhead_bytes > 64) return fmt::format("overhead_bytes={} out of range (allowed 0..64)", overhead_bytes);
  if (num_classes < 1 || num_classes > kMaxClasses)
    return fmt::format("num_classes={} out of range (allowed 1..{})", num_classes, kMaxClasses);
  for (unsigned c = 0; c < num_classes; ++c) {
    const ClassCfg& k = classes[c];
    if (k.priority > 7) return fmt::format("classes[{}].priority={} out of range (allowed 0..7)", c, k.priority);
    if (k.weight < 1 || k.weight > 1000)
      return fmt::format("classes[{}].weight={} out of range (allowed 1..1000)", c, k.weight);
    if (!(k.alpha > 0.0 && k.alpha <= 64.0))
      return fmt::format("classes[{}].alpha={} out of range (allowed >0..64)", c, k.alpha);
  }
  const std::pair<const char*, double> stages[] = {
      {"rx_phy_ns", rx_phy_ns}, {"rx_mac_ns", rx_mac_ns}, {"parse_ns", parse_ns},   {"lookup_ns", lookup_ns},
      {"admit_ns", admit_ns},   {"sched_ns", sched_ns},   {"xbar_ns", xbar_ns},     {"egress_ns", egress_ns},
      {"tx_mac_ns", tx_mac_ns}, {"tx_phy_ns", tx_phy_ns}};
  for (const auto& s : stages)
    if (!ns_ok(s.second)) return fmt::format("{}={} out of range (allowed 0..100000)", s.first, s.second);
  if (fc == FlowControl::cbfc) {
    if (cbfc_buf_cells < cells(mtu_bytes) || cbfc_buf_cells > 32767)
      return fmt::format("cbfc_buf_cells={} out of range (allowed {}..32767: at least one MTU, counters are 16 bits)",
                         cbfc_buf_cells, cells(mtu_bytes));
    if (cbfc_downstream_cells < cells(mtu_bytes) || cbfc_downstream_cells > 32767)
      return fmt::format("cbfc_downstream_cells={} out of range (allowed {}..32767)", cbfc_downstream_cells,
                         cells(mtu_bytes));
    if (cbfc_threshold < 1 || cbfc_threshold > cbfc_buf_cells)
      return fmt::format("cbfc_threshold={} out of range (allowed 1..cbfc_buf_cells={})", cbfc_threshold,
                         cbfc_buf_cells);
    if (cbfc_timer > 65535) return fmt::format("cbfc_timer={} out of range (allowed 0..65535)", cbfc_timer);
  }
  if (fc == FlowControl::pfc) {
    if (pfc_xoff_cells < cells(mtu_bytes))
      return fmt::format("pfc_xoff_cells={} out of range (allowed >= {} = one MTU)", pfc_xoff_cells, cells(mtu_bytes));
    if (pfc_headroom_cells < cells(mtu_bytes))
      return fmt::format("pfc_headroom_cells={} out of range (allowed >= {} = one MTU)", pfc_headroom_cells,
                         cells(mtu_bytes));
    if (pfc_resume_offset_cells >= pfc_xoff_cells)
      return fmt::format("pfc_resume_offset_cells={} out of range (allowed 0..pfc_xoff_cells-1={})",
                         pfc_resume_offset_cells, pfc_xoff_cells - 1);
    if (pfc_quanta < 1 || pfc_quanta > 0xffff)
      return fmt::format("pfc_quanta={} out of range (allowed 1..65535)", pfc_quanta);
    if (!(pfc_alpha > 0.0 && pfc_alpha <= 64.0))
      return fmt::format("pfc_alpha={} out of range (allowed >0..64)", pfc_alpha);
  }
  if (ecn_kmin_bytes >= ecn_kmax_bytes)
    return fmt::format("ecn_kmin_bytes={} out of range (allowed < ecn_kmax_bytes={})", ecn_kmin_bytes, ecn_kmax_bytes);
  if (!(ecn_pmax >= 0.0 && ecn_pmax <= 1.0))
    return fmt::format("ecn_pmax={} out of range (allowed 0..1)", ecn_pmax);
  if (sample_cycles < 1) return "sample_cycles=0 out of range (allowed 1..)";
  // The lossless reservation must leave a shared pool of at least one MTU per port.
  uint64_t per = 0;
  if (fc == FlowControl::cbfc) per = cbfc_buf_cells;
  if (fc == FlowControl::pfc) per = pfc_headroom_cells;
  const uint64_t reserved = static_cast<uint64_t>(radix) * lossless_classes() * per;
  const uint64_t need = reserved + static_cast<uint64_t>(radix) * cells(mtu_bytes);
  if (buffer_cells() < need)
    return fmt::format(
        "buffer_bytes={} too small (allowed >= {}: lossless reservation radix x lossless classes x {} cells + one MTU "
        "per port, cells of {} B)",
        buffer_bytes, need * flit_bytes, per, flit_bytes);
  return "";
}

Ps Params::period() const { return static_cast<Ps>(std::llround(1e6 / core_mhz)); }

Ps Params::serialization(uint64_t bytes) const {
  const double ps = static_cast<double>(bytes) * 8000.0 / port_gbps;
  return static_cast<Ps>(std::ceil(ps - 1e-9));
}

Ps Params::pause_time(uint32_t quanta) const { return serialization(static_cast<uint64_t>(quanta) * 512 / 8); }

unsigned Params::lossless_classes() const {
  unsigned n = 0;
  for (unsigned c = 0; c < num_classes && c < kMaxClasses; ++c) n += classes[c].lossless ? 1 : 0;
  return n;
}

std::vector<Stage> Params::breakdown() const {
  return {
      {"rx_phy_ns", rx_phy_ns, "SerDes RX, PCS, FEC decode"},
      {"rx_mac_ns", rx_mac_ns, "MAC receive"},
      {"parse_ns", parse_ns, "header parse"},
      {"lookup_ns", lookup_ns, "forwarding lookup (dst XPU -> egress port)"},
      {"admit_ns", admit_ns, "admission and buffer write"},
      {"sched_ns", sched_ns, "enqueue to eligible in the egress scheduler"},
      {"xbar_ns", xbar_ns, "buffer read and crossbar"},
      {"egress_ns", egress_ns, "egress pipeline (ECN, header edit, TX FIFO)"},
      {"tx_mac_ns", tx_mac_ns, "MAC transmit"},
      {"tx_phy_ns", tx_phy_ns, "PCS, FEC encode, SerDes TX"},
  };
}

Ps Params::ingress_ready_delay() const {
  return core::ns(rx_phy_ns) + core::ns(rx_mac_ns) + core::ns(parse_ns) + core::ns(lookup_ns);
}
Ps Params::egress_delay() const {
  return core::ns(xbar_ns) + core::ns(egress_ns) + core::ns(tx_mac_ns) + core::ns(tx_phy_ns);
}
Ps Params::zero_load_latency() const {
  return ingress_ready_delay() + core::ns(admit_ns) + core::ns(sched_ns) + egress_delay();
}

std::string Params::breakdown_table() const {
  std::string s = fmt::format("zero-load port-to-port latency ({}, first byte in -> first byte out)\n",
                              to_string(forwarding));
  double sum = 0;
  for (const Stage& st : breakdown()) {
    s += fmt::format("  {:<10} {:>7.1f} ns  {}\n", st.name, st.ns, st.what);
    sum += st.ns;
  }
  s += fmt::format("  {:<10} {:>7.1f} ns{}\n", "total", sum,
                   forwarding == Forwarding::store_and_forward ? "  + serialization of the packet at the ingress rate"
                                                               : "");
  return s;
}

}  // namespace sw
