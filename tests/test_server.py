"""`cudalint server`: a real LSP exchange over stdio with the server in a child process
(initialize, didOpen, publishDiagnostics, hover, didSave, didClose, shutdown, exit)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

import pytest

from cudalint.findings import REPOSITORY_URL
from cudalint.registry import all_rules
from workflow_helpers import BUGGY, FIXED, KERNEL_LINE, MSG, work  # noqa: F401

TIMEOUT = 120


class Client:
    def __init__(self, cwd, *args):
        env = {**os.environ, "NO_COLOR": "1"}
        env.pop("CUDALINT_CACHE_DIR", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "cudalint", "server", *args], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.ids = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, msg):
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params):
        self.ids += 1
        self.send({"id": self.ids, "method": method, "params": params})
        while True:
            msg = self.next()
            if msg.get("id") == self.ids:
                return msg

    def next(self):
        msg = self.inbox.get(timeout=TIMEOUT)
        assert msg is not None, self.proc.stderr.read().decode()
        return msg

    def diagnostics(self):
        while True:
            msg = self.next()
            if msg.get("method") == "textDocument/publishDiagnostics":
                return msg["params"]


@pytest.fixture
def client(work):
    c = Client(work, "--cuda-mode", "shim", "--no-cache")
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait()


def _init(client, work, encodings=None):
    caps = {"general": {"positionEncodings": encodings}} if encodings else {}
    reply = client.request("initialize", {"processId": os.getpid(), "rootUri": work.as_uri(), "capabilities": caps})
    client.notify("initialized", {})
    return reply["result"]


def test_diagnostics_hover_save_close_and_exit(work, client):
    src = work / "bug.cu"
    src.write_text(BUGGY)
    uri = src.as_uri()
    result = _init(client, work)
    assert result["capabilities"]["positionEncoding"] == "utf-16"
    assert result["capabilities"]["hoverProvider"] is True
    assert result["serverInfo"]["name"] == "cudalint"

    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda-cpp", "version": 1,
                                                            "text": BUGGY}})
    params = client.diagnostics()
    assert params == {"uri": uri, "diagnostics": [{
        "range": {"start": {"line": 1, "character": 13}, "end": {"line": 1, "character": 63}},
        "severity": 1, "code": "CUDA101", "source": "cudalint", "message": MSG.format(launch=8),
        "codeDescription": {"href": f"{REPOSITORY_URL}/blob/main/rules/misaligned_vector_access.py"},
        "relatedInformation": [{"location": {"uri": uri, "range": {"start": {"line": 0, "character": 18},
                                                                   "end": {"line": 0, "character": 18}}},
                                "message": "`in` declared here"}]}]}

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 20}})
    doc = all_rules()["CUDA101"].doc
    assert hover["result"] == {"contents": {"kind": "markdown", "value": f"**CUDA101 misaligned-vector-access**\n\n{doc}"},
                               "range": params["diagnostics"][0]["range"]}
    nothing = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 2}})
    assert nothing["result"] is None

    src.write_text(FIXED)
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.diagnostics() == {"uri": uri, "diagnostics": []}

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics() == {"uri": uri, "diagnostics": []}
    assert client.request("shutdown", None)["result"] is None
    client.notify("exit", None)
    assert client.proc.wait(timeout=TIMEOUT) == 0


@pytest.mark.parametrize("encodings, character", [(None, "utf16"), (["utf-32", "utf-16"], "utf32")])
def test_positions_in_utf16_or_code_points(work, client, encodings, character):
    line = "  /* 𝜋 ü */" + KERNEL_LINE[1:]  # 𝜋 is one code point, two UTF-16 units
    (work / "wide.cu").write_text(BUGGY.replace(KERNEL_LINE, line), encoding="utf-8")
    result = _init(client, work, encodings)
    assert result["capabilities"]["positionEncoding"] == ("utf-32" if character == "utf32" else "utf-16")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": (work / "wide.cu").as_uri(), "languageId": "cuda-cpp",
                                                            "version": 1, "text": ""}})
    [diag] = client.diagnostics()["diagnostics"]
    col = line.index("*reinterpret_cast")  # 0-based, code points
    assert diag["range"]["start"] == {"line": 1, "character": col + (1 if character == "utf16" else 0)}


def test_config_and_suppressions_apply(work, client):
    (work / "cudalint.toml").write_text('ignore = ["CUDA101"]\n')
    (work / "bug.cu").write_text(BUGGY)
    _init(client, work)
    client.notify("textDocument/didOpen", {"textDocument": {"uri": (work / "bug.cu").as_uri(), "languageId": "cuda-cpp",
                                                            "version": 1, "text": BUGGY}})
    assert client.diagnostics()["diagnostics"] == []
    reply = client.request("textDocument/definition", {"textDocument": {"uri": (work / "bug.cu").as_uri()},
                                                       "position": {"line": 0, "character": 0}})
    assert reply["error"]["code"] == -32601  # unsupported requests get an error, the server goes on
    assert client.request("shutdown", None)["result"] is None
