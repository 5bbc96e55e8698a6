/*
 * fuzz_conf.c -- the configuration loader, parsing from memory.
 *
 * The input is the file's text.  ${VAR} expansion sees a fixed environment
 * (some variables set, one empty, the rest unset).  Whatever the text:
 * - conf_parse returns a conf exactly when no error was reported, and
 *   every diagnostic reads "PATH: what", PATH starting with "<config>" or
 *   with a top-level key of the document;
 * - no diagnostic repeats an environment value, nor a string value from
 *   the file holding the word SECRET (the seeds plant some);
 * - a text with "\u0000" in a string or key is refused, with a diagnostic
 *   saying so when it is JSON (cJSON would cut such strings short);
 * - a returned conf is complete and in range: argv NULL-terminated with
 *   argc >= 1 and a non-empty command, names valid and unique, env entries
 *   KEY=VALUE, roots file:// URIs, every setting within its documented
 *   range and consistent with the others (conf.h, mcpd.json(5));
 * - argv_display and cwd_display match argv and cwd in shape, equal them
 *   where nothing could expand, and never hold an environment value;
 * - conf_server_equal is reflexive and symmetric, conf_server_dup copies
 *   equal, and conf_find finds each server;
 * - each policy of "clients" (cpolicy.h) has a valid name, at least one
 *   "match" glob unless it is "default" (which has none), and names only
 *   configured servers and groups;
 * - parsing again into the same (non-empty) diagnostics gives the same.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "cpolicy.h"
#include "fuzz.h"
#include "util.h"

const char	*fuzz_target_name = "conf";

#define FUZZ_NAME_MAX_LEN	64	/* CONF_NAME_MAX_LEN in conf.c */
#define FUZZ_SECRET_VALUE	"s3cr3t-VALUE-42"

static const char *fuzz_env[][2] = {
	{ "HOME", "/home/fuzz" },
	{ "TOKEN", FUZZ_SECRET_VALUE },
	{ "EMPTY", "" },
	{ "WORKDIR", "/srv/work dir" },
	{ "ARG", "--flag=1" },
};

static const char *
fuzz_getenv(const char *name, void *arg)
{
	size_t	 i, len = strlen(name);

	FUZZ_CHECK(arg == (void *)fuzz_env, "getenv callback lost its arg");
	FUZZ_CHECK(len > 0 && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_") == len &&
	    !(name[0] >= '0' && name[0] <= '9'), "looked up a variable named "
	    "\"%s\"", name);
	for (i = 0; i < nitems(fuzz_env); i++) {
		if (strcmp(fuzz_env[i][0], name) == 0)
			return (fuzz_env[i][1]);
	}
	return (NULL);
}

