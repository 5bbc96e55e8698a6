/*
 * test_jsonc.c -- unit tests for JSON with comments and trailing commas
 * (src/jsonc.c), the environment files (src/dotenv.c) and the diff shown
 * before mcpctl writes a file (src/udiff.c).
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dotenv.h"
#include "jsonc.h"
#include "udiff.h"
#include "unit.h"

#define S(lit)	(lit), sizeof (lit) - 1

/* jsonc_parse of text must print (unformatted) as want. */
static void
assert_parses(const char *text, size_t len, const char *want)
{
	cJSON	*v;
	char	*cause = NULL, *got;

	v = jsonc_parse(text, len, &cause);
	ck_assert_msg(v != NULL, "refused: %s", cause);
	got = cJSON_PrintUnformatted(v);
	ck_assert_str_eq(got, want);
	free(got);
	cJSON_Delete(v);
}

/* jsonc_parse of text must fail with exactly want. */
static void
assert_refused(const char *text, size_t len, const char *want)
{
	cJSON	*v;
	char	*cause = NULL;

	v = jsonc_parse(text, len, &cause);
	ck_assert_ptr_null(v);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_jsonc_comments)
{
	assert_parses(S("// top\n{\"a\": 1 /* one */, \"b\": [2, 3]}\n"),
	    "{\"a\":1,\"b\":[2,3]}");
	assert_parses(S("{\"a\"/**/:/*\n\n*/\"x\"}// end"), "{\"a\":\"x\"}");
	assert_parses(S("/* a */ /** b **/ 7 //"), "7");
	/* CR LF line ends around a line comment. */
	assert_parses(S("{\r\n// c\r\n\"a\": true\r\n}"), "{\"a\":true}");
}
END_TEST

START_TEST(test_jsonc_strings_keep_slashes)
{
	assert_parses(S("{\"url\": \"https://x/y\", \"g\": \"/* no */\"}"),
	    "{\"url\":\"https://x/y\",\"g\":\"/* no */\"}");
	/* An escaped quote does not end the string. */
	assert_parses(S("[\"a\\\"// b\", \"\\\\\"] // c"),
	    "[\"a\\\"// b\",\"\\\\\"]");
}
END_TEST

START_TEST(test_jsonc_trailing_commas)
{
	assert_parses(S("{\"a\": [1, 2,], \"b\": {\"c\": 1,},}"),
	    "{\"a\":[1,2],\"b\":{\"c\":1}}");
	assert_parses(S("[1, // one\n /* x */ ]"), "[1]");
	assert_parses(S("[[[[{\"a\":[{},],},],],],]"), "[[[[{\"a\":[{}]}]]]]");
	/* A comma alone, or two, is still an error. */
	assert_refused(S("[,]"), "line 1, column 2: invalid JSON");
	assert_refused(S("[1,,]"), "line 1, column 4: invalid JSON");
	/* A comma in a string is not a trailing comma. */
	assert_parses(S("[\",\"]"), "[\",\"]");
}
END_TEST

START_TEST(test_jsonc_errors)
{
	assert_refused(S("{\n  \"a\": 1\n  \"b\": 2\n}"),
	    "line 3, column 3: invalid JSON");
	assert_refused(S("{\"a\": 1} /* open"),
	    "line 1, column 10: unterminated comment");
	assert_refused(S("{\"a\":\n \"b"), "line 2, column 2: unterminated "
	    "string");
	assert_refused(S("[\"a\nb\"]"), "line 1, column 4: unterminated "
	    "string");
	assert_refused(S("[\"a\tb\"]"), "line 1, column 4: control "
	    "character in a string");
	assert_refused(S("[1]\0"), "line 1, column 4: NUL byte");
	/* Found by fuzz_jsonc: cJSON takes any control character for a blank. */
	assert_refused(S("{\"a\":\x1d[]}"), "line 1, column 6: control "
	    "character");
	/* Found by fuzz_jsonc: an escaped NUL was let through. */
	assert_refused(S("[\"a\\\0\"]"), "line 1, column 5: NUL byte");
	assert_refused(S("[\"x\\u0000\"]"), "line 1, column 4: \\u0000 in a "
	    "string");
	assert_refused(S("// only a comment\n"), "line 2, column 1: no JSON "
	    "value");
	assert_refused(S(""), "line 1, column 1: no JSON value");
	assert_refused(S("{} {}"), "line 1, column 4: invalid JSON");
}
END_TEST

START_TEST(test_jsonc_offsets_kept)
{
	const char	 text[] = "{ // c\n \"a\": [1,], /* x */ \"b\": 2 }";
	char		*clean, *cause;
	size_t		 i;

	clean = jsonc_clean(text, sizeof text - 1, &cause);
	ck_assert_ptr_nonnull(clean);
	ck_assert_uint_eq(strlen(clean), sizeof text - 1);
	for (i = 0; i < sizeof text - 1; i++) {
		if (text[i] == '\n')
			ck_assert_int_eq(clean[i], '\n');
	}
	ck_assert_str_eq(clean, "{     \n \"a\": [1 ],         \"b\": 2 }");
	free(clean);
}
END_TEST

