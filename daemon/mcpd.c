/*
 * mcpd.c -- the daemon's entry point: options, configuration, signals, and
 * the wiring between listener, clients and workers.  The work itself lives
 * in the modules; this file only connects them.
 *
 * mcpd never forks into the background: it runs in the foreground, as
 * systemd and other supervisors expect, and tells systemd (sd_notify) when
 * it is ready and when it is stopping.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "auditq.h"
#include "cgroup.h"
#include "child.h"
#include "client.h"
#include "clock.h"
#include "conf.h"
#include "control.h"
#include "group.h"
#include "guard.h"
#include "instance.h"
#include "listener.h"
#include "httpfront.h"
#include "log.h"
#include "login.h"
#include "logs.h"
#include "mcpd.h"
#include "sdnotify.h"
#include "paths.h"
#include "pins_store.h"
#include "principal.h"
#include "proto.h"
#include "reexec.h"
#include "reload.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define MCPD_EXIT_OK		0
#define MCPD_EXIT_FAILURE	1
#define MCPD_EXIT_USAGE		2

#define MCPD_MMAP_THRESHOLD_BYTES	(32 * 1024 * 1024)	/* glibc's max */
#define MCPD_TRIM_THRESHOLD_BYTES	(64 * 1024 * 1024)
/* At exit: how long the audit writer may take to write what it holds. */
#define MCPD_AUDIT_FLUSH_MS		2000

enum {
	OPT_LOG_TARGET = 256,
	OPT_CGROUP,
	OPT_TOKEN_DIR,
	OPT_PIN_DIR,
	OPT_REEXEC_STATE,
};

static const struct option mcpd_options[] = {
	{ "config",		required_argument,	NULL, 'c' },
	{ "socket",		required_argument,	NULL, 's' },
	{ "log-target",		required_argument,	NULL, OPT_LOG_TARGET },
	{ "cgroup",		required_argument,	NULL, OPT_CGROUP },
	{ "token-dir",		required_argument,	NULL, OPT_TOKEN_DIR },
	{ "pin-dir",		required_argument,	NULL, OPT_PIN_DIR },
	{ "reexec-state",	required_argument,	NULL, OPT_REEXEC_STATE },
	{ "check-config",	no_argument,		NULL, 'n' },
	{ "version",		no_argument,		NULL, 'V' },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 }
};

static void __attribute__((noreturn))
mcpd_usage(int status)
{
	FILE	*f = status == MCPD_EXIT_OK ? stdout : stderr;

	fprintf(f,
	    "usage: mcpd [-c|--config FILE] [-s|--socket PATH]\n"
	    "            [--log-target auto|journal|stderr] [--cgroup DIR]\n"
	    "            [--token-dir DIR] [--pin-dir DIR]\n"
	    "            [-n|--check-config] [-V|--version] [-h|--help]\n"
	    "\n"
	    "Supervise the MCP servers in FILE and share them over PATH.\n"
	    "  -c, --config FILE      configuration (default: see mcpd(8))\n"
	    "  -s, --socket PATH      control socket (default: $%s or see "
	    "mcpd(8))\n"
	    "      --log-target T     auto (journal under systemd), journal "
	    "or stderr\n"
	    "      --cgroup DIR       run each server in a cgroup below DIR\n"
	    "      --token-dir DIR    where sign-ins keep their tokens "
	    "(mcpctl login)\n"
	    "      --pin-dir DIR      where the approved definitions of "
	    "servers' tools are kept\n"
	    "  -n, --check-config     validate the configuration and exit\n"
	    "  -V, --version          print the version and exit\n"
	    "  -h, --help             print this help and exit\n",
	    PATHS_SOCKET_ENV);
	exit(status);
}

/* A worker changed state: shutdown ends once all have stopped. */
static void
mcpd_worker_changed(struct mcpd *mcpd)
{
	struct worker	*w;

	sdnotify_status(mcpd);
	if (!mcpd->shutting_down)
		return;
	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if (worker_running(w))
			return;
	}
	event_base_loopexit(mcpd->base, NULL);
}

