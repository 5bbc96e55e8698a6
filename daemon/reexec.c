/*
 * reexec.c -- a live re-exec of mcpd (see reexec.h).
 *
 * Invariants:
 * - Nothing is changed before the state is complete and the binary is
 *   known to be executable; after a failed execve every descriptor is
 *   close-on-exec again and this mcpd runs on.  The one thing a failed
 *   execve cannot take back: servers whose process could not be handed
 *   over (starting, stopping, pipes closing) were killed before it, and
 *   restart by the usual policy.
 * - Only what the state names crosses the execve: everything else of
 *   mcpd's is close-on-exec (clients, the event loop, the journal).
 * - The new process takes over within REEXEC_TAKEOVER_S or dies: an alarm
 *   crosses the execve, and only a new mcpd that has taken over clears
 *   it.  A binary that hangs before (a broken build, a lock it waits on)
 *   would otherwise leave the servers unsupervised for as long as it
 *   hangs; killed by SIGALRM, it closes the guard's pipe, the guard ends
 *   the servers, and systemd starts mcpd afresh, as after any crash.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "auditq.h"
#include "cgroup.h"
#include "child.h"
#include "clock.h"
#include "conf.h"
#include "fdio.h"
#include "guard.h"
#include "handover.h"
#include "listener.h"
#include "httpfront.h"
#include "log.h"
#include "mcpd.h"
#include "principal.h"
#include "proto.h"
#include "reexec.h"
#include "reload.h"
#include "sdnotify.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define REEXEC_OPTION	"--reexec-state"
#define REEXEC_TAKEOVER_S	20
#define REEXEC_AUDIT_FLUSH_MS	1000	/* for the audit writer to catch up */

extern char	**environ;

static char	**reexec_argv;		/* without --reexec-state */
static int	  reexec_argc;
static char	 *reexec_exe;

void
reexec_init(int argc, char **argv)
{
	char	 buf[PATH_MAX];
	ssize_t	 n;
	int	 i;

	reexec_argv = xcalloc(argc + 3, sizeof *reexec_argv);
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], REEXEC_OPTION) == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (strncmp(argv[i], REEXEC_OPTION "=",
		    sizeof REEXEC_OPTION) == 0)
			continue;
		reexec_argv[reexec_argc++] = argv[i];
	}
	/*
	 * The path the binary was started from: a package upgrade puts the
	 * new binary there (/proc/self/exe would name the old, deleted one).
	 */
	n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = '\0';
		reexec_exe = xstrdup(buf);
	} else
		reexec_exe = xstrdup(argv[0]);
}

const char *
reexec_binary(void)
{
	return (reexec_exe);
}

/* Descriptors that must cross the execve; restored if it fails. */
struct reexec_fds {
	int	*v;
	size_t	 n;
};

static void
reexec_keep(struct reexec_fds *fds, int fd)
{
	int	 flags;

	if (fd < 0 || (flags = fcntl(fd, F_GETFD)) == -1)
		return;
	(void)fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
	fds->v = xreallocarray(fds->v, fds->n + 1, sizeof *fds->v);
	fds->v[fds->n++] = fd;
}

static void
reexec_restore(struct reexec_fds *fds)
{
	size_t	 i;
	int	 flags;

	for (i = 0; i < fds->n; i++) {
		if ((flags = fcntl(fds->v[i], F_GETFD)) != -1)
			(void)fcntl(fds->v[i], F_SETFD, flags | FD_CLOEXEC);
	}
	free(fds->v);
	fds->v = NULL;
	fds->n = 0;
}

/* The state in a sealed memfd, at offset 0; -1 with *cause. */
static int
reexec_memfd(const char *text, char **cause)
{
	return (fdio_sealed_memfd("mcpd-state", "the state", text,
	    strlen(text), cause));
}

void
reexec_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGCHLD);
}

