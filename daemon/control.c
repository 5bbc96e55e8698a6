/*
 * control.c -- the daemon's own methods on the socket.
 *
 * A table maps each mcpd/ method to its handler.  Handlers validate their
 * params completely before acting, so a request naming one unknown server
 * changes nothing.  Params holding "\u0000" in a key or a string are
 * refused before cJSON reads them: it would cut "alpha\u0000x" to "alpha"
 * and read a key "follow\u0000" as "follow".  mcpd/logs answers from
 * the server's logs (logs.h) and leaves following to it.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditq.h"
#include "budget.h"
#include "client.h"
#include "clock.h"
#include "control.h"
#include "control_pins.h"
#include "cpolicy.h"
#include "envelope.h"
#include "group.h"
#include "httpfront.h"
#include "insider.h"
#include "instance.h"
#include "login.h"
#include "logs.h"
#include "log.h"
#include "mcpd.h"
#include "metrics.h"
#include "principal.h"
#include "proto.h"
#include "reload.h"
#include "reexec.h"
#include "router.h"
#include "rpc.h"
#include "util.h"
#include "visible.h"
#include "worker.h"
#include "xmalloc.h"

#define CONTROL_METHOD_MAX	64	/* longer: no such method */

struct control_method {
	const char	*name;
	int		 admin;		/* needs mcpd's uid or root */
	int		 insider;	/* a server's process may call it */
	void		(*handler)(struct mcpd *, struct client *,
			    const cJSON *id, const cJSON *params);
};
static void	control_status(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_start(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_stop(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_restart(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_attach(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_reload(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_logs(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_metrics(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_version(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);
static void	control_reexec(struct mcpd *, struct client *, const cJSON *,
		    const cJSON *);

/*
 * A process inside a server (insider.h) may attach to a server as any
 * client may, and ask the version; nothing else.
 */
static const struct control_method control_methods[] = {
	{ MCPD_METHOD_STATUS, 0, 0, control_status },
	{ MCPD_METHOD_START, 1, 0, control_start },
	{ MCPD_METHOD_STOP, 1, 0, control_stop },
	{ MCPD_METHOD_RESTART, 1, 0, control_restart },
	{ MCPD_METHOD_VERSION, 0, 1, control_version },
	{ MCPD_METHOD_ATTACH, 0, 1, control_attach },
	{ MCPD_METHOD_RELOAD, 1, 0, control_reload },
	{ MCPD_METHOD_LOGS, 1, 0, control_logs },	/* stderr: visible.h */
	{ MCPD_METHOD_METRICS, 0, 0, control_metrics },
	{ MCPD_METHOD_LOGIN, 1, 0, login_begin },
	{ MCPD_METHOD_LOGIN_COMPLETE, 1, 0, login_complete },
	{ MCPD_METHOD_LOGOUT, 1, 0, login_logout },
	{ MCPD_METHOD_REEXEC, 1, 0, control_reexec },
	{ MCPD_METHOD_PINS, 1, 0, control_pins },
	{ MCPD_METHOD_APPROVE, 1, 0, control_approve },
};

/*
 * Resolve params.servers (an array of names) to workers.  Returns the
 * number found, or -1 after replying with an error.  With allow_all an
 * absent or empty list means every server.
 */
static int
control_servers(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params, int allow_all, struct worker ***out)
{
	const cJSON	*names, *name;
	struct worker	**v, *w;
	cJSON		*unknown;
	int		 n = 0, size;
	char		*text;

	names = cJSON_GetObjectItemCaseSensitive(params, "servers");
	if (params != NULL && !cJSON_IsObject(params)) {
		client_send_error(c, id, RPC_INVALID_PARAMS,
		    "invalid params: expected an object");
		return (-1);
	}
	if (names != NULL && !cJSON_IsArray(names)) {
		client_send_error(c, id, RPC_INVALID_PARAMS,
		    "invalid params: servers must be an array of names");
		return (-1);
	}
	size = cJSON_GetArraySize(names);
	if (size == 0) {
		if (!allow_all) {
			client_send_error(c, id, RPC_INVALID_PARAMS,
			    "invalid params: name at least one server");
			return (-1);
		}
		for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
			n++;
		v = xcalloc(n + 1, sizeof *v);
		n = 0;
		for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
			v[n++] = w;
		*out = v;
		return (n);
	}

	v = xcalloc(size + 1, sizeof *v);
	unknown = cJSON_CreateArray();
	cJSON_ArrayForEach(name, names) {
		if (!cJSON_IsString(name)) {
			client_send_error(c, id, RPC_INVALID_PARAMS,
			    "invalid params: server names must be strings");
			free(v);
			cJSON_Delete(unknown);
			return (-1);
		}
		if ((w = worker_find(mcpd, name->valuestring)) == NULL)
			cJSON_AddItemToArray(unknown,
			    cJSON_CreateString(name->valuestring));
		else
			v[n++] = w;
	}
	if (cJSON_GetArraySize(unknown) > 0) {
		name = cJSON_GetArrayItem(unknown, 0);
		xasprintf(&text, "unknown server: %s%s", name->valuestring,
		    cJSON_GetArraySize(unknown) > 1 ? " (and others)" : "");
		client_send_json(c, rpc_make_error(id, MCPD_ERR_UNKNOWN_SERVER,
		    text, unknown));
		free(text);
		free(v);
		return (-1);
	}
	cJSON_Delete(unknown);
	*out = v;
	return (n);
}

static cJSON *
control_servers_json(struct worker **v, int n, const struct client *c)
{
	cJSON	*servers;
	int	 i;

	servers = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(servers, visible_server_json(v[i], c));
	return (servers);
}

/*
 * The file mcpd reads, as an absolute path: mcpctl import and install
 * edit it from another directory.  mcpd never changes its directory, so
 * a relative -c is taken from the one it runs in.
 */
static void
control_add_config(cJSON *d, const char *file)
{
	char	 cwd[PATH_MAX], *path;

	if (*file == '/' || getcwd(cwd, sizeof cwd) == NULL) {
		cJSON_AddStringToObject(d, "config", file);
		return;
	}
	xasprintf(&path, "%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/",
	    file);
	cJSON_AddStringToObject(d, "config", path);
	free(path);
}

static cJSON *
control_daemon_json(struct mcpd *mcpd)
{
	cJSON		*d;

	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "pid", (double)getpid());
	cJSON_AddStringToObject(d, "version", PACKAGE_VERSION);
	cJSON_AddNumberToObject(d, "protocol", MCPD_PROTO_VERSION);
	cJSON_AddNumberToObject(d, "uptime_ms",
	    (double)(clock_now_ms() - mcpd->started_ms));
	cJSON_AddNumberToObject(d, "reexecs", (double)mcpd->reexecs);
	cJSON_AddStringToObject(d, "binary", reexec_binary());
	cJSON_AddStringToObject(d, "socket", mcpd->socket_path);
	if (mcpd->config_file != NULL)
		control_add_config(d, mcpd->config_file);
	cJSON_AddStringToObject(d, "token_dir", mcpd->token_dir);
	cJSON_AddNumberToObject(d, "connections", (double)mcpd->nclients);
	cJSON_AddNumberToObject(d, "clients_total",
	    (double)mcpd->clients_total);
	cJSON_AddNumberToObject(d, "protocol_violations",
	    (double)mcpd->protocol_violations);
	cJSON_AddNumberToObject(d, "memory_budget_used",
	    (double)budget_used(mcpd));
	cJSON_AddNumberToObject(d, "memory_budget_bytes",
	    (double)mcpd->conf->memory_budget_bytes);
	cJSON_AddItemToObject(d, "audit", auditq_json());
	return (d);
}

static void
control_status(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct worker	**v, *i;
	cJSON		*result, *servers, *http;
	int		 n, k, named;

	if ((n = control_servers(mcpd, c, id, params, 1, &v)) < 0)
		return;
	result = cJSON_CreateObject();
	/* A server named: its instances after it (all are listed anyway). */
	named = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(params,
	    "servers")) > 0;
	servers = cJSON_CreateArray();
	for (k = 0; k < n; k++) {
		cJSON_AddItemToArray(servers, visible_server_json(v[k], c));
		for (i = named ? worker_instance_next(v[k], NULL) : NULL;
		    i != NULL; i = worker_instance_next(v[k], i))
			cJSON_AddItemToArray(servers,
			    visible_server_json(i, c));
	}
	cJSON_AddItemToObject(result, "servers", servers);
	cJSON_AddItemToObject(result, "groups", group_status_json(mcpd));
	cJSON_AddItemToObject(result, "daemon", control_daemon_json(mcpd));
	if ((http = httpfront_json(mcpd)) != NULL)
		cJSON_AddItemToObject(result, "http", http);
	/* The connections and their apps, as the caller may see them. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(params, "clients")))
		cJSON_AddItemToObject(result, "clients",
		    visible_clients_json(mcpd, c));
	free(v);
	client_send_json(c, rpc_make_result(id, result));
}

static void
control_act(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params, void (*action)(struct worker *))
{
	struct worker	**v;
	cJSON		*result;
	int		 n, i;

	if ((n = control_servers(mcpd, c, id, params, 0, &v)) < 0)
		return;
	for (i = 0; i < n; i++)
		action(v[i]);
	result = cJSON_CreateObject();
	cJSON_AddItemToObject(result, "servers",
	    control_servers_json(v, n, c));
	free(v);
	client_send_json(c, rpc_make_result(id, result));
}

static void
control_start(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	control_act(mcpd, c, id, params, worker_start);
}

static void
control_stop(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	control_act(mcpd, c, id, params, worker_stop);
}

static void
control_restart(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	control_act(mcpd, c, id, params, worker_restart);
}

static void
control_version(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	client_send_json(c, rpc_make_result(id, control_daemon_json(mcpd)));
}

/*
 * Hand everything to the binary installed now.  On success this never
 * returns: the execve closes the connection, which is the answer.
 */
static void
control_reexec(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	char	*cause;

	if (reexec_now(mcpd, &cause) == 0)
		return;
	log_warnx("re-exec: %s; this mcpd carries on", cause);
	client_send_error(c, id, MCPD_ERR_REEXEC, "cannot re-execute: %s; "
	    "this mcpd carries on", cause);
	free(cause);
}

#define CONTROL_LOG_LINES_DEFAULT	100

/* A server's recent stderr, and with "follow" every new line after it. */
static void
control_logs(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const cJSON	*name, *lines, *follow;
	struct worker	*w;
	cJSON		*result;
	double		 n = CONTROL_LOG_LINES_DEFAULT;

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	lines = cJSON_GetObjectItemCaseSensitive(params, "lines");
	follow = cJSON_GetObjectItemCaseSensitive(params, "follow");
	if (!cJSON_IsString(name) || (lines != NULL && (!cJSON_IsNumber(lines)
	    || lines->valuedouble < 0)) || (follow != NULL &&
	    !cJSON_IsBool(follow))) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME, \"lines\": N, \"follow\": "
		    "BOOL}");
		return;
	}
	if ((w = worker_find(mcpd, name->valuestring)) == NULL) {
		client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
		    "unknown server: %s", name->valuestring);
		return;
	}
	if (lines != NULL)
		n = lines->valuedouble;
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", worker_name(w));
	cJSON_AddItemToObject(result, "lines", logs_json(worker_logs(w),
	    n > 1e6 ? 1000000 : (size_t)n));
	client_send_json(c, rpc_make_result(id, result));
	if (cJSON_IsTrue(follow))
		logs_follow(mcpd, c, logs_serial(worker_logs(w)));
}

static void
control_metrics(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	struct worker	*w;
	cJSON		*status, *servers, *result;
	char		*text;

	status = cJSON_CreateObject();
	servers = cJSON_AddArrayToObject(status, "servers");
	for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
		cJSON_AddItemToArray(servers, worker_status_json(w));
	cJSON_AddItemToObject(status, "groups", group_status_json(mcpd));
	cJSON_AddItemToObject(status, "daemon", control_daemon_json(mcpd));
	text = metrics_render(status);
	cJSON_Delete(status);
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "text", text);
	free(text);
	client_send_json(c, rpc_make_result(id, result));
}

static void
control_reload(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	cJSON	*report, *errors;
	int	 n;

	if (reload_config(mcpd, &report) == 0) {
		client_send_json(c, rpc_make_result(id, report));
		return;
	}
	errors = cJSON_GetObjectItemCaseSensitive(report, "errors");
	n = cJSON_GetArraySize(errors);
	client_send_json(c, rpc_make_error(id, MCPD_ERR_CONFIG_INVALID,
	    n == 1 ? "the new configuration has 1 error; nothing changed" :
	    "the new configuration has errors; nothing changed", report));
}

/* An attached client's session handler: the router takes its lines. */
static int
control_server_line(struct client *c, void *att, const char *line,
    size_t len)
{
	return (router_client_line(att, line, len) == ROUTER_LINE_CONTROL);
}

static int
control_server_line_env(struct client *c, void *att, const char *line,
    size_t len, const struct envelope *env)
{
	return (router_client_line_env(att, line, len, env) ==
	    ROUTER_LINE_CONTROL);
}

static void
control_server_close(struct client *c, void *att)
{
	router_detach(att, "client disconnected");
}

static int
control_server_busy(void *att)
{
	return (router_attachment_busy(att));
}

static int
control_server_batches(void *att)
{
	return (router_attachment_batches(att));
}

static const struct client_handler control_server_handler = {
	.line = control_server_line,
	.line_env = control_server_line_env,
	.close = control_server_close,
	.busy = control_server_busy,
	.batches = control_server_batches,
};

/*
 * The client's policy (cpolicy.h) leaves out the server or group name:
 * why (malloc'd), else NULL.  Its identity is the one the router is
 * given (router.h); none known yet: "default".
 */
static char *
control_attach_refused(struct mcpd *mcpd, struct client *c,
    const char *name)
{
	const struct ident	*id = NULL;
	const struct cpolicy	*p;
	char			*why;

	if (client_router_peer.ident != NULL)
		id = client_router_peer.ident(c);
	p = cpolicy_for(mcpd->conf->clients, id);
	if (cpolicy_allows_server(p, name))
		return (NULL);
	xasprintf(&why, "refused by the policy \"%s\" of mcpd's \"clients\": "
	    "%s is not in its \"servers\"", p->name, name);
	return (why);
}

/* Turn this connection into an MCP session with one server. */
static void
control_attach(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const cJSON *params)
{
	const cJSON	*name, *info, *version, *principal, *token;
	const struct conf_group *g;
	struct group_session *gs;
	struct worker	*w, *at;
	struct attachment *att;
	cJSON		*result, *init;
	const char	*text;
	char		*why, hex[PRINCIPAL_HEX_LEN + 1];

	name = cJSON_GetObjectItemCaseSensitive(params, "server");
	if (!cJSON_IsString(name)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "expected {\"server\": NAME}");
		return;
	}
	if (client_is_attached(c)) {
		client_send_error(c, id, RPC_INVALID_REQUEST, "this connection "
		    "is already attached to a server");
		return;
	}
	/* A bridge's principal, new or presented again (principal.h). */
	principal = cJSON_GetObjectItemCaseSensitive(params, "principal");
	if (principal != NULL && !cJSON_IsTrue(principal) &&
	    !cJSON_IsString(principal)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "\"principal\" is true or the string mcpd gave");
		return;
	}
	/* An HTTP session's token, from mcpd's own front alone. */
	token = cJSON_GetObjectItemCaseSensitive(params, "http_token");
	if (token != NULL && (!cJSON_IsString(token) || principal != NULL)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "\"http_token\" is a token's name, without \"principal\"");
		return;
	}
	if (token != NULL && client_claim_http_token(c, token->valuestring,
	    &why) != 0) {
		client_send_error(c, id, MCPD_ERR_ACCESS_DENIED, "%s", why);
		free(why);
		return;
	}
	/* Only a bridge asks for a principal: its app is above it. */
	if (principal != NULL)
		client_ident_bridge(c);
	hex[0] = '\0';
	if (principal != NULL && client_claim_principal(c,
	    cJSON_GetStringValue(principal), hex) != 0)
		hex[0] = '\0';
	/* A server's name hides a group's ("all" may be both). */
	if ((w = worker_find(mcpd, name->valuestring)) == NULL &&
	    (g = conf_find_group(mcpd->conf, name->valuestring)) != NULL) {
		if ((why = control_attach_refused(mcpd, c,
		    name->valuestring)) != NULL) {
			client_send_error(c, id, MCPD_ERR_ACCESS_DENIED, "%s",
			    why);
			free(why);
			return;
		}
		gs = group_attach(mcpd, g, &client_group_peer, c);
		result = group_attach_result(gs);
		if (hex[0] != '\0')
			cJSON_AddStringToObject(result, "principal", hex);
		client_send_json(c, rpc_make_result(id, result));
		client_set_session(c, &group_client_handler, gs);
		return;
	}
	if (w == NULL) {
		client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
		    "unknown server or group: %s", name->valuestring);
		return;
	}
	/* An instance is its clients' alone. */
	if (worker_parent(w) != NULL) {
		client_send_error(c, id, MCPD_ERR_UNKNOWN_SERVER,
		    "%s is an instance of %s, which its clients do not share: "
		    "attach to %s", worker_name(w),
		    worker_name(worker_parent(w)),
		    worker_name(worker_parent(w)));
		return;
	}
	if ((why = control_attach_refused(mcpd, c, worker_name(w))) != NULL) {
		client_send_error(c, id, MCPD_ERR_ACCESS_DENIED, "%s", why);
		free(why);
		return;
	}
	/* Not shared globally: the client's instance (instance.h). */
	if ((att = instance_attach(w, &client_router_peer, c, &why)) == NULL) {
		client_send_error(c, id, MCPD_ERR_LIMIT, "%s", why);
		free(why);
		return;
	}
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "server", worker_name(w));
	if ((at = router_attachment_worker(att)) != w)
		cJSON_AddStringToObject(result, "instance", worker_name(at));
	cJSON_AddStringToObject(result, "state",
	    worker_state_name(worker_state(at)));
	text = worker_init_result_text(at);
	init = cJSON_Parse(text);
	version = cJSON_GetObjectItemCaseSensitive(init, "protocolVersion");
	info = cJSON_GetObjectItemCaseSensitive(init, "serverInfo");
	if (cJSON_IsString(version))
		cJSON_AddStringToObject(result, "protocolVersion",
		    version->valuestring);
	else
		cJSON_AddNullToObject(result, "protocolVersion");
	if (cJSON_IsObject(info))
		cJSON_AddItemToObject(result, "serverInfo",
		    cJSON_Duplicate(info, 1));
	else
		cJSON_AddNullToObject(result, "serverInfo");
	cJSON_Delete(init);
	if (hex[0] != '\0')
		cJSON_AddStringToObject(result, "principal", hex);
	/* The reply goes out before anything the session sends. */
	client_send_json(c, rpc_make_result(id, result));
	client_set_session(c, &control_server_handler, att);
	worker_wanted(at, "a client attached");
}

