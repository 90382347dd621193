#!/usr/bin/env python3
"""check_layers.py [--root DIR] - check the layering of nvm_am's C sources.

The sources (*.c, *.h in the repository root) form four layers, listed
below from the bottom up.  Each layer has one header, its API; a layer
uses only itself and the layers named in its "uses" list.  The rules:

 1. every .c/.h file of the root belongs to exactly one layer of LAYERS;
 2. a file includes a project header only from its own layer or from a
    layer it uses, and of another layer only its API header (a layer's
    other headers, such as nvm_pool_internal.h, are private to it);
 3. libpmem (#include <libpmem.h>, pmem_*() calls) only in the pool's files;
 4. page bytes change only in the page layer: elsewhere no PostgreSQL
    page-changing call (PAGE_WRITERS) and no raw frame accessor of the
    pool (FRAME_ACCESSORS, which only the pool itself may declare/define);
 5. a function declared extern in a layer's header is defined (name and
    "(" at column 0) in one of that layer's files;
 6. no extern function prototypes in .c files (PGDLLEXPORT entry points
    and _PG_init aside): a .c file gets other functions from headers.

Comments and string literals are ignored.  Prints one line per violation,
"check_layers: FILE:LINE: ...", and exits 1; else prints a line "ok".
"""
import argparse
import os
import re
import sys

# layer: (header, files, layers it may use) -- bottom to top
LAYERS = {
    "pool": ("nvm_pool.h", ["nvm_pool.c", "nvm_pool_dir.c",
                            "nvm_pool_internal.h"], []),
    "page": ("nvm_page.h", ["ipl_log.c", "ipl_wal.c", "ipl_delta.c", "ipl_cache.c", "ipl_checksum.c",
                            "ipl_internal.h"], ["pool"]),
    "hooks": ("nvm_hooks.h", ["nvm_xlog.c", "nvm_logical.c", "nvm_commit.c", "nvm_recovery.c",
                              "nvm_storage.c"], ["pool"]),
    "am": ("nvm_am.h", ["nvm_am.c", "nvm_guc.c", "nvm_scan.c", "nvm_index.c",
                        "nvm_modify.c", "nvm_rowlock.c", "nvm_prune.c",
                        "nvm_vacuum.c", "nvm_rewrite.c", "nvm_visibility.c",
                        "nvm_vismap.c",
                        "nvm_check.c",
                        "nvm_monitor.c", "nvm_database.c"], ["page", "hooks", "pool"]),
}

PAGE_WRITERS = """PageInit PageAddItem PageAddItemExtended
    PageRepairFragmentation PageIndexTupleDelete PageIndexMultiDelete
    PageIndexTupleOverwrite PageTruncateLinePointerArray ItemIdSetUnused
    ItemIdSetNormal ItemIdSetRedirect ItemIdSetDead ItemIdMarkDead
    PageSetLSN PageSetPrunable PageClearPrunable PageSetHasFreeLinePointers
    PageClearHasFreeLinePointers PageSetFull PageClearFull PageSetAllVisible
    PageClearAllVisible PageSetChecksumInplace""".split()
