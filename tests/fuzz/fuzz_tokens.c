/*
 * fuzz_tokens.c -- the token file's reader (src/tokens.c) on whatever a
 * damaged, truncated or planted file could hold.
 *
 * Invariants:
 * - tokens_parse returns 0 or -1; -1 leaves every member NULL and gives
 *   a reason whose quoted words are member names only (it never quotes a
 *   value, which could be a token);
 * - what it accepts has every required member, only known auth methods,
 *   a secret whenever the method needs one, no control character in any
 *   string, and times in range;
 * - printing what it accepted and reading that back gives the same
 *   tokens (tokens_format and tokens_parse agree), and a copy equals the
 *   original.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tokens.h"
#include "util.h"

const char	*fuzz_target_name = "tokens";

static const char *
field(const struct tokens *t, size_t i)
{
	const char	*v[] = { t->server_url, t->resource, t->issuer,
	    t->token_endpoint, t->revocation_endpoint, t->client_id,
	    t->client_secret, t->auth_method, t->client_source,
	    t->access_token, t->refresh_token, t->scope };

	return (i < nitems(v) ? v[i] : NULL);
}

#define NFIELDS	12

static int
same(const struct tokens *a, const struct tokens *b)
{
	const char	*x, *y;
	size_t		 i;

	for (i = 0; i < NFIELDS; i++) {
		x = field(a, i);
		y = field(b, i);
		if ((x == NULL) != (y == NULL) ||
		    (x != NULL && strcmp(x, y) != 0))
			return (0);
	}
	return (a->expires_at == b->expires_at &&
	    a->obtained_at == b->obtained_at);
}

static void
check_clean(const char *s)
{
	const unsigned char	*p;

	if (s == NULL)
		return;
	FUZZ_CHECK(*s != '\0' && strlen(s) <= TOKENS_MAX_STRING,
	    "an empty or overlong string accepted");
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "a control character "
		    "accepted");
}

/* Every "word" in a reason is the name of a member. */
static void
check_reason(const char *err)
{
	static const char *const names[] = { "mcpd_tokens", "client",
	    "server_url", "resource", "issuer", "token_endpoint",
	    "revocation_endpoint", "client_id", "client_secret",
	    "auth_method", "source", "access_token", "refresh_token", "scope",
	    "expires_at", "obtained_at" };
	const char	*p = err, *q;
	size_t		 i, len;

	while ((p = strchr(p, '"')) != NULL) {
		q = strchr(p + 1, '"');
		FUZZ_CHECK(q != NULL, "an unbalanced quote: %s", err);
		len = (size_t)(q - p - 1);
		for (i = 0; i < nitems(names); i++) {
			if (strlen(names[i]) == len &&
			    strncmp(names[i], p + 1, len) == 0)
				break;
		}
		FUZZ_CHECK(i < nitems(names), "the reason quotes a value: %s",
		    err);
		p = q + 1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tokens	 t, u, c;
	const char	*text = (const char *)data;
	char		*err, *out;
	size_t		 i;

	if (tokens_parse(&t, text, size, &err) == -1) {
		FUZZ_CHECK(err != NULL, "refused without a reason");
		for (i = 0; i < NFIELDS; i++)
			FUZZ_CHECK(field(&t, i) == NULL, "a member left set "
			    "after a refusal");
		check_reason(err);
		free(err);
		return (0);
	}
	FUZZ_CHECK(t.server_url != NULL && t.resource != NULL &&
	    t.issuer != NULL && t.token_endpoint != NULL &&
	    t.client_id != NULL && t.auth_method != NULL,
	    "a required member missing");
	FUZZ_CHECK(strcmp(t.auth_method, "none") == 0 ||
	    (t.client_secret != NULL &&
	    (strcmp(t.auth_method, "client_secret_basic") == 0 ||
	    strcmp(t.auth_method, "client_secret_post") == 0)),
	    "an unknown auth method, or one without its secret");
	for (i = 0; i < NFIELDS; i++)
		check_clean(field(&t, i));
	FUZZ_CHECK(t.expires_at >= 0 && t.obtained_at >= 0, "a negative time");

	out = tokens_format(&t);
	FUZZ_CHECK(tokens_parse(&u, out, strlen(out), &err) == 0,
	    "its own text refused: %s", err);
	FUZZ_CHECK(same(&t, &u), "the text reads back different");
	tokens_copy(&c, &t);
	FUZZ_CHECK(same(&t, &c), "a copy differs");
	free(out);
	tokens_clear(&t);
	tokens_clear(&u);
	tokens_clear(&c);
	return (0);
}
