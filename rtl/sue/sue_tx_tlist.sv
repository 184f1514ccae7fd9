// sue_tx_tlist -- the timer lists of sue_tx_conn: per port, a doubly linked list of connections in the
// order of their time stamps (docs/sue.md "ACK-delay lists", "RTO lists"). The delay a list measures is
// one constant, so its head is always the oldest entry and the only one that can be due: one compare
// per port and edge instead of a timer per connection. Instanced twice by sue_tx_conn: the ACK-delay
// lists (NA 1, 17-bit stamps) and the RTO lists (NA 3, 25-bit stamps).
//
// Per port and edge, in this order: the head pops (pop_i: the caller found it due); the connection u_i
// unlinks (unl_i; never the head that pops); up to NA connections append in index order, stamped now_i
// (a_i: each not in the list); a port death empties the list (clr_i). The memories nx / pv / t (one
// entry per connection) take at most one unlink and NA append writes of nx and of pv per port and edge,
// and NA stamps; a port writes only its own connections, and a later write to one address wins (an
// append over an unlink). The outputs are the pre-edge head, its stamp and the count.
// yosys 0.23 subset: no structs, no `return`.

module sue_tx_tlist #(
  parameter int NumPorts = 1,
  parameter int NC       = 32,      // connections (entries of the memories)
  parameter int TW       = 25,      // stamp bits
  parameter int NA       = 1,       // appends per port and edge
  parameter int CIW      = $clog2(NC)
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [TW-1:0]                now_i,     // the stamp of this edge's appends
  input  logic [NumPorts-1:0]          pop_i,     // port p's head leaves
  input  logic [NumPorts-1:0]          unl_i,     // port p unlinks u_i[p]
  input  logic [NumPorts*CIW-1:0]      u_i,
  input  logic [NumPorts*NA-1:0]       app_i,     // port p appends a_i[p*NA + k], k in order
  input  logic [NumPorts*NA*CIW-1:0]   a_i,
  input  logic [NumPorts-1:0]          clr_i,     // port p's list empties (its port dies)
  output logic [NumPorts*CIW-1:0]      head_o,    // pre-edge head of port p's list ...
  output logic [NumPorts*TW-1:0]       head_t_o,  // ... its stamp ...
  output logic [NumPorts*(CIW+1)-1:0]  n_o        // ... and the entries (the head is valid if n != 0)
);
  logic [CIW-1:0]              nx [NC];
  logic [CIW-1:0]              pv [NC];
  logic [TW-1:0]               t  [NC];
  logic [NumPorts*CIW-1:0]     h_q, h_d, tl_q, tl_d;
  logic [NumPorts*(CIW+1)-1:0] n_q, n_d;
  logic [NumPorts-1:0]         w_unx, w_upv;
  logic [NumPorts*CIW-1:0]     w_unx_a, w_unx_v, w_upv_a, w_upv_v;
  logic [NumPorts*NA-1:0]      w_anx, w_app;
  logic [NumPorts*NA*CIW-1:0]  w_anx_a, w_app_a, w_app_pv;
  logic [CIW-1:0]              h1, tl, u, a;
  logic [CIW:0]                n;
  logic [NumPorts*NA-1:0]      emp;       // append k of port p finds the list empty (kept for coverage)
  always_comb begin
    h_d = h_q; tl_d = tl_q; n_d = n_q;
    w_unx = '0; w_upv = '0; w_unx_a = '0; w_unx_v = '0; w_upv_a = '0; w_upv_v = '0;
    w_anx = '0; w_app = '0; w_anx_a = '0; w_app_a = '0; w_app_pv = '0; emp = '0;
    for (int p = 0; p < NumPorts; p++) begin
      h1 = h_q[p*CIW +: CIW];
      tl = tl_q[p*CIW +: CIW];
      n  = n_q[p*(CIW+1) +: CIW+1];
      u  = u_i[p*CIW +: CIW];
      // the head pops
      if (pop_i[p]) begin
        h1 = nx[h1];
        n  = n - 1'b1;
      end
      // u unlinks
      if (unl_i[p]) begin
        n = n - 1'b1;
        if (u == h1) begin
          h1 = nx[u];
        end else begin
          w_unx[p] = 1'b1; w_unx_a[p*CIW +: CIW] = pv[u]; w_unx_v[p*CIW +: CIW] = nx[u];
        end
        if (u == tl) begin
          tl = pv[u];
        end else begin
          w_upv[p] = 1'b1; w_upv_a[p*CIW +: CIW] = nx[u]; w_upv_v[p*CIW +: CIW] = pv[u];
        end
      end
      // appends, in order
      for (int k = 0; k < NA; k++) begin
        a = a_i[(p*NA + k)*CIW +: CIW];
        if (app_i[p*NA + k]) begin
          emp[p*NA + k] = n == '0;
          if (emp[p*NA + k]) begin
            h1 = a;
          end else begin
            w_anx[p*NA + k] = 1'b1; w_anx_a[(p*NA + k)*CIW +: CIW] = tl;
          end
          w_app[p*NA + k] = 1'b1; w_app_a[(p*NA + k)*CIW +: CIW] = a; w_app_pv[(p*NA + k)*CIW +: CIW] = tl;
          tl = a;
          n  = n + 1'b1;
        end
      end
      if (clr_i[p]) n = '0;
      h_d[p*CIW +: CIW] = h1;
      tl_d[p*CIW +: CIW] = tl;
      n_d[p*(CIW+1) +: CIW+1] = n;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      h_q <= '0; tl_q <= '0; n_q <= '0;
    end else begin
      h_q <= h_d; tl_q <= tl_d; n_q <= n_d;
    end
  end
  // the memories, in order (a later write to the same address wins: an append over an unlink)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++) begin
        if (w_unx[p]) nx[w_unx_a[p*CIW +: CIW]] <= w_unx_v[p*CIW +: CIW];
        if (w_upv[p]) pv[w_upv_a[p*CIW +: CIW]] <= w_upv_v[p*CIW +: CIW];
        for (int k = 0; k < NA; k++) begin
          if (w_anx[p*NA + k]) nx[w_anx_a[(p*NA + k)*CIW +: CIW]] <= w_app_a[(p*NA + k)*CIW +: CIW];
          if (w_app[p*NA + k]) begin
            pv[w_app_a[(p*NA + k)*CIW +: CIW]] <= w_app_pv[(p*NA + k)*CIW +: CIW];
            t[w_app_a[(p*NA + k)*CIW +: CIW]]  <= now_i;
          end
        end
      end
    end
  end
  always_comb begin
    head_o = h_q;
    n_o    = n_q;
    for (int p = 0; p < NumPorts; p++) head_t_o[p*TW +: TW] = t[h_q[p*CIW +: CIW]];
  end
endmodule
