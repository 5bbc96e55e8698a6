/*
 * fuzz_gmerge.c -- a group's lists merged from its members' pages, and
 * the cursor of cursors (src/gmerge.c), on what members and clients could
 * send.
 *
 * The input: a first byte picks the list (tools, prompts, resources,
 * templates), the separator and how many members the group has; the rest,
 * cut at NULs, is a cursor a client sent, then each member's page in group
 * order (a member without one did not answer).  The keep function stands
 * in for the session: the table of names, and a filter that hides every
 * entry whose own name starts with "deny".
 *
 * Invariants:
 * - a cursor is refused whole (-1, nothing out) or read into one cursor
 *   per member; what was read, written again, reads back the same;
 * - the merged result is one JSON object whose array holds exactly the
 *   entries kept, in the order they were kept (group order), each under
 *   the name the group gave it (a valid name, gname_valid) or its own
 *   URI; the keep function was asked about exactly the entries that are
 *   objects with a string name or uri;
 * - no two entries kept share a name unless they are one member's same
 *   name (no clash gets through), and the table finds each name's member
 *   and own name;
 * - the result's nextCursor reads back into each member's own non-empty
 *   nextCursor, and there is none when no member has more pages.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "gmerge.h"
#include "gname.h"
#include "hmap.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "gmerge";

#define MEMBERS_MAX	6
#define KEPT_MAX	4096

static const char *const members[MEMBERS_MAX] = {
	"a", "a__b", "github", "fs.x", "b",
	"a-member-name-long-enough-that-every-tool-of-it-is-cut-and-hashed",
};
static const char *const seps[] = { "__", "-", ".", "::" };
static const struct {
	const char	*key, *field;
	int		 named;
} lists[] = {
	{ "tools", "name", 1 },
	{ "prompts", "name", 1 },
	{ "resources", "uri", 0 },
	{ "resourceTemplates", "uriTemplate", 0 },
};

struct kept {
	size_t	 member;
	char	*own;
	char	*exposed;	/* NULL: not renamed */
};

struct keeper {
	struct hmap	*names;
	struct kept	 kept[KEPT_MAX];
	size_t		 nkept;
	size_t		 calls;
};

static int
keep(void *arg, size_t member, const char *own, const char *exposed)
{
	struct keeper	*k = arg;
	struct kept	*e;

	k->calls++;
	if (strncmp(own, "deny", 4) == 0 || k->nkept == KEPT_MAX)
		return (0);
	if (exposed != NULL) {
		FUZZ_CHECK(gname_valid(exposed), "%s given out", exposed);
		switch (gmerge_name_claim(k->names, exposed, member, own)) {
		case GMERGE_NAME_CLASH:
			return (0);
		case GMERGE_NAME_FREE:
			gmerge_name_add(k->names, exposed, member, own);
			break;
		case GMERGE_NAME_HELD:
			break;
		}
	}
	e = &k->kept[k->nkept++];
	e->member = member;
	e->own = xstrdup(own);
	e->exposed = exposed != NULL ? xstrdup(exposed) : NULL;
	return (1);
}

/* Decode, check, encode and decode again: the same cursors. */
static void
check_cursor(const char *cursor, size_t n)
{
	char	**out = (char **)1, **again, *text;
	size_t	 i, some = 0;

	if (gmerge_cursor_decode(cursor, n, &out) == -1) {
		FUZZ_CHECK(out == NULL, "a refused cursor gave cursors");
		return;
	}
	FUZZ_CHECK(out != NULL && n > 0, "a cursor read for %zu members", n);
	for (i = 0; i < n; i++)
		some += out[i] != NULL;
	text = gmerge_cursor_encode(out, n);
	FUZZ_CHECK((text != NULL) == (some > 0), "cursor of %zu cursors", some);
	if (text != NULL) {
		FUZZ_CHECK(gmerge_cursor_decode(text, n, &again) == 0,
		    "%s: written, then refused", text);
		for (i = 0; i < n; i++)
			FUZZ_CHECK((out[i] == NULL && again[i] == NULL) ||
			    (out[i] != NULL && again[i] != NULL &&
			    strcmp(out[i], again[i]) == 0),
			    "member %zu's cursor changed", i);
		gmerge_cursors_free(again, n);
		free(text);
	}
	gmerge_cursors_free(out, n);
}

