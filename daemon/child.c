/*
 * child.c -- fork and exec a server in its own process group, contained
 * in its cgroup or below its reaper (see child.h).
 *
 * The parent blocks every signal around fork() so the child cannot run a
 * libevent signal handler before it resets them.  The child reports an
 * exec failure as an errno through a close-on-exec pipe and _exits; a
 * reaper first reports the pid of the server it forked through the same
 * pipe, so the pipe reaches EOF only once the server has exec'd.  A
 * sandboxed server reports which layers held just before its execve.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "log.h"
#include "mcpd.h"
#include "reaper.h"
#include "util.h"
#include "xmalloc.h"

/*
 * The RLIMIT_NOFILE mcpd started with.  A process-wide fact read in the
 * forked child, where the root context is out of reach; it moves with
 * mcpd across a re-exec (reexec.c).
 */
static struct rlimit	child_nofile_start;
static int		child_nofile_raised;

#define CHILD_EXEC_FAILED	127

/* What the child was doing when it failed, as reported to the parent. */
enum child_stage {
	CHILD_STAGE_SETUP,
	CHILD_STAGE_CGROUP,
	CHILD_STAGE_CHDIR,
	CHILD_STAGE_EXEC,
	CHILD_STAGE_FORKED,	/* from a reaper: not a failure */
	CHILD_STAGE_SANDBOX,	/* a required layer is missing */
	CHILD_STAGE_SANDBOX_HELD, /* what held: not a failure */
};

/*
 * One report: a stage, an errno, and for CHILD_STAGE_FORKED the server,
 * for the sandbox's stages the layers that held (SB_HELD_*).
 */
#define CHILD_REPORT_INTS	3

/*
 * The pipe a server writes its messages to: 256 KiB instead of the
 * default 64 KiB, so a large result crosses in a quarter of the reads and
 * wakeups.  The kernel refuses it (EPERM) when the user's pipes already
 * hold pipe-user-pages-soft; the pipe then keeps its default size.
 */
#define CHILD_OUT_PIPE_BYTES	(256 * 1024)

extern char **environ;

static const char *
child_env_get(char **env, const char *name)
{
	size_t	 len = strlen(name);

	for (; env != NULL && *env != NULL; env++) {
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return (*env + len + 1);
	}
	return (NULL);
}

/*
 * mcpd's own passed variables, then the sandbox's (sb_build leaves out
 * those the entry sets), then the configured ones (which win).
 */
static char **
child_build_env(const struct conf_server *cs, const struct child_extra *extra,
    const struct child_sandbox *sbx)
{
	static const char *pass[] = CHILD_ENV_PASS;
	char		**env, *const *sbenv = sbx != NULL ? sbx->env : NULL;
	const char	 *value;
	size_t		  n = 0, i, nsb = 0;

	while (sbenv != NULL && sbenv[nsb] != NULL)
		nsb++;
	env = xcalloc(nitems(pass) + nsb + cs->envc + CHILD_EXTRA_MAX + 2,
	    sizeof *env);
	for (i = 0; pass[i] != NULL; i++) {
		if ((value = getenv(pass[i])) != NULL) {
			if (child_env_get(cs->env, pass[i]) != NULL ||
			    child_env_get((char **)sbenv, pass[i]) != NULL)
				continue;
			xasprintf(&env[n++], "%s=%s", pass[i], value);
		}
	}
	for (i = 0; i < nsb; i++)
		env[n++] = xstrdup(sbenv[i]);
	for (i = 0; i < cs->envc; i++)
		env[n++] = xstrdup(cs->env[i]);
	for (i = 0; extra != NULL && extra->env[i] != NULL; i++)
		env[n++] = xstrdup(extra->env[i]);
	if (child_env_get(env, "PATH") == NULL)
		xasprintf(&env[n++], "PATH=%s", CHILD_DEFAULT_PATH);
	env[n] = NULL;
	return (env);
}

static void
child_free_env(char **env)
{
	char	**p;

	for (p = env; *p != NULL; p++)
		free(*p);
	free(env);
}

