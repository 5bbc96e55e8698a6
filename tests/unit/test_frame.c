/*
 * test_frame.c -- unit tests for the newline framer: splitting, limits,
 * id recovery from oversized messages, garbage detection, memory bound.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "frame.h"
#include "unit.h"
#include "xmalloc.h"

#define MIB		(1024 * 1024)
#define PAD80 \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

struct event {
	enum frame_event type;
	char		*text;		/* line, or head */
	size_t		 len;
	size_t		 total;
	char		*id;		/* NUL-terminated copy, or NULL */
};

struct events {
	struct event	*v;
	size_t		 n;
	size_t		 cap;
};

static void
events_add(struct events *l, enum frame_event type, const struct frame_msg *m)
{
	struct event	*e;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	e = &l->v[l->n++];
	memset(e, 0, sizeof *e);
	e->type = type;
	if (type == FRAME_LINE) {
		e->text = xmalloc(m->len + 1);
		memcpy(e->text, m->line, m->len);
		e->len = m->len;
	} else {
		e->text = xmalloc(m->head_len + 1);
		memcpy(e->text, m->head, m->head_len);
		e->len = m->head_len;
		e->total = m->total;
	}
	e->text[e->len] = '\0';
	if (type == FRAME_OVERSIZE && m->id != NULL)
		e->id = xstrndup(m->id, m->id_len);
}

static void
events_clear(struct events *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].id);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void
drain(struct frame *f, struct events *l)
{
	struct frame_msg	 m;
	enum frame_event	 type;

	while ((type = frame_next(f, &m)) != FRAME_NONE)
		events_add(l, type, &m);
}

static void
push_str(struct frame *f, const char *s)
{
	frame_push(f, s, strlen(s));
}

/* Two event lists agree on everything that does not depend on chunking. */
static void
events_same(const struct events *a, const struct events *b, const char *what)
{
	size_t	 i;

	ck_assert_msg(a->n == b->n, "%s: %zu events, want %zu", what, b->n,
	    a->n);
	for (i = 0; i < a->n; i++) {
		ck_assert_msg(a->v[i].type == b->v[i].type,
		    "%s: event %zu type %d, want %d", what, i, b->v[i].type,
		    a->v[i].type);
		if (a->v[i].type == FRAME_GARBAGE)
			continue;
		ck_assert_msg(a->v[i].len == b->v[i].len &&
		    memcmp(a->v[i].text, b->v[i].text, a->v[i].len) == 0,
		    "%s: event %zu text differs", what, i);
		ck_assert_uint_eq(a->v[i].total, b->v[i].total);
		if (a->v[i].id == NULL)
			ck_assert_ptr_null(b->v[i].id);
		else {
			ck_assert_ptr_nonnull(b->v[i].id);
			ck_assert_str_eq(a->v[i].id, b->v[i].id);
		}
	}
}

/* Pushes s plus a newline into a fresh framer and returns the event. */
static enum frame_event
frame_one(size_t max_bytes, const char *s, struct events *l)
{
	struct frame	*f;

	f = frame_new(max_bytes);
	push_str(f, s);
	push_str(f, "\n");
	drain(f, l);
	ck_assert_int_eq(frame_partial(f), 0);
	frame_free(f);
	ck_assert_uint_eq(l->n, 1);
	return (l->v[0].type);
}

/* The id recovered from s, which must be an oversized message. */
static char *
oversize_id(const char *s)
{
	struct events	 l = { 0 };
	char		*id;

	ck_assert_uint_gt(strlen(s), 64);
	ck_assert_int_eq(frame_one(64, s, &l), FRAME_OVERSIZE);
	ck_assert_uint_eq(l.v[0].total, strlen(s));
	id = l.v[0].id;
	l.v[0].id = NULL;
	events_clear(&l);
	return (id);
}

#define SPLIT_MAX	64
#define LINE64 "{\"a\":\"" \
	"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" "\"}"
#define OVERSIZED \
	"{\"result\":{\"id\":99,\"pad\":\"" PAD80 "\"},\"jsonrpc\":\"2.0\"," \
	"\"id\":\"a\\\"b\"}"
static const char split_input[] =
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
	"{\"id\":2}\r\n"
	"\n"
	"  \t \r\n"
	LINE64 "\r\n"
	OVERSIZED "\r\n"
	"not json, " PAD80 "\n"
	"                                                  "
	"                                                  \n"
	"{\"a\":\"" PAD80 PAD80 PAD80 PAD80 "\"}\n"
	"{\"id\":3}\n"
	"{\"id\":4";

static void
split_reference(struct events *l)
{
	struct frame	*f;

	f = frame_new(SPLIT_MAX);
	frame_push(f, split_input, sizeof split_input - 1);
	drain(f, l);
	ck_assert_int_eq(frame_partial(f), 1);
	frame_free(f);
}

