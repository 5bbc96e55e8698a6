/*
 * hauth.c -- the bearer tokens mcpd-http takes: the store mcpctl token
 * writes (src/htoken.h), read again whenever its inode, size or time
 * changes; sessions of a revoked token end then.  A request without a
 * token, with an unknown, expired or revoked one gets 401 and
 * WWW-Authenticate.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/http.h>

#include "hfront.h"
#include "htoken.h"
#include "xmalloc.h"

static struct stat	hauth_seen;
static int		hauth_have_seen;

/* The store read again if it changed: 1 if it did. */
int
hauth_load(struct hfront *f)
{
	struct stat	 st;
	size_t		 line;

	if (stat(f->token_path, &st) == -1)
		memset(&st, 0, sizeof st);
	if (hauth_have_seen && st.st_ino == hauth_seen.st_ino &&
	    st.st_size == hauth_seen.st_size &&
	    st.st_mtim.tv_sec == hauth_seen.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == hauth_seen.st_mtim.tv_nsec)
		return (0);
	hauth_seen = st;
	hauth_have_seen = 1;
	if (f->tokens == NULL)
		f->tokens = xcalloc(1, sizeof *f->tokens);
	htokens_free(f->tokens);
	if (htokens_read(f->token_path, f->tokens, &line) == -2)
		hlog("%s: line %zu is not a token's; no token is taken",
		    f->token_path, line);
	return (1);
}

int
hauth_known(struct hfront *f, const char *name)
{
	return (f->tokens != NULL && htokens_find(f->tokens, name) != NULL);
}

static void
hauth_refuse(struct evhttp_request *req, int presented)
{
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "WWW-Authenticate", presented ? "Bearer realm=\"mcpd\", "
	    "error=\"invalid_token\"" : "Bearer realm=\"mcpd\"");
	hserve_error(req, 401, "Unauthorized", presented ? "the token is "
	    "not valid (unknown, expired or revoked)" : "a bearer token is "
	    "required (mcpctl token create)");
}

const struct htoken *
hauth_check(struct hfront *f, struct evhttp_request *req)
{
	const struct htoken	*t;
	const char		*auth;

	if (hauth_load(f))
		hsess_revoked(f);
	auth = evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Authorization");
	if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0) {
		hauth_refuse(req, auth != NULL);
		return (NULL);
	}
	auth += 7;
	while (*auth == ' ')
		auth++;
	t = htokens_check(f->tokens, auth, (int64_t)time(NULL));
	if (t == NULL)
		hauth_refuse(req, 1);
	return (t);
}
