/*
 * pins.c -- approved definitions and fresh lists judged against them
 * (pins.h; pure).
 *
 * Each kind keeps its pinned definitions in an array, in the order they
 * were first pinned (the file's order), and an index by name (hmap).  A
 * definition's text is its canonical JSON; its hash is computed here,
 * never taken from a file without being checked.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hmap.h"
#include "jcs.h"
#include "pins.h"
#include "util.h"
#include "xmalloc.h"

struct pins_def {
	char		*name;
	char		*def;
	char		 hash[JCS_HEX_BYTES];
};

struct pins_set {
	struct pins_def	**v;
	size_t		 n, cap;
	struct hmap	*by_name;
	int		 seeded;
};

struct pins {
	struct pins_set	 k[PINS_KINDS];
	size_t		 bytes;
};

static const char *pins_kind_names[PINS_KINDS] = {
	"tools", "prompts", "templates"
};
static const char *pins_kind_nouns[PINS_KINDS] = {
	"tool", "prompt", "resource template"
};
static const char *pins_kind_members[PINS_KINDS] = {
	"tools", "prompts", "resourceTemplates"
};
static const char *pins_kind_keys[PINS_KINDS] = {
	"name", "name", "uriTemplate"
};

const char *
pins_kind_name(enum pins_kind k)
{
	return (pins_kind_names[k]);
}

const char *
pins_kind_noun(enum pins_kind k)
{
	return (pins_kind_nouns[k]);
}

const char *
pins_kind_member(enum pins_kind k)
{
	return (pins_kind_members[k]);
}

const char *
pins_kind_key(enum pins_kind k)
{
	return (pins_kind_keys[k]);
}

const char *
pins_change_name(enum pins_change c)
{
	switch (c) {
	case PINS_SAME:
		return ("unchanged");
	case PINS_CHANGED:
		return ("changed");
	case PINS_NEW:
		return ("new");
	case PINS_GONE:
		return ("gone");
	}
	return ("unknown");
}

struct pins *
pins_new(void)
{
	struct pins	*p = xcalloc(1, sizeof *p);
	size_t		 k;

	for (k = 0; k < PINS_KINDS; k++)
		p->k[k].by_name = hmap_new(hmap_random_seed());
	return (p);
}

void
pins_free(struct pins *p)
{
	size_t	 k, i;

	if (p == NULL)
		return;
	for (k = 0; k < PINS_KINDS; k++) {
		for (i = 0; i < p->k[k].n; i++) {
			free(p->k[k].v[i]->name);
			free(p->k[k].v[i]->def);
			free(p->k[k].v[i]);
		}
		free(p->k[k].v);
		hmap_free(p->k[k].by_name);
	}
	free(p);
}

int
pins_seeded(const struct pins *p, enum pins_kind k)
{
	return (p->k[k].seeded);
}

size_t
pins_count(const struct pins *p, enum pins_kind k)
{
	return (p->k[k].n);
}

static struct pins_def *
pins_find(const struct pins *p, enum pins_kind k, const char *name)
{
	return (hmap_get(p->k[k].by_name, name, strlen(name)));
}

const char *
pins_def(const struct pins *p, enum pins_kind k, const char *name)
{
	struct pins_def	*d = pins_find(p, k, name);

	return (d != NULL ? d->def : NULL);
}

/* One entry's name and canonical text, or why it has none. */
static const char *
pins_entry(enum pins_kind k, const cJSON *entry, char **name, char **def)
{
	const cJSON	*n;
	const char	*cause = NULL;

	*name = *def = NULL;
	n = cJSON_GetObjectItemCaseSensitive(entry, pins_kind_keys[k]);
	if (!cJSON_IsObject(entry) || !cJSON_IsString(n) ||
	    n->valuestring == NULL)
		return ("it has no string name");
	*name = xstrdup(n->valuestring);
	if (strlen(*name) > PINS_MAX_NAME_BYTES)
		return ("its name is too long to pin");
	if ((*def = jcs_text(entry, PINS_MAX_DEF_BYTES, 0, NULL,
	    &cause)) == NULL)
		return (cause);
	return (NULL);
}

