/*
 * unit.h -- what the unit test programs share.  Each tests/unit/test_*.c
 * builds its suite in unit_suite(); unit_main.c holds the main() that
 * runs it and exits non-zero if any test failed.
 */
#ifndef MCPD_UNIT_H
#define MCPD_UNIT_H

#include <check.h>

/* This program's suite: defined once, by its test_*.c. */
Suite	*unit_suite(void);

#endif /* MCPD_UNIT_H */
