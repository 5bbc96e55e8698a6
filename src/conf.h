/*
 * conf.h -- mcpd's configuration: parse, validate, compare (pure apart
 * from conf_load reading the file).
 *
 * Accepted shapes (one file may mix them; names must be unique):
 *   {"mcpServers": {NAME: {"command", "args", "env", "cwd", ...}}}
 *   {"servers":    {NAME: {"type": "stdio", "command", ...}}}
 * and, for a remote server (VS Code, Claude Code and Cursor spell it so):
 *   {NAME: {"url", "type": "http" | "sse", "headers", "oauth", "ca_file",
 *           "env", ...}}
 * plus a top-level "mcpd" object holding defaults for every server
 * setting.  Per-server settings sit beside "command" or "url" in
 * snake_case.  An entry is remote when it has "url" or its "type" is
 * "http" (alias "streamable-http", "streamableHttp") or "sse"; without a
 * type a remote server tries Streamable HTTP, then legacy SSE.
 *
 * Every diagnostic names the JSON path of what it is about
 * ("mcpServers.github.args[2]: expected a string").  Errors make
 * conf_parse fail; warnings (unknown keys, keys that do not apply) do
 * not.  "${VAR}" and "${VAR:-default}" expand in command, args, env
 * values, cwd, url, header values, ca_file and every oauth value; an
 * unset variable without a default is an error.  A string or key holding
 * "\u0000" is an error: C strings would end there.
 *
 * Expanded values may be secrets: argv, env and cwd are for execve only;
 * url, headers and oauth only for conf_remote_settings.  What mcpd shows
 * (status, logs, exec errors) comes from argv_display, cwd_display and
 * url_display, the strings as the file has them, "${VAR}" unexpanded.  No
 * diagnostic holds a value from the file or the environment.
 *
 * The file is named config in the docs; the module is "conf" so that it
 * does not clash with autoconf's config.h.
 */
#ifndef MCPD_CONF_H
#define MCPD_CONF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backoff.h"
#include "filter.h"
#include "sandbox.h"

struct cpolicies;

