/*
 * import.h -- mcpctl import, install and uninstall (import.c,
 * install.c): other apps' MCP servers moved under mcpd, and the apps
 * pointed at it.  Each parses its own arguments (argv after the
 * command's name).
 */
#ifndef MCPD_IMPORT_H
#define MCPD_IMPORT_H

#include "ctl.h"

ctl_command_fn	import_run;		/* [--from APP|FILE]... [--dry-run] */
ctl_command_fn	install_run;		/* APP [--servers NAME...] */
ctl_command_fn	install_uninstall;	/* APP [--force] */

/*
 * After mcpd's configuration was written: mcpd/reload if mcpd runs (an
 * exit code; mcpd not running is no failure).
 */
int	import_reload(struct ctl *, const char *config);

#endif /* MCPD_IMPORT_H */
