/*
 * mcpload.c -- load generator and routing checker for MCP sessions.
 *
 * It opens N connections to one target, sets each up as an MCP client
 * would (mcpd/attach when talking to mcpd, then initialize and
 * notifications/initialized), keeps K requests in flight on each and
 * checks every reply:
 *
 * - its id is one this connection has in flight, with the exact JSON text
 *   sent (ids are numbered per connection from 1, so with several clients
 *   the same ids are in flight on every connection at once);
 * - for echo, the echoed text names the connection and the request
 *   ("c3-r17-xxxx"), so a reply delivered to the wrong client is caught
 *   even when the ids collide;
 * - no request is answered twice, and none is left unanswered;
 * - with --progress, every notifications/progress carries the exact token
 *   of a request in flight on this connection (and a finished sleep has
 *   had exactly one per 100 ms slice);
 * - with --cancel-every N, every Nth request is followed at once by
 *   notifications/cancelled for it: it is then no longer waited for, and
 *   may get one answer (the reply was already on its way) but never two,
 *   and that answer is checked like any other.
 *
 * --method mixed interleaves echo with short sleeps (every Nth request),
 * so progress, queued work and cancellation meet in one run; --rate caps
 * the send rate so a fixed number of requests spans a predictable time.
 *
 * Round-trip times go into a log-linear histogram (about 1.5 % steps).
 * Targets: --stdio runs the server itself (the "direct" baseline, one
 * server per connection), --relay-socket talks to minrelay (one server per
 * connection), --socket talks to mcpd (one shared server).
 *
 * Plain C and poll(2) over non-blocking descriptors; one thread, so the
 * generator's own cost per request stays well under a microsecond.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jscan.h"

#define LOAD_READ_MIN_BYTES	(64 * 1024)
#define LOAD_SLOTS_MIN		64
#define LOAD_ANOMALIES_SHOWN	10
#define LOAD_ANOMALY_BYTES	200
#define LOAD_ERROR_CODES_MAX	16
#define LOAD_POLL_MAX_MS	100
#define LOAD_REAP_WAIT_MS	2000
#define LOAD_PROGRESS_SLICE_MS	100	/* mcp-fake reports per slice */
#define LOAD_ID_BYTES		48
#define LOAD_ERROR_MESSAGE_BYTES 512

#define HIST_SUB_BITS		6
#define HIST_SUB		(1 << HIST_SUB_BITS)
#define HIST_BUCKETS		((64 - HIST_SUB_BITS + 1) * HIST_SUB)

#define NS_PER_MS		1000000ULL
#define NS_PER_S		1000000000ULL

enum load_target {
	TARGET_NONE,
	TARGET_STDIO,
	TARGET_SOCKET,
	TARGET_RELAY,
};

enum load_method {
	METHOD_PING,
	METHOD_ECHO,
	METHOD_BIG,
	METHOD_SLEEP,
	METHOD_MIXED,	/* echo, and every sleep_every-th request a sleep */
	METHOD_LIST,	/* tools/list, its first page */
};

enum load_ids {
	IDS_SAME,
	IDS_STRING,
	IDS_MIXED,
};

enum conn_state {
	CONN_ATTACHING,
	CONN_INITIALIZING,
	CONN_READY,
	CONN_CLOSED,
};

struct load_opts {
	enum load_target	 target;
	const char		*socket_path;
	const char		*server;
	char			**argv;
	int			 clients;
	int			 inflight;
	long long		 requests;	/* -1: by duration */
	long long		 duration_ms;
	enum load_method	 method;
	long long		 size;
	long long		 sleep_ms;
	long long		 sleep_every;
	long long		 cancel_every;
	long long		 rate;		/* requests/s; 0: unlimited */
	enum load_ids		 ids;
	int			 progress;
	int			 modern;	/* MCP 2026-07-28: no initialize */
	int			 allow_errors;
	int			 json;
	const char		*label;
	const char		*tool_prefix;	/* a group's "SERVER__" */
	long long		 warmup_ms;
	long long		 drain_ms;
	long long		 hold_ms;
	long long		 setup_timeout_ms;
	const char		*ready_file;
	const char		*kill_pidfile;
	long long		 kill_pid;
	long long		 kill_after_ms;
};

struct load_buf {
	char		*p;
	size_t		 len;
	size_t		 cap;
};

struct load_slot {
	uint64_t	 n;		/* request number; 0: free */
	uint64_t	 sent_ns;
	uint32_t	 progress;
};

struct load_conn {
	int			 index;
	int			 rfd;
	int			 wfd;
	pid_t			 pid;		/* --stdio server */
	enum conn_state		 state;
	struct load_buf		 in;
	size_t			 in_scanned;
	struct load_buf		 out;
	size_t			 out_off;
	uint64_t		 next_n;
	unsigned		 inflight;
	struct load_slot	*slots;
	size_t			 slot_mask;
	uint8_t			*done;		/* answered, by number */
	size_t			 done_bytes;
	uint8_t			*cancelled;	/* cancelled, by number */
	size_t			 cancelled_bytes;
};

struct load_hist {
	uint64_t	 count;
	uint64_t	 max;
	uint64_t	 b[HIST_BUCKETS];
};

struct load_error_code {
	long long	 code;
	uint64_t	 count;
	char		 message[LOAD_ERROR_MESSAGE_BYTES]; /* first, as JSON */
	size_t		 message_len;
};

struct load_stats {
	uint64_t		 sent;
	uint64_t		 ok;
	uint64_t		 errors;
	uint64_t		 misrouted;
	uint64_t		 unknown;
	uint64_t		 duplicates;
	uint64_t		 corrupt;
	uint64_t		 missing;
	uint64_t		 cancelled;	/* requests cancelled */
	uint64_t		 cancelled_ok;	/* ... answered anyway */
	uint64_t		 cancelled_errors;
	uint64_t		 progress_after_cancel;
	uint64_t		 sleeps;	/* sleep requests sent */
	uint64_t		 progress_ok;
	uint64_t		 progress_misrouted;
	uint64_t		 progress_wrong_count;
	uint64_t		 server_requests;
	uint64_t		 notifications;
	uint64_t		 conn_lost;
	struct load_error_code	 codes[LOAD_ERROR_CODES_MAX];
	size_t			 ncodes;
	uint64_t		 codes_other;
	uint64_t		 measured;
	uint64_t		 measured_rx_bytes;
	uint64_t		 rx_bytes;
	uint64_t		 tx_bytes;
	uint64_t		 first_measured_ns;
	uint64_t		 last_reply_ns;
	struct load_hist	 rtt;
	struct load_hist	 kill;
	unsigned		 anomalies;
};

struct load {
	struct load_opts	 o;
	struct load_conn	*conns;
	struct pollfd		*pfds;
	struct load_stats	 st;
	uint64_t		 start_ns;
	uint64_t		 setup_ns;	/* connect to all set up */
	uint64_t		 warm_ns;
	uint64_t		 send_end_ns;	/* 0: by budget */
	uint64_t		 kill_at_ns;
	uint64_t		 kill_ns;	/* when SIGKILL went out */
	long long		 killed_pid;
	long long		 budget;	/* -1: unlimited */
	int			 sending;
	uint64_t		 total_inflight;
	int			 open_conns;
	long long		 echo_pad;
	char			*pad;		/* echo_pad 'x' */
};

static const char	*load_method_names[] = {
	"ping", "echo", "big", "sleep", "mixed", "list"
};
static const char	*load_ids_names[] = { "same", "string", "mixed" };

static void __attribute__((noreturn, format(printf, 1, 2)))
load_fatal(const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "mcpload: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

static void *
load_realloc(void *p, size_t size)
{
	if ((p = realloc(p, size)) == NULL)
		load_fatal("out of memory (%zu bytes)", size);
	return (p);
}

static uint64_t
load_now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec);
}

/* Histogram: exact below HIST_SUB, then HIST_SUB steps per power of two. */
static size_t
hist_index(uint64_t v)
{
	int	 e;

	if (v < HIST_SUB)
		return (v);
	e = 63 - __builtin_clzll(v);
	return ((size_t)(e - HIST_SUB_BITS + 1) * HIST_SUB +
	    ((v >> (e - HIST_SUB_BITS)) & (HIST_SUB - 1)));
}

