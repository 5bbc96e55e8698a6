/*
 * remote_fakes.h -- the stand-ins fuzz_remote runs mcpd-remote's session
 * and transports against: an HTTP layer answered by the fuzz input
 * (remote/http.h), stdio (rio_*, captured), the log (checked), the status
 * channel (rstatus.c writing to a memfd, checked), OAuth (a token after a
 * deferred event, or a failure), the clock (real time plus the time
 * skipped by firing timers early) and one seed for the maps.
 *
 * The fake HTTP layer keeps the outstanding requests in the order they
 * were made and checks what the transports ask of it: methods, URLs on
 * the server's origin, header lines without CR or LF, JSON bodies, no
 * request cancelled inside its own done callback.  It calls back as
 * http.c does: head once (1xx never), body chunks (HTTP_PAUSE keeps
 * them for http_unpause), done once unless cancelled; a callback that
 * returns -1 ends its request with HTTP_ABORTED.
 */
#ifndef MCPD_REMOTE_FAKES_H
#define MCPD_REMOTE_FAKES_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

struct event_base;
struct oauth;

/* The secret of the configured header and the token: never in a log. */
#define FAKE_SECRET	"Qz7vK2mW9xR4tL8pN3sJ"
#define FAKE_TOKEN	"Tk5hB8gF2dY6cV1nM4qZ"
/* 0 when the input itself holds one (the remote may echo it). */
extern int	 fake_secret_check;

/* HTTP */
void		 fake_http_origin(const char *url);
size_t		 fake_http_count(char filter);
/* The idx'th (mod count) outstanding request whose method starts so. */
struct http_req	*fake_http_pick(char filter, size_t idx);
/* Requests by number: a request gone is not found again. */
uint64_t	 fake_http_seq(const struct http_req *);
struct http_req	*fake_http_find(uint64_t);
const char	*fake_http_method(const struct http_req *);
int		 fake_http_has_head(const struct http_req *);
int		 fake_http_has_header(const struct http_req *, const char *);
const char	*fake_http_body(const struct http_req *, size_t *);
/* Headers: "Name: value" lines separated by '|'. */
void		 fake_http_respond_head(struct http_req *, long status,
		    const char *headers, size_t len);
void		 fake_http_respond_body(struct http_req *, const char *,
		    size_t);
void		 fake_http_end(struct http_req *, enum http_end);
/* Bytes the layer holds for outstanding requests. */
size_t		 fake_http_held(void);

/* stdio */
extern void	(*fake_rio_out)(const char *, size_t);
extern int	 fake_rio_exited;
extern int	 fake_rio_reading;
extern int	 fake_rio_congested;
void		 fake_rio_reset(void);

/* OAuth */
struct oauth	*fake_oauth_new(struct event_base *);
void		 fake_oauth_free(struct oauth *);
extern int	 fake_oauth_fail;
/* Tokens wait until fake_oauth_kick while set. */
extern int	 fake_oauth_slow;
void		 fake_oauth_kick(struct oauth *);

/* Status channel: open, check what was written so far, close. */
void		 fake_status_open(struct event_base *);
void		 fake_status_check(void);
void		 fake_status_close(void);

/* Clock and seed: clock.c and hmap_seed.c read these after fake_time_init. */
extern uint64_t	 fake_clock_skew_ms;
void		 fake_time_init(void);

#endif /* MCPD_REMOTE_FAKES_H */
