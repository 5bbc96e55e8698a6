/*
 * test_handover.c -- the state one mcpd hands the next across a re-exec:
 * what is printed is parsed back the same, and what is wrong is refused
 * with a reason.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handover.h"
#include "unit.h"
#include "xmalloc.h"

/* Lasting principals' ids start at 2^62, past a JSON number's exactness. */
#define PRINCIPAL_A	((1ULL << 62) + 5)
#define PRINCIPAL_B	UINT64_MAX
#define TASK_1		"00112233445566778899aabbccddeeff"
#define TASK_2		"ffeeddccbbaa99887766554433221100"
#define TASK_3		"0123456789abcdef0123456789abcdef"
#define TASK_4		"abcdefabcdefabcdefabcdefabcdefab"

static void
sample(struct handover *h)
{
	struct handover_server	*s;

	handover_init(h);
	h->config_file = strdup("/etc/mcpd/mcpd.json");
	h->config_text.p = strdup("{\"servers\": {}}\n");
	h->config_text.len = strlen(h->config_text.p);
	h->listen_fd = 3;
	h->listen_owned = 1;
	h->socket_path = strdup("/run/mcpd/mcpd.sock");
	handover_add_http_fd(h, 5);
	handover_add_http_fd(h, 6);
	h->guard_fd = 4;
	h->cgroup_root = strdup("/sys/fs/cgroup/mcpd.service");
	h->guard_pid = 4242;
	h->nofile_cur = 1024;
	h->nofile_max = 524288;
	h->nofile_raised = 1;
	h->started_ms = 123456789;
	h->reexecs = 2;
	h->workers_total = 7;

	s = handover_add_server(h);
	s->name = strdup("fs");
	s->running = 1;
	s->state = strdup("ready");
	s->spawns = 3;
	s->last_exit = strdup("exited with status 1");
	s->last_stderr = strdup("boom: missing API key");
	s->pid = 5000;
	s->exit_pid = 5001;
	s->containment = 2;
	s->cgroup_leaf = strdup("");
	s->in_fd = 10;
	s->out_fd = 11;
	s->err_fd = 12;
	s->spawned_ms = 1000;
	s->ready_ms = 1200;
	s->next_upstream_id = 9007199254740000LL;
	s->first_id = 17;
	s->init_result = strdup("{\"protocolVersion\":\"2025-06-18\"}");
	s->level = 3;
	s->remote = strdup("{\"session\":\"established\"}");
	handover_add_line(s, "listening on stdio", 18, 1700000000000000ULL);
	handover_add_line(s, "", 0, 1700000000000001ULL);
	handover_add_line(s, "bin\0\xff", 5, 1700000000000002ULL);
	s->stderr_lines = 99;
	handover_add_sub(s, "file:///a");
	handover_add_ask(s, "\"sampling-7\"");
	handover_add_ask(s, "12");
	handover_add_sub(s, "file:///b \"quoted\"");
	/* Half lines may hold any byte, NUL and invalid UTF-8 too. */
	s->out_partial.p = malloc(5);
	memcpy(s->out_partial.p, "{\"a\0\xff", 5);
	s->out_partial.len = 5;
	s->in_queued.p = strdup("{\"jsonrpc\":\"2.0\"}\n{\"js");
	s->in_queued.len = strlen(s->in_queued.p);

	s = handover_add_server(h);
	s->name = strdup("remote");
	s->running = 0;
	s->state = strdup("stopped");

	/* A template and an instance of it (share per-client). */
	s = handover_add_server(h);
	s->name = strdup("tab");
	s->state = strdup("idle");
	s->instances_made = 4;
	s = handover_add_server(h);
	s->name = strdup("tab#4");
	s->state = strdup("stopped");
	s->instance_of = strdup("tab");
	s->instance_no = 4;
	s->owner_pid = 31075;
	s->owner_uid = 1000;
	s->roots = strdup("{\"roots\":[{\"uri\":\"file:///w\",\"name\":\"w\"}]}");

	/* Tasks of lasting principals, on a running server and a stopped one. */
	handover_add_principal(h, "0123456789abcdef0123456789abcdef", 1000,
	    PRINCIPAL_A, 60000);
	handover_add_principal(h, "fedcba9876543210fedcba9876543210", 0,
	    PRINCIPAL_B, 0);
	handover_add_task(&h->servers[0], TASK_1, PRINCIPAL_A, "up-1 \"q\"",
	    "{\"taskId\":\"" TASK_1 "\",\"status\":\"working\"}", 1500,
	    86398500);
	handover_add_task(&h->servers[0], TASK_2, PRINCIPAL_B, "7",
	    "{\"status\":\"completed\",\"taskId\":\"" TASK_2 "\"}", 0, 0);
	handover_add_task(&h->servers[1], TASK_3, PRINCIPAL_A, "up-1 \"q\"",
	    "{\"taskId\":\"" TASK_3 "\"}", 123456789012345ULL, 1);
	/* The eras of MCP found by configuration (probe.h). */
	handover_add_era(h, "00ff", "2025", "probe-intolerant");
	handover_add_era(h, "ab12", "2026-07-28", "server/discover");
	/* One a client runs for the server, kept under the same key. */
	handover_add_task(&h->servers[0], TASK_4, PRINCIPAL_B, "up-1 \"q\"",
	    "{\"taskId\":\"" TASK_4 "\"}", 5, 6)->client_runs = 1;
}

