/*-------------------------------------------------------------------------
 *
 * nvm_index.c
 *	  Index support of nvm_am, and fetches of row versions by TID:
 *	  index fetches (following the HOT chain an index entry points to),
 *	  tuple_fetch_row_version, tuple_get_latest_tid,
 *	  tuple_satisfies_snapshot, index_delete_tuples (entries no snapshot
 *	  can see any more), and the table side of index builds:
 *	  index_build_range_scan (heap-only tuples get their root's TID) and
 *	  index_validate_scan (CREATE INDEX CONCURRENTLY).
 *
 * Locks: the page lock, shared, while a chain or tuple is examined; a
 * fetched tuple's image stays pinned until the next fetch.  Index builds
 * run under the locks CREATE INDEX takes on the table.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/progress.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "nvm_am.h"

/*
 * an index fetch: the page it looked at last stays pinned, as heap's fetch
 * keeps its buffer, and so does the page of the tuple it returned last until
 * it returns the next, as heap's tuple slot keeps that buffer pinned
 */
typedef struct NvmIndexFetchData
{
	IndexFetchTableData base;
	int			dirIndex;
	uint64		held;			/* pinned image of the page looked at last */
	uint64		returned;		/* pinned image of the tuple returned last */
	char	   *copybuf;		/* its page's copy (nvm_am.read_mode = copy; else NULL) */
	TransactionId lastXmin;		/* its xmin, checked when the caller comes back */
	BlockNumber statblock;		/* block counted last in the statistics */
	HeapTupleData tuple;
} NvmIndexFetchData;

IndexFetchTableData *
NvmIndexFetchBegin(Relation rel)
{
	NvmIndexFetchData *f = palloc0(sizeof(NvmIndexFetchData));

	f->copybuf = IplCopyBuffer();

	f->base.rel = rel;
	f->dirIndex = NvmStorageRelDirIndex(rel);
	f->statblock = InvalidBlockNumber;
	return &f->base;
}

void
NvmIndexFetchReset(IndexFetchTableData *scan)
{
	((NvmIndexFetchData *) scan)->statblock = InvalidBlockNumber;
	IplDropPage(&((NvmIndexFetchData *) scan)->held);
	IplDropPage(&((NvmIndexFetchData *) scan)->returned);
}

void
NvmIndexFetchEnd(IndexFetchTableData *scan)
{
	IplDropPage(&((NvmIndexFetchData *) scan)->held);
	IplDropPage(&((NvmIndexFetchData *) scan)->returned);
	pfree(scan);
}

/*
 * NvmIndexFetchVisible - test the tuple at tid against snapshot; false for a tid
 * that names no tuple.  When it is visible and copy is given, *copy is a
 * palloc'd copy of it.  Takes the page lock shared.
 */
static bool
NvmIndexFetchVisible(Relation rel, int dirIndex, ItemPointer tid,
					 Snapshot snapshot, bool *visible, HeapTuple *copy)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	LWLock	   *lock;
	Page		page;
	bool		found = false;
	HeapTupleData tup;

	*visible = false;
	if (blkno >= NvmPoolRelNBlocks(dirIndex))
		return false;
	lock = NvmPoolPageLock(dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);
	page = IplGetPage(dirIndex, blkno);
	if (off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page) &&
		ItemIdIsNormal(PageGetItemId(page, off)))
	{
		found = true;
		NvmSetTuple(&tup, rel, page, blkno, off);
		*visible = NvmTupleSatisfies(&tup, snapshot);
		NvmTupleCheckConflictOut(*visible, rel, &tup, snapshot);
		if (*visible && copy)
		{
			PredicateLockTID(rel, tid, snapshot, HeapTupleHeaderGetXmin(tup.t_data));
			*copy = heap_copytuple(&tup);
		}
	}
	LWLockRelease(lock);
	return found;
}

/*
 * NvmIndexFetchTuple - the version of the HOT chain rooted at tid that
 * snapshot sees.  With a non-MVCC snapshot more than one version may
 * qualify: *call_again asks the caller to come back for the next one.
 */
