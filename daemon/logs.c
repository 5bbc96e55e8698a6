/*
 * logs.c -- the connections following servers' stderr lines.
 *
 * A line goes to three places: the ring and the journal (logs_ring.c),
 * and the followers, this file's: the ring tells it of each new line and
 * of a server's end through logs_followers, which mcpd.c hands the ring
 * in struct mcpd, so that the worker feeding the ring never calls the
 * connections.
 *
 * Followers are found by walking the connections (client_first,
 * client_next) and asking each one's follow set; the walk is skipped
 * while no connection follows anything, which the pool hung off struct
 * mcpd counts.  The pool exists only while that count is not zero.
 * Closing a connection here only marks it (client_close): it is freed
 * later, from its own deferred event, which calls logs_unfollow_all.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "follow.h"
#include "logs.h"
#include "mcpd.h"
#include "proto.h"
#include "rpc.h"
#include "xmalloc.h"

/*
 * What the servers' logs share, hung off struct mcpd while a connection
 * follows some server: without it no line needs a walk or any JSON.
 */
struct logs_pool {
	size_t		 following;	/* connections with a non-empty set */
};

size_t
logs_following(const struct mcpd *mcpd)
{
	return (mcpd->logs_pool != NULL ? mcpd->logs_pool->following : 0);
}

/* A connection's follow set went from empty to not empty, or back. */
static void
logs_followed(struct mcpd *mcpd)
{
	if (mcpd->logs_pool == NULL)
		mcpd->logs_pool = xcalloc(1, sizeof *mcpd->logs_pool);
	mcpd->logs_pool->following++;
}

static void
logs_unfollowed(struct mcpd *mcpd)
{
	if (--mcpd->logs_pool->following > 0)
		return;
	free(mcpd->logs_pool);
	mcpd->logs_pool = NULL;
}

void
logs_follow(struct mcpd *mcpd, struct client *c, uint64_t serial)
{
	if (client_is_dead(c))
		return;
	if (follow_add(client_follows(c), serial))
		logs_followed(mcpd);
}

void
logs_unfollow_all(struct mcpd *mcpd, struct client *c)
{
	struct follow_set	*fs = client_follows(c);

	if (!follow_empty(fs))
		logs_unfollowed(mcpd);
	follow_clear(fs);
}

/* The server is gone: out of every set; closed if it was the last. */
static void
logs_gone(struct mcpd *mcpd, uint64_t serial, const char *reason)
{
	struct client	*c;

	if (mcpd->logs_pool == NULL)
		return;
	for (c = client_first(mcpd); c != NULL; c = client_next(c)) {
		if (follow_remove(client_follows(c), serial)) {
			logs_unfollowed(mcpd);
			client_close(c, reason);
		}
	}
}

/*
 * Line seq as an mcpd/log notification to every live follower; without
 * one, no walk and no JSON.
 */
static void
logs_publish(struct mcpd *mcpd, const struct logs *l, uint64_t seq)
{
	struct client	*c;
	cJSON		*params, *msg;
	char		*text;
	size_t		 len;

	if (mcpd->logs_pool == NULL)
		return;
	if ((params = logs_line_json(l, seq)) == NULL)
		return;
	msg = rpc_make_notification(MCPD_NOTIFY_LOG, params);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	len = strlen(text);
	for (c = client_first(mcpd); c != NULL; c = client_next(c)) {
		if (!client_is_dead(c) &&
		    follow_has(client_follows(c), logs_serial(l)))
			client_queue_text(c, text, len);
	}
	free(text);
}

const struct logs_followers logs_followers = {
	.line = logs_publish,
	.gone = logs_gone,
};
