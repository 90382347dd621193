/*-------------------------------------------------------------------------
 *
 * nvm_pool.c
 *	  The persistent-memory pool: mapping, header, page-frame allocation
 *	  and pins, page generations, shared memory, statistics counters and
 *	  the persist primitives.  This is the only file that calls libpmem.
 *	  The relation directory and the page tables are in nvm_pool_dir.c.
 *
 * On-pmem layout (all offsets from the start of the pool file):
 *
 *	 [0, 2048)				NvmPoolHeader, checksummed, written once at creation
 *	 [2048, 4096)			NvmPoolRuntime: the generation high-water mark and
 *							the extents added by growing the pool
 *	 [4096, xact_off)		relation directory: dir_entries NvmDirEntry (64 B)
 *	 [xact_off, clog_off)	transaction slots: NVM_XACT_SLOTS NvmXactSlot (64 B)
 *	 [clog_off, frames_off) commit log: NVM_COMMIT_LOG_ENTRIES NvmCommitEntry
 *							(64 B); both written by nvm_commit.c
 *	 [frames_off, logs_off)	page frames of BLCKSZ bytes, numbered from 1
 *	 [logs_off, ...)		the in-page log areas (log_size bytes each) of the
 *							first 1 in log_share of those frames, in frame
 *							order (none when log_size is 0)
 *	 [size, ...)			extents (NvmPoolGrow): each its frames, then the
 *							log areas of its first 1 in log_share; numbered
 *							after the frames before them
 *
 * Frames with a log area are log frames, the others plain frames
 * (NvmPoolLogFrames says how many of a region's frames are which).  Pages
 * that are being changed live in log frames, the rest in plain ones: a
 * table's pages take the pool bytes of their pages, and log areas only
 * where pages change (ipl_log.c moves pages between the two kinds; this
 * file allocates each kind).  A frame's log area belongs to the page image
 * in the frame (ipl_log.c writes it); it is reset by writing a new base
 * image with a new generation number into the frame.  Generation numbers
 * come from a counter in shared memory whose high-water mark is persisted in
 * NvmPoolRuntime before any number beyond it is handed out, so a number is
 * never used twice, not even across crashes.
 *
 * A relation's page table is a radix tree of frames (nvm_pool_dir.c): the
 * directory entry names a root frame, a leaf frame holds NVM_PT_FANOUT
 * frame numbers of data pages, the frames above hold frame numbers of the
 * level below; two levels, three once a relation passes 8 GB.  A frame
 * number of 0 means "none".  Every pointer in the pool is an 8-byte word
 * published with one aligned store and persisted, so every change below
 * is crash-atomic:
 *
 *	- a frame is in use if and only if it is reachable from a used directory
 *	  entry (root, leaves, and data pages below the entry's nblocks).  The
 *	  allocation state is therefore not stored in the pool at all: the free
 *	  bitmap lives in shared memory and is rebuilt from the page tables at
 *	  every (re)initialisation of shared memory.  A frame taken by a backend
 *	  that crashed before publishing it is free again after the restart.
 *	- extending a relation writes and persists the page, then the leaf entry,
 *	  then publishes nblocks: a crash before the last step leaves an entry
 *	  beyond nblocks, which the rebuild clears.
 *	- freeing a relation publishes its state word as free first; its frames
 *	  are unreachable from then on.
 *	- a relation that outgrows its page table gets a new root whose first
 *	  entry is the old root, persisted before the entry's root word (frame
 *	  and levels) swings to it.
 *
 * Why not libpmemobj: its allocator state is private to the one process
 * that opened the pool, and PostgreSQL is multi-process.  Deriving the
 * allocation state from the page tables gives the same crash atomicity with
 * nothing but 8-byte publishes through libpmem, which every backend can do
 * on the postmaster's mapping.
 *
 * Locks: the directory lock (exclusive to create, free or change an entry's
 * state; shared to look one up); the allocation lock around the free
 * bitmap; a relation's extension lock (heavyweight, taken by the caller) to
 * add blocks; a fixed array of page LWLocks hashed by (entry, block), taken
 * by the page operations and the access method around page reads and
 * changes.  No code holds two page locks at once.
 *
 * Frame pins: a backend that keeps a pointer into a frame after releasing
 * the page lock pins the frame (a counter per frame in shared memory, taken
 * under the page lock).  A frame replaced by copy-on-write is retired and
 * freed by whoever drops its last pin.
 *
 * The pool file is mapped once, by the postmaster in _PG_init, before any
 * child is forked: every process sees it at the same address.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <libpmem.h>

#include "access/twophase.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "common/file_perm.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "port/pg_bitutils.h"
#include "port/pg_crc32c.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "nvm_pool_internal.h"

#define NVM_HEADER_SIZE		4096
#define NVM_PAGE_LOCKS		1024

/*
 * The pool's LWLocks, one named tranche per kind, so that a wait shows in
 * pg_stat_activity.wait_event as what it waits for.
 */
#define NVM_TRANCHE_DIR		"nvm_am_directory"
#define NVM_TRANCHE_ALLOC	"nvm_am_frame_allocation"
#define NVM_TRANCHE_CLOG	"nvm_am_commit_log"	/* NVM_COMMIT_LOG_PARTS */
#define NVM_TRANCHE_PAGE	"nvm_am_page"	/* NVM_PAGE_LOCKS */

/* the part of the header page that changes at run time (not checksummed) */
#define NVM_RUNTIME_OFFSET	2048
#define NVM_GEN_BATCH		65536
/* generations skipped at a start from a copy of the pool (NvmPoolShmemInit) */
#define NVM_GEN_COPY_GAP		(UINT64CONST(1) << 36)
/* an extent's frames: frame numbers stay below 2^48 (directory words) */
#define NVM_MAX_EXTENT_FRAMES	(UINT64CONST(1) << 40)

typedef struct NvmPoolRuntime
{
	uint64		gen_high_water; /* no generation number at or beyond this
								 * has been handed out */
	uint64		nextents;		/* extents in use; published last */
	NvmPoolExtent extents[NVM_MAX_EXTENTS];
	uint64		copy_pending;	/* a base backup's copy, not yet replayed to
								 * consistency (NvmPoolCopyPending) */
} NvmPoolRuntime;

StaticAssertDecl(NVM_RUNTIME_OFFSET + sizeof(NvmPoolRuntime) <= NVM_HEADER_SIZE,
				 "the runtime part fits the header page");

StaticAssertDecl(sizeof(NvmDirEntry) == 64, "directory entries are 64 bytes");
StaticAssertDecl(sizeof(NvmXactSlot) == 64, "a transaction slot is a cache line");
StaticAssertDecl(sizeof(NvmCommitEntry) == 64, "a commit-log entry is a cache line");
StaticAssertDecl(sizeof(NvmPoolHeader) <= NVM_RUNTIME_OFFSET, "header fits");

typedef struct NvmPoolShared
{
	LWLockPadded *dir_lock;
	LWLockPadded *alloc_lock;
	LWLockPadded *clog_locks;
	LWLockPadded *page_locks;
	uint64		frames_free;	/* free frames of both kinds */
	uint64		log_frames_free;	/* of which log frames */
	uint64		alloc_hint[2];	/* per kind: no free frame below this word */
	bool		frames_kept;	/* redo kept frames it would have freed */
	pg_atomic_uint64 next_gen;	/* next page generation number */
	uint64		first_gen;		/* the first one handed out since the start */
	pg_atomic_uint64 trace_seq; /* persist trace: next event number */
	pg_atomic_uint64 counters[NVM_NUM_COUNTERS];
	uint64		extra_pins;		/* pin words after the frames' (the caller's) */
	/*
	 * three bitmaps: bit set = frame in use; = log frame; = in use when the
	 * pool, a base backup's copy, was opened (NvmPoolSetKeepFrames)
	 */
	uint64		bitmap[FLEXIBLE_ARRAY_MEMBER];
} NvmPoolShared;

/* a process's own counters, one cache-line-aligned row per PGPROC */
typedef union NvmCounterRow
{
	pg_atomic_uint64 c[NVM_NUM_COUNTERS];
	char		pad[TYPEALIGN(PG_CACHE_LINE_SIZE, NVM_NUM_COUNTERS * sizeof(pg_atomic_uint64))];
} NvmCounterRow;

static NvmCounterRow *pool_counter_rows = NULL;
static pg_atomic_uint64 *my_counter_row = NULL; /* this process's, once known */