bool
NvmIndexFetchTuple(struct IndexFetchTableData *scan, ItemPointer tid,
				   Snapshot snapshot, TupleTableSlot *slot,
				   bool *call_again, bool *all_dead)
{
	IplPageRef	ref;
	NvmIndexFetchData *f = (NvmIndexFetchData *) scan;
	Relation	rel = scan->rel;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	bool		first = !*call_again;
	bool		skip = !first;	/* come back: start after the last result */
	bool		atRoot = first;
	bool		deadSoFar = true;
	TransactionId priorXmax = InvalidTransactionId;
	LWLock	   *lock;
	Page		page;
	HeapTupleData tup;

	*call_again = false;
	if (all_dead)
		*all_dead = false;
	if (blkno >= NvmPoolRelNBlocks(f->dirIndex))
		return false;
	lock = NvmPoolPageLock(f->dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);

	/*
	 * Coming to another page, prune it first when that pays, as heap does
	 * (heap_page_prune_opt): before this fetch pins it, so that the page
	 * can be compacted in place when nobody else has it pinned.
	 */
	if (first && blkno != f->statblock)
		NvmPruneBeforeRead(rel, f->dirIndex, blkno, lock, &ref);
	else
		IplLookPage(f->dirIndex, blkno, &ref);
	page = IplHoldRef(&ref, &f->held, f->copybuf);
	NvmScanCountPage(f->base.rel, &f->statblock, blkno, ref.src == IPL_READ_CACHED);
	for (;;)
	{
		TransactionId deleter;
		bool		visible;

		if (!NvmPruneChainMember(rel, page, blkno, &off, atRoot, priorXmax, &tup))
			break;
		/* coming back: the version returned last must still be there */
		if (skip && !TransactionIdEquals(HeapTupleHeaderGetRawXmin(tup.t_data), f->lastXmin))
			break;
		if (!skip)
		{
			visible = NvmTupleSatisfies(&tup, snapshot);
			NvmTupleCheckConflictOut(visible, rel, &tup, snapshot);
			if (visible)
			{
				PredicateLockTID(rel, &tup.t_self, snapshot,
								 HeapTupleHeaderGetXmin(tup.t_data));
				IplHoldAlso(f->held, &f->returned);
				LWLockRelease(lock);
				f->tuple = tup;
				f->lastXmin = HeapTupleHeaderGetRawXmin(tup.t_data);
				*tid = tup.t_self;
				*call_again = !IsMVCCSnapshot(snapshot);
				ExecStoreHeapTuple(&f->tuple, slot, false);
				return true;
			}
			if (deadSoFar && !NvmTupleDeadToAll(rel, &tup, &deleter))
				deadSoFar = false;
		}
		skip = false;
		atRoot = false;
		off = NvmPruneChainStep(&tup, &priorXmax);
		if (off == InvalidOffsetNumber)
			break;
	}
	LWLockRelease(lock);

	/*
	 * Tell the index when no transaction can see any version of the chain
	 * any more: it marks the entry dead, and later scans skip it.  Not while
	 * that rests on a commit a crash could still lose (WAL mode, an
	 * asynchronous commit): the mark is a hint the index may write out
	 * before the commit is flushed, as heap's HeapTupleIsSurelyDead knows.
	 */
	if (all_dead && first)
		*all_dead = deadSoFar && !NvmCommitReliedPending();
	return false;
}

bool
NvmIndexFetchRowVersion(Relation rel, ItemPointer tid, Snapshot snapshot,
						TupleTableSlot *slot)
{
	HeapTuple	copy;
	bool		visible;

	if (!NvmIndexFetchVisible(rel, NvmStorageRelDirIndex(rel), tid, snapshot, &visible, &copy) ||
		!visible)
		return false;
	ExecStoreHeapTuple(copy, slot, true);
	return true;
}

void
NvmIndexGetLatestTid(TableScanDesc sscan, ItemPointer tid)
{
	Relation	rel = sscan->rs_rd;
	Snapshot	snapshot = sscan->rs_snapshot;
	int			dirIndex = NvmStorageRelDirIndex(rel);
	ItemPointerData ctid = *tid;
	TransactionId priorXmax = InvalidTransactionId;

	for (;;)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&ctid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&ctid);
		LWLock	   *lock;
		Page		page;
		HeapTupleData tup;
		bool		more = false;

		if (blkno >= NvmPoolRelNBlocks(dirIndex))
			break;
		lock = NvmPoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		if (off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page) &&
			ItemIdIsNormal(PageGetItemId(page, off)))
		{
			NvmSetTuple(&tup, rel, page, blkno, off);
			if (!TransactionIdIsValid(priorXmax) ||
				TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup.t_data)))
			{
				if (NvmTupleSatisfies(&tup, snapshot))
					*tid = ctid;
				if (!(tup.t_data->t_infomask & HEAP_XMAX_INVALID) &&
					!HEAP_XMAX_IS_LOCKED_ONLY(tup.t_data->t_infomask) &&
					!ItemPointerEquals(&tup.t_self, &tup.t_data->t_ctid) &&
					!HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
				{
					priorXmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
					ctid = tup.t_data->t_ctid;
					more = true;
				}
			}
		}
		LWLockRelease(lock);
		if (!more)
			break;
	}
}

