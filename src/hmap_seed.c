/*
 * hmap_seed.c -- unpredictable seeds for the maps that hold peers' keys.
 * Apart from hmap.c, which stays pure, so that a program wanting the same
 * hash layout on every run (a fuzz target) can supply its own.
 */
#include "config.h"

#include <sys/random.h>

#include <stdint.h>
#include <stdlib.h>

#include "clock.h"
#include "hmap.h"

uint64_t
hmap_random_seed(void)
{
	uint64_t	 seed;

	if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == (ssize_t)sizeof seed)
		return (seed);
	/* No entropy yet (early boot), or no getrandom: the best at hand. */
	return (clock_realtime_us() ^ ((uint64_t)random() << 32) ^
	    (uint64_t)random());
}
