/*
 * fuzz_modern.c -- MCP 2026-07-28 messages in mcpd's terms
 * (src/modern.c), on any line a 2026 client or a server could send.
 *
 * The input is read two ways:
 * - as a JSON-RPC line (envelope_scan): its method sorted, whether it
 *   opens a 2026 session, its params._meta read (with and without the
 *   capabilities and client information taken out), and where the
 *   members 2026 adds go in its result (and in its other objects);
 * - as JSON (cJSON, as the layer reads params and results; a line cJSON
 *   cannot read, its params and result each alone), and its "params"
 *   and "result": a listen filter read against a server that
 *   can send everything, one that can send some, and none; the stream's
 *   acknowledgment and notifications under the line's id; a 2025 task as
 *   2026 names it; the tools that run as tasks; server/discover from it
 *   as an initialize result; the initialize mcpd opens a session with;
 *   an input_required result; the -32022 error's data;
 * - as a 2026 server's response (modern_input.c): its result read as a
 *   round of input requests, each made a request for the router, and
 *   the line retried with an answer to each.
 *
 * Invariants:
 * - every text printed is JSON cJSON reads, and when the input is strict
 *   JSON (the scanner took it) strict JSON too; the stream's messages are
 *   JSON-RPC lines the scanner takes;
 * - the acknowledgment and every notification on a stream carry the
 *   listen request's id back unchanged as subscriptionId, the method
 *   named, the uri given;
 * - modern_tail_at's offset lies inside the object's span, on its '}',
 *   "empty" exactly when only blanks precede it; the tail put there
 *   makes a line the scanner takes;
 * - _meta read twice says the same; a version is "ok" only when it is
 *   2026-07-28; capabilities and client information taken out are
 *   objects, and the capabilities' bits are what the request said;
 * - a refused filter gives a reason and holds nothing; an accepted one
 *   asks only for what was asked and the server can send (nothing of a
 *   server that sends nothing), its URIs and task ids as asked, each
 *   once, each found by modern_filter_has and has_task;
 * - a task converted has ttlMs and no ttl, the task's id and status;
 *   one refused leaves the output alone;
 * - server/discover lists 2026-07-28 first, is complete, private and
 *   uncached, carries no 2025 tasks capability, and the server's
 *   serverInfo in _meta;
 * - a round read is one of at most 16 requests of the three methods,
 *   under distinct keys, with a reason when refused and nothing held;
 *   each request for the router is a JSON-RPC request the scanner takes;
 *   a retry, when made, is a request with the new id, params with
 *   inputResponses (one per key) and the round's requestState.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "fuzz.h"
#include "modern.h"
#include "modern_input.h"
#include "modern_up.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "modern";

/* What a server's initialize result can offer a listen stream. */
static const char *fuzz_inits[] = {
	("{\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"prompts\":{\"listChanged\":true},\"resources\":"
	    "{\"subscribe\":true,\"listChanged\":true}}}"),
	("{\"capabilities\":{\"tools\":{\"listChanged\":true},"
	    "\"resources\":{\"listChanged\":true}}}"),
	"{}",
};

static const char *fuzz_kinds[] = {
	"toolsListChanged", "promptsListChanged", "resourcesListChanged",
};

/* Is the input strict JSON (then every text made of it is too)? */
static int	fuzz_strict;

/*
 * text is one JSON value: cJSON's (tamed: an id may hold "\ud800"), and
 * the scanner's when strict.
 */
static cJSON *
fuzz_json_ok(const char *what, const char *text)
{
	struct envelope	 env;
	cJSON		*json;
	char		*wrapped;
	size_t		 erroff;
	int		 n;

	FUZZ_CHECK(text != NULL, "%s: no text", what);
	json = fuzz_json_parse(text, strlen(text));
	FUZZ_CHECK(json != NULL, "%s is not JSON: %s", what, text);
	if (fuzz_strict) {
		n = xasprintf(&wrapped, "{\"x\":%s}", text);
		FUZZ_CHECK(envelope_scan(wrapped, (size_t)n, &env,
		    &erroff) == 0, "%s is not strict JSON (byte %zu): %s",
		    what, erroff, text);
		free(wrapped);
	}
	return (json);
}

