/*
 * login.c -- `mcpctl login NAME` and `mcpctl logout NAME`: signing in to
 * a hosted (remote) server with OAuth's authorization code flow, and out
 * again.
 *
 * mcpd runs the flow and keeps the tokens (mcpd/login, mcpd/login-complete
 * and mcpd/logout in proto.h); mcpctl only carries the browser's part and
 * never sees a token.  It opens a listener on 127.0.0.1 at a free port,
 * asks mcpd for the authorization URL with http://127.0.0.1:PORT/callback
 * as the redirect URI, shows the URL on the terminal, then waits for the
 * browser to come back: its GET of /callback, or the address it ended on
 * pasted on standard input (a browser on another machine, over ssh).  The
 * code or the error goes to mcpd as it came, and mcpd's answer to the
 * terminal and to the browser.  The login belongs to the admin
 * connection: if mcpctl ends, mcpd drops it; if mcpd closes the
 * connection, the login has failed.
 *
 * Every local user can connect to the listener, so each connection is
 * first put to the kernel (peeruid.h, sock_diag): one whose other end is
 * not a socket of this user's (or, under sudo as root, of the user who ran
 * sudo) is closed at once, before a byte of it is read.  Another user
 * can so neither hold the listener's slots nor bring a code of their own
 * account to it.  The state of the authorization URL (with the PKCE
 * challenge) is a secret for the same reason, and never goes on a command
 * line, where every user can read it: xdg-open is given the listener's
 * CALLBACK_START_PATH, which answers this user's browser with a redirect
 * to the authorization URL.  Where the kernel cannot say who connects,
 * no connection is taken and no browser opened: the address is pasted.
 *
 * The listener lives only as long as the login and is closed as soon as
 * a result is relayed.  It holds at most LOGIN_CONNS connections at a
 * time (browsers open spare ones; a new one takes the oldest's place),
 * each for at most LOGIN_CONN_TIMEOUT_MS and LOGIN_HEAD_MAX bytes, and a
 * redirect whose state is not the one in the authorization URL is
 * answered and ignored.  Everything from outside reaches the page
 * HTML-escaped (callback.h) and the terminal escaped (out.h, diag.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin_int.h"
#include "callback.h"
#include "clock.h"
#include "ctl.h"
#include "diag.h"
#include "line.h"
#include "login.h"
#include "out.h"
#include "peeruid.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

/* mcpd talks to the authorization server before it answers these. */
#define LOGIN_REPLY_TIMEOUT_MS	120000
#define LOGIN_EXPIRES_DEFAULT_S	600
#define LOGIN_EXPIRES_MAX_S	86400
/* Other users' connections are dropped as they come: the queue drains. */
#define LOGIN_BACKLOG		64
#define LOGIN_ACCEPT_BURST	64	/* connections taken per wakeup */
#define LOGIN_CONNS		4
#define LOGIN_HEAD_MAX		8192
#define LOGIN_CONN_TIMEOUT_MS	10000
#define LOGIN_SEND_TIMEOUT_MS	5000
#define LOGIN_LINE_MAX		8192
#define LOGIN_REAP_POLL_MS	500
/* Whose browsers may connect: mcpctl's user, and sudo's. */
#define LOGIN_OWNERS		2
/* Other users whose dropped connections the terminal is told of. */
#define LOGIN_NAMED_UIDS	8

/* A connection to the listener, until its request head is in. */
struct login_conn {
	int		 fd;		/* -1: a free slot */
	uint64_t	 deadline;
	size_t		 len;
	char		 head[LOGIN_HEAD_MAX];
};

struct login {
	struct ctl	*ctl;
	const char	*server;
	FILE		*out;		/* for the instructions */
	int		 port;
	int		 lfd;		/* the listener, or -1 */
	const char	*url;		/* the authorization URL */
	char		*state;		/* the authorization URL's */
	struct login_conn conns[LOGIN_CONNS];

