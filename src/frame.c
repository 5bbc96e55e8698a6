/*
 * frame.c -- newline-delimited message framing.
 *
 * The buffer buf[0, cap) holds unconsumed input in [start, end).  Bytes in
 * [start, scan) are known to hold no '\n', so each byte is searched once
 * however it arrives.  Room is made only when a caller asks for it: the
 * live tail is moved to the front, and the buffer grows geometrically when
 * that is not enough, up to max_bytes + 1 of one message plus one read
 * chunk.  A buffer that empties while much larger than a read chunk is
 * released, so one big message does not pin memory forever.
 *
 * A message longer than max_bytes switches to discard mode: its bytes are
 * dropped as they are scanned, after passing once through a constant-state
 * JSON tokenizer that keeps the text of the top-level "id" member, and
 * only the first FRAME_HEAD_BYTES are kept.  The tokenizer checks structure
 * only (brackets, strings, the top-level key/value layout), not literals or
 * number syntax.  As with a JSON parser the first top-level "id" counts;
 * its text is reported only if it is a string or a number of at most
 * FRAME_ID_MAX_BYTES, and keys written with escapes never match.  An
 * oversized message of blanks only is skipped like a short one.  Whether
 * a message is too long, and whether it is garbage, does not depend on how
 * its bytes were split into reads; the totals reported with
 * FRAME_GARBAGE do (they count what has been seen).
 *
 * The memory bound assumes the caller pulls events with frame_next until
 * FRAME_NONE before each read of at most FRAME_READ_CHUNK_BYTES.
 *
 * With frame_track_plain, large chunks of a line are also searched for
 * runs of plain bytes (the bytes a JSON string holds as they are), while
 * they are still in the cache: the message's scanner then skips the
 * longest run instead of reading it again from memory.  A run is only
 * ever cut short, never made longer than what was seen: small chunks end
 * it.
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "frame.h"
#include "xmalloc.h"

#define FRAME_INITIAL_BYTES	4096
#define FRAME_KEEP_BYTES	(2 * FRAME_READ_CHUNK_BYTES)
#define FRAME_NEST_CHECKED	64	/* levels below the top whose bracket
					   kind is checked */
/* Keeps max_bytes + 1 + read chunk and the garbage cap from overflowing. */
#define FRAME_MAX_LIMIT_BYTES \
	((SIZE_MAX - 4 * (size_t)FRAME_READ_CHUNK_BYTES) / FRAME_GARBAGE_FACTOR)

enum frame_tok_state {
	FRAME_TOK_START,	/* before the first non-blank byte */
	FRAME_TOK_OPEN,		/* after the top-level '{': a key or '}' */
	FRAME_TOK_KEY,		/* after a top-level ',': a key */
	FRAME_TOK_IN_KEY,
	FRAME_TOK_COLON,
	FRAME_TOK_VALUE,	/* a top-level member's value starts */
	FRAME_TOK_IN_STRING,	/* a top-level member's string value */
	FRAME_TOK_IN_SCALAR,	/* a top-level member's number or literal */
	FRAME_TOK_NESTED,	/* inside an object or array below the top */
	FRAME_TOK_AFTER_VALUE,	/* a top-level ',' or '}' */
	FRAME_TOK_DONE,		/* top-level object closed: blanks only */
	FRAME_TOK_ERROR,
};

struct frame_tok {
	enum frame_tok_state	 state;
	size_t			 depth;		/* open containers */
	uint64_t		 arrays;	/* bit d - 2: level d is '[' */
	int			 in_string;	/* FRAME_TOK_NESTED only */
	int			 escape;
	unsigned int		 key_len;	/* saturates at 3 */
	int			 key_match;	/* key is a prefix of "id" */
	int			 value_is_id;
	int			 id_seen;	/* the first "id" member counts */
	int			 capturing;
	int			 id_found;
	size_t			 id_len;
	char			 id[FRAME_ID_MAX_BYTES];
};

struct frame {
	char		*buf;
	size_t		 cap;
	size_t		 start;
	size_t		 end;
	size_t		 scan;
	size_t		 max_bytes;
	size_t		 limit;		/* most the buffer grows to */
	size_t		 examined;	/* bytes searched or moved */
	/* Plain runs of the line in progress, as offsets from start. */
	int		 track_plain;
	size_t		 run_off;	/* the run that ends at scan */
	size_t		 run_len;
	size_t		 best_off;	/* the longest run of the line */
	size_t		 best_len;

