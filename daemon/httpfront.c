/*
 * httpfront.c -- mcpd-http run as mcpd's child (httpfront.h).
 *
 * The front parses HTTP in its own process and reaches mcpd on the same
 * socket as any client, so that no HTTP code runs inside mcpd (SPEC 4.7):
 * what mcpd does here is only to start it, watch its exit, and start it
 * again after a delay that doubles with each quick failure (1 s to 30 s;
 * a run of 10 s resets it).  It is found beside mcpd's executable, else
 * in BINDIR, as mcpd-remote is.
 *
 * The listening sockets systemd passes mcpd under the name "http"
 * (mcpd-http.socket) are held here for mcpd's life, close-on-exec, and
 * handed to every run of the front (-f), so that a restart of the front,
 * or of mcpd across a re-exec, never closes them: clients wait in their
 * backlog meanwhile.  They turn the front on with its defaults ("{}")
 * when mcpd.json has no "http" object.  A TCP one on an address that is
 * not loopback is left out unless "behind_proxy" is set, as a "listen"
 * address would be refused.
 */
#include "config.h"

#include <sys/socket.h>
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
#include "sbuf.h"
#include "xmalloc.h"

#define HTTPFRONT_DELAY_MIN_MS	1000
#define HTTPFRONT_DELAY_MAX_MS	30000
#define HTTPFRONT_STEADY_MS	10000
#define HTTPFRONT_MAX_SOCKETS	64	/* as mcpd-http takes with -f */
#define HTTPFRONT_DEFAULTS	"{}"	/* no "http" object: its defaults */

struct httpfront {
	pid_t		 pid;
	char		*text;		/* the "http" object it runs with */
	char		*fdarg;		/* -f: the sockets it serves, or NULL */
	uint64_t	 started_ms;
	uint32_t	 delay_ms;
	uint32_t	 restarts;	/* runs after an exit of its own */
	struct event	*ev_restart;
	int		 fds[HTTPFRONT_MAX_SOCKETS];	/* systemd's "http" */
	struct conf_http_listen addrs[HTTPFRONT_MAX_SOCKETS]; /* theirs */
	int		 served[HTTPFRONT_MAX_SOCKETS];	/* in fdarg */
	size_t		 nfds;
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

/* A passed socket's address as the front would name it: 0, or -1 logged. */
static int
httpfront_address(int fd, struct conf_http_listen *l)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof ss;
	const char		*why;

	memset(&ss, 0, sizeof ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		log_warnx("http: the socket systemd passed (fd %d): %s", fd,
		    strerror(errno));
		return (-1);
	}
	if (conf_http_listen_sockaddr((struct sockaddr *)&ss, len, l,
	    &why) != 0) {
		log_warnx("http: the socket systemd passed (fd %d): %s", fd,
		    why);
		return (-1);
	}
	return (0);
}

