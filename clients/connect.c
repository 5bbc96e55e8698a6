/*
 * connect.c -- reach mcpd: connect to its socket, after making sure that
 * nobody else could be posing as mcpd there, and attach to one of its
 * servers (mcpd/attach) for an MCP session or the bridge.
 *
 * Every command of mcpctl reaches mcpd through connect_socket, which
 * sends nothing to a socket another user could have put in place.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "connect.h"
#include "diag.h"
#include "line.h"
#include "paths.h"
#include "proto.h"
#include "request.h"
#include "rpc.h"

#define CONNECT_ATTACH_MAX_BYTES	(1024 * 1024)
#define CONNECT_ATTACH_ID		"mcpctl-attach"

/* mcpctl's one message for a daemon it cannot reach. */
void
connect_unreachable(const char *socket_path, const char *why)
{
	diag_warnx(NULL, "cannot connect to mcpd at %s: %s", socket_path,
	    why);
	fprintf(stderr, "Is mcpd running? Start it with "
	    "`systemctl --user start mcpd.socket` (or `systemctl "
	    "start mcpd` as root),\nor run `mcpd -s %s` yourself; "
	    "-s or $%s choose another socket.\n", socket_path,
	    PATHS_SOCKET_ENV);
}

static void
connect_set_send_timeout(int fd, int ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/*
 * A closed stdin, stdout or stderr would be reused by the socket, and
 * session bytes or messages would go to the wrong place: fill the hole.
 */
static void
connect_reserve_stdio(void)
{
	int	 fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF)
			(void)open("/dev/null", O_RDWR);
	}
}

/*
 * Whoever can create the socket's name can pose as mcpd and receive what
 * mcpctl sends (tool arguments, session bytes), so before sending
 * anything mcpctl wants the socket's directory to pass paths_check_dir
 * (owned by us or root, writable by nobody else: the rule mcpd applies to
 * its own socket), and the process that listens on it to run as us or as
 * root.  systemd's socket units listen as root, so members of a
 * socket_group reach the system mcpd through /run/mcpd.  Trusting the
 * mcpd of another ordinary user (one that shares its socket with a
 * socket_group) takes naming that user in CONNECT_TRUST_ENV.  A directory
 * that cannot be examined is left to connect() to report.
 */
static uid_t
connect_trusted_user(void)
{
	const char	*name = getenv(CONNECT_TRUST_ENV);
	struct passwd	*pw;

	if (name == NULL || *name == '\0')
		return ((uid_t)-1);
	if ((pw = getpwnam(name)) != NULL)
		return (pw->pw_uid);
	diag_warnx(NULL, "$%s: no such user: %s", CONNECT_TRUST_ENV, name);
	return ((uid_t)-1);
}

static int
connect_check_dir(const char *socket_path, uid_t trusted)
{
	char	*dir, *why = NULL, *again = NULL;
	int	 rc = DIAG_EXIT_OK;

	dir = paths_socket_dir(socket_path);
	if (paths_check_dir(dir, getuid(), &why) == -2 &&
	    (trusted == (uid_t)-1 ||
	    paths_check_dir(dir, trusted, &again) != 0)) {
		diag_warnx(NULL, "refusing %s: its directory %s %s, so "
		    "another user may be posing as mcpd there; remove the "
		    "directory, or choose another socket with -s or $%s",
		    socket_path, dir, why, PATHS_SOCKET_ENV);
		rc = DIAG_EXIT_UNREACHABLE;
	}
	free(again);
	free(why);
	free(dir);
	return (rc);
}

static int
connect_check_peer(const char *socket_path, int fd, uid_t trusted)
{
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	char		*peer, *user;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		diag_warnx(NULL, "refusing %s: cannot learn who listens "
		    "there: %s", socket_path, strerror(errno));
		return (DIAG_EXIT_UNREACHABLE);
	}
	if (cred.uid == getuid() || cred.uid == 0 || cred.uid == trusted)
		return (DIAG_EXIT_OK);
	peer = paths_describe_uid(cred.uid);
	user = paths_describe_uid(getuid());
	diag_warnx(NULL, "refusing %s: the process listening there (pid "
	    "%ld) runs as %s, not as %s or root, and may be posing as mcpd; "
	    "choose another socket with -s or $%s", socket_path,
	    (long)cred.pid, peer, user, PATHS_SOCKET_ENV);
	free(peer);
	free(user);
	return (DIAG_EXIT_UNREACHABLE);
}

