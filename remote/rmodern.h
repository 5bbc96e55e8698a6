/*
 * rmodern.h -- a remote of MCP 2026-07-28, as the session sees it
 * (rmodern.c): its requests' headers, what is not sent, its era.
 */
#ifndef MCPD_RMODERN_H
#define MCPD_RMODERN_H

#include <stddef.h>

struct envelope;
struct rmsg;
struct rsession;

/* rmsg.mhdr's size: three headers and the NULL. */
#define RMODERN_HEADERS		4

/*
 * A message from the local side: when it is a request whose _meta names
 * a protocol version, its headers (m->mhdr).  -1 if it cannot be carried
 * (why: the reason).
 */
int	rmodern_classify(struct rmsg *, const char *line,
	    const struct envelope *, const char **why);
void	rmodern_free(struct rmsg *);
/*
 * 1 if m stays here: a notification or a response to a remote of 2026,
 * or the cancellation of a request of 2026 (its stream is closed instead).
 */
int	rmodern_local(struct rsession *, const struct rmsg *,
	    int cancels_modern);
/* m was answered (env): the remote's era, once a result tells it. */
void	rmodern_answered(struct rsession *, const struct rmsg *,
	    const struct envelope *);
/*
 * The response to m (json) as the client is to have it, or NULL for json
 * itself: a tools/list's tools refused for their x-mcp-header taken out
 * (rparam.h).
 */
char	*rmodern_result(struct rsession *, const struct rmsg *,
	    const char *json, size_t len, size_t *outlen);
/* 1 if m is a subscriptions/listen of 2026: a stream never answered. */
int	rmodern_is_listen(const struct rmsg *);
/*
 * 1 if data, on m's stream, is the remote's notifications/cancelled
 * for m, a subscriptions/listen of 2026: the subscription is over.
 */
int	rmodern_ends_listen(const struct rmsg *, const char *data, size_t len);

#endif /* MCPD_RMODERN_H */
