/*-------------------------------------------------------------------------
 *
 * nvm_am.h
 *	  Internals of the table-access-method layer of nvm_am, the top layer:
 *	  the callbacks in nvm_am.c are thin and call the file that owns the
 *	  work, declared here.  Files of this layer may use the page operations
 *	  (nvm_page.h), the PostgreSQL integration (nvm_hooks.h) and the pool
 *	  (nvm_pool.h); nothing below includes this header.
 *
 *	  nvm_guc.c			the nvm_am.* settings
 *	  nvm_scan.c		sequential, TID-range, bitmap, sample, ANALYZE scans
 *	  nvm_index.c		index fetches, index builds, TID fetches
 *	  nvm_modify.c		insert, update, delete; the page for a new tuple
 *	  nvm_rowlock.c		row locks, xmax and multixact decisions
 *	  nvm_prune.c		HOT chains and pruning decisions
 *	  nvm_vacuum.c		VACUUM, VACUUM FULL and CLUSTER
 *	  nvm_visibility.c	MVCC visibility of tuples
 *	  nvm_vismap.c		the visibility map (all-visible, all-frozen pages)
 *	  nvm_check.c		nvm_am_check()
 *	  nvm_monitor.c		nvm_am_stats, nvm_am_pool_info()
 *	  nvm_database.c	CREATE DATABASE ... TEMPLATE, ALTER DATABASE ... SET
 *						TABLESPACE: the pool storage of a database's tables
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_AM_H
#define NVM_AM_H

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/vacuum.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"
#include "utils/snapshot.h"

#include "nvm_hooks.h"
#include "nvm_page.h"
#include "nvm_pool.h"

/*
 * A scan of an nvm_am table (sequential, TID range, bitmap, sample,
 * ANALYZE, and the scans of index builds).  The tuple returned last points
 * into cpage, pinned (cframe) until the scan moves on.
 */
typedef struct NvmScanDescData
{
	TableScanDescData rs_base;
	int			dirIndex;
	BlockNumber nblocks;		/* blocks at scan start */
	BlockNumber startblock;		/* range of a limited scan */
	BlockNumber endblock;		/* exclusive */
	bool		inited;
	BlockNumber cblock;			/* current block */
	int			ntuples;		/* visible tuples of cblock */
	int			cindex;			/* current index in vis[] */
	uint64		cframe;			/* pinned image of cblock, 0 if none */
	Page		cpage;			/* its page */
	char	   *copybuf;		/* cblock's copy (nvm_am.read_mode = copy; else NULL) */
	IplPrefetchCursor prefetch; /* the next block's image, while on cblock */
	OffsetNumber vis[MaxHeapTuplesPerPage];
	HeapTupleData tuple;		/* current tuple, points into the pool */
	ParallelBlockTableScanWorkerData pwork;
	OffsetNumber next_offset;	/* analyze scans */
	BlockNumber statblock;		/* block counted last in the statistics */
	Buffer		vmbuf;			/* visibility map page pinned, or InvalidBuffer */
} NvmScanDescData;

typedef NvmScanDescData *NvmScanDesc;

/*
 * NvmSetTuple - point tup at the tuple at (blkno, off) of page.  Caller
 * holds the page lock (or a pin on the page's image).
 */
static inline void
NvmSetTuple(HeapTuple tup, Relation rel, Page page, BlockNumber blkno,
			OffsetNumber off)
{
	ItemId		lp = PageGetItemId(page, off);

	tup->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup->t_len = ItemIdGetLength(lp);
	tup->t_tableOid = RelationGetRelid(rel);
	ItemPointerSet(&tup->t_self, blkno, off);
}

/*
 * NvmPruneChainStep - the next member of the HOT chain after tup, or
 * InvalidOffsetNumber at the end of the chain.  *priorXmax gets the xid
 * the next member must have as its xmin (nvm_prune.c follows chains).
 */
static inline OffsetNumber
NvmPruneChainStep(HeapTuple tup, TransactionId *priorXmax)
{
	if (!HeapTupleIsHotUpdated(tup))
		return InvalidOffsetNumber;
	Assert(ItemPointerGetBlockNumber(&tup->t_data->t_ctid) ==
		   ItemPointerGetBlockNumber(&tup->t_self));
	*priorXmax = HeapTupleHeaderGetUpdateXid(tup->t_data);
	return ItemPointerGetOffsetNumber(&tup->t_data->t_ctid);
}