FRAME_ACCESSORS = ["NvmPoolFramePage", "NvmPoolFrameLog"]
SELF = "scripts/check_layers.py"

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]*)[>"]', re.M)
EXTERN_FUNC = re.compile(r"\bextern\b[^;{}()]*?\b([A-Za-z_]\w*)\s*\((?!\s*\*)")
PROTOTYPE = re.compile(r"([\w\s*]*?[\w*]\s*?)\b([A-Za-z_]\w*)\s*\(", re.S)


def table_line(name):
    """line of the LAYERS table of this script that names a file"""
    with open(__file__, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if '"%s"' % name in line:
                return number
    return 1


def strip(text, keep_strings=False):
    """text with comments (and string/char literals, unless keep_strings)
    blanked out; newlines are kept so that line numbers stay right"""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            lit = text[i:j]
            out.append(lit if keep_strings else
                       c + re.sub(r"[^\n]", " ", lit[1:-1]) + lit[-1])
        else:
            j = i + 1
            out.append(c)
        i = j
    return "".join(out)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def calls(code, names):
    """(line, name) of each call or use "name(" of one of names in code"""
    pattern = re.compile(r"\b(%s)\s*\(" % "|".join(names))
    return [(line_of(code, m.start()), m.group(1))
            for m in pattern.finditer(code)]


def top_level_statements(code):
    """(line, text) of each declaration ending in ";" outside any function
    body, preprocessor lines left out"""
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m:
                  re.sub(r"[^\n]", " ", m.group(0)), code, flags=re.M)
    stmts, start, depth, body = [], 0, 0, False
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                body = code[start:i].rstrip().endswith(")")
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and body:
                start, body = i + 1, False
        elif c == ";" and depth == 0:
            text = code[start:i]
            lead = len(text) - len(text.lstrip())
            stmts.append((line_of(code, start + lead), text.strip()))
            start = i + 1
    return stmts


def check(root):
    errors = []

    def err(path, line, msg):
        errors.append((path != SELF, path, line, msg))

    layer_of = {}               # file name -> layer
    for layer, (header, files, uses) in LAYERS.items():
        for name in [header] + files:
            if name in layer_of:
                err(SELF, table_line(name),
                    "%s is in layer %s and in layer %s of LAYERS; a file "
                    "belongs to exactly one layer"
                    % (name, layer_of[name], layer))
            layer_of[name] = layer
        for used in uses:
            if used not in LAYERS:
                err(SELF, table_line(header), "layer %s uses unknown "
                    "layer %s" % (layer, used))
    sources = sorted(f for f in os.listdir(root)
                     if f.endswith((".c", ".h"))
                     and os.path.isfile(os.path.join(root, f)))
    for name in sorted(set(layer_of) - set(sources)):
        err(SELF, table_line(name), "layer %s lists %s, which is not in %s; "
            "create it or take it out of LAYERS"
            % (layer_of[name], name, os.path.abspath(root)))

    raw, code = {}, {}
    for name in sources:
        with open(os.path.join(root, name), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        raw[name] = strip(text, keep_strings=True)  # for #include lines
        code[name] = strip(text)

    for name in sources:
        layer = layer_of.get(name)
        if layer is None:
            err(name, 1, "belongs to no layer; add it to the files of one "
                "layer in LAYERS (scripts/check_layers.py)")
            continue
        header, files, uses = LAYERS[layer]
        allowed = [layer] + uses

        # rule 2: project headers only from this layer or a layer it uses;
        # rule 3: libpmem only in the pool's files
        for m in INCLUDE.finditer(raw[name]):
            line = line_of(raw[name], m.start())
            inc = os.path.normpath(m.group(2))
            if inc == "libpmem.h" and name not in LAYERS["pool"][1]:
                err(name, line, "includes libpmem.h; only the pool's files "
                    "(%s) use libpmem" % " ".join(LAYERS["pool"][1]))
            inc_layer = layer_of.get(inc)
            if m.group(1) != '"' or inc_layer in (None, layer):
                continue
            if inc_layer not in allowed:
                err(name, line, "includes %s of layer %s; files of layer %s "
                    "include only headers of: %s"
                    % (inc, inc_layer, layer, ", ".join(allowed)))
            elif inc != LAYERS[inc_layer][0]:
                err(name, line, "includes %s, a header private to layer %s; "
                    "other layers include only its API, %s"
                    % (inc, inc_layer, LAYERS[inc_layer][0]))

        if name not in LAYERS["pool"][1]:
            for line, fn in calls(code[name], [r"pmem_\w+"]):
                err(name, line, "calls libpmem's %s(); only the pool's files "
                    "(%s) call libpmem" % (fn, " ".join(LAYERS["pool"][1])))

        # rule 4: page bytes change only in the page layer
        if layer != "page":
            for line, fn in calls(code[name], PAGE_WRITERS):
                err(name, line, "calls %s(), which changes a page; only the "
                    "page layer (%s) changes page bytes"
                    % (fn, " ".join(LAYERS["page"][1])))
        if layer not in ("page", "pool"):
            for line, fn in calls(code[name], FRAME_ACCESSORS):
                err(name, line, "uses the pool's raw frame accessor %s(); "
                    "only the page layer (%s) reads or writes frames"
                    % (fn, " ".join(LAYERS["page"][1])))

        # rule 5: a layer's headers declare only functions of that layer
        if name.endswith(".h"):
            defined = "\n".join(code.get(f, "") for f in files)
            for m in EXTERN_FUNC.finditer(code[name]):
                fn = m.group(1)
                if re.search(r"^%s\(" % fn, defined, re.M):
                    continue
                where = [f for f in sources if f not in files and
                         re.search(r"^%s\(" % fn, code[f], re.M)]
                err(name, line_of(code[name], m.start(1)),
                    "declares %s(), which no file of layer %s defines%s; a "
                    "layer's header declares only its own layer's functions"
                    % (fn, layer, " (%s does)" % ", ".join(where)
                       if where else ""))

        # rule 6: no extern prototypes in .c files
        if name.endswith(".c"):
            for line, stmt in top_level_statements(code[name]):
                m = PROTOTYPE.match(stmt)
                if not m or "=" in stmt[:m.end()]:
                    continue
                words = m.group(1).split()
                if words[0] in ("static", "typedef") or \
                        "PGDLLEXPORT" in words or m.group(2) == "_PG_init":
                    continue
                err(name, line, "declares %s() itself; a .c file gets other "
                    "files' functions from their layer's header (make it "
                    "static if it is local)" % m.group(2))

    return ["check_layers: %s:%d: %s" % e[1:] for e in sorted(errors)], \
        len(sources)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."),
        help="directory holding the C sources (default: the repository)")
    args = ap.parse_args()
    errors, nfiles = check(args.root)
    for e in errors:
        print(e)
    if errors:
        print("check_layers: %d violation(s) of the layering; the table and "
              "the rules are in scripts/check_layers.py" % len(errors))
        return 1
    print("check_layers: ok (%d files, %d layers)" % (nfiles, len(LAYERS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
