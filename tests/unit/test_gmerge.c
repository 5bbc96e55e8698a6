/*
 * test_gmerge.c -- a group's lists merged from its members' pages: group
 * order, renaming, clashes, members missing, and the cursor of cursors,
 * round-tripped and refused when a client made it up.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "gmerge.h"
#include "hmap.h"
#include "rpc.h"
#include "unit.h"
#include "xmalloc.h"

/* Keep what the table of names lets through, as the group session does. */
struct keep {
	struct hmap	*names;
	const char	*deny;		/* an own name the "filter" hides */
	size_t		 calls;
	int		 saw_exposed;
};

static int
keep_names(void *arg, size_t member, const char *own, const char *exposed)
{
	struct keep	*k = arg;

	k->calls++;
	if (exposed == NULL)
		return (k->deny == NULL || strcmp(own, k->deny) != 0);
	k->saw_exposed = 1;
	if (k->deny != NULL && strcmp(own, k->deny) == 0)
		return (0);
	switch (gmerge_name_claim(k->names, exposed, member, own)) {
	case GMERGE_NAME_CLASH:
		return (0);
	case GMERGE_NAME_FREE:
		gmerge_name_add(k->names, exposed, member, own);
		break;
	case GMERGE_NAME_HELD:
		break;
	}
	return (1);
}

static void
page(struct gmerge *m, size_t member, const char *name, const char *text,
    struct keep *k, enum gmerge_page want)
{
	ck_assert_int_eq(gmerge_page(m, member, name, text, strlen(text),
	    keep_names, k), want);
}

/* The merged result, parsed; the names of its entries joined by ','. */
static cJSON *
finish(struct gmerge *m, const char *key, const char *field, char *out,
    size_t size)
{
	char		*text;
	cJSON		*r;
	const cJSON	*e;
	size_t		 len;

	text = gmerge_finish(m);
	r = cJSON_Parse(text);
	free(text);
	ck_assert_ptr_nonnull(r);
	out[0] = '\0';
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, key)) {
		len = strlen(out);
		snprintf(out + len, size - len, "%s%s", len > 0 ? "," : "",
		    cJSON_GetObjectItemCaseSensitive(e, field)->valuestring);
	}
	return (r);
}

START_TEST(test_gmerge_order_renamed)
{
	struct gmerge	 m;
	struct keep	 k = { hmap_new(1), NULL, 0, 0 };
	char		 names[256];
	cJSON		*r;

	gmerge_init(&m, "tools", "name", 1, "__", 3);
	page(&m, 0, "github", "{\"tools\":[{\"name\":\"create_issue\","
	    "\"description\":\"d\"},{\"name\":\"list\"}]}", &k,
	    GMERGE_PAGE_OK);
	/* A member that did not answer adds nothing; 2 comes after 0. */
	page(&m, 2, "fs", "{\"tools\":[{\"name\":\"read file\"},"
	    "{\"name\":\"read.file\"}]}", &k, GMERGE_PAGE_OK);
	r = finish(&m, "tools", "name", names, sizeof names);
	ck_assert_str_eq(names, "github__create_issue,github__list,"
	    "fs__read_file-dd2cd37b,fs__read.file");
	/* The rest of an entry goes through; no cursor without more pages. */
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(r, "tools"), 0),
	    "description")->valuestring, "d");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, "nextCursor"));
	cJSON_Delete(r);
	gmerge_names_free(k.names, NULL, NULL);
}
END_TEST

/* What letting go of a table of names shows: the bytes of each. */
static void
count_let_go(void *arg, size_t keylen, const char *own)
{
	*(size_t *)arg += keylen + strlen(own);
}

