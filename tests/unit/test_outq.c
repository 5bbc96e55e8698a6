/*
 * test_outq.c -- when output queues write: at the end of the batch a read
 * callback opens, or from the event activated outside one; and a queue
 * stopped or freed while it waits for its batch's end is forgotten.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "budget.h"
#include "conf.h"
#include "log.h"
#include "mcpd.h"
#include "outq.h"
#include "unit.h"

/* outq.c calls this only when a queue cannot be copied. */
void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	abort();
}

struct side {
	int	 fd[2];		/* fd[0] the queue's, fd[1] the reader's */
	size_t	 written;	/* what `written' last reported left */
	int	 calls;
	int	 failed;
};

static struct {
	struct mcpd	 mcpd;
	struct side	 a, b;
} F;

static void
side_written(void *arg, size_t left)
{
	struct side	*s = arg;

	s->written = left;
	s->calls++;
}

static void
side_failed(void *arg, int error)
{
	struct side	*s = arg;

	s->failed = error;
}

static const struct outq_cb side_cb = { side_written, side_failed };

static void
side_open(struct side *s)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, s->fd), 0);
	ck_assert_int_ne(fcntl(s->fd[0], F_SETFL, O_NONBLOCK), -1);
	ck_assert_int_ne(fcntl(s->fd[1], F_SETFL, O_NONBLOCK), -1);
}

/* What the reader's end holds now, as a string ("" when nothing). */
static const char *
side_read(struct side *s)
{
	static char	 buf[4096];
	ssize_t		 n;

	n = read(s->fd[1], buf, sizeof buf - 1);
	if (n == -1 && errno == EAGAIN)
		n = 0;
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	return (buf);
}

static void
add(struct outq *q, const char *text)
{
	struct iovec	 iov = { (void *)(uintptr_t)text, strlen(text) };

	outq_add(q, &iov, 1);
}

static void
setup(void)
{
	static struct conf	 conf;

	memset(&F, 0, sizeof F);
	conf.memory_budget_bytes = 1 << 30;
	F.mcpd.conf = &conf;
	F.mcpd.base = event_base_new();
	ck_assert_ptr_nonnull(F.mcpd.base);
	side_open(&F.a);
	side_open(&F.b);
}

static void
teardown(void)
{
	close(F.a.fd[0]);
	close(F.a.fd[1]);
	close(F.b.fd[0]);
	close(F.b.fd[1]);
	event_base_free(F.mcpd.base);
}

/* One turn of the loop, without waiting. */
static void
turn(void)
{
	event_base_loop(F.mcpd.base, EVLOOP_NONBLOCK);
}

START_TEST(test_outq_unbatched_waits_for_the_loop)
{
	struct outq	*q = outq_new(&F.mcpd, F.a.fd[0], &side_cb, &F.a);

	add(q, "one");
	add(q, "two");
	ck_assert_str_eq(side_read(&F.a), "");
	turn();
	ck_assert_str_eq(side_read(&F.a), "one\ntwo\n");
	ck_assert_int_eq(F.a.calls, 1);
	ck_assert_uint_eq(F.a.written, 0);
	outq_free(q);
}
END_TEST