/* the number of PGPROCs (ProcGlobal's allProcCount, known before it exists) */
static inline int
NvmPoolCounterProcs(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

/* GUC variables */
char	   *nvm_pool_path = NULL;
int			nvm_pool_size_mb = 1024;
int			nvm_ipl_log_size = NVM_IPL_LOG_SIZE_DEFAULT;
int			nvm_wal_log = 0;
char	   *nvm_persist_trace = NULL;

/* persist trace of this process (crash simulation), -1 when not open */
static int	trace_fd = -1;
static pid_t trace_pid = 0;

/* Process-local state, inherited from the postmaster by fork */
char *pool_base = NULL;
NvmPoolHeader *pool_header = NULL;
uint64		pool_nframes = 0;	/* all frames, the extents' included */
static uint64 pool_header_log_frames = 0;	/* the header's log frames */
static uint64 pool_log_frames = 0;	/* all log frames */
static uint64 *pool_logmask = NULL; /* in shared memory: bit set = log frame */
static uint64 *pool_copymask = NULL;	/* in shared memory: bit set = frame in
										 * use in a base backup's copy */
static bool pool_keep_frames = false;	/* NvmPoolSetKeepFrames */
static uint64 *pool_wal_lsn = NULL;	/* in shared memory, per frame */
static uint64 pool_total_size = 0;	/* bytes the header and extents describe */
bool	   *pool_dir_damaged = NULL;	/* in shared memory, per entry */
static NvmPoolRuntime *pool_runtime = NULL;
NvmDirEntry *pool_dir = NULL;
static NvmXactSlot *pool_slots = NULL;
static NvmCommitEntry *pool_clog = NULL;
static bool pool_is_pmem = false;

/*
 * How NvmPoolPrefault maps frames of a new batch: MADV_POPULATE_READ where
 * a read fault maps shared pages writable (tmpfs, /dev/shm: no write
 * notification), MADV_POPULATE_WRITE on other persistent memory (DAX); 0
 * for a pool that is not persistent memory (msync mode: populating for
 * writing would dirty pages nobody writes), or once the kernel refused
 * (older than Linux 5.14).
 */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif
#define NVM_TMPFS_MAGIC		0x01021994
static int	pool_populate_advice = 0;
char *pool_resolved_path = NULL;
static int	pool_lock_fd = -1;
static NvmPoolShared *pool_shared = NULL;
static pg_atomic_uint32 *pool_pins = NULL;

/* frames this backend has pinned (a multiset), released at transaction end */
static uint64 *local_pins = NULL;
static int	local_npins = 0;
static int	local_maxpins = 0;
static uint64 local_pin_epoch = 0;	/* NvmPoolReleaseAllPins calls */

#define PIN_RETIRED		0x80000000u
#define PIN_VERIFIED	0x40000000u /* checksum of the base checked */
#define PIN_COUNT_MASK	0x3FFFFFFFu

static const char *const counter_names[NVM_NUM_COUNTERS] = {
	"pmem_bytes_written",
	"pmem_flushes",
	"pmem_drains",
	"pages_extended",
	"tuples_inserted",
	"tuples_updated",
	"tuples_deleted",
	"page_reads",
	"relations_created",
	"relations_dropped",
	"xid_wal_records",
	"pending_resolved",
	"frames_reclaimed",
	"pages_pruned",
	"hot_updates",
	"ipl_records",
	"ipl_bytes",
	"merges_on_read",
	"merges_on_full",
	"merge_bytes_written",
	"redirected_page_reads",
	"copied_page_reads",
	"merged_page_reads",
	"ipl_torn_records",
	"merge_cache_evictions",
	"pages_sealed_in_place",
	"checksum_failures",
	"commit_records",
	"commit_drains",
	"commits_through_wal",
	"commit_log_full",
	"prepared_resolved_commit",
	"prepared_resolved_abort",
	"recovered_losers",
	"frozen_winners",
	"orphans_reclaimed",
	"recovery_us",
	"frames_in_batches",
	"pages_pruned_in_place",
	"log_frames_in_batches",
	"log_frame_promotions",
	"log_frame_demotions",
	"log_frames_short",
	"relied_commit_flushes",
	"bulk_placed_tuples",
	"log_frames_stolen",
	"pages_folded_on_read",
	"update_retries",
	"frames_retired",
	"async_commit_flushes",
	"multixact_wal_flushes",
	"multixact_wal_flushes_locked",
};

static pg_crc32c
NvmPoolHeaderChecksum(const NvmPoolHeader *hdr)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, hdr, offsetof(NvmPoolHeader, checksum));
	FIN_CRC32C(crc);
	return crc;
}

static uint64
NvmPoolConfiguredSize(void)
{
	return (uint64) nvm_pool_size_mb * 1024 * 1024;
}

/* ----------------------------------------------------------------
 * Persist primitives
 *
 * With nvm_am.persist_trace set (a directory; tests only), every flush and
 * drain is also written to a per-process trace file there: a global event
 * number, 'F' or 'D', the pool offset and length, the WAL flush position at
 * that moment, and the flushed bytes.  test/crashsim/make_image.py turns a
 * copy of the pool taken before the traced run and the traces into the pool
 * a power failure at any event would leave: flushes a drain of the same
 * process made durable are in it, flushes not yet drained are in it or not
 * at random, and stores never flushed are not.
 * ----------------------------------------------------------------
 */

typedef struct NvmTraceEvent
{
	uint64		seq;
	uint64		offset;
	uint64		wal_flush;		/* GetFlushRecPtr() when the event happened */
	uint32		len;
	char		type;			/* 'F' flush, 'D' drain */
	char		pad[3];
} NvmTraceEvent;

/* NvmPoolTracing - whether nvm_am.persist_trace asks for traces */
static inline bool
NvmPoolTracing(void)
{
	return unlikely(nvm_persist_trace != NULL && nvm_persist_trace[0] != '\0');
}

/*
 * NvmPoolTrace - write one event to this process's trace; the caller made
 * sure that traces are asked for (NvmPoolTracing), a test and a branch on
 * every flush and drain rather than a call.
 */
static void
NvmPoolTrace(char type, const void *addr, Size len)
{
	NvmTraceEvent ev;

	if (pool_shared == NULL || !IsUnderPostmaster)
		return;
	if (trace_fd < 0 || trace_pid != MyProcPid)
	{
		char	   *path = psprintf("%s/trace.%d", nvm_persist_trace, (int) MyProcPid);

		trace_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | PG_BINARY, 0600);
		if (trace_fd < 0)
			ereport(PANIC,
					(errcode_for_file_access(),
					 errmsg("could not open nvm_am persist trace \"%s\": %m", path)));
		trace_pid = MyProcPid;
		pfree(path);
	}
	memset(&ev, 0, sizeof(ev));
	ev.seq = pg_atomic_fetch_add_u64(&pool_shared->trace_seq, 1);
	ev.type = type;
	ev.offset = addr ? (uint64) ((const char *) addr - pool_base) : 0;
	ev.len = (uint32) len;
	ev.wal_flush = RecoveryInProgress() ? 0 : GetFlushRecPtr(NULL);
	if (write(trace_fd, &ev, sizeof(ev)) != sizeof(ev) ||
		(len > 0 && write(trace_fd, addr, len) != (ssize_t) len))
		ereport(PANIC,
				(errcode_for_file_access(),
				 errmsg("could not write nvm_am persist trace: %m")));
}

/*
 * NvmPoolFlush - write back the cache lines of [addr, addr+len) without waiting.
 * On a file that is not persistent memory this is a synchronous msync.
 */
void
NvmPoolFlush(const void *addr, Size len)
{
	if (len == 0)
		return;
	if (pool_is_pmem)
		pmem_flush(addr, len);
	else if (pmem_msync(addr, len) != 0)
		ereport(PANIC,
				(errcode_for_file_access(),
				 errmsg("could not msync nvm_am pool file \"%s\": %m",
						pool_resolved_path)));
	NvmPoolCountAdd(NVM_STAT_PMEM_BYTES_WRITTEN, len);
	NvmPoolCountAdd(NVM_STAT_PMEM_FLUSHES, 1);
	if (NvmPoolTracing())
		NvmPoolTrace('F', addr, len);
}

/*
 * NvmPoolDrain - wait until every flush issued by this process is durable.
 */
void
NvmPoolDrain(void)
{
	if (pool_is_pmem)
		pmem_drain();
	NvmPoolCountAdd(NVM_STAT_PMEM_DRAINS, 1);
	if (NvmPoolTracing())
		NvmPoolTrace('D', NULL, 0);
}

/*
 * NvmPoolPersist - flush and drain.
 */
void
NvmPoolPersist(const void *addr, Size len)
{
	NvmPoolFlush(addr, len);
	NvmPoolDrain();
}

/*
 * NvmPoolPublish64 - store an aligned 8-byte word atomically and persist it.
 */
void
NvmPoolPublish64(uint64 *addr, uint64 value)
{
	Assert(((uintptr_t) addr % sizeof(uint64)) == 0);
	*(volatile uint64 *) addr = value;
	NvmPoolPersist(addr, sizeof(uint64));
}

/* ----------------------------------------------------------------
 * Opening and creating the pool (postmaster, before fork)
 * ----------------------------------------------------------------
 */

static void
NvmPoolResolvePath(void)
{
	if (is_absolute_path(nvm_pool_path))
		pool_resolved_path = MemoryContextStrdup(TopMemoryContext, nvm_pool_path);
	else
		pool_resolved_path = MemoryContextStrdup(TopMemoryContext,
												 psprintf("%s/%s", DataDir, nvm_pool_path));
}

/*
 * NvmPoolFramesThatFit - how many frames, with the log areas of their log
 * frames (logSize bytes for 1 frame in share, NvmPoolLogFrames), fit in
 * bytes.
 */
static uint64
NvmPoolFramesThatFit(uint64 bytes, uint32 logSize, uint32 share)
{
	uint64		n = bytes * share / ((uint64) share * NVM_FRAME_SIZE + logSize);

	while (n > 0 &&
		   n * NVM_FRAME_SIZE + NvmPoolLogFrames(n, logSize, share) * logSize > bytes)
		n--;
	return n;
}

static void
NvmPoolComputeLayout(NvmPoolHeader *hdr, uint64 size)
{
	uint64		entries;
	uint64		frames_off;
	uint64		nframes;
	uint64		xact_off;
	uint64		clog_off;

	entries = size / (64 * 1024);
	entries = Max(entries, 1024);
	entries = Min(entries, 65536);
	xact_off = TYPEALIGN(NVM_FRAME_SIZE, NVM_HEADER_SIZE + entries * sizeof(NvmDirEntry));
	clog_off = xact_off + NVM_XACT_SLOTS * sizeof(NvmXactSlot);
	frames_off = TYPEALIGN(NVM_FRAME_SIZE,
						   clog_off + NVM_COMMIT_LOG_ENTRIES * sizeof(NvmCommitEntry));

	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = NVM_POOL_MAGIC;
	hdr->format_version = NVM_POOL_FORMAT_VERSION;
	hdr->frame_size = NVM_FRAME_SIZE;
	hdr->system_identifier = GetSystemIdentifier();
	hdr->pool_size = size;
	hdr->dir_offset = NVM_HEADER_SIZE;
	hdr->dir_entries = entries;
	nframes = NvmPoolFramesThatFit(size - frames_off, nvm_ipl_log_size,
								   NVM_LOG_FRAME_SHARE);
	hdr->frames_offset = frames_off;
	hdr->nframes = nframes;
	hdr->logs_offset = frames_off + nframes * NVM_FRAME_SIZE;
	hdr->log_size = nvm_ipl_log_size;
	hdr->log_share = NVM_LOG_FRAME_SHARE;
	hdr->xact_offset = xact_off;
	hdr->xact_slots = NVM_XACT_SLOTS;
	hdr->clog_offset = clog_off;
	hdr->clog_entries = NVM_COMMIT_LOG_ENTRIES;
	hdr->created_at = (int64) time(NULL);
	hdr->checksum = NvmPoolHeaderChecksum(hdr);
}

