/*
 * router_pins.c -- what a server changed since a person approved its
 * definitions (src/pins.h): held from every client until approved.
 *
 * After each ready session (and a re-exec's taken-over one) and each
 * list_changed of the server's, mcpd asks the server itself for the whole
 * list of each kind it declares (tools, prompts, resource templates),
 * every page, and compares it with the pins of the server's key (its
 * name, the capabilities mcpd declares to it and, per roots, its roots:
 * servers publish different tools for those).  While mcpd's own list is
 * being read, clients' requests of that kind wait as they do for a
 * starting server.  The first whole list of a key is trusted and pinned.
 * Later a changed definition, or a new name, is a change: with "pin":
 * "block" it is held (gone from every client's list, a call refused with
 * an error that says what changed and how to approve it), with "warn"
 * only logged and shown; "off" does none of this.
 *
 * Every list reply a client gets is judged again, entry by entry, so a
 * server that shows mcpd one list and its clients another gains nothing.
 * Held names are kept per kind (changes): each is logged once (journal,
 * MCPD_MID_PIN) and clients are sent list_changed when the held set
 * grows or shrinks.  Approving (mcpctl approve, router_pins_approve) pins
 * the new definitions and writes the server's file (pins_store.c).
 *
 * Resource templates are hidden from lists, but a resources/read of a
 * URI a held template would match is not refused: a URI does not say
 * which template it came from.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "envelope.h"
#include "hmap.h"
#include "jcs.h"
#include "log.h"
#include "mcpd.h"
#include "pins.h"
#include "pins_store.h"
#include "proto.h"
#include "roots.h"
#include "router.h"
#include "router_int.h"
#include "uritmpl.h"
#include "util.h"
#include "xmalloc.h"

/* Pages of one list mcpd reads before it gives up on it. */
#define ROUTER_PINS_MAX_PAGES		1000
/* A name quoted in an error or a log line, at most. */
#define ROUTER_PINS_QUOTE_BYTES		200

struct router_pin_change {
	enum pins_kind	 kind;
	enum pins_change change;	/* PINS_CHANGED or PINS_NEW */
	char		*name;
	char		*old_def;
	char		*new_def;	/* NULL: the entry has no definition */
	char		 hash[JCS_HEX_BYTES];
	const char	*why;		/* it cannot be pinned */
};

struct router_pins_kind {
	int		 fetching;
	int64_t		 up_id;
	unsigned int	 pages;
	cJSON		*acc;		/* the entries read so far */
	int		 fetched;	/* a whole list, this session */
	struct hmap	*changes;	/* name -> struct router_pin_change */
	cJSON		*gone;		/* names pinned, not in the list */
};

struct router_pins {
	struct pins_slot	*slot;
	enum conf_pin		 mode;
	struct router_pins_kind	 k[PINS_KINDS];
};

static const char *router_pins_list_methods[PINS_KINDS] = {
	"tools/list", "prompts/list", "resources/templates/list"
};
static const char *router_pins_caps[PINS_KINDS] = {
	"tools", "prompts", "resources"
};
static const char *router_pins_changed_text[PINS_KINDS] = {
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/prompts/list_changed\"}",
	"{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/resources/list_changed\"}",
};

static void
router_pin_change_free(struct router_pin_change *c)
{
	if (c == NULL)
		return;
	free(c->name);
	free(c->old_def);
	free(c->new_def);
	free(c);
}

static void
router_pins_changes_clear(struct router_pins_kind *pk)
{
	struct hmap_iter	 it;
	void			*v;

	if (pk->changes == NULL)
		return;
	hmap_iter_init(pk->changes, &it);
	while (hmap_iter_next(&it, NULL, NULL, &v))
		router_pin_change_free(v);
	hmap_free(pk->changes);
	pk->changes = NULL;
}

static void
router_pins_kind_reset(struct router_pins_kind *pk)
{
	pk->fetching = 0;
	pk->pages = 0;
	pk->fetched = 0;
	cJSON_Delete(pk->acc);
	pk->acc = NULL;
}

