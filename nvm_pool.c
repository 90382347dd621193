/*-------------------------------------------------------------------------
 *
 * nvm_pool.c
 *	  The persistent-memory pool: mapping, header, relation directory,
 *	  per-relation page tables, page-frame allocation and the persist
 *	  primitives.  This is the only file that calls libpmem.
 *
 * On-pmem layout (all offsets from the start of the pool file):
 *
 *	 [0, 2048)				NvmPoolHeader, checksummed, written once at creation
 *	 [2048, 4096)			NvmPoolRuntime: the generation high-water mark
 *	 [4096, xact_off)		relation directory: dir_entries NvmDirEntry (64 B)
 *	 [xact_off, clog_off)	transaction slots: NVM_XACT_SLOTS NvmXactSlot (64 B)
 *	 [clog_off, frames_off) commit log: NVM_COMMIT_LOG_ENTRIES NvmCommitEntry
 *							(64 B); both written by nvm_commit.c
 *	 [frames_off, logs_off)	page frames of BLCKSZ bytes, numbered from 1
 *	 [logs_off, ...)		one in-page log area of log_size bytes per frame,
 *							in frame order (none when log_size is 0)
 *
 * A frame's log area belongs to the page image in the frame (ipl_log.c
 * writes it); it is reset by writing a new base image with a new
 * generation number into the frame.  Generation numbers come from a
 * counter in shared memory whose high-water mark is persisted in
 * NvmPoolRuntime before any number beyond it is handed out, so a number is
 * never used twice, not even across crashes.
 *
 * A relation's page table has two levels: the directory entry names a root
 * frame holding NVM_PT_FANOUT frame numbers of leaf frames, each leaf holds
 * NVM_PT_FANOUT frame numbers of data pages.  A frame number of 0 means
 * "none".  Every pointer in the pool is an 8-byte word published with one
 * aligned store and persisted, so every change below is crash-atomic:
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
 * by ipl_log.c and nvm_am.c around page reads and changes.  No code holds
 * two page locks at once.
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
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libpmem.h>

#include "access/xlog.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "port/pg_bitutils.h"
#include "port/pg_crc32c.h"
#include "storage/bufpage.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "nvm_am.h"

#define NVM_HEADER_SIZE		4096
#define NVM_PAGE_LOCKS		1024
#define NVM_LOCK_DIR		0
#define NVM_LOCK_ALLOC		1
#define NVM_LOCK_CLOG		2
#define NVM_LOCKS_TOTAL		(3 + NVM_PAGE_LOCKS)

typedef struct NvmPoolHeader
{
	uint64		magic;
	uint32		format_version;
	uint32		frame_size;
	uint64		system_identifier;
	uint64		pool_size;
	uint64		dir_offset;
	uint64		dir_entries;
	uint64		frames_offset;
	uint64		nframes;
	uint64		logs_offset;	/* first byte of the in-page log areas */
	uint32		log_size;		/* bytes of log area per frame (0: no IPL) */
	uint32		pad;
	uint64		xact_offset;	/* transaction slots */
	uint64		xact_slots;
	uint64		clog_offset;	/* commit log */
	uint64		clog_entries;
	int64		created_at;		/* pg_time_t of creation */
	pg_crc32c	checksum;		/* CRC-32C of the bytes above */
} NvmPoolHeader;

typedef struct NvmDirEntry
{
	uint64		state;			/* NVM_REL_* flags | xid; 0 = free */
	uint32		spcNode;
	uint32		dbNode;
	uint32		relNode;
	uint32		pad;
	uint64		root;			/* frame number of the page-table root */
	uint64		nblocks;		/* blocks below this are valid */
	uint64		reserved[3];
} NvmDirEntry;

/* the part of the header page that changes at run time (not checksummed) */
#define NVM_RUNTIME_OFFSET	2048
#define NVM_GEN_BATCH		65536

typedef struct NvmPoolRuntime
{
	uint64		gen_high_water; /* no generation number at or beyond this
								 * has been handed out */
} NvmPoolRuntime;

StaticAssertDecl(sizeof(NvmDirEntry) == 64, "directory entries are 64 bytes");
StaticAssertDecl(sizeof(NvmXactSlot) == 64, "a transaction slot is a cache line");
StaticAssertDecl(sizeof(NvmCommitEntry) == 64, "a commit-log entry is a cache line");
StaticAssertDecl(sizeof(NvmPoolHeader) <= NVM_RUNTIME_OFFSET, "header fits");

typedef struct NvmPoolShared
{
	LWLockPadded *locks;
	uint64		frames_free;
	uint64		alloc_hint;		/* bitmap word to search first */
	pg_atomic_uint64 next_gen;	/* next page generation number */
	pg_atomic_uint64 trace_seq; /* persist trace: next event number */
	pg_atomic_uint64 counters[NVM_NUM_COUNTERS];
	uint64		bitmap[FLEXIBLE_ARRAY_MEMBER];	/* bit set = frame in use */
} NvmPoolShared;

/* GUC variables */
char	   *nvm_pool_path = NULL;
int			nvm_pool_size_mb = 1024;
int			nvm_ipl_log_size = NVM_IPL_LOG_SIZE_DEFAULT;
char	   *nvm_persist_trace = NULL;