/* nvm_am.c */
extern int	NvmAmStorageCreate(const RelFileNode *rnode, char persistence);

/* nvm_guc.c */
extern void NvmGucDefine(void);

/* nvm_scan.c */
extern TableScanDesc NvmScanBegin(Relation rel, Snapshot snapshot, int nkeys,
								  ScanKey key, ParallelTableScanDesc pscan,
								  uint32 flags);
extern void NvmScanEnd(TableScanDesc sscan);
extern void NvmScanRescan(TableScanDesc sscan, ScanKey key);
extern bool NvmScanGetNextSlot(TableScanDesc sscan, ScanDirection direction,
							   TupleTableSlot *slot);
extern void NvmScanCountPage(Relation rel, BlockNumber *last,
							 BlockNumber blkno, bool cached);
extern void NvmScanCountChange(Relation rel, bool cached);
extern void NvmScanCountNewPage(Relation rel);
extern void NvmScanSetTidRange(TableScanDesc sscan, ItemPointer mintid,
							   ItemPointer maxtid);
extern bool NvmScanGetNextSlotTidRange(TableScanDesc sscan,
									   ScanDirection direction,
									   TupleTableSlot *slot);
extern void NvmScanSetBlockRange(TableScanDesc sscan, BlockNumber start,
								 BlockNumber numblocks);
extern bool NvmScanTidValid(TableScanDesc sscan, ItemPointer tid);
extern bool NvmScanAnalyzeNextBlock(TableScanDesc sscan, BlockNumber blockno);
extern bool NvmScanAnalyzeNextTuple(TableScanDesc sscan,
									TransactionId OldestXmin,
									double *liverows, double *deadrows,
									TupleTableSlot *slot);
extern bool NvmScanBitmapNextBlock(TableScanDesc sscan,
								   TBMIterateResult *tbmres);
extern bool NvmScanBitmapNextTuple(TableScanDesc sscan,
								   TBMIterateResult *tbmres,
								   TupleTableSlot *slot);
extern bool NvmScanSampleNextBlock(TableScanDesc sscan,
								   SampleScanState *scanstate);
extern bool NvmScanSampleNextTuple(TableScanDesc sscan,
								   SampleScanState *scanstate,
								   TupleTableSlot *slot);

/* nvm_index.c */
extern IndexFetchTableData *NvmIndexFetchBegin(Relation rel);
extern void NvmIndexFetchReset(IndexFetchTableData *scan);
extern void NvmIndexFetchEnd(IndexFetchTableData *scan);
extern bool NvmIndexFetchTuple(IndexFetchTableData *scan, ItemPointer tid,
							   Snapshot snapshot, TupleTableSlot *slot,
							   bool *call_again, bool *all_dead);
extern bool NvmIndexFetchRowVersion(Relation rel, ItemPointer tid,
									Snapshot snapshot, TupleTableSlot *slot);
extern void NvmIndexGetLatestTid(TableScanDesc sscan, ItemPointer tid);
extern bool NvmIndexTupleSatisfiesSnapshot(Relation rel, TupleTableSlot *slot,
										   Snapshot snapshot);
extern TransactionId NvmIndexDeleteTuples(Relation rel,
										  TM_IndexDeleteOp *delstate);
extern double NvmIndexBuildRangeScan(Relation heapRelation,
									 Relation indexRelation,
									 IndexInfo *indexInfo, bool allow_sync,
									 bool anyvisible, bool progress,
									 BlockNumber start_blockno,
									 BlockNumber numblocks,
									 IndexBuildCallback callback,
									 void *callback_state,
									 TableScanDesc scan);
extern void NvmIndexValidateScan(Relation heapRelation, Relation indexRelation,
								 IndexInfo *indexInfo, Snapshot snapshot,
								 ValidateIndexState *state);

/* nvm_modify.c */
extern void NvmModifyTupleInsert(Relation rel, TupleTableSlot *slot,
								 CommandId cid, int options);
extern void NvmModifyInsertSpeculative(Relation rel, TupleTableSlot *slot,
									   CommandId cid, int options,
									   uint32 specToken);
extern void NvmModifyCompleteSpeculative(Relation rel, TupleTableSlot *slot,
										 uint32 specToken, bool succeeded);
extern void NvmModifyMultiInsert(Relation rel, TupleTableSlot **slots,
								 int ntuples, CommandId cid, int options);
extern TM_Result NvmModifyDelete(Relation rel, ItemPointer tid, CommandId cid,
								 Snapshot crosscheck, bool wait,
								 TM_FailureData *tmfd, bool changingPart);
