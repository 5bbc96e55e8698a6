/*
 * admin_servers.c -- the servers' states: `mcpctl status` as a table
 * (remote servers' sessions and sign-ins in a second one, and a hint for
 * each server that needs a sign-in or waits, idle, for its first
 * client; beside a failed server's exit, the last line of its stderr),
 * and start, stop and restart, which
 * wait until the servers have settled (unless --no-block).  Each takes a
 * group's name for its members (admin_names), and names each server
 * once.
 */
#include "config.h"

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
#include "ctl.h"
#include "diag.h"
#include "out.h"
#include "proto.h"
#include "xmalloc.h"

#define ADMIN_SETTLE_TIMEOUT_MS	60000
#define ADMIN_SETTLE_POLL_MS	50

/* Each server once: `status NAME NAME#1` lists NAME#1 with NAME too. */
static void
admin_servers_once(cJSON *servers)
{
	cJSON		*s, *next;
	const cJSON	*p;
	const char	*name;

	for (s = servers != NULL ? servers->child : NULL; s != NULL;
	    s = next) {
		next = s->next;
		if ((name = out_str(s, "name")) == NULL)
			continue;
		for (p = servers->child; p != s; p = p->next) {
			if (out_str(p, "name") != NULL &&
			    strcmp(out_str(p, "name"), name) == 0) {
				cJSON_Delete(cJSON_DetachItemViaPointer(servers,
				    s));
				break;
			}
		}
	}
}

static cJSON *
admin_names_params(int argc, char **argv)
{
	cJSON	*params, *names;
	int	 i;

	params = cJSON_CreateObject();
	names = cJSON_AddArrayToObject(params, "servers");
	for (i = 0; i < argc; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(argv[i]));
	return (params);
}

static const char *
admin_state_color(const struct ctl *ctl, const char *state)
{
	if (!ctl->color || state == NULL)
		return ("");
	if (strcmp(state, "ready") == 0)
		return ("\033[32m");
	if (strcmp(state, "failed") == 0)
		return ("\033[1;31m");
	if (strcmp(state, "backoff") == 0 ||
	    strcmp(state, "needs-login") == 0)
		return ("\033[33m");
	if (strcmp(state, "stopped") == 0 || strcmp(state, "idle") == 0)
		return ("\033[2m");
	return ("\033[36m");
}

/* " (frozen 2m05s: its next request thaws it)" */
static void
admin_frozen(char *buf, size_t size, const cJSON *s)
{
	const cJSON	*fr = cJSON_GetObjectItemCaseSensitive(s, "frozen");
	char		 since[24];

	out_duration(since, sizeof since, out_num(fr, "since_ms",
	    -1));
	snprintf(buf, size, " (frozen %s: its next request thaws it)", since);
}

/*
 * An instance's clients, each with its app and what it calls itself:
 * " client 4711 (app cursor, code)", " clients 1 (app bash), 2 (x)".
 */
static void
admin_attached(char *buf, size_t size, const cJSON *attached)
{
	const cJSON	*a;
	const char	*name, *app;
	size_t		 len;
	int		 n = cJSON_GetArraySize(attached);

	len = (size_t)snprintf(buf, size, " %s", n == 1 ? "client" :
	    n == 0 ? "no client" : "clients");
	cJSON_ArrayForEach(a, attached) {
		if (len >= size)
			break;
		name = out_str(a, "client");
		app = out_str(a, "app");
		len += (size_t)snprintf(buf + len, size - len, "%s %.0f",
		    a != attached->child ? "," : "", out_num(a, "pid", 0));
		if (len < size && app != NULL)
			len += (size_t)snprintf(buf + len, size - len,
			    " (app %s%s", out_esc(app), name != NULL ? ", " :
			    ")");
		if (len < size && name != NULL)
			len += (size_t)snprintf(buf + len, size - len, "%s%s)",
			    app != NULL ? "" : " (", out_esc(name));
	}
}

