#!/usr/bin/env python3
"""Writes procs-session.jsonl: a crafted session for the process split.

Three cc1 processes and one make (the load, the diagnosed set in "diag")
page-fault in the loaded windows; a background job (bgjob, not diagnosed)
reads files in both conditions and loses a third of its samples under load
(displaced work); the idle task (tgid 0) fills the rest.  Every process has
its identity ("procs": cmdline, exe, cgroup, unit), as `argus record`
writes them.  Two kworkers (kernel threads) run work items: kworker/1:2
mostly wb_workfn, some vmstat_update and blk_mq_run_work_fn, and time in
the workqueue's own lock; kworker/0:1 one work function whose name holds
terminal escapes (a session is a file anyone may write).  Their samples
come from a random stream of their own, so the other processes' numbers
are those of the file without them.  Deterministic: run it again and the
file is the same.

    python3 tests/tui/data/mk-procs-session.py > tests/tui/data/procs-session.jsonl
"""
import json
import random

rng = random.Random(13)
krng = random.Random(31)
FAULT = ["asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault",
         "__handle_mm_fault", "do_anonymous_page", "clear_page_erms"]
READ = ["entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read", "ksys_read", "vfs_read",
        "filemap_read", "copy_page_to_iter"]
IDLE = ["secondary_startup_64", "cpu_startup_entry", "do_idle", "default_idle_call"]
KW = ["ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread", "process_one_work"]
# kworkers: (tgid, comm, [(frames under process_one_work, ref, load)])
KWORKERS = [
    (300, "kworker/1:2", [(["wb_workfn", "wb_do_writeback", "writeback_sb_inodes"], 20, 60),
                          (["vmstat_update", "refresh_cpu_vm_stats"], 6, 6),
                          (["blk_mq_run_work_fn", "blk_mq_sched_dispatch_requests"], 2, 4),
                          (["_raw_spin_unlock_irq"], 3, 5)]),
    (301, "kworker/0:1", [(["evil\x1b[2J\x1b]0;owned\x07_workfn"], 10, 10)]),
]
PROCS = [
    (100, "make", "make -j3 all", "/usr/bin/make", "/user.slice/user-0.slice/session-4.scope",
     "session-4.scope", ""),
    (101, "cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet a.c", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
     "/user.slice/user-0.slice/session-4.scope", "session-4.scope", ""),
    (102, "cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet b.c", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
     "/user.slice/user-0.slice/session-4.scope", "session-4.scope", ""),
    (103, "cc1", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet c.c", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
     "/user.slice/user-0.slice/session-4.scope", "session-4.scope", ""),
    (200, "bgjob", "/opt/bg/bgjob --scan /srv", "/opt/bg/bgjob",
     "/system.slice/bgjob.service", "bgjob.service", ""),
]
# samples per 1 s window: (ref, load)
RATES = {100: (FAULT, 2, 40), 101: (FAULT, 3, 260), 102: (FAULT, 2, 240), 103: (FAULT, 3, 220),
         200: (READ, 400, 250)}


def noisy(mean):
    return max(0, int(round(rng.gauss(mean, mean ** 0.5)))) if mean else 0


def main():
    out = [{"type": "header", "format": "argus-session", "version": 1, "argus": "0.1.0",
            "host": "fixture", "kernel": "6.18.0", "created": "2026-12-01T12:00:00Z",
            "caps": {}, "options": {"freq_hz": 99, "load": "make -j3 all"}}]
    t = 0.0
    for w in range(12):
        cond = "ref" if w % 2 == 0 else "load"
        stacks = []
        for tgid, comm, *_ in PROCS:
            frames, ref, load = RATES[tgid]
            n = noisy(ref if cond == "ref" else load)
            if n:
                stacks.append([frames, tgid, comm, n])
        stacks.append([IDLE, 0, "swapper/0", noisy(900 if cond == "ref" else 600)])
        for tgid, comm, items in KWORKERS:
            for below, ref, load in items:
                mean = ref if cond == "ref" else load
                n = max(0, int(round(krng.gauss(mean, mean ** 0.5))))
                if n:
                    stacks.append([KW + below, tgid, comm, n])
        ev = {"type": "window", "t": round(t + 1.2, 3), "step": 0, "index": w, "cond": cond,
              "start": round(t, 3), "secs": 1.0, "samples": sum(s[3] for s in stacks),
              "lost": 0, "stacks": stacks}
        if w == 1:
            ev["procs"] = [{"tgid": p[0], "comm": p[1], "cmdline": p[2], "exe": p[3],
                            "cgroup": p[4], "unit": p[5]} for p in PROCS]
            ev["procs"] += [{"tgid": k[0], "comm": k[1], "cgroup": "/", "role": "kworker",
                             "kthread": True} for k in KWORKERS]
        if cond == "load":
            ev["diag"] = {"all": False, "tgids": [100, 101, 102, 103]}
        out.append(ev)
        t += 1.3
    for o in out:
        print(json.dumps(o, separators=(",", ":")))


main()
