/*
 * mcpctl.c -- mcpctl's command line: the options, the table of commands
 * and the dispatch to them (admin.h, login.h, tools.h, bridge.h), and the
 * two commands that need neither mcpd nor a server: check-config and help.
 *
 * Exit codes (diag.h): 0 ok, 1 the operation failed, 2 usage, 3 daemon
 * unreachable.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "add.h"
#include "admin.h"
#include "audit_cmd.h"
#include "bridge.h"
#include "conf.h"
#include "ctl.h"
#include "diag.h"
#include "import.h"
#include "login.h"
#include "out.h"
#include "paths.h"
#include "prompts.h"
#include "resources.h"
#include "token.h"
#include "tools.h"
#include "util.h"
#include "xmalloc.h"

#define CTL_LOG_LINES_DEFAULT	50

struct ctl_command {
	const char	*name;
	const char	*args;
	const char	*help;
	int		 min_args;
	int		 max_args;	/* -1: any */
	int		 needs_daemon;	/* admin_connect first */
	ctl_command_fn	*fn;
	int		 own_options;	/* parses what follows its name */
};

static ctl_command_fn	ctl_connect;
static ctl_command_fn	ctl_check_config;
static ctl_command_fn	ctl_help;

static const struct ctl_command ctl_commands[] = {
	{ "status", "[--clients] [NAME...]", "show the state of servers", 0, -1, 1,
	  admin_status },
	{ "start", "NAME...", "start servers (and wait for them)", 1, -1, 1,
	  admin_start },
	{ "stop", "NAME...", "stop servers (and wait for them)", 1, -1, 1,
	  admin_stop },
	{ "restart", "NAME...", "restart servers (and wait for them)", 1, -1,
	  1, admin_restart },
	{ "reload", "", "re-read the configuration file", 0, 0, 1,
	  admin_reload },
	{ "reexec", "", "run mcpd's installed binary, keeping the servers",
	  0, 0, 1, admin_reexec },
	{ "logs", "NAME [-n N] [-f]", "show (and follow) a server's stderr", 1,
	  1, 1, admin_logs },
	{ "metrics", "", "print metrics in Prometheus text format", 0, 0, 1,
	  admin_metrics },
	{ "pins", "NAME", "show what a server changed since it was approved",
	  1, 1, 1, admin_pins },
	{ "approve", "NAME [TOOL...]", "approve a server's held changes (all, "
	  "or those named)", 1, -1, 1, admin_approve },
	{ "login", "NAME [--no-browser]", "sign in to a hosted server (in a "
	  "browser)", 1, 1, 1, login_login },
	{ "logout", "NAME", "sign out of a hosted server", 1, 1, 1,
	  login_logout },
	{ "connect", "NAME [--reconnect-timeout S]", "bridge stdio to a "
	  "server (for MCP clients)", 1, 1, 0, ctl_connect },
	{ "tools", "NAME", "list a server's tools", 1, 1, 0, tools_list },
	{ "call", "NAME TOOL [JSON | key=value...]", "call a tool", 2, -1, 0,
	  tools_call },
	{ "ping", "NAME", "ping a server through mcpd", 1, 1, 0, tools_ping },
	{ "prompts", "NAME", "list a server's prompts", 1, 1, 0,
	  prompts_list },
	{ "prompt", "NAME PROMPT [key=value...]", "get a prompt's messages", 2,
	  -1, 0, prompts_get },
	{ "resources", "NAME", "list a server's resources and templates", 1,
	  1, 0, resources_list },
	{ "read", "NAME URI [--output FILE]", "read a resource", 2, 2, 0,
	  resources_read },
	{ "check-config", "[FILE]", "validate a configuration file", 0, 1, 0,
	  ctl_check_config },
	{ "version", "", "print mcpctl's and mcpd's versions", 0, 0, 0,
	  admin_version },
	{ "import", "[--from APP|FILE] [--dry-run]", "move other apps' "
	  "servers into mcpd's configuration", 0, -1, 0, import_run, 1 },
	{ "install", "APP [--http] [--servers NAME...] [--yes]", "point an app's "
	  "servers at mcpd (mcpctl connect, or a URL)", 1, -1, 0, install_run, 1 },
	{ "uninstall", "APP [--yes] [--force]", "restore an app's file as "
	  "it was before install", 1, -1, 0, install_uninstall, 1 },
	{ "add", "NAME [--env K=V] -- COMMAND...", "add a server to mcpd's "
	  "configuration (--url URL: a remote one)", 1, -1, 0, add_run, 1 },
	{ "remove", "NAME [--yes]", "remove a server from mcpd's "
	  "configuration", 1, -1, 0, add_remove, 1 },
	{ "audit", "[--server S] [--client C] [--since T] [--json]",
	  "show the calls recorded in the journal (\"audit\")",
	  0, -1, 0, audit_run, 1 },
	{ "token", "create NAME [--servers A,B] [--expires 30d] | list | "
	  "revoke NAME", "bearer tokens for mcpd's HTTP front", 0, -1, 0,
	  token_run, 1 },
	{ "help", "", "list commands", 0, 0, 0, ctl_help },
};
#define CTL_NCOMMANDS	nitems(ctl_commands)

