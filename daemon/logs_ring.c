/*
 * logs_ring.c -- each server's stderr lines: the ring, the journal, the
 * count (logs_ring.h); the followers are logs.c's.
 *
 * A line goes to three places: the ring (the last LOGS_RING_LINES lines,
 * at most LOGS_RING_BYTES), the followers, and the journal through a
 * token bucket (LOGS_RATE_PER_S lines a second, bursts of
 * LOGS_BURST_LINES); the lines the bucket refuses are counted and the
 * count is logged before the next line that passes.  The ring takes every
 * line, so mcpctl logs shows what the journal left out.  The followers
 * are told through the table in struct mcpd (logs_followers), which the
 * layer above supplies: this file, called by the worker, calls no
 * connection.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "esc.h"
#include "log.h"
#include "handover.h"
#include "logs_ring.h"
#include "mcpd.h"
#include "proto.h"
#include "ratelim.h"
#include "ring.h"
#include "util.h"
#include "xmalloc.h"

#define LOGS_RING_BYTES		(256 * 1024)
#define LOGS_RING_LINES		2000
#define LOGS_RATE_PER_S		100	/* lines to the journal */
#define LOGS_BURST_LINES	500

static const struct ratelim_policy logs_journal_rate = {
	LOGS_RATE_PER_S, LOGS_BURST_LINES
};

struct logs {
	struct mcpd	*mcpd;
	char		*name;
	uint64_t	 serial;	/* followers know the server by it */
	struct ring	*ring;
	struct ratelim	 journal;	/* lines not logged are counted */
	uint64_t	 count;		/* lines seen */
};

struct logs *
logs_new(struct mcpd *mcpd, const char *name, uint64_t serial)
{
	struct logs	*l;

	l = xcalloc(1, sizeof *l);
	l->mcpd = mcpd;
	l->name = xstrdup(name);
	l->serial = serial;
	l->ring = ring_new(LOGS_RING_BYTES, LOGS_RING_LINES);
	ratelim_init(&l->journal, &logs_journal_rate, clock_now_ms());
	return (l);
}

void
logs_free(struct logs *l, const char *reason)
{
	if (l->mcpd->logs_followers != NULL)
		l->mcpd->logs_followers->gone(l->mcpd, l->serial, reason);
	ring_free(l->ring);
	free(l->name);
	free(l);
}

uint64_t
logs_serial(const struct logs *l)
{
	return (l->serial);
}

/* Ready-made JSON from the ring: the whole line, integers as integers. */
cJSON *
logs_line_json(const struct logs *l, uint64_t seq)
{
	char	*json;
	cJSON	*o;

	if ((json = ring_line_json(l->ring, seq, l->name)) == NULL)
		return (NULL);
	o = cJSON_CreateRaw(json);
	free(json);
	return (o);
}

cJSON *
logs_json(const struct logs *l, size_t n)
{
	cJSON		*lines, *line;
	uint64_t	 seq, first = ring_first_seq(l->ring);
	uint64_t	 next = ring_next_seq(l->ring);

	lines = cJSON_CreateArray();
	seq = next - first > n ? next - n : first;
	for (; seq < next; seq++) {
		if ((line = logs_line_json(l, seq)) != NULL)
			cJSON_AddItemToArray(lines, line);
	}
	return (lines);
}

void
logs_line(struct logs *l, const char *line, size_t len, size_t total)
{
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, l->name },
	};
	char		 count[32], *text;
	uint64_t	 suppressed;
	struct log_field fs[] = {
		{ MCPD_FIELD_SERVER, l->name },
		{ MCPD_FIELD_SUPPRESSED, count },
	};

	l->count++;
	ring_push(l->ring, line, len, clock_realtime_us());
	if (l->mcpd->logs_followers != NULL)
		l->mcpd->logs_followers->line(l->mcpd, l,
		    ring_next_seq(l->ring) - 1);
	if (!ratelim_allow(&l->journal, &logs_journal_rate, clock_now_ms()))
		return;
	if ((suppressed = ratelim_take_suppressed(&l->journal)) > 0) {
		snprintf(count, sizeof count, "%llu",
		    (unsigned long long)suppressed);
		log_event(LOG_WARNING, MCPD_MID_STDERR, fs, nitems(fs),
		    "%s: %llu stderr lines not logged (rate limit); see "
		    "mcpctl logs", l->name, (unsigned long long)suppressed);
	}
	/* The whole line, a NUL included, escaped (log.c escapes again). */
	text = esc_text(line, len, ESC_KEEP_TAB);
	if (total > len)
		log_event(LOG_INFO, MCPD_MID_STDERR, f, nitems(f),
		    "%s: %s... (line of %zu bytes truncated)", l->name, text,
		    total);
	else
		log_event(LOG_INFO, MCPD_MID_STDERR, f, nitems(f),
		    "%s: %s", l->name, text);
	free(text);
}

uint64_t
logs_count(const struct logs *l)
{
	return (l->count);
}

void
logs_export(const struct logs *l, struct handover_server *s)
{
	uint64_t	 seq, t;
	const char	*line;
	size_t		 len;

	s->stderr_lines = l->count;
	for (seq = ring_first_seq(l->ring); seq < ring_next_seq(l->ring);
	    seq++) {
		if ((line = ring_get(l->ring, seq, &len, &t)) != NULL)
			handover_add_line(s, line, len, t);
	}
}

void
logs_adopt(struct logs *l, const struct handover_server *s)
{
	size_t	 i;

	for (i = 0; i < s->nlines; i++)
		ring_push(l->ring, s->lines[i].text.p, s->lines[i].text.len,
		    s->lines[i].time_us);
	l->count = s->stderr_lines;
}
