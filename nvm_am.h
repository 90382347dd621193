/*-------------------------------------------------------------------------
 *
 * nvm_am.h
 *	  Internal interfaces between the modules of the nvm_am table access
 *	  method.  Layering (see docs/design.md): nvm_am.c calls ipl_log.c and
 *	  nvm_visibility.c; ipl_log.c calls the pool (nvm_pool.c); the pool is
 *	  the only module that calls libpmem.  pmem_smgr_hook.c holds the
 *	  hooks into PostgreSQL (storage lifecycle, WAL resource manager,
 *	  resolution of interrupted lifecycle changes after a restart).
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_AM_H
#define NVM_AM_H

#include "access/heapam.h"
#include "access/htup.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "storage/block.h"
#include "storage/itemptr.h"
#include "storage/lwlock.h"
#include "storage/relfilenode.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

/* ----------------------------------------------------------------
 * On-pmem format constants
 * ----------------------------------------------------------------
 */
#define NVM_POOL_MAGIC			UINT64CONST(0x4C4F4F504D564E31)	/* "1NVMPOOL" */
#define NVM_POOL_FORMAT_VERSION	3
#define NVM_FRAME_SIZE			BLCKSZ
#define NVM_PT_FANOUT			(NVM_FRAME_SIZE / sizeof(uint64))
#define NVM_MAX_REL_BLOCKS		((uint64) NVM_PT_FANOUT * NVM_PT_FANOUT)

/* Directory entry state word: low 32 bits xid, high bits flags */
#define NVM_REL_USED			UINT64CONST(0x0000000100000000)
#define NVM_REL_CREATING		UINT64CONST(0x0000000200000000)
#define NVM_REL_DROPPING		UINT64CONST(0x0000000400000000)
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

/* The statistics counters, in the order nvm_am_stats shows them */
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
	NVM_NUM_COUNTERS
} NvmCounter;

/* ----------------------------------------------------------------
 * nvm_pool.c: the pmem pool
 * ----------------------------------------------------------------
 */

/* Backend-local handle of a relation's storage in the pool */
typedef struct NvmRelHandle
{
	int			dirIndex;		/* index into the relation directory */
	RelFileNode node;			/* its key, to validate cached handles */
} NvmRelHandle;

typedef struct NvmPoolInfo
{
	const char *path;
	uint64		size;
	uint64		frames_total;
	uint64		frames_free;
	uint64		relations;
	uint32		format_version;
	bool		is_pmem;
	bool		emulated;
} NvmPoolInfo;

extern char *nvm_pool_path;
extern int	nvm_pool_size_mb;
extern int	nvm_ipl_log_size;
extern char *nvm_persist_trace;
extern int	nvm_merge_cache_size;
extern int	nvm_read_mode;

#define NVM_IPL_LOG_SIZE_DEFAULT	4096
#define NVM_IPL_LOG_SIZE_MIN		256
#define NVM_IPL_LOG_SIZE_MAX		8192

typedef enum NvmReadMode
{
	NVM_READ_REDIRECT,
	NVM_READ_COPY
} NvmReadMode;
extern bool nvm_am_preloaded;

extern void PoolOpenOrCreate(void);
extern Size PoolShmemSize(void);
extern void PoolRequestLocks(void);
extern void PoolShmemInit(void);
extern void PoolGetInfo(NvmPoolInfo *info);
extern void PoolCountAdd(NvmCounter c, uint64 n);
extern uint64 PoolCounterValue(NvmCounter c);
extern const char *PoolCounterName(NvmCounter c);

/* persist primitives */
extern void PoolFlush(const void *addr, Size len);
extern void PoolDrain(void);
extern void PoolPersist(const void *addr, Size len);
extern void PoolPublish64(uint64 *addr, uint64 value);

/* relation directory */
extern int	PoolRelLookup(const RelFileNode *node);
extern int	PoolRelCreate(const RelFileNode *node, TransactionId xid);
extern uint64 PoolRelGetState(int dirIndex);
extern void PoolRelSetState(int dirIndex, uint64 state);
extern void PoolRelFree(int dirIndex);
extern void PoolRelTruncate(int dirIndex);
extern BlockNumber PoolRelNBlocks(int dirIndex);
extern uint64 PoolAllocFrame(void);
extern uint64 PoolTryAllocFrame(void);
extern Page PoolFramePage(uint64 frame);
extern uint32 PoolPinCount(uint64 frame);
extern uint64 PoolFrameCount(void);
extern char *PoolFrameLog(uint64 frame);
extern uint32 PoolLogSize(void);
extern uint64 PoolNextGeneration(void);
extern void PoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame);
extern uint64 PoolRelGetFrame(int dirIndex, BlockNumber blkno);
extern uint64 PoolRelSwapFrame(int dirIndex, BlockNumber blkno, uint64 newframe);
extern void PoolPinFrame(uint64 frame);
extern bool PoolFrameVerified(uint64 frame);
extern void PoolSetFrameVerified(uint64 frame);
extern void PoolUnpinFrame(uint64 frame);
extern void PoolReleaseAllPins(void);
extern void PoolRelEnsurePath(int dirIndex, BlockNumber blkno);
extern void PoolRetireFrame(uint64 frame);
extern int	PoolDirSize(void);
extern bool PoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state);
extern LWLock *PoolDirLock(void);
extern LWLock *PoolPageLock(int dirIndex, BlockNumber blkno);
extern LWLock *PoolCommitLogLock(void);
extern NvmXactSlot *PoolXactSlot(int i);
extern NvmCommitEntry *PoolCommitEntry(int i);