/*
 * NvmPoolExtentEnd - the byte after extent x of the pool with header hdr:
 * its frames, then the log areas of its log frames.
 */
static inline uint64
NvmPoolExtentEnd(const NvmPoolExtent *x, const NvmPoolHeader *hdr)
{
	return x->offset + x->nframes * NVM_FRAME_SIZE +
		NvmPoolLogFrames(x->nframes, hdr->log_size, hdr->log_share) * hdr->log_size;
}

/*
 * NvmPoolPopulateAdvice - the madvise advice NvmPoolPrefault uses for the
 * pool file at path (see pool_populate_advice).
 */
static int
NvmPoolPopulateAdvice(const char *path, bool is_pmem)
{
	struct statfs fs;

	if (!is_pmem)
		return 0;
	return statfs(path, &fs) == 0 && fs.f_type == NVM_TMPFS_MAGIC ?
		MADV_POPULATE_READ : MADV_POPULATE_WRITE;
}

static void
NvmPoolSetPointers(void *base, bool is_pmem, const char *path)
{
	pool_base = base;
	pool_header = (NvmPoolHeader *) base;
	pool_runtime = (NvmPoolRuntime *) ((char *) base + NVM_RUNTIME_OFFSET);
	pool_dir = (NvmDirEntry *) (pool_base + pool_header->dir_offset);
	pool_slots = (NvmXactSlot *) (pool_base + pool_header->xact_offset);
	pool_clog = (NvmCommitEntry *) (pool_base + pool_header->clog_offset);
	pool_is_pmem = is_pmem;
	pool_populate_advice = NvmPoolPopulateAdvice(path, is_pmem);
	pool_nframes = pool_header->nframes;
	pool_header_log_frames = NvmPoolLogFrames(pool_header->nframes,
											  pool_header->log_size,
											  pool_header->log_share);
	pool_log_frames = pool_header_log_frames;
	pool_total_size = pool_header->pool_size;
	for (uint64 i = 0; i < pool_runtime->nextents; i++)
	{
		pool_nframes += pool_runtime->extents[i].nframes;
		pool_log_frames += NvmPoolLogFrames(pool_runtime->extents[i].nframes,
											pool_header->log_size,
											pool_header->log_share);
		pool_total_size = NvmPoolExtentEnd(&pool_runtime->extents[i], pool_header);
	}
}

static void
NvmPoolCreate(void)
{
	char	   *tmppath = psprintf("%s.init", pool_resolved_path);
	uint64		size = NvmPoolConfiguredSize();
	size_t		mapped_len;
	int			is_pmem;
	void	   *base;
	NvmPoolHeader hdr;
	char	   *dir;

	NvmPoolComputeLayout(&hdr, size);
	if (hdr.nframes < 64)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nvm_am.pool_size is too small"),
				 errhint("Set nvm_am.pool_size to at least 16MB.")));

	/* a leftover from a creation that crashed never holds data */
	(void) unlink(tmppath);

	/* create the default directory pg_nvm if needed */
	dir = pstrdup(pool_resolved_path);
	get_parent_directory(dir);
	if (strcmp(nvm_pool_path, "pg_nvm/nvm_am.pool") == 0)
		(void) MakePGDirectory(dir);

	/* the data directory's mode, as PostgreSQL's own files (initdb -g) */
	base = pmem_map_file(tmppath, size, PMEM_FILE_CREATE | PMEM_FILE_EXCL,
						 pg_file_create_mode, &mapped_len, &is_pmem);
	if (base == NULL)
	{
		int			save_errno = errno;

		(void) unlink(tmppath);
		errno = save_errno;
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not create nvm_am pool file \"%s\" of %llu bytes: %m",
						pool_resolved_path, (unsigned long long) size),
				 (save_errno == ENOSPC || save_errno == EFBIG || save_errno == EDQUOT) ?
				 errhint("Free space on the device holding \"%s\" or set nvm_am.pool_size lower.", dir) :
				 errhint("Make sure directory \"%s\" exists and is writable by the server, or set nvm_am.pool_path.", dir)));
	}
	memcpy(base, &hdr, sizeof(hdr));
	NvmPoolSetPointers(base, is_pmem != 0, tmppath);
	/* the directory area of a freshly allocated file is zero already */
	NvmPoolPersist(base, hdr.frames_offset);

	if (rename(tmppath, pool_resolved_path) != 0)
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not rename \"%s\" to \"%s\": %m",
						tmppath, pool_resolved_path)));
	fsync_fname(dir, true);
	ereport(LOG,
			(errmsg("nvm_am created pool file \"%s\" of %llu bytes (%llu page frames, %s)",
					pool_resolved_path, (unsigned long long) size,
					(unsigned long long) hdr.nframes,
					is_pmem ? "persistent memory" : "msync")));
}

static void NvmPoolFileFailed(const char *verb, const char *hint) pg_attribute_noreturn();
static void NvmPoolRefuse(const char *msg, const char *detail,
						  const char *hint) pg_attribute_noreturn();

/*
 * NvmPoolFileFailed - stop startup: a system call on the pool file failed
 * (errno is set); verb names the operation.
 */
static void
NvmPoolFileFailed(const char *verb, const char *hint)
{
	ereport(FATAL,
			(errcode_for_file_access(),
			 errmsg("could not %s nvm_am pool file \"%s\": %m", verb, pool_resolved_path),
			 hint ? errhint("%s", hint) : 0));
}

/*
 * NvmPoolRefuse - stop startup: the pool file exists but cannot be used.
 * msg completes "nvm_am pool file PATH ..."; detail may be NULL.
 */
static void
NvmPoolRefuse(const char *msg, const char *detail, const char *hint)
{
	ereport(FATAL,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am pool file \"%s\" %s", pool_resolved_path, msg),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("%s", hint)));
}

/* a crash injected by the tests of growth (t/016): after step n */
static void
NvmPoolGrowCrashPoint(int step)
{
	const char *at = getenv("NVM_AM_TEST_GROWTH_CRASH");

	if (at != NULL && atoi(at) == step)
		(void) kill(getpid(), SIGKILL);
}

/*
 * NvmPoolGrow - add an extent to the pool so that it reaches the configured
 * size: frames, each with its log area, after the pool's current end
 * (described bytes).  Called in the postmaster before the pool is mapped.
 * Crash-safe in three steps, each made durable before the next:
 *	1. the file is extended (zeroed space) -- a crash leaves a longer file,
 *	   which the next start grows into again;
 *	2. the extent's description is written past the counted ones -- a crash
 *	   leaves a description nobody counts;
 *	3. the extent count, one aligned 8-byte write, publishes it.
 * The new frames are free: no directory entry reaches them.
 */
static void
NvmPoolGrow(int fd, const NvmPoolHeader *hdr, NvmPoolRuntime *rt,
			uint64 described, struct stat *st)
{
	uint64		configured = NvmPoolConfiguredSize();
	uint64		offset = TYPEALIGN(NVM_FRAME_SIZE, described);
	uint64		nframes = 0;
	uint64		count;
	uint64		end;
	NvmPoolExtent x;
	int			rc;

	if (configured > offset)
		nframes = NvmPoolFramesThatFit(configured - offset, hdr->log_size,
									   hdr->log_share);
	nframes = Min(nframes, NVM_MAX_EXTENT_FRAMES);
	if (nframes == 0)
		return;					/* too little to hold a frame */
	x.offset = offset;
	x.nframes = nframes;
	end = NvmPoolExtentEnd(&x, hdr);
	if (rt->nextents >= NVM_MAX_EXTENTS)
		NvmPoolRefuse("cannot grow any more",
					  psprintf("The pool has grown %d times, the most a pool can.", NVM_MAX_EXTENTS),
					  "Set nvm_am.pool_size back to the pool's size; for a larger pool, dump the nvm_am tables, move the pool file away, and restore them into the new pool.");

	rc = posix_fallocate(fd, 0, end);
	if (rc != 0)
	{
		errno = rc;
		ereport(FATAL,
				(errcode(rc == ENOSPC ? ERRCODE_DISK_FULL : ERRCODE_IO_ERROR),
				 errmsg("could not grow nvm_am pool file \"%s\" to %llu bytes: %m",
						pool_resolved_path, (unsigned long long) end),
				 errdetail("The pool keeps its %llu bytes.", (unsigned long long) described),
				 errhint("Free space on the file system holding the pool, or set nvm_am.pool_size back.")));
	}
	if (pg_fsync(fd) != 0)
		NvmPoolFileFailed("fsync", NULL);
	NvmPoolGrowCrashPoint(1);

	if (pg_pwrite(fd, &x, sizeof(x), NVM_RUNTIME_OFFSET + offsetof(NvmPoolRuntime, extents) +
				  rt->nextents * sizeof(x)) != sizeof(x) ||
		pg_fsync(fd) != 0)
		NvmPoolFileFailed("write", NULL);
	NvmPoolGrowCrashPoint(2);

	count = rt->nextents + 1;
	if (pg_pwrite(fd, &count, sizeof(count),
				  NVM_RUNTIME_OFFSET + offsetof(NvmPoolRuntime, nextents)) != sizeof(count) ||
		pg_fsync(fd) != 0)
		NvmPoolFileFailed("write", NULL);
	rt->extents[rt->nextents] = x;
	rt->nextents = count;
	NvmPoolGrowCrashPoint(3);

	if (fstat(fd, st) != 0)
		NvmPoolFileFailed("stat", NULL);
	ereport(LOG,
			(errmsg("nvm_am pool file \"%s\" grew from %llu to %llu bytes: %llu page frames added",
					pool_resolved_path, (unsigned long long) described,
					(unsigned long long) end,
					(unsigned long long) nframes)));
}

