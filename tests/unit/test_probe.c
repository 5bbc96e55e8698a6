/*
 * test_probe.c -- unit tests for the era of a server: the key of its
 * configuration, what is sent first, what an answer means, and the
 * bounded cache of verdicts.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "probe.h"
#include "unit.h"
#include "util.h"

/* A server of argv and env (NULL-ended), cwd or NULL. */
static void
key_of(char **argv, char **env, char *cwd, uint8_t key[PROBE_KEY_BYTES])
{
	struct conf_server	 cs;

	memset(&cs, 0, sizeof cs);
	cs.argv = argv;
	for (cs.argc = 0; argv[cs.argc] != NULL; cs.argc++)
		;
	cs.env = env;
	for (cs.envc = 0; env[cs.envc] != NULL; cs.envc++)
		;
	cs.cwd = cwd;
	probe_key(&cs, key);
}

START_TEST(test_key_separates)
{
	char		*a1[] = { "node", "s.js", NULL };
	char		*a2[] = { "node", "s.j", "s", NULL };
	char		*a3[] = { "nodes.js", NULL };
	char		*a4[] = { "node", "s.js", "", NULL };
	char		*e0[] = { NULL };
	char		*e1[] = { "A=1", NULL };
	char		*e2[] = { "A=2", NULL };
	char		*e3[] = { "A=1", "B=", NULL };
	char		 empty[] = "", dir[] = "/srv";
	uint8_t		 k[10][PROBE_KEY_BYTES], again[PROBE_KEY_BYTES];
	size_t		 i, j;

	key_of(a1, e0, NULL, k[0]);
	key_of(a2, e0, NULL, k[1]);
	key_of(a3, e0, NULL, k[2]);
	key_of(a4, e0, NULL, k[3]);
	key_of(a1, e1, NULL, k[4]);
	key_of(a1, e2, NULL, k[5]);
	key_of(a1, e3, NULL, k[6]);
	key_of(a1, e0, empty, k[7]);
	key_of(a1, e0, dir, k[8]);
	/* The arguments as environment: still another key. */
	key_of((char *[]){ "node", NULL }, (char *[]){ "s.js", NULL }, NULL,
	    k[9]);
	for (i = 0; i < nitems(k); i++) {
		for (j = i + 1; j < nitems(k); j++)
			ck_assert_msg(memcmp(k[i], k[j], PROBE_KEY_BYTES) != 0,
			    "keys %zu and %zu are alike", i, j);
	}
	/* The same configuration, the same key. */
	key_of((char *[]){ "node", "s.js", NULL }, (char *[]){ "A=1", NULL },
	    NULL, again);
	ck_assert_mem_eq(again, k[4], PROBE_KEY_BYTES);
}
END_TEST

START_TEST(test_key_hex)
{
	uint8_t		 key[PROBE_KEY_BYTES], back[PROBE_KEY_BYTES];
	char		 hex[PROBE_KEY_HEX + 1], bad[PROBE_KEY_HEX + 1];
	size_t		 i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(i * 37 + 5);
	probe_key_hex(key, hex);
	ck_assert_uint_eq(strlen(hex), PROBE_KEY_HEX);
	ck_assert_int_eq(probe_key_parse(hex, back), 0);
	ck_assert_mem_eq(key, back, PROBE_KEY_BYTES);
	memcpy(bad, hex, sizeof bad);
	bad[5] = 'G';
	ck_assert_int_eq(probe_key_parse(bad, back), -1);
	bad[5] = 'A';		/* upper case is not what is printed */
	ck_assert_int_eq(probe_key_parse(bad, back), -1);
	ck_assert_int_eq(probe_key_parse("00", back), -1);
	ck_assert_int_eq(probe_key_parse(NULL, back), -1);
}
END_TEST

START_TEST(test_first)
{
	struct probe_verdict	 v25 = { PROBE_ERA_2025, PROBE_HOW_REFUSED };
	struct probe_verdict	 v25i = { PROBE_ERA_2025,
	    PROBE_HOW_INTOLERANT };
	struct probe_verdict	 v26 = { PROBE_ERA_2026, PROBE_HOW_DISCOVER };
	struct probe_verdict	 none = { PROBE_ERA_NONE, PROBE_HOW_NONE };

	/* auto: probe, unless a 2025 verdict is known. */
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 0, NULL),
	    PROBE_FIRST_PROBE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 0, &none),
	    PROBE_FIRST_PROBE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 0, &v25),
	    PROBE_FIRST_INITIALIZE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 0, &v25i),
	    PROBE_FIRST_INITIALIZE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 0, &v26),
	    PROBE_FIRST_PROBE);
	/* The setting wins over any verdict. */
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_2025, 0, &v26),
	    PROBE_FIRST_INITIALIZE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_2026, 0, &v25),
	    PROBE_FIRST_DISCOVER);
	/*
	 * A remote server in auto: initialize, which mcpd-remote answers
	 * with -32022 for a remote of 2026-07-28; as configured, discover.
	 */
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_AUTO, 1, NULL),
	    PROBE_FIRST_INITIALIZE);
	ck_assert_int_eq(probe_first(CONF_PROTOCOL_2026, 1, NULL),
	    PROBE_FIRST_DISCOVER);
}
END_TEST

