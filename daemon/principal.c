/*
 * principal.c -- the bridges' principals (principal.h): a table from the
 * secret a bridge presents to who it is, bound to a uid, kept across a
 * re-exec.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "handover.h"
#include "hmap.h"
#include "mcpd.h"
#include "principal.h"
#include "util.h"
#include "xmalloc.h"

struct principal {
	unsigned char		 sid[PRINCIPAL_SID_BYTES];
	uid_t			 uid;
	uint64_t		 id;
	size_t			 conns;		/* connections using it */
	uint64_t		 last_ms;	/* one last let go of it */
	char			*token;		/* an HTTP token's; NULL */
	TAILQ_ENTRY(principal)	 entry;
};
TAILQ_HEAD(principal_list, principal);

struct principals {
	struct hmap		*by_sid;
	struct hmap		*by_id;
	struct hmap		*by_token;	/* HTTP tokens' principals */
	struct hmap		*per_uid;	/* uid -> count, as a pointer */
	struct principal_list	 all;
	uint64_t		 made;
};

static struct principals *
principals_get(struct mcpd *mcpd)
{
	struct principals	*ps;

	if ((ps = mcpd->principals) == NULL) {
		ps = mcpd->principals = xcalloc(1, sizeof *ps);
		ps->by_sid = hmap_new(hmap_random_seed());
		ps->by_id = hmap_new(hmap_random_seed());
		ps->by_token = hmap_new(hmap_random_seed());
		ps->per_uid = hmap_new(hmap_random_seed());
		TAILQ_INIT(&ps->all);
	}
	return (ps);
}

static void
principal_remove(struct principals *ps, struct principal *p)
{
	hmap_del(ps->by_sid, p->sid, sizeof p->sid);
	hmap_del_i64(ps->by_id, (int64_t)p->id);
	if (p->token != NULL) {
		hmap_del(ps->by_token, p->token, strlen(p->token));
		free(p->token);
	}
	(void)hmap_count_add(ps->per_uid, &p->uid, sizeof p->uid, -1);
	TAILQ_REMOVE(&ps->all, p, entry);
	explicit_bzero(p->sid, sizeof p->sid);
	free(p);
}

/* Those no connection has used for PRINCIPAL_KEEP_MS. */
static void
principal_expire(struct principals *ps, uint64_t now)
{
	struct principal	*p, *next;

	TAILQ_FOREACH_SAFE(p, &ps->all, entry, next) {
		if (p->conns == 0 && now - p->last_ms >= PRINCIPAL_KEEP_MS)
			principal_remove(ps, p);
	}
}

static int
principal_unhex(const char *hex, unsigned char sid[PRINCIPAL_SID_BYTES])
{
	size_t		 i;
	unsigned int	 b;

	if (hex == NULL || strlen(hex) != PRINCIPAL_HEX_LEN)
		return (-1);
	for (i = 0; i < PRINCIPAL_HEX_LEN; i++) {
		if (strchr("0123456789abcdef", hex[i]) == NULL)
			return (-1);
	}
	for (i = 0; i < PRINCIPAL_SID_BYTES; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return (-1);
		sid[i] = (unsigned char)b;
	}
	return (0);
}