START_TEST(test_jsonc_find)
{
	const char		 text[] = "{\"x\": {\"a\\u0062\": [1, {\"c\": "
	    "\"}\"}], \"d\": {}}, \"x\": 0}";
	const char		*p1[] = { "x", "ab" };
	const char		*p2[] = { "x", "d" };
	const char		*p3[] = { "x", "zz" };
	const char		*p4[] = { "x", "d", "e" };
	struct jsonc_span	 span;

	ck_assert_int_eq(jsonc_find(text, sizeof text - 1, p1, 2, &span), 1);
	ck_assert_uint_eq(span.end - span.start, 15);
	ck_assert(strncmp(text + span.start, "[1, {\"c\": \"}\"}]", 15) ==
	    0);
	ck_assert(strncmp(text + span.key_start, "\"a\\u0062\"", 9) == 0);
	ck_assert_int_eq(jsonc_find(text, sizeof text - 1, p2, 2, &span), 1);
	ck_assert(strncmp(text + span.start, "{}", 2) == 0);
	ck_assert_int_eq(jsonc_last_member(text, span.start, span.end,
	    &span), 0);
	ck_assert_int_eq(jsonc_find(text, sizeof text - 1, p3, 2, &span), 0);
	ck_assert_int_eq(jsonc_find(text, sizeof text - 1, p4, 3, &span), 0);
	/* The first of repeated keys. */
	ck_assert_int_eq(jsonc_find(text, sizeof text - 1, p1, 1, &span), 1);
	ck_assert_int_eq(text[span.start], '{');
}
END_TEST

/* dotenv_parse of text must give the entries in want (NULL-ended). */
static void
assert_dotenv(const char *text, size_t len, const char *const *want)
{
	char	**env, *cause;
	size_t	 n, i;

	ck_assert_msg(dotenv_parse(text, len, &env, &n, &cause) == 0,
	    "refused: %s", cause);
	for (i = 0; want[i] != NULL; i++) {
		ck_assert_uint_lt(i, n);
		ck_assert_str_eq(env[i], want[i]);
	}
	ck_assert_uint_eq(i, n);
	ck_assert_ptr_null(env[n]);
	dotenv_free(env);
}

static void
assert_dotenv_refused(const char *text, size_t len, const char *want)
{
	char	**env, *cause;
	size_t	 n;

	ck_assert_int_eq(dotenv_parse(text, len, &env, &n, &cause), -1);
	ck_assert_ptr_null(env);
	ck_assert_str_eq(cause, want);
	free(cause);
}

START_TEST(test_dotenv_forms)
{
	const char	*w1[] = { "A=1", "B=two words", "C=", "D=x#y",
	    NULL };
	const char	*w2[] = { "Q=a \"b\"\n$c\\d", "S=no \\n $HOME", NULL };
	const char	*w3[] = { "K=2", "E=x", NULL };

	assert_dotenv(S("# comment\n\nA=1\n  B = two words   # note\nC=\n"
	    "D=x#y"), w1);
	assert_dotenv(S("Q=\"a \\\"b\\\"\\n\\$c\\d\"  # c\nS='no \\n $HOME'"),
	    w2);
	/* export, CR LF, a later line wins in the first line's place. */
	assert_dotenv(S("K=1\r\nexport E=x\r\n\r\nK=2\r\n"), w3);
}
END_TEST

START_TEST(test_dotenv_errors)
{
	assert_dotenv_refused(S("A=1\nnot a line\n"), "line 2: expected "
	    "KEY=VALUE (KEY of letters, digits and '_')");
	assert_dotenv_refused(S("1A=x"), "line 1: expected KEY=VALUE (KEY of "
	    "letters, digits and '_')");
	assert_dotenv_refused(S("\n\nA=\"secret"), "line 3: unterminated "
	    "quote");
	assert_dotenv_refused(S("A='x' y"), "line 1: text after the closing "
	    "quote");
	assert_dotenv_refused(S("A=x\0y"), "a NUL byte");
}
END_TEST

START_TEST(test_udiff_hunks)
{
	const char	 a[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
	const char	 b[] = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n";
	char		*d;

	d = udiff(S(a), S(b), "old", "new");
	ck_assert_str_eq(d, "--- old\n+++ new\n"
	    "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
	    "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n");
	free(d);
	d = udiff(S(a), S(a), "old", "new");
	ck_assert_str_eq(d, "");
	free(d);
	d = udiff(S(""), S("x"), "/dev/null", "new");
	ck_assert_str_eq(d, "--- /dev/null\n+++ new\n@@ -0,0 +1,1 @@\n+x\n"
	    "\\ No newline at end of file\n");
	free(d);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("jsonc");
	tc = tcase_create("jsonc");
	tcase_add_test(tc, test_jsonc_comments);
	tcase_add_test(tc, test_jsonc_strings_keep_slashes);
	tcase_add_test(tc, test_jsonc_trailing_commas);
	tcase_add_test(tc, test_jsonc_errors);
	tcase_add_test(tc, test_jsonc_offsets_kept);
	tcase_add_test(tc, test_jsonc_find);
	suite_add_tcase(s, tc);
	tc = tcase_create("dotenv");
	tcase_add_test(tc, test_dotenv_forms);
	tcase_add_test(tc, test_dotenv_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("udiff");
	tcase_add_test(tc, test_udiff_hunks);
	suite_add_tcase(s, tc);
	return (s);
}
