/*
 * reaper.c -- the per-server reaper process (see reaper.h).
 *
 * Invariants:
 * - The reaper only ever signals its own children (their pids cannot be
 *   reused before it reaps them) and the server's process group while the
 *   server is unreaped or has members left.
 * - After the server has exited, every reaped child may have left orphans,
 *   which the kernel re-parents to the reaper before their parent can be
 *   reaped: so the children are listed and SIGKILLed again after each
 *   reap, until there is none.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reaper.h"
#include "util.h"

#define REAPER_EXIT_LOST	127	/* mcpd died before we could start */
#define REAPER_BUF_BYTES	4096

static volatile sig_atomic_t	reaper_server = 0;
static volatile sig_atomic_t	reaper_server_done = 0;

int
reaper_become(pid_t parent)
{
	int	 sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	(void)setpgid(0, 0);
	(void)prctl(PR_SET_NAME, "mcpd-reaper");
	/* Blocked until reaper_run has a handler for it. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(REAPER_EXIT_LOST);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		return (errno);
	return (0);
}

static void
reaper_stop_cb(int sig)
{
	int	 saved = errno;

	if (!reaper_server_done) {
		(void)kill(-(pid_t)reaper_server, SIGKILL);
		(void)kill((pid_t)reaper_server, SIGKILL);
	}
	errno = saved;
}

/* SIGKILL the pids of a list ("12 34 56"); returns how many there were. */
static int
reaper_kill_list(const char *text)
{
	const char	*p = text;
	char		*end;
	long		 pid;
	int		 n = 0;

	for (;;) {
		pid = strtol(p, &end, 10);
		if (end == p)
			return (n);
		if (pid > 0) {
			(void)kill((pid_t)pid, SIGKILL);
			n++;
		}
		p = end;
	}
}

/* Without /proc/PID/task/TID/children: every process whose parent we are. */
static void
reaper_kill_children_scan(void)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[sizeof de->d_name + 16], buf[512], *p;
	long		 ppid;
	ssize_t		 n;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "pid (comm) state ppid ...": comm may hold anything. */
		if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1,
		    " %*c %ld", &ppid) != 1 || ppid != (long)getpid())
			continue;
		(void)kill((pid_t)atol(de->d_name), SIGKILL);
	}
	closedir(d);
}

static void
reaper_kill_children(void)
{
	char	 path[64], buf[REAPER_BUF_BYTES];
	ssize_t	 n;
	int	 fd, more;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children",
	    (long)getpid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		reaper_kill_children_scan();
		return;
	}
	do {
		n = read(fd, buf, sizeof buf - 1);
		more = n == (ssize_t)sizeof buf - 1;
		if (n <= 0)
			break;
		buf[n] = '\0';
		if (more) {
			/* A pid may be cut at the end: the next round gets it. */
			while (n > 0 && buf[n - 1] != ' ')
				buf[--n] = '\0';
		}
		reaper_kill_list(buf);
	} while (more);
	close(fd);
}

/* Leave the way the server left: same exit code, or same signal. */
static void __attribute__((noreturn))
reaper_exit_like(int status)
{
	struct rlimit	 no_core = { 0, 0 };
	sigset_t	 set;
	int		 sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
	(void)setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	(void)kill(getpid(), sig);
	_exit(128 + sig);
}

void
reaper_run(pid_t server)
{
	static const int	 stops[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	struct sigaction	 sa;
	sigset_t		 none;
	pid_t			 pid;
	size_t			 i;
	int			 status, server_status = 0;

	reaper_server = server;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = reaper_stop_cb;	/* no SA_RESTART: waitpid returns */
	sigfillset(&sa.sa_mask);
	for (i = 0; i < nitems(stops); i++)
		sigaction(stops[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	for (;;) {
		if (reaper_server_done)
			reaper_kill_children();
		pid = waitpid(-1, &status, 0);
		if (pid == -1) {
			if (errno == EINTR)
				continue;
			break;		/* ECHILD: nothing is left */
		}
		if (pid == server && !reaper_server_done) {
			server_status = status;
			/* Members of its group may be our grandchildren. */
			(void)kill(-server, SIGKILL);
			reaper_server_done = 1;
		}
	}
	reaper_exit_like(server_status);
}
