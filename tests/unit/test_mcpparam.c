/*
 * test_mcpparam.c -- unit tests for the tool parameters mirrored into
 * Mcp-Param-* headers: an inputSchema's x-mcp-header annotations read
 * and checked, a call's arguments as headers.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mcpparam.h"
#include "sbuf.h"
#include "unit.h"
#include "util.h"

/* Scan text; return the count, or -1 with the reason checked for want. */
static int
scan(const char *text, struct mcpparams *ps, const char *want)
{
	cJSON	*schema;
	char	*why;
	int	 rc;

	schema = cJSON_Parse(text);
	ck_assert_ptr_nonnull(schema);
	rc = mcpparam_scan(schema, ps, &why);
	cJSON_Delete(schema);
	if (rc == -1) {
		ck_assert_ptr_nonnull(why);
		ck_assert_uint_eq(ps->n, 0);
		if (want != NULL && strstr(why, want) == NULL)
			ck_abort_msg("reason \"%s\" lacks \"%s\"", why, want);
		free(why);
		return (-1);
	}
	ck_assert_ptr_null(why);
	ck_assert_ptr_null(want);
	return ((int)ps->n);
}

static void
invalid(const char *text, const char *want)
{
	struct mcpparams ps;

	ck_assert_int_eq(scan(text, &ps, want), -1);
}

/* The headers for args (JSON text), joined by "|"; NULL if refused. */
static char *
headers(const struct mcpparams *ps, const char *args)
{
	cJSON		*a;
	char		*out[MCPPARAM_MAX], *why;
	struct sbuf	 b;
	int		 n, i;

	a = cJSON_Parse(args);
	n = mcpparam_headers(ps, a, out, &why);
	cJSON_Delete(a);
	if (n == -1) {
		ck_assert_ptr_nonnull(why);
		free(why);
		return (NULL);
	}
	sbuf_init(&b, 64);
	for (i = 0; i < n; i++) {
		if (i > 0)
			sbuf_add(&b, "|", 1);
		sbuf_adds(&b, out[i]);
		free(out[i]);
	}
	return (b.p);
}

