// sue_tx -- SUE transport, transmit side of one node.
//
// Takes XPU commands (ingress, per-{peer, VC} queues and credits), packs the
// commands of one queue into PDUs, numbers them per connection {port, peer,
// VC}, keeps them until acknowledged (descriptors, go-back-N on NACK or RTO),
// piggybacks the ACK/NACK that sue_rx says is owed, fails connections of a
// dead port over to a live one exactly once (FO-REQ / FO-ACK / MIGRATE), and
// builds AFH Gen2 frames (network header + SUE PDU) into one 256-bit beat
// stream per port. SUE Lite (Profile=1) generates the transport out.
//
// Cycle-level contract: docs/sue.md, section "Transport" (the comments below
// carry the step numbers of "sue_tx: one rising edge"). The C++ twin
// sue::TxModel (models/sue/) implements the same text and is compared against
// this module on every output, every cycle. Right-hand sides read pre-edge
// values (_q) and inputs.
//
// Structure (combinational blocks in dependency order, no loops between them):
//   C1 port status, ok(p,v)            -> S1 (SUE) candidates FO-ACK, FO-REQ, RTX, ACK-only
//   C2 port_sel, NEW selection, packing -> S2 (SUE) MIGRATE, SUE job, NEW PSN/piggyback
//   C3 the job                          -> S3 (SUE) connection next state, walkers
//   C4 builders, ingress, slot frees, counters
// S1-S3, the connection state and its timers, are the module sue_tx_conn (sue_tx_conn.sv, instance
// g_sue.u_conn, with its timer lists in sue_tx_tlist.sv); C1-C4 are here (docs/sue.md "sue_tx: modules").
//
// Simulation-only assertions: +define+SUE_ASSERT. +define+SUE_MUTANT_ACK (an owed ACK due one edge
// late), +define+SUE_MUTANT_RTO (an RTO one edge late) and +define+SUE_MUTANT_FO (the failover retry one
// edge late) plant bugs in the timers for the lockstep self-check (SueMutant.AckDelayListCaught,
// RtoListCaught, FoRetryFifoCaught). +define+SUE_MUTANT plants a deliberate bug for the testbench
// self-check: a NACK(e) starts the go-back-N at e+1 (the NACKed PDU is never resent). All four are in
// sue_tx_conn.sv.

module sue_tx #(
  parameter int Profile    = 0,
  parameter int NumPorts   = 1,
  parameter int NumXpus    = 8,     // XPU ids 0..NumXpus-1 this instance addresses (peer = XPU id)
  parameter int DataW      = 256,
  parameter int MaxData    = 256,
  parameter int MaxPack    = (Profile == 0) ? 4096 : 1024,
  parameter int QDepth     = 64,
  // commands a queue may hold unsent (its ring of {slot, dlen}); above QDepth, credits go back at the
  // ingress while the pool has a free slot for every credit the XPUs hold (docs/sue.md "Shared-buffer credits")
  parameter int QCap       = 4 * QDepth,
  parameter int Window     = 64,
  parameter int RxBufBeats = 512,
  parameter int RxFrames   = 16,
  parameter int CntW       = 32,
  // command slots shared by all queues (queued + sent, unacknowledged): NQ*QDepth reserved for credited
  // commands + 3,072 sent ones (800 Gb/s x 2.5 us of 64-byte commands), rounded up to a power of 2
  parameter int Pool       = 1 << $clog2(NumXpus * 4 * QDepth + 3072),
  // derived (do not override)
  parameter int NQ         = NumXpus * 4,
  parameter int NC         = NumPorts * NumXpus * 4,
  parameter int PW         = $clog2(Pool) + 1,   // slot counts (q_count_o) and command counts
  parameter int IW         = $clog2(Window) + 1
) (
  input  logic                     clk_i,
  input  logic                     rst_ni,
  // configuration, sampled on reset edges
  input  logic [9:0]               cfg_own_xpuid_i,
  input  logic                     cfg_strict_i,
  input  logic [9:0]               cfg_partition_i,
  input  logic [7:0]               cfg_hop_count_i,
  input  logic [15:0]              cfg_vc_weight_i,
  input  logic [23:0]              cfg_rto_i,
  input  logic [15:0]              cfg_ack_delay_i,
  input  logic [7:0]               cfg_ack_count_i,
  input  logic [23:0]              cfg_win_bytes_i,
  input  logic [23:0]              cfg_fo_retry_i,
  // XPU transmit interface
  input  logic [1:0]               tx_valid_i,
  input  logic [3:0]               tx_cycle_i,
  input  logic [1:0]               tx_vc_i,
  input  logic [9:0]               tx_xpuid_i,
  input  logic [143:0]             tx_control_i,
  input  logic [DataW-1:0]         tx_data_i,
  input  logic                     tx_err_i,
  output logic [NQ*2-1:0]          tx_credit_o,
  // CBFC gate and link status
  input  logic [NumPorts*4-1:0]    credit_ok_i,
  input  logic [NumPorts-1:0]      port_up_i,
  // feedback from sue_rx
  input  logic [NumPorts-1:0]      fb_valid_i,
  input  logic [NumPorts*10-1:0]   fb_peer_i,
  input  logic [NumPorts*2-1:0]    fb_vc_i,
  input  logic [NumPorts*2-1:0]    fb_owe_i,
  input  logic [NumPorts*16-1:0]   fb_owe_psn_i,
  input  logic [NumPorts*2-1:0]    fb_rop_i,
  input  logic [NumPorts*16-1:0]   fb_rapsn_i,
  input  logic [NumPorts*2-1:0]    fb_fo_i,
  input  logic [NumPorts*2-1:0]    fb_fo_port_i,
  // network side
  output logic [NumPorts-1:0]      mac_tx_valid_o,
  output logic [NumPorts*256-1:0]  mac_tx_data_o,
  output logic [NumPorts-1:0]      mac_tx_sof_o,
  output logic [NumPorts-1:0]      mac_tx_eof_o,
  output logic [NumPorts*6-1:0]    mac_tx_nbytes_o,
  input  logic [NumPorts-1:0]      mac_tx_ready_i,
  // observability: debug read ports (queue dbg_q_i, connection dbg_conn_i: the state after the last
  // edge, read combinationally; 0 for an index >= NQ / NC, the connection fields 0 in Lite) and the
  // command slots in use
  input  logic [$clog2(NQ)-1:0]    dbg_q_i,
  input  logic [$clog2(NC)-1:0]    dbg_conn_i,
  output logic [PW-1:0]            dbg_q_count_o,
  output logic [PW-1:0]            dbg_q_unsent_o,
  output logic [15:0]              dbg_npsn_o,
  output logic [15:0]              dbg_ack_psn_o,
  output logic [IW-1:0]            dbg_inflight_o,
  output logic [23:0]              dbg_inbytes_o,
  output logic [2:0]               dbg_state_o,
  output logic [PW-1:0]            pool_used_o,
  output logic [NumPorts-1:0]      port_dead_o,
  output logic [NumPorts*24-1:0]   out_bytes_o,
  output logic                     err_cmd_o,
  output logic                     err_dest_o,
  output logic                     err_overflow_o,
  output logic                     err_no_port_o,
  // counters (order of sue::TxCnt in models/sue/sue_tx_model.hpp)
  output logic [CntW-1:0]          cnt_cmds_in_o,
  output logic [CntW-1:0]          cnt_cmd_bad_o,
  output logic [CntW-1:0]          cnt_cmd_err_o,
  output logic [CntW-1:0]          cnt_cmd_overflow_o,
  output logic [CntW-1:0]          cnt_stray_cycles_o,
  output logic [CntW-1:0]          cnt_pdus_new_o,
  output logic [CntW-1:0]          cnt_pdus_rtx_o,
  output logic [CntW-1:0]          cnt_pdus_mig_o,
  output logic [CntW-1:0]          cnt_ack_only_o,
  output logic [CntW-1:0]          cnt_ack_sent_o,
  output logic [CntW-1:0]          cnt_nack_sent_o,
  output logic [CntW-1:0]          cnt_nack_rcvd_o,
  output logic [CntW-1:0]          cnt_gbn_o,
  output logic [CntW-1:0]          cnt_rto_o,
  output logic [CntW-1:0]          cnt_fo_req_sent_o,
  output logic [CntW-1:0]          cnt_fo_ack_sent_o,
  output logic [CntW-1:0]          cnt_fo_ack_rcvd_o,
  output logic [CntW-1:0]          cnt_cmds_sent_o,
  output logic [CntW-1:0]          cnt_payload_bytes_o,
  output logic [CntW-1:0]          cnt_frames_out_o,
  output logic [CntW-1:0]          cnt_bytes_out_o
);

  // ---------------------------------------------------------------- constants
  localparam int DB      = DataW / 8;                     // XPU bytes per beat
  localparam int NB      = (MaxData + DB - 1) / DB;        // data beats per slot
  localparam int QB      = $clog2(Pool);                   // slot id bits
  localparam int PMin    = NQ * QDepth + ((QDepth < MaxPack / 20) ? QDepth : MaxPack / 20);
  /* verilator lint_off UNUSEDPARAM */
  localparam int HMax    = Pool - NQ * QDepth;             // sent commands the pool may hold (assertions)
  /* verilator lint_on UNUSEDPARAM */
  localparam int CIW     = $clog2(NC);                     // connection index bits
  localparam int QIW     = $clog2(NQ);                     // queue index bits
  localparam int NPC     = NumXpus * 4;                    // connections per port
  localparam int PIW     = $clog2(NumXpus);                // peer (= XPU id) index bits
  localparam int HB      = (Profile == sue_pkg::ProfSue) ? sue_pkg::HdrSue : sue_pkg::HdrLite;        // H
  localparam int PackLim = (Profile == sue_pkg::ProfSue) ? sue_pkg::PackLimSue : sue_pkg::PackLimLite;
  localparam int FrLen   = (Profile == 0) ? (HB + 8 + MaxPack + 4) : (HB + MaxPack);
  localparam int MaxFrameBeats = (((FrLen > 60) ? FrLen : 60) + 31) / 32;
  localparam int NumCnt  = sue_pkg::TxNumCnt;

  // SUE job kinds (s_kind): priority order of step 4
  localparam logic [2:0] KFoAck = sue_pkg::KFoAck, KFoReq = sue_pkg::KFoReq, KRtx = sue_pkg::KRtx,
                         KAckOnly = sue_pkg::KAckOnly, KMig = sue_pkg::KMig;

  // ---------------------------------------------------------------- parameter checks
