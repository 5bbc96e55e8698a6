/*
 * conf_setting.c -- the settings of the configuration: one table
 * (conf_setting_table) names each server setting, its kind, its range,
 * where it lives in struct conf_settings and in struct conf_server, and
 * what a change of it means on reload; a second table the daemon-wide
 * keys of the top-level "mcpd" object.  Parsing, the defaults, the copy
 * into a server and the comparison of two servers all walk the table,
 * so that a new setting is one row.
 *
 * The top-level "mcpd" object is read here too: its daemon-wide keys,
 * and the server settings it gives every server (a server's own
 * overrides them; conf.c).
 */
#include "config.h"

#include <sys/types.h>

#include <grp.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_http.h"
#include "conf_int.h"
#include "util.h"
#include "xmalloc.h"

#define CONF_SOFT_UNSET		SIZE_MAX	/* until the "mcpd" object is read */

#ifndef MIN
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#endif

enum conf_kind {
	CONF_KIND_U32,
	CONF_KIND_SIZE,
	CONF_KIND_FRACTION,
	CONF_KIND_RESTART,
	CONF_KIND_BOOL,
	CONF_KIND_CAPS,
	CONF_KIND_U64,
	CONF_KIND_START,
	CONF_KIND_PROTOCOL,
	CONF_KIND_PIN,
	CONF_KIND_AUDIT,
	CONF_KIND_IDLE,
};

/* Index into conf_setting_table; bit (1 << index) in a "set" mask. */
enum conf_setting_id {
	CONF_S_RESTART,
	CONF_S_BACKOFF_MIN_MS,
	CONF_S_BACKOFF_MAX_MS,
	CONF_S_BACKOFF_JITTER,
	CONF_S_BACKOFF_RESET_MS,
	CONF_S_MAX_RESTARTS,
	CONF_S_RESTART_WINDOW_S,
	CONF_S_INIT_TIMEOUT_MS,
	CONF_S_FIRST_START_TIMEOUT_MS,
	CONF_S_REQUEST_TIMEOUT_MS,
	CONF_S_STOP_TIMEOUT_MS,
	CONF_S_HEALTH_INTERVAL_MS,
	CONF_S_HEALTH_TIMEOUT_MS,
	CONF_S_HEALTH_MAX_TIMEOUTS,
	CONF_S_MAX_MESSAGE_BYTES,
	CONF_S_DISABLED,
	CONF_S_CLIENT_CAPABILITIES,
	CONF_S_MEMORY_MAX,
	CONF_S_PIDS_MAX,
	CONF_S_CPU_WEIGHT,
	CONF_S_CONNECT_TIMEOUT_MS,
	CONF_S_START,
	CONF_S_IDLE_STOP_S,
	CONF_S_IDLE,
	CONF_S_PROTOCOL,
	CONF_S_PIN,
	CONF_S_AUDIT,
	CONF_S_COUNT
};
#define CONF_BIT(id)	(1U << (id))

struct conf_setting {
	const char	*name;
	enum conf_kind	 kind;
	uint64_t	 min;
	uint64_t	 max;
	size_t		 offset;	/* in struct conf_settings */
	size_t		 server_offset;	/* in struct conf_server */
	size_t		 size;
	enum conf_setting_group group;	/* what a change means */
};

#define CONF_SETTING(id, name, kind, min, max, field, group) \
	[id] = { name, kind, min, max, offsetof(struct conf_settings, field), \
	    offsetof(struct conf_server, field), \
	    sizeof(((struct conf_settings *)0)->field), group }

