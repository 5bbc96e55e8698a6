/*
 * session.c -- a synchronous MCP client over an attached mcpd connection,
 * for people and scripts: `mcpctl tools`, `mcpctl call` and `mcpctl ping`.
 *
 * One request is outstanding at a time.  While waiting for it the session
 * keeps reading (so a server that talks while we write cannot deadlock
 * us), skips notifications and late replies, and answers the server's
 * own requests: ping with {}, anything else with method not found, since
 * this client declares no capabilities.  Incoming lines go through the
 * shared framer, so a reply of any size up to SESSION_MAX_MESSAGE_BYTES
 * is read in linear time.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "connect.h"
#include "esc.h"
#include "frame.h"
#include "proto.h"
#include "rpc.h"
#include "session.h"
#include "xmalloc.h"

#define SESSION_MAX_MESSAGE_BYTES	(64 * 1024 * 1024)
#define SESSION_INIT_TIMEOUT_MS		60000
#define SESSION_LIST_TIMEOUT_MS		60000
#define SESSION_PING_TIMEOUT_MS		10000
#define SESSION_CLOSE_FLUSH_MS		1000
#define SESSION_MAX_PAGES		1000
#define SESSION_NAME_MAX_COLUMNS	40
/*
 * A tool call: mcpd times it out itself (request_timeout_ms, reset by
 * progress, at most ten times that); mcpctl gives up only when mcpd has
 * said nothing at all for this long, so a stuck mcpd cannot hang it.
 */
#define SESSION_CALL_IDLE_MS		(15 * 60 * 1000)

struct session {
	char		*server;
	int		 fd;
	struct frame	*frame;

	char		*out;		/* queued output: out[off, off + len) */
	size_t		 out_off;
	size_t		 out_len;
	size_t		 out_size;

	int64_t		 next_id;
	int		 idle_deadline;	/* any message from mcpd extends it */
	cJSON		*init_result;
	int		 read_eof;
	int		 read_errno;
	int		 write_dead;
};

static void __attribute__((format(printf, 2, 3)))
session_warnx(const char *label, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	char	*shown;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	shown = esc_text(text, strlen(text), ESC_KEEP_TAB);
	fprintf(stderr, "mcpctl: %s: %s\n", label, shown);
	free(shown);
	free(text);
}

/*
 * Output.
 */

/* Queue one message (owned) for sending. */
static void
session_queue(struct session *s, cJSON *msg)
{
	char	*text;
	size_t	 len;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (s->write_dead) {
		free(text);
		return;
	}
	len = strlen(text);
	if (s->out_off > 0) {
		memmove(s->out, s->out + s->out_off, s->out_len);
		s->out_off = 0;
	}
	if (s->out_size - s->out_len < len + 1) {
		s->out_size = s->out_len + len + 1;
		s->out = xrealloc(s->out, s->out_size);
	}
	memcpy(s->out + s->out_len, text, len);
	s->out[s->out_len + len] = '\n';
	s->out_len += len + 1;
	free(text);
}

/* Send what the socket takes now. */
static void
session_flush(struct session *s)
{
	ssize_t	 n;

	while (s->out_len > 0 && !s->write_dead) {
		n = send(s->fd, s->out + s->out_off, s->out_len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			/* mcpd is gone; reading will tell us the rest. */
			s->write_dead = 1;
			s->out_len = 0;
			break;
		}
		s->out_off += (size_t)n;
		s->out_len -= (size_t)n;
	}
	if (s->out_len == 0)
		s->out_off = 0;
}

/*
 * Input.
 */

/* Wait up to timeout_ms (-1: forever) for the socket, then move bytes. */
static int
session_io(struct session *s, int timeout_ms)
{
	struct pollfd	 pfd;
	char		*space;
	size_t		 avail;
	ssize_t		 n;

	pfd.fd = s->fd;
	pfd.events = 0;
	if (!s->read_eof)
		pfd.events |= POLLIN;
	if (s->out_len > 0 && !s->write_dead)
		pfd.events |= POLLOUT;
	if (poll(&pfd, 1, timeout_ms) == -1)
		return (errno == EINTR ? 0 : -1);
	if (pfd.revents & (POLLOUT | POLLERR | POLLHUP))
		session_flush(s);
	if (s->read_eof || !(pfd.revents & (POLLIN | POLLERR | POLLHUP)))
		return (0);

	/* The framer's memory bound holds for reads of one chunk at most. */
	space = frame_space(s->frame, &avail);
	if (avail > FRAME_READ_CHUNK_BYTES)
		avail = FRAME_READ_CHUNK_BYTES;
	n = read(s->fd, space, avail);
	if (n > 0)
		frame_commit(s->frame, (size_t)n);
	else if (n == 0)
		s->read_eof = 1;
	else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
		s->read_eof = 1;
		s->read_errno = errno;
	}
	return (0);
}

