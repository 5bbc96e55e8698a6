/*
 * mcpctl.c -- control mcpd: a table of commands, each a small function
 * that sends one mcpd/ request over the socket and prints the answer as a
 * table for people or as JSON (--json) for scripts.
 *
 * Text that came from mcpd (server names, states, exit reasons, stderr
 * lines, error messages) is printed through esc_text, so a server cannot
 * move the cursor or fake a line on the terminal; --json output is JSON
 * escaping only, with integers printed as integers.
 *
 * Exit codes: 0 ok, 1 the operation failed, 2 usage, 3 daemon unreachable.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "connect.h"
#include "clock.h"
#include "esc.h"
#include "paths.h"
#include "proto.h"
#include "rpc.h"
#include "session.h"
#include "xmalloc.h"

#define CTL_EXIT_OK		0
#define CTL_EXIT_FAILED		1
#define CTL_EXIT_USAGE		2
#define CTL_EXIT_UNREACHABLE	3

#define CTL_REPLY_TIMEOUT_MS	10000
#define CTL_REFUSAL_WAIT_MS	1000	/* for mcpd's reason, after EPIPE */
#define CTL_SETTLE_TIMEOUT_MS	60000
#define CTL_SETTLE_POLL_MS	50
#define CTL_MAX_REPLY_BYTES	(64 * 1024 * 1024)
#define CTL_LOG_LINES_DEFAULT	50
#define CTL_ESC_SLOTS		8
#define CTL_JSON_INT_MAX	9007199254740992.0	/* 2^53 */

struct ctl {
	const char	*socket_path;
	int		 json;
	int		 no_block;
	int		 color;
	int		 fd;
	char		*buf;
	size_t		 len;
	size_t		 size;
	int64_t		 next_id;
	cJSON		*last_error_data;	/* error.data of the last call */
	long		 lines;			/* logs -n */
	int		 follow;		/* logs -f */
};

struct ctl_command {
	const char	*name;
	const char	*args;
	const char	*help;
	int		 min_args;
	int		 max_args;	/* -1: any */
	int		 needs_daemon;
	int		(*fn)(struct ctl *, int, char **);
};

static int	ctl_status(struct ctl *, int, char **);
static int	ctl_start(struct ctl *, int, char **);
static int	ctl_stop(struct ctl *, int, char **);
static int	ctl_restart(struct ctl *, int, char **);
static int	ctl_connect_cmd(struct ctl *, int, char **);
static int	ctl_tools(struct ctl *, int, char **);
static int	ctl_call_cmd(struct ctl *, int, char **);
static int	ctl_ping(struct ctl *, int, char **);
static int	ctl_logs(struct ctl *, int, char **);
static int	ctl_metrics(struct ctl *, int, char **);
static int	ctl_reload(struct ctl *, int, char **);
static int	ctl_check_config(struct ctl *, int, char **);
static int	ctl_version(struct ctl *, int, char **);
static int	ctl_help(struct ctl *, int, char **);

static const struct ctl_command ctl_commands[] = {
	{ "status", "[NAME...]", "show the state of servers", 0, -1, 1,
	  ctl_status },
	{ "start", "NAME...", "start servers (and wait for them)", 1, -1, 1,
	  ctl_start },
	{ "stop", "NAME...", "stop servers (and wait for them)", 1, -1, 1,
	  ctl_stop },
	{ "restart", "NAME...", "restart servers (and wait for them)", 1, -1,
	  1, ctl_restart },
	{ "reload", "", "re-read the configuration file", 0, 0, 1,
	  ctl_reload },
	{ "logs", "NAME [-n N] [-f]", "show (and follow) a server's stderr", 1,
	  1, 1, ctl_logs },
	{ "metrics", "", "print metrics in Prometheus text format", 0, 0, 1,
	  ctl_metrics },
	{ "connect", "NAME", "bridge stdio to a server (for MCP clients)", 1,
	  1, 0, ctl_connect_cmd },
	{ "tools", "NAME", "list a server's tools", 1, 1, 0, ctl_tools },
	{ "call", "NAME TOOL [JSON | key=value...]", "call a tool", 2, -1, 0,
	  ctl_call_cmd },
	{ "ping", "NAME", "ping a server through mcpd", 1, 1, 0, ctl_ping },
	{ "check-config", "[FILE]", "validate a configuration file", 0, 1, 0,
	  ctl_check_config },
	{ "version", "", "print mcpctl's and mcpd's versions", 0, 0, 0,
	  ctl_version },
	{ "help", "", "list commands", 0, 0, 0, ctl_help },
};
#define CTL_NCOMMANDS	(sizeof ctl_commands / sizeof ctl_commands[0])

