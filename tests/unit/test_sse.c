/*
 * test_sse.c -- unit tests for the Server-Sent Events parser: the
 * examples of the WHATWG specification, line endings, the BOM, ids,
 * retry, the memory bound, and stopping from the callback.  Every input
 * is also fed a byte at a time and in every split into two chunks, and
 * must give the same events.
 */

#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"
#include "unit.h"
#include "util.h"
#include "xmalloc.h"

#define KIB		1024
#define MIB		(1024 * 1024)
#define BIG_MAX		(64 * KIB)

/* What the callbacks saw, as text: "[type|data|id]" and "(retry N)". */
struct rec {
	char		*log;
	size_t		 len;
	size_t		 cap;
	size_t		 events;
	size_t		 stop_at;	/* return -1 on this event (1-based) */
};

static void
rec_put(struct rec *r, const char *p, size_t len)
{
	if (r->len + len + 1 > r->cap) {
		r->cap = (r->len + len + 1) * 2;
		r->log = xrealloc(r->log, r->cap);
	}
	memcpy(r->log + r->len, p, len);
	r->len += len;
	r->log[r->len] = '\0';
}

/* Bytes made readable: LF, CR, NUL and the separators escaped. */
static void
rec_text(struct rec *r, const char *p, size_t len)
{
	char	 esc[8];
	size_t	 i;

	for (i = 0; i < len; i++) {
		switch (p[i]) {
		case '\n':
			rec_put(r, "\\n", 2);
			break;
		case '\r':
			rec_put(r, "\\r", 2);
			break;
		case '\\':
		case '|':
		case '[':
		case ']':
			esc[0] = '\\';
			esc[1] = p[i];
			rec_put(r, esc, 2);
			break;
		default:
			if ((unsigned char)p[i] < 0x20 ||
			    (unsigned char)p[i] >= 0x7f) {
				snprintf(esc, sizeof esc, "\\x%02x",
				    (unsigned char)p[i]);
				rec_put(r, esc, 4);
			} else
				rec_put(r, p + i, 1);
			break;
		}
	}
}

static int
rec_event(void *arg, const struct sse_event *ev)
{
	struct rec	*r = arg;

	/* The strings are NUL-terminated at their lengths. */
	ck_assert_int_eq(ev->type[ev->type_len], '\0');
	ck_assert_int_eq(ev->data[ev->data_len], '\0');
	ck_assert_int_eq(ev->id[ev->id_len], '\0');
	ck_assert_uint_eq(strlen(ev->id), ev->id_len);
	rec_put(r, "[", 1);
	rec_text(r, ev->type, ev->type_len);
	rec_put(r, "|", 1);
	rec_text(r, ev->data, ev->data_len);
	rec_put(r, "|", 1);
	rec_text(r, ev->id, ev->id_len);
	rec_put(r, "]", 1);
	r->events++;
	return (r->stop_at != 0 && r->events == r->stop_at ? -1 : 0);
}

static void
rec_retry(void *arg, uint64_t ms)
{
	struct rec	*r = arg;
	char		 buf[32];

	snprintf(buf, sizeof buf, "(retry %llu)", (unsigned long long)ms);
	rec_put(r, buf, strlen(buf));
}

static const struct sse_cb rec_cb = { rec_event, rec_retry };

struct outcome {
	char		*log;
	enum sse_result	 rc;
	char		*last_id;
};

/*
 * Feeds in[0, len) in chunks ending at the offsets cuts[0..ncuts) (each
 * chunk non-empty), stopping at the first result other than SSE_OK.
 */
