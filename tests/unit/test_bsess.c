/*
 * test_bsess.c -- unit tests for the session `mcpctl connect` keeps:
 * requests in flight both ways, subscriptions, the log level, the lists
 * asked for, the replay after a lost connection and its outcome, and the
 * comparison of initialize results.
 */

#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsess.h"
#include "proto.h"
#include "unit.h"

static enum bsess_verdict
from_client(struct bsess *s, const char *line)
{
	struct envelope	 env;
	size_t		 err;
	int		 ok, untracked;

	memset(&env, 0, sizeof env);
	ok = envelope_scan(line, strlen(line), &env, &err) == 0;
	return (bsess_from_client(s, line, strlen(line), &env, ok,
	    &untracked));
}

static enum bsess_verdict
from_server(struct bsess *s, const char *line)
{
	struct envelope	 env;
	size_t		 err;
	int		 ok;

	memset(&env, 0, sizeof env);
	ok = envelope_scan(line, strlen(line), &env, &err) == 0;
	return (bsess_from_server(s, line, strlen(line), &env, ok));
}

static int
has_inflight(struct bsess *s, const char *id)
{
	struct bsess_iter	 it;
	const char		*p;
	size_t			 len;

	bsess_inflight_first(s, &it);
	while (bsess_inflight_next(&it, &p, &len))
		if (len == strlen(id) && memcmp(p, id, len) == 0)
			return (1);
	return (0);
}

#define INIT_REQ "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"," \
	"\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}," \
	"\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define INIT_RESULT "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":" \
	"{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}"
#define INIT_RESULT_RENAMED "{\"protocolVersion\":\"2025-06-18\"," \
	"\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"r\"," \
	"\"version\":\"1\"}}"
#define INIT_REPLY "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":" INIT_RESULT "}"

static void
initialize(struct bsess *s)
{
	ck_assert_int_eq(from_client(s, INIT_REQ), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, INIT_REPLY), BSESS_FORWARD);
	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}"), BSESS_FORWARD);
}

START_TEST(test_bsess_inflight)
{
	struct bsess	*s = bsess_new();

	initialize(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\"}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}");
	ck_assert_uint_eq(bsess_inflight(s), 2);
	ck_assert(has_inflight(s, "1"));
	ck_assert(has_inflight(s, "\"a\""));
	/* Raw text: 1 and "1" are different ids. */
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}");
	ck_assert_uint_eq(bsess_inflight(s), 2);
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	ck_assert_uint_eq(bsess_inflight(s), 1);
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"error\":"
	    "{\"code\":-1,\"message\":\"m\"}}");
	ck_assert_uint_eq(bsess_inflight(s), 0);
	/* Bad JSON is passed on, untracked. */
	ck_assert_int_eq(from_client(s, "{\"id\":2,"), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	bsess_free(s);
}
END_TEST

/* Bounded: past BSESS_MAX_INFLIGHT a request goes on untracked. */
START_TEST(test_bsess_inflight_bound)
{
	struct bsess	*s = bsess_new();
	struct envelope	 env;
	char		 line[128];
	size_t		 err;
	int		 i, untracked;

	for (i = 0; i < BSESS_MAX_INFLIGHT + 10; i++) {
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,"
		    "\"method\":\"ping\"}", i);
		memset(&env, 0, sizeof env);
		ck_assert_int_eq(envelope_scan(line, strlen(line), &env, &err),
		    0);
		ck_assert_int_eq(bsess_from_client(s, line, strlen(line), &env,
		    1, &untracked), BSESS_FORWARD);
		ck_assert_int_eq(untracked, i >= BSESS_MAX_INFLIGHT);
	}
	ck_assert_uint_eq(bsess_inflight(s), BSESS_MAX_INFLIGHT);
	bsess_lost(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	bsess_free(s);
}
END_TEST

