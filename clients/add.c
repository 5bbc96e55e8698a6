/*
 * add.c -- mcpctl add and remove: a server added to mcpd's configuration,
 * or taken out of it, by name, without editing JSON by hand.
 *
 *	mcpctl add NAME [--env K[=V]]... [--cwd DIR] [--] COMMAND [ARG...]
 *	mcpctl add NAME --url URL [--header K=V]... [--env K[=V]]...
 *	mcpctl remove NAME
 *
 * each with [--dry-run] [--yes] [-c FILE].  The file is the one import
 * edits (runconf.h) and it is written as import writes it
 * (runconf_write): the diff, the question, FILE.bak, a rename, the
 * reload.  The entry goes in after the last server and remove takes out
 * exactly its bytes (confedit.h); nothing else in the file changes.
 *
 * Values are written as given: "${VAR}" expands in mcpd, "$$" is a '$'.
 * "--env K" alone writes "${K}", mcpd's own variable.  The diff shows
 * the values of every server's env and headers as [redacted], unless
 * they are only references.  A name that a server or a group has is
 * refused, and so is an entry that mcpd would refuse on its own; one
 * that refers to "${...}" is only warned about, as its values are
 * mcpd's, not this shell's.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "add.h"
#include "apps.h"
#include "conf.h"
#include "confedit.h"
#include "confvar.h"
#include "ctl.h"
#include "diag.h"
#include "runconf.h"
#include "xmalloc.h"

#define ADD_USAGE \
	"usage: mcpctl add NAME [--env K[=V]]... [--cwd DIR] [--] COMMAND " \
	"[ARG...]"
#define ADD_USAGE_URL \
	"       mcpctl add NAME --url URL [--header K=V]... [--env K[=V]]..."
#define ADD_USAGE_BOTH \
	"       with [--dry-run] [--yes] [-c|--config FILE]"
#define REMOVE_USAGE \
	"usage: mcpctl remove NAME [--dry-run] [--yes] [-c|--config FILE]"

struct add_args {
	const char	*name;
	char		**command;	/* the command and its arguments */
	int		 ncommand;
	const char	*url;
	const char	*cwd;
	cJSON		*env;		/* an object, or NULL */
	cJSON		*headers;	/* an object, or NULL */
	const char	*given;		/* --config */
	int		 dry_run;
	int		 yes;
};

static const struct option add_options[] = {
	{ "env",	required_argument,	NULL, 'e' },
	{ "cwd",	required_argument,	NULL, 'C' },
	{ "url",	required_argument,	NULL, 'u' },
	{ "header",	required_argument,	NULL, 'H' },
	{ "dry-run",	no_argument,		NULL, 'n' },
	{ "yes",	no_argument,		NULL, 'y' },
	{ "config",	required_argument,	NULL, 'c' },
	{ "socket",	required_argument,	NULL, 's' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 }
};

/*
 * "K=V" (or "K" alone where bare is set: "${K}") added to *obj: 0, or -1
 * after a message.  Only the key is ever quoted.
 */
static int
add_pair(const char *option, const char *arg, int bare, cJSON **obj)
{
	const char	*eq;
	char		*key, *value;
	int		 rc = -1;

	if ((eq = strchr(arg, '=')) == NULL && !bare) {
		diag_warnx(NULL, "--%s %s: expected KEY=VALUE", option, arg);
		return (-1);
	}
	key = eq != NULL ? xstrndup(arg, eq - arg) : xstrdup(arg);
	if (*key == '\0')
		diag_warnx(NULL, "--%s: a KEY=VALUE without a key", option);
	else if (eq == NULL && !confvar_valid_variable(key, strlen(key)))
		diag_warnx(NULL, "--%s %s: not a variable's name (letters, "
		    "digits and '_'), and no =VALUE", option, key);
	else if (*obj != NULL &&
	    cJSON_GetObjectItemCaseSensitive(*obj, key) != NULL)
		diag_warnx(NULL, "--%s %s: given twice", option, key);
	else {
		if (*obj == NULL)
			*obj = cJSON_CreateObject();
		if (eq != NULL)
			value = xstrdup(eq + 1);
		else
			xasprintf(&value, "${%s}", key);
		cJSON_AddStringToObject(*obj, key, value);
		free(value);
		rc = 0;
	}
	free(key);
	return (rc);
}

/*
 * add's words: options, NAME, then the command, "--" or not ("+": the
 * first word after NAME that is no option starts it, so its own options
 * stay its own).  An exit code.
 */
