/*
 * conf.c -- parse and validate mcpd's JSON configuration.
 *
 * conf_parse walks the cJSON tree once and records every problem in
 * struct conf_diags as "PATH: message", so that a user sees all of them in
 * one go; a struct conf is returned only when there was no error.  Nothing
 * here logs or does I/O: conf_file.c reads the file and decides whether
 * to trust it; conf_remote.c takes the keys of remote servers (url).
 *
 * Invariants:
 * - A diagnostic names JSON paths, keys and variable names, never a string
 *   value from the file or the environment: env values are often secrets.
 * - Every conf_server in a returned conf is complete: argv, env and
 *   headers are NULL-terminated arrays (env and headers possibly empty),
 *   settings are in range and consistent with each other; a remote one
 *   has argv {"mcpd-remote", NULL} and a valid url.
 * - The top-level "mcpd" object is applied before any server, wherever it
 *   appears in the file; a per-server setting overrides it.
 * - No string or key of an accepted file held "\u0000" (cJSON would have
 *   cut it short), and argv_display and cwd_display keep, beside argv and
 *   cwd, the text as written, so that nothing shown needs an expanded
 *   value.
 */
#include "config.h"

#include <sys/types.h>

#include <grp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "dotenv.h"
#include "filter.h"
#include "util.h"
#include "xmalloc.h"

#define CONF_MEMORY_FILE	"<config>"
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
	CONF_S_COUNT
};
#define CONF_BIT(id)	(1U << (id))

struct conf_setting {
	const char	*name;
	enum conf_kind	 kind;
	uint64_t	 min;
	uint64_t	 max;
	size_t		 offset;
};

#define CONF_SETTING(id, name, kind, min, max, field) \
	[id] = { name, kind, min, max, offsetof(struct conf_settings, field) }

