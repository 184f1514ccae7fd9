// `cosim pdu`: the SUE encapsulation at the command line (docs/sue.md, "The pdu command").
//   cosim pdu encode [--profile sue|sue_lite] [--encap std|afh1|afh2_6|afh2_12] [--field name=value]...
//       prints the frame, FCS included, as one line of hex
//   cosim pdu decode [--profile sue|sue_lite] [--encap auto|std|afh1|afh2_6|afh2_12] HEX...
//       prints every field of the frame, one `name = value` per line
// Bad input (unknown profile, encap or field, bad value, bad hex, malformed frame) throws
// core::UsageError: one line naming what is wrong and the allowed values, exit code 2.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace cosim {

class PduCommand {
 public:
  /// Registers `pdu` and its commands on the application. Keep the object alive (and in place)
  /// until run(): the options write into it.
  explicit PduCommand(CLI::App& app);
  PduCommand(const PduCommand&) = delete;
  PduCommand& operator=(const PduCommand&) = delete;

  bool parsed() const;
  int run() const;

 private:
  CLI::App* pdu_ = nullptr;
  CLI::App* encode_ = nullptr;
  CLI::App* decode_ = nullptr;
  std::string encode_profile_ = "sue", encode_encap_ = "std";
  std::string decode_profile_ = "sue", decode_encap_ = "auto";
  std::vector<std::string> fields_, hex_;
};

}  // namespace cosim