/* Messages quote mcpd's errors and server names: escaped, one line each. */
static void __attribute__((format(printf, 1, 2)))
ctl_warnx(const char *fmt, ...)
{
	va_list	 ap;
	char	*raw, *text;

	va_start(ap, fmt);
	xvasprintf(&raw, fmt, ap);
	va_end(ap);
	text = esc_text(raw, strlen(raw), ESC_KEEP_TAB);
	fprintf(stderr, "mcpctl: %s\n", text);
	free(text);
	free(raw);
}

/*
 * s made printable for one cell or field of human output (NULL stays
 * NULL); valid until CTL_ESC_SLOTS more calls.
 */
static const char *
ctl_esc(const char *s)
{
	static char	*slots[CTL_ESC_SLOTS];
	static size_t	 next;
	char		**slot = &slots[next++ % CTL_ESC_SLOTS];

	free(*slot);
	*slot = s != NULL ? esc_text(s, strlen(s), 0) : NULL;
	return (*slot);
}

static void
ctl_usage(FILE *f)
{
	size_t	 i;

	fprintf(f, "usage: mcpctl [-s|--socket PATH] [--json] [--no-block] "
	    "COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < CTL_NCOMMANDS; i++)
		fprintf(f, "  %-13s %-33s %s\n", ctl_commands[i].name,
		    ctl_commands[i].args, ctl_commands[i].help);
	fprintf(f, "\nThe socket defaults to $%s or mcpd's default "
	    "(see mcpctl(1)).\n", PATHS_SOCKET_ENV);
}

/*
 * Connection.
 */

static int
ctl_connect(struct ctl *ctl, int quiet)
{
	return (connect_socket(ctl->socket_path, quiet, &ctl->fd));
}

/*
 * Read one line (without '\n') into a malloc'd string; NULL on EOF/error,
 * said on stderr unless quiet.
 */
static char *
ctl_read_line(struct ctl *ctl, int timeout_ms, int quiet)
{
	char		*nl, *line;
	size_t		 linelen;
	ssize_t		 n;
	struct pollfd	 pfd;
	uint64_t	 deadline = clock_now_ms() + (uint64_t)timeout_ms;
	int		 left;

	for (;;) {
		if (ctl->len > 0 &&
		    (nl = memchr(ctl->buf, '\n', ctl->len)) != NULL) {
			linelen = (size_t)(nl - ctl->buf);
			line = xstrndup(ctl->buf, linelen);
			memmove(ctl->buf, nl + 1, ctl->len - linelen - 1);
			ctl->len -= linelen + 1;
			return (line);
		}
		if (ctl->len > CTL_MAX_REPLY_BYTES) {
			ctl_warnx("reply from mcpd is too long");
			return (NULL);
		}
		if (ctl->size - ctl->len < 65536) {
			ctl->size = ctl->size * 2 + 65536;
			ctl->buf = xrealloc(ctl->buf, ctl->size);
		}
		left = timeout_ms < 0 ? -1 : (int)(deadline - clock_now_ms());
		pfd.fd = ctl->fd;
		pfd.events = POLLIN;
		if ((timeout_ms >= 0 && left <= 0) || poll(&pfd, 1, left) == 0) {
			if (!quiet)
				ctl_warnx("no reply from mcpd at %s within %d "
				    "ms", ctl->socket_path, timeout_ms);
			return (NULL);
		}
		n = read(ctl->fd, ctl->buf + ctl->len, ctl->size - ctl->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!quiet)
				ctl_warnx("mcpd closed the connection%s%s",
				    n < 0 ? ": " : "",
				    n < 0 ? strerror(errno) : "");
			return (NULL);
		}
		ctl->len += (size_t)n;
	}
}

