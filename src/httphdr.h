/*
 * httphdr.h -- reading the few HTTP header values mcpd-remote acts on
 * (pure).  Values come from a remote server: every function accepts any
 * bytes and fails cleanly.
 */
#ifndef MCPD_HTTPHDR_H
#define MCPD_HTTPHDR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Retry-After (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date
 * (IMF-fixdate; the two obsolete forms too), as milliseconds from now,
 * 0 for a date in the past, capped at cap_ms.  -1 if it is neither.
 */
int	 httphdr_retry_after(const char *value, time_t now, uint64_t cap_ms,
	    uint64_t *delay_ms);
/*
 * 1 if a Content-Type value is this media type ("type/subtype", compared
 * case-insensitively, parameters ignored: "Application/JSON; charset=utf-8"
 * is "application/json").
 */
int	 httphdr_media_is(const char *value, const char *type);

/* The Bearer challenge of a WWW-Authenticate value (RFC 6750, RFC 9728). */
struct httphdr_bearer {
	int	 found;			/* a Bearer challenge was there */
	char	*resource_metadata;	/* NULL if absent */
	char	*scope;
	char	*error;
	char	*error_description;
};
/*
 * Parse a WWW-Authenticate value (several challenges, comma-separated,
 * auth-params as token or quoted-string with backslash escapes; scheme
 * names case-insensitive).  Returns 0 (found may be 0), -1 if the value
 * is malformed around the Bearer challenge.
 */
int	 httphdr_bearer_parse(const char *value, struct httphdr_bearer *);
void	 httphdr_bearer_clear(struct httphdr_bearer *);

/* One "Name: value" header line split and trimmed; -1 if not a header. */
int	 httphdr_split(const char *line, size_t len, const char **name,
	    size_t *name_len, const char **value, size_t *value_len);

#endif /* MCPD_HTTPHDR_H */
