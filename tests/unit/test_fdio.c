/*
 * test_fdio.c -- unit tests for the small fd helpers (write-all, the
 * sealed memfd, a read into a framer) and the growing buffer, secrets
 * and bounds included.
 */

#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "frame.h"
#include "sbuf.h"
#include "unit.h"
#include "util.h"

/* More than a pipe holds at once: the writer must go on after a short write. */
#define TEST_BIG_BYTES	(256 * 1024)

START_TEST(test_write_all_big)
{
	char	*buf = malloc(TEST_BIG_BYTES), *got = malloc(TEST_BIG_BYTES);
	int	 p[2], status;
	size_t	 n = 0;
	ssize_t	 r;
	pid_t	 pid;

	ck_assert_int_eq(pipe(p), 0);
	for (size_t i = 0; i < TEST_BIG_BYTES; i++)
		buf[i] = (char)('a' + i % 26);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(p[0]);
		_exit(fdio_write_all(p[1], buf, TEST_BIG_BYTES) == 0 ? 0 : 1);
	}
	close(p[1]);
	while ((r = read(p[0], got + n, TEST_BIG_BYTES - n)) > 0)
		n += (size_t)r;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(n, TEST_BIG_BYTES);
	ck_assert(memcmp(buf, got, n) == 0);
	close(p[0]);
	free(buf);
	free(got);
}
END_TEST

START_TEST(test_write_all_closed)
{
	int	 p[2];

	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(fdio_write_all(p[1], "x", 1), -1);
	ck_assert_int_eq(errno, EPIPE);
	close(p[1]);
}
END_TEST

START_TEST(test_sealed_memfd)
{
	char	*cause = NULL, got[32];
	int	 fd;

	fd = fdio_sealed_memfd("test", "the text", "hello", 5, &cause);
	ck_assert_int_ge(fd, 0);
	/* Read from the start, and sealed: no write, no growth. */
	ck_assert_int_eq(read(fd, got, sizeof got), 5);
	ck_assert(memcmp(got, "hello", 5) == 0);
	ck_assert_int_eq(write(fd, "x", 1), -1);
	ck_assert_int_eq(ftruncate(fd, 100), -1);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	close(fd);
}
END_TEST

START_TEST(test_read_frame)
{
	struct frame	*f = frame_new(1024);
	struct frame_msg m;
	size_t		 avail = 0;
	int		 p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "one\ntw", 6), 6);
	ck_assert_int_eq(fdio_read_frame(p[0], f, &avail), 6);
	ck_assert_uint_ge(avail, FRAME_READ_CHUNK_BYTES);
	ck_assert_int_eq(frame_next(f, &m), FRAME_LINE);
	ck_assert_uint_eq(m.len, 3);
	ck_assert(memcmp(m.line, "one", 3) == 0);
	ck_assert_int_eq(frame_next(f, &m), FRAME_NONE);
	close(p[1]);
	ck_assert_int_eq(fdio_read_frame(p[0], f, NULL), 0);	/* end of file */
	ck_assert_uint_eq(frame_buffered(f), 2);		/* "tw" kept */
	close(p[0]);
	frame_free(f);
}
END_TEST

START_TEST(test_sbuf_secret)
{
	struct sbuf	 b = { 0 };

	for (int i = 0; i < 100; i++)
		sbuf_add_secret(&b, "secret", 6);	/* grows several times */
	ck_assert_uint_eq(b.len, 600);
	ck_assert_uint_eq(strlen(b.p), 600);
	ck_assert(memcmp(b.p + 594, "secret", 6) == 0);
	sbuf_wipe(&b);
	ck_assert_ptr_null(b.p);
	ck_assert_uint_eq(b.len, 0);
	ck_assert_uint_eq(b.cap, 0);
	sbuf_adds(&b, "plain");
	ck_assert_str_eq(b.p, "plain");
	free(b.p);
}
END_TEST

