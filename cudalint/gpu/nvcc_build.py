"""nvcc for the kernels NVRTC cannot compile (``--confirm``'s second compiler).

NVRTC has no C++ library, and the device-only view drops host code, so a kernel file whose
headers use ``std::string`` or ``std::pair``, or whose kernels read a table that host code defines,
does not compile there. Where nvcc is on the machine, the child builds the same lines with host
code kept (cudalint.gpu.views.device_view with ``keep_host``) to PTX, as the user's build would,
and loads that. CuPy's own nvcc backend takes no name expressions, so the kernel is found among
the PTX's entries by its demangled name.

Standard library only: the child (cudalint.gpu.child, run by path) imports this as a sibling.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

_ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\(")
# What real builds pass for code that calls constexpr host functions (`std::numeric_limits<T>::max()`)
# or uses device lambdas; harmless where nothing needs them
PERMISSIVE = ["--expt-relaxed-constexpr", "--extended-lambda"]


def nvcc_options(nvrtc_options) -> list[str]:
    """NVRTC's options as nvcc spells them (`--std=c++17` is `-std=c++17`; the rest are shared)."""
    return [o.replace("--std=", "-std=", 1) if o.startswith("--std=") else o for o in nvrtc_options]


def build_ptx(nvcc: str, code: str, options, arch: str, workdir: str, timeout: float = 300) -> tuple[str | None, str]:
    """(path of the PTX nvcc made of `code`, "") or (None, nvcc's messages)."""
    src, out = os.path.join(workdir, "kernel.cu"), os.path.join(workdir, "kernel.ptx")
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(code)
    cmd = [nvcc, "-ptx", f"-arch=compute_{arch}", *PERMISSIVE, *nvcc_options(options), "-o", out, src]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"nvcc did not run: {exc}"
    if r.returncode != 0 or not os.path.exists(out):
        return None, (r.stdout + r.stderr).strip()
    return out, ""


def entries(ptx_text: str) -> list[str]:
    return _ENTRY.findall(ptx_text)


def demangle(names, nvcc: str) -> list[str]:
    """The names as C++ spells them, through the toolkit's cu++filt (else c++filt); unchanged where
    neither is there."""
    filt = os.path.join(os.path.dirname(nvcc), "cu++filt")
    filt = filt if os.path.exists(filt) else shutil.which("c++filt")
    if not filt or not names:
        return list(names)
    try:
        r = subprocess.run([filt], input="\n".join(names) + "\n", capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return list(names)
    out = r.stdout.split("\n")[:len(names)]
    return out if len(out) == len(names) else list(names)


def _callee(signature: str) -> str:
    """`reduce<256>` of `void reduce<256>(float*, int)`: the name before its parameter list (at
    template depth 0), without the return type, spaces removed."""
    depth = 0
    for i, ch in enumerate(signature):
        depth += (ch == "<") - (ch == ">")
        if ch == "(" and depth == 0:
            signature = signature[:i]
            break
    head = signature.strip()
    if head.startswith("void "):
        head = head[len("void "):]
    return head.replace(" ", "")


def _parameter_count(signature: str) -> int | None:
    """How many parameters `void k<2>(float*, pair<int, int>)` takes (2), else None."""
    depth, start = 0, None
    for i, ch in enumerate(signature):
        if ch == "(" and depth == 0 and start is None:
            start = i + 1
        elif ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
            if depth < 0 and start is not None:
                inner = signature[start:i].strip()
                if not inner or inner == "void":
                    return 0
                level, count = 0, 1
                for c in inner:
                    level += (c in "<(") - (c in ">)")
                    count += c == "," and level == 0
                return count
    return None


def entry_for(kernel: str, mangled: list[str], demangled: list[str], params: int | None = None) -> str | None:
    """The PTX entry of `kernel` (its name as the plan writes it, `reduce<256>`, `ns::k`): the entry
    whose demangled name is it (or ends in `::` it); else the only entry with its base name. Of
    overloads, the one taking `params` parameters."""
    want = kernel.replace(" ", "")
    names = [_callee(d) for d in demangled]
    counts = dict(zip(mangled, (_parameter_count(d) for d in demangled)))

    def one(found):
        if len(found) > 1 and params is not None:
            found = [m for m in found if counts[m] == params]
        return found[0] if len(found) == 1 else None
    exact = [m for m, n in zip(mangled, names) if n == want or n.endswith("::" + want)]
    if exact:
        return one(exact)
    base = want.split("<", 1)[0].rsplit("::", 1)[-1]
    return one([m for m, n in zip(mangled, names) if n.split("<", 1)[0].rsplit("::", 1)[-1] == base])
