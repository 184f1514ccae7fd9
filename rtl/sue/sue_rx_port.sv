// sue_rx_port -- one network port of sue_rx: takes the MAC's beats, stores the frame in the port's
// buffer, walks its packed operations and computes R-CRC while it streams in, and at the eof beat
// gives the verdict (docs/sue.md "sue_rx: state and one rising edge", steps 1-4): accept (a record
// for the unpacker, the connection's expected PSN advanced), ACK-only, FO-REQ/FO-ACK, or one of the
// drops, and the feedback event for sue_tx one edge later (fb_*_o, SUE only).
//
// The connection memory is the parent's (shared by the ports: an FO-REQ reads another port's
// connection): this port names the two connections its frame's header addresses (c_here_o, c_fo_o,
// from the header alone) and gets their words back combinationally (cs_here_i, cs_fo_i); it writes
// at most one word per edge (acc_o | nack_o at cidx_o, cs_wd_o). The unpacker reads rows
// uraddr_i.. of the buffer (rrow_o) and the first record it does not hold yet (rec_next_o), and
// ends the head frame with pop_i.
//
// Instanced once per port by sue_rx; the widths are the parent's.
// yosys 0.23 subset: no structs, no interfaces, no `return`, no `int unsigned`.

module sue_rx_port #(
  parameter int Profile    = 0,
  parameter int Port       = 0,      // this port's index: its connections are {Port, peer, VC}
  parameter int NumPorts   = 1,
  parameter int NumXpus    = 8,
  parameter int MaxData    = 256,
  parameter int MaxPack    = 4096,
  parameter int RxBufBeats = 512,
  parameter int RxFrames   = 16,
  parameter int O0         = 22,     // first op header of the stored stream
  parameter int MFB        = 130,    // MaxFrameBeats
  parameter int OW         = 13,     // stored-stream offsets
  parameter int BW         = 8,      // beats of a frame (saturating at MFB+1)
  parameter int CW         = 5,      // connection index bits
  parameter int NRd        = 4       // rows the unpacker reads per edge
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  input  logic [9:0]                own_i,         // cfg_own_xpuid_i, sampled
  input  logic [9:0]                part_i,        // cfg_partition_i, sampled
  input  logic                      up_i,          // port_up_i[Port]
  // the MAC's beat
  input  logic                      v_i,
  input  logic                      sof_i,
  input  logic                      eof_i,
  input  logic                      err_i,
  input  logic [5:0]                nb_i,
  input  logic [255:0]              data_i,        // mac_rx_data_i[Port*256 +: 256]: byte k in [255-8k -: 8]
  output logic                      ready_o,
  output logic                      dead_o,
  output logic [$clog2(RxBufBeats):0] buf_rows_o,  // wr - rd
  output logic [$clog2(RxFrames):0] rec_count_o,
  // every port's death and records (an FO-REQ is answered once the dead port's frames are out)
  input  logic [3:0]                dead4_i,
  input  logic [4*($clog2(RxFrames)+1)-1:0] rec_cnt4_i,
  // connection memory (SUE)
  output logic [CW-1:0]             c_here_o,      // {Port, peer, VC} of the frame's header
  output logic [CW-1:0]             c_fo_o,        // {f, peer, VC}: the connection an FO-REQ names
  /* verilator lint_off UNUSEDSIGNAL */  // the SUE_MUTANT build does not read bit 16 (nacked)
  input  logic [16:0]               cs_here_i,     // {nacked, exp} of c_here_o
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [15:0]               cs_fo_i,       // exp of c_fo_o
  output logic                      acc_o,         // accept: exp of cidx_o advances
  output logic                      nack_o,        // a NACK is owed on cidx_o
  output logic [CW-1:0]             cidx_o,
  output logic [16:0]               cs_wd_o,       // the word written at cidx_o
  // unpacker
  input  logic                      pop_i,         // the unpacker ends this port's head frame
  input  logic [BW-1:0]             pop_nrows_i,   // its rows
  input  logic [$clog2(RxBufBeats)-1:0] uraddr_i,  // rows uraddr_i .. uraddr_i+NRd-1 are read
  output logic [NRd*256-1:0]        rrow_o,        // row j in [j*256 +: 256]
  input  logic [2:0]                uin_i,         // frames of this port the unpacker holds
  output logic [($clog2(RxBufBeats)+BW+OW+$clog2(NumXpus)+2)-1:0] rec_next_o,  // first record not held
  // events of this edge
  output logic                      took_o,        // a beat taken
  output logic [sue_pkg::RxNumCnt*2-1:0] pinc_o,   // counter i incremented by [2i +: 2]
  output logic [5:0]                pbytes_o,      // bytes_in increment
  // feedback to sue_tx (SUE; 0 in Lite)
  output logic                      fb_valid_o,
  output logic [9:0]                fb_peer_o,
  output logic [1:0]                fb_vc_o,
  output logic [1:0]                fb_owe_o,
  output logic [15:0]               fb_owe_psn_o,
  output logic [1:0]                fb_rop_o,
  output logic [15:0]               fb_rapsn_o,
  output logic [1:0]                fb_fo_o,
  output logic [1:0]                fb_fo_port_o
);

  localparam int PIW   = $clog2(NumXpus);             // peer (= XPU id) index bits
  localparam int PW    = $clog2(RxBufBeats) + 1;      // buffer pointers
  localparam int AW    = PW - 1;                      // buffer row address
  localparam int RW    = $clog2(RxFrames) + 1;        // record count
  localparam int RI    = (RxFrames > 1) ? $clog2(RxFrames) : 1;  // record index
  localparam int RecW  = AW + BW + OW + PIW + 2;      // {row0, nrows, E, peer, vc}

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

  // ---------------------------------------------------------------- registers
  logic                  dead_q, ready_q;
  logic [PW-1:0]         rd_q, wr_q, wc_q;
  logic [RW-1:0]         rec_cnt_q;
  logic [31:0]           crc_q, rc_q;
  logic                  inf_q, tl_q;
  logic [BW-1:0]         beats_q;
  logic [OW-1:0]         w_nxt_q, w_e_q;
  logic                  w_first_q, w_done_q, w_err_q, w_split_q, w_empty_q;
  logic [7:0]            w_hi_q;
  logic [22*8-1:0]       hdr_q;   // bytes 0..21 of the stored frame, byte k in [8k +: 8]
  logic [RI-1:0]         rec_hd_q, rec_tl_q;
  logic [RecW-1:0]       rec_mem [RxFrames];
  logic [255:0]          mem [RxBufBeats];

  // ---------------------------------------------------------------- the beat and its frame's header
  logic [255:0]          rb;      // raw beat: frame byte k of the beat in [8k +: 8]
  logic [255:0]          sb;      // stored beat (Lite beat 0 in logical order), byte k in [8k +: 8]
  logic [BW-1:0]         bidx;    // the beat's index in its frame (when taken in a frame)
  logic [22*8-1:0]       hb;      // the frame's header after this beat
  logic [9:0]            id;
  logic [PIW-1:0]        peer;
  logic                  peer_ok, hdr_st, fo_ok;
  logic [3:0]            tcls;
  logic [1:0]            vc, rop, f;
  logic [3:0]            rsvd;
  logic [15:0]           npsn, apsn;
  logic                  fo;
  always_comb
    for (int k = 0; k < 32; k++) rb[8*k +: 8] = data_i[255 - 8*k -: 8];
  // Everything here is a function of the beat and the frame's header alone (no verdict state), so
  // the connection words can be read before the verdict; it is used only by a beat taken in a frame.
  always_comb begin
    bidx = sof_i ? '0 : beats_q;
    sb = rb;
    // Lite: beat 0 stored in logical order hdr6 | L[0..25]
    if (Profile == 1 && bidx == '0) begin
      sb[8*0 +: 8] = rb[8*0 +: 8];   sb[8*1 +: 8] = rb[8*4 +: 8];
      sb[8*2 +: 8] = rb[8*5 +: 8];   sb[8*3 +: 8] = rb[8*6 +: 8];
      sb[8*4 +: 8] = rb[8*10 +: 8];  sb[8*5 +: 8] = rb[8*11 +: 8];
      sb[8*6 +: 8] = rb[8*1 +: 8];   sb[8*7 +: 8] = rb[8*2 +: 8];
      sb[8*8 +: 8] = rb[8*3 +: 8];   sb[8*9 +: 8] = rb[8*7 +: 8];
      sb[8*10 +: 8] = rb[8*8 +: 8];  sb[8*11 +: 8] = rb[8*9 +: 8];
    end
    hb = (bidx == '0) ? sb[22*8-1:0] : hdr_q;
    // header fields; hdr_st: every check that does not need the op walk
    if (Profile == 0) begin
      tcls = hb[55:52];
      id = {hb[81:80], hb[88 +: 8]};
    end else begin
      tcls = hb[31:28];
      id = {hb[33:32], hb[40 +: 8]};
    end
    vc = tcls[1:0];
    rop = hb[117:116];
    npsn = {hb[128 +: 8], hb[136 +: 8]};
    rsvd = hb[149:146];
    apsn = {hb[160 +: 8], hb[168 +: 8]};
    fo = rsvd[3];
    f = rsvd[1:0];
    if (Profile == 0) begin
      hdr_st = hb[0 +: 8] == 8'h02 && hb[16 +: 8] == 8'h00 && hb[24 +: 8] == 8'h00 && hb[32 +: 8] == {6'b0, own_i[9:8]} &&
               hb[40 +: 8] == own_i[7:0] && hb[51:48] == 4'h2 && hb[55:54] == 2'b0 &&
               hb[96 +: 8] == 8'h88 && hb[104 +: 8] == 8'hb6 && hb[64 +: 8] == 8'h00 && hb[72 +: 8] == 8'h00 &&
               hb[87:82] == 6'b0 &&
               hb[119:118] == 2'b0 && rop != 2'd3 && {hb[113:112], hb[120 +: 8]} == id &&
               hb[151:150] == vc && {hb[145:144], hb[152 +: 8]} == part_i;
    end else begin
      hdr_st = hb[0 +: 8] == 8'h22 && hb[8 +: 8] == {6'b0, own_i[9:8]} && hb[16 +: 8] == own_i[7:0] &&
               hb[27:24] == 4'h2 && hb[31:30] == 2'b0 && hb[39:34] == 6'b0;
    end
    fo_ok = !rop[1] && !rsvd[2] && {1'b0, f} < 3'(NumPorts);  // an FO frame: besides the empty op list
    // the source XPU id is the peer index: any id below NumXpus but the own one
    peer_ok = (32'(id) < NumXpus) && (id != own_i);
    peer = peer_ok ? PIW'(id) : '0;
    c_here_o = CW'((Port * NumXpus + 32'(peer)) * 4 + 32'(vc));
    c_fo_o   = CW'((32'(f) * NumXpus + 32'(peer)) * 4 + 32'(vc));
  end

  // ---------------------------------------------------------------- one edge
  logic                  dead_d, take, in_fr, inf_d, tl_d, ready_d;
  logic [PW-1:0]         wr_d, wc_d, rd_d;
  logic [AW-1:0]         wr_at;
  logic [BW-1:0]         beats_d;
  logic                  stored, wen, split_in;
  logic [1:0]            w_go, w_at31, w_past;   // per step t of the walk (conditions kept for coverage)
  logic [OW-1:0]         w_nxt_d, w_e_d, base;
  logic                  w_first_d, w_done_d, w_err_d, w_split_d, w_empty_d;
  logic [7:0]            w_hi_d;
  logic [22*8-1:0]       hdr_d;
  logic [WsW-1:0]        ws;
  logic [OW-1:0]         rel;
  logic [OW-1:0]         nbv;
  logic [OW-1:0]         flen, lmin, lmin0;
  logic                  mal, push, hdr_ok;
  logic [4:0]            vk;           // counter that names the verdict
  logic [RW-1:0]         rec_cnt_d;
  logic [31:0]           crc_in, crc_d, rc_in, rc_d;
  logic [5:0]            clo, chi;
  logic [OW-1:0]         eoff;
  logic [15:0]           dpsn;
  // feedback event
  logic                  fbv_d;
  logic [1:0]            fb_owe_d, fb_rop_d, fb_fo_d, fb_fo_port_d;
  logic [15:0]           fb_owe_psn_d, fb_rapsn_d;

  // Conditions a branch of this block changes are taken into temporaries first (in_fr, split_in,
  // w_go/w_at31/w_past, lmin0): Verilator 5.006 counts a branch's coverage on the block's final
  // values (docs/sue_coverage.md).
  always_comb begin
    // hold
    dead_d = dead_q;
    wr_d = wr_q;
    wc_d = wc_q;
    inf_d = inf_q;
    in_fr = 1'b0;
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
    crc_in = crc_q;
    rc_in = rc_q;
    crc_d = crc_in;
    rc_d = rc_in;
    stored = 1'b0;
    split_in = 1'b0;
    w_go = '0;
    w_at31 = '0;
    w_past = '0;
    wen = 1'b0;
    wr_at = '0;
    base = '0;
    ws = '0;
    rel = '0;
    nbv = OW'(32);
    flen = '0;
    lmin = '0;
    lmin0 = '0;
    mal = 1'b0;
    push = 1'b0;
    hdr_ok = 1'b0;
    vk = 5'(sue_pkg::RxDropMal);
    clo = '0;
    chi = '0;
    eoff = '0;
    dpsn = '0;
    fbv_d = 1'b0;
    fb_owe_d = '0;
    fb_rop_d = '0;
    fb_fo_d = '0;
    fb_fo_port_d = '0;
    fb_owe_psn_d = '0;
    fb_rapsn_d = '0;
    acc_o = 1'b0;
    nack_o = 1'b0;
    cidx_o = '0;
    cs_wd_o = '0;
    pinc_o = '0;
    pbytes_o = '0;

    // 1. death
    if (!dead_q && !up_i) begin
      dead_d = 1'b1;
      if (inf_q) begin
        wr_d = wc_q;
        inf_d = 1'b0;
        pinc_o[2*sue_pkg::RxDropDead +: 2] = 2'd1;
      end
    end
    // 2. beat
    take = v_i && ready_q && !dead_d;
    if (take) begin
      if (sof_i) begin
        if (inf_q) begin
          pinc_o[2*sue_pkg::RxDropMal +: 2] = 2'd1;
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
      in_fr = inf_d;
      if (!in_fr) begin
        pinc_o[2*sue_pkg::RxStray +: 2] = 2'd1;
      end else begin
        beats_d = (bidx < BW'(MFB + 1)) ? bidx + BW'(1) : bidx;
        stored = bidx < BW'(MFB);
        if (!stored) tl_d = 1'b1;
        if (stored) begin
          wen = 1'b1;
          wr_at = wr_d[AW-1:0];
          wr_d = wr_d + PW'(1);
        end
        pbytes_o = eof_i ? nb_i : 6'd32;
        if (bidx == '0) begin
          hdr_d = sb[22*8-1:0];
        end
        // op walk over this beat: a header split from the last beat, then up to two more
        base = OW'(bidx) << 5;
        nbv = eof_i ? ((nb_i > 6'd32) ? OW'(32) : OW'(nb_i)) : OW'(32);
        split_in = stored && w_split_d && !w_done_d && !w_err_d;
        if (split_in) begin
          w_split_d = 1'b0;
          if (nbv == '0) begin
            w_err_d = 1'b1;
          end else begin
            ws = walk_hdr({w_hi_d, sb[7:0]}, w_nxt_d, w_first_d);
            {w_done_d, w_err_d, w_empty_d, w_first_d, w_nxt_d, w_e_d} = ws;
          end
        end
        for (int t = 0; t < 2; t++) begin
          w_go[t] = stored && !w_done_d && !w_err_d && !w_split_d && w_nxt_d < base + OW'(32);
          if (w_go[t]) begin
            rel = w_nxt_d - base;
            w_at31[t] = rel == OW'(31);
            w_past[t] = rel + OW'(1) >= nbv;
            if (w_at31[t]) begin
              if (eof_i) w_err_d = 1'b1;
              else begin
                w_split_d = 1'b1;
                w_hi_d = sb[8*31 +: 8];
              end
            end else if (w_past[t]) begin
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
          pinc_o[2*sue_pkg::RxFramesIn +: 2] = 2'd1;
          flen = (OW'(bidx) << 5) + OW'(nb_i);
          lmin0 = w_e_d + ((Profile == 0) ? OW'(4) : OW'(0));
          if (lmin0 < OW'(60)) lmin = OW'(60);
          else lmin = lmin0;
          mal = tl_d || nb_i == 6'd0 || nb_i > 6'd32 || w_err_d || !w_done_d ||
                (w_e_d - OW'(O0) > OW'(MaxPack)) || flen != lmin;
          hdr_ok = hdr_st && (Profile == 1 || !fo || (w_empty_d && fo_ok));
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
              if (dead4_i[f] && rec_cnt4_i[32'(f)*RW +: RW] == '0) begin  // the unpacker holds recorded frames only
                fb_fo_d = sue_pkg::FoReq;
                fb_fo_port_d = f;
                fb_owe_psn_d = cs_fo_i - 16'd1;
              end else begin
                fbv_d = 1'b0;
                pinc_o[2*sue_pkg::RxFoDefer +: 2] = 2'd1;
              end
            end else if (fo) begin
              vk = 5'(sue_pkg::RxFoFrames);
              fb_fo_d = sue_pkg::FoAck;
              fb_fo_port_d = f;
              fb_rapsn_d = apsn;
            end else begin
              cidx_o = c_here_o;
              dpsn = npsn - cs_here_i[15:0];
              if (dpsn == 16'd0) begin
                vk = 5'(sue_pkg::RxPdusOk);
                push = 1'b1;
                acc_o = 1'b1;
                cs_wd_o = {1'b0, cs_here_i[15:0] + 16'd1};
                fb_owe_d = sue_pkg::OweAck;
                fb_owe_psn_d = npsn;
              end else if (!dpsn[15]) begin
                vk = 5'(sue_pkg::RxDropPsn);
`ifdef SUE_MUTANT
                // MUTANT: a NACK for every out-of-order PDU.
                if (1'b1) begin
`else
                if (!cs_here_i[16]) begin
`endif
                  nack_o = 1'b1;
                  cs_wd_o = {1'b1, cs_here_i[15:0]};
                  fb_owe_d = sue_pkg::OweNack;
                  fb_owe_psn_d = cs_here_i[15:0];
                  pinc_o[2*sue_pkg::RxNackOwed +: 2] = 2'd1;
                end
              end else begin
                vk = 5'(sue_pkg::RxDropDup);
                fb_owe_d = sue_pkg::OweDup;
                fb_owe_psn_d = cs_here_i[15:0] - 16'd1;
              end
            end
          end
          pinc_o[2*vk +: 2] = pinc_o[2*vk +: 2] + 2'd1;
          if (push) wc_d = wr_d;
          else wr_d = wc_q;
        end
      end
    end
    // records and buffer after this edge's push and the unpacker's pop
    rec_cnt_d = rec_cnt_q + RW'(push) - RW'(pop_i);
    rd_d = rd_q + (pop_i ? PW'(pop_nrows_i) : PW'(0));
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
    assign rrow_o[gj*256 +: 256] = mem[uraddr_i + AW'(gj)];
  end
  // record rec_hd + uin (mod RxFrames): uin <= rec count <= RxFrames
  logic [RI:0]   rec_sum;
  logic [RI-1:0] rec_nx;
  always_comb begin
    rec_sum = {1'b0, rec_hd_q} + (RI+1)'(uin_i);
    if (rec_sum >= (RI+1)'(RxFrames)) rec_nx = RI'(rec_sum - (RI+1)'(RxFrames));
    else rec_nx = RI'(rec_sum);
  end
  assign rec_next_o = rec_mem[rec_nx];

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      dead_q <= 1'b0;
      ready_q <= 1'b0;
      rd_q <= '0;
      wr_q <= '0;
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
      rec_cnt_q <= '0;
    end else begin
      dead_q <= dead_d;
      ready_q <= ready_d;
      rd_q <= rd_d;
      wr_q <= wr_d;
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
      rec_cnt_q <= rec_cnt_d;
      if (push) rec_tl_q <= (rec_tl_q == RI'(RxFrames - 1)) ? '0 : rec_tl_q + RI'(1);
      if (pop_i) rec_hd_q <= (rec_hd_q == RI'(RxFrames - 1)) ? '0 : rec_hd_q + RI'(1);
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
    assign fb_valid_o = fbv_q;
    assign fb_peer_o = fb_peer_q;
    assign fb_vc_o = fb_vc_q;
    assign fb_owe_o = fb_owe_q;
    assign fb_owe_psn_o = fb_owe_psn_q;
    assign fb_rop_o = fb_rop_q;
    assign fb_rapsn_o = fb_rapsn_q;
    assign fb_fo_o = fb_fo_q;
    assign fb_fo_port_o = fb_fo_port_q;
  end else begin : g_nofb
    logic unused_fb;
    assign unused_fb = ^{fbv_d, fb_owe_d, fb_rop_d, fb_fo_d, fb_fo_port_d, fb_owe_psn_d, fb_rapsn_d,
                         cs_here_i, cs_fo_i, fo_ok, npsn};
    assign fb_valid_o = 1'b0;
    assign fb_peer_o = '0;
    assign fb_vc_o = '0;
    assign fb_owe_o = '0;
    assign fb_owe_psn_o = '0;
    assign fb_rop_o = '0;
    assign fb_rapsn_o = '0;
    assign fb_fo_o = '0;
    assign fb_fo_port_o = '0;
  end

  logic unused_hdr;  // entropy, hop count, TC bits 3:2 (checked through hb[48 +: 8]/hb[24 +: 8])
  assign unused_hdr = ^{hb[8 +: 8], hb[56 +: 8], hb[115:114], tcls[3:2], uin_i};  // uin_i[2]: RxFrames 1
  assign took_o = take;
  assign ready_o = ready_q;
  assign dead_o = dead_q;
  assign buf_rows_o = wr_q - rd_q;
  assign rec_count_o = rec_cnt_q;

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(take && !ready_q))
        else $error("sue_rx: port %0d beat taken while ready is low", Port);
      assert ((wr_q - rd_q) <= PW'(RxBufBeats))
        else $error("sue_rx: port %0d holds %0d rows > RxBufBeats", Port, wr_q - rd_q);
      assert (32'(rec_cnt_q) <= RxFrames)
        else $error("sue_rx: port %0d holds %0d records > RxFrames", Port, rec_cnt_q);
      assert (!(pinc_o[2*sue_pkg::RxPdusOk +: 2] != 2'd0 && dead_q))
        else $error("sue_rx: event from dead port %0d", Port);
    end
  end
`endif
`endif

endmodule
