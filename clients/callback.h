/*
 * callback.h -- the pure parts of `mcpctl login` (login.c): what comes
 * back from the authorization server, as the head of the browser's
 * request to the local listener or as the address pasted on standard
 * input, and the page the browser gets in answer.
 *
 * Nothing here does I/O.  Every input is bounded by its caller (the
 * request head and a pasted line are at most a few KiB); every string
 * returned is new and NUL-terminated, and holds no NUL of the input.
 */
#ifndef MCPD_CALLBACK_H
#define MCPD_CALLBACK_H

#include <stddef.h>

/* The path of the redirect URI on the listener. */
#define CALLBACK_PATH	"/callback"
/*
 * The listener's address handed to the browser opener: it redirects to
 * the authorization URL, which so never appears on a command line.
 */
#define CALLBACK_START_PATH	"/start"

/* The members of the redirect's query that matter; NULL when absent. */
struct callback {
	char	*code;
	char	*state;
	char	*error;
	char	*error_description;
	char	*iss;		/* RFC 9207: the issuer, relayed to mcpd */
};

enum callback_kind {
	CALLBACK_RESULT,	/* a code, or an error: relay it */
	CALLBACK_EMPTY,		/* a query with neither */
	CALLBACK_BAD,		/* a member twice, or a NUL in one */
	CALLBACK_OTHER,		/* not a GET of CALLBACK_PATH, or a URL */
	CALLBACK_START,		/* a GET of CALLBACK_START_PATH */
};

/*
 * A query string (application/x-www-form-urlencoded: '+' is a space,
 * %XX a byte; a '%' not followed by two hex digits stays as it is)
 * into cb, which must be empty (zeroed or cleared).  Members other than
 * the five are ignored.  An error makes the result an error even if a
 * code came too; an empty code is no code.  cb holds what was found
 * whatever the answer, except after CALLBACK_BAD, when it is cleared.
 */
enum callback_kind	 callback_query(const char *q, size_t len,
			    struct callback *cb);
/*
 * The length of the head of an HTTP request in buf (up to and including
 * the empty line that ends it, CRLF or LF), or 0 if it has not ended yet.
 */
size_t			 callback_head_end(const char *buf, size_t len);
/*
 * The head of an HTTP request: CALLBACK_START if its request line is a
 * GET of CALLBACK_START_PATH (with a query or not), CALLBACK_OTHER unless
 * it is a GET of CALLBACK_PATH, else as callback_query.
 */
enum callback_kind	 callback_request(const char *head, size_t len,
			    struct callback *cb);
/*
 * A line pasted by hand: after blanks are trimmed, an http or https URL
 * with a query (its fragment dropped), as callback_query; CALLBACK_OTHER
 * for anything else, CALLBACK_EMPTY also for a URL without a query.
 */
enum callback_kind	 callback_url(const char *line, struct callback *cb);
/* Free the members and empty cb. */
void			 callback_clear(struct callback *cb);

/* s with &, <, >, " and ' as HTML character references. */
char			*callback_html(const char *s);
/*
 * A whole HTTP/1.1 response (status 200, 400, 404 or 431) with a small
 * HTML page: its title, and the text as its one paragraph, both made
 * printable (esc.h) and escaped.  It is never cached or framed, runs
 * nothing, and closes the connection.
 */
char			*callback_page(int status, const char *title,
			    const char *text);
/*
 * A whole HTTP/1.1 response sending the browser on to location (303 See
 * Other), with a page linking to it for a browser that does not follow.
 * location must be printable ASCII without blanks (it is a header's
 * value); anything else aborts.
 */
char			*callback_see_other(const char *location);

#endif /* MCPD_CALLBACK_H */
