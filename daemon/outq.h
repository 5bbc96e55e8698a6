/*
 * outq.h -- the write half of every connection and of every server's
 * stdin: messages are queued (small ones copied into a plain buffer, the
 * rest in an evbuffer) and go out in one write per batch.
 *
 * A message queued from a callback is not written at once: the write runs
 * at the end of the batch that callback opened (outq_batch_begin), or
 * else from an event activated on the first queued message, which
 * libevent runs in the same loop turn after the callback that queued it,
 * so a batch of replies costs one writev and no extra epoll_wait.  Only
 * a full socket or pipe (EAGAIN) makes the queue wait for writability,
 * and only then does it cost an epoll_ctl.  The queue's memory counts
 * against mcpd's budget (budget.h).  Its owner sees every write through
 * `written' (with what is left) and a write error through `failed'; the
 * owner's limits and water marks are policy and stay with it.
 */
#ifndef MCPD_OUTQ_H
#define MCPD_OUTQ_H

#include <stddef.h>

struct envelope_edit;
struct iovec;
struct mcpd;
struct outq;

struct outq_cb {
	/* Something was written; left bytes are still queued. */
	void	(*written)(void *arg, size_t left);
	/*
	 * A write failed (not EAGAIN): the queue has stopped.  Neither
	 * callback may free the queue; stop it, free it later.
	 */
	void	(*failed)(void *arg, int error);
};

/* fd stays the caller's: outq_free does not close it. */
struct outq	*outq_new(struct mcpd *, int fd, const struct outq_cb *,
		    void *arg);
void		 outq_free(struct outq *);
/* Queue a message given as pieces; the newline is added. */
void		 outq_add(struct outq *, const struct iovec *, int iovcnt);
/*
 * Queue line[0, len) with one edit applied (envelope_splice's rules,
 * which the caller has checked: envelope_edit_ok), copied straight into
 * the stage when it fits, without pieces in between.
 */
void		 outq_add_edit(struct outq *, const char *line, size_t len,
		    const struct envelope_edit *);
/*
 * Like outq_add, but pieces lying inside mem (a malloc'd buffer of size
 * bytes, which this takes over) are queued by reference, not copied.
 */
void		 outq_add_owned(struct outq *, const struct iovec *, int,
		    void *mem, size_t size);
size_t		 outq_length(const struct outq *);
/* Write at the end of this batch (what outq_add does by itself). */
void		 outq_flush(struct outq *);
/*
 * A callback that reads a batch of lines opens a batch around its work:
 * the queues it adds to are then written in outq_batch_end, in the order
 * first added to, rather than from an event activated for each, which
 * costs more than the write's own work for one short message.  begin
 * returns whether it opened the batch (not when one is open already);
 * hand that to end.
 */
int		 outq_batch_begin(void);
void		 outq_batch_end(int opened);
/* Write now, in this call, what the socket takes. */
void		 outq_write_now(struct outq *);
/* Drop what is queued and write nothing more. */
void		 outq_stop(struct outq *);
/*
 * What is still queued, oldest first, copied (a re-exec hands it over),
 * and queuing it again as it was: bytes, no newline added.
 */
char		*outq_copy(const struct outq *, size_t *len);
void		 outq_add_bytes(struct outq *, const void *, size_t len);

#endif /* MCPD_OUTQ_H */
