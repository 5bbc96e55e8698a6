/*
 * oauth_int.h -- the OAuth client's insides, shared by its four files and
 * by nothing else (everything outside uses oauth.h):
 *
 *   oauth.c        the coordinator: the object, oauth_get and its goals
 *                  (a token, discovery alone, an exchange, a sign-out)
 *   oauth_disc.c   discovery: resource and authorization server metadata
 *   oauth_grant.c  the grants (client credentials, refresh, a code) and
 *                  revocation, under the token file's lock
 *   oauth_core.c   what every step shares: the held token, the one fetch
 *                  under way and its outcome told to the waiters, and the
 *                  checks on what travels and what is quoted
 *
 * Calls go down that list only: the coordinator starts discovery or a
 * grant, discovery ends in a grant, and each ends through oauth_finish.
 */
#ifndef MCPD_OAUTH_INT_H
#define MCPD_OAUTH_INT_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <event2/util.h>

#include "http.h"
#include "oauth.h"
#include "tokens.h"

#define OAUTH_TIMEOUT_MS	30000L
/* Text from the network quoted in a reason. */
#define OAUTH_MAX_QUOTE_BYTES	200
/* Refresh this long before expiry at most, or 10 % of the lifetime. */
#define OAUTH_REFRESH_MARGIN_MS	60000

/* What a fetch is for. */
enum oauth_goal {
	OAUTH_GOAL_TOKEN,	/* a token: client credentials or refresh */
	OAUTH_GOAL_DISCOVER,	/* discovery only (signin.c) */
	OAUTH_GOAL_EXCHANGE,	/* redeem an authorization code */
	OAUTH_GOAL_REVOKE,	/* revoke, then remove the token file */
};

struct oauth_waiter {
	oauth_fn			 fn;
	void				*arg;
	TAILQ_ENTRY(oauth_waiter)	 entry;
};
TAILQ_HEAD(oauth_waiters, oauth_waiter);

enum oauth_step {
	OAUTH_IDLE,
	OAUTH_PRM,		/* protected resource metadata */
	OAUTH_ASM,		/* authorization server metadata */
	OAUTH_TOKEN,
	OAUTH_LOCK,		/* waiting for the token file's lock */
	OAUTH_REVOKE,
};

struct oauth {
	struct http		*http;
	char			*server_url;
	struct oauth_conf	 conf;		/* copies; secret filled in */
	char			*resource;
	struct oauth_hooks	 hooks;
	void			*hook_arg;

	/* Discovery, kept once it succeeded. */
	int			 discovered;
	int			 wellknown;	/* cand: RFC 9728's URLs */
	int			 legacy;	/* 2025-03-26: no PRM */
	int			 defaults;	/* ... nor AS metadata */
	char			*issuer;
	char			*token_url;
	int			 methods_listed;
	int			 method_basic;
	int			 method_post;
	int			 method_jwt;
	char			*methods_text;	/* for reasons */
	char			*scopes_supported;
	char			*challenge_scope;
	char			*authorization_endpoint;
	char			*registration_endpoint;
	char			*revocation_endpoint;
	int			 pkce_listed;
	int			 pkce_s256;
	int			 cimd;
	int			 method_none;
	struct oauth_meta	 meta;

	/*
	 * A sign-in (grant authorization_code): its tokens, as in the token
	 * file; tok.client_id NULL while there is none.
	 */
	int			 code;
	struct tokens		 tok;
	int			 lock_fd;	/* -1, or held */
	struct event		*lock_timer;
	uint64_t		 lock_deadline_ms;
	char			*refused;	/* the token a 401 refused */
	int			 needs_login;	/* the failure wants a sign-in */

	/* What the fetch is for, and an exchange's or revocation's data. */
	enum oauth_goal		 goal;
	char			*ex_code;
	char			*ex_verifier;
	char			*ex_redirect;
	int			 revoked;
	int			 revoke_step;

	/* The token held. */
	char			*header;	/* "Authorization: Bearer ..." */
	uint64_t		 expires_ms;	/* wall clock, 0 if unknown */
	uint64_t		 refresh_ms;	/* wall clock, 0 if never */
	uint64_t		 retry_ms;	/* no refresh before (wall) */

	/* The fetch under way. */
	enum oauth_step		 step;
	int			 refreshing;	/* the held token still serves */
	struct http_req		*req;
	int			 req_open;
	unsigned int		 req_seq;
	char			*cand[3];
	size_t			 ncand;
	size_t			 icand;
	struct oauth_waiters	 waiters;
	struct oauth_waiters	 delivering;	/* being told a result */

	/* oauth_free from within: see the promises above. */
	int			 depth;
	int			 dead;
};

/* oauth_core.c */
void		 oauth_wipe(char *);
uint64_t	 oauth_now_ms(void);
char		*oauth_quote(const struct oauth *, const char *);
char		*oauth_show_url(const struct oauth *, const char *);
int		 oauth_url_allowed(const struct oauth *, const char *what,
		    const char *url, char **reason);
int		 oauth_scope_ok(const char *);
int		 oauth_token_ok(const char *);
void		 oauth_hold_access(struct oauth *);
int		 oauth_read_tokens(struct oauth *, struct tokens *);
void		 oauth_clear_cands(struct oauth *);
void		 oauth_drop_token(struct oauth *);
void		 oauth_drop_waiters(struct oauth_waiters *);
void		 oauth_unlock(struct oauth *);
void		 oauth_destroy(struct oauth *);
void		 oauth_enter(struct oauth *);
void		 oauth_leave(struct oauth *);
int		 oauth_usable(const struct oauth *, uint64_t now);
void		 oauth_finish(struct oauth *, const char *reason);
void		 oauth_fetch(struct oauth *, const char *method,
		    const char *url, const char *const *headers, char *body,
		    size_t body_len, http_fetch_fn);
int		 oauth_fetch_ended(struct oauth *);
char		*oauth_http_failed(struct oauth *, const char *what,
		    const char *url, enum http_end, const char *error);
cJSON		*oauth_parse_object(const char *, size_t);
const char	*oauth_json_string(const cJSON *, const char *name);
char		*oauth_join_scopes(const cJSON *);

/* oauth_grant.c */
void		 oauth_lock_cb(evutil_socket_t, short, void *);
void		 oauth_lock_begin(struct oauth *);
void		 oauth_token_request(struct oauth *);

/* oauth_disc.c */
void		 oauth_start_discovery(struct oauth *,
		    const char *resource_metadata);

#endif /* MCPD_OAUTH_INT_H */