static void
headers_are(const struct mcpparams *ps, const char *args, const char *want)
{
	char	*got;

	got = headers(ps, args);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

/* The specification's example tool, and its call. */
START_TEST(test_mcpparam_example)
{
	struct mcpparams ps;

	ck_assert_int_eq(scan("{\"type\":\"object\",\"properties\":{"
	    "\"region\":{\"type\":\"string\",\"description\":\"The region\","
	    "\"x-mcp-header\":\"Region\"},"
	    "\"query\":{\"type\":\"string\"}},"
	    "\"required\":[\"region\",\"query\"]}", &ps, NULL), 1);
	ck_assert_str_eq(ps.p[0].name, "Region");
	ck_assert_uint_eq(ps.p[0].depth, 1);
	ck_assert_str_eq(ps.p[0].path[0], "region");
	ck_assert_int_eq(ps.p[0].kind, MCPPARAM_STRING);
	headers_are(&ps, "{\"region\":\"us-west1\",\"query\":\"SELECT 1\"}",
	    "Mcp-Param-Region: us-west1");
	mcpparam_clear(&ps);
}
END_TEST

/* The encoding examples, the types, absent and null values. */
START_TEST(test_mcpparam_values)
{
	struct mcpparams ps;

	ck_assert_int_eq(scan("{\"type\":\"object\",\"properties\":{"
	    "\"s\":{\"type\":\"string\",\"x-mcp-header\":\"Text\"},"
	    "\"i\":{\"type\":\"integer\",\"x-mcp-header\":\"Count\"},"
	    "\"b\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"
	    "\"o\":{\"type\":\"object\",\"properties\":{"
	    "\"deep\":{\"type\":\"string\",\"x-mcp-header\":\"Deep\"}}}}}",
	    &ps, NULL), 4);
	headers_are(&ps, "{\"s\":\"Hello, \xe4\xb8\x96\xe7\x95\x8c\"}",
	    "Mcp-Param-Text: =?base64?SGVsbG8sIOS4lueVjA==?=");
	headers_are(&ps, "{\"s\":\" padded \"}",
	    "Mcp-Param-Text: =?base64?IHBhZGRlZCA=?=");
	headers_are(&ps, "{\"s\":\"line1\\nline2\"}",
	    "Mcp-Param-Text: =?base64?bGluZTEKbGluZTI=?=");
	headers_are(&ps, "{\"s\":\"=?base64?literal?=\"}",
	    "Mcp-Param-Text: =?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
	headers_are(&ps, "{\"s\":\"a\\r\\nX-Evil: 1\"}",
	    "Mcp-Param-Text: =?base64?YQ0KWC1FdmlsOiAx?=");
	headers_are(&ps, "{\"i\":42,\"b\":true}",
	    "Mcp-Param-Count: 42|Mcp-Param-Flag: true");
	headers_are(&ps, "{\"i\":-7,\"b\":false}",
	    "Mcp-Param-Count: -7|Mcp-Param-Flag: false");
	headers_are(&ps, "{\"i\":42.0}", "Mcp-Param-Count: 42");
	headers_are(&ps, "{\"i\":9007199254740991}",
	    "Mcp-Param-Count: 9007199254740991");
	headers_are(&ps, "{\"i\":-9007199254740991}",
	    "Mcp-Param-Count: -9007199254740991");
	/* Outside the safe range, not whole, or not the JSON type: none. */
	headers_are(&ps, "{\"i\":9007199254740993}", "");
	headers_are(&ps, "{\"i\":1e300}", "");
	headers_are(&ps, "{\"i\":1.5}", "");
	headers_are(&ps, "{\"s\":{\"x\":1},\"b\":[true]}", "");
	/* Absent and null: omitted. */
	headers_are(&ps, "{}", "");
	headers_are(&ps, "{\"s\":null,\"i\":null}", "");
	headers_are(&ps, "null", "");
	headers_are(&ps, "[1,2]", "");
	headers_are(&ps, "{\"o\":{\"deep\":\"x\"}}", "Mcp-Param-Deep: x");
	headers_are(&ps, "{\"o\":\"not an object\"}", "");
	headers_are(&ps, "{\"s\":\"\"}", "Mcp-Param-Text: =?base64?" "?=");
	mcpparam_clear(&ps);
}
END_TEST

/* A value too long for a header refuses the call. */
START_TEST(test_mcpparam_long_value)
{
	struct mcpparams ps;
	char		*args, *got;
	size_t		 n = MCPPARAM_VALUE_MAX + 1, i;

	ck_assert_int_eq(scan("{\"properties\":{\"s\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"S\"},\"t\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"T\"}}}", &ps, NULL), 2);
	args = malloc(n + 32);
	ck_assert_ptr_nonnull(args);
	memcpy(args, "{\"t\":\"x\",\"s\":\"", 14);
	for (i = 0; i < n; i++)
		args[14 + i] = 'a';
	memcpy(args + 14 + n, "\"}", 3);
	ck_assert_ptr_null(headers(&ps, args));
	args[14 + n - 1] = '"';
	args[14 + n] = '}';
	args[14 + n + 1] = '\0';
	got = headers(&ps, args);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(strlen(got), 14 + 1 + strlen("Mcp-Param-S: ") +
	    MCPPARAM_VALUE_MAX);
	free(got);
	free(args);
	mcpparam_clear(&ps);
}
END_TEST

/* No annotations, or no schema: nothing, and valid. */
START_TEST(test_mcpparam_none)
{
	struct mcpparams ps;
	char		*why;

	ck_assert_int_eq(scan("{\"type\":\"object\"}", &ps, NULL), 0);
	ck_assert_int_eq(scan("{\"type\":\"object\",\"properties\":{"
	    "\"a\":{\"type\":\"string\"}}}", &ps, NULL), 0);
	ck_assert_int_eq(scan("true", &ps, NULL), 0);
	ck_assert_int_eq(mcpparam_scan(NULL, &ps, &why), 0);
	ck_assert_ptr_null(why);
	/* The key as a property's name is no annotation. */
	ck_assert_int_eq(scan("{\"properties\":{\"x-mcp-header\":"
	    "{\"type\":\"string\"}}}", &ps, NULL), 0);
	headers_are(&ps, "{\"x-mcp-header\":\"v\"}", "");
}
END_TEST

/* Every constraint the specification puts on an annotation. */
START_TEST(test_mcpparam_invalid)
{
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"\"}}}", "property \"a\": x-mcp-header is empty");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":7}}}", "is not a string");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"Has Space\"}}}",
	    "\"Has Space\" is not an HTTP token");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"CR\\r\\nX\"}}}", "\"CR\\r\\nX\" is not");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"a:b\"}}}", "not an HTTP token");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"caf\xc3\xa9\"}}}", "not an HTTP token");
	invalid("{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"Region\"},\"b\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"REGION\"}}}",
	    "property \"b\": x-mcp-header \"REGION\" is another's too");
	invalid("{\"properties\":{\"a\":{\"type\":\"number\","
	    "\"x-mcp-header\":\"N\"}}}", "type is not string, integer");
	invalid("{\"properties\":{\"a\":{\"type\":\"object\","
	    "\"x-mcp-header\":\"N\"}}}", "type is not");
	invalid("{\"properties\":{\"a\":{\"type\":\"array\","
	    "\"x-mcp-header\":\"N\"}}}", "type is not");
	invalid("{\"properties\":{\"a\":{\"x-mcp-header\":\"N\"}}}",
	    "type is not");
	invalid("{\"properties\":{\"a\":{\"type\":[\"string\",\"null\"],"
	    "\"x-mcp-header\":\"N\"}}}", "type is not");
	invalid("{\"type\":\"string\",\"x-mcp-header\":\"Root\"}",
	    "the schema's root: x-mcp-header on the root");
	invalid("{\"properties\":{\"a\":{\"type\":\"array\",\"items\":"
	    "{\"type\":\"string\",\"x-mcp-header\":\"I\"}}}}",
	    "property \"a\": x-mcp-header under \"items\"");
	invalid("{\"properties\":{\"a\":{\"type\":\"array\",\"prefixItems\":"
	    "[{\"type\":\"string\",\"x-mcp-header\":\"I\"}]}}}",
	    "under \"prefixItems\"");
	invalid("{\"oneOf\":[{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}]}", "property \"a\": x-mcp-header "
	    "under \"oneOf\"");
	invalid("{\"anyOf\":[{},{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}]}", "under \"anyOf\"");
	invalid("{\"allOf\":[{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}]}", "under \"allOf\"");
	invalid("{\"not\":{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}}", "under \"not\"");
	invalid("{\"if\":{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}}", "under \"if\"");
	invalid("{\"then\":{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}}", "under \"then\"");
	invalid("{\"else\":{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"O\"}}}}", "under \"else\"");
	/* What a $ref would reach: its definitions. */
	invalid("{\"properties\":{\"a\":{\"$ref\":\"#/$defs/r\"}},\"$defs\":"
	    "{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"R\"}}}",
	    "under \"$defs\"");
	invalid("{\"definitions\":{\"r\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"R\"}}}", "under \"definitions\"");
	invalid("{\"additionalProperties\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"A\"}}", "under \"additionalProperties\"");
	invalid("{\"patternProperties\":{\"^a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"P\"}}}", "under \"patternProperties\"");
	/* Deep under a forbidden keyword, properties again below it. */
	invalid("{\"properties\":{\"a\":{\"items\":{\"properties\":{\"b\":"
	    "{\"type\":\"string\",\"x-mcp-header\":\"B\"}}}}}}",
	    "property \"a.b\": x-mcp-header under \"items\"");
	/* Valid ones beside an invalid one: the tool goes all the same. */
	invalid("{\"properties\":{\"ok\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"Ok\"},\"bad\":{\"type\":\"number\","
	    "\"x-mcp-header\":\"Bad\"}}}", "property \"bad\"");
}
END_TEST

