/*
 * group_op.c -- what a group session's other files build on: replies to
 * its client, requests to its members under the session's numbers
 * (gids), and ops, the requests the session answers itself from its
 * members' replies (a list, setLevel, a resource tried member after
 * member).  An op is answered by the done function of the file that made
 * it, once every reply it waits for is in.
 *
 * What a session holds for an op counts in its holdings (group_budget.c);
 * while mcpd's budget is used up, a session holding more than its share
 * lets its ops' holdings go and answers them with -32015
 * (group_check_limits).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "budget.h"
#include "client.h"
#include "clock.h"
#include "conf.h"
#include "envelope.h"
#include "group.h"
#include "group_int.h"
#include "hmap.h"
#include "idtab.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "rpc.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

/* How often a session cut back for the budget is logged. */
#define GROUP_BUDGET_LOG_MS	10000

static void	group_op_done(struct group_session *, struct group_op *);

/*
 * Output to the client.
 */

void
group_send(struct group_session *gs, const char *text, size_t len)
{
	gs->peer->queue(gs->client, &(struct iovec){ (void *)text, len }, 1);
}

/* {"jsonrpc":"2.0","id":ID,"MEMBER":VALUE}, the id and value raw JSON. */
static void
group_reply_raw(struct group_session *gs, const char *id, size_t id_len,
    const char *member, const char *value, size_t value_len)
{
	static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
	char		 mid[32];
	struct iovec	 iov[5];
	int		 n;

	if (id == NULL) {
		id = "null";
		id_len = 4;
	}
	n = snprintf(mid, sizeof mid, ",\"%s\":", member);
	iov[0] = (struct iovec){ (void *)head, sizeof head - 1 };
	iov[1] = (struct iovec){ (void *)id, id_len };
	iov[2] = (struct iovec){ mid, (size_t)n };
	iov[3] = (struct iovec){ (void *)value, value_len };
	iov[4] = (struct iovec){ (void *)"}", 1 };
	gs->peer->queue(gs->client, iov, (int)nitems(iov));
}

void
group_result(struct group_session *gs, const char *id, size_t id_len,
    const char *result)
{
	group_reply_raw(gs, id, id_len, "result", result, strlen(result));
}

void
group_error(struct group_session *gs, const char *id, size_t id_len,
    int code, const char *fmt, ...)
{
	va_list	 ap;
	char	*message, *text;
	cJSON	*err;

	va_start(ap, fmt);
	xvasprintf(&message, fmt, ap);
	va_end(ap);
	err = cJSON_CreateObject();
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	free(message);
	text = rpc_print(err);
	cJSON_Delete(err);
	group_reply_raw(gs, id, id_len, "error", text, strlen(text));
	free(text);
}

/*
 * Requests to members.
 */

/* What a request sent holds, in the budget. */
static size_t
group_sent_bytes(const struct group_sent *q)
{
	return (sizeof *q + GROUP_ENTRY_BYTES +
	    (q->id != NULL ? q->id_len + 1 + GROUP_ENTRY_BYTES : 0));
}

struct group_sent *
group_sent_new(struct group_session *gs, size_t link, const char *id,
    size_t id_len, struct group_op *op)
{
	struct group_sent	*q;

	q = xcalloc(1, sizeof *q);
	q->gid = ++gs->next_gid;
	q->link = link;
	q->op = op;
	if (id != NULL) {
		q->id = xmalloc(id_len + 1);
		memcpy(q->id, id, id_len);
		q->id[id_len] = '\0';
		q->id_len = id_len;
		hmap_put(gs->by_client, q->id, q->id_len, q);
	}
	idtab_put(gs->reqs, q->gid, q);
	TAILQ_INSERT_TAIL(&gs->pending, q, entry);
	group_budget_add(gs, group_sent_bytes(q));
	return (q);
}

void
group_sent_free(struct group_session *gs, struct group_sent *q)
{
	group_budget_sub(gs, group_sent_bytes(q));
	idtab_del(gs->reqs, q->gid);
	TAILQ_REMOVE(&gs->pending, q, entry);
	if (q->id != NULL)
		hmap_del(gs->by_client, q->id, q->id_len);
	free(q->id);
	free(q);
}

int
group_forward(struct group_session *gs, size_t link, const char *line,
    size_t len, const struct envelope_edit *edits, size_t nedits)
{
	struct glink	*l = gs->links[link];
	size_t		 total;
	char		*buf;

	if (l->att == NULL ||
	    (buf = envelope_splice_dup(line, len, edits, nedits, &total)) == NULL)
		return (-1);
	router_client_line(l->att, buf, total);
	free(buf);
	return (0);
}

/* A request of the session's own to a member; params taken. */
void
group_own_request(struct group_session *gs, size_t link, struct group_op *op,
    const char *method, cJSON *params)
{
	struct group_sent	*q;
	cJSON			*msg, *id;
	char			*text;

	q = group_sent_new(gs, link, NULL, 0, op);
	id = cJSON_CreateNumber((double)q->gid);
	msg = rpc_make_request(id, method, params);
	cJSON_Delete(id);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	if (gs->links[link]->att == NULL) {
		group_sent_free(gs, q);
		if (op != NULL && op->waiting > 0 && --op->waiting == 0)
			group_op_done(gs, op);
	} else
		router_client_line(gs->links[link]->att, text, strlen(text));
	free(text);
}

