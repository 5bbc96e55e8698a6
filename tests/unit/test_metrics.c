/*
 * test_metrics.c -- unit tests for metrics_render: a hand-built status
 * (the object mcpd/status returns) in, Prometheus text exposition out.
 * Exact sample lines for known counters and gauges, one-hot state gauges,
 * the latency histogram (bucket i of latency_us_log2 holds durations
 * below 2^(i+1) µs; buckets leave cumulative, le in seconds, the last one
 * only in +Inf), _sum and _count, HELP and TYPE for every family, and
 * missing or mistyped fields rendered as 0 without crashing.
 */

#include "config.h"

#include <check.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "metrics.h"
#include "unit.h"
#include "util.h"

#define NBUCKETS	28	/* what mcpd's router reports */

static const char *families[] = {
	"mcpd_uptime_seconds", "mcpd_connections", "mcpd_connections_total",
	"mcpd_protocol_violations_total", "mcpd_server_state",
	"mcpd_server_restarts_total", "mcpd_server_inflight",
	"mcpd_server_clients", "mcpd_requests_total",
	"mcpd_request_duration_seconds", "mcpd_bytes_total",
	"mcpd_server_protocol_violations_total",
	"mcpd_server_dropped_lines_total", "mcpd_server_stderr_lines_total",
	"mcpd_server_on_demand_starts_total", "mcpd_server_idle_stops_total",
};
#define NFAMILIES	(nitems(families))

static const char *states[] = {
	"starting", "initializing", "ready", "backoff", "stopping", "stopped",
	"failed", "needs-login", "idle", "frozen",
};
#define NSTATES		(nitems(states))

static const char *outcomes[] = {
	"ok", "error", "timeout", "cancelled", "failed", "oversize",
};

/* Latency counts per bucket for server "a": total 15. */
static const unsigned a_buckets[NBUCKETS] = {
	[0] = 1, [2] = 2, [5] = 3, [19] = 4, [27] = 5,
};
#define A_COUNT		15
#define A_SUM_US	7654321.0

/* ---- helpers ---- */

static char *
render_text(const char *status_text)
{
	cJSON	*status;
	char	*out;

	status = cJSON_Parse(status_text);
	ck_assert_msg(status != NULL, "bad test input: %s", status_text);
	out = metrics_render(status);
	cJSON_Delete(status);
	ck_assert_ptr_nonnull(out);
	return (out);
}

/* The two-server status of most tests. */
static char *
render_two(void)
{
	cJSON	*status, *a, *lat;
	char	*out, *text;
	size_t	 i;
	static const char *base =
	    "{\"daemon\": {\"pid\": 42, \"uptime_ms\": 12345, \"connections\": 4,"
	    " \"clients_total\": 99, \"protocol_violations\": 6},"
	    " \"servers\": ["
	    "  {\"name\": \"a\", \"state\": \"ready\", \"pid\": 100,"
	    "   \"restarts\": 2, \"inflight\": 1, \"clients\": 3,"
	    "   \"stats\": {\"requests\": {\"ok\": 7, \"error\": 1,"
	    "    \"timeout\": 2, \"cancelled\": 3, \"failed\": 4,"
	    "    \"oversize\": 5}, \"latency_us_sum\": 7654321,"
	    "    \"bytes_to_server\": 1234, \"bytes_to_clients\": 5678,"
	    "    \"protocol_violations\": 6, \"dropped_lines\": 8,"
	    "    \"stderr_lines\": 9, \"on_demand_starts\": 10,"
	    "    \"idle_stops\": 11}},"
	    "  {\"name\": \"b\", \"state\": \"backoff\", \"pid\": null,"
	    "   \"restarts\": 0, \"inflight\": 0, \"clients\": 0,"
	    "   \"stats\": {\"requests\": {\"ok\": 12345678901, \"error\": 0,"
	    "    \"timeout\": 0, \"cancelled\": 0, \"failed\": 0,"
	    "    \"oversize\": 0}, \"latency_us_log2\": [0, 0, 0, 0, 0, 0, 0,"
	    "    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],"
	    "    \"latency_us_sum\": 0, \"bytes_to_server\": 0,"
	    "    \"bytes_to_clients\": 0}}"
	    " ]}";

	status = cJSON_Parse(base);
	ck_assert_ptr_nonnull(status);
	a = cJSON_GetArrayItem(cJSON_GetObjectItem(status, "servers"), 0);
	lat = cJSON_AddArrayToObject(cJSON_GetObjectItem(a, "stats"),
	    "latency_us_log2");
	for (i = 0; i < NBUCKETS; i++)
		cJSON_AddItemToArray(lat, cJSON_CreateNumber(a_buckets[i]));
	out = metrics_render(status);
	cJSON_Delete(status);
	ck_assert_ptr_nonnull(out);
	text = out;
	return (text);
}

