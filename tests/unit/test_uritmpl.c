/*
 * test_uritmpl.c -- a URI against a URI template read as a pattern:
 * literals byte for byte, {var} without '/', '?' or '#', operators any
 * run, empty values, and the bounds (pieces, work, an unclosed '{').
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "uritmpl.h"
#include "util.h"

/* A template, a URI, and whether it matches. */
struct uritmpl_case {
	const char	*tmpl;
	const char	*uri;
	int		 want;
};

static void
check_cases(const struct uritmpl_case *v, size_t n)
{
	size_t	 i, work;
	int	 got;

	for (i = 0; i < n; i++) {
		work = 0;
		got = uritmpl_match(v[i].tmpl, v[i].uri, strlen(v[i].uri),
		    &work);
		ck_assert_msg(got == v[i].want, "\"%s\" against \"%s\": %d, "
		    "want %d", v[i].uri, v[i].tmpl, got, v[i].want);
	}
}

START_TEST(test_uritmpl_level1)
{
	static const struct uritmpl_case v[] = {
		{ "test://static/resource/{id}", "test://static/resource/7",
		    1 },
		{ "test://static/resource/{id}", "test://static/resource/", 1 },
		{ "test://static/resource/{id}", "test://static/resource/7/8",
		    0 },
		{ "test://static/resource/{id}", "test://static/other/7", 0 },
		{ "db://{table}/{row}", "db://users/42", 1 },
		{ "db://{table}/{row}", "db://users", 0 },
		{ "x://{a}{b}.txt", "x://ab.txt", 1 },
		{ "x://{a}.txt", "x://a?.txt", 0 },
		{ "plain://uri", "plain://uri", 1 },
		{ "plain://uri", "plain://uri2", 0 },
		{ "", "", 1 },
		{ "", "a", 0 },
	};

	check_cases(v, nitems(v));
}
END_TEST

START_TEST(test_uritmpl_operators)
{
	static const struct uritmpl_case v[] = {
		{ "file:///{+path}", "file:///a/b/c.txt", 1 },
		{ "file:///{path}", "file:///a/b/c.txt", 0 },
		{ "x://h{/seg*}", "x://h/a/b", 1 },
		{ "x://h/s{?q,r}", "x://h/s?q=1&r=2", 1 },
		{ "x://h/s{#frag}", "x://h/s#top", 1 },
		{ "x://h/s{#frag}", "y://h/s#top", 0 },
	};

	check_cases(v, nitems(v));
}
END_TEST

START_TEST(test_uritmpl_bounds)
{
	char	*t, *u;
	size_t	 i, work;

	work = 0;
	ck_assert_int_eq(uritmpl_match("x://{a", "x://a", 5, &work), -1);
	/* Too many pieces: cannot tell. */
	t = malloc(3 * (URITMPL_MAX_PIECES + 1) + 1);
	for (i = 0; i <= URITMPL_MAX_PIECES; i++)
		memcpy(t + 3 * i, "a{}", 3);
	t[3 * (URITMPL_MAX_PIECES + 1)] = '\0';
	work = 0;
	ck_assert_int_eq(uritmpl_match(t, "a", 1, &work), -1);
	free(t);
	/* The budget is shared by the caller's calls. */
	u = malloc(1024 * 1024 + 1);
	memset(u, 'a', 1024 * 1024);
	u[1024 * 1024] = '\0';
	work = URITMPL_MAX_WORK - 10;
	ck_assert_int_eq(uritmpl_match("{x}", u, strlen(u), &work), -1);
	work = 0;
	ck_assert_int_eq(uritmpl_match("{x}", u, strlen(u), &work), 1);
	ck_assert_uint_gt(work, 1024 * 1024);
	free(u);
	/* A NUL in the URI is a byte like another. */
	work = 0;
	ck_assert_int_eq(uritmpl_match("a{x}", "a\0b", 3, &work), 1);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("uritmpl");
	tc = tcase_create("match");
	tcase_add_test(tc, test_uritmpl_level1);
	tcase_add_test(tc, test_uritmpl_operators);
	tcase_add_test(tc, test_uritmpl_bounds);
	suite_add_tcase(s, tc);
	return (s);
}
