/*
 * test_restart.c -- unit tests for the restart policy (src/restart.c):
 * never, on-failure after a clean or an unclean exit, shutdown, an
 * unwanted on-demand server, the give-up rule and the delay it hands on.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "backoff.h"
#include "conf.h"
#include "restart.h"
#include "unit.h"
#include "util.h"

static const struct backoff_policy policy = {
	.min_ms = 1000,
	.max_ms = 30000,
	.jitter = 0.2,
	.reset_ms = 10000,
	.max_restarts = 3,
	.restart_window_s = 60,
};

static const struct backoff_policy *use = &policy;

/* rand01 0.5: no jitter, the delay is the curve's. */
static enum restart_verdict
decide(const struct restart_facts *f, struct backoff *b, uint64_t now,
    int64_t *delay)
{
	*delay = -2;
	return (restart_decide(f, b, use, now, 0.5, delay));
}

START_TEST(test_restart_policy_stops)
{
	struct backoff		 b;
	int64_t			 delay;
	struct restart_facts	 never = { CONF_RESTART_NEVER, 0, 0, 0 };
	struct restart_facts	 clean = { CONF_RESTART_ON_FAILURE, 1, 0, 0 };
	struct restart_facts	 down = { CONF_RESTART_ALWAYS, 0, 1, 0 };

	backoff_init(&b);
	ck_assert_int_eq(decide(&never, &b, 5000, &delay), RESTART_STOP);
	ck_assert_int_eq(decide(&clean, &b, 5000, &delay), RESTART_STOP);
	/* Shutdown wins over everything, an unwanted server included. */
	down.unwanted = 1;
	ck_assert_int_eq(decide(&down, &b, 5000, &delay), RESTART_STOP);
	/* None of these is a failure the backoff counts, nor a delay. */
	ck_assert_uint_eq(b.failures, 0);
	ck_assert_uint_eq(b.history_len, 0);
	ck_assert_int_eq(delay, -2);
	backoff_free(&b);
}
END_TEST

START_TEST(test_restart_policy_restarts)
{
	struct backoff		 b;
	int64_t			 delay;
	struct restart_facts	 unclean = { CONF_RESTART_ON_FAILURE, 0, 0, 0 };
	struct restart_facts	 always = { CONF_RESTART_ALWAYS, 1, 0, 0 };

	backoff_init(&b);
	ck_assert_int_eq(decide(&unclean, &b, 5000, &delay), RESTART_DELAY);
	ck_assert_int_eq(delay, 1000);
	/* "always" restarts after a clean exit too, and the curve grows. */
	ck_assert_int_eq(decide(&always, &b, 6000, &delay), RESTART_DELAY);
	ck_assert_int_eq(delay, 2000);
	ck_assert_uint_eq(b.failures, 2);
	backoff_free(&b);
}
END_TEST

START_TEST(test_restart_unwanted_idle)
{
	struct backoff		 b;
	int64_t			 delay;
	struct restart_facts	 f = { CONF_RESTART_ALWAYS, 0, 0, 1 };

	backoff_init(&b);
	ck_assert_int_eq(decide(&f, &b, 5000, &delay), RESTART_IDLE);
	/* Idle is no failure: the next client's start is not delayed. */
	ck_assert_uint_eq(b.failures, 0);
	ck_assert_uint_eq(b.history_len, 0);
	/* "never" stops even an unwanted server (stopped, not idle). */
	f.policy = CONF_RESTART_NEVER;
	ck_assert_int_eq(decide(&f, &b, 5000, &delay), RESTART_STOP);
	backoff_free(&b);
}
END_TEST

START_TEST(test_restart_give_up)
{
	struct backoff		 b;
	int64_t			 delay;
	struct restart_facts	 f = { CONF_RESTART_ALWAYS, 0, 0, 0 };
	uint64_t		 now = 5000;
	int			 i;

	backoff_init(&b);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(decide(&f, &b, now, &delay), RESTART_DELAY);
		now += 1000;
	}
	/* The fourth restart within 60 s is one too many. */
	ck_assert_int_eq(decide(&f, &b, now, &delay), RESTART_GIVE_UP);
	ck_assert_int_eq(delay, -2);
	/* Out of the window, it restarts again. */
	now += 61 * 1000;
	ck_assert_int_eq(decide(&f, &b, now, &delay), RESTART_DELAY);
	backoff_free(&b);
}
END_TEST

START_TEST(test_restart_stable_forgets)
{
	struct backoff		 b;
	int64_t			 delay;
	struct restart_facts	 f = { CONF_RESTART_ALWAYS, 0, 0, 0 };
	struct backoff_policy	 endless = policy;

	endless.max_restarts = 0;	/* the curve alone */
	use = &endless;
	backoff_init(&b);
	ck_assert_int_eq(decide(&f, &b, 5000, &delay), RESTART_DELAY);
	ck_assert_int_eq(decide(&f, &b, 6000, &delay), RESTART_DELAY);
	ck_assert_int_eq(delay, 2000);
	/* Ready for reset_ms and more: the next failure starts the curve. */
	backoff_ready(&b, 10000);
	ck_assert_int_eq(decide(&f, &b, 20001, &delay), RESTART_DELAY);
	ck_assert_int_eq(delay, 1000);
	/* And the ready time is spent: it does not reset twice. */
	ck_assert_uint_eq(b.ready_since_ms, 0);
	ck_assert_int_eq(decide(&f, &b, 40000, &delay), RESTART_DELAY);
	ck_assert_int_eq(delay, 2000);
	backoff_free(&b);
	use = &policy;
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("restart");
	tc = tcase_create("restart");
	tcase_add_test(tc, test_restart_policy_stops);
	tcase_add_test(tc, test_restart_policy_restarts);
	tcase_add_test(tc, test_restart_unwanted_idle);
	tcase_add_test(tc, test_restart_give_up);
	tcase_add_test(tc, test_restart_stable_forgets);
	suite_add_tcase(s, tc);
	return (s);
}