static void
run_cuts(const char *in, size_t len, size_t max, size_t stop_at,
    const size_t *cuts, size_t ncuts, struct outcome *o)
{
	struct rec	 r = { 0 };
	struct sse	*s;
	size_t		 at = 0, i, end;
	enum sse_result	 rc = SSE_OK;

	r.stop_at = stop_at;
	rec_put(&r, "", 0);
	s = sse_new(max, &rec_cb, &r);
	for (i = 0; i <= ncuts && rc == SSE_OK; i++) {
		end = i < ncuts ? cuts[i] : len;
		if (end == at)
			continue;
		rc = sse_feed(s, in + at, end - at);
		at = end;
		ck_assert_uint_le(sse_held(s), 5 * (max + 1));
	}
	/* Once stopped, it stays stopped and reports nothing more. */
	if (rc != SSE_OK) {
		ck_assert_int_eq(sse_feed(s, "data: x\n\n", 9), rc);
		ck_assert_int_eq(sse_feed(s, "\n", 1), rc);
	}
	o->log = r.log;
	o->rc = rc;
	o->last_id = xstrdup(sse_last_id(s));
	sse_free(s);
}

static void
outcome_free(struct outcome *o)
{
	free(o->log);
	free(o->last_id);
}

/*
 * The outcome of in[0, len) whole must be want_log, want_rc and want_id,
 * and the same fed a byte at a time and cut anywhere into two chunks.
 */
static void
check_max_stop(const char *in, size_t len, size_t max, size_t stop_at,
    const char *want_log, enum sse_result want_rc, const char *want_id)
{
	struct outcome	 o;
	size_t		*cuts, i;

	run_cuts(in, len, max, stop_at, NULL, 0, &o);
	ck_assert_str_eq(o.log, want_log);
	ck_assert_int_eq(o.rc, want_rc);
	ck_assert_str_eq(o.last_id, want_id);
	outcome_free(&o);

	cuts = xreallocarray(NULL, len + 1, sizeof *cuts);
	for (i = 0; i < len; i++)
		cuts[i] = i + 1;
	run_cuts(in, len, max, stop_at, cuts, len, &o);
	ck_assert_msg(strcmp(o.log, want_log) == 0,
	    "byte at a time: %s, want %s", o.log, want_log);
	ck_assert_int_eq(o.rc, want_rc);
	ck_assert_str_eq(o.last_id, want_id);
	outcome_free(&o);

	for (i = 0; i <= len; i++) {
		run_cuts(in, len, max, stop_at, &i, 1, &o);
		ck_assert_msg(strcmp(o.log, want_log) == 0,
		    "cut at %zu: %s, want %s", i, o.log, want_log);
		ck_assert_msg(o.rc == want_rc, "cut at %zu: result %d, want %d",
		    i, o.rc, want_rc);
		ck_assert_msg(strcmp(o.last_id, want_id) == 0,
		    "cut at %zu: last id %s, want %s", i, o.last_id, want_id);
		outcome_free(&o);
	}
	free(cuts);
}

static void
check_len(const char *in, size_t len, const char *want_log,
    const char *want_id)
{
	check_max_stop(in, len, BIG_MAX, 0, want_log, SSE_OK, want_id);
}

static void
check(const char *in, const char *want_log, const char *want_id)
{
	check_len(in, strlen(in), want_log, want_id);
}

/* For a literal holding NUL bytes. */
#define CHECK_BYTES(lit, want_log, want_id) \
	check_len((lit), sizeof (lit) - 1, (want_log), (want_id))

/* A string of n copies of c (malloc'd). */
static char *
repeat(char c, size_t n)
{
	char	*s;

	s = xmalloc(n + 1);
	memset(s, c, n);
	s[n] = '\0';
	return (s);
}

START_TEST(test_sse_spec_examples)
{
	/* Three data lines make one event, joined with LF. */
	check("data: YHOO\n"
	    "data: +2\n"
	    "data: 10\n"
	    "\n",
	    "[message|YHOO\\n+2\\n10|]", "");

	/* A comment, an id, an id without value (resets), extra space. */
	check(": test stream\n"
	    "\n"
	    "data: first event\n"
	    "id: 1\n"
	    "\n"
	    "data:second event\n"
	    "id\n"
	    "\n"
	    "data:  third event\n",
	    "[message|first event|1][message|second event|]", "");

	/* "data" alone is an empty line of data; the last one never ends. */
	check("data\n"
	    "\n"
	    "data\n"
	    "data\n"
	    "\n"
	    "data:",
	    "[message||][message|\\n|]", "");

	/* One space after the colon goes, with or without it. */
	check("data:test\n"
	    "\n"
	    "data: test\n"
	    "\n",
	    "[message|test|][message|test|]", "");
}
END_TEST

