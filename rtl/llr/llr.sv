// llr -- link layer retry, one link partner (TX half + RX half).
//
// TX half: numbers eligible frames from the MAC client, keeps a copy of each
// in the replay buffer until the partner acknowledges it, and replays from the
// buffer on a NACK or when the replay timer expires; too many replays without
// progress flush the buffer (and optionally restart the INIT handshake).
// RX half: checks the sequence of arriving eligible frames, delivers them in
// order, drops duplicates and frames after a gap, and schedules ACK / NACK
// control words that leave through the local TX half.
//
// Cycle-level contract: docs/llr.md (section "One rising edge"; the comments
// below carry its step numbers). The C++ twin llr::Model (models/llr/)
// implements the same text and is compared against this module on every
// output, every cycle. Right-hand sides read pre-edge values (_q) and inputs;
// where two steps write the same register the later step wins unless the
// document says otherwise.
//
// Simulation-only protocol assertions are compiled in with +define+LLR_ASSERT.
// +define+LLR_MUTANT plants a deliberate bug for the testbench self-check: a
// NACK(e) replay event starts the replay at e+1 (the NACKed frame is skipped).

module llr #(
  parameter int unsigned SeqBits    = 20,
  parameter int unsigned BufLog2    = 6,
  parameter int unsigned LenWidth   = 14,
  parameter int unsigned TokenWidth = 64,
  parameter int unsigned ClassWidth = 3,
  parameter int unsigned TimerWidth = 20,
  parameter int unsigned CntWidth   = 32
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  // configuration, sampled on reset edges
  input  logic [BufLog2:0]             cfg_frames_max_i,
  input  logic [23:0]                  cfg_bytes_max_i,
  input  logic [TimerWidth-1:0]        cfg_replay_timer_i,
  input  logic [7:0]                   cfg_replay_count_max_i,
  input  logic [15:0]                  cfg_ack_spacing_i,
  input  logic                         cfg_ack_bytes_i,
  input  logic                         cfg_best_effort_i,
  input  logic                         cfg_re_init_i,
  // MAC client -> TX
  input  logic                         c_valid_i,
  input  logic                         c_eligible_i,
  input  logic [ClassWidth-1:0]        c_class_i,
  input  logic [LenWidth-1:0]          c_len_i,
  input  logic [TokenWidth-1:0]        c_token_i,
  output logic                         c_ready_o,
  // PFC pause per class, from the partner
  input  logic [(2**ClassWidth)-1:0]   pause_i,
  // TX -> wire
  input  logic                         w_ready_i,
  output logic                         w_valid_o,
  output logic                         w_is_ctl_o,
  output logic                         w_eligible_o,
  output logic                         w_replay_o,
  output logic [SeqBits-1:0]           w_seq_o,
  output logic [LenWidth-1:0]          w_len_o,
  output logic [TokenWidth-1:0]        w_token_o,
  output logic [ClassWidth-1:0]        w_class_o,
  output logic [1:0]                   w_ctl_type_o,
  output logic [SeqBits-1:0]           w_ctl_seq_o,
  // wire -> RX
  input  logic                         r_valid_i,
  input  logic                         r_is_ctl_i,
  input  logic                         r_ok_i,
  input  logic                         r_eligible_i,
  input  logic                         r_replay_i,
  input  logic [SeqBits-1:0]           r_seq_i,
  input  logic [LenWidth-1:0]          r_len_i,
  input  logic [TokenWidth-1:0]        r_token_i,
  input  logic [ClassWidth-1:0]        r_class_i,
  input  logic [1:0]                   r_ctl_type_i,
  input  logic [SeqBits-1:0]           r_ctl_seq_i,
  // RX -> MAC client
  output logic                         d_valid_o,
  output logic                         d_eligible_o,
  output logic [LenWidth-1:0]          d_len_o,
  output logic [TokenWidth-1:0]        d_token_o,
  output logic [ClassWidth-1:0]        d_class_o,
  // status
  output logic [1:0]                   tx_state_o,
  output logic [1:0]                   rx_state_o,
  output logic [BufLog2:0]             out_frames_o,
  output logic [23:0]                  out_bytes_o,
  output logic                         err_flush_o,
  // counters (order of llr::Counter in models/llr/llr.hpp)
  output logic [CntWidth-1:0]          cnt_tx_ok_o,
  output logic [CntWidth-1:0]          cnt_tx_replay_o,
  output logic [CntWidth-1:0]          cnt_tx_discard_o,
  output logic [CntWidth-1:0]          cnt_tx_ack_ctlos_o,
  output logic [CntWidth-1:0]          cnt_tx_nack_ctlos_o,
  output logic [CntWidth-1:0]          cnt_tx_init_ctlos_o,
  output logic [CntWidth-1:0]          cnt_tx_init_echo_ctlos_o,
  output logic [CntWidth-1:0]          cnt_tx_best_effort_o,
  output logic [CntWidth-1:0]          cnt_tx_flush_o,
  output logic [CntWidth-1:0]          cnt_rx_ok_o,
  output logic [CntWidth-1:0]          cnt_rx_bad_o,
  output logic [CntWidth-1:0]          cnt_rx_expected_seq_good_o,
  output logic [CntWidth-1:0]          cnt_rx_expected_seq_bad_o,
  output logic [CntWidth-1:0]          cnt_rx_missing_seq_o,
  output logic [CntWidth-1:0]          cnt_rx_duplicate_seq_o,
  output logic [CntWidth-1:0]          cnt_rx_replay_o,
  output logic [CntWidth-1:0]          cnt_rx_ack_ctlos_o,
  output logic [CntWidth-1:0]          cnt_rx_nack_ctlos_o,
  output logic [CntWidth-1:0]          cnt_rx_init_ctlos_o,
  output logic [CntWidth-1:0]          cnt_rx_init_echo_ctlos_o,
  output logic [CntWidth-1:0]          cnt_rx_bad_ctlos_o
);

  // ---------------------------------------------------------------- constants
  localparam int unsigned NumClasses  = 2 ** ClassWidth;
  localparam int unsigned BufDepth    = 2 ** BufLog2;
  localparam int unsigned FramesWidth = BufLog2 + 1;
  localparam int unsigned BytesWidth  = 24;
  // Width in which window distances are compared with cfg_frames_max.
  localparam int unsigned RoomWidth   = ((SeqBits > FramesWidth) ? SeqBits : FramesWidth) + 1;
  // unacked saturates at 2^UnackedWidth - 1 >= 2^16 > any ack spacing, so
  // saturation never changes a comparison (the document's counter is unbounded).
  localparam int unsigned UnackedWidth = ((LenWidth > 16) ? LenWidth : 16) + 1;

  localparam logic [1:0] TxInit    = 2'd0;
  localparam logic [1:0] TxAdvance = 2'd1;
  localparam logic [1:0] TxReplay  = 2'd2;
  localparam logic [1:0] TxFlush   = 2'd3;

  localparam logic [1:0] RxSendAcks = 2'd0;
  localparam logic [1:0] RxSendNack = 2'd1;
  localparam logic [1:0] RxNackSent = 2'd2;

  localparam logic [1:0] CtlAck      = 2'd0;
  localparam logic [1:0] CtlNack     = 2'd1;
  localparam logic [1:0] CtlInit     = 2'd2;
  localparam logic [1:0] CtlInitEcho = 2'd3;

  // Counter indices: llr::Counter (models/llr/llr.hpp).
  localparam int unsigned CntTxOk             = 0;
  localparam int unsigned CntTxReplay         = 1;
  localparam int unsigned CntTxDiscard        = 2;
  localparam int unsigned CntTxAckCtlos       = 3;
  localparam int unsigned CntTxNackCtlos      = 4;
  localparam int unsigned CntTxInitCtlos      = 5;
  localparam int unsigned CntTxInitEchoCtlos  = 6;
  localparam int unsigned CntTxBestEffort     = 7;
  localparam int unsigned CntTxFlush          = 8;
  localparam int unsigned CntRxOk             = 9;
  localparam int unsigned CntRxBad            = 10;
  localparam int unsigned CntRxExpSeqGood     = 11;
  localparam int unsigned CntRxExpSeqBad      = 12;
  localparam int unsigned CntRxMissingSeq     = 13;
  localparam int unsigned CntRxDuplicateSeq   = 14;
  localparam int unsigned CntRxReplay         = 15;
  localparam int unsigned CntRxAckCtlos       = 16;
  localparam int unsigned CntRxNackCtlos      = 17;
  localparam int unsigned CntRxInitCtlos      = 18;
  localparam int unsigned CntRxInitEchoCtlos  = 19;
  localparam int unsigned CntRxBadCtlos       = 20;
  localparam int unsigned NumCnt              = 21;

  // ---------------------------------------------------------------- state
  // configuration (sampled on reset edges)
  logic [FramesWidth-1:0]  frames_max_q;
  logic [BytesWidth-1:0]   bytes_max_q;
  logic [TimerWidth-1:0]   timer_max_q;        // max(1, cfg_replay_timer)
  logic [TimerWidth-1:0]   ack_idle_max_q;     // max(1, cfg_replay_timer >> 2)
  logic [7:0]              replay_count_max_q;
  logic [15:0]             ack_spacing_q;      // max(1, cfg_ack_spacing)
  logic                    ack_bytes_q;
  logic                    best_effort_q;
  logic                    re_init_q;

  // TX half
  logic [1:0]              tx_state_q,   tx_state_d;
  logic [SeqBits-1:0]      next_seq_q,   next_seq_d;
  logic [SeqBits-1:0]      ack_target_q, ack_target_d;
  logic [SeqBits-1:0]      ack_base_q,   ack_base_d;
  logic [SeqBits-1:0]      replay_ptr_q, replay_ptr_d;
  logic [7:0]              replay_cnt_q, replay_cnt_d;
  logic [TimerWidth-1:0]   timer_q,      timer_d;
  logic [BytesWidth-1:0]   out_bytes_q,  out_bytes_d;
  logic [FramesWidth-1:0]  out_frames_q, out_frames_d;
  // replay buffer (register array, no reset: only slots written since the
  // last INIT_ECHO are ever read)
  logic [LenWidth-1:0]     buf_len_q   [BufDepth];
  logic [TokenWidth-1:0]   buf_token_q [BufDepth];
  logic [ClassWidth-1:0]   buf_class_q [BufDepth];
  // client holding register
  logic                    hold_valid_q, hold_valid_d;
  logic                    hold_eligible_q;
  logic [ClassWidth-1:0]   hold_class_q;
  logic [LenWidth-1:0]     hold_len_q;
  logic [TokenWidth-1:0]   hold_token_q;
  logic                    ready_q, ready_d;
  logic [NumClasses-1:0]   pause_q;
  // wire output register
  logic                    w_valid_q,    w_valid_d;
  logic                    w_is_ctl_q,   w_is_ctl_d;
  logic                    w_eligible_q, w_eligible_d;
  logic                    w_replay_q,   w_replay_d;
  logic [SeqBits-1:0]      w_seq_q,      w_seq_d;
  logic [LenWidth-1:0]     w_len_q,      w_len_d;
  logic [TokenWidth-1:0]   w_token_q,    w_token_d;
  logic [ClassWidth-1:0]   w_class_q,    w_class_d;
  logic [1:0]              w_ctl_type_q, w_ctl_type_d;
  logic [SeqBits-1:0]      w_ctl_seq_q,  w_ctl_seq_d;
  // pending control words, sticky error
  logic                    init_pend_q,  init_pend_d;
  logic                    echo_pend_q,  echo_pend_d;
  logic                    err_flush_q,  err_flush_d;

  // RX half
  logic [1:0]              rx_state_q,   rx_state_d;
  logic [SeqBits-1:0]      exp_seq_q,    exp_seq_d;
  logic [UnackedWidth-1:0] unacked_q,    unacked_d;
  logic [TimerWidth-1:0]   ack_idle_q,   ack_idle_d;
  logic                    ack_pend_q,   ack_pend_d;
  logic                    nack_pend_q,  nack_pend_d;
  // delivery register
  logic                    d_valid_q,    d_valid_d;
  logic                    d_eligible_q, d_eligible_d;
  logic [LenWidth-1:0]     d_len_q,      d_len_d;
  logic [TokenWidth-1:0]   d_token_q,    d_token_d;
  logic [ClassWidth-1:0]   d_class_q,    d_class_d;

  // counters
  logic [CntWidth-1:0]     cnt_q   [NumCnt];
  logic [CntWidth-1:0]     cnt_d   [NumCnt];
  logic [CntWidth-1:0]     cnt_inc [NumCnt];

  // ---------------------------------------------------------------- 1. wire
  logic w_free;  // the output register takes a new item at this edge
  assign w_free = !w_valid_q || w_ready_i;

  // ---------------------------------------------------------------- 2. RX: control word
  logic ctl_in, ctl_bad;
  logic ev_ack, ev_nack, ev_init, ev_echo;
  assign ctl_in  = r_valid_i && r_is_ctl_i;
  assign ctl_bad = ctl_in && !r_ok_i;
  assign ev_ack  = ctl_in && r_ok_i && (r_ctl_type_i == CtlAck);
  assign ev_nack = ctl_in && r_ok_i && (r_ctl_type_i == CtlNack);
  assign ev_init = ctl_in && r_ok_i && (r_ctl_type_i == CtlInit);
  assign ev_echo = ctl_in && r_ok_i && (r_ctl_type_i == CtlInitEcho);

  // ---------------------------------------------------------------- 3. RX: frame
  logic               frm_in;
  logic [SeqBits-1:0] gap;
  logic               gap_zero, gap_ahead;
  logic               frm_exp_good, frm_exp_bad, frm_ahead, frm_dup;
  logic               deliver;
  logic [UnackedWidth-1:0] counted;  // toward the next ACK (frames or bytes)

  assign frm_in       = r_valid_i && !r_is_ctl_i;
  assign gap          = r_seq_i - exp_seq_q;
  assign gap_zero     = (gap == '0);
  assign gap_ahead    = !gap_zero && !gap[SeqBits-1];      // 0 < gap < 2^(SeqBits-1)
  assign frm_exp_good = frm_in && r_eligible_i && gap_zero && r_ok_i;
  assign frm_exp_bad  = frm_in && r_eligible_i && gap_zero && !r_ok_i;
  assign frm_ahead    = frm_in && r_eligible_i && gap_ahead;
  assign frm_dup      = frm_in && r_eligible_i && !gap_zero && gap[SeqBits-1];
  assign deliver      = (frm_in && !r_eligible_i && r_ok_i) || frm_exp_good;
  assign counted      = !frm_exp_good ? '0 :
                        ack_bytes_q   ? UnackedWidth'(r_len_i) : UnackedWidth'(1);

  // ---------------------------------------------------------------- 4. TX: events
  logic               tx_active;       // ADVANCE or REPLAY
  logic [SeqBits-1:0] dt, dn, dc;      // dist(ack_target_q), dist(next_seq_q), dist(r_ctl_seq_i)
  logic               acc_ack;         // ACK accepted (also NACK(e) with dist(e) == dn)
  logic               nack_replay;     // NACK in the window: replay event from e
  logic               progress;
  logic [SeqBits-1:0] ack_target_pr;   // ack_target after this edge's progress
  logic [SeqBits-1:0] discard_n;       // frames discarded by a flush: dn - dist(ack_target_pr)
  logic               unack;           // ack_target_q != next_seq_q
  logic [TimerWidth:0] timer_inc;      // timer_q + 1
  logic               timer_expired;
  logic               replay_ev;
  logic [SeqBits-1:0] replay_from;
  logic [8:0]         replay_n;
  logic               flush;

  assign tx_active = (tx_state_q == TxAdvance) || (tx_state_q == TxReplay);
  assign dt        = ack_target_q - ack_base_q;
  assign dn        = next_seq_q - ack_base_q;
  assign dc        = r_ctl_seq_i - ack_base_q;
  assign acc_ack   = tx_active && (ev_ack || (ev_nack && (dc == dn))) && (dt < dc) && (dc <= dn);
  assign nack_replay = tx_active && ev_nack && (dt <= dc) && (dc < dn);
  assign progress  = acc_ack || (nack_replay && (dc > dt));
  assign ack_target_pr = progress ? r_ctl_seq_i : ack_target_q;
  assign discard_n = next_seq_q - ack_target_pr;
  assign unack     = (ack_target_q != next_seq_q);
  assign timer_inc = {1'b0, timer_q} + 1'b1;
  assign timer_expired = timer_inc >= {1'b0, timer_max_q};
  assign replay_n  = (progress ? 9'd0 : {1'b0, replay_cnt_q}) + 9'd1;

  // Replay events: a NACK in the window, or the replay timer (ADVANCE/REPLAY,
  // frames unacknowledged, no progress).
  always_comb begin
    replay_ev   = 1'b0;
    replay_from = ack_target_pr;  // timer: post-progress value (= ack_target_q)
    if (nack_replay) begin
      replay_ev   = 1'b1;
`ifdef LLR_MUTANT
      // MUTANT: the replay starts after the NACKed frame.
      replay_from = r_ctl_seq_i + 1'b1;
`else
      replay_from = r_ctl_seq_i;
`endif
    end else if (tx_active && unack && !progress && timer_expired) begin
      replay_ev   = 1'b1;
    end
  end
  assign flush = replay_ev && ({1'b0, replay_count_max_q} < replay_n);

  // ---------------------------------------------------------------- 6. TX: next wire item (selection)
  logic                  ld_echo, ld_nack, ld_ack, ld_init, ld_replay;
  logic                  new_cand;     // item 6 applies (hold valid, class not paused)
  logic                  room;
  logic                  ld_new;       // the held frame is sent
  logic                  ld_stored;    // ... eligible, into the replay buffer
  logic                  ld_best_effort;
  logic [RoomWidth-1:0]  room_frames;  // (next_seq_q - ack_base_q) + 1
  logic [BytesWidth:0]   room_bytes;   // out_bytes_q + len
  logic [BufLog2-1:0]    rp_slot;      // replay buffer slots: seq mod 2^BufLog2
  logic [BufLog2-1:0]    ns_slot;
  logic [BufLog2-1:0]    ab_slot;

  assign ld_echo   = w_free && echo_pend_q;
  assign ld_nack   = w_free && !echo_pend_q && nack_pend_q;
  assign ld_ack    = w_free && !echo_pend_q && !nack_pend_q && ack_pend_q;
  assign ld_init   = w_free && !echo_pend_q && !nack_pend_q && !ack_pend_q &&
                     init_pend_q && (tx_state_q == TxInit);
  assign ld_replay = w_free && !echo_pend_q && !nack_pend_q && !ack_pend_q &&
                     (tx_state_q == TxReplay) && !replay_ev;
  assign new_cand  = w_free && !echo_pend_q && !nack_pend_q && !ack_pend_q &&
                     (tx_state_q == TxAdvance) && !replay_ev &&
                     hold_valid_q && !pause_q[hold_class_q];
  assign room_frames = RoomWidth'(dn) + RoomWidth'(1);
  assign room_bytes  = {1'b0, out_bytes_q} + (BytesWidth + 1)'(hold_len_q);
  assign room      = (room_frames <= RoomWidth'(frames_max_q)) &&
                     (room_bytes <= {1'b0, bytes_max_q});
  assign ld_stored = new_cand && hold_eligible_q && room;
  assign ld_best_effort = new_cand && hold_eligible_q && !room && best_effort_q;
  assign ld_new    = new_cand && (!hold_eligible_q || room || best_effort_q);
  assign rp_slot   = BufLog2'(replay_ptr_q);
  assign ns_slot   = BufLog2'(next_seq_q);
  assign ab_slot   = BufLog2'(ack_base_q);

  // ---------------------------------------------------------------- 7. free
  logic                free_one;
  logic [LenWidth-1:0] free_len;
  assign free_one = (ack_base_q != ack_target_q) && !flush;
  assign free_len = buf_len_q[ab_slot];

  // ---------------------------------------------------------------- TX next state (steps 4, 6, 7, 8)
  always_comb begin
    tx_state_d   = tx_state_q;
    next_seq_d   = next_seq_q;
    ack_target_d = ack_target_q;
    ack_base_d   = ack_base_q;
    replay_ptr_d = replay_ptr_q;
    replay_cnt_d = replay_cnt_q;
    timer_d      = timer_q;
    out_bytes_d  = out_bytes_q;
    init_pend_d  = init_pend_q;
    err_flush_d  = err_flush_q;

    // 4. events
    ack_target_d = ack_target_pr;
    // timer
    unique case (tx_state_q)
      TxAdvance, TxReplay: begin
        if (unack && !progress) begin
          timer_d = timer_expired ? '0 : timer_inc[TimerWidth-1:0];
        end else begin
          timer_d = '0;
        end
      end
      TxInit: begin
        if (timer_expired) begin
          timer_d     = '0;
          init_pend_d = 1'b1;  // INIT is repeated until echoed
        end else begin
          timer_d     = timer_inc[TimerWidth-1:0];
        end
        if (ev_echo) begin
          tx_state_d   = TxAdvance;
          next_seq_d   = '0;
          ack_base_d   = '0;
          ack_target_d = '0;
          replay_ptr_d = '0;
          out_bytes_d  = '0;
          replay_cnt_d = '0;
          timer_d      = '0;
          init_pend_d  = 1'b0;
        end
      end
      default: begin  // TxFlush
        timer_d = '0;
        if (re_init_q) begin
          tx_state_d   = TxInit;
          init_pend_d  = 1'b1;
          next_seq_d   = '0;
          ack_base_d   = '0;
          ack_target_d = '0;
          replay_ptr_d = '0;
        end
      end
    endcase
    // replay event / flush
    if (replay_ev) begin
      if (flush) begin
        err_flush_d  = 1'b1;
        tx_state_d   = TxFlush;
        ack_base_d   = next_seq_q;
        ack_target_d = next_seq_q;
        replay_ptr_d = next_seq_q;
        out_bytes_d  = '0;
        replay_cnt_d = '0;
        timer_d      = '0;
      end else begin
        replay_cnt_d = replay_n[7:0];
        replay_ptr_d = replay_from;
        tx_state_d   = TxReplay;
        timer_d      = '0;
      end
    end else if (tx_active) begin
      replay_cnt_d = progress ? '0 : replay_cnt_q;
    end

    // 6. wire items that change TX state
    if (ld_init) begin
      init_pend_d = 1'b0;
    end
    if (ld_replay) begin
      replay_ptr_d = replay_ptr_q + 1'b1;
      if ((replay_ptr_q + 1'b1) == next_seq_q) begin
        tx_state_d = TxAdvance;
      end
    end
    if (ld_stored) begin
      next_seq_d = next_seq_q + 1'b1;
    end

    // 6./7. occupancy in bytes (not in a flush edge, nor in INIT/FLUSH)
    if (!flush && tx_active) begin
      out_bytes_d = out_bytes_q
                    + (ld_stored ? BytesWidth'(hold_len_q) : '0)
                    - (free_one  ? BytesWidth'(free_len)   : '0);
    end
    // 7. free
    if (free_one) begin
      ack_base_d = ack_base_q + 1'b1;
    end
  end

  // 8. client
  logic hold_take;
  assign hold_take = c_valid_i && ready_q;
  always_comb begin
    hold_valid_d = hold_valid_q;
    if (ld_new) begin
      hold_valid_d = 1'b0;
    end
    if (hold_take) begin
      hold_valid_d = 1'b1;
    end
    ready_d = !hold_valid_d && ((tx_state_d == TxAdvance) || (tx_state_d == TxReplay));
  end

  // out_frames = (next_seq - ack_base) mod 2^SeqBits after this edge (never
  // above cfg_frames_max, so it fits in FramesWidth bits).
  if (SeqBits >= FramesWidth) begin : g_occ_trunc
    assign out_frames_d = FramesWidth'(next_seq_d) - FramesWidth'(ack_base_d);
  end else begin : g_occ_ext
    logic [SeqBits-1:0] occ_d;
    assign occ_d        = next_seq_d - ack_base_d;
    assign out_frames_d = FramesWidth'(occ_d);
  end

  // ---------------------------------------------------------------- 6. wire output register
  // Fields not named for an item keep their previous value.
  always_comb begin
    w_valid_d    = w_valid_q;
    w_is_ctl_d   = w_is_ctl_q;
    w_eligible_d = w_eligible_q;
    w_replay_d   = w_replay_q;
    w_seq_d      = w_seq_q;
    w_len_d      = w_len_q;
    w_token_d    = w_token_q;
    w_class_d    = w_class_q;
    w_ctl_type_d = w_ctl_type_q;
    w_ctl_seq_d  = w_ctl_seq_q;
    if (w_free) begin
      w_valid_d = ld_echo || ld_nack || ld_ack || ld_init || ld_replay || ld_new;
      if (ld_echo || ld_nack || ld_ack || ld_init) begin
        w_is_ctl_d = 1'b1;
        if (ld_echo) begin
          w_ctl_type_d = CtlInitEcho;
          w_ctl_seq_d  = '0;
        end else if (ld_nack) begin
          w_ctl_type_d = CtlNack;
          w_ctl_seq_d  = exp_seq_q;
        end else if (ld_ack) begin
          w_ctl_type_d = CtlAck;
          w_ctl_seq_d  = exp_seq_q;
        end else begin
          w_ctl_type_d = CtlInit;
          w_ctl_seq_d  = '0;
        end
      end else if (ld_replay) begin
        w_is_ctl_d   = 1'b0;
        w_eligible_d = 1'b1;
        w_replay_d   = 1'b1;
        w_seq_d      = replay_ptr_q;
        w_len_d      = buf_len_q[rp_slot];
        w_token_d    = buf_token_q[rp_slot];
        w_class_d    = buf_class_q[rp_slot];
      end else if (ld_new) begin
        w_is_ctl_d   = 1'b0;
        w_eligible_d = ld_stored;  // ineligible as is, or best effort
        w_replay_d   = 1'b0;
        w_seq_d      = ld_stored ? next_seq_q : '0;
        w_len_d      = hold_len_q;
        w_token_d    = hold_token_q;
        w_class_d    = hold_class_q;
      end
    end
  end

  // ---------------------------------------------------------------- RX next state (steps 2, 3, 5, 6)
  always_comb begin
    rx_state_d  = rx_state_q;
    exp_seq_d   = exp_seq_q;
    nack_pend_d = nack_pend_q;
    echo_pend_d = echo_pend_q;

    // 3. frame
    if (frm_exp_good) begin
      exp_seq_d   = exp_seq_q + 1'b1;
      rx_state_d  = RxSendAcks;
      nack_pend_d = 1'b0;
    end
    if ((frm_exp_bad || frm_ahead) && (rx_state_q == RxSendAcks)) begin
      rx_state_d  = RxSendNack;
      nack_pend_d = 1'b1;
    end

    // 5. ACK scheduling
    if (ld_ack) begin
      unacked_d = counted;
    end else begin
      unacked_d = (unacked_q > ~counted) ? '1 : unacked_q + counted;  // saturating
    end
    if ((unacked_q != '0) && !ld_ack) begin
      ack_idle_d = (ack_idle_q == '1) ? ack_idle_q : ack_idle_q + 1'b1;  // saturating
    end else begin
      ack_idle_d = '0;
    end
    ack_pend_d = (ack_pend_q && !ld_ack) || frm_dup ||
                 (unacked_d >= UnackedWidth'(ack_spacing_q)) ||
                 ((unacked_q != '0) && !ld_ack && (ack_idle_q >= ack_idle_max_q));

    // 6. control words loaded
    if (ld_echo) begin
      echo_pend_d = 1'b0;
    end
    if (ld_nack) begin
      nack_pend_d = 1'b0;
      rx_state_d  = RxNackSent;
    end

    // 2. INIT received: wins over steps 5 and 6 for the RX registers
    if (ev_init) begin
      exp_seq_d   = '0;
      rx_state_d  = RxSendAcks;
      unacked_d   = '0;
      ack_idle_d  = '0;
      ack_pend_d  = 1'b0;
      nack_pend_d = 1'b0;
      if (!ld_echo) begin
        echo_pend_d = 1'b1;  // an echo loaded in this edge answers it (step 6 is later)
      end
    end
  end

  // delivery register
  always_comb begin
    d_valid_d    = deliver;
    d_eligible_d = d_eligible_q;
    d_len_d      = d_len_q;
    d_token_d    = d_token_q;
    d_class_d    = d_class_q;
    if (deliver) begin
      d_eligible_d = r_eligible_i;
      d_len_d      = r_len_i;
      d_token_d    = r_token_i;
      d_class_d    = r_class_i;
    end
  end

  // ---------------------------------------------------------------- counters
  always_comb begin
    for (int unsigned i = 0; i < NumCnt; i++) begin
      cnt_inc[i] = '0;
    end
    cnt_inc[CntTxOk]            = CntWidth'(ld_new);
    cnt_inc[CntTxReplay]        = CntWidth'(ld_replay);
    cnt_inc[CntTxDiscard]       = flush ? CntWidth'(discard_n) : '0;
    cnt_inc[CntTxAckCtlos]      = CntWidth'(ld_ack);
    cnt_inc[CntTxNackCtlos]     = CntWidth'(ld_nack);
    cnt_inc[CntTxInitCtlos]     = CntWidth'(ld_init);
    cnt_inc[CntTxInitEchoCtlos] = CntWidth'(ld_echo);
    cnt_inc[CntTxBestEffort]    = CntWidth'(ld_best_effort);
    cnt_inc[CntTxFlush]         = CntWidth'(flush);
    cnt_inc[CntRxOk]            = CntWidth'(deliver);
    cnt_inc[CntRxBad]           = CntWidth'(frm_in && !r_ok_i);
    cnt_inc[CntRxExpSeqGood]    = CntWidth'(frm_exp_good);
    cnt_inc[CntRxExpSeqBad]     = CntWidth'(frm_exp_bad);
    cnt_inc[CntRxMissingSeq]    = (frm_ahead && (rx_state_q == RxSendAcks)) ? CntWidth'(gap) : '0;
    cnt_inc[CntRxDuplicateSeq]  = CntWidth'(frm_dup);
    cnt_inc[CntRxReplay]        = CntWidth'(frm_exp_good && r_replay_i);
    cnt_inc[CntRxAckCtlos]      = CntWidth'(ev_ack);
    cnt_inc[CntRxNackCtlos]     = CntWidth'(ev_nack);
    cnt_inc[CntRxInitCtlos]     = CntWidth'(ev_init);
    cnt_inc[CntRxInitEchoCtlos] = CntWidth'(ev_echo);
    cnt_inc[CntRxBadCtlos]      = CntWidth'(ctl_bad);
    for (int unsigned i = 0; i < NumCnt; i++) begin
      cnt_d[i] = cnt_q[i] + cnt_inc[i];  // wraps at 2^CntWidth
    end
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      frames_max_q       <= cfg_frames_max_i;
      bytes_max_q        <= cfg_bytes_max_i;
      timer_max_q        <= (cfg_replay_timer_i == '0) ? TimerWidth'(1) : cfg_replay_timer_i;
      ack_idle_max_q     <= ((cfg_replay_timer_i >> 2) == '0) ? TimerWidth'(1) : (cfg_replay_timer_i >> 2);
      replay_count_max_q <= cfg_replay_count_max_i;
      ack_spacing_q      <= (cfg_ack_spacing_i == '0) ? 16'd1 : cfg_ack_spacing_i;
      ack_bytes_q        <= cfg_ack_bytes_i;
      best_effort_q      <= cfg_best_effort_i;
      re_init_q          <= cfg_re_init_i;

      tx_state_q      <= TxInit;
      next_seq_q      <= '0;
      ack_target_q    <= '0;
      ack_base_q      <= '0;
      replay_ptr_q    <= '0;
      replay_cnt_q    <= '0;
      timer_q         <= '0;
      out_bytes_q     <= '0;
      out_frames_q    <= '0;
      hold_valid_q    <= 1'b0;
      hold_eligible_q <= 1'b0;
      hold_class_q    <= '0;
      hold_len_q      <= '0;
      hold_token_q    <= '0;
      ready_q         <= 1'b0;
      pause_q         <= '0;
      w_valid_q       <= 1'b0;
      w_is_ctl_q      <= 1'b0;
      w_eligible_q    <= 1'b0;
      w_replay_q      <= 1'b0;
      w_seq_q         <= '0;
      w_len_q         <= '0;
      w_token_q       <= '0;
      w_class_q       <= '0;
      w_ctl_type_q    <= '0;
      w_ctl_seq_q     <= '0;
      init_pend_q     <= 1'b1;
      echo_pend_q     <= 1'b0;
      err_flush_q     <= 1'b0;

      rx_state_q      <= RxSendAcks;
      exp_seq_q       <= '0;
      unacked_q       <= '0;
      ack_idle_q      <= '0;
      ack_pend_q      <= 1'b0;
      nack_pend_q     <= 1'b0;
      d_valid_q       <= 1'b0;
      d_eligible_q    <= 1'b0;
      d_len_q         <= '0;
      d_token_q       <= '0;
      d_class_q       <= '0;
      for (int unsigned i = 0; i < NumCnt; i++) begin
        cnt_q[i] <= '0;
      end
    end else begin
      tx_state_q      <= tx_state_d;
      next_seq_q      <= next_seq_d;
      ack_target_q    <= ack_target_d;
      ack_base_q      <= ack_base_d;
      replay_ptr_q    <= replay_ptr_d;
      replay_cnt_q    <= replay_cnt_d;
      timer_q         <= timer_d;
      out_bytes_q     <= out_bytes_d;
      out_frames_q    <= out_frames_d;
      hold_valid_q    <= hold_valid_d;
      if (hold_take) begin
        hold_eligible_q <= c_eligible_i;
        hold_class_q    <= c_class_i;
        hold_len_q      <= c_len_i;
        hold_token_q    <= c_token_i;
      end
      ready_q         <= ready_d;
      pause_q         <= pause_i;
      w_valid_q       <= w_valid_d;
      w_is_ctl_q      <= w_is_ctl_d;
      w_eligible_q    <= w_eligible_d;
      w_replay_q      <= w_replay_d;
      w_seq_q         <= w_seq_d;
      w_len_q         <= w_len_d;
      w_token_q       <= w_token_d;
      w_class_q       <= w_class_d;
      w_ctl_type_q    <= w_ctl_type_d;
      w_ctl_seq_q     <= w_ctl_seq_d;
      init_pend_q     <= init_pend_d;
      echo_pend_q     <= echo_pend_d;
      err_flush_q     <= err_flush_d;

      rx_state_q      <= rx_state_d;
      exp_seq_q       <= exp_seq_d;
      unacked_q       <= unacked_d;
      ack_idle_q      <= ack_idle_d;
      ack_pend_q      <= ack_pend_d;
      nack_pend_q     <= nack_pend_d;
      d_valid_q       <= d_valid_d;
      d_eligible_q    <= d_eligible_d;
      d_len_q         <= d_len_d;
      d_token_q       <= d_token_d;
      d_class_q       <= d_class_d;
      cnt_q           <= cnt_d;
    end
  end

  // Replay buffer: written when a new eligible frame is sent (step 6).
  always_ff @(posedge clk_i) begin
    if (rst_ni && ld_stored) begin
      buf_len_q[ns_slot]   <= hold_len_q;
      buf_token_q[ns_slot] <= hold_token_q;
      buf_class_q[ns_slot] <= hold_class_q;
    end
  end

  // ---------------------------------------------------------------- outputs
  assign c_ready_o    = ready_q;
  assign w_valid_o    = w_valid_q;
  assign w_is_ctl_o   = w_is_ctl_q;
  assign w_eligible_o = w_eligible_q;
  assign w_replay_o   = w_replay_q;
  assign w_seq_o      = w_seq_q;
  assign w_len_o      = w_len_q;
  assign w_token_o    = w_token_q;
  assign w_class_o    = w_class_q;
  assign w_ctl_type_o = w_ctl_type_q;
  assign w_ctl_seq_o  = w_ctl_seq_q;
  assign d_valid_o    = d_valid_q;
  assign d_eligible_o = d_eligible_q;
  assign d_len_o      = d_len_q;
  assign d_token_o    = d_token_q;
  assign d_class_o    = d_class_q;
  assign tx_state_o   = tx_state_q;
  assign rx_state_o   = rx_state_q;
  assign out_frames_o = out_frames_q;
  assign out_bytes_o  = out_bytes_q;
  assign err_flush_o  = err_flush_q;

  assign cnt_tx_ok_o                = cnt_q[CntTxOk];
  assign cnt_tx_replay_o            = cnt_q[CntTxReplay];
  assign cnt_tx_discard_o           = cnt_q[CntTxDiscard];
  assign cnt_tx_ack_ctlos_o         = cnt_q[CntTxAckCtlos];
  assign cnt_tx_nack_ctlos_o        = cnt_q[CntTxNackCtlos];
  assign cnt_tx_init_ctlos_o        = cnt_q[CntTxInitCtlos];
  assign cnt_tx_init_echo_ctlos_o   = cnt_q[CntTxInitEchoCtlos];
  assign cnt_tx_best_effort_o       = cnt_q[CntTxBestEffort];
  assign cnt_tx_flush_o             = cnt_q[CntTxFlush];
  assign cnt_rx_ok_o                = cnt_q[CntRxOk];
  assign cnt_rx_bad_o               = cnt_q[CntRxBad];
  assign cnt_rx_expected_seq_good_o = cnt_q[CntRxExpSeqGood];
  assign cnt_rx_expected_seq_bad_o  = cnt_q[CntRxExpSeqBad];
  assign cnt_rx_missing_seq_o       = cnt_q[CntRxMissingSeq];
  assign cnt_rx_duplicate_seq_o     = cnt_q[CntRxDuplicateSeq];
  assign cnt_rx_replay_o            = cnt_q[CntRxReplay];
  assign cnt_rx_ack_ctlos_o         = cnt_q[CntRxAckCtlos];
  assign cnt_rx_nack_ctlos_o        = cnt_q[CntRxNackCtlos];
  assign cnt_rx_init_ctlos_o        = cnt_q[CntRxInitCtlos];
  assign cnt_rx_init_echo_ctlos_o   = cnt_q[CntRxInitEchoCtlos];
  assign cnt_rx_bad_ctlos_o         = cnt_q[CntRxBadCtlos];

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef LLR_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (RoomWidth'(dn) <= RoomWidth'(frames_max_q))
        else $error("llr: replay buffer holds %0d frames > cfg_frames_max %0d", dn, frames_max_q);
      assert (out_bytes_q <= bytes_max_q)
        else $error("llr: replay buffer holds %0d bytes > cfg_bytes_max %0d", out_bytes_q, bytes_max_q);
      assert (RoomWidth'(dt) <= RoomWidth'(frames_max_q))
        else $error("llr: ack_base %0d passed ack_target %0d", ack_base_q, ack_target_q);
      assert (dt <= dn)
        else $error("llr: ack_target %0d passed next_seq %0d", ack_target_q, next_seq_q);
      assert (!(hold_take && !ready_q))
        else $error("llr: client frame taken while c_ready_o is low");
      assert (!(hold_take && hold_valid_q))
        else $error("llr: client frame taken over a held frame");
    end
  end
`endif
`endif

endmodule
