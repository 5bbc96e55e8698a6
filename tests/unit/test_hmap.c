/*
 * test_hmap.c -- unit tests for the byte-string hash map: basics, int64
 * and binary keys, a long random run against a plain array, growth and
 * shrinking, deletion while iterating, and keys built to collide.
 */

#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "unit.h"
#include "util.h"

#define TEST_SEED	0x6d63706474657374ULL

/*
 * check records every passing ck_assert, which is slow in long loops;
 * these only act on failure.
 */
#define EXPECT(expr) do {						\
	if (!(expr))							\
		ck_abort_msg("failed: %s", #expr);			\
} while (0)
#define EXPECT_PTR(got, want) do {					\
	const void *got_ = (got), *want_ = (want);			\
									\
	if (got_ != want_)						\
		ck_abort_msg("%s is %p, not %p", #got, got_, want_);	\
} while (0)

/* Distinct non-NULL values. */
#define V(n)		((void *)(uintptr_t)(n))

static uint64_t
rng_next(uint64_t *state)
{
	uint64_t	x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return (x * 0x2545f4914f6cdd1dULL);
}

static void *
get_str(const struct hmap *m, const char *s)
{
	return (hmap_get(m, s, strlen(s)));
}

static void *
put_str(struct hmap *m, const char *s, void *v)
{
	return (hmap_put(m, s, strlen(s), v));
}

static void *
del_str(struct hmap *m, const char *s)
{
	return (hmap_del(m, s, strlen(s)));
}

/*
 * Key number k of a fixed universe: even k are byte strings (the decimal
 * digits of k, then k % 37 filler bytes below '0', NULs included, never 8
 * bytes in all); odd k are int64 keys spread over the whole range.
 */
struct ukey {
	uint8_t	 bytes[64];
	size_t	 len;
};

static int64_t
ukey_i64(size_t k)
{
	return ((int64_t)((uint64_t)k * 0x9e3779b97f4a7c15ULL));
}

static void
ukey_make(size_t k, struct ukey *key)
{
	size_t	i, fill = k % 37;
	int64_t	v;

	if (k % 2 == 1) {
		v = ukey_i64(k);
		memcpy(key->bytes, &v, sizeof v);
		key->len = sizeof v;
		return;
	}
	key->len = (size_t)snprintf((char *)key->bytes, sizeof key->bytes,
	    "%zu", k);
	if (key->len + fill == 8)
		fill++;
	for (i = 0; i < fill; i++)
		key->bytes[key->len++] = (uint8_t)((k + i * 7) % 48);
}

START_TEST(test_hmap_basics)
{
	struct hmap	*m;

	m = hmap_new(TEST_SEED);
	ck_assert_uint_eq(hmap_count(m), 0);
	ck_assert_ptr_null(get_str(m, "a"));
	ck_assert_ptr_null(del_str(m, "a"));

	ck_assert_ptr_null(put_str(m, "a", V(1)));
	ck_assert_ptr_null(put_str(m, "b", V(2)));
	ck_assert_ptr_null(put_str(m, "\"abc\"", V(3)));
	ck_assert_uint_eq(hmap_count(m), 3);
	ck_assert_ptr_eq(get_str(m, "a"), V(1));
	ck_assert_ptr_eq(get_str(m, "b"), V(2));
	ck_assert_ptr_eq(get_str(m, "\"abc\""), V(3));
	ck_assert_ptr_null(get_str(m, "abc"));
	ck_assert_ptr_null(get_str(m, "c"));

	/* Overwrite returns the old value and keeps the count. */
	ck_assert_ptr_eq(put_str(m, "a", V(10)), V(1));
	ck_assert_ptr_eq(put_str(m, "a", V(11)), V(10));
	ck_assert_uint_eq(hmap_count(m), 3);
	ck_assert_ptr_eq(get_str(m, "a"), V(11));

	ck_assert_ptr_eq(del_str(m, "b"), V(2));
	ck_assert_ptr_null(del_str(m, "b"));
	ck_assert_ptr_null(get_str(m, "b"));
	ck_assert_uint_eq(hmap_count(m), 2);
	ck_assert_ptr_eq(del_str(m, "a"), V(11));
	ck_assert_ptr_eq(del_str(m, "\"abc\""), V(3));
	ck_assert_uint_eq(hmap_count(m), 0);

	/* Usable again after being emptied. */
	ck_assert_ptr_null(put_str(m, "b", V(4)));
	ck_assert_ptr_eq(get_str(m, "b"), V(4));
	hmap_free(m);
	hmap_free(NULL);
}
END_TEST

