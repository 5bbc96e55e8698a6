/*
 * test_batch.c -- unit tests for a JSON-RPC batch's messages found in
 * its line (src/batch.c): where each lies, whatever its type and the
 * strings and brackets in it; the one error of a batch that is not JSON,
 * empty or too long.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "proto.h"
#include "sbuf.h"
#include "unit.h"
#include "xmalloc.h"

/* The messages of text, one per line as they lie; or "ERR code: why". */
static char *
split(const char *text, size_t max)
{
	struct batch_span	*spans;
	struct sbuf		 sb = { 0 };
	size_t			 i, n;
	char			*why;
	int			 code;

	if (batch_split(text, strlen(text), max, &spans, &n, &code,
	    &why) != 0) {
		ck_assert_ptr_null(spans);
		sbuf_printf(&sb, "ERR %d: %s", code, why);
		free(why);
		return (sb.p);
	}
	for (i = 0; i < n; i++) {
		sbuf_printf(&sb, "%s%.*s", spans[i].object ? "o " : "- ",
		    (int)spans[i].len, text + spans[i].off);
		sbuf_adds(&sb, "\n");
	}
	free(spans);
	return (sb.p);
}

#define SPLIT_EQ(text, want) do {					\
	char	*got_ = split((text), BATCH_MAX_MESSAGES);		\
	ck_assert_str_eq(got_, (want));					\
	free(got_);							\
} while (0)

START_TEST(test_batch_is)
{
	ck_assert(batch_is("[]", 2));
	ck_assert(batch_is(" \t\r\n[1]", 7));
	ck_assert(!batch_is("{}", 2));
	ck_assert(!batch_is("", 0));
	ck_assert(!batch_is("   ", 3));
	ck_assert(!batch_is("x[", 2));
}
END_TEST

START_TEST(test_batch_split)
{
	SPLIT_EQ("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
	    "o {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
	SPLIT_EQ(" [ {\"a\":\"]}\\\"[{\"} ,{\"b\":[1,{\"c\":\"}\"}]}\t,\n"
	    "{} ] ",
	    "o {\"a\":\"]}\\\"[{\"}\n"
	    "o {\"b\":[1,{\"c\":\"}\"}]}\n"
	    "o {}\n");
	/* Values that are not objects: the caller answers those. */
	SPLIT_EQ("[1,\"x,]\",null,[{}],true,-2.5e3,{\"id\":2}]",
	    "- 1\n- \"x,]\"\n- null\n- [{}]\n- true\n- -2.5e3\n"
	    "o {\"id\":2}\n");
	SPLIT_EQ("[\"\\\\\",{}]", "- \"\\\\\"\no {}\n");
}
END_TEST

START_TEST(test_batch_errors)
{
	char	*got;

	SPLIT_EQ("[]", "ERR -32600: invalid request: an empty batch");
	SPLIT_EQ(" [ \n ] ", "ERR -32600: invalid request: an empty batch");
	SPLIT_EQ("[{}", "ERR -32700: parse error: the batch is not valid "
	    "JSON");
	SPLIT_EQ("[{},]", "ERR -32700: parse error: the batch is not valid "
	    "JSON");
	SPLIT_EQ("[{}]x", "ERR -32700: parse error: the batch is not valid "
	    "JSON");
	SPLIT_EQ("[{\"a\":tru}]", "ERR -32700: parse error: the batch is not "
	    "valid JSON");
	SPLIT_EQ("[{\"a\":1}{\"b\":2}]", "ERR -32700: parse error: the batch "
	    "is not valid JSON");
	SPLIT_EQ("{}", "ERR -32600: invalid request: a batch is a JSON array");
	got = split("[{},{},{}]", 2);
	ck_assert_str_eq(got, "ERR -32600: invalid request: a batch of more "
	    "than 2 messages, the most mcpd takes in one");
	free(got);
	got = split("[{},{}]", 2);
	ck_assert_str_eq(got, "o {}\no {}\n");
	free(got);
}
END_TEST

/* The most a batch may have, and one more. */
START_TEST(test_batch_max)
{
	struct sbuf	 sb = { 0 };
	char		*got;
	size_t		 i;

	sbuf_adds(&sb, "[");
	for (i = 0; i < BATCH_MAX_MESSAGES; i++)
		sbuf_printf(&sb, "%s{\"id\":%zu}", i > 0 ? "," : "", i);
	sbuf_adds(&sb, "]");
	got = split(sb.p, BATCH_MAX_MESSAGES);
	ck_assert_ptr_null(strstr(got, "ERR"));
	free(got);
	sb.len--;
	sbuf_adds(&sb, ",{}]");
	got = split(sb.p, BATCH_MAX_MESSAGES);
	ck_assert_ptr_nonnull(strstr(got, "ERR -32600"));
	free(got);
	free(sb.p);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("batch");
	tc = tcase_create("batch");
	tcase_add_test(tc, test_batch_is);
	tcase_add_test(tc, test_batch_split);
	tcase_add_test(tc, test_batch_errors);
	tcase_add_test(tc, test_batch_max);
	suite_add_tcase(s, tc);
	return (s);
}
