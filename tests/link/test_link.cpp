// Unit tests of lnk::Params and lnk::Channel: serialization, FEC and propagation latency.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <variant>

#include "link/link.hpp"

using lnk::Cable;
using lnk::Channel;
using lnk::Ctl;
using lnk::Frame;
using lnk::Item;
using lnk::Params;
using lnk::Ps;

namespace {

Params with_cable(Cable c, double m) {
  Params p;
  p.cable = c;
  p.length_m = m;
  return p;
}

Frame frame(uint64_t id, uint32_t len) {
  Frame f;
  f.id = id;
  f.len = len;
  f.digest = 0x1000 + id;
  return f;
}

}  // namespace

// ---------------------------------------------------------------- cable and propagation

TEST(Link, PsPerMeter) {
  static_assert(lnk::ps_per_meter(Cable::smf) == 4960);
  static_assert(lnk::ps_per_meter(Cable::hcf) == 3500);
  static_assert(lnk::ps_per_meter(Cable::twinax) == 4600);
}

TEST(Link, PropagationPerCable) {
  EXPECT_EQ(with_cable(Cable::smf, 2).propagation(), 9920);
  EXPECT_EQ(with_cable(Cable::smf, 10).propagation(), 49600);
  EXPECT_EQ(with_cable(Cable::hcf, 2).propagation(), 7000);
  EXPECT_EQ(with_cable(Cable::hcf, 10).propagation(), 35000);
  EXPECT_EQ(with_cable(Cable::twinax, 2).propagation(), 9200);
  EXPECT_EQ(with_cable(Cable::twinax, 10).propagation(), 46000);
  EXPECT_EQ(with_cable(Cable::smf, 100).propagation(), 496000);
  EXPECT_EQ(with_cable(Cable::smf, 0).propagation(), 0);
  EXPECT_EQ(with_cable(Cable::smf, 0.5).propagation(), 2480);
  EXPECT_EQ(with_cable(Cable::twinax, 1.25).propagation(), 5750);
  EXPECT_EQ(with_cable(Cable::hcf, 0.0001).propagation(), 0);    // 0.35 ps rounds down
  EXPECT_EQ(with_cable(Cable::hcf, 0.0002).propagation(), 1);    // 0.7 ps rounds up
}

TEST(Link, DefaultParams) {
  Params p;
  EXPECT_DOUBLE_EQ(p.rate_gbps, 800.0);
  EXPECT_EQ(p.cable, Cable::twinax);
  EXPECT_DOUBLE_EQ(p.length_m, 2.0);
  EXPECT_DOUBLE_EQ(p.fec_latency_ns, 60.0);
  EXPECT_EQ(p.overhead_bytes, 20u);
  EXPECT_EQ(p.ctl_bytes, 8u);
  EXPECT_EQ(p.fec_latency(), 60000);
  EXPECT_EQ(p.propagation(), 9200);
  EXPECT_EQ(p.flight(), 69200);
  EXPECT_EQ(p.validate(), "");
}

TEST(Link, FecLatencyIsNsRoundedToPs) {
  Params p;
  p.fec_latency_ns = 0;
  EXPECT_EQ(p.fec_latency(), 0);
  p.fec_latency_ns = 12.3456;
  EXPECT_EQ(p.fec_latency(), 12346);
  p.length_m = 10;
  p.cable = Cable::smf;
  EXPECT_EQ(p.flight(), 12346 + 49600);
}

// ---------------------------------------------------------------- serialization

TEST(Link, SerializationExact) {
  Params p;  // 800 Gb/s: 10 ps per byte
  EXPECT_EQ(p.serialization(100), 1000);
  EXPECT_EQ(p.serialization(1), 10);
  EXPECT_EQ(p.serialization(0), 0);
  EXPECT_EQ(p.serialization(120), 1200);
  EXPECT_EQ(p.serialization(8), 80);
  EXPECT_EQ(p.serialization(9216 + 20), 92360);
  p.rate_gbps = 400;
  EXPECT_EQ(p.serialization(64), 1280);
  p.rate_gbps = 100;
  EXPECT_EQ(p.serialization(8), 640);
  p.rate_gbps = 1600;
  EXPECT_EQ(p.serialization(100), 500);
}

