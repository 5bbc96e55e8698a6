#!/bin/sh
# run.sh -- run the libFuzzer builds (build.sh first), then fold what they
# found into the committed corpus.
#
#	tests/fuzz/run.sh SECONDS [TARGET ...]
#
# Each target fuzzes for SECONDS in $FUZZ_OUT/work/TARGET, starting from
# tests/fuzz/corpus/TARGET, $JOBS targets at a time (2).  Crashes land in
# $FUZZ_OUT/crashes/TARGET/, logs in $FUZZ_OUT/logs/.  Then `-merge=1`
# adds to tests/fuzz/corpus/TARGET the inputs that reach new edges (not
# new hit counts, so the corpus stays small); MERGE=fresh replaces the
# corpus with a minimized union instead (it may drop named reproducers),
# MERGE=0 leaves it alone.  Extra libFuzzer flags: $FUZZ_FLAGS.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ_OUT=${FUZZ_OUT:-$top/build/fuzz}
JOBS=${JOBS:-2}
MERGE=${MERGE:-1}
seconds=${1:?usage: run.sh SECONDS [TARGET ...]}
shift
targets=${*:-frame envelope conf client control sse httphdr mcpparam remote tokens callback
    filter jsonc urinorm gmerge pversion toml rstate modern modern_layer ident
    sandbox http evhttp}

max_len() {
	case $1 in
	frame)		echo 70000 ;;
	client)		echo 8192 ;;
	modern_layer)	echo 8192 ;;
	remote)		echo 8192 ;;
	evhttp)		echo 8192 ;;
	*)		echo 4096 ;;
	esac
}

dict() {
	case $1 in
	envelope | filter | jsonc | roots | handover | gmerge)
			echo "-dict=$top/tests/fuzz/dict/json.dict" ;;
	client)		echo "-dict=$top/tests/fuzz/dict/client.dict" ;;
	control)	echo "-dict=$top/tests/fuzz/dict/control.dict" ;;
	conf)		echo "-dict=$top/tests/fuzz/dict/conf.dict" ;;
	sse)		echo "-dict=$top/tests/fuzz/dict/sse.dict" ;;
	httphdr)	echo "-dict=$top/tests/fuzz/dict/httphdr.dict" ;;
	remote)		echo "-dict=$top/tests/fuzz/dict/remote.dict" ;;
	pversion)	echo "-dict=$top/tests/fuzz/dict/pversion.dict" ;;
	toml)		echo "-dict=$top/tests/fuzz/dict/toml.dict" ;;
	rstate)		echo "-dict=$top/tests/fuzz/dict/rstate.dict" ;;
	modern)		echo "-dict=$top/tests/fuzz/dict/modern.dict" ;;
	modern_layer)	echo "-dict=$top/tests/fuzz/dict/modern_layer.dict" ;;
	ident)		echo "-dict=$top/tests/fuzz/dict/ident.dict" ;;
	evhttp)		echo "-dict=$top/tests/fuzz/dict/evhttp.dict" ;;
	*)		echo "" ;;
	esac
}

fuzz_one() {
	t=$1
	work=$FUZZ_OUT/work/$t
	mkdir -p "$work" "$FUZZ_OUT/crashes/$t" "$FUZZ_OUT/logs"
	# shellcheck disable=SC2046,SC2086
	"$FUZZ_OUT/fuzz_$t" -max_total_time="$seconds" -max_len=$(max_len "$t") \
	    $(dict "$t") -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix="$FUZZ_OUT/crashes/$t/" ${FUZZ_FLAGS:-} \
	    "$work" "$top/tests/fuzz/corpus/$t" \
	    >"$FUZZ_OUT/logs/$t.log" 2>&1 || echo "fuzz_$t: stopped, see $FUZZ_OUT/logs/$t.log"
}

running=0
for t in $targets; do
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait
		running=0
	fi
done
wait

for t in $targets; do
	grep -E "stat::number_of_executed_units|cov:" "$FUZZ_OUT/logs/$t.log" |
	    tail -2 | sed "s/^/$t: /"
	corpus=$top/tests/fuzz/corpus/$t
	case $MERGE in
	1)
		# Only inputs that reach new edges join the corpus.
		"$FUZZ_OUT/fuzz_$t" -merge=1 -use_counters=0 \
		    -max_len=$(max_len "$t") "$corpus" "$FUZZ_OUT/work/$t" \
		    >"$FUZZ_OUT/logs/$t.merge.log" 2>&1
		;;
	fresh)
		merged=$FUZZ_OUT/merged/$t
		rm -rf "$merged"
		mkdir -p "$merged"
		"$FUZZ_OUT/fuzz_$t" -merge=1 -use_counters=0 \
		    -max_len=$(max_len "$t") "$merged" "$corpus" \
		    "$FUZZ_OUT/work/$t" >"$FUZZ_OUT/logs/$t.merge.log" 2>&1
		rm -rf "$corpus"
		mv "$merged" "$corpus"
		;;
	*)
		continue
		;;
	esac
	echo "$t: corpus now $(ls "$corpus" | wc -l) files"
done
