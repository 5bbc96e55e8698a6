/*
 * metrics.h -- render mcpd's status as Prometheus text exposition (pure).
 *
 * The input is the object mcpd/status returns ({"servers": [...],
 * "daemon": {...}}), so the numbers people see in `mcpctl status` and in
 * `mcpctl metrics` come from one place.  Latency buckets arrive as counts
 * per power of two of microseconds and leave as a cumulative histogram in
 * seconds.
 */
#ifndef MCPD_METRICS_H
#define MCPD_METRICS_H

#include <cjson/cJSON.h>

/* A malloc'd text ending in a newline. */
char	*metrics_render(const cJSON *status);

#endif /* MCPD_METRICS_H */
