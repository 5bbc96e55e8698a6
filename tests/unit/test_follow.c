/*
 * test_follow.c -- unit tests for the set of servers a connection follows.
 */

#include "config.h"

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "follow.h"
#include "unit.h"

START_TEST(test_follow_twice_is_once)
{
	struct follow_set	 fs = { NULL, 0 };

	ck_assert(follow_empty(&fs));
	ck_assert(!follow_has(&fs, 7));
	ck_assert_int_eq(follow_add(&fs, 7), 1);	/* was empty */
	ck_assert_int_eq(follow_add(&fs, 7), 0);
	ck_assert_uint_eq(fs.n, 1);
	ck_assert(follow_has(&fs, 7));
	ck_assert(!follow_empty(&fs));
	/* One remove ends it: nothing is left to point at it. */
	ck_assert_int_eq(follow_remove(&fs, 7), 1);
	ck_assert(!follow_has(&fs, 7));
	ck_assert(follow_empty(&fs));
	ck_assert_ptr_null(fs.serials);
	ck_assert_int_eq(follow_remove(&fs, 7), 0);
	follow_clear(&fs);
}
END_TEST

START_TEST(test_follow_two_servers)
{
	struct follow_set	 fs = { NULL, 0 };

	ck_assert_int_eq(follow_add(&fs, 1), 1);
	ck_assert_int_eq(follow_add(&fs, 2), 0);
	ck_assert_int_eq(follow_add(&fs, 3), 0);
	ck_assert_int_eq(follow_add(&fs, 2), 0);
	ck_assert_uint_eq(fs.n, 3);
	/* A server that is not followed changes nothing. */
	ck_assert_int_eq(follow_remove(&fs, 9), 0);
	ck_assert_uint_eq(fs.n, 3);
	ck_assert_int_eq(follow_remove(&fs, 1), 0);
	ck_assert(!follow_has(&fs, 1));
	ck_assert(follow_has(&fs, 2) && follow_has(&fs, 3));
	ck_assert_int_eq(follow_remove(&fs, 3), 0);
	ck_assert_int_eq(follow_remove(&fs, 2), 1);	/* the last one */
	ck_assert(follow_empty(&fs));
	/* Empty is reusable: following again starts a new set. */
	ck_assert_int_eq(follow_add(&fs, 4), 1);
	ck_assert(follow_has(&fs, 4));
	follow_clear(&fs);
	ck_assert(follow_empty(&fs));
	ck_assert_ptr_null(fs.serials);
	follow_clear(&fs);
}
END_TEST

START_TEST(test_follow_many)
{
	struct follow_set	 fs = { NULL, 0 };
	uint64_t		 i;

	for (i = 1; i <= 1000; i++)
		ck_assert_int_eq(follow_add(&fs, i * 3), i == 1);
	ck_assert_uint_eq(fs.n, 1000);
	for (i = 1; i <= 3000; i++)
		ck_assert_int_eq(follow_has(&fs, i), i % 3 == 0);
	for (i = 1000; i >= 1; i--)
		ck_assert_int_eq(follow_remove(&fs, i * 3), i == 1);
	ck_assert(follow_empty(&fs));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("follow");
	tc = tcase_create("follow");
	tcase_add_test(tc, test_follow_twice_is_once);
	tcase_add_test(tc, test_follow_two_servers);
	tcase_add_test(tc, test_follow_many);
	suite_add_tcase(s, tc);
	return (s);
}