/*
 * Send a request and wait for its response.  Returns the result (caller
 * frees) or NULL after printing the error; *status says which exit code.
 */
static cJSON *
ctl_call(struct ctl *ctl, const char *method, cJSON *params, int *status)
{
	cJSON		*id, *msg, *reply, *result, *error, *message, *rid;
	char		*text, *line;
	int		 send_errno = 0;

	id = cJSON_CreateNumber((double)++ctl->next_id);
	msg = rpc_make_request(id, method, params);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (connect_write_all(ctl->fd, text, strlen(text)) != 0 ||
	    connect_write_all(ctl->fd, "\n", 1) != 0)
		send_errno = errno;
	free(text);

	for (;;) {
		/* A refused connection has mcpd's reason waiting: read it. */
		line = ctl_read_line(ctl, send_errno != 0 ?
		    CTL_REFUSAL_WAIT_MS : CTL_REPLY_TIMEOUT_MS,
		    send_errno != 0);
		if (line == NULL) {
			if (send_errno != 0)
				ctl_warnx("cannot send to mcpd at %s: %s",
				    ctl->socket_path, strerror(send_errno));
			cJSON_Delete(id);
			*status = CTL_EXIT_UNREACHABLE;
			return (NULL);
		}
		reply = cJSON_Parse(line);
		free(line);
		rid = cJSON_GetObjectItemCaseSensitive(reply, "id");
		if (rpc_classify(reply) == RPC_KIND_RESPONSE &&
		    (cJSON_Compare(rid, id, 1) || cJSON_IsNull(rid)))
			break;		/* ours, or mcpd refusing the connection */
		cJSON_Delete(reply);		/* not ours */
	}
	cJSON_Delete(id);

	if ((error = cJSON_GetObjectItemCaseSensitive(reply, "error")) !=
	    NULL) {
		message = cJSON_GetObjectItemCaseSensitive(error, "message");
		ctl_warnx("%s", cJSON_IsString(message) ?
		    message->valuestring : "mcpd returned an error");
		if (ctl->last_error_data != NULL)
			cJSON_Delete(ctl->last_error_data);
		ctl->last_error_data = cJSON_DetachItemFromObjectCaseSensitive(
		    error, "data");
		cJSON_Delete(reply);
		*status = CTL_EXIT_FAILED;
		return (NULL);
	}
	result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
	cJSON_Delete(reply);
	*status = CTL_EXIT_OK;
	return (result);
}

static cJSON *
ctl_names_params(int argc, char **argv)
{
	cJSON	*params, *names;
	int	 i;

	params = cJSON_CreateObject();
	names = cJSON_AddArrayToObject(params, "servers");
	for (i = 0; i < argc; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(argv[i]));
	return (params);
}

/*
 * cJSON prints a number that %.15g gives back exactly in that form, so a
 * time in microseconds would come out as 1.79566115576201e+15: print
 * integers as integers.
 */
static void
ctl_json_integers(cJSON *o)
{
	cJSON	*item, *next, *raw;
	char	 text[32];
	double	 d;

	for (item = o != NULL ? o->child : NULL; item != NULL; item = next) {
		next = item->next;
		if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
			ctl_json_integers(item);
			continue;
		}
		if (!cJSON_IsNumber(item))
			continue;
		d = item->valuedouble;
		if (d <= -CTL_JSON_INT_MAX || d >= CTL_JSON_INT_MAX ||
		    d != (double)(int64_t)d)
			continue;
		snprintf(text, sizeof text, "%" PRId64, (int64_t)d);
		raw = cJSON_CreateRaw(text);
		raw->string = item->string;	/* the key moves along */
		raw->type |= item->type & cJSON_StringIsConst;
		item->string = NULL;
		cJSON_ReplaceItemViaPointer(o, item, raw);
	}
}

static void
ctl_print_json(cJSON *o)
{
	char	*text;

	ctl_json_integers(o);
	text = cJSON_Print(o);
	printf("%s\n", text);
	free(text);
}

/* One object per line, for streams (logs -f --json). */
static void
ctl_print_json_line(cJSON *o)
{
	char	*text;

	ctl_json_integers(o);
	text = cJSON_PrintUnformatted(o);
	printf("%s\n", text);
	free(text);
}

