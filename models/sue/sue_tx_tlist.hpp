// sue::TxTimerList -- the twin of rtl/sue/sue_tx_tlist.sv: per port, a doubly linked list of
// connections in the order of their time stamps (docs/sue.md "RTO lists"). The delay a list measures
// is one constant, so the head is the oldest entry and the only one that can be due: the owner compares
// the head's stamp with the edge counter once per port and edge. TxModel keeps its RTO lists in one;
// its owed ACKs keep their age in the connection (only outputs are binding, docs/sue.md "Transport").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sue/sue_feedback.hpp"

namespace sue {

class TxTimerList {
 public:
  /// Empty lists for connections 0 .. n_conn-1 (memories nx, pv, t as the RTL's, zeroed).
  void reset(unsigned n_conn) {
    nx_.assign(n_conn, 0);
    pv_.assign(n_conn, 0);
    t_.assign(n_conn, 0);
    h_.fill(0);
    tl_.fill(0);
    n_.fill(0);
  }
  uint32_t size(unsigned p) const { return n_[p]; }
  /// The oldest connection of port p's list (valid while size(p) != 0).
  uint32_t head(unsigned p) const { return h_[p]; }
  /// The edge connection c was appended at.
  uint64_t stamp(unsigned c) const { return t_[c]; }
  /// Connection c, in port p's list, leaves it (the head or any other).
  void unlink(unsigned p, unsigned c) {
    if (c == h_[p]) h_[p] = nx_[c]; else nx_[pv_[c]] = nx_[c];
    if (c == tl_[p]) tl_[p] = pv_[c]; else pv_[nx_[c]] = pv_[c];
    --n_[p];
  }
  /// Connection c, in no list, joins port p's list at its tail, stamped `now`.
  void append(unsigned p, unsigned c, uint64_t now) {
    if (n_[p] == 0) h_[p] = c; else nx_[tl_[p]] = c;
    pv_[c] = tl_[p];
    tl_[p] = c;
    t_[c] = now;
    ++n_[p];
  }
  /// Port p's list empties (its port died).
  void clear(unsigned p) { n_[p] = 0; }

 private:
  std::vector<uint32_t> nx_, pv_;
  std::vector<uint64_t> t_;
  std::array<uint32_t, kMaxPorts> h_{}, tl_{}, n_{};
};

}  // namespace sue