	struct peeruid	*peeruid;	/* NULL: no connection is taken */
	char		*no_peeruid;	/* why not */
	uid_t		 owners[LOGIN_OWNERS];
	size_t		 nowners;
	uid_t		 named[LOGIN_NAMED_UIDS];	/* told of */
	size_t		 nnamed;
	int		 unknown_told;	/* a connection of no one known */

	int		 in_open;	/* watching standard input */
	int		 in_skip;	/* dropping a line too long */
	size_t		 in_len;
	char		 in[LOGIN_LINE_MAX];

	pid_t		 opener;	/* xdg-open, until reaped */
	int		 done;		/* relayed: rc is the outcome */
	int		 rc;
};

/*
 * The listener.
 */

static int
login_listen(int *port)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	int			 fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1) {
		diag_warnx(NULL, "socket: %s", strerror(errno));
		return (-1);
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(fd, LOGIN_BACKLOG) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		diag_warnx(NULL, "cannot listen on 127.0.0.1 for the browser: "
		    "%s", strerror(errno));
		close(fd);
		return (-1);
	}
	*port = ntohs(sin.sin_port);
	return (fd);
}

static void
login_conn_close(struct login_conn *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
	c->len = 0;
}

/* No more browsers: the port closes with the login's result. */
static void
login_unlisten(struct login *lg, struct login_conn *keep)
{
	size_t	 i;

	if (lg->lfd != -1)
		close(lg->lfd);
	lg->lfd = -1;
	for (i = 0; i < nitems(lg->conns); i++)
		if (&lg->conns[i] != keep)
			login_conn_close(&lg->conns[i]);
}

/*
 * Whose browser may connect: the uid the kernel gives mcpctl's own
 * listener (asked first, so that its answers are known to hold here),
 * and as root under sudo(8) the user who ran sudo, whose browser it is.
 * Without that answer no connection is taken.
 */
static void
login_owners(struct login *lg)
{
	const char	*sudo;
	char		*end;
	unsigned long	 v;
	uid_t		 self;

	if ((lg->peeruid = peeruid_open(&lg->no_peeruid)) == NULL)
		return;
	if (peeruid_self(lg->peeruid, lg->lfd, &self, &lg->no_peeruid) == 0 &&
	    self != geteuid())
		xasprintf(&lg->no_peeruid, "sock_diag gives mcpctl's own "
		    "listener uid %lu, not %lu", (unsigned long)self,
		    (unsigned long)geteuid());
	if (lg->no_peeruid != NULL) {
		peeruid_close(lg->peeruid);
		lg->peeruid = NULL;
		return;
	}
	lg->owners[lg->nowners++] = self;
	if (self != 0 || (sudo = getenv("SUDO_UID")) == NULL || *sudo == '\0')
		return;
	errno = 0;
	v = strtoul(sudo, &end, 10);
	if (errno == 0 && *end == '\0' && v != 0 && v == (uid_t)v &&
	    (uid_t)v != (uid_t)-1)
		lg->owners[lg->nowners++] = (uid_t)v;
}

/* The terminal hears once of each of the first few other users. */
static void
login_foreign(struct login *lg, uid_t uid)
{
	size_t	 i;

	for (i = 0; i < lg->nnamed; i++)
		if (lg->named[i] == uid)
			return;
	if (lg->nnamed == nitems(lg->named))
		return;
	lg->named[lg->nnamed++] = uid;
	diag_warnx(lg->server, "dropped a connection to 127.0.0.1:%d from uid "
	    "%lu, another user's: only a browser of uid %lu%s can finish "
	    "this sign-in there (if it was yours, paste the address it ends "
	    "on)", lg->port, (unsigned long)uid, (unsigned long)lg->owners[0],
	    lg->nowners > 1 ? " or of the user who ran sudo" : "");
}

