/*
 * test_gname.c -- the names a group gives its members' tools and prompts.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "gname.h"
#include "unit.h"

START_TEST(test_gname_plain)
{
	char		 out[GNAME_MAX + 1];
	const char	*rest;

	ck_assert_int_eq(gname_make("github", "__", "create_issue", out), 1);
	ck_assert_str_eq(out, "github__create_issue");
	ck_assert(gname_valid(out));
	ck_assert(gname_split(out, "github", "__", &rest));
	ck_assert_str_eq(rest, "create_issue");
	/* Another separator, and names that only look alike. */
	ck_assert_int_eq(gname_make("fs", "-", "read-file", out), 1);
	ck_assert_str_eq(out, "fs-read-file");
	ck_assert(!gname_split("fsx__read", "fs", "__", &rest));
	ck_assert(!gname_split("fs__", "fs", "__", &rest));
	ck_assert(!gname_split("f", "fs", "__", &rest));
}
END_TEST

START_TEST(test_gname_cleaned)
{
	char	 a[GNAME_MAX + 1], b[GNAME_MAX + 1], c[GNAME_MAX + 1];

	/* Dots, slashes, spaces and non-ASCII are not allowed. */
	ck_assert_int_eq(gname_make("fs", "__", "read.file", a), 0);
	ck_assert(gname_valid(a));
	ck_assert_int_eq(strncmp(a, "fs__read_file-", 14), 0);
	ck_assert_uint_eq(strlen(a), 14 + 8);
	/* Two names that clean up alike still differ by their hash. */
	ck_assert_int_eq(gname_make("fs", "__", "read/file", b), 0);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(gname_make("fs", "__", "read_file", c), 1);
	ck_assert_str_ne(a, c);
	/* The same input, the same name: nothing random. */
	ck_assert_int_eq(gname_make("fs", "__", "read.file", c), 0);
	ck_assert_str_eq(a, c);
	ck_assert_int_eq(gname_make("fs", "__", "\xc3\xa9t\xc3\xa9", a), 0);
	ck_assert(gname_valid(a));
	/* The member and the name are hashed apart: a|bc is not ab|c. */
	gname_make("a", ".", "bc", a);
	gname_make("ab", ".", "c", b);
	ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(test_gname_long)
{
	char	 name[300], a[GNAME_MAX + 1], b[GNAME_MAX + 1];

	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	ck_assert_int_eq(gname_make("srv", "__", name, a), 0);
	ck_assert_uint_eq(strlen(a), GNAME_MAX);
	ck_assert(gname_valid(a));
	name[200] = 'y';
	gname_make("srv", "__", name, b);
	ck_assert_uint_eq(strlen(b), GNAME_MAX);
	ck_assert_str_ne(a, b);
	/* Exactly 64 is kept; 65 is not. */
	memset(name, 'x', 64 - 5);
	name[64 - 5] = '\0';
	ck_assert_int_eq(gname_make("srv", "__", name, a), 1);
	ck_assert_uint_eq(strlen(a), 64);
	strcat(name, "x");
	ck_assert_int_eq(gname_make("srv", "__", name, a), 0);
	ck_assert_uint_eq(strlen(a), 64);
	ck_assert_int_eq(a[64 - 9], '-');
	/* Empty parts. */
	ck_assert_int_eq(gname_make("", "", "", a), 0);
	ck_assert(gname_valid(a));
}
END_TEST

START_TEST(test_gname_valid)
{
	char	 s[GNAME_MAX + 2];

	ck_assert(gname_valid("a"));
	ck_assert(gname_valid("A-z_09"));
	ck_assert(!gname_valid(""));
	ck_assert(!gname_valid("a b"));
	ck_assert(!gname_valid("a.b"));
	memset(s, 'a', GNAME_MAX);
	s[GNAME_MAX] = '\0';
	ck_assert(gname_valid(s));
	s[GNAME_MAX] = 'a';
	s[GNAME_MAX + 1] = '\0';
	ck_assert(!gname_valid(s));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("gname");
	tc = tcase_create("gname");
	tcase_add_test(tc, test_gname_plain);
	tcase_add_test(tc, test_gname_cleaned);
	tcase_add_test(tc, test_gname_long);
	tcase_add_test(tc, test_gname_valid);
	suite_add_tcase(s, tc);
	return (s);
}
