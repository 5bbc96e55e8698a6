/*
 * content.h -- MCP content blocks (a tool's result, a prompt's
 * messages) printed for people: text as it is, escaped; the rest named
 * on one line in brackets.
 */
#ifndef MCPD_CONTENT_H
#define MCPD_CONTENT_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* One content block: text as it is, "[image image/png, 5120 bytes]"... */
void	content_print(FILE *, const cJSON *item);
/* The first line of text that says something, escaped (caller frees). */
char	*content_first_line(const char *text);
/* The decoded size of base64 text, without decoding it. */
size_t	content_base64_bytes(const char *data);

#endif /* MCPD_CONTENT_H */