START_TEST(test_hmap_empty_map)
{
	struct hmap		*m;
	struct hmap_iter	 it;

	m = hmap_new(0);
	ck_assert_ptr_null(hmap_get(m, NULL, 0));
	ck_assert_ptr_null(hmap_del(m, NULL, 0));
	ck_assert_ptr_null(hmap_get_i64(m, 0));
	ck_assert_ptr_null(hmap_del_i64(m, 0));
	hmap_iter_init(m, &it);
	ck_assert_int_eq(hmap_iter_next(&it, NULL, NULL, NULL), 0);
	ck_assert_int_eq(hmap_iter_next(&it, NULL, NULL, NULL), 0);
	hmap_free(m);
}
END_TEST

START_TEST(test_hmap_i64)
{
	static const int64_t	 keys[] = {
		0, 1, -1, 2, -2, 17, 255, 256, -256, 65536, INT32_MAX,
		INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)1 << 53,
		-((int64_t)1 << 53), INT64_MAX, INT64_MIN, INT64_MAX - 1,
		INT64_MIN + 1,
	};
	const size_t		 n = nitems(keys);
	struct hmap		*m;
	size_t			 i;
	int64_t			 v;

	m = hmap_new(TEST_SEED);
	for (i = 0; i < n; i++)
		EXPECT_PTR(hmap_put_i64(m, keys[i], V(i + 1)), NULL);
	ck_assert_uint_eq(hmap_count(m), n);
	for (i = 0; i < n; i++) {
		EXPECT_PTR(hmap_get_i64(m, keys[i]), V(i + 1));
		/* Same key as the 8 bytes in host order. */
		v = keys[i];
		EXPECT_PTR(hmap_get(m, &v, sizeof v), V(i + 1));
	}
	ck_assert_ptr_null(hmap_get_i64(m, 3));
	ck_assert_ptr_null(hmap_get_i64(m, INT64_MAX - 2));
	ck_assert_ptr_eq(hmap_put_i64(m, INT64_MIN, V(100)), V(17));
	ck_assert_ptr_eq(hmap_get_i64(m, INT64_MIN), V(100));

	/* An 8-byte key put through the byte API is found as an int64. */
	v = -12345;
	ck_assert_ptr_null(hmap_put(m, &v, sizeof v, V(200)));
	ck_assert_ptr_eq(hmap_get_i64(m, -12345), V(200));
	ck_assert_ptr_eq(hmap_del_i64(m, -12345), V(200));

	for (i = 0; i < n; i++) {
		EXPECT(hmap_del_i64(m, keys[i]) != NULL);
		EXPECT_PTR(hmap_get_i64(m, keys[i]), NULL);
	}
	ck_assert_uint_eq(hmap_count(m), 0);
	hmap_free(m);
}
END_TEST

