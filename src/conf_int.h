/*
 * conf_int.h -- what conf.c shares with conf_file.c, and nobody else.
 */
#ifndef MCPD_CONF_INT_H
#define MCPD_CONF_INT_H

#include <stddef.h>

#include "conf.h"

/* conf_parse, with the file's name for diagnostics. */
struct conf	*conf_parse_file(const char *text, size_t len,
		    const char *file, conf_getenv_fn getenv_fn,
		    void *getenv_arg, struct conf_diags *diags);
void		 conf_diag_error(struct conf_diags *, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* MCPD_CONF_INT_H */
