/*
 * outq.c -- an output queue: one write per batch, writability polled only
 * after EAGAIN (see outq.h).
 *
 * Small messages are copied into the stage, a plain buffer written with
 * write(2) when nothing older waits: the common batch of small replies
 * costs a memcpy each and no evbuffer work.  A message forwarded with one
 * edit (its id) is copied there straight from its line and the edit's
 * text, without pieces in between.  What cannot go there (a
 * large message, one queued by reference, the rest of a partial write)
 * goes to the evbuffer, and the stage is always the newer of the two:
 * before anything is added to the evbuffer, the stage is moved behind
 * what it holds.  The stage's memory is kept once written (it is at most
 * OUTQ_STAGE_BYTES), so a connection that answers batch after batch does
 * not allocate for each; it goes when the queue stops.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "budget.h"
#include "envelope.h"
#include "log.h"
#include "mcpd.h"
#include "outq.h"
#include "util.h"
#include "xmalloc.h"

struct outq {
	struct mcpd		*mcpd;
	int			 fd;
	struct evbuffer		*buf;
	struct event		*ev_write;	/* the fd is full: wait */
	struct event		*ev_flush;	/* write what the batch queued */
	int			 flush_pending;	/* activated, or in outq_dirty */
	int			 dirty;		/* in outq_dirty */
	int			 waiting;	/* ev_write is added */
	TAILQ_ENTRY(outq)	 dirty_entry;
	int			 stopped;
	const struct outq_cb	*cb;
	void			*arg;
	size_t			 counted;	/* in the budget */
	char			*stage;		/* NULL while empty */
	size_t			 stage_len;
	size_t			 stage_cap;
	size_t			 buf_len;	/* the evbuffer's, kept here */
};

/*
 * The stage's largest size: a message this small (with its newline) is
 * staged.  It starts small, so that a client sent one short reply now
 * and then costs little, and doubles as a batch needs it.
 */
#define OUTQ_STAGE_BYTES	(16 * 1024)
#define OUTQ_STAGE_MIN_BYTES	1024

/* The queues to write at the end of the open batch (outq_batch_begin). */
static TAILQ_HEAD(, outq)	outq_dirty = TAILQ_HEAD_INITIALIZER(outq_dirty);
static int			outq_in_batch;

/* A buffer queued by reference, freed when its last piece is written. */
struct outq_shared {
	void	*mem;
	int	 refs;
};

/* After the evbuffer changed: what it holds (asked once, not per message). */
static void
outq_buf_changed(struct outq *q)
{
	q->buf_len = evbuffer_get_length(q->buf);
}

/*
 * The budget follows the queue's length, settled after every change
 * here rather than through an evbuffer callback per added piece.
 */
static void
outq_count(struct outq *q)
{
	size_t	 len = outq_length(q);

	if (len > q->counted)
		budget_add(q->mcpd, len - q->counted);
	else
		budget_sub(q->mcpd, q->counted - len);
	q->counted = len;
}

static void
outq_stage_free(struct outq *q)
{
	free(q->stage);
	q->stage = NULL;
	q->stage_len = 0;
	q->stage_cap = 0;
}

/* Put the stage behind what the evbuffer holds. */
static void
outq_spill(struct outq *q)
{
	if (q->stage_len > 0) {
		evbuffer_add(q->buf, q->stage, q->stage_len);
		outq_buf_changed(q);
	}
	q->stage_len = 0;
}

/* Write the stage alone: nothing older waits. */
static ssize_t
outq_write_stage(struct outq *q)
{
	ssize_t	 n;

	n = write(q->fd, q->stage, q->stage_len);
	if (n <= 0)
		return (n);
	if ((size_t)n < q->stage_len) {
		/* The fd is full: the rest waits in the evbuffer. */
		evbuffer_add(q->buf, q->stage + n, q->stage_len - n);
		outq_buf_changed(q);
	}
	q->stage_len = 0;
	return (n);
}

