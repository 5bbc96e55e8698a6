/*
 * minrelay.c -- the physical-limit baseline for mcpd's benchmark.
 *
 * The same hops as mcpd and nothing else: accept a client on an AF_UNIX
 * stream socket, spawn the server with pipes on its stdin and stdout, and
 * copy bytes with plain blocking read(2) and write(2): one read and one
 * write per batch, no event loop, no poll.  One thread per connection
 * serves it alone, and each connection gets its own server process (ids
 * cannot be shared without parsing).
 *
 *	minrelay [-H] SOCKET COMMAND [ARG...]
 *
 * With -H the relay holds what the server writes until a line is whole
 * and only then writes it to the client, in a buffer kept from line to
 * line.  That is the least any proxy pays that must see a reply's id
 * before it knows whom the reply is for (mcpd must, and the id may come
 * last): the floor for a large reply, where the plain relay streams it.
 *
 * Knowing which side to read without polling takes one fact per line:
 * whether the client's line is a request (a reply will come) and whether
 * the server's line is a reply.  The relay reads the server while replies
 * are owed and the client otherwise.  It decides from the first
 * MINRELAY_HEAD_BYTES of each line: a client line with "id" and "method"
 * there is a request, a server line without "method" there is a reply.
 * That holds for mcpload and the benchmark's servers, which write
 * jsonrpc, id and method first; it is no JSON parser and needs none.
 *
 * The socket appears at SOCKET only once it is listening (it is bound
 * under a temporary name and renamed), so a caller may connect as soon as
 * the path exists.  When a client closes its end, the server's stdin is
 * closed and what the server still writes is relayed until its stdout
 * ends.
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MINRELAY_BUF_BYTES	(256 * 1024)
#define MINRELAY_HEAD_BYTES	64

/* The start of the line being relayed in one direction. */
struct minrelay_line {
	char	 head[MINRELAY_HEAD_BYTES];
	size_t	 len;
};

struct minrelay_conn {
	int			 client_fd;
	int			 to_server_fd;
	int			 from_server_fd;
	pid_t			 server_pid;
	long			 owed;		/* replies the client waits for */
	struct minrelay_line	 up, down;
	char			*hold;		/* -H: the server's partial line */
	size_t			 hold_len, hold_cap;
};

static char	**minrelay_argv;
static int	  minrelay_hold_lines;

static void
minrelay_fatal(const char *what)
{
	fprintf(stderr, "minrelay: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int
minrelay_write_all(int fd, const char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		p += n;
		len -= n;
	}
	return (0);
}

static int
minrelay_has(const struct minrelay_line *l, const char *what)
{
	return (memmem(l->head, l->len, what, strlen(what)) != NULL);
}

/* A line ended: count a request (up) or a reply (down). */
static void
minrelay_line_end(struct minrelay_conn *c, struct minrelay_line *l, int up)
{
	if (up) {
		if (minrelay_has(l, "\"id\"") && minrelay_has(l, "\"method\""))
			c->owed++;
	} else if (!minrelay_has(l, "\"method\"") && c->owed > 0)
		c->owed--;
	l->len = 0;
}

/* Note the line heads in buf[0, n): only their first bytes are copied. */
static void
minrelay_lines(struct minrelay_conn *c, struct minrelay_line *l, int up,
    const char *buf, size_t n)
{
	const char	*p = buf, *end = buf + n, *nl;
	size_t		 take;

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (l->len < MINRELAY_HEAD_BYTES) {
			take = (nl != NULL ? nl : end) - p;
			if (take > MINRELAY_HEAD_BYTES - l->len)
				take = MINRELAY_HEAD_BYTES - l->len;
			memcpy(l->head + l->len, p, take);
			l->len += take;
		}
		if (nl == NULL)
			break;
		minrelay_line_end(c, l, up);
		p = nl + 1;
	}
}

/*
 * -H: read the server into the hold buffer and write only whole lines.
 * 0, or -1 when the server is gone or the client cannot be written.
 */
