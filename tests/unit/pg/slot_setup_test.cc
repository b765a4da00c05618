#include "pg/slot_setup.h"

#include "absl/status/status.h"
#include "common/status.h"
#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

// PG 14's replication grammar has no option list: "(SNAPSHOT 'nothing')" is a syntax error
// there (SQLSTATE 42601), which kept outboxd from starting on 14.
TEST(CreateSlotCommandTest, Pg14UsesTheKeywordForm) {
  EXPECT_EQ(CreateSlotCommand("\"s\"", 140022, /*standby=*/false),
            "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput NOEXPORT_SNAPSHOT");
}

TEST(CreateSlotCommandTest, Pg15And16UseTheOptionList) {
  for (int version : {150019, 160015}) {
    EXPECT_EQ(CreateSlotCommand("\"s\"", version, false),
              "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing')")
        << version;
  }
}

TEST(CreateSlotCommandTest, Pg17PrimaryMakesAFailoverSlot) {
  for (int version : {170011, 180006}) {
    EXPECT_EQ(CreateSlotCommand("\"s\"", version, false),
              "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing', FAILOVER)")
        << version;
  }
}

// Postgres refuses FAILOVER for a slot created on a standby (logical decoding there, 16+).
TEST(CreateSlotCommandTest, Pg17StandbyMakesAnOrdinarySlot) {
  EXPECT_EQ(CreateSlotCommand("\"s\"", 170011, /*standby=*/true),
            "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing')");
}

// Failures built the way Connection::Query builds them: ClassifyServerError over the SQLSTATE
// and "<what>: " + PQerrorMessage, here in the words of a server with lc_messages = de_DE or
// fr_FR (Postgres 15's own translations). Set-up must match the SQLSTATE, not the text.
absl::Status ServerError(std::string_view sqlstate, std::string_view what,
                         std::string_view libpq_message) {
  return ClassifyServerError(sqlstate, std::string(what) + ": " + std::string(libpq_message));
}

TEST(ServerErrorTest, CarriesTheSqlState) {
  const absl::Status status = ServerError("55006", "starting", "ERROR:  in use");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(SqlStateOf(status), "55006");
}

// A second instance created the slot first: start-up goes on and uses it.
TEST(JudgeSlotCreateFailureTest, AcceptsATranslatedDuplicate) {
  for (std::string_view text : {"FEHLER:  Replikations-Slot »outboxd« existiert bereits",
                                "ERREUR:  le slot de réplication « outboxd » existe déjà",
                                "ERROR:  replication slot \"outboxd\" already exists"}) {
    EXPECT_TRUE(
        JudgeSlotCreateFailure(ServerError("42710", "creating the replication slot", text)).ok())
        << text;
  }
}

// Every slot taken is a setting to change, not a fault to retry (class 53 alone is Unavailable).
TEST(JudgeSlotCreateFailureTest, AllSlotsInUseIsFatalInAnyLanguage) {
  for (std::string_view text : {"FEHLER:  alle Replikations-Slots sind in Benutzung",
                                "ERREUR:  tous les slots de réplication sont utilisés",
                                "ERROR:  all replication slots are in use"}) {
    const absl::Status verdict =
        JudgeSlotCreateFailure(ServerError("53400", "creating the replication slot", text));
    EXPECT_EQ(verdict.code(), absl::StatusCode::kFailedPrecondition) << text;
    EXPECT_NE(MessageOf(verdict).find("raise max_replication_slots"), std::string_view::npos);
    EXPECT_NE(MessageOf(verdict).find(text), std::string_view::npos);
  }
}

TEST(JudgeSlotCreateFailureTest, OtherFailuresPassThrough) {
  // The words "already exists" without the code decide nothing.
  const absl::Status other = ServerError("XX000", "creating the replication slot",
                                         "ERROR:  could not create file: already exists");
  EXPECT_EQ(JudgeSlotCreateFailure(other), other);
  const absl::Status denied =
      ServerError("42501", "creating the replication slot", "ERROR:  permission denied");
  EXPECT_EQ(JudgeSlotCreateFailure(denied), denied);
}

TEST(JudgePublicationCreateFailureTest, AcceptsATranslatedDuplicate) {
  EXPECT_TRUE(JudgePublicationCreateFailure(ServerError("42710", "creating the publication",
                                                        "FEHLER:  Publikation »outboxd« existiert "
                                                        "bereits"))
                  .ok());
}

// Two instances racing CREATE PUBLICATION: the loser waits on the catalog's unique index and
// gets unique_violation, not duplicate_object.
TEST(JudgePublicationCreateFailureTest, AcceptsALostRace) {
  EXPECT_TRUE(
      JudgePublicationCreateFailure(
          ServerError("23505", "creating the publication",
                      "ERREUR:  la valeur d'une clé dupliquée rompt la contrainte unique "
                      "« pg_publication_pubname_index »\nDÉTAIL : La clé (pubname)=(outboxd) "
                      "existe déjà."))
          .ok());
}

TEST(JudgePublicationCreateFailureTest, OtherFailuresPassThrough) {
  const absl::Status other =
      ServerError("XX000", "creating the publication", "ERROR:  internal: already exists");
  EXPECT_EQ(JudgePublicationCreateFailure(other), other);
}

}  // namespace
}  // namespace outboxd::pg
