/*
 * group_budget.c -- what a group session holds for its client, counted in
 * mcpd's one memory budget (budget.h) and bounded as a direct client's
 * holdings are (see group_int.h for what is counted).
 *
 * - A session holds at most client_max_group_bytes: a request it would
 *   keep to try on another member, a member's list page that would wait
 *   for the others, a name it would remember past that, are refused (the
 *   request, the list) or left out (the name).
 * - While the budget is used up, a new request is refused with -32015.
 *   A session may not take the budget past its end while it holds more
 *   than BUDGET_SHARE_BYTES; one that holds more while the budget is used
 *   up has what it holds for its requests let go, once a second
 *   (group_check_limits, in group_op.c), and those requests answered
 *   with -32015: a member that never answers cannot pin memory the
 *   others need.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "budget.h"
#include "conf.h"
#include "group.h"
#include "group_int.h"
#include "mcpd.h"
#include "xmalloc.h"

void
group_budget_add(struct group_session *gs, size_t n)
{
	gs->mem += n;
	budget_add(gs->mcpd, n);
}

void
group_budget_sub(struct group_session *gs, size_t n)
{
	if (n > gs->mem)
		n = gs->mem;
	gs->mem -= n;
	budget_sub(gs->mcpd, n);
}

void
group_budget_op_add(struct group_session *gs, struct group_op *op, size_t n)
{
	op->mem += n;
	group_budget_add(gs, n);
}

static void
group_budget_op_sub(struct group_session *gs, struct group_op *op, size_t n)
{
	op->mem -= n < op->mem ? n : op->mem;
	group_budget_sub(gs, n);
}

char *
group_budget_op_take(struct group_session *gs, struct group_op *op,
    char **text, size_t *text_len, size_t *len)
{
	char	*taken = *text;

	*len = *text_len;
	if (taken != NULL)
		group_budget_op_sub(gs, op, *text_len);
	*text = NULL;
	*text_len = 0;
	return (taken);
}

int
group_budget_exhausted(const struct group_session *gs)
{
	return (budget_exhausted(gs->mcpd));
}

char *
group_budget_refuses(const struct group_session *gs, size_t n)
{
	const struct conf	*conf = gs->mcpd->conf;
	char			*why = NULL;
	size_t			 used;

	if (gs->mem + n > conf->client_max_group_bytes)
		xasprintf(&why, "this connection's session of group %s holds "
		    "%zu bytes and would pass client_max_group_bytes (%zu) "
		    "with %zu more", gs->name, gs->mem,
		    conf->client_max_group_bytes, n);
	else if (gs->mem + n > BUDGET_SHARE_BYTES &&
	    (used = budget_used(gs->mcpd)) + n > conf->memory_budget_bytes)
		xasprintf(&why, "mcpd's memory budget (memory_budget_bytes "
		    "%zu) has %zu bytes left, and this connection's session "
		    "of group %s holds %zu bytes", conf->memory_budget_bytes,
		    used < conf->memory_budget_bytes ?
		    conf->memory_budget_bytes - used : 0, gs->name, gs->mem);
	return (why);
}

int
group_budget_fits(const struct group_session *gs, size_t n)
{
	char	*why;

	if ((why = group_budget_refuses(gs, n)) == NULL)
		return (1);
	free(why);
	return (0);
}

void
group_budget_end(struct group_session *gs)
{
	budget_sub(gs->mcpd, gs->mem);
	gs->mem = 0;
}