/* Write what the fd takes; -1 once the queue has stopped. */
static int
outq_write(struct outq *q)
{
	ssize_t	 n;

	if (q->stopped)
		return (-1);
	if (q->stage_len > 0 && q->buf_len == 0)
		n = outq_write_stage(q);
	else {
		outq_spill(q);
		n = evbuffer_write(q->buf, q->fd);
		outq_buf_changed(q);
	}
	outq_count(q);
	if (n == -1 && errno != EAGAIN && errno != EINTR) {
		outq_stop(q);
		q->cb->failed(q->arg, errno);
		return (-1);
	}
	if (outq_length(q) == 0 && q->waiting) {
		event_del(q->ev_write);
		q->waiting = 0;
	}
	q->cb->written(q->arg, outq_length(q));
	return (q->stopped ? -1 : 0);
}

static void
outq_write_cb(evutil_socket_t fd, short events, void *arg)
{
	outq_write(arg);
}

/* The batch is queued: write it, and poll only if the fd is full. */
static void
outq_flush_now(struct outq *q)
{
	q->flush_pending = 0;
	if (q->stopped || q->waiting)
		return;
	if (outq_write(q) == 0 && outq_length(q) > 0) {
		event_add(q->ev_write, NULL);
		q->waiting = 1;
	}
}

static void
outq_flush_cb(evutil_socket_t fd, short events, void *arg)
{
	outq_flush_now(arg);
}

static void
outq_undirty(struct outq *q)
{
	if (q->dirty) {
		TAILQ_REMOVE(&outq_dirty, q, dirty_entry);
		q->dirty = 0;
	}
}

void
outq_flush(struct outq *q)
{
	if (q->stopped || q->flush_pending || q->waiting)
		return;
	q->flush_pending = 1;
	if (outq_in_batch) {
		TAILQ_INSERT_TAIL(&outq_dirty, q, dirty_entry);
		q->dirty = 1;
	} else
		event_active(q->ev_flush, EV_TIMEOUT, 0);
}

int
outq_batch_begin(void)
{
	if (outq_in_batch)
		return (0);
	outq_in_batch = 1;
	return (1);
}

void
outq_batch_end(int opened)
{
	struct outq	*q;

	if (!opened)
		return;
	/* What the writes' callbacks queue goes the activated way. */
	outq_in_batch = 0;
	while ((q = TAILQ_FIRST(&outq_dirty)) != NULL) {
		outq_undirty(q);
		outq_flush_now(q);
	}
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
	outq_undirty(q);
	event_free(q->ev_write);
	event_free(q->ev_flush);
	budget_sub(q->mcpd, q->counted);
	evbuffer_free(q->buf);
	free(q->stage);
	free(q);
}

void
outq_stop(struct outq *q)
{
	q->stopped = 1;
	event_del(q->ev_write);
	q->waiting = 0;
	event_del(q->ev_flush);
	outq_undirty(q);
	q->flush_pending = 0;
	evbuffer_drain(q->buf, evbuffer_get_length(q->buf));
	outq_buf_changed(q);
	outq_stage_free(q);
	outq_count(q);
}

size_t
outq_length(const struct outq *q)
{
	return (q->buf_len + q->stage_len);
}

/*
 * Copy a piece into the stage; returns the byte after it.  Pieces are
 * mostly a few bytes (an id, the text around it): up to 32 bytes go as
 * two overlapping fixed-size copies (three single bytes below 4), which
 * compile to moves, not a call.
 */
static inline char *
outq_piece_copy(char *p, const char *s, size_t len)
{
	if (len <= 16) {
		if (len >= 8) {
			memcpy(p, s, 8);
			memcpy(p + len - 8, s + len - 8, 8);
		} else if (len >= 4) {
			memcpy(p, s, 4);
			memcpy(p + len - 4, s + len - 4, 4);
		} else if (len > 0) {
			p[0] = s[0];
			p[len / 2] = s[len / 2];
			p[len - 1] = s[len - 1];
		}
	} else if (len <= 32) {
		memcpy(p, s, 16);
		memcpy(p + len - 16, s + len - 16, 16);
	} else
		memcpy(p, s, len);
	return (p + len);
}

/*
 * Room for total bytes and a newline at the end of the stage, which a
 * message of fewer than OUTQ_STAGE_BYTES always gets.
 */
