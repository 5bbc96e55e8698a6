/*
 * fuzz_frame.c -- the line framer, fed in arbitrary chunks.
 *
 * Input: four header bytes, then the stream.
 *	bytes 0-1	max_bytes: (b0 | (b1 & 0x0f) << 8), 0..4095, so the
 *			limit and the garbage cap (4 x max) are reached;
 *			times 64 when bit 4 of b1 is set, so that lines long
 *			enough for plain runs (frame.h) pass; bit 5 of b1
 *			leaves frame_track_plain off
 *	byte 2		chunking: bits 0-1 fixed size / small random / large
 *			random / all at once; bit 2 read through frame_space
 *			and frame_commit; bit 3 mix that with frame_push at
 *			random; bit 4 end with the "\n" a client's EOF adds;
 *			bit 5 now and then frame_steal the buffer of a line
 *	byte 3		chunk size parameter and random seed
 *
 * Events are drained after every chunk, as the daemon does, and compared
 * with a reference splitter that sees the whole stream at once and knows
 * nothing of chunks: the framer promises that which messages are lines,
 * oversized or garbage does not depend on how the bytes were split.  The
 * reference also re-implements, independently and for whole messages
 * only, the structure check and "id" capture that frame.c does byte by
 * byte in discard mode (see the comment at the top of frame.c).
 *
 * Other invariants: a line holds no '\n', is not blank and has at most
 * max_bytes, and its plain run (if any) is plain; after draining, at
 * most max_bytes + 1 bytes are buffered and the buffer is at most
 * max_bytes + 1 + one read (or the largest push);
 * the bytes reported never exceed the bytes received; frame_examined
 * stays within twice the bytes received.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "fuzz.h"

const char	*fuzz_target_name = "frame";

#define REF_NEST_CHECKED	64	/* as FRAME_NEST_CHECKED in frame.c */

struct event_rec {
	enum frame_event	 type;
	char			*text;		/* LINE */
	size_t			 len;
	size_t			 total;		/* OVERSIZE, GARBAGE */
	char			*head;
	size_t			 head_len;
	char			*id;		/* OVERSIZE */
	size_t			 id_len;
	/* Reference only: the message (for GARBAGE, seen in part). */
	const unsigned char	*msg;
	size_t			 msg_len;
};

struct event_list {
	struct event_rec	*v;
	size_t			 n;
	size_t			 cap;
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

static struct event_rec *
event_add(struct event_list *l, enum frame_event type)
{
	struct event_rec	*e;

	if (l->n == l->cap) {
		l->cap = l->cap == 0 ? 16 : l->cap * 2;
		if ((l->v = realloc(l->v, l->cap * sizeof *l->v)) == NULL)
			abort();
	}
	e = &l->v[l->n++];
	memset(e, 0, sizeof *e);
	e->type = type;
	return (e);
}

static void
event_list_free(struct event_list *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].text);
		free(l->v[i].head);
		free(l->v[i].id);
	}
	free(l->v);
}

