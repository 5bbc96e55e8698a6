/*
 * admin.c -- the commands that ask mcpd's control plane, and their
 * connection: reload, logs, metrics and version here, the servers'
 * states in admin_servers.c.  Each sends mcpd/ requests over the socket
 * and prints the answer as text for people or as JSON (--json) for
 * scripts.
 *
 * Text that came from mcpd (server names, states, exit reasons, stderr
 * lines, error messages) is printed escaped (out.h), so a server cannot
 * move the cursor or fake a line on the terminal; --json output is JSON
 * escaping only, with integers printed as integers.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "admin_int.h"
#include "clock.h"
#include "connect.h"
#include "ctl.h"
#include "diag.h"
#include "esc.h"
#include "line.h"
#include "out.h"
#include "proto.h"
#include "request.h"
#include "xmalloc.h"

#define ADMIN_REFUSAL_WAIT_MS	1000	/* for mcpd's reason, after EPIPE */
#define ADMIN_MAX_REPLY_BYTES	(64 * 1024 * 1024)

/*
 * The connection.
 */

int
admin_connect(struct ctl *ctl, int quiet)
{
	int	 fd, rc;

	if ((rc = connect_socket(ctl->socket_path, quiet, &fd)) !=
	    DIAG_EXIT_OK)
		return (rc);
	ctl->line = line_new(fd, ADMIN_MAX_REPLY_BYTES, NULL, 0);
	return (DIAG_EXIT_OK);
}

void
admin_close(struct ctl *ctl)
{
	line_free(ctl->line);
	ctl->line = NULL;
	cJSON_Delete(ctl->last_error_data);
	ctl->last_error_data = NULL;
	free(ctl->last_error_message);
	ctl->last_error_message = NULL;
	ctl->last_error_code = 0;
}

/* mcpd did not answer: say why; the exit code for it. */
static int
admin_lost(const struct ctl *ctl, enum request_status status, int error,
    int timeout_ms)
{
	switch (status) {
	case REQUEST_TIMEOUT:
		diag_warnx(NULL, "no reply from mcpd at %s within %d ms",
		    ctl->socket_path, timeout_ms);
		break;
	case REQUEST_CLOSED:
		diag_warnx(NULL, "mcpd closed the connection%s%s",
		    error != 0 ? ": " : "", error != 0 ? strerror(error) : "");
		break;
	case REQUEST_UNSENT:
		diag_warnx(NULL, "cannot send to mcpd at %s: %s",
		    ctl->socket_path, strerror(error));
		break;
	case REQUEST_TOO_LONG:
	case REQUEST_GARBAGE:
		/* As for the attach and a session: an answer came, unusable. */
		diag_warnx(NULL, "reply from mcpd is too long");
		return (DIAG_EXIT_FAILED);
	case REQUEST_POLL_ERROR:
		diag_warnx(NULL, "poll: %s", strerror(error));
		return (DIAG_EXIT_FAILED);
	case REQUEST_REPLY:
		return (DIAG_EXIT_OK);
	}
	return (DIAG_EXIT_UNREACHABLE);
}

cJSON *
admin_call(struct ctl *ctl, const char *method, cJSON *params, int *status)
{
	return (admin_call_wait(ctl, method, params, ADMIN_REPLY_TIMEOUT_MS,
	    status));
}

cJSON *
admin_call_wait(struct ctl *ctl, const char *method, cJSON *params,
    int timeout_ms, int *status)
{
	struct request		 req;
	enum request_status	 st;
	cJSON			*error, *result;
	const char		*message;

	memset(&req, 0, sizeof req);
	req.id = cJSON_CreateNumber((double)++ctl->next_id);
	req.method = method;
	req.params = params;
	req.timeout_ms = timeout_ms;
	req.idle = 1;
	req.null_id = 1;		/* mcpd refusing the connection */
	req.any_oversize = 1;		/* mcpd's control lines are short */
	req.unsent_wait_ms = ADMIN_REFUSAL_WAIT_MS;
	req.on_notification = ctl->on_notification;
	req.arg = ctl->notification_arg;
	st = request_run(ctl->line, &req);
	cJSON_Delete((cJSON *)req.id);
	if ((*status = admin_lost(ctl, st, req.error, timeout_ms)) !=
	    DIAG_EXIT_OK)
		return (NULL);

	if ((error = cJSON_GetObjectItemCaseSensitive(req.reply, "error")) !=
	    NULL) {
		message = out_str(error, "message");
		if (!ctl->quiet_errors)
			diag_warnx(NULL, "%s", message != NULL ? message :
			    "mcpd returned an error");
		cJSON_Delete(ctl->last_error_data);
		ctl->last_error_data = cJSON_DetachItemFromObjectCaseSensitive(
		    error, "data");
		free(ctl->last_error_message);
		ctl->last_error_message = message != NULL ? xstrdup(message) :
		    NULL;
		ctl->last_error_code = (int)out_num(error, "code", 0);
		cJSON_Delete(req.reply);
		*status = DIAG_EXIT_FAILED;
		return (NULL);
	}
	result = cJSON_DetachItemFromObjectCaseSensitive(req.reply, "result");
	cJSON_Delete(req.reply);
	*status = DIAG_EXIT_OK;
	return (result);
}

