#!/usr/bin/env python3
"""Which C++ runtime (libstdc++, libgcc_s) the Loom Python module runs on, and whether that
is the one libloom was built with.

    PYTHONPATH=build/release/python python3 python/tools/diagnose_runtime.py [--with torch cupy]

Written for a crash seen on a GPU machine: python tests segfaulted inside libloom's
std::ostringstream (SolveResult::message) while the C++ tests calling it passed. The cause:
two C++ runtimes in one process, there libloom's and the module's static libstdc++ whose
STB_GNU_UNIQUE symbols (locale ids) were merged with those of the shared libstdc++ that SciPy
brought in (fixed by linking them with -Wl,--exclude-libs,ALL). The same can happen with an
older shared libstdc++ loaded first by another extension. The script

  1. imports numpy, scipy, (torch, cupy with --with), loom one after another and prints the
     libstdc++ / libgcc_s files mapped in the process (/proc/self/maps) after each, with the
     newest GLIBCXX symbol version each provides, so that the first one loaded shows;
  2. prints how the module and libloom get their runtime (NEEDED/RUNPATH and ldd: no
     libstdc++.so.6 needed means a static one) and the STB_GNU_UNIQUE symbols of namespace
     std they export (std::locale ids there are the crash), the compiler's libstdc++ recorded at build
     time, LD_LIBRARY_PATH and LD_PRELOAD;
  3. runs libloom's iostream path (loom._loom._libloom_message_probe) in child processes after
     the same imports in several orders (and once with LD_PRELOAD of the build's libstdc++),
     printing each child's exit status: -11 is the segfault.

It only reads: nothing is changed. Paste its whole output into the report.
"""

import argparse
import importlib
import os
import re
import shutil
import subprocess
import sys

RUNTIME_NAMES = ("libstdc++", "libgcc_s")


def mapped_runtime_files():
    """{realpath: first address} of the C++ runtime libraries mapped in this process."""
    found = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) < 6:
                continue
            path = parts[5]
            if os.path.basename(path).startswith(RUNTIME_NAMES):
                found.setdefault(os.path.realpath(path), parts[0].split("-")[0])
    return found


def mapped_files_named(fragment):
    with open("/proc/self/maps") as maps:
        paths = {line.split()[5] for line in maps if len(line.split()) >= 6}
    return sorted(p for p in paths if fragment in os.path.basename(p))


def newest_glibcxx(path):
    """The highest GLIBCXX_3.4.N symbol version a libstdc++ file defines ('' if none)."""
    try:
        with open(path, "rb") as f:
            versions = {int(v) for v in re.findall(rb"GLIBCXX_3\.4\.(\d+)", f.read())}
    except OSError as error:
        return f"(unreadable: {error})"
    return f"GLIBCXX_3.4.{max(versions)}" if versions else ""


def describe(path):
    extra = newest_glibcxx(path) if "libstdc++" in os.path.basename(path) else ""
    return f"{path}  {extra}".rstrip()


def run(command):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return (done.stdout + done.stderr).rstrip()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"({' '.join(command)}: {error})"


def dynamic_section(path):
    """RUNPATH, RPATH and NEEDED of an ELF file, by readelf -d."""
    if shutil.which("readelf") is None:
        return "  (readelf not found: install binutils)"
    lines = run(["readelf", "-d", path]).splitlines()
    wanted = [l.strip() for l in lines if re.search(r"\((RUNPATH|RPATH|NEEDED|SONAME)\)", l)]
    return "\n".join("  " + l for l in wanted)


def unique_symbols(path):
    """The STB_GNU_UNIQUE symbols of namespace std an ELF file exports: the dynamic linker
    merges each with the first of its name in the process, even between two copies of
    libstdc++. Loom's own inline variables are UNIQUE too, harmlessly; std::locale ids from a
    static libstdc++ are what crashed."""
    if shutil.which("readelf") is None:
        return "  (readelf not found: install binutils)"
    symbols = [l.split()[-1].split("@")[0]
               for l in run(["readelf", "--dyn-syms", "-W", path]).splitlines()
               if " UNIQUE " in l and " UND " not in l]
    def is_locale(name):  # std::locale itself and the facets' ids (std::ctype<char>::id, ...)
        return "locale" in name or name.endswith("2idE")

    runtime = sorted((s for s in symbols if re.match(r"_Z(Z|GV)?N?St", s)),
                     key=lambda s: not is_locale(s))
    shown = "".join(f"\n    {name}" for name in runtime[:8])
    more = f"\n    ... {len(runtime) - 8} more" if len(runtime) > 8 else ""
    locale = sum(map(is_locale, runtime))
    return (f"  UNIQUE symbols exported: {len(symbols)}, of namespace std: {len(runtime)}, "
            f"std::locale and facet ids: {locale} (should be 0){shown}{more}")