START_TEST(test_gmerge_clash)
{
	struct gmerge	 m;
	struct keep	 k = { hmap_new(2), NULL, 0, 0 };
	char		 names[256];
	const char	*own;
	size_t		 member;
	cJSON		*r;

	/* "a" SEP "b__c" and "a__b" SEP "c" spell the same name. */
	gmerge_init(&m, "tools", "name", 1, "__", 2);
	page(&m, 0, "a", "{\"tools\":[{\"name\":\"b__c\"},{\"name\":\"b__c\"},"
	    "{\"name\":\"x\"}]}", &k, GMERGE_PAGE_OK);
	page(&m, 1, "a__b", "{\"tools\":[{\"name\":\"c\"},{\"name\":\"d\"}]}",
	    &k, GMERGE_PAGE_OK);
	r = finish(&m, "tools", "name", names, sizeof names);
	/* The first in group order keeps it; a member's own twice is kept. */
	ck_assert_str_eq(names, "a__b__c,a__b__c,a__x,a__b__d");
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(own = gmerge_name_find(k.names, "a__b__c",
	    &member));
	ck_assert_str_eq(own, "b__c");
	ck_assert_uint_eq(member, 0);
	ck_assert_ptr_nonnull(own = gmerge_name_find(k.names, "a__b__d",
	    &member));
	ck_assert_str_eq(own, "d");
	ck_assert_uint_eq(member, 1);
	ck_assert_ptr_null(gmerge_name_find(k.names, "c", &member));
	ck_assert_int_eq(gmerge_name_claim(k.names, "a__b__c", 1, "c"),
	    GMERGE_NAME_CLASH);
	ck_assert_int_eq(gmerge_name_claim(k.names, "a__b__c", 0, "other"),
	    GMERGE_NAME_CLASH);
	ck_assert_int_eq(gmerge_name_claim(k.names, "a__b__c", 0, "b__c"),
	    GMERGE_NAME_HELD);
	ck_assert_int_eq(gmerge_name_claim(k.names, "new", 0, "b__c"),
	    GMERGE_NAME_FREE);
	/* a__b__c b__c, a__x x, a__b__d d: each shown once. */
	member = 0;
	gmerge_names_free(k.names, count_let_go, &member);
	ck_assert_uint_eq(member, 7 + 4 + 4 + 1 + 7 + 1);
}
END_TEST

START_TEST(test_gmerge_missing)
{
	struct gmerge	 m;
	struct keep	 k = { hmap_new(3), "hidden", 0, 0 };
	char		 uris[256];
	cJSON		*r;

	/* Resources keep their URIs; broken pages and entries drop out. */
	gmerge_init(&m, "resources", "uri", 0, "__", 4);
	page(&m, 0, "a", "{\"resources\":[{\"uri\":\"file:///a\"}],"
	    "\"nextCursor\":\"c0\"}", &k, GMERGE_PAGE_OK);
	page(&m, 1, "b", "{\"resources\":", &k, GMERGE_PAGE_NOT_JSON);
	page(&m, 2, "c", "{\"resources\":{},\"nextCursor\":\"c2\"}", &k,
	    GMERGE_PAGE_NO_ARRAY);
	page(&m, 3, "d", "{\"resources\":[1,\"x\",{\"uri\":2},{\"name\":\"n\"},"
	    "{\"uri\":\"hidden\"},{\"uri\":\"mem://d\"}],\"nextCursor\":\"\"}",
	    &k, GMERGE_PAGE_OK);
	ck_assert(!k.saw_exposed);
	r = finish(&m, "resources", "uri", uris, sizeof uris);
	ck_assert_str_eq(uris, "file:///a,mem://d");
	/* Only the member that answered with a page has more of them. */
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r,
	    "nextCursor")->valuestring,
	    "eyIwIjoiYzAifQ");	/* {"0":"c0"} */
	cJSON_Delete(r);
	gmerge_names_free(k.names, NULL, NULL);
}
END_TEST

START_TEST(test_gmerge_cursor_roundtrip)
{
	char	*in[4] = { "plain", NULL, "\"quoted\"\\ \xc3\xa9 \x01", "" };
	char	*cursor, **out;
	size_t	 i;

	ck_assert_ptr_null(gmerge_cursor_encode(in + 1, 1));
	ck_assert_ptr_nonnull(cursor = gmerge_cursor_encode(in, 4));
	ck_assert_int_eq(gmerge_cursor_decode(cursor, 4, &out), 0);
	for (i = 0; i < 4; i++)
		if (in[i] == NULL)
			ck_assert_ptr_null(out[i]);
		else
			ck_assert_str_eq(out[i], in[i]);
	gmerge_cursors_free(out, 4);
	/* A group that lost members refuses a cursor naming them. */
	ck_assert_int_eq(gmerge_cursor_decode(cursor, 3, &out), -1);
	ck_assert_ptr_null(out);
	/* One that grew keeps reading it: the new member is not asked. */
	ck_assert_int_eq(gmerge_cursor_decode(cursor, 9, &out), 0);
	ck_assert_ptr_null(out[8]);
	gmerge_cursors_free(out, 9);
	free(cursor);
}
END_TEST

static void
refused(const char *json, size_t n)
{
	char	*cursor, **out = (char **)1;

	cursor = b64url_encode(json, strlen(json));
	ck_assert_msg(gmerge_cursor_decode(cursor, n, &out) == -1,
	    "%s accepted", json);
	ck_assert_ptr_null(out);
	free(cursor);
}