static double
hist_value(size_t i)
{
	uint64_t	 e, sub, low, width;

	if (i < HIST_SUB)
		return ((double)i);
	e = i / HIST_SUB + HIST_SUB_BITS - 1;
	sub = i % HIST_SUB;
	width = 1ULL << (e - HIST_SUB_BITS);
	low = (HIST_SUB + sub) * width;
	return ((double)low + (double)width / 2);
}

static void
hist_add(struct load_hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

/* The q-quantile in ns (0 when empty). */
static double
hist_quantile(const struct load_hist *h, double q)
{
	uint64_t	 rank, seen = 0;
	size_t		 i;

	if (h->count == 0)
		return (0);
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			if (hist_value(i) > (double)h->max)
				return ((double)h->max);
			return (hist_value(i));
		}
	}
	return ((double)h->max);
}

static void
buf_reserve(struct load_buf *b, size_t more)
{
	size_t	 cap = b->cap;

	if (b->len + more <= b->cap)
		return;
	while (b->len + more > cap)
		cap = cap ? cap * 2 : 65536;
	b->p = load_realloc(b->p, cap);
	b->cap = cap;
}

static void
buf_add(struct load_buf *b, const char *s, size_t len)
{
	buf_reserve(b, len);
	memcpy(b->p + b->len, s, len);
	b->len += len;
}

