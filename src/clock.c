/*
 * clock.c -- monotonic and wall-clock time (clock.h), from the kernel or
 * from the source a program gives.
 */
#include "config.h"

#include <time.h>

#include "clock.h"

/* The time a batch of messages arrived, or 0 outside a batch. */
static uint64_t			 clock_batch_us;
static const struct clock_source	*clock_source;

void
clock_use(const struct clock_source *cs)
{
	clock_source = cs;
}

static uint64_t
clock_read_us(void)
{
	struct timespec	 ts;

	if (clock_source != NULL)
		return (clock_source->mono_us());
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}

uint64_t
clock_now_us(void)
{
	if (clock_batch_us != 0)
		return (clock_batch_us);
	return (clock_read_us());
}

/*
 * Messages read together arrived together: one clock reading serves them
 * all, instead of one or two per message.  Returns whether this call
 * began the batch (nested calls leave the outer one's time alone).
 */
int
clock_batch_begin(void)
{
	if (clock_batch_us != 0)
		return (0);
	clock_batch_us = clock_read_us();
	return (1);
}

void
clock_batch_end(int began)
{
	if (began)
		clock_batch_us = 0;
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

	if (clock_source != NULL && clock_source->real_us != NULL)
		return (clock_source->real_us());
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000);
}
