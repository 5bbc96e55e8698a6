/*
 * hreplay.c -- a session's replay buffer (hreplay.h): a ring of the last
 * events, bounded in count and bytes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hreplay.h"
#include "xmalloc.h"

void
hreplay_init(struct hreplay *r)
{
	memset(r, 0, sizeof *r);
	r->next_g = 1;
	r->first_g = 1;
}

static void
hreplay_drop_oldest(struct hreplay *r)
{
	struct hreplay_ev	*e = &r->ev[r->head];

	r->first_g = e->g + 1;
	r->bytes -= e->len;
	free(e->text);
	memset(e, 0, sizeof *e);
	r->head = (r->head + 1) % HREPLAY_MAX_EVENTS;
	r->n--;
}

void
hreplay_free(struct hreplay *r)
{
	while (r->n > 0)
		hreplay_drop_oldest(r);
}

uint64_t
hreplay_add(struct hreplay *r, uint32_t stream, const char *text, size_t len,
    int sent)
{
	struct hreplay_ev	*e;
	uint64_t		 g = r->next_g++;

	if (len > HREPLAY_MAX_BYTES) {
		/* Never held: no resume reaches past it. */
		hreplay_free(r);
		r->first_g = g + 1;
		return (g);
	}
	while (r->n > 0 && (r->n == HREPLAY_MAX_EVENTS ||
	    r->bytes + len > HREPLAY_MAX_BYTES))
		hreplay_drop_oldest(r);
	e = &r->ev[(r->head + r->n) % HREPLAY_MAX_EVENTS];
	e->g = g;
	e->stream = stream;
	e->sent = sent;
	e->len = len;
	e->text = xmalloc(len + 1);
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	r->n++;
	r->bytes += len;
	return (g);
}

struct hreplay_ev *
hreplay_at(struct hreplay *r, size_t i)
{
	if (i >= r->n)
		return (NULL);
	return (&r->ev[(r->head + i) % HREPLAY_MAX_EVENTS]);
}

int
hreplay_complete(const struct hreplay *r, uint64_t g)
{
	return (g + 1 >= r->first_g);
}

/* Decimal digits, no sign, no leading zero, at most 19 of them. */
static int
hreplay_number(const char *s, size_t len, uint64_t *v)
{
	size_t	 i;

	if (len == 0 || len > 19 || (len > 1 && s[0] == '0'))
		return (-1);
	*v = 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return (-1);
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return (0);
}

int
hreplay_parse_id(const struct hreplay *r, const char *id, uint32_t *stream,
    uint64_t *g)
{
	const char	*dash;
	uint64_t	 s;

	if (id == NULL || (dash = strchr(id, '-')) == NULL)
		return (-1);
	if (hreplay_number(id, dash - id, &s) != 0 || s > UINT32_MAX ||
	    hreplay_number(dash + 1, strlen(dash + 1), g) != 0)
		return (-1);
	/* An id from the future was never sent. */
	if (*g >= r->next_g)
		return (-1);
	*stream = (uint32_t)s;
	return (0);
}

void
hreplay_format_id(char *buf, size_t size, uint32_t stream, uint64_t g)
{
	(void)snprintf(buf, size, "%u-%llu", stream, (unsigned long long)g);
}