static const struct conf_setting conf_setting_table[CONF_S_COUNT] = {
	CONF_SETTING(CONF_S_RESTART, "restart", CONF_KIND_RESTART,
	    0, 0, restart, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_BACKOFF_MIN_MS, "backoff_min_ms", CONF_KIND_U32,
	    1, UINT32_MAX, backoff.min_ms, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_BACKOFF_MAX_MS, "backoff_max_ms", CONF_KIND_U32,
	    1, UINT32_MAX, backoff.max_ms, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_BACKOFF_JITTER, "backoff_jitter",
	    CONF_KIND_FRACTION, 0, 1, backoff.jitter, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_BACKOFF_RESET_MS, "backoff_reset_ms",
	    CONF_KIND_U32, 0, UINT32_MAX, backoff.reset_ms, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_MAX_RESTARTS, "max_restarts", CONF_KIND_U32,
	    0, CONF_MAX_MAX_RESTARTS, backoff.max_restarts, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_RESTART_WINDOW_S, "restart_window_s",
	    CONF_KIND_U32, 0, UINT32_MAX, backoff.restart_window_s,
	    CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_INIT_TIMEOUT_MS, "init_timeout_ms", CONF_KIND_U32,
	    1, UINT32_MAX, init_timeout_ms, CONF_SETTING_RUNS),
	/* It applies from the next start: nothing restarts for it. */
	CONF_SETTING(CONF_S_FIRST_START_TIMEOUT_MS, "first_start_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, first_start_timeout_ms,
	    CONF_SETTING_WAKES),
	CONF_SETTING(CONF_S_REQUEST_TIMEOUT_MS, "request_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, request_timeout_ms,
	    CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_STOP_TIMEOUT_MS, "stop_timeout_ms", CONF_KIND_U32,
	    1, UINT32_MAX, stop_timeout_ms, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_HEALTH_INTERVAL_MS, "health_interval_ms",
	    CONF_KIND_U32, 0, UINT32_MAX, health_interval_ms,
	    CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_HEALTH_TIMEOUT_MS, "health_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, health_timeout_ms,
	    CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_HEALTH_MAX_TIMEOUTS, "health_max_timeouts",
	    CONF_KIND_U32, 0, UINT32_MAX, health_max_timeouts,
	    CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_MAX_MESSAGE_BYTES, "max_message_bytes",
	    CONF_KIND_SIZE, CONF_MIN_MAX_MESSAGE_BYTES,
	    CONF_MAX_MAX_MESSAGE_BYTES, max_message_bytes, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_DISABLED, "disabled", CONF_KIND_BOOL,
	    0, 1, disabled, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_CLIENT_CAPABILITIES, "client_capabilities",
	    CONF_KIND_CAPS, 0, 0, client_caps, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_MEMORY_MAX, "memory_max", CONF_KIND_U64,
	    0, CONF_MAX_MEMORY_MAX, memory_max, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_PIDS_MAX, "pids_max", CONF_KIND_U32,
	    0, CONF_MAX_PIDS_MAX, pids_max, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_CPU_WEIGHT, "cpu_weight", CONF_KIND_U32,
	    0, CONF_MAX_CPU_WEIGHT, cpu_weight, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_CONNECT_TIMEOUT_MS, "connect_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, connect_timeout_ms,
	    CONF_SETTING_REMOTE),
	CONF_SETTING(CONF_S_START, "start", CONF_KIND_START, 0, 0, start,
	    CONF_SETTING_WAKES),
	CONF_SETTING(CONF_S_IDLE_STOP_S, "idle_stop_s", CONF_KIND_U32,
	    0, CONF_MAX_IDLE_STOP_S, idle_stop_s, CONF_SETTING_WAKES),
	CONF_SETTING(CONF_S_IDLE, "idle", CONF_KIND_IDLE, 0, 0, idle,
	    CONF_SETTING_WAKES),
	CONF_SETTING(CONF_S_PROTOCOL, "protocol", CONF_KIND_PROTOCOL, 0, 0,
	    protocol, CONF_SETTING_RUNS),
	CONF_SETTING(CONF_S_PIN, "pin", CONF_KIND_PIN, 0, 0, pin,
	    CONF_SETTING_RUNS),
	/* Read at each call: a change applies at once, nothing restarts. */
	CONF_SETTING(CONF_S_AUDIT, "audit", CONF_KIND_AUDIT, 0, 0, audit,
	    CONF_SETTING_WAKES),
};

static const char *conf_cap_names[] = { "sampling", "elicitation", "roots" };

/* Daemon-wide settings, only in the top-level "mcpd" object. */
struct conf_daemon_setting {
	const char	*name;
	enum conf_kind	 kind;
	uint64_t	 min;
	uint64_t	 max;
	size_t		 offset;
};