TEST(Link, SerializationRoundsUp) {
  Params p;
  p.rate_gbps = 3200;  // 2.5 ps per byte
  EXPECT_EQ(p.serialization(1), 3);
  EXPECT_EQ(p.serialization(2), 5);
  EXPECT_EQ(p.serialization(3), 8);  // 7.5
  p.rate_gbps = 3;  // 2666.67 ps per byte
  EXPECT_EQ(p.serialization(1), 2667);
  EXPECT_EQ(p.serialization(3), 8000);
  p.rate_gbps = 700;  // 11.43 ps per byte
  EXPECT_EQ(p.serialization(1), 12);
  EXPECT_EQ(p.serialization(7), 80);
  EXPECT_EQ(p.serialization(8), 92);  // 91.43
}

// ---------------------------------------------------------------- validate

TEST(Link, ValidateAcceptsBounds) {
  Params p;
  p.rate_gbps = 1;
  EXPECT_EQ(p.validate(), "");
  p.rate_gbps = 3200;
  EXPECT_EQ(p.validate(), "");
  p.length_m = 0;
  EXPECT_EQ(p.validate(), "");
  p.length_m = 10000;
  EXPECT_EQ(p.validate(), "");
  p.fec_latency_ns = 0;
  EXPECT_EQ(p.validate(), "");
  p.fec_latency_ns = 100000;
  EXPECT_EQ(p.validate(), "");
  p.ctl_bytes = 1;
  p.overhead_bytes = 0;
  EXPECT_EQ(p.validate(), "");
}

TEST(Link, ValidateMessages) {
  Params p;
  p.rate_gbps = 0;
  EXPECT_EQ(p.validate(), "link rate_gbps=0 out of range (allowed 1..3200)");
  p.rate_gbps = 3200.5;
  EXPECT_EQ(p.validate(), "link rate_gbps=3200.5 out of range (allowed 1..3200)");
  p.rate_gbps = -800;
  EXPECT_EQ(p.validate(), "link rate_gbps=-800 out of range (allowed 1..3200)");

  p = Params();
  p.length_m = -1;
  EXPECT_EQ(p.validate(), "link length_m=-1 out of range (allowed 0..10000)");
  p.length_m = 10000.5;
  EXPECT_EQ(p.validate(), "link length_m=10000.5 out of range (allowed 0..10000)");

  p = Params();
  p.fec_latency_ns = -5;
  EXPECT_EQ(p.validate(), "link fec_latency_ns=-5 out of range (allowed 0..100000)");
  p.fec_latency_ns = 100001;
  EXPECT_EQ(p.validate(), "link fec_latency_ns=100001 out of range (allowed 0..100000)");

  p = Params();
  p.ctl_bytes = 0;
  EXPECT_EQ(p.validate(), "link ctl_bytes=0 out of range (allowed 1..)");
}

TEST(Link, ValidateRejectsNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Params p;
  p.rate_gbps = nan;
  EXPECT_EQ(p.validate(), "link rate_gbps=nan out of range (allowed 1..3200)");
  p = Params();
  p.length_m = nan;
  EXPECT_EQ(p.validate(), "link length_m=nan out of range (allowed 0..10000)");
  p = Params();
  p.fec_latency_ns = nan;
  EXPECT_EQ(p.validate(), "link fec_latency_ns=nan out of range (allowed 0..100000)");
}

