/*
 * envelope_speed.c -- how fast envelope_scan goes over typical shapes.
 *
 * A standalone probe, not a test: it builds a few messages in memory,
 * scans each repeatedly and prints the best rate seen in MB/s (10^6
 * bytes per second) and messages per second.  Build it with optimisation,
 * from the top of the tree with config.h in DIR, for example:
 *
 *	gcc -O2 -IDIR -Isrc src/xmalloc.c src/envelope.c \
 *	    tests/bench/envelope_speed.c -o envelope_speed
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "envelope.h"
#include "xmalloc.h"

#define SPEED_BIG_BYTES		(16 * 1024 * 1024)
#define SPEED_MIN_NS		300000000ULL	/* per round */
#define SPEED_ROUNDS		5
#define SPEED_COLD_COPIES	8	/* of a 16 MiB message: past the L3 */

struct speed_buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static void
buf_add(struct speed_buf *b, const char *s, size_t len)
{
	if (b->len + len > b->cap) {
		while (b->len + len > b->cap)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, len);
	b->len += len;
}

static void
buf_str(struct speed_buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Repeat unit until the buffer holds about size more bytes. */
static void
buf_fill(struct speed_buf *b, const char *unit, size_t size)
{
	size_t	 target = b->len + size, ulen = strlen(unit);

	while (b->len + ulen <= target)
		buf_add(b, unit, ulen);
}

static unsigned long long
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
}

/* Scan the n copies of one message in turn; print the best round. */
static void
run_copies(const char *name, char **copies, size_t n, size_t len)
{
	struct envelope		 env;
	unsigned long long	 start, ns;
	double			 best = 0, rate;
	size_t			 off, iterations, i;
	int			 round;

	for (i = 0; i < n; i++) {
		if (envelope_scan(copies[i], len, &env, &off) != 0) {
			fprintf(stderr, "%s: scan failed at byte %zu\n", name,
			    off);
			exit(1);
		}
	}
	for (round = 0; round < SPEED_ROUNDS; round++) {
		iterations = 0;
		start = now_ns();
		do {
			for (i = 0; i < 16; i++) {
				if (envelope_scan(copies[(iterations + i) % n],
				    len, &env, &off) != 0)
					abort();
			}
			iterations += i;
			ns = now_ns() - start;
		} while (ns < SPEED_MIN_NS);
		rate = (double)len * iterations / ns * 1e3;
		if (rate > best)
			best = rate;
	}
	printf("%-36s %9zu bytes %7.0f MB/s %9.0f msg/s\n", name, len,
	    best, best * 1e6 / len);
}

static void
run(const char *name, const struct speed_buf *b)
{
	char	*p = b->p;

	run_copies(name, &p, 1, b->len);
}

/* Copies that together overflow the caches, so each scan reads memory. */
static void
run_cold(const char *name, const struct speed_buf *b)
{
	char	*copies[SPEED_COLD_COPIES];
	size_t	 i;

	for (i = 0; i < SPEED_COLD_COPIES; i++) {
		copies[i] = xmalloc(b->len);
		memcpy(copies[i], b->p, b->len);
	}
	run_copies(name, copies, SPEED_COLD_COPIES, b->len);
	for (i = 0; i < SPEED_COLD_COPIES; i++)
		free(copies[i]);
}

static void
nested(struct speed_buf *b, int depth)
{
	int	 i;

	for (i = 0; i < depth; i++)
		buf_str(b, i % 2 ? "[" : "{\"k\":");
	buf_str(b, "1");
	for (i = depth - 1; i >= 0; i--)
		buf_str(b, i % 2 ? "]" : "}");
}

int
main(void)
{
	struct speed_buf	 b;
	int			 i;

	memset(&b, 0, sizeof b);
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":"
	    "\"text\",\"text\":\"");
	buf_fill(&b, "The quick brown fox jumps over the lazy dog; "
	    "0123456789 <tag attr='x'> (a+b)*c = d. ", SPEED_BIG_BYTES);
	buf_str(&b, "\"}],\"isError\":false},\"id\":1}");
	run("16 MiB, one ASCII string", &b);
	run_cold("16 MiB, one ASCII string, uncached", &b);

	b.len = 0;
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":"
	    "\"text\",\"text\":\"");
	buf_fill(&b, "{\\\"name\\\": \\\"file.c\\\", \\\"size\\\": 1234, "
	    "\\\"path\\\": \\\"src\\/a\\/b\\\"},\\n", SPEED_BIG_BYTES);
	buf_str(&b, "\"}]},\"id\":1}");
	run("16 MiB, string with escapes", &b);

	b.len = 0;
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":"
	    "\"text\",\"text\":\"");
	buf_fill(&b, "Grüße aus Köln, Привет мир, 你好世界, 🙂 done. ",
	    SPEED_BIG_BYTES);
	buf_str(&b, "\"}]},\"id\":1}");
	run("16 MiB, string of UTF-8 text", &b);

	b.len = 0;
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"items\":[");
	buf_fill(&b, "{\"id\":12,\"ok\":true,\"v\":null,\"x\":-1.5e3,"
	    "\"tags\":[\"a\",\"bc\"],\"p\":{\"q\":[0,1,2]}},", SPEED_BIG_BYTES);
	buf_str(&b, "{}]}}");
	run("16 MiB, small tokens", &b);

	b.len = 0;
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":[");
	while (b.len < SPEED_BIG_BYTES) {
		nested(&b, 500);
		buf_str(&b, ",");
	}
	buf_str(&b, "0]}");
	run("16 MiB, nested 500 deep", &b);

	b.len = 0;
	buf_str(&b, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\","
	    "\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":"
	    "\"/home/user/src/project/README.md\",\"head\":20},\"_meta\":"
	    "{\"progressToken\":42}}}");
	run("small request", &b);

	b.len = 0;
	buf_str(&b, "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"");
	for (i = 0; i < 40; i++)
		buf_str(&b, "line of tool output\\n");
	buf_str(&b, "\"}],\"isError\":false},\"jsonrpc\":\"2.0\",\"id\":42}");
	run("small response", &b);

	free(b.p);
	return (0);
}
