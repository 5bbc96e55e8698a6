/*
 * rparam.h -- the tool parameters a remote of MCP 2026-07-28 wants
 * mirrored into Mcp-Param-* headers (rparam.c): learnt from its
 * tools/list results, added to its tools/call requests.
 */
#ifndef MCPD_RPARAM_H
#define MCPD_RPARAM_H

#include <stddef.h>

struct envelope;
struct rmsg;
struct rparam;

/* The bounds of what is kept of a remote's annotated tools. */
#define RPARAM_TOOLS_MAX	4096
#define RPARAM_BYTES_MAX	(4 * 1024 * 1024)

struct rparam	*rparam_new(void);
void		 rparam_free(struct rparam *);
/*
 * m (a tools/list of 2026) was answered with json: the annotations of
 * its tools kept (a first page, without a cursor, replaces all that was
 * kept; a later one adds), and the tools whose annotations break the
 * rules (or that pass the bounds) taken out of it, each with a warning.
 * Returns the response to pass on instead (malloc'd, *outlen bytes, one
 * line), or NULL to pass json as it is.
 */
char	*rparam_listed(struct rparam *, const struct rmsg *m,
	    const char *json, size_t len, size_t *outlen);
/*
 * m, a tools/call of 2026 for the tool name: its Mcp-Param-* headers
 * (m->phdr), when its tool has annotations.  -1 (*why: malloc'd) when a
 * value cannot go in its header.
 */
int	 rparam_call(struct rparam *, struct rmsg *m, const char *line,
	    const struct envelope *, const char *name, char **why);
/* m's headers freed. */
void	 rparam_free_headers(struct rmsg *m);

#endif /* MCPD_RPARAM_H */
