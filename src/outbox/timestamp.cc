#include "outbox/timestamp.h"

namespace outboxd::outbox {
namespace {

// Reads exactly `digits` decimal digits at `pos`, advancing it.
std::optional<int64_t> Digits(std::string_view text, size_t& pos, size_t digits) {
  if (pos + digits > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  return value;
}

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

// Days from 1970-01-01 to the proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "+05", "-08:30", "+05:30:15": the zone offset in seconds east of UTC.
std::optional<int64_t> ZoneOffset(std::string_view text, size_t& pos) {
  if (pos >= text.size() || (text[pos] != '+' && text[pos] != '-')) return std::nullopt;
  const int64_t sign = text[pos++] == '-' ? -1 : 1;
  auto hours = Digits(text, pos, 2);
  if (!hours) return std::nullopt;
  int64_t seconds = *hours * 3600;
  for (int64_t unit : {60, 1}) {
    if (!Expect(text, pos, ':')) break;
    auto part = Digits(text, pos, 2);
    if (!part) return std::nullopt;
    seconds += *part * unit;
  }
  return sign * seconds;
}

}  // namespace

std::optional<int64_t> ParseTimestampMs(std::string_view text, bool with_zone) {
  std::optional<int64_t> micros = ParseTimestampMicros(text, with_zone);
  if (!micros) return std::nullopt;
  return *micros / 1000;  // C++ division truncates toward zero, as Java's.
}

std::optional<int64_t> ParseTimestampMicros(std::string_view text, bool with_zone) {
  size_t pos = 0;
  auto year = Digits(text, pos, 4);
  if (!year || !Expect(text, pos, '-')) return std::nullopt;
  auto month = Digits(text, pos, 2);
  if (!month || !Expect(text, pos, '-')) return std::nullopt;
  auto day = Digits(text, pos, 2);
  if (!day || !Expect(text, pos, ' ')) return std::nullopt;
  auto hour = Digits(text, pos, 2);
  if (!hour || !Expect(text, pos, ':')) return std::nullopt;
  auto minute = Digits(text, pos, 2);
  if (!minute || !Expect(text, pos, ':')) return std::nullopt;
  auto second = Digits(text, pos, 2);
  if (!second || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  int64_t micros = 0;
  if (Expect(text, pos, '.')) {
    size_t digits = 0;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos, ++digits) {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 6; ++digits) micros *= 10;
  }
  int64_t offset = 0;
  if (with_zone) {
    auto zone = ZoneOffset(text, pos);
    if (!zone) return std::nullopt;
    offset = *zone;
  }
  if (pos != text.size()) return std::nullopt;  // " BC" and anything else unexpected.
  const int64_t seconds =
      DaysFromCivil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second - offset;
  return seconds * 1000000 + micros;
}

void AppendRfc3339(int64_t unix_micros, std::string& out) {
  int64_t seconds = unix_micros / 1000000;
  int64_t micros = unix_micros % 1000000;
  if (micros < 0) {  // Floor, so times before 1970 keep a positive fraction.
    micros += 1000000;
    --seconds;
  }
  int64_t days = seconds / 86400;
  int64_t in_day = seconds % 86400;
  if (in_day < 0) {
    in_day += 86400;
    --days;
  }
  // Howard Hinnant's civil_from_days.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buffer[32];
  auto put = [&](char* at, int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10) at[i] = static_cast<char>('0' + value % 10);
  };
  put(buffer, year, 4);
  buffer[4] = '-';
  put(buffer + 5, month, 2);
  buffer[7] = '-';
  put(buffer + 8, day, 2);
  buffer[10] = 'T';
  put(buffer + 11, in_day / 3600, 2);
  buffer[13] = ':';
  put(buffer + 14, in_day / 60 % 60, 2);
  buffer[16] = ':';
  put(buffer + 17, in_day % 60, 2);
  size_t size = 19;
  // protobuf's JSON mapping writes 0, 3 or 6 fraction digits (9 for nanos, which Postgres lacks).
  if (micros != 0) {
    buffer[size++] = '.';
    if (micros % 1000 == 0) {
      put(buffer + size, micros / 1000, 3);
      size += 3;
    } else {
      put(buffer + size, micros, 6);
      size += 6;
    }
  }
  buffer[size++] = 'Z';
  out.append(buffer, size);
}

}  // namespace outboxd::outbox