void
admin_print_json(cJSON *o, int one_line)
{
	out_json_integers(o);
	out_json(stdout, o, one_line);
}

/*
 * Names.
 */

/* The entry named name in an array of objects with a "name", or NULL. */
const cJSON *
admin_find_named(const cJSON *list, const char *name)
{
	const cJSON	*e;
	const char	*n;

	cJSON_ArrayForEach(e, list) {
		if ((n = out_str(e, "name")) != NULL && strcmp(n, name) == 0)
			return (e);
	}
	return (NULL);
}

static void
admin_names_add(struct admin_names *names, const char *name)
{
	int	 i;

	for (i = 0; i < names->n; i++) {
		if (strcmp(names->v[i], name) == 0)
			return;
	}
	names->v = xreallocarray(names->v, (size_t)names->n + 2,
	    sizeof *names->v);
	names->v[names->n++] = xstrdup(name);
	names->v[names->n] = NULL;
}

int
admin_names(struct ctl *ctl, int argc, char **argv,
    struct admin_names *names)
{
	cJSON		*status;
	const cJSON	*servers, *group, *m;
	const char	*name;
	int		 i, rc;

	memset(names, 0, sizeof *names);
	names->v = xcalloc(1, sizeof *names->v);
	if (argc == 0)
		return (DIAG_EXIT_OK);
	if ((status = admin_call(ctl, MCPD_METHOD_STATUS, NULL, &rc)) == NULL)
		return (rc);
	servers = cJSON_GetObjectItemCaseSensitive(status, "servers");
	for (i = 0; i < argc; i++) {
		/* A server's name wins over a group's. */
		if (admin_find_named(servers, argv[i]) != NULL ||
		    (group = admin_find_named(cJSON_GetObjectItemCaseSensitive(
		    status, "groups"), argv[i])) == NULL) {
			admin_names_add(names, argv[i]);
			continue;
		}
		names->groups++;
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(group,
		    "servers")) {
			if ((name = out_str(m, "name")) != NULL)
				admin_names_add(names, name);
		}
	}
	cJSON_Delete(status);
	if (names->n == 0) {
		diag_warnx(NULL, "no server to act on: the groups named have "
		    "none");
		return (DIAG_EXIT_FAILED);
	}
	return (DIAG_EXIT_OK);
}

void
admin_names_free(struct admin_names *names)
{
	int	 i;

	for (i = 0; i < names->n; i++)
		free(names->v[i]);
	free(names->v);
	memset(names, 0, sizeof *names);
}

/*
 * Commands.
 */

static void
admin_print_names(const char *label, const cJSON *names)
{
	const cJSON	*n;
	const char	*sep = "";

	if (cJSON_GetArraySize(names) == 0)
		return;
	printf("%s: ", label);
	cJSON_ArrayForEach(n, names) {
		printf("%s%s", sep, cJSON_IsString(n) ?
		    out_esc(n->valuestring) : "?");
		sep = ", ";
	}
	printf("\n");
}

/* "KEY: NAME (ACTION)" for each server reload lists under key. */
static void
admin_print_actions(const cJSON *result, const char *key, const char *dflt)
{
	const cJSON	*e, *actions;
	const char	*action;

	actions = cJSON_GetObjectItemCaseSensitive(result, "actions");
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result, key)) {
		action = out_str(actions, e->valuestring);
		printf("%s: %s (%s)\n", key, out_esc(e->valuestring),
		    action != NULL ? action : dflt);
	}
}

