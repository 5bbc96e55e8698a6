/*
 * test_modern_input.c -- unit tests for a 2026-07-28 server's
 * input_required as mcpd reads it for a 2025 client: the round read and
 * its faults, the requests for the router, the retry of the original
 * request, the error that ends a call.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modern_input.h"
#include "unit.h"
#include "xmalloc.h"

static int
read_text(const char *text, struct modern_input_round *round, char **why)
{
	return (modern_input_read(text, strlen(text), round, why));
}

START_TEST(test_modern_input_read_round)
{
	struct modern_input_round	 round;
	char				*why, *names;

	ck_assert_int_eq(read_text("{\"resultType\":\"input_required\","
	    "\"inputRequests\":{\"name\":{\"method\":\"elicitation/create\","
	    "\"params\":{\"message\":\"Name?\"}},\"dirs\":{\"method\":"
	    "\"roots/list\"}},\"requestState\":\"opaque\"}", &round, &why), 1);
	ck_assert_ptr_null(why);
	ck_assert_uint_eq(round.nasks, 2);
	ck_assert_str_eq(round.asks[0].key, "name");
	ck_assert_str_eq(round.asks[0].method, "elicitation/create");
	ck_assert_str_eq(round.asks[0].params, "{\"message\":\"Name?\"}");
	ck_assert_str_eq(round.asks[1].method, "roots/list");
	ck_assert_ptr_null(round.asks[1].params);
	ck_assert_str_eq(round.state, "opaque");
	names = modern_input_names(&round);
	ck_assert_str_eq(names, "elicitation/create \"name\", roots/list "
	    "\"dirs\"");
	free(names);
	modern_input_clear(&round);
	ck_assert_uint_eq(round.nasks, 0);

	/* A state alone is a round too: retried at once. */
	ck_assert_int_eq(read_text("{\"resultType\":\"input_required\","
	    "\"requestState\":\"s\"}", &round, &why), 1);
	ck_assert_uint_eq(round.nasks, 0);
	ck_assert_str_eq(round.state, "s");
	modern_input_clear(&round);
}
END_TEST

START_TEST(test_modern_input_read_other)
{
	struct modern_input_round	 round;
	char				*why;

	ck_assert_int_eq(read_text("{\"resultType\":\"complete\","
	    "\"content\":[]}", &round, &why), 0);
	/* The words in a text are not the type. */
	ck_assert_int_eq(read_text("{\"content\":[{\"type\":\"text\","
	    "\"text\":\"input_required\"}],\"x\":\"input_required\"}",
	    &round, &why), 0);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(read_text("not json \"input_required\"", &round,
	    &why), 0);
}
END_TEST

START_TEST(test_modern_input_read_faults)
{
	static const struct {
		const char	*text;
		const char	*why;
	} bad[] = {
		{ "{\"resultType\":\"input_required\"}", "neither "
		    "inputRequests nor a requestState" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":{}}",
		    "neither inputRequests nor a requestState" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":[1]}",
		    "inputRequests that is not an object" },
		{ "{\"resultType\":\"input_required\",\"requestState\":7}",
		    "a requestState that is not a string" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":{\"method\":\"tools/call\",\"params\":{}}}}",
		    "a method that is not elicitation/create, "
		    "sampling/createMessage or roots/list" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":{\"params\":{}}}}", "an input request without a "
		    "method" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":\"x\"}}", "an input request that is not an "
		    "object" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":{\"method\":\"elicitation/create\"}}}",
		    "an input request without params" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":{\"method\":\"elicitation/create\",\"params\":[]}}}",
		    "params that are not an object" },
		{ "{\"resultType\":\"input_required\",\"inputRequests\":"
		    "{\"a\":{\"method\":\"roots/list\"},\"a\":{\"method\":"
		    "\"roots/list\"}}}", "a key twice" },
	};
	struct modern_input_round	 round;
	char				*why, *text, *p;
	size_t				 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(read_text(bad[i].text, &round, &why), -1);
		ck_assert_ptr_nonnull(why);
		ck_assert_msg(strstr(why, bad[i].why) != NULL, "%s: %s",
		    bad[i].text, why);
		ck_assert_uint_eq(round.nasks, 0);
		ck_assert_ptr_null(round.state);
		free(why);
	}
	/* Seventeen requests; a key of 257 bytes. */
	text = strdup("{\"resultType\":\"input_required\",\"inputRequests\":{");
	for (i = 0; i < 17; i++) {
		p = text;
		ck_assert_int_ne(xasprintf(&text, "%s%s\"k%zu\":{\"method\":"
		    "\"roots/list\"}", p, i > 0 ? "," : "", i), -1);
		free(p);
	}
	p = text;
	ck_assert_int_ne(xasprintf(&text, "%s}}", p), -1);
	free(p);
	ck_assert_int_eq(read_text(text, &round, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "more than 16"));
	free(why);
	free(text);
	p = calloc(1, 258);
	memset(p, 'k', 257);
	ck_assert_int_ne(xasprintf(&text, "{\"resultType\":\"input_required\","
	    "\"inputRequests\":{\"%s\":{\"method\":\"roots/list\"}}}", p), -1);
	ck_assert_int_eq(read_text(text, &round, &why), -1);
	ck_assert_ptr_nonnull(strstr(why, "longer than 256 bytes"));
	free(why);
	free(text);
	free(p);
}
END_TEST

