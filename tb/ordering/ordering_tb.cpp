#include "ordering/ordering_tb.hpp"

#include <systemc.h>

#include <fmt/format.h>

#include <cmath>

#include "common/table.hpp"
#include "common/vcontext.hpp"
#include "rob/rob_blocks.hpp"
#include "uet/ordering.hpp"
#include "verilated.h"

namespace tb::ordering_tb {

namespace {

using rob_tb::RtlVariant;

/// A target's reorder buffer as the RTL block (optionally in lockstep with
/// its model) behind uet::ReorderBuffer. The RTL comes out of reset here.
class RtlRob final : public uet::ReorderBuffer {
 public:
  RtlRob(std::unique_ptr<rob_tb::RobBlock> blk, const rob::Params& p, rob_tb::LockstepRob* lock)
      : blk_(std::move(blk)), p_(p), lock_(lock) {
    rob::In r;
    r.rst_n = false;
    for (int i = 0; i < 2; ++i) {
      blk_->drive(r);
      blk_->posedge();
    }
  }
  void tick(const rob::In& in) override {
    if (lock_) lock_->set_time(cycle_, static_cast<core::Ps>(cycle_) * 1000 + 500);
    blk_->drive(in);
    blk_->posedge();
    ++cycle_;
  }
  rob::Out outputs() const override { return blk_->outputs(); }
  const rob::Params& params() const override { return p_; }