static const struct conf_daemon_setting conf_daemon_table[] = {
	{ "client_output_hard_bytes", CONF_KIND_SIZE, 65536,
	  CONF_MAX_MAX_MESSAGE_BYTES * 4ULL,
	  offsetof(struct conf, client_output_hard_bytes) },
	{ "client_output_soft_bytes", CONF_KIND_SIZE, 0,
	  CONF_MAX_MAX_MESSAGE_BYTES * 4ULL,
	  offsetof(struct conf, client_output_soft_bytes) },
	{ "client_output_soft_s", CONF_KIND_U32, 0, 86400,
	  offsetof(struct conf, client_output_soft_s) },
	{ "client_line_timeout_ms", CONF_KIND_U32, 0,
	  CONF_MAX_CLIENT_LINE_TIMEOUT_MS,
	  offsetof(struct conf, client_line_timeout_ms) },
	{ "input_timeout_ms", CONF_KIND_U32, 1000,
	  CONF_MAX_INPUT_TIMEOUT_MS,
	  offsetof(struct conf, input_timeout_ms) },
	{ "max_connections_per_uid", CONF_KIND_U32, 0,
	  CONF_MAX_MAX_CONNECTIONS_PER_UID,
	  offsetof(struct conf, max_connections_per_uid) },
	{ "client_max_inflight", CONF_KIND_U32, 1, UINT32_MAX,
	  offsetof(struct conf, client_max_inflight) },
	{ "client_max_held_bytes", CONF_KIND_SIZE, 0,
	  CONF_MAX_MAX_MESSAGE_BYTES * 4ULL,
	  offsetof(struct conf, client_max_held_bytes) },
	{ "client_max_group_bytes", CONF_KIND_SIZE,
	  CONF_MIN_CLIENT_MAX_GROUP_BYTES, CONF_MAX_MAX_MESSAGE_BYTES * 4ULL,
	  offsetof(struct conf, client_max_group_bytes) },
	{ "client_max_subscriptions", CONF_KIND_U32, 0, UINT32_MAX,
	  offsetof(struct conf, client_max_subscriptions) },
	{ "client_max_tasks", CONF_KIND_U32, 1, 1000000,
	  offsetof(struct conf, client_max_tasks) },
	{ "max_tasks_per_server", CONF_KIND_U32, 1, 1000000,
	  offsetof(struct conf, max_tasks_per_server) },
	{ "memory_budget_bytes", CONF_KIND_SIZE, CONF_MIN_MEMORY_BUDGET_BYTES,
	  SIZE_MAX, offsetof(struct conf, memory_budget_bytes) },
};

static const char *conf_restart_names[] = {
	[CONF_RESTART_ALWAYS] = "always",
	[CONF_RESTART_ON_FAILURE] = "on-failure",
	[CONF_RESTART_NEVER] = "never",
};

static const char *conf_start_names[] = {
	[CONF_START_ALWAYS] = "always",
	[CONF_START_ON_DEMAND] = "on-demand",
};

const char *
conf_restart_name(enum conf_restart restart)
{
	if ((size_t)restart >= sizeof conf_restart_names /
	    sizeof conf_restart_names[0])
		return ("unknown");
	return (conf_restart_names[restart]);
}

static const char *conf_idle_names[] = {
	[CONF_IDLE_STOP] = "stop",
	[CONF_IDLE_FREEZE] = "freeze",
};

const char *
conf_idle_name(enum conf_idle idle)
{
	if ((size_t)idle >= nitems(conf_idle_names))
		return ("unknown");
	return (conf_idle_names[idle]);
}

static const char *conf_protocol_names[] = {
	[CONF_PROTOCOL_AUTO] = "auto",
	[CONF_PROTOCOL_2025] = "2025",
	[CONF_PROTOCOL_2026] = "2026-07-28",
};

const char *
conf_protocol_name(enum conf_protocol protocol)
{
	if ((size_t)protocol >= nitems(conf_protocol_names))
		return ("unknown");
	return (conf_protocol_names[protocol]);
}

static const char *conf_pin_names[] = {
	[CONF_PIN_BLOCK] = "block",
	[CONF_PIN_WARN] = "warn",
	[CONF_PIN_OFF] = "off",
};

const char *
conf_pin_name(enum conf_pin pin)
{
	if ((size_t)pin >= nitems(conf_pin_names))
		return ("unknown");
	return (conf_pin_names[pin]);
}