bool
NvmIndexTupleSatisfiesSnapshot(Relation rel, TupleTableSlot *slot,
							   Snapshot snapshot)
{
	bool		visible;

	if (!NvmIndexFetchVisible(rel, NvmStorageRelDirIndex(rel), &slot->tts_tid, snapshot,
							  &visible, NULL))
		return false;
	return visible;
}

/* the newer of two xids, either of which may be invalid */
static inline TransactionId
NvmIndexNewerXid(TransactionId a, TransactionId b)
{
	if (!TransactionIdIsNormal(b))
		return a;
	if (!TransactionIdIsValid(a) || TransactionIdFollows(b, a))
		return b;
	return a;
}

/*
 * Bottom-up deletion (an index page about to split under versions of rows
 * whose indexed columns did not change) looks at the heap blocks most
 * likely to free the space the index asks for, as heap does: at most
 * NVM_BOTTOMUP_MAX_BLOCKS blocks, ranked by their count of entries the
 * index calls promising, and it stops at the first block that frees
 * nothing more.  Deleting every dead entry instead (what this file did
 * before) gave indexes other contents than heap's, and with them other
 * index fetches, other prunes and other row placement.
 */
#define NVM_BOTTOMUP_MAX_BLOCKS		6
#define NVM_BOTTOMUP_NEAR_BLOCKS	3	/* blocks this close count as adjacent */

/* the entries of one heap block, for the bottom-up ranking */
typedef struct NvmDeleteGroup
{
	int			first;			/* its first entry in the TID-sorted array */
	int			ntids;
	uint32		rank;			/* promising entries, in power-of-two buckets */
} NvmDeleteGroup;

static int
NvmIndexTidCmp(const void *a, const void *b)
{
	return ItemPointerCompare(&((TM_IndexDelete *) unconstify(void *, a))->tid,
							  &((TM_IndexDelete *) unconstify(void *, b))->tid);
}

static int
NvmIndexGroupCmp(const void *a, const void *b)
{
	const NvmDeleteGroup *ga = a;
	const NvmDeleteGroup *gb = b;
	uint32		na = pg_nextpower2_32((uint32) ga->ntids);
	uint32		nb = pg_nextpower2_32((uint32) gb->ntids);

	/* most promising first, then most entries (bucketed), then by block */
	if (ga->rank != gb->rank)
		return ga->rank > gb->rank ? -1 : 1;
	if (na != nb)
		return na > nb ? -1 : 1;
	return ga->first < gb->first ? -1 : (ga->first > gb->first ? 1 : 0);
}

/*
 * NvmIndexBottomUpOrder - reorder the TID-sorted entries of a bottom-up
 * deletion by heap block, most promising blocks first, and keep only the
 * entries of the first NVM_BOTTOMUP_MAX_BLOCKS blocks.  Small differences
 * in the counts are noise: the ranks are powers of two, at least 4.
 * Returns how many blocks at the front lie near each other (at least 1):
 * those are visited without lowering the space target.
 */
static int
NvmIndexBottomUpOrder(TM_IndexDeleteOp *delstate)
{
	NvmDeleteGroup *groups = palloc(sizeof(NvmDeleteGroup) * delstate->ndeltids);
	TM_IndexDelete *ordered = palloc(sizeof(TM_IndexDelete) * delstate->ndeltids);
	int			ngroups = 0;
	int			n = 0;
	int			nnear = 0;
	BlockNumber prev = InvalidBlockNumber;

	for (int i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexDelete *d = &delstate->deltids[i];
		BlockNumber blkno = ItemPointerGetBlockNumber(&d->tid);

		if (ngroups == 0 || blkno != prev)
		{
			groups[ngroups].first = i;
			groups[ngroups].ntids = 0;
			groups[ngroups].rank = 0;
			ngroups++;
			prev = blkno;
		}
		groups[ngroups - 1].ntids++;
		if (delstate->status[d->id].promising)
			groups[ngroups - 1].rank++;
	}
	for (int g = 0; g < ngroups; g++)
		groups[g].rank = groups[g].rank <= 4 ? 4 : pg_nextpower2_32(groups[g].rank);
	qsort(groups, ngroups, sizeof(NvmDeleteGroup), NvmIndexGroupCmp);
	ngroups = Min(ngroups, NVM_BOTTOMUP_MAX_BLOCKS);

	for (int g = 0; g < ngroups; g++)
	{
		BlockNumber blkno =
			ItemPointerGetBlockNumber(&delstate->deltids[groups[g].first].tid);

		/* the run of blocks at the front, each near the one before */
		if (g == 0 ||
			(nnear == g &&
			 (int64) blkno >= (int64) prev - NVM_BOTTOMUP_NEAR_BLOCKS &&
			 (int64) blkno <= (int64) prev + NVM_BOTTOMUP_NEAR_BLOCKS))
			nnear++;
		prev = blkno;
		memcpy(ordered + n, delstate->deltids + groups[g].first,
			   sizeof(TM_IndexDelete) * groups[g].ntids);
		n += groups[g].ntids;
	}
	memcpy(delstate->deltids, ordered, sizeof(TM_IndexDelete) * n);
	delstate->ndeltids = n;
	pfree(ordered);
	pfree(groups);
	return nnear;
}

