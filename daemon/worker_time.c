/*
 * worker_time.c -- the workers' timers and how they write a time: calls
 * nothing of theirs, so that any worker file may use it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <event2/event.h>

#include "worker_int.h"

/* Arm EV for MS milliseconds. */
void
worker_evtimer_add_ms(struct event *ev, uint64_t ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(ev, &tv);
}

/* "30 s", or "200 ms" for a time that is no whole number of seconds. */
void
worker_ms_text(char *buf, size_t size, uint64_t ms)
{
	if (ms >= 1000 && ms % 1000 == 0)
		snprintf(buf, size, "%llu s", (unsigned long long)(ms / 1000));
	else
		snprintf(buf, size, "%llu ms", (unsigned long long)ms);
}
