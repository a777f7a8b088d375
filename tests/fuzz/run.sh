#!/bin/sh
# tests/fuzz/run.sh SECONDS — builds the libFuzzer targets (clang,
# -fsanitize=fuzzer,address,undefined; the core sources they need compiled
# the same way into build-fuzz/, not the gcc libargus.a) and runs each for
# SECONDS over a seed corpus (tests/fuzz/corpus/NAME and the matching files
# of tests/data).  New inputs go to build-fuzz/corpus/NAME, crashes to
# build-fuzz/artifacts/.  Exit 0 clean, 1 a target crashed or did not
# build, 77 libFuzzer is unavailable (the last line says why).
cd "$(dirname "$0")/../.." || exit 2
SECS=${1:-60}
CLANG=${CLANG:-clang}
OUT=build-fuzz
# the core files the targets reach; add here when a parser gains a dependency
CORE="import profile strpool session session_read verdict verdict_json source_replay util"
TARGETS=${FUZZ_TARGETS:-"folded perfscript session"}

skip() { echo "SKIPPED: $*"; exit 77; }
command -v "$CLANG" >/dev/null 2>&1 || skip "no $CLANG (install clang and libclang-rt-dev: make deps)"
mkdir -p "$OUT/obj" "$OUT/artifacts" || exit 1
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >"$OUT/probe.c"
"$CLANG" -fsanitize=fuzzer,address,undefined -o "$OUT/probe" "$OUT/probe.c" >"$OUT/probe.log" 2>&1 ||
	skip "libFuzzer unavailable: $CLANG -fsanitize=fuzzer failed ($(head -n 1 "$OUT/probe.log"))"

CFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined \
 -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Icore \
 $(pkg-config --cflags libcjson 2>/dev/null) -DARGUS_VERSION=\"fuzz\""
LIBS="$(pkg-config --libs libcjson 2>/dev/null || echo -lcjson) -lm"

objs=""
for c in $CORE; do
	o="$OUT/obj/$c.o"
	if [ ! -f "$o" ] || [ "core/$c.c" -nt "$o" ] || [ -n "$(find core -name '*.h' -newer "$o" 2>/dev/null | head -n 1)" ]; then
		# shellcheck disable=SC2086
		"$CLANG" $CFLAGS -c "core/$c.c" -o "$o" || { echo "FAIL: core/$c.c does not build for fuzzing"; exit 1; }
	fi
	objs="$objs $o"
done

rc=0
for t in $TARGETS; do
	bin="$OUT/fuzz_$t"
	# shellcheck disable=SC2086
	"$CLANG" $CFLAGS -fsanitize=fuzzer -o "$bin" "tests/fuzz/fuzz_$t.c" $objs $LIBS ||
		{ echo "FAIL: fuzz_$t does not build"; rc=1; continue; }
	corpus="$OUT/corpus/$t"
	mkdir -p "$corpus"
	seeds="tests/fuzz/corpus/$t"
	case $t in
	folded) ext=folded ;;
	perfscript) ext=perfscript ;;
	session) ext=jsonl ;;
	*) ext=none ;;
	esac
	for f in tests/data/*."$ext"; do
		[ -f "$f" ] && cp "$f" "$corpus/" 2>/dev/null
	done
	log="$OUT/fuzz_$t.log"
	echo "fuzz_$t: ${SECS}s"
	"$bin" -max_total_time="$SECS" -timeout=10 -error_exitcode=1 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$OUT/artifacts/$t-" \
		"$corpus" "$seeds" >"$log" 2>&1
	r=$?
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed "s/^/  fuzz_$t /"
	if [ $r -ne 0 ]; then
		echo "FAIL: fuzz_$t exited $r; log $log, input in $OUT/artifacts/:"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 8 | sed 's/^/  | /'
		rc=1
	fi
done
[ $rc -eq 0 ] && echo "fuzz: all targets ran ${SECS}s without a crash"
exit $rc