static const char *conf_audit_names[] = {
	[CONF_AUDIT_OFF] = "off",
	[CONF_AUDIT_CALLS] = "calls",
	[CONF_AUDIT_FULL] = "full",
};

const char *
conf_audit_name(enum conf_audit audit)
{
	if ((size_t)audit >= nitems(conf_audit_names))
		return ("unknown");
	return (conf_audit_names[audit]);
}

const char *
conf_start_name(enum conf_start start)
{
	if ((size_t)start >= nitems(conf_start_names))
		return ("unknown");
	return (conf_start_names[start]);
}

/* A whole JSON number in [min, max]. */
static int
conf_integer(const cJSON *item, uint64_t min, uint64_t max, uint64_t *out)
{
	double	 d;

	if (!cJSON_IsNumber(item))
		return (0);
	d = item->valuedouble;
	if (!(d >= (double)min && d <= (double)max))
		return (0);
	if (d != (double)(uint64_t)d)
		return (0);
	*out = (uint64_t)d;
	return (1);
}

static const struct conf_setting *
conf_find_setting(const char *key)
{
	size_t	 i;

	for (i = 0; i < CONF_S_COUNT; i++) {
		if (strcmp(conf_setting_table[i].name, key) == 0)
			return (&conf_setting_table[i]);
	}
	return (NULL);
}

/* An array naming capabilities: ["sampling", "elicitation", "roots"]. */
static int
conf_parse_caps(struct conf_parse *cp, const char *path, const cJSON *item,
    unsigned int *out)
{
	const cJSON	*e;
	unsigned int	 caps = 0;
	size_t		 i, index = 0;
	int		 found, rc = 0;

	if (!cJSON_IsArray(item)) {
		conf_error(cp, path, "expected an array of \"sampling\", "
		    "\"elicitation\" or \"roots\"");
		return (-1);
	}
	cJSON_ArrayForEach(e, item) {
		found = 0;
		for (i = 0; cJSON_IsString(e) && i < sizeof conf_cap_names /
		    sizeof conf_cap_names[0]; i++) {
			if (strcmp(e->valuestring, conf_cap_names[i]) == 0) {
				caps |= 1U << i;
				found = 1;
			}
		}
		if (!found) {
			conf_error(cp, path, "element %zu: expected "
			    "\"sampling\", \"elicitation\" or \"roots\"", index);
			rc = -1;
		}
		index++;
	}
	if (rc == 0)
		*out = caps;
	return (rc);
}

/* Store one setting into s; returns 0 or -1 (reported, s unchanged). */
/* A setting that is one of names' words: its index in *out. */
static int
conf_setting_word(struct conf_parse *cp, const char *path, const cJSON *item,
    const char *const *names, size_t n, int *out, const char *expected)
{
	size_t	 i;

	if (cJSON_IsString(item)) {
		for (i = 0; i < n; i++) {
			if (strcmp(item->valuestring, names[i]) == 0) {
				*out = (int)i;
				return (0);
			}
		}
	}
	conf_error(cp, path, "expected %s", expected);
	return (-1);
}

static int
conf_parse_setting(struct conf_parse *cp, const char *path,
    const struct conf_setting *setting, const cJSON *item,
    struct conf_settings *s)
{
	char		*field = (char *)s + setting->offset;
	uint64_t	 value;
	double		 d;

