/*
 * shadow.c -- one member's descriptions naming another member's tools
 * (shadow.h; pure).
 *
 * A profile keeps, per kind, each entry's name and its text (the strings
 * read for names, joined by newlines), and the sorted names of both kinds
 * so that "a name the member itself has" is a binary search.  The search
 * is memmem per spelling and entry; its cost is known before it starts
 * (the bytes of text times the spellings), and refused past the bound.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gname.h"
#include "sbuf.h"
#include "shadow.h"
#include "util.h"
#include "xmalloc.h"

struct shadow_entry {
	char		*name;
	char		*text;
	size_t		 len;
};

struct shadow_set {
	struct shadow_entry *v;
	size_t		 n;
	size_t		 bytes;
	int		 over;		/* text left out: past the bound */
};

struct shadow_member {
	struct shadow_set k[SHADOW_KINDS];
	char		**names;	/* both kinds', sorted */
	size_t		 nnames;
};

/* A character of a name (MCP's), and of a word ('.' and '-' may end one). */
static int
shadow_name_char(unsigned char c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-');
}

static int
shadow_word_char(unsigned char c)
{
	return (shadow_name_char(c) && c != '.' && c != '-');
}

int
shadow_names(const char *text, size_t len, const char *word)
{
	const char	*p = text, *end = text + len, *q, *r;
	size_t		 wlen = strlen(word);

	if (wlen == 0)
		return (0);
	while (p < end && (q = memmem(p, (size_t)(end - p), word, wlen)) !=
	    NULL) {
		p = q + 1;
		if (q > text && shadow_name_char((unsigned char)q[-1]))
			continue;
		r = q + wlen;
		if (r == end || !shadow_name_char((unsigned char)*r))
			return (1);
		if (shadow_word_char((unsigned char)*r))
			continue;
		/* '.' or '-': the end of a sentence, not of a longer name. */
		if (r + 1 == end || !shadow_word_char((unsigned char)r[1]))
			return (1);
	}
	return (0);
}

static void
shadow_set_clear(struct shadow_set *s)
{
	size_t	 i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].text);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
	s->bytes = 0;
	s->over = 0;
}

struct shadow_member *
shadow_member_new(void)
{
	return (xcalloc(1, sizeof (struct shadow_member)));
}

void
shadow_member_free(struct shadow_member *m)
{
	size_t	 k;

	if (m == NULL)
		return;
	for (k = 0; k < SHADOW_KINDS; k++)
		shadow_set_clear(&m->k[k]);
	free(m->names);
	free(m);
}

static void
shadow_text_add(struct sbuf *sb, const cJSON *s)
{
	if (!cJSON_IsString(s) || s->valuestring[0] == '\0')
		return;
	sbuf_add(sb, s->valuestring, strlen(s->valuestring));
	sbuf_add(sb, "\n", 1);
}

/* Every "description" and "title" string at any depth of v. */
static void
shadow_text_walk(struct sbuf *sb, const cJSON *v)
{
	const cJSON	*c;

	for (c = v != NULL ? v->child : NULL; c != NULL; c = c->next) {
		if (c->string != NULL && (strcmp(c->string, "description") ==
		    0 || strcmp(c->string, "title") == 0) && cJSON_IsString(c))
			shadow_text_add(sb, c);
		else if (cJSON_IsObject(c) || cJSON_IsArray(c))
			shadow_text_walk(sb, c);
	}
}

static char *
shadow_text(const cJSON *e, size_t *len)
{
	static const char *const deep[] = {
		"inputSchema", "outputSchema", "annotations", "arguments"
	};
	struct sbuf	 sb;
	size_t		 i;

	sbuf_init(&sb, 64);
	shadow_text_add(&sb, cJSON_GetObjectItemCaseSensitive(e,
	    "description"));
	shadow_text_add(&sb, cJSON_GetObjectItemCaseSensitive(e, "title"));
	for (i = 0; i < nitems(deep); i++)
		shadow_text_walk(&sb, cJSON_GetObjectItemCaseSensitive(e,
		    deep[i]));
	*len = sb.len;
	return (sb.p);
}

static int
shadow_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static void
shadow_member_index(struct shadow_member *m)
{
	size_t	 k, i;

	free(m->names);
	m->names = xreallocarray(NULL, m->k[SHADOW_TOOL].n +
	    m->k[SHADOW_PROMPT].n + 1, sizeof *m->names);
	m->nnames = 0;
	for (k = 0; k < SHADOW_KINDS; k++)
		for (i = 0; i < m->k[k].n; i++)
			m->names[m->nnames++] = m->k[k].v[i].name;
	qsort(m->names, m->nnames, sizeof *m->names, shadow_cmp);
}

