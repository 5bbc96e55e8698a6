/*
 * fuzz_filter.c -- the list filter (src/filter.c) on whatever a server
 * could answer a tools/list, prompts/list, resources/list or
 * resources/templates/list with, under filters the input also chooses.
 *
 * Input: byte 0 picks the list (bits 0-1), whether the patterns are the
 * allow list (bit 2; else the deny list) and whether "x*" is denied too
 * (bit 3).  Then the patterns, separated by '|', up to the first '\n'
 * (those filter_pattern_error refuses are left out, and for resources
 * those urinorm_pattern_error refuses); the rest is the result text, and
 * the params of a completion/complete request too.
 *
 * Invariants:
 * - filter_list_text answers KEPT, CHANGED or BAD, and sets *out only for
 *   CHANGED: NUL-terminated, *outlen bytes, shorter than the input;
 * - what it gives is one JSON object envelope_scan accepts, every entry
 *   of its list is an object with a name the filter lets pass, and
 *   filtering it again keeps it as it is;
 * - KEPT means every entry of the list passes;
 * - a result envelope_scan accepts with exactly one member of the list's
 *   name, an array, is never BAD;
 * - filter_glob agrees with glibc's fnmatch(3) for every pattern taken,
 *   against the start of the result text as a name;
 * - filter_complete_ref, on a text envelope_scan accepts, names a prompt
 *   or resource only where cJSON reads the same ref type and name, and
 *   sets a name exactly then.
 */
#include "config.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "filter.h"
#include "fuzz.h"
#include "urinorm.h"
#include "util.h"

const char	*fuzz_target_name = "filter";

#define FUZZ_FILTER_PATTERNS	16

static void
fuzz_filter_error(void *arg, const char *path, const char *message)
{
	fuzz_fail("a pattern filter_pattern_error accepted was refused: "
	    "%s: %s", path, message);
}

/* Every entry of the list in text passes f (text is valid JSON). */
static void
check_entries(const struct filter *f, enum filter_list list,
    const char *text, size_t len, const char *what)
{
	cJSON		*root, *array, *e, *name;

	root = fuzz_json_parse(text, len);
	if (root == NULL)
		return;		/* what cJSON cannot read, say */
	array = fuzz_json_member(root, filter_list_member(list));
	FUZZ_CHECK(cJSON_IsArray(array), "%s: no list", what);
	cJSON_ArrayForEach(e, array) {
		name = fuzz_json_member(e, filter_list_key(list));
		FUZZ_CHECK(cJSON_IsObject(e) && cJSON_IsString(name),
		    "%s: an entry without a string %s", what,
		    filter_list_key(list));
		FUZZ_CHECK(filter_allows_entry(f, list, name->valuestring),
		    "%s: \"%s\" does not pass", what, name->valuestring);
	}
	cJSON_Delete(root);
}

/* How many top-level members of text (one JSON object) are named key. */
static int
count_members(const char *text, size_t len, const char *key)
{
	cJSON		*root, *m;
	int		 n = 0, array = 0;

	if ((root = fuzz_json_parse(text, len)) == NULL ||
	    !cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return (-1);
	}
	cJSON_ArrayForEach(m, root) {
		if (strcmp(m->string, key) == 0) {
			n++;
			array = cJSON_IsArray(m);
		}
	}
	cJSON_Delete(root);
	return (n == 1 && !array ? -1 : n);
}

