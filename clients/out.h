/*
 * out.h -- printing what mcpd and servers said, on stdout or stderr: text
 * made safe for a terminal, or JSON for scripts.
 */
#ifndef MCPD_OUT_H
#define MCPD_OUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* o's string or number member key, or NULL / dflt. */
const char	*out_str(const cJSON *o, const char *key);
double		 out_num(const cJSON *o, const char *key, double dflt);
/*
 * s made printable for one cell or field of human output (NULL stays
 * NULL); valid until OUT_ESC_SLOTS more calls.
 */
#define OUT_ESC_SLOTS	8
const char	*out_esc(const char *s);
/*
 * A server's text of many lines, ending with exactly the newlines it
 * has, or one; its lines and tabs kept, other control characters escaped.
 */
void		 out_text(FILE *, const char *text);
/* o as indented JSON (one_line: on one line), and a newline. */
void		 out_json(FILE *, const cJSON *o, int one_line);
/*
 * Numbers in o that are integers become raw items that print as integers
 * (cJSON would print a time in microseconds as 1.79566115576201e+15).
 */
void		 out_json_integers(cJSON *o);
/* A duration for a table: "-" (ms < 0), "42s", "3m07s", "2h05m", "1d03h". */
void		 out_duration(char *buf, size_t size, double ms);

#endif /* MCPD_OUT_H */
