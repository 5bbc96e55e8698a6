/*
 * control_pins.h -- mcpd/pins and mcpd/approve (admin; control.c's
 * table): what a server changed since its definitions were approved, and
 * the approval, over each of its routers (a template's instances too).
 */
#ifndef MCPD_CONTROL_PINS_H
#define MCPD_CONTROL_PINS_H

#include <cjson/cJSON.h>

struct client;
struct mcpd;

void	control_pins(struct mcpd *, struct client *, const cJSON *id,
	    const cJSON *params);
void	control_approve(struct mcpd *, struct client *, const cJSON *id,
	    const cJSON *params);

#endif /* MCPD_CONTROL_PINS_H */
