/*
 * test_principal.c -- unit tests for the bridges' principals
 * (daemon/principal.c): the same secret from the same user is the same
 * principal, from another user or unknown it is a new one that tells
 * nothing of it, a user's cap, forgetting the unused, and a re-exec's
 * round trip through the handover state.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "handover.h"
#include "mcpd.h"
#include "principal.h"
#include "unit.h"

static uint64_t	now_us = 1000000;

static uint64_t
test_mono_us(void)
{
	return (now_us);
}

static const struct clock_source test_clock = { test_mono_us, NULL };

static struct mcpd	M;

static void
setup(void)
{
	memset(&M, 0, sizeof M);
	now_us = 1000000;
	clock_use(&test_clock);
}

static void
teardown(void)
{
	principal_free_all(&M);
	clock_use(NULL);
}

START_TEST(test_principal_same_secret_same_principal)
{
	char		 a[PRINCIPAL_HEX_LEN + 1], b[PRINCIPAL_HEX_LEN + 1];
	uint64_t	 id, again;

	id = principal_claim(&M, 1000, NULL, a);
	ck_assert_uint_ge(id, PRINCIPAL_ID_BASE);
	ck_assert_uint_eq(strlen(a), PRINCIPAL_HEX_LEN);
	ck_assert_uint_eq(strspn(a, "0123456789abcdef"), PRINCIPAL_HEX_LEN);
	again = principal_claim(&M, 1000, a, b);
	ck_assert_uint_eq(again, id);
	ck_assert_str_eq(a, b);
	/* Two connections at once share it. */
	ck_assert_uint_eq(principal_count(&M), 1);
}
END_TEST

START_TEST(test_principal_other_user_or_unknown)
{
	char		 a[PRINCIPAL_HEX_LEN + 1], b[PRINCIPAL_HEX_LEN + 1];
	char		 c[PRINCIPAL_HEX_LEN + 1];
	uint64_t	 id, other, made_up, bad;

	id = principal_claim(&M, 1000, NULL, a);
	/* Another user presenting it gets a principal of its own. */
	other = principal_claim(&M, 1001, a, b);
	ck_assert_uint_ne(other, 0);
	ck_assert_uint_ne(other, id);
	ck_assert_str_ne(a, b);
	/* The same user, a secret never given: new, as for none. */
	made_up = principal_claim(&M, 1000,
	    "0123456789abcdef0123456789abcdef", c);
	ck_assert_uint_ne(made_up, id);
	ck_assert_str_ne(c, "0123456789abcdef0123456789abcdef");
	/* Malformed: upper case, short, long, not hex. */
	bad = principal_claim(&M, 1000, "0123456789ABCDEF0123456789ABCDEF", c);
	ck_assert_uint_ne(bad, id);
	ck_assert_uint_ne(principal_claim(&M, 1000, "0123", c), id);
	ck_assert_uint_ne(principal_claim(&M, 1000,
	    "0123456789abcdef0123456789abcdef0", c), id);
	ck_assert_uint_ne(principal_claim(&M, 1000,
	    "0123456789abcdef0123456789abcdeg", c), id);
	/* The owner still has its own. */
	ck_assert_uint_eq(principal_claim(&M, 1000, a, c), id);
}
END_TEST

START_TEST(test_principal_cap_per_user)
{
	char	 hex[PRINCIPAL_HEX_LEN + 1];
	size_t	 i;

	for (i = 0; i < PRINCIPAL_MAX_PER_UID; i++)
		ck_assert_uint_ne(principal_claim(&M, 1000, NULL, hex), 0);
	/* At the cap: the connection stays its own principal. */
	ck_assert_uint_eq(principal_claim(&M, 1000, NULL, hex), 0);
	/* Another user is not held back by it. */
	ck_assert_uint_ne(principal_claim(&M, 1001, NULL, hex), 0);
}
END_TEST

START_TEST(test_principal_forgotten_when_unused)
{
	char		 a[PRINCIPAL_HEX_LEN + 1], b[PRINCIPAL_HEX_LEN + 1];
	uint64_t	 id;

	id = principal_claim(&M, 1000, NULL, a);
	/* In use, it is never forgotten. */
	now_us += (PRINCIPAL_KEEP_MS + 1000) * 1000;
	ck_assert_uint_eq(principal_claim(&M, 1000, a, b), id);
	principal_release(&M, id);
	principal_release(&M, id);
	/* Unused for a little less than the time: kept. */
	now_us += (PRINCIPAL_KEEP_MS - 1000) * 1000;
	ck_assert_uint_eq(principal_claim(&M, 1000, a, b), id);
	principal_release(&M, id);
	/* Unused for the time: forgotten, a new one given. */
	now_us += PRINCIPAL_KEEP_MS * 1000;
	ck_assert_uint_ne(principal_claim(&M, 1000, a, b), id);
	ck_assert_str_ne(a, b);
}
END_TEST

START_TEST(test_principal_reexec)
{
	struct handover	 h, back;
	struct mcpd	 next;
	char		 a[PRINCIPAL_HEX_LEN + 1], b[PRINCIPAL_HEX_LEN + 1];
	char		*text, *cause;
	uint64_t	 id, id2;

	id = principal_claim(&M, 1000, NULL, a);
	id2 = principal_claim(&M, 1001, NULL, b);
	principal_release(&M, id2);
	handover_init(&h);
	h.listen_fd = 3;
	h.config_file = strdup("/etc/mcpd.json");
	h.socket_path = strdup("/run/mcpd.sock");
	principal_export(&M, &h);
	ck_assert_uint_eq(h.nprincipals, 2);
	text = handover_print(&h);
	handover_free(&h);
	ck_assert_int_eq(handover_parse(text, strlen(text), &back, &cause), 0);
	free(text);
	memset(&next, 0, sizeof next);
	principal_adopt(&next, &back);
	handover_free(&back);
	/* The bridges come back to the same principals. */
	ck_assert_uint_eq(principal_claim(&next, 1000, a, a), id);
	ck_assert_uint_eq(principal_claim(&next, 1001, b, b), id2);
	/* And a new one is numbered past them. */
	ck_assert_uint_gt(principal_claim(&next, 1002, NULL, a), id2);
	principal_free_all(&next);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("principal");
	TCase	*tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_principal_same_secret_same_principal);
	tcase_add_test(tc, test_principal_other_user_or_unknown);
	tcase_add_test(tc, test_principal_cap_per_user);
	tcase_add_test(tc, test_principal_forgotten_when_unused);
	tcase_add_test(tc, test_principal_reexec);
	suite_add_tcase(s, tc);
	return (s);
}