/*
 * Human output.
 */

static const char *
ctl_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

static double
ctl_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsNumber(v) ? v->valuedouble : dflt);
}

static void
ctl_format_duration(char *buf, size_t size, double ms)
{
	unsigned long long	 s;

	if (ms < 0) {
		snprintf(buf, size, "-");
		return;
	}
	s = (unsigned long long)(ms / 1000);
	if (s < 60)
		snprintf(buf, size, "%llus", s);
	else if (s < 3600)
		snprintf(buf, size, "%llum%02llus", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, size, "%lluh%02llum", s / 3600, (s / 60) % 60);
	else
		snprintf(buf, size, "%llud%02lluh", s / 86400,
		    (s / 3600) % 24);
}

static const char *
ctl_state_color(const struct ctl *ctl, const char *state)
{
	if (!ctl->color || state == NULL)
		return ("");
	if (strcmp(state, "ready") == 0)
		return ("\033[32m");
	if (strcmp(state, "failed") == 0)
		return ("\033[1;31m");
	if (strcmp(state, "backoff") == 0)
		return ("\033[33m");
	if (strcmp(state, "stopped") == 0)
		return ("\033[2m");
	return ("\033[36m");
}

static void
ctl_print_table(const struct ctl *ctl, const cJSON *servers)
{
	const cJSON	*s;
	const char	*state, *last;
	char		 pid[24], uptime[24], detail[64];
	int		 namew = 4;
	size_t		 len;

	cJSON_ArrayForEach(s, servers) {
		len = strlen(ctl_str(s, "name") ? ctl_esc(ctl_str(s, "name")) :
		    "");
		if ((int)len > namew)
			namew = (int)len;
	}
	printf("%-*s  %-12s  %7s  %7s  %8s  %7s  %8s  %s\n", namew, "NAME",
	    "STATE", "PID", "UPTIME", "RESTARTS", "CLIENTS", "INFLIGHT",
	    "LAST EXIT");
	cJSON_ArrayForEach(s, servers) {
		state = ctl_str(s, "state");
		if (ctl_num(s, "pid", -1) > 0)
			snprintf(pid, sizeof pid, "%.0f", ctl_num(s, "pid", 0));
		else
			snprintf(pid, sizeof pid, "-");
		ctl_format_duration(uptime, sizeof uptime,
		    ctl_num(s, "uptime_ms", -1));
		last = ctl_str(s, "last_exit");
		detail[0] = '\0';
		if (state != NULL && strcmp(state, "backoff") == 0)
			snprintf(detail, sizeof detail, " (next try in %.1fs)",
			    ctl_num(s, "next_restart_ms", 0) / 1000.0);
		printf("%-*s  %s%-12s%s  %7s  %7s  %8.0f  %7.0f  %8.0f  %s%s\n",
		    namew, ctl_esc(ctl_str(s, "name")),
		    ctl_state_color(ctl, state),
		    state != NULL ? ctl_esc(state) : "?",
		    ctl->color ? "\033[0m" : "", pid, uptime,
		    ctl_num(s, "restarts", 0), ctl_num(s, "clients", 0),
		    ctl_num(s, "inflight", 0),
		    last != NULL ? ctl_esc(last) : "-", detail);
	}
}

/*
 * Commands.
 */

static int
ctl_status(struct ctl *ctl, int argc, char **argv)
{
	cJSON	*result;
	int	 status;

	result = ctl_call(ctl, MCPD_METHOD_STATUS, ctl_names_params(argc,
	    argv), &status);
	if (result == NULL)
		return (status);
	if (ctl->json)
		ctl_print_json(result);
	else
		ctl_print_table(ctl, cJSON_GetObjectItemCaseSensitive(result,
		    "servers"));
	cJSON_Delete(result);
	return (CTL_EXIT_OK);
}

enum ctl_goal {
	CTL_GOAL_RUNNING,
	CTL_GOAL_STOPPED,
};

