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
 * - A freeze or a thaw is asked for by a signal that only sets a flag;
 *   the loop blocks it (and SIGCHLD) outside sigsuspend, so none is
 *   missed between the look at the flag and the wait.
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
#include <time.h>
#include <unistd.h>

#include "ident_proc.h"
#include "reaper.h"
#include "util.h"

#define REAPER_EXIT_LOST	127	/* mcpd died before we could start */
#define REAPER_BUF_BYTES	4096
#define REAPER_FREEZE_ROUNDS	16	/* walks of /proc, at most */

static volatile sig_atomic_t	reaper_server = 0;
static volatile sig_atomic_t	reaper_server_done = 0;
static volatile sig_atomic_t	reaper_asked = 0;	/* freeze or thaw */

/* A process as /proc tells it: pid, parent, state letter. */
struct reaper_proc {
	pid_t	pid;
	pid_t	ppid;
	char	state;
};

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

/* /proc/NAME/stat's pid, parent and state (ident_proc.h reads it). */
static int
reaper_proc_read(const char *name, struct reaper_proc *p)
{
	struct identp_stat	 st;
	char			 path[64], buf[512];
	ssize_t			 n;
	int			 fd;

	snprintf(path, sizeof path, "/proc/%s/stat", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof buf);
	close(fd);
	if (n <= 0 || identp_stat(buf, (size_t)n, &st) != 0)
		return (-1);
	p->pid = (pid_t)atol(name);
	p->ppid = st.ppid;
	p->state = st.state;
	return (0);
}

/* Without /proc/PID/task/TID/children: every process whose parent we are. */
static void
reaper_kill_children_scan(void)
{
	DIR			*d;
	struct dirent		*de;
	struct reaper_proc	 p;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    reaper_proc_read(de->d_name, &p) != 0 ||
		    p.ppid != getpid())
			continue;
		(void)kill(p.pid, SIGKILL);
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

static void
reaper_ask_cb(int sig)
{
	reaper_asked = sig;
}

/* Only to end sigsuspend. */
static void
reaper_child_cb(int sig)
{
}

/* Every process there is, sorted by pid (malloc'd; NULL: none read). */
static struct reaper_proc *
reaper_procs(size_t *np)
{
	DIR			*d;
	struct dirent		*de;
	struct reaper_proc	*v = NULL, *nv, p;
	size_t			 n = 0, cap = 0;

	*np = 0;
	if ((d = opendir("/proc")) == NULL)
		return (NULL);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    reaper_proc_read(de->d_name, &p) != 0)
			continue;
		if (n == cap) {
			cap = cap == 0 ? 256 : cap * 2;
			if ((nv = reallocarray(v, cap, sizeof *v)) == NULL)
				break;
			v = nv;
		}
		v[n++] = p;
	}
	closedir(d);
	*np = n;
	return (v);
}

static int
reaper_proc_cmp(const void *a, const void *b)
{
	const struct reaper_proc *pa = a, *pb = b;

	return (pa->pid < pb->pid ? -1 : pa->pid > pb->pid);
}

/*
 * Signal every process below the reaper; with SIGSTOP only those not
 * stopped yet.  Returns how many it signalled.
 */
static size_t
reaper_signal_tree(int sig)
{
	struct reaper_proc	*v, key, *parent;
	pid_t			 self = getpid();
	size_t			 n, i, count = 0;
	char			*below;
	int			 changed;

	if ((v = reaper_procs(&n)) == NULL)
		return (0);
	qsort(v, n, sizeof *v, reaper_proc_cmp);
	if ((below = calloc(n, 1)) == NULL) {
		free(v);
		return (0);
	}
	/* One pass per level of the tree. */
	do {
		changed = 0;
		for (i = 0; i < n; i++) {
			if (below[i])
				continue;
			key.pid = v[i].ppid;
			parent = v[i].ppid == self ? NULL : bsearch(&key, v, n,
			    sizeof *v, reaper_proc_cmp);
			if (v[i].ppid == self ||
			    (parent != NULL && below[parent - v])) {
				below[i] = 1;
				changed = 1;
			}
		}
	} while (changed);
	for (i = 0; i < n; i++) {
		if (!below[i] || (sig == SIGSTOP && (v[i].state == 'T' ||
		    v[i].state == 't' || v[i].state == 'Z' ||
		    v[i].state == 'X')))
			continue;
		(void)kill(v[i].pid, sig);
		count++;
	}
	free(below);
	free(v);
	return (count);
}

/*
 * Freeze: the server's group first (it stops forking), then whatever is
 * below, until a walk finds nothing running; thaw: all of it.
 */
static void
reaper_freeze(int freeze)
{
	struct timespec	 ms = { 0, 1000000L };
	sigset_t	 pending;
	int		 round;

	if (!freeze) {
		(void)kill(-(pid_t)reaper_server, SIGCONT);
		(void)reaper_signal_tree(SIGCONT);
		return;
	}
	(void)kill(-(pid_t)reaper_server, SIGSTOP);
	for (round = 0; round < REAPER_FREEZE_ROUNDS; round++) {
		/* A thaw asked for meanwhile wins: stop no more. */
		if (sigpending(&pending) == 0 &&
		    sigismember(&pending, REAPER_SIG_THAW) == 1)
			break;
		if (reaper_signal_tree(SIGSTOP) == 0)
			break;
		(void)nanosleep(&ms, NULL);
	}
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
	sigset_t		 none, waited;
	pid_t			 pid;
	size_t			 i;
	int			 status, server_status = 0, asked;

	reaper_server = server;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = reaper_stop_cb;	/* no SA_RESTART: waitpid returns */
	sigfillset(&sa.sa_mask);
	for (i = 0; i < nitems(stops); i++)
		sigaction(stops[i], &sa, NULL);
	sa.sa_handler = reaper_ask_cb;
	sigaction(REAPER_SIG_FREEZE, &sa, NULL);
	sigaction(REAPER_SIG_THAW, &sa, NULL);
	sa.sa_handler = reaper_child_cb;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	/* Those three are let in only by sigsuspend (see the invariants). */
	sigemptyset(&none);
	sigemptyset(&waited);
	sigaddset(&waited, SIGCHLD);
	sigaddset(&waited, REAPER_SIG_FREEZE);
	sigaddset(&waited, REAPER_SIG_THAW);
	sigprocmask(SIG_SETMASK, &waited, NULL);

	for (;;) {
		if (reaper_server_done)
			reaper_kill_children();
		if (reaper_asked != 0) {
			asked = reaper_asked;
			reaper_asked = 0;
			if (!reaper_server_done)
				reaper_freeze(asked == REAPER_SIG_FREEZE);
		}
		pid = waitpid(-1, &status, WNOHANG);
		if (pid == 0) {
			sigsuspend(&none);
			continue;
		}
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