START_TEST(test_read_all)
{
	struct sbuf	 b = { 0 };
	char		 big[20000];
	int		 fd;

	/* Nothing read: still a string. */
	fd = fdio_sealed_memfd("test", "nothing", "", 0, &(char *){ NULL });
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdio_read_all(fd, 10, &b), 0);
	ck_assert_ptr_nonnull(b.p);
	ck_assert_str_eq(b.p, "");
	close(fd);
	/* More than one chunk, exactly at the limit. */
	memset(big, 'x', sizeof big);
	fd = fdio_sealed_memfd("test", "big", big, sizeof big,
	    &(char *){ NULL });
	ck_assert_int_eq(fdio_read_all(fd, sizeof big, &b), 0);
	ck_assert_uint_eq(b.len, sizeof big);
	ck_assert_uint_eq(strlen(b.p), sizeof big);
	close(fd);
	free(b.p);
	/* One byte over: EFBIG. */
	memset(&b, 0, sizeof b);
	fd = fdio_sealed_memfd("test", "big", big, sizeof big,
	    &(char *){ NULL });
	errno = 0;
	ck_assert_int_eq(fdio_read_all(fd, sizeof big - 1, &b), -1);
	ck_assert_int_eq(errno, EFBIG);
	close(fd);
	free(b.p);
}
END_TEST

START_TEST(test_sbuf_printf)
{
	struct sbuf	 b = { 0 };
	char		 long_text[3000];

	sbuf_printf(&b, "%s=%d;", "a", 1);
	memset(long_text, 'y', sizeof long_text - 1);
	long_text[sizeof long_text - 1] = '\0';
	sbuf_printf(&b, "%s", long_text);		/* grows */
	ck_assert_uint_eq(b.len, 4 + sizeof long_text - 1);
	ck_assert_uint_eq(strlen(b.p), b.len);
	ck_assert(memcmp(b.p, "a=1;yyy", 7) == 0);
	free(b.p);
}
END_TEST

/* Unbounded, a buffer grows to twice what it needs, as it always has. */
START_TEST(test_sbuf_unbounded)
{
	struct sbuf	 b = { 0 };

	sbuf_add(&b, "abc", 3);
	ck_assert_uint_eq(b.cap, 8);
	sbuf_add(&b, "defg", 4);			/* fits */
	ck_assert_uint_eq(b.cap, 8);
	sbuf_add(&b, "h", 1);
	ck_assert_uint_eq(b.cap, 18);
	ck_assert_str_eq(b.p, "abcdefgh");
	free(b.p);

	/* SIZE_MAX is no bound at all. */
	memset(&b, 0, sizeof b);
	sbuf_bound(&b, SIZE_MAX);
	ck_assert_uint_eq(b.lim, 0);
	sbuf_add(&b, "abc", 3);
	ck_assert_uint_eq(b.cap, 8);
	free(b.p);

	/* sbuf_init starts unbounded, whatever was there. */
	b.lim = 5;
	sbuf_init(&b, 2);
	ck_assert_uint_eq(b.lim, 0);
	sbuf_adds(&b, "longer than five");
	ck_assert_str_eq(b.p, "longer than five");
	free(b.p);
}
END_TEST

/* Bounded, the capacity never passes max + 1, however it is filled. */
START_TEST(test_sbuf_bounded)
{
	struct sbuf	 b = { 0 };
	char		 fill[100];
	size_t		 i, max = sizeof fill;

	memset(fill, 'x', sizeof fill);
	/* A byte at a time, up to the bound. */
	sbuf_bound(&b, max);
	for (i = 0; i < max; i++) {
		sbuf_add(&b, fill, 1);
		ck_assert_uint_le(b.cap, max + 1);
		ck_assert_uint_gt(b.cap, b.len);
	}
	ck_assert_uint_eq(b.len, max);
	ck_assert_uint_eq(b.cap, max + 1);
	ck_assert_uint_eq(strlen(b.p), max);
	/* Emptied, it fills again without growing. */
	b.len = 0;
	sbuf_add(&b, fill, max);
	ck_assert_uint_eq(b.cap, max + 1);
	free(b.p);

	/* From 64 bytes it doubles, then stops at the bound. */
	memset(&b, 0, sizeof b);
	sbuf_bound(&b, 300);
	sbuf_add(&b, fill, 9);
	ck_assert_uint_eq(b.cap, 64);
	sbuf_add(&b, fill, 60);
	ck_assert_uint_eq(b.cap, 128);
	sbuf_add(&b, fill, 100);
	ck_assert_uint_eq(b.cap, 256);
	sbuf_add(&b, fill, 100);
	ck_assert_uint_eq(b.cap, 301);
	sbuf_add(&b, fill, 31);
	ck_assert_uint_eq(b.cap, 301);
	ck_assert_uint_eq(b.len, 300);
	free(b.p);

	/* A bound below 64 is the first allocation. */
	memset(&b, 0, sizeof b);
	sbuf_bound(&b, 10);
	sbuf_add(&b, "a", 1);
	ck_assert_uint_eq(b.cap, 11);
	free(b.p);

	/* Printed and secret bytes keep to it too. */
	memset(&b, 0, sizeof b);
	sbuf_bound(&b, max);
	sbuf_printf(&b, "%.*s", 70, fill);
	ck_assert_uint_eq(b.cap, max + 1);
	ck_assert_uint_eq(b.len, 70);
	ck_assert_uint_eq(strlen(b.p), 70);
	free(b.p);
	memset(&b, 0, sizeof b);
	sbuf_bound(&b, max);
	for (i = 0; i < max / 4; i++) {
		sbuf_add_secret(&b, "abcd", 4);
		ck_assert_uint_le(b.cap, max + 1);
	}
	ck_assert_uint_eq(b.len, max);
	sbuf_wipe(&b);
	ck_assert_uint_eq(b.lim, max + 1);		/* the bound is kept */

	/* A bound of 0: only the NUL. */
	sbuf_bound(&b, 0);
	sbuf_add(&b, "", 0);
	ck_assert_uint_eq(b.cap, 1);
	ck_assert_str_eq(b.p, "");
	free(b.p);
}
END_TEST