/* Is the other end of fd a socket of one of the owners? */
static int
login_from_owner(struct login *lg, int fd)
{
	char	*cause = NULL;
	size_t	 i;
	uid_t	 uid;
	int	 rv;

	if (lg->peeruid == NULL)
		return (0);
	if ((rv = peeruid_remote(lg->peeruid, fd, &uid, &cause)) == -1) {
		if (!lg->unknown_told)
			diag_warnx(lg->server, "dropped a connection to "
			    "127.0.0.1:%d: cannot tell whose it is: %s",
			    lg->port, cause);
		lg->unknown_told = 1;
		free(cause);
		return (0);
	}
	if (rv == 0)
		return (0);	/* closed already: no one's */
	for (i = 0; i < lg->nowners; i++)
		if (lg->owners[i] == uid)
			return (1);
	login_foreign(lg, uid);
	return (0);
}

/* A slot for a new connection: a free one, or the oldest's. */
static struct login_conn *
login_slot(struct login *lg)
{
	struct login_conn	*c, *oldest = NULL;
	size_t			 i;

	for (i = 0; i < nitems(lg->conns); i++) {
		c = &lg->conns[i];
		if (c->fd == -1)
			return (c);
		if (oldest == NULL || c->deadline < oldest->deadline)
			oldest = c;
	}
	login_conn_close(oldest);
	return (oldest);
}

/*
 * Take what is queued: an owner's connection into a slot, anyone else's
 * closed unread, so that no one else's can wait in the queue for long.
 */
static void
login_accept(struct login *lg)
{
	struct login_conn	*c;
	int			 fd, n;

	for (n = 0; n < LOGIN_ACCEPT_BURST; n++) {
		fd = accept4(lg->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd == -1)
			return;		/* gone already, or no fd: later */
		if (!login_from_owner(lg, fd)) {
			close(fd);
			continue;
		}
		c = login_slot(lg);
		c->fd = fd;
		c->len = 0;
		c->deadline = clock_now_ms() + LOGIN_CONN_TIMEOUT_MS;
	}
}

/* Send the browser a whole response and close; a slow reader loses it. */
static void
login_send(struct login_conn *c, char *resp)
{
	struct pollfd	 pfd;
	uint64_t	 deadline;
	size_t		 off = 0, len;
	ssize_t		 n;
	int64_t		 left;

	len = strlen(resp);
	deadline = clock_now_ms() + LOGIN_SEND_TIMEOUT_MS;
	while (off < len) {
		n = send(c->fd, resp + off, len - off, MSG_NOSIGNAL |
		    MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			break;
		if ((left = (int64_t)deadline - (int64_t)clock_now_ms()) <= 0)
			break;
		pfd.fd = c->fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			break;
	}
	shutdown(c->fd, SHUT_WR);
	free(resp);
	login_conn_close(c);
}

/* Answer the browser with a page. */
static void
login_respond(struct login_conn *c, int status, const char *title,
    const char *text)
{
	login_send(c, callback_page(status, title, text));
}

/*
 * mcpd.
 */

/* Has mcpd closed the connection?  Anything it says unasked is dropped. */
static int
login_mcpd_gone(struct login *lg)
{
	struct frame_msg	 m;

	for (;;) {
		switch (line_next(lg->ctl->line, clock_now_ms() + 1, &m)) {
		case LINE_MESSAGE:
		case LINE_OVERSIZE:
			continue;
		case LINE_TIMEOUT:
			return (0);
		case LINE_GARBAGE:
		case LINE_EOF:
		case LINE_POLL_ERROR:
			return (1);
		}
	}
}

/* "until 2026-11-25 15:02:07 CET" for a time in seconds since the Epoch. */
static void
login_format_time(char *buf, size_t size, double when)
{
	struct tm	 tm;
	time_t		 t = (time_t)when;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		snprintf(buf, size, "%.0f", when);
}

static void
login_report(struct login *lg, cJSON *result)
{
	const char	*scope;
	char		 when[64];
	int		 refresh;

	if (lg->ctl->json) {
		admin_print_json(result, 0);
		return;
	}
	refresh = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
	    "refresh"));
	printf("Signed in to %s\n", out_esc(lg->server));
	if (out_num(result, "expires", 0) > 0) {
		login_format_time(when, sizeof when, out_num(result,
		    "expires", 0));
		printf("access token valid until %s", when);
	} else
		printf("access token valid for as long as the authorization "
		    "server allows (it did not say)");
	if (refresh)
		printf("; mcpd refreshes it automatically\n");
	else
		printf("; it does not refresh: run `mcpctl login %s` again "
		    "when it expires\n", out_esc(lg->server));
	if ((scope = out_str(result, "scope")) != NULL && *scope != '\0')
		printf("scope: %s\n", out_esc(scope));
}