START_TEST(test_handover_round_trip)
{
	struct handover	 h, back;
	char		*text, *cause, *again;
	const struct handover_server *s;

	sample(&h);
	text = handover_print(&h);
	ck_assert_int_eq(handover_parse(text, strlen(text), &back, &cause), 0);
	ck_assert_int_eq(back.version, HANDOVER_VERSION);
	ck_assert_str_eq(back.config_file, "/etc/mcpd/mcpd.json");
	ck_assert_uint_eq(back.config_text.len, h.config_text.len);
	ck_assert(memcmp(back.config_text.p, h.config_text.p,
	    h.config_text.len) == 0);
	ck_assert_int_eq(back.listen_fd, 3);
	ck_assert_int_eq(back.listen_owned, 1);
	ck_assert_uint_eq(back.nhttp_fds, 2);
	ck_assert_int_eq(back.http_fds[0], 5);
	ck_assert_int_eq(back.http_fds[1], 6);
	ck_assert_int_eq(back.guard_fd, 4);
	ck_assert_str_eq(back.cgroup_root, "/sys/fs/cgroup/mcpd.service");
	ck_assert_int_eq(back.guard_pid, 4242);
	ck_assert_uint_eq(back.nofile_max, 524288);
	ck_assert_uint_eq(back.started_ms, 123456789);
	ck_assert_uint_eq(back.reexecs, 2);
	ck_assert_uint_eq(back.nservers, 4);
	ck_assert_uint_eq(back.servers[2].instances_made, 4);
	ck_assert_ptr_null(back.servers[2].instance_of);
	ck_assert_str_eq(back.servers[3].instance_of, "tab");
	ck_assert_uint_eq(back.servers[3].instance_no, 4);
	ck_assert_int_eq(back.servers[3].owner_pid, 31075);
	ck_assert_uint_eq(back.servers[3].owner_uid, 1000);
	ck_assert_str_eq(back.servers[3].roots, h.servers[3].roots);
	s = &back.servers[0];
	ck_assert_str_eq(s->name, "fs");
	ck_assert_int_eq(s->running, 1);
	ck_assert_int_eq(s->pid, 5000);
	ck_assert_int_eq(s->exit_pid, 5001);
	ck_assert_int_eq(s->in_fd, 10);
	ck_assert_int_eq(s->status_fd, -1);
	ck_assert(s->next_upstream_id == 9007199254740000LL);
	ck_assert(s->first_id == 17);
	ck_assert_int_eq(s->level, 3);
	ck_assert_str_eq(s->remote, "{\"session\":\"established\"}");
	ck_assert_str_eq(s->last_stderr, "boom: missing API key");
	ck_assert_ptr_null(back.servers[1].last_stderr);
	ck_assert_uint_eq(s->nlines, 3);
	ck_assert_uint_eq(s->stderr_lines, 99);
	ck_assert_uint_eq(s->lines[0].text.len, 18);
	ck_assert(memcmp(s->lines[0].text.p, "listening on stdio", 18) == 0);
	ck_assert_uint_eq(s->lines[1].text.len, 0);
	ck_assert(s->lines[1].time_us == 1700000000000001ULL);
	ck_assert_uint_eq(s->lines[2].text.len, 5);
	ck_assert(memcmp(s->lines[2].text.p, "bin\0\xff", 5) == 0);
	ck_assert_uint_eq(s->nsubs, 2);
	ck_assert_str_eq(s->subs[1], "file:///b \"quoted\"");
	ck_assert_uint_eq(s->nasks, 2);
	ck_assert_str_eq(s->asks[0], "\"sampling-7\"");
	ck_assert_str_eq(s->asks[1], "12");
	ck_assert_uint_eq(s->out_partial.len, 5);
	ck_assert(memcmp(s->out_partial.p, "{\"a\0\xff", 5) == 0);
	ck_assert_uint_eq(s->err_partial.len, 0);
	ck_assert_uint_eq(s->in_queued.len, h.servers[0].in_queued.len);
	ck_assert_str_eq(back.servers[1].state, "stopped");
	ck_assert_int_eq(back.servers[1].running, 0);
	ck_assert_int_eq(back.servers[1].in_fd, -1);
	/* The eras, in order. */
	ck_assert_uint_eq(back.neras, 2);
	ck_assert_str_eq(back.eras[0].key, "00ff");
	ck_assert_str_eq(back.eras[0].era, "2025");
	ck_assert_str_eq(back.eras[0].how, "probe-intolerant");
	ck_assert_str_eq(back.eras[1].key, "ab12");
	ck_assert_str_eq(back.eras[1].era, "2026-07-28");
	ck_assert_str_eq(back.eras[1].how, "server/discover");
	/* The principals and their tasks, ids exact as decimal strings. */
	ck_assert_uint_eq(back.nprincipals, 2);
	ck_assert_str_eq(back.principals[0].sid,
	    "0123456789abcdef0123456789abcdef");
	ck_assert_uint_eq(back.principals[0].uid, 1000);
	ck_assert(back.principals[0].id == PRINCIPAL_A);
	ck_assert_uint_eq(back.principals[0].idle_ms, 60000);
	ck_assert_str_eq(back.principals[1].sid,
	    "fedcba9876543210fedcba9876543210");
	ck_assert_uint_eq(back.principals[1].uid, 0);
	ck_assert(back.principals[1].id == PRINCIPAL_B);
	ck_assert_ptr_nonnull(strstr(text, "\"id\":\"18446744073709551615\""));
	ck_assert_ptr_nonnull(strstr(text,
	    "\"principal\":\"4611686018427387909\""));
	ck_assert_uint_eq(s->ntasks, 3);
	ck_assert_int_eq(s->tasks[0].client_runs, 0);
	ck_assert_int_eq(s->tasks[1].client_runs, 0);
	ck_assert_str_eq(s->tasks[2].id, TASK_4);
	ck_assert_str_eq(s->tasks[2].up_id, "up-1 \"q\"");
	ck_assert_int_eq(s->tasks[2].client_runs, 1);
	ck_assert_str_eq(s->tasks[0].id, TASK_1);
	ck_assert(s->tasks[0].principal == PRINCIPAL_A);
	ck_assert_str_eq(s->tasks[0].up_id, "up-1 \"q\"");
	ck_assert_str_eq(s->tasks[0].last, h.servers[0].tasks[0].last);
	ck_assert_uint_eq(s->tasks[0].age_ms, 1500);
	ck_assert_uint_eq(s->tasks[0].left_ms, 86398500);
	ck_assert_str_eq(s->tasks[1].id, TASK_2);
	ck_assert(s->tasks[1].principal == PRINCIPAL_B);
	ck_assert_str_eq(s->tasks[1].up_id, "7");
	ck_assert_str_eq(s->tasks[1].last, h.servers[0].tasks[1].last);
	ck_assert_uint_eq(back.servers[1].ntasks, 1);
	ck_assert_str_eq(back.servers[1].tasks[0].id, TASK_3);
	ck_assert(back.servers[1].tasks[0].age_ms == 123456789012345ULL);
	ck_assert_uint_eq(back.servers[1].tasks[0].left_ms, 1);
	ck_assert_uint_eq(back.servers[2].ntasks, 0);
	ck_assert_ptr_null(back.servers[2].tasks);
	/* Printed again, the same text. */
	again = handover_print(&back);
	ck_assert_str_eq(again, text);
	free(again);
	free(text);
	handover_free(&back);
	handover_free(&h);
}
END_TEST

