/*
 * ring.c -- a bounded ring of text lines.
 *
 * Lines live in a circular array of entries, oldest at head; each entry's
 * text is its own allocation of len bytes, which may include NULs; a NUL
 * after them is only a convenience, never the end of the line.  The array
 * grows geometrically up to max_lines.  A line costs its length plus
 * RING_LINE_OVERHEAD_BYTES against the byte budget; pushing a line first
 * drops the oldest lines until both budgets have room for it.  A line that
 * cannot fit even alone (a zero budget) leaves the ring empty.
 *
 * Sequence numbers start at 1 and the newest held line is next_seq - 1,
 * so ring_first_seq() == ring_next_seq() exactly when nothing is held and
 * seq 0 never names a line.
 */

#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "ring.h"
#include "xmalloc.h"

#define RING_LINE_OVERHEAD_BYTES	48	/* entry and allocator header */
#define RING_INITIAL_LINES		16

struct ring_entry {
	char		*text;
	size_t		 len;
	uint64_t	 realtime_us;
};

struct ring {
	struct ring_entry *entries;
	size_t		 cap;
	size_t		 head;		/* oldest entry */
	size_t		 count;
	size_t		 bytes;		/* cost of the held lines */
	size_t		 max_bytes;
	size_t		 max_lines;
	uint64_t	 next_seq;
};

static void
ring_drop_oldest(struct ring *r)
{
	struct ring_entry	*e = &r->entries[r->head];

	r->bytes -= e->len + RING_LINE_OVERHEAD_BYTES;
	free(e->text);
	e->text = NULL;
	r->head = (r->head + 1) % r->cap;
	r->count--;
}

static void
ring_grow(struct ring *r)
{
	struct ring_entry	*entries;
	size_t			 cap, i;

	cap = r->cap * 2;
	if (cap < RING_INITIAL_LINES)
		cap = RING_INITIAL_LINES;
	if (cap > r->max_lines)
		cap = r->max_lines;
	entries = xreallocarray(NULL, cap, sizeof *entries);
	for (i = 0; i < r->count; i++)
		entries[i] = r->entries[(r->head + i) % r->cap];
	free(r->entries);
	r->entries = entries;
	r->cap = cap;
	r->head = 0;
}

struct ring *
ring_new(size_t max_bytes, size_t max_lines)
{
	struct ring	*r;

	r = xcalloc(1, sizeof *r);
	r->max_bytes = max_bytes;
	r->max_lines = max_lines;
	r->next_seq = 1;
	return (r);
}

void
ring_free(struct ring *r)
{
	if (r == NULL)
		return;
	while (r->count > 0)
		ring_drop_oldest(r);
	free(r->entries);
	free(r);
}

void
ring_push(struct ring *r, const char *line, size_t len, uint64_t realtime_us)
{
	struct ring_entry	*e;
	size_t			 cost;

	if (len > RING_LINE_MAX_BYTES)
		len = RING_LINE_MAX_BYTES;
	cost = len + RING_LINE_OVERHEAD_BYTES;
	r->next_seq++;

	if (r->max_lines == 0 || cost > r->max_bytes) {
		while (r->count > 0)
			ring_drop_oldest(r);
		return;
	}
	while (r->count > 0 &&
	    (r->count >= r->max_lines || r->bytes + cost > r->max_bytes))
		ring_drop_oldest(r);
	if (r->count == r->cap)
		ring_grow(r);

	e = &r->entries[(r->head + r->count) % r->cap];
	e->text = xmalloc(len + 1);
	if (len > 0)
		memcpy(e->text, line, len);
	e->text[len] = '\0';
	e->len = len;
	e->realtime_us = realtime_us;
	r->count++;
	r->bytes += cost;
}

size_t
ring_count(const struct ring *r)
{
	return (r->count);
}

uint64_t
ring_first_seq(const struct ring *r)
{
	return (r->next_seq - r->count);
}

uint64_t
ring_next_seq(const struct ring *r)
{
	return (r->next_seq);
}

const char *
ring_get(const struct ring *r, uint64_t seq, size_t *len,
    uint64_t *realtime_us)
{
	const struct ring_entry	*e;

	if (seq < ring_first_seq(r) || seq >= r->next_seq)
		return (NULL);
	e = &r->entries[(r->head + (seq - ring_first_seq(r))) % r->cap];
	if (len != NULL)
		*len = e->len;
	if (realtime_us != NULL)
		*realtime_us = e->realtime_us;
	return (e->text);
}

char *
ring_line_json(const struct ring *r, uint64_t seq, const char *server)
{
	const char	*line;
	char		*name, *text, *json;
	size_t		 len;
	uint64_t	 realtime_us;

	if ((line = ring_get(r, seq, &len, &realtime_us)) == NULL)
		return (NULL);
	name = esc_json_string(server, strlen(server));
	text = esc_json_string(line, len);
	xasprintf(&json, "{\"server\":%s,\"seq\":%" PRIu64 ",\"time_us\":%"
	    PRIu64 ",\"text\":%s}", name, seq, realtime_us, text);
	free(name);
	free(text);
	return (json);
}