/*
 * The browser's result: a code or an error, from the listener (c) or
 * pasted (c is NULL).  Relayed to mcpd unless it is from another login.
 */
static void
login_result(struct login *lg, struct callback *cb, struct login_conn *c)
{
	struct ctl	*ctl = lg->ctl;
	cJSON		*params, *result;
	char		*title, *text;
	const char	*why;
	int		 status;

	/*
	 * The state in the authorization URL comes back with the code (RFC
	 * 6749, 4.1.2); one that does not is from another login, or forged.
	 * An error without a state is passed on: mcpd judges it.
	 */
	if (lg->state != NULL && (cb->code != NULL || cb->state != NULL) &&
	    (cb->state == NULL || strcmp(cb->state, lg->state) != 0)) {
		if (c != NULL) {
			xasprintf(&text, "This address is not from the "
			    "sign-in to %s under way; it was ignored.",
			    lg->server);
			login_respond(c, 400, "Not this sign-in", text);
			free(text);
			diag_warnx(lg->server, "ignored a redirect to the "
			    "listener from another sign-in (its state is not "
			    "this one's)");
		} else
			diag_warnx(lg->server, "that address is from another "
			    "sign-in (its state is not this one's); still "
			    "waiting");
		return;
	}

	login_unlisten(lg, c);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", lg->server);
	if (cb->error != NULL && cb->error[0] != '\0') {
		cJSON_AddStringToObject(params, "error", cb->error);
		if (cb->error_description != NULL)
			cJSON_AddStringToObject(params, "error_description",
			    cb->error_description);
	} else
		cJSON_AddStringToObject(params, "code", cb->code);
	if (cb->state != NULL)
		cJSON_AddStringToObject(params, "state", cb->state);
	if (cb->iss != NULL)
		cJSON_AddStringToObject(params, "iss", cb->iss);
	result = admin_call_wait(ctl, MCPD_METHOD_LOGIN_COMPLETE, params,
	    LOGIN_REPLY_TIMEOUT_MS, &status);

	lg->done = 1;
	if (result != NULL) {
		lg->rc = DIAG_EXIT_OK;
		if (c != NULL) {
			xasprintf(&title, "Signed in to %s", lg->server);
			xasprintf(&text, "Signed in to %s. You can close this "
			    "tab.", lg->server);
			login_respond(c, 200, title, text);
			free(title);
			free(text);
		}
		login_report(lg, result);
		cJSON_Delete(result);
		return;
	}
	lg->rc = status;
	if (c != NULL) {
		why = ctl->last_error_message != NULL ?
		    ctl->last_error_message : "mcpctl lost its connection to "
		    "mcpd, which was to finish it";
		xasprintf(&title, "Sign-in to %s failed", lg->server);
		xasprintf(&text, "Sign-in to %s failed: %s", lg->server, why);
		login_respond(c, 200, title, text);
		free(title);
		free(text);
	}
}

/*
 * What comes in: the listener's connections, standard input.
 */

static void
login_request(struct login *lg, struct login_conn *c, size_t head_len)
{
	struct callback	 cb;
	char		*text;

	memset(&cb, 0, sizeof cb);
	switch (callback_request(c->head, head_len, &cb)) {
	case CALLBACK_START:
		login_send(c, callback_see_other(lg->url));
		break;
	case CALLBACK_RESULT:
		login_result(lg, &cb, c);
		break;
	case CALLBACK_EMPTY:
		login_respond(c, 400, "No sign-in result", "This address "
		    "holds neither an authorization code nor an error.");
		break;
	case CALLBACK_BAD:
		login_respond(c, 400, "Malformed address", "The query of "
		    "this address is malformed: a parameter comes twice, or "
		    "holds a NUL.");
		break;
	case CALLBACK_OTHER:
		xasprintf(&text, "mcpctl waits here for the sign-in to %s, "
		    "at %s only.", lg->server, CALLBACK_PATH);
		login_respond(c, 404, "Not found", text);
		free(text);
		break;
	}
	callback_clear(&cb);
}

