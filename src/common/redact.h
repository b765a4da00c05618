#pragma once
// Keeps secrets out of everything outboxd prints (logs, errors, `check` output): the one place
// that knows which configuration values are secret and how to mask them.
//
// Two layers: structural masking where a conninfo or a property is printed on purpose
// (RedactConninfo, RedactProperty), and a Redactor that scrubs the secret values themselves
// from any text, for messages from libpq or librdkafka that may echo parts of them.

#include <string>
#include <string_view>
#include <vector>

namespace outboxd {

inline constexpr std::string_view kRedacted = "********";

// True for a libpq keyword or librdkafka property whose value is a secret: any name containing
// "password" or "secret" (password, sslpassword, sasl.password, ssl.key.password,
// sasl.oauthbearer.client.secret, ...), plus ssl.key.pem (a private key) and
// sasl.oauthbearer.config (may hold a client secret). Case-insensitive.
bool IsSecretKey(std::string_view name);

// `value`, or kRedacted when `name` IsSecretKey. The result views `value` or a constant.
std::string_view RedactProperty(std::string_view name, std::string_view value);

// `conninfo` (libpq keyword=value string or postgres[ql]:// URI) with the value of every secret
// keyword (password, sslpassword; URI user:password and ?password=) replaced by kRedacted. A
// string libpq could not parse has everything from the first malformed token on masked too,
// since its words may belong to a password that lacked quotes.
std::string RedactConninfo(std::string_view conninfo);

// The secret values in `conninfo` as written and as libpq decodes them (backslash escapes,
// percent-encoding), plus the words after the first malformed token (libpq's parse errors echo
// them). For a Redactor.
std::vector<std::string> ConninfoSecrets(std::string_view conninfo);

// Replaces every occurrence of known secret values in a text. Values shorter than
// kMinScrubLength are ignored: scrubbing "x" would garble every line and hide nothing.
// Not thread-safe for Add; Scrub is const and safe from any thread once set up.
class Redactor {
 public:
  static constexpr size_t kMinScrubLength = 4;

  void Add(std::string_view secret);
  void AddAll(const std::vector<std::string>& secrets);
  // Forgets the secrets that occur in `public_text`, text printed on purpose anyway (a user
  // name, a masked conninfo): a password equal to the user name cannot be hidden by scrubbing,
  // and scrubbing it would garble every line naming the user.
  void ForgetSecretsIn(std::string_view public_text);
  bool empty() const { return secrets_.empty(); }
  // `text` with each known secret replaced by kRedacted.
  std::string Scrub(std::string_view text) const;

 private:
  std::vector<std::string> secrets_;  // Longest first, so a secret containing another wins.
};

}  // namespace outboxd