void
router_pins_free(struct router *r)
{
	struct router_pins	*p = r->pins;
	size_t			 k;

	router_shadow_free(r);
	if (p == NULL)
		return;
	for (k = 0; k < PINS_KINDS; k++) {
		router_pins_kind_reset(&p->k[k]);
		router_pins_changes_clear(&p->k[k]);
		cJSON_Delete(p->k[k].gone);
	}
	pins_store_put(r->mcpd, p->slot);
	free(p);
	r->pins = NULL;
}

int
router_pins_active(const struct router *r)
{
	return (r->pins != NULL);
}

/* The kind of a list or a get/call method, or -1. */
static int
router_pins_kind_of(const char *method, size_t len, int *is_list)
{
	static const struct {
		const char	*m;
		enum pins_kind	 k;
		int		 list;
	} t[] = {
		{ "tools/list", PINS_TOOLS, 1 },
		{ "tools/call", PINS_TOOLS, 0 },
		{ "prompts/list", PINS_PROMPTS, 1 },
		{ "prompts/get", PINS_PROMPTS, 0 },
		{ "resources/templates/list", PINS_TEMPLATES, 1 },
	};
	size_t	 i;

	for (i = 0; i < nitems(t); i++) {
		if (strlen(t[i].m) == len && memcmp(t[i].m, method, len) == 0) {
			if (is_list != NULL)
				*is_list = t[i].list;
			return ((int)t[i].k);
		}
	}
	return (-1);
}

/* Tell every attachment that lists of kind changed. */
static void
router_pins_tell(struct router *r, unsigned int kinds)
{
	struct attachment	*a;
	size_t			 k;

	TAILQ_FOREACH(a, &r->atts, entry) {
		for (k = 0; k < PINS_KINDS; k++) {
			if (!(kinds & (1U << k)))
				continue;
			router_peer_queue(a, &(struct iovec){
			    (void *)router_pins_changed_text[k],
			    strlen(router_pins_changed_text[k]) }, 1);
		}
	}
}

/* The key of the server's pins: what it is told, and per roots, its roots. */
static char *
router_pins_key(struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	const struct roots	*roots = r->up->roots(r->worker);
	cJSON			*caps;
	char			*text, *all, hex[JCS_HEX_BYTES];

	caps = router_client_capabilities(r);
	text = jcs_text(caps, SIZE_MAX, 0, NULL, NULL);
	cJSON_Delete(caps);
	xasprintf(&all, "mcpd pins key 1\n%s\n%s", text != NULL ? text : "",
	    cs->share == CONF_SHARE_PER_ROOTS && roots != NULL &&
	    roots->key != NULL ? roots->key : "");
	jcs_sha256_hex(all, strlen(all), hex);
	free(text);
	free(all);
	hex[16] = '\0';
	return (xstrdup(hex));
}

/* Which kinds the server declares (its initialize result). */
static unsigned int
router_pins_declared(struct router *r)
{
	const char	*init = r->up->init_result_text(r->worker);
	const cJSON	*caps;
	cJSON		*result;
	unsigned int	 kinds = 0;
	size_t		 k;

	if (init == NULL || (result = cJSON_Parse(init)) == NULL)
		return (0);
	caps = cJSON_GetObjectItemCaseSensitive(result, "capabilities");
	for (k = 0; k < PINS_KINDS; k++)
		if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps,
		    router_pins_caps[k])))
			kinds |= 1U << k;
	cJSON_Delete(result);
	return (kinds);
}

static void
router_pins_ask(struct router *r, enum pins_kind k, const char *cursor)
{
	struct router_pins_kind	*pk = &r->pins->k[k];
	cJSON			*params = NULL;

	if (cursor != NULL) {
		params = cJSON_CreateObject();
		cJSON_AddStringToObject(params, "cursor", cursor);
	}
	pk->fetching = 1;
	pk->pages++;
	pk->up_id = router_internal_request(r, router_pins_list_methods[k],
	    params);
}