static void
principal_hex(const unsigned char sid[PRINCIPAL_SID_BYTES],
    char out[PRINCIPAL_HEX_LEN + 1])
{
	size_t	 i;

	for (i = 0; i < PRINCIPAL_SID_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", sid[i]);
}

static struct principal *
principal_insert(struct principals *ps, const unsigned char *sid, uid_t uid,
    uint64_t id, uint64_t last_ms)
{
	struct principal	*p;

	p = xcalloc(1, sizeof *p);
	memcpy(p->sid, sid, sizeof p->sid);
	p->uid = uid;
	p->id = id;
	p->last_ms = last_ms;
	hmap_put(ps->by_sid, p->sid, sizeof p->sid, p);
	hmap_put_i64(ps->by_id, (int64_t)p->id, p);
	(void)hmap_count_add(ps->per_uid, &uid, sizeof uid, 1);
	TAILQ_INSERT_TAIL(&ps->all, p, entry);
	return (p);
}

/* A new principal of uid's with a random secret, or NULL at the cap. */
static struct principal *
principal_new(struct principals *ps, uid_t uid, uint64_t now)
{
	struct principal	*p;
	unsigned char		 sid[PRINCIPAL_SID_BYTES];

	if (hmap_count_of(ps->per_uid, &uid, sizeof uid) >=
	    PRINCIPAL_MAX_PER_UID)
		return (NULL);
	do {
		arc4random_buf(sid, sizeof sid);
	} while (hmap_get(ps->by_sid, sid, sizeof sid) != NULL);
	p = principal_insert(ps, sid, uid, PRINCIPAL_ID_BASE + ++ps->made,
	    now);
	explicit_bzero(sid, sizeof sid);
	return (p);
}

uint64_t
principal_claim(struct mcpd *mcpd, uid_t uid, const char *hex,
    char out[PRINCIPAL_HEX_LEN + 1])
{
	struct principals	*ps = principals_get(mcpd);
	struct principal	*p = NULL;
	unsigned char		 sid[PRINCIPAL_SID_BYTES];
	uint64_t		 now = clock_now_ms();

	principal_expire(ps, now);
	if (principal_unhex(hex, sid) == 0)
		p = hmap_get(ps->by_sid, sid, sizeof sid);
	explicit_bzero(sid, sizeof sid);
	/* Another uid's is not found: the same answer as for none. */
	if ((p == NULL || p->uid != uid) &&
	    (p = principal_new(ps, uid, now)) == NULL)
		return (0);
	p->conns++;
	p->last_ms = now;
	principal_hex(p->sid, out);
	return (p->id);
}

/*
 * An HTTP token's: found by its name, never by a secret (its sid is
 * random and never given out, so no bridge can present it).
 */
uint64_t
principal_token(struct mcpd *mcpd, uid_t uid, const char *token)
{
	struct principals	*ps = principals_get(mcpd);
	struct principal	*p;
	uint64_t		 now = clock_now_ms();

	principal_expire(ps, now);
	p = hmap_get(ps->by_token, token, strlen(token));
	if (p != NULL && p->uid != uid)
		return (0);
	if (p == NULL) {
		if ((p = principal_new(ps, uid, now)) == NULL)
			return (0);
		p->token = xstrdup(token);
		hmap_put(ps->by_token, p->token, strlen(p->token), p);
	}
	p->conns++;
	p->last_ms = now;
	return (p->id);
}

void
principal_release(struct mcpd *mcpd, uint64_t id)
{
	struct principal	*p;

	if (mcpd->principals == NULL ||
	    (p = hmap_get_i64(mcpd->principals->by_id, (int64_t)id)) == NULL)
		return;
	if (p->conns > 0)
		p->conns--;
	p->last_ms = clock_now_ms();
}

size_t
principal_count(const struct mcpd *mcpd)
{
	return (mcpd->principals == NULL ? 0 :
	    hmap_count(mcpd->principals->by_id));
}

void
principal_free_all(struct mcpd *mcpd)
{
	struct principals	*ps = mcpd->principals;
	struct principal	*p;

	if (ps == NULL)
		return;
	while ((p = TAILQ_FIRST(&ps->all)) != NULL)
		principal_remove(ps, p);
	hmap_free(ps->by_sid);
	hmap_free(ps->by_id);
	hmap_free(ps->by_token);
	hmap_free(ps->per_uid);
	free(ps);
	mcpd->principals = NULL;
}

void
principal_export(const struct mcpd *mcpd, struct handover *h)
{
	struct principal	*p;
	char			 hex[PRINCIPAL_HEX_LEN + 1];
	uint64_t		 now = clock_now_ms();

	if (mcpd->principals == NULL)
		return;
	TAILQ_FOREACH(p, &mcpd->principals->all, entry) {
		/* A token's is made again by name (its tasks stay behind). */
		if (p->token != NULL)
			continue;
		principal_hex(p->sid, hex);
		/* Its bridges come back: idle from the re-exec on at most. */
		handover_add_principal(h, hex, p->uid, p->id,
		    p->conns > 0 ? 0 : now - p->last_ms);
	}
	explicit_bzero(hex, sizeof hex);
}

void
principal_adopt(struct mcpd *mcpd, const struct handover *h)
{
	struct principals	*ps;
	unsigned char		 sid[PRINCIPAL_SID_BYTES];
	uint64_t		 now = clock_now_ms(), idle;
	size_t			 i;

	if (h->nprincipals == 0)
		return;
	ps = principals_get(mcpd);
	for (i = 0; i < h->nprincipals; i++) {
		/* handover_parse checked the form; a clash is not adopted. */
		if (principal_unhex(h->principals[i].sid, sid) != 0 ||
		    hmap_get(ps->by_sid, sid, sizeof sid) != NULL ||
		    hmap_get_i64(ps->by_id, (int64_t)h->principals[i].id) !=
		    NULL)
			continue;
		idle = h->principals[i].idle_ms;
		principal_insert(ps, sid, h->principals[i].uid,
		    h->principals[i].id, now > idle ? now - idle : 0);
		if (h->principals[i].id - PRINCIPAL_ID_BASE > ps->made)
			ps->made = h->principals[i].id - PRINCIPAL_ID_BASE;
	}
	explicit_bzero(sid, sizeof sid);
}
