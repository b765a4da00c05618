#include "common/redact.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace outboxd {
namespace {

struct SecretSpan {
  size_t begin;  // Raw bytes [begin, end) of the value as written in the conninfo.
  size_t end;
  std::string decoded;  // What libpq makes of it.
};

struct ConninfoScan {
  std::vector<SecretSpan> secrets;
  std::optional<size_t> malformed_at;  // Offset of the first token libpq would reject.
};

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoding as libpq's URI parser does it; an invalid escape is kept as written.
std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

bool IsUri(std::string_view conninfo) {
  return conninfo.starts_with("postgresql://") || conninfo.starts_with("postgres://");
}

// Mirrors libpq's conninfo_parse (fe-connect.c): blanks, keyword, optional blanks, '=',
// optional blanks, then a value that is either single-quoted or runs to the next blank, with
// backslash escapes in both.
ConninfoScan ScanKeywordValue(std::string_view s) {
  ConninfoScan scan;
  size_t i = 0;
  while (i < s.size()) {
    if (IsSpace(s[i])) {
      ++i;
      continue;
    }
    const size_t keyword_begin = i;
    while (i < s.size() && s[i] != '=' && !IsSpace(s[i])) ++i;
    const std::string_view keyword = s.substr(keyword_begin, i - keyword_begin);
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      scan.malformed_at = keyword_begin;
      return scan;
    }
    ++i;
    while (i < s.size() && IsSpace(s[i])) ++i;
    const size_t value_begin = i;
    std::string decoded;
    const bool quoted = i < s.size() && s[i] == '\'';
    if (quoted) ++i;
    bool closed = !quoted;
    while (i < s.size()) {
      if (!quoted && IsSpace(s[i])) break;
      if (s[i] == '\\') {
        if (++i < s.size()) decoded.push_back(s[i++]);
        continue;
      }
      if (quoted && s[i] == '\'') {
        ++i;
        closed = true;
        break;
      }
      decoded.push_back(s[i++]);
    }
    if (!closed) {
      scan.malformed_at = value_begin;
      return scan;
    }
    if (IsSecretKey(keyword)) scan.secrets.push_back({value_begin, i, std::move(decoded)});
  }
  return scan;
}

// The user:password@ part (up to the last '@' before any '?', more than libpq takes, so that a
// password with an unencoded '/' is masked too) and query parameters named like a secret.
ConninfoScan ScanUri(std::string_view s) {
  ConninfoScan scan;
  const size_t start = s.find("://") + 3;
  const size_t query = s.find('?', start);
  const std::string_view authority =
      s.substr(start, query == std::string_view::npos ? std::string_view::npos : query - start);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    const size_t colon = authority.find(':');
    if (colon != std::string_view::npos && colon < at) {
      scan.secrets.push_back({start + colon + 1, start + at,
                              PercentDecode(authority.substr(colon + 1, at - colon - 1))});
    }
  }
  if (query == std::string_view::npos) return scan;
  size_t i = query + 1;
  while (i <= s.size()) {
    size_t end = s.find('&', i);
    if (end == std::string_view::npos) end = s.size();
    const std::string_view param = s.substr(i, end - i);
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && IsSecretKey(PercentDecode(param.substr(0, eq)))) {
      scan.secrets.push_back({i + eq + 1, end, PercentDecode(param.substr(eq + 1))});
    }
    i = end + 1;
  }
  return scan;
}

ConninfoScan Scan(std::string_view conninfo) {
  return IsUri(conninfo) ? ScanUri(conninfo) : ScanKeywordValue(conninfo);
}

}  // namespace

bool IsSecretKey(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("password") != std::string::npos || lower.find("secret") != std::string::npos ||
         lower == "ssl.key.pem" || lower == "sasl.oauthbearer.config";
}

std::string_view RedactProperty(std::string_view name, std::string_view value) {
  return IsSecretKey(name) ? kRedacted : value;
}

std::string RedactConninfo(std::string_view conninfo) {
  const ConninfoScan scan = Scan(conninfo);
  std::string out;
  size_t copied = 0;
  for (const SecretSpan& span : scan.secrets) {
    out.append(conninfo.substr(copied, span.begin - copied)).append(kRedacted);
    copied = span.end;
  }
  if (scan.malformed_at) {
    out.append(conninfo.substr(copied, *scan.malformed_at - copied)).append(kRedacted);
  } else {
    out.append(conninfo.substr(copied));
  }
  return out;
}

std::vector<std::string> ConninfoSecrets(std::string_view conninfo) {
  const ConninfoScan scan = Scan(conninfo);
  std::vector<std::string> secrets;
  for (const SecretSpan& span : scan.secrets) {
    secrets.emplace_back(conninfo.substr(span.begin, span.end - span.begin));
    secrets.push_back(span.decoded);
  }
  if (scan.malformed_at) {
    std::string_view rest = conninfo.substr(*scan.malformed_at);
    size_t i = 0;
    while (i < rest.size()) {
      while (i < rest.size() && (IsSpace(rest[i]) || rest[i] == '=' || rest[i] == '\'')) ++i;
      size_t end = i;
      while (end < rest.size() && !IsSpace(rest[end]) && rest[end] != '=') ++end;
      if (end > i) secrets.emplace_back(rest.substr(i, end - i));
      i = end;
    }
  }
  return secrets;
}

void Redactor::Add(std::string_view secret) {
  if (secret.size() < kMinScrubLength) return;
  if (std::find(secrets_.begin(), secrets_.end(), secret) != secrets_.end()) return;
  secrets_.emplace_back(secret);
  std::stable_sort(secrets_.begin(), secrets_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

void Redactor::AddAll(const std::vector<std::string>& secrets) {
  for (const std::string& s : secrets) Add(s);
}

void Redactor::ForgetSecretsIn(std::string_view public_text) {
  std::erase_if(secrets_, [&](const std::string& secret) {
    return public_text.find(secret) != std::string_view::npos;
  });
}

std::string Redactor::Scrub(std::string_view text) const {
  std::string out(text);
  for (const std::string& secret : secrets_) {
    for (size_t pos = out.find(secret); pos != std::string::npos;
         pos = out.find(secret, pos + kRedacted.size())) {
      out.replace(pos, secret.size(), kRedacted);
    }
  }
  return out;
}

}  // namespace outboxd