static void
buf_str(struct load_buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
buf_printf(struct load_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	buf_reserve(b, 256);
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		load_fatal("vsnprintf failed");
	if ((size_t)n >= b->cap - b->len) {
		buf_reserve(b, n + 1);
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += n;
}

/* The JSON text of request n's id. */
static size_t
load_id_text(const struct load *l, uint64_t n, char *out, size_t size)
{
	unsigned long long	 u = n;
	int			 len;

	switch (l->o.ids) {
	case IDS_SAME:
		len = snprintf(out, size, "%llu", u);
		break;
	case IDS_STRING:
		len = snprintf(out, size, "\"r-%llu\"", u);
		break;
	default:
		if (n % 3 == 0)
			len = snprintf(out, size, "%llu", u);
		else if (n % 3 == 1)
			len = snprintf(out, size, "\"m-%llu\"", u);
		else
			len = snprintf(out, size, "%llu.5", u);
		break;
	}
	return ((size_t)len);
}

/*
 * The progress token of request n: the id itself, except that a
 * fractional id (not a valid token) becomes the string of its digits.
 */
static size_t
load_token_text(const struct load *l, uint64_t n, char *out, size_t size)
{
	size_t	 len;

	len = load_id_text(l, n, out, size);
	if (out[0] != '"' && memchr(out, '.', len) != NULL)
		len = snprintf(out, size, "\"%llu.5\"", (unsigned long long)n);
	return (len);
}

/* The request number an id or token names: its first run of digits. */
static uint64_t
load_number(struct jscan_span s)
{
	uint64_t	 n = 0;
	size_t		 i = 0;

	while (i < s.len && (s.p[i] < '0' || s.p[i] > '9'))
		i++;
	if (i == s.len)
		return (0);
	for (; i < s.len && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
		if (n > UINT64_MAX / 10 - 10)
			return (0);
		n = n * 10 + (s.p[i] - '0');
	}
	return (n);
}

static void __attribute__((format(printf, 4, 5)))
load_anomaly(struct load *l, const struct load_conn *c, struct jscan_span line,
    const char *fmt, ...)
{
	va_list	 ap;
	size_t	 shown;

	if (l->st.anomalies++ >= LOAD_ANOMALIES_SHOWN)
		return;
	fprintf(stderr, "mcpload: client %d: ", c->index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (line.p != NULL) {
		shown = line.len > LOAD_ANOMALY_BYTES ? LOAD_ANOMALY_BYTES :
		    line.len;
		fprintf(stderr, ": %.*s%s", (int)shown, line.p,
		    shown < line.len ? "..." : "");
	}
	fprintf(stderr, "\n");
}

/* Count an error by code; the first message of each code is kept. */
static void
load_count_error(struct load *l, long long code, struct jscan_span error)
{
	struct load_stats	*st = &l->st;
	struct load_error_code	*e;
	struct jscan_span	 message;
	size_t			 i;

	for (i = 0; i < st->ncodes; i++) {
		if (st->codes[i].code == code) {
			st->codes[i].count++;
			return;
		}
	}
	if (st->ncodes == LOAD_ERROR_CODES_MAX) {
		st->codes_other++;
		return;
	}
	e = &st->codes[st->ncodes++];
	e->code = code;
	e->count = 1;
	if (jscan_member(error, "message", &message) == 0 &&
	    message.p[0] == '"' && message.len < sizeof e->message) {
		memcpy(e->message, message.p, message.len);
		e->message_len = message.len;
	}
}

/* ---------------------------------------------------------------------
 * Connections.
 */

static void
load_nonblock(int fd)
{
	int	 flags;

	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		load_fatal("fcntl: %s", strerror(errno));
}

static void
load_connect(struct load_conn *c, const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		load_fatal("%s: socket path too long", path);
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		load_fatal("socket: %s", strerror(errno));
	while (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		if (errno != EINTR)
			load_fatal("connect %s: %s", path, strerror(errno));
	}
	load_nonblock(fd);
	c->rfd = c->wfd = fd;
}

static void
load_spawn(struct load *l, struct load_conn *c)
{
	int	 in[2], out[2];
	pid_t	 pid;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		load_fatal("pipe2: %s", strerror(errno));
	switch (pid = fork()) {
	case -1:
		load_fatal("fork: %s", strerror(errno));
	case 0:
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], STDIN_FILENO) == -1 ||
		    dup2(out[1], STDOUT_FILENO) == -1)
			_exit(127);
		execvp(l->o.argv[0], l->o.argv);
		fprintf(stderr, "mcpload: exec %s: %s\n", l->o.argv[0],
		    strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->wfd = in[1];
	c->rfd = out[0];
	c->pid = pid;
	load_nonblock(c->rfd);
	load_nonblock(c->wfd);
}

static void
load_conn_close(struct load_conn *c)
{
	if (c->state == CONN_CLOSED)
		return;
	if (c->rfd != c->wfd)
		close(c->wfd);
	close(c->rfd);
	c->rfd = c->wfd = -1;
	c->state = CONN_CLOSED;
}

static void
load_conn_lost(struct load *l, struct load_conn *c, const char *why)
{
	if (c->state == CONN_CLOSED)
		return;
	l->st.conn_lost++;
	load_anomaly(l, c, (struct jscan_span){ NULL, 0 },
	    "connection lost (%s) with %u requests in flight", why,
	    c->inflight);
	if (c->state != CONN_READY)
		load_fatal("client %d: connection lost during set-up (%s)",
		    c->index, why);
	/* Its requests can no longer be answered. */
	l->st.missing += c->inflight;
	l->total_inflight -= c->inflight;
	c->inflight = 0;
	l->open_conns--;
	load_conn_close(c);
}

static void
load_send_setup(struct load *l, struct load_conn *c)
{
	if (c->state == CONN_ATTACHING) {
		buf_str(&c->out, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpload-attach\","
		    "\"method\":\"mcpd/attach\",\"params\":{\"server\":");
		buf_printf(&c->out, "\"%s\"}}\n", l->o.server);
		return;
	}
	buf_str(&c->out, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpload-init\","
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"mcpload\",\"version\":\"1.0\"}}}\n");
}

/* A reply during set-up: attach, then initialize. */
static void
load_setup_reply(struct load *l, struct load_conn *c, struct jscan_span line,
    const struct jscan_span *f)
{
	const char	*want = c->state == CONN_ATTACHING ?
	    "\"mcpload-attach\"" : "\"mcpload-init\"";

	if (!jscan_is(f[0], want))
		load_fatal("client %d: unexpected reply during set-up: %.*s",
		    c->index, (int)(line.len > 300 ? 300 : line.len), line.p);
	if (f[3].p != NULL || f[2].p == NULL)
		load_fatal("client %d: %s failed: %.*s", c->index,
		    c->state == CONN_ATTACHING ? "mcpd/attach" : "initialize",
		    (int)(line.len > 300 ? 300 : line.len), line.p);
	if (c->state == CONN_ATTACHING) {
		c->state = CONN_INITIALIZING;
		if (l->o.modern) {
			c->state = CONN_READY;
			return;
		}
		load_send_setup(l, c);
		return;
	}
	buf_str(&c->out, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}\n");
	c->state = CONN_READY;
}

/* ---------------------------------------------------------------------
 * Requests.
 */

/* Bit n of a set of request numbers that grows as needed. */
static void
load_bit_set(uint8_t **bits, size_t *bytes, uint64_t n)
{
	size_t	 need = n / 8 + 1, size;

	if (need > *bytes) {
		size = *bytes ? *bytes : 1024;
		while (size < need)
			size *= 2;
		*bits = load_realloc(*bits, size);
		memset(*bits + *bytes, 0, size - *bytes);
		*bytes = size;
	}
	(*bits)[n / 8] |= 1 << (n % 8);
}

static int
load_bit_has(const uint8_t *bits, size_t bytes, uint64_t n)
{
	if (n / 8 >= bytes)
		return (0);
	return ((bits[n / 8] >> (n % 8)) & 1);
}

static void
load_done_mark(struct load_conn *c, uint64_t n)
{
	load_bit_set(&c->done, &c->done_bytes, n);
}

static int
load_done_has(const struct load_conn *c, uint64_t n)
{
	return (load_bit_has(c->done, c->done_bytes, n));
}

static int
load_cancelled_has(const struct load_conn *c, uint64_t n)
{
	return (n < c->next_n &&
	    load_bit_has(c->cancelled, c->cancelled_bytes, n));
}

/* What request n asks for. */
static enum load_method
load_kind(const struct load *l, uint64_t n)
{
	if (l->o.method != METHOD_MIXED)
		return (l->o.method);
	return (l->o.sleep_every > 0 && n % l->o.sleep_every == 0 ?
	    METHOD_SLEEP : METHOD_ECHO);
}

/* Whether the send rate (--rate) allows another request now. */
static int
load_rate_allows(const struct load *l, uint64_t now)
{
	uint64_t	 allowed;

	if (l->o.rate <= 0)
		return (1);
	allowed = (now - l->start_ns) / 1000 * (uint64_t)l->o.rate /
	    1000000 + 1;
	return (l->st.sent < allowed);
}

/* When the rate allows the next request (0: no limit). */
static uint64_t
load_rate_next_ns(const struct load *l)
{
	if (l->o.rate <= 0)
		return (0);
	return (l->start_ns + l->st.sent * NS_PER_S / (uint64_t)l->o.rate);
}

/* What a 2026-07-28 request carries in _meta (--modern). */
#define LOAD_MODERN_META \
	"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcpload\"," \
	"\"version\":\"1.0\"},\"io.modelcontextprotocol/clientCapabilities\":{}"

static void
load_send_request(struct load *l, struct load_conn *c, uint64_t now)
{
	struct load_slot	*s;
	char			 id[LOAD_ID_BYTES], token[LOAD_ID_BYTES];
	uint64_t		 n = c->next_n++;
	size_t			 before = c->out.len;
	enum load_method	 kind = load_kind(l, n);

	load_id_text(l, n, id, sizeof id);
	buf_printf(&c->out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":", id);
	switch (kind) {
	case METHOD_PING:
		buf_str(&c->out, "\"ping\"");
		if (l->o.progress)
			buf_str(&c->out, ",\"params\":{");
		break;
	case METHOD_ECHO:
		buf_printf(&c->out, "\"tools/call\",\"params\":{\"name\":"
		    "\"%secho\",\"arguments\":{\"text\":\"c%d-r%llu-",
		    l->o.tool_prefix != NULL ? l->o.tool_prefix : "", c->index,
		    (unsigned long long)n);
		buf_add(&c->out, l->pad, l->echo_pad);
		buf_str(&c->out, "\"}");
		break;
	case METHOD_BIG:
		buf_printf(&c->out, "\"tools/call\",\"params\":{\"name\":"
		    "\"%sbig\",\"arguments\":{\"bytes\":%lld}",
		    l->o.tool_prefix != NULL ? l->o.tool_prefix : "", l->o.size);
		break;
	case METHOD_SLEEP:
		buf_printf(&c->out, "\"tools/call\",\"params\":{\"name\":"
		    "\"%ssleep\",\"arguments\":{\"ms\":%lld}",
		    l->o.tool_prefix != NULL ? l->o.tool_prefix : "",
		    l->o.sleep_ms);
		l->st.sleeps++;
		break;
	case METHOD_LIST:
		buf_str(&c->out, "\"tools/list\",\"params\":{");
		break;
	case METHOD_MIXED:
		break;
	}
	if (l->o.modern && kind != METHOD_PING) {
		buf_str(&c->out, ",\"_meta\":{");
		if (l->o.progress) {
			load_token_text(l, n, token, sizeof token);
			buf_printf(&c->out, "\"progressToken\":%s,", token);
		}
		buf_str(&c->out, LOAD_MODERN_META "}}");
	} else if (l->o.progress) {
		load_token_text(l, n, token, sizeof token);
		buf_printf(&c->out, "%s\"_meta\":{\"progressToken\":%s}}",
		    kind == METHOD_PING || kind == METHOD_LIST ? "" : ",",
		    token);
	} else if (kind != METHOD_PING)
		buf_str(&c->out, "}");
	buf_str(&c->out, "}\n");

	s = &c->slots[n & c->slot_mask];
	s->n = n;
	s->sent_ns = now;
	s->progress = 0;
	c->inflight++;
	l->total_inflight++;
	l->st.sent++;
	if (l->budget > 0)
		l->budget--;

	/* Cancelled at once: no longer waited for, its slot free again. */
	if (l->o.cancel_every > 0 && n % l->o.cancel_every == 0) {
		buf_printf(&c->out, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/cancelled\",\"params\":{\"requestId\":"
		    "%s,\"reason\":\"mcpload --cancel-every\"}}\n", id);
		load_bit_set(&c->cancelled, &c->cancelled_bytes, n);
		s->n = 0;
		c->inflight--;
		l->total_inflight--;
		l->st.cancelled++;
	}
	l->st.tx_bytes += c->out.len - before;
}

/* Top up a connection to K in flight while the run is sending. */
static void
load_fill(struct load *l, struct load_conn *c, uint64_t now)
{
	while (l->sending && c->state == CONN_READY &&
	    c->inflight < (unsigned)l->o.inflight && l->budget != 0 &&
	    load_rate_allows(l, now)) {
		/* A slot still busy with an old request: wait for it. */
		if (c->slots[c->next_n & c->slot_mask].n != 0)
			break;
		load_send_request(l, c, now);
	}
}

/* Whether the result of request n is the right one for this client. */
static int
load_check_result(struct load *l, struct load_conn *c, uint64_t n,
    struct jscan_span result)
{
	struct jscan_span	 content, item, text;
	char			 prefix[64];
	size_t			 plen;
	long long		 i;
	enum load_method	 kind = load_kind(l, n);

	switch (kind) {
	case METHOD_PING:
		return (result.p != NULL && result.p[0] == '{' ? 0 : -1);
	case METHOD_LIST:
		return (jscan_member(result, "tools", &content) == 0 &&
		    content.p[0] == '[' ? 0 : -1);
	case METHOD_ECHO:
	case METHOD_BIG:
	case METHOD_SLEEP:
	case METHOD_MIXED:
		break;
	}
	if (jscan_member(result, "content", &content) != 0 ||
	    jscan_index(content, 0, &item) != 0 ||
	    jscan_member(item, "text", &text) != 0 || text.p[0] != '"')
		return (-1);
	if (kind == METHOD_BIG)
		return (text.len == (size_t)l->o.size + 2 ? 0 : -1);
	if (kind == METHOD_SLEEP) {
		/* mcp-fake says "slept N ms": not an echo gone astray. */
		plen = snprintf(prefix, sizeof prefix, "\"slept %lld ms\"",
		    l->o.sleep_ms);
		return (text.len == plen && memcmp(text.p, prefix, plen) == 0 ?
		    0 : -1);
	}
	plen = snprintf(prefix, sizeof prefix, "\"c%d-r%llu-", c->index,
	    (unsigned long long)n);
	if (text.len != plen + l->echo_pad + 1 ||
	    memcmp(text.p, prefix, plen) != 0 || text.p[text.len - 1] != '"')
		return (-1);
	for (i = 0; i < l->echo_pad; i++) {
		if (text.p[plen + i] != 'x')
			return (-1);
	}
	return (0);
}

static void
load_complete(struct load *l, struct load_conn *c, struct load_slot *s,
    size_t line_bytes, uint64_t now)
{
	uint64_t	 rtt = now - s->sent_ns;

	if (now >= l->warm_ns) {
		if (l->st.measured == 0)
			l->st.first_measured_ns = now;
		hist_add(&l->st.rtt, rtt);
		l->st.measured++;
		l->st.measured_rx_bytes += line_bytes;
	}
	if (l->kill_ns != 0 && now >= l->kill_ns)
		hist_add(&l->st.kill, now - l->kill_ns);
	l->st.last_reply_ns = now;
	load_done_mark(c, s->n);
	s->n = 0;
	c->inflight--;
	l->total_inflight--;
}

static void
load_progress(struct load *l, struct load_conn *c, struct jscan_span line,
    struct jscan_span params)
{
	struct jscan_span	 token;
	struct load_slot	*s;
	char			 want[LOAD_ID_BYTES];
	uint64_t		 n;
	size_t			 len;

	if (jscan_member(params, "progressToken", &token) != 0) {
		l->st.progress_misrouted++;
		load_anomaly(l, c, line, "progress without a token");
		return;
	}
	n = load_number(token);
	s = &c->slots[n & c->slot_mask];
	len = load_token_text(l, n, want, sizeof want);
	/* Sent before the cancel reached mcpd: allowed, counted. */
	if (n != 0 && s->n != n && load_cancelled_has(c, n) &&
	    token.len == len && memcmp(token.p, want, len) == 0) {
		l->st.progress_after_cancel++;
		return;
	}
	if (n == 0 || s->n != n || token.len != len ||
	    memcmp(token.p, want, len) != 0) {
		l->st.progress_misrouted++;
		load_anomaly(l, c, line, "progress for no request in flight "
		    "here");
		return;
	}
	s->progress++;
	l->st.progress_ok++;
}

/* Answer a server-to-client request: this client offers no capability. */
static void
load_server_request(struct load *l, struct load_conn *c, struct jscan_span id)
{
	l->st.server_requests++;
	buf_str(&c->out, "{\"jsonrpc\":\"2.0\",\"id\":");
	buf_add(&c->out, id.p, id.len);
	buf_str(&c->out, ",\"error\":{\"code\":-32601,\"message\":"
	    "\"mcpload handles no server requests\"}}\n");
}

/*
 * The one answer a cancelled request may still get (the reply was on its
 * way before the cancel arrived): checked like any other; a second one is
 * a duplicate.
 */
static void
load_cancelled_answer(struct load *l, struct load_conn *c, uint64_t n,
    struct jscan_span line, const struct jscan_span *f)
{
	struct jscan_span	 code_span;
	long long		 code;

	if (f[3].p != NULL) {
		if (jscan_member(f[3], "code", &code_span) != 0 ||
		    jscan_integer(code_span, &code) != 0) {
			l->st.corrupt++;
			load_anomaly(l, c, line, "error without an integer "
			    "code");
		}
		l->st.cancelled_errors++;
	} else if (load_check_result(l, c, n, f[2]) != 0) {
		l->st.misrouted++;
		load_anomaly(l, c, line, "result does not belong to request "
		    "%llu of this client (cancelled)", (unsigned long long)n);
		return;
	} else
		l->st.cancelled_ok++;
	load_done_mark(c, n);
}

static void
load_line(struct load *l, struct load_conn *c, const char *p, size_t len,
    uint64_t now)
{
	static const char *const keys[] = {
		"id", "method", "result", "error", "params"
	};
	struct jscan_span	 f[5], line = { p, len }, code_span;
	struct load_slot	*s;
	char			 want[LOAD_ID_BYTES];
	long long		 code, expect;
	uint64_t		 n;
	size_t			 want_len;

	l->st.rx_bytes += len + 1;
	if (jscan_fields(p, len, keys, f, 5) != 0) {
		if (jscan_ws(p, p + len) == p + len)
			return;
		l->st.corrupt++;
		load_anomaly(l, c, line, "not a JSON object");
		return;
	}
	if (f[1].p != NULL) {
		if (f[0].p != NULL)
			load_server_request(l, c, f[0]);
		else if (jscan_is(f[1], "\"notifications/progress\""))
			load_progress(l, c, line, f[4]);
		else
			l->st.notifications++;
		return;
	}
	if (c->state == CONN_ATTACHING || c->state == CONN_INITIALIZING) {
		load_setup_reply(l, c, line, f);
		return;
	}
	if (f[0].p == NULL || (f[2].p == NULL) == (f[3].p == NULL)) {
		l->st.corrupt++;
		load_anomaly(l, c, line, "not a response");
		return;
	}

	n = load_number(f[0]);
	s = &c->slots[n & c->slot_mask];
	want_len = load_id_text(l, n, want, sizeof want);
	if (n == 0 || f[0].len != want_len ||
	    memcmp(f[0].p, want, want_len) != 0) {
		l->st.unknown++;
		load_anomaly(l, c, line, "reply with an id never sent here");
		return;
	}
	if (s->n != n && load_cancelled_has(c, n) && !load_done_has(c, n)) {
		load_cancelled_answer(l, c, n, line, f);
		return;
	}
	if (s->n != n) {
		if (n < c->next_n && load_done_has(c, n)) {
			l->st.duplicates++;
			load_anomaly(l, c, line, "second reply to request %llu",
			    (unsigned long long)n);
		} else {
			l->st.unknown++;
			load_anomaly(l, c, line, "reply to request %llu, "
			    "which is not in flight", (unsigned long long)n);
		}
		return;
	}

	if (f[3].p != NULL) {
		if (jscan_member(f[3], "code", &code_span) != 0 ||
		    jscan_integer(code_span, &code) != 0) {
			l->st.corrupt++;
			load_anomaly(l, c, line, "error without an integer "
			    "code");
			code = 0;
		}
		l->st.errors++;
		load_count_error(l, code, f[3]);
		if (!l->o.allow_errors)
			load_anomaly(l, c, line, "error reply");
		load_complete(l, c, s, len + 1, now);
		return;
	}
	if (load_check_result(l, c, n, f[2]) != 0) {
		/* Someone else's answer: this request stays in flight. */
		l->st.misrouted++;
		load_anomaly(l, c, line, "result does not belong to request "
		    "%llu of this client", (unsigned long long)n);
		return;
	}
	if (load_kind(l, n) == METHOD_SLEEP && l->o.progress) {
		expect = (l->o.sleep_ms + LOAD_PROGRESS_SLICE_MS - 1) /
		    LOAD_PROGRESS_SLICE_MS;
		if (s->progress != expect) {
			l->st.progress_wrong_count++;
			load_anomaly(l, c, line, "request %llu had %u progress "
			    "notifications, expected %lld",
			    (unsigned long long)n, s->progress, expect);
		}
	}
	l->st.ok++;
	load_complete(l, c, s, len + 1, now);
}

/* ---------------------------------------------------------------------
 * I/O.
 */

static void
load_read(struct load *l, struct load_conn *c)
{
	const char	*nl;
	size_t		 start;
	ssize_t		 n;
	uint64_t	 now;

	for (;;) {
		buf_reserve(&c->in, LOAD_READ_MIN_BYTES);
		n = read(c->rfd, c->in.p + c->in.len, c->in.cap - c->in.len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			load_conn_lost(l, c, strerror(errno));
			return;
		}
		if (n == 0) {
			load_conn_lost(l, c, "end of file");
			return;
		}
		c->in.len += n;
		if ((size_t)n < c->in.cap - c->in.len + n)
			break;	/* short read: drained for now */
	}

	now = load_now_ns();
	start = 0;
	while ((nl = memchr(c->in.p + c->in_scanned, '\n',
	    c->in.len - c->in_scanned)) != NULL) {
		load_line(l, c, c->in.p + start, nl - (c->in.p + start), now);
		start = nl + 1 - c->in.p;
		c->in_scanned = start;
		if (c->state == CONN_CLOSED)
			return;
	}
	c->in_scanned = c->in.len;
	if (start > 0) {
		memmove(c->in.p, c->in.p + start, c->in.len - start);
		c->in.len -= start;
		c->in_scanned -= start;
	}
}

static void
load_write(struct load *l, struct load_conn *c)
{
	ssize_t	 n;

	while (c->out_off < c->out.len) {
		n = write(c->wfd, c->out.p + c->out_off,
		    c->out.len - c->out_off);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			load_conn_lost(l, c, strerror(errno));
			return;
		}
		c->out_off += n;
	}
	c->out_off = c->out.len = 0;
}

/* One round: send what can be sent, wait up to timeout_ms, handle I/O. */
static void
load_poll(struct load *l, int timeout_ms)
{
	struct load_conn	*c;
	struct pollfd		*pr, *pw;
	uint64_t		 now = load_now_ns();
	int			 i, n;

	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		load_fill(l, c, now);
		if (c->state != CONN_CLOSED && c->out.len > c->out_off)
			load_write(l, c);
	}
	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		pr = &l->pfds[2 * i];
		pw = &l->pfds[2 * i + 1];
		pr->fd = c->rfd;
		pr->events = POLLIN;
		pw->fd = c->out.len > c->out_off ? c->wfd : -1;
		pw->events = POLLOUT;
		pr->revents = pw->revents = 0;
	}
	n = poll(l->pfds, 2 * l->o.clients, timeout_ms);
	if (n == -1) {
		if (errno == EINTR)
			return;
		load_fatal("poll: %s", strerror(errno));
	}
	for (i = 0; i < l->o.clients && n > 0; i++) {
		c = &l->conns[i];
		if (l->pfds[2 * i].revents != 0 && c->state != CONN_CLOSED)
			load_read(l, c);
		if (l->pfds[2 * i + 1].revents != 0 && c->state != CONN_CLOSED)
			load_write(l, c);
	}
}

