#include "core/settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace core {

namespace {
std::string num(double v) {
  std::string s = fmt::format("{}", v);
  return s;
}
}  // namespace

std::string SettingSpec::allowed() const {
  switch (kind) {
    case Kind::Int: return fmt::format("{}..{}", imin, imax);
    case Kind::Real: return fmt::format("{}..{}", num(rmin), num(rmax));
    case Kind::Bool: return "true|false";
    case Kind::Choice: {
      std::string out;
      for (size_t i = 0; i < choices.size(); ++i) out += (i ? "|" : "") + choices[i];
      return out;
    }
    case Kind::Text: return pattern_doc;
  }
  return "";
}

SettingSpec& Schema::add(SettingSpec s) {
  for (auto& e : specs_)
    if (e.key == s.key) return e = std::move(s);
  specs_.push_back(std::move(s));
  return specs_.back();
}

Schema& Schema::add_int(const std::string& key, int64_t def, int64_t min, int64_t max, const std::string& help) {
  SettingSpec s;
  s.key = key, s.kind = SettingSpec::Kind::Int, s.def = std::to_string(def), s.imin = min, s.imax = max,
  s.help = help;
  add(std::move(s));
  return *this;
}

Schema& Schema::add_real(const std::string& key, double def, double min, double max, const std::string& help) {
  SettingSpec s;
  s.key = key, s.kind = SettingSpec::Kind::Real, s.def = num(def), s.rmin = min, s.rmax = max, s.help = help;
  add(std::move(s));
  return *this;
}

Schema& Schema::add_bool(const std::string& key, bool def, const std::string& help) {
  SettingSpec s;
  s.key = key, s.kind = SettingSpec::Kind::Bool, s.def = def ? "true" : "false", s.help = help;
  add(std::move(s));
  return *this;
}

Schema& Schema::add_choice(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
                           const std::string& help) {
  SettingSpec s;
  s.key = key, s.kind = SettingSpec::Kind::Choice, s.def = def, s.choices = choices, s.help = help;
  add(std::move(s));
  return *this;
}

Schema& Schema::add_text(const std::string& key, const std::string& def, const std::string& pattern,
                         const std::string& doc, const std::string& help) {
  SettingSpec s;
  s.key = key, s.kind = SettingSpec::Kind::Text, s.def = def, s.pattern = pattern, s.pattern_doc = doc, s.help = help;
  add(std::move(s));
  return *this;
}

const SettingSpec* Schema::find(const std::string& key) const {
  for (auto& s : specs_)
    if (s.key == key) return &s;
  return nullptr;
}

std::string Schema::keys() const {
  std::string out;
  for (size_t i = 0; i < specs_.size(); ++i) out += (i ? ", " : "") + specs_[i].key;
  return out;
}

Settings::Settings(const Schema& schema, std::string owner) : schema_(schema), owner_(std::move(owner)) {
  for (auto& s : schema_.specs()) values_[s.key] = s.def;
}

std::string Settings::canonical(const SettingSpec& s, const std::string& value, const std::string& owner) {
  auto bad = [&](const char* what) {
    std::string shown = value;  // the error stays on one line whatever was typed
    for (auto& ch : shown)
      if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
    return UsageError(fmt::format("setting '{}' of {}: '{}' is {} (allowed: {})", s.key, owner, shown, what,
                                  s.allowed()));
  };
  switch (s.kind) {
    case SettingSpec::Kind::Int: {
      if (value.empty()) throw bad("not an integer");
      errno = 0;
      char* end = nullptr;
      // decimal, or hex with 0x; a leading zero is not octal
      const size_t d = (value[0] == '-' || value[0] == '+') ? 1 : 0;
      const bool hex = value.size() > d + 2 && value[d] == '0' && (value[d + 1] == 'x' || value[d + 1] == 'X');
      long long v = std::strtoll(value.c_str(), &end, hex ? 16 : 10);
      if (*end != '\0' || errno == ERANGE) throw bad("not an integer");
      if (v < s.imin || v > s.imax) throw bad("out of range");
      return std::to_string(v);
    }
    case SettingSpec::Kind::Real: {
      if (value.empty()) throw bad("not a number");
      errno = 0;
      char* end = nullptr;
      double v = std::strtod(value.c_str(), &end);
      if (*end != '\0' || errno == ERANGE || !std::isfinite(v)) throw bad("not a number");
      if (v < s.rmin || v > s.rmax) throw bad("out of range");
      return num(v);
    }
    case SettingSpec::Kind::Bool: {
      if (value == "true" || value == "1" || value == "on" || value == "yes") return "true";
      if (value == "false" || value == "0" || value == "off" || value == "no") return "false";
      throw bad("not a boolean");
    }
    case SettingSpec::Kind::Choice: {
      if (std::find(s.choices.begin(), s.choices.end(), value) == s.choices.end()) throw bad("not a choice");
      return value;
    }
    case SettingSpec::Kind::Text: {
      if (!std::regex_match(value, std::regex(s.pattern))) throw bad("not of an allowed form");
      return value;
    }
  }
  return value;
}

const SettingSpec& Settings::spec(const std::string& key) const {
  const SettingSpec* s = schema_.find(key);
  if (!s) throw UsageError(fmt::format("unknown setting '{}' for {} (allowed: {})", key, owner_, schema_.keys()));
  return *s;
}

void Settings::set(const std::string& key, const std::string& value) {
  const SettingSpec& s = spec(key);
  values_[key] = canonical(s, value, owner_);
  order_.erase(std::remove(order_.begin(), order_.end(), key), order_.end());
  order_.push_back(key);
}

void Settings::assign(const std::string& a) {
  auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(fmt::format("bad --set '{}': expected key=value (keys of {}: {})", a, owner_, schema_.keys()));
  set(a.substr(0, eq), a.substr(eq + 1));
}

int64_t Settings::i(const std::string& key) const {
  spec(key);
  return std::strtoll(values_.at(key).c_str(), nullptr, 10);
}
double Settings::r(const std::string& key) const {
  spec(key);
  return std::strtod(values_.at(key).c_str(), nullptr);
}
bool Settings::b(const std::string& key) const {
  spec(key);
  return values_.at(key) == "true";
}
const std::string& Settings::s(const std::string& key) const {
  spec(key);
  return values_.at(key);
}

bool Settings::is_default(const std::string& key) const {
  const SettingSpec& s = spec(key);  // first: an unknown key is a UsageError, not map::at
  return values_.at(key) == s.def;
}

bool Settings::was_set(const std::string& key) const {
  spec(key);
  return std::find(order_.begin(), order_.end(), key) != order_.end();
}

std::string Settings::overrides() const {
  std::string out;
  for (auto& k : order_) {
    if (is_default(k)) continue;
    out += (out.empty() ? "" : " ") + k + "=" + values_.at(k);
  }
  return out.empty() ? "defaults" : out;
}

nlohmann::json Settings::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (auto& s : schema_.specs()) {
    const std::string& v = values_.at(s.key);
    switch (s.kind) {
      case SettingSpec::Kind::Int: j[s.key] = std::strtoll(v.c_str(), nullptr, 10); break;
      case SettingSpec::Kind::Real: j[s.key] = std::strtod(v.c_str(), nullptr); break;
      case SettingSpec::Kind::Bool: j[s.key] = (v == "true"); break;
      case SettingSpec::Kind::Choice: j[s.key] = v; break;
      case SettingSpec::Kind::Text: j[s.key] = v; break;
    }
  }
  return j;
}

}  // namespace core
