/*-------------------------------------------------------------------------
 *
 * nvm_prune.c
 *	  HOT chains and page pruning: following a chain from the line pointer
 *	  an index points to, finding each tuple's root, and deciding which row
 *	  versions a page can lose (the counterpart of heap's pruneheap.c).
 *
 *	  Pruning removes, in each HOT chain, the dead versions before the first
 *	  live one: the root line pointer redirects to that one, or is marked
 *	  dead when the whole chain is dead (index entries still point to it);
 *	  a dead tuple outside any chain leaves a dead line pointer, or, being
 *	  heap-only (its update aborted), a free one.  So does a heap-only
 *	  tuple whose inserter aborted behind a member still live (a
 *	  subtransaction that updated rows of its parent and rolled back), as
 *	  heap frees it.  This file only decides;
 *	  the page layer carries the decision out (IplPruneExecute), in place
 *	  when nobody has the image pinned, else (VACUUM) copy-on-write, since
 *	  scans may point into the old image.
 *
 *	  When: heap_page_prune_opt's rule (NvmPruneWorthIt), by a reader that
 *	  comes to a page nobody else has pinned (NvmPruneBeforeRead), and by
 *	  VACUUM; never by an insert or update that finds its page full.  The
 *	  same rule as heap's puts rows where heap puts them.
 *
 *	  A version is dead when its deleter committed before every running
 *	  transaction's snapshot (GlobalVis, or VACUUM's OldestXmin when it
 *	  gives its own horizon).  That commit must be durable before the prune
 *	  reaches the pool, or a crash could lose it and leave the row with no
 *	  version at all: without WAL mode a transaction that wrote to the pool
 *	  never commits asynchronously; in WAL mode NvmPrunePage flushes WAL
 *	  up to the commits it relied on first (NvmCommitFlushRelied), which
 *	  costs nothing unless some were asynchronous and are not flushed yet.
 *
 *	  A chain is followed by raw xmin (a member's xmin must be its
 *	  predecessor's updater): freezing keeps the raw xmin, so a frozen
 *	  member never cuts its chain.
 *
 *	  An opportunistic prune tells the statistics how many dead tuples it
 *	  removed, as heap_page_prune_opt does (the tuples removed less the
 *	  line pointers it left dead, which VACUUM still has to visit), so that
 *	  pg_stat's n_dead_tup, and autovacuum's decision, see what is left.
 *
 * Locks: the caller holds the page's lock (NvmPoolPageLock), exclusively to
 * prune, shared to follow a chain.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam_xlog.h"
#include "access/htup_details.h"
#include "access/xlog.h"
#include "pgstat.h"
#include "utils/snapmgr.h"

#include "nvm_am.h"

/*
 * NvmPruneChainNext - the line pointer of the HOT-chain member that follows the
 * tuple t on page blkno, or InvalidOffsetNumber when t ends its chain or
 * its successor is not there any more.  The successor must be a heap-only
 * tuple created by t's updater.  Its raw xmin is compared, not the one
 * HeapTupleHeaderGetXmin reports: freezing keeps the raw xmin, and a
 * frozen member must not cut its chain.  Caller holds the page lock.
 */
OffsetNumber
NvmPruneChainNext(Page page, BlockNumber blkno, HeapTupleHeader t)
{
	OffsetNumber next;
	ItemId		lp;
	HeapTupleHeader nt;

	if (!HeapTupleHeaderIsHotUpdated(t) ||
		ItemPointerGetBlockNumber(&t->t_ctid) != blkno)
		return InvalidOffsetNumber;
	next = ItemPointerGetOffsetNumber(&t->t_ctid);
	if (next < FirstOffsetNumber || next > PageGetMaxOffsetNumber(page))
		return InvalidOffsetNumber;
	lp = PageGetItemId(page, next);
	if (!ItemIdIsNormal(lp))
		return InvalidOffsetNumber;
	nt = (HeapTupleHeader) PageGetItem(page, lp);
	if (!HeapTupleHeaderIsHeapOnly(nt) ||
		!TransactionIdEquals(HeapTupleHeaderGetUpdateXid(t),
							 HeapTupleHeaderGetRawXmin(nt)))
		return InvalidOffsetNumber;
	return next;
}