/* Defaults (documented in mcpd.json(5)). */
#define CONF_DEFAULT_BACKOFF_MIN_MS		1000
#define CONF_DEFAULT_BACKOFF_MAX_MS		30000
#define CONF_DEFAULT_BACKOFF_JITTER		0.2
#define CONF_DEFAULT_BACKOFF_RESET_MS		10000
#define CONF_DEFAULT_MAX_RESTARTS		0	/* never give up */
#define CONF_DEFAULT_RESTART_WINDOW_S		60
#define CONF_MAX_MAX_RESTARTS			10000
#define CONF_DEFAULT_INIT_TIMEOUT_MS		30000
/* A first start may download the server first (npx -y, uvx). */
#define CONF_DEFAULT_FIRST_START_TIMEOUT_MS	300000
#define CONF_DEFAULT_REQUEST_TIMEOUT_MS		60000
#define CONF_DEFAULT_STOP_TIMEOUT_MS		5000
#define CONF_DEFAULT_HEALTH_INTERVAL_MS		30000	/* 0: no health ping */
#define CONF_DEFAULT_HEALTH_TIMEOUT_MS		10000
#define CONF_DEFAULT_HEALTH_MAX_TIMEOUTS	3	/* 0: never */
#define CONF_DEFAULT_MAX_MESSAGE_BYTES		16777216
#define CONF_DEFAULT_CLIENT_OUTPUT_HARD_BYTES	(64 * 1024 * 1024)
#define CONF_DEFAULT_CLIENT_OUTPUT_SOFT_BYTES	(16 * 1024 * 1024)
#define CONF_DEFAULT_CLIENT_OUTPUT_SOFT_S	10
#define CONF_DEFAULT_CLIENT_LINE_TIMEOUT_MS	5000
#define CONF_MAX_CLIENT_LINE_TIMEOUT_MS		86400000
/* A 2026 client's request parked on its input (input_required). */
#define CONF_DEFAULT_INPUT_TIMEOUT_MS		300000
#define CONF_MAX_INPUT_TIMEOUT_MS		86400000
#define CONF_DEFAULT_MAX_CONNECTIONS_PER_UID	256
#define CONF_DEFAULT_CLIENT_MAX_INFLIGHT	4096
#define CONF_DEFAULT_CLIENT_MAX_TASKS		256
#define CONF_DEFAULT_MAX_TASKS_PER_SERVER	4096
#define CONF_DEFAULT_CLIENT_MAX_HELD_BYTES	(32 * 1024 * 1024)
#define CONF_DEFAULT_CLIENT_MAX_GROUP_BYTES	(32 * 1024 * 1024)
/* A group session must hold one list page of a member (RPC_PARSE_MAX_BYTES). */
#define CONF_MIN_CLIENT_MAX_GROUP_BYTES		(1024 * 1024)
#define CONF_DEFAULT_CLIENT_MAX_SUBSCRIPTIONS	4096
#define CONF_DEFAULT_MEMORY_BUDGET_BYTES	(256 * 1024 * 1024)
#define CONF_MIN_MEMORY_BUDGET_BYTES		(16 * 1024 * 1024)
#define CONF_MAX_MAX_CONNECTIONS_PER_UID	1000000
#define CONF_MIN_MAX_MESSAGE_BYTES		1024
#define CONF_MAX_MAX_MESSAGE_BYTES		(1024 * 1024 * 1024)
#define CONF_MAX_MEMORY_MAX		(1ULL << 50)
#define CONF_MAX_PIDS_MAX		4194304		/* the kernel's PID_MAX_LIMIT */
#define CONF_MAX_CPU_WEIGHT		10000
#define CONF_DEFAULT_CONNECT_TIMEOUT_MS		10000
#define CONF_DEFAULT_IDLE_STOP_S		0	/* never */
#define CONF_MAX_IDLE_STOP_S			31536000	/* a year */
#define CONF_DEFAULT_MAX_INSTANCES		16
#define CONF_MAX_MAX_INSTANCES			1024
/* max_instances_per_uid by default: max_instances over this, rounded up. */
#define CONF_INSTANCES_PER_UID_DIVISOR		4

/*
 * A remote server runs as this program (mcpd-remote(1)): argv[0] of its
 * conf_server, which mcpd replaces by the installed program's path.
 */
#define CONF_REMOTE_PROGRAM	"mcpd-remote"

/* What mcpd offers servers on behalf of its clients (client_capabilities). */
#define CONF_CAP_SAMPLING	0x1
#define CONF_CAP_ELICITATION	0x2
#define CONF_CAP_ROOTS		0x4
#define CONF_CAP_ALL		(CONF_CAP_SAMPLING | CONF_CAP_ELICITATION | \
				 CONF_CAP_ROOTS)

/* How mcpd reaches a server. */
enum conf_transport {
	CONF_TRANSPORT_STDIO = 0,	/* a local command, on its stdio */
	CONF_TRANSPORT_AUTO,		/* remote: Streamable HTTP, else SSE */
	CONF_TRANSPORT_HTTP,		/* remote: Streamable HTTP only */
	CONF_TRANSPORT_SSE,		/* remote: legacy HTTP+SSE only */
};

/*
 * A remote server's OAuth client ("oauth"), expanded: each NULL when not
 * configured.  grant is set once parsed: "client_credentials" (a valid
 * conf then has client_id and exactly one of client_secret,
 * client_secret_file or private_key_file, and signing_algorithm ("ES256"
 * or "RS256") exactly with private_key_file) or "authorization_code" (a
 * sign-in with `mcpctl login`: client_id, a secret and
 * client_metadata_url optional, no private key or token_url).
 */
struct conf_oauth {
	char	*client_id;
	char	*client_secret;		/* a secret */
	char	*client_secret_file;	/* absolute path */
	char	*private_key_file;	/* absolute path; private_key_jwt */
	char	*signing_algorithm;
	char	*token_url;		/* NULL: discovered */
	char	*scope;
	char	*resource;		/* NULL: the server URL */
	char	*jwt_audience;		/* NULL: the issuer (or token_url) */
	char	*grant;			/* see above */
	char	*client_metadata_url;	/* a Client ID Metadata Document */
};

