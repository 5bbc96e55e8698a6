/*
 * gmerge.c -- a group's lists, merged from its members' pages; the names
 * it gave out; its cursor of cursors (see gmerge.h).
 *
 * A member's page is parsed only here, once every member's has come: the
 * caller keeps the pages as text until then (they are counted in its
 * holdings), and a tree is built only to merge.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "gmerge.h"
#include "gname.h"
#include "hmap.h"
#include "rpc.h"
#include "xmalloc.h"

/* A member index as a key of the cursor object: decimal. */
#define GMERGE_KEY_MAX		24

enum gmerge_claim
gmerge_name_claim(const struct hmap *names, const char *exposed,
    size_t member, const char *own)
{
	const struct gmerge_name	*gn;

	gn = hmap_get(names, exposed, strlen(exposed));
	if (gn == NULL)
		return (GMERGE_NAME_FREE);
	if (gn->member != member || strcmp(gn->name, own) != 0)
		return (GMERGE_NAME_CLASH);
	return (GMERGE_NAME_HELD);
}

void
gmerge_name_add(struct hmap *names, const char *exposed, size_t member,
    const char *own)
{
	struct gmerge_name	*gn;

	gn = xcalloc(1, sizeof *gn);
	gn->member = member;
	gn->name = xstrdup(own);
	hmap_put(names, exposed, strlen(exposed), gn);
}

const char *
gmerge_name_find(const struct hmap *names, const char *exposed,
    size_t *member)
{
	const struct gmerge_name	*gn;

	if ((gn = hmap_get(names, exposed, strlen(exposed))) == NULL)
		return (NULL);
	*member = gn->member;
	return (gn->name);
}

void
gmerge_names_free(struct hmap *names,
    void (*let_go)(void *arg, size_t keylen, const char *own), void *arg)
{
	struct hmap_iter	 it;
	struct gmerge_name	*gn;
	size_t			 keylen;
	void			*value;

	if (names == NULL)
		return;
	hmap_iter_init(names, &it);
	while (hmap_iter_next(&it, NULL, &keylen, &value)) {
		gn = value;
		if (let_go != NULL)
			let_go(arg, keylen, gn->name);
		free(gn->name);
		free(gn);
	}
	hmap_free(names);
}

void
gmerge_init(struct gmerge *m, const char *key, const char *field, int named,
    const char *sep, size_t nmembers)
{
	memset(m, 0, sizeof *m);
	m->key = key;
	m->field = field;
	m->named = named;
	m->sep = sep;
	m->nmembers = nmembers;
	m->result = cJSON_CreateObject();
	m->items = cJSON_AddArrayToObject(m->result, key);
	m->cursors = xcalloc(nmembers + 1, sizeof *m->cursors);
}

enum gmerge_page
gmerge_page(struct gmerge *m, size_t member, const char *member_name,
    const char *text, size_t len, gmerge_keep_fn keep, void *arg)
{
	cJSON		*page, *copy;
	const cJSON	*items, *e, *field, *next;
	char		 exposed[GNAME_MAX + 1];
	const char	*own;

	if ((page = cJSON_ParseWithLength(text, len)) == NULL)
		return (GMERGE_PAGE_NOT_JSON);
	items = cJSON_GetObjectItemCaseSensitive(page, m->key);
	if (!cJSON_IsArray(items)) {
		cJSON_Delete(page);
		return (GMERGE_PAGE_NO_ARRAY);
	}
	cJSON_ArrayForEach(e, items) {
		field = cJSON_GetObjectItemCaseSensitive(e, m->field);
		if (!cJSON_IsObject(e) || !cJSON_IsString(field))
			continue;
		own = field->valuestring;
		if (m->named)
			gname_make(member_name, m->sep, own, exposed);
		if (!keep(arg, member, own, m->named ? exposed : NULL))
			continue;
		copy = cJSON_Duplicate(e, 1);
		if (m->named)
			cJSON_ReplaceItemInObjectCaseSensitive(copy, m->field,
			    cJSON_CreateString(exposed));
		cJSON_AddItemToArray(m->items, copy);
	}
	next = cJSON_GetObjectItemCaseSensitive(page, "nextCursor");
	if (member < m->nmembers && cJSON_IsString(next) &&
	    next->valuestring[0] != '\0') {
		free(m->cursors[member]);
		m->cursors[member] = xstrdup(next->valuestring);
	}
	cJSON_Delete(page);
	return (GMERGE_PAGE_OK);
}

char *
gmerge_finish(struct gmerge *m)
{
	char	*cursor, *text;

	if ((cursor = gmerge_cursor_encode(m->cursors, m->nmembers)) != NULL) {
		cJSON_AddStringToObject(m->result, "nextCursor", cursor);
		free(cursor);
	}
	text = rpc_print(m->result);
	gmerge_free(m);
	return (text);
}

void
gmerge_free(struct gmerge *m)
{
	gmerge_cursors_free(m->cursors, m->nmembers);
	m->cursors = NULL;
	cJSON_Delete(m->result);
	m->result = m->items = NULL;
}

char *
gmerge_cursor_encode(char *const *cursors, size_t n)
{
	cJSON	*o;
	char	*json, *cursor = NULL, key[GMERGE_KEY_MAX];
	size_t	 i;

	o = cJSON_CreateObject();
	for (i = 0; i < n; i++) {
		if (cursors[i] == NULL)
			continue;
		snprintf(key, sizeof key, "%zu", i);
		cJSON_AddStringToObject(o, key, cursors[i]);
	}
	if (o->child != NULL && (json = cJSON_PrintUnformatted(o)) != NULL) {
		cursor = b64url_encode(json, strlen(json));
		free(json);
	}
	cJSON_Delete(o);
	return (cursor);
}

/*
 * A cursor a group of n gives out: members' indexes (in decimal) to their
 * own cursors, at least one.
 */
static int
gmerge_cursor_valid(const cJSON *cursors, size_t n)
{
	const cJSON	*c;
	char		*end;
	unsigned long	 i;

	if (!cJSON_IsObject(cursors) || cursors->child == NULL)
		return (0);
	cJSON_ArrayForEach(c, cursors) {
		i = strtoul(c->string, &end, 10);
		if (!cJSON_IsString(c) || c->string[0] < '0' ||
		    c->string[0] > '9' || *end != '\0' || i >= n)
			return (0);
	}
	return (1);
}

int
gmerge_cursor_decode(const char *cursor, size_t n, char ***out)
{
	cJSON		*cursors = NULL;
	const cJSON	*c;
	unsigned char	*json;
	char		 key[GMERGE_KEY_MAX];
	size_t		 len = strlen(cursor), i;

	*out = NULL;
	json = len <= RPC_PARSE_MAX_BYTES ?
	    b64url_decode(cursor, len, &len) : NULL;
	if (json != NULL)
		cursors = cJSON_ParseWithLength((char *)json, len);
	free(json);
	if (!gmerge_cursor_valid(cursors, n)) {
		cJSON_Delete(cursors);
		return (-1);
	}
	/*
	 * A member is asked under its index as the group writes it: the
	 * first such key, whatever else the object holds.
	 */
	*out = xcalloc(n + 1, sizeof **out);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof key, "%zu", i);
		c = cJSON_GetObjectItemCaseSensitive(cursors, key);
		if (cJSON_IsString(c))
			(*out)[i] = xstrdup(c->valuestring);
	}
	cJSON_Delete(cursors);
	return (0);
}

void
gmerge_cursors_free(char **cursors, size_t n)
{
	size_t	 i;

	if (cursors == NULL)
		return;
	for (i = 0; i < n; i++)
		free(cursors[i]);
	free(cursors);
}