/* The top-level members two definitions differ in: "description, ...". */
static void
router_pins_what(const char *old_def, const char *new_def, char *buf,
    size_t size)
{
	cJSON		*o, *n;
	const cJSON	*m, *other;
	char		*a, *b;
	int		 differs;

	buf[0] = '\0';
	o = old_def != NULL ? cJSON_Parse(old_def) : NULL;
	n = new_def != NULL ? cJSON_Parse(new_def) : NULL;
	if (o == NULL || n == NULL)
		goto out;
	for (m = n->child; m != NULL; m = m->next) {
		other = cJSON_GetObjectItemCaseSensitive(o, m->string);
		a = jcs_text(m, SIZE_MAX, 0, NULL, NULL);
		b = other != NULL ? jcs_text(other, SIZE_MAX, 0, NULL, NULL) :
		    NULL;
		differs = a == NULL || b == NULL || strcmp(a, b) != 0;
		free(a);
		free(b);
		if (differs && strlen(buf) + strlen(m->string) + 3 < size)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
			    buf[0] != '\0' ? ", " : "", m->string);
	}
	for (m = o->child; m != NULL; m = m->next) {
		if (cJSON_GetObjectItemCaseSensitive(n, m->string) == NULL &&
		    strlen(buf) + strlen(m->string) + 3 < size)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
			    buf[0] != '\0' ? ", " : "", m->string);
	}
out:
	cJSON_Delete(o);
	cJSON_Delete(n);
}

static void
router_pins_log(struct router *r, const struct router_pin_change *c)
{
	const char	*server = r->up->name(r->worker);
	char		 what[256];
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, server },
		{ MCPD_FIELD_PIN_KIND, pins_kind_name(c->kind) },
		{ MCPD_FIELD_PIN_NAME, c->name != NULL ? c->name : "" },
		{ MCPD_FIELD_PIN_CHANGE, pins_change_name(c->change) },
	};

	if (c->change == PINS_CHANGED)
		router_pins_what(c->old_def, c->new_def, what, sizeof what);
	else
		snprintf(what, sizeof what, "it was not there when the "
		    "server's %s were approved", pins_kind_name(c->kind));
	log_event(LOG_WARNING, MCPD_MID_PIN, f, nitems(f), "server %s: %s "
	    "%.*s is %s since it was approved (%s); %s: mcpctl pins %s, "
	    "mcpctl approve %s %.*s", server, pins_kind_noun(c->kind),
	    ROUTER_PINS_QUOTE_BYTES, c->name != NULL ? c->name : "(no name)",
	    pins_change_name(c->change), c->why != NULL ? c->why : what,
	    r->pins->mode == CONF_PIN_BLOCK ? "held until approved" :
	    "not held (\"pin\": \"warn\")", server, server,
	    ROUTER_PINS_QUOTE_BYTES, c->name != NULL ? c->name : "");
}

/*
 * A verdict that is a change: recorded (and logged) unless the same
 * change is known.  1 if the set of changes is new by it.
 */
static int
router_pins_note(struct router *r, enum pins_kind k,
    const struct pins_verdict *v)
{
	struct router_pins_kind	*pk = &r->pins->k[k];
	struct router_pin_change *c, *old;

	if (v->name == NULL) {
		/* No name: it cannot be held by name, only left out. */
		return (0);
	}
	if (pk->changes == NULL)
		pk->changes = hmap_new(hmap_random_seed());
	old = hmap_get(pk->changes, v->name, strlen(v->name));
	if (old != NULL && old->change == v->change &&
	    strcmp(old->hash, v->hash) == 0 && old->why == v->why)
		return (0);
	if (old == NULL && hmap_count(pk->changes) >= PINS_MAX_ENTRIES)
		return (0);
	c = xcalloc(1, sizeof *c);
	c->kind = k;
	c->change = v->change;
	c->name = xstrdup(v->name);
	c->old_def = v->old_def != NULL ? xstrdup(v->old_def) : NULL;
	c->new_def = v->new_def != NULL ? xstrdup(v->new_def) : NULL;
	memcpy(c->hash, v->hash, sizeof c->hash);
	c->why = v->why;
	hmap_put(pk->changes, c->name, strlen(c->name), c);
	router_pin_change_free(old);
	router_pins_log(r, c);
	return (1);
}

