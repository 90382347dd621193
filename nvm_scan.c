/*-------------------------------------------------------------------------
 *
 * nvm_scan.c
 *	  Scans of nvm_am tables: sequential (also parallel, with the generic
 *	  block helpers of tableam.c), TID range, bitmap heap, sample (TABLESAMPLE)
 *	  and the block/tuple steps of ANALYZE.
 *
 *	  A scan works a page at a time: under the page's lock (shared) it
 *	  collects the offsets of the tuples its snapshot sees, pins the page's
 *	  image (IplHoldRef: the frame itself, a merged image, or a local copy
 *	  with nvm_am.read_mode = copy) and then returns tuples pointing into
 *	  that image without the lock.  The pin keeps the image from being
 *	  freed; pruning writes a new image instead of changing a pinned one.
 *
 *	  Also here: how a page read counts in the statistics and the query's
 *	  buffer usage (NvmScanCountPage, and NvmScanCountChange and
 *	  NvmScanCountNewPage for the change paths), as heap's buffer reads
 *	  count.
 *
 * Locks: the page lock, shared, while a page's tuples are examined; none
 * between pages.  A serializable scan takes predicate locks as heap's.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "access/valid.h"
#include "access/xact.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/snapmgr.h"

#include "nvm_am.h"

/*
 * NvmScanReturn - return the scan's current tuple in slot (it points into
 * the pinned page image) and count it; returns true.
 */
static bool
NvmScanReturn(NvmScanDesc scan, TupleTableSlot *slot)
{
	pgstat_count_heap_getnext(scan->rs_base.rs_rd);
	ExecStoreHeapTuple(&scan->tuple, slot, false);
	return true;
}

/*
 * NvmScanCountPage - count a page read in the table's statistics
 * (pg_statio_*_tables.heap_blks_read/_hit) and in the query's buffer usage
 * (EXPLAIN (BUFFERS), pg_stat_statements: shared blocks, local ones for a
 * temporary table, as heap's buffers count), once for each time a scan or
 * fetch moves to block blkno (*last: the block counted last).  A page
 * whose image was in the merge cache is a hit; one read from the pool (the
 * frame itself, or merged from it) is a read.
 */
void
NvmScanCountPage(Relation rel, BlockNumber *last, BlockNumber blkno, bool cached)
{
	if (*last == blkno)
		return;
	*last = blkno;
	NvmScanCountChange(rel, cached);
}

/*
 * NvmScanCountNewPage - count a page a multi-insert (COPY) built whole and
 * added to rel: as heap counts the buffer of a page it adds, a read in
 * pg_statio and a block written in the query's buffer usage.
 */
void
NvmScanCountNewPage(Relation rel)
{
	pgstat_count_buffer_read(rel);
	if (RelationUsesLocalBuffers(rel))
		pgBufferUsage.local_blks_written++;
	else
		pgBufferUsage.shared_blks_written++;
}

/*
 * NvmScanCountChange - count a page read as NvmScanCountPage does, for a
 * change: an insert, update, delete or row lock counts the page it works
 * on each time, as heap counts the buffer each one reads.
 */
void
NvmScanCountChange(Relation rel, bool cached)
{
	bool		local = RelationUsesLocalBuffers(rel);

	pgstat_count_buffer_read(rel);
	if (cached)
	{
		pgstat_count_buffer_hit(rel);
		if (local)
			pgBufferUsage.local_blks_hit++;
		else
			pgBufferUsage.shared_blks_hit++;
	}
	else if (local)
		pgBufferUsage.local_blks_read++;
	else
		pgBufferUsage.shared_blks_read++;
}

/*
 * NvmScanHoldPage - the image of block blkno for the scan: pinned in
 * scan->cframe (or copied into scan->copybuf) and counted in the
 * statistics.  ref, when given, is the page as the scan looked it up under
 * the lock it holds (NvmScanLockPage), and where that look found its image
 * is what counts; without ref the page is looked up here.  Caller holds
 * the page lock.
 */
static Page
NvmScanHoldPage(NvmScanDesc scan, BlockNumber blkno, const IplPageRef *ref)
{
	IplPageRef	own;

	if (ref == NULL)
	{
		IplLookPage(scan->dirIndex, blkno, &own);
		ref = &own;
	}
	NvmScanCountPage(scan->rs_base.rs_rd, &scan->statblock, blkno,
					 ref->src == IPL_READ_CACHED);
	return IplHoldRef(ref, &scan->cframe, scan->copybuf);
}