	switch (setting->kind) {
	case CONF_KIND_U32:
	case CONF_KIND_SIZE:
	case CONF_KIND_U64:
		if (!conf_integer(item, setting->min, setting->max, &value)) {
			conf_error(cp, path, "expected an integer between %"
			    PRIu64 " and %" PRIu64, setting->min,
			    setting->max);
			return (-1);
		}
		if (setting->kind == CONF_KIND_U32)
			*(uint32_t *)field = (uint32_t)value;
		else if (setting->kind == CONF_KIND_U64)
			*(uint64_t *)field = value;
		else
			*(size_t *)field = (size_t)value;
		return (0);
	case CONF_KIND_FRACTION:
		if (cJSON_IsNumber(item)) {
			d = item->valuedouble;
			if (d >= (double)setting->min &&
			    d <= (double)setting->max) {
				*(double *)field = d;
				return (0);
			}
		}
		conf_error(cp, path, "expected a number between %" PRIu64
		    " and %" PRIu64, setting->min, setting->max);
		return (-1);
	case CONF_KIND_RESTART:
		return (conf_setting_word(cp, path, item, conf_restart_names,
		    nitems(conf_restart_names), (int *)field,
		    "\"always\", \"on-failure\" or \"never\""));
	case CONF_KIND_START:
		return (conf_setting_word(cp, path, item, conf_start_names,
		    nitems(conf_start_names), (int *)field,
		    "\"always\" or \"on-demand\""));
	case CONF_KIND_IDLE:
		return (conf_setting_word(cp, path, item, conf_idle_names,
		    nitems(conf_idle_names), (int *)field,
		    "\"stop\" or \"freeze\""));
	case CONF_KIND_PROTOCOL:
		return (conf_setting_word(cp, path, item, conf_protocol_names,
		    nitems(conf_protocol_names), (int *)field,
		    "\"auto\", \"2025\" or \"2026-07-28\""));
	case CONF_KIND_PIN:
		return (conf_setting_word(cp, path, item, conf_pin_names,
		    nitems(conf_pin_names), (int *)field,
		    "\"block\", \"warn\" or \"off\""));
	case CONF_KIND_AUDIT:
		return (conf_setting_word(cp, path, item, conf_audit_names,
		    nitems(conf_audit_names), (int *)field,
		    "\"off\", \"calls\" or \"full\""));
	case CONF_KIND_BOOL:
		if (!cJSON_IsBool(item)) {
			conf_error(cp, path, "expected true or false");
			return (-1);
		}
		*(int *)field = cJSON_IsTrue(item) ? 1 : 0;
		return (0);
	case CONF_KIND_CAPS:
		return (conf_parse_caps(cp, path, item, (unsigned int *)field));
	}
	return (-1);
}

/* Cross-checks, only for settings given at this level (set mask). */
void
conf_check_settings(struct conf_parse *cp, const char *path,
    const struct conf_settings *s, uint32_t set)
{
	const struct backoff_policy	*bp = &s->backoff;

	if ((set & (CONF_BIT(CONF_S_BACKOFF_MIN_MS) |
	    CONF_BIT(CONF_S_BACKOFF_MAX_MS))) && bp->min_ms > bp->max_ms) {
		conf_error(cp, path, "backoff_min_ms (%" PRIu32 ") is greater "
		    "than backoff_max_ms (%" PRIu32 ")", bp->min_ms,
		    bp->max_ms);
	}
	if ((set & (CONF_BIT(CONF_S_MAX_RESTARTS) |
	    CONF_BIT(CONF_S_RESTART_WINDOW_S))) && bp->max_restarts > 0 &&
	    bp->restart_window_s == 0) {
		conf_error(cp, path, "max_restarts (%" PRIu32 ") needs "
		    "restart_window_s of at least 1", bp->max_restarts);
	}
}

/* A daemon-wide key of the "mcpd" object?  Returns 1 if it was one. */
static int
conf_parse_daemon_setting(struct conf_parse *cp, const char *path,
    const cJSON *item)
{
	const struct conf_daemon_setting *d;
	struct group	*gr;
	uint64_t	 value;
	size_t		 i;
	char		*field;

	if (strcmp(item->string, "socket_group") == 0) {
		if (!cJSON_IsString(item) || *item->valuestring == '\0') {
			conf_error(cp, path, "expected a group name");
			return (1);
		}
		/* The value is not echoed: diagnostics show paths only. */
		if ((gr = getgrnam(item->valuestring)) == NULL) {
			conf_error(cp, path, "no such group on this system");
			return (1);
		}
		free(cp->conf->socket_group);
		cp->conf->socket_group = xstrdup(item->valuestring);
		cp->conf->socket_gid = gr->gr_gid;
		return (1);
	}
	if (strcmp(item->string, "http") == 0) {
		conf_http_free(cp->conf->http);
		cp->conf->http = conf_http_parse(cp->diags, path, item);
		return (1);
	}
	if (strcmp(item->string, "cgroup") == 0) {
		if (!cJSON_IsString(item) || *item->valuestring != '/' ||
		    strchr(item->valuestring, '\n') != NULL) {
			conf_error(cp, path, "expected the absolute path of a "
			    "cgroup v2 directory");
			return (1);
		}
		free(cp->conf->cgroup);
		cp->conf->cgroup = xstrdup(item->valuestring);
		return (1);
	}

	for (i = 0; i < nitems(conf_daemon_table);
	    i++) {
		d = &conf_daemon_table[i];
		if (strcmp(d->name, item->string) != 0)
			continue;
		if (!conf_integer(item, d->min, d->max, &value)) {
			conf_error(cp, path, "expected an integer between %"
			    PRIu64 " and %" PRIu64, d->min, d->max);
			return (1);
		}
		field = (char *)cp->conf + d->offset;
		if (d->kind == CONF_KIND_U32)
			*(uint32_t *)field = (uint32_t)value;
		else
			*(size_t *)field = (size_t)value;
		return (1);
	}
	return (0);
}

