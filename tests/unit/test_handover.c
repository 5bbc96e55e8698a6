/*
 * test_handover.c -- the state one mcpd hands the next across a re-exec:
 * what is printed is parsed back the same, and what is wrong is refused
 * with a reason.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handover.h"
#include "unit.h"

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

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("handover");
	tc = tcase_create("handover");
	tcase_add_test(tc, test_handover_round_trip);
	tcase_add_test(tc, test_handover_refused);
	suite_add_tcase(s, tc);
	return (s);
}
