/*
 * handover.c -- the state one mcpd hands the next across a re-exec (see
 * handover.h): printed and parsed with cJSON, byte strings in base64url.
 *
 * The parser trusts nothing it has not checked: every member has its
 * type, every number its range (descriptors, pids, ids exactly
 * representable), every count its bound.  A missing optional member
 * takes its zero; a missing required one is an error naming it.
 *
 * Lasting principals and their tasks are optional members ("principals"
 * at the top, "tasks" in a server), printed only when there are some: a
 * state without them, as an older mcpd prints it, reads as one with none,
 * and the version stays 1.  So are the HTTP front's sockets ("http_fds",
 * those systemd passed as "http").  Principal ids are at least 2^62, past what a
 * JSON number holds exactly, and so travel as decimal strings.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "handover.h"
#include "roots.h"
#include "tasktab.h"
#include "xmalloc.h"

#define HANDOVER_EXACT_MAX	9007199254740992.0	/* 2^53 */
#define HANDOVER_FD_MAX		(1 << 24)
#define HANDOVER_HEX_LEN	32	/* a task id, a principal's secret */
#define HANDOVER_PRINCIPAL_MIN	(1ULL << 62)	/* a lasting principal's id */

void
handover_init(struct handover *h)
{
	memset(h, 0, sizeof *h);
	h->version = HANDOVER_VERSION;
	h->listen_fd = -1;
	h->guard_fd = -1;
}

