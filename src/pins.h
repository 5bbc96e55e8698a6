/*
 * pins.h -- the definitions a person has approved of one server's tools,
 * prompts and resource templates, and a fresh list compared with them
 * (pure: the daemon reads and writes the file, daemon/pins_store.c).
 *
 * A definition is the whole list entry (name, title, description,
 * schemas, annotations...) in its canonical JSON (jcs.h); it is pinned by
 * the SHA-256 of that text, and the text is kept so that a change can be
 * shown as a diff.  Each kind is "seeded" by the first whole list a
 * server shows: every definition of it approved at once (trust on first
 * use).  After that a fresh list's entries are each SAME, CHANGED (the
 * name is pinned to another hash) or NEW, and the pinned names missing
 * from it GONE.
 *
 * Bounds: PINS_MAX_ENTRIES names of each kind, definitions of at most
 * PINS_MAX_DEF_BYTES, names of at most PINS_MAX_NAME_BYTES, and
 * PINS_MAX_BYTES of definitions in all.  An entry outside them, or one
 * that cannot be judged (no string name, no canonical JSON), is never
 * SAME: it is NEW with a reason (why), and cannot be approved.
 *
 * The file (pins_dump, pins_load) is one JSON object:
 *   {"version": 1, "server": NAME, "key": KEY,
 *    "seeded": ["tools", ...],
 *    "tools": {NAME: {"sha256": HEX, "def": CANONICAL-TEXT}, ...},
 *    "prompts": {...}, "templates": {...}}
 * pins_load checks everything in it (each hash against its text), and
 * refuses the whole file for one fault: a store that cannot be read is
 * not half-trusted.
 */
#ifndef MCPD_PINS_H
#define MCPD_PINS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "jcs.h"

#define PINS_VERSION		1
#define PINS_MAX_ENTRIES	4096
#define PINS_MAX_NAME_BYTES	1024
#define PINS_MAX_DEF_BYTES	(256 * 1024)
#define PINS_MAX_BYTES		(16 * 1024 * 1024)

enum pins_kind {
	PINS_TOOLS,		/* tools/list: "tools", by "name" */
	PINS_PROMPTS,		/* prompts/list: "prompts", by "name" */
	PINS_TEMPLATES,		/* resources/templates/list:
				   "resourceTemplates", by "uriTemplate" */
	PINS_KINDS
};

enum pins_change {
	PINS_SAME,
	PINS_CHANGED,
	PINS_NEW,
	PINS_GONE,
};

/* One entry of a fresh list (or one pinned name missing from it). */
struct pins_verdict {
	enum pins_change change;
	char		*name;		/* NULL: the entry has none */
	char		*old_def;	/* pinned text: CHANGED, GONE */
	char		*new_def;	/* fresh text: SAME, CHANGED, NEW */
	char		 hash[JCS_HEX_BYTES];	/* of new_def, or "" */
	const char	*why;		/* cannot be pinned: why */
};

struct pins_check {
	struct pins_verdict *v;
	size_t		 n;
};

struct pins;

/* "tools", "prompts", "templates" (the file's and mcpctl's words). */
const char	*pins_kind_name(enum pins_kind);
/* The singular for messages: "tool", "prompt", "resource template". */
const char	*pins_kind_noun(enum pins_kind);
/* The list result's member and an entry's name member. */
const char	*pins_kind_member(enum pins_kind);
const char	*pins_kind_key(enum pins_kind);
/* "unchanged", "changed", "new", "gone". */
const char	*pins_change_name(enum pins_change);

struct pins	*pins_new(void);
void		 pins_free(struct pins *);
int		 pins_seeded(const struct pins *, enum pins_kind);
size_t		 pins_count(const struct pins *, enum pins_kind);
/* The pinned text of name, or NULL. */
const char	*pins_def(const struct pins *, enum pins_kind,
		    const char *name);

/*
 * Judge entries (a cJSON array of list entries; anything else is an
 * empty list) against what is pinned.  out is filled (pins_check_free).
 */
void		 pins_compare(const struct pins *, enum pins_kind,
		    const cJSON *entries, struct pins_check *out);
void		 pins_check_free(struct pins_check *);
/*
 * Pin name to def (canonical text): 0, or -1 with *cause when a bound
 * forbids it.
 */
int		 pins_approve(struct pins *, enum pins_kind, const char *name,
		    const char *def, const char **cause);
/* Seed kind: every verdict's definition that can be pinned is. */
void		 pins_seed(struct pins *, enum pins_kind,
		    const struct pins_check *);

/* The file's text (malloc'd). */
char		*pins_dump(const struct pins *, const char *server,
		    const char *key);
/* Read a file's text: 0 with *out, or -1 with *cause (malloc'd). */
int		 pins_load(const char *text, size_t len, struct pins **out,
		    char **cause);

#endif /* MCPD_PINS_H */