static int
load_ms_until(uint64_t now, uint64_t deadline)
{
	uint64_t	 ms;

	if (deadline <= now)
		return (0);
	ms = (deadline - now + NS_PER_MS - 1) / NS_PER_MS;
	return (ms > LOAD_POLL_MAX_MS ? LOAD_POLL_MAX_MS : (int)ms);
}

static void
load_kill(struct load *l)
{
	FILE		*f;
	long long	 pid = l->o.kill_pid;

	if (l->o.kill_pidfile != NULL) {
		if ((f = fopen(l->o.kill_pidfile, "r")) == NULL ||
		    fscanf(f, "%lld", &pid) != 1)
			load_fatal("cannot read a pid from %s",
			    l->o.kill_pidfile);
		fclose(f);
	}
	if (pid <= 1)
		load_fatal("refusing to kill pid %lld", pid);
	l->kill_ns = load_now_ns();
	if (kill((pid_t)pid, SIGKILL) == -1)
		load_fatal("kill %lld: %s", pid, strerror(errno));
	l->killed_pid = pid;
}

static void
load_setup(struct load *l)
{
	struct load_conn	*c;
	uint64_t		 deadline, now;
	size_t			 slots;
	int			 i, pending;
	uint64_t		 begin = load_now_ns();

	slots = LOAD_SLOTS_MIN;
	while (slots < (size_t)l->o.inflight * 4)
		slots *= 2;
	l->conns = load_realloc(NULL, l->o.clients * sizeof *l->conns);
	l->pfds = load_realloc(NULL, 2 * l->o.clients * sizeof *l->pfds);
	memset(l->conns, 0, l->o.clients * sizeof *l->conns);
	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		c->index = i;
		c->next_n = 1;
		c->slots = load_realloc(NULL, slots * sizeof *c->slots);
		memset(c->slots, 0, slots * sizeof *c->slots);
		c->slot_mask = slots - 1;
		switch (l->o.target) {
		case TARGET_STDIO:
			load_spawn(l, c);
			c->state = CONN_INITIALIZING;
			break;
		case TARGET_RELAY:
			load_connect(c, l->o.socket_path);
			c->state = CONN_INITIALIZING;
			break;
		default:
			load_connect(c, l->o.socket_path);
			c->state = CONN_ATTACHING;
			break;
		}
		if (l->o.modern && c->state == CONN_INITIALIZING) {
			c->state = CONN_READY;
			continue;
		}
		load_send_setup(l, c);
	}
	l->open_conns = l->o.clients;

	deadline = load_now_ns() + l->o.setup_timeout_ms * NS_PER_MS;
	for (;;) {
		pending = 0;
		for (i = 0; i < l->o.clients; i++)
			pending += l->conns[i].state != CONN_READY;
		if (pending == 0)
			break;
		now = load_now_ns();
		if (now >= deadline)
			load_fatal("%d of %d clients not set up within %lld ms",
			    pending, l->o.clients, l->o.setup_timeout_ms);
		load_poll(l, load_ms_until(now, deadline));
	}
	l->setup_ns = load_now_ns() - begin;
	/* Flush notifications/initialized before the clock starts. */
	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		while (c->state == CONN_READY && c->out.len > c->out_off) {
			load_write(l, c);
			if (c->out.len > c->out_off)
				load_poll(l, 10);
		}
	}
}

