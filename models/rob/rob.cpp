// Cycle-exact C++ twin of rtl/rob/rob.sv (the target-side reorder buffer).
// Every statement below corresponds to a sentence in docs/rob.md; the step
// numbers in the comments are the numbered steps of "One rising edge".
//
// Conventions shared with the RTL:
//  * every input is first masked to its port width (as the wires would do):
//    src to SrcBits, cid to CidBits, seq to SeqBits, token to 32 bits,
//  * all right-hand sides use pre-edge (registered) values. Steps 1 and 2
//    never both act in one edge (an arrival is only taken while no chain
//    runs), so each step reads every pre-edge value it needs before it writes
//    any register, and the tables are updated in place,
//  * SEQs (exp) wrap modulo 2^SeqBits, counters modulo 2^32,
//  * the rel_* and resp_* fields hold when their valid is low,
//  * occupancy, max_occupancy and conns are registers loaded from the next
//    state (step 4).
// Before the first reset edge the model is in its reset state.
#include "rob/rob.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace rob {

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

// clog2(n): smallest w with 2^w >= n.
unsigned clog2(unsigned n) {
  unsigned w = 0;
  while (w < 32 && (uint64_t{1} << w) < n) ++w;
  return w;
}

constexpr const char* kCounterNames[kNumCounters] = {
    "delivered",     "held",           "released",           "duplicate", "no_conn",
    "overflow_full", "overflow_collision", "cam_inserts",      "fins"};

constexpr const char* kRespNames[8] = {"DELIVERED",     "HELD",
                                       "DUPLICATE",     "NO_CONN",
                                       "OVERFLOW_FULL", "OVERFLOW_COLLISION",
                                       "FIN_DONE",      "FIN_UNKNOWN"};

}  // namespace

const char* counter_name(unsigned i) { return (i < kNumCounters) ? kCounterNames[i] : "?"; }
const char* resp_name(uint32_t r) { return (r < 8) ? kRespNames[r] : "?"; }

// ---------------------------------------------------------------- Params

std::string Params::validate() const {
  if (src_bits < 1 || src_bits > 16) return range_error("src_bits", src_bits, 1, 16);
  if (cid_bits < 1 || cid_bits > 8) return range_error("cid_bits", cid_bits, 1, 8);
  if (seq_bits < 2 || seq_bits > 16) return range_error("seq_bits", seq_bits, 2, 16);
  if (capacity < 1 || capacity > 1024) return range_error("capacity", capacity, 1, 1024);
  if (hash_bits < 1 || hash_bits > 12) return range_error("hash_bits", hash_bits, 1, 12);
  if (cam_entries < 1 || cam_entries > 16)
    return range_error("cam_entries", cam_entries, 1, 16);
  if (num_conn < 1 || num_conn > 64) return range_error("num_conn", num_conn, 1, 64);
  return "";
}

unsigned Params::slot_bits() const { return std::max(1u, clog2(capacity)); }
unsigned Params::conn_bits() const { return std::max(1u, clog2(num_conn)); }

uint32_t Params::hash(uint32_t src, uint32_t cid, uint32_t seq) const {
  // key = {src, cid, seq}: W = SrcBits + CidBits + SeqBits <= 40 bits.
  const uint64_t key = (uint64_t{src & width_mask(src_bits)} << (cid_bits + seq_bits)) |
                       (uint64_t{cid & width_mask(cid_bits)} << seq_bits) |
                       uint64_t{seq & width_mask(seq_bits)};
  const unsigned w = src_bits + cid_bits + seq_bits;
  const uint64_t hmask = (uint64_t{1} << hash_bits) - 1u;
  // XOR of the HashBits-bit chunks, least significant first; the bits above W
  // are zero, which pads the last chunk.
  uint64_t h = 0;
  for (unsigned lo = 0; lo < w; lo += hash_bits) h ^= (key >> lo) & hmask;
  return static_cast<uint32_t>(h);
}

// ---------------------------------------------------------------- Out

