#!/bin/bash
# remote-sse.sh -- server-everything as a legacy HTTP+SSE server, run by
# mcpd as an entry with a "url" and by mcpd-remote on its own, driven by
# the official SDK client (see tests/remote/interop.sh for the checks).
#
# Exit codes (automake): 0 pass, 1 fail, 77 skip (no Node.js), 99 hard
# error.  By hand, from the top of the source tree with the build in
# build/:
#   MCPD=build/daemon/mcpd MCPCTL=build/clients/mcpctl \
#   MCP_FAKE=build/tests/fake/mcp-fake TESTS_SRCDIR=tests \
#   MCPD_REMOTE=build/daemon/mcpd-remote bash tests/interop/remote-sse.sh

REMOTE_KIND=sse
# shellcheck source=../remote/interop.sh
. "${TESTS_SRCDIR:?TESTS_SRCDIR is not set (see tests/integration/lib.sh)}/remote/interop.sh"
