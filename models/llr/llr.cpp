// Cycle-exact C++ twin of rtl/llr/llr.sv (link layer retry).
// Every statement below corresponds to a sentence in docs/llr.md; the step
// numbers in the comments are the numbered steps of "One rising edge".
//
// Conventions shared with the RTL:
//  * every input is first masked to its port width (as the wires would do):
//    seq to SeqBits, len to LenWidth, class to ClassWidth, ctl type to 2 bits,
//    pause to 2^ClassWidth bits, cfg fields to their port widths,
//  * all right-hand sides use pre-edge (registered) values (`foo_`), the
//    next values are built in locals (`foo_d`) and committed at the end,
//  * where two steps write the same register the later step wins, except
//    where the document states otherwise (INIT received, step 2),
//  * sequence numbers wrap modulo 2^SeqBits, counters modulo 2^CntWidth,
//  * register fields of the wire and delivery registers that an edge does not
//    load hold their value.
#include "llr/llr.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace llr {

namespace {

// Mask with the low `width` bits set (width 0..32).
uint32_t width_mask(unsigned width) {
  return (width >= 32) ? 0xffffffffu : ((1u << width) - 1u);
}

std::string range_error(const char* name, unsigned value, unsigned lo, unsigned hi) {
  std::ostringstream os;
  os << name << "=" << value << " out of range (allowed " << lo << ".." << hi << ")";
  return os.str();
}

constexpr uint32_t kBytesMaxMask = (1u << 24) - 1u;  // cfg_bytes_max_i, out_bytes_o: 24 bits
constexpr uint32_t kCountMaxMask = 0xffu;            // cfg_replay_count_max_i: 8 bits
constexpr uint32_t kSpacingMask = 0xffffu;           // cfg_ack_spacing_i: 16 bits

constexpr const char* kCounterNames[kNumCounters] = {
    "tx_ok",          "tx_replay",           "tx_discard",          "tx_ack_ctlos",
    "tx_nack_ctlos",  "tx_init_ctlos",       "tx_init_echo_ctlos",  "tx_best_effort",
    "tx_flush",       "rx_ok",               "rx_bad",              "rx_expected_seq_good",
    "rx_expected_seq_bad", "rx_missing_seq", "rx_duplicate_seq",    "rx_replay",
    "rx_ack_ctlos",   "rx_nack_ctlos",       "rx_init_ctlos",       "rx_init_echo_ctlos",
    "rx_bad_ctlos"};

}  // namespace

// ---------------------------------------------------------------- Params

std::string Params::validate() const {
  if (seq_bits < 4 || seq_bits > 31) return range_error("seq_bits", seq_bits, 4, 31);
  if (buf_log2 < 1 || buf_log2 > 12) return range_error("buf_log2", buf_log2, 1, 12);
  if (len_width < 1 || len_width > 16) return range_error("len_width", len_width, 1, 16);
  if (class_width < 1 || class_width > 3) return range_error("class_width", class_width, 1, 3);
  if (timer_width < 2 || timer_width > 31) return range_error("timer_width", timer_width, 2, 31);
  if (cnt_width < 8 || cnt_width > 32) return range_error("cnt_width", cnt_width, 8, 32);
  return "";
}

const char* counter_name(unsigned i) { return (i < kNumCounters) ? kCounterNames[i] : "?"; }

bool Out::operator==(const Out& o) const {
  return c_ready == o.c_ready && w_valid == o.w_valid && w_is_ctl == o.w_is_ctl &&
         w_eligible == o.w_eligible && w_replay == o.w_replay && w_seq == o.w_seq &&
         w_len == o.w_len && w_class == o.w_class && w_ctl_type == o.w_ctl_type &&
         w_ctl_seq == o.w_ctl_seq && w_token == o.w_token && d_valid == o.d_valid &&
         d_eligible == o.d_eligible && d_len == o.d_len && d_class == o.d_class &&
         d_token == o.d_token && tx_state == o.tx_state && rx_state == o.rx_state &&
         out_frames == o.out_frames && out_bytes == o.out_bytes && err_flush == o.err_flush &&
         cnt == o.cnt;
}

// ---------------------------------------------------------------- Model