/* A name the list shows as approved again: no longer a change. */
static int
router_pins_unnote(struct router *r, enum pins_kind k, const char *name)
{
	struct router_pins_kind	*pk = &r->pins->k[k];
	struct router_pin_change *c;

	if (pk->changes == NULL || name == NULL ||
	    (c = hmap_del(pk->changes, name, strlen(name))) == NULL)
		return (0);
	router_pin_change_free(c);
	return (1);
}

static void
router_pins_save(struct router *r)
{
	char	*cause;

	if (pins_store_save(r->pins->slot, &cause) != 0) {
		log_warnx("server %s: cannot write its pins: %s",
		    r->up->name(r->worker), cause);
		free(cause);
	}
}

/* mcpd's own whole list of kind is read: judged, pinned if first. */
static void
router_pins_settle(struct router *r, enum pins_kind k)
{
	struct router_pins	*p = r->pins;
	struct router_pins_kind	*pk = &p->k[k];
	struct pins		*pins = p->slot->pins;
	struct pins_check	 check;
	struct hmap		*before;
	struct hmap_iter	 it;
	const void		*key;
	size_t			 keylen, i, nheld = 0;
	int			 grew = 0;
	void			*v;

	pins_compare(pins, k, pk->acc, &check);
	pk->fetching = 0;
	pk->fetched = 1;
	router_shadow_listed(r, k, pk->acc);
	cJSON_Delete(pk->acc);
	pk->acc = NULL;
	cJSON_Delete(pk->gone);
	pk->gone = cJSON_CreateArray();
	if (!pins_seeded(pins, k)) {
		pins_seed(pins, k, &check);
		router_pins_save(r);
		log_info("server %s: %zu %s pinned (the first list mcpd saw "
		    "of them)", r->up->name(r->worker), pins_count(pins, k),
		    pins_kind_name(k));
		router_pins_changes_clear(pk);
		pins_check_free(&check);
		return;
	}
	/* The changes are this list's: those it no longer shows go. */
	before = pk->changes;
	pk->changes = NULL;
	for (i = 0; i < check.n; i++) {
		switch (check.v[i].change) {
		case PINS_SAME:
			break;
		case PINS_GONE:
			cJSON_AddItemToArray(pk->gone,
			    cJSON_CreateString(check.v[i].name));
			break;
		case PINS_CHANGED:
		case PINS_NEW:
			if (check.v[i].name == NULL)
				break;
			if (pk->changes == NULL)
				pk->changes = hmap_new(hmap_random_seed());
			v = before != NULL ? hmap_del(before, check.v[i].name,
			    strlen(check.v[i].name)) : NULL;
			if (v != NULL)
				hmap_put(pk->changes, check.v[i].name,
				    strlen(check.v[i].name), v);
			grew |= router_pins_note(r, k, &check.v[i]);
			nheld++;
			break;
		}
	}
	if (before != NULL) {
		hmap_iter_init(before, &it);
		while (hmap_iter_next(&it, &key, &keylen, &v)) {
			grew = 1;
			router_pin_change_free(v);
		}
		hmap_free(before);
	}
	pins_check_free(&check);
	if (grew && p->mode == CONF_PIN_BLOCK)
		router_pins_tell(r, 1U << k);
}

static void
router_pins_failed(struct router *r, enum pins_kind k, const char *why)
{
	struct router_pins_kind	*pk = &r->pins->k[k];

	log_warnx("server %s: mcpd could not read its %s to compare them "
	    "with their pins: %s; each list a client gets is still judged",
	    r->up->name(r->worker), pins_kind_name(k), why);
	router_pins_kind_reset(pk);
}

void
router_pins_session(struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct router_pins	*p;
	unsigned int		 kinds;
	char			*key;
	size_t			 k, f;

	if (cs->pin == CONF_PIN_OFF) {
		router_pins_free(r);
		r->filtered = 0;
		for (f = 0; f < FILTER_KINDS; f++)
			if (r->filters[f] != NULL)
				r->filtered = 1;
		return;
	}
	if ((p = r->pins) == NULL)
		p = r->pins = xcalloc(1, sizeof *p);
	p->mode = cs->pin;
	r->filtered = 1;
	key = router_pins_key(r);
	if (p->slot == NULL || strcmp(p->slot->key, key) != 0) {
		pins_store_put(r->mcpd, p->slot);
		p->slot = pins_store_get(r->mcpd, cs->name, key);
		for (k = 0; k < PINS_KINDS; k++)
			router_pins_changes_clear(&p->k[k]);
	}
	free(key);
	kinds = router_pins_declared(r);
	for (k = 0; k < PINS_KINDS; k++) {
		router_pins_kind_reset(&p->k[k]);
		if (kinds & (1U << k))
			router_pins_ask(r, k, NULL);
	}
}