START_TEST(test_frame_reference)
{
	struct events	 l = { 0 };

	ck_assert_uint_eq(strlen(LINE64), 64);
	split_reference(&l);
	ck_assert_uint_eq(l.n, 7);

	ck_assert_int_eq(l.v[0].type, FRAME_LINE);
	ck_assert_str_eq(l.v[0].text,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
	ck_assert_int_eq(l.v[1].type, FRAME_LINE);
	ck_assert_str_eq(l.v[1].text, "{\"id\":2}");
	ck_assert_int_eq(l.v[2].type, FRAME_LINE);
	ck_assert_str_eq(l.v[2].text, LINE64);

	ck_assert_int_eq(l.v[3].type, FRAME_OVERSIZE);
	ck_assert_uint_eq(l.v[3].total, strlen(OVERSIZED));
	ck_assert_str_eq(l.v[3].text, OVERSIZED);
	ck_assert_str_eq(l.v[3].id, "\"a\\\"b\"");

	ck_assert_int_eq(l.v[4].type, FRAME_GARBAGE);
	ck_assert_int_eq(l.v[5].type, FRAME_GARBAGE);
	ck_assert_int_eq(l.v[6].type, FRAME_LINE);
	ck_assert_str_eq(l.v[6].text, "{\"id\":3}");
	events_clear(&l);
}
END_TEST

START_TEST(test_frame_split_everywhere)
{
	struct events	 ref = { 0 }, l;
	struct frame	*f;
	size_t		 n = sizeof split_input - 1, k;
	char		 what[64];

	split_reference(&ref);
	for (k = 0; k <= n; k++) {
		memset(&l, 0, sizeof l);
		f = frame_new(SPLIT_MAX);
		frame_push(f, split_input, k);
		drain(f, &l);
		frame_push(f, split_input + k, n - k);
		drain(f, &l);
		ck_assert_int_eq(frame_partial(f), 1);
		snprintf(what, sizeof what, "split at %zu", k);
		events_same(&ref, &l, what);
		events_clear(&l);
		frame_free(f);
	}
	events_clear(&ref);
}
END_TEST

START_TEST(test_frame_byte_at_a_time)
{
	struct events	 ref = { 0 }, l = { 0 };
	struct frame	*f;
	size_t		 n = sizeof split_input - 1, k;

	split_reference(&ref);
	f = frame_new(SPLIT_MAX);
	for (k = 0; k < n; k++) {
		frame_push(f, split_input + k, 1);
		drain(f, &l);
	}
	events_same(&ref, &l, "byte at a time");
	ck_assert_int_eq(frame_partial(f), 1);
	ck_assert_uint_le(frame_examined(f), 2 * n);
	frame_free(f);
	events_clear(&l);
	events_clear(&ref);
}
END_TEST

START_TEST(test_frame_space_commit)
{
	struct events	 ref = { 0 }, l;
	struct frame	*f;
	size_t		 n = sizeof split_input - 1, off, avail, step, chunk;
	char		*p, what[64];

	split_reference(&ref);
	for (step = 1; step <= 97; step += 8) {
		memset(&l, 0, sizeof l);
		f = frame_new(SPLIT_MAX);
		for (off = 0; off < n; off += chunk) {
			p = frame_space(f, &avail);
			ck_assert_ptr_nonnull(p);
			ck_assert_uint_ge(avail, FRAME_READ_CHUNK_BYTES);
			chunk = n - off < step ? n - off : step;
			memcpy(p, split_input + off, chunk);
			frame_commit(f, chunk);
			drain(f, &l);
		}
		snprintf(what, sizeof what, "reads of %zu", step);
		events_same(&ref, &l, what);
		events_clear(&l);
		frame_free(f);
	}
	events_clear(&ref);
}
END_TEST

START_TEST(test_frame_crlf_and_blank)
{
	struct frame		*f;
	struct frame_msg	 m;

	f = frame_new(1024);
	push_str(f, "\r\n\n \t\r\n{\"a\":1}\r\n{\"b\":2}\n\r\r\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 7);
	ck_assert(memcmp(m.line, "{\"a\":1}", 7) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 7);
	ck_assert(memcmp(m.line, "{\"b\":2}", 7) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 0);
	ck_assert_uint_eq(frame_buffered(f), 0);

	/* Only one '\r' is stripped; content is not judged below the limit. */
	push_str(f, "not json\r\r\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 9);
	ck_assert(memcmp(m.line, "not json\r", 9) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_partial)
{
	struct frame		*f;
	struct frame_msg	 m;

	f = frame_new(1024);
	ck_assert_int_eq(frame_partial(f), 0);
	push_str(f, "{\"id\":1}\n{\"id\":");
	ck_assert_uint_eq(frame_buffered(f), 15);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 1);
	ck_assert_uint_eq(frame_buffered(f), 6);
	push_str(f, "2}\n  \t");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 8);
	ck_assert(memcmp(m.line, "{\"id\":2}", 8) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 0);	/* blanks only */
	frame_free(f);

	/* A message being discarded is partial too. */
	f = frame_new(32);
	push_str(f, "{\"a\":\"" PAD80);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 1);
	ck_assert_uint_eq(frame_buffered(f), 0);
	push_str(f, "\"}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_OVERSIZE);
	ck_assert_uint_eq(m.total, 6 + 80 + 2);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 0);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_limit_exact)
{
	struct frame		*f;
	struct frame_msg	 m;
	char			 msg[102];

	/* An unfinished object: too long, but not garbage. */
	memset(msg, 'x', sizeof msg);
	memcpy(msg, "{\"a\":\"", 6);

	f = frame_new(100);
	frame_push(f, msg, 100);
	push_str(f, "\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 100);
	ck_assert(memcmp(m.line, msg, 100) == 0);

	/* The '\r' of a CRLF does not count against the limit. */
	frame_push(f, msg, 100);
	push_str(f, "\r");
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 100);

	/* One more byte is over; the next message comes through. */
	frame_push(f, msg, 101);
	push_str(f, "\n{\"id\":2}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_OVERSIZE);
	ck_assert_uint_eq(m.total, 101);
	ck_assert_uint_eq(m.head_len, 101);
	ck_assert(memcmp(m.head, msg, 101) == 0);
	ck_assert_ptr_null(m.id);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 8);
	ck_assert(memcmp(m.line, "{\"id\":2}", 8) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);

	/* 101 bytes then CRLF: over, and total leaves out the '\r'. */
	frame_push(f, msg, 101);
	push_str(f, "\r\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_OVERSIZE);
	ck_assert_uint_eq(m.total, 101);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);

	/* The same, arriving a byte at a time. */
	frame_push(f, msg, 100);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_push(f, msg, 1);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_OVERSIZE);
	ck_assert_uint_eq(m.total, 101);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 0);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_head)
{
	struct frame		*f;
	struct frame_msg	 m;
	char			*msg;
	size_t			 i;

	msg = xmalloc(1000);
	msg[0] = '[';
	for (i = 1; i < 1000; i++)
		msg[i] = '0' + i % 10;
	f = frame_new(300);
	frame_push(f, msg, 1000);
	ck_assert_int_eq(frame_next(f, &m), FRAME_GARBAGE);
	ck_assert_uint_eq(m.head_len, FRAME_HEAD_BYTES);
	ck_assert(memcmp(m.head, msg, FRAME_HEAD_BYTES) == 0);
	ck_assert_uint_ge(m.total, 301);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);

	msg[0] = '{';
	msg[1] = '"';
	msg[998] = '"';
	msg[999] = ':';
	frame_push(f, msg, 1000);
	push_str(f, "1}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_OVERSIZE);
	ck_assert_uint_eq(m.total, 1002);
	ck_assert_uint_eq(m.head_len, FRAME_HEAD_BYTES);
	ck_assert(memcmp(m.head, msg, FRAME_HEAD_BYTES) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_free(f);
	free(msg);
}
END_TEST

static void
assert_id(const char *s, const char *want)
{
	char	*id;

	id = oversize_id(s);
	if (want == NULL)
		ck_assert_msg(id == NULL, "%s: id %s, want none", s, id);
	else {
		ck_assert_msg(id != NULL, "%s: no id, want %s", s, want);
		ck_assert_str_eq(id, want);
	}
	free(id);
}

START_TEST(test_frame_id_recovery)
{
	char	 longid[200], msg[400];

	assert_id("{\"id\":17,\"result\":{\"pad\":\"" PAD80 "\"}}", "17");
	assert_id("{\"result\":{\"pad\":\"" PAD80 "\"},\"jsonrpc\":\"2.0\","
	    "\"id\":5}", "5");
	assert_id("{\"result\":{\"id\":\"decoy\",\"items\":[{\"id\":9},"
	    "[{\"id\":8}]],\"pad\":\"" PAD80 "\"},\"id\":\"real\"}",
	    "\"real\"");
	assert_id("{\"result\":{\"id\":1,\"pad\":\"" PAD80 "\"}}", NULL);
	assert_id("{\"pad\":\"" PAD80 "\",\"id\":\"a\\\"b\\\\\"}",
	    "\"a\\\"b\\\\\"");
	assert_id("{\"pad\":\"" PAD80 "\",\"id\":-3}", "-3");
	assert_id("{\"pad\":\"" PAD80 "\",\"id\":1.5e3}", "1.5e3");
	assert_id("{ \"id\" : 42 , \"pad\" : \"" PAD80 "\" }", "42");
	assert_id("{\"pad\":\"\\\"id\\\":7 " PAD80 "\",\"id\":8}", "8");
	assert_id("{\"idx\":1,\"i\":2,\"pad\":\"" PAD80 "\"}", NULL);
	assert_id("{\"pad\":\"" PAD80 "\"}", NULL);
	assert_id("{\"id\":null,\"pad\":\"" PAD80 "\"}", NULL);
	assert_id("{\"id\":true,\"pad\":\"" PAD80 "\"}", NULL);
	assert_id("{\"id\":{\"x\":1},\"pad\":\"" PAD80 "\"}", NULL);
	assert_id("{\"id\":[1],\"pad\":\"" PAD80 "\"}", NULL);
	/* The first top-level "id" counts, as with a JSON parser. */
	assert_id("{\"id\":1,\"pad\":\"" PAD80 "\",\"id\":2}", "1");
	/* An id that ends the message with no closing brace. */
	assert_id("{\"pad\":\"" PAD80 "\",\"id\":\"x\"", "\"x\"");

	/* FRAME_ID_MAX_BYTES of id text is kept, one more is not. */
	memset(longid, 'k', sizeof longid);
	longid[0] = '"';
	longid[FRAME_ID_MAX_BYTES - 1] = '"';
	longid[FRAME_ID_MAX_BYTES] = '\0';
	snprintf(msg, sizeof msg, "{\"pad\":\"%s\",\"id\":%s}", PAD80, longid);
	assert_id(msg, longid);
	longid[FRAME_ID_MAX_BYTES - 1] = 'k';
	longid[FRAME_ID_MAX_BYTES] = '"';
	longid[FRAME_ID_MAX_BYTES + 1] = '\0';
	snprintf(msg, sizeof msg, "{\"pad\":\"%s\",\"id\":%s}", PAD80, longid);
	assert_id(msg, NULL);
}
END_TEST

START_TEST(test_frame_id_streamed)
{
	struct events	 l = { 0 };
	struct frame	*f;
	char		*msg;
	size_t		 len, off, n, prefix;
	const char	*tail = "\"}]},\"jsonrpc\":\"2.0\",\"id\":5}\n";

	/* A 3 MiB reply with its id last, through a 1 MiB limit. */
	prefix = strlen("{\"result\":{\"content\":[{\"type\":\"text\","
	    "\"text\":\"");
	len = 3 * MIB;
	msg = xmalloc(len);
	memset(msg, 'y', len);
	memcpy(msg, "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"",
	    prefix);
	memcpy(msg + len - strlen(tail), tail, strlen(tail));

	f = frame_new(MIB);
	for (off = 0; off < len; off += n) {
		n = len - off < 65536 ? len - off : 65536;
		frame_push(f, msg + off, n);
		drain(f, &l);
		ck_assert_uint_le(frame_capacity(f),
		    MIB + 2 * FRAME_READ_CHUNK_BYTES);
	}
	push_str(f, "{\"id\":6}\n");
	drain(f, &l);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_int_eq(l.v[0].type, FRAME_OVERSIZE);
	ck_assert_uint_eq(l.v[0].total, len - 1);
	ck_assert_str_eq(l.v[0].id, "5");
	ck_assert_uint_eq(l.v[0].len, FRAME_HEAD_BYTES);
	ck_assert(memcmp(l.v[0].text, msg, FRAME_HEAD_BYTES) == 0);
	ck_assert_int_eq(l.v[1].type, FRAME_LINE);
	ck_assert_str_eq(l.v[1].text, "{\"id\":6}");
	events_clear(&l);
	frame_free(f);
	free(msg);
}
END_TEST

/* Oversized data that is not one JSON object is garbage. */
static void
assert_garbage(const char *s)
{
	struct events	 l = { 0 };
	struct frame	*f;

	f = frame_new(64);
	push_str(f, s);
	push_str(f, "\n{\"id\":1}\n");
	drain(f, &l);
	ck_assert_msg(l.n == 2, "%s: %zu events", s, l.n);
	ck_assert_msg(l.v[0].type == FRAME_GARBAGE, "%s: event %d", s,
	    l.v[0].type);
	ck_assert_int_eq(l.v[1].type, FRAME_LINE);
	ck_assert_str_eq(l.v[1].text, "{\"id\":1}");
	events_clear(&l);
	frame_free(f);
}

START_TEST(test_frame_garbage)
{
	assert_garbage(PAD80);
	assert_garbage("  " PAD80);
	assert_garbage("[\"" PAD80 "\"]");
	assert_garbage("\"" PAD80 "\"");
	assert_garbage("{\"a\":\"" PAD80 "\"} trailing");
	assert_garbage("{\"a\":\"" PAD80 "\"}{\"b\":1}");
	assert_garbage("{\"a\":[1,2},\"b\":\"" PAD80 "\"}");
	assert_garbage("{\"a\":{\"b\":[\"" PAD80 "\"}]}");
	assert_garbage("{\"a\":1}}" PAD80);
	assert_garbage("{\"a\" 1,\"b\":\"" PAD80 "\"}");
	assert_garbage("{,\"b\":\"" PAD80 "\"}");
	assert_garbage("{\"a\":1,,\"b\":\"" PAD80 "\"}");
	assert_garbage("{\"a\":,\"b\":\"" PAD80 "\"}");
	assert_garbage("{\"a\":1\"b\":\"" PAD80 "\"}");
}
END_TEST

START_TEST(test_frame_garbage_early)
{
	struct frame		*f;
	struct frame_msg	 m;
	int			 i;

	/* Known as soon as the message passes the limit. */
	f = frame_new(64);
	push_str(f, PAD80);
	ck_assert_int_eq(frame_next(f, &m), FRAME_GARBAGE);
	ck_assert_uint_eq(m.total, 80);
	ck_assert_uint_eq(m.head_len, 80);
	ck_assert_ptr_null(m.id);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	/* Reported once, then discarded up to the newline. */
	for (i = 0; i < 100; i++) {
		push_str(f, PAD80);
		ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
		ck_assert_uint_eq(frame_buffered(f), 0);
	}
	push_str(f, "}\n{\"id\":1}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 8);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_free(f);

	/* Up to the limit it is not known yet; one byte more and it is. */
	f = frame_new(80);
	push_str(f, PAD80);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "x");
	ck_assert_int_eq(frame_next(f, &m), FRAME_GARBAGE);
	ck_assert_uint_eq(m.total, 81);
	frame_free(f);

	/* A '\r' just past the limit may still be a line's CR. */
	f = frame_new(80);
	push_str(f, PAD80);
	push_str(f, "\r");
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "x");
	ck_assert_int_eq(frame_next(f, &m), FRAME_GARBAGE);
	ck_assert_uint_eq(m.total, 82);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_garbage_factor)
{
	struct frame		*f;
	struct frame_msg	 m;
	size_t			 max = 64, sent;

	f = frame_new(max);
	push_str(f, "{\"a\":\"");
	sent = 6;
	while (sent < FRAME_GARBAGE_FACTOR * max) {
		push_str(f, "x");
		sent++;
		ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	}
	push_str(f, "x");
	ck_assert_int_eq(frame_next(f, &m), FRAME_GARBAGE);
	ck_assert_uint_eq(m.total, FRAME_GARBAGE_FACTOR * max + 1);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	push_str(f, "xx\"}\n{\"id\":1}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert(memcmp(m.line, "{\"id\":1}", 8) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_free(f);
}
END_TEST

static void
push_100mib(const char *first, char fill)
{
	struct frame		*f;
	struct frame_msg	 m;
	static char		 chunk[65536];
	size_t			 sent, limit = MIB;
	int			 garbage = 0;
	enum frame_event	 type;

	f = frame_new(limit);
	memset(chunk, fill, sizeof chunk);
	memcpy(chunk, first, strlen(first));
	for (sent = 0; sent < 100 * MIB; sent += sizeof chunk) {
		frame_push(f, chunk, sizeof chunk);
		ck_assert_uint_le(frame_capacity(f),
		    limit + 2 * FRAME_READ_CHUNK_BYTES);
		while ((type = frame_next(f, &m)) != FRAME_NONE) {
			ck_assert_int_eq(type, FRAME_GARBAGE);
			garbage++;
		}
		ck_assert_uint_le(frame_capacity(f),
		    limit + 2 * FRAME_READ_CHUNK_BYTES);
		ck_assert_uint_le(frame_buffered(f), limit + 1);
		if (sent == 0)
			memset(chunk, fill, sizeof chunk);
	}
	ck_assert_int_eq(garbage, 1);
	ck_assert_int_eq(frame_partial(f), 1);
	ck_assert_uint_le(frame_examined(f), 2 * sent);
	push_str(f, "\n{\"id\":7}\n");
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 8);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_partial(f), 0);
	frame_free(f);
}

