/*
 * worker_status.c -- a server's status (mcpctl status, metrics), naming
 * no client, and why it refuses requests, in the words a client sees.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "logs_ring.h"
#include "proto.h"
#include "rlink.h"
#include "roots.h"
#include "router.h"
#include "transport.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

static void
worker_add_nullable_string(cJSON *o, const char *key, const char *value)
{
	if (value != NULL)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

/* What to run to sign in, while it is needed (or a call wanted more). */
static void
worker_login_json(const struct worker *w, cJSON *o)
{
	const char	*scope;
	cJSON		*login;
	char		*cmd;

	scope = w->rlink != NULL ? rlink_step_up(w->rlink) : NULL;
	if (w->state != WORKER_NEEDS_LOGIN && scope == NULL)
		return;
	login = cJSON_AddObjectToObject(o, "login");
	xasprintf(&cmd, "mcpctl login %s", w->name);
	cJSON_AddStringToObject(login, "command", cmd);
	free(cmd);
	if (w->state == WORKER_NEEDS_LOGIN)
		worker_add_nullable_string(login, "reason", w->last_exit);
	else
		cJSON_AddStringToObject(login, "reason", "a request needs "
		    "more scope");
	if (scope != NULL)
		cJSON_AddStringToObject(login, "scope", scope);
}

/* How it is shared: its roots, its instances or its template. */
static void
worker_share_json(const struct worker *w, cJSON *o)
{
	struct worker	*i;
	cJSON		*names;

	cJSON_AddStringToObject(o, "share", conf_share_name(w->conf->share));
	if (w->roots_known)
		cJSON_AddItemToObject(o, "roots", roots_uris_json(&w->roots));
	else
		cJSON_AddNullToObject(o, "roots");	/* asked for */
	if (worker_is_template(w)) {
		cJSON_AddNumberToObject(o, "max_instances",
		    (double)w->conf->max_instances);
		names = cJSON_AddArrayToObject(o, "instances");
		for (i = worker_instance_next((struct worker *)w, NULL);
		    i != NULL; i = worker_instance_next((struct worker *)w, i))
			cJSON_AddItemToArray(names,
			    cJSON_CreateString(i->name));
	}
	/* Who uses an instance is visible.c's to say. */
	if (w->parent != NULL)
		cJSON_AddStringToObject(o, "instance_of", w->parent->name);
}