static const struct conf_setting conf_setting_table[CONF_S_COUNT] = {
	CONF_SETTING(CONF_S_RESTART, "restart", CONF_KIND_RESTART,
	    0, 0, restart),
	CONF_SETTING(CONF_S_BACKOFF_MIN_MS, "backoff_min_ms", CONF_KIND_U32,
	    1, UINT32_MAX, backoff.min_ms),
	CONF_SETTING(CONF_S_BACKOFF_MAX_MS, "backoff_max_ms", CONF_KIND_U32,
	    1, UINT32_MAX, backoff.max_ms),
	CONF_SETTING(CONF_S_BACKOFF_JITTER, "backoff_jitter",
	    CONF_KIND_FRACTION, 0, 1, backoff.jitter),
	CONF_SETTING(CONF_S_BACKOFF_RESET_MS, "backoff_reset_ms",
	    CONF_KIND_U32, 0, UINT32_MAX, backoff.reset_ms),
	CONF_SETTING(CONF_S_MAX_RESTARTS, "max_restarts", CONF_KIND_U32,
	    0, CONF_MAX_MAX_RESTARTS, backoff.max_restarts),
	CONF_SETTING(CONF_S_RESTART_WINDOW_S, "restart_window_s",
	    CONF_KIND_U32, 0, UINT32_MAX, backoff.restart_window_s),
	CONF_SETTING(CONF_S_INIT_TIMEOUT_MS, "init_timeout_ms", CONF_KIND_U32,
	    1, UINT32_MAX, init_timeout_ms),
	CONF_SETTING(CONF_S_REQUEST_TIMEOUT_MS, "request_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, request_timeout_ms),
	CONF_SETTING(CONF_S_STOP_TIMEOUT_MS, "stop_timeout_ms", CONF_KIND_U32,
	    1, UINT32_MAX, stop_timeout_ms),
	CONF_SETTING(CONF_S_HEALTH_INTERVAL_MS, "health_interval_ms",
	    CONF_KIND_U32, 0, UINT32_MAX, health_interval_ms),
	CONF_SETTING(CONF_S_HEALTH_TIMEOUT_MS, "health_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, health_timeout_ms),
	CONF_SETTING(CONF_S_HEALTH_MAX_TIMEOUTS, "health_max_timeouts",
	    CONF_KIND_U32, 0, UINT32_MAX, health_max_timeouts),
	CONF_SETTING(CONF_S_MAX_MESSAGE_BYTES, "max_message_bytes",
	    CONF_KIND_SIZE, CONF_MIN_MAX_MESSAGE_BYTES,
	    CONF_MAX_MAX_MESSAGE_BYTES, max_message_bytes),
	CONF_SETTING(CONF_S_DISABLED, "disabled", CONF_KIND_BOOL,
	    0, 1, disabled),
	CONF_SETTING(CONF_S_CLIENT_CAPABILITIES, "client_capabilities",
	    CONF_KIND_CAPS, 0, 0, client_caps),
	CONF_SETTING(CONF_S_MEMORY_MAX, "memory_max", CONF_KIND_U64,
	    0, CONF_MAX_MEMORY_MAX, memory_max),
	CONF_SETTING(CONF_S_PIDS_MAX, "pids_max", CONF_KIND_U32,
	    0, CONF_MAX_PIDS_MAX, pids_max),
	CONF_SETTING(CONF_S_CPU_WEIGHT, "cpu_weight", CONF_KIND_U32,
	    0, CONF_MAX_CPU_WEIGHT, cpu_weight),
	CONF_SETTING(CONF_S_CONNECT_TIMEOUT_MS, "connect_timeout_ms",
	    CONF_KIND_U32, 1, UINT32_MAX, connect_timeout_ms),
	CONF_SETTING(CONF_S_START, "start", CONF_KIND_START, 0, 0, start),
	CONF_SETTING(CONF_S_IDLE_STOP_S, "idle_stop_s", CONF_KIND_U32,
	    0, CONF_MAX_IDLE_STOP_S, idle_stop_s),
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

/* Server keys that belong to other MCP clients: accepted without a word. */
static const char *conf_foreign_keys[] = {
	"autoApprove",
	"alwaysAllow",
	"timeout",
	"description",
	"icon",
	"gallery",
	"version",
};

/* A server entry found under "mcpServers" or "servers". */
struct conf_entry {
	const char	*shape;
	const cJSON	*item;
};

const char *
conf_restart_name(enum conf_restart restart)
{
	if ((size_t)restart >= sizeof conf_restart_names /
	    sizeof conf_restart_names[0])
		return ("unknown");
	return (conf_restart_names[restart]);
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
static int
conf_parse_setting(struct conf_parse *cp, const char *path,
    const struct conf_setting *setting, const cJSON *item,
    struct conf_settings *s)
{
	char		*field = (char *)s + setting->offset;
	uint64_t	 value;
	double		 d;
	size_t		 i;

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
		if (cJSON_IsString(item)) {
			for (i = 0; i < sizeof conf_restart_names /
			    sizeof conf_restart_names[0]; i++) {
				if (strcmp(item->valuestring,
				    conf_restart_names[i]) == 0) {
					*(enum conf_restart *)field = i;
					return (0);
				}
			}
		}
		conf_error(cp, path, "expected \"always\", \"on-failure\" or "
		    "\"never\"");
		return (-1);
	case CONF_KIND_START:
		if (cJSON_IsString(item)) {
			for (i = 0; i < nitems(conf_start_names); i++) {
				if (strcmp(item->valuestring,
				    conf_start_names[i]) == 0) {
					*(enum conf_start *)field = i;
					return (0);
				}
			}
		}
		conf_error(cp, path, "expected \"always\" or \"on-demand\"");
		return (-1);
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
static void
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

static void
conf_parse_defaults(struct conf_parse *cp, const cJSON *object)
{
	const struct conf_setting	*setting;
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
		else if ((setting = conf_find_setting(item->string)) == NULL)
			conf_warn(cp, path, "unknown key, ignored");
		else if (conf_parse_setting(cp, path, setting, item,
		    &cp->defaults) == 0)
			set |= CONF_BIT(setting - conf_setting_table);
		free(path);
	}
	free(first);
	conf_check_settings(cp, "mcpd", &cp->defaults, set);
}

/* args expanded, and as written (args_display), in step. */
static void
conf_parse_args(struct conf_parse *cp, const char *path, const cJSON *array,
    char ***args, char ***args_display, size_t *nargs)
{
	const cJSON	*item;
	char		*apath, *arg;
	size_t		 i;

	if (!cJSON_IsArray(array)) {
		conf_error(cp, path, "expected an array of strings");
		return;
	}
	for (i = 0, item = array->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&apath, "%s[%zu]", path, i);
		if ((arg = conf_string(cp, apath, item)) != NULL) {
			*args = xreallocarray(*args, *nargs + 1, sizeof **args);
			*args_display = xreallocarray(*args_display,
			    *nargs + 1, sizeof **args_display);
			(*args)[*nargs] = arg;
			(*args_display)[(*nargs)++] =
			    xstrdup(item->valuestring);
		}
		free(apath);
	}
}

static void
conf_parse_env(struct conf_parse *cp, const char *path, const cJSON *object,
    char ***env, size_t *nenv)
{
	const cJSON	*item;
	char		*epath, *value;
	size_t		*first, i;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object of strings");
		return;
	}
	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		xasprintf(&epath, "%s.%s", path, item->string);
		if (first[i] != i)
			conf_error(cp, epath, "duplicate key");
		else if (*item->string == '\0' ||
		    strchr(item->string, '=') != NULL) {
			conf_error(cp, epath, "invalid variable name: must be "
			    "non-empty and contain no '='");
		} else if ((value = conf_string(cp, epath, item)) != NULL) {
			*env = xreallocarray(*env, *nenv + 1, sizeof **env);
			xasprintf(&(*env)[(*nenv)++], "%s=%s", item->string,
			    value);
			free(value);
		}
		free(epath);
	}
	free(first);
}

/*
 * "envFile": the absolute path of a dotenv file (dotenv.h), expanded,
 * read now (at start and at each reload); its variables into *file_env.
 */
static void
conf_parse_env_file(struct conf_parse *cp, const char *path,
    const cJSON *item, char ***file_env)
{
	char	*file, *text, *cause;
	size_t	 len, n;

	if ((file = conf_string(cp, path, item)) == NULL)
		return;
	if (*file != '/') {
		conf_error(cp, path, "must be an absolute path");
		free(file);
		return;
	}
	if ((text = conf_read_named(cp, path, "envFile", file, &len)) !=
	    NULL) {
		dotenv_free(*file_env);
		*file_env = NULL;
		if (dotenv_parse(text, len, file_env, &n, &cause) == -1) {
			conf_error(cp, path, "%s", cause);
			free(cause);
		}
		explicit_bzero(text, len);
		free(text);
	}
	free(file);
}

/*
 * The envFile's variables after env's, each unless env sets it already:
 * "env" wins, as in VS Code.  file_env is consumed.
 */
static void
conf_merge_env_file(char ***env, size_t *nenv, char **file_env)
{
	size_t	 i, j, klen;

	if (file_env == NULL)
		return;
	for (i = 0; file_env[i] != NULL; i++) {
		klen = strcspn(file_env[i], "=");
		for (j = 0; j < *nenv; j++) {
			if (strncmp((*env)[j], file_env[i], klen + 1) == 0)
				break;
		}
		if (j < *nenv) {
			explicit_bzero(file_env[i], strlen(file_env[i]));
			free(file_env[i]);
			continue;
		}
		*env = xreallocarray(*env, *nenv + 1, sizeof **env);
		(*env)[(*nenv)++] = file_env[i];
	}
	free(file_env);
}

static int
conf_is_foreign_key(const char *key)
{
	size_t	 i;

	for (i = 0; i < nitems(conf_foreign_keys);
	    i++) {
		if (strcmp(conf_foreign_keys[i], key) == 0)
			return (1);
	}
	return (0);
}

static void
conf_add_server(struct conf_parse *cp, struct conf_server *cs)
{
	struct conf	*conf = cp->conf;

	if (conf->nservers == cp->servers_cap) {
		cp->servers_cap = cp->servers_cap == 0 ? 8 :
		    cp->servers_cap * 2;
		conf->servers = xreallocarray(conf->servers, cp->servers_cap,
		    sizeof *conf->servers);
	}
	conf->servers[conf->nservers++] = *cs;
}

/* The key of a stdio entry that a remote one does not take, or 0. */
static int
conf_parse_stdio_key(struct conf_parse *cp, const char *kpath,
    const cJSON *item, int remote)
{
	const char	*key = item->string;

	if (!remote || (strcmp(key, "command") != 0 &&
	    strcmp(key, "args") != 0))
		return (0);
	conf_error(cp, kpath, "not allowed on a remote server (url)");
	return (1);
}

static void
conf_parse_server(struct conf_parse *cp, const char *shape,
    const cJSON *object)
{
	struct conf_settings		 s = cp->defaults;
	struct conf_server		 cs, rs;
	const struct conf_setting	*setting;
	const cJSON			*item;
	const char			*key;
	char				*path, *kpath, *command = NULL;
	char				*command_display = NULL;
	char				*cwd = NULL, *cwd_display = NULL;
	char				**args = NULL, **env = NULL;
	char				**args_display = NULL;
	char				**roots = NULL, **file_env = NULL;
	size_t				*first, nargs = 0, nenv = 0, i;
	size_t				 nroots = 0;
	size_t				 nerrors = cp->diags->nerrors;
	uint32_t			 set = 0;
	int				 seen_command = 0, remote, kind;
	enum conf_transport		 transport;
	struct filter			*filters[FILTER_KINDS] = { NULL };

	/* The remote members, filled in by conf_remote.c. */
	memset(&rs, 0, sizeof rs);
	xasprintf(&path, "%s.%s", shape, object->string);
	if (!conf_valid_name(object->string)) {
		conf_error(cp, path, "invalid server name: use 1 to %d of "
		    "A-Z a-z 0-9 . _ -", CONF_NAME_MAX_LEN);
	}
	if (!cJSON_IsObject(object)) {
		conf_error(cp, path, "expected an object");
		goto fail;
	}
	remote = conf_remote_entry(object);
	rs.transport = remote ? CONF_TRANSPORT_AUTO : CONF_TRANSPORT_STDIO;

	first = conf_object_first_keys(object);
	for (i = 0, item = object->child; item != NULL;
	    item = item->next, i++) {
		key = item->string;
		xasprintf(&kpath, "%s.%s", path, key);
		if (first[i] != i)
			conf_error(cp, kpath, "duplicate key");
		else if (conf_parse_stdio_key(cp, kpath, item, remote))
			;
		else if (conf_remote_key(cp, kpath, item, remote, &rs))
			;
		else if (conf_share_key(cp, kpath, item, &rs))
			;
		else if (strcmp(key, "command") == 0) {
			seen_command = 1;
			command = conf_string(cp, kpath, item);
			if (command != NULL && *command == '\0')
				conf_error(cp, kpath, "must not be empty");
			if (command != NULL)
				command_display = xstrdup(item->valuestring);
		} else if (strcmp(key, "args") == 0)
			conf_parse_args(cp, kpath, item, &args, &args_display,
			    &nargs);
		else if (strcmp(key, "env") == 0)
			conf_parse_env(cp, kpath, item, &env, &nenv);
		else if (strcmp(key, "cwd") == 0 && remote)
			conf_warn(cp, kpath, "ignored on a remote server (url)");
		else if (strcmp(key, "cwd") == 0) {
			cwd = conf_string(cp, kpath, item);
			if (cwd != NULL && *cwd != '/') {
				conf_error(cp, kpath,
				    "must be an absolute path");
			}
			if (cwd != NULL)
				cwd_display = xstrdup(item->valuestring);
		} else if (strcmp(key, "type") == 0) {
			if (!cJSON_IsString(item) ||
			    conf_remote_type(item->valuestring,
			    &transport) == -1) {
				conf_error(cp, kpath, "expected \"stdio\", "
				    "\"http\" or \"sse\"");
			} else if (remote && transport ==
			    CONF_TRANSPORT_STDIO) {
				conf_error(cp, kpath, "\"stdio\" does not "
				    "go with url: a remote server is \"http\" "
				    "or \"sse\"");
			} else if (remote)
				rs.transport = transport;
		} else if (strcmp(key, "roots") == 0)
			conf_parse_roots(cp, kpath, item, &roots, &nroots);
		else if (strcmp(key, "envFile") == 0 && remote)
			conf_warn(cp, kpath, "ignored on a remote server (url)");
		else if (strcmp(key, "envFile") == 0)
			conf_parse_env_file(cp, kpath, item, &file_env);
		else if ((kind = conf_filter_kind(key)) != -1)
			(void)filter_parse(item, (enum filter_kind)kind, kpath,
			    conf_filter_error, cp, &filters[kind]);
		else if (!remote && strcmp(key, "connect_timeout_ms") == 0)
			conf_warn(cp, kpath, "only for a remote server (url), "
			    "ignored");
		else if ((setting = conf_find_setting(key)) != NULL) {
			if (conf_parse_setting(cp, kpath, setting, item,
			    &s) == 0)
				set |= CONF_BIT(setting - conf_setting_table);
		} else if (!conf_is_foreign_key(key))
			conf_warn(cp, kpath, "unknown key, ignored");
		free(kpath);
	}
	free(first);
	conf_merge_env_file(&env, &nenv, file_env);
	file_env = NULL;
	if (remote)
		conf_remote_finish(cp, path, object, &rs);
	else if (!seen_command) {
		xasprintf(&kpath, "%s.command", path);
		conf_error(cp, kpath, "missing (required for a stdio server)");
		free(kpath);
	}
	conf_check_settings(cp, path, &s, set);
	conf_share_finish(cp, path, object, &rs);
	if (cp->diags->nerrors != nerrors)
		goto fail;

	if (remote) {
		/* The worker runs instead of a command (conf.h). */
		command = xstrdup(CONF_REMOTE_PROGRAM);
		command_display = xstrdup(CONF_REMOTE_PROGRAM);
	}
	cs = rs;
	cs.name = xstrdup(object->string);
	cs.path = path;
	cs.argc = nargs + 1;
	cs.argv = xreallocarray(NULL, nargs + 2, sizeof *cs.argv);
	cs.argv_display = xreallocarray(NULL, nargs + 2,
	    sizeof *cs.argv_display);
	cs.argv[0] = command;
	cs.argv_display[0] = command_display;
	for (i = 0; i < nargs; i++) {
		cs.argv[i + 1] = args[i];
		cs.argv_display[i + 1] = args_display[i];
	}
	cs.argv[nargs + 1] = NULL;
	cs.argv_display[nargs + 1] = NULL;
	free(args);
	free(args_display);
	cs.envc = nenv;
	cs.env = xreallocarray(env, nenv + 1, sizeof *cs.env);
	cs.env[nenv] = NULL;
	cs.cwd = cwd;
	cs.cwd_display = cwd_display;
	cs.restart = s.restart;
	cs.backoff = s.backoff;
	cs.init_timeout_ms = s.init_timeout_ms;
	cs.request_timeout_ms = s.request_timeout_ms;
	cs.stop_timeout_ms = s.stop_timeout_ms;
	cs.health_interval_ms = s.health_interval_ms;
	cs.health_timeout_ms = s.health_timeout_ms;
	cs.health_max_timeouts = s.health_max_timeouts;
	cs.max_message_bytes = s.max_message_bytes;
	cs.disabled = s.disabled;
	cs.client_caps = s.client_caps;
	cs.memory_max = s.memory_max;
	cs.pids_max = s.pids_max;
	cs.cpu_weight = s.cpu_weight;
	cs.connect_timeout_ms = s.connect_timeout_ms;
	cs.start = s.start;
	cs.idle_stop_s = s.idle_stop_s;
	cs.nroots = nroots;
	cs.roots = xreallocarray(roots, nroots + 1, sizeof *cs.roots);
	cs.roots[nroots] = NULL;
	memcpy(cs.filters, filters, sizeof cs.filters);
	if (cs.headers == NULL) {
		/* NULL-ended, also when empty (conf.h). */
		cs.headers = xcalloc(1, sizeof *cs.headers);
	}
	conf_add_server(cp, &cs);
	return;

fail:
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(filters[i]);
	free(path);
	free(command);
	free(command_display);
	free(cwd);
	free(cwd_display);
	for (i = 0; i < nargs; i++) {
		free(args[i]);
		free(args_display[i]);
	}
	free(args);
	free(args_display);
	for (i = 0; i < nenv; i++)
		free(env[i]);
	free(env);
	for (i = 0; i < nroots; i++)
		free(roots[i]);
	free(roots);
	conf_remote_clear(&rs);
	conf_share_clear(&rs);
}

/* Collect one shape's servers. */
static void
conf_collect_servers(struct conf_parse *cp, const char *shape,
    const cJSON *object, struct conf_entry **entries, size_t *nentries)
{
	const cJSON	*item;

	if (!cJSON_IsObject(object)) {
		conf_error(cp, shape, "expected an object");
		return;
	}
	for (item = object->child; item != NULL; item = item->next) {
		*entries = xreallocarray(*entries, *nentries + 1,
		    sizeof **entries);
		(*entries)[*nentries].shape = shape;
		(*entries)[(*nentries)++].item = item;
	}
}

static void
conf_parse_root(struct conf_parse *cp, const cJSON *root)
{
	const cJSON		*item, *groups = NULL;
	struct conf_entry	*entries = NULL;
	struct conf_key		*keys;
	const char		*key, *shape;
	char			*path, *other;
	size_t			*first, *first_name, nentries = 0, i;

	first = conf_object_first_keys(root);
	for (i = 0, item = root->child; item != NULL;
	    item = item->next, i++) {
		if (first[i] == i && strcmp(item->string, "mcpd") == 0)
			conf_parse_defaults(cp, item);
	}
	for (i = 0, item = root->child; item != NULL;
	    item = item->next, i++) {
		key = item->string;
		if (first[i] != i)
			conf_error(cp, key, "duplicate key");
		else if (strcmp(key, "mcpServers") == 0 ||
		    strcmp(key, "servers") == 0) {
			shape = strcmp(key, "servers") == 0 ? "servers" :
			    "mcpServers";
			conf_collect_servers(cp, shape, item, &entries,
			    &nentries);
		} else if (strcmp(key, "groups") == 0)
			groups = item;
		else if (strcmp(key, "mcpd") != 0 &&
		    strcmp(key, "inputs") != 0)
			conf_warn(cp, key, "unknown key, ignored");
	}
	free(first);

	keys = xreallocarray(NULL, nentries == 0 ? 1 : nentries, sizeof *keys);
	for (i = 0; i < nentries; i++) {
		keys[i].key = entries[i].item->string;
		keys[i].seq = i;
	}
	first_name = conf_first_keys(keys, nentries);
	free(keys);
	for (i = 0; i < nentries; i++) {
		if (first_name[i] == i) {
			conf_parse_server(cp, entries[i].shape,
			    entries[i].item);
			continue;
		}
		xasprintf(&path, "%s.%s", entries[i].shape,
		    entries[i].item->string);
		xasprintf(&other, "%s.%s", entries[first_name[i]].shape,
		    entries[first_name[i]].item->string);
		conf_error(cp, path, "duplicate server name (first defined "
		    "at %s)", other);
		free(other);
		free(path);
	}
	free(first_name);
	free(entries);
	/* Groups name servers: they come after every server. */
	conf_group_parse(cp, groups);
}

/* Daemon-wide settings that depend on each other. */
static void
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

struct conf *
conf_parse_file(const char *text, size_t len, const char *file,
    conf_getenv_fn getenv_fn, void *getenv_arg, conf_readfile_fn readfile_fn,
    struct conf_diags *diags)
{
	struct conf_parse	 cp;
	cJSON			*root;
	char			*copy;
	const char		*end = NULL;
	size_t			 nerrors = diags->nerrors, offset, nnul;

	/*
	 * cJSON wants a terminating NUL to refuse trailing garbage, and would
	 * take a NUL inside the text for white space or cut a string at it.
	 */
	copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	root = NULL;
	if ((end = memchr(copy, '\0', len)) == NULL)
		root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
	if (root == NULL || end != copy + len) {
		offset = len;
		if (end != NULL && end >= copy && end < copy + len)
			offset = end - copy;
		conf_json_error(diags, file, copy, offset);
		goto fail;
	}
	if (!cJSON_IsObject(root)) {
		conf_diag_error(diags, file, "the top level must be a JSON "
		    "object");
		/* No path to name, but a NUL is still said to be there. */
		free(conf_nul_strings(copy, len, &nnul));
		if (nnul != 0)
			conf_diag_error(diags, file, "a string contains a NUL "
			    "character (\\u0000)");
		goto fail;
	}
	/* Nothing else is checked: cut strings would only mislead. */
	if (conf_check_nul(copy, len, root, file, diags) != 0)
		goto fail;

	memset(&cp, 0, sizeof cp);
	cp.diags = diags;
	cp.getenv_fn = getenv_fn;
	cp.getenv_arg = getenv_arg;
	cp.readfile_fn = readfile_fn;
	cp.defaults.restart = CONF_RESTART_ALWAYS;
	cp.defaults.backoff.min_ms = CONF_DEFAULT_BACKOFF_MIN_MS;
	cp.defaults.backoff.max_ms = CONF_DEFAULT_BACKOFF_MAX_MS;
	cp.defaults.backoff.jitter = CONF_DEFAULT_BACKOFF_JITTER;
	cp.defaults.backoff.reset_ms = CONF_DEFAULT_BACKOFF_RESET_MS;
	cp.defaults.backoff.max_restarts = CONF_DEFAULT_MAX_RESTARTS;
	cp.defaults.backoff.restart_window_s = CONF_DEFAULT_RESTART_WINDOW_S;
	cp.defaults.init_timeout_ms = CONF_DEFAULT_INIT_TIMEOUT_MS;
	cp.defaults.request_timeout_ms = CONF_DEFAULT_REQUEST_TIMEOUT_MS;
	cp.defaults.stop_timeout_ms = CONF_DEFAULT_STOP_TIMEOUT_MS;
	cp.defaults.health_interval_ms = CONF_DEFAULT_HEALTH_INTERVAL_MS;
	cp.defaults.health_timeout_ms = CONF_DEFAULT_HEALTH_TIMEOUT_MS;
	cp.defaults.health_max_timeouts = CONF_DEFAULT_HEALTH_MAX_TIMEOUTS;
	cp.defaults.max_message_bytes = CONF_DEFAULT_MAX_MESSAGE_BYTES;
	cp.defaults.disabled = 0;
	cp.defaults.client_caps = CONF_CAP_ALL;
	cp.defaults.connect_timeout_ms = CONF_DEFAULT_CONNECT_TIMEOUT_MS;
	cp.defaults.start = CONF_START_ALWAYS;
	cp.defaults.idle_stop_s = CONF_DEFAULT_IDLE_STOP_S;
	cp.conf = xcalloc(1, sizeof *cp.conf);
	cp.conf->client_output_hard_bytes =
	    CONF_DEFAULT_CLIENT_OUTPUT_HARD_BYTES;
	cp.conf->client_output_soft_bytes = CONF_SOFT_UNSET;
	cp.conf->client_output_soft_s = CONF_DEFAULT_CLIENT_OUTPUT_SOFT_S;
	cp.conf->client_line_timeout_ms = CONF_DEFAULT_CLIENT_LINE_TIMEOUT_MS;
	cp.conf->max_connections_per_uid = CONF_DEFAULT_MAX_CONNECTIONS_PER_UID;
	cp.conf->client_max_inflight = CONF_DEFAULT_CLIENT_MAX_INFLIGHT;
	cp.conf->client_max_held_bytes = CONF_DEFAULT_CLIENT_MAX_HELD_BYTES;
	cp.conf->client_max_group_bytes = CONF_DEFAULT_CLIENT_MAX_GROUP_BYTES;
	cp.conf->client_max_subscriptions =
	    CONF_DEFAULT_CLIENT_MAX_SUBSCRIPTIONS;
	cp.conf->memory_budget_bytes = CONF_DEFAULT_MEMORY_BUDGET_BYTES;

	conf_parse_root(&cp, root);
	conf_check_daemon(&cp);
	cJSON_Delete(root);
	free(copy);
	if (diags->nerrors != nerrors) {
		conf_free(cp.conf);
		return (NULL);
	}
	return (cp.conf);

fail:
	cJSON_Delete(root);
	free(copy);
	return (NULL);
}

struct conf *
conf_parse(const char *text, size_t len, conf_getenv_fn getenv_fn,
    void *getenv_arg, struct conf_diags *diags)
{
	return (conf_parse_file(text, len, CONF_MEMORY_FILE, getenv_fn,
	    getenv_arg, NULL, diags));
}

static void
conf_server_free(struct conf_server *cs)
{
	size_t	 i;

	free(cs->name);
	for (i = 0; i < cs->argc; i++) {
		free(cs->argv[i]);
		free(cs->argv_display[i]);
	}
	free(cs->argv);
	free(cs->argv_display);
	for (i = 0; i < cs->envc; i++)
		free(cs->env[i]);
	free(cs->env);
	for (i = 0; i < cs->nroots; i++)
		free(cs->roots[i]);
	free(cs->roots);
	free(cs->cwd);
	free(cs->cwd_display);
	free(cs->path);
	for (i = 0; i < FILTER_KINDS; i++)
		filter_free(cs->filters[i]);
	conf_remote_clear(cs);
	conf_share_clear(cs);
}

static char **
conf_strv_dup(char **v, size_t n)
{
	char	**copy;
	size_t	  i;

	copy = xreallocarray(NULL, n + 1, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	copy[n] = NULL;
	return (copy);
}

struct conf_server *
conf_server_dup(const struct conf_server *cs)
{
	struct conf_server	*copy;
	size_t			 i;

	copy = xmalloc(sizeof *copy);
	*copy = *cs;
	copy->name = xstrdup(cs->name);
	copy->argv = conf_strv_dup(cs->argv, cs->argc);
	copy->argv_display = conf_strv_dup(cs->argv_display, cs->argc);
	copy->env = conf_strv_dup(cs->env, cs->envc);
	copy->roots = conf_strv_dup(cs->roots, cs->nroots);
	copy->cwd = cs->cwd != NULL ? xstrdup(cs->cwd) : NULL;
	copy->cwd_display = cs->cwd_display != NULL ?
	    xstrdup(cs->cwd_display) : NULL;
	copy->path = xstrdup(cs->path);
	for (i = 0; i < FILTER_KINDS; i++)
		copy->filters[i] = filter_dup(cs->filters[i]);
	conf_remote_copy(copy, cs);
	conf_share_copy(copy, cs);
	return (copy);
}

void
conf_server_release(struct conf_server *cs)
{
	if (cs == NULL)
		return;
	conf_server_free(cs);
	free(cs);
}

void
conf_free(struct conf *conf)
{
	size_t	 i;

	if (conf == NULL)
		return;
	for (i = 0; i < conf->nservers; i++)
		conf_server_free(&conf->servers[i]);
	free(conf->servers);
	conf_groups_free(conf);
	free(conf->file);
	free(conf->text);
	free(conf->socket_group);
	free(conf->cgroup);
	free(conf);
}

/* Environments are sets (keys are unique), so order does not matter. */
static int
conf_env_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (a->envc == b->envc && conf_set_equal(a->env, b->env, a->envc));
}

int
conf_server_equal(const struct conf_server *a, const struct conf_server *b)
{
	return (conf_server_runs_same(a, b) && a->start == b->start &&
	    a->idle_stop_s == b->idle_stop_s && conf_share_equal(a, b));
}

int
conf_server_runs_same(const struct conf_server *a,
    const struct conf_server *b)
{
	const struct backoff_policy	*pa = &a->backoff, *pb = &b->backoff;
	size_t				 i;

	if (strcmp(a->name, b->name) != 0 || a->argc != b->argc)
		return (0);
	for (i = 0; i < a->argc; i++) {
		if (strcmp(a->argv[i], b->argv[i]) != 0)
			return (0);
	}
	if (!conf_env_equal(a, b))
		return (0);
	if ((a->cwd == NULL) != (b->cwd == NULL))
		return (0);
	if (a->cwd != NULL && strcmp(a->cwd, b->cwd) != 0)
		return (0);
	if (a->client_caps != b->client_caps || a->nroots != b->nroots ||
	    a->share != b->share)
		return (0);
	for (i = 0; i < a->nroots; i++) {
		if (strcmp(a->roots[i], b->roots[i]) != 0)
			return (0);
	}
	if (pa->min_ms != pb->min_ms || pa->max_ms != pb->max_ms ||
	    pa->jitter != pb->jitter || pa->reset_ms != pb->reset_ms ||
	    pa->max_restarts != pb->max_restarts ||
	    pa->restart_window_s != pb->restart_window_s)
		return (0);
	return (a->restart == b->restart &&
	    a->init_timeout_ms == b->init_timeout_ms &&
	    a->request_timeout_ms == b->request_timeout_ms &&
	    a->stop_timeout_ms == b->stop_timeout_ms &&
	    a->health_interval_ms == b->health_interval_ms &&
	    a->health_timeout_ms == b->health_timeout_ms &&
	    a->health_max_timeouts == b->health_max_timeouts &&
	    a->max_message_bytes == b->max_message_bytes &&
	    a->disabled == b->disabled &&
	    a->memory_max == b->memory_max && a->pids_max == b->pids_max &&
	    a->cpu_weight == b->cpu_weight && conf_remote_equal(a, b));
}
