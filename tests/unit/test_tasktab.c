/*
 * test_tasktab.c -- unit tests for the table of tasks: a task is found by
 * its owner only, the server's id behind mcpd's, statuses that end, caps
 * that refuse, ttls that expire, and tasks/list pages with mcpd's cursors.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tasktab.h"
#include "unit.h"
#include "xmalloc.h"

static unsigned char	rnd_next[TASKTAB_RANDOM_BYTES];

/* Distinct "random" bytes for each task. */
static const unsigned char *
rnd(void)
{
	size_t	 i;

	for (i = 0; i < TASKTAB_RANDOM_BYTES; i++)
		if (++rnd_next[i] != 0)
			break;
	return (rnd_next);
}

static cJSON *
task_obj(const char *status, double ttl)
{
	cJSON	*t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "taskId", "server-id");
	cJSON_AddStringToObject(t, "status", status);
	if (ttl < 0)
		cJSON_AddNullToObject(t, "ttl");
	else
		cJSON_AddNumberToObject(t, "ttl", ttl);
	cJSON_AddStringToObject(t, "createdAt", "2026-11-29T08:00:00Z");
	cJSON_AddStringToObject(t, "lastUpdatedAt", "2026-11-29T08:00:00Z");
	cJSON_AddNumberToObject(t, "pollInterval", 1000);
	return (t);
}

static struct task *
add(struct tasktab *tt, uint64_t principal, const char *up, const char *st,
    double ttl, uint64_t now)
{
	enum tasktab_refusal	 why;
	struct task		*t;
	cJSON			*o = task_obj(st, ttl);

	t = tasktab_add(tt, principal, rnd(), up, strlen(up), o, now, &why);
	cJSON_Delete(o);
	if (t != NULL)
		ck_assert_int_eq(why, TASKTAB_OK);
	return (t);
}

START_TEST(test_tasktab_owner_only)
{
	struct tasktab	*tt = tasktab_new(1, 8, 100);
	struct task	*a, *b;
	cJSON		*o, *id;

	a = add(tt, 1, "up-a", "working", 60000, 1000);
	b = add(tt, 2, "up-b", "working", 60000, 1000);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(strlen(a->id), TASKTAB_ID_LEN);
	ck_assert_str_ne(a->id, b->id);
	/* The owner finds it; another principal gets what a made-up id gets. */
	ck_assert_ptr_eq(tasktab_find(tt, 1, a->id, strlen(a->id)), a);
	ck_assert_ptr_null(tasktab_find(tt, 2, a->id, strlen(a->id)));
	ck_assert_ptr_null(tasktab_find(tt, 2, "0123456789abcdef0123456789abcdef",
	    TASKTAB_ID_LEN));
	ck_assert_ptr_null(tasktab_find(tt, 1, a->id, 5));
	/* The server's ids lead back to mcpd's. */
	ck_assert_ptr_eq(tasktab_find_up(tt, "up-b", 4), b);
	ck_assert_ptr_null(tasktab_find_up(tt, "up-c", 4));
	/* The kept Task carries mcpd's id, never the server's. */
	o = cJSON_Parse(a->last);
	id = cJSON_GetObjectItem(o, "taskId");
	ck_assert_str_eq(cJSON_GetStringValue(id), a->id);
	ck_assert_ptr_null(strstr(a->last, "server-id"));
	cJSON_Delete(o);
	tasktab_free(tt);
}
END_TEST