/* Is this exact line in the text? */
static int
has_line(const char *text, const char *line)
{
	size_t		 n = strlen(line);
	const char	*p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return (1);
		p++;
	}
	return (0);
}

#define assert_line(text, line)						\
	ck_assert_msg(has_line((text), (line)),				\
	    "missing line \"%s\" in:\n%s", (line), (text))

/* The value of the sample `series value`; *found says if it is there. */
static double
value_of(const char *text, const char *series, int *found)
{
	size_t		 n = strlen(series);
	const char	*p = text;
	char		*end;
	double		 v;

	*found = 0;
	while ((p = strstr(p, series)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == ' ') {
			v = strtod(p + n + 1, &end);
			ck_assert_msg(end != p + n + 1 && *end == '\n',
			    "bad value for %s", series);
			*found = 1;
			return (v);
		}
		p++;
	}
	return (0);
}

static int
count_prefix(const char *text, const char *prefix)
{
	const char	*p = text;
	size_t		 n = strlen(prefix);
	int		 count = 0;

	for (;;) {
		if (strncmp(p, prefix, n) == 0)
			count++;
		if ((p = strchr(p, '\n')) == NULL || *++p == '\0')
			return (count);
	}
}

static int
close_to(double got, double want)
{
	if (want == 0)
		return (got == 0);
	return (fabs(got - want) <= fabs(want) * 1e-9);
}

/* Every line a comment or `name{labels} value`; ends with a newline. */
static void
assert_exposition(const char *text)
{
	regex_t		 re;
	const char	*p, *nl;
	char		 line[512];
	size_t		 len, i;
	char		 want[128];

	ck_assert(regcomp(&re, "^[a-zA-Z_:][a-zA-Z0-9_:]*"
	    "(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\""
	    "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\")*\\})? "
	    "([-+]?[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?\\.[0-9]+"
	    "([eE][-+]?[0-9]+)?|[-+]Inf|NaN)$", REG_EXTENDED | REG_NOSUB) == 0);
	len = strlen(text);
	ck_assert_msg(len > 0 && text[len - 1] == '\n',
	    "the text does not end with a newline");
	for (p = text; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		len = (size_t)(nl - p);
		ck_assert_uint_lt(len, sizeof line);
		memcpy(line, p, len);
		line[len] = '\0';
		if (strncmp(line, "# HELP ", 7) == 0 ||
		    strncmp(line, "# TYPE ", 7) == 0)
			continue;
		ck_assert_msg(regexec(&re, line, 0, NULL, 0) == 0,
		    "not a sample line: \"%s\"", line);
	}
	regfree(&re);
	for (i = 0; i < NFAMILIES; i++) {
		snprintf(want, sizeof want, "# HELP %s ", families[i]);
		ck_assert_msg(count_prefix(text, want) == 1,
		    "%d HELP lines for %s", count_prefix(text, want),
		    families[i]);
		snprintf(want, sizeof want, "# TYPE %s ", families[i]);
		ck_assert_msg(count_prefix(text, want) == 1,
		    "%d TYPE lines for %s", count_prefix(text, want),
		    families[i]);
	}
}

/*
 * The histogram of one server: cumulative buckets, +Inf and _count, then
 * the le values, then _sum (unless sum_us < 0).
 */
