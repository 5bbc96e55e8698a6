/*
 * apps.h -- what mcpctl import, install and uninstall share: where each
 * app keeps its MCP servers, reading those files, writing a file safely
 * (a backup, a temporary file renamed over it, a refusal if it changed
 * meanwhile), the diff and the question before a write.
 */
#ifndef MCPD_APPS_H
#define MCPD_APPS_H

#include <sys/stat.h>

#include <stddef.h>

#include "appconf.h"

#define APPS_FILE_MAX_BYTES	(64 * 1024 * 1024)

/* One app's file found on this machine. */
struct apps_file {
	struct appconf_file	 f;
	char			*path;
	char			*label;		/* path with ~ for $HOME */
	char			*workspace;
	char			*text;		/* as read */
	size_t			 len;
	struct stat		 sb;
};

struct apps_files {
	struct apps_file	*v;
	size_t			 n;
};

/* 1 if name is an app's (claude-desktop, cursor, zed, ...: apps.c). */
int	 apps_known(const char *name);
/* "claude-desktop, cursor, vscode, claude-code...", from apps.c's table. */
const char *apps_names(void);
/*
 * 1 if app starts its servers with a few variables of its environment
 * only (Codex): not XDG_RUNTIME_DIR, so mcpctl connect must be told
 * where mcpd's socket is.
 */
int	 apps_bare_env(const char *app);
/*
 * The files of app (NULL: every app) that exist, read: 0, or -1 after a
 * message (a file that cannot be read).
 */
int	 apps_find(const char *app, struct apps_files *);
/* A file given by path, its shape guessed from its text: 0 or -1. */
int	 apps_add_path(const char *path, struct apps_files *);
void	 apps_files_free(struct apps_files *);

/*
 * Read a regular file of at most APPS_FILE_MAX_BYTES: 0, or 1 if it does
 * not exist (*text "" then), or -1 with *cause.
 */
int	 apps_read(const char *path, char **text, size_t *len,
	    struct stat *sb, char **cause);
/*
 * Write text to path through a temporary file in its directory, renamed
 * over it: the mode and owner of sb (NULL: a new file, mode 0600).  Just
 * before the rename the file must still hold exactly was (wasexists 0:
 * must still not exist), else nothing changes and -1 says so.  0 or -1
 * with *cause.
 */
int	 apps_write(const char *path, const char *text, size_t len,
	    const struct stat *sb, const char *was, size_t waslen,
	    int wasexists, char **cause);
/* Copy text to backup (mode of sb or 0600), replacing it: 0 or -1. */
int	 apps_backup(const char *backup, const char *text, size_t len,
	    const struct stat *sb, char **cause);

/*
 * Show the diff of old and new on stdout, and ask "question [y/N]" on the
 * terminal: 1 to go on (yes given, or the answer y), 0 if not, -1 if
 * there is no terminal to ask on (a message says to rerun with --yes).
 */
int	 apps_confirm(const char *diff, const char *question, int yes);

/* The absolute path of this mcpctl (/proc/self/exe), malloc'd or NULL. */
char	*apps_self(void);

#endif /* MCPD_APPS_H */
