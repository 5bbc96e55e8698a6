/*
 * util.h -- small helpers for every part of the tree.
 */
#ifndef MCPD_UTIL_H
#define MCPD_UTIL_H

/* The number of elements of an array (not of a pointer). */
#define nitems(a)	(sizeof (a) / sizeof (a)[0])

#endif /* MCPD_UTIL_H */
