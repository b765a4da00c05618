// AWS's published SigV4 test suite, byte for byte: canonical request, string to sign and
// signature, in the header form and the presigned (query) form. The vectors are those of
// AWS's own signer, awslabs/aws-c-auth tests/aws-signing-test-suite/v4/<name>/ (the header-*
// and query-* files; query forms use X-Amz-Expires=3600), plus the 2015 suite's
// post-x-www-form-urlencoded (docs.aws.amazon.com signature-v4-test-suite), which signs no
// x-amz-content-sha256 header.
#include "cloud/sigv4.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws_encoding.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

using ::testing::HasSubstr;

constexpr char kEmptyHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr char kFormHash[] = "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e";
constexpr char kPresignedScope[] =
    "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20150830%2Fus-east-1%2F"
    "service%2Faws4_request&X-Amz-Date=20150830T123600Z&X-Amz-Expires=3600";
constexpr char kSuiteSessionToken[] =
    "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";

AwsCredentials SuiteCredentials(std::string token = "") {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", std::move(token), std::nullopt,
          "test"};
}

SigningScope SuiteScope() {
  std::chrono::system_clock::time_point time;
  EXPECT_TRUE(ParseIso8601("2015-08-30T12:36:00Z", &time));
  return {"us-east-1", "service", time};
}

std::string StringToSign(std::string_view hash) {
  return Concat("AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n",
                hash);
}

std::string HeaderOf(const HeaderSignature& signature, std::string_view name) {
  for (const auto& [key, value] : signature.headers_to_add) {
    if (key == name) return value;
  }
  return "";
}

struct Vector {
  std::string name;
  SigningRequest request;
  std::string token;
  std::string header_canonical;
  std::string header_sts_hash;
  std::string header_signature;
  std::string query_canonical;  // Empty: the vector has no query form here.
  std::string query_sts_hash;
  std::string query_signature;
};