static void
handover_bytes_free(struct handover_bytes *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

static void
handover_server_free(struct handover_server *s)
{
	size_t	 i;

	free(s->name);
	free(s->state);
	free(s->last_exit);
	free(s->last_stderr);
	free(s->cgroup_leaf);
	free(s->init_result);
	free(s->remote);
	free(s->instance_of);
	free(s->roots);
	for (i = 0; i < s->nsubs; i++)
		free(s->subs[i]);
	free(s->subs);
	for (i = 0; i < s->nasks; i++)
		free(s->asks[i]);
	free(s->asks);
	for (i = 0; i < s->nlines; i++)
		handover_bytes_free(&s->lines[i].text);
	free(s->lines);
	for (i = 0; i < s->ntasks; i++) {
		free(s->tasks[i].id);
		free(s->tasks[i].up_id);
		free(s->tasks[i].last);
	}
	free(s->tasks);
	handover_bytes_free(&s->out_partial);
	handover_bytes_free(&s->err_partial);
	handover_bytes_free(&s->status_partial);
	handover_bytes_free(&s->in_queued);
}

void
handover_free(struct handover *h)
{
	size_t	 i;

	for (i = 0; i < h->nservers; i++)
		handover_server_free(&h->servers[i]);
	free(h->servers);
	for (i = 0; i < h->nprincipals; i++)
		free(h->principals[i].sid);
	free(h->principals);
	for (i = 0; i < h->neras; i++) {
		free(h->eras[i].key);
		free(h->eras[i].era);
		free(h->eras[i].how);
	}
	free(h->eras);
	free(h->http_fds);
	free(h->config_file);
	free(h->socket_path);
	free(h->cgroup_root);
	handover_bytes_free(&h->config_text);
	handover_init(h);
}

struct handover_server *
handover_add_server(struct handover *h)
{
	struct handover_server	*s;

	h->servers = xreallocarray(h->servers, h->nservers + 1,
	    sizeof *h->servers);
	s = &h->servers[h->nservers++];
	memset(s, 0, sizeof *s);
	s->in_fd = s->out_fd = s->err_fd = s->status_fd = -1;
	s->level = -1;
	return (s);
}

void
handover_add_sub(struct handover_server *s, const char *uri)
{
	s->subs = xreallocarray(s->subs, s->nsubs + 1, sizeof *s->subs);
	s->subs[s->nsubs++] = xstrdup(uri);
}

void
handover_add_ask(struct handover_server *s, const char *id)
{
	s->asks = xreallocarray(s->asks, s->nasks + 1, sizeof *s->asks);
	s->asks[s->nasks++] = xstrdup(id);
}

void
handover_add_line(struct handover_server *s, const char *text, size_t len,
    uint64_t time_us)
{
	struct handover_line	*l;

	s->lines = xreallocarray(s->lines, s->nlines + 1, sizeof *s->lines);
	l = &s->lines[s->nlines++];
	l->text.p = xmalloc(len > 0 ? len : 1);
	memcpy(l->text.p, text, len);
	l->text.len = len;
	l->time_us = time_us;
}

struct handover_task *
handover_add_task(struct handover_server *s, const char *id,
    uint64_t principal, const char *up_id, const char *last, uint64_t age_ms,
    uint64_t left_ms)
{
	struct handover_task	*t;

	s->tasks = xreallocarray(s->tasks, s->ntasks + 1, sizeof *s->tasks);
	t = &s->tasks[s->ntasks++];
	t->id = xstrdup(id);
	t->principal = principal;
	t->up_id = xstrdup(up_id);
	t->last = xstrdup(last);
	t->age_ms = age_ms;
	t->left_ms = left_ms;
	t->client_runs = 0;
	return (t);
}

void
handover_add_principal(struct handover *h, const char *sid, uid_t uid,
    uint64_t id, uint64_t idle_ms)
{
	struct handover_principal	*p;

	h->principals = xreallocarray(h->principals, h->nprincipals + 1,
	    sizeof *h->principals);
	p = &h->principals[h->nprincipals++];
	p->sid = xstrdup(sid);
	p->uid = uid;
	p->id = id;
	p->idle_ms = idle_ms;
}

void
handover_add_http_fd(struct handover *h, int fd)
{
	h->http_fds = xreallocarray(h->http_fds, h->nhttp_fds + 1,
	    sizeof *h->http_fds);
	h->http_fds[h->nhttp_fds++] = fd;
}

void
handover_add_era(struct handover *h, const char *key, const char *era,
    const char *how)
{
	struct handover_era	*e;

	h->eras = xreallocarray(h->eras, h->neras + 1, sizeof *h->eras);
	e = &h->eras[h->neras++];
	e->key = xstrdup(key);
	e->era = xstrdup(era);
	e->how = xstrdup(how != NULL ? how : "");
}

/* A list of strings under key. */
static void
handover_put_strs(cJSON *o, const char *key, char *const *v, size_t n)
{
	cJSON	*a;
	size_t	 i;

	a = cJSON_AddArrayToObject(o, key);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

/*
 * Printing.
 */

static void
handover_put_str(cJSON *o, const char *key, const char *value)
{
	if (value != NULL)
		cJSON_AddStringToObject(o, key, value);
}

static void
handover_put_bytes(cJSON *o, const char *key, const struct handover_bytes *b)
{
	char	*text;

	if (b->len == 0)
		return;
	text = b64url_encode(b->p, b->len);
	cJSON_AddStringToObject(o, key, text);
	free(text);
}

static void
handover_put_num(cJSON *o, const char *key, double value)
{
	cJSON_AddNumberToObject(o, key, value);
}

/* A principal's id, as a decimal string: a number would not be exact. */
static void
handover_put_id(cJSON *o, const char *key, uint64_t id)
{
	char	 text[32];

	snprintf(text, sizeof text, "%llu", (unsigned long long)id);
	cJSON_AddStringToObject(o, key, text);
}

/*
 * An array under key of an object for each of the n entries of size bytes
 * at v, its members put by put_one.  None is an empty array.
 */
static void
handover_put_list(cJSON *o, const char *key, const void *v, size_t n,
    size_t size, void (*put_one)(cJSON *, const void *))
{
	cJSON	*a, *e;
	size_t	 i;

	a = cJSON_AddArrayToObject(o, key);
	for (i = 0; i < n; i++) {
		e = cJSON_CreateObject();
		put_one(e, (const char *)v + i * size);
		cJSON_AddItemToArray(a, e);
	}
}

/* A stderr line: {"t", "text"}. */
static void
handover_put_line(cJSON *o, const void *v)
{
	const struct handover_line	*l = v;

	handover_put_num(o, "t", (double)l->time_us);
	/* An empty line prints as no member: it reads back empty. */
	handover_put_bytes(o, "text", &l->text);
}

/* A task: {"id", "principal", "up_id", "last", "age_ms", "left_ms"}. */
static void
handover_put_task(cJSON *o, const void *v)
{
	const struct handover_task	*t = v;

	handover_put_str(o, "id", t->id);
	handover_put_id(o, "principal", t->principal);
	handover_put_str(o, "up_id", t->up_id);
	handover_put_str(o, "last", t->last);
	handover_put_num(o, "age_ms", (double)t->age_ms);
	handover_put_num(o, "left_ms", (double)t->left_ms);
	if (t->client_runs)
		handover_put_str(o, "runs", "client");
}

/* A principal: {"sid", "uid", "id", "idle_ms"}. */
static void
handover_put_principal(cJSON *o, const void *v)
{
	const struct handover_principal	*p = v;

	handover_put_str(o, "sid", p->sid);
	handover_put_num(o, "uid", p->uid);
	handover_put_id(o, "id", p->id);
	handover_put_num(o, "idle_ms", (double)p->idle_ms);
}

/* An era: {"key", "era", "how"}. */
static void
handover_put_era(cJSON *o, const void *v)
{
	const struct handover_era	*e = v;

	handover_put_str(o, "key", e->key);
	handover_put_str(o, "era", e->era);
	handover_put_str(o, "how", e->how);
}

static void
handover_put_server(cJSON *o, const void *v)
{
	const struct handover_server	*s = v;

	handover_put_str(o, "name", s->name);
	cJSON_AddBoolToObject(o, "running", s->running);
	handover_put_str(o, "state", s->state);
	handover_put_num(o, "spawns", (double)s->spawns);
	handover_put_str(o, "last_exit", s->last_exit);
	handover_put_str(o, "last_stderr", s->last_stderr);
	handover_put_str(o, "remote", s->remote);
	handover_put_num(o, "stderr_lines", (double)s->stderr_lines);
	handover_put_num(o, "lines_in", (double)s->lines_in);
	handover_put_num(o, "nonjson_lines", (double)s->nonjson_lines);
	handover_put_num(o, "oversize", (double)s->oversize);
	handover_put_num(o, "violations", (double)s->violations);
	if (s->instances_made > 0)
		handover_put_num(o, "instances_made",
		    (double)s->instances_made);
	if (s->instance_of != NULL) {
		handover_put_str(o, "instance_of", s->instance_of);
		handover_put_num(o, "instance_no", (double)s->instance_no);
		handover_put_num(o, "owner_pid", s->owner_pid);
		handover_put_num(o, "owner_uid", s->owner_uid);
		handover_put_str(o, "roots", s->roots);
	}
	handover_put_list(o, "stderr", s->lines, s->nlines, sizeof *s->lines,
	    handover_put_line);
	/* Running or not, a server may hold tasks; none prints nothing. */
	if (s->ntasks > 0) {
		handover_put_list(o, "tasks", s->tasks, s->ntasks,
		    sizeof *s->tasks, handover_put_task);
	}
	if (!s->running)
		return;
	handover_put_num(o, "pid", s->pid);
	handover_put_num(o, "exit_pid", s->exit_pid);
	handover_put_num(o, "containment", s->containment);
	handover_put_str(o, "cgroup_leaf", s->cgroup_leaf);
	if (s->sandboxed)
		handover_put_num(o, "sandbox_held", s->sandbox_held);
	handover_put_num(o, "in_fd", s->in_fd);
	handover_put_num(o, "out_fd", s->out_fd);
	handover_put_num(o, "err_fd", s->err_fd);
	handover_put_num(o, "status_fd", s->status_fd);
	handover_put_num(o, "spawned_ms", (double)s->spawned_ms);
	handover_put_num(o, "ready_ms", (double)s->ready_ms);
	handover_put_num(o, "next_upstream_id", (double)s->next_upstream_id);
	handover_put_num(o, "first_id", (double)s->first_id);
	handover_put_str(o, "init_result", s->init_result);
	handover_put_num(o, "level", s->level);
	handover_put_strs(o, "subscriptions", s->subs, s->nsubs);
	handover_put_strs(o, "asks", s->asks, s->nasks);
	handover_put_bytes(o, "out_partial", &s->out_partial);
	handover_put_bytes(o, "err_partial", &s->err_partial);
	handover_put_bytes(o, "status_partial", &s->status_partial);
	handover_put_bytes(o, "in_queued", &s->in_queued);
}

char *
handover_print(const struct handover *h)
{
	cJSON	*o;
	char	*text;

	o = cJSON_CreateObject();
	handover_put_num(o, "version", h->version);
	handover_put_str(o, "config_file", h->config_file);
	handover_put_bytes(o, "config_text", &h->config_text);
	handover_put_num(o, "listen_fd", h->listen_fd);
	cJSON_AddBoolToObject(o, "listen_owned", h->listen_owned);
	handover_put_str(o, "socket_path", h->socket_path);
	if (h->nhttp_fds > 0) {
		/* None prints nothing, as an older mcpd prints it. */
		cJSON_AddItemToObject(o, "http_fds",
		    cJSON_CreateIntArray(h->http_fds, (int)h->nhttp_fds));
	}
	handover_put_str(o, "cgroup_root", h->cgroup_root);
	handover_put_num(o, "guard_fd", h->guard_fd);
	handover_put_num(o, "guard_pid", h->guard_pid);
	handover_put_num(o, "nofile_cur", (double)h->nofile_cur);
	handover_put_num(o, "nofile_max", (double)h->nofile_max);
	cJSON_AddBoolToObject(o, "nofile_raised", h->nofile_raised);
	handover_put_num(o, "started_ms", (double)h->started_ms);
	handover_put_num(o, "reexecs", (double)h->reexecs);
	handover_put_num(o, "workers_total", (double)h->workers_total);
	handover_put_list(o, "servers", h->servers, h->nservers,
	    sizeof *h->servers, handover_put_server);
	/* None prints nothing, as an older mcpd prints it. */
	if (h->nprincipals > 0) {
		handover_put_list(o, "principals", h->principals,
		    h->nprincipals, sizeof *h->principals,
		    handover_put_principal);
	}
	if (h->neras > 0) {
		handover_put_list(o, "eras", h->eras, h->neras,
		    sizeof *h->eras, handover_put_era);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (text == NULL)
		abort();	/* cJSON fails only for want of memory */
	return (text);
}

/*
 * Parsing.
 */

struct handover_in {
	const cJSON	*o;
	const char	*where;		/* "the state", "server 3" */
	char		*cause;		/* the first error */
};

static const cJSON *
handover_get(struct handover_in *in, const char *key, int required)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(in->o, key);
	if (v == NULL && required && in->cause == NULL)
		xasprintf(&in->cause, "%s: no \"%s\"", in->where, key);
	return (v);
}

static void
handover_bad(struct handover_in *in, const char *key, const char *what)
{
	if (in->cause == NULL)
		xasprintf(&in->cause, "%s: \"%s\" is not %s", in->where, key,
		    what);
}

/* A number in [min, max], integral. */
static double
handover_num(struct handover_in *in, const char *key, int required,
    double min, double max, double dflt)
{
	const cJSON	*v;
	double		 d;

	if ((v = handover_get(in, key, required)) == NULL)
		return (dflt);
	d = v->valuedouble;
	if (!cJSON_IsNumber(v) || d < min || d > max || d != (double)(int64_t)d) {
		handover_bad(in, key, "an integer in range");
		return (dflt);
	}
	return (d);
}

/* An optional count or time, exact as a JSON number; 0 if absent. */
static uint64_t
handover_u64(struct handover_in *in, const char *key)
{
	return ((uint64_t)handover_num(in, key, 0, 0, HANDOVER_EXACT_MAX, 0));
}

static int
handover_fd(struct handover_in *in, const char *key, int required)
{
	return ((int)handover_num(in, key, required, -1, HANDOVER_FD_MAX, -1));
}

static int
handover_bool(struct handover_in *in, const char *key)
{
	const cJSON	*v;

	if ((v = handover_get(in, key, 0)) == NULL)
		return (0);
	if (!cJSON_IsBool(v)) {
		handover_bad(in, key, "true or false");
		return (0);
	}
	return (cJSON_IsTrue(v));
}

static char *
handover_str(struct handover_in *in, const char *key, int required)
{
	const cJSON	*v;

	if ((v = handover_get(in, key, required)) == NULL)
		return (NULL);
	if (!cJSON_IsString(v)) {
		handover_bad(in, key, "a string");
		return (NULL);
	}
	return (xstrdup(v->valuestring));
}

static void
handover_bytes(struct handover_in *in, const char *key,
    struct handover_bytes *b)
{
	const cJSON	*v;

	if ((v = handover_get(in, key, 0)) == NULL)
		return;
	if (!cJSON_IsString(v) || (b->p = b64url_decode(v->valuestring,
	    strlen(v->valuestring), &b->len)) == NULL) {
		handover_bad(in, key, "base64url text");
		b->len = 0;
	}
}

/*
 * key: an optional array of at most max entries, which the refusal calls
 * what ("tasks"); NULL if absent, refused or after an error.
 */
static const cJSON *
handover_array(struct handover_in *in, const char *key, int max,
    const char *what)
{
	const cJSON	*a;

	if (in->cause != NULL || (a = handover_get(in, key, 0)) == NULL)
		return (NULL);
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > max) {
		xasprintf(&in->cause, "%s: \"%s\" is not an array of at most "
		    "%d %s", in->where, key, max, what);
		return (NULL);
	}
	return (a);
}

/*
 * key: an optional array of at most max objects, each read alone by
 * parse_one into arg.  Each is named "name i" ("principal 2"), and the
 * first error, its own or its reader's, is in's.
 */
static void
handover_parse_list(struct handover_in *in, const char *key, int max,
    const char *what, const char *name,
    void (*parse_one)(struct handover_in *, void *), void *arg)
{
	struct handover_in	 sub;
	const cJSON		*a, *v;
	char			 where[96];
	size_t			 i = 0;

	if ((a = handover_array(in, key, max, what)) == NULL)
		return;
	cJSON_ArrayForEach(v, a) {
		snprintf(where, sizeof where, "%s %zu", name, i++);
		if (!cJSON_IsObject(v)) {
			xasprintf(&in->cause, "%s: not an object", where);
			return;
		}
		sub.o = v;
		sub.where = where;
		sub.cause = NULL;
		parse_one(&sub, arg);
		if (sub.cause != NULL) {
			in->cause = sub.cause;
			return;
		}
	}
}

/* "http_fds": an optional array of descriptors, none twice nor 0-2. */
static void
handover_http_fds(struct handover_in *in, struct handover *h)
{
	const cJSON	*a, *v;
	size_t		 i;

	if ((a = handover_array(in, "http_fds", HANDOVER_MAX_HTTP_FDS,
	    "descriptors")) == NULL)
		return;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 3 ||
		    v->valuedouble > HANDOVER_FD_MAX ||
		    v->valuedouble != (double)(int)v->valuedouble) {
			handover_bad(in, "http_fds", "an array of descriptors");
			return;
		}
		for (i = 0; i < h->nhttp_fds; i++) {
			if (h->http_fds[i] == (int)v->valuedouble) {
				handover_bad(in, "http_fds",
				    "an array of descriptors, each once");
				return;
			}
		}
		handover_add_http_fd(h, (int)v->valuedouble);
	}
}

