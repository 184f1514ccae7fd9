// sue_rx -- SUE transport, receive side of one node.
//
// Takes frames from up to four MACs (FCS already checked and stripped, pad
// kept), stores them per port, walks the packed operations, checks R-CRC and
// headers, keeps the expected PSN per connection {port, peer, VC}, tells
// sue_tx what to acknowledge (fb_*), and unpacks the commands of accepted
// PDUs to the XPU (store-and-forward, round robin per frame over ports,
// credits per VC).
//
// Cycle-level contract: docs/sue.md "Transport" ("Network side", "Feedback",
// "sue_rx: state and one rising edge", "sue_rx: ports", "Failover", "SUE Lite
// profile"). The C++ twin sue::RxModel (models/sue/) implements the same text
// and is compared against this module on every output, every cycle.
//
// Implementation: every check is computed while the frame streams in, one
// beat per edge (op walk with at most three header events per beat, R-CRC
// over the beat, R-CRC bytes captured), so the verdict is known at the edge
// that takes the eof beat; the buffer is only read by the unpacker. The
// unpacker is a three-stage pipeline (read up to NRd=4 (6 at DataW 1024) rows of one frame per
// edge, append them to the accumulator at the next edge, output one XPU beat
// per edge) that picks the next frame in the edge the previous frame's rows
// are all read, so every port is unpacked at its line rate.
//
// Simulation-only assertions: +define+SUE_ASSERT. +define+SUE_MUTANT plants a
// deliberate bug for the testbench self-check: a NACK is owed for every
// out-of-order PDU (not once per gap).
//
// yosys 0.23 subset: no structs, no interfaces, no `return`, no `int unsigned`.

module sue_rx #(
  parameter int Profile    = 0,
  parameter int NumPorts   = 1,
  parameter int NumXpus    = 8,     // XPU ids 0..NumXpus-1 this instance accepts frames from (peer = XPU id)
  parameter int DataW      = 256,
  parameter int MaxData    = 256,
  parameter int MaxPack    = (Profile == 0) ? 4096 : 1024,
  parameter int QDepth     = 64,
  parameter int Window     = 64,
  parameter int RxBufBeats = 512,
  parameter int RxFrames   = 16,
  parameter int CntW       = 32
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  // configuration, sampled on reset edges
  input  logic [9:0]                            cfg_own_xpuid_i,
  input  logic                                  cfg_strict_i,
  input  logic [9:0]                            cfg_partition_i,
  input  logic [4*8-1:0]                        cfg_rx_credits_i,
  input  logic [NumPorts-1:0]                   port_up_i,
  // network side
  input  logic [NumPorts-1:0]                   mac_rx_valid_i,
  input  logic [NumPorts*256-1:0]               mac_rx_data_i,
  input  logic [NumPorts-1:0]                   mac_rx_sof_i,
  input  logic [NumPorts-1:0]                   mac_rx_eof_i,
  input  logic [NumPorts*6-1:0]                 mac_rx_nbytes_i,
  input  logic [NumPorts-1:0]                   mac_rx_err_i,
  output logic [NumPorts-1:0]                   mac_rx_ready_o,
  // XPU receive interface
  output logic [1:0]                            rx_valid_o,
  output logic [3:0]                            rx_cycle_o,
  output logic [1:0]                            rx_vc_o,
  output logic [9:0]                            rx_xpuid_o,
  output logic [1:0]                            rx_port_o,
  output logic [143:0]                          rx_control_o,
  output logic [DataW-1:0]                      rx_data_o,
  input  logic [3:0]                            rx_credit_i,
  // feedback to sue_tx
  output logic [NumPorts-1:0]                   fb_valid_o,
  output logic [NumPorts*10-1:0]                fb_peer_o,
  output logic [NumPorts*2-1:0]                 fb_vc_o,
  output logic [NumPorts*2-1:0]                 fb_owe_o,
  output logic [NumPorts*16-1:0]                fb_owe_psn_o,
  output logic [NumPorts*2-1:0]                 fb_rop_o,
  output logic [NumPorts*16-1:0]                fb_rapsn_o,
  output logic [NumPorts*2-1:0]                 fb_fo_o,
  output logic [NumPorts*2-1:0]                 fb_fo_port_o,
  // observability: the debug read port of the connection memory (connection dbg_conn_i, read
  // combinationally: its state after the last edge; 0 for an index >= NC and in SUE Lite)
  input  logic [$clog2(NumPorts*NumXpus*4)-1:0] dbg_conn_i,
  output logic [15:0]                           dbg_exp_o,
  output logic                                  dbg_nacked_o,
  output logic [NumPorts*($clog2(RxBufBeats)+1)-1:0] buf_rows_o,
  output logic [NumPorts*($clog2(RxFrames)+1)-1:0]   rec_count_o,
  output logic [4*8-1:0]                        cred_o,
  output logic [NumPorts-1:0]                   port_dead_o,
  output logic                                  err_credit_o,
  // counters (order of sue::RxCnt in models/sue/sue_rx_model.hpp)
  output logic [CntW-1:0]                       cnt_frames_in_o,
  output logic [CntW-1:0]                       cnt_bytes_in_o,
  output logic [CntW-1:0]                       cnt_pdus_ok_o,
  output logic [CntW-1:0]                       cnt_lite_ok_o,
  output logic [CntW-1:0]                       cnt_ack_frames_o,
  output logic [CntW-1:0]                       cnt_fo_frames_o,
  output logic [CntW-1:0]                       cnt_fo_req_deferred_o,
  output logic [CntW-1:0]                       cnt_drop_mac_o,
  output logic [CntW-1:0]                       cnt_drop_dead_o,
  output logic [CntW-1:0]                       cnt_drop_malformed_o,
  output logic [CntW-1:0]                       cnt_drop_rcrc_o,
  output logic [CntW-1:0]                       cnt_drop_hdr_o,
  output logic [CntW-1:0]                       cnt_drop_psn_o,
  output logic [CntW-1:0]                       cnt_drop_dup_o,
  output logic [CntW-1:0]                       cnt_nack_owed_o,
  output logic [CntW-1:0]                       cnt_stray_beats_o,
  output logic [CntW-1:0]                       cnt_cmds_out_o
);

  // ---------------------------------------------------------------- constants
  localparam int DB    = DataW / 8;                         // XPU bytes per beat
  localparam int NC    = NumPorts * NumXpus * 4;            // connections
  localparam int PIW   = $clog2(NumXpus);                   // peer (= XPU id) index bits
  localparam int CW    = $clog2(NC);                        // connection index bits
  localparam int O0    = (Profile == sue_pkg::ProfSue) ? sue_pkg::Op0Sue : sue_pkg::Op0Lite;  // first op header (stored)
  localparam int FLen  = (Profile == 0) ? (26 + MaxPack) : (6 + MaxPack);
  localparam int MFB   = (((FLen > 60) ? FLen : 60) + 31) / 32;  // MaxFrameBeats
  localparam int OW    = $clog2(MFB * 32 + 4096 + 64);      // stored-stream offsets
  localparam int BW    = $clog2(MFB + 2);                   // beats of a frame (saturating at MFB+1)
  localparam int PW    = $clog2(RxBufBeats) + 1;            // buffer pointers
  localparam int AW    = PW - 1;                            // buffer row address
  localparam int RW    = $clog2(RxFrames) + 1;              // record count
  localparam int RI    = (RxFrames > 1) ? $clog2(RxFrames) : 1;  // record index
  localparam int NRd0  = (22 + 20 + DB + 31) / 32;          // rows a command's first XPU beat can reach
  localparam int NRd   = (NRd0 > 4) ? NRd0 : 4;             // rows the unpacker reads per edge (4; 6 at DB 128)
  localparam int RDB   = NRd * 32;                          // bytes of those rows
  localparam int MQ    = 4;                                 // frames the unpacker holds
  localparam int ACCR  = 20 + DB + RDB;                     // unpacker accumulator bytes
  localparam int RNW   = $clog2(RDB + 1);                   // read-stage fill
  localparam int UW    = $clog2(ACCR + 1);                  // accumulator fill
  localparam int RecW  = AW + BW + OW + PIW + 2;              // {row0, nrows, E, peer, vc}
  localparam int NCnt  = sue_pkg::RxNumCnt;

  // ---------------------------------------------------------------- parameter checks