/* mcpd's requests of a lost connection: their late replies are dropped. */
START_TEST(test_bsess_stale)
{
	struct bsess	*s = bsess_new();

	initialize(s);
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"sampling/createMessage\",\"params\":{}}");
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
	    "\"roots/list\"}");
	/* Answered before the loss: forwarded. */
	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":8,"
	    "\"result\":{\"roots\":[]}}"), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_lost(s), 1);
	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}"), BSESS_DROP);
	/* Only once. */
	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}"), BSESS_FORWARD);
	/* A new request of the new connection reusing a stale id. */
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\"}");
	bsess_lost(s);
	from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\"}");
	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":9,"
	    "\"result\":{}}"), BSESS_FORWARD);
	bsess_free(s);
}
END_TEST

START_TEST(test_bsess_subs_level_lists)
{
	struct bsess	*s = bsess_new();

	initialize(s);
	ck_assert_uint_eq(bsess_lists(s), 0);
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"resources/subscribe\",\"params\":{\"uri\":\"a://1\"}}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"resources/subscribe\",\"params\":{\"uri\":\"a://2\"}}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"resources/subscribe\",\"params\":{\"uri\":\"a://1\"}}");
	ck_assert_uint_eq(bsess_subs(s), 2);
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	    "\"resources/unsubscribe\",\"params\":{\"uri\":\"a://1\"}}");
	ck_assert_uint_eq(bsess_subs(s), 1);
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
	    "\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
	    "\"logging/setLevel\",\"params\":{\"level\":\"error\"}}");
	ck_assert_str_eq(bsess_level(s), "\"error\"");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"tools/list\"}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
	    "\"resources/templates/list\"}");
	ck_assert_uint_eq(bsess_lists(s), BSESS_LIST_TOOLS |
	    BSESS_LIST_RESOURCES);
	bsess_free(s);
}
END_TEST

START_TEST(test_bsess_replay)
{
	struct bsess	*s = bsess_new();
	char		*text, *nl, reply[512];
	size_t		 len;
	int		 n;

	/* Nothing to replay before the client's initialize was answered. */
	ck_assert_ptr_null(bsess_replay(s, &len));
	from_client(s, INIT_REQ);
	ck_assert_ptr_null(bsess_replay(s, &len));
	from_server(s, INIT_REPLY);
	from_client(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
	    "\"resources/subscribe\",\"params\":{\"uri\":\"a://\\\"q\"}}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":"
	    "\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":"
	    "\"sampling/x\",\"params\":{}}");
	ck_assert_uint_eq(bsess_inflight(s), 3);
	bsess_lost(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);

	text = bsess_replay(s, &len);
	ck_assert_ptr_nonnull(text);
	text = realloc(text, len + 1);
	text[len] = '\0';
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_PENDING);
	/* Each line is a valid message; the first is initialize. */
	ck_assert_ptr_nonnull(strstr(text, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "1\",\"method\":\"initialize\","));
	ck_assert_ptr_nonnull(strstr(text, "\"notifications/initialized\""));
	ck_assert_ptr_nonnull(strstr(text, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "2\",\"method\":\"resources/subscribe\","
	    "\"params\":{\"uri\":\"a://\\\"q\"}}\n"));
	ck_assert_ptr_nonnull(strstr(text, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "3\",\"method\":\"logging/setLevel\","
	    "\"params\":{\"level\":\"info\"}}\n"));
	for (char *p = text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		struct envelope	 env;
		size_t		 err;

		ck_assert_int_eq(envelope_scan(p, (size_t)(nl - p), &env,
		    &err), 0);
	}
	free(text);

	/* The replies to the bridge's own requests are swallowed. */
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "2\",\"result\":{}}"), BSESS_SWALLOW);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_PENDING);
	n = snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "1\",\"result\":%s}", INIT_RESULT);
	ck_assert_int_lt(n, (int)sizeof reply);
	ck_assert_int_eq(from_server(s, reply), BSESS_SWALLOW);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_SAME);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "3\",\"error\":{\"code\":1,\"message\":\"m\"}}"),
	    BSESS_SWALLOW);
	/* Not twice; and a client's id of the same text once they are gone. */
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "3\",\"result\":{}}"), BSESS_FORWARD);

	/* A changed server: the next connection is compared with it. */
	bsess_lost(s);
	free(bsess_replay(s, &len));
	n = snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "%d\",\"result\":%s}", 4, INIT_RESULT_RENAMED);
	ck_assert_int_lt(n, (int)sizeof reply);
	ck_assert_int_eq(from_server(s, reply), BSESS_SWALLOW);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_CHANGED);
	bsess_lost(s);
	free(bsess_replay(s, &len));
	n = snprintf(reply, sizeof reply, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "%d\",\"result\":%s}", 7, INIT_RESULT_RENAMED);
	ck_assert_int_eq(from_server(s, reply), BSESS_SWALLOW);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_SAME);

	/* A second loss: the ids go on. */
	bsess_lost(s);
	text = bsess_replay(s, &len);
	ck_assert_ptr_nonnull(text);
