/*
 * session_int.h -- the session's insides, shared by its two files and by
 * nothing else (everything outside uses remote.h): session.c (messages
 * in and out, the lifecycle, timeouts, the end) and session_recover.c
 * (what follows when the remote does not take a message: a lost session
 * rebuilt, 401 and 403, 429 and 503, the fallback to HTTP+SSE, a remote
 * out of reach).  session_recover.c calls session.c, never the reverse.
 */
#ifndef MCPD_SESSION_INT_H
#define MCPD_SESSION_INT_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "flow.h"
#include "remote.h"

struct event;
struct hmap;

enum session_state {
	SESSION_NEW,		/* no initialize yet */
	SESSION_READY,		/* initialized (or initializing) */
	SESSION_RECOVERING,	/* re-initializing after a loss */
	SESSION_CLOSING,
};

TAILQ_HEAD(rmsgs, rmsg);

#define SESSION_MAX_STEP_UPS	8

struct rsession {
	struct remote		*r;
	struct rt		*rt;
	const struct rt_events	*ev;	/* for the transports (session_new) */
	enum session_state	 state;
	struct hmap		*pending;	/* raw id text -> rmsg */
	struct rmsgs		 all;		/* every live rmsg, in order */
	/*
	 * Messages wait (held) while the lifecycle orders them: behind an
	 * initialize until it is answered, behind notifications/initialized
	 * until the remote took it (HTTP gives no order between requests
	 * sent at once), and while a lost session is rebuilt.
	 */
	struct rmsg		*gate;
	int			 releasing;
	int			 release_again;
	/* The cap on what is in flight; a freed slot lets a waiter go. */
	struct flow		 flow;
	struct event		*flow_ev;
	/* From the first initialize. */
	char			*init_params;	/* raw JSON text */
	cJSON			*init_result;
	char			*protocol;
	/* Replayed on a new session. */
	struct hmap		*subs;		/* raw uri text -> 1 */
	char			*log_level;	/* raw JSON text */
	uint64_t		 internal_seq;
	uint64_t		 internal_tag;	/* random, in internal ids */
	struct rmsg		*recover_init;	/* the internal initialize */
	int			 input_ended;	/* shut down once all settled */
	int			 unreachable_said; /* logged, until it answers */
	int			 fell_back;
	/* A request of 2026-07-28 got a result: the remote is of 2026. */
	int			 modern;
	/* Its tools' Mcp-Param-* headers, from its lists (rparam.c). */
	struct rparam		*params;
	/*
	 * Giving up when the new session is refused: decided while a
	 * transport's callback runs for the message, whose exchange
	 * session_fatal would free under it, so done from an event.
	 */
	struct event		*fatal_ev;
	int			 fatal_code;
	char			*fatal_text;
	/* Step-ups reported (one each per distinct scope set). */
	char			*step_ups[SESSION_MAX_STEP_UPS];
	size_t			 nstep_ups;
};

/* Hand a message to the transport, or hold it (see gate). */
void		 session_send(struct rsession *, struct rmsg *);
/* The transport is through with m: no exchange, no stream open. */
void		 session_idle(struct rmsg *);
/* Free m once nothing holds it and a request of it was answered. */
void		 session_maybe_free(struct rsession *, struct rmsg *);
/* A request's error response, once; internal requests are not answered. */
void		 session_reply_error(struct rsession *, struct rmsg *, int code,
		    const char *text);
/* Send m again after ms. */
void		 session_arm(struct rsession *, struct rmsg *, uint64_t ms);
/* Credentials refused: m answered, the failure reported. */
void		 session_auth_failed(struct rsession *, struct rmsg *,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Only a new sign-in can help: said once, then the program ends. */
void		 session_needs_login(struct rsession *, const char *reason);
/* OAuth's answer for m (an oauth_fn). */
void		 session_oauth_ready(void *, int result, const char *reason);
/* A request of mcpd-remote's own (params: raw JSON text, or NULL). */
struct rmsg	*session_internal(struct rsession *, const char *method,
		    const char *params);

#endif /* MCPD_SESSION_INT_H */
