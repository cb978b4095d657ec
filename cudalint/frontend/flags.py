"""The clang command line for a CUDA file: shim or toolkit mode, and nvcc flags translated."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from functools import lru_cache
from pathlib import Path

from cudalint.frontend import clang as cx
from cudalint.settings import Settings

SHIM_DIR = Path(__file__).resolve().parent.parent / "shim"
COMPAT_DIR = Path(__file__).resolve().parent / "compat"
BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"  # for a libclang without clang's own headers
# Clang accepts newer arches than it supports for parsing only up to here; the AST is the same.
DEFAULT_ARCH = "sm_80"
_KNOWN_ARCHES = {"sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75",
                 "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120"}


@lru_cache(maxsize=None)
def find_toolkit(explicit: str | None) -> str | None:
    """The CUDA toolkit root: --cuda-path, $CUDA_PATH, nvcc on PATH, /usr/local/cuda."""
    candidates = [explicit, os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME")]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(str(Path(nvcc).resolve().parent.parent))
    candidates.append("/usr/local/cuda")
    for c in candidates:
        if c and (Path(c) / "include" / "cuda_runtime.h").is_file():
            return str(Path(c))
    return None


def resolve_mode(settings: Settings) -> tuple[str, str | None]:
    """('shim', None) or ('toolkit', root). `auto` takes the toolkit when there is one."""
    if settings.cuda_mode == "shim":
        return "shim", None
    if not cx.resource_headers()[1]:  # the toolkit's headers need clang's CUDA wrappers
        if settings.cuda_mode == "toolkit":
            raise ValueError("--cuda-mode toolkit: this libclang has no CUDA wrapper headers (the `libclang` "
                             "package lacks clang's resource directory); install libclang-ng, or use --cuda-mode shim")
        return "shim", None
    root = find_toolkit(settings.cuda_path)
    if settings.cuda_mode == "toolkit" and root is None:
        raise ValueError("--cuda-mode toolkit: no CUDA toolkit found (set --cuda-path or CUDA_PATH)")
    return ("toolkit", root) if root else ("shim", None)


def base_args(mode: str, root: str | None, std: str = "c++17", arch: str = DEFAULT_ARCH) -> list[str]:
    args = ["-x", "cuda", "--cuda-host-only", f"-std={std}", f"--cuda-gpu-arch={arch}",
            "-Wno-unknown-cuda-version", "-Wno-unused-command-line-argument", "-ferror-limit=0"]
    if not cx.resource_headers()[0]:
        args += ["-isystem", str(BUILTIN_DIR)]
    if mode == "shim":
        shim = str(SHIM_DIR)
        return args + ["-nocudainc", "-nocudalib", f"--cuda-path={shim}", "-isystem", shim,
                       "-include", "cudalint_shim.h", "-idirafter", str(COMPAT_DIR)]
    return args + [f"--cuda-path={root}", *_cccl_include(root), "-idirafter", str(COMPAT_DIR),
                   "-include", str(COMPAT_DIR / "host_minmax.h")]


def _cccl_include(root: str | None) -> list[str]:
    """CUDA 13 moved libcu++, CUB and Thrust to include/cccl; nvcc searches it, clang does not."""
    cccl = Path(root or "") / "include" / "cccl"
    return ["-isystem", str(cccl)] if root and cccl.is_dir() else []


@lru_cache(maxsize=None)
def toolkit_version(root: str | None) -> str | None:
    """'13.0' from the toolkit's cuda_runtime_api.h (CUDART_VERSION 13000), else None."""
    try:
        text = (Path(root or "") / "include" / "cuda_runtime_api.h").read_text(errors="replace")
    except OSError:
        return None
    m = re.search(r"#define\s+CUDART_VERSION\s+(\d+)", text)
    return f"{int(m.group(1)) // 1000}.{int(m.group(1)) % 1000 // 10}" if m else None


