#pragma once
// GoogleTest assertions over absl::Status / absl::StatusOr for the integration tests.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

#define IT_CONCAT_INNER(a, b) a##b
#define IT_CONCAT(a, b) IT_CONCAT_INNER(a, b)

// Fails the test (fatally) unless `expr` yields an OK status.
#define IT_ASSERT_OK(expr)                                       \
  do {                                                           \
    const ::absl::Status& it_status_ = (expr);                   \
    ASSERT_TRUE(it_status_.ok()) << #expr << ": " << it_status_; \
  } while (false)

#define IT_EXPECT_OK(expr)                                       \
  do {                                                           \
    const ::absl::Status& it_status_ = (expr);                   \
    EXPECT_TRUE(it_status_.ok()) << #expr << ": " << it_status_; \
  } while (false)

// `lhs = *expr;` or a fatal failure naming `expr` and its status.
#define IT_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  IT_ASSERT_OK_AND_ASSIGN_IMPL(IT_CONCAT(it_statusor_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): tmp names and lhs declares a variable.
#define IT_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)      \
  auto tmp = (expr);                                      \
  ASSERT_TRUE(tmp.ok()) << #expr << ": " << tmp.status(); \
  lhs = std::move(*tmp)
// NOLINTEND(bugprone-macro-parentheses)

// Inside functions returning absl::Status / StatusOr: propagate a failure.
#define IT_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status it_status_ = (expr);      \
    if (!it_status_.ok()) return it_status_; \
  } while (false)
#define IT_ASSIGN_OR_RETURN(lhs, expr) \
  IT_ASSIGN_OR_RETURN_IMPL(IT_CONCAT(it_statusor_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): tmp names and lhs declares a variable.
#define IT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(*tmp)
// NOLINTEND(bugprone-macro-parentheses)
