// cbfc_rx -- credit-based flow control, receiver side.
//
// Tracks per-class buffer occupancy in credits, accumulates credits freed as
// frames leave the buffer, and returns them to the sender as cumulative credit
// limits (limit = buffer + all credits ever freed, mod 2^CntWidth). A class
// requests an update when its pending credits reach the threshold, when its
// timer expires, or when no update of the class has been sent for
// cfg_refresh_i cycles (the refresh: it resends the current limit, so that a
// lost last update cannot stall the class forever); one update per cycle is
// granted in round-robin order.
// Overflow, underflow and bad class indices set sticky error outputs.
//
// Cycle-level contract: docs/cbfc.md (section "cbfc_rx -- receiver"). The C++
// twin cbfc::RxModel (models/cbfc/) implements the same text and is compared
// against this module on every output, every cycle.
//
// Simulation-only protocol assertions are compiled in with +define+CBFC_ASSERT.
// +define+CBFC_MUTANT plants a deliberate bug for the testbench self-check:
// freed credits of a class are lost in a cycle in which that class is granted.

module cbfc_rx #(
  parameter int unsigned NumClasses     = 4,
  parameter int unsigned CntWidth       = 16,
  parameter int unsigned LenWidth       = 14,
  parameter int unsigned CreditUnitLog2 = 6,
  parameter int unsigned TimerWidth     = 16,
  parameter int unsigned RefreshWidth   = 16,
  localparam int unsigned ClassWidth    = (NumClasses > 1) ? $clog2(NumClasses) : 1
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // configuration, sampled on reset edges
  input  logic [NumClasses*CntWidth-1:0] cfg_buf_credits_i,
  input  logic [CntWidth-1:0]            cfg_threshold_i,
  input  logic [TimerWidth-1:0]          cfg_timer_i,
  input  logic [RefreshWidth-1:0]        cfg_refresh_i,
  // frame written into the buffer
  input  logic                           rx_valid_i,
  input  logic [ClassWidth-1:0]          rx_class_i,
  input  logic [LenWidth-1:0]            rx_len_i,
  // frame left the buffer
  input  logic                           free_valid_i,
  input  logic [ClassWidth-1:0]          free_class_i,
  input  logic [LenWidth-1:0]            free_len_i,
  // credit update to the sender
  output logic                           cu_valid_o,
  output logic [ClassWidth-1:0]          cu_class_o,
  output logic [CntWidth-1:0]            cu_limit_o,
  // status
  output logic [NumClasses*CntWidth-1:0] occ_o,
  output logic [NumClasses*CntWidth-1:0] pend_o,
  output logic [NumClasses-1:0]          err_overflow_o,
  output logic [NumClasses-1:0]          err_underflow_o,
  output logic                           err_class_o
);

  // Width used for comparisons between credit counts and frame credits.
  localparam int unsigned CmpWidth = ((CntWidth > LenWidth) ? CntWidth : LenWidth) + 1;
  // Byte offset bits inside one credit unit.
  localparam logic [LenWidth-1:0] UnitMask = LenWidth'((64'd1 << CreditUnitLog2) - 64'd1);
  localparam logic [ClassWidth-1:0] LastClass = ClassWidth'(NumClasses - 1);

  // credits(len) = ceil(len / 2^CreditUnitLog2). Always fits in LenWidth bits.
  function automatic logic [LenWidth-1:0] credits(input logic [LenWidth-1:0] len);
    return (len >> CreditUnitLog2) + LenWidth'((len & UnitMask) != '0);
  endfunction

  // ---------------------------------------------------------------- state
  logic [CntWidth-1:0]   buf_q   [NumClasses];
  logic [CntWidth-1:0]   thr_q;
  logic [TimerWidth-1:0] tmr_max_q;
  logic [CntWidth-1:0]   occ_q   [NumClasses];
  logic [CntWidth-1:0]   occ_d   [NumClasses];
  logic [CntWidth-1:0]   limit_q [NumClasses];
  logic [CntWidth-1:0]   limit_d [NumClasses];
  logic [CntWidth-1:0]   pend_q  [NumClasses];
  logic [CntWidth-1:0]   pend_d  [NumClasses];
  logic [TimerWidth-1:0] tmr_q   [NumClasses];
  logic [TimerWidth-1:0] tmr_d   [NumClasses];
  logic [RefreshWidth-1:0] rfr_max_q;
  logic [RefreshWidth-1:0] rfr_q [NumClasses];  // cycles since the class's last update
  logic [RefreshWidth-1:0] rfr_d [NumClasses];
  logic [ClassWidth-1:0] rr_q, rr_d;
  logic                  cu_valid_q, cu_valid_d;
  logic [ClassWidth-1:0] cu_class_q, cu_class_d;
  logic [CntWidth-1:0]   cu_limit_q, cu_limit_d;
  logic [NumClasses-1:0] err_overflow_q,  err_overflow_d;
  logic [NumClasses-1:0] err_underflow_q, err_underflow_d;
  logic                  err_class_q,     err_class_d;

  // ---------------------------------------------------------------- next state
  logic                  rx_bad_class, free_bad_class;
  logic [LenWidth-1:0]   rx_need, free_need;
  logic [CntWidth-1:0]   arrived [NumClasses];  // credits added to occ this cycle
  logic [CntWidth-1:0]   freed   [NumClasses];  // credits freed this cycle
  logic [NumClasses-1:0] overflow_set, underflow_set;
  logic [NumClasses-1:0] req;                   // update requests
  logic [2*NumClasses-1:0] req_twice;
  logic [NumClasses-1:0] req_rot;               // req_rot[i] = req[(rr_q + i) mod NumClasses]
  logic                  gnt_valid;
  logic [ClassWidth-1:0] gnt_class;
  logic [NumClasses-1:0] gnt;                   // one-hot grant

  // Class indices >= NumClasses only exist when NumClasses is not a power of two.
  if ((1 << ClassWidth) > NumClasses) begin : g_bad_class
    assign rx_bad_class   = rx_class_i   >= ClassWidth'(NumClasses);
    assign free_bad_class = free_class_i >= ClassWidth'(NumClasses);
  end else begin : g_no_bad_class
    assign rx_bad_class   = 1'b0;
    assign free_bad_class = 1'b0;
  end

  assign rx_need   = credits(rx_len_i);
  assign free_need = credits(free_len_i);

  // 1./2. arrival and free; 3. requests
  always_comb begin
    overflow_set  = '0;
    underflow_set = '0;
    for (int unsigned c = 0; c < NumClasses; c++) begin
      arrived[c] = '0;
      freed[c]   = '0;
      if (rx_valid_i && !rx_bad_class && (rx_class_i == ClassWidth'(c))) begin
        if (CmpWidth'(occ_q[c]) + CmpWidth'(rx_need) > CmpWidth'(buf_q[c])) begin
          overflow_set[c] = 1'b1;
        end else begin
          arrived[c] = CntWidth'(rx_need);
        end
      end
      if (free_valid_i && !free_bad_class && (free_class_i == ClassWidth'(c))) begin
        if (CmpWidth'(free_need) > CmpWidth'(occ_q[c])) begin
          underflow_set[c] = 1'b1;
        end else begin
          freed[c] = CntWidth'(free_need);
        end
      end
      occ_d[c] = occ_q[c] + arrived[c] - freed[c];
      req[c]   = (pend_q[c] >= thr_q) ||
                 ((tmr_max_q != '0) && (pend_q[c] != '0) && (tmr_q[c] >= tmr_max_q)) ||
                 ((rfr_max_q != '0) && (rfr_q[c] >= rfr_max_q));
    end
    err_overflow_d  = err_overflow_q  | overflow_set;
    err_underflow_d = err_underflow_q | underflow_set;
    err_class_d     = err_class_q | (rx_valid_i && rx_bad_class) |
                      (free_valid_i && free_bad_class);
  end

  // 4. round-robin grant: first request in order rr_q, rr_q+1, ..., rr_q-1
  assign req_twice = {req, req};
  assign req_rot   = NumClasses'(req_twice >> rr_q);

  always_comb begin
    gnt_valid = 1'b0;
    gnt_class = '0;
    for (int i = NumClasses - 1; i >= 0; i--) begin
      if (req_rot[i]) begin
        gnt_valid = 1'b1;
        // (rr_q + i) mod NumClasses, with rr_q < NumClasses
        if (32'(rr_q) + 32'(i) >= NumClasses) begin
          gnt_class = ClassWidth'(32'(rr_q) + 32'(i) - NumClasses);
        end else begin
          gnt_class = ClassWidth'(32'(rr_q) + 32'(i));
        end
      end
    end
  end

  // 4./5./6. grant effects, pending credits, timers and refresh counters
  always_comb begin
    limit_d    = limit_q;
    cu_valid_d = gnt_valid;
    cu_class_d = cu_class_q;
    cu_limit_d = cu_limit_q;
    rr_d       = rr_q;
    if (gnt_valid) begin
      cu_class_d = gnt_class;
      rr_d       = (gnt_class == LastClass) ? '0 : gnt_class + 1'b1;
    end
    for (int unsigned c = 0; c < NumClasses; c++) begin
      gnt[c] = gnt_valid && (gnt_class == ClassWidth'(c));
      if (gnt[c]) begin
        limit_d[c] = limit_q[c] + pend_q[c];
        cu_limit_d = limit_q[c] + pend_q[c];
`ifdef CBFC_MUTANT
        // MUTANT: pend restarts from 0, this cycle's freed credits are lost.
        pend_d[c]  = '0;
`else
        pend_d[c]  = freed[c];
`endif
      end else begin
        pend_d[c]  = pend_q[c] + freed[c];
      end
      if (gnt[c] || (pend_q[c] == '0)) begin
        tmr_d[c] = '0;
      end else if (tmr_q[c] == '1) begin
        tmr_d[c] = tmr_q[c];  // saturate at 2^TimerWidth - 1
      end else begin
        tmr_d[c] = tmr_q[c] + 1'b1;
      end
      if (gnt[c]) begin
        rfr_d[c] = '0;
      end else if (rfr_q[c] == '1) begin
        rfr_d[c] = rfr_q[c];  // saturate at 2^RefreshWidth - 1
      end else begin
        rfr_d[c] = rfr_q[c] + 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int unsigned c = 0; c < NumClasses; c++) begin
        buf_q[c]   <= cfg_buf_credits_i[c*CntWidth +: CntWidth];
        limit_q[c] <= cfg_buf_credits_i[c*CntWidth +: CntWidth];
        occ_q[c]   <= '0;
        pend_q[c]  <= '0;
        tmr_q[c]   <= '0;
        rfr_q[c]   <= '0;
      end
      thr_q           <= (cfg_threshold_i == '0) ? CntWidth'(1) : cfg_threshold_i;
      tmr_max_q       <= cfg_timer_i;
      rfr_max_q       <= cfg_refresh_i;
      rr_q            <= '0;
      cu_valid_q      <= 1'b0;
      cu_class_q      <= '0;
      cu_limit_q      <= '0;
      err_overflow_q  <= '0;
      err_underflow_q <= '0;
      err_class_q     <= 1'b0;
    end else begin
      occ_q           <= occ_d;
      limit_q         <= limit_d;
      pend_q          <= pend_d;
      tmr_q           <= tmr_d;
      rfr_q           <= rfr_d;
      rr_q            <= rr_d;
      cu_valid_q      <= cu_valid_d;
      cu_class_q      <= cu_class_d;
      cu_limit_q      <= cu_limit_d;
      err_overflow_q  <= err_overflow_d;
      err_underflow_q <= err_underflow_d;
      err_class_q     <= err_class_d;
    end
  end

  // ---------------------------------------------------------------- outputs
  for (genvar c = 0; c < NumClasses; c++) begin : g_out
    assign occ_o [c*CntWidth +: CntWidth] = occ_q[c];
    assign pend_o[c*CntWidth +: CntWidth] = pend_q[c];
  end
  assign cu_valid_o      = cu_valid_q;
  assign cu_class_o      = cu_class_q;
  assign cu_limit_o      = cu_limit_q;
  assign err_overflow_o  = err_overflow_q;
  assign err_underflow_o = err_underflow_q;
  assign err_class_o     = err_class_q;

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef CBFC_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (rx_valid_i) begin
        assert (!rx_bad_class)
          else $error("cbfc_rx: rx_class_i=%0d >= NumClasses=%0d", rx_class_i, NumClasses);
      end
      if (free_valid_i) begin
        assert (!free_bad_class)
          else $error("cbfc_rx: free_class_i=%0d >= NumClasses=%0d", free_class_i, NumClasses);
      end
      assert (overflow_set == '0)
        else $error("cbfc_rx: buffer overflow, class %0d len %0d", rx_class_i, rx_len_i);
      assert (underflow_set == '0)
        else $error("cbfc_rx: buffer underflow, class %0d len %0d", free_class_i, free_len_i);
    end
  end
`endif
`endif

endmodule
