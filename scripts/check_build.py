#!/usr/bin/env python3
"""check_build.py [SO] - check the machine code of a built nvm_am.so
(default: the installed one, $(pg_config --pkglibdir)/nvm_am.so).

What the sources ask of the compiler and a functional test cannot see:

 1. The functions that read many tuples of a page one after another
    prefetch its tuple area first (IplPrefetchTuples): their machine code
    holds a prefetch instruction.  gcc takes a function made of prefetches
    alone for pure and drops every call to it; release builds of nvm_am
    once never prefetched, and the zero-copy read mode ran a sequential
    scan 1.5 times slower than the copy mode for it.  The prune
    (NvmPrunePage) reads every tuple header of a page in line pointer
    order too, which its hole-filling compaction scatters.  They are
    pg_noinline, so that link-time optimisation (the Makefile's -flto)
    keeps them as functions of their own to look into.

Only on x86-64 with objdump (binutils, installed with gcc); elsewhere it
says so and passes.  Prints "ok" or one line per problem and exits 1.
"""
import platform
import re
import shutil
import subprocess
import sys

PREFETCHING = ("NvmScanLoadPage", "NvmScanBitmapNextBlock", "IplFrameChecksumOk", "NvmPrunePage")


def main():
    if len(sys.argv) > 1:
        so = sys.argv[1]
    else:
        libdir = subprocess.run(["pg_config", "--pkglibdir"], capture_output=True, text=True,
                                check=True).stdout.strip()
        so = libdir + "/nvm_am.so"
    if platform.machine() not in ("x86_64", "AMD64") or shutil.which("objdump") is None:
        print("check_build: skipped (needs x86-64 and objdump)")
        return 0
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", so], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    func = None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            func = m.group(1)
            found.setdefault(func, 0)
        elif func is not None and re.search(r"\bprefetch(t0|t1|t2|nta|w)?\b", line):
            found[func] += 1
    problems = []
    for f in PREFETCHING:
        if f not in found:
            problems.append("%s: no function %s (renamed? update PREFETCHING)" % (so, f))
        elif found[f] == 0:
            problems.append("%s: %s has no prefetch instruction (the compiler dropped "
                            "IplPrefetchTuples)" % (so, f))
    for p in problems:
        print("check_build: " + p)
    if problems:
        return 1
    print("check_build: ok (%s: %s prefetch)" % (so, ", ".join(PREFETCHING)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