START_TEST(test_tasktab_status)
{
	struct tasktab	*tt = tasktab_new(2, 8, 100);
	struct task	*a, *b;
	cJSON		*o;

	a = add(tt, 1, "a", "working", 60000, 0);
	b = add(tt, 1, "b", "working", 60000, 0);
	ck_assert_uint_eq(tasktab_running(tt), 2);
	o = task_obj("input_required", 60000);
	tasktab_update(tt, a, o);
	cJSON_Delete(o);
	ck_assert_int_eq(a->status, TASK_INPUT_REQUIRED);
	ck_assert_uint_eq(tasktab_running(tt), 2);
	o = task_obj("completed", 60000);
	tasktab_update(tt, a, o);
	cJSON_Delete(o);
	ck_assert_uint_eq(tasktab_running(tt), 1);
	/* An ended task stays ended, whatever a server says later. */
	o = task_obj("working", 60000);
	tasktab_update(tt, a, o);
	cJSON_Delete(o);
	ck_assert_int_eq(a->status, TASK_COMPLETED);
	ck_assert_uint_eq(tasktab_running(tt), 1);
	/* An unknown status changes nothing. */
	o = task_obj("dancing", 60000);
	tasktab_update(tt, b, o);
	cJSON_Delete(o);
	ck_assert_int_eq(b->status, TASK_WORKING);
	/* Ended, a's result is still to be read; b's is never. */
	ck_assert_uint_eq(tasktab_unread(tt), 2);
	tasktab_set_read(tt, a);
	tasktab_set_read(tt, a);
	ck_assert_uint_eq(tasktab_unread(tt), 1);
	tasktab_remove(tt, b);
	ck_assert_uint_eq(tasktab_running(tt), 0);
	ck_assert_uint_eq(tasktab_unread(tt), 0);
	/* Born ended (a server that finished at once): unread. */
	ck_assert_ptr_nonnull(add(tt, 1, "c", "failed", 1, 0));
	ck_assert_uint_eq(tasktab_running(tt), 0);
	ck_assert_uint_eq(tasktab_unread(tt), 1);
	/* Cancelled: nothing left to read. */
	b = add(tt, 1, "d", "working", 1, 0);
	o = task_obj("cancelled", 60000);
	tasktab_update(tt, b, o);
	cJSON_Delete(o);
	ck_assert_uint_eq(tasktab_unread(tt), 1);
	ck_assert_int_eq(task_status_parse("cancelled"), TASK_CANCELLED);
	ck_assert_int_eq(task_status_parse("Cancelled"), -1);
	tasktab_free(tt);
}
END_TEST

START_TEST(test_tasktab_caps)
{
	struct tasktab		*tt = tasktab_new(3, 2, 3);
	enum tasktab_refusal	 why;
	struct task		*t;
	cJSON			*o = task_obj("working", 1000);
	char			 big[TASKTAB_UP_ID_MAX + 2];

	ck_assert_ptr_nonnull(add(tt, 1, "a", "working", 1000, 0));
	t = add(tt, 1, "b", "working", 1000, 0);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(tasktab_room(tt, 1), TASKTAB_PRINCIPAL_FULL);
	ck_assert_ptr_null(tasktab_add(tt, 1, rnd(), "c", 1, o, 0, &why));
	ck_assert_int_eq(why, TASKTAB_PRINCIPAL_FULL);
	ck_assert_ptr_nonnull(add(tt, 2, "d", "working", 1000, 0));
	ck_assert_int_eq(tasktab_room(tt, 3), TASKTAB_FULL);
	ck_assert_ptr_null(tasktab_add(tt, 3, rnd(), "e", 1, o, 0, &why));
	ck_assert_int_eq(why, TASKTAB_FULL);
	/* Room again once one goes; nothing was evicted to make it. */
	tasktab_remove(tt, t);
	ck_assert_int_eq(tasktab_room(tt, 1), TASKTAB_OK);
	ck_assert_uint_eq(tasktab_count(tt), 2);
	ck_assert_uint_eq(tasktab_count_principal(tt, 1), 1);
	/* Ids a server may not give. */
	ck_assert_ptr_null(tasktab_add(tt, 1, rnd(), "", 0, o, 0, &why));
	ck_assert_int_eq(why, TASKTAB_BAD_ID);
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_ptr_null(tasktab_add(tt, 1, rnd(), big, strlen(big), o, 0,
	    &why));
	ck_assert_int_eq(why, TASKTAB_BAD_ID);
	ck_assert_ptr_null(tasktab_add(tt, 1, rnd(), "a", 1, o, 0, &why));
	ck_assert_int_eq(why, TASKTAB_DUPLICATE);
	cJSON_Delete(o);
	tasktab_free(tt);
}
END_TEST

START_TEST(test_tasktab_expire)
{
	struct tasktab	*tt = tasktab_new(4, 8, 100);

	add(tt, 1, "short", "working", 1000, 0);
	add(tt, 1, "null", "working", -1, 0);
	add(tt, 1, "huge", "working", 1e300, 0);
	add(tt, 2, "long", "completed", 10000, 0);
	ck_assert_uint_eq(tasktab_expire(tt, 999), 0);
	ck_assert_uint_eq(tasktab_expire(tt, 1000), 1);
	ck_assert_ptr_null(tasktab_find_up(tt, "short", 5));
	ck_assert_uint_eq(tasktab_expire(tt, 10000), 1);
	/* null and the absurd are capped, not forever. */
	ck_assert_uint_eq(tasktab_expire(tt, TASKTAB_TTL_MAX_MS - 1), 0);
	ck_assert_uint_eq(tasktab_expire(tt, TASKTAB_TTL_MAX_MS), 2);
	ck_assert_uint_eq(tasktab_count(tt), 0);
	ck_assert_uint_eq(tasktab_mem(tt), 0);
	ck_assert_uint_eq(tasktab_running(tt), 0);
	tasktab_free(tt);
}
END_TEST

