#!/bin/sh
# build.sh -- build the fuzz targets.
#
#	tests/fuzz/build.sh [TARGET ...]
#
# By default builds the libFuzzer binaries with clang, ASan and UBSan into
# $FUZZ_OUT (build/fuzz): fuzz_frame, fuzz_envelope, fuzz_conf,
# fuzz_client, fuzz_control, fuzz_sse, fuzz_httphdr, fuzz_remote,
# fuzz_tokens, fuzz_callback, fuzz_filter, fuzz_handover, fuzz_jsonc,
# fuzz_roots, fuzz_urinorm, fuzz_gmerge, fuzz_pversion, fuzz_toml,
# fuzz_rstate, fuzz_modern, fuzz_modern_layer, fuzz_ident, fuzz_pins,
# fuzz_audit, fuzz_sandbox, fuzz_http and fuzz_evhttp.
# With MODE=replay it builds instead the plain replay programs make check runs
# (replay_NAME, with $CC), for a quick look without automake.  config.h comes from $BUILD
# (the configured build directory, build/ by default).  See run.sh to run
# the fuzzers.
#
# fuzz_evhttp runs the system's libevent, whose evhttp parser libFuzzer
# then cannot see (no coverage) and ASan checks only at its calls into
# the C library.  LIBEVENT_SRC=DIR (a libevent 2.1 source tree, the
# release the system has) builds it once, instrumented as the targets
# are, into $FUZZ_OUT/libevent, and links fuzz_evhttp with that.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
FUZZ_OUT=${FUZZ_OUT:-$top/build/fuzz}
MODE=${MODE:-fuzz}
CLANG=${CLANG:-clang}

warn="-Wall -Wextra -Wshadow -Wformat=2 -Wpointer-arith -Wmissing-prototypes
    -Wstrict-prototypes -Wno-unused-parameter -Wno-missing-field-initializers"
deps_cflags=$(pkg-config --cflags libcjson libevent libsystemd)
deps_libs="$(pkg-config --libs libcjson libevent libsystemd libcrypto) -lm"

if [ ! -f "$BUILD/config.h" ]; then
	echo "build.sh: no $BUILD/config.h (configure first, or set BUILD)" >&2
	exit 1
fi
mkdir -p "$FUZZ_OUT"
BUILD=$(cd "$BUILD" && pwd)
FUZZ_OUT=$(cd "$FUZZ_OUT" && pwd)
incs="-I$BUILD -I$top/src -I$top/daemon -I$top/tests/fuzz"

