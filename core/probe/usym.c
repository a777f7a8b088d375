/* usym — user stacks to names with libdwfl; the frame-pointer cut (usym.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "base/vec.h"
#include "probe/usym.h"

struct usym_proc {
	uint32_t tgid;
	Dwfl *dwfl;              /* NULL: the maps could not be read */
	int err;                 /* why not (-errno) */
	int dead;                /* exited when usym_reap_mark looked */
	char comm[16];           /* its name when its maps were read: a new
	                          * name (exec) is another image */
};

/* A file's functions, sorted by their offset from the module's start:
 * built once per file (dwfl_module_addrinfo scans the whole symbol table on
 * every call, most of the symbolizer's time before this table) and shared
 * by every process that maps it.  It trusts a path to name one file while
 * argus runs: a binary rebuilt in place during a recording keeps its first
 * version's names. */
struct usym_fsym {
	uint64_t off, size;
	char *name;               /* owned */
	int pro;                  /* prologue length (usym_fn_prologue); -2:
	                           * not read yet */
};

struct usym_file {
	char *path;               /* owned; the module's name in libdwfl: the
	                           * file as /proc/PID/maps names it */
	char *build_id;           /* owned: its GNU build-id in hex, "" none */
	struct usym_fsym *syms;   /* owned, sorted by off */
	size_t n;
};

struct usym {
	struct usym_proc *procs;
	size_t n, cap;
	Dwfl_Callbacks cb;
	struct usym_file *files;
	size_t nfiles, files_cap;
};

/* Where a walk may end without a cut: the process's or a thread's first
 * function (glibc's, which keep no frame pointer but call nobody below). */
static const char *const usym_roots[] = {
	"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
	"clone", "clone3", "__clone", "__clone3", "thread_start",
};

struct usym *usym_new(void)
{
	struct usym *u = calloc(1, sizeof(*u));

	if (!u) {
		errno = ENOMEM;
		return NULL;
	}
	u->cb.find_elf = dwfl_linux_proc_find_elf;
	u->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	return u;
}

static void usym_files_clear(struct usym *u);

void usym_free(struct usym *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		dwfl_end(u->procs[i].dwfl);
	usym_files_clear(u);
	free(u->files);
	free(u->procs);
	free(u);
}

/* The entry of tgid named comm (NULL: any name). */
static struct usym_proc *usym_find(struct usym *u, uint32_t tgid, const char *comm)
{
	for (size_t i = 0; i < u->n; i++)
		if (u->procs[i].tgid == tgid && (!comm || !strcmp(u->procs[i].comm, comm)))
			return &u->procs[i];
	return NULL;
}

/* Whether a thread of tgid is named comm now (a sample's comm is its
 * thread's): 1 yes, 0 no, -1 when the process cannot be read (gone). */
static int usym_comm_now(uint32_t tgid, const char *comm)
{
	char path[64], buf[32];
	struct dirent *d;
	DIR *dir;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (!found && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%.16s/comm", tgid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			found = !strcmp(buf, comm);
		}
		fclose(f);
	}
	closedir(dir);
	return found;
}

/* The entry of tgid as it was named comm (NULL: as it is now), its maps
 * read now when new; NULL only without memory or room (then *err says
 * which).  A process that has since taken another name (exec) gets an
 * entry without maps (-ESTALE): its current maps are another image's. */
static struct usym_proc *usym_get(struct usym *u, uint32_t tgid, const char *comm, int *err)
{
	struct usym_proc *p = usym_find(u, tgid, comm);
	int r;

	if (p)
		return p;
	if (u->n >= USYM_MAX_PROCS) {
		*err = -ENOSPC;
		return NULL;
	}
	if (vec_grow(&u->procs, &u->cap, u->n + 1, sizeof(*u->procs))) {
		*err = -ENOMEM;
		return NULL;
	}
	p = &u->procs[u->n++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm ? comm : "");
	if (comm && usym_comm_now(tgid, comm) == 0) {
		p->err = -ESTALE;
		return p;
	}
	p->dwfl = dwfl_begin(&u->cb);
	if (!p->dwfl) {
		p->err = -ENOMEM;
		return p;
	}
	/* returns an errno (ENOENT: the process is gone), or -1 for libdwfl's own */
	r = dwfl_linux_proc_report(p->dwfl, (pid_t)tgid);
	if (r == 0 && dwfl_report_end(p->dwfl, NULL, NULL) == 0)
		return p;
	dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->err = r > 0 ? (r == ENOENT ? -ESRCH : -r) : -EIO;
	return p;
}