/* persist trace of this process (crash simulation), -1 when not open */
static int	trace_fd = -1;
static pid_t trace_pid = 0;

/* Process-local state, inherited from the postmaster by fork */
static char *pool_base = NULL;
static NvmPoolHeader *pool_header = NULL;
static NvmPoolRuntime *pool_runtime = NULL;
static NvmDirEntry *pool_dir = NULL;
static NvmXactSlot *pool_slots = NULL;
static NvmCommitEntry *pool_clog = NULL;
static bool pool_is_pmem = false;
static char *pool_resolved_path = NULL;
static int	pool_lock_fd = -1;
static NvmPoolShared *pool_shared = NULL;
static pg_atomic_uint32 *pool_pins = NULL;

/* frames this backend has pinned (a multiset), released at transaction end */
static uint64 *local_pins = NULL;
static int	local_npins = 0;
static int	local_maxpins = 0;

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
};

static pg_crc32c
PoolHeaderChecksum(const NvmPoolHeader *hdr)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, hdr, offsetof(NvmPoolHeader, checksum));
	FIN_CRC32C(crc);
	return crc;
}

static uint64
PoolConfiguredSize(void)
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

static void
PoolTrace(char type, const void *addr, Size len)
{
	NvmTraceEvent ev;

	if (nvm_persist_trace == NULL || nvm_persist_trace[0] == '\0' ||
		pool_shared == NULL || !IsUnderPostmaster)
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
 * PoolFlush - write back the cache lines of [addr, addr+len) without waiting.
 * On a file that is not persistent memory this is a synchronous msync.
 */
void
PoolFlush(const void *addr, Size len)
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
	PoolCountAdd(NVM_STAT_PMEM_BYTES_WRITTEN, len);
	PoolCountAdd(NVM_STAT_PMEM_FLUSHES, 1);
	PoolTrace('F', addr, len);
}

/*
 * PoolDrain - wait until every flush issued by this process is durable.
 */
void
PoolDrain(void)
{
	if (pool_is_pmem)
		pmem_drain();
	PoolCountAdd(NVM_STAT_PMEM_DRAINS, 1);
	PoolTrace('D', NULL, 0);
}

/*
 * PoolPersist - flush and drain.
 */
void
PoolPersist(const void *addr, Size len)
{
	PoolFlush(addr, len);
	PoolDrain();
}

/*
 * PoolPublish64 - store an aligned 8-byte word atomically and persist it.
 */
void
PoolPublish64(uint64 *addr, uint64 value)
{
	Assert(((uintptr_t) addr % sizeof(uint64)) == 0);
	*(volatile uint64 *) addr = value;
	PoolPersist(addr, sizeof(uint64));
}

/* ----------------------------------------------------------------
 * Opening and creating the pool (postmaster, before fork)
 * ----------------------------------------------------------------
 */

static void
PoolResolvePath(void)
{
	if (is_absolute_path(nvm_pool_path))
		pool_resolved_path = MemoryContextStrdup(TopMemoryContext, nvm_pool_path);
	else
		pool_resolved_path = MemoryContextStrdup(TopMemoryContext,
												 psprintf("%s/%s", DataDir, nvm_pool_path));
}

static void
PoolComputeLayout(NvmPoolHeader *hdr, uint64 size)
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
	nframes = (size - frames_off) / (NVM_FRAME_SIZE + nvm_ipl_log_size);
	hdr->frames_offset = frames_off;
	hdr->nframes = nframes;
	hdr->logs_offset = frames_off + nframes * NVM_FRAME_SIZE;
	hdr->log_size = nvm_ipl_log_size;
	hdr->xact_offset = xact_off;
	hdr->xact_slots = NVM_XACT_SLOTS;
	hdr->clog_offset = clog_off;
	hdr->clog_entries = NVM_COMMIT_LOG_ENTRIES;
	hdr->created_at = (int64) time(NULL);
	hdr->checksum = PoolHeaderChecksum(hdr);
}

static void
PoolSetPointers(void *base, bool is_pmem)
{
	pool_base = base;
	pool_header = (NvmPoolHeader *) base;
	pool_runtime = (NvmPoolRuntime *) ((char *) base + NVM_RUNTIME_OFFSET);
	pool_dir = (NvmDirEntry *) (pool_base + pool_header->dir_offset);
	pool_slots = (NvmXactSlot *) (pool_base + pool_header->xact_offset);
	pool_clog = (NvmCommitEntry *) (pool_base + pool_header->clog_offset);
	pool_is_pmem = is_pmem;
}

static void
PoolCreate(void)
{
	char	   *tmppath = psprintf("%s.init", pool_resolved_path);
	uint64		size = PoolConfiguredSize();
	size_t		mapped_len;
	int			is_pmem;
	void	   *base;
	NvmPoolHeader hdr;
	char	   *dir;

	PoolComputeLayout(&hdr, size);
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

	base = pmem_map_file(tmppath, size, PMEM_FILE_CREATE | PMEM_FILE_EXCL,
						 0600, &mapped_len, &is_pmem);
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
	PoolSetPointers(base, is_pmem != 0);
	/* the directory area of a freshly allocated file is zero already */
	PoolPersist(base, hdr.frames_offset);

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

static void
PoolRefuse(const char *msg, const char *detail, const char *hint)
{
	ereport(FATAL,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am pool file \"%s\" %s", pool_resolved_path, msg),
			 detail ? errdetail_internal("%s", detail) : 0,
			 errhint("%s", hint)));
}