/* A JSON-RPC line of the layer's: scanned, and cJSON's. */
static cJSON *
fuzz_line_ok(const char *what, const char *text, struct envelope *env)
{
	size_t	 erroff;

	FUZZ_CHECK(text != NULL, "%s: no text", what);
	FUZZ_CHECK(strchr(text, '\n') == NULL, "%s holds a newline: %s",
	    what, text);
	if (fuzz_strict)
		FUZZ_CHECK(envelope_scan(text, strlen(text), env,
		    &erroff) == 0, "%s is not a JSON-RPC line (byte %zu): %s",
		    what, erroff, text);
	return (fuzz_json_ok(what, text));
}

/*
 * The line's id and method.
 */

static void
fuzz_method(const char *line, const struct envelope *env)
{
	enum modern_method	 m;
	char			 name[64];

	m = modern_method(line, &env->method);
	FUZZ_CHECK(m >= MODERN_M_OTHER && m <= MODERN_M_TASK_CANCEL,
	    "method kind %d", (int)m);
	if (env->method.type != ENVELOPE_STRING) {
		FUZZ_CHECK(m == MODERN_M_OTHER, "a method that is no string "
		    "is kind %d", (int)m);
		return;
	}
	if (envelope_string_copy(line, &env->method, name, sizeof name) < 0)
		return;
	if (m == MODERN_M_MCPD)
		FUZZ_CHECK(strncmp(name, "mcpd/", 5) == 0, "%s is mcpd's",
		    name);
	if (strcmp(name, "server/discover") == 0)
		FUZZ_CHECK(m == MODERN_M_DISCOVER, "server/discover is kind "
		    "%d", (int)m);
	if (strcmp(name, "tools/call") == 0 || strcmp(name,
	    "prompts/get") == 0 || strcmp(name, "resources/read") == 0)
		FUZZ_CHECK(MODERN_TAKES_INPUT(m), "%s takes no input", name);
	else
		FUZZ_CHECK(!MODERN_TAKES_INPUT(m), "%s takes input", name);
}

static void
fuzz_initialize(const cJSON *caps, const cJSON *info)
{
	cJSON		*params, *c;
	const cJSON	*v;
	char		*text;

	params = modern_initialize_params(caps, info);
	text = fuzz_json_text(params);
	cJSON_Delete(params);
	params = fuzz_json_ok("initialize params", text);
	v = fuzz_json_member(params, "protocolVersion");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    "2025-11-25") == 0, "initialize params: %s", text);
	c = fuzz_json_member(params, "capabilities");
	FUZZ_CHECK(cJSON_IsObject(c), "initialize params: %s", text);
	for (v = c->child; v != NULL; v = v->next)
		FUZZ_CHECK(strcmp(v->string, "elicitation") == 0 ||
		    strcmp(v->string, "sampling") == 0, "the session is "
		    "asked for %s: %s", v->string, text);
	FUZZ_CHECK(cJSON_IsObject(fuzz_json_member(params, "clientInfo")),
	    "initialize params: %s", text);
	cJSON_Delete(params);
	free(text);
}

static void
fuzz_meta(const char *line, const struct envelope *env,
    struct modern_meta *mm)
{
	struct modern_meta	 again;
	cJSON			*caps, *info;
	int			 rc, rc2;

