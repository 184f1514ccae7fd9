// sue_tx_build -- the frame builder of one sue_tx port (docs/sue.md "sue_tx: one rising edge", step 5,
// and "sue_tx: modules").
//
// Holds the port's job (the PDU being built: its peer, VC, PSN, first slot, commands, RH op and ACK
// PSN), walks the job's commands through the pool (one slot read port: control, dlen, next and the data
// beat the builder is at), appends chunks (the header, a command's op header, control and first data
// beat, its further data beats, the R-CRC) to a two-beat accumulator and loads one 256-bit beat per edge
// into the port's MAC output register. In SUE it keeps the R-CRC of the PDU; in SUE Lite it marks the
// job's slots released when the frame's last beat is loaded (or the port dies). The C++ twin
// sue::TxModel runs the same step in its Builder (models/sue/sue_tx_model.cpp, step 5).
//
// sue_tx instantiates one per port (g_bld[p].u_bld); a job starts at the edge start_i is high.

module sue_tx_build #(
  parameter int Profile = 0,
  parameter int DataW   = 256,
  parameter int QB      = 12,   // slot id bits
  parameter int PW      = 13,   // command count bits
  parameter int PIW     = 3     // peer (XPU id) index bits
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // sue_tx's configuration registers
  input  logic [9:0]          own_i,
  input  logic [9:0]          part_i,
  input  logic [7:0]          hop_i,
  // the port
  input  logic                dies_i,      // the port dies at this edge
  input  logic                ready_i,     // mac_tx_ready_i of the port
  // the job (step 4) starting at this edge
  input  logic                start_i,
  input  logic                job_k_i,     // 1: the empty PDU
  input  logic [PIW-1:0]      job_i_i,
  input  logic [1:0]          job_v_i,
  input  logic [15:0]         job_psn_i,
  input  logic [QB-1:0]       job_first_i,
  input  logic [PW-1:0]       job_n_i,
  input  logic [1:0]          job_op_i,
  input  logic [15:0]         job_apsn_i,
  input  logic [3:0]          job_rsvd_i,
  // the pool's read port: the slot and data beat the builder is at (pre-edge), read combinationally
  output logic [QB-1:0]       rd_slot_o,
  output logic [3:0]          rd_beat_o,
  input  logic [143:0]        rd_ctrl_i,
  input  logic [11:0]         rd_dlen_i,
  input  logic [QB-1:0]       rd_next_i,
  input  logic [DataW-1:0]    rd_data_i,
  // the job seen by sue_tx (pre-edge): slot free, head marks, port status, assertions
  output logic                busy_o,
  output logic                idle_o,      // no job, or all chunks appended and the last beats loading
  output logic                rd_cmd_o,    // the job is at a command of its own at rd_slot_o (it reads it)
  output logic [PIW-1:0]      ji_o,
  output logic [1:0]          jv_o,
  output logic [QB-1:0]       jfirst_o,
  output logic [PW-1:0]       jn_o,
  // Lite: the job's slots are released at this edge (sl_ackn[mk_s_o] = mk_n_o)
  output logic                mk_v_o,
  output logic [QB-1:0]       mk_s_o,
  output logic [PW-1:0]       mk_n_o,
  // the MAC output register
  output logic                mac_valid_o,
  output logic [255:0]        mac_data_o,
  output logic                mac_sof_o,
  output logic                mac_eof_o,
  output logic [5:0]          mac_nbytes_o
);

  localparam int DB  = DataW / 8;                                                        // XPU bytes per beat
  localparam int HC  = (Profile == sue_pkg::ProfSue) ? sue_pkg::Op0Sue : sue_pkg::Op0Lite; // header chunk bytes
  localparam int CC  = 20 + DB;                                                          // largest command chunk
  localparam int ACC = 64 + CC;                                                          // accumulator bytes
  localparam int CH  = HC + CC;                                                          // largest chunk, bytes
  localparam int CSW = $clog2(CH + 1);                                                   // chunk size bits
  // phases: PhHdr the first chunk (header + the first command chunk, or 80 00), PhOp a command chunk,
  // PhData a data chunk after a command's first data beat
  localparam logic [2:0] PhHdr = 3'd0, PhOp = 3'd1, PhData = 3'd2, PhTrl = 3'd4, PhDone = 3'd5;

  // CRC-32C (reflected) over bytes [from, n) of an MSB-first chunk of CH bytes.
  function automatic logic [31:0] crc32c_upd(input logic [31:0] crc, input logic [CH*8-1:0] bytes,
                                             input logic [CSW-1:0] from, input logic [CSW-1:0] n);
    logic [31:0] x;
    x = crc;
    for (int k = 0; k < CH; k++) begin
      if (CSW'(k) >= from && CSW'(k) < n) begin
        x = sue_pkg::crc32c_byte(x, bytes[CH*8-1-8*k -: 8]);
      end
    end
    crc32c_upd = x;
  endfunction

  // registers: the job, the accumulator, the builder's position (command bk, its slot bs, data beat bj),
  // the MAC output register, the R-CRC
  logic             busy_q, busy_d, jk_q, jk_d;
  logic [PIW-1:0]   ji_q, ji_d;
  logic [1:0]       jv_q, jv_d, jop_q, jop_d;
  logic [15:0]      jpsn_q, jpsn_d, japsn_q, japsn_d;
  logic [QB-1:0]    jfirst_q, jfirst_d;
  logic [PW-1:0]    jn_q, jn_d;
  logic [3:0]       jrsvd_q, jrsvd_d;
  logic [ACC*8-1:0] acc_q, acc_d;
  logic [7:0]       accn_q, accn_d;
  logic [2:0]       ph_q, ph_d;
  logic [QB-1:0]    bk_q, bk_d, bs_q, bs_d;
  logic [3:0]       bj_q, bj_d;
  logic             fbeat_q, fbeat_d;
  logic             eofh_q, eofh_d;     // eof_held: acc holds only the previous frame's eof beat
  logic             mv_q, mv_d, msof_q, msof_d, meof_q, meof_d;
  logic [255:0]     mdata_q, mdata_d;
  logic [5:0]       mnb_q, mnb_d;
  logic [31:0]      crc_q, crc_d;

  // step 5 temporaries
  logic             b_free, b_all, b_load, b_eof, b_sof;
  logic [7:0]       b_m, b_base;
  logic [CSW-1:0]   b_s, b_from;
  logic [255:0]     b_beat, b_raw;
  logic [CH*8-1:0]  b_ch;
  logic [ACC*8-1:0] b_sh, b_ext;
  logic [2:0]       b_nph, b_anph, b_cnph;
  logic [QB-1:0]    b_nk, b_slot, b_ank, b_cnk, b_ns, b_ans, b_cns;
  logic [3:0]       b_nj, b_anj, b_cnj;
  logic [(20+DB)*8-1:0] b_cc;
  logic [CSW-1:0]   b_cs;
  logic             b_crc;
  logic [11:0]      b_dlen;
  logic [12:0]      b_rem;
  logic [9:0]       b_peer;
  logic [15:0]      b_ophdr;
  logic [DataW-1:0] b_dbeat;
  logic             mk_v;
  logic [QB-1:0]    mk_s;
  logic [PW-1:0]    mk_n;
  // the chunk appended at this edge (the R-CRC covers it when app_crc)
  logic             app_crc;
  logic [CH*8-1:0]  app_ch;
  logic [CSW-1:0]   app_from, app_s;

  always_comb begin
    busy_d = busy_q; jk_d = jk_q; ji_d = ji_q; jv_d = jv_q; jpsn_d = jpsn_q; jfirst_d = jfirst_q; jn_d = jn_q;
    jop_d = jop_q; japsn_d = japsn_q; jrsvd_d = jrsvd_q; acc_d = acc_q; accn_d = accn_q; ph_d = ph_q;
    bk_d = bk_q; bs_d = bs_q; bj_d = bj_q; fbeat_d = fbeat_q; eofh_d = eofh_q;
    mv_d = mv_q; msof_d = msof_q; meof_d = meof_q; mdata_d = mdata_q; mnb_d = mnb_q;
    app_crc = '0; app_ch = '0; app_from = '0; app_s = '0;
    mk_v = '0; mk_s = '0; mk_n = '0;
    b_free = !mv_q || ready_i;
    b_all = 1'b0; b_load = 1'b0; b_m = '0; b_eof = 1'b0; b_sof = 1'b0; b_raw = '0; b_beat = '0; b_ch = '0; b_s = '0;
    b_from = '0; b_crc = 1'b0; b_nph = '0; b_nk = '0; b_nj = '0; b_slot = '0; b_dlen = '0; b_dbeat = '0;
    b_rem = '0; b_peer = '0; b_ophdr = '0; b_base = '0; b_sh = '0; b_ext = '0;
    b_anph = '0; b_ank = '0; b_anj = '0; b_cnph = '0; b_cnk = '0; b_cnj = '0; b_cc = '0; b_cs = '0;
    b_ns = '0; b_ans = '0; b_cns = '0;
    if (dies_i) begin
      if (Profile == 1 && busy_q) begin  // Lite: the PDU is lost, its slots are released
        mk_v = 1'b1;
        mk_s = jfirst_q;
        mk_n = jn_q;
      end
      busy_d = 1'b0;
      eofh_d = 1'b0;
      accn_d = '0;
      acc_d = '0;
      mv_d = 1'b0;
    end else if (!busy_q) begin
      if (b_free) mv_d = 1'b0;
    end else begin
      // with eofh (eof_held), acc holds the previous frame's eof beat: it goes first, the job's first chunk with it
      b_all  = (ph_q == PhDone);
      b_load = b_free && (eofh_q || accn_q >= 8'd32 || (b_all && accn_q != 8'd0));
      b_m    = (accn_q >= 8'd32) ? 8'd32 : accn_q;
      b_eof  = eofh_q || (b_all && accn_q <= 8'd32);
      b_sof  = fbeat_q && !eofh_q;
      b_raw  = acc_q[ACC*8-1 -: 256];
      b_beat = b_raw;
      if (Profile == 1 && b_sof) begin
        // Lite: the 6-byte header spread over the DA/SA positions
        b_beat[255-8*1 -: 24] = b_raw[255-8*6 -: 24];   // 1..3  = acc[6..8]
        b_beat[255-8*4 -: 16] = b_raw[255-8*1 -: 16];   // 4..5  = acc[1..2]
        b_beat[255-8*6 -: 8]  = b_raw[255-8*3 -: 8];    // 6     = acc[3]
        b_beat[255-8*7 -: 24] = b_raw[255-8*9 -: 24];   // 7..9  = acc[9..11]
        b_beat[255-8*10 -: 16] = b_raw[255-8*4 -: 16];  // 10..11 = acc[4..5]
      end
      if (b_load) begin
        mv_d   = 1'b1;
        mdata_d = b_beat;
        msof_d = b_sof;
        meof_d = b_eof;
        mnb_d = b_m[5:0];
        if (!eofh_q) fbeat_d = 1'b0;
        eofh_d = 1'b0;
        if (b_eof && !eofh_q) begin
          busy_d = 1'b0;
          if (Profile == 1) begin  // Lite: slots freed when the last beat is loaded
            mk_v = 1'b1;
            mk_s = jfirst_q;
            mk_n = jn_q;
          end
        end
      end else if (b_free) begin
        mv_d = 1'b0;
      end
      // the next chunk (the first one: the header and the first command chunk, or 80 00)
      b_ch   = '0;
      b_s    = '0;
      b_from = '0;
      b_crc  = (Profile == 0);
      b_nph  = ph_q;
      b_nk   = bk_q;
      b_nj   = bj_q;
      b_slot = bs_q;
      b_ns   = b_slot;
      b_dlen = rd_dlen_i;
      b_dbeat = rd_data_i;   // beat 0 in PhHdr, PhOp
      b_rem  = 13'(b_dlen) - 13'(32'(bj_q) * DB);
      b_peer = 10'(ji_q);
      b_ophdr = {(PW'(bk_q) + 1'b1 == jn_q), 3'b000, b_dlen + 12'd18};
      // the position after command bk's last chunk
      b_ank  = bk_q;
      b_anj  = bj_q;
      b_ans  = b_slot;
      if (PW'(bk_q) + 1'b1 < jn_q) begin
        b_anph = PhOp;
        b_ank  = bk_q + 1'b1;
        b_anj  = '0;
        b_ans  = rd_next_i;   // the queue's next command: the builder walks the list
      end else begin
        b_anph = (Profile == 0) ? PhTrl : PhDone;
      end
      // command chunk of command bk: op header, control, the first min(DB, dlen) data bytes
      b_cc[CC*8-1 -: 160] = {b_ophdr, rd_ctrl_i};
      for (int k = 0; k < DB; k++) begin
        if (12'(k) < b_dlen) b_cc[CC*8-1-160-8*k -: 8] = b_dbeat[DataW-1-8*k -: 8];
      end
      b_cs   = (32'(b_dlen) > DB) ? CSW'(CC) : CSW'(20) + CSW'(b_dlen);
      if (32'(b_dlen) > DB) begin
        b_cnph = PhData;
        b_cnk  = bk_q;
        b_cnj  = 4'd1;
        b_cns  = b_slot;
      end else begin
        b_cnph = b_anph;
        b_cnk  = b_ank;
        b_cnj  = b_anj;
        b_cns  = b_ans;
      end
      case (ph_q)
        PhHdr: begin
          if (Profile == 0) begin
            b_ch[CH*8-1 -: 176] = {8'h02, 8'({ji_q, jv_q}), 22'd0, b_peer,
                                   2'b00, jv_q, 4'b0010, hop_i, 22'd0, own_i, 16'h88b6,
                                   2'b00, jop_q, 2'b00, own_i, jpsn_q,
                                   jv_q, jrsvd_q, part_i, japsn_q};
            b_from = CSW'(14);
          end else begin
            b_ch[CH*8-1 -: 48] = {8'h22, 6'd0, b_peer, 2'b00, jv_q, 4'b0010, 6'd0, own_i};
          end
          if (jk_q) begin  // the empty PDU
            b_ch[CH*8-1-HC*8 -: 16] = 16'h8000;
            b_s   = CSW'(HC + 2);
            b_nph = (Profile == 0) ? PhTrl : PhDone;
          end else begin
            b_ch[CH*8-1-HC*8 -: CC*8] = b_cc;
            b_s   = CSW'(HC) + b_cs;
            b_nph = b_cnph;
            b_nk  = b_cnk;
            b_nj  = b_cnj;
            b_ns  = b_cns;
          end
        end
        PhOp: begin
          b_ch[CH*8-1 -: CC*8] = b_cc;
          b_s   = b_cs;
          b_nph = b_cnph;
          b_nk  = b_cnk;
          b_nj  = b_cnj;
          b_ns  = b_cns;
        end
        PhData: begin
          b_s = (b_rem > 13'(DB)) ? CSW'(DB) : CSW'(b_rem);
          for (int k = 0; k < DB; k++) begin
            if (CSW'(k) < b_s) b_ch[CH*8-1-8*k -: 8] = b_dbeat[DataW-1-8*k -: 8];
          end
          if (b_rem > 13'(DB)) begin
            b_nj = bj_q + 4'd1;
          end else begin
            b_nph = b_anph;
            b_nk  = b_ank;
            b_nj  = b_anj;
            b_ns  = b_ans;
          end
        end
        PhTrl: begin
          b_ch[CH*8-1 -: 32] = ~crc_q;
          b_s   = CSW'(4);
          b_crc = 1'b0;
          b_nph = PhDone;
        end
        default: ;
      endcase
      b_base = accn_q - (b_load ? b_m : 8'd0);
      b_sh   = acc_q << (b_load ? {b_m, 3'b000} : 11'd0);
      b_ext  = '0;
      b_ext[ACC*8-1 -: CH*8] = b_ch;
      if (b_s != '0 && 32'(b_base) + 32'(b_s) <= ACC && (!eofh_q || b_load)) begin
        acc_d = b_sh | (b_ext >> {b_base, 3'b000});
        accn_d = b_base + 8'(b_s);
        ph_d   = b_nph;
        bk_d = b_nk;
        bs_d = b_ns;
        bj_d   = b_nj;
        app_crc       = b_crc;
        app_ch = b_ch;
        app_from = b_from;
        app_s  = b_s;
      end else begin
        acc_d = b_sh;
        accn_d = b_base;
      end
    end
    // job start; at the edge that loads the frame's second-to-last beat (busy stays set), the eof beat
    // stays in acc (eofh) and in Lite the job's slots are released
    if (start_i) begin
      eofh_d = busy_d;
      if (Profile == 1 && busy_d) begin
        mk_v = 1'b1;
        mk_s = jfirst_q;
        mk_n = jn_q;
      end
      busy_d  = 1'b1;
      jk_d    = job_k_i;
      ji_d   = job_i_i;
      jv_d   = job_v_i;
      jpsn_d = job_psn_i;
      jfirst_d = job_first_i;
      jn_d = job_n_i;
      jop_d  = job_op_i;
      japsn_d = job_apsn_i;
      jrsvd_d = job_rsvd_i;
      fbeat_d = 1'b1;
      ph_d = PhHdr;
      bk_d = '0;
      bs_d = job_first_i;
      bj_d = '0;
    end
  end

  // the R-CRC (SUE): restarted at the job start, updated with every chunk it covers
  always_comb begin
    crc_d = crc_q;
    if (Profile == 0) begin
      if (app_crc) crc_d = crc32c_upd(crc_q, app_ch, app_from, app_s);
      if (start_i) crc_d = 32'hffffffff;
    end
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q <= '0; jk_q <= '0; ji_q <= '0; jv_q <= '0; jpsn_q <= '0; jfirst_q <= '0; jn_q <= '0; jop_q <= '0;
      japsn_q <= '0; jrsvd_q <= '0; acc_q <= '0; accn_q <= '0; ph_q <= '0; bk_q <= '0; bs_q <= '0; bj_q <= '0;
      fbeat_q <= '0; eofh_q <= '0; mv_q <= '0; msof_q <= '0; meof_q <= '0; mdata_q <= '0; mnb_q <= '0; crc_q <= '0;
    end else begin
      busy_q <= busy_d; jk_q <= jk_d; ji_q <= ji_d; jv_q <= jv_d; jpsn_q <= jpsn_d; jfirst_q <= jfirst_d;
      jn_q <= jn_d; jop_q <= jop_d; japsn_q <= japsn_d; jrsvd_q <= jrsvd_d; acc_q <= acc_d; accn_q <= accn_d;
      ph_q <= ph_d; bk_q <= bk_d; bs_q <= bs_d; bj_q <= bj_d; fbeat_q <= fbeat_d; eofh_q <= eofh_d;
      mv_q <= mv_d; msof_q <= msof_d; meof_q <= meof_d; mdata_q <= mdata_d; mnb_q <= mnb_d; crc_q <= crc_d;
    end
  end

  assign rd_slot_o    = bs_q;
  assign rd_beat_o    = bj_q;
  assign busy_o       = busy_q;
  // idle: no job, or all chunks appended and the frame's last or second-to-last beat, not its sof beat,
  // loads at this edge (step 5, "End")
  assign idle_o       = !busy_q || (ph_q == PhDone && !fbeat_q && accn_q <= 8'd64 && (!mv_q || ready_i));
  assign rd_cmd_o     = busy_q && (ph_q == PhOp || ph_q == PhData || (ph_q == PhHdr && !jk_q));
  assign ji_o         = ji_q;
  assign jv_o         = jv_q;
  assign jfirst_o     = jfirst_q;
  assign jn_o         = jn_q;
  assign mk_v_o       = mk_v;
  assign mk_s_o       = mk_s;
  assign mk_n_o       = mk_n;
  assign mac_valid_o  = mv_q;
  assign mac_data_o   = mdata_q;
  assign mac_sof_o    = msof_q;
  assign mac_eof_o    = meof_q;
  assign mac_nbytes_o = mnb_q;

`ifndef SYNTHESIS
`ifdef SUE_ASSERT
  always_ff @(posedge clk_i) begin
    if (rst_ni && mv_d && !meof_d && busy_q && !dies_i) begin
      assert (mnb_d == 6'd32) else $error("sue_tx: a beat that is not eof with nbytes != 32");
    end
  end
`endif
`endif

endmodule