static void
admin_print_table(const struct ctl *ctl, const cJSON *servers)
{
	const cJSON	*s, *instances;
	const char	*state, *last, *share, *said;
	char		 pid[24], uptime[24], detail[256];
	int		 namew = 4;
	size_t		 len;

	cJSON_ArrayForEach(s, servers) {
		len = strlen(out_str(s, "name") ? out_esc(out_str(s, "name")) :
		    "");
		if ((int)len > namew)
			namew = (int)len;
	}
	printf("%-*s  %-12s  %7s  %7s  %8s  %7s  %8s  %s\n", namew, "NAME",
	    "STATE", "PID", "UPTIME", "RESTARTS", "CLIENTS", "INFLIGHT",
	    "LAST EXIT");
	cJSON_ArrayForEach(s, servers) {
		state = out_str(s, "state");
		if (out_num(s, "pid", -1) > 0)
			snprintf(pid, sizeof pid, "%.0f", out_num(s, "pid", 0));
		else
			snprintf(pid, sizeof pid, "-");
		out_duration(uptime, sizeof uptime,
		    out_num(s, "uptime_ms", -1));
		last = out_str(s, "last_exit");
		detail[0] = '\0';
		if (state != NULL && strcmp(state, "backoff") == 0)
			snprintf(detail, sizeof detail, " (next try in %.1fs)",
			    out_num(s, "next_restart_ms", 0) / 1000.0);
		else if (cJSON_IsArray(instances =
		    cJSON_GetObjectItemCaseSensitive(s, "instances")) &&
		    (share = out_str(s, "share")) != NULL)
			snprintf(detail, sizeof detail, " (%s: %d instance%s, "
			    "at most %.0f)", out_esc(share),
			    cJSON_GetArraySize(instances),
			    cJSON_GetArraySize(instances) == 1 ? "" : "s",
			    out_num(s, "max_instances", 0));
		else if (out_str(s, "instance_of") != NULL)
			admin_attached(detail, sizeof detail,
			    cJSON_GetObjectItemCaseSensitive(s, "attached"));
		else if (state != NULL && strcmp(state, "idle") == 0)
			snprintf(detail, sizeof detail, " (on demand: starts "
			    "with its next client or request)");
		else if (state != NULL && strcmp(state, "frozen") == 0)
			admin_frozen(detail, sizeof detail, s);
		/* Why it failed, in its words (shown to administrators). */
		said = out_str(s, "last_stderr");
		printf("%-*s  %s%-12s%s  %7s  %7s  %8.0f  %7.0f  %8.0f  %s",
		    namew, out_esc(out_str(s, "name")),
		    admin_state_color(ctl, state),
		    state != NULL ? out_esc(state) : "?",
		    ctl->color ? "\033[0m" : "", pid, uptime,
		    out_num(s, "restarts", 0), out_num(s, "clients", 0),
		    out_num(s, "inflight", 0),
		    last != NULL ? out_esc(last) : "-");
		if (said != NULL)
			printf("; stderr: %s", out_esc(said));
		printf("%s\n", detail);
	}
}

/* The groups: a line each, its members with their states. */
static void
admin_print_groups(const cJSON *groups)
{
	const cJSON	*g, *m;
	int		 namew = 5;
	size_t		 len;

	if (cJSON_GetArraySize(groups) == 0)
		return;
	cJSON_ArrayForEach(g, groups) {
		len = strlen(out_str(g, "name") ? out_esc(out_str(g, "name")) :
		    "");
		if ((int)len > namew)
			namew = (int)len;
	}
	printf("\n%-*s  %7s  %8s  %s\n", namew, "GROUP", "CLIENTS",
	    "REQUESTS", "SERVERS");
	cJSON_ArrayForEach(g, groups) {
		printf("%-*s  %7.0f  %8.0f ", namew,
		    out_str(g, "name") ? out_esc(out_str(g, "name")) : "?",
		    out_num(g, "clients", 0), out_num(g, "requests", 0));
		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(g,
		    "servers")) {
			printf(" %s", out_str(m, "name") ?
			    out_esc(out_str(m, "name")) : "?");
			printf("(%s)", out_str(m, "state") ?
			    out_esc(out_str(m, "state")) : "?");
		}
		printf("%s\n", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		    g, "servers")) == 0 ? " -" : "");
	}
}

/* What a remote server's session looks like, in a word. */
static const char *
admin_remote_session(const cJSON *remote)
{
	const char	*session;

	session = out_str(remote, "session");
	return (session != NULL ? session : "-");
}

