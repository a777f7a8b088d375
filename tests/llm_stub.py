#!/usr/bin/env python3
"""A stub LLM server for argus's tests: speaks OpenAI Chat Completions
(POST .../chat/completions) and Anthropic Messages (POST .../messages), plain
JSON and SSE streaming, on 127.0.0.1 only.

    llm_stub.py [--port 0] [--script FILE] [--log FILE] [--max-prompt-bytes N]

Prints the port it listens on as the first line of stdout.  Replies come from
a script: a JSON list, one entry per request, in order.  Entry keys (all
optional):

    api          "openai" | "anthropic" (default: from the request path)
    status       HTTP status (default 200)
    headers      {name: value} added to the reply
    delay_s      sleep before answering (for timeouts)
    close        true: close the connection without any reply (empty reply)
    body         a raw body string, sent as is (malformed JSON, ...)
    json         a body object, serialised
    chunks       raw SSE chunks (strings), sent as text/event-stream
    text         assistant text     } a reply generated in the request's API,
    tool_args    tool arguments     } streamed when the request said
    tool_name    (propose_step)     } "stream": true, else one JSON body
    usage        {"in": N, "out": M}
    error        an error message (for status >= 400: the API's error body)
    piece        characters per streamed piece (default 6)
    chunk_delay_s  sleep between streamed chunks
    cut_after    stream: close the connection after this many chunks
    crlf         stream: end lines with CRLF
    comments     stream: interleave ": keep-alive" comment lines
    thinking     the model's thinking: OpenAI dialects send it as
                 reasoning_content (llama-server), Anthropic as a thinking block
    dialect      how a local server bends the OpenAI API (issue 13):
                 "ollama"      tool calls without "index", the whole call in
                               one chunk, arguments as an object, and
                               finish_reason "stop" with a tool call
                 "llamacpp"    deltas keyed by index with id/name only in the
                               first chunk, thinking in reasoning_content
                 "llamacpp-text"  a chat template that is not tool-aware: the
                               call comes back as text in <tool_call> tags,
                               finish_reason "stop", no tool_calls

--max-prompt-bytes N plays a server with a small context, as llama-server
does: a Chat Completions request whose prompt (the messages' contents and
the tools' JSON) is over N bytes gets HTTP 400 with llama-server's
exceed_context_size_error body (n_prompt_tokens and n_ctx counted at 4 bytes
a token), and no scripted reply is used up.  The request is logged anyway.

Control endpoints (not logged as requests):
    POST /_stub/script   replace the script (body: the JSON list); clears the log
    GET  /_stub/log      the requests received so far, as a JSON list
    POST /_stub/quit     stop the server

Every request is recorded with its arrival time (time.time(), after the body
was read), method, path, headers and body — to the log file (JSON lines) when
--log is given, and in memory for /_stub/log.
"""
import argparse
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SCRIPT = []
LOG = []
LOGFILE = None
SERVER = None
MAX_PROMPT_BYTES = 0
STUB_BYTES_PER_TOKEN = 4


def prompt_bytes(req):
    """The prompt a server would tokenize: message contents, tools."""
    n = 0
    for m in req.get("messages") or []:
        c = m.get("content")
        if isinstance(c, list):
            c = "".join(p.get("text", "") for p in c if isinstance(p, dict))
        n += len((c or "").encode())
    if req.get("tools"):
        n += len(json.dumps(req["tools"], separators=(",", ":")).encode())
    return n


def pieces(s, n):
    n = max(1, int(n))
    return [s[i:i + n] for i in range(0, len(s), n)] or []


def error_body(api, status, msg):
    if api == "anthropic":
        kind = {429: "rate_limit_error", 401: "authentication_error"}.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": msg}}
    return {"error": {"message": msg, "type": "server_error" if status >= 500 else "invalid_request_error"}}


def tool_args_text(entry):
    a = entry.get("tool_args")
    if a is None:
        return None
    return a if isinstance(a, str) else json.dumps(a)


def text_tool_call(entry):
    """llamacpp-text: the call as text, the way a template that is not
    tool-aware leaves it."""
    args = tool_args_text(entry)
    try:
        a = json.loads(args)
    except ValueError:
        a = args
    call = json.dumps({"name": entry.get("tool_name", "propose_step"), "arguments": a})
    return (entry.get("text") or "") + "\n<tool_call>\n" + call + "\n</tool_call>"


