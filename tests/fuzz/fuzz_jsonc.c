/*
 * fuzz_jsonc.c -- what mcpctl import reads from other apps' files: JSON
 * with comments and trailing commas (src/jsonc.c), the apps' entries and
 * their merge into mcpd's configuration (src/appconf.c), and the dotenv
 * files of an envFile (src/dotenv.c).
 *
 * The first byte picks what the rest is: an app's file (its shape and
 * variable syntax from the byte: Claude Desktop's, VS Code's and Claude
 * Code's, or those of src/appshape.c), or an environment file.
 * Invariants:
 * - jsonc_clean keeps the length and every line end, and either refuses
 *   with "line L, column C: ..." inside the text or gives text that
 *   jsonc_parse agrees on; each top-level member of an object is found
 *   by jsonc_find, its span parsing to the same value;
 * - appconf_read accepts what jsonc_parse accepts as an object (with an
 *   object or no "servers" or "mcpServers"); the merge of its entries
 *   into an empty file is an object whose "mcpServers" holds exactly the
 *   entries it says are new, under valid, distinct names, and merging
 *   them again changes nothing;
 * - an entry of a project's file that would take mcpd's secrets (a
 *   "${credential:...}", a "${VAR}" beyond those every server gets, an
 *   envFile) is disabled;
 * - the entry install writes for each one, in the app's shape, reads
 *   back as running mcpctl connect NAME, disabled as the app's was;
 * - dotenv_parse gives KEY=VALUE entries with distinct, valid keys, or
 *   an error naming a line, never the text.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "appshape.h"
#include "confvar.h"
#include "dotenv.h"
#include "fuzz.h"
#include "jsonc.h"

const char	*fuzz_target_name = "jsonc";

static void
check_cause(const char *cause, const char *text, size_t len)
{
	size_t	 line, column, nl = 1, i;

	FUZZ_CHECK(cause != NULL, "refused without a reason");
	if (strcmp(cause, "a NUL byte") == 0)
		return;
	FUZZ_CHECK(sscanf(cause, "line %zu, column %zu:", &line, &column) ==
	    2 || sscanf(cause, "line %zu:", &line) == 1, "reason \"%s\" names "
	    "no line", cause);
	for (i = 0; i < len; i++)
		nl += text[i] == '\n';
	FUZZ_CHECK(line >= 1 && line <= nl, "line %zu of %zu lines", line,
	    nl);
}

static void
fuzz_json(const char *text, size_t len)
{
	struct jsonc_span	 span;
	const char		*path[1];
	char			*clean, *cause = NULL, *clean_cause = NULL;
	char			*a, *b;
	cJSON			*v, *w, *item;
	size_t			 i;

	clean = jsonc_clean(text, len, &clean_cause);
	v = jsonc_parse(text, len, &cause);
	if (clean == NULL) {
		FUZZ_CHECK(v == NULL, "parsed what clean refused");
		FUZZ_CHECK(cause != NULL && strcmp(cause, clean_cause) == 0,
		    "clean and parse refuse for different reasons");
		check_cause(clean_cause, text, len);
		free(clean_cause);
		free(cause);
		return;
	}
	FUZZ_CHECK(strlen(clean) == len, "clean changed the length");
	for (i = 0; i < len; i++)
		FUZZ_CHECK((text[i] == '\n') == (clean[i] == '\n'),
		    "line end moved at %zu", i);
	if (v == NULL) {
		check_cause(cause, text, len);
		free(cause);
		free(clean);
		return;
	}
	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(item, v) {
			path[0] = item->string;
			if (cJSON_GetObjectItemCaseSensitive(v,
			    item->string) != item)
				continue;	/* a repeated key */
			FUZZ_CHECK(jsonc_find(clean, len, path, 1, &span) ==
			    1, "member not found");
			FUZZ_CHECK(span.start < span.end && span.end <= len,
			    "bad span");
			/*
			 * Printed, not cJSON_Compare: that finds only the
			 * first of repeated keys.
			 */
			w = cJSON_ParseWithLength(clean + span.start,
			    span.end - span.start);
			FUZZ_CHECK(w != NULL, "the span holds no value");
			a = cJSON_PrintUnformatted(w);
			b = cJSON_PrintUnformatted(item);
			FUZZ_CHECK(strcmp(a, b) == 0, "the span holds another "
			    "value");
			free(a);
			free(b);
			cJSON_Delete(w);
		}
	}
	cJSON_Delete(v);
	free(clean);
}