/* Has this server reached a state where the action is decided? */
static int
ctl_settled(const cJSON *s, enum ctl_goal goal, double old_pid)
{
	const char	*state = ctl_str(s, "state");

	if (state == NULL)
		return (1);
	if (goal == CTL_GOAL_STOPPED)
		return (strcmp(state, "stopped") == 0 ||
		    strcmp(state, "failed") == 0);
	if (strcmp(state, "ready") == 0)
		return (ctl_num(s, "pid", -1) != old_pid);
	return (strcmp(state, "backoff") == 0 ||
	    strcmp(state, "failed") == 0 || strcmp(state, "stopped") == 0);
}

static int
ctl_act(struct ctl *ctl, const char *method, enum ctl_goal goal, int argc,
    char **argv)
{
	cJSON		*result, *servers, *s;
	double		*old_pids;
	int		 status, i, all_settled, rc = CTL_EXIT_OK;
	uint64_t	 deadline;
	const char	*state, *last;

	/* Remember pids first so a restart is seen to have happened. */
	result = ctl_call(ctl, MCPD_METHOD_STATUS, ctl_names_params(argc,
	    argv), &status);
	if (result == NULL)
		return (status);
	old_pids = xcalloc((size_t)argc, sizeof *old_pids);
	servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
	for (i = 0; i < argc; i++) {
		s = cJSON_GetArrayItem(servers, i);
		old_pids[i] = strcmp(method, MCPD_METHOD_RESTART) == 0 ?
		    ctl_num(s, "pid", -1) : -2;
	}
	cJSON_Delete(result);

	result = ctl_call(ctl, method, ctl_names_params(argc, argv), &status);
	deadline = clock_now_ms() + CTL_SETTLE_TIMEOUT_MS;
	while (result != NULL && !ctl->no_block) {
		servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
		all_settled = 1;
		for (i = 0; i < argc; i++) {
			s = cJSON_GetArrayItem(servers, i);
			if (!ctl_settled(s, goal, old_pids[i]))
				all_settled = 0;
		}
		if (all_settled)
			break;
		if (clock_now_ms() > deadline) {
			ctl_warnx("timed out waiting for %s to finish",
			    method + strlen(MCPD_METHOD_PREFIX));
			rc = CTL_EXIT_FAILED;
			break;
		}
		usleep(CTL_SETTLE_POLL_MS * 1000);
		cJSON_Delete(result);
		result = ctl_call(ctl, MCPD_METHOD_STATUS,
		    ctl_names_params(argc, argv), &status);
	}
	free(old_pids);
	if (result == NULL)
		return (status);

	servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
	if (ctl->json) {
		cJSON_DeleteItemFromObjectCaseSensitive(result, "daemon");
		ctl_print_json(result);
	}
	cJSON_ArrayForEach(s, servers) {
		state = ctl_str(s, "state");
		last = ctl_str(s, "last_exit");
		if (goal == CTL_GOAL_RUNNING && !ctl->no_block && state != NULL &&
		    strcmp(state, "ready") != 0) {
			ctl_warnx("%s: %s%s%s", ctl_str(s, "name"), state,
			    last != NULL ? ": " : "", last != NULL ? last : "");
			rc = CTL_EXIT_FAILED;
		} else if (!ctl->json)
			printf("%s: %s\n", ctl_esc(ctl_str(s, "name")),
			    state != NULL ? ctl_esc(state) : "?");
	}
	cJSON_Delete(result);
	return (rc);
}

static int
ctl_start(struct ctl *ctl, int argc, char **argv)
{
	return (ctl_act(ctl, MCPD_METHOD_START, CTL_GOAL_RUNNING, argc, argv));
}

static int
ctl_stop(struct ctl *ctl, int argc, char **argv)
{
	return (ctl_act(ctl, MCPD_METHOD_STOP, CTL_GOAL_STOPPED, argc, argv));
}

static int
ctl_restart(struct ctl *ctl, int argc, char **argv)
{
	return (ctl_act(ctl, MCPD_METHOD_RESTART, CTL_GOAL_RUNNING, argc,
	    argv));
}

static void
ctl_print_names(const char *label, const cJSON *names)
{
	const cJSON	*n;
	const char	*sep = "";

	if (cJSON_GetArraySize(names) == 0)
		return;
	printf("%s: ", label);
	cJSON_ArrayForEach(n, names) {
		printf("%s%s", sep, cJSON_IsString(n) ?
		    ctl_esc(n->valuestring) : "?");
		sep = ", ";
	}
	printf("\n");
}