static void
PoolOpenExisting(struct stat *st)
{
	NvmPoolHeader hdr;
	ssize_t		n;
	int			fd = pool_lock_fd;
	size_t		mapped_len;
	int			is_pmem;
	void	   *base;
	const char *move_hint = "Point nvm_am.pool_path at the right pool file, or move this file away to create a new, empty pool (the nvm_am tables it held are then lost).";

	if (st->st_size == 0)
		PoolRefuse("is empty",
				   "A zero-length file is never written by nvm_am; the pool was truncated or replaced.",
				   move_hint);
	if (st->st_size < (off_t) sizeof(NvmPoolHeader))
		PoolRefuse("is truncated", psprintf("The file has %lld bytes, less than a pool header.",
											(long long) st->st_size),
				   move_hint);
	n = pg_pread(fd, &hdr, sizeof(hdr), 0);
	if (n != sizeof(hdr))
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not read nvm_am pool file \"%s\": %m", pool_resolved_path)));
	if (hdr.magic != NVM_POOL_MAGIC)
		PoolRefuse("is not an nvm_am pool",
				   "The file does not start with the nvm_am pool magic number.", move_hint);
	if (hdr.checksum != PoolHeaderChecksum(&hdr))
		PoolRefuse("has a corrupt header",
				   "The header checksum does not match its contents.", move_hint);
	if (hdr.format_version != NVM_POOL_FORMAT_VERSION)
		PoolRefuse("has an unsupported format version",
				   psprintf("The file has format version %u, this build of nvm_am reads version %u.",
							hdr.format_version, NVM_POOL_FORMAT_VERSION),
				   "Use the nvm_am version that created the pool, or move the file away to create a new pool.");
	if (hdr.system_identifier != GetSystemIdentifier())
		PoolRefuse("belongs to another database cluster",
				   psprintf("The pool was created by the cluster with system identifier %llu, this cluster's is %llu.",
							(unsigned long long) hdr.system_identifier,
							(unsigned long long) GetSystemIdentifier()),
				   move_hint);
	if ((uint64) st->st_size != hdr.pool_size)
		PoolRefuse("is truncated or was resized",
				   psprintf("The header records %llu bytes, the file has %llu.",
							(unsigned long long) hdr.pool_size,
							(unsigned long long) st->st_size),
				   move_hint);
	if (hdr.pool_size != PoolConfiguredSize())
		PoolRefuse("does not have the configured size",
				   psprintf("The pool has %llu bytes, nvm_am.pool_size asks for %llu.",
							(unsigned long long) hdr.pool_size,
							(unsigned long long) PoolConfiguredSize()),
				   psprintf("Set nvm_am.pool_size = '%lluMB' to use this pool; a pool cannot be resized.",
							(unsigned long long) (hdr.pool_size / (1024 * 1024))));
	if (hdr.log_size != (uint32) nvm_ipl_log_size)
		PoolRefuse("has another in-page log size",
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
		hdr.logs_offset + hdr.nframes * hdr.log_size > hdr.pool_size)
		PoolRefuse("has an inconsistent layout",
				   "The header's offsets do not fit the file.", move_hint);

	base = pmem_map_file(pool_resolved_path, 0, 0, 0, &mapped_len, &is_pmem);
	if (base == NULL)
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not map nvm_am pool file \"%s\": %m", pool_resolved_path)));
	PoolSetPointers(base, is_pmem != 0);
}

/*
 * PoolOpenOrCreate - map the pool file, creating it on first start.
 *
 * Runs in the postmaster (or a single-user backend) while the shared
 * preload libraries are loaded.  Any problem stops startup with FATAL.
 */
void
PoolOpenOrCreate(void)
{
	struct stat st;

	PoolResolvePath();
	if (stat(pool_resolved_path, &st) != 0)
	{
		if (errno != ENOENT)
			ereport(FATAL,
					(errcode_for_file_access(),
					 errmsg("could not stat nvm_am pool file \"%s\": %m", pool_resolved_path)));
		PoolCreate();
	}
	else if (!S_ISREG(st.st_mode))
		PoolRefuse("is not a regular file", NULL,
				   "Set nvm_am.pool_path to a file on a DAX file system or on /dev/shm.");

	pool_lock_fd = open(pool_resolved_path, O_RDWR | O_CLOEXEC | PG_BINARY, 0);
	if (pool_lock_fd < 0)
		ereport(FATAL,
				(errcode_for_file_access(),
				 errmsg("could not open nvm_am pool file \"%s\": %m", pool_resolved_path),
				 errhint("The file must be readable and writable by the server's operating system user.")));
	if (flock(pool_lock_fd, LOCK_EX | LOCK_NB) != 0)
		ereport(FATAL,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("nvm_am pool file \"%s\" is in use by another server", pool_resolved_path),
				 errhint("Each cluster needs its own pool: set nvm_am.pool_path to another file.")));
	if (pool_base == NULL)
	{
		if (fstat(pool_lock_fd, &st) != 0)
			ereport(FATAL,
					(errcode_for_file_access(),
					 errmsg("could not stat nvm_am pool file \"%s\": %m", pool_resolved_path)));
		PoolOpenExisting(&st);
	}
}

