"""A content-keyed cache of per-file results, so a re-run over unchanged files does no parsing.

Key: sha256 of the file's content, its path (as given, and resolved), the current directory, the
full clang argument list for the file, the settings, cudalint's version and a stamp of its code,
and the libclang version. An entry also records every header libclang included
(`TranslationUnit.get_includes()`) with its mtime, size and sha256; a header whose content changed
makes the entry miss. Nothing depends on file times alone (the stamp of cudalint's code hashes
contents too), so a cache restored on CI into a fresh checkout and a fresh install still hits:
checkouts and installs give every file a new mtime.

Location: `$CUDALINT_CACHE_DIR`, else `.cudalint_cache/` in the current directory; entries live
under `<dir>/<cudalint version>/`. The directory gets a `CACHEDIR.TAG` and a `.gitignore` of `*`.
Writes are atomic (temporary file, then rename), so parallel runs (pre-commit) do not collide.
Entries are JSON, never pickle: a cache directory committed to a repository must not run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from cudalint import __version__
from cudalint.diagnostics import Diagnostic
from cudalint.findings import Confirmation, Finding, Related

ENTRY_VERSION = 6  # 2: diagnostics carry a kind; 3: launch facts; 4: headers' sha256; 5: typed witnesses;
# 6: deferred results (a file's launches, its rules not run: cudalint.engine.analyze_file)
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cudalint.\n"


def default_dir() -> Path:
    return Path(os.environ.get("CUDALINT_CACHE_DIR") or ".cudalint_cache")


@lru_cache(maxsize=None)
def code_stamp() -> str:
    """Names and contents of cudalint's Python files and headers, rules included: a rule edited in
    a development checkout invalidates the cache even though the version did not change."""
    import cudalint
    from cudalint.registry import rules_package  # rules/ in a source checkout not installed
    h = hashlib.sha256()
    roots = [Path(cudalint.__file__).parent, *map(Path, rules_package().__path__)]
    for root in roots:
        for p in sorted(_code_files(root)):
            h.update(f"{p.relative_to(root)}\0".encode())
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def _code_files(root: Path) -> list[Path]:
    """The Python files and headers under `root` (os.walk: half the time of Path.rglob)."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [d for d in subfolders if d != "__pycache__"]
        found += [Path(folder, n) for n in names if n.endswith((".py", ".h", ".cuh"))]
    return found


@lru_cache(maxsize=None)
def libclang_version() -> str:
    """`dist==version` of the clang bindings installed, from the name of their `.dist-info` folder
    on sys.path, where importlib.metadata finds them too: importing it took a tenth of a cached
    run. importlib.metadata still answers for other layouts (egg-info, zipped)."""
    for dist in ("libclang-ng", "libclang", "clang"):
        version = _dist_info_version(dist)
        if version:
            return f"{dist}=={version}"
    from importlib import metadata
    for dist in ("libclang-ng", "libclang", "clang"):
        try:
            return f"{dist}=={metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def _dist_info_version(dist: str) -> str | None:
    """The version in `<dist>-<version>.dist-info` (the name with `_` for `-`, any case) in the
    first sys.path folder that has one."""
    prefix = dist.replace("-", "_").lower() + "-"
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.lower().startswith(prefix) and name.endswith(".dist-info"):
                return name[len(prefix):-len(".dist-info")]
    return None


def _stat(path: str):
    """[mtime, size, sha256] of a file, or None when it cannot be read."""
    try:
        st = os.stat(path)
        return [st.st_mtime_ns, st.st_size, _digest(path, st.st_mtime_ns, st.st_size)]
    except OSError:
        return None


@lru_cache(maxsize=4096)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    """sha256 of a file, once per run for each (path, mtime, size): headers are shared."""
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def _unchanged(path: str, stamp) -> bool:
    """Whether a header still has the content it had: equal mtime and size, or equal size and
    sha256 (a fresh checkout or restored cache gives files new times, not new contents)."""
    try:
        st = os.stat(path)
        mtime, size, digest = stamp
        if st.st_size != size:
            return False
        return st.st_mtime_ns == mtime or _digest(path, st.st_mtime_ns, st.st_size) == digest
    except (OSError, ValueError, TypeError):
        return False


