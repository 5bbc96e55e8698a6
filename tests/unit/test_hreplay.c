/*
 * test_hreplay.c -- unit tests for mcpd-http's replay buffer: event ids
 * read and refused, a resume complete while every later event is held,
 * not after the oldest were dropped (by count, by bytes, by one event
 * larger than the cap).
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hreplay.h"
#include "unit.h"

START_TEST(test_hreplay_ids)
{
	struct hreplay	 r;
	uint32_t	 s;
	uint64_t	 g;
	char		 id[HREPLAY_ID_MAX];

	hreplay_init(&r);
	ck_assert_uint_eq(hreplay_add(&r, 0, "a", 1, 1), 1);
	ck_assert_uint_eq(hreplay_add(&r, 3, "b", 1, 0), 2);
	hreplay_format_id(id, sizeof id, 3, 2);
	ck_assert_str_eq(id, "3-2");
	ck_assert_int_eq(hreplay_parse_id(&r, id, &s, &g), 0);
	ck_assert_uint_eq(s, 3);
	ck_assert_uint_eq(g, 2);
	ck_assert_int_eq(hreplay_parse_id(&r, "0-0", &s, &g), 0);
	/* Not sent yet, or not an id. */
	ck_assert_int_eq(hreplay_parse_id(&r, "0-3", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "01-1", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "-1", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "1-", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "1-1-1", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "4294967296-1", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, "1 -1", &s, &g), -1);
	ck_assert_int_eq(hreplay_parse_id(&r, NULL, &s, &g), -1);
	hreplay_free(&r);
}
END_TEST

START_TEST(test_hreplay_count)
{
	struct hreplay		 r;
	struct hreplay_ev	*e;
	size_t			 i;

	hreplay_init(&r);
	for (i = 0; i < HREPLAY_MAX_EVENTS; i++)
		(void)hreplay_add(&r, 0, "x", 1, 1);
	ck_assert(hreplay_complete(&r, 0));
	(void)hreplay_add(&r, 0, "y", 1, 1);
	ck_assert_uint_eq(r.n, HREPLAY_MAX_EVENTS);
	/* Event 1 was dropped: after 0, no; after 1, every one is held. */
	ck_assert(!hreplay_complete(&r, 0));
	ck_assert(hreplay_complete(&r, 1));
	e = hreplay_at(&r, 0);
	ck_assert_uint_eq(e->g, 2);
	e = hreplay_at(&r, r.n - 1);
	ck_assert_str_eq(e->text, "y");
	ck_assert_ptr_null(hreplay_at(&r, r.n));
	hreplay_free(&r);
}
END_TEST

START_TEST(test_hreplay_bytes)
{
	struct hreplay	 r;
	char		*big;
	size_t		 half = HREPLAY_MAX_BYTES / 2;

	big = calloc(1, HREPLAY_MAX_BYTES + 2);
	memset(big, 'z', HREPLAY_MAX_BYTES + 1);
	hreplay_init(&r);
	(void)hreplay_add(&r, 1, big, half, 1);
	(void)hreplay_add(&r, 1, big, half, 1);
	ck_assert(hreplay_complete(&r, 0));
	(void)hreplay_add(&r, 1, big, 1, 1);	/* drops event 1 */
	ck_assert(!hreplay_complete(&r, 0));
	ck_assert(hreplay_complete(&r, 1));
	ck_assert_uint_le(r.bytes, HREPLAY_MAX_BYTES);
	/* Larger than the cap: nothing before or at it can be replayed. */
	ck_assert_uint_eq(hreplay_add(&r, 0, big, HREPLAY_MAX_BYTES + 1, 1), 4);
	ck_assert_uint_eq(r.n, 0);
	ck_assert(!hreplay_complete(&r, 3));
	ck_assert(hreplay_complete(&r, 4));
	hreplay_free(&r);
	free(big);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("hreplay");
	tc = tcase_create("hreplay");
	tcase_add_test(tc, test_hreplay_ids);
	tcase_add_test(tc, test_hreplay_count);
	tcase_add_test(tc, test_hreplay_bytes);
	suite_add_tcase(s, tc);
	return (s);
}