/* The text, when it is one JSON object, as a completion's params. */
static void
check_complete_ref(const char *text, size_t len)
{
	struct envelope	 env;
	enum filter_ref	 ref;
	cJSON		*root, *r, *type, *name;
	char		*got;
	size_t		 erroff;

	if (envelope_scan(text, len, &env, &erroff) != 0)
		return;
	while (len > 0 && strchr(" \t\r\n", text[len - 1]) != NULL)
		len--;
	while (len > 0 && strchr(" \t\r\n", text[0]) != NULL) {
		text++;
		len--;
	}
	ref = filter_complete_ref(text, len, &got);
	FUZZ_CHECK((got != NULL) == (ref == FILTER_REF_PROMPT ||
	    ref == FILTER_REF_RESOURCE), "filter_complete_ref gave %d, and "
	    "a name %s", (int)ref, got != NULL ? "too" : "not");
	if (got == NULL)
		return;
	/* Each member was there once: cJSON's first is the one. */
	root = fuzz_json_parse(text, len);
	FUZZ_CHECK(root != NULL, "a ref read from what cJSON cannot read");
	r = fuzz_json_member(root, "ref");
	type = fuzz_json_member(r, "type");
	name = fuzz_json_member(r, ref == FILTER_REF_PROMPT ? "name" : "uri");
	FUZZ_CHECK(cJSON_IsString(type) && strcmp(type->valuestring,
	    ref == FILTER_REF_PROMPT ? "ref/prompt" : "ref/resource") == 0,
	    "filter_complete_ref gave %d for another type", (int)ref);
	FUZZ_CHECK(cJSON_IsString(name) && strcmp(name->valuestring,
	    got) == 0, "filter_complete_ref read \"%s\", cJSON another",
	    got);
	cJSON_Delete(root);
	free(got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*text, *nl, *p, *bar;
	char			*pats[FUZZ_FILTER_PATTERNS], *out, *again;
	char			 name[33];
	struct filter		*f;
	struct envelope		 env;
	enum filter_list	 list;
	enum filter_result	 r;
	cJSON			*json, *arr;
	size_t			 npats = 0, len, outlen, againlen, erroff, i;
	int			 use_allow, deny_x;

	if (size < 1)
		return (0);
	list = (enum filter_list)(data[0] & 3);
	use_allow = (data[0] & 4) != 0;
	deny_x = (data[0] & 8) != 0;
	p = (const char *)data + 1;
	nl = memchr(p, '\n', size - 1);
	if (nl == NULL)
		return (0);
	text = nl + 1;
	len = size - (size_t)(text - (const char *)data);

	/* The patterns. */
	while (p < nl && npats < FUZZ_FILTER_PATTERNS) {
		bar = memchr(p, '|', (size_t)(nl - p));
		if (bar == NULL)
			bar = nl;
		if (memchr(p, '\0', (size_t)(bar - p)) == NULL) {
			pats[npats] = strndup(p, (size_t)(bar - p));
			if (filter_pattern_error(pats[npats]) == NULL &&
			    (filter_list_kind(list) != FILTER_RESOURCES ||
			    urinorm_pattern_error(pats[npats]) == NULL))
				npats++;
			else
				free(pats[npats]);
		}
		p = bar + 1;
	}
	json = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(json, use_allow ? "allow" : "deny");
	for (i = 0; i < npats; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(pats[i]));
	if (deny_x) {
		arr = use_allow ? cJSON_AddArrayToObject(json, "deny") : arr;
		cJSON_AddItemToArray(arr, cJSON_CreateString("x*"));
	}
	FUZZ_CHECK(filter_parse(json, filter_list_kind(list), "f",
	    fuzz_filter_error, NULL, &f) == 0,
	    "a filter of valid patterns refused");
	cJSON_Delete(json);

	/* Globs against fnmatch(3), on a name from the text. */
	for (i = 0; i < sizeof name - 1 && i < len && text[i] != '\0'; i++)
		name[i] = text[i];
	name[i] = '\0';
	for (i = 0; i < npats; i++) {
		FUZZ_CHECK(filter_glob(pats[i], name) ==
		    (fnmatch(pats[i], name, 0) == 0), "\"%s\" against \"%s\": "
		    "filter_glob and fnmatch disagree", pats[i], name);
	}

	r = filter_list_text(f, list, text, len, &out, &outlen);
	switch (r) {
	case FILTER_KEPT:
		FUZZ_CHECK(out == NULL, "KEPT with an output");
		if (f != NULL)
			check_entries(f, list, text, len, "kept");
		break;
	case FILTER_CHANGED:
		FUZZ_CHECK(out != NULL && strlen(out) == outlen,
		    "CHANGED without a proper output");
		FUZZ_CHECK(outlen < len, "the output (%zu bytes) is not "
		    "shorter than the input (%zu)", outlen, len);
		FUZZ_CHECK(envelope_scan(out, outlen, &env, &erroff) == 0,
		    "the output is not one JSON object (byte %zu): %s",
		    erroff, out);
		check_entries(f, list, out, outlen, "output");
		FUZZ_CHECK(filter_list_text(f, list, out, outlen, &again,
		    &againlen) == FILTER_KEPT, "filtering the output again "
		    "changes it");
		free(out);
		break;
	case FILTER_BAD:
		FUZZ_CHECK(out == NULL, "BAD with an output");
		FUZZ_CHECK(f != NULL, "BAD without a filter");
		if (envelope_scan(text, len, &env, &erroff) == 0)
			FUZZ_CHECK(count_members(text, len,
			    filter_list_member(list)) != 1, "a list result "
			    "with one array refused as BAD");
		break;
	default:
		fuzz_fail("filter_list_text returned %d", (int)r);
	}
	check_complete_ref(text, len);
	filter_free(f);
	for (i = 0; i < npats; i++)
		free(pats[i]);
	return (0);
}