static void
assert_histogram(const char *text, const char *server,
    const unsigned *counts, size_t n, double sum_us)
{
	char		 prefix[128], series[160], le[64], bad_le[160] = "";
	const char	*p, *q, *e;
	double		 cumulative = 0, got, want_le;
	size_t		 i = 0, total_finite;
	int		 found;
	char		*end;

	snprintf(prefix, sizeof prefix,
	    "mcpd_request_duration_seconds_bucket{server=\"%s\",le=\"", server);
	/* The last bucket is the catch-all: it only shows in +Inf. */
	total_finite = n > 0 ? n - 1 : 0;
	for (p = text; (p = strstr(p, prefix)) != NULL; p = e) {
		q = p + strlen(prefix);
		e = strchr(q, '"');
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_lt((size_t)(e - q), sizeof le);
		memcpy(le, q, (size_t)(e - q));
		le[e - q] = '\0';
		if (strcmp(le, "+Inf") == 0)
			break;
		ck_assert_msg(i < total_finite, "%s: a bucket too many (le=%s)",
		    server, le);
		cumulative += counts[i];
		/* Bucket i holds durations below 2^(i+1) µs. */
		want_le = (double)(2ULL << i) / 1e6;
		got = strtod(le, &end);
		/* Reported after the counts, with the first one wrong. */
		if ((*end != '\0' || !close_to(got, want_le)) &&
		    bad_le[0] == '\0')
			snprintf(bad_le, sizeof bad_le, "bucket %zu has "
			    "le=\"%s\", expected 2^%zu us = %.9g s", i, le,
			    i + 1, want_le);
		ck_assert_msg(strncmp(e, "\"} ", 3) == 0, "%s: bad bucket line",
		    server);
		got = strtod(e + 3, &end);
		ck_assert_msg(*end == '\n' && got == cumulative,
		    "%s: bucket le=\"%s\" is %.17g, expected %.0f (cumulative)",
		    server, le, got, cumulative);
		i++;
	}
	ck_assert_msg(i == total_finite, "%s: %zu finite buckets, expected %zu",
	    server, i, total_finite);
	if (n > 0)
		cumulative += counts[n - 1];
	snprintf(series, sizeof series,
	    "mcpd_request_duration_seconds_bucket{server=\"%s\",le=\"+Inf\"}",
	    server);
	got = value_of(text, series, &found);
	ck_assert_msg(found && got == cumulative, "%s is %.17g, expected %.0f",
	    series, got, cumulative);
	snprintf(series, sizeof series,
	    "mcpd_request_duration_seconds_count{server=\"%s\"}", server);
	got = value_of(text, series, &found);
	ck_assert_msg(found && got == cumulative, "%s is %.17g, expected %.0f",
	    series, got, cumulative);
	ck_assert_msg(bad_le[0] == '\0', "%s: %s", server, bad_le);
	if (sum_us < 0)
		return;
	snprintf(series, sizeof series,
	    "mcpd_request_duration_seconds_sum{server=\"%s\"}", server);
	got = value_of(text, series, &found);
	ck_assert_msg(found && close_to(got, sum_us / 1e6),
	    "%s is %.17g, expected %.9g (latency_us_sum %.0f us)", series, got,
	    sum_us / 1e6, sum_us);
}

static void
assert_one_hot(const char *text, const char *server, const char *state)
{
	char	 series[160];
	size_t	 i;
	double	 v;
	int	 found;

	for (i = 0; i < NSTATES; i++) {
		snprintf(series, sizeof series,
		    "mcpd_server_state{server=\"%s\",state=\"%s\"}", server,
		    states[i]);
		v = value_of(text, series, &found);
		ck_assert_msg(found, "missing %s", series);
		ck_assert_msg(v == (state != NULL &&
		    strcmp(state, states[i]) == 0), "%s is %g", series, v);
	}
	snprintf(series, sizeof series, "mcpd_server_state{server=\"%s\",",
	    server);
	ck_assert_int_eq(count_prefix(text, series), (int)NSTATES);
}

/* ---- tests ---- */

