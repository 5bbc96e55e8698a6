/*
 * diag.h -- how mcpctl reports: its messages on stderr and its exit
 * status, one set for every command and for the bridge (see EXIT STATUS
 * in mcpctl(1)).
 */
#ifndef MCPD_DIAG_H
#define MCPD_DIAG_H

#include <stdarg.h>

#define DIAG_EXIT_OK		0	/* success */
#define DIAG_EXIT_FAILED	1	/* the operation failed */
#define DIAG_EXIT_USAGE		2	/* the command line is wrong */
#define DIAG_EXIT_UNREACHABLE	3	/* mcpd unreachable, or silent */

/*
 * "mcpctl: LABEL: TEXT" (or "mcpctl: TEXT" with a NULL label) on one
 * line of stderr.  TEXT often quotes mcpd, a server or the command line,
 * so its control characters are escaped; tabs are kept.
 */
void	diag_warnx(const char *label, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	diag_vwarnx(const char *label, const char *fmt, va_list ap)
	    __attribute__((format(printf, 2, 0)));

#endif /* MCPD_DIAG_H */
