/*
 * auditq.c -- the calls' records, queued and written to the journal by
 * a thread of their own (auditq.h).
 *
 * The event loop only formats an entry (audit_entry) and appends it to
 * the queue under a mutex held for a few pointer moves; the writer
 * thread takes entries off it and waits in sd_journal_sendv when
 * journald is slow or stopped.  The thread has every signal blocked
 * (they are the loop's), touches nothing of the daemon's but the queue
 * and its counters, and is started at the first entry, so an mcpd that
 * records nothing runs no thread.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "audit.h"
#include "auditq.h"
#include "fdio.h"
#include "clock.h"
#include "log.h"
#include "proto.h"
#include "util.h"
#include "xmalloc.h"

struct auditq_entry {
	char			**fields;	/* audit_entry's */
	size_t			  nfields;
	size_t			  bytes;
	STAILQ_ENTRY(auditq_entry) entry;
};

static struct {
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	pthread_cond_t		 done_cv;	/* the writer ended */
	STAILQ_HEAD(, auditq_entry) q;
	size_t			 n;
	size_t			 bytes;
	uint64_t		 written;
	uint64_t		 dropped;
	uint64_t		 dropped_told;	/* in an entry already */
	uint64_t		 told_ms;
	int			 started;
	int			 sending;	/* an entry off the queue */
	int			 stopping;
	int			 done;
	pthread_t		 thread;
	/* The loop's alone. */
	char			*key_dir;
	uint8_t			 key[AUDIT_KEY_BYTES];
	int			 keyed;
} aq = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.done_cv = PTHREAD_COND_INITIALIZER,
	.q = STAILQ_HEAD_INITIALIZER(aq.q),
};

void
auditq_init(const char *key_dir)
{
	free(aq.key_dir);
	aq.key_dir = key_dir != NULL ? xstrdup(key_dir) : NULL;
}

/* The key in path: 0, 1 when there is none, or -1 with *why. */
static int
auditq_read_key(const char *path, uint8_t *key, const char **why)
{
	struct stat	 st;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		*why = strerror(errno);
		return (errno == ENOENT ? 1 : -1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || st.st_size != AUDIT_KEY_BYTES) {
		*why = "not a key file of mcpd's user (32 bytes)";
		close(fd);
		return (-1);
	}
	if ((st.st_mode & 077) != 0)
		(void)fchmod(fd, 0600);
	n = read(fd, key, AUDIT_KEY_BYTES);
	close(fd);
	if (n != AUDIT_KEY_BYTES) {
		*why = "short read";
		return (-1);
	}
	return (0);
}

/* A new key, written to a file of its own and renamed into place. */
static int
auditq_make_key(const char *dir, const char *path, uint8_t *key,
    const char **why)
{
	char	*tmp;
	int	 fd, rc = -1;

	if (getrandom(key, AUDIT_KEY_BYTES, 0) != AUDIT_KEY_BYTES) {
		*why = "getrandom failed";
		return (-1);
	}
	if (fdio_mkdirs(dir, 0700) == -1) {
		*why = strerror(errno);
		return (-1);
	}
	xasprintf(&tmp, "%s.%ld.tmp", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		*why = strerror(errno);
		free(tmp);
		return (-1);
	}
	if (write(fd, key, AUDIT_KEY_BYTES) == AUDIT_KEY_BYTES &&
	    fsync(fd) == 0 && rename(tmp, path) == 0)
		rc = 0;
	else
		*why = strerror(errno);
	close(fd);
	if (rc == -1)
		(void)unlink(tmp);
	free(tmp);
	return (rc);
}

const uint8_t *
auditq_key(void)
{
	const char	*why = "no directory for it";
	char		*path = NULL;
	int		 rc = -1;

	if (aq.keyed)
		return (aq.key);
	if (aq.key_dir != NULL) {
		xasprintf(&path, "%s/%s", aq.key_dir, AUDITQ_KEY_FILE);
		rc = auditq_read_key(path, aq.key, &why);
		if (rc == 1)
			rc = auditq_make_key(aq.key_dir, path, aq.key, &why);
	}
	if (rc != 0) {
		log_warnx("audit: the key %s cannot be used (%s): the "
		    "arguments' hashes of this run are under a key of its own",
		    path != NULL ? path : "file", why);
		if (getrandom(aq.key, AUDIT_KEY_BYTES, 0) != AUDIT_KEY_BYTES)
			fatalx("audit: getrandom failed");
	}
	free(path);
	aq.keyed = 1;
	return (aq.key);
}

static void
auditq_entry_free(struct auditq_entry *e)
{
	audit_entry_free(e->fields);
	free(e);
}

static void
auditq_send(char **fields, size_t n)
{
	struct iovec	 iov[32];
	size_t		 i;

	if (!log_to_journal()) {
		/* The stderr target: the message alone, as log.c prints. */
		fprintf(stderr, "mcpd: %s\n", fields[0] + strlen("MESSAGE="));
		return;
	}
	if (n > 32)
		n = 32;
	for (i = 0; i < n; i++) {
		iov[i].iov_base = fields[i];
		iov[i].iov_len = strlen(fields[i]);
	}
	(void)sd_journal_sendv(iov, (int)n);
}

