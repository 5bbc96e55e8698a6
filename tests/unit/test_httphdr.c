/*
 * test_httphdr.c -- unit tests for Retry-After, media types,
 * WWW-Authenticate's Bearer challenge and header lines.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "httphdr.h"
#include "unit.h"
#include "util.h"

/* Sun, 06 Nov 1994 08:49:37 GMT, the example of RFC 9110. */
#define T1994		((time_t)784111777)
#define CAP		((uint64_t)3600 * 1000)

static void
assert_retry(const char *v, time_t now, uint64_t cap, uint64_t want)
{
	uint64_t	 got = 12345;

	ck_assert_msg(httphdr_retry_after(v, now, cap, &got) == 0,
	    "Retry-After \"%s\" refused", v);
	ck_assert_msg(got == want, "Retry-After \"%s\": %llu ms, want %llu",
	    v, (unsigned long long)got, (unsigned long long)want);
}

static void
assert_retry_bad(const char *v)
{
	uint64_t	 got = 12345;

	ck_assert_msg(httphdr_retry_after(v, T1994, CAP, &got) == -1,
	    "Retry-After \"%s\" accepted (%llu ms)", v,
	    (unsigned long long)got);
	ck_assert_msg(got == 12345, "a refused Retry-After set the delay");
}

START_TEST(test_retry_after_seconds)
{
	assert_retry("0", T1994, CAP, 0);
	assert_retry("120", T1994, CAP, 120000);
	assert_retry(" \t 7 \t", T1994, CAP, 7000);
	assert_retry("0007", T1994, CAP, 7000);
	/* Capped, and no overflow however long the number. */
	assert_retry("3600", T1994, CAP, CAP);
	assert_retry("3601", T1994, CAP, CAP);
	assert_retry("18446744073709551616", T1994, CAP, CAP);
	assert_retry("99999999999999999999999999999999999999999", T1994, CAP,
	    CAP);
	assert_retry("18446744073709551615", T1994, UINT64_MAX, UINT64_MAX);
	assert_retry("18446744073709552", T1994, UINT64_MAX, UINT64_MAX);
	assert_retry("18446744073709551", T1994, UINT64_MAX,
	    (uint64_t)18446744073709551 * 1000);
	assert_retry("18446744073709550", T1994, UINT64_MAX,
	    (uint64_t)18446744073709550 * 1000);
	assert_retry("5", T1994, 1500, 1500);
	assert_retry("5", T1994, 0, 0);
}
END_TEST

START_TEST(test_retry_after_dates)
{
	/* The three forms of RFC 9110 section 5.6.7, 30 s from now. */
	assert_retry("Sun, 06 Nov 1994 08:50:07 GMT", T1994, CAP, 30000);
	assert_retry("Sunday, 06-Nov-94 08:50:07 GMT", T1994, CAP, 30000);
	assert_retry("Sun Nov  6 08:50:07 1994", T1994, CAP, 30000);
	assert_retry("Sun Nov 06 08:50:07 1994", T1994, CAP, 30000);
	/* Now and the past are no wait. */
	assert_retry("Sun, 06 Nov 1994 08:49:37 GMT", T1994, CAP, 0);
	assert_retry("Thu, 01 Jan 1970 00:00:00 GMT", T1994, CAP, 0);
	assert_retry("Mon, 01 Jan 0001 00:00:00 GMT", T1994, CAP, 0);
	/* Far ahead: capped. */
	assert_retry("Fri, 31 Dec 9999 23:59:59 GMT", T1994, CAP, CAP);
	/* A leap day, a leap second. */
	assert_retry("Thu, 29 Feb 1996 00:00:00 GMT", (time_t)825552000 - 1,
	    CAP, 1000);
	assert_retry("Sun, 06 Nov 1994 08:49:60 GMT", T1994, CAP, 23000);
	/*
	 * Two-digit years: the latest year not more than 50 years ahead,
	 * so in 1994 "44" is 2044 and "45" is 1945.
	 */
	assert_retry("Thursday, 01-Jan-70 00:00:10 GMT", 0, CAP, 10000);
	assert_retry("Monday, 06-Nov-44 08:50:07 GMT", T1994, CAP, CAP);
	assert_retry("Monday, 06-Nov-45 08:50:07 GMT", T1994, CAP, 0);
	/* In 2040, "94" is 1994; in 2050, 2094. */
	assert_retry("Sunday, 06-Nov-94 08:50:07 GMT", (time_t)2208988800,
	    CAP, 0);
	assert_retry("Sunday, 06-Nov-94 08:50:07 GMT", (time_t)2524608000,
	    CAP, CAP);
}
END_TEST