START_TEST(test_frame_memory_bound)
{
	push_100mib("", 'x');			/* not JSON */
	push_100mib("{\"a\":\"", 'x');		/* JSON, no end: the cap */
	push_100mib("{\"a\":", '[');		/* deep nesting */
}
END_TEST

START_TEST(test_frame_memory_bound_space)
{
	struct frame		*f;
	struct frame_msg	 m;
	size_t			 limit = MIB, avail, n, left, lines = 0;
	char			*p;
	enum frame_event	 type;
	int			 i;

	/* Lines of exactly the limit, read 64 KiB at a time. */
	f = frame_new(limit);
	for (i = 0; i < 5; i++) {
		left = limit;
		while (left > 0) {
			p = frame_space(f, &avail);
			ck_assert_uint_ge(avail, FRAME_READ_CHUNK_BYTES);
			n = left < 65536 ? left : 65536;
			memset(p, 'z', n);
			frame_commit(f, n);
			left -= n;
			ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
			ck_assert_uint_le(frame_capacity(f),
			    limit + 2 * FRAME_READ_CHUNK_BYTES);
		}
		p = frame_space(f, &avail);
		p[0] = '\n';
		p[1] = 'z';
		frame_commit(f, 2);
		while ((type = frame_next(f, &m)) != FRAME_NONE) {
			ck_assert_int_eq(type, FRAME_LINE);
			ck_assert_uint_eq(m.len, limit);
			lines++;
		}
		ck_assert_uint_le(frame_capacity(f),
		    limit + 2 * FRAME_READ_CHUNK_BYTES);
		p = frame_space(f, &avail);
		p[0] = '\n';
		frame_commit(f, 1);
		ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
		ck_assert_uint_eq(m.len, 1);
		ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	}
	ck_assert_uint_eq(lines, 5);
	ck_assert_uint_le(frame_examined(f), 2 * 5 * (limit + 3));
	/* Idle after big messages: the big buffer was given back. */
	ck_assert_uint_le(frame_capacity(f), 2 * FRAME_READ_CHUNK_BYTES);
	frame_free(f);
}
END_TEST

