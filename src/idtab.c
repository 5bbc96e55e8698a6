/*
 * idtab.c -- a table from increasing ids to pointers (see idtab.h).
 *
 * Invariants:
 * - Every entry is in exactly one place: the ring, at slot id & (size - 1),
 *   or the hash map `old'.
 * - The ring holds only ids of the window (newest - size, newest]: before
 *   newest advances, each slot whose id leaves the window is emptied into
 *   `old'.  Within the window, slot and id are one to one.
 * - `old' may also hold ids of the window: those it got before the ring
 *   grew.  So a lookup tries the ring, then `old'.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "hmap.h"
#include "idtab.h"
#include "xmalloc.h"

/*
 * The ids are numbered by mcpd, never chosen by a peer: no secret seed
 * is needed to keep their hashes apart.
 */
#define IDTAB_OLD_SEED	0x6964746162ULL

struct idtab_slot {
	int64_t	 id;
	void	*value;		/* NULL: empty */
};

struct idtab {
	struct idtab_slot	*ring;	/* NULL until the first put */
	size_t			 size;	/* a power of two */
	size_t			 in_ring;
	int64_t			 newest;
	int			 any;	/* an id was put */
	struct hmap		*old;	/* NULL until needed */
};

struct idtab *
idtab_new(void)
{
	return (xcalloc(1, sizeof (struct idtab)));
}

void
idtab_free(struct idtab *t)
{
	if (t == NULL)
		return;
	free(t->ring);
	hmap_free(t->old);
	free(t);
}

size_t
idtab_count(const struct idtab *t)
{
	return (t->in_ring + (t->old != NULL ? hmap_count(t->old) : 0));
}

static int
idtab_in_window(const struct idtab *t, int64_t id)
{
	return (t->any && id <= t->newest &&
	    (uint64_t)t->newest - (uint64_t)id < t->size);
}

static struct idtab_slot *
idtab_slot(const struct idtab *t, int64_t id)
{
	return (&t->ring[(uint64_t)id & (t->size - 1)]);
}

/* Empty a slot whose id is leaving the window into `old'. */
static void
idtab_push_out(struct idtab *t, struct idtab_slot *s)
{
	if (s->value == NULL)
		return;
	if (t->old == NULL)
		t->old = hmap_new(IDTAB_OLD_SEED);
	hmap_put_i64(t->old, s->id, s->value);
	s->value = NULL;
	t->in_ring--;
}

static void
idtab_grow(struct idtab *t)
{
	struct idtab_slot	*old = t->ring;
	size_t			 i, oldsize = t->size;

	t->size = oldsize * 2;
	t->ring = xcalloc(t->size, sizeof *t->ring);
	for (i = 0; i < oldsize; i++) {
		if (old[i].value != NULL)
			*idtab_slot(t, old[i].id) = old[i];
	}
	free(old);
}

/* Any other put: the first, a gap, or a slot still taken. */
static __attribute__((noinline)) void
idtab_put_slow(struct idtab *t, int64_t id, void *value)
{
	struct idtab_slot	*s;
	uint64_t		 k, gap;

	if (t->ring == NULL) {
		t->size = IDTAB_RING_MIN;
		t->ring = xcalloc(t->size, sizeof *t->ring);
	}
	/* A live entry would be pushed out while most of the ring is live. */
	while (t->any && t->size < IDTAB_RING_MAX &&
	    t->in_ring * 2 > t->size &&
	    idtab_slot(t, t->newest + 1)->value != NULL)
		idtab_grow(t);
	/* The ids newest + 1 .. id enter the window; their slots' ids leave. */
	gap = t->any ? (uint64_t)id - (uint64_t)t->newest : t->size;
	if (gap > t->size)
		gap = t->size;
	for (k = 0; k < gap; k++)
		idtab_push_out(t, idtab_slot(t, (int64_t)((uint64_t)id - k)));
	s = idtab_slot(t, id);
	s->id = id;
	s->value = value;
	t->in_ring++;
	t->newest = id;
	t->any = 1;
}

void
idtab_put(struct idtab *t, int64_t id, void *value)
{
	struct idtab_slot	*s;

	if (value == NULL || (t->any && id <= t->newest))
		abort();
	/*
	 * The usual case: the next id, into a free slot.  Nothing grows
	 * (that needs the slot taken) and nothing is pushed out.  The rest
	 * is out of line, so that this costs no saved registers.
	 */
	if (t->any && (uint64_t)id - (uint64_t)t->newest == 1 &&
	    (s = idtab_slot(t, id))->value == NULL) {
		s->id = id;
		s->value = value;
		t->in_ring++;
		t->newest = id;
		return;
	}
	idtab_put_slow(t, id, value);
}

void *
idtab_get(const struct idtab *t, int64_t id)
{
	const struct idtab_slot	*s;

	if (idtab_in_window(t, id)) {
		s = idtab_slot(t, id);
		if (s->value != NULL && s->id == id)
			return (s->value);
	}
	return (t->old != NULL ? hmap_get_i64(t->old, id) : NULL);
}

void *
idtab_del(struct idtab *t, int64_t id)
{
	struct idtab_slot	*s;
	void			*value;

	if (idtab_in_window(t, id)) {
		s = idtab_slot(t, id);
		if (s->value != NULL && s->id == id) {
			value = s->value;
			s->value = NULL;
			t->in_ring--;
			return (value);
		}
	}
	return (t->old != NULL ? hmap_del_i64(t->old, id) : NULL);
}
