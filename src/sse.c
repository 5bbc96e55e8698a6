/*
 * sse.c -- a Server-Sent Events parser with bounded memory.
 *
 * The stream is read byte by byte through a small state machine, so a
 * line is never buffered whole: once a line's field name is known, its
 * value goes straight where it belongs.  "data" and "event" values are
 * appended to the event's data and type as they arrive, "retry" values
 * are turned into a number digit by digit, comments and unknown fields
 * are dropped as they stream by.  Only an "id" value waits for the end of
 * its line (a NUL anywhere in it means the line is ignored), and only up
 * to its first NUL.  However the stream is split, no byte is searched
 * more than twice (for a CR, for an LF) and nothing is rescanned; a CR
 * ending one chunk and an LF starting the next make one line end, and a
 * leading BOM may be split too.
 *
 * Following the WHATWG algorithm, an "id" line sets the last event ID
 * buffer at once, and a blank line copies it into the last event ID in
 * force (sse_last_id) whether or not an event is dispatched; a field
 * "data" with an empty value makes an event whose data is "".  Bytes are
 * passed on undecoded: invalid UTF-8 and NUL bytes in data reach the
 * caller as they came.  A "retry" value needs one digit at least, and
 * saturates at UINT64_MAX rather than wrap.
 *
 * The bound, in bytes: the data (lines joined with LF), the type and the
 * id buffer of the event being read together at most max_event_bytes;
 * an "id" value being read (up to its first NUL) at most max_event_bytes.
 * Each is checked as the bytes come, so whether a stream is too big does
 * not depend on how it was split.  After SSE_TOO_BIG the event's buffers
 * are released.  Each buffer is an sbuf bounded by max_event_bytes, so
 * it grows by doubling up to max_event_bytes + 1, and it is released
 * when emptied if it holds more than SSE_KEEP_BYTES: sse_held is at most
 * the sum over its five buffers of max(SSE_KEEP_BYTES, 2 x (length + 1)),
 * and never more than 5 x (max_event_bytes + 1).
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "sse.h"
#include "util.h"
#include "xmalloc.h"

#define SSE_KEEP_BYTES	256	/* larger buffers are freed when emptied */
#define SSE_NAME_BYTES	5	/* the longest field name we act on */
/* Keeps length arithmetic far from overflowing. */
#define SSE_MAX_LIMIT	(SIZE_MAX / 8)

enum sse_state {
	SSE_BOM,		/* the stream's first bytes: a BOM? */
	SSE_LINE_START,
	SSE_NAME,		/* a field name that may be one we know */
	SSE_SPACE,		/* just after the colon */
	SSE_VALUE,
	SSE_SKIP,		/* a comment or an ignored field */
};

enum sse_field {
	SSE_FIELD_NONE,
	SSE_FIELD_DATA,
	SSE_FIELD_EVENT,
	SSE_FIELD_ID,
	SSE_FIELD_RETRY,
};

struct sse {
	size_t		 max;
	struct sse_cb	 cb;
	void		*arg;
	enum sse_result	 result;	/* SSE_OK until it stops */

	enum sse_state	 state;
	int		 cr;		/* the last byte was a CR ending a line */
	size_t		 bom_got;	/* BOM bytes matched so far */
	char		 name[SSE_NAME_BYTES];
	size_t		 name_len;
	enum sse_field	 field;

	struct sbuf	 data;		/* data lines joined with LF */
	size_t		 data_lines;
	struct sbuf	 type;
	struct sbuf	 id;		/* the last event ID buffer */
	int		 id_changed;	/* since it was last committed */
	struct sbuf	 pend;		/* an id value being read */
	int		 pend_nul;	/* it holds a NUL: the line is ignored */
	struct sbuf	 last;		/* the last event ID in force */

	uint64_t	 retry;
	int		 retry_ok;
	size_t		 retry_digits;
};

static const char	sse_bom[] = "\xef\xbb\xbf";

static const struct {
	const char	*name;
	enum sse_field	 field;
} sse_fields[] = {
	{ "data",	SSE_FIELD_DATA },
	{ "event",	SSE_FIELD_EVENT },
	{ "id",		SSE_FIELD_ID },
	{ "retry",	SSE_FIELD_RETRY },
};

/* Released, and empty again (its bound kept). */
static void
sse_buf_free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Emptied; released too if large, so one big event is not held on to. */
static void
sse_buf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->cap > SSE_KEEP_BYTES)
		sse_buf_free(b);
}

/* The content as a string (p is NULL, or stale, while len is 0). */
static const char *
sse_buf_str(const struct sbuf *b)
{
	return (b->len == 0 ? "" : b->p);
}

static enum sse_result
sse_too_big(struct sse *s)
{
	sse_buf_free(&s->data);
	sse_buf_free(&s->type);
	sse_buf_free(&s->pend);
	s->data_lines = 0;
	s->result = SSE_TOO_BIG;
	return (SSE_TOO_BIG);
}

/* Would adding len bytes to the event pass the bound? */
static int
sse_event_over(const struct sse *s, size_t len)
{
	size_t	 held;

	held = s->data.len + s->type.len + s->id.len;
	return (held > s->max || len > s->max - held);
}