/*
 * frame_steal hands over the buffer holding the line just returned: the
 * line stays readable there after the framer goes on, and the bytes that
 * followed it are still framed, in order.
 */
START_TEST(test_frame_steal)
{
	struct frame		*f;
	struct frame_msg	 m;
	const char		*in = "{\"first\":1}\n{\"second\":2}\n{\"thi";
	char			*stolen;
	size_t			 size = 0;

	f = frame_new(1024);
	frame_push(f, in, strlen(in));
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 11);
	stolen = frame_steal(f, &size);
	ck_assert_ptr_nonnull(stolen);
	ck_assert(m.line >= stolen && m.line + m.len <= stolen + size);
	frame_push(f, "rd\":3}\n", 7);
	/* The stolen line is intact although the framer moved on. */
	ck_assert(memcmp(m.line, "{\"first\":1}", 11) == 0);
	free(stolen);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert(m.len == 12 && memcmp(m.line, "{\"second\":2}", 12) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert(m.len == 11 && memcmp(m.line, "{\"third\":3}", 11) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	frame_free(f);
}
END_TEST

START_TEST(test_frame_big_line)
{
	struct frame		*f;
	struct frame_msg	 m;
	char			*msg, *p;
	size_t			 len = 8 * MIB, off, n, avail;
	int			 lines = 0, pass;
	enum frame_event	 type;

	msg = xmalloc(len + 1);
	memset(msg, 'b', len);
	memcpy(msg, "{\"a\":\"", 6);
	memcpy(msg + len - 2, "\"}", 2);
	msg[len] = '\n';

	/* 1 KiB at a time: the work stays linear (no rescanning). */
	for (pass = 0; pass < 2; pass++) {
		f = frame_new(16 * MIB);
		for (off = 0; off < len + 1; off += n) {
			n = len + 1 - off < 1024 ? len + 1 - off : 1024;
			if (pass == 0)
				frame_push(f, msg + off, n);
			else {
				p = frame_space(f, &avail);
				memcpy(p, msg + off, n);
				frame_commit(f, n);
			}
			while ((type = frame_next(f, &m)) != FRAME_NONE) {
				ck_assert_int_eq(type, FRAME_LINE);
				ck_assert_uint_eq(m.len, len);
				ck_assert(memcmp(m.line, msg, len) == 0);
				lines++;
			}
		}
		ck_assert_int_eq(frame_partial(f), 0);
		ck_assert_uint_le(frame_examined(f), 2 * (len + 1));
		frame_free(f);
	}
	ck_assert_int_eq(lines, 2);
	free(msg);
}
END_TEST

/* A byte a JSON string may hold as it is (envelope.h), said again here. */
static int
plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x80 && c != '"' && c != '\\');
}

