/*
 * diag.c -- mcpctl's one way of writing a message on stderr.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "esc.h"
#include "xmalloc.h"

void
diag_vwarnx(const char *label, const char *fmt, va_list ap)
{
	char	*raw, *text;

	xvasprintf(&raw, fmt, ap);
	text = esc_text(raw, strlen(raw), ESC_KEEP_TAB);
	if (label != NULL)
		fprintf(stderr, "mcpctl: %s: %s\n", label, text);
	else
		fprintf(stderr, "mcpctl: %s\n", text);
	free(text);
	free(raw);
}

void
diag_warnx(const char *label, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	diag_vwarnx(label, fmt, ap);
	va_end(ap);
}