static void
control_dispatch(struct mcpd *mcpd, struct client *c, const cJSON *id,
    const char *method, const cJSON *params)
{
	const struct control_method	*m;
	char				*why;
	size_t				 i;

	for (i = 0; i < nitems(control_methods);
	    i++) {
		m = &control_methods[i];
		if (strcmp(m->name, method) != 0)
			continue;
		if (m->admin && !client_is_admin(c)) {
			client_send_error(c, id, MCPD_ERR_ACCESS_DENIED,
			    "%s: permission denied (needs uid %lu or root)",
			    method, (unsigned long)getuid());
			return;
		}
		if (!m->insider &&
		    (why = insider_refuses(mcpd, c, method)) != NULL) {
			client_send_error(c, id, MCPD_ERR_ACCESS_DENIED,
			    "%s: %s", method, why);
			free(why);
			return;
		}
		m->handler(mcpd, c, id, params);
		return;
	}
	client_send_error(c, id, RPC_METHOD_NOT_FOUND,
	    "method not found: %.64s", method);
}

/* Whether JSON text (valid: the scanner accepted it) escapes a NUL. */
static int
control_has_nul(const char *text, size_t len)
{
	size_t	 i;
	int	 in_string = 0;

	for (i = 0; i < len; i++) {
		if (text[i] == '"')
			in_string = !in_string;
		else if (in_string && text[i] == '\\') {
			if (len - i >= 6 &&
			    memcmp(text + i + 1, "u0000", 5) == 0)
				return (1);
			i++;	/* the escaped character */
		}
	}
	return (0);
}