/* Resolve a bare command name along PATH, as execvp would. */
static char *
child_find_command(const char *cmd, const char *path, int *error)
{
	const char	*p, *end;
	char		*candidate;
	struct stat	 sb;
	int		 saw_eacces = 0;

	if (strchr(cmd, '/') != NULL)
		return (xstrdup(cmd));
	for (p = path; p != NULL; p = (*end == ':') ? end + 1 : NULL) {
		end = strchrnul(p, ':');
		if (end == p)
			xasprintf(&candidate, "./%s", cmd);
		else
			xasprintf(&candidate, "%.*s/%s", (int)(end - p), p, cmd);
		if (stat(candidate, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (access(candidate, X_OK) == 0)
				return (candidate);
			saw_eacces = 1;
		}
		free(candidate);
	}
	*error = saw_eacces ? EACCES : ENOENT;
	return (NULL);
}

char *
child_command(const struct conf_server *cs)
{
	const char	*path;
	int		 error;

	if (cs->argv == NULL || cs->argv[0] == NULL)
		return (NULL);
	if ((path = child_env_get(cs->env, "PATH")) == NULL &&
	    (path = getenv("PATH")) == NULL)
		path = CHILD_DEFAULT_PATH;
	return (child_find_command(cs->argv[0], path, &error));
}

static void
child_close_pipe(int fds[2])
{
	if (fds[0] != -1)
		close(fds[0]);
	if (fds[1] != -1)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

/* Close every descriptor from lowfd up. */
static void
child_close_from(int lowfd)
{
	long	 fd, max;

#ifdef HAVE_CLOSE_RANGE
	if (close_range((unsigned int)lowfd, ~0U, 0) == 0)
		return;
#endif
	if ((max = sysconf(_SC_OPEN_MAX)) < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		close((int)fd);
}

/*
 * Move the extra descriptors out of the way of 0-3 first (above
 * CHILD_EXTRA_HIGH, close-on-exec), so that setting up stdio and the
 * report pipe cannot clobber them.
 */
#define CHILD_EXTRA_HIGH	100
static int
child_extra_lift(const struct child_extra *extra, int high[CHILD_EXTRA_MAX])
{
	int	i;

	for (i = 0; extra != NULL && i < extra->nfds; i++) {
		high[i] = fcntl(extra->fds[i], F_DUPFD_CLOEXEC,
		    CHILD_EXTRA_HIGH);
		if (high[i] == -1)
			return (-1);
	}
	return (0);
}

/* Then put them in place (dup2 clears close-on-exec); close the rest. */
static int
child_extra_place(const struct child_extra *extra, int high[CHILD_EXTRA_MAX])
{
	int	i, n = extra != NULL ? extra->nfds : 0;

	for (i = 0; i < n; i++) {
		if (dup2(high[i], CHILD_EXTRA_FD + i) == -1)
			return (-1);
	}
	child_close_from(CHILD_EXTRA_FD + n);
	return (0);
}

static void
child_report(int fd, int stage, int error, pid_t pid)
{
	int	 msg[CHILD_REPORT_INTS] = { stage, error, (int)pid };

	(void)!write(fd, msg, sizeof msg);
}

/*
 * Every connection and every server's pipes cost a descriptor: take all the
 * hard limit allows (the soft default, 1024, is a few hundred clients).
 */
void
child_raise_nofile(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		log_warnx("getrlimit RLIMIT_NOFILE: %s", strerror(errno));
		return;
	}
	child_nofile_start = rl;
	if (rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		log_warnx("raising RLIMIT_NOFILE from %llu to %llu: %s",
		    (unsigned long long)child_nofile_start.rlim_cur,
		    (unsigned long long)rl.rlim_cur, strerror(errno));
		return;
	}
	child_nofile_raised = 1;
	log_info("file descriptor limit raised from %llu to %llu (the hard "
	    "limit); servers get %llu", (unsigned long long)
	    child_nofile_start.rlim_cur, (unsigned long long)rl.rlim_cur,
	    (unsigned long long)child_nofile_start.rlim_cur);
}

/* In the child, between fork and execve. */
static void
child_restore_nofile(void)
{
	if (child_nofile_raised)
		(void)setrlimit(RLIMIT_NOFILE, &child_nofile_start);
}

void
child_nofile_export(uint64_t *cur, uint64_t *max, int *raised)
{
	*cur = (uint64_t)child_nofile_start.rlim_cur;
	*max = (uint64_t)child_nofile_start.rlim_max;
	*raised = child_nofile_raised;
}

void
child_nofile_adopt(uint64_t cur, uint64_t max, int raised)
{
	if (!raised)
		return;
	child_nofile_start.rlim_cur = (rlim_t)cur;
	child_nofile_start.rlim_max = (rlim_t)max;
	child_nofile_raised = 1;
}

/*
 * The sandbox, last before execve: what held is reported; a required
 * layer missing (or one half set up) is a failure.
 */
static int
child_sandbox_apply(const struct child_sandbox *sbx, int report)
{
	unsigned int	 held;
	int		 rv, error;

	if (sbx == NULL || sbx->prep == NULL || !sbx->prep->on)
		return (0);
	rv = sb_apply(sbx->prep, &held);
	error = rv == -1 ? errno : 0;
	if (rv == -1 && (sbx->prep->required || (held & SB_HELD_BROKEN))) {
		child_report(report, CHILD_STAGE_SANDBOX, error, (pid_t)held);
		return (-1);
	}
	child_report(report, CHILD_STAGE_SANDBOX_HELD, error, (pid_t)held);
	return (0);
}

/* Into the server's cgroup first, so that all it forks is there too. */
static void __attribute__((noreturn))
child_exec(const struct conf_server *cs, const struct child_extra *extra,
    const struct child_sandbox *sbx, const char *file, char **env,
    int in[2], int out[2], int err[2], int report, pid_t parent,
    int cgroup_fd)
{
	sigset_t	 all;
	int		 sig, stage = CHILD_STAGE_CGROUP;
	int		 high[CHILD_EXTRA_MAX];
	const char	*cwd = cs->cwd;

	if (cgroup_fd != -1 && write(cgroup_fd, "0", 1) != 1)
		goto fail;
	stage = CHILD_STAGE_SETUP;
	/* Reset every handler, then unblock: nothing of mcpd's may run. */
	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);

	if (setpgid(0, 0) != 0)
		goto fail;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
		goto fail;
	if (getppid() != parent)	/* mcpd died before prctl */
		_exit(CHILD_EXEC_FAILED);

	if (child_extra_lift(extra, high) == -1)
		goto fail;
	if (dup2(in[0], STDIN_FILENO) == -1 ||
	    dup2(out[1], STDOUT_FILENO) == -1 ||
	    dup2(err[1], STDERR_FILENO) == -1)
		goto fail;
	/* Keep only 0-2 and the report pipe, moved to fd 3. */
	if (report != 3) {
		if (dup3(report, 3, O_CLOEXEC) == -1)
			goto fail;
		report = 3;
	}
	if (child_extra_place(extra, high) == -1)
		goto fail;
	stage = CHILD_STAGE_CHDIR;
	if (cwd == NULL && sbx != NULL)
		cwd = sbx->workdir;
	if (cwd != NULL && chdir(cwd) != 0)
		goto fail;
	/* mcpd raised its own; servers get the limit it started with. */
	child_restore_nofile();
	if (child_sandbox_apply(sbx, report) == -1)
		_exit(CHILD_EXEC_FAILED);
	stage = CHILD_STAGE_EXEC;
	execve(file, cs->argv, env);
fail:
	child_report(report, stage, errno, 0);
	_exit(CHILD_EXEC_FAILED);
}

/*
 * The reaper: the server's pipes on 0-2 and the report pipe on 3 (where
 * child_exec expects them), nothing else of mcpd's; then fork the server,
 * report its pid, and reap until it and all it started are gone.
 */
static void __attribute__((noreturn))
child_reaper(const struct conf_server *cs, const struct child_extra *extra,
    const struct child_sandbox *sbx, const char *file, char **env,
    int in[2], int out[2], int err[2], int report, pid_t parent)
{
	int	 subreaper_error, fd, i, high[CHILD_EXTRA_MAX];
	int	 std_in[2] = { STDIN_FILENO, -1 };
	int	 std_out[2] = { -1, STDOUT_FILENO };
	int	 std_err[2] = { -1, STDERR_FILENO };
	pid_t	 server, self;

	subreaper_error = reaper_become(parent);
	if (child_extra_lift(extra, high) == -1 ||
	    dup2(in[0], STDIN_FILENO) == -1 ||
	    dup2(out[1], STDOUT_FILENO) == -1 ||
	    dup2(err[1], STDERR_FILENO) == -1 ||
	    (report != 3 && dup3(report, 3, O_CLOEXEC) == -1) ||
	    child_extra_place(extra, high) == -1) {
		child_report(report, CHILD_STAGE_SETUP, errno, 0);
		_exit(CHILD_EXEC_FAILED);
	}
	self = getpid();
	if ((server = fork()) == 0) {
		/* The extra descriptors are where child_exec expects them. */
		struct child_extra placed;

		if (extra != NULL) {
			placed = *extra;
			for (i = 0; i < placed.nfds; i++)
				placed.fds[i] = CHILD_EXTRA_FD + i;
		}
		child_exec(cs, extra != NULL ? &placed : NULL, sbx, file,
		    env, std_in, std_out, std_err, 3, self, -1);
	}
	/* The server has them now; the reaper keeps none. */
	child_close_from(CHILD_EXTRA_FD);
	if (server == -1) {
		child_report(3, CHILD_STAGE_SETUP, errno, 0);
		_exit(CHILD_EXEC_FAILED);
	}
	(void)setpgid(server, server);
	child_report(3, CHILD_STAGE_FORKED, subreaper_error, server);
	close(3);
	/* The server has its copies; the reaper only reaps. */
	child_free_env(env);
	free((char *)file);
	/* The pipes are the server's alone: EOF and EPIPE must mean it. */
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		(void)dup2(fd, STDERR_FILENO);
		close(fd);
	}
	reaper_run(server);
}