START_TEST(test_retry_after_garbage)
{
	static const char *const bad[] = {
		"", " ", "-1", "+5", "1.5", "5s", "5 5", "0x10", "1e3",
		"soon",
		"Sun, 06 Nov 1994 08:49:37",
		"Sun, 06 Nov 1994 08:49:37 UTC",
		"Sun, 06 Nov 1994 08:49:37 gmt",
		"sun, 06 Nov 1994 08:49:37 GMT",
		"Sun, 6 Nov 1994 08:49:37 GMT",
		"Sun, 06 November 1994 08:49:37 GMT",
		"Sun, 06 Nov 94 08:49:37 GMT",
		"Sun, 06 Nov 1994 8:49:37 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT extra",
		"Sun,06 Nov 1994 08:49:37 GMT",
		"Sun, 32 Jan 1994 08:49:37 GMT",
		"Sun, 00 Jan 1994 08:49:37 GMT",
		"Sun, 29 Feb 1900 08:49:37 GMT",
		"Sun, 31 Apr 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 24:00:00 GMT",
		"Sun, 06 Nov 1994 08:60:00 GMT",
		"Sun, 06 Nov 1994 08:49:61 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT\r\n",
		"Sunday, 06-Nov-1994 08:49:37 GMT",
		"Sunday, 06 Nov 94 08:49:37 GMT",
		"Sun Nov 6 08:49:37 1994",
		"Sun Nov  6 08:49:37 94",
		"Sun Nov  6 08:49:37 1994 GMT",
		"Funday, 06-Nov-94 08:49:37 GMT",
	};
	size_t	 i;

	for (i = 0; i < nitems(bad); i++)
		assert_retry_bad(bad[i]);
	assert_retry_bad(NULL);
}
END_TEST

