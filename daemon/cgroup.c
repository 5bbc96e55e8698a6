/*
 * cgroup.c -- one cgroup v2 per server (see cgroup.h).
 *
 * Invariants:
 * - cgroup_root_dir is set at most once, by cgroup_init, before the first
 *   fork; it names a directory on a cgroup2 file system that mcpd owns,
 *   and no other mcpd: one whose supervisor cgroup holds another process
 *   is not used (a named one is refused, mcpd's own delegated cgroup is
 *   left for a reaper per server).
 * - A server's cgroup is empty (cgroup.events: populated 0) whenever a new
 *   process is started in it: cgroup_server_prepare kills what is left and
 *   refuses to go on while anything remains.
 * - Nothing here runs a libevent callback; the few waits are bounded and
 *   short (a SIGKILLed process is gone within milliseconds).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "log.h"
#include "util.h"
#include "xmalloc.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define CGROUP_SUPERVISOR	"supervisor"
#define CGROUP_LEAF_PREFIX	"server-"
#define CGROUP_EMPTY_WAIT_MS	2000	/* after cgroup.kill, at most */
#define CGROUP_POLL_MS		2
#define CGROUP_SLOW_MS		100	/* a wait worth a log line */
#define CGROUP_KILL_ROUNDS	1000	/* without cgroup.kill */
#define CGROUP_READ_MAX_BYTES	(4 * 1024 * 1024)
#define CGROUP_FIELDS_MAX	64	/* of a line of /proc/self/mountinfo */

/* Controllers mcpd enables for its servers, and the keys that need them. */
enum {
	CGROUP_CTRL_MEMORY = 0x1,
	CGROUP_CTRL_PIDS = 0x2,
	CGROUP_CTRL_CPU = 0x4,
};
static const struct {
	const char	*name;
	int		 bit;
	const char	*key;
} cgroup_controllers[] = {
	{ "memory",	CGROUP_CTRL_MEMORY,	"memory_max" },
	{ "pids",	CGROUP_CTRL_PIDS,	"pids_max" },
	{ "cpu",	CGROUP_CTRL_CPU,	"cpu_weight" },
};

/* Process-wide, set once before any fork (see the invariants). */
static char	*cgroup_root_dir;
static int	 cgroup_enabled;	/* CGROUP_CTRL_* in subtree_control */
static int	 cgroup_warned;		/* CGROUP_CTRL_* missing, said once */

static void
cgroup_sleep_ms(long ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

char *
cgroup_read(const char *dir, const char *file)
{
	char	 path[CGROUP_DIR_MAX + 64], *buf = NULL;
	size_t	 len = 0, size = 0;
	ssize_t	 n;
	int	 fd, saved;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	for (;;) {
		if (len + 1 >= size) {
			if (size >= CGROUP_READ_MAX_BYTES)
				break;		/* the rest is cut off */
			size = size == 0 ? 4096 : size * 2;
			buf = xrealloc(buf, size);
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			close(fd);
			free(buf);
			errno = saved;
			return (NULL);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (buf);
}

int
cgroup_write(const char *dir, const char *file, const char *value)
{
	char	 path[CGROUP_DIR_MAX + 64];
	size_t	 len = strlen(value);
	ssize_t	 n;
	int	 fd, saved;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return (-1);
	do
		n = write(fd, value, len);
	while (n == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n != (ssize_t)len) {
		errno = n == -1 ? saved : EIO;
		return (-1);
	}
	return (0);
}

/* Whether a space-separated list (cgroup.controllers) holds word. */
static int
cgroup_has_word(const char *list, const char *word)
{
	size_t		 len = strlen(word);
	const char	*p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return (1);
		p += len;
	}
	return (0);
}

/* "KEY 1" in cgroup.events text: 1, 0, or -1 if absent. */
static int
cgroup_events_key(const char *text, const char *key)
{
	const char	*p = text;
	size_t		 len = strlen(key);

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, len) == 0 && p[len] == ' ')
			return (p[len + 1] == '1');
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return (-1);
}