START_TEST(test_hmap_key_lengths)
{
	struct hmap	*m;
	uint8_t		 key[300], probe[300];
	size_t		 len, i;

	m = hmap_new(TEST_SEED);
	/* One key of each length 0..299, each a prefix of the next. */
	for (i = 0; i < sizeof key; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	for (len = 0; len < sizeof key; len++)
		EXPECT_PTR(hmap_put(m, key, len, V(len + 1)), NULL);
	ck_assert_uint_eq(hmap_count(m), sizeof key);
	for (len = 0; len < sizeof key; len++)
		EXPECT_PTR(hmap_get(m, key, len), V(len + 1));

	/* The empty key needs no pointer. */
	ck_assert_ptr_eq(hmap_get(m, NULL, 0), V(1));

	/* Change one byte anywhere and the key is a different one. */
	for (len = 1; len < sizeof key; len += 7) {
		for (i = 0; i < len; i++) {
			memcpy(probe, key, len);
			probe[i] ^= 0x01;
			EXPECT_PTR(hmap_get(m, probe, len), NULL);
		}
	}

	/* Keys are copied: changing the caller's buffer changes nothing. */
	for (len = 4; len <= 40; len += 12) {
		memset(probe, 'k', len);
		EXPECT_PTR(hmap_put(m, probe, len, V(1000 + len)), NULL);
		memset(probe, 'x', len);
		EXPECT_PTR(hmap_get(m, probe, len), NULL);
		memset(probe, 'k', len);
		EXPECT_PTR(hmap_del(m, probe, len), V(1000 + len));
	}

	for (len = sizeof key; len-- > 0;)
		EXPECT(hmap_del(m, key, len) != NULL);
	ck_assert_uint_eq(hmap_count(m), 0);
	hmap_free(m);
}
END_TEST

START_TEST(test_hmap_binary_keys)
{
	struct hmap	*m;
	static const struct {
		const char	*bytes;
		size_t		 len;
	}		 keys[] = {
		{ "", 0 },
		{ "\0", 1 },
		{ "\0\0", 2 },
		{ "a", 1 },
		{ "a\0", 2 },
		{ "a\0b", 3 },
		{ "a\0c", 3 },
		{ "\0a", 2 },
		{ "\0\0\0\0\0\0\0\0", 8 },
		{ "\0\0\0\0\0\0\0\0\0", 9 },
		{ "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16 },
		{ "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 17 },
		{ "0123456789abcdef", 16 },
		{ "0123456789abcdef\0", 17 },
		{ "\xff\xfe\x00\x01", 4 },
		{ "17", 2 },
		{ "\"17\"", 4 },
	};
	const size_t	 n = nitems(keys);
	size_t		 i;

	m = hmap_new(TEST_SEED);
	for (i = 0; i < n; i++)
		EXPECT_PTR(hmap_put(m, keys[i].bytes, keys[i].len, V(i + 1)),
		    NULL);
	ck_assert_uint_eq(hmap_count(m), n);
	for (i = 0; i < n; i++)
		EXPECT_PTR(hmap_get(m, keys[i].bytes, keys[i].len), V(i + 1));
	/* Deleting each in turn leaves the others alone. */
	for (i = 0; i < n; i++) {
		EXPECT_PTR(hmap_del(m, keys[i].bytes, keys[i].len), V(i + 1));
		EXPECT_PTR(hmap_get(m, keys[i].bytes, keys[i].len), NULL);
		if (i + 1 < n)
			EXPECT_PTR(hmap_get(m, keys[i + 1].bytes,
			    keys[i + 1].len), V(i + 2));
	}
	ck_assert_uint_eq(hmap_count(m), 0);
	hmap_free(m);
}
END_TEST

/* Iterate over everything and compare with the reference array. */
static void
check_against(const struct hmap *m, void **ref, size_t nkeys, size_t live)
{
	struct hmap_iter	 it;
	struct ukey		 key;
	const void		*k;
	size_t			 klen, i, seen = 0;
	void			*v;
	uint8_t			*hit;

	ck_assert_uint_eq(hmap_count(m), live);
	hit = calloc(nkeys, 1);
	ck_assert_ptr_nonnull(hit);
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, &k, &klen, &v)) {
		seen++;
		/* Recover the key number from the value. */
		i = (uintptr_t)v >> 32;
		EXPECT(i < nkeys);
		EXPECT_PTR(ref[i], v);
		EXPECT(hit[i] == 0);
		hit[i] = 1;
		ukey_make(i, &key);
		EXPECT(klen == key.len);
		EXPECT(memcmp(k, key.bytes, klen) == 0);
	}
	ck_assert_uint_eq(seen, live);
	free(hit);
}

/*
 * 200 000 random puts, deletes and gets over 4000 keys, in phases that
 * mostly insert or mostly delete so the table grows and shrinks.
 */
START_TEST(test_hmap_random)
{
	const size_t	 nkeys = 4000, nops = 200000, phase = 25000;
	struct hmap	*m;
	struct ukey	 key;
	void		**ref, *v, *old;
	uint64_t	 rng = 0x1234567887654321ULL, r;
	size_t		 op, k, live = 0, serial = 0, max_live = 0;
	unsigned	 put_pct;

	m = hmap_new(TEST_SEED);
	ref = calloc(nkeys, sizeof *ref);
	ck_assert_ptr_nonnull(ref);
	for (op = 0; op < nops; op++) {
		put_pct = (op / phase) % 2 == 0 ? 65 : 3;
		r = rng_next(&rng);
		k = (size_t)(r >> 20) % nkeys;
		ukey_make(k, &key);
		switch ((r & 0xffff) % 100 < put_pct ? 0 :
		    (r & 0xffff) % 100 < 80 ? 1 : 2) {
		case 0:
			v = (void *)(uintptr_t)(((uint64_t)k << 32) | ++serial);
			if (k % 2 == 1)
				old = hmap_put_i64(m, ukey_i64(k), v);
			else
				old = hmap_put(m, key.bytes, key.len, v);
			EXPECT_PTR(old, ref[k]);
			if (ref[k] == NULL)
				live++;
			ref[k] = v;
			break;
		case 1:
			EXPECT_PTR(hmap_del(m, key.bytes, key.len), ref[k]);
			if (ref[k] != NULL)
				live--;
			ref[k] = NULL;
			break;
		default:
			EXPECT_PTR(hmap_get(m, key.bytes, key.len), ref[k]);
			if (k % 2 == 1)
				EXPECT_PTR(hmap_get_i64(m, ukey_i64(k)),
				    ref[k]);
			break;
		}
		EXPECT(hmap_count(m) == live);
		if (live > max_live)
			max_live = live;
		if (op % phase == phase - 1)
			check_against(m, ref, nkeys, live);
	}
	/* The run did fill the map and drain it again. */
	ck_assert_uint_gt(max_live, 3000);
	ck_assert_uint_lt(live, 500);
	for (k = 0; k < nkeys; k++) {
		ukey_make(k, &key);
		EXPECT_PTR(hmap_get(m, key.bytes, key.len), ref[k]);
	}
	hmap_free(m);
	free(ref);
}
END_TEST

START_TEST(test_hmap_growth)
{
	const int64_t	 n = 100000;
	struct hmap	*m;
	char		 buf[64];
	int64_t		 i;

	m = hmap_new(TEST_SEED);
	for (i = 0; i < n; i++) {
		EXPECT_PTR(hmap_put_i64(m, i * 3, V(i + 1)), NULL);
		EXPECT(hmap_count(m) == (size_t)i + 1);
	}
	for (i = 0; i < n; i++) {
		EXPECT_PTR(hmap_get_i64(m, i * 3), V(i + 1));
		EXPECT_PTR(hmap_get_i64(m, i * 3 + 1), NULL);
	}
	/* Delete all but ten, then insert: the table shrinks. */
	for (i = 10; i < n; i++)
		EXPECT_PTR(hmap_del_i64(m, i * 3), V(i + 1));
	ck_assert_uint_eq(hmap_count(m), 10);
	ck_assert_ptr_null(hmap_put_i64(m, -1, V(n + 1)));
	for (i = 0; i < 10; i++)
		EXPECT_PTR(hmap_get_i64(m, i * 3), V(i + 1));
	ck_assert_ptr_eq(hmap_get_i64(m, -1), V(n + 1));
	ck_assert_ptr_null(hmap_get_i64(m, 30));

	/* And grows again, now with long keys on the heap. */
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "\"client-request-%lld-xxxxxxxx\"",
		    (long long)i);
		EXPECT_PTR(put_str(m, buf, V(i + 1)), NULL);
	}
	ck_assert_uint_eq(hmap_count(m), 20011);
	for (i = 0; i < 20000; i++) {
		snprintf(buf, sizeof buf, "\"client-request-%lld-xxxxxxxx\"",
		    (long long)i);
		EXPECT_PTR(get_str(m, buf), V(i + 1));
	}
	/* Freed with entries in it: LeakSanitizer checks the keys go too. */
	hmap_free(m);
}
END_TEST