static void
session_answer(struct session *s, const cJSON *request)
{
	const cJSON	*id, *method;
	char		*text;

	id = cJSON_GetObjectItemCaseSensitive(request, "id");
	method = cJSON_GetObjectItemCaseSensitive(request, "method");
	if (strcmp(method->valuestring, "ping") == 0) {
		session_queue(s, rpc_make_result(id, cJSON_CreateObject()));
		return;
	}
	xasprintf(&text, "method not found: mcpctl does not handle %.64s",
	    method->valuestring);
	session_queue(s, rpc_make_error(id, RPC_METHOD_NOT_FOUND, text, NULL));
	free(text);
}

/*
 * Look at one incoming line: the reply to id is returned (the caller
 * frees it); anything else is answered if it is a request, else dropped.
 */
static cJSON *
session_take_line(struct session *s, const char *line, size_t len,
    const cJSON *id)
{
	cJSON	*msg;

	msg = cJSON_ParseWithLength(line, len);
	switch (rpc_classify(msg)) {
	case RPC_KIND_RESPONSE:
		if (cJSON_Compare(id, cJSON_GetObjectItemCaseSensitive(msg,
		    "id"), 1))
			return (msg);
		break;		/* a late reply to a request we gave up on */
	case RPC_KIND_REQUEST:
		session_answer(s, msg);
		session_flush(s);
		break;
	case RPC_KIND_NOTIFICATION:
	case RPC_KIND_INVALID:
		break;
	}
	cJSON_Delete(msg);
	return (NULL);
}

/* Tell the server we no longer wait for request id. */
static void
session_cancel(struct session *s, const cJSON *id, const char *reason)
{
	cJSON	*params;

	params = cJSON_CreateObject();
	cJSON_AddItemToObject(params, "requestId", cJSON_Duplicate(id, 1));
	cJSON_AddStringToObject(params, "reason", reason);
	session_queue(s, rpc_make_notification("notifications/cancelled",
	    params));
}

/*
 * Read until the response to request want arrives: 0 and *reply, or -1
 * after printing why not.
 */
static int
session_wait(struct session *s, const char *method, int64_t want,
    int timeout_ms, cJSON **reply)
{
	struct frame_msg	 m;
	enum frame_event	 ev;
	cJSON			*id;
	char			 want_text[32];
	size_t			 want_len;
	uint64_t		 deadline = 0;
	int64_t			 left;

	want_len = (size_t)snprintf(want_text, sizeof want_text, "%lld",
	    (long long)want);
	id = cJSON_CreateNumber((double)want);
	if (timeout_ms >= 0)
		deadline = clock_now_ms() + (uint64_t)timeout_ms;
	session_flush(s);
	for (;;) {
		while ((ev = frame_next(s->frame, &m)) != FRAME_NONE) {
			if (ev == FRAME_LINE) {
				*reply = session_take_line(s, m.line, m.len,
				    id);
				if (*reply != NULL)
					goto done;
				if (s->idle_deadline && timeout_ms >= 0)
					deadline = clock_now_ms() +
					    (uint64_t)timeout_ms;
			} else if (ev == FRAME_OVERSIZE) {
				if (m.id == NULL || m.id_len != want_len ||
				    memcmp(m.id, want_text, want_len) != 0)
					continue;
				session_warnx(s->server, "%s: the reply has "
				    "%zu bytes, more than mcpctl's limit of "
				    "%d", method, m.total,
				    SESSION_MAX_MESSAGE_BYTES);
				goto fail;
			} else if (ev == FRAME_GARBAGE) {
				session_warnx(s->server, "%s: mcpd sent %zu "
				    "bytes that are not a message", method,
				    m.total);
				s->read_eof = 1;
				goto fail;
			}
		}
		if (s->read_eof) {
			if (s->read_errno != 0 && s->read_errno != ECONNRESET)
				session_warnx(s->server, "%s: mcpd closed the "
				    "connection: %s", method,
				    strerror(s->read_errno));
			else
				session_warnx(s->server, "%s: mcpd closed the "
				    "connection", method);
			goto fail;
		}
		left = -1;
		if (deadline != 0 && (left = (int64_t)deadline -
		    (int64_t)clock_now_ms()) <= 0) {
			session_warnx(s->server, "%s: no %s within %d ms",
			    method, s->idle_deadline ? "word from mcpd" :
			    "reply", timeout_ms);
			session_cancel(s, id, "mcpctl timed out");
			cJSON_Delete(id);
			return (-2);
		}
		if (session_io(s, (int)left) != 0) {
			session_warnx(s->server, "poll: %s", strerror(errno));
			goto fail;
		}
	}

done:
	cJSON_Delete(id);
	return (0);
fail:
	cJSON_Delete(id);
	return (-1);
}

