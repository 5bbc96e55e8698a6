/*
 * htoken.h -- the HTTP front's bearer tokens: the store's text (one line
 * a token: its name, the SHA-256 of the token, when it was made, when it
 * expires, the servers and groups it reaches), parsed and printed, and a
 * presented token checked against it.  Only hashes are kept: the token
 * itself is shown once, by mcpctl token create.  Pure.
 *
 *	NAME TAB SHA256-HEX TAB CREATED TAB EXPIRES TAB SERVERS
 *
 * CREATED and EXPIRES in seconds since the Epoch (EXPIRES 0: never);
 * SERVERS "*" for every one, or names separated by commas.
 */
#ifndef MCPD_HTOKEN_H
#define MCPD_HTOKEN_H

#include <stddef.h>
#include <stdint.h>

#define HTOKEN_FILE		"http-tokens"	/* in mcpd's token directory */
#define HTOKEN_PATH_ENV		"MCPD_HTTP_TOKENS"
#define HTOKEN_PREFIX		"mcpd_"
#define HTOKEN_RANDOM_BYTES	32
#define HTOKEN_NAME_MAX		64
#define HTOKEN_MAX		1024		/* tokens in one store */
#define HTOKEN_HASH_HEX		65
#define HTOKEN_STORE_MAX	(1024 * 1024)	/* bytes of a store */

struct htoken {
	char		*name;
	char		 hash[HTOKEN_HASH_HEX];
	int64_t		 created;
	int64_t		 expires;	/* 0: never */
	char		**servers;	/* NULL: every one */
	size_t		 nservers;
};

struct htokens {
	struct htoken	*v;
	size_t		 n;
};

/* A token's name: 1 to HTOKEN_NAME_MAX of [A-Za-z0-9._-]. */
int		 htoken_name_ok(const char *);
/*
 * The store's text read: 0, or -1 with *line the first bad line (1-based)
 * and nothing kept.
 */
int		 htokens_parse(const char *text, size_t len, struct htokens *,
		    size_t *line);
/*
 * The store at path read and parsed: 0 (an empty store when there is no
 * file), -1 with errno when it cannot be read, or -2 with *line the
 * first bad line; nothing kept on failure.
 */
int		 htokens_read(const char *path, struct htokens *,
		    size_t *line);
/* Its text, malloc'd. */
char		*htokens_format(const struct htokens *);
void		 htokens_free(struct htokens *);
struct htoken	*htokens_find(const struct htokens *, const char *name);
/* Take out the one named; 0, or -1 if there is none. */
int		 htokens_remove(struct htokens *, const char *name);
/* Add one (name not yet there); servers comma separated or NULL. */
void		 htokens_add(struct htokens *, const char *name,
		    const char *hash, int64_t created, int64_t expires,
		    const char *servers);
/* A token's hash, as the store keeps it. */
void		 htoken_hash(const char *token, char hash[HTOKEN_HASH_HEX]);
/*
 * The entry a presented token is, if it has not expired at now; NULL if
 * none (compared in constant time per entry).
 */
const struct htoken *htokens_check(const struct htokens *,
		    const char *token, int64_t now);
/* May the token reach this server or group? */
int		 htoken_allows(const struct htoken *, const char *server);
/*
 * "30d", "12h", "45m", "3600s" or "3600" as seconds: 0, or -1 if not a
 * positive duration of at most ten years.
 */
int		 htoken_duration(const char *, int64_t *secs);
/* The store's path: $MCPD_HTTP_TOKENS, else DIR/HTOKEN_FILE; malloc'd. */
char		*htoken_path(const char *token_dir);

#endif /* MCPD_HTOKEN_H */