TEST(Link, ValidateReportsTheFirstBadFieldOnOneLine) {
  Params p;
  p.rate_gbps = 0;
  p.length_m = -1;
  p.ctl_bytes = 0;
  std::string m = p.validate();
  EXPECT_EQ(m, "link rate_gbps=0 out of range (allowed 1..3200)");
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

// ---------------------------------------------------------------- channel

TEST(Link, FrameArrivalTime) {
  Channel ch{Params()};
  EXPECT_TRUE(ch.idle(0));
  EXPECT_EQ(ch.next_arrival(), -1);
  // 100 + 20 bytes at 800 Gb/s = 1200 ps; + 60 ns FEC + 2 m twinax 9200 ps.
  EXPECT_EQ(ch.send(0, frame(1, 100)), 1200);
  EXPECT_EQ(ch.wire_free_at(), 1200);
  EXPECT_EQ(ch.next_arrival(), 1200 + 60000 + 9200);
  EXPECT_EQ(ch.in_flight(), 1u);
}

TEST(Link, FrameArrivalTimeLaterStartAndOtherParams) {
  Params p;
  p.rate_gbps = 400;
  p.cable = Cable::smf;
  p.length_m = 10;
  p.fec_latency_ns = 100;
  p.overhead_bytes = 24;
  Channel ch(p);
  // start 5000; (40 + 24) bytes at 400 Gb/s = 1280 ps; 100 ns FEC; 10 m smf 49600 ps.
  EXPECT_EQ(ch.send(5000, frame(7, 40)), 6280);
  EXPECT_EQ(ch.next_arrival(), 5000 + 1280 + 100000 + 49600);
  EXPECT_EQ(ch.params().overhead_bytes, 24u);
}

TEST(Link, BackToBackFramesQueueBehindTheWire) {
  Channel ch{Params()};
  EXPECT_EQ(ch.send(0, frame(1, 100)), 1200);
  EXPECT_FALSE(ch.idle(0));
  EXPECT_FALSE(ch.idle(1199));
  // Offered at 500, while the wire is busy: starts at 1200, ends at 2400.
  EXPECT_EQ(ch.send(500, frame(2, 100)), 2400);
  EXPECT_EQ(ch.wire_free_at(), 2400);
  EXPECT_FALSE(ch.idle(1200));
  EXPECT_TRUE(ch.idle(2400));
  EXPECT_TRUE(ch.idle(3000));
  // Offered after the wire went idle: starts when offered.
  EXPECT_EQ(ch.send(10000, frame(3, 60)), 10800);
  EXPECT_EQ(ch.in_flight(), 3u);
  EXPECT_EQ(ch.busy_time(), 1200 + 1200 + 800);  // the idle gap is not busy

  Item it;
  ASSERT_TRUE(ch.receive(1200 + 69200, it));
  ASSERT_FALSE(ch.receive(2400 + 69200 - 1, it));
  ASSERT_TRUE(ch.receive(2400 + 69200, it));
  EXPECT_EQ(std::get<Frame>(it).id, 2u);
  EXPECT_EQ(ch.next_arrival(), 10800 + 69200);
}

TEST(Link, IdleTracksTheWire) {
  Channel ch{Params()};
  EXPECT_TRUE(ch.idle(0));
  EXPECT_EQ(ch.wire_free_at(), 0);
  ch.send(100, Ctl{});
  EXPECT_FALSE(ch.idle(100));
  EXPECT_FALSE(ch.idle(179));
  EXPECT_TRUE(ch.idle(180));  // 8 bytes = 80 ps
  EXPECT_EQ(ch.wire_free_at(), 180);
}

TEST(Link, ControlWordsUseCtlBytes) {
  Channel ch{Params()};
  Ctl c;
  c.kind = Ctl::Kind::ack;
  c.cls = 3;
  c.value = 17;
  // 8 bytes (no Ethernet overhead) at 800 Gb/s = 80 ps.
  EXPECT_EQ(ch.send(0, c), 80);
  EXPECT_EQ(ch.next_arrival(), 80 + 69200);
  EXPECT_EQ(ch.bytes_sent(), 8u);

  Params p;
  p.ctl_bytes = 16;
  p.overhead_bytes = 100;  // not applied to control words
  Channel ch2(p);
  EXPECT_EQ(ch2.send(0, Ctl{}), 160);
  EXPECT_EQ(ch2.bytes_sent(), 16u);
  EXPECT_EQ(ch2.next_arrival(), 160 + 69200);
}

TEST(Link, ReceiveNothingBeforeArrivalThenFifo) {
  Channel ch{Params()};
  Ctl credit;
  credit.kind = Ctl::Kind::credit;
  credit.cls = 2;
  credit.value = 5;
  ch.send(0, frame(1, 100));  // ends 1200, arrives 70400
  ch.send(0, credit);         // ends 1280, arrives 70480
  ch.send(0, frame(2, 0));    // 20 bytes: ends 1480, arrives 70680

  Item it = frame(99, 1);
  EXPECT_FALSE(ch.receive(0, it));
  EXPECT_FALSE(ch.receive(70399, it));
  EXPECT_EQ(std::get<Frame>(it).id, 99u);  // untouched when nothing arrived
  EXPECT_EQ(ch.in_flight(), 3u);

  // Everything has arrived by 100000: comes out in send order.
  ASSERT_TRUE(ch.receive(100000, it));
  ASSERT_TRUE(std::holds_alternative<Frame>(it));
  EXPECT_EQ(std::get<Frame>(it).id, 1u);
  EXPECT_EQ(std::get<Frame>(it).len, 100u);
  EXPECT_EQ(std::get<Frame>(it).digest, 0x1001u);
  EXPECT_EQ(ch.next_arrival(), 70480);

  ASSERT_TRUE(ch.receive(100000, it));
  ASSERT_TRUE(std::holds_alternative<Ctl>(it));
  EXPECT_EQ(std::get<Ctl>(it).kind, Ctl::Kind::credit);
  EXPECT_EQ(std::get<Ctl>(it).cls, 2u);
  EXPECT_EQ(std::get<Ctl>(it).value, 5u);

  ASSERT_TRUE(ch.receive(100000, it));
  EXPECT_EQ(std::get<Frame>(it).id, 2u);

  EXPECT_FALSE(ch.receive(100000, it));
  EXPECT_EQ(ch.in_flight(), 0u);
  EXPECT_EQ(ch.next_arrival(), -1);
}

TEST(Link, ReceiveExactlyAtArrival) {
  Channel ch{Params()};
  ch.send(0, frame(1, 100));
  ch.send(0, frame(2, 100));
  Item it;
  EXPECT_FALSE(ch.receive(70399, it));
  ASSERT_TRUE(ch.receive(70400, it));  // arrival time inclusive
  EXPECT_EQ(std::get<Frame>(it).id, 1u);
  EXPECT_FALSE(ch.receive(70400, it));  // the second one is still on its way
  EXPECT_FALSE(ch.receive(71599, it));
  ASSERT_TRUE(ch.receive(71600, it));
  EXPECT_EQ(std::get<Frame>(it).id, 2u);
}

TEST(Link, Counters) {
  Channel ch{Params()};
  EXPECT_EQ(ch.frames_sent(), 0u);
  EXPECT_EQ(ch.ctl_sent(), 0u);
  EXPECT_EQ(ch.bytes_sent(), 0u);
  EXPECT_EQ(ch.busy_time(), 0);
  ch.send(0, frame(1, 100));   // 120 bytes, 1200 ps
  ch.send(0, Ctl{});           // 8 bytes, 80 ps
  ch.send(0, frame(2, 1500));  // 1520 bytes, 15200 ps
  ch.send(50000, Ctl{});       // 8 bytes, 80 ps, after an idle gap
  EXPECT_EQ(ch.frames_sent(), 2u);
  EXPECT_EQ(ch.ctl_sent(), 2u);
  EXPECT_EQ(ch.bytes_sent(), 120u + 8u + 1520u + 8u);
  EXPECT_EQ(ch.busy_time(), 1200 + 80 + 15200 + 80);
  EXPECT_EQ(ch.wire_free_at(), 50080);
  // Receiving does not change the transmit counters.
  Item it;
  while (ch.receive(1000000, it)) {
  }
  EXPECT_EQ(ch.frames_sent(), 2u);
  EXPECT_EQ(ch.bytes_sent(), 1656u);
}

// ---------------------------------------------------------------- cable names

TEST(Link, CableNamesRoundTrip) {
  for (Cable c : {Cable::smf, Cable::hcf, Cable::twinax}) {
    Cable out = c == Cable::smf ? Cable::hcf : Cable::smf;
    ASSERT_TRUE(lnk::parse_cable(lnk::to_string(c), out)) << lnk::to_string(c);
    EXPECT_EQ(out, c);
  }
  EXPECT_STREQ(lnk::to_string(Cable::smf), "smf");
  EXPECT_STREQ(lnk::to_string(Cable::hcf), "hcf");
  EXPECT_STREQ(lnk::to_string(Cable::twinax), "twinax");
}

TEST(Link, ParseCableRejectsUnknownNames) {
  for (const char* bad : {"", "copper", "SMF", "Twinax", "smf ", "mmf", "hcf2"}) {
    Cable out = Cable::hcf;
    EXPECT_FALSE(lnk::parse_cable(bad, out)) << "'" << bad << "'";
    EXPECT_EQ(out, Cable::hcf) << "'" << bad << "' must leave the output alone";
  }
}
