#!/usr/bin/env python3
"""make_image.py - the pool a power failure would leave (crash simulation).

Usage: make_image.py BASE_POOL TRACE_DIR OUT_POOL --point N [--seed S]
       make_image.py TRACE_DIR --events      (print the number of events)
       make_image.py BASE_POOL TRACE_DIR --classes
                                             (print "class seq..." lines)

BASE_POOL is a copy of the pool taken before the traced run (server
stopped), TRACE_DIR the directory of nvm_am.persist_trace.  The image at
event N holds every flush that a later drain of the same process (at or
before N) made durable, each flush of a process not drained by N with
probability 1/2, and no store that was never flushed.  Events are applied in
their global order, so a later durable flush of the same bytes wins.

Prints the WAL flush position (as an LSN, X/Y) at event N: WAL beyond it
was not durable when the power failed.

--classes sorts the flushes by what they write, from where they land in
the pool (the header's layout) and their length, so that a test can pick
power failures inside each kind of step: "directory" (relation create,
drop, truncate, nblocks), "xact_slot" and "commit_log" (commits),
"page_write" (a whole page or page-table frame: merges, filled new pages,
frame allocation; and the header of a new empty page, the only part of it
persisted), "publish" (an 8-byte store into a frame: page-table swings,
in-place page header words), "log_record" (in-page log appends) and
"runtime" (the generation high-water mark).  The parsed traces are cached
in TRACE_DIR/events.cache.
"""
import argparse
import glob
import os
import pickle
import random
import shutil
import struct
import sys

EVENT = struct.Struct("<QQQIc3x")     # seq, offset, wal_flush, len, type


HEADER = struct.Struct("<QIIQQQQQQQII QQQQ")   # NvmPoolHeader up to clog_entries


def read_layout(pool):
    """the pool's region offsets, from its header"""
    with open(pool, "rb") as f:
        h = HEADER.unpack(f.read(HEADER.size))
    (magic, version, frame_size, sysid, size, dir_off, dir_n, frames_off, nframes,
     logs_off, log_size, pad, xact_off, xact_n, clog_off, clog_n) = h
    return {"dir": dir_off, "xact": xact_off, "clog": clog_off,
            "frames": frames_off, "logs": logs_off, "size": size, "frame_size": frame_size}


def classify(layout, off, length):
    """what a flush of length bytes at pool offset off writes"""
    if off < layout["dir"]:
        return "runtime"
    if off < layout["xact"]:
        return "directory"
    if off < layout["clog"]:
        return "xact_slot"
    if off < layout["frames"]:
        return "commit_log"
    if off < layout["logs"]:
        # a new empty page persists its 24-byte header only (IplNewPage)
        new_page = (off - layout["frames"]) % layout["frame_size"] == 0 and length == 24
        return "page_write" if length >= 4096 or new_page else "publish"
    return "log_record"


def read_events(trace_dir):
    cache = os.path.join(trace_dir, "events.cache")
    if os.path.exists(cache):
        with open(cache, "rb") as f:
            return pickle.load(f)
    events = read_traces(trace_dir)
    with open(cache, "wb") as f:
        pickle.dump(events, f)
    return events


def read_traces(trace_dir):
    events = []
    for path in glob.glob(os.path.join(trace_dir, "trace.*")):
        proc = path.rsplit(".", 1)[1]
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos + EVENT.size <= len(data):
            seq, off, wal, length, typ = EVENT.unpack_from(data, pos)
            pos += EVENT.size
            body = data[pos:pos + length]
            if len(body) != length:
                break               # a trace cut short: the rest never happened
            pos += length
            events.append((seq, proc, typ, off, wal, body))
    events.sort(key=lambda e: e[0])
    return events


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("args", nargs="+")
    ap.add_argument("--point", type=int)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--events", action="store_true")
    ap.add_argument("--classes", action="store_true")
    o = ap.parse_args()
    if o.events:
        events = read_events(o.args[0])
        print(len(events), events[0][0] if events else 0, events[-1][0] if events else 0)
        return 0
    if o.classes:
        layout = read_layout(o.args[0])
        classes = {}
        for seq, proc, typ, off, wal, body in read_events(o.args[1]):
            if typ == b"F":
                classes.setdefault(classify(layout, off, len(body)), []).append(seq)
        for name in sorted(classes):
            print(name, " ".join(str(x) for x in classes[name]))
        return 0
    base, trace_dir, out = o.args
    rnd = random.Random(o.seed)
    events = [e for e in read_events(trace_dir) if e[0] <= o.point]
    # which flushes a drain of their process made durable by the point
    last_drain = {}
    for seq, proc, typ, off, wal, body in events:
        if typ == b"D":
            last_drain[proc] = seq
    shutil.copyfile(base, out)
    wal_flush = 0
    kept = dropped = 0
    with open(out, "r+b") as f:
        for seq, proc, typ, off, wal, body in events:
            wal_flush = max(wal_flush, wal)
            if typ != b"F":
                continue
            if seq < last_drain.get(proc, 0) or rnd.random() < 0.5:
                f.seek(off)
                f.write(body)
                kept += 1
            else:
                dropped += 1
    print("%X/%X" % (wal_flush >> 32, wal_flush & 0xFFFFFFFF))
    print("applied %d flushes, dropped %d undrained ones" % (kept, dropped), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