/* ----------------------------------------------------------------
 * Shared memory
 * ----------------------------------------------------------------
 */

static uint64
PoolBitmapWords(void)
{
	NvmPoolHeader hdr;

	/* the postmaster knows the layout before shared memory exists */
	if (pool_header)
		return (pool_header->nframes + 64) / 64;
	PoolComputeLayout(&hdr, PoolConfiguredSize());
	return (hdr.nframes + 64) / 64;
}

/*
 * PoolFrameCount - number of page frames in the pool (the postmaster knows
 * it before shared memory exists).
 */
uint64
PoolFrameCount(void)
{
	NvmPoolHeader hdr;

	if (pool_header)
		return pool_header->nframes;
	PoolComputeLayout(&hdr, PoolConfiguredSize());
	return hdr.nframes;
}

Size
PoolShmemSize(void)
{
	Size		size = add_size(offsetof(NvmPoolShared, bitmap),
								mul_size(PoolBitmapWords(), sizeof(uint64)));

	/* one pin word per frame and per image slot of the merge cache */
	return add_size(size, mul_size(PoolFrameCount() + 1 + IplCacheSlots(),
								   sizeof(pg_atomic_uint32)));
}

void
PoolRequestLocks(void)
{
	RequestNamedLWLockTranche("nvm_am", NVM_LOCKS_TOTAL);
}

static inline char *
FrameAddr(uint64 frame)
{
	return pool_base + pool_header->frames_offset + (frame - 1) * NVM_FRAME_SIZE;
}

static inline bool
FrameValid(uint64 frame)
{
	return frame >= 1 && frame <= pool_header->nframes;
}

static inline bool
BitTest(uint64 frame)
{
	return (pool_shared->bitmap[frame / 64] >> (frame % 64)) & 1;
}

static inline void
BitSet(uint64 frame)
{
	pool_shared->bitmap[frame / 64] |= UINT64CONST(1) << (frame % 64);
}

static inline void
BitClear(uint64 frame)
{
	pool_shared->bitmap[frame / 64] &= ~(UINT64CONST(1) << (frame % 64));
}

/*
 * PoolMarkUsed - mark a reachable frame during the rebuild.  Returns false
 * for a frame number outside the pool (a corrupt entry).
 */
static bool
PoolMarkUsed(uint64 frame, int dirIndex)
{
	if (!FrameValid(frame))
	{
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("nvm_am pool entry %d references frame %llu outside the pool",
						dirIndex, (unsigned long long) frame)));
		return false;
	}
	if (!BitTest(frame))
	{
		BitSet(frame);
		pool_shared->frames_free--;
	}
	return true;
}

/*
 * PoolRebuildAllocation - derive the free bitmap from the page tables and
 * clear page-table entries at or beyond a relation's nblocks (left by a
 * crash during an extension or a truncation).
 */
static void
PoolRebuildAllocation(void)
{
	uint64		words = PoolBitmapWords();

	memset(pool_shared->bitmap, 0, words * sizeof(uint64));
	pool_shared->frames_free = pool_header->nframes;
	/* bit 0 and bits past nframes are never allocatable */
	pool_shared->bitmap[0] |= 1;
	for (uint64 f = pool_header->nframes + 1; f < words * 64; f++)
		BitSet(f);

	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		NvmDirEntry *e = &pool_dir[i];
		uint64	   *root;

		if (!(e->state & NVM_REL_USED) || e->root == 0)
			continue;
		if (!PoolMarkUsed(e->root, i))
			continue;
		root = (uint64 *) FrameAddr(e->root);
		for (uint64 l = 0; l < NVM_PT_FANOUT; l++)
		{
			uint64	   *leaf;

			if (root[l] == 0)
				continue;
			if (!PoolMarkUsed(root[l], i))
				continue;
			leaf = (uint64 *) FrameAddr(root[l]);
			for (uint64 k = 0; k < NVM_PT_FANOUT; k++)
			{
				uint64		blk = l * NVM_PT_FANOUT + k;

				if (leaf[k] == 0)
					continue;
				if (blk >= e->nblocks)
				{
					PoolPublish64(&leaf[k], 0);
					PoolCountAdd(NVM_STAT_ORPHANS_RECLAIMED, 1);
				}
				else
					(void) PoolMarkUsed(leaf[k], i);
			}
		}
	}
}

/*
 * PoolShmemInit - attach the shared state; in the postmaster (at start and
 * after a crash of a backend) rebuild the allocation state from the pool.
 */
void
PoolShmemInit(void)
{
	bool		found;

	pool_shared = ShmemInitStruct("nvm_am pool", PoolShmemSize(), &found);
	pool_pins = (pg_atomic_uint32 *) ((char *) pool_shared +
									  add_size(offsetof(NvmPoolShared, bitmap),
											   mul_size(PoolBitmapWords(), sizeof(uint64))));
	if (!found)
	{
		for (uint64 f = 0; f <= PoolFrameCount() + IplCacheSlots(); f++)
			pg_atomic_init_u32(&pool_pins[f], 0);
		pool_shared->locks = GetNamedLWLockTranche("nvm_am");
		pool_shared->alloc_hint = 0;
		pg_atomic_init_u64(&pool_shared->trace_seq, 1);
		for (int i = 0; i < NVM_NUM_COUNTERS; i++)
			pg_atomic_init_u64(&pool_shared->counters[i], 0);
		if (pool_base)
		{
			instr_time	start;
			instr_time	duration;

			INSTR_TIME_SET_CURRENT(start);
			PoolRebuildAllocation();
			INSTR_TIME_SET_CURRENT(duration);
			INSTR_TIME_SUBTRACT(duration, start);
			/* the first part of recovery; NvmCommitRecover adds its own */
			PoolCountAdd(NVM_STAT_RECOVERY_US, INSTR_TIME_GET_MICROSEC(duration));
			/* numbers below the high-water mark may have been used */
			pg_atomic_init_u64(&pool_shared->next_gen, pool_runtime->gen_high_water + 1);
		}
	}
}

