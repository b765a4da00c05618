// The saga end to end without faults (ctest label integration, every CI run): 30 orders through
// one outboxd and the three services settle as the generator's data says, and a reply that comes
// after its step was compensated is recognised and ignored.

#include <csignal>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "saga_fixture.h"

namespace saga_test {
namespace {

using consumer_test::ChildProcess;
using consumer_test::ReadFile;

TEST_F(SagaTest, ThirtyOrdersSettleConsistently) {
  // Deadlines far from a loaded CI machine's slowest first round trip (consumer groups joining):
  // outcomes here come from the data, never from a timeout.
  step_timeout_ms_ = 10000;
  // Three of 'rare' in stock: orders 7, 17 and 27 want 2 each (PlaceOrder: quantity 1 + i % 2),
  // so exactly one of them is reserved and two are refused.
  IT_ASSERT_OK(pg().Exec(absl::StrCat("UPDATE ", Schema("stock"),
                                      ".stock SET initial = 3, available = 3 WHERE sku = 'rare'")));
  IT_ASSERT_OK(StartRelay());
  for (const char* role : {"order", "stock", "payment"}) IT_ASSERT_OK(StartService(role));
  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * placing, StartPlacing(0, 30, 0));
  IT_ASSERT_OK_AND_ASSIGN(const int placed, placing->WaitForExit(absl::Seconds(30)));
  ASSERT_EQ(placed, 0) << ReadFile(placing->log_path());
  IT_ASSERT_OK(WaitSettledAndQuiet(30, absl::Seconds(50)));

  const Accounting a = Audit();
  std::cout << "[saga] " << Describe(a) << "\n";
  EXPECT_TRUE(a.violations.empty());
  // Declined cards: orders 3, 13, 23 (i % 10 == 3); the rest is confirmed.
  EXPECT_EQ(a.Outcome("payment_refused"), 3);
  EXPECT_EQ(a.Outcome("out_of_stock"), 2);
  EXPECT_EQ(a.confirmed, 25);
  EXPECT_EQ(a.charges, 25);
  EXPECT_EQ(a.refunds, 0);
}

TEST_F(SagaTest, LateReplyAfterCompensationIsIgnored) {
  step_timeout_ms_ = 1000;
  max_attempts_ = 2;
  IT_ASSERT_OK(StartRelay());
  for (const char* role : {"order", "stock", "payment"}) IT_ASSERT_OK(StartService(role));
  // The payment service stops answering: every ChargePayment times out (2 sends, 1 s apart),
  // so the orchestrator voids the payment before it ever saw an answer.
  service("payment")->Signal(SIGSTOP);
  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * placing, StartPlacing(100, 2, 0));  // cards ok, sku-1/2
  IT_ASSERT_OK_AND_ASSIGN(const int placed, placing->WaitForExit(absl::Seconds(30)));
  ASSERT_EQ(placed, 0) << ReadFile(placing->log_path());
  const std::string voiding =
      absl::StrCat("SELECT count(*) FROM ", Schema("orders"), ".orders WHERE state = 'VOIDING'");
  ASSERT_TRUE(outboxd::it::WaitUntil(
      [&] {
        absl::StatusOr<int64_t> n = pg().QueryInt(voiding);
        return n.ok() && *n == 2;
      },
      absl::Seconds(30)));
  // Back: it charges (first ChargePayment), answers the retry from its row, then refunds on
  // VoidPayment. The PaymentCharged replies arrive in VOIDING: late, ignored.
  service("payment")->Signal(SIGCONT);
  IT_ASSERT_OK(WaitSettledAndQuiet(2, absl::Seconds(40)));

  const Accounting a = Audit();
  std::cout << "[saga] " << Describe(a) << "\n";
  EXPECT_TRUE(a.violations.empty());
  EXPECT_EQ(a.cancelled, 2);
  EXPECT_EQ(a.Outcome("payment_timeout"), 2);
  EXPECT_EQ(a.charges, 2);
  EXPECT_EQ(a.refunds, 2);
  EXPECT_GE(a.late_replies, 2);  // at least each order's PaymentCharged
}

}  // namespace
}  // namespace saga_test