std::vector<Vector> Vectors() {
  const NameValues host = {{"Host", "example.amazonaws.com"}};
  const std::string date_headers =
      "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n";
  const std::string query_host = "&X-Amz-SignedHeaders=host\nhost:example.amazonaws.com\n\nhost\n";
  return {
      {"get-vanilla",
       {"GET", "/", {}, host},
       "",
       Concat("GET\n/\n\n", date_headers, kEmptyHash),
       "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
       "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
       Concat("GET\n/\n", kPresignedScope, query_host, kEmptyHash),
       "bb7705b4aa3cb8e8f5e1e0b3d4c0b64030797a313c8ceee43e33117cc43eadc5",
       "e93c787ed7f371d5c6b165c1b38ede9550f4dce4144713e844b25b7192d3865d"},
      {"get-vanilla-query-order-key-case",
       {"GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}, host},
       "",
       Concat("GET\n/\nParam1=value1&Param2=value2\n", date_headers, kEmptyHash),
       "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
       Concat("GET\n/\nParam1=value1&Param2=value2&", kPresignedScope, query_host, kEmptyHash),
       "",
       "86012e2c9ad4d77369f5d81c11f75158aae4f895a085212cc6d3f923d300bed5"},
      {"get-vanilla-query-order-encoded",
       {"GET", "/", {{"Param-3", "Value3"}, {"Param", "Value2"}, {"\xE1\x88\xB4", "Value1"}}, host},
       "",
       Concat("GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\n", date_headers, kEmptyHash),
       "868294f5c38bd141c4972a373a76654f1418a8e4fc18b2e7903ae45e8ae0ec71",
       "371d3713e185cc334048618a97f809c9ffe339c62934c032af5a0e595648fcac",
       "",
       "",
       ""},
      {"get-utf8",
       {"GET", "/\xE1\x88\xB4", {}, host},
       "",
       Concat("GET\n/%E1%88%B4\n\n", date_headers, kEmptyHash),
       "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
       "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85",
       Concat("GET\n/%E1%88%B4\n", kPresignedScope, query_host, kEmptyHash),
       "",
       "10eae3f14a260bd3911cc6d008d3c576d143b05b62f09782a7a4b37f52178e44"},
      {"get-vanilla-with-session-token",
       {"GET", "/", {}, host},
       kSuiteSessionToken,
       Concat("GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n"
              "x-amz-security-token:",
              kSuiteSessionToken, "\n\nhost;x-amz-date;x-amz-security-token\n", kEmptyHash),
       "067b36aa60031588cea4a4cde1f21215227a047690c72247f1d70b32fbbfad2b",
       "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8",
       Concat("GET\n/\n", kPresignedScope, "&X-Amz-Security-Token=", kSuiteSessionToken, query_host,
              kEmptyHash),
       "cb30434103085aa9e73780fc60dc9a9df818fd2a7b1de12a9f6f4d791f898761",
       "7ff2b50b376cb4d151970630573d6291dc128cc5c2a12ffb237f73cc53f67b6c"},
      {"post-x-www-form-urlencoded (2015 suite)",
       {"POST",
        "/",
        {},
        {{"Content-Type", "application/x-www-form-urlencoded"}, {"Host", "example.amazonaws.com"}},
        kFormHash},
       "",
       Concat("POST\n/\n\ncontent-type:application/x-www-form-urlencoded\n"
              "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
              "content-type;host;x-amz-date\n",
              kFormHash),
       "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281",
       "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a",
       "",
       "",
       ""},
      {"post-x-www-form-urlencoded",
       {"POST",
        "/",
        {},
        {{"Content-Type", "application/x-www-form-urlencoded"},
         {"Host", "example.amazonaws.com"},
         {"Content-Length", "13"},
         {"x-amz-content-sha256", kFormHash}},
        kFormHash},
       "",
       Concat("POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\n"
              "host:example.amazonaws.com\nx-amz-content-sha256:",
              kFormHash, "\nx-amz-date:20150830T123600Z\n\n",
              "content-length;content-type;host;x-amz-content-sha256;x-amz-date\n", kFormHash),
       "b1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb",
       "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b",
       "",
       "",
       ""},
  };
}

TEST(SigV4Test, HeaderFormMatchesTheSuite) {
  for (const Vector& vector : Vectors()) {
    SCOPED_TRACE(vector.name);
    const auto signed_request =
        SignWithHeaders(vector.request, SuiteCredentials(vector.token), SuiteScope());
    ASSERT_TRUE(signed_request.ok()) << signed_request.status();
    EXPECT_EQ(signed_request->trace.canonical_request, vector.header_canonical);
    EXPECT_EQ(signed_request->trace.string_to_sign, StringToSign(vector.header_sts_hash));
    EXPECT_EQ(signed_request->trace.signature, vector.header_signature);
    const std::string signed_headers = vector.header_canonical.substr(
        vector.header_canonical.rfind("\n\n") + 2, std::string::npos);
    EXPECT_EQ(HeaderOf(*signed_request, "Authorization"),
              Concat("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
                     "aws4_request, SignedHeaders=",
                     signed_headers.substr(0, signed_headers.find('\n')),
                     ", Signature=", vector.header_signature));
    EXPECT_EQ(HeaderOf(*signed_request, "X-Amz-Date"), "20150830T123600Z");
    EXPECT_EQ(HeaderOf(*signed_request, "X-Amz-Security-Token"), vector.token);
  }
}

TEST(SigV4Test, QueryFormMatchesTheSuite) {
  int checked = 0;
  for (const Vector& vector : Vectors()) {
    if (vector.query_canonical.empty()) continue;
    SCOPED_TRACE(vector.name);
    const auto presigned = Presign(vector.request, SuiteCredentials(vector.token), SuiteScope(),
                                   std::chrono::seconds(3600));
    ASSERT_TRUE(presigned.ok()) << presigned.status();
    EXPECT_EQ(presigned->trace.canonical_request, vector.query_canonical);
    if (!vector.query_sts_hash.empty()) {
      EXPECT_EQ(presigned->trace.string_to_sign, StringToSign(vector.query_sts_hash));
    }
    EXPECT_EQ(presigned->trace.signature, vector.query_signature);
    EXPECT_THAT(presigned->query_string,
                HasSubstr(Concat("&X-Amz-Signature=", vector.query_signature)));
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(SigV4Test, PresignedQueryKeepsTheRequestOrderThenTheAuthParameters) {
  const SigningRequest request{"GET", "/", {{"b", "2"}, {"a", "x y/z"}}, {{"host", "h"}}};
  const auto presigned =
      Presign(request, SuiteCredentials("t/k+n="), SuiteScope(), std::chrono::seconds(900));
  ASSERT_TRUE(presigned.ok()) << presigned.status();
  EXPECT_EQ(presigned->query_string,
            Concat("b=2&a=x%20y%2Fz&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE"
                   "%2F20150830%2Fus-east-1%2Fservice%2Faws4_request&X-Amz-Date=20150830T123600Z&"
                   "X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token=t%2Fk%2Bn%3D&"
                   "X-Amz-Signature=",
                   presigned->trace.signature));
}

TEST(SigV4Test, HeaderValuesAreTrimmedAndDuplicatesJoined) {
  const SigningRequest request{
      "GET",
      "/",
      {},
      {{"Host", "example.amazonaws.com"}, {"My-Header1", "  a   b  "}, {"my-header1", "c"}}};
  const auto signed_request = SignWithHeaders(request, SuiteCredentials(), SuiteScope());
  ASSERT_TRUE(signed_request.ok()) << signed_request.status();
  EXPECT_THAT(signed_request->trace.canonical_request, HasSubstr("\nmy-header1:a b,c\n"));
}

TEST(SigV4Test, RefusesWhatCannotBeSigned) {
  const SigningRequest request{"GET", "/", {}, {{"host", "h"}}};
  SigningScope no_region = SuiteScope();
  no_region.region.clear();
  EXPECT_THAT(SignWithHeaders(request, SuiteCredentials(), no_region).status().message(),
              HasSubstr("region"));
  AwsCredentials no_secret = SuiteCredentials();
  no_secret.secret_access_key.clear();
  EXPECT_EQ(SignWithHeaders(request, no_secret, SuiteScope()).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      SignWithHeaders({"GET", "/", {}, {}}, SuiteCredentials(), SuiteScope()).status().message(),
      HasSubstr("host"));
  EXPECT_EQ(Presign(request, SuiteCredentials(), SuiteScope(), std::chrono::hours(24 * 8))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace outboxd::cloud
