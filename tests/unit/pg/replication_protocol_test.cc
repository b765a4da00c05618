#include "pg/replication_protocol.h"

#include "gtest/gtest.h"
#include "pg/connection.h"
#include "support/pgoutput_encoder.h"

namespace outboxd::pg {
namespace {

using testing::WireWriter;

TEST(ReplicationProtocolTest, ParsesXLogData) {
  const std::string bytes =
      WireWriter().Byte('w').Int64(0x10).Int64(0x20).Int64(123).Raw("payload").Take();
  auto message = ParseCopyMessage(bytes);
  ASSERT_TRUE(message.ok()) << message.status();
  const auto& xlog = std::get<XLogData>(*message);
  EXPECT_EQ(xlog.wal_start, Lsn(0x10));
  EXPECT_EQ(xlog.wal_end, Lsn(0x20));
  EXPECT_EQ(xlog.send_time_us, 123);
  EXPECT_EQ(xlog.data, "payload");
}

TEST(ReplicationProtocolTest, ParsesKeepalive) {
  const std::string bytes = WireWriter().Byte('k').Int64(0xABCDEF).Int64(9).Byte(1).Take();
  auto message = ParseCopyMessage(bytes);
  ASSERT_TRUE(message.ok()) << message.status();
  const auto& keepalive = std::get<Keepalive>(*message);
  EXPECT_EQ(keepalive.wal_end, Lsn(0xABCDEF));
  EXPECT_EQ(keepalive.send_time_us, 9);
  EXPECT_TRUE(keepalive.reply_requested);
}

TEST(ReplicationProtocolTest, RejectsTruncatedAndUnknownMessages) {
  const std::string keepalive = WireWriter().Byte('k').Int64(1).Int64(2).Byte(0).Take();
  for (size_t n = 0; n < keepalive.size(); ++n) {
    EXPECT_EQ(ParseCopyMessage(keepalive.substr(0, n)).status().code(), absl::StatusCode::kDataLoss)
        << n;
  }
  EXPECT_EQ(ParseCopyMessage(keepalive + "x").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(ParseCopyMessage(std::string(25, 'w').substr(0, 24)).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(ParseCopyMessage("z123").status().code(), absl::StatusCode::kDataLoss);
}

TEST(ReplicationProtocolTest, EncodesStandbyStatusWithFlushAsApply) {
  const std::string status = EncodeStandbyStatus(Lsn(0x30), Lsn(0x20), 77, false);
  const std::string expected =
      WireWriter().Byte('r').Int64(0x30).Int64(0x20).Int64(0x20).Int64(77).Byte(0).Take();
  EXPECT_EQ(status, expected);
}

TEST(ConnectionErrorTest, ClassifiesRetriableAndFatalServerErrors) {
  EXPECT_TRUE(absl::IsUnavailable(ClassifyServerError("55006", "slot is active")));
  EXPECT_TRUE(absl::IsUnavailable(ClassifyServerError("57P01", "terminating connection")));
  EXPECT_TRUE(absl::IsUnavailable(ClassifyServerError("08006", "connection failure")));
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyServerError("42501", "permission denied")));
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyServerError("28P01", "bad password")));
  EXPECT_TRUE(absl::IsFailedPrecondition(ClassifyServerError("55000", "wal_level")));
  EXPECT_TRUE(absl::IsFailedPrecondition(ClassifyServerError("42704", "no such slot")));
}

TEST(ConnectionErrorTest, RetryOrStopFollowsLibpqsVerdictOnTheServer) {
  EXPECT_TRUE(absl::IsUnavailable(ClassifyConnectError(PQPING_NO_RESPONSE, "Connection refused")));
  EXPECT_TRUE(absl::IsUnavailable(
      ClassifyConnectError(PQPING_REJECT, "FATAL:  the database system is starting up")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      ClassifyConnectError(PQPING_NO_ATTEMPT, "invalid connection option \"hots\"")));
  // The server answered and refused: whatever it said, in whatever language, do not retry.
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError(PQPING_OK, "FATAL:  password authentication failed for user \"x\"")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError(PQPING_OK, "FATAL:  role \"x\" is not permitted to log in")));
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyConnectError(
      PQPING_OK, "FATAL:  Passwort-Authentifizierung für Benutzer »x« fehlgeschlagen")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError(PQPING_OK, "FATAL:  role \"ghost\" does not exist")));
  EXPECT_TRUE(absl::IsInvalidArgument(
      ClassifyConnectError(PQPING_OK, "FATAL:  database \"nope\" does not exist")));
  EXPECT_TRUE(absl::IsUnavailable(
      ClassifyConnectError(PQPING_OK, "FATAL:  sorry, too many clients already")));
}

// libpq 15's wording of each TLS failure (as tests/secure sees it from a real server).
TEST(ConnectionErrorTest, TlsFailuresAreNotRetried) {
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError(PQPING_NO_RESPONSE,
                           "connection to server at \"localhost\" (127.0.0.1), port 5432 failed: "
                           "SSL error: certificate verify failed")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError(PQPING_NO_RESPONSE,
                           "server certificate for \"localhost\" (and 1 other name) does not "
                           "match host name \"db.example\"")));
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyConnectError(
      PQPING_OK,
      "FATAL:  pg_hba.conf rejects connection for host \"127.0.0.1\", user \"outboxd\", "
      "database \"app\", no encryption")));
  EXPECT_TRUE(absl::IsFailedPrecondition(ClassifyConnectError(
      PQPING_NO_RESPONSE, "server does not support SSL, but SSL was required")));
  // A root certificate file that does not exist is a config error (exit 2), not a retry.
  EXPECT_TRUE(absl::IsInvalidArgument(ClassifyConnectError(
      PQPING_NO_RESPONSE, "root certificate file \"/nope/ca.crt\" does not exist")));
}

}  // namespace
}  // namespace outboxd::pg