/* Parse text that must be refused; the cause must contain want. */
static void
refused(const char *text, const char *want)
{
	struct handover	 h;
	char		*cause = NULL;

	ck_assert_msg(handover_parse(text, strlen(text), &h, &cause) == -1,
	    "accepted: %s", text);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, want) != NULL, "\"%s\" for %s", cause,
	    text);
	free(cause);
	/* A refused parse leaves nothing to free but is safe to free. */
	handover_free(&h);
}

/* A state as older mcpd printed it, without principals or tasks. */
START_TEST(test_handover_without_tasks)
{
	static const char *text = "{\"version\":1,\"config_file\":\"f\","
	    "\"socket_path\":\"s\",\"listen_fd\":3,\"servers\":["
	    "{\"name\":\"fs\",\"running\":true,\"state\":\"ready\","
	    "\"pid\":10,\"exit_pid\":11,\"containment\":2,\"in_fd\":5,"
	    "\"out_fd\":6,\"err_fd\":7,\"next_upstream_id\":40,"
	    "\"init_result\":\"{\\\"protocolVersion\\\":\\\"x\\\"}\"},"
	    "{\"name\":\"off\",\"state\":\"stopped\"}]}";
	struct handover	 h;
	char		*cause = NULL, *again;

	ck_assert_msg(handover_parse(text, strlen(text), &h, &cause) == 0,
	    "%s", cause);
	ck_assert_uint_eq(h.nprincipals, 0);
	ck_assert_ptr_null(h.principals);
	ck_assert_uint_eq(h.nservers, 2);
	ck_assert_uint_eq(h.servers[0].ntasks, 0);
	ck_assert_uint_eq(h.servers[1].ntasks, 0);
	/* None prints as no member: an older mcpd reads it too. */
	again = handover_print(&h);
	ck_assert_ptr_null(strstr(again, "tasks"));
	ck_assert_ptr_null(strstr(again, "principals"));
	ck_assert_ptr_null(strstr(again, "eras"));
	ck_assert_ptr_null(strstr(again, "http_fds"));
	ck_assert_uint_eq(h.neras, 0);
	ck_assert_uint_eq(h.nhttp_fds, 0);
	free(again);
	handover_free(&h);
}
END_TEST