static int
valid_name(const char *name)
{
	size_t	 len = strlen(name);

	return (len > 0 && len <= FUZZ_NAME_MAX_LEN &&
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") == len);
}

static int
starts_with(const char *s, const char *prefix)
{
	return (strncmp(s, prefix, strlen(prefix)) == 0);
}

/* A diagnostic's path is "<config>" or starts at a top-level key. */
static void
check_diag_shape(const struct conf_diag *d, const cJSON *doc)
{
	const cJSON	*item;
	size_t		 klen;
	char		 next;

	FUZZ_CHECK(d->text != NULL && (d->level == CONF_WARNING ||
	    d->level == CONF_ERROR), "malformed diagnostic");
	FUZZ_CHECK(strstr(d->text, ": ") != NULL, "diagnostic without "
	    "\"PATH: \": %s", d->text);
	if (starts_with(d->text, "<config>: "))
		return;
	for (item = doc != NULL ? doc->child : NULL; item != NULL;
	    item = item->next) {
		klen = strlen(item->string);
		if (strncmp(d->text, item->string, klen) != 0)
			continue;
		next = d->text[klen];
		if (next == '.' || next == '[' || (next == ':' &&
		    d->text[klen + 1] == ' '))
			return;
	}
	fuzz_fail("diagnostic path is not a path of the document: %s",
	    d->text);
}

/* Does SECRET occur where a diagnostic may rightly name it? */
static int
secret_named(const cJSON *v)
{
	const cJSON	*item;

	if (v->string != NULL && strstr(v->string, "SECRET") != NULL)
		return (1);	/* a key: part of a path */
	if (cJSON_IsString(v) && strstr(v->valuestring, "${") != NULL &&
	    strstr(v->valuestring, "SECRET") != NULL)
		return (1);	/* perhaps a variable name */
	for (item = v->child; item != NULL; item = item->next) {
		if (secret_named(item))
			return (1);
	}
	return (0);
}

/* String values planted with SECRET must never show in a diagnostic. */
static void
check_no_secret(const cJSON *v, const struct conf_diags *diags)
{
	const cJSON	*item;
	size_t		 i;

	if (cJSON_IsString(v) && strstr(v->valuestring, "SECRET") != NULL) {
		for (i = 0; i < diags->n; i++)
			FUZZ_CHECK(strstr(diags->v[i].text, v->valuestring) ==
			    NULL, "a diagnostic shows a string value: %s",
			    diags->v[i].text);
	}
	for (item = v->child; item != NULL; item = item->next)
		check_no_secret(item, diags);
}

/* Does a string of the text hold "\u0000"?  fuzz_json_tame rewrites it. */
static int
has_nul_escape(const char *text, size_t size)
{
	char	*tame;
	size_t	 i;
	int	 found = 0;

	tame = fuzz_json_tame(text, size);
	for (i = 0; i + 6 <= size && !found; i++)
		found = memcmp(text + i, "\\u0000", 6) == 0 &&
		    memcmp(tame + i, "\\u0001", 6) == 0;
	free(tame);
	return (found);
}

/* Does a string or key of the document hold the environment's secret? */
static int
secret_in_doc(const cJSON *v)
{
	const cJSON	*item;

	if ((v->string != NULL && strstr(v->string, FUZZ_SECRET_VALUE) !=
	    NULL) || (cJSON_IsString(v) && strstr(v->valuestring,
	    FUZZ_SECRET_VALUE) != NULL))
		return (1);
	for (item = v->child; item != NULL; item = item->next) {
		if (secret_in_doc(item))
			return (1);
	}
	return (0);
}

/* The display form of one string: shaped like the value, no secret. */
static void
check_display(const char *name, const char *value, const char *display,
    int secret_in_file)
{
	FUZZ_CHECK(display != NULL, "%s: no display text", name);
	FUZZ_CHECK(strchr(display, '$') != NULL || strcmp(display, value) == 0,
	    "%s: display \"%s\" for \"%s\" with nothing to expand", name,
	    display, value);
	FUZZ_CHECK(secret_in_file || strstr(display, FUZZ_SECRET_VALUE) ==
	    NULL, "%s: display \"%s\" shows an environment value", name,
	    display);
}

static void
check_server(const struct conf *conf, size_t index, int secret_in_file)
{
	const struct conf_server	*cs = &conf->servers[index];
	const struct backoff_policy	*bp = &cs->backoff;
	struct conf_server		*copy;
	const char			*eq;
	size_t				 i, j;

	FUZZ_CHECK(valid_name(cs->name), "server name \"%s\"", cs->name);
	FUZZ_CHECK(cs->path != NULL && ((starts_with(cs->path, "mcpServers.") &&
	    strcmp(cs->path + 11, cs->name) == 0) ||
	    (starts_with(cs->path, "servers.") &&
	    strcmp(cs->path + 8, cs->name) == 0)), "server %s: path %s",
	    cs->name, cs->path);
	FUZZ_CHECK(cs->argc >= 1 && cs->argv != NULL &&
	    cs->argv[cs->argc] == NULL, "%s: argv not NULL-terminated at "
	    "argc %zu", cs->name, cs->argc);
	for (i = 0; i < cs->argc; i++)
		FUZZ_CHECK(cs->argv[i] != NULL, "%s: argv[%zu] is NULL",
		    cs->name, i);
	FUZZ_CHECK(cs->argv[0][0] != '\0', "%s: empty command", cs->name);
	FUZZ_CHECK(cs->argv_display != NULL &&
	    cs->argv_display[cs->argc] == NULL, "%s: argv_display not "
	    "NULL-terminated at argc %zu", cs->name, cs->argc);
	for (i = 0; i < cs->argc; i++)
		check_display(cs->name, cs->argv[i], cs->argv_display[i],
		    secret_in_file);
	FUZZ_CHECK((cs->cwd == NULL) == (cs->cwd_display == NULL),
	    "%s: cwd and cwd_display disagree", cs->name);
	if (cs->cwd != NULL)
		check_display(cs->name, cs->cwd, cs->cwd_display,
		    secret_in_file);
	FUZZ_CHECK(cs->env != NULL && cs->env[cs->envc] == NULL,
	    "%s: env not NULL-terminated", cs->name);
	for (i = 0; i < cs->envc; i++) {
		eq = cs->env[i] != NULL ? strchr(cs->env[i], '=') : NULL;
		FUZZ_CHECK(eq != NULL && eq != cs->env[i], "%s: env[%zu] is "
		    "not KEY=VALUE", cs->name, i);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strncmp(cs->env[j], cs->env[i],
			    eq - cs->env[i] + 1) != 0, "%s: env key repeated",
			    cs->name);
	}
	FUZZ_CHECK(cs->roots != NULL && cs->roots[cs->nroots] == NULL,
	    "%s: roots not NULL-terminated", cs->name);
	for (i = 0; i < cs->nroots; i++)
		FUZZ_CHECK(starts_with(cs->roots[i], "file://"),
		    "%s: root %zu is not a file:// URI", cs->name, i);
	FUZZ_CHECK(cs->member_roots != NULL &&
	    cs->member_roots[cs->nmember_roots] == NULL,
	    "%s: member_roots not NULL-terminated", cs->name);
	for (i = 0; i < cs->nmember_roots; i++)
		FUZZ_CHECK(starts_with(cs->member_roots[i], "file://"),
		    "%s: member root %zu is not a file:// URI", cs->name, i);
	if (cs->share == CONF_SHARE_GLOBAL)
		FUZZ_CHECK(cs->max_instances == 0 &&
		    cs->max_instances_per_uid == 0 && cs->nmember_roots == 0,
		    "%s: instance limits on a server shared globally",
		    cs->name);
	else
		FUZZ_CHECK(cs->max_instances >= 1 &&
		    cs->max_instances_per_uid >= 1 &&
		    cs->max_instances_per_uid <= cs->max_instances,
		    "%s: %u instances, %u per uid", cs->name,
		    cs->max_instances, cs->max_instances_per_uid);
	FUZZ_CHECK(cs->cwd == NULL || cs->cwd[0] == '/',
	    "%s: relative cwd", cs->name);
	FUZZ_CHECK(cs->restart == CONF_RESTART_ALWAYS ||
	    cs->restart == CONF_RESTART_ON_FAILURE ||
	    cs->restart == CONF_RESTART_NEVER, "%s: restart %d", cs->name,
	    cs->restart);
	FUZZ_CHECK(strcmp(conf_restart_name(cs->restart), "unknown") != 0,
	    "%s: restart has no name", cs->name);
	FUZZ_CHECK(bp->min_ms >= 1 && bp->max_ms >= 1 &&
	    bp->min_ms <= bp->max_ms, "%s: backoff %u..%u ms", cs->name,
	    bp->min_ms, bp->max_ms);
	FUZZ_CHECK(bp->jitter >= 0 && bp->jitter <= 1 && !isnan(bp->jitter),
	    "%s: jitter %g", cs->name, bp->jitter);
	FUZZ_CHECK(bp->max_restarts <= CONF_MAX_MAX_RESTARTS &&
	    (bp->max_restarts == 0 || bp->restart_window_s >= 1),
	    "%s: max_restarts %u in %u s", cs->name, bp->max_restarts,
	    bp->restart_window_s);
	FUZZ_CHECK(cs->init_timeout_ms >= 1 && cs->request_timeout_ms >= 1 &&
	    cs->stop_timeout_ms >= 1, "%s: a zero timeout", cs->name);
	FUZZ_CHECK(cs->max_message_bytes >= CONF_MIN_MAX_MESSAGE_BYTES &&
	    cs->max_message_bytes <= CONF_MAX_MAX_MESSAGE_BYTES,
	    "%s: max_message_bytes %zu", cs->name, cs->max_message_bytes);
	FUZZ_CHECK(cs->disabled == 0 || cs->disabled == 1,
	    "%s: disabled %d", cs->name, cs->disabled);
	FUZZ_CHECK((cs->client_caps & ~CONF_CAP_ALL) == 0,
	    "%s: client_caps %#x", cs->name, cs->client_caps);

	FUZZ_CHECK(conf_find(conf, cs->name) == cs, "conf_find(%s) misses",
	    cs->name);
	FUZZ_CHECK(conf_server_equal(cs, cs) == 1, "%s: not equal to itself",
	    cs->name);
	copy = conf_server_dup(cs);
	FUZZ_CHECK(conf_server_equal(cs, copy) == 1 &&
	    conf_server_equal(copy, cs) == 1, "%s: not equal to its copy",
	    cs->name);
	for (i = 0; i < cs->argc; i++)
		FUZZ_CHECK(strcmp(copy->argv_display[i],
		    cs->argv_display[i]) == 0, "%s: copy of argv_display[%zu] "
		    "differs", cs->name, i);
	FUZZ_CHECK(copy->argv_display[cs->argc] == NULL &&
	    (cs->cwd_display == NULL ? copy->cwd_display == NULL :
	    strcmp(copy->cwd_display, cs->cwd_display) == 0),
	    "%s: copy of the display text differs", cs->name);
	conf_server_release(copy);
	for (i = 0; i < index; i++) {
		FUZZ_CHECK(strcmp(conf->servers[i].name, cs->name) != 0,
		    "server %s twice", cs->name);
		FUZZ_CHECK(conf_server_equal(&conf->servers[i], cs) == 0 &&
		    conf_server_equal(cs, &conf->servers[i]) == 0,
		    "%s and %s compare equal", conf->servers[i].name,
		    cs->name);
	}
}

