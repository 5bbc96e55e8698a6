/*
 * conf_value.c -- what every part of the configuration reads the same
 * way: repeated keys found, server and group names checked, "roots" and
 * "member_roots" read, a filter's key known, a server found by name, two
 * sets of strings compared.  conf.c and the files of its parts
 * (conf_group.c, conf_remote.c, conf_share.c) call down to these, never
 * back into conf.c.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "conf.h"
#include "conf_int.h"
#include "filter.h"
#include "roots.h"
#include "xmalloc.h"

static int
conf_key_cmp(const void *a, const void *b)
{
	const struct conf_key	*ka = a, *kb = b;
	int			 cmp;

	if ((cmp = strcmp(ka->key, kb->key)) != 0)
		return (cmp);
	if (ka->seq != kb->seq)
		return (ka->seq < kb->seq ? -1 : 1);
	return (0);
}

/*
 * Given keys[i].seq == i, return first[] where first[i] is the position of
 * the first key equal to key i (i itself unless key i repeats an earlier
 * one).  Sorting keeps this O(n log n) for objects of any size.
 */
size_t *
conf_first_keys(struct conf_key *keys, size_t n)
{
	size_t	*first, i, group;

	first = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *first);
	qsort(keys, n, sizeof *keys, conf_key_cmp);
	group = 0;
	for (i = 0; i < n; i++) {
		if (i == 0 || strcmp(keys[i].key, keys[i - 1].key) != 0)
			group = keys[i].seq;
		first[keys[i].seq] = group;
	}
	return (first);
}

size_t *
conf_object_first_keys(const cJSON *object)
{
	const cJSON		*item;
	struct conf_key		*keys;
	size_t			*first, n;

	n = 0;
	for (item = object->child; item != NULL; item = item->next)
		n++;
	keys = xreallocarray(NULL, n == 0 ? 1 : n, sizeof *keys);
	n = 0;
	for (item = object->child; item != NULL; item = item->next) {
		keys[n].key = item->string;
		keys[n].seq = n;
		n++;
	}
	first = conf_first_keys(keys, n);
	free(keys);
	return (first);
}

int
conf_valid_name(const char *name)
{
	size_t	 len;

	len = strlen(name);
	if (len == 0 || len > CONF_NAME_MAX_LEN)
		return (0);
	return (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-") == len);
}

/*
 * "roots": directories the server may work in, as absolute paths or
 * file:// URIs; mcpd answers the server's roots/list with them.  Also
 * "member_roots" (conf_share.c).
 */
void
conf_parse_roots(struct conf_parse *cp, const char *path, const cJSON *array,
    char ***out, size_t *nout)
{
	const cJSON		*item;
	char			*epath, *value, *uri;
	size_t			 index = 0, i;

	if (!cJSON_IsArray(array)) {
		conf_error(cp, path, "expected an array of absolute paths or "
		    "file:// URIs");
		return;
	}
	cJSON_ArrayForEach(item, array) {
		xasprintf(&epath, "%s[%zu]", path, index++);
		value = conf_string(cp, epath, item);
		if (value == NULL) {
			free(epath);
			continue;
		}
		for (i = 0; value[i] != '\0'; i++)
			if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
				break;
		if (value[i] != '\0' && strncmp(value, "file://", 7) == 0) {
			/* One root, one line of a roots key (roots.h). */
			conf_error(cp, epath, "a file:// URI must not hold a "
			    "control character (percent-encode it)");
			free(value);
			free(epath);
			continue;
		}
		if (strncmp(value, "file://", 7) == 0)
			uri = xstrdup(value);
		else if (value[0] == '/')
			uri = roots_path_uri(value);
		else {
			conf_error(cp, epath, "expected an absolute path or a "
			    "file:// URI");
			free(value);
			free(epath);
			continue;
		}
		free(value);
		free(epath);
		*out = xreallocarray(*out, *nout + 1, sizeof **out);
		(*out)[(*nout)++] = uri;
	}
}

/* A filter's key ("tools", "prompts", "resources"): its kind, or -1. */
int
conf_filter_kind(const char *key)
{
	int	 kind;

	for (kind = 0; kind < FILTER_KINDS; kind++) {
		if (strcmp(key, filter_kind_name(kind)) == 0)
			return (kind);
	}
	return (-1);
}

const struct conf_server *
conf_find(const struct conf *conf, const char *name)
{
	size_t	 i;

	if (conf == NULL)
		return (NULL);
	for (i = 0; i < conf->nservers; i++) {
		if (strcmp(conf->servers[i].name, name) == 0)
			return (&conf->servers[i]);
	}
	return (NULL);
}

static int
conf_string_ptr_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Two lists of n strings hold the same ones, in any order. */
int
conf_set_equal(char *const *a, char *const *b, size_t n)
{
	char	**sa, **sb;
	size_t	  i;
	int	  equal = 1;

	if (n == 0)
		return (1);
	sa = xreallocarray(NULL, n, sizeof *sa);
	sb = xreallocarray(NULL, n, sizeof *sb);
	memcpy(sa, a, n * sizeof *sa);
	memcpy(sb, b, n * sizeof *sb);
	qsort(sa, n, sizeof *sa, conf_string_ptr_cmp);
	qsort(sb, n, sizeof *sb, conf_string_ptr_cmp);
	for (i = 0; i < n && equal; i++)
		equal = strcmp(sa[i], sb[i]) == 0;
	free(sa);
	free(sb);
	return (equal);
}