	rc = modern_meta_read(line, env, mm, NULL, NULL);
	rc2 = modern_meta_read(line, env, &again, &caps, &info);
	FUZZ_CHECK(rc == rc2 && memcmp(mm, &again, sizeof again) == 0,
	    "_meta read twice differs");
	FUZZ_CHECK(rc == 0 || rc == -1, "modern_meta_read: %d", rc);
	if (env->meta.type == ENVELOPE_ABSENT)
		FUZZ_CHECK(rc == 0 && !mm->versioned && mm->can == 0,
		    "no _meta, yet something read");
	else if (env->meta.type != ENVELOPE_OBJECT)
		FUZZ_CHECK(rc == -1, "a _meta that is no object read");
	if (rc != 0) {
		FUZZ_CHECK(caps == NULL && info == NULL, "a refused _meta "
		    "gave capabilities or information");
		return;
	}
	FUZZ_CHECK(memchr(mm->version, '\0', sizeof mm->version) != NULL &&
	    memchr(mm->level, '\0', sizeof mm->level) != NULL,
	    "unterminated version or level");
	if (mm->version_ok)
		FUZZ_CHECK(mm->versioned && strcmp(mm->version,
		    MODERN_VERSION) == 0, "version %s is ok", mm->version);
	if (!mm->versioned)
		FUZZ_CHECK(mm->version[0] == '\0', "unversioned, version %s",
		    mm->version);
	FUZZ_CHECK((mm->can & ~(unsigned int)(MODERN_CAN_ELICIT |
	    MODERN_CAN_SAMPLING | MODERN_CAN_ROOTS | MODERN_CAN_TASKS)) == 0,
	    "capability bits %#x", mm->can);
	if (caps != NULL) {
		FUZZ_CHECK(cJSON_IsObject(caps), "capabilities taken out are "
		    "no object");
		FUZZ_CHECK(modern_caps_can(caps) == mm->can, "capabilities "
		    "%#x, taken out %#x", mm->can, modern_caps_can(caps));
	} else
		FUZZ_CHECK(mm->can == 0, "capabilities %#x, none taken out",
		    mm->can);
	if (info != NULL)
		FUZZ_CHECK(cJSON_IsObject(info), "clientInfo taken out is "
		    "no object");
	fuzz_initialize(caps, info);
	cJSON_Delete(caps);
	cJSON_Delete(info);
}

static void
fuzz_opens(const char *line, const struct envelope *env,
    const struct modern_meta *mm)
{
	int	 opens;

	opens = modern_opens(line, env);
	FUZZ_CHECK(opens == 0 || opens == 1, "modern_opens: %d", opens);
	if (env->method.type == ENVELOPE_STRING && envelope_string_eq(line,
	    &env->method, "server/discover"))
		FUZZ_CHECK(opens, "server/discover opens no session");
	if (env->method.type != ENVELOPE_STRING)
		FUZZ_CHECK(!opens, "a line without a method opens a session");
	/* What names a version where 2026 clients write it opens one. */
	if (mm->versioned && env->method.type == ENVELOPE_STRING &&
	    memmem(line + env->meta.off, env->meta.len, "\""
	    MODERN_KEY_VERSION "\"", sizeof MODERN_KEY_VERSION + 1) != NULL)
		FUZZ_CHECK(opens, "a versioned request opens no session");
}

/* The tail 2026 adds, put where modern_tail_at says, in an object. */
static void
fuzz_tail(const char *line, size_t len, const struct envelope_value *v,
    const char *what)
{
	struct envelope_edit	 edit;
	struct envelope		 env;
	struct iovec		 iov[ENVELOPE_SPLICE_IOV(1)];
	const char		*tail;
	char			*out;
	size_t			 n, i, tail_len, outlen, erroff, j;
	long			 at;
	int			 empty = -1, blank = 1;

	if (v->type == ENVELOPE_ABSENT)
		return;
	at = modern_tail_at(line, v->off, v->len, &empty);
	if (v->type != ENVELOPE_OBJECT) {
		FUZZ_CHECK(at == -1, "%s is no object, tail at %ld", what, at);
		return;
	}
	FUZZ_CHECK(at >= 0, "%s is an object, no tail", what);
	FUZZ_CHECK((size_t)at >= v->off && (size_t)at < v->off + v->len,
	    "%s: tail at %ld, outside [%zu, %zu)", what, at, v->off,
	    v->off + v->len);
	FUZZ_CHECK(line[at] == '}', "%s: tail at '%c'", what, line[at]);
	for (j = v->off + 1; j < (size_t)at; j++) {
		if (line[j] != ' ' && line[j] != '\t' && line[j] != '\n' &&
		    line[j] != '\r')
			blank = 0;
	}
	FUZZ_CHECK(empty == blank, "%s: empty %d, blank %d", what, empty,
	    blank);
	tail = modern_result_tail(MODERN_M_LIST, !empty, &tail_len);
	edit.off = (size_t)at;
	edit.len = 0;
	edit.text = tail;
	edit.text_len = tail_len;
	n = envelope_splice(line, len, &edit, 1, iov, nitems(iov));
	FUZZ_CHECK(n > 0, "%s: the tail cannot be spliced", what);
	for (outlen = 0, i = 0; i < n; i++)
		outlen += iov[i].iov_len;
	out = xmalloc(outlen + 1);
	for (outlen = 0, i = 0; i < n; i++) {
		memcpy(out + outlen, iov[i].iov_base, iov[i].iov_len);
		outlen += iov[i].iov_len;
	}
	out[outlen] = '\0';
	FUZZ_CHECK(envelope_scan(out, outlen, &env, &erroff) == 0,
	    "%s with the tail is no JSON-RPC line (byte %zu): %s", what,
	    erroff, out);
	free(out);
}

