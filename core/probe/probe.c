/* probe — privilege, kernel and plumbing checks shared by the live modes. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/capability.h>
#include <bpf/libbpf.h>

#include "probe/probe.h"
#include "base/util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static probe_log_cb log_cb;
static void *log_arg;

static int probe_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	enum probe_log_level l = level == LIBBPF_WARN ? PROBE_LOG_WARN :
				 level == LIBBPF_INFO ? PROBE_LOG_INFO : PROBE_LOG_DEBUG;

	if (!log_cb)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_cb(log_arg, l, buf);
	return 0;
}

void probe_set_log(probe_log_cb cb, void *arg)
{
	log_cb = cb;
	log_arg = arg;
	libbpf_set_print(probe_libbpf_print);
}

void probe_log(enum probe_log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!log_cb)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_cb(log_arg, level, buf);
}

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

int probe_check_privileges(char **cause)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) == 0) {
		if (has_cap(d, CAP_SYS_ADMIN) || (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON)))
			return 0;
	} else if (geteuid() == 0) {
		return 0;
	}
	util_cause(cause, "needs root, or CAP_BPF and CAP_PERFMON, to load BPF programs; "
		   "'argus replay' and 'argus diff' need no privileges");
	return -EPERM;
}

int probe_check_btf(char **cause)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return 0;
	util_cause(cause, "this kernel exposes no BTF (/sys/kernel/btf/vmlinux: %s); "
		   "argus needs a kernel built with CONFIG_DEBUG_INFO_BTF=y", strerror(errno));
	return -ENOENT;
}

static int is_tracefs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC;
}

char *probe_tracefs_path(char **cause)
{
	static const char *const cand[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char *path = NULL;
	int err = 0;

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (is_tracefs(cand[i]))
			return strdup(cand[i]);
	if (geteuid() != 0) {
		err = EPERM;
		util_cause(cause, "tracefs is not mounted and only root can mount it; "
			   "run 'mount -t tracefs nodev /sys/kernel/tracing' as root");
		goto out;
	}
	if (mount("nodev", cand[0], "tracefs", 0, NULL) != 0) {
		err = errno;
		util_cause(cause, "cannot mount tracefs at %s: %s", cand[0], strerror(err));
		goto out;
	}
	probe_log(PROBE_LOG_INFO, "mounted tracefs at %s\n", cand[0]);
	path = strdup(cand[0]);
	if (!path)
		err = ENOMEM;
out:
	if (!path)
		errno = err;
	return path;
}

int probe_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = INT_MIN;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

char *probe_perf_denied_note(void)
{
	int par = probe_perf_paranoid();
	char *s = NULL;

	if (par != INT_MIN && par > 2 && geteuid() != 0) {
		if (asprintf(&s, "perf events are denied (kernel.perf_event_paranoid=%d); "
			     "run as root or with CAP_PERFMON", par) < 0)
			s = NULL;
	} else if (asprintf(&s, "perf events are denied to this process; "
			    "run as root or with CAP_PERFMON") < 0) {
		s = NULL;
	}
	return s;
}

int probe_bump_memlock(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_MEMLOCK, &r) != 0)
		return -errno;
	return 0;
}

int probe_parse_cpulist(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a, b;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		a = strtol(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			b = strtol(s, &end, 10);
			s = end;
		}
		if (b < a || b > 65535)
			return -EINVAL;
		for (long c = a; c <= b; c++, n++)
			if (n < max)
				out[n] = (int)c;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n;
}

int probe_online_cpus(int **cpus)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int n, *v = NULL, err;

	*cpus = NULL;
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		err = -EIO;
		goto out;
	}
	n = probe_parse_cpulist(buf, NULL, 0);
	if (n <= 0) {
		err = n < 0 ? n : -ENOENT;
		goto out;
	}
	v = calloc(n, sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto out;
	}
	probe_parse_cpulist(buf, v, n);
	*cpus = v;
	err = n;
out:
	fclose(f);
	return err;
}

/* ---- BPF run-time statistics ------------------------------------------------ */

#include <bpf/bpf.h>
#include <fcntl.h>

#define PROBE_STATS_SYSCTL "/proc/sys/kernel/bpf_stats_enabled"
/* A handle at or above this is "the sysctl was changed from (h - base)". */
#define PROBE_STATS_SYSCTL_BASE 0x40000000

static int probe_sysctl_read(void)
{
	FILE *f = fopen(PROBE_STATS_SYSCTL, "r");
	int v = -1;

	if (!f)
		return -errno;
	if (fscanf(f, "%d", &v) != 1)
		v = -EIO;
	fclose(f);
	return v;
}

static int probe_sysctl_write(int v)
{
	FILE *f = fopen(PROBE_STATS_SYSCTL, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%d\n", v) < 0)
		err = -EIO;
	if (fclose(f) != 0 && !err)
		err = -errno;
	return err;
}

int probe_bpf_stats_begin(char **cause)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME), prev, err;

	if (fd >= 0)
		return fd;
	prev = probe_sysctl_read();
	if (prev < 0) {
		err = prev;
		goto fail;
	}
	if (prev == 1)
		return PROBE_STATS_SYSCTL_BASE + 1;
	err = probe_sysctl_write(1);
	if (err < 0)
		goto fail;
	return PROBE_STATS_SYSCTL_BASE + prev;
fail:
	if (cause) {
		free(*cause);
		if (asprintf(cause, "cannot enable BPF run-time statistics (%s): the overhead "
			     "of steps cannot be measured; run as root", strerror(-err)) < 0)
			*cause = NULL;
	}
	return err;
}

void probe_bpf_stats_end(int handle)
{
	if (handle < 0)
		return;
	if (handle >= PROBE_STATS_SYSCTL_BASE) {
		if (handle - PROBE_STATS_SYSCTL_BASE != 1)
			probe_sysctl_write(handle - PROBE_STATS_SYSCTL_BASE);
		return;
	}
	close(handle);
}

int probe_prog_run_stats(int prog_fd, unsigned long long *run_ns, unsigned long long *run_cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) < 0)
		return -errno;
	*run_ns = info.run_time_ns;
	*run_cnt = info.run_cnt;
	return 0;
}
