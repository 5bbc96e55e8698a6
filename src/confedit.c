/*
 * confedit.c -- one server of mcpd's configuration added or taken out by
 * name, and the text a diff shows, secrets masked (see confedit.h).
 *
 * The text is read twice: parsed (jsonc.h, cJSON) to know what it holds,
 * and scanned in its clean form (comments blanked, every offset kept) to
 * know where: a removal cuts the bytes of one member, a mask replaces
 * the bytes of one string, and nothing else moves.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "confedit.h"
#include "confvar.h"
#include "esc.h"
#include "jsonc.h"
#include "sbuf.h"
#include "xmalloc.h"

#define CONFEDIT_GROUP_ALL	"all"	/* conf_group.c's built-in group */

/* The two objects that hold servers, in the order the file's are read. */
static const char *const confedit_shapes[] = { "mcpServers", "servers" };
#define CONFEDIT_NSHAPES	2

/* What a server may keep secret: its environment and its headers. */
static const char *const confedit_secret_maps[] = { "env", "headers" };
#define CONFEDIT_NSECRET_MAPS	2

/*
 * The text as a configuration: its top-level object, or NULL with
 * *cause.  An empty text (no file yet) is an empty object.
 */
static cJSON *
confedit_parse(const char *text, size_t len, char **cause)
{
	const cJSON	*v;
	cJSON		*root;
	size_t		 i;

	*cause = NULL;
	if (len == 0 || strspn(text, " \t\r\n") >= len)
		return (cJSON_CreateObject());
	if ((root = jsonc_parse(text, len, cause)) == NULL)
		return (NULL);
	if (!cJSON_IsObject(root)) {
		xasprintf(cause, "the top level is not an object");
		cJSON_Delete(root);
		return (NULL);
	}
	for (i = 0; i <= CONFEDIT_NSHAPES; i++) {
		v = cJSON_GetObjectItemCaseSensitive(root,
		    i < CONFEDIT_NSHAPES ? confedit_shapes[i] : "groups");
		if (v != NULL && !cJSON_IsObject(v)) {
			xasprintf(cause, "\"%s\" is not an object",
			    i < CONFEDIT_NSHAPES ? confedit_shapes[i] :
			    "groups");
			cJSON_Delete(root);
			return (NULL);
		}
	}
	return (root);
}

/* The shape ("mcpServers", "servers") holding server name, or NULL. */
static const char *
confedit_shape_of(const cJSON *root, const char *name)
{
	size_t	 i;

	for (i = 0; i < CONFEDIT_NSHAPES; i++) {
		if (cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(root, confedit_shapes[i]),
		    name) != NULL)
			return (confedit_shapes[i]);
	}
	return (NULL);
}

static int
confedit_is_group(const cJSON *root, const char *name)
{
	return (cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(root, "groups"), name) != NULL);
}

int
confedit_add(const char *text, size_t len, const char *name, cJSON *server,
    char **out, size_t *outlen, char **cause)
{
	cJSON	*root;
	int	 rc = -1;

	*out = NULL;
	if ((root = confedit_parse(text, len, cause)) == NULL)
		return (-1);
	if (confedit_shape_of(root, name) != NULL)
		xasprintf(cause, "there is a server named %s already", name);
	else if (confedit_is_group(root, name))
		xasprintf(cause, "%s is the name of a group (servers and "
		    "groups share one namespace)", name);
	else if (strcmp(name, CONFEDIT_GROUP_ALL) == 0)
		xasprintf(cause, "%s is the name of the built-in group of "
		    "every server", name);
	else
		rc = appconf_add_servers(text, len, &name, &server, 1, out,
		    outlen, cause);
	cJSON_Delete(root);
	return (rc);
}