static enum probe_answer
classify(const char *text)
{
	cJSON			*msg = cJSON_Parse(text);
	enum probe_answer	 a;

	ck_assert_ptr_nonnull(msg);
	a = probe_classify(msg);
	cJSON_Delete(msg);
	return (a);
}

START_TEST(test_classify)
{
	ck_assert_int_eq(classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
	    "{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}"),
	    PROBE_ANSWER_2026);
	ck_assert_int_eq(classify("{\"id\":1,\"result\":{\"supportedVersions\":"
	    "[\"2025-11-25\",\"2026-07-28\",3]}}"), PROBE_ANSWER_2026);
	/* A 2025 server: method not found, invalid params, anything. */
	ck_assert_int_eq(classify("{\"id\":1,\"error\":{\"code\":-32601,"
	    "\"message\":\"Method not found\"}}"), PROBE_ANSWER_OTHER);
	ck_assert_int_eq(classify("{\"id\":1,\"error\":{\"code\":-32602}}"),
	    PROBE_ANSWER_OTHER);
	/* A modern error naming versions mcpd does not speak. */
	ck_assert_int_eq(classify("{\"id\":1,\"error\":{\"code\":-32022,"
	    "\"data\":{\"supported\":[\"2027-01-01\"]}}}"), PROBE_ANSWER_OTHER);
	/* Results that are no discover result of 2026-07-28. */
	ck_assert_int_eq(classify("{\"id\":1,\"result\":{}}"),
	    PROBE_ANSWER_OTHER);
	ck_assert_int_eq(classify("{\"id\":1,\"result\":{\"supportedVersions\":"
	    "[\"2027-01-01\"]}}"), PROBE_ANSWER_OTHER);
	ck_assert_int_eq(classify("{\"id\":1,\"result\":{\"supportedVersions\":"
	    "\"2026-07-28\"}}"), PROBE_ANSWER_OTHER);
	ck_assert_int_eq(classify("{\"id\":1,\"result\":[\"2026-07-28\"]}"),
	    PROBE_ANSWER_OTHER);
	ck_assert_int_eq(classify("{\"id\":1,\"result\":{\"supportedVersions\":"
	    "[\"2026-07-28\"]},\"error\":{}}"), PROBE_ANSWER_OTHER);
}
END_TEST

START_TEST(test_next)
{
	struct probe_verdict	 v;

	ck_assert_int_eq(probe_next(PROBE_ANSWER_2026, &v),
	    PROBE_NEXT_SESSION_2026);
	ck_assert_int_eq(v.era, PROBE_ERA_2026);
	ck_assert_int_eq(v.how, PROBE_HOW_DISCOVER);
	ck_assert_int_eq(probe_next(PROBE_ANSWER_OTHER, &v),
	    PROBE_NEXT_INITIALIZE);
	ck_assert_int_eq(v.era, PROBE_ERA_2025);
	ck_assert_int_eq(v.how, PROBE_HOW_REFUSED);
	ck_assert_int_eq(probe_next(PROBE_ANSWER_SILENT, &v),
	    PROBE_NEXT_INITIALIZE);
	ck_assert_int_eq(v.era, PROBE_ERA_2025);
	ck_assert_int_eq(v.how, PROBE_HOW_SILENT);
	ck_assert_int_eq(probe_next(PROBE_ANSWER_ENDED, &v),
	    PROBE_NEXT_RESTART);
	ck_assert_int_eq(v.era, PROBE_ERA_2025);
	ck_assert_int_eq(v.how, PROBE_HOW_INTOLERANT);
}
END_TEST