static int
minrelay_hold_read(struct minrelay_conn *c)
{
	const char	*nl;
	ssize_t		 n;
	size_t		 whole;

	if (c->hold_cap - c->hold_len < MINRELAY_BUF_BYTES) {
		c->hold_cap = c->hold_cap == 0 ? 2 * MINRELAY_BUF_BYTES :
		    2 * c->hold_cap;
		if ((c->hold = realloc(c->hold, c->hold_cap)) == NULL)
			minrelay_fatal("realloc");
	}
	while ((n = read(c->from_server_fd, c->hold + c->hold_len,
	    c->hold_cap - c->hold_len)) == -1 && errno == EINTR)
		;
	if (n <= 0)
		return (-1);
	minrelay_lines(c, &c->down, 0, c->hold + c->hold_len, n);
	nl = memrchr(c->hold + c->hold_len, '\n', n);
	c->hold_len += n;
	if (nl == NULL)
		return (0);
	whole = nl + 1 - c->hold;
	if (minrelay_write_all(c->client_fd, c->hold, whole) != 0)
		return (-1);
	memmove(c->hold, c->hold + whole, c->hold_len - whole);
	c->hold_len -= whole;
	return (0);
}

static void *
minrelay_conn_main(void *arg)
{
	struct minrelay_conn	*c = arg;
	char			*buf;
	ssize_t			 n;
	int			 up, status;

	if ((buf = malloc(MINRELAY_BUF_BYTES)) == NULL)
		minrelay_fatal("malloc");
	for (;;) {
		up = c->owed == 0 && c->to_server_fd != -1;
		if (!up && minrelay_hold_lines) {
			if (minrelay_hold_read(c) != 0)
				break;
			continue;
		}
		n = read(up ? c->client_fd : c->from_server_fd, buf,
		    MINRELAY_BUF_BYTES);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!up)
				break;		/* the server is gone */
			/* The client is done: let the server finish. */
			close(c->to_server_fd);
			c->to_server_fd = -1;
			continue;
		}
		minrelay_lines(c, up ? &c->up : &c->down, up, buf, n);
		if (minrelay_write_all(up ? c->to_server_fd : c->client_fd,
		    buf, n) != 0)
			break;
	}
	free(buf);
	free(c->hold);
	shutdown(c->client_fd, SHUT_RDWR);
	close(c->client_fd);
	if (c->to_server_fd != -1)
		close(c->to_server_fd);
	close(c->from_server_fd);
	while (waitpid(c->server_pid, &status, 0) == -1 && errno == EINTR)
		;
	free(c);
	return (NULL);
}

static pid_t
minrelay_spawn(int *to_server, int *from_server)
{
	int	 in[2], out[2];
	pid_t	 pid;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		minrelay_fatal("pipe2");
	switch (pid = fork()) {
	case -1:
		minrelay_fatal("fork");
		break;
	case 0:
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1)
			_exit(127);
		execvp(minrelay_argv[0], minrelay_argv);
		fprintf(stderr, "minrelay: exec %s: %s\n", minrelay_argv[0],
		    strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to_server = in[1];
	*from_server = out[0];
	return (pid);
}

static int
minrelay_listen(const char *path)
{
	struct sockaddr_un	 sun;
	char			 tmp[sizeof sun.sun_path];
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid()) >=
	    (int)sizeof tmp) {
		fprintf(stderr, "minrelay: %s: socket path too long\n", path);
		exit(1);
	}
	memcpy(sun.sun_path, tmp, strlen(tmp) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		minrelay_fatal("socket");
	unlink(tmp);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1)
		minrelay_fatal(tmp);
	if (listen(fd, 128) == -1)
		minrelay_fatal("listen");
	if (rename(tmp, path) == -1)
		minrelay_fatal(path);
	return (fd);
}

int
main(int argc, char **argv)
{
	struct minrelay_conn	*c;
	pthread_attr_t		 attr;
	pthread_t		 thread;
	int			 listen_fd, fd;

	if (argc > 1 && strcmp(argv[1], "-H") == 0) {
		minrelay_hold_lines = 1;
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr,
		    "usage: minrelay [-H] SOCKET COMMAND [ARG...]\n");
		return (2);
	}
	minrelay_argv = argv + 2;
	signal(SIGPIPE, SIG_IGN);
	listen_fd = minrelay_listen(argv[1]);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		if ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			minrelay_fatal("accept");
		}
		if ((c = calloc(1, sizeof *c)) == NULL)
			minrelay_fatal("calloc");
		c->client_fd = fd;
		c->server_pid = minrelay_spawn(&c->to_server_fd,
		    &c->from_server_fd);
		if (pthread_create(&thread, &attr, minrelay_conn_main, c) != 0)
			minrelay_fatal("pthread_create");
	}
}
