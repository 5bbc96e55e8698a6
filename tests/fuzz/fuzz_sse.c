/*
 * fuzz_sse.c -- the Server-Sent Events parser, fed in arbitrary chunks.
 *
 * Input: five header bytes, then the stream.
 *	bytes 0-1	max_event_bytes: b0 | (b1 & 0x0f) << 8, 0..4095, or
 *			65536 if b1 has bit 4 set (no input reaches it)
 *	byte 2		chunking: bits 0-1 fixed size / small random /
 *			large random / all at once
 *	byte 3		bits 0-3: the event callback returns -1 on this
 *			event (1-15; 0: never)
 *	byte 4		chunk size parameter and random seed
 *
 * The events, retry values, result and last event id are compared with a
 * reference that reads the whole stream at once, line by line, following
 * the WHATWG algorithm with plain string operations, and knows nothing of
 * chunks: the parser promises that none of these depends on how the
 * bytes were split.  The reference applies the bound as sse.c documents
 * it (data, type and id of an event; an id value up to its first NUL),
 * to the unfinished last line too.
 *
 * Other invariants: the strings passed to the callback are NUL-terminated
 * at their lengths and the type is never empty; sse_held never exceeds
 * 5 x (max_event_bytes + 1), and at the end of a stream still being read
 * it is at most, over the parser's five buffers, the sum of
 * max(REF_KEEP_BYTES, 2 x (length + 1)) with the lengths the reference
 * knows; after a stop, feeding more returns the same result and reports
 * nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sse.h"

const char	*fuzz_target_name = "sse";

#define REF_KEEP_BYTES	256	/* as SSE_KEEP_BYTES in sse.c */
#define HEADER_BYTES	5
#define LARGE_CHUNK	4096

struct rec {
	int		 retry;		/* a retry record, else an event */
	uint64_t	 ms;
	char		*type;
	size_t		 type_len;
	char		*data;
	size_t		 data_len;
	char		*id;
	size_t		 id_len;
};

struct log {
	struct rec	*v;
	size_t		 n;
	size_t		 cap;
	size_t		 events;
	size_t		 stop_at;
};

static void *
fuzz_memdup(const void *p, size_t len)
{
	char	*copy;

	if ((copy = malloc(len + 1)) == NULL)
		abort();
	if (len > 0)
		memcpy(copy, p, len);
	copy[len] = '\0';
	return (copy);
}

static struct rec *
log_add(struct log *l)
{
	struct rec	*r;

	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 16 : l->cap * 2;
		if ((l->v = realloc(l->v, l->cap * sizeof *l->v)) == NULL)
			abort();
	}
	r = &l->v[l->n++];
	memset(r, 0, sizeof *r);
	return (r);
}

/* Records an event; returns -1 if it is the one to stop at. */
static int
log_event(struct log *l, const char *type, size_t type_len, const char *data,
    size_t data_len, const char *id, size_t id_len)
{
	struct rec	*r;

	r = log_add(l);
	r->type = fuzz_memdup(type, type_len);
	r->type_len = type_len;
	r->data = fuzz_memdup(data, data_len);
	r->data_len = data_len;
	r->id = fuzz_memdup(id, id_len);
	r->id_len = id_len;
	l->events++;
	return (l->stop_at != 0 && l->events == l->stop_at ? -1 : 0);
}

static void
log_retry(struct log *l, uint64_t ms)
{
	struct rec	*r;

	r = log_add(l);
	r->retry = 1;
	r->ms = ms;
}

static void
log_free(struct log *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].type);
		free(l->v[i].data);
		free(l->v[i].id);
	}
	free(l->v);
}

/* The parser's callbacks. */
struct got {
	struct log	 log;
	int		 stopped;	/* nothing may come after a stop */
};

static int
got_event(void *arg, const struct sse_event *ev)
{
	struct got	*g = arg;

	FUZZ_CHECK(!g->stopped, "an event after the parser stopped");
	FUZZ_CHECK(ev->type != NULL && ev->data != NULL && ev->id != NULL,
	    "a NULL string in an event");
	FUZZ_CHECK(ev->type_len > 0, "an event with an empty type");
	FUZZ_CHECK(ev->type[ev->type_len] == '\0' &&
	    ev->data[ev->data_len] == '\0' && ev->id[ev->id_len] == '\0',
	    "an event's strings are not NUL-terminated at their lengths");
	FUZZ_CHECK(memchr(ev->id, '\0', ev->id_len) == NULL,
	    "an event id holds a NUL");
	return (log_event(&g->log, ev->type, ev->type_len, ev->data,
	    ev->data_len, ev->id, ev->id_len));
}

static void
got_retry(void *arg, uint64_t ms)
{
	struct got	*g = arg;

	FUZZ_CHECK(!g->stopped, "a retry after the parser stopped");
	log_retry(&g->log, ms);
}

/*
 * The reference: the whole stream, one line at a time.
 */
struct str {
	char	*p;
	size_t	 len;
};