/*
 * The line as JSON.
 */

/* A message's params._meta[subscriptionId] is the id (a JSON value). */
static void
fuzz_stamped(const char *what, const char *text, const cJSON *id,
    const char *method)
{
	struct envelope	 env;
	cJSON		*msg, *tamed, *params, *sub;
	const cJSON	*v;

	msg = fuzz_line_ok(what, text, &env);
	cJSON_Delete(msg);
	/* Tamed, as the id was: "\u0000" and lone surrogates survive. */
	tamed = fuzz_json_parse(text, strlen(text));
	FUZZ_CHECK(tamed != NULL, "%s: %s", what, text);
	v = fuzz_json_member(tamed, "method");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring, method) == 0,
	    "%s is not %s: %s", what, method, text);
	params = fuzz_json_member(tamed, "params");
	sub = fuzz_json_member(fuzz_json_member(params, "_meta"),
	    MODERN_KEY_SUB);
	FUZZ_CHECK(sub != NULL && fuzz_json_equal(sub, id), "%s does not "
	    "carry the stream's id back: %s", what, text);
	cJSON_Delete(tamed);
}

static int
fuzz_in_strings(const cJSON *array, const char *s)
{
	const cJSON	*v;

	cJSON_ArrayForEach(v, array) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
			return (1);
	}
	return (0);
}

