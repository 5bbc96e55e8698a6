/*
 * appconf.h -- the MCP server entries of other apps' configuration files
 * (Claude Desktop, Cursor, VS Code, Claude Code), turned into mcpd's
 * entries and merged into mcpd's configuration text; and an app's file
 * rewritten so that its entries run through mcpd (pure: texts in, texts
 * out; mcpctl import and install do the I/O).
 *
 * An app's entry becomes an mcpd entry with command, args, env, envFile,
 * cwd, url, type ("http" or "sse" for a remote one; "stdio" is left out)
 * headers and disabled.  Whatever else the app keeps there
 * ("alwaysAllow", "autoApprove", "timeout", ...) is dropped, with a note.
 * Variables are rewritten into mcpd's "${VAR}" form: VS Code's and
 * Cursor's "${env:VAR}" become "${VAR}", "${userHome}" "${HOME}",
 * "${workspaceFolder}" the project's directory for a project's file; an
 * "${input:ID}" (VS Code prompts for it) or any variable mcpd cannot know
 * becomes "${MCPD_INPUT_ID:-}" and the entry is imported disabled, with a
 * note saying it needs a value.  A literal '$' is written "$$" for mcpd.
 * Claude Code's "${VAR}" and "${VAR:-default}" are mcpd's own and stay.
 * Windsurf writes "${env:VAR}" as VS Code does, Gemini CLI "$VAR" and
 * "${VAR}", opencode "{env:VAR}": each becomes "${VAR}"; Windsurf's
 * "${file:PATH}" and opencode's "{file:PATH}" are values mcpd cannot
 * know.  Zed and Cline have no variables.
 *
 * What mcpd expands comes from mcpd, not from the app: a "${VAR}" (other
 * than the variables every server gets, CONFVAR_PASSED) is read from
 * mcpd's environment and a "${credential:NAME}" is mcpd's systemd
 * credential, whatever the app meant by them.  Each such reference gets a
 * note naming it.  A project's file (in_project: it came with the
 * project, a repository anyone may have written) does not hand its
 * server mcpd's secrets unasked: an entry with such a reference, or with
 * an envFile (which mcpd reads as its own user), is imported disabled,
 * and the note says so.
 *
 * Two entries are the same server when their command, args, env, envFile,
 * cwd, url, type and headers are equal (appconf_same_server), whatever
 * their names, their "disabled" and mcpd's own settings.
 *
 * Messages and notes name apps, files, entries and keys; they may quote a
 * variable's name but never a value.
 */
#ifndef MCPD_APPCONF_H
#define MCPD_APPCONF_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The shape of a file. */
enum appconf_shape {
	APPCONF_MCPSERVERS,	/* {"mcpServers": {...}} */
	APPCONF_SERVERS,	/* VS Code: {"servers": {...}, "inputs": []} */
	APPCONF_CLAUDE_JSON,	/* ~/.claude.json: "mcpServers", "projects" */
	APPCONF_WINDSURF,	/* "mcpServers", "serverUrl" (appshape.h) */
	APPCONF_CLINE,		/* "mcpServers", a bare "url" is SSE */
	APPCONF_GEMINI,		/* "mcpServers", "httpUrl" or "url" (SSE) */
	APPCONF_ZED,		/* {"context_servers": {...}} */
	APPCONF_OPENCODE,	/* {"mcp": {...}}, "command" an array */
	APPCONF_CODEX_TOML,	/* Codex: [mcp_servers.NAME] (appconf_toml.h) */
};

/* How an app writes variables in its strings. */
enum appconf_syntax {
	APPCONF_SYNTAX_NONE,	/* none: every '$' is literal */
	APPCONF_SYNTAX_VSCODE,	/* ${env:VAR}, ${userHome}, ${input:ID} */
	APPCONF_SYNTAX_MCPD,	/* ${VAR}, ${VAR:-default}: as mcpd */
	APPCONF_SYNTAX_SHELL,	/* $VAR, ${VAR}: Gemini CLI */
	APPCONF_SYNTAX_OPENCODE, /* {env:VAR}, {file:PATH} */
};

