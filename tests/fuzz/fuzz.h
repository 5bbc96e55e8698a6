/*
 * fuzz.h -- what the fuzz targets and the replay driver share.
 *
 * Each fuzz_*.c defines LLVMFuzzerTestOneInput.  Built with clang and
 * -fsanitize=fuzzer (build.sh), libFuzzer drives it; linked with replay.c
 * (make check), it runs every file of the committed corpus once.  A broken
 * invariant calls fuzz_fail, which says what and on which input, then
 * aborts, so both builds report it the same way.
 */
#ifndef MCPD_FUZZ_H
#define MCPD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Names the corpus directory, tests/fuzz/corpus/NAME (each target's). */
extern const char	*fuzz_target_name;
/* The file being replayed, for messages (replay.c sets it). */
extern const char	*fuzz_input_name;

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void	fuzz_fail(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#define FUZZ_CHECK(cond, ...) do {					\
	if (!(cond))							\
		fuzz_fail(__VA_ARGS__);					\
} while (0)

/*
 * cJSON as a second opinion on JSON text that envelope_scan accepted.
 * cJSON refuses escaped lone surrogates ("\ud800"), which RFC 8259 allows,
 * and cuts strings and keys at "\u0000", so "id\u0000" would look like
 * "id".  fuzz_json_tame returns a NUL-terminated copy of the same length
 * with, inside strings, "\u0000" written "\u0001" and each lone surrogate
 * "\ufffd": byte offsets stay valid, and keys that differ stay different.
 */
char	*fuzz_json_tame(const char *text, size_t len);
/* Tame, then parse; NULL unless the whole text is one JSON value. */
cJSON	*fuzz_json_parse(const char *text, size_t len);
/* Same tree: same types, members in the same order, numbers ==. */
int	 fuzz_json_equal(const cJSON *, const cJSON *);
/* A value as compact text (malloc'd), to compare ids and tokens. */
char	*fuzz_json_text(const cJSON *);
/* The first member named key, comparing whole keys (NULL if none). */
cJSON	*fuzz_json_member(const cJSON *object, const char *key);

#endif /* MCPD_FUZZ_H */