static void
login_conn_read(struct login *lg, struct login_conn *c)
{
	ssize_t	 n;
	size_t	 head_len;

	n = recv(c->fd, c->head + c->len, sizeof c->head - c->len,
	    MSG_DONTWAIT);
	if (n == -1 && (errno == EINTR || errno == EAGAIN ||
	    errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		login_conn_close(c);
		return;
	}
	c->len += (size_t)n;
	if ((head_len = callback_head_end(c->head, c->len)) != 0)
		login_request(lg, c, head_len);
	else if (c->len == sizeof c->head)
		login_respond(c, 431, "Request too large", "The request's "
		    "head is larger than mcpctl reads.");
}

static void
login_expected(struct login *lg, const char *what)
{
	diag_warnx(lg->server, "%s; expected the address the browser ended "
	    "on, http://127.0.0.1:%d%s?code=... (or one with error=...); "
	    "still waiting", what, lg->port, CALLBACK_PATH);
}

static void
login_pasted(struct login *lg, const char *line)
{
	struct callback	 cb;
	const char	*p;

	for (p = line; *p == ' ' || *p == '\t' || *p == '\r'; p++)
		;
	if (*p == '\0')
		return;
	memset(&cb, 0, sizeof cb);
	switch (callback_url(line, &cb)) {
	case CALLBACK_RESULT:
		login_result(lg, &cb, NULL);
		break;
	case CALLBACK_EMPTY:
		login_expected(lg, "that address holds neither a code nor an "
		    "error");
		break;
	case CALLBACK_BAD:
		login_expected(lg, "that address's query is malformed (a "
		    "parameter comes twice, or holds a NUL)");
		break;
	case CALLBACK_OTHER:
	case CALLBACK_START:
		login_expected(lg, "that is not an http or https address");
		break;
	}
	callback_clear(&cb);
}

/* Lines from standard input, at most LOGIN_LINE_MAX bytes each. */
static void
login_stdin(struct login *lg)
{
	char	 buf[LOGIN_LINE_MAX];
	ssize_t	 n, i;

	n = read(STDIN_FILENO, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		lg->in_open = 0;	/* end of input: the browser only */
		if (lg->in_len > 0 && !lg->in_skip) {
			lg->in[lg->in_len] = '\0';
			login_pasted(lg, lg->in);
		}
		lg->in_len = 0;
		return;
	}
	for (i = 0; i < n && !lg->done; i++) {
		if (buf[i] == '\n') {
			if (!lg->in_skip) {
				lg->in[lg->in_len] = '\0';
				login_pasted(lg, lg->in);
			}
			lg->in_skip = 0;
			lg->in_len = 0;
		} else if (lg->in_skip)
			continue;
		else if (lg->in_len == sizeof lg->in - 1) {
			lg->in_skip = 1;
			lg->in_len = 0;
			login_expected(lg, "that line is too long");
		} else
			lg->in[lg->in_len++] = buf[i];
	}
}

/*
 * The browser.
 */

static pid_t
login_open_browser(const char *url)
{
	char	*argv[3];
	pid_t	 pid;
	int	 fd;

	argv[0] = "xdg-open";
	argv[1] = (char *)url;
	argv[2] = NULL;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) != 0)
		return (pid);
	/* Its own session: ^C on mcpctl must not reach the browser. */
	setsid();
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	execvp(argv[0], argv);
	_exit(127);
}