static void
fuzz_filter_one(const cJSON *params, const cJSON *init, int which,
    const char *idtext, size_t idlen, const cJSON *id)
{
	struct modern_filter	 f;
	const cJSON		*n, *v, *u, *caps;
	const char		*why = NULL;
	char			*text, probe[] = "fuzz:never-asked";
	size_t			 i, j;
	int			 rc;

	memset(&f, 0x5a, sizeof f);
	rc = modern_filter_read(params, init, &f, &why);
	FUZZ_CHECK(rc == 0 || rc == -1, "modern_filter_read: %d", rc);
	if (rc != 0) {
		FUZZ_CHECK(why != NULL && why[0] != '\0', "a filter refused "
		    "without a reason");
		FUZZ_CHECK(f.nuris == 0 && f.uris == NULL && f.ntasks == 0 &&
		    f.tasks == NULL, "a refused filter holds %zu URIs, %zu "
		    "tasks", f.nuris, f.ntasks);
		return;
	}
	n = cJSON_GetObjectItemCaseSensitive(params, "notifications");
	FUZZ_CHECK(cJSON_IsObject(n), "a filter without notifications");
	caps = cJSON_GetObjectItemCaseSensitive(init, "capabilities");
	for (i = 0; i < nitems(fuzz_kinds); i++) {
		if (!(f.kinds & (1u << i)))
			continue;
		v = cJSON_GetObjectItemCaseSensitive(n, fuzz_kinds[i]);
		FUZZ_CHECK(cJSON_IsTrue(v), "%s given, not asked for",
		    fuzz_kinds[i]);
		FUZZ_CHECK(which != 2, "%s given, the server sends none",
		    fuzz_kinds[i]);
	}
	FUZZ_CHECK((f.kinds & ~7u) == 0, "kinds %#x", f.kinds);
	if (which == 0) {
		for (i = 0; i < nitems(fuzz_kinds); i++)
			FUZZ_CHECK(!!(f.kinds & (1u << i)) == cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(n,
			    fuzz_kinds[i])), "%s asked, not given",
			    fuzz_kinds[i]);
	}
	FUZZ_CHECK(f.nuris <= MODERN_LISTEN_MAX_URIS && f.ntasks <=
	    MODERN_LISTEN_MAX_URIS, "%zu URIs, %zu tasks", f.nuris,
	    f.ntasks);
	v = cJSON_GetObjectItemCaseSensitive(n, "resourceSubscriptions");
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(caps, "resources"),
	    "subscribe")))
		FUZZ_CHECK(f.nuris == 0, "URIs of a server that takes no "
		    "subscription");
	for (i = 0; i < f.nuris; i++) {
		FUZZ_CHECK(f.uris[i][0] != '\0' && strlen(f.uris[i]) <
		    MODERN_LISTEN_URI_MAX, "URI %zu: %s", i, f.uris[i]);
		FUZZ_CHECK(fuzz_in_strings(v, f.uris[i]), "URI %s not asked",
		    f.uris[i]);
		FUZZ_CHECK(modern_filter_has(&f, f.uris[i]), "URI %s not "
		    "found", f.uris[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(f.uris[i], f.uris[j]) != 0, "URI %s "
			    "twice", f.uris[i]);
	}
	/* Of a server that takes subscriptions, every URI asked is there. */
	if (which == 0) {
		cJSON_ArrayForEach(u, v)
			FUZZ_CHECK(modern_filter_has(&f, u->valuestring),
			    "URI %s asked, not given", u->valuestring);
	}
	v = cJSON_GetObjectItemCaseSensitive(n, "taskIds");
	for (i = 0; i < f.ntasks; i++) {
		FUZZ_CHECK(fuzz_in_strings(v, f.tasks[i]), "task %s not "
		    "asked", f.tasks[i]);
		FUZZ_CHECK(modern_filter_has_task(&f, f.tasks[i]), "task %s "
		    "not found", f.tasks[i]);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(f.tasks[i], f.tasks[j]) != 0, "task "
			    "%s twice", f.tasks[i]);
	}
	cJSON_ArrayForEach(u, v)
		FUZZ_CHECK(modern_filter_has_task(&f, u->valuestring), "task "
		    "%s asked, not given", u->valuestring);
	if (!fuzz_in_strings(cJSON_GetObjectItemCaseSensitive(n,
	    "resourceSubscriptions"), probe))
		FUZZ_CHECK(!modern_filter_has(&f, probe), "a URI never asked "
		    "found");
	if (!fuzz_in_strings(cJSON_GetObjectItemCaseSensitive(n, "taskIds"),
	    probe))
		FUZZ_CHECK(!modern_filter_has_task(&f, probe), "a task never "
		    "asked found");

	text = modern_listen_ack(idtext, idlen, &f);
	fuzz_stamped("the acknowledgment", text, id,
	    "notifications/subscriptions/acknowledged");
	free(text);
	text = modern_listen_note(idtext, idlen,
	    "notifications/tools/list_changed", NULL);
	fuzz_stamped("a list_changed", text, id,
	    "notifications/tools/list_changed");
	free(text);
	for (i = 0; i < f.nuris && i < 4; i++) {
		cJSON	*msg;

		text = modern_listen_note(idtext, idlen,
		    "notifications/resources/updated", f.uris[i]);
		fuzz_stamped("a resources/updated", text, id,
		    "notifications/resources/updated");
		msg = fuzz_json_parse(text, strlen(text));
		v = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(msg, "params"), "uri");
		FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
		    f.uris[i]) == 0, "resources/updated for %s: %s",
		    f.uris[i], text);
		cJSON_Delete(msg);
		free(text);
	}
	modern_filter_clear(&f);
	FUZZ_CHECK(f.nuris == 0 && f.uris == NULL && f.ntasks == 0 &&
	    f.tasks == NULL && f.kinds == 0, "a cleared filter holds "
	    "something");
}

static void
fuzz_filter(const cJSON *params, const char *idtext, size_t idlen)
{
	cJSON	*init, *id;
	size_t	 i;

	id = fuzz_json_parse(idtext, idlen);
	FUZZ_CHECK(id != NULL, "the id %.*s is no JSON", (int)idlen, idtext);
	for (i = 0; i < nitems(fuzz_inits); i++) {
		init = cJSON_Parse(fuzz_inits[i]);
		fuzz_filter_one(params, init, (int)i, idtext, idlen, id);
		cJSON_Delete(init);
	}
	fuzz_filter_one(params, NULL, 2, idtext, idlen, id);
	cJSON_Delete(id);
}

