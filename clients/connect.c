/*
 * connect.c -- attach to a server through mcpd, and the stdio bridge.
 *
 * The bridge is what an MCP client launches instead of the server: after
 * a synchronous mcpd/attach it moves bytes unchanged between stdin and
 * the socket, and between the socket and stdout.  mcpd does the framing;
 * the bridge never looks inside the stream.
 *
 * Invariants: each direction has one ring of CONNECT_BUF_BYTES, filled by
 * readv and drained by writev straight from the ring (no other copy); a
 * side is not read while the ring it feeds is full, so a slow reader
 * slows its writer and memory stays bounded.  Only pipes and sockets are
 * made non-blocking (ttys and files are shared with other processes and
 * are always ready for poll anyway) and their flags are restored on exit.
 * When stdin ends the bridge half-closes the socket and keeps relaying:
 * mcpd answers everything already sent and then closes the connection.
 * When the socket ends, the bridge gives up on stdout after
 * CONNECT_GRACE_MS without a byte moving.
 *
 * Every command of mcpctl reaches mcpd through connect_socket, which
 * sends nothing to a socket another user could have put in place.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "connect.h"
#include "clock.h"
#include "paths.h"
#include "proto.h"
#include "rpc.h"
#include "xmalloc.h"

#define CONNECT_BUF_BYTES		(256 * 1024)	/* per direction */
/* Once the socket has ended: most time stdout may take to drain. */
#define CONNECT_GRACE_MS		2000
#define CONNECT_ATTACH_READ_BYTES	65536
#define CONNECT_ATTACH_MAX_BYTES	(1024 * 1024)
#define CONNECT_ATTACH_ID		"mcpctl-attach"

struct connect_ring {
	char	*buf;
	size_t	 off;		/* first byte held */
	size_t	 len;		/* bytes held */
};

struct connect_fd {
	int	 fd;
	int	 saved_flags;	/* -1: left as it was */
};

static void __attribute__((format(printf, 2, 3)))
connect_warnx(const char *label, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if (label != NULL)
		fprintf(stderr, "mcpctl: %s: %s\n", label, text);
	else
		fprintf(stderr, "mcpctl: %s\n", text);
	free(text);
}

/* mcpctl's one message for a daemon it cannot reach. */
void
connect_unreachable(const char *socket_path, const char *why)
{
	connect_warnx(NULL, "cannot connect to mcpd at %s: %s", socket_path,
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
	connect_warnx(NULL, "$%s: no such user: %s", CONNECT_TRUST_ENV, name);
	return ((uid_t)-1);
}

static int
connect_check_dir(const char *socket_path, uid_t trusted)
{
	char	*dir, *why = NULL, *again = NULL;
	int	 rc = CONNECT_EXIT_OK;

	dir = paths_socket_dir(socket_path);
	if (paths_check_dir(dir, getuid(), &why) == -2 &&
	    (trusted == (uid_t)-1 ||
	    paths_check_dir(dir, trusted, &again) != 0)) {
		connect_warnx(NULL, "refusing %s: its directory %s %s, so "
		    "another user may be posing as mcpd there; remove the "
		    "directory, or choose another socket with -s or $%s",
		    socket_path, dir, why, PATHS_SOCKET_ENV);
		rc = CONNECT_EXIT_UNREACHABLE;
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
		connect_warnx(NULL, "refusing %s: cannot learn who listens "
		    "there: %s", socket_path, strerror(errno));
		return (CONNECT_EXIT_UNREACHABLE);
	}
	if (cred.uid == getuid() || cred.uid == 0 || cred.uid == trusted)
		return (CONNECT_EXIT_OK);
	peer = paths_describe_uid(cred.uid);
	user = paths_describe_uid(getuid());
	connect_warnx(NULL, "refusing %s: the process listening there (pid "
	    "%ld) runs as %s, not as %s or root, and may be posing as mcpd; "
	    "choose another socket with -s or $%s", socket_path,
	    (long)cred.pid, peer, user, PATHS_SOCKET_ENV);
	free(peer);
	free(user);
	return (CONNECT_EXIT_UNREACHABLE);
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
		connect_warnx(NULL, "socket path too long (%zu bytes, at most "
		    "%zu): %s; choose a shorter one with -s or $%s", len,
		    sizeof sun.sun_path - 1, socket_path, PATHS_SOCKET_ENV);
		return (CONNECT_EXIT_UNREACHABLE);
	}
	memcpy(sun.sun_path, socket_path, len + 1);
	trusted = connect_trusted_user();
	if ((rc = connect_check_dir(socket_path, trusted)) != CONNECT_EXIT_OK)
		return (rc);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		if (!quiet)
			connect_unreachable(socket_path, strerror(errno));
		return (CONNECT_EXIT_UNREACHABLE);
	}
	connect_set_send_timeout(fd, CONNECT_ATTACH_TIMEOUT_MS);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		if (!quiet)
			connect_unreachable(socket_path, errno == EAGAIN ?
			    "timed out (mcpd is not accepting connections)" :
			    strerror(errno));
		close(fd);
		return (CONNECT_EXIT_UNREACHABLE);
	}
	if ((rc = connect_check_peer(socket_path, fd, trusted)) !=
	    CONNECT_EXIT_OK) {
		close(fd);
		return (rc);
	}
	*fdp = fd;
	return (CONNECT_EXIT_OK);
}

