/*
 * reload.h -- apply a new configuration without disturbing what did not
 * change (SIGHUP, mcpd/reload).
 */
#ifndef MCPD_RELOAD_H
#define MCPD_RELOAD_H

#include <cjson/cJSON.h>

struct mcpd;

/*
 * Re-read mcpd's configuration file.  On success returns 0 and a report
 * {"changed", "added", "removed", "unchanged": [names], "actions": {name:
 * what happened to a changed server}, "warnings": [...]};
 * if the new file has errors, keeps the old configuration running and
 * returns -1 with {"errors": [...], "warnings": [...]}.
 */
int	reload_config(struct mcpd *, cJSON **report);

#endif /* MCPD_RELOAD_H */