int
admin_reload(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result;
	const cJSON	*e;
	char		*label;
	int		 status;

	result = admin_call(ctl, MCPD_METHOD_RELOAD, NULL, &status);
	if (result == NULL) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(
		    ctl->last_error_data, "errors"))
			diag_warnx(NULL, "%s", cJSON_IsString(e) ?
			    e->valuestring : "?");
		if (ctl->json && ctl->last_error_data != NULL)
			admin_print_json(ctl->last_error_data, 0);
		return (status);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result,
	    "warnings"))
		diag_warnx(NULL, "warning: %s", cJSON_IsString(e) ?
		    e->valuestring : "?");
	if (ctl->json)
		admin_print_json(result, 0);
	else {
		admin_print_actions(result, "changed", "restarted");
		admin_print_actions(result, "added", "started");
		admin_print_names("stopped (removed)",
		    cJSON_GetObjectItemCaseSensitive(result, "removed"));
		/* "filters changed on NAME: tools, prompts" (no restart). */
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(result,
		    "filters")) {
			xasprintf(&label, "filters changed on %s",
			    out_esc(e->string));
			admin_print_names(label, e);
			free(label);
		}
		printf("unchanged: %d server%s\n", cJSON_GetArraySize(
		    cJSON_GetObjectItemCaseSensitive(result, "unchanged")),
		    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result,
		    "unchanged")) == 1 ? "" : "s");
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}

/* A line of a server's stderr; named: after the server's name. */
static void
admin_print_log_line(const struct ctl *ctl, cJSON *line, int named)
{
	char		 when[32], *shown;
	time_t		 t;
	struct tm	 tm;
	const char	*text = out_str(line, "text");
	const char	*server = out_str(line, "server");

	if (ctl->json) {
		admin_print_json(line, 1);
		return;
	}
	t = (time_t)(out_num(line, "time_us", 0) / 1e6);
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%b %d %H:%M:%S", &tm);
	shown = esc_text(text != NULL ? text : "", text != NULL ?
	    strlen(text) : 0, ESC_KEEP_TAB);
	if (named)
		printf("%s %s: %s\n", when, out_esc(server != NULL ? server :
		    "?"), shown);
	else
		printf("%s %s\n", when, shown);
	free(shown);
}

/* A log notification's line, or NULL. */
static cJSON *
admin_log_params(const cJSON *msg)
{
	const char	*method = out_str(msg, "method");

	if (method == NULL || strcmp(method, MCPD_NOTIFY_LOG) != 0)
		return (NULL);
	return (cJSON_GetObjectItemCaseSensitive(msg, "params"));
}

/* logs -f: print the log notifications mcpd sends until it closes. */
static int
admin_follow(struct ctl *ctl, int named)
{
	struct frame_msg	 m;
	cJSON			*msg, *p;

	for (;;) {
		switch (line_next(ctl->line, 0, &m)) {
		case LINE_MESSAGE:
			break;
		case LINE_OVERSIZE:
		case LINE_GARBAGE:
			admin_lost(ctl, REQUEST_TOO_LONG, 0, 0);
			return (DIAG_EXIT_FAILED);
		case LINE_EOF:
			admin_lost(ctl, REQUEST_CLOSED,
			    line_read_errno(ctl->line), 0);
			return (DIAG_EXIT_FAILED);
		case LINE_TIMEOUT:	/* there is no deadline */
		case LINE_POLL_ERROR:
			admin_lost(ctl, REQUEST_POLL_ERROR, errno, 0);
			return (DIAG_EXIT_FAILED);
		}
		msg = cJSON_ParseWithLength(m.line, m.len);
		if ((p = admin_log_params(msg)) != NULL) {
			admin_print_log_line(ctl, p, named);
			fflush(stdout);
		}
		cJSON_Delete(msg);
	}
}

/* While a group's follows are asked for: the lines that come, kept. */
static void
admin_logs_keep(void *arg, const cJSON *msg)
{
	const cJSON	*p;

	if ((p = admin_log_params(msg)) != NULL)
		cJSON_AddItemToArray(arg, cJSON_Duplicate(p, 1));
}

struct admin_line {
	cJSON	*line;
	size_t	 order;
};

/* Older first, by the time mcpd read them; each server's in its order. */
static int
admin_line_cmp(const void *a, const void *b)
{
	const struct admin_line	*x = a, *y = b;
	double			 tx, ty;

	tx = out_num(x->line, "time_us", 0);
	ty = out_num(y->line, "time_us", 0);
	if (tx != ty)
		return (tx < ty ? -1 : 1);
	return (x->order < y->order ? -1 : x->order > y->order);
}

/* Several servers' lines, merged in time: the last ctl->lines printed. */
static void
admin_print_merged(const struct ctl *ctl, cJSON *lines, int named)
{
	struct admin_line	*v;
	cJSON			*line;
	size_t			 n = 0, i, first;

	v = xreallocarray(NULL, (size_t)cJSON_GetArraySize(lines) + 1,
	    sizeof *v);
	cJSON_ArrayForEach(line, lines) {
		v[n].line = line;
		v[n].order = n;
		n++;
	}
	qsort(v, n, sizeof *v, admin_line_cmp);
	first = n > (size_t)ctl->lines ? n - (size_t)ctl->lines : 0;
	for (i = first; i < n; i++)
		admin_print_log_line(ctl, v[i].line, named);
	free(v);
}

