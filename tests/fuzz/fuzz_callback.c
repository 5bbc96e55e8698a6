/*
 * fuzz_callback.c -- what reaches `mcpctl login`'s listener or its
 * standard input (clients/callback.c), from a browser, another local
 * user, or a person pasting: a request head, a query, a pasted address,
 * and the page made from text in them.
 *
 * Invariants:
 * - callback_query, callback_request and callback_url return one of the
 *   four kinds; CALLBACK_BAD leaves nothing set; CALLBACK_RESULT has a
 *   non-empty code or error; every string found is NUL-free and no longer
 *   than the input (decoding only shrinks);
 * - callback_request is CALLBACK_START only if the head starts with
 *   "GET /start" followed by '?' or ' ', and otherwise CALLBACK_OTHER
 *   unless it starts with "GET /callback" followed by '?' or ' ';
 * - callback_head_end is 0 or ends at a newline within the input;
 * - callback_html leaves no '<', '>', '"' or '\'' and every '&' starts a
 *   reference; a page made from the input has exactly the markup of a
 *   page made from plain text (the input adds no tag), and is a whole
 *   HTTP response;
 * - an input that is a header's value (printable, no blanks) sent on
 *   with callback_see_other is that response's Location, whole, and
 *   adds no markup to its page.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "callback.h"
#include "fuzz.h"
#include "util.h"
#include "xmalloc.h"

const char	*fuzz_target_name = "callback";

static size_t
count(const char *s, char c)
{
	size_t	 n = 0;

	for (; *s != '\0'; s++)
		n += *s == c;
	return (n);
}

static void
check_found(const struct callback *cb, enum callback_kind kind, size_t len)
{
	const char	*v[] = { cb->code, cb->state, cb->error,
	    cb->error_description, cb->iss };
	size_t		 i;

	FUZZ_CHECK(kind == CALLBACK_RESULT || kind == CALLBACK_EMPTY ||
	    kind == CALLBACK_BAD || kind == CALLBACK_OTHER ||
	    kind == CALLBACK_START, "a kind %d", (int)kind);
	for (i = 0; i < nitems(v); i++) {
		if (kind == CALLBACK_BAD)
			FUZZ_CHECK(v[i] == NULL, "a member set after BAD");
		if (v[i] != NULL)
			FUZZ_CHECK(strlen(v[i]) <= len, "a member longer than "
			    "its input");
	}
	if (kind == CALLBACK_RESULT)
		FUZZ_CHECK((cb->code != NULL && *cb->code != '\0') ||
		    (cb->error != NULL && *cb->error != '\0'),
		    "a result with neither code nor error");
}

/* "GET " PATH, then '?' or ' '. */
static int
is_get_of(const uint8_t *data, size_t size, const char *path)
{
	size_t	 len = 4 + strlen(path);

	return (size > len && memcmp(data, "GET ", 4) == 0 &&
	    memcmp(data + 4, path, len - 4) == 0 &&
	    (data[len] == '?' || data[len] == ' '));
}

/* Sent on to text, if it can be a header's value. */
static void
check_see_other(const char *text)
{
	const unsigned char	*p;
	const char		*body, *plain_body;
	char			*resp, *plain, *want;

	if (*text == '\0')
		return;
	for (p = (const unsigned char *)text; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return;
	resp = callback_see_other(text);
	plain = callback_see_other("x");
	xasprintf(&want, "HTTP/1.1 303 See Other\r\nLocation: %s\r\n", text);
	FUZZ_CHECK(strncmp(resp, want, strlen(want)) == 0, "not a 303 to the "
	    "address, whole");
	/* The page, not the head: Location holds the address as it is. */
	body = strstr(resp, "\r\n\r\n");
	plain_body = strstr(plain, "\r\n\r\n");
	FUZZ_CHECK(body != NULL && plain_body != NULL, "no page");
	FUZZ_CHECK(count(body, '<') == count(plain_body, '<') &&
	    count(body, '>') == count(plain_body, '>'),
	    "the address added markup to the page");
	free(want);
	free(plain);
	free(resp);
}

static void
check_html(const char *s)
{
	char		*h;
	const char	*p;

	h = callback_html(s);
	FUZZ_CHECK(strpbrk(h, "<>\"'") == NULL, "markup left by "
	    "callback_html");
	for (p = h; (p = strchr(p, '&')) != NULL; p++)
		FUZZ_CHECK(strncmp(p, "&amp;", 5) == 0 ||
		    strncmp(p, "&lt;", 4) == 0 || strncmp(p, "&gt;", 4) == 0 ||
		    strncmp(p, "&quot;", 6) == 0 || strncmp(p, "&#39;", 5) == 0,
		    "a bare '&' left by callback_html");
	free(h);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct callback		 cb;
	enum callback_kind	 kind;
	char			*text, *page, *plain;
	size_t			 end;

	memset(&cb, 0, sizeof cb);
	kind = callback_query((const char *)data, size, &cb);
	check_found(&cb, kind, size);
	FUZZ_CHECK(kind != CALLBACK_OTHER && kind != CALLBACK_START,
	    "a query is never OTHER or START");
	callback_clear(&cb);

	kind = callback_request((const char *)data, size, &cb);
	check_found(&cb, kind, size);
	if (kind == CALLBACK_START)
		FUZZ_CHECK(is_get_of(data, size, CALLBACK_START_PATH),
		    "the start page taken for another request");
	else if (kind != CALLBACK_OTHER)
		FUZZ_CHECK(is_get_of(data, size, CALLBACK_PATH),
		    "a request for another path taken");
	callback_clear(&cb);

	end = callback_head_end((const char *)data, size);
	FUZZ_CHECK(end == 0 || (end <= size && data[end - 1] == '\n'),
	    "a head end not at a newline");

	/* As a pasted line and as page text: up to the first NUL. */
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	kind = callback_url(text, &cb);
	check_found(&cb, kind, size);
	FUZZ_CHECK(kind != CALLBACK_START, "a pasted line is never START");
	callback_clear(&cb);
	check_see_other(text);

	check_html(text);
	page = callback_page(400, "T", text);
	plain = callback_page(400, "T", "x");
	FUZZ_CHECK(strncmp(page, "HTTP/1.1 400 ", 13) == 0 &&
	    strstr(page, "\r\n\r\n") != NULL, "not an HTTP response");
	FUZZ_CHECK(count(page, '<') == count(plain, '<') &&
	    count(page, '>') == count(plain, '>'),
	    "the text added markup to the page");
	free(page);
	free(plain);
	free(text);
	return (0);
}
