/*
 * fastecho.c -- the fastest plausible MCP server, for throughput runs.
 *
 * It reads newline-delimited JSON-RPC on stdin and answers on stdout:
 * initialize with a minimal valid result, tools/call echo with the text it
 * was given, and every other request with an empty result.  The request id
 * is copied back byte for byte.  Notifications and responses are ignored.
 * Replies to everything read in one go are written with one write(2), so
 * the server costs a few hundred nanoseconds per request and the relay in
 * front of it is what a throughput run measures.
 *
 *	fastecho [--pidfile=FILE]
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jscan.h"

#define FASTECHO_READ_BYTES	(256 * 1024)

struct fastecho_buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static void
fastecho_reserve(struct fastecho_buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	while (b->len + more > b->cap)
		b->cap = b->cap ? b->cap * 2 : 65536;
	if ((b->p = realloc(b->p, b->cap)) == NULL) {
		perror("fastecho: realloc");
		exit(1);
	}
}

static void
fastecho_add(struct fastecho_buf *b, const char *s, size_t len)
{
	fastecho_reserve(b, len);
	memcpy(b->p + b->len, s, len);
	b->len += len;
}

static void
fastecho_str(struct fastecho_buf *b, const char *s)
{
	fastecho_add(b, s, strlen(s));
}

static void
fastecho_flush(struct fastecho_buf *out)
{
	size_t	 off = 0;
	ssize_t	 n;

	while (off < out->len) {
		n = write(STDOUT_FILENO, out->p + off, out->len - off);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			exit(errno == EPIPE ? 0 : 1);
		}
		off += n;
	}
	out->len = 0;
}

/* The echoed text of a tools/call echo, or NULL for anything else. */
static int
fastecho_echo_text(struct jscan_span params, struct jscan_span *text)
{
	struct jscan_span	 name, args;

	if (jscan_member(params, "name", &name) != 0 ||
	    !jscan_is(name, "\"echo\""))
		return (-1);
	if (jscan_member(params, "arguments", &args) != 0 ||
	    jscan_member(args, "text", text) != 0 || text->p[0] != '"')
		return (-1);
	return (0);
}

static void
fastecho_line(const char *line, size_t len, struct fastecho_buf *out)
{
	static const char *const keys[] = { "id", "method", "params" };
	struct jscan_span	 f[3], text;

	if (jscan_fields(line, len, keys, f, 3) != 0)
		return;
	if (f[0].p == NULL || f[1].p == NULL || jscan_is(f[0], "null"))
		return;
	fastecho_str(out, "{\"jsonrpc\":\"2.0\",\"id\":");
	fastecho_add(out, f[0].p, f[0].len);
	if (jscan_is(f[1], "\"initialize\"")) {
		fastecho_str(out, ",\"result\":{\"protocolVersion\":"
		    "\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
		    "\"serverInfo\":{\"name\":\"fastecho\",\"version\":"
		    "\"1.0\"}}}\n");
	} else if (jscan_is(f[1], "\"tools/call\"") &&
	    fastecho_echo_text(f[2], &text) == 0) {
		fastecho_str(out, ",\"result\":{\"content\":[{\"type\":"
		    "\"text\",\"text\":");
		fastecho_add(out, text.p, text.len);
		fastecho_str(out, "}]}}\n");
	} else
		fastecho_str(out, ",\"result\":{}}\n");
}

int
main(int argc, char **argv)
{
	struct fastecho_buf	 in, out;
	const char		*nl;
	size_t			 start, scanned;
	ssize_t			 n;
	FILE			*f;
	int			 i;

	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--pidfile=", 10) == 0) {
			if ((f = fopen(argv[i] + 10, "w")) == NULL) {
				perror(argv[i] + 10);
				return (1);
			}
			fprintf(f, "%ld\n", (long)getpid());
			fclose(f);
		} else {
			fprintf(stderr, "usage: fastecho [--pidfile=FILE]\n");
			return (2);
		}
	}

	memset(&in, 0, sizeof in);
	memset(&out, 0, sizeof out);
	scanned = 0;
	for (;;) {
		fastecho_reserve(&in, FASTECHO_READ_BYTES);
		n = read(STDIN_FILENO, in.p + in.len, in.cap - in.len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		in.len += n;

		start = 0;
		while ((nl = memchr(in.p + scanned, '\n',
		    in.len - scanned)) != NULL) {
			fastecho_line(in.p + start, nl - (in.p + start), &out);
			start = nl + 1 - in.p;
			scanned = start;
		}
		scanned = in.len;
		memmove(in.p, in.p + start, in.len - start);
		in.len -= start;
		scanned -= start;
		fastecho_flush(&out);
	}
	free(in.p);
	free(out.p);
	return (0);
}
