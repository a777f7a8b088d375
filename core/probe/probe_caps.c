/* probe_caps — loads and attaches the tiny programs of bpf/caps.bpf.c one at
 * a time, to learn which attach mechanisms this kernel allows and why not.
 * Each try opens its own skeleton with only its program autoloaded, so that
 * one refused program cannot hide that the others work.  Everything is
 * detached and unloaded before returning. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe/probe_caps.h"
#include "caps.skel.h"
#include "../../bpf/caps.h"

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "?";
}

static struct bpf_program *mech_prog(struct caps_bpf *s, enum caps_mech m)
{
	switch (m) {
	case CAPS_PERF_CPU_CLOCK: return s->progs.argus_caps_perf;
	case CAPS_RAW_TP: return s->progs.argus_caps_raw_tp;
	case CAPS_TP_BTF: return s->progs.argus_caps_tp_btf;
	case CAPS_FENTRY: return s->progs.argus_caps_fentry;
	case CAPS_KPROBE: return s->progs.argus_caps_kprobe;
	case CAPS_KPROBE_MULTI: return s->progs.argus_caps_kprobe_multi;
	default: return NULL;
	}
}

static int perf_cpu_clock_open(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = 99,
		.freq = 1,
	};

	return (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void set_result(struct caps_mech_result *r, int err, const char *fmt, ...)
{
	va_list ap;

	r->probed = 1;
	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

static void try_mech(struct caps_mech_result *r, enum caps_mech m, int is_root)
{
	struct caps_bpf *skel = NULL;
	struct bpf_program *p;
	struct bpf_link *link = NULL;
	struct stat st;
	int pfd = -1, err;
	const char *who = is_root ? "" : ", not root";

	if (m == CAPS_KPROBE && stat("/sys/bus/event_source/devices/kprobe/type", &st) < 0) {
		set_result(r, -ENOENT, "kprobe PMU absent");
		return;
	}
	skel = caps_bpf__open();
	if (!skel) {
		err = -errno;
		set_result(r, err, "open: %s", errname(-err));
		goto out;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == mech_prog(skel, m));
	err = caps_bpf__load(skel);
	if (err) {
		set_result(r, err, "load: %s%s", errname(-err), who);
		goto out;
	}
	p = mech_prog(skel, m);
	switch (m) {
	case CAPS_PERF_CPU_CLOCK:
		pfd = perf_cpu_clock_open(0);
		if (pfd < 0) {
			err = -errno;
			set_result(r, err, "perf_event_open cpu-clock: %s%s", errname(-err), who);
			goto out;
		}
		link = bpf_program__attach_perf_event(p, pfd);
		break;
	case CAPS_RAW_TP:
		link = bpf_program__attach_raw_tracepoint(p, "sched_switch");
		break;
	case CAPS_TP_BTF:
	case CAPS_FENTRY:
		link = bpf_program__attach_trace(p);
		break;
	case CAPS_KPROBE:
		link = bpf_program__attach_kprobe(p, false, "vfs_read");
		break;
	case CAPS_KPROBE_MULTI:
		link = bpf_program__attach_kprobe_multi_opts(p, "vfs_read", NULL);
		break;
	default:
		break;
	}
	if (!link) {
		err = -errno;
		set_result(r, err ? err : -EINVAL, "attach: %s", errname(err ? -err : EINVAL));
		goto out;
	}
	/* Raw tracepoints: one sleep is a sched_switch on this CPU; make sure
	 * the program really runs, not only attaches. */
	if (m == CAPS_RAW_TP || m == CAPS_TP_BTF) {
		int slot = m == CAPS_RAW_TP ? CAPS_HIT_RAW_TP : CAPS_HIT_TP_BTF;
		for (int i = 0; i < 50 && !__atomic_load_n(&skel->bss->hits[slot], __ATOMIC_RELAXED); i++)
			usleep(1000);
		if (!skel->bss->hits[slot]) {
			set_result(r, -ENODATA, "attached but never ran");
			goto out;
		}
	}
	set_result(r, 0, "works");
out:
	bpf_link__destroy(link);
	if (pfd >= 0)
		close(pfd);
	caps_bpf__destroy(skel);
}

void probe_caps_mechanisms(struct caps_mech_result *mech, int is_root)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);

	for (int m = 0; m < CAPS_MECH_N; m++)
		try_mech(&mech[m], m, is_root);
	libbpf_set_print(old);
}
