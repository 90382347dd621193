/*-------------------------------------------------------------------------
 *
 * nvm_pool.h
 *	  The pool layer of nvm_am (nvm_pool.c): the persistent-memory pool file,
 *	  its on-pmem format, the relation directory and page tables, page-frame
 *	  allocation and pins, the persist primitives and the statistics
 *	  counters.  This is the bottom layer: it includes no other nvm_am
 *	  header, and nvm_pool.c is the only file that calls libpmem.
 *
 *	  The layers above (docs/design.md, "Files and layers"):
 *		nvm_am.h	 table access method (callbacks, scans, row locks, ...)
 *		nvm_page.h	 page operations: in-page logs, merge cache
 *		nvm_hooks.h	 PostgreSQL integration: storage lifecycle, WAL
 *					 resource manager, commit log, crash recovery
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_POOL_H
#define NVM_POOL_H

#include "access/transam.h"
#include "storage/block.h"
#include "storage/bufpage.h"
#include "storage/lwlock.h"
#include "storage/relfilenode.h"

/* ----------------------------------------------------------------
 * On-pmem format constants
 * ----------------------------------------------------------------
 */
#define NVM_POOL_MAGIC			UINT64CONST(0x4C4F4F504D564E31)	/* "1NVMPOOL" */
#define NVM_POOL_FORMAT_VERSION	7	/* new pools */
#define NVM_POOL_FORMAT_VERSION_MIN 5	/* the oldest read (and written as
										 * it is: see NvmPoolFormatVersion) */
#define NVM_FRAME_SIZE			BLCKSZ
#define NVM_PT_FANOUT			(NVM_FRAME_SIZE / sizeof(uint64))
#define NVM_PT_BITS				10	/* log2(NVM_PT_FANOUT) */
#define NVM_PT_MAX_LEVELS		3
/* blocks a page table of levels levels maps: 8 GB at 2 levels, 8 TB at 3 */
#define NVM_PT_CAPACITY(levels) (UINT64CONST(1) << (NVM_PT_BITS * (levels)))
#define NVM_MAX_REL_BLOCKS		NVM_PT_CAPACITY(NVM_PT_MAX_LEVELS)

/* Directory entry state word: low 32 bits xid, high bits flags */
#define NVM_REL_USED			UINT64CONST(0x0000000100000000)
#define NVM_REL_CREATING		UINT64CONST(0x0000000200000000)
#define NVM_REL_DROPPING		UINT64CONST(0x0000000400000000)
#define NVM_REL_UNLOGGED		UINT64CONST(0x0000000800000000)	/* changes not in WAL */
#define NVM_REL_TEMP			UINT64CONST(0x0000001000000000)	/* nothing in WAL */
#define NVM_REL_KEPT_FLAGS		(NVM_REL_UNLOGGED | NVM_REL_TEMP)	/* for life */
#define NVM_REL_STATE_XID(s)	((TransactionId) ((s) & 0xFFFFFFFF))

/*
 * Transaction slots and the commit log (layout owned by nvm_pool.c, protocol
 * by nvm_commit.c).  A slot is one 8-byte word per backend (PGPROC number),
 * alone in its cache line: state bits | full transaction id, 0 = free.  A
 * commit-log entry is one cache line; it is valid when fxid is not 0 and
 * crc matches.
 */
#define NVM_XACT_SLOTS			1024
#define NVM_COMMIT_LOG_ENTRIES	16384
#define NVM_COMMIT_MAX_SUBXIDS	12
#define NVM_COMMIT_LOG_PARTS	16	/* parts with a lock each (nvm_commit.c) */
#define NVM_SLOT_ACTIVE			UINT64CONST(0x4000000000000000)
#define NVM_SLOT_PREPARED		UINT64CONST(0x8000000000000000)
#define NVM_SLOT_FXID_MASK		UINT64CONST(0x3FFFFFFFFFFFFFFF)

typedef struct NvmXactSlot
{
	uint64		word;			/* NVM_SLOT_ACTIVE or _PREPARED | fxid */
	uint64		pad[7];
} NvmXactSlot;

typedef struct NvmCommitEntry
{
	uint64		fxid;			/* committed top-level transaction; 0 = none */
	uint32		nsubxids;		/* committed subtransactions below */
	uint32		crc;			/* CRC-32C of fxid, nsubxids and subxids */
	TransactionId subxids[NVM_COMMIT_MAX_SUBXIDS];
} NvmCommitEntry;

