/*
 * conf_file.c -- read mcpd's configuration file, and trust it only if its
 * owner and directories say nobody else could have written it.
 *
 * The file decides what mcpd executes, as the user mcpd runs as: a file
 * others can write, or that another user owns, is refused before it is
 * parsed.  Checks are made on the opened descriptor (fstat), and for root
 * on every directory of its resolved path.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "conf_int.h"
#include "fdio.h"
#include "sbuf.h"
#include "xmalloc.h"

#define CONF_FILE_MAX_BYTES	(16 * 1024 * 1024)

static const char *
conf_getenv(const char *name, void *arg)
{
	return (getenv(name));
}

/* "uid 1000 (alice)", or "uid 1000" if no user has it. */
static char *
conf_owner_text(uid_t uid)
{
	struct passwd	*pw;
	char		*text;

	if ((pw = getpwuid(uid)) != NULL && pw->pw_name != NULL)
		xasprintf(&text, "uid %lu (%s)", (unsigned long)uid,
		    pw->pw_name);
	else
		xasprintf(&text, "uid %lu", (unsigned long)uid);
	return (text);
}

/*
 * For root: every directory from the file's (resolved) one up to "/" is
 * root's and writable by nobody else, unless sticky, so that no other user
 * can rename the file away and put one of their own in its place.  sb is
 * the open file's: the path must still lead to it.
 */
static int
conf_check_dirs(const char *file, const struct stat *sb,
    struct conf_diags *diags)
{
	struct stat	 dsb;
	char		*real, *slash, *owner;
	int		 rc = -1;

	if ((real = realpath(file, NULL)) == NULL) {
		conf_diag_error(diags, file, "resolving the path: %s",
		    strerror(errno));
		return (-1);
	}
	if (stat(real, &dsb) == -1 || dsb.st_dev != sb->st_dev ||
	    dsb.st_ino != sb->st_ino) {
		conf_diag_error(diags, file, "changed while it was opened "
		    "(the path leads to another file now); try again");
		goto fail;
	}
	do {
		slash = strrchr(real, '/');
		if (slash == real)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(real, &dsb) == -1) {
			conf_diag_error(diags, file, "directory %s: %s", real,
			    strerror(errno));
			goto fail;
		}
		if ((dsb.st_mode & (S_IWGRP|S_IWOTH)) &&
		    (dsb.st_mode & S_ISVTX) == 0) {
			conf_diag_error(diags, file, "directory %s is "
			    "writable by group or others (mode %04o, no sticky "
			    "bit), who could replace the file; mcpd as root "
			    "refuses it (chmod go-w %s)", real,
			    (unsigned int)(dsb.st_mode & 07777), real);
			goto fail;
		}
		if (dsb.st_uid != 0) {
			owner = conf_owner_text(dsb.st_uid);
			conf_diag_error(diags, file, "directory %s is owned "
			    "by %s, who could replace the file; mcpd as root "
			    "refuses it (chown root %s, or move the file)",
			    real, owner, real);
			free(owner);
			goto fail;
		}
	} while (strcmp(real, "/") != 0);
	rc = 0;

fail:
	free(real);
	return (rc);
}

/*
 * Whose file mcpd may run: the configuration decides what it executes, as
 * the user it runs as.  Root (real or effective: either can become root
 * again) trusts only root; another user trusts itself and root, so that a
 * user may run the system's file and check it with mcpctl.
 */
static int
conf_check_owner(const char *file, const struct stat *sb,
    struct conf_diags *diags)
{
	uid_t	 euid = geteuid();
	char	*owner, *self;

	if (getuid() == 0 || euid == 0) {
		if (sb->st_uid != 0) {
			owner = conf_owner_text(sb->st_uid);
			conf_diag_error(diags, file, "owned by %s, not root; "
			    "mcpd as root runs only a configuration root owns "
			    "(chown root %s)", owner, file);
			free(owner);
			return (-1);
		}
		return (conf_check_dirs(file, sb, diags));
	}
	if (sb->st_uid != euid && sb->st_uid != 0) {
		owner = conf_owner_text(sb->st_uid);
		self = conf_owner_text(euid);
		conf_diag_error(diags, file, "owned by %s, not by %s or root; "
		    "mcpd runs only a configuration its own user or root owns "
		    "(copy it to a file of your own)", owner, self);
		free(self);
		free(owner);
		return (-1);
	}
	return (0);
}