/* The entries gmerge should ask about, and the page's next cursor. */
static size_t
reference(const char *text, size_t len, const char *key, const char *field,
    char **next)
{
	cJSON		*page;
	const cJSON	*items, *e, *f, *c;
	size_t		 n = 0;

	*next = NULL;
	if ((page = cJSON_ParseWithLength(text, len)) == NULL)
		return (0);
	items = cJSON_GetObjectItemCaseSensitive(page, key);
	if (cJSON_IsArray(items)) {
		cJSON_ArrayForEach(e, items) {
			f = cJSON_GetObjectItemCaseSensitive(e, field);
			n += cJSON_IsObject(e) && cJSON_IsString(f);
		}
		c = cJSON_GetObjectItemCaseSensitive(page, "nextCursor");
		if (cJSON_IsString(c) && c->valuestring[0] != '\0')
			*next = xstrdup(c->valuestring);
	}
	cJSON_Delete(page);
	return (n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gmerge	 m;
	struct keeper	*k;
	const char	*p, *end, *nul, *key, *field, *sep;
	char		*text, *nexts[MEMBERS_MAX] = { NULL }, *cursor, **out;
	cJSON		*r;
	const cJSON	*items, *e, *c;
	const struct gmerge_name *gn;
	size_t		 n, i, j, want = 0, member;
	int		 named, list;

	if (size < 1)
		return (0);
	list = data[0] & 3;
	key = lists[list].key;
	field = lists[list].field;
	named = lists[list].named;
	sep = seps[(data[0] >> 2) & 3];
	n = 1 + (size_t)(data[0] >> 4) % MEMBERS_MAX;
	p = (const char *)data + 1;
	end = (const char *)data + size;

	/* The client's cursor. */
	nul = memchr(p, '\0', (size_t)(end - p));
	text = xmalloc((size_t)((nul != NULL ? nul : end) - p) + 1);
	memcpy(text, p, (size_t)((nul != NULL ? nul : end) - p));
	text[(nul != NULL ? nul : end) - p] = '\0';
	check_cursor(text, n);
	free(text);
	p = nul != NULL ? nul + 1 : end;

	k = xcalloc(1, sizeof *k);
	k->names = hmap_new(7);
	gmerge_init(&m, key, field, named, sep, n);
	for (i = 0; i < n && p < end; i++) {
		nul = memchr(p, '\0', (size_t)(end - p));
		if (nul == NULL)
			nul = end;
		want += reference(p, (size_t)(nul - p), key, field, &nexts[i]);
		(void)gmerge_page(&m, i, members[i], p, (size_t)(nul - p),
		    keep, k);
		p = nul + 1;
	}
	FUZZ_CHECK(k->calls == want, "asked about %zu entries of %zu",
	    k->calls, want);
	text = gmerge_finish(&m);
	r = cJSON_Parse(text);
	FUZZ_CHECK(cJSON_IsObject(r), "result %s", text);
	items = cJSON_GetObjectItemCaseSensitive(r, key);
	FUZZ_CHECK(cJSON_IsArray(items), "no %s in %s", key, text);
	FUZZ_CHECK((size_t)cJSON_GetArraySize(items) == k->nkept,
	    "%d entries, %zu kept", cJSON_GetArraySize(items), k->nkept);
	i = 0;
	cJSON_ArrayForEach(e, items) {
		c = cJSON_GetObjectItemCaseSensitive(e, field);
		FUZZ_CHECK(cJSON_IsString(c), "entry %zu has no %s", i, field);
		FUZZ_CHECK(strcmp(c->valuestring, named ? k->kept[i].exposed :
		    k->kept[i].own) == 0, "entry %zu is %s", i,
		    c->valuestring);
		FUZZ_CHECK(i == 0 || k->kept[i - 1].member <= k->kept[i].member,
		    "entry %zu out of group order", i);
		i++;
	}
	for (i = 0; named && i < k->nkept; i++) {
		gn = hmap_get(k->names, k->kept[i].exposed,
		    strlen(k->kept[i].exposed));
		FUZZ_CHECK(gn != NULL && gn->member == k->kept[i].member &&
		    strcmp(gn->name, k->kept[i].own) == 0,
		    "%s given to two names", k->kept[i].exposed);
		FUZZ_CHECK(gmerge_name_find(k->names, k->kept[i].exposed,
		    &member) == gn->name && member == gn->member,
		    "%s not found", k->kept[i].exposed);
	}
	c = cJSON_GetObjectItemCaseSensitive(r, "nextCursor");
	for (i = j = 0; i < n; i++)
		j += nexts[i] != NULL;
	FUZZ_CHECK((c != NULL) == (j > 0), "nextCursor with %zu members' "
	    "more pages", j);
	if (c != NULL) {
		FUZZ_CHECK(cJSON_IsString(c), "nextCursor not a string");
		cursor = c->valuestring;
		FUZZ_CHECK(gmerge_cursor_decode(cursor, n, &out) == 0,
		    "own cursor %s refused", cursor);
		for (i = 0; i < n; i++)
			FUZZ_CHECK((out[i] == NULL && nexts[i] == NULL) ||
			    (out[i] != NULL && nexts[i] != NULL &&
			    strcmp(out[i], nexts[i]) == 0),
			    "member %zu's next cursor lost", i);
		gmerge_cursors_free(out, n);
	}
	cJSON_Delete(r);
	free(text);
	for (i = 0; i < n; i++)
		free(nexts[i]);
	for (i = 0; i < k->nkept; i++) {
		free(k->kept[i].own);
		free(k->kept[i].exposed);
	}
	gmerge_names_free(k->names, NULL, NULL);
	free(k);
	return (0);
}