struct ref {
	size_t		 max;
	struct log	 log;
	enum sse_result	 rc;
	struct str	 data;
	size_t		 data_lines;
	struct str	 type;
	struct str	 id;		/* the last event ID buffer */
	struct str	 last;		/* committed by blank lines */
	size_t		 pend;		/* bytes of an unfinished id line */
};

static void
str_set(struct str *s, const char *p, size_t len)
{
	free(s->p);
	s->p = fuzz_memdup(p, len);
	s->len = len;
}

static void
str_add(struct str *s, const char *p, size_t len)
{
	if ((s->p = realloc(s->p, s->len + len + 1)) == NULL)
		abort();
	if (len > 0)
		memcpy(s->p + s->len, p, len);
	s->len += len;
	s->p[s->len] = '\0';
}

static int
ref_name_is(const char *name, size_t len, const char *want)
{
	return (len == strlen(want) && memcmp(name, want, len) == 0);
}

static void
ref_dispatch(struct ref *r)
{
	str_set(&r->last, r->id.p, r->id.len);
	if (r->data_lines > 0 && log_event(&r->log,
	    r->type.len > 0 ? r->type.p : "message",
	    r->type.len > 0 ? r->type.len : 7, r->data.p, r->data.len,
	    r->last.p, r->last.len) == -1)
		r->rc = SSE_STOPPED;
	str_set(&r->data, "", 0);
	str_set(&r->type, "", 0);
	r->data_lines = 0;
}

/* Only digits, at least one: the value, saturated; else -1. */
static int
ref_retry(const char *v, size_t len, uint64_t *ms)
{
	unsigned long long	 n;
	char			*copy;
	size_t			 i;

	if (len == 0)
		return (-1);
	for (i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return (-1);
	}
	copy = fuzz_memdup(v, len);
	errno = 0;
	n = strtoull(copy, NULL, 10);
	free(copy);
	*ms = errno == ERANGE ? UINT64_MAX : n;
	return (0);
}

/* One line, without its end; complete: its end was seen. */
static void
ref_line(struct ref *r, const char *line, size_t len, int complete)
{
	const char	*colon, *name, *v, *nul;
	size_t		 name_len, vlen, kept, add;
	uint64_t	 ms;

	if (len == 0) {
		ref_dispatch(r);
		return;
	}
	if (line[0] == ':')
		return;
	name = line;
	if ((colon = memchr(line, ':', len)) != NULL) {
		name_len = colon - line;
		v = colon + 1;
		vlen = len - name_len - 1;
		if (vlen > 0 && v[0] == ' ') {
			v++;
			vlen--;
		}
	} else {
		/* Until its end, a line without a colon is only a name. */
		if (!complete)
			return;
		name_len = len;
		v = "";
		vlen = 0;
	}

	if (ref_name_is(name, name_len, "data")) {
		add = (r->data_lines > 0 ? 1 : 0) + vlen;
		if (r->data.len + add + r->type.len + r->id.len > r->max) {
			r->rc = SSE_TOO_BIG;
			return;
		}
		if (r->data_lines > 0)
			str_add(&r->data, "\n", 1);
		str_add(&r->data, v, vlen);
		r->data_lines++;
	} else if (ref_name_is(name, name_len, "event")) {
		if (r->data.len + vlen + r->id.len > r->max) {
			r->rc = SSE_TOO_BIG;
			return;
		}
		str_set(&r->type, v, vlen);
	} else if (ref_name_is(name, name_len, "id")) {
		nul = memchr(v, '\0', vlen);
		kept = nul != NULL ? (size_t)(nul - v) : vlen;
		if (kept > r->max) {
			r->rc = SSE_TOO_BIG;
			return;
		}
		if (!complete) {
			r->pend = nul != NULL ? 0 : kept;
			return;
		}
		if (nul != NULL)
			return;
		if (r->data.len + r->type.len + vlen > r->max) {
			r->rc = SSE_TOO_BIG;
			return;
		}
		str_set(&r->id, v, vlen);
	} else if (ref_name_is(name, name_len, "retry")) {
		if (complete && ref_retry(v, vlen, &ms) == 0)
			log_retry(&r->log, ms);
	}
}

static void
ref_run(struct ref *r, const char *p, size_t n)
{
	size_t	 i = 0, j;
	int	 complete;

	str_set(&r->data, "", 0);
	str_set(&r->type, "", 0);
	str_set(&r->id, "", 0);
	str_set(&r->last, "", 0);
	if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < n && r->rc == SSE_OK) {
		for (j = i; j < n && p[j] != '\r' && p[j] != '\n'; j++)
			;
		complete = j < n;
		ref_line(r, p + i, j - i, complete);
		if (!complete)
			break;
		i = j + 1;
		if (p[j] == '\r' && i < n && p[i] == '\n')
			i++;
	}
}

static void
ref_free(struct ref *r)
{
	log_free(&r->log);
	free(r->data.p);
	free(r->type.p);
	free(r->id.p);
	free(r->last.p);
}

