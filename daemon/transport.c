/*
 * transport.c -- a server's process and its pipes (see transport.h).
 *
 * Invariants:
 * - A transport exists exactly while its process does: transport_start
 *   spawns it, and it is freed when the process has been reaped (or at
 *   exit, after a SIGKILL).
 * - The process exit (SIGCHLD) ends the transport.  stdout EOF, or stdin
 *   closed by the server, before the exit only arms a short grace timer,
 *   so a server that simply exits is reported by its exit status, and one
 *   that closes a pipe but keeps running is reported broken after it.
 * - After the leader exits, the whole process group (and cgroup) is
 *   SIGKILLed, so grandchildren the server forked do not survive it.
 */
#include "config.h"

#include <sys/mman.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "child.h"
#include "clock.h"
#include "conf.h"
#include "dirs.h"
#include "fdio.h"
#include "frame.h"
#include "guard.h"
#include "handover.h"
#include "mcpd.h"
#include "outq.h"
#include "paths.h"
#include "transport.h"
#include "xmalloc.h"

#define TRANSPORT_EOF_GRACE_MS		500
#define TRANSPORT_STDERR_LINE_MAX_BYTES	65536
#define TRANSPORT_READS_PER_CALLBACK	64
#define TRANSPORT_DRAIN_MAX_BYTES	(4 * 1024 * 1024)
#define TRANSPORT_STATUS_LINE_MAX_BYTES	65536
struct transport {
	struct mcpd		*mcpd;
	struct child_proc	 proc;
	const struct transport_cb *cb;
	void			*arg;

	struct event		*ev_out;
	struct event		*ev_err;
	struct event		*ev_in_err;	/* the server closed stdin */
	struct event		*ev_grace;
	const char		*grace_reason;	/* why, when it runs out */
	struct outq		*in;
	int			 in_closed;	/* stdin: nothing more */
	struct frame		*out_frame;
	struct frame		*err_frame;
	/* A remote server's worker: its status channel (mcpd-remote). */
	int			 status_fd;	/* -1: none */
	struct event		*ev_status;
	struct frame		*status_frame;
	const char		*current_line;	/* being delivered */
	int			 closed_by_owner; /* transport_close_input */
	int			 reaped;	/* the process has exited */

	TAILQ_ENTRY(transport)	 entry;
};

/*
 * One end of the pipes is gone (stdout at EOF, stdin closed by the
 * server): the process gets a moment to exit on its own, so its exit
 * status is what is reported, then it is reported broken.
 */
static void
transport_ending(struct transport *t, const char *reason)
{
	struct timeval	 tv = { 0, TRANSPORT_EOF_GRACE_MS * 1000 };

	if (t->closed_by_owner || evtimer_pending(t->ev_grace, NULL))
		return;
	t->grace_reason = reason;
	evtimer_add(t->ev_grace, &tv);
}

static void
transport_grace_cb(evutil_socket_t fd, short events, void *arg)
{
	struct transport	*t = arg;

	if (!t->closed_by_owner)
		t->cb->broke(t->arg, t->grace_reason);
}

/* The queue stays until transport_free: this may run in its callback. */
static void
transport_drop_input(struct transport *t)
{
	if (t->in_closed)
		return;
	t->in_closed = 1;
	outq_stop(t->in);
	event_free(t->ev_in_err);
	t->ev_in_err = NULL;
	close(t->proc.in_fd);
	t->proc.in_fd = -1;
}

static void
transport_stdin_lost(struct transport *t, int error)
{
	transport_drop_input(t);
	transport_ending(t, error == EPIPE || error == 0 ?
	    "stdin closed by the server" : "stdin write failed");
}

/* Only an error wakes this: the write end of a pipe never reads. */
static void
transport_in_err_cb(evutil_socket_t fd, short events, void *arg)
{
	transport_stdin_lost(arg, 0);
}

static void
transport_in_written(void *arg, size_t left)
{
	struct transport	*t = arg;

	t->cb->drained(t->arg);
}

static void
transport_in_failed(void *arg, int error)
{
	transport_stdin_lost(arg, error);
}

static const struct outq_cb transport_in_cb = {
	transport_in_written,
	transport_in_failed,
};

