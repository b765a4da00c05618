#pragma once
// The byte-level helpers SigV4 and the token makers share: SHA-256 and HMAC-SHA256 (OpenSSL),
// lower-case hex, the RFC 3986 percent-encoding AWS signs, base64url, and the two timestamp
// forms AWS uses. Pure; thread-safe.

#include <chrono>
#include <string>
#include <string_view>

namespace outboxd::cloud {

// The 32 raw bytes of SHA-256(`data`).
std::string Sha256(std::string_view data);
// The 32 raw bytes of HMAC-SHA256 keyed by `key` over `data`.
std::string HmacSha256(std::string_view key, std::string_view data);
// Lower-case hex of `bytes`, two digits per byte.
std::string HexEncode(std::string_view bytes);

// `text` with every byte outside A-Z a-z 0-9 - _ . ~ written as %XX (upper-case hex), as SigV4
// encodes query names and values. With `keep_slash`, '/' stays (a URI path).
std::string UriEncode(std::string_view text, bool keep_slash = false);

// Base64 with the URL-safe alphabet (- and _) and no '=' padding (RFC 4648 section 5).
std::string Base64UrlEncode(std::string_view bytes);
// Standard base64 (+ /, padded), as HTTP Basic or PEM use it.
std::string Base64Encode(std::string_view bytes);

// "20150830T123600Z": ISO 8601 basic UTC, SigV4's X-Amz-Date.
std::string AmzDate(std::chrono::system_clock::time_point time);
// "20150830": the date part of a SigV4 credential scope.
std::string AmzDateStamp(std::chrono::system_clock::time_point time);
// "2015-08-30T12:36:00Z": ISO 8601 extended UTC, whole seconds, for logs and `check`.
std::string Iso8601(std::chrono::system_clock::time_point time);
// Parses ISO 8601 UTC as AWS answers it ("2026-12-07T18:00:00Z", with optional fractional
// seconds, or a "+00:00" offset). False on anything else.
bool ParseIso8601(std::string_view text, std::chrono::system_clock::time_point* out);

}  // namespace outboxd::cloud