static int
shadow_member_has(const struct shadow_member *m, const char *name)
{
	return (m->nnames > 0 && bsearch(&name, m->names, m->nnames,
	    sizeof *m->names, shadow_cmp) != NULL);
}

void
shadow_member_set(struct shadow_member *m, enum shadow_kind k,
    const cJSON *entries)
{
	struct shadow_set	*s = &m->k[k];
	const cJSON		*e, *name;
	size_t			 n = 0;

	shadow_set_clear(s);
	if (!cJSON_IsArray(entries))
		entries = NULL;
	else
		n = (size_t)cJSON_GetArraySize(entries);
	s->v = xcalloc(n + 1, sizeof *s->v);
	cJSON_ArrayForEach(e, entries) {
		name = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (!cJSON_IsString(name))
			continue;
		s->v[s->n].name = xstrdup(name->valuestring);
		s->v[s->n].text = shadow_text(e, &s->v[s->n].len);
		if (s->v[s->n].len > SHADOW_MAX_TEXT_BYTES - s->bytes) {
			s->over = 1;
			free(s->v[s->n].text);
			s->v[s->n].text = xstrdup("");
			s->v[s->n].len = 0;
		}
		s->bytes += s->v[s->n].len;
		s->n++;
	}
	shadow_member_index(m);
}

size_t
shadow_member_count(const struct shadow_member *m, enum shadow_kind k)
{
	return (m->k[k].n);
}

int
shadow_member_too_large(const struct shadow_member *m)
{
	return (m->k[SHADOW_TOOL].over || m->k[SHADOW_PROMPT].over ||
	    m->k[SHADOW_TOOL].bytes + m->k[SHADOW_PROMPT].bytes >
	    SHADOW_MAX_TEXT_BYTES);
}

/* The spellings of other's tool name looked for in member's texts. */
static size_t
shadow_spellings(const struct shadow_member *member, const char *other_name,
    const char *sep, const char *name, struct gname_spellings *sp,
    const char **v)
{
	size_t	 i, n = 0;

	gname_spellings(sp, other_name, sep, name);
	for (i = 0; i < sp->n; i++) {
		if (strcmp(sp->v[i], name) == 0 &&
		    (strlen(name) < SHADOW_MIN_NAME ||
		    shadow_member_has(member, name)))
			continue;
		v[n++] = sp->v[i];
	}
	return (n);
}

static void
shadow_hit_add(struct shadow_result *out, enum shadow_kind k,
    const char *name, const char *named, const char *spelling)
{
	struct shadow_hit	*h;

	if (out->n == SHADOW_MAX_HITS) {
		out->more = 1;
		return;
	}
	out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
	h = &out->v[out->n++];
	h->kind = k;
	h->name = xstrdup(name);
	h->named = xstrdup(named);
	h->spelling = xstrdup(spelling);
}

/* One named tool looked for in every entry of member. */
static void
shadow_find_one(const struct shadow_member *member, const char *named,
    const char **v, size_t nv, struct shadow_result *out)
{
	const struct shadow_entry *e;
	size_t		 k, i, j;

	for (k = 0; k < SHADOW_KINDS; k++) {
		for (i = 0; i < member->k[k].n; i++) {
			e = &member->k[k].v[i];
			for (j = 0; j < nv; j++) {
				if (shadow_names(e->text, e->len, v[j])) {
					shadow_hit_add(out, k, e->name, named,
					    v[j]);
					break;
				}
			}
		}
	}
}

int
shadow_find(const struct shadow_member *member,
    const struct shadow_member *other, const char *other_name,
    const char *sep, size_t max_work, struct shadow_result *out)
{
	const struct shadow_set	*tools = &other->k[SHADOW_TOOL];
	struct gname_spellings	 sp;
	const char		*v[GNAME_SPELLINGS];
	size_t			 i, nv, spellings = 0, bytes;

	memset(out, 0, sizeof *out);
	bytes = member->k[SHADOW_TOOL].bytes + member->k[SHADOW_PROMPT].bytes;
	for (i = 0; i < tools->n; i++) {
		nv = shadow_spellings(member, other_name, sep,
		    tools->v[i].name, &sp, v);
		gname_spellings_free(&sp);
		spellings += nv;
	}
	out->work = bytes * spellings;
	if (shadow_member_too_large(member) || (spellings != 0 &&
	    out->work / spellings != bytes) || out->work > SHADOW_MAX_WORK ||
	    out->work > max_work) {
		out->too_large = 1;
		return (-1);
	}
	for (i = 0; i < tools->n; i++) {
		nv = shadow_spellings(member, other_name, sep,
		    tools->v[i].name, &sp, v);
		shadow_find_one(member, tools->v[i].name, v, nv, out);
		gname_spellings_free(&sp);
	}
	return (0);
}

void
shadow_result_free(struct shadow_result *r)
{
	size_t	 i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].named);
		free(r->v[i].spelling);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}
