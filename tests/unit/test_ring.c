/*
 * test_ring.c -- unit tests for the bounded ring of log lines.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ring.h"
#include "unit.h"

static void
push_str(struct ring *r, const char *s, uint64_t t)
{
	ring_push(r, s, strlen(s), t);
}

static void
assert_line(const struct ring *r, uint64_t seq, const char *want,
    uint64_t want_t)
{
	const char	*line;
	size_t		 len = 0;
	uint64_t	 t = 0;

	line = ring_get(r, seq, &len, &t);
	ck_assert_msg(line != NULL, "seq %llu missing",
	    (unsigned long long)seq);
	ck_assert_uint_eq(len, strlen(want));
	ck_assert(memcmp(line, want, len) == 0);
	ck_assert_int_eq(line[len], '\0');
	ck_assert_uint_eq(t, want_t);
}

START_TEST(test_ring_order)
{
	struct ring	*r;
	char		 buf[32];
	uint64_t	 i;

	r = ring_new(1 << 20, 1000);
	ck_assert_uint_eq(ring_count(r), 0);
	ck_assert_uint_eq(ring_first_seq(r), 1);
	ck_assert_uint_eq(ring_next_seq(r), 1);
	ck_assert_ptr_null(ring_get(r, 0, NULL, NULL));
	ck_assert_ptr_null(ring_get(r, 1, NULL, NULL));

	for (i = 1; i <= 100; i++) {
		snprintf(buf, sizeof buf, "line %llu", (unsigned long long)i);
		push_str(r, buf, 1000 + i);
	}
	ck_assert_uint_eq(ring_count(r), 100);
	ck_assert_uint_eq(ring_first_seq(r), 1);
	ck_assert_uint_eq(ring_next_seq(r), 101);
	for (i = 1; i <= 100; i++) {
		snprintf(buf, sizeof buf, "line %llu", (unsigned long long)i);
		assert_line(r, i, buf, 1000 + i);
	}
	ck_assert_ptr_null(ring_get(r, 0, NULL, NULL));
	ck_assert_ptr_null(ring_get(r, 101, NULL, NULL));
	ck_assert_ptr_null(ring_get(r, UINT64_MAX, NULL, NULL));

	/* Empty lines are lines too. */
	ring_push(r, "", 0, 7);
	assert_line(r, 101, "", 7);
	ring_free(r);
}
END_TEST

START_TEST(test_ring_evict_lines)
{
	struct ring	*r;
	char		 buf[32];
	uint64_t	 i;

	r = ring_new(1 << 20, 10);
	for (i = 1; i <= 25; i++) {
		snprintf(buf, sizeof buf, "l%llu", (unsigned long long)i);
		push_str(r, buf, i);
		ck_assert_uint_eq(ring_count(r), i < 10 ? i : 10);
	}
	ck_assert_uint_eq(ring_first_seq(r), 16);
	ck_assert_uint_eq(ring_next_seq(r), 26);
	ck_assert_ptr_null(ring_get(r, 15, NULL, NULL));
	ck_assert_ptr_null(ring_get(r, 1, NULL, NULL));
	for (i = 16; i <= 25; i++) {
		snprintf(buf, sizeof buf, "l%llu", (unsigned long long)i);
		assert_line(r, i, buf, i);
	}
	ring_free(r);
}
END_TEST

START_TEST(test_ring_evict_bytes)
{
	struct ring	*r;
	char		 line[1000], big[4000];
	size_t		 i, held, len, total = 0, budget = 10000;
	uint64_t	 seq;

	memset(line, 'a', sizeof line);
	r = ring_new(budget, 1000);
	for (i = 0; i < 100; i++) {
		line[0] = 'a' + i % 26;
		ring_push(r, line, sizeof line, i);
	}
	/* 1000-byte lines under a 10000-byte budget: fewer than ten. */
	held = ring_count(r);
	ck_assert_uint_ge(held, 8);
	ck_assert_uint_le(held, 9);
	ck_assert_uint_le(held * sizeof line, budget);
	ck_assert_uint_eq(ring_next_seq(r), 101);
	ck_assert_uint_eq(ring_first_seq(r), 101 - held);
	ck_assert_ptr_null(ring_get(r, 100 - held, NULL, NULL));
	for (seq = ring_first_seq(r); seq < ring_next_seq(r); seq++) {
		uint64_t	 t;
		const char	*p = ring_get(r, seq, &len, &t);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(len, sizeof line);
		ck_assert_uint_eq(t, seq - 1);
		ck_assert_int_eq(p[0], 'a' + (seq - 1) % 26);
	}

	/* Small lines after big ones: all the small ones are held. */
	for (i = 0; i < 5; i++)
		push_str(r, "small", 1000 + i);
	ck_assert_uint_ge(ring_count(r), 5);
	for (seq = ring_next_seq(r) - 5; seq < ring_next_seq(r); seq++)
		assert_line(r, seq, "small", 1000 + seq - 101);

	/* Two near-maximal lines leave room for at most one old line. */
	memset(big, 'B', sizeof big);
	ring_push(r, big, sizeof big, 2000);
	ring_push(r, big, sizeof big, 2001);
	ck_assert_uint_eq(ring_next_seq(r), 108);
	ck_assert_uint_ge(ring_count(r), 2);
	ck_assert_uint_le(ring_count(r), 2 + 5 + 1);
	for (seq = ring_first_seq(r); seq < ring_next_seq(r); seq++) {
		if (ring_get(r, seq, &len, NULL) == NULL)
			ck_abort_msg("seq %llu missing", (unsigned long long)seq);
		total += len;
	}
	ck_assert_uint_le(total, budget);
	ck_assert_uint_ge(ring_first_seq(r), 100);
	ring_free(r);
}
END_TEST

