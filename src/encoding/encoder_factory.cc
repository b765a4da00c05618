#include "encoding/encoder_factory.h"

#include <chrono>
#include <random>

#include "encoding/encoder_parts.h"
#include "fmt/format.h"

namespace outboxd::encoding {

using outbox::Encoder;

std::string ProcessRunId() {
  static const std::string run_id = [] {
    // RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits.
    const auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    std::random_device device;
    std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device());
    const uint64_t high = (ms << 16) | 0x7000 | (random() & 0x0FFF);
    const uint64_t low = (random() & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                       high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFull);
  }();
  return run_id;
}

std::unique_ptr<const Encoder> CreateEncoder(const config::OutboxConfig& cfg, std::string run_id,
                                             SchemaIds* schema_ids) {
  switch (cfg.format) {
    case config::Format::kRaw:
      return internal::NewRawEncoder(cfg, std::move(run_id), schema_ids);
    case config::Format::kEnvelopeJson:
      return internal::NewEnvelopeJsonEncoder(cfg);
    case config::Format::kEnvelopeProtobuf:
      return internal::NewEnvelopeProtobufEncoder(cfg);
    case config::Format::kCloudEvents:
      return internal::NewCloudEventsEncoder(cfg);
  }
  return nullptr;  // Unreachable: the switch covers every Format.
}

}  // namespace outboxd::encoding