/*
 * Feed text in chunks of chunk bytes (read into frame_space, as the
 * daemon does); every line's plain run must be plain, inside the line and
 * long enough, and the scanner must say the same with and without it.
 * Returns the run of the last line.
 */
static void
feed_runs(const char *text, size_t len, size_t chunk, size_t *lines,
    size_t *off, size_t *run)
{
	struct frame		*f;
	struct frame_msg	 m;
	struct envelope		 e1, e2;
	size_t			 at, n, avail, i, err1 = 0, err2 = 0;
	char			*p;

	*lines = *off = *run = 0;
	f = frame_new(4 * MIB);
	frame_track_plain(f);
	for (at = 0; at < len; at += n) {
		n = len - at < chunk ? len - at : chunk;
		p = frame_space(f, &avail);
		if (n > avail)
			n = avail;
		memcpy(p, text + at, n);
		frame_commit(f, n);
		while (frame_next(f, &m) == FRAME_LINE) {
			(*lines)++;
			*off = m.plain.off;
			*run = m.plain.len;
			if (m.plain.len == 0)
				continue;
			ck_assert_uint_ge(m.plain.len, FRAME_PLAIN_CHUNK_BYTES);
			ck_assert_uint_le(m.plain.off + m.plain.len, m.len);
			/* One assertion: check writes a record for each. */
			for (i = m.plain.off; i < m.plain.off + m.plain.len &&
			    plain_byte(m.line[i]); i++)
				;
			ck_assert_msg(i == m.plain.off + m.plain.len,
			    "byte %zu of the run is 0x%02x", i,
			    (unsigned char)m.line[i]);
			ck_assert_int_eq(envelope_scan(m.line, m.len, &e1, &err1),
			    envelope_scan_plain(m.line, m.len, &m.plain, &e2,
			    &err2));
			ck_assert_uint_eq(err1, err2);
			ck_assert(memcmp(&e1, &e2, sizeof e1) == 0);
		}
	}
	frame_free(f);
}

