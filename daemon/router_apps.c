/*
 * router_apps.c -- a server's calls counted per app: each tools/call,
 * prompts/get and resources/read a client makes, and each that mcpd
 * refuses itself (a client's policy, a held pin, a filter), under the
 * name of the app as identity knows it (audit_app_name: its app id, its
 * unit, else its executable's name; "unknown" when mcpd could not tell).
 *
 * Promises: at most ROUTER_APPS_MAX names per server, each cut to
 * ROUTER_APP_NAME_MAX bytes and escaped; a call of any app beyond them
 * counts under "other", so that no peer can grow mcpd's memory by
 * calling under many names.  An attachment finds its row once.  The
 * counts live as long as the server's router (status "stats.apps",
 * mcpctl metrics).
 */
#include "config.h"

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "esc.h"
#include "ident.h"
#include "router.h"
#include "router_int.h"
#include "xmalloc.h"

#define ROUTER_APP_UNKNOWN	"unknown"
#define ROUTER_APP_OTHER	"other"

struct router_app {
	char		*name;		/* escaped, bounded */
	uint64_t	 calls;		/* every one */
	uint64_t	 refused;	/* of those, by mcpd itself */
};

struct router_apps {
	struct router_app v[ROUTER_APPS_MAX];
	size_t		 n;
	struct router_app other;
};

const char *
router_app_name(const struct attachment *a, char *buf, size_t size)
{
	const struct ident	*id = NULL;

	if (a->peer->ident != NULL)
		id = a->peer->ident(a->peer_arg);
	if (id == NULL)
		return (NULL);
	/* An HTTP client is its token (ident_http.c). */
	if (id->token != NULL) {
		snprintf(buf, size, "token:%s", id->token);
		return (buf);
	}
	return (audit_app_name(id->exe, id->unit, id->app_id));
}

/* The attachment's row: found once, or made while there is room. */
static struct router_app *
router_apps_row(struct attachment *a)
{
	struct router		*r = a->router;
	struct router_apps	*t;
	const char		*raw;
	char			*name, buf[ROUTER_APP_BUF];
	size_t			 i;

	if (r->apps == NULL) {
		r->apps = xcalloc(1, sizeof *r->apps);
		r->apps->other.name = xstrdup(ROUTER_APP_OTHER);
	}
	t = r->apps;
	if (a->app_row > 0 && (size_t)a->app_row <= t->n)
		return (&t->v[a->app_row - 1]);
	if (a->app_row < 0)
		return (&t->other);
	raw = router_app_name(a, buf, sizeof buf);
	name = raw != NULL ? esc_text_max(raw, strlen(raw), 0,
	    ROUTER_APP_NAME_MAX) : xstrdup(ROUTER_APP_UNKNOWN);
	for (i = 0; i < t->n; i++) {
		if (strcmp(t->v[i].name, name) == 0)
			break;
	}
	if (i == t->n && t->n < ROUTER_APPS_MAX)
		t->v[t->n++].name = name;
	else
		free(name);
	a->app_row = i < t->n ? (int)i + 1 : -1;
	return (a->app_row > 0 ? &t->v[i] : &t->other);
}

void
router_apps_count(struct attachment *a, const char *method, int refused)
{
	struct router_app	*row;

	if (audit_method(method) == AUDIT_NONE)
		return;
	row = router_apps_row(a);
	row->calls++;
	if (refused)
		row->refused++;
}

static void
router_apps_add(cJSON *list, const struct router_app *row)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "app", row->name);
	cJSON_AddNumberToObject(o, "calls", (double)row->calls);
	cJSON_AddNumberToObject(o, "refused", (double)row->refused);
	cJSON_AddItemToArray(list, o);
}

void
router_apps_json(const struct router *r, cJSON *stats)
{
	cJSON	*list;
	size_t	 i;

	list = cJSON_AddArrayToObject(stats, "apps");
	if (r->apps == NULL)
		return;
	for (i = 0; i < r->apps->n; i++)
		router_apps_add(list, &r->apps->v[i]);
	if (r->apps->other.calls > 0 || r->apps->other.refused > 0)
		router_apps_add(list, &r->apps->other);
}

void
router_apps_free(struct router *r)
{
	size_t	 i;

	if (r->apps == NULL)
		return;
	for (i = 0; i < r->apps->n; i++)
		free(r->apps->v[i].name);
	free(r->apps->other.name);
	free(r->apps);
	r->apps = NULL;
}