/*
 * When waiting for replies ends: drain_ms after the last sign of life
 * (the start, the last reply, or the moment sending stopped).
 */
static uint64_t
load_idle_end(const struct load *l, uint64_t stop_ns)
{
	uint64_t	 since = l->start_ns;

	if (l->st.last_reply_ns > since)
		since = l->st.last_reply_ns;
	if (stop_ns > since)
		since = stop_ns;
	return (since + l->o.drain_ms * NS_PER_MS);
}

static void
load_run(struct load *l)
{
	uint64_t	 now, deadline, stop_ns = 0;

	l->start_ns = load_now_ns();
	l->warm_ns = l->start_ns + l->o.warmup_ms * NS_PER_MS;
	if (l->o.requests < 0)
		l->send_end_ns = l->start_ns + l->o.duration_ms * NS_PER_MS;
	if (l->o.kill_after_ms >= 0)
		l->kill_at_ns = l->start_ns + l->o.kill_after_ms * NS_PER_MS;
	l->budget = l->o.requests < 0 ? -1 : l->o.requests;
	l->sending = 1;

	for (;;) {
		now = load_now_ns();
		if (l->kill_at_ns != 0 && l->kill_ns == 0 &&
		    now >= l->kill_at_ns)
			load_kill(l);
		/* Sending also stops when replies stop coming. */
		if (l->sending && (l->budget == 0 ||
		    (l->send_end_ns != 0 && now >= l->send_end_ns) ||
		    (l->total_inflight > 0 && now >= load_idle_end(l, 0)))) {
			l->sending = 0;
			stop_ns = now;
		}
		if (!l->sending && (l->total_inflight == 0 ||
		    now >= load_idle_end(l, stop_ns)))
			break;
		if (l->open_conns == 0)
			break;

		deadline = load_idle_end(l, stop_ns);
		if (l->sending && l->send_end_ns != 0 &&
		    l->send_end_ns < deadline)
			deadline = l->send_end_ns;
		if (l->kill_at_ns != 0 && l->kill_ns == 0 &&
		    l->kill_at_ns < deadline)
			deadline = l->kill_at_ns;
		/* Held back by --rate: wake up when the next may go. */
		if (l->sending && l->o.rate > 0 && !load_rate_allows(l, now) &&
		    load_rate_next_ns(l) < deadline)
			deadline = load_rate_next_ns(l);
		load_poll(l, load_ms_until(now, deadline));
	}
	l->st.missing += l->total_inflight;
}

