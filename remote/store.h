/*
 * store.h -- a sign-in's token file on disk (its text is src/tokens.h's).
 *
 * Promises:
 * - the directory is made 0700 and the file 0600 (umask aside), both
 *   owned by this user; a file or directory others could read is refused
 *   for reading (the tokens may have been seen) and fixed when written;
 * - a save is durable before it returns: a new file written, fsync'd,
 *   renamed over the old one, the directory fsync'd; a crash leaves the
 *   old file or the new one, never a mix;
 * - symbolic links are not followed to the file, its lock or its
 *   temporary;
 * - the lock (flock on "FILE.lock") is what makes "one refresh at a
 *   time" hold across processes: take it, load again, and only then spend
 *   a refresh token.
 */
#ifndef MCPD_STORE_H
#define MCPD_STORE_H

struct tokens;

/* 1 loaded, 0 no file, -1 with *err. */
int	store_load(const char *path, struct tokens *, char **err);
/* 0, or -1 with *err. */
int	store_save(const char *path, const struct tokens *, char **err);
/* 1 removed, 0 there was none, -1 with *err. */
int	store_remove(const char *path, char **err);
/*
 * 1 locked (*fd set; -1 if the directory does not exist: there are no
 * tokens to guard), 0 someone else holds it, -1 with *err.
 */
int	store_trylock(const char *path, int *fd, char **err);
void	store_unlock(int fd);

#endif /* MCPD_STORE_H */
