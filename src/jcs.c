/*
 * jcs.c -- RFC 8785 canonical JSON and its SHA-256 (jcs.h; pure).
 *
 * The text is built in one sbuf, checked against the caller's bound as it
 * grows, so a huge value costs at most that bound.  Members are sorted in
 * an array of pointers per object (qsort with the position as the last
 * key: stable); names are compared as UTF-16 code units, decoded from
 * their UTF-8 on the fly (a byte that is no UTF-8 is read as itself, so
 * the order is total and the same every time).
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <cjson/cJSON.h>

#include "jcs.h"
#include "sbuf.h"
#include "xmalloc.h"

struct jcs_out {
	struct sbuf	 b;
	size_t		 max;
	int		 pretty;
	const char	*cause;
};

struct jcs_member {
	const cJSON	*item;
	size_t		 pos;
};

static int	jcs_value(struct jcs_out *, const cJSON *, int depth);

/* The next code point of s (advanced); a stray byte is itself. */
static uint32_t
jcs_utf8_next(const unsigned char **sp)
{
	const unsigned char	*s = *sp;
	uint32_t		 c = s[0];
	int			 n, i;

	if (c < 0x80)
		n = 0;
	else if ((c & 0xe0) == 0xc0)
		n = 1, c &= 0x1f;
	else if ((c & 0xf0) == 0xe0)
		n = 2, c &= 0x0f;
	else if ((c & 0xf8) == 0xf0)
		n = 3, c &= 0x07;
	else {
		*sp = s + 1;
		return (s[0]);
	}
	for (i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*sp = s + 1;
			return (s[0]);
		}
		c = (c << 6) | (s[i] & 0x3f);
	}
	*sp = s + n + 1;
	return (c);
}

/* Compare two names as sequences of UTF-16 code units. */
static int
jcs_name_cmp(const char *a, const char *b)
{
	const unsigned char	*pa = (const unsigned char *)a;
	const unsigned char	*pb = (const unsigned char *)b;
	uint32_t		 ua[2], ub[2], ca, cb;
	int			 na, nb, ia, ib;

	na = nb = ia = ib = 0;
	for (;;) {
		if (ia == na) {
			if (*pa == '\0')
				return (*pb == '\0' && ib == nb ? 0 : -1);
			ca = jcs_utf8_next(&pa);
			if (ca >= 0x10000) {
				ua[0] = 0xd800 + ((ca - 0x10000) >> 10);
				ua[1] = 0xdc00 + ((ca - 0x10000) & 0x3ff);
				na = 2;
			} else {
				ua[0] = ca;
				na = 1;
			}
			ia = 0;
		}
		if (ib == nb) {
			if (*pb == '\0')
				return (1);
			cb = jcs_utf8_next(&pb);
			if (cb >= 0x10000) {
				ub[0] = 0xd800 + ((cb - 0x10000) >> 10);
				ub[1] = 0xdc00 + ((cb - 0x10000) & 0x3ff);
				nb = 2;
			} else {
				ub[0] = cb;
				nb = 1;
			}
			ib = 0;
		}
		if (ua[ia] != ub[ib])
			return (ua[ia] < ub[ib] ? -1 : 1);
		ia++;
		ib++;
	}
}

static int
jcs_member_cmp(const void *va, const void *vb)
{
	const struct jcs_member	*a = va, *b = vb;
	int			 c;

	c = jcs_name_cmp(a->item->string != NULL ? a->item->string : "",
	    b->item->string != NULL ? b->item->string : "");
	if (c != 0)
		return (c);
	return (a->pos < b->pos ? -1 : a->pos > b->pos);
}