/* Print every diagnostic; returns the number of errors. */
static size_t
mcpd_report_diags(const struct conf_diags *diags, int to_stderr)
{
	size_t	 i;

	for (i = 0; i < diags->n; i++) {
		if (to_stderr)
			fprintf(stderr, "mcpd: %s%s\n",
			    diags->v[i].level == CONF_WARNING ? "warning: " : "",
			    diags->v[i].text);
		else if (diags->v[i].level == CONF_WARNING)
			log_event(LOG_WARNING, MCPD_MID_CONFIG, NULL, 0,
			    "warning: %s", diags->v[i].text);
		else
			log_event(LOG_ERR, MCPD_MID_CONFIG, NULL, 0, "%s",
			    diags->v[i].text);
	}
	return (diags->nerrors);
}

static void
mcpd_shutdown(struct mcpd *mcpd, const char *why)
{
	struct worker	*w;

	if (mcpd->shutting_down) {
		log_warnx("%s again: killing every server now", why);
		for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
			worker_kill_now(w);
		return;
	}
	log_info("%s: stopping every server", why);
	mcpd->shutting_down = 1;
	httpfront_stop(mcpd);
	sdnotify_stopping(mcpd);
	listener_close(mcpd->listener);
	mcpd->listener = NULL;
	client_close_all(mcpd);
	for (w = worker_first(mcpd); w != NULL; w = worker_next(w))
		worker_stop(w);
	mcpd_worker_changed(mcpd);
}

/* Also reaps grandchildren re-parented to us (subreaper). */
static void
mcpd_reap(struct mcpd *mcpd)
{
	pid_t	 pid;
	int	 status;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (!transport_reaped(mcpd, pid, status) &&
		    !httpfront_reaped(mcpd, pid, status))
			(void)login_reaped(mcpd, pid, status);
	}
}

static void
mcpd_signal_cb(evutil_socket_t sig, short events, void *arg)
{
	struct mcpd	*mcpd = arg;
	cJSON		*report;
	char		*cause;

	switch (sig) {
	case SIGTERM:
	case SIGINT:
		mcpd_shutdown(mcpd, sig == SIGTERM ? "SIGTERM" : "SIGINT");
		break;
	case SIGHUP:
		if (mcpd->shutting_down)
			break;
		log_info("SIGHUP: reloading %s", mcpd->config_file);
		reload_config(mcpd, &report);
		cJSON_Delete(report);
		break;
	case SIGCHLD:
		mcpd_reap(mcpd);
		break;
	case SIGUSR2:
		if (mcpd->shutting_down)
			break;
		log_info("SIGUSR2: re-executing %s", reexec_binary());
		if (reexec_now(mcpd, &cause) != 0) {
			log_warnx("re-exec: %s; this mcpd carries on", cause);
			free(cause);
		}
		break;
	}
}

static void
mcpd_load_workers(struct mcpd *mcpd)
{
	size_t		 i;

	for (i = 0; i < mcpd->conf->nservers; i++)
		(void)worker_new(mcpd, &mcpd->conf->servers[i]);
}

static void
mcpd_free(struct mcpd *mcpd)
{
	struct worker	*w;

	client_free_all(mcpd);
	group_registry_free(mcpd);
	login_free_all(mcpd);
	while ((w = worker_first(mcpd)) != NULL)
		worker_free(w);
	principal_free_all(mcpd);
	worker_probe_free_all(mcpd);
	sdnotify_free(mcpd);
	guard_stop(mcpd);
	listener_close(mcpd->listener);
	event_free(mcpd->ev_sigterm);
	event_free(mcpd->ev_sigint);
	event_free(mcpd->ev_sighup);
	event_free(mcpd->ev_sigchld);
	event_free(mcpd->ev_sigusr2);
	conf_free(mcpd->conf);
	event_base_free(mcpd->base);
	free(mcpd->config_file);
	free(mcpd->socket_path);
	free(mcpd->token_dir);
	free(mcpd->pin_dir);
}