/*
 * NvmScanPrefetch - ask the CPU for the tuple area of page when the scan
 * reads it in place (a frame in the pool or a merged image; not the scan's
 * own copy), before the executor deforms its tuples (IplPrefetchTuples):
 * a copy (nvm_am.read_mode = copy) streams the page in one memcpy, while
 * tuple after tuple read in place would wait for its own cache misses.
 * Caller holds the image pinned.
 */
static pg_attribute_always_inline void
NvmScanPrefetch(NvmScanDesc scan, Page page)
{
	if (page != (Page) scan->copybuf)
		IplPrefetchTuples(page);
}

/*
 * NvmScanLockPage - take the lock of page blkno shared for a scan that comes
 * to it, and look the page up (*ref, for NvmScanHoldPage); with prune, as
 * heap's heapgetpage in page-at-a-time mode (an MVCC snapshot) and its
 * bitmap scans, the page is pruned first when that pays
 * (NvmPruneBeforeRead), before the scan pins it.  A scan with another
 * snapshot (SnapshotAny: the copy of VACUUM FULL and CLUSTER, index
 * builds) prunes nothing, as heap's: the copy counts the dead versions it
 * leaves behind, and does not write prunes into a table it replaces.
 * ref->src tells where the first look found the page's image.  Returns
 * the lock.
 */
static LWLock *
NvmScanLockPage(NvmScanDesc scan, BlockNumber blkno, bool prune, IplPageRef *ref)
{
	LWLock	   *lock = NvmPoolPageLock(scan->dirIndex, blkno);

	LWLockAcquire(lock, LW_SHARED);
	if (prune)
		NvmPruneBeforeRead(scan->rs_base.rs_rd, scan->dirIndex, blkno, lock, ref);
	else
		IplLookPage(scan->dirIndex, blkno, ref);
	return lock;
}

/*
 * NvmScanFoldPage - a sequential scan merged page blkno from its in-page
 * log, and a reader had merged the same before (IplCacheNoteReadMerge: its
 * image was dropped from the merge cache since, the page is read again and
 * again and did not change), and the visibility map calls it all-visible (it stopped
 * changing): fold the log into a base image (IplSeal), so that later scans
 * read the page in place rather than merging it again each time, and its
 * log frame serves a page that changes.  Heap's scans likewise leave a
 * page hinted and pruned for the next reader.  A page read once is not
 * folded: a one-off scan, or one of a statement about to change the pages
 * it reads (INSERT ... SELECT), would pay a page write for nothing.  Only
 * when the page lock can be had exclusively at once, and not on a hot
 * standby.  Caller holds no page lock.
 */