int
connect_write_all(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return (-1);
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

/* Is this line the answer to our attach request? */
static int
connect_is_attach_reply(const cJSON *msg)
{
	const cJSON	*id;

	if (rpc_classify(msg) != RPC_KIND_RESPONSE)
		return (0);
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsNull(id))
		return (1);	/* an error mcpd could not tie to a request */
	return (cJSON_IsString(id) &&
	    strcmp(id->valuestring, CONNECT_ATTACH_ID) == 0);
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
		connect_warnx(label, "unknown server (`mcpctl status` lists "
		    "the configured ones)");
	else if (cJSON_IsNumber(code) &&
	    code->valueint == RPC_METHOD_NOT_FOUND)
		connect_warnx(label, "this mcpd cannot attach clients to "
		    "servers (%s); is it older than mcpctl?", text);
	else
		connect_warnx(label, "%s", text);
	return (CONNECT_EXIT_FAILED);
}

int
connect_attach(const char *socket_path, const char *server,
    const char *label, int *fdp, char **extra, size_t *extra_len)
{
	cJSON		*id, *params, *msg;
	char		*text = NULL, *buf = NULL, *nl;
	size_t		 len = 0, size = 0, scanned = 0, linelen;
	ssize_t		 n;
	struct pollfd	 pfd;
	uint64_t	 deadline;
	int		 fd = -1, rc, left;

	*extra = NULL;
	*extra_len = 0;
	deadline = clock_now_ms() + CONNECT_ATTACH_TIMEOUT_MS;
	connect_reserve_stdio();
	if ((rc = connect_socket(socket_path, 0, &fd)) != CONNECT_EXIT_OK)
		return (rc);

	id = cJSON_CreateString(CONNECT_ATTACH_ID);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "server", server);
	msg = rpc_make_request(id, MCPD_METHOD_ATTACH, params);
	cJSON_Delete(id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (connect_write_all(fd, text, strlen(text)) != 0 ||
	    connect_write_all(fd, "\n", 1) != 0) {
		connect_warnx(label, "cannot send to mcpd at %s: %s",
		    socket_path, errno == EAGAIN ? "timed out" :
		    strerror(errno));
		rc = CONNECT_EXIT_UNREACHABLE;
		goto fail;
	}

	/*
	 * Read at most one chunk at a time and look at each line as soon as
	 * it is complete, so what follows the reply came in the last read.
	 */
	for (;;) {
		while (len > scanned &&
		    (nl = memchr(buf + scanned, '\n', len - scanned)) != NULL) {
			linelen = (size_t)(nl - buf);
			msg = cJSON_ParseWithLength(buf, linelen);
			len -= linelen + 1;
			memmove(buf, nl + 1, len);
			scanned = 0;
			if (!connect_is_attach_reply(msg)) {
				cJSON_Delete(msg);
				continue;
			}
			if (cJSON_GetObjectItemCaseSensitive(msg, "error") !=
			    NULL) {
				rc = connect_attach_error(label, server,
				    msg);
				cJSON_Delete(msg);
				goto fail;
			}
			cJSON_Delete(msg);
			goto attached;
		}
		scanned = len;
		if (len > CONNECT_ATTACH_MAX_BYTES) {
			connect_warnx(label, "reply to %s from mcpd is too "
			    "long", MCPD_METHOD_ATTACH);
			rc = CONNECT_EXIT_FAILED;
			goto fail;
		}
		if (size - len < CONNECT_ATTACH_READ_BYTES) {
			size = len + CONNECT_ATTACH_READ_BYTES;
			buf = xrealloc(buf, size);
		}
		left = (int)((int64_t)deadline - (int64_t)clock_now_ms());
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (left <= 0 || (n = poll(&pfd, 1, left)) == 0) {
			connect_warnx(label, "no reply to %s from mcpd at %s "
			    "within %d ms", MCPD_METHOD_ATTACH, socket_path,
			    CONNECT_ATTACH_TIMEOUT_MS);
			rc = CONNECT_EXIT_UNREACHABLE;
			goto fail;
		}
		if (n == -1 && errno != EINTR) {
			connect_warnx(label, "poll: %s", strerror(errno));
			rc = CONNECT_EXIT_FAILED;
			goto fail;
		}
		n = read(fd, buf + len, CONNECT_ATTACH_READ_BYTES);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			connect_warnx(label, "mcpd closed the connection "
			    "before answering %s%s%s", MCPD_METHOD_ATTACH,
			    n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			rc = CONNECT_EXIT_UNREACHABLE;
			goto fail;
		}
		len += (size_t)n;
	}

attached:
	connect_set_send_timeout(fd, 0);
	if (len > 0) {
		*extra = buf;
		*extra_len = len;
	} else
		free(buf);
	free(text);
	*fdp = fd;
	return (CONNECT_EXIT_OK);

fail:
	free(buf);
	free(text);
	close(fd);
	return (rc);
}