def full_reply(api, entry, model):
    text = entry.get("text")
    args = tool_args_text(entry)
    dialect = entry.get("dialect", "")
    if api != "anthropic" and dialect == "llamacpp-text" and args is not None:
        text, args = text_tool_call(entry), None
    name = entry.get("tool_name", "propose_step")
    u = entry.get("usage", {"in": 11, "out": 7})
    if api == "anthropic":
        content = []
        if text:
            content.append({"type": "text", "text": text})
        if args is not None:
            try:
                inp = json.loads(args)
            except ValueError:
                inp = args  # a broken tool input, passed on as a string
            content.append({"type": "tool_use", "id": "toolu_stub", "name": name, "input": inp})
        if entry.get("thinking"):
            content.insert(0, {"type": "thinking", "thinking": entry["thinking"], "signature": "stub"})
        return {"id": "msg_stub", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": "tool_use" if args is not None else "end_turn",
                "usage": {"input_tokens": u["in"], "output_tokens": u["out"]}}
    msg = {"role": "assistant", "content": text}
    if entry.get("thinking"):
        msg["reasoning_content"] = entry["thinking"]
    if args is not None:
        fargs = args
        if dialect == "ollama":
            try:
                fargs = json.loads(args)
            except ValueError:
                pass
        msg["tool_calls"] = [{"id": "call_stub", "type": "function",
                              "function": {"name": name, "arguments": fargs}}]
    finish = "tool_calls" if args is not None and dialect != "ollama" else "stop"
    return {"id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
            "usage": {"prompt_tokens": u["in"], "completion_tokens": u["out"],
                      "total_tokens": u["in"] + u["out"]}}


def stream_events(api, entry, model, want_usage):
    """The SSE events ([(event name or None, data object or str)])."""
    text = entry.get("text") or ""
    args = tool_args_text(entry)
    dialect = entry.get("dialect", "")
    thinking = entry.get("thinking") or ""
    if api != "anthropic" and dialect == "llamacpp-text" and args is not None:
        text, args = text_tool_call(entry), None
    name = entry.get("tool_name", "propose_step")
    u = entry.get("usage", {"in": 11, "out": 7})
    n = entry.get("piece", 6)
    ev = []
    if api == "anthropic":
        ev.append(("message_start", {"type": "message_start", "message": {
            "id": "msg_stub", "type": "message", "role": "assistant", "content": [],
            "model": model, "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": u["in"], "output_tokens": 1}}}))
        idx = 0
        if thinking:
            ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "thinking", "thinking": ""}}))
            for p in pieces(thinking, n):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "thinking_delta", "thinking": p}}))
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
            idx += 1
        if text:
            ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "text", "text": ""}}))
            ev.append(("ping", {"type": "ping"}))
            for p in pieces(text, n):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "text_delta", "text": p}}))
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
            idx += 1
        if args is not None:
            ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                               "content_block": {"type": "tool_use", "id": "toolu_stub",
                                                                 "name": name, "input": {}}}))
            for p in pieces(args, n):
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                                   "delta": {"type": "input_json_delta", "partial_json": p}}))
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
        ev.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": "tool_use" if args is not None else "end_turn",
                                               "stop_sequence": None},
                                     "usage": {"output_tokens": u["out"]}}))
        ev.append(("message_stop", {"type": "message_stop"}))
        return ev

    def chunk(delta, finish=None):
        return (None, {"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                       "created": int(time.time()), "model": model,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    ev.append(chunk({"role": "assistant", "content": ""}))
    for p in pieces(thinking, n):
        ev.append(chunk({"reasoning_content": p}))
    for p in pieces(text, n):
        ev.append(chunk({"content": p}))
    if args is not None and dialect == "ollama":
        try:
            a = json.loads(args)
        except ValueError:
            a = args
        ev.append(chunk({"tool_calls": [{"id": "call_stub", "type": "function",
                                         "function": {"name": name, "arguments": a}}]}))
    elif args is not None:
        ev.append(chunk({"tool_calls": [{"index": 0, "id": "call_stub", "type": "function",
                                         "function": {"name": name, "arguments": ""}}]}))
        for p in pieces(args, n):
            ev.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}))
    finish = "tool_calls" if args is not None and dialect != "ollama" else "stop"
    ev.append(chunk({}, finish))
    if want_usage:
        ev.append((None, {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": model,
                          "choices": [], "usage": {"prompt_tokens": u["in"], "completion_tokens": u["out"],
                                                   "total_tokens": u["in"] + u["out"]}}))
    ev.append((None, "[DONE]"))
    return ev


