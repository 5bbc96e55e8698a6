/*
 * out.c -- mcpctl's printing of answers: escaped text and JSON.
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "esc.h"
#include "out.h"

#define OUT_JSON_INT_MAX	9007199254740992.0	/* 2^53 */

const char *
out_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

double
out_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return (cJSON_IsNumber(v) ? v->valuedouble : dflt);
}

const char *
out_esc(const char *s)
{
	static char	*slots[OUT_ESC_SLOTS];
	static size_t	 next;
	char		**slot = &slots[next++ % OUT_ESC_SLOTS];

	free(*slot);
	*slot = s != NULL ? esc_text(s, strlen(s), 0) : NULL;
	return (*slot);
}

void
out_text(FILE *f, const char *text)
{
	char	*shown;
	size_t	 len;

	shown = esc_text(text, strlen(text), ESC_KEEP_TAB | ESC_KEEP_NEWLINE);
	len = strlen(shown);
	fwrite(shown, 1, len, f);
	if (len == 0 || shown[len - 1] != '\n')
		fputc('\n', f);
	free(shown);
}

void
out_json(FILE *f, const cJSON *o, int one_line)
{
	char	*text;

	text = one_line ? cJSON_PrintUnformatted(o) : cJSON_Print(o);
	if (text == NULL)
		return;
	fprintf(f, "%s\n", text);
	free(text);
}

void
out_json_integers(cJSON *o)
{
	cJSON	*item, *next, *raw;
	char	 text[32];
	double	 d;

	for (item = o != NULL ? o->child : NULL; item != NULL; item = next) {
		next = item->next;
		if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
			out_json_integers(item);
			continue;
		}
		if (!cJSON_IsNumber(item))
			continue;
		d = item->valuedouble;
		if (d <= -OUT_JSON_INT_MAX || d >= OUT_JSON_INT_MAX ||
		    d != (double)(int64_t)d)
			continue;
		snprintf(text, sizeof text, "%" PRId64, (int64_t)d);
		raw = cJSON_CreateRaw(text);
		raw->string = item->string;	/* the key moves along */
		raw->type |= item->type & cJSON_StringIsConst;
		item->string = NULL;
		cJSON_ReplaceItemViaPointer(o, item, raw);
	}
}

void
out_duration(char *buf, size_t size, double ms)
{
	unsigned long long	 s;

	if (ms < 0) {
		snprintf(buf, size, "-");
		return;
	}
	s = (unsigned long long)(ms / 1000);
	if (s < 60)
		snprintf(buf, size, "%llus", s);
	else if (s < 3600)
		snprintf(buf, size, "%llum%02llus", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, size, "%lluh%02llum", s / 3600, (s / 60) % 60);
	else
		snprintf(buf, size, "%llud%02lluh", s / 86400,
		    (s / 3600) % 24);
}