int
reexec_now(struct mcpd *mcpd, char **cause)
{
	sigset_t		 blocked, saved;
	struct handover		 h;
	struct handover_server	*s;
	struct reexec_fds	 fds = { NULL, 0 };
	struct worker		*w;
	const int		*http_fds;
	char			*text, fdtext[16], **argv;
	size_t			 i, n, handed = 0;
	int			 memfd, owned, error;

	*cause = NULL;
	if (mcpd->shutting_down) {
		xasprintf(cause, "mcpd is shutting down");
		return (-1);
	}
	if (mcpd->conf->text == NULL) {
		xasprintf(cause, "the configuration's text is not at hand");
		return (-1);
	}
	if (access(reexec_exe, X_OK) != 0) {
		xasprintf(cause, "cannot execute %s: %s", reexec_exe,
		    strerror(errno));
		return (-1);
	}

	handover_init(&h);
	h.config_file = xstrdup(mcpd->config_file);
	h.config_text.p = xmalloc(mcpd->conf->text_len);
	memcpy(h.config_text.p, mcpd->conf->text, mcpd->conf->text_len);
	h.config_text.len = mcpd->conf->text_len;
	h.listen_fd = listener_export(mcpd->listener, &owned);
	h.listen_owned = owned;
	h.socket_path = xstrdup(mcpd->socket_path);
	/* The HTTP front's sockets from systemd, for the next front. */
	n = httpfront_sockets(mcpd, &http_fds);
	for (i = 0; i < n; i++)
		handover_add_http_fd(&h, http_fds[i]);
	if (cgroup_root() != NULL)
		h.cgroup_root = xstrdup(cgroup_root());
	h.guard_fd = guard_export(mcpd, &h.guard_pid);
	child_nofile_export(&h.nofile_cur, &h.nofile_max, &h.nofile_raised);
	h.started_ms = mcpd->started_ms;
	h.reexecs = mcpd->reexecs + 1;
	h.workers_total = mcpd->workers_total;
	/* The bridges' principals, for the tasks that go with them. */
	principal_export(mcpd, &h);
	/* The eras of MCP found, so that no server is probed again. */
	worker_probe_export(mcpd, &h);
	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if (worker_removing(w))
			continue;	/* stopping for good: killed below */
		s = handover_add_server(&h);
		worker_export(w, s);
		handed += s->running;
	}
	text = handover_print(&h);
	memfd = reexec_memfd(text, cause);
	free(text);
	if (memfd == -1) {
		handover_free(&h);
		return (-1);
	}

	/* The point of no return for servers that cannot be handed over. */
	i = 0;
	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if (worker_removing(w)) {
			worker_kill_unexported(w, NULL);
			continue;
		}
		s = &h.servers[i++];
		worker_kill_unexported(w, s);
		if (s->running) {
			reexec_keep(&fds, s->in_fd);
			reexec_keep(&fds, s->out_fd);
			reexec_keep(&fds, s->err_fd);
			reexec_keep(&fds, s->status_fd);
		}
	}
	reexec_keep(&fds, h.listen_fd);
	for (i = 0; i < h.nhttp_fds; i++)
		reexec_keep(&fds, h.http_fds[i]);
	reexec_keep(&fds, h.guard_fd);
	reexec_keep(&fds, memfd);

	argv = xcalloc(reexec_argc + 3, sizeof *argv);
	for (i = 0; i < (size_t)reexec_argc; i++)
		argv[i] = reexec_argv[i];
	snprintf(fdtext, sizeof fdtext, "%d", memfd);
	argv[i++] = REEXEC_OPTION;
	argv[i++] = fdtext;
	argv[i] = NULL;

	{
		struct log_field f[] = {
			{ MCPD_FIELD_BINARY, reexec_exe },
		};
		log_event(LOG_NOTICE, MCPD_MID_REEXEC, f, nitems(f),
		    "re-executing %s: %zu server%s handed over running, "
		    "%zu in all; it has %d s to take over", reexec_exe,
		    handed, handed == 1 ? "" : "s", h.nservers,
		    REEXEC_TAKEOVER_S);
	}
	sdnotify_reexecuting(mcpd, reexec_exe);
	handover_free(&h);
	/*
	 * The HTTP front is not handed over: the new mcpd starts its own,
	 * on the sockets systemd passed (handed over above).
	 */
	httpfront_stop(mcpd);
	/* The calls' records still queued: execve would drop them. */
	auditq_flush(REEXEC_AUDIT_FLUSH_MS);
	/*
	 * Until the new process has its handlers, these would kill it (the
	 * default action): they wait, blocked, and come to it once it has.
	 */
	reexec_signals(&blocked);
	sigprocmask(SIG_BLOCK, &blocked, &saved);
	/* Its default action, whatever mcpd's parent left: it must kill. */
	signal(SIGALRM, SIG_DFL);
	alarm(REEXEC_TAKEOVER_S);
	execve(reexec_exe, argv, environ);

	error = errno;
	alarm(0);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	free(argv);
	reexec_restore(&fds);
	close(memfd);
	xasprintf(cause, "execve %s: %s", reexec_exe, strerror(error));
	httpfront_apply(mcpd);
	sdnotify_reloaded(mcpd);
	return (-1);
}

/*
 * The new process.
 */

static void __attribute__((noreturn))
reexec_refuse(const char *why)
{
	log_event(LOG_CRIT, MCPD_MID_REEXEC, NULL, 0,
	    "cannot take over from the mcpd before this one: %s; exiting, "
	    "and its servers end with it", why);
	exit(1);
}

