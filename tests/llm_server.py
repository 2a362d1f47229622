"""A local OpenAI-compatible HTTP server returning scripted responses, for the real client."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict:
    """A scripted tool call (arguments as a dict, or raw text to test malformed JSON)."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": call_id or f"call_{name}",
        "type": "function",
        "function": {"name": name, "arguments": args},
    }


@dataclass
class ScriptedLLM:
    """Serves /v1/chat/completions from a queue of scripted replies; records every request.

    A reply is a dict with `content` and/or `tool_calls`, or `status` (an HTTP error), or
    `delay` (seconds to wait first, to test time-outs), or `hold` (a threading.Event the reply
    waits for: a slow call that a test releases when it has seen what it wanted meanwhile).
    `received` is set once a request has arrived.
    """

    replies: deque = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    received: threading.Event = field(default_factory=threading.Event)

    def script(self, *replies: dict[str, Any]) -> None:
        self.replies.extend(replies)

    def serve(self) -> ThreadingHTTPServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(body)
                reply = owner.replies.popleft() if owner.replies else {"status": 500}
                owner.received.set()
                time.sleep(reply.get("delay", 0))
                if "hold" in reply:
                    reply["hold"].wait()
                if "status" in reply:
                    self._send(reply["status"], {"error": {"message": "scripted failure"}})
                    return
                message = {"role": "assistant", "content": reply.get("content")}
                if reply.get("tool_calls"):
                    message["tool_calls"] = reply["tool_calls"]
                finish = "tool_calls" if reply.get("tool_calls") else "stop"
                self._send(
                    200,
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "test"),
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server