START_TEST(test_names)
{
	enum probe_how	 h;

	ck_assert_str_eq(probe_era_name(PROBE_ERA_2026), "2026-07-28");
	ck_assert_str_eq(probe_era_name(PROBE_ERA_2025), "2025");
	ck_assert_ptr_null(probe_era_name(PROBE_ERA_NONE));
	ck_assert_str_eq(probe_how_name(PROBE_HOW_INTOLERANT),
	    "probe-intolerant");
	ck_assert_ptr_null(probe_how_name(PROBE_HOW_NONE));
	ck_assert_ptr_null(probe_how_name((enum probe_how)99));
	for (h = PROBE_HOW_CONFIGURED; h <= PROBE_HOW_INIT_REFUSED; h++)
		ck_assert_int_eq(probe_how_parse(probe_how_name(h)), h);
	ck_assert_int_eq(probe_how_parse("nonsense"), PROBE_HOW_NONE);
	ck_assert_int_eq(probe_how_parse(NULL), PROBE_HOW_NONE);
}
END_TEST

static void
nkey(uint8_t key[PROBE_KEY_BYTES], unsigned int n)
{
	memset(key, 0, PROBE_KEY_BYTES);
	key[0] = (uint8_t)n;
	key[1] = (uint8_t)(n >> 8);
}

START_TEST(test_cache)
{
	struct probe_cache	*c = probe_cache_new(3);
	struct probe_verdict	 v, v25 = { PROBE_ERA_2025, PROBE_HOW_SILENT };
	struct probe_verdict	 v26 = { PROBE_ERA_2026, PROBE_HOW_DISCOVER };
	struct probe_verdict	 gone = { PROBE_ERA_NONE, PROBE_HOW_NONE };
	uint8_t			 k[5][PROBE_KEY_BYTES], at[PROBE_KEY_BYTES];
	unsigned int		 i;

	for (i = 0; i < nitems(k); i++)
		nkey(k[i], i + 1);
	ck_assert_int_eq(probe_cache_get(c, k[0], &v), -1);
	probe_cache_put(c, k[0], &v25);
	probe_cache_put(c, k[1], &v26);
	probe_cache_put(c, k[2], &v25);
	ck_assert_uint_eq(probe_cache_count(c), 3);
	/* A hit is the most recent: k[1] is the least recent now. */
	ck_assert_int_eq(probe_cache_get(c, k[0], &v), 0);
	ck_assert_int_eq(v.era, PROBE_ERA_2025);
	ck_assert_int_eq(v.how, PROBE_HOW_SILENT);
	probe_cache_put(c, k[3], &v26);
	ck_assert_uint_eq(probe_cache_count(c), 3);
	ck_assert_int_eq(probe_cache_get(c, k[1], &v), -1);
	ck_assert_int_eq(probe_cache_get(c, k[0], &v), 0);
	/* Replaced in place of a new entry: still three. */
	probe_cache_put(c, k[2], &v26);
	ck_assert_uint_eq(probe_cache_count(c), 3);
	ck_assert_int_eq(probe_cache_get(c, k[2], &v), 0);
	ck_assert_int_eq(v.era, PROBE_ERA_2026);
	/* Least recent first. */
	probe_cache_at(c, 0, at, &v);
	ck_assert_mem_eq(at, k[3], PROBE_KEY_BYTES);
	probe_cache_at(c, 2, at, &v);
	ck_assert_mem_eq(at, k[2], PROBE_KEY_BYTES);
	/* No era: forgotten. */
	probe_cache_put(c, k[2], &gone);
	ck_assert_uint_eq(probe_cache_count(c), 2);
	ck_assert_int_eq(probe_cache_get(c, k[2], &v), -1);
	probe_cache_free(c);
	probe_cache_free(NULL);
	ck_assert_uint_eq(probe_cache_count(NULL), 0);
}
END_TEST

/* Bounded at its maximum, whatever comes. */
START_TEST(test_cache_bounded)
{
	struct probe_cache	*c = probe_cache_new(PROBE_CACHE_MAX);
	struct probe_verdict	 v = { PROBE_ERA_2025, PROBE_HOW_REFUSED };
	uint8_t			 key[PROBE_KEY_BYTES];
	unsigned int		 i;

	for (i = 0; i < 3 * PROBE_CACHE_MAX; i++) {
		nkey(key, i);
		probe_cache_put(c, key, &v);
	}
	ck_assert_uint_eq(probe_cache_count(c), PROBE_CACHE_MAX);
	nkey(key, 3 * PROBE_CACHE_MAX - 1);
	ck_assert_int_eq(probe_cache_get(c, key, &v), 0);
	nkey(key, 2 * PROBE_CACHE_MAX - 1);
	ck_assert_int_eq(probe_cache_get(c, key, &v), -1);
	probe_cache_free(c);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("probe");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_key_separates);
	tcase_add_test(tc, test_key_hex);
	tcase_add_test(tc, test_first);
	tcase_add_test(tc, test_classify);
	tcase_add_test(tc, test_next);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_cache_bounded);
	suite_add_tcase(s, tc);
	return (s);
}