/* The ids in a tasks/list result, as one string. */
static void
page_ids(const cJSON *result, char *out, size_t size, size_t *n)
{
	const cJSON	*t;

	out[0] = '\0';
	*n = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItem(result, "tasks")) {
		strncat(out, cJSON_GetStringValue(cJSON_GetObjectItem(t,
		    "taskId")), size - strlen(out) - 1);
		(*n)++;
	}
}

START_TEST(test_tasktab_list)
{
	struct tasktab	*tt = tasktab_new(5, 200, 400);
	struct task	*mine[120], *other;
	cJSON		*r;
	const char	*cursor;
	char		 up[32], ids[120 * (TASKTAB_ID_LEN + 1)], want[sizeof ids];
	size_t		 i, n, seen = 0;

	for (i = 0; i < 120; i++) {
		snprintf(up, sizeof up, "m%zu", i);
		mine[i] = add(tt, 1, up, "working", 60000, 0);
		snprintf(up, sizeof up, "o%zu", i);
		other = add(tt, 2, up, "working", 60000, 0);
	}
	r = tasktab_list(tt, 1, NULL);
	for (;;) {
		page_ids(r, ids, sizeof ids, &n);
		ck_assert_uint_le(n, TASKTAB_PAGE);
		want[0] = '\0';
		for (i = seen; i < seen + n; i++)
			strcat(want, mine[i]->id);
		/* In the order made, the principal's own only. */
		ck_assert_str_eq(ids, want);
		seen += n;
		cursor = cJSON_GetStringValue(cJSON_GetObjectItem(r,
		    "nextCursor"));
		if (cursor == NULL)
			break;
		/* Another principal cannot page with it. */
		ck_assert_ptr_null(tasktab_list(tt, 2, cursor));
		{
			char	*c = xstrdup(cursor);

			cJSON_Delete(r);
			r = tasktab_list(tt, 1, c);
			free(c);
		}
		ck_assert_ptr_nonnull(r);
	}
	cJSON_Delete(r);
	ck_assert_uint_eq(seen, 120);
	ck_assert_ptr_null(tasktab_list(tt, 1, "not-a-cursor"));
	ck_assert_ptr_null(tasktab_list(tt, 1, other->id));
	/* Nothing of the server's ids in any of it. */
	r = tasktab_list(tt, 2, NULL);
	{
		char	*text = cJSON_PrintUnformatted(r);

		ck_assert_ptr_null(strstr(text, "server-id"));
		ck_assert_ptr_null(strstr(text, "\"o1\""));
		free(text);
	}
	cJSON_Delete(r);
	/* A principal with none: an empty page. */
	r = tasktab_list(tt, 9, NULL);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(r, "tasks")),
	    0);
	ck_assert_ptr_null(cJSON_GetObjectItem(r, "nextCursor"));
	cJSON_Delete(r);
	ck_assert_uint_eq(tasktab_drop_principal(tt, 1), 120);
	ck_assert_uint_eq(tasktab_count(tt), 120);
	tasktab_free(tt);
}
END_TEST

/* The running tasks of a page, one after the other; everyone's for ANYONE. */
START_TEST(test_tasktab_next_running)
{
	struct tasktab	*tt = tasktab_new(1, 200, 1000);
	struct task	*t, *first = NULL, *ended = NULL, *other;
	cJSON		*o, *list;
	char		 up[32];
	int		 i, n;

	for (i = 0; i < TASKTAB_PAGE + 5; i++) {
		snprintf(up, sizeof up, "up-%d", i);
		t = add(tt, 1, up, i % 2 == 0 ? "working" : "completed", 60000,
		    1000);
		ck_assert_ptr_nonnull(t);
		if (i == 0)
			first = t;
		if (i == 2)
			ended = t;
	}
	other = add(tt, 2, "other", "working", 60000, 1000);
	ck_assert_ptr_nonnull(other);
	/* Task 2 ends: the walk leaves it out. */
	o = task_obj("failed", 60000);
	tasktab_update(tt, ended, o);
	cJSON_Delete(o);
	/* The first page: its 50 tasks, of which 0, 4, 6 ... 48 run. */
	n = 0;
	for (t = tasktab_next_running(tt, 1, NULL, NULL); t != NULL;
	    t = tasktab_next_running(tt, 1, NULL, t)) {
		ck_assert_int_eq(t->principal, 1);
		ck_assert(t != ended);
		ck_assert(!task_status_ended(t->status));
		n++;
	}
	ck_assert_int_eq(n, 24);
	ck_assert_ptr_eq(tasktab_next_running(tt, 1, NULL, NULL), first);
	/* The second page starts after the first's last (up-49). */
	list = tasktab_list(tt, 1, NULL);
	t = tasktab_next_running(tt, 1, cJSON_GetStringValue(
	    cJSON_GetObjectItem(list, "nextCursor")), NULL);
	cJSON_Delete(list);
	ck_assert_ptr_nonnull(t);
	ck_assert_str_eq(t->up_id, "up-50");
	/* Another's cursor names no page of principal 1's. */
	ck_assert_ptr_null(tasktab_next_running(tt, 1, other->id, NULL));
	/* Anyone: found by any id, listed all together. */
	ck_assert_ptr_eq(tasktab_find(tt, TASKTAB_ANYONE, other->id,
	    TASKTAB_ID_LEN), other);
	ck_assert_ptr_null(tasktab_find(tt, 1, other->id, TASKTAB_ID_LEN));
	list = tasktab_list(tt, TASKTAB_ANYONE, NULL);
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(list,
	    "tasks")), TASKTAB_PAGE);
	cJSON_Delete(list);
	tasktab_free(tt);
}
END_TEST

