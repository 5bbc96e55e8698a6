/*
 * budget.c -- the daemon-wide memory budget (see budget.h).
 */
#include "config.h"

#include <sys/types.h>

#include <malloc.h>

#include "budget.h"
#include "conf.h"
#include "mcpd.h"

void
budget_add(struct mcpd *mcpd, size_t n)
{
	mcpd->budget_used += n;
	if (mcpd->budget_used > mcpd->budget_peak)
		mcpd->budget_peak = mcpd->budget_used;
}

void
budget_sub(struct mcpd *mcpd, size_t n)
{
	mcpd->budget_used -= n < mcpd->budget_used ? n : mcpd->budget_used;
}

void
budget_hold(struct mcpd *mcpd, size_t *held, size_t now)
{
	if (now > *held)
		budget_add(mcpd, now - *held);
	else
		budget_sub(mcpd, *held - now);
	*held = now;
}

size_t
budget_used(const struct mcpd *mcpd)
{
	return (mcpd->budget_used);
}

int
budget_exhausted(const struct mcpd *mcpd)
{
	return (mcpd->budget_used > mcpd->conf->memory_budget_bytes);
}

void
budget_trim(struct mcpd *mcpd)
{
	if (mcpd->budget_peak < BUDGET_TRIM_PEAK_BYTES ||
	    mcpd->budget_used > BUDGET_TRIM_PEAK_BYTES / 4)
		return;
	/* The large messages are gone: give their pages back. */
	(void)malloc_trim(0);
	mcpd->budget_peak = mcpd->budget_used;
}