/*
 * Sessions.
 */

int
session_request(struct session *s, const char *method, cJSON *params,
    cJSON **result, int timeout_ms)
{
	cJSON		*id, *reply;
	const cJSON	*error, *message, *code;
	const char	*text;
	size_t		 len;
	int64_t		 want;

	*result = NULL;
	want = ++s->next_id;
	id = cJSON_CreateNumber((double)want);
	session_queue(s, rpc_make_request(id, method, params));
	cJSON_Delete(id);
	switch (session_wait(s, method, want, timeout_ms, &reply)) {
	case 0:
		break;
	case -2:
		return (CONNECT_EXIT_UNREACHABLE);	/* mcpd is stuck */
	default:
		return (CONNECT_EXIT_FAILED);
	}

	if ((error = cJSON_GetObjectItemCaseSensitive(reply, "error")) !=
	    NULL) {
		message = cJSON_GetObjectItemCaseSensitive(error, "message");
		code = cJSON_GetObjectItemCaseSensitive(error, "code");
		text = cJSON_IsString(message) ? message->valuestring :
		    "the server returned an error";
		/* mcpd's own messages start with the server's name. */
		len = strlen(s->server);
		if (strncmp(text, s->server, len) == 0 &&
		    strncmp(text + len, ": ", 2) == 0)
			text += len + 2;
		session_warnx(s->server, "%s: %s (error %d)", method, text,
		    cJSON_IsNumber(code) ? code->valueint : 0);
		cJSON_Delete(reply);
		return (CONNECT_EXIT_FAILED);
	}
	*result = cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
	cJSON_Delete(reply);
	return (CONNECT_EXIT_OK);
}

static int
session_version_known(const char *version)
{
	static const char	*versions[] = MCPD_MCP_VERSIONS_ACCEPTED;
	size_t			 i;

	for (i = 0; versions[i] != NULL; i++) {
		if (strcmp(versions[i], version) == 0)
			return (1);
	}
	return (0);
}

int
session_open(const char *socket_path, const char *server,
    struct session **out)
{
	struct session	*s;
	cJSON		*params, *info, *result;
	const cJSON	*version;
	char		*extra;
	size_t		 extra_len;
	int		 fd, rc, flags;

	*out = NULL;
	if ((rc = connect_attach(socket_path, server, server, &fd, &extra,
	    &extra_len)) != CONNECT_EXIT_OK)
		return (rc);
	if ((flags = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);

	s = xcalloc(1, sizeof *s);
	s->server = xstrdup(server);
	s->fd = fd;
	s->frame = frame_new(SESSION_MAX_MESSAGE_BYTES);
	frame_push(s->frame, extra, extra_len);
	free(extra);

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", MCPD_MCP_VERSION);
	cJSON_AddObjectToObject(params, "capabilities");
	info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", "mcpctl");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	if ((rc = session_request(s, "initialize", params, &result,
	    SESSION_INIT_TIMEOUT_MS)) != CONNECT_EXIT_OK)
		goto fail;
	s->init_result = result;
	version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (!cJSON_IsString(version) ||
	    !session_version_known(version->valuestring)) {
		session_warnx(server, "the server speaks MCP %s, which mcpctl "
		    "does not", cJSON_IsString(version) ?
		    version->valuestring : "(no version)");
		rc = CONNECT_EXIT_FAILED;
		goto fail;
	}
	session_queue(s, rpc_make_notification("notifications/initialized",
	    NULL));
	session_flush(s);
	*out = s;
	return (CONNECT_EXIT_OK);

