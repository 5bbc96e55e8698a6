/*
 * rstate.h -- mcpd's own requestState (pure, but for the key's
 * getrandom): what a client of MCP 2026-07-28 echoes back when it retries
 * a request mcpd answered with input_required, so that mcpd knows which
 * parked request the retry continues, for whom, and whether it is still
 * the same request.
 *
 * The text is "mcpd1." and the base64url (no padding) of:
 *
 *	version		1 byte, RSTATE_VERSION
 *	principal	8 bytes, big-endian
 *	parked		8 bytes, big-endian
 *	round		8 bytes, big-endian
 *	expires_ms	8 bytes, big-endian
 *	digest		32 bytes
 *	tag		32 bytes, HMAC-SHA256 under the key of all that precedes
 *
 * Promises: rstate_decode reads no byte past the length it is given,
 * accepts exactly the texts rstate_encode makes (one text per state:
 * strict base64url, one length), checks the tag before it trusts a field
 * and compares it in constant time.  The key never leaves the process.
 * libcrypto failing to compute a hash (out of memory) aborts, as xmalloc
 * does.
 */
#ifndef MCPD_RSTATE_H
#define MCPD_RSTATE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define RSTATE_KEY_BYTES	32
#define RSTATE_DIGEST_BYTES	32
#define RSTATE_TAG_BYTES	32
#define RSTATE_VERSION		1
#define RSTATE_PREFIX		"mcpd1."
/* The layout above, tag included, and its text. */
#define RSTATE_BINARY_BYTES	(1 + 4 * 8 + RSTATE_DIGEST_BYTES + \
	RSTATE_TAG_BYTES)
#define RSTATE_TEXT_BYTES	(sizeof RSTATE_PREFIX - 1 + \
	(RSTATE_BINARY_BYTES * 4 + 2) / 3)
/* A text longer than this is refused before anything else is read. */
#define RSTATE_TEXT_MAX_BYTES	256

struct rstate {
	uint64_t	principal;	/* whose: the client's principal */
	uint64_t	parked;		/* which parked request (a serial) */
	uint64_t	round;		/* which round of it: usable once */
	uint64_t	expires_ms;	/* monotonic ms after which refused */
	uint8_t		digest[RSTATE_DIGEST_BYTES]; /* rstate_digest's */
};

enum rstate_verdict {
	RSTATE_OK,
	RSTATE_MALFORMED,	/* not a state text of this version */
	RSTATE_FORGED,		/* its tag is not the key's */
};

/* A fresh random key (getrandom(2)); 0, or -1 with errno set. */
int		 rstate_key_new(uint8_t key[RSTATE_KEY_BYTES]);
/* The state as text, RSTATE_TEXT_BYTES long: malloc'd, NUL-ended. */
char		*rstate_encode(const uint8_t key[RSTATE_KEY_BYTES],
		    const struct rstate *);
/*
 * Decode text[0, len) and verify its tag; any length, any bytes.  *out
 * is filled only on RSTATE_OK.
 */
enum rstate_verdict rstate_decode(const uint8_t key[RSTATE_KEY_BYTES],
		    const char *text, size_t len, struct rstate *out);
/* "ok", "malformed" or "forged", for logs. */
const char	*rstate_verdict_name(enum rstate_verdict);

/*
 * The digest of a request: SHA-256 over method, "\n" and the canonical
 * text of params (below).  Params that differ only in the order of an
 * object's keys, or in the top-level members _meta, inputResponses,
 * requestState and task, give the same digest; any other difference (as
 * cJSON reads them) another.
 */
void		 rstate_digest(const char *method, const cJSON *params,
		    uint8_t out[RSTATE_DIGEST_BYTES]);
/*
 * The canonical text of params (NULL reads as {}), malloc'd: compact
 * JSON without those top-level members; each object's members sorted by
 * their keys' bytes (members with the same key keep their order, as the
 * last of them is the one a reader takes), recursively; numbers in the
 * fewest significant digits (15 to 17) that read back as the same
 * double, so that two doubles never print alike (infinity and NaN as
 * null, as cJSON prints them); strings with '"', '\\' and the control
 * characters below 0x20 escaped (\uXXXX for those) and every other byte
 * as it is.  It holds no newline.
 */
char		*rstate_canonical(const cJSON *params);

/*
 * Why a decoded state does not fit a retry by principal at now_ms with
 * this digest: NULL if it does, else a short English reason ("it was
 * issued to another client", "it has expired", "it was issued for
 * another request"), in that order of precedence.
 */
const char	*rstate_mismatch(const struct rstate *, uint64_t principal,
		    uint64_t now_ms, const uint8_t digest[RSTATE_DIGEST_BYTES]);

#endif /* MCPD_RSTATE_H */