static void
NvmPoolOpenExisting(struct stat *st)
{
	NvmPoolHeader hdr;
	NvmPoolRuntime rt;
	uint64		described;
	ssize_t		n;
	int			fd = pool_lock_fd;
	int			rc;
	size_t		mapped_len;
	int			is_pmem;
	void	   *base;
	const char *move_hint = "Point nvm_am.pool_path at the right pool file, or move this file away to create a new, empty pool (the nvm_am tables it held are then lost).";

	if (st->st_size == 0)
		NvmPoolRefuse("is empty",
					  "A zero-length file is never written by nvm_am; the pool was truncated or replaced.",
					  move_hint);
	if (st->st_size < (off_t) sizeof(NvmPoolHeader))
		NvmPoolRefuse("is truncated", psprintf("The file has %lld bytes, less than a pool header.",
											(long long) st->st_size),
				   move_hint);
	n = pg_pread(fd, &hdr, sizeof(hdr), 0);
	if (n != sizeof(hdr))
		NvmPoolFileFailed("read", NULL);
	if (hdr.magic != NVM_POOL_MAGIC)
		NvmPoolRefuse("is not an nvm_am pool",
					  "The file does not start with the nvm_am pool magic number.", move_hint);
	if (hdr.checksum != NvmPoolHeaderChecksum(&hdr))
		NvmPoolRefuse("has a corrupt header",
					  "The header checksum does not match its contents.", move_hint);
	if (hdr.format_version < NVM_POOL_FORMAT_VERSION_MIN ||
		hdr.format_version > NVM_POOL_FORMAT_VERSION)
		NvmPoolRefuse("has an unsupported format version",
					  psprintf("The file has format version %u, this build of nvm_am reads versions %u to %u.",
							hdr.format_version, NVM_POOL_FORMAT_VERSION_MIN,
							NVM_POOL_FORMAT_VERSION),
				   "Use the nvm_am version that created the pool, or move the file away to create a new pool.");
	if (hdr.system_identifier != GetSystemIdentifier())
		NvmPoolRefuse("belongs to another database cluster",
					  psprintf("The pool was created by the cluster with system identifier %llu, this cluster's is %llu.",
							(unsigned long long) hdr.system_identifier,
							(unsigned long long) GetSystemIdentifier()),
				   move_hint);
	if (hdr.log_share < 1 || hdr.log_share > NVM_FRAME_SIZE)
		NvmPoolRefuse("has an inconsistent layout",
					  psprintf("The header says 1 frame in %u has a log area.", hdr.log_share),
					  move_hint);
	/* the extents added by growing the pool, and the size they make */
	n = pg_pread(fd, &rt, sizeof(rt), NVM_RUNTIME_OFFSET);
	if (n != sizeof(rt))
		NvmPoolFileFailed("read", NULL);
	described = hdr.pool_size;
	if (rt.nextents > NVM_MAX_EXTENTS)
		NvmPoolRefuse("has a corrupt extent list",
					  psprintf("It counts %llu extents, at most %d can exist.",
							   (unsigned long long) rt.nextents, NVM_MAX_EXTENTS),
					  move_hint);
	for (uint64 i = 0; i < rt.nextents; i++)
	{
		if (rt.extents[i].offset != TYPEALIGN(NVM_FRAME_SIZE, described) ||
			rt.extents[i].nframes == 0 || rt.extents[i].nframes > NVM_MAX_EXTENT_FRAMES)
			NvmPoolRefuse("has a corrupt extent list",
						  psprintf("Extent %llu does not follow the pool's end at %llu bytes.",
								   (unsigned long long) i, (unsigned long long) described),
						  move_hint);
		described = NvmPoolExtentEnd(&rt.extents[i], &hdr);
	}
	if ((uint64) st->st_size < described)
		NvmPoolRefuse("is truncated",
					  psprintf("The header and the pool's extents record %llu bytes, the file has %llu.",
							   (unsigned long long) described,
							   (unsigned long long) st->st_size),
					  move_hint);
	if (NvmPoolConfiguredSize() < described)
		NvmPoolRefuse("is larger than nvm_am.pool_size",
					  psprintf("The pool has %llu bytes, nvm_am.pool_size asks for %llu; a pool cannot shrink.",
							   (unsigned long long) described,
							   (unsigned long long) NvmPoolConfiguredSize()),
					  psprintf("Set nvm_am.pool_size = '%lluMB' or more (a larger value grows the pool).",
							   (unsigned long long) ((described + 1024 * 1024 - 1) / (1024 * 1024))));
	if (hdr.log_size != (uint32) nvm_ipl_log_size)
		NvmPoolRefuse("has another in-page log size",
					  psprintf("The pool was created with nvm_am.ipl_log_size = %u bytes, the setting is %d bytes.",
							hdr.log_size, nvm_ipl_log_size),
				   psprintf("Set nvm_am.ipl_log_size = '%uB' to use this pool; the log size of a pool is fixed when it is created.",
							hdr.log_size));
	if (hdr.frame_size != NVM_FRAME_SIZE ||
		hdr.dir_offset != NVM_HEADER_SIZE ||
		hdr.xact_offset < hdr.dir_offset + hdr.dir_entries * sizeof(NvmDirEntry) ||
		hdr.xact_slots != NVM_XACT_SLOTS ||
		hdr.clog_offset != hdr.xact_offset + hdr.xact_slots * sizeof(NvmXactSlot) ||
		hdr.clog_entries != NVM_COMMIT_LOG_ENTRIES ||
		hdr.frames_offset < hdr.clog_offset + hdr.clog_entries * sizeof(NvmCommitEntry) ||
		hdr.logs_offset != hdr.frames_offset + hdr.nframes * NVM_FRAME_SIZE ||
		hdr.logs_offset + NvmPoolLogFrames(hdr.nframes, hdr.log_size, hdr.log_share) *
		hdr.log_size > hdr.pool_size)
		NvmPoolRefuse("has an inconsistent layout",
					  "The header's offsets do not fit the file.", move_hint);

	if (NvmPoolConfiguredSize() > described)
		NvmPoolGrow(fd, &hdr, &rt, described, st);

	/*
	 * A pool copied with holes (cp --sparse=always, rsync -S, tar -S) maps
	 * fine, but the first store into a hole on a file system that has no
	 * space left is a SIGBUS, in the postmaster or in whichever backend
	 * touches it.  Allocate every byte now, or refuse to start.
	 */
	rc = posix_fallocate(fd, 0, st->st_size);
	if (rc != 0)
	{
		errno = rc;
		ereport(FATAL,
				(errcode(rc == ENOSPC ? ERRCODE_DISK_FULL : ERRCODE_IO_ERROR),
				 errmsg("could not allocate the space of nvm_am pool file \"%s\" (%llu bytes): %m",
						pool_resolved_path, (unsigned long long) st->st_size),
				 errdetail("The file has holes (it was copied as a sparse file); the file system must hold all of it before the server writes into it."),
				 errhint("Free space on the file system holding the pool, or move the pool to one with enough space.")));
	}

	base = pmem_map_file(pool_resolved_path, 0, 0, 0, &mapped_len, &is_pmem);
	if (base == NULL)
		NvmPoolFileFailed("map", NULL);
	NvmPoolSetPointers(base, is_pmem != 0, pool_resolved_path);
}

/*
 * NvmPoolCheckTraceDir - at start-up (postmaster), refuse to start when
 * nvm_am.persist_trace names no directory the server can write into: every
 * process would fail on its first flush, far from the cause.
 */
static void
NvmPoolCheckTraceDir(void)
{
	struct stat st;
	const char *detail = NULL;

	if (!NvmPoolTracing())
		return;
	if (stat(nvm_persist_trace, &st) != 0)
		detail = errno == ENOENT ? "The directory does not exist." :
			"The server cannot look at the directory.";
	else if (!S_ISDIR(st.st_mode))
		detail = "It is not a directory.";
	else if (access(nvm_persist_trace, W_OK | X_OK) != 0)
		detail = "The server cannot write into the directory.";
	if (detail != NULL)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"nvm_am.persist_trace\": \"%s\"",
						nvm_persist_trace),
				 errdetail("%s", detail),
				 errhint("Create the directory, make it writable by the server's operating system user, or set nvm_am.persist_trace to an empty string.")));
}

/*
 * NvmPoolOpenOrCreate - map the pool file, creating it on first start.
 *
 * Runs in the postmaster (or a single-user backend) while the shared
 * preload libraries are loaded.  Any problem stops startup with FATAL.
 */
