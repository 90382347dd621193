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
#define NVM_POOL_FORMAT_VERSION	1
#define NVM_FRAME_SIZE			BLCKSZ
#define NVM_PT_FANOUT			(NVM_FRAME_SIZE / sizeof(uint64))
#define NVM_MAX_REL_BLOCKS		((uint64) NVM_PT_FANOUT * NVM_PT_FANOUT)

/* Directory entry state word: low 32 bits xid, high bits flags */
#define NVM_REL_USED			UINT64CONST(0x0000000100000000)
#define NVM_REL_CREATING		UINT64CONST(0x0000000200000000)
#define NVM_REL_DROPPING		UINT64CONST(0x0000000400000000)
#define NVM_REL_STATE_XID(s)	((TransactionId) ((s) & 0xFFFFFFFF))

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
extern Page PoolRelGetPage(int dirIndex, BlockNumber blkno);
extern uint64 PoolAllocFrame(void);
extern uint64 PoolTryAllocFrame(void);
extern Page PoolFramePage(uint64 frame);
extern void PoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame);
extern uint64 PoolRelGetFrame(int dirIndex, BlockNumber blkno);
extern uint64 PoolRelSwapFrame(int dirIndex, BlockNumber blkno, uint64 newframe);
extern void PoolPinFrame(uint64 frame);
extern void PoolUnpinFrame(uint64 frame);
extern void PoolReleaseAllPins(void);
extern void PoolRelEnsurePath(int dirIndex, BlockNumber blkno);
extern void PoolRetireFrame(uint64 frame);
extern int	PoolDirSize(void);
extern bool PoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state);
extern LWLock *PoolDirLock(void);
extern LWLock *PoolPageLock(int dirIndex, BlockNumber blkno);

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
extern bool NvmXidCommitDurable(TransactionId xid);
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

/* nvm_am.c */
extern int	NvmRelDirIndex(Relation rel);
extern void NvmCheckPreloaded(void);

#endif							/* NVM_AM_H */
