// Unit tests of core::Schema / core::Settings: typed key=value run settings.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/settings.hpp"

using core::Schema;
using core::Settings;
using core::SettingSpec;
using core::UsageError;

namespace {

Schema make_schema() {
  Schema sch;
  sch.add_int("credits", 16, 1, 32, "credits per class")
      .add_real("load", 0.5, 0.05, 1.0, "offered load")
      .add_bool("llr", false, "link level retry")
      .add_choice("impl", "rtl", {"rtl", "model"}, "implementation");
  return sch;
}

Settings make() { return Settings(make_schema(), "cbfc"); }

/// The message of the UsageError thrown by `f`, or "" (and a failure) when none is thrown.
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected UsageError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected UsageError, nothing thrown";
  return "";
}

}  // namespace

// ---------------------------------------------------------------- schema

TEST(SettingsSchema, AllowedTextPerKind) {
  Schema sch = make_schema();
  ASSERT_EQ(sch.specs().size(), 4u);
  EXPECT_EQ(sch.find("credits")->allowed(), "1..32");
  EXPECT_EQ(sch.find("load")->allowed(), "0.05..1");
  EXPECT_EQ(sch.find("llr")->allowed(), "true|false");
  EXPECT_EQ(sch.find("impl")->allowed(), "rtl|model");
  EXPECT_EQ(sch.find("credits")->kind, SettingSpec::Kind::Int);
  EXPECT_EQ(sch.find("load")->kind, SettingSpec::Kind::Real);
  EXPECT_EQ(sch.find("llr")->kind, SettingSpec::Kind::Bool);
  EXPECT_EQ(sch.find("impl")->kind, SettingSpec::Kind::Choice);
  EXPECT_EQ(sch.find("credits")->help, "credits per class");
}

TEST(SettingsSchema, KeysInDeclarationOrderAndFind) {
  Schema sch = make_schema();
  EXPECT_EQ(sch.keys(), "credits, load, llr, impl");
  EXPECT_EQ(sch.find("nope"), nullptr);
  EXPECT_EQ(Schema().keys(), "");
}

TEST(SettingsSchema, DefaultsStoredAsText) {
  Schema sch = make_schema();
  EXPECT_EQ(sch.find("credits")->def, "16");
  EXPECT_EQ(sch.find("load")->def, "0.5");
  EXPECT_EQ(sch.find("llr")->def, "false");
  EXPECT_EQ(sch.find("impl")->def, "rtl");
}

TEST(SettingsSchema, RedeclaringAKeyReplacesIt) {
  Schema sch = make_schema();
  sch.add_int("credits", 4, 2, 8, "again");
  ASSERT_EQ(sch.specs().size(), 4u);
  EXPECT_EQ(sch.keys(), "credits, load, llr, impl");
  EXPECT_EQ(sch.find("credits")->def, "4");
  EXPECT_EQ(sch.find("credits")->allowed(), "2..8");
  Settings s(sch, "tb");
  EXPECT_EQ(s.i("credits"), 4);
}

// ---------------------------------------------------------------- defaults and parsing

TEST(Settings, DefaultsAfterConstruction) {
  Settings s = make();
  EXPECT_EQ(s.i("credits"), 16);
  EXPECT_DOUBLE_EQ(s.r("load"), 0.5);
  EXPECT_FALSE(s.b("llr"));
  EXPECT_EQ(s.s("impl"), "rtl");
  EXPECT_EQ(s.s("credits"), "16");
  for (const char* k : {"credits", "load", "llr", "impl"}) EXPECT_TRUE(s.is_default(k)) << k;
  EXPECT_EQ(s.overrides(), "defaults");
}

