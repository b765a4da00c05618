#pragma once
// pgoutput wire constants (PostgreSQL src/backend/replication/logical/proto.c), shared by the
// decoder and the test-only encoder so the two cannot drift apart.

#include <cstdint>

namespace outboxd::pgoutput::wire {

// First byte of each logical replication message.
inline constexpr char kBegin = 'B';
inline constexpr char kCommit = 'C';
inline constexpr char kOrigin = 'O';
inline constexpr char kRelation = 'R';
inline constexpr char kType = 'Y';
inline constexpr char kInsert = 'I';
inline constexpr char kUpdate = 'U';
inline constexpr char kDelete = 'D';
inline constexpr char kTruncate = 'T';
inline constexpr char kMessage = 'M';

// Markers that precede a TupleData inside Insert/Update/Delete.
inline constexpr char kNewTuple = 'N';
inline constexpr char kKeyTuple = 'K';
inline constexpr char kOldTuple = 'O';

// Per-column kinds inside TupleData.
inline constexpr char kColumnNull = 'n';
inline constexpr char kColumnUnchangedToast = 'u';
inline constexpr char kColumnText = 't';
inline constexpr char kColumnBinary = 'b';

// Relation replica identity (pg_class.relreplident).
inline constexpr char kReplicaIdentityDefault = 'd';
inline constexpr char kReplicaIdentityNothing = 'n';
inline constexpr char kReplicaIdentityFull = 'f';
inline constexpr char kReplicaIdentityIndex = 'i';

// Relation column flag: the column is part of the replica identity key.
inline constexpr uint8_t kColumnFlagKey = 1;
// Logical message flag: the message is transactional.
inline constexpr uint8_t kMessageFlagTransactional = 1;
// Truncate option bits.
inline constexpr uint8_t kTruncateCascade = 1;
inline constexpr uint8_t kTruncateRestartIdentity = 2;

}  // namespace outboxd::pgoutput::wire