# The code under test that each target links, besides its own file.
sources() {
	case $1 in
	frame)		echo src/frame.c src/envelope.c src/xmalloc.c ;;
	envelope)	echo src/envelope.c src/xmalloc.c ;;
	conf)		echo src/conf.c src/conf_sandbox.c src/sandbox.c src/sandbox_path.c src/confvar.c src/conf_remote.c src/conf_share.c \
			    src/conf_group.c src/dotenv.c \
			    src/conf_diag.c src/conf_expand.c src/conf_value.c src/conf_setting.c src/suggest.c \
			    src/gname.c src/filter.c src/urinorm.c src/roots.c src/sbuf.c \
			    src/url.c src/envelope.c src/xmalloc.c ;;
	client)		echo daemon/router.c daemon/router_pending.c daemon/log.c \
			    daemon/router_audit.c daemon/auditq.c src/audit.c src/rstate.c \
			    src/clock.c src/hmap_seed.c \
			    daemon/router_up.c \
			    daemon/router_down.c daemon/router_filter.c \
			    daemon/router_handover.c daemon/router_roots.c \
			    daemon/router_tasks.c daemon/router_ctasks.c daemon/router_out.c \
			    daemon/router_elicit.c daemon/router_version.c daemon/router_caps.c src/pversion.c \
			    daemon/router_pins.c daemon/router_shadow.c daemon/pins_store.c src/pins.c src/jcs.c src/shadow.c \
			    daemon/router_policy.c src/cpolicy.c src/conf_clients.c src/fdio.c src/frame.c \
			    src/tasktab.c src/mlevel.c \
			    src/handover.c src/b64.c src/ratelim.c \
			    src/roots.c src/sbuf.c src/url.c \
			    src/esc.c daemon/budget.c \
			    src/envelope.c src/hmap.c src/idtab.c \
			    src/rpc.c src/xmalloc.c src/conf.c src/conf_sandbox.c src/sandbox.c src/sandbox_path.c src/confvar.c src/conf_remote.c src/dotenv.c \
			    src/conf_share.c src/conf_group.c src/gname.c \
			    src/conf_diag.c src/conf_expand.c src/conf_value.c src/conf_setting.c src/suggest.c \
			    src/filter.c src/urinorm.c ;;
	control)	echo daemon/control.c daemon/control_pins.c daemon/visible.c daemon/follow.c daemon/log.c \
			    daemon/ident.c src/ident_proc.c \
			    daemon/auditq.c src/audit.c src/rstate.c \
			    src/clock.c daemon/principal.c src/hmap_seed.c src/hmap.c \
			    daemon/logs.c daemon/logs_ring.c \
			    daemon/budget.c src/ratelim.c src/handover.c src/b64.c \
			    src/roots.c src/sbuf.c src/url.c \
			    src/envelope.c src/rpc.c src/ring.c src/esc.c \
			    src/metrics.c src/xmalloc.c src/conf.c src/conf_sandbox.c src/sandbox.c src/sandbox_path.c src/confvar.c src/conf_remote.c src/dotenv.c \
			    src/conf_share.c src/conf_group.c src/gname.c \
			    src/conf_diag.c src/conf_expand.c src/conf_value.c src/conf_setting.c src/suggest.c \
			    src/filter.c src/urinorm.c ;;
	filter)		echo src/filter.c src/urinorm.c src/url.c src/sbuf.c \
			    src/envelope.c src/xmalloc.c ;;
	urinorm)	echo src/urinorm.c src/url.c src/sbuf.c src/xmalloc.c ;;
	ident)		echo src/ident_proc.c src/esc.c src/sbuf.c src/xmalloc.c ;;
	pversion)	echo src/pversion.c src/batch.c src/rpc.c src/envelope.c \
			    src/xmalloc.c ;;
	gmerge)		echo src/gmerge.c src/gname.c src/hmap.c src/b64.c src/rpc.c \
			    src/envelope.c \
			    src/xmalloc.c ;;
	sse)		echo src/sse.c src/sbuf.c src/xmalloc.c ;;
	httphdr)	echo src/httphdr.c src/url.c src/sbuf.c src/xmalloc.c ;;
	mcpparam)	echo src/mcpparam.c src/mcphdr.c src/b64.c src/esc.c \
			    src/sbuf.c src/xmalloc.c ;;
	tokens)		echo src/tokens.c src/xmalloc.c ;;
	http)		echo http/hreq.c http/hreplay.c src/mcphdr.c src/b64.c \
			    src/esc.c src/sbuf.c src/xmalloc.c ;;
	evhttp)		echo http/hfront.c http/hlisten.c http/hserve.c http/hauth.c \
			    http/hsess.c \
			    http/hresume.c http/hreplay.c http/hmodern.c \
			    http/hreq.c src/conf_http.c src/htoken.c src/mcphdr.c \
			    src/b64.c src/jcs.c src/fdio.c src/frame.c src/clock.c \
			    src/envelope.c src/conf.c src/conf_sandbox.c \
			    src/sandbox.c src/sandbox_path.c src/confvar.c \
			    src/conf_remote.c src/conf_share.c src/conf_group.c \
			    src/dotenv.c src/conf_diag.c src/conf_expand.c \
			    src/conf_value.c src/conf_setting.c src/suggest.c \
			    src/cpolicy.c src/conf_clients.c src/gname.c \
			    src/filter.c src/urinorm.c src/roots.c src/url.c \
			    src/sbuf.c src/xmalloc.c ;;
	rstate)		echo src/rstate.c src/b64.c src/sbuf.c src/xmalloc.c ;;
	audit)		echo src/audit.c src/auditfmt.c src/rstate.c src/esc.c src/b64.c \
			    src/sbuf.c src/xmalloc.c ;;
	modern)		echo src/modern.c src/modern_up.c src/modern_input.c src/rpc.c src/envelope.c src/xmalloc.c ;;
	modern_layer)	echo daemon/client_modern.c daemon/client_modern_input.c \
			    daemon/client_modern_listen.c daemon/client_modern_tasks.c \
			    daemon/budget.c daemon/log.c src/modern.c src/mlevel.c \
			    src/rstate.c src/b64.c src/sbuf.c src/envelope.c src/esc.c \
			    src/hmap.c src/hmap_seed.c src/clock.c \
			    src/xmalloc.c ;;
	handover)	echo src/handover.c src/b64.c \
			    src/roots.c src/sbuf.c src/url.c src/urinorm.c \
			    src/xmalloc.c ;;
	jsonc)		echo src/jsonc.c src/appconf.c src/appshape.c src/appconf_toml.c \
			    src/toml.c src/toml_lex.c src/confvar.c src/sbuf.c src/dotenv.c \
			    src/hmap.c src/hmap_seed.c src/clock.c src/xmalloc.c ;;
	toml)		echo src/toml.c src/toml_lex.c src/appconf_toml.c src/appconf.c \
			    src/appshape.c src/jsonc.c src/confvar.c src/sbuf.c src/dotenv.c \
			    src/hmap.c src/hmap_seed.c src/clock.c src/xmalloc.c ;;
	pins)		echo src/pins.c src/jcs.c src/hmap.c src/hmap_seed.c src/clock.c \
			    src/shadow.c src/gname.c src/sbuf.c src/xmalloc.c ;;
	sandbox)	echo src/conf.c src/conf_sandbox.c src/sandbox.c src/sandbox_path.c \
			    src/confvar.c src/conf_remote.c src/conf_share.c \
			    src/conf_group.c src/dotenv.c \
			    src/conf_diag.c src/conf_expand.c src/conf_value.c src/conf_setting.c src/suggest.c \
			    src/gname.c src/filter.c src/urinorm.c src/roots.c src/sbuf.c \
			    src/cpolicy.c src/conf_clients.c \
			    src/url.c src/envelope.c src/xmalloc.c ;;
	roots)		echo src/roots.c src/sbuf.c src/url.c src/urinorm.c \
			    src/xmalloc.c ;;
	callback)	echo clients/callback.c src/esc.c src/url.c src/sbuf.c \
			    src/xmalloc.c ;;
	remote)		echo tests/fuzz/remote_fakes.c remote/session.c \
			    remote/session_recover.c remote/rstatus.c remote/rlog.c \
			    src/clock.c src/hmap_seed.c src/fdio.c src/frame.c src/sbuf.c \
			    remote/flow.c remote/streamable.c remote/legacy.c \
			    remote/rconf.c remote/rmodern.c remote/rparam.c src/mcphdr.c \
			    src/mcpparam.c src/relisten.c src/b64.c src/modern.c src/rpc.c \
			    src/sse.c src/url.c src/httphdr.c \
			    src/backoff.c src/ratelim.c \
			    src/envelope.c src/hmap.c src/esc.c \
			    src/xmalloc.c ;;
	*)		echo "build.sh: unknown target $1" >&2; exit 1 ;;
	esac
}