static void
fuzz_task(const cJSON *task)
{
	cJSON		*out, *got;
	const cJSON	*v;
	char		*text;
	int		 rc;

	if (task == NULL)
		return;
	out = cJSON_CreateObject();
	rc = modern_task_from(task, out);
	FUZZ_CHECK(rc == 0 || rc == -1, "modern_task_from: %d", rc);
	if (rc != 0) {
		FUZZ_CHECK(out->child == NULL, "a task refused, yet written");
		cJSON_Delete(out);
		return;
	}
	text = fuzz_json_text(out);
	cJSON_Delete(out);
	got = fuzz_json_ok("a task", text);
	FUZZ_CHECK(fuzz_json_member(got, "ttlMs") != NULL, "no ttlMs: %s",
	    text);
	FUZZ_CHECK(fuzz_json_member(got, "ttl") == NULL &&
	    fuzz_json_member(got, "pollInterval") == NULL, "2025's names "
	    "left: %s", text);
	v = fuzz_json_member(got, "taskId");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    cJSON_GetObjectItemCaseSensitive(task, "taskId")->valuestring) ==
	    0, "the task's id changed: %s", text);
	v = fuzz_json_member(got, "status");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    cJSON_GetObjectItemCaseSensitive(task, "status")->valuestring) ==
	    0, "the task's status changed: %s", text);
	(void)modern_task_done(v->valuestring);
	cJSON_Delete(got);
	free(text);
}

static void
fuzz_task_tools(const cJSON *result)
{
	cJSON		*out;
	const cJSON	*v, *tool;
	char		*text;
	int		 found;

	if (result == NULL)
		return;
	out = cJSON_CreateArray();
	modern_task_tools(result, out);
	cJSON_ArrayForEach(v, out) {
		FUZZ_CHECK(cJSON_IsString(v), "a tool that is no name");
		found = 0;
		cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(
		    result, "tools")) {
			const cJSON *name, *ts;

			name = cJSON_GetObjectItemCaseSensitive(tool, "name");
			ts = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(tool,
			    "execution"), "taskSupport");
			if (cJSON_IsString(name) && strcmp(name->valuestring,
			    v->valuestring) == 0 && cJSON_IsString(ts) &&
			    strcmp(ts->valuestring, "forbidden") != 0)
				found = 1;
		}
		FUZZ_CHECK(found, "%s runs as a task, says no tool",
		    v->valuestring);
	}
	text = fuzz_json_text(out);
	cJSON_Delete(out);
	cJSON_Delete(fuzz_json_ok("the tools run as tasks", text));
	free(text);
}

static void
fuzz_discover(const cJSON *init)
{
	cJSON		*got;
	const cJSON	*v, *info;
	char		*text;

	if (init == NULL)
		return;
	text = modern_discover_result(init);
	if (!cJSON_IsObject(init)) {
		FUZZ_CHECK(text == NULL, "server/discover from no object");
		return;
	}
	got = fuzz_json_ok("server/discover", text);
	v = fuzz_json_member(got, "supportedVersions");
	FUZZ_CHECK(cJSON_IsArray(v) && cJSON_IsString(v->child) &&
	    strcmp(v->child->valuestring, MODERN_VERSION) == 0,
	    "server/discover: %s", text);
	v = fuzz_json_member(got, "capabilities");
	FUZZ_CHECK(cJSON_IsObject(v) && fuzz_json_member(v, "tasks") == NULL,
	    "server/discover's capabilities: %s", text);
	v = fuzz_json_member(got, "resultType");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    "complete") == 0, "server/discover: %s", text);
	v = fuzz_json_member(got, "ttlMs");
	FUZZ_CHECK(cJSON_IsNumber(v) && v->valuedouble == 0,
	    "server/discover: %s", text);
	v = fuzz_json_member(got, "cacheScope");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    "private") == 0, "server/discover: %s", text);
	info = cJSON_GetObjectItemCaseSensitive(init, "serverInfo");
	if (cJSON_IsObject(info)) {
		v = fuzz_json_member(fuzz_json_member(got, "_meta"),
		    MODERN_KEY_SERVER);
		FUZZ_CHECK(v != NULL && fuzz_json_equal(v, info),
		    "server/discover's serverInfo: %s", text);
	}
	cJSON_Delete(got);
	free(text);
}

