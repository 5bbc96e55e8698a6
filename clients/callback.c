/*
 * callback.c -- the redirect back from the authorization server, parsed
 * without I/O (callback.h): the request head the browser sends to the
 * local listener, or the address pasted by hand, and its query; and the
 * page the browser is answered with.
 *
 * Only the request line of a head is read; everything in it and in a
 * pasted line comes from outside and is treated so: lengths bound every
 * scan, a member that comes twice makes the whole query bad (RFC 6749,
 * 3.1: a parameter must not be included more than once), and a decoded
 * NUL is refused rather than cut at.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "callback.h"
#include "esc.h"
#include "url.h"
#include "xmalloc.h"

/* s[0, len) form-decoded into a new string, or NULL if it holds a NUL. */
static char *
callback_decode(const char *s, size_t len)
{
	char	*out;
	size_t	 i, n = 0;
	int	 hi, lo, c;

	out = xmalloc(len + 1);
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '+')
			c = ' ';
		else if (c == '%' && i + 2 < len &&
		    (hi = url_hex_value((unsigned char)s[i + 1])) >= 0 &&
		    (lo = url_hex_value((unsigned char)s[i + 2])) >= 0) {
			c = hi << 4 | lo;
			i += 2;
		}
		if (c == '\0') {
			free(out);
			return (NULL);
		}
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return (out);
}

/* The member of cb that the decoded name is, or NULL. */
static char **
callback_member(struct callback *cb, const char *name)
{
	if (strcmp(name, "code") == 0)
		return (&cb->code);
	if (strcmp(name, "state") == 0)
		return (&cb->state);
	if (strcmp(name, "error") == 0)
		return (&cb->error);
	if (strcmp(name, "error_description") == 0)
		return (&cb->error_description);
	if (strcmp(name, "iss") == 0)
		return (&cb->iss);
	return (NULL);
}

void
callback_clear(struct callback *cb)
{
	free(cb->code);
	free(cb->state);
	free(cb->error);
	free(cb->error_description);
	free(cb->iss);
	memset(cb, 0, sizeof *cb);
}

enum callback_kind
callback_query(const char *q, size_t len, struct callback *cb)
{
	const char	*p = q, *end = q + len, *amp, *eq;
	char		*name, *value, **member;

	while (p < end) {
		if ((amp = memchr(p, '&', (size_t)(end - p))) == NULL)
			amp = end;
		if ((eq = memchr(p, '=', (size_t)(amp - p))) == NULL)
			eq = amp;
		if (eq == p) {		/* "&&", "&=x": nothing named */
			if (amp == end)
				break;
			p = amp + 1;
			continue;
		}
		if ((name = callback_decode(p, (size_t)(eq - p))) == NULL)
			goto bad;
		member = callback_member(cb, name);
		free(name);
		if (member != NULL) {
			if (*member != NULL)
				goto bad;
			value = eq < amp ? callback_decode(eq + 1,
			    (size_t)(amp - eq - 1)) : xstrdup("");
			if (value == NULL)
				goto bad;
			*member = value;
		}
		if (amp == end)
			break;
		p = amp + 1;
	}
	if (cb->error != NULL && cb->error[0] != '\0')
		return (CALLBACK_RESULT);
	if (cb->code != NULL && cb->code[0] != '\0')
		return (CALLBACK_RESULT);
	return (CALLBACK_EMPTY);
bad:
	callback_clear(cb);
	return (CALLBACK_BAD);
}

size_t
callback_head_end(const char *buf, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return (i + 2);
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return (i + 3);
	}
	return (0);
}

enum callback_kind
callback_request(const char *head, size_t len, struct callback *cb)
{
	const char	*eol, *target, *sp, *q;
	size_t		 plen;

	if ((eol = memchr(head, '\n', len)) == NULL)
		return (CALLBACK_OTHER);
	if ((size_t)(eol - head) < 4 || memcmp(head, "GET ", 4) != 0)
		return (CALLBACK_OTHER);
	target = head + 4;
	if ((sp = memchr(target, ' ', (size_t)(eol - target))) == NULL ||
	    (size_t)(eol - sp) < 6 || memcmp(sp + 1, "HTTP/", 5) != 0)
		return (CALLBACK_OTHER);
	if ((q = memchr(target, '?', (size_t)(sp - target))) == NULL)
		q = sp;
	plen = strlen(CALLBACK_START_PATH);
	if ((size_t)(q - target) == plen &&
	    memcmp(target, CALLBACK_START_PATH, plen) == 0)
		return (CALLBACK_START);
	plen = strlen(CALLBACK_PATH);
	if ((size_t)(q - target) != plen ||
	    memcmp(target, CALLBACK_PATH, plen) != 0)
		return (CALLBACK_OTHER);
	if (q == sp)
		return (CALLBACK_EMPTY);
	return (callback_query(q + 1, (size_t)(sp - q - 1), cb));
}