static int
ctl_reload(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result;
	const cJSON	*e;
	int		 status;

	result = ctl_call(ctl, MCPD_METHOD_RELOAD, NULL, &status);
	if (result == NULL) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(
		    ctl->last_error_data, "errors"))
			ctl_warnx("%s", cJSON_IsString(e) ? e->valuestring :
			    "?");
		if (ctl->json && ctl->last_error_data != NULL)
			ctl_print_json(ctl->last_error_data);
		return (status);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result,
	    "warnings"))
		ctl_warnx("warning: %s", cJSON_IsString(e) ?
		    e->valuestring : "?");
	if (ctl->json)
		ctl_print_json(result);
	else {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result,
		    "changed"))
			printf("changed: %s (%s)\n", ctl_esc(e->valuestring),
			    ctl_str(cJSON_GetObjectItemCaseSensitive(result,
			    "actions"), e->valuestring) != NULL ?
			    ctl_str(cJSON_GetObjectItemCaseSensitive(result,
			    "actions"), e->valuestring) : "restarted");
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result,
		    "added"))
			printf("added: %s (%s)\n", ctl_esc(e->valuestring),
			    ctl_str(cJSON_GetObjectItemCaseSensitive(result,
			    "actions"), e->valuestring) != NULL ?
			    ctl_str(cJSON_GetObjectItemCaseSensitive(result,
			    "actions"), e->valuestring) : "started");
		ctl_print_names("stopped (removed)",
		    cJSON_GetObjectItemCaseSensitive(result, "removed"));
		printf("unchanged: %d server%s\n", cJSON_GetArraySize(
		    cJSON_GetObjectItemCaseSensitive(result, "unchanged")),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result,
		    "unchanged")) == 1 ? "" : "s");
	}
	cJSON_Delete(result);
	return (CTL_EXIT_OK);
}

static void
ctl_print_log_line(const struct ctl *ctl, cJSON *line)
{
	char		 when[32], *shown;
	time_t		 t;
	struct tm	 tm;
	const char	*text = ctl_str(line, "text");

	if (ctl->json) {
		ctl_print_json_line(line);
		return;
	}
	t = (time_t)(ctl_num(line, "time_us", 0) / 1e6);
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%b %d %H:%M:%S", &tm);
	shown = esc_text(text != NULL ? text : "", text != NULL ?
	    strlen(text) : 0, ESC_KEEP_TAB);
	printf("%s %s\n", when, shown);
	free(shown);
}

static int
ctl_logs(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*params, *result, *msg, *p, *line;
	const cJSON	*method;
	char		*text;
	int		 status;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", argv[0]);
	cJSON_AddNumberToObject(params, "lines", (double)ctl->lines);
	cJSON_AddBoolToObject(params, "follow", ctl->follow);
	if ((result = ctl_call(ctl, MCPD_METHOD_LOGS, params, &status)) == NULL)
		return (status);
	cJSON_ArrayForEach(line, cJSON_GetObjectItemCaseSensitive(result,
	    "lines"))
		ctl_print_log_line(ctl, line);
	cJSON_Delete(result);
	if (!ctl->follow)
		return (CTL_EXIT_OK);

	fflush(stdout);
	for (;;) {
		if ((text = ctl_read_line(ctl, -1, 0)) == NULL)
			return (CTL_EXIT_FAILED);
		msg = cJSON_Parse(text);
		free(text);
		method = cJSON_GetObjectItemCaseSensitive(msg, "method");
		p = cJSON_GetObjectItemCaseSensitive(msg, "params");
		if (cJSON_IsString(method) && strcmp(method->valuestring,
		    MCPD_NOTIFY_LOG) == 0 && p != NULL) {
			ctl_print_log_line(ctl, p);
			fflush(stdout);
		}
		cJSON_Delete(msg);
	}
}