void
router_pins_list_changed(struct router *r, const char *method)
{
	size_t	 k;

	if (r->pins == NULL)
		return;
	if (strcmp(method, "notifications/tools/list_changed") == 0)
		k = PINS_TOOLS;
	else if (strcmp(method, "notifications/prompts/list_changed") == 0)
		k = PINS_PROMPTS;
	else if (strcmp(method, "notifications/resources/list_changed") == 0)
		k = PINS_TEMPLATES;
	else
		return;
	router_pins_kind_reset(&r->pins->k[k]);
	router_pins_ask(r, k, NULL);
}

/* A page of mcpd's own list. */
static void
router_pins_page(struct router *r, enum pins_kind k, const char *line,
    size_t len)
{
	struct router_pins_kind	*pk = &r->pins->k[k];
	const cJSON		*result, *cursor;
	cJSON			*msg, *list, *e;

	if ((msg = cJSON_ParseWithLength(line, len)) == NULL) {
		router_pins_failed(r, k, "its answer is not JSON");
		return;
	}
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	list = cJSON_GetObjectItemCaseSensitive(result, pins_kind_member(k));
	if (!cJSON_IsArray(list)) {
		cJSON_Delete(msg);
		router_pins_failed(r, k, "its answer is not a list");
		return;
	}
	if (pk->acc == NULL)
		pk->acc = cJSON_CreateArray();
	while ((e = cJSON_DetachItemViaPointer(list, list->child)) != NULL) {
		if (cJSON_GetArraySize(pk->acc) >= PINS_MAX_ENTRIES) {
			cJSON_Delete(e);
			cJSON_Delete(msg);
			router_pins_failed(r, k, "it has more entries than "
			    "mcpd pins");
			return;
		}
		cJSON_AddItemToArray(pk->acc, e);
	}
	cursor = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
	if (cJSON_IsString(cursor) && cursor->valuestring[0] != '\0') {
		if (pk->pages >= ROUTER_PINS_MAX_PAGES)
			router_pins_failed(r, k, "it has too many pages");
		else
			router_pins_ask(r, k, cursor->valuestring);
		cJSON_Delete(msg);
		return;
	}
	cJSON_Delete(msg);
	router_pins_settle(r, k);
}

int
router_pins_reply(struct router *r, int64_t upstream_id, const char *line,
    size_t len, int is_error)
{
	size_t	 k;

	if (r->pins == NULL)
		return (0);
	for (k = 0; k < PINS_KINDS; k++) {
		if (!r->pins->k[k].fetching || r->pins->k[k].up_id !=
		    upstream_id)
			continue;
		if (is_error)
			router_pins_failed(r, k, "it answered with an error");
		else
			router_pins_page(r, k, line, len);
		return (r->pins->k[k].fetching ? 1 : 2);
	}
	return (0);
}

int
router_pins_lost(struct router *r, int64_t upstream_id)
{
	size_t	 k;

	if (r->pins == NULL)
		return (0);
	for (k = 0; k < PINS_KINDS; k++) {
		if (r->pins->k[k].fetching && r->pins->k[k].up_id ==
		    upstream_id) {
			router_pins_failed(r, k, "it did not answer in time");
			return (1);
		}
	}
	return (0);
}

int
router_pins_waits(struct attachment *a, const char *method, size_t len)
{
	struct router	*r = a->router;
	int		 k;

	if (r->pins == NULL || r->pins->mode != CONF_PIN_BLOCK)
		return (0);
	/* A read waits for the templates that may hold its URI. */
	if (len == strlen("resources/read") &&
	    memcmp(method, "resources/read", len) == 0)
		return (r->pins->k[PINS_TEMPLATES].fetching);
	if ((k = router_pins_kind_of(method, len, NULL)) == -1)
		return (0);
	return (r->pins->k[k].fetching);
}