void
control_request(struct mcpd *mcpd, struct client *c, const char *line,
    const struct envelope *env, const char *method)
{
	cJSON	*id, *params = NULL;

	id = rpc_id_raw(line, &env->id);
	if (env->params.len > RPC_PARSE_MAX_BYTES) {
		client_send_error(c, id, RPC_INVALID_REQUEST, "invalid request: "
		    "params of %zu bytes; %s takes at most %d", env->params.len,
		    method, RPC_PARSE_MAX_BYTES);
		goto out;
	}
	if (control_has_nul(line + env->params.off, env->params.len)) {
		client_send_error(c, id, RPC_INVALID_PARAMS, "invalid params: "
		    "a key or string of %s holds a NUL character (\\u0000)",
		    method);
		goto out;
	}
	if (env->params.type != ENVELOPE_ABSENT &&
	    (params = cJSON_ParseWithLength(line + env->params.off,
	    env->params.len)) == NULL) {
		client_send_error(c, id, RPC_INVALID_REQUEST, "invalid request: "
		    "the params of %s could not be read", method);
		goto out;
	}
	control_dispatch(mcpd, c, id, method, params);
out:
	cJSON_Delete(params);
	cJSON_Delete(id);
}

/*
 * A line on a connection that is not attached: the same strict scan as
 * the data path, then a control request or an error.  Nothing is parsed
 * into a tree but a control request's params (control_request).
 */