static size_t
held_bound(size_t len)
{
	return (2 * (len + 1) > REF_KEEP_BYTES ? 2 * (len + 1) :
	    REF_KEEP_BYTES);
}

static void
compare(const struct log *got, const struct log *want)
{
	const struct rec	*g, *w;
	size_t			 i;

	for (i = 0; i < got->n && i < want->n; i++) {
		g = &got->v[i];
		w = &want->v[i];
		FUZZ_CHECK(g->retry == w->retry, "record %zu: %s, the "
		    "reference says %s", i, g->retry ? "retry" : "event",
		    w->retry ? "retry" : "event");
		if (g->retry) {
			FUZZ_CHECK(g->ms == w->ms, "record %zu: retry %llu, the "
			    "reference says %llu", i,
			    (unsigned long long)g->ms,
			    (unsigned long long)w->ms);
			continue;
		}
		FUZZ_CHECK(g->type_len == w->type_len &&
		    memcmp(g->type, w->type, g->type_len) == 0,
		    "event %zu: type \"%s\", the reference says \"%s\"", i,
		    g->type, w->type);
		FUZZ_CHECK(g->data_len == w->data_len &&
		    memcmp(g->data, w->data, g->data_len) == 0,
		    "event %zu: %zu bytes of data, the reference has %zu "
		    "(or other bytes)", i, g->data_len, w->data_len);
		FUZZ_CHECK(g->id_len == w->id_len &&
		    memcmp(g->id, w->id, g->id_len) == 0,
		    "event %zu: id \"%s\", the reference says \"%s\"", i,
		    g->id, w->id);
	}
	FUZZ_CHECK(got->n == want->n, "%zu records, the reference says %zu",
	    got->n, want->n);
}

static uint32_t
next_rand(uint32_t *state)
{
	/* xorshift32: deterministic, so a reproducer replays exactly. */
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return (*state);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sse_cb	 cb = { got_event, got_retry };
	struct got			 got;
	struct ref			 ref;
	struct sse			*s;
	const char			*p, *last;
	size_t				 max, len, left, n, param, bound;
	enum sse_result			 rc = SSE_OK;
	uint32_t			 state;
	int				 mode;

	if (size < HEADER_BYTES)
		return (0);
	max = data[0] | (size_t)(data[1] & 0x0f) << 8;
	if (data[1] & 0x10)
		max = 65536;
	mode = data[2] & 3;
	param = data[4];
	state = 0x9e3779b9u ^ (uint32_t)data[2] << 8 ^ data[4];
	p = (const char *)data + HEADER_BYTES;
	len = size - HEADER_BYTES;

	memset(&got, 0, sizeof got);
	got.log.stop_at = data[3] & 0x0f;
	s = sse_new(max, &cb, &got);
	for (left = len; left > 0 && rc == SSE_OK; left -= n, p += n) {
		switch (mode) {
		case 0:
			n = 1 + param;
			break;
		case 1:
			n = 1 + next_rand(&state) % (param % 16 + 1);
			break;
		case 2:
			n = 1 + next_rand(&state) % LARGE_CHUNK;
			break;
		default:
			n = left;
			break;
		}
		if (n > left)
			n = left;
		rc = sse_feed(s, p, n);
		FUZZ_CHECK(sse_held(s) <= 5 * (max + 1), "sse_held is %zu "
		    "(max_event_bytes %zu)", sse_held(s), max);
	}
	if (rc != SSE_OK) {
		got.stopped = 1;
		FUZZ_CHECK(sse_feed(s, "data: x\n\nretry: 1\n", 18) == rc,
		    "feeding after a stop did not return the same result");
	}

	memset(&ref, 0, sizeof ref);
	ref.max = max;
	ref.log.stop_at = got.log.stop_at;
	ref_run(&ref, (const char *)data + HEADER_BYTES, len);
	compare(&got.log, &ref.log);
	FUZZ_CHECK(rc == ref.rc, "result %d, the reference says %d", rc,
	    ref.rc);
	last = sse_last_id(s);
	FUZZ_CHECK(strlen(last) == ref.last.len &&
	    memcmp(last, ref.last.p, ref.last.len) == 0,
	    "last id \"%s\", the reference says \"%s\"", last, ref.last.p);

	if (rc == SSE_OK) {
		bound = held_bound(ref.data.len) + held_bound(ref.type.len) +
		    held_bound(ref.id.len) + held_bound(ref.pend) +
		    held_bound(ref.last.len);
		FUZZ_CHECK(sse_held(s) <= bound, "sse_held is %zu, more than "
		    "%zu for data %zu, type %zu, id %zu, pending id %zu, "
		    "last id %zu bytes", sse_held(s), bound, ref.data.len,
		    ref.type.len, ref.id.len, ref.pend, ref.last.len);
	}
	sse_free(s);
	log_free(&got.log);
	ref_free(&ref);
	return (0);
}