`ifndef SYNTHESIS
  initial begin
    if (Profile < 0 || Profile > 1) $fatal(1, "sue_rx: Profile=%0d: allowed 0 (SUE), 1 (SUE Lite)", Profile);
    if (NumPorts != 1 && NumPorts != 2 && NumPorts != 4) $fatal(1, "sue_rx: NumPorts=%0d: allowed 1, 2, 4", NumPorts);
    if (NumXpus < 2 || NumXpus > 1024) $fatal(1, "sue_rx: NumXpus=%0d: allowed 2..1024", NumXpus);
    if (DataW != 128 && DataW != 256 && DataW != 512 && DataW != 1024) $fatal(1, "sue_rx: DataW=%0d: allowed 128, 256, 512, 1024", DataW);
    if (MaxPack > ((Profile == 0) ? 4096 : 1024) || MaxPack < 20 + MaxData)
      $fatal(1, "sue_rx: MaxPack=%0d: allowed 20+MaxData..4096 (SUE) / 1024 (Lite)", MaxPack);
    if (MaxData < 1 || MaxData > 16 * DB || MaxData > MaxPack - 20)
      $fatal(1, "sue_rx: MaxData=%0d: allowed 1..min(16*DB, MaxPack-20)", MaxData);
    if (QDepth < 2 || QDepth > 256 || (QDepth & (QDepth - 1)) != 0)
      $fatal(1, "sue_rx: QDepth=%0d: allowed a power of 2, 2..256", QDepth);
    if (Window < 1 || Window > 256 || (Window & (Window - 1)) != 0)
      $fatal(1, "sue_rx: Window=%0d: allowed a power of 2, 1..256", Window);
    if (RxBufBeats <= MFB || (RxBufBeats & (RxBufBeats - 1)) != 0)
      $fatal(1, "sue_rx: RxBufBeats=%0d: allowed a power of 2 > MaxFrameBeats=%0d", RxBufBeats, MFB);
    if (RxFrames < 1 || RxFrames > 64) $fatal(1, "sue_rx: RxFrames=%0d: allowed 1..64", RxFrames);
    if (CntW < 16 || CntW > 64) $fatal(1, "sue_rx: CntW=%0d: allowed 16..64", CntW);
  end
`endif

  // ---------------------------------------------------------------- functions
  // R-CRC (CRC-32C, reflected) over bytes lo..hi-1 of a stored beat (byte k in [8k +: 8]).
  function automatic logic [31:0] crc_beat(input logic [31:0] c, input logic [255:0] b,
                                            input logic [5:0] lo, input logic [5:0] hi);
    logic [31:0] x;
    x = c;
    for (int k = 0; k < 32; k++) begin
      if (6'(k) >= lo && 6'(k) < hi) begin
        x = sue_pkg::crc32c_byte(x, b[8*k +: 8]);
      end
    end
    crc_beat = x;
  endfunction

  // One op-walk step on header h at offset pos: {done, err, empty, first, nxt, e}.
  localparam int WsW = 4 + 2 * OW;
  function automatic logic [WsW-1:0] walk_hdr(input logic [15:0] h, input logic [OW-1:0] pos,
                                              input logic first);
    logic [OW-1:0] nx;
    nx = pos + OW'(h[11:0]) + OW'(2);
    if (first && Profile == 0 && h == 16'h8000)
      walk_hdr = {1'b1, 1'b0, 1'b1, 1'b0, pos + OW'(2), pos + OW'(2)};
    else if (h[14:12] != 3'b0 || h[11:0] < 12'd18 || 13'(h[11:0]) > 13'(18 + MaxData))
      walk_hdr = {1'b0, 1'b1, 1'b0, first, pos, OW'(0)};
    else
      walk_hdr = {h[15], 1'b0, 1'b0, 1'b0, nx, h[15] ? nx : OW'(0)};
  endfunction

  // ---------------------------------------------------------------- cfg registers
  logic [9:0]                own_q, part_q;
  logic [4*8-1:0]            credmax_q;  // VC v in [8v +: 8]
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      own_q     <= cfg_own_xpuid_i;
      part_q    <= cfg_partition_i;
      credmax_q <= cfg_rx_credits_i;
    end
  end
  logic unused_cfg;
  assign unused_cfg = cfg_strict_i;

  // ---------------------------------------------------------------- shared state
  logic [NumPorts-1:0]           dead_q, ready_q;
  logic [NumPorts*RW-1:0]        rec_cnt_q;   // per port p: [p*RW +: RW]
  logic [NumPorts*PW-1:0]        rd_q, wr_q;  // per port p: [p*PW +: PW]
  // connection state (SUE): a memory of NC words {nacked, exp} (docs/sue.md "Connection state in
  // memories"). Read at most twice per port per edge (the frame's connection, the FO-REQ's) and once
  // by the debug port; written at most once per port per edge, each port its own connections only.
  // A valid bit per connection, cleared by reset and set by the first write: a word never written
  // since reset reads as exp 0, not nacked (a memory is not reset).
  localparam int NVW = (NC + 63) / 64;      // valid-bit words
  logic [16:0]                   cs_mem [NC];
  logic [63:0]                   cs_val_q [NVW];
  logic [NumPorts*17-1:0]        cs_wd;        // per port p: the word written at cidx (acc_ev | nack_ev)
  // unpacker
  logic [NumPorts-1:0]           pop;          // the unpacker ends port p's head frame this edge
  logic [BW-1:0]                 pop_nrows;    // that frame's rows
  logic [AW-1:0]                 uraddr;       // first row the fetcher reads (all ports; muxed)
  logic [NumPorts*NRd*256-1:0]   rrow;         // rows uraddr .. uraddr+NRd-1 of each port, row j in [(p*NRd+j)*256 +: 256]
  logic [NumPorts*RecW-1:0]      rec_next;     // each port's first record the unpacker does not hold yet
  logic [4*3-1:0]                uin4;         // frames of port p the unpacker holds: [3p +: 3]
  // per-port results
  logic [NumPorts-1:0]           took;                // a beat taken this edge
  logic [NumPorts-1:0]           acc_ev, nack_ev;     // accept / NACK owed on connection cidx
  logic [NumPorts*CW-1:0]        cidx;
  logic [NumPorts*NCnt*2-1:0]    pinc;           // counter increments, port p counter i: [(p*NCnt+i)*2 +: 2]
  logic [NumPorts*6-1:0]         pbytes;         // bytes_in increment per port
  logic                          unused_obs;     // read by the assertions only
  assign unused_obs = ^{ready_q, rd_q, wr_q, took};
  logic [3:0]                    dead4;
  logic [4*RW-1:0]               rec_cnt4;
  always_comb begin
    dead4 = '0;
    rec_cnt4 = '0;
    for (int p = 0; p < NumPorts; p++) begin
      dead4[p] = dead_q[p];
      rec_cnt4[p*RW +: RW] = rec_cnt_q[p*RW +: RW];
    end
  end

  // ---------------------------------------------------------------- per port
  for (genvar gp = 0; gp < NumPorts; gp++) begin : g_port
    // inputs of this port
    logic                  v_i, sof_i, eof_i, err_i, up_i;
    logic [5:0]            nb_i;
    logic [255:0]          rb;      // raw beat: frame byte k of the beat in [8k +: 8]
    logic [255:0]          sb;      // stored beat (Lite beat 0 in logical order), byte k in [8k +: 8]
    assign v_i   = mac_rx_valid_i[gp];
    assign sof_i = mac_rx_sof_i[gp];
    assign eof_i = mac_rx_eof_i[gp];
    assign err_i = mac_rx_err_i[gp];
    assign up_i  = port_up_i[gp];
    assign nb_i  = mac_rx_nbytes_i[gp*6 +: 6];
    always_comb
      for (int k = 0; k < 32; k++) rb[8*k +: 8] = mac_rx_data_i[gp*256 + 255 - 8*k -: 8];

    // registers (dead/ready/rd/wr/rec count are also seen by the other ports and the unpacker)
    logic                  dead_lq, ready_lq;
    logic [PW-1:0]         rd_lq, wr_lq;
    logic [RW-1:0]         rec_cnt_lq;
    logic [31:0]           crc_q, rc_q;
    logic                  acc_l, nack_l;
    logic [CW-1:0]         cidx_l;
    /* verilator lint_off UNUSEDSIGNAL */  // the SUE_MUTANT build does not read bit 16 (nacked)
    logic [16:0]           cs_here;            // {nacked, exp} of c_here
    /* verilator lint_on UNUSEDSIGNAL */
    logic [16:0]           cs_wd_l;            // the word written at cidx_l
    logic [15:0]           cs_fo;              // exp of c_fo
    logic [NCnt*2-1:0]     pinc_l;
    logic [5:0]            pbytes_l;
    assign dead_q[gp] = dead_lq;
    assign ready_q[gp] = ready_lq;
    assign rd_q[gp*PW +: PW] = rd_lq;
    assign wr_q[gp*PW +: PW] = wr_lq;
    assign rec_cnt_q[gp*RW +: RW] = rec_cnt_lq;
    assign acc_ev[gp] = acc_l;
    assign nack_ev[gp] = nack_l;
    assign cidx[gp*CW +: CW] = cidx_l;
    assign cs_wd[gp*17 +: 17] = cs_wd_l;
    assign pinc[gp*NCnt*2 +: NCnt*2] = pinc_l;
    assign pbytes[gp*6 +: 6] = pbytes_l;
    logic [PW-1:0]         wc_q;
    logic                  inf_q, tl_q;
    logic [BW-1:0]         beats_q;
    logic [OW-1:0]         w_nxt_q, w_e_q;
    logic                  w_first_q, w_done_q, w_err_q, w_split_q, w_empty_q;
    logic [7:0]            w_hi_q;
    logic [22*8-1:0]       hdr_q;   // bytes 0..21 of the stored frame, byte k in [8k +: 8]
    logic [RI-1:0]         rec_hd_q, rec_tl_q;
    logic [RecW-1:0]       rec_mem [RxFrames];
    logic [255:0]          mem [RxBufBeats];

    // next-state values
    logic                  dead_d, take, inf_d, tl_d, ready_d;
    logic [PW-1:0]         wr_d, wc_d, rd_d;
    logic [AW-1:0]         wr_at;
    logic [BW-1:0]         beats_d, bidx;
    logic                  stored, wen;
    logic [OW-1:0]         w_nxt_d, w_e_d, base;
    logic                  w_first_d, w_done_d, w_err_d, w_split_d, w_empty_d;
    logic [7:0]            w_hi_d;
    logic [22*8-1:0]       hdr_d, hb;
    logic [WsW-1:0]        ws;
    logic [OW-1:0]         rel;
    logic [OW-1:0]         nbv;
    logic [OW-1:0]         flen, lmin;
    logic                  mal, push;
    logic [4:0]            vk;           // counter that names the verdict
    logic [RW-1:0]         rec_cnt_d;
    logic [31:0]           crc_in, crc_d, rc_in, rc_d;
    logic [5:0]            clo, chi;
    logic [OW-1:0]         eoff;
    // header fields
    logic [9:0]            id;
    logic [PIW-1:0]        peer;
    logic                  peer_ok, hdr_ok;
    logic [3:0]            tcls;
    logic [1:0]            vc, rop, f;
    logic [3:0]            rsvd;
    logic [15:0]           npsn, apsn, dpsn;
    logic                  fo;
    logic [CW-1:0]         c_here, c_fo;
    // feedback event
    logic                  fbv_d;
    logic [1:0]            fb_owe_d, fb_rop_d, fb_fo_d, fb_fo_port_d;
    logic [15:0]           fb_owe_psn_d, fb_rapsn_d;

    always_comb begin
      // hold
      dead_d = dead_lq;
      wr_d = wr_lq;
      wc_d = wc_q;
      inf_d = inf_q;
      tl_d = tl_q;
      beats_d = beats_q;
      w_nxt_d = w_nxt_q;
      w_e_d = w_e_q;
      w_first_d = w_first_q;
      w_done_d = w_done_q;
      w_err_d = w_err_q;
      w_split_d = w_split_q;
      w_empty_d = w_empty_q;
      w_hi_d = w_hi_q;
      hdr_d = hdr_q;
      hb = hdr_q;
      crc_in = crc_q;
      rc_in = rc_q;
      crc_d = crc_in;
      rc_d = rc_in;
      sb = rb;
      bidx = '0;
      stored = 1'b0;
      wen = 1'b0;
      wr_at = '0;
      base = '0;
      ws = '0;
      rel = '0;
      nbv = OW'(32);
      flen = '0;
      lmin = '0;
      mal = 1'b0;
      push = 1'b0;
      vk = 5'(sue_pkg::RxDropMal);
      clo = '0;
      chi = '0;
      eoff = '0;
      id = '0;
      peer = '0;
      peer_ok = 1'b0;
      hdr_ok = 1'b0;
      tcls = '0;
      vc = '0;
      rop = '0;
      f = '0;
      rsvd = '0;
      npsn = '0;
      apsn = '0;
      dpsn = '0;
      fo = 1'b0;
      c_here = '0;
      c_fo = '0;
      fbv_d = 1'b0;
      fb_owe_d = '0;
      fb_rop_d = '0;
      fb_fo_d = '0;
      fb_fo_port_d = '0;
      fb_owe_psn_d = '0;
      fb_rapsn_d = '0;
      acc_l = 1'b0;
      nack_l = 1'b0;
      cidx_l = '0;
      cs_here = '0;
      cs_fo = '0;
      cs_wd_l = '0;
      pinc_l = '0;
      pbytes_l = '0;

      // 1. death
      if (!dead_lq && !up_i) begin
        dead_d = 1'b1;
        if (inf_q) begin
          wr_d = wc_q;
          inf_d = 1'b0;
          pinc_l[2*sue_pkg::RxDropDead +: 2] = 2'd1;
        end
      end
      // 2. beat
      take = v_i && ready_lq && !dead_d;
      if (take) begin
        if (sof_i) begin
          if (inf_q) begin
            pinc_l[2*sue_pkg::RxDropMal +: 2] = 2'd1;
            wr_d = wc_q;
          end
          inf_d = 1'b1;
          tl_d = 1'b0;
          w_nxt_d = OW'(O0);
          w_e_d = '0;
          w_first_d = 1'b1;
          w_done_d = 1'b0;
          w_err_d = 1'b0;
          w_split_d = 1'b0;
          w_empty_d = 1'b0;
          crc_in = 32'hFFFFFFFF;
          rc_in = '0;
        end
        if (!inf_d) begin
          pinc_l[2*sue_pkg::RxStray +: 2] = 2'd1;
        end else begin
          bidx = sof_i ? '0 : beats_q;
          beats_d = (bidx < BW'(MFB + 1)) ? bidx + BW'(1) : bidx;
          stored = bidx < BW'(MFB);
          if (!stored) tl_d = 1'b1;
          // Lite: beat 0 stored in logical order hdr6 | L[0..25]
          if (Profile == 1 && bidx == '0) begin
            sb[8*0 +: 8] = rb[8*0 +: 8];   sb[8*1 +: 8] = rb[8*4 +: 8];
            sb[8*2 +: 8] = rb[8*5 +: 8];   sb[8*3 +: 8] = rb[8*6 +: 8];
            sb[8*4 +: 8] = rb[8*10 +: 8];  sb[8*5 +: 8] = rb[8*11 +: 8];
            sb[8*6 +: 8] = rb[8*1 +: 8];   sb[8*7 +: 8] = rb[8*2 +: 8];
            sb[8*8 +: 8] = rb[8*3 +: 8];   sb[8*9 +: 8] = rb[8*7 +: 8];
            sb[8*10 +: 8] = rb[8*8 +: 8];  sb[8*11 +: 8] = rb[8*9 +: 8];
          end
          if (stored) begin
            wen = 1'b1;
            wr_at = wr_d[AW-1:0];
            wr_d = wr_d + PW'(1);
          end
          pbytes_l = eof_i ? nb_i : 6'd32;
          if (bidx == '0) begin
            hdr_d = sb[22*8-1:0];
          end
          hb = hdr_d;
          // op walk over this beat: a header split from the last beat, then up to two more
          base = OW'(bidx) << 5;
          nbv = eof_i ? ((nb_i > 6'd32) ? OW'(32) : OW'(nb_i)) : OW'(32);
          if (stored && w_split_d && !w_done_d && !w_err_d) begin
            w_split_d = 1'b0;
            if (nbv == '0) begin
              w_err_d = 1'b1;
            end else begin
              ws = walk_hdr({w_hi_d, sb[7:0]}, w_nxt_d, w_first_d);
              {w_done_d, w_err_d, w_empty_d, w_first_d, w_nxt_d, w_e_d} = ws;
            end
          end
          for (int t = 0; t < 2; t++) begin
            if (stored && !w_done_d && !w_err_d && !w_split_d && w_nxt_d < base + OW'(32)) begin
              rel = w_nxt_d - base;
              if (rel == OW'(31)) begin
                if (eof_i) w_err_d = 1'b1;
                else begin
                  w_split_d = 1'b1;
                  w_hi_d = sb[8*31 +: 8];
                end
              end else if (rel + OW'(1) >= nbv) begin
                w_err_d = 1'b1;
              end else begin
                ws = walk_hdr({sb[8*rel[4:0] +: 8], sb[8*(rel[4:0] + 5'd1) +: 8]}, w_nxt_d, w_first_d);
                {w_done_d, w_err_d, w_empty_d, w_first_d, w_nxt_d, w_e_d} = ws;
              end
            end
          end
          // R-CRC over [14, E) and the 4 bytes at [E, E+4)
          clo = (bidx == '0) ? 6'd14 : 6'd0;
          chi = 6'd32;
          if (w_done_d) begin
            if (w_e_d <= base) chi = 6'd0;
            else if (w_e_d < base + OW'(32)) chi = 6'(w_e_d - base);
          end
          if (chi < clo) chi = clo;
          crc_d = crc_beat(crc_in, sb, clo, chi);
          rc_d = rc_in;
          if (w_done_d) begin
            for (int k = 0; k < 32; k++) begin
              eoff = base + OW'(k) - w_e_d;
              if (base + OW'(k) >= w_e_d && eoff < OW'(4)) rc_d[31 - 8*eoff[1:0] -: 8] = sb[8*k +: 8];
            end
          end
          // 3. verdict
          if (eof_i) begin
            inf_d = 1'b0;
            pinc_l[2*sue_pkg::RxFramesIn +: 2] = 2'd1;
            flen = (OW'(bidx) << 5) + OW'(nb_i);
            lmin = w_e_d + ((Profile == 0) ? OW'(4) : OW'(0));
            if (lmin < OW'(60)) lmin = OW'(60);
            mal = tl_d || nb_i == 6'd0 || nb_i > 6'd32 || w_err_d || !w_done_d ||
                  (w_e_d - OW'(O0) > OW'(MaxPack)) || flen != lmin;
            // header fields
            if (Profile == 0) begin
              tcls = hb[55:52];
              id = {hb[81:80], hb[88 +: 8]};
              hdr_ok = hb[0 +: 8] == 8'h02 && hb[16 +: 8] == 8'h00 && hb[24 +: 8] == 8'h00 && hb[32 +: 8] == {6'b0, own_q[9:8]} &&
                       hb[40 +: 8] == own_q[7:0] && hb[51:48] == 4'h2 && hb[55:54] == 2'b0 &&
                       hb[96 +: 8] == 8'h88 && hb[104 +: 8] == 8'hb6 && hb[64 +: 8] == 8'h00 && hb[72 +: 8] == 8'h00 &&
                       hb[87:82] == 6'b0;
            end else begin
              tcls = hb[31:28];
              id = {hb[33:32], hb[40 +: 8]};
              hdr_ok = hb[0 +: 8] == 8'h22 && hb[8 +: 8] == {6'b0, own_q[9:8]} && hb[16 +: 8] == own_q[7:0] &&
                       hb[27:24] == 4'h2 && hb[31:30] == 2'b0 && hb[39:34] == 6'b0;
            end
            // the source XPU id is the peer index: any id below NumXpus but the own one
            peer_ok = (32'(id) < NumXpus) && (id != own_q);
            peer = peer_ok ? PIW'(id) : '0;
            vc = tcls[1:0];
            rop = hb[117:116];
            npsn = {hb[128 +: 8], hb[136 +: 8]};
            rsvd = hb[149:146];
            apsn = {hb[160 +: 8], hb[168 +: 8]};
            fo = rsvd[3];
            f = rsvd[1:0];
            if (Profile == 0) begin
              hdr_ok = hdr_ok && hb[119:118] == 2'b0 && rop != 2'd3 && {hb[113:112], hb[120 +: 8]} == id &&
                       hb[151:150] == vc && {hb[145:144], hb[152 +: 8]} == part_q &&
                       (!fo || (w_empty_d && !rop[1] && !rsvd[2] && {1'b0, f} < 3'(NumPorts)));
            end
            c_here = CW'((gp * NumXpus + 32'(peer)) * 4 + 32'(vc));
            c_fo   = CW'((32'(f) * NumXpus + 32'(peer)) * 4 + 32'(vc));
            // the two reads of the connection memory (c_fo: f < NumPorts in an FO frame that passes)
            if (Profile == 0 && cs_val_q[32'(c_here) / 64][32'(c_here) % 64]) cs_here = cs_mem[c_here];
            if (Profile == 0 && 32'(c_fo) < NC && cs_val_q[32'(c_fo) / 64][32'(c_fo) % 64]) cs_fo = cs_mem[c_fo][15:0];
            if (err_i) vk = 5'(sue_pkg::RxDropMac);
            else if (mal) vk = 5'(sue_pkg::RxDropMal);
            else if (Profile == 0 && (crc_d ^ 32'hFFFFFFFF) != rc_d) vk = 5'(sue_pkg::RxDropRcrc);
            else if (!hdr_ok || !peer_ok) vk = 5'(sue_pkg::RxDropHdr);
            else if (Profile == 1) begin
              vk = 5'(sue_pkg::RxLiteOk);
              push = 1'b1;
            end else begin
              fbv_d = 1'b1;
              if (!fo) begin
                fb_rop_d = rop;
                fb_rapsn_d = apsn;
              end
              if (w_empty_d && !fo) begin
                vk = 5'(sue_pkg::RxAckFrames);
              end else if (fo && rop == sue_pkg::RopNone) begin
                vk = 5'(sue_pkg::RxFoFrames);
                if (dead4[f] && rec_cnt4[32'(f)*RW +: RW] == '0) begin  // the unpacker holds recorded frames only
                  fb_fo_d = sue_pkg::FoReq;
                  fb_fo_port_d = f;
                  fb_owe_psn_d = cs_fo - 16'd1;
                end else begin
                  fbv_d = 1'b0;
                  pinc_l[2*sue_pkg::RxFoDefer +: 2] = 2'd1;
                end
              end else if (fo) begin
                vk = 5'(sue_pkg::RxFoFrames);
                fb_fo_d = sue_pkg::FoAck;
                fb_fo_port_d = f;
                fb_rapsn_d = apsn;
              end else begin
                cidx_l = c_here;
                dpsn = npsn - cs_here[15:0];
                if (dpsn == 16'd0) begin
                  vk = 5'(sue_pkg::RxPdusOk);
                  push = 1'b1;
                  acc_l = 1'b1;
                  cs_wd_l = {1'b0, cs_here[15:0] + 16'd1};
                  fb_owe_d = sue_pkg::OweAck;
                  fb_owe_psn_d = npsn;
                end else if (!dpsn[15]) begin
                  vk = 5'(sue_pkg::RxDropPsn);
`ifdef SUE_MUTANT
                  // MUTANT: a NACK for every out-of-order PDU.
                  if (1'b1) begin
`else
                  if (!cs_here[16]) begin
`endif
                    nack_l = 1'b1;
                    cs_wd_l = {1'b1, cs_here[15:0]};
                    fb_owe_d = sue_pkg::OweNack;
                    fb_owe_psn_d = cs_here[15:0];
                    pinc_l[2*sue_pkg::RxNackOwed +: 2] = 2'd1;
                  end
                end else begin
                  vk = 5'(sue_pkg::RxDropDup);
                  fb_owe_d = sue_pkg::OweDup;
                  fb_owe_psn_d = cs_here[15:0] - 16'd1;
                end
              end
            end
            pinc_l[2*vk +: 2] = pinc_l[2*vk +: 2] + 2'd1;
            if (push) wc_d = wr_d;
            else wr_d = wc_q;
          end
        end
      end
      // records and buffer after this edge's push and the unpacker's pop
      rec_cnt_d = rec_cnt_lq + RW'(push) - RW'(pop[gp]);
      rd_d = rd_lq + (pop[gp] ? PW'(pop_nrows) : PW'(0));
      // 4. ready
      ready_d = !dead_d && ((wr_d - rd_d) < PW'(RxBufBeats)) && (rec_cnt_d < RW'(RxFrames));
    end

    // R-CRC state (SUE only)
    if (Profile == 0) begin : g_crc
      always_ff @(posedge clk_i) begin
        if (!rst_ni) begin
          crc_q <= 32'hFFFFFFFF;
          rc_q <= '0;
        end else begin
          crc_q <= crc_d;
          rc_q <= rc_d;
        end
      end
    end else begin : g_nocrc
      assign crc_q = 32'hFFFFFFFF;
      assign rc_q = '0;
    end

    always_ff @(posedge clk_i) begin
      if (wen) mem[wr_at] <= sb;
      if (push) rec_mem[rec_tl_q] <= {wc_q[AW-1:0], BW'(wr_d - wc_q), w_e_d, peer, vc};
    end
    for (genvar gj = 0; gj < NRd; gj++) begin : g_rd
      assign rrow[(gp*NRd + gj)*256 +: 256] = mem[uraddr + AW'(gj)];
    end
    // record rec_hd + uin (mod RxFrames): uin <= rec count <= RxFrames
    logic [RI:0] rec_nx;
    always_comb begin
      rec_nx = {1'b0, rec_hd_q} + (RI+1)'(uin4[gp*3 +: 3]);
      if (rec_nx >= (RI+1)'(RxFrames)) rec_nx = rec_nx - (RI+1)'(RxFrames);
    end
    assign rec_next[gp*RecW +: RecW] = rec_mem[rec_nx[RI-1:0]];

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        dead_lq <= 1'b0;
        ready_lq <= 1'b0;
        rd_lq <= '0;
        wr_lq <= '0;
        wc_q <= '0;
        inf_q <= 1'b0;
        tl_q <= 1'b0;
        beats_q <= '0;
        w_nxt_q <= '0;
        w_e_q <= '0;
        w_first_q <= 1'b0;
        w_done_q <= 1'b0;
        w_err_q <= 1'b0;
        w_split_q <= 1'b0;
        w_empty_q <= 1'b0;
        w_hi_q <= '0;
        hdr_q <= '0;
        rec_hd_q <= '0;
        rec_tl_q <= '0;
        rec_cnt_lq <= '0;
      end else begin
        dead_lq <= dead_d;
        ready_lq <= ready_d;
        rd_lq <= rd_d;
        wr_lq <= wr_d;
        wc_q <= wc_d;
        inf_q <= inf_d;
        tl_q <= tl_d;
        beats_q <= beats_d;
        w_nxt_q <= w_nxt_d;
        w_e_q <= w_e_d;
        w_first_q <= w_first_d;
        w_done_q <= w_done_d;
        w_err_q <= w_err_d;
        w_split_q <= w_split_d;
        w_empty_q <= w_empty_d;
        w_hi_q <= w_hi_d;
        hdr_q <= hdr_d;
        rec_cnt_lq <= rec_cnt_d;
        if (push) rec_tl_q <= (rec_tl_q == RI'(RxFrames - 1)) ? '0 : rec_tl_q + RI'(1);
        if (pop[gp]) rec_hd_q <= (rec_hd_q == RI'(RxFrames - 1)) ? '0 : rec_hd_q + RI'(1);
      end
    end

    // feedback register (SUE only)
    if (Profile == 0) begin : g_fb
      logic       fbv_q;
      logic [9:0] fb_peer_q;
      logic [1:0] fb_vc_q, fb_owe_q, fb_rop_q, fb_fo_q, fb_fo_port_q;
      logic [15:0] fb_owe_psn_q, fb_rapsn_q;
      always_ff @(posedge clk_i) begin
        if (!rst_ni) begin
          fbv_q <= 1'b0;
          fb_peer_q <= '0;
          fb_vc_q <= '0;
          fb_owe_q <= '0;
          fb_rop_q <= '0;
          fb_fo_q <= '0;
          fb_fo_port_q <= '0;
          fb_owe_psn_q <= '0;
          fb_rapsn_q <= '0;
        end else begin
          fbv_q <= fbv_d;
          if (fbv_d) begin
            fb_peer_q <= 10'(peer);
            fb_vc_q <= vc;
            fb_owe_q <= fb_owe_d;
            fb_rop_q <= fb_rop_d;
            fb_fo_q <= fb_fo_d;
            fb_fo_port_q <= fb_fo_port_d;
            fb_owe_psn_q <= fb_owe_psn_d;
            fb_rapsn_q <= fb_rapsn_d;
          end
        end
      end
      assign fb_valid_o[gp] = fbv_q;
      assign fb_peer_o[gp*10 +: 10] = fb_peer_q;
      assign fb_vc_o[gp*2 +: 2] = fb_vc_q;
      assign fb_owe_o[gp*2 +: 2] = fb_owe_q;
      assign fb_owe_psn_o[gp*16 +: 16] = fb_owe_psn_q;
      assign fb_rop_o[gp*2 +: 2] = fb_rop_q;
      assign fb_rapsn_o[gp*16 +: 16] = fb_rapsn_q;
      assign fb_fo_o[gp*2 +: 2] = fb_fo_q;
      assign fb_fo_port_o[gp*2 +: 2] = fb_fo_port_q;
    end else begin : g_nofb
      logic unused_fb;
      assign unused_fb = ^{fbv_d, fb_owe_d, fb_rop_d, fb_fo_d, fb_fo_port_d, fb_owe_psn_d, fb_rapsn_d};
      assign fb_valid_o[gp] = 1'b0;
      assign fb_peer_o[gp*10 +: 10] = '0;
      assign fb_vc_o[gp*2 +: 2] = '0;
      assign fb_owe_o[gp*2 +: 2] = '0;
      assign fb_owe_psn_o[gp*16 +: 16] = '0;
      assign fb_rop_o[gp*2 +: 2] = '0;
      assign fb_rapsn_o[gp*16 +: 16] = '0;
      assign fb_fo_o[gp*2 +: 2] = '0;
      assign fb_fo_port_o[gp*2 +: 2] = '0;
    end

    logic unused_hdr;  // entropy, hop count, TC bits 3:2 (checked through hb[48 +: 8]/hb[24 +: 8])
    assign unused_hdr = ^{hb[8 +: 8], hb[56 +: 8], hb[115:114], tcls[3:2]};  // + RH rsv
    assign took[gp] = take;
    assign mac_rx_ready_o[gp] = ready_lq;
    assign port_dead_o[gp] = dead_lq;
    assign buf_rows_o[gp*PW +: PW] = wr_lq - rd_lq;
    assign rec_count_o[gp*RW +: RW] = rec_cnt_lq;
  end

  // ---------------------------------------------------------------- connections (SUE only)
  logic [16:0] dbg_w;
  if (Profile == 0) begin : g_conn
    for (genvar w = 0; w < NVW; w++) begin : g_val
      always_ff @(posedge clk_i) begin
        if (!rst_ni) begin
          cs_val_q[w] <= '0;
        end else begin
          for (int p = 0; p < NumPorts; p++)
            if ((acc_ev[p] || nack_ev[p]) && 32'(cidx[p*CW +: CW]) / 64 == w) cs_val_q[w][32'(cidx[p*CW +: CW]) % 64] <= 1'b1;
        end
      end
    end
    // the memory: no reset; one write port per port (port p writes connections of port p only)
    always_ff @(posedge clk_i) begin
      for (int p = 0; p < NumPorts; p++)
        if (rst_ni && (acc_ev[p] || nack_ev[p])) cs_mem[cidx[p*CW +: CW]] <= cs_wd[p*17 +: 17];
    end
    always_comb begin
      dbg_w = '0;
      if (32'(dbg_conn_i) < NC && cs_val_q[32'(dbg_conn_i) / 64][32'(dbg_conn_i) % 64]) dbg_w = cs_mem[dbg_conn_i];
    end
  end else begin : g_noconn
    logic unused_conn;
    assign unused_conn = ^{acc_ev, nack_ev, cidx, cs_wd, dbg_conn_i};
    always_comb begin
      for (int w = 0; w < NVW; w++) cs_val_q[w] = '0;
      for (int c = 0; c < NC; c++) cs_mem[c] = '0;
    end
    assign dbg_w = '0;
  end
  assign dbg_exp_o = dbg_w[15:0];
  assign dbg_nacked_o = dbg_w[16];

  // ---------------------------------------------------------------- unpacker
  // frames held (pick order), FIFO of MQ entries: head = the frame being output, the newest = the fetcher's
  logic [MQ*2-1:0]       mport_q, mvc_q;
  logic [MQ*PIW-1:0]     mpeer_q;
  logic [MQ*BW-1:0]      mnr_q;
  logic [1:0]            mh_q, mh_d, mt;       // head index, tail index
  logic [2:0]            mc_q, mc_d;           // entries
  // fetcher
  logic                  fb_q, fb_d, fdone;
  logic [1:0]            fport_q, fport_d;
  logic [AW-1:0]         frow0_q, frow0_d;
  logic [OW-1:0]         fe_q, fe_d;
  logic [BW-1:0]         fnext_q, fnext_d;
  // read stage: the bytes of the rows read at the last edge
  logic [RDB*8-1:0]      rdat_q, rdat_d;       // byte k in [8k +: 8]
  logic [RNW-1:0]        rdat_n_q, rdat_n_d;
  logic [ACCR*8-1:0]     uacc_q, uacc_d, uacc_sh;  // accumulator byte k in [8k +: 8]
  logic [UW-1:0]         uacc_n_q, uacc_n_d, un;
  logic                  uphase_q;       // 0 HDR, 1 DATA
  logic [3:0]            uk_q;
  logic [11:0]           udlen_q;
  logic                  ulast_q;
  logic [1:0]            rr_q;
  logic [4*8-1:0]        cred_q;      // VC v in [8v +: 8]
  logic                  err_credit_q;
  logic [1:0]            rx_valid_q, rx_vc_q, rx_port_q;
  logic [3:0]            rx_cycle_q;
  logic [9:0]            rx_xpuid_q;
  logic [18*8-1:0]       rx_ctl_q;    // control byte k in [8k +: 8]
  logic [DB*8-1:0]       rx_data_q;   // data byte k in [8k +: 8]

  // next-state
  logic                  uphase_d, ulast_d, out_ld, ends, pick, cmd_end, stop;
  logic [1:0]            rr_d, pk, hport, hvc;
  logic [PIW-1:0]        hpeer;
  logic [MQ*2-1:0]       mport_d, mvc_d;
  logic [MQ*PIW-1:0]     mpeer_d;
  logic [MQ*BW-1:0]      mnr_d;
  logic [2:0]            mc_pop;
  logic [3:0]            uk_d;
  logic [11:0]           udlen_d, hlen, hdlen;
  logic [15:0]           hh;
  logic [UW-1:0]         uf, need, consumed;
  logic [RNW-1:0]        add;
  logic [5:0]            rlo, rhi, rn;
  logic [OW-1:0]         rbase, rows_e;
  logic [BW-1:0]         rr_row;
  logic [255:0]          row, seg;
  logic [ACCR*8-1:0]     app_m, app_v;
  logic [3:0]            take_cred;
  logic [4*8-1:0]        cred_d;
  logic                  err_credit_d;
  logic [18*8-1:0]       rx_ctl_d;
  logic [DB*8-1:0]       rx_data_d;
  logic [1:0]            rx_valid_d;
  logic [3:0]            rx_cycle_d;
  logic [RecW-1:0]       hrec;
  logic [AW-1:0]         hrow0;
  logic [BW-1:0]         hnrows;
  logic [OW-1:0]         he;
  logic [PIW-1:0]        hpk;
  logic [1:0]            hvk;

  logic unused_hh;  // op header reserved bits (checked by the walk); ends (read by the assertions)
  assign unused_hh = ^{hh[14:12], ends};
  assign uraddr = frow0_q + AW'(fnext_q);
  assign hport = mport_q[32'(mh_q)*2 +: 2];
  assign hvc = mvc_q[32'(mh_q)*2 +: 2];
  assign hpeer = mpeer_q[32'(mh_q)*PIW +: PIW];
  assign pop_nrows = mnr_q[32'(mh_q)*BW +: BW];
  // uin4: the held frames of each port
  logic [1:0] mrel;  // entry e's place in the FIFO, (e - head) mod MQ
  always_comb begin
    uin4 = '0;
    mrel = '0;
    for (int e = 0; e < MQ; e++) begin
      mrel = 2'(e) - mh_q;
      if ({1'b0, mrel} < mc_q) uin4[32'(mport_q[e*2 +: 2])*3 +: 3] = uin4[32'(mport_q[e*2 +: 2])*3 +: 3] + 3'd1;
    end
  end

  always_comb begin
    mh_d = mh_q;
    mc_d = mc_q;
    mc_pop = mc_q;
    mt = mh_q + mc_q[1:0];
    // hold: the held frames and the fetcher
    {mport_d, mvc_d, mpeer_d, mnr_d} = {mport_q, mvc_q, mpeer_q, mnr_q};
    {fb_d, fport_d, frow0_d, fe_d, fnext_d} = {fb_q, fport_q, frow0_q, fe_q, fnext_q};
    fdone = 1'b0;
    rdat_d = '0;
    rdat_n_d = '0;
    uphase_d = uphase_q;
    uk_d = uk_q;
    udlen_d = udlen_q;
    ulast_d = ulast_q;
    rr_d = rr_q;
    uacc_d = uacc_q;
    uacc_sh = uacc_q;
    un = uacc_n_q;
    rx_ctl_d = rx_ctl_q;
    rx_data_d = rx_data_q;
    rx_valid_d = sue_pkg::XNone;
    rx_cycle_d = rx_cycle_q;
    out_ld = 1'b0;
    ends = 1'b0;
    pick = 1'b0;
    stop = 1'b0;
    cmd_end = 1'b0;
    pk = '0;
    hrec = '0;
    hrow0 = '0;
    hnrows = '0;
    he = '0;
    hpk = '0;
    hvk = '0;
    hh = '0;
    hlen = '0;
    hdlen = '0;
    uf = '0;
    need = '0;
    consumed = '0;
    add = '0;
    rlo = '0;
    rhi = '0;
    rn = '0;
    rbase = '0;
    rows_e = '0;
    rr_row = '0;
    row = '0;
    seg = '0;
    app_m = '0;
    app_v = '0;
    take_cred = '0;
    pop = '0;
    // output, from uacc_q; the head frame names vc, peer and port
    if (!uphase_q) begin
      hh = {uacc_q[7:0], uacc_q[15:8]};
      hlen = hh[11:0];
      hdlen = hlen - 12'd18;
      uf = (hdlen > 12'(DB)) ? UW'(DB) : UW'(hdlen);
      need = UW'(20) + uf;
      if (uacc_n_q >= need && cred_q[32'(hvc)*8 +: 8] != 8'd0) begin
        out_ld = 1'b1;
        rx_valid_d = (hdlen != 12'd0) ? sue_pkg::XCmdData : sue_pkg::XCmd;
        rx_cycle_d = 4'd0;
        rx_ctl_d = uacc_q[2*8 +: 18*8];
        for (int i = 0; i < DB; i++) rx_data_d[8*i +: 8] = (UW'(i) < uf) ? uacc_q[8*(20 + i) +: 8] : 8'd0;
        consumed = need;
        take_cred[hvc] = 1'b1;
        udlen_d = hdlen;
        ulast_d = hh[15];
        if (hdlen > 12'(DB)) begin
          uphase_d = 1'b1;
          uk_d = 4'd1;
        end else begin
          cmd_end = 1'b1;
        end
      end
    end else begin
      // DATA k: min(DB, dlen - k*DB) bytes
      uf = ((udlen_q - 12'(32'(uk_q) * DB)) > 12'(DB)) ? UW'(DB) : UW'(udlen_q - 12'(32'(uk_q) * DB));
      if (uacc_n_q >= uf) begin
        out_ld = 1'b1;
        rx_valid_d = sue_pkg::XCmdData;
        rx_cycle_d = uk_q;
        for (int i = 0; i < DB; i++) rx_data_d[8*i +: 8] = (UW'(i) < uf) ? uacc_q[8*i +: 8] : 8'd0;
        consumed = uf;
        if (13'(32'(uk_q) + 1) * 13'(DB) >= 13'(udlen_q)) cmd_end = 1'b1;
        else uk_d = uk_q + 4'd1;
      end
    end
    if (cmd_end) begin
      uphase_d = 1'b0;
      uk_d = '0;
      if (ulast_d) begin
        // the head frame ends: its record is popped and its rows freed
        ends = 1'b1;
        for (int p = 0; p < NumPorts; p++) if (hport == 2'(p)) pop[p] = 1'b1;
        mh_d = mh_q + 2'd1;
        mc_pop = mc_q - 3'd1;
      end
    end
    mc_d = mc_pop;
    // shift out what was consumed, append the read stage (bytes [un, un + rdat_n) of the accumulator;
    // un + rdat_n <= ACCR): barrel shifts and masks, not per-byte variable indices (yosys: see "Area")
    uacc_sh = uacc_q >> (8 * 32'(consumed));
    un = uacc_n_q - consumed;
    app_m = ({{(ACCR*8-RDB*8){1'b0}}, {(RDB*8){1'b1}}} >> (8 * (RDB - 32'(rdat_n_q)))) << (8 * 32'(un));
    app_v = {{(ACCR*8-RDB*8){1'b0}}, rdat_q} << (8 * 32'(un));
    uacc_d = (uacc_sh & ~app_m) | (app_v & app_m);
    un = un + UW'(rdat_n_q);
    uacc_n_d = un;
    // read: up to NRd rows of the fetcher's frame, in order, while they fit; row r holds ops [max(O0, 32r), min(E, 32r+32))
    if (fb_q) begin
      rows_e = (fe_q + OW'(31)) >> 5;
      for (int j = 0; j < NRd; j++) begin
        rr_row = fnext_q + BW'(j);
        rbase = OW'(rr_row) << 5;
        row = rrow[(32'(fport_q)*NRd + j)*256 +: 256];
        if (!stop && OW'(rr_row) < rows_e) begin
          rlo = (rr_row == '0) ? 6'(O0) : 6'd0;
          rhi = (fe_q < rbase + OW'(32)) ? 6'(fe_q - rbase) : 6'd32;
          rn = rhi - rlo;
          if (32'(un) + 32'(add) + 32'(rn) <= ACCR) begin
            // bytes [rlo, rhi) of the row go to bytes [add, add + rn) of the read stage (add + rn <= RDB)
            seg = (row << (8 * (32 - 32'(rhi)))) >> (8 * (32 - 32'(rhi) + 32'(rlo)));
            rdat_d = rdat_d | ({{(RDB*8-256){1'b0}}, seg} << (8 * 32'(add)));
            add = add + RNW'(rn);
            fnext_d = rr_row + BW'(1);
          end else begin
            stop = 1'b1;
          end
        end
      end
      rdat_n_d = add;
      fdone = OW'(fnext_d) == rows_e;
      if (fdone) fb_d = 1'b0;
    end
    // pick: the fetcher is free after this edge's read and fewer than MQ frames stay held
    if ((!fb_q || fdone) && mc_pop < 3'(MQ)) begin
      for (int j = NumPorts - 1; j >= 0; j--) begin
        if (rec_cnt4[((32'(rr_q) + j) % NumPorts)*RW +: RW] > RW'(uin4[((32'(rr_q) + j) % NumPorts)*3 +: 3])) begin
          pick = 1'b1;
          pk = 2'((32'(rr_q) + j) % NumPorts);
        end
      end
      if (pick) begin
        hrec = rec_next[32'(pk)*RecW +: RecW];
        {hrow0, hnrows, he, hpk, hvk} = hrec;
        fb_d = 1'b1;
        fport_d = pk;
        frow0_d = hrow0;
        fe_d = he;
        fnext_d = '0;
        mport_d[32'(mt)*2 +: 2] = pk;
        mvc_d[32'(mt)*2 +: 2] = hvk;
        mpeer_d[32'(mt)*PIW +: PIW] = hpk;
        mnr_d[32'(mt)*BW +: BW] = hnrows;
        mc_d = mc_pop + 3'd1;
        rr_d = 2'((32'(pk) + 1) % NumPorts);
      end
    end
    // credits
    err_credit_d = err_credit_q;
    for (int v = 0; v < 4; v++) begin
      cred_d[8*v +: 8] = cred_q[8*v +: 8] - {7'b0, take_cred[v]};
      if (rx_credit_i[v]) begin
        if (cred_q[8*v +: 8] >= credmax_q[8*v +: 8]) err_credit_d = 1'b1;
        else cred_d[8*v +: 8] = cred_d[8*v +: 8] + 8'd1;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      mport_q <= '0;
      mvc_q <= '0;
      mpeer_q <= '0;
      mnr_q <= '0;
      mh_q <= '0;
      mc_q <= '0;
      fb_q <= 1'b0;
      fport_q <= '0;
      frow0_q <= '0;
      fe_q <= '0;
      fnext_q <= '0;
      rdat_q <= '0;
      rdat_n_q <= '0;
      uphase_q <= 1'b0;
      uk_q <= '0;
      udlen_q <= '0;
      ulast_q <= 1'b0;
      rr_q <= '0;
      uacc_q <= '0;
      uacc_n_q <= '0;
      cred_q <= cfg_rx_credits_i;
      err_credit_q <= 1'b0;
      rx_valid_q <= '0;
      rx_cycle_q <= '0;
      rx_vc_q <= '0;
      rx_port_q <= '0;
      rx_xpuid_q <= '0;
      rx_ctl_q <= '0;
      rx_data_q <= '0;
    end else begin
      mport_q <= mport_d;
      mvc_q <= mvc_d;
      mpeer_q <= mpeer_d;
      mnr_q <= mnr_d;
      mh_q <= mh_d;
      mc_q <= mc_d;
      fb_q <= fb_d;
      fport_q <= fport_d;
      frow0_q <= frow0_d;
      fe_q <= fe_d;
      fnext_q <= fnext_d;
      rdat_q <= rdat_d;
      rdat_n_q <= rdat_n_d;
      uphase_q <= uphase_d;
      uk_q <= uk_d;
      udlen_q <= udlen_d;
      ulast_q <= ulast_d;
      rr_q <= rr_d;
      uacc_q <= uacc_d;
      uacc_n_q <= uacc_n_d;
      cred_q <= cred_d;
      err_credit_q <= err_credit_d;
      rx_valid_q <= rx_valid_d;
      if (out_ld) begin
        rx_cycle_q <= rx_cycle_d;
        rx_vc_q <= hvc;
        rx_port_q <= hport;
        rx_xpuid_q <= 10'(hpeer);
        rx_ctl_q <= rx_ctl_d;
        rx_data_q <= rx_data_d;
      end
    end
  end

  assign rx_valid_o = rx_valid_q;
  assign rx_cycle_o = rx_cycle_q;
  assign rx_vc_o = rx_vc_q;
  assign rx_xpuid_o = rx_xpuid_q;
  assign rx_port_o = rx_port_q;
  always_comb begin
    for (int k = 0; k < 18; k++) rx_control_o[143 - 8*k -: 8] = rx_ctl_q[8*k +: 8];
    for (int k = 0; k < DB; k++) rx_data_o[DataW - 1 - 8*k -: 8] = rx_data_q[8*k +: 8];
  end
  assign cred_o = cred_q;
  assign err_credit_o = err_credit_q;

  // ---------------------------------------------------------------- counters
  logic [NCnt*CntW-1:0]  cnt_q, cnt_d;  // counter i in [i*CntW +: CntW]
  always_comb begin
    cnt_d = cnt_q;
    for (int p = 0; p < NumPorts; p++) begin
      for (int i = 0; i < NCnt; i++) cnt_d[i*CntW +: CntW] = cnt_d[i*CntW +: CntW] + CntW'(pinc[(p*NCnt + i)*2 +: 2]);
      cnt_d[sue_pkg::RxBytesIn*CntW +: CntW] = cnt_d[sue_pkg::RxBytesIn*CntW +: CntW] + CntW'(pbytes[p*6 +: 6]);
    end
    if (out_ld && !uphase_q) cnt_d[sue_pkg::RxCmdsOut*CntW +: CntW] = cnt_d[sue_pkg::RxCmdsOut*CntW +: CntW] + CntW'(1);
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) cnt_q <= '0;
    else cnt_q <= cnt_d;
  end
  assign cnt_frames_in_o       = cnt_q[sue_pkg::RxFramesIn*CntW +: CntW];
  assign cnt_bytes_in_o        = cnt_q[sue_pkg::RxBytesIn*CntW +: CntW];
  assign cnt_pdus_ok_o         = cnt_q[sue_pkg::RxPdusOk*CntW +: CntW];
  assign cnt_lite_ok_o         = cnt_q[sue_pkg::RxLiteOk*CntW +: CntW];
  assign cnt_ack_frames_o      = cnt_q[sue_pkg::RxAckFrames*CntW +: CntW];
  assign cnt_fo_frames_o       = cnt_q[sue_pkg::RxFoFrames*CntW +: CntW];
  assign cnt_fo_req_deferred_o = cnt_q[sue_pkg::RxFoDefer*CntW +: CntW];
  assign cnt_drop_mac_o        = cnt_q[sue_pkg::RxDropMac*CntW +: CntW];
  assign cnt_drop_dead_o       = cnt_q[sue_pkg::RxDropDead*CntW +: CntW];
  assign cnt_drop_malformed_o  = cnt_q[sue_pkg::RxDropMal*CntW +: CntW];
  assign cnt_drop_rcrc_o       = cnt_q[sue_pkg::RxDropRcrc*CntW +: CntW];
  assign cnt_drop_hdr_o        = cnt_q[sue_pkg::RxDropHdr*CntW +: CntW];
  assign cnt_drop_psn_o        = cnt_q[sue_pkg::RxDropPsn*CntW +: CntW];
  assign cnt_drop_dup_o        = cnt_q[sue_pkg::RxDropDup*CntW +: CntW];
  assign cnt_nack_owed_o       = cnt_q[sue_pkg::RxNackOwed*CntW +: CntW];
  assign cnt_stray_beats_o     = cnt_q[sue_pkg::RxStray*CntW +: CntW];
  assign cnt_cmds_out_o        = cnt_q[sue_pkg::RxCmdsOut*CntW +: CntW];

  // ---------------------------------------------------------------- cover points
  // The receive-side events of docs/sue.md's test plan (any port), counted by `make coverage`.
`ifndef SYNTHESIS
  logic [NCnt-1:0] cov_ev;  // counter i incremented on some port at this edge
  always_comb begin
    cov_ev = '0;
    for (int p = 0; p < NumPorts; p++)
      for (int i = 0; i < NCnt; i++) cov_ev[i] = cov_ev[i] | (pinc[(p*NCnt + i)*2 +: 2] != 2'd0);
  end
  c_drop_mac:   cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxDropMac]);
  generate
    if (Profile == 0) begin : g_cov
      c_drop_out_of_order: cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxDropPsn]);
      c_drop_duplicate:    cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxDropDup]);
      c_drop_rcrc:         cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxDropRcrc]);
      c_nack_owed:         cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxNackOwed]);
      c_fo_frame:          cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxFoFrames]);
      c_drop_dead_port:    cover property (@(posedge clk_i) disable iff (!rst_ni) cov_ev[sue_pkg::RxDropDead]);
    end
  endgenerate
`endif

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++) begin
        assert (!(took[p] && !ready_q[p]))
          else $error("sue_rx: port %0d beat taken while ready is low", p);
        assert ((wr_q[p*PW +: PW] - rd_q[p*PW +: PW]) <= PW'(RxBufBeats))
          else $error("sue_rx: port %0d holds %0d rows > RxBufBeats", p, wr_q[p*PW +: PW] - rd_q[p*PW +: PW]);
        assert (32'(rec_cnt_q[p*RW +: RW]) <= RxFrames)
          else $error("sue_rx: port %0d holds %0d records > RxFrames", p, rec_cnt_q[p*RW +: RW]);
`ifndef SUE_MUTANT
        assert (!(nack_ev[p] && cs_val_q[32'(cidx[p*CW +: CW]) / 64][32'(cidx[p*CW +: CW]) % 64] &&
                  cs_mem[cidx[p*CW +: CW]][16]))
          else $error("sue_rx: second NACK for one gap on connection %0d", cidx[p*CW +: CW]);
`endif
        assert (!(pinc[(p*NCnt + sue_pkg::RxPdusOk)*2 +: 2] != 2'd0 && dead_q[p]))
          else $error("sue_rx: event from dead port %0d", p);
      end
      for (int p = 0; p < NumPorts; p++)
        assert (32'(uin4[p*3 +: 3]) <= 32'(rec_cnt4[p*RW +: RW]))
          else $error("sue_rx: port %0d: the unpacker holds a frame without a record (command before its verdict)", p);
      assert (32'(uacc_n_q) + 32'(rdat_n_q) - 32'(consumed) <= ACCR)
        else $error("sue_rx: unpacker accumulator overflow");
      assert (!(ends && mc_q == 3'd0))
        else $error("sue_rx: a frame ends that the unpacker does not hold");
      for (int v = 0; v < 4; v++)
        assert (!(take_cred[v] && cred_q[8*v +: 8] == 8'd0))
          else $error("sue_rx: VC %0d credit underflow", v);
    end
  end
`endif
`endif

endmodule
