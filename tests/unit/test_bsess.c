/*
 * test_bsess.c -- unit tests for the session `mcpctl connect` keeps:
 * requests in flight both ways, subscriptions, the log level, the lists
 * asked for, the replay after a lost connection and its outcome, and the
 * comparison of initialize results; a 2026-07-28 session (no initialize)
 * and its subscriptions/listen streams, replayed and acknowledged once.
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

/* from_client, and what it said of a request it could not keep. */
static int
from_client_untracked(struct bsess *s, const char *line)
{
	struct envelope	 env;
	size_t		 err;
	int		 untracked;

	memset(&env, 0, sizeof env);
	ck_assert_int_eq(envelope_scan(line, strlen(line), &env, &err), 0);
	ck_assert_int_eq(bsess_from_client(s, line, strlen(line), &env, 1,
	    &untracked), BSESS_FORWARD);
	return (untracked);
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

static int
has_listen(struct bsess *s, const char *id)
{
	struct bsess_iter	 it;
	const char		*p;
	size_t			 len;

	bsess_listen_first(s, &it);
	while (bsess_listen_next(&it, &p, &len))
		if (len == strlen(id) && memcmp(p, id, len) == 0)
			return (1);
	return (0);
}

/* The replay as a C string (NULL: nothing to replay). */
static char *
replay_text(struct bsess *s)
{
	char	*text;
	size_t	 len;

	if ((text = bsess_replay(s, &len)) == NULL)
		return (NULL);
	text = realloc(text, len + 1);
	ck_assert_ptr_nonnull(text);
	text[len] = '\0';
	return (text);
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


/* What a 2026-07-28 client puts in every request. */
#define META26 "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientInfo\":{\"name\":" \
	"\"t\",\"version\":\"1\"},\"io.modelcontextprotocol/" \
	"clientCapabilities\":{}}"
#define CALL26(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":" \
	"\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}," \
	META26 "}}"
#define LISTEN26(id) "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":" \
	"\"subscriptions/listen\",\"params\":{\"notifications\":" \
	"{\"toolsListChanged\":true}," META26 "}}"
#define ACK26(sid) "{\"jsonrpc\":\"2.0\",\"method\":" \
	"\"notifications/subscriptions/acknowledged\",\"params\":{" \
	"\"notifications\":{\"toolsListChanged\":true},\"_meta\":" \
	"{\"io.modelcontextprotocol/subscriptionId\":" sid "}}}"
#define CANCEL(id) "{\"jsonrpc\":\"2.0\",\"method\":" \
	"\"notifications/cancelled\",\"params\":{\"requestId\":" id "}}"

/*
 * A client that never sent initialize: its requests are tracked and
 * failed at a loss as any, nothing waits on a new connection, and what
 * it sends after goes through.
 */
START_TEST(test_bsess_modern_no_initialize)
{
	struct bsess	*s = bsess_new();
	size_t		 len;

	ck_assert_int_eq(from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":0,"
	    "\"method\":\"server/discover\",\"params\":{" META26 "}}"),
	    BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":0,"
	    "\"result\":{\"resultType\":\"complete\"}}"), BSESS_FORWARD);
	ck_assert_int_eq(from_client(s, CALL26("1")), BSESS_FORWARD);
	ck_assert_int_eq(from_client(s, CALL26("\"two\"")), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_inflight(s), 2);
	ck_assert(has_inflight(s, "1") && has_inflight(s, "\"two\""));
	/* The loss: both are the bridge's to fail; no listen, no replay. */
	bsess_lost(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	ck_assert_ptr_null(bsess_replay(s, &len));
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_NONE);
	/* After it, requests are tracked and answered as before. */
	ck_assert_int_eq(from_client(s, CALL26("3")), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_inflight(s), 1);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":3,"
	    "\"result\":{\"content\":[],\"resultType\":\"complete\"}}"),
	    BSESS_FORWARD);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	bsess_free(s);
}
END_TEST

/*
 * An open listen is not failed at a loss but sent again, verbatim and
 * under its own id, with nothing to wait for; the new connection's
 * acknowledgement of it is swallowed, once, and the stream's
 * notifications pass.
 */
