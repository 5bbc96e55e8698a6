/*
 * unit_main.c -- main() of every unit test program: run the program's
 * suite (unit.h) and exit non-zero if any of its tests failed.
 */
#include "config.h"

#include <stdlib.h>

#include "unit.h"

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(unit_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return (failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}
