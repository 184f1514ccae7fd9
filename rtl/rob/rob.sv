// rob -- target-side reorder buffer of the light-weight ordering protocols.
//
// Holds the REQs of a target connection that arrive ahead of the expected
// SEQ and releases them in order, one per cycle, after the missing REQ
// arrives. Held packets sit in slots taken from a free-list ring; a slot is
// found through a hash table indexed by h({src, cid, seq}) (XOR fold of the
// key in HashBits chunks), backed by a small associative cache for keys whose
// bucket is taken. A table of target connections keeps the expected SEQ and
// the number of held packets of each connection; the first REQ of an unknown
// {src, cid} opens an entry, a FIN closes it (at once, or when the buffer
// holds nothing more of it).
//
// Cycle-level contract: docs/rob.md (section "One rising edge"; the comments
// below carry its step numbers). The C++ twin rob::Model (models/rob/)
// implements the same text and is compared against this module on every
// output, every cycle. Right-hand sides read pre-edge values (_q) and inputs.
// Steps 1 (release chain) and 2 (arrival) never act in the same edge
// (in_ready_q == !chain_valid_q), so they share one table lookup and one
// write port per table.
//
// Simulation-only protocol assertions are compiled in with +define+ROB_ASSERT.
// +define+ROB_MUTANT plants a deliberate bug for the testbench self-check: the
// release chain ends after its first release even when more packets of the
// connection are held (they stay stranded until the next in-order arrival of
// that connection).

