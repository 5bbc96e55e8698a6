/*
 * pins_store.h -- the pins of every server key on disk (src/pins.h for
 * what they are), one file per key, DIR/SERVER-KEY.json, and each loaded
 * once and shared by the routers of that key (a template's instances).
 *
 * A file is written whole: a temporary file in the directory (0600),
 * fsync, rename over the old one, fsync of the directory.  The directory
 * (mcpd --pin-dir) is made 0700 if missing and must be this user's.
 *
 * A file that cannot be read (not JSON, a hash that does not match its
 * text, past a bound) is logged and its slot is "broken": an empty store
 * with every kind seeded, so that every definition of the server is held
 * until a person approves it; the file is left as it is until then (an
 * approval writes a good one over it).  Holding is the safe choice: to
 * trust instead would let whoever can spoil the file approve everything.
 * Without a directory (NULL: tests' stand-ins) the pins live in memory.
 */
#ifndef MCPD_PINS_STORE_H
#define MCPD_PINS_STORE_H

struct mcpd;
struct pins;

struct pins_slot {
	struct pins	*pins;
	char		*server;
	char		*key;
	char		*path;		/* NULL: memory only */
	int		 broken;	/* the file could not be read */
	char		*broken_why;
	unsigned int	 refs;
	struct pins_slot *next;
};

/* The slot of server and key (key: hex digits), loaded at the first. */
struct pins_slot *pins_store_get(struct mcpd *, const char *server,
		    const char *key);
void		 pins_store_put(struct mcpd *, struct pins_slot *);
/* Write the slot's file: 0, or -1 with *cause (malloc'd). */
int		 pins_store_save(struct pins_slot *, char **cause);
/*
 * The default directory: $XDG_STATE_HOME/mcpd/pins when it is set, else
 * /var/lib/mcpd-pins for root and ~/.local/state/mcpd/pins for others.
 */
char		*pins_store_default_dir(void);

#endif /* MCPD_PINS_STORE_H */