static int
is_blank(unsigned char c)
{
	return (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

static int
all_blank(const unsigned char *p, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (!is_blank(p[i]))
			return (0);
	}
	return (1);
}

/*
 * Reference for discard mode: is a whole (possibly incomplete) message
 * blank, not a JSON object by structure, and where is its "id"?
 */
struct ref_scan {
	int	 blank;
	int	 error;
	int	 id_found;
	size_t	 id_off;
	size_t	 id_len;
};

static int
ref_scalar(unsigned char c)
{
	return ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.');
}

/* Skip a string body from just after its quote; returns n if unfinished. */
static size_t
ref_string_end(const unsigned char *m, size_t n, size_t i, int *escaped)
{
	*escaped = 0;
	while (i < n && m[i] != '"') {
		if (m[i] == '\\') {
			*escaped = 1;
			if (++i == n)
				return (n);
		}
		i++;
	}
	return (i);
}

static void
ref_scan(const unsigned char *m, size_t n, struct ref_scan *r)
{
	unsigned char	 kind[REF_NEST_CHECKED];
	size_t		 i = 0, key, v, level;
	int		 first = 1, id_seen = 0, is_id, capture, escaped;
	int		 in_string;
	unsigned char	 c;

	memset(r, 0, sizeof *r);
#define SKIP() do { while (i < n && is_blank(m[i])) i++; } while (0)
#define NEED() do { if (i == n) return; } while (0)
#define FAIL() do { r->error = 1; return; } while (0)
	SKIP();
	if (i == n) {
		r->blank = 1;
		return;
	}
	if (m[i++] != '{')
		FAIL();
	for (;;) {
		SKIP();
		NEED();
		if (first && m[i] == '}') {
			i++;
			break;
		}
		if (m[i] != '"')
			FAIL();
		key = ++i;
		i = ref_string_end(m, n, i, &escaped);
		NEED();
		is_id = !escaped && i - key == 2 && m[key] == 'i' &&
		    m[key + 1] == 'd';
		i++;
		SKIP();
		NEED();
		if (m[i++] != ':')
			FAIL();
		SKIP();
		NEED();
		capture = 0;
		if (is_id && !id_seen) {
			id_seen = 1;
			capture = m[i] == '"' || m[i] == '-' ||
			    (m[i] >= '0' && m[i] <= '9');
		}
		v = i;
		if (m[i] == '"') {
			i = ref_string_end(m, n, i + 1, &escaped);
			NEED();
			i++;
		} else if (m[i] == '{' || m[i] == '[') {
			level = 2;
			kind[0] = m[i++];
			in_string = 0;
			while (level > 1) {
				NEED();
				c = m[i++];
				if (in_string) {
					if (c == '\\') {
						NEED();
						i++;
					} else if (c == '"')
						in_string = 0;
				} else if (c == '"')
					in_string = 1;
				else if (c == '{' || c == '[') {
					level++;
					if (level - 2 < REF_NEST_CHECKED)
						kind[level - 2] = c;
				} else if (c == '}' || c == ']') {
					if (level - 2 < REF_NEST_CHECKED &&
					    c != (kind[level - 2] == '[' ?
					    ']' : '}'))
						FAIL();
					level--;
				}
			}
			capture = 0;
		} else if (ref_scalar(m[i])) {
			while (i < n && ref_scalar(m[i]))
				i++;
			NEED();		/* a number ends at the next byte */
		} else
			FAIL();
		if (capture && i - v <= FRAME_ID_MAX_BYTES) {
			r->id_found = 1;
			r->id_off = v;
			r->id_len = i - v;
		}
		SKIP();
		NEED();
		if (m[i] == '}') {
			i++;
			break;
		}
		if (m[i++] != ',')
			FAIL();
		first = 0;
	}
	SKIP();
	if (i != n)
		FAIL();
#undef SKIP
#undef NEED
#undef FAIL
}

/* What one message (without its '\n') must produce; ended: '\n' seen. */
static void
ref_message(struct event_list *l, const unsigned char *m, size_t len,
    int ended, size_t max_bytes)
{
	struct event_rec	*e;
	struct ref_scan		 r;
	size_t			 stripped;
	int			 cr;

	cr = len > 0 && m[len - 1] == '\r';
	if (!ended) {
		/* Discard mode starts as soon as the message cannot fit. */
		if (len < max_bytes + 1 || (len == max_bytes + 1 && cr))
			return;
	} else if (len - cr <= max_bytes) {
		if (!all_blank(m, len - cr)) {
			e = event_add(l, FRAME_LINE);
			e->text = fuzz_memdup(m, len - cr);
			e->len = len - cr;
		}
		return;
	}
	stripped = len - cr;
	ref_scan(m, len, &r);
	if (r.error || stripped > FRAME_GARBAGE_FACTOR * max_bytes) {
		e = event_add(l, FRAME_GARBAGE);
		e->msg = m;
		e->msg_len = len;
		return;
	}
	if (!ended || r.blank)
		return;
	e = event_add(l, FRAME_OVERSIZE);
	e->total = stripped;
	e->head_len = stripped < FRAME_HEAD_BYTES ? stripped : FRAME_HEAD_BYTES;
	e->head = fuzz_memdup(m, e->head_len);
	if (r.id_found) {
		e->id = fuzz_memdup(m + r.id_off, r.id_len);
		e->id_len = r.id_len;
	}
	e->msg = m;
	e->msg_len = len;
}

static void
ref_split(struct event_list *l, const unsigned char *p, size_t len,
    size_t max_bytes, int *partial)
{
	const unsigned char	*nl, *end = p + len;
	size_t			 n;

	while ((nl = memchr(p, '\n', end - p)) != NULL) {
		ref_message(l, p, nl - p, 1, max_bytes);
		p = nl + 1;
	}
	n = end - p;
	ref_message(l, p, n, 0, max_bytes);
	*partial = !all_blank(p, n) || n > max_bytes + 1 ||
	    (n == max_bytes + 1 && p[n - 1] != '\r');
}

struct chunker {
	uint32_t	 state;
	int		 mode;
	size_t		 param;
	size_t		 stolen_live;	/* bytes frame_steal had to copy */
	int		 plain;		/* frame_track_plain was called */
};

static uint32_t
chunker_rand(struct chunker *c)
{
	/* xorshift32: deterministic, so a reproducer replays exactly. */
	c->state ^= c->state << 13;
	c->state ^= c->state >> 17;
	c->state ^= c->state << 5;
	return (c->state);
}

static size_t
chunker_next(struct chunker *c, size_t left)
{
	size_t	 n;

	switch (c->mode & 3) {
	case 0:
		n = 1 + c->param;
		break;
	case 1:
		n = 1 + chunker_rand(c) % (c->param + 1);
		break;
	case 2:
		n = 1 + chunker_rand(c) % FRAME_READ_CHUNK_BYTES;
		break;
	default:
		n = left;
		break;
	}
	if (n > left)
		n = left;
	if (n > FRAME_READ_CHUNK_BYTES && (c->mode & 4))
		n = FRAME_READ_CHUNK_BYTES;
	return (n);
}

/*
 * A line's plain run: none unless asked for, else inside the line, long
 * enough, and plain throughout.
 */
static void
check_plain_run(const struct frame_msg *m, int tracked)
{
	const unsigned char	*p = (const unsigned char *)m->line;
	size_t			 i;

	if (m->plain.len == 0)
		return;
	FUZZ_CHECK(tracked, "a plain run without frame_track_plain");
	FUZZ_CHECK(m->plain.len >= FRAME_PLAIN_CHUNK_BYTES &&
	    m->plain.off <= m->len && m->plain.len <= m->len - m->plain.off,
	    "plain run [%zu, +%zu) in a line of %zu", m->plain.off,
	    m->plain.len, m->len);
	for (i = m->plain.off; i < m->plain.off + m->plain.len; i++)
		FUZZ_CHECK(p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' &&
		    p[i] != '\\', "byte %zu of the plain run is 0x%02x", i,
		    p[i]);
}

static void
drain(struct frame *f, struct event_list *l, size_t max_bytes,
    struct chunker *ck)
{
	struct frame_msg	 m;
	enum frame_event	 ev;
	struct event_rec	*e;
	char			*stolen;
	size_t			 size;

	while ((ev = frame_next(f, &m)) != FRAME_NONE) {
		e = event_add(l, ev);
		switch (ev) {
		case FRAME_LINE:
			FUZZ_CHECK(m.line != NULL, "LINE without text");
			FUZZ_CHECK(m.len <= max_bytes, "line of %zu bytes over "
			    "max_bytes %zu", m.len, max_bytes);
			FUZZ_CHECK(memchr(m.line, '\n', m.len) == NULL,
			    "line holds a newline");
			FUZZ_CHECK(!all_blank((const unsigned char *)m.line,
			    m.len), "blank line reported");
			check_plain_run(&m, ck->plain);
			e->text = fuzz_memdup(m.line, m.len);
			e->len = m.len;
			/* Now and then take the buffer, as the worker does. */
			if ((ck->mode & 0x20) && (chunker_rand(ck) & 1)) {
				ck->stolen_live += frame_buffered(f);
				stolen = frame_steal(f, &size);
				FUZZ_CHECK(stolen != NULL && m.line >= stolen &&
				    m.line + m.len <= stolen + size,
				    "frame_steal does not give the line's buffer");
				free(stolen);
			}
			break;
		case FRAME_OVERSIZE:
		case FRAME_GARBAGE:
			FUZZ_CHECK(m.head_len <= FRAME_HEAD_BYTES &&
			    m.head_len <= m.total, "head of %zu bytes for a "
			    "message of %zu", m.head_len, m.total);
			FUZZ_CHECK(m.total > max_bytes || ev == FRAME_GARBAGE,
			    "oversize message of %zu bytes within max_bytes "
			    "%zu", m.total, max_bytes);
			e->total = m.total;
			e->head = fuzz_memdup(m.head, m.head_len);
			e->head_len = m.head_len;
			if (m.id != NULL) {
				FUZZ_CHECK(ev == FRAME_OVERSIZE &&
				    m.id_len <= FRAME_ID_MAX_BYTES,
				    "id of %zu bytes", m.id_len);
				e->id = fuzz_memdup(m.id, m.id_len);
				e->id_len = m.id_len;
			}
			break;
		case FRAME_NONE:
			break;
		}
	}
}

static int
same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return (alen == blen && (alen == 0 || memcmp(a, b, alen) == 0));
}

