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
// Structure, along the datapath:
//   sue_rx_port (one per port, rtl/sue/sue_rx_port.sv): input beat, frame buffer and records, op walk,
//     R-CRC and the verdict, all computed while the frame streams in, one beat per edge (at most three
//     header events per beat), so the verdict is known at the edge that takes the eof beat; the
//     feedback register to sue_tx.
//   this module: configuration registers, the connection memory shared by the ports (an FO-REQ reads
//     another port's connection) with its valid bits and debug read port, the counters, cover points.
//   sue_rx_unpack (rtl/sue/sue_rx_unpack.sv): a three-stage pipeline (read up to NRd=4 (6 at DataW
//     1024) rows of one frame per edge, append them to the accumulator at the next edge, output one
//     XPU beat per edge) that picks the next frame in the edge the previous frame's rows are all read,
//     so every port is unpacked at its line rate; the per-VC credits to the XPU.
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
  localparam int NRd0  = (22 + 20 + DB + 31) / 32;          // rows a command's first XPU beat can reach
  localparam int NRd   = (NRd0 > 4) ? NRd0 : 4;             // rows the unpacker reads per edge (4; 6 at DB 128)
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
  logic [NumPorts-1:0]           dead_q;
  logic [NumPorts*RW-1:0]        rec_cnt_q;   // per port p: [p*RW +: RW]
  // connection state (SUE): a memory of NC words {nacked, exp} (docs/sue.md "Connection state in
  // memories"). Read at most twice per port per edge (the frame's connection, the FO-REQ's) and once
  // by the debug port; written at most once per port per edge, each port its own connections only.
  // A valid bit per connection, cleared by reset and set by the first write: a word never written
  // since reset reads as exp 0, not nacked (a memory is not reset).
  localparam int NVW = (NC + 63) / 64;      // valid-bit words (g_conn: cs_mem [NC], cs_val_q [NVW])
  logic [NumPorts*CW-1:0]        c_here, c_fo; // per port p: the connections its frame's header names
  logic [NumPorts*17-1:0]        cs_here;      // per port p: the word at c_here
  logic [NumPorts*16-1:0]        cs_fo;        // per port p: exp at c_fo
  logic [NumPorts*17-1:0]        cs_wd;        // per port p: the word written at cidx (acc_ev | nack_ev)
  // unpacker
  logic [NumPorts-1:0]           pop;          // the unpacker ends port p's head frame this edge
  logic [BW-1:0]                 pop_nrows;    // that frame's rows
  logic [AW-1:0]                 uraddr;       // first row the fetcher reads (all ports; muxed)
  logic [NumPorts*NRd*256-1:0]   rrow;         // rows uraddr .. uraddr+NRd-1 of each port, row j in [(p*NRd+j)*256 +: 256]
  logic [NumPorts*RecW-1:0]      rec_next;     // each port's first record the unpacker does not hold yet
  logic [4*3-1:0]                uin4;         // frames of port p the unpacker holds: [3p +: 3]
  logic                          cmd_out;      // a command's beat 0 goes to the XPU
  // per-port results
  logic [NumPorts-1:0]           took;                // a beat taken this edge
  logic [NumPorts-1:0]           acc_ev, nack_ev;     // accept / NACK owed on connection cidx
  logic [NumPorts*CW-1:0]        cidx;
  logic [NumPorts*NCnt*2-1:0]    pinc;           // counter increments, port p counter i: [(p*NCnt+i)*2 +: 2]
  logic [NumPorts*6-1:0]         pbytes;         // bytes_in increment per port
  logic                          unused_obs;     // took: read by the ports' assertions; uin4: ports >= NumPorts
  assign unused_obs = ^{took, uin4};
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

  // ---------------------------------------------------------------- ports (sue_rx_port)
  for (genvar gp = 0; gp < NumPorts; gp++) begin : g_port
    sue_rx_port #(
      .Profile(Profile), .Port(gp), .NumPorts(NumPorts), .NumXpus(NumXpus), .MaxData(MaxData),
      .MaxPack(MaxPack), .RxBufBeats(RxBufBeats), .RxFrames(RxFrames), .O0(O0), .MFB(MFB), .OW(OW),
      .BW(BW), .CW(CW), .NRd(NRd)
    ) u_port (
      .clk_i, .rst_ni, .own_i(own_q), .part_i(part_q), .up_i(port_up_i[gp]),
      .v_i(mac_rx_valid_i[gp]), .sof_i(mac_rx_sof_i[gp]), .eof_i(mac_rx_eof_i[gp]), .err_i(mac_rx_err_i[gp]),
      .nb_i(mac_rx_nbytes_i[gp*6 +: 6]), .data_i(mac_rx_data_i[gp*256 +: 256]),
      .ready_o(mac_rx_ready_o[gp]), .dead_o(dead_q[gp]), .buf_rows_o(buf_rows_o[gp*PW +: PW]),
      .rec_count_o(rec_cnt_q[gp*RW +: RW]), .dead4_i(dead4), .rec_cnt4_i(rec_cnt4),
      .c_here_o(c_here[gp*CW +: CW]), .c_fo_o(c_fo[gp*CW +: CW]), .cs_here_i(cs_here[gp*17 +: 17]),
      .cs_fo_i(cs_fo[gp*16 +: 16]), .acc_o(acc_ev[gp]), .nack_o(nack_ev[gp]), .cidx_o(cidx[gp*CW +: CW]),
      .cs_wd_o(cs_wd[gp*17 +: 17]),
      .pop_i(pop[gp]), .pop_nrows_i(pop_nrows), .uraddr_i(uraddr), .rrow_o(rrow[gp*NRd*256 +: NRd*256]),
      .uin_i(uin4[gp*3 +: 3]), .rec_next_o(rec_next[gp*RecW +: RecW]),
      .took_o(took[gp]), .pinc_o(pinc[gp*NCnt*2 +: NCnt*2]), .pbytes_o(pbytes[gp*6 +: 6]),
      .fb_valid_o(fb_valid_o[gp]), .fb_peer_o(fb_peer_o[gp*10 +: 10]), .fb_vc_o(fb_vc_o[gp*2 +: 2]),
      .fb_owe_o(fb_owe_o[gp*2 +: 2]), .fb_owe_psn_o(fb_owe_psn_o[gp*16 +: 16]), .fb_rop_o(fb_rop_o[gp*2 +: 2]),
      .fb_rapsn_o(fb_rapsn_o[gp*16 +: 16]), .fb_fo_o(fb_fo_o[gp*2 +: 2]), .fb_fo_port_o(fb_fo_port_o[gp*2 +: 2])
    );
  end
  assign port_dead_o = dead_q;
  assign rec_count_o = rec_cnt_q;

  // ---------------------------------------------------------------- connections (SUE only)
  logic [16:0] dbg_w;
  if (Profile == 0) begin : g_conn
    logic [16:0] cs_mem [NC];
    logic [63:0] cs_val_q [NVW];
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
    // the ports' reads: the word of each port's c_here and c_fo (0 if never written; c_fo may be >= NC
    // in a frame the verdict drops)
    always_comb begin
      for (int p = 0; p < NumPorts; p++) begin
        cs_here[p*17 +: 17] = '0;
        cs_fo[p*16 +: 16] = '0;
        if (cs_val_q[32'(c_here[p*CW +: CW]) / 64][32'(c_here[p*CW +: CW]) % 64]) cs_here[p*17 +: 17] = cs_mem[c_here[p*CW +: CW]];
        if (32'(c_fo[p*CW +: CW]) < NC && cs_val_q[32'(c_fo[p*CW +: CW]) / 64][32'(c_fo[p*CW +: CW]) % 64])
          cs_fo[p*16 +: 16] = cs_mem[c_fo[p*CW +: CW]][15:0];
      end
    end
    always_comb begin
      dbg_w = '0;
      if (32'(dbg_conn_i) < NC && cs_val_q[32'(dbg_conn_i) / 64][32'(dbg_conn_i) % 64]) dbg_w = cs_mem[dbg_conn_i];
    end
`ifndef SYNTHESIS
`ifdef SUE_ASSERT
`ifndef SUE_MUTANT
    always_ff @(posedge clk_i) begin
      if (rst_ni) begin
        for (int p = 0; p < NumPorts; p++)
          assert (!(nack_ev[p] && cs_val_q[32'(cidx[p*CW +: CW]) / 64][32'(cidx[p*CW +: CW]) % 64] &&
                    cs_mem[cidx[p*CW +: CW]][16]))
            else $error("sue_rx: second NACK for one gap on connection %0d", cidx[p*CW +: CW]);
      end
    end
`endif
`endif
`endif
  end else begin : g_noconn
    logic unused_conn;
    assign unused_conn = ^{acc_ev, nack_ev, cidx, cs_wd, dbg_conn_i, c_here, c_fo};
    assign cs_here = '0;
    assign cs_fo = '0;
    assign dbg_w = '0;
  end
  assign dbg_exp_o = dbg_w[15:0];
  assign dbg_nacked_o = dbg_w[16];

  // ---------------------------------------------------------------- unpacker (sue_rx_unpack)
  sue_rx_unpack #(
    .NumPorts(NumPorts), .DataW(DataW), .O0(O0), .PIW(PIW), .AW(AW), .BW(BW), .OW(OW), .RW(RW), .NRd(NRd)
  ) u_unpack (
    .clk_i, .rst_ni, .cfg_rx_credits_i, .credmax_i(credmax_q), .rec_cnt4_i(rec_cnt4), .rec_next_i(rec_next),
    .uin4_o(uin4), .uraddr_o(uraddr), .rrow_i(rrow), .pop_o(pop), .pop_nrows_o(pop_nrows),
    .rx_valid_o, .rx_cycle_o, .rx_vc_o, .rx_xpuid_o, .rx_port_o, .rx_control_o, .rx_data_o, .rx_credit_i,
    .cred_o, .err_credit_o, .cmd_out_o(cmd_out)
  );

  // ---------------------------------------------------------------- counters
  logic [NCnt*CntW-1:0]  cnt_q, cnt_d;  // counter i in [i*CntW +: CntW]
  always_comb begin
    cnt_d = cnt_q;
    for (int p = 0; p < NumPorts; p++) begin
      for (int i = 0; i < NCnt; i++) cnt_d[i*CntW +: CntW] = cnt_d[i*CntW +: CntW] + CntW'(pinc[(p*NCnt + i)*2 +: 2]);
      cnt_d[sue_pkg::RxBytesIn*CntW +: CntW] = cnt_d[sue_pkg::RxBytesIn*CntW +: CntW] + CntW'(pbytes[p*6 +: 6]);
    end
    if (cmd_out) cnt_d[sue_pkg::RxCmdsOut*CntW +: CntW] = cnt_d[sue_pkg::RxCmdsOut*CntW +: CntW] + CntW'(1);
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

endmodule
