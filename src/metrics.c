/*
 * metrics.c -- Prometheus text exposition of mcpd's status.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "proto.h"
#include "sbuf.h"
#include "util.h"

static double
metrics_num(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsNumber(v) ? v->valuedouble : 0);
}

static const char *
metrics_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsString(v) ? v->valuestring : "");
}

static void
metrics_help(struct sbuf *b, const char *name, const char *type,
    const char *help)
{
	sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name,
	    type);
}

/* A metric of one sample, without labels, shown with that many decimals. */
static void
metrics_single(struct sbuf *b, const char *name, const char *type,
    const char *help, double value, int decimals)
{
	metrics_help(b, name, type, help);
	sbuf_printf(b, "%s %.*f\n", name, decimals, value);
}

/* One sample per server of a number found at path (stats.KEY or KEY). */
static void
metrics_per_server(struct sbuf *b, const cJSON *servers,
    const char *name, const char *type, const char *help, const char *key,
    int in_stats)
{
	const cJSON	*s, *o;

	metrics_help(b, name, type, help);
	cJSON_ArrayForEach(s, servers) {
		o = in_stats ? cJSON_GetObjectItemCaseSensitive(s, "stats") : s;
		sbuf_printf(b, "%s{server=\"%s\"} %.0f\n", name,
		    metrics_str(s, "name"),
		    metrics_num(o, key));
	}
}

static void
metrics_histogram(struct sbuf *b, const cJSON *servers)
{
	const cJSON	*s, *stats, *buckets, *v;
	const char	*name;
	double		 cumulative, le;
	int		 i;

	metrics_help(b, "mcpd_request_duration_seconds", "histogram",
	    "Time from a request reaching mcpd to its answer leaving it.");
	cJSON_ArrayForEach(s, servers) {
		name = metrics_str(s, "name");
		stats = cJSON_GetObjectItemCaseSensitive(s, "stats");
		buckets = cJSON_GetObjectItemCaseSensitive(stats,
		    "latency_us_log2");
		cumulative = 0;
		i = 0;
		cJSON_ArrayForEach(v, buckets) {
			cumulative += cJSON_IsNumber(v) ? v->valuedouble : 0;
			/* Bucket i holds durations below 2^(i+1) µs. */
			le = (double)(2ULL << i) / 1e6;
			if (v->next != NULL)
				sbuf_printf(b, "mcpd_request_duration_"
				    "seconds_bucket{server=\"%s\",le=\"%.6f\"} "
				    "%.0f\n", name, le, cumulative);
			i++;
		}
		sbuf_printf(b, "mcpd_request_duration_seconds_bucket{server="
		    "\"%s\",le=\"+Inf\"} %.0f\n", name, cumulative);
		sbuf_printf(b, "mcpd_request_duration_seconds_sum{server="
		    "\"%s\"} %.6f\n", name, metrics_num(stats, "latency_us_sum") /
		    1e6);
		sbuf_printf(b, "mcpd_request_duration_seconds_count{server="
		    "\"%s\"} %.0f\n", name, cumulative);
	}
}

/* A label's value: backslash, quote and newline escaped (text format). */
static void
metrics_label(struct sbuf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"')
			sbuf_printf(b, "\\%c", *s);
		else if (*s == '\n')
			sbuf_add(b, "\\n", 2);
		else
			sbuf_add(b, s, 1);
	}
}

/* One of an app's counts (stats.apps[].KEY) per server and app. */
static void
metrics_apps(struct sbuf *b, const cJSON *servers, const char *name,
    const char *help, const char *key)
{
	const cJSON	*s, *apps, *app;
	int		 any = 0;

	cJSON_ArrayForEach(s, servers) {
		apps = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(s, "stats"), "apps");
		cJSON_ArrayForEach(app, apps) {
			if (!any++)
				metrics_help(b, name, "counter", help);
			sbuf_printf(b, "%s{server=\"%s\",app=\"", name,
			    metrics_str(s, "name"));
			metrics_label(b, metrics_str(app, "app"));
			sbuf_printf(b, "\"} %.0f\n", metrics_num(app, key));
		}
	}
}

/* Groups: clients attached and requests they made. */
static void
metrics_groups(struct sbuf *b, const cJSON *groups)
{
	const cJSON	*g;

	if (cJSON_GetArraySize(groups) == 0)
		return;
	metrics_help(b, "mcpd_group_clients", "gauge",
	    "Clients attached to the group.");
	cJSON_ArrayForEach(g, groups)
		sbuf_printf(b, "mcpd_group_clients{group=\"%s\"} %.0f\n",
		    metrics_str(g, "name"), metrics_num(g, "clients"));
	metrics_help(b, "mcpd_group_requests_total", "counter",
	    "Requests clients made of the group.");
	cJSON_ArrayForEach(g, groups)
		sbuf_printf(b, "mcpd_group_requests_total{group=\"%s\"} "
		    "%.0f\n", metrics_str(g, "name"),
		    metrics_num(g, "requests"));
}

/* Remote servers: HTTP responses by status code. */
static void
metrics_remote(struct sbuf *b, const cJSON *servers)
{
	const cJSON	*s, *remote, *counts, *c;
	int		 any = 0;

	cJSON_ArrayForEach(s, servers) {
		remote = cJSON_GetObjectItemCaseSensitive(s, "remote");
		counts = cJSON_GetObjectItemCaseSensitive(remote,
		    "http_responses");
		if (!cJSON_IsObject(counts))
			continue;
		if (!any++)
			metrics_help(b, "mcpd_remote_http_responses_total",
			    "counter", "HTTP responses a remote server's "
			    "worker received, by status code.");
		cJSON_ArrayForEach(c, counts) {
			if (!cJSON_IsNumber(c) || strspn(c->string,
			    "0123456789") != strlen(c->string))
				continue;
			sbuf_printf(b, "mcpd_remote_http_responses_total{"
			    "server=\"%s\",code=\"%s\"} %.0f\n",
			    metrics_str(s, "name"), c->string, c->valuedouble);
		}
	}
}