static void
ctl_usage(FILE *f)
{
	size_t	 i;

	fprintf(f, "usage: mcpctl [-s|--socket PATH] [--json] [--no-block] "
	    "COMMAND [ARGS...]\n\ncommands:\n");
	for (i = 0; i < CTL_NCOMMANDS; i++)
		fprintf(f, "  %-13s %-33s  %s\n", ctl_commands[i].name,
		    ctl_commands[i].args, ctl_commands[i].help);
	fprintf(f, "\nThe socket defaults to $%s or mcpd's default "
	    "(see mcpctl(1)).\n", PATHS_SOCKET_ENV);
}


/* Opens its own session through mcpd (bridge.c). */
static int
ctl_connect(struct ctl *ctl, int argc, char **argv)
{
	return (bridge_run(ctl->socket_path, argv[0], !ctl->no_reconnect,
	    ctl->reconnect_timeout_s));
}

static int
ctl_check_config(struct ctl *ctl, int argc, char **argv)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	char			*file;
	cJSON			*out, *list;
	size_t			 i;
	int			 rc;

	file = argc > 0 ? xstrdup(argv[0]) : paths_default_config();
	conf_diags_init(&diags);
	conf = conf_load(file, &diags);
	/* Commands a start would not find, as mcpd -n warns of them. */
	if (conf != NULL)
		conf_check_commands(conf, getenv("PATH"), PATHS_CHILD_DEFAULT,
		    &diags);
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "file", file);
		cJSON_AddBoolToObject(out, "valid", conf != NULL);
		cJSON_AddNumberToObject(out, "servers",
		    conf != NULL ? (double)conf->nservers : 0);
		list = cJSON_AddArrayToObject(out, "errors");
		for (i = 0; i < diags.n; i++)
			if (diags.v[i].level == CONF_ERROR)
				cJSON_AddItemToArray(list,
				    cJSON_CreateString(diags.v[i].text));
		list = cJSON_AddArrayToObject(out, "warnings");
		for (i = 0; i < diags.n; i++)
			if (diags.v[i].level == CONF_WARNING)
				cJSON_AddItemToArray(list,
				    cJSON_CreateString(diags.v[i].text));
		out_json_integers(out);
		out_json(stdout, out, 0);
		cJSON_Delete(out);
	} else {
		for (i = 0; i < diags.n; i++)
			diag_warnx(NULL, "%s%s", diags.v[i].level ==
			    CONF_WARNING ? "warning: " : "", diags.v[i].text);
		if (conf != NULL)
			printf("%s: ok, %zu server%s\n", file, conf->nservers,
			    conf->nservers == 1 ? "" : "s");
		else
			diag_warnx(file, "%zu error%s", diags.nerrors,
			    diags.nerrors == 1 ? "" : "s");
	}
	rc = conf != NULL ? DIAG_EXIT_OK : DIAG_EXIT_FAILED;
	conf_free(conf);
	conf_diags_free(&diags);
	free(file);
	return (rc);
}