void
jcs_number(double d, char *buf, size_t size)
{
	char		 tmp[48], digits[24];
	const char	*p;
	int		 prec, k = 0, e, n, i;
	size_t		 o = 0;

	if (d == 0 || !isfinite(d)) {
		snprintf(buf, size, "0");
		return;
	}
	/* The fewest digits that read back as d (correctly rounded). */
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	p = tmp;
	if (*p == '-')
		p++;
	for (; *p != 'e' && *p != '\0'; p++)
		if (*p >= '0' && *p <= '9' && k < (int)sizeof digits - 1)
			digits[k++] = *p;
	digits[k] = '\0';
	e = *p == 'e' ? atoi(p + 1) : 0;
	while (k > 1 && digits[k - 1] == '0')
		digits[--k] = '\0';
	/* d = 0.DIGITS x 10^n, as ECMAScript's Number::toString says. */
	n = e + 1;
	if (d < 0)
		tmp[o++] = '-';
	if (k <= n && n <= 21) {
		memcpy(tmp + o, digits, k);
		o += k;
		for (i = 0; i < n - k; i++)
			tmp[o++] = '0';
	} else if (0 < n && n <= 21) {
		memcpy(tmp + o, digits, n);
		o += n;
		tmp[o++] = '.';
		memcpy(tmp + o, digits + n, k - n);
		o += k - n;
	} else if (-6 < n && n <= 0) {
		tmp[o++] = '0';
		tmp[o++] = '.';
		for (i = 0; i < -n; i++)
			tmp[o++] = '0';
		memcpy(tmp + o, digits, k);
		o += k;
	} else {
		tmp[o++] = digits[0];
		if (k > 1) {
			tmp[o++] = '.';
			memcpy(tmp + o, digits + 1, k - 1);
			o += k - 1;
		}
		o += snprintf(tmp + o, sizeof tmp - o, "e%c%d",
		    n - 1 < 0 ? '-' : '+', abs(n - 1));
	}
	tmp[o] = '\0';
	snprintf(buf, size, "%s", tmp);
}

static int
jcs_room(struct jcs_out *o, size_t more)
{
	if (o->b.len + more > o->max) {
		o->cause = "its canonical JSON is too long";
		return (-1);
	}
	return (0);
}

static int
jcs_add(struct jcs_out *o, const char *s, size_t len)
{
	if (jcs_room(o, len) != 0)
		return (-1);
	sbuf_add(&o->b, s, len);
	return (0);
}

static int
jcs_string(struct jcs_out *o, const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	const unsigned char	*run;
	char			 esc[8];

	if (jcs_add(o, "\"", 1) != 0)
		return (-1);
	for (run = p; *p != '\0'; p++) {
		if (*p >= 0x20 && *p != '"' && *p != '\\')
			continue;
		if (jcs_add(o, (const char *)run, (size_t)(p - run)) != 0)
			return (-1);
		switch (*p) {
		case '"':	strcpy(esc, "\\\""); break;
		case '\\':	strcpy(esc, "\\\\"); break;
		case '\b':	strcpy(esc, "\\b"); break;
		case '\f':	strcpy(esc, "\\f"); break;
		case '\n':	strcpy(esc, "\\n"); break;
		case '\r':	strcpy(esc, "\\r"); break;
		case '\t':	strcpy(esc, "\\t"); break;
		default:
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			break;
		}
		if (jcs_add(o, esc, strlen(esc)) != 0)
			return (-1);
		run = p + 1;
	}
	if (jcs_add(o, (const char *)run, (size_t)(p - run)) != 0)
		return (-1);
	return (jcs_add(o, "\"", 1));
}

/* In pretty text: a new line and the indentation of depth. */
static int
jcs_newline(struct jcs_out *o, int depth)
{
	int	 i;

	if (!o->pretty)
		return (0);
	if (jcs_add(o, "\n", 1) != 0)
		return (-1);
	for (i = 0; i < depth; i++)
		if (jcs_add(o, "  ", 2) != 0)
			return (-1);
	return (0);
}

