/*
 * import.c -- mcpctl import: the MCP servers other apps start, moved
 * under mcpd.
 *
 *	mcpctl import [--from APP|FILE]... [--dry-run] [--yes] [-c FILE]
 *
 * Reads the entries of the apps found (apps.c) or named, merges them into
 * mcpd's configuration (appconf.c: identical servers once, clashes
 * renamed; the file runconf.h finds, named first), says what happens to
 * each, shows the diff and asks; then
 * keeps the old file as FILE.bak, writes the new one in its place and
 * asks mcpd to reload.  Nothing is written with --dry-run, or without a
 * terminal to ask on and without --yes (exit 1).
 */
#include "config.h"

#include <sys/stat.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "admin.h"
#include "appconf.h"
#include "apps.h"
#include "ctl.h"
#include "diag.h"
#include "import.h"
#include "out.h"
#include "runconf.h"
#include "xmalloc.h"

/* What happened to each entry, on stdout. */
static void
import_report(const struct appconf_list *list)
{
	const struct appconf_entry	*e;
	size_t				 i, j;

	for (i = 0; i < list->n; i++) {
		e = &list->v[i];
		printf("%s %s: ", e->file->app, out_esc(e->file->label));
		printf("%s: ", out_esc(e->name));
		switch (e->status) {
		case APPCONF_NEW:
			if (e->renamed)
				printf("added as %s (renamed: mcpd has another "
				    "server of that name, or the name is not "
				    "one mcpd takes)", out_esc(e->mcpd_name));
			else
				printf("added");
			/* Held back by the import: the notes say why. */
			if (!e->was_disabled && cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(e->server,
			    "disabled")))
				printf(", disabled until you check it (below)");
			printf("\n");
			break;
		case APPCONF_SAME:
			if (strcmp(e->name, e->mcpd_name) == 0)
				printf("mcpd has it already\n");
			else
				printf("mcpd has it already, as %s\n",
				    out_esc(e->mcpd_name));
			break;
		case APPCONF_SKIPPED:
			printf("skipped\n");
			break;
		}
		for (j = 0; j < e->nnotes; j++)
			printf("  %s\n", out_esc(e->notes[j]));
	}
}

int
import_run(struct ctl *ctl, int argc, char **argv)
{
	static const struct option options[] = {
		{ "from",	required_argument,	NULL, 'F' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "yes",	no_argument,		NULL, 'y' },
		{ "config",	required_argument,	NULL, 'c' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct apps_files	 files = { NULL, 0 };
	struct appconf_list	 list = { NULL, 0 };
	struct runconf		 rc_conf = { NULL, NULL, NULL, 0 };
	struct runconf_edit	 edit;
	struct stat		 sb;
	char			*config = NULL, *given = NULL, *text = NULL;
	char			*new = NULL;
	char			*cause;
	size_t			 len, newlen, i;
	int			 ch, dry_run = 0, yes = 0, from = 0, rc;
	int			 exists, failed = 0;

	optind = 0;
	while ((ch = getopt_long(argc + 1, argv - 1, "c:s:hny", options,
	    NULL)) != -1) {
		switch (ch) {
		case 'F':
			from = 1;
			if (apps_known(optarg))
				rc = apps_find(optarg, &files);
			else if (strchr(optarg, '/') != NULL ||
			    access(optarg, F_OK) == 0)
				rc = apps_add_path(optarg, &files);
			else {
				diag_warnx(NULL, "--from %s: not an app (%s) "
				    "nor a file", optarg, apps_names());
				rc = DIAG_EXIT_USAGE;
				goto out;
			}
			if (rc != 0)
				failed = 1;
			break;
		case 'n':
			dry_run = 1;
			break;
		case 'y':
			yes = 1;
			break;
		case 'c':
			given = optarg;
			break;
		case 's':
			ctl->socket_path = optarg;
			break;
		case 'h':
		default:
			diag_warnx(NULL, "usage: mcpctl import [--from "
			    "APP|FILE]... [--dry-run] [--yes] [-c|--config "
			    "FILE]");
			rc = ch == 'h' ? DIAG_EXIT_OK : DIAG_EXIT_USAGE;
			goto out;
		}
	}
	if (optind != argc + 1) {
		diag_warnx(NULL, "import: unexpected argument %s (apps are "
		    "given with --from)", argv[optind - 1]);
		rc = DIAG_EXIT_USAGE;
		goto out;
	}
	if (!from && apps_find(NULL, &files) != 0)
		failed = 1;
	for (i = 0; i < files.n; i++) {
		if (appconf_read(&files.v[i].f, files.v[i].text,
		    files.v[i].len, &list, &cause) == -1) {
			diag_warnx(files.v[i].label, "%s; not imported", cause);
			free(cause);
			failed = 1;
		}
	}
	if (list.n == 0) {
		diag_warnx(NULL, "no MCP servers found to import (%s)",
		    files.n == 0 ? "no app's configuration found: see "
		    "mcpctl(1) for where each app keeps it, or use --from FILE" :
		    "the apps' files have none");
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	runconf_find(ctl, given, "editing", &rc_conf);
	config = rc_conf.path;

	if ((rc = apps_read(config, &text, &len, &sb, &cause)) == -1) {
		diag_warnx(config, "%s", cause);
		free(cause);
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	exists = rc == 0;
	if (appconf_merge(text, len, &list, &new, &newlen, &cause) == -1) {
		diag_warnx(config, "%s; nothing imported", cause);
		free(cause);
		rc = DIAG_EXIT_FAILED;
		goto out;
	}
	import_report(&list);
	if (newlen == len && memcmp(new, text, len) == 0) {
		printf("%s: nothing to change\n", out_esc(config));
		rc = failed ? DIAG_EXIT_FAILED : DIAG_EXIT_OK;
		goto out;
	}
	memset(&edit, 0, sizeof edit);
	edit.old = text;
	edit.oldlen = len;
	edit.exists = exists;
	edit.sb = sb;
	edit.new = new;
	edit.newlen = newlen;
	edit.dry_run = dry_run;
	edit.yes = yes;
	rc = runconf_write(ctl, &rc_conf, &edit);
	if (rc == DIAG_EXIT_OK && failed)
		rc = DIAG_EXIT_FAILED;

out:
	appconf_list_free(&list);
	apps_files_free(&files);
	runconf_clear(&rc_conf);
	free(text);
	free(new);
	return (rc);
}
