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

TEST(ConnectionErrorTest, ClassifiesConnectFailures) {
  EXPECT_TRUE(absl::IsUnavailable(ClassifyConnectError("Connection refused")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError("FATAL:  password authentication failed for user \"x\"")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError("FATAL:  must be superuser or replication role to start walsender")));
  EXPECT_TRUE(absl::IsInvalidArgument(ClassifyConnectError("database \"nope\" does not exist")));
}

// libpq 15's wording of each TLS failure (as tests/secure sees it from a real server).
TEST(ConnectionErrorTest, TlsFailuresAreNotRetried) {
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError("connection to server at \"localhost\" (127.0.0.1), port 5432 failed: "
                           "SSL error: certificate verify failed")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      ClassifyConnectError("server certificate for \"localhost\" (and 1 other name) does not "
                           "match host name \"db.example\"")));
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyConnectError(
      "FATAL:  pg_hba.conf rejects connection for host \"127.0.0.1\", user \"outboxd\", "
      "database \"app\", no encryption")));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      ClassifyConnectError("server does not support SSL, but SSL was required")));
  // A missing pg_hba.conf line also says "no encryption"; it keeps its own classification.
  EXPECT_TRUE(absl::IsPermissionDenied(ClassifyConnectError(
      "FATAL:  no pg_hba.conf entry for host \"10.0.0.1\", user \"x\", database \"y\", no "
      "encryption")));
  // A root certificate file that does not exist is a config error (exit 2), not a retry.
  EXPECT_TRUE(absl::IsInvalidArgument(
      ClassifyConnectError("root certificate file \"/nope/ca.crt\" does not exist")));
}

}  // namespace
}  // namespace outboxd::pg