START_TEST(test_metrics_exact_lines)
{
	char	*t = render_two();

	assert_line(t, "mcpd_uptime_seconds 12.345");
	assert_line(t, "mcpd_connections 4");
	assert_line(t, "mcpd_connections_total 99");
	assert_line(t, "mcpd_protocol_violations_total 6");

	assert_line(t, "mcpd_requests_total{server=\"a\",outcome=\"ok\"} 7");
	assert_line(t, "mcpd_requests_total{server=\"a\",outcome=\"error\"} 1");
	assert_line(t,
	    "mcpd_requests_total{server=\"a\",outcome=\"timeout\"} 2");
	assert_line(t,
	    "mcpd_requests_total{server=\"a\",outcome=\"cancelled\"} 3");
	assert_line(t, "mcpd_requests_total{server=\"a\",outcome=\"failed\"} 4");
	assert_line(t,
	    "mcpd_requests_total{server=\"a\",outcome=\"oversize\"} 5");
	/* Past 2^32, still exact. */
	assert_line(t,
	    "mcpd_requests_total{server=\"b\",outcome=\"ok\"} 12345678901");
	assert_line(t, "mcpd_requests_total{server=\"b\",outcome=\"failed\"} 0");

	assert_line(t, "mcpd_server_restarts_total{server=\"a\"} 2");
	assert_line(t, "mcpd_server_restarts_total{server=\"b\"} 0");
	assert_line(t, "mcpd_server_inflight{server=\"a\"} 1");
	assert_line(t, "mcpd_server_clients{server=\"a\"} 3");
	assert_line(t, "mcpd_server_clients{server=\"b\"} 0");
	assert_line(t,
	    "mcpd_bytes_total{server=\"a\",direction=\"to_server\"} 1234");
	assert_line(t,
	    "mcpd_bytes_total{server=\"a\",direction=\"to_clients\"} 5678");
	assert_line(t, "mcpd_server_protocol_violations_total{server=\"a\"} 6");
	assert_line(t, "mcpd_server_dropped_lines_total{server=\"a\"} 8");
	assert_line(t, "mcpd_server_stderr_lines_total{server=\"a\"} 9");
	assert_line(t, "mcpd_server_on_demand_starts_total{server=\"a\"} 10");
	assert_line(t, "mcpd_server_idle_stops_total{server=\"a\"} 11");
	/* b has no such stats: 0. */
	assert_line(t, "mcpd_server_idle_stops_total{server=\"b\"} 0");
	assert_line(t, "mcpd_server_stderr_lines_total{server=\"b\"} 0");
	assert_line(t, "mcpd_server_dropped_lines_total{server=\"b\"} 0");

	assert_line(t, "# TYPE mcpd_requests_total counter");
	assert_line(t, "# TYPE mcpd_server_state gauge");
	assert_line(t, "# TYPE mcpd_server_inflight gauge");
	assert_line(t, "# TYPE mcpd_request_duration_seconds histogram");
	assert_line(t, "# TYPE mcpd_uptime_seconds gauge");
	free(t);
}
END_TEST

START_TEST(test_metrics_exposition)
{
	char	*t = render_two();
	size_t	 i;
	int	 n;
	char	 prefix[128];

	assert_exposition(t);
	/* One sample per server and outcome, state, direction. */
	ck_assert_int_eq(count_prefix(t, "mcpd_requests_total{"), 12);
	ck_assert_int_eq(count_prefix(t, "mcpd_server_state{"), 2 * NSTATES);
	ck_assert_int_eq(count_prefix(t, "mcpd_bytes_total{"), 4);
	for (i = 0; i < 6; i++) {
		snprintf(prefix, sizeof prefix,
		    "mcpd_requests_total{server=\"a\",outcome=\"%s\"} ",
		    outcomes[i]);
		ck_assert_int_eq(count_prefix(t, prefix), 1);
	}
	/* HELP comes right before TYPE, and both before the samples. */
	for (i = 0; i < NFAMILIES; i++) {
		const char *h, *ty, *s;

		snprintf(prefix, sizeof prefix, "\n# HELP %s ", families[i]);
		h = strstr(t, prefix);
		if (h == NULL && strncmp(t, prefix + 1, strlen(prefix) - 1) == 0)
			h = t - 1;
		ck_assert_msg(h != NULL, "no HELP for %s", families[i]);
		ty = strchr(h + 1, '\n');
		snprintf(prefix, sizeof prefix, "\n# TYPE %s ", families[i]);
		ck_assert_msg(ty != NULL && strncmp(ty, prefix,
		    strlen(prefix)) == 0, "TYPE does not follow HELP for %s",
		    families[i]);
		snprintf(prefix, sizeof prefix, "\n%s", families[i]);
		s = strstr(t, prefix);
		ck_assert_msg(s == NULL || s > ty, "%s: a sample before TYPE",
		    families[i]);
	}
	n = count_prefix(t, "mcpd_request_duration_seconds_bucket{server=\"a\"");
	ck_assert_int_eq(n, NBUCKETS);	/* 27 finite + +Inf */
	free(t);
}
END_TEST

START_TEST(test_metrics_histogram)
{
	static const unsigned zero[NBUCKETS];
	char	*t = render_two();

	assert_histogram(t, "b", zero, NBUCKETS, 0);
	assert_histogram(t, "a", a_buckets, NBUCKETS, -1);
	free(t);
}
END_TEST

/* _sum is latency_us_sum in seconds, to the microsecond. */
START_TEST(test_metrics_histogram_sum)
{
	char	*t = render_two();
	double	 v;
	int	 found;

	v = value_of(t, "mcpd_request_duration_seconds_sum{server=\"a\"}",
	    &found);
	ck_assert(found);
	ck_assert_msg(close_to(v, A_SUM_US / 1e6), "_sum is %.17g, expected "
	    "%.6f (latency_us_sum %.0f us)", v, A_SUM_US / 1e6, A_SUM_US);
	free(t);
}
END_TEST

