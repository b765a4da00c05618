#include "messages.h"

#include <utility>

#include "pg_result.h"

namespace saga {

using consumer::ApplyOutcome;
using consumer::ApplyResult;

ApplyOutcome Emit(PGconn* conn, const Outgoing& message, std::string* id) {
  const consumer::Result inserted = consumer::ExecParams(
      conn,
      "INSERT INTO outbox (aggregatetype, aggregateid, type, version, correlation_id,"
      " causation_id, payload) VALUES ($1, $2, $3, $4, $2, NULLIF($5, ''), $6) RETURNING id",
      {message.aggregate_type, message.order_id.c_str(), message.type, kVersion,
       message.causation_id.c_str(), message.payload.c_str()});
  if (!consumer::Succeeded(inserted)) return consumer::StatementFailure(conn, inserted.get());
  if (id != nullptr) *id = PQgetvalue(inserted.get(), 0, 0);
  return {ApplyResult::kApplied, ""};
}

Outgoing ReplyTo(const outboxd::v1::Event& command, const char* aggregate_type, const char* type,
                 std::string payload) {
  return {aggregate_type, type, command.correlation_id(), command.id(), std::move(payload)};
}

ApplyOutcome CheckContract(const outboxd::v1::Event& event) {
  const auto version = event.headers().find("version");
  if (version == event.headers().end() || version->second != kVersion) {
    return {ApplyResult::kPermanent, "message " + event.id() + " (" + event.type() +
                                         ") is not version " + kVersion +
                                         " (header \"version\"; is outboxd's additional_placement "
                                         "\"version:header:version\" set?)"};
  }
  if (event.correlation_id().empty()) {
    return {ApplyResult::kPermanent, "message " + event.id() + " has no correlation id"};
  }
  return {ApplyResult::kApplied, ""};
}

}  // namespace saga
