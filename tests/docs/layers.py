#!/usr/bin/env python3
"""The layering rule of core/ (doc/ARCHITECTURE.md, "Layers"):

  1. every core file lives in a layer folder, and the layers are those the
     document names, bottom up, on its line 'Layers, bottom up: a b c ...';
  2. no file includes a header of a layer above its own;
  3. no include cycle between modules (a module is NAME.c with NAME.h; a
     NAME_part.c without a header of its own belongs to the module whose
     header it includes first among its own layer's);
  4. every core file is named in the document's map.

Known debts are listed below with the seam that removes them; the list may
only shrink (an entry that no longer occurs fails, so it is taken out).
Prints 'ok' or what is wrong, one line each; exit 0 or 1."""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
CORE = os.path.join(ROOT, 'core')
DOC = os.path.join(ROOT, 'doc', 'ARCHITECTURE.md')

# (including file, included header): an upward include still to be removed
KNOWN_UP = set()  # none left
# frozenset of modules: an include cycle still to be broken
KNOWN_CYCLES = set()  # none left

def main():
    bad = []
    try:
        doc = open(DOC).read()
    except OSError as e:
        print('no %s: %s' % (DOC, e.strerror)); return 1
    m = re.search(r'^Layers, bottom up: *(.+)$', doc, re.M)
    if not m:
        print("doc/ARCHITECTURE.md has no line 'Layers, bottom up: ...'"); return 1
    order = m.group(1).replace('`', '').replace(',', ' ').split()
    rank = {l: i for i, l in enumerate(order)}
    files = {}  # name -> layer
    for d in sorted(os.listdir(CORE)):
        p = os.path.join(CORE, d)
        if not os.path.isdir(p):
            if d.endswith(('.c', '.h')):
                bad.append('core/%s is in no layer folder' % d)
            continue
        if d not in rank:
            bad.append('core/%s/ is not a layer the document names' % d)
            continue
        for f in sorted(os.listdir(p)):
            if f.endswith(('.c', '.h')):
                if f in files:
                    bad.append('%s is in two layers' % f)
                files[f] = d
    inc = {}
    for f, l in files.items():
        src = open(os.path.join(CORE, l, f)).read()
        inc[f] = []
        for i in re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M):
            if '/' not in i:
                if i in files:
                    bad.append('core/%s/%s includes "%s": write "%s/%s"' % (l, f, i, files[i], i))
                continue
            il, name = i.split('/', 1)
            if il not in rank or name not in files:
                continue  # ../../bpf/x.h, a skeleton, a system header
            if files[name] != il:
                bad.append('core/%s/%s includes "%s", which is in %s/' % (l, f, i, files[name]))
            inc[f].append(name)
            if rank[il] > rank[l] and (f, name) not in KNOWN_UP:
                bad.append('core/%s/%s includes %s/%s: a layer above %s' % (l, f, il, name, l))
    seen_up = {(f, n) for f in inc for n in inc[f] if rank[files[n]] > rank[files[f]]}
    for e in sorted(KNOWN_UP - seen_up):
        bad.append('known upward include %s -> %s is gone: take it off KNOWN_UP' % e)

    # modules
    heads = {f[:-2] for f in files if f.endswith('.h')}
    def module(f):
        stem = re.sub(r'_(int|priv)$', '', f[:-2])  # a module's private header is the module
        if stem in heads:
            return stem
        # a part file (NAME_part.c, no header of its own): the longest module its name extends
        best = ''
        for h in heads:
            if stem.startswith(h + '_') and len(h) > len(best) and files.get(h + '.h') == files[f]:
                best = h
        return best or stem
    graph = {}
    for f in files:
        a = module(f)
        graph.setdefault(a, set())
        for n in inc[f]:
            b = module(n)
            if b != a:
                graph[a].add(b)
    for c in cycles(graph):
        if frozenset(c) not in KNOWN_CYCLES:
            bad.append('include cycle: %s' % ' <-> '.join(sorted(c)))
    found = {frozenset(c) for c in cycles(graph)}
    for c in sorted(KNOWN_CYCLES - found, key=sorted):
        bad.append('known cycle %s is gone: take it off KNOWN_CYCLES' % ' <-> '.join(sorted(c)))

    for f in sorted(files):
        stem = re.escape(f[:-2])
        if not re.search(r'(?<![\w/])(%s\.%s|%s\.c/h)\b' % (stem, f[-1], stem), doc):
            bad.append('core/%s/%s is not in the map (doc/ARCHITECTURE.md)' % (files[f], f))
    for b in bad:
        print(b)
    if not bad:
        print('ok')
    return 1 if bad else 0

def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out

if __name__ == '__main__':
    sys.exit(main())