void
NvmPoolOpenOrCreate(void)
{
	struct stat st;

	NvmPoolCheckTraceDir();
	NvmPoolResolvePath();
	if (stat(pool_resolved_path, &st) != 0)
	{
		if (errno != ENOENT)
			NvmPoolFileFailed("stat", NULL);
		NvmPoolCreate();
	}
	else if (!S_ISREG(st.st_mode))
		NvmPoolRefuse("is not a regular file", NULL,
					  "Set nvm_am.pool_path to a file on a DAX file system or on /dev/shm.");

	pool_lock_fd = open(pool_resolved_path, O_RDWR | O_CLOEXEC | PG_BINARY, 0);
	if (pool_lock_fd < 0)
		NvmPoolFileFailed("open", "The file must be readable and writable by the server's operating system user.");
	if (flock(pool_lock_fd, LOCK_EX | LOCK_NB) != 0)
		ereport(FATAL,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("nvm_am pool file \"%s\" is in use by another server", pool_resolved_path),
				 errhint("Each cluster needs its own pool: set nvm_am.pool_path to another file.")));
	if (pool_base == NULL)
	{
		if (fstat(pool_lock_fd, &st) != 0)
			NvmPoolFileFailed("stat", NULL);
		NvmPoolOpenExisting(&st);
	}

	/*
	 * A backup_label in the data directory: this is a base backup starting
	 * up (or a server pg_rewind rewound), and its pool may be a copy taken
	 * while the pool changed, until WAL replay reaches consistency (also
	 * across restarts before that).  Whatever nvm_am.wal_log says now: the
	 * WAL to replay may hold page records.
	 */
	if (access(BACKUP_LABEL_FILE, F_OK) == 0)
		NvmPoolPublish64(&pool_runtime->copy_pending, 1);
}

/*
 * NvmPoolCopyPending - is the pool a base backup's copy, taken while it
 * changed, that WAL replay has not brought to consistency yet?  Its page
 * tables may then reach one frame twice (NvmPoolSetKeepFrames).
 */
bool
NvmPoolCopyPending(void)
{
	return pool_runtime->copy_pending != 0;
}

/*
 * NvmPoolCopySettled - WAL replay reached consistency: the pool is no
 * longer a copy in the making.
 */
void
NvmPoolCopySettled(void)
{
	NvmPoolPublish64(&pool_runtime->copy_pending, 0);
}

/*
 * NvmPoolCheckPreloaded - error out unless the pool was mapped by the
 * postmaster, i.e. nvm_am is in shared_preload_libraries.  Every entry
 * point calls this before it touches the pool.
 */
void
NvmPoolCheckPreloaded(void)
{
	if (!NvmPoolIsMapped())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am must be loaded via shared_preload_libraries"),
				 errhint("Add nvm_am to shared_preload_libraries in postgresql.conf and restart the server.")));
}

/*
 * NvmPoolIsMapped - is the pool mapped in this process?
 */
bool
NvmPoolIsMapped(void)
{
	return pool_base != NULL;
}

/* ----------------------------------------------------------------
 * Shared memory
 * ----------------------------------------------------------------
 */

static uint64
NvmPoolBitmapWords(void)
{
	NvmPoolHeader hdr;

	/* the postmaster knows the layout before shared memory exists */
	if (pool_header)
		return (pool_nframes + 64) / 64;
	NvmPoolComputeLayout(&hdr, NvmPoolConfiguredSize());
	return (hdr.nframes + 64) / 64;
}

/*
 * NvmPoolFrameCount - number of page frames in the pool (the postmaster knows
 * it before shared memory exists).
 */
uint64
NvmPoolFrameCount(void)
{
	NvmPoolHeader hdr;

	if (pool_header)
		return pool_nframes;
	NvmPoolComputeLayout(&hdr, NvmPoolConfiguredSize());
	return hdr.nframes;
}

/*
 * NvmPoolShmemSize - shared memory of the pool: the free bitmap, the
 * bitmaps of log frames and of the frames a copy's page tables reach, one
 * pin word per frame plus extra_pins pin words for the caller's own
 * pinnable objects (the merge cache's image slots), numbered after the
 * frames, the LSN of each frame's page's last WAL record, and a flag per
 * directory entry that the start found damaged.
 */
Size
NvmPoolShmemSize(uint64 extra_pins)
{
	Size		size = add_size(offsetof(NvmPoolShared, bitmap),
								mul_size(3 * NvmPoolBitmapWords(), sizeof(uint64)));

	size = add_size(size, mul_size(NvmPoolFrameCount() + 1 + extra_pins,
								   sizeof(pg_atomic_uint32)));
	/* the LSN of each frame's page's last WAL record (NvmPoolFrameWalLsn) */
	size = add_size(size, mul_size(NvmPoolFrameCount() + 1, sizeof(uint64)));
	/* one flag per directory entry: damaged (NvmPoolRebuildAllocation) */
	size = add_size(size, pool_header ? pool_header->dir_entries : 0);
	/* a row of counters per PGPROC, cache-line aligned */
	return add_size(size, PG_CACHE_LINE_SIZE +
					mul_size(NvmPoolCounterProcs(), sizeof(NvmCounterRow)));
}

void
NvmPoolRequestLocks(void)
{
	RequestNamedLWLockTranche(NVM_TRANCHE_DIR, 1);
	RequestNamedLWLockTranche(NVM_TRANCHE_ALLOC, 1);
	RequestNamedLWLockTranche(NVM_TRANCHE_CLOG, NVM_COMMIT_LOG_PARTS);
	RequestNamedLWLockTranche(NVM_TRANCHE_PAGE, NVM_PAGE_LOCKS);
}

/* is frame's bit set in mask (one of the bitmaps in NvmPoolShared)? */
static inline bool
NvmPoolMaskTest(const uint64 *mask, uint64 frame)
{
	return (mask[frame / 64] >> (frame % 64)) & 1;
}

/* is frame a log frame? */
static inline bool
NvmPoolIsLogFrame(uint64 frame)
{
	return NvmPoolMaskTest(pool_logmask, frame);
}

static inline bool
NvmPoolBitTest(uint64 frame)
{
	return NvmPoolMaskTest(pool_shared->bitmap, frame);
}

static inline void
NvmPoolBitSet(uint64 frame)
{
	pool_shared->bitmap[frame / 64] |= UINT64CONST(1) << (frame % 64);
}

static inline void
NvmPoolBitClear(uint64 frame)
{
	pool_shared->bitmap[frame / 64] &= ~(UINT64CONST(1) << (frame % 64));
}

/*
 * NvmPoolMarkUsed - mark a reachable frame during the rebuild.  Returns false
 * for a frame number outside the pool (a corrupt entry).
 */
bool
NvmPoolMarkUsed(uint64 frame, int dirIndex)
{
	if (!NvmPoolFrameValid(frame))
	{
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("nvm_am pool entry %d references frame %llu outside the pool",
						dirIndex, (unsigned long long) frame)));
		return false;
	}
	if (!NvmPoolBitTest(frame))
	{
		NvmPoolBitSet(frame);
		pool_shared->frames_free--;
		if (NvmPoolIsLogFrame(frame))
			pool_shared->log_frames_free--;
	}
	return true;
}

/*
 * NvmPoolMarkLogFrames - fill the bitmap of log frames: the first ones of
 * the header's frames and of each extent's (NvmPoolLogFrames).
 */
static void
NvmPoolMarkLogFrames(void)
{
	uint64		first = 1;
	uint64		n = pool_header->nframes;
	uint64		x = 0;

	memset(pool_logmask, 0, NvmPoolBitmapWords() * sizeof(uint64));
	for (;;)
	{
		uint64		nlog = NvmPoolLogFrames(n, pool_header->log_size,
											pool_header->log_share);

		for (uint64 f = first; f < first + nlog; f++)
			pool_logmask[f / 64] |= UINT64CONST(1) << (f % 64);
		first += n;
		if (x == pool_runtime->nextents)
			break;
		n = pool_runtime->extents[x++].nframes;
	}
}

/*
 * NvmPoolRebuildAllocation - derive the free bitmap from the page tables and
 * clear page-table entries at or beyond a relation's nblocks (left by a
 * crash during an extension or a truncation).
 */
static void
NvmPoolRebuildAllocation(void)
{
	uint64		words = NvmPoolBitmapWords();

	memset(pool_shared->bitmap, 0, words * sizeof(uint64));
	memset(pool_copymask, 0, words * sizeof(uint64));
	NvmPoolMarkLogFrames();
	pool_shared->frames_free = pool_nframes;
	pool_shared->log_frames_free = pool_log_frames;
	/* bit 0 and bits past nframes are never allocatable */
	pool_shared->bitmap[0] |= 1;
	for (uint64 f = pool_nframes + 1; f < words * 64; f++)
		NvmPoolBitSet(f);

	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		NvmDirEntry *e = &pool_dir[i];
		const char *damage;

		if (e->state == 0)
			continue;
		damage = NvmPoolDirCheckEntry(e);
		if (damage != NULL)
		{
			/*
			 * Act on nothing it says: no reclaiming, no resolving; keep every
			 * frame its root may reach in use.  The relation reports the
			 * damage when it is used.
			 */
			pool_dir_damaged[i] = true;
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("nvm_am pool directory entry %d of relation %u/%u/%u is damaged: %s fails its check",
							i, e->spcNode, e->dbNode, e->relNode, damage),
					 errdetail("nvm_am does not read, change or reclaim anything through this entry."),
					 errhint("Drop the table (its space comes back at the next start), or restore the pool file from a backup.")));
		}
		NvmPoolRelMarkFrames(i, pool_dir_damaged[i]);
	}
	/* a base backup's copy: what its page tables reach may be reached twice */
	if (pool_runtime->copy_pending)
		memcpy(pool_copymask, pool_shared->bitmap, words * sizeof(uint64));
}

/*
 * NvmPoolShmemInit - attach the shared state; in the postmaster (at start and
 * after a crash of a backend) rebuild the allocation state from the pool.
 */