static int
ctl_help(struct ctl *ctl, int argc, char **argv)
{
	ctl_usage(stdout);
	return (DIAG_EXIT_OK);
}

/* Options taken before and after the command: 1 if ch was one. */
static int
ctl_common_option(struct ctl *ctl, char **socket_path, int ch)
{
	switch (ch) {
	case 's':
		free(*socket_path);
		*socket_path = xstrdup(optarg);
		return (1);
	case 'j':
		ctl->json = 1;
		return (1);
	case 'b':
		ctl->no_block = 1;
		return (1);
	}
	return (0);
}

/*
 * call, prompt: mcpctl's own options among the words after the command
 * (`mcpctl call S T text=hi --json`).  Only a word that is one exactly is
 * taken: no tool or prompt argument is (a KEY=VALUE has a '=', a JSON
 * object a '{'); "--" ends them.  The words left are moved to the front;
 * their number, or -1 after a usage error.
 */
static int
ctl_call_options(struct ctl *ctl, char **socket_path, int argc, char **argv)
{
	int	 i, n = 0, done = 0;

	for (i = 0; i < argc; i++) {
		if (done)
			argv[n++] = argv[i];
		else if (strcmp(argv[i], "--") == 0)
			done = 1;
		else if (strcmp(argv[i], "--json") == 0)
			ctl->json = 1;
		else if (strcmp(argv[i], "--no-block") == 0)
			ctl->no_block = 1;
		else if (strncmp(argv[i], "--socket=", 9) == 0) {
			free(*socket_path);
			*socket_path = xstrdup(argv[i] + 9);
		} else if (strcmp(argv[i], "-s") == 0 ||
		    strcmp(argv[i], "--socket") == 0) {
			if (i + 1 == argc)
				return (-1);
			free(*socket_path);
			*socket_path = xstrdup(argv[++i]);
		} else
			argv[n++] = argv[i];
	}
	return (n);
}

static const struct ctl_command *
ctl_find_command(const char *name)
{
	size_t	 i;

	for (i = 0; i < CTL_NCOMMANDS; i++) {
		if (strcmp(ctl_commands[i].name, name) == 0)
			return (&ctl_commands[i]);
	}
	return (NULL);
}