enum conf_restart {
	CONF_RESTART_ALWAYS,
	CONF_RESTART_ON_FAILURE,
	CONF_RESTART_NEVER,
};

/*
 * Which MCP revision mcpd speaks with a server ("protocol"): auto (found
 * in place, server/discover first: probe.h), 2025 (initialize only), or
 * 2026-07-28 (server/discover only).
 */
enum conf_protocol {
	CONF_PROTOCOL_AUTO,
	CONF_PROTOCOL_2025,
	CONF_PROTOCOL_2026,
};

/* What a changed or new definition of a server's does ("pin"). */
enum conf_pin {
	CONF_PIN_BLOCK,			/* held until approved */
	CONF_PIN_WARN,			/* logged and shown, not held */
	CONF_PIN_OFF,			/* not pinned at all */
};

/*
 * What mcpd records of a server's calls ("audit"): nothing, a journal
 * entry per tools/call, prompts/get and resources/read with a keyed hash
 * of its arguments, or that and the arguments themselves (audit.h).
 */
enum conf_audit {
	CONF_AUDIT_OFF,
	CONF_AUDIT_CALLS,
	CONF_AUDIT_FULL,
};

/* When a server runs ("start"). */
enum conf_start {
	CONF_START_ALWAYS,		/* with mcpd, and always after */
	CONF_START_ON_DEMAND,		/* with its first client */
};

/* What idle_stop_s does to a server with nothing to do ("idle"). */
enum conf_idle {
	CONF_IDLE_STOP,			/* it exits, and starts again */
	CONF_IDLE_FREEZE,		/* its process is frozen, and thawed */
};

/*
 * How clients share a server ("share"): one process for all (global), a
 * process of its own for each client (per-client), or one for each set
 * of client roots (per-roots).  The last two run as instances, workers
 * named NAME#N made and ended by daemon/instance.c, at most
 * max_instances at a time.
 */
enum conf_share {
	CONF_SHARE_GLOBAL,
	CONF_SHARE_PER_CLIENT,
	CONF_SHARE_PER_ROOTS,
};

/*
 * The settings a server takes from its own entry or else from the
 * top-level "mcpd" object: one list, for struct conf_server and for the
 * defaults conf.c collects (struct conf_settings).
 * - Health: a ping after health_interval_ms of silence must be answered
 *   within health_timeout_ms; health_max_timeouts request timeouts in a
 *   row count as a hang too.
 * - memory_max (bytes, memory.max), pids_max (pids.max) and cpu_weight
 *   (cpu.weight, 1 to 10000) limit the server's cgroup (cgroup.h), 0:
 *   none.  They need cgroup containment and those controllers.
 * - first_start_timeout_ms: instead of init_timeout_ms (when longer),
 *   how long a server's first start may take to answer initialize,
 *   after mcpd starts or a reload changes how it runs; a package runner
 *   may be downloading it (daemon/worker.c says when it applies).
 * - connect_timeout_ms: a remote server's TCP and TLS connect timeout
 *   (ignored, with a warning, on a stdio server's own entry).
 * - start: CONF_START_ALWAYS runs the server with mcpd; an on-demand one
 *   waits, idle, for its first attach or request.  idle_stop_s (0:
 *   never, at most CONF_MAX_IDLE_STOP_S): a ready server with nothing
 *   to do (daemon/worker.c says what counts) for that long is stopped
 *   and idle until it is needed again; with idle CONF_IDLE_FREEZE its
 *   process is frozen instead (daemon/worker_freeze.c), a local
 *   server's only: a remote one is stopped.
 */