/* Answer a request refused for the held change c, named name. */
static void
router_pins_refuse(struct attachment *a, const char *line,
    const struct envelope *env, const struct router_pin_change *c,
    const char *name)
{
	struct router	*r = a->router;
	const char	*server = r->up->name(r->worker);
	const char	*noun = pins_kind_noun(c->kind);
	char		 what[256];
	int		 shown;

	shown = strlen(name) > ROUTER_PINS_QUOTE_BYTES ?
	    ROUTER_PINS_QUOTE_BYTES : (int)strlen(name);
	if (c->change == PINS_CHANGED) {
		router_pins_what(c->old_def, c->new_def, what, sizeof what);
		router_client_error(a, router_text(line, &env->id), env->id.len,
		    RPC_INVALID_PARAMS, "%s %.*s of server %s changed its "
		    "definition (%s) since it was approved, and is held until "
		    "a person approves it again; see mcpctl pins %s; "
		    "mcpctl approve %s %.*s", noun, shown, name, server, what,
		    server, server, shown, name);
	} else {
		router_client_error(a, router_text(line, &env->id), env->id.len,
		    RPC_INVALID_PARAMS, "%s %.*s of server %s is not among its "
		    "approved %s (new since they were pinned), and is held "
		    "until a person approves it; see mcpctl pins %s; "
		    "mcpctl approve %s %.*s", noun, shown, name, server,
		    pins_kind_name(c->kind), server, server, shown, name);
	}
}

/*
 * A resources/read of a URI that a held template matches (uritmpl.h; a
 * template too costly to match counts as matching): refused as a call
 * of a held tool is, naming the template.
 */
static int
router_pins_refuses_read(struct attachment *a, const char *line,
    const struct envelope *env)
{
	struct router_pins_kind	*pk = &a->router->pins->k[PINS_TEMPLATES];
	struct router_pin_change *c, *held = NULL;
	struct hmap_iter	 it;
	void			*v;
	char			*uri;
	size_t			 len, work = 0;

	if (pk->changes == NULL || hmap_count(pk->changes) == 0 ||
	    (uri = envelope_string_dup(line, &env->p_uri, SIZE_MAX,
	    &len)) == NULL)
		return (0);
	hmap_iter_init(pk->changes, &it);
	while (held == NULL && hmap_iter_next(&it, NULL, NULL, &v)) {
		c = v;
		if (uritmpl_match(c->name, uri, len, &work) != 0)
			held = c;
	}
	free(uri);
	if (held == NULL)
		return (0);
	router_pins_refuse(a, line, env, held, held->name);
	return (1);
}

int
router_pins_refuses(struct attachment *a, const char *line,
    const struct envelope *env, const char *method)
{
	struct router		*r = a->router;
	struct router_pin_change *c;
	char			*name;
	int			 k, is_list;

	if (r->pins == NULL || r->pins->mode != CONF_PIN_BLOCK)
		return (0);
	if (strcmp(method, "resources/read") == 0)
		return (pins_seeded(r->pins->slot->pins, PINS_TEMPLATES) &&
		    router_pins_refuses_read(a, line, env));
	if ((k = router_pins_kind_of(method, strlen(method), &is_list)) == -1 ||
	    is_list || !pins_seeded(r->pins->slot->pins, k))
		return (0);
	if ((name = envelope_string_dup(line, &env->p_name, SIZE_MAX,
	    NULL)) == NULL)
		return (0);
	c = r->pins->k[k].changes != NULL ? hmap_get(r->pins->k[k].changes,
	    name, strlen(name)) : NULL;
	/*
	 * Neither approved nor in the server's list: no definition reached
	 * a model through mcpd; the server says what it is.
	 */
	if (c != NULL)
		router_pins_refuse(a, line, env, c, name);
	free(name);
	return (c != NULL);
}

/*
 * A client's list page (text: a result object), judged entry by entry;
 * held ones taken out.  NULL if nothing is taken out, else the new text.
 */
