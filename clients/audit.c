/*
 * audit.c -- mcpctl audit: the calls' records read back from the journal
 * (sd-journal), matched on their MESSAGE_ID and server, filtered by
 * client, printed as a table or as JSON lines (src/auditfmt.c).  It asks
 * mcpd nothing: the journal is the record, and reading it needs what
 * journalctl needs (the user's own journal, or the systemd-journal or
 * adm group for the system's).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <systemd/sd-journal.h>

#include "audit_cmd.h"
#include "auditfmt.h"
#include "clock.h"
#include "ctl.h"
#include "diag.h"
#include "out.h"
#include "proto.h"
#include "xmalloc.h"

#define AUDIT_USAGE	"usage: mcpctl audit [--server NAME] [--client " \
			"APP|PID|UID] [--since TIME] [--json]"

struct audit_opts {
	const char	*server;
	const char	*client;
	uint64_t	 since_us;
	int		 since;
	int		 json;
};

static int
audit_options(int argc, char **argv, struct audit_opts *o)
{
	static const struct option options[] = {
		{ "server",	required_argument,	NULL, 'S' },
		{ "client",	required_argument,	NULL, 'C' },
		{ "since",	required_argument,	NULL, 't' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "no-block",	no_argument,		NULL, 'b' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const char	*since = NULL;
	int		 ch;

	memset(o, 0, sizeof *o);
	optind = 0;
	while ((ch = getopt_long(argc + 1, argv - 1, "s:h", options,
	    NULL)) != -1) {
		switch (ch) {
		case 'S':
			o->server = optarg;
			break;
		case 'C':
			o->client = optarg;
			break;
		case 't':
			since = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 's':
		case 'b':
			/* The journal is read, not mcpd: these are moot. */
			break;
		case 'h':
			printf("%s\n", AUDIT_USAGE);
			return (-1);
		default:
			diag_warnx(NULL, "%s", AUDIT_USAGE);
			return (DIAG_EXIT_USAGE);
		}
	}
	if (optind != argc + 1) {
		diag_warnx(NULL, "%s", AUDIT_USAGE);
		return (DIAG_EXIT_USAGE);
	}
	if (since != NULL) {
		if (auditfmt_since(since, clock_realtime_us(),
		    &o->since_us) != 0) {
			diag_warnx(NULL, "--since: expected @SECONDS, N[smhd] "
			    "(ago) or YYYY-MM-DD[ HH:MM[:SS]], not \"%s\"",
			    since);
			return (DIAG_EXIT_USAGE);
		}
		o->since = 1;
	}
	return (DIAG_EXIT_OK);
}

/* The entry's fields that a record holds, as strings. */
static cJSON *
audit_record(sd_journal *j)
{
	cJSON		*rec = cJSON_CreateObject();
	const void	*data;
	const char	*field;
	size_t		 len, flen, i;
	char		*value;

	for (i = 0; (field = auditfmt_fields[i]) != NULL; i++) {
		if (sd_journal_get_data(j, field, &data, &len) < 0)
			continue;
		flen = strlen(field) + 1;	/* "NAME=" */
		if (len < flen)
			continue;
		value = xstrndup((const char *)data + flen, len - flen);
		cJSON_AddStringToObject(rec, field, value);
		free(value);
	}
	return (rec);
}

static int
audit_open(const struct audit_opts *o, sd_journal **j)
{
	char	*match;
	int	 r;

	if ((r = sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY)) < 0) {
		diag_warnx(NULL, "cannot open the journal: %s", strerror(-r));
		return (DIAG_EXIT_FAILED);
	}
	/* Data in the journal is large enough for any URI mcpd keeps. */
	(void)sd_journal_set_data_threshold(*j, 0);
	xasprintf(&match, "MESSAGE_ID=%s", MCPD_MID_AUDIT);
	r = sd_journal_add_match(*j, match, 0);
	free(match);
	if (r >= 0 && o->server != NULL) {
		xasprintf(&match, "%s=%s", MCPD_FIELD_SERVER, o->server);
		r = sd_journal_add_match(*j, match, 0);
		free(match);
	}
	if (r >= 0)
		r = o->since ? sd_journal_seek_realtime_usec(*j, o->since_us) :
		    sd_journal_seek_head(*j);
	if (r < 0) {
		diag_warnx(NULL, "cannot read the journal: %s", strerror(-r));
		sd_journal_close(*j);
		return (DIAG_EXIT_FAILED);
	}
	return (DIAG_EXIT_OK);
}

int
audit_run(struct ctl *ctl, int argc, char **argv)
{
	struct audit_opts	 o;
	sd_journal		*j;
	cJSON			*rec, *line;
	uint64_t		 when;
	char			*row;
	int			 rc, r, header = 0;

	(void)ctl;
	if ((rc = audit_options(argc, argv, &o)) != DIAG_EXIT_OK)
		return (rc == -1 ? DIAG_EXIT_OK : rc);
	if ((rc = audit_open(&o, &j)) != DIAG_EXIT_OK)
		return (rc);
	while ((r = sd_journal_next(j)) > 0) {
		if (sd_journal_get_realtime_usec(j, &when) < 0)
			continue;
		if (o.since && when < o.since_us)
			continue;
		rec = audit_record(j);
		if (o.client != NULL && !auditfmt_client_match(rec,
		    o.client)) {
			cJSON_Delete(rec);
			continue;
		}
		if (o.json) {
			line = auditfmt_json(rec, when);
			out_json_integers(line);
			out_json(stdout, line, 1);
			cJSON_Delete(line);
		} else {
			if (!header++)
				printf("%s\n", auditfmt_header());
			row = auditfmt_row(rec, when);
			printf("%s\n", row);
			free(row);
		}
		cJSON_Delete(rec);
	}
	sd_journal_close(j);
	if (r < 0) {
		diag_warnx(NULL, "reading the journal: %s", strerror(-r));
		return (DIAG_EXIT_FAILED);
	}
	if (fflush(stdout) != 0)
		return (DIAG_EXIT_FAILED);
	return (DIAG_EXIT_OK);
}
