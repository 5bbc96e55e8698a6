/*
 * fuzz_evhttp.c -- an HTTP client's bytes as mcpd-http takes them:
 * libevent's evhttp parser (request line, headers, Content-Length and
 * chunked bodies, pipelined requests, the caps) and the front's own
 * handlers behind it (http/hserve.c, hauth.c, hsess.c, hresume.c,
 * hmodern.c), on real sockets and a real event base.
 *
 * The front is made by hfront_open, as mcpd-http makes it: the same
 * evhttp limits, methods and callback, listening on a Unix socket in a
 * private directory.  Its "http" object (FE_CONF) has small caps so that
 * inputs reach them: headers 2048 bytes, bodies 4096, 4 sessions, 2 a
 * token, 2 sessionless requests a token, 2 connections (a third waits while the listener is paused).
 * libevent 2.1 has no public call that hands evhttp a connected socket
 * (evhttp_get_request is static in http.c), so the harness connects to
 * that listener as a client does.
 *
 * mcpd is a stand-in on a socket of its own, reached by hsess_connect as
 * mcpd's would be.  It answers mcpd/attach by the name in the path:
 * "missing", "denied", "full" and "refuse" get mcpd's errors, "gone" a
 * closed connection, "garbage" a line that is not JSON, any other name
 * a result.  Then, for a request: "initialize" gets a result;
 * "tools/call" a notifications/message first, then, in MCP 2026-07-28
 * (its _meta says so) without a requestState, an input_required result
 * with one, else a result; a method starting "hang" a
 * notifications/progress and no answer, "slow" the same and its result
 * once the clients have shut their ends; "x-error" an error; "x-gone" a
 * notifications/message, then, a few turns later, a closed connection;
 * any other a result.  After notifications/initialized it sends a
 * roots/list request and a notifications/tools/list_changed (for the
 * GET stream, or held).
 *
 * Tokens (the store is written once): "Bearer mcpd_fuzz" reaches every
 * server, "Bearer mcpd_narrow" only alpha, "Bearer mcpd_expired" has
 * expired.  hauth.c reads the store again only when it changes, so the
 * store read for the first input is handed to every later front.
 * getrandom(2) is replaced here so that session ids are known: the n-th
 * session of an input has n in each of its 16 bytes, the first
 * "01010101010101010101010101010101".
 *
 * Input: byte 0 is a separator; the rest, cut on it, is chunks written
 * in turn to the current connection, the loop run after each until it
 * idles (so evhttp reads requests in pieces).  An empty chunk moves on
 * to the next of three connections.  Then each connection's write side
 * is shut, the loop runs until the front has closed them all (or
 * FE_TURNS_END turns), the "slow" results come, the tick runs once
 * (keep-alives), the connections close, and everything is ended and
 * freed.
 *
 * Invariants: no crash, leak or sanitizer report (libevent's aborts
 * included); every line the front sends mcpd is one JSON object, the
 * first on a connection mcpd/attach naming the path's server or group
 * and a token of the store; what the front writes a client starts with
 * a status line ("HTTP/"); once the front is closed no connection,
 * session or request of it is left.
 *
 * FUZZ_EVHTTP_LOG set: the front's log, what each connection is written
 * and reads, and what mcpd is sent, on stderr.  For coverage inside
 * evhttp, link an instrumented libevent (build.sh, LIBEVENT_SRC).
 */
#include "config.h"

#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "conf.h"
#include "conf_http.h"
#include "fuzz.h"
#include "hfront.h"
#include "htoken.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "evhttp";

#define FE_CONNS		3	/* client connections an input uses */
#define FE_CHUNKS_MAX		64	/* the rest is written at once */
#define FE_IDLE_TURNS		4	/* turns without news: idle */
#define FE_TURNS_CHUNK		64	/* at most, after each chunk */
#define FE_TURNS_END		256	/* at most, for the front to close */
#define FE_WRITE_TRIES		16
#define FE_GONE_TURNS		4	/* "x-gone": closed after these */

#define FE_CONF "{\"listen\":[\"unix:%s/front.sock\"]," \
	"\"allowed_hosts\":[\"mcp.example.test\"]," \
	"\"allowed_origins\":[\"https://app.example.test\"]," \
	"\"max_sessions\":4,\"max_sessions_per_token\":2," \
	"\"max_requests_per_token\":2,\"max_buffered_bytes\":1048576," \
	"\"max_connections\":2,\"max_body_bytes\":4096," \
	"\"max_header_bytes\":2048,\"timeout_s\":30,\"session_idle_s\":60}"