int
cgroup_event(const char *dir, const char *key)
{
	char	*text;
	int	 value;

	if ((text = cgroup_read(dir, "cgroup.events")) == NULL)
		return (-1);
	if ((value = cgroup_events_key(text, key)) == -1)
		errno = ENOMSG;
	free(text);
	return (value);
}

int
cgroup_populated(const char *dir)
{
	int	 populated;

	if ((populated = cgroup_event(dir, "populated")) == -1)
		return (errno == ENOENT ? 0 : 1);
	return (populated);
}

void
cgroup_leaf_name(const char *name, char *buf, size_t len)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 off;
	unsigned char		 c;

	off = (size_t)snprintf(buf, len, "%s", CGROUP_LEAF_PREFIX);
	for (; *name != '\0' && off + 4 <= len; name++) {
		c = (unsigned char)*name;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '-') {
			buf[off++] = (char)c;
		} else {
			buf[off++] = '_';
			buf[off++] = hex[c >> 4];
			buf[off++] = hex[c & 0xf];
		}
	}
	buf[off < len ? off : len - 1] = '\0';
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void
cgroup_unescape(char *s)
{
	char	*out = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else
			*out++ = *s;
	}
	*out = '\0';
}

/*
 * The directory of mcpd's own cgroup: the cgroup2 mount point from
 * /proc/self/mountinfo joined with the "0::" line of /proc/self/cgroup.
 * NULL (with a reason) if there is no cgroup2 hierarchy.
 */
static char *
cgroup_own_dir(char **why)
{
	char	*info, *self, *line, *next, *field[CGROUP_FIELDS_MAX], *p;
	char	*mount = NULL, *root = NULL, *path = NULL, *dir = NULL;
	size_t	 n, i, rootlen;

	if ((info = cgroup_read("/proc/self", "mountinfo")) == NULL) {
		xasprintf(why, "/proc/self/mountinfo: %s", strerror(errno));
		return (NULL);
	}
	for (line = info; line != NULL && mount == NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		n = 0;
		for (p = strtok(line, " "); p != NULL && n < CGROUP_FIELDS_MAX;
		    p = strtok(NULL, " "))
			field[n++] = p;
		/* id parent dev root mountpoint opts [optional...] - type ... */
		for (i = 6; i + 1 < n; i++) {
			if (strcmp(field[i], "-") == 0)
				break;
		}
		if (i + 1 < n && strcmp(field[i + 1], "cgroup2") == 0) {
			root = field[3];
			mount = field[4];
		}
	}
	if (mount == NULL) {
		xasprintf(why, "no cgroup2 file system is mounted");
		free(info);
		return (NULL);
	}
	cgroup_unescape(root);
	cgroup_unescape(mount);

	if ((self = cgroup_read("/proc/self", "cgroup")) == NULL) {
		xasprintf(why, "/proc/self/cgroup: %s", strerror(errno));
		free(info);
		return (NULL);
	}
	for (line = self; line != NULL && path == NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, "0::/", 4) == 0)
			path = line + 3;
	}
	rootlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
	if (path == NULL)
		xasprintf(why, "/proc/self/cgroup has no cgroup v2 entry");
	else if (strncmp(path, root, rootlen) != 0)
		xasprintf(why, "mcpd's cgroup %s is outside the cgroup2 mount "
		    "at %s", path, mount);
	else
		xasprintf(&dir, "%s%s", mount, strcmp(path + rootlen, "/") == 0 ?
		    "" : path + rootlen);
	free(self);
	free(info);
	return (dir);
}

/* Marked delegated by its manager (systemd 251 and later: Delegate=). */
static int
cgroup_delegated(const char *dir)
{
	static const char	*names[] = { "trusted.delegate", "user.delegate" };
	char			 value[8];
	ssize_t			 n;
	size_t			 i;

	for (i = 0; i < nitems(names); i++) {
		n = getxattr(dir, names[i], value, sizeof value - 1);
		if (n > 0) {
			value[n] = '\0';
			if (strcmp(value, "1") == 0)
				return (1);
		}
	}
	return (0);
}

