#!/bin/sh
# tests/fuzz/run.sh SECONDS | --runs N — builds the libFuzzer targets (clang,
# -fsanitize=fuzzer,address,undefined; the core sources they need compiled
# the same way into build-fuzz/, not the gcc libargus.a) and runs each for
# SECONDS (or to N executions: make fuzz, FUZZ_RUNS=10^6 by default; the
# time each took is printed) over a seed corpus (tests/fuzz/corpus/NAME and the matching files
# of tests/data).  New inputs go to build-fuzz/corpus/NAME, crashes to
# build-fuzz/artifacts/.  Exit 0 clean, 1 a target crashed or did not
# build, 77 libFuzzer is unavailable (the last line says why).
cd "$(dirname "$0")/../.." || exit 2
RUNS=""
if [ "$1" = "--runs" ]; then
	RUNS=${2:-1000000}
	SECS=0
else
	SECS=${1:-60}
fi
CLANG=${CLANG:-clang}
OUT=build-fuzz
# the core the targets reach: every file of the two bottom layers (base and
# data depend on nothing above them, so a new dependency there needs no edit
# here: the targets link an archive and take what they use) and the session
# readers of measure/ named below; a target that needs more names it in CORE_*
CORE_LAYERS="base data"
CORE_MEASURE="session session_read source_replay"
CORE_LLM="llm llm_reply llm_config llm_sse curl_watch"
TARGETS=${FUZZ_TARGETS:-"folded perfscript session pprof step llm theme"}

skip() { echo "SKIPPED: $*"; exit 77; }
command -v "$CLANG" >/dev/null 2>&1 || skip "no $CLANG (install clang and libclang-rt-dev: make deps)"
mkdir -p "$OUT/obj" "$OUT/artifacts" || exit 1
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$OUT/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined -o "$OUT/probe" "$OUT/probe.c" >"$OUT/probe.log" 2>&1 ||
	skip "libFuzzer unavailable: $CLANG -fsanitize=fuzzer failed ($(head -n 1 "$OUT/probe.log"))"

CFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined \
 -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Icore \
 -Ibuild $(pkg-config --cflags libcjson libcurl 2>/dev/null) -DARGUS_VERSION=\"fuzz\""
LIBS="$(pkg-config --libs libcjson 2>/dev/null || echo -lcjson) -lz -lm"
[ -f build/theme_builtin.h ] || make -s build/theme_builtin.h >/dev/null 2>&1 ||
	{ echo "FAIL: build/theme_builtin.h missing (run make)"; exit 1; }

src() { # a core module's name -> its file (core/LAYER/NAME.c)
	for f in core/*/"$1".c; do [ -f "$f" ] && { echo "$f"; return 0; }; done
	echo "FAIL: no core/*/$1.c" >&2; return 1
}
obj() { # dir/name.c -> its fuzz object path (built when stale)
	o="$OUT/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"
	if [ ! -f "$o" ] || [ "$1" -nt "$o" ] || [ -n "$(find core tui -name '*.h' -newer "$o" 2>/dev/null | head -n 1)" ]; then
		# shellcheck disable=SC2086
		"$CLANG" $CFLAGS -Itui -c "$1" -o "$o" || { echo "FAIL: $1 does not build for fuzzing" >&2; return 1; }
	fi
	echo "$o"
}
objs=""
for l in $CORE_LAYERS; do
	for f in core/"$l"/*.c; do
		o=$(obj "$f") || exit 1
		objs="$objs $o"
	done
done
for c in $CORE_MEASURE; do
	o=$(obj "$(src "$c")") || exit 1
	objs="$objs $o"
done
archive="$OUT/libcore-fuzz.a"
rm -f "$archive"
# shellcheck disable=SC2086
ar rcs "$archive" $objs || { echo "FAIL: ar could not build $archive"; exit 1; }

rc=0
for t in $TARGETS; do
	bin="$OUT/fuzz_$t"
	# shellcheck disable=SC2086
	extra="" xlibs=""
	case $t in
	llm) for c in $CORE_LLM; do extra="$extra $(obj "$(src "$c")")" || exit 1; done
	     xlibs="$(pkg-config --libs libcurl 2>/dev/null || echo -lcurl)" ;;
	theme) extra=$(obj tui/theme.c) || exit 1 ;;
	esac
	# shellcheck disable=SC2086
	"$CLANG" $CFLAGS -Itui -fsanitize=fuzzer -o "$bin" "tests/fuzz/fuzz_$t.c" $extra "$archive" $LIBS $xlibs ||
		{ echo "FAIL: fuzz_$t does not build"; rc=1; continue; }
	corpus="$OUT/corpus/$t"
	mkdir -p "$corpus"
	seeds="tests/fuzz/corpus/$t"
	case $t in
	folded) ext=folded ;;
	perfscript) ext=perfscript ;;
	session) ext=jsonl ;;
	pprof) ext=pb.gz ;;
	theme) ext=theme; cp themes/*.theme "$corpus/" 2>/dev/null ;;
	*) ext=none ;;
	esac
	for f in tests/data/*."$ext"; do
		[ -f "$f" ] && cp "$f" "$corpus/" 2>/dev/null
	done
	log="$OUT/fuzz_$t.log"
	if [ -n "$RUNS" ]; then
		limit="-runs=$RUNS"
		echo "fuzz_$t: $RUNS runs"
	else
		limit="-max_total_time=$SECS"
		echo "fuzz_$t: ${SECS}s"
	fi
	t0=$(date +%s)
	"$bin" $limit -timeout=10 -error_exitcode=1 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$OUT/artifacts/$t-" \
		"$corpus" "$seeds" >"$log" 2>&1
	r=$?
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed "s/^/  fuzz_$t /"
	echo "  fuzz_$t took $(( $(date +%s) - t0 )) s"
	if [ $r -ne 0 ]; then
		echo "FAIL: fuzz_$t exited $r; log $log, input in $OUT/artifacts/:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 8 | sed 's/^/  | /'
		rc=1
	fi
done
[ $rc -eq 0 ] && echo "fuzz: all targets ($TARGETS) ran ${RUNS:-${SECS}s} without a crash"
exit $rc