def file_args(settings: Settings, path: str, mode: str, root: str | None) -> list[str]:
    """Full argument list for one file: base flags, compile database entry, user flags."""
    db_args, std, arch = [], settings.std, DEFAULT_ARCH
    if settings.compile_commands_dir:
        entry = compile_database(settings.compile_commands_dir).get(os.path.realpath(path))
        if entry:
            db_args, db_std, db_arch = entry
            std, arch = db_std or std, db_arch or arch
    args = base_args(mode, root, std, arch) + db_args
    args += [f"-I{d}" for d in settings.include_dirs]
    args += [f"-D{d}" for d in settings.defines]
    return args + list(settings.extra_args)


@lru_cache(maxsize=None)
def compile_database(build_dir: str) -> dict[str, tuple[list[str], str | None, str | None]]:
    """realpath(file) -> (clang flags, std, arch) from BUILD_DIR/compile_commands.json."""
    path = Path(build_dir) / "compile_commands.json"
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read compile database: {exc}") from None
    out = {}
    for e in entries:
        words = e.get("arguments") or shlex.split(e.get("command", ""))
        directory = e.get("directory", build_dir)
        file = os.path.realpath(os.path.join(directory, e.get("file", "")))
        out[file] = translate_nvcc(words[1:], directory)
    return out


# nvcc options that take a value and mean nothing to a parse.
_DROP_WITH_VALUE = {"-ccbin", "--compiler-bindir", "-o", "--output-file", "-Xcompiler",
                    "--compiler-options", "-Xptxas", "-Xlinker", "-Xnvlink", "-maxrregcount",
                    "--maxrregcount", "-t", "--threads", "-MF", "-MT", "-MQ", "--diag-suppress",
                    "-diag-suppress", "--generate-line-info-file", "-Xfatbin", "-Xarchive",
                    "--ptxas-options", "--linker-options", "-split-compile", "--split-compile"}
_DROP = {"-c", "-rdc=true", "-rdc=false", "-rdc", "--relocatable-device-code=true",
         "--relocatable-device-code=false", "-dc", "-lineinfo", "--generate-line-info", "-G",
         "-g", "--use_fast_math", "-use_fast_math", "--expt-relaxed-constexpr",
         "--expt-extended-lambda", "--extended-lambda", "-extended-lambda", "-MD", "-MMD",
         "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler",
         "-Werror", "-w", "-x", "cu", "-cuda", "--cuda", "-src-in-ptx", "-restrict"}


def translate_nvcc(words: list[str], directory: str) -> tuple[list[str], str | None, str | None]:
    """nvcc (or clang) flags -> (clang parse flags, std, arch). Unknown flags are dropped."""
    out, std, arch = [], None, None
    it = iter(words)
    for w in it:
        if w in _DROP_WITH_VALUE:
            next(it, None)
            continue
        if w in _DROP or w.endswith((".cu", ".cpp", ".cc", ".o", ".obj")):
            continue
        if w in ("-I", "-isystem", "-D", "-U", "-include"):
            val = next(it, "")
            if w == "-I" or w == "-isystem":
                val = os.path.join(directory, val)
            out += [w, val]
        elif w.startswith("-I"):
            out.append("-I" + os.path.join(directory, w[2:]))
        elif w.startswith(("-D", "-U")):
            out.append(w)
        elif w.startswith(("-std=", "--std=")):
            std = w.split("=", 1)[1]
        elif w.startswith(("-arch=", "--gpu-architecture=", "-gencode", "--generate-code")):
            if w in ("-gencode", "--generate-code"):
                w = next(it, "")
            arch = _arch_from(w) or arch
        elif w in ("-arch", "--gpu-architecture"):
            arch = _arch_from(next(it, "")) or arch
    return out, std, arch


def _arch_from(text: str) -> str | None:
    """'-gencode arch=compute_90,code=sm_90' / '-arch=sm_86' / 'native' -> a parse arch."""
    for part in text.replace("=", ",").split(","):
        part = part.strip("[]' ")
        if part.startswith(("sm_", "compute_")):
            sm = "sm_" + part.split("_", 1)[1]
            return sm if sm in _KNOWN_ARCHES and sm not in ("sm_100", "sm_120") else "sm_90"
    return None