START_TEST(test_modern_input_request)
{
	struct modern_input_ask	 ask = { "k", "elicitation/create",
				    "{\"message\":\"Name?\"}" };
	struct modern_input_ask	 roots = { "r", "roots/list", NULL };
	char			*line;
	size_t			 len;

	line = modern_input_request("\"mcpd-in-1\"", 11, &ask, &len);
	ck_assert_str_eq(line, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpd-in-1\","
	    "\"method\":\"elicitation/create\",\"params\":{\"message\":"
	    "\"Name?\"}}");
	ck_assert_uint_eq(len, strlen(line));
	free(line);
	line = modern_input_request("\"x\"", 3, &roots, &len);
	ck_assert_str_eq(line, "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":"
	    "\"roots/list\"}");
	free(line);
}
END_TEST

START_TEST(test_modern_input_retry)
{
	struct modern_input_round	 round;
	char				*why, *text, *results[2];
	size_t				 len;
	static const char		 line[] = "{\"jsonrpc\":\"2.0\",\"id\":"
	    "41,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\","
	    "\"inputResponses\":{\"forged\":{}},\"requestState\":\"forged\","
	    "\"_meta\":{\"progressToken\":41}}}";
	static const char		 line2[] = "{\"jsonrpc\":\"2.0\",\"id\":"
	    "1,\"method\":\"prompts/get\"}";

	ck_assert_int_eq(read_text("{\"resultType\":\"input_required\","
	    "\"inputRequests\":{\"name\":{\"method\":\"elicitation/create\","
	    "\"params\":{}},\"hi\":{\"method\":\"sampling/createMessage\","
	    "\"params\":{}}},\"requestState\":\"S\\\"1\"}", &round, &why), 1);
	results[0] = "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}";
	results[1] = "{\"role\":\"assistant\"}";
	text = modern_input_retry(line, sizeof line - 1, 3000000000LL, &round,
	    results, &len);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_eq(len, strlen(text));
	/* What the client gave is replaced, the rest kept; a new id. */
	ck_assert_str_eq(text, "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"ask\",\"_meta\":{\"progressToken\":41},"
	    "\"inputResponses\":{\"name\":{\"action\":\"accept\",\"content\":"
	    "{\"name\":\"Ada\"}},\"hi\":{\"role\":\"assistant\"}},"
	    "\"requestState\":\"S\\\"1\"},\"id\":3000000000}");
	free(text);
	/* An answer that is not a result object: no retry. */
	results[1] = "[]";
	ck_assert_ptr_null(modern_input_retry(line, sizeof line - 1, 2,
	    &round, results, &len));
	results[1] = NULL;
	ck_assert_ptr_null(modern_input_retry(line, sizeof line - 1, 2,
	    &round, results, &len));
	modern_input_clear(&round);

	/* A state alone, on a request without params. */
	ck_assert_int_eq(read_text("{\"resultType\":\"input_required\","
	    "\"requestState\":\"s\"}", &round, &why), 1);
	text = modern_input_retry(line2, strlen(line2), 9, &round, NULL, &len);
	ck_assert_str_eq(text, "{\"jsonrpc\":\"2.0\",\"method\":\"prompts/get\","
	    "\"params\":{\"requestState\":\"s\"},\"id\":9}");
	free(text);
	ck_assert_ptr_null(modern_input_retry("{\"id\":1,\"method\":\"x\","
	    "\"params\":[]}", 33, 9, &round, NULL, &len));
	ck_assert_ptr_null(modern_input_retry("{\"id\":1}", 8, 9, &round,
	    NULL, &len));
	modern_input_clear(&round);
}
END_TEST

START_TEST(test_modern_input_error)
{
	char	*text;
	size_t	 len;

	text = modern_input_error(12, -32603, "no \"client\"", &len);
	ck_assert_str_eq(text, "{\"jsonrpc\":\"2.0\",\"id\":12,\"error\":"
	    "{\"code\":-32603,\"message\":\"no \\\"client\\\"\"}}");
	ck_assert_uint_eq(len, strlen(text));
	free(text);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("modern_input");
	tc = tcase_create("modern_input");
	tcase_add_test(tc, test_modern_input_read_round);
	tcase_add_test(tc, test_modern_input_read_other);
	tcase_add_test(tc, test_modern_input_read_faults);
	tcase_add_test(tc, test_modern_input_request);
	tcase_add_test(tc, test_modern_input_retry);
	tcase_add_test(tc, test_modern_input_error);
	suite_add_tcase(s, tc);
	return (s);
}
