/*
 * httpfront.c -- mcpd-http run as mcpd's child (httpfront.h).
 *
 * The front parses HTTP in its own process and reaches mcpd on the same
 * socket as any client, so that no HTTP code runs inside mcpd (SPEC 4.7):
 * what mcpd does here is only to start it, watch its exit, and start it
 * again after a delay that doubles with each quick failure (1 s to 30 s;
 * a run of 10 s resets it).  It is found beside mcpd's executable, else
 * in BINDIR, as mcpd-remote is.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "clock.h"
#include "conf.h"
#include "conf_http.h"
#include "dirs.h"
#include "htoken.h"
#include "httpfront.h"
#include "log.h"
#include "paths.h"
#include "mcpd.h"
#include "xmalloc.h"

#define HTTPFRONT_DELAY_MIN_MS	1000
#define HTTPFRONT_DELAY_MAX_MS	30000
#define HTTPFRONT_STEADY_MS	10000

struct httpfront {
	pid_t		 pid;
	char		*text;		/* the "http" object it runs with */
	uint64_t	 started_ms;
	uint32_t	 delay_ms;
	struct event	*ev_restart;
};

/* One front per mcpd; mcpd.h's struct is shared with others' work. */
static struct httpfront	httpfront;

static const char *
httpfront_program(void)
{
	static char	 path[PATH_MAX];

	if (path[0] == '\0')
		paths_own_program("mcpd-http", path, sizeof path);
	return (path);
}

static void
httpfront_exec(struct mcpd *mcpd, const char *text)
{
	const char	*program = httpfront_program();
	char		*tokens, *argv[8];
	sigset_t	 none;
	int		 fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(STDERR_FILENO, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	tokens = htoken_path(mcpd->token_dir);
	argv[0] = (char *)"mcpd-http";
	argv[1] = (char *)"-s";
	argv[2] = mcpd->socket_path;
	argv[3] = (char *)"-t";
	argv[4] = tokens;
	argv[5] = (char *)"-c";
	argv[6] = (char *)text;
	argv[7] = NULL;
	execv(program, argv);
	fprintf(stderr, "mcpd: cannot run %s: %s\n", program,
	    strerror(errno));
	_exit(127);
}

static void
httpfront_start(struct mcpd *mcpd)
{
	pid_t	 pid;

	if ((pid = fork()) == -1) {
		log_warnx("http: cannot start mcpd-http: fork: %s",
		    strerror(errno));
		return;
	}
	if (pid == 0)
		httpfront_exec(mcpd, httpfront.text);
	httpfront.pid = pid;
	httpfront.started_ms = clock_now_ms();
	log_info("http: mcpd-http started (pid %ld)", (long)pid);
}

static void
httpfront_restart_cb(evutil_socket_t fd, short events, void *arg)
{
	struct mcpd	*mcpd = arg;

	(void)fd;
	(void)events;
	if (httpfront.pid == 0 && httpfront.text != NULL &&
	    !mcpd->shutting_down)
		httpfront_start(mcpd);
}

void
httpfront_apply(struct mcpd *mcpd)
{
	const struct conf_http	*h = mcpd->conf->http;

	if (httpfront.text != NULL && h != NULL &&
	    strcmp(httpfront.text, h->text) == 0)
		return;
	httpfront_stop(mcpd);
	if (h == NULL)
		return;
	httpfront.text = xstrdup(h->text);
	httpfront.delay_ms = HTTPFRONT_DELAY_MIN_MS;
	if (httpfront.ev_restart == NULL)
		httpfront.ev_restart = evtimer_new(mcpd->base,
		    httpfront_restart_cb, mcpd);
	httpfront_start(mcpd);
}

int
httpfront_reaped(struct mcpd *mcpd, pid_t pid, int wstatus)
{
	struct timeval	 tv;
	uint64_t	 ran;

	if (pid == 0 || pid != httpfront.pid)
		return (0);
	httpfront.pid = 0;
	if (httpfront.text == NULL || mcpd->shutting_down)
		return (1);
	ran = clock_now_ms() - httpfront.started_ms;
	if (ran >= HTTPFRONT_STEADY_MS)
		httpfront.delay_ms = HTTPFRONT_DELAY_MIN_MS;
	log_warnx("http: mcpd-http (pid %ld) %s %d; starting it again in "
	    "%u ms", (long)pid, WIFSIGNALED(wstatus) ? "killed by signal" :
	    "exited with status", WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) :
	    WEXITSTATUS(wstatus), httpfront.delay_ms);
	tv.tv_sec = httpfront.delay_ms / 1000;
	tv.tv_usec = (httpfront.delay_ms % 1000) * 1000;
	evtimer_add(httpfront.ev_restart, &tv);
	httpfront.delay_ms = httpfront.delay_ms * 2 > HTTPFRONT_DELAY_MAX_MS ?
	    HTTPFRONT_DELAY_MAX_MS : httpfront.delay_ms * 2;
	return (1);
}

void
httpfront_stop(struct mcpd *mcpd)
{
	(void)mcpd;
	if (httpfront.ev_restart != NULL)
		evtimer_del(httpfront.ev_restart);
	if (httpfront.pid != 0) {
		(void)kill(httpfront.pid, SIGTERM);
		/* Its exit is reaped, and not taken for a failure. */
		log_info("http: mcpd-http (pid %ld) stopped",
		    (long)httpfront.pid);
		httpfront.pid = 0;
	}
	free(httpfront.text);
	httpfront.text = NULL;
}

pid_t
httpfront_pid(const struct mcpd *mcpd)
{
	(void)mcpd;
	return (httpfront.pid);
}