/* An optional array of at most HANDOVER_MAX_SUBS strings, each added. */
static void
handover_strs(struct handover_in *in, const char *key,
    struct handover_server *s,
    void (*add)(struct handover_server *, const char *))
{
	const cJSON	*a, *v;

	if ((a = handover_array(in, key, HANDOVER_MAX_SUBS, "strings")) == NULL)
		return;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v)) {
			handover_bad(in, key, "an array of strings");
			return;
		}
		add(s, v->valuestring);
	}
}

/* "stderr": [{"t": time_us, "text": base64url}], at most 65536. */
static void
handover_parse_lines(struct handover_in *in, struct handover_server *s)
{
	struct handover_in	 sub;
	struct handover_bytes	 b;
	const cJSON		*a, *v;
	uint64_t		 t;

	s->stderr_lines = handover_u64(in, "stderr_lines");
	if ((a = handover_array(in, "stderr", HANDOVER_MAX_SUBS,
	    "lines")) == NULL)
		return;
	/* A line's errors are its server's: the lines are not numbered. */
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsObject(v)) {
			handover_bad(in, "stderr", "an array of objects");
			return;
		}
		sub.o = v;
		sub.where = in->where;
		sub.cause = NULL;
		memset(&b, 0, sizeof b);
		t = (uint64_t)handover_num(&sub, "t", 1, 0, HANDOVER_EXACT_MAX,
		    0);
		handover_bytes(&sub, "text", &b);
		if (sub.cause != NULL) {
			in->cause = sub.cause;
			free(b.p);
			return;
		}
		handover_add_line(s, b.p != NULL ? b.p : "", b.len, t);
		free(b.p);
	}
}