#define CONF_SETTINGS_MEMBERS						\
	enum conf_restart	 restart;				\
	struct backoff_policy	 backoff;				\
	uint32_t		 init_timeout_ms;			\
	uint32_t		 first_start_timeout_ms;		\
	uint32_t		 request_timeout_ms;			\
	uint32_t		 stop_timeout_ms;			\
	uint32_t		 health_interval_ms;			\
	uint32_t		 health_timeout_ms;			\
	uint32_t		 health_max_timeouts;			\
	size_t			 max_message_bytes;			\
	int			 disabled;				\
	unsigned int		 client_caps;	/* CONF_CAP_* */	\
	uint64_t		 memory_max;				\
	uint32_t		 pids_max;				\
	uint32_t		 cpu_weight;				\
	uint32_t		 connect_timeout_ms;			\
	enum conf_start		 start;				\
	uint32_t		 idle_stop_s;				\
	enum conf_idle		 idle;					\
	enum conf_protocol	 protocol;				\
	enum conf_pin		 pin;					\
	enum conf_audit		 audit;

struct conf_settings {
	CONF_SETTINGS_MEMBERS
};

/*
 * One server.  A remote one (transport other than CONF_TRANSPORT_STDIO)
 * runs as the worker CONF_REMOTE_PROGRAM: argv and argv_display are both
 * {"mcpd-remote", NULL} (argc 1), and mcpd replaces argv[0] by the
 * installed program's path when it runs it, handing it the settings of
 * conf_remote_settings (never on its command line).  Its env is the
 * worker's environment (https_proxy, no_proxy...); cwd is NULL.
 */
struct conf_server {
	char		*name;
	char		**argv;		/* argv[0] is the command; NULL-ended */
	char		**argv_display;	/* argv as written; NULL-ended */
	size_t		 argc;		/* of both */
	char		**env;		/* configured "KEY=VALUE"; NULL-ended */
	size_t		 envc;
	char		*cwd;		/* NULL: inherit mcpd's */
	char		*cwd_display;	/* cwd as written; NULL with cwd */
	CONF_SETTINGS_MEMBERS
	char		**roots;	/* file:// URIs; NULL-ended */
	size_t		 nroots;
	/*
	 * A server not shared globally (src/conf_share.c): at most
	 * max_instances at once, at most max_instances_per_uid of them for
	 * the clients of one user who is not an administrator (mcpd's user
	 * or root); such a client's roots are each one of roots or lie
	 * within one of member_roots (file:// URIs, NULL-ended; roots.h
	 * roots_narrow).  0 and none on a server shared globally.
	 */
	enum conf_share	 share;
	uint32_t	 max_instances;
	uint32_t	 max_instances_per_uid;
	char		**member_roots;
	size_t		 nmember_roots;
	char		*path;		/* JSON path, "mcpServers.NAME" */
	/*
	 * What the server may touch ("sandbox", "sandbox_required"; the
	 * "mcpd" object's when the entry has none), paths expanded and
	 * normalised.  SB_PROFILE_UNSET when neither says: unsandboxed.
	 * Always unset on a remote server.  sb_build makes its rules.
	 */
	struct sb_spec	 sandbox;

	/* A remote server; stdio: transport 0, the rest NULL/empty. */
	enum conf_transport transport;
	/*
	 * The absolute http:// or https:// URL, expanded: a secret (hosted
	 * servers often carry a key in it), for the worker only.
	 */
	char		*url;
	char		*url_display;	/* as written, "${VAR}" unexpanded */
	/*
	 * "Name: value" lines, expanded (secrets), in file order; names are
	 * HTTP tokens, unique ignoring case; values free of control
	 * characters but tab.  NULL-ended, empty for a stdio server.
	 */
	char		**headers;
	size_t		 nheaders;
	char		*ca_file;	/* a private CA bundle, or NULL */
	int		 has_oauth;	/* oauth is configured */
	struct conf_oauth oauth;	/* all NULL without has_oauth */

	/*
	 * "tools", "prompts", "resources": what clients see of the server
	 * (filter.h), indexed by enum filter_kind; NULL lets all pass.
	 */
	struct filter	*filters[FILTER_KINDS];
};

/*
 * A group: one session over several servers (daemon/group.c).  Its name
 * and its servers' names share one namespace.
 */