/* Reap xdg-open once it has ended; say so if it failed. */
static void
login_reap(struct login *lg)
{
	int	 st;

	if (lg->opener <= 0 || waitpid(lg->opener, &st, WNOHANG) <= 0)
		return;
	lg->opener = -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		diag_warnx(NULL, "could not run xdg-open; open the address "
		    "above in a browser yourself");
	else
		diag_warnx(NULL, "xdg-open failed (%s %d); open the address "
		    "above in a browser yourself", WIFEXITED(st) ?
		    "exit status" : "signal", WIFEXITED(st) ?
		    WEXITSTATUS(st) : WTERMSIG(st));
}

static int
login_has_display(void)
{
	const char	*d, *w;

	d = getenv("DISPLAY");
	w = getenv("WAYLAND_DISPLAY");
	return ((d != NULL && *d != '\0') || (w != NULL && *w != '\0'));
}

/* Is stdin open for reading? */
static int
login_stdin_readable(void)
{
	int	 fl;

	if ((fl = fcntl(STDIN_FILENO, F_GETFL)) == -1)
		return (0);
	return ((fl & O_ACCMODE) == O_RDONLY || (fl & O_ACCMODE) == O_RDWR);
}

/*
 * The wait.
 */

enum login_src {
	LOGIN_SRC_MCPD = -1,
	LOGIN_SRC_STDIN = -2,
	LOGIN_SRC_LISTENER = -3,
};

static int
login_wait(struct login *lg, uint64_t deadline, long expires_s)
{
	struct pollfd	 pfd[3 + LOGIN_CONNS];
	int		 src[3 + LOGIN_CONNS];
	struct login_conn *c;
	uint64_t	 now, until;
	size_t		 i, n;

	for (;;) {
		login_reap(lg);
		now = clock_now_ms();
		if (now >= deadline) {
			if (expires_s >= 60)
				diag_warnx(lg->server, "the sign-in was not "
				    "completed within %ld minute%s",
				    (expires_s + 59) / 60,
				    (expires_s + 59) / 60 == 1 ? "" : "s");
			else
				diag_warnx(lg->server, "the sign-in was not "
				    "completed within %ld second%s",
				    expires_s, expires_s == 1 ? "" : "s");
			return (DIAG_EXIT_FAILED);
		}
		until = deadline;
		n = 0;
		pfd[n].fd = line_fd(lg->ctl->line);
		pfd[n].events = POLLIN;
		src[n++] = LOGIN_SRC_MCPD;
		if (lg->in_open) {
			pfd[n].fd = STDIN_FILENO;
			pfd[n].events = POLLIN;
			src[n++] = LOGIN_SRC_STDIN;
		}
		for (i = 0; i < nitems(lg->conns); i++) {
			c = &lg->conns[i];
			if (c->fd != -1 && now >= c->deadline)
				login_conn_close(c);	/* too slow */
			if (c->fd == -1)
				continue;
			if (c->deadline < until)
				until = c->deadline;
			pfd[n].fd = c->fd;
			pfd[n].events = POLLIN;
			src[n++] = (int)i;
		}
		if (lg->lfd != -1) {
			pfd[n].fd = lg->lfd;
			pfd[n].events = POLLIN;
			src[n++] = LOGIN_SRC_LISTENER;
		}
		if (lg->opener > 0 && now + LOGIN_REAP_POLL_MS < until)
			until = now + LOGIN_REAP_POLL_MS;

		if (poll(pfd, n, (int)(until - now)) == -1) {
			if (errno == EINTR)
				continue;
			diag_warnx(NULL, "poll: %s", strerror(errno));
			return (DIAG_EXIT_FAILED);
		}
		for (i = 0; i < n && !lg->done; i++) {
			if (pfd[i].revents == 0)
				continue;
			switch (src[i]) {
			case LOGIN_SRC_MCPD:
				if (login_mcpd_gone(lg)) {
					diag_warnx(lg->server, "mcpd closed "
					    "the connection; the sign-in is "
					    "cancelled");
					return (DIAG_EXIT_FAILED);
				}
				break;
			case LOGIN_SRC_STDIN:
				login_stdin(lg);
				break;
			case LOGIN_SRC_LISTENER:
				if (lg->lfd != -1)
					login_accept(lg);
				break;
			default:
				if (lg->conns[src[i]].fd != -1)
					login_conn_read(lg,
					    &lg->conns[src[i]]);
				break;
			}
		}
		if (lg->done)
			return (lg->rc);
	}
}

