/*
 * runconf.h -- the configuration file mcpctl import and install work on:
 * the one given with --config, else the one the mcpd answering on the
 * socket reads, else mcpd's default (paths.h); and the reload after it
 * was written, asked only of an mcpd that reads it.
 */
#ifndef MCPD_RUNCONF_H
#define MCPD_RUNCONF_H

#include "ctl.h"

struct runconf {
	char	*path;		/* the file to work on */
	char	*why;		/* why that one, for people */
	char	*running;	/* the file the running mcpd reads, or NULL */
	long	 pid;		/* the running mcpd's pid, or 0 */
};

/*
 * Fill rc for the file given (NULL: none given), asking the mcpd on
 * ctl's socket which file it reads; prints "LABEL: PATH (WHY)" on stdout,
 * and a warning when the file given is not the one mcpd reads.
 */
void	runconf_find(struct ctl *, const char *given, const char *label,
	    struct runconf *);
/*
 * After rc->path was written: mcpd/reload if the mcpd running reads it
 * (an exit code; mcpd not running, or reading another file, is no
 * failure, and said).
 */
int	runconf_reload(struct ctl *, const struct runconf *);
void	runconf_clear(struct runconf *);

#endif /* MCPD_RUNCONF_H */
