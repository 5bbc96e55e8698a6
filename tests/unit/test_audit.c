/*
 * test_audit.c -- unit tests for a call's record (src/audit.c) and its
 * reading back (src/auditfmt.c): the canonical text of arguments, their
 * keyed hash (a known HMAC-SHA256), "full" and its bound, the fields of
 * an entry, --since and --client.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "auditfmt.h"
#include "proto.h"
#include "unit.h"
#include "xmalloc.h"

static uint8_t	key[AUDIT_KEY_BYTES];

static void
key_setup(void)
{
	size_t	 i;

	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)i;
}

/* The value of NAME in an entry, or NULL. */
static const char *
field(char **v, const char *name)
{
	size_t	 i, len = strlen(name);

	for (i = 0; v[i] != NULL; i++) {
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '=')
			return (v[i] + len + 1);
	}
	return (NULL);
}

static struct audit_call *
call_of(enum audit_what what, const char *params, int full)
{
	return (audit_call_new(what, params, params != NULL ?
	    strlen(params) : 0, full, key, 100));
}

START_TEST(test_audit_canonical_sorted)
{
	cJSON	*a, *b;
	char	*ta, *tb;

	a = cJSON_Parse("{ \"b\": [2, {\"d\": \"x\", \"c\": 3}], \"a\": 1 }");
	b = cJSON_Parse("{\"a\":1.0,\"b\":[2,{\"c\":3,\"d\":\"x\"}]}");
	ta = audit_canonical(a);
	tb = audit_canonical(b);
	ck_assert_str_eq(ta, "{\"a\":1,\"b\":[2,{\"c\":3,\"d\":\"x\"}]}");
	ck_assert_str_eq(ta, tb);
	/* The value itself is left as it was. */
	ck_assert_str_eq(a->child->string, "b");
	free(ta);
	free(tb);
	cJSON_Delete(a);
	cJSON_Delete(b);
}
END_TEST

START_TEST(test_audit_hmac_known)
{
	struct audit_call	*c, *d, *e;

	key_setup();
	c = call_of(AUDIT_TOOL, "{\"name\":\"t\",\"arguments\":"
	    "{\"b\":[2,{\"d\":\"x\",\"c\":3}],\"a\":1}}", 0);
	ck_assert_str_eq(c->hmac,
	    "68ddaf0e3723468407509a168408f13787a14a650fe51be7c79a4e66c562c5a8");
	ck_assert_str_eq(c->name, "t");
	ck_assert_ptr_null(c->args);
	/* Without arguments: those of an empty object. */
	d = call_of(AUDIT_PROMPT, "{\"name\":\"p\"}", 0);
	ck_assert_str_eq(d->hmac,
	    "86227fe96722a2247dcfee12c07d89c1b0567bbc9aa6a8d804838f66a3da843f");
	/* Other arguments, another hash; a read has none. */
	e = call_of(AUDIT_TOOL, "{\"name\":\"t\",\"arguments\":{\"a\":2}}", 0);
	ck_assert_str_ne(e->hmac, c->hmac);
	audit_call_free(e);
	e = call_of(AUDIT_RESOURCE, "{\"uri\":\"file:///x\"}", 1);
	ck_assert_str_eq(e->hmac, "");
	ck_assert_str_eq(e->name, "file:///x");
	ck_assert_ptr_null(e->args);
	audit_call_free(c);
	audit_call_free(d);
	audit_call_free(e);
}
END_TEST