void
conf_parse_defaults(struct conf_parse *cp, const cJSON *object)
{
	const cJSON			*item;
	size_t				*first, i;
	uint32_t			 set = 0;
	char				*path;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, "mcpd", "expected an object");
		return;
	}
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&path, "mcpd.%s", item->string);
		if (first[i] != i)
			conf_error(cp, path, "duplicate key");
		else if (conf_parse_daemon_setting(cp, path, item))
			;
		else if (conf_sandbox_default_key(cp, path, item))
			;
		else if (!conf_setting_key(cp, path, item, &cp->defaults,
		    &set))
			conf_warn(cp, path, "unknown key, ignored");
		free(path);
	}
	free(first);
	conf_check_settings(cp, "mcpd", &cp->defaults, set);
}

/* Daemon-wide settings that depend on each other. */
void
conf_check_daemon(struct conf_parse *cp)
{
	struct conf	*conf = cp->conf;

	/* The default soft limit follows a lowered hard one. */
	if (conf->client_output_soft_bytes == CONF_SOFT_UNSET)
		conf->client_output_soft_bytes = MIN(
		    CONF_DEFAULT_CLIENT_OUTPUT_SOFT_BYTES,
		    conf->client_output_hard_bytes / 2);
	else if (conf->client_output_soft_bytes >
	    conf->client_output_hard_bytes)
		conf_error(cp, "mcpd.client_output_soft_bytes", "%zu is more "
		    "than client_output_hard_bytes (%zu)",
		    conf->client_output_soft_bytes,
		    conf->client_output_hard_bytes);
}

/*
 * A server setting (conf_setting_table): parsed into s, its bit set in
 * *set if it was valid.  0 if key is no such setting.
 */
const char *
conf_setting_name(size_t i)
{
	return (i < CONF_S_COUNT ? conf_setting_table[i].name : NULL);
}

int
conf_setting_key(struct conf_parse *cp, const char *path, const cJSON *item,
    struct conf_settings *s, uint32_t *set)
{
	const struct conf_setting	*setting;

	if ((setting = conf_find_setting(item->string)) == NULL)
		return (0);
	if (conf_parse_setting(cp, path, setting, item, s) == 0)
		*set |= CONF_BIT(setting - conf_setting_table);
	return (1);
}