static struct pins_verdict *
pins_verdict_add(struct pins_check *out, size_t *cap)
{
	if (out->n == *cap) {
		*cap = *cap == 0 ? 16 : *cap * 2;
		out->v = xreallocarray(out->v, *cap, sizeof *out->v);
	}
	memset(&out->v[out->n], 0, sizeof out->v[out->n]);
	return (&out->v[out->n++]);
}

void
pins_compare(const struct pins *p, enum pins_kind k, const cJSON *entries,
    struct pins_check *out)
{
	const struct pins_set	*s = &p->k[k];
	struct pins_verdict	*v;
	struct pins_def		*d;
	struct hmap		*seen;
	const cJSON		*e;
	size_t			 cap = 0, i;

	memset(out, 0, sizeof *out);
	seen = hmap_new(hmap_random_seed());
	if (cJSON_IsArray(entries)) {
		cJSON_ArrayForEach(e, entries) {
			v = pins_verdict_add(out, &cap);
			v->why = pins_entry(k, e, &v->name, &v->new_def);
			v->change = PINS_NEW;
			if (v->why == NULL)
				jcs_sha256_hex(v->new_def, strlen(v->new_def),
				    v->hash);
			if (v->name == NULL)
				continue;
			hmap_put(seen, v->name, strlen(v->name), (void *)1);
			if (v->why != NULL ||
			    (d = pins_find(p, k, v->name)) == NULL)
				continue;
			v->old_def = xstrdup(d->def);
			v->change = strcmp(d->hash, v->hash) == 0 ?
			    PINS_SAME : PINS_CHANGED;
		}
	}
	for (i = 0; i < s->n; i++) {
		d = s->v[i];
		if (hmap_get(seen, d->name, strlen(d->name)) != NULL)
			continue;
		v = pins_verdict_add(out, &cap);
		v->change = PINS_GONE;
		v->name = xstrdup(d->name);
		v->old_def = xstrdup(d->def);
	}
	hmap_free(seen);
}

void
pins_check_free(struct pins_check *c)
{
	size_t	 i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].old_def);
		free(c->v[i].new_def);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

int
pins_approve(struct pins *p, enum pins_kind k, const char *name,
    const char *def, const char **cause)
{
	struct pins_set	*s = &p->k[k];
	struct pins_def	*d;
	size_t		 len = strlen(def), nlen = strlen(name);

	if (nlen > PINS_MAX_NAME_BYTES) {
		*cause = "its name is too long to pin";
		return (-1);
	}
	if (len > PINS_MAX_DEF_BYTES) {
		*cause = "its definition is too long to pin";
		return (-1);
	}
	if ((d = pins_find(p, k, name)) != NULL) {
		if (p->bytes - strlen(d->def) + len > PINS_MAX_BYTES) {
			*cause = "the server's pins would pass their bound";
			return (-1);
		}
		p->bytes = p->bytes - strlen(d->def) + len;
		free(d->def);
		d->def = xstrdup(def);
		jcs_sha256_hex(def, len, d->hash);
		return (0);
	}
	if (s->n >= PINS_MAX_ENTRIES) {
		*cause = "the server has as many pinned names as mcpd keeps";
		return (-1);
	}
	if (p->bytes + nlen + len > PINS_MAX_BYTES) {
		*cause = "the server's pins would pass their bound";
		return (-1);
	}
	d = xcalloc(1, sizeof *d);
	d->name = xstrdup(name);
	d->def = xstrdup(def);
	jcs_sha256_hex(def, len, d->hash);
	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 16 : s->cap * 2;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = d;
	hmap_put(s->by_name, d->name, nlen, d);
	p->bytes += nlen + len;
	return (0);
}

void
pins_seed(struct pins *p, enum pins_kind k, const struct pins_check *c)
{
	const char	*cause;
	size_t		 i;

	for (i = 0; i < c->n; i++) {
		if (c->v[i].change == PINS_GONE || c->v[i].why != NULL ||
		    c->v[i].new_def == NULL)
			continue;
		(void)pins_approve(p, k, c->v[i].name, c->v[i].new_def,
		    &cause);
	}
	p->k[k].seeded = 1;
}

