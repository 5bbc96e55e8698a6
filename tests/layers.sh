#!/bin/sh
# layers.sh -- the calls between files keep the layering build-aux/layers
# declares: no call up a layer, no cycle beyond a program's max-cycle, no
# production file over max-lines, except the ones it lists (which only
# shrink).  build-aux/check-layers reads the objects make built (nm); the
# figures it prints (largest cycle, longest files) are in this test's log.
set -u
[ -n "${LAYERS_OBJECTS:-}" ] || { echo "ERROR: layers: LAYERS_OBJECTS is not set (make check sets it)" >&2; exit 99; }
[ -n "${TESTS_SRCDIR:-}" ] && [ -n "${abs_top_builddir:-}" ] ||
	{ echo "ERROR: layers: TESTS_SRCDIR or abs_top_builddir is not set" >&2; exit 99; }
top=$TESTS_SRCDIR/..
cd "$abs_top_builddir" || exit 99
# shellcheck disable=SC2086 # LAYERS_OBJECTS is a list of words
sh "$top/build-aux/check-layers" "$top/build-aux/layers" "$top" $LAYERS_OBJECTS