START_TEST(test_gmerge_cursor_hostile)
{
	char	**out, *big, *cursor;
	size_t	 len = RPC_PARSE_MAX_BYTES + 1;

	ck_assert_int_eq(gmerge_cursor_decode("", 2, &out), -1);
	ck_assert_int_eq(gmerge_cursor_decode("not base64!", 2, &out), -1);
	ck_assert_int_eq(gmerge_cursor_decode("plain-member-cursor", 2, &out),
	    -1);
	refused("not json", 2);
	refused("[\"a\"]", 2);
	refused("\"0\"", 2);
	refused("{}", 2);
	refused("{\"2\":\"x\"}", 2);
	refused("{\"0\":\"x\",\"2\":\"y\"}", 2);
	refused("{\"-1\":\"x\"}", 2);
	refused("{\" 1\":\"x\"}", 2);
	refused("{\"+1\":\"x\"}", 2);
	refused("{\"1a\":\"x\"}", 2);
	refused("{\"\":\"x\"}", 2);
	refused("{\"0\":1}", 2);
	refused("{\"0\":null}", 2);
	refused("{\"0\":{\"1\":\"x\"}}", 2);
	refused("{\"18446744073709551617\":\"x\"}", 2);
	refused("{\"0\":\"x\"}", 0);
	/* Within the rules but not the group's spelling: nobody is asked. */
	ck_assert_int_eq(gmerge_cursor_decode("eyIwMSI6IngifQ", 2, &out), 0);
	ck_assert_ptr_null(out[0]);	/* {"01":"x"} */
	ck_assert_ptr_null(out[1]);
	gmerge_cursors_free(out, 2);
	/* A duplicate key: the first is the member's. */
	cursor = b64url_encode("{\"1\":\"a\",\"1\":\"b\"}", 17);
	ck_assert_int_eq(gmerge_cursor_decode(cursor, 2, &out), 0);
	ck_assert_ptr_null(out[0]);
	ck_assert_str_eq(out[1], "a");
	gmerge_cursors_free(out, 2);
	free(cursor);
	/* Longer than any request mcpd reads: not even decoded. */
	big = xmalloc(len + 1);
	memset(big, 'A', len);
	big[len] = '\0';
	ck_assert_int_eq(gmerge_cursor_decode(big, 2, &out), -1);
	free(big);
}
END_TEST

START_TEST(test_gmerge_cursor_in_result)
{
	struct gmerge	 m;
	struct keep	 k = { hmap_new(4), NULL, 0, 0 };
	char		 names[64], **out;
	cJSON		*r;

	gmerge_init(&m, "prompts", "name", 1, "-", 3);
	page(&m, 1, "b", "{\"prompts\":[{\"name\":\"p\"}],"
	    "\"nextCursor\":\"b's next\"}", &k, GMERGE_PAGE_OK);
	page(&m, 2, "c", "{\"prompts\":[],\"nextCursor\":\"c's\"}", &k,
	    GMERGE_PAGE_OK);
	r = finish(&m, "prompts", "name", names, sizeof names);
	ck_assert_str_eq(names, "b-p");
	ck_assert_int_eq(gmerge_cursor_decode(cJSON_GetObjectItemCaseSensitive(
	    r, "nextCursor")->valuestring, 3, &out), 0);
	ck_assert_ptr_null(out[0]);
	ck_assert_str_eq(out[1], "b's next");
	ck_assert_str_eq(out[2], "c's");
	gmerge_cursors_free(out, 3);
	cJSON_Delete(r);
	/* A merge given up on lets go of what it holds. */
	gmerge_init(&m, "prompts", "name", 1, "-", 1);
	page(&m, 0, "b", "{\"prompts\":[{\"name\":\"p\"}],"
	    "\"nextCursor\":\"n\"}", &k, GMERGE_PAGE_OK);
	gmerge_free(&m);
	gmerge_names_free(k.names, NULL, NULL);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("gmerge");
	tc = tcase_create("gmerge");
	tcase_add_test(tc, test_gmerge_order_renamed);
	tcase_add_test(tc, test_gmerge_clash);
	tcase_add_test(tc, test_gmerge_missing);
	tcase_add_test(tc, test_gmerge_cursor_roundtrip);
	tcase_add_test(tc, test_gmerge_cursor_hostile);
	tcase_add_test(tc, test_gmerge_cursor_in_result);
	suite_add_tcase(s, tc);
	return (s);
}
