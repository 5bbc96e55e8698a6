/*
 * auditfmt.h -- the calls' records read back (pure): what mcpctl audit
 * makes of the journal entries audit.h describes.
 *
 * A record is a JSON object of the entry's fields as strings, by name
 * ("MCPD_SERVER": "fs", ...), as the journal gives them: any may be
 * missing or odd, and nothing here trusts one to be a number.
 */
#ifndef MCPD_AUDITFMT_H
#define MCPD_AUDITFMT_H

#include <stdint.h>

#include <cjson/cJSON.h>

/* The fields a record is made of (NULL-ended). */
extern const char *const auditfmt_fields[];

/*
 * --since: "@SECONDS" (Unix time), "N" followed by s, m, h or d (that
 * long before now_us), "YYYY-MM-DD", "YYYY-MM-DD HH:MM[:SS]" (also with
 * a T; local time).  0 with *us set, or -1.
 */
int	 auditfmt_since(const char *text, uint64_t now_us, uint64_t *us);

/*
 * --client: a number is a pid or a uid; anything else the app's name,
 * its executable (the path or its last part) or its unit.
 */
int	 auditfmt_client_match(const cJSON *rec, const char *client);

/* The table's header, and one row for a record at realtime_us. */
const char *auditfmt_header(void);
char	*auditfmt_row(const cJSON *rec, uint64_t realtime_us);

/* The JSON line of a record: its fields under short names, numbers. */
cJSON	*auditfmt_json(const cJSON *rec, uint64_t realtime_us);

#endif /* MCPD_AUDITFMT_H */