#define SECOND	"{\"jsonrpc\":\"2.0\",\"id\":\"" BSESS_ID_PREFIX "10\","
	ck_assert(len > strlen(SECOND) &&
	    memcmp(text, SECOND, strlen(SECOND)) == 0);
	free(text);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":\""
	    BSESS_ID_PREFIX "10\",\"error\":{\"code\":1,\"message\":\"m\"}}"),
	    BSESS_SWALLOW);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_ERROR);
	bsess_free(s);
}
END_TEST

START_TEST(test_bsess_compare)
{
	const char	*a = INIT_RESULT;
	const char	*same = "{\"serverInfo\":{\"version\":\"1\",\"name\":"
	    "\"s\"},\"capabilities\":{\"tools\":{}},\"protocolVersion\":"
	    "\"2025-06-18\",\"instructions\":\"new\"}";
	const char	*caps = "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{\"tools\":{},\"prompts\":{}},\"serverInfo\":"
	    "{\"name\":\"s\",\"version\":\"1\"}}";
	const char	*info = "{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{\"tools\":{}},\"serverInfo\":"
	    "{\"name\":\"s\",\"version\":\"2\"}}";
	const char	*ver = "{\"protocolVersion\":\"2025-03-26\","
	    "\"capabilities\":{\"tools\":{}},\"serverInfo\":"
	    "{\"name\":\"s\",\"version\":\"1\"}}";

	ck_assert_int_eq(bsess_init_compare(a, strlen(a), same,
	    strlen(same)), BSESS_INIT_SAME);
	ck_assert_int_eq(bsess_init_compare(a, strlen(a), caps,
	    strlen(caps)), BSESS_INIT_CHANGED);
	ck_assert_int_eq(bsess_init_compare(a, strlen(a), info,
	    strlen(info)), BSESS_INIT_CHANGED);
	ck_assert_int_eq(bsess_init_compare(a, strlen(a), ver, strlen(ver)),
	    BSESS_INIT_VERSION);
	ck_assert_int_eq(bsess_init_compare(a, strlen(a), "[]", 2),
	    BSESS_INIT_ERROR);
	ck_assert_int_eq(bsess_init_compare(a, strlen(a), "{", 1),
	    BSESS_INIT_ERROR);
}
END_TEST

START_TEST(test_bsess_error_line)
{
	char		 buf[256], small[20];
	size_t		 n;
	struct envelope	 env;
	size_t		 err;

	n = bsess_error_line(buf, sizeof buf, "\"x\"", 3,
	    RPC_CONNECTION_CLOSED, "gone");
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\n');
	ck_assert_int_eq(envelope_scan(buf, n - 1, &env, &err), 0);
	ck_assert(envelope_string_eq(buf, &env.id, "x"));
	ck_assert_int_eq(env.e_code.type, ENVELOPE_NUMBER);
	ck_assert_uint_eq(bsess_error_line(small, sizeof small, "1", 1,
	    -32000, "a long message"), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("bsess");
	tc = tcase_create("bsess");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bsess_inflight);
	tcase_add_test(tc, test_bsess_inflight_bound);
	tcase_add_test(tc, test_bsess_stale);
	tcase_add_test(tc, test_bsess_subs_level_lists);
	tcase_add_test(tc, test_bsess_replay);
	tcase_add_test(tc, test_bsess_compare);
	tcase_add_test(tc, test_bsess_error_line);
	suite_add_tcase(s, tc);
	return (s);
}