static int
add_parse(struct ctl *ctl, int argc, char **argv, struct add_args *a)
{
	char	**nargv = argv - 1;	/* getopt skips the command's name */
	int	  nargc = argc + 1, ch, at, dashdash;

	optind = 0;
	for (;;) {
		at = optind == 0 ? 1 : optind;
		ch = getopt_long(nargc, nargv, "+c:s:hny", add_options, NULL);
		if (ch == -1) {
			dashdash = optind == at + 1 &&
			    strcmp(nargv[at], "--") == 0;
			if (a->name == NULL && optind < nargc) {
				a->name = nargv[optind++];
				if (!dashdash)
					continue;
			}
			a->command = nargv + optind;
			a->ncommand = nargc - optind;
			break;
		}
		switch (ch) {
		case 'e':
			if (add_pair("env", optarg, 1, &a->env) == -1)
				return (DIAG_EXIT_USAGE);
			break;
		case 'H':
			if (add_pair("header", optarg, 0, &a->headers) == -1)
				return (DIAG_EXIT_USAGE);
			break;
		case 'C':
			a->cwd = optarg;
			break;
		case 'u':
			a->url = optarg;
			break;
		case 'n':
			a->dry_run = 1;
			break;
		case 'y':
			a->yes = 1;
			break;
		case 'c':
			a->given = optarg;
			break;
		case 's':
			ctl->socket_path = optarg;
			break;
		case 'h':
			printf("%s\n%s\n%s\n", ADD_USAGE, ADD_USAGE_URL,
			    ADD_USAGE_BOTH);
			return (-1);
		default:
			diag_warnx(NULL, "%s", ADD_USAGE);
			return (DIAG_EXIT_USAGE);
		}
	}
	if (a->name == NULL) {
		diag_warnx(NULL, "%s (or --url URL)", ADD_USAGE);
		return (DIAG_EXIT_USAGE);
	}
	if (!conf_valid_name(a->name)) {
		diag_warnx(NULL, "add: %s: not a valid name (1 to 64 of A-Z, "
		    "a-z, 0-9, '.', '_' and '-')", a->name);
		return (DIAG_EXIT_USAGE);
	}
	if (a->url != NULL && a->ncommand > 0) {
		diag_warnx(NULL, "add %s: a command or --url, not both",
		    a->name);
		return (DIAG_EXIT_USAGE);
	}
	if (a->url == NULL && a->ncommand == 0) {
		diag_warnx(NULL, "add %s: no command (give it after --) nor "
		    "--url", a->name);
		return (DIAG_EXIT_USAGE);
	}
	if (a->url != NULL && a->cwd != NULL) {
		diag_warnx(NULL, "add %s: --cwd: a remote server (--url) has "
		    "no working directory", a->name);
		return (DIAG_EXIT_USAGE);
	}
	if (a->url == NULL && a->headers != NULL) {
		diag_warnx(NULL, "add %s: --header is for a remote server "
		    "(--url)", a->name);
		return (DIAG_EXIT_USAGE);
	}
	return (DIAG_EXIT_OK);
}

/* --cwd as mcpd needs it: absolute (a relative one is from here). */
static char *
add_cwd(const char *dir)
{
	char	*abs;

	if (*dir == '/' || strncmp(dir, "${", 2) == 0)
		return (xstrdup(dir));
	if ((abs = realpath(dir, NULL)) == NULL)
		diag_warnx(NULL, "--cwd %s: %s", dir, strerror(errno));
	return (abs);
}

/* The entry, in mcpd's form (env and headers taken from a), or NULL. */
static cJSON *
add_entry(struct add_args *a)
{
	cJSON	*server, *args;
	char	*cwd;
	int	 i;

	server = cJSON_CreateObject();
	if (a->url != NULL) {
		cJSON_AddStringToObject(server, "url", a->url);
		if (a->headers != NULL)
			cJSON_AddItemToObject(server, "headers", a->headers);
		a->headers = NULL;
	} else {
		cJSON_AddStringToObject(server, "command", a->command[0]);
		if (a->ncommand > 1) {
			args = cJSON_AddArrayToObject(server, "args");
			for (i = 1; i < a->ncommand; i++)
				cJSON_AddItemToArray(args,
				    cJSON_CreateString(a->command[i]));
		}
	}
	if (a->env != NULL)
		cJSON_AddItemToObject(server, "env", a->env);
	a->env = NULL;
	if (a->cwd != NULL) {
		if ((cwd = add_cwd(a->cwd)) == NULL) {
			cJSON_Delete(server);
			return (NULL);
		}
		cJSON_AddStringToObject(server, "cwd", cwd);
		free(cwd);
	}
	/* New servers run sandboxed; a remote one runs mcpd's own worker. */
	if (a->url == NULL)
		cJSON_AddStringToObject(server, "sandbox", "default");
	return (server);
}

/*
 * The entry alone as mcpd reads it: -1 after its errors if mcpd would
 * refuse it whatever the environment (it refers to no "${...}", whose
 * values are mcpd's); else 0, and the check of the whole file says the
 * rest.
 */
