/*
 * insider.h -- whether a peer of mcpd's socket runs inside one of mcpd's
 * own servers (insider.c), so that a server, sandboxed or not, cannot
 * administer mcpd: its connections may attach to a server as any
 * client's do (mcpctl connect), and are refused every other mcpd/
 * method but mcpd/version.
 */
#ifndef MCPD_INSIDER_H
#define MCPD_INSIDER_H

struct client;
struct mcpd;

/*
 * NULL if c's peer runs outside every server, else why method is
 * refused to it ("refused: caller runs inside server NAME"), malloc'd;
 * the refusal is logged (rate limited).
 */
char	*insider_refuses(struct mcpd *, const struct client *c,
	    const char *method);

#endif /* MCPD_INSIDER_H */