bool Out::operator==(const Out& o) const {
  return in_ready == o.in_ready && rel_valid == o.rel_valid && rel_src == o.rel_src &&
         rel_cid == o.rel_cid && rel_seq == o.rel_seq && rel_token == o.rel_token &&
         resp_valid == o.resp_valid && resp_kind == o.resp_kind && resp_src == o.resp_src &&
         resp_cid == o.resp_cid && resp_seq == o.resp_seq && occupancy == o.occupancy &&
         max_occupancy == o.max_occupancy && conns == o.conns && cnt == o.cnt;
}

// ---------------------------------------------------------------- Model

Model::Model(const Params& p) : p_(p) {
  const std::string err = p_.validate();
  if (!err.empty()) throw std::invalid_argument("rob: " + err);
  conn_.assign(p_.num_conn, Conn{});
  bucket_.assign(std::size_t{1} << p_.hash_bits, Entry{});
  cam_.assign(p_.cam_entries, Entry{});
  token_.assign(p_.capacity, 0u);
  free_.assign(p_.capacity, 0u);
  In rst;
  rst.rst_n = false;
  tick(rst);
}

// Lookup of a key: the bucket h(key) if it is valid and holds the key; else
// the lowest-index valid cache entry holding the key; else nullptr.
Model::Entry* Model::lookup(uint32_t src, uint32_t cid, uint32_t seq) {
  auto holds = [&](const Entry& e) {
    return e.valid && e.src == src && e.cid == cid && e.seq == seq;
  };
  Entry& b = bucket_[p_.hash(src, cid, seq)];
  if (holds(b)) return &b;
  for (Entry& e : cam_)
    if (holds(e)) return &e;
  return nullptr;
}

// Connection lookup: the lowest-index valid entry with that {src, cid}; -1 if none.
int Model::find_conn(uint32_t src, uint32_t cid) const {
  for (unsigned i = 0; i < conn_.size(); ++i)
    if (conn_[i].valid && conn_[i].src == src && conn_[i].cid == cid) return static_cast<int>(i);
  return -1;
}