static enum sse_result
sse_dispatch(struct sse *s)
{
	struct sse_event	 ev;
	int			 rc = 0;

	if (s->id_changed) {
		sse_buf_reset(&s->last);
		sbuf_add(&s->last, s->id.p, s->id.len);
		s->id_changed = 0;
	}
	if (s->data_lines == 0) {
		sse_buf_reset(&s->type);
		return (SSE_OK);
	}
	memset(&ev, 0, sizeof ev);
	if (s->type.len == 0) {
		ev.type = "message";
		ev.type_len = strlen(ev.type);
	} else {
		ev.type = s->type.p;
		ev.type_len = s->type.len;
	}
	ev.data = sse_buf_str(&s->data);
	ev.data_len = s->data.len;
	ev.id = sse_buf_str(&s->last);
	ev.id_len = s->last.len;
	if (s->cb.event != NULL)
		rc = s->cb.event(s->arg, &ev);
	sse_buf_reset(&s->data);
	sse_buf_reset(&s->type);
	s->data_lines = 0;
	if (rc == -1) {
		s->result = SSE_STOPPED;
		return (SSE_STOPPED);
	}
	return (SSE_OK);
}

static enum sse_field
sse_field_find(const char *name, size_t len)
{
	size_t	 i;

	for (i = 0; i < nitems(sse_fields); i++) {
		if (strlen(sse_fields[i].name) == len &&
		    memcmp(sse_fields[i].name, name, len) == 0)
			return (sse_fields[i].field);
	}
	return (SSE_FIELD_NONE);
}

/* Can the name read so far, plus c, still become a field we know? */
static int
sse_name_possible(const struct sse *s, char c)
{
	size_t	 i;

	if (s->name_len == SSE_NAME_BYTES)
		return (0);
	for (i = 0; i < nitems(sse_fields); i++) {
		if (strlen(sse_fields[i].name) > s->name_len &&
		    memcmp(sse_fields[i].name, s->name, s->name_len) == 0 &&
		    sse_fields[i].name[s->name_len] == c)
			return (1);
	}
	return (0);
}

/* A known field's value starts (after the colon, or at the line end). */
static enum sse_result
sse_value_begin(struct sse *s)
{
	switch (s->field) {
	case SSE_FIELD_DATA:
		if (s->data_lines > 0) {
			if (sse_event_over(s, 1))
				return (sse_too_big(s));
			sbuf_add(&s->data, "\n", 1);
		}
		s->data_lines++;
		break;
	case SSE_FIELD_EVENT:
		sse_buf_reset(&s->type);
		break;
	case SSE_FIELD_ID:
		sse_buf_reset(&s->pend);
		s->pend_nul = 0;
		break;
	case SSE_FIELD_RETRY:
		s->retry = 0;
		s->retry_ok = 1;
		s->retry_digits = 0;
		break;
	case SSE_FIELD_NONE:
		break;
	}
	return (SSE_OK);
}

static enum sse_result
sse_value_bytes(struct sse *s, const char *p, size_t len)
{
	const char	*nul;
	size_t		 i;
	unsigned int	 d;

	switch (s->field) {
	case SSE_FIELD_DATA:
		if (sse_event_over(s, len))
			return (sse_too_big(s));
		sbuf_add(&s->data, p, len);
		break;
	case SSE_FIELD_EVENT:
		if (sse_event_over(s, len))
			return (sse_too_big(s));
		sbuf_add(&s->type, p, len);
		break;
	case SSE_FIELD_ID:
		if (s->pend_nul)
			break;
		if ((nul = memchr(p, '\0', len)) != NULL) {
			len = nul - p;
			s->pend_nul = 1;
		}
		if (len > s->max - s->pend.len)
			return (sse_too_big(s));
		if (s->pend_nul)
			sse_buf_reset(&s->pend);
		else
			sbuf_add(&s->pend, p, len);
		break;
	case SSE_FIELD_RETRY:
		for (i = 0; i < len && s->retry_ok; i++) {
			if (p[i] < '0' || p[i] > '9') {
				s->retry_ok = 0;
				break;
			}
			d = p[i] - '0';
			if (s->retry > (UINT64_MAX - d) / 10)
				s->retry = UINT64_MAX;
			else
				s->retry = s->retry * 10 + d;
			s->retry_digits++;
		}
		break;
	case SSE_FIELD_NONE:
		break;
	}
	return (SSE_OK);
}

static enum sse_result
sse_value_end(struct sse *s)
{
	struct sbuf	 swap;

	switch (s->field) {
	case SSE_FIELD_ID:
		if (s->pend_nul)
			break;
		if (s->data.len + s->type.len > s->max ||
		    s->pend.len > s->max - s->data.len - s->type.len)
			return (sse_too_big(s));
		swap = s->id;
		s->id = s->pend;
		s->pend = swap;
		sse_buf_reset(&s->pend);
		s->id_changed = 1;
		break;
	case SSE_FIELD_RETRY:
		if (s->retry_ok && s->retry_digits > 0 && s->cb.retry != NULL)
			s->cb.retry(s->arg, s->retry);
		break;
	default:
		break;
	}
	return (SSE_OK);
}

