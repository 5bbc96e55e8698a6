/*
 * conf_int.h -- what the files of the configuration (conf.c, conf_diag.c,
 * conf_expand.c, conf_file.c, conf_group.c, conf_clients.c, conf_remote.c,
 * conf_setting.c, conf_share.c, conf_value.c, conf_command.c) share, and
 * nobody else.
 */
#ifndef MCPD_CONF_INT_H
#define MCPD_CONF_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "sandbox.h"

#define CONF_NAME_MAX_LEN	64	/* servers and groups */

/*
 * Read a file the configuration names (conf.h): 0 with *text (NUL-ended,
 * len bytes; a secret: wipe it) or -1 with *cause (no value from the
 * file in it).
 */
typedef int (*conf_readfile_fn)(const char *path, char **text, size_t *len,
    char **cause);

/* State of one conf_parse call. */
struct conf_parse {
	struct conf_diags	*diags;
	conf_getenv_fn		 getenv_fn;
	void			*getenv_arg;
	conf_readfile_fn	 readfile_fn;	/* NULL: from memory */
	struct conf_settings	 defaults;
	struct conf		*conf;
	size_t			 servers_cap;
	/* The "mcpd" object's "sandbox" and "sandbox_required". */
	struct sb_spec		 sandbox;
	/* The entry being read has its own of each (conf_sandbox.c). */
	int			 entry_sandbox;
	int			 entry_sandbox_required;
};

/* conf_parse, with the file's name for diagnostics. */
struct conf	*conf_parse_file(const char *text, size_t len,
		    const char *file, conf_getenv_fn getenv_fn,
		    void *getenv_arg, conf_readfile_fn readfile_fn,
		    struct conf_diags *diags);