extern TM_Result NvmModifyUpdate(Relation rel, ItemPointer otid,
								 TupleTableSlot *slot, CommandId cid,
								 Snapshot crosscheck, bool wait,
								 TM_FailureData *tmfd, LockTupleMode *lockmode,
								 bool *update_indexes);
extern void NvmModifyPlaceTuple(Relation rel, int dirIndex, HeapTuple tup,
								bool keepCtid, bool inserting, bool useFsm);
extern bool NvmModifyNeedsToastTable(Relation rel);

/* nvm_rowlock.c */
extern Page NvmRowLockPage(Relation rel, int dirIndex, ItemPointer tid,
						   HeapTuple tup, LWLock **lockp, bool missing_ok);
extern bool NvmRowLockAttrsEqual(Relation rel, Bitmapset *attrs,
								 HeapTuple oldtup, HeapTuple newtup);
extern MultiXactStatus NvmRowLockUpdaterStatus(HeapTupleHeader t);
extern void NvmRowLockCarriedBits(TransactionId xmax, uint16 infomask,
								  uint16 *newmask, uint16 *newmask2);
extern TransactionId NvmRowLockNewXmax(HeapTupleHeader t, MultiXactStatus want,
									   TransactionId myxid, uint16 *infomask,
									   uint16 *infomask2, bool *lockers);
extern void NvmRowLockSetXmax(HeapTupleHeader hdr, HeapTuple tup,
							  TransactionId xmax, CommandId cid,
							  uint16 infomask, uint16 infomask2, bool byMe);
extern TM_Result NvmRowLockForModify(Relation rel, int dirIndex, ItemPointer tid,
									 CommandId cid, Snapshot crosscheck,
									 bool wait, TM_FailureData *tmfd,
									 HeapTuple tup, Page *page, LWLock **lock,
									 const char *what, Bitmapset *keyattrs,
									 HeapTuple newtup, MultiXactStatus *want,
									 LOCKMODE *tuplock);
extern void NvmRowLockReleaseTuple(Relation rel, ItemPointer tid,
								   LOCKMODE *tuplock);
extern void NvmRowLockSlotPinsCheck(void);
extern TM_Result NvmRowLockTuple(Relation rel, ItemPointer tid,
								 Snapshot snapshot, TupleTableSlot *slot,
								 CommandId cid, LockTupleMode mode,
								 LockWaitPolicy wait_policy, uint8 flags,
								 TM_FailureData *tmfd);

/* nvm_prune.c */
extern OffsetNumber NvmPruneChainNext(Page page, BlockNumber blkno,
									  HeapTupleHeader t);
extern OffsetNumber NvmPruneChainStart(Page page, OffsetNumber root);
extern void NvmPruneGetRootTuples(Page page, BlockNumber blkno,
								  OffsetNumber *roots);
extern bool NvmPruneChainMember(Relation rel, Page page, BlockNumber blkno,
								OffsetNumber *off, bool atRoot,
								TransactionId priorXmax, HeapTuple tup);
extern void NvmPruneBeforeRead(Relation rel, int dirIndex, BlockNumber blkno,
							   LWLock *lock, IplPageRef *ref);
extern bool NvmPrunePage(Relation rel, int dirIndex, BlockNumber blkno,
						 bool force, TransactionId oldestXmin,
						 int *ndeletedOut);

/* nvm_vacuum.c */
extern void NvmVacuumRelation(Relation rel, struct VacuumParams *params,
							  BufferAccessStrategy bstrategy);
/* what becomes of a tuple's xmax when it is frozen (NvmVacuumXmaxFate) */
typedef enum NvmXmaxFate
{
	NVM_XMAX_KEEP,				/* it stays */
	NVM_XMAX_ABORTED,			/* an aborted updater's stays, hinted invalid */
	NVM_XMAX_UPDATER,			/* a multixact gives way to its updater */
	NVM_XMAX_FORGET				/* nothing stays */
} NvmXmaxFate;
extern NvmXmaxFate NvmVacuumXmaxFate(HeapTupleHeader t, TransactionId abortedBefore,
									 TransactionId freezeLimit, MultiXactId cutoffMulti,
									 TransactionId *upd, MultiXactId *minMxid,
									 TransactionId *frozenXid);
extern bool NvmVacuumSetXmax(HeapTupleHeader hdr, NvmXmaxFate fate, TransactionId upd);