START_TEST(test_audit_full_bounded)
{
	struct audit_call	*c;
	char			*params, *big;
	size_t			 n = AUDIT_ARGS_MAX + 100, i;

	key_setup();
	big = xmalloc(n + 1);
	/* "é" (two bytes) over and over: the cut must not split one. */
	for (i = 0; i + 1 < n; i += 2)
		memcpy(big + i, "\xc3\xa9", 2);
	big[i] = '\0';
	xasprintf(&params, "{\"name\":\"t\",\"arguments\":{\"s\":\"%s\"}}",
	    big);
	c = call_of(AUDIT_TOOL, params, 1);
	ck_assert_int_eq(c->args_cut, 1);
	ck_assert_uint_le(strlen(c->args), AUDIT_ARGS_MAX +
	    strlen(AUDIT_CUT_NOTE));
	ck_assert_str_eq(c->args + strlen(c->args) - strlen(AUDIT_CUT_NOTE),
	    AUDIT_CUT_NOTE);
	ck_assert_int_ne((unsigned char)c->args[strlen(c->args) -
	    strlen(AUDIT_CUT_NOTE) - 1], 0xc3);
	audit_call_free(c);
	c = call_of(AUDIT_TOOL, "{\"name\":\"t\",\"arguments\":{\"k\":\"v\"}}",
	    1);
	ck_assert_str_eq(c->args, "{\"k\":\"v\"}");
	ck_assert_int_eq(c->args_cut, 0);
	audit_call_free(c);
	/* Members named as a request's own are the arguments' all the same. */
	c = call_of(AUDIT_TOOL, "{\"name\":\"t\",\"arguments\":{\"task\":1,"
	    "\"_meta\":2}}", 1);
	ck_assert_str_eq(c->args, "{\"_meta\":2,\"task\":1}");
	ck_assert_int_eq(c->args_cut, 0);
	audit_call_free(c);
	free(params);
	free(big);
}
END_TEST

START_TEST(test_audit_bad_params)
{
	struct audit_call	*c;

	key_setup();
	c = call_of(AUDIT_TOOL, "[1,2", 0);
	ck_assert_ptr_null(c->name);
	ck_assert_str_eq(c->hmac,
	    "86227fe96722a2247dcfee12c07d89c1b0567bbc9aa6a8d804838f66a3da843f");
	audit_call_free(c);
	c = call_of(AUDIT_TOOL, NULL, 0);
	ck_assert_ptr_null(c->name);
	audit_call_free(c);
	/* A name with a newline and an escape is escaped. */
	c = call_of(AUDIT_TOOL, "{\"name\":\"a\\nb\\u001b\"}", 0);
	ck_assert_str_eq(c->name, "a\\nb\\x1b");
	audit_call_free(c);
}
END_TEST

START_TEST(test_audit_entry_fields)
{
	struct audit_call	*c;
	struct audit_end	 end;
	char			**v;
	size_t			 n;

	key_setup();
	c = call_of(AUDIT_TOOL, "{\"name\":\"echo\",\"arguments\":"
	    "{\"text\":\"secret\"}}", 0);
	c->bytes_out = 42;
	c->code = -32602;
	memset(&end, 0, sizeof end);
	end.outcome = AUDIT_ERROR;
	end.duration_us = 1500;
	end.server = "tab#2";
	end.pid = 77;
	end.uid = 1000;
	end.app = "cursor";
	end.app_exe = "/usr/share/cursor/cursor";
	v = audit_entry(c, &end, &n);
	ck_assert_ptr_null(v[n]);
	ck_assert_str_eq(field(v, "MESSAGE_ID"), MCPD_MID_AUDIT);
	ck_assert_str_eq(field(v, MCPD_FIELD_SERVER), "tab");
	ck_assert_str_eq(field(v, MCPD_FIELD_INSTANCE), "tab#2");
	ck_assert_str_eq(field(v, MCPD_FIELD_METHOD), "tools/call");
	ck_assert_str_eq(field(v, MCPD_FIELD_TOOL), "echo");
	ck_assert_str_eq(field(v, MCPD_FIELD_OUTCOME), "error -32602");
	ck_assert_str_eq(field(v, MCPD_FIELD_CLIENT_PID), "77");
	ck_assert_str_eq(field(v, MCPD_FIELD_CLIENT_UID), "1000");
	ck_assert_str_eq(field(v, MCPD_FIELD_APP), "cursor");
	ck_assert_str_eq(field(v, MCPD_FIELD_DURATION_US), "1500");
	ck_assert_str_eq(field(v, MCPD_FIELD_BYTES_IN), "100");
	ck_assert_str_eq(field(v, MCPD_FIELD_BYTES_OUT), "42");
	ck_assert_uint_eq(strlen(field(v, MCPD_FIELD_ARGS_HMAC)), 64);
	ck_assert_ptr_null(field(v, MCPD_FIELD_ARGS));
	ck_assert_ptr_null(field(v, MCPD_FIELD_APP_UNIT));
	ck_assert_ptr_null(field(v, MCPD_FIELD_PROMPT));
	/* No value anywhere, the message included. */
	for (n = 0; v[n] != NULL; n++)
		ck_assert_ptr_null(strstr(v[n], "secret"));
	audit_entry_free(v);
	audit_call_free(c);
}
END_TEST