# libevent from $LIBEVENT_SRC, instrumented, once: its include flags.
libevent_instrumented() {
	le=$FUZZ_OUT/libevent
	if [ ! -f "$le/lib/libevent.a" ]; then
		mkdir -p "$le"
		if ! { cmake -S "$LIBEVENT_SRC" -B "$le" \
		    -DCMAKE_C_COMPILER="$CLANG" -DCMAKE_BUILD_TYPE=None \
		    -DCMAKE_C_FLAGS="-g -O1 -fno-omit-frame-pointer \
		    -fsanitize=fuzzer-no-link,address,undefined" \
		    -DEVENT__LIBRARY_TYPE=STATIC -DEVENT__DISABLE_OPENSSL=ON \
		    -DEVENT__DISABLE_MBEDTLS=ON -DEVENT__DISABLE_TESTS=ON \
		    -DEVENT__DISABLE_SAMPLES=ON -DEVENT__DISABLE_BENCHMARK=ON \
		    -DEVENT__DISABLE_REGRESS=ON \
		    -DEVENT__DISABLE_THREAD_SUPPORT=ON &&
		    cmake --build "$le" --target event_static; } \
		    >"$le.log" 2>&1; then
			echo "build.sh: libevent from $LIBEVENT_SRC: see $le.log" >&2
			exit 1
		fi
	fi
	echo "-I$le/include -I$LIBEVENT_SRC/include"
}