/* A reply whose result is one long string, then a short line. */
static char *
runs_message(size_t text, size_t *len, size_t *text_at)
{
	static const char	 head[] =
	    "{\"jsonrpc\":\"2.0\",\"result\":{\"content\":[{\"type\":\"text\","
	    "\"text\":\"";
	static const char	 tail[] = "\"}]},\"id\":7}\n{\"id\":8}\n";
	char			*m;

	*len = sizeof head - 1 + text + sizeof tail - 1;
	m = xmalloc(*len);
	memcpy(m, head, sizeof head - 1);
	memset(m + sizeof head - 1, 'x', text);
	memcpy(m + sizeof head - 1 + text, tail, sizeof tail - 1);
	*text_at = sizeof head - 1;
	return (m);
}

/*
 * Large reads find a long string's text as a plain run, exactly; small
 * reads report none (a run is only cut short, never guessed), and the
 * next line does not inherit one.
 */
START_TEST(test_frame_plain_runs)
{
	struct frame		*f;
	struct frame_msg	 msg;
	char			*m;
	size_t			 len, text_at, lines, off, run;
	size_t			 text = 3 * MIB + 123;

	m = runs_message(text, &len, &text_at);
	feed_runs(m, len, FRAME_READ_CHUNK_BYTES, &lines, &off, &run);
	ck_assert_uint_eq(lines, 2);
	ck_assert_uint_eq(run, 0);		/* the short line after it */

	/* Stop at the first line to see its run. */
	feed_runs(m, len - strlen("{\"id\":8}\n"), FRAME_READ_CHUNK_BYTES,
	    &lines, &off, &run);
	ck_assert_uint_eq(lines, 1);
	ck_assert_uint_eq(off, text_at);
	/* Up to the last read, which is short: its bytes are not counted. */
	ck_assert_uint_le(run, text);
	ck_assert_uint_gt(run, text - FRAME_PLAIN_CHUNK_BYTES);

	/* Not asked for: none. */
	f = frame_new(4 * MIB);
	frame_push(f, m, len);
	while (frame_next(f, &msg) == FRAME_LINE)
		ck_assert_uint_eq(msg.plain.len, 0);
	frame_free(f);

	/* Reads of 1 KiB: no run at all. */
	feed_runs(m, len, 1024, &lines, &off, &run);
	ck_assert_uint_eq(lines, 2);
	feed_runs(m, len - strlen("{\"id\":8}\n"), 1024, &lines, &off, &run);
	ck_assert_uint_eq(run, 0);
	free(m);
}
END_TEST

