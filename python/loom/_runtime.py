"""Whether this process runs Loom on an older C++ runtime than the one it was built with.

libloom and the module need the libstdc++ of the compiler that built them (loom/_build_info.py
records it). A process has one libstdc++.so.6: when an extension imported earlier (NumPy,
SciPy, PyTorch wheels) brought an older one, Loom runs on that one, and code of the newer
compiler can crash on it (seen: a segfault in libloom's std::ostringstream on a GPU machine).
Importing loom then warns, naming the fix; python/tools/diagnose_runtime.py tells more.
"""

import os
import re
import warnings


def mapped_libstdcxx():
    """The libstdc++ files mapped in this process (real paths; empty where /proc is missing)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[5] for line in maps if "libstdc++" in line and len(line.split()) > 5}
    except OSError:
        return []
    return sorted(os.path.realpath(p) for p in paths)


def runtime_version(path):
    """N of a libstdc++.so.6.0.N file name (None for any other name)."""
    match = re.search(r"libstdc\+\+\.so\.6\.0\.(\d+)$", path)
    return int(match.group(1)) if match else None


def older_runtime(built_with, mapped):
    """A warning text when a mapped libstdc++ is older than `built_with`, else None."""
    built = runtime_version(built_with or "")
    if built is None:
        return None
    older = [p for p in mapped if (runtime_version(p) or built) < built]
    if not older:
        return None
    return (f"loom was built with {built_with} but this process runs on the older "
            f"{', '.join(older)}, loaded first by another extension; Loom may crash. Start "
            f"Python with LD_PRELOAD={built_with} (or import loom first), or build Loom with "
            "the system compiler. python/tools/diagnose_runtime.py shows the details.")


def check():
    try:
        from . import _build_info
    except ImportError:  # a build without the generated file
        return
    text = older_runtime(_build_info.libstdcxx, mapped_libstdcxx())
    if text:
        warnings.warn(text, RuntimeWarning, stacklevel=3)