struct conf_group {
	char		*name;
	char		**servers;	/* members, in group order */
	size_t		 nservers;
	char		*separator;	/* between member and tool names */
	int		 builtin;	/* "all": every enabled server */
	/* Narrowing the members' own filters, by the group's names. */
	struct filter	*filters[FILTER_KINDS];
};

struct conf {
	char			*file;		/* NULL when parsed from memory */
	char			*text;		/* conf_load's: what it read */
	size_t			 text_len;
	struct conf_server	*servers;	/* in file order */
	size_t			 nservers;
	struct conf_group	*groups;	/* in file order, then "all" */
	size_t			 ngroups;
	/* What each app may call (cpolicy.h); NULL: no "clients". */
	struct cpolicies	*clients;
	/* Daemon-wide, from the "mcpd" object. */
	size_t			 client_output_hard_bytes;
	size_t			 client_output_soft_bytes;
	uint32_t		 client_output_soft_s;
	/*
	 * A connection's first line, and every partial line, must be
	 * complete within this (0: no limit).
	 */
	uint32_t		 client_line_timeout_ms;
	uint32_t		 input_timeout_ms;
	/* Open connections of one uid, mcpd's own and root's aside (0: any). */
	uint32_t		 max_connections_per_uid;
	/* What one client may have mcpd hold for it. */
	uint32_t		 client_max_inflight;	/* requests, per server */
	size_t			 client_max_held_bytes;	/* while one starts */
	size_t			 client_max_group_bytes; /* a group session */
	uint32_t		 client_max_subscriptions; /* per server */
	uint32_t		 client_max_tasks;	/* per server */
	/* Tasks mcpd keeps for one server's clients, all together. */
	uint32_t		 max_tasks_per_server;
	/* Everything queued for peers, all together (see budget.h). */
	size_t			 memory_budget_bytes;
	/* Members of this group may connect (not administer): 0660 socket. */
	char			*socket_group;
	gid_t			 socket_gid;
	/* The cgroup mcpd may split up for its servers (cgroup.h), or NULL. */
	char			*cgroup;
	/* The HTTP front (conf_http.h), or NULL: none. */
	struct conf_http	*http;
};

enum conf_level {
	CONF_WARNING,
	CONF_ERROR,
};

struct conf_diag {
	enum conf_level	 level;
	char		*text;		/* "PATH: what is wrong" */
};

struct conf_diags {
	struct conf_diag	*v;
	size_t			 n;
	size_t			 nerrors;
};

/* Look up an environment variable; NULL if unset.  getenv by default. */
typedef const char *(*conf_getenv_fn)(const char *name, void *arg);

/*
 * The files a configuration names for their contents: a server's
 * "envFile" and "${credential:NAME}" ($CREDENTIALS_DIRECTORY/NAME).
 * conf_load and conf_load_text read them (a regular file of at most
 * CONF_SECRET_FILE_MAX_BYTES, not writable by group or others, owned by
 * the user reading it or root); conf_parse, from memory, reads none and
 * reports each as an error.
 */
#define CONF_SECRET_FILE_MAX_BYTES	(64 * 1024)

/* Parse text; returns NULL if there was any error (see diags). */
struct conf	*conf_parse(const char *text, size_t len, conf_getenv_fn,
		    void *getenv_arg, struct conf_diags *);
/*
 * Read and parse a file.  Refuses (error diag, NULL) a file that is group-
 * or world-writable, missing, unreadable or not a regular file, and one
 * that is not trusted by the user running this process:
 * - as root (real or effective uid 0): a file root does not own, or one
 *   below a directory that is writable by group or others without the
 *   sticky bit, or that another user owns;
 * - as any other user: a file owned by someone other than that user
 *   (effective uid) or root.
 * Symbolic links are followed; the rules apply to the file opened (fstat
 * of the descriptor read) and to the directories of its resolved path.
 */
struct conf	*conf_load(const char *file, struct conf_diags *);
/*
 * Parse text read from file before (a configuration handed over across a
 * re-exec), as conf_load would have: no check of the file itself.
 */
