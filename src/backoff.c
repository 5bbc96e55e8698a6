/*
 * backoff.c -- restart delay and give-up rule.
 *
 * failures counts consecutive failures and picks the point on the curve;
 * it returns to zero once the session has stayed ready for reset_ms.  The
 * give-up history is a ring of the last max_restarts restart times
 * (history_head is where the next one is written): if the oldest of a
 * full ring is still inside the window, another restart would be one too
 * many.  The ring is sized lazily and follows max_restarts if the policy
 * changes, keeping the most recent times.
 *
 * ready_since_ms is 0 when not ready, so a session that becomes ready at
 * time 0 is recorded as ready at 1 ms.
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "xmalloc.h"

/* min_ms < 2^32, so min_ms << n fits in 64 bits below this. */
#define BACKOFF_MAX_SHIFT	32

void
backoff_init(struct backoff *b)
{
	memset(b, 0, sizeof *b);
}

void
backoff_free(struct backoff *b)
{
	free(b->history);
	memset(b, 0, sizeof *b);
}

void
backoff_reset(struct backoff *b)
{
	backoff_free(b);
}

void
backoff_ready(struct backoff *b, uint64_t now_ms)
{
	b->ready_since_ms = (now_ms == 0) ? 1 : now_ms;
}

int
backoff_check_stable(struct backoff *b, const struct backoff_policy *p,
    uint64_t now_ms)
{
	if (b->ready_since_ms == 0 || now_ms < b->ready_since_ms)
		return (0);
	if (now_ms - b->ready_since_ms < p->reset_ms)
		return (0);
	if (b->failures == 0)
		return (0);
	b->failures = 0;
	return (1);
}

uint64_t
backoff_base_ms(const struct backoff_policy *p, uint32_t n)
{
	uint64_t	 base;

	if (n >= BACKOFF_MAX_SHIFT)
		return (p->min_ms == 0 ? 0 : p->max_ms);
	base = (uint64_t)p->min_ms << n;
	if (base > p->max_ms)
		base = p->max_ms;
	return (base);
}

/* Resize the history ring to cap entries, keeping the newest. */
static void
backoff_history_resize(struct backoff *b, uint32_t cap)
{
	uint64_t	*times;
	uint32_t	 keep, oldest, i;

	keep = b->history_len < cap ? b->history_len : cap;
	times = xreallocarray(NULL, cap, sizeof *times);
	if (b->history_cap != 0) {
		oldest = (b->history_head + b->history_cap - keep) %
		    b->history_cap;
		for (i = 0; i < keep; i++)
			times[i] = b->history[(oldest + i) % b->history_cap];
	}
	free(b->history);
	b->history = times;
	b->history_cap = cap;
	b->history_len = keep;
	b->history_head = keep % cap;
}

static int
backoff_too_many(const struct backoff *b, const struct backoff_policy *p,
    uint64_t now_ms)
{
	uint64_t	 oldest, window_ms;

	if (b->history_len < p->max_restarts)
		return (0);
	oldest = b->history[b->history_head];	/* full: next slot is oldest */
	if (now_ms < oldest)
		return (1);
	window_ms = (uint64_t)p->restart_window_s * 1000;
	return (now_ms - oldest < window_ms);
}

int64_t
backoff_fail(struct backoff *b, const struct backoff_policy *p,
    uint64_t now_ms, double rand01)
{
	double		 jitter, delay;
	uint64_t	 base;

	backoff_check_stable(b, p, now_ms);
	b->ready_since_ms = 0;

	if (p->max_restarts > 0) {
		if (b->history_cap != p->max_restarts)
			backoff_history_resize(b, p->max_restarts);
		if (backoff_too_many(b, p, now_ms))
			return (BACKOFF_GIVE_UP);
	}

	base = backoff_base_ms(p, b->failures);
	jitter = p->jitter;
	if (!(jitter > 0))
		jitter = 0;	/* also NaN */
	if (jitter > 1)
		jitter = 1;
	if (!(rand01 >= 0))
		rand01 = 0;
	if (rand01 > 1)
		rand01 = 1;
	delay = (double)base * (1 + jitter * (2 * rand01 - 1)) + 0.5;
	if (delay < 0)
		delay = 0;

	if (b->failures != UINT32_MAX)
		b->failures++;
	if (p->max_restarts > 0) {
		b->history[b->history_head] = now_ms;
		b->history_head = (b->history_head + 1) % b->history_cap;
		if (b->history_len < b->history_cap)
			b->history_len++;
	}
	return ((int64_t)delay);
}
