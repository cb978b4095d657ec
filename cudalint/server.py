"""`cudalint server`: a Language Server (LSP 3.17, JSON-RPC over stdio) for editors.

On open and on save it checks the file as `cudalint --output-format json FILE` would (same config
discovery, suppressions and codes: it runs exactly that, in a child process, so a crash in
libclang never takes the editor's server down) and publishes the findings as diagnostics: code
and a link to the rule's documentation, severity, the related locations, and for a finding in a
header the file includes, diagnostics on that header. Hovering a diagnostic shows the rule's
documentation (`cudalint rule CODE`). Arguments after `server` are passed to each check
(`cudalint server --cuda-mode shim -p build`). Positions are UTF-16 code units unless the client
offers `utf-32` (code points, which is what cudalint's columns are).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

_SEVERITY = {"error": 1, "warning": 2, "note": 3}


def uri_to_path(uri: str) -> str:
    return unquote(urlparse(uri).path)


def path_to_uri(path: str) -> str:
    return Path(os.path.abspath(path)).as_uri()


class Server:
    def __init__(self, reader, writer, check_args: list[str]):
        self.reader, self.writer = reader, writer
        self.check_args = check_args
        self.utf32 = False
        self.root: str | None = None
        self.published: dict[str, list] = {}  # uri -> (diagnostic, finding) pairs last sent
        self.owned: dict[str, set] = {}  # uri of a checked file -> uris its check published to
        self.shutdown = False

    # ------------------------------------------------------------------ JSON-RPC framing

    def read(self) -> dict | None:
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            return None
        return json.loads(self.reader.read(length).decode("utf-8"))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False).encode("utf-8")
        self.writer.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.writer.flush()

    def notify(self, method: str, params) -> None:
        self.send({"method": method, "params": params})

    # ------------------------------------------------------------------ the loop

    def serve(self) -> int:
        while True:
            msg = self.read()
            if msg is None:
                return 1  # the client went away without `exit`
            method, mid = msg.get("method"), msg.get("id")
            if method == "exit":
                return 0 if self.shutdown else 1
            handler = getattr(self, "on_" + (method or "").replace("/", "_").replace("$", "S"), None)
            if handler is None:
                if mid is not None:
                    self.send({"id": mid, "error": {"code": -32601, "message": f"method not found: {method}"}})
                continue
            try:
                result = handler(msg.get("params") or {})
            except Exception as exc:  # report, keep serving
                if mid is not None:
                    self.send({"id": mid, "error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}})
                continue
            if mid is not None:
                self.send({"id": mid, "result": result})

    # ------------------------------------------------------------------ requests and notifications

    def on_initialize(self, params):
        offered = (params.get("capabilities") or {}).get("general", {}).get("positionEncodings") or []
        self.utf32 = "utf-32" in offered
        if params.get("rootUri"):
            self.root = uri_to_path(params["rootUri"])
        from cudalint import __version__
        return {"capabilities": {
                    "positionEncoding": "utf-32" if self.utf32 else "utf-16",
                    "textDocumentSync": {"openClose": True, "change": 0, "save": {"includeText": False}},
                    "hoverProvider": True},
                "serverInfo": {"name": "cudalint", "version": __version__}}

    def on_initialized(self, params):
        return None

    def on_shutdown(self, params):
        self.shutdown = True
        return None

    def on_textDocument_didOpen(self, params):
        self.check(params["textDocument"]["uri"])

    def on_textDocument_didSave(self, params):
        self.check(params["textDocument"]["uri"])

    def on_textDocument_didChange(self, params):
        return None  # checked on save: cudalint reads files, not buffers

    def on_textDocument_didClose(self, params):
        uri = params["textDocument"]["uri"]
        for target in self.owned.pop(uri, {uri}):
            self.published.pop(target, None)
            self.notify("textDocument/publishDiagnostics", {"uri": target, "diagnostics": []})

    def on_textDocument_hover(self, params):
        from cudalint.registry import all_rules
        uri, pos = params["textDocument"]["uri"], params["position"]
        for diag, f in self.published.get(uri, []):
            start, end = diag["range"]["start"], diag["range"]["end"]
            if (start["line"], start["character"]) <= (pos["line"], pos["character"]) <= (end["line"], end["character"]):
                rule = all_rules().get(f["rule"])
                doc = rule.doc if rule else f["message"]
                return {"contents": {"kind": "markdown", "value": f"**{f['rule']} {f['name']}**\n\n{doc}"},
                        "range": diag["range"]}
        return None

    # ------------------------------------------------------------------ checking

    def check(self, uri: str) -> None:
        path = uri_to_path(uri)
        cmd = [sys.executable, "-m", "cudalint", "--output-format", "json", "--no-progress", "--exit-zero",
               *self.check_args, path]
        proc = subprocess.run(cmd, cwd=self.root or os.path.dirname(path), capture_output=True, text=True)
        try:
            findings = json.loads(proc.stdout) if proc.stdout.strip() else []
        except ValueError:
            findings = []
        if proc.returncode != 0 and not findings:
            self.notify("window/logMessage", {"type": 1, "message": f"cudalint: {proc.stderr.strip()}"})
        by_uri: dict[str, list] = {uri: []}
        for f in findings:
            target = uri if os.path.realpath(self._abs(f["path"])) == os.path.realpath(path) else path_to_uri(self._abs(f["path"]))
            by_uri.setdefault(target, []).append(f)
        for stale in self.owned.get(uri, set()) - set(by_uri):
            self.published.pop(stale, None)
            self.notify("textDocument/publishDiagnostics", {"uri": stale, "diagnostics": []})
        self.owned[uri] = set(by_uri)
        for target, fs in by_uri.items():
            pairs = [(self.diagnostic(f), f) for f in fs]
            self.published[target] = pairs
            self.notify("textDocument/publishDiagnostics", {"uri": target, "diagnostics": [d for d, _ in pairs]})

    def _abs(self, path: str) -> str:
        return path if os.path.isabs(path) else os.path.join(self.root or os.getcwd(), path)

    def position(self, path: str, line: int, column: int) -> dict:
        """LSP position (0-based) of a 1-based line and code-point column."""
        char = max(column, 1) - 1
        if not self.utf32 and char:
            text = _line(path, line)
            char = sum(2 if ord(ch) > 0xFFFF else 1 for ch in text[:char]) + max(0, char - len(text))
        return {"line": max(line, 1) - 1, "character": char}

    def diagnostic(self, f: dict) -> dict:
        from cudalint.registry import all_rules
        path = self._abs(f["path"])
        start = self.position(path, f["line"], f["column"])
        end = self.position(path, f["end_line"] or f["line"], f["end_column"] or f["column"] + 1)
        diag = {"range": {"start": start, "end": end}, "severity": _SEVERITY.get(f["severity"], 2),
                "code": f["rule"], "source": "cudalint", "message": f["message"]}
        rule = all_rules().get(f["rule"])
        if rule is not None:
            diag["codeDescription"] = {"href": rule.doc_url}
        if f.get("related"):
            diag["relatedInformation"] = [{
                "location": {"uri": path_to_uri(self._abs(r["path"])),
                             "range": {"start": (p := self.position(self._abs(r["path"]), r["line"], r["column"])),
                                       "end": p}},
                "message": r["message"]} for r in f["related"]]
        return diag


def _line(path: str, line: int) -> str:
    from cudalint.columns import source_lines
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as fh:
            lines = source_lines(fh.read())
    except OSError:
        return ""
    return lines[line - 1] if 0 < line <= len(lines) else ""


def main(argv: list[str]) -> int:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    return Server(sys.stdin.buffer, sys.stdout.buffer, list(argv)).serve()