int usym_attach(struct usym *u, uint32_t tgid)
{
	int err = 0;
	struct usym_proc *p = usym_get(u, tgid, NULL, &err);

	return p ? p->err : err;
}

void usym_reap_mark(struct usym *u)
{
	for (size_t i = 0; i < u->n; i++)
		u->procs[i].dead = kill((pid_t)u->procs[i].tgid, 0) && errno == ESRCH;
}

size_t usym_reap(struct usym *u)
{
	size_t kept = 0, gone = 0;

	for (size_t i = 0; i < u->n; i++) {
		if (u->procs[i].dead) {
			dwfl_end(u->procs[i].dwfl);
			gone++;
			continue;
		}
		u->procs[kept++] = u->procs[i];
	}
	u->n = kept;
	return gone;
}

static const char *usym_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : (path ? path : "?");
}

/* Length of the frame-pointer prologue at code (push %rbp first, after an
 * optional endbr64, then mov %rsp,%rbp within USYM_PROLOGUE_SPAN bytes:
 * gcc schedules other instructions between the two), 0 when the function
 * does not start so.  A byte match, not a decoder: 48 89 e5 inside another
 * instruction of those few bytes would pass, which gcc's prologues do not
 * hold. */
#define USYM_PROLOGUE_SPAN 16
static size_t usym_prologue(const unsigned char *c, size_t len)
{
	size_t i = 0;

	if (len >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		i = 4;
	if (len < i + 4 || c[i] != 0x55)
		return 0;
	for (size_t j = i + 1; j + 3 <= len && j <= i + 1 + USYM_PROLOGUE_SPAN; j++)
		if (c[j] == 0x48 && c[j + 1] == 0x89 && c[j + 2] == 0xe5)
			return j + 3;
	return 0;
}

/* The prologue length of the function that starts at absolute address
 * start in module m (0: no frame pointer), or -errno when its code cannot
 * be read (no executable section there in the loaded file). */
static int usym_fn_prologue(Dwfl_Module *m, GElf_Addr start)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m, &bias);
	Elf_Scn *scn = NULL;
	GElf_Addr a = start - bias;  /* the file's own address */

	if (!elf)
		return -ENOENT;
	/* the loaded file's code, not a debug file's (whose .text is NOBITS) */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    a < sh.sh_addr || a >= sh.sh_addr + sh.sh_size)
			continue;
		if (sh.sh_type != SHT_PROGBITS)
			return -ENOENT;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || a - sh.sh_addr >= d->d_size)
			return -ENOENT;
		return (int)usym_prologue((const unsigned char *)d->d_buf + (a - sh.sh_addr),
					  d->d_size - (a - sh.sh_addr));
	}
	return -ENOENT;
}

int usym_has_frame_pointer(struct usym *u, uint32_t tgid, uint64_t addr)
{
	int err = 0;
	struct usym_proc *p = usym_get(u, tgid, NULL, &err);
	Dwfl_Module *m;
	GElf_Sym sym;
	GElf_Off off;

	if (!p)
		return err;
	if (!p->dwfl)
		return p->err;
	m = dwfl_addrmodule(p->dwfl, addr);
	if (!m || !dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL))
		return -ENOENT;
	err = usym_fn_prologue(m, addr - off);
	return err < 0 ? err : err > 0;
}

static int usym_is_root(const char *name)
{
	for (size_t i = 0; i < sizeof(usym_roots) / sizeof(usym_roots[0]); i++)
		if (!strcmp(name, usym_roots[i]))
			return 1;
	return 0;
}

void usym_names_free(char **names, unsigned n)
{
	if (!names)
		return;
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

#define USYM_MAX_FILES 4096

static void usym_files_clear(struct usym *u)
{
	for (size_t i = 0; i < u->nfiles; i++) {
		for (size_t k = 0; k < u->files[i].n; k++)
			free(u->files[i].syms[k].name);
		free(u->files[i].syms);
		free(u->files[i].path);
		free(u->files[i].build_id);
	}
	u->nfiles = 0;
}

static int usym_fsym_cmp(const void *a, const void *b)
{
	const struct usym_fsym *x = a, *y = b;

	if (x->off != y->off)
		return (x->off > y->off) - (x->off < y->off);
	/* aliases: the public name first (read before __libc_read) */
	return (x->name[0] == '_') - (y->name[0] == '_');
}

/* Module m's GNU build-id as lower-case hex (a new string, "" when the
 * file has none or cannot be read), or NULL without memory.  What
 * debuginfod, go tool pprof and Parca find the file's symbols by. */
static char *usym_build_id_hex(Dwfl_Module *m)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(m, &bits, &vaddr);
	char *hex;

	if (n <= 0 || !bits) {
		/* not read yet: libdwfl reads the note when the ELF is opened */
		GElf_Addr bias;

		if (dwfl_module_getelf(m, &bias))
			n = dwfl_module_build_id(m, &bits, &vaddr);
	}
	if (n <= 0 || !bits)
		n = 0;
	hex = malloc((size_t)n * 2 + 1);
	if (!hex)
		return NULL;
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	hex[2 * n] = 0;
	return hex;
}

