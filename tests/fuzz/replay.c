/*
 * replay.c -- run a fuzz target without libFuzzer: every file of its
 * committed corpus goes through LLVMFuzzerTestOneInput once.  This is how
 * the targets run under `make check` (built with the project's compiler
 * and flags); the corpus then works as a regression suite.
 *
 *	replay_NAME			replay $TESTS_SRCDIR/fuzz/corpus/NAME
 *	replay_NAME FILE|DIR ...	replay these (a crash reproducer, say)
 *
 * Exits 0 when every input ran, 1 if none was found, 99 (a hard error
 * for the test driver) when the corpus cannot be read.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT_BYTES	(16 * 1024 * 1024)

static size_t	replay_count;

static int
replay_file(const char *path)
{
	FILE	*f;
	uint8_t	*buf;
	size_t	 len;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return (-1);
	}
	if ((buf = malloc(REPLAY_MAX_INPUT_BYTES)) == NULL)
		abort();
	len = fread(buf, 1, REPLAY_MAX_INPUT_BYTES, f);
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		fclose(f);
		free(buf);
		return (-1);
	}
	fclose(f);
	fuzz_input_name = path;
	/* Exactly the bytes of the file, as libFuzzer would pass them. */
	buf = realloc(buf, len == 0 ? 1 : len);
	LLVMFuzzerTestOneInput(buf, len);
	fuzz_input_name = NULL;
	free(buf);
	replay_count++;
	return (0);
}

static int
replay_name_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static int
replay_dir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL, *path;
	size_t		 n = 0, i;
	int		 rc = 0;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return (-1);
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((names = realloc(names, (n + 1) * sizeof *names)) == NULL ||
		    (names[n++] = strdup(de->d_name)) == NULL)
			abort();
	}
	closedir(d);
	/* In name order, so a failure shows up at the same place each time. */
	qsort(names, n, sizeof *names, replay_name_cmp);
	for (i = 0; i < n; i++) {
		if (asprintf(&path, "%s/%s", dir, names[i]) == -1)
			abort();
		if (replay_file(path) != 0)
			rc = -1;
		free(path);
		free(names[i]);
	}
	free(names);
	return (rc);
}

static int
replay_path(const char *path)
{
	struct stat	 sb;

	if (stat(path, &sb) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return (-1);
	}
	if (S_ISDIR(sb.st_mode))
		return (replay_dir(path));
	return (replay_file(path));
}

int
main(int argc, char **argv)
{
	const char	*srcdir;
	char		*dir;
	int		 i, rc = 0;

	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			if (replay_path(argv[i]) != 0)
				rc = -1;
		}
	} else {
		if ((srcdir = getenv("TESTS_SRCDIR")) == NULL) {
			fprintf(stderr, "replay_%s: set TESTS_SRCDIR to the "
			    "tests directory, or name inputs\n",
			    fuzz_target_name);
			return (99);
		}
		if (asprintf(&dir, "%s/fuzz/corpus/%s", srcdir,
		    fuzz_target_name) == -1)
			abort();
		rc = replay_dir(dir);
		free(dir);
	}
	if (rc != 0)
		return (99);
	printf("replay_%s: %zu inputs, no invariant broken\n",
	    fuzz_target_name, replay_count);
	return (replay_count > 0 ? 0 : 1);
}
