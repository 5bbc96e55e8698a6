/*
 * login.c -- sign-ins and sign-outs under way (see login.h).
 *
 * Each is a small state machine: URL (the process is discovering and
 * registering; mcpd/login waits), CODE (the URL went to mcpctl; the
 * person signs in), EXCHANGE (the code went to the process;
 * mcpd/login-complete waits), LOGOUT (mcpd/logout waits).  The process
 * ends it with "login-done", "login-failed" or "logout-done"; its exit
 * without one is a failure too.  Replies go to the connection by serial
 * number, so a connection that went away is simply not answered.
 *
 * Lines from the process are untrusted like any child's: bounded
 * (LOGIN_LINE_MAX), parsed, and only the members named here are read.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "child.h"
#include "client.h"
#include "conf.h"
#include "esc.h"
#include "fdio.h"
#include "frame.h"
#include "log.h"
#include "login.h"
#include "mcpd.h"
#include "paths.h"
#include "proto.h"
#include "rpc.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define LOGIN_LINE_MAX		(64 * 1024)
/* The process gives up after 10 minutes; mcpd a little later. */
#define LOGIN_EXPIRES_S		600
#define LOGIN_GUARD_S		(LOGIN_EXPIRES_S + 60)
#define LOGIN_TEXT_MAX		512
#define LOGIN_REDIRECT_MAX	200
#define LOGIN_SCOPE_MAX		1024

enum login_phase {
	LOGIN_URL,
	LOGIN_CODE,
	LOGIN_EXCHANGE,
	LOGIN_LOGOUT,
	LOGIN_OVER,		/* answered; waiting for the exit */
};

struct login {
	struct mcpd		*mcpd;
	char			*server;
	uint64_t		 serial;	/* the connection's */
	cJSON			*id;		/* the request waiting, or NULL */
	enum login_phase	 phase;
	char			*failed;	/* the process's reason */
	pid_t			 pid;
	int			 fd;
	struct event		*ev;
	struct event		*guard;
	struct frame		*frame;
	TAILQ_ENTRY(login)	 entry;
};

static struct client *
login_client(struct mcpd *mcpd, uint64_t serial)
{
	struct client	*c;

	for (c = client_first(mcpd); c != NULL; c = client_next(c)) {
		if (client_serial(c) == serial && !client_is_dead(c))
			return (c);
	}
	return (NULL);
}

/* Answer the request waiting (result or error), if its client is there. */
static void
login_reply(struct login *l, cJSON *result, int code, const char *message)
{
	struct client	*c;

	if (l->id == NULL) {
		cJSON_Delete(result);
		return;
	}
	if ((c = login_client(l->mcpd, l->serial)) != NULL) {
		if (result != NULL)
			client_send_json(c, rpc_make_result(l->id, result));
		else
			client_send_error(c, l->id, code, "%s", message);
	} else
		cJSON_Delete(result);
	cJSON_Delete(l->id);
	l->id = NULL;
}

static void
login_free(struct login *l)
{
	TAILQ_REMOVE(&l->mcpd->logins, l, entry);
	if (l->pid > 0)
		kill(l->pid, SIGKILL);	/* reaped by login_reaped */
	if (l->ev != NULL)
		event_free(l->ev);
	if (l->guard != NULL)
		event_free(l->guard);
	if (l->fd != -1)
		close(l->fd);
	frame_free(l->frame);
	cJSON_Delete(l->id);
	free(l->failed);
	free(l->server);
	free(l);
}

/*
 * It is over for mcpctl; the process may still be exiting.  The record
 * stays until then (login_reaped) so its pid is known.
 */
static void
login_over(struct login *l)
{
	l->phase = LOGIN_OVER;
	if (l->ev != NULL)
		event_del(l->ev);
	if (l->pid <= 0)
		login_free(l);
}

static void
login_fail(struct login *l, const char *why)
{
	char	*text;

	xasprintf(&text, "sign-in to %s failed: %s", l->server, why);
	log_warnx("%s", text);
	login_reply(l, NULL, MCPD_ERR_REMOTE_AUTH, text);
	free(text);
	if (l->failed == NULL)
		l->failed = xstrdup(why);
	login_over(l);
}