START_TEST(test_bsess_listen_replay)
{
	struct bsess	*s = bsess_new();
	char		*text;

	ck_assert_int_eq(from_client_untracked(s, LISTEN26("\"L\"")), 0);
	ck_assert_int_eq(from_client_untracked(s, CALL26("1")), 0);
	ck_assert_uint_eq(bsess_listens(s), 1);
	ck_assert(has_listen(s, "\"L\""));
	/* Not among the requests a loss fails. */
	ck_assert_uint_eq(bsess_inflight(s), 1);
	ck_assert(!has_inflight(s, "\"L\""));
	/* The first acknowledgement is the client's. */
	ck_assert_int_eq(from_server(s, ACK26("\"L\"")), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\",\"params\":{\"_meta\":"
	    "{\"io.modelcontextprotocol/subscriptionId\":\"L\"}}}"),
	    BSESS_FORWARD);

	bsess_lost(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	ck_assert_uint_eq(bsess_listens(s), 1);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, LISTEN26("\"L\"") "\n");
	free(text);
	/* No initialize: the bridge waits for nothing. */
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_NONE);

	/* The new connection's acknowledgement: the client had one. */
	ck_assert_int_eq(from_server(s, ACK26("\"L\"")), BSESS_SWALLOW);
	/* Once: a second is the server's to explain, and passes. */
	ck_assert_int_eq(from_server(s, ACK26("\"L\"")), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/tools/list_changed\",\"params\":{\"_meta\":"
	    "{\"io.modelcontextprotocol/subscriptionId\":\"L\"}}}"),
	    BSESS_FORWARD);
	/* Another listen's, or one the bridge does not know, passes. */
	ck_assert_int_eq(from_server(s, ACK26("\"M\"")), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_listens(s), 1);

	/* A second loss: sent again, swallowed again. */
	bsess_lost(s);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, LISTEN26("\"L\"") "\n");
	free(text);
	ck_assert_int_eq(from_server(s, ACK26("\"L\"")), BSESS_SWALLOW);
	bsess_free(s);
}
END_TEST

/*
 * A listen lost before it was acknowledged: the client never had an
 * acknowledgement, so the new connection's passes.
 */
START_TEST(test_bsess_listen_unacked)
{
	struct bsess	*s = bsess_new();

	from_client(s, LISTEN26("7"));
	bsess_lost(s);
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, ACK26("7")), BSESS_FORWARD);
	bsess_lost(s);
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, ACK26("7")), BSESS_SWALLOW);
	/* An acknowledgement due on a connection that was lost is not. */
	bsess_lost(s);
	free(replay_text(s));
	bsess_lost(s);
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, ACK26("7")), BSESS_SWALLOW);
	ck_assert_int_eq(from_server(s, ACK26("7")), BSESS_FORWARD);
	bsess_free(s);
}
END_TEST

/* mcpd writes the subscriptionId itself: the same id in other text. */
START_TEST(test_bsess_listen_ack_spelling)
{
	struct bsess	*s = bsess_new();

	from_client(s, LISTEN26("\"a\\u0062/c\""));
	from_client(s, LISTEN26("12"));
	from_server(s, ACK26("\"ab/c\""));
	from_server(s, ACK26("12"));
	bsess_lost(s);
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, ACK26("\"ab\\/c\"")), BSESS_SWALLOW);
	/* 12 and "12" are different ids. */
	ck_assert_int_eq(from_server(s, ACK26("\"12\"")), BSESS_FORWARD);
	/* Other members of _meta first, and white space. */
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"_meta\":{ \"x\":{\"io.modelcontextprotocol/subscriptionId\":"
	    "12},\"y\":[1,\"}\"] , \"io.modelcontextprotocol/"
	    "subscriptionId\" : 12 }}}"), BSESS_SWALLOW);
	/* An acknowledgement without an id of a listen passes. */
	bsess_lost(s);
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{}}"),
	    BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/subscriptions/acknowledged\",\"params\":{"
	    "\"_meta\":{}}}"), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, ACK26("12.5")), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, ACK26("12")), BSESS_SWALLOW);
	bsess_free(s);
}
END_TEST

