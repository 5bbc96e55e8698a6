/*
 * transport.h -- a server's process and its pipes, behind callbacks.
 *
 * transport_start spawns the server (child.h) and owns everything of the
 * process: its pid and containment, its three pipes, their events and
 * buffers.  Its owner (the worker) never sees a descriptor; it hears
 * through callbacks: a stdout line arrived (or a message too large, or
 * bytes that are no line at all), a stderr line arrived, stdin drained,
 * the transport broke (stdout at EOF or stdin closed, and the process
 * still there after a short grace), and the process ended, with its wait
 * status.
 *
 * The SIGCHLD handler hands every exited pid to transport_reaped.  Before
 * `ended' runs, what the process wrote before it died has been read and
 * delivered, and everything it started is killed; `ended' is the last
 * thing the transport does and the owner frees it there.  Callbacks other
 * than `ended' must not free the transport.
 */
#ifndef MCPD_TRANSPORT_H
#define MCPD_TRANSPORT_H

#include <sys/types.h>

#include <stddef.h>

struct child_proc;
struct conf_server;
struct envelope_edit;
struct envelope_span;
struct iovec;
struct mcpd;
struct transport;

struct transport_cb {
	/*
	 * A line of stdout (without its newline), and the run of plain
	 * bytes the framer saw in it (frame.h; length 0, or NULL, for none).
	 */
	void	(*line)(void *arg, const char *line, size_t len,
		    const struct envelope_span *plain);
	/*
	 * A message over max_message_bytes was discarded: its size, the id
	 * found at its start (or NULL) and its first bytes.
	 */
	void	(*oversize)(void *arg, size_t total, const char *id,
		    size_t id_len, const char *head, size_t head_len);
	/* max_message_bytes of stdout without a newline. */
	void	(*garbage)(void *arg, size_t total);
	/* The server wrote on stdout: it is alive. */
	void	(*heard)(void *arg);
	/* A stderr line, cut at len bytes of its total. */
	void	(*err_line)(void *arg, const char *line, size_t len,
		    size_t total);
	/* Some of stdin's queue was written. */
	void	(*drained)(void *arg);
	/* The pipes broke and the process did not exit within the grace. */
	void	(*broke)(void *arg, const char *reason);
	/*
	 * A line of a remote server's status channel (mcpd-remote's
	 * rstatus.h format), or never for a local server.  May be NULL.
	 */
	void	(*status)(void *arg, const char *line, size_t len);
	/* The process exited (wait status): free the transport here. */
	void	(*ended)(void *arg, int wstatus);
};

/*
 * name: the worker's, for its cgroup (child_spawn); sbx: its sandbox, or
 * NULL (child.h).
 */
struct child_sandbox;
struct transport *transport_start(struct mcpd *, const struct conf_server *,
		    const char *name, const struct child_sandbox *,
		    const struct transport_cb *, void *arg, char **cause);
/*
 * A re-exec: what the next mcpd needs of this transport (handover.h);
 * -1 if it cannot be handed over (its pipes are closing, or a half line
 * is being discarded).  transport_adopt takes over a process from that
 * state; the descriptors are made close-on-exec again.
 */
struct handover_server;
int		 transport_export(const struct transport *,
		    struct handover_server *);
struct transport *transport_adopt(struct mcpd *, const struct conf_server *,
		    const struct transport_cb *, void *arg,
		    const struct handover_server *);
/* Kills the process (if it still runs) and frees everything. */
void		 transport_free(struct transport *);
/* The SIGCHLD handler: 1 if pid was a transport's (it has ended). */
int		 transport_reaped(struct mcpd *, pid_t, int wstatus);

/* Queue a message (pieces, newline added) for stdin; -1 once closed. */
int		 transport_write(struct transport *, const struct iovec *,
		    int iovcnt);
/* The same for a line with one edit applied (outq_add_edit). */
int		 transport_write_edit(struct transport *, const char *line,
		    size_t len, const struct envelope_edit *);
size_t		 transport_queued(const struct transport *);
/* EOF on stdin (what is still queued is dropped): please exit. */
void		 transport_close_input(struct transport *);
/* Signal the server's process group. */
void		 transport_signal(struct transport *, int sig);
/* SIGKILL the server and everything it started, now. */
void		 transport_kill(struct transport *);
/*
 * From inside `line': take the buffer holding that line (see frame.h),
 * so a large reply moves on without a copy.  NULL if it is not the line
 * being delivered.
 */
char		*transport_steal_line(struct transport *, const char *line,
		    size_t *size);
pid_t		 transport_pid(const struct transport *);
/* Whose exit ends it: the server, or its reaper. */
pid_t		 transport_exit_pid(const struct transport *);
/* Its cgroup's leaf below cgroup_root(), "server-NAME", or "": none. */
const char	*transport_cgroup_leaf(const struct transport *);
/* "cgroup", "reaper" or "process-group". */
const char	*transport_containment(const struct transport *);
/* The process and how it is contained (to freeze it: freeze.h). */
const struct child_proc *transport_proc(const struct transport *);
/* 1 if spawned in a sandbox; *held: what held (sbapply.h SB_HELD_*). */
int		 transport_sandbox(const struct transport *, unsigned int *held);

/* For login.c, which runs mcpd-remote for a sign-in too. */
/* The program: beside mcpd's executable, else in BINDIR. */
const char	*transport_remote_program(void);
/* A remote server's settings in a sealed memfd (never on a command line). */
struct conf_remote_extra;
int		 transport_settings_fd(const struct conf_server *,
		    const struct conf_remote_extra *, char **cause);

#endif /* MCPD_TRANSPORT_H */