/* The process's text: printable, bounded; NULL if not a string. */
static char *
login_text(const cJSON *v)
{
	if (!cJSON_IsString(v))
		return (NULL);
	return (esc_text(v->valuestring, strnlen(v->valuestring,
	    LOGIN_TEXT_MAX), 0));
}

static void
login_done(struct login *l, const cJSON *msg)
{
	struct worker	*w;
	const cJSON	*v;
	cJSON		*result;
	char		*scope;

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", l->server);
	cJSON_AddBoolToObject(result, "signed_in", 1);
	v = cJSON_GetObjectItemCaseSensitive(msg, "expires");
	cJSON_AddNumberToObject(result, "expires", cJSON_IsNumber(v) &&
	    v->valuedouble > 0 && v->valuedouble < 1e12 ? v->valuedouble : 0);
	cJSON_AddBoolToObject(result, "refresh", cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(msg, "refresh")));
	if ((scope = login_text(cJSON_GetObjectItemCaseSensitive(msg,
	    "scope"))) != NULL)
		cJSON_AddStringToObject(result, "scope", scope);
	else
		cJSON_AddNullToObject(result, "scope");
	free(scope);
	log_info("%s: signed in", l->server);
	login_reply(l, result, 0, NULL);
	/* The server starts over with the new tokens. */
	if ((w = worker_find(l->mcpd, l->server)) != NULL &&
	    !worker_removing(w))
		worker_restart(w);
	login_over(l);
}

static void
login_logout_done(struct login *l, const cJSON *msg)
{
	struct worker	*w;
	cJSON		*result;

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", l->server);
	cJSON_AddBoolToObject(result, "revoked", cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(msg, "revoked")));
	cJSON_AddBoolToObject(result, "deleted", cJSON_IsTrue(
	    cJSON_GetObjectItemCaseSensitive(msg, "deleted")));
	log_info("%s: signed out", l->server);
	login_reply(l, result, 0, NULL);
	/* Without tokens it runs if it can, or waits for a sign-in. */
	if ((w = worker_find(l->mcpd, l->server)) != NULL &&
	    !worker_removing(w) && worker_running(w))
		worker_restart(w);
	login_over(l);
}

static void
login_line(struct login *l, const char *line, size_t len)
{
	cJSON		*msg, *result;
	const cJSON	*ev, *url;
	char		*why;

	msg = cJSON_ParseWithLength(line, len);
	ev = cJSON_GetObjectItemCaseSensitive(msg, "event");
	if (!cJSON_IsString(ev))
		goto out;
	if (strcmp(ev->valuestring, "login-url") == 0 &&
	    l->phase == LOGIN_URL) {
		url = cJSON_GetObjectItemCaseSensitive(msg, "url");
		if (!cJSON_IsString(url) || (strncmp(url->valuestring,
		    "https://", 8) != 0 && strncmp(url->valuestring,
		    "http://", 7) != 0) || strlen(url->valuestring) > 8192) {
			login_fail(l, "the sign-in produced no valid "
			    "authorization URL");
			goto out;
		}
		result = cJSON_CreateObject();
		cJSON_AddStringToObject(result, "server", l->server);
		cJSON_AddStringToObject(result, "url", url->valuestring);
		cJSON_AddNumberToObject(result, "expires_in", LOGIN_EXPIRES_S);
		l->phase = LOGIN_CODE;
		login_reply(l, result, 0, NULL);
	} else if (strcmp(ev->valuestring, "login-done") == 0 &&
	    l->phase == LOGIN_EXCHANGE)
		login_done(l, msg);
	else if (strcmp(ev->valuestring, "logout-done") == 0 &&
	    l->phase == LOGIN_LOGOUT)
		login_logout_done(l, msg);
	else if (strcmp(ev->valuestring, "login-failed") == 0 &&
	    l->phase != LOGIN_OVER) {
		why = login_text(cJSON_GetObjectItemCaseSensitive(msg,
		    "reason"));
		login_fail(l, why != NULL ? why : "no reason given");
		free(why);
	}
out:
	cJSON_Delete(msg);
}