/* The function table of module m's file (path, mapped at start), built on
 * first use; NULL without memory. */
static struct usym_file *usym_file_get(struct usym *u, Dwfl_Module *m, const char *path,
				       Dwarf_Addr start)
{
	struct usym_file *f;
	char key[64];
	int n;

	/* "[vdso: PID]": the kernel's one image in every process */
	if (path[0] == '[' && strchr(path, ':')) {
		snprintf(key, sizeof(key), "%.*s]", (int)(strchr(path, ':') - path), path);
		path = key;
	}
	for (size_t i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i].path, path))
			return &u->files[i];
	if (u->nfiles == USYM_MAX_FILES)
		usym_files_clear(u); /* bounded: start over */
	if (vec_grow(&u->files, &u->files_cap, u->nfiles + 1, sizeof(*u->files)))
		return NULL;
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	if (!(f->build_id = usym_build_id_hex(m))) {
		free(f->path);
		return NULL;
	}
	n = dwfl_module_getsymtab(m); /* -1: no symbols: an empty table */
	if (n > 1 && !(f->syms = calloc((size_t)n, sizeof(*f->syms)))) {
		free(f->build_id);
		free(f->path);
		return NULL;
	}
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr = 0;
		const char *s = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
		struct usym_fsym *e;

		if (!s || !*s || addr < start || (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
						  GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		e = &f->syms[f->n];
		if (!(e->name = strdup(s)))
			continue; /* one name fewer: an address "module+0x..." */
		e->off = addr - start;
		e->size = sym.st_size;
		e->pro = -2;
		f->n++;
	}
	if (f->n)
		qsort(f->syms, f->n, sizeof(*f->syms), usym_fsym_cmp);
	u->nfiles++;
	return f;
}

/* The function of f at offset x: the last that starts at or below it and
 * covers it (a symbol of size 0, from assembly, covers up to the next). */
static struct usym_fsym *usym_file_find(struct usym_file *f, uint64_t x)
{
	size_t lo = 0, hi = f->n;
	struct usym_fsym *e;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].off <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &f->syms[lo - 1];
	/* among aliases at one offset, the first (sorted public first) */
	while (e > f->syms && e[-1].off == e->off)
		e--;
	if (e->size ? x < e->off + e->size : 1)
		return e;
	/* a sized symbol that ends below x: another alias may be larger */
	for (struct usym_fsym *a = e; a < f->syms + f->n && a->off == e->off; a++)
		if (x < a->off + a->size)
			return a;
	return NULL;
}

/* One frame's name into buf; cut gets the reason the walk must stop
 * after it ("" when it may go on).  Returns 1 when the frame is a first
 * function (the walk ends there, no cut), else 0. */
static int usym_frame(struct usym *u, Dwfl *dwfl, uint64_t ip, int leaf, char *buf,
		      size_t len, char *cut, size_t cutlen)
{
	/* a return address may lie past its call's function (noreturn calls):
	 * look up the call instruction's byte */
	uint64_t look = leaf ? ip : ip - 1;
	Dwfl_Module *m = dwfl_addrmodule(dwfl, look);
	const char *path, *mod;
	Dwarf_Addr start = 0;
	struct usym_file *f;
	struct usym_fsym *e;

	cut[0] = 0;
	if (!m) {
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
		snprintf(cut, cutlen, "[ends at 0x%llx: no mapping]", (unsigned long long)ip);
		return 0;
	}
	path = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	mod = usym_base(path);
	f = path ? usym_file_get(u, m, path, start) : NULL;
	e = f ? usym_file_find(f, look - start) : NULL;
	if (!e) {
		snprintf(buf, len, "%s+0x%llx", mod, (unsigned long long)(ip - start));
		snprintf(cut, cutlen, "[ends in %s: no symbol, frame pointer unknown]", mod);
		return 0;
	}
	snprintf(buf, len, "%s (%s)", e->name, mod);
	if (usym_is_root(e->name))
		return 1;
	if (e->pro == -2)
		e->pro = usym_fn_prologue(m, start + e->off);
	if (e->pro == 0)
		snprintf(cut, cutlen, "[ends in %s: no frame pointers]", mod);
	else if (e->pro < 0)
		snprintf(cut, cutlen, "[ends in %s: code not readable, frame pointer unknown]",
			 mod);
	else if (leaf && look - start - e->off < (uint64_t)e->pro)
		/* the frame is not set up yet: the next address is not the caller's */
		snprintf(cut, cutlen, "[ends in %s: sampled in a prologue]", mod);
	return 0;
}