static int
jcs_object(struct jcs_out *o, const cJSON *v, int depth)
{
	struct jcs_member	*m;
	const cJSON		*c;
	size_t			 n = 0, i;
	int			 rc = -1;

	for (c = v->child; c != NULL; c = c->next)
		n++;
	if (n == 0)
		return (jcs_add(o, "{}", 2));
	m = xcalloc(n, sizeof *m);
	for (c = v->child, i = 0; c != NULL; c = c->next, i++) {
		m[i].item = c;
		m[i].pos = i;
	}
	qsort(m, n, sizeof *m, jcs_member_cmp);
	if (jcs_add(o, "{", 1) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		if (i > 0 && jcs_add(o, ",", 1) != 0)
			goto out;
		if (jcs_newline(o, depth + 1) != 0 ||
		    jcs_string(o, m[i].item->string != NULL ?
		    m[i].item->string : "") != 0 ||
		    jcs_add(o, o->pretty ? ": " : ":", o->pretty ? 2 : 1) != 0 ||
		    jcs_value(o, m[i].item, depth + 1) != 0)
			goto out;
	}
	if (jcs_newline(o, depth) != 0 || jcs_add(o, "}", 1) != 0)
		goto out;
	rc = 0;
out:
	free(m);
	return (rc);
}

static int
jcs_array(struct jcs_out *o, const cJSON *v, int depth)
{
	const cJSON	*c;

	if (v->child == NULL)
		return (jcs_add(o, "[]", 2));
	if (jcs_add(o, "[", 1) != 0)
		return (-1);
	for (c = v->child; c != NULL; c = c->next) {
		if (c != v->child && jcs_add(o, ",", 1) != 0)
			return (-1);
		if (jcs_newline(o, depth + 1) != 0 ||
		    jcs_value(o, c, depth + 1) != 0)
			return (-1);
	}
	if (jcs_newline(o, depth) != 0)
		return (-1);
	return (jcs_add(o, "]", 1));
}

static int
jcs_value(struct jcs_out *o, const cJSON *v, int depth)
{
	char	 num[48];

	if (depth > JCS_MAX_DEPTH) {
		o->cause = "it is nested too deeply";
		return (-1);
	}
	switch (v->type & 0xff) {
	case cJSON_NULL:
		return (jcs_add(o, "null", 4));
	case cJSON_True:
		return (jcs_add(o, "true", 4));
	case cJSON_False:
		return (jcs_add(o, "false", 5));
	case cJSON_Number:
		if (!isfinite(v->valuedouble)) {
			o->cause = "it holds a number that is not finite";
			return (-1);
		}
		jcs_number(v->valuedouble, num, sizeof num);
		return (jcs_add(o, num, strlen(num)));
	case cJSON_String:
		return (jcs_string(o, v->valuestring != NULL ?
		    v->valuestring : ""));
	case cJSON_Array:
		return (jcs_array(o, v, depth));
	case cJSON_Object:
		return (jcs_object(o, v, depth));
	default:
		o->cause = "it holds a value that is not JSON";
		return (-1);
	}
}

char *
jcs_text(const cJSON *v, size_t max_bytes, int pretty, size_t *len,
    const char **cause)
{
	struct jcs_out	 o;

	memset(&o, 0, sizeof o);
	o.max = max_bytes;
	o.pretty = pretty;
	sbuf_init(&o.b, 256);
	if (v == NULL || jcs_value(&o, v, 0) != 0) {
		free(o.b.p);
		if (cause != NULL)
			*cause = o.cause != NULL ? o.cause : "no value";
		return (NULL);
	}
	if (len != NULL)
		*len = o.b.len;
	return (o.b.p);
}

void
jcs_sha256_hex(const void *p, size_t len, char hex[JCS_HEX_BYTES])
{
	static const char	 digits[] = "0123456789abcdef";
	unsigned char		 md[EVP_MAX_MD_SIZE];
	unsigned int		 mdlen = 0;
	unsigned int		 i;

	if (EVP_Digest(p, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != JCS_SHA256_BYTES)
		abort();
	for (i = 0; i < mdlen; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0x0f];
	}
	hex[2 * mdlen] = '\0';
}
