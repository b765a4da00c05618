#include "cloud/aws_encoding.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>

#include "common/strings.h"

namespace outboxd::cloud {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

std::string FormatUtc(std::chrono::system_clock::time_point time, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[32];
  const size_t length = std::strftime(buffer, sizeof(buffer), format, &parts);
  return std::string(buffer, length);
}

}  // namespace

std::string Sha256(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string HexEncode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const unsigned char c : bytes) {
    out.push_back(kHexDigits[c >> 4]);
    out.push_back(kHexDigits[c & 0xf]);
  }
  return out;
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  std::string out;
  out.reserve(text.size());
  for (const unsigned char c : text) {
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kUpperHexDigits[c >> 4]);
      out.push_back(kUpperHexDigits[c & 0xf]);
    }
  }
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                     reinterpret_cast<const unsigned char*>(bytes.data()),
                                     static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(length));
  return out;
}

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out = Base64Encode(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  return FormatUtc(time, "%Y%m%dT%H%M%SZ");
}

std::string AmzDateStamp(std::chrono::system_clock::time_point time) {
  return FormatUtc(time, "%Y%m%d");
}

std::string Iso8601(std::chrono::system_clock::time_point time) {
  return FormatUtc(time, "%Y-%m-%dT%H:%M:%SZ");
}

bool ParseIso8601(std::string_view text, std::chrono::system_clock::time_point* out) {
  // YYYY-MM-DDTHH:MM:SS, then optional .fraction, then Z or +00:00.
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return false;
  }
  const auto year = ParseInt<int>(text.substr(0, 4));
  const auto month = ParseInt<unsigned>(text.substr(5, 2));
  const auto day = ParseInt<unsigned>(text.substr(8, 2));
  const auto hour = ParseInt<int>(text.substr(11, 2));
  const auto minute = ParseInt<int>(text.substr(14, 2));
  const auto second = ParseInt<int>(text.substr(17, 2));
  if (!year || !month || !day || !hour || !minute || !second) return false;
  std::string_view rest = text.substr(19);
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest.front() >= '0' && rest.front() <= '9') rest.remove_prefix(1);
  }
  if (rest != "Z" && rest != "+00:00") return false;
  const std::chrono::year_month_day date{std::chrono::year(*year), std::chrono::month(*month),
                                         std::chrono::day(*day)};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) return false;
  *out = std::chrono::sys_days(date) + std::chrono::hours(*hour) + std::chrono::minutes(*minute) +
         std::chrono::seconds(*second);
  return true;
}

}  // namespace outboxd::cloud
