/*
 * test_relisten.c -- unit tests for what a reopened subscriptions/listen
 * stream's client is told it may have missed.
 */

#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "relisten.h"
#include "unit.h"

static size_t
notes(const char *data, const char *id, char ***out)
{
	return (relisten_notes(data, strlen(data), id, out));
}

static void
drop(char **lines, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

START_TEST(test_relisten_ack)
{
	char	**l;
	size_t	  n;

	n = notes("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":7},"
	    "\"notifications\":{\"toolsListChanged\":true,"
	    "\"promptsListChanged\":false,\"resourcesListChanged\":true,"
	    "\"resourceSubscriptions\":[\"test://r\",7,\"\"]}}}", "7", &l);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(l[0], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\",\"params\":{\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":7}}}");
	ck_assert_ptr_nonnull(strstr(l[1],
	    "\"notifications/resources/list_changed\""));
	ck_assert_str_eq(l[2], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/updated\",\"params\":{\"uri\":"
	    "\"test://r\",\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":7}}}");
	drop(l, n);
}
END_TEST

/* Not an acknowledgment, or one that honours nothing: nothing. */
START_TEST(test_relisten_other)
{
	char	**l;

	ck_assert_uint_eq(notes("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\"}", "1", &l), 0);
	ck_assert_ptr_null(l);
	ck_assert_uint_eq(notes("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"notifications\":{}}}", "1", &l), 0);
	ck_assert_ptr_null(l);
	ck_assert_uint_eq(notes("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"notifications\":{\"toolsListChanged\":true}}}", "1", &l), 0);
	ck_assert_uint_eq(notes("acknowledged", "1", &l), 0);
	ck_assert_uint_eq(notes("{\"method\":\"notifications/subscriptions/"
	    "acknowledged\",\"params\":{\"notifications\":{"
	    "\"toolsListChanged\":\"yes\"}}}", "1", &l), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("relisten");
	tc = tcase_create("relisten");
	tcase_add_test(tc, test_relisten_ack);
	tcase_add_test(tc, test_relisten_other);
	suite_add_tcase(s, tc);
	return (s);
}