static void
load_hold(struct load *l)
{
	uint64_t	 end, now;
	int		 fd;

	if (l->o.ready_file != NULL) {
		fd = open(l->o.ready_file, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0600);
		if (fd == -1)
			load_fatal("%s: %s", l->o.ready_file, strerror(errno));
		dprintf(fd, "%ld\n", (long)getpid());
		close(fd);
	}
	end = load_now_ns() + l->o.hold_ms * NS_PER_MS;
	while ((now = load_now_ns()) < end)
		load_poll(l, load_ms_until(now, end));
}

static void
load_finish(struct load *l)
{
	struct load_conn	*c;
	uint64_t		 deadline;
	int			 i, status, left;

	for (i = 0; i < l->o.clients; i++)
		load_conn_close(&l->conns[i]);
	if (l->o.target != TARGET_STDIO)
		return;
	deadline = load_now_ns() + LOAD_REAP_WAIT_MS * NS_PER_MS;
	do {
		left = 0;
		for (i = 0; i < l->o.clients; i++) {
			c = &l->conns[i];
			if (c->pid <= 0)
				continue;
			if (waitpid(c->pid, &status, WNOHANG) == c->pid)
				c->pid = 0;
			else
				left++;
		}
		if (left > 0)
			usleep(1000);
	} while (left > 0 && load_now_ns() < deadline);
	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		if (c->pid > 0) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
		}
	}
}

static void
load_free(struct load *l)
{
	struct load_conn	*c;
	int			 i;

	for (i = 0; i < l->o.clients; i++) {
		c = &l->conns[i];
		free(c->in.p);
		free(c->out.p);
		free(c->slots);
		free(c->done);
		free(c->cancelled);
	}
	free(l->conns);
	free(l->pfds);
	free(l->pad);
}

/* ---------------------------------------------------------------------
 * Report.
 */

static int
load_failed(const struct load *l)
{
	const struct load_stats	*st = &l->st;

	return (st->misrouted || st->unknown || st->duplicates ||
	    st->corrupt || st->missing || st->progress_misrouted ||
	    st->progress_wrong_count || st->conn_lost ||
	    (st->errors && !l->o.allow_errors));
}

static double
load_window_s(const struct load *l)
{
	const struct load_stats	*st = &l->st;
	uint64_t		 from;

	from = l->o.warmup_ms > 0 ? l->warm_ns : l->start_ns;
	if (st->measured == 0 || st->last_reply_ns <= from)
		return (0);
	return ((double)(st->last_reply_ns - from) / NS_PER_S);
}

static void
load_target_text(const struct load *l, char *out, size_t size)
{
	switch (l->o.target) {
	case TARGET_STDIO:
		snprintf(out, size, "stdio %s", l->o.argv[0]);
		break;
	case TARGET_RELAY:
		snprintf(out, size, "relay %s", l->o.socket_path);
		break;
	default:
		snprintf(out, size, "mcpd %s server %s", l->o.socket_path,
		    l->o.server);
		break;
	}
}