	int		 discard;
	int		 garbage_due;	/* known garbage, not yet reported */
	int		 garbage_sent;
	size_t		 total;
	size_t		 last_cr;	/* 1 when the last byte seen was '\r' */
	size_t		 head_len;
	char		 head[FRAME_HEAD_BYTES];
	struct frame_tok tok;
};

/*
 * The first '\n' in [p, end), or NULL.  Most messages are short: their
 * first 64 bytes are looked at in registers, without a call.
 */
static inline char *
frame_find_nl(char *p, char *end)
{
#if defined(__SSE2__)
	const __m128i	 nl = _mm_set1_epi8('\n');
	int		 i, m;

	for (i = 0; i < 4 && end - p >= 16; i++, p += 16) {
		m = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(
		    (const __m128i *)(const void *)p), nl));
		if (m != 0)
			return (p + __builtin_ctz((unsigned)m));
	}
	if (p == end)
		return (NULL);
#endif
	return (memchr(p, '\n', end - p));
}

static void
frame_run_end(struct frame *f)
{
	if (f->run_len > f->best_len) {
		f->best_off = f->run_off;
		f->best_len = f->run_len;
	}
	f->run_len = 0;
}

static void
frame_runs_reset(struct frame *f)
{
	f->run_len = f->best_len = 0;
}