static int
add_check(const char *config, const char *name, cJSON *server)
{
	struct conf_diags	 diags;
	struct conf		*conf;
	cJSON			*wrap, *servers;
	char			*text;
	size_t			 i;
	int			 rc = 0;

	wrap = cJSON_CreateObject();
	servers = cJSON_AddObjectToObject(wrap, "mcpServers");
	cJSON_AddItemReferenceToObject(servers, name, server);
	text = cJSON_PrintUnformatted(wrap);
	cJSON_Delete(wrap);
	conf_diags_init(&diags);
	conf = conf_load_text(config, text, strlen(text), &diags);
	if (conf == NULL && strstr(text, "${") == NULL) {
		for (i = 0; i < diags.n; i++)
			diag_warnx(NULL, "%s%s", diags.v[i].level ==
			    CONF_WARNING ? "warning: " : "", diags.v[i].text);
		diag_warnx(NULL, "add %s: mcpd would refuse this server; "
		    "nothing changed", name);
		rc = -1;
	}
	conf_free(conf);
	conf_diags_free(&diags);
	free(text);
	return (rc);
}

/*
 * The file the running mcpd reads (runconf.h) with server added as
 * name, or with name taken out (server NULL), written as import writes
 * it.  An exit code.
 */
static int
add_edit(struct ctl *ctl, const struct add_args *a, cJSON *server)
{
	struct runconf		 rc_conf;
	struct runconf_edit	 edit;
	char			*text = NULL, *new = NULL, *cause;
	char			*shown_old = NULL, *shown_new = NULL;
	size_t			 len, newlen;
	int			 rc;

	runconf_find(ctl, a->given, "editing", &rc_conf);
	memset(&edit, 0, sizeof edit);
	if ((rc = apps_read(rc_conf.path, &text, &len, &edit.sb,
	    &cause)) == -1) {
		diag_warnx(rc_conf.path, "%s", cause);
		free(cause);
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	edit.exists = rc == 0;
	if (server != NULL && add_check(rc_conf.path, a->name, server) ==
	    -1) {
		rc = DIAG_EXIT_USAGE;
		goto out;
	}
	if ((server != NULL ? confedit_add(text, len, a->name, server, &new,
	    &newlen, &cause) : confedit_remove(text, len, a->name, &new,
	    &newlen, &cause)) == -1) {
		diag_warnx(rc_conf.path, "%s; nothing changed", cause);
		free(cause);
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	edit.old = text;
	edit.oldlen = len;
	edit.new = new;
	edit.newlen = newlen;
	edit.shown_old = shown_old = confedit_mask(text, len,
	    &edit.shown_oldlen);
	edit.shown_new = shown_new = confedit_mask(new, newlen,
	    &edit.shown_newlen);
	edit.dry_run = a->dry_run;
	edit.yes = a->yes;
	rc = runconf_write(ctl, &rc_conf, &edit);

out:
	runconf_clear(&rc_conf);
	free(text);
	free(new);
	free(shown_old);
	free(shown_new);
	return (rc);
}

int
add_run(struct ctl *ctl, int argc, char **argv)
{
	struct add_args	 a;
	cJSON		*server = NULL;
	int		 rc;

	memset(&a, 0, sizeof a);
	if ((rc = add_parse(ctl, argc, argv, &a)) != DIAG_EXIT_OK) {
		rc = rc == -1 ? DIAG_EXIT_OK : rc;	/* --help */
		goto out;
	}
	if ((server = add_entry(&a)) == NULL) {
		rc = DIAG_EXIT_USAGE;
		goto out;
	}
	rc = add_edit(ctl, &a, server);

out:
	cJSON_Delete(server);
	cJSON_Delete(a.env);
	cJSON_Delete(a.headers);
	return (rc);
}

int
add_remove(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "yes",	no_argument,		NULL, 'y' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct add_args	 a;
	int		 ch;

	memset(&a, 0, sizeof a);
	optind = 0;
	while ((ch = getopt_long(argc + 1, argv - 1, "c:s:hny", options,
	    NULL)) != -1) {
		switch (ch) {
		case 'n':
			a.dry_run = 1;
			break;
		case 'y':
			a.yes = 1;
			break;
		case 'c':
			a.given = optarg;
			break;
		case 's':
			ctl->socket_path = optarg;
			break;
		case 'h':
			printf("%s\n", REMOVE_USAGE);
			return (DIAG_EXIT_OK);
		default:
			diag_warnx(NULL, "%s", REMOVE_USAGE);
			return (DIAG_EXIT_USAGE);
		}
	}
	if (optind != argc) {
		diag_warnx(NULL, "%s", REMOVE_USAGE);
		return (DIAG_EXIT_USAGE);
	}
	a.name = argv[optind - 1];
	return (add_edit(ctl, &a, NULL));
}
