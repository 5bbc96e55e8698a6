/*
 * test_callargs.c -- unit tests for mcpctl call's arguments
 * (clients/callargs.c): one JSON object, or KEY=VALUE typed from the
 * tool's inputSchema, guessed where the schema does not say.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "callargs.h"
#include "diag.h"
#include "unit.h"

static const char *schema_text =
    "{\"type\":\"object\",\"properties\":{"
    "\"message\":{\"type\":\"string\"},"
    "\"count\":{\"type\":\"integer\"},"
    "\"ratio\":{\"type\":\"number\"},"
    "\"loud\":{\"type\":\"boolean\"},"
    "\"opts\":{\"type\":\"object\"},"
    "\"tags\":{\"type\":\"array\"},"
    "\"note\":{\"type\":[\"string\",\"null\"]},"
    "\"mode\":{\"enum\":[\"1\",\"2\"]},"
    "\"either\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]},"
    "\"mixed\":{\"type\":[\"string\",\"number\"]},"
    "\"ref\":{\"$ref\":\"#/defs/x\"},"
    "\"free\":{}}}";

/* The arguments' compact JSON for words (NULL-ended), or NULL on error. */
static char *
parse(const char *schema, const char **words, int *rc)
{
	cJSON	*s = NULL, *out;
	char	*text;
	int	 argc = 0;

	while (words[argc] != NULL)
		argc++;
	if (schema != NULL)
		ck_assert_ptr_nonnull(s = cJSON_Parse(schema));
	*rc = callargs_parse(argc, (char **)words, s, &out);
	cJSON_Delete(s);
	if (out == NULL)
		return (NULL);
	text = cJSON_PrintUnformatted(out);
	cJSON_Delete(out);
	return (text);
}

static void
expect(const char *schema, const char **words, const char *want)
{
	char	*got;
	int	 rc;

	got = parse(schema, words, &rc);
	ck_assert_int_eq(rc, DIAG_EXIT_OK);
	ck_assert_ptr_nonnull(got);
	ck_assert_msg(strcmp(got, want) == 0, "got %s, want %s", got, want);
	free(got);
}

START_TEST(test_typed)
{
	const char	*w1[] = { "message=42", "count=7", "ratio=0.5",
	    "loud=true", "opts={\"a\":[1]}", "tags=[\"x\"]", "note=null",
	    "mode=1", "free=42", NULL };
	const char	*w2[] = { "message=true", "message2=true", NULL };
	const char	*w3[] = { "either=null", "note=x", "mixed=42",
	    "ref=42", NULL };

	expect(schema_text, w1, "{\"message\":\"42\",\"count\":7,"
	    "\"ratio\":0.5,\"loud\":true,\"opts\":{\"a\":[1]},"
	    "\"tags\":[\"x\"],\"note\":null,\"mode\":\"1\",\"free\":42}");
	/* A property the schema does not have: guessed. */
	expect(schema_text, w2, "{\"message\":\"true\",\"message2\":true}");
	/* anyOf's types; several or a $ref: guessed. */
	expect(schema_text, w3, "{\"either\":null,\"note\":\"x\","
	    "\"mixed\":42,\"ref\":42}");
}
END_TEST

/* What its type does not take is guessed, for the server to judge. */
START_TEST(test_not_of_the_type)
{
	const char	*w[] = { "count=many", "loud=yes", "opts=[1]",
	    "ratio=007", NULL };

	expect(schema_text, w, "{\"count\":\"many\",\"loud\":\"yes\","
	    "\"opts\":[1],\"ratio\":\"007\"}");
}
END_TEST

/* Numbers keep their text: big integers are not rounded. */
START_TEST(test_exact_numbers)
{
	const char	*w[] = { "count=12345678901234567890", "free=1e400",
	    NULL };

	expect(schema_text, w, "{\"count\":12345678901234567890,"
	    "\"free\":1e400}");
}
END_TEST

START_TEST(test_no_schema)
{
	const char	*w[] = { "message=42", "s=hello", "n=null", "z=007",
	    "q=\"42\"", NULL };

	expect(NULL, w, "{\"message\":42,\"s\":\"hello\",\"n\":null,"
	    "\"z\":\"007\",\"q\":\"42\"}");
}
END_TEST

START_TEST(test_object)
{
	const char	*w[] = { " {\"message\": 42}", NULL };
	const char	*two[] = { "{}", "a=1", NULL };
	const char	*bad[] = { "{\"a\":", NULL };
	const char	*nokey[] = { "=1", NULL };
	const char	*twice[] = { "a=1", "a=2", NULL };
	int		 rc;

	/* An object is taken as it is, whatever the schema. */
	expect(schema_text, w, "{\"message\":42}");
	ck_assert_ptr_null(parse(NULL, two, &rc));
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	ck_assert_ptr_null(parse(NULL, bad, &rc));
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	ck_assert_ptr_null(parse(NULL, nokey, &rc));
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	ck_assert_ptr_null(parse(NULL, twice, &rc));
	ck_assert_int_eq(rc, DIAG_EXIT_USAGE);
	ck_assert(!callargs_keyvalue(1, (char **)w));
	ck_assert(callargs_keyvalue(1, (char **)twice));
	ck_assert(!callargs_keyvalue(0, NULL));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("callargs");
	tc = tcase_create("callargs");
	tcase_add_test(tc, test_typed);
	tcase_add_test(tc, test_not_of_the_type);
	tcase_add_test(tc, test_exact_numbers);
	tcase_add_test(tc, test_no_schema);
	tcase_add_test(tc, test_object);
	suite_add_tcase(s, tc);
	return (s);
}