// was_set: given on the command line (even at its default value), which is_default cannot tell
// (cosim bench system fills in its own defaults only for the keys not given).
TEST(Settings, WasSetEvenAtTheDefaultValue) {
  Settings s = make();
  for (const char* k : {"credits", "load", "llr", "impl"}) EXPECT_FALSE(s.was_set(k)) << k;
  s.assign("load=0.5");
  s.assign("impl=model");
  EXPECT_TRUE(s.was_set("load"));
  EXPECT_TRUE(s.is_default("load"));
  EXPECT_TRUE(s.was_set("impl"));
  EXPECT_FALSE(s.was_set("credits"));
  EXPECT_THROW(s.was_set("bogus"), core::UsageError);
}

TEST(Settings, IntParsing) {
  Settings s = make();
  s.assign("credits=7");
  EXPECT_EQ(s.i("credits"), 7);
  EXPECT_EQ(s.s("credits"), "7");
  s.set("credits", "1");  // lower bound inclusive
  EXPECT_EQ(s.i("credits"), 1);
  s.set("credits", "32");  // upper bound inclusive
  EXPECT_EQ(s.i("credits"), 32);
  s.set("credits", "+5");
  EXPECT_EQ(s.i("credits"), 5);
  EXPECT_EQ(s.s("credits"), "5");
}

TEST(Settings, HexIntsAreAcceptedAndStoredInDecimal) {
  Settings s = make();
  s.assign("credits=0x10");
  EXPECT_EQ(s.i("credits"), 16);
  EXPECT_EQ(s.s("credits"), "16");
  EXPECT_TRUE(s.is_default("credits"));  // 0x10 == default 16
  s.assign("credits=0X1f");
  EXPECT_EQ(s.i("credits"), 31);
  EXPECT_EQ(s.s("credits"), "31");
  EXPECT_EQ(s.overrides(), "credits=31");
  // 0x21 = 33 is out of range, and the message quotes the text as typed.
  EXPECT_EQ(usage_error([&] { s.assign("credits=0x21"); }),
            "setting 'credits' of cbfc: '0x21' is out of range (allowed: 1..32)");
}

TEST(Settings, NegativeIntRange) {
  Schema sch;
  sch.add_int("offset", 0, -10, 10, "offset");
  Settings s(sch, "tb");
  EXPECT_EQ(sch.find("offset")->allowed(), "-10..10");
  s.set("offset", "-10");
  EXPECT_EQ(s.i("offset"), -10);
  s.set("offset", "-0x5");
  EXPECT_EQ(s.i("offset"), -5);
  EXPECT_EQ(s.s("offset"), "-5");
  EXPECT_EQ(usage_error([&] { s.set("offset", "-11"); }),
            "setting 'offset' of tb: '-11' is out of range (allowed: -10..10)");
  EXPECT_EQ(s.i("offset"), -5);  // a rejected value leaves the old one
}

TEST(Settings, IntErrors) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.set("credits", "33"); }),
            "setting 'credits' of cbfc: '33' is out of range (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", "0"); }),
            "setting 'credits' of cbfc: '0' is out of range (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", "abc"); }),
            "setting 'credits' of cbfc: 'abc' is not an integer (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", ""); }),
            "setting 'credits' of cbfc: '' is not an integer (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", "12abc"); }),
            "setting 'credits' of cbfc: '12abc' is not an integer (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", "1.5"); }),
            "setting 'credits' of cbfc: '1.5' is not an integer (allowed: 1..32)");
  EXPECT_EQ(usage_error([&] { s.set("credits", "0x"); }),
            "setting 'credits' of cbfc: '0x' is not an integer (allowed: 1..32)");
  // Overflows long long: ERANGE, reported as not an integer rather than clamped into range.
  EXPECT_EQ(usage_error([&] { s.set("credits", "99999999999999999999"); }),
            "setting 'credits' of cbfc: '99999999999999999999' is not an integer (allowed: 1..32)");
  EXPECT_EQ(s.i("credits"), 16);
  EXPECT_EQ(s.overrides(), "defaults");
}

