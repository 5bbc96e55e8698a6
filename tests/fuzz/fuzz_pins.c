/*
 * fuzz_pins.c -- canonical JSON (src/jcs.c), pins (src/pins.c) and
 * shadowing (src/shadow.c) on whatever a server could list and whatever a
 * pins file could hold.
 *
 * The input is read as JSON (a server's list, or anything) and, whole,
 * as the text of a pins file; its first bytes as a word and the rest as
 * a description.
 *
 * Invariants:
 * - jcs_text of a value either fails with a cause or gives a text that
 *   cJSON reads back to a value with the same canonical text (it is a
 *   fixed point), and whose pretty form reads back to it too;
 * - a list compared with empty pins is all NEW (each entry one verdict,
 *   in order), and once seeded every entry that could be pinned and whose
 *   name is in it once is SAME; nothing is GONE;
 * - the pins' file reads back, and its text again is the same;
 * - pins_load of any text returns 0 with pins or -1 with a cause; pins it
 *   reads dump to a text it reads again;
 * - a list compared with itself for shadowing names only by the group's
 *   spellings (every bare name is the member's own), at most
 *   SHADOW_MAX_HITS hits, each of a listed tool; -1 only when too large;
 * - shadow_names agrees with a plain reading of every position.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "hmap.h"
#include "jcs.h"
#include "pins.h"
#include "shadow.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "pins";

#define FUZZ_PINS_MAX_BYTES	(1 << 20)

static void
fuzz_pins_canon(const cJSON *v)
{
	const char	*cause = NULL;
	char		*text, *again, *pretty;
	cJSON		*back;

	if ((text = jcs_text(v, FUZZ_PINS_MAX_BYTES, 0, NULL, &cause)) ==
	    NULL) {
		FUZZ_CHECK(cause != NULL, "jcs_text failed without a cause");
		return;
	}
	back = cJSON_Parse(text);
	FUZZ_CHECK(back != NULL, "canonical text is not JSON: %.200s", text);
	again = jcs_text(back, FUZZ_PINS_MAX_BYTES, 0, NULL, NULL);
	FUZZ_CHECK(again != NULL && strcmp(again, text) == 0,
	    "canonical text is not a fixed point: %.200s", text);
	cJSON_Delete(back);
	free(again);
	pretty = jcs_text(v, FUZZ_PINS_MAX_BYTES * 4, 1, NULL, NULL);
	FUZZ_CHECK(pretty != NULL, "no pretty text");
	back = cJSON_Parse(pretty);
	FUZZ_CHECK(back != NULL, "pretty text is not JSON");
	again = jcs_text(back, FUZZ_PINS_MAX_BYTES, 0, NULL, NULL);
	FUZZ_CHECK(again != NULL && strcmp(again, text) == 0,
	    "pretty text is another value");
	cJSON_Delete(back);
	free(again);
	free(pretty);
	free(text);
}

static size_t
fuzz_pins_times(const struct pins_check *c, const char *name)
{
	size_t	 i, n = 0;

	for (i = 0; i < c->n; i++)
		if (c->v[i].name != NULL && strcmp(c->v[i].name, name) == 0)
			n++;
	return (n);
}

static void
fuzz_pins_list(const cJSON *v)
{
	struct pins		*p = pins_new(), *q;
	struct pins_check	 c;
	char			*text, *again, *cause;
	size_t			 i, n = (size_t)cJSON_GetArraySize(v);

	pins_compare(p, PINS_TOOLS, v, &c);
	FUZZ_CHECK(c.n == (cJSON_IsArray(v) ? n : 0), "%zu verdicts for %zu "
	    "entries", c.n, n);
	for (i = 0; i < c.n; i++)
		FUZZ_CHECK(c.v[i].change == PINS_NEW, "not new without pins");
	pins_seed(p, PINS_TOOLS, &c);
	pins_check_free(&c);
	pins_compare(p, PINS_TOOLS, v, &c);
	for (i = 0; i < c.n; i++) {
		FUZZ_CHECK(c.v[i].change != PINS_GONE, "gone after seeding");
		if (c.v[i].why == NULL && fuzz_pins_times(&c, c.v[i].name) == 1)
			FUZZ_CHECK(c.v[i].change == PINS_SAME, "%s is %s after "
			    "seeding", c.v[i].name,
			    pins_change_name(c.v[i].change));
	}
	pins_check_free(&c);
	text = pins_dump(p, "s", "k");
	FUZZ_CHECK(pins_load(text, strlen(text), &q, &cause) == 0,
	    "own file refused: %s", cause);
	again = pins_dump(q, "s", "k");
	FUZZ_CHECK(strcmp(text, again) == 0, "file read back differs");
	free(again);
	free(text);
	pins_free(q);
	pins_free(p);
}

static void
fuzz_pins_shadow(const cJSON *v)
{
	struct shadow_member	*m = shadow_member_new();
	struct shadow_result	 r;
	size_t			 i;
	int			 rc;

	shadow_member_set(m, SHADOW_TOOL, v);
	shadow_member_set(m, SHADOW_PROMPT, v);
	rc = shadow_find(m, m, "m", "__", SHADOW_MAX_WORK, &r);
	FUZZ_CHECK((rc == -1) == (r.too_large != 0), "-1 and too_large "
	    "disagree");
	FUZZ_CHECK(r.n <= SHADOW_MAX_HITS, "%zu hits", r.n);
	for (i = 0; i < r.n; i++) {
		FUZZ_CHECK(strcmp(r.v[i].spelling, r.v[i].named) != 0,
		    "own name %s found bare", r.v[i].named);
		FUZZ_CHECK(strncmp(r.v[i].spelling, "m__", 3) == 0,
		    "spelling %s is not the group's", r.v[i].spelling);
	}
	shadow_result_free(&r);
	shadow_member_free(m);
}

static int
fuzz_pins_name_char(unsigned char c)
{
	return (c == '_' || c == '.' || c == '-' || (c >= '0' && c <= '9') ||
	    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

static int
fuzz_pins_word_char(unsigned char c)
{
	return (fuzz_pins_name_char(c) && c != '.' && c != '-');
}

/* shadow.h's rule, read at every position. */
static int
fuzz_pins_names(const char *t, size_t len, const char *w)
{
	size_t	 wl = strlen(w), i;

	for (i = 0; wl > 0 && i + wl <= len; i++) {
		if (memcmp(t + i, w, wl) != 0 ||
		    (i > 0 && fuzz_pins_name_char((unsigned char)t[i - 1])))
			continue;
		if (i + wl == len || !fuzz_pins_name_char((unsigned char)
		    t[i + wl]))
			return (1);
		if (!fuzz_pins_word_char((unsigned char)t[i + wl]) &&
		    (i + wl + 1 == len || !fuzz_pins_word_char((unsigned char)
		    t[i + wl + 1])))
			return (1);
	}
	return (0);
}

