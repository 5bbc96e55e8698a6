/*
 * outq.c -- an output queue: evbuffer, one writev per batch, writability
 * polled only after EAGAIN (see outq.h).
 */
#include "config.h"

#include <sys/uio.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "budget.h"
#include "mcpd.h"
#include "outq.h"
#include "xmalloc.h"

struct outq {
	struct mcpd		*mcpd;
	int			 fd;
	struct evbuffer		*buf;
	struct event		*ev_write;	/* the fd is full: wait */
	struct event		*ev_flush;	/* write what the batch queued */
	int			 flush_pending;
	int			 stopped;
	const struct outq_cb	*cb;
	void			*arg;
	size_t			 counted;	/* in the budget */
};

/* A message this small is copied into the buffer in one piece. */
#define OUTQ_COPY_BYTES		4096

/* A buffer queued by reference, freed when its last piece is written. */
struct outq_shared {
	void	*mem;
	int	 refs;
};

/*
 * The budget follows the buffer's length, settled after every change
 * here rather than through an evbuffer callback per added piece.
 */
static void
outq_count(struct outq *q)
{
	size_t	 len = evbuffer_get_length(q->buf);

	if (len > q->counted)
		budget_add(q->mcpd, len - q->counted);
	else
		budget_sub(q->mcpd, q->counted - len);
	q->counted = len;
}

/* Write what the fd takes; -1 once the queue has stopped. */
static int
outq_write(struct outq *q)
{
	int	 n;

	if (q->stopped)
		return (-1);
	n = evbuffer_write(q->buf, q->fd);
	outq_count(q);
	if (n == -1 && errno != EAGAIN && errno != EINTR) {
		outq_stop(q);
		q->cb->failed(q->arg, errno);
		return (-1);
	}
	if (evbuffer_get_length(q->buf) == 0)
		event_del(q->ev_write);
	q->cb->written(q->arg, evbuffer_get_length(q->buf));
	return (q->stopped ? -1 : 0);
}

static void
outq_write_cb(evutil_socket_t fd, short events, void *arg)
{
	outq_write(arg);
}

/* The batch is queued: write it, and poll only if the fd is full. */
static void
outq_flush_cb(evutil_socket_t fd, short events, void *arg)
{
	struct outq	*q = arg;

	q->flush_pending = 0;
	if (q->stopped || event_pending(q->ev_write, EV_WRITE, NULL))
		return;
	if (outq_write(q) == 0 && evbuffer_get_length(q->buf) > 0)
		event_add(q->ev_write, NULL);
}

void
outq_flush(struct outq *q)
{
	if (q->stopped || q->flush_pending ||
	    event_pending(q->ev_write, EV_WRITE, NULL))
		return;
	q->flush_pending = 1;
	event_active(q->ev_flush, EV_TIMEOUT, 0);
}

void
outq_write_now(struct outq *q)
{
	outq_write(q);
}

struct outq *
outq_new(struct mcpd *mcpd, int fd, const struct outq_cb *cb, void *arg)
{
	struct outq	*q;

	q = xcalloc(1, sizeof *q);
	q->mcpd = mcpd;
	q->fd = fd;
	q->cb = cb;
	q->arg = arg;
	q->buf = evbuffer_new();
	q->ev_write = event_new(mcpd->base, fd, EV_WRITE | EV_PERSIST,
	    outq_write_cb, q);
	q->ev_flush = event_new(mcpd->base, -1, 0, outq_flush_cb, q);
	return (q);
}

void
outq_free(struct outq *q)
{
	if (q == NULL)
		return;
	event_free(q->ev_write);
	event_free(q->ev_flush);
	budget_sub(q->mcpd, q->counted);
	evbuffer_free(q->buf);
	free(q);
}

void
outq_stop(struct outq *q)
{
	q->stopped = 1;
	event_del(q->ev_write);
	event_del(q->ev_flush);
	q->flush_pending = 0;
	evbuffer_drain(q->buf, evbuffer_get_length(q->buf));
	outq_count(q);
}

size_t
outq_length(const struct outq *q)
{
	return (evbuffer_get_length(q->buf));
}

/* Copy a small message's pieces into one reservation: one chain, once. */
static int
outq_add_small(struct outq *q, const struct iovec *iov, int iovcnt,
    size_t total)
{
	struct evbuffer_iovec	 v;
	char			*p;
	int			 i;

	if (evbuffer_reserve_space(q->buf, total + 1, &v, 1) != 1 ||
	    v.iov_len < total + 1)
		return (-1);
	p = v.iov_base;
	for (i = 0; i < iovcnt; i++) {
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
		p += iov[i].iov_len;
	}
	*p = '\n';
	v.iov_len = total + 1;
	return (evbuffer_commit_space(q->buf, &v, 1));
}

void
outq_add(struct outq *q, const struct iovec *iov, int iovcnt)
{
	size_t	 total = 0;
	int	 i;

	if (q->stopped)
		return;
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > OUTQ_COPY_BYTES ||
	    outq_add_small(q, iov, iovcnt, total) != 0) {
		for (i = 0; i < iovcnt; i++)
			evbuffer_add(q->buf, iov[i].iov_base, iov[i].iov_len);
		evbuffer_add(q->buf, "\n", 1);
	}
	outq_count(q);
	outq_flush(q);
}

static void
outq_shared_release(const void *data, size_t len, void *arg)
{
	struct outq_shared	*sh = arg;

	if (--sh->refs == 0) {
		free(sh->mem);
		free(sh);
	}
}

void
outq_add_owned(struct outq *q, const struct iovec *iov, int iovcnt,
    void *mem, size_t size)
{
	struct outq_shared	*sh;
	const char		*lo = mem, *p;
	int			 i;

	if (q->stopped) {
		free(mem);
		return;
	}
	sh = xmalloc(sizeof *sh);
	sh->mem = mem;
	sh->refs = 1;		/* ours, until the pieces are queued */
	for (i = 0; i < iovcnt; i++) {
		p = iov[i].iov_base;
		if (p >= lo && p + iov[i].iov_len <= lo + size) {
			sh->refs++;
			evbuffer_add_reference(q->buf, p, iov[i].iov_len,
			    outq_shared_release, sh);
		} else
			evbuffer_add(q->buf, p, iov[i].iov_len);
	}
	evbuffer_add(q->buf, "\n", 1);
	outq_shared_release(NULL, 0, sh);
	outq_count(q);
	outq_flush(q);
}