/*
 * The bridge.
 */

static void
connect_fd_prepare(struct connect_fd *cf, int fd)
{
	struct stat	 sb;
	int		 flags;

	cf->fd = fd;
	cf->saved_flags = -1;
	if (fstat(fd, &sb) != 0 || !(S_ISFIFO(sb.st_mode) ||
	    S_ISSOCK(sb.st_mode)))
		return;
	if ((flags = fcntl(fd, F_GETFL)) == -1 || (flags & O_NONBLOCK))
		return;
	if (fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0)
		cf->saved_flags = flags;
}

static void
connect_fd_restore(struct connect_fd *cf)
{
	if (cf->saved_flags != -1)
		(void)fcntl(cf->fd, F_SETFL, cf->saved_flags);
}

/* Read into the free part of the ring: bytes read, 0 at EOF, -1 (errno). */
static ssize_t
connect_ring_read(struct connect_ring *r, int fd)
{
	struct iovec	 iov[2];
	size_t		 tail, room;
	ssize_t		 n;

	tail = (r->off + r->len) % CONNECT_BUF_BYTES;
	room = CONNECT_BUF_BYTES - r->len;
	iov[0].iov_base = r->buf + tail;
	iov[0].iov_len = CONNECT_BUF_BYTES - tail;
	if (iov[0].iov_len > room)
		iov[0].iov_len = room;
	iov[1].iov_base = r->buf;
	iov[1].iov_len = room - iov[0].iov_len;
	do
		n = readv(fd, iov, iov[1].iov_len > 0 ? 2 : 1);
	while (n == -1 && errno == EINTR);
	if (n > 0)
		r->len += (size_t)n;
	return (n);
}

/* Write what the ring holds: bytes written or -1 (errno). */
static ssize_t
connect_ring_write(struct connect_ring *r, int fd)
{
	struct iovec	 iov[2];
	ssize_t		 n;

	iov[0].iov_base = r->buf + r->off;
	iov[0].iov_len = CONNECT_BUF_BYTES - r->off;
	if (iov[0].iov_len > r->len)
		iov[0].iov_len = r->len;
	iov[1].iov_base = r->buf;
	iov[1].iov_len = r->len - iov[0].iov_len;
	do
		n = writev(fd, iov, iov[1].iov_len > 0 ? 2 : 1);
	while (n == -1 && errno == EINTR);
	if (n > 0) {
		r->off = (r->off + (size_t)n) % CONNECT_BUF_BYTES;
		r->len -= (size_t)n;
		if (r->len == 0)
			r->off = 0;	/* keep the next read in one piece */
	}
	return (n);
}

static int
connect_would_block(void)
{
	return (errno == EAGAIN || errno == EWOULDBLOCK);
}