START_TEST(test_ring_truncate)
{
	struct ring	*r;
	char		*big;
	const char	*p;
	size_t		 len;

	big = malloc(3 * RING_LINE_MAX_BYTES);
	ck_assert_ptr_nonnull(big);
	memset(big, 'q', 3 * RING_LINE_MAX_BYTES);
	big[RING_LINE_MAX_BYTES - 1] = 'e';

	r = ring_new(1 << 20, 100);
	ring_push(r, big, 3 * RING_LINE_MAX_BYTES, 1);
	ring_push(r, big, RING_LINE_MAX_BYTES, 2);
	ring_push(r, big, RING_LINE_MAX_BYTES + 1, 3);
	ck_assert_uint_eq(ring_count(r), 3);

	p = ring_get(r, 1, &len, NULL);
	ck_assert_uint_eq(len, RING_LINE_MAX_BYTES);
	ck_assert_int_eq(p[len - 1], 'e');
	ck_assert_int_eq(p[len], '\0');
	p = ring_get(r, 2, &len, NULL);
	ck_assert_uint_eq(len, RING_LINE_MAX_BYTES);
	p = ring_get(r, 3, &len, NULL);
	ck_assert_uint_eq(len, RING_LINE_MAX_BYTES);
	ck_assert(memcmp(p, big, len) == 0);
	ring_free(r);
	free(big);
}
END_TEST

START_TEST(test_ring_zero_budget)
{
	struct ring	*r;

	/* Nothing fits: lines are counted but none is held. */
	r = ring_new(0, 100);
	push_str(r, "a", 1);
	ck_assert_uint_eq(ring_count(r), 0);
	ck_assert_uint_eq(ring_next_seq(r), 2);
	ck_assert_uint_eq(ring_first_seq(r), 2);
	ck_assert_ptr_null(ring_get(r, 1, NULL, NULL));
	ring_free(r);

	r = ring_new(1 << 20, 0);
	push_str(r, "a", 1);
	ck_assert_uint_eq(ring_count(r), 0);
	ck_assert_uint_eq(ring_first_seq(r), ring_next_seq(r));
	ring_free(r);

	/* A one-line ring keeps the newest. */
	r = ring_new(1 << 20, 1);
	push_str(r, "a", 1);
	push_str(r, "b", 2);
	ck_assert_uint_eq(ring_count(r), 1);
	ck_assert_ptr_null(ring_get(r, 1, NULL, NULL));
	assert_line(r, 2, "b", 2);
	ring_free(r);
}
END_TEST

START_TEST(test_ring_wraps)
{
	struct ring	*r;
	char		 buf[32];
	uint64_t	 i, seq;

	/* Many times round a small ring, checking every held line. */
	r = ring_new(1 << 20, 37);
	for (i = 1; i <= 5000; i++) {
		snprintf(buf, sizeof buf, "n=%llu", (unsigned long long)i);
		push_str(r, buf, i * 10);
		if (i % 97 != 0)
			continue;
		ck_assert_uint_eq(ring_count(r), 37);
		for (seq = ring_first_seq(r); seq < ring_next_seq(r); seq++) {
			snprintf(buf, sizeof buf, "n=%llu",
			    (unsigned long long)seq);
			assert_line(r, seq, buf, seq * 10);
		}
	}
	ring_free(r);
}
END_TEST

/* A NUL and bytes that are not UTF-8 are held, and in JSON the whole line. */
START_TEST(test_ring_binary_line)
{
	static const char	 line[] = "bad \xff\xfe \x80 \xe0\x80\xaf "
	    "\xe2\x82|nul\0after the nul\x1b[2J";
	struct ring		*r;
	const char		*got;
	char			*json;
	size_t			 len;
	cJSON			*o, *v;

	r = ring_new(1 << 20, 10);
	ring_push(r, line, sizeof line - 1, UINT64_C(1795661155762010));
	got = ring_get(r, 1, &len, NULL);
	ck_assert_uint_eq(len, sizeof line - 1);
	ck_assert(memcmp(got, line, len) == 0);

	json = ring_line_json(r, 1, "srv\n\"x\"");
	ck_assert_ptr_nonnull(json);
	/* Integers as integers, never 1.79566115576201e+15. */
	ck_assert_msg(strstr(json, "\"seq\":1,\"time_us\":1795661155762010,")
	    != NULL, "numbers: %s", json);
	o = cJSON_Parse(json);
	ck_assert_msg(o != NULL, "not JSON: %s", json);
	v = cJSON_GetObjectItemCaseSensitive(o, "server");
	ck_assert_str_eq(v->valuestring, "srv\n\"x\"");
	v = cJSON_GetObjectItemCaseSensitive(o, "text");
	ck_assert_str_eq(v->valuestring, "bad \xef\xbf\xbd\xef\xbf\xbd "
	    "\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
	    "\xef\xbf\xbd|nul\xef\xbf\xbd" "after the nul\x1b[2J");
	cJSON_Delete(o);
	free(json);

	ck_assert_ptr_null(ring_line_json(r, 0, "srv"));
	ck_assert_ptr_null(ring_line_json(r, 2, "srv"));
	ring_free(r);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("ring");
	tc = tcase_create("ring");
	tcase_add_test(tc, test_ring_order);
	tcase_add_test(tc, test_ring_evict_lines);
	tcase_add_test(tc, test_ring_evict_bytes);
	tcase_add_test(tc, test_ring_truncate);
	tcase_add_test(tc, test_ring_zero_budget);
	tcase_add_test(tc, test_ring_wraps);
	tcase_add_test(tc, test_ring_binary_line);
	suite_add_tcase(s, tc);
	return (s);
}