static int
ctl_metrics(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result;
	const char	*text;
	int		 status;

	if ((result = ctl_call(ctl, MCPD_METHOD_METRICS, NULL,
	    &status)) == NULL)
		return (status);
	text = ctl_str(result, "text");
	if (ctl->json)
		ctl_print_json(result);
	else
		fputs(text != NULL ? text : "", stdout);
	cJSON_Delete(result);
	return (CTL_EXIT_OK);
}

/* These open their own MCP session through mcpd (connect.c, session.c). */
static int
ctl_connect_cmd(struct ctl *ctl, int argc, char **argv)
{
	return (connect_bridge(ctl->socket_path, argv[0]));
}

static int
ctl_tools(struct ctl *ctl, int argc, char **argv)
{
	return (session_cmd_tools(ctl->socket_path, ctl->json, argv[0]));
}

static int
ctl_call_cmd(struct ctl *ctl, int argc, char **argv)
{
	return (session_cmd_call(ctl->socket_path, ctl->json, argv[0], argv[1],
	    argc - 2, argv + 2));
}

static int
ctl_ping(struct ctl *ctl, int argc, char **argv)
{
	return (session_cmd_ping(ctl->socket_path, ctl->json, argv[0]));
}

static int
ctl_check_config(struct ctl *ctl, int argc, char **argv)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	char			*file;
	cJSON			*out, *list;
	size_t			 i;
	int			 rc;

	file = argc > 0 ? xstrdup(argv[0]) : paths_default_config();
	conf_diags_init(&diags);
	conf = conf_load(file, &diags);
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "file", file);
		cJSON_AddBoolToObject(out, "valid", conf != NULL);
		cJSON_AddNumberToObject(out, "servers",
		    conf != NULL ? (double)conf->nservers : 0);
		list = cJSON_AddArrayToObject(out, "errors");
		for (i = 0; i < diags.n; i++)
			if (diags.v[i].level == CONF_ERROR)
				cJSON_AddItemToArray(list,
				    cJSON_CreateString(diags.v[i].text));
		list = cJSON_AddArrayToObject(out, "warnings");
		for (i = 0; i < diags.n; i++)
			if (diags.v[i].level == CONF_WARNING)
				cJSON_AddItemToArray(list,
				    cJSON_CreateString(diags.v[i].text));
		ctl_print_json(out);
		cJSON_Delete(out);
	} else {
		for (i = 0; i < diags.n; i++)
			ctl_warnx("%s%s", diags.v[i].level == CONF_WARNING ?
			    "warning: " : "", diags.v[i].text);
		if (conf != NULL)
			printf("%s: ok, %zu server%s\n", file, conf->nservers,
			    conf->nservers == 1 ? "" : "s");
		else
			fprintf(stderr, "mcpctl: %s: %zu error%s\n", file,
			    diags.nerrors, diags.nerrors == 1 ? "" : "s");
	}
	rc = conf != NULL ? CTL_EXIT_OK : CTL_EXIT_FAILED;
	conf_free(conf);
	conf_diags_free(&diags);
	free(file);
	return (rc);
}

static int
ctl_version(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result = NULL;
	const char	*v;
	int		 status;

	if (ctl_connect(ctl, 1) == CTL_EXIT_OK)
		result = ctl_call(ctl, MCPD_METHOD_VERSION, NULL, &status);
	v = ctl_str(result, "version");
	if (ctl->json) {
		cJSON *out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "mcpctl", PACKAGE_VERSION);
		if (v != NULL)
			cJSON_AddStringToObject(out, "mcpd", v);
		else
			cJSON_AddNullToObject(out, "mcpd");
		ctl_print_json(out);
		cJSON_Delete(out);
	} else {
		printf("mcpctl %s\n", PACKAGE_VERSION);
		if (v != NULL)
			printf("mcpd %s (pid %.0f, socket %s)\n", v,
			    ctl_num(result, "pid", 0), ctl->socket_path);
	}
	cJSON_Delete(result);
	return (CTL_EXIT_OK);
}

static int
ctl_help(struct ctl *ctl, int argc, char **argv)
{
	ctl_usage(stdout);
	return (CTL_EXIT_OK);
}