/* The groups whose "servers" list name, quoted: malloc'd, or NULL. */
static char *
confedit_listed_by(const cJSON *root, const char *name)
{
	struct sbuf	 b = { NULL, 0, 0 };
	const cJSON	*group, *member;

	cJSON_ArrayForEach(group, cJSON_GetObjectItemCaseSensitive(root,
	    "groups")) {
		cJSON_ArrayForEach(member,
		    cJSON_GetObjectItemCaseSensitive(group, "servers")) {
			if (!cJSON_IsString(member) ||
			    strcmp(member->valuestring, name) != 0)
				continue;
			sbuf_printf(&b, "%s%s", b.len > 0 ? ", " : "",
			    group->string);
			break;
		}
	}
	return (b.p);
}

/* Where the line holding offset i starts. */
static size_t
confedit_line_start(const char *s, size_t i)
{
	while (i > 0 && s[i - 1] != '\n')
		i--;
	return (i);
}

/* Only blanks between the start of its line and offset i? */
static int
confedit_starts_line(const char *s, size_t i)
{
	size_t	 at;

	for (at = confedit_line_start(s, i); at < i; at++) {
		if (s[at] != ' ' && s[at] != '\t')
			return (0);
	}
	return (1);
}

static size_t
confedit_skip_space(const char *s, size_t i, size_t len)
{
	while (i < len && strchr(" \t\r\n", s[i]) != NULL)
		i++;
	return (i);
}

/*
 * The bytes to cut so that the object at [os, oe) of clean text loses
 * member m: [cut[0], cut[1]) and [cut[2], cut[3]), in order.
 */
static void
confedit_cut(const char *clean, size_t len, size_t os, size_t oe,
    const struct jsonc_member *m, size_t cut[4])
{
	size_t	 comma, after, nl;

	cut[0] = cut[1] = os;
	if (m->prev_end == SIZE_MAX && m->next_key == SIZE_MAX) {
		/* The only member: "{}" is left. */
		cut[2] = os + 1;
		cut[3] = oe - 1;
	} else if (m->next_key != SIZE_MAX) {
		/* Its key to the next one's, or its lines to the next's. */
		comma = confedit_skip_space(clean, m->span.end, len);
		after = comma + 1;
		while (after < len && strchr(" \t\r", clean[after]) != NULL)
			after++;
		if (after < len && clean[after] == '\n' &&
		    confedit_starts_line(clean, m->span.key_start)) {
			cut[2] = confedit_line_start(clean, m->span.key_start);
			cut[3] = after + 1;
		} else {
			cut[2] = m->span.key_start;
			cut[3] = m->next_key;
		}
	} else {
		/* The last: the comma before it, and its lines. */
		comma = confedit_skip_space(clean, m->prev_end, len);
		if (confedit_starts_line(clean, m->span.key_start)) {
			nl = confedit_line_start(clean, m->span.key_start) - 1;
			if (nl > comma + 1 && clean[nl - 1] == '\r')
				nl--;
			cut[0] = comma;
			cut[1] = comma + 1;
			cut[2] = nl;
		} else
			cut[2] = comma;
		cut[3] = m->span.end;
	}
}

int
confedit_remove(const char *text, size_t len, const char *name, char **out,
    size_t *outlen, char **cause)
{
	struct sbuf		 b = { NULL, 0, 0 };
	struct jsonc_span	 object;
	struct jsonc_member	 m;
	const char		*shape, *clean_path[1];
	char			*clean = NULL, *groups;
	size_t			 cut[4];
	cJSON			*root;
	int			 rc = -1;

	*out = NULL;
	if ((root = confedit_parse(text, len, cause)) == NULL)
		return (-1);
	if ((shape = confedit_shape_of(root, name)) == NULL) {
		if (confedit_is_group(root, name))
			xasprintf(cause, "%s is a group, not a server", name);
		else
			xasprintf(cause, "there is no server named %s", name);
		goto out;
	}
	if ((groups = confedit_listed_by(root, name)) != NULL) {
		xasprintf(cause, "%s is a member of %s %s: take it out of "
		    "%s first", name, strchr(groups, ',') != NULL ?
		    "the groups" : "the group", groups, strchr(groups, ',') !=
		    NULL ? "them" : "it");
		free(groups);
		goto out;
	}
	if ((clean = jsonc_clean(text, len, cause)) == NULL)
		goto out;
	clean_path[0] = shape;
	if (!jsonc_find(clean, len, clean_path, 1, &object) ||
	    !jsonc_member(clean, object.start, object.end, name, &m)) {
		xasprintf(cause, "%s.%s: not found in the text", shape, name);
		goto out;
	}
	confedit_cut(clean, len, object.start, object.end, &m, cut);
	sbuf_add(&b, text, cut[0]);
	sbuf_add(&b, text + cut[1], cut[2] - cut[1]);
	sbuf_add(&b, text + cut[3], len - cut[3]);
	*out = b.p;
	*outlen = b.len;
	rc = 0;

out:
	free(clean);
	cJSON_Delete(root);
	return (rc);
}

