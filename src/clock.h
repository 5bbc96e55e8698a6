/*
 * clock.h -- time, in one place: the monotonic clock for timers, delays
 * and latencies (never the wall clock, which jumps), and the wall clock
 * for timestamps people read.  Between clock_batch_begin and
 * clock_batch_end, the monotonic clock reads the batch's start.
 */
#ifndef MCPD_CLOCK_H
#define MCPD_CLOCK_H

#include <stdint.h>

uint64_t	clock_now_ms(void);
uint64_t	clock_now_us(void);
uint64_t	clock_realtime_us(void);
int		clock_batch_begin(void);
void		clock_batch_end(int);

/*
 * Where a program that keeps its own time (a fuzz target replaying an
 * input) reads both clocks instead of the kernel; NULL for the kernel, as
 * mcpd runs.  real_us may be NULL: the kernel's wall clock.
 */
struct clock_source {
	uint64_t	(*mono_us)(void);
	uint64_t	(*real_us)(void);
};
void		clock_use(const struct clock_source *);

#endif /* MCPD_CLOCK_H */