/* What held, or what was missing; a missing layer is logged once. */
static void
child_sandbox_held(const struct child_sandbox *sbx, const char *name,
    struct child_proc *cp, unsigned int held, int error)
{
	static unsigned int	 warned;
	unsigned int		 missing;
	char			*why;

	cp->sandboxed = 1;
	cp->sandbox_held = held;
	missing = sbx->prep->asked & sbx->prep->layers & ~held;
	if ((missing & ~warned) == 0)
		return;
	warned |= missing;
	why = sb_missing_describe(sbx->prep, held, error);
	log_warnx("%s: sandbox: %s; the server runs without it (this is "
	    "said once; \"sandbox_required\" refuses such a start)", name,
	    why != NULL ? why : "a layer is missing");
	free(why);
}

/* A failure the child reported: what it was doing, and why. */
static char *
child_failure(const struct conf_server *cs, const struct child_sandbox *sbx,
    const struct child_proc *cp, const int msg[CHILD_REPORT_INTS])
{
	const char	*workdir = sbx != NULL ? sbx->workdir : NULL;
	char		*cause, *why;
	int		 error = msg[1];

	switch (msg[0]) {
	case CHILD_STAGE_CGROUP:
		xasprintf(&cause, "moving into cgroup %s/%s: %s",
		    cgroup_root(), cp->cgroup_leaf, strerror(error));
		break;
	case CHILD_STAGE_CHDIR:
		xasprintf(&cause, "chdir %s: %s", cs->cwd != NULL ?
		    cs->cwd_display : workdir, strerror(error));
		break;
	case CHILD_STAGE_EXEC:
		xasprintf(&cause, "exec %s: %s%s", cs->argv_display[0],
		    strerror(error), error == EACCES && sbx != NULL &&
		    sbx->prep != NULL && sbx->prep->on ? " (the sandbox may "
		    "have refused it: see \"sandbox\" in mcpd.json(5))" : "");
		break;
	case CHILD_STAGE_SANDBOX:
		why = sb_missing_describe(sbx->prep, (unsigned int)msg[2],
		    error);
		xasprintf(&cause, "%s%s", sbx->prep->required ?
		    "sandbox_required: " : "sandbox: ", why != NULL ? why :
		    strerror(error));
		free(why);
		break;
	default:
		xasprintf(&cause, "setting up %s: %s", cs->argv_display[0],
		    strerror(error));
		break;
	}
	return (cause);
}