static void
login_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct login		*l = arg;
	struct frame_msg	 m;
	enum frame_event	 fe;
	ssize_t			 n;

	(void)events;
	n = fdio_read_frame(fd, l->frame, NULL);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		event_del(l->ev);
		return;		/* the exit tells the rest */
	}
	while (l->phase != LOGIN_OVER &&
	    (fe = frame_next(l->frame, &m)) != FRAME_NONE) {
		if (fe == FRAME_LINE)
			login_line(l, m.line, m.len);
	}
}

static void
login_guard_cb(evutil_socket_t fd, short events, void *arg)
{
	struct login	*l = arg;

	(void)fd;
	(void)events;
	login_fail(l, "the sign-in took too long");
	if (l->pid > 0)
		kill(l->pid, SIGKILL);
}

/* Place fd at target in the child (it may be there already). */
static int
login_place(int fd, int target)
{
	if (fd == target)
		return (fcntl(fd, F_SETFD, 0));
	return (dup2(fd, target) == -1 ? -1 : 0);
}

/* Fork and exec mcpd-remote with the channel at 4, the settings at 5. */
static pid_t
login_spawn(int channel, int settings, char **cause)
{
	char		*argv[2], *envp[4];
	const char	*prog = transport_remote_program();
	sigset_t	 all, saved;
	pid_t		 pid;
	int		 hi_chan, hi_set, null;

	argv[0] = (char *)prog;
	argv[1] = NULL;
	envp[0] = "MCPD_REMOTE_STATUS_FD=4";
	envp[1] = "MCPD_REMOTE_SETTINGS_FD=5";
	envp[2] = "PATH=" CHILD_DEFAULT_PATH;
	envp[3] = NULL;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	pid = fork();
	if (pid == 0) {
		struct sigaction	 sa;
		int			 sig;

		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		for (sig = 1; sig < NSIG; sig++)
			(void)sigaction(sig, &sa, NULL);
		sigprocmask(SIG_SETMASK, &saved, NULL);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Above the targets first, so that no dup2 clobbers one. */
		hi_chan = fcntl(channel, F_DUPFD, 10);
		hi_set = fcntl(settings, F_DUPFD, 10);
		if ((null = open("/dev/null", O_RDWR)) == -1 ||
		    hi_chan == -1 || hi_set == -1 ||
		    dup2(null, STDIN_FILENO) == -1 ||
		    dup2(null, STDOUT_FILENO) == -1 ||
		    login_place(hi_chan, 4) == -1 ||
		    login_place(hi_set, 5) == -1)
			_exit(127);
		closefrom(6);
		execve(prog, argv, envp);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (pid == -1)
		xasprintf(cause, "fork: %s", strerror(errno));
	return (pid);
}

static struct login *
login_find(struct mcpd *mcpd, const char *server)
{
	struct login	*l;

	TAILQ_FOREACH(l, &mcpd->logins, entry) {
		if (l->phase != LOGIN_OVER && strcmp(l->server, server) == 0)
			return (l);
	}
	return (NULL);
}

/* Start the process; NULL after replying with the error. */
static struct login *
login_start(struct mcpd *mcpd, struct client *c, const cJSON *id,
    struct worker *w, const struct conf_remote_extra *extra)
{
	const struct conf_server *cs = worker_conf(w);
	struct conf_remote_extra  rx = *extra;
	struct login		 *l;
	struct timeval		  tv = { LOGIN_GUARD_S, 0 };
	char			 *cause = NULL, *token_file;
	int			  sp[2], settings;
	pid_t			  pid;

	token_file = paths_token_file(mcpd->token_dir, cs->name);
	rx.token_file = token_file;
	settings = transport_settings_fd(cs, &rx, &cause);
	free(token_file);
	if (settings == -1) {
		client_send_error(c, id, RPC_INTERNAL_ERROR, "%s", cause);
		free(cause);
		return (NULL);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		client_send_error(c, id, RPC_INTERNAL_ERROR, "socketpair: %s",
		    strerror(errno));
		close(settings);
		return (NULL);
	}
	pid = login_spawn(sp[1], settings, &cause);
	close(sp[1]);
	close(settings);
	if (pid == -1) {
		client_send_error(c, id, RPC_INTERNAL_ERROR, "%s", cause);
		free(cause);
		close(sp[0]);
		return (NULL);
	}
	l = xcalloc(1, sizeof *l);
	l->mcpd = mcpd;
	l->server = xstrdup(cs->name);
	l->serial = client_serial(c);
	l->id = cJSON_Duplicate(id, 1);
	l->pid = pid;
	l->fd = sp[0];
	fcntl(l->fd, F_SETFL, O_NONBLOCK);
	l->frame = frame_new(LOGIN_LINE_MAX);
	l->ev = event_new(mcpd->base, l->fd, EV_READ | EV_PERSIST,
	    login_read_cb, l);
	l->guard = evtimer_new(mcpd->base, login_guard_cb, l);
	event_add(l->ev, NULL);
	evtimer_add(l->guard, &tv);
	TAILQ_INSERT_TAIL(&mcpd->logins, l, entry);
	return (l);
}

/* params.server: a remote server that signs in; NULL after an error. */
static struct worker *
login_server(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const cJSON	*name;
	struct worker	*w;

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME, ...}");
		return (NULL);
	}
	if ((w = worker_find(mcpd, name->valuestring)) == NULL ||
	    worker_removing(w)) {
		client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
		    "unknown server: %s", name->valuestring);
		return (NULL);
	}
	if (!conf_remote_signs_in(worker_conf(w))) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "%s does not "
		    "sign in: %s", name->valuestring,
		    worker_conf(w)->url == NULL ? "it is not a remote server "
		    "(url)" : worker_conf(w)->has_oauth ? "its oauth uses "
		    "client credentials" : "it sends a configured "
		    "Authorization header");
		return (NULL);
	}
	if (login_find(mcpd, name->valuestring) != NULL) {
		client_send_error(c, id, MCPD_ERR_LIMIT, "a sign-in to %s is "
		    "already under way (another mcpctl login or logout); "
		    "finish or interrupt it first", name->valuestring);
		return (NULL);
	}
	return (w);
}