int
transport_write(struct transport *t, const struct iovec *iov, int iovcnt)
{
	if (t->in_closed)
		return (-1);
	outq_add(t->in, iov, iovcnt);
	return (0);
}

int
transport_write_edit(struct transport *t, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	if (t->in_closed)
		return (-1);
	outq_add_edit(t->in, line, len, edit);
	return (0);
}

size_t
transport_queued(const struct transport *t)
{
	return (outq_length(t->in));
}

void
transport_close_input(struct transport *t)
{
	t->closed_by_owner = 1;
	evtimer_del(t->ev_grace);
	transport_drop_input(t);
}

void
transport_signal(struct transport *t, int sig)
{
	child_signal_group(t->proc.pid, sig);
}

void
transport_kill(struct transport *t)
{
	child_kill(&t->proc);
}

pid_t
transport_pid(const struct transport *t)
{
	return (t->proc.pid);
}

pid_t
transport_exit_pid(const struct transport *t)
{
	return (t->proc.exit_pid);
}

const char *
transport_cgroup_leaf(const struct transport *t)
{
	return (t->proc.cgroup_leaf);
}

const char *
transport_containment(const struct transport *t)
{
	return (child_containment_name(&t->proc));
}

const struct child_proc *
transport_proc(const struct transport *t)
{
	return (&t->proc);
}

int
transport_sandbox(const struct transport *t, unsigned int *held)
{
	*held = t->proc.sandbox_held;
	return (t->proc.sandboxed);
}

char *
transport_steal_line(struct transport *t, const char *line, size_t *size)
{
	char	*buf;

	if (t->current_line != line)
		return (NULL);
	if ((buf = frame_steal(t->out_frame, size)) != NULL)
		t->current_line = NULL;
	return (buf);
}

static void
transport_out_frames(struct transport *t)
{
	struct frame_msg	 m;
	enum frame_event	 ev;

	while ((ev = frame_next(t->out_frame, &m)) != FRAME_NONE) {
		switch (ev) {
		case FRAME_LINE:
			t->current_line = m.line;
			t->cb->line(t->arg, m.line, m.len, &m.plain);
			t->current_line = NULL;
			break;
		case FRAME_OVERSIZE:
			t->cb->oversize(t->arg, m.total, m.id, m.id_len,
			    m.head, m.head_len);
			break;
		case FRAME_GARBAGE:
			t->cb->garbage(t->arg, m.total);
			break;
		case FRAME_NONE:
			break;
		}
	}
}

