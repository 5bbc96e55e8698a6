/*
 * rlog.c -- mcpd-remote's log: one line on stderr per call, prefixed
 * "mcpd-remote: " (mcpd takes a server's stderr into its journal).  Every
 * part of the worker logs, so the log lives below them all and calls
 * nothing of theirs.  A harness may take the lines instead.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "remote.h"
#include "xmalloc.h"

static void	(*remote_log_to)(const char *);

void
remote_log_sink(void (*fn)(const char *))
{
	remote_log_to = fn;
}

void
remote_log(const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if (remote_log_to != NULL)
		remote_log_to(text);
	else
		fprintf(stderr, "mcpd-remote: %s\n", text);
	free(text);
}