/* Whether mcpd already lives below root (a re-exec, or the guard's own). */
static int
cgroup_below(const char *own, const char *root)
{
	size_t	 len = strlen(root);

	return (own != NULL && strncmp(own, root, len) == 0 && own[len] == '/');
}

/*
 * A process other than this one in R/supervisor: another mcpd (or its
 * guard) runs its servers below R, and the cgroups of its servers, named
 * as this mcpd's would be, are not this mcpd's to empty.  Its pid, or 0.
 */
static long
cgroup_other_supervisor(const char *root)
{
	char	 dir[CGROUP_DIR_MAX], *procs, *p, *end;
	long	 pid, other = 0;

	snprintf(dir, sizeof dir, "%s/%s", root, CGROUP_SUPERVISOR);
	if ((procs = cgroup_read(dir, "cgroup.procs")) == NULL)
		return (0);
	for (p = procs; *p != '\0' && other == 0; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0 && pid != (long)getpid())
			other = pid;
	}
	free(procs);
	return (other);
}

/*
 * mcpd moves into R/supervisor (unless it already lives below R).  Two
 * mcpds that start at once may both find it empty: once in, each looks
 * again.  Returns the pid of another mcpd found there, or 0.
 */
static long
cgroup_enter(const char *root, const char *own)
{
	char	 dir[CGROUP_DIR_MAX];
	long	 other;

	if (cgroup_below(own, root))
		return (0);
	if ((other = cgroup_other_supervisor(root)) != 0)
		return (other);
	snprintf(dir, sizeof dir, "%s/%s", root, CGROUP_SUPERVISOR);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		log_warnx("cgroup: mkdir %s: %s", dir, strerror(errno));
	else if (cgroup_write(dir, "cgroup.procs", "0") != 0)
		log_warnx("cgroup: moving mcpd into %s: %s", dir,
		    strerror(errno));
	return (cgroup_other_supervisor(root));
}

/* The controllers R offers, enabled for the servers' cgroups. */
static void
cgroup_setup(const char *root)
{
	char	 dir[CGROUP_DIR_MAX], *offered, done[64] = "";
	size_t	 i, off;
	int	 error;

	if ((offered = cgroup_read(root, "cgroup.controllers")) == NULL) {
		log_warnx("cgroup: %s/cgroup.controllers: %s", root,
		    strerror(errno));
		return;
	}
	for (i = 0; i < sizeof cgroup_controllers /
	    sizeof cgroup_controllers[0]; i++) {
		if (!cgroup_has_word(offered, cgroup_controllers[i].name))
			continue;
		snprintf(dir, sizeof dir, "+%s", cgroup_controllers[i].name);
		if (cgroup_write(root, "cgroup.subtree_control", dir) != 0) {
			error = errno;
			log_warnx("cgroup: enabling the %s controller in %s: "
			    "%s%s", cgroup_controllers[i].name, root,
			    strerror(error), error == EBUSY ? " (other "
			    "processes live in it)" : "");
			continue;
		}
		cgroup_enabled |= cgroup_controllers[i].bit;
		off = strlen(done);
		snprintf(done + off, sizeof done - off, " %s",
		    cgroup_controllers[i].name);
	}
	free(offered);
	log_info("containment: every server in a cgroup of its own below %s "
	    "(controllers:%s)", root, done[0] != '\0' ? done : " none");
}