/* An authorization URL mcpctl would show and open: http(s), printable. */
static int
login_url_ok(const char *url)
{
	const unsigned char	*p;

	if (strncasecmp(url, "https://", 8) != 0 &&
	    strncasecmp(url, "http://", 7) != 0)
		return (0);
	for (p = (const unsigned char *)url; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return (0);
	return (1);
}

static void
login_unsupported(const struct ctl *ctl)
{
	if (ctl->last_error_code == RPC_METHOD_NOT_FOUND)
		diag_warnx(NULL, "this mcpd does not offer sign-in: it is "
		    "older than this mcpctl");
}

/*
 * Does the server ask for a sign-in at all?  Not one whose session with
 * mcpd is up without an HTTP 401 ever, nor an authorization state: it
 * answers without one.  A sign-in to it fails in discovery (with no
 * protected resource metadata, the defaults of MCP 2025-03-26 at its
 * origin: a 404 there), which says nothing of that.
 */
static int
login_asks_none(struct ctl *ctl, const char *server)
{
	cJSON		*params, *result;
	const cJSON	*s, *remote, *state;
	const char	*session;
	int		 status, none;

	params = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(params, "servers"),
	    cJSON_CreateString(server));
	if ((result = admin_call(ctl, MCPD_METHOD_STATUS, params,
	    &status)) == NULL)
		return (0);
	s = admin_find_named(cJSON_GetObjectItemCaseSensitive(result,
	    "servers"), server);
	remote = cJSON_GetObjectItemCaseSensitive(s, "remote");
	session = out_str(remote, "session");
	state = cJSON_GetObjectItemCaseSensitive(remote, "auth");
	none = session != NULL && strcmp(session, "established") == 0 &&
	    (state == NULL || cJSON_IsNull(state)) &&
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    remote, "http_responses"), "401") == NULL;
	cJSON_Delete(result);
	return (none);
}

/* mcpd/login failed: why, or that the server needs no sign-in. */
static int
login_refused(struct ctl *ctl, const char *server, int status)
{
	const char	*why = ctl->last_error_message, *detail;
	char		*prefix;

	if (ctl->last_error_code == 0)	/* no answer from mcpd: said */
		return (status);
	if (why == NULL)
		why = "mcpd returned an error";
	if (ctl->last_error_code == MCPD_ERR_REMOTE_AUTH &&
	    login_asks_none(ctl, server)) {
		xasprintf(&prefix, "sign-in to %s failed: ", server);
		detail = strncmp(why, prefix, strlen(prefix)) == 0 ?
		    why + strlen(prefix) : why;
		printf("%s needs no sign-in: it answers mcpd without asking "
		    "for one (never an HTTP 401)\n  (what looking for one "
		    "found: %s)\n", out_esc(server), out_esc(detail));
		free(prefix);
		return (DIAG_EXIT_OK);
	}
	diag_warnx(NULL, "%s", why);
	login_unsupported(ctl);
	return (status);
}

/*
 * Commands.
 */

