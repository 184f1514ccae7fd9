#include "cosim/pdu_cmd.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "core/settings.hpp"
#include "sue/crc.hpp"
#include "sue/encap.hpp"
#include "sue/fields.hpp"

namespace cosim {

namespace {

using core::UsageError;

/// Arguments CLI11 did not recognise: one line naming the first and the options the command takes.
void reject_extras(const CLI::App* cmd, const std::string& path, const std::string& options) {
  const std::vector<std::string> extra = cmd->remaining();
  if (extra.empty()) return;
  throw UsageError(fmt::format("unexpected argument '{}' for '{}' (allowed options: {}; {} --help)", extra.front(),
                               path, options, path));
}

/// When a frame fails to decode, what would make it decode: the other profile (frames do not say
/// which), or an FCS the hex lacks (a wave may show the frame without it).
std::string hint(const sue::Bytes& bytes, const sue::DecodeOptions& opt) {
  sue::DecodeOptions other = opt;
  other.profile = opt.profile == sue::Profile::Sue ? sue::Profile::SueLite : sue::Profile::Sue;
  if (sue::decode(bytes, other).ok())
    return fmt::format("; it decodes with --profile {}", sue::profile_name(other.profile));
  sue::Bytes with_fcs = bytes;
  const uint32_t fcs = sue::fcs32(bytes.data(), bytes.size());
  for (int i = 0; i < 4; ++i) with_fcs.push_back(static_cast<uint8_t>(fcs >> (8 * i)));
  for (const sue::DecodeOptions& o : {opt, other})
    if (bytes.size() >= 4 && sue::decode(with_fcs, o).ok())
      return fmt::format("; it decodes as a frame without its FCS{}: append {}",
                         o.profile == opt.profile ? "" : fmt::format(" with --profile {}", sue::profile_name(o.profile)),
                         sue::to_hex(sue::Bytes(with_fcs.end() - 4, with_fcs.end())));
  return "";
}

}  // namespace

PduCommand::PduCommand(CLI::App& app) {
  pdu_ = app.add_subcommand("pdu", "SUE frames: cosim pdu encode [options] | cosim pdu decode <hex>");
  pdu_->allow_extras();

  encode_ = pdu_->add_subcommand("encode", "build a SUE frame from fields and print it as hex (FCS included)");
  encode_->allow_extras();
  encode_->add_option("--profile", encode_profile_, "sue (RH + R-CRC) or sue_lite (default sue)");
  encode_->add_option("--encap", encode_encap_, "std (Ethernet/IP/UDP), afh1, afh2_6 or afh2_12 (default std)");
  encode_->add_option("--field", fields_,
                      "name=value, repeatable; names: the ones `cosim pdu decode` prints (cmd=HEX adds one "
                      "packed command); docs/sue.md lists them");

  decode_ = pdu_->add_subcommand("decode", "dissect a frame given in hex (FCS included): one name = value per line");
  decode_->allow_extras();
  decode_->add_option("--profile", decode_profile_, "sue or sue_lite (default sue): frames do not say which");
  decode_->add_option("--encap", decode_encap_, "auto (default: from the DA and the Ethertype), std, afh1, afh2_6, "
                                                "afh2_12");
  decode_->add_option("hex", hex_, "the frame in hex; spaces, ':', '_', '-' and 0x prefixes are ignored");
}

bool PduCommand::parsed() const { return pdu_->parsed(); }

int PduCommand::run() const {
  if (encode_->parsed()) {
    reject_extras(encode_, "cosim pdu encode", "--profile, --encap, --field");
    const sue::Profile p = sue::parse_profile(encode_profile_);
    const sue::Encap e = sue::parse_encap(encode_encap_);
    sue::FrameBuilder b(p, e);
    for (const std::string& f : fields_) b.assign(f);
    sue::Result<sue::Bytes> frame = sue::encode(b.frame());
    if (!frame) throw UsageError("pdu encode: " + frame.error().message());
    std::cout << sue::to_hex(frame.value()) << "\n";
    return 0;
  }
  if (decode_->parsed()) {
    reject_extras(decode_, "cosim pdu decode", "--profile, --encap");
    const sue::Profile p = sue::parse_profile(decode_profile_);
    sue::DecodeOptions opt{p, std::nullopt};
    if (decode_encap_ != "auto") {
      try {
        opt.encap = sue::parse_encap(decode_encap_);
      } catch (const UsageError&) {
        throw UsageError(fmt::format("unknown encap '{}' (allowed: auto, {})", decode_encap_, sue::encap_names()));
      }
    }
    if (hex_.empty())
      throw UsageError("pdu decode needs a frame in hex, FCS included (e.g. cosim pdu decode $(cosim pdu encode))");
    std::string text;
    for (const std::string& h : hex_) text += h + " ";
    const sue::Bytes bytes = sue::parse_hex(text);
    sue::Result<sue::Decoded> d = sue::decode(bytes, opt);
    if (!d)
      throw UsageError(fmt::format("pdu decode: {} ({}-byte frame, --profile {}, --encap {}{})", d.error().message(),
                                   bytes.size(), sue::profile_name(p), decode_encap_, hint(bytes, opt)));
    for (const auto& [name, value] : sue::describe(d.value())) std::cout << name << " = " << value << "\n";
    return 0;
  }
  const std::vector<std::string> extra = pdu_->remaining();
  if (!extra.empty())
    throw UsageError(fmt::format("unknown pdu command '{}' (allowed: encode, decode; cosim pdu --help)", extra.front()));
  throw UsageError("cosim pdu needs a command (allowed: encode, decode; cosim pdu --help)");
}

}  // namespace cosim