void
control_line(struct mcpd *mcpd, struct client *c, const char *line, size_t len)
{
	struct envelope	 env;
	cJSON		*id = NULL;
	const char	*invalid;
	char		 method[CONTROL_METHOD_MAX], *why;
	size_t		 erroff;
	int		 code;

	if (envelope_scan(line, len, &env, &erroff) != 0) {
		code = rpc_scan_error(line, len, erroff, &why);
		client_send_error(c, NULL, code, "%s", why);
		free(why);
		return;
	}
	if (rpc_envelope_has_id(&env))
		id = rpc_id_raw(line, &env.id);
	switch (rpc_classify_envelope(line, &env, &invalid)) {
	case RPC_KIND_REQUEST:
		if (envelope_string_copy(line, &env.method, method,
		    sizeof method) < 0)
			snprintf(method, sizeof method, "(long method name)");
		if (strncmp(method, MCPD_METHOD_PREFIX,
		    strlen(MCPD_METHOD_PREFIX)) == 0)
			control_request(mcpd, c, line, &env, method);
		else
			client_send_error(c, id, RPC_METHOD_NOT_FOUND,
			    "method not found: %.64s (this connection is not "
			    "attached to a server)", method);
		break;
	case RPC_KIND_NOTIFICATION:
	case RPC_KIND_RESPONSE:
		break;		/* nothing to route them to yet */
	case RPC_KIND_INVALID:
		client_send_error(c, id, RPC_INVALID_REQUEST, "%s", invalid);
		break;
	}
	cJSON_Delete(id);
}

/* The base handler (control.h): arg is mcpd. */
static int
control_base_line(struct client *c, void *mcpd, const char *line, size_t len)
{
	control_line(mcpd, c, line, len);
	return (0);
}

/* Marked dead: a sign-in it started has nobody to answer (login.h). */
static void
control_base_lost(struct client *c, void *mcpd)
{
	login_client_gone(mcpd, client_serial(c));
}

/* Being freed: the servers it followed forget it (logs.h). */
static void
control_base_close(struct client *c, void *mcpd)
{
	logs_unfollow_all(mcpd, c);
}

const struct client_handler control_client_handler = {
	.line = control_base_line,
	.lost = control_base_lost,
	.close = control_base_close,
};