/* key: exactly HANDOVER_HEX_LEN lowercase hex digits (malloc'd). */
static char *
handover_hex(struct handover_in *in, const char *key)
{
	char	*v;

	if ((v = handover_str(in, key, 1)) == NULL)
		return (NULL);
	if (strlen(v) != HANDOVER_HEX_LEN ||
	    strspn(v, "0123456789abcdef") != HANDOVER_HEX_LEN) {
		handover_bad(in, key, "32 lowercase hex digits");
		free(v);
		return (NULL);
	}
	return (v);
}

/*
 * key: a lasting principal's id, a decimal string from 2^62 to 2^64-1
 * (handover_put_id's form: digits only, no sign, no leading zero).
 */
static uint64_t
handover_id(struct handover_in *in, const char *key)
{
	const cJSON		*v;
	const char		*p;
	char			*end;
	unsigned long long	 n;

	if ((v = handover_get(in, key, 1)) == NULL)
		return (0);
	if (!cJSON_IsString(v))
		goto bad;
	p = v->valuestring;
	if (*p < '1' || *p > '9' || strlen(p) > 20 ||
	    strspn(p, "0123456789") != strlen(p))
		goto bad;
	errno = 0;
	n = strtoull(p, &end, 10);
	if (errno != 0 || *end != '\0' || n < HANDOVER_PRINCIPAL_MIN)
		goto bad;
	return ((uint64_t)n);

bad:
	handover_bad(in, key, "a principal's id (decimal digits in a string, "
	    "2^62 to 2^64-1)");
	return (0);
}