/* ----------------------------------------------------------------
 * Settings owned by the pool (defined in nvm_guc.c's table)
 * ----------------------------------------------------------------
 */
extern char *nvm_pool_path;
extern int	nvm_pool_size_mb;
extern int	nvm_ipl_log_size;
extern char *nvm_persist_trace;

#define NVM_POOL_SIZE_DEFAULT_MB	1024
#define NVM_POOL_SIZE_MIN_MB		16
#define NVM_POOL_SIZE_MAX_MB		(1024 * 1024)

#define NVM_IPL_LOG_SIZE_DEFAULT	4096
#define NVM_IPL_LOG_SIZE_MIN		256		/* when not 0 */
#define NVM_IPL_LOG_SIZE_MAX		8192
#define NVM_IPL_LOG_SIZE_STEP		64

/*
 * One page frame in NVM_LOG_FRAME_SHARE has an in-page log area (a log
 * frame); the others are plain frames.  Pages being changed live in log
 * frames, the others in plain ones (ipl_log.c moves them).  Fixed in the
 * pool header when the pool is created.
 */
#define NVM_LOG_FRAME_SHARE			8

/* ----------------------------------------------------------------
 * WAL records of nvm_am's resource manager (nvm_xlog.c registers it and
 * redoes the relation records; the page records are the page layer's).
 * With nvm_am.wal_log = on every change of the data of a logged relation
 * is in WAL, for base backups, standbys and point-in-time recovery.
 * ----------------------------------------------------------------
 */
#define NVM_RMGR_ID				141
#define XLOG_NVM_XID_IN_USE		0x00
#define XLOG_NVM_COMMIT_RESOLVED 0x10
#define XLOG_NVM_PAGE_CHANGE	0x20	/* a change of a page (an in-page log record) */
#define XLOG_NVM_NEW_PAGE		0x30	/* a page added to a relation, empty or whole */
#define XLOG_NVM_PAGE_MOVE		0x40	/* a page written to another frame, unchanged */
#define XLOG_NVM_REL_CREATE		0x50	/* a directory entry taken */
#define XLOG_NVM_REL_DROP		0x60	/* a directory entry freed */
#define XLOG_NVM_REL_TRUNCATE	0x70	/* a relation cut to nblocks */
#define XLOG_NVM_LOGICAL		0x80	/* a row change, for logical decoding only */

/*
 * The main data of the page records; block 0 is the page (its relation's
 * RelFileNode, main fork, block number), with a full image of the page
 * before the change when it is the page's first record after a
 * checkpoint's redo pointer.  PAGE_CHANGE: len bytes of the in-page log
 * record's body (type) follow, self-contained (no bytes taken from the
 * base image).  NEW_PAGE: the image, when there is one, is the new page
 * itself (else it is empty).
 */
typedef struct XlNvmPage
{
	int32		dirIndex;
	uint8		type;			/* PAGE_CHANGE: the in-page log record type */
	uint8		flags;			/* XLNVM_PAGE_* */
} XlNvmPage;

#define SizeOfXlNvmPage	(offsetof(XlNvmPage, flags) + sizeof(uint8))
/*
 * A prune: the newest xid of a removed tuple follows (4 bytes), for the
 * queries of a hot standby; then the body.
 */
#define XLNVM_PAGE_CONFLICT	0x01

/*
 * XlNvmPageParse - the header of a page record's main data (data, len
 * bytes) into *xlrec, its conflict horizon (or InvalidTransactionId) into
 * *conflictXid, where its body starts and how long it is into *body and
 * *bodyLen.  False for data too short to hold what its header says.
 */
static inline bool
XlNvmPageParse(const char *data, int len, XlNvmPage *xlrec,
			   TransactionId *conflictXid, const char **body, int *bodyLen)
{
	*conflictXid = InvalidTransactionId;
	if (len < (int) SizeOfXlNvmPage)
		return false;
	memcpy(xlrec, data, SizeOfXlNvmPage);
	data += SizeOfXlNvmPage;
	len -= SizeOfXlNvmPage;
	if (xlrec->flags & XLNVM_PAGE_CONFLICT)
	{
		if (len < (int) sizeof(TransactionId))
			return false;
		memcpy(conflictXid, data, sizeof(TransactionId));
		data += sizeof(TransactionId);
		len -= sizeof(TransactionId);
	}
	*body = data;
	*bodyLen = len;
	return true;
}

