// Typed, validated run settings (`cosim run <tb> --set key=value`).
// A testbench declares its keys in a Schema; Settings holds one value per key.
// Every error is one line naming the key, the bad value and the allowed values.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace core {

/// Bad input: the message is the one line the user sees (exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SettingSpec {
  enum class Kind { Int, Real, Bool, Choice, Text };
  std::string key;
  Kind kind = Kind::Int;
  std::string def;  ///< default, as text
  int64_t imin = 0, imax = 0;
  double rmin = 0, rmax = 0;
  std::vector<std::string> choices;
  std::string pattern;      ///< Text: ECMAScript regex the whole value must match
  std::string pattern_doc;  ///< Text: the allowed values in words, e.g. "none|P@cycle"
  std::string help;
  /// "1..32", "0.05..1", "true|false", "rtl|model", or a Text's pattern_doc
  std::string allowed() const;
};

class Schema {
 public:
  Schema& add_int(const std::string& key, int64_t def, int64_t min, int64_t max, const std::string& help);
  Schema& add_real(const std::string& key, double def, double min, double max, const std::string& help);
  Schema& add_bool(const std::string& key, bool def, const std::string& help);
  Schema& add_choice(const std::string& key, const std::string& def, const std::vector<std::string>& choices,
                     const std::string& help);
  /// Free text that must match `pattern` (whole value); `doc` names the allowed forms in errors.
  Schema& add_text(const std::string& key, const std::string& def, const std::string& pattern, const std::string& doc,
                   const std::string& help);
  const SettingSpec* find(const std::string& key) const;
  const std::vector<SettingSpec>& specs() const { return specs_; }
  std::string keys() const;  ///< "a, b, c"

 private:
  std::vector<SettingSpec> specs_;
  SettingSpec& add(SettingSpec s);
};

class Settings {
 public:
  Settings() = default;
  /// All keys at their defaults; `owner` names the testbench in error messages.
  Settings(const Schema& schema, std::string owner);

  /// "key=value"; throws UsageError on unknown key or bad value.
  void assign(const std::string& assignment);
  void set(const std::string& key, const std::string& value);

  int64_t i(const std::string& key) const;
  double r(const std::string& key) const;
  bool b(const std::string& key) const;
  const std::string& s(const std::string& key) const;

  bool is_default(const std::string& key) const;
  /// The key was given (set() or assign()), even to its default value.
  bool was_set(const std::string& key) const;
  /// Keys set away from their default, "k=v k=v", or "defaults".
  std::string overrides() const;
  /// All keys with typed values.
  nlohmann::json to_json() const;
  const Schema& schema() const { return schema_; }

 private:
  Schema schema_;
  std::string owner_;
  std::map<std::string, std::string> values_;  // canonical text
  std::vector<std::string> order_;             // assignment order of overrides
  const SettingSpec& spec(const std::string& key) const;
  static std::string canonical(const SettingSpec& s, const std::string& value, const std::string& owner);
};

}  // namespace core
