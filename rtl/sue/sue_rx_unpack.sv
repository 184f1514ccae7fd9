// sue_rx_unpack -- the unpacker of sue_rx: store-and-forward from the ports' frame buffers to the
// XPU receive interface (docs/sue.md "sue_rx: state and one rising edge", unpacker).
//
// A three-stage pipeline: the fetcher reads up to NRd rows of one frame per edge (the rows
// uraddr_o .. uraddr_o+NRd-1 of every port's buffer come back combinationally on rrow_i), the read
// stage appends them to the accumulator at the next edge, and the output stage sends one XPU beat
// per edge while the head frame's VC has a credit. It picks the next frame (round robin over the
// ports with a recorded frame it does not hold yet) in the edge the previous frame's rows are all
// read, and holds at most MQ=4 frames; the frame that ends is popped from its port (pop_o, its rows
// pop_nrows_o). Per-VC credits: cfg_rx_credits_i at reset, one per command beat 0 sent, one back per
// rx_credit_i bit.
//
// Instanced once by sue_rx; the widths of the records are the parent's (RecW = AW+BW+OW+PIW+2).
// yosys 0.23 subset: no structs, no interfaces, no `return`, no `int unsigned`.

module sue_rx_unpack #(
  parameter int NumPorts = 1,
  parameter int DataW    = 256,
  parameter int O0       = 22,   // first op header of the stored stream (SUE 22, Lite 6)
  parameter int PIW      = 3,    // peer index bits
  parameter int AW       = 8,    // buffer row address bits
  parameter int BW       = 8,    // rows of a frame
  parameter int OW       = 13,   // stored-stream offsets
  parameter int RW       = 5,    // record count bits
  parameter int NRd      = 4     // rows read per edge
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [4*8-1:0]               cfg_rx_credits_i,  // credits at reset, VC v in [8v +: 8]
  input  logic [4*8-1:0]               credmax_i,         // the most credits a VC may hold
  // the ports' frames
  input  logic [4*RW-1:0]              rec_cnt4_i,        // records of port p: [p*RW +: RW] (0 above NumPorts)
  input  logic [NumPorts*(AW+BW+OW+PIW+2)-1:0] rec_next_i,        // each port's first record the unpacker does not hold
  output logic [4*3-1:0]               uin4_o,            // frames of port p the unpacker holds: [3p +: 3]
  output logic [AW-1:0]                uraddr_o,          // first row the fetcher reads (all ports)
  input  logic [NumPorts*NRd*256-1:0]  rrow_i,            // rows uraddr_o.. of port p, row j in [(p*NRd+j)*256 +: 256]
  output logic [NumPorts-1:0]          pop_o,             // port p's head frame ends this edge
  output logic [BW-1:0]                pop_nrows_o,       // that frame's rows
  // XPU receive interface
  output logic [1:0]                   rx_valid_o,
  output logic [3:0]                   rx_cycle_o,
  output logic [1:0]                   rx_vc_o,
  output logic [9:0]                   rx_xpuid_o,
  output logic [1:0]                   rx_port_o,
  output logic [143:0]                 rx_control_o,
  output logic [DataW-1:0]             rx_data_o,
  input  logic [3:0]                   rx_credit_i,
  output logic [4*8-1:0]               cred_o,
  output logic                         err_credit_o,
  output logic                         cmd_out_o          // a command's beat 0 goes out at this edge (cnt_cmds_out)
);

  localparam int RecW  = AW + BW + OW + PIW + 2;            // {row0, nrows, E, peer, vc}
  localparam int DB    = DataW / 8;                         // XPU bytes per beat
  localparam int RDB   = NRd * 32;                          // bytes of the rows read per edge
  localparam int MQ    = 4;                                 // frames the unpacker holds
  localparam int ACCR  = 20 + DB + RDB;                     // accumulator bytes
  localparam int RNW   = $clog2(RDB + 1);                   // read-stage fill
  localparam int UW    = $clog2(ACCR + 1);                  // accumulator fill

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

  logic unused_hh;  // op header reserved bits (checked by the walk); ends (read by the assertions); ports >= NumPorts
  assign unused_hh = ^{hh[14:12], ends, rec_cnt4_i};
  assign uraddr_o = frow0_q + AW'(fnext_q);
  assign hport = mport_q[32'(mh_q)*2 +: 2];
  assign hvc = mvc_q[32'(mh_q)*2 +: 2];
  assign hpeer = mpeer_q[32'(mh_q)*PIW +: PIW];
  assign pop_nrows_o = mnr_q[32'(mh_q)*BW +: BW];
  // uin4_o: the held frames of each port
  logic [1:0] mrel;  // entry e's place in the FIFO, (e - head) mod MQ
  always_comb begin
    uin4_o = '0;
    mrel = '0;
    for (int e = 0; e < MQ; e++) begin
      mrel = 2'(e) - mh_q;
      if ({1'b0, mrel} < mc_q) uin4_o[32'(mport_q[e*2 +: 2])*3 +: 3] = uin4_o[32'(mport_q[e*2 +: 2])*3 +: 3] + 3'd1;
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
    pop_o = '0;
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
        for (int p = 0; p < NumPorts; p++) if (hport == 2'(p)) pop_o[p] = 1'b1;
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
        row = rrow_i[(32'(fport_q)*NRd + j)*256 +: 256];
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
        if (rec_cnt4_i[((32'(rr_q) + j) % NumPorts)*RW +: RW] > RW'(uin4_o[((32'(rr_q) + j) % NumPorts)*3 +: 3])) begin
          pick = 1'b1;
          pk = 2'((32'(rr_q) + j) % NumPorts);
        end
      end
      if (pick) begin
        hrec = rec_next_i[32'(pk)*RecW +: RecW];
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
        if (cred_q[8*v +: 8] >= credmax_i[8*v +: 8]) err_credit_d = 1'b1;
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

  assign cmd_out_o = out_ld && !uphase_q;

  // ---------------------------------------------------------------- assertions
`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      for (int p = 0; p < NumPorts; p++)
        assert (32'(uin4_o[p*3 +: 3]) <= 32'(rec_cnt4_i[p*RW +: RW]))
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