/* the main data of the relation records */
typedef struct XlNvmRel
{
	int32		dirIndex;
	RelFileNode node;
	uint64		state;			/* CREATE: the entry's state word */
	uint32		nblocks;		/* TRUNCATE: blocks kept */
} XlNvmRel;

/* nvm_am.wal_log: write every change of logged relations to WAL too */
extern int	nvm_wal_log;

/* ----------------------------------------------------------------
 * Statistics counters, in the order nvm_am_stats shows them
 * ----------------------------------------------------------------
 */
typedef enum NvmCounter
{
	NVM_STAT_PMEM_BYTES_WRITTEN,
	NVM_STAT_PMEM_FLUSHES,
	NVM_STAT_PMEM_DRAINS,
	NVM_STAT_PAGES_EXTENDED,
	NVM_STAT_TUPLES_INSERTED,
	NVM_STAT_TUPLES_UPDATED,
	NVM_STAT_TUPLES_DELETED,
	NVM_STAT_PAGE_READS,
	NVM_STAT_RELS_CREATED,
	NVM_STAT_RELS_DROPPED,
	NVM_STAT_XID_WAL_RECORDS,
	NVM_STAT_PENDING_RESOLVED,
	NVM_STAT_FRAMES_RECLAIMED,
	NVM_STAT_PAGES_PRUNED,
	NVM_STAT_HOT_UPDATES,
	NVM_STAT_IPL_RECORDS,
	NVM_STAT_IPL_BYTES,
	NVM_STAT_MERGES_ON_READ,
	NVM_STAT_MERGES_ON_FULL,
	NVM_STAT_MERGE_BYTES_WRITTEN,
	NVM_STAT_REDIRECTED_PAGE_READS,
	NVM_STAT_COPIED_PAGE_READS,
	NVM_STAT_MERGED_PAGE_READS,
	NVM_STAT_IPL_TORN_RECORDS,
	NVM_STAT_CACHE_EVICTIONS,
	NVM_STAT_PAGES_SEALED_IN_PLACE,
	NVM_STAT_CHECKSUM_FAILURES,
	NVM_STAT_COMMIT_RECORDS,
	NVM_STAT_COMMIT_DRAINS,
	NVM_STAT_COMMITS_THROUGH_WAL,
	NVM_STAT_COMMIT_LOG_FULL,
	NVM_STAT_PREPARED_RESOLVED_COMMIT,
	NVM_STAT_PREPARED_RESOLVED_ABORT,
	NVM_STAT_RECOVERED_LOSERS,
	NVM_STAT_FROZEN_WINNERS,
	NVM_STAT_ORPHANS_RECLAIMED,
	NVM_STAT_RECOVERY_US,
	NVM_STAT_FRAMES_IN_BATCHES,
	NVM_STAT_PAGES_PRUNED_IN_PLACE,
	NVM_STAT_LOG_FRAMES_IN_BATCHES,
	NVM_STAT_LOG_FRAME_PROMOTIONS,
	NVM_STAT_LOG_FRAME_DEMOTIONS,
	NVM_STAT_LOG_FRAMES_SHORT,
	NVM_STAT_RELIED_COMMIT_FLUSHES,
	NVM_STAT_TUPLES_BULK_PLACED,
	NVM_STAT_LOG_FRAMES_STOLEN,
	NVM_STAT_PAGES_FOLDED_ON_READ,
	NVM_STAT_UPDATE_RETRIES,
	NVM_STAT_FRAMES_RETIRED,
	NVM_STAT_ASYNC_COMMIT_FLUSHES,
	NVM_STAT_MULTIXACT_WAL_FLUSHES,
	NVM_STAT_MULTIXACT_WAL_FLUSHES_LOCKED,
	NVM_NUM_COUNTERS
} NvmCounter;

typedef struct NvmPoolInfo
{
	const char *path;
	uint64		size;
	uint64		frames_total;
	uint64		frames_free;
	uint64		log_frames_total;	/* frames with a log area */
	uint64		log_frames_free;
	uint64		frame_bytes;	/* pool bytes of a frame's page */
	uint64		log_bytes;		/* pool bytes of a log area */
	uint64		metadata_bytes; /* header, directory, commit log, slots */
	uint64		relations;
	uint32		format_version;
	bool		is_pmem;
	bool		emulated;
} NvmPoolInfo;