void Model::tick(const In& in) {
  const uint32_t smask = width_mask(p_.seq_bits);
  const uint32_t half = 1u << (p_.seq_bits - 1);  // 2^(SeqBits-1)

  if (!in.rst_n) {
    // Reset: everything invalid / zero, free list full and in order, in_ready = 1.
    std::fill(conn_.begin(), conn_.end(), Conn{});
    std::fill(bucket_.begin(), bucket_.end(), Entry{});
    std::fill(cam_.begin(), cam_.end(), Entry{});
    std::fill(token_.begin(), token_.end(), 0u);
    for (unsigned i = 0; i < p_.capacity; ++i) free_[i] = i;
    free_head_ = 0;
    free_count_ = p_.capacity;
    chain_valid_ = false;
    chain_conn_ = 0;
    out_ = Out{};
    out_.in_ready = true;
    return;
  }

  // Inputs masked to their port widths (TokenWidth is 32: no mask).
  const uint32_t src = in.in_src & width_mask(p_.src_bits);
  const uint32_t cid = in.in_cid & width_mask(p_.cid_bits);
  const uint32_t seq = in.in_seq & smask;
  const uint32_t token = in.in_token;

  auto count = [&](Counter c) { ++out_.cnt[c]; };  // wraps modulo 2^32
  auto push_free = [&](uint32_t s) {
    free_[(free_head_ + free_count_) % p_.capacity] = s;
    ++free_count_;
  };
  auto release = [&](uint32_t rsrc, uint32_t rcid, uint32_t rseq, uint32_t rtoken) {
    out_.rel_valid = true;
    out_.rel_src = rsrc;
    out_.rel_cid = rcid;
    out_.rel_seq = rseq;
    out_.rel_token = rtoken;
  };

  bool released = false;  // a REQ is released at this edge (step 3)
  bool taken = false;     // an arrival is taken at this edge (step 3)
  bool chain_valid_d = chain_valid_;
  uint32_t chain_conn_d = chain_conn_;

  // 1. Release chain.
  if (chain_valid_) {
    Conn& c = conn_[chain_conn_];
    Entry* e = lookup(c.src, c.cid, c.exp);
    if (e != nullptr) {
      const uint32_t s = e->slot;
      release(c.src, c.cid, c.exp, token_[s]);
      released = true;
      e->valid = false;
      push_free(s);
      c.exp = (c.exp + 1u) & smask;
      c.held = c.held - 1u;  // held_c > 0 here: the slot was found
      count(Counter::released);
      if (c.held > 0) {
        chain_valid_d = true;
      } else {
        chain_valid_d = false;
        if (c.closing) c.valid = false;
      }
    } else {
      chain_valid_d = false;  // not found: the chain ends, no release
    }
  }

  // 2. Arrival (in_ready_q is !chain_valid_q: steps 1 and 2 never both act).
  if (in.in_valid && out_.in_ready) {
    taken = true;
    uint32_t kind = kDelivered;
    const int ci = find_conn(src, cid);
    if (in.in_fin) {
      // FIN.
      if (ci >= 0) {
        Conn& c = conn_[static_cast<unsigned>(ci)];
        if (c.held == 0) {
          c.valid = false;
        } else {
          c.closing = true;
        }
        kind = kFinDone;
        count(fins);
      } else {
        kind = kFinUnknown;
      }
    } else {
      // REQ: connection lookup; else open the lowest-index free entry.
      int cj = ci;
      if (cj < 0) {
        for (unsigned i = 0; i < conn_.size(); ++i) {
          if (!conn_[i].valid) {
            conn_[i] = Conn{true, false, src, cid, 0u, 0u};
            cj = static_cast<int>(i);
            break;
          }
        }
      }
      if (cj < 0) {
        kind = kNoConn;
        count(no_conn);
      } else {
        Conn& c = conn_[static_cast<unsigned>(cj)];
        const uint32_t d = (seq - c.exp) & smask;
        if (d == 0) {
          // DELIVERED: released at once.
          kind = kDelivered;
          release(src, cid, seq, token);
          released = true;
          c.exp = (c.exp + 1u) & smask;
          count(delivered);
          if (c.held > 0) {
            chain_valid_d = true;
            chain_conn_d = static_cast<uint32_t>(cj);
          }
        } else if (d < half) {
          // Ahead.
          if (lookup(src, cid, seq) != nullptr) {
            kind = kDuplicate;
            count(duplicate);
          } else if (free_count_ == 0) {
            kind = kOverflowFull;
            count(overflow_full);
          } else {
            Entry* dst = nullptr;
            Entry& b = bucket_[p_.hash(src, cid, seq)];
            if (!b.valid) {
              dst = &b;
            } else {
              for (Entry& e : cam_) {
                if (!e.valid) {
                  dst = &e;
                  count(cam_inserts);
                  break;
                }
              }
            }
            if (dst == nullptr) {
              kind = kOverflowCollision;
              count(overflow_collision);
            } else {
              // Store: pop slot s at the head of the free list.
              const uint32_t s = free_[free_head_];
              free_head_ = (free_head_ + 1u) % p_.capacity;
              --free_count_;
              token_[s] = token;
              *dst = Entry{true, src, cid, seq, s};
              ++c.held;
              count(Counter::held);
              kind = kHeld;
            }
          }
        } else {
          // Behind.
          kind = kDuplicate;
          count(duplicate);
        }
      }
    }
    out_.resp_kind = kind;
    out_.resp_src = src;
    out_.resp_cid = cid;
    out_.resp_seq = seq;
  }

  // 3. Valids; the other rel_* / resp_* fields hold.
  out_.resp_valid = taken;
  out_.rel_valid = released;

  // 4. Registered status outputs from the next state.
  chain_valid_ = chain_valid_d;
  chain_conn_ = chain_conn_d;
  out_.in_ready = !chain_valid_;
  out_.occupancy = p_.capacity - free_count_;
  out_.max_occupancy = std::max(out_.max_occupancy, out_.occupancy);
  out_.conns = static_cast<uint32_t>(
      std::count_if(conn_.begin(), conn_.end(), [](const Conn& c) { return c.valid; }));
}

Out Model::outputs() const { return out_; }

}  // namespace rob