int
main(int argc, char **argv)
{
	struct mcpd		 mcpd;
	struct conf_diags	 diags;
	enum log_target		 target = LOG_TARGET_AUTO;
	int			 ch, check_only = 0, state_fd = -1;
	sigset_t		 sigs;
	char			*cause, *end;
	const char		*cgroup_dir = NULL;
	size_t			 n;
	struct worker		*w;

	memset(&mcpd, 0, sizeof mcpd);
	TAILQ_INIT(&mcpd.workers);
	mcpd.worker_changed = mcpd_worker_changed;
	mcpd.logs_followers = &logs_followers;
	mcpd.client_roots = instance_client_roots;
	mcpd.member_listed = group_shadow_listed;
	TAILQ_INIT(&mcpd.clients);
	TAILQ_INIT(&mcpd.transports);
	TAILQ_INIT(&mcpd.logins);
	reexec_init(argc, argv);

	while ((ch = getopt_long(argc, argv, "c:s:nVh", mcpd_options,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			free(mcpd.config_file);
			mcpd.config_file = xstrdup(optarg);
			break;
		case 's':
			free(mcpd.socket_path);
			mcpd.socket_path = xstrdup(optarg);
			break;
		case OPT_CGROUP:
			cgroup_dir = optarg;
			break;
		case OPT_TOKEN_DIR:
			if (*optarg != '/') {
				fprintf(stderr, "mcpd: --token-dir: expected "
				    "an absolute path\n");
				mcpd_usage(MCPD_EXIT_USAGE);
			}
			free(mcpd.token_dir);
			mcpd.token_dir = xstrdup(optarg);
			break;
		case OPT_PIN_DIR:
			if (*optarg != '/') {
				fprintf(stderr, "mcpd: --pin-dir: expected "
				    "an absolute path\n");
				mcpd_usage(MCPD_EXIT_USAGE);
			}
			free(mcpd.pin_dir);
			mcpd.pin_dir = xstrdup(optarg);
			break;
		case OPT_REEXEC_STATE:
			errno = 0;
			state_fd = (int)strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    state_fd < 3) {
				fprintf(stderr, "mcpd: --reexec-state: expected "
				    "a descriptor number\n");
				mcpd_usage(MCPD_EXIT_USAGE);
			}
			break;
		case OPT_LOG_TARGET:
			if (log_target_parse(optarg, &target) != 0) {
				fprintf(stderr, "mcpd: --log-target: unknown "
				    "target \"%s\" (auto, journal or stderr)\n",
				    optarg);
				mcpd_usage(MCPD_EXIT_USAGE);
			}
			break;
		case 'n':
			check_only = 1;
			break;
		case 'V':
			printf("mcpd %s\n", PACKAGE_VERSION);
			return (MCPD_EXIT_OK);
		case 'h':
			mcpd_usage(MCPD_EXIT_OK);
		default:
			mcpd_usage(MCPD_EXIT_USAGE);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "mcpd: unexpected argument: %s\n", argv[optind]);
		mcpd_usage(MCPD_EXIT_USAGE);
	}
	if (mcpd.config_file == NULL)
		mcpd.config_file = paths_default_config();
	if (mcpd.socket_path == NULL)
		mcpd.socket_path = paths_default_socket();
	if (mcpd.token_dir == NULL)
		mcpd.token_dir = paths_default_token_dir();
	if (mcpd.pin_dir == NULL)
		mcpd.pin_dir = pins_store_default_dir();

	log_open(target);
	auditq_init(mcpd.token_dir);
	conf_diags_init(&diags);
	/* A re-exec runs the configuration handed over (reexec_adopt). */
	if (state_fd == -1 || check_only)
		mcpd.conf = conf_load(mcpd.config_file, &diags);
	if (check_only) {
		if (mcpd.conf != NULL)
			conf_check_commands(mcpd.conf, getenv("PATH"),
			    CHILD_DEFAULT_PATH, &diags);
		mcpd_report_diags(&diags, 1);
		if (mcpd.conf == NULL)
			fprintf(stderr, "mcpd: %s: %zu error%s\n",
			    mcpd.config_file, diags.nerrors,
			    diags.nerrors == 1 ? "" : "s");
		else
			printf("%s: ok, %zu server%s\n", mcpd.config_file,
			    mcpd.conf->nservers,
			    mcpd.conf->nservers == 1 ? "" : "s");
		ch = mcpd.conf != NULL ? MCPD_EXIT_OK : MCPD_EXIT_FAILURE;
		conf_diags_free(&diags);
		conf_free(mcpd.conf);
		free(mcpd.config_file);
		free(mcpd.socket_path);
		free(mcpd.token_dir);
		free(mcpd.pin_dir);
		return (ch);
	}
	n = mcpd_report_diags(&diags, 0);
	conf_diags_free(&diags);
	if (mcpd.conf == NULL && state_fd == -1)
		fatalx("%s: %zu error%s in the configuration; not starting",
		    mcpd.config_file, n, n == 1 ? "" : "s");

	signal(SIGPIPE, SIG_IGN);
	child_raise_nofile();
	/*
	 * Large messages (up to max_message_bytes) come and go in the
	 * framer's buffer: keep them on the heap instead of a fresh mmap per
	 * message, whose page faults cost more than copying the data.
	 */
	mallopt(M_MMAP_THRESHOLD, MCPD_MMAP_THRESHOLD_BYTES);
	mallopt(M_TRIM_THRESHOLD, MCPD_TRIM_THRESHOLD_BYTES);
	/* Orphaned grandchildren of servers come to us to be reaped. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		log_warnx("PR_SET_CHILD_SUBREAPER: %s", strerror(errno));
	srandom((unsigned)getpid() ^ (unsigned)clock_realtime_us());

	/* Before the first fork: the guard and every server inherit it. */
	if (state_fd == -1 && cgroup_init(cgroup_dir != NULL ? cgroup_dir :
	    mcpd.conf->cgroup, &cause) != 0)
		fatalx("%s", cause);
	if (state_fd == -1 && guard_start(&mcpd, &cause) != 0)
		fatalx("cannot start the guard process: %s", cause);
	if ((mcpd.base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	mcpd.started_ms = clock_now_ms();
	mcpd.ev_sigterm = evsignal_new(mcpd.base, SIGTERM, mcpd_signal_cb,
	    &mcpd);
	mcpd.ev_sigint = evsignal_new(mcpd.base, SIGINT, mcpd_signal_cb,
	    &mcpd);
	mcpd.ev_sighup = evsignal_new(mcpd.base, SIGHUP, mcpd_signal_cb,
	    &mcpd);
	mcpd.ev_sigchld = evsignal_new(mcpd.base, SIGCHLD, mcpd_signal_cb,
	    &mcpd);
	evsignal_add(mcpd.ev_sigterm, NULL);
	evsignal_add(mcpd.ev_sigint, NULL);
	evsignal_add(mcpd.ev_sighup, NULL);
	mcpd.ev_sigusr2 = evsignal_new(mcpd.base, SIGUSR2, mcpd_signal_cb,
	    &mcpd);
	evsignal_add(mcpd.ev_sigchld, NULL);
	evsignal_add(mcpd.ev_sigusr2, NULL);
	/* Blocked across a re-exec's execve (reexec_signals): come now. */
	reexec_signals(&sigs);
	sigprocmask(SIG_UNBLOCK, &sigs, NULL);

	/* Every connection's lines go to the control plane first. */
	mcpd.client_base = &control_client_handler;
	if (state_fd != -1) {
		reexec_adopt(&mcpd, state_fd);
		/* Servers that ended while no handler was set. */
		mcpd_reap(&mcpd);
		httpfront_apply(&mcpd);
		sdnotify_start(&mcpd);
		goto run;
	}
	if ((mcpd.listener = listener_open(&mcpd, mcpd.socket_path,
	    &cause)) == NULL)
		fatalx("%s", cause);
	free(mcpd.socket_path);
	mcpd.socket_path = xstrdup(listener_path(mcpd.listener));

	{
		struct log_field f[] = {
			{ MCPD_FIELD_CONFIG, mcpd.config_file },
			{ MCPD_FIELD_SOCKET, mcpd.socket_path },
		};
		log_event(LOG_INFO, MCPD_MID_DAEMON_START, f, nitems(f),
		    "mcpd %s starting: %zu server%s from %s, listening on %s",
		    PACKAGE_VERSION, mcpd.conf->nservers,
		    mcpd.conf->nservers == 1 ? "" : "s", mcpd.config_file,
		    mcpd.socket_path);
	}
	mcpd_load_workers(&mcpd);
	httpfront_apply(&mcpd);
	sdnotify_start(&mcpd);

run:
	event_base_dispatch(mcpd.base);

	for (w = worker_first(&mcpd); w != NULL; w = worker_next(w))
		worker_kill_now(w);
	auditq_stop(MCPD_AUDIT_FLUSH_MS);
	log_event(LOG_INFO, MCPD_MID_DAEMON_STOP, NULL, 0, "mcpd stopped");
	mcpd_free(&mcpd);
	return (MCPD_EXIT_OK);
}
