/*
 * auditfmt.c -- the calls' records read back (auditfmt.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "auditfmt.h"
#include "esc.h"
#include "proto.h"
#include "sbuf.h"
#include "util.h"
#include "xmalloc.h"

const char *const auditfmt_fields[] = {
	MCPD_FIELD_SERVER, MCPD_FIELD_INSTANCE, MCPD_FIELD_METHOD,
	MCPD_FIELD_TOOL, MCPD_FIELD_PROMPT, MCPD_FIELD_URI,
	MCPD_FIELD_CLIENT_PID, MCPD_FIELD_CLIENT_UID, MCPD_FIELD_APP_PID,
	MCPD_FIELD_APP,
	MCPD_FIELD_APP_EXE, MCPD_FIELD_APP_UNIT, MCPD_FIELD_DURATION_US,
	MCPD_FIELD_OUTCOME, MCPD_FIELD_BYTES_IN, MCPD_FIELD_BYTES_OUT,
	MCPD_FIELD_ARGS_HMAC, MCPD_FIELD_ARGS, MCPD_FIELD_ARGS_TRUNCATED,
	NULL
};

/* The JSON line's names, and whether each is a number. */
static const struct {
	const char	*field;
	const char	*name;
	int		 number;
} auditfmt_names[] = {
	{ MCPD_FIELD_SERVER, "server", 0 },
	{ MCPD_FIELD_INSTANCE, "instance", 0 },
	{ MCPD_FIELD_METHOD, "method", 0 },
	{ MCPD_FIELD_TOOL, "tool", 0 },
	{ MCPD_FIELD_PROMPT, "prompt", 0 },
	{ MCPD_FIELD_URI, "uri", 0 },
	{ MCPD_FIELD_APP, "app", 0 },
	{ MCPD_FIELD_APP_EXE, "exe", 0 },
	{ MCPD_FIELD_APP_UNIT, "unit", 0 },
	{ MCPD_FIELD_CLIENT_PID, "pid", 1 },
	{ MCPD_FIELD_CLIENT_UID, "uid", 1 },
	{ MCPD_FIELD_APP_PID, "app_pid", 1 },
	{ MCPD_FIELD_DURATION_US, "duration_us", 1 },
	{ MCPD_FIELD_OUTCOME, "outcome", 0 },
	{ MCPD_FIELD_BYTES_IN, "bytes_in", 1 },
	{ MCPD_FIELD_BYTES_OUT, "bytes_out", 1 },
	{ MCPD_FIELD_ARGS_HMAC, "args_hmac", 0 },
	{ MCPD_FIELD_ARGS, "args", 0 },
};

static const char *
auditfmt_get(const cJSON *rec, const char *field)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(rec, field);

	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/* A whole decimal number, all of s; 0 or -1. */
