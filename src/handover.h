/*
 * handover.h -- what one mcpd hands the next across a live re-exec
 * (mcpctl reexec): the servers it runs, with their pipes, sessions and
 * histories, the listening sockets and the guard (pure: text in, text out;
 * the descriptors are numbers kept open across execve).
 *
 * The text is versioned JSON.  handover_parse refuses a version it does
 * not know, and anything malformed, with a sentence saying why: the new
 * process then exits rather than guess, and the servers die with it as
 * they would on any exit of mcpd.  Byte strings (half lines, queued
 * input) travel as base64url.  Every count is bounded by the parser.
 */
#ifndef MCPD_HANDOVER_H
#define MCPD_HANDOVER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#ifndef HANDOVER_VERSION
#define HANDOVER_VERSION	1
#endif
#define HANDOVER_MAX_SERVERS	4096
#define HANDOVER_MAX_SUBS	65536
#define HANDOVER_MAX_TASKS	65536	/* a server's */
#define HANDOVER_MAX_PRINCIPALS	(1024 * 1024)
#define HANDOVER_MAX_ERAS	4096
#define HANDOVER_MAX_HTTP_FDS	64
#define HANDOVER_MAX_BYTES	(1024 * 1024 * 1024)	/* the whole text */

/* A byte string (not NUL-ended; may hold any byte). */
struct handover_bytes {
	char	*p;
	size_t	 len;
};

/* A line a server wrote to stderr, kept for mcpctl logs. */
struct handover_line {
	struct handover_bytes text;
	uint64_t	 time_us;		/* wall clock */
};

/*
 * A task a server runs for a principal that outlives its connections
 * (principal.h): mcpd's id and the server's, its Task object as last seen
 * (JSON text, mcpd's id in it), how long ago it was made and how long it
 * has left.
 */
struct handover_task {
	char		*id;			/* mcpd's: 32 hex digits */
	uint64_t	 principal;
	char		*up_id;
	char		*last;
	uint64_t	 age_ms;
	uint64_t	 left_ms;
	/*
	 * A task a client runs for the server ("runs": "client"): up_id is
	 * the key mcpd keeps the client's id under.
	 */
	int		 client_runs;
};

/* A bridge's principal: its secret (hex), its uid and id, idle since. */
struct handover_principal {
	char		*sid;			/* 32 hex digits */
	uid_t		 uid;
	uint64_t	 id;
	uint64_t	 idle_ms;
};

/*
 * The era of MCP found for a configuration (probe.h): its key (hex), the
 * era ("2025", "2026-07-28") and how it was found.
 */
struct handover_era {
	char		*key;
	char		*era;
	char		*how;
};

struct handover_server {
	char		*name;
	/*
	 * running: a process is handed over with its pipes, its session
	 * ready.  Otherwise the state the server was left in ("stopped",
	 * "failed", "idle", "needs-login"): the new process keeps it there
	 * rather than starting it.
	 */
	int		 running;
	char		*state;
	uint64_t	 spawns;		/* starts so far */
	char		*last_exit;		/* or NULL */
	char		*last_stderr;		/* or NULL */
	struct handover_line *lines;		/* recent stderr, oldest first */
	size_t		 nlines;
	uint64_t	 stderr_lines;		/* seen since configured */
	/* Its stdout's counters (status: stats). */
	uint64_t	 lines_in, nonjson_lines, oversize, violations;
	/*
	 * A server not shared globally: a template's count of instances
	 * made; an instance's template, number, client (per-client) and
	 * roots (a roots/list result, or NULL: not known yet).
	 */
	uint64_t	 instances_made;
	char		*instance_of;		/* NULL: not an instance */
	uint64_t	 instance_no;
	pid_t		 owner_pid;		/* 0: none */
	uid_t		 owner_uid;
	char		*roots;

	/* When running. */
	pid_t		 pid;			/* the server, its group */
	pid_t		 exit_pid;		/* whose exit ends it */
	int		 containment;		/* child.h's enum, as a number */
	char		*cgroup_leaf;		/* "" without a cgroup */
	int		 sandboxed;		/* 0, or 1: see sandbox_held */
	unsigned int	 sandbox_held;		/* sbapply.h's SB_HELD_* */
	int		 in_fd, out_fd, err_fd;
	int		 status_fd;		/* -1: a local server */
	uint64_t	 spawned_ms;		/* monotonic */
	uint64_t	 ready_ms;		/* monotonic */
	int64_t		 next_upstream_id;	/* never reused */
	int64_t		 first_id;		/* the session's ids so far */
	char		*init_result;		/* JSON text */
	char		*remote;		/* a remote's status, JSON */
	int		 level;			/* upstream log level, or -1 */
	char		**subs;			/* upstream subscriptions */
	size_t		 nsubs;
	char		**asks;			/* ids (JSON text) of the */
	size_t		 nasks;			/* server's requests unanswered */
	struct handover_task *tasks;		/* of lasting principals */
	size_t		 ntasks;
	struct handover_bytes out_partial;	/* a half line of stdout */
	struct handover_bytes err_partial;	/* of stderr */
	struct handover_bytes status_partial;	/* of the status channel */
	struct handover_bytes in_queued;	/* not yet written to stdin */
};

struct handover {
	int		 version;
	char		*config_file;
	struct handover_bytes config_text;	/* the configuration running */
	int		 listen_fd;
	int		 listen_owned;		/* mcpd made the socket file */
	char		*socket_path;
	int		*http_fds;		/* systemd's, for the HTTP front */
	size_t		 nhttp_fds;
	char		*cgroup_root;		/* servers' cgroups, or NULL */
	int		 guard_fd;		/* -1: no guard */
	pid_t		 guard_pid;
	uint64_t	 nofile_cur, nofile_max;	/* what servers get */
	int		 nofile_raised;
	uint64_t	 started_ms;		/* monotonic, the first mcpd */
	uint64_t	 reexecs;		/* before this one */
	uint64_t	 workers_total;
	struct handover_server *servers;
	size_t		 nservers;
	struct handover_principal *principals;
	size_t		 nprincipals;
	struct handover_era *eras;
	size_t		 neras;
};

void	 handover_init(struct handover *);
void	 handover_free(struct handover *);
/* A new server entry, zeroed but for fds (-1) and level (-1). */
struct handover_server *handover_add_server(struct handover *);
void	 handover_add_sub(struct handover_server *, const char *uri);
void	 handover_add_ask(struct handover_server *, const char *id);
void	 handover_add_line(struct handover_server *, const char *text,
	    size_t len, uint64_t time_us);
/* Copies of the strings are taken; the task added is returned. */
struct handover_task *handover_add_task(struct handover_server *, const char *id,
	    uint64_t principal, const char *up_id, const char *last,
	    uint64_t age_ms, uint64_t left_ms);
void	 handover_add_principal(struct handover *, const char *sid,
	    uid_t uid, uint64_t id, uint64_t idle_ms);
void	 handover_add_http_fd(struct handover *, int fd);
/* Copies of the strings are taken. */
void	 handover_add_era(struct handover *, const char *key,
	    const char *era, const char *how);
/* malloc'd, NUL-ended. */
char	*handover_print(const struct handover *);
/* 0, or -1 with *cause (malloc'd) saying what is wrong. */
int	 handover_parse(const char *text, size_t len, struct handover *,
	    char **cause);

#endif /* MCPD_HANDOVER_H */