module rob #(
  parameter int unsigned SrcBits    = 11,
  parameter int unsigned CidBits    = 4,
  parameter int unsigned SeqBits    = 8,
  parameter int unsigned Capacity   = 50,
  parameter int unsigned HashBits   = 6,
  parameter int unsigned CamEntries = 4,
  parameter int unsigned NumConn    = 16,
  parameter int unsigned TokenWidth = 32,
  localparam int unsigned SlotBits  = (Capacity > 1) ? $clog2(Capacity) : 1,
  localparam int unsigned ConnBits  = (NumConn > 1) ? $clog2(NumConn) : 1
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // arriving packet
  input  logic                  in_valid_i,
  input  logic                  in_fin_i,
  input  logic [SrcBits-1:0]    in_src_i,
  input  logic [CidBits-1:0]    in_cid_i,
  input  logic [SeqBits-1:0]    in_seq_i,
  input  logic [TokenWidth-1:0] in_token_i,
  output logic                  in_ready_o,
  // in-order release to the target memory
  output logic                  rel_valid_o,
  output logic [SrcBits-1:0]    rel_src_o,
  output logic [CidBits-1:0]    rel_cid_o,
  output logic [SeqBits-1:0]    rel_seq_o,
  output logic [TokenWidth-1:0] rel_token_o,
  // outcome of the packet taken at the last edge
  output logic                  resp_valid_o,
  output logic [2:0]            resp_kind_o,
  output logic [SrcBits-1:0]    resp_src_o,
  output logic [CidBits-1:0]    resp_cid_o,
  output logic [SeqBits-1:0]    resp_seq_o,
  // status
  output logic [SlotBits:0]     occupancy_o,
  output logic [SlotBits:0]     max_occupancy_o,
  output logic [ConnBits:0]     conns_o,
  // counters (order of rob::Counter in models/rob/rob.hpp)
  output logic [31:0]           cnt_delivered_o,
  output logic [31:0]           cnt_held_o,
  output logic [31:0]           cnt_released_o,
  output logic [31:0]           cnt_duplicate_o,
  output logic [31:0]           cnt_no_conn_o,
  output logic [31:0]           cnt_overflow_full_o,
  output logic [31:0]           cnt_overflow_collision_o,
  output logic [31:0]           cnt_cam_inserts_o,
  output logic [31:0]           cnt_fins_o
);

  // ---------------------------------------------------------------- constants
  localparam int unsigned KeyW       = SrcBits + CidBits + SeqBits;
  localparam int unsigned NumBuckets = 2 ** HashBits;
  localparam int unsigned NumChunks  = (KeyW + HashBits - 1) / HashBits;
  localparam int unsigned PadW       = NumChunks * HashBits;  // key zero-padded to whole chunks
  localparam int unsigned CamBits    = (CamEntries > 1) ? $clog2(CamEntries) : 1;
  localparam int unsigned CntW       = SlotBits + 1;          // 0 .. Capacity

  localparam logic [CntW-1:0] CapacityC = CntW'(Capacity);

  // resp_kind_o
  localparam logic [2:0] RespDelivered         = 3'd0;
  localparam logic [2:0] RespHeld              = 3'd1;
  localparam logic [2:0] RespDuplicate         = 3'd2;
  localparam logic [2:0] RespNoConn            = 3'd3;
  localparam logic [2:0] RespOverflowFull      = 3'd4;
  localparam logic [2:0] RespOverflowCollision = 3'd5;
  localparam logic [2:0] RespFinDone           = 3'd6;
  localparam logic [2:0] RespFinUnknown        = 3'd7;

  // Counter indices: rob::Counter (models/rob/rob.hpp).
  localparam int unsigned CntDelivered         = 0;
  localparam int unsigned CntHeld              = 1;
  localparam int unsigned CntReleased          = 2;
  localparam int unsigned CntDuplicate         = 3;
  localparam int unsigned CntNoConn            = 4;
  localparam int unsigned CntOverflowFull      = 5;
  localparam int unsigned CntOverflowCollision = 6;
  localparam int unsigned CntCamInserts        = 7;
  localparam int unsigned CntFins              = 8;
  localparam int unsigned NumCnt               = 9;

  // h(key): XOR of the key's HashBits-bit chunks, least significant chunk
  // first, the last (most significant) chunk padded with zeros.
  function automatic logic [HashBits-1:0] hash(input logic [KeyW-1:0] key);
    logic [PadW-1:0]     padded;
    logic [HashBits-1:0] h;
    padded = PadW'(key);
    h      = '0;
    for (int unsigned i = 0; i < NumChunks; i++) begin
      h = h ^ padded[i*HashBits +: HashBits];
    end
    return h;
  endfunction

  // ---------------------------------------------------------------- state
  // connection table
  logic [NumConn-1:0]    conn_valid_q;
  logic [NumConn-1:0]    conn_closing_q;
  logic [SrcBits-1:0]    conn_src_q  [NumConn];
  logic [CidBits-1:0]    conn_cid_q  [NumConn];
  logic [SeqBits-1:0]    conn_exp_q  [NumConn];
  logic [CntW-1:0]       conn_held_q [NumConn];
  // hash buckets (key and slot only read while valid: no reset)
  logic [NumBuckets-1:0] bkt_valid_q;
  logic [KeyW-1:0]       bkt_key_q  [NumBuckets];
  logic [SlotBits-1:0]   bkt_slot_q [NumBuckets];
  // associative cache (key and slot only read while valid: no reset)
  logic [CamEntries-1:0] cam_valid_q;
  logic [KeyW-1:0]       cam_key_q  [CamEntries];
  logic [SlotBits-1:0]   cam_slot_q [CamEntries];
  // slots (a token is only read after it was written: no reset)
  logic [TokenWidth-1:0] tok_q [Capacity];
  // free-list ring
  logic [SlotBits-1:0]   free_q [Capacity];
  logic [SlotBits-1:0]   free_head_q,  free_head_d;
  logic [CntW-1:0]       free_count_q, free_count_d;
  // release chain
  logic                  chain_valid_q, chain_valid_d;
  logic [ConnBits-1:0]   chain_conn_q,  chain_conn_d;
  // output registers
  logic                  in_ready_q,    in_ready_d;
  logic                  rel_valid_q,   rel_valid_d;
  logic [SrcBits-1:0]    rel_src_q,     rel_src_d;
  logic [CidBits-1:0]    rel_cid_q,     rel_cid_d;
  logic [SeqBits-1:0]    rel_seq_q,     rel_seq_d;
  logic [TokenWidth-1:0] rel_token_q,   rel_token_d;
  logic                  resp_valid_q,  resp_valid_d;
  logic [2:0]            resp_kind_q,   resp_kind_d;
  logic [SrcBits-1:0]    resp_src_q,    resp_src_d;
  logic [CidBits-1:0]    resp_cid_q,    resp_cid_d;
  logic [SeqBits-1:0]    resp_seq_q,    resp_seq_d;
  logic [CntW-1:0]       occupancy_q,   occupancy_d;
  logic [CntW-1:0]       max_occ_q,     max_occ_d;
  logic [ConnBits:0]     conns_q,       conns_d;
  logic [31:0]           cnt_q   [NumCnt];
  logic [31:0]           cnt_d   [NumCnt];
  logic                  cnt_inc [NumCnt];

  // ---------------------------------------------------------------- connection lookup (step 2)
  // Lowest-index valid entry with the packet's {src, cid}; lowest-index free entry.
  logic                cl_found;
  logic [ConnBits-1:0] cl_idx;
  logic                cf_any;
  logic [ConnBits-1:0] cf_idx;

  always_comb begin
    cl_found = 1'b0;
    cl_idx   = '0;
    cf_any   = 1'b0;
    cf_idx   = '0;
    for (int unsigned i = 0; i < NumConn; i++) begin
      if (!cl_found && conn_valid_q[i] &&
          (conn_src_q[i] == in_src_i) && (conn_cid_q[i] == in_cid_i)) begin
        cl_found = 1'b1;
        cl_idx   = ConnBits'(i);
      end
      if (!cf_any && !conn_valid_q[i]) begin
        cf_any = 1'b1;
        cf_idx = ConnBits'(i);
      end
    end
  end

  // ---------------------------------------------------------------- the connection of this edge
  // Step 1: c = chain_conn_q. Step 2: the entry found, else the one opened
  // (fields exp = 0, held = 0, closing = 0).
  logic                op_new;
  logic [ConnBits-1:0] op_conn;
  logic [SrcBits-1:0]  op_src;
  logic [CidBits-1:0]  op_cid;
  logic [SeqBits-1:0]  op_exp;
  logic [CntW-1:0]     op_held;
  logic                op_closing;
  logic [SeqBits-1:0]  op_seq;   // SEQ of the key looked up

  assign op_new     = !chain_valid_q && !cl_found;
  assign op_conn    = chain_valid_q ? chain_conn_q : (cl_found ? cl_idx : cf_idx);
  assign op_src     = chain_valid_q ? conn_src_q[chain_conn_q] : in_src_i;
  assign op_cid     = chain_valid_q ? conn_cid_q[chain_conn_q] : in_cid_i;
  assign op_exp     = op_new ? '0   : conn_exp_q[op_conn];
  assign op_held    = op_new ? '0   : conn_held_q[op_conn];
  assign op_closing = op_new ? 1'b0 : conn_closing_q[op_conn];
  assign op_seq     = chain_valid_q ? op_exp : in_seq_i;

  // ---------------------------------------------------------------- lookup of a key (steps 1, 2)
  // The bucket h(key) if valid and holding key; else the lowest-index valid
  // cache entry holding key. Also the lowest-index invalid cache entry.
  logic [KeyW-1:0]     key;
  logic [HashBits-1:0] hidx;
  logic                bkt_hit;
  logic                cam_hit;
  logic [CamBits-1:0]  cam_hidx;
  logic                cam_free_any;
  logic [CamBits-1:0]  cam_fidx;
  logic                found;
  logic [SlotBits-1:0] found_slot;

  assign key     = {op_src, op_cid, op_seq};
  assign hidx    = hash(key);
  assign bkt_hit = bkt_valid_q[hidx] && (bkt_key_q[hidx] == key);

  always_comb begin
    cam_hit      = 1'b0;
    cam_hidx     = '0;
    cam_free_any = 1'b0;
    cam_fidx     = '0;
    for (int unsigned i = 0; i < CamEntries; i++) begin
      if (!cam_hit && cam_valid_q[i] && (cam_key_q[i] == key)) begin
        cam_hit  = 1'b1;
        cam_hidx = CamBits'(i);
      end
      if (!cam_free_any && !cam_valid_q[i]) begin
        cam_free_any = 1'b1;
        cam_fidx     = CamBits'(i);
      end
    end
  end

  assign found      = bkt_hit || cam_hit;
  assign found_slot = bkt_hit ? bkt_slot_q[hidx] : cam_slot_q[cam_hidx];

  // ---------------------------------------------------------------- free-list ring
  logic [SlotBits-1:0] pop_slot;   // free[free_head]
  logic [SlotBits-1:0] head_inc;   // (free_head + 1) mod Capacity
  logic [CntW-1:0]     push_sum;   // free_head + free_count
  logic [SlotBits-1:0] push_idx;   // (free_head + free_count) mod Capacity

  assign pop_slot = free_q[free_head_q];
  assign head_inc = (free_head_q == SlotBits'(Capacity - 1)) ? '0 : free_head_q + 1'b1;
  assign push_sum = CntW'(free_head_q) + free_count_q;
  assign push_idx = (push_sum >= CapacityC) ? SlotBits'(push_sum - CapacityC) : SlotBits'(push_sum);

  // ---------------------------------------------------------------- steps 1-3
  logic               take;      // an arrival is taken at this edge
  logic [SeqBits-1:0] seq_dist;  // (seq - exp_c) mod 2^SeqBits

  assign take = in_valid_i && in_ready_q;
  assign seq_dist = in_seq_i - op_exp;

  // one write port per table (steps 1 and 2 are exclusive)
  logic                conn_we;
  logic                conn_w_valid;
  logic                conn_w_closing;
  logic [SeqBits-1:0]  conn_w_exp;
  logic [CntW-1:0]     conn_w_held;
  logic                bkt_clr, bkt_set;   // invalidate / store at hidx
  logic                cam_clr, cam_set;   // invalidate at cam_hidx / store at cam_fidx
  logic                free_push, free_pop;

  always_comb begin
    conn_we        = 1'b0;
    conn_w_valid   = 1'b1;
    conn_w_closing = op_closing;
    conn_w_exp     = op_exp;
    conn_w_held    = op_held;
    bkt_clr        = 1'b0;
    bkt_set        = 1'b0;
    cam_clr        = 1'b0;
    cam_set        = 1'b0;
    free_push      = 1'b0;
    free_pop       = 1'b0;

    chain_valid_d  = chain_valid_q;
    chain_conn_d   = chain_conn_q;
    // 3. fields not named for an event hold
    rel_valid_d    = 1'b0;
    rel_src_d      = rel_src_q;
    rel_cid_d      = rel_cid_q;
    rel_seq_d      = rel_seq_q;
    rel_token_d    = rel_token_q;
    resp_valid_d   = 1'b0;
    resp_kind_d    = resp_kind_q;
    resp_src_d     = resp_src_q;
    resp_cid_d     = resp_cid_q;
    resp_seq_d     = resp_seq_q;
    for (int unsigned i = 0; i < NumCnt; i++) begin
      cnt_inc[i] = 1'b0;
    end

    // 1. release chain
    if (chain_valid_q) begin
      if (found) begin
        rel_valid_d = 1'b1;
        rel_src_d   = op_src;
        rel_cid_d   = op_cid;
        rel_seq_d   = op_exp;
        rel_token_d = tok_q[found_slot];
        bkt_clr     = bkt_hit;
        cam_clr     = !bkt_hit;
        free_push   = 1'b1;
        conn_we     = 1'b1;
        conn_w_exp  = op_exp + 1'b1;
        conn_w_held = op_held - 1'b1;
        cnt_inc[CntReleased] = 1'b1;
        if (conn_w_held != '0) begin
`ifdef ROB_MUTANT
          // MUTANT: the chain ends after one release; the rest stays stranded.
          chain_valid_d = 1'b0;
`else
          chain_valid_d = 1'b1;
`endif
        end else begin
          chain_valid_d = 1'b0;
          if (op_closing) begin
            conn_w_valid = 1'b0;
          end
        end
      end else begin
        chain_valid_d = 1'b0;
      end
    end

    // 2. arrival
    if (take) begin
      resp_valid_d = 1'b1;
      resp_src_d   = in_src_i;
      resp_cid_d   = in_cid_i;
      resp_seq_d   = in_seq_i;
      if (in_fin_i) begin
        // FIN
        if (cl_found) begin
          conn_we = 1'b1;
          if (op_held == '0) begin
            conn_w_valid = 1'b0;
          end else begin
            conn_w_closing = 1'b1;
          end
          resp_kind_d = RespFinDone;
          cnt_inc[CntFins] = 1'b1;
        end else begin
          resp_kind_d = RespFinUnknown;
        end
      end else if (!cl_found && !cf_any) begin
        // REQ, no connection entry
        resp_kind_d = RespNoConn;
        cnt_inc[CntNoConn] = 1'b1;
      end else begin
        // REQ; a connection opened here stays open whatever the outcome
        conn_we = op_new;
        if (seq_dist == '0) begin
          resp_kind_d = RespDelivered;
          rel_valid_d = 1'b1;
          rel_src_d   = in_src_i;
          rel_cid_d   = in_cid_i;
          rel_seq_d   = in_seq_i;
          rel_token_d = in_token_i;
          conn_we     = 1'b1;
          conn_w_exp  = op_exp + 1'b1;
          cnt_inc[CntDelivered] = 1'b1;
          if (op_held != '0) begin
            chain_valid_d = 1'b1;
            chain_conn_d  = op_conn;
          end
        end else if (!seq_dist[SeqBits-1]) begin
          // ahead of the expected SEQ
          if (found) begin
            resp_kind_d = RespDuplicate;
            cnt_inc[CntDuplicate] = 1'b1;
          end else if (free_count_q == '0) begin
            resp_kind_d = RespOverflowFull;
            cnt_inc[CntOverflowFull] = 1'b1;
          end else if (!bkt_valid_q[hidx] || cam_free_any) begin
            bkt_set     = !bkt_valid_q[hidx];
            cam_set     = bkt_valid_q[hidx];
            free_pop    = 1'b1;
            conn_we     = 1'b1;
            conn_w_held = op_held + 1'b1;
            resp_kind_d = RespHeld;
            cnt_inc[CntHeld]       = 1'b1;
            cnt_inc[CntCamInserts] = bkt_valid_q[hidx];
          end else begin
            resp_kind_d = RespOverflowCollision;
            cnt_inc[CntOverflowCollision] = 1'b1;
          end
        end else begin
          // behind the expected SEQ
          resp_kind_d = RespDuplicate;
          cnt_inc[CntDuplicate] = 1'b1;
        end
      end
    end

    for (int unsigned i = 0; i < NumCnt; i++) begin
      cnt_d[i] = cnt_q[i] + 32'(cnt_inc[i]);  // wraps at 2^32
    end
  end

  // free list pointers
  always_comb begin
    free_head_d  = free_head_q;
    free_count_d = free_count_q;
    if (free_pop) begin
      free_head_d  = head_inc;
      free_count_d = free_count_q - 1'b1;
    end
    if (free_push) begin
      free_count_d = free_count_q + 1'b1;
    end
  end

  // ---------------------------------------------------------------- 4. status
  logic [NumConn-1:0] conn_valid_d;

  always_comb begin
    conn_valid_d = conn_valid_q;
    if (conn_we) begin
      conn_valid_d[op_conn] = conn_w_valid;
    end
    conns_d = '0;
    for (int unsigned i = 0; i < NumConn; i++) begin
      conns_d = conns_d + (ConnBits + 1)'(conn_valid_d[i]);
    end
  end

  assign in_ready_d  = !chain_valid_d;
  assign occupancy_d = CapacityC - free_count_d;
  assign max_occ_d   = (occupancy_d > max_occ_q) ? occupancy_d : max_occ_q;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      conn_valid_q  <= '0;
      bkt_valid_q   <= '0;
      cam_valid_q   <= '0;
      free_head_q   <= '0;
      free_count_q  <= CapacityC;
      chain_valid_q <= 1'b0;
      chain_conn_q  <= '0;
      in_ready_q    <= 1'b1;
      rel_valid_q   <= 1'b0;
      rel_src_q     <= '0;
      rel_cid_q     <= '0;
      rel_seq_q     <= '0;
      rel_token_q   <= '0;
      resp_valid_q  <= 1'b0;
      resp_kind_q   <= '0;
      resp_src_q    <= '0;
      resp_cid_q    <= '0;
      resp_seq_q    <= '0;
      occupancy_q   <= '0;
      max_occ_q     <= '0;
      conns_q       <= '0;
      for (int unsigned i = 0; i < NumCnt; i++) begin
        cnt_q[i] <= '0;
      end
    end else begin
      conn_valid_q <= conn_valid_d;
      // bucket / cache valid bits
      if (bkt_clr) begin
        bkt_valid_q[hidx] <= 1'b0;
      end
      if (bkt_set) begin
        bkt_valid_q[hidx] <= 1'b1;
      end
      if (cam_clr) begin
        cam_valid_q[cam_hidx] <= 1'b0;
      end
      if (cam_set) begin
        cam_valid_q[cam_fidx] <= 1'b1;
      end
      free_head_q   <= free_head_d;
      free_count_q  <= free_count_d;
      chain_valid_q <= chain_valid_d;
      chain_conn_q  <= chain_conn_d;
      in_ready_q    <= in_ready_d;
      rel_valid_q   <= rel_valid_d;
      rel_src_q     <= rel_src_d;
      rel_cid_q     <= rel_cid_d;
      rel_seq_q     <= rel_seq_d;
      rel_token_q   <= rel_token_d;
      resp_valid_q  <= resp_valid_d;
      resp_kind_q   <= resp_kind_d;
      resp_src_q    <= resp_src_d;
      resp_cid_q    <= resp_cid_d;
      resp_seq_q    <= resp_seq_d;
      occupancy_q   <= occupancy_d;
      max_occ_q     <= max_occ_d;
      conns_q       <= conns_d;
      cnt_q         <= cnt_d;
    end
  end

  // Connection table entries (one entry written per edge; per-entry blocks so
  // the reset does not need a loop over NumConn).
  for (genvar i = 0; i < NumConn; i++) begin : g_conn
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        conn_closing_q[i] <= 1'b0;
        conn_src_q[i]     <= '0;
        conn_cid_q[i]     <= '0;
        conn_exp_q[i]     <= '0;
        conn_held_q[i]    <= '0;
      end else if (conn_we && (op_conn == ConnBits'(i))) begin
        conn_closing_q[i] <= conn_w_closing;
        conn_src_q[i]     <= op_src;
        conn_cid_q[i]     <= op_cid;
        conn_exp_q[i]     <= conn_w_exp;
        conn_held_q[i]    <= conn_w_held;
      end
    end
  end

  // Free-list ring: reset to 0, 1, ..., Capacity-1; a released slot is pushed
  // at (free_head + free_count) mod Capacity.
  for (genvar i = 0; i < Capacity; i++) begin : g_free
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        free_q[i] <= SlotBits'(i);
      end else if (free_push && (push_idx == SlotBits'(i))) begin
        free_q[i] <= found_slot;
      end
    end
  end

  // Data arrays without reset: a store writes the key and slot of the bucket
  // or cache entry and the token of the slot popped from the free list.
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (bkt_set) begin
        bkt_key_q[hidx]  <= key;
        bkt_slot_q[hidx] <= pop_slot;
      end
      if (cam_set) begin
        cam_key_q[cam_fidx]  <= key;
        cam_slot_q[cam_fidx] <= pop_slot;
      end
      if (free_pop) begin
        tok_q[pop_slot] <= in_token_i;
      end
    end
  end

  // ---------------------------------------------------------------- outputs
  assign in_ready_o      = in_ready_q;
  assign rel_valid_o     = rel_valid_q;
  assign rel_src_o       = rel_src_q;
  assign rel_cid_o       = rel_cid_q;
  assign rel_seq_o       = rel_seq_q;
  assign rel_token_o     = rel_token_q;
  assign resp_valid_o    = resp_valid_q;
  assign resp_kind_o     = resp_kind_q;
  assign resp_src_o      = resp_src_q;
  assign resp_cid_o      = resp_cid_q;
  assign resp_seq_o      = resp_seq_q;
  assign occupancy_o     = occupancy_q;
  assign max_occupancy_o = max_occ_q;
  assign conns_o         = conns_q;

  assign cnt_delivered_o          = cnt_q[CntDelivered];
  assign cnt_held_o               = cnt_q[CntHeld];
  assign cnt_released_o           = cnt_q[CntReleased];
  assign cnt_duplicate_o          = cnt_q[CntDuplicate];
  assign cnt_no_conn_o            = cnt_q[CntNoConn];
  assign cnt_overflow_full_o      = cnt_q[CntOverflowFull];
  assign cnt_overflow_collision_o = cnt_q[CntOverflowCollision];
  assign cnt_cam_inserts_o        = cnt_q[CntCamInserts];
  assign cnt_fins_o               = cnt_q[CntFins];

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef ROB_ASSERT
  // Packets held by valid connections (a freed entry holds none).
  logic [31:0] held_sum;
  always_comb begin
    held_sum = '0;
    for (int unsigned i = 0; i < NumConn; i++) begin
      if (conn_valid_q[i]) begin
        held_sum = held_sum + 32'(conn_held_q[i]);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (32'(free_count_q) + held_sum == 32'(Capacity))
        else $error("rob: free_count %0d + held %0d != Capacity %0d",
                    free_count_q, held_sum, Capacity);
      if (chain_valid_q && found) begin
        assert (op_held != '0)
          else $error("rob: held underflow, connection %0d", op_conn);
      end
      if (take && !in_fin_i && !seq_dist[SeqBits-1] && (seq_dist != '0) && !found &&
          (free_count_q != '0) && (!bkt_valid_q[hidx] || cam_free_any)) begin
        assert (op_held != CapacityC)
          else $error("rob: held overflow, connection %0d", op_conn);
      end
      assert (in_ready_q == !chain_valid_q)
        else $error("rob: in_ready %0d with chain_valid %0d", in_ready_q, chain_valid_q);
      assert (!(take && chain_valid_q))
        else $error("rob: packet taken while in_ready_o is low (release chain running)");
    end
  end
`endif
`endif

endmodule
