/*
 * pages.h -- an MCP list (tools, prompts, resources, resource templates)
 * fetched whole, every page, through a session (session.h); and whether
 * a server says it offers one.
 */
#ifndef MCPD_PAGES_H
#define MCPD_PAGES_H

#include <cjson/cJSON.h>

struct session;

/* pages_fetch flags. */
#define PAGES_QUIET	0x1	/* nothing said of a failure */
#define PAGES_OPTIONAL	0x2	/* "method not found": an empty list */

/*
 * Every page of method's list, its member arrays in one array (caller
 * frees), following nextCursor; or NULL, *rc the exit code, the failure
 * said on stderr under server unless PAGES_QUIET.
 */
cJSON	*pages_fetch(struct session *, const char *server, const char *method,
	    const char *member, int flags, int *rc);
/*
 * Does the server declare the capability (its initialize result's
 * capabilities.WHAT)?  If not, say "SERVER offers no WHAT" and return 0.
 */
int	 pages_offers(const struct session *, const char *server,
	    const char *what);

#endif /* MCPD_PAGES_H */