static void
compare(const struct event_list *got, const struct event_list *want)
{
	const struct event_rec	*g, *w;
	size_t			 i;

	for (i = 0; i < got->n && i < want->n; i++) {
		g = &got->v[i];
		w = &want->v[i];
		FUZZ_CHECK(g->type == w->type, "event %zu is %d, the reference "
		    "says %d", i, g->type, w->type);
		switch (g->type) {
		case FRAME_LINE:
			FUZZ_CHECK(same_bytes(g->text, g->len, w->text, w->len),
			    "line %zu differs from the reference", i);
			break;
		case FRAME_OVERSIZE:
			FUZZ_CHECK(g->total == w->total, "oversize %zu: total "
			    "%zu, the reference says %zu", i, g->total,
			    w->total);
			FUZZ_CHECK(same_bytes(g->head, g->head_len, w->head,
			    w->head_len), "oversize %zu: head differs", i);
			FUZZ_CHECK((g->id == NULL) == (w->id == NULL) &&
			    (g->id == NULL || same_bytes(g->id, g->id_len,
			    w->id, w->id_len)), "oversize %zu: id %.*s, the "
			    "reference says %.*s", i,
			    g->id != NULL ? (int)g->id_len : 4,
			    g->id != NULL ? g->id : "none",
			    w->id != NULL ? (int)w->id_len : 4,
			    w->id != NULL ? w->id : "none");
			break;
		case FRAME_GARBAGE:
			/* The totals count what was seen: chunk-dependent. */
			FUZZ_CHECK(g->total > 0 && g->total <= w->msg_len,
			    "garbage %zu: total %zu of a %zu-byte message", i,
			    g->total, w->msg_len);
			FUZZ_CHECK(g->head_len == (g->total < FRAME_HEAD_BYTES ?
			    g->total : FRAME_HEAD_BYTES) &&
			    memcmp(g->head, w->msg, g->head_len) == 0,
			    "garbage %zu: head is not the message's start", i);
			break;
		case FRAME_NONE:
			break;
		}
	}
	FUZZ_CHECK(got->n == want->n, "%zu events, the reference says %zu",
	    got->n, want->n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_list	 got = { NULL, 0, 0 }, want = { NULL, 0, 0 };
	struct chunker		 ck;
	struct frame		*f;
	const uint8_t		*p;
	unsigned char		*all;
	size_t			 max_bytes, len, left, n, avail, received = 0;
	size_t			 biggest = 0, reported = 0, i;
	int			 eof_newline, use_space, partial;
	char			*space;

	if (size < 4)
		return (0);
	max_bytes = data[0] | (size_t)(data[1] & 0x0f) << 8;
	if (data[1] & 0x10)
		max_bytes *= 64;
	ck.mode = data[2];
	ck.param = data[3];
	ck.state = 0x9e3779b9u ^ (uint32_t)data[2] << 8 ^ data[3];
	ck.stolen_live = 0;
	eof_newline = (data[2] & 0x10) != 0;
	p = data + 4;
	len = size - 4;

	f = frame_new(max_bytes);
	ck.plain = !(data[1] & 0x20);
	if (ck.plain)
		frame_track_plain(f);
	for (left = len; left > 0; left -= n, p += n) {
		n = chunker_next(&ck, left);
		use_space = (ck.mode & 4) != 0;
		if (ck.mode & 8)
			use_space = chunker_rand(&ck) & 1;
		if (use_space && n <= FRAME_READ_CHUNK_BYTES) {
			space = frame_space(f, &avail);
			FUZZ_CHECK(avail >= FRAME_READ_CHUNK_BYTES,
			    "frame_space offers %zu bytes", avail);
			memcpy(space, p, n);
			frame_commit(f, n);
			if (biggest < FRAME_READ_CHUNK_BYTES)
				biggest = FRAME_READ_CHUNK_BYTES;
		} else {
			frame_push(f, p, n);
			if (biggest < n)
				biggest = n;
		}
		received += n;
		drain(f, &got, max_bytes, &ck);
		FUZZ_CHECK(frame_buffered(f) <= max_bytes + 1, "%zu bytes "
		    "buffered after draining (max_bytes %zu)",
		    frame_buffered(f), max_bytes);
		FUZZ_CHECK(frame_capacity(f) <= max_bytes + 1 +
		    (biggest > FRAME_READ_CHUNK_BYTES ? biggest :
		    FRAME_READ_CHUNK_BYTES), "buffer of %zu bytes (max_bytes "
		    "%zu, largest write %zu)", frame_capacity(f), max_bytes,
		    biggest);
		/* A steal copies what follows the line: that counts too. */
		FUZZ_CHECK(frame_examined(f) <= 2 * received + ck.stolen_live,
		    "examined %zu bytes of %zu received (%zu copied by "
		    "frame_steal)", frame_examined(f), received,
		    ck.stolen_live);
	}
	if (eof_newline) {
		frame_push(f, "\n", 1);
		received++;
		drain(f, &got, max_bytes, &ck);
	}

	/* fuzz_memdup leaves room for the EOF newline. */
	all = fuzz_memdup(data + 4, len);
	all[len] = '\n';
	ref_split(&want, all, len + eof_newline, max_bytes, &partial);
	compare(&got, &want);
	FUZZ_CHECK(frame_partial(f) == partial, "frame_partial is %d, the "
	    "reference says %d", frame_partial(f), partial);

	for (i = 0; i < got.n; i++) {
		if (got.v[i].type == FRAME_LINE)
			reported += got.v[i].len + 1;
		else if (got.v[i].type == FRAME_OVERSIZE)
			reported += got.v[i].total + 1;
	}
	FUZZ_CHECK(reported <= received, "%zu bytes reported of %zu received",
	    reported, received);

	frame_free(f);
	free(all);
	event_list_free(&got);
	event_list_free(&want);
	return (0);
}