/* ----------------------------------------------------------------
 * Counters and information
 * ----------------------------------------------------------------
 */

void
PoolCountAdd(NvmCounter c, uint64 n)
{
	if (pool_shared)
		pg_atomic_fetch_add_u64(&pool_shared->counters[c], n);
}

uint64
PoolCounterValue(NvmCounter c)
{
	return pool_shared ? pg_atomic_read_u64(&pool_shared->counters[c]) : 0;
}

const char *
PoolCounterName(NvmCounter c)
{
	return counter_names[c];
}

/*
 * PoolGetInfo - fill *info; takes the directory and allocation locks shared.
 */
void
PoolGetInfo(NvmPoolInfo *info)
{
	const char *force = getenv("PMEM_IS_PMEM_FORCE");
	uint64		rels = 0;

	LWLockAcquire(PoolDirLock(), LW_SHARED);
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
		if (pool_dir[i].state & NVM_REL_USED)
			rels++;
	LWLockRelease(PoolDirLock());

	LWLockAcquire(&pool_shared->locks[NVM_LOCK_ALLOC].lock, LW_SHARED);
	info->frames_free = pool_shared->frames_free;
	LWLockRelease(&pool_shared->locks[NVM_LOCK_ALLOC].lock);

	info->path = pool_resolved_path;
	info->size = pool_header->pool_size;
	info->frames_total = pool_header->nframes;
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
PoolDirLock(void)
{
	return &pool_shared->locks[NVM_LOCK_DIR].lock;
}

/* PoolCommitLogLock - the lock around the commit log's allocation state */
LWLock *
PoolCommitLogLock(void)
{
	return &pool_shared->locks[NVM_LOCK_CLOG].lock;
}

/*
 * PoolXactSlot, PoolCommitEntry - the pool's transaction slot i and
 * commit-log entry i.  nvm_commit.c writes them through the persist
 * primitives.
 */
NvmXactSlot *
PoolXactSlot(int i)
{
	Assert(i >= 0 && i < NVM_XACT_SLOTS);
	return &pool_slots[i];
}

NvmCommitEntry *
PoolCommitEntry(int i)
{
	Assert(i >= 0 && i < NVM_COMMIT_LOG_ENTRIES);
	return &pool_clog[i];
}

/*
 * PoolPageLock - the LWLock that guards reads and changes of one page.
 */
LWLock *
PoolPageLock(int dirIndex, BlockNumber blkno)
{
	uint32		h = (uint32) dirIndex * 0x9E3779B1u ^ (uint32) blkno * 0x85EBCA77u;

	return &pool_shared->locks[2 + (h % NVM_PAGE_LOCKS)].lock;
}

/* ----------------------------------------------------------------
 * Frames
 * ----------------------------------------------------------------
 */

/*
 * PoolTryAllocFrame - take a free frame, or return 0 when there is none.
 * The frame's contents are undefined; it becomes durable allocation only
 * when published in a page table.
 */
uint64
PoolTryAllocFrame(void)
{
	LWLock	   *lock = &pool_shared->locks[NVM_LOCK_ALLOC].lock;
	uint64		words = PoolBitmapWords();
	uint64		frame = 0;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	if (pool_shared->frames_free > 0)
	{
		for (uint64 n = 0; n < words; n++)
		{
			uint64		w = (pool_shared->alloc_hint + n) % words;
			uint64		bits = pool_shared->bitmap[w];

			if (bits != ~UINT64CONST(0))
			{
				int			b = pg_rightmost_one_pos64(~bits);

				frame = w * 64 + b;
				BitSet(frame);
				pool_shared->frames_free--;
				pool_shared->alloc_hint = w;
				break;
			}
		}
	}
	LWLockRelease(lock);
	Assert(frame == 0 || FrameValid(frame));
	/* a new base image will be written here: check it when first read */
	if (frame != 0)
		pg_atomic_fetch_and_u32(&pool_pins[frame], ~PIN_VERIFIED);
	return frame;
}

/*
 * PoolAllocFrame - take a free frame; error out when the pool is full.
 */
uint64
PoolAllocFrame(void)
{
	uint64		frame = PoolTryAllocFrame();

	if (frame == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("nvm_am pool is full"),
				 errdetail("All %llu page frames of pool file \"%s\" are in use.",
						   (unsigned long long) pool_header->nframes, pool_resolved_path),
				 errhint("Drop or truncate nvm_am tables, or create the cluster's pool with a larger nvm_am.pool_size.")));
	return frame;
}

