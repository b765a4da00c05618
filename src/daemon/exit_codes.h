#pragma once
// Process exit codes: distinct per failure class so supervisors (systemd, Kubernetes) and
// operators can tell a bad config from a wrong server setting without reading logs.

#include "absl/status/status.h"

namespace outboxd::daemon {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // Unexpected internal error.
inline constexpr int kExitUsage = 2;        // Bad command line or config file.
inline constexpr int kExitServerSetup = 3;  // Wrong server settings or missing objects.
inline constexpr int kExitPermission = 4;   // Authentication or privileges.
inline constexpr int kExitDataLoss = 5;     // Malformed replication protocol bytes.
// The slot was invalidated (wal_status = lost) or dropped under outboxd: events may be lost and
// an operator must reconcile before a new slot is created. absl::StatusCode::kAborted is used
// for this and nothing else (pg::LostSlotMessage, pg::SlotMonitor::lost_message()).
inline constexpr int kExitSlotLost = 6;
// The server does not hold what outboxd last confirmed (position/resume_check.h): the slot is
// missing, the server is another system or an older timeline, or after a promotion the slot is
// behind and was not synchronized. Nothing was created; an operator reconciles, then may start
// once with --allow-new-slot. absl::StatusCode::kOutOfRange is used for this and nothing else.
inline constexpr int kExitPositionRefused = 7;
// exactly_once: another instance took over the slot's transactional.id and Kafka fenced this
// one. Restarting would fence the new owner back: a supervisor should not restart on 8.
// absl::StatusCode::kAlreadyExists is used for this and nothing else.
inline constexpr int kExitFenced = 8;

inline int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
      return kExitUsage;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kNotFound:
      return kExitServerSetup;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated:
      return kExitPermission;
    case absl::StatusCode::kDataLoss:
      return kExitDataLoss;
    case absl::StatusCode::kAborted:
      return kExitSlotLost;
    case absl::StatusCode::kOutOfRange:
      return kExitPositionRefused;
    case absl::StatusCode::kAlreadyExists:
      return kExitFenced;
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDoNotUseReservedForFutureExpansionUseDefaultInSwitchInstead_:
      return kExitFailure;
  }
  return kExitFailure;
}

}  // namespace outboxd::daemon