int
cgroup_init(const char *path, char **cause)
{
	struct statfs	 sfs;
	char		*own, *why = NULL, *real;
	int		 named = path != NULL;
	long		 other;

	*cause = NULL;
	own = cgroup_own_dir(&why);
	if (path == NULL) {
		if (own == NULL) {
			log_info("containment: no cgroup (%s); a reaper process "
			    "per server", why);
			free(why);
			return (0);
		}
		if (!cgroup_delegated(own)) {
			log_info("containment: mcpd's cgroup %s is not "
			    "delegated to it (Delegate=yes, or --cgroup); a "
			    "reaper process per server", own);
			free(own);
			return (0);
		}
		path = own;
	}
	free(why);

	if (path[0] != '/') {
		xasprintf(cause, "cgroup %s: not an absolute path", path);
		goto fail;
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		xasprintf(cause, "cgroup %s: mkdir: %s", path, strerror(errno));
		goto fail;
	}
	if (statfs(path, &sfs) != 0) {
		xasprintf(cause, "cgroup %s: %s", path, strerror(errno));
		goto fail;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		xasprintf(cause, "cgroup %s: not on a cgroup2 file system",
		    path);
		goto fail;
	}
	if (access(path, W_OK) != 0) {
		xasprintf(cause, "cgroup %s: %s", path, strerror(errno));
		goto fail;
	}
	if ((real = realpath(path, NULL)) == NULL) {
		xasprintf(cause, "cgroup %s: %s", path, strerror(errno));
		goto fail;
	}
	if (strlen(real) + 1 + CGROUP_LEAF_MAX + 32 > CGROUP_DIR_MAX) {
		xasprintf(cause, "cgroup %s: path too long", path);
		free(real);
		goto fail;
	}
	if ((other = cgroup_enter(real, own)) != 0) {
		if (named) {
			xasprintf(cause, "cgroup %s: in use by another mcpd "
			    "(pid %ld in %s/%s)", real, other, real,
			    CGROUP_SUPERVISOR);
			free(real);
			goto fail;
		}
		log_info("containment: mcpd's cgroup %s is in use by another "
		    "mcpd (pid %ld); a reaper process per server", real, other);
		free(real);
		free(own);
		return (0);
	}
	cgroup_root_dir = real;
	cgroup_setup(cgroup_root_dir);
	free(own);
	return (0);

fail:
	free(own);
	return (-1);
}

const char *
cgroup_root(void)
{
	return (cgroup_root_dir);
}

/* Each limit goes to its file, "max" (or the default) when unset. */
static void
cgroup_apply_limits(const struct conf_server *cs, const char *dir)
{
	char		 value[32];
	const char	*key = NULL;
	int		 need = 0, i;

	if (cs->memory_max != 0)
		need |= CGROUP_CTRL_MEMORY;
	if (cs->pids_max != 0)
		need |= CGROUP_CTRL_PIDS;
	if (cs->cpu_weight != 0)
		need |= CGROUP_CTRL_CPU;
	for (i = 0; i < (int)(sizeof cgroup_controllers /
	    sizeof cgroup_controllers[0]); i++) {
		if ((need & cgroup_controllers[i].bit) &&
		    !(cgroup_enabled & cgroup_controllers[i].bit) &&
		    !(cgroup_warned & cgroup_controllers[i].bit)) {
			cgroup_warned |= cgroup_controllers[i].bit;
			log_warnx("%s: %s ignored: the %s controller is not "
			    "available in %s (said once)", cs->path,
			    cgroup_controllers[i].key,
			    cgroup_controllers[i].name, cgroup_root_dir);
		}
	}

	if (cgroup_enabled & CGROUP_CTRL_MEMORY) {
		if (cs->memory_max != 0)
			snprintf(value, sizeof value, "%" PRIu64,
			    cs->memory_max);
		else
			snprintf(value, sizeof value, "max");
		if (cgroup_write(dir, "memory.max", value) != 0)
			key = "memory.max";
		/* An OOM kill takes the whole server, not one of its parts. */
		else if (cgroup_write(dir, "memory.oom.group", "1") != 0)
			key = "memory.oom.group";
	}
	if (key == NULL && (cgroup_enabled & CGROUP_CTRL_PIDS)) {
		if (cs->pids_max != 0)
			snprintf(value, sizeof value, "%" PRIu32, cs->pids_max);
		else
			snprintf(value, sizeof value, "max");
		if (cgroup_write(dir, "pids.max", value) != 0)
			key = "pids.max";
	}
	if (key == NULL && (cgroup_enabled & CGROUP_CTRL_CPU)) {
		snprintf(value, sizeof value, "%" PRIu32,
		    cs->cpu_weight != 0 ? cs->cpu_weight : 100);
		if (cgroup_write(dir, "cpu.weight", value) != 0)
			key = "cpu.weight";
	}
	if (key != NULL)
		log_warnx("%s: writing %s/%s: %s", cs->path, dir, key,
		    strerror(errno));
}