static void
PoolFreeFrames(uint64 *frames, int n)
{
	LWLock	   *lock = &pool_shared->locks[NVM_LOCK_ALLOC].lock;

	LWLockAcquire(lock, LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		if (!FrameValid(frames[i]) || !BitTest(frames[i]))
			continue;
		BitClear(frames[i]);
		pool_shared->frames_free++;
	}
	LWLockRelease(lock);
}

Page
PoolFramePage(uint64 frame)
{
	Assert(FrameValid(frame));
	return (Page) FrameAddr(frame);
}

/* ----------------------------------------------------------------
 * Relation directory and page tables
 * ----------------------------------------------------------------
 */

int
PoolDirSize(void)
{
	return (int) pool_header->dir_entries;
}

static inline bool
EntryMatches(NvmDirEntry *e, const RelFileNode *node)
{
	return (e->state & NVM_REL_USED) &&
		e->relNode == node->relNode &&
		e->dbNode == node->dbNode &&
		e->spcNode == node->spcNode;
}

/*
 * PoolRelLookup - directory index of a relation's storage, or -1.
 * Takes the directory lock shared.
 */
int
PoolRelLookup(const RelFileNode *node)
{
	int			result = -1;

	LWLockAcquire(PoolDirLock(), LW_SHARED);
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		if (EntryMatches(&pool_dir[i], node))
		{
			result = i;
			break;
		}
	}
	LWLockRelease(PoolDirLock());
	return result;
}

/*
 * PoolRelGetKey - read an entry's key and state; false if it is free.
 * Caller holds the directory lock.
 */
bool
PoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state)
{
	NvmDirEntry *e = &pool_dir[dirIndex];

	*state = e->state;
	if (!(e->state & NVM_REL_USED))
		return false;
	node->spcNode = e->spcNode;
	node->dbNode = e->dbNode;
	node->relNode = e->relNode;
	return true;
}

/*
 * PoolRelCreate - allocate a directory entry for new, empty storage, marked
 * as being created by xid.  Caller holds the directory lock exclusively.
 */
int
PoolRelCreate(const RelFileNode *node, TransactionId xid)
{
	Assert(LWLockHeldByMeInMode(PoolDirLock(), LW_EXCLUSIVE));
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		if (EntryMatches(&pool_dir[i], node))
			elog(ERROR, "nvm_am storage for relation %u/%u/%u exists already",
				 node->spcNode, node->dbNode, node->relNode);
	}
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		NvmDirEntry *e = &pool_dir[i];

		if (e->state != 0)
			continue;
		e->spcNode = node->spcNode;
		e->dbNode = node->dbNode;
		e->relNode = node->relNode;
		e->pad = 0;
		e->root = 0;
		e->nblocks = 0;
		memset(e->reserved, 0, sizeof(e->reserved));
		PoolFlush(e, sizeof(*e));
		PoolPublish64(&e->state, NVM_REL_USED | NVM_REL_CREATING | xid);
		PoolCountAdd(NVM_STAT_RELS_CREATED, 1);
		return i;
	}
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("nvm_am relation directory is full"),
			 errdetail("The pool holds at most %llu nvm_am relations.",
					   (unsigned long long) pool_header->dir_entries),
			 errhint("Drop unused nvm_am tables, or create the cluster's pool with a larger nvm_am.pool_size.")));
	return -1;					/* keep compiler quiet */
}

uint64
PoolRelGetState(int dirIndex)
{
	return pool_dir[dirIndex].state;
}

/*
 * PoolRelSetState - publish a new state word.  Caller holds the directory
 * lock exclusively.
 */
void
PoolRelSetState(int dirIndex, uint64 state)
{
	Assert(LWLockHeldByMeInMode(PoolDirLock(), LW_EXCLUSIVE));
	Assert(state & NVM_REL_USED);
	PoolPublish64(&pool_dir[dirIndex].state, state);
}

/*
 * PoolCollectFrames - list every frame reachable from a page table.
 */
static uint64 *
PoolCollectFrames(NvmDirEntry *e, uint64 root, uint64 nblocks, int *n)
{
	int			cap = 64;
	uint64	   *frames = palloc(cap * sizeof(uint64));
	uint64	   *rootarr;

	*n = 0;
	if (root == 0 || !FrameValid(root))
		return frames;
	frames[(*n)++] = root;
	rootarr = (uint64 *) FrameAddr(root);
	for (uint64 l = 0; l < NVM_PT_FANOUT; l++)
	{
		uint64	   *leaf;

		if (rootarr[l] == 0 || !FrameValid(rootarr[l]))
			continue;
		if (*n + (int) NVM_PT_FANOUT + 1 > cap)
		{
			cap = cap * 2 + NVM_PT_FANOUT + 1;
			frames = repalloc(frames, cap * sizeof(uint64));
		}
		frames[(*n)++] = rootarr[l];
		leaf = (uint64 *) FrameAddr(rootarr[l]);
		for (uint64 k = 0; k < NVM_PT_FANOUT; k++)
			if (leaf[k] != 0)
				frames[(*n)++] = leaf[k];
	}
	return frames;
}

/*
 * PoolRelFree - free an entry and all its frames.  The state word is
 * published first; from then on nothing in the pool reaches the frames.
 * Caller holds the directory lock exclusively and makes sure no backend
 * uses the relation.
 */
