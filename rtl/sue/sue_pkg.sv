// sue_pkg -- what sue_tx and sue_rx share: profile constants, the codes of
// the XPU interface, the feedback channel and the RH op, connection states,
// counter indices (the order of sue::TxCnt / sue::RxCnt and of the
// cnt_<name>_o ports), and the one CRC-32C step both blocks use for R-CRC.
// docs/sue.md "RTL package" lists them beside the C++ twin's names.
//
// Referenced as sue_pkg::<name> (yosys 0.23, which `make area` uses, reads
// qualified package names but not `import`).
// Each block uses a part of it: UNUSEDPARAM is off for the package only.
/* verilator lint_off UNUSEDPARAM */
package sue_pkg;

  // ---------------------------------------------------------------- profiles
  localparam int ProfSue = 0, ProfLite = 1;
  localparam int HdrSue = 14, HdrLite = 6;           // H: bytes before the first op header on the wire
  localparam int Op0Sue = 22, Op0Lite = 6;           // first op header in the stored stream (AFH + RH | 6)
  localparam int PackLimSue = 4096, PackLimLite = 1024;  // the packing limit (bytes of ops per PDU)
  localparam int OpBytes = 20;                       // op header (2) + control (18): a command without data

  // ---------------------------------------------------------------- XPU interface (tx_valid_i, rx_valid_o)
  localparam logic [1:0] XNone = 2'd0, XCmd = 2'd1, XCmdData = 2'd2, XStray = 2'd3;

  // ---------------------------------------------------------------- feedback channel (fb_*), RH op
  // fb_owe: what sue_rx owes the connection (sue::FbOwe)
  localparam logic [1:0] OweNone = 2'd0, OweAck = 2'd1, OweNack = 2'd2, OweDup = 2'd3;
  // RH op, received (fb_rop) or sent (a PDU's ACK/NACK piggyback)
  localparam logic [1:0] RopNone = 2'd0, RopAck = 2'd1, RopNack = 2'd2;
  // fb_fo: failover event (sue::FbFo)
  localparam logic [1:0] FoNone = 2'd0, FoReq = 2'd1, FoAck = 2'd2;

  // ---------------------------------------------------------------- connection states (conn_state_o)
  localparam logic [2:0] StLive = 3'd0, StRtx = 3'd1, StWait = 3'd2, StMig = 3'd3, StRetired = 3'd4;
  // sue_tx: SUE job kinds (s_kind), in the priority order of step 4 (0: none)
  localparam logic [2:0] KFoAck = 3'd1, KFoReq = 3'd2, KRtx = 3'd3, KAckOnly = 3'd4, KMig = 3'd5;

  // ---------------------------------------------------------------- counter indices
  // sue_tx (sue::TxCnt)
  localparam int TxCmdsIn = 0, TxCmdBad = 1, TxCmdErr = 2, TxCmdOverflow = 3, TxStray = 4, TxPdusNew = 5,
                 TxPdusRtx = 6, TxPdusMig = 7, TxAckOnly = 8, TxAckSent = 9, TxNackSent = 10, TxNackRcvd = 11,
                 TxGbn = 12, TxRto = 13, TxFoReqSent = 14, TxFoAckSent = 15, TxFoAckRcvd = 16, TxCmdsSent = 17,
                 TxPayload = 18, TxFramesOut = 19, TxBytesOut = 20;
  localparam int TxNumCnt = 21;
  // sue_rx (sue::RxCnt)
  localparam int RxFramesIn = 0, RxBytesIn = 1, RxPdusOk = 2, RxLiteOk = 3, RxAckFrames = 4, RxFoFrames = 5,
                 RxFoDefer = 6, RxDropMac = 7, RxDropDead = 8, RxDropMal = 9, RxDropRcrc = 10, RxDropHdr = 11,
                 RxDropPsn = 12, RxDropDup = 13, RxNackOwed = 14, RxStray = 15, RxCmdsOut = 16;
  localparam int RxNumCnt = 17;

  // ---------------------------------------------------------------- CRC-32C
  // R-CRC is CRC-32C (Castagnoli), reflected: one byte into the running value (no pre/post inversion here;
  // the blocks seed it with all ones and invert at the end). Unrolled by Verilator and yosys to XOR trees.
  localparam logic [31:0] Crc32cPoly = 32'h82F63B78;
  function automatic logic [31:0] crc32c_byte(input logic [31:0] crc, input logic [7:0] b);
    logic [31:0] x;
    x = crc ^ {24'h0, b};
    for (int j = 0; j < 8; j++) x = (x >> 1) ^ (Crc32cPoly & {32{x[0]}});
    crc32c_byte = x;
  endfunction

endpackage
/* verilator lint_on UNUSEDPARAM */