static int
auditfmt_number(const char *s, uint64_t *out)
{
	char	*end;

	if (s == NULL || !isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	*out = strtoull(s, &end, 10);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

int
auditfmt_since(const char *text, uint64_t now_us, uint64_t *us)
{
	static const char *forms[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
	    "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d" };
	struct tm	 tm;
	uint64_t	 n, unit;
	size_t		 len = strlen(text), i;
	const char	*end;
	char		*num;
	time_t		 t;

	if (text[0] == '@')
		return (auditfmt_number(text + 1, &n) == -1 ||
		    n > UINT64_MAX / 1000000 ? -1 : (*us = n * 1000000, 0));
	if (len >= 2 && isdigit((unsigned char)text[0]) &&
	    strchr("smhd", text[len - 1]) != NULL) {
		switch (text[len - 1]) {
		case 's': unit = 1; break;
		case 'm': unit = 60; break;
		case 'h': unit = 3600; break;
		default: unit = 86400; break;
		}
		num = xstrndup(text, len - 1);
		i = auditfmt_number(num, &n) == -1 || n > UINT64_MAX /
		    1000000 / unit;
		free(num);
		if (i)
			return (-1);
		n *= unit * 1000000;
		*us = n > now_us ? 0 : now_us - n;
		return (0);
	}
	for (i = 0; i < nitems(forms); i++) {
		memset(&tm, 0, sizeof tm);
		if ((end = strptime(text, forms[i], &tm)) == NULL ||
		    *end != '\0')
			continue;
		tm.tm_isdst = -1;
		if ((t = mktime(&tm)) == (time_t)-1 || t < 0)
			return (-1);
		*us = (uint64_t)t * 1000000;
		return (0);
	}
	return (-1);
}

int
auditfmt_client_match(const cJSON *rec, const char *client)
{
	const char	*exe, *slash, *v;
	uint64_t	 n;

	if (auditfmt_number(client, &n) == 0)
		return (((v = auditfmt_get(rec, MCPD_FIELD_CLIENT_PID)) !=
		    NULL && strcmp(v, client) == 0) ||
		    ((v = auditfmt_get(rec, MCPD_FIELD_APP_PID)) != NULL &&
		    strcmp(v, client) == 0) ||
		    ((v = auditfmt_get(rec, MCPD_FIELD_CLIENT_UID)) != NULL &&
		    strcmp(v, client) == 0));
	if ((v = auditfmt_get(rec, MCPD_FIELD_APP)) != NULL &&
	    strcmp(v, client) == 0)
		return (1);
	if ((v = auditfmt_get(rec, MCPD_FIELD_APP_UNIT)) != NULL &&
	    strcmp(v, client) == 0)
		return (1);
	if ((exe = auditfmt_get(rec, MCPD_FIELD_APP_EXE)) == NULL)
		return (0);
	if (strcmp(exe, client) == 0)
		return (1);
	return ((slash = strrchr(exe, '/')) != NULL &&
	    strcmp(slash + 1, client) == 0);
}

const char *
auditfmt_header(void)
{
	return ("TIME                APP              PID     SERVER        "
	    "   TOOL/PROMPT/URI                  DURATION  OUTCOME       "
	    "BYTES IN/OUT");
}

/* A cell: escaped, cut at width (then ending with "~"). */
static void
auditfmt_cell(struct sbuf *sb, const char *s, int width, int last)
{
	char	*e = esc_text(s != NULL ? s : "-", strlen(s != NULL ? s : "-"),
	    0);
	size_t	 len = strlen(e);

	if (!last && len > (size_t)width) {
		e[width - 1] = '~';
		e[width] = '\0';
		len = (size_t)width;
	}
	sbuf_printf(sb, "%s", e);
	if (!last)
		sbuf_printf(sb, "%*s", (int)((size_t)width - len + 1), "");
	free(e);
}

char *
auditfmt_row(const cJSON *rec, uint64_t realtime_us)
{
	struct sbuf	 sb = { NULL, 0, 0, 0 };
	struct tm	 tm;
	time_t		 t = (time_t)(realtime_us / 1000000);
	const char	*what, *outcome;
	char		 when[32], dur[32], bytes[48];
	uint64_t	 n, in, out;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(when, sizeof when, "@%llu", (unsigned long long)t);
	if ((what = auditfmt_get(rec, MCPD_FIELD_TOOL)) == NULL &&
	    (what = auditfmt_get(rec, MCPD_FIELD_PROMPT)) == NULL)
		what = auditfmt_get(rec, MCPD_FIELD_URI);
	if (auditfmt_number(auditfmt_get(rec, MCPD_FIELD_DURATION_US),
	    &n) == 0)
		snprintf(dur, sizeof dur, "%.1fms", (double)n / 1000.0);
	else
		snprintf(dur, sizeof dur, "-");
	if (auditfmt_number(auditfmt_get(rec, MCPD_FIELD_BYTES_IN), &in) ==
	    0 && auditfmt_number(auditfmt_get(rec, MCPD_FIELD_BYTES_OUT),
	    &out) == 0)
		snprintf(bytes, sizeof bytes, "%" PRIu64 "/%" PRIu64, in, out);
	else
		snprintf(bytes, sizeof bytes, "-");
	outcome = auditfmt_get(rec, MCPD_FIELD_OUTCOME);
	auditfmt_cell(&sb, when, 19, 0);
	auditfmt_cell(&sb, auditfmt_get(rec, MCPD_FIELD_APP), 16, 0);
	auditfmt_cell(&sb, auditfmt_get(rec, MCPD_FIELD_CLIENT_PID), 7, 0);
	auditfmt_cell(&sb, auditfmt_get(rec, MCPD_FIELD_INSTANCE) != NULL ?
	    auditfmt_get(rec, MCPD_FIELD_INSTANCE) :
	    auditfmt_get(rec, MCPD_FIELD_SERVER), 16, 0);
	auditfmt_cell(&sb, what, 32, 0);
	auditfmt_cell(&sb, dur, 9, 0);
	auditfmt_cell(&sb, outcome, 13, 0);
	auditfmt_cell(&sb, bytes, 0, 1);
	return (sb.p);
}

cJSON *
auditfmt_json(const cJSON *rec, uint64_t realtime_us)
{
	cJSON		*o = cJSON_CreateObject();
	const char	*v;
	uint64_t	 n;
	size_t		 i;

	cJSON_AddNumberToObject(o, "time_us", (double)realtime_us);
	for (i = 0; i < nitems(auditfmt_names); i++) {
		if ((v = auditfmt_get(rec, auditfmt_names[i].field)) == NULL)
			continue;
		if (auditfmt_names[i].number && auditfmt_number(v, &n) == 0)
			cJSON_AddNumberToObject(o, auditfmt_names[i].name,
			    (double)n);
		else
			cJSON_AddStringToObject(o, auditfmt_names[i].name, v);
	}
	if (auditfmt_get(rec, MCPD_FIELD_ARGS_TRUNCATED) != NULL)
		cJSON_AddTrueToObject(o, "args_truncated");
	return (o);
}
