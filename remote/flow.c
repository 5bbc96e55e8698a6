/*
 * flow.c -- the cap on what goes to one remote at once (flow.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "flow.h"
#include "remote.h"
#include "xmalloc.h"

/* Log lines about refusals and drops: a few, then one every ten seconds. */
static const struct ratelim_policy flow_notes_rate = { 0.1, 5 };

static const size_t flow_inflight_max[FLOW_POOLS] = {
	0, FLOW_REQUESTS_INFLIGHT_MAX, FLOW_OTHERS_INFLIGHT_MAX
};

static enum flow_pool
flow_pool_of(const struct rmsg *m)
{
	if (m->internal)
		return (FLOW_NONE);
	return (m->request ? FLOW_REQUESTS : FLOW_OTHERS);
}

void
flow_init(struct flow *f)
{
	memset(f, 0, sizeof *f);
	ratelim_init(&f->notes, &flow_notes_rate, clock_now_ms());
}

int
flow_may_go(const struct flow *f, const struct rmsg *m)
{
	enum flow_pool	p = flow_pool_of(m);

	if (p == FLOW_NONE || m->slot != FLOW_NONE)
		return (1);
	if (f->inflight[p] >= flow_inflight_max[p])
		return (0);
	/* First come, first served: a newcomer waits behind the queue. */
	return (m->waiting || f->waiting[p] == 0);
}

static void
flow_unwait(struct flow *f, struct rmsg *m)
{
	enum flow_pool	p = flow_pool_of(m);

	if (!m->waiting)
		return;
	m->waiting = 0;
	f->waiting[p]--;
	f->waiting_total--;
	f->waiting_bytes -= m->len;
}

void
flow_go(struct flow *f, struct rmsg *m)
{
	enum flow_pool	p = flow_pool_of(m);

	flow_unwait(f, m);
	if (p == FLOW_NONE || m->slot != FLOW_NONE)
		return;
	m->slot = p;
	f->inflight[p]++;
}

int
flow_may_wait(const struct flow *f, const struct rmsg *m)
{
	if (flow_pool_of(m) == FLOW_NONE)
		return (1);
	if (f->waiting_total >= FLOW_WAITING_MAX)
		return (0);
	return (f->waiting_total == 0 ||
	    m->len <= FLOW_WAITING_BYTES - f->waiting_bytes);
}

void
flow_wait(struct flow *f, struct rmsg *m)
{
	enum flow_pool	p = flow_pool_of(m);

	if (p == FLOW_NONE || m->slot != FLOW_NONE || m->waiting)
		return;
	m->waiting = 1;
	f->waiting[p]++;
	f->waiting_total++;
	f->waiting_bytes += m->len;
}

int
flow_done(struct flow *f, struct rmsg *m)
{
	enum flow_pool	p = m->slot;

	flow_unwait(f, m);
	if (p == FLOW_NONE)
		return (0);
	m->slot = FLOW_NONE;
	f->inflight[p]--;
	return (f->waiting[p] > 0);
}

char *
flow_describe(const struct flow *f)
{
	char	*text;

	xasprintf(&text, "%zu requests and %zu other messages in flight to "
	    "the remote, %zu waiting", f->inflight[FLOW_REQUESTS],
	    f->inflight[FLOW_OTHERS], f->waiting_total);
	return (text);
}

void
flow_note(struct flow *f, const char *fmt, ...)
{
	va_list		 ap;
	char		*text;
	uint64_t	 more;

	if (!ratelim_allow(&f->notes, &flow_notes_rate, clock_now_ms()))
		return;
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if ((more = ratelim_take_suppressed(&f->notes)) > 0)
		remote_log("%s (and %llu more refusals or drops since the "
		    "last one logged)", text, (unsigned long long)more);
	else
		remote_log("%s", text);
	free(text);
}