fail:
	session_close(s);
	return (rc);
}

const cJSON *
session_init_result(const struct session *s)
{
	return (s->init_result);
}

void
session_close(struct session *s)
{
	uint64_t	 deadline;
	int64_t		 left;

	if (s == NULL)
		return;
	/* Let queued answers and notifications go, briefly. */
	deadline = clock_now_ms() + SESSION_CLOSE_FLUSH_MS;
	session_flush(s);
	while (s->out_len > 0 && !s->write_dead) {
		left = (int64_t)deadline - (int64_t)clock_now_ms();
		if (left <= 0 || session_io(s, (int)left) != 0)
			break;
	}
	close(s->fd);
	frame_free(s->frame);
	cJSON_Delete(s->init_result);
	free(s->out);
	free(s->server);
	free(s);
}

/*
 * Output helpers.
 */

static const char *
session_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

static void
session_print_json(FILE *f, const cJSON *o)
{
	char	*text;

	if ((text = cJSON_Print(o)) == NULL)
		return;
	fprintf(f, "%s\n", text);
	free(text);
}

/*
 * Print a server's text, ending with exactly the newlines it has, or one;
 * its lines and tabs kept, any other control character escaped.
 */
static void
session_print_text(FILE *f, const char *text)
{
	char	*shown;
	size_t	 len;

	shown = esc_text(text, strlen(text), ESC_KEEP_TAB | ESC_KEEP_NEWLINE);
	len = strlen(shown);
	fwrite(shown, 1, len, f);
	if (len == 0 || shown[len - 1] != '\n')
		fputc('\n', f);
	free(shown);
}

/* One field of a server's answer made printable; a new string. */
static char *
session_esc(const char *s)
{
	return (esc_text(s, strlen(s), 0));
}

/* Decoded size of base64 text, without decoding it. */
static size_t
session_base64_bytes(const char *data)
{
	size_t	 chars = 0;

	for (; *data != '\0'; data++) {
		if (strchr("=\r\n\t ", *data) == NULL)
			chars++;
	}
	return (chars * 3 / 4);
}

static void
session_print_content_item(FILE *f, const cJSON *item)
{
	const char	*type, *text, *mime, *uri, *name, *data;
	const cJSON	*resource;
	char		*etype, *emime = NULL, *euri = NULL, *ename = NULL;

	type = session_str(item, "type");
	if (type == NULL)
		type = "?";
	etype = session_esc(type);
	mime = session_str(item, "mimeType");
	if (strcmp(type, "text") == 0 &&
	    (text = session_str(item, "text")) != NULL) {
		session_print_text(f, text);
	} else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) {
		data = session_str(item, "data");
		emime = session_esc(mime != NULL ? mime : "(no type)");
		fprintf(f, "[%s %s, %zu bytes]\n", etype, emime,
		    data != NULL ? session_base64_bytes(data) : 0);
	} else if (strcmp(type, "resource_link") == 0) {
		uri = session_str(item, "uri");
		name = session_str(item, "name");
		euri = session_esc(uri != NULL ? uri : "?");
		ename = session_esc(name != NULL ? name : "");
		fprintf(f, "[resource link %s%s%s%s]\n", euri,
		    name != NULL ? " (" : "", ename, name != NULL ? ")" : "");
	} else if (strcmp(type, "resource") == 0) {
		resource = cJSON_GetObjectItemCaseSensitive(item, "resource");
		uri = session_str(resource, "uri");
		mime = session_str(resource, "mimeType");
		euri = session_esc(uri != NULL ? uri : "?");
		if ((text = session_str(resource, "text")) != NULL) {
			fprintf(f, "[resource %s]\n", euri);
			session_print_text(f, text);
		} else {
			data = session_str(resource, "blob");
			emime = session_esc(mime != NULL ? mime : "(no type)");
			fprintf(f, "[resource %s %s, %zu bytes]\n", euri, emime,
			    data != NULL ? session_base64_bytes(data) : 0);
		}
	} else
		fprintf(f, "[%s content]\n", etype);
	free(etype);
	free(emime);
	free(euri);
	free(ename);
}