/* Cancelled by the client, or answered by mcpd: forgotten. */
START_TEST(test_bsess_listen_forgotten)
{
	struct bsess	*s = bsess_new();
	size_t		 len;

	from_client(s, LISTEN26("1"));
	from_client(s, LISTEN26("2"));
	from_client(s, LISTEN26("3"));
	from_client(s, LISTEN26("4"));
	ck_assert_uint_eq(bsess_listens(s), 4);
	/* A cancel of another id, or of another text, changes nothing. */
	ck_assert_int_eq(from_client(s, CANCEL("9")), BSESS_FORWARD);
	ck_assert_int_eq(from_client(s, CANCEL("\"1\"")), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_listens(s), 4);
	ck_assert_int_eq(from_client(s, CANCEL("1")), BSESS_FORWARD);
	ck_assert_uint_eq(bsess_listens(s), 3);
	ck_assert(!has_listen(s, "1"));
	/* A graceful end (a result), and an error. */
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":2,"
	    "\"result\":{\"resultType\":\"complete\"}}"), BSESS_FORWARD);
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":3,"
	    "\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"),
	    BSESS_FORWARD);
	ck_assert_uint_eq(bsess_listens(s), 1);
	ck_assert(has_listen(s, "4"));
	bsess_lost(s);
	/* Answered on the new connection (the replay): forgotten too. */
	free(replay_text(s));
	ck_assert_int_eq(from_server(s, "{\"jsonrpc\":\"2.0\",\"id\":4,"
	    "\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}"),
	    BSESS_FORWARD);
	ck_assert_uint_eq(bsess_listens(s), 0);
	bsess_lost(s);
	ck_assert_ptr_null(bsess_replay(s, &len));
	bsess_free(s);
}
END_TEST

/* In the order they were sent; the same id again is one listen. */
START_TEST(test_bsess_listen_order)
{
	struct bsess	*s = bsess_new();
	char		*text;

	from_client(s, LISTEN26("\"c\""));
	from_client(s, LISTEN26("\"a\""));
	from_client(s, LISTEN26("\"b\""));
	from_client(s, CANCEL("\"a\""));
	from_client(s, LISTEN26("\"a\""));
	from_client(s, "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":"
	    "\"subscriptions/listen\",\"params\":{\"notifications\":{}}}");
	ck_assert_uint_eq(bsess_listens(s), 3);
	bsess_lost(s);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, LISTEN26("\"c\"") "\n" LISTEN26("\"a\"") "\n"
	    "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":"
	    "\"subscriptions/listen\",\"params\":{\"notifications\":{}}}\n");
	free(text);
	bsess_free(s);
}
END_TEST

/* A listen of exactly len bytes with the id given (JSON text). */
static char *
listen_of_len(const char *id, size_t len)
{
	char	*l;
	int	 n;

	l = malloc(len + 1);
	ck_assert_ptr_nonnull(l);
	n = snprintf(l, len + 1, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":"
	    "\"subscriptions/listen\",\"params\":{\"x\":\"", id);
	ck_assert(n > 0 && (size_t)n + 3 <= len);
	memset(l + n, 'x', len - (size_t)n - 3);
	memcpy(l + len - 3, "\"}}", 4);
	return (l);
}

/*
 * Past a bound a listen is an ordinary request: failed at a loss, never
 * sent again.
 */
