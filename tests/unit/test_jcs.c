/*
 * test_jcs.c -- unit tests for RFC 8785 canonical JSON: the RFC's own
 * examples (numbers, strings, the order of members), the pretty form,
 * the bounds, and the SHA-256.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jcs.h"
#include "unit.h"

static char *
canon(const char *json)
{
	cJSON	*v = cJSON_Parse(json);
	char	*text;

	ck_assert_ptr_nonnull(v);
	text = jcs_text(v, 1 << 20, 0, NULL, NULL);
	cJSON_Delete(v);
	ck_assert_ptr_nonnull(text);
	return (text);
}

static void
number_is(uint64_t bits, const char *want)
{
	double	 d;
	char	 buf[48];

	memcpy(&d, &bits, sizeof d);
	jcs_number(d, buf, sizeof buf);
	ck_assert_msg(strcmp(buf, want) == 0, "%016llx: %s, not %s",
	    (unsigned long long)bits, buf, want);
}

/* RFC 8785, appendix B: IEEE 754 values and their text. */
START_TEST(test_numbers_appendix_b)
{
	number_is(0x0000000000000000ULL, "0");
	number_is(0x8000000000000000ULL, "0");
	number_is(0x0000000000000001ULL, "5e-324");
	number_is(0x8000000000000001ULL, "-5e-324");
	number_is(0x7fefffffffffffffULL, "1.7976931348623157e+308");
	number_is(0xffefffffffffffffULL, "-1.7976931348623157e+308");
	number_is(0x4340000000000000ULL, "9007199254740992");
	number_is(0xc340000000000000ULL, "-9007199254740992");
	number_is(0x4430000000000000ULL, "295147905179352830000");
	number_is(0x44b52d02c7e14af5ULL, "9.999999999999997e+22");
	number_is(0x44b52d02c7e14af6ULL, "1e+23");
	number_is(0x44b52d02c7e14af7ULL, "1.0000000000000001e+23");
	number_is(0x444b1ae4d6e2ef4eULL, "999999999999999700000");
	number_is(0x444b1ae4d6e2ef4fULL, "999999999999999900000");
	number_is(0x444b1ae4d6e2ef50ULL, "1e+21");
	number_is(0x3eb0c6f7a0b5ed8cULL, "9.999999999999997e-7");
	number_is(0x3eb0c6f7a0b5ed8dULL, "0.000001");
	number_is(0x41b3de4355555553ULL, "333333333.3333332");
	number_is(0x41b3de4355555554ULL, "333333333.33333325");
	number_is(0x41b3de4355555555ULL, "333333333.3333333");
	number_is(0x41b3de4355555556ULL, "333333333.3333334");
	number_is(0x41b3de4355555557ULL, "333333333.33333343");
	number_is(0xbecbf647612f3696ULL, "-0.0000033333333333333333");
	number_is(0x43143ff3c1cb0959ULL, "1424953923781206.2");
}
END_TEST

