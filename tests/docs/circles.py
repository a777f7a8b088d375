#!/usr/bin/env python3
"""No call circle between core/'s files, nor between tui/'s (doc/ARCHITECTURE.md,
"The rule", 3).

layers.py reads the includes; a part file split from a module includes the
module's header, so a part that calls back into the file it was split from
is invisible there (and tui/ has no layers to read).  This reads what the
compiler made: for each object build/core/LAYER/NAME.o and build/tui/NAME.o,
the functions it defines (nm --defined-only) and the ones it needs (nm -u).  File A calls file B when A needs a symbol B
defines; a circle is a set of files that call each other round (a strongly
connected component of more than one file).  A file split along a seam calls
down only, so every circle is a seam still to be cut.

One graph over both trees (tui/ calls core/, core/ never calls tui/), each
tree reported on its own line.

Usage: circles.py [BUILD_DIR]   (default build/; its sources are
BUILD_DIR/../core and BUILD_DIR/../tui, and an object without its source is
left out)
Prints 'TREE: ok (N objects)' for core and tui, or each circle with the calls
that close it; exit 0 or 1, or 77 (with 'SKIPPED: why') when nm or either
tree's objects are missing."""
import os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import cycles as scc  # the same Tarjan: modules there, files here

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
TREES = ('core', 'tui')  # core/LAYER/NAME.o, tui/NAME.o


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


def objects(build, tree):
    """The objects of one tree whose sources are still there: an object
    whose source is gone (a file moved or removed since the last build) is
    stale, it would show circles that are no more."""
    top = os.path.join(build, tree)
    src = os.path.join(os.path.dirname(os.path.abspath(build)), tree)
    objs = []
    for d, _, fs in os.walk(top):
        objs += [os.path.join(d, f) for f in fs if f.endswith('.o') and
                 os.path.exists(os.path.join(src, os.path.relpath(d, top), f[:-2] + '.c'))]
    return sorted(objs)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'build')
    if not shutil.which('nm'):
        print('SKIPPED: needs nm (binutils)'); return 77
    tree_of, objs = {}, []
    for t in TREES:
        got = objects(build, t)
        if not got:
            print('SKIPPED: no objects in %s; run make first' % os.path.join(build, t))
            return 77
        for o in got:
            tree_of[o] = t
        objs += got
    name = {o: os.path.relpath(o, build)[:-2] + '.c' for o in objs}
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
    bad = {t: [] for t in TREES}
    for comp in scc(calls):
        inside = set(comp)
        edges = ['%s -> %s (%s)' % (name[a], name[b], ', '.join(calls[a][b]))
                 for a in sorted(comp) for b in sorted(calls[a]) if b in inside]
        trees = sorted({tree_of[o] for o in comp})
        bad[trees[0]].append('call circle: %s: %s' % (
            ' <-> '.join(sorted(name[o] for o in comp)), '; '.join(edges)))
    for t in TREES:
        for b in bad[t]:
            print('%s: %s' % (t, b))
        if not bad[t]:
            print('%s: ok (%d objects)' % (t, sum(tree_of[o] == t for o in objs)))
    return 1 if any(bad.values()) else 0


if __name__ == '__main__':
    sys.exit(main())