START_TEST(test_handover_refused)
{
	char	 big[256];

	refused("", "not a JSON object");
	refused("[1]", "not a JSON object");
	refused("{\"version\":1", "not a JSON object");
	refused("{}", "no \"version\"");
	snprintf(big, sizeof big, "{\"version\":%d}", HANDOVER_VERSION + 1);
	refused(big, "reads version");
	refused("{\"version\":1.5}", "integer");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\"}",
	    "no \"listen_fd\"");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":-1,\"servers\":[]}", "no listening socket");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":99999999,\"servers\":[]}", "listen_fd");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"http_fds\":[2],\"servers\":[]}", "http_fds");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"http_fds\":[4,4],\"servers\":[]}", "each once");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"http_fds\":7,\"servers\":[]}", "http_fds");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3}", "no \"servers\"");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[7]}", "server 0: not an object");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"x\"},"
	    "{\"name\":\"a\",\"state\":\"x\"}]}", "second server");
	/* A running server needs its process and pipes. */
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true}]}", "server 0: no \"pid\"");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":1,\"exit_pid\":5}]}", "pid");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":9,\"exit_pid\":9,\"containment\":1,"
	    "\"in_fd\":5,\"out_fd\":6,\"err_fd\":7,\"next_upstream_id\":2,"
	    "\"init_result\":\"{\\\"protocolVersion\\\":\\\"x\\\"}\",\"out_partial\":\"***\"}]}",
	    "out_partial");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":9,\"exit_pid\":9,\"containment\":1,"
	    "\"in_fd\":5,\"out_fd\":6,\"err_fd\":7,\"next_upstream_id\":2,"
	    "\"init_result\":\"{\\\"protocolVersion\\\":\\\"x\\\"}\",\"subscriptions\":[1]}]}",
	    "subscriptions");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":9,\"exit_pid\":9,\"containment\":1,"
	    "\"in_fd\":5,\"out_fd\":6,\"err_fd\":7,"
	    "\"next_upstream_id\":1e300,\"init_result\":\"{}\"}]}",
	    "next_upstream_id");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":9,\"exit_pid\":9,\"containment\":1,"
	    "\"in_fd\":5,\"out_fd\":6,\"err_fd\":7,\"next_upstream_id\":2,"
	    "\"init_result\":\"{}\"}]}", "init_result");
	/* An instance's roots are given to its server: they must be some. */
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a#1\",\"state\":\"x\","
	    "\"instance_of\":\"a\",\"instance_no\":1,"
	    "\"roots\":\"{\\\"roots\\\":[{\\\"uri\\\":\\\"http://x\\\"}]}\"}]}",
	    "roots");
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a#1\",\"state\":\"x\","
	    "\"instance_of\":\"a\",\"instance_no\":0}]}", "instance_no");
	/* An id is written back to the server: it must be one. */
	refused("{\"version\":1,\"config_file\":\"f\",\"socket_path\":\"s\","
	    "\"listen_fd\":3,\"servers\":[{\"name\":\"a\",\"state\":\"ready\","
	    "\"running\":true,\"pid\":9,\"exit_pid\":9,\"containment\":1,"
	    "\"in_fd\":5,\"out_fd\":6,\"err_fd\":7,\"next_upstream_id\":2,"
	    "\"init_result\":\"{\\\"protocolVersion\\\":\\\"x\\\"}\",\"asks\":[\"1},{\\\"x\\\":1\"]}]}",
	    "asks");
}
END_TEST

