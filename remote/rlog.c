/*
 * rlog.c -- mcpd-remote's log: one line on stderr per call, prefixed
 * "mcpd-remote: " (mcpd takes a server's stderr into its journal).  Every
 * part of the worker logs, so the log lives below them all and calls
 * nothing of theirs.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "remote.h"
#include "xmalloc.h"

void
remote_log(const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	fprintf(stderr, "mcpd-remote: %s\n", text);
	free(text);
}