/* A connection mcpd-http opened to the stand-in mcpd. */
struct fe_mcpd {
	TAILQ_ENTRY(fe_mcpd)	 entry;
	struct bufferevent	*bev;
	int			 attached;
	unsigned		 requests;	/* requestStates handed out */
	int			 closing;	/* turns left before it closes */
	struct evbuffer		*later;		/* sent once clients are gone */
};
TAILQ_HEAD(fe_mcpd_list, fe_mcpd);

/* A client connection to the front. */
struct fe_client {
	int		 fd;		/* -1 until first written */
	int		 eof;		/* the front closed it */
	size_t		 got;		/* bytes it read */
	char		 head[5];	/* their first bytes */
};

static struct {
	int			 ready;
	int			 log;		/* FUZZ_EVHTTP_LOG */
	char			 dir[80];
	char			 front_path[128];	/* sun_path's size at most */
	char			 mcpd_path[128];
	char			 token_path[128];
	int			 mcpd_fd;	/* the stand-in's listener */
	struct conf_http	*conf;
	struct htokens		*tokens;	/* hauth.c's, kept */
	/* One input's: */
	struct event_base	*base;
	struct evconnlistener	*mcpd_lev;
	struct fe_mcpd_list	 mcpds;
	struct fe_client	 clients[FE_CONNS];
	unsigned		 news;		/* bumped by anything seen */
	unsigned		 sessions;	/* getrandom's calls */
} fe;

/* Session ids known in advance (see above). */
ssize_t
getrandom(void *buf, size_t len, unsigned int flags)
{
	(void)flags;
	memset(buf, (int)(++fe.sessions & 0xff), len);
	return ((ssize_t)len);
}

void
hlog(const char *fmt, ...)
{
	va_list	 ap;

	if (!fe.log)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "mcpd-http: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static void
fe_cleanup(void)
{
	(void)unlink(fe.front_path);
	(void)unlink(fe.mcpd_path);
	(void)unlink(fe.token_path);
	(void)rmdir(fe.dir);
}

static void
fe_write_tokens(void)
{
	static const char	*tokens[][3] = {
		{ "fuzz", "mcpd_fuzz", "0\t*" },
		{ "narrow", "mcpd_narrow", "0\talpha" },
		{ "expired", "mcpd_expired", "1\t*" },
	};
	char			 hash[HTOKEN_HASH_HEX];
	FILE			*f;
	size_t			 i;

	if ((f = fopen(fe.token_path, "w")) == NULL)
		fuzz_fail("%s: %s", fe.token_path, strerror(errno));
	for (i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
		htoken_hash(tokens[i][1], hash);
		fprintf(f, "%s\t%s\t1\t%s\n", tokens[i][0], hash, tokens[i][2]);
	}
	if (fclose(f) != 0)
		fuzz_fail("%s: %s", fe.token_path, strerror(errno));
}

static int
fe_listen_unix(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		fuzz_fail("%s: too long for a socket", path);
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1 || bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    listen(fd, 64) != 0)
		fuzz_fail("%s: %s", path, strerror(errno));
	return (fd);
}

static void
fe_init(void)
{
	struct conf_diags	 diags;
	const char		*tmp;
	char			*json;

	fe.ready = 1;
	fe.log = getenv("FUZZ_EVHTTP_LOG") != NULL;
	signal(SIGPIPE, SIG_IGN);
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp != '/' ||
	    strlen(tmp) > 60)
		tmp = "/tmp";
	snprintf(fe.dir, sizeof fe.dir, "%s/fuzz_evhttp.XXXXXX", tmp);
	if (mkdtemp(fe.dir) == NULL)
		fuzz_fail("%s: %s", fe.dir, strerror(errno));
	snprintf(fe.front_path, sizeof fe.front_path, "%s/front.sock", fe.dir);
	snprintf(fe.mcpd_path, sizeof fe.mcpd_path, "%s/mcpd.sock", fe.dir);
	snprintf(fe.token_path, sizeof fe.token_path, "%s/tokens", fe.dir);
	atexit(fe_cleanup);
	fe_write_tokens();
	fe.mcpd_fd = fe_listen_unix(fe.mcpd_path);

	if (asprintf(&json, FE_CONF, fe.dir) == -1)
		abort();
	memset(&diags, 0, sizeof diags);
	if ((fe.conf = conf_http_from_text(json, 0, &diags)) == NULL)
		fuzz_fail("the front's conf: %s", diags.n > 0 ?
		    diags.v[0].text : "?");
	conf_diags_free(&diags);
	free(json);
}

