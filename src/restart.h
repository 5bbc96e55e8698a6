/*
 * restart.h -- the restart policy: what follows when a server's process
 * ended by itself or failed (pure: no clock, no random, no daemon state;
 * the caller passes what it knows).
 *
 * In this order (SPEC 4.2):
 *   mcpd is shutting down, "restart": "never", or "on-failure" after a
 *   clean exit (status 0, not ended by mcpd): stopped;
 *   an on-demand server nobody is attached to: idle, without a restart
 *   and without touching the backoff (the next client starts it);
 *   the give-up rule (backoff.h) says enough: failed;
 *   else a restart after the backoff delay.
 * The last two count the failure in the backoff, which first forgets a
 * run of failures if the session had been ready for reset_ms.
 */
#ifndef MCPD_RESTART_H
#define MCPD_RESTART_H

#include <stdint.h>

#include "backoff.h"
#include "conf.h"

enum restart_verdict {
	RESTART_STOP,		/* stopped: the policy, or shutdown */
	RESTART_IDLE,		/* on demand and unwanted: idle */
	RESTART_GIVE_UP,	/* too many restarts in the window: failed */
	RESTART_DELAY,		/* start again after *delay_ms */
};

struct restart_facts {
	enum conf_restart	 policy;
	int			 clean;		/* exit 0, not ended by mcpd */
	int			 shutting_down;
	int			 unwanted;	/* on demand, nobody attached */
};

/*
 * now_ms: the monotonic time; rand01: uniform in [0, 1) for the jitter.
 * *delay_ms is set for RESTART_DELAY only.
 */
enum restart_verdict restart_decide(const struct restart_facts *,
	    struct backoff *, const struct backoff_policy *, uint64_t now_ms,
	    double rand01, int64_t *delay_ms);

#endif /* MCPD_RESTART_H */