START_TEST(test_bsess_listen_bounds)
{
	struct bsess	*s = bsess_new();
	char		 line[BSESS_ID_MAX_BYTES + 128], id[32], *l, *text;
	size_t		 i;

	/* One line: at the bound, and over it. */
	l = listen_of_len("\"big\"", BSESS_LISTEN_MAX_BYTES);
	ck_assert_int_eq(from_client_untracked(s, l), 0);
	free(l);
	l = listen_of_len("\"bi2\"", BSESS_LISTEN_MAX_BYTES + 1);
	ck_assert_int_eq(from_client_untracked(s, l), BSESS_UNREPLAYABLE);
	free(l);
	ck_assert_uint_eq(bsess_listens(s), 1);
	ck_assert(has_inflight(s, "\"bi2\""));
	/* An id already in flight as a request. */
	from_client(s, CALL26("5"));
	ck_assert_int_eq(from_client_untracked(s, LISTEN26("5")),
	    BSESS_UNREPLAYABLE);
	ck_assert_uint_eq(bsess_listens(s), 1);
	/* An id too long to track at all. */
	i = (size_t)snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":"
	    "\"");
	memset(line + i, 'i', BSESS_ID_MAX_BYTES);
	snprintf(line + i + BSESS_ID_MAX_BYTES, sizeof line - i -
	    BSESS_ID_MAX_BYTES, "\",\"method\":\"subscriptions/listen\"}");
	ck_assert_int_eq(from_client_untracked(s, line), BSESS_UNTRACKED);
	ck_assert_uint_eq(bsess_listens(s), 1);
	/* At the loss: the listen stays, the others are the bridge's to fail. */
	ck_assert_uint_eq(bsess_inflight(s), 2);
	bsess_lost(s);
	ck_assert_uint_eq(bsess_listens(s), 1);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_null(strstr(text, "bi2"));
	ck_assert_ptr_null(strstr(text, "\"id\":5,"));
	free(text);
	bsess_free(s);

	/* The bytes of all of them. */
	s = bsess_new();
	for (i = 0; i < BSESS_LISTENS_MAX_BYTES / BSESS_LISTEN_MAX_BYTES;
	    i++) {
		snprintf(id, sizeof id, "%zu", i);
		l = listen_of_len(id, BSESS_LISTEN_MAX_BYTES);
		ck_assert_int_eq(from_client_untracked(s, l), 0);
		free(l);
	}
	ck_assert_int_eq(from_client_untracked(s, LISTEN26("\"small\"")),
	    BSESS_UNREPLAYABLE);
	/* The same id again replaces: a smaller line fits. */
	ck_assert_int_eq(from_client_untracked(s, LISTEN26("0")), 0);
	ck_assert_uint_eq(bsess_listens(s),
	    BSESS_LISTENS_MAX_BYTES / BSESS_LISTEN_MAX_BYTES);
	ck_assert_int_eq(from_client_untracked(s, LISTEN26("\"small2\"")),
	    0);
	bsess_free(s);

	/* Their number. */
	s = bsess_new();
	for (i = 0; i < BSESS_MAX_LISTENS + 3; i++) {
		snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%zu,"
		    "\"method\":\"subscriptions/listen\",\"params\":{}}", i);
		ck_assert_int_eq(from_client_untracked(s, line),
		    i < BSESS_MAX_LISTENS ? 0 : BSESS_UNREPLAYABLE);
	}
	ck_assert_uint_eq(bsess_listens(s), BSESS_MAX_LISTENS);
	ck_assert_uint_eq(bsess_inflight(s), 3);
	snprintf(id, sizeof id, "%d", BSESS_MAX_LISTENS);
	ck_assert(has_inflight(s, id));
	/* One cancelled: room for one more. */
	from_client(s, CANCEL("0"));
	ck_assert_int_eq(from_client_untracked(s, "{\"jsonrpc\":\"2.0\","
	    "\"id\":\"more\",\"method\":\"subscriptions/listen\"}"), 0);
	bsess_lost(s);
	ck_assert_uint_eq(bsess_inflight(s), 0);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(strstr(text, "\"id\":\"more\""));
	snprintf(line, sizeof line, "\"id\":%d,", BSESS_MAX_LISTENS);
	ck_assert_ptr_null(strstr(text, line));
	ck_assert_ptr_null(strstr(text, "\"id\":0,"));
	free(text);
	bsess_free(s);
}
END_TEST

/* A 2025 session with a listen: initialize first, and waited for. */
START_TEST(test_bsess_listen_after_initialize)
{
	struct bsess	*s = bsess_new();
	char		*text, *l;

	initialize(s);
	from_client(s, LISTEN26("\"L\""));
	bsess_lost(s);
	text = replay_text(s);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(bsess_replay_outcome(s), BSESS_INIT_PENDING);
	ck_assert_ptr_nonnull(strstr(text, "\"method\":\"initialize\""));
	l = strstr(text, LISTEN26("\"L\"") "\n");
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_null(strstr(l + 1, "\"method\":\"initialize\""));
	free(text);
	bsess_free(s);
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
	tcase_add_test(tc, test_bsess_modern_no_initialize);
	tcase_add_test(tc, test_bsess_listen_replay);
	tcase_add_test(tc, test_bsess_listen_unacked);
	tcase_add_test(tc, test_bsess_listen_ack_spelling);
	tcase_add_test(tc, test_bsess_listen_forgotten);
	tcase_add_test(tc, test_bsess_listen_order);
	tcase_add_test(tc, test_bsess_listen_bounds);
	tcase_add_test(tc, test_bsess_listen_after_initialize);
	suite_add_tcase(s, tc);
	return (s);
}
