/*
 * mlevel.c -- MCP's log levels (mlevel.h).
 */
#include "config.h"

#include <string.h>

#include "mlevel.h"

const char *mlevel_names[MLEVEL_COUNT] = {
	"emergency", "alert", "critical", "error", "warning", "notice",
	"info", "debug"
};

int
mlevel_index(const char *name)
{
	int	 i;

	for (i = 0; i < MLEVEL_COUNT; i++) {
		if (strcmp(mlevel_names[i], name) == 0)
			return (i);
	}
	return (-1);
}