/*
 * logs NAME: a server's lines; a group's name: its members', merged in
 * time and each after its server's name, and with -f every member
 * followed on the one connection.
 */
int
admin_logs(struct ctl *ctl, int argc, char **argv)
{
	struct admin_names	 names;
	cJSON			*params, *result, *lines, *kept, *line;
	int			 status, i, named, rc;

	if ((rc = admin_names(ctl, argc, argv, &names)) != DIAG_EXIT_OK) {
		admin_names_free(&names);
		return (rc);
	}
	named = names.groups > 0;
	lines = cJSON_CreateArray();
	kept = cJSON_CreateArray();
	ctl->on_notification = admin_logs_keep;
	ctl->notification_arg = kept;
	for (i = 0; i < names.n; i++) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "server", names.v[i]);
		cJSON_AddNumberToObject(params, "lines", (double)ctl->lines);
		cJSON_AddBoolToObject(params, "follow", ctl->follow);
		if ((result = admin_call(ctl, MCPD_METHOD_LOGS, params,
		    &status)) == NULL) {
			rc = status;
			goto out;
		}
		while ((line = cJSON_DetachItemFromArray(
		    cJSON_GetObjectItemCaseSensitive(result, "lines"), 0)) !=
		    NULL)
			cJSON_AddItemToArray(lines, line);
		cJSON_Delete(result);
	}
	ctl->on_notification = NULL;
	admin_print_merged(ctl, lines, named);
	cJSON_ArrayForEach(line, kept)
		admin_print_log_line(ctl, line, named);
	if (ctl->follow) {
		fflush(stdout);
		rc = admin_follow(ctl, named);
	}

out:
	ctl->on_notification = NULL;
	cJSON_Delete(lines);
	cJSON_Delete(kept);
	admin_names_free(&names);
	return (rc);
}

int
admin_metrics(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result;
	const char	*text;
	int		 status;

	if ((result = admin_call(ctl, MCPD_METHOD_METRICS, NULL,
	    &status)) == NULL)
		return (status);
	text = out_str(result, "text");
	if (ctl->json)
		admin_print_json(result, 0);
	else
		fputs(text != NULL ? text : "", stdout);
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}

int
admin_version(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*result = NULL, *out;
	const char	*v;
	int		 status;

	if (admin_connect(ctl, 1) == DIAG_EXIT_OK)
		result = admin_call(ctl, MCPD_METHOD_VERSION, NULL, &status);
	v = out_str(result, "version");
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "mcpctl", PACKAGE_VERSION);
		if (v != NULL)
			cJSON_AddStringToObject(out, "mcpd", v);
		else
			cJSON_AddNullToObject(out, "mcpd");
		admin_print_json(out, 0);
		cJSON_Delete(out);
	} else {
		printf("mcpctl %s\n", PACKAGE_VERSION);
		if (v != NULL)
			printf("mcpd %s (pid %.0f, socket %s)\n", v,
			    out_num(result, "pid", 0), ctl->socket_path);
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}


#define ADMIN_REEXEC_WAIT_MS	30000	/* for the new mcpd to answer */
#define ADMIN_REEXEC_POLL_MS	50