static char *
reexec_read(int fd, size_t *len)
{
	struct stat	 sb;
	char		*buf;
	size_t		 off = 0;
	ssize_t		 n;

	if (fstat(fd, &sb) != 0 || sb.st_size < 0 ||
	    (uintmax_t)sb.st_size > HANDOVER_MAX_BYTES)
		return (NULL);
	buf = xmalloc((size_t)sb.st_size + 1);
	while (off < (size_t)sb.st_size) {
		n = read(fd, buf + off, (size_t)sb.st_size - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	buf[off] = '\0';
	*len = off;
	return (buf);
}

/* A running server the configuration no longer names: it ends. */
static void
reexec_drop(struct mcpd *mcpd, const struct handover_server *s)
{
	struct child_proc	 proc;

	memset(&proc, 0, sizeof proc);
	proc.pid = s->pid;
	proc.exit_pid = s->exit_pid;
	proc.containment = (enum child_containment)s->containment;
	snprintf(proc.cgroup_leaf, sizeof proc.cgroup_leaf, "%s",
	    s->cgroup_leaf != NULL ? s->cgroup_leaf : "");
	child_kill(&proc);
	guard_remove(mcpd, s->pid);
	close(s->in_fd);
	close(s->out_fd);
	close(s->err_fd);
	if (s->status_fd != -1)
		close(s->status_fd);
	log_warnx("%s: not in the configuration handed over; killed", s->name);
}

void
reexec_adopt(struct mcpd *mcpd, int fd)
{
	struct handover		 h;
	struct conf_diags	 diags;
	const struct handover_server *s;
	struct worker		*w;
	char			*text, *cause;
	size_t			 len, i, j, adopted = 0;
	cJSON			*report;

	if ((text = reexec_read(fd, &len)) == NULL)
		reexec_refuse("the state cannot be read");
	close(fd);
	if (handover_parse(text, len, &h, &cause) != 0)
		reexec_refuse(cause);
	free(text);

	conf_diags_init(&diags);
	mcpd->conf = conf_load_text(h.config_file, h.config_text.p,
	    h.config_text.len, &diags);
	if (mcpd->conf == NULL) {
		xasprintf(&cause, "the configuration it ran does not parse "
		    "(%zu error%s; first: %s)", diags.nerrors,
		    diags.nerrors == 1 ? "" : "s", diags.n > 0 ?
		    diags.v[0].text : "?");
		reexec_refuse(cause);
	}
	conf_diags_free(&diags);
	free(mcpd->config_file);
	mcpd->config_file = xstrdup(h.config_file);

	if (cgroup_init(h.cgroup_root, &cause) != 0)
		reexec_refuse(cause);
	guard_adopt(mcpd, h.guard_fd, h.guard_pid);
	child_nofile_adopt(h.nofile_cur, h.nofile_max, h.nofile_raised);
	mcpd->listener = listener_adopt(mcpd, h.listen_fd, h.socket_path,
	    h.listen_owned, &cause);
	if (mcpd->listener == NULL)
		reexec_refuse(cause);
	free(mcpd->socket_path);
	mcpd->socket_path = xstrdup(h.socket_path);
	for (i = 0; i < h.nhttp_fds; i++)
		httpfront_add_socket(mcpd, h.http_fds[i]);
	mcpd->started_ms = h.started_ms;
	mcpd->reexecs = h.reexecs;
	mcpd->workers_total = h.workers_total;
	principal_adopt(mcpd, &h);
	worker_probe_adopt(mcpd, &h);

	for (i = 0; i < mcpd->conf->nservers; i++) {
		for (j = 0; j < h.nservers; j++) {
			if (strcmp(h.servers[j].name,
			    mcpd->conf->servers[i].name) == 0)
				break;
		}
		if (j == h.nservers) {
			(void)worker_new(mcpd, &mcpd->conf->servers[i]);
			continue;
		}
		s = &h.servers[j];
		(void)worker_adopt(mcpd, &mcpd->conf->servers[i], s);
		adopted += s->running;
	}
	for (j = 0; j < h.nservers; j++) {
		s = &h.servers[j];
		if (!s->running || conf_find(mcpd->conf, s->name) != NULL)
			continue;
		/* An instance goes on if its template does. */
		if (s->instance_of != NULL &&
		    (w = worker_find(mcpd, s->instance_of)) != NULL &&
		    worker_adopt_instance(w, s) != NULL) {
			adopted++;
			continue;
		}
		reexec_drop(mcpd, s);
	}
	{
		struct log_field f[] = {
			{ MCPD_FIELD_BINARY, reexec_exe },
		};
		log_event(LOG_NOTICE, MCPD_MID_REEXEC, f, nitems(f),
		    "mcpd %s took over: %zu server%s still running, re-exec "
		    "%llu", PACKAGE_VERSION, adopted, adopted == 1 ? "" : "s",
		    (unsigned long long)h.reexecs);
	}
	handover_free(&h);

	/* What changed on disk meanwhile applies as a reload would. */
	reload_config(mcpd, &report);
	cJSON_Delete(report);
	/* Taken over: the old process's deadline is met. */
	alarm(0);
}