static void
fuzz_pins_words(const char *data, size_t size)
{
	char	 word[16];
	size_t	 wl;

	if (size < 1)
		return;
	wl = (unsigned char)data[0] % 8;
	if (wl + 1 > size)
		return;
	memcpy(word, data + 1, wl);
	word[wl] = '\0';
	if (strlen(word) != wl)
		return;
	FUZZ_CHECK(shadow_names(data + 1 + wl, size - 1 - wl, word) ==
	    fuzz_pins_names(data + 1 + wl, size - 1 - wl, word),
	    "shadow_names and the plain reading disagree on %s", word);
}

static void
fuzz_pins_file(const char *data, size_t size)
{
	struct pins	*p;
	char		*cause, *text, *again;

	if (pins_load(data, size, &p, &cause) != 0) {
		FUZZ_CHECK(cause != NULL && p == NULL, "refused without cause");
		free(cause);
		return;
	}
	text = pins_dump(p, "s", "k");
	pins_free(p);
	FUZZ_CHECK(pins_load(text, strlen(text), &p, &cause) == 0,
	    "a file read once is refused the second time: %s", cause);
	again = pins_dump(p, "s", "k");
	FUZZ_CHECK(strcmp(text, again) == 0, "file read back differs");
	free(again);
	free(text);
	pins_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON	*v;

	hmap_seed_fix(1);
	if (size > FUZZ_PINS_MAX_BYTES)
		return (0);
	if ((v = cJSON_ParseWithLength((const char *)data, size)) != NULL) {
		fuzz_pins_canon(v);
		fuzz_pins_list(v);
		fuzz_pins_shadow(v);
		cJSON_Delete(v);
	}
	fuzz_pins_words((const char *)data, size);
	fuzz_pins_file((const char *)data, size);
	return (0);
}