int
login_login(struct ctl *ctl, int argc, char **argv)
{
	struct login	 lg;
	struct callback	 cb;
	cJSON		*params, *result = NULL;
	const char	*url;
	char		*redirect = NULL, *start = NULL;
	double		 expires;
	long		 expires_s;
	size_t		 i;
	int		 status, rc;

	memset(&lg, 0, sizeof lg);
	lg.ctl = ctl;
	lg.server = argv[0];
	lg.out = ctl->json ? stderr : stdout;
	lg.opener = -1;
	for (i = 0; i < nitems(lg.conns); i++)
		lg.conns[i].fd = -1;
	if ((lg.lfd = login_listen(&lg.port)) == -1)
		return (DIAG_EXIT_FAILED);
	login_owners(&lg);

	xasprintf(&redirect, "http://127.0.0.1:%d%s", lg.port, CALLBACK_PATH);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", lg.server);
	cJSON_AddStringToObject(params, "redirect_uri", redirect);
	ctl->quiet_errors = 1;
	result = admin_call_wait(ctl, MCPD_METHOD_LOGIN, params,
	    LOGIN_REPLY_TIMEOUT_MS, &status);
	ctl->quiet_errors = 0;
	if (result == NULL) {
		rc = login_refused(ctl, lg.server, status);
		goto out;
	}
	if ((url = out_str(result, "url")) == NULL || !login_url_ok(url)) {
		diag_warnx(lg.server, "mcpd sent no authorization address "
		    "that could be opened");
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	expires = out_num(result, "expires_in", LOGIN_EXPIRES_DEFAULT_S);
	if (!(expires >= 1))
		expires = LOGIN_EXPIRES_DEFAULT_S;
	if (expires > LOGIN_EXPIRES_MAX_S)
		expires = LOGIN_EXPIRES_MAX_S;
	expires_s = (long)expires;

	/* The state the authorization server is to send back. */
	memset(&cb, 0, sizeof cb);
	callback_url(url, &cb);
	lg.state = cb.state;
	cb.state = NULL;
	callback_clear(&cb);
	lg.url = url;

	fprintf(lg.out, "To sign in to %s, open this address in a browser:\n",
	    out_esc(lg.server));
	fprintf(lg.out, "%s\n", url);
	fprintf(lg.out, "The browser will then be sent back to this machine "
	    "(%s); if it runs elsewhere (as over ssh), paste here the "
	    "address it ends on.\n", redirect);
	if (lg.peeruid == NULL)
		diag_warnx(lg.server, "cannot ask the kernel whose connections "
		    "come to 127.0.0.1:%d (%s), so none is taken and no "
		    "browser is opened: open the address above yourself, and "
		    "paste here the address the browser ends on", lg.port,
		    lg.no_peeruid);
	else if (!ctl->no_browser && login_has_display()) {
		/* Not the URL itself, which every user could read in ps. */
		xasprintf(&start, "http://127.0.0.1:%d%s", lg.port,
		    CALLBACK_START_PATH);
		if ((lg.opener = login_open_browser(start)) == -1)
			diag_warnx(NULL, "cannot start xdg-open: %s; open the "
			    "address above in a browser yourself",
			    strerror(errno));
		else
			fprintf(lg.out, "Opening it in your browser.\n");
	}
	fprintf(lg.out, "Waiting for the sign-in (at most %ld %s; "
	    "Ctrl-C cancels it)...\n", expires_s >= 60 ?
	    (expires_s + 59) / 60 : expires_s, expires_s >= 60 ? "minutes" :
	    "seconds");
	fflush(lg.out);

	lg.in_open = login_stdin_readable();
	rc = login_wait(&lg, clock_now_ms() + (uint64_t)expires_s * 1000,
	    expires_s);
out:
	login_unlisten(&lg, NULL);
	peeruid_close(lg.peeruid);
	free(lg.no_peeruid);
	free(lg.state);
	free(start);
	free(redirect);
	cJSON_Delete(result);
	return (rc);
}

int
login_logout(struct ctl *ctl, int argc, char **argv)
{
	cJSON		*params, *result;
	const char	*how;
	int		 status, revoked, deleted;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", argv[0]);
	if ((result = admin_call_wait(ctl, MCPD_METHOD_LOGOUT, params,
	    LOGIN_REPLY_TIMEOUT_MS, &status)) == NULL) {
		login_unsupported(ctl);
		return (status);
	}
	if (ctl->json)
		admin_print_json(result, 0);
	else {
		revoked = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
		    "revoked"));
		deleted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
		    "deleted"));
		if (revoked)
			how = "the token was revoked";
		else if (deleted)
			how = "not revoked at the authorization server, which "
			    "offers no revocation or refused it; the token "
			    "was deleted here";
		else
			how = "no token was stored";
		printf("Signed out of %s (%s)\n", out_esc(argv[0]), how);
	}
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}