/*
 * A stopped server "a" with tasks, then the principals: every refusal of
 * the tasks and principals is tried on this.
 */
#define STATE_HEAD	"{\"version\":1,\"config_file\":\"f\"," \
	"\"socket_path\":\"s\",\"listen_fd\":3,"
#define SID_A		"0123456789abcdef0123456789abcdef"
#define SID_B		"fedcba9876543210fedcba9876543210"
#define ID_A		"4611686018427387909"		/* 2^62 + 5 */
#define ID_B		"18446744073709551615"		/* 2^64 - 1 */
#define P_A		"{\"sid\":\"" SID_A "\",\"uid\":1000,\"id\":\"" ID_A "\"}"
#define P_B		"{\"sid\":\"" SID_B "\",\"uid\":0,\"id\":\"" ID_B "\"}"
#define LAST_1		"\"{\\\"taskId\\\":\\\"" TASK_1 "\\\"}\""
#define T_1		"{\"id\":\"" TASK_1 "\",\"principal\":\"" ID_A "\"," \
	"\"up_id\":\"u1\",\"last\":" LAST_1 "}"

/* The state with these tasks on server "a" and these principals. */
static char *
with(const char *tasks, const char *principals)
{
	char	*text;

	xasprintf(&text, STATE_HEAD "\"servers\":[{\"name\":\"a\","
	    "\"state\":\"x\",\"tasks\":%s}],\"principals\":%s}", tasks,
	    principals);
	return (text);
}

static void
with_accepted(const char *tasks, const char *principals)
{
	struct handover	 h;
	char		*text, *cause = NULL;

	text = with(tasks, principals);
	ck_assert_msg(handover_parse(text, strlen(text), &h, &cause) == 0,
	    "%s: %s", cause, text);
	handover_free(&h);
	free(text);
}