/*
 * A task: mcpd's id, its principal (checked against the principals once
 * all is read), the server's id as tasktab takes it, and its Task object
 * as tasks/list answers it: one "taskId", mcpd's id, never the server's.
 */
static void
handover_parse_task(struct handover_in *in, void *arg)
{
	struct handover_server	*s = arg;
	const cJSON		*m;
	cJSON			*last;
	char			*id, *up_id, *text, *runs;
	uint64_t		 principal, age_ms, left_ms;
	int			 ids;

	id = handover_hex(in, "id");
	principal = handover_id(in, "principal");
	up_id = handover_str(in, "up_id", 1);
	if (up_id != NULL && (*up_id == '\0' ||
	    strlen(up_id) > TASKTAB_UP_ID_MAX))
		handover_bad(in, "up_id", "a server's task id of 1 to 256 bytes");
	text = handover_str(in, "last", 1);
	age_ms = handover_u64(in, "age_ms");
	left_ms = handover_u64(in, "left_ms");
	runs = handover_str(in, "runs", 0);
	if (runs != NULL && strcmp(runs, "client") != 0)
		handover_bad(in, "runs", "\"client\"");
	if (in->cause == NULL) {
		last = cJSON_ParseWithOpts(text, NULL, 1);
		ids = 0;
		if (cJSON_IsObject(last)) {
			cJSON_ArrayForEach(m, last) {
				if (strcmp(m->string, "taskId") != 0)
					continue;
				if (!cJSON_IsString(m) ||
				    strcmp(m->valuestring, id) != 0)
					ids = -1;
				else if (ids >= 0)
					ids++;
			}
		}
		if (ids != 1) {
			handover_bad(in, "last", "a Task object whose one "
			    "\"taskId\" is the task's \"id\"");
		}
		cJSON_Delete(last);
	}
	if (in->cause == NULL)
		handover_add_task(s, id, principal, up_id, text, age_ms,
		    left_ms)->client_runs = runs != NULL;
	free(id);
	free(up_id);
	free(text);
	free(runs);
}