int
main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket",	required_argument,	NULL, 's' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "no-block",	no_argument,		NULL, 'b' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "lines",	required_argument,	NULL, 'n' },
		{ "follow",	no_argument,		NULL, 'f' },
		{ "no-browser",	no_argument,		NULL, 'B' },
		{ "no-reconnect", no_argument,		NULL, 'R' },
		{ "reconnect-timeout", required_argument, NULL, 'T' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "clients",	no_argument,		NULL, 'C' },
		{ NULL,		0,			NULL, 0 }
	};
	const struct ctl_command	*cmd;
	struct ctl			 ctl;
	char				*socket_path = NULL, *end;
	int				 ch, rc, nargs, words;

	memset(&ctl, 0, sizeof ctl);
	ctl.lines = CTL_LOG_LINES_DEFAULT;
	ctl.reconnect_timeout_s = BRIDGE_RECONNECT_TIMEOUT_S;
	while ((ch = getopt_long(argc, argv, "+s:hV", options, NULL)) != -1) {
		if (ctl_common_option(&ctl, &socket_path, ch))
			continue;
		switch (ch) {
		case 'h':
			ctl_usage(stdout);
			rc = DIAG_EXIT_OK;
			goto out;
		case 'V':
			printf("mcpctl %s\n", PACKAGE_VERSION);
			rc = DIAG_EXIT_OK;
			goto out;
		default:
			ctl_usage(stderr);
			rc = DIAG_EXIT_USAGE;
			goto out;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		ctl_usage(stderr);
		rc = DIAG_EXIT_USAGE;
		goto out;
	}
	if ((cmd = ctl_find_command(argv[0])) == NULL) {
		diag_warnx(NULL, "unknown command: %s (try `mcpctl help`)",
		    argv[0]);
		rc = DIAG_EXIT_USAGE;
		goto out;
	}

	if (cmd->own_options) {
		ctl.socket_path = socket_path != NULL ? socket_path :
		    (socket_path = paths_default_socket());
		rc = cmd->fn(&ctl, argc - 1, argv + 1);
		goto out;
	}

	/*
	 * Options may also follow the command (`mcpctl status --json`); for
	 * call and prompt, getopt stops at the server's name and the rest is
	 * ctl_call_options's.
	 */
	words = cmd->fn == tools_call || cmd->fn == prompts_get;
	optind = 0;
	while ((ch = getopt_long(argc, argv, words ? "+s:h" : "s:hn:fo:",
	    options, NULL)) != -1) {
		if (ctl_common_option(&ctl, &socket_path, ch))
			continue;
		switch (ch) {
		case 'n':
			if (cmd->fn != admin_logs)
				goto usage;
			errno = 0;
			ctl.lines = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || ctl.lines < 0) {
				diag_warnx(NULL, "-n: expected a number of "
				    "lines, not \"%s\"", optarg);
				rc = DIAG_EXIT_USAGE;
				goto out;
			}
			break;
		case 'f':
			if (cmd->fn != admin_logs)
				goto usage;
			ctl.follow = 1;
			break;
		case 'o':
			if (cmd->fn != resources_read)
				goto usage;
			ctl.output = optarg;
			break;
		case 'C':
			if (cmd->fn != admin_status)
				goto usage;
			ctl.clients = 1;
			break;
		case 'B':
			if (cmd->fn != login_login)
				goto usage;
			ctl.no_browser = 1;
			break;
		case 'R':
			if (cmd->fn != ctl_connect)
				goto usage;
			ctl.no_reconnect = 1;
			break;
		case 'T':
			if (cmd->fn != ctl_connect)
				goto usage;
			errno = 0;
			ctl.reconnect_timeout_s = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || end == optarg ||
			    ctl.reconnect_timeout_s < 0 ||
			    ctl.reconnect_timeout_s > BRIDGE_RECONNECT_MAX_S) {
				diag_warnx(NULL, "--reconnect-timeout: "
				    "expected seconds from 0 (forever) to %d, "
				    "not \"%s\"", BRIDGE_RECONNECT_MAX_S,
				    optarg);
				rc = DIAG_EXIT_USAGE;
				goto out;
			}
			break;
		case 'h':
			printf("usage: mcpctl %s %s\n  %s\n", cmd->name,
			    cmd->args, cmd->help);
			rc = DIAG_EXIT_OK;
			goto out;
		default:
		usage:
			diag_warnx(NULL, "usage: mcpctl %s %s", cmd->name,
			    cmd->args);
			rc = DIAG_EXIT_USAGE;
			goto out;
		}
	}
	nargs = argc - optind;
	if (words && (nargs = ctl_call_options(&ctl,
	    &socket_path, nargs, argv + optind)) == -1)
		goto usage;
	if (nargs < cmd->min_args || (cmd->max_args >= 0 &&
	    nargs > cmd->max_args)) {
		diag_warnx(NULL, "usage: mcpctl %s %s", cmd->name, cmd->args);
		rc = DIAG_EXIT_USAGE;
		goto out;
	}

	ctl.socket_path = socket_path != NULL ? socket_path :
	    (socket_path = paths_default_socket());
	ctl.color = isatty(STDOUT_FILENO) && (getenv("NO_COLOR") == NULL ||
	    *getenv("NO_COLOR") == '\0');
	if (cmd->needs_daemon && (rc = admin_connect(&ctl, 0)) != DIAG_EXIT_OK)
		goto out;
	rc = cmd->fn(&ctl, nargs, argv + optind);
out:
	admin_close(&ctl);
	free(socket_path);
	return (rc);
}