/*
 * NvmPruneChainStart - the first tuple of the HOT chain whose root is the line
 * pointer root: the root itself when it holds a tuple that is not heap-only,
 * the target of a redirect when that is a heap-only tuple, otherwise none.
 */
OffsetNumber
NvmPruneChainStart(Page page, OffsetNumber root)
{
	ItemId		lp = PageGetItemId(page, root);
	OffsetNumber off = root;

	if (ItemIdIsRedirected(lp))
	{
		off = ItemIdGetRedirect(lp);
		if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page))
			return InvalidOffsetNumber;
		lp = PageGetItemId(page, off);
		if (!ItemIdIsNormal(lp) ||
			!HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)))
			return InvalidOffsetNumber;
		return off;
	}
	if (!ItemIdIsNormal(lp) ||
		HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)))
		return InvalidOffsetNumber;
	return off;
}

/*
 * NvmPruneGetRootTuples - roots[off - 1] is the root line pointer of the HOT
 * chain the tuple at off belongs to, InvalidOffsetNumber for a tuple no
 * chain reaches (heap_get_root_tuples, but with NvmPruneChainNext's rule for
 * frozen members).  Caller holds the page lock.
 */
void
NvmPruneGetRootTuples(Page page, BlockNumber blkno, OffsetNumber *roots)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	MemSet(roots, InvalidOffsetNumber, MaxHeapTuplesPerPage * sizeof(OffsetNumber));
	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		OffsetNumber off = NvmPruneChainStart(page, root);

		while (off != InvalidOffsetNumber && roots[off - 1] == InvalidOffsetNumber)
		{
			roots[off - 1] = root;
			off = NvmPruneChainNext(page, blkno,
									(HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off)));
		}
	}
}

/*
 * NvmPruneChainMember - point tup at the chain member at off, or return false
 * when off does not hold one (a broken or pruned chain).  A root may be a
 * redirect; members after the root are heap-only tuples created by
 * priorXmax.
 */
bool
NvmPruneChainMember(Relation rel, Page page, BlockNumber blkno, OffsetNumber *off,
					bool atRoot, TransactionId priorXmax, HeapTuple tup)
{
	ItemId		lp;

	if (*off < FirstOffsetNumber || *off > PageGetMaxOffsetNumber(page))
		return false;
	lp = PageGetItemId(page, *off);
	if (ItemIdIsRedirected(lp) && atRoot)
	{
		*off = ItemIdGetRedirect(lp);
		lp = PageGetItemId(page, *off);
		atRoot = false;
	}
	if (!ItemIdIsNormal(lp))
		return false;
	NvmSetTuple(tup, rel, page, blkno, *off);
	if (atRoot && HeapTupleHeaderIsHeapOnly(tup->t_data))
		return false;			/* an index never points at a heap-only tuple */
	if (TransactionIdIsValid(priorXmax) &&
		!TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup->t_data)))
		return false;
	return true;
}

/*
 * NvmPruneWorthIt - whether page should be pruned before it is read or
 * changed: heap_page_prune_opt's rule.  A deleter on the page may be dead
 * to everyone (pd_prune_xid), and the page is low on space: an update
 * found no room for its new version there (PD_PAGE_FULL), or less than
 * the fillfactor's reserve or a tenth of the page is free.  The same rule
 * as heap's keeps rows where heap keeps them, and with them the order of
 * scans without ORDER BY.  Caller holds the page lock, shared is enough.
 */
static bool
NvmPruneWorthIt(Relation rel, Page page)
{
	TransactionId pruneXid = ((PageHeader) page)->pd_prune_xid;
	Size		minfree;

	if (!TransactionIdIsValid(pruneXid))
		return false;
	minfree = Max(RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR),
				  BLCKSZ / 10);
	if (!PageIsFull(page) && PageGetHeapFreeSpace(page) >= minfree)
		return false;
	return GlobalVisTestIsRemovableXid(GlobalVisTestFor(rel), pruneXid);
}