static char *
router_pins_judge_page(struct router *r, enum pins_kind k, const char *text,
    size_t len)
{
	struct router_pins	*p = r->pins;
	struct pins_check	 check;
	cJSON			*result, *list, *e, *next;
	char			*out = NULL;
	size_t			 i;
	int			 told = 0, removed = 0, idx;

	if ((result = cJSON_ParseWithLength(text, len)) == NULL)
		return (NULL);
	list = cJSON_GetObjectItemCaseSensitive(result, pins_kind_member(k));
	if (!cJSON_IsArray(list)) {
		cJSON_Delete(result);
		return (NULL);
	}
	pins_compare(p->slot->pins, k, list, &check);
	/* The verdicts of the entries come first, in the list's order. */
	for (e = list->child, idx = 0; e != NULL; e = next, idx++) {
		next = e->next;
		i = (size_t)idx;
		if (i >= check.n)
			break;
		if (check.v[i].change == PINS_SAME) {
			told |= router_pins_unnote(r, k, check.v[i].name);
			continue;
		}
		told |= router_pins_note(r, k, &check.v[i]);
		if (p->mode == CONF_PIN_BLOCK) {
			cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
			removed = 1;
		}
	}
	pins_check_free(&check);
	if (removed)
		out = cJSON_PrintUnformatted(result);
	cJSON_Delete(result);
	if (told && p->mode == CONF_PIN_BLOCK)
		router_pins_tell(r, 1U << k);
	return (out);
}

enum filter_result
router_pins_narrow(struct router *r, const char *method, const char *line,
    const struct envelope *env, struct envelope_edit *edit,
    enum filter_result res)
{
	const char	*text;
	char		*out;
	size_t		 len;
	int		 k, is_list;

	if (r->pins == NULL || res == FILTER_BAD ||
	    (k = router_pins_kind_of(method, strlen(method), &is_list)) ==
	    -1 || !is_list || !pins_seeded(r->pins->slot->pins, k) ||
	    env->result.type != ENVELOPE_OBJECT)
		return (res);
	if (res == FILTER_CHANGED) {
		text = edit->text;
		len = edit->text_len;
	} else {
		text = router_text(line, &env->result);
		len = env->result.len;
	}
	if ((out = router_pins_judge_page(r, k, text, len)) == NULL)
		return (res);
	if (res == FILTER_CHANGED)
		free((char *)edit->text);
	edit->off = env->result.off;
	edit->len = env->result.len;
	edit->text = out;
	edit->text_len = strlen(out);
	return (FILTER_CHANGED);
}

/* A definition for people: its canonical JSON, one member a line. */
static cJSON *
router_pins_pretty(const char *def)
{
	cJSON	*v, *s;
	char	*text;

	if (def == NULL || (v = cJSON_Parse(def)) == NULL)
		return (cJSON_CreateNull());
	text = jcs_text(v, SIZE_MAX, 1, NULL, NULL);
	cJSON_Delete(v);
	s = text != NULL ? cJSON_CreateString(text) : cJSON_CreateNull();
	free(text);
	return (s);
}