/*
 * NvmIndexDeleteTuples - tell an index which of its entries point to
 * row versions that no transaction can see any more (every version of the
 * chain the entry leads to dead to all), so that it can remove them
 * instead of splitting a page; entries it already knows to be dead (marked
 * by earlier scans) are taken as they are.  A bottom-up deletion looks at
 * a few blocks only (NvmIndexBottomUpOrder): it stops after the block that
 * met the index's space target, or after one that freed nothing more, and
 * the target halves at each block that is not near the ones before.
 * delstate->ndeltids is cut after the last deletable entry, as the index
 * expects.  Returns the newest xid that deleted one of them (for conflicts
 * on a standby reading the index).  Takes each page lock shared in turn.
 */
TransactionId
NvmIndexDeleteTuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	TransactionId latest = InvalidTransactionId;
	BlockNumber curblock = InvalidBlockNumber;
	int			nfinal = 0;
	int			nblocks = 0;
	int			nnear = 0;
	int			target = delstate->bottomupfreespace;
	int			freed = 0;
	int			freedBefore = 0;
	bool		lastBlock = false;

	qsort(delstate->deltids, delstate->ndeltids, sizeof(TM_IndexDelete),
		  NvmIndexTidCmp);
	if (delstate->bottomup)
		nnear = NvmIndexBottomUpOrder(delstate);

	for (int i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexDelete *d = &delstate->deltids[i];
		TM_IndexStatus *st = &delstate->status[d->id];
		BlockNumber blkno = ItemPointerGetBlockNumber(&d->tid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&d->tid);
		TransactionId priorXmax = InvalidTransactionId;
		TransactionId chainLatest = InvalidTransactionId;
		bool		atRoot = true;
		bool		dead = true;
		LWLock	   *lock;
		Page		page;
		HeapTupleData tup;

		if (blkno != curblock)
		{
			if (delstate->bottomup)
			{
				if (lastBlock || (nblocks > 0 && freed == freedBefore))
					break;
				freedBefore = freed;
				if (nnear > 0)
					nnear--;
				else
					target /= 2;
			}
			curblock = blkno;
			nblocks++;
		}
		if (blkno >= NvmPoolRelNBlocks(dirIndex))
			continue;
		lock = NvmPoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		/* deletable when every version of the chain is dead to all */
		while (NvmPruneChainMember(rel, page, blkno, &off, atRoot, priorXmax, &tup))
		{
			TransactionId deleter;

			if (!NvmTupleDeadToAll(rel, &tup, &deleter))
			{
				dead = false;
				if (!st->knowndeletable)
					break;
			}
			chainLatest = NvmIndexNewerXid(chainLatest, deleter);
			atRoot = false;
			off = NvmPruneChainStep(&tup, &priorXmax);
			if (off == InvalidOffsetNumber)
				break;
		}
		LWLockRelease(lock);
		if (!st->knowndeletable)
		{
			if (!dead)
				continue;
			st->knowndeletable = true;
			if (delstate->bottomup)
			{
				freed += st->freespace;
				if (freed >= target)
					lastBlock = true;
			}
		}
		latest = NvmIndexNewerXid(latest, chainLatest);
		nfinal = i + 1;
	}
	delstate->ndeltids = nfinal;
	return latest;
}