/* The bounds: many annotations, deep ones, long names. */
START_TEST(test_mcpparam_bounds)
{
	struct mcpparams ps;
	struct sbuf	 b;
	char		 name[MCPPARAM_NAME_MAX + 2];
	int		 i;

	sbuf_init(&b, 64);
	sbuf_adds(&b, "{\"properties\":{");
	for (i = 0; i < MCPPARAM_MAX; i++)
		sbuf_printf(&b, "%s\"p%d\":{\"type\":\"integer\","
		    "\"x-mcp-header\":\"H%d\"}", i > 0 ? "," : "", i, i);
	sbuf_adds(&b, "}}");
	ck_assert_int_eq(scan(b.p, &ps, NULL), MCPPARAM_MAX);
	mcpparam_clear(&ps);
	b.len = b.len - 2;
	sbuf_adds(&b, ",\"one\":{\"type\":\"integer\",\"x-mcp-header\":"
	    "\"More\"}}}");
	invalid(b.p, "more than 32 x-mcp-header annotations");
	free(b.p);

	/* As deep as allowed, and one more. */
	sbuf_init(&b, 64);
	for (i = 0; i < MCPPARAM_DEPTH_MAX; i++)
		sbuf_adds(&b, "{\"properties\":{\"k\":");
	sbuf_adds(&b, "{\"type\":\"string\",\"x-mcp-header\":\"D\"}");
	for (i = 0; i < MCPPARAM_DEPTH_MAX; i++)
		sbuf_adds(&b, "}}");
	ck_assert_int_eq(scan(b.p, &ps, NULL), 1);
	ck_assert_uint_eq(ps.p[0].depth, MCPPARAM_DEPTH_MAX);
	mcpparam_clear(&ps);
	free(b.p);
	sbuf_init(&b, 64);
	for (i = 0; i < MCPPARAM_DEPTH_MAX + 1; i++)
		sbuf_adds(&b, "{\"properties\":{\"k\":");
	sbuf_adds(&b, "{\"type\":\"string\",\"x-mcp-header\":\"D\"}");
	for (i = 0; i < MCPPARAM_DEPTH_MAX + 1; i++)
		sbuf_adds(&b, "}}");
	invalid(b.p, "deeper than 16 properties");
	free(b.p);

	/* A hundred levels with no annotation is fine. */
	sbuf_init(&b, 64);
	for (i = 0; i < 100; i++)
		sbuf_adds(&b, "{\"properties\":{\"k\":");
	sbuf_adds(&b, "{\"type\":\"string\"}");
	for (i = 0; i < 100; i++)
		sbuf_adds(&b, "}}");
	ck_assert_int_eq(scan(b.p, &ps, NULL), 0);
	free(b.p);

	memset(name, 'N', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	sbuf_init(&b, 64);
	sbuf_printf(&b, "{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"%s\"}}}", name);
	invalid(b.p, "longer than 128 bytes");
	free(b.p);
	name[sizeof name - 2] = '\0';
	sbuf_init(&b, 64);
	sbuf_printf(&b, "{\"properties\":{\"a\":{\"type\":\"string\","
	    "\"x-mcp-header\":\"%s\"}}}", name);
	ck_assert_int_eq(scan(b.p, &ps, NULL), 1);
	mcpparam_clear(&ps);
	free(b.p);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("mcpparam");
	tc = tcase_create("mcpparam");
	tcase_add_test(tc, test_mcpparam_example);
	tcase_add_test(tc, test_mcpparam_values);
	tcase_add_test(tc, test_mcpparam_long_value);
	tcase_add_test(tc, test_mcpparam_none);
	tcase_add_test(tc, test_mcpparam_invalid);
	tcase_add_test(tc, test_mcpparam_bounds);
	suite_add_tcase(s, tc);
	return (s);
}