 private:
  std::unique_ptr<rob_tb::RobBlock> blk_;
  rob::Params p_;
  rob_tb::LockstepRob* lock_;
  uint64_t cycle_ = 0;
};

void declare(core::Schema& s) {
  s.add_choice("rob", "rtl", {"rtl", "model"}, "every target's reorder buffer");
  s.add_bool("lockstep", true, "run each RTL reorder buffer in lockstep with its C++ model");
  s.add_choice("rob_config", "r50", rob_tb::variant_names(false), "reorder buffer RTL parameterization (see rob_stream)");
  s.add_int("sources", 8, 1, 64, "source endpoints");
  s.add_int("targets", 4, 1, 16, "target endpoints");
  s.add_int("transfers", 8, 1, 100000, "transfers per source");
  s.add_int("len_min", 1, 1, 100000, "REQs per transfer, at least");
  s.add_int("len_max", 64, 1, 100000, "REQs per transfer, at most");
  s.add_real("p_slow", 0.1, 0, 1, "share of ordered transfers in slow mode by choice");
  s.add_real("p_sync", 0.2, 0, 1, "share of synchronized transfers");
  s.add_real("p_eod", 0.3, 0, 1, "share of fast ordered transfers with exactly-once delivery");
  s.add_bool("one_to_one", false, "source i sends to target i mod targets (else random targets)");
  s.add_int("cids", 2, 1, 16, "connection ids per source");
  s.add_int("max_outstanding", 25, 1, 127, "REQs outstanding per connection (paper Fig. 12c: 25)");
  s.add_int("flits", 16, 1, 1024, "cycles a REQ occupies a link");
  s.add_int("base_latency", 100, 0, 100000, "network latency, cycles");
  s.add_int("skew", 500, 0, 100000, "extra latency of the long path, cycles");
  s.add_real("p_long", 0.3, 0, 1, "share of packets on the long path");
  s.add_real("p_drop_req", 0, 0, 0.5, "probability a REQ is lost");
  s.add_real("p_drop_ack", 0, 0, 0.5, "probability an ACK is lost");
  s.add_real("p_dup", 0, 0, 0.5, "probability a REQ is duplicated by the network");
  s.add_int("mem_latency", 20, 0, 100000, "target memory latency, cycles");
  s.add_int("max_cycles", 2000000, 1000, 1000000000, "the run ends here if transfers are still open");
}

const RtlVariant& variant(const core::Settings& s) { return *rob_tb::find_variant(s.s("rob_config")); }

uet::SystemParams params_from(const core::Settings& s, uint64_t seed) {
  uet::SystemParams p;
  p.sources = static_cast<unsigned>(s.i("sources"));
  p.targets = static_cast<unsigned>(s.i("targets"));
  p.seed = seed;
  p.max_cycles = static_cast<uint64_t>(s.i("max_cycles"));
  p.net.flits = static_cast<unsigned>(s.i("flits"));
  p.net.base_latency = static_cast<uint64_t>(s.i("base_latency"));
  p.net.skew = static_cast<uint64_t>(s.i("skew"));
  p.net.p_long = s.r("p_long");
  p.net.drop[static_cast<unsigned>(uet::PktType::Req)] = s.r("p_drop_req");
  p.net.drop[static_cast<unsigned>(uet::PktType::Ack)] = s.r("p_drop_ack");
  p.net.p_dup = s.r("p_dup");
  p.net.lifetime = std::max<uint64_t>(p.net.lifetime, p.net.max_latency() + 4 * p.net.flits + 100);
  p.src.num_cids = static_cast<unsigned>(s.i("cids"));
  p.src.max_outstanding = static_cast<unsigned>(s.i("max_outstanding"));
  p.src.req_timeout = p.src.fin_timeout = 2 * p.net.lifetime + static_cast<uint64_t>(s.i("mem_latency")) + 1000;
  p.tgt.rob = variant(s).params;
  p.tgt.window = p.src.max_outstanding;
  p.tgt.mem_latency = static_cast<uint64_t>(s.i("mem_latency"));
  p.work.transfers_per_source = static_cast<unsigned>(s.i("transfers"));
  p.work.len_min = static_cast<unsigned>(s.i("len_min"));
  p.work.len_max = static_cast<unsigned>(s.i("len_max"));
  p.work.p_slow = s.r("p_slow");
  p.work.p_sync = s.r("p_sync");
  p.work.p_eod = s.r("p_eod");
  p.work.one_to_one = s.b("one_to_one");
  if (std::string e = p.validate(); !e.empty()) throw core::UsageError("ordering settings: " + e);
  return p;
}

RunResult run(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  uet::SystemParams p = params_from(s, cfg.seed);
  if (cfg.cycles) p.max_cycles = cfg.cycles;  // --cycles / --time bound the run; it ends earlier when all transfers are done
  VerilatedContext* ctx = shared_context();
  ctx->assertOn(true);
  std::unique_ptr<Waves> waves;
  if (!cfg.waves_path.empty()) waves = std::make_unique<Waves>();
  std::vector<rob_tb::LockstepRob*> locks;
  const bool rtl = s.s("rob") == "rtl", lock = s.b("lockstep");
  const RtlVariant& v = variant(s);
  uet::OrderingSystem::RobFactory factory;
  if (rtl)
    factory = [&](unsigned t, const rob::Params& rp) -> std::unique_ptr<uet::ReorderBuffer> {
      auto blk = rob_tb::make_rtl(v, ctx, fmt::format("rob{}", t), waves.get());
      rob_tb::LockstepRob* l = nullptr;
      if (lock) {
        auto ls = rob_tb::make_lockstep(std::move(blk), rp, fmt::format("rob{}", t));
        l = ls.get();
        blk = std::move(ls);
      }
      locks.push_back(l);
      return std::make_unique<RtlRob>(std::move(blk), rp, l);
    };
  uet::OrderingSystem sys(p, factory);
  if (waves)
    if (std::string err = waves->open(cfg.waves_path); !err.empty()) throw core::UsageError(err);
  sys.generate();
  auto mismatched = [&]() {
    for (auto* l : locks)
      if (l && l->mismatch()) return l->mismatch();
    return std::optional<Mismatch>{};
  };
  {
    // One self-timed process steps the whole system.
    struct Top : sc_core::sc_module {
      SC_HAS_PROCESS(Top);
      Top(sc_core::sc_module_name n, std::function<bool()> step) : sc_module(n), step_(std::move(step)) {
        SC_METHOD(run);
      }
      std::function<bool()> step_;
      void run() {
        if (step_())
          sc_core::sc_stop();
        else
          next_trigger(sc_core::sc_time(1, sc_core::SC_NS));
      }
    };
    Top top("ordering", [&]() {
      sys.step();
      if (waves) waves->dump(static_cast<core::Ps>(sys.now()) * 1000);
      return sys.quiescent() || sys.now() >= p.max_cycles || mismatched() || ctx->gotError();
    });
    sc_core::sc_start();
  }
  if (waves) waves->close();
  uet::Report rep = sys.check();

  RunResult r;
  r.cycles = rep.cycles;
  r.sim_time = static_cast<core::Ps>(rep.cycles) * 1000;
  const std::string desc = rtl ? fmt::format("rtl {}{}", v.name, lock ? " + lockstep model" : "") : "model";
  nlohmann::json& j = r.json;
  j["rob"] = desc;
  j["cycles"] = rep.cycles;
  j["transfers"] = rep.transfers;
  j["completed"] = rep.completed;
  j["executions"] = rep.executions;
  j["slow_duplicate_deliveries"] = rep.slow_duplicate_deliveries;
  j["errors"] = rep.errors;
  j["source"] = {{"fast_started", rep.src.fast_started}, {"slow_started", rep.src.slow_started},
                 {"slow_no_cid", rep.src.slow_no_cid}, {"fallbacks", rep.src.fallbacks}, {"reqs_new", rep.src.reqs_new},
                 {"reqs_resent", rep.src.reqs_resent}, {"req_timeouts", rep.src.req_timeouts},
                 {"nacks_no_conn", rep.src.nacks_no_conn}, {"nacks_overflow", rep.src.nacks_overflow},
                 {"acks_out_of_order", rep.src.acks_out_of_order}, {"fin_acks", rep.src.fin_acks}};
  j["target"] = {{"delivered", rep.tgt.delivered}, {"held", rep.tgt.held}, {"released", rep.tgt.released},
                 {"duplicates", rep.tgt.duplicates}, {"replays", rep.tgt.replays}, {"direct", rep.tgt.direct},
                 {"sync_held", rep.tgt.sync_held}, {"sync_released", rep.tgt.sync_released},
                 {"replay_max", rep.tgt.replay_max}};
  std::string out;
  out += fmt::format("  {} sources -> {} targets, {} transfers each ({}..{} REQs; {:.0f}% slow by choice, {:.0f}% "
                     "synchronized, {:.0f}% of fast ones exactly-once); reorder buffers: {}\n",
                     p.sources, p.targets, p.work.transfers_per_source, p.work.len_min, p.work.len_max, p.work.p_slow * 100,
                     p.work.p_sync * 100, p.work.p_eod * 100, desc);
  out += fmt::format("  network {} cycles + {} on {:.0f}% of packets; REQ loss {}, ACK loss {}, duplicates {}; "
                     "{} CIDs per source, {} outstanding\n\n",
                     p.net.base_latency, p.net.skew, p.net.p_long * 100, s.r("p_drop_req"), s.r("p_drop_ack"), p.net.p_dup,
                     p.src.num_cids, p.src.max_outstanding);
  Table t("Transfers");
  t.header({"transfers", "completed", "fast", "slow", "slow (no CID)", "fallbacks", "REQs", "resent", "timeouts"});
  t.row({std::to_string(rep.transfers), std::to_string(rep.completed), std::to_string(rep.src.fast_started),
         std::to_string(rep.src.slow_started), std::to_string(rep.src.slow_no_cid), std::to_string(rep.src.fallbacks),
         std::to_string(rep.src.reqs_new), std::to_string(rep.src.reqs_resent), std::to_string(rep.src.req_timeouts)});
  out += t.str() + "\n";
  Table tt("Targets");
  tt.header({"delivered", "held in ROB", "released", "duplicates", "ACK replays", "direct (slow)", "sync held", "NO_CONN", "OVERFLOW"});
  tt.row({std::to_string(rep.tgt.delivered), std::to_string(rep.tgt.held), std::to_string(rep.tgt.released),
          std::to_string(rep.tgt.duplicates), std::to_string(rep.tgt.replays), std::to_string(rep.tgt.direct),
          std::to_string(rep.tgt.sync_held), std::to_string(rep.tgt.nack_no_conn), std::to_string(rep.tgt.nack_overflow)});
  out += tt.str();
  out += fmt::format("  executions {}, slow-mode duplicate deliveries {} (allowed: slow mode without EOD)\n",
                     rep.executions, rep.slow_duplicate_deliveries);

  if (auto m = mismatched()) {
    r.has_mismatch = true;
    r.mismatch = *m;
    r.failures.push_back(fmt::format("lockstep mismatch at cycle {} in {}: {} rtl={:#x} model={:#x} (seed {})", m->cycle,
                                     m->block, m->signal, m->rtl, m->model, cfg.seed));
    j["mismatch"] = {{"cycle", m->cycle}, {"block", m->block}, {"signal", m->signal}, {"rtl", m->rtl}, {"model", m->model}};
  }
  if (ctx->gotError()) r.failures.push_back("RTL assertion failed (see the %Error line above)");
  if (!rep.complete && !r.has_mismatch)
    r.failures.push_back(fmt::format("{} of {} transfers did not complete by cycle {}", rep.transfers - rep.completed,
                                     rep.transfers, rep.cycles));
  for (auto& e : rep.errors) r.failures.push_back(e);
  r.pass = r.failures.empty();
  r.summary = out;
  return r;
}

}  // namespace

Testbench testbench() {
  Testbench t;
  t.name = "ordering";
  t.description = "Ordering protocols: slow/fast ordered, exactly-once and synchronized transfers over a reordering network";
  t.default_cycles = 0;
  t.declare = declare;
  t.validate = [](const RunConfig& c) { params_from(c.settings, c.seed); };
  t.run = run;
  t.layout = "rob_stream";
  t.clock_period = [](const core::Settings&) { return core::Ps{1000}; };
  return t;
}

}  // namespace tb::ordering_tb
