/*
 * clock.c -- monotonic and wall-clock time.
 */
#include "config.h"

#include <time.h>

#include "clock.h"

uint64_t
clock_now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

uint64_t
clock_now_ms(void)
{
	return (clock_now_us() / 1000);
}

uint64_t
clock_realtime_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}