/*
 * NvmPruneBeforeRead - a reader (an index fetch, a scan) comes to page
 * blkno and has not pinned it: prune it first when that pays
 * (NvmPruneWorthIt), as heap_page_prune_opt, if the page lock can be had
 * exclusively at once; a reader never waits for it.  Nobody points into
 * the page's image when nobody has it pinned, and then the page layer
 * compacts it in place rather than into a new image (IplPruneExecute).
 * *ref is the page as the reader is to hold it (IplLookPage): the image
 * looked at, or, when the lock was let go to prune, looked up again; its
 * src is where the first look found the image (merged from its log now,
 * when it was not in the merge cache), which is what the reader counts.
 * Caller holds the page's lock (lock) shared, and holds it shared again on
 * return; no other page lock.
 */
void
NvmPruneBeforeRead(Relation rel, int dirIndex, BlockNumber blkno, LWLock *lock,
				   IplPageRef *ref)
{
	IplReadSource src;

	IplLookPage(dirIndex, blkno, ref);
	/* a hot standby reads, it never changes a page */
	if (RecoveryInProgress() || !NvmPruneWorthIt(rel, ref->page))
		return;
	/* slots that let their locked row go drop its page's pin first */
	NvmRowLockSlotPinsCheck();
	src = ref->src;
	LWLockRelease(lock);
	if (LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
	{
		if (NvmPruneWorthIt(rel, IplGetPage(dirIndex, blkno)) &&
			!IplPageInUse(dirIndex, blkno))
			(void) NvmPrunePage(rel, dirIndex, blkno, false, InvalidTransactionId,
							   NULL);
		LWLockRelease(lock);
	}
	LWLockAcquire(lock, LW_SHARED);
	IplLookPage(dirIndex, blkno, ref);
	ref->src = src;
}

/*
 * NvmPrunePage - reclaim the space of row versions on page blkno that no
 * transaction can see any more (see the file header); with force (VACUUM),
 * whatever pd_prune_xid says.  oldestXmin, when valid, is VACUUM's horizon:
 * versions deleted before it are dead too.  Returns true if the page was
 * rewritten (callers must fetch the page again); false when there was
 * nothing to prune, or the pool had no frame for the pruned page.
 * *ndeletedOut, when given, is set to the number of tuples removed (0
 * unless the page was rewritten), as heap_page_prune counts them: the
 * pruned members of each chain, a root turned into a redirect or a dead
 * line pointer included, a redirect made dead not.  Without force the
 * removed tuples less the new dead line pointers are reported to pg_stat
 * (heap_page_prune_opt's rule); VACUUM reports its own counts.  Not
 * inlined, so that scripts/check_build.py finds its prefetch.  Caller
 * holds the page lock exclusively.
 */
pg_noinline bool
NvmPrunePage(Relation rel, int dirIndex, BlockNumber blkno, bool force,
			 TransactionId oldestXmin, int *ndeletedOut)
{
	Page		page = IplGetPage(dirIndex, blkno);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	bool		dead[MaxHeapTuplesPerPage + 1];
	bool		aborted[MaxHeapTuplesPerPage + 1];	/* dead: its inserter aborted */
	bool		reached[MaxHeapTuplesPerPage + 1];
	bool		removed[MaxHeapTuplesPerPage + 1];	/* in a chain's dead prefix */
	OffsetNumber redirected[2 * MaxHeapTuplesPerPage];
	OffsetNumber nowdead[MaxHeapTuplesPerPage];
	OffsetNumber nowunused[MaxHeapTuplesPerPage];
	int			nredirected = 0;
	int			ndead = 0;
	int			nunused = 0;
	int			ndeleted = 0;
	TransactionId pruneXid = ((PageHeader) page)->pd_prune_xid;
	TransactionId nextPrune = InvalidTransactionId;
	TransactionId conflictXid = InvalidTransactionId;

	if (ndeletedOut)
		*ndeletedOut = 0;
	if (!force &&
		(!TransactionIdIsValid(pruneXid) ||
		 !GlobalVisTestIsRemovableXid(vistest, pruneXid)))
		return false;

	/*
	 * Every tuple header is read below, in line pointer order; prunes fill
	 * holes rather than compact, so that order jumps about the page and
	 * the CPU's own prefetcher does not follow it: ask for the lines first.
	 */
	IplPrefetchTuples(page);

	/* which tuples are dead, and the oldest deleter of one that is not yet */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		TransactionId deleter = InvalidTransactionId;
		HTSV_Result r;

		dead[off] = false;
		aborted[off] = false;
		reached[off] = false;
		removed[off] = false;
		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		r = NvmTupleSatisfiesVacuum(&tup, InvalidTransactionId, &deleter);
		/* a deleter still running makes the page prunable later, as in heap */
		if (r == HEAPTUPLE_DELETE_IN_PROGRESS)
			deleter = HeapTupleHeaderGetUpdateXid(tup.t_data);
		if (r == HEAPTUPLE_DEAD)
		{
			dead[off] = true;
			/* no deleter named: the version never existed */
			aborted[off] = !TransactionIdIsValid(deleter);
		}
		else if (r == HEAPTUPLE_RECENTLY_DEAD &&
				 (GlobalVisTestIsRemovableXid(vistest, deleter) ||
				  (TransactionIdIsValid(oldestXmin) &&
				   TransactionIdPrecedes(deleter, oldestXmin))))
			dead[off] = true;
		/* what a hot standby's queries must no longer see (WAL mode) */
		if (dead[off])
			HeapTupleHeaderAdvanceLatestRemovedXid(tup.t_data, &conflictXid);
		else if (TransactionIdIsNormal(deleter) &&
				 (!TransactionIdIsValid(nextPrune) || TransactionIdPrecedes(deleter, nextPrune)))
			nextPrune = deleter;
	}

	/* each chain loses its dead prefix */
	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		ItemId		rootlp = PageGetItemId(page, root);
		OffsetNumber chain[MaxHeapTuplesPerPage];
		int			n = 0;
		int			nprefix = 0;
		OffsetNumber off;

		if (!ItemIdIsRedirected(rootlp) && !ItemIdIsNormal(rootlp))
			continue;
		off = NvmPruneChainStart(page, root);
		if (off == InvalidOffsetNumber && ItemIdIsNormal(rootlp))
			continue;			/* a heap-only tuple: not a root */

		/* collect the chain; a member reached before ends it */
		while (off != InvalidOffsetNumber && !reached[off])
		{
			chain[n++] = off;
			reached[off] = true;
			off = NvmPruneChainNext(page, blkno,
									(HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off)));
		}
		while (nprefix < n && dead[chain[nprefix]])
			nprefix++;
		if (nprefix == 0)
		{
			/* a redirect whose target is gone: the whole chain is dead */
			if (n == 0 && ItemIdIsRedirected(rootlp))
				nowdead[ndead++] = root;
			continue;
		}
		ndeleted += nprefix;	/* every member holds a tuple */
		if (nprefix == n)
			nowdead[ndead++] = root;
		else
		{
			redirected[2 * nredirected] = root;
			redirected[2 * nredirected + 1] = chain[nprefix];
			nredirected++;
		}
		for (int i = 0; i < nprefix; i++)
		{
			removed[chain[i]] = true;
			if (chain[i] != root)
				nowunused[nunused++] = chain[i];
		}
	}

	/*
	 * Dead tuples no dead prefix took: those no chain reaches (heap-only:
	 * their update aborted), and heap-only tuples whose inserter aborted
	 * behind a chain member still live, a version that never existed (heap
	 * frees both: heap_prune_chain on a dead heap-only tuple that is not
	 * HOT-updated, which an aborted one never is).
	 */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		bool		heapOnly;

		if (!dead[off] || removed[off] || !ItemIdIsNormal(lp))
			continue;
		heapOnly = HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp));
		if (reached[off] && !(heapOnly && aborted[off]))
			continue;
		ndeleted++;
		if (heapOnly)
			nowunused[nunused++] = off;
		else
			nowdead[ndead++] = off;
	}

	if (nredirected + ndead + nunused == 0)
	{
		IplSetPruneXid(page, nextPrune);
		return false;
	}
	NvmCommitFlushRelied();
	if (!IplPruneExecute(dirIndex, blkno, redirected, nredirected,
						 nowdead, ndead, nowunused, nunused, nextPrune,
						 conflictXid))
		return false;
	if (ndeletedOut)
		*ndeletedOut = ndeleted;
	if (!force && ndeleted > ndead)
		pgstat_update_heap_dead_tuples(rel, ndeleted - ndead);
	return true;
}
