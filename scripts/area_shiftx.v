// yosys techmap rules for scripts/area.sh.
//
// A one-bit read of a wide bitmap ($shiftx, y = a[b], more than 64 bits of a) becomes a binary tree
// of 2:1 multiplexers, A_WIDTH - 1 cells, instead of yosys' default logarithmic shifter, which builds
// A_WIDTH multiplexers for every select bit before opt removes all but the same A_WIDTH - 1 (14 x
// 16,384 for one read of a 16,384-bit bitmap; the 1,024-XPU sue_tx has 170 such reads and ran out of
// time and memory in techmap). The result is about the same size (one 4,096-bit read after abc: 8,463
// generic cells against 8,407), reached in a fifth of the time and memory.
// A read of several bits (a byte of a beat) keeps the default: its shifter stages are shared by the
// output bits, one tree per bit would not be.
// Named _80_ so that techmap tries them before techmap.v's _90_ rules; they decline (the default then
// applies) where they do not fit. Proven equivalent (x where the default gives x) by
// tests/sue/area_shiftx_equiv.sh (lint.area_shiftx_equiv).
(* techmap_celltype = "$shiftx" *)
module _80_sue_shiftx_tree (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 128;
  parameter B_WIDTH = 7;
  parameter Y_WIDTH = 1;
  input  [A_WIDTH-1:0] A;
  input  [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  localparam K = $clog2(A_WIDTH);                 // select bits that address A
  localparam H = 1 << (K - 1);                    // bits in the lower half
  wire _TECHMAP_FAIL_ = A_WIDTH <= 64 || Y_WIDTH != 1 || K >= 31;
  genvar j;
  generate
    if (B_SIGNED) begin : g_signed
      // a negative B reads past A (x, any value will do); otherwise B is its low bits
      if (B_WIDTH == 1) begin : g_1
        assign Y = A[0];
      end else begin : g_n
        \$shiftx #(.A_SIGNED(0), .B_SIGNED(0), .A_WIDTH(A_WIDTH), .B_WIDTH(B_WIDTH - 1), .Y_WIDTH(1))
          u (.A(A), .B(B[B_WIDTH-2:0]), .Y(Y));
      end
    end else if (B_WIDTH < K) begin : g_narrow
      // a select of B_WIDTH bits reaches only the first 2**B_WIDTH bits of A
      \$shiftx #(.A_SIGNED(0), .B_SIGNED(0), .A_WIDTH(1 << B_WIDTH), .B_WIDTH(B_WIDTH), .Y_WIDTH(1))
        u (.A(A[(1 << B_WIDTH) - 1:0]), .B(B), .Y(Y));
    end else begin : g_tree
      // a heap of 2:1 multiplexers: node n (1 .. 2**K - 1) at depth d picks between its children
      // 2n and 2n + 1 by select bit K - 1 - d; the leaves 2**K + i are A[i]. A node whose right
      // subtree lies wholly past A passes its left child on (those indices read x). Select bits
      // above K address past A too (x, any value will do).
      wire [(2 << K) - 1:1] t;
      for (j = 0; j < (1 << K); j = j + 1) begin : g_leaf
        if (j < A_WIDTH) begin : g_a
          assign t[(1 << K) + j] = A[j];
        end else begin : g_x
          assign t[(1 << K) + j] = 1'bx;
        end
      end
      for (j = 1; j < (1 << K); j = j + 1) begin : g_node
        localparam D = $clog2(j + 1) - 1;                        // depth of node j
        localparam R = ((2 * (j - (1 << D)) + 1) << (K - D - 1)); // first leaf of the right child
        if (R >= A_WIDTH) begin : g_l
          assign t[j] = t[2 * j];
        end else begin : g_m
          assign t[j] = B[K - 1 - D] ? t[2 * j + 1] : t[2 * j];
        end
      end
      assign Y = t[1];
    end
  endgenerate
endmodule

// A one-hot decoder written as a shift of a constant 1 (mask = W'(1) << c): output i is (B == i),
// built as the product of two half decoders (one AND per output bit), instead of yosys' default
// shifter (Y_WIDTH multiplexers for every select bit: 14 x 16,384 for one 16,384-bit mask).
// Declines (the default then applies) up to 64 output bits, for a signed select or an A that is
// not the constant 1.
(* techmap_celltype = "$shl" *)
module _80_sue_onehot_dec (A, B, Y);
  parameter A_SIGNED = 0;
  parameter B_SIGNED = 0;
  parameter A_WIDTH = 1;
  parameter B_WIDTH = 7;
  parameter Y_WIDTH = 128;
  parameter _TECHMAP_CONSTMSK_A_ = 0;
  parameter _TECHMAP_CONSTVAL_A_ = 0;
  input  [A_WIDTH-1:0] A;
  input  [B_WIDTH-1:0] B;
  output [Y_WIDTH-1:0] Y;
  localparam K  = $clog2(Y_WIDTH);                // select bits that reach an output bit
  localparam KL = K / 2;                          // low half of the select
  localparam KH = K - KL;                         // high half
  wire _TECHMAP_FAIL_ = Y_WIDTH <= 64 || K >= 31 || B_SIGNED || A_WIDTH > 32 ||
                        _TECHMAP_CONSTMSK_A_ != {A_WIDTH{1'b1}} || _TECHMAP_CONSTVAL_A_ != 1;
  wire [K-1:0] bk;                                // the select, zero-extended to K bits
  wire         hz;                                // select bits above K are 0
  generate
    if (B_WIDTH >= K) begin : g_wide
      assign bk = B[K-1:0];
      if (B_WIDTH > K) begin : g_hi
        assign hz = ~|B[B_WIDTH-1:K];
      end else begin : g_nohi
        assign hz = 1'b1;
      end
    end else begin : g_narrow
      assign bk = {{(K - B_WIDTH){1'b0}}, B};
      assign hz = 1'b1;
    end
  endgenerate
  wire [(1 << KL) - 1:0] dl;
  wire [(1 << KH) - 1:0] dh;
  genvar i;
  generate
    for (i = 0; i < (1 << KL); i = i + 1) begin : g_dl
      assign dl[i] = bk[KL-1:0] == i;
    end
    for (i = 0; i < (1 << KH); i = i + 1) begin : g_dh
      assign dh[i] = hz && bk[K-1:KL] == i;
    end
    for (i = 0; i < Y_WIDTH; i = i + 1) begin : g_y
      assign Y[i] = dh[i >> KL] & dl[i & ((1 << KL) - 1)];
    end
  endgenerate
endmodule
