// sue_tx_conn -- the reliability half of sue_tx (SUE only): the connection state {port, peer, VC} and
// everything that reads or writes it at one edge (docs/sue.md "sue_tx: one rising edge", steps 1-4 and 7
// for the connections; "Connection state in memories (sue_tx)").
//
// * S1: the candidates of the SUE job kinds FO-ACK, FO-REQ, RTX and ACK-only (bitmaps, find-first).
// * S2: MIGRATE (the target port mig_t_i comes back from the parent's port_sel of mig_q_o), the SUE
//   job's fields, and NEW's PSN and piggyback.
// * S3: the slots: every connection an event of this edge names is read from the memory cm, gets the
//   edge's events applied and is written back; the flag bitmaps follow.
// * The ACK-delay lists, the RTO lists and the failover-retry FIFO (exact timers), the descriptors
//   (psn mod Window of each connection), the descriptor walkers, out_bytes per port, the death rank,
//   and the connection debug read port.
//
// Instanced once by sue_tx (Profile 0; SUE Lite has none of it). The parent owns the configuration
// registers, the ports' status, the queues, the NEW selection, the job (C3) and the builders; the
// names below are the parent's with _i / _o. Right-hand sides read pre-edge values (_q) and inputs.
// +define+SUE_MUTANT, SUE_MUTANT_RTO, SUE_MUTANT_ACK and SUE_MUTANT_FO plant the bugs of the
// lockstep self-checks here (sue_tx.sv's header). yosys 0.23 subset: no structs, no `return`.

