#pragma once
// The shape of one Kafka record header, shared by the mapper that builds records and the
// producer that sends them.

#include <optional>
#include <string_view>

namespace outboxd {

struct Header {
  std::string_view name;
  std::optional<std::string_view> value;  // nullopt = a header with a null value.
  friend bool operator==(const Header&, const Header&) = default;
};

}  // namespace outboxd