`ifndef SYNTHESIS
  initial begin
    if (Profile != 0 && Profile != 1) $fatal(1, "sue_tx: Profile=%0d not allowed (allowed: 0 SUE, 1 SUE Lite)", Profile);
    if (NumPorts != 1 && NumPorts != 2 && NumPorts != 4) $fatal(1, "sue_tx: NumPorts=%0d not allowed (allowed: 1, 2, 4)", NumPorts);
    if (NumXpus < 2 || NumXpus > 1024) $fatal(1, "sue_tx: NumXpus=%0d not allowed (allowed: 2..1024)", NumXpus);
    if (DataW != 128 && DataW != 256 && DataW != 512 && DataW != 1024) $fatal(1, "sue_tx: DataW=%0d not allowed (allowed: 128, 256, 512, 1024)", DataW);
    if (MaxPack > PackLim || MaxPack < 20 + MaxData) $fatal(1, "sue_tx: MaxPack=%0d not allowed (allowed: %0d..%0d)", MaxPack, 20 + MaxData, PackLim);
    if (MaxData < 1 || MaxData > 16 * DB) $fatal(1, "sue_tx: MaxData=%0d not allowed (allowed: 1..min(16*DB, MaxPack-20))", MaxData);
    if (QDepth < 2 || QDepth > 256 || (QDepth & (QDepth - 1)) != 0) $fatal(1, "sue_tx: QDepth=%0d not allowed (allowed: power of 2, 2..256)", QDepth);
    if (QCap < QDepth || QCap > 1024 || (QCap & (QCap - 1)) != 0) $fatal(1, "sue_tx: QCap=%0d not allowed (allowed: power of 2, QDepth..1024)", QCap);
    if (Pool < PMin || Pool > (1 << 20) || (Pool & (Pool - 1)) != 0) $fatal(1, "sue_tx: Pool=%0d not allowed (allowed: power of 2, %0d..%0d)", Pool, PMin, 1 << 20);
    if (Window < 1 || Window > 256 || (Window & (Window - 1)) != 0) $fatal(1, "sue_tx: Window=%0d not allowed (allowed: power of 2, 1..256)", Window);
    if (RxBufBeats < MaxFrameBeats || (RxBufBeats & (RxBufBeats - 1)) != 0) $fatal(1, "sue_tx: RxBufBeats=%0d not allowed (allowed: power of 2, >= %0d)", RxBufBeats, MaxFrameBeats);
    if (RxFrames < 1 || RxFrames > 64) $fatal(1, "sue_tx: RxFrames=%0d not allowed (allowed: 1..64)", RxFrames);
    if (CntW < 16 || CntW > 64) $fatal(1, "sue_tx: CntW=%0d not allowed (allowed: 16..64)", CntW);
  end
`endif

  // Ring entry of queue q at pointer x: q*QCap + x mod QCap.
  function automatic logic [31:0] ridx(input int q, input logic [PW-1:0] x);
    logic [PW-1:0] m;
    m = x & PW'(QCap - 1);
    ridx = 32'(q) * QCap + 32'(m);
  endfunction

  // ---------------------------------------------------------------- registers (common)
  // configuration
  logic [9:0]              own_q;
  logic                    strict_q;
  logic [9:0]              part_q;
  logic [7:0]              hop_q;
  logic [15:0]             weight_q;
  logic [23:0]             rto_q;
  logic [15:0]             ack_delay_q;
  logic [7:0]              ack_count_q;
  logic [23:0]             win_bytes_q;
  logic [23:0]             fo_retry_q;
  // queues: ring pointers send <= tail (PW-bit counters, ring entry = pointer mod QCap), ring entries
  // {slot, dlen} of the unsent commands; the queue's list through sl_next: hd (oldest) .. lst (newest);
  // held sent commands in the pool; hrem commands of the acknowledged PDU hpdu at hd still to free; df
  // the unsent commands whose credit has not gone back (df <= tail - send). One word per queue in the
  // memory qm, {df, send, tail, held, hrem, hd, lst, hpdu}, read and written at this edge's queues only
  // (NEW's, the ingress', the free's, the link's, the builders' and walkers'); in flops per queue only
  // what every queue's credit return and freeable test read at every edge: the credits of formed
  // commands not yet given back pc (one per edge; df + pc <= QDepth) and the bitmaps below.
  localparam int CW   = $clog2(QDepth) + 1;                 // pc and df bits
  localparam int OHpdu = 0, OLst = QB, OHd = 2 * QB, OHrem = 3 * QB, OHeld = 3 * QB + PW,
                 OTail = 3 * QB + 2 * PW, OSend = 3 * QB + 3 * PW, ODf = 3 * QB + 4 * PW,
                 QWW = 3 * QB + 4 * PW + CW;
  localparam int KMax = (QCap < MaxPack / 20) ? QCap : MaxPack / 20;  // commands a PDU may pack
  localparam int SW   = PW + 2;                                        // slack bits (signed)
  logic [QWW-1:0]          qm [NQ];
  logic [NQ-1:0]           qv_q, qv_d;                       // qm[q] written since reset (else it reads 0)
  logic [NQ*CW-1:0]        pc_q, pc_d;
  logic [NQ-1:0]           hx_q, hx_d;                       // held > pc: the oldest held slot's credit went back
  logic [NQ-1:0]           hrz_q, hrz_d;                     // hrem != 0
  logic [QB-1:0]           rs_slot [NQ*QCap];
  logic [11:0]             rs_dlen [NQ*QCap];
  // the credits deferred (sum of df) and the pool slack: free slots + sum df + the ingress command's
  // - NQ*QDepth >= 0, a free slot for every credit the XPUs hold or pc owes them
  logic [PW-1:0]           sdf_q, sdf_d;
  logic signed [SW-1:0]    slk;
  // the word of queue q before this edge
  function automatic logic [QWW-1:0] qrd(input logic [QIW-1:0] q);
    qrd = qv_q[q] ? qm[q] : '0;
  endfunction
  // the pool: slots (written at allocation), next links, acknowledged-PDU marks (ackn of a PDU's first slot)
  logic [143:0]            sl_ctrl [Pool];
  logic [11:0]             sl_dlen [Pool];
  logic [DataW-1:0]        sl_data [Pool*NB];
  logic [QB-1:0]           sl_next [Pool];
  logic [PW-1:0]           sl_ackn [Pool];
  // never-used slots [fresh, Pool), the free FIFO (fl_mem, rp/wp PW+1 bits), held commands of all queues,
  // the round robin of the slot free
  logic [PW-1:0]           fresh_q, fresh_d, sheld_q, sheld_d;
  logic [PW-1:0]           flrp_q, flrp_d, flwp_q, flwp_d;
  logic [QB-1:0]           fl_mem [Pool];
  logic [QIW-1:0]          frr_q, frr_d;
  // ingress
  logic                    in_act_q, in_act_d, in_drop_q, in_drop_d, in_err_q, in_err_d;
  logic [QIW-1:0]          in_q_q, in_q_d;
  logic [3:0]              in_beat_q, in_beat_d;
  logic [4:0]              in_nb_q, in_nb_d;
  logic [QB-1:0]           in_slot_q, in_slot_d;    // the slot allocated at the command's first cycle
  logic [11:0]             in_dlen_q, in_dlen_d;
  // builders (rtl/sue/sue_tx_build.sv, one per port: g_bld[p].u_bld): their jobs and MAC output registers
  logic [NumPorts-1:0]     busy_q;
  logic [NumPorts*PIW-1:0] ji_q;
  logic [NumPorts*2-1:0]   jv_q;
  logic [NumPorts*QB-1:0]  jfirst_q;
  logic [NumPorts*PW-1:0]  jn_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NumPorts*QB-1:0]  bs_q;                    // the slot the builder reads (the job's first, then sl_next)
  logic [NumPorts-1:0]     brd_q;                   // it reads a command of its job there (SUE_ASSERT checks)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NumPorts-1:0]     idle;                    // C1: no job, or the frame's last beats loading
  logic [NumPorts-1:0]     mv_q, msof_q, meof_q;
  logic [NumPorts*256-1:0] mdata_q;
  logic [NumPorts*6-1:0]   mnb_q;
  // scheduler
  logic [1:0]              wrr_vc_q, wrr_vc_d;
  logic [3:0]              wrr_cnt_q, wrr_cnt_d;
  logic [4*PIW-1:0]        rr_q, rr_d;              // rr_peer[v], PIW b each
  // ports
  logic [NumPorts-1:0]     dead_q, dead_d;
  logic [NQ-1:0]           qne_q, qne_d;           // queue q holds unsent commands (send != tail)
  logic [NQ-1:0]           hack_q, hack_d;         // ackn of queue q's head slot != 0 (valid while q holds sent commands)
  // outputs
  logic [NQ*2-1:0]         credit_q, credit_d;
  logic                    e_cmd_q, e_cmd_d, e_dest_q, e_dest_d, e_ovf_q, e_ovf_d, e_nop_q, e_nop_d;
  logic [NumCnt*CntW-1:0]  cnt_q, cnt_d;

  // ---------------------------------------------------------------- interfaces between blocks
  // C1
  logic [NumPorts-1:0]     live, dies;
  logic [NumPorts*4-1:0]   okpv;
  logic                    any_live;
  logic [1:0]              fo_port;
  // S1 / S (SUE state seen by common logic; 0 in Lite)
  logic [NC-1:0]           cwin;        // !rtx_act && npsn - free_psn < Window
  logic [NQ-1:0]           blocked;     // a connection of q in WAIT or MIGRATE
  logic [NumPorts*24-1:0]  ob_cur;      // out_bytes_q
  // C2
  logic [NQ-1:0]           psel_ok;
  logic                    new_hit;
  logic [1:0]              new_v, new_t;
  logic [PIW-1:0]          new_i;
  logic [QIW-1:0]          new_q;
  logic [PW-1:0]           new_n;
  logic [CW-1:0]           new_r;      // credits of NEW's queue that move from df to pc
  logic [12:0]             new_P;
  logic [QB-1:0]           new_first;
  logic [CIW-1:0]          new_c;
  // S2
  logic                    s_hit;
  logic [2:0]              s_kind;
  logic [1:0]              s_port;
  logic                    s_jk;
  logic [PIW-1:0]          s_ji;
  logic [1:0]              s_jv;
  logic [15:0]             s_jpsn;
  logic [QB-1:0]           s_jfirst;
  logic [PW-1:0]           s_jn;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [12:0]             s_jP;        // (read by the SUE_ASSERT checks only)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [1:0]              s_jop;
  logic [15:0]             s_japsn;
  logic [3:0]              s_jrsvd;
  logic [15:0]             new_psn, new_apsn;
  logic [1:0]              new_op;
  // C3
  logic                    job_go, new_go;
  logic [1:0]              job_port;
  logic [1:0]              job_op;
  // S3 (descriptor walkers; SUE counter increments; 0 in Lite)
  logic [NumPorts-1:0]     wk_hit;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [NumPorts*QIW-1:0] wk_q;        // the walker's queue (read by the SUE_ASSERT checks only)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NumPorts*QB-1:0]  wk_first;
  logic [NumPorts*PW-1:0]  wk_n;
  logic [CntW-1:0]         s_inc_gbn, s_inc_rto, s_inc_nack_rcvd, s_inc_fo_ack_rcvd;

  // ---------------------------------------------------------------- C1: port status
  // idle (from the builders): the builder has no job, or has appended all its chunks and loads the
  // frame's last or second-to-last beat, not its sof beat, at this edge (step 5, "End")
  always_comb begin
    any_live = 1'b0;
    fo_port  = '0;
    for (int p = NumPorts - 1; p >= 0; p--) begin
      live[p] = !dead_q[p] && port_up_i[p];
      dies[p] = !dead_q[p] && !port_up_i[p];
      if (live[p]) begin
        any_live = 1'b1;
        fo_port  = 2'(p);
      end
      for (int v = 0; v < 4; v++) begin
        okpv[p*4+v] = live[p] && idle[p] && credit_ok_i[p*4+v];
      end
    end
  end

  // ---------------------------------------------------------------- C2: port_sel, NEW, packing
  // Strict-mode pin base of queue q = (i, v): (own XPU id + peer XPU id + v) mod NumPorts (NumPorts is
  // 1, 2 or 4: the low bits of the 10-bit sum). It spreads a node's flows to different peers, the
  // senders of an incast, and the two VCs of a pair over the ports.
  function automatic logic [1:0] pin_base(input int q);
    logic [1:0] h;  // the low two bits of the 10-bit sum (NumPorts divides 4); yosys 0.23: no `return`
    h = own_q[1:0] + 2'(q/4) + 2'(q%4);
    pin_base = h & 2'(NumPorts - 1);
  endfunction
  // Find-first over bitmaps: sue_ff1 instances (the lowest set bit, a binary search of log2(width)
  // steps): the scans below are vector operations, not loops over every queue or connection (yosys'
  // frontend unrolls such loops statement by statement, which does not finish at 1,024 XPUs).
  localparam int NQW = 1 << QIW;                   // queue bitmap width (>= NQ)
  // port_sel (docs/sue.md step 4) of queue q, for the two queues that use it (NEW's, MIGRATE's target):
  // strict: the first live port from pin_base(q); unordered: the candidate port with the fewest out_bytes
  // (ties to the lowest; Lite: the lowest candidate)
  function automatic logic [1:0] pport(input logic [QIW-1:0] q);
    logic       pf;
    logic [23:0] pb;
    logic       pc;
    pport = '0;
    pf    = 1'b0;
    pb    = '0;
    if (strict_q) begin
      for (int k = NumPorts - 1; k >= 0; k--) begin
        if (live[(32'(pin_base(32'(q))) + k) % NumPorts]) pport = 2'((32'(pin_base(32'(q))) + k) % NumPorts);
      end
    end else begin
      for (int p = 0; p < NumPorts; p++) begin
        pc = okpv[p*4 + 32'(q[1:0])] && ((Profile == 1) || cwin[p*NPC + 32'(q)]);
        if (pc && (!pf || ((Profile == 0) && (ob_cur[p*24 +: 24] < pb)))) begin
          pf    = 1'b1;
          pport = 2'(p);
          pb    = ob_cur[p*24 +: 24];
        end
      end
    end
  endfunction
  logic [NQ-1:0]       c2_cand [NumPorts];   // q may start on port p: credit and (SUE) window
  logic [NQ-1:0]       c2_ks [4];            // queues with (peer + v) mod NumPorts == s
  logic [NQ-1:0]       c2_kv [4];            // queues of VC v
  logic [15:0]         c2_pat;
  logic [3:0]          c2_any;
  logic [1:0]          c2_t;
  logic [NQ-1:0]       startable, c2_x;
  logic [NQW-1:0]      c2_ge, c2_ffx;
  logic [QIW-1:0]      c2_pick;
  logic [1:0]          c2_v, c2_vk;
  logic                c2_stop;
  logic [15:0]         c2_sum;
  logic [11:0]         c2_dl;
  logic [PW-1:0]       c2_avail, c2_u, c2_df, c2_rmin, c2_rx, c2_free, c2_fl;
  logic signed [SW-1:0] c2_lim;
  logic                c2_clamp;             // the pool slack bounds the packing (kept for coverage)
  logic [QWW-1:0]      c2_w;                 // NEW's queue word
  always_comb begin
    c2_t = '0; c2_pat = '0; c2_any = '0; c2_vk = '0;
    // the pool slack: free slots + deferred credits + the ingress command's slot - NQ*QDepth
    c2_free = PW'(Pool) - fresh_q;
    c2_fl   = flwp_q - flrp_q;
    slk = SW'(c2_free) + SW'(c2_fl) + SW'(sdf_q) + SW'(in_act_q && !in_drop_q) - SW'(NQ * QDepth);
    // constant masks over the queues q = 4*peer + v (a 16-bit period, four peers)
    for (int s = 0; s < 4; s++) begin
      for (int b = 0; b < 16; b++) c2_pat[b] = ((b/4 + b%4) % NumPorts) == s;
      c2_ks[s] = NQ'({((NQ + 15) / 16){c2_pat}});
      c2_kv[s] = NQ'({((NQ + 3) / 4){4'(1 << s)}});
    end
    for (int p = 0; p < NumPorts; p++) begin
      c2_cand[p] = NQ'({((NQ + 3) / 4){okpv[p*4 +: 4]}});
      if (Profile == 0) c2_cand[p] = c2_cand[p] & cwin[p*NPC +: NPC];
    end
    psel_ok = NQ'(0);
    if (strict_q) begin
      // pin(q) = the first live port from pin_base(q) = (own + peer + v) mod NumPorts
      for (int s = 0; s < NumPorts; s++) begin
        c2_t = '0;
        for (int k = NumPorts - 1; k >= 0; k--) begin
          if (live[(32'(own_q[1:0]) + s + k) % NumPorts]) c2_t = 2'((32'(own_q[1:0]) + s + k) % NumPorts);
        end
        for (int p = 0; p < NumPorts; p++) begin
          if (2'(p) == c2_t && any_live) psel_ok = psel_ok | (c2_ks[s] & c2_cand[p]);
        end
      end
    end else begin
      for (int p = 0; p < NumPorts; p++) psel_ok = psel_ok | c2_cand[p];
    end
    startable = (slk > 0) ? (qne_q & ~blocked & psel_ok) : NQ'(0);
    // weighted round robin over VCs, round robin over peers
    for (int v = 0; v < 4; v++) c2_any[v] = |(startable & c2_kv[v]);
    new_hit = |c2_any;
    c2_v    = '0;
    for (int k = 3; k >= 0; k--) begin
      c2_vk = wrr_vc_q + 2'(k);
      if (c2_any[c2_vk]) c2_v = c2_vk;
    end
    new_v   = c2_v;
    // the first peer from rr_peer[v] (cyclic) with a startable queue of VC v
    c2_x    = startable & c2_kv[c2_v];
    c2_ge   = NQW'(c2_x) & (~NQW'(0) << (32'(rr_q[c2_v*PIW +: PIW]) * 4));
    c2_ffx  = (|c2_ge) ? c2_ge : NQW'(c2_x);
  end
  sue_ff1 #(.IW(QIW)) u_ff_new (.x_i(c2_ffx), .idx_o(c2_pick));
  always_comb begin
    new_i   = PIW'(c2_pick >> 2);
    new_q = QIW'({new_i, new_v});
    new_t = pport(new_q);
    new_c = CIW'((32'(new_t)*NumXpus + 32'(new_i))*4 + 32'(new_v));
    c2_w = qrd(new_q);
    new_first = rs_slot[ridx(32'(new_q), c2_w[OSend +: PW])];
    // packing: the longest prefix of [send, tail) within MaxPack and the slack: the n commands formed
    // take back max(0, n + df - u) deferred credits (df stays <= the unsent u), so n <= slack + u - df
    c2_u     = c2_w[OTail +: PW] - c2_w[OSend +: PW];
    c2_df    = PW'(c2_w[ODf +: CW]);
    c2_lim   = slk + SW'(c2_u) - SW'(c2_df);
    c2_avail = c2_u;
    c2_clamp = c2_lim < SW'(c2_u);
    if (c2_clamp) c2_avail = PW'(c2_lim);
    c2_stop  = 1'b0;
    c2_sum   = '0;
    new_n    = '0;
    for (int k = 0; k < KMax; k++) begin
      c2_dl   = rs_dlen[ridx(32'(new_q), c2_w[OSend +: PW] + PW'(k))];
      if (!c2_stop && (PW'(k) < c2_avail) && (c2_sum + 16'd20 + 16'(c2_dl) <= 16'(MaxPack))) begin
        c2_sum = c2_sum + 16'd20 + 16'(c2_dl);
        new_n  = new_n + 1'b1;
      end else begin
        c2_stop = 1'b1;
      end
    end
    new_P = c2_sum[12:0];
    // credits back with the PDU: the deferred ones the formed commands must take (rmin), and as many
    // more of the queue's deferred ones as the slack allows, at most n
    c2_rmin = (new_n + c2_df > c2_u) ? new_n + c2_df - c2_u : '0;
    c2_rx   = (new_n < c2_df) ? new_n : c2_df;
    if (SW'(c2_rx) > slk) c2_rx = PW'(slk);
    new_r   = CW'((c2_rmin > c2_rx) ? c2_rmin : c2_rx);
  end

  // ---------------------------------------------------------------- SUE transport (S1, S2, S3)
  if (Profile == 0) begin : g_sue
    // the connection state, its timers and the SUE job: rtl/sue/sue_tx_conn.sv
    logic [QIW-1:0] mig_q;
    logic [1:0]     mig_t;
    always_comb mig_t = pport(mig_q);
    sue_tx_conn #(.NumPorts(NumPorts), .NumXpus(NumXpus), .Window(Window), .CntW(CntW), .Pool(Pool), .NQ(NQ),
                  .NC(NC), .PW(PW), .IW(IW)) u_conn (
      .clk_i, .rst_ni,
      .ack_count_i(ack_count_q), .win_bytes_i(win_bytes_q), .ack_delay_i(ack_delay_q), .rto_i(rto_q), .fo_retry_i(fo_retry_q),
      .dead_i(dead_q), .dies_i(dies), .live_i(live), .any_live_i(any_live), .okpv_i(okpv), .fo_port_i(fo_port),
      .fb_valid_i, .fb_peer_i, .fb_vc_i, .fb_owe_i, .fb_owe_psn_i, .fb_rop_i, .fb_rapsn_i, .fb_fo_i, .fb_fo_port_i,
      .psel_ok_i(psel_ok), .mig_q_o(mig_q), .mig_t_i(mig_t), .job_go_i(job_go), .new_go_i(new_go),
      .job_port_i(job_port), .new_c_i(new_c), .new_P_i(new_P), .new_first_i(new_first), .new_n_i(new_n),
      .cwin_o(cwin), .blocked_o(blocked), .ob_cur_o(ob_cur),
      .s_hit_o(s_hit), .s_kind_o(s_kind), .s_port_o(s_port), .s_jk_o(s_jk),
      .s_ji_o(s_ji), .s_jv_o(s_jv), .s_jpsn_o(s_jpsn), .s_jfirst_o(s_jfirst), .s_jn_o(s_jn), .s_jP_o(s_jP),
      .s_jop_o(s_jop), .s_japsn_o(s_japsn), .s_jrsvd_o(s_jrsvd), .new_psn_o(new_psn), .new_apsn_o(new_apsn),
      .new_op_o(new_op), .wk_hit_o(wk_hit), .wk_q_o(wk_q), .wk_first_o(wk_first), .wk_n_o(wk_n),
      .s_inc_gbn_o(s_inc_gbn), .s_inc_rto_o(s_inc_rto), .s_inc_nack_rcvd_o(s_inc_nack_rcvd),
      .s_inc_fo_ack_rcvd_o(s_inc_fo_ack_rcvd),
      .dbg_conn_i, .dbg_npsn_o, .dbg_ack_psn_o, .dbg_inflight_o, .dbg_inbytes_o, .dbg_state_o, .out_bytes_o);

  end else begin : g_lite
    assign cwin      = NC'(0);   // (a sized cast: '0 is an NC-bit replication, refused beyond 8k bits)
    assign blocked   = '0;
    assign ob_cur    = '0;
    assign s_hit     = 1'b0;
    assign s_kind    = '0;
    assign s_port    = '0;
    assign s_jk      = 1'b0;
    assign s_ji      = '0;
    assign s_jv      = '0;
    assign s_jpsn    = '0;
    assign s_jfirst  = '0;
    assign s_jn      = '0;
    assign s_jP      = '0;
    assign s_jop     = '0;
    assign s_japsn   = '0;
    assign s_jrsvd   = '0;
    assign new_psn   = '0;
    assign new_op    = '0;
    assign new_apsn  = '0;
    assign wk_hit    = '0;
    assign wk_q      = '0;
    assign wk_first  = '0;
    assign wk_n      = '0;
    assign s_inc_gbn = '0;
    assign s_inc_rto = '0;
    assign s_inc_nack_rcvd   = '0;
    assign s_inc_fo_ack_rcvd = '0;
    assign dbg_npsn_o      = '0;
    assign dbg_ack_psn_o   = '0;
    assign dbg_inflight_o  = '0;
    assign dbg_inbytes_o   = '0;
    assign dbg_state_o     = '0;
    assign out_bytes_o     = '0;
    // SUE Lite has no feedback, no CRC, no timers
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused_lite;
    assign unused_lite = ^{fb_valid_i, fb_peer_i, fb_vc_i, fb_owe_i, fb_owe_psn_i, fb_rop_i, fb_rapsn_i, fb_fo_i,
                           fb_fo_port_i, rto_q, ack_delay_q, ack_count_q, win_bytes_q, fo_retry_q, fo_port, psel_ok, new_c, s_jP, dbg_conn_i};
    /* verilator lint_on UNUSEDSIGNAL */
  end

  // ---------------------------------------------------------------- C3: the job (step 4)
  logic [PIW-1:0] job_i;
  logic [1:0]     job_v;
  logic           job_k;
  logic [15:0]    job_psn, job_apsn;
  logic [QB-1:0]  job_first;
  logic [PW-1:0]  job_n;
  logic [3:0]     job_rsvd;
  always_comb begin
    new_go   = !s_hit && new_hit;
    job_go   = s_hit || new_hit;
    job_port = s_hit ? s_port : new_t;
    job_k    = s_hit ? s_jk : 1'b0;
    job_i    = s_hit ? s_ji : new_i;
    job_v    = s_hit ? s_jv : new_v;
    job_psn  = s_hit ? s_jpsn : new_psn;
    job_first = s_hit ? s_jfirst : new_first;
    job_n    = s_hit ? (s_jk ? '0 : s_jn) : new_n;
    job_op   = s_hit ? s_jop : new_op;
    job_apsn = s_hit ? s_japsn : new_apsn;
    job_rsvd = s_hit ? s_jrsvd : 4'd0;
  end

  // scheduler registers (NEW)
  logic [4:0] c3_n;
  always_comb begin
    rr_d      = rr_q;
    wrr_vc_d  = wrr_vc_q;
    wrr_cnt_d = wrr_cnt_q;
    c3_n      = (new_v == wrr_vc_q) ? (5'(wrr_cnt_q) + 5'd1) : 5'd1;
    if (new_go) begin
      rr_d[new_v*PIW +: PIW] = (32'(new_i) == NumXpus - 1) ? '0 : (new_i + 1'b1);
      if (c3_n >= ((weight_q[new_v*4 +: 4] == 4'd0) ? 5'd1 : 5'(weight_q[new_v*4 +: 4]))) begin
        wrr_vc_d  = new_v + 2'd1;
        wrr_cnt_d = '0;
      end else begin
        wrr_vc_d  = new_v;
        wrr_cnt_d = c3_n[3:0];
      end
    end
  end

  // ---------------------------------------------------------------- C4: builders, ingress, frees
  // acknowledged-PDU marks (one per port and edge): sl_ackn[mk_s] = mk_n
  logic [NumPorts-1:0]    mk_v;
  logic [NumPorts*QB-1:0] mk_s;
  logic [NumPorts*PW-1:0] mk_n;
  // ingress temporaries
  logic [11:0]       g_dlen;
  logic [4:0]        g_nb;
  logic              g_bad, g_hit, g_full;
  logic [PIW-1:0]    g_peer;
  logic [QIW-1:0]    g_q;
  logic              wr_ctrl, wr_data;
  logic [QB-1:0]     wr_s;                // the slot written (allocated now, or the ingress command's)
  logic [3:0]        wr_beat;
  // pool: allocation, link of a completed command, slot given back, slot free
  logic              al_go, lk_go, ret_go, fr_hit, fr_go;
  logic [QB-1:0]     al_s, lk_s, fr_s;
  logic [11:0]       lk_dlen;
  logic [QIW-1:0]    lk_q, fr_q;
  logic [NQ-1:0]     fr_ok;
  logic [PW-1:0]     lk_nall, fr_n;
  logic              lk_early;            // the linked command's credit goes back now (shared-buffer credit)
  logic [PW-1:0]     lk_u, lk_df;         // the link's queue after NEW: unsent with the command, deferred
  logic signed [SW-1:0] lk_slk;
  logic [NQ-1:0]     fr_pq, q_inc, b_cov;
  logic [NQW-1:0]    fr_ge, fr_ffx;
  logic [QIW-1:0]    b_q;
  logic              cr_go;               // a credit goes back at the ingress (a failed or malformed command)
  logic [QIW-1:0]    cr_q;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [QWW-1:0]    g_w, b_w, fr_w, lk_w, h_w, fr_wn, nw_wn, lk_wn;   // the fields each needs
  /* verilator lint_on UNUSEDSIGNAL */
  logic [NQ-1:0]     fr_oh, lk_oh, h_oh;
  logic [QIW-1:0]    h_q;
  // the word of queue q (read before the edge: w) after this edge's free, NEW and link
  function automatic logic [QWW-1:0] qnext(input logic [QIW-1:0] q, input logic [QWW-1:0] w);
    qnext = w;
    if (fr_go && fr_q == q) begin
      if (w[OHrem +: PW] == '0) begin
        qnext[OHpdu +: QB] = fr_s;
        qnext[OHrem +: PW] = fr_n - 1'b1;
      end else begin
        qnext[OHrem +: PW] = w[OHrem +: PW] - 1'b1;
      end
      qnext[OHd +: QB]   = sl_next[fr_s];
      qnext[OHeld +: PW] = w[OHeld +: PW] - 1'b1;
    end
    if (new_go && new_q == q) begin
      qnext[OSend +: PW] = w[OSend +: PW] + new_n;
      qnext[OHeld +: PW] = qnext[OHeld +: PW] + new_n;
      qnext[ODf +: CW]   = w[ODf +: CW] - new_r;
    end
    if (lk_go && lk_q == q) begin
      if (lk_nall == '0) qnext[OHd +: QB] = lk_s;
      qnext[OLst +: QB]  = lk_s;
      qnext[OTail +: PW] = w[OTail +: PW] + 1'b1;
      if (!lk_early) qnext[ODf +: CW] = qnext[ODf +: CW] + 1'b1;
    end
  endfunction
  logic [CntW-1:0]   inc [NumCnt];
  logic [CntW-1:0]   n_bytes_out, n_frames_out;

  // 5. builders: one sue_tx_build per port (the pool's read port at the slot and beat each is at)
  for (genvar gp = 0; gp < NumPorts; gp++) begin : g_bld
    logic [QB-1:0] rd_s;
    logic [3:0]    rd_b;
    sue_tx_build #(.Profile(Profile), .DataW(DataW), .QB(QB), .PW(PW), .PIW(PIW)) u_bld (
      .clk_i, .rst_ni, .own_i(own_q), .part_i(part_q), .hop_i(hop_q),
      .dies_i(dies[gp]), .ready_i(mac_tx_ready_i[gp]),
      .start_i(job_go && job_port == 2'(gp)), .job_k_i(job_k), .job_i_i(job_i), .job_v_i(job_v),
      .job_psn_i(job_psn), .job_first_i(job_first), .job_n_i(job_n), .job_op_i(job_op), .job_apsn_i(job_apsn),
      .job_rsvd_i(job_rsvd),
      .rd_slot_o(rd_s), .rd_beat_o(rd_b), .rd_ctrl_i(sl_ctrl[rd_s]), .rd_dlen_i(sl_dlen[rd_s]),
      .rd_next_i(sl_next[rd_s]), .rd_data_i(sl_data[32'(rd_s)*NB + 32'(rd_b)]),
      .busy_o(busy_q[gp]), .idle_o(idle[gp]), .rd_cmd_o(brd_q[gp]), .ji_o(ji_q[gp*PIW +: PIW]), .jv_o(jv_q[gp*2 +: 2]),
      .jfirst_o(jfirst_q[gp*QB +: QB]), .jn_o(jn_q[gp*PW +: PW]),
      .mk_v_o(mk_v[gp]), .mk_s_o(mk_s[gp*QB +: QB]), .mk_n_o(mk_n[gp*PW +: PW]),
      .mac_valid_o(mv_q[gp]), .mac_data_o(mdata_q[gp*256 +: 256]), .mac_sof_o(msof_q[gp]), .mac_eof_o(meof_q[gp]),
      .mac_nbytes_o(mnb_q[gp*6 +: 6]));
    assign bs_q[gp*QB +: QB] = rd_s;
  end
  // the ports that die, the bytes and frames the MACs take at this edge
  always_comb begin
    dead_d  = dead_q | dies;
    n_bytes_out = '0; n_frames_out = '0;
    for (int p = 0; p < NumPorts; p++) begin
      if (mv_q[p] && mac_tx_ready_i[p]) begin
        n_bytes_out = n_bytes_out + CntW'(mnb_q[p*6 +: 6]);
        if (meof_q[p]) n_frames_out = n_frames_out + 1'b1;
      end
    end
  end

  // 7, per queue: one command formed into a PDU per edge gives its credit back (pc counts down);
  // fr_pq: the queue's oldest held slot's credit went back (hx) and its PDU is acknowledged (ackn of the
  // PDU's first slot, kept per queue in hack, or the rest hrem of the PDU being freed). One process per
  // result (yosys' frontend takes time quadratic in the assignments of one process); NEW's and the
  // ingress' queue as one-hot masks, not indexed writes (an indexed write into a vector of NQ fields is
  // an NQ-way case in yosys).
  logic [NQ-1:0] nq_oh, cr_oh;
  always_comb begin
    nq_oh = new_go ? (NQ'(1) << new_q) : NQ'(0);
    cr_oh = cr_go ? (NQ'(1) << cr_q) : NQ'(0);
  end
  always_comb begin
    for (int q = 0; q < NQ; q++) q_inc[q] = pc_q[q*CW +: CW] != '0;
  end
  always_comb begin
    for (int q = 0; q < NQ; q++) pc_d[q*CW +: CW] = pc_q[q*CW +: CW] - CW'(q_inc[q]) + (nq_oh[q] ? new_r : '0);
  end
  always_comb begin
    for (int q = 0; q < NQ; q++) credit_d[q*2 +: 2] = {cr_oh[q] & q_inc[q], cr_oh[q] ^ q_inc[q]};
  end
  assign fr_pq = hx_q & (hrz_q | hack_q);
  // 7. slot free: freeable, the oldest held slot's credit went back and its PDU is acknowledged (fr_pq),
  // and no busy builder's job is that PDU (the builders' queues only)
  always_comb begin
    b_cov = NQ'(0);
    for (int p = 0; p < NumPorts; p++) begin
      b_q = {ji_q[p*PIW +: PIW], jv_q[p*2 +: 2]};
      b_w = qrd(b_q);
      b_cov = b_cov | ((busy_q[p] && jn_q[p*PW +: PW] != '0 &&
                        jfirst_q[p*QB +: QB] == ((b_w[OHrem +: PW] != '0) ? b_w[OHpdu +: QB] : b_w[OHd +: QB]))
                       ? (NQ'(1) << b_q) : NQ'(0));
    end
    fr_ok  = fr_pq & ~b_cov;
    // round robin from frr over the freeable queues
    fr_hit = |fr_ok;
    fr_ge  = NQW'(fr_ok) & (~NQW'(0) << frr_q);
    fr_ffx = (|fr_ge) ? fr_ge : NQW'(fr_ok);
  end
  sue_ff1 #(.IW(QIW)) u_ff_free (.x_i(fr_ffx), .idx_o(fr_q));
  // ackn of slot sl after this edge's writes (the allocation's 0, then per port the walker's and the
  // mark's n); rd: sl may be written by none of them (the memory is read), else it is one of their slots
  function automatic logic [PW-1:0] ackn_post(input logic [QB-1:0] sl, input logic rd);
    ackn_post = rd ? sl_ackn[sl] : '0;
    if (wr_ctrl && wr_s == sl) ackn_post = '0;
    for (int p = 0; p < NumPorts; p++) begin
      if (wk_hit[p] && wk_first[p*QB +: QB] == sl) ackn_post = wk_n[p*PW +: PW];
      if (mk_v[p] && mk_s[p*QB +: QB] == sl) ackn_post = mk_n[p*PW +: PW];
    end
  endfunction
  // 6. ingress, 7. frees, counters
  always_comb begin
    for (int i = 0; i < NumCnt; i++) inc[i] = '0;
    in_act_d = in_act_q; in_drop_d = in_drop_q; in_err_d = in_err_q; in_q_d = in_q_q; in_beat_d = in_beat_q;
    in_nb_d = in_nb_q; in_slot_d = in_slot_q; in_dlen_d = in_dlen_q;
    e_cmd_d = e_cmd_q; e_dest_d = e_dest_q; e_ovf_d = e_ovf_q;
    e_nop_d = e_nop_q || !any_live;
    cr_go = 1'b0;
    cr_q  = '0;
    wr_ctrl = 1'b0;
    wr_data = 1'b0;
    wr_s    = '0;
    wr_beat = '0;
    al_go = 1'b0; lk_go = 1'b0; ret_go = 1'b0; lk_s = '0; lk_dlen = '0; lk_q = '0;
    // allocation: a never-used slot while fresh < Pool, else the head of the free FIFO
    al_s  = (fresh_q < PW'(Pool)) ? fresh_q[QB-1:0] : fl_mem[flrp_q[QB-1:0]];
    g_dlen  = tx_control_i[135:124];
    g_nb    = (tx_valid_i == sue_pkg::XCmdData) ? 5'((32'(g_dlen) + DB - 1) / DB) : 5'd0;
    g_bad   = (tx_cycle_i != 4'd0) || (tx_valid_i == sue_pkg::XCmd && g_dlen != 12'd0) ||
              (tx_valid_i == sue_pkg::XCmdData && (g_dlen == 12'd0 || 32'(g_dlen) > MaxData));
    g_hit   = 1'b0;
    g_peer  = '0;
    // the destination XPU id is the peer index: any id below NumXpus but the own one
    g_hit   = (32'(tx_xpuid_i) < NumXpus) && (tx_xpuid_i != own_q);
    g_peer  = g_hit ? PIW'(tx_xpuid_i) : '0;
    g_q    = QIW'({g_peer, tx_vc_i});
    g_w    = qrd(g_q);
    // the XPU overdrew its credits: the queue holds all of them, df + pc == QDepth
    g_full = (PW'(g_w[ODf +: CW]) + PW'(pc_q[32'(g_q)*CW +: CW])) == PW'(QDepth);
    if (!in_act_q) begin
      if (tx_valid_i == sue_pkg::XCmd || tx_valid_i == sue_pkg::XCmdData) begin
        if (g_bad) begin
          inc[sue_pkg::TxCmdBad] = 1;
          e_cmd_d = 1'b1;
        end else if (!g_hit || g_full) begin
          if (!g_hit) begin
            inc[sue_pkg::TxCmdBad] = 1;
            e_dest_d = 1'b1;
          end else begin
            inc[sue_pkg::TxCmdOverflow] = 1;
            e_ovf_d = 1'b1;
          end
          if (g_nb > 5'd1) begin
            in_act_d = 1'b1; in_drop_d = 1'b1; in_err_d = 1'b0; in_q_d = g_q; in_beat_d = 4'd1; in_nb_d = g_nb;
          end
        end else if (g_nb <= 5'd1 && tx_err_i) begin
          // a one-cycle command with tx_err: no slot is taken, the credit goes back
          inc[sue_pkg::TxCmdErr] = 1;
          cr_go = 1'b1; cr_q = g_q;
        end else begin
          al_go   = 1'b1;
          wr_ctrl = 1'b1;
          wr_data = g_nb >= 5'd1;
          wr_s    = al_s;
          wr_beat = '0;
          if (g_nb <= 5'd1) begin
            lk_go = 1'b1; lk_s = al_s; lk_dlen = g_dlen; lk_q = g_q;
            inc[sue_pkg::TxCmdsIn] = 1;
          end else begin
            in_act_d = 1'b1; in_drop_d = 1'b0; in_err_d = tx_err_i; in_q_d = g_q; in_beat_d = 4'd1; in_nb_d = g_nb;
            in_slot_d = al_s; in_dlen_d = g_dlen;
          end
        end
      end else if (tx_valid_i == sue_pkg::XStray) begin
        inc[sue_pkg::TxStray] = 1;
      end
    end else begin
      if (tx_valid_i == sue_pkg::XCmdData && tx_cycle_i == in_beat_q) begin
        wr_data = !in_drop_q;
        wr_s    = in_slot_q;
        wr_beat = in_beat_q;
        in_err_d = in_err_q || tx_err_i;
        if (5'(in_beat_q) + 5'd1 == in_nb_q) begin
          in_act_d = 1'b0;
          if (!in_drop_q) begin
            if (in_err_q || tx_err_i) begin
              inc[sue_pkg::TxCmdErr] = 1;
              cr_go = 1'b1; cr_q = in_q_q;
              ret_go = 1'b1;
            end else begin
              lk_go = 1'b1; lk_s = in_slot_q; lk_dlen = in_dlen_q; lk_q = in_q_q;
              inc[sue_pkg::TxCmdsIn] = 1;
            end
          end
        end else begin
          in_beat_d = in_beat_q + 4'd1;
        end
      end else begin
        in_act_d = 1'b0;
        inc[sue_pkg::TxCmdBad] = 1;
        e_cmd_d = 1'b1;
        if (!in_drop_q) begin
          cr_go = 1'b1; cr_q = in_q_q;
          ret_go = 1'b1;
        end
      end
    end
    fresh_d = fresh_q;
    flrp_d  = flrp_q;
    if (al_go) begin
      if (fresh_q < PW'(Pool)) fresh_d = fresh_q + 1'b1;
      else flrp_d = flrp_q + 1'b1;
    end

    // 7. credit free (per queue, above), slot free (one per edge for the instance: the freeable queue
    // fr_q, above); a failed command's slot goes back instead
    fr_go = fr_hit && !ret_go;
    fr_w  = qrd(fr_q);
    fr_s  = fr_w[OHd +: QB];
    fr_n  = sl_ackn[fr_s];
    sheld_d = sheld_q;
    frr_d   = frr_q;
    flwp_d  = flwp_q;
    if (ret_go || fr_go) flwp_d = flwp_q + 1'b1;
    if (fr_go) begin
      sheld_d = sheld_q - 1'b1;
      frr_d   = (32'(fr_q) + 1 >= NQ) ? '0 : fr_q + 1'b1;
    end
    if (new_go) sheld_d = sheld_d + new_n;
    // link: the completed command joins its queue (ring entry at tail, behind the last slot of the list)
    lk_w    = qrd(lk_q);
    lk_nall = lk_w[OHeld +: PW] - PW'(fr_go && fr_q == lk_q) + (lk_w[OTail +: PW] - lk_w[OSend +: PW]);
    // shared-buffer credit: the command's credit goes back at once while the slack (after NEW's credits)
    // leaves a free slot for it and the ring has room for every command the XPU may then send
    // (u + QDepth - df <= QCap); else it is deferred (df + 1) until its PDU forms
    lk_u    = lk_w[OTail +: PW] + 1'b1 - lk_w[OSend +: PW];
    lk_df   = PW'(lk_w[ODf +: CW]);
    if (new_go && new_q == lk_q) begin
      lk_u  = lk_u - new_n;
      lk_df = lk_df - PW'(new_r);
    end
    lk_slk  = slk - (new_go ? SW'(new_r) : SW'(0));
    lk_early = lk_go && lk_slk > 0 && (32'(lk_u) + QDepth <= QCap + 32'(lk_df));
    if (lk_early) begin
      cr_go = 1'b1; cr_q = lk_q;
    end
    sdf_d = sdf_q - (new_go ? PW'(new_r) : '0) + PW'(lk_go && !lk_early);
    // the words of the queues written at this edge (the free's, NEW's, the link's: one word when two are
    // one queue)
    fr_wn = qnext(fr_q, fr_w);
    nw_wn = qnext(new_q, c2_w);
    lk_wn = qnext(lk_q, lk_w);
    fr_oh = fr_go ? (NQ'(1) << fr_q) : NQ'(0);
    lk_oh = lk_go ? (NQ'(1) << lk_q) : NQ'(0);
    qv_d  = qv_q | fr_oh | nq_oh | lk_oh;
    // the bitmaps, at the queues written: nonempty (send != tail) at NEW's and the link's, hrem != 0 at the
    // free's, held > pc at the free's and NEW's (any other queue's held stays and its pc only counts down)
    qne_d = qne_q;
    qne_d = (qne_d & ~nq_oh) | ((nw_wn[OSend +: PW] != nw_wn[OTail +: PW]) ? nq_oh : NQ'(0));
    qne_d = (qne_d & ~lk_oh) | ((lk_wn[OSend +: PW] != lk_wn[OTail +: PW]) ? lk_oh : NQ'(0));
    hrz_d = (hrz_q & ~fr_oh) | ((fr_wn[OHrem +: PW] != '0) ? fr_oh : NQ'(0));
    hx_d  = hx_q | q_inc;
    hx_d  = (hx_d & ~fr_oh) | ((fr_wn[OHeld +: PW] > PW'(pc_d[32'(fr_q)*CW +: CW])) ? fr_oh : NQ'(0));
    hx_d  = (hx_d & ~nq_oh) | ((nw_wn[OHeld +: PW] > PW'(pc_d[32'(new_q)*CW +: CW])) ? nq_oh : NQ'(0));
    // hack (ackn of the head slot != 0) for the queues whose head slot is written or whose head moves at
    // this edge, with the edge's ackn writes forwarded (in the order of the memory's always_ff); no other
    // queue's head changes (a slot is on one list; the allocation writes a free slot)
    hack_d = hack_q;
    for (int p = 0; p < NumPorts; p++) begin
      h_q = wk_q[p*QIW +: QIW];
      h_w = qrd(h_q);
      h_oh = (wk_hit[p] && h_w[OHd +: QB] == wk_first[p*QB +: QB]) ? (NQ'(1) << h_q) : NQ'(0);
      hack_d = (hack_d & ~h_oh) | ((ackn_post(wk_first[p*QB +: QB], 1'b0) != '0) ? h_oh : NQ'(0));
      h_q = {ji_q[p*PIW +: PIW], jv_q[p*2 +: 2]};
      h_w = qrd(h_q);
      h_oh = (mk_v[p] && h_w[OHd +: QB] == mk_s[p*QB +: QB]) ? (NQ'(1) << h_q) : NQ'(0);
      hack_d = (hack_d & ~h_oh) | ((ackn_post(mk_s[p*QB +: QB], 1'b0) != '0) ? h_oh : NQ'(0));
    end
    hack_d = (hack_d & ~fr_oh) | ((ackn_post(fr_wn[OHd +: QB], 1'b1) != '0) ? fr_oh : NQ'(0));
    h_oh   = (lk_nall == '0) ? lk_oh : NQ'(0);
    hack_d = (hack_d & ~h_oh) | ((ackn_post(lk_s, 1'b1) != '0) ? h_oh : NQ'(0));

    // counters
    inc[sue_pkg::TxPdusNew]   = CntW'(new_go);
    inc[sue_pkg::TxPdusRtx]   = CntW'(job_go && !new_go && s_kind == KRtx);
    inc[sue_pkg::TxPdusMig]   = CntW'(job_go && !new_go && s_kind == KMig);
    inc[sue_pkg::TxAckOnly]   = CntW'(job_go && !new_go && s_kind == KAckOnly);
    inc[sue_pkg::TxAckSent]   = CntW'(job_go && (new_go || s_kind == KRtx || s_kind == KAckOnly || s_kind == KMig) && job_op == sue_pkg::RopAck);
    inc[sue_pkg::TxNackSent]  = CntW'(job_go && (new_go || s_kind == KRtx || s_kind == KAckOnly || s_kind == KMig) && job_op == sue_pkg::RopNack);
    inc[sue_pkg::TxNackRcvd]  = s_inc_nack_rcvd;
    inc[sue_pkg::TxGbn]       = s_inc_gbn;
    inc[sue_pkg::TxRto]       = s_inc_rto;
    inc[sue_pkg::TxFoReqSent] = CntW'(job_go && !new_go && s_kind == KFoReq);
    inc[sue_pkg::TxFoAckSent] = CntW'(job_go && !new_go && s_kind == KFoAck);
    inc[sue_pkg::TxFoAckRcvd] = s_inc_fo_ack_rcvd;
    inc[sue_pkg::TxCmdsSent]  = new_go ? CntW'(new_n) : '0;
    inc[sue_pkg::TxPayload]   = new_go ? CntW'(new_P) - CntW'({new_n, 1'b0}) : '0;
    inc[sue_pkg::TxFramesOut] = n_frames_out;
    inc[sue_pkg::TxBytesOut]  = n_bytes_out;
    for (int i = 0; i < NumCnt; i++) cnt_d[i*CntW +: CntW] = cnt_q[i*CntW +: CntW] + inc[i];
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      own_q <= cfg_own_xpuid_i; strict_q <= cfg_strict_i; part_q <= cfg_partition_i;
      hop_q <= cfg_hop_count_i; weight_q <= cfg_vc_weight_i; rto_q <= cfg_rto_i; ack_delay_q <= cfg_ack_delay_i;
      ack_count_q <= cfg_ack_count_i; win_bytes_q <= cfg_win_bytes_i;
      fo_retry_q <= cfg_fo_retry_i;
      fresh_q <= '0; sheld_q <= '0; flrp_q <= '0; flwp_q <= '0; frr_q <= '0; sdf_q <= '0;
      in_act_q <= 1'b0; in_drop_q <= 1'b0; in_err_q <= 1'b0; in_q_q <= '0; in_beat_q <= '0; in_nb_q <= '0;
      in_slot_q <= '0; in_dlen_q <= '0;
      wrr_vc_q <= '0; wrr_cnt_q <= '0; rr_q <= '0; dead_q <= '0;
      e_cmd_q <= 1'b0; e_dest_q <= 1'b0; e_ovf_q <= 1'b0; e_nop_q <= 1'b0; cnt_q <= '0;
    end else begin
      fresh_q <= fresh_d; sheld_q <= sheld_d; flrp_q <= flrp_d; flwp_q <= flwp_d; frr_q <= frr_d; sdf_q <= sdf_d;
      in_act_q <= in_act_d; in_drop_q <= in_drop_d; in_err_q <= in_err_d; in_q_q <= in_q_d;
      in_beat_q <= in_beat_d; in_nb_q <= in_nb_d; in_slot_q <= in_slot_d; in_dlen_q <= in_dlen_d;
      wrr_vc_q <= wrr_vc_d; wrr_cnt_q <= wrr_cnt_d; rr_q <= rr_d; dead_q <= dead_d;
      e_cmd_q <= e_cmd_d; e_dest_q <= e_dest_d; e_ovf_q <= e_ovf_d; e_nop_q <= e_nop_d; cnt_q <= cnt_d;
    end
  end

  // per queue: sized casts of 0, not '0 (an NQ*PW-bit replication, which Verilator refuses beyond 8k
  // bits at 1,024 XPUs), not loops of part-selects (yosys' frontend is quadratic in the number of
  // assignments of one process), and the reset as an expression (see the connection bitmaps)
  always_ff @(posedge clk_i) begin
    pc_q     <= rst_ni ? pc_d : (NQ*CW)'(0);
    credit_q <= rst_ni ? credit_d : (NQ*2)'(0);
    qv_q     <= rst_ni ? qv_d : NQ'(0);
    hx_q     <= rst_ni ? hx_d : NQ'(0);
    hrz_q    <= rst_ni ? hrz_d : NQ'(0);
    qne_q    <= rst_ni ? qne_d : NQ'(0);
    hack_q   <= rst_ni ? hack_d : NQ'(0);
  end

  // pool, ring and queue memories (nothing is written at reset: a slot is written at its allocation
  // before it is read; a queue word reads 0 until written, qv). Per edge: one command write (ingress: ctrl, dlen, ackn = 0 at the allocation, a data beat),
  // one link (sl_next of the queue's last slot, the ring entry at tail), one free FIFO push (the freed or
  // given-back slot), an ackn mark per port (descriptor walker, or Lite job end).
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      if (wr_ctrl) begin
        sl_ctrl[wr_s] <= tx_control_i;
        sl_dlen[wr_s] <= g_dlen;
        sl_ackn[wr_s] <= '0;
      end
      if (wr_data) sl_data[32'(wr_s)*NB + 32'(wr_beat)] <= tx_data_i;
      for (int p = 0; p < NumPorts; p++) begin
        if (wk_hit[p]) sl_ackn[wk_first[p*QB +: QB]] <= wk_n[p*PW +: PW];
        if (mk_v[p]) sl_ackn[mk_s[p*QB +: QB]] <= mk_n[p*PW +: PW];
      end
      if (lk_go) begin
        if (lk_nall != '0) sl_next[lk_w[OLst +: QB]] <= lk_s;
        rs_slot[ridx(32'(lk_q), lk_w[OTail +: PW])] <= lk_s;
        rs_dlen[ridx(32'(lk_q), lk_w[OTail +: PW])] <= lk_dlen;
      end
      // the queue words (two writes to one queue carry the same word)
      if (fr_go) qm[fr_q] <= fr_wn;
      if (new_go) qm[new_q] <= nw_wn;
      if (lk_go) qm[lk_q] <= lk_wn;
      if (ret_go) fl_mem[flwp_q[QB-1:0]] <= in_slot_q;
      else if (fr_go) fl_mem[flwp_q[QB-1:0]] <= fr_s;
    end
  end

  // ---------------------------------------------------------------- outputs
  assign tx_credit_o     = credit_q;
  assign mac_tx_valid_o  = mv_q;
  assign mac_tx_data_o   = mdata_q;
  assign mac_tx_sof_o    = msof_q;
  assign mac_tx_eof_o    = meof_q;
  assign mac_tx_nbytes_o = mnb_q;
  assign port_dead_o     = dead_q;
  assign err_cmd_o       = e_cmd_q;
  assign err_dest_o      = e_dest_q;
  assign err_overflow_o  = e_ovf_q;
  assign err_no_port_o   = e_nop_q;
  // the debug read port of the queues; the slots in use = used at least once - free
  /* verilator lint_off UNUSEDSIGNAL */
  logic [QWW-1:0] dbg_w;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    dbg_w          = '0;
    dbg_q_count_o  = '0;
    dbg_q_unsent_o = '0;
    if (32'(dbg_q_i) < NQ) begin
      dbg_w          = qrd(dbg_q_i);
      dbg_q_count_o  = dbg_w[OHeld +: PW] + (dbg_w[OTail +: PW] - dbg_w[OSend +: PW]);
      dbg_q_unsent_o = dbg_w[OTail +: PW] - dbg_w[OSend +: PW];
    end
  end
  assign pool_used_o = fresh_q - (flwp_q - flrp_q);
  assign cnt_cmds_in_o       = cnt_q[sue_pkg::TxCmdsIn*CntW +: CntW];
  assign cnt_cmd_bad_o       = cnt_q[sue_pkg::TxCmdBad*CntW +: CntW];
  assign cnt_cmd_err_o       = cnt_q[sue_pkg::TxCmdErr*CntW +: CntW];
  assign cnt_cmd_overflow_o  = cnt_q[sue_pkg::TxCmdOverflow*CntW +: CntW];
  assign cnt_stray_cycles_o  = cnt_q[sue_pkg::TxStray*CntW +: CntW];
  assign cnt_pdus_new_o      = cnt_q[sue_pkg::TxPdusNew*CntW +: CntW];
  assign cnt_pdus_rtx_o      = cnt_q[sue_pkg::TxPdusRtx*CntW +: CntW];
  assign cnt_pdus_mig_o      = cnt_q[sue_pkg::TxPdusMig*CntW +: CntW];
  assign cnt_ack_only_o      = cnt_q[sue_pkg::TxAckOnly*CntW +: CntW];
  assign cnt_ack_sent_o      = cnt_q[sue_pkg::TxAckSent*CntW +: CntW];
  assign cnt_nack_sent_o     = cnt_q[sue_pkg::TxNackSent*CntW +: CntW];
  assign cnt_nack_rcvd_o     = cnt_q[sue_pkg::TxNackRcvd*CntW +: CntW];
  assign cnt_gbn_o           = cnt_q[sue_pkg::TxGbn*CntW +: CntW];
  assign cnt_rto_o           = cnt_q[sue_pkg::TxRto*CntW +: CntW];
  assign cnt_fo_req_sent_o   = cnt_q[sue_pkg::TxFoReqSent*CntW +: CntW];
  assign cnt_fo_ack_sent_o   = cnt_q[sue_pkg::TxFoAckSent*CntW +: CntW];
  assign cnt_fo_ack_rcvd_o   = cnt_q[sue_pkg::TxFoAckRcvd*CntW +: CntW];
  assign cnt_cmds_sent_o     = cnt_q[sue_pkg::TxCmdsSent*CntW +: CntW];
  assign cnt_payload_bytes_o = cnt_q[sue_pkg::TxPayload*CntW +: CntW];
  assign cnt_frames_out_o    = cnt_q[sue_pkg::TxFramesOut*CntW +: CntW];
  assign cnt_bytes_out_o     = cnt_q[sue_pkg::TxBytesOut*CntW +: CntW];

  // ---------------------------------------------------------------- cover points
  // The events of docs/sue.md's test plan, one `cover property` each (counted by `make coverage`, which
  // fails when one is never hit). Lite has no transport: its points are only the pool's.
`ifndef SYNTHESIS
  c_pool_full:     cover property (@(posedge clk_i) disable iff (!rst_ni) slk <= 0);
  c_early_credit:  cover property (@(posedge clk_i) disable iff (!rst_ni) lk_early);
  c_credit_defer:  cover property (@(posedge clk_i) disable iff (!rst_ni) lk_go && !lk_early && QCap > QDepth);
  generate
    if (Profile == 0) begin : g_cov
      c_window_full:  cover property (@(posedge clk_i) disable iff (!rst_ni) |(g_sue.u_conn.wfl_q & ~g_sue.u_conn.rtxact_q));
      c_window_bytes: cover property (@(posedge clk_i) disable iff (!rst_ni) |(g_sue.u_conn.sl_v & g_sue.u_conn.sl_wfb));
      c_nack_sent:    cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxNackSent] != '0);
      c_nack_rcvd:    cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxNackRcvd] != '0);
      c_go_back_n:    cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxGbn] != '0);
      c_rto:          cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxRto] != '0);
      c_rto_late:     cover property (@(posedge clk_i) disable iff (!rst_ni) |(g_sue.u_conn.rl_fire & g_sue.u_conn.rl_late));
      c_slot_shared:  cover property (@(posedge clk_i) disable iff (!rst_ni) g_sue.u_conn.sl_shared);
      c_pdu_resent:   cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxPdusRtx] != '0);
      c_ack_only:     cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxAckOnly] != '0);
      c_port_dies:    cover property (@(posedge clk_i) disable iff (!rst_ni) |dies);
      c_fo_req_sent:  cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxFoReqSent] != '0);
      c_fo_ack_sent:  cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxFoAckSent] != '0);
      c_fo_ack_rcvd:  cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxFoAckRcvd] != '0);
      c_pdu_migrated: cover property (@(posedge clk_i) disable iff (!rst_ni) inc[sue_pkg::TxPdusMig] != '0);
    end
  endgenerate
`endif

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  // pool bookkeeping (assertions only): the owner of each slot, 8 bits: 8'hff free or never used,
  // 8'hfe the ingress command, q on queue q's list
  localparam logic [15:0] OwnFree = 16'hffff, OwnIng = 16'hfffe;
  logic [Pool*16-1:0] a_own_q, a_own_d;
  logic [PW+7:0] a_sum_held, a_sum_queued, a_total, a_sum_df;
  logic [PW-1:0] a_d, a_fresh, a_fl;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [QWW-1:0] a_w;
  /* verilator lint_on UNUSEDSIGNAL */
  // field off (PW bits from bit off) of queue q's word
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [PW-1:0] a_f(input int q, input int off);
    logic [QWW-1:0] w;
    w = qrd(QIW'(q));
    a_f = w[off +: PW];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  function automatic logic [PW-1:0] a_pc(input int q);
    a_pc = PW'(pc_q[q*CW +: CW]);
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [PW-1:0] a_df(input int q);
    logic [QWW-1:0] w;
    w = qrd(QIW'(q));
    a_df = PW'(w[ODf +: CW]);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    a_sum_held = '0;
    a_sum_queued = '0;
    a_sum_df = '0;
    a_d = '0;
    for (int q = 0; q < NQ; q++) begin
      a_w = qrd(QIW'(q));
      a_sum_df     = a_sum_df + (PW+8)'(a_w[ODf +: CW]);
      a_sum_held   = a_sum_held + (PW+8)'(a_w[OHeld +: PW]);
      a_d = a_w[OTail +: PW] - a_w[OSend +: PW];
      a_sum_queued = a_sum_queued + (PW+8)'(a_d);
    end
    a_fresh = PW'(Pool) - fresh_q;
    a_fl    = flwp_q - flrp_q;
    a_total = (PW+8)'(a_fresh) + (PW+8)'(a_fl) + (PW+8)'(sheld_q) + a_sum_queued +
              (PW+8)'(in_act_q && !in_drop_q);
    a_own_d = a_own_q;
    if (al_go) a_own_d[32'(al_s)*16 +: 16] = lk_go ? 16'(lk_q) : OwnIng;
    else if (lk_go) a_own_d[32'(lk_s)*16 +: 16] = 16'(lk_q);
    if (ret_go) a_own_d[32'(in_slot_q)*16 +: 16] = OwnFree;
    if (fr_go) a_own_d[32'(fr_s)*16 +: 16] = OwnFree;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      /* verilator lint_off WIDTHCONCAT */
      a_own_q <= '1;
      /* verilator lint_on WIDTHCONCAT */
    end else begin
      a_own_q <= a_own_d;
      if (al_go) begin
        assert (a_own_q[32'(al_s)*16 +: 16] == OwnFree) else $error("sue_tx: allocated slot %0d is on a list", al_s);
      end
      if (lk_go && !al_go) begin
        assert (a_own_q[32'(lk_s)*16 +: 16] == OwnIng) else $error("sue_tx: linked slot %0d is on a list", lk_s);
      end
      if (ret_go) begin
        assert (a_own_q[32'(in_slot_q)*16 +: 16] == OwnIng) else $error("sue_tx: returned slot %0d is on a list", in_slot_q);
      end
      if (fr_go) begin
        assert (a_own_q[32'(fr_s)*16 +: 16] == 16'(fr_q)) else $error("sue_tx: freed slot %0d is not on queue %0d's list", fr_s, fr_q);
      end
      if (al_go) begin
        assert (fresh_q < PW'(Pool) || flrp_q != flwp_q) else $error("sue_tx: slot allocation from an empty pool");
      end
      for (int p = 0; p < NumPorts; p++) begin
        if (wk_hit[p]) begin
          assert (a_own_q[32'(wk_first[p*QB +: QB])*16 +: 16] == 16'(wk_q[p*QIW +: QIW]))
            else $error("sue_tx: acknowledged PDU not on its queue's list");
        end
        if (mk_v[p]) begin
          assert (a_own_q[32'(mk_s[p*QB +: QB])*16 +: 16] == 16'({ji_q[p*PIW +: PIW], jv_q[p*2 +: 2]}))
            else $error("sue_tx: acknowledged PDU not on its queue's list");
        end
      end
      assert (!(wr_ctrl && g_full)) else $error("sue_tx: write to a full queue %0d", g_q);
      for (int q = 0; q < NQ; q++) begin
        assert (a_df(q) + a_pc(q) <= PW'(QDepth) && a_df(q) <= a_f(q, OTail) - a_f(q, OSend) &&
                32'(PW'(a_f(q, OTail) - a_f(q, OSend))) + QDepth <= QCap + 32'(a_df(q)) && a_f(q, OHeld) >= a_pc(q))
          else $error("sue_tx: queue %0d: df + pc <= QDepth, df <= unsent, unsent + QDepth - df <= QCap, held >= pc violated", q);
        assert (hx_q[q] == (a_f(q, OHeld) > a_pc(q)) && hrz_q[q] == (a_f(q, OHrem) != '0))
          else $error("sue_tx: queue %0d: bit held > pc %0d or hrem != 0 %0d wrong (held %0d, pc %0d, hrem %0d)", q,
                      hx_q[q], hrz_q[q], a_f(q, OHeld), a_pc(q), a_f(q, OHrem));
        assert (!hx_q[q] || hack_q[q] == (sl_ackn[QB'(a_f(q, OHd))] != '0))
          else $error("sue_tx: queue %0d: head-acknowledged bit %0d, ackn of head slot %0d is %0d", q, hack_q[q],
                      QB'(a_f(q, OHd)), sl_ackn[QB'(a_f(q, OHd))]);
        assert (qne_q[q] == (a_f(q, OSend) != a_f(q, OTail)))
          else $error("sue_tx: queue %0d: nonempty bit %0d, send != tail %0d", q, qne_q[q], a_f(q, OSend) != a_f(q, OTail));
      end
      assert (a_sum_held == (PW+8)'(sheld_q) && sheld_q <= PW'(HMax))
        else $error("sue_tx: held commands: sum of queues != total, or above Pool - NQ*QDepth");
      assert (a_sum_df == (PW+8)'(sdf_q) && slk >= 0)
        else $error("sue_tx: deferred credits: sum of queues %0d != total %0d, or pool slack %0d < 0", a_sum_df, sdf_q, slk);
      assert (a_total == (PW+8)'(Pool))
        else $error("sue_tx: pool accounting: fresh + free + held + queued + ingress != Pool");
      for (int p = 0; p < NumPorts; p++) begin
        if (brd_q[p] && !dies[p]) begin
          assert (a_own_q[32'(bs_q[p*QB +: QB])*16 +: 16] == 16'({ji_q[p*PIW +: PIW], jv_q[p*2 +: 2]}))
            else $error("sue_tx: builder %0d reads a slot not on its queue's list", p);
        end
      end
      for (int p = 0; p < NumPorts; p++) begin
        if (job_go && job_port == 2'(p)) begin
          assert (live[p] && credit_ok_i[p*4 + 32'(job_v)])
            else $error("sue_tx: a job starts on dead port %0d or without credit_ok", p);
        end
      end
      if (job_go) begin
        if (!job_k) begin
          assert (job_n >= PW'(1) && (s_hit ? 32'(s_jP) : 32'(new_P)) <= MaxPack)
            else $error("sue_tx: DATA PDU with n_cmd %0d, P > MaxPack", job_n);
        end
      end
    end
  end
`endif
`endif

endmodule
