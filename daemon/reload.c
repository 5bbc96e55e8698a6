/*
 * reload.c -- reload the configuration.
 *
 * The new file is parsed and validated completely before anything
 * changes; with any error the old configuration keeps running untouched.
 * Otherwise: servers whose effective configuration is identical keep their
 * process, session, clients and in-flight requests; changed ones restart
 * with the new settings (their clients stay attached), unless only when
 * they run changed (start, idle_stop_s, first_start_timeout_ms); added
 * ones start (or wait, idle, when on demand or not shared globally: the
 * report says which);
 * removed ones stop and are freed, closing their clients.  Workers own a
 * copy of their settings, so the old configuration can go at once.
 * Filters (tools, prompts, resources) are not part of that comparison: a
 * new filter goes to the server's router, which applies it to the next
 * request and tells every attached client which lists changed, and the
 * process goes on.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "group.h"
#include "httpfront.h"
#include "log.h"
#include "mcpd.h"
#include "sdnotify.h"
#include "proto.h"
#include "reload.h"
#include "router.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

/*
 * Give the router the server's new filters; the kinds that changed go
 * into the report ("filters": {NAME: ["tools", ...]}) and the log.
 */
static void
reload_filters(struct worker *w, const struct conf_server *cs,
    cJSON *filters)
{
	unsigned int	 changed;
	cJSON		*kinds;
	char		 names[64];
	size_t		 k, len;

	struct worker	*i;

	changed = router_set_filters(worker_router(w), cs->filters);
	for (i = worker_instance_next(w, NULL); i != NULL;
	    i = worker_instance_next(w, i))
		(void)router_set_filters(worker_router(i), cs->filters);
	if (changed == 0)
		return;
	kinds = cJSON_AddArrayToObject(filters, worker_name(w));
	names[0] = '\0';
	for (k = 0, len = 0; k < FILTER_KINDS; k++) {
		if (!(changed & (1U << k)))
			continue;
		cJSON_AddItemToArray(kinds,
		    cJSON_CreateString(filter_kind_name(k)));
		/* Three short names: they always fit. */
		len += (size_t)snprintf(names + len, sizeof names - len,
		    "%s%s", len > 0 ? ", " : "", filter_kind_name(k));
	}
	log_info("%s: new filters for %s, applied without a restart",
	    worker_name(w), names);
}

/*
 * Every attached client's policy decided again (cpolicy.h): those whose
 * view changed are told so (list_changed) and counted in the report.
 */
static void
reload_policies(struct mcpd *mcpd, cJSON *report)
{
	struct worker	*w;
	size_t		 n = 0;

	for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
		if (!worker_removing(w))
			n += router_set_policies(worker_router(w),
			    mcpd->conf->clients);
	cJSON_AddNumberToObject(report, "clients_policy_changed", (double)n);
	if (n > 0)
		log_info("reload: the policy of %zu attached client%s changed",
		    n, n == 1 ? "" : "s");
}

/*
 * What became of a server the reload added: started, or waiting, idle,
 * for a client (on demand, or an instance for each client or set of
 * roots), or disabled.
 */
static const char *
reload_added_action(const struct worker *w)
{
	const struct conf_server *cs = worker_conf(w);

	if (cs->disabled)
		return ("disabled");
	if (worker_state(w) != WORKER_IDLE)
		return ("started");
	if (!worker_is_template(w))
		return ("idle, starts with its first client");
	return (cs->share == CONF_SHARE_PER_CLIENT ? "idle, each client "
	    "gets an instance of its own" : "idle, each set of client roots "
	    "gets an instance of its own");
}

static void
reload_add_diags(cJSON *report, const struct conf_diags *diags)
{
	cJSON	*errors, *warnings;
	size_t	 i;

	errors = cJSON_AddArrayToObject(report, "errors");
	warnings = cJSON_AddArrayToObject(report, "warnings");
	for (i = 0; i < diags->n; i++)
		cJSON_AddItemToArray(diags->v[i].level == CONF_ERROR ?
		    errors : warnings, cJSON_CreateString(diags->v[i].text));
}