/* The stand-in mcpd. */

static void
fe_mcpd_free(struct fe_mcpd *m)
{
	TAILQ_REMOVE(&fe.mcpds, m, entry);
	bufferevent_free(m->bev);
	evbuffer_free(m->later);
	free(m);
}

static void
fe_mcpd_send(struct fe_mcpd *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
fe_mcpd_send(struct fe_mcpd *m, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	evbuffer_add_vprintf(bufferevent_get_output(m->bev), fmt, ap);
	va_end(ap);
	evbuffer_add(bufferevent_get_output(m->bev), "\n", 1);
}

/* mcpd/attach, checked and answered by the server's name: 0, or -1 gone. */
static int
fe_mcpd_attach(struct fe_mcpd *m, const cJSON *msg)
{
	const cJSON	*method, *params, *server, *token;
	const char	*name;

	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	server = cJSON_GetObjectItemCaseSensitive(params, "server");
	token = cJSON_GetObjectItemCaseSensitive(params, "http_token");
	FUZZ_CHECK(cJSON_IsString(method) &&
	    strcmp(method->valuestring, MCPD_METHOD_ATTACH) == 0,
	    "the first line to mcpd is not %s", MCPD_METHOD_ATTACH);
	FUZZ_CHECK(cJSON_IsString(server) && cJSON_IsString(token),
	    "an attach without server or http_token");
	name = server->valuestring;
	FUZZ_CHECK(*name != '\0' && strlen(name) <= 128 &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == strlen(name), "attached to '%s'", name);
	FUZZ_CHECK(strcmp(token->valuestring, "fuzz") == 0 ||
	    (strcmp(token->valuestring, "narrow") == 0 &&
	    strcmp(name, "alpha") == 0), "token '%s' on '%s'",
	    token->valuestring, name);
	if (strcmp(name, "gone") == 0) {
		fe_mcpd_free(m);
		return (-1);
	}
	if (strcmp(name, "garbage") == 0)
		fe_mcpd_send(m, "this is not JSON");
	else if (strcmp(name, "missing") == 0 || strcmp(name, "denied") == 0 ||
	    strcmp(name, "full") == 0 || strcmp(name, "refuse") == 0)
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpd-http-attach\","
		    "\"error\":{\"code\":%d,\"message\":\"no\"}}",
		    name[0] == 'm' ? MCPD_ERR_UNKNOWN_SERVER : name[0] == 'd' ?
		    MCPD_ERR_ACCESS_DENIED : name[0] == 'f' ? MCPD_ERR_LIMIT :
		    -32000);
	else
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpd-http-attach\","
		    "\"result\":{\"server\":\"%s\"}}", name);
	m->attached = 1;
	return (0);
}

static int
fe_mcpd_modern(const cJSON *params)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    params, "_meta"), "io.modelcontextprotocol/protocolVersion");
	return (cJSON_IsString(v));
}

/* A request from the front's client: answered, or not (yet). */
static void
fe_mcpd_request(struct fe_mcpd *m, const char *method, const cJSON *params,
    const char *id)
{
	if (strncmp(method, "hang", 4) == 0 || strncmp(method, "slow", 4) == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/progress\",\"params\":{\"progressToken\":"
		    "%s,\"progress\":1}}", id);
		if (method[0] == 's')
			evbuffer_add_printf(m->later, "{\"jsonrpc\":\"2.0\","
			    "\"id\":%s,\"result\":{\"content\":[]}}\n", id);
		return;
	}
	if (strcmp(method, "x-gone") == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/message\",\"params\":{\"level\":"
		    "\"error\",\"data\":\"going\"}}");
		m->closing = FE_GONE_TURNS;
		return;
	}
	if (strcmp(method, "x-error") == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":"
		    "{\"code\":-32601,\"message\":\"no such method\"}}", id);
		return;
	}
	if (strcmp(method, "initialize") == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":"
		    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
		    "{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\","
		    "\"version\":\"1\"}}}", id);
		return;
	}
	if (strcmp(method, "tools/call") == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/message\",\"params\":{\"level\":\"info\","
		    "\"data\":\"calling\"}}");
		if (fe_mcpd_modern(params) && !cJSON_IsString(
		    cJSON_GetObjectItemCaseSensitive(params, "requestState"))) {
			fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
			    "\"result\":{\"resultType\":\"input_required\","
			    "\"requestState\":\"rs-%u\",\"inputRequests\":{}}}",
			    id, ++m->requests);
			return;
		}
	}
	fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":"
	    "[]}}", id);
}