static void
load_json_string(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void
load_report_json(const struct load *l, double window, double rate,
    double mb_s)
{
	const struct load_stats	*st = &l->st;
	char			 target[512];
	size_t			 i;

	load_target_text(l, target, sizeof target);
	printf("{\"label\":");
	load_json_string(l->o.label != NULL ? l->o.label : "");
	printf(",\"target\":");
	load_json_string(target);
	printf(",\"clients\":%d,\"inflight\":%d,\"method\":\"%s\","
	    "\"ids\":\"%s\",\"size\":%lld,", l->o.clients, l->o.inflight,
	    load_method_names[l->o.method], load_ids_names[l->o.ids],
	    l->o.size);
	printf("\"sent\":%llu,\"ok\":%llu,\"errors\":%llu,\"misrouted\":%llu,"
	    "\"unknown\":%llu,\"duplicates\":%llu,\"corrupt\":%llu,"
	    "\"missing\":%llu,\"conn_lost\":%llu,",
	    (unsigned long long)st->sent, (unsigned long long)st->ok,
	    (unsigned long long)st->errors, (unsigned long long)st->misrouted,
	    (unsigned long long)st->unknown,
	    (unsigned long long)st->duplicates,
	    (unsigned long long)st->corrupt, (unsigned long long)st->missing,
	    (unsigned long long)st->conn_lost);
	printf("\"sleep_every\":%lld,\"sleep_ms\":%lld,\"sleeps\":%llu,"
	    "\"cancel_every\":%lld,\"cancelled\":%llu,\"cancelled_ok\":%llu,"
	    "\"cancelled_errors\":%llu,\"progress_after_cancel\":%llu,"
	    "\"rate\":%lld,", l->o.method == METHOD_MIXED ? l->o.sleep_every : 0,
	    l->o.sleep_ms, (unsigned long long)st->sleeps, l->o.cancel_every,
	    (unsigned long long)st->cancelled,
	    (unsigned long long)st->cancelled_ok,
	    (unsigned long long)st->cancelled_errors,
	    (unsigned long long)st->progress_after_cancel, l->o.rate);
	printf("\"setup_us\":%.1f,", (double)l->setup_ns / 1000.0);
	printf("\"errors_by_code\":{");
	for (i = 0; i < st->ncodes; i++)
		printf("%s\"%lld\":%llu", i ? "," : "", st->codes[i].code,
		    (unsigned long long)st->codes[i].count);
	if (st->codes_other)
		printf("%s\"other\":%llu", st->ncodes ? "," : "",
		    (unsigned long long)st->codes_other);
	printf("},\"error_messages\":{");
	for (i = 0; i < st->ncodes; i++)
		printf("%s\"%lld\":%.*s", i ? "," : "", st->codes[i].code,
		    st->codes[i].message_len > 0 ?
		    (int)st->codes[i].message_len : 4,
		    st->codes[i].message_len > 0 ? st->codes[i].message :
		    "null");
	printf("},\"progress_ok\":%llu,\"progress_misrouted\":%llu,"
	    "\"progress_wrong_count\":%llu,\"server_requests\":%llu,"
	    "\"notifications\":%llu,",
	    (unsigned long long)st->progress_ok,
	    (unsigned long long)st->progress_misrouted,
	    (unsigned long long)st->progress_wrong_count,
	    (unsigned long long)st->server_requests,
	    (unsigned long long)st->notifications);
	printf("\"measured\":%llu,\"seconds\":%.6f,\"req_per_s\":%.1f,"
	    "\"mb_per_s\":%.3f,\"rx_bytes\":%llu,\"tx_bytes\":%llu,",
	    (unsigned long long)st->measured, window, rate, mb_s,
	    (unsigned long long)st->rx_bytes, (unsigned long long)st->tx_bytes);
	printf("\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,"
	    "\"max_us\":%.2f,\"min_us\":%.2f,",
	    hist_quantile(&st->rtt, 0.5) / 1e3,
	    hist_quantile(&st->rtt, 0.99) / 1e3,
	    hist_quantile(&st->rtt, 0.999) / 1e3, (double)st->rtt.max / 1e3,
	    hist_quantile(&st->rtt, 0) / 1e3);
	printf("\"killed_pid\":%lld,\"kill_replies\":%llu,"
	    "\"kill_p50_us\":%.2f,\"kill_p99_us\":%.2f,\"kill_max_us\":%.2f,",
	    l->killed_pid, (unsigned long long)st->kill.count,
	    hist_quantile(&st->kill, 0.5) / 1e3,
	    hist_quantile(&st->kill, 0.99) / 1e3, (double)st->kill.max / 1e3);
	printf("\"pass\":%s}\n", load_failed(l) ? "false" : "true");
}

static void
load_report(const struct load *l)
{
	const struct load_stats	*st = &l->st;
	char			 target[512];
	double			 window, rate = 0, mb_s = 0;
	size_t			 i;

	window = load_window_s(l);
	if (window > 0) {
		rate = st->measured / window;
		mb_s = st->measured_rx_bytes / window / 1e6;
	}
	if (l->o.json) {
		load_report_json(l, window, rate, mb_s);
		return;
	}
	load_target_text(l, target, sizeof target);
	printf("target     %s\n", target);
	printf("load       %d clients x %d in flight, %s, ids %s",
	    l->o.clients, l->o.inflight, load_method_names[l->o.method],
	    load_ids_names[l->o.ids]);
	if (l->o.method == METHOD_ECHO || l->o.method == METHOD_BIG ||
	    l->o.method == METHOD_MIXED)
		printf(", %lld bytes", l->o.size);
	if (l->o.method == METHOD_MIXED)
		printf(", every %lldth a %lld ms sleep", l->o.sleep_every,
		    l->o.sleep_ms);
	if (l->o.rate > 0)
		printf(", at most %lld req/s", l->o.rate);
	printf("%s\n", l->o.progress ? ", progress tokens" : "");
	printf("replies    sent %llu ok %llu errors %llu misrouted %llu "
	    "unknown %llu duplicates %llu corrupt %llu missing %llu\n",
	    (unsigned long long)st->sent, (unsigned long long)st->ok,
	    (unsigned long long)st->errors, (unsigned long long)st->misrouted,
	    (unsigned long long)st->unknown,
	    (unsigned long long)st->duplicates,
	    (unsigned long long)st->corrupt, (unsigned long long)st->missing);
	if (st->ncodes > 0 || st->codes_other > 0) {
		printf("errors    ");
		for (i = 0; i < st->ncodes; i++)
			printf(" %lld x%llu", st->codes[i].code,
			    (unsigned long long)st->codes[i].count);
		if (st->codes_other)
			printf(" other x%llu",
			    (unsigned long long)st->codes_other);
		printf("\n");
		for (i = 0; i < st->ncodes; i++) {
			if (st->codes[i].message_len > 0)
				printf("  %lld     %.*s\n", st->codes[i].code,
				    (int)st->codes[i].message_len,
				    st->codes[i].message);
		}
	}
	if (l->o.cancel_every > 0)
		printf("cancelled  %llu (then answered: %llu results, %llu "
		    "errors; %llu progress after the cancel)\n",
		    (unsigned long long)st->cancelled,
		    (unsigned long long)st->cancelled_ok,
		    (unsigned long long)st->cancelled_errors,
		    (unsigned long long)st->progress_after_cancel);
	if (l->o.progress)
		printf("progress   ok %llu misrouted %llu wrong count %llu\n",
		    (unsigned long long)st->progress_ok,
		    (unsigned long long)st->progress_misrouted,
		    (unsigned long long)st->progress_wrong_count);
	if (st->conn_lost || st->server_requests)
		printf("other      %llu connections lost, %llu server "
		    "requests refused\n", (unsigned long long)st->conn_lost,
		    (unsigned long long)st->server_requests);
	printf("rate       %.0f req/s, %.2f MB/s received, over %.3f s\n",
	    rate, mb_s, window);
	printf("latency    p50 %.1f us  p99 %.1f us  p999 %.1f us  "
	    "max %.1f us  (%llu replies)\n",
	    hist_quantile(&st->rtt, 0.5) / 1e3,
	    hist_quantile(&st->rtt, 0.99) / 1e3,
	    hist_quantile(&st->rtt, 0.999) / 1e3, (double)st->rtt.max / 1e3,
	    (unsigned long long)st->rtt.count);
	if (l->o.method == METHOD_BIG && st->rtt.count > 0)
		printf("big        %.1f ms per %lld-byte response (p50), "
		    "%.1f MB/s\n", hist_quantile(&st->rtt, 0.5) / 1e6,
		    l->o.size, (double)l->o.size /
		    (hist_quantile(&st->rtt, 0.5) / 1e9) / 1e6);
	if (l->kill_ns != 0)
		printf("kill       SIGKILL to pid %lld; %llu replies after it: "
		    "p50 %.2f ms  p99 %.2f ms  max %.2f ms\n", l->killed_pid,
		    (unsigned long long)st->kill.count,
		    hist_quantile(&st->kill, 0.5) / 1e6,
		    hist_quantile(&st->kill, 0.99) / 1e6,
		    (double)st->kill.max / 1e6);
	printf("result     %s\n", load_failed(l) ? "FAIL" : "PASS");
}

/* ---------------------------------------------------------------------
 * Options.
 */

static void __attribute__((noreturn))
load_usage(int status)
{
	FILE	*f = status == 0 ? stdout : stderr;

	fprintf(f,
"usage: mcpload [options] --socket PATH --server NAME\n"
"       mcpload [options] --relay-socket PATH\n"
"       mcpload [options] --stdio COMMAND [ARG...]\n"
"  --clients N         connections, each set up on its own (1)\n"
"  --inflight K        requests pipelined per connection (1)\n"
"  --requests R        requests in all (10000), or\n"
"  --duration S        send for S seconds (fractions allowed)\n"
"  --method M          ping, echo, big, sleep, mixed or list (ping); mixed\n"
"                      is echo with every Nth request a sleep; list is\n"
"                      tools/list (its first page)\n"
"  --size BYTES        echo: request size; big: response text (200)\n"
"  --sleep-ms MS       sleep: how long each request sleeps (1000)\n"
"  --sleep-every N     mixed: every Nth request is a sleep (10)\n"
"  --cancel-every N    follow every Nth request by notifications/cancelled\n"
"                      for it at once: it may get one answer or none,\n"
"                      never two (0: none)\n"
"  --rate R            send at most R requests per second (0: no limit)\n"
"  --ids MODE          same (1,2,...), string (\"r-1\",...) or mixed\n"
"                      (1, \"m-2\", 3.5, ...) (same)\n"
"  --progress          send a progressToken and check the progress\n"
"  --modern            speak MCP 2026-07-28: no initialize, every request\n"
"                      with the protocol version, client and capabilities\n"
"                      in _meta (not with ping, which 2026 does not have)\n"
"  --allow-errors      error replies are expected (chaos runs)\n"
"  --warmup-ms MS      replies in the first MS are not measured (0)\n"
"  --drain-ms MS       give up waiting for replies after MS without any\n"
"                      (10000)\n"
"  --hold-ms MS        keep the connections open MS after the run (0)\n"
"  --ready-file FILE   created when the hold starts\n"
"  --kill-pid PID, --kill-pidfile FILE, --kill-after-ms MS\n"
"                      SIGKILL PID MS after the start; time the replies\n"
"  --setup-timeout-ms MS  attach and initialize within MS (20000)\n"
"  --label TEXT        copied into --json output\n"
"  --tool-prefix P     call tools as P + NAME (a group's \"SERVER__\")\n"
"  --json              one JSON object on stdout instead of text\n"
"Exit status: 0 every request got exactly one right reply, 1 not, 2 usage\n"
"or set-up failure.\n");
	exit(status);
}

static long long
load_number_arg(const char *name, const char *s, long long min,
    long long max)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		load_fatal("%s: expected an integer from %lld to %lld, got "
		    "\"%s\"", name, min, max, s);
	return (v);
}

static int
load_choice(const char *name, const char *s, const char **names, int n)
{
	int	 i;

	for (i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0)
			return (i);
	}
	load_fatal("%s: unknown value \"%s\"", name, s);
}

enum {
	OPT_STDIO = 256, OPT_SOCKET, OPT_SERVER, OPT_RELAY, OPT_CLIENTS,
	OPT_INFLIGHT, OPT_REQUESTS, OPT_DURATION, OPT_METHOD, OPT_SIZE,
	OPT_SLEEP_MS, OPT_IDS, OPT_PROGRESS, OPT_ALLOW_ERRORS, OPT_JSON,
	OPT_LABEL, OPT_WARMUP, OPT_DRAIN, OPT_HOLD, OPT_READY, OPT_KILL_PID,
	OPT_KILL_PIDFILE, OPT_KILL_AFTER, OPT_SETUP_TIMEOUT, OPT_HELP,
	OPT_SLEEP_EVERY, OPT_CANCEL_EVERY, OPT_RATE, OPT_TOOL_PREFIX, OPT_MODERN,
};