targets=${*:-frame envelope conf client control sse httphdr mcpparam remote tokens callback
    filter handover jsonc roots urinorm gmerge pversion toml rstate modern
    modern_layer ident pins audit sandbox http evhttp}
for t in $targets; do
	srcs="tests/fuzz/fuzz_$t.c tests/fuzz/fuzz_util.c $(sources "$t")"
	# mcpd-remote's headers only for its target; libcrypto only for
	# the targets that use it.
	xincs=
	xlibs=
	libs=$deps_libs
	if [ "$t" = remote ]; then
		# The caps of remote/flow.h, small (as in Makefile.am).
		xincs="-I$top/remote -DFLOW_REQUESTS_INFLIGHT_MAX=8"
		xincs="$xincs -DFLOW_OTHERS_INFLIGHT_MAX=4 -DFLOW_WAITING_MAX=16"
	elif [ "$t" = http ]; then
		xincs="-I$top/http"
	elif [ "$t" = evhttp ]; then
		xincs="-I$top/http $(pkg-config --cflags libcrypto)"
		xlibs="$(pkg-config --libs libcrypto)"
		if [ -n "${LIBEVENT_SRC:-}" ] && [ "$MODE" != replay ]; then
			xincs="$(libevent_instrumented) $xincs"
			libs="$FUZZ_OUT/libevent/lib/libevent.a"
			libs="$libs $(echo "$deps_libs" | sed 's/-levent\>//')"
		fi
	elif [ "$t" = callback ]; then
		xincs="-I$top/clients"
	elif [ "$t" = rstate ] || [ "$t" = modern_layer ] ||
		[ "$t" = client ] || [ "$t" = control ] || [ "$t" = audit ]; then
		xincs=$(pkg-config --cflags libcrypto)
		xlibs="$(pkg-config --libs libcrypto) -pthread"
	fi
	if [ "$MODE" = replay ]; then
		out=$FUZZ_OUT/replay_$t
		# shellcheck disable=SC2086
		(cd "$top" && ${CC:-cc} -g -O2 $warn ${CFLAGS:-} $incs $xincs \
		    $deps_cflags -o "$out" $srcs tests/fuzz/replay.c \
		    $xlibs $deps_libs)
	else
		out=$FUZZ_OUT/fuzz_$t
		# shellcheck disable=SC2086
		(cd "$top" && $CLANG -g -O1 -fno-omit-frame-pointer \
		    -fsanitize=fuzzer,address,undefined \
		    -fno-sanitize-recover=undefined $warn ${CFLAGS:-} $incs $xincs \
		    $deps_cflags -o "$out" $srcs $xlibs $libs)
	fi
	echo "built $out"
done
