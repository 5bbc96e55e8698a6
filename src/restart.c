/*
 * restart.c -- the restart policy around the backoff curve (restart.h):
 * never, on-failure, an unwanted on-demand server, give up, or a delay.
 */
#include "config.h"

#include <stdint.h>

#include "backoff.h"
#include "conf.h"
#include "restart.h"

enum restart_verdict
restart_decide(const struct restart_facts *f, struct backoff *b,
    const struct backoff_policy *policy, uint64_t now_ms, double rand01,
    int64_t *delay_ms)
{
	int64_t	 delay;

	if (f->shutting_down || f->policy == CONF_RESTART_NEVER ||
	    (f->policy == CONF_RESTART_ON_FAILURE && f->clean))
		return (RESTART_STOP);
	if (f->unwanted)
		return (RESTART_IDLE);
	/* A session ready long enough first forgets the run of failures. */
	backoff_check_stable(b, policy, now_ms);
	b->ready_since_ms = 0;
	delay = backoff_fail(b, policy, now_ms, rand01);
	if (delay == BACKOFF_GIVE_UP)
		return (RESTART_GIVE_UP);
	*delay_ms = delay;
	return (RESTART_DELAY);
}
