/*
 * backoff.h -- restart delay and give-up rule (pure: no clock, no random).
 *
 * The caller passes the monotonic time and a uniform random number in
 * [0, 1) so the curve is deterministic under test.
 *
 * Delay for the n-th consecutive failure (n = 0, 1, ...):
 *	base = min(min_ms * 2^n, max_ms)
 *	delay = base * (1 + jitter * (2 * rand01 - 1)), rounded, >= 0
 * so with the defaults: ~1 s, 2 s, 4 s, 8 s, 16 s, 30 s, 30 s ... +/- 20 %.
 *
 * Give-up rule (off when max_restarts == 0): if this failure would be the
 * (max_restarts + 1)-th restart within restart_window_s seconds, give up.
 *
 * backoff_ready() is called when the session becomes ready and
 * backoff_check_stable() periodically (or when the server fails); once the
 * server has been ready for reset_ms the consecutive-failure counter
 * returns to zero (the give-up history is kept: it is time-windowed).
 */
#ifndef MCPD_BACKOFF_H
#define MCPD_BACKOFF_H

#include <stdint.h>

struct backoff_policy {
	uint32_t	min_ms;
	uint32_t	max_ms;
	double		jitter;		/* 0.2 means +/- 20 % */
	uint32_t	reset_ms;	/* ready this long: counter reset */
	uint32_t	max_restarts;	/* 0: never give up */
	uint32_t	restart_window_s;
};

struct backoff {
	uint32_t	 failures;	/* consecutive, drives the curve */
	uint64_t	 ready_since_ms; /* 0 when not ready */
	uint64_t	*history;	/* restart times, ring of max_restarts */
	uint32_t	 history_len;
	uint32_t	 history_cap;
	uint32_t	 history_head;
};

#define BACKOFF_GIVE_UP	(-1)

void	backoff_init(struct backoff *);
void	backoff_free(struct backoff *);
/* The session became ready at now_ms. */
void	backoff_ready(struct backoff *, uint64_t now_ms);
/* Resets the counter if ready for reset_ms by now_ms; returns 1 if it did. */
int	backoff_check_stable(struct backoff *, const struct backoff_policy *,
	    uint64_t now_ms);
/*
 * The server failed at now_ms: returns the delay in ms before the next
 * attempt, or BACKOFF_GIVE_UP.  Records the restart in the history.
 */
int64_t	backoff_fail(struct backoff *, const struct backoff_policy *,
	    uint64_t now_ms, double rand01);
/* Forget everything (admin start/restart). */
void	backoff_reset(struct backoff *);
/* The un-jittered delay for failure number n (for tests and docs). */
uint64_t backoff_base_ms(const struct backoff_policy *, uint32_t n);

#endif /* MCPD_BACKOFF_H */