/*
 * A file the configuration names (an envFile, a credential): what it
 * holds is put into servers' environments and arguments, so it is trusted
 * as the configuration is, by its owner and mode; a secret, so the text
 * and the errors say nothing of it.
 */
static int
conf_read_secret_file(const char *path, char **textp, size_t *lenp,
    char **cause)
{
	struct stat	 sb;
	char		*text = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	uid_t		 euid = geteuid();
	int		 fd;

	*textp = NULL;
	*cause = NULL;
	fd = open(path, O_RDONLY|O_CLOEXEC|O_NOCTTY|O_NONBLOCK);
	if (fd == -1) {
		xasprintf(cause, "%s", strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) == -1) {
		xasprintf(cause, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		xasprintf(cause, "not a regular file");
		goto fail;
	}
	if (sb.st_mode & (S_IWGRP|S_IWOTH)) {
		xasprintf(cause, "is group- or world-writable (mode %04o); "
		    "refusing to use it (chmod go-w)",
		    (unsigned int)(sb.st_mode & 07777));
		goto fail;
	}
	if (sb.st_uid != euid && sb.st_uid != 0) {
		xasprintf(cause, "owned by uid %lu, not by uid %lu or root; "
		    "refusing to use it", (unsigned long)sb.st_uid,
		    (unsigned long)euid);
		goto fail;
	}
	if (sb.st_size > CONF_SECRET_FILE_MAX_BYTES) {
		xasprintf(cause, "larger than %d bytes",
		    CONF_SECRET_FILE_MAX_BYTES);
		goto fail;
	}
	text = xmalloc(CONF_SECRET_FILE_MAX_BYTES + 2);
	for (;;) {
		n = read(fd, text + len, CONF_SECRET_FILE_MAX_BYTES + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			xasprintf(cause, "read: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += n;
		if (len > CONF_SECRET_FILE_MAX_BYTES) {
			xasprintf(cause, "larger than %d bytes",
			    CONF_SECRET_FILE_MAX_BYTES);
			goto fail;
		}
	}
	close(fd);
	text[len] = '\0';
	*textp = text;
	*lenp = len;
	return (0);

fail:
	if (text != NULL) {
		explicit_bzero(text, CONF_SECRET_FILE_MAX_BYTES + 2);
		free(text);
	}
	close(fd);
	return (-1);
}

struct conf *
conf_load_text(const char *file, const char *text, size_t len,
    struct conf_diags *diags)
{
	struct conf	*conf;

	conf = conf_parse_file(text, len, file, conf_getenv, NULL,
	    conf_read_secret_file, diags);
	if (conf != NULL) {
		conf->file = xstrdup(file);
		conf->text = xmalloc(len + 1);
		memcpy(conf->text, text, len);
		conf->text[len] = '\0';
		conf->text_len = len;
	}
	return (conf);
}

struct conf *
conf_load(const char *file, struct conf_diags *diags)
{
	struct conf	*conf;
	struct stat	 sb;
	struct sbuf	 b = { NULL, 0, 0 };
	int		 fd;

	/*
	 * O_NONBLOCK: a FIFO must not hang us before fstat refuses it.  A
	 * symbolic link is followed (dotfile managers make them): what is
	 * checked is the file opened, through fstat, and the directories of
	 * its resolved path.
	 */
	fd = open(file, O_RDONLY|O_CLOEXEC|O_NOCTTY|O_NONBLOCK);
	if (fd == -1) {
		conf_diag_error(diags, file, "%s", strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &sb) == -1) {
		conf_diag_error(diags, file, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		conf_diag_error(diags, file, "not a regular file");
		goto fail;
	}
	if (sb.st_mode & (S_IWGRP|S_IWOTH)) {
		conf_diag_error(diags, file, "is group- or world-writable "
		    "(mode %04o); refusing to use it: it decides what mcpd "
		    "executes (chmod go-w %s)",
		    (unsigned int)(sb.st_mode & 07777), file);
		goto fail;
	}
	if (conf_check_owner(file, &sb, diags) != 0)
		goto fail;

	if (fdio_read_all(fd, CONF_FILE_MAX_BYTES, &b) == -1) {
		if (errno == EFBIG)
			conf_diag_error(diags, file, "larger than %d bytes",
			    CONF_FILE_MAX_BYTES);
		else
			conf_diag_error(diags, file, "read: %s",
			    strerror(errno));
		goto fail;
	}
	close(fd);

	conf = conf_load_text(file, b.p, b.len, diags);
	free(b.p);
	return (conf);

fail:
	free(b.p);
	close(fd);
	return (NULL);
}
