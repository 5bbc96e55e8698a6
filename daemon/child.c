/*
 * child.c -- fork and exec a server in its own process group.
 *
 * The parent blocks every signal around fork() so the child cannot run a
 * libevent signal handler before it resets them.  The child reports an
 * exec failure as an errno through a close-on-exec pipe and _exits.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "xmalloc.h"

#define CHILD_EXEC_FAILED	127

/* What the child was doing when it failed, as reported to the parent. */
enum child_stage {
	CHILD_STAGE_SETUP,
	CHILD_STAGE_CHDIR,
	CHILD_STAGE_EXEC,
};

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

/* mcpd's own passed variables, then the configured ones (which win). */
static char **
child_build_env(const struct conf_server *cs)
{
	static const char *pass[] = CHILD_ENV_PASS;
	char		**env;
	const char	 *value;
	size_t		  n = 0, i;

	env = xcalloc((sizeof pass / sizeof pass[0]) + cs->envc + 2, sizeof *env);
	for (i = 0; pass[i] != NULL; i++) {
		if ((value = getenv(pass[i])) != NULL) {
			if (child_env_get(cs->env, pass[i]) != NULL)
				continue;
			xasprintf(&env[n++], "%s=%s", pass[i], value);
		}
	}
	for (i = 0; i < cs->envc; i++)
		env[n++] = xstrdup(cs->env[i]);
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

static void
child_close_pipe(int fds[2])
{
	if (fds[0] != -1)
		close(fds[0]);
	if (fds[1] != -1)
		close(fds[1]);
	fds[0] = fds[1] = -1;
}

static void __attribute__((noreturn))
child_exec(const struct conf_server *cs, const char *file, char **env,
    int in[2], int out[2], int err[2], int report, pid_t parent)
{
	sigset_t	 all;
	int		 sig, report_msg[2];
	int		 stage = CHILD_STAGE_SETUP;

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
#ifdef HAVE_CLOSE_RANGE
	if (close_range(4, ~0U, 0) != 0)
#endif
	{
		long	 fd, max = sysconf(_SC_OPEN_MAX);

		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = 4; fd < max; fd++)
			close((int)fd);
	}
	stage = CHILD_STAGE_CHDIR;
	if (cs->cwd != NULL && chdir(cs->cwd) != 0)
		goto fail;
	stage = CHILD_STAGE_EXEC;
	execve(file, cs->argv, env);
fail:
	report_msg[0] = stage;
	report_msg[1] = errno;
	(void)!write(report, report_msg, sizeof report_msg);
	_exit(CHILD_EXEC_FAILED);
}

int
child_spawn(const struct conf_server *cs, struct child_proc *cp, char **cause)
{
	int		 in[2] = { -1, -1 }, out[2] = { -1, -1 };
	int		 err[2] = { -1, -1 }, report[2] = { -1, -1 };
	char		**env = NULL, *file = NULL;
	sigset_t	 all, saved;
	pid_t		 pid, parent = getpid();
	int		 error = 0, status, report_msg[2];
	ssize_t		 n;

	*cause = NULL;
	env = child_build_env(cs);
	file = child_find_command(cs->argv[0], child_env_get(env, "PATH"),
	    &error);
	if (file == NULL) {
		xasprintf(cause, "exec %s: %s", cs->argv_display[0], strerror(error));
		goto fail;
	}
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
	    pipe2(err, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) {
		xasprintf(cause, "pipe: %s", strerror(errno));
		goto fail;
	}

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &saved);
	pid = fork();
	if (pid == 0)
		child_exec(cs, file, env, in, out, err, report[1], parent);
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
	do
		n = read(report[0], report_msg, sizeof report_msg);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)sizeof report_msg) {
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
		error = report_msg[1];
		switch (report_msg[0]) {
		case CHILD_STAGE_CHDIR:
			xasprintf(cause, "chdir %s: %s", cs->cwd_display,
			    strerror(error));
			break;
		case CHILD_STAGE_EXEC:
			xasprintf(cause, "exec %s: %s", cs->argv_display[0],
			    strerror(error));
			break;
		default:
			xasprintf(cause, "setting up %s: %s", cs->argv_display[0],
			    strerror(error));
			break;
		}
		goto fail;
	}

	close(in[0]);
	close(out[1]);
	close(err[1]);
	close(report[0]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	cp->pid = pid;
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
