/*
 * hmap.h -- a hash map from byte-string keys to pointers (pure: no I/O),
 * used to look up JSON-RPC ids on every routed message.
 *
 * - Keys are any bytes, of any length including zero, and are copied into
 *   the map.  Values are caller-owned, non-NULL pointers: NULL always means
 *   "absent", and the map never frees a value.
 * - Keys come from untrusted peers, so the hash is keyed by the seed given
 *   to hmap_new.  The daemon passes hmap_random_seed() (getrandom) so
 *   nobody can predict which keys collide; tests pass fixed seeds to be
 *   reproducible.  The hash is fast, not cryptographic.
 * - Operations are O(1) expected.  The table grows at 3/4 load and shrinks
 *   again, when an insertion finds it under 1/16 full.
 * - Iteration order is unspecified (it depends on seed and history).
 *   While iterating, hmap_del of the entry just returned, or of any entry
 *   returned earlier, is safe: every other entry is still returned exactly
 *   once.  So is hmap_put that replaces the value of an existing key.
 *   Inserting a new key or deleting an entry not yet returned may make the
 *   iteration skip or repeat entries.
 */
#ifndef MCPD_HMAP_H
#define MCPD_HMAP_H

#include <stddef.h>
#include <stdint.h>

#define HMAP_KEY_MAX_BYTES	UINT32_MAX	/* longer keys abort in put */

struct hmap;

/* Fields are private; the struct is public so it can live on the stack. */
struct hmap_iter {
	const struct hmap	*map;
	size_t			 slot;	/* slot last looked at */
	size_t			 left;	/* slots not yet looked at */
};

struct hmap	*hmap_new(uint64_t seed);
/*
 * A seed from getrandom(2); should that fail (no entropy yet at boot), the
 * wall clock mixed with random().  In hmap_seed.c, not hmap.c.  After
 * hmap_seed_fix(S), S != 0, every seed is S: a fuzz target's maps have
 * the same layout on every run of an input (0: random again).
 */
uint64_t	 hmap_random_seed(void);
void		 hmap_seed_fix(uint64_t);
/* Frees the keys and the table, not the values.  NULL is allowed. */
void		 hmap_free(struct hmap *);
size_t		 hmap_count(const struct hmap *);

void		*hmap_get(const struct hmap *, const void *key, size_t keylen);
/* Returns the value replaced, or NULL if the key is new.  value != NULL. */
void		*hmap_put(struct hmap *, const void *key, size_t keylen,
		    void *value);
/* Returns the value removed, or NULL if the key was absent. */
void		*hmap_del(struct hmap *, const void *key, size_t keylen);

/*
 * A count kept as the value itself (a pointer-sized integer, absent for
 * 0): hmap_count_of reads it, hmap_count_add adds delta (+1 or -1) and
 * returns the new count, deleting the key when it reaches 0.
 */
size_t		 hmap_count_of(const struct hmap *, const void *key,
		    size_t keylen);
size_t		 hmap_count_add(struct hmap *, const void *key, size_t keylen,
		    int delta);

/*
 * int64 keys are the 8 bytes of the int64_t in host byte order:
 * hmap_get_i64(m, v) finds what hmap_put(m, &v, sizeof v, p) stored.
 */
void		*hmap_get_i64(const struct hmap *, int64_t);
void		*hmap_put_i64(struct hmap *, int64_t, void *value);
void		*hmap_del_i64(struct hmap *, int64_t);

/*
 * hmap_iter_next returns 0 when done.  Any of key, keylen and value may be
 * NULL.  *key points into the map and is valid until the map is changed;
 * it may be passed to hmap_del, but is gone once that returns.
 */
void		 hmap_iter_init(const struct hmap *, struct hmap_iter *);
int		 hmap_iter_next(struct hmap_iter *, const void **key,
		    size_t *keylen, void **value);

/*
 * The map's seeded hash of a key; its low bits pick the key's home slot.
 * Exposed so tests can build keys that collide.
 */
uint64_t	 hmap_hash(const struct hmap *, const void *key, size_t keylen);

/*
 * The same keyed hash on its own, for a table that links its entries
 * itself: hmap_key_hash with a key made from seed S equals hmap_hash of
 * a map made with hmap_new(S).  Fields are private.
 */
struct hmap_key {
	uint64_t	 secret[3];
};

void		 hmap_key_init(struct hmap_key *, uint64_t seed);
uint64_t	 hmap_key_hash(const struct hmap_key *, const void *key,
		    size_t keylen);

#endif /* MCPD_HMAP_H */