/* A call's progress token outlives the call, and goes with the task. */
START_TEST(test_tasktab_progress)
{
	struct tasktab	*tt = tasktab_new(1, 8, 100);
	struct task	*a, *b;
	size_t		 mem;

	a = add(tt, 1, "up-a", "working", 60000, 1000);
	b = add(tt, 1, "up-b", "working", 60000, 1000);
	mem = tasktab_mem(tt);
	ck_assert_ptr_null(tasktab_find_progress(tt, 7));
	tasktab_set_progress(tt, a, 7, "\"tok\"", 5);
	tasktab_set_progress(tt, b, 8, "12", 2);
	ck_assert_uint_eq(tasktab_mem(tt), mem + 7);
	ck_assert_ptr_eq(tasktab_find_progress(tt, 7), a);
	ck_assert_ptr_eq(tasktab_find_progress(tt, 8), b);
	ck_assert_str_eq(a->progress_token, "\"tok\"");
	ck_assert_uint_eq(a->progress_len, 5);
	tasktab_remove(tt, a);
	ck_assert_ptr_null(tasktab_find_progress(tt, 7));
	ck_assert_ptr_eq(tasktab_find_progress(tt, 8), b);
	tasktab_free(tt);
}
END_TEST

/* A message naming a task: every place, or nothing to do. */
START_TEST(test_task_id_replace)
{
	char	*s;

	s = task_id_replace("task up-1 and up-1.", "up-1", "abc");
	ck_assert_str_eq(s, "task abc and abc.");
	free(s);
	ck_assert_ptr_null(task_id_replace("no id here", "up-1", "abc"));
	ck_assert_ptr_null(task_id_replace("any", "", "abc"));
}
END_TEST

START_TEST(test_tasktab_large_status)
{
	struct tasktab	*tt = tasktab_new(6, 8, 100);
	struct task	*t;
	cJSON		*o;
	char		*msg;
	size_t		 mem;

	t = add(tt, 1, "a", "working", 60000, 0);
	mem = tasktab_mem(tt);
	msg = xmalloc(TASKTAB_TASK_MAX_BYTES * 4);
	memset(msg, 'm', TASKTAB_TASK_MAX_BYTES * 4 - 1);
	msg[TASKTAB_TASK_MAX_BYTES * 4 - 1] = '\0';
	o = task_obj("working", 60000);
	cJSON_AddStringToObject(o, "statusMessage", msg);
	cJSON_AddStringToObject(o, "extra", msg);
	tasktab_update(tt, t, o);
	cJSON_Delete(o);
	free(msg);
	/* Kept within bounds: no statusMessage, no unknown members. */
	ck_assert_uint_le(strlen(t->last), TASKTAB_TASK_MAX_BYTES);
	ck_assert_ptr_null(strstr(t->last, "extra"));
	ck_assert_uint_le(tasktab_mem(tt), mem + 64);
	tasktab_free(tt);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("tasktab");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_tasktab_owner_only);
	tcase_add_test(tc, test_tasktab_status);
	tcase_add_test(tc, test_tasktab_caps);
	tcase_add_test(tc, test_tasktab_expire);
	tcase_add_test(tc, test_tasktab_list);
	tcase_add_test(tc, test_tasktab_large_status);
	tcase_add_test(tc, test_tasktab_next_running);
	tcase_add_test(tc, test_tasktab_progress);
	tcase_add_test(tc, test_task_id_replace);
	suite_add_tcase(s, tc);
	return (s);
}