/*
 * Commands.
 */

int
session_cmd_tools(const char *socket_path, int json, const char *server)
{
	struct session	*s;
	cJSON		*tools, *result = NULL, *params, *page, *tool;
	const cJSON	*next;
	const char	*name, *desc, *end;
	char		*cursor = NULL, *ename, *edesc;
	size_t		 len;
	int		 rc, pages, width = 4;

	if ((rc = session_open(socket_path, server, &s)) != CONNECT_EXIT_OK)
		return (rc);
	tools = cJSON_CreateArray();
	for (pages = 1;; pages++) {
		params = NULL;
		if (cursor != NULL) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "cursor", cursor);
		}
		if ((rc = session_request(s, "tools/list", params, &result,
		    SESSION_LIST_TIMEOUT_MS)) != CONNECT_EXIT_OK)
			goto out;
		page = cJSON_GetObjectItemCaseSensitive(result, "tools");
		if (!cJSON_IsArray(page)) {
			session_warnx(server, "tools/list: the result has no "
			    "tools array");
			rc = CONNECT_EXIT_FAILED;
			goto out;
		}
		while ((tool = cJSON_DetachItemFromArray(page, 0)) != NULL)
			cJSON_AddItemToArray(tools, tool);
		next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
		if (!cJSON_IsString(next) || (cursor != NULL &&
		    strcmp(cursor, next->valuestring) == 0))
			break;
		if (pages == SESSION_MAX_PAGES) {
			session_warnx(server, "tools/list: gave up after %d "
			    "pages", pages);
			rc = CONNECT_EXIT_FAILED;
			goto out;
		}
		free(cursor);
		cursor = xstrdup(next->valuestring);
		cJSON_Delete(result);
		result = NULL;
	}

	if (json) {
		session_print_json(stdout, tools);
		goto out;
	}
	cJSON_ArrayForEach(tool, tools) {
		name = session_str(tool, "name");
		len = 1;
		if (name != NULL) {
			ename = session_esc(name);
			len = strlen(ename);
			free(ename);
		}
		if ((int)len > width && len <= SESSION_NAME_MAX_COLUMNS)
			width = (int)len;
	}
	cJSON_ArrayForEach(tool, tools) {
		name = session_str(tool, "name");
		desc = session_str(tool, "description");
		ename = session_esc(name != NULL ? name : "?");
		if (desc == NULL) {
			printf("%s\n", ename);
			free(ename);
			continue;
		}
		/* The first line that says something. */
		while (*desc == '\n' || *desc == '\r' || *desc == ' ' ||
		    *desc == '\t')
			desc++;
		end = desc + strcspn(desc, "\r\n");
		while (end > desc && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		edesc = esc_text(desc, (size_t)(end - desc), 0);
		printf("%-*s  %s\n", width, ename, edesc);
		free(edesc);
		free(ename);
	}
	if (cJSON_GetArraySize(tools) == 0)
		session_warnx(server, "the server offers no tools");

out:
	free(cursor);
	cJSON_Delete(result);
	cJSON_Delete(tools);
	session_close(s);
	return (rc);
}

/* Is text exactly a JSON number (so "007" or "1." stay strings)? */
static int
session_is_json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else
		return (0);
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return (*p == '\0');
}

/*
 * A KEY=VALUE value: JSON if it parses, else the text as a string.
 * Numbers keep their exact text, so big integers are not rounded.
 */
static cJSON *
session_call_value(const char *text)
{
	cJSON	*v;

	if (session_is_json_number(text))
		return (cJSON_CreateRaw(text));
	v = cJSON_ParseWithOpts(text, NULL, 1);
	if (v != NULL && !cJSON_IsNumber(v))
		return (v);
	cJSON_Delete(v);
	return (cJSON_CreateString(text));
}