/*
 * A blocking AF_UNIX connect waits for room in the listen backlog; the
 * send timeout bounds that wait (and the write of the attach request).
 * quiet: no message if mcpd cannot be reached (a socket that is not to
 * be trusted is always reported).
 */
int
connect_socket(const char *socket_path, int quiet, int *fdp)
{
	struct sockaddr_un	 sun;
	size_t			 len = strlen(socket_path);
	uid_t			 trusted;
	int			 fd, rc;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (len >= sizeof sun.sun_path) {
		diag_warnx(NULL, "socket path too long (%zu bytes, at most "
		    "%zu): %s; choose a shorter one with -s or $%s", len,
		    sizeof sun.sun_path - 1, socket_path, PATHS_SOCKET_ENV);
		return (DIAG_EXIT_UNREACHABLE);
	}
	memcpy(sun.sun_path, socket_path, len + 1);
	trusted = connect_trusted_user();
	if ((rc = connect_check_dir(socket_path, trusted)) != DIAG_EXIT_OK)
		return (rc);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		if (!quiet)
			connect_unreachable(socket_path, strerror(errno));
		return (DIAG_EXIT_UNREACHABLE);
	}
	connect_set_send_timeout(fd, CONNECT_ATTACH_TIMEOUT_MS);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		if (!quiet)
			connect_unreachable(socket_path, errno == EAGAIN ?
			    "timed out (mcpd is not accepting connections)" :
			    strerror(errno));
		close(fd);
		return (DIAG_EXIT_UNREACHABLE);
	}
	if ((rc = connect_check_peer(socket_path, fd, trusted)) !=
	    DIAG_EXIT_OK) {
		close(fd);
		return (rc);
	}
	*fdp = fd;
	return (DIAG_EXIT_OK);
}

static int
connect_attach_error(const char *label, const char *server,
    const cJSON *reply)
{
	const cJSON	*error, *code, *message;
	const char	*text;
	size_t		 len = strlen(server);

	error = cJSON_GetObjectItemCaseSensitive(reply, "error");
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	message = cJSON_GetObjectItemCaseSensitive(error, "message");
	text = cJSON_IsString(message) ? message->valuestring :
	    "mcpd refused to attach";
	/* The label already names the server. */
	if (strncmp(text, server, len) == 0 &&
	    strncmp(text + len, ": ", 2) == 0)
		text += len + 2;
	if (cJSON_IsNumber(code) && code->valueint == MCPD_ERR_UNKNOWN_SERVER)
		diag_warnx(label, "unknown server or group (`mcpctl "
		    "status` lists the configured ones)");
	else if (cJSON_IsNumber(code) &&
	    code->valueint == RPC_METHOD_NOT_FOUND)
		diag_warnx(label, "this mcpd cannot attach clients to "
		    "servers (%s); is it older than mcpctl?", text);
	else
		diag_warnx(label, "%s", text);
	return (DIAG_EXIT_FAILED);
}

