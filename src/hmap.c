/*
 * hmap.c -- open-addressing hash map with Robin Hood probing.
 *
 * The table is a power-of-two array of 32-byte slots; a slot is empty when
 * its value is NULL.  Each slot keeps the low 32 bits of its key's hash,
 * which both pick its home slot (hash & mask) and filter out most key
 * comparisons, so resizing never rehashes a key.  Keys of up to
 * HMAP_INLINE_KEY_BYTES live in the slot; longer ones are copied to the heap.
 *
 * Invariants:
 * - Robin Hood order: walking from any entry's home slot to the entry, no
 *   slot is empty and no entry is closer to its own home than the walker
 *   is to the start.  So a lookup stops at the first empty slot or at the
 *   first entry closer to home than the probe, and deletion shifts the
 *   following run back by one slot instead of leaving a tombstone.
 * - There is always an empty slot (load <= 3/4 once a table exists).  The
 *   iterator starts at one and walks downwards, wrapping, all the way
 *   round.  Deleting an entry at or above the walker (in that circular
 *   order) only moves entries the walker has passed, and never past the
 *   walker's slot, since a backward shift stops at the first empty slot.
 * - Entries move only on insertion of a new key (Robin Hood swaps, resize)
 *   and on deletion (backward shift); replacing a value moves nothing.
 */

#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "xmalloc.h"

#define HMAP_INLINE_KEY_BYTES	16
#define HMAP_MIN_SLOTS		8
#define HMAP_SHRINK_FLOOR_SLOTS	1024	/* 32 KiB: never smaller than this */
#define HMAP_MAX_SLOTS		((size_t)1 << 31)	/* hash kept: 32 bits */

/* Odd constants with no structure: fractions of the golden ratio, pi, e. */
#define HMAP_K0			0x9e3779b97f4a7c15ULL
#define HMAP_K1			0x243f6a8885a308d3ULL
#define HMAP_K2			0xb7e151628aed2a6bULL

struct hmap_slot {
	void		*value;		/* NULL if the slot is empty */
	uint32_t	 hash;		/* low 32 bits of the key's hash */
	uint32_t	 keylen;
	union {
		uint8_t	 bytes[HMAP_INLINE_KEY_BYTES];
		uint8_t	*heap;
	} key;
};

struct hmap {
	struct hmap_slot *slots;	/* NULL until the first insertion */
	size_t		 mask;		/* slots - 1, or 0 without a table */
	size_t		 count;
	struct hmap_key	 key;		/* derived from the seed */
};

/* Full 64x64 -> 128 bit product, folded to 64 bits. */
static inline uint64_t
hmap_fold(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128	r = (unsigned __int128)a * b;

	return ((uint64_t)r ^ (uint64_t)(r >> 64));
#else
	uint64_t	al = a & 0xffffffff, ah = a >> 32;
	uint64_t	bl = b & 0xffffffff, bh = b >> 32;
	uint64_t	ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t	mid, lo, hi;

	mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
	lo = (mid << 32) | (ll & 0xffffffff);
	hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	return (lo ^ hi);
#endif
}

static inline uint64_t
hmap_read64(const uint8_t *p)
{
	uint64_t	v;

	memcpy(&v, p, sizeof v);
	return (v);
}

static inline uint64_t
hmap_read32(const uint8_t *p)
{
	uint32_t	v;

	memcpy(&v, p, sizeof v);
	return (v);
}

