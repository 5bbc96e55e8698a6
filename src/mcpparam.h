/*
 * mcpparam.h -- the tool parameters MCP 2026-07-28 mirrors into HTTP
 * headers (Streamable HTTP, "Custom Headers from Tool Parameters"): a
 * tool's inputSchema read for its "x-mcp-header" annotations, every one
 * checked, and a call's arguments turned into its Mcp-Param-NAME
 * headers.  Pure: no I/O.
 */
#ifndef MCPD_MCPPARAM_H
#define MCPD_MCPPARAM_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define MCPPARAM_KEY		"x-mcp-header"
#define MCPPARAM_PREFIX		"Mcp-Param-"
/* The bounds of what one tool may annotate; past them it is refused. */
#define MCPPARAM_MAX		32	/* annotations in one inputSchema */
#define MCPPARAM_NAME_MAX	128	/* bytes of a header name's part */
#define MCPPARAM_DEPTH_MAX	16	/* properties on an annotation's path */
#define MCPPARAM_KEY_MAX	256	/* bytes of one property name there */
/* The longest header value sent (after its encoding). */
#define MCPPARAM_VALUE_MAX	8192

enum mcpparam_kind {
	MCPPARAM_STRING,
	MCPPARAM_INTEGER,
	MCPPARAM_BOOLEAN,
};

/* One annotation: the property path from the arguments' root, the name. */
struct mcpparam {
	char			**path;
	size_t			  depth;
	char			 *name;		/* as annotated */
	enum mcpparam_kind	  kind;
};

struct mcpparams {
	struct mcpparam		 p[MCPPARAM_MAX];
	size_t			 n;
};

/*
 * The annotations of a tool's inputSchema (NULL or not an object: none).
 * 0, with every annotation in out (possibly none), or -1 with *why (a
 * new string naming the property and the constraint it breaks) and out
 * empty: the tool must be refused.  Constraints: a name that is a
 * non-empty RFC 9110 token, unique without regard to case; on a property
 * of type "string", "integer" or "boolean"; reached from the root by
 * "properties" alone (not the root itself, nor under items, composition,
 * conditionals, additional or pattern properties, definitions); within
 * the bounds above.
 */
int	 mcpparam_scan(const cJSON *schema, struct mcpparams *out, char **why);
void	 mcpparam_clear(struct mcpparams *);

/*
 * The headers for a call's arguments (NULL: none), each
 * "Mcp-Param-NAME: VALUE" (malloc'd) in out[0..return): a string as is,
 * an integer in decimal (within +-(2^53-1)), a boolean as true or false,
 * in the base64 form where it is not header-safe (mcphdr_value).  A
 * property absent, null, or of another JSON type gets no header (the
 * server judges the arguments).  -1 (nothing in out) when a value is
 * longer than MCPPARAM_VALUE_MAX as a header; *why says which.
 */
int	 mcpparam_headers(const struct mcpparams *, const cJSON *args,
	    char *out[MCPPARAM_MAX], char **why);

/* 1 if c may stand in an RFC 9110 token (tchar). */
int	 mcpparam_tchar(unsigned char c);

#endif /* MCPD_MCPPARAM_H */