int
reload_config(struct mcpd *mcpd, cJSON **reportp)
{
	struct conf_diags		 diags;
	struct conf			*conf;
	const struct conf_server	*cs;
	struct worker			*w, *next;
	cJSON				*report, *changed, *added, *removed;
	cJSON				*unchanged, *actions, *warnings;
	cJSON				*filters;
	static const char		*action_names[] = {
		[WORKER_RECONF_RESTARTED] = "restarted",
		[WORKER_RECONF_STARTED] = "started",
		[WORKER_RECONF_STOPPED] = "stopped",
		[WORKER_RECONF_KEPT] = "kept stopped",
		[WORKER_RECONF_IDLE] = "idle",
		[WORKER_RECONF_UPDATED] = "updated",
	};
	struct log_field		 f[] = {
		{ MCPD_FIELD_CONFIG, mcpd->config_file },
	};
	size_t				 i;

	sdnotify_reloading(mcpd);
	report = cJSON_CreateObject();
	*reportp = report;
	conf_diags_init(&diags);
	conf = conf_load(mcpd->config_file, &diags);
	for (i = 0; i < diags.n; i++)
		log_event(diags.v[i].level == CONF_ERROR ? LOG_ERR :
		    LOG_WARNING, MCPD_MID_CONFIG, f, nitems(f), "reload: "
		    "%s%s", diags.v[i].level == CONF_WARNING ? "warning: " : "",
		    diags.v[i].text);
	if (conf == NULL) {
		log_event(LOG_ERR, MCPD_MID_CONFIG, f, nitems(f),
		    "reload of %s failed with %zu error%s; the running "
		    "configuration is unchanged", mcpd->config_file,
		    diags.nerrors, diags.nerrors == 1 ? "" : "s");
		reload_add_diags(report, &diags);
		conf_diags_free(&diags);
		sdnotify_reloaded(mcpd);
		return (-1);
	}

	changed = cJSON_AddArrayToObject(report, "changed");
	added = cJSON_AddArrayToObject(report, "added");
	removed = cJSON_AddArrayToObject(report, "removed");
	unchanged = cJSON_AddArrayToObject(report, "unchanged");
	actions = cJSON_AddObjectToObject(report, "actions");
	warnings = cJSON_AddArrayToObject(report, "warnings");
	filters = cJSON_AddObjectToObject(report, "filters");
	for (w = worker_first(mcpd); w != NULL; w = next) {
		next = worker_next(w);
		/* Instances follow their template (worker_reconfigure). */
		if (worker_removing(w) || worker_parent(w) != NULL)
			continue;
		if ((cs = conf_find(conf, worker_name(w))) == NULL) {
			cJSON_AddItemToArray(removed,
			    cJSON_CreateString(worker_name(w)));
			worker_remove(w);
		} else if (cs->share != worker_conf(w)->share) {
			/*
			 * Shared another way: another server altogether.  Its
			 * clients are let go (a bridge attaches again).
			 */
			cJSON_AddItemToArray(changed,
			    cJSON_CreateString(worker_name(w)));
			cJSON_AddStringToObject(actions, worker_name(w),
			    "replaced");
			worker_remove(w);	/* made again below */
		} else if (!conf_server_equal(worker_conf(w), cs)) {
			cJSON_AddItemToArray(changed,
			    cJSON_CreateString(worker_name(w)));
			cJSON_AddStringToObject(actions, worker_name(w),
			    action_names[worker_reconfigure(w, cs)]);
			reload_filters(w, cs, filters);
		} else {
			cJSON_AddItemToArray(unchanged,
			    cJSON_CreateString(worker_name(w)));
			reload_filters(w, cs, filters);
		}
	}
	for (i = 0; i < conf->nservers; i++) {
		cs = &conf->servers[i];
		if (worker_find(mcpd, cs->name) != NULL)
			continue;
		w = worker_new(mcpd, cs);
		/* Not a server replaced above (its share changed). */
		if (cJSON_GetObjectItemCaseSensitive(actions,
		    cs->name) == NULL) {
			cJSON_AddItemToArray(added,
			    cJSON_CreateString(cs->name));
			cJSON_AddStringToObject(actions, cs->name,
			    reload_added_action(w));
		}
	}
	if ((conf->socket_group == NULL) != (mcpd->conf->socket_group ==
	    NULL) || (conf->socket_group != NULL &&
	    strcmp(conf->socket_group, mcpd->conf->socket_group) != 0)) {
		log_event(LOG_WARNING, MCPD_MID_CONFIG, f, nitems(f),
		    "reload: socket_group changed; the socket keeps its old "
		    "group and access rules until mcpd restarts");
		free(conf->socket_group);
		conf->socket_group = mcpd->conf->socket_group != NULL ?
		    xstrdup(mcpd->conf->socket_group) : NULL;
		conf->socket_gid = mcpd->conf->socket_gid;
		cJSON_AddItemToArray(warnings, cJSON_CreateString(
		    "mcpd.socket_group: takes effect when mcpd restarts"));
	}
	conf_free(mcpd->conf);
	mcpd->conf = conf;
	httpfront_apply(mcpd);
	group_reconfigure(mcpd);
	reload_policies(mcpd, report);

	log_event(LOG_INFO, MCPD_MID_CONFIG, f, nitems(f), "reloaded %s: "
	    "%d changed, %d added, %d removed, %d unchanged",
	    mcpd->config_file, cJSON_GetArraySize(changed),
	    cJSON_GetArraySize(added), cJSON_GetArraySize(removed),
	    cJSON_GetArraySize(unchanged));
	for (i = 0; i < diags.n; i++)
		cJSON_AddItemToArray(warnings,
		    cJSON_CreateString(diags.v[i].text));
	conf_diags_free(&diags);
	sdnotify_reloaded(mcpd);
	return (0);
}