/* A realistic _sum: about a day of latency, to the microsecond. */
START_TEST(test_metrics_sum_precision)
{
	char	*t;
	double	 v;
	int	 found;

	t = render_text("{\"servers\": [{\"name\": \"a\", \"state\": "
	    "\"ready\", \"stats\": {\"latency_us_sum\": 86400123456, "
	    "\"latency_us_log2\": [1, 1]}}]}");
	v = value_of(t, "mcpd_request_duration_seconds_sum{server=\"a\"}",
	    &found);
	ck_assert(found);
	ck_assert_msg(fabs(v - 86400.123456) < 1e-6, "_sum is %.17g, expected "
	    "86400.123456 (latency_us_sum 86400123456 us)", v);
	free(t);
}
END_TEST

START_TEST(test_metrics_one_hot)
{
	char	*t = render_two();

	assert_one_hot(t, "a", "ready");
	assert_one_hot(t, "b", "backoff");
	free(t);
}
END_TEST

START_TEST(test_metrics_every_state)
{
	char	 buf[256], *t;
	size_t	 i;

	for (i = 0; i < NSTATES; i++) {
		snprintf(buf, sizeof buf, "{\"servers\": [{\"name\": \"s\", "
		    "\"state\": \"%s\"}]}", states[i]);
		t = render_text(buf);
		assert_one_hot(t, "s", states[i]);
		free(t);
	}
}
END_TEST

START_TEST(test_metrics_missing_fields)
{
	char	*t;
	size_t	 i;
	char	 line[160];
	static const unsigned d_buckets[] = { 1, 2 };

	/* No daemon, no stats, no counters. */
	t = render_text("{\"servers\": [{\"name\": \"c\", \"state\": "
	    "\"stopped\"}, {\"name\": \"d\", \"state\": \"ready\", "
	    "\"restarts\": \"many\", \"clients\": null, \"stats\": "
	    "{\"requests\": {\"ok\": 3, \"error\": \"x\"}, "
	    "\"latency_us_log2\": [1, 2], \"stderr_lines\": true}}]}");
	assert_exposition(t);
	assert_line(t, "mcpd_connections 0");
	assert_line(t, "mcpd_connections_total 0");
	ck_assert_int_eq(count_prefix(t, "mcpd_uptime_seconds "), 1);
	{
		int	 found;
		double	 v = value_of(t, "mcpd_uptime_seconds", &found);

		ck_assert(found && v == 0);
	}
	for (i = 0; i < 6; i++) {
		snprintf(line, sizeof line,
		    "mcpd_requests_total{server=\"c\",outcome=\"%s\"} 0",
		    outcomes[i]);
		assert_line(t, line);
	}
	assert_line(t, "mcpd_requests_total{server=\"d\",outcome=\"ok\"} 3");
	assert_line(t, "mcpd_requests_total{server=\"d\",outcome=\"error\"} 0");
	assert_line(t,
	    "mcpd_requests_total{server=\"d\",outcome=\"timeout\"} 0");
	assert_line(t, "mcpd_server_restarts_total{server=\"c\"} 0");
	assert_line(t, "mcpd_server_restarts_total{server=\"d\"} 0");
	assert_line(t, "mcpd_server_clients{server=\"d\"} 0");
	assert_line(t, "mcpd_server_inflight{server=\"c\"} 0");
	assert_line(t,
	    "mcpd_bytes_total{server=\"c\",direction=\"to_server\"} 0");
	assert_line(t, "mcpd_server_stderr_lines_total{server=\"c\"} 0");
	assert_line(t, "mcpd_server_stderr_lines_total{server=\"d\"} 0");
	assert_line(t, "mcpd_server_protocol_violations_total{server=\"c\"} 0");
	assert_histogram(t, "c", NULL, 0, 0);
	assert_histogram(t, "d", d_buckets, 2, 0);
	assert_one_hot(t, "c", "stopped");
	assert_one_hot(t, "d", "ready");
	free(t);
}
END_TEST