/*
 * Fill a map with n keys and delete entries while iterating: every entry
 * must come out exactly once.  mode 0 deletes each entry as it is
 * returned, mode 1 every other one, mode 2 the one returned before.
 */
static void
iterate_deleting(uint64_t seed, size_t n, int mode)
{
	struct hmap		*m;
	struct hmap_iter	 it;
	const void		*k;
	size_t			 klen, i, seen = 0, deleted = 0;
	void			*v;
	int64_t			 key, prev = -1;
	uint8_t			*hit;

	m = hmap_new(seed);
	hit = calloc(n + 1, 1);
	EXPECT(hit != NULL);
	for (i = 1; i <= n; i++)
		hmap_put_i64(m, (int64_t)i, V(i));
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, &k, &klen, &v)) {
		EXPECT(klen == sizeof key);
		memcpy(&key, k, sizeof key);
		i = (size_t)key;
		EXPECT_PTR(v, V(i));
		if (i < 1 || i > n || hit[i] != 0)
			ck_abort_msg("seed %llu n %zu mode %d: key %zu again",
			    (unsigned long long)seed, n, mode, i);
		hit[i] = 1;
		seen++;
		if (mode == 0 || (mode == 1 && seen % 2 == 0)) {
			EXPECT_PTR(hmap_del(m, k, klen), V(i));
			deleted++;
		} else if (mode == 2) {
			if (prev != -1) {
				EXPECT_PTR(hmap_del_i64(m, prev), V(prev));
				deleted++;
			}
			prev = key;
		}
	}
	if (seen != n)
		ck_abort_msg("seed %llu n %zu mode %d: saw %zu",
		    (unsigned long long)seed, n, mode, seen);
	EXPECT(hmap_count(m) == n - deleted);
	hmap_free(m);
	free(hit);
}