static int
valid_name(const char *s)
{
	size_t	 len = strlen(s);

	return (len > 0 && len <= 64 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-") == len);
}

/* A string, or any string below v, refers to mcpd's secrets. */
static int
takes_secrets(const cJSON *v)
{
	struct confvar_piece	 p;
	const cJSON		*item;
	const char		*s;

	if (cJSON_IsString(v)) {
		s = v->valuestring;
		while (confvar_next(&s, &p)) {
			if ((p.kind == CONFVAR_CREDENTIAL &&
			    confvar_valid_credential(p.name, p.name_len)) ||
			    (p.kind == CONFVAR_VARIABLE &&
			    confvar_valid_variable(p.name, p.name_len) &&
			    !confvar_passed(p.name, p.name_len)))
				return (1);
		}
		return (0);
	}
	cJSON_ArrayForEach(item, v) {
		if (takes_secrets(item))
			return (1);
	}
	return (0);
}

/* The entry install writes for e, read back in the app's shape. */
static void
check_launch(const struct appconf_file *f, const struct appconf_entry *e)
{
	const char	*argv[3] = { "/usr/bin/mcpctl", "connect", NULL };
	char		**notes = NULL, *got;
	size_t		 nnotes = 0, i;
	cJSON		*o, *common;

	if (e->mcpd_name == NULL)
		return;
	argv[2] = e->mcpd_name;
	o = appshape_launch(f->shape, argv, 3, e->was_disabled);
	common = appshape_common(f->shape, o, &notes, &nnotes);
	FUZZ_CHECK(common != NULL && nnotes == 0, "install's entry not read "
	    "back");
	got = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(common,
	    "args"));
	FUZZ_CHECK(strcmp(cJSON_GetObjectItemCaseSensitive(common,
	    "command")->valuestring, argv[0]) == 0 && strncmp(got,
	    "[\"connect\",", 11) == 0, "install's entry runs %s", got);
	FUZZ_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(common,
	    "disabled")) == (e->was_disabled != 0), "install's entry is "
	    "disabled otherwise");
	free(got);
	for (i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	cJSON_Delete(common);
	cJSON_Delete(o);
}

static void
fuzz_app(unsigned char mode, const char *text, size_t len)
{
	struct appconf_file	 f;
	struct appconf_list	 l = { NULL, 0 };
	char			*cause = NULL, *out, *again;
	size_t			 outlen, againlen, i, nnew = 0;
	cJSON			*root, *servers;

	memset(&f, 0, sizeof f);
	f.app = "fuzz";
	f.label = "fuzz";
	if (mode & 0x40) {
		mode &= 0x3f;
		f.shape = APPCONF_WINDSURF + mode % 5;
		f.syntax = (mode / 5) % 5;
	} else {
		f.shape = mode % 3;
		f.syntax = (mode / 3) % 3;
	}
	f.workspace = (mode & 0x10) ? "/work/p $x" : NULL;
	f.project = "/work/p";
	f.in_project = (mode & 0x20) != 0;
	if (appconf_read(&f, text, len, &l, &cause) == -1) {
		FUZZ_CHECK(cause != NULL, "refused without a reason");
		free(cause);
		return;
	}
	for (i = 0; f.in_project && i < l.n; i++) {
		if (l.v[i].server == NULL || (!takes_secrets(l.v[i].server) &&
		    !cJSON_HasObjectItem(l.v[i].server, "envFile")))
			continue;
		FUZZ_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    l.v[i].server, "disabled")), "a project's entry takes "
		    "mcpd's secrets and is not disabled");
	}
	FUZZ_CHECK(appconf_merge("", 0, &l, &out, &outlen, &cause) == 0,
	    "merge into nothing failed: %s", cause);
	for (i = 0; i < l.n; i++)
		check_launch(&f, &l.v[i]);
	for (i = 0; i < l.n; i++) {
		if (l.v[i].status != APPCONF_NEW)
			continue;
		nnew++;
		FUZZ_CHECK(valid_name(l.v[i].mcpd_name), "invalid name");
	}
	if (nnew == 0)
		FUZZ_CHECK(outlen == 0, "nothing new, yet a text");
	else {
		root = jsonc_parse(out, outlen, &cause);
		FUZZ_CHECK(root != NULL, "merged text refused: %s", cause);
		servers = cJSON_GetObjectItemCaseSensitive(root, "mcpServers");
		FUZZ_CHECK((size_t)cJSON_GetArraySize(servers) == nnew,
		    "%d servers written, %zu new", cJSON_GetArraySize(servers),
		    nnew);
		for (i = 0; i < l.n; i++) {
			if (l.v[i].status == APPCONF_NEW)
				FUZZ_CHECK(cJSON_Compare(
				    cJSON_GetObjectItemCaseSensitive(servers,
				    l.v[i].mcpd_name), l.v[i].server, 1),
				    "an entry written differs");
		}
		cJSON_Delete(root);
		FUZZ_CHECK(appconf_merge(out, outlen, &l, &again, &againlen,
		    &cause) == 0, "merging again failed: %s", cause);
		FUZZ_CHECK(againlen == outlen && memcmp(again, out,
		    outlen) == 0, "merging again changed the text");
		for (i = 0; i < l.n; i++)
			FUZZ_CHECK(l.v[i].status != APPCONF_NEW,
			    "new again");
		free(again);
	}
	free(out);
	appconf_list_free(&l);
}

static void
fuzz_dotenv(const char *text, size_t len)
{
	char	**env, *cause;
	size_t	 n, i, j, k;

	if (dotenv_parse(text, len, &env, &n, &cause) == -1) {
		FUZZ_CHECK(env == NULL, "refused, yet entries");
		check_cause(cause, text, len);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		k = strcspn(env[i], "=");
		FUZZ_CHECK(env[i][k] == '=' && k > 0, "entry without a key");
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strncmp(env[j], env[i], k + 1) != 0,
			    "key repeated");
	}
	FUZZ_CHECK(env[n] == NULL, "not NULL-ended");
	dotenv_free(env);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*text = (const char *)data + 1;

	if (size == 0)
		return (0);
	size--;
	switch (data[0] & 0xc0) {
	case 0x00:
		fuzz_json(text, size);
		break;
	case 0x40:
	case 0x80:
		/* 0x80: the shapes of src/appshape.c. */
		fuzz_app((data[0] & 0x3f) | (data[0] & 0x80 ? 0x40 : 0), text,
		    size);
		break;
	default:
		fuzz_dotenv(text, size);
		break;
	}
	return (0);
}