/* The process has exited (or is a zombie nobody reaped yet). */
static int
admin_pid_gone(pid_t pid)
{
	char	 path[64], buf[512], *p;
	FILE	*f;
	int	 gone = 0;

	if (kill(pid, 0) == -1 && errno == ESRCH)
		return (1);
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	if (fgets(buf, sizeof buf, f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL && p[1] == ' ')
		gone = p[2] == 'Z' || p[2] == 'X';
	fclose(f);
	return (gone);
}

/* mcpd/version, on a connection of its own; NULL if mcpd does not answer. */
static cJSON *
admin_daemon(struct ctl *ctl)
{
	cJSON	*result = NULL;
	int	 status;

	admin_close(ctl);
	if (admin_connect(ctl, 1) == DIAG_EXIT_OK)
		result = admin_call(ctl, MCPD_METHOD_VERSION, NULL, &status);
	admin_close(ctl);
	return (result);
}

/*
 * mcpd/reexec: mcpd answers only if it cannot; on success the connection
 * closes with the execve and the new mcpd answers on the socket, with
 * one re-exec more.  A different pid means it did not take over: mcpd
 * exited and something (systemd) started another.
 */
int
admin_reexec(struct ctl *ctl, int argc, char **argv)
{
	struct request		 req;
	enum request_status	 st;
	cJSON			*before, *after = NULL, *out;
	const cJSON		*error;
	double			 pid, reexecs;
	uint64_t		 start, waited;

	if ((before = admin_call(ctl, MCPD_METHOD_VERSION, NULL,
	    &(int){ 0 })) == NULL)
		return (DIAG_EXIT_UNREACHABLE);
	pid = out_num(before, "pid", 0);
	reexecs = out_num(before, "reexecs", 0);

	start = clock_now_ms();
	memset(&req, 0, sizeof req);
	req.id = cJSON_CreateNumber((double)++ctl->next_id);
	req.method = MCPD_METHOD_REEXEC;
	req.timeout_ms = ADMIN_REPLY_TIMEOUT_MS;
	req.null_id = 1;
	req.any_oversize = 1;
	req.unsent_wait_ms = ADMIN_REFUSAL_WAIT_MS;
	st = request_run(ctl->line, &req);
	cJSON_Delete((cJSON *)req.id);
	if (st == REQUEST_REPLY) {
		error = cJSON_GetObjectItemCaseSensitive(req.reply, "error");
		diag_warnx(NULL, "%s", out_esc(out_str(error, "message") !=
		    NULL ? out_str(error, "message") : "mcpd refused"));
		cJSON_Delete(req.reply);
		cJSON_Delete(before);
		return (DIAG_EXIT_FAILED);
	}
	if (st != REQUEST_CLOSED) {
		diag_warnx(NULL, "mcpd at %s did not re-execute: no answer "
		    "and the connection stayed open", ctl->socket_path);
		cJSON_Delete(before);
		return (DIAG_EXIT_FAILED);
	}

	for (;;) {
		after = admin_daemon(ctl);
		waited = clock_now_ms() - start;
		if (after != NULL || waited >= ADMIN_REEXEC_WAIT_MS)
			break;
		/* Gone for good: no need to wait any longer. */
		if (pid > 0 && admin_pid_gone((pid_t)pid)) {
			diag_warnx(NULL, "mcpd (pid %.0f) exited during the "
			    "re-exec, and its servers with it: the new binary "
			    "refused the state (see the journal: journalctl "
			    "-u mcpd, or mcpd's log)", pid);
			cJSON_Delete(before);
			return (DIAG_EXIT_FAILED);
		}
		usleep(ADMIN_REEXEC_POLL_MS * 1000);
	}
	if (after == NULL) {
		diag_warnx(NULL, "mcpd did not come back within %d s of the "
		    "re-exec: the new binary may have refused the state (see "
		    "the journal: journalctl -u mcpd, or mcpd's log)",
		    ADMIN_REEXEC_WAIT_MS / 1000);
		cJSON_Delete(before);
		return (DIAG_EXIT_UNREACHABLE);
	}
	if (out_num(after, "pid", 0) != pid ||
	    out_num(after, "reexecs", 0) != reexecs + 1) {
		diag_warnx(NULL, "mcpd did not take over its servers: pid "
		    "%.0f answers now, not %.0f after a re-exec; the new binary "
		    "may have refused the state (see the journal)",
		    out_num(after, "pid", 0), pid);
		cJSON_Delete(before);
		cJSON_Delete(after);
		return (DIAG_EXIT_FAILED);
	}
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddNumberToObject(out, "pid", pid);
		cJSON_AddStringToObject(out, "from", out_str(before, "version") ?
		    out_str(before, "version") : "?");
		cJSON_AddStringToObject(out, "to", out_str(after, "version") ?
		    out_str(after, "version") : "?");
		cJSON_AddNumberToObject(out, "reexecs", reexecs + 1);
		cJSON_AddNumberToObject(out, "ms", (double)waited);
		admin_print_json(out, 0);
		cJSON_Delete(out);
	} else
		printf("mcpd re-executed %s in %llu ms: pid %.0f, version %s "
		    "(was %s)\n", out_esc(out_str(after, "binary") != NULL ?
		    out_str(after, "binary") : "mcpd"), (unsigned long long)waited,
		    pid, out_esc(out_str(after, "version") != NULL ?
		    out_str(after, "version") : "?"),
		    out_esc(out_str(before, "version") != NULL ?
		    out_str(before, "version") : "?"));
	cJSON_Delete(before);
	cJSON_Delete(after);
	return (DIAG_EXIT_OK);
}
