// sue_ff1 -- find-first over a bitmap: the index of the lowest set bit (0 when none), a binary search
// of IW steps (keep the lower half if it holds a set bit, else the upper half). sue_tx's scans over its
// queues and connections are instances of it (docs/sue.md "Connection state in memories (sue_tx)",
// scans). Each step is an expression, not an assignment under an if (yosys' proc_mux pays for a wide
// assignment under an if bit by bit).
module sue_ff1 #(
  parameter int IW = 3,             // index bits
  parameter int W  = 1 << IW        // bitmap width (derived: do not override)
) (
  input  logic [W-1:0]  x_i,
  output logic [IW-1:0] idx_o
);
  logic [W-1:0]  fv, fl;
  logic [IW-1:0] ix;
  always_comb begin
    fv = x_i;
    ix = '0;
    for (int l = IW - 1; l >= 0; l--) begin
      fl    = fv & ((W'(1) << (1 << l)) - W'(1));
      ix[l] = !(|fl);
      fv    = (|fl) ? fl : (fv >> (1 << l));
    end
    idx_o = (|x_i) ? ix : '0;
  end
endmodule
