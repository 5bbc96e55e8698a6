/*
 * test_ratelim.c -- unit tests for the journal's token bucket: the burst,
 * the rate, the count of what it refused, a clock that goes backwards.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>

#include "ratelim.h"
#include "unit.h"

static const struct ratelim_policy ten_a_second = { 10.0, 20.0 };

/* How many of n tries, one every step_ms after *now, got through. */
static int
allowed(struct ratelim *rl, const struct ratelim_policy *p, uint64_t *now,
    int n, uint64_t step_ms)
{
	int	i, got = 0;

	for (i = 0; i < n; i++) {
		*now += step_ms;
		got += ratelim_allow(rl, p, *now);
	}
	return (got);
}

START_TEST(test_ratelim_burst_then_rate)
{
	struct ratelim	rl;
	uint64_t	now = 1000;

	ratelim_init(&rl, &ten_a_second, now);
	/* A storm at one instant: the burst, and not one more. */
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 1000, 0), 20);
	ck_assert_uint_eq(ratelim_take_suppressed(&rl), 980);
	ck_assert_uint_eq(ratelim_take_suppressed(&rl), 0);
	/* A thousand a second for ten seconds: ten a second get through. */
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 10000, 1), 100);
	ck_assert_uint_eq(ratelim_take_suppressed(&rl), 9900);
}
END_TEST

START_TEST(test_ratelim_refills_to_burst)
{
	struct ratelim	rl;
	uint64_t	now = 0;

	ratelim_init(&rl, &ten_a_second, now);
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 20, 0), 20);
	ck_assert_int_eq(ratelim_allow(&rl, &ten_a_second, now), 0);
	/* An hour of quiet fills the bucket, no fuller than the burst. */
	now += 3600 * 1000;
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 100, 0), 20);
	/* Below the rate, everything passes. */
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 100, 200), 100);
}
END_TEST

START_TEST(test_ratelim_clock_backwards)
{
	struct ratelim	rl;
	uint64_t	now = 50000;

	ratelim_init(&rl, &ten_a_second, now);
	ck_assert_int_eq(allowed(&rl, &ten_a_second, &now, 20, 0), 20);
	/* Earlier than the last call: no tokens made up from it. */
	ck_assert_int_eq(ratelim_allow(&rl, &ten_a_second, 1000), 0);
	ck_assert_int_eq(ratelim_allow(&rl, &ten_a_second, 50000), 0);
	ck_assert_int_eq(ratelim_allow(&rl, &ten_a_second, 50100), 1);
}
END_TEST

START_TEST(test_ratelim_slow_policy)
{
	static const struct ratelim_policy six_a_minute = { 0.1, 3.0 };
	struct ratelim	rl;
	uint64_t	now = 0;

	ratelim_init(&rl, &six_a_minute, now);
	/* One a millisecond for a minute and a bit: the burst, six more. */
	ck_assert_int_eq(allowed(&rl, &six_a_minute, &now, 60500, 1), 3 + 6);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("ratelim");
	tc = tcase_create("ratelim");
	tcase_add_test(tc, test_ratelim_burst_then_rate);
	tcase_add_test(tc, test_ratelim_refills_to_burst);
	tcase_add_test(tc, test_ratelim_clock_backwards);
	tcase_add_test(tc, test_ratelim_slow_policy);
	suite_add_tcase(s, tc);
	return (s);
}
