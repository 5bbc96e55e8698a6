/*
 * test_backoff.c -- unit tests for the restart delay curve, jitter, the
 * stable-period reset and the give-up rule.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "backoff.h"
#include "unit.h"
#include "util.h"

static const struct backoff_policy defaults = {
	.min_ms = 1000,
	.max_ms = 30000,
	.jitter = 0.2,
	.reset_ms = 10000,
	.max_restarts = 0,
	.restart_window_s = 60,
};

START_TEST(test_backoff_curve)
{
	struct backoff	 b;
	static const int64_t want[] = {
		1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000
	};
	size_t		 i;
	uint64_t	 now = 5000;

	backoff_init(&b);
	for (i = 0; i < nitems(want); i++) {
		ck_assert_int_eq(backoff_fail(&b, &defaults, now, 0.5),
		    want[i]);
		ck_assert_uint_eq(backoff_base_ms(&defaults, i), want[i]);
		now += 100;
	}
	ck_assert_uint_eq(b.failures, i);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_jitter_bounds)
{
	struct backoff	 b;
	int64_t		 d, base;
	uint32_t	 n;
	int		 i;

	/* rand01 = 0 is the low edge, just under 1 the high edge. */
	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 1, 0.0), 800);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 2, 0.999999), 2400);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 3, 0.0), 3200);
	backoff_free(&b);

	/* Many draws stay within +/- 20 % of the curve. */
	srandom(12345);
	backoff_init(&b);
	for (i = 0; i < 1000; i++) {
		n = b.failures;
		base = backoff_base_ms(&defaults, n);
		d = backoff_fail(&b, &defaults, 10 + i,
		    (double)random() / ((double)RAND_MAX + 1));
		ck_assert_int_ge(d, base * 8 / 10);
		ck_assert_int_le(d, base * 12 / 10);
		if (i % 7 == 6)
			backoff_reset(&b);
	}
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_jitter_clamped)
{
	struct backoff_policy	 p = defaults;
	struct backoff		 b;

	/* More than 100 % jitter would go negative: it is clamped. */
	p.jitter = 5.0;
	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &p, 1, 0.0), 0);
	ck_assert_int_eq(backoff_fail(&b, &p, 2, 0.999999), 4000);
	backoff_free(&b);

	p.jitter = 0;
	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &p, 1, 0.0), 1000);
	ck_assert_int_eq(backoff_fail(&b, &p, 2, 0.99), 2000);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_stable_reset)
{
	struct backoff	 b;

	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 1000, 0.5), 1000);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 2000, 0.5), 2000);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 4000, 0.5), 4000);

	/* Ready, but not for long enough: the curve goes on. */
	backoff_ready(&b, 10000);
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 10000), 0);
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 19999), 0);
	ck_assert_uint_eq(b.failures, 3);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 19999, 0.5), 8000);

	/* Ready for reset_ms: back to the start. */
	backoff_ready(&b, 30000);
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 39999), 0);
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 40000), 1);
	ck_assert_uint_eq(b.failures, 0);
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 50000), 0);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 50000, 0.5), 1000);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 50001, 0.5), 2000);

	/* A failure after a stable period resets even if nobody checked. */
	backoff_ready(&b, 60000);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 70000, 0.5), 1000);

	/* A failure ends readiness: no reset from an old ready time. */
	ck_assert_int_eq(backoff_check_stable(&b, &defaults, 100000), 0);
	ck_assert_uint_eq(b.failures, 1);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_give_up)
{
	struct backoff_policy	 p = defaults;
	struct backoff		 b;
	uint64_t		 t;
	int			 i;

	p.max_restarts = 3;
	p.restart_window_s = 60;

	/* The fourth failure within 60 s gives up. */
	backoff_init(&b);
	ck_assert_int_ge(backoff_fail(&b, &p, 100000, 0.5), 0);
	ck_assert_int_ge(backoff_fail(&b, &p, 110000, 0.5), 0);
	ck_assert_int_ge(backoff_fail(&b, &p, 120000, 0.5), 0);
	ck_assert_int_eq(backoff_fail(&b, &p, 159999, 0.5), BACKOFF_GIVE_UP);
	/* Giving up records nothing: once the oldest leaves, go on. */
	ck_assert_int_eq(backoff_fail(&b, &p, 160000, 0.5), 8000);
	ck_assert_int_eq(backoff_fail(&b, &p, 169999, 0.5), BACKOFF_GIVE_UP);
	ck_assert_int_ge(backoff_fail(&b, &p, 170000, 0.5), 0);
	backoff_free(&b);

	/* Failures spread wider than the window never give up. */
	backoff_init(&b);
	for (i = 0, t = 1000; i < 50; i++, t += 20001)
		ck_assert_int_ge(backoff_fail(&b, &p, t, 0.5), 0);
	backoff_free(&b);

	/* Off when max_restarts is 0. */
	backoff_init(&b);
	for (i = 0; i < 100; i++)
		ck_assert_int_ge(backoff_fail(&b, &defaults, 1000 + i, 0.5),
		    0);
	ck_assert_ptr_null(b.history);
	backoff_free(&b);

	/* A single allowed restart. */
	p.max_restarts = 1;
	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &p, 5000, 0.5), 1000);
	ck_assert_int_eq(backoff_fail(&b, &p, 6000, 0.5), BACKOFF_GIVE_UP);
	ck_assert_int_eq(backoff_fail(&b, &p, 65000, 0.5), 2000);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_give_up_policy_change)
{
	struct backoff_policy	 p = defaults;
	struct backoff		 b;

	p.max_restarts = 5;
	backoff_init(&b);
	ck_assert_int_ge(backoff_fail(&b, &p, 1000, 0.5), 0);
	ck_assert_int_ge(backoff_fail(&b, &p, 2000, 0.5), 0);
	ck_assert_int_ge(backoff_fail(&b, &p, 3000, 0.5), 0);
	/* Lowered to 2: the three recent restarts are already too many. */
	p.max_restarts = 2;
	ck_assert_int_eq(backoff_fail(&b, &p, 4000, 0.5), BACKOFF_GIVE_UP);
	/* Raised to 4: the newest two were kept, so two more fit. */
	p.max_restarts = 4;
	ck_assert_int_ge(backoff_fail(&b, &p, 5000, 0.5), 0);
	ck_assert_int_ge(backoff_fail(&b, &p, 6000, 0.5), 0);
	ck_assert_int_eq(backoff_fail(&b, &p, 7000, 0.5), BACKOFF_GIVE_UP);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_reset)
{
	struct backoff_policy	 p = defaults;
	struct backoff		 b;

	p.max_restarts = 2;
	backoff_init(&b);
	ck_assert_int_eq(backoff_fail(&b, &p, 1000, 0.5), 1000);
	ck_assert_int_eq(backoff_fail(&b, &p, 2000, 0.5), 2000);
	ck_assert_int_eq(backoff_fail(&b, &p, 3000, 0.5), BACKOFF_GIVE_UP);
	backoff_ready(&b, 3500);

	backoff_reset(&b);
	ck_assert_uint_eq(b.failures, 0);
	ck_assert_uint_eq(b.ready_since_ms, 0);
	ck_assert_uint_eq(b.history_len, 0);
	ck_assert_int_eq(backoff_fail(&b, &p, 4000, 0.5), 1000);
	ck_assert_int_eq(backoff_fail(&b, &p, 5000, 0.5), 2000);
	ck_assert_int_eq(backoff_fail(&b, &p, 6000, 0.5), BACKOFF_GIVE_UP);
	backoff_free(&b);
}
END_TEST