START_TEST(test_hmap_iter_delete)
{
	uint64_t	seed;
	size_t		n;
	int		mode;

	/* Small tables, many seeds: runs that wrap round the end. */
	for (seed = 1; seed <= 40; seed++) {
		for (n = 0; n <= 70; n++) {
			for (mode = 0; mode < 3; mode++)
				iterate_deleting(seed, n, mode);
		}
	}
	for (mode = 0; mode < 3; mode++)
		iterate_deleting(TEST_SEED, 20000, mode);
}
END_TEST

/* Keys on the heap, deleted through the pointer the iterator gave. */
START_TEST(test_hmap_iter_delete_long)
{
	struct hmap		*m;
	struct hmap_iter	 it;
	const void		*k;
	size_t			 klen, i, seen = 0;
	char			 buf[64];
	void			*v;

	m = hmap_new(TEST_SEED);
	for (i = 0; i < 3000; i++) {
		snprintf(buf, sizeof buf, "\"%zu-a-rather-long-request-id\"",
		    i);
		EXPECT_PTR(put_str(m, buf, V(i + 1)), NULL);
	}
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, &k, &klen, &v)) {
		snprintf(buf, sizeof buf, "\"%zu-a-rather-long-request-id\"",
		    (size_t)(uintptr_t)v - 1);
		EXPECT(klen == strlen(buf));
		EXPECT(memcmp(k, buf, klen) == 0);
		EXPECT_PTR(hmap_del(m, k, klen), v);
		seen++;
	}
	ck_assert_uint_eq(seen, 3000);
	ck_assert_uint_eq(hmap_count(m), 0);
	hmap_free(m);
}
END_TEST