cJSON *
router_pins_json(struct router *r)
{
	const struct conf_server *cs = r->up->conf(r->worker);
	struct router_pins	*p = r->pins;
	struct router_pin_change *c;
	struct hmap_iter	 it;
	cJSON			*o, *changes, *one, *pinned, *gone, *g;
	void			*v;
	size_t			 k;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "server", r->up->name(r->worker));
	cJSON_AddStringToObject(o, "pin", conf_pin_name(cs->pin));
	if (p == NULL || p->slot == NULL)
		return (o);
	cJSON_AddStringToObject(o, "key", p->slot->key);
	if (p->slot->path != NULL)
		cJSON_AddStringToObject(o, "file", p->slot->path);
	if (p->slot->broken)
		cJSON_AddStringToObject(o, "broken", p->slot->broken_why != NULL ?
		    p->slot->broken_why : "unreadable");
	pinned = cJSON_AddObjectToObject(o, "pinned");
	cJSON_AddItemToObject(o, "shadowing", router_shadow_json(r));
	changes = cJSON_AddArrayToObject(o, "changes");
	gone = cJSON_AddArrayToObject(o, "gone");
	for (k = 0; k < PINS_KINDS; k++) {
		if (pins_seeded(p->slot->pins, k))
			cJSON_AddNumberToObject(pinned, pins_kind_name(k),
			    (double)pins_count(p->slot->pins, k));
		if (p->k[k].gone != NULL)
			cJSON_ArrayForEach(g, p->k[k].gone) {
				one = cJSON_CreateObject();
				cJSON_AddStringToObject(one, "kind",
				    pins_kind_name(k));
				cJSON_AddStringToObject(one, "name",
				    g->valuestring);
				cJSON_AddItemToArray(gone, one);
			}
		if (p->k[k].changes == NULL)
			continue;
		hmap_iter_init(p->k[k].changes, &it);
		while (hmap_iter_next(&it, NULL, NULL, &v)) {
			c = v;
			one = cJSON_CreateObject();
			cJSON_AddStringToObject(one, "kind", pins_kind_name(k));
			cJSON_AddStringToObject(one, "name", c->name);
			cJSON_AddStringToObject(one, "change",
			    pins_change_name(c->change));
			cJSON_AddBoolToObject(one, "held",
			    p->mode == CONF_PIN_BLOCK);
			if (c->why != NULL)
				cJSON_AddStringToObject(one, "why", c->why);
			cJSON_AddItemToObject(one, "old",
			    router_pins_pretty(c->old_def));
			cJSON_AddItemToObject(one, "new",
			    router_pins_pretty(c->new_def));
			cJSON_AddItemToArray(changes, one);
		}
	}
	return (o);
}

int
router_pins_holds(const struct router *r, const char *name)
{
	size_t	 k;

	if (r->pins == NULL)
		return (0);
	for (k = 0; k < PINS_KINDS; k++)
		if (r->pins->k[k].changes != NULL &&
		    hmap_get(r->pins->k[k].changes, name, strlen(name)) != NULL)
			return (1);
	return (0);
}

/* Is name one of names (n of them; none: every name is)? */
static int
router_pins_named(const char *name, char *const *names, size_t n)
{
	size_t	 i;

	if (n == 0)
		return (1);
	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (1);
	return (0);
}

int
router_pins_approve(struct router *r, char *const *names, size_t n,
    cJSON *approved, char **cause)
{
	struct router_pins	*p = r->pins;
	struct router_pin_change *c;
	struct hmap_iter	 it;
	const char		*why;
	unsigned int		 kinds = 0;
	size_t			 k;
	void			*v;

	*cause = NULL;
	if (p == NULL || p->slot == NULL)
		return (0);
	for (k = 0; k < PINS_KINDS; k++) {
		if (p->k[k].changes == NULL)
			continue;
		hmap_iter_init(p->k[k].changes, &it);
		while (hmap_iter_next(&it, NULL, NULL, &v)) {
			c = v;
			if (!router_pins_named(c->name, names, n))
				continue;
			if (c->why != NULL || c->new_def == NULL) {
				xasprintf(cause, "%s %s cannot be approved: %s",
				    pins_kind_noun(k), c->name, c->why != NULL ?
				    c->why : "it has no definition");
				continue;
			}
			if (pins_approve(p->slot->pins, k, c->name, c->new_def,
			    &why) != 0) {
				free(*cause);
				xasprintf(cause, "%s %s cannot be approved: %s",
				    pins_kind_noun(k), c->name, why);
				continue;
			}
			cJSON_AddItemToArray(approved,
			    cJSON_CreateString(c->name));
			hmap_del(p->k[k].changes, c->name, strlen(c->name));
			router_pin_change_free(c);
			kinds |= 1U << k;
		}
	}
	if (kinds == 0)
		return (0);
	log_info("server %s: %d change%s approved", r->up->name(r->worker),
	    cJSON_GetArraySize(approved), cJSON_GetArraySize(approved) == 1 ?
	    "" : "s");
	router_pins_save(r);
	if (p->mode == CONF_PIN_BLOCK)
		router_pins_tell(r, kinds);
	return (1);
}