START_TEST(test_outq_batch_writes_at_its_end)
{
	struct outq	*qa = outq_new(&F.mcpd, F.a.fd[0], &side_cb, &F.a);
	struct outq	*qb = outq_new(&F.mcpd, F.b.fd[0], &side_cb, &F.b);
	int		 opened = outq_batch_begin(), inner;

	ck_assert_int_eq(opened, 1);
	add(qa, "a1");
	add(qb, "b1");
	add(qa, "a2");
	/* A nested begin opens nothing; its end writes nothing. */
	inner = outq_batch_begin();
	ck_assert_int_eq(inner, 0);
	add(qb, "b2");
	outq_batch_end(inner);
	ck_assert_str_eq(side_read(&F.a), "");
	ck_assert_str_eq(side_read(&F.b), "");
	outq_batch_end(opened);
	/* Written in the call, one write each, no loop turn needed. */
	ck_assert_str_eq(side_read(&F.a), "a1\na2\n");
	ck_assert_str_eq(side_read(&F.b), "b1\nb2\n");
	ck_assert_int_eq(F.a.calls, 1);
	ck_assert_int_eq(F.b.calls, 1);
	/* Nothing is left to be written again by the loop. */
	turn();
	ck_assert_int_eq(F.a.calls, 1);
	ck_assert_int_eq(F.b.calls, 1);
	/* After the batch, a queue goes back to the activated way. */
	add(qa, "a3");
	ck_assert_str_eq(side_read(&F.a), "");
	turn();
	ck_assert_str_eq(side_read(&F.a), "a3\n");
	outq_free(qa);
	outq_free(qb);
}
END_TEST

START_TEST(test_outq_stopped_or_freed_in_a_batch)
{
	struct outq	*qa = outq_new(&F.mcpd, F.a.fd[0], &side_cb, &F.a);
	struct outq	*qb = outq_new(&F.mcpd, F.b.fd[0], &side_cb, &F.b);
	struct outq	*qc = outq_new(&F.mcpd, F.b.fd[0], &side_cb, &F.b);
	int		 opened = outq_batch_begin();

	add(qa, "dropped");
	add(qc, "freed");
	add(qb, "kept");
	outq_stop(qa);
	outq_free(qc);		/* the list must not keep it */
	outq_batch_end(opened);
	ck_assert_str_eq(side_read(&F.a), "");
	ck_assert_str_eq(side_read(&F.b), "kept\n");
	ck_assert_int_eq(F.a.calls, 0);
	turn();
	ck_assert_str_eq(side_read(&F.a), "");
	ck_assert_uint_eq(budget_used(&F.mcpd), 0);
	outq_free(qa);
	outq_free(qb);
}
END_TEST

/* A full socket: the rest waits for writability, then goes in order. */
START_TEST(test_outq_batch_full_socket)
{
	struct outq	*q = outq_new(&F.mcpd, F.a.fd[0], &side_cb, &F.a);
	static char	 big[64 * 1024], all[17 * 64 * 1024];
	size_t		 total = 0, want = 16 * sizeof big + 4;
	ssize_t		 n;
	int		 opened, i, spins, sndbuf = 64 * 1024;

	/*
	 * A send buffer far smaller than the megabyte queued, whatever this
	 * machine's default, so that the first write cannot take it all.
	 */
	ck_assert_int_eq(setsockopt(F.a.fd[0], SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof sndbuf), 0);
	memset(big, 'x', sizeof big - 1);	/* a line of 64 KiB - 1 */
	opened = outq_batch_begin();
	for (i = 0; i < 16; i++)
		add(q, big);
	add(q, "end");
	outq_batch_end(opened);
	ck_assert_uint_gt(F.a.written, 0);	/* left for writability */
	for (spins = 0; total < want && spins < 100000; spins++) {
		while ((n = read(F.a.fd[1], all + total,
		    sizeof all - total)) > 0)
			total += n;
		turn();
	}
	ck_assert_uint_eq(total, want);
	ck_assert_int_eq(all[sizeof big - 1], '\n');
	ck_assert_int_eq(memcmp(all + total - 4, "end\n", 4), 0);
	ck_assert_uint_eq(F.a.written, 0);
	outq_free(q);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s = suite_create("outq");
	TCase	*tc = tcase_create("outq");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_outq_unbatched_waits_for_the_loop);
	tcase_add_test(tc, test_outq_batch_writes_at_its_end);
	tcase_add_test(tc, test_outq_stopped_or_freed_in_a_batch);
	tcase_add_test(tc, test_outq_batch_full_socket);
	suite_add_tcase(s, tc);
	return (s);
}
