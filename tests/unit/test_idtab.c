/*
 * test_idtab.c -- unit tests for the table of increasing ids: order of
 * operations, ids never put, entries far older than the rest, gaps,
 * growth past the ring's limit, and a random run against a plain model.
 */

#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "idtab.h"
#include "unit.h"

/* Distinct non-NULL values: the address of an element of this array. */
static char	values[40000];

#define V(i)	((void *)&values[(i) % sizeof values])

START_TEST(test_idtab_basic)
{
	struct idtab	*t = idtab_new();
	int64_t		 i;

	ck_assert_ptr_null(idtab_get(t, 1));
	ck_assert_ptr_null(idtab_del(t, 1));
	for (i = 1; i <= 10; i++)
		idtab_put(t, i, V(i));
	ck_assert_uint_eq(idtab_count(t), 10);
	for (i = 1; i <= 10; i++)
		ck_assert_ptr_eq(idtab_get(t, i), V(i));
	/* Never put: before, after, negative, far away. */
	ck_assert_ptr_null(idtab_get(t, 0));
	ck_assert_ptr_null(idtab_get(t, 11));
	ck_assert_ptr_null(idtab_get(t, -1));
	ck_assert_ptr_null(idtab_get(t, INT64_MIN));
	ck_assert_ptr_null(idtab_get(t, INT64_MAX));
	ck_assert_ptr_null(idtab_get(t, 10 + IDTAB_RING_MIN));
	ck_assert_ptr_null(idtab_del(t, 11));
	ck_assert_ptr_eq(idtab_del(t, 5), V(5));
	ck_assert_ptr_null(idtab_del(t, 5));
	ck_assert_ptr_null(idtab_get(t, 5));
	ck_assert_uint_eq(idtab_count(t), 9);
	idtab_free(t);
}
END_TEST

/* One request stays while a million others come and go around it. */
START_TEST(test_idtab_straggler)
{
	struct idtab	*t = idtab_new();
	int64_t		 i;

	idtab_put(t, 1, V(1));
	for (i = 2; i <= 1000000; i++) {
		idtab_put(t, i, V(i));
		if (i > 9)
			ck_assert_ptr_eq(idtab_del(t, i - 8), V(i - 8));
	}
	ck_assert_ptr_eq(idtab_get(t, 1), V(1));
	ck_assert_uint_eq(idtab_count(t), 1 + 8);
	ck_assert_ptr_eq(idtab_del(t, 1), V(1));
	ck_assert_ptr_null(idtab_get(t, 1));
	ck_assert_uint_eq(idtab_count(t), 8);
	idtab_free(t);
}
END_TEST

/* Ids skipped (used for something else) and big jumps. */
START_TEST(test_idtab_gaps)
{
	static const int64_t	 ids[] = { 1, 3, 100, 101, 5000, 5001,
	    1000000, INT64_MAX - 1, INT64_MAX };
	struct idtab		*t = idtab_new();
	size_t			 i;

	for (i = 0; i < sizeof ids / sizeof ids[0]; i++)
		idtab_put(t, ids[i], V(i));
	for (i = 0; i < sizeof ids / sizeof ids[0]; i++)
		ck_assert_ptr_eq(idtab_get(t, ids[i]), V(i));
	ck_assert_ptr_null(idtab_get(t, 2));
	ck_assert_ptr_null(idtab_get(t, INT64_MAX - 2));
	for (i = 0; i < sizeof ids / sizeof ids[0]; i++)
		ck_assert_ptr_eq(idtab_del(t, ids[i]), V(i));
	ck_assert_uint_eq(idtab_count(t), 0);
	idtab_free(t);
}
END_TEST

/* More in flight than the ring may ever hold: the rest is found too. */
START_TEST(test_idtab_many)
{
	struct idtab	*t = idtab_new();
	int64_t		 i, n = 3 * IDTAB_RING_MAX;

	for (i = 1; i <= n; i++)
		idtab_put(t, i, V(i));
	ck_assert_uint_eq(idtab_count(t), (size_t)n);
	for (i = 1; i <= n; i++)
		ck_assert_ptr_eq(idtab_get(t, i), V(i));
	/* Every other one, then the rest, oldest and newest alike. */
	for (i = 1; i <= n; i += 2)
		ck_assert_ptr_eq(idtab_del(t, i), V(i));
	for (i = n; i >= 1; i--) {
		if (i % 2 == 0)
			ck_assert_ptr_eq(idtab_del(t, i), V(i));
		else
			ck_assert_ptr_null(idtab_get(t, i));
	}
	ck_assert_uint_eq(idtab_count(t), 0);
	idtab_free(t);
}
END_TEST

/* A random run against a model: an array indexed by id. */
START_TEST(test_idtab_model)
{
	enum { N = 30000 };
	static void	*model[N + 1];
	struct idtab	*t = idtab_new();
	int64_t		 next = 1, id;
	size_t		 live = 0, op;
	void		*got;

	srandom(12345);
	for (op = 0; op < 400000; op++) {
		switch (random() % 4) {
		case 0:
		case 1:
			if (next > N)
				break;
			idtab_put(t, next, V(next));
			model[next] = V(next);
			live++;
			/* Sometimes an id goes to something else. */
			next += random() % 8 == 0 ? 1 + random() % 100 : 1;
			break;
		case 2:
			/* Mostly recent ids, sometimes any. */
			id = random() % 4 ? next - 1 - random() % 200 :
			    random() % (N + 2);
			if (id < 1 || id > N)
				break;
			got = idtab_del(t, id);
			ck_assert_ptr_eq(got, model[id]);
			if (model[id] != NULL)
				live--;
			model[id] = NULL;
			break;
		case 3:
			id = random() % (N + 2);
			if (id < 1 || id > N)
				ck_assert_ptr_null(idtab_get(t, id));
			else
				ck_assert_ptr_eq(idtab_get(t, id), model[id]);
			break;
		}
		ck_assert_uint_eq(idtab_count(t), live);
	}
	for (id = 1; id <= N; id++)
		ck_assert_ptr_eq(idtab_get(t, id), model[id]);
	idtab_free(t);
}
END_TEST

/* Ids must increase: a caller that breaks this is stopped at once. */
START_TEST(test_idtab_not_increasing)
{
	struct idtab	*t = idtab_new();

	idtab_put(t, 5, V(5));
	idtab_put(t, 5, V(6));
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("idtab");
	tc = tcase_create("idtab");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_idtab_basic);
	tcase_add_test(tc, test_idtab_straggler);
	tcase_add_test(tc, test_idtab_gaps);
	tcase_add_test(tc, test_idtab_many);
	tcase_add_test(tc, test_idtab_model);
	tcase_add_test_raise_signal(tc, test_idtab_not_increasing, SIGABRT);
	suite_add_tcase(s, tc);
	return (s);
}