enum callback_kind
callback_url(const char *line, struct callback *cb)
{
	const char	*p = line, *end, *q, *hash;

	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' ||
	    end[-1] == '\r' || end[-1] == '\n'))
		end--;
	if (!((end - p > 7 && strncasecmp(p, "http://", 7) == 0) ||
	    (end - p > 8 && strncasecmp(p, "https://", 8) == 0)))
		return (CALLBACK_OTHER);
	if (memchr(p, ' ', (size_t)(end - p)) != NULL)
		return (CALLBACK_OTHER);
	if ((hash = memchr(p, '#', (size_t)(end - p))) != NULL)
		end = hash;
	if ((q = memchr(p, '?', (size_t)(end - p))) == NULL)
		return (CALLBACK_EMPTY);
	return (callback_query(q + 1, (size_t)(end - q - 1), cb));
}

char *
callback_html(const char *s)
{
	const char	*ref;
	char		*out;
	size_t		 n = 0, i;

	for (i = 0; s[i] != '\0'; i++)
		n += strchr("&<>\"'", s[i]) != NULL ? 6 : 1;
	out = xmalloc(n + 1);
	for (n = 0, i = 0; s[i] != '\0'; i++) {
		switch (s[i]) {
		case '&':
			ref = "&amp;";
			break;
		case '<':
			ref = "&lt;";
			break;
		case '>':
			ref = "&gt;";
			break;
		case '"':
			ref = "&quot;";
			break;
		case '\'':
			ref = "&#39;";
			break;
		default:
			out[n++] = s[i];
			continue;
		}
		memcpy(out + n, ref, strlen(ref));
		n += strlen(ref);
	}
	out[n] = '\0';
	return (out);
}

/* Outside text, printable and escaped for HTML. */
static char *
callback_html_text(const char *s)
{
	char	*shown, *html;

	shown = esc_text(s, strlen(s), 0);
	html = callback_html(shown);
	free(shown);
	return (html);
}

/*
 * The response: its status line, the Location header if any (its value
 * checked by the caller), and a page of the title and a paragraph of
 * HTML, both escaped already.
 */
static char *
callback_response(int status, const char *location, const char *t,
    const char *para)
{
	const char	*reason;
	char		*body, *resp;
	int		 len;

	switch (status) {
	case 200:
		reason = "OK";
		break;
	case 303:
		reason = "See Other";
		break;
	case 400:
		reason = "Bad Request";
		break;
	case 404:
		reason = "Not Found";
		break;
	case 431:
		reason = "Request Header Fields Too Large";
		break;
	default:
		abort();
	}
	len = xasprintf(&body, "<!DOCTYPE html>\n"
	    "<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<title>%s</title></head>\n"
	    "<body><p>%s</p></body></html>\n", t, para);
	xasprintf(&resp, "HTTP/1.1 %d %s\r\n"
	    "%s%s%s"
	    "Content-Type: text/html; charset=utf-8\r\n"
	    "Content-Length: %d\r\n"
	    "Cache-Control: no-store\r\n"
	    "Content-Security-Policy: default-src 'none'; "
	    "frame-ancestors 'none'\r\n"
	    "X-Content-Type-Options: nosniff\r\n"
	    "Referrer-Policy: no-referrer\r\n"
	    "Connection: close\r\n"
	    "\r\n%s", status, reason, location != NULL ? "Location: " : "",
	    location != NULL ? location : "", location != NULL ? "\r\n" : "",
	    len, body);
	free(body);
	return (resp);
}

char *
callback_page(int status, const char *title, const char *text)
{
	char	*t, *x, *resp;

	if (status == 303)
		abort();	/* callback_see_other's */
	t = callback_html_text(title);
	x = callback_html_text(text);
	resp = callback_response(status, NULL, t, x);
	free(x);
	free(t);
	return (resp);
}

char *
callback_see_other(const char *location)
{
	const unsigned char	*p;
	char			*href, *para, *resp;

	for (p = (const unsigned char *)location; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			abort();
	href = callback_html(location);
	xasprintf(&para, "Continue to the <a href=\"%s\">sign-in page</a>.",
	    href);
	resp = callback_response(303, location, "Sign-in", para);
	free(para);
	free(href);
	return (resp);
}