/*
 * Random lines of plain stretches and bytes needing attention (quotes,
 * escapes, UTF-8, control characters, newlines), read in random chunk
 * sizes: every run reported is right (feed_runs checks it), whatever the
 * split.
 */
START_TEST(test_frame_plain_runs_random)
{
	static const char	 odd[] = "\"\\\xc3\xa9\x01\t\n{}[],:";
	char			*text;
	size_t			 cap = MIB, len, n, k, lines, off, run;
	size_t			 reported = 0;
	unsigned int		 seed = 12345, round;

	text = xmalloc(cap);
	for (round = 0; round < 16; round++) {
		len = 0;
		while (len < cap - 1) {
			seed = seed * 1103515245 + 12345;
			n = (seed >> 8) % (round % 2 ? 300000 : 5000);
			if (n > cap - 1 - len)
				n = cap - 1 - len;
			memset(text + len, 'a' + round % 26, n);
			len += n;
			seed = seed * 1103515245 + 12345;
			for (k = (seed >> 16) % 3; k > 0 && len < cap - 1; k--) {
				seed = seed * 1103515245 + 12345;
				text[len++] = odd[(seed >> 8) % (sizeof odd - 1)];
			}
		}
		text[len++] = '\n';
		seed = seed * 1103515245 + 12345;
		feed_runs(text, len, 1 + (seed >> 8) % (2 *
		    FRAME_READ_CHUNK_BYTES), &lines, &off, &run);
		reported += run;
		feed_runs(text, len, FRAME_READ_CHUNK_BYTES, &lines, &off,
		    &run);
		reported += run;
	}
	/* The check is not vacuous: long runs were found. */
	ck_assert_uint_gt(reported, 0);
	free(text);
}
END_TEST