void
NvmPoolShmemInit(uint64 extra_pins)
{
	bool		found;

	pool_shared = ShmemInitStruct("nvm_am pool", NvmPoolShmemSize(extra_pins), &found);
	pool_logmask = pool_shared->bitmap + NvmPoolBitmapWords();
	pool_copymask = pool_shared->bitmap + 2 * NvmPoolBitmapWords();
	pool_pins = (pg_atomic_uint32 *) ((char *) pool_shared +
									  add_size(offsetof(NvmPoolShared, bitmap),
											   mul_size(3 * NvmPoolBitmapWords(), sizeof(uint64))));
	pool_wal_lsn = (uint64 *) (pool_pins + NvmPoolFrameCount() + 1 + extra_pins);
	pool_dir_damaged = (bool *) (pool_wal_lsn + NvmPoolFrameCount() + 1);
	pool_counter_rows = (NvmCounterRow *)
		CACHELINEALIGN(pool_dir_damaged + (pool_header ? pool_header->dir_entries : 0));
	if (!found)
	{
		if (pool_header)
			memset(pool_dir_damaged, 0, pool_header->dir_entries);
		for (int p = 0; p < NvmPoolCounterProcs(); p++)
			for (int i = 0; i < NVM_NUM_COUNTERS; i++)
				pg_atomic_init_u64(&pool_counter_rows[p].c[i], 0);
		for (uint64 f = 0, last = NvmPoolFrameCount() + extra_pins; f <= last; f++)
			pg_atomic_init_u32(&pool_pins[f], 0);
		memset(pool_wal_lsn, 0, (NvmPoolFrameCount() + 1) * sizeof(uint64));
		pool_shared->extra_pins = extra_pins;
		pool_shared->dir_lock = GetNamedLWLockTranche(NVM_TRANCHE_DIR);
		pool_shared->alloc_lock = GetNamedLWLockTranche(NVM_TRANCHE_ALLOC);
		pool_shared->clog_locks = GetNamedLWLockTranche(NVM_TRANCHE_CLOG);
		pool_shared->page_locks = GetNamedLWLockTranche(NVM_TRANCHE_PAGE);
		pool_shared->alloc_hint[0] = pool_shared->alloc_hint[1] = 0;
		pool_shared->frames_kept = false;
		pg_atomic_init_u64(&pool_shared->trace_seq, 1);
		for (int i = 0; i < NVM_NUM_COUNTERS; i++)
			pg_atomic_init_u64(&pool_shared->counters[i], 0);
		pool_shared->first_gen = PG_UINT64_MAX;
		if (pool_base)
		{
			instr_time	start;
			instr_time	duration;

			INSTR_TIME_SET_CURRENT(start);
			NvmPoolRebuildAllocation();
			INSTR_TIME_SET_CURRENT(duration);
			INSTR_TIME_SUBTRACT(duration, start);
			/* the first part of recovery; NvmCommitRecover adds its own */
			NvmPoolCountAdd(NVM_STAT_RECOVERY_US, INSTR_TIME_GET_MICROSEC(duration));
			/*
			 * Numbers below the high-water mark may have been used.  A copy
			 * taken while the pool changed (a base backup) may have a
			 * high-water mark older than numbers its logs hold: start far
			 * beyond it.
			 */
			pool_shared->first_gen = pool_runtime->gen_high_water + 1 +
				(pool_runtime->copy_pending ? NVM_GEN_COPY_GAP : 0);
			pg_atomic_init_u64(&pool_shared->next_gen, pool_shared->first_gen);
		}
	}
}

/* ----------------------------------------------------------------
 * Counters and information
 * ----------------------------------------------------------------
 */

/*
 * NvmPoolCountAdd - add n to counter c.  A process with a PGPROC adds to its
 * own row, which no other process writes: a plain load and store, no
 * shared cache line (a single cluster-wide counter would be one line that
 * every core fights over).  Others (the postmaster) add atomically to the
 * shared row.  Readers sum the rows.
 */
void
NvmPoolCountAdd(NvmCounter c, uint64 n)
{
	pg_atomic_uint64 *row = my_counter_row;

	/* the row is looked up once; not after ProcKill gave the PGPROC back */
	if (unlikely(row == NULL || MyProc == NULL))
	{
		if (MyProc == NULL || pool_counter_rows == NULL ||
			MyProc->pgprocno >= NvmPoolCounterProcs())
		{
			if (pool_shared)
				pg_atomic_fetch_add_u64(&pool_shared->counters[c], n);
			return;
		}
		row = my_counter_row = pool_counter_rows[MyProc->pgprocno].c;
	}
	pg_atomic_write_u64(&row[c], pg_atomic_read_u64(&row[c]) + n);
}

uint64
NvmPoolCounterValue(NvmCounter c)
{
	uint64		sum;

	if (pool_shared == NULL)
		return 0;
	sum = pg_atomic_read_u64(&pool_shared->counters[c]);
	for (int p = 0; p < NvmPoolCounterProcs(); p++)
		sum += pg_atomic_read_u64(&pool_counter_rows[p].c[c]);
	return sum;
}

const char *
NvmPoolCounterName(NvmCounter c)
{
	return counter_names[c];
}

/*
 * NvmPoolGetInfo - fill *info; takes the directory and allocation locks shared.
 */
void
NvmPoolGetInfo(NvmPoolInfo *info)
{
	const char *force = getenv("PMEM_IS_PMEM_FORCE");
	uint64		rels = 0;

	LWLockAcquire(NvmPoolDirLock(), LW_SHARED);
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
		if (pool_dir[i].state != 0)
			rels++;
	LWLockRelease(NvmPoolDirLock());

	/* frames in the batches of backends count as free */
	LWLockAcquire(&pool_shared->alloc_lock->lock, LW_SHARED);
	info->frames_free = pool_shared->frames_free +
		NvmPoolCounterValue(NVM_STAT_FRAMES_IN_BATCHES);
	info->log_frames_free = pool_shared->log_frames_free +
		NvmPoolCounterValue(NVM_STAT_LOG_FRAMES_IN_BATCHES);
	LWLockRelease(&pool_shared->alloc_lock->lock);

	info->path = pool_resolved_path;
	info->size = pool_total_size;
	info->frames_total = pool_nframes;
	info->log_frames_total = pool_log_frames;
	info->frame_bytes = NVM_FRAME_SIZE;
	info->log_bytes = pool_header->log_size;
	info->metadata_bytes = info->size - info->frames_total * info->frame_bytes -
		info->log_frames_total * info->log_bytes;
	info->relations = rels;
	info->format_version = pool_header->format_version;
	info->is_pmem = pool_is_pmem;
	info->emulated = force != NULL && force[0] == '1';
}

/* ----------------------------------------------------------------
 * Locks
 * ----------------------------------------------------------------
 */

LWLock *
NvmPoolDirLock(void)
{
	return &pool_shared->dir_lock->lock;
}

/*
 * NvmPoolCommitLogLock - the lock around the allocation state of part part
 * of the commit log
 */
LWLock *
NvmPoolCommitLogLock(int part)
{
	Assert(part >= 0 && part < NVM_COMMIT_LOG_PARTS);
	return &pool_shared->clog_locks[part].lock;
}

/*
 * NvmPoolXactSlot, NvmPoolCommitEntry - the pool's transaction slot i and
 * commit-log entry i.  nvm_commit.c writes them through the persist
 * primitives.
 */
NvmXactSlot *
NvmPoolXactSlot(int i)
{
	Assert(i >= 0 && i < NVM_XACT_SLOTS);
	return &pool_slots[i];
}

NvmCommitEntry *
NvmPoolCommitEntry(int i)
{
	Assert(i >= 0 && i < NVM_COMMIT_LOG_ENTRIES);
	return &pool_clog[i];
}

/*
 * NvmPoolPageLock - the LWLock that guards reads and changes of one page.
 */
LWLock *
NvmPoolPageLock(int dirIndex, BlockNumber blkno)
{
	uint32		h = (uint32) dirIndex * 0x9E3779B1u ^ (uint32) blkno * 0x85EBCA77u;

	return &pool_shared->page_locks[h % NVM_PAGE_LOCKS].lock;
}

/* ----------------------------------------------------------------
 * Frames
 * ----------------------------------------------------------------
 */

/*
 * Frames are taken lowest first: alloc_hint[kind] is a bitmap word below
 * which no frame of that kind is free, raised as frames are taken and
 * lowered as they are freed.  Every backend maps a page of the pool on its
 * first touch (a page fault), so the busy frames should stay in as few
 * pages of the mapping as they can; a rover that went round the whole pool
 * made every backend fault on page after page as long as it ran.
 *
 * Frames are taken from the bitmap in batches: a backend takes up to
 * NVM_FRAME_BATCH free frames under one acquisition of the allocation lock
 * and hands them out one at a time, so that a merge or a new page does not
 * take a cluster-wide lock each time.  A batch is at most a 64th of the
 * free frames, so batches cannot make a pool with room look full (with
 * fewer than 128 free frames a batch is one frame, as without batches).
 * Frames in a batch are marked in use in the bitmap, but no page table
 * reaches them and they count as free (the counter frames_in_batches,
 * per process): they go back at backend exit, and after a crash the
 * rebuild of the bitmap frees them like any frame no page table reaches.
 */
#define NVM_FRAME_BATCH		16

static void NvmPoolFreeFramesCounted(uint64 *frames, int n, bool fromBatch);
static void NvmPoolPrefaultBatch(const uint64 *batch, int n, bool isLog);

/* one batch per kind of frame: [0] plain frames, [1] log frames */
static uint64 batch_frames[2][NVM_FRAME_BATCH];
static int	batch_nframes[2] = {0, 0};
static bool batch_exit_registered = false;

/*
 * NvmPoolReturnBatch - give the frames of this backend's batches back to
 * the bitmap (before_shmem_exit callback).
 */
static void
NvmPoolReturnBatch(int code, Datum arg)
{
	for (int k = 0; k < 2; k++)
	{
		if (batch_nframes[k] > 0 && pool_shared != NULL)
			NvmPoolFreeFramesCounted(batch_frames[k], batch_nframes[k], true);
		batch_nframes[k] = 0;
	}
}

/*
 * NvmPoolRefillBatch - take free frames of kind isLog from the bitmap into
 * this backend's empty batch of that kind; takes the allocation lock.
 */