/* Adding past the bound is the caller's bug: it aborts. */
START_TEST(test_sbuf_past_bound)
{
	struct sbuf	 b = { 0 };

	sbuf_bound(&b, 4);
	sbuf_add(&b, "abcd", 4);
	sbuf_add(&b, "e", 1);
}
END_TEST

/* util.h's bytes_has: every place, the edges, any anchor. */
START_TEST(test_bytes_has)
{
	const char	*n = "io.x/related-task";
	char		 hay[64];
	size_t		 nl = strlen(n), at, a;

	for (a = 0; a < nl; a++) {
		for (at = 0; at + nl <= sizeof hay; at++) {
			memset(hay, '/', sizeof hay);
			memcpy(hay + at, n, nl);
			ck_assert_int_eq(bytes_has(hay, sizeof hay, n, nl, a), 1);
			/* Cut one byte short of it: not there. */
			ck_assert_int_eq(bytes_has(hay, at + nl - 1, n, nl, a),
			    0);
		}
	}
	ck_assert_int_eq(bytes_has("ab", 2, "abc", 3, 0), 0);
	ck_assert_int_eq(bytes_has("ab", 2, "", 0, 0), 1);
	ck_assert_int_eq(bytes_has("a\\u0074", 7, "\\u", 2, 0), 1);
	ck_assert_int_eq(bytes_has("{\"task\":{}}", 11, "\"task\"", 6, 4), 1);
	ck_assert_int_eq(bytes_has("{\"tasks\":{}}", 12, "\"task\"", 6, 4),
	    0);
}
END_TEST

/* mkdir -p: the parents made with the mode, an existing one fine. */
START_TEST(test_mkdirs)
{
	char		 base[] = "/tmp/test_fdio.XXXXXX", path[256], file[300];
	struct stat	 st;
	int		 fd;

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(path, sizeof path, "%s/a/b/c", base);
	ck_assert_int_eq(fdio_mkdirs(path, 0700), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0700);
	ck_assert_int_eq(fdio_mkdirs(path, 0700), 0);
	/* A file in the way: its error. */
	snprintf(file, sizeof file, "%s/a/f", base);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(file, sizeof file, "%s/a/f/g", base);
	ck_assert_int_eq(fdio_mkdirs(file, 0700), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	unlink(path);
	snprintf(file, sizeof file, "rm -rf '%s'", base);
	ck_assert_int_eq(system(file), 0);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("fdio");
	tc = tcase_create("fdio");
	tcase_add_test(tc, test_write_all_big);
	tcase_add_test(tc, test_write_all_closed);
	tcase_add_test(tc, test_sealed_memfd);
	tcase_add_test(tc, test_read_frame);
	tcase_add_test(tc, test_sbuf_secret);
	tcase_add_test(tc, test_mkdirs);
	tcase_add_test(tc, test_read_all);
	tcase_add_test(tc, test_sbuf_printf);
	tcase_add_test(tc, test_sbuf_unbounded);
	tcase_add_test(tc, test_sbuf_bounded);
	tcase_add_test(tc, test_bytes_has);
	tcase_add_test_raise_signal(tc, test_sbuf_past_bound, SIGABRT);
	suite_add_tcase(s, tc);
	return (s);
}
