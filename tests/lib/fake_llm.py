#!/usr/bin/env python3
"""fake_llm.py: a scripted fake OpenAI-compatible chat server for askql's tests (python3 stdlib only).

Usage
-----
Start it on a free loopback port; it writes the port to --port-file once listening:

    python3 fake_llm.py --script s.json --requests req.jsonl --port-file port &
    PORT=$(cat port)      # poll until the file exists
    export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=http://127.0.0.1:$PORT/v1

A script is a JSON list of responses, replayed one per POST /v1/chat/completions, in order:

    [{"text": "<reasoning>..</reasoning><tool_call>..</tool_call>"},   # 200, chat completion
     {"status": 429, "body": {"error": {"message": "slow down"}},
      "headers": {"Retry-After": "0"}},                                 # any status + JSON/str body
     {"text": "...", "stream": true},                                   # SSE chunks, then [DONE]
     {"text": "...", "stream": true, "broken_stream": true},            # SSE chunks, no [DONE], closed
     {"text": "...", "delay_ms": 2000},                                 # waits before answering
     {"text": "...", "usage": {"prompt_tokens": 10, "completion_tokens": 5}}]

Fields: status (default 200), body (JSON value or string sent as-is) or text (the assistant
content, wrapped in a chat.completion with usage), delay_ms, stream, broken_stream, headers,
usage.  When the script runs out the server answers 500 {"error":{"message":"fake_llm: script
exhausted"}}.  A response {"repeat": true, ...} is never consumed (answers every later request).

Every request received is appended to --requests as one JSON line:
    {"n": 1, "path": "/v1/chat/completions", "headers": {...}, "body": {...parsed JSON...},
     "raw": "the body exactly as received"}
so tests can assert on the prompts sent (e.g. the retry block), on the Authorization header, and
on what never went out (tests/integration/27_llm_policy.sh searches raw and body for values).

Control endpoints (for one server shared by several tests):
    POST /__script    body: a JSON list (the new script) -> resets the position and the request log
    GET  /__requests  -> the recorded requests as a JSON list
    GET  /__health    -> 200 "ok"
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"script": [], "pos": 0, "n": 0, "requests": [], "log": None}


def next_response():
    with LOCK:
        script, pos = STATE["script"], STATE["pos"]
        if pos < len(script):
            r = script[pos]
            if not r.get("repeat"):
                STATE["pos"] = pos + 1
            return r
    return {"status": 500, "body": {"error": {"message": "fake_llm: script exhausted"}}}


def record(path, headers, body):
    with LOCK:
        STATE["n"] += 1
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        # raw: the bytes as they came, for tests that search every form a value could take
        entry = {"n": STATE["n"], "path": path, "headers": dict(headers), "body": parsed,
                 "raw": body.decode("utf-8", "replace") if body else ""}
        STATE["requests"].append(entry)
        if STATE["log"]:
            with open(STATE["log"], "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def completion(text, usage):
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": "fake", "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}],
        "usage": usage or {"prompt_tokens": 11, "completion_tokens": max(1, len(text) // 4),
                           "total_tokens": 11 + max(1, len(text) // 4)},
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def send_json(self, status, obj, headers=None):
        data = obj.encode() if isinstance(obj, str) else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/__requests":
            with LOCK:
                self.send_json(200, STATE["requests"])
        elif self.path == "/__health":
            self.send_json(200, "\"ok\"")
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.path == "/__script":
            with LOCK:
                STATE["script"] = json.loads(body)
                STATE["pos"] = 0
                STATE["requests"] = []
            self.send_json(200, {"ok": True})
            return
        record(self.path, self.headers, body)
        if not self.path.endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": "unknown path " + self.path}})
            return
        r = next_response()
        try:
            if r.get("delay_ms"):
                time.sleep(r["delay_ms"] / 1000.0)
            status = r.get("status", 200)
            if "body" in r:
                self.send_json(status, r["body"], r.get("headers"))
            elif r.get("stream"):
                self.stream(r)
            else:
                self.send_json(status, completion(r.get("text", ""), r.get("usage")), r.get("headers"))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def stream(self, r):
        text = r.get("text", "")
        self.send_response(r.get("status", 200))
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if r.get("broken_stream"):
            self.send_header("Connection", "close")
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = [text[i:i + 16] for i in range(0, len(text), 16)] or [""]
        if r.get("broken_stream"):
            # half of the text, then the connection drops without [DONE]
            for p in pieces[:max(1, len(pieces) // 2)]:
                ev = {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
                self.wfile.write(("data: " + json.dumps(ev) + "\n\n").encode())
                self.wfile.flush()
            self.close_connection = True
            return

        def chunk(data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        for p in pieces:
            ev = {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
            chunk(("data: " + json.dumps(ev) + "\n\n").encode())
        usage = r.get("usage") or {"prompt_tokens": 11, "completion_tokens": max(1, len(text) // 4)}
        chunk(("data: " + json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
               + "\n\n").encode())
        chunk(("data: " + json.dumps({"choices": [], "usage": usage}) + "\n\n").encode())
        chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    ap = argparse.ArgumentParser(description="scripted fake OpenAI-compatible server")
    ap.add_argument("--script", help="JSON file: list of responses")
    ap.add_argument("--requests", help="append received requests here (JSON lines)")
    ap.add_argument("--port", type=int, default=0, help="0: a free port")
    ap.add_argument("--port-file", help="write the port here once listening")
    a = ap.parse_args()
    if a.script:
        with open(a.script, encoding="utf-8") as f:
            STATE["script"] = json.load(f)
    STATE["log"] = a.requests
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(tmp, a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
