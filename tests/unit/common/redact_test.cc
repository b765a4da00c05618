// Redaction: structural masking of conninfo strings and properties, and scrubbing of secret
// values from free text. Cross-checked against libpq's own parser (PQconninfoParse), so the
// password libpq would use is the one that gets masked.

#include "common/redact.h"

#include <libpq-fe.h>

#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// The password libpq parses out of `conninfo`, nullopt when none or when libpq rejects it.
std::optional<std::string> LibpqPassword(const std::string& conninfo) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (error != nullptr) PQfreemem(error);
  if (options == nullptr) return std::nullopt;
  std::optional<std::string> password;
  for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (std::string(o->keyword) == "password" && o->val != nullptr) password = o->val;
  }
  PQconninfoFree(options);
  return password;
}

struct Case {
  std::string conninfo;
  std::string password;  // As libpq decodes it.
};

const Case kCases[] = {
    {"host=db user=app password=hunter2x", "hunter2x"},
    {"host=db password = 'two words here' user=app", "two words here"},
    {"password='it\\'s a secret' host=db", "it's a secret"},
    {"password=back\\slashed host=db", "backslashed"},
    {"host=db\tpassword=tabbed99\nuser=app", "tabbed99"},
    {"postgresql://app:p%40ss%2Fword@db:5432/app", "p@ss/word"},
    {"postgres://app:plainpass@db/app?sslmode=require", "plainpass"},
    {"postgresql://app@db/app?password=querypass&sslmode=disable", "querypass"},
    {"postgresql://app@db/app?sslmode=disable&password=last%20one", "last one"},
};

TEST(RedactConninfoTest, MasksWhatLibpqTakesAsThePassword) {
  for (const Case& c : kCases) {
    ASSERT_EQ(LibpqPassword(c.conninfo), c.password) << c.conninfo;  // The case is right.
    const std::string redacted = RedactConninfo(c.conninfo);
    EXPECT_THAT(redacted, Not(HasSubstr(c.password))) << c.conninfo;
    EXPECT_THAT(redacted, HasSubstr(std::string(kRedacted))) << c.conninfo;
    EXPECT_THAT(ConninfoSecrets(c.conninfo), Contains(c.password)) << c.conninfo;
  }
}

TEST(RedactConninfoTest, KeepsEverythingElse) {
  EXPECT_EQ(RedactConninfo("host=db port=5432 user=app password=s3cretpw dbname=app"),
            "host=db port=5432 user=app password=******** dbname=app");
  EXPECT_EQ(RedactConninfo("host=db sslpassword='key pass' sslmode=verify-full"),
            "host=db sslpassword=******** sslmode=verify-full");
  EXPECT_EQ(RedactConninfo("postgresql://app:pw%40x@db:5432/app?sslmode=require"),
            "postgresql://app:********@db:5432/app?sslmode=require");
  EXPECT_EQ(RedactConninfo("host=db user=app"), "host=db user=app");
  EXPECT_EQ(RedactConninfo("postgresql://app@db/app"), "postgresql://app@db/app");
}

TEST(RedactConninfoTest, MasksTheRestOfAStringLibpqCannotParse) {
  // An unquoted password with a space: libpq takes "my" and then fails on "secret words",
  // echoing "secret" in its error.
  const std::string bad = "host=db password=my secret words";
  EXPECT_EQ(LibpqPassword(bad), std::nullopt);
  EXPECT_EQ(RedactConninfo(bad), "host=db password=******** ********");
  EXPECT_THAT(ConninfoSecrets(bad), Contains("secret"));
  EXPECT_THAT(ConninfoSecrets(bad), Contains("words"));
  EXPECT_EQ(RedactConninfo("host=db password='unterminated"), "host=db password=********");
}

TEST(RedactConninfoTest, UriWithUnencodedSlashInPasswordIsStillMasked) {
  const std::string uri = "postgresql://app:pa/ss@db/app";
  EXPECT_THAT(RedactConninfo(uri), Not(HasSubstr("pa/ss")));
  EXPECT_THAT(ConninfoSecrets(uri), Contains("pa/ss"));
}

TEST(IsSecretKeyTest, KnowsPasswordsKeysAndSecrets) {
  for (const char* name : {"password", "sslpassword", "sasl.password", "ssl.key.password",
                           "ssl.keystore.password", "sasl.oauthbearer.client.secret", "ssl.key.pem",
                           "sasl.oauthbearer.config", "SASL.PASSWORD"}) {
    EXPECT_TRUE(IsSecretKey(name)) << name;
  }
  for (const char* name : {"bootstrap.servers", "sasl.username", "sasl.mechanism",
                           "ssl.ca.location", "ssl.certificate.pem", "user", "host"}) {
    EXPECT_FALSE(IsSecretKey(name)) << name;
  }
  EXPECT_EQ(RedactProperty("sasl.password", "kafkapw"), kRedacted);
  EXPECT_EQ(RedactProperty("sasl.username", "outboxd"), "outboxd");
}

TEST(RedactorTest, ScrubsEveryOccurrenceLongestFirst) {
  Redactor redactor;
  redactor.Add("hunter2");
  redactor.Add("hunter2hunter2");
  EXPECT_EQ(redactor.Scrub("a hunter2hunter2 b hunter2 c"), "a ******** b ******** c");
  EXPECT_EQ(redactor.Scrub("nothing here"), "nothing here");
}

TEST(RedactorTest, IgnoresTooShortSecretsAndForgetsPublicOnes) {
  Redactor redactor;
  redactor.Add("x");
  EXPECT_TRUE(redactor.empty());
  redactor.AddAll({"outboxd", "t0ps3cret"});
  redactor.ForgetSecretsIn("host=db user=outboxd password=********");
  EXPECT_EQ(redactor.Scrub("user outboxd password t0ps3cret"), "user outboxd password ********");
}

TEST(RedactorTest, ScrubsSecretsEchoedInALibpqError) {
  const std::string conninfo = "host=db password=my secret";
  Redactor redactor;
  redactor.AddAll(ConninfoSecrets(conninfo));
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  ASSERT_EQ(options, nullptr);
  ASSERT_NE(error, nullptr);
  const std::string message = error;
  PQfreemem(error);
  ASSERT_THAT(message, HasSubstr("secret"));                       // libpq does echo it...
  EXPECT_THAT(redactor.Scrub(message), Not(HasSubstr("secret")));  // ...the redactor does not.
}

}  // namespace
}  // namespace outboxd