Model::Model(const Params& p) : p_(p) {
  const std::string err = p_.validate();
  if (!err.empty()) throw std::invalid_argument("llr: " + err);
  buf_.assign(std::size_t{1} << p_.buf_log2, Entry{});
}

void Model::tick(const In& in) {
  const uint32_t smask = width_mask(p_.seq_bits);
  const uint32_t lmask = width_mask(p_.len_width);
  const uint32_t kmask = width_mask(p_.class_width);
  const uint32_t tmask = width_mask(p_.timer_width);
  const uint32_t cmask = width_mask(p_.cnt_width);
  const uint32_t bmask = width_mask(p_.buf_log2);
  const uint32_t pmask = width_mask(1u << p_.class_width);
  const uint32_t half = 1u << (p_.seq_bits - 1);  // 2^(SeqBits-1)

  if (!in.rst_n) {
    // Reset: tx_state = INIT, init_pend = 1, everything else 0; cfg registers load.
    cfg_.frames_max = in.cfg.frames_max & width_mask(p_.buf_log2 + 1);
    cfg_.bytes_max = in.cfg.bytes_max & kBytesMaxMask;
    cfg_.replay_timer = in.cfg.replay_timer & tmask;
    cfg_.replay_count_max = in.cfg.replay_count_max & kCountMaxMask;
    cfg_.ack_spacing = in.cfg.ack_spacing & kSpacingMask;
    cfg_.ack_bytes = in.cfg.ack_bytes;
    cfg_.best_effort = in.cfg.best_effort;
    cfg_.re_init = in.cfg.re_init;
    tx_state_ = kInit;
    rx_state_ = kSendAcks;
    next_seq_ = ack_target_ = ack_base_ = replay_ptr_ = replay_cnt_ = timer_ = 0;
    out_bytes_ = 0;
    std::fill(buf_.begin(), buf_.end(), Entry{});
    hold_valid_ = hold_eligible_ = false;
    hold_class_ = hold_len_ = 0;
    hold_token_ = 0;
    ready_ = false;
    pause_ = 0;
    w_ = Out{};
    init_pend_ = true;
    echo_pend_ = false;
    err_flush_ = false;
    exp_seq_ = unacked_ = ack_idle_ = 0;
    ack_pend_ = nack_pend_ = false;
    d_ = Out{};
    cnt_.fill(0);
    return;
  }

  // Inputs masked to their port widths.
  const uint32_t c_class = in.c_class & kmask;
  const uint32_t c_len = in.c_len & lmask;
  const uint32_t r_seq = in.r_seq & smask;
  const uint32_t r_len = in.r_len & lmask;
  const uint32_t r_class = in.r_class & kmask;
  const uint32_t r_ctl_type = in.r_ctl_type & 3u;
  const uint32_t r_ctl_seq = in.r_ctl_seq & smask;

  // Derived configuration ("0 behaves as 1").
  const uint32_t timer_max = std::max<uint32_t>(1, cfg_.replay_timer);
  const uint32_t spacing = std::max<uint32_t>(1, cfg_.ack_spacing);
  const uint32_t ack_idle_max = std::max<uint32_t>(1, cfg_.replay_timer >> 2);

  std::array<uint32_t, kNumCounters> cnt_d = cnt_;
  auto count = [&](Counter c, uint32_t n = 1) { cnt_d[c] = (cnt_d[c] + n) & cmask; };
  auto dist = [&](uint32_t x) { return (x - ack_base_) & smask; };

  // Next values (default: hold).
  uint32_t tx_state_d = tx_state_, rx_state_d = rx_state_;
  uint32_t next_seq_d = next_seq_, ack_target_d = ack_target_, ack_base_d = ack_base_;
  uint32_t replay_ptr_d = replay_ptr_, replay_cnt_d = replay_cnt_, timer_d = timer_;
  bool init_pend_d = init_pend_, echo_pend_d = echo_pend_, err_flush_d = err_flush_;
  uint32_t exp_seq_d = exp_seq_;
  bool nack_pend_d = nack_pend_;

  // 1. Wire.
  const bool sent = w_.w_valid && in.w_ready;
  const bool w_free = !w_.w_valid || sent;

  // 2. RX: control word.
  bool ev_ack = false, ev_nack = false, ev_echo = false, rx_init = false;
  if (in.r_valid && in.r_is_ctl) {
    if (!in.r_ok) {
      count(rx_bad_ctlos);
    } else {
      switch (r_ctl_type) {
        case kAck:
          count(rx_ack_ctlos);
          ev_ack = true;
          break;
        case kNack:
          count(rx_nack_ctlos);
          ev_nack = true;
          break;
        case kInitCtl:
          count(rx_init_ctlos);
          rx_init = true;  // its register values are applied last (they win over 5 and 6)
          echo_pend_d = true;
          break;
        default:  // kInitEcho
          count(rx_init_echo_ctlos);
          ev_echo = true;
          break;
      }
    }
  }

  // 3. RX: frame.
  bool deliver = false, duplicate = false;
  uint32_t counted = 0;
  if (in.r_valid && !in.r_is_ctl) {
    if (!in.r_eligible) {
      if (in.r_ok) {
        deliver = true;
        count(rx_ok);
      } else {
        count(rx_bad);
      }
    } else {
      const uint32_t gap = (r_seq - exp_seq_) & smask;
      if (gap == 0 && in.r_ok) {
        deliver = true;
        count(rx_ok);
        count(rx_expected_seq_good);
        if (in.r_replay) count(rx_replay);
        exp_seq_d = (exp_seq_ + 1) & smask;
        counted = cfg_.ack_bytes ? r_len : 1u;
        rx_state_d = kSendAcks;
        nack_pend_d = false;
      } else if (gap == 0) {
        count(rx_bad);
        count(rx_expected_seq_bad);
        if (rx_state_ == kSendAcks) {
          rx_state_d = kSendNack;
          nack_pend_d = true;
        }
      } else if (gap < half) {  // ahead
        if (!in.r_ok) count(rx_bad);
        if (rx_state_ == kSendAcks) {
          count(rx_missing_seq, gap);
          rx_state_d = kSendNack;
          nack_pend_d = true;
        }
      } else {  // behind: a duplicate
        if (!in.r_ok) count(rx_bad);
        count(rx_duplicate_seq);
        duplicate = true;
      }
    }
  }
  // The delivery register: fields hold unless a frame is delivered.
  if (deliver) {
    d_.d_valid = true;
    d_.d_eligible = in.r_eligible;
    d_.d_len = r_len;
    d_.d_token = in.r_token;
    d_.d_class = r_class;
  } else {
    d_.d_valid = false;
  }

  // 4. TX: events.
  bool progress = false, replay_ev = false, flush = false;
  uint32_t replay_from = 0;
  if (tx_state_ == kAdvance || tx_state_ == kReplay) {
    const uint32_t dt = dist(ack_target_), dn = dist(next_seq_);
    auto ack_event = [&](uint32_t a) {
      const uint32_t da = dist(a);
      if (dt < da && da <= dn) {
        ack_target_d = a;
        progress = true;
      }
    };
    bool nack_replay = false;
    if (ev_ack) {
      ack_event(r_ctl_seq);
    } else if (ev_nack) {
      const uint32_t de = dist(r_ctl_seq);
      if (dt <= de && de < dn) {
        if (de > dt) {
          ack_target_d = r_ctl_seq;
          progress = true;
        }
        nack_replay = true;
        replay_ev = true;
        replay_from = r_ctl_seq;
      } else if (de == dn) {
        ack_event(r_ctl_seq);
      }
    }
    // Timer.
    if (!nack_replay) {
      if (ack_target_ != next_seq_ && !progress) {
        if (timer_ + 1u >= timer_max) {
          replay_ev = true;
          replay_from = ack_target_d;
          timer_d = 0;
        } else {
          timer_d = timer_ + 1u;
        }
      } else {
        timer_d = 0;
      }
    }
    // Replay event.
    if (replay_ev) {
      const uint32_t n = (progress ? 0u : replay_cnt_) + 1u;
      if (n > cfg_.replay_count_max) {
        flush = true;
      } else {
        replay_cnt_d = n;
        replay_ptr_d = replay_from;
        tx_state_d = kReplay;
        timer_d = 0;
      }
    } else {
      replay_cnt_d = progress ? 0u : replay_cnt_;
    }
    // Flush.
    if (flush) {
      count(tx_flush);
      count(tx_discard, dn - dist(ack_target_d));
      err_flush_d = true;
      tx_state_d = kFlush;
      ack_base_d = ack_target_d = replay_ptr_d = next_seq_;
      replay_cnt_d = 0;
      timer_d = 0;
    }
  } else if (tx_state_ == kInit) {
    // INIT is repeated until echoed.
    if (timer_ + 1u >= timer_max) {
      init_pend_d = true;
      timer_d = 0;
    } else {
      timer_d = timer_ + 1u;
    }
    if (ev_echo) {
      tx_state_d = kAdvance;
      next_seq_d = ack_base_d = ack_target_d = replay_ptr_d = 0;
      replay_cnt_d = 0;
      timer_d = 0;
      init_pend_d = false;
    }
  } else {  // kFlush
    timer_d = 0;
    if (cfg_.re_init) {
      tx_state_d = kInit;
      init_pend_d = true;
      next_seq_d = ack_base_d = ack_target_d = replay_ptr_d = 0;
    }
  }

  // 7 (read part). The entry freed this edge is read before step 6 writes the buffer.
  const bool free_one = ack_base_ != ack_target_ && !flush;
  const uint32_t freed_len = free_one ? buf_[ack_base_ & bmask].len : 0u;

  // 6. TX: next wire item (priority order, one item per edge).
  bool loaded_ack = false, loaded_nack = false, loaded_echo = false, loaded_init = false;
  bool hold_sent = false;
  uint32_t added_bytes = 0;
  if (w_free) {
    bool loaded = true;
    auto load_ctl = [&](uint32_t type, uint32_t seq) {
      w_.w_is_ctl = true;
      w_.w_ctl_type = type;
      w_.w_ctl_seq = seq;
    };
    auto load_frame = [&](bool eligible, bool replay, uint32_t seq, uint32_t len, uint32_t cls,
                          uint64_t token) {
      w_.w_is_ctl = false;
      w_.w_eligible = eligible;
      w_.w_replay = replay;
      w_.w_seq = seq;
      w_.w_len = len;
      w_.w_class = cls;
      w_.w_token = token;
    };
    const bool frames_ok = !replay_ev && !flush;  // items 5 and 6 skipped otherwise
    if (echo_pend_) {
      load_ctl(kInitEcho, 0);
      count(tx_init_echo_ctlos);
      loaded_echo = true;
    } else if (nack_pend_) {
      load_ctl(kNack, exp_seq_);
      count(tx_nack_ctlos);
      loaded_nack = true;
    } else if (ack_pend_) {
      load_ctl(kAck, exp_seq_);
      count(tx_ack_ctlos);
      loaded_ack = true;
    } else if (init_pend_ && tx_state_ == kInit) {
      load_ctl(kInitCtl, 0);
      count(tx_init_ctlos);
      loaded_init = true;
    } else if (frames_ok && tx_state_ == kReplay) {
      const Entry& e = buf_[replay_ptr_ & bmask];
      load_frame(true, true, replay_ptr_, e.len, e.cls, e.token);
      count(tx_replay);
      replay_ptr_d = (replay_ptr_ + 1u) & smask;
      if (replay_ptr_d == next_seq_) tx_state_d = kAdvance;
    } else if (frames_ok && tx_state_ == kAdvance && hold_valid_ &&
               !((pause_ >> hold_class_) & 1u)) {
      if (!hold_eligible_) {
        load_frame(false, false, 0, hold_len_, hold_class_, hold_token_);
        count(tx_ok);
        hold_sent = true;
      } else {
        const uint32_t out_frames = (next_seq_ - ack_base_) & smask;
        const bool room = uint64_t{out_frames} + 1u <= cfg_.frames_max &&
                          uint64_t{out_bytes_} + hold_len_ <= cfg_.bytes_max;
        if (room) {
          load_frame(true, false, next_seq_, hold_len_, hold_class_, hold_token_);
          buf_[next_seq_ & bmask] = Entry{hold_len_, hold_class_, hold_token_};
          next_seq_d = (next_seq_ + 1u) & smask;
          added_bytes = hold_len_;
          count(tx_ok);
          hold_sent = true;
        } else if (cfg_.best_effort) {
          load_frame(false, false, 0, hold_len_, hold_class_, hold_token_);
          count(tx_ok);
          count(tx_best_effort);
          hold_sent = true;
        } else {
          loaded = false;  // stall: it waits in hold
        }
      }
    } else {
      loaded = false;
    }
    w_.w_valid = loaded;
  }
  if (loaded_echo) echo_pend_d = false;
  if (loaded_init) init_pend_d = false;
  if (loaded_nack) rx_state_d = kNackSent;

  // 5. RX: ACK scheduling.
  const uint32_t unacked_base = loaded_ack ? 0u : unacked_;
  // unacked and ack_idle saturate (their width is not observable, see header).
  uint32_t unacked_d = (uint64_t{unacked_base} + counted > 0xffffffffu) ? 0xffffffffu
                                                                         : unacked_base + counted;
  uint32_t ack_idle_d =
      (unacked_ != 0 && !loaded_ack) ? std::min<uint32_t>(ack_idle_ + 1u, tmask) : 0u;
  bool ack_pend_d = (ack_pend_ && !loaded_ack) || duplicate || unacked_d >= spacing ||
                    (unacked_ != 0 && !loaded_ack && ack_idle_ >= ack_idle_max);
  if (loaded_nack) nack_pend_d = false;

  // 2 (INIT received): these values win over steps 5 and 6.
  if (rx_init) {
    exp_seq_d = 0;
    rx_state_d = kSendAcks;
    unacked_d = 0;
    ack_idle_d = 0;
    ack_pend_d = false;
    nack_pend_d = false;
  }

  // 7. Free (one frame per cycle); out_bytes combines it with step 6's addition.
  uint32_t out_bytes_d;
  if (flush || (tx_state_ == kInit && ev_echo)) {
    out_bytes_d = 0;
  } else {
    out_bytes_d = (out_bytes_ + added_bytes - freed_len) & kBytesMaxMask;
  }
  if (free_one) ack_base_d = (ack_base_ + 1u) & smask;

  // 8. Client.
  bool hold_valid_d = hold_valid_ && !hold_sent;
  if (in.c_valid && ready_) {
    hold_valid_d = true;
    hold_eligible_ = in.c_eligible;
    hold_class_ = c_class;
    hold_len_ = c_len;
    hold_token_ = in.c_token;
  }
  ready_ = !hold_valid_d && (tx_state_d == kAdvance || tx_state_d == kReplay);
  pause_ = in.pause & pmask;

  // Commit.
  hold_valid_ = hold_valid_d;
  tx_state_ = tx_state_d;
  rx_state_ = rx_state_d;
  next_seq_ = next_seq_d;
  ack_target_ = ack_target_d;
  ack_base_ = ack_base_d;
  replay_ptr_ = replay_ptr_d;
  replay_cnt_ = replay_cnt_d;
  timer_ = timer_d;
  out_bytes_ = out_bytes_d;
  init_pend_ = init_pend_d;
  echo_pend_ = echo_pend_d;
  err_flush_ = err_flush_d;
  exp_seq_ = exp_seq_d;
  unacked_ = unacked_d;
  ack_idle_ = ack_idle_d;
  ack_pend_ = ack_pend_d;
  nack_pend_ = nack_pend_d;
  cnt_ = cnt_d;
}

Out Model::outputs() const {
  Out o;
  o.c_ready = ready_;
  o.w_valid = w_.w_valid;
  o.w_is_ctl = w_.w_is_ctl;
  o.w_eligible = w_.w_eligible;
  o.w_replay = w_.w_replay;
  o.w_seq = w_.w_seq;
  o.w_len = w_.w_len;
  o.w_class = w_.w_class;
  o.w_ctl_type = w_.w_ctl_type;
  o.w_ctl_seq = w_.w_ctl_seq;
  o.w_token = w_.w_token;
  o.d_valid = d_.d_valid;
  o.d_eligible = d_.d_eligible;
  o.d_len = d_.d_len;
  o.d_class = d_.d_class;
  o.d_token = d_.d_token;
  o.tx_state = tx_state_;
  o.rx_state = rx_state_;
  o.out_frames = ((next_seq_ - ack_base_) & width_mask(p_.seq_bits)) & width_mask(p_.buf_log2 + 1);
  o.out_bytes = out_bytes_;
  o.err_flush = err_flush_;
  o.cnt = cnt_;
  return o;
}

}  // namespace llr