struct conf	*conf_load_text(const char *file, const char *text,
		    size_t len, struct conf_diags *);
void		 conf_free(struct conf *);
/* A server or group name: 1 to 64 of A-Z a-z 0-9 . _ - (the file's rule). */
int		 conf_valid_name(const char *);
const struct conf_server *conf_find(const struct conf *, const char *name);
const struct conf_group *conf_find_group(const struct conf *,
		    const char *name);
int		 conf_group_equal(const struct conf_group *,
		    const struct conf_group *);
/* A deep copy that outlives its conf (each worker owns one). */
struct conf_server *conf_server_dup(const struct conf_server *);
void		 conf_server_release(struct conf_server *);
/*
 * 1 if two servers' effective configurations are identical (argv_display,
 * cwd_display and url_display are not compared: they do not change what
 * runs; nor is the order of env or headers; nor are the filters, which
 * apply to a running server without a restart).  A change of a remote
 * server's url, header, ca_file, oauth value or connect_timeout_ms
 * makes them differ, as does any change of its sandbox.
 */
int		 conf_server_equal(const struct conf_server *,
		    const struct conf_server *);
/*
 * 1 if two servers differ at most in when the server runs (start,
 * idle_stop_s, idle, first_start_timeout_ms) or in the limits of its instances (max_instances,
 * max_instances_per_uid, member_roots): a change that needs no restart.
 */
int		 conf_server_runs_same(const struct conf_server *,
		    const struct conf_server *);
const char	*conf_restart_name(enum conf_restart);
/* "always" or "on-demand". */
const char	*conf_start_name(enum conf_start);
/* "stop" or "freeze". */
const char	*conf_idle_name(enum conf_idle);
/* "auto", "2025" or "2026-07-28". */
const char	*conf_protocol_name(enum conf_protocol);
/* "block", "warn" or "off". */
const char	*conf_pin_name(enum conf_pin);
const char	*conf_audit_name(enum conf_audit);
/* "global", "per-client" or "per-roots". */
const char	*conf_share_name(enum conf_share);
/* "stdio", "auto", "http" or "sse" (the transport of status). */
const char	*conf_transport_name(enum conf_transport);
/* 1 if the server is remote (runs as mcpd-remote). */
int		 conf_server_is_remote(const struct conf_server *);
/*
 * The settings mcpd hands a remote server's worker: one JSON object in
 * the format of remote/rconf.h ("mcpd_remote": 1, name, url, transport,
 * headers, ca_file, connect_timeout_ms, request_timeout_ms,
 * max_message_bytes, oauth with only the keys set, and what extra
 * gives: "token_file", "login": {"mode", "redirect_uri", "scope"}).  The
 * values are
 * expanded, so the text holds secrets: give it only to the worker, never
 * log it, and wipe it (explicit_bzero) before freeing.  NULL for a stdio
 * server.
 */
struct conf_remote_extra {
	const char	*token_file;	/* the server's token file */
	const char	*login;		/* NULL, "login" or "logout" */
	const char	*redirect_uri;	/* login: mcpctl's listener */
	const char	*scope;		/* login: scopes to ask beyond */
};
char		*conf_remote_settings(const struct conf_server *,
		    const struct conf_remote_extra *);
/*
 * 1 if the server signs in with `mcpctl login` (authorization code): a
 * remote server without oauth (it may answer 401), or with grant
 * "authorization_code".
 */
int		 conf_remote_signs_in(const struct conf_server *);

void		 conf_diags_init(struct conf_diags *);
void		 conf_diags_free(struct conf_diags *);

/*
 * A warning in diags for each stdio server whose command a start would
 * not find: a bare name not on the PATH the server gets (that of its
 * "env", else own_path, mcpd's own, else default_path), or a path that is
 * not an executable file.  Looks at the file system (mcpd -n).
 */
void		 conf_check_commands(const struct conf *, const char *own_path,
		    const char *default_path, struct conf_diags *);

#endif /* MCPD_CONF_H */