/* ----------------------------------------------------------------
 * Functions (nvm_pool.c)
 * ----------------------------------------------------------------
 */

/* start-up (postmaster), shared memory, information */
extern void NvmPoolOpenOrCreate(void);
extern void NvmPoolCheckPreloaded(void);
extern bool NvmPoolIsMapped(void);
extern Size NvmPoolShmemSize(uint64 extra_pins);
extern void NvmPoolRequestLocks(void);
extern void NvmPoolShmemInit(uint64 extra_pins);
extern void NvmPoolGetInfo(NvmPoolInfo *info);
extern void NvmPoolCountAdd(NvmCounter c, uint64 n);
extern uint64 NvmPoolCounterValue(NvmCounter c);
extern const char *NvmPoolCounterName(NvmCounter c);

/* persist primitives */
extern void NvmPoolFlush(const void *addr, Size len);
extern void NvmPoolDrain(void);
extern void NvmPoolPersist(const void *addr, Size len);
extern void NvmPoolPublish64(uint64 *addr, uint64 value);

/* locks */
extern LWLock *NvmPoolDirLock(void);
extern LWLock *NvmPoolPageLock(int dirIndex, BlockNumber blkno);
extern LWLock *NvmPoolCommitLogLock(int part);

/* relation directory and page tables */
extern int	NvmPoolDirSize(void);
extern int	NvmPoolRelLookup(const RelFileNode *node);
extern int	NvmPoolRelCreate(const RelFileNode *node, TransactionId xid,
							 uint64 flags);
extern bool NvmPoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state);
extern uint64 NvmPoolRelGetState(int dirIndex);
extern void NvmPoolRelSetState(int dirIndex, uint64 state);
extern void NvmPoolRelFree(int dirIndex);
extern void NvmPoolRelCreateAt(int dirIndex, const RelFileNode *node, uint64 state);
extern void NvmPoolRelTruncate(int dirIndex, BlockNumber nblocks);
extern BlockNumber NvmPoolRelNBlocks(int dirIndex);
extern bool NvmPoolRelIsDamaged(int dirIndex);
extern void NvmPoolRelEnsurePath(int dirIndex, BlockNumber blkno);
extern void NvmPoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame);
extern uint64 NvmPoolRelGetFrame(int dirIndex, BlockNumber blkno);
extern uint64 NvmPoolRelPeekFrame(int dirIndex, BlockNumber blkno);
extern uint64 NvmPoolRelSwapFrame(int dirIndex, BlockNumber blkno, uint64 newframe);

/* frames: allocation, raw access (page layer only), pins */
extern uint64 NvmPoolFrameCount(void);
extern uint64 NvmPoolAllocFrame(bool withLog);
extern uint64 NvmPoolTryAllocFrame(bool withLog);
extern void NvmPoolGiveBackFrame(uint64 frame);
extern bool NvmPoolCopyPending(void);
extern void NvmPoolCopySettled(void);
extern void NvmPoolSetKeepFrames(bool keep);
extern void NvmPoolReclaimKept(void);
extern bool NvmPoolLogFramesScarce(void);
extern Page NvmPoolFramePage(uint64 frame);
extern char *NvmPoolFrameLog(uint64 frame);
extern uint64 *NvmPoolFrameWalLsn(uint64 frame);
extern uint32 NvmPoolFrameLogSize(uint64 frame);
extern uint32 NvmPoolLogSize(void);
extern uint32 NvmPoolFormatVersion(void);
extern uint64 NvmPoolNextGeneration(void);
extern bool NvmPoolGenerationIsNew(uint64 gen);
extern void NvmPoolPinFrame(uint64 frame);
extern void NvmPoolUnpinFrame(uint64 frame);
extern void NvmPoolReleaseAllPins(void);
extern uint32 NvmPoolPinCount(uint64 frame);
extern bool NvmPoolFrameRetiredPinned(uint64 frame);
extern uint64 NvmPoolPinEpoch(void);
extern bool NvmPoolFrameVerified(uint64 frame);
extern void NvmPoolSetFrameVerified(uint64 frame);
extern void NvmPoolRetireFrame(uint64 frame);

/* transaction slots and commit log (written by nvm_commit.c) */
extern NvmXactSlot *NvmPoolXactSlot(int i);
extern NvmCommitEntry *NvmPoolCommitEntry(int i);

#endif							/* NVM_POOL_H */