/* conf_diag.c: diagnostics, "PATH: message" (PATH a JSON path or file). */
void		 conf_diag_error(struct conf_diags *, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void		 conf_diag_warn(struct conf_diags *, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void		 conf_error(struct conf_parse *, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void		 conf_warn(struct conf_parse *, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Filters (filter.h) report through this, arg the conf_parse. */
void		 conf_filter_error(void *arg, const char *path,
		    const char *message);
/* text is not JSON: reported at file, by the line and column of offset. */
void		 conf_json_error(struct conf_diags *, const char *file,
		    const char *text, size_t offset);
/*
 * The strings of a JSON text that hold "\u0000", by their number in
 * document order (keys and values, from 0): NULL if none, else *nmarks
 * of them (free it).
 */
size_t		*conf_nul_strings(const char *text, size_t len,
		    size_t *nmarks);
/*
 * Each string of root (parsed from text) that holds "\u0000" reported by
 * its JSON path; returns how many there were.
 */
size_t		 conf_check_nul(const char *text, size_t len,
		    const cJSON *root, const char *file, struct conf_diags *);

/* conf_expand.c: strings expanded, files named read. */
/* A string member, expanded; NULL (reported) if not a string or bad. */
char		*conf_string(struct conf_parse *, const char *path,
		    const cJSON *);
/*
 * A file the configuration names, through cp->readfile_fn: its text
 * (*len bytes; wipe it), or NULL after reporting why at path, what
 * naming it.
 */
char		*conf_read_named(struct conf_parse *, const char *path,
		    const char *what, const char *file, size_t *len);

/* conf_value.c: what every part reads the same way. */
/* For finding repeated keys: sorted by key, then by position. */
struct conf_key {
	const char	*key;
	size_t		 seq;
};

/*
 * Given keys[i].seq == i, first[i] is the position of the first key
 * equal to key i (keys is sorted; free first).
 */
size_t		*conf_first_keys(struct conf_key *keys, size_t n);
/* first[i]: the position of the first key equal to the i-th one. */
size_t		*conf_object_first_keys(const cJSON *);
/* Two lists of n strings hold the same ones, in any order. */
int		 conf_set_equal(char *const *, char *const *, size_t n);
/*
 * "roots" and "member_roots": absolute paths or file:// URIs, appended to
 * *out as file:// URIs.
 */
void		 conf_parse_roots(struct conf_parse *, const char *path,
		    const cJSON *array, char ***out, size_t *nout);
/* Filters (filter.h): a key's kind or -1. */
int		 conf_filter_kind(const char *key);

/*
 * conf_setting.c: the settings (its table), the "mcpd" object.  What a
 * change of a server setting means on reload: it runs the server
 * differently (a restart), it is compared with the remote keys
 * (conf_remote_equal), or it changes only when the server starts and
 * stops (start, idle_stop_s, first_start_timeout_ms).
 */
enum conf_setting_group {
	CONF_SETTING_RUNS,
	CONF_SETTING_REMOTE,
	CONF_SETTING_WAKES,
};

/* cp->defaults and cp->conf's daemon-wide settings, before any key. */
void		 conf_setting_defaults(struct conf_parse *);
/* The "mcpd" object: daemon-wide keys and every server's defaults. */
void		 conf_parse_defaults(struct conf_parse *, const cJSON *);
/*
 * A server setting: parsed into s (its bit set in *set if valid,
 * reported if not); 0 if the key is no setting.
 */
/* The name of setting i, or NULL past the last (for suggestions). */
const char	*conf_setting_name(size_t i);
int		 conf_setting_key(struct conf_parse *, const char *path,
		    const cJSON *item, struct conf_settings *s, uint32_t *set);
/* Cross-checks, only for settings given at this level (set mask). */
void		 conf_check_settings(struct conf_parse *, const char *path,
		    const struct conf_settings *, uint32_t set);
/* Daemon-wide settings that depend on each other, after every key. */
void		 conf_check_daemon(struct conf_parse *);
/* Every setting of s into the server. */
void		 conf_settings_to_server(struct conf_server *,
		    const struct conf_settings *);
/* The settings of one group are the same in both servers. */
int		 conf_settings_same(const struct conf_server *,
		    const struct conf_server *, enum conf_setting_group);

/*
 * conf_remote.c: the keys of a remote server.  The remote members of a
 * struct conf_server (transport to oauth) are filled in by these, and
 * freed, copied and compared by the last three.
 */
/* 1 if an entry is a remote server: it has "url" or a remote "type". */
int		 conf_remote_entry(const cJSON *);
/*
 * A "type" string: its transport (CONF_TRANSPORT_AUTO is never
 * returned), or -1 if it names none.
 */
int		 conf_remote_type(const char *, enum conf_transport *);
/*
 * A key only a remote entry takes (url, headers, oauth, ca_file): parsed
 * into cs when remote, refused otherwise.  0 if it is not such a key.
 */
int		 conf_remote_key(struct conf_parse *, const char *path,
		    const cJSON *item, int remote, struct conf_server *cs);
/* After every key of a remote entry: what is missing or inconsistent. */
void		 conf_remote_finish(struct conf_parse *, const char *path,
		    const cJSON *object, struct conf_server *cs);
void		 conf_remote_clear(struct conf_server *);
void		 conf_remote_copy(struct conf_server *,
		    const struct conf_server *);
int		 conf_remote_equal(const struct conf_server *,
		    const struct conf_server *);

/*
 * conf_share.c: how clients share a server.  A key of its own (share,
 * max_instances, max_instances_per_uid, member_roots) is parsed into cs
 * (0 if it is not such a key); after every key, conf_share_finish checks
 * them together and sets the defaults.  The last three free, copy and
 * compare them.
 */
int		 conf_share_key(struct conf_parse *, const char *path,
		    const cJSON *item, struct conf_server *cs);
void		 conf_share_finish(struct conf_parse *, const char *path,
		    const cJSON *object, struct conf_server *cs);
void		 conf_share_clear(struct conf_server *);
void		 conf_share_copy(struct conf_server *,
		    const struct conf_server *);
int		 conf_share_equal(const struct conf_server *,
		    const struct conf_server *);

/*
 * conf_sandbox.c: "sandbox" and "sandbox_required".  In the "mcpd"
 * object, into cp->sandbox (0 if the key is neither); in an entry, into
 * cs->sandbox (a remote one's warned of and ignored).  conf_sandbox_finish,
 * called once after every key of each entry, gives an entry without its
 * own the "mcpd" object's.  The last three free, copy and compare.
 */
int		 conf_sandbox_default_key(struct conf_parse *,
		    const char *path, const cJSON *item);
int		 conf_sandbox_key(struct conf_parse *, const char *path,
		    const cJSON *item, int remote, struct conf_server *cs);
void		 conf_sandbox_finish(struct conf_parse *, int remote,
		    struct conf_server *cs);
void		 conf_sandbox_clear(struct conf_server *);
void		 conf_sandbox_copy(struct conf_server *,
		    const struct conf_server *);
int		 conf_sandbox_equal(const struct conf_server *,
		    const struct conf_server *);

/*
 * conf_group.c: the "groups" object (NULL if absent), read once every
 * server is known, and the built-in group "all".
 */
void		 conf_group_parse(struct conf_parse *, const cJSON *groups);
void		 conf_groups_free(struct conf *);
/*
 * A list of names of configured servers (and, with groups, of groups),
 * each a string, each once, added to *v (*n of them; a non-empty array
 * if nonempty): "groups"' "servers" and "clients"' alike.  -1 after
 * reporting what is wrong with it.
 */
int		 conf_names_read(struct conf_parse *, const char *path,
		    const cJSON *item, int groups, int nonempty, char ***v,
		    size_t *n);

/*
 * conf_clients.c: the "clients" object (NULL if absent), read once every
 * server and group is known, into conf->clients (cpolicy.h).
 */
void		 conf_clients_parse(struct conf_parse *, const cJSON *clients);

#endif /* MCPD_CONF_INT_H */