/* The splitmix64 step: spreads a seed (even 0) into unrelated secrets. */
static uint64_t
hmap_splitmix(uint64_t *state)
{
	uint64_t	z;

	z = (*state += HMAP_K0);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

/*
 * Each 16-byte block is folded into the state with the secrets; the last
 * is read as described below, which is unambiguous because the length
 * seeds the state.  The final fold by an odd secret spreads every bit into the low
 * bits used for the slot.
 */
uint64_t
hmap_key_hash(const struct hmap_key *k, const void *key, size_t keylen)
{
	const uint8_t	*p = key;
	uint64_t	 h, a = 0, b = 0;
	size_t		 len = keylen;

	h = k->secret[0] ^ ((uint64_t)keylen * HMAP_K1);
	for (; len > 16; p += 16, len -= 16)
		h = hmap_fold(hmap_read64(p) ^ k->secret[1],
		    hmap_read64(p + 8) ^ h);
	/*
	 * The last 1 to 16 bytes, read as overlapping words (no copy): for a
	 * given length the words still determine every byte.
	 */
	if (len > 8) {
		a = hmap_read64(p);
		b = hmap_read64(p + len - 8);
	} else if (len >= 4) {
		a = hmap_read32(p);
		b = hmap_read32(p + len - 4);
	} else if (len > 0)
		a = (uint64_t)p[0] << 16 | (uint64_t)p[len / 2] << 8 |
		    p[len - 1];
	h = hmap_fold(a ^ k->secret[1], b ^ h);
	return (hmap_fold(h ^ HMAP_K2, k->secret[2]));
}

uint64_t
hmap_hash(const struct hmap *m, const void *key, size_t keylen)
{
	return (hmap_key_hash(&m->key, key, keylen));
}

void
hmap_key_init(struct hmap_key *k, uint64_t seed)
{
	uint64_t	 state = seed;

	k->secret[0] = hmap_splitmix(&state);
	k->secret[1] = hmap_splitmix(&state);
	k->secret[2] = hmap_splitmix(&state) | 1;
}

static inline const uint8_t *
hmap_slot_key(const struct hmap_slot *s)
{
	if (s->keylen > HMAP_INLINE_KEY_BYTES)
		return (s->key.heap);
	return (s->key.bytes);
}

/* Keys are mostly short ids: no call to memcmp for those. */
static inline int
hmap_key_eq(const uint8_t *a, const uint8_t *b, size_t len)
{
	size_t	i;

	if (len == 8)
		return (hmap_read64(a) == hmap_read64(b));
	if (len > HMAP_INLINE_KEY_BYTES)
		return (memcmp(a, b, len) == 0);
	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return (0);
	return (1);
}

/* How far slot i is from the home slot of the entry in it. */
static inline size_t
hmap_dist(const struct hmap *m, size_t i)
{
	return ((i - m->slots[i].hash) & m->mask);
}

/*
 * Look for a key.  If it is there, returns 1 with its slot in *at;
 * otherwise returns 0 with *at and *at_dist set to where a new entry with
 * this key belongs and how far that is from the key's home slot.
 */
static int
hmap_find(const struct hmap *m, const void *key, size_t keylen,
    uint32_t hash, size_t *at, size_t *at_dist)
{
	const struct hmap_slot	*s;
	size_t			 i, dist;

	i = hash & m->mask;
	for (dist = 0;; dist++, i = (i + 1) & m->mask) {
		s = &m->slots[i];
		if (s->value == NULL || hmap_dist(m, i) < dist)
			break;
		if (s->hash != hash || s->keylen != keylen)
			continue;
		if (hmap_key_eq(hmap_slot_key(s), key, keylen)) {
			*at = i;
			return (1);
		}
	}
	*at = i;
	*at_dist = dist;
	return (0);
}

/*
 * Put an entry whose key is absent, starting at slot i, dist slots from its
 * home: each richer entry met is displaced and carried on in its place.
 */
static void
hmap_place(struct hmap *m, struct hmap_slot entry, size_t i, size_t dist)
{
	struct hmap_slot	 tmp;
	size_t			 d;

	for (;; dist++, i = (i + 1) & m->mask) {
		if (m->slots[i].value == NULL) {
			m->slots[i] = entry;
			return;
		}
		if ((d = hmap_dist(m, i)) < dist) {
			tmp = m->slots[i];
			m->slots[i] = entry;
			entry = tmp;
			dist = d;
		}
	}
}

static void
hmap_resize(struct hmap *m, size_t nslots)
{
	struct hmap_slot	*old = m->slots;
	size_t			 i, oldslots = old == NULL ? 0 : m->mask + 1;

	m->slots = xcalloc(nslots, sizeof *m->slots);
	m->mask = nslots - 1;
	for (i = 0; i < oldslots; i++) {
		if (old[i].value != NULL)
			hmap_place(m, old[i], old[i].hash & m->mask, 0);
	}
	free(old);
}

/*
 * Make room for one more entry: grow past 3/4 load, and shrink a table
 * under 1/16 full to the smallest one at most 3/8 full after this entry.
 * Tables of HMAP_SHRINK_FLOOR_SLOTS or fewer never shrink: a map that
 * fills and drains with every batch of requests would otherwise be
 * resized twice per batch.
 */
static int
hmap_make_room(struct hmap *m)
{
	size_t	nslots = m->slots == NULL ? 0 : m->mask + 1;
	size_t	want = m->count + 1;

	if (want * 4 > nslots * 3) {
		if (nslots >= HMAP_MAX_SLOTS)
			abort();	/* 1.6e9 entries: a runaway caller */
		hmap_resize(m, nslots == 0 ? HMAP_MIN_SLOTS : nslots * 2);
		return (1);
	}
	if (nslots > HMAP_SHRINK_FLOOR_SLOTS && want * 16 <= nslots) {
		while (nslots > HMAP_SHRINK_FLOOR_SLOTS &&
		    want * 8 <= (nslots / 2) * 3)
			nslots /= 2;
		hmap_resize(m, nslots);
		return (1);
	}
	return (0);
}

struct hmap *
hmap_new(uint64_t seed)
{
	struct hmap	*m;

	m = xcalloc(1, sizeof *m);
	hmap_key_init(&m->key, seed);
	return (m);
}

void
hmap_free(struct hmap *m)
{
	size_t	i;

	if (m == NULL)
		return;
	if (m->slots != NULL) {
		for (i = 0; i <= m->mask; i++) {
			if (m->slots[i].value != NULL &&
			    m->slots[i].keylen > HMAP_INLINE_KEY_BYTES)
				free(m->slots[i].key.heap);
		}
		free(m->slots);
	}
	free(m);
}

size_t
hmap_count(const struct hmap *m)
{
	return (m->count);
}

void *
hmap_get(const struct hmap *m, const void *key, size_t keylen)
{
	size_t	i, dist;

	if (m->count == 0 || (uint64_t)keylen > HMAP_KEY_MAX_BYTES)
		return (NULL);
	if (!hmap_find(m, key, keylen, (uint32_t)hmap_hash(m, key, keylen),
	    &i, &dist))
		return (NULL);
	return (m->slots[i].value);
}

void *
hmap_put(struct hmap *m, const void *key, size_t keylen, void *value)
{
	struct hmap_slot	 entry;
	void			*old;
	uint32_t		 hash;
	size_t			 i = 0, dist = 0;

	if (value == NULL || (uint64_t)keylen > HMAP_KEY_MAX_BYTES)
		abort();
	hash = (uint32_t)hmap_hash(m, key, keylen);
	if (m->slots != NULL && hmap_find(m, key, keylen, hash, &i, &dist)) {
		old = m->slots[i].value;
		m->slots[i].value = value;
		return (old);
	}

	memset(&entry, 0, sizeof entry);
	entry.value = value;
	entry.hash = hash;
	entry.keylen = (uint32_t)keylen;
	if (keylen > HMAP_INLINE_KEY_BYTES) {
		entry.key.heap = xmalloc(keylen);
		memcpy(entry.key.heap, key, keylen);
	} else if (keylen > 0)
		memcpy(entry.key.bytes, key, keylen);

	if (hmap_make_room(m)) {
		i = hash & m->mask;
		dist = 0;
	}
	hmap_place(m, entry, i, dist);
	m->count++;
	return (NULL);
}

void *
hmap_del(struct hmap *m, const void *key, size_t keylen)
{
	struct hmap_slot	*s;
	void			*value;
	size_t			 i, dist, next;

	if (m->count == 0 || (uint64_t)keylen > HMAP_KEY_MAX_BYTES)
		return (NULL);
	if (!hmap_find(m, key, keylen, (uint32_t)hmap_hash(m, key, keylen),
	    &i, &dist))
		return (NULL);

	s = &m->slots[i];
	value = s->value;
	if (s->keylen > HMAP_INLINE_KEY_BYTES)
		free(s->key.heap);
	for (;;) {
		next = (i + 1) & m->mask;
		if (m->slots[next].value == NULL || hmap_dist(m, next) == 0)
			break;
		m->slots[i] = m->slots[next];
		i = next;
	}
	memset(&m->slots[i], 0, sizeof m->slots[i]);
	m->count--;
	return (value);
}

void *
hmap_get_i64(const struct hmap *m, int64_t key)
{
	return (hmap_get(m, &key, sizeof key));
}

void *
hmap_put_i64(struct hmap *m, int64_t key, void *value)
{
	return (hmap_put(m, &key, sizeof key, value));
}

void *
hmap_del_i64(struct hmap *m, int64_t key)
{
	return (hmap_del(m, &key, sizeof key));
}

void
hmap_iter_init(const struct hmap *m, struct hmap_iter *it)
{
	size_t	i = 0;

	it->map = m;
	it->slot = 0;
	it->left = 0;
	if (m->count == 0)
		return;
	while (m->slots[i].value != NULL)
		i++;
	it->slot = i;
	it->left = m->mask;
}

int
hmap_iter_next(struct hmap_iter *it, const void **key, size_t *keylen,
    void **value)
{
	const struct hmap	*m = it->map;
	const struct hmap_slot	*s;

	while (it->left > 0 && m->count > 0) {
		it->left--;
		it->slot = (it->slot - 1) & m->mask;
		s = &m->slots[it->slot];
		if (s->value == NULL)
			continue;
		if (key != NULL)
			*key = hmap_slot_key(s);
		if (keylen != NULL)
			*keylen = s->keylen;
		if (value != NULL)
			*value = s->value;
		return (1);
	}
	return (0);
}

size_t
hmap_count_of(const struct hmap *m, const void *key, size_t keylen)
{
	return ((size_t)(uintptr_t)hmap_get(m, key, keylen));
}

size_t
hmap_count_add(struct hmap *m, const void *key, size_t keylen, int delta)
{
	size_t	 n = hmap_count_of(m, key, keylen);

	n = delta > 0 ? n + 1 : n - 1;
	if (n == 0)
		hmap_del(m, key, keylen);
	else
		hmap_put(m, key, keylen, (void *)(uintptr_t)n);
	return (n);
}