static int
frame_blank(unsigned char c)
{
	return (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

static int
frame_all_blank(const char *p, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (!frame_blank(p[i]))
			return (0);
	}
	return (1);
}

static int
frame_tok_scalar(unsigned char c)
{
	return ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z') || c == '-' || c == '+' || c == '.');
}

static int
frame_tok_structural(unsigned char c)
{
	return (c == '"' || c == '{' || c == '}' || c == '[' || c == ']');
}

static void
frame_tok_capture(struct frame_tok *t, unsigned char c)
{
	if (!t->capturing)
		return;
	if (t->id_len == sizeof t->id) {
		/* Too long to be an id worth answering. */
		t->capturing = 0;
		t->id_len = 0;
		return;
	}
	t->id[t->id_len++] = c;
}

static void
frame_tok_end_value(struct frame_tok *t)
{
	if (t->capturing) {
		t->id_found = 1;
		t->capturing = 0;
	}
	t->state = FRAME_TOK_AFTER_VALUE;
}

static void
frame_tok_push(struct frame_tok *t, unsigned char c)
{
	size_t	 bit;

	t->depth++;
	bit = t->depth - 2;
	if (bit < FRAME_NEST_CHECKED) {
		if (c == '[')
			t->arrays |= (uint64_t)1 << bit;
		else
			t->arrays &= ~((uint64_t)1 << bit);
	}
	t->state = FRAME_TOK_NESTED;
	t->in_string = 0;
}

static void
frame_tok_pop(struct frame_tok *t, unsigned char c)
{
	size_t	 bit;
	int	 is_array;

	bit = t->depth - 2;
	if (bit < FRAME_NEST_CHECKED) {
		is_array = (t->arrays >> bit) & 1;
		if (c != (is_array ? ']' : '}')) {
			t->state = FRAME_TOK_ERROR;
			return;
		}
	}
	if (--t->depth == 1)
		t->state = FRAME_TOK_AFTER_VALUE;
}

static void
frame_tok_byte(struct frame_tok *t, unsigned char c)
{
	switch (t->state) {
	case FRAME_TOK_START:
		if (frame_blank(c))
			break;
		if (c == '{') {
			t->depth = 1;
			t->state = FRAME_TOK_OPEN;
		} else
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_OPEN:
	case FRAME_TOK_KEY:
		if (frame_blank(c))
			break;
		if (c == '"') {
			t->key_len = 0;
			t->key_match = 1;
			t->escape = 0;
			t->state = FRAME_TOK_IN_KEY;
		} else if (c == '}' && t->state == FRAME_TOK_OPEN) {
			t->depth = 0;
			t->state = FRAME_TOK_DONE;
		} else
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_IN_KEY:
		if (t->escape) {
			t->escape = 0;
			t->key_match = 0;
		} else if (c == '\\') {
			t->escape = 1;
			t->key_match = 0;
		} else if (c == '"') {
			t->value_is_id = (t->key_match && t->key_len == 2);
			t->state = FRAME_TOK_COLON;
			break;
		} else if (t->key_len >= 2 || c != "id"[t->key_len])
			t->key_match = 0;
		if (t->key_len < 3)
			t->key_len++;
		break;
	case FRAME_TOK_COLON:
		if (frame_blank(c))
			break;
		if (c == ':')
			t->state = FRAME_TOK_VALUE;
		else
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_VALUE:
		if (frame_blank(c))
			break;
		if (t->value_is_id && !t->id_seen) {
			t->id_seen = 1;
			t->capturing = (c == '"' || c == '-' ||
			    (c >= '0' && c <= '9'));
			t->id_len = 0;
		}
		if (c == '"') {
			frame_tok_capture(t, c);
			t->escape = 0;
			t->state = FRAME_TOK_IN_STRING;
		} else if (c == '{' || c == '[')
			frame_tok_push(t, c);
		else if (frame_tok_scalar(c)) {
			frame_tok_capture(t, c);
			t->state = FRAME_TOK_IN_SCALAR;
		} else
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_IN_STRING:
		frame_tok_capture(t, c);
		if (t->escape)
			t->escape = 0;
		else if (c == '\\')
			t->escape = 1;
		else if (c == '"')
			frame_tok_end_value(t);
		break;
	case FRAME_TOK_IN_SCALAR:
		if (frame_tok_scalar(c)) {
			frame_tok_capture(t, c);
			break;
		}
		frame_tok_end_value(t);
		/* FALLTHROUGH */
	case FRAME_TOK_AFTER_VALUE:
		if (frame_blank(c))
			break;
		if (c == ',')
			t->state = FRAME_TOK_KEY;
		else if (c == '}') {
			t->depth = 0;
			t->state = FRAME_TOK_DONE;
		} else
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_NESTED:
		if (t->in_string) {
			if (t->escape)
				t->escape = 0;
			else if (c == '\\')
				t->escape = 1;
			else if (c == '"')
				t->in_string = 0;
		} else if (c == '"') {
			t->in_string = 1;
			t->escape = 0;
		} else if (c == '{' || c == '[')
			frame_tok_push(t, c);
		else if (c == '}' || c == ']')
			frame_tok_pop(t, c);
		break;
	case FRAME_TOK_DONE:
		if (!frame_blank(c))
			t->state = FRAME_TOK_ERROR;
		break;
	case FRAME_TOK_ERROR:
		break;
	}
}

static void
frame_tok_feed(struct frame_tok *t, const char *p, size_t len)
{
	const char	*end = p + len;

	while (p < end && t->state != FRAME_TOK_ERROR) {
		/*
		 * Most of a big message is string contents or nested data:
		 * skip what cannot change the state without the full switch.
		 */
		if (t->state == FRAME_TOK_NESTED && !t->escape) {
			if (t->in_string) {
				while (p < end && *p != '"' && *p != '\\')
					p++;
			} else {
				while (p < end &&
				    !frame_tok_structural((unsigned char)*p))
					p++;
			}
			if (p == end)
				break;
		} else if (t->state == FRAME_TOK_IN_STRING && !t->escape &&
		    !t->capturing) {
			while (p < end && *p != '"' && *p != '\\')
				p++;
			if (p == end)
				break;
		}
		frame_tok_byte(t, (unsigned char)*p++);
	}
}

static void
frame_discard_begin(struct frame *f)
{
	frame_runs_reset(f);
	f->discard = 1;
	f->garbage_due = 0;
	f->garbage_sent = 0;
	f->total = 0;
	f->last_cr = 0;
	f->head_len = 0;
	memset(&f->tok, 0, sizeof f->tok);
	f->tok.state = FRAME_TOK_START;
}

static void
frame_discard_feed(struct frame *f, const char *p, size_t len)
{
	size_t	 n;

	if (f->head_len < FRAME_HEAD_BYTES) {
		n = FRAME_HEAD_BYTES - f->head_len;
		if (n > len)
			n = len;
		memcpy(f->head + f->head_len, p, n);
		f->head_len += n;
	}
	f->total += len;
	f->last_cr = (p[len - 1] == '\r');
	if (f->garbage_due || f->garbage_sent)
		return;
	frame_tok_feed(&f->tok, p, len);
	/* As with the limit, a '\r' that may end the line does not count. */
	if (f->tok.state == FRAME_TOK_ERROR ||
	    f->total - f->last_cr > FRAME_GARBAGE_FACTOR * f->max_bytes)
		f->garbage_due = 1;
}

/* Discard the current message up to its newline or the end of input. */
static enum frame_event
frame_discard(struct frame *f, struct frame_msg *msg)
{
	char	*nl = NULL;
	size_t	 stop;

	if (f->scan < f->end) {
		nl = memchr(f->buf + f->scan, '\n', f->end - f->scan);
		f->examined += nl != NULL ?
		    (size_t)(nl - (f->buf + f->scan)) + 1 :
		    f->end - f->scan;
	}
	stop = (nl != NULL) ? (size_t)(nl - f->buf) : f->end;
	if (stop > f->start)
		frame_discard_feed(f, f->buf + f->start, stop - f->start);
	f->start = f->scan = stop;

	if (f->garbage_due && !f->garbage_sent) {
		f->garbage_due = 0;
		f->garbage_sent = 1;
		msg->total = f->total;
		msg->head = f->head;
		msg->head_len = f->head_len;
		return (FRAME_GARBAGE);
	}
	if (nl == NULL)
		return (FRAME_NONE);

	f->start = f->scan = stop + 1;
	f->discard = 0;
	if (f->garbage_sent || f->tok.state == FRAME_TOK_START)
		return (FRAME_NONE);	/* garbage told, or blank: silent */

	msg->total = f->total - f->last_cr;
	msg->head = f->head;
	msg->head_len = f->head_len < msg->total ? f->head_len : msg->total;
	if (f->tok.id_found) {
		msg->id = f->tok.id;
		msg->id_len = f->tok.id_len;
	}
	return (FRAME_OVERSIZE);
}

/* Make need bytes of room after end. */
static void
frame_reserve(struct frame *f, size_t need)
{
	size_t	 live, want;

	if (f->start == f->end)
		f->start = f->end = f->scan = 0;
	if (f->cap - f->end >= need)
		return;

	live = f->end - f->start;
	if (f->start > 0) {
		memmove(f->buf, f->buf + f->start, live);
		f->examined += live;
		f->scan -= f->start;
		f->start = 0;
		f->end = live;
		if (f->cap - f->end >= need)
			return;
	}

	want = f->cap * 2;
	if (want < FRAME_INITIAL_BYTES)
		want = FRAME_INITIAL_BYTES;
	if (want > f->limit)
		want = f->limit;
	if (want < live + need)
		want = live + need;
	f->buf = xrealloc(f->buf, want);
	f->cap = want;
}

struct frame *
frame_new(size_t max_bytes)
{
	struct frame	*f;

	if (max_bytes > FRAME_MAX_LIMIT_BYTES)
		max_bytes = FRAME_MAX_LIMIT_BYTES;
	f = xcalloc(1, sizeof *f);
	f->max_bytes = max_bytes;
	f->limit = max_bytes + 1 + FRAME_READ_CHUNK_BYTES;
	return (f);
}

void
frame_track_plain(struct frame *f)
{
	f->track_plain = 1;
}

void
frame_free(struct frame *f)
{
	if (f == NULL)
		return;
	free(f->buf);
	free(f);
}

char *
frame_space(struct frame *f, size_t *avail)
{
	frame_reserve(f, FRAME_READ_CHUNK_BYTES);
	*avail = f->cap - f->end;
	return (f->buf + f->end);
}

void
frame_commit(struct frame *f, size_t n)
{
	if (n > f->cap - f->end)
		abort();	/* more than frame_space offered */
	f->end += n;
}

void
frame_push(struct frame *f, const void *buf, size_t len)
{
	if (len == 0)
		return;
	frame_reserve(f, len);
	memcpy(f->buf + f->end, buf, len);
	f->end += len;
}

/* The line of len bytes ended: its longest run, if long enough. */
static void
frame_line_runs(struct frame *f, struct frame_msg *msg, size_t len)
{
	frame_run_end(f);
	if (f->best_len >= FRAME_PLAIN_CHUNK_BYTES &&
	    f->best_off + f->best_len <= len) {
		msg->plain.off = f->best_off;
		msg->plain.len = f->best_len;
	}
	frame_runs_reset(f);
}

/*
 * Search a large chunk [scan, end) for '\n' and for plain runs: the run
 * that began before it goes on over the chunk's plain bytes, and a new
 * one may begin after the last byte that needs attention.  Returns the
 * newline, or NULL.
 */
static char *
frame_scan_runs(struct frame *f)
{
	char	*p = f->buf + f->scan, *e = f->buf + f->end, *q, *nl, *stop;
	size_t	 n, at = f->scan - f->start, tail;

	n = envelope_plain_prefix(p, e - p);
	if (f->run_len == 0 || f->run_off + f->run_len != at) {
		frame_run_end(f);
		f->run_off = at;
	}
	f->run_len += n;
	if (n == (size_t)(e - p))
		return (NULL);		/* a newline is not plain */
	frame_run_end(f);
	q = p + n;
	nl = memchr(q, '\n', e - q);
	stop = nl != NULL ? nl : e;
	tail = envelope_plain_suffix(q, stop - q);
	f->run_off = (size_t)(stop - f->buf) - f->start - tail;
	f->run_len = tail;
	return (nl);
}

enum frame_event
frame_next(struct frame *f, struct frame_msg *msg)
{
	enum frame_event	 ev;
	char			*line, *nl;
	size_t			 len, pending;

	memset(msg, 0, sizeof *msg);
	for (;;) {
		if (f->discard) {
			if ((ev = frame_discard(f, msg)) != FRAME_NONE)
				return (ev);
			if (f->discard)
				break;
			continue;
		}

		nl = NULL;
		if (f->scan < f->end) {
			if (f->track_plain &&
			    f->end - f->scan >= FRAME_PLAIN_CHUNK_BYTES)
				nl = frame_scan_runs(f);
			else {
				nl = frame_find_nl(f->buf + f->scan,
				    f->buf + f->end);
				if (f->run_len != 0)
					frame_run_end(f);
			}
			f->examined += nl != NULL ?
			    (size_t)(nl - (f->buf + f->scan)) + 1 :
			    f->end - f->scan;
		}
		if (nl == NULL) {
			f->scan = f->end;
			/* One byte of slack: a '\r' may yet be stripped. */
			pending = f->end - f->start;
			if (pending > f->max_bytes + 1 ||
			    (pending == f->max_bytes + 1 &&
			    f->buf[f->end - 1] != '\r')) {
				frame_discard_begin(f);
				continue;
			}
			break;
		}

		line = f->buf + f->start;
		len = nl - line;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if (len > f->max_bytes) {
			f->scan = nl - f->buf;
			frame_discard_begin(f);
			continue;
		}
		f->start = f->scan = nl - f->buf + 1;
		if ((f->run_len | f->best_len) != 0)
			frame_line_runs(f, msg, len);
		if (frame_all_blank(line, len))
			continue;
		msg->line = line;
		msg->len = len;
		return (FRAME_LINE);
	}

	if (f->start == f->end) {
		f->start = f->end = f->scan = 0;
		if (f->cap > FRAME_KEEP_BYTES) {
			free(f->buf);
			f->buf = NULL;
			f->cap = 0;
		}
	}
	return (FRAME_NONE);
}

/*
 * Hand the buffer holding the line just returned to the caller, so a
 * large message can be passed on without copying it.  The framer keeps
 * a fresh buffer with the bytes that follow the line.
 */
char *
frame_steal(struct frame *f, size_t *size)
{
	char	*old = f->buf, *fresh;
	size_t	 live = f->end - f->start, cap;

	if (f->discard || old == NULL)
		return (NULL);
	cap = live + FRAME_READ_CHUNK_BYTES;
	if (cap < FRAME_INITIAL_BYTES)
		cap = FRAME_INITIAL_BYTES;
	if (cap > f->limit)
		cap = f->limit;
	/* A push larger than a read may leave more than the limit behind. */
	if (cap < live)
		cap = live;
	fresh = xmalloc(cap);
	memcpy(fresh, old + f->start, live);
	f->examined += live;
	*size = f->cap;
	f->buf = fresh;
	f->cap = cap;
	f->end = live;
	f->scan -= f->start;
	f->start = 0;
	return (old);
}

size_t
frame_buffered(const struct frame *f)
{
	return (f->end - f->start);
}

size_t
frame_capacity(const struct frame *f)
{
	return (f->cap);
}

size_t
frame_examined(const struct frame *f)
{
	return (f->examined);
}

int
frame_partial(const struct frame *f)
{
	if (f->discard)
		return (1);
	if (f->start == f->end)
		return (0);
	return (!frame_all_blank(f->buf + f->start, f->end - f->start));
}

int
frame_pending(const struct frame *f, const char **bytes, size_t *len)
{
	*bytes = NULL;
	*len = 0;
	if (f->discard)
		return (-1);
	*bytes = f->buf + f->start;
	*len = f->end - f->start;
	return (0);
}