/* Options taken before and after the command: 1 if ch was one. */
static int
ctl_common_option(struct ctl *ctl, char **socket_path, int ch)
{
	switch (ch) {
	case 's':
		free(*socket_path);
		*socket_path = xstrdup(optarg);
		return (1);
	case 'j':
		ctl->json = 1;
		return (1);
	case 'b':
		ctl->no_block = 1;
		return (1);
	}
	return (0);
}

static const struct ctl_command *
ctl_find_command(const char *name)
{
	size_t	 i;

	for (i = 0; i < CTL_NCOMMANDS; i++) {
		if (strcmp(ctl_commands[i].name, name) == 0)
			return (&ctl_commands[i]);
	}
	return (NULL);
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket",	required_argument,	NULL, 's' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "no-block",	no_argument,		NULL, 'b' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "lines",	required_argument,	NULL, 'n' },
		{ "follow",	no_argument,		NULL, 'f' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct ctl_command	*cmd;
	struct ctl			 ctl;
	char				*socket_path = NULL, *end;
	int				 ch, rc, nargs;

	memset(&ctl, 0, sizeof ctl);
	ctl.fd = -1;
	ctl.lines = CTL_LOG_LINES_DEFAULT;
	while ((ch = getopt_long(argc, argv, "+s:hV", options, NULL)) != -1) {
		if (ctl_common_option(&ctl, &socket_path, ch))
			continue;
		switch (ch) {
		case 'h':
			ctl_usage(stdout);
			rc = CTL_EXIT_OK;
			goto out;
		case 'V':
			printf("mcpctl %s\n", PACKAGE_VERSION);
			rc = CTL_EXIT_OK;
			goto out;
		default:
			ctl_usage(stderr);
			rc = CTL_EXIT_USAGE;
			goto out;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		ctl_usage(stderr);
		rc = CTL_EXIT_USAGE;
		goto out;
	}
	if ((cmd = ctl_find_command(argv[0])) == NULL) {
		ctl_warnx("unknown command: %s (try `mcpctl help`)", argv[0]);
		rc = CTL_EXIT_USAGE;
		goto out;
	}

	/*
	 * Options may also follow the command (`mcpctl status --json`), but
	 * not tool arguments, which may start with '-'.
	 */
	optind = 0;
	while ((ch = getopt_long(argc, argv, cmd->fn == ctl_call_cmd ?
	    "+s:h" : "s:hn:f", options, NULL)) != -1) {
		if (ctl_common_option(&ctl, &socket_path, ch))
			continue;
		switch (ch) {
		case 'n':
			if (cmd->fn != ctl_logs)
				goto usage;
			errno = 0;
			ctl.lines = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || ctl.lines < 0) {
				ctl_warnx("-n: expected a number of lines, not "
				    "\"%s\"", optarg);
				rc = CTL_EXIT_USAGE;
				goto out;
			}
			break;
		case 'f':
			if (cmd->fn != ctl_logs)
				goto usage;
			ctl.follow = 1;
			break;
		case 'h':
			printf("usage: mcpctl %s %s\n  %s\n", cmd->name,
			    cmd->args, cmd->help);
			rc = CTL_EXIT_OK;
			goto out;
		default:
		usage:
			ctl_warnx("usage: mcpctl %s %s", cmd->name, cmd->args);
			rc = CTL_EXIT_USAGE;
			goto out;
		}
	}
	nargs = argc - optind;
	if (nargs < cmd->min_args || (cmd->max_args >= 0 &&
	    nargs > cmd->max_args)) {
		ctl_warnx("usage: mcpctl %s %s", cmd->name, cmd->args);
		rc = CTL_EXIT_USAGE;
		goto out;
	}

	ctl.socket_path = socket_path != NULL ? socket_path :
	    (socket_path = paths_default_socket());
	ctl.color = isatty(STDOUT_FILENO) && (getenv("NO_COLOR") == NULL ||
	    *getenv("NO_COLOR") == '\0');
	if (cmd->needs_daemon && (rc = ctl_connect(&ctl, 0)) != CTL_EXIT_OK)
		goto out;
	rc = cmd->fn(&ctl, nargs, argv + optind);
out:
	if (ctl.fd != -1)
		close(ctl.fd);
	free(ctl.buf);
	free(socket_path);
	cJSON_Delete(ctl.last_error_data);
	return (rc);
}