/* nvm_rewrite.c */
extern void NvmRewriteCopyForCluster(Relation OldTable, Relation NewTable,
									 Relation OldIndex, bool use_sort,
									 TransactionId OldestXmin,
									 TransactionId *xid_cutoff,
									 MultiXactId *multi_cutoff,
									 double *num_tuples,
									 double *tups_vacuumed,
									 double *tups_recently_dead);

/* nvm_visibility.c */
extern bool NvmTupleSatisfies(HeapTuple tup, Snapshot snapshot);
extern TM_Result NvmTupleSatisfiesUpdate(HeapTuple tup, CommandId curcid,
										 TransactionId *xwait);
extern HTSV_Result NvmTupleSatisfiesVacuum(HeapTuple tup,
										   TransactionId OldestXmin,
										   TransactionId *deadXid);
extern bool NvmTupleDeadToAll(Relation rel, HeapTuple tup,
							  TransactionId *deleter);
extern void NvmTupleKeepOldSnapshots(Relation rel, TransactionId *oldestXmin,
									 TransactionId *freezeLimit);
extern void NvmTupleCheckConflictOutSerializable(bool visible, Relation rel,
												 HeapTuple tup, Snapshot snapshot);

/*
 * NvmTupleCheckConflictOut - NvmTupleCheckConflictOutSerializable for a
 * SERIALIZABLE transaction; nothing (and no call) for any other, which is
 * most scans' every tuple.
 */
static inline void
NvmTupleCheckConflictOut(bool visible, Relation rel, HeapTuple tup,
						 Snapshot snapshot)
{
	if (IsolationIsSerializable())
		NvmTupleCheckConflictOutSerializable(visible, rel, tup, snapshot);
}

/*
 * NvmTupleGoneBefore - do t's hint bits alone say that an MVCC snapshot
 * whose xmin is snapXmin cannot see t: a transaction that committed before
 * every transaction the snapshot treats as running deleted or updated it?
 * Every path of the full MVCC test gives that answer for such a tuple
 * (its inserter committed before the deleter saw it), after two
 * XidInMVCCSnapshot calls; the test asks this first, and a sequential
 * scan asks it before it sets up the tuple at all, so that the dead
 * versions on a page that many transactions update and scan cost a few
 * instructions each.  False when the hints do not settle it (no committed
 * hint, a multixact, a locker).
 * Caller holds the tuple's page lock, shared is enough.
 */
static inline bool
NvmTupleGoneBefore(HeapTupleHeader t, TransactionId snapXmin)
{
	uint16		mask = t->t_infomask;

	return (mask & (HEAP_XMAX_COMMITTED | HEAP_XMAX_IS_MULTI)) == HEAP_XMAX_COMMITTED &&
		!HEAP_XMAX_IS_LOCKED_ONLY(mask) &&
		TransactionIdPrecedes(HeapTupleHeaderGetRawXmax(t), snapXmin);
}

/* nvm_vismap.c */
extern Size NvmVismapShmemSize(void);
extern void NvmVismapShmemInit(void);
extern void NvmVismapResetAtStartup(void);
extern void NvmVismapStorageCreated(int dirIndex);
extern void NvmVismapStorageCopied(int dirIndex);
extern void NvmVismapEmptyCopiedFork(const RelFileNode *node, bool permanent);
extern void NvmVismapPin(Relation rel, BlockNumber blkno, Buffer *vmbuf);
extern void NvmVismapSet(Relation rel, int dirIndex, BlockNumber blkno,
						 Buffer vmbuf, uint8 flags);
extern void NvmVismapClear(Relation rel, int dirIndex, BlockNumber blkno,
						   uint8 flags);
extern uint8 NvmVismapStatus(Relation rel, int dirIndex, BlockNumber blkno,
							 Buffer *vmbuf);
extern bool NvmVismapAllVisible(Relation rel, int dirIndex, BlockNumber blkno,
								Buffer *vmbuf);
extern void NvmVismapSetAfterFrozenLoad(Relation rel, int dirIndex);
extern uint8 NvmVismapTupleStatus(HeapTuple tup, TransactionId OldestXmin);
extern uint8 NvmVismapPageStatus(Relation rel, Page page, BlockNumber blkno,
								 TransactionId OldestXmin);

/* nvm_database.c */
extern void NvmDatabaseAfterCreate(CreatedbStmt *stmt);
extern void NvmDatabaseBeforeAlter(AlterDatabaseStmt *stmt);

#endif							/* NVM_AM_H */