def section(title):
    print(f"\n=== {title}")


def import_stages(modules):
    """Imports each module in turn, printing the runtime files that appeared with it."""
    seen = mapped_runtime_files()
    section("C++ runtime mapped at start (the interpreter itself)")
    for path in seen:
        print("  " + describe(path))
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - a diagnostic reports everything
            print(f"\n--- import {name}: FAILED: {type(error).__name__}: {error}")
            continue
        now = mapped_runtime_files()
        new = [p for p in now if p not in seen]
        print(f"\n--- after import {name}: " + ("new runtime files:" if new else "nothing new"))
        for path in new:
            print("  + " + describe(path))
        seen = now
    return seen


def build_info():
    try:
        from loom import _build_info
    except ImportError:
        return {}
    return {k: v for k, v in vars(_build_info).items() if not k.startswith("_")}


def report_loom(info):
    import loom
    from loom import _loom

    section("loom")
    print(f"  loom package: {os.path.dirname(loom.__file__)}")
    print(f"  module:       {_loom.__file__}")
    for key, value in info.items():
        print(f"  build {key}: {value}")
    libloom = mapped_files_named("libloom")
    print("  libloom mapped: " + (", ".join(libloom) or "(none: static?)"))
    for path in [_loom.__file__] + libloom:
        section(f"dynamic section of {path}")
        print(dynamic_section(path))
        print(unique_symbols(path))
        section(f"ldd {path} (the C++ runtime and what is not found)")
        if shutil.which("ldd") is None:
            print("  (ldd not found)")
            continue
        for line in run(["ldd", path]).splitlines():
            if re.search(r"libstdc\+\+|libgcc_s|libloom|not found", line):
                print("  " + line.strip())


def probe(order, env=None):
    """Exit status and output of a child that imports `order` then calls libloom's iostreams."""
    code = "; ".join(f"import {name}" for name in order)
    code += "; import loom._loom as m; print(m._libloom_message_probe())"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    output = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, (output[-1] if output else "")


def probes(extra, build_libstdcxx):
    section("libloom's iostream path in child processes (exit -11: segfault)")
    orders = [["loom"], ["numpy", "scipy", "scipy.sparse.linalg", "loom"],
              ["loom", "numpy", "scipy", "scipy.sparse.linalg"]]
    orders += [[name, "numpy", "scipy", "loom"] for name in extra]
    orders += [["loom", name] for name in extra]
    for order in orders:
        status, last = probe(order)
        print(f"  {' -> '.join(order):55s} exit {status}: {last}")
    if build_libstdcxx and os.path.exists(build_libstdcxx):
        env = dict(os.environ)
        env["LD_PRELOAD"] = (build_libstdcxx + " " + env.get("LD_PRELOAD", "")).strip()
        for order in orders[1:]:
            status, last = probe(order, env)
            print(f"  LD_PRELOAD build's libstdc++: {' -> '.join(order):25s} exit {status}: {last}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--with", dest="extra", nargs="*", default=[],
                        help="more modules to import before loom (torch, cupy)")
    args = parser.parse_args()

    section("interpreter")
    print(f"  {sys.executable} {sys.version.split()[0]} prefix {sys.prefix}")
    for variable in ("LD_LIBRARY_PATH", "LD_PRELOAD", "PYTHONPATH"):
        print(f"  {variable}={os.environ.get(variable, '')}")
    final = import_stages(["numpy", "scipy", "scipy.sparse.linalg"] + args.extra + ["loom"])

    section("C++ runtime files mapped at the end")
    libstdcxx = [p for p in final if "libstdc++" in os.path.basename(p)]
    for path in final:
        print("  " + describe(path))
    info = build_info()
    build_libstdcxx = os.path.realpath(info["libstdcxx"]) if info.get("libstdcxx") else ""
    if len(libstdcxx) > 1:
        print(f"  !! {len(libstdcxx)} different libstdc++ files in one process")
    if build_libstdcxx and libstdcxx and build_libstdcxx not in libstdcxx:
        print(f"  !! libloom was built against {build_libstdcxx} "
              f"({newest_glibcxx(build_libstdcxx)}), which is NOT mapped")
    elif build_libstdcxx:
        print(f"  the build's libstdc++ ({build_libstdcxx}) is mapped")

    if "loom" not in sys.modules:
        sys.exit("loom is not importable: set PYTHONPATH=<build>/python or install it")
    report_loom(info)
    probes(args.extra, build_libstdcxx)


if __name__ == "__main__":
    main()