TEST(Settings, RealParsing) {
  Settings s = make();
  s.assign("load=0.25");
  EXPECT_DOUBLE_EQ(s.r("load"), 0.25);
  EXPECT_EQ(s.s("load"), "0.25");
  s.set("load", "2.5e-1");  // canonical text is the shortest rendering
  EXPECT_EQ(s.s("load"), "0.25");
  s.set("load", ".75");
  EXPECT_DOUBLE_EQ(s.r("load"), 0.75);
  EXPECT_EQ(s.s("load"), "0.75");
  s.set("load", "1");  // upper bound inclusive
  EXPECT_DOUBLE_EQ(s.r("load"), 1.0);
  EXPECT_EQ(s.s("load"), "1");
  s.set("load", "0.05");  // lower bound inclusive
  EXPECT_DOUBLE_EQ(s.r("load"), 0.05);
  s.set("load", "0.500");
  EXPECT_TRUE(s.is_default("load"));  // same value as the default 0.5
}

TEST(Settings, RealErrors) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.set("load", "1.5"); }),
            "setting 'load' of cbfc: '1.5' is out of range (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", "0.04"); }),
            "setting 'load' of cbfc: '0.04' is out of range (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", "half"); }),
            "setting 'load' of cbfc: 'half' is not a number (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", ""); }),
            "setting 'load' of cbfc: '' is not a number (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", "0.5x"); }),
            "setting 'load' of cbfc: '0.5x' is not a number (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", "nan"); }),
            "setting 'load' of cbfc: 'nan' is not a number (allowed: 0.05..1)");
  EXPECT_EQ(usage_error([&] { s.set("load", "inf"); }),
            "setting 'load' of cbfc: 'inf' is not a number (allowed: 0.05..1)");
  EXPECT_DOUBLE_EQ(s.r("load"), 0.5);
}

TEST(Settings, BoolSpellings) {
  Settings s = make();
  for (const char* t : {"true", "1", "on", "yes"}) {
    s.set("llr", "false");
    s.set("llr", t);
    EXPECT_TRUE(s.b("llr")) << t;
    EXPECT_EQ(s.s("llr"), "true") << t;
  }
  for (const char* f : {"false", "0", "off", "no"}) {
    s.set("llr", "true");
    s.set("llr", f);
    EXPECT_FALSE(s.b("llr")) << f;
    EXPECT_EQ(s.s("llr"), "false") << f;
  }
}

TEST(Settings, BoolErrors) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.set("llr", "maybe"); }),
            "setting 'llr' of cbfc: 'maybe' is not a boolean (allowed: true|false)");
  // Spellings are case sensitive.
  EXPECT_EQ(usage_error([&] { s.set("llr", "TRUE"); }),
            "setting 'llr' of cbfc: 'TRUE' is not a boolean (allowed: true|false)");
  EXPECT_EQ(usage_error([&] { s.set("llr", "2"); }),
            "setting 'llr' of cbfc: '2' is not a boolean (allowed: true|false)");
  EXPECT_EQ(usage_error([&] { s.set("llr", ""); }),
            "setting 'llr' of cbfc: '' is not a boolean (allowed: true|false)");
  EXPECT_FALSE(s.b("llr"));
}

TEST(Settings, ChoiceParsing) {
  Settings s = make();
  s.assign("impl=model");
  EXPECT_EQ(s.s("impl"), "model");
  EXPECT_FALSE(s.is_default("impl"));
  EXPECT_EQ(usage_error([&] { s.set("impl", "fpga"); }),
            "setting 'impl' of cbfc: 'fpga' is not a choice (allowed: rtl|model)");
  EXPECT_EQ(usage_error([&] { s.set("impl", "RTL"); }),
            "setting 'impl' of cbfc: 'RTL' is not a choice (allowed: rtl|model)");
  EXPECT_EQ(s.s("impl"), "model");
}

TEST(Settings, AssignSplitsAtTheFirstEquals) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.assign("impl=rtl=model"); }),
            "setting 'impl' of cbfc: 'rtl=model' is not a choice (allowed: rtl|model)");
  EXPECT_EQ(usage_error([&] { s.assign("credits="); }),
            "setting 'credits' of cbfc: '' is not an integer (allowed: 1..32)");
}