/* Wait until nothing is left in dir: the ms waited, or -1 at the limit. */
static int
cgroup_wait_empty(const char *dir)
{
	int	 waited;

	for (waited = 0; cgroup_populated(dir); waited += CGROUP_POLL_MS) {
		if (waited >= CGROUP_EMPTY_WAIT_MS)
			return (-1);
		cgroup_sleep_ms(CGROUP_POLL_MS);
	}
	return (waited);
}

int
cgroup_server_prepare(const struct conf_server *cs, const char *name,
    char *dir, size_t dirlen, char **cause)
{
	char	 leaf[CGROUP_LEAF_MAX], path[CGROUP_DIR_MAX + 16];
	int	 fd, waited;

	*cause = NULL;
	cgroup_leaf_name(name, leaf, sizeof leaf);
	snprintf(dir, dirlen, "%s/%s", cgroup_root_dir, leaf);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		xasprintf(cause, "cgroup %s: mkdir: %s", dir, strerror(errno));
		return (-1);
	}
	/* Usually what the last leader left, SIGKILLed a moment ago. */
	if (cgroup_populated(dir)) {
		cgroup_server_kill(dir);
		if ((waited = cgroup_wait_empty(dir)) == -1) {
			xasprintf(cause, "cgroup %s: still populated %d ms "
			    "after cgroup.kill", dir, CGROUP_EMPTY_WAIT_MS);
			return (-1);
		}
		if (waited >= CGROUP_SLOW_MS)
			log_info("%s: waited %d ms for the processes left in "
			    "%s to die", cs->path, waited, dir);
	}
	cgroup_apply_limits(cs, dir);
	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "cgroup %s: %s", path, strerror(errno));
		return (-1);
	}
	return (fd);
}

/* Without cgroup.kill (before Linux 5.14): SIGKILL each pid until none. */
static void
cgroup_kill_each(const char *dir)
{
	char	*procs, *p, *end;
	long	 pid;
	int	 round, found;

	for (round = 0; round < CGROUP_KILL_ROUNDS; round++) {
		if ((procs = cgroup_read(dir, "cgroup.procs")) == NULL)
			return;
		found = 0;
		for (p = procs; *p != '\0'; p = end) {
			pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid > 0) {
				(void)kill((pid_t)pid, SIGKILL);
				found = 1;
			}
		}
		free(procs);
		if (!found)
			return;
		cgroup_sleep_ms(1);
	}
}

void
cgroup_server_kill(const char *dir)
{
	if (cgroup_write(dir, "cgroup.kill", "1") == 0)
		return;
	if (errno == ENOENT)
		cgroup_kill_each(dir);
}

void
cgroup_server_remove(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return;
	cgroup_server_kill(dir);
	(void)cgroup_wait_empty(dir);
	if (rmdir(dir) != 0 && errno != ENOENT)
		log_warnx("cgroup: rmdir %s: %s", dir, strerror(errno));
}

/* Kill first, all of them, then wait and remove: no server waits on another. */
void
cgroup_kill_all(void)
{
	char		 dir[CGROUP_DIR_MAX];
	DIR		*d;
	struct dirent	*de;
	int		 pass;

	if (cgroup_root_dir == NULL)
		return;
	for (pass = 0; pass < 2; pass++) {
		if ((d = opendir(cgroup_root_dir)) == NULL)
			return;
		while ((de = readdir(d)) != NULL) {
			if (strncmp(de->d_name, CGROUP_LEAF_PREFIX,
			    strlen(CGROUP_LEAF_PREFIX)) != 0)
				continue;
			snprintf(dir, sizeof dir, "%s/%s", cgroup_root_dir,
			    de->d_name);
			if (pass == 0)
				cgroup_server_kill(dir);
			else if (cgroup_wait_empty(dir) != -1)
				(void)rmdir(dir);
		}
		closedir(d);
	}
}