static void usym_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

int usym_stack(struct usym *u, uint32_t tgid, const char *comm, const uint64_t *ips,
	       unsigned n, char ***names)
{
	char buf[320], cut[160];
	char **out = NULL;
	unsigned k = 0, i;
	int err = 0;
	struct usym_proc *p = usym_get(u, tgid, comm, &err);

	*names = NULL;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	if (!p || !p->dwfl) {
		if (!p && err == -ENOMEM)
			goto nomem;
		snprintf(cut, sizeof(cut), "[user stack unknown: %s]",
			 (p ? p->err : err) == -ESRCH ? "process exited before its maps were read"
			 : (p ? p->err : err) == -ESTALE ? "the process ran another program "
			 "(exec) before its maps were read"
			 : (p ? p->err : err) == -ENOSPC ? "too many processes"
			 : "maps not readable");
		if (!(out[k++] = strdup(cut)))
			goto nomem;
		*names = out;
		return (int)k;
	}
	/* leaf first in ips; cut[] of frame i tells whether frame i + 1 holds */
	cut[0] = 0;
	for (i = 0; i < n && ips[i]; i++) {
		int root = usym_frame(u, p->dwfl, ips[i], i == 0, buf, sizeof(buf), cut,
				      sizeof(cut));

		/* a symbol or file name is the binary's to choose: shown on
		 * terminals later */
		usym_clean(buf);
		usym_clean(cut);
		if (!(out[k++] = strdup(buf)))
			goto nomem;
		if (root)
			break;
		if (cut[0])
			break;
		if (i + 1 == n || !ips[i + 1]) {
			/* the kernel's walk stopped at a frame that is no first
			 * function: a broken chain or the depth limit */
			if (i + 1 >= USYM_MAX_DEPTH)
				snprintf(cut, sizeof(cut), "[stack truncated at %u frames]", n);
			else
				snprintf(cut, sizeof(cut), "[ends in %.100s: frame chain ends]",
					 strchr(buf, '(') ? buf : "?");
		}
	}
	if (!k) /* no address at all */
		snprintf(cut, sizeof(cut), "[user stack empty]");
	if (cut[0] && !(out[k++] = strdup(cut)))
		goto nomem;
	/* root first */
	for (unsigned a = 0, b = k - 1; a < b; a++, b--) {
		char *t = out[a];

		out[a] = out[b];
		out[b] = t;
	}
	*names = out;
	return (int)k;
nomem:
	usym_names_free(out, k);
	return -ENOMEM;
}

size_t usym_nmodules(const struct usym *u)
{
	return u ? u->nfiles : 0;
}

int usym_module(const struct usym *u, size_t i, const char **name, const char **path,
		const char **build_id)
{
	const struct usym_file *f;

	if (!u || i >= u->nfiles)
		return -ENOENT;
	f = &u->files[i];
	/* "[vdso]" and the like: no file a tool could open */
	if (f->path[0] != '/')
		return -ENOENT;
	*name = usym_base(f->path);
	*path = f->path;
	*build_id = f->build_id;
	return 0;
}

struct usym_find {
	const char *name;
	uint64_t addr;
	int found;
};

static int usym_find_cb(Dwfl_Module *m, void **ud, const char *mname, Dwarf_Addr start,
			void *arg)
{
	struct usym_find *f = arg;
	int n = dwfl_module_getsymtab(m);

	(void)ud; (void)mname; (void)start;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *s = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);

		if (s && GELF_ST_TYPE(sym.st_info) == STT_FUNC && !strcmp(s, f->name) && addr) {
			f->addr = addr;
			f->found = 1;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

int usym_find_symbol(struct usym *u, uint32_t tgid, const char *name, uint64_t *addr)
{
	struct usym_find f = { name, 0, 0 };
	int err = 0;
	struct usym_proc *p = usym_get(u, tgid, NULL, &err);

	if (!p)
		return err;
	if (!p->dwfl)
		return p->err;
	if (dwfl_getmodules(p->dwfl, usym_find_cb, &f, 0) < 0)
		return -EIO;
	if (!f.found)
		return -ENOENT;
	*addr = f.addr;
	return 0;
}