/* Groups: clients and requests per group; none, no lines. */
START_TEST(test_metrics_groups)
{
	char	*t;

	t = render_text("{\"servers\": [], \"groups\": [{\"name\": \"dev\", "
	    "\"clients\": 2, \"requests\": 40}, {\"name\": \"all\"}]}");
	assert_exposition(t);
	assert_line(t, "mcpd_group_clients{group=\"dev\"} 2");
	assert_line(t, "mcpd_group_requests_total{group=\"dev\"} 40");
	assert_line(t, "mcpd_group_clients{group=\"all\"} 0");
	assert_line(t, "mcpd_group_requests_total{group=\"all\"} 0");
	assert_line(t, "# TYPE mcpd_group_requests_total counter");
	free(t);
	t = render_text("{\"servers\": [], \"groups\": []}");
	ck_assert_int_eq(count_prefix(t, "mcpd_group_"), 0);
	free(t);
}
END_TEST

/* Apps: calls and refusals per server and app, the label escaped. */
START_TEST(test_metrics_apps)
{
	char	*t;

	t = render_text("{\"servers\": [{\"name\": \"fs\", \"stats\": "
	    "{\"apps\": [{\"app\": \"cursor\", \"calls\": 7, \"refused\": 2}, "
	    "{\"app\": \"a\\\"b\\\\c\\nd\", \"calls\": 1, \"refused\": 0}, "
	    "{\"app\": \"other\", \"calls\": 3, \"refused\": 3}]}}]}");
	assert_exposition(t);
	assert_line(t, "# TYPE mcpd_app_calls_total counter");
	assert_line(t, "mcpd_app_calls_total{server=\"fs\",app=\"cursor\"} 7");
	assert_line(t, "mcpd_app_refused_total{server=\"fs\",app=\"cursor\"} 2");
	assert_line(t, "mcpd_app_calls_total{server=\"fs\","
	    "app=\"a\\\"b\\\\c\\nd\"} 1");
	assert_line(t, "mcpd_app_refused_total{server=\"fs\",app=\"other\"} 3");
	free(t);
	/* No app has called: no family. */
	t = render_text("{\"servers\": [{\"name\": \"fs\", \"stats\": "
	    "{\"apps\": []}}]}");
	ck_assert_int_eq(count_prefix(t, "mcpd_app_"), 0);
	free(t);
}
END_TEST

START_TEST(test_metrics_no_servers)
{
	const char	*inputs[] = { "{}", "{\"servers\": []}",
	    "{\"servers\": [], \"daemon\": {}}" };
	char		*t;
	size_t		 i;

	for (i = 0; i < nitems(inputs); i++) {
		t = render_text(inputs[i]);
		assert_exposition(t);
		assert_line(t, "mcpd_connections 0");
		ck_assert_int_eq(count_prefix(t, "mcpd_server_state{"), 0);
		ck_assert_int_eq(count_prefix(t, "mcpd_requests_total{"), 0);
		free(t);
	}
}
END_TEST

/* A server without a state: no state is 1, nothing crashes. */
START_TEST(test_metrics_no_state)
{
	char	*t;

	t = render_text("{\"servers\": [{\"name\": \"e\", \"stats\": {}}]}");
	assert_exposition(t);
	assert_one_hot(t, "e", NULL);
	assert_line(t, "mcpd_requests_total{server=\"e\",outcome=\"ok\"} 0");
	free(t);
}
END_TEST

/* A server without a name: nothing crashes. */
START_TEST(test_metrics_no_name)
{
	char	*t;

	t = render_text("{\"servers\": [{\"state\": \"ready\"}, "
	    "{\"name\": \"f\", \"state\": \"ready\"}]}");
	assert_exposition(t);
	assert_one_hot(t, "f", "ready");
	free(t);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("metrics");
	tc = tcase_create("render");
	tcase_add_test(tc, test_metrics_exact_lines);
	tcase_add_test(tc, test_metrics_exposition);
	tcase_add_test(tc, test_metrics_histogram);
	tcase_add_test(tc, test_metrics_histogram_sum);
	tcase_add_test(tc, test_metrics_sum_precision);
	tcase_add_test(tc, test_metrics_one_hot);
	tcase_add_test(tc, test_metrics_every_state);
	suite_add_tcase(s, tc);
	tc = tcase_create("missing");
	tcase_add_test(tc, test_metrics_missing_fields);
	tcase_add_test(tc, test_metrics_no_servers);
	tcase_add_test(tc, test_metrics_groups);
	tcase_add_test(tc, test_metrics_apps);
	tcase_add_test(tc, test_metrics_no_state);
	tcase_add_test(tc, test_metrics_no_name);
	suite_add_tcase(s, tc);
	return (s);
}