/*
 * NvmIndexRootTid - the TID an index entry for tup must have: tup's own, or for
 * a heap-only tuple that of the root of its HOT chain.  The root offsets of
 * the scan's current page are computed once per page into roots[].
 */
static void
NvmIndexRootTid(TableScanDesc sscan, HeapTuple tup, OffsetNumber *roots,
				BlockNumber *rootsBlock, ItemPointer result)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber blkno = ItemPointerGetBlockNumber(&tup->t_self);
	OffsetNumber off = ItemPointerGetOffsetNumber(&tup->t_self);

	*result = tup->t_self;
	if (!HeapTupleIsHeapOnly(tup))
		return;
	if (*rootsBlock != blkno)
	{
		LWLock	   *lock = NvmPoolPageLock(scan->dirIndex, blkno);

		Assert(scan->cblock == blkno);
		LWLockAcquire(lock, LW_SHARED);
		NvmPruneGetRootTuples(scan->cpage, blkno, roots);
		LWLockRelease(lock);
		*rootsBlock = blkno;
	}
	if (!OffsetNumberIsValid(roots[off - 1]))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("failed to find parent tuple for heap-only tuple at (%u,%u) in table \"%s\"",
								 blkno, off, RelationGetRelationName(sscan->rs_rd))));
	ItemPointerSetOffsetNumber(result, roots[off - 1]);
}

double
NvmIndexBuildRangeScan(Relation heapRelation, Relation indexRelation,
					   IndexInfo *indexInfo, bool allow_sync,
					   bool anyvisible, bool progress,
					   BlockNumber start_blockno, BlockNumber numblocks,
					   IndexBuildCallback callback, void *callback_state,
					   TableScanDesc scan)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	double		reltuples = 0;
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = table_slot_create(heapRelation, NULL);
	ExprState  *predicate;
	Snapshot	snapshot;
	bool		need_unregister = false;
	TransactionId OldestXmin = InvalidTransactionId;
	OffsetNumber roots[MaxHeapTuplesPerPage];
	BlockNumber rootsBlock = InvalidBlockNumber;
	int			buildDirIndex = NvmStorageRelDirIndex(heapRelation);

	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	if (scan == NULL)
	{
		if (IsBootstrapProcessingMode() || indexInfo->ii_Concurrent)
		{
			snapshot = RegisterSnapshot(GetTransactionSnapshot());
			need_unregister = true;
		}
		else
			snapshot = SnapshotAny;
		scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL,
									 true, allow_sync);
	}
	else
		snapshot = scan->rs_snapshot;
	if (snapshot == SnapshotAny)
		OldestXmin = GetOldestNonRemovableTransactionId(heapRelation);

	if (start_blockno != 0 || numblocks != InvalidBlockNumber)
		NvmScanSetBlockRange(scan, start_blockno, numblocks);
	if (progress)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL,
									 ((NvmScanDesc) scan)->nblocks);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slot, false, NULL);
		bool		indexIt = true;
		bool		alive = true;
		bool		counted = false;	/* in reltuples though not alive */
		ItemPointerData rootTid;

		CHECK_FOR_INTERRUPTS();
		if (snapshot == SnapshotAny)
		{
			for (;;)
			{
				TransactionId xwait = InvalidTransactionId;
				LWLock	   *lock = NvmPoolPageLock(buildDirIndex,
												   ItemPointerGetBlockNumber(&tup->t_self));
				HTSV_Result r;

				/* a row locker may change the header meanwhile */
				LWLockAcquire(lock, LW_SHARED);
				r = NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL);
				LWLockRelease(lock);

				switch (r)
				{
					case HEAPTUPLE_DEAD:
						indexIt = false;
						break;
					case HEAPTUPLE_LIVE:
						break;
					case HEAPTUPLE_RECENTLY_DEAD:
						alive = false;

						/*
						 * Only the end of a HOT chain gets an entry; snapshots
						 * older than the index may miss this version, so the
						 * index is marked unsafe for them, as heap does.
						 */
						if (HeapTupleIsHotUpdated(tup))
						{
							indexIt = false;
							indexInfo->ii_BrokenHotChain = true;
						}
						break;
					case HEAPTUPLE_INSERT_IN_PROGRESS:
						xwait = HeapTupleHeaderGetRawXmin(tup->t_data);
						if (anyvisible || TransactionIdIsCurrentTransactionId(xwait))
							xwait = InvalidTransactionId;
						break;
					case HEAPTUPLE_DELETE_IN_PROGRESS:

						/*
						 * The deleter is the updater of a multixact, not
						 * its lockers (a key-share lock taken before an
						 * update of our own makes one).  Deleted by this
						 * transaction, or visible to some snapshot
						 * (anyvisible): indexed but not unique-checked, as
						 * heap does; a HOT-updated version is left to the
						 * end of its chain.
						 */
						xwait = HeapTupleHeaderGetUpdateXid(tup->t_data);
						if (anyvisible)
						{
							xwait = InvalidTransactionId;
							alive = false;
							counted = true;
						}
						else if (TransactionIdIsCurrentTransactionId(xwait))
						{
							alive = false;
							xwait = InvalidTransactionId;
							if (HeapTupleIsHotUpdated(tup))
							{
								indexIt = false;
								indexInfo->ii_BrokenHotChain = true;
							}
						}
						break;
				}
				if (!TransactionIdIsValid(xwait))
					break;
				XactLockTableWait(xwait, heapRelation, &tup->t_self,
								  XLTW_InsertIndexUnique);
				CHECK_FOR_INTERRUPTS();
				indexIt = true;
				alive = true;
				counted = false;
			}
		}
		if (!indexIt)
			continue;
		if (alive || counted)
			reltuples += 1;

		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(indexInfo, slot, estate, values, isnull);
		NvmIndexRootTid(scan, tup, roots, &rootsBlock, &rootTid);
		callback(indexRelation, &rootTid, values, isnull, alive,
				 callback_state);
	}

	table_endscan(scan);
	if (need_unregister)
		UnregisterSnapshot(snapshot);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
	return reltuples;
}