/* A line from the front: -1 if m is gone. */
static int
fe_mcpd_line(struct fe_mcpd *m, const char *line, size_t len)
{
	const cJSON	*method, *id;
	cJSON		*msg;
	char		*idtext;
	int		 rc;

	msg = cJSON_ParseWithLength(line, len);
	FUZZ_CHECK(cJSON_IsObject(msg), "a line to mcpd is not a JSON object: "
	    "%.*s", (int)(len > 200 ? 200 : len), line);
	if (!m->attached) {
		rc = fe_mcpd_attach(m, msg);
		cJSON_Delete(msg);
		return (rc);
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsString(method) && id != NULL) {
		idtext = cJSON_PrintUnformatted(id);
		fe_mcpd_request(m, method->valuestring,
		    cJSON_GetObjectItemCaseSensitive(msg, "params"), idtext);
		free(idtext);
	} else if (cJSON_IsString(method) &&
	    strcmp(method->valuestring, "notifications/initialized") == 0) {
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":"
		    "\"roots/list\"}");
		fe_mcpd_send(m, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/tools/list_changed\"}");
	}
	cJSON_Delete(msg);
	return (0);
}

static void
fe_mcpd_read_cb(struct bufferevent *bev, void *arg)
{
	struct fe_mcpd	*m = arg;
	char		*line;
	size_t		 len;

	while ((line = evbuffer_readln(bufferevent_get_input(bev), &len,
	    EVBUFFER_EOL_LF)) != NULL) {
		fe.news++;
		if (fe.log)
			fprintf(stderr, "to mcpd: %s\n", line);
		if (fe_mcpd_line(m, line, len) != 0) {
			free(line);
			return;
		}
		free(line);
	}
}

static void
fe_mcpd_event_cb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	fe.news++;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		fe_mcpd_free(arg);
}

static void
fe_mcpd_accept_cb(struct evconnlistener *lev, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct fe_mcpd	*m;

	(void)lev;
	(void)sa;
	(void)salen;
	(void)arg;
	fe.news++;
	m = xcalloc(1, sizeof *m);
	m->later = evbuffer_new();
	m->bev = bufferevent_socket_new(fe.base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(m->bev, fe_mcpd_read_cb, NULL, fe_mcpd_event_cb, m);
	bufferevent_enable(m->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&fe.mcpds, m, entry);
}

/* The clients. */

static int
fe_client_open(void)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, fe.front_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		fuzz_fail("socket: %s", strerror(errno));
	/* The listener's backlog takes it even while evhttp is paused. */
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0)
		fuzz_fail("connect %s: %s", fe.front_path, strerror(errno));
	return (fd);
}

/* What the front wrote: read and dropped, its first bytes checked. */
static void
fe_client_drain(struct fe_client *c)
{
	char	 buf[16384];
	ssize_t	 n;
	size_t	 keep;

	if (c->fd == -1 || c->eof)
		return;
	while ((n = read(c->fd, buf, sizeof buf)) > 0) {
		fe.news++;
		if (fe.log)
			fprintf(stderr, "client %d: %.*s\n",
			    (int)(c - fe.clients), (int)n, buf);
		if (c->got < sizeof c->head) {
			keep = sizeof c->head - c->got;
			if (keep > (size_t)n)
				keep = n;
			memcpy(c->head + c->got, buf, keep);
		}
		c->got += n;
		if (c->got >= sizeof c->head)
			FUZZ_CHECK(memcmp(c->head, "HTTP/", 5) == 0,
			    "a reply starts '%.5s'", c->head);
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		fe.news++;
		c->eof = 1;
	}
}

static void
fe_turn(void)
{
	struct fe_mcpd	*m, *next;
	size_t		 i;

	event_base_loop(fe.base, EVLOOP_NONBLOCK);
	TAILQ_FOREACH_SAFE(m, &fe.mcpds, entry, next) {
		if (m->closing > 0 && --m->closing == 0) {
			fe.news++;
			fe_mcpd_free(m);
		}
	}
	for (i = 0; i < FE_CONNS; i++)
		fe_client_drain(&fe.clients[i]);
}

/* The loop run until FE_IDLE_TURNS turns see nothing new, or max turns. */
static void
fe_settle(int max)
{
	unsigned	 seen;
	int		 idle = 0, i;

	for (i = 0; i < max && idle < FE_IDLE_TURNS; i++) {
		seen = fe.news;
		fe_turn();
		idle = fe.news == seen ? idle + 1 : 0;
	}
}