static const struct option load_options[] = {
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "relay-socket", required_argument, NULL, OPT_RELAY },
	{ "clients", required_argument, NULL, OPT_CLIENTS },
	{ "inflight", required_argument, NULL, OPT_INFLIGHT },
	{ "requests", required_argument, NULL, OPT_REQUESTS },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "sleep-ms", required_argument, NULL, OPT_SLEEP_MS },
	{ "sleep-every", required_argument, NULL, OPT_SLEEP_EVERY },
	{ "cancel-every", required_argument, NULL, OPT_CANCEL_EVERY },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "ids", required_argument, NULL, OPT_IDS },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "modern", no_argument, NULL, OPT_MODERN },
	{ "allow-errors", no_argument, NULL, OPT_ALLOW_ERRORS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "tool-prefix", required_argument, NULL, OPT_TOOL_PREFIX },
	{ "warmup-ms", required_argument, NULL, OPT_WARMUP },
	{ "drain-ms", required_argument, NULL, OPT_DRAIN },
	{ "hold-ms", required_argument, NULL, OPT_HOLD },
	{ "ready-file", required_argument, NULL, OPT_READY },
	{ "kill-pid", required_argument, NULL, OPT_KILL_PID },
	{ "kill-pidfile", required_argument, NULL, OPT_KILL_PIDFILE },
	{ "kill-after-ms", required_argument, NULL, OPT_KILL_AFTER },
	{ "setup-timeout-ms", required_argument, NULL, OPT_SETUP_TIMEOUT },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void
load_parse(struct load_opts *o, int argc, char **argv)
{
	const long long	 day_ms = 86400000LL;
	char		*end;
	double		 seconds;
	int		 ch, stop = 0;

	memset(o, 0, sizeof *o);
	o->clients = 1;
	o->inflight = 1;
	o->requests = 10000;
	o->size = 200;
	o->sleep_ms = 1000;
	o->sleep_every = 10;
	o->drain_ms = 10000;
	o->setup_timeout_ms = 20000;
	o->kill_after_ms = -1;

	while (!stop && (ch = getopt_long(argc, argv, "+", load_options,
	    NULL)) != -1) {
		switch (ch) {
		case OPT_STDIO:
			o->target = TARGET_STDIO;
			stop = 1;
			break;
		case OPT_SOCKET:
			o->target = TARGET_SOCKET;
			o->socket_path = optarg;
			break;
		case OPT_SERVER:
			o->server = optarg;
			break;
		case OPT_RELAY:
			o->target = TARGET_RELAY;
			o->socket_path = optarg;
			break;
		case OPT_CLIENTS:
			o->clients = load_number_arg("--clients", optarg, 1,
			    100000);
			break;
		case OPT_INFLIGHT:
			o->inflight = load_number_arg("--inflight", optarg, 1,
			    1 << 20);
			break;
		case OPT_REQUESTS:
			o->requests = load_number_arg("--requests", optarg, 0,
			    1LL << 50);
			break;
		case OPT_DURATION:
			seconds = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || seconds <= 0 ||
			    seconds > 86400)
				load_fatal("--duration: expected seconds, got "
				    "\"%s\"", optarg);
			o->duration_ms = (long long)(seconds * 1000 + 0.5);
			o->requests = -1;
			break;
		case OPT_METHOD:
			o->method = load_choice("--method", optarg,
			    load_method_names, 6);
			break;
		case OPT_SIZE:
			o->size = load_number_arg("--size", optarg, 0,
			    1LL << 30);
			break;
		case OPT_SLEEP_MS:
			o->sleep_ms = load_number_arg("--sleep-ms", optarg, 0,
			    day_ms);
			break;
		case OPT_SLEEP_EVERY:
			o->sleep_every = load_number_arg("--sleep-every",
			    optarg, 1, 1LL << 50);
			break;
		case OPT_CANCEL_EVERY:
			o->cancel_every = load_number_arg("--cancel-every",
			    optarg, 0, 1LL << 50);
			break;
		case OPT_RATE:
			o->rate = load_number_arg("--rate", optarg, 0,
			    100000000);
			break;
		case OPT_IDS:
			o->ids = load_choice("--ids", optarg, load_ids_names,
			    3);
			break;
		case OPT_PROGRESS:
			o->progress = 1;
			break;
		case OPT_MODERN:
			o->modern = 1;
			break;
		case OPT_ALLOW_ERRORS:
			o->allow_errors = 1;
			break;
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_LABEL:
			o->label = optarg;
			break;
		case OPT_TOOL_PREFIX:
			o->tool_prefix = optarg;
			break;
		case OPT_WARMUP:
			o->warmup_ms = load_number_arg("--warmup-ms", optarg, 0,
			    day_ms);
			break;
		case OPT_DRAIN:
			o->drain_ms = load_number_arg("--drain-ms", optarg, 0,
			    day_ms);
			break;
		case OPT_HOLD:
			o->hold_ms = load_number_arg("--hold-ms", optarg, 0,
			    day_ms);
			break;
		case OPT_READY:
			o->ready_file = optarg;
			break;
		case OPT_KILL_PID:
			o->kill_pid = load_number_arg("--kill-pid", optarg, 2,
			    1LL << 31);
			break;
		case OPT_KILL_PIDFILE:
			o->kill_pidfile = optarg;
			break;
		case OPT_KILL_AFTER:
			o->kill_after_ms = load_number_arg("--kill-after-ms",
			    optarg, 0, day_ms);
			break;
		case OPT_SETUP_TIMEOUT:
			o->setup_timeout_ms = load_number_arg(
			    "--setup-timeout-ms", optarg, 1, day_ms);
			break;
		case OPT_HELP:
			load_usage(0);
		default:
			load_usage(2);
		}
	}
	if (o->target == TARGET_STDIO) {
		if (optind >= argc)
			load_fatal("--stdio needs a command");
		o->argv = argv + optind;
	} else if (optind < argc)
		load_fatal("unexpected argument \"%s\"", argv[optind]);
	if (o->target == TARGET_NONE)
		load_fatal("say --socket, --relay-socket or --stdio");
	if (o->target == TARGET_SOCKET && o->server == NULL)
		load_fatal("--socket needs --server NAME");
	if (o->modern && (o->method == METHOD_PING || o->method == METHOD_LIST))
		load_fatal("--modern: only --method echo, big, sleep or mixed");
	if (o->server != NULL && strpbrk(o->server, "\"\\") != NULL)
		load_fatal("--server: quotes and backslashes are not allowed");
	if (o->kill_after_ms >= 0 && o->kill_pid == 0 &&
	    o->kill_pidfile == NULL)
		load_fatal("--kill-after-ms needs --kill-pid or --kill-pidfile");
	if ((o->kill_pid != 0 || o->kill_pidfile != NULL) &&
	    o->kill_after_ms < 0)
		load_fatal("--kill-pid and --kill-pidfile need --kill-after-ms");
}

int
main(int argc, char **argv)
{
	struct load	 l;
	long long	 base;
	int		 status;

	memset(&l, 0, sizeof l);
	load_parse(&l.o, argc, argv);
	signal(SIGPIPE, SIG_IGN);

	if (l.o.method == METHOD_ECHO || l.o.method == METHOD_MIXED) {
		/* Pad the text so a request line is about --size bytes. */
		base = (long long)strlen("{\"jsonrpc\":\"2.0\",\"id\":1,"
		    "\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
		    "\"arguments\":{\"text\":\"c0-r1-\"}}}\n");
		l.echo_pad = l.o.size > base ? l.o.size - base : 0;
		l.pad = load_realloc(NULL, l.echo_pad + 1);
		memset(l.pad, 'x', l.echo_pad);
	}

	load_setup(&l);
	load_run(&l);
	if (l.o.hold_ms > 0 || l.o.ready_file != NULL)
		load_hold(&l);
	load_finish(&l);
	load_report(&l);
	status = load_failed(&l) ? 1 : 0;
	load_free(&l);
	return (status);
}
