// Cycle-exact C++ twin of rtl/rob/rob.sv: the target-side reorder buffer of
// the ordering protocols (hash-indexed, with an associative cache and a
// connection table). Behaviour: docs/rob.md, step by step. Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace rob {

enum Resp : uint32_t {
  kDelivered = 0, kHeld = 1, kDuplicate = 2, kNoConn = 3, kOverflowFull = 4, kOverflowCollision = 5,
  kFinDone = 6, kFinUnknown = 7
};
const char* resp_name(uint32_t r);

/// RTL parameters.
struct Params {
  unsigned src_bits = 11;    // SrcBits (1..16)
  unsigned cid_bits = 4;     // CidBits (1..8)
  unsigned seq_bits = 8;     // SeqBits (2..16)
  unsigned capacity = 50;    // Capacity (1..1024)
  unsigned hash_bits = 6;    // HashBits (1..12)
  unsigned cam_entries = 4;  // CamEntries (1..16)
  unsigned num_conn = 16;    // NumConn (1..64)
  // TokenWidth is 32.
  std::string validate() const;  ///< "" or one line naming the parameter and its range
  unsigned slot_bits() const;    ///< max(1, clog2(capacity))
  unsigned conn_bits() const;    ///< max(1, clog2(num_conn))
  /// h(key) of docs/rob.md
  uint32_t hash(uint32_t src, uint32_t cid, uint32_t seq) const;
};

struct In {
  bool rst_n = false;
  bool in_valid = false, in_fin = false;
  uint32_t in_src = 0, in_cid = 0, in_seq = 0, in_token = 0;
};

enum Counter : unsigned {
  delivered, held, released, duplicate, no_conn, overflow_full, overflow_collision, cam_inserts, fins, kNumCounters
};
const char* counter_name(unsigned i);  ///< "delivered", ... (RTL port cnt_<name>_o)

struct Out {
  bool in_ready = false;
  bool rel_valid = false;
  uint32_t rel_src = 0, rel_cid = 0, rel_seq = 0, rel_token = 0;
  bool resp_valid = false;
  uint32_t resp_kind = 0, resp_src = 0, resp_cid = 0, resp_seq = 0;
  uint32_t occupancy = 0, max_occupancy = 0, conns = 0;
  std::array<uint32_t, kNumCounters> cnt{};
  bool operator==(const Out& o) const;
  bool operator!=(const Out& o) const { return !(*this == o); }
};

class Model {
 public:
  explicit Model(const Params& p);  // throws std::invalid_argument on bad params
  void tick(const In& in);
  Out outputs() const;
  const Params& params() const { return p_; }

 private:
  Params p_;
  // Registers of docs/rob.md (private: may change).
  struct Conn {
    bool valid = false, closing = false;
    uint32_t src = 0, cid = 0, exp = 0, held = 0;
  };
  struct Entry {
    bool valid = false;
    uint32_t src = 0, cid = 0, seq = 0, slot = 0;
  };
  std::vector<Conn> conn_;
  std::vector<Entry> bucket_, cam_;
  std::vector<uint32_t> token_, free_;
  uint32_t free_head_ = 0, free_count_ = 0;
  bool chain_valid_ = false;
  uint32_t chain_conn_ = 0;
  Out out_;
  Entry* lookup(uint32_t src, uint32_t cid, uint32_t seq);  // lookup of a key
  int find_conn(uint32_t src, uint32_t cid) const;          // connection lookup, -1: none
};

}  // namespace rob