/* Where a file was found, for its variables and scopes. */
struct appconf_file {
	const char		*app;		/* "cursor", ... */
	const char		*label;		/* for messages: its path */
	enum appconf_shape	 shape;
	enum appconf_syntax	 syntax;
	const char		*workspace;	/* a project's directory, or NULL */
	const char		*project;	/* CLAUDE_JSON: projects' key */
	int			 in_project;	/* came with a project (above) */
};

enum appconf_status {
	APPCONF_NEW,		/* to be added to mcpd's configuration */
	APPCONF_SAME,		/* mcpd has it already, as mcpd_name */
	APPCONF_SKIPPED,	/* runs through mcpctl connect already */
};

/* One entry of an app's file. */
struct appconf_entry {
	char			*name;		/* as the app names it */
	const struct appconf_file *file;
	char			*keys[4];	/* its path of keys in the file */
	size_t			 nkeys;
	cJSON			*server;	/* in mcpd's form */
	char			**notes;
	size_t			 nnotes;
	enum appconf_status	 status;	/* set by appconf_merge */
	char			*mcpd_name;	/* set by appconf_merge */
	int			 renamed;	/* a clash, or a bad name */
	int			 was_disabled;	/* "disabled": true in the app */
};

struct appconf_list {
	struct appconf_entry	*v;
	size_t			 n;
};

/*
 * The entries of one file's text: 0, appended to list, or -1 with *cause
 * ("line 3, column 9: invalid JSON", "\"servers\" is not an object").  A
 * file without any entry is not an error.  The file must outlive list.
 */
int	 appconf_read(const struct appconf_file *, const char *text,
	    size_t len, struct appconf_list *list, char **cause);
void	 appconf_list_free(struct appconf_list *);

/* mcpd's form of one app entry (notes appended to *notes). */
cJSON	*appconf_convert(const struct appconf_file *, const cJSON *entry,
	    char ***notes, size_t *nnotes, int *disable);
/* 1 if two entries in mcpd's form run the same server (see above). */
int	 appconf_same_server(const cJSON *, const cJSON *);

/*
 * Merge list into mcpd's configuration text (len 0: no file yet): each
 * entry's status and mcpd_name are set; entries NEW are added to
 * "mcpServers", keeping every byte of the text around them, and *out is
 * the new text (the same when nothing is new).  An entry whose name mcpd
 * has for another server, or that is not a valid mcpd name (conf.h), is
 * renamed NAME-APP (then NAME-APP-2...).  0, or -1 with *cause when the
 * text is not a JSON object or its "mcpServers" not an object.
 */
int	 appconf_merge(const char *text, size_t len,
	    struct appconf_list *list, char **out, size_t *outlen,
	    char **cause);

/*
 * The n servers (names[i], values[i]) added to "mcpServers" of mcpd's
 * configuration text as appconf_merge adds them: after its last member,
 * in the file's indentation, every other byte kept; a new "mcpServers"
 * at the end of the top level if there is none, a new file for an empty
 * text.  Names are not checked.  0 with *out, or -1 with *cause (not a
 * JSON object, "mcpServers" not an object).
 */
int	 appconf_add_servers(const char *text, size_t len,
	    const char *const *names, cJSON *const *values, size_t n,
	    char **out, size_t *outlen, char **cause);

/*
 * An app's file rewritten: the value at each entry's keys replaced with
 * with_entry[i] (NULL: left as it is), printed in the file's indentation;
 * every other byte, comments included, kept.  NULL with *cause if the
 * text no longer holds an entry.
 */
char	*appconf_rewrite(const char *text, size_t len,
	    const struct appconf_entry *const *entries,
	    cJSON *const *with_entry, size_t n, size_t *outlen, char **cause);

/* An entry as JSON text, members one a line at indent (arrays on one). */
char	*appconf_print(const cJSON *, const char *indent, const char *unit);

#endif /* MCPD_APPCONF_H */