/* RFC 8785, 3.2.2: the example of the whole scheme. */
START_TEST(test_rfc_example)
{
	char	*t;

	t = canon("{\"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, "
	    "0.000000000000000000000000001], \"string\": "
	    "\"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\", "
	    "\"literals\": [null, true, false]}");
	ck_assert_str_eq(t, "{\"literals\":[null,true,false],\"numbers\":"
	    "[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":"
	    "\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
	free(t);
}
END_TEST

/* RFC 8785, 3.2.3: members sorted by UTF-16 code units. */
START_TEST(test_sorting)
{
	char	*t;

	t = canon("{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage "
	    "Return\", \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\", "
	    "\"1\": \"One\", \"\\ud83d\\ude00\": \"Emoji: Grinning Face\", "
	    "\"\\u0080\": \"Control\", \"\\u00f6\": \"Latin Small Letter O "
	    "With Diaeresis\"}");
	ck_assert_str_eq(t, "{\"\\r\":\"Carriage Return\",\"1\":\"One\","
	    "\"\xc2\x80\":\"Control\",\"\xc3\xb6\":\"Latin Small Letter O "
	    "With Diaeresis\",\"\xe2\x82\xac\":\"Euro Sign\","
	    "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
	    "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
	free(t);
}
END_TEST

/* Whitespace and order do not count; a value does. */
START_TEST(test_same_and_different)
{
	char	*a, *b, *c;
	char	 ha[JCS_HEX_BYTES], hb[JCS_HEX_BYTES], hc[JCS_HEX_BYTES];

	a = canon("{\"b\": [1, 2.0, {\"y\": 1, \"x\": 2}], \"a\": \"t\"}");
	b = canon("{ \"a\":\"t\" ,\"b\":[1.0,2,{\"x\":2,\"y\":1e0}]}");
	c = canon("{\"a\": \"t \", \"b\": [1, 2, {\"x\": 2, \"y\": 1}]}");
	ck_assert_str_eq(a, b);
	ck_assert_str_eq(a, "{\"a\":\"t\",\"b\":[1,2,{\"x\":2,\"y\":1}]}");
	jcs_sha256_hex(a, strlen(a), ha);
	jcs_sha256_hex(b, strlen(b), hb);
	jcs_sha256_hex(c, strlen(c), hc);
	ck_assert_str_eq(ha, hb);
	ck_assert_str_ne(ha, hc);
	ck_assert_uint_eq(strlen(ha), 64);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_sha256)
{
	char	 h[JCS_HEX_BYTES];

	jcs_sha256_hex("abc", 3, h);
	ck_assert_str_eq(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9c"
	    "b410ff61f20015ad");
}
END_TEST

/* Repeated members are kept, in their order: the text tells them apart. */
START_TEST(test_repeated_members)
{
	char	*a, *b;

	a = canon("{\"d\": \"x\", \"d\": \"y\"}");
	b = canon("{\"d\": \"y\", \"d\": \"x\"}");
	ck_assert_str_eq(a, "{\"d\":\"x\",\"d\":\"y\"}");
	ck_assert_str_ne(a, b);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_pretty)
{
	cJSON	*v = cJSON_Parse("{\"b\":[1,{}],\"a\":{\"c\":null}}");
	char	*t;

	t = jcs_text(v, 1 << 20, 1, NULL, NULL);
	ck_assert_str_eq(t, "{\n  \"a\": {\n    \"c\": null\n  },\n"
	    "  \"b\": [\n    1,\n    {}\n  ]\n}");
	free(t);
	cJSON_Delete(v);
}
END_TEST

START_TEST(test_bounds)
{
	cJSON		*v, *inner;
	const char	*cause = NULL;
	char		*t;
	int		 i;

	v = cJSON_Parse("{\"description\": \"0123456789\"}");
	ck_assert_ptr_null(jcs_text(v, 10, 0, NULL, &cause));
	ck_assert_ptr_nonnull(cause);
	t = jcs_text(v, 30, 0, NULL, &cause);
	ck_assert_ptr_nonnull(t);
	free(t);
	cJSON_Delete(v);

	v = cJSON_CreateArray();
	inner = v;
	for (i = 0; i < JCS_MAX_DEPTH + 2; i++) {
		cJSON *next = cJSON_CreateArray();

		cJSON_AddItemToArray(inner, next);
		inner = next;
	}
	cause = NULL;
	ck_assert_ptr_null(jcs_text(v, 1 << 20, 0, NULL, &cause));
	ck_assert_str_eq(cause, "it is nested too deeply");
	cJSON_Delete(v);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("jcs");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_numbers_appendix_b);
	tcase_add_test(tc, test_rfc_example);
	tcase_add_test(tc, test_sorting);
	tcase_add_test(tc, test_same_and_different);
	tcase_add_test(tc, test_sha256);
	tcase_add_test(tc, test_repeated_members);
	tcase_add_test(tc, test_pretty);
	tcase_add_test(tc, test_bounds);
	suite_add_tcase(s, tc);
	return (s);
}