/* Read what stdout has, up to max_bytes; returns 1 at EOF. */
static int
transport_read_out(struct transport *t, size_t max_bytes)
{
	size_t	 avail, total = 0;
	ssize_t	 n;
	int	 reads;

	for (reads = 0; total < max_bytes; reads++) {
		if (max_bytes == SIZE_MAX &&
		    reads >= TRANSPORT_READS_PER_CALLBACK)
			break;
		n = fdio_read_frame(t->proc.out_fd, t->out_frame, &avail);
		if (n > 0) {
			if (reads == 0)
				t->cb->heard(t->arg);
			total += (size_t)n;
			transport_out_frames(t);
			/*
			 * A short read drained the pipe: no second read for
			 * EAGAIN (epoll is level-triggered).  Not when draining
			 * a dead server's pipe, which reads to EOF.
			 */
			if ((size_t)n < avail && max_bytes == SIZE_MAX)
				return (0);
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return (0);
		/* EOF (or a read error, which we treat alike). */
		frame_push(t->out_frame, "\n", 1);	/* a half last line */
		transport_out_frames(t);
		return (1);
	}
	return (0);
}

static void
transport_out_cb(evutil_socket_t fd, short events, void *arg)
{
	struct transport	*t = arg;
	int			 batch = clock_batch_begin();
	int			 out = outq_batch_begin();

	if (transport_read_out(t, SIZE_MAX)) {
		event_del(t->ev_out);
		transport_ending(t, "stdout closed");
	}
	outq_batch_end(out);
	clock_batch_end(batch);
}

static void
transport_err_frames(struct transport *t)
{
	struct frame_msg	 m;
	enum frame_event	 ev;

	while ((ev = frame_next(t->err_frame, &m)) != FRAME_NONE) {
		if (ev == FRAME_LINE)
			t->cb->err_line(t->arg, m.line, m.len, m.len);
		else if (ev == FRAME_OVERSIZE || ev == FRAME_GARBAGE)
			t->cb->err_line(t->arg, m.head, m.head_len, m.total);
	}
}

/* Read what stderr has; returns 1 at EOF. */
static int
transport_read_err(struct transport *t)
{
	ssize_t	 n;
	int	 reads;

	for (reads = 0; reads < TRANSPORT_READS_PER_CALLBACK; reads++) {
		n = fdio_read_frame(t->proc.err_fd, t->err_frame, NULL);
		if (n > 0) {
			transport_err_frames(t);
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return (0);
		frame_push(t->err_frame, "\n", 1);
		transport_err_frames(t);
		return (1);
	}
	return (0);
}

static void
transport_err_cb(evutil_socket_t fd, short events, void *arg)
{
	struct transport	*t = arg;

	if (transport_read_err(t))
		event_del(t->ev_err);
}

/* Status lines from mcpd-remote; returns 1 at EOF. */
static int
transport_read_status(struct transport *t)
{
	struct frame_msg	 m;
	enum frame_event	 ev;
	ssize_t			 n;
	int			 reads, eof = 0;

	for (reads = 0; reads < TRANSPORT_READS_PER_CALLBACK; reads++) {
		n = fdio_read_frame(t->status_fd, t->status_frame, NULL);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			eof = 1;
			break;
		}
		while ((ev = frame_next(t->status_frame, &m)) != FRAME_NONE) {
			/* Longer lines are not the worker's: dropped. */
			if (ev == FRAME_LINE && t->cb->status != NULL)
				t->cb->status(t->arg, m.line, m.len);
		}
	}
	return (eof);
}

static void
transport_status_cb(evutil_socket_t fd, short events, void *arg)
{
	struct transport	*t = arg;

	if (transport_read_status(t))
		event_del(t->ev_status);
}

/*
 * The program that runs remote servers (paths_own_program).
 */
const char *
transport_remote_program(void)
{
	static char	 path[PATH_MAX];

	if (path[0] == '\0')
		paths_own_program(CONF_REMOTE_PROGRAM, path, sizeof path);
	return (path);
}

/*
 * A remote server's settings (secrets included) in a sealed memfd, so
 * they never appear on a command line or in an environment.
 */
int
transport_settings_fd(const struct conf_server *cs,
    const struct conf_remote_extra *extra, char **cause)
{
	char	*text;
	int	 fd;

	text = conf_remote_settings(cs, extra);
	fd = fdio_sealed_memfd("mcpd-remote-settings", "settings", text,
	    strlen(text), cause);
	explicit_bzero(text, strlen(text));
	free(text);
	return (fd);
}

static int
transport_spawn(struct mcpd *mcpd, struct transport *t,
    const struct conf_server *cs, const char *name,
    const struct child_sandbox *sbx, char **cause)
{
	struct conf_server	 remote;
	struct conf_remote_extra rx;
	struct child_extra	 extra;
	char			*argv[2], *token_file;
	int			 status[2], settings, rv;
	char			 env_status[64], env_settings[64];

	t->status_fd = -1;
	if (cs->url == NULL)
		return (child_spawn(cs, name, NULL, sbx, &t->proc, cause));
	memset(&rx, 0, sizeof rx);
	token_file = paths_token_file(mcpd->token_dir, cs->name);
	rx.token_file = conf_remote_signs_in(cs) ? token_file : NULL;
	settings = transport_settings_fd(cs, &rx, cause);
	free(token_file);
	if (settings == -1)
		return (-1);
	if (pipe2(status, O_CLOEXEC) == -1) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		close(settings);
		return (-1);
	}
	memset(&extra, 0, sizeof extra);
	extra.fds[0] = status[1];
	extra.fds[1] = settings;
	extra.nfds = 2;
	snprintf(env_status, sizeof env_status, "MCPD_REMOTE_STATUS_FD=%d",
	    CHILD_EXTRA_FD);
	snprintf(env_settings, sizeof env_settings,
	    "MCPD_REMOTE_SETTINGS_FD=%d", CHILD_EXTRA_FD + 1);
	extra.env[0] = env_status;
	extra.env[1] = env_settings;
	extra.env[2] = NULL;
	remote = *cs;
	argv[0] = (char *)transport_remote_program();
	argv[1] = NULL;
	remote.argv = argv;
	rv = child_spawn(&remote, name, &extra, NULL, &t->proc, cause);
	close(status[1]);
	close(settings);
	if (rv != 0) {
		close(status[0]);
		return (rv);
	}
	t->status_fd = status[0];
	fcntl(t->status_fd, F_SETFL, O_NONBLOCK);
	return (0);
}

