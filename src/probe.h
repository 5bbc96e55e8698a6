/*
 * probe.h -- which era of MCP a stdio server speaks, and how mcpd found
 * out (pure: no I/O; daemon/worker_probe.c does the talking).
 *
 * With "protocol": "auto", the first message to a new process is
 * server/discover, as MCP 2026-07-28's stdio transport has a client that
 * speaks both eras find a server's: a discover result offering
 * 2026-07-28 makes the session 2026; any other answer, or none within
 * the probe's time, makes it 2025 (initialize, in the same process); a
 * process that ends while the probe is out is a 2025 server that cannot
 * take it, started once more with initialize first.
 *
 * The verdict is kept by configuration: a key that is the SHA-256 of the
 * server's command, arguments, environment and working directory, each
 * length-prefixed (so two configurations never give the same text, and
 * the same key needs a SHA-256 collision), in a table of at most
 * PROBE_CACHE_MAX verdicts (the least recently used one makes room).
 * The next start of the same configuration goes straight to its era;
 * when that stops working (a 2025 verdict's initialize refused naming
 * 2026-07-28, a 2026 verdict's discover failing) the other era is tried
 * in the same process and the verdict replaced.
 */
#ifndef MCPD_PROBE_H
#define MCPD_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "conf.h"

#define PROBE_KEY_BYTES		32
#define PROBE_KEY_HEX		(2 * PROBE_KEY_BYTES)
#define PROBE_CACHE_MAX		1024
/* How long a probe waits for its answer: this, or half the start's limit. */
#define PROBE_TIMEOUT_MS	2000

enum probe_era {
	PROBE_ERA_NONE,			/* not known (yet) */
	PROBE_ERA_2025,			/* initialize */
	PROBE_ERA_2026,			/* MCP 2026-07-28: server/discover */
};

/* How the era was found. */
enum probe_how {
	PROBE_HOW_NONE,
	PROBE_HOW_CONFIGURED,		/* "protocol", or a remote server */
	PROBE_HOW_DISCOVER,		/* discover answered with 2026-07-28 */
	PROBE_HOW_REFUSED,		/* discover answered otherwise */
	PROBE_HOW_SILENT,		/* no answer within the probe's time */
	PROBE_HOW_INTOLERANT,		/* the process ended on the probe */
	PROBE_HOW_INIT_REFUSED,		/* initialize refused naming 2026 */
};

struct probe_verdict {
	enum probe_era	 era;
	enum probe_how	 how;
};

/* What to send a new process first. */
enum probe_first {
	PROBE_FIRST_INITIALIZE,		/* initialize (2025) */
	PROBE_FIRST_DISCOVER,		/* discover only (2026-07-28) */
	PROBE_FIRST_PROBE,		/* discover, else initialize */
};

/* The answer to a probe. */
enum probe_answer {
	PROBE_ANSWER_2026,		/* a discover result with 2026-07-28 */
	PROBE_ANSWER_OTHER,		/* an error, or a result without it */
	PROBE_ANSWER_SILENT,		/* none within the probe's time */
	PROBE_ANSWER_ENDED,		/* the process ended first */
};

/* What follows an answer. */
enum probe_next {
	PROBE_NEXT_SESSION_2026,	/* the discover result is the session */
	PROBE_NEXT_INITIALIZE,		/* initialize, same process */
	PROBE_NEXT_RESTART,		/* a new process, initialize first */
};

struct probe_cache;

/* The key of a server's configuration (see above). */
void		 probe_key(const struct conf_server *,
		    uint8_t key[PROBE_KEY_BYTES]);
/* As hex, NUL-ended; and back (-1: not PROBE_KEY_HEX hex digits). */
void		 probe_key_hex(const uint8_t key[PROBE_KEY_BYTES],
		    char hex[PROBE_KEY_HEX + 1]);
int		 probe_key_parse(const char *hex,
		    uint8_t key[PROBE_KEY_BYTES]);

/*
 * The first message, given "protocol", whether the server is remote (its
 * worker, mcpd-remote, speaks 2025 with mcpd) and the cached verdict
 * (NULL or era NONE: none).  A 2026 verdict is a probe too: discover
 * first, initialize if that fails.
 */
enum probe_first probe_first(enum conf_protocol, int remote,
		    const struct probe_verdict *cached);
/* The answer to a probe: a response (error or result). */
enum probe_answer probe_classify(const cJSON *response);
/* What follows the answer, and the verdict it gives. */
enum probe_next	 probe_next(enum probe_answer, struct probe_verdict *);

/* "2026-07-28", "2025"; "how" for status and the journal; NULL: none. */
const char	*probe_era_name(enum probe_era);
const char	*probe_how_name(enum probe_how);
/* Back from probe_how_name; PROBE_HOW_NONE for an unknown name. */
enum probe_how	 probe_how_parse(const char *);

struct probe_cache *probe_cache_new(size_t max);
void		 probe_cache_free(struct probe_cache *);
/* 0 and *v if the key has a verdict (it becomes the most recent); -1. */
int		 probe_cache_get(struct probe_cache *,
		    const uint8_t key[PROBE_KEY_BYTES],
		    struct probe_verdict *v);
/* Kept or replaced; an era NONE verdict takes the key's away. */
void		 probe_cache_put(struct probe_cache *,
		    const uint8_t key[PROBE_KEY_BYTES],
		    const struct probe_verdict *v);
size_t		 probe_cache_count(const struct probe_cache *);
/* The i'th verdict, least recent first (for a re-exec's handover). */
void		 probe_cache_at(const struct probe_cache *, size_t i,
		    uint8_t key[PROBE_KEY_BYTES], struct probe_verdict *v);

#endif /* MCPD_PROBE_H */
