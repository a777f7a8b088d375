#!/usr/bin/env python3
"""A stub continuous-profiling server for argus's push tests, on 127.0.0.1:
Pyroscope's POST /ingest and Parca's POST .../profiles/writeraw.

    push_stub.py [--port 0] [--max-seconds 600]

Prints the port as the first line of stdout.  Every request is checked the
way the real servers read it, and the verdict recorded:

  Pyroscope  method POST, path /ingest, query name=APP{k=v,...} (balanced,
             labels k=v), from <= until (unix seconds), format=pprof;
             Content-Type multipart/form-data with a boundary and a part
             named "profile" (or application/octet-stream: the raw body)
  Parca      method POST, path ending /profiles/writeraw, Content-Type
             application/json, {"series":[{"labels":{"labels":[{"name":
             "__name__",...}]},"samples":[{"raw_profile"|"rawProfile": b64}]}]}

and the profile bytes must be gzip holding a profile.proto that decodes:
string table starting with "", sample types, every sample's locations and
functions present.  A request failing a check gets 400 and "error" in the
log.  Replies come from a script (a JSON list, one entry per profile
request, in order; past its end: 200):

    status    HTTP status (default 200)
    delay_s   sleep after reading the body, before answering (slow server)
    close     true: read the body, then close without a reply

Control endpoints: POST /_stub/script (the JSON list; clears the log),
GET /_stub/log (JSON list of {t, kind, path, query, tenant, status, error,
samples, stacks{folded: count}, plabels{the profile's sample label: its
string values}, sha256, labels, accepted}), POST /_stub/quit.
A profile counts as accepted only when answered 2xx.
"""
import argparse
import base64
import gzip
import hashlib
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SCRIPT = []
LOG = []
SERVER = None
NREQ = [0]


def varint(b, i):
    x = s = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        x |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return x, i
        if s > 63:
            raise ValueError("varint too long")


def fields(b):
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        f, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = varint(b, i)
            yield f, wt, v
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("length past the end")
            yield f, wt, b[i:i + n]
            i += n
        elif wt == 1:
            yield f, wt, b[i:i + 8]
            i += 8
        elif wt == 5:
            yield f, wt, b[i:i + 4]
            i += 4
        else:
            raise ValueError("wire type %d" % wt)


def ints(wt, v):
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def decode_profile(raw):
    """Returns (samples, {folded root-first: count}, {sample label key:
    [its string values, sorted]}) or raises ValueError."""
    if raw[:2] != b"\x1f\x8b":
        raise ValueError("profile is not gzip")
    b = gzip.decompress(raw)
    strs, types, samples, locs, funcs, maps = [], [], [], {}, {}, {}
    for f, wt, v in fields(b):
        if f == 6:
            strs.append(v.decode("utf-8", "replace"))
        elif f == 1:
            t = {g: x for g, _, x in fields(v)}
            types.append((t.get(1, 0), t.get(2, 0)))
        elif f == 2:
            samples.append(v)
        elif f == 3:
            m = {g: x for g, _, x in fields(v)}
            maps[m.get(1, 0)] = m.get(5, 0)
        elif f == 4:
            lid, mid, lines = 0, 0, []
            for g, gw, x in fields(v):
                if g == 1:
                    lid = x
                elif g == 2:
                    mid = x
                elif g == 4:
                    lines.append({h: y for h, _, y in fields(x)}.get(1, 0))
            locs[lid] = (mid, lines)
        elif f == 5:
            fn = {g: x for g, _, x in fields(v)}
            funcs[fn.get(1, 0)] = fn.get(2, 0)
    if not strs or strs[0] != "":
        raise ValueError("string table does not start with an empty string")
    units = [strs[u] for _, u in types]
    if "count" not in units:
        raise ValueError("no samples/count sample type")
    ci = units.index("count")
    total, stacks, plabels = 0, {}, {}
    for s in samples:
        ids, vals = [], []
        for g, gw, x in fields(s):
            if g == 1:
                ids += ints(gw, x)
            elif g == 2:
                vals += ints(gw, x)
            elif g == 3:
                lab = {h: y for h, _, y in fields(x)}
                if lab.get(2):
                    plabels.setdefault(strs[lab.get(1, 0)], set()).add(strs[lab[2]])
        if len(vals) != len(types):
            raise ValueError("sample with %d values for %d types" % (len(vals), len(types)))
        names = []
        for lid in ids:
            if lid not in locs:
                raise ValueError("sample names a missing location %d" % lid)
            mid, lines = locs[lid]
            if mid and mid not in maps:
                raise ValueError("location names a missing mapping %d" % mid)
            mod = strs[maps[mid]] if mid else ""
            for fid in lines:
                if fid not in funcs:
                    raise ValueError("location names a missing function %d" % fid)
                n = strs[funcs[fid]]
                if mod.startswith("[") and mod != "[kernel.kallsyms]":
                    n += " " + mod
                names.append(n)
        key = ";".join(reversed(names))
        stacks[key] = stacks.get(key, 0) + vals[ci]
        total += vals[ci]
    return total, stacks, {k: sorted(v) for k, v in plabels.items()}