START_TEST(test_media_is)
{
	ck_assert_int_eq(httphdr_media_is("application/json",
	    "application/json"), 1);
	ck_assert_int_eq(httphdr_media_is("Application/JSON; charset=utf-8",
	    "application/json"), 1);
	ck_assert_int_eq(httphdr_media_is("  text/event-stream ;x=y",
	    "text/event-stream"), 1);
	ck_assert_int_eq(httphdr_media_is("application/json;charset=utf-8",
	    "application/json"), 1);
	ck_assert_int_eq(httphdr_media_is("application/json ",
	    "application/json"), 1);
	ck_assert_int_eq(httphdr_media_is("application/jsonx",
	    "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is("application/json-seq",
	    "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is("application/jso",
	    "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is("application/json x",
	    "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is("text/html, application/json",
	    "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is("", "application/json"), 0);
	ck_assert_int_eq(httphdr_media_is(NULL, "application/json"), 0);
}
END_TEST

START_TEST(test_bearer_mcp_example)
{
	struct httphdr_bearer	 b;

	/* Raw, with the line break: no header value holds one. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer resource_metadata="
	    "\"https://mcp.example.com/.well-known/oauth-protected-resource\","
	    "\r\n                         scope=\"files:read\"", &b), -1);
	ck_assert_int_eq(b.found, 0);
	ck_assert_ptr_null(b.resource_metadata);
	/* Folded by the HTTP library into one line, as it reaches us. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer resource_metadata="
	    "\"https://mcp.example.com/.well-known/oauth-protected-resource\","
	    "  scope=\"files:read\"", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_str_eq(b.resource_metadata,
	    "https://mcp.example.com/.well-known/oauth-protected-resource");
	ck_assert_str_eq(b.scope, "files:read");
	ck_assert_ptr_null(b.error);
	ck_assert_ptr_null(b.error_description);
	httphdr_bearer_clear(&b);
	ck_assert_int_eq(b.found, 0);
	ck_assert_ptr_null(b.scope);
}
END_TEST

START_TEST(test_bearer_shapes)
{
	struct httphdr_bearer	 b;

	/* Case-insensitive scheme and names; tokens and escapes. */
	ck_assert_int_eq(httphdr_bearer_parse("bEaReR realm=example, "
	    "Error=invalid_token, ERROR_DESCRIPTION=\"The \\\"token\\\" "
	    "expired\\\\\", Scope=\"a b\"", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_str_eq(b.error, "invalid_token");
	ck_assert_str_eq(b.error_description,
	    "The \"token\" expired\\");
	ck_assert_str_eq(b.scope, "a b");
	ck_assert_ptr_null(b.resource_metadata);
	httphdr_bearer_clear(&b);

	/* Other challenges before and after, token68 and params. */
	ck_assert_int_eq(httphdr_bearer_parse("Negotiate a87421000492aa874209"
	    "af8bc028==, Basic realm=\"x, Bearer scope=fake\", Bearer "
	    "error=\"insufficient_scope\" , scope=\"a b c\", "
	    "resource_metadata=\"https://h/prm\", Digest realm=\"d\", "
	    "nonce=\"n\", NTLM", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_str_eq(b.error, "insufficient_scope");
	ck_assert_str_eq(b.scope, "a b c");
	ck_assert_str_eq(b.resource_metadata, "https://h/prm");
	httphdr_bearer_clear(&b);

	/* BWS around '=', empty list elements, BWS before commas. */
	ck_assert_int_eq(httphdr_bearer_parse(" ,, Basic ,Bearer scope = "
	    "\"s\" ,,, error= e ,", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_str_eq(b.scope, "s");
	ck_assert_str_eq(b.error, "e");
	httphdr_bearer_clear(&b);

	/* A bare Bearer, and a Bearer with a token68. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_ptr_null(b.scope);
	httphdr_bearer_clear(&b);
	ck_assert_int_eq(httphdr_bearer_parse("Basic, Bearer abc/def==, x", &b),
	    0);
	ck_assert_int_eq(b.found, 1);
	httphdr_bearer_clear(&b);

	/* "scope=" alone is a token68, BWS is allowed around '='. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer scope=", &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_ptr_null(b.scope);
	ck_assert_int_eq(httphdr_bearer_parse("Bearer scope= x", &b), 0);
	ck_assert_str_eq(b.scope, "x");
	httphdr_bearer_clear(&b);

	/* An empty quoted value. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer scope=\"\"", &b), 0);
	ck_assert_str_eq(b.scope, "");
	httphdr_bearer_clear(&b);

	/* Only the first Bearer challenge counts. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer scope=one, Bearer "
	    "scope=two", &b), 0);
	ck_assert_str_eq(b.scope, "one");
	httphdr_bearer_clear(&b);

	/* No Bearer at all, or nothing. */
	ck_assert_int_eq(httphdr_bearer_parse("Basic realm=\"Bearer\", "
	    "Digest realm=x", &b), 0);
	ck_assert_int_eq(b.found, 0);
	ck_assert_int_eq(httphdr_bearer_parse("Bearerx realm=y", &b), 0);
	ck_assert_int_eq(b.found, 0);
	ck_assert_int_eq(httphdr_bearer_parse("", &b), 0);
	ck_assert_int_eq(b.found, 0);
	ck_assert_int_eq(httphdr_bearer_parse(NULL, &b), 0);
	ck_assert_int_eq(b.found, 0);
}
END_TEST

START_TEST(test_bearer_malformed)
{
	static const char *const bad[] = {
		"Bearer scope=\"unterminated",
		"Bearer scope=\"a\\",
		"Bearer scope=\"a\x01\"",
		"Bearer scope=\"a\\\x7f\"",
		"Bearer scope=a b",
		"Bearer scope=\"a\"b",
		"Bearer scope=\"a\" error=x",
		"Bearer =x",
		"Bearer scope=a, =x",
		"Bearer scope=one, scope=two",
		"Bearer scope=one, SCOPE=\"two\"",
		"Bearer resource_metadata=\"https://a\", "
		    "resource_metadata=\"https://evil\"",
		"Bearer\"x\"",
		"Bearer\tscope=x",
		"Bearer abc==def",
		"Bearer abc def",
		"Bearer scope=a,, \"x\"",
		"Bearer a/b c",
		"Basic realm=\"x, Bearer scope=y",
		"Basic realm=\"x\"y, Bearer scope=z",
		"Basic =, Bearer scope=z",
		"@, Bearer scope=z",
		"\"Bearer\" scope=z",
	};
	struct httphdr_bearer	 b;
	size_t			 i;

	for (i = 0; i < nitems(bad); i++) {
		ck_assert_msg(httphdr_bearer_parse(bad[i], &b) == -1,
		    "WWW-Authenticate \"%s\" accepted", bad[i]);
		ck_assert_int_eq(b.found, 0);
		ck_assert_ptr_null(b.scope);
		ck_assert_ptr_null(b.resource_metadata);
	}

	/* Garbage after a whole Bearer challenge leaves it usable. */
	ck_assert_int_eq(httphdr_bearer_parse("Bearer scope=s, Basic \"x\"",
	    &b), 0);
	ck_assert_int_eq(b.found, 1);
	ck_assert_str_eq(b.scope, "s");
	httphdr_bearer_clear(&b);
}
END_TEST

/* httphdr_split(line) gives name and value. */
static void
assert_split(const char *line, const char *name, const char *value)
{
	const char	*n, *v;
	size_t		 nl, vl;

	ck_assert_msg(httphdr_split(line, strlen(line), &n, &nl, &v, &vl) == 0,
	    "header line \"%s\" refused", line);
	ck_assert_msg(nl == strlen(name) && memcmp(n, name, nl) == 0,
	    "header line \"%s\": name \"%.*s\", want \"%s\"", line, (int)nl, n,
	    name);
	ck_assert_msg(vl == strlen(value) && memcmp(v, value, vl) == 0,
	    "header line \"%s\": value \"%.*s\", want \"%s\"", line, (int)vl,
	    v, value);
}

START_TEST(test_split)
{
	static const char *const bad[] = {
		"", "\r\n", "HTTP/1.1 200 OK\r\n", "no colon here",
		": value", "Name : value", " Name: value", "\tName: v",
		"Na me: value", "Na\x01me: v", "N\x80: v", "Name: a\rb",
		"Name: a\nb", "Name: a\x7f", "Name: a\x01", "(Name): v",
		"Name\r\n: v",
	};
	const char	*n, *v;
	size_t		 nl, vl, i;

	assert_split("Content-Type: application/json\r\n", "Content-Type",
	    "application/json");
	assert_split("Retry-After:\t 120 \t\r\n", "Retry-After", "120");
	assert_split("Mcp-Session-Id:abc", "Mcp-Session-Id", "abc");
	assert_split("X-Empty:   \r\n", "X-Empty", "");
	assert_split("X: a:b: c", "X", "a:b: c");
	assert_split("X: caf\xc3\xa9 \tv", "X", "caf\xc3\xa9 \tv");
	assert_split("!#$%&'*+-.^_`|~09azAZ: v\n", "!#$%&'*+-.^_`|~09azAZ",
	    "v");
	for (i = 0; i < nitems(bad); i++)
		ck_assert_msg(httphdr_split(bad[i], strlen(bad[i]), &n, &nl,
		    &v, &vl) == -1, "header line \"%s\" accepted", bad[i]);
	/* The length is the line's, a NUL in it is a control character. */
	ck_assert_int_eq(httphdr_split("A: b\0c", 6, &n, &nl, &v, &vl), -1);
	ck_assert_int_eq(httphdr_split("A: bc", 4, &n, &nl, &v, &vl), 0);
	ck_assert_uint_eq(vl, 1);
	ck_assert_int_eq(httphdr_split("A: b", 1, &n, &nl, &v, &vl), -1);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("httphdr");
	tc = tcase_create("httphdr");
	tcase_add_test(tc, test_retry_after_seconds);
	tcase_add_test(tc, test_retry_after_dates);
	tcase_add_test(tc, test_retry_after_garbage);
	tcase_add_test(tc, test_media_is);
	tcase_add_test(tc, test_bearer_mcp_example);
	tcase_add_test(tc, test_bearer_shapes);
	tcase_add_test(tc, test_bearer_malformed);
	tcase_add_test(tc, test_split);
	suite_add_tcase(s, tc);
	return (s);
}