/*
 * A remote server's authorization, in a few words: "signed in until
 * 14:02 (refreshes)" for a sign-in, "ok, until 14:02" for client
 * credentials, with the date too when it is not today; "-" if it has
 * none to speak of.
 */
static void
admin_remote_auth(char *buf, size_t size, const cJSON *remote)
{
	const char	*auth;
	char		 until[32];
	struct tm	 tm, today;
	time_t		 t, now;
	double		 expires;
	int		 signed_in;

	auth = out_str(remote, "auth");
	expires = out_num(remote, "token_expires", 0);
	if (auth == NULL) {
		snprintf(buf, size, "-");
		return;
	}
	if (strcmp(auth, "ok") != 0 || expires <= 0) {
		snprintf(buf, size, "%s", out_esc(auth));
		return;
	}
	t = (time_t)expires;
	now = time(NULL);
	if (localtime_r(&t, &tm) == NULL || localtime_r(&now, &today) == NULL)
		snprintf(until, sizeof until, "?");
	else
		strftime(until, sizeof until, tm.tm_year == today.tm_year &&
		    tm.tm_yday == today.tm_yday ? "%H:%M" : "%b %d %H:%M", &tm);
	signed_in = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(remote,
	    "signed_in"));
	snprintf(buf, size, "%s%s %s%s", signed_in ? "signed in" : "ok",
	    t < now ? ", expired" : signed_in ? " until" : ", until", until,
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(remote,
	    "refresh")) ? " (refreshes)" : "");
}

/*
 * Below a blank line, the era of MCP each named server speaks and how
 * mcpd found it: "fake: MCP 2025 (probe-intolerant)"; and its sandbox,
 * the layers that hold: "fake: sandbox: default; landlock 7: files,
 * tcp, scope; seccomp; netns", or "fake: not sandboxed".
 */
static void
admin_print_eras(const cJSON *servers)
{
	const cJSON	*s;
	const char	*era, *found, *sandbox;
	int		 any = 0;

	cJSON_ArrayForEach(s, servers) {
		era = out_str(s, "era");
		sandbox = out_str(s, "sandbox");
		if (era != NULL || sandbox != NULL) {
			if (!any++)
				printf("\n");
		}
		if (era != NULL) {
			found = out_str(s, "era_found");
			printf("%s: MCP %s", out_esc(out_str(s, "name")),
			    out_esc(era));
			if (found != NULL)
				printf(" (%s)", out_esc(found));
			printf("\n");
		}
		if (sandbox != NULL)
			printf("%s: %s%s\n", out_esc(out_str(s, "name")),
			    strcmp(sandbox, "not sandboxed") == 0 ? "" :
			    "sandbox: ", out_esc(sandbox));
	}
}

/* Remote servers get a second table: transport, session, sign-in, URL. */
static void
admin_print_remote(const cJSON *servers)
{
	const cJSON	*s, *remote;
	const char	*url, *transport, *reason;
	char		 http[16], auth[64];
	int		 namew = 6, authw = 4, any = 0;
	size_t		 len;

	cJSON_ArrayForEach(s, servers) {
		if (out_str(s, "url") == NULL)
			continue;
		any = 1;
		len = strlen(out_esc(out_str(s, "name")));
		if ((int)len > namew)
			namew = (int)len;
		admin_remote_auth(auth, sizeof auth,
		    cJSON_GetObjectItemCaseSensitive(s, "remote"));
		if ((int)strlen(auth) > authw)
			authw = (int)strlen(auth);
	}
	if (!any)
		return;
	printf("\n%-*s  %-9s  %-12s  %9s  %-*s  %s\n", namew, "REMOTE",
	    "TRANSPORT", "SESSION", "LAST FAIL", authw, "AUTH", "URL");
	cJSON_ArrayForEach(s, servers) {
		if ((url = out_str(s, "url")) == NULL)
			continue;
		remote = cJSON_GetObjectItemCaseSensitive(s, "remote");
		transport = out_str(s, "transport");
		if (out_num(remote, "last_http_status", 0) > 0)
			snprintf(http, sizeof http, "HTTP %.0f",
			    out_num(remote, "last_http_status", 0));
		else
			snprintf(http, sizeof http, "-");
		admin_remote_auth(auth, sizeof auth, remote);
		printf("%-*s  %-9s  %-12s  %9s  %-*s  %s\n", namew,
		    out_esc(out_str(s, "name")),
		    transport != NULL ? out_esc(transport) : "-",
		    out_esc(admin_remote_session(remote)), http, authw, auth,
		    out_esc(url));
		reason = out_str(remote, "auth_reason");
		if (reason != NULL)
			printf("%-*s  %s\n", namew, "", out_esc(reason));
	}
}

