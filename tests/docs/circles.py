#!/usr/bin/env python3
"""No call circle between core/'s files (doc/ARCHITECTURE.md, "The rule", 3).

layers.py reads the includes; a part file split from a module includes the
module's header, so a part that calls back into the file it was split from
is invisible there.  This reads what the compiler made: for each object
build/core/LAYER/NAME.o, the functions it defines (nm --defined-only) and
the ones it needs (nm -u).  File A calls file B when A needs a symbol B
defines; a circle is a set of files that call each other round (a strongly
connected component of more than one file).  A file split along a seam calls
down only, so every circle is a seam still to be cut.

Usage: circles.py [BUILD_DIR]   (default build/; its sources are
BUILD_DIR/../core, and an object without its source is left out)
Prints 'ok' or each circle with the calls that close it; exit 0 or 1, or 77
(with 'SKIPPED: why') when nm or the objects are missing."""
import os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import cycles as scc  # the same Tarjan: modules there, files here

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')


def nm(args, objs):
    """{object: set of symbols} from one nm run over all the objects
    (-A: each line starts 'path:')."""
    out = subprocess.run(['nm', '-A'] + args + objs, capture_output=True,
                         text=True, check=True).stdout
    syms = {o: set() for o in objs}
    for line in out.splitlines():
        path, _, rest = line.rpartition('.o:')
        parts = rest.split()
        if not path or not parts:
            continue
        path += '.o'
        if args == ['-u']:
            syms[path].add(parts[-1])
        elif len(parts) >= 3 and parts[1] in 'TDBRVWGS':
            syms[path].add(parts[2])  # global text/data (lower case = file-local)
    return syms


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build')
    core = os.path.join(build, 'core')
    if not shutil.which('nm'):
        print('SKIPPED: needs nm (binutils)'); return 77
    src = os.path.join(os.path.dirname(os.path.abspath(build)), 'core')
    objs = []
    for d, _, fs in os.walk(core):
        # an object whose source is gone (a file moved or removed since the
        # last build) is stale: it would show circles that are no more
        objs += [os.path.join(d, f) for f in fs if f.endswith('.o') and
                 os.path.exists(os.path.join(src, os.path.relpath(d, core), f[:-2] + '.c'))]
    if not objs:
        print('SKIPPED: no objects in %s; run make first' % core); return 77
    objs.sort()
    name = {o: os.path.relpath(o, core)[:-2] + '.c' for o in objs}
    defs, needs, owner = nm(['--defined-only'], objs), nm(['-u'], objs), {}
    for o in objs:
        for s in defs[o]:
            owner.setdefault(s, o)
    calls = {o: {} for o in objs}  # a -> {b: [symbols a uses of b]}
    for a in objs:
        for s in sorted(needs[a]):
            b = owner.get(s)
            if b and b != a:
                calls[a].setdefault(b, []).append(s)
    bad = []
    for comp in scc(calls):
        inside = set(comp)
        edges = ['%s -> %s (%s)' % (name[a], name[b], ', '.join(calls[a][b]))
                 for a in sorted(comp) for b in sorted(calls[a]) if b in inside]
        bad.append('call circle: %s: %s' % (
            ' <-> '.join(sorted(name[o] for o in comp)), '; '.join(edges)))
    for b in bad:
        print(b)
    if not bad:
        print('ok (%d objects)' % len(objs))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