/* http://127.0.0.1:PORT/PATH, printable, no fragment: mcpctl's listener. */
static int
login_redirect_ok(const char *s)
{
	const char	*p;
	long		 port;
	char		*end;

	if (strlen(s) > LOGIN_REDIRECT_MAX ||
	    strncmp(s, "http://127.0.0.1:", 17) != 0)
		return (0);
	p = s + 17;
	port = strtol(p, &end, 10);
	if (end == p || port < 1 || port > 65535 || *end != '/')
		return (0);
	for (p = end; *p != '\0'; p++) {
		if (*p <= 0x20 || *p >= 0x7f || *p == '#' || *p == '"' ||
		    *p == '\\')
			return (0);
	}
	return (1);
}

static int
login_scope_ok(const char *s)
{
	const unsigned char	*p;

	if (strlen(s) > LOGIN_SCOPE_MAX)
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\')
			return (0);
	}
	return (1);
}

void
login_begin(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct conf_remote_extra rx;
	struct worker		*w;
	const cJSON		*redirect, *scope;

	if ((w = login_server(mcpd, c, id, params)) == NULL)
		return;
	redirect = cJSON_GetObjectItemCaseSensitive(params, "redirect_uri");
	scope = cJSON_GetObjectItemCaseSensitive(params, "scope");
	if (!cJSON_IsString(redirect) ||
	    !login_redirect_ok(redirect->valuestring)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "redirect_uri must be http://127.0.0.1:PORT/PATH (a "
		    "loopback listener of mcpctl's)");
		return;
	}
	if (scope != NULL && (!cJSON_IsString(scope) ||
	    !login_scope_ok(scope->valuestring))) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "scope must be scope tokens separated by spaces");
		return;
	}
	memset(&rx, 0, sizeof rx);
	rx.login = "login";
	rx.redirect_uri = redirect->valuestring;
	/* A step-up asked for more: this sign-in asks for it too. */
	rx.scope = scope != NULL ? scope->valuestring : worker_step_up(w);
	if (login_start(mcpd, c, id, w, &rx) != NULL)
		log_info("%s: sign-in started by client %llu", worker_name(w),
		    (unsigned long long)client_serial(c));
}