void
PoolRelFree(int dirIndex)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *frames;
	int			n;

	Assert(LWLockHeldByMeInMode(PoolDirLock(), LW_EXCLUSIVE));
	frames = PoolCollectFrames(e, e->root, e->nblocks, &n);
	PoolPublish64(&e->state, 0);
	PoolFreeFrames(frames, n);
	pfree(frames);
	PoolCountAdd(NVM_STAT_RELS_DROPPED, 1);
}

/*
 * PoolRelTruncate - drop every block of a relation (nontransactional).
 * Caller holds AccessExclusiveLock on the relation.
 */
void
PoolRelTruncate(int dirIndex)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64		root = e->root;
	uint64	   *frames;
	int			n;

	frames = PoolCollectFrames(e, root, e->nblocks, &n);
	PoolPublish64(&e->nblocks, 0);
	PoolPublish64(&e->root, 0);
	PoolFreeFrames(frames, n);
	pfree(frames);
}

BlockNumber
PoolRelNBlocks(int dirIndex)
{
	return (BlockNumber) pool_dir[dirIndex].nblocks;
}

static void PoolPageTableCorrupt(NvmDirEntry *e, BlockNumber blkno) pg_attribute_noreturn();

static void
PoolPageTableCorrupt(NvmDirEntry *e, BlockNumber blkno)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am page table of relation %u is corrupt at block %u",
					e->relNode, blkno),
			 errdetail("A page-table entry points outside pool file \"%s\".",
					   pool_resolved_path)));
}

/*
 * PoolRelLeafEntry - the page-table entry of block blkno, which must be
 * below nblocks, after checking that the path to it stays in the pool.
 * The caller holds a lock on the relation.
 */
static uint64 *
PoolRelLeafEntry(int dirIndex, BlockNumber blkno)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64		root = e->root;
	uint64		leaf;

	if (blkno >= e->nblocks)
		elog(ERROR, "block %u is beyond the end of nvm_am relation %u (%llu blocks)",
			 blkno, e->relNode, (unsigned long long) e->nblocks);
	if (!FrameValid(root))
		PoolPageTableCorrupt(e, blkno);
	leaf = ((uint64 *) FrameAddr(root))[blkno / NVM_PT_FANOUT];
	if (!FrameValid(leaf))
		PoolPageTableCorrupt(e, blkno);
	return &((uint64 *) FrameAddr(leaf))[blkno % NVM_PT_FANOUT];
}

static uint64
PoolNewTableFrame(void)
{
	uint64		f = PoolAllocFrame();
	char	   *p = FrameAddr(f);

	memset(p, 0, NVM_FRAME_SIZE);
	PoolFlush(p, NVM_FRAME_SIZE);
	return f;
}

/*
 * PoolRelMapNewBlock - publish an initialised, persisted frame as block
 * blkno, which must be the relation's current nblocks.  Caller holds the
 * relation's extension lock.
 */
void
PoolRelEnsurePath(int dirIndex, BlockNumber blkno)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *root;

	if ((uint64) blkno >= NVM_MAX_REL_BLOCKS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("nvm_am relation %u cannot grow beyond %llu blocks",
						e->relNode, (unsigned long long) NVM_MAX_REL_BLOCKS)));
	if (e->root == 0)
	{
		uint64		r = PoolNewTableFrame();

		PoolDrain();
		PoolPublish64(&e->root, r);
	}
	root = (uint64 *) FrameAddr(e->root);
	if (root[blkno / NVM_PT_FANOUT] == 0)
	{
		uint64		l = PoolNewTableFrame();

		PoolDrain();
		PoolPublish64(&root[blkno / NVM_PT_FANOUT], l);
	}
}

/*
 * PoolRelMapNewBlock - publish an initialised, persisted frame as block
 * blkno, which must be the relation's current nblocks.  Caller holds the
 * relation's extension lock and called PoolRelEnsurePath for blkno.
 */
void
PoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *root;
	uint64	   *leaf;

	if (blkno != e->nblocks)
		elog(ERROR, "nvm_am extension of relation %u at block %u, expected %llu",
			 e->relNode, blkno, (unsigned long long) e->nblocks);
	PoolRelEnsurePath(dirIndex, blkno);
	root = (uint64 *) FrameAddr(e->root);
	leaf = (uint64 *) FrameAddr(root[blkno / NVM_PT_FANOUT]);
	PoolPublish64(&leaf[blkno % NVM_PT_FANOUT], frame);
	PoolPublish64(&e->nblocks, (uint64) blkno + 1);
	PoolCountAdd(NVM_STAT_PAGES_EXTENDED, 1);
}

/* ----------------------------------------------------------------
 * Frame pins and retirement
 *
 * A backend that keeps a pointer into a page frame after releasing the
 * page lock (a scan's current page, a tuple returned by an index fetch)
 * pins the frame while it holds the page lock.  A page that is rewritten
 * (copy-on-write) gets a new frame; the old one is retired and freed once
 * its last pin is gone.  Since pins are taken under the page lock and
 * frames are swapped under the page lock held exclusively, no pin can be
 * taken on a frame after it was retired.
 * ----------------------------------------------------------------
 */

/*
 * PoolRelGetFrame - frame number of a block.  Caller holds the page lock.
 */