/* Made of references alone, so nothing secret shows? */
static int
confedit_shows_nothing(const char *s)
{
	struct confvar_piece	 p;

	while (confvar_next(&s, &p)) {
		switch (p.kind) {
		case CONFVAR_TEXT:
		case CONFVAR_UNTERMINATED:
			return (0);
		case CONFVAR_VARIABLE:
			if (p.has_default && p.text_len > 0)
				return (0);
			break;
		case CONFVAR_CREDENTIAL:
			break;
		}
	}
	return (1);
}

static int
confedit_span_cmp(const void *a, const void *b)
{
	const struct jsonc_span	*sa = a, *sb = b;

	if (sa->start != sb->start)
		return (sa->start < sb->start ? -1 : 1);
	return (0);
}

/* The spans of the strings to mask, appended to *v. */
static void
confedit_secrets(const cJSON *root, const char *clean, size_t len,
    struct jsonc_span **v, size_t *n)
{
	const cJSON	*server, *map, *item;
	const char	*path[4];
	size_t		 i, j;

	for (i = 0; i < CONFEDIT_NSHAPES; i++) {
		path[0] = confedit_shapes[i];
		cJSON_ArrayForEach(server,
		    cJSON_GetObjectItemCaseSensitive(root, path[0])) {
			path[1] = server->string;
			for (j = 0; j < CONFEDIT_NSECRET_MAPS; j++) {
				path[2] = confedit_secret_maps[j];
				map = cJSON_GetObjectItemCaseSensitive(server,
				    path[2]);
				if (!cJSON_IsObject(map))
					continue;
				cJSON_ArrayForEach(item, map) {
					if (!cJSON_IsString(item) ||
					    confedit_shows_nothing(
					    item->valuestring))
						continue;
					path[3] = item->string;
					*v = xreallocarray(*v, *n + 1,
					    sizeof **v);
					if (jsonc_find(clean, len, path, 4,
					    &(*v)[*n]) && clean[(*v)[*n].start]
					    == '"')
						(*n)++;
				}
			}
		}
	}
}

char *
confedit_mask(const char *text, size_t len, size_t *outlen)
{
	struct sbuf		 b = { NULL, 0, 0 };
	struct jsonc_span	*spans = NULL;
	char			*clean = NULL, *cause = NULL;
	size_t			 i, n = 0, at = 0;
	cJSON			*root;

	sbuf_add(&b, "", 0);
	if ((root = confedit_parse(text, len, &cause)) != NULL &&
	    (clean = jsonc_clean(text, len, &cause)) != NULL)
		confedit_secrets(root, clean, len, &spans, &n);
	if (n > 0)
		qsort(spans, n, sizeof *spans, confedit_span_cmp);
	for (i = 0; i < n; i++) {
		if (spans[i].start < at)
			continue;	/* a repeated key: the same string */
		sbuf_add(&b, text + at, spans[i].start - at);
		sbuf_adds(&b, "\"" ESC_REDACTED "\"");
		at = spans[i].end;
	}
	sbuf_add(&b, text + at, len - at);
	*outlen = b.len;
	free(spans);
	free(clean);
	free(cause);
	cJSON_Delete(root);
	return (b.p);
}