static void
NvmPoolRefillBatch(bool isLog)
{
	LWLock	   *lock = &pool_shared->alloc_lock->lock;
	uint64		words = NvmPoolBitmapWords();
	uint64	   *batch = batch_frames[isLog];
	int			n = 0;
	uint64		kindFree;
	int			want;

	Assert(batch_nframes[isLog] == 0);
	if (!batch_exit_registered)
	{
		before_shmem_exit(NvmPoolReturnBatch, (Datum) 0);
		batch_exit_registered = true;
	}
	LWLockAcquire(lock, LW_EXCLUSIVE);
	kindFree = isLog ? pool_shared->log_frames_free :
		pool_shared->frames_free - pool_shared->log_frames_free;
	want = (int) Min((uint64) NVM_FRAME_BATCH, Max(kindFree / 64, 1));
	for (uint64 i = 0; i < words && n < want && kindFree > 0; i++)
	{
		uint64		w = (pool_shared->alloc_hint[isLog] + i) % words;
		uint64		avail = ~pool_shared->bitmap[w] &
			(isLog ? pool_logmask[w] : ~pool_logmask[w]);

		while (avail != 0 && n < want)
		{
			uint64		frame = w * 64 + pg_rightmost_one_pos64(avail);

			avail &= avail - 1;
			NvmPoolBitSet(frame);
			pool_shared->frames_free--;
			if (isLog)
				pool_shared->log_frames_free--;
			kindFree--;
			pool_shared->alloc_hint[isLog] = w;
			Assert(NvmPoolFrameValid(frame));
			batch[n++] = frame;
		}
	}
	NvmPoolCountAdd(NVM_STAT_FRAMES_IN_BATCHES, n);
	if (isLog)
		NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_IN_BATCHES, n);
	LWLockRelease(lock);
	/* the batch is a stack: reverse it to hand out in ascending order */
	for (int i = 0; i < n / 2; i++)
	{
		uint64		t = batch[i];

		batch[i] = batch[n - 1 - i];
		batch[n - 1 - i] = t;
	}
	batch_nframes[isLog] = n;
	NvmPoolPrefaultBatch(batch, n, isLog);
}

/*
 * NvmPoolPrefault - map [start, end) of the pool into this process's page
 * tables now.  The pool is mapped by the postmaster, and a forked backend
 * has none of its page-table entries: its first write to each 4 kB page of
 * a frame it was just given is a page fault of its own (the kernel maps
 * neighbouring pages ahead only for reads), about 1.6 us on the machine of
 * the benchmarks, 20 % of a COPY into a new table.  One madvise maps a
 * range in one call, a tmpfs range for reads in a few faults of 16 pages.
 * Contents are not touched.  A refusal only turns this off.
 */
static void
NvmPoolPrefault(const char *start, const char *end)
{
	static uintptr_t pagesize = 0;
	uintptr_t	from;
	uintptr_t	to;

	if (pool_populate_advice == 0 || start == NULL)
		return;
	if (pagesize == 0)
		pagesize = (uintptr_t) sysconf(_SC_PAGESIZE);
	from = TYPEALIGN_DOWN(pagesize, (uintptr_t) start);
	to = TYPEALIGN(pagesize, (uintptr_t) end);
	/* a kernel without MADV_POPULATE_*: EINVAL; anything else is transient */
	if (to > from && madvise((void *) from, to - from, pool_populate_advice) != 0 &&
		errno == EINVAL)
		pool_populate_advice = 0;
}

/*
 * NvmPoolPrefaultBatch - NvmPoolPrefault the n frames of a new batch (kept
 * as a stack, highest first: walked from its end, ascending) and, for log
 * frames, their log areas, a run of adjacent ones at a time.
 */
static void
NvmPoolPrefaultBatch(const uint64 *batch, int n, bool isLog)
{
	for (int kind = 0; kind <= (isLog ? 1 : 0); kind++)
	{
		Size		size = kind == 0 ? NVM_FRAME_SIZE : pool_header->log_size;
		char	   *runStart = NULL;
		char	   *runEnd = NULL;

		for (int i = n - 1; i >= 0; i--)
		{
			char	   *a = kind == 0 ? (char *) NvmPoolFrameAddr(batch[i]) :
				NvmPoolFrameLog(batch[i]);

			if (a == NULL)
				continue;
			if (a != runEnd)
			{
				NvmPoolPrefault(runStart, runEnd);
				runStart = a;
			}
			runEnd = a + size;
		}
		NvmPoolPrefault(runStart, runEnd);
	}
}

/*
 * NvmPoolTakeFrame - a frame of kind isLog from this backend's batch
 * (refilled if empty), or 0 when the pool has none of that kind.
 */
static uint64
NvmPoolTakeFrame(bool isLog)
{
	uint64		frame;

	if (batch_nframes[isLog] == 0)
		NvmPoolRefillBatch(isLog);
	if (batch_nframes[isLog] == 0)
		return 0;
	frame = batch_frames[isLog][--batch_nframes[isLog]];
	NvmPoolCountAdd(NVM_STAT_FRAMES_IN_BATCHES, -(uint64) 1);
	if (isLog)
		NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_IN_BATCHES, -(uint64) 1);
	/* a new base image will be written here: check it when first read */
	pg_atomic_fetch_and_u32(&pool_pins[frame], ~PIN_VERIFIED);
	return frame;
}

/*
 * NvmPoolTryAllocFrame - take a free frame, or return 0 when there is none.
 * withLog asks for a log frame (for a page about to be changed), else a
 * plain frame; when the pool has none of the kind asked for, the other
 * kind does (a page in a plain frame is then written whole at each change:
 * log_frames_short counts those).  The frame's contents are undefined; it
 * becomes durable allocation only when published in a page table.
 */
uint64
NvmPoolTryAllocFrame(bool withLog)
{
	bool		isLog = withLog && pool_log_frames > 0;
	uint64		frame = NvmPoolTakeFrame(isLog);

	if (frame == 0 && pool_log_frames > 0)
	{
		frame = NvmPoolTakeFrame(!isLog);
		if (frame != 0 && isLog)
			NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_SHORT, 1);
	}
	return frame;
}

/*
 * NvmPoolAllocFrame - NvmPoolTryAllocFrame; error out when the pool is full.
 */
uint64
NvmPoolAllocFrame(bool withLog)
{
	uint64		frame = NvmPoolTryAllocFrame(withLog);

	if (frame == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("nvm_am pool is full"),
				 errdetail("All %llu page frames of pool file \"%s\" are in use.",
						   (unsigned long long) pool_nframes, pool_resolved_path),
				 errhint("Drop or truncate nvm_am tables, or raise nvm_am.pool_size and restart the server: the pool grows.")));
	return frame;
}

/*
 * NvmPoolGiveBackFrame - return a frame this backend allocated and did not
 * publish to its batch.
 */
void
NvmPoolGiveBackFrame(uint64 frame)
{
	bool		isLog = NvmPoolIsLogFrame(frame);

	if (batch_nframes[isLog] >= NVM_FRAME_BATCH)
	{
		NvmPoolFreeFrames(&frame, 1);
		return;
	}
	batch_frames[isLog][batch_nframes[isLog]++] = frame;
	NvmPoolCountAdd(NVM_STAT_FRAMES_IN_BATCHES, 1);
	if (isLog)
		NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_IN_BATCHES, 1);
}

/*
 * NvmPoolLogFramesScarce - are fewer than a quarter of the log frames free
 * (in the bitmap; a hint, read without the lock)?  Then pages that stopped
 * changing should give theirs back (ipl_log.c).
 */
bool
NvmPoolLogFramesScarce(void)
{
	return pool_shared->log_frames_free < pool_log_frames / 4;
}

/*
 * NvmPoolFreeFramesCounted - return frames to the free bitmap; fromBatch:
 * they come from this backend's batch, whose count goes down under the
 * same lock (NvmPoolGetInfo reads both under it).
 */
static void
NvmPoolFreeFramesCounted(uint64 *frames, int n, bool fromBatch)
{
	LWLock	   *lock = &pool_shared->alloc_lock->lock;
	int			nlog = 0;
	int			kind;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		if (!NvmPoolFrameValid(frames[i]) || !NvmPoolBitTest(frames[i]))
			continue;
		if (pool_keep_frames && !fromBatch &&
			NvmPoolMaskTest(pool_copymask, frames[i]))
		{
			pool_shared->frames_kept = true;
			continue;
		}
		NvmPoolBitClear(frames[i]);
		pool_shared->frames_free++;
		kind = NvmPoolIsLogFrame(frames[i]) ? 1 : 0;
		if (kind)
		{
			pool_shared->log_frames_free++;
			nlog++;
		}
		/* frames are taken lowest first (NvmPoolRefillBatch) */
		pool_shared->alloc_hint[kind] = Min(pool_shared->alloc_hint[kind],
											frames[i] / 64);
	}
	if (fromBatch)
	{
		NvmPoolCountAdd(NVM_STAT_FRAMES_IN_BATCHES, -(uint64) n);
		NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_IN_BATCHES, -(uint64) nlog);
	}
	LWLockRelease(lock);
}

/*
 * NvmPoolSetKeepFrames - while keep is set, this process frees no frame
 * that the pool's page tables reached when it was opened: WAL redo before
 * the replayed pool is consistent, whose page tables (copied while they
 * changed, by a base backup) may reach one frame twice.  Frames that redo
 * took since are freed as usual.  The frames kept come back at the next
 * rebuild of the allocation state (NvmPoolReclaimKept).
 */
void
NvmPoolSetKeepFrames(bool keep)
{
	pool_keep_frames = keep;
}

/*
 * NvmPoolReclaimKept - when redo kept frames, derive the allocation state
 * from the page tables again, which frees them.  Caller holds the
 * directory lock exclusively, and no backend has allocated frames yet
 * (nvm_recovery.c, before any backend writes to the pool after redo).
 */
