/*
 * principal.h -- who a client is to mcpd, across its connections.
 *
 * A principal owns tasks and whatever else mcpd keeps for one client.  A
 * connection is a principal of its own (its serial), unless it presents a
 * principal of a bridge's: mcpctl connect asks mcpd/attach for one when
 * it first attaches ("principal": true), keeps the 128 random bits it is
 * given only in its memory, and presents them again when it reconnects,
 * after a restart of the connection or a re-exec of mcpd.
 *
 * - A principal is bound to the uid that was given it: presented by
 *   another uid, or unknown, or malformed, it is not found, and the
 *   connection gets a new one, which says nothing of the one asked for.
 * - One uid holds at most PRINCIPAL_MAX_PER_UID; past that a connection
 *   is a principal of its own, as if it had not asked.  A principal no
 *   connection has used for PRINCIPAL_KEEP_MS is forgotten.
 * - An HTTP token's sessions share the token's principal, found by its
 *   name (principal_token), which only mcpd-http can claim.
 * - Their ids never equal a connection's serial (PRINCIPAL_ID_BASE up).
 */
#ifndef MCPD_PRINCIPAL_H
#define MCPD_PRINCIPAL_H

#include <sys/types.h>

#include <stdint.h>

#define PRINCIPAL_SID_BYTES	16
#define PRINCIPAL_HEX_LEN	(2 * PRINCIPAL_SID_BYTES)
#define PRINCIPAL_MAX_PER_UID	1024
#define PRINCIPAL_KEEP_MS	(24ULL * 3600 * 1000)
#define PRINCIPAL_ID_BASE	(1ULL << 62)

struct handover;
struct mcpd;

/*
 * The principal for a connection of uid presenting hex (NULL: asking for
 * a new one): its id, and its secret as hex in out.  0 when uid holds as
 * many as it may (the connection stays its own).
 */
uint64_t	 principal_claim(struct mcpd *, uid_t, const char *hex,
		    char out[PRINCIPAL_HEX_LEN + 1]);
/*
 * The principal of an HTTP token (ident_http.c): one per token name and
 * uid, shared by all its sessions; 0 at the cap.  Not handed across a
 * re-exec.
 */
uint64_t	 principal_token(struct mcpd *, uid_t, const char *token);
/* A connection that had claimed id is gone. */
void		 principal_release(struct mcpd *, uint64_t id);
size_t		 principal_count(const struct mcpd *);
void		 principal_free_all(struct mcpd *);
/* A re-exec: into the state, and back from it. */
void		 principal_export(const struct mcpd *, struct handover *);
void		 principal_adopt(struct mcpd *, const struct handover *);

#endif /* MCPD_PRINCIPAL_H */