/*
 * The roots each server is given (configured, or its clients'), for
 * those that have some or take their clients'.
 */
static int
admin_shows_roots(const cJSON *s)
{
	const char	*share = out_str(s, "share");

	return (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s,
	    "roots")) > 0 || (share != NULL && strcmp(share, "global") != 0));
}

static void
admin_print_roots(const cJSON *servers)
{
	const cJSON	*s, *roots, *r;
	int		 namew = 5, any = 0;
	size_t		 len;

	cJSON_ArrayForEach(s, servers) {
		if (!admin_shows_roots(s))
			continue;
		any = 1;
		len = strlen(out_esc(out_str(s, "name")));
		if ((int)len > namew)
			namew = (int)len;
	}
	if (!any)
		return;
	printf("\n%-*s  %s\n", namew, "ROOTS", "GIVEN TO THE SERVER");
	cJSON_ArrayForEach(s, servers) {
		if (!admin_shows_roots(s))
			continue;
		roots = cJSON_GetObjectItemCaseSensitive(s, "roots");
		printf("%-*s ", namew, out_esc(out_str(s, "name")));
		if (roots == NULL)
			printf(" (another user's: not shown)");
		else if (cJSON_IsNull(roots))
			printf(" (asked of its client)");
		else if (cJSON_GetArraySize(roots) == 0)
			printf(" (none)");
		cJSON_ArrayForEach(r, roots)
			if (cJSON_IsString(r))
				printf(" %s", out_esc(r->valuestring));
		printf("\n");
	}
}

/*
 * Under the tables, a line for each server waiting for a sign-in
 * ("login" in its status): what to run, and why.
 */
static void
admin_print_logins(const cJSON *servers)
{
	const cJSON	*s, *login;
	const char	*name, *command, *reason, *scope, *state;
	char		*dflt;
	int		 first = 1;

	cJSON_ArrayForEach(s, servers) {
		if (!cJSON_IsObject(login = cJSON_GetObjectItemCaseSensitive(s,
		    "login")) || (name = out_str(s, "name")) == NULL)
			continue;
		xasprintf(&dflt, "mcpctl login %s", name);
		if ((command = out_str(login, "command")) == NULL)
			command = dflt;
		reason = out_str(login, "reason");
		scope = out_str(login, "scope");
		state = out_str(s, "state");
		if (first)
			printf("\n");
		first = 0;
		if (state != NULL && strcmp(state, "needs-login") != 0 &&
		    scope != NULL)
			printf("%s needs a new sign-in for the scope %s: "
			    "run `%s`", out_esc(name), out_esc(scope),
			    out_esc(command));
		else
			printf("%s needs a sign-in: run `%s`", out_esc(name),
			    out_esc(command));
		if (reason != NULL)
			printf(" (%s)", out_esc(reason));
		printf("\n");
		free(dflt);
	}
}