uint64
PoolRelGetFrame(int dirIndex, BlockNumber blkno)
{
	uint64		frame = *PoolRelLeafEntry(dirIndex, blkno);

	if (!FrameValid(frame))
		PoolPageTableCorrupt(&pool_dir[dirIndex], blkno);
	return frame;
}

static void
PoolFreeOne(uint64 frame)
{
	PoolFreeFrames(&frame, 1);
	PoolCountAdd(NVM_STAT_FRAMES_RECLAIMED, 1);
}

/*
 * PoolPinFrame - pin a frame, or (numbers above the pool's frames) an image
 * slot of the merge cache; caller holds the lock of the page in it.
 */
void
PoolPinFrame(uint64 frame)
{
	Assert(FrameValid(frame) ||
		   (frame > pool_header->nframes && frame <= pool_header->nframes + IplCacheSlots()));
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
PoolUnpinShared(uint64 frame)
{
	uint32		old = pg_atomic_fetch_sub_u32(&pool_pins[frame], 1);
	uint32		now = old - 1;

	Assert((old & PIN_COUNT_MASK) > 0);
	/* the last pin of a retired frame frees it (image slots never retire) */
	if ((now & PIN_RETIRED) && (now & PIN_COUNT_MASK) == 0 && FrameValid(frame) &&
		pg_atomic_compare_exchange_u32(&pool_pins[frame], &now, 0))
		PoolFreeOne(frame);
}

/*
 * PoolFrameVerified, PoolSetFrameVerified - whether the checksum of the base
 * image in frame was checked since the frame was allocated or the server
 * started (a flag in the frame's pin word, cleared by PoolTryAllocFrame).
 */
bool
PoolFrameVerified(uint64 frame)
{
	return (pg_atomic_read_u32(&pool_pins[frame]) & PIN_VERIFIED) != 0;
}

void
PoolSetFrameVerified(uint64 frame)
{
	pg_atomic_fetch_or_u32(&pool_pins[frame], PIN_VERIFIED);
}

/*
 * PoolUnpinFrame - drop one pin this backend holds on frame.
 */
void
PoolUnpinFrame(uint64 frame)
{
	for (int i = local_npins - 1; i >= 0; i--)
	{
		if (local_pins[i] == frame)
		{
			local_pins[i] = local_pins[--local_npins];
			PoolUnpinShared(frame);
			return;
		}
	}
	elog(ERROR, "nvm_am frame %llu is not pinned", (unsigned long long) frame);
}

/*
 * PoolReleaseAllPins - drop every pin of this backend (transaction end).
 */
void
PoolReleaseAllPins(void)
{
	while (local_npins > 0)
		PoolUnpinShared(local_pins[--local_npins]);
}

/*
 * PoolPinCount - how many pins frame (or image slot) has.
 */
uint32
PoolPinCount(uint64 frame)
{
	return pg_atomic_read_u32(&pool_pins[frame]) & PIN_COUNT_MASK;
}

/*
 * PoolFrameLog - the in-page log area of frame (log_size bytes), or NULL
 * when the pool has none.
 */
char *
PoolFrameLog(uint64 frame)
{
	Assert(FrameValid(frame));
	if (pool_header->log_size == 0)
		return NULL;
	return pool_base + pool_header->logs_offset + (frame - 1) * pool_header->log_size;
}

/*
 * PoolLogSize - bytes of log area per frame (0: in-page logging is off).
 */
uint32
PoolLogSize(void)
{
	return pool_header->log_size;
}

/*
 * PoolNextGeneration - a page generation number never handed out before.
 * Every NVM_GEN_BATCH numbers the high-water mark is moved ahead and
 * persisted before any number beyond the old one is used.
 */
uint64
PoolNextGeneration(void)
{
	uint64		gen = pg_atomic_fetch_add_u64(&pool_shared->next_gen, 1);

	if (gen >= pool_runtime->gen_high_water)
	{
		LWLock	   *lock = &pool_shared->locks[NVM_LOCK_ALLOC].lock;

		LWLockAcquire(lock, LW_EXCLUSIVE);
		if (gen >= pool_runtime->gen_high_water)
			PoolPublish64(&pool_runtime->gen_high_water, gen + NVM_GEN_BATCH);
		LWLockRelease(lock);
	}
	return gen;
}

/*
 * PoolRetireFrame - a frame no page table reaches any more is freed as
 * soon as no backend has it pinned.
 */
void
PoolRetireFrame(uint64 frame)
{
	uint32		old = pg_atomic_fetch_or_u32(&pool_pins[frame], PIN_RETIRED);
	uint32		now = old | PIN_RETIRED;

	Assert(!(old & PIN_RETIRED));
	if ((old & PIN_COUNT_MASK) == 0 &&
		pg_atomic_compare_exchange_u32(&pool_pins[frame], &now, 0))
		PoolFreeOne(frame);
}

/*
 * PoolRelSwapFrame - make block blkno live in newframe (initialised and
 * persisted by the caller); returns the old frame, which the caller
 * retires.  Caller holds the page lock exclusively.
 */
uint64
PoolRelSwapFrame(int dirIndex, BlockNumber blkno, uint64 newframe)
{
	uint64	   *entry = PoolRelLeafEntry(dirIndex, blkno);
	uint64		old = *entry;

	PoolPublish64(entry, newframe);
	return old;
}
