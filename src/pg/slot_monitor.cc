#include "pg/slot_monitor.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"

namespace outboxd::pg {
namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kQueryTimeout = std::chrono::seconds(10);
constexpr auto kInitialBackoff = std::chrono::milliseconds(500);
constexpr auto kMaxBackoff = std::chrono::milliseconds(10'000);
constexpr const char* kApplicationName = "outboxd-slot-monitor";
// Every wal_status Postgres 14-18 reports, so each has a gauge child (0 or 1) from the start.
constexpr std::string_view kWalStatuses[] = {"reserved", "extended", "unreserved", "lost"};

}  // namespace

SlotMonitor::SlotMonitor(SlotMonitorOptions options, metrics::RelayMetrics& metrics,
                         metrics::Health& health)
    : options_(std::move(options)),
      policy_{.slot = options_.slot},
      metrics_(metrics.Slot(options_.slot)),
      health_(health) {}

SlotMonitor::~SlotMonitor() {
  Stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

absl::Status SlotMonitor::Start() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return absl::InternalError("slot monitor: cannot create an eventfd");
  for (std::string_view status : kWalStatuses) metrics_.slot_wal_status.With(status).Set(0);
  thread_ = std::thread([this] { Run(); });
  return absl::OkStatus();
}

void SlotMonitor::Stop() {
  if (!thread_.joinable()) return;
  const uint64_t one = 1;
  // An eventfd write of 1 cannot fail short of overflow; it stays readable from now on.
  [[maybe_unused]] const ssize_t written = ::write(wake_fd_, &one, sizeof one);
  thread_.join();
}

std::string SlotMonitor::lost_message() const {
  absl::MutexLock lock(&mu_);
  return lost_message_;
}

bool SlotMonitor::WaitOrStop(std::chrono::milliseconds delay) const {
  pollfd fd{.fd = wake_fd_, .events = POLLIN, .revents = 0};
  const auto until = std::chrono::steady_clock::now() + delay;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    const int n = ::poll(&fd, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

void SlotMonitor::Run() {
  auto backoff = kInitialBackoff;
  bool failing = false;
  while (true) {
    const absl::Status status = CheckOnce();
    if (absl::IsCancelled(status)) return;
    auto delay = options_.interval;
    if (status.ok()) {
      if (failing) log::Info("slot monitor: reading slot {} again", options_.slot);
      failing = false;
      backoff = kInitialBackoff;
    } else {
      conn_.reset();
      if (!failing) {
        log::Warn(
            "slot monitor: cannot read slot {} from pg_replication_slots: {}; keeping the last "
            "verdict and retrying (up to every {} s) until it works",
            options_.slot, MessageOf(status), kMaxBackoff.count() / 1000);
      } else {
        log::Debug("slot monitor: still failing: {}", MessageOf(status));
      }
      failing = true;
      delay = backoff;
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
    if (WaitOrStop(delay)) return;
  }
}

absl::Status SlotMonitor::Connect() {
  auto conn =
      InterruptibleConnection::Open(options_.conninfo, kApplicationName, wake_fd_, kConnectTimeout);
  if (!conn.ok()) return conn.status();
  conn_.emplace(std::move(*conn));
  // A new connection may reach another server (a multi-host conninfo after a failover): a slot
  // missing there is the failover checks' call (exit 7), not "dropped while running".
  history_ = {};
  sql_ = SlotStateSql(conn_->QuoteLiteral(options_.slot), conn_->server_version());
  auto limit = conn_->Query(
      "SELECT setting FROM pg_catalog.pg_settings WHERE name = 'max_slot_wal_keep_size'",
      kQueryTimeout);
  if (!limit.ok()) return limit.status();
  // In MB (the setting's unit); -1 means unlimited.
  const std::string limit_mb(PQntuples(limit->get()) == 1 ? Value(limit->get(), 0, 0) : "-1");
  const int64_t limit_value = std::strtoll(limit_mb.c_str(), nullptr, 10);
  const bool automatic = options_.min_safe_wal_size_bytes < 0;
  policy_.min_safe_wal_size_bytes =
      EffectiveMinSafeWal(options_.min_safe_wal_size_bytes, limit_value);
  const int64_t threshold_mb = policy_.min_safe_wal_size_bytes >> 20;
  log::Info(
      "slot monitor: watching slot {} every {} ms (max_slot_wal_keep_size = {} MB, "
      "min_safe_wal_size_mb = {}{})",
      options_.slot, options_.interval.count(), limit_mb, threshold_mb,
      automatic ? ", automatic" : "");
  // safe_wal_size of a slot that is fully caught up is about the limit, so a threshold at or
  // above it keeps outboxd unready for good.
  if (limit_value >= 0 && threshold_mb > 0 && threshold_mb >= limit_value) {
    log::Warn(
        "slot monitor: min_safe_wal_size_mb = {} is not below max_slot_wal_keep_size = {} MB, "
        "so slot {} always counts as at risk and outboxd is never ready; set [postgres] "
        "min_safe_wal_size_mb to a fraction of it (e.g. a quarter)",
        threshold_mb, limit_mb, options_.slot);
  }
  return absl::OkStatus();
}

absl::Status SlotMonitor::CheckOnce() {
  if (!conn_) {
    if (auto s = Connect(); !s.ok()) return s;
  }
  auto result = conn_->Query(sql_, kQueryTimeout);
  if (!result.ok()) return result.status();
  auto state = ParseSlotState(result->get());
  if (!state.ok()) return state.status();
  Apply(*state);
  return absl::OkStatus();
}

void SlotMonitor::Apply(const SlotState& state) {
  const SlotVerdict verdict = JudgeSlot(state, policy_, history_);
  if (state.exists) history_ = {.seen = true, .last_confirmed = state.confirmed_flush_lsn};
  UpdateGauges(state);
  if (verdict.risk == SlotRisk::kLost) {
    if (!lost()) {  // Only this thread sets it.
      {
        absl::MutexLock lock(&mu_);
        lost_message_ = verdict.detail;
      }
      lost_.store(true, std::memory_order_release);
      log::Error("{}", verdict.detail);
    }
  } else if (verdict.risk == SlotRisk::kAtRisk && last_risk_ != SlotRisk::kAtRisk) {
    log::Warn("{}", verdict.detail);
  } else if (verdict.risk == SlotRisk::kSafe && last_risk_ == SlotRisk::kAtRisk) {
    log::Info("{}; outboxd is ready again as far as the slot goes", verdict.detail);
  }
  last_risk_ = verdict.risk;
  health_.SetSlot(verdict.risk == SlotRisk::kSafe, verdict.reason);
}

void SlotMonitor::UpdateGauges(const SlotState& state) {
  metrics_.slot_retained_wal_bytes.Set(static_cast<double>(state.retained_wal_bytes.value_or(0)));
  metrics_.slot_safe_wal_size_bytes.Set(state.safe_wal_size_bytes
                                            ? static_cast<double>(*state.safe_wal_size_bytes)
                                            : std::numeric_limits<double>::quiet_NaN());
  // All 0 while the slot does not exist or reserves no WAL yet.
  for (std::string_view status : kWalStatuses) {
    metrics_.slot_wal_status.With(status).Set(status == state.wal_status ? 1 : 0);
  }
}

}  // namespace outboxd::pg