START_TEST(test_hmap_iter_replace)
{
	struct hmap		*m;
	struct hmap_iter	 it;
	const void		*k;
	size_t			 klen, i, seen = 0;
	int64_t			 key;
	void			*v;

	m = hmap_new(TEST_SEED);
	for (i = 0; i < 1000; i++)
		hmap_put_i64(m, (int64_t)i, V(i + 1));
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, &k, &klen, &v)) {
		memcpy(&key, k, sizeof key);
		EXPECT_PTR(hmap_put(m, k, klen, V(key + 5000)), v);
		seen++;
	}
	ck_assert_uint_eq(seen, 1000);
	for (i = 0; i < 1000; i++)
		EXPECT_PTR(hmap_get_i64(m, (int64_t)i), V(i + 5000));
	hmap_free(m);
}
END_TEST

/*
 * Keys whose hashes agree in the low 12 bits share a home slot in every
 * table of up to 4096 slots.  Choosing home == last slot also makes the
 * run wrap round to slot 0.
 */
static void
find_colliding(const struct hmap *m, uint64_t low_bits, uint64_t mask,
    int64_t *out, size_t want)
{
	int64_t		 k;
	size_t		 n = 0;

	for (k = 0; n < want; k++) {
		if ((hmap_hash(m, &k, sizeof k) & mask) == low_bits)
			out[n++] = k;
	}
}

START_TEST(test_hmap_collisions)
{
	const size_t	 n = 400, extra = 50;
	const uint64_t	 mask = 0xfff;
	struct hmap	*m;
	struct hmap_iter it;
	int64_t		 keys[400 + 50], key;
	const void	*k;
	size_t		 klen, i, seen = 0;
	uint64_t	 rng = 99;

	m = hmap_new(TEST_SEED);
	find_colliding(m, mask, mask, keys, n + extra);
	for (i = 0; i < n; i++)
		EXPECT_PTR(hmap_put_i64(m, keys[i], V(i + 1)), NULL);
	ck_assert_uint_eq(hmap_count(m), n);
	for (i = 0; i < n; i++)
		EXPECT_PTR(hmap_get_i64(m, keys[i]), V(i + 1));
	/* Absent keys with the same home slot walk the whole run. */
	for (i = n; i < n + extra; i++) {
		EXPECT_PTR(hmap_get_i64(m, keys[i]), NULL);
		EXPECT_PTR(hmap_del_i64(m, keys[i]), NULL);
	}
	/* Overwrite in the middle of the run. */
	ck_assert_ptr_eq(hmap_put_i64(m, keys[200], V(9999)), V(201));
	ck_assert_ptr_eq(hmap_put_i64(m, keys[200], V(201)), V(9999));

	/* Delete half in random order; the rest stay reachable. */
	for (i = 0; i < n; i++) {
		size_t	j = (size_t)(rng_next(&rng) % n);

		key = keys[i];
		keys[i] = keys[j];
		keys[j] = key;
	}
	for (i = 0; i < n / 2; i++)
		EXPECT(hmap_del_i64(m, keys[i]) != NULL);
	for (i = 0; i < n / 2; i++)
		EXPECT_PTR(hmap_get_i64(m, keys[i]), NULL);
	for (i = n / 2; i < n; i++)
		EXPECT(hmap_get_i64(m, keys[i]) != NULL);
	ck_assert_uint_eq(hmap_count(m), n / 2);

	/* Delete the rest while iterating over the single long run. */
	hmap_iter_init(m, &it);
	while (hmap_iter_next(&it, &k, &klen, NULL)) {
		EXPECT(hmap_del(m, k, klen) != NULL);
		seen++;
	}
	ck_assert_uint_eq(seen, n / 2);
	ck_assert_uint_eq(hmap_count(m), 0);
	hmap_free(m);
}
END_TEST