/* The defaults, before the "mcpd" object; cp->conf made. */
void
conf_setting_defaults(struct conf_parse *cp)
{
	cp->defaults.restart = CONF_RESTART_ALWAYS;
	cp->defaults.backoff.min_ms = CONF_DEFAULT_BACKOFF_MIN_MS;
	cp->defaults.backoff.max_ms = CONF_DEFAULT_BACKOFF_MAX_MS;
	cp->defaults.backoff.jitter = CONF_DEFAULT_BACKOFF_JITTER;
	cp->defaults.backoff.reset_ms = CONF_DEFAULT_BACKOFF_RESET_MS;
	cp->defaults.backoff.max_restarts = CONF_DEFAULT_MAX_RESTARTS;
	cp->defaults.backoff.restart_window_s = CONF_DEFAULT_RESTART_WINDOW_S;
	cp->defaults.init_timeout_ms = CONF_DEFAULT_INIT_TIMEOUT_MS;
	cp->defaults.first_start_timeout_ms =
	    CONF_DEFAULT_FIRST_START_TIMEOUT_MS;
	cp->defaults.request_timeout_ms = CONF_DEFAULT_REQUEST_TIMEOUT_MS;
	cp->defaults.stop_timeout_ms = CONF_DEFAULT_STOP_TIMEOUT_MS;
	cp->defaults.health_interval_ms = CONF_DEFAULT_HEALTH_INTERVAL_MS;
	cp->defaults.health_timeout_ms = CONF_DEFAULT_HEALTH_TIMEOUT_MS;
	cp->defaults.health_max_timeouts = CONF_DEFAULT_HEALTH_MAX_TIMEOUTS;
	cp->defaults.max_message_bytes = CONF_DEFAULT_MAX_MESSAGE_BYTES;
	cp->defaults.disabled = 0;
	cp->defaults.client_caps = CONF_CAP_ALL;
	cp->defaults.connect_timeout_ms = CONF_DEFAULT_CONNECT_TIMEOUT_MS;
	cp->defaults.start = CONF_START_ALWAYS;
	cp->defaults.idle_stop_s = CONF_DEFAULT_IDLE_STOP_S;
	cp->defaults.idle = CONF_IDLE_STOP;
	cp->defaults.protocol = CONF_PROTOCOL_AUTO;
	cp->defaults.pin = CONF_PIN_BLOCK;
	cp->defaults.audit = CONF_AUDIT_OFF;
	cp->conf = xcalloc(1, sizeof *cp->conf);
	cp->conf->client_output_hard_bytes =
	    CONF_DEFAULT_CLIENT_OUTPUT_HARD_BYTES;
	cp->conf->client_output_soft_bytes = CONF_SOFT_UNSET;
	cp->conf->client_output_soft_s = CONF_DEFAULT_CLIENT_OUTPUT_SOFT_S;
	cp->conf->client_line_timeout_ms = CONF_DEFAULT_CLIENT_LINE_TIMEOUT_MS;
	cp->conf->input_timeout_ms = CONF_DEFAULT_INPUT_TIMEOUT_MS;
	cp->conf->max_connections_per_uid =
	    CONF_DEFAULT_MAX_CONNECTIONS_PER_UID;
	cp->conf->client_max_inflight = CONF_DEFAULT_CLIENT_MAX_INFLIGHT;
	cp->conf->client_max_held_bytes = CONF_DEFAULT_CLIENT_MAX_HELD_BYTES;
	cp->conf->client_max_group_bytes = CONF_DEFAULT_CLIENT_MAX_GROUP_BYTES;
	cp->conf->client_max_subscriptions =
	    CONF_DEFAULT_CLIENT_MAX_SUBSCRIPTIONS;
	cp->conf->client_max_tasks = CONF_DEFAULT_CLIENT_MAX_TASKS;
	cp->conf->max_tasks_per_server = CONF_DEFAULT_MAX_TASKS_PER_SERVER;
	cp->conf->memory_budget_bytes = CONF_DEFAULT_MEMORY_BUDGET_BYTES;
}

void
conf_settings_to_server(struct conf_server *cs, const struct conf_settings *s)
{
	const struct conf_setting	*setting;
	size_t				 i;

	for (i = 0; i < nitems(conf_setting_table); i++) {
		setting = &conf_setting_table[i];
		memcpy((char *)cs + setting->server_offset,
		    (const char *)s + setting->offset, setting->size);
	}
}

/* Equal as numbers: a fraction is a double, -0 the same as 0. */
static int
conf_setting_same(const struct conf_setting *setting, const char *a,
    const char *b)
{
	if (setting->kind == CONF_KIND_FRACTION)
		return (*(const double *)a == *(const double *)b);
	return (memcmp(a, b, setting->size) == 0);
}

int
conf_settings_same(const struct conf_server *a, const struct conf_server *b,
    enum conf_setting_group group)
{
	const struct conf_setting	*setting;
	size_t				 i;

	for (i = 0; i < nitems(conf_setting_table); i++) {
		setting = &conf_setting_table[i];
		if (setting->group == group && !conf_setting_same(setting,
		    (const char *)a + setting->server_offset,
		    (const char *)b + setting->server_offset))
			return (0);
	}
	return (1);
}