def sse_text(event, data, crlf):
    nl = "\r\n" if crlf else "\n"
    s = ""
    if event:
        s += "event: " + event + nl
    payload = data if isinstance(data, str) else json.dumps(data)
    for line in payload.split("\n"):
        s += "data: " + line + nl
    return s + nl


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "argus-llm-stub/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _send_json(self, status, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_stub/log":
            with LOCK:
                log = list(LOG)
            self._send_json(200, log)
            return
        self._send_json(404, {"error": {"message": "stub: no such path " + self.path}})

    def do_POST(self):
        global SCRIPT
        body = self._read_body()
        if self.path == "/_stub/script":
            with LOCK:
                SCRIPT = json.loads(body or b"[]")
                LOG.clear()
            self._send_json(200, {"ok": True, "replies": len(SCRIPT)})
            return
        if self.path == "/_stub/quit":
            self._send_json(200, {"ok": True})
            threading.Thread(target=SERVER.shutdown, daemon=True).start()
            return
        rec = {"t": time.time(), "method": "POST", "path": self.path,
               "headers": {k: v for k, v in self.headers.items()},
               "body": body.decode("utf-8", "replace")}
        try:
            req = json.loads(body or b"{}")
        except ValueError:
            req = {}
        over = (MAX_PROMPT_BYTES and self.path.endswith("/chat/completions") and
                prompt_bytes(req) > MAX_PROMPT_BYTES)
        rec["prompt_bytes"] = prompt_bytes(req)
        with LOCK:
            LOG.append(rec)
            if LOGFILE:
                LOGFILE.write(json.dumps(rec) + "\n")
                LOGFILE.flush()
            entry = SCRIPT.pop(0) if SCRIPT and not over else None
        if over:
            # llama-server's answer (tools/server: exceed_context_size_error)
            self._send_json(400, {"error": {
                "code": 400,
                "message": "the request exceeds the available context size. "
                           "try increasing the context size or enable context shift",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": -(-prompt_bytes(req) // STUB_BYTES_PER_TOKEN),
                "n_ctx": MAX_PROMPT_BYTES // STUB_BYTES_PER_TOKEN}})
            return
        if self.path.endswith("/chat/completions"):
            api = "openai"
        elif self.path.endswith("/messages"):
            api = "anthropic"
        else:
            self._send_json(404, {"error": {"message": "stub: no such endpoint " + self.path}})
            return
        if entry is None:
            self._send_json(500, error_body(api, 500, "stub: no scripted reply left"))
            return
        api = entry.get("api", api)
        try:
            self._reply(api, entry, req)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _chunk(self, s):
        data = s.encode()
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def _reply(self, api, entry, req):
        if entry.get("delay_s"):
            time.sleep(float(entry["delay_s"]))
        if entry.get("close"):
            self.close_connection = True
            return
        status = int(entry.get("status", 200))
        headers = entry.get("headers", {})
        model = req.get("model", "stub-model")
        if "body" in entry or "json" in entry or status >= 400:
            if "body" in entry:
                data = entry["body"].encode()
            elif "json" in entry:
                data = json.dumps(entry["json"]).encode()
            else:
                data = json.dumps(error_body(api, status, entry.get("error", "stub error"))).encode()
            self.send_response(status)
            if not any(k.lower() == "content-type" for k in headers):
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, str(v))
            self.end_headers()
            self.wfile.write(data)
            return
        streaming = "chunks" in entry or req.get("stream") is True
        if not streaming:
            self._send_json(status, full_reply(api, entry, model), headers)
            return
        crlf = bool(entry.get("crlf"))
        if "chunks" in entry:
            chunks = list(entry["chunks"])
        else:
            want_usage = bool((req.get("stream_options") or {}).get("include_usage"))
            chunks = [sse_text(e, d, crlf) for e, d in stream_events(api, entry, model, want_usage)]
            if entry.get("comments"):
                chunks = [c for ch in chunks for c in (": keep-alive" + ("\r\n" if crlf else "\n"), ch)]
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in headers.items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.flush()
        cut = entry.get("cut_after")
        for i, c in enumerate(chunks):
            if cut is not None and i >= int(cut):
                self.close_connection = True  # no terminating chunk: a cut
                return
            self._chunk(c)
            if entry.get("chunk_delay_s"):
                time.sleep(float(entry["chunk_delay_s"]))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that went away (timeouts, cancels) is expected


def main():
    global SCRIPT, LOGFILE, SERVER, MAX_PROMPT_BYTES
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script")
    ap.add_argument("--log")
    ap.add_argument("--max-seconds", type=float, default=600,
                    help="stop by itself after this long (default 600)")
    ap.add_argument("--max-prompt-bytes", type=int, default=0,
                    help="answer prompts over N bytes as llama-server does (HTTP 400)")
    a = ap.parse_args()
    MAX_PROMPT_BYTES = a.max_prompt_bytes
    if a.script:
        with open(a.script) as f:
            SCRIPT = json.load(f)
    if a.log:
        LOGFILE = open(a.log, "a")
    SERVER = Server(("127.0.0.1", a.port), Handler)
    print(SERVER.server_address[1], flush=True)
    t = threading.Timer(a.max_seconds, SERVER.shutdown)
    t.daemon = True
    t.start()
    try:
        SERVER.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    SERVER.server_close()


if __name__ == "__main__":
    main()