static void
fuzz_others(const cJSON *json, const struct modern_meta *mm)
{
	cJSON		*got, *requests;
	const cJSON	*v, *state;
	char		*text;

	text = modern_unsupported_data(NULL);
	cJSON_Delete(fuzz_json_ok("the -32022 data", text));
	free(text);
	if (mm != NULL && mm->version[0] != '\0') {
		text = modern_unsupported_data(mm->version);
		got = fuzz_json_ok("the -32022 data", text);
		v = fuzz_json_member(got, "requested");
		FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
		    mm->version) == 0, "the -32022 data: %s", text);
		cJSON_Delete(got);
		free(text);
	}
	requests = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(json,
	    "inputRequests"), 1);
	if (requests == NULL)
		requests = cJSON_CreateObject();
	state = cJSON_GetObjectItemCaseSensitive(json, "requestState");
	text = modern_input_result(requests, cJSON_IsString(state) ?
	    state->valuestring : "mcpd1.x");
	got = fuzz_json_ok("input_required", text);
	v = fuzz_json_member(got, "resultType");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    "input_required") == 0, "input_required: %s", text);
	cJSON_Delete(got);
	free(text);
	v = cJSON_GetObjectItemCaseSensitive(json, "method");
	if (cJSON_IsString(v))
		(void)modern_listen_kind(v->valuestring);
}

/* A server of 2026-07-28 in 2025 terms (src/modern_up.c). */
static void
fuzz_up(const cJSON *json)
{
	cJSON		*got;
	const cJSON	*caps, *v;
	const char	*why = NULL;
	char		*text;

	(void)modern_up_refused(json);
	(void)modern_up_refused(cJSON_GetObjectItemCaseSensitive(json,
	    "error"));
	if ((got = modern_up_init_result(json, &why)) == NULL) {
		FUZZ_CHECK(why != NULL, "no initialize result, no reason");
		return;
	}
	text = cJSON_PrintUnformatted(got);
	cJSON_Delete(fuzz_json_ok("the initialize result", text));
	v = cJSON_GetObjectItemCaseSensitive(got, "protocolVersion");
	FUZZ_CHECK(cJSON_IsString(v) && strcmp(v->valuestring,
	    MODERN_VERSION) == 0, "initialize result: %s", text);
	caps = cJSON_GetObjectItemCaseSensitive(got, "capabilities");
	FUZZ_CHECK(cJSON_IsObject(caps), "initialize result: %s", text);
	FUZZ_CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(got,
	    "serverInfo")), "initialize result: %s", text);
	free(text);
	cJSON_Delete(got);
}

/* A response a 2025 session cannot carry, made an error. */
static void
fuzz_unfit(const char *line, const struct envelope *env)
{
	struct envelope	 out;
	char		*text;
	size_t		 erroff;

	if (env->result.type != ENVELOPE_OBJECT ||
	    env->id.type == ENVELOPE_ABSENT)
		return;
	if ((text = modern_up_unfit(line, env)) == NULL)
		return;
	FUZZ_CHECK(envelope_scan(text, strlen(text), &out, &erroff) == 0 &&
	    out.error.type == ENVELOPE_OBJECT &&
	    out.result.type == ENVELOPE_ABSENT, "unfit: %s", text);
	free(text);
}

/* A server's input_required: the round, its requests, the retry. */
static void
fuzz_input(const char *line, size_t size, const struct envelope *env)
{
	struct modern_input_round	 round;
	struct envelope			 out;
	cJSON				*msg;
	const cJSON			*params, *v;
	char				*why, *text, **results;
	size_t				 i, j, len, erroff;
	int				 rc;

	if (env->result.type != ENVELOPE_OBJECT)
		return;
	rc = modern_input_read(line + env->result.off, env->result.len,
	    &round, &why);
	FUZZ_CHECK(rc == 1 || round.nasks == 0, "round held %zu", round.nasks);
	FUZZ_CHECK((rc == -1) == (why != NULL), "reason %d", rc);
	free(why);
	if (rc != 1)
		return;
	FUZZ_CHECK(round.nasks <= MODERN_INPUT_MAX_ASKS, "%zu", round.nasks);
	results = xcalloc(round.nasks + 1, sizeof *results);
	for (i = 0; i < round.nasks; i++) {
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(round.asks[i].key,
			    round.asks[j].key) != 0, "key twice");
		text = modern_input_request("\"mcpd-in-1\"", 11,
		    &round.asks[i], &len);
		FUZZ_CHECK(envelope_scan(text, len, &out, &erroff) == 0 &&
		    out.method.type == ENVELOPE_STRING &&
		    out.id.type == ENVELOPE_STRING, "request: %s", text);
		free(text);
		results[i] = "{}";
	}
	/* The line itself retried: when it is a request with params. */
	text = modern_input_retry(line, size, 77, &round, results, &len);
	if (text != NULL) {
		msg = fuzz_json_ok("the retry", text);
		params = cJSON_GetObjectItemCaseSensitive(msg, "params");
		v = cJSON_GetObjectItemCaseSensitive(msg, "id");
		FUZZ_CHECK(cJSON_IsNumber(v) && v->valuedouble == 77, "%s",
		    text);
		FUZZ_CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		    params, "inputResponses")) == (int)round.nasks, "%s", text);
		v = cJSON_GetObjectItemCaseSensitive(params, "requestState");
		FUZZ_CHECK(round.state == NULL ? v == NULL : cJSON_IsString(v) &&
		    strcmp(v->valuestring, round.state) == 0, "%s", text);
		cJSON_Delete(msg);
		free(text);
	}
	free(results);
	modern_input_clear(&round);
}