/* A member is worth asking: up, or starting (the request waits). */
int
group_link_usable(const struct group_session *gs, size_t link)
{
	struct worker	*w;

	if (gs->links[link]->att == NULL)
		return (0);
	w = router_attachment_worker(gs->links[link]->att);
	return (worker_availability(w) != WORKER_AVAIL_REFUSE);
}


/*
 * Ops: requests the session answers from its members' replies.
 */

struct group_op *
group_op_new(struct group_session *gs, enum group_op_kind kind,
    const char *id, size_t id_len)
{
	struct group_op	*op;

	op = xcalloc(1, sizeof *op);
	TAILQ_INSERT_TAIL(&gs->ops, op, entry);
	op->kind = kind;
	group_budget_op_add(gs, op, sizeof *op);
	if (id != NULL) {
		op->id = xmalloc(id_len + 1);
		memcpy(op->id, id, id_len);
		op->id[id_len] = '\0';
		op->id_len = id_len;
		hmap_put(gs->op_ids, op->id, op->id_len, op);
		group_budget_op_add(gs, op, id_len + 1 + GROUP_ENTRY_BYTES);
	}
	return (op);
}

/*
 * The resource request op keeps to try on the next member, taken out of
 * it (the caller frees it), or NULL.
 */
char *
group_op_take_line(struct group_session *gs, struct group_op *op,
    size_t *len)
{
	return (group_budget_op_take(gs, op, &op->line, &op->len, len));
}

void
group_op_drop_line(struct group_session *gs, struct group_op *op)
{
	size_t	 len;

	free(group_op_take_line(gs, op, &len));
}

void
group_op_free(struct group_session *gs, struct group_op *op)
{
	size_t	 i;

	TAILQ_REMOVE(&gs->ops, op, entry);
	if (op->id != NULL)
		hmap_del(gs->op_ids, op->id, op->id_len);
	for (i = 0; i < op->nparts; i++)
		free(op->parts[i].text);
	free(op->parts);
	free(op->id);
	free(op->line);
	group_budget_sub(gs, op->mem);
	free(op);
}

void
group_op_fail(struct group_session *gs, struct group_op *op, int code,
    const char *message)
{
	size_t	 i;

	if (op->failed)
		return;
	op->failed = 1;
	if (op->id != NULL) {
		group_error(gs, op->id, op->id_len, code, "%s", message);
		/* The client may use the id again. */
		hmap_del(gs->op_ids, op->id, op->id_len);
		free(op->id);
		op->id = NULL;
	}
	for (i = 0; i < op->nparts; i++)
		group_part_clear(gs, op, i);
	group_op_drop_line(gs, op);
}

/* One reply of a fan-out came (or will never come). */
void
group_op_part_done(struct group_session *gs, struct group_op *op)
{
	if (op->waiting > 0 && --op->waiting == 0)
		group_op_done(gs, op);
}

/* Every reply op waited for is in: answered by what made it, then freed. */
static void
group_op_done(struct group_session *gs, struct group_op *op)
{
	if (op->done != NULL)
		op->done(gs, op);
	group_op_free(gs, op);
}

/* A member's list page, taken out of op (the caller frees it), or NULL. */
char *
group_part_take(struct group_session *gs, struct group_op *op, size_t link,
    size_t *len)
{
	return (group_budget_op_take(gs, op, &op->parts[link].text,
	    &op->parts[link].len, len));
}

void
group_part_clear(struct group_session *gs, struct group_op *op, size_t link)
{
	size_t	 len;

	free(group_part_take(gs, op, link, &len));
}

/* Does op hold more than its own record: a request, or members' pages? */
static int
group_budget_op_holds(const struct group_op *op)
{
	size_t	 i;

	if (op->line != NULL)
		return (1);
	for (i = 0; i < op->nparts; i++)
		if (op->parts[i].text != NULL)
			return (1);
	return (0);
}

void
group_check_limits(struct group_session *gs)
{
	struct group_op	*op, *next;
	char		*why;
	size_t		 before = gs->mem, n = 0;
	uint64_t	 now;

	if (gs->mem <= BUDGET_SHARE_BYTES || !budget_exhausted(gs->mcpd))
		return;
	xasprintf(&why, "mcpd's memory budget (memory_budget_bytes %zu) is "
	    "used up and this connection's session of group %s held %zu "
	    "bytes for its requests", gs->mcpd->conf->memory_budget_bytes,
	    gs->name, before);
	TAILQ_FOREACH_SAFE(op, &gs->ops, entry, next) {
		if (op->id == NULL || !group_budget_op_holds(op))
			continue;
		group_op_fail(gs, op, MCPD_ERR_LIMIT, why);
		n++;
	}
	now = clock_now_ms();
	if (n > 0 && now - gs->budget_logged_ms >= GROUP_BUDGET_LOG_MS) {
		gs->budget_logged_ms = now;
		log_warnx("group %s: %s; %zu of its requests answered with an "
		    "error, %zu bytes let go", gs->name, why, n,
		    before - gs->mem);
	}
	free(why);
}