/* How many bytes of p come before a CR or LF. */
static size_t
sse_span(const char *p, size_t len)
{
	const char	*q;

	if ((q = memchr(p, '\n', len)) != NULL)
		len = q - p;
	if ((q = memchr(p, '\r', len)) != NULL)
		len = q - p;
	return (len);
}

/* The line ends here, with the byte c (CR or LF). */
static enum sse_result
sse_line_end(struct sse *s, char c, enum sse_result rc)
{
	s->cr = c == '\r';
	s->state = SSE_LINE_START;
	return (rc);
}

/* The stream after its BOM (if any). */
static enum sse_result
sse_run(struct sse *s, const char *p, size_t len)
{
	enum sse_result	 rc;
	size_t		 n;
	char		 c;

	while (len > 0) {
		c = *p;
		if (s->cr) {
			s->cr = 0;
			if (c == '\n') {
				p++;
				len--;
				continue;
			}
		}
		switch (s->state) {
		case SSE_BOM:
			abort();	/* sse_feed leaves it first */
		case SSE_LINE_START:
			if (c == '\r' || c == '\n') {
				p++;
				len--;
				if ((rc = sse_line_end(s, c, sse_dispatch(s))) !=
				    SSE_OK)
					return (rc);
				break;
			}
			if (c == ':') {
				s->state = SSE_SKIP;
				p++;
				len--;
				break;
			}
			s->name_len = 0;
			s->state = SSE_NAME;
			break;
		case SSE_NAME:
			p++;
			len--;
			if (c == ':' || c == '\r' || c == '\n') {
				s->field = sse_field_find(s->name, s->name_len);
				if (s->field == SSE_FIELD_NONE) {
					if (c == ':')
						s->state = SSE_SKIP;
					else
						sse_line_end(s, c, SSE_OK);
					break;
				}
				if ((rc = sse_value_begin(s)) != SSE_OK)
					return (rc);
				if (c == ':') {
					s->state = SSE_SPACE;
					break;
				}
				if ((rc = sse_line_end(s, c,
				    sse_value_end(s))) != SSE_OK)
					return (rc);
				break;
			}
			if (!sse_name_possible(s, c)) {
				s->state = SSE_SKIP;
				break;
			}
			s->name[s->name_len++] = c;
			break;
		case SSE_SPACE:
			s->state = SSE_VALUE;
			if (c == ' ') {
				p++;
				len--;
			}
			break;
		case SSE_VALUE:
		case SSE_SKIP:
			/* The rest of the line: a known field's value, or not. */
			n = sse_span(p, len);
			if (n > 0 && s->state == SSE_VALUE &&
			    (rc = sse_value_bytes(s, p, n)) != SSE_OK)
				return (rc);
			p += n;
			len -= n;
			if (len == 0)
				break;
			c = *p;
			p++;
			len--;
			if ((rc = sse_line_end(s, c, s->state == SSE_VALUE ?
			    sse_value_end(s) : SSE_OK)) != SSE_OK)
				return (rc);
			break;
		}
	}
	return (SSE_OK);
}

struct sse *
sse_new(size_t max_event_bytes, const struct sse_cb *cb, void *arg)
{
	struct sse	*s;

	s = xcalloc(1, sizeof *s);
	s->max = max_event_bytes > SSE_MAX_LIMIT ? SSE_MAX_LIMIT :
	    max_event_bytes;
	sbuf_bound(&s->data, s->max);
	sbuf_bound(&s->type, s->max);
	sbuf_bound(&s->id, s->max);
	sbuf_bound(&s->pend, s->max);
	sbuf_bound(&s->last, s->max);
	if (cb != NULL)
		s->cb = *cb;
	s->arg = arg;
	s->state = SSE_BOM;
	return (s);
}

void
sse_free(struct sse *s)
{
	if (s == NULL)
		return;
	sse_buf_free(&s->data);
	sse_buf_free(&s->type);
	sse_buf_free(&s->id);
	sse_buf_free(&s->pend);
	sse_buf_free(&s->last);
	free(s);
}

enum sse_result
sse_feed(struct sse *s, const char *buf, size_t len)
{
	if (s->result != SSE_OK)
		return (s->result);
	while (s->state == SSE_BOM && len > 0) {
		if (*buf == sse_bom[s->bom_got]) {
			buf++;
			len--;
			if (++s->bom_got == sizeof sse_bom - 1)
				s->state = SSE_LINE_START;
			continue;
		}
		/* Not a BOM after all: its first bytes were the stream's. */
		s->state = SSE_LINE_START;
		if (sse_run(s, sse_bom, s->bom_got) != SSE_OK)
			return (s->result);
	}
	if (sse_run(s, buf, len) != SSE_OK)
		return (s->result);
	return (SSE_OK);
}

const char *
sse_last_id(const struct sse *s)
{
	return (sse_buf_str(&s->last));
}

size_t
sse_held(const struct sse *s)
{
	return (s->data.cap + s->type.cap + s->id.cap + s->pend.cap +
	    s->last.cap);
}
