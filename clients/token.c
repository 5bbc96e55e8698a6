/*
 * token.c -- mcpctl token create NAME [--servers A,B] [--expires 30d],
 * list, revoke NAME.  A new token is 32 random bytes (getrandom) in
 * base64url after "mcpd_", printed once on stdout; the store keeps only
 * its SHA-256, in a 0600 file written whole and renamed into place, which
 * mcpd-http reads again when it changes.  The store is the one of the
 * mcpd at the socket (its --token-dir) when it answers, else the default
 * one; mcpd need not run.
 */
#include "config.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "admin_int.h"
#include "b64.h"
#include "ctl.h"
#include "diag.h"
#include "fdio.h"
#include "htoken.h"
#include "out.h"
#include "paths.h"
#include "proto.h"
#include "token.h"
#include "xmalloc.h"

/* The store's directory: the running mcpd's (token_store_of), else NULL. */
static char	*token_dir;

void
token_store_at(const char *dir)
{
	free(token_dir);
	token_dir = dir != NULL && *dir == '/' ? xstrdup(dir) : NULL;
}

void
token_store_of(struct ctl *ctl)
{
	cJSON	*d = NULL;
	int	 status;

	if (admin_connect(ctl, 1) == DIAG_EXIT_OK) {
		ctl->quiet_errors = 1;
		d = admin_call(ctl, MCPD_METHOD_VERSION, NULL, &status);
		ctl->quiet_errors = 0;
		admin_close(ctl);
	}
	token_store_at(out_str(d, "token_dir"));
	cJSON_Delete(d);
}

static char *
token_store_path(void)
{
	char	*dir, *path;

	dir = token_dir != NULL ? xstrdup(token_dir) :
	    paths_default_token_dir();
	path = htoken_path(dir);
	free(dir);
	return (path);
}

/* The store, or an empty one if there is none yet: 0, or -1 (said). */
static int
token_load(const char *path, struct htokens *ts)
{
	size_t	 line;

	switch (htokens_read(path, ts, &line)) {
	case 0:
		return (0);
	case -2:
		diag_warnx(path, "line %zu is not a token's; fix or remove "
		    "the file", line);
		break;
	default:
		diag_warnx(path, "%s", strerror(errno));
		break;
	}
	return (-1);
}

static int
token_save(const char *path, const struct htokens *ts)
{
	char	*text, *tmp, *dir, *slash;
	int	 fd;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (fdio_mkdirs(dir, 0700) == -1) {
			diag_warnx(dir, "mkdir: %s", strerror(errno));
			free(dir);
			return (-1);
		}
	}
	free(dir);
	xasprintf(&tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		diag_warnx(tmp, "%s", strerror(errno));
		free(tmp);
		return (-1);
	}
	text = htokens_format(ts);
	if (fchmod(fd, 0600) == -1 ||
	    fdio_write_all(fd, text, strlen(text)) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1 || rename(tmp, path) == -1) {
		diag_warnx(path, "cannot write: %s", strerror(errno));
		(void)unlink(tmp);
		free(text);
		free(tmp);
		return (-1);
	}
	free(text);
	free(tmp);
	return (0);
}

/* A token's servers: names separated by commas, none empty. */
static int
token_servers_ok(const char *list)
{
	const char	*p;

	if (*list == '\0' || *list == ',' || list[strlen(list) - 1] == ',' ||
	    strstr(list, ",,") != NULL)
		return (0);
	for (p = list; *p != '\0'; p++)
		if (*p == '\t' || *p == '\n' || *p == ' ' || *p == '*')
			return (0);
	return (1);
}

int
token_new(const char *name, const char *servers, int64_t expires,
    char **token)
{
	struct htokens	 ts;
	unsigned char	 raw[HTOKEN_RANDOM_BYTES];
	char		 hash[HTOKEN_HASH_HEX], *path, *b64;
	int		 rc = DIAG_EXIT_FAILED;

	*token = NULL;
	if (name == NULL || !htoken_name_ok(name)) {
		diag_warnx(NULL, "a token's name is 1 to %d letters, digits, "
		    "'.', '_' or '-'", HTOKEN_NAME_MAX);
		return (DIAG_EXIT_USAGE);
	}
	if (servers != NULL && !token_servers_ok(servers)) {
		diag_warnx(NULL, "--servers: expected names separated by "
		    "commas");
		return (DIAG_EXIT_USAGE);
	}
	path = token_store_path();
	if (token_load(path, &ts) != 0)
		goto out;
	if (htokens_find(&ts, name) != NULL) {
		diag_warnx(NULL, "a token named %s exists; revoke it first",
		    name);
		goto out;
	}
	if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
		diag_warnx(NULL, "getrandom: %s", strerror(errno));
		goto out;
	}
	b64 = b64url_encode(raw, sizeof raw);
	explicit_bzero(raw, sizeof raw);
	xasprintf(token, "%s%s", HTOKEN_PREFIX, b64);
	explicit_bzero(b64, strlen(b64));
	free(b64);
	htoken_hash(*token, hash);
	htokens_add(&ts, name, hash, (int64_t)time(NULL), expires, servers);
	if (token_save(path, &ts) == 0)
		rc = DIAG_EXIT_OK;
	else {
		explicit_bzero(*token, strlen(*token));
		free(*token);
		*token = NULL;
	}
out:
	htokens_free(&ts);
	free(path);
	return (rc);
}