/* A call mcpd refused itself: "refused", why and the code, no REASON else. */
START_TEST(test_audit_entry_refused)
{
	struct audit_call	*c;
	struct audit_end	 end;
	char			**v;
	size_t			 n;

	key_setup();
	c = call_of(AUDIT_TOOL, "{\"name\":\"echo\",\"arguments\":"
	    "{\"text\":\"secret\"}}", 0);
	c->reason = "policy";
	c->code = -32001;
	memset(&end, 0, sizeof end);
	end.outcome = AUDIT_REFUSED;
	end.server = "fs";
	v = audit_entry(c, &end, &n);
	ck_assert_str_eq(field(v, MCPD_FIELD_OUTCOME), "refused");
	ck_assert_str_eq(field(v, MCPD_FIELD_REASON), "policy");
	ck_assert_str_eq(field(v, MCPD_FIELD_ERROR_CODE), "-32001");
	ck_assert_str_eq(field(v, MCPD_FIELD_DURATION_US), "0");
	ck_assert_ptr_nonnull(strstr(field(v, "MESSAGE"),
	    "refused by mcpd (policy, error -32001)"));
	for (n = 0; v[n] != NULL; n++)
		ck_assert_ptr_null(strstr(v[n], "secret"));
	audit_entry_free(v);
	c->reason = NULL;
	end.outcome = AUDIT_OK;
	v = audit_entry(c, &end, &n);
	ck_assert_ptr_null(field(v, MCPD_FIELD_REASON));
	ck_assert_ptr_null(field(v, MCPD_FIELD_ERROR_CODE));
	audit_entry_free(v);
	audit_call_free(c);
}
END_TEST

START_TEST(test_audit_app_name)
{
	ck_assert_str_eq(audit_app_name("/usr/bin/node", NULL, NULL), "node");
	ck_assert_str_eq(audit_app_name("/usr/bin/node", "app-x.scope",
	    NULL), "app-x.scope");
	ck_assert_str_eq(audit_app_name("/x", "u", "org.gnome.Foo"),
	    "org.gnome.Foo");
	ck_assert_ptr_null(audit_app_name(NULL, "", NULL));
	ck_assert_str_eq(audit_app_name("/", NULL, NULL), "/");
	ck_assert_int_eq(audit_method("tools/call"), AUDIT_TOOL);
	ck_assert_int_eq(audit_method("resources/read"), AUDIT_RESOURCE);
	ck_assert_int_eq(audit_method("tools/list"), AUDIT_NONE);
	ck_assert_str_eq(audit_outcome_name(AUDIT_GONE), "gone");
	ck_assert_str_eq(audit_outcome_name((enum audit_outcome)99),
	    "unknown");
}
END_TEST

START_TEST(test_auditfmt_since)
{
	uint64_t	 us, now = 1700000000ULL * 1000000;

	ck_assert_int_eq(auditfmt_since("@1600000000", now, &us), 0);
	ck_assert_uint_eq(us, 1600000000ULL * 1000000);
	ck_assert_int_eq(auditfmt_since("90s", now, &us), 0);
	ck_assert_uint_eq(us, now - 90ULL * 1000000);
	ck_assert_int_eq(auditfmt_since("2h", now, &us), 0);
	ck_assert_uint_eq(us, now - 7200ULL * 1000000);
	ck_assert_int_eq(auditfmt_since("1d", now, &us), 0);
	ck_assert_uint_eq(us, now - 86400ULL * 1000000);
	ck_assert_int_eq(auditfmt_since("2023-11-14", now, &us), 0);
	ck_assert_int_eq(auditfmt_since("2023-11-14 12:30", now, &us), 0);
	ck_assert_int_eq(auditfmt_since("2023-11-14T12:30:05", now, &us), 0);
	ck_assert_int_eq(auditfmt_since("", now, &us), -1);
	ck_assert_int_eq(auditfmt_since("@", now, &us), -1);
	ck_assert_int_eq(auditfmt_since("@-1", now, &us), -1);
	ck_assert_int_eq(auditfmt_since("10x", now, &us), -1);
	ck_assert_int_eq(auditfmt_since("s", now, &us), -1);
	ck_assert_int_eq(auditfmt_since("99999999999999999999d", now, &us),
	    -1);
	ck_assert_int_eq(auditfmt_since("2023-11-14 junk", now, &us), -1);
	/* Longer ago than the epoch: the start of the journal. */
	ck_assert_int_eq(auditfmt_since("100000d", now, &us), 0);
	ck_assert_uint_eq(us, 0);
}
END_TEST