// ---------------------------------------------------------------- key errors

TEST(Settings, UnknownKeyListsAllowedKeys) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.assign("creditz=4"); }),
            "unknown setting 'creditz' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { s.set("nope", "1"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  // Typed getters of an unknown key fail the same way.
  EXPECT_EQ(usage_error([&] { (void)s.i("nope"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { (void)s.r("nope"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { (void)s.b("nope"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { (void)s.s("nope"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { (void)s.is_default("nope"); }),
            "unknown setting 'nope' for cbfc (allowed: credits, load, llr, impl)");
  EXPECT_EQ(s.overrides(), "defaults");
}

TEST(Settings, MalformedAssignment) {
  Settings s = make();
  EXPECT_EQ(usage_error([&] { s.assign("credits"); }),
            "bad --set 'credits': expected key=value (keys of cbfc: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { s.assign("=5"); }),
            "bad --set '=5': expected key=value (keys of cbfc: credits, load, llr, impl)");
  EXPECT_EQ(usage_error([&] { s.assign(""); }),
            "bad --set '': expected key=value (keys of cbfc: credits, load, llr, impl)");
  EXPECT_EQ(s.overrides(), "defaults");
}

// ---------------------------------------------------------------- overrides and json

TEST(Settings, OverridesFollowAssignmentOrder) {
  Settings s = make();
  EXPECT_EQ(s.overrides(), "defaults");
  s.assign("llr=yes");
  s.assign("credits=0x8");
  EXPECT_EQ(s.overrides(), "llr=true credits=8");
  // Setting a key again moves it to the end.
  s.assign("llr=on");
  EXPECT_EQ(s.overrides(), "credits=8 llr=true");
  s.assign("impl=model");
  s.assign("load=0.75");
  EXPECT_EQ(s.overrides(), "credits=8 llr=true impl=model load=0.75");
  // Keys set back to their default drop out.
  s.assign("credits=16");
  EXPECT_TRUE(s.is_default("credits"));
  EXPECT_EQ(s.overrides(), "llr=true impl=model load=0.75");
  s.assign("llr=no");
  s.assign("impl=rtl");
  s.assign("load=0.5");
  EXPECT_EQ(s.overrides(), "defaults");
}

TEST(Settings, ToJsonHasTypedValues) {
  Settings s = make();
  nlohmann::json d = s.to_json();
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d.size(), 4u);
  EXPECT_TRUE(d["credits"].is_number_integer());
  EXPECT_EQ(d["credits"].get<int64_t>(), 16);
  EXPECT_TRUE(d["load"].is_number_float());
  EXPECT_DOUBLE_EQ(d["load"].get<double>(), 0.5);
  EXPECT_TRUE(d["llr"].is_boolean());
  EXPECT_FALSE(d["llr"].get<bool>());
  EXPECT_TRUE(d["impl"].is_string());
  EXPECT_EQ(d["impl"].get<std::string>(), "rtl");

  s.assign("credits=0x20");
  s.assign("load=1");
  s.assign("llr=1");
  s.assign("impl=model");
  nlohmann::json j = s.to_json();
  EXPECT_TRUE(j["credits"].is_number_integer());
  EXPECT_EQ(j["credits"].get<int64_t>(), 32);
  EXPECT_TRUE(j["load"].is_number_float());  // still a real when the text was "1"
  EXPECT_DOUBLE_EQ(j["load"].get<double>(), 1.0);
  EXPECT_TRUE(j["llr"].is_boolean());
  EXPECT_TRUE(j["llr"].get<bool>());
  EXPECT_EQ(j["impl"].get<std::string>(), "model");
  EXPECT_EQ(j.dump(), R"({"credits":32,"impl":"model","llr":true,"load":1.0})");
}

// ---------------------------------------------------------------- error shape

TEST(Settings, UsageErrorIsARuntimeError) {
  static_assert(std::is_base_of_v<std::runtime_error, UsageError>);
  Settings s = make();
  EXPECT_THROW(s.set("credits", "99"), UsageError);
  EXPECT_THROW(s.set("credits", "99"), std::runtime_error);
  EXPECT_THROW(s.assign("x"), UsageError);
  EXPECT_THROW(s.assign("x=1"), UsageError);
  UsageError e("one line");
  EXPECT_STREQ(e.what(), "one line");
}

TEST(Settings, EveryErrorIsOneLineNamingKeyValueAndAllowed) {
  Settings s = make();
  struct Case {
    std::string assignment, key, value, allowed;
  };
  const std::vector<Case> cases = {
      {"credits=33", "credits", "33", "1..32"},     {"credits=x", "credits", "x", "1..32"},
      {"credits=", "credits", "", "1..32"},         {"load=2", "load", "2", "0.05..1"},
      {"load=abc", "load", "abc", "0.05..1"},       {"llr=perhaps", "llr", "perhaps", "true|false"},
      {"impl=fpga", "impl", "fpga", "rtl|model"},   {"bogus=1", "bogus", "", "credits, load, llr, impl"},
      {"bogus", "bogus", "", "credits, load, llr, impl"},
  };
  for (const Case& c : cases) {
    std::string msg = usage_error([&] { s.assign(c.assignment); });
    SCOPED_TRACE(c.assignment + " -> " + msg);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    EXPECT_NE(msg.find("'" + c.key), std::string::npos);
    if (!c.value.empty()) {
      EXPECT_NE(msg.find("'" + c.value + "'"), std::string::npos);
    }
    EXPECT_NE(msg.find(c.allowed), std::string::npos);
    EXPECT_NE(msg.find("cbfc"), std::string::npos);  // the owner is named
  }
  EXPECT_EQ(s.overrides(), "defaults");  // no failed assignment changed anything
}

TEST(Settings, DefaultConstructedHasNoKeys) {
  Settings s;
  EXPECT_EQ(s.overrides(), "defaults");
  EXPECT_TRUE(s.to_json().is_object());
  EXPECT_TRUE(s.to_json().empty());
  EXPECT_THROW(s.set("a", "1"), UsageError);
}

namespace {
TEST(Settings, LeadingZeroIsDecimalNotOctal) {
  core::Schema s;
  s.add_int("n", 1, 0, 100, "n");
  core::Settings st(s, "tb");
  st.set("n", "010");
  EXPECT_EQ(st.i("n"), 10);
  st.set("n", "0x10");
  EXPECT_EQ(st.i("n"), 16);
}

TEST(Settings, ControlCharactersNeverBreakTheOneLineError) {
  core::Schema s;
  s.add_int("n", 1, 0, 100, "n");
  core::Settings st(s, "tb");
  try {
    st.set("n", "1\n2");
    FAIL();
  } catch (const core::UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}
}  // namespace

// Free text that must match a pattern (e.g. sue_system's fail_port=P@cycle).
TEST(Settings, TextMatchesItsPattern) {
  Schema sch;
  sch.add_text("fail_port", "none", "none|[0-3]@[0-9]+", "none|P@cycle", "a port fails");
  Settings s(sch, "sue_system");
  EXPECT_EQ(s.s("fail_port"), "none");
  EXPECT_TRUE(s.is_default("fail_port"));
  s.assign("fail_port=1@2000");
  EXPECT_EQ(s.s("fail_port"), "1@2000");
  EXPECT_EQ(s.to_json()["fail_port"], "1@2000");
  EXPECT_EQ(s.overrides(), "fail_port=1@2000");
  EXPECT_EQ(sch.find("fail_port")->allowed(), "none|P@cycle");
  const std::string msg = usage_error([&] { s.assign("fail_port=5@x"); });
  EXPECT_EQ(msg, "setting 'fail_port' of sue_system: '5@x' is not of an allowed form (allowed: none|P@cycle)");
  EXPECT_EQ(s.s("fail_port"), "1@2000");  // unchanged
}
