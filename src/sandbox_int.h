/*
 * sandbox_int.h -- what sandbox.c and sandbox_path.c share, and nobody
 * else: paths in their one spelling and how two of them relate.
 */
#ifndef MCPD_SANDBOX_INT_H
#define MCPD_SANDBOX_INT_H

#include <stddef.h>

/*
 * path in its one spelling: absolute, no "." or empty component, no
 * trailing '/' (but "/" itself).  NULL if it is relative or holds "..":
 * ".." cannot be resolved without the file system (a symbolic link
 * before it changes where it leads).
 */
char	*sb_path_norm(const char *path);
/* 1 if a (normalised) is b or lies below it. */
int	 sb_path_within(const char *a, const char *b);
/* 1 if a lies strictly below b. */
int	 sb_path_below(const char *a, const char *b);
/* dir + "/" + name, for a normalised dir ("/" gives "/name"). */
char	*sb_path_join(const char *dir, const char *name);
/* The directory path lies in (a copy); "/" for "/" and "/x". */
char	*sb_path_dir(const char *path);
/* The last component (a pointer into path). */
const char *sb_path_base(const char *path);

#endif /* MCPD_SANDBOX_INT_H */