static int
fe_all_closed(void)
{
	size_t	 i;

	for (i = 0; i < FE_CONNS; i++)
		if (fe.clients[i].fd != -1 && !fe.clients[i].eof)
			return (0);
	return (1);
}

static void
fe_write(struct fe_client *c, const uint8_t *p, size_t len)
{
	ssize_t	 n;
	int	 tries = 0;

	if (c->fd == -1)
		c->fd = fe_client_open();
	while (len > 0 && !c->eof && tries++ < FE_WRITE_TRIES) {
		n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= n;
			continue;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			break;		/* the front closed it */
		fe_turn();
	}
}

/* The input's chunks, to the connections in turn. */
static void
fe_play(const uint8_t *data, size_t size)
{
	const uint8_t	*p, *end, *cut;
	size_t		 conn = 0;
	int		 chunks = 0;
	uint8_t		 sep;

	if (size == 0)
		return;
	sep = data[0];
	p = data + 1;
	end = data + size;
	while (p < end) {
		cut = ++chunks < FE_CHUNKS_MAX ? memchr(p, sep, end - p) : NULL;
		if (cut == NULL)
			cut = end;
		if (cut == p)
			conn = (conn + 1) % FE_CONNS;
		else {
			if (fe.log)
				fprintf(stderr, "write %zu bytes to %zu\n",
				    (size_t)(cut - p), conn);
			fe_write(&fe.clients[conn], p, cut - p);
			fe_settle(FE_TURNS_CHUNK);
		}
		p = cut < end ? cut + 1 : end;
	}
}

/* The clients' ends shut; then the replies held for "slow" sent. */
static void
fe_end_clients(void)
{
	struct fe_mcpd	*m;
	size_t		 i;
	int		 turns;

	for (i = 0; i < FE_CONNS; i++)
		if (fe.clients[i].fd != -1)
			(void)shutdown(fe.clients[i].fd, SHUT_WR);
	for (turns = 0; turns < FE_TURNS_END && !fe_all_closed(); turns++)
		fe_turn();
	TAILQ_FOREACH(m, &fe.mcpds, entry)
		bufferevent_write_buffer(m->bev, m->later);
	fe_settle(FE_TURNS_CHUNK);
}

static void
fe_run(const uint8_t *data, size_t size)
{
	struct hfront	 f;
	size_t		 i;

	fe.sessions = 0;
	fe.news = 0;
	TAILQ_INIT(&fe.mcpds);
	for (i = 0; i < FE_CONNS; i++) {
		memset(&fe.clients[i], 0, sizeof fe.clients[i]);
		fe.clients[i].fd = -1;
	}
	if ((fe.base = event_base_new()) == NULL)
		fuzz_fail("event_base_new");
	fe.mcpd_lev = evconnlistener_new(fe.base, fe_mcpd_accept_cb, NULL, 0,
	    -1, fe.mcpd_fd);

	memset(&f, 0, sizeof f);
	f.base = fe.base;
	f.conf = fe.conf;
	f.socket_path = fe.mcpd_path;
	f.token_path = fe.token_path;
	f.tokens = fe.tokens;
	if (hfront_open(&f) != 0)
		fuzz_fail("the front does not listen on %s", fe.front_path);
	fe.tokens = f.tokens;

	fe_play(data, size);
	fe_end_clients();
	hsess_tick(&f);
	hmodern_tick(&f);
	fe_settle(FE_TURNS_CHUNK);
	for (i = 0; i < FE_CONNS; i++)
		if (fe.clients[i].fd != -1)
			close(fe.clients[i].fd);
	fe_settle(FE_TURNS_CHUNK);

	hfront_close(&f);
	FUZZ_CHECK(f.nconns == 0 && TAILQ_EMPTY(&f.conns), "%zu connections "
	    "left", f.nconns);
	FUZZ_CHECK(f.nsessions == 0 && f.nmoderns == 0, "%zu sessions, %zu "
	    "requests left", f.nsessions, f.nmoderns);
	while (!TAILQ_EMPTY(&fe.mcpds))
		fe_mcpd_free(TAILQ_FIRST(&fe.mcpds));
	evconnlistener_free(fe.mcpd_lev);
	event_base_free(fe.base);
	fe.base = NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fe.ready)
		fe_init();
	fe_run(data, size);
	return (0);
}
