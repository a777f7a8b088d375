# argus — build, test, install.  `make help` lists the targets.
#
# Layout: bpf/*.bpf.c -> build/bpf/*.bpf.o -> build/NAME.skel.h (bpftool)
#         core/*/*.c  -> build/libargus.a   (no terminal code; unit tests link it)
#         tui/*.c     -> ./argus            (main, subcommands, ncurses screens)
# Quiet by default; V=1 shows the commands.

VERSION     := 0.1.0
PREFIX      ?= /usr/local
DESTDIR     ?=
BUILD       ?= build
ARCH        := $(shell uname -m)
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')
VMLINUX_DIR := bpf/vmlinux/$(ARCH)

CC          ?= cc
CLANG       ?= clang
BPFTOOL     ?= bpftool
PKGS        := ncursesw libbpf libcurl libcjson libedit libdw
PKG_CFLAGS  := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN        := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS      ?= -O2 -g
CFLAGS      += $(WARN) -std=gnu11 -D_GNU_SOURCE -MMD -MP
CPPFLAGS    += -I$(BUILD) -Icore -Ibpf $(PKG_CFLAGS) -DARGUS_VERSION='"$(VERSION)"' \
               -DARGUS_DATADIR='"$(PREFIX)/share/argus"'
LDLIBS      += $(PKG_LIBS) -lelf -lz -lm

# SAN=1 builds everything with AddressSanitizer and UBSan (the tests use it).
ifeq ($(SAN),1)
BUILD       := build-san
CFLAGS      += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS     += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS    := $(wildcard bpf/*.bpf.c)
BPF_NAMES   := $(patsubst bpf/%.bpf.c,%,$(BPF_SRCS))
SKELS       := $(patsubst %,$(BUILD)/%.skel.h,$(BPF_NAMES))
CORE_SRCS   := $(wildcard core/*/*.c)
CORE_OBJS   := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRCS))
TUI_SRCS    := $(wildcard tui/*.c)
TUI_OBJS    := $(patsubst %.c,$(BUILD)/%.o,$(TUI_SRCS))
LIB         := $(BUILD)/libargus.a
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
SCEN_SRCS   := $(wildcard tests/scenarios/*.c)
SCEN_BINS   := $(patsubst tests/scenarios/%.c,$(BUILD)/scenarios/%,$(SCEN_SRCS))
# callsite twice: without frame pointers (the default of -O2, said
# explicitly) and with them (issue 27's user stacks)
SCEN_BINS   += $(BUILD)/scenarios/callsite_fp
BENCH_SRCS  := $(wildcard tests/bench/bench_*.c)
BENCH_BINS  := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

ifeq ($(SAN),1)
ARGUS_BIN   := $(BUILD)/argus
else
ARGUS_BIN   := argus
endif

.DELETE_ON_ERROR:
.PHONY: all deps vmlinux check test unit demo bench fuzz install uninstall clean help san scenarios

all: $(ARGUS_BIN) scenarios

help:
	@echo 'make            build ./argus and the scenario loads'
	@echo 'make deps       install missing build/test packages with apt-get'
	@echo 'make check      deps, build, the whole test suite (root runs the live tests)'
	@echo 'make demo       deps, build, argus over a built-in page-fault demo load'
	@echo 'make bench      benchmarks (results go to BENCH.md by hand)'
	@echo 'make fuzz       run each libFuzzer target to FUZZ_RUNS executions (default 10^6; FUZZ_SECONDS=N for a time)'
	@echo 'make vmlinux    regenerate bpf/vmlinux/$(ARCH)/vmlinux.h from this kernel'
	@echo 'make install    PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)'

# ---- dependencies -----------------------------------------------------------
DEB_PKGS := gcc make clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev pkg-config \
            libncurses-dev libcurl4-openssl-dev libcjson-dev libedit-dev libcmocka-dev \
            libclang-rt-14-dev tmux python3 jq util-linux procps linux-perf \
            golang-go graphviz \
            redis-server redis-tools sqlite3 fio stress-ng sysbench nginx-light wrk
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present"; exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing:$$missing; run 'sudo make deps'" >&2; exit 1; fi; \
	echo "deps: installing$$missing"; \
	apt-get update -qq >/dev/null 2>&1 || true; \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	  { echo "deps: apt-get install failed for:$$missing" >&2; exit 1; }

vmlinux:
	@test -r /sys/kernel/btf/vmlinux || { echo "vmlinux: /sys/kernel/btf/vmlinux missing; this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
	@mkdir -p $(VMLINUX_DIR)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_DIR)/vmlinux.h.tmp && mv $(VMLINUX_DIR)/vmlinux.h.tmp $(VMLINUX_DIR)/vmlinux.h
	@echo "wrote $(VMLINUX_DIR)/vmlinux.h"

# ---- BPF side -----------------------------------------------------------------
$(BUILD)/bpf/%.tmp.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(VMLINUX_DIR)/vmlinux.h
	@mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(VMLINUX_DIR) -Ibpf \
		-Wall -Wno-unused-function -c $< -o $@

$(BUILD)/bpf/%.bpf.o: $(BUILD)/bpf/%.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $<

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# ---- user side ----------------------------------------------------------------
# The shipped themes are built into the binary (tui/theme.c): one C string
# per themes/NAME.theme, so --theme NAME works with nothing installed.
THEMES      := $(wildcard themes/*.theme)
$(BUILD)/theme_builtin.h: $(THEMES) Makefile
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated by the Makefile from themes/NAME.theme; do not edit */'; \
	  echo 'static const struct { const char *name; const char *text; } theme_builtin_table[] = {'; \
	  for f in $(THEMES); do printf '\t{ "%s",\n' "$$(basename $$f .theme)"; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t  "/' -e 's/$$/\\n"/' $$f; \
	    printf '\t},\n'; done; \
	  echo '};'; } > $@

$(BUILD)/tui/theme.o: $(BUILD)/theme_builtin.h

$(BUILD)/core/%.o: core/%.c | $(SKELS)
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tui/%.o: tui/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itui -c $< -o $@

$(LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(ARGUS_BIN): $(TUI_OBJS) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TUI_OBJS) $(LIB) $(LDLIBS)

# Test and bench binaries link the terminal-free tui objects (formatters,
# views, themes, option tables) that the program uses: their prerequisites,
# so that editing tui/fmt_row.c rebuilds test_fmt; each binary's own .d
# (one source per compile) is included below.
TUI_TEST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tui/main.c,$(wildcard tui/view_*.c tui/fmt_*.c tui/theme*.c tui/opts_*.c tui/opt.c)))