int
connect_bridge(const char *socket_path, const char *server)
{
	struct connect_ring	 up;		/* stdin to socket */
	struct connect_ring	 down;		/* socket to stdout */
	struct connect_fd	 in, out;
	struct pollfd		 pfd[3];
	char			*label, *extra;
	size_t			 extra_len;
	ssize_t			 n;
	uint64_t		 last_progress;
	int			 sock, rc, in_eof = 0, sock_eof = 0, shut = 0;
	int			 sock_dead = 0, sock_errno = 0, timeout, flags;
	int64_t			 idle;

	signal(SIGPIPE, SIG_IGN);
	xasprintf(&label, "connect %s", server);
	if ((rc = connect_attach(socket_path, server, label, &sock, &extra,
	    &extra_len)) != CONNECT_EXIT_OK) {
		free(label);
		return (rc);
	}

	memset(&up, 0, sizeof up);
	memset(&down, 0, sizeof down);
	up.buf = xmalloc(CONNECT_BUF_BYTES);
	down.buf = xmalloc(CONNECT_BUF_BYTES);
	if (extra_len > CONNECT_BUF_BYTES)
		abort();	/* connect_attach reads less than a ring */
	if (extra_len > 0)
		memcpy(down.buf, extra, extra_len);
	down.len = extra_len;
	free(extra);

	if ((flags = fcntl(sock, F_GETFL)) != -1)
		(void)fcntl(sock, F_SETFL, flags | O_NONBLOCK);
	connect_fd_prepare(&in, STDIN_FILENO);
	connect_fd_prepare(&out, STDOUT_FILENO);
	last_progress = clock_now_ms();

	for (;;) {
		/* Writes first: they make room for the reads below. */
		if (down.len > 0) {
			n = connect_ring_write(&down, STDOUT_FILENO);
			if (n > 0)
				last_progress = clock_now_ms();
			else if (n == -1 && errno == EPIPE) {
				rc = CONNECT_EXIT_OK;	/* the client left */
				goto done;
			} else if (n == -1 && !connect_would_block()) {
				connect_warnx(label, "write stdout: %s",
				    strerror(errno));
				rc = CONNECT_EXIT_FAILED;
				goto done;
			}
		}
		if (up.len > 0 && !sock_dead) {
			n = connect_ring_write(&up, sock);
			if (n > 0)
				last_progress = clock_now_ms();
			else if (n == -1 && !connect_would_block()) {
				/* mcpd is gone; read what it left, then end. */
				sock_dead = 1;
				sock_errno = errno;
				up.len = 0;
			}
		}
		if (in_eof && up.len == 0 && !shut && !sock_dead &&
		    !sock_eof) {
			(void)shutdown(sock, SHUT_WR);
			shut = 1;
			last_progress = clock_now_ms();
		}
		if (sock_eof && down.len == 0)
			break;

		pfd[0].fd = -1;
		pfd[0].events = POLLIN;
		if (!in_eof && !sock_eof && !sock_dead &&
		    up.len < CONNECT_BUF_BYTES)
			pfd[0].fd = STDIN_FILENO;
		pfd[1].fd = sock;
		pfd[1].events = 0;
		if (!sock_eof && down.len < CONNECT_BUF_BYTES)
			pfd[1].events |= POLLIN;
		if (up.len > 0 && !sock_dead)
			pfd[1].events |= POLLOUT;
		if (pfd[1].events == 0)
			pfd[1].fd = -1;	/* or a hangup would spin */
		/* With nothing to write, still notice the client leaving. */
		pfd[2].fd = STDOUT_FILENO;
		pfd[2].events = down.len > 0 ? POLLOUT : 0;

		timeout = -1;
		if (sock_eof || sock_dead) {
			idle = (int64_t)clock_now_ms() -
			    (int64_t)last_progress;
			if (idle >= CONNECT_GRACE_MS)
				break;
			timeout = (int)(CONNECT_GRACE_MS - idle);
		}
		if (poll(pfd, 3, timeout) == -1) {
			if (errno == EINTR)
				continue;
			connect_warnx(label, "poll: %s", strerror(errno));
			rc = CONNECT_EXIT_FAILED;
			goto done;
		}

		if (pfd[2].revents & POLLNVAL) {
			connect_warnx(label, "stdout is not open");
			rc = CONNECT_EXIT_FAILED;
			goto done;
		}
		if (down.len == 0 && (pfd[2].revents & (POLLERR | POLLHUP))) {
			rc = CONNECT_EXIT_OK;	/* the client left */
			goto done;
		}
		if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR) &&
		    (pfd[1].events & POLLIN)) {
			n = connect_ring_read(&down, sock);
			if (n > 0)
				last_progress = clock_now_ms();
			else if (n == 0 || !connect_would_block()) {
				sock_eof = 1;
				if (n == -1 && errno != ECONNRESET)
					sock_errno = errno;
				last_progress = clock_now_ms();
			}
		}
		if (pfd[0].revents != 0) {
			n = connect_ring_read(&up, STDIN_FILENO);
			if (n > 0)
				last_progress = clock_now_ms();
			else if (n == 0 || !connect_would_block()) {
				if (n == -1)
					connect_warnx(label, "read stdin: %s",
					    strerror(errno));
				in_eof = 1;
			}
		}
	}

	/* Here the socket has ended or the grace has passed. */
	if (shut || (in_eof && !sock_eof && !sock_dead))
		rc = CONNECT_EXIT_OK;
	else {
		if (down.len > 0)
			connect_warnx(label, "mcpd closed the connection; "
			    "stdout did not take the last %zu bytes",
			    down.len);
		else if (sock_errno != 0 && sock_errno != EPIPE &&
		    sock_errno != ECONNRESET)
			connect_warnx(label, "mcpd closed the connection: %s",
			    strerror(sock_errno));
		else
			connect_warnx(label, "mcpd closed the connection");
		rc = CONNECT_EXIT_FAILED;
	}

done:
	connect_fd_restore(&in);
	connect_fd_restore(&out);
	close(sock);
	free(up.buf);
	free(down.buf);
	free(label);
	return (rc);
}