def multipart_part(body, ctype, name):
    if "boundary=" not in ctype:
        raise ValueError("multipart without a boundary")
    bnd = ctype.split("boundary=", 1)[1].strip().strip('"').encode()
    for part in body.split(b"--" + bnd):
        if b"\r\n\r\n" not in part:
            continue
        head, data = part.split(b"\r\n\r\n", 1)
        if ('name="%s"' % name).encode() in head:
            return data[:-2] if data.endswith(b"\r\n") else data
    raise ValueError('no multipart part named "%s"' % name)


def check_pyroscope(h, q, body):
    ctype = h.headers.get("Content-Type", "")
    name = q.get("name", [""])[0]
    if not name or "{" not in name or not name.endswith("}"):
        raise ValueError("name must be APP{labels}: %r" % name)
    app, lab = name[:-1].split("{", 1)
    labels = dict(kv.split("=", 1) for kv in lab.split(",") if kv)
    if not app or any(not k or not v for k, v in labels.items()):
        raise ValueError("bad name %r" % name)
    frm, until = int(q["from"][0]), int(q["until"][0])
    if not (0 < frm <= until):
        raise ValueError("from %d until %d" % (frm, until))
    if q.get("format", [""])[0] != "pprof":
        raise ValueError("format is not pprof")
    if ctype.startswith("multipart/form-data"):
        raw = multipart_part(body, ctype, "profile")
    elif ctype.startswith("application/octet-stream"):
        raw = body
    else:
        raise ValueError("content type %r" % ctype)
    labels["__app__"] = app
    return raw, labels, frm, until


def check_parca(h, body):
    ctype = h.headers.get("Content-Type", "")
    if not ctype.startswith("application/json"):
        raise ValueError("content type %r" % ctype)
    req = json.loads(body)
    series = req["series"]
    if len(series) != 1 or len(series[0]["samples"]) != 1:
        raise ValueError("expected one series with one sample")
    labels = {l["name"]: l["value"] for l in series[0]["labels"]["labels"]}
    if not labels.get("__name__"):
        raise ValueError("no __name__ label")
    smp = series[0]["samples"][0]
    raw = base64.b64decode(smp.get("raw_profile", smp.get("rawProfile", "")), validate=True)
    return raw, labels, 0, 0


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/_stub/log":
            with LOCK:
                self.reply(200, json.dumps(LOG).encode(), "application/json")
        else:
            self.reply(404)

    def do_POST(self):
        global SCRIPT
        n = int(self.headers.get("Content-Length", "0") or 0)
        body = self.rfile.read(n) if n else b""
        u = urllib.parse.urlsplit(self.path)
        if u.path == "/_stub/script":
            with LOCK:
                SCRIPT = json.loads(body or b"[]")
                LOG.clear()
                NREQ[0] = 0
            return self.reply(200)
        if u.path == "/_stub/quit":
            self.reply(200)
            threading.Thread(target=SERVER.shutdown, daemon=True).start()
            return
        q = urllib.parse.parse_qs(u.query)
        ent = {"t": time.time(), "path": u.path, "query": q,
               "tenant": self.headers.get("X-Scope-OrgID"), "error": None, "accepted": False}
        with LOCK:
            k = NREQ[0]
            NREQ[0] += 1
            act = SCRIPT[k] if k < len(SCRIPT) else {}
        status = int(act.get("status", 200))
        try:
            if u.path.endswith("/ingest"):
                ent["kind"] = "pyroscope"
                raw, labels, frm, until = check_pyroscope(self, q, body)
            elif u.path.endswith("/profiles/writeraw"):
                ent["kind"] = "parca"
                raw, labels, frm, until = check_parca(self, body)
            else:
                raise ValueError("unknown path %s" % u.path)
            ent["labels"] = labels
            ent["samples"], ent["stacks"], ent["plabels"] = decode_profile(raw)
            ent["sha256"] = hashlib.sha256(raw).hexdigest()
        except (ValueError, KeyError, TypeError, IndexError, OSError, EOFError) as e:
            ent["error"] = "%s: %s" % (type(e).__name__, e)
            status = 400
        ent["status"] = status
        if act.get("delay_s"):
            time.sleep(float(act["delay_s"]))
        if act.get("close"):
            ent["status"] = 0
            with LOCK:
                LOG.append(ent)
            self.close_connection = True
            return
        ent["accepted"] = 200 <= status < 300
        with LOCK:
            LOG.append(ent)
        try:
            self.reply(status, b"{}" if status < 300 else (ent["error"] or "scripted failure").encode())
        except OSError:
            pass  # the client gave up (timed out): the log says what we took


def main():
    global SERVER
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=600)
    a = ap.parse_args()
    ThreadingHTTPServer.allow_reuse_address = True
    SERVER = ThreadingHTTPServer(("127.0.0.1", a.port), H)
    SERVER.daemon_threads = True
    print(SERVER.server_address[1], flush=True)
    t = threading.Timer(a.max_seconds, SERVER.shutdown)
    t.daemon = True
    t.start()
    SERVER.serve_forever()
    SERVER.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
