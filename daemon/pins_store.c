/*
 * pins_store.c -- pins files: read once per key, shared, written whole
 * (pins_store.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "log.h"
#include "mcpd.h"
#include "paths.h"
#include "pins.h"
#include "pins_store.h"
#include "proto.h"
#include "xmalloc.h"

/* A pins file larger than this is not read. */
#define PINS_STORE_MAX_FILE_BYTES	(PINS_MAX_BYTES * 2)

char *
pins_store_default_dir(void)
{
	char	*state, *path;

	if ((state = paths_state_home()) == NULL)
		return (xstrdup("/var/lib/mcpd-pins"));
	xasprintf(&path, "%s/mcpd/pins", state);
	free(state);
	return (path);
}

/* Read the whole file: 0, 1 if there is none, -1 with *cause. */
static int
pins_store_read(const char *path, char **text, size_t *len, char **cause)
{
	struct stat	 st;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	*text = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return (1);
		xasprintf(cause, "%s", strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > PINS_STORE_MAX_FILE_BYTES) {
		xasprintf(cause, "not a regular file of at most %d bytes",
		    PINS_STORE_MAX_FILE_BYTES);
		close(fd);
		return (-1);
	}
	*text = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		n = read(fd, *text + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	(*text)[got] = '\0';
	*len = got;
	return (0);
}

static void
pins_store_load(struct pins_slot *s)
{
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, s->server },
	};
	char			*text, *cause = NULL;
	size_t			 len;
	int			 rc, k;

	if (s->path == NULL) {
		s->pins = pins_new();
		return;
	}
	rc = pins_store_read(s->path, &text, &len, &cause);
	if (rc == 1) {
		s->pins = pins_new();
		return;
	}
	if (rc == 0 && pins_load(text, len, &s->pins, &cause) == 0) {
		free(text);
		return;
	}
	free(text);
	s->broken = 1;
	s->broken_why = cause;
	s->pins = pins_new();
	/* Every kind seeded and empty: all is held until approved. */
	for (k = 0; k < PINS_KINDS; k++) {
		struct pins_check	 none = { NULL, 0 };

		pins_seed(s->pins, (enum pins_kind)k, &none);
	}
	log_event(LOG_ERR, MCPD_MID_PIN, f, 1, "server %s: pins file %s "
	    "cannot be read (%s): every tool, prompt and resource template of "
	    "it is held until approved (mcpctl pins %s)", s->server, s->path,
	    cause, s->server);
}

struct pins_slot *
pins_store_get(struct mcpd *mcpd, const char *server, const char *key)
{
	struct pins_slot	*s;

	for (s = mcpd->pin_slots; s != NULL; s = s->next) {
		if (strcmp(s->server, server) == 0 &&
		    strcmp(s->key, key) == 0) {
			s->refs++;
			return (s);
		}
	}
	s = xcalloc(1, sizeof *s);
	s->server = xstrdup(server);
	s->key = xstrdup(key);
	if (mcpd->pin_dir != NULL)
		xasprintf(&s->path, "%s/%s-%s.json", mcpd->pin_dir, server,
		    key);
	s->refs = 1;
	pins_store_load(s);
	s->next = mcpd->pin_slots;
	mcpd->pin_slots = s;
	return (s);
}

void
pins_store_put(struct mcpd *mcpd, struct pins_slot *s)
{
	struct pins_slot	**pp;

	if (s == NULL || --s->refs > 0)
		return;
	for (pp = &mcpd->pin_slots; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	pins_free(s->pins);
	free(s->server);
	free(s->key);
	free(s->path);
	free(s->broken_why);
	free(s);
}

/* The directory of path, made (0700) if missing, and this user's. */
static int
pins_store_dir(const char *path, char **cause)
{
	char	*dir, *p;
	int	 rc;

	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) != NULL && p != dir)
		*p = '\0';
	if ((rc = fdio_private_dir(dir)) == -2)
		xasprintf(cause, "pins directory %s is not a directory of "
		    "this user's", dir);
	else if (rc == -1)
		xasprintf(cause, "pins directory %s: %s", dir, strerror(errno));
	free(dir);
	return (rc == 0 ? 0 : -1);
}

int
pins_store_save(struct pins_slot *s, char **cause)
{
	char	*text, *tmp, *dir, *slash;
	int	 fd, dfd;

	*cause = NULL;
	if (s->path == NULL) {
		s->broken = 0;
		return (0);
	}
	if (pins_store_dir(s->path, cause) != 0)
		return (-1);
	text = pins_dump(s->pins, s->server, s->key);
	xasprintf(&tmp, "%s.XXXXXX", s->path);
	if ((fd = mkstemp(tmp)) == -1) {
		xasprintf(cause, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (fchmod(fd, 0600) == -1 || fdio_write_all(fd, text,
	    strlen(text)) == -1 || fdio_write_all(fd, "\n", 1) == -1 ||
	    fsync(fd) == -1) {
		xasprintf(cause, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto fail;
	}
	if (close(fd) == -1 || rename(tmp, s->path) == -1) {
		xasprintf(cause, "%s: %s", s->path, strerror(errno));
		unlink(tmp);
		goto fail;
	}
	dir = xstrdup(s->path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(dir);
	free(tmp);
	free(text);
	s->broken = 0;
	free(s->broken_why);
	s->broken_why = NULL;
	return (0);
fail:
	free(tmp);
	free(text);
	return (-1);
}