/* ----------------------------------------------------------------
 * ipl_log.c: page operations (the only code that changes a page)
 * ----------------------------------------------------------------
 */
extern BlockNumber IplNewPage(int dirIndex);
extern void IplPlaceTuple(Relation rel, int dirIndex, HeapTuple tup,
						  bool keepCtid);
extern void IplWriteTupleHeader(Page page, OffsetNumber off,
								HeapTupleHeader newhdr);
extern bool IplPrunePage(Relation rel, int dirIndex, BlockNumber blkno,
						 bool force, TransactionId oldestXmin);
extern void IplGetRootTuples(Page page, BlockNumber blkno, OffsetNumber *roots);
extern void IplSetUnused(Page page, OffsetNumber *offs, int n);
extern OffsetNumber IplPlaceTupleOnPage(Page page, BlockNumber blkno, HeapTuple tup);
extern void IplSetHintBits(HeapTupleHeader tup, uint16 bits);
extern void IplCopyRelation(int srcIndex, int dstIndex, struct SMgrRelationData *dstsmgr);
extern Page IplGetPage(int dirIndex, BlockNumber blkno);
extern Page IplHoldPage(int dirIndex, BlockNumber blkno, uint64 *held,
						char *copybuf);
extern void IplDropPage(uint64 *held);
extern bool IplFrameChecksumOk(uint64 frame, uint16 *stored, uint16 *computed);

/* ----------------------------------------------------------------
 * ipl_cache.c: merged page images in shared memory
 * ----------------------------------------------------------------
 */
typedef struct IplSlot
{
	uint64		frame;			/* frame whose page this is; 0 = free */
	int			dirIndex;		/* the page: relation and block */
	BlockNumber blkno;
	uint32		logUsed;		/* bytes of the frame's log applied */
	bool		logHasPrune;	/* a PRUNE record among them: the image's
								 * layout differs from the base's */
	bool		logAppendOnly;	/* only IPL_RECF_APPEND records among them */
	uint32		usage;			/* clock-sweep usage count */
} IplSlot;

#define NVM_MERGE_CACHE_SIZE_DEFAULT	(64 * 1024)	/* kB */
#define NVM_MERGE_CACHE_SIZE_MIN		1024	/* kB */
#define NVM_MERGE_CACHE_SIZE_MAX		(64 * 1024 * 1024)	/* kB */

extern int	IplCacheSlots(void);
extern Size IplCacheShmemSize(void);
extern void IplCacheShmemInit(void);
extern IplSlot *IplSlotById(int slot);
extern Page IplSlotPage(int slot);
extern uint64 IplSlotPinId(int slot);
extern int	IplSlotOfPage(Page page);
extern int	IplCacheLookup(uint64 frame);
extern int	IplCacheAlloc(void);
extern int	IplCacheTryAlloc(void);
extern void IplCacheFree(int slot);
extern int	IplCacheMap(int slot, int dirIndex, BlockNumber blkno, uint64 frame,
						uint32 logUsed, bool logHasPrune);
extern void IplCacheRemap(int slot, uint64 newframe);
extern void IplCacheUnmap(int slot);
extern void IplCacheDropStale(int slot, uint64 frame);

/* ----------------------------------------------------------------
 * nvm_visibility.c
 * ----------------------------------------------------------------
 */
extern bool NvmTupleSatisfies(HeapTuple tup, Snapshot snapshot);
extern TM_Result NvmTupleSatisfiesUpdate(HeapTuple tup, CommandId curcid,
										 TransactionId *xwait);
extern HTSV_Result NvmTupleSatisfiesVacuum(HeapTuple tup,
										   TransactionId OldestXmin,
										   TransactionId *deadXid);
extern bool NvmXidCommitted(TransactionId xid);
extern void NvmCheckConflictOut(bool visible, Relation rel, HeapTuple tup,
								Snapshot snapshot);

/* ----------------------------------------------------------------
 * pmem_smgr_hook.c
 * ----------------------------------------------------------------
 */
extern void NvmHooksInit(void);
extern void NvmEnsureReady(void);
extern void NvmStorageCreate(const RelFileNode *node);
extern void NvmStorageScheduleDrop(const RelFileNode *node);
extern void NvmBeforeWrite(void);
extern void NvmStorageExtended(struct SMgrRelationData *smgr, BlockNumber blkno);
extern Size NvmHooksShmemSize(void);
extern void NvmHooksShmemInit(void);

/* ----------------------------------------------------------------
 * nvm_commit.c: transaction slots, commit log, recovery
 * ----------------------------------------------------------------
 */
extern Size NvmCommitShmemSize(void);
extern void NvmCommitShmemInit(void);
extern void NvmCommitFirstWrite(void);
extern void NvmCommitPreCommit(void);
extern void NvmCommitEnd(bool commit);
extern void NvmCommitRecover(void);
extern void NvmCommitRedo(TransactionId xid, int nsubxids, TransactionId *subxids);
extern void NvmCommitLogResolved(TransactionId xid, int nsubxids, TransactionId *subxids);
extern void NvmCommitRegisterWorker(void);

/* nvm_am.c */
extern int	NvmRelDirIndex(Relation rel);
extern void NvmCheckPreloaded(void);

#endif							/* NVM_AM_H */