static void
NvmScanFoldPage(NvmScanDesc scan, BlockNumber blkno)
{
	LWLock	   *lock = NvmPoolPageLock(scan->dirIndex, blkno);

	if (RecoveryInProgress() || !LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
		return;
	/* still all-visible: no change came in between */
	if (NvmVismapAllVisible(scan->rs_base.rs_rd, scan->dirIndex, blkno, &scan->vmbuf))
	{
		if (IplSeal(scan->dirIndex, blkno, false))
			NvmPoolCountAdd(NVM_STAT_PAGES_FOLDED_ON_READ, 1);
	}
	LWLockRelease(lock);
}

/*
 * NvmScanLoadPage - collect the offsets of the tuples of blkno that the scan's
 * snapshot sees and that pass its keys.  Takes the page lock shared.
 */
static pg_noinline void
NvmScanLoadPage(NvmScanDesc scan, BlockNumber blkno)
{
	Relation	rel = scan->rs_base.rs_rd;
	Snapshot	snapshot = scan->rs_base.rs_snapshot;
	IplPageRef	ref;
	LWLock	   *lock = NvmScanLockPage(scan, blkno, IsMVCCSnapshot(snapshot), &ref);
	Page		page;
	OffsetNumber maxoff;
	int			n = 0;
	HeapTupleData tup;
	bool		visible;
	bool		allVisible;
	bool		goneCheck;

	page = NvmScanHoldPage(scan, blkno, &ref);
	scan->cpage = page;
	NvmScanPrefetch(scan, page);
	maxoff = PageGetMaxOffsetNumber(page);

	/*
	 * On a page the visibility map marks all-visible every tuple is visible
	 * to every MVCC snapshot and conflicts with no serializable one: no
	 * tuple needs a look at its xmin and xmax, as in heap's page-at-a-time
	 * scans.  The page lock keeps a change from clearing the bit meanwhile.
	 * Not on a hot standby, where the map need not match the page.
	 */
	allVisible = IsMVCCSnapshot(snapshot) && !snapshot->takenDuringRecovery &&
		NvmVismapAllVisible(rel, scan->dirIndex, blkno, &scan->vmbuf);

	/*
	 * Versions deleted before the snapshot are skipped on their hint bits
	 * (NvmTupleGoneBefore); not for a SERIALIZABLE scan, which checks every
	 * tuple it does not see for rw-conflicts.
	 */
	goneCheck = !allVisible && snapshot->snapshot_type == SNAPSHOT_MVCC &&
		!IsolationIsSerializable();
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);

		if (!ItemIdIsNormal(lp) ||
			(goneCheck &&
			 NvmTupleGoneBefore((HeapTupleHeader) PageGetItem(page, lp), snapshot->xmin)))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		if (!allVisible)
		{
			visible = NvmTupleSatisfies(&tup, snapshot);
			NvmTupleCheckConflictOut(visible, rel, &tup, snapshot);
			if (!visible)
				continue;
		}
		if (scan->rs_base.rs_nkeys > 0)
		{
			bool		ok;

			HeapKeyTest(&tup, RelationGetDescr(rel), scan->rs_base.rs_nkeys,
						scan->rs_base.rs_key, ok);
			if (!ok)
				continue;
		}
		scan->vis[n++] = off;
	}
	LWLockRelease(lock);
	if (allVisible && ref.src == IPL_READ_MERGED_AGAIN)
		NvmScanFoldPage(scan, blkno);
	NvmPoolCountAdd(NVM_STAT_PAGE_READS, 1);
	scan->cblock = blkno;
	scan->ntuples = n;
}