$(BUILD)/tests/test_%: tests/unit/test_%.c $(TUI_TEST_OBJS) $(LIB) $(wildcard tests/unit/*.h) $(BUILD)/theme_builtin.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itui -Itests/unit -o $@ $< $(TUI_TEST_OBJS) $(LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

$(BUILD)/scenarios/%: tests/scenarios/%.c tests/scenarios/scen.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE $(SCEN_FP) -o $@ $< -lpthread

$(BUILD)/scenarios/callsite: SCEN_FP := -fomit-frame-pointer
$(BUILD)/scenarios/callsite_fp: tests/scenarios/callsite.c tests/scenarios/scen.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls -o $@ $< -lpthread

$(BUILD)/bench/%: tests/bench/%.c $(TUI_TEST_OBJS) $(LIB) $(BUILD)/theme_builtin.h
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itui -o $@ $< $(TUI_TEST_OBJS) $(LIB) $(LDFLAGS) $(LDLIBS)

scenarios: $(SCEN_BINS)

-include $(CORE_OBJS:.o=.d) $(TUI_OBJS:.o=.d) $(UNIT_BINS:=.d) $(BENCH_BINS:=.d)

# The skeletons and BPF objects are made by a chain of pattern rules; keep
# them (make would delete them as intermediates and rebuild them each time).
.SECONDARY: $(SKELS) $(patsubst %,$(BUILD)/bpf/%.bpf.o,$(BPF_NAMES)) \
	    $(patsubst %,$(BUILD)/bpf/%.tmp.o,$(BPF_NAMES))

# ---- tests, demo, bench ---------------------------------------------------------
# check: the README's test command.  Unit tests run under ASan/UBSan; live and
# screen tests run against ./argus.  tests/run.sh prints PASS/FAIL/SKIPPED per
# test and the totals, and fails if anything failed.
check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory SAN=1 san
	$(Q)tests/run.sh

san: $(ARGUS_BIN) $(UNIT_BINS)

test: check

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/demo.sh

bench: all $(BENCH_BINS)
	$(Q)tests/bench/run.sh

# make fuzz: each target to FUZZ_RUNS executions (10^6), printing the time
# each took; FUZZ_SECONDS=N runs each for N seconds instead
FUZZ_RUNS ?= 1000000
fuzz: all
ifdef FUZZ_SECONDS
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)
else
	$(Q)tests/fuzz/run.sh --runs $(FUZZ_RUNS)
endif

# ---- install ------------------------------------------------------------------
install: argus
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/argus/prompts $(DESTDIR)$(PREFIX)/share/argus/themes
	install -m 0755 argus $(DESTDIR)$(PREFIX)/bin/argus
	install -m 0644 man/argus.1 $(DESTDIR)$(PREFIX)/share/man/man1/argus.1
	install -m 0644 $(wildcard prompts/*) $(DESTDIR)$(PREFIX)/share/argus/prompts/
	install -m 0644 themes/*.theme $(DESTDIR)$(PREFIX)/share/argus/themes/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/argus $(DESTDIR)$(PREFIX)/share/man/man1/argus.1
	rm -rf $(DESTDIR)$(PREFIX)/share/argus

clean:
	rm -rf build build-san argus