static void
check_policy(const struct conf *conf, const struct cpolicy *p, int dflt)
{
	size_t	 i, nmatch = 0;

	FUZZ_CHECK(conf_valid_name(p->name), "a policy named \"%s\"",
	    p->name);
	FUZZ_CHECK(dflt == (strcmp(p->name, CPOLICY_DEFAULT) == 0),
	    "policy %s in the wrong place", p->name);
	for (i = 0; i < CPOLICY_MATCHES; i++)
		nmatch += p->match[i] != NULL;
	FUZZ_CHECK(dflt ? nmatch == 0 : nmatch > 0, "policy %s has %zu "
	    "match globs", p->name, nmatch);
	FUZZ_CHECK(p->all_servers == 0 || p->nservers == 0, "policy %s: "
	    "all servers, and a list", p->name);
	for (i = 0; i < p->nservers; i++)
		FUZZ_CHECK(conf_find(conf, p->servers[i]) != NULL ||
		    conf_find_group(conf, p->servers[i]) != NULL,
		    "policy %s names an unknown server", p->name);
}

static void
check_conf(const struct conf *conf, int secret_in_file)
{
	size_t	 i;

	FUZZ_CHECK(conf->file == NULL, "a file name for a parse from memory");
	FUZZ_CHECK(conf->client_output_hard_bytes >= 65536 &&
	    conf->client_output_hard_bytes <=
	    4ULL * CONF_MAX_MAX_MESSAGE_BYTES, "client_output_hard_bytes %zu",
	    conf->client_output_hard_bytes);
	FUZZ_CHECK(conf->client_output_soft_bytes <=
	    conf->client_output_hard_bytes, "soft %zu over hard %zu",
	    conf->client_output_soft_bytes, conf->client_output_hard_bytes);
	FUZZ_CHECK(conf->client_output_soft_s <= 86400,
	    "client_output_soft_s %u", conf->client_output_soft_s);
	FUZZ_CHECK(conf->nservers == 0 || conf->servers != NULL,
	    "servers missing");
	for (i = 0; i < conf->nservers; i++)
		check_server(conf, i, secret_in_file);
	if (conf->clients != NULL) {
		for (i = 0; i < conf->clients->n; i++)
			check_policy(conf, conf->clients->v[i], 0);
		if (conf->clients->dflt != NULL)
			check_policy(conf, conf->clients->dflt, 1);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*text = (const char *)data;
	struct conf_diags	 diags;
	struct conf		*conf, *again;
	cJSON			*doc;
	char			*copy;
	size_t			 i, n, nerrors;
	int			 nul, secret_in_file, nul_named;

	/* The document as conf.c sees it, to know its top-level keys. */
	doc = NULL;
	if (memchr(data, '\0', size) == NULL) {
		if ((copy = malloc(size + 1)) == NULL)
			abort();
		memcpy(copy, data, size);
		copy[size] = '\0';
		doc = cJSON_ParseWithOpts(copy, NULL, 1);
		free(copy);
	}

	conf_diags_init(&diags);
	conf = conf_parse(text, size, fuzz_getenv, (void *)fuzz_env, &diags);
	nerrors = 0;
	for (i = 0; i < diags.n; i++) {
		check_diag_shape(&diags.v[i], cJSON_IsObject(doc) ? doc : NULL);
		/* Unless the file itself holds it (a key, say). */
		FUZZ_CHECK(strstr(diags.v[i].text, FUZZ_SECRET_VALUE) == NULL ||
		    memmem(data, size, FUZZ_SECRET_VALUE,
		    strlen(FUZZ_SECRET_VALUE)) != NULL,
		    "a diagnostic shows an environment value: %s",
		    diags.v[i].text);
		nerrors += diags.v[i].level == CONF_ERROR;
	}
	FUZZ_CHECK(nerrors == diags.nerrors, "%zu errors counted as %zu",
	    nerrors, diags.nerrors);
	FUZZ_CHECK((conf == NULL) == (nerrors > 0), "conf %s with %zu errors",
	    conf == NULL ? "refused" : "returned", nerrors);
	if (doc != NULL && !secret_named(doc))
		check_no_secret(doc, &diags);
	nul = has_nul_escape(text, size);
	FUZZ_CHECK(!nul || conf == NULL, "a string holding \\u0000 accepted");
	if (nul && doc != NULL) {
		nul_named = 0;
		for (i = 0; i < diags.n; i++)
			nul_named |= strstr(diags.v[i].text, "contains a NUL "
			    "character (\\u0000)") != NULL;
		FUZZ_CHECK(nul_named, "\\u0000 refused without saying so");
	}
	secret_in_file = doc == NULL || secret_in_doc(doc);
	if (conf != NULL)
		check_conf(conf, secret_in_file);

	/* Again, into diagnostics that already hold the first run's. */
	n = diags.n;
	again = conf_parse(text, size, fuzz_getenv, (void *)fuzz_env, &diags);
	FUZZ_CHECK((again == NULL) == (conf == NULL) && diags.n == 2 * n &&
	    diags.nerrors == 2 * nerrors, "a second parse differs");
	for (i = 0; i < n; i++)
		FUZZ_CHECK(strcmp(diags.v[i].text, diags.v[n + i].text) == 0,
		    "diagnostic %zu differs the second time", i);
	if (again != NULL) {
		FUZZ_CHECK(again->nservers == conf->nservers, "a second parse "
		    "finds %zu servers, not %zu", again->nservers,
		    conf->nservers);
		for (i = 0; i < conf->nservers; i++)
			FUZZ_CHECK(conf_server_equal(&conf->servers[i],
			    &again->servers[i]), "%s differs the second time",
			    conf->servers[i].name);
	}
	conf_free(again);
	conf_free(conf);
	conf_diags_free(&diags);
	FUZZ_CHECK(diags.n == 0 && diags.v == NULL, "diags not reset");
	cJSON_Delete(doc);
	return (0);
}