class Cache:
    def __init__(self, directory: str | os.PathLike | None = None):
        self.root = Path(directory) if directory else default_dir()
        self.dir = self.root / __version__
        self.hits = self.misses = 0
        self._ready = False

    # -- keys

    def key(self, path: str, settings) -> str | None:
        """The entry key for `path`, or None when the file cannot be read (no caching)."""
        from cudalint.frontend.flags import file_args, resolve_mode
        try:
            with open(path, "rb") as fh:
                content = fh.read()
        except OSError:
            return None
        try:
            mode, root = resolve_mode(settings)
            args = file_args(settings, path, mode, root)
        except ValueError:
            return None
        h = hashlib.sha256()
        for part in (__version__, code_stamp(), libclang_version(), os.getcwd(), path, os.path.realpath(path),
                     mode, root or "", "\x1f".join(args), repr(settings)):
            h.update(part.encode("utf-8", "surrogateescape"))
            h.update(b"\0")
        h.update(hashlib.sha256(content).digest())
        return h.hexdigest()

    def _file(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    # -- reading and writing

    def get(self, key: str | None):
        """The cached FileResult, or None (missing, unreadable, or a header changed)."""
        if key is None:
            return None
        try:
            with open(self._file(key), encoding="utf-8") as fh:
                data = json.load(fh)
            if data.get("v") != ENTRY_VERSION:
                raise ValueError
            for dep, stamp in data["deps"]:
                if not _unchanged(dep, stamp):
                    raise ValueError
            result = _result_from(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            self.misses += 1
            return None
        self.hits += 1
        return result

    def put(self, key: str | None, result) -> None:
        if key is None or any(d.kind in ("crash", "budget") for d in result.diagnostics):
            return  # a crash may be fixed and a budget met on the next run: analyse it again
        deps = [[p, s] for p in result.includes if (s := _stat(p)) is not None]
        data = {"v": ENTRY_VERSION, "deps": deps, "result": _result_to(result)}
        target = self._file(key)
        try:
            self._init()
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only checkout still lints; it just does not cache

    def _init(self):
        if self._ready:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", _TAG), (".gitignore", "# created by cudalint\n*\n")):
            p = self.root / name
            if not p.exists():
                p.write_text(text, encoding="utf-8")
        self._ready = True


# ---------------------------------------------------------------------------- (de)serialising


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def _finding_to(f: Finding) -> dict:
    d = f.to_dict()
    d["properties"] = [list(p) for p in f.properties]
    return d


def _finding_from(d: dict) -> Finding:
    d = dict(d)
    d["related"] = tuple(Related(**r) for r in d["related"])
    d["confirmation"] = Confirmation(**d["confirmation"]) if d["confirmation"] else None
    d["properties"] = _tuples(d.get("properties", []))
    return Finding(**d)


def _result_to(r) -> dict:
    return {"path": r.path, "findings": [_finding_to(f) for f in r.findings],
            "diagnostics": [asdict(d) for d in r.diagnostics], "notes": list(r.notes),
            "seconds": r.seconds, "kernels": r.kernels, "includes": list(r.includes),
            "launch_facts": [asdict(f) for f in r.launch_facts], "guessed_kernels": list(r.guessed_kernels),
            "deferred": r.deferred}


def _result_from(d: dict):
    from cudalint.engine import FileResult
    from cudalint.launch_index import LaunchFact
    facts = tuple(LaunchFact(**{k: _tuples(v) for k, v in f.items()}) for f in d["launch_facts"])
    return FileResult(d["path"], [_finding_from(f) for f in d["findings"]],
                      [Diagnostic(**x) for x in d["diagnostics"]], list(d["notes"]), d["seconds"],
                      d["kernels"], tuple(d["includes"]), cached=True, launch_facts=facts,
                      guessed_kernels=tuple(d["guessed_kernels"]), deferred=d["deferred"])