cJSON *
worker_status_json(const struct worker *w)
{
	cJSON		*o, *stats, *info;
	uint64_t	 now = clock_now_ms();
	const cJSON	*version, *server_info;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "state", worker_state_name(w->state));
	/* Not worker_running: the transport goes just before the state. */
	if (w->tp != NULL) {
		cJSON_AddNumberToObject(o, "pid", (double)transport_pid(w->tp));
		cJSON_AddNumberToObject(o, "uptime_ms",
		    (double)(now - w->spawned_ms));
	} else {
		cJSON_AddNullToObject(o, "pid");
		cJSON_AddNullToObject(o, "uptime_ms");
	}
	cJSON_AddStringToObject(o, "containment", w->containment);
	worker_sandbox_json(w, o);
	cJSON_AddNumberToObject(o, "restarts", (double)worker_restarts(w));
	worker_add_nullable_string(o, "last_exit", w->last_exit);
	if (w->state == WORKER_BACKOFF)
		cJSON_AddNumberToObject(o, "next_restart_ms",
		    (double)(w->next_restart_at_ms > now ?
		    w->next_restart_at_ms - now : 0));
	else
		cJSON_AddNullToObject(o, "next_restart_ms");
	cJSON_AddNumberToObject(o, "inflight",
	    (double)router_inflight(w->router));
	cJSON_AddNumberToObject(o, "clients",
	    (double)router_clients(w->router));
	cJSON_AddNumberToObject(o, "state_ms", (double)(now -
	    w->state_since_ms));
	cJSON_AddStringToObject(o, "command", w->conf->argv_display[0]);
	/* A remote server: its URL as written (no expanded secrets). */
	if (w->conf->url != NULL) {
		cJSON_AddStringToObject(o, "url", w->conf->url_display);
		if (w->rlink != NULL)
			rlink_json(w->rlink, o);
		worker_login_json(w, o);
	}
	cJSON_AddStringToObject(o, "restart_policy",
	    conf_restart_name(w->conf->restart));
	cJSON_AddStringToObject(o, "start", conf_start_name(w->conf->start));
	cJSON_AddStringToObject(o, "protocol",
	    conf_protocol_name(w->conf->protocol));
	worker_probe_json(w, o);
	cJSON_AddNumberToObject(o, "idle_stop_s",
	    (double)w->conf->idle_stop_s);
	worker_share_json(w, o);

	version = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "protocolVersion");
	server_info = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "serverInfo");
	worker_add_nullable_string(o, "protocol_version",
	    cJSON_IsString(version) ? version->valuestring : NULL);
	if (cJSON_IsObject(server_info)) {
		info = cJSON_Duplicate(server_info, 1);
		cJSON_AddItemToObject(o, "server_info", info);
	} else
		cJSON_AddNullToObject(o, "server_info");

	stats = cJSON_AddObjectToObject(o, "stats");
	cJSON_AddNumberToObject(stats, "stdout_lines", (double)w->lines_in);
	cJSON_AddNumberToObject(stats, "dropped_lines",
	    (double)w->nonjson_lines);
	cJSON_AddNumberToObject(stats, "oversize_messages",
	    (double)w->oversize);
	cJSON_AddNumberToObject(stats, "protocol_violations",
	    (double)w->violations);
	cJSON_AddNumberToObject(stats, "stderr_lines",
	    (double)logs_count(w->logs));
	cJSON_AddNumberToObject(stats, "on_demand_starts",
	    (double)w->on_demand_starts);
	cJSON_AddNumberToObject(stats, "idle_stops", (double)w->idle_stops);
	worker_freeze_json(w, o, stats);
	router_add_stats(w->router, stats);
	return (o);
}

size_t
worker_clients(const struct worker *w)
{
	return (router_clients(w->router));
}

char *
worker_unavailable_reason(const struct worker *w)
{
	char		*s;
	uint64_t	 now = clock_now_ms(), left;

	switch (w->state) {
	case WORKER_BACKOFF:
		left = w->next_restart_at_ms > now ?
		    w->next_restart_at_ms - now : 0;
		xasprintf(&s, "server %s is not running (%s); next attempt "
		    "in %.1f s", w->name, w->last_exit != NULL ?
		    w->last_exit : "it failed", (double)left / 1000.0);
		break;
	case WORKER_FAILED:
		xasprintf(&s, "server %s has failed (%s); mcpd gave up "
		    "restarting it: run `mcpctl start %s`", w->name,
		    w->last_exit != NULL ? w->last_exit : "unknown reason",
		    w->name);
		break;
	case WORKER_STOPPED:
		xasprintf(&s, "server %s is stopped%s%s%s: run `mcpctl start "
		    "%s`", w->name, w->last_exit != NULL ? " (" : "",
		    w->last_exit != NULL ? w->last_exit : "",
		    w->last_exit != NULL ? ")" : "", w->name);
		break;
	case WORKER_NEEDS_LOGIN:
		xasprintf(&s, "server %s needs a sign-in: run `mcpctl login "
		    "%s` (%s)", w->name, w->name, w->last_exit != NULL ?
		    w->last_exit : "not signed in");
		break;
	case WORKER_STOPPING:
		xasprintf(&s, "server %s is stopping%s%s", w->name,
		    w->fail_reason != NULL ? ": " : "",
		    w->fail_reason != NULL ? w->fail_reason : "");
		break;
	default:
		xasprintf(&s, "server %s is %s", w->name,
		    worker_state_name(w->state));
		break;
	}
	return (s);
}

const char *
worker_step_up(const struct worker *w)
{
	return (w->rlink != NULL ? rlink_step_up(w->rlink) : NULL);
}

int
worker_unavailable_code(const struct worker *w)
{
	return (w->state == WORKER_NEEDS_LOGIN ? MCPD_ERR_REMOTE_AUTH :
	    MCPD_ERR_SERVER_UNAVAILABLE);
}