int
child_spawn(const struct conf_server *cs, const char *name,
    const struct child_extra *extra, const struct child_sandbox *sbx,
    struct child_proc *cp, char **cause)
{
	static int	 warned_subreaper;
	int		 in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int		 err[2] = { -1, -1 }, report[2] = { -1, -1 };
	char		**env = NULL, *file = NULL;
	char		 dir[CGROUP_DIR_MAX];
	sigset_t	 all, saved;
	pid_t		 pid, server, parent = getpid();
	int		 error = 0, status, msg[CHILD_REPORT_INTS];
	int		 cgroup_fd = -1, subreaper_error = 0;
	ssize_t		 n;

	*cause = NULL;
	cp->sandboxed = 0;
	cp->sandbox_held = 0;
	if (sbx != NULL && (sbx->prep == NULL || !sbx->prep->on))
		sbx = NULL;
	env = child_build_env(cs, extra, sbx);
	file = child_find_command(cs->argv[0], child_env_get(env, "PATH"),
	    &error);
	if (file == NULL) {
		xasprintf(cause, "exec %s: %s", cs->argv_display[0], strerror(error));
		goto fail;
	}
	if (cgroup_root() != NULL) {
		if ((cgroup_fd = cgroup_server_prepare(cs, name, dir,
		    sizeof dir, cause)) == -1)
			goto fail;
		cp->containment = CHILD_CONTAIN_CGROUP;
		cgroup_leaf_name(name, cp->cgroup_leaf,
		    sizeof cp->cgroup_leaf);
	} else
		cp->containment = CHILD_CONTAIN_REAPER;
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
	    pipe2(err, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		goto fail;
	}

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	pid = fork();
	if (pid == 0 && cp->containment == CHILD_CONTAIN_CGROUP)
		child_exec(cs, extra, sbx, file, env, in, out, err,
		    report[1], parent, cgroup_fd);
	if (pid == 0)
		child_reaper(cs, extra, sbx, file, env, in, out, err,
		    report[1], parent);
	error = errno;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	if (pid == -1) {
		xasprintf(cause, "fork: %s", strerror(error));
		goto fail;
	}
	/* Also set from here so a signal to the group cannot miss it. */
	(void)setpgid(pid, pid);