START_TEST(test_sse_fields)
{
	/* The type is set by event, reset by each blank line. */
	check("event: add\ndata: 1\n\n"
	    "data: 2\n\n"
	    "event: remove\n\n"
	    "data: 3\n\n"
	    "event\ndata: 4\n\n"
	    "event: a\nevent: b\ndata: 5\n\n"
	    "event:\ndata: 6\n\n",
	    "[add|1|][message|2|][message|3|][message|4|][b|5|]"
	    "[message|6|]", "");

	/* Unknown fields are ignored; names are case-sensitive and exact. */
	check("foo: bar\n"
	    "Data: no\n"
	    "data : no\n"
	    "dat: no\n"
	    "datas: no\n"
	    "eventx: no\n"
	    "ids: 9\n"
	    "retry2: 5\n"
	    "foo\n"
	    "data: yes\n"
	    "\n",
	    "[message|yes|]", "");

	/* Colons and spaces inside values are kept; only one space goes. */
	check("data: a:b: c\n"
	    "data:   three\n"
	    "data: \n"
	    "data:\t tab\n"
	    "\n",
	    "[message|a:b: c\\n  three\\n\\n\\x09 tab|]", "");

	/* Comments anywhere, even between data lines, change nothing. */
	check(":\n"
	    ":data: no\n"
	    "data: 1\n"
	    ": a comment\n"
	    "data: 2\n"
	    ":\n"
	    "\n",
	    "[message|1\\n2|]", "");

	/* Bytes pass through: NUL, UTF-8 (whole or broken). */
	CHECK_BYTES("data: h\xc3\xa9\0llo\xff\n\n",
	    "[message|h\\xc3\\xa9\\x00llo\\xff|]", "");
	check("event: \xe2\x82\xac\ndata: \xf0\x9f\x98\x80\n\n",
	    "[\\xe2\\x82\\xac|\\xf0\\x9f\\x98\\x80|]", "");

	/* An event not ended by a blank line is never dispatched. */
	check("data: x\n", "", "");
	check("data: x", "", "");
	check("", "", "");
}
END_TEST

START_TEST(test_sse_line_endings)
{
	check("data: a\r\ndata: b\rdata: c\ndata: d\r\n\r\n",
	    "[message|a\\nb\\nc\\nd|]", "");
	/* CR CR: a line and a blank line. */
	check("data: a\r\rdata: b\r\r", "[message|a|][message|b|]", "");
	/* LF CR: the CR is a blank line of its own. */
	check("data: a\n\rdata: b\n\r", "[message|a|][message|b|]", "");
	/* CR LF LF: one line end, then a blank line. */
	check("data: a\r\n\ndata: b\r\n\r\n", "[message|a|][message|b|]",
	    "");
	/* Every ending, around comments and empty values too. */
	check(":c\rdata\r\nid: 3\revent: e\n\r\n", "[e||3]", "3");
	/* A CR inside what would be a field name ends the line there. */
	check("da\rta: x\n\n", "", "");
	check("data: x\r", "", "");
	check("data: x\r\r", "[message|x|]", "");
}
END_TEST