char *
metrics_render(const cJSON *status)
{
	static const char	*states[] = MCPD_STATE_NAMES;
	static const char	*outcomes[] = {
		"ok", "error", "timeout", "cancelled", "failed", "oversize"
	};
	struct sbuf		 b = { NULL, 0, 0 };
	const cJSON		*servers, *daemon, *s, *stats, *requests;
	const char		*name, *state;
	size_t			 i;

	sbuf_add(&b, "", 0);	/* never NULL, even empty */
	servers = cJSON_GetObjectItemCaseSensitive(status, "servers");
	daemon = cJSON_GetObjectItemCaseSensitive(status, "daemon");

	metrics_single(&b, "mcpd_uptime_seconds", "gauge",
	    "Seconds since mcpd started.",
	    metrics_num(daemon, "uptime_ms") / 1000.0, 3);
	metrics_single(&b, "mcpd_connections", "gauge",
	    "Connections open on the control socket.",
	    metrics_num(daemon, "connections"), 0);
	metrics_single(&b, "mcpd_connections_total", "counter",
	    "Connections accepted since mcpd started.",
	    metrics_num(daemon, "clients_total"), 0);
	metrics_single(&b, "mcpd_protocol_violations_total", "counter",
	    "Messages from servers that broke the protocol.",
	    metrics_num(daemon, "protocol_violations"), 0);

	metrics_help(&b, "mcpd_server_state", "gauge",
	    "1 for the state each server is in, 0 for the others.");
	cJSON_ArrayForEach(s, servers) {
		name = metrics_str(s, "name");
		state = metrics_str(s, "state");
		for (i = 0; i < nitems(states); i++)
			sbuf_printf(&b, "mcpd_server_state{server=\"%s\","
			    "state=\"%s\"} %d\n", name, states[i],
			    strcmp(states[i], state) == 0);
	}
	metrics_per_server(&b, servers, "mcpd_server_restarts_total",
	    "counter", "Times mcpd started a server again.", "restarts", 0);
	metrics_per_server(&b, servers, "mcpd_server_inflight", "gauge",
	    "Requests forwarded to the server and not yet answered.",
	    "inflight", 0);
	metrics_per_server(&b, servers, "mcpd_server_clients", "gauge",
	    "Clients attached to the server.", "clients", 0);

	metrics_help(&b, "mcpd_requests_total", "counter",
	    "Client requests answered, by outcome.");
	cJSON_ArrayForEach(s, servers) {
		name = metrics_str(s, "name");
		stats = cJSON_GetObjectItemCaseSensitive(s, "stats");
		requests = cJSON_GetObjectItemCaseSensitive(stats, "requests");
		for (i = 0; i < nitems(outcomes); i++)
			sbuf_printf(&b, "mcpd_requests_total{server=\"%s\","
			    "outcome=\"%s\"} %.0f\n", name, outcomes[i],
			    metrics_num(requests, outcomes[i]));
	}
	metrics_histogram(&b, servers);

	metrics_help(&b, "mcpd_bytes_total", "counter",
	    "Message bytes relayed, by direction.");
	cJSON_ArrayForEach(s, servers) {
		name = metrics_str(s, "name");
		stats = cJSON_GetObjectItemCaseSensitive(s, "stats");
		sbuf_printf(&b, "mcpd_bytes_total{server=\"%s\",direction="
		    "\"to_server\"} %.0f\n", name,
		    metrics_num(stats, "bytes_to_server"));
		sbuf_printf(&b, "mcpd_bytes_total{server=\"%s\",direction="
		    "\"to_clients\"} %.0f\n", name,
		    metrics_num(stats, "bytes_to_clients"));
	}
	metrics_per_server(&b, servers,
	    "mcpd_server_protocol_violations_total", "counter",
	    "Messages from this server that broke the protocol.",
	    "protocol_violations", 1);
	metrics_per_server(&b, servers, "mcpd_server_dropped_lines_total",
	    "counter", "stdout lines dropped because they were not JSON.",
	    "dropped_lines", 1);
	metrics_per_server(&b, servers, "mcpd_server_stderr_lines_total",
	    "counter", "Lines the server wrote to stderr.", "stderr_lines", 1);
	metrics_per_server(&b, servers, "mcpd_server_on_demand_starts_total",
	    "counter", "Times an idle server was started for a client.",
	    "on_demand_starts", 1);
	metrics_per_server(&b, servers, "mcpd_server_idle_stops_total",
	    "counter", "Times a server was stopped for having nothing to do.",
	    "idle_stops", 1);
	metrics_apps(&b, servers, "mcpd_app_calls_total", "Calls "
	    "(tools/call, prompts/get, resources/read) clients made of the "
	    "server, by app; past 32 apps a server counts the rest as "
	    "\"other\".", "calls");
	metrics_apps(&b, servers, "mcpd_app_refused_total", "Of those, the "
	    "calls mcpd refused itself (a client's policy, a held pin, a "
	    "filter), by app.", "refused");
	metrics_remote(&b, servers);
	metrics_groups(&b, cJSON_GetObjectItemCaseSensitive(status, "groups"));
	return (b.p);
}