static int
cmp_hash_key(const void *a, const void *b)
{
	const uint64_t	*x = a, *y = b;

	if (x[0] != y[0])
		return (x[0] < y[0] ? -1 : 1);
	return (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/*
 * Distinct keys whose hashes agree in all 32 bits the map keeps, found by
 * the birthday bound among 300 000 keys: only the key bytes tell them apart.
 */
START_TEST(test_hmap_full_collisions)
{
	const size_t	 n = 300000;
	struct hmap	*m;
	uint64_t	(*hk)[2];
	int64_t		 a, b;
	size_t		 i, pairs = 0;

	m = hmap_new(TEST_SEED);
	hk = calloc(n, sizeof *hk);
	ck_assert_ptr_nonnull(hk);
	for (i = 0; i < n; i++) {
		a = (int64_t)i;
		hk[i][0] = hmap_hash(m, &a, sizeof a) & 0xffffffff;
		hk[i][1] = i;
	}
	qsort(hk, n, sizeof *hk, cmp_hash_key);
	for (i = 0; i + 1 < n; i++) {
		if (hk[i][0] != hk[i + 1][0])
			continue;
		a = (int64_t)hk[i][1];
		b = (int64_t)hk[i + 1][1];
		EXPECT_PTR(hmap_put_i64(m, a, V(2 * pairs + 1)), NULL);
		EXPECT_PTR(hmap_get_i64(m, b), NULL);
		EXPECT_PTR(hmap_put_i64(m, b, V(2 * pairs + 2)), NULL);
		EXPECT_PTR(hmap_get_i64(m, a), V(2 * pairs + 1));
		EXPECT_PTR(hmap_get_i64(m, b), V(2 * pairs + 2));
		EXPECT_PTR(hmap_del_i64(m, a), V(2 * pairs + 1));
		EXPECT_PTR(hmap_get_i64(m, a), NULL);
		EXPECT_PTR(hmap_get_i64(m, b), V(2 * pairs + 2));
		pairs++;
	}
	ck_assert_uint_ge(pairs, 3);
	ck_assert_uint_eq(hmap_count(m), pairs);
	hmap_free(m);
	free(hk);
}
END_TEST

START_TEST(test_hmap_seeds)
{
	struct hmap	*m1, *m2, *m3;
	char		 buf[32];
	size_t		 i, j, same = 0;

	m1 = hmap_new(1);
	m2 = hmap_new(2);
	m3 = hmap_new(1);
	for (i = 0; i < 1000; i++) {
		snprintf(buf, sizeof buf, "%zu", i);
		EXPECT(hmap_hash(m1, buf, strlen(buf)) ==
		    hmap_hash(m3, buf, strlen(buf)));
		if ((hmap_hash(m1, buf, strlen(buf)) & 0xffff) ==
		    (hmap_hash(m2, buf, strlen(buf)) & 0xffff))
			same++;
	}
	/* Another seed, other slots: chance agreement is 1 in 65536. */
	ck_assert_uint_le(same, 2);

	/* Runs of NULs differ only in length: the hash tells them apart. */
	memset(buf, 0, sizeof buf);
	for (i = 0; i < sizeof buf; i++) {
		for (j = 0; j < i; j++)
			EXPECT(hmap_hash(m1, buf, i) != hmap_hash(m1, buf, j));
	}
	hmap_free(m1);
	hmap_free(m2);
	hmap_free(m3);
}
END_TEST

/* A key on its own hashes as a map made from the same seed. */
START_TEST(test_hmap_key_hash)
{
	struct hmap_key	 k1, k2;
	struct hmap	*m1;
	char		 buf[64];
	size_t		 i, len;

	m1 = hmap_new(77);
	hmap_key_init(&k1, 77);
	hmap_key_init(&k2, 78);
	for (i = 0; i < 1000; i++) {
		len = (size_t)snprintf(buf, sizeof buf, "\"id-%zu\"%.*s", i,
		    (int)(i % 40), "0123456789012345678901234567890123456789");
		EXPECT(hmap_key_hash(&k1, buf, len) ==
		    hmap_hash(m1, buf, len));
		EXPECT(hmap_key_hash(&k1, buf, len) !=
		    hmap_key_hash(&k2, buf, len));
	}
	EXPECT(hmap_key_hash(&k1, "", 0) == hmap_hash(m1, "", 0));
	hmap_free(m1);
}
END_TEST

/* Low bits of the hash of 65536 structured keys fill 4096 buckets evenly. */
static void
check_spread(const struct hmap *m, int kind)
{
	unsigned	 count[4096];
	char		 buf[64];
	size_t		 i, min = SIZE_MAX, max = 0;
	int64_t		 v;
	uint64_t	 h;

	memset(count, 0, sizeof count);
	for (i = 0; i < 65536; i++) {
		switch (kind) {
		case 0:
			v = (int64_t)i;
			h = hmap_hash(m, &v, sizeof v);
			break;
		case 1:
			v = (int64_t)i << 20;
			h = hmap_hash(m, &v, sizeof v);
			break;
		case 2:
			snprintf(buf, sizeof buf, "\"req-%zu\"", i);
			h = hmap_hash(m, buf, strlen(buf));
			break;
		default:
			snprintf(buf, sizeof buf,
			    "0000000000000000000000000000%06zu", i);
			h = hmap_hash(m, buf, strlen(buf));
			break;
		}
		count[h & 4095]++;
	}
	for (i = 0; i < 4096; i++) {
		if (count[i] < min)
			min = count[i];
		if (count[i] > max)
			max = count[i];
	}
	/* Mean 16; a fair hash stays well inside these bounds. */
	ck_assert_msg(min >= 1 && max <= 40, "kind %d: min %zu max %zu",
	    kind, min, max);
}

START_TEST(test_hmap_spread)
{
	struct hmap	*m;
	int		 kind;

	m = hmap_new(TEST_SEED);
	for (kind = 0; kind < 4; kind++)
		check_spread(m, kind);
	hmap_free(m);
	m = hmap_new(0);
	for (kind = 0; kind < 4; kind++)
		check_spread(m, kind);
	hmap_free(m);
}
END_TEST

START_TEST(test_hmap_random_seed)
{
	/* Two draws agree once in 2^64 from getrandom, never from the
	 * fallback (random() moves on). */
	ck_assert(hmap_random_seed() != hmap_random_seed());
}
END_TEST

/* Counts kept as values: absent at 0, gone again when back at 0. */
START_TEST(test_hmap_counts)
{
	struct hmap	*m = hmap_new(7);

	ck_assert_uint_eq(hmap_count_of(m, "a", 1), 0);
	ck_assert_uint_eq(hmap_count_add(m, "a", 1, 1), 1);
	ck_assert_uint_eq(hmap_count_add(m, "a", 1, 1), 2);
	ck_assert_uint_eq(hmap_count_add(m, "b", 1, 1), 1);
	ck_assert_uint_eq(hmap_count(m), 2);
	ck_assert_uint_eq(hmap_count_add(m, "a", 1, -1), 1);
	ck_assert_uint_eq(hmap_count_add(m, "a", 1, -1), 0);
	ck_assert_ptr_null(hmap_get(m, "a", 1));
	ck_assert_uint_eq(hmap_count(m), 1);
	hmap_free(m);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("hmap");
	tc = tcase_create("hmap");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_hmap_basics);
	tcase_add_test(tc, test_hmap_empty_map);
	tcase_add_test(tc, test_hmap_i64);
	tcase_add_test(tc, test_hmap_key_lengths);
	tcase_add_test(tc, test_hmap_binary_keys);
	tcase_add_test(tc, test_hmap_random);
	tcase_add_test(tc, test_hmap_growth);
	tcase_add_test(tc, test_hmap_iter_delete);
	tcase_add_test(tc, test_hmap_iter_delete_long);
	tcase_add_test(tc, test_hmap_iter_replace);
	tcase_add_test(tc, test_hmap_collisions);
	tcase_add_test(tc, test_hmap_full_collisions);
	tcase_add_test(tc, test_hmap_seeds);
	tcase_add_test(tc, test_hmap_key_hash);
	tcase_add_test(tc, test_hmap_spread);
	tcase_add_test(tc, test_hmap_random_seed);
	tcase_add_test(tc, test_hmap_counts);
	suite_add_tcase(s, tc);
	return (s);
}