static void
with_refused(const char *tasks, const char *principals, const char *want)
{
	char	*text;

	text = with(tasks, principals);
	refused(text, want);
	free(text);
}

/* "tasks" of one task, from its members' JSON text. */
static char *
task(const char *id, const char *principal, const char *up_id,
    const char *last)
{
	char	*text;

	xasprintf(&text, "[{\"id\":%s,\"principal\":%s,\"up_id\":%s,"
	    "\"last\":%s}]", id, principal, up_id, last);
	return (text);
}

static void
task_refused(const char *id, const char *principal, const char *up_id,
    const char *last, const char *want)
{
	char	*tasks;

	tasks = task(id, principal, up_id, last);
	with_refused(tasks, "[" P_A "]", want);
	free(tasks);
}

static void
principal_refused(const char *sid, const char *uid, const char *id,
    const char *want)
{
	char	*principals;

	xasprintf(&principals, "[{\"sid\":%s,\"uid\":%s,\"id\":%s}]", sid,
	    uid, id);
	with_refused("[]", principals, want);
	free(principals);
}

START_TEST(test_handover_tasks_refused)
{
	char	*up, *tasks;

	/* What every case below alters, accepted as it is. */
	with_accepted("[" T_1 "]", "[" P_A "," P_B "]");
	with_accepted("[]", "[]");

	/* Ids of mcpd's tasks and principals' secrets: 32 lowercase hex. */
	task_refused("\"00112233445566778899AABBCCDDEEFF\"", "\"" ID_A "\"",
	    "\"u1\"", LAST_1, "server 0, task 0: \"id\" is not 32 lowercase "
	    "hex digits");
	task_refused("\"0011223344556677889aabbccddeeff\"", "\"" ID_A "\"",
	    "\"u1\"", LAST_1, "server 0, task 0: \"id\"");
	task_refused("\"00112233445566778899aabbccddeeff0\"", "\"" ID_A "\"",
	    "\"u1\"", LAST_1, "server 0, task 0: \"id\"");
	task_refused("\"0011223344556677-899aabbccddeeff\"", "\"" ID_A "\"",
	    "\"u1\"", LAST_1, "server 0, task 0: \"id\"");
	task_refused("7", "\"" ID_A "\"", "\"u1\"", LAST_1,
	    "server 0, task 0: \"id\" is not a string");
	principal_refused("\"0123456789abcdeg0123456789abcdef\"", "1",
	    "\"" ID_A "\"", "principal 0: \"sid\" is not 32 lowercase hex");
	principal_refused("\"\"", "1", "\"" ID_A "\"", "principal 0: \"sid\"");
	with_refused("[]", "[{\"uid\":1,\"id\":\"" ID_A "\"}]",
	    "principal 0: no \"sid\"");

	/* Principals' ids: decimal strings from 2^62 to 2^64 - 1. */
	principal_refused("\"" SID_A "\"", "1", "\"4611686018427387903\"",
	    "principal 0: \"id\" is not a principal's id");
	principal_refused("\"" SID_A "\"", "1", "\"18446744073709551616\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\"99999999999999999999999\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "4611686018427387909",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\"+4611686018427387909\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\" 4611686018427387909\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\"04611686018427387909\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\"4611686018427387909x\"",
	    "principal 0: \"id\"");
	principal_refused("\"" SID_A "\"", "1", "\"\"", "principal 0: \"id\"");
	task_refused("\"" TASK_1 "\"", "\"1\"", "\"u1\"", LAST_1,
	    "server 0, task 0: \"principal\" is not a principal's id");
	with_accepted("[]", "[{\"sid\":\"" SID_A "\",\"uid\":1,"
	    "\"id\":\"4611686018427387904\"}]");

	/* A uid, not (uid_t)-1. */
	principal_refused("\"" SID_A "\"", "4294967295", "\"" ID_A "\"",
	    "principal 0: \"uid\"");
	principal_refused("\"" SID_A "\"", "-1", "\"" ID_A "\"",
	    "principal 0: \"uid\"");
	with_accepted("[]", "[{\"sid\":\"" SID_A "\",\"uid\":4294967294,"
	    "\"id\":\"" ID_A "\"}]");

	/* Each principal once, by secret and by id. */
	with_refused("[]", "[" P_A "," P_B ",{\"sid\":\"" SID_A "\",\"uid\":1,"
	    "\"id\":\"4611686018427387904\"}]",
	    "principal 2: a second principal of that \"sid\"");
	with_refused("[]", "[" P_B "," P_A ",{\"sid\":"
	    "\"00000000000000000000000000000000\",\"uid\":1,"
	    "\"id\":\"" ID_B "\"}]",
	    "principal 2: a second principal of that \"id\"");

	/* A task's principal is one listed, wherever the list comes. */
	with_refused("[" T_1 "]", "[" P_B "]", "server 0, task 0: "
	    "\"principal\" is not one of the principals listed");
	with_refused("[" T_1 "]", "[]", "\"principal\" is not one of");
	refused(STATE_HEAD "\"servers\":[{\"name\":\"a\",\"state\":\"x\","
	    "\"tasks\":[" T_1 "]}]}", "server 0, task 0: \"principal\"");

	/* The server's id: 1 to 256 bytes, once in its server. */
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"\"", LAST_1,
	    "server 0, task 0: \"up_id\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "3", LAST_1,
	    "server 0, task 0: \"up_id\" is not a string");
	up = xmalloc(256 + 3);
	up[0] = '"';
	memset(up + 1, 'u', 256);
	strcpy(up + 257, "\"");
	tasks = task("\"" TASK_1 "\"", "\"" ID_A "\"", up, LAST_1);
	with_accepted(tasks, "[" P_A "]");
	free(tasks);
	up = xrealloc(up, 257 + 3);
	memset(up + 1, 'u', 257);
	strcpy(up + 258, "\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", up, LAST_1,
	    "server 0, task 0: \"up_id\"");
	free(up);
	with_refused("[" T_1 ",{\"id\":\"" TASK_2 "\",\"principal\":\"" ID_A
	    "\",\"up_id\":\"u1\",\"last\":\"{\\\"taskId\\\":\\\"" TASK_2
	    "\\\"}\"}]", "[" P_A "]",
	    "server 0, task 1: a second task of that \"up_id\"");

	/* Who runs it: the server (no "runs") or a client; keys apart. */
	with_accepted("[" T_1 ",{\"id\":\"" TASK_2 "\",\"principal\":\"" ID_A
	    "\",\"up_id\":\"u1\",\"runs\":\"client\",\"last\":"
	    "\"{\\\"taskId\\\":\\\"" TASK_2 "\\\"}\"}]", "[" P_A "]");
	with_refused("[{\"id\":\"" TASK_1 "\",\"principal\":\"" ID_A "\","
	    "\"up_id\":\"u1\",\"runs\":\"server\",\"last\":" LAST_1 "}]",
	    "[" P_A "]", "server 0, task 0: \"runs\" is not \"client\"");

	/* mcpd's id once in the whole state: groups route by it. */
	refused(STATE_HEAD "\"servers\":[{\"name\":\"a\",\"state\":\"x\","
	    "\"tasks\":[" T_1 "]},{\"name\":\"b\",\"state\":\"x\","
	    "\"tasks\":[" T_1 "]}],\"principals\":[" P_A "]}",
	    "server 1, task 0: a second task of that \"id\"");

	/* The Task object: an object whose "taskId" is mcpd's id. */
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"", "\"[1]\"",
	    "server 0, task 0: \"last\" is not a Task object");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"", "\"{\"",
	    "server 0, task 0: \"last\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"taskId\\\":\\\"" TASK_1 "\\\"} x\"", "\"last\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "{\"taskId\":\"" TASK_1 "\"}", "\"last\" is not a string");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"taskId\\\":\\\"" TASK_2 "\\\"}\"",
	    "server 0, task 0: \"last\" is not a Task object whose one "
	    "\"taskId\" is the task's \"id\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"status\\\":\\\"working\\\"}\"", "\"last\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"taskId\\\":1}\"", "\"last\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"taskId\\\":\\\"" TASK_1 "\\\",\\\"taskId\\\":\\\""
	    TASK_2 "\\\"}\"", "\"last\"");
	task_refused("\"" TASK_1 "\"", "\"" ID_A "\"", "\"u1\"",
	    "\"{\\\"taskId\\\":\\\"" TASK_1 "\\\",\\\"taskId\\\":\\\""
	    TASK_1 "\\\"}\"", "\"last\"");
	with_refused("[{\"id\":\"" TASK_1 "\",\"principal\":\"" ID_A "\","
	    "\"up_id\":\"u1\"}]", "[" P_A "]", "server 0, task 0: no \"last\"");

	/* The members' own types. */
	with_refused("{}", "[" P_A "]", "server 0: \"tasks\" is not an array");
	with_refused("[7]", "[" P_A "]", "server 0, task 0: not an object");
	with_refused("[]", "{}", "the state: \"principals\" is not an array");
	with_refused("[]", "[\"p\"]", "principal 0: not an object");
}
END_TEST