	close(report[1]);
	report[1] = -1;
	server = pid;
	for (;;) {
		n = read(report[0], msg, sizeof msg);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == (ssize_t)sizeof msg &&
		    msg[0] == CHILD_STAGE_SANDBOX_HELD && sbx != NULL) {
			child_sandbox_held(sbx, name, cp,
			    (unsigned int)msg[2], msg[1]);
			continue;
		}
		if (n != (ssize_t)sizeof msg || msg[0] != CHILD_STAGE_FORKED)
			break;
		server = (pid_t)msg[2];
		subreaper_error = msg[1];
	}
	if (n == (ssize_t)sizeof msg) {
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
		*cause = child_failure(cs, sbx, cp, msg);
		goto fail;
	}
	if (subreaper_error != 0) {
		cp->containment = CHILD_CONTAIN_PGROUP;
		if (!warned_subreaper++)
			log_warnx("PR_SET_CHILD_SUBREAPER: %s; what servers "
			    "start outside their process group may outlive "
			    "them", strerror(subreaper_error));
	}

	close(in[0]);
	close(out[1]);
	close(err[1]);
	close(report[0]);
	if (cgroup_fd != -1)
		close(cgroup_fd);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(out[0], F_SETPIPE_SZ, CHILD_OUT_PIPE_BYTES);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	cp->pid = server;
	cp->exit_pid = pid;
	cp->in_fd = in[1];
	cp->out_fd = out[0];
	cp->err_fd = err[0];
	child_free_env(env);
	free(file);
	return (0);

fail:
	child_close_pipe(in);
	child_close_pipe(out);
	child_close_pipe(err);
	child_close_pipe(report);
	if (cgroup_fd != -1)
		close(cgroup_fd);
	if (env != NULL)
		child_free_env(env);
	free(file);
	return (-1);
}

void
child_signal_group(pid_t pid, int sig)
{
	if (pid > 0)
		(void)kill(-pid, sig);
}

/* A reaper ends the rest itself once the server's group is dead. */
void
child_kill(const struct child_proc *cp)
{
	char	 dir[CGROUP_DIR_MAX];

	child_signal_group(cp->pid, SIGKILL);
	if (cp->containment == CHILD_CONTAIN_CGROUP && cgroup_root() != NULL) {
		snprintf(dir, sizeof dir, "%s/%s", cgroup_root(),
		    cp->cgroup_leaf);
		cgroup_server_kill(dir);
	}
}

void
child_forget(const char *name)
{
	char	 dir[CGROUP_DIR_MAX], leaf[CGROUP_LEAF_MAX];

	if (cgroup_root() == NULL)
		return;
	cgroup_leaf_name(name, leaf, sizeof leaf);
	snprintf(dir, sizeof dir, "%s/%s", cgroup_root(), leaf);
	cgroup_server_remove(dir);
}

const char *
child_containment_name(const struct child_proc *cp)
{
	switch (cp->containment) {
	case CHILD_CONTAIN_CGROUP:
		return ("cgroup");
	case CHILD_CONTAIN_REAPER:
		return ("reaper");
	case CHILD_CONTAIN_PGROUP:
		return ("process-group");
	case CHILD_CONTAIN_UNSET:
		break;
	}
	return (child_containment_default());
}

const char *
child_containment_default(void)
{
	return (cgroup_root() != NULL ? "cgroup" : "reaper");
}

char *
child_describe_status(int wstatus)
{
	char	*s;
	int	 sig;

	if (WIFEXITED(wstatus))
		xasprintf(&s, "exited with status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus)) {
		sig = WTERMSIG(wstatus);
		xasprintf(&s, "killed by signal %d (SIG%s)%s", sig,
		    sigabbrev_np(sig) != NULL ? sigabbrev_np(sig) : "?",
		    WCOREDUMP(wstatus) ? ", core dumped" : "");
	} else
		xasprintf(&s, "stopped with wait status 0x%x", wstatus);
	return (s);
}