/*
 * NvmIndexValidateScan - second pass of CREATE INDEX CONCURRENTLY:
 * insert every tuple visible to the snapshot whose TID is not in the index
 * yet (state->tuplesort holds those TIDs, sorted).
 */
void
NvmIndexValidateScan(Relation heapRelation, Relation indexRelation,
					 IndexInfo *indexInfo, Snapshot snapshot,
					 ValidateIndexState *state)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = table_slot_create(heapRelation, NULL);
	ExprState  *predicate;
	TableScanDesc scan;
	ItemPointerData indexcursor;
	bool		tuplesort_empty = false;
	bool		have_cursor = false;
	OffsetNumber roots[MaxHeapTuplesPerPage];
	BlockNumber rootsBlock = InvalidBlockNumber;
	bool		inIndex[MaxHeapTuplesPerPage];
	BlockNumber inIndexBlock = InvalidBlockNumber;

	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);
	scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL, true, false);
	ItemPointerSetInvalid(&indexcursor);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		ItemPointerData rootTid;
		ItemPointer tid = &rootTid;

		NvmIndexRootTid(scan, ExecFetchSlotHeapTuple(slot, false, NULL), roots,
						&rootsBlock, &rootTid);

		CHECK_FOR_INTERRUPTS();
		if (ItemPointerGetBlockNumber(tid) != inIndexBlock)
		{
			memset(inIndex, 0, sizeof(inIndex));
			inIndexBlock = ItemPointerGetBlockNumber(tid);
			if (have_cursor && ItemPointerGetBlockNumber(&indexcursor) == inIndexBlock)
				inIndex[ItemPointerGetOffsetNumber(&indexcursor) - 1] = true;
		}

		/*
		 * Advance the sorted index TIDs up to this tuple's root, noting the
		 * entries of this block: root TIDs of heap-only tuples do not come
		 * in order.
		 */
		while (!tuplesort_empty &&
			   (!have_cursor || ItemPointerCompare(&indexcursor, tid) < 0))
		{
			Datum		ts_val;
			bool		ts_isnull;

			if (tuplesort_getdatum(state->tuplesort, true, &ts_val, &ts_isnull, NULL))
			{
				itemptr_decode(&indexcursor, DatumGetInt64(ts_val));
				have_cursor = true;
				if (ItemPointerGetBlockNumber(&indexcursor) == inIndexBlock)
					inIndex[ItemPointerGetOffsetNumber(&indexcursor) - 1] = true;
			}
			else
			{
				tuplesort_empty = true;
				have_cursor = false;
			}
		}
		if ((have_cursor && ItemPointerEquals(&indexcursor, tid)) ||
			inIndex[ItemPointerGetOffsetNumber(tid) - 1])
			continue;

		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(indexInfo, slot, estate, values, isnull);
		index_insert(indexRelation, values, isnull, tid, heapRelation,
					 indexInfo->ii_Unique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, indexInfo);
		state->tups_inserted += 1;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
}
