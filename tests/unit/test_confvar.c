/*
 * test_confvar.c -- unit tests for the "${...}" forms of mcpd's
 * configuration strings (src/confvar.c): every piece of a string, what
 * each holds, and the names.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "confvar.h"
#include "unit.h"

/* The pieces of s, one a line: KIND:raw[:name[:text]]. */
static void
assert_pieces(const char *s, const char *want)
{
	struct confvar_piece	 p;
	static const char	*kinds[] = { "T", "V", "C", "U" };
	char			 got[1024];
	size_t			 len = 0;

	got[0] = '\0';
	while (confvar_next(&s, &p)) {
		len += snprintf(got + len, sizeof got - len, "%s:%.*s",
		    kinds[p.kind], (int)p.raw_len, p.raw);
		if (p.kind == CONFVAR_VARIABLE || p.kind == CONFVAR_CREDENTIAL)
			len += snprintf(got + len, sizeof got - len, ":%.*s",
			    (int)p.name_len, p.name);
		if (p.kind == CONFVAR_TEXT || p.has_default)
			len += snprintf(got + len, sizeof got - len, "=%.*s",
			    (int)p.text_len, p.text);
		len += snprintf(got + len, sizeof got - len, "\n");
		ck_assert_uint_lt(len, sizeof got);
	}
	ck_assert_str_eq(got, want);
}

START_TEST(test_confvar_pieces)
{
	assert_pieces("", "");
	assert_pieces("plain", "T:plain=plain\n");
	assert_pieces("a${B}c", "T:a=a\nV:${B}:B\nT:c=c\n");
	/* "$$" is one '$'; a '$' without '{' is itself. */
	assert_pieces("$$5 $x", "T:$$=$\nT:5 =5 \nT:$=$\nT:x=x\n");
	assert_pieces("${A:-d:-e}", "V:${A:-d:-e}:A=d:-e\n");
	assert_pieces("${A:-}", "V:${A:-}:A=\n");
	assert_pieces("${A:b}", "V:${A:b}:A:b\n");
	assert_pieces("${credential:gh-token}x",
	    "C:${credential:gh-token}:gh-token\nT:x=x\n");
	assert_pieces("${credential:}", "C:${credential:}:\n");
	/* The default runs to the first '}'. */
	assert_pieces("${A:-{x}}", "V:${A:-{x}:A={x\nT:}=}\n");
	assert_pieces("${}", "V:${}:\n");
	assert_pieces("x${A", "T:x=x\nU:${A\n");
	assert_pieces("$", "T:$=$\n");
}
END_TEST

START_TEST(test_confvar_names)
{
	ck_assert_int_eq(confvar_valid_variable("GITHUB_TOKEN", 12), 1);
	ck_assert_int_eq(confvar_valid_variable("_a1", 3), 1);
	ck_assert_int_eq(confvar_valid_variable("1a", 2), 0);
	ck_assert_int_eq(confvar_valid_variable("env:A", 5), 0);
	ck_assert_int_eq(confvar_valid_variable("", 0), 0);
	/* Only the given length counts. */
	ck_assert_int_eq(confvar_valid_variable("AB}", 2), 1);

	ck_assert_int_eq(confvar_valid_credential("github", 6), 1);
	ck_assert_int_eq(confvar_valid_credential("a.b@c_d-e", 9), 1);
	ck_assert_int_eq(confvar_valid_credential(".", 1), 0);
	ck_assert_int_eq(confvar_valid_credential("..", 2), 0);
	ck_assert_int_eq(confvar_valid_credential("../x", 4), 0);
	ck_assert_int_eq(confvar_valid_credential("a/b", 3), 0);
	ck_assert_int_eq(confvar_valid_credential("", 0), 0);

	ck_assert_int_eq(confvar_passed("HOME", 4), 1);
	ck_assert_int_eq(confvar_passed("HOMEX", 4), 1);
	ck_assert_int_eq(confvar_passed("HOMEX", 5), 0);
	ck_assert_int_eq(confvar_passed("HOM", 3), 0);
	ck_assert_int_eq(confvar_passed("GITHUB_TOKEN", 12), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("confvar");
	tc = tcase_create("confvar");
	tcase_add_test(tc, test_confvar_pieces);
	tcase_add_test(tc, test_confvar_names);
	suite_add_tcase(s, tc);
	return (s);
}