START_TEST(test_backoff_overflow)
{
	struct backoff_policy	 p = defaults;
	struct backoff		 b;
	uint32_t		 n;
	int64_t			 d;

	for (n = 0; n < 100; n++) {
		ck_assert_uint_le(backoff_base_ms(&defaults, n), 30000);
		ck_assert_uint_ge(backoff_base_ms(&defaults, n), 1000);
	}
	ck_assert_uint_eq(backoff_base_ms(&defaults, 31), 30000);
	ck_assert_uint_eq(backoff_base_ms(&defaults, 32), 30000);
	ck_assert_uint_eq(backoff_base_ms(&defaults, 64), 30000);
	ck_assert_uint_eq(backoff_base_ms(&defaults, UINT32_MAX), 30000);

	/* The largest policy still gives a positive, capped delay. */
	p.min_ms = UINT32_MAX;
	p.max_ms = UINT32_MAX;
	ck_assert_uint_eq(backoff_base_ms(&p, 31), UINT32_MAX);
	ck_assert_uint_eq(backoff_base_ms(&p, UINT32_MAX), UINT32_MAX);

	backoff_init(&b);
	b.failures = UINT32_MAX - 1;
	ck_assert_int_eq(backoff_fail(&b, &defaults, 1, 0.5), 30000);
	ck_assert_int_eq(backoff_fail(&b, &defaults, 2, 0.5), 30000);
	ck_assert_uint_eq(b.failures, UINT32_MAX);
	d = backoff_fail(&b, &p, 3, 0.999999);
	ck_assert_int_gt(d, (int64_t)UINT32_MAX * 119 / 100);
	ck_assert_int_le(d, (int64_t)UINT32_MAX * 12 / 10);
	ck_assert_int_eq(backoff_fail(&b, &p, 4, 0.0),
	    (int64_t)UINT32_MAX * 8 / 10);
	backoff_free(&b);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("backoff");
	tc = tcase_create("backoff");
	tcase_add_test(tc, test_backoff_curve);
	tcase_add_test(tc, test_backoff_jitter_bounds);
	tcase_add_test(tc, test_backoff_jitter_clamped);
	tcase_add_test(tc, test_backoff_stable_reset);
	tcase_add_test(tc, test_backoff_give_up);
	tcase_add_test(tc, test_backoff_give_up_policy_change);
	tcase_add_test(tc, test_backoff_reset);
	tcase_add_test(tc, test_backoff_overflow);
	suite_add_tcase(s, tc);
	return (s);
}