/* A lasting principal, checked alone: two alike are found once all is read. */
static void
handover_parse_principal(struct handover_in *in, void *arg)
{
	struct handover	*h = arg;
	char		*sid;
	uid_t		 uid;
	uint64_t	 id, idle_ms;

	sid = handover_hex(in, "sid");
	/* (uid_t)-1 is no one's: to chown(2) it means "unchanged". */
	uid = (uid_t)handover_num(in, "uid", 1, 0, UINT32_MAX - 1.0, 0);
	id = handover_id(in, "id");
	idle_ms = handover_u64(in, "idle_ms");
	if (in->cause == NULL)
		handover_add_principal(h, sid, uid, id, idle_ms);
	free(sid);
}

/* A configuration's era: read as it is; the cache checks the key. */
static void
handover_parse_era(struct handover_in *in, void *arg)
{
	struct handover	*h = arg;
	char		*key, *era, *how;

	key = handover_str(in, "key", 1);
	era = handover_str(in, "era", 1);
	how = handover_str(in, "how", 1);
	if (in->cause == NULL)
		handover_add_era(h, key, era, how);
	free(key);
	free(era);
	free(how);
}

/*
 * What one entry alone cannot show, found by sorting (the counts allow
 * millions): a key used twice, and a task's principal not listed.
 */
struct handover_ref {
	const char	*key;		/* or NULL: n is the key */
	uint64_t	 n;
	size_t		 i, j;		/* principal or server; task */
};

static int
handover_ref_cmp(const void *a0, const void *b0)
{
	const struct handover_ref	*a = a0, *b = b0;
	int				 c;

	if (a->key != NULL && (c = strcmp(a->key, b->key)) != 0)
		return (c);
	if (a->key == NULL && a->n != b->n)
		return (a->n < b->n ? -1 : 1);
	/* Equal keys in the order given: the second is the later. */
	if (a->i != b->i)
		return (a->i < b->i ? -1 : 1);
	if (a->j != b->j)
		return (a->j < b->j ? -1 : 1);
	return (0);
}

/* Sorts r; the earliest entry whose key an entry before it has, or NULL. */
static const struct handover_ref *
handover_ref_dup(struct handover_ref *r, size_t n)
{
	const struct handover_ref	*dup = NULL;
	size_t				 k;

	if (n == 0)
		return (NULL);
	qsort(r, n, sizeof *r, handover_ref_cmp);
	for (k = 1; k < n; k++) {
		if (r[k].key != NULL ? strcmp(r[k].key, r[k - 1].key) != 0 :
		    r[k].n != r[k - 1].n)
			continue;
		if (dup == NULL || r[k].i < dup->i ||
		    (r[k].i == dup->i && r[k].j < dup->j))
			dup = &r[k];
	}
	return (dup);
}

/* Is id in r, sorted by number? */
static int
handover_ref_has(const struct handover_ref *r, size_t n, uint64_t id)
{
	size_t	 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r[mid].n == id)
			return (1);
		if (r[mid].n < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (0);
}

/*
 * Each principal's secret and id its own; each task's id unique in the
 * state (a group routes by it across its members), its server id unique
 * in its server (tasktab's key), its principal one listed.
 */
static void
handover_check_tasks(struct handover_in *in, const struct handover *h)
{
	const struct handover_server	*s;
	const struct handover_ref	*dup;
	struct handover_ref		*by_id = NULL, *r = NULL;
	size_t				 i, j, k, ntasks = 0;

	if (in->cause != NULL)
		return;
	by_id = xcalloc(h->nprincipals + 1, sizeof *by_id);
	for (i = 0; i < h->nprincipals; i++) {
		by_id[i].key = h->principals[i].sid;
		by_id[i].i = i;
	}
	if ((dup = handover_ref_dup(by_id, h->nprincipals)) != NULL) {
		xasprintf(&in->cause, "principal %zu: a second principal of "
		    "that \"sid\"", dup->i);
		goto out;
	}
	for (i = 0; i < h->nprincipals; i++) {
		by_id[i].key = NULL;
		by_id[i].n = h->principals[i].id;
		by_id[i].i = i;
	}
	if ((dup = handover_ref_dup(by_id, h->nprincipals)) != NULL) {
		xasprintf(&in->cause, "principal %zu: a second principal of "
		    "that \"id\"", dup->i);
		goto out;
	}

	for (i = 0; i < h->nservers; i++) {
		s = &h->servers[i];
		ntasks += s->ntasks;
		for (j = 0; j < s->ntasks; j++) {
			if (!handover_ref_has(by_id, h->nprincipals,
			    s->tasks[j].principal)) {
				xasprintf(&in->cause, "server %zu, task %zu: "
				    "\"principal\" is not one of the "
				    "principals listed", i, j);
				goto out;
			}
		}
	}

	r = xcalloc(ntasks + 1, sizeof *r);
	k = 0;
	for (i = 0; i < h->nservers; i++) {
		s = &h->servers[i];
		for (j = 0; j < s->ntasks; j++) {
			r[k].key = s->tasks[j].id;
			r[k].i = i;
			r[k++].j = j;
		}
	}
	if ((dup = handover_ref_dup(r, ntasks)) != NULL) {
		xasprintf(&in->cause, "server %zu, task %zu: a second task of "
		    "that \"id\"", dup->i, dup->j);
		goto out;
	}

	/* A server's ids apart from the keys of those clients run. */
	for (i = 0; i < h->nservers * 2; i++) {
		s = &h->servers[i / 2];
		for (j = k = 0; j < s->ntasks; j++) {
			if (s->tasks[j].client_runs != (int)(i % 2))
				continue;
			r[k].key = s->tasks[j].up_id;
			r[k].i = i / 2;
			r[k++].j = j;
		}
		if ((dup = handover_ref_dup(r, k)) != NULL) {
			xasprintf(&in->cause, "server %zu, task %zu: a second "
			    "task of that \"up_id\"", dup->i, dup->j);
			goto out;
		}
	}

out:
	free(r);
	free(by_id);
}