/* A line too long is discarded: the line after it has no run of its. */
START_TEST(test_frame_plain_runs_discard)
{
	struct frame		*f;
	struct frame_msg	 m;
	char			*big;
	size_t			 n = 256 * 1024, got = 0;
	enum frame_event	 type;

	big = xmalloc(n);
	memset(big, 'y', n);
	f = frame_new(64 * 1024);
	frame_track_plain(f);
	frame_push(f, big, n);
	frame_push(f, "\n{\"a\":1}\n", 9);
	while ((type = frame_next(f, &m)) != FRAME_NONE) {
		if (type != FRAME_LINE)
			continue;
		got++;
		ck_assert_uint_eq(m.len, 7);
		ck_assert_uint_eq(m.plain.len, 0);
	}
	ck_assert_uint_eq(got, 1);
	frame_free(f);
	free(big);
}
END_TEST

START_TEST(test_frame_big_oversize_bytewise)
{
	struct frame		*f;
	struct frame_msg	 m;
	char			*msg;
	size_t			 len = 2 * MIB, off, n;
	int			 events = 0;
	enum frame_event	 type;
	const char		*tail = "\",\"id\":\"r-1\"}\n";

	/* Discard mode, 1 KiB at a time, the id at the very end. */
	msg = xmalloc(len);
	memset(msg, 'c', len);
	memcpy(msg, "{\"a\":\"", 6);
	memcpy(msg + len - strlen(tail), tail, strlen(tail));
	f = frame_new(MIB);
	for (off = 0; off < len; off += n) {
		n = len - off < 1024 ? len - off : 1024;
		frame_push(f, msg + off, n);
		while ((type = frame_next(f, &m)) != FRAME_NONE) {
			ck_assert_int_eq(type, FRAME_OVERSIZE);
			ck_assert_uint_eq(m.total, len - 1);
			ck_assert_uint_eq(m.id_len, 5);
			ck_assert(memcmp(m.id, "\"r-1\"", 5) == 0);
			events++;
		}
	}
	ck_assert_int_eq(events, 1);
	ck_assert_uint_le(frame_examined(f), 2 * len);
	frame_free(f);
	free(msg);
}
END_TEST

/* A half line handed to another framer (a re-exec) ends there whole. */
START_TEST(test_frame_pending_handed_over)
{
	struct frame		*f, *g;
	struct frame_msg	 m;
	const char		*p;
	size_t			 len;

	f = frame_new(1024);
	frame_push(f, "{\"a\":1}\n{\"b\"", 12);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	ck_assert_int_eq(frame_pending(f, &p, &len), 0);
	ck_assert_uint_eq(len, 4);
	ck_assert(memcmp(p, "{\"b\"", 4) == 0);
	g = frame_new(1024);
	frame_push(g, p, len);
	frame_free(f);
	frame_push(g, ":2}\n", 4);
	ck_assert_int_eq(frame_next(g, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 7);
	ck_assert(memcmp(m.line, "{\"b\":2}", 7) == 0);
	ck_assert_int_eq(frame_next(g, &m), FRAME_NONE);
	ck_assert_int_eq(frame_pending(g, &p, &len), 0);
	ck_assert_uint_eq(len, 0);
	frame_free(g);

	/* In discard mode there is nothing to hand over. */
	f = frame_new(16);
	frame_push(f, "{\"a\":\"0123456789012345678901234567890", 36);
	while (frame_next(f, &m) != FRAME_NONE)
		;
	ck_assert_int_eq(frame_pending(f, &p, &len), -1);
	ck_assert_uint_eq(len, 0);
	frame_free(f);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("frame");

	tc = tcase_create("framing");
	tcase_add_test(tc, test_frame_reference);
	tcase_add_test(tc, test_frame_split_everywhere);
	tcase_add_test(tc, test_frame_byte_at_a_time);
	tcase_add_test(tc, test_frame_space_commit);
	tcase_add_test(tc, test_frame_crlf_and_blank);
	tcase_add_test(tc, test_frame_partial);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_frame_limit_exact);
	tcase_add_test(tc, test_frame_head);
	tcase_add_test(tc, test_frame_id_recovery);
	tcase_add_test(tc, test_frame_garbage);
	tcase_add_test(tc, test_frame_garbage_early);
	tcase_add_test(tc, test_frame_garbage_factor);
	suite_add_tcase(s, tc);

	/* Generous timeouts: these guard against hangs, not speed. */
	tc = tcase_create("volume");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_frame_id_streamed);
	tcase_add_test(tc, test_frame_memory_bound);
	tcase_add_test(tc, test_frame_memory_bound_space);
	tcase_add_test(tc, test_frame_big_line);
	tcase_add_test(tc, test_frame_steal);
	tcase_add_test(tc, test_frame_big_oversize_bytewise);
	tcase_add_test(tc, test_frame_pending_handed_over);
	tcase_add_test(tc, test_frame_plain_runs);
	tcase_add_test(tc, test_frame_plain_runs_random);
	tcase_add_test(tc, test_frame_plain_runs_discard);
	suite_add_tcase(s, tc);

	return (s);
}