/* Everything on one JSON value, and on its params and result. */
static void
fuzz_json(const cJSON *json, const char *idtext, size_t idlen,
    const struct modern_meta *mm)
{
	const cJSON	*params, *result;

	params = cJSON_GetObjectItemCaseSensitive(json, "params");
	result = cJSON_GetObjectItemCaseSensitive(json, "result");
	fuzz_filter(json, idtext, idlen);
	if (params != NULL)
		fuzz_filter(params, idtext, idlen);
	fuzz_task(json);
	fuzz_task(params);
	fuzz_task(result);
	fuzz_task(cJSON_GetObjectItemCaseSensitive(result, "task"));
	fuzz_task_tools(json);
	fuzz_task_tools(result);
	fuzz_discover(json);
	fuzz_discover(result);
	fuzz_initialize(cJSON_GetObjectItemCaseSensitive(json,
	    "capabilities"), cJSON_GetObjectItemCaseSensitive(json,
	    "clientInfo"));
	fuzz_others(json, mm);
	if (params != NULL)
		fuzz_others(params, NULL);
	fuzz_up(json);
	fuzz_up(result);
}

/*
 * A line cJSON cannot read (a lone surrogate in its id, say) as the layer
 * reads it: params and result each on its own.
 */
static cJSON *
fuzz_spans(const char *line, const struct envelope *env)
{
	cJSON	*json, *v;

	json = cJSON_CreateObject();
	if (env->params.type == ENVELOPE_OBJECT && (v = cJSON_ParseWithLength(
	    line + env->params.off, env->params.len)) != NULL)
		cJSON_AddItemToObject(json, "params", v);
	if (env->result.type == ENVELOPE_OBJECT && (v = cJSON_ParseWithLength(
	    line + env->result.off, env->result.len)) != NULL)
		cJSON_AddItemToObject(json, "result", v);
	return (json);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*line = (const char *)data;
	const char		*idtext = "1";
	size_t			 idlen = 1, erroff;
	struct envelope		 env;
	struct modern_meta	 mm, *mmp = NULL;
	cJSON			*json;

	fuzz_strict = envelope_scan(line, size, &env, &erroff) == 0;
	if (fuzz_strict) {
		fuzz_method(line, &env);
		fuzz_meta(line, &env, &mm);
		fuzz_opens(line, &env, &mm);
		mmp = &mm;
		fuzz_tail(line, size, &env.result, "the result");
		fuzz_tail(line, size, &env.params, "the params");
		fuzz_tail(line, size, &env.error, "the error");
		fuzz_tail(line, size, &env.meta, "_meta");
		fuzz_tail(line, size, &env.id, "the id");
		fuzz_unfit(line, &env);
		fuzz_input(line, size, &env);
		if (env.id.type != ENVELOPE_ABSENT) {
			idtext = line + env.id.off;
			idlen = env.id.len;
		}
	}
	json = cJSON_ParseWithLength(line, size);
	if (json == NULL && fuzz_strict)
		json = fuzz_spans(line, &env);
	if (json != NULL)
		fuzz_json(json, idtext, idlen, mmp);
	cJSON_Delete(json);
	return (0);
}
