/*
 * test_mcphdr.c -- unit tests for MCP 2026-07-28's request metadata over
 * Streamable HTTP: header values, Mcp-Name's source, what a broken stream
 * allows, a refusal's body as a JSON-RPC error.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mcphdr.h"
#include "unit.h"
#include "util.h"

static void
value_is(const char *in, size_t len, const char *want)
{
	char	*got;

	got = mcphdr_value(in, len);
	ck_assert_str_eq(got, want);
	free(got);
}

/* The specification's examples, and the edges. */
START_TEST(test_mcphdr_value)
{
	value_is("us-west1", 8, "us-west1");
	value_is("get weather", 11, "get weather");
	value_is("file:///projects/myapp/config.json", 34,
	    "file:///projects/myapp/config.json");
	value_is("Hello, \xe4\xb8\x96\xe7\x95\x8c", 13,
	    "=?base64?SGVsbG8sIOS4lueVjA==?=");
	value_is(" padded ", 8, "=?base64?IHBhZGRlZCA=?=");
	value_is("line1\nline2", 11, "=?base64?bGluZTEKbGluZTI=?=");
	value_is("=?base64?literal?=", 18,
	    "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
	value_is("a\r\nX-Evil: 1", 12, "=?base64?YQ0KWC1FdmlsOiAx?=");
	value_is("tab\tinside", 10, "tab\tinside");
	value_is("\ttab", 4, "=?base64?CXRhYg==?=");
	value_is("nul\0x", 5, "=?base64?bnVsAHg=?=");
	value_is("del\x7f", 4, "=?base64?ZGVsfw==?=");
	value_is("", 0, "=?base64?" "?=");
	/* Only the whole sentinel shape is encoded. */
	value_is("=?base64?", 9, "=?base64?");
	ck_assert_int_eq(mcphdr_safe("tools/call", 10), 1);
	ck_assert_int_eq(mcphdr_safe("a\nb", 3), 0);
}
END_TEST

START_TEST(test_mcphdr_name_member)
{
	ck_assert_str_eq(mcphdr_name_member("tools/call"), "name");
	ck_assert_str_eq(mcphdr_name_member("prompts/get"), "name");
	ck_assert_str_eq(mcphdr_name_member("resources/read"), "uri");
	ck_assert_ptr_null(mcphdr_name_member("tools/list"));
	ck_assert_ptr_null(mcphdr_name_member("completion/complete"));
	ck_assert_ptr_null(mcphdr_name_member(NULL));
}
END_TEST

START_TEST(test_mcphdr_retry)
{
	ck_assert_int_eq(mcphdr_retry("tools/call"), MCPHDR_NEVER);
	ck_assert_int_eq(mcphdr_retry("tasks/cancel"), MCPHDR_NEVER);
	ck_assert_int_eq(mcphdr_retry(NULL), MCPHDR_NEVER);
	ck_assert_int_eq(mcphdr_retry("/list"), MCPHDR_NEVER);
	ck_assert_int_eq(mcphdr_retry("tools/list"), MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("resources/templates/list"),
	    MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("server/discover"), MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("resources/read"), MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("prompts/get"), MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("completion/complete"), MCPHDR_RESEND);
	ck_assert_int_eq(mcphdr_retry("subscriptions/listen"), MCPHDR_REOPEN);
}
END_TEST

static void
error_is(const char *body, const char *id, int init, const char *want)
{
	char	*got;

	got = mcphdr_error(body, body != NULL ? strlen(body) : 0, id, init);
	if (want == NULL)
		ck_assert_ptr_null(got);
	else {
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got, want);
	}
	free(got);
}

START_TEST(test_mcphdr_error)
{
	/* The SDK's refusal of initialize, as it comes. */
	error_is("{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32022,\"message\":"
	    "\"Unsupported protocol version: 2025-11-25\",\"data\":{"
	    "\"supported\":[\"2026-07-28\"],\"requested\":\"2025-11-25\"}},"
	    "\"id\":1}", "7", 1,
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32022,"
	    "\"message\":\"Unsupported protocol version: 2025-11-25\","
	    "\"data\":{\"supported\":[\"2026-07-28\"]}}}");
	/* A header mismatch names no versions: ours. */
	error_is("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32020,"
	    "\"message\":\"no header\"}}", "\"a\"", 1,
	    "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":{\"code\":-32022,"
	    "\"message\":\"no header\",\"data\":{\"supported\":"
	    "[\"2026-07-28\"]}}}");
	/* A 2025 server's 400 to initialize is no refusal of 2026. */
	error_is("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
	    "\"message\":\"Bad Request\"}}", "1", 1, NULL);
	/* Any error, for a 2026 request; only code, message, data. */
	error_is("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,"
	    "\"message\":\"Method not found\",\"x\":1,\"data\":[1]}}", "9", 0,
	    "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32601,"
	    "\"message\":\"Method not found\",\"data\":[1]}}");
	/* Garbage, or not quite an error. */
	error_is("<html>Bad Request</html>", "1", 0, NULL);
	error_is("", "1", 0, NULL);
	error_is(NULL, "1", 0, NULL);
	error_is("{\"error\":\"no\"}", "1", 0, NULL);
	error_is("{\"error\":{\"code\":1.5,\"message\":\"x\"}}", "1", 0, NULL);
	error_is("{\"error\":{\"code\":1e300,\"message\":\"x\"}}", "1", 0, NULL);
	error_is("{\"error\":{\"code\":-1,\"message\":7}}", "1", 0, NULL);
	error_is("[{\"error\":{\"code\":-1,\"message\":\"x\"}}]", "1", 0, NULL);
	/* A message with a newline comes out on one line. */
	error_is("{\"error\":{\"code\":-1,\"message\":\"a\\nb\"}}", "1", 0,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,"
	    "\"message\":\"a\\nb\"}}");
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("mcphdr");
	tc = tcase_create("mcphdr");
	tcase_add_test(tc, test_mcphdr_value);
	tcase_add_test(tc, test_mcphdr_name_member);
	tcase_add_test(tc, test_mcphdr_retry);
	tcase_add_test(tc, test_mcphdr_error);
	suite_add_tcase(s, tc);
	return (s);
}