START_TEST(test_auditfmt_client_and_row)
{
	cJSON	*rec, *j;
	char	*row, *text;

	rec = cJSON_Parse("{\"MCPD_CLIENT_PID\":\"4242\",\"MCPD_CLIENT_UID\":"
	    "\"1000\",\"MCPD_APP\":\"cursor\",\"MCPD_APP_EXE\":"
	    "\"/usr/share/cursor/cursor-bin\",\"MCPD_SERVER\":\"fs\","
	    "\"MCPD_TOOL\":\"read_file\",\"MCPD_DURATION_US\":\"2500\","
	    "\"MCPD_OUTCOME\":\"ok\",\"MCPD_BYTES_IN\":\"80\","
	    "\"MCPD_BYTES_OUT\":\"900\",\"MCPD_ARGS_HMAC\":\"ab\"}");
	ck_assert_int_eq(auditfmt_client_match(rec, "4242"), 1);
	ck_assert_int_eq(auditfmt_client_match(rec, "1000"), 1);
	ck_assert_int_eq(auditfmt_client_match(rec, "1001"), 0);
	ck_assert_int_eq(auditfmt_client_match(rec, "cursor"), 1);
	ck_assert_int_eq(auditfmt_client_match(rec, "cursor-bin"), 1);
	ck_assert_int_eq(auditfmt_client_match(rec,
	    "/usr/share/cursor/cursor-bin"), 1);
	ck_assert_int_eq(auditfmt_client_match(rec, "code"), 0);
	row = auditfmt_row(rec, 0);
	ck_assert_ptr_nonnull(strstr(row, "cursor"));
	ck_assert_ptr_nonnull(strstr(row, "read_file"));
	ck_assert_ptr_nonnull(strstr(row, "2.5ms"));
	ck_assert_ptr_nonnull(strstr(row, "80/900"));
	free(row);
	j = auditfmt_json(rec, 5);
	text = cJSON_PrintUnformatted(j);
	ck_assert_ptr_nonnull(strstr(text, "\"pid\":4242"));
	ck_assert_ptr_nonnull(strstr(text, "\"tool\":\"read_file\""));
	ck_assert_ptr_nonnull(strstr(text, "\"outcome\":\"ok\""));
	free(text);
	cJSON_Delete(j);
	cJSON_Delete(rec);
	/* Nothing known: dashes, and no number made up. */
	rec = cJSON_Parse("{\"MCPD_CLIENT_PID\":\"x\"}");
	ck_assert_int_eq(auditfmt_client_match(rec, "1"), 0);
	row = auditfmt_row(rec, 0);
	ck_assert_ptr_nonnull(strstr(row, " - "));
	free(row);
	j = auditfmt_json(rec, 0);
	ck_assert(cJSON_IsString(cJSON_GetObjectItem(j, "pid")));
	cJSON_Delete(j);
	cJSON_Delete(rec);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("audit");
	tc = tcase_create("audit");
	tcase_add_test(tc, test_audit_canonical_sorted);
	tcase_add_test(tc, test_audit_entry_refused);
	tcase_add_test(tc, test_audit_hmac_known);
	tcase_add_test(tc, test_audit_full_bounded);
	tcase_add_test(tc, test_audit_bad_params);
	tcase_add_test(tc, test_audit_entry_fields);
	tcase_add_test(tc, test_audit_app_name);
	tcase_add_test(tc, test_auditfmt_since);
	tcase_add_test(tc, test_auditfmt_client_and_row);
	suite_add_tcase(s, tc);
	return (s);
}
