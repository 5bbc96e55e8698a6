/*
 * toml_int.h -- what toml.c (the parser) takes from toml_lex.c (the
 * pieces that need no parser state).
 */
#ifndef MCPD_TOML_INT_H
#define MCPD_TOML_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

/* A number or a date longer than this is no number or date of ours. */
#define TOML_SCALAR_MAX_BYTES	128

/* Code point cp, valid, as UTF-8 onto b. */
void	 toml_add_utf8(struct sbuf *b, uint32_t cp);
/* A control character TOML allows in no string or comment (tab is not). */
int	 toml_control(unsigned char c);
/* A character of a bare key: A-Z a-z 0-9 _ -. */
int	 toml_bare(char c);
/* A character of a number, a boolean, a date or a time. */
int	 toml_token_char(char c);
/* A number: 0 with *v, or -1 with what is wrong in *why. */
int	 toml_number(const char *s, size_t n, double *v, const char **why);
/* Two digits at s, at most max: their value, or -1. */
int	 toml_two(const char *s, int max);
/* YYYY-MM-DD, a day that exists. */
int	 toml_date(const char *s, size_t n);
/* An offset date-time, a local date-time, a local date or time. */
int	 toml_datetime(const char *s, size_t n);

#endif /* MCPD_TOML_INT_H */
