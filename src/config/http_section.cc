// [http]: where the status server (/metrics, /healthz, /readyz) listens; off when empty.

#include "common/host_port.h"
#include "common/status.h"
#include "config/sections.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kHttpKeys[] = {"listen"};
constexpr std::string_view kListenExample = R"(listen = "127.0.0.1:8587")";
constexpr std::string_view kParserPrefix = "listen address ";

}  // namespace

absl::Span<const std::string_view> HttpKeys() { return kHttpKeys; }

absl::Status ReadHttp(const SectionReader& reader, HttpConfig& out) {
  if (auto s = reader.CheckKnownKeys(kHttpKeys); !s.ok()) return s;
  if (auto s = reader.ReadString("listen", kListenExample, out.listen); !s.ok()) return s;
  if (out.listen.empty()) return absl::OkStatus();  // Off.
  absl::StatusOr<HostPort> address = ParseHostPort(out.listen);
  if (address.ok()) return absl::OkStatus();
  // ParseHostPort says `listen address "<text>" <problem>; <fix>`: keep the last two parts.
  std::string_view message = MessageOf(address.status());
  if (message.starts_with(kParserPrefix)) message.remove_prefix(kParserPrefix.size());
  const size_t split = message.find("; ");
  return reader.Error(
      "listen", message.substr(0, split),
      fmt::format("{}; listen = \"\" turns the server off",
                  split == std::string_view::npos ? kListenExample : message.substr(split + 2)));
}

}  // namespace outboxd::config::internal