void
login_complete(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const cJSON	*name, *v;
	struct login	*l;
	/* RFC 9207's iss goes along: the process compares it. */
	cJSON		*answer;
	char		*text;
	size_t		 i, len;
	static const char *const keys[] = { "code", "state", "iss", "error",
	    "error_description" };

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME, \"code\", \"state\"}");
		return;
	}
	TAILQ_FOREACH(l, &mcpd->logins, entry) {
		if (strcmp(l->server, name->valuestring) == 0 &&
		    l->serial == client_serial(c))
			break;
	}
	if (l == NULL || l->phase != LOGIN_CODE) {
		if (l != NULL && l->failed != NULL)
			client_send_error(c, id, MCPD_ERR_REMOTE_AUTH,
			    "sign-in to %s failed: %s", l->server, l->failed);
		else
			client_send_error(c, id, RPC_INVALID_REQUEST, "no "
			    "sign-in to %s is waiting for a code on this "
			    "connection (run mcpctl login %s)",
			    name->valuestring, name->valuestring);
		return;
	}
	answer = cJSON_CreateObject();
	for (i = 0; i < nitems(keys); i++) {
		v = cJSON_GetObjectItemCaseSensitive(params, keys[i]);
		if (cJSON_IsString(v) && strlen(v->valuestring) <= 4096)
			cJSON_AddStringToObject(answer, keys[i],
			    v->valuestring);
	}
	text = cJSON_PrintUnformatted(answer);
	cJSON_Delete(answer);
	len = strlen(text);
	text[len++] = '\n';	/* over the NUL */
	if (write(l->fd, text, len) != (ssize_t)len) {
		explicit_bzero(text, len);
		free(text);
		client_send_error(c, id, RPC_INTERNAL_ERROR, "the sign-in "
		    "process is gone");
		return;
	}
	explicit_bzero(text, len);
	free(text);
	l->id = cJSON_Duplicate(id, 1);
	l->phase = LOGIN_EXCHANGE;
}

void
login_logout(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct conf_remote_extra rx;
	struct worker		*w;
	struct login		*l;

	if ((w = login_server(mcpd, c, id, params)) == NULL)
		return;
	memset(&rx, 0, sizeof rx);
	rx.login = "logout";
	if ((l = login_start(mcpd, c, id, w, &rx)) != NULL)
		l->phase = LOGIN_LOGOUT;
}

int
login_reaped(struct mcpd *mcpd, pid_t pid, int wstatus)
{
	struct login	*l;
	char		*status, *why;

	TAILQ_FOREACH(l, &mcpd->logins, entry) {
		if (l->pid == pid)
			break;
	}
	if (l == NULL)
		return (0);
	l->pid = 0;
	/* What it said before it went still counts. */
	if (l->phase != LOGIN_OVER && l->ev != NULL)
		login_read_cb(l->fd, EV_READ, l);
	if (l->phase != LOGIN_OVER) {
		status = child_describe_status(wstatus);
		xasprintf(&why, "the sign-in process %s", status);
		login_fail(l, why);
		free(why);
		free(status);
	}
	if (l->phase == LOGIN_OVER)
		login_free(l);
	return (1);
}

void
login_client_gone(struct mcpd *mcpd, uint64_t serial)
{
	struct login	*l;

	TAILQ_FOREACH(l, &mcpd->logins, entry) {
		if (l->serial != serial || l->phase == LOGIN_OVER)
			continue;
		/* Nobody to hand a code: the process ends now. */
		cJSON_Delete(l->id);
		l->id = NULL;
		if (l->phase != LOGIN_LOGOUT && l->pid > 0)
			kill(l->pid, SIGTERM);
		if (l->phase != LOGIN_LOGOUT)
			login_over(l);
	}
}

void
login_free_all(struct mcpd *mcpd)
{
	struct login	*l;

	while ((l = TAILQ_FIRST(&mcpd->logins)) != NULL)
		login_free(l);
}
