/*
 * hmap_seed.c -- unpredictable seeds for the maps that hold peers' keys,
 * or one fixed seed for a program that wants the same hash layout on every
 * run (a fuzz target).  Apart from hmap.c, which stays pure.
 */
#include "config.h"

#include <sys/random.h>

#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "hmap.h"

static uint64_t	hmap_fixed_seed;

void
hmap_seed_fix(uint64_t seed)
{
	hmap_fixed_seed = seed;
}

uint64_t
hmap_random_seed(void)
{
	uint64_t	 seed;

	if (hmap_fixed_seed != 0)
		return (hmap_fixed_seed);
	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed)
		return (seed);
	/* No entropy yet (early boot), or no getrandom: the best at hand. */
	return (clock_realtime_us() ^ ((uint64_t)random() << 32) ^
	    (uint64_t)random());
}