static BlockNumber
NvmScanFirstBlock(NvmScanDesc scan, ScanDirection dir)
{
	ParallelBlockTableScanDesc pbscan =
	(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

	if (pbscan != NULL)
	{
		table_block_parallelscan_startblock_init(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
		return table_block_parallelscan_nextpage(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
	}
	if (scan->startblock >= scan->endblock)
		return InvalidBlockNumber;
	return ScanDirectionIsBackward(dir) ? scan->endblock - 1 : scan->startblock;
}

static BlockNumber
NvmScanNextBlock(NvmScanDesc scan, ScanDirection dir)
{
	ParallelBlockTableScanDesc pbscan =
	(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

	if (pbscan != NULL)
		return table_block_parallelscan_nextpage(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
	if (ScanDirectionIsBackward(dir))
		return scan->cblock > scan->startblock ? scan->cblock - 1 : InvalidBlockNumber;
	return scan->cblock + 1 < scan->endblock ? scan->cblock + 1 : InvalidBlockNumber;
}

/*
 * NvmScanPrefetchNext - have the image of the block after the current one
 * (in the scan's direction) brought into the CPU's cache while the scan
 * returns the current block's tuples (IplPrefetchStart): the checksum
 * check of a scan's first read of a table after a start, and on every
 * later read the scan's own look at the tuples, then find it there.  A
 * parallel scan's next block is usually the one after; when it is not, the
 * hint is wasted.
 */
static void
NvmScanPrefetchNext(NvmScanDesc scan, bool backward)
{
	BlockNumber blk = scan->cblock;

	if (backward ? blk == 0 : blk + 1 >= scan->nblocks)
		scan->prefetch.next = scan->prefetch.end = NULL;
	else
		IplPrefetchStart(&scan->prefetch, scan->dirIndex,
						 backward ? blk - 1 : blk + 1, scan->ntuples);
}

/*
 * NvmScanNext - advance to the next visible tuple in direction dir; false
 * at the end (then the scan restarts from the other end, as heap does).
 */
static bool
NvmScanNext(NvmScanDesc scan, ScanDirection dir)
{
	bool		backward = ScanDirectionIsBackward(dir);

	if (!scan->inited)
	{
		BlockNumber blk = NvmScanFirstBlock(scan, dir);

		if (blk == InvalidBlockNumber)
			return false;
		NvmScanLoadPage(scan, blk);
		scan->cindex = backward ? scan->ntuples : -1;
		scan->inited = true;
		NvmScanPrefetchNext(scan, backward);
	}
	for (;;)
	{
		BlockNumber blk;

		CHECK_FOR_INTERRUPTS();
		scan->cindex += backward ? -1 : 1;
		if (scan->cindex >= 0 && scan->cindex < scan->ntuples)
		{
			IplPrefetchStep(&scan->prefetch);
			NvmSetTuple(&scan->tuple, scan->rs_base.rs_rd, scan->cpage,
						scan->cblock, scan->vis[scan->cindex]);
			return true;
		}
		blk = NvmScanNextBlock(scan, dir);
		if (blk == InvalidBlockNumber)
		{
			scan->inited = false;
			IplDropPage(&scan->cframe);
			return false;
		}
		NvmScanLoadPage(scan, blk);
		scan->cindex = backward ? scan->ntuples : -1;
		NvmScanPrefetchNext(scan, backward);
	}
}

TableScanDesc
NvmScanBegin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
			 ParallelTableScanDesc pscan, uint32 flags)
{
	NvmScanDesc scan = palloc0(sizeof(NvmScanDescData));

	scan->copybuf = IplCopyBuffer();

	RelationIncrementReferenceCount(rel);
	scan->rs_base.rs_rd = rel;
	scan->rs_base.rs_snapshot = snapshot;
	scan->rs_base.rs_nkeys = nkeys;
	scan->rs_base.rs_flags = flags;
	scan->rs_base.rs_parallel = pscan;
	scan->dirIndex = NvmStorageRelDirIndex(rel);
	scan->nblocks = NvmPoolRelNBlocks(scan->dirIndex);
	scan->startblock = 0;
	scan->endblock = scan->nblocks;
	scan->inited = false;
	scan->statblock = InvalidBlockNumber;
	if (nkeys > 0)
	{
		scan->rs_base.rs_key = palloc(sizeof(ScanKeyData) * nkeys);
		memcpy(scan->rs_base.rs_key, key, sizeof(ScanKeyData) * nkeys);
	}
	/*
	 * A sequential or sample scan of a serializable transaction locks the
	 * whole relation: nothing finer covers rows inserted later.
	 */
	if (flags & (SO_TYPE_SEQSCAN | SO_TYPE_SAMPLESCAN))
		PredicateLockRelation(rel, snapshot);
	if (flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(rel);
	return (TableScanDesc) scan;
}

void
NvmScanEnd(TableScanDesc sscan)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	IplDropPage(&scan->cframe);
	if (BufferIsValid(scan->vmbuf))
		ReleaseBuffer(scan->vmbuf);
	RelationDecrementReferenceCount(sscan->rs_rd);
	if (sscan->rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(sscan->rs_snapshot);
	if (sscan->rs_key)
		pfree(sscan->rs_key);
	pfree(scan);
}

void
NvmScanRescan(TableScanDesc sscan, ScanKey key)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (key != NULL && sscan->rs_nkeys > 0)
		memcpy(sscan->rs_key, key, sizeof(ScanKeyData) * sscan->rs_nkeys);
	IplDropPage(&scan->cframe);
	scan->nblocks = NvmPoolRelNBlocks(scan->dirIndex);
	scan->startblock = 0;
	scan->endblock = scan->nblocks;
	scan->inited = false;
	scan->statblock = InvalidBlockNumber;
	/* a sequential scan started again counts as another (as heap's) */
	if (sscan->rs_flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(sscan->rs_rd);
}

bool
NvmScanGetNextSlot(TableScanDesc sscan, ScanDirection direction,
				   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (!NvmScanNext(scan, direction))
	{
		ExecClearTuple(slot);
		return false;
	}
	return NvmScanReturn(scan, slot);
}

void
NvmScanSetTidRange(TableScanDesc sscan, ItemPointer mintid,
				   ItemPointer maxtid)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber lo = ItemPointerGetBlockNumberNoCheck(mintid);
	BlockNumber hi = ItemPointerGetBlockNumberNoCheck(maxtid);

	scan->startblock = Min(lo, scan->nblocks);
	scan->endblock = Min((uint64) hi + 1, scan->nblocks);
	scan->inited = false;
	ItemPointerCopy(mintid, &sscan->rs_mintid);
	ItemPointerCopy(maxtid, &sscan->rs_maxtid);
}

bool
NvmScanGetNextSlotTidRange(TableScanDesc sscan, ScanDirection direction,
						   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	while (NvmScanNext(scan, direction))
	{
		if (ItemPointerCompare(&scan->tuple.t_self, &sscan->rs_mintid) < 0 ||
			ItemPointerCompare(&scan->tuple.t_self, &sscan->rs_maxtid) > 0)
			continue;
		return NvmScanReturn(scan, slot);
	}
	ExecClearTuple(slot);
	return false;
}

bool
NvmScanTidValid(TableScanDesc scan, ItemPointer tid)
{
	NvmScanDesc nscan = (NvmScanDesc) scan;

	return ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) < NvmPoolRelNBlocks(nscan->dirIndex);
}

bool
NvmScanAnalyzeNextBlock(TableScanDesc sscan, BlockNumber blockno)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (blockno >= NvmPoolRelNBlocks(scan->dirIndex))
		return false;
	scan->cblock = blockno;
	scan->next_offset = FirstOffsetNumber;
	return true;
}

bool
NvmScanAnalyzeNextTuple(TableScanDesc sscan, TransactionId OldestXmin,
						double *liverows, double *deadrows,
						TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	LWLock	   *lock = NvmPoolPageLock(scan->dirIndex, scan->cblock);
	Page		page;
	OffsetNumber maxoff;

	LWLockAcquire(lock, LW_SHARED);
	page = NvmScanHoldPage(scan, scan->cblock, NULL);
	maxoff = PageGetMaxOffsetNumber(page);
	for (; scan->next_offset <= maxoff; scan->next_offset++)
	{
		HeapTuple	tup = &scan->tuple;
		bool		sample = false;

		if (!ItemIdIsNormal(PageGetItemId(page, scan->next_offset)))
		{
			/*
			 * A dead line pointer, what a prune left of a version with index
			 * entries, is a dead row until VACUUM removes it (as heap counts
			 * it: autovacuum compares the dead rows ANALYZE reports)
			 */
			if (ItemIdIsDead(PageGetItemId(page, scan->next_offset)))
				*deadrows += 1;
			continue;
		}
		NvmSetTuple(tup, sscan->rs_rd, page, scan->cblock, scan->next_offset);
		switch (NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL))
		{
			case HEAPTUPLE_LIVE:
				sample = true;
				*liverows += 1;
				break;
			case HEAPTUPLE_DEAD:
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetRawXmin(tup->t_data)))
				{
					sample = true;
					*liverows += 1;
				}
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(tup->t_data)))
					*deadrows += 1;
				else
				{
					sample = true;
					*liverows += 1;
				}
				break;
		}
		if (sample)
		{
			scan->next_offset++;
			LWLockRelease(lock);
			ExecStoreHeapTuple(tup, slot, false);
			return true;
		}
	}
	LWLockRelease(lock);
	ExecClearTuple(slot);
	return false;
}