/* A process is there (spawned or adopted): its buffers and events. */
static void
transport_setup(struct mcpd *mcpd, struct transport *t,
    const struct conf_server *cs, const struct transport_cb *cb, void *arg)
{
	t->mcpd = mcpd;
	t->cb = cb;
	t->arg = arg;
	t->out_frame = frame_new(cs->max_message_bytes);
	frame_track_plain(t->out_frame);
	t->err_frame = frame_new(TRANSPORT_STDERR_LINE_MAX_BYTES);
	t->in = outq_new(mcpd, t->proc.in_fd, &transport_in_cb, t);
	t->ev_out = event_new(mcpd->base, t->proc.out_fd,
	    EV_READ | EV_PERSIST, transport_out_cb, t);
	t->ev_err = event_new(mcpd->base, t->proc.err_fd,
	    EV_READ | EV_PERSIST, transport_err_cb, t);
	t->ev_in_err = event_new(mcpd->base, t->proc.in_fd,
	    EV_READ | EV_PERSIST, transport_in_err_cb, t);
	t->ev_grace = evtimer_new(mcpd->base, transport_grace_cb, t);
	event_add(t->ev_out, NULL);
	event_add(t->ev_err, NULL);
	event_add(t->ev_in_err, NULL);
	if (t->status_fd != -1) {
		t->status_frame = frame_new(TRANSPORT_STATUS_LINE_MAX_BYTES);
		t->ev_status = event_new(mcpd->base, t->status_fd,
		    EV_READ | EV_PERSIST, transport_status_cb, t);
		event_add(t->ev_status, NULL);
	}
	TAILQ_INSERT_TAIL(&mcpd->transports, t, entry);
}

struct transport *
transport_start(struct mcpd *mcpd, const struct conf_server *cs,
    const char *name, const struct child_sandbox *sbx,
    const struct transport_cb *cb, void *arg, char **cause)
{
	struct transport	*t;

	t = xcalloc(1, sizeof *t);
	if (transport_spawn(mcpd, t, cs, name, sbx, cause) != 0) {
		free(t);
		return (NULL);
	}
	guard_add(mcpd, t->proc.pid);
	transport_setup(mcpd, t, cs, cb, arg);
	return (t);
}

/* A framer's half line, into the state; 0 if it cannot be carried. */
static int
transport_export_frame(const struct frame *f, struct handover_bytes *b)
{
	const char	*p;
	size_t		 len;

	if (frame_pending(f, &p, &len) != 0)
		return (0);
	if (len > 0) {
		b->p = xmalloc(len);
		memcpy(b->p, p, len);
		b->len = len;
	}
	return (1);
}

int
transport_export(const struct transport *t, struct handover_server *s)
{
	if (t->reaped || t->in_closed || t->closed_by_owner ||
	    evtimer_pending(t->ev_grace, NULL))
		return (-1);
	s->pid = t->proc.pid;
	s->exit_pid = t->proc.exit_pid;
	s->containment = (int)t->proc.containment;
	s->cgroup_leaf = xstrdup(t->proc.cgroup_leaf);
	s->sandboxed = t->proc.sandboxed;
	s->sandbox_held = t->proc.sandbox_held;
	s->in_fd = t->proc.in_fd;
	s->out_fd = t->proc.out_fd;
	s->err_fd = t->proc.err_fd;
	s->status_fd = t->status_fd;
	if (!transport_export_frame(t->out_frame, &s->out_partial))
		return (-1);
	(void)transport_export_frame(t->err_frame, &s->err_partial);
	if (t->status_frame != NULL &&
	    !transport_export_frame(t->status_frame, &s->status_partial))
		return (-1);
	s->in_queued.p = outq_copy(t->in, &s->in_queued.len);
	return (0);
}

