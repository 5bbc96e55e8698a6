/*
 * mlevel.h -- MCP's log levels: the RFC 5424 severities as MCP names
 * them, the index being the syslog priority (0 emergency ... 7 debug).
 * A level is more verbose than another when its index is greater.
 */
#ifndef MCPD_MLEVEL_H
#define MCPD_MLEVEL_H

#define MLEVEL_COUNT	8

extern const char *mlevel_names[MLEVEL_COUNT];
/* The index of a level name, or -1. */
int	 mlevel_index(const char *name);

#endif /* MCPD_MLEVEL_H */