static int
session_call_arguments(int argc, char **argv, cJSON **out)
{
	cJSON		*args;
	const char	*p, *eq, *end = NULL;
	char		*key;
	int		 i;

	*out = NULL;
	p = argc > 0 ? argv[0] + strspn(argv[0], " \t\r\n") : "";
	if (*p == '{') {
		if (argc > 1) {
			fprintf(stderr, "mcpctl: call: a JSON object must be "
			    "the only argument after the tool name\n");
			return (CONNECT_EXIT_USAGE);
		}
		args = cJSON_ParseWithOpts(argv[0], &end, 1);
		if (!cJSON_IsObject(args)) {
			fprintf(stderr, "mcpctl: call: the arguments are not a "
			    "valid JSON object (error at byte %zu)\n",
			    args == NULL && end != NULL ?
			    (size_t)(end - argv[0]) : (size_t)0);
			cJSON_Delete(args);
			return (CONNECT_EXIT_USAGE);
		}
		*out = args;
		return (CONNECT_EXIT_OK);
	}

	args = cJSON_CreateObject();
	for (i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL || eq == argv[i]) {
			fprintf(stderr, "mcpctl: call: expected KEY=VALUE or "
			    "one JSON object, got \"%s\"\n", argv[i]);
			cJSON_Delete(args);
			return (CONNECT_EXIT_USAGE);
		}
		key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		if (cJSON_GetObjectItemCaseSensitive(args, key) != NULL) {
			fprintf(stderr, "mcpctl: call: argument \"%s\" given "
			    "twice\n", key);
			free(key);
			cJSON_Delete(args);
			return (CONNECT_EXIT_USAGE);
		}
		cJSON_AddItemToObject(args, key, session_call_value(eq + 1));
		free(key);
	}
	*out = args;
	return (CONNECT_EXIT_OK);
}

int
session_cmd_call(const char *socket_path, int json, const char *server,
    const char *tool, int argc, char **argv)
{
	struct session	*s;
	cJSON		*args, *params, *result;
	const cJSON	*content, *item, *structured;
	FILE		*f;
	int		 rc, is_error;

	if ((rc = session_call_arguments(argc, argv, &args)) !=
	    CONNECT_EXIT_OK)
		return (rc);
	if ((rc = session_open(socket_path, server, &s)) != CONNECT_EXIT_OK) {
		cJSON_Delete(args);
		return (rc);
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", tool);
	cJSON_AddItemToObject(params, "arguments", args);
	/* mcpd times tool calls out (and resets on progress), not us. */
	s->idle_deadline = 1;
	rc = session_request(s, "tools/call", params, &result,
	    SESSION_CALL_IDLE_MS);
	session_close(s);
	if (rc != CONNECT_EXIT_OK)
		return (rc);

	is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
	    "isError"));
	if (json)
		session_print_json(stdout, result);
	else {
		f = stdout;
		if (is_error) {
			fflush(stdout);
			session_warnx(server, "%s: the tool reported an error:",
			    tool);
			f = stderr;
		}
		content = cJSON_GetObjectItemCaseSensitive(result, "content");
		cJSON_ArrayForEach(item, content)
			session_print_content_item(f, item);
		structured = cJSON_GetObjectItemCaseSensitive(result,
		    "structuredContent");
		if (structured != NULL)
			session_print_json(f, structured);
	}
	cJSON_Delete(result);
	return (is_error ? CONNECT_EXIT_FAILED : CONNECT_EXIT_OK);
}

int
session_cmd_ping(const char *socket_path, int json, const char *server)
{
	struct session	*s;
	cJSON		*result, *out;
	uint64_t	 start_us, elapsed_us;
	double		 ms;
	int		 rc;

	if ((rc = session_open(socket_path, server, &s)) != CONNECT_EXIT_OK)
		return (rc);
	start_us = clock_now_us();
	rc = session_request(s, "ping", NULL, &result,
	    SESSION_PING_TIMEOUT_MS);
	elapsed_us = clock_now_us() - start_us;
	session_close(s);
	if (rc != CONNECT_EXIT_OK)
		return (rc);
	cJSON_Delete(result);

	ms = (double)elapsed_us / 1000.0;
	if (json) {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "server", server);
		cJSON_AddNumberToObject(out, "ms", ms);
		session_print_json(stdout, out);
		cJSON_Delete(out);
	} else
		printf("%s: pong in %.2f ms\n", server, ms);
	return (CONNECT_EXIT_OK);
}
