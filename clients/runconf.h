/*
 * runconf.h -- the configuration file mcpctl import, install, add and
 * remove work on: the one given with --config, else the one the mcpd
 * answering on the socket reads, else mcpd's default (paths.h); a new
 * text of it written (diff, question, backup, atomic rename); and the
 * reload after it was written, asked only of an mcpd that reads it.
 */
#ifndef MCPD_RUNCONF_H
#define MCPD_RUNCONF_H

#include <sys/stat.h>

#include <stddef.h>

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

/* A new text for rc->path, and how to show and write it. */
struct runconf_edit {
	const char	*old;		/* the file as read ("": none) */
	size_t		 oldlen;
	int		 exists;	/* it existed (sb is its stat) */
	struct stat	 sb;
	const char	*new;
	size_t		 newlen;
	const char	*shown_old;	/* the texts the diff shows; NULL: */
	size_t		 shown_oldlen;	/* old and new */
	const char	*shown_new;
	size_t		 shown_newlen;
	int		 dry_run;	/* show, write nothing */
	int		 yes;		/* write without asking */
};

/*
 * Write e->new to rc->path, the one way mcpctl import, add and remove
 * write mcpd's configuration: what check-config would say of the new
 * text (warnings), the diff, nothing more with dry_run; the question
 * (apps_confirm: --yes, or a terminal to ask on); the file's directory
 * made if it is new; the old file kept as PATH.bak; the new one renamed
 * over it if the file still holds e->old; then runconf_reload.  An exit
 * code.
 */
int	runconf_write(struct ctl *, const struct runconf *,
	    const struct runconf_edit *);

#endif /* MCPD_RUNCONF_H */