void
NvmPoolReclaimKept(void)
{
	uint64		before;

	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	if (!pool_shared->frames_kept)
		return;
	LWLockAcquire(&pool_shared->alloc_lock->lock, LW_EXCLUSIVE);
	before = pool_shared->frames_free;
	NvmPoolRebuildAllocation();
	pool_shared->frames_kept = false;
	NvmPoolCountAdd(NVM_STAT_FRAMES_RECLAIMED, pool_shared->frames_free - before);
	LWLockRelease(&pool_shared->alloc_lock->lock);
}

/*
 * NvmPoolFreeFrames - return frames to the free bitmap.
 */
void
NvmPoolFreeFrames(uint64 *frames, int n)
{
	NvmPoolFreeFramesCounted(frames, n, false);
}

Page
NvmPoolFramePage(uint64 frame)
{
	Assert(NvmPoolFrameValid(frame));
	return (Page) NvmPoolFrameAddr(frame);
}

static void
NvmPoolFreeOne(uint64 frame)
{
	NvmPoolFreeFrames(&frame, 1);
	NvmPoolCountAdd(NVM_STAT_FRAMES_RECLAIMED, 1);
}

/*
 * NvmPoolPinFrame - pin a frame, or (numbers above the pool's frames) one of
 * the caller's extra pinnable objects (an image slot of the merge cache);
 * caller holds the lock of the page in it.
 */
void
NvmPoolPinFrame(uint64 frame)
{
	Assert(NvmPoolFrameValid(frame) ||
		   (frame > pool_nframes &&
			frame <= pool_nframes + pool_shared->extra_pins));
	if (local_npins >= local_maxpins)
	{
		int			newmax = Max(16, local_maxpins * 2);

		local_pins = local_pins ?
			repalloc(local_pins, newmax * sizeof(uint64)) :
			MemoryContextAlloc(TopMemoryContext, newmax * sizeof(uint64));
		local_maxpins = newmax;
	}
	local_pins[local_npins++] = frame;
	pg_atomic_fetch_add_u32(&pool_pins[frame], 1);
}

static void
NvmPoolUnpinShared(uint64 frame)
{
	uint32		old = pg_atomic_fetch_sub_u32(&pool_pins[frame], 1);
	uint32		now = old - 1;

	Assert((old & PIN_COUNT_MASK) > 0);
	/* the last pin of a retired frame frees it (image slots never retire) */
	if ((now & PIN_RETIRED) && (now & PIN_COUNT_MASK) == 0 && NvmPoolFrameValid(frame) &&
		pg_atomic_compare_exchange_u32(&pool_pins[frame], &now, 0))
		NvmPoolFreeOne(frame);
}

/*
 * NvmPoolFrameVerified, NvmPoolSetFrameVerified - whether the checksum of the base
 * image in frame was checked since the frame was allocated or the server
 * started (a flag in the frame's pin word, cleared by NvmPoolTryAllocFrame).
 */
bool
NvmPoolFrameVerified(uint64 frame)
{
	return (pg_atomic_read_u32(&pool_pins[frame]) & PIN_VERIFIED) != 0;
}

void
NvmPoolSetFrameVerified(uint64 frame)
{
	pg_atomic_fetch_or_u32(&pool_pins[frame], PIN_VERIFIED);
}

/*
 * NvmPoolUnpinFrame - drop one pin this backend holds on frame.
 */
void
NvmPoolUnpinFrame(uint64 frame)
{
	for (int i = local_npins - 1; i >= 0; i--)
	{
		if (local_pins[i] == frame)
		{
			local_pins[i] = local_pins[--local_npins];
			NvmPoolUnpinShared(frame);
			return;
		}
	}
	elog(ERROR, "nvm_am frame %llu is not pinned", (unsigned long long) frame);
}

/*
 * NvmPoolReleaseAllPins - drop every pin of this backend (transaction end).
 */
void
NvmPoolReleaseAllPins(void)
{
	while (local_npins > 0)
		NvmPoolUnpinShared(local_pins[--local_npins]);
	local_pin_epoch++;
}

/*
 * NvmPoolPinEpoch - how many times this backend dropped all its pins
 * (transaction ends): a pin remembered from an earlier epoch is gone.
 */
uint64
NvmPoolPinEpoch(void)
{
	return local_pin_epoch;
}

/*
 * NvmPoolPinCount - how many pins frame (or image slot) has.
 */
uint32
NvmPoolPinCount(uint64 frame)
{
	return pg_atomic_read_u32(&pool_pins[frame]) & PIN_COUNT_MASK;
}

/*
 * NvmPoolFrameRetiredPinned - whether frame was retired (no page table
 * reaches it any more) and a backend still has it pinned: a reader is still
 * on the page that left it.  Once the last pin is gone the frame is freed,
 * and when it is allocated again it no longer says retired.
 */
bool
NvmPoolFrameRetiredPinned(uint64 frame)
{
	uint32		word = pg_atomic_read_u32(&pool_pins[frame]);

	return (word & PIN_RETIRED) != 0 && (word & PIN_COUNT_MASK) > 0;
}

/*
 * NvmPoolFrameWalLsn - where the LSN of the last WAL record of the page in
 * frame is kept (nvm_am.wal_log), in shared memory: 0 after a start, when
 * the page gets a full-page image with its next record anyway.  The page
 * layer reads and sets it under the page lock, and sets it whenever it
 * writes a page into a frame.
 */
uint64 *
NvmPoolFrameWalLsn(uint64 frame)
{
	Assert(NvmPoolFrameValid(frame));
	return &pool_wal_lsn[frame];
}

/*
 * NvmPoolFrameLog - the in-page log area of frame (log_size bytes), or NULL
 * when it is a plain frame.
 */
char *
NvmPoolFrameLog(uint64 frame)
{
	Assert(NvmPoolFrameValid(frame));
	if (likely(frame <= pool_header->nframes))
		return frame <= pool_header_log_frames ?
			pool_base + pool_header->logs_offset + (frame - 1) * pool_header->log_size :
			NULL;
	return NvmPoolExtentFrameAddr(frame, true);
}

/*
 * NvmPoolFrameLogSize - bytes of frame's log area: 0 for a plain frame.
 */
uint32
NvmPoolFrameLogSize(uint64 frame)
{
	return NvmPoolFrameLog(frame) != NULL ? pool_header->log_size : 0;
}

/*
 * NvmPoolExtentFrameAddr - the address of a frame of an extent (log: its
 * log area, NULL for a plain frame).
 */
char *
NvmPoolExtentFrameAddr(uint64 frame, bool log)
{
	uint64		first = pool_header->nframes + 1;

	for (uint64 i = 0; i < pool_runtime->nextents; i++)
	{
		const NvmPoolExtent *x = &pool_runtime->extents[i];

		if (frame < first + x->nframes)
		{
			if (!log)
				return pool_base + x->offset + (frame - first) * NVM_FRAME_SIZE;
			if (frame - first >= NvmPoolLogFrames(x->nframes, pool_header->log_size,
												  pool_header->log_share))
				return NULL;
			return pool_base + x->offset + x->nframes * NVM_FRAME_SIZE +
				(frame - first) * pool_header->log_size;
		}
		first += x->nframes;
	}
	elog(PANIC, "nvm_am frame %llu is beyond the pool's %llu frames",
		 (unsigned long long) frame, (unsigned long long) pool_nframes);
	return NULL;				/* keep compiler quiet */
}

/*
 * NvmPoolLogSize - bytes of a log frame's log area (0: in-page logging is
 * off).
 */
uint32
NvmPoolLogSize(void)
{
	return pool_header->log_size;
}

/*
 * NvmPoolFormatVersion - the format version of the pool, as its header says.
 * A pool keeps the version it was created with, and this build writes into
 * it only what that version's builds read: in a version 5 pool prunes
 * write PRUNE records, in a version 6 pool PRUNE_FILL records (ipl_log.c),
 * which builds before version 6 would take for damage.
 */
uint32
NvmPoolFormatVersion(void)
{
	return pool_header->format_version;
}

/*
 * NvmPoolNextGeneration - a page generation number never handed out before.
 * Every NVM_GEN_BATCH numbers the high-water mark is moved ahead and
 * persisted before any number beyond the old one is used.
 */
uint64
NvmPoolNextGeneration(void)
{
	uint64		gen = pg_atomic_fetch_add_u64(&pool_shared->next_gen, 1);

	if (gen >= pool_runtime->gen_high_water)
	{
		LWLock	   *lock = &pool_shared->alloc_lock->lock;

		LWLockAcquire(lock, LW_EXCLUSIVE);
		if (gen >= pool_runtime->gen_high_water)
			NvmPoolPublish64(&pool_runtime->gen_high_water, gen + NVM_GEN_BATCH);
		LWLockRelease(lock);
	}
	return gen;
}

/*
 * NvmPoolGenerationIsNew - was generation gen handed out since the server
 * started (or restarted after a crash)?  Everything written under such a
 * number was written whole, in this memory, by this run.
 */
bool
NvmPoolGenerationIsNew(uint64 gen)
{
	return gen >= pool_shared->first_gen;
}

/*
 * NvmPoolRetireFrame - a frame no page table reaches any more is freed as
 * soon as no backend has it pinned.
 */
void
NvmPoolRetireFrame(uint64 frame)
{
	uint32		old = pg_atomic_fetch_or_u32(&pool_pins[frame], PIN_RETIRED);
	uint32		now = old | PIN_RETIRED;

	Assert(!(old & PIN_RETIRED));
	NvmPoolCountAdd(NVM_STAT_FRAMES_RETIRED, 1);
	if ((old & PIN_COUNT_MASK) == 0 &&
		pg_atomic_compare_exchange_u32(&pool_pins[frame], &now, 0))
		NvmPoolFreeOne(frame);
}