void
httpfront_add_socket(struct mcpd *mcpd, int fd)
{
	struct conf_http_listen	 l;

	(void)mcpd;
	if (httpfront_address(fd, &l) != 0) {
		close(fd);
		return;
	}
	if (httpfront.nfds == HTTPFRONT_MAX_SOCKETS) {
		log_warnx("http: systemd passed more than %d sockets named "
		    "\"http\"; closing %s (fd %d)", HTTPFRONT_MAX_SOCKETS,
		    l.spec, fd);
		conf_http_listen_free(&l);
		close(fd);
		return;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	log_info("http: the front serves %s, the socket systemd passed "
	    "(fd %d)", l.spec, fd);
	httpfront.addrs[httpfront.nfds] = l;	/* a socket keeps its address */
	httpfront.fds[httpfront.nfds++] = fd;
}

size_t
httpfront_sockets(const struct mcpd *mcpd, const int **fds)
{
	(void)mcpd;
	*fds = httpfront.fds;
	return (httpfront.nfds);
}

/*
 * -f's argument: the passed sockets the front may serve under h (NULL:
 * the defaults), those it may not logged; NULL if none.
 */
static char *
httpfront_fdarg(const struct conf_http *h)
{
	const struct conf_http_listen	*l;
	struct sbuf			 sb;
	const char			*why;
	size_t				 i;

	memset(&sb, 0, sizeof sb);
	for (i = 0; i < httpfront.nfds; i++) {
		l = &httpfront.addrs[i];
		httpfront.served[i] = 0;
		if ((why = conf_http_listen_refused(h, l)) != NULL)
			log_warnx("http: not serving %s, the socket systemd "
			    "passed: %s", l->spec, why);
		else {
			sbuf_printf(&sb, "%s%d", sb.len > 0 ? "," : "",
			    httpfront.fds[i]);
			httpfront.served[i] = 1;
		}
	}
	return (sb.p);
}

static void
httpfront_exec(struct mcpd *mcpd, const char *text)
{
	const char	*program = httpfront_program();
	char		*tokens, *argv[10];
	sigset_t	 none;
	size_t		 i;
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
	if (httpfront.fdarg != NULL) {
		/* This child's copies only: mcpd's stay close-on-exec. */
		for (i = 0; i < httpfront.nfds; i++)
			if (httpfront.served[i])
				(void)fcntl(httpfront.fds[i], F_SETFD, 0);
		argv[7] = (char *)"-f";
		argv[8] = httpfront.fdarg;
		argv[9] = NULL;
	}
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
	if (httpfront.fdarg != NULL)
		log_info("http: mcpd-http started (pid %ld) on the sockets "
		    "systemd passed (fd %s)", (long)pid, httpfront.fdarg);
	else
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
	const char		*text;

	text = h != NULL ? h->text : httpfront.nfds > 0 ?
	    HTTPFRONT_DEFAULTS : NULL;
	if (httpfront.text != NULL && text != NULL &&
	    strcmp(httpfront.text, text) == 0)
		return;
	httpfront_stop(mcpd);
	if (text == NULL)
		return;
	httpfront.fdarg = httpfront_fdarg(h);
	if (h == NULL && httpfront.fdarg == NULL) {
		log_warnx("http: no socket systemd passed may be served, and "
		    "mcpd.json has no \"http\" object: the front stays off");
		return;
	}
	httpfront.text = xstrdup(text);
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
	httpfront.restarts++;
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
	free(httpfront.fdarg);
	httpfront.fdarg = NULL;
}

pid_t
httpfront_pid(const struct mcpd *mcpd)
{
	(void)mcpd;
	return (httpfront.pid);
}

cJSON *
httpfront_json(const struct mcpd *mcpd)
{
	const struct conf_http	*h = mcpd->conf->http;
	cJSON			*o, *listen;
	size_t			 i;

	if (httpfront.text == NULL)
		return (NULL);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "state", httpfront.pid != 0 ? "running" :
	    "restarting");
	if (httpfront.pid != 0) {
		cJSON_AddNumberToObject(o, "pid", (double)httpfront.pid);
		cJSON_AddNumberToObject(o, "uptime_ms",
		    (double)(clock_now_ms() - httpfront.started_ms));
	}
	cJSON_AddNumberToObject(o, "restarts", (double)httpfront.restarts);
	listen = cJSON_AddArrayToObject(o, "listen");
	for (i = 0; h != NULL && i < h->nlisten; i++)
		if (!h->listen[i].passed)
			cJSON_AddItemToArray(listen,
			    cJSON_CreateString(h->listen[i].spec));
	for (i = 0; i < httpfront.nfds; i++)
		if (httpfront.served[i])
			cJSON_AddItemToArray(listen,
			    cJSON_CreateString(httpfront.addrs[i].spec));
	cJSON_AddNumberToObject(o, "systemd_sockets", (double)httpfront.nfds);
	return (o);
}
