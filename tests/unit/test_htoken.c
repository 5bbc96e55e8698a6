/*
 * test_htoken.c -- unit tests for the HTTP front's token store
 * (src/htoken.c): what htokens_format writes, htokens_read reads back
 * from its file; no file is an empty store; a bad line is named and
 * nothing of the store is kept.
 */

#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "htoken.h"
#include "unit.h"

static void
write_file(const char *path, const char *text)
{
	int	 fd;

	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdio_write_all(fd, text, strlen(text)), 0);
	close(fd);
}

START_TEST(test_htoken_read)
{
	char		 base[] = "/tmp/test_htoken.XXXXXX", path[128], *text;
	char		 hash[HTOKEN_HASH_HEX];
	struct htokens	 ts, back;
	size_t		 line = 0;

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(path, sizeof path, "%s/http-tokens", base);

	/* No file yet: an empty store. */
	ck_assert_int_eq(htokens_read(path, &ts, &line), 0);
	ck_assert_uint_eq(ts.n, 0);

	/* What is written reads back. */
	htoken_hash("mcpd_secret", hash);
	htokens_add(&ts, "app", hash, 100, 0, NULL);
	htoken_hash("mcpd_other", hash);
	htokens_add(&ts, "ci", hash, 200, 300, "fake,dev");
	text = htokens_format(&ts);
	write_file(path, text);
	free(text);
	ck_assert_int_eq(htokens_read(path, &back, &line), 0);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_str_eq(back.v[1].name, "ci");
	ck_assert_uint_eq(back.v[1].nservers, 2);
	ck_assert_ptr_eq(htokens_check(&back, "mcpd_secret", 250), &back.v[0]);
	ck_assert_ptr_eq(htokens_check(&back, "mcpd_other", 250), &back.v[1]);
	ck_assert_ptr_null(htokens_check(&back, "mcpd_other", 350));
	htokens_free(&back);
	htokens_free(&ts);

	/* A bad line: its number, and nothing kept. */
	write_file(path, "# comment\nnot a token\n");
	ck_assert_int_eq(htokens_read(path, &back, &line), -2);
	ck_assert_uint_eq(line, 2);
	ck_assert_uint_eq(back.n, 0);
	ck_assert_ptr_null(back.v);

	/* Not a file that can be read. */
	ck_assert_int_eq(htokens_read(base, &back, &line), -1);
	ck_assert_uint_eq(back.n, 0);

	unlink(path);
	rmdir(base);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("htoken");
	TCase	*tc = tcase_create("core");

	tcase_add_test(tc, test_htoken_read);
	suite_add_tcase(s, tc);
	return (s);
}