START_TEST(test_sse_bom)
{
	check("\xef\xbb\xbf" "data: x\n\n", "[message|x|]", "");
	/* Only one, at the very start, is skipped. */
	check("\xef\xbb\xbf\xef\xbb\xbf" "data: x\n\ndata: y\n\n",
	    "[message|y|]", "");
	check("\n\xef\xbb\xbf" "data: x\n\ndata: y\n\n", "[message|y|]", "");
	/* The start of a BOM is a field name like any other bytes. */
	check("\xef\xbb" "data: x\n\ndata: y\n\n", "[message|y|]", "");
	check("\xef\xbb\n" "data: x\n\n", "[message|x|]", "");
	check("\xef\n" "data: x\n\n", "[message|x|]", "");
	check("\xef\xbb", "", "");
	check("\xef", "", "");
	check("\xef\xbb\xbf", "", "");
	/* Not a BOM: "e" starts "event" (and is not skipped). */
	check("event: e\ndata: x\n\n", "[e|x|]", "");
	/* In a value, the BOM's bytes are data. */
	check("data: \xef\xbb\xbfx\n\n", "[message|\\xef\\xbb\\xbfx|]", "");
}
END_TEST

START_TEST(test_sse_ids)
{
	struct rec	 r = { 0 };
	struct sse	*s;

	/* The id persists across events until changed or reset. */
	check("id: 7\ndata: a\n\n"
	    "data: b\n\n"
	    "id: 8\n\n"
	    "data: c\n\n"
	    "id\ndata: d\n\n"
	    "data: e\nid: 9\n\n",
	    "[message|a|7][message|b|7][message|c|8][message|d|][message|e|9]",
	    "9");
	/* The last id set before the blank line counts; "id:" empties it. */
	check("id: 1\nid: 2\ndata: x\nid: 3\n\n", "[message|x|3]", "3");
	check("id: 1\n\nid:\n\n", "", "");
	check("id: 1\n\nid\n\n", "", "");
	/* One space only goes; the rest is the id. */
	check("id:  sp ace \ndata\n\n", "[message|| sp ace ]", " sp ace ");

	/* An id holding a NUL is ignored, wherever the NUL is. */
	CHECK_BYTES("id: 1\n\ndata: a\nid: 2\0x\n\n", "[message|a|1]", "1");
	CHECK_BYTES("id: 1\n\nid: \0\ndata: a\n\n", "[message|a|1]", "1");
	CHECK_BYTES("id: 1\n\nid\0\ndata: a\n\n", "[message|a|1]", "1");
	CHECK_BYTES("id: 1\n\nid: ab\0\n\n", "", "1");

	/* sse_last_id changes at the blank line, not at the id line. */
	memset(&r, 0, sizeof r);
	s = sse_new(BIG_MAX, &rec_cb, &r);
	ck_assert_int_eq(sse_feed(s, "id: 5\n", 6), SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "");
	ck_assert_int_eq(sse_feed(s, "\n", 1), SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "5");
	ck_assert_int_eq(sse_feed(s, "id: 6", 5), SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "5");
	ck_assert_int_eq(sse_feed(s, "\n\r", 2), SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "6");
	ck_assert_uint_eq(r.events, 0);
	sse_free(s);
	free(r.log);
}
END_TEST

START_TEST(test_sse_retry)
{
	check("retry: 1500\n", "(retry 1500)", "");
	check("retry:0\r", "(retry 0)", "");
	check("retry: 007\n\n", "(retry 7)", "");
	/* Anything but ASCII digits, or nothing: ignored. */
	check("retry: 15a\n"
	    "retry: -1\n"
	    "retry: +1\n"
	    "retry:  15\n"
	    "retry: 15 \n"
	    "retry: 1.5\n"
	    "retry: \xd9\xa1\n"
	    "retry:\n"
	    "retry: \n"
	    "retry\n",
	    "", "");
	/* No event for a retry alone; it does not touch the event. */
	check("data: a\nretry: 10\ndata: b\n\n", "(retry 10)[message|a\\nb|]",
	    "");
	/* Not until its line ends. */
	check("retry: 10", "", "");
	/* Large values saturate instead of wrapping. */
	check("retry: 18446744073709551615\n", "(retry 18446744073709551615)",
	    "");
	check("retry: 18446744073709551616\n", "(retry 18446744073709551615)",
	    "");
	check("retry: 99999999999999999999999999999999999999\n",
	    "(retry 18446744073709551615)", "");
	check("retry: 36893488147419103232\n", "(retry 18446744073709551615)",
	    "");
	CHECK_BYTES("retry: 1\0\n", "", "");
}
END_TEST