module sue_tx_conn #(
  parameter int NumPorts = 1,
  parameter int NumXpus  = 8,
  parameter int Window   = 64,
  parameter int CntW     = 32,
  parameter int Pool     = 4096,
  // the parent's derived widths
  parameter int NQ       = NumXpus * 4,
  parameter int NC       = NumPorts * NumXpus * 4,
  parameter int PW       = $clog2(Pool) + 1,
  parameter int IW       = $clog2(Window) + 1
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // configuration registers of the parent
  input  logic [7:0]                    ack_count_i,
  input  logic [23:0]                   win_bytes_i,   // byte window (0: off)
  input  logic [15:0]                   ack_delay_i,
  input  logic [23:0]                   rto_i,
  input  logic [23:0]                   fo_retry_i,
  // C1: the ports
  input  logic [NumPorts-1:0]           dead_i,        // dead before this edge
  input  logic [NumPorts-1:0]           dies_i,        // dies at this edge
  input  logic [NumPorts-1:0]           live_i,
  input  logic                          any_live_i,
  input  logic [NumPorts*4-1:0]         okpv_i,        // ok(p, v)
  input  logic [1:0]                    fo_port_i,     // the port FO frames leave on
  // feedback from sue_rx
  input  logic [NumPorts-1:0]           fb_valid_i,
  input  logic [NumPorts*10-1:0]        fb_peer_i,
  input  logic [NumPorts*2-1:0]         fb_vc_i,
  input  logic [NumPorts*2-1:0]         fb_owe_i,
  input  logic [NumPorts*16-1:0]        fb_owe_psn_i,
  input  logic [NumPorts*2-1:0]         fb_rop_i,
  input  logic [NumPorts*16-1:0]        fb_rapsn_i,
  input  logic [NumPorts*2-1:0]         fb_fo_i,
  input  logic [NumPorts*2-1:0]         fb_fo_port_i,
  // C2 / C3: NEW and the job of this edge
  input  logic [NQ-1:0]                 psel_ok_i,     // the queue may start (port_sel has a port)
  output logic [$clog2(NQ)-1:0]         mig_q_o,       // the MIGRATE candidate's queue ...
  input  logic [1:0]                    mig_t_i,       // ... and its port_sel
  input  logic                          job_go_i,
  input  logic                          new_go_i,
  input  logic [1:0]                    job_port_i,
  input  logic [$clog2(NC)-1:0]         new_c_i,
  input  logic [12:0]                   new_P_i,
  input  logic [$clog2(Pool)-1:0]       new_first_i,
  input  logic [PW-1:0]                 new_n_i,
  // S1 / S: the state the parent's scans read
  output logic [NC-1:0]                 cwin_o,        // !rtx_act && npsn - free_psn < Window && ib < win_bytes
  output logic [NQ-1:0]                 blocked_o,     // a connection of q in WAIT or MIGRATE
  output logic [NumPorts*24-1:0]        ob_cur_o,      // out_bytes
  // S2: the SUE job and NEW's PSN
  output logic                          s_hit_o,
  output logic [2:0]                    s_kind_o,
  output logic [1:0]                    s_port_o,
  output logic                          s_jk_o,
  output logic [$clog2(NumXpus)-1:0]    s_ji_o,
  output logic [1:0]                    s_jv_o,
  output logic [15:0]                   s_jpsn_o,
  output logic [$clog2(Pool)-1:0]       s_jfirst_o,
  output logic [PW-1:0]                 s_jn_o,
  output logic [12:0]                   s_jP_o,
  output logic [1:0]                    s_jop_o,
  output logic [15:0]                   s_japsn_o,
  output logic [3:0]                    s_jrsvd_o,
  output logic [15:0]                   new_psn_o,
  output logic [15:0]                   new_apsn_o,
  output logic [1:0]                    new_op_o,
  // S3: the descriptor walkers and the counter increments
  output logic [NumPorts-1:0]           wk_hit_o,
  output logic [NumPorts*$clog2(NQ)-1:0] wk_q_o,
  output logic [NumPorts*$clog2(Pool)-1:0] wk_first_o,
  output logic [NumPorts*PW-1:0]        wk_n_o,
  output logic [CntW-1:0]               s_inc_gbn_o,
  output logic [CntW-1:0]               s_inc_rto_o,
  output logic [CntW-1:0]               s_inc_nack_rcvd_o,
  output logic [CntW-1:0]               s_inc_fo_ack_rcvd_o,
  // observability (the parent's ports)
  input  logic [$clog2(NC)-1:0]         dbg_conn_i,
  output logic [15:0]                   dbg_npsn_o,
  output logic [15:0]                   dbg_ack_psn_o,
  output logic [IW-1:0]                 dbg_inflight_o,
  output logic [23:0]                   dbg_inbytes_o,
  output logic [2:0]                    dbg_state_o,
  output logic [NumPorts*24-1:0]        out_bytes_o
);
  localparam int QB    = $clog2(Pool);                   // slot id bits
  localparam int CIW   = $clog2(NC);                     // connection index bits
  localparam int QIW   = $clog2(NQ);                     // queue index bits
  localparam int NPC   = NumXpus * 4;                    // connections per port
  localparam int PIW   = $clog2(NumXpus);                // peer (= XPU id) index bits
  localparam int NQW   = 1 << QIW;                       // queue bitmap width (>= NQ)
  localparam int DescW = QB + PW + 13;                   // {first, n, P}
  localparam logic [2:0] KFoAck = sue_pkg::KFoAck, KFoReq = sue_pkg::KFoReq, KRtx = sue_pkg::KRtx,
                         KAckOnly = sue_pkg::KAckOnly, KMig = sue_pkg::KMig;

  logic [CIW-1:0] s_c, s_c2;    // the SUE job's connection; MIGRATE: the target connection

  // Descriptor slot of a PSN: psn mod Window.
  function automatic logic [31:0] widx(input logic [15:0] psn);
    logic [15:0] m;
    m = psn & 16'(Window - 1);
    widx = 32'(m);
  endfunction

  // ------------------------------------------------------------ connection state (docs/sue.md "Connection
  // state in memories (sue_tx)"): the numbers in the memory cm, one word per connection, read and written
  // at this edge's slots only; the flags the scans read in bitmaps (flops, one bit per connection).
  localparam int NCW = 1 << CIW;                    // bitmap bits (>= NC)
  localparam int WW  = (NCW < 64) ? NCW : 64;       // bitmap reset words
  localparam int NVW = NCW / WW;
  localparam int NS  = 4 * NumPorts + 2;            // slots: F[p], O[p], R[p], W[p], J, J2
  localparam int CMW = 24 + 7 * 16 + 8;             // {ib, npsn, ack, free, rtx_psn, owe_psn, mig_psn, fo_ans_psn, owe_n}
  logic [CMW-1:0]   cm [NC];
  logic [NCW-1:0]   cmv_q, cmv_d;                    // cm[c] written since reset (else it reads 0)
  logic [NCW-1:0]   rtxact_q, rtxact_d, fodue_q, fodue_d, foans_q, foans_d;
  logic [NCW-1:0]   adue_q, adue_d;   // the owed ACK's age reached cfg_ack_delay (the ACK-delay lists below)
  logic [NCW-1:0]   oa_q, oa_d, on_q, on_d;          // owe == ACK, owe == NACK
  logic [NCW-1:0]   fw_q, fw_d, fm_q, fm_d;          // fo_state WAIT, MIGRATE (else LIVE, RETIRED on a dead port)
  logic [NCW-1:0]   bsy_q, bsy_d;                    // ack_psn != npsn
  logic [NCW-1:0]   unf_q, unf_d;                    // free_psn != ack_psn
  logic [NCW-1:0]   wfl_q, wfl_d;                    // npsn - free_psn >= Window, or (win_bytes != 0) ib >= win_bytes
  logic [NCW-1:0]   cnth_q, cnth_d;                  // cfg_ack_count != 0 && owe_n >= cfg_ack_count
  logic [24:0]      now_q;            // edges since reset (mod 2^25): the time stamps of the timer lists
  // failover retry: a FIFO of {connection, edge} pushed by each FO-REQ job (below "ACK-delay lists")
  logic             fo_pop;
  logic [CIW-1:0]   fo_pop_c;
  logic [DescW-1:0] desc_q [NC*Window];
  logic [NumPorts*24-1:0] ob_q, ob_d;
  logic [NumPorts*2-1:0]  rank_q, rank_d;   // ports dead before this one died (failover order)

  // ------------------------------------------------------------ S1: candidates of kinds 1..4 (bitmaps)
  logic              s1_hit;
  logic [2:0]        s1_kind;
  logic [CIW-1:0]    s1_c;
  // held(q): a connection of q waits for its FO-ACK, or dies at this edge with PDUs unacknowledged:
  // neither NEW nor MIGRATE of q may start. mrank(q): the highest death rank of q's connections in
  // MIGRATE (the one whose port died last holds the queue's oldest PDUs and migrates first).
  logic [NQ-1:0]     held, migq, mhi, mlo;   // mrank(q) = {mhi[q], mlo[q]}
  logic [NQ-1:0]     s1_has [4];             // q has a connection in MIGRATE on a port of death rank r
  logic [NCW-1:0]    s1_okm, s1_fom, s1_a, s1_r, s1_fr, s1_fa, s1_ffx;
  always_comb begin
    held   = NQ'(0);
    migq   = NQ'(0);
    s1_okm = NCW'(0);
    s1_fom = NCW'(0);
    for (int r = 0; r < 4; r++) s1_has[r] = NQ'(0);
    cwin_o   = ~rtxact_q[NC-1:0] & ~wfl_q[NC-1:0];
    for (int p = 0; p < NumPorts; p++) begin
      held = held | fw_q[p*NPC +: NPC] | (dies_i[p] ? bsy_q[p*NPC +: NPC] : NQ'(0));
      migq = migq | fm_q[p*NPC +: NPC];
      for (int r = 0; r < 4; r++) begin
        if (rank_q[p*2 +: 2] == 2'(r)) s1_has[r] = s1_has[r] | fm_q[p*NPC +: NPC];
      end
      // credit_ok of the connection's port and VC (okpv), and of the FO port and its VC
      s1_okm[p*NPC +: NPC] = NPC'({((NPC + 3) / 4){okpv_i[p*4 +: 4]}});
      s1_fom[p*NPC +: NPC] = any_live_i ? NPC'({((NPC + 3) / 4){okpv_i[fo_port_i*4 +: 4]}}) : NPC'(0);
    end
    mhi     = s1_has[3] | s1_has[2];
    mlo     = s1_has[3] | (~s1_has[2] & s1_has[1]);
    blocked_o = held | migq;
    // lowest kind (FO-ACK, FO-REQ, RTX, ACK-only), then lowest connection index
    s1_a    = (on_q | (oa_q & (adue_q | cnth_q))) & s1_okm;
    s1_r    = rtxact_q & s1_okm;
    s1_fr   = fw_q & fodue_q & s1_fom;
    s1_fa   = foans_q & s1_fom;
    s1_hit  = |(s1_a | s1_r | s1_fr | s1_fa);
    // the first nonempty kind's set, searched once (expressions, not an if chain: see sue_ff1)
    s1_kind = (|s1_fa) ? KFoAck : (|s1_fr) ? KFoReq : (|s1_r) ? KRtx : (|s1_a) ? KAckOnly : 3'd0;
    s1_ffx  = (|s1_fa) ? s1_fa : (|s1_fr) ? s1_fr : (|s1_r) ? s1_r : s1_a;
  end
  sue_ff1 #(.IW(CIW)) u_ff_s1 (.x_i(s1_ffx), .idx_o(s1_c));
  assign ob_cur_o  = ob_q;

  // ------------------------------------------------------------ S2: MIGRATE, the SUE job, NEW's PSN
  // Two reads of cm: the job's connection s_c (J) and, for MIGRATE its target s_c2, else NEW's new_c (J2).
  logic              s2_mhit;
  logic [NCW-1:0]    s2_m;
  logic [CIW-1:0]    s2_mc;
  logic [1:0]        s2_t;
  logic [CIW-1:0]    s2_pbc;     // piggyback connection of the SUE job
  logic [15:0]       s2_dpsn;    // descriptor read: PSN
  logic [DescW-1:0]  s2_desc;
  logic [CIW-1:0]    j2_c;
  logic [CMW-1:0]    rj, rj2;    // cm at s_c, j2_c
  always_comb begin
    // MIGRATE: the lowest connection in MIGRATE whose queue may start and whose port's death rank is
    // its queue's highest (mrank)
    s2_m = NCW'(0);
    for (int p = 0; p < NumPorts; p++) begin
      s2_m[p*NPC +: NPC] = fm_q[p*NPC +: NPC] & psel_ok_i & ~held & (rank_q[p*2 + 1] ? mhi : ~mhi) &
                           (rank_q[p*2] ? mlo : ~mlo);
    end
  end
  sue_ff1 #(.IW(CIW)) u_ff_mig (.x_i(s2_m), .idx_o(s2_mc));
  assign mig_q_o = QIW'(32'(s2_mc) % NPC);
  always_comb begin
    s2_mhit = |s2_m;
    s2_t   = mig_t_i;
    s_hit_o  = s1_hit || s2_mhit;
    s_kind_o = s1_hit ? s1_kind : (s2_mhit ? KMig : 3'd0);
    s_c    = s1_hit ? s1_c : s2_mc;
    s_c2   = CIW'((32'(s2_t)*NumXpus + 32'(s_c)/4 % NumXpus)*4 + 32'(s_c)%4);
    j2_c   = s_hit_o ? s_c2 : new_c_i;
    rj     = (32'(s_c) < NC && cmv_q[s_c]) ? cm[s_c] : '0;
    rj2    = (32'(j2_c) < NC && cmv_q[j2_c]) ? cm[j2_c] : '0;
    // descriptor read (RTX: rtx_psn of c; MIGRATE: mig_psn of c)
    s2_dpsn = (s_kind_o == KRtx) ? rj[71:56] : rj[39:24];
    s2_desc = desc_q[32'(s_c)*Window + widx(s2_dpsn)];
    // job fields
    s_ji_o     = PIW'(32'(s_c)/4 % NumXpus);
    s_jv_o     = 2'(32'(s_c)%4);
    s_jk_o     = (s_kind_o == KFoAck) || (s_kind_o == KFoReq) || (s_kind_o == KAckOnly);
    s_jfirst_o = s2_desc[DescW-1 -: QB];
    s_jn_o     = s2_desc[13 +: PW];
    s_jP_o     = s2_desc[12:0];
    s_jrsvd_o  = ((s_kind_o == KFoAck) || (s_kind_o == KFoReq)) ? {2'b10, 2'(32'(s_c)/NPC)} : 4'd0;
    s2_pbc   = (s_kind_o == KMig) ? s_c2 : s_c;
    s_jop_o    = on_q[s2_pbc] ? sue_pkg::RopNack : (oa_q[s2_pbc] ? sue_pkg::RopAck : sue_pkg::RopNone);
    s_japsn_o  = (!on_q[s2_pbc] && !oa_q[s2_pbc]) ? 16'd0 : ((s_kind_o == KMig) ? rj2[55:40] : rj[55:40]);
    s_jpsn_o   = '0;
    s_port_o   = 2'(32'(s_c)/NPC);
    case (s_kind_o)
      KFoAck: begin
        s_jop_o = sue_pkg::RopAck; s_japsn_o = rj[23:8]; s_port_o = fo_port_i;
      end
      KFoReq: begin
        s_jop_o = sue_pkg::RopNone; s_japsn_o = 16'd0; s_port_o = fo_port_i;
      end
      KRtx:     s_jpsn_o = rj[71:56];
      KAckOnly: s_jpsn_o = rj[119:104];
      KMig: begin
        s_jpsn_o = rj2[119:104]; s_port_o = s2_t;
      end
      default: ;
    endcase
    // NEW on new_c (j2_c when no SUE job)
    new_psn_o  = rj2[119:104];
    new_op_o   = on_q[new_c_i] ? sue_pkg::RopNack : (oa_q[new_c_i] ? sue_pkg::RopAck : sue_pkg::RopNone);
    new_apsn_o = (!on_q[new_c_i] && !oa_q[new_c_i]) ? 16'd0 : rj2[55:40];
  end

  // ------------------------------------------------------------ RTO lists (head, due)
  // One list per port of its connections with PDUs unacknowledged (ack_psn != npsn), in the order of
  // their last RTO restart (sue_tx_tlist u_rl: 25-bit stamps of the edge counter, three appends per port
  // and edge); the head is due when its restart is max(1, cfg_rto) edges old.
  localparam logic [24:0] RtoMin1 = 25'd1;
  logic [NumPorts*CIW-1:0]     rlh_q;    // heads
  logic [NumPorts*25-1:0]      rlh_t;    // their stamps
  logic [NumPorts*(CIW+1)-1:0] rln_q;    // entries
  logic [NumPorts-1:0]         rl_due, rl_rst, rl_fire;
  logic [NumPorts-1:0]         rl_late;  // the head fired after its deadline (another was due first)
  logic [24:0]                 rl_r;
  always_comb begin
    rl_r = (rto_i == '0) ? RtoMin1 : 25'(rto_i);
    for (int p = 0; p < NumPorts; p++) begin
`ifdef SUE_MUTANT_RTO
      // MUTANT: the RTO list's head is due one edge late
      rl_due[p] = rln_q[p*(CIW+1) +: CIW+1] != '0 && (now_q - rlh_t[p*25 +: 25]) >= rl_r + 25'd1;
`else
      rl_due[p] = rln_q[p*(CIW+1) +: CIW+1] != '0 && (now_q - rlh_t[p*25 +: 25]) >= rl_r;
`endif
      rl_late[p] = (now_q - rlh_t[p*25 +: 25]) != rl_r;
    end
  end

  // ------------------------------------------------------------ S3: connections, one edge (slots)
  // The next state of a connection is a function of its pre-edge state and this edge's events, which
  // name their connections: the normal event of port p (slot F[p]), the FO event carried by port p
  // (O[p]), the RTO list head of port p (R[p]), the descriptor walker of port p (W[p]), the SUE job's
  // connection (J) and the connection whose npsn moves (J2: NEW's, or the MIGRATE target). Each slot
  // reads its connection's word and flags, applies every event of the edge that names it (the same
  // steps as docs/sue.md "sue_tx: one rising edge"), and writes the result back. Two slots on one
  // connection compute the same result. Port death and the failover-retry pop change flags only:
  // bitmap operations below. No other connection changes.
  logic [NS*CIW-1:0] sl_c;
  logic [NS-1:0]     sl_v;
  logic [CMW-1:0]    sl_r [NS];     // cm reads
  logic [CMW-1:0]    sl_w [NS];     // cm writes
  logic [NS-1:0]     sl_rtx, sl_fodue, sl_foans, sl_oa, sl_on, sl_fw, sl_fm, sl_bsy, sl_unf, sl_wfl, sl_cnth;
  logic [NS-1:0]     sl_wfb;        // the byte window alone is full (coverage)
  // flags read at the slots: F, R and W name a connection of their own port, so they read within that
  // port's bank of each bitmap (an NPC-way choice instead of an NC-way one)
  logic [NS-1:0]     rf_on, rf_oa, rf_rtx, rf_fw, rf_fm, rf_fodue, rf_foans, rf_cmv;
  logic [NPC-1:0]    bk_on, bk_oa, bk_rtx, bk_fw, bk_fm, bk_fodue, bk_foans, bk_cmv;
  localparam int LCW = (NPC > 1) ? $clog2(NPC) : 1;
  int                rb;
  logic [LCW-1:0]    lc;
  logic [1:0]  e_owe, e_rop, e_fo;
  logic [15:0] e_rapsn, e_o, e_d, e_a;
  logic        owe_w, rtx_w, prog, gbn1, fans_w, fo_acked, fire;
  logic [CIW-1:0] c;
  int          pc;
  logic [15:0] q_npsn, q_ack, q_free, q_rtxpsn, q_migpsn;
  logic [15:0] x_npsn, x_ack, x_free, x_rtxpsn, x_owepsn, x_migpsn, x_fapsn, x_inf;
  logic [7:0]  q_owen, x_owen;
  logic [23:0] x_ib;             // in-flight bytes: the P of the descriptors [free_psn, npsn)
  logic [1:0]  q_owe, x_owe;
  logic [2:0]  q_fst, x_fst;
  logic        q_rtxact, x_rtxact, x_fodue, x_foans;
  logic [CntW-1:0] n_gbn, n_rto, n_nack, n_foack;
  logic [NumPorts*CIW-1:0] wk_c;
  logic [DescW-1:0] wk_desc [NumPorts];
  logic        pb_any;
  logic [CIW-1:0] pb_c;
  logic [1:0]  sl_f;
  // descriptor walkers: per port the lowest connection with free_psn != ack_psn
  logic [QIW-1:0] wk_ci [NumPorts];
  for (genvar p = 0; p < NumPorts; p++) begin : g_wk
    sue_ff1 #(.IW(QIW)) u_ff_wk (.x_i(NQW'(unf_q[p*NPC +: NPC])), .idx_o(wk_ci[p]));
  end
  always_comb begin
    for (int p = 0; p < NumPorts; p++) begin
      wk_hit_o[p] = |unf_q[p*NPC +: NPC];
      wk_c[p*CIW +: CIW] = wk_hit_o[p] ? CIW'(32'(p)*NPC + 32'(wk_ci[p])) : '0;
    end
    // the slots
    for (int p = 0; p < NumPorts; p++) begin
      sl_f = fb_fo_port_i[p*2 +: 2];
      sl_c[p*CIW +: CIW] = CIW'((32'(p)*NumXpus + 32'(fb_peer_i[p*10 +: 10]) % NumXpus)*4 + 32'(fb_vc_i[p*2 +: 2]));
      sl_v[p] = fb_valid_i[p] && live_i[p] && 32'(fb_peer_i[p*10 +: 10]) < NumXpus;
      sl_c[(NumPorts + p)*CIW +: CIW] = CIW'((32'(sl_f)*NumXpus + 32'(fb_peer_i[p*10 +: 10]) % NumXpus)*4 +
                                             32'(fb_vc_i[p*2 +: 2]));
      sl_v[NumPorts + p] = fb_valid_i[p] && 32'(fb_peer_i[p*10 +: 10]) < NumXpus && 32'(sl_f) < NumPorts &&
                           (fb_fo_i[p*2 +: 2] == sue_pkg::FoReq || fb_fo_i[p*2 +: 2] == sue_pkg::FoAck);
      sl_c[(2*NumPorts + p)*CIW +: CIW] = rlh_q[p*CIW +: CIW];
      sl_v[2*NumPorts + p] = live_i[p] && rl_due[p];
      sl_c[(3*NumPorts + p)*CIW +: CIW] = wk_c[p*CIW +: CIW];
      sl_v[3*NumPorts + p] = wk_hit_o[p];
    end
    sl_c[(4*NumPorts)*CIW +: CIW]     = s_c;
    sl_v[4*NumPorts]                  = job_go_i && !new_go_i;
    sl_c[(4*NumPorts + 1)*CIW +: CIW] = j2_c;
    sl_v[4*NumPorts + 1]              = new_go_i || (job_go_i && s_kind_o == KMig);
    rb = 0; lc = '0;
    bk_on = '0; bk_oa = '0; bk_rtx = '0; bk_fw = '0; bk_fm = '0; bk_fodue = '0; bk_foans = '0; bk_cmv = '0;
    for (int k = 0; k < NS; k++) begin
      c = sl_c[k*CIW +: CIW];
      if (k < NumPorts || (k >= 2*NumPorts && k < 4*NumPorts)) begin
        rb = k % NumPorts;
        lc = LCW'(32'(c) % NPC);
        bk_on = on_q[rb*NPC +: NPC]; bk_oa = oa_q[rb*NPC +: NPC]; bk_rtx = rtxact_q[rb*NPC +: NPC];
        bk_fw = fw_q[rb*NPC +: NPC]; bk_fm = fm_q[rb*NPC +: NPC]; bk_fodue = fodue_q[rb*NPC +: NPC];
        bk_foans = foans_q[rb*NPC +: NPC]; bk_cmv = cmv_q[rb*NPC +: NPC];
        rf_on[k] = bk_on[lc]; rf_oa[k] = bk_oa[lc]; rf_rtx[k] = bk_rtx[lc]; rf_fw[k] = bk_fw[lc];
        rf_fm[k] = bk_fm[lc]; rf_fodue[k] = bk_fodue[lc]; rf_foans[k] = bk_foans[lc]; rf_cmv[k] = bk_cmv[lc];
      end else begin
        rf_on[k] = on_q[c]; rf_oa[k] = oa_q[c]; rf_rtx[k] = rtxact_q[c]; rf_fw[k] = fw_q[c]; rf_fm[k] = fm_q[c];
        rf_fodue[k] = fodue_q[c]; rf_foans[k] = foans_q[c]; rf_cmv[k] = cmv_q[c];
      end
      if (k < 4*NumPorts) sl_r[k] = (32'(c) < NC && rf_cmv[k]) ? cm[c] : '0;
      else sl_r[k] = (k == 4*NumPorts) ? rj : rj2;
    end
    for (int p = 0; p < NumPorts; p++) begin
      wk_desc[p] = desc_q[32'(wk_c[p*CIW +: CIW])*Window + widx(sl_r[3*NumPorts + p][87:72])];
      wk_q_o[p*QIW +: QIW]    = QIW'(32'(wk_c[p*CIW +: CIW]) % NPC);
      wk_first_o[p*QB +: QB]  = wk_desc[p][DescW-1 -: QB];
      wk_n_o[p*PW +: PW]      = wk_desc[p][13 +: PW];
    end
    // piggyback connection of this edge's job
    pb_any = (job_go_i && !new_go_i && (s_kind_o == KRtx || s_kind_o == KAckOnly || s_kind_o == KMig)) || new_go_i;
    pb_c   = new_go_i ? new_c_i : ((s_kind_o == KMig) ? s_c2 : s_c);

    n_gbn = '0; n_rto = '0; n_nack = '0; n_foack = '0;
    rl_rst = '0; rl_fire = '0;
    for (int p = 0; p < NumPorts; p++) begin
      if (fb_valid_i[p] && 32'(fb_peer_i[p*10 +: 10]) < NumXpus) begin
        if (live_i[p] && fb_rop_i[p*2 +: 2] == sue_pkg::RopNack) n_nack = n_nack + 1'b1;
        if (fb_fo_i[p*2 +: 2] == sue_pkg::FoAck && 32'(fb_fo_port_i[p*2 +: 2]) < NumPorts) n_foack = n_foack + 1'b1;
      end
    end
    for (int k = 0; k < NS; k++) begin
      c  = sl_c[k*CIW +: CIW];
      pc = (32'(c) / NPC) % NumPorts;   // (an invalid slot's index may be out of range: not written)
      q_npsn   = sl_r[k][119:104];
      q_ack    = sl_r[k][103:88];
      q_free   = sl_r[k][87:72];
      q_rtxpsn = sl_r[k][71:56];
      q_migpsn = sl_r[k][39:24];
      q_owen   = sl_r[k][7:0];
      q_owe    = {rf_on[k], rf_oa[k]};
      q_rtxact = rf_rtx[k];
      q_fst    = rf_fw[k] ? sue_pkg::StWait : (rf_fm[k] ? sue_pkg::StMig : (dead_i[pc] ? sue_pkg::StRetired : sue_pkg::StLive));
      {x_ib, x_npsn, x_ack, x_free, x_rtxpsn, x_owepsn, x_migpsn, x_fapsn, x_owen} = sl_r[k];
      x_owe = q_owe; x_rtxact = q_rtxact; x_fst = q_fst; x_fodue = rf_fodue[k]; x_foans = rf_foans[k];
      owe_w = 1'b0; rtx_w = 1'b0; prog = 1'b0; gbn1 = 1'b0; fans_w = 1'b0; fo_acked = 1'b0; fire = 1'b0;
      e_owe = '0; e_rop = '0; e_rapsn = '0; e_o = '0; e_d = '0; e_a = '0; e_fo = '0;
      // 1. feedback: the normal events of port p(c)
      if (fb_valid_i[pc] && live_i[pc] && fb_peer_i[pc*10 +: 10] == 10'((32'(c)/4) % NumXpus) &&
          fb_vc_i[pc*2 +: 2] == 2'(32'(c)%4)) begin
        e_owe   = fb_owe_i[pc*2 +: 2];
        e_rop   = fb_rop_i[pc*2 +: 2];
        e_rapsn = fb_rapsn_i[pc*16 +: 16];
        if (e_owe == sue_pkg::OweAck || e_owe == sue_pkg::OweNack || (e_owe == sue_pkg::OweDup && q_owe != sue_pkg::OweNack)) begin
          x_owe    = (e_owe == sue_pkg::OweNack) ? sue_pkg::OweNack : sue_pkg::OweAck;
          x_owepsn = fb_owe_psn_i[pc*16 +: 16];
          owe_w    = 1'b1;
          x_owen   = (q_owe == sue_pkg::OweNone) ? 8'd1 : ((q_owen == 8'hff) ? 8'hff : q_owen + 8'd1);
        end
        e_o = q_npsn - q_ack;
        e_a = '0;
        if (e_rop == sue_pkg::RopAck) begin
          e_d = e_rapsn + 16'd1 - q_ack;
          if (e_d >= 16'd1 && e_d <= e_o) begin
            prog = 1'b1;
            e_a  = e_rapsn + 16'd1;
          end
        end else if (e_rop == sue_pkg::RopNack) begin
          e_d = e_rapsn - q_ack;
          if (e_d <= e_o) begin
            if (e_d > 16'd0) begin
              prog = 1'b1;
              e_a  = e_rapsn;
            end
            if (e_rapsn != q_npsn) gbn1 = 1'b1;
          end
        end
        if (prog) begin
          x_ack = e_a;
          if (q_rtxact) begin
            if ((e_a - q_rtxpsn) < 16'h8000 && e_a != q_rtxpsn) begin
              x_rtxpsn = e_a;
              rtx_w = 1'b1;
            end
            if (e_a == q_npsn) begin
              x_rtxact = 1'b0;
              rtx_w = 1'b1;
            end
          end
        end
        if (gbn1) begin
          x_rtxact = 1'b1;
`ifdef SUE_MUTANT
          x_rtxpsn = e_rapsn + 16'd1;  // MUTANT: the NACKed PDU is skipped
`else
          x_rtxpsn = e_rapsn;
`endif
          rtx_w = 1'b1;
        end
      end
      // 1. feedback: FO events about this connection, ports in ascending order
      for (int p = 0; p < NumPorts; p++) begin
        if (fb_valid_i[p] && fb_peer_i[p*10 +: 10] == 10'((32'(c)/4) % NumXpus) && fb_vc_i[p*2 +: 2] == 2'(32'(c)%4) &&
            32'(fb_fo_port_i[p*2 +: 2]) == pc) begin
          e_fo = fb_fo_i[p*2 +: 2];
          if (e_fo == sue_pkg::FoReq) begin
            x_foans = 1'b1;
            x_fapsn = fb_owe_psn_i[p*16 +: 16];
            fans_w  = 1'b1;
          end else if (e_fo == sue_pkg::FoAck && q_fst == sue_pkg::StWait && !fo_acked) begin
            fo_acked = 1'b1;
            e_o = q_npsn - q_ack;
            e_d = fb_rapsn_i[p*16 +: 16] + 16'd1 - q_ack;
            e_a = (e_d >= 16'd1 && e_d <= e_o) ? fb_rapsn_i[p*16 +: 16] + 16'd1 : q_ack;
            x_ack    = e_a;
            x_migpsn = e_a;
            x_fst    = (e_a == q_npsn) ? sue_pkg::StRetired : sue_pkg::StMig;
          end
        end
      end
      // 2. port death
      if (dies_i[pc]) begin
        x_owe    = '0;
        x_rtxact = 1'b0;
        if (x_ack != q_npsn) begin
          x_fst   = sue_pkg::StWait;
          x_fodue = 1'b1;
        end else begin
          x_fst   = sue_pkg::StRetired;
        end
      end
      // 3. RTO (live ports): the head of the port's RTO list, if due, still unacknowledged and not
      // restarted by this edge's feedback (at most one RTO per port and edge, "RTO lists" below)
      if (live_i[pc] && rl_due[pc] && rlh_q[pc*CIW +: CIW] == c && x_ack != q_npsn && !prog && !gbn1) begin
        x_rtxact = 1'b1;
        x_rtxpsn = x_ack;
        rtx_w    = 1'b1;
        fire     = 1'b1;
      end
      // 3. failover retry (WAIT): the FIFO's head is due at this edge
      if (fo_pop && fo_pop_c == c && q_fst == sue_pkg::StWait) x_fodue = 1'b1;
      // 4. the job's effects
      if (job_go_i && !new_go_i && s_c == c) begin
        case (s_kind_o)
          KFoAck: if (!fans_w) x_foans = 1'b0;
          KFoReq: x_fodue = 1'b0;
          KRtx: if (!rtx_w) begin
            x_rtxpsn = q_rtxpsn + 16'd1;
            if (q_rtxpsn + 16'd1 == q_npsn) x_rtxact = 1'b0;
          end
          KMig: begin
            x_migpsn = q_migpsn + 16'd1;
            if (q_migpsn + 16'd1 == q_npsn) x_fst = sue_pkg::StRetired;
          end
          default: ;
        endcase
      end
      if ((new_go_i && new_c_i == c) || (job_go_i && !new_go_i && s_kind_o == KMig && s_c2 == c)) begin
        x_npsn = q_npsn + 16'd1;
        x_ib   = x_ib + (new_go_i ? 24'(new_P_i) : 24'(s_jP_o));   // its descriptor's P
      end
      if (pb_any && pb_c == c && !owe_w) x_owe = '0;
      // 7. descriptor walker
      if (wk_hit_o[pc] && wk_c[pc*CIW +: CIW] == c) begin
        x_free = q_free + 16'd1;
        x_ib   = x_ib - 24'(wk_desc[pc][12:0]);
      end
      // the slot's results
      x_inf       = x_npsn - x_free;
      sl_w[k]     = {x_ib, x_npsn, x_ack, x_free, x_rtxpsn, x_owepsn, x_migpsn, x_fapsn, x_owen};
      sl_rtx[k]   = x_rtxact;
      sl_fodue[k] = x_fodue;
      sl_foans[k] = x_foans;
      sl_oa[k]    = x_owe == sue_pkg::OweAck;
      sl_on[k]    = x_owe == sue_pkg::OweNack;
      sl_fw[k]    = x_fst == sue_pkg::StWait;
      sl_fm[k]    = x_fst == sue_pkg::StMig;
      sl_bsy[k]   = x_ack != x_npsn;
      sl_unf[k]   = x_free != x_ack;
      sl_wfb[k]   = win_bytes_i != '0 && x_ib >= win_bytes_i;
      sl_wfl[k]   = x_inf >= 16'(Window) || sl_wfb[k];
      sl_cnth[k]  = ack_count_i != '0 && x_owen >= ack_count_i;
      // events counted once: a go-back-N by feedback in its F slot, an RTO in its R slot (valid slots
      // only: an empty list's head names some connection, maybe another port's head)
      if (k < NumPorts && sl_v[k]) begin
        rl_rst[k] = prog || gbn1;
        if (gbn1) n_gbn = n_gbn + 1'b1;
      end
      if (k >= 2*NumPorts && k < 3*NumPorts && sl_v[k]) begin
        rl_fire[k - 2*NumPorts] = fire;
        if (fire) begin
          n_gbn = n_gbn + 1'b1;
          n_rto = n_rto + 1'b1;
        end
      end
    end
  end
  // the flags: port death and the failover-retry pop as bitmap operations, then the slots' results. A
  // slot's connection is one-hot decoded (word x bit); each bitmap takes the results of the slots whose
  // own event can change it (any other slot on the same connection computes the same value):
  //   rtx_act F R J | fo_due J | fo_ans O J | owe F J J2 | WAIT, MIGRATE O J | busy F O J2 |
  //   unfreed F O W | window full W J2 | count reached F | valid bit: every slot
  logic [NVW-1:0] dh [NS];
  logic [WW-1:0]  dl [NS];
  logic [NCW-1:0] dk [NS];
  logic [NCW-1:0] h_cmv, h_rtx, s_rtx, h_fodue, s_fodue, h_foans, s_foans, h_owe, s_oa, s_on, h_fst, s_fw, s_fm,
                  h_bsy, s_bsy, h_unf, s_unf, h_wfl, s_wfl, h_cnth, s_cnth;
  function automatic logic wr(input int k, input logic f, input logic o, input logic r, input logic w,
                              input logic j, input logic j2);
    // does slot k's kind (F, O, R, W per port, J, J2) write this bitmap?
    if (k < NumPorts) wr = f;
    else if (k < 2*NumPorts) wr = o;
    else if (k < 3*NumPorts) wr = r;
    else if (k < 4*NumPorts) wr = w;
    else if (k == 4*NumPorts) wr = j;
    else wr = j2;
  endfunction
  always_comb begin
    for (int k = 0; k < NS; k++) begin
      dh[k] = sl_v[k] ? (NVW'(1) << (32'(sl_c[k*CIW +: CIW]) / WW)) : NVW'(0);
      dl[k] = WW'(1) << (32'(sl_c[k*CIW +: CIW]) % WW);
    end
  end
  // dk[k] = dl[k] in word dh[k] (a process of its own: yosys' frontend takes time quadratic in the
  // assignments of one process, NS*NVW here)
  always_comb begin
    for (int k = 0; k < NS; k++)
      for (int w = 0; w < NVW; w++) dk[k][w*WW +: WW] = dl[k] & {WW{dh[k][w]}};
  end
  always_comb begin
    h_cmv = NCW'(0); h_rtx = NCW'(0); s_rtx = NCW'(0); h_fodue = NCW'(0); s_fodue = NCW'(0); h_foans = NCW'(0);
    s_foans = NCW'(0); h_owe = NCW'(0); s_oa = NCW'(0); s_on = NCW'(0); h_fst = NCW'(0); s_fw = NCW'(0);
    s_fm = NCW'(0); h_bsy = NCW'(0); s_bsy = NCW'(0); h_unf = NCW'(0); s_unf = NCW'(0); h_wfl = NCW'(0);
    s_wfl = NCW'(0); h_cnth = NCW'(0); s_cnth = NCW'(0);
    for (int k = 0; k < NS; k++) begin
      // masks, not ifs (a wide assignment under an if is a switch yosys' proc_mux pays for per bit)
      h_cmv = h_cmv | dk[k];
      if (wr(k, 1, 0, 1, 0, 1, 0)) begin
        h_rtx = h_rtx | dk[k]; s_rtx = s_rtx | (sl_rtx[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 0, 0, 0, 0, 1, 0)) begin
        h_fodue = h_fodue | dk[k]; s_fodue = s_fodue | (sl_fodue[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 0, 1, 0, 0, 1, 0)) begin
        h_foans = h_foans | dk[k]; s_foans = s_foans | (sl_foans[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 1, 0, 0, 0, 1, 1)) begin
        h_owe = h_owe | dk[k]; s_oa = s_oa | (sl_oa[k] ? dk[k] : NCW'(0)); s_on = s_on | (sl_on[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 0, 1, 0, 0, 1, 0)) begin
        h_fst = h_fst | dk[k]; s_fw = s_fw | (sl_fw[k] ? dk[k] : NCW'(0)); s_fm = s_fm | (sl_fm[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 1, 1, 0, 0, 0, 1)) begin
        h_bsy = h_bsy | dk[k]; s_bsy = s_bsy | (sl_bsy[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 1, 1, 0, 1, 0, 0)) begin
        h_unf = h_unf | dk[k]; s_unf = s_unf | (sl_unf[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 0, 0, 0, 1, 0, 1)) begin
        h_wfl = h_wfl | dk[k]; s_wfl = s_wfl | (sl_wfl[k] ? dk[k] : NCW'(0));
      end
      if (wr(k, 1, 0, 0, 0, 0, 0)) begin
        h_cnth = h_cnth | dk[k]; s_cnth = s_cnth | (sl_cnth[k] ? dk[k] : NCW'(0));
      end
    end
    rtxact_d = rtxact_q; fodue_d = fodue_q; oa_d = oa_q; on_d = on_q; fw_d = fw_q;
    for (int p = 0; p < NumPorts; p++) begin
      // a port death: every connection of p: owe = NONE, rtx_act = 0; WAIT (fo_due) with PDUs
      // unacknowledged, else RETIRED (no flag: a dead port's connection in neither WAIT nor MIGRATE)
      oa_d[p*NPC +: NPC]     = dies_i[p] ? NPC'(0) : oa_q[p*NPC +: NPC];
      on_d[p*NPC +: NPC]     = dies_i[p] ? NPC'(0) : on_q[p*NPC +: NPC];
      rtxact_d[p*NPC +: NPC] = dies_i[p] ? NPC'(0) : rtxact_q[p*NPC +: NPC];
      fw_d[p*NPC +: NPC]     = dies_i[p] ? bsy_q[p*NPC +: NPC] : fw_q[p*NPC +: NPC];
      fodue_d[p*NPC +: NPC]  = fodue_q[p*NPC +: NPC] | (dies_i[p] ? bsy_q[p*NPC +: NPC] : NPC'(0));
    end
    fodue_d = fodue_d | ((fo_pop && fw_q[fo_pop_c]) ? (NCW'(1) << fo_pop_c) : NCW'(0));
    cmv_d    = cmv_q | h_cmv;
    rtxact_d = (rtxact_d & ~h_rtx) | s_rtx;
    fodue_d  = (fodue_d & ~h_fodue) | s_fodue;
    foans_d  = (foans_q & ~h_foans) | s_foans;
    oa_d     = (oa_d & ~h_owe) | s_oa;
    on_d     = (on_d & ~h_owe) | s_on;
    fw_d     = (fw_d & ~h_fst) | s_fw;
    fm_d     = (fm_q & ~h_fst) | s_fm;
    bsy_d    = (bsy_q & ~h_bsy) | s_bsy;
    unf_d    = (unf_q & ~h_unf) | s_unf;
    wfl_d    = (wfl_q & ~h_wfl) | s_wfl;
    cnth_d   = (cnth_q & ~h_cnth) | s_cnth;
  end
`ifndef SYNTHESIS
  // two valid slots on one connection at this edge (e.g. feedback and the job's piggyback, a walker and
  // an ACK): both compute the same word (cover point c_slot_shared)
  logic sl_shared;
  always_comb begin
    sl_shared = 1'b0;
    for (int k = 0; k < NS; k++)
      for (int j = 0; j < NS; j++)
        if (j > k && sl_v[k] && sl_v[j] && sl_c[k*CIW +: CIW] == sl_c[j*CIW +: CIW]) sl_shared = 1'b1;
  end
`endif
  // the connection memory: one write per valid slot (slots on one connection write the same word)
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++) begin   // (loops of at most 4: unrolled by Verilator)
        if (sl_v[p]) cm[sl_c[p*CIW +: CIW]] <= sl_w[p];
        if (sl_v[NumPorts + p]) cm[sl_c[(NumPorts + p)*CIW +: CIW]] <= sl_w[NumPorts + p];
        if (sl_v[2*NumPorts + p]) cm[sl_c[(2*NumPorts + p)*CIW +: CIW]] <= sl_w[2*NumPorts + p];
        if (sl_v[3*NumPorts + p]) cm[sl_c[(3*NumPorts + p)*CIW +: CIW]] <= sl_w[3*NumPorts + p];
      end
      if (sl_v[4*NumPorts]) cm[sl_c[(4*NumPorts)*CIW +: CIW]] <= sl_w[4*NumPorts];
      if (sl_v[4*NumPorts + 1]) cm[sl_c[(4*NumPorts + 1)*CIW +: CIW]] <= sl_w[4*NumPorts + 1];
    end
  end
  // out_bytes: + P of a NEW or MIGRATE job, - P of the walker's descriptor
  always_comb begin
    ob_d = ob_q;
    for (int p = 0; p < NumPorts; p++) begin
      if ((new_go_i || (job_go_i && s_kind_o == KMig)) && job_port_i == 2'(p)) begin
        ob_d[p*24 +: 24] = ob_d[p*24 +: 24] + (new_go_i ? 24'(new_P_i) : 24'(s_jP_o));
      end
      if (wk_hit_o[p]) begin
        ob_d[p*24 +: 24] = ob_d[p*24 +: 24] - 24'(wk_desc[p][12:0]);
      end
    end
  end
  assign s_inc_gbn_o = n_gbn;
  assign s_inc_rto_o = n_rto;
  assign s_inc_nack_rcvd_o = n_nack;
  assign s_inc_fo_ack_rcvd_o = n_foack;

  // death rank: ports dead before this edge
  logic [2:0] ndead;
  always_comb begin
    ndead  = '0;
    rank_d = rank_q;
    for (int p = 0; p < NumPorts; p++) ndead = ndead + 3'(dead_i[p]);
    for (int p = 0; p < NumPorts; p++) begin
      if (dies_i[p]) rank_d[p*2 +: 2] = ndead[1:0];
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ob_q <= '0; rank_q <= '0;
    end else begin
      ob_q <= ob_d; rank_q <= rank_d;
    end
  end
  // the bitmaps (reset by sized casts: see the per-queue registers; the reset as an expression, not an
  // if: a wide assignment under an if is a switch yosys' proc_mux pays for per bit)
  always_ff @(posedge clk_i) begin
    cmv_q    <= rst_ni ? cmv_d : NCW'(0);    rtxact_q <= rst_ni ? rtxact_d : NCW'(0);
    fodue_q  <= rst_ni ? fodue_d : NCW'(0);  foans_q  <= rst_ni ? foans_d : NCW'(0);
    oa_q     <= rst_ni ? oa_d : NCW'(0);     on_q     <= rst_ni ? on_d : NCW'(0);
    fw_q     <= rst_ni ? fw_d : NCW'(0);     fm_q     <= rst_ni ? fm_d : NCW'(0);
    bsy_q    <= rst_ni ? bsy_d : NCW'(0);    unf_q    <= rst_ni ? unf_d : NCW'(0);
    wfl_q    <= rst_ni ? wfl_d : NCW'(0);    cnth_q   <= rst_ni ? cnth_d : NCW'(0);
    adue_q   <= rst_ni ? adue_d : NCW'(0);
  end

  // ------------------------------------------------------------ ACK-delay lists (exact ACK age)
  // An owed ACK is due (step 4, ACK-only) from the edge its age reaches cfg_ack_delay: age = edges since
  // owe left NONE (step 1). The delay is a constant, so the connections whose owe left NONE are due in
  // that order: one doubly linked list per port (at most one restart per port per edge: its feedback),
  // sue_tx_tlist u_al (17-bit stamps of the edge counter, one append per port and edge). Per edge and
  // port: the head pops when due (adue), the connection of the job's piggyback unlinks when its ACK goes
  // out, the restarted connection appends; a port death empties its list. A connection is in its list
  // iff owe != NONE, !adue and cfg_ack_delay != 0. Replaces the 16-bit age register per connection; the
  // same decisions at the ports (docs/sue.md "Addressing", stage 2).
  logic [NumPorts*CIW-1:0]     alh_q;      // heads
  logic [NumPorts*17-1:0]      alh_t;      // their stamps
  logic [NumPorts*(CIW+1)-1:0] aln_q;      // entries
  logic [NumPorts-1:0]         al_pop, al_unl, al_app;
  logic [NumPorts*CIW-1:0]     al_uv, al_av;
  logic [CIW-1:0]              al_a;
  logic                        al_ugo, al_new;
  always_comb begin
    adue_d = adue_q;
    al_pop = '0; al_unl = '0; al_app = '0; al_uv = '0; al_av = '0;
    // the job's piggyback sends the owed ACK of pb_c (owe leaves ACK/NACK for NONE)
    al_ugo = pb_any && (oa_q[pb_c] || on_q[pb_c]) && !oa_d[pb_c] && !on_d[pb_c] && !adue_q[pb_c] && ack_delay_i != '0;
    for (int p = 0; p < NumPorts; p++) begin
      // 1. the head is due: its age reaches the delay at the next edge
`ifdef SUE_MUTANT_ACK
      // MUTANT: an owed ACK is due one edge late
      al_pop[p] = (aln_q[p*(CIW+1) +: CIW+1] != '0) && (now_q[16:0] - alh_t[p*17 +: 17]) == {1'b0, ack_delay_i} + 17'd1;
`else
      al_pop[p] = (aln_q[p*(CIW+1) +: CIW+1] != '0) && (now_q[16:0] - alh_t[p*17 +: 17]) == {1'b0, ack_delay_i};
`endif
      adue_d = adue_d | (al_pop[p] ? (NCW'(1) << alh_q[p*CIW +: CIW]) : NCW'(0));
      // 2. unlink the piggybacked connection (not the one just popped)
      al_uv[p*CIW +: CIW] = pb_c;
      al_unl[p] = al_ugo && 32'(pb_c) / NPC == p && !(al_pop[p] && pb_c == alh_q[p*CIW +: CIW]);
      // 3. append the connection whose owe leaves NONE at this edge (port p's feedback); delay 0: due now
      al_a   = CIW'((32'(p)*NumXpus + 32'(fb_peer_i[p*10 +: 10]) % NumXpus)*4 + 32'(fb_vc_i[p*2 +: 2]));
      al_new = fb_valid_i[p] && live_i[p] && 32'(fb_peer_i[p*10 +: 10]) < NumXpus &&
               !oa_q[al_a] && !on_q[al_a] && (oa_d[al_a] || on_d[al_a]);
      adue_d = adue_d | ((al_new && ack_delay_i == '0) ? (NCW'(1) << al_a) : NCW'(0));
      al_app[p] = al_new && ack_delay_i != '0;
      al_av[p*CIW +: CIW] = al_a;
    end
    // nothing is due without an owed ACK (the piggyback or a port death cleared owe)
    adue_d = adue_d & (oa_d | on_d);
  end
  // 4. a port death empties the list (its owed ACKs are dropped)
  sue_tx_tlist #(.NumPorts(NumPorts), .NC(NC), .TW(17), .NA(1), .CIW(CIW)) u_al (
    .clk_i, .rst_ni, .now_i(now_q[16:0]), .pop_i(al_pop), .unl_i(al_unl), .u_i(al_uv), .app_i(al_app),
    .a_i(al_av), .clr_i(dies_i), .head_o(alh_q), .head_t_o(alh_t), .n_o(aln_q));
  always_ff @(posedge clk_i) begin
    if (!rst_ni) now_q <= '0;
    else now_q <= now_q + 25'd1;
  end

  // ------------------------------------------------------------ RTO lists (next state)
  // Per live port and edge, after step 4 (docs/sue.md "RTO lists"): unlink first (the due head leaves:
  // it fired, or this edge's feedback restarted it; the feedback's connection if it restarted, i.e.
  // made progress or started a go-back-N), then append, stamped with this edge, in the order: the head
  // that fired, the feedback's connection if still unacknowledged, the job's connection (NEW or the
  // MIGRATE target) if it was idle. A port death empties its list.
  logic [CIW-1:0]          rl_jc;
  logic                    rl_jgo;
  logic [NumPorts-1:0]     rl_pop, rl_unl;
  logic [NumPorts*CIW-1:0] rl_u;
  logic [NumPorts*3-1:0]   rl_app;
  logic [NumPorts*3*CIW-1:0] rl_cand;
  always_comb begin
    rl_jgo = new_go_i || (job_go_i && s_kind_o == KMig);
    rl_jc  = new_go_i ? new_c_i : s_c2;
    for (int p = 0; p < NumPorts; p++) begin
      rl_u[p*CIW +: CIW] = CIW'((32'(p)*NumXpus + 32'(fb_peer_i[p*10 +: 10]) % NumXpus)*4 + 32'(fb_vc_i[p*2 +: 2]));
      // unlink: the due head (it fired, or the feedback restarted it)
      rl_pop[p] = live_i[p] && rl_due[p];
      // unlink: the feedback's connection, restarted (not the head just removed)
      rl_unl[p] = live_i[p] && rl_rst[p] && !(rl_due[p] && rl_u[p*CIW +: CIW] == rlh_q[p*CIW +: CIW]);
      // append, in order
      rl_cand[p*3*CIW +: 3*CIW] = {rl_jc, rl_u[p*CIW +: CIW], rlh_q[p*CIW +: CIW]};
      rl_app[p*3]     = live_i[p] && rl_fire[p];
      rl_app[p*3 + 1] = live_i[p] && rl_rst[p] && sl_bsy[p];   // the F slot of p: still unacknowledged after this edge
      rl_app[p*3 + 2] = live_i[p] && rl_jgo && 32'(rl_jc) / NPC == p && !bsy_q[rl_jc];
    end
  end
  sue_tx_tlist #(.NumPorts(NumPorts), .NC(NC), .TW(25), .NA(3), .CIW(CIW)) u_rl (
    .clk_i, .rst_ni, .now_i(now_q), .pop_i(rl_pop), .unl_i(rl_unl), .u_i(rl_u), .app_i(rl_app),
    .a_i(rl_cand), .clr_i(dies_i), .head_o(rlh_q), .head_t_o(rlh_t), .n_o(rln_q));

  // ------------------------------------------------------------ failover-retry FIFO (exact retry timer)
  // After an FO-REQ of connection c at edge j, fo_due rises again at edge j + max(1, cfg_fo_retry) if c
  // still waits (step 3). Before its first FO-REQ since the port died fo_due is already 1, so the retry
  // expiries are invisible and need no entry. One FO-REQ per edge at most: the FIFO is in deadline
  // order, pops at most one entry per edge, and holds each connection at most once (no FO-REQ of c
  // until its entry pops and raises fo_due): 2^clog2(NC) entries. Replaces the 24-bit fo_tmr register
  // per connection.
  localparam int FQ = 1 << CIW;
  logic [CIW-1:0]  ff_c [FQ];
  logic [24:0]     ff_t [FQ];
  logic [CIW:0]    ffr_q, ffw_q;
  logic            ff_push;
  always_comb begin
`ifdef SUE_MUTANT_FO
    // MUTANT: the failover retry expires one edge late
    fo_pop   = (ffr_q != ffw_q) &&
               (now_q - ff_t[ffr_q[CIW-1:0]]) == ((fo_retry_i == '0) ? 25'd1 : 25'(fo_retry_i)) + 25'd1;
`else
    fo_pop   = (ffr_q != ffw_q) &&
               (now_q - ff_t[ffr_q[CIW-1:0]]) == ((fo_retry_i == '0) ? 25'd1 : 25'(fo_retry_i));
`endif
    fo_pop_c = ff_c[ffr_q[CIW-1:0]];
    ff_push  = job_go_i && !new_go_i && s_kind_o == KFoReq;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ffr_q <= '0;
      ffw_q <= '0;
    end else begin
      if (fo_pop) ffr_q <= ffr_q + 1'b1;
      if (ff_push) ffw_q <= ffw_q + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni && ff_push) begin
      ff_c[ffw_q[CIW-1:0]] <= s_c;
      ff_t[ffw_q[CIW-1:0]] <= now_q;
    end
  end

`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  logic [CIW:0] ff_occ;
  assign ff_occ = ffw_q - ffr_q;
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(ff_push && 32'(ff_occ) >= FQ))
        else $error("sue_tx: failover-retry FIFO overflow");
    end
  end
  // each list holds exactly the connections of its port with an owed ACK not yet due
  logic [CIW:0] al_cnt [NumPorts];
  always_comb begin
    for (int p = 0; p < NumPorts; p++) begin
      al_cnt[p] = (ack_delay_i != '0 && !dead_i[p]) ?
                  (CIW+1)'($countones((oa_q[p*NPC +: NPC] | on_q[p*NPC +: NPC]) & ~adue_q[p*NPC +: NPC])) : '0;
    end
  end
  // each RTO list holds exactly the connections of its (live) port with PDUs unacknowledged
  logic [CIW:0] rl_cnt [NumPorts];
  always_comb begin
    for (int p = 0; p < NumPorts; p++) rl_cnt[p] = dead_i[p] ? '0 : (CIW+1)'($countones(bsy_q[p*NPC +: NPC]));
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++)
        assert (dead_i[p] || rl_cnt[p] == rln_q[p*(CIW+1) +: CIW+1])
          else $error("sue_tx: port %0d RTO list holds %0d entries, %0d connections unacknowledged", p,
                      rln_q[p*(CIW+1) +: CIW+1], rl_cnt[p]);
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++)
        assert (dead_i[p] || al_cnt[p] == aln_q[p*(CIW+1) +: CIW+1])
          else $error("sue_tx: port %0d ACK-delay list holds %0d entries, %0d owed ACKs not due", p,
                      aln_q[p*(CIW+1) +: CIW+1], al_cnt[p]);
    end
  end
`endif
`endif

  // descriptors: one write per edge (NEW or MIGRATE), never over a held one
  always_ff @(posedge clk_i) begin
    if (rst_ni && new_go_i) begin
      desc_q[32'(new_c_i)*Window + widx(new_psn_o)] <= {new_first_i, new_n_i, new_P_i};
    end else if (rst_ni && job_go_i && s_kind_o == KMig) begin
      desc_q[32'(s_c2)*Window + widx(s_jpsn_o)] <= s2_desc;
    end
  end

  // observability: the debug read port of the connections (a read of cm and the flags)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [CMW-1:0] dbg_w;              // (owe_n read by the SUE_ASSERT check only)
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0]     dbg_st;
  always_comb begin
    dbg_npsn_o     = '0;
    dbg_ack_psn_o  = '0;
    dbg_inflight_o = '0;
    dbg_inbytes_o  = '0;
    dbg_state_o    = '0;
    dbg_w          = (32'(dbg_conn_i) < NC && cmv_q[dbg_conn_i]) ? cm[dbg_conn_i] : '0;
    dbg_st         = fw_q[dbg_conn_i] ? sue_pkg::StWait : (fm_q[dbg_conn_i] ? sue_pkg::StMig :
                     (dead_i[32'(dbg_conn_i) / NPC % NumPorts] ? sue_pkg::StRetired : sue_pkg::StLive));
    if (32'(dbg_conn_i) < NC) begin
      dbg_npsn_o     = dbg_w[119:104];
      dbg_ack_psn_o  = dbg_w[103:88];
      dbg_inflight_o = IW'(dbg_w[119:104] - dbg_w[87:72]);
      dbg_inbytes_o  = dbg_w[143:120];
      dbg_state_o    = (dbg_st != sue_pkg::StLive) ? dbg_st : {2'b00, rtxact_q[dbg_conn_i]};
    end
  end
  assign out_bytes_o = ob_q;

`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // every connection written: free_psn <= ack_psn <= npsn within Window (no other one changes)
      for (int k = 0; k < NS; k++) begin
        if (sl_v[k]) begin
          assert (sl_w[k][103:88] - sl_w[k][87:72] <= sl_w[k][119:104] - sl_w[k][87:72] &&
                  sl_w[k][119:104] - sl_w[k][87:72] <= 16'(Window))
            else $error("sue_tx: connection %0d: free_psn %0d, ack_psn %0d, npsn %0d out of order or beyond Window",
                        sl_c[k*CIW +: CIW], sl_w[k][87:72], sl_w[k][103:88], sl_w[k][119:104]);
          // in-flight bytes: 0 exactly when no PDU is unfreed; below win_bytes + the largest P (8,191)
          assert ((sl_w[k][143:120] == '0) == (sl_w[k][119:104] == sl_w[k][87:72]) &&
                  (win_bytes_i == '0 || sl_w[k][143:120] < win_bytes_i + 24'd8191))
            else $error("sue_tx: connection %0d: in-flight bytes %0d disagree with its PDUs or the byte window",
                        sl_c[k*CIW +: CIW], sl_w[k][143:120]);
        end
      end
      // the flags of the connection on the debug port agree with its word
      if (32'(dbg_conn_i) < NC) begin
        assert (bsy_q[dbg_conn_i] == (dbg_w[103:88] != dbg_w[119:104]) && unf_q[dbg_conn_i] == (dbg_w[87:72] != dbg_w[103:88]) &&
                wfl_q[dbg_conn_i] == (dbg_w[119:104] - dbg_w[87:72] >= 16'(Window) ||
                                      (win_bytes_i != '0 && dbg_w[143:120] >= win_bytes_i)) &&
                cnth_q[dbg_conn_i] == (ack_count_i != '0 && dbg_w[7:0] >= ack_count_i) && !(oa_q[dbg_conn_i] && on_q[dbg_conn_i]) &&
                !(fw_q[dbg_conn_i] && fm_q[dbg_conn_i]))
          else $error("sue_tx: connection %0d: flags disagree with the connection memory", dbg_conn_i);
      end
      if (new_go_i) begin
        assert (rj2[119:104] - rj2[87:72] < 16'(Window) && (win_bytes_i == '0 || rj2[143:120] < win_bytes_i))
          else $error("sue_tx: NEW descriptor written over a held one, or beyond the byte window (connection %0d)", new_c_i);
      end
      if (job_go_i && !new_go_i && s_kind_o == KMig) begin
        assert (rj2[119:104] - rj2[87:72] < 16'(Window) && (win_bytes_i == '0 || rj2[143:120] < win_bytes_i))
          else $error("sue_tx: MIGRATE descriptor written over a held one, or beyond the byte window (connection %0d)", s_c2);
      end
      for (int p = 0; p < NumPorts; p++) begin
        if (wk_hit_o[p]) begin
          assert (ob_q[p*24 +: 24] >= 24'(wk_desc[p][12:0]))
            else $error("sue_tx: out_bytes of port %0d underflows", p);
        end
      end
    end
  end
`endif
`endif
endmodule