static int
token_create(const char *name, const char *servers, const char *expiry)
{
	char		*token;
	int64_t		 expires = 0, secs;
	int		 rc;

	if (expiry != NULL) {
		if (htoken_duration(expiry, &secs) != 0) {
			diag_warnx(NULL, "--expires: expected a duration such "
			    "as 30d, 12h or 90m");
			return (DIAG_EXIT_USAGE);
		}
		expires = (int64_t)time(NULL) + secs;
	}
	if ((rc = token_new(name, servers, expires, &token)) != DIAG_EXIT_OK)
		return (rc);
	printf("%s\n", token);
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "This token is shown only once; it is sent as "
		    "\"Authorization: Bearer TOKEN\".\n");
	explicit_bzero(token, strlen(token));
	free(token);
	return (DIAG_EXIT_OK);
}

static void
token_time(int64_t t, char *buf, size_t len)
{
	time_t		 tt = (time_t)t;
	struct tm	 tm;

	if (t == 0) {
		snprintf(buf, len, "never");
		return;
	}
	localtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M", &tm);
}

/* The tokens as JSON: [{"name", "created", "expires", "servers"}]. */
static void
token_list_json(const struct htokens *ts)
{
	cJSON	*arr, *o, *sv;
	char	*text;
	size_t	 i, j;

	arr = cJSON_CreateArray();
	for (i = 0; i < ts->n; i++) {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", ts->v[i].name);
		cJSON_AddNumberToObject(o, "created", (double)ts->v[i].created);
		cJSON_AddNumberToObject(o, "expires", (double)ts->v[i].expires);
		if (ts->v[i].nservers == 0)
			cJSON_AddNullToObject(o, "servers");
		else {
			sv = cJSON_AddArrayToObject(o, "servers");
			for (j = 0; j < ts->v[i].nservers; j++)
				cJSON_AddItemToArray(sv,
				    cJSON_CreateString(ts->v[i].servers[j]));
		}
		cJSON_AddItemToArray(arr, o);
	}
	if ((text = cJSON_Print(arr)) != NULL)
		printf("%s\n", text);
	free(text);
	cJSON_Delete(arr);
}

static int
token_list(int json)
{
	struct htokens	 ts;
	char		*path, created[32], expires[32];
	size_t		 i, j;
	int64_t		 now = (int64_t)time(NULL);

	path = token_store_path();
	if (token_load(path, &ts) != 0) {
		free(path);
		return (DIAG_EXIT_FAILED);
	}
	if (json) {
		token_list_json(&ts);
		htokens_free(&ts);
		free(path);
		return (DIAG_EXIT_OK);
	}
	printf("%-20s %-16s %-16s %s\n", "NAME", "CREATED", "EXPIRES",
	    "SERVERS");
	for (i = 0; i < ts.n; i++) {
		token_time(ts.v[i].created, created, sizeof created);
		token_time(ts.v[i].expires, expires, sizeof expires);
		if (ts.v[i].expires != 0 && ts.v[i].expires <= now)
			snprintf(expires, sizeof expires, "expired");
		printf("%-20s %-16s %-16s ", ts.v[i].name, created, expires);
		if (ts.v[i].nservers == 0)
			printf("*");
		for (j = 0; j < ts.v[i].nservers; j++)
			printf("%s%s", j > 0 ? "," : "", ts.v[i].servers[j]);
		printf("\n");
	}
	htokens_free(&ts);
	free(path);
	return (DIAG_EXIT_OK);
}

int
token_drop(const char *name)
{
	struct htokens	 ts;
	char		*path;
	int		 rc = -1;

	path = token_store_path();
	if (token_load(path, &ts) != 0)
		goto out;
	if (htokens_remove(&ts, name) != 0)
		rc = 0;
	else if (token_save(path, &ts) == 0)
		rc = 1;
out:
	htokens_free(&ts);
	free(path);
	return (rc);
}

static int
token_revoke(const char *name)
{
	switch (token_drop(name)) {
	case 1:
		return (DIAG_EXIT_OK);
	case 0:
		diag_warnx(NULL, "no token named %s (`mcpctl token list` "
		    "lists them)", name);
		break;
	}
	return (DIAG_EXIT_FAILED);
}

int
token_run(struct ctl *ctl, int argc, char **argv)
{
	static const char usage[] = "usage: mcpctl token create NAME "
	    "[--servers A,B] [--expires 30d] | list [--json] | revoke NAME";
	static const struct option options[] = {
		{ "servers",	required_argument,	NULL, 'S' },
		{ "expires",	required_argument,	NULL, 'E' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "no-block",	no_argument,		NULL, 'b' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	const char	*servers = NULL, *expires = NULL;
	char		**args;
	int		  ch, n;

	/* -s and --no-block are mcpctl's everywhere; the store is a file. */
	optind = 0;
	while ((ch = getopt_long(argc + 1, argv - 1, "s:h", options,
	    NULL)) != -1) {
		switch (ch) {
		case 'S':
			servers = optarg;
			break;
		case 'E':
			expires = optarg;
			break;
		case 'j':
			ctl->json = 1;
			break;
		case 's':
			ctl->socket_path = optarg;
			break;
		case 'b':
			break;
		case 'h':
			printf("%s\n", usage);
			return (DIAG_EXIT_OK);
		default:
			diag_warnx(NULL, "%s", usage);
			return (DIAG_EXIT_USAGE);
		}
	}
	args = argv - 1 + optind;
	n = argc + 1 - optind;
	token_store_of(ctl);
	if (n == 2 && strcmp(args[0], "create") == 0)
		return (token_create(args[1], servers, expires));
	if (servers == NULL && expires == NULL) {
		if (n == 1 && strcmp(args[0], "list") == 0)
			return (token_list(ctl->json));
		if (n == 2 && strcmp(args[0], "revoke") == 0)
			return (token_revoke(args[1]));
	}
	diag_warnx(NULL, "%s", usage);
	return (DIAG_EXIT_USAGE);
}
