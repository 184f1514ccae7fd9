// cbfc_tx -- credit-based flow control, sender side.
//
// Keeps, per class, the cumulative credits consumed and the last accepted
// cumulative credit limit from the receiver; available credits are
// limit - consumed (mod 2^CntWidth). A frame consumes credits(len) =
// ceil(len / 2^CreditUnitLog2) credits; a credit update is accepted only if
// it would not grant more than the initial (buffer) credits. Underflow,
// overflow and bad class indices are reported through sticky error outputs.
//
// Cycle-level contract: docs/cbfc.md (section "cbfc_tx -- sender"). The C++
// twin cbfc::TxModel (models/cbfc/) implements the same text and is compared
// against this module on every output, every cycle.
//
// Simulation-only protocol assertions are compiled in with +define+CBFC_ASSERT.

module cbfc_tx #(
  parameter int unsigned NumClasses     = 4,
  parameter int unsigned CntWidth       = 16,
  parameter int unsigned LenWidth       = 14,
  parameter int unsigned CreditUnitLog2 = 6,
  localparam int unsigned ClassWidth    = (NumClasses > 1) ? $clog2(NumClasses) : 1
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // configuration, sampled on reset edges
  input  logic [NumClasses*CntWidth-1:0] cfg_init_credits_i,
  input  logic [LenWidth-1:0]            cfg_mtu_i,
  // frame transmission
  input  logic                           tx_valid_i,
  input  logic [ClassWidth-1:0]          tx_class_i,
  input  logic [LenWidth-1:0]            tx_len_i,
  // credit update from the receiver
  input  logic                           cu_valid_i,
  input  logic [ClassWidth-1:0]          cu_class_i,
  input  logic [CntWidth-1:0]            cu_limit_i,
  // status
  output logic [NumClasses*CntWidth-1:0] avail_o,
  output logic [NumClasses-1:0]          elig_o,
  output logic [NumClasses-1:0]          err_underflow_o,
  output logic [NumClasses-1:0]          err_overflow_o,
  output logic                           err_class_o
);

  // Width used for comparisons between credit counts and frame credits.
  localparam int unsigned CmpWidth = ((CntWidth > LenWidth) ? CntWidth : LenWidth) + 1;
  // Byte offset bits inside one credit unit.
  localparam logic [LenWidth-1:0] UnitMask = LenWidth'((64'd1 << CreditUnitLog2) - 64'd1);

  // credits(len) = ceil(len / 2^CreditUnitLog2). Always fits in LenWidth bits.
  function automatic logic [LenWidth-1:0] credits(input logic [LenWidth-1:0] len);
    return (len >> CreditUnitLog2) + LenWidth'((len & UnitMask) != '0);
  endfunction

  // ---------------------------------------------------------------- state
  logic [CntWidth-1:0] init_q     [NumClasses];
  logic [CntWidth-1:0] limit_q    [NumClasses];
  logic [CntWidth-1:0] limit_d    [NumClasses];
  logic [CntWidth-1:0] consumed_q [NumClasses];
  logic [CntWidth-1:0] consumed_d [NumClasses];
  logic [LenWidth-1:0] mtu_credits_q;
  logic [NumClasses-1:0] err_underflow_q, err_underflow_d;
  logic [NumClasses-1:0] err_overflow_q,  err_overflow_d;
  logic                  err_class_q,     err_class_d;

  // ---------------------------------------------------------------- next state
  logic                  tx_bad_class, cu_bad_class;
  logic [LenWidth-1:0]   tx_need;
  logic [CntWidth-1:0]   avail    [NumClasses];
  logic [CntWidth-1:0]   cu_navail[NumClasses];
  logic [NumClasses-1:0] underflow_set, overflow_set;

  // Class indices >= NumClasses only exist when NumClasses is not a power of two.
  if ((1 << ClassWidth) > NumClasses) begin : g_bad_class
    assign tx_bad_class = tx_class_i >= ClassWidth'(NumClasses);
    assign cu_bad_class = cu_class_i >= ClassWidth'(NumClasses);
  end else begin : g_no_bad_class
    assign tx_bad_class = 1'b0;
    assign cu_bad_class = 1'b0;
  end

  assign tx_need = credits(tx_len_i);

  always_comb begin
    limit_d        = limit_q;
    consumed_d     = consumed_q;
    underflow_set  = '0;
    overflow_set   = '0;
    for (int unsigned c = 0; c < NumClasses; c++) begin
      avail[c]     = limit_q[c] - consumed_q[c];
      cu_navail[c] = cu_limit_i - consumed_q[c];  // pre-edge consumed
      // 1. transmit
      if (tx_valid_i && !tx_bad_class && (tx_class_i == ClassWidth'(c))) begin
        if (CmpWidth'(tx_need) <= CmpWidth'(avail[c])) begin
          consumed_d[c] = consumed_q[c] + CntWidth'(tx_need);
        end else begin
          underflow_set[c] = 1'b1;
        end
      end
      // 2. credit update
      if (cu_valid_i && !cu_bad_class && (cu_class_i == ClassWidth'(c))) begin
        if (cu_navail[c] <= init_q[c]) begin
          limit_d[c] = cu_limit_i;
        end else begin
          overflow_set[c] = 1'b1;
        end
      end
    end
    err_underflow_d = err_underflow_q | underflow_set;
    err_overflow_d  = err_overflow_q  | overflow_set;
    err_class_d     = err_class_q | (tx_valid_i && tx_bad_class) | (cu_valid_i && cu_bad_class);
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      for (int unsigned c = 0; c < NumClasses; c++) begin
        init_q[c]     <= cfg_init_credits_i[c*CntWidth +: CntWidth];
        limit_q[c]    <= cfg_init_credits_i[c*CntWidth +: CntWidth];
        consumed_q[c] <= '0;
      end
      mtu_credits_q   <= credits(cfg_mtu_i);
      err_underflow_q <= '0;
      err_overflow_q  <= '0;
      err_class_q     <= 1'b0;
    end else begin
      limit_q         <= limit_d;
      consumed_q      <= consumed_d;
      err_underflow_q <= err_underflow_d;
      err_overflow_q  <= err_overflow_d;
      err_class_q     <= err_class_d;
    end
  end

  // ---------------------------------------------------------------- outputs
  for (genvar c = 0; c < NumClasses; c++) begin : g_out
    assign avail_o[c*CntWidth +: CntWidth] = avail[c];
    assign elig_o[c] = CmpWidth'(avail[c]) >= CmpWidth'(mtu_credits_q);
  end
  assign err_underflow_o = err_underflow_q;
  assign err_overflow_o  = err_overflow_q;
  assign err_class_o     = err_class_q;

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef CBFC_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (tx_valid_i) begin
        assert (!tx_bad_class)
          else $error("cbfc_tx: tx_class_i=%0d >= NumClasses=%0d", tx_class_i, NumClasses);
      end
      if (cu_valid_i) begin
        assert (!cu_bad_class)
          else $error("cbfc_tx: cu_class_i=%0d >= NumClasses=%0d", cu_class_i, NumClasses);
      end
      assert (underflow_set == '0)
        else $error("cbfc_tx: credit underflow, class %0d len %0d", tx_class_i, tx_len_i);
      assert (overflow_set == '0)
        else $error("cbfc_tx: credit overflow, class %0d limit %0d", cu_class_i, cu_limit_i);
    end
  end
`endif
`endif

endmodule