/* Counts at their bounds are read; one more is refused. */
START_TEST(test_handover_too_many)
{
	struct handover	 h;
	char		*text, *cause = NULL, *p;
	size_t		 i, size;

	/* HANDOVER_MAX_TASKS tasks, each its own ids: read. */
	size = HANDOVER_MAX_TASKS * 200 + 4096;
	text = xmalloc(size);
	p = text + snprintf(text, size, STATE_HEAD "\"servers\":[{\"name\":"
	    "\"a\",\"state\":\"x\",\"tasks\":[");
	for (i = 0; i < HANDOVER_MAX_TASKS; i++) {
		p += snprintf(p, size - (p - text), "%s{\"id\":\"%032zx\","
		    "\"principal\":\"" ID_A "\",\"up_id\":\"%zu\",\"last\":"
		    "\"{\\\"taskId\\\":\\\"%032zx\\\"}\"}", i == 0 ? "" : ",",
		    i, i, i);
	}
	snprintf(p, size - (p - text), "]}],\"principals\":[" P_A "]}");
	ck_assert_msg(handover_parse(text, strlen(text), &h, &cause) == 0,
	    "%s", cause);
	ck_assert_uint_eq(h.servers[0].ntasks, HANDOVER_MAX_TASKS);
	handover_free(&h);
	free(text);

	/* One more: refused by count, before any is read. */
	size = (HANDOVER_MAX_TASKS + 1) * 2 + 4096;
	text = xmalloc(size);
	p = text + snprintf(text, size, STATE_HEAD "\"servers\":[{\"name\":"
	    "\"a\",\"state\":\"x\",\"tasks\":[");
	for (i = 0; i < HANDOVER_MAX_TASKS + 1; i++)
		p += snprintf(p, size - (p - text), "%s0", i == 0 ? "" : ",");
	snprintf(p, size - (p - text), "]}]}");
	refused(text, "server 0: \"tasks\" is not an array of at most 65536");
	free(text);

	size = (HANDOVER_MAX_PRINCIPALS + 1) * 2 + 4096;
	text = xmalloc(size);
	p = text + snprintf(text, size, STATE_HEAD "\"servers\":[],"
	    "\"principals\":[");
	for (i = 0; i < HANDOVER_MAX_PRINCIPALS + 1; i++)
		p += snprintf(p, size - (p - text), "%s0", i == 0 ? "" : ",");
	snprintf(p, size - (p - text), "]}");
	refused(text, "the state: \"principals\" is not an array of at most "
	    "1048576");
	free(text);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("handover");
	tc = tcase_create("handover");
	tcase_add_test(tc, test_handover_round_trip);
	tcase_add_test(tc, test_handover_without_tasks);
	tcase_add_test(tc, test_handover_refused);
	tcase_add_test(tc, test_handover_tasks_refused);
	tcase_add_test(tc, test_handover_too_many);
	suite_add_tcase(s, tc);
	return (s);
}
