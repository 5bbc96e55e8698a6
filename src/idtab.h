/*
 * idtab.h -- a table from increasing 64-bit ids to pointers (pure: no
 * I/O), for the requests mcpd has sent a server under ids it numbered
 * itself.
 *
 * - Ids are put in increasing order (each larger than every id put
 *   before); getting and deleting may happen in any order, with any id
 *   (a server may answer with an id mcpd never sent: it is not found).
 * - Values are caller-owned, non-NULL pointers; NULL means "absent".
 * - The newest ids live in a ring indexed by the id itself, so put, get
 *   and delete cost a few instructions and no hashing.  The ring doubles
 *   while most of it is in use, up to IDTAB_RING_MAX slots; an entry that
 *   a newer id pushes out of it (a request far older than those around
 *   it) moves to a hash map, where it is found the same way.  Memory is
 *   bounded by the entries held, never by how far apart their ids are.
 */
#ifndef MCPD_IDTAB_H
#define MCPD_IDTAB_H

#include <stdint.h>
#include <stddef.h>

#define IDTAB_RING_MIN	64
#define IDTAB_RING_MAX	4096

struct idtab;

struct idtab	*idtab_new(void);
void		 idtab_free(struct idtab *);
/* Put value under id, which must exceed every id put before (else abort). */
void		 idtab_put(struct idtab *, int64_t id, void *value);
void		*idtab_get(const struct idtab *, int64_t id);
/* Remove id; returns its value, or NULL if it was absent. */
void		*idtab_del(struct idtab *, int64_t id);
size_t		 idtab_count(const struct idtab *);

#endif /* MCPD_IDTAB_H */