/*
 * NvmScanBitmapVisible - does the bitmap scan's snapshot see tup?  Takes the
 * predicate lock and checks for rw-conflicts like any read.
 */
static bool
NvmScanBitmapVisible(TableScanDesc sscan, HeapTuple tup)
{
	bool		visible = NvmTupleSatisfies(tup, sscan->rs_snapshot);

	NvmTupleCheckConflictOut(visible, sscan->rs_rd, tup, sscan->rs_snapshot);
	if (visible)
		PredicateLockTID(sscan->rs_rd, &tup->t_self, sscan->rs_snapshot,
						 HeapTupleHeaderGetXmin(tup->t_data));
	return visible;
}

pg_noinline bool
NvmScanBitmapNextBlock(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber blkno = tbmres->blockno;
	IplPageRef	ref;
	Page		page;
	LWLock	   *lock;
	int			n = 0;

	scan->ntuples = 0;
	scan->cindex = 0;
	if (blkno >= NvmPoolRelNBlocks(scan->dirIndex))
		return false;
	lock = NvmScanLockPage(scan, blkno, true, &ref);
	page = NvmScanHoldPage(scan, blkno, &ref);
	scan->cpage = page;
	{
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
		bool		exact = tbmres->ntuples >= 0;
		int			count = exact ? tbmres->ntuples : maxoff;

		/* a lossy page is read whole, as a sequential scan reads it */
		if (!exact)
			NvmScanPrefetch(scan, page);

		for (int i = 0; i < count; i++)
		{
			OffsetNumber off = exact ? tbmres->offsets[i] : i + 1;
			TransactionId priorXmax = InvalidTransactionId;
			bool		atRoot = true;
			HeapTupleData tup;

			/*
			 * An exact bitmap names index entries, i.e. roots of HOT chains:
			 * the visible version may be further down the chain.  A lossy
			 * one means every tuple of the page.
			 */
			if (!exact)
			{
				if (!ItemIdIsNormal(PageGetItemId(page, off)))
					continue;
				NvmSetTuple(&tup, sscan->rs_rd, page, blkno, off);
				if (NvmScanBitmapVisible(sscan, &tup))
					scan->vis[n++] = off;
				continue;
			}
			while (NvmPruneChainMember(sscan->rs_rd, page, blkno, &off, atRoot, priorXmax, &tup))
			{
				if (NvmScanBitmapVisible(sscan, &tup))
				{
					scan->vis[n++] = off;
					break;
				}
				atRoot = false;
				off = NvmPruneChainStep(&tup, &priorXmax);
				if (off == InvalidOffsetNumber)
					break;
			}
		}
	}
	LWLockRelease(lock);
	scan->cblock = blkno;
	scan->ntuples = n;
	NvmPoolCountAdd(NVM_STAT_PAGE_READS, 1);
	return n > 0;
}

