#!/usr/bin/env python3
"""Helpers for the pprof tests.

    pprof_raw.py compare RAW FOLDED   `go tool pprof -raw` output against a
                                      folded file: same stacks, same counts
    pprof_raw.py user-only OUT        write a gzipped pprof whose frames are
                                      all user space (a /usr/bin mapping)

compare rebuilds each sample's stack from the Locations and Mappings
sections (frames of a module mapping "[mod]" read "sym [mod]", as argus
writes them), leaf-first reversed to root first, sums samples/count by
stack, and prints the first differences; exit 0 when equal.  A profile
with time accounting (sample types blocked/nanoseconds and
runnable/nanoseconds) gets its frames back as the folded export has them:
the kind ("[on-cpu]", "[blocked]", "[runnable]": the type whose value is
not 0) first, the waker / ran_instead label as the last frames.
"""
import gzip
import re
import sys


def parse_raw(text):
    sec, types, samples, locs, maps = None, [], [], {}, {}
    cur = None
    for line in text.splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            sec = line.rstrip(":")
            continue
        if sec == "Samples":
            if not types:
                types = [t.replace("[dflt]", "") for t in line.split()]
                continue
            m = re.match(r"^\s+(\d+(?:\s+\d+)*):\s*([\d ]*)$", line)
            if m:
                samples.append(([int(v) for v in m.group(1).split()],
                                [int(i) for i in m.group(2).split()], {}))
            elif samples:
                for k, val in re.findall(r"(\w+):\[([^\]]*)\]", line):
                    samples[-1][2][k] = val
        elif sec == "Locations":
            # pprof shortens a name it would simplify (one with parentheses:
            # "[woken by task X (tgid N)]") and puts the whole one after
            # "s=0" in parentheses: take that one when it is there
            m = re.match(r"^\s+(\d+): (0x[0-9a-f]+) M=(\d+) (.*?) :\d+ s=\d+(?:\((.*)\))?$", line)
            if m:
                cur = int(m.group(1))
                locs[cur] = (int(m.group(3)), [m.group(5) or m.group(4)], int(m.group(2), 16))
                continue
            m = re.match(r"^\s+(\S.*?) :\d+ s=\d+(?:\((.*)\))?$", line)
            if m and cur is not None:
                locs[cur][1].append(m.group(2) or m.group(1))
                continue
            m = re.match(r"^\s+(\d+): (0x[0-9a-f]+) M=(\d+)\s*$", line)
            if m:
                cur = int(m.group(1))
                locs[cur] = (int(m.group(3)), [], int(m.group(2), 16))
        elif sec == "Mappings":
            m = re.match(r"^\s*(\d+): \S+ (\S+)", line)
            if m:
                maps[int(m.group(1))] = m.group(2)
    return types, samples, locs, maps


def stacks_of(text):
    types, samples, locs, maps = parse_raw(text)
    ci = types.index("samples/count")
    out = {}
    timed = "blocked/nanoseconds" in types and "runnable/nanoseconds" in types
    for vals, ids, labels in samples:
        names = who_frames(types, vals, labels) if timed else []
        for i in ids:
            mid, fns, addr = locs[i]
            mod = maps.get(mid, "")
            for fn in fns or ["0x%016x" % addr]:
                if mod.startswith("[") and mod != "[kernel.kallsyms]":
                    fn += " " + mod
                names.append(fn)
        if timed:
            kind = "[on-cpu]"
            for t, f in (("blocked/nanoseconds", "[blocked]"), ("runnable/nanoseconds", "[runnable]")):
                if vals[types.index(t)]:
                    kind = f
            names.append(kind)
        key = ";".join(reversed(names))
        out[key] = out.get(key, 0) + vals[ci]
    return out


def who_frames(types, vals, labels):
    """The frames a waker / ran_instead label stands for, leaf first (the
    inverse of pprof_write's labels)."""
    if "waker" in labels and vals[types.index("blocked/nanoseconds")]:
        w = labels["waker"]
        return ["[%s]" % w if w == "no wakeup seen" or w.startswith("still ") else "[woken by %s]" % w]
    w = labels.get("ran_instead")
    if not w or not vals[types.index("runnable/nanoseconds")]:
        return []
    if w.startswith("still "):
        return ["[%s]" % w]
    out = []
    m = re.match(r"^(.*) \(tgid (\d+)\)$", w)
    if m:
        out.append("[tgid %s]" % m.group(2))
        w = m.group(1)
    cg = None
    if w.startswith("cgroup ") and ", " in w:
        cg, w = w.split(", ", 1)
    out.append("[ran instead: %s]" % w)
    if cg:
        out.append("[ran instead: %s]" % cg)
    return out


def folded_of(path):
    out = {}
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        stack, n = line.rsplit(" ", 1)
        out[stack] = out.get(stack, 0) + int(n)
    return out


def compare(raw, folded):
    a, b = stacks_of(open(raw).read()), folded_of(folded)
    if a == b:
        print("equal: %d stacks, %d samples" % (len(a), sum(a.values())))
        return 0
    keys = sorted(set(a) | set(b))
    diff = [k for k in keys if a.get(k) != b.get(k)]
    print("%d stacks differ (pprof %d samples, folded %d):" % (len(diff), sum(a.values()), sum(b.values())))
    for k in diff[:5]:
        print("  pprof %s, folded %s: %s" % (a.get(k), b.get(k), k[:200]))
    return 1


def v(x):
    out = b""
    while True:
        c = x & 0x7F
        x >>= 7
        if x:
            out += bytes([c | 0x80])
        else:
            return out + bytes([c])


def fld(f, data):
    if isinstance(data, int):
        return v(f << 3) + v(data)
    return v(f << 3 | 2) + v(len(data)) + data


def user_only(out):
    strs = ["", "samples", "count", "/usr/bin/app", "main", "work"]
    b = fld(1, fld(1, 1) + fld(2, 2))
    b += fld(3, fld(1, 1) + fld(5, 3))
    for lid, fn in ((1, 4), (2, 5)):
        b += fld(4, fld(1, lid) + fld(2, 1) + fld(3, 0x401000 + lid) + fld(4, fld(1, lid)))
        b += fld(5, fld(1, lid) + fld(2, fn))
    b += fld(2, fld(1, v(2) + v(1)) + fld(2, v(17)))
    for s in strs:
        b += fld(6, s.encode())
    b += fld(10, 2000000000)
    open(out, "wb").write(gzip.compress(b))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    if sys.argv[1] == "user-only":
        sys.exit(user_only(sys.argv[2]))
    sys.exit(2)
