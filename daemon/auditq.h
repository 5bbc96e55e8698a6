/*
 * auditq.h -- the calls' records on their way to the journal, off the
 * event loop: a bounded queue (AUDITQ_MAX_ENTRIES entries and
 * AUDITQ_MAX_BYTES bytes) drained by a thread of its own, which alone
 * waits for journald.  When the queue is full an entry is dropped and
 * counted, never waited for; the count is in status and, once the
 * writer can write again, in an entry of its own (MCPD_MID_AUDIT_DROPPED,
 * at most every AUDITQ_DROP_REPORT_MS while drops go on).
 *
 * The install's key (audit.h) is the file audit.key in mcpd's token
 * directory (0600, 32 random bytes, made at the first audited call and
 * read ever after; never logged).  When it can be neither read nor made,
 * a key of the process's own is used and that is said once: hashes then
 * compare only within one run of mcpd.
 */
#ifndef MCPD_AUDITQ_H
#define MCPD_AUDITQ_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define AUDITQ_MAX_ENTRIES	4096
#define AUDITQ_MAX_BYTES	(16 * 1024 * 1024)
#define AUDITQ_DROP_REPORT_MS	10000
#define AUDITQ_KEY_FILE		"audit.key"

struct audit_call;
struct audit_end;

/* Where the key is kept (the token directory); before any call. */
void		 auditq_init(const char *key_dir);
/* The key, read or made at the first call (AUDIT_KEY_BYTES bytes). */
const uint8_t	*auditq_key(void);
/* The entry of a call that ended, queued; the writer starts with one. */
void		 auditq_put(const struct audit_call *,
		    const struct audit_end *);
/* Status: {"queued": N, "written": N, "dropped": N}. */
cJSON		*auditq_json(void);
/* Before a re-exec: up to ms for the writer to write what is queued. */
void		 auditq_flush(uint64_t ms);
/*
 * At exit: the same, then the writer is let go (what it still holds is
 * lost); entries after it are written by the caller, as they come.
 */
void		 auditq_stop(uint64_t ms);

#endif /* MCPD_AUDITQ_H */