bool
NvmScanBitmapNextTuple(TableScanDesc sscan, TBMIterateResult *tbmres,
					   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (scan->cindex >= scan->ntuples)
		return false;
	NvmSetTuple(&scan->tuple, sscan->rs_rd, scan->cpage, scan->cblock,
				scan->vis[scan->cindex++]);
	pgstat_count_heap_fetch(sscan->rs_rd);
	ExecStoreHeapTuple(&scan->tuple, slot, false);
	return true;
}

bool
NvmScanSampleNextBlock(TableScanDesc sscan, SampleScanState *scanstate)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blkno;

	if (scan->nblocks == 0)
		return false;
	if (tsm->NextSampleBlock)
		blkno = tsm->NextSampleBlock(scanstate, scan->nblocks);
	else if (!scan->inited)
		blkno = 0;
	else
		blkno = scan->cblock + 1 < scan->nblocks ? scan->cblock + 1 : InvalidBlockNumber;
	if (!BlockNumberIsValid(blkno))
	{
		scan->inited = false;
		return false;
	}
	scan->inited = true;
	scan->cblock = blkno;
	return true;
}

bool
NvmScanSampleNextTuple(TableScanDesc sscan, SampleScanState *scanstate,
					   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	LWLock	   *lock = NvmPoolPageLock(scan->dirIndex, scan->cblock);
	Page		page;
	OffsetNumber maxoff;

	LWLockAcquire(lock, LW_SHARED);
	page = NvmScanHoldPage(scan, scan->cblock, NULL);
	maxoff = PageGetMaxOffsetNumber(page);
	LWLockRelease(lock);
	for (;;)
	{
		OffsetNumber off;
		bool		visible = false;

		CHECK_FOR_INTERRUPTS();
		off = tsm->NextSampleTuple(scanstate, scan->cblock, maxoff);
		if (!OffsetNumberIsValid(off))
		{
			ExecClearTuple(slot);
			return false;
		}
		LWLockAcquire(lock, LW_SHARED);
		/* VACUUM may have cut unused line pointers off the end meanwhile */
		if (off <= PageGetMaxOffsetNumber(page) &&
			ItemIdIsNormal(PageGetItemId(page, off)))
		{
			NvmSetTuple(&scan->tuple, sscan->rs_rd, page, scan->cblock, off);
			visible = NvmTupleSatisfies(&scan->tuple, sscan->rs_snapshot);
			NvmTupleCheckConflictOut(visible, sscan->rs_rd, &scan->tuple, sscan->rs_snapshot);
		}
		LWLockRelease(lock);
		if (visible)
			return NvmScanReturn(scan, slot);
	}
}

/*
 * NvmScanSetBlockRange - limit a scan that has not started to numblocks
 * blocks from start (InvalidBlockNumber: to the end), as index builds of
 * BRIN ranges ask.
 */
void
NvmScanSetBlockRange(TableScanDesc sscan, BlockNumber start,
					 BlockNumber numblocks)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	scan->startblock = Min(start, scan->nblocks);
	scan->endblock = numblocks == InvalidBlockNumber ? scan->nblocks :
		Min((uint64) start + numblocks, scan->nblocks);
}