int
admin_status(struct ctl *ctl, int argc, char **argv)
{
	struct admin_names	 names;
	cJSON			*result, *params;
	int			 status;

	if ((status = admin_names(ctl, argc, argv, &names)) !=
	    DIAG_EXIT_OK) {
		admin_names_free(&names);
		return (status);
	}
	params = admin_names_params(names.n, names.v);
	if (ctl->clients)
		cJSON_AddTrueToObject(params, "clients");
	result = admin_call(ctl, MCPD_METHOD_STATUS, params, &status);
	admin_names_free(&names);
	if (result == NULL)
		return (status);
	admin_servers_once(cJSON_GetObjectItemCaseSensitive(result,
	    "servers"));
	if (ctl->json)
		admin_print_json(result, 0);
	else {
		admin_print_table(ctl, cJSON_GetObjectItemCaseSensitive(result,
		    "servers"));
		if (argc > 0)
			admin_print_eras(cJSON_GetObjectItemCaseSensitive(
			    result, "servers"));
		admin_print_remote(cJSON_GetObjectItemCaseSensitive(result,
		    "servers"));
		admin_print_roots(cJSON_GetObjectItemCaseSensitive(result,
		    "servers"));
		admin_print_logins(cJSON_GetObjectItemCaseSensitive(result,
		    "servers"));
		if (argc == 0) {
			admin_print_groups(cJSON_GetObjectItemCaseSensitive(
			    result, "groups"));
			admin_print_http(cJSON_GetObjectItemCaseSensitive(
			    result, "http"));
		}
		if (ctl->clients)
			admin_print_clients(cJSON_GetObjectItemCaseSensitive(
			    result, "clients"));
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}

enum admin_goal {
	ADMIN_GOAL_RUNNING,
	ADMIN_GOAL_STOPPED,
};

/* What a server was before the action, to tell that it happened. */
struct admin_before {
	double	 pid;		/* a restart's old process; -2 otherwise */
	double	 idle_stops;
	double	 restarts;
	char	*last_exit;
};

static double
admin_idle_stops(const cJSON *s)
{
	return (out_num(cJSON_GetObjectItemCaseSensitive(s, "stats"),
	    "idle_stops", 0));
}

/*
 * An on-demand server may run and be idle again between two looks: it
 * stopped for being idle, or its process was started again, or it ended.
 */
static int
admin_ran_since(const cJSON *s, const struct admin_before *before)
{
	const char	*last = out_str(s, "last_exit");

	return (admin_idle_stops(s) > before->idle_stops ||
	    out_num(s, "restarts", 0) > before->restarts ||
	    (last != NULL && (before->last_exit == NULL ||
	    strcmp(last, before->last_exit) != 0)));
}

/* Idle again for being idle: it ran as asked. */
static int
admin_went_idle(const cJSON *s, const struct admin_before *before)
{
	const char	*state = out_str(s, "state");

	return (state != NULL && strcmp(state, "idle") == 0 &&
	    admin_idle_stops(s) > before->idle_stops);
}

static void
admin_before_free(struct admin_before *before, int n)
{
	int	 i;

	for (i = 0; i < n; i++)
		free(before[i].last_exit);
	free(before);
}

/* Has this server reached a state where the action is decided? */
static int
admin_settled(const cJSON *s, enum admin_goal goal,
    const struct admin_before *before)
{
	const char	*state = out_str(s, "state");

	if (state == NULL)
		return (1);
	if (strcmp(state, "needs-login") == 0)	/* no process till then */
		return (1);
	if (goal == ADMIN_GOAL_STOPPED)
		return (strcmp(state, "stopped") == 0 ||
		    strcmp(state, "failed") == 0);
	/* Frozen: ready, and idle again since (idle "freeze"). */
	if (strcmp(state, "ready") == 0 || strcmp(state, "frozen") == 0)
		return (out_num(s, "pid", -1) != before->pid);
	/*
	 * An on-demand server with a short idle_stop_s may be ready and idle
	 * again between two looks: it did start.
	 */
	if (strcmp(state, "idle") == 0)
		return (admin_ran_since(s, before));
	return (strcmp(state, "backoff") == 0 ||
	    strcmp(state, "failed") == 0 || strcmp(state, "stopped") == 0);
}

/* The action on these servers (no groups: admin_names). */
static int
admin_act_on(struct ctl *ctl, const char *method, enum admin_goal goal,
    int argc, char **argv)
{
	cJSON		*result, *servers, *s;
	struct admin_before *before;
	int		 status, i, all_settled, started, rc = DIAG_EXIT_OK;
	uint64_t	 deadline;
	const char	*state, *last, *reason, *said;

	/*
	 * Remember pids first so a restart is seen to have happened.  The
	 * status of a server named lists its instances after it: each is
	 * found by its name.
	 */
	result = admin_call(ctl, MCPD_METHOD_STATUS, admin_names_params(argc,
	    argv), &status);
	if (result == NULL)
		return (status);
	before = xcalloc((size_t)argc, sizeof *before);
	servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
	for (i = 0; i < argc; i++) {
		s = (cJSON *)admin_find_named(servers, argv[i]);
		before[i].pid = strcmp(method, MCPD_METHOD_RESTART) == 0 ?
		    out_num(s, "pid", -1) : -2;
		before[i].idle_stops = admin_idle_stops(s);
		before[i].restarts = out_num(s, "restarts", 0);
		before[i].last_exit = out_str(s, "last_exit") != NULL ?
		    xstrdup(out_str(s, "last_exit")) : NULL;
	}
	cJSON_Delete(result);

	result = admin_call(ctl, method, admin_names_params(argc, argv),
	    &status);
	deadline = clock_now_ms() + ADMIN_SETTLE_TIMEOUT_MS;
	while (result != NULL && !ctl->no_block) {
		servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
		all_settled = 1;
		for (i = 0; i < argc; i++) {
			s = (cJSON *)admin_find_named(servers, argv[i]);
			if (!admin_settled(s, goal, &before[i]))
				all_settled = 0;
		}
		if (all_settled)
			break;
		if (clock_now_ms() > deadline) {
			diag_warnx(NULL, "timed out waiting for %s to finish",
			    method + strlen(MCPD_METHOD_PREFIX));
			rc = DIAG_EXIT_FAILED;
			break;
		}
		usleep(ADMIN_SETTLE_POLL_MS * 1000);
		cJSON_Delete(result);
		result = admin_call(ctl, MCPD_METHOD_STATUS,
		    admin_names_params(argc, argv), &status);
	}
	if (result == NULL) {
		admin_before_free(before, argc);
		return (status);
	}

	servers = cJSON_GetObjectItemCaseSensitive(result, "servers");
	if (ctl->json) {
		cJSON_DeleteItemFromObjectCaseSensitive(result, "daemon");
		admin_print_json(result, 0);
	}
	for (i = 0; i < argc; i++) {
		if ((s = (cJSON *)admin_find_named(servers, argv[i])) == NULL)
			continue;
		started = admin_went_idle(s, &before[i]);
		state = out_str(s, "state");
		last = out_str(s, "last_exit");
		if (goal == ADMIN_GOAL_RUNNING && !ctl->no_block &&
		    state != NULL && strcmp(state, "needs-login") == 0) {
			reason = out_str(cJSON_GetObjectItemCaseSensitive(s,
			    "login"), "reason");
			diag_warnx(NULL, "%s needs a sign-in: run `mcpctl "
			    "login %s`%s%s%s", out_str(s, "name"),
			    out_str(s, "name"), reason != NULL ? " (" : "",
			    reason != NULL ? reason : "",
			    reason != NULL ? ")" : "");
			rc = DIAG_EXIT_FAILED;
		} else if (goal == ADMIN_GOAL_RUNNING && !ctl->no_block &&
		    state != NULL && strcmp(state, "ready") != 0 &&
		    strcmp(state, "frozen") != 0 && !started) {
			said = out_str(s, "last_stderr");
			diag_warnx(NULL, "%s: %s%s%s%s%s", out_str(s, "name"),
			    state, last != NULL ? ": " : "",
			    last != NULL ? last : "", said != NULL ?
			    "; its last stderr line: " : "", said != NULL ?
			    said : "");
			rc = DIAG_EXIT_FAILED;
		} else if (!ctl->json)
			printf("%s: %s\n", out_esc(out_str(s, "name")),
			    state != NULL ? out_esc(state) : "?");
	}
	cJSON_Delete(result);
	admin_before_free(before, argc);
	return (rc);
}

/* The action on the servers named, or on a group's. */
static int
admin_act(struct ctl *ctl, const char *method, enum admin_goal goal,
    int argc, char **argv)
{
	struct admin_names names;
	int		 rc;

	if ((rc = admin_names(ctl, argc, argv, &names)) == DIAG_EXIT_OK)
		rc = admin_act_on(ctl, method, goal, names.n, names.v);
	admin_names_free(&names);
	return (rc);
}

int
admin_start(struct ctl *ctl, int argc, char **argv)
{
	return (admin_act(ctl, MCPD_METHOD_START, ADMIN_GOAL_RUNNING, argc,
	    argv));
}

int
admin_stop(struct ctl *ctl, int argc, char **argv)
{
	return (admin_act(ctl, MCPD_METHOD_STOP, ADMIN_GOAL_STOPPED, argc,
	    argv));
}

int
admin_restart(struct ctl *ctl, int argc, char **argv)
{
	return (admin_act(ctl, MCPD_METHOD_RESTART, ADMIN_GOAL_RUNNING, argc,
	    argv));
}