static void
auditq_send_dropped(uint64_t n)
{
	char	*f[5];
	size_t	 i;

	xasprintf(&f[0], "MESSAGE=audit: %llu audit entries dropped (the "
	    "queue was full: journald was slow or stopped)",
	    (unsigned long long)n);
	xasprintf(&f[1], "PRIORITY=%d", LOG_WARNING);
	xasprintf(&f[2], "SYSLOG_IDENTIFIER=mcpd");
	xasprintf(&f[3], "MESSAGE_ID=%s", MCPD_MID_AUDIT_DROPPED);
	xasprintf(&f[4], "%s=%llu", MCPD_FIELD_DROPPED, (unsigned long long)n);
	auditq_send(f, nitems(f));
	for (i = 0; i < nitems(f); i++)
		free(f[i]);
}

/* Drops to tell of now: when caught up, or every AUDITQ_DROP_REPORT_MS. */
static uint64_t
auditq_drops_to_tell(void)
{
	uint64_t	 n, now = clock_now_ms();

	if (aq.dropped == aq.dropped_told)
		return (0);
	if (aq.n != 0 && now - aq.told_ms < AUDITQ_DROP_REPORT_MS)
		return (0);
	n = aq.dropped - aq.dropped_told;
	aq.dropped_told = aq.dropped;
	aq.told_ms = now;
	return (n);
}

static void *
auditq_writer(void *arg)
{
	struct auditq_entry	*e;
	uint64_t		 tell;

	(void)arg;
	pthread_mutex_lock(&aq.mu);
	for (;;) {
		while (STAILQ_EMPTY(&aq.q) && !aq.stopping)
			pthread_cond_wait(&aq.cv, &aq.mu);
		if ((e = STAILQ_FIRST(&aq.q)) == NULL)
			break;
		STAILQ_REMOVE_HEAD(&aq.q, entry);
		aq.n--;
		aq.bytes -= e->bytes;
		aq.sending = 1;
		pthread_mutex_unlock(&aq.mu);
		auditq_send(e->fields, e->nfields);
		auditq_entry_free(e);
		pthread_mutex_lock(&aq.mu);
		aq.written++;
		aq.sending = 0;
		if ((tell = auditq_drops_to_tell()) != 0) {
			pthread_mutex_unlock(&aq.mu);
			auditq_send_dropped(tell);
			pthread_mutex_lock(&aq.mu);
		}
		if (aq.n == 0)
			pthread_cond_broadcast(&aq.done_cv);
	}
	aq.done = 1;
	pthread_cond_broadcast(&aq.done_cv);
	pthread_mutex_unlock(&aq.mu);
	return (NULL);
}

/* Under aq.mu. */
static void
auditq_start(void)
{
	sigset_t	 all, saved;
	int		 error;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	error = pthread_create(&aq.thread, NULL, auditq_writer, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (error != 0) {
		/* Written from the loop instead: better late than lost. */
		log_warnx("audit: no writer thread: %s", strerror(error));
		return;
	}
	aq.started = 1;
}

void
auditq_put(const struct audit_call *call, const struct audit_end *end)
{
	struct auditq_entry	*e;
	size_t			 i;

	e = xcalloc(1, sizeof *e);
	e->fields = audit_entry(call, end, &e->nfields);
	for (i = 0; i < e->nfields; i++)
		e->bytes += strlen(e->fields[i]);
	pthread_mutex_lock(&aq.mu);
	if (!aq.started && !aq.stopping)
		auditq_start();
	if (!aq.started || aq.stopping) {
		pthread_mutex_unlock(&aq.mu);
		auditq_send(e->fields, e->nfields);
		auditq_entry_free(e);
		return;
	}
	if (aq.n >= AUDITQ_MAX_ENTRIES ||
	    aq.bytes + e->bytes > AUDITQ_MAX_BYTES) {
		aq.dropped++;
		pthread_mutex_unlock(&aq.mu);
		auditq_entry_free(e);
		return;
	}
	STAILQ_INSERT_TAIL(&aq.q, e, entry);
	aq.n++;
	aq.bytes += e->bytes;
	pthread_cond_signal(&aq.cv);
	pthread_mutex_unlock(&aq.mu);
}

cJSON *
auditq_json(void)
{
	cJSON	*o = cJSON_CreateObject();

	pthread_mutex_lock(&aq.mu);
	cJSON_AddNumberToObject(o, "queued", (double)aq.n);
	cJSON_AddNumberToObject(o, "written", (double)aq.written);
	cJSON_AddNumberToObject(o, "dropped", (double)aq.dropped);
	pthread_mutex_unlock(&aq.mu);
	return (o);
}

/* Under aq.mu: wait on done_cv until cond or ms from now. */
static void
auditq_deadline(struct timespec *until, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += (time_t)(ms / 1000);
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

void
auditq_flush(uint64_t ms)
{
	struct timespec	 until;

	auditq_deadline(&until, ms);
	pthread_mutex_lock(&aq.mu);
	while (aq.started && !aq.done && (aq.n > 0 || aq.sending) &&
	    pthread_cond_timedwait(&aq.done_cv, &aq.mu, &until) == 0)
		;
	pthread_mutex_unlock(&aq.mu);
}

void
auditq_stop(uint64_t ms)
{
	struct timespec	 until;
	int		 done;

	auditq_deadline(&until, ms);
	pthread_mutex_lock(&aq.mu);
	aq.stopping = 1;
	if (!aq.started) {
		pthread_mutex_unlock(&aq.mu);
		return;
	}
	pthread_cond_signal(&aq.cv);
	while (!aq.done && pthread_cond_timedwait(&aq.done_cv, &aq.mu,
	    &until) == 0)
		;
	done = aq.done;
	pthread_mutex_unlock(&aq.mu);
	/* A writer still waiting for journald is left to the exit. */
	if (done)
		pthread_join(aq.thread, NULL);
	else
		pthread_detach(aq.thread);
}