static inline char *
outq_stage_room(struct outq *q, size_t total)
{
	size_t	 need;

	if (q->stage_len + total + 1 > OUTQ_STAGE_BYTES)
		outq_spill(q);
	need = q->stage_len + total + 1;
	if (need > q->stage_cap) {
		if (q->stage_cap == 0)
			q->stage_cap = OUTQ_STAGE_MIN_BYTES;
		while (need > q->stage_cap)
			q->stage_cap *= 2;
		q->stage = xrealloc(q->stage, q->stage_cap);
	}
	return (q->stage + q->stage_len);
}

/* The stage took total bytes and the newline at p. */
static inline void
outq_staged(struct outq *q, char *p, size_t total)
{
	*p = '\n';
	q->stage_len += total + 1;
	/* Only the stage grew: what outq_count would settle. */
	budget_add(q->mcpd, total + 1);
	q->counted += total + 1;
	if (!q->flush_pending)
		outq_flush(q);
}

void
outq_add_edit(struct outq *q, const char *line, size_t len,
    const struct envelope_edit *e)
{
	struct iovec	 iov[ENVELOPE_SPLICE_IOV(1)];
	size_t		 total, n;
	char		*p;

	if (q->stopped)
		return;
	total = len - e->len + e->text_len;
	if (total >= OUTQ_STAGE_BYTES) {
		n = envelope_splice(line, len, e, 1, iov, nitems(iov));
		outq_add(q, iov, (int)n);
		return;
	}
	p = outq_stage_room(q, total);
	p = outq_piece_copy(p, line, e->off);
	p = outq_piece_copy(p, e->text, e->text_len);
	p = outq_piece_copy(p, line + e->off + e->len,
	    len - e->off - e->len);
	outq_staged(q, p, total);
}

void
outq_add(struct outq *q, const struct iovec *iov, int iovcnt)
{
	size_t	 total = 0;
	char	*p;
	int	 i;

	if (q->stopped)
		return;
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total < OUTQ_STAGE_BYTES) {
		p = outq_stage_room(q, total);
		for (i = 0; i < iovcnt; i++)
			p = outq_piece_copy(p, iov[i].iov_base,
			    iov[i].iov_len);
		outq_staged(q, p, total);
		return;
	}
	outq_spill(q);
	for (i = 0; i < iovcnt; i++)
		evbuffer_add(q->buf, iov[i].iov_base, iov[i].iov_len);
	evbuffer_add(q->buf, "\n", 1);
	outq_buf_changed(q);
	outq_count(q);
	if (!q->flush_pending)
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

static void
outq_piece_release(const void *data, size_t len, void *arg)
{
	free(arg);
}

/*
 * A small piece after a large one held by reference: added as a copy of
 * its own.  evbuffer_add would size its new chain after the last one and
 * take twice the large message for a few bytes.
 */
static void
outq_add_piece(struct outq *q, const void *p, size_t len)
{
	char	*copy;

	if (len == 0)
		return;
	copy = xmalloc(len);
	memcpy(copy, p, len);
	evbuffer_add_reference(q->buf, copy, len, outq_piece_release, copy);
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
	outq_spill(q);
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
			outq_add_piece(q, p, iov[i].iov_len);
	}
	evbuffer_add_reference(q->buf, "\n", 1, NULL, NULL);
	outq_shared_release(NULL, 0, sh);
	outq_buf_changed(q);
	outq_count(q);
	outq_flush(q);
}

char *
outq_copy(const struct outq *q, size_t *len)
{
	char	*p;

	*len = q->buf_len + q->stage_len;
	if (*len == 0)
		return (NULL);
	p = xmalloc(*len);
	if (q->buf_len > 0 &&
	    evbuffer_copyout(q->buf, p, q->buf_len) != (ev_ssize_t)q->buf_len)
		fatalx("outq: the queue cannot be copied");
	if (q->stage_len > 0)
		memcpy(p + q->buf_len, q->stage, q->stage_len);
	return (p);
}

void
outq_add_bytes(struct outq *q, const void *p, size_t len)
{
	if (q->stopped || len == 0)
		return;
	outq_spill(q);
	evbuffer_add(q->buf, p, len);
	outq_buf_changed(q);
	outq_count(q);
	outq_flush(q);
}
