#include "cloud/sts_xml.h"

#include "cloud/aws_encoding.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

std::string Unescape(std::string_view text) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  while (!text.empty()) {
    bool replaced = false;
    if (text.front() == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (text.starts_with(entity)) {
          out.push_back(c);
          text.remove_prefix(entity.size());
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) {
      out.push_back(text.front());
      text.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> XmlText(std::string_view xml, std::string_view tag) {
  const std::string open = Concat("<", tag, ">");
  const std::string close = Concat("</", tag, ">");
  const size_t start = xml.find(open);
  if (start == std::string_view::npos) return std::nullopt;
  const size_t end = xml.find(close, start + open.size());
  if (end == std::string_view::npos) return std::nullopt;
  return Unescape(xml.substr(start + open.size(), end - start - open.size()));
}

absl::StatusOr<AwsCredentials> ParseStsCredentials(std::string_view xml, std::string_view source) {
  const auto credentials_xml = XmlText(xml, "Credentials");
  if (!credentials_xml) {
    return absl::DataLossError(Concat(source, ": the STS answer has no <Credentials>"));
  }
  AwsCredentials credentials;
  credentials.source = std::string(source);
  std::string expiration;
  for (const auto& [tag, field] : {std::pair{"AccessKeyId", &credentials.access_key_id},
                                   std::pair{"SecretAccessKey", &credentials.secret_access_key},
                                   std::pair{"SessionToken", &credentials.session_token},
                                   std::pair{"Expiration", &expiration}}) {
    auto text = XmlText(*credentials_xml, tag);
    if (!text || text->empty()) {
      return absl::DataLossError(
          Concat(source, ": the STS answer's <Credentials> has no <", tag, ">"));
    }
    *field = std::move(*text);
  }
  std::chrono::system_clock::time_point when;
  if (!ParseIso8601(expiration, &when)) {
    return absl::DataLossError(
        Concat(source, ": the STS <Expiration> \"", expiration, "\" is not ISO 8601"));
  }
  credentials.expiration = when;
  return credentials;
}

std::string StsErrorSummary(std::string_view xml, int http_status) {
  const auto code = XmlText(xml, "Code");
  if (!code) return Concat("HTTP ", http_status);
  return Concat(*code, ": ", XmlText(xml, "Message").value_or("(no message)"), " (HTTP ",
                http_status, ")");
}

}  // namespace outboxd::cloud
