#pragma once
// Reads the few fields outboxd needs from an STS Query-API XML answer. Not a general XML
// parser: STS answers are flat, machine-made documents whose text holds only the five
// predefined entities.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cloud/aws_credentials.h"

namespace outboxd::cloud {

// The unescaped text of the first <tag>...</tag> in `xml`; nullopt when absent.
std::optional<std::string> XmlText(std::string_view xml, std::string_view tag);

// The <Credentials> of an AssumeRole*Response. DataLoss when a field is missing or the
// expiration is not ISO 8601; the message never quotes the document (it holds secrets).
absl::StatusOr<AwsCredentials> ParseStsCredentials(std::string_view xml, std::string_view source);

// "<Code>: <Message>" of an STS <ErrorResponse>, or "HTTP <status>" when it has none.
std::string StsErrorSummary(std::string_view xml, int http_status);

}  // namespace outboxd::cloud