/* A template's count, or an instance's template, number, client, roots. */
static void
handover_parse_instance(struct handover_in *in, struct handover_server *s)
{
	struct roots	 roots;
	char		*err = NULL;

	s->instances_made = (uint64_t)handover_num(in, "instances_made", 0, 0,
	    UINT32_MAX, 0);
	if ((s->instance_of = handover_str(in, "instance_of", 0)) == NULL)
		return;
	s->instance_no = (uint64_t)handover_num(in, "instance_no", 1, 1,
	    UINT32_MAX, 0);
	s->owner_pid = (pid_t)handover_num(in, "owner_pid", 0, 0, INT32_MAX,
	    0);
	s->owner_uid = (uid_t)handover_num(in, "owner_uid", 0, 0, UINT32_MAX,
	    0);
	if ((s->roots = handover_str(in, "roots", 0)) == NULL)
		return;
	if (roots_from_result(&roots, s->roots, strlen(s->roots), &err) != 0) {
		free(err);
		handover_bad(in, "roots", "a roots/list result");
		return;
	}
	roots_free(&roots);
}

static void
handover_parse_server(struct handover_in *in, struct handover_server *s)
{
	cJSON	*id;
	char	 name[64];
	size_t	 i;

	s->name = handover_str(in, "name", 1);
	s->running = handover_bool(in, "running");
	s->state = handover_str(in, "state", 1);
	s->spawns = handover_u64(in, "spawns");
	s->last_exit = handover_str(in, "last_exit", 0);
	s->last_stderr = handover_str(in, "last_stderr", 0);
	handover_parse_lines(in, s);
	s->lines_in = handover_u64(in, "lines_in");
	s->nonjson_lines = handover_u64(in, "nonjson_lines");
	s->oversize = handover_u64(in, "oversize");
	s->violations = handover_u64(in, "violations");
	s->remote = handover_str(in, "remote", 0);
	handover_parse_instance(in, s);
	/* Running or not, a server may hold tasks: "server 0, task 1". */
	snprintf(name, sizeof name, "%s, task", in->where);
	handover_parse_list(in, "tasks", HANDOVER_MAX_TASKS, "tasks", name,
	    handover_parse_task, s);
	if (!s->running)
		return;
	s->pid = (pid_t)handover_num(in, "pid", 1, 2, INT32_MAX, 0);
	s->exit_pid = (pid_t)handover_num(in, "exit_pid", 1, 2, INT32_MAX, 0);
	s->containment = (int)handover_num(in, "containment", 1, 0, 16, 0);
	s->cgroup_leaf = handover_str(in, "cgroup_leaf", 0);
	s->sandbox_held = (unsigned int)handover_num(in, "sandbox_held", 0,
	    0, UINT32_MAX, 0);
	s->sandboxed = handover_get(in, "sandbox_held", 0) != NULL;
	s->in_fd = handover_fd(in, "in_fd", 1);
	s->out_fd = handover_fd(in, "out_fd", 1);
	s->err_fd = handover_fd(in, "err_fd", 1);
	s->status_fd = handover_fd(in, "status_fd", 0);
	s->spawned_ms = handover_u64(in, "spawned_ms");
	s->ready_ms = handover_u64(in, "ready_ms");
	s->next_upstream_id = (int64_t)handover_num(in, "next_upstream_id", 1,
	    1, HANDOVER_EXACT_MAX, 1);
	s->first_id = (int64_t)handover_num(in, "first_id", 0, 0,
	    HANDOVER_EXACT_MAX, 0);
	s->init_result = handover_str(in, "init_result", 1);
	if (s->init_result != NULL) {
		/* Clients are answered with it as it is. */
		id = cJSON_ParseWithOpts(s->init_result, NULL, 1);
		if (!cJSON_IsObject(id) || !cJSON_IsString(
		    cJSON_GetObjectItemCaseSensitive(id, "protocolVersion")))
			handover_bad(in, "init_result", "an initialize result");
		cJSON_Delete(id);
	}
	s->level = (int)handover_num(in, "level", 0, -1, 7, -1);
	handover_bytes(in, "out_partial", &s->out_partial);
	handover_bytes(in, "err_partial", &s->err_partial);
	handover_bytes(in, "status_partial", &s->status_partial);
	handover_bytes(in, "in_queued", &s->in_queued);
	if (in->cause == NULL && (s->out_fd < 0 || s->err_fd < 0))
		xasprintf(&in->cause, "%s: a running server without its "
		    "pipes", in->where);
	handover_strs(in, "subscriptions", s, handover_add_sub);
	handover_strs(in, "asks", s, handover_add_ask);
	for (i = 0; in->cause == NULL && i < s->nasks; i++) {
		/* Written back to the server as they are: ids, nothing else. */
		id = cJSON_ParseWithOpts(s->asks[i], NULL, 1);
		if (!cJSON_IsNumber(id) && !cJSON_IsString(id))
			handover_bad(in, "asks", "an array of JSON-RPC ids");
		cJSON_Delete(id);
	}
}