char *
pins_dump(const struct pins *p, const char *server, const char *key)
{
	cJSON		*root, *seeded, *set, *one;
	const struct pins_def *d;
	char		*text;
	size_t		 k, i;

	root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "version", PINS_VERSION);
	cJSON_AddStringToObject(root, "server", server);
	cJSON_AddStringToObject(root, "key", key);
	seeded = cJSON_AddArrayToObject(root, "seeded");
	for (k = 0; k < PINS_KINDS; k++) {
		if (p->k[k].seeded)
			cJSON_AddItemToArray(seeded,
			    cJSON_CreateString(pins_kind_names[k]));
		set = cJSON_AddObjectToObject(root, pins_kind_names[k]);
		for (i = 0; i < p->k[k].n; i++) {
			d = p->k[k].v[i];
			one = cJSON_AddObjectToObject(set, d->name);
			cJSON_AddStringToObject(one, "sha256", d->hash);
			cJSON_AddStringToObject(one, "def", d->def);
		}
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (text == NULL)
		abort();
	return (text);
}

/* One kind's object of the file. */
static int
pins_load_kind(struct pins *p, enum pins_kind k, const cJSON *set,
    char **cause)
{
	const cJSON	*one, *hash, *def;
	char		 check[JCS_HEX_BYTES];
	const char	*why;

	if (set == NULL)
		return (0);
	if (!cJSON_IsObject(set)) {
		xasprintf(cause, "\"%s\" is not an object", pins_kind_names[k]);
		return (-1);
	}
	cJSON_ArrayForEach(one, set) {
		hash = cJSON_GetObjectItemCaseSensitive(one, "sha256");
		def = cJSON_GetObjectItemCaseSensitive(one, "def");
		if (one->string == NULL || !cJSON_IsString(hash) ||
		    !cJSON_IsString(def)) {
			xasprintf(cause, "an entry of \"%s\" without a string "
			    "\"sha256\" and \"def\"", pins_kind_names[k]);
			return (-1);
		}
		jcs_sha256_hex(def->valuestring, strlen(def->valuestring),
		    check);
		if (strcmp(check, hash->valuestring) != 0) {
			xasprintf(cause, "the hash of %s \"%.64s\" does not "
			    "match its definition", pins_kind_nouns[k],
			    one->string);
			return (-1);
		}
		if (pins_find(p, k, one->string) != NULL) {
			xasprintf(cause, "%s \"%.64s\" is pinned twice",
			    pins_kind_nouns[k], one->string);
			return (-1);
		}
		if (pins_approve(p, k, one->string, def->valuestring,
		    &why) != 0) {
			xasprintf(cause, "%s \"%.64s\": %s", pins_kind_nouns[k],
			    one->string, why);
			return (-1);
		}
	}
	return (0);
}

int
pins_load(const char *text, size_t len, struct pins **out, char **cause)
{
	cJSON		*root;
	const cJSON	*version, *seeded, *s;
	struct pins	*p;
	size_t		 k;
	int		 found;

	*out = NULL;
	*cause = NULL;
	if (len > PINS_MAX_BYTES * 2 ||
	    (root = cJSON_ParseWithLength(text, len)) == NULL) {
		*cause = xstrdup("it is not JSON");
		return (-1);
	}
	version = cJSON_GetObjectItemCaseSensitive(root, "version");
	seeded = cJSON_GetObjectItemCaseSensitive(root, "seeded");
	if (!cJSON_IsObject(root) || !cJSON_IsNumber(version) ||
	    version->valuedouble != PINS_VERSION || !cJSON_IsArray(seeded)) {
		cJSON_Delete(root);
		*cause = xstrdup("it is not a version 1 pins file");
		return (-1);
	}
	p = pins_new();
	for (k = 0; k < PINS_KINDS; k++) {
		if (pins_load_kind(p, k, cJSON_GetObjectItemCaseSensitive(
		    root, pins_kind_names[k]), cause) != 0)
			goto fail;
	}
	cJSON_ArrayForEach(s, seeded) {
		found = 0;
		for (k = 0; k < PINS_KINDS; k++) {
			if (cJSON_IsString(s) &&
			    strcmp(s->valuestring, pins_kind_names[k]) == 0) {
				p->k[k].seeded = 1;
				found = 1;
			}
		}
		if (!found) {
			*cause = xstrdup("\"seeded\" names an unknown kind");
			goto fail;
		}
	}
	cJSON_Delete(root);
	*out = p;
	return (0);
fail:
	cJSON_Delete(root);
	pins_free(p);
	return (-1);
}
