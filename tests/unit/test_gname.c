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

	/* Dots are allowed (MCP 2025-11-25); slashes, spaces are not. */
	ck_assert_int_eq(gname_make("fs", "__", "read.file", a), 1);
	ck_assert_str_eq(a, "fs__read.file");
	ck_assert_int_eq(gname_make("my.fs", ".", "read", a), 1);
	ck_assert_str_eq(a, "my.fs.read");
	ck_assert_int_eq(gname_make("fs", "__", "read/file", a), 0);
	ck_assert(gname_valid(a));
	ck_assert_int_eq(strncmp(a, "fs__read_file-", 14), 0);
	ck_assert_uint_eq(strlen(a), 14 + 8);
	/* Two names that clean up alike still differ by their hash. */
	ck_assert_int_eq(gname_make("fs", "__", "read file", b), 0);
	ck_assert_str_ne(a, b);
	ck_assert_int_eq(gname_make("fs", "__", "read_file", c), 1);
	ck_assert_str_ne(a, c);
	/* The same input, the same name: nothing random. */
	ck_assert_int_eq(gname_make("fs", "__", "read/file", c), 0);
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
	ck_assert(!gname_valid("a/b"));
	ck_assert(gname_valid("a.b"));
	memset(s, 'a', GNAME_MAX);
	s[GNAME_MAX] = '\0';
	ck_assert(gname_valid(s));
	s[GNAME_MAX] = 'a';
	s[GNAME_MAX + 1] = '\0';
	ck_assert(!gname_valid(s));
}
END_TEST

START_TEST(test_gname_plain_split)
{
	char		 name[GNAME_MAX + 8];
	const char	*rest;

	ck_assert(gname_plain_split("fs__files.delete", "fs", "__", &rest));
	ck_assert_str_eq(rest, "files.delete");
	/* Not a name the group gives out as it is. */
	ck_assert(!gname_plain_split("fs__files/delete", "fs", "__", &rest));
	ck_assert(!gname_plain_split("fs__", "fs", "__", &rest));
	ck_assert(!gname_plain_split("gs__x", "fs", "__", &rest));
	memset(name, 'x', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	memcpy(name, "fs__", 4);
	ck_assert(!gname_plain_split(name, "fs", "__", &rest));
	name[GNAME_MAX] = '\0';
	ck_assert(gname_plain_split(name, "fs", "__", &rest));
}
END_TEST

/* Does the list of spellings hold s? */
static int
has(const struct gname_spellings *sp, const char *s)
{
	size_t	 i;

	for (i = 0; i < sp->n; i++)
		if (strcmp(sp->v[i], s) == 0)
			return (1);
	return (0);
}

START_TEST(test_gname_spellings)
{
	struct gname_spellings	 sp;
	char			 old[GNAME_MAX + 1];

	/* A plain name: given out as MEMBER SEP NAME, and the member's. */
	gname_spellings(&sp, "fs", "__", "read_file");
	ck_assert_uint_eq(sp.n, 2);
	ck_assert_str_eq(sp.v[0], "fs__read_file");
	ck_assert(has(&sp, "read_file"));
	gname_spellings_free(&sp);
	/* A dot: as given out now, and as before '.' was allowed. */
	gname_spellings(&sp, "fs", "__", "files.delete");
	ck_assert_uint_eq(sp.n, 3);
	ck_assert_str_eq(sp.v[0], "fs__files.delete");
	ck_assert(has(&sp, "files.delete"));
	ck_assert_int_eq(strncmp(sp.nodot, "fs__files_delete-", 17), 0);
	ck_assert(has(&sp, sp.nodot));
	gname_spellings_free(&sp);
	/* Cleaned and hashed: MEMBER SEP NAME as the member spells it too. */
	gname_spellings(&sp, "fs", "__", "files/delete");
	ck_assert_uint_eq(sp.n, 3);
	gname_make("fs", "__", "files/delete", old);
	ck_assert_str_eq(sp.v[0], old);
	ck_assert(has(&sp, "files/delete"));
	ck_assert(has(&sp, "fs__files/delete"));
	gname_spellings_free(&sp);
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
	tcase_add_test(tc, test_gname_plain_split);
	tcase_add_test(tc, test_gname_spellings);
	suite_add_tcase(s, tc);
	return (s);
}