/* A server of the state, its name not one a server before it has. */
static void
handover_parse_one_server(struct handover_in *in, void *arg)
{
	struct handover		*h = arg;
	struct handover_server	*s;
	size_t			 j;

	s = handover_add_server(h);
	handover_parse_server(in, s);
	if (in->cause != NULL)
		return;
	for (j = 0; j + 1 < h->nservers; j++) {
		if (strcmp(h->servers[j].name, s->name) == 0) {
			xasprintf(&in->cause, "%s: a second server of that "
			    "name", in->where);
			return;
		}
	}
}

int
handover_parse(const char *text, size_t len, struct handover *h,
    char **cause)
{
	struct handover_in	 in = { NULL, "the state", NULL };
	cJSON			*root;
	int			 version;

	handover_init(h);
	*cause = NULL;
	if (len > HANDOVER_MAX_BYTES) {
		xasprintf(cause, "the state is larger than %d bytes",
		    HANDOVER_MAX_BYTES);
		return (-1);
	}
	if ((root = cJSON_ParseWithLength(text, len)) == NULL ||
	    !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		xasprintf(cause, "the state is not a JSON object");
		return (-1);
	}
	in.o = root;
	version = (int)handover_num(&in, "version", 1, 0, INT32_MAX, -1);
	if (in.cause == NULL && version != HANDOVER_VERSION) {
		xasprintf(&in.cause, "the state is version %d, and this mcpd "
		    "reads version %d only", version, HANDOVER_VERSION);
	}
	if (in.cause != NULL)
		goto fail;
	h->config_file = handover_str(&in, "config_file", 1);
	handover_bytes(&in, "config_text", &h->config_text);
	h->listen_fd = handover_fd(&in, "listen_fd", 1);
	h->listen_owned = handover_bool(&in, "listen_owned");
	h->socket_path = handover_str(&in, "socket_path", 1);
	handover_http_fds(&in, h);
	h->cgroup_root = handover_str(&in, "cgroup_root", 0);
	h->guard_fd = handover_fd(&in, "guard_fd", 0);
	h->guard_pid = (pid_t)handover_num(&in, "guard_pid", 0, 0, INT32_MAX,
	    0);
	h->nofile_cur = handover_u64(&in, "nofile_cur");
	h->nofile_max = handover_u64(&in, "nofile_max");
	h->nofile_raised = handover_bool(&in, "nofile_raised");
	h->started_ms = handover_u64(&in, "started_ms");
	h->reexecs = handover_u64(&in, "reexecs");
	h->workers_total = handover_u64(&in, "workers_total");
	if (in.cause == NULL && h->listen_fd < 0)
		xasprintf(&in.cause, "the state has no listening socket");
	/* The servers are required, if only as an empty array. */
	handover_get(&in, "servers", 1);
	handover_parse_list(&in, "servers", HANDOVER_MAX_SERVERS, "objects",
	    "server", handover_parse_one_server, h);
	handover_parse_list(&in, "principals", HANDOVER_MAX_PRINCIPALS,
	    "principals", "principal", handover_parse_principal, h);
	handover_check_tasks(&in, h);
	handover_parse_list(&in, "eras", HANDOVER_MAX_ERAS, "eras", "era",
	    handover_parse_era, h);
	if (in.cause != NULL)
		goto fail;
	cJSON_Delete(root);
	return (0);

fail:
	cJSON_Delete(root);
	handover_free(h);
	*cause = in.cause;
	return (-1);
}