/* The attach request went unanswered: say why, return the exit code. */
static int
connect_attach_failed(const char *label, const char *socket_path,
    enum request_status status, const struct request *req)
{
	switch (status) {
	case REQUEST_UNSENT:
		diag_warnx(label, "cannot send to mcpd at %s: %s", socket_path,
		    req->error == EAGAIN ? "timed out" : strerror(req->error));
		return (DIAG_EXIT_UNREACHABLE);
	case REQUEST_TIMEOUT:
		diag_warnx(label, "no reply to %s from mcpd at %s within %d ms",
		    MCPD_METHOD_ATTACH, socket_path, CONNECT_ATTACH_TIMEOUT_MS);
		return (DIAG_EXIT_UNREACHABLE);
	case REQUEST_CLOSED:
		diag_warnx(label, "mcpd closed the connection before answering "
		    "%s%s%s", MCPD_METHOD_ATTACH, req->error != 0 ? ": " : "",
		    req->error != 0 ? strerror(req->error) : "");
		return (DIAG_EXIT_UNREACHABLE);
	case REQUEST_TOO_LONG:
	case REQUEST_GARBAGE:
		diag_warnx(label, "reply to %s from mcpd is too long",
		    MCPD_METHOD_ATTACH);
		return (DIAG_EXIT_FAILED);
	case REQUEST_POLL_ERROR:
		diag_warnx(label, "poll: %s", strerror(req->error));
		return (DIAG_EXIT_FAILED);
	case REQUEST_REPLY:
		break;
	}
	return (DIAG_EXIT_OK);
}

int
connect_attach(const char *socket_path, const char *server,
    const char *label, int *fdp, char **extra, size_t *extra_len)
{
	return (connect_attach_try(socket_path, server, label, 0, fdp, extra,
	    extra_len, NULL));
}

int
connect_attach_try(const char *socket_path, const char *server,
    const char *label, int quiet, int *fdp, char **extra, size_t *extra_len,
    char *principal)
{
	const cJSON		*given;
	struct request		 req;
	enum request_status	 status;
	struct line		*line;
	uint64_t		 deadline;
	int64_t			 left;
	int			 fd, rc;

	*extra = NULL;
	*extra_len = 0;
	deadline = clock_now_ms() + CONNECT_ATTACH_TIMEOUT_MS;
	connect_reserve_stdio();
	if ((rc = connect_socket(socket_path, quiet, &fd)) != DIAG_EXIT_OK)
		return (rc);
	line = line_new(fd, CONNECT_ATTACH_MAX_BYTES, NULL, 0);

	memset(&req, 0, sizeof req);
	req.id = cJSON_CreateString(CONNECT_ATTACH_ID);
	req.method = MCPD_METHOD_ATTACH;
	req.params = cJSON_CreateObject();
	cJSON_AddStringToObject(req.params, "server", server);
	if (principal != NULL && principal[0] != '\0')
		cJSON_AddStringToObject(req.params, "principal", principal);
	else if (principal != NULL)
		cJSON_AddTrueToObject(req.params, "principal");
	left = (int64_t)deadline - (int64_t)clock_now_ms();
	req.timeout_ms = left > 0 ? (int)left : 0;	/* connecting counts */
	req.null_id = 1;		/* an error mcpd could not tie to us */
	req.any_oversize = 1;		/* mcpd sends nothing else first */
	status = request_run(line, &req);
	cJSON_Delete((cJSON *)req.id);
	if (status != REQUEST_REPLY && quiet && (status == REQUEST_UNSENT ||
	    status == REQUEST_TIMEOUT || status == REQUEST_CLOSED))
		rc = DIAG_EXIT_UNREACHABLE;
	else if (status != REQUEST_REPLY)
		rc = connect_attach_failed(label, socket_path, status, &req);
	else if (cJSON_GetObjectItemCaseSensitive(req.reply, "error") != NULL)
		rc = connect_attach_error(label, server, req.reply);
	else if (principal != NULL) {
		/* Held in memory only: never in argv or the environment. */
		given = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(req.reply, "result"),
		    "principal");
		if (cJSON_IsString(given) &&
		    strlen(given->valuestring) == CONNECT_PRINCIPAL_LEN)
			memcpy(principal, given->valuestring,
			    CONNECT_PRINCIPAL_LEN + 1);
		else
			principal[0] = '\0';
	}
	cJSON_Delete(req.reply);
	if (rc != DIAG_EXIT_OK) {
		line_free(line);
		return (rc);
	}

	/* What follows the reply came in the same read: the session's. */
	fd = line_release(line, extra, extra_len);
	connect_set_send_timeout(fd, 0);
	*fdp = fd;
	return (DIAG_EXIT_OK);
}
