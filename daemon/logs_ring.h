/*
 * logs_ring.h -- a server's stderr lines: its recent lines in a ring
 * (mcpctl logs), the journal, the count; the worker's part of logs.h.
 *
 * One struct logs per server.  Each new line goes to the ring, to the
 * journal (rate limited), and to the followers through the table the
 * layer above supplies in struct mcpd (logs_followers: logs.c's), so
 * that the worker, which feeds the lines, never calls the connections
 * that follow them.
 */
#ifndef MCPD_LOGS_RING_H
#define MCPD_LOGS_RING_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct handover_server;
struct logs;
struct mcpd;

/*
 * Who follows the servers' stderr (logs.c), told by the ring: a new line
 * (seq in the ring of l), and the end of the server of serial.
 */
struct logs_followers {
	void	(*line)(struct mcpd *, const struct logs *l, uint64_t seq);
	void	(*gone)(struct mcpd *, uint64_t serial, const char *reason);
};

/* serial: never given to another server while mcpd runs. */
struct logs	*logs_new(struct mcpd *, const char *name, uint64_t serial);
/* The server is gone: a connection that followed only it is closed. */
void		 logs_free(struct logs *, const char *reason);
/* A stderr line (total bytes: more than len when it was cut). */
void		 logs_line(struct logs *, const char *line, size_t len,
		    size_t total);
/* Line seq of the ring as mcpd/logs and mcpd/log give it, or NULL. */
cJSON		*logs_line_json(const struct logs *, uint64_t seq);
/* The last n lines, oldest first, as mcpd/logs answers them. */
cJSON		*logs_json(const struct logs *, size_t n);
uint64_t	 logs_serial(const struct logs *);
/* Lines seen since the server was configured (status: stderr_lines). */
uint64_t	 logs_count(const struct logs *);
/* A re-exec: the recent lines and the count, handed over and taken. */
void		 logs_export(const struct logs *, struct handover_server *);
void		 logs_adopt(struct logs *, const struct handover_server *);

#endif /* MCPD_LOGS_RING_H */