START_TEST(test_sse_stop)
{
	static const char	 in[] =
	    "data: a\n\n"
	    "id: 2\n\n"
	    "data: b\nid: 3\n\n"
	    "id: 4\ndata: c\n\n";

	check_max_stop(in, sizeof in - 1, BIG_MAX, 1, "[message|a|]",
	    SSE_STOPPED, "");
	check_max_stop(in, sizeof in - 1, BIG_MAX, 2,
	    "[message|a|][message|b|3]", SSE_STOPPED, "3");
	check_max_stop(in, sizeof in - 1, BIG_MAX, 3,
	    "[message|a|][message|b|3][message|c|4]", SSE_STOPPED, "4");
	check_max_stop(in, sizeof in - 1, BIG_MAX, 4,
	    "[message|a|][message|b|3][message|c|4]", SSE_OK, "4");
}
END_TEST

/* Feeds fmt's text to a parser bounded at 100 bytes. */
static void
check100(const char *want_log, enum sse_result want_rc, const char *want_id,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
check100(const char *want_log, enum sse_result want_rc, const char *want_id,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*in;

	va_start(ap, fmt);
	ck_assert_int_ne(xvasprintf(&in, fmt, ap), -1);
	va_end(ap);
	check_max_stop(in, strlen(in), 100, 0, want_log, want_rc, want_id);
	free(in);
}

START_TEST(test_sse_bound_exact)
{
	static const char	 nul_id[] = "id: 1\n\nid: 2\0"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "\n\n";
	char	*want, *x100, *x101, *x49, *x50, *x51, *i60, *x40, *x41,
		*x80, *x81;

	x100 = repeat('x', 100);
	x101 = repeat('x', 101);
	x49 = repeat('x', 49);
	x50 = repeat('x', 50);
	x51 = repeat('x', 51);
	i60 = repeat('i', 60);
	x40 = repeat('x', 40);
	x41 = repeat('x', 41);
	x80 = repeat('x', 80);
	x81 = repeat('x', 81);

	/* One data line: at the bound, then one over. */
	xasprintf(&want, "[message|%s|][message|y|]", x100);
	check100(want, SSE_OK, "", "data: %s\n\ndata: y\n\n", x100);
	free(want);
	check100("[message|y|]", SSE_TOO_BIG, "",
	    "data: y\n\ndata: %s\n\ndata: z\n\n", x101);
	/* Over the bound without its line ending: too big already. */
	check100("", SSE_TOO_BIG, "", "data: %s", x101);

	/* Two lines: the joining LF counts. */
	xasprintf(&want, "[message|%s\\n%s|]", x49, x50);
	check100(want, SSE_OK, "", "data: %s\ndata: %s\n\n", x49, x50);
	free(want);
	check100("", SSE_TOO_BIG, "", "data: %s\ndata: %s\n\n", x50, x50);
	check100("", SSE_TOO_BIG, "", "data: %s\ndata: %s\n\n", x49, x51);

	/* Type and id count too: 10 + 10 + 80 fits, 10 + 10 + 81 not. */
	xasprintf(&want, "[eeeeeeeeee|%s|iiiiiiiiii]", x80);
	check100(want, SSE_OK, "iiiiiiiiii",
	    "event: eeeeeeeeee\nid: iiiiiiiiii\ndata: %s\n\n", x80);
	free(want);
	check100("", SSE_TOO_BIG, "",
	    "event: eeeeeeeeee\nid: iiiiiiiiii\ndata: %s\n\n", x81);
	check100("", SSE_TOO_BIG, "",
	    "data: %s\nevent: eeeeeeeeee\nid: iiiiiiiiii\n\n", x81);

	/* The id in force counts in the events after it. */
	xasprintf(&want, "[message|%s|%s]", x40, i60);
	check100(want, SSE_TOO_BIG, i60, "id: %s\ndata: %s\n\ndata: %s\n\n",
	    i60, x40, x41);
	free(want);
	xasprintf(&want, "[message|%s|%s][message|%s|%s]", x40, i60, x40, i60);
	check100(want, SSE_OK, i60, "id: %s\ndata: %s\n\ndata: %s\n\n",
	    i60, x40, x40);
	free(want);

	/* An id line alone: at the bound, over it even unfinished. */
	check100("", SSE_OK, x100, "id: %s\n\n", x100);
	check100("", SSE_TOO_BIG, "1", "id: 1\n\nid: %s", x101);
	/* Its bytes after a NUL are not held: the line is ignored. */
	check_max_stop(nul_id, sizeof nul_id - 1, 100, 0, "", SSE_OK, "1");
	/* An event type over the bound. */
	check100("", SSE_TOO_BIG, "", "event: %s\n", x101);

	/* A bound of zero still takes empty events. */
	check_max_stop("data\nid\nevent\n\n", 15, 0, 0, "[message||]", SSE_OK,
	    "");
	check_max_stop("data\ndata\n\n", 11, 0, 0, "", SSE_TOO_BIG, "");

	free(x100);
	free(x101);
	free(x49);
	free(x50);
	free(x51);
	free(i60);
	free(x40);
	free(x41);
	free(x80);
	free(x81);
}
END_TEST

/*
 * Runs of these lines, each 100 MiB long in 64 KiB chunks, must not be
 * held: the parser holds less than two chunks all along, then reads the
 * event after them.
 */
START_TEST(test_sse_memory_bound)
{
	static const char *const heads[] = {
		":",			/* a comment */
		": ",
		"foo: ",		/* an unknown field */
		"foo",			/* ... without a colon */
		"datax",		/* near a field name */
		"id: \0",		/* an id with a NUL: ignored */
		"retry: 1",		/* digits: a number, saturating */
	};
	static const size_t	 head_len[] = { 1, 2, 5, 3, 5, 5, 8 };
	struct rec		 r = { 0 };
	struct sse		*s;
	char			*chunk;
	size_t			 i, n, chunk_len = 64 * KIB, max_held;
	char			 fill;

	chunk = xmalloc(chunk_len);
	for (i = 0; i < nitems(heads); i++) {
		memset(&r, 0, sizeof r);
		fill = i == nitems(heads) - 1 ? '9' : 'x';
		memset(chunk, fill, chunk_len);
		s = sse_new(4 * KIB, &rec_cb, &r);
		ck_assert_int_eq(sse_feed(s, "data: a\n", 8), SSE_OK);
		ck_assert_int_eq(sse_feed(s, heads[i], head_len[i]), SSE_OK);
		max_held = 0;
		for (n = 0; n < 100 * MIB / chunk_len; n++) {
			ck_assert_int_eq(sse_feed(s, chunk, chunk_len), SSE_OK);
			if (sse_held(s) > max_held)
				max_held = sse_held(s);
		}
		ck_assert_uint_lt(max_held, 2 * chunk_len);
		ck_assert_uint_le(max_held, 4 * KIB);
		ck_assert_int_eq(sse_feed(s, "\ndata: b\n\n", 10), SSE_OK);
		ck_assert_str_eq(r.log, i == nitems(heads) - 1 ?
		    "(retry 18446744073709551615)[message|a\\nb|]" :
		    "[message|a\\nb|]");
		sse_free(s);
		free(r.log);
	}
	free(chunk);
}
END_TEST

/* Big events come and go without pinning memory or rescanning. */
START_TEST(test_sse_big_events)
{
	struct rec	 r = { 0 };
	struct sse	*s;
	char		*x;
	size_t		 i, len = 2 * MIB;

	x = repeat('x', len);
	s = sse_new(4 * MIB, &rec_cb, &r);
	/* A byte at a time: linear, not quadratic. */
	ck_assert_int_eq(sse_feed(s, "data: ", 6), SSE_OK);
	/* (An assertion per byte would cost a write to check's pipe.) */
	for (i = 0; i < len; i++) {
		if (sse_feed(s, x + i, 1) != SSE_OK)
			break;
	}
	ck_assert_uint_eq(i, len);
	ck_assert_uint_ge(sse_held(s), len);
	ck_assert_uint_le(sse_held(s), 4 * MIB + 1 + 1024);
	ck_assert_int_eq(sse_feed(s, "\n\n", 2), SSE_OK);
	ck_assert_uint_eq(r.events, 1);
	ck_assert_uint_eq(r.len, len + strlen("[message||]"));
	/* Dispatched: the big buffer is gone. */
	ck_assert_uint_le(sse_held(s), 1024);

	/* A big type replaced by a small one is released at once. */
	ck_assert_int_eq(sse_feed(s, "event: ", 7), SSE_OK);
	ck_assert_int_eq(sse_feed(s, x, len), SSE_OK);
	ck_assert_uint_ge(sse_held(s), len);
	ck_assert_int_eq(sse_feed(s, "\nevent: small\n", 14), SSE_OK);
	ck_assert_uint_le(sse_held(s), 1024);

	/* A big id is held twice at most (the buffer and the one in force). */
	ck_assert_int_eq(sse_feed(s, "\nid: ", 5), SSE_OK);
	ck_assert_int_eq(sse_feed(s, x, len), SSE_OK);
	ck_assert_int_eq(sse_feed(s, "\n\n", 2), SSE_OK);
	ck_assert_uint_eq(strlen(sse_last_id(s)), len);
	ck_assert_uint_le(sse_held(s), 2 * (2 * len + 2) + 1024);
	ck_assert_int_eq(sse_feed(s, "id\n\n", 4), SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "");
	ck_assert_uint_le(sse_held(s), 1024);

	/* Over the bound: stopped, and the event's buffers released. */
	ck_assert_int_eq(sse_feed(s, "data: ", 6), SSE_OK);
	ck_assert_int_eq(sse_feed(s, x, len), SSE_OK);
	ck_assert_int_eq(sse_feed(s, x, len), SSE_OK);
	ck_assert_int_eq(sse_feed(s, "x", 1), SSE_TOO_BIG);
	ck_assert_uint_le(sse_held(s), 1024);
	ck_assert_int_eq(sse_feed(s, "\n\n", 2), SSE_TOO_BIG);
	ck_assert_uint_eq(r.events, 1);
	sse_free(s);
	free(r.log);
	free(x);
}
END_TEST

START_TEST(test_sse_no_callbacks)
{
	struct sse_cb	 none = { NULL, NULL };
	struct sse	*s;

	s = sse_new(100, &none, NULL);
	ck_assert_int_eq(sse_feed(s, "retry: 5\nid: 3\ndata: x\n\n", 24),
	    SSE_OK);
	ck_assert_str_eq(sse_last_id(s), "3");
	sse_free(s);
	sse_free(NULL);
}
END_TEST

Suite *
unit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("sse");

	tc = tcase_create("parsing");
	tcase_add_test(tc, test_sse_spec_examples);
	tcase_add_test(tc, test_sse_fields);
	tcase_add_test(tc, test_sse_line_endings);
	tcase_add_test(tc, test_sse_bom);
	tcase_add_test(tc, test_sse_ids);
	tcase_add_test(tc, test_sse_retry);
	tcase_add_test(tc, test_sse_stop);
	tcase_add_test(tc, test_sse_no_callbacks);
	suite_add_tcase(s, tc);

	/* Generous timeouts: these guard against hangs, not speed. */
	tc = tcase_create("bounds");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sse_bound_exact);
	tcase_add_test(tc, test_sse_memory_bound);
	tcase_add_test(tc, test_sse_big_events);
	suite_add_tcase(s, tc);

	return (s);
}
