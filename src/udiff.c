/*
 * udiff.c -- unified diffs of two texts (see udiff.h).
 *
 * The common prefix and suffix of lines are taken off first, so that an
 * edit in a long file costs only the size of the edited region; the rest
 * is a plain longest-common-subsequence table, bounded by UDIFF_MAX_CELLS.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "udiff.h"
#include "xmalloc.h"

struct udiff_line {
	const char	*p;
	size_t		 len;	/* without its '\n' */
	int		 nl;	/* ends with '\n' */
};

/* One edit script entry: ' ', '-' or '+', and the line. */
struct udiff_op {
	char			 op;
	const struct udiff_line	*line;
	size_t			 oldno;	/* 1-based, of the next old line */
	size_t			 newno;
};

static struct udiff_line *
udiff_split(const char *text, size_t len, size_t *n)
{
	struct udiff_line	*v = NULL;
	const char		*p, *end, *nl;

	*n = 0;
	for (p = text, end = text + len; p < end; p = nl + 1) {
		v = xreallocarray(v, *n + 1, sizeof *v);
		if ((nl = memchr(p, '\n', end - p)) == NULL) {
			v[*n].p = p;
			v[*n].len = end - p;
			v[*n].nl = 0;
			(*n)++;
			break;
		}
		v[*n].p = p;
		v[*n].len = nl - p;
		v[*n].nl = 1;
		(*n)++;
	}
	return (v);
}

static int
udiff_same(const struct udiff_line *a, const struct udiff_line *b)
{
	return (a->len == b->len && a->nl == b->nl &&
	    memcmp(a->p, b->p, a->len) == 0);
}

static void
udiff_push(struct udiff_op **ops, size_t *nops, char op,
    const struct udiff_line *line)
{
	*ops = xreallocarray(*ops, *nops + 1, sizeof **ops);
	(*ops)[*nops].op = op;
	(*ops)[*nops].line = line;
	(*nops)++;
}

/* The edit script of a[0..na) to b[0..nb). */
static struct udiff_op *
udiff_script(const struct udiff_line *a, size_t na,
    const struct udiff_line *b, size_t nb, size_t *nops)
{
	struct udiff_op	*ops = NULL;
	uint32_t	*t = NULL;
	size_t		 pre = 0, suf = 0, i, j, m, n, w;

	*nops = 0;
	while (pre < na && pre < nb && udiff_same(&a[pre], &b[pre]))
		pre++;
	while (suf < na - pre && suf < nb - pre &&
	    udiff_same(&a[na - 1 - suf], &b[nb - 1 - suf]))
		suf++;
	for (i = 0; i < pre; i++)
		udiff_push(&ops, nops, ' ', &a[i]);
	m = na - pre - suf;
	n = nb - pre - suf;
	w = n + 1;
	if (m > 0 && n > 0 && (m + 1) <= UDIFF_MAX_CELLS / (n + 1)) {
		/* t[i][j]: LCS length of a[pre+i..] and b[pre+j..]. */
		t = xcalloc((m + 1) * w, sizeof *t);
		for (i = m; i-- > 0;) {
			for (j = n; j-- > 0;) {
				if (udiff_same(&a[pre + i], &b[pre + j]))
					t[i * w + j] = t[(i + 1) * w + j + 1] +
					    1;
				else if (t[(i + 1) * w + j] >= t[i * w + j + 1])
					t[i * w + j] = t[(i + 1) * w + j];
				else
					t[i * w + j] = t[i * w + j + 1];
			}
		}
		i = j = 0;
		while (i < m && j < n) {
			if (udiff_same(&a[pre + i], &b[pre + j])) {
				udiff_push(&ops, nops, ' ', &a[pre + i]);
				i++;
				j++;
			} else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
				udiff_push(&ops, nops, '-', &a[pre + i]);
				i++;
			} else {
				udiff_push(&ops, nops, '+', &b[pre + j]);
				j++;
			}
		}
		free(t);
	} else
		i = j = 0;
	for (; i < m; i++)
		udiff_push(&ops, nops, '-', &a[pre + i]);
	for (; j < n; j++)
		udiff_push(&ops, nops, '+', &b[pre + j]);
	for (i = na - suf; i < na; i++)
		udiff_push(&ops, nops, ' ', &a[i]);
	return (ops);
}

static void
udiff_line_out(struct sbuf *b, char op, const struct udiff_line *l)
{
	sbuf_add(b, &op, 1);
	sbuf_add(b, l->p, l->len);
	sbuf_add(b, "\n", 1);
	if (!l->nl)
		sbuf_add(b, "\\ No newline at end of file\n", 28);
}

char *
udiff(const char *old, size_t oldlen, const char *new, size_t newlen,
    const char *old_label, const char *new_label)
{
	struct sbuf	 b = { NULL, 0, 0 };
	struct udiff_line	*a, *c;
	struct udiff_op		*ops;
	size_t			 na, nc, nops, i, k, start, end, last;
	size_t			 oldno, newno, os, ns, oc, nn;
	char			 head[128], *s;

	sbuf_add(&b, "", 0);
	a = udiff_split(old, oldlen, &na);
	c = udiff_split(new, newlen, &nc);
	ops = udiff_script(a, na, c, nc, &nops);
	/* Line numbers before each op. */
	oldno = newno = 1;
	for (i = 0; i < nops; i++) {
		ops[i].oldno = oldno;
		ops[i].newno = newno;
		if (ops[i].op != '+')
			oldno++;
		if (ops[i].op != '-')
			newno++;
	}
	for (i = 0; i < nops && ops[i].op == ' '; i++)
		;
	if (i < nops) {
		xasprintf(&s, "--- %s\n+++ %s\n", old_label, new_label);
		sbuf_add(&b, s, strlen(s));
		free(s);
	}
	while (i < nops) {
		/* A hunk: from context before the change to the one after. */
		start = i > UDIFF_CONTEXT_LINES ? i - UDIFF_CONTEXT_LINES : 0;
		last = i;
		for (k = i; k < nops; k++) {
			if (ops[k].op != ' ')
				last = k;
			else if (k - last > 2 * UDIFF_CONTEXT_LINES)
				break;
		}
		end = last + 1 + UDIFF_CONTEXT_LINES;
		if (end > nops)
			end = nops;
		os = ops[start].oldno;
		ns = ops[start].newno;
		oc = nn = 0;
		for (k = start; k < end; k++) {
			if (ops[k].op != '+')
				oc++;
			if (ops[k].op != '-')
				nn++;
		}
		snprintf(head, sizeof head, "@@ -%zu,%zu +%zu,%zu @@\n",
		    oc == 0 ? os - 1 : os, oc, nn == 0 ? ns - 1 : ns, nn);
		sbuf_add(&b, head, strlen(head));
		for (k = start; k < end; k++)
			udiff_line_out(&b, ops[k].op, ops[k].line);
		for (i = end; i < nops && ops[i].op == ' '; i++)
			;
	}
	free(ops);
	free(a);
	free(c);
	return (b.p);
}