/* Descriptors handed over were open across execve: close them on the next. */
static void
transport_cloexec(int fd)
{
	int	 flags;

	if (fd >= 0 && (flags = fcntl(fd, F_GETFD)) != -1)
		(void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

struct transport *
transport_adopt(struct mcpd *mcpd, const struct conf_server *cs,
    const struct transport_cb *cb, void *arg,
    const struct handover_server *s)
{
	struct transport	*t;

	t = xcalloc(1, sizeof *t);
	t->proc.pid = s->pid;
	t->proc.exit_pid = s->exit_pid;
	t->proc.containment = (enum child_containment)s->containment;
	t->proc.sandboxed = s->sandboxed;
	t->proc.sandbox_held = s->sandbox_held;
	if (s->cgroup_leaf != NULL)
		snprintf(t->proc.cgroup_leaf, sizeof t->proc.cgroup_leaf, "%s",
		    s->cgroup_leaf);
	t->proc.in_fd = s->in_fd;
	t->proc.out_fd = s->out_fd;
	t->proc.err_fd = s->err_fd;
	t->status_fd = s->status_fd;
	transport_cloexec(t->proc.in_fd);
	transport_cloexec(t->proc.out_fd);
	transport_cloexec(t->proc.err_fd);
	transport_cloexec(t->status_fd);
	/* The guard has known the group since the first mcpd spawned it. */
	transport_setup(mcpd, t, cs, cb, arg);
	if (s->out_partial.len > 0)
		frame_push(t->out_frame, s->out_partial.p, s->out_partial.len);
	if (s->err_partial.len > 0)
		frame_push(t->err_frame, s->err_partial.p, s->err_partial.len);
	if (t->status_frame != NULL && s->status_partial.len > 0)
		frame_push(t->status_frame, s->status_partial.p,
		    s->status_partial.len);
	if (s->in_queued.len > 0)
		outq_add_bytes(t->in, s->in_queued.p, s->in_queued.len);
	return (t);
}

void
transport_free(struct transport *t)
{
	if (t == NULL)
		return;
	if (!t->reaped) {
		child_kill(&t->proc);
		guard_remove(t->mcpd, t->proc.pid);
	}
	TAILQ_REMOVE(&t->mcpd->transports, t, entry);
	transport_drop_input(t);
	outq_free(t->in);
	event_free(t->ev_out);
	event_free(t->ev_err);
	event_free(t->ev_grace);
	close(t->proc.out_fd);
	close(t->proc.err_fd);
	frame_free(t->out_frame);
	frame_free(t->err_frame);
	if (t->status_fd != -1) {
		event_free(t->ev_status);
		close(t->status_fd);
		frame_free(t->status_frame);
	}
	free(t);
}

int
transport_reaped(struct mcpd *mcpd, pid_t pid, int wstatus)
{
	struct transport	*t;

	TAILQ_FOREACH(t, &mcpd->transports, entry) {
		if (!t->reaped && t->proc.exit_pid == pid)
			break;
	}
	if (t == NULL)
		return (0);

	/* Nothing of the group (or cgroup) may outlive its leader. */
	child_kill(&t->proc);
	guard_remove(mcpd, t->proc.pid);
	evtimer_del(t->ev_grace);

	/* What the server wrote before it died still counts. */
	if (event_pending(t->ev_out, EV_READ, NULL))
		transport_read_out(t, TRANSPORT_DRAIN_MAX_BYTES);
	if (event_pending(t->ev_err, EV_READ, NULL))
		transport_read_err(t);
	if (t->status_fd != -1 && event_pending(t->ev_status, EV_READ, NULL))
		transport_read_status(t);
	t->reaped = 1;
	t->cb->ended(t->arg, wstatus);
	return (1);
}
