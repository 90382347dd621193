/*-------------------------------------------------------------------------
 *
 * ipl_log.c
 *	  Page operations of nvm_am.  This is the only code that writes a page
 *	  frame: initialising a new page, placing a tuple, rewriting a tuple's
 *	  header (xmax, command id, ctid, infomask bits), setting hint bits,
 *	  pruning a page and copying pages.
 *
 *	  This version applies changes in place, in an order that makes each
 *	  change crash-atomic with nothing but 8-byte publishes:
 *
 *	  - placing a tuple writes the tuple body and its line pointer past the
 *		page's pd_lower, persists them, and then publishes the 8-byte word
 *		holding pd_checksum, pd_flags, pd_lower and pd_upper.  A crash before
 *		the publish leaves bytes beyond pd_lower that nothing reads.  When a
 *		free line pointer is reused, pd_upper is published first and the
 *		4-byte line pointer written after it.
 *	  - rewriting a tuple header persists bytes 0-15 (xmin, xmax, command
 *		id, ctid block) first and then publishes bytes 16-23 (ctid offset,
 *		t_infomask2, t_infomask).  The infomask is what makes a new xmax
 *		count, so a crash in between leaves the old meaning of the tuple.
 *	  - pruning never changes a page that readers may point into: the pruned
 *		page is built in local memory, written to a new frame, persisted, and
 *		published by swinging the page-table entry; the old frame is retired
 *		and freed by the pool once no backend has it pinned.
 *	  - hint bits and pd_prune_xid are hints: written, never persisted.
 *
 *	  - VACUUM frees dead line pointers (4-byte stores) only after the index
 *		entries pointing to them are gone and that is flushed to WAL.
 *
 *	  The in-page log (per-page redo records merged on read) replaces these
 *	  in-place writes behind the same functions.
 *
 * Locks: the caller holds the page's LWLock (PoolPageLock) exclusively for
 * every change, and the relation's extension lock to add a page.  Readers
 * take the page lock shared.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"
#include "utils/snapmgr.h"
#include "storage/procarray.h"

#include "nvm_am.h"

StaticAssertDecl(offsetof(PageHeaderData, pd_checksum) == 8 &&
				 offsetof(PageHeaderData, pd_lower) == 12 &&
				 offsetof(PageHeaderData, pd_upper) == 14,
				 "pd_lower and pd_upper share one aligned 8-byte word");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_infomask2) == 18 &&
				 offsetof(HeapTupleHeaderData, t_infomask) == 20,
				 "infomask bits share one aligned 8-byte word");

/* backend-local insertion target, like heap's rd_targblock */
static int	target_dir_index = -1;
static BlockNumber target_block = InvalidBlockNumber;

/*
 * IplNewPage - add an empty page at the end of a relation; returns its
 * block number.  Caller holds the relation's extension lock.
 */
BlockNumber
IplNewPage(int dirIndex)
{
	BlockNumber blkno = PoolRelNBlocks(dirIndex);
	uint64		frame;
	Page		page;

	/* page-table frames first: nothing can fail between alloc and publish */
	PoolRelEnsurePath(dirIndex, blkno);
	frame = PoolAllocFrame();
	page = PoolFramePage(frame);
	PageInit(page, BLCKSZ, 0);
	PoolFlush(page, BLCKSZ);
	PoolDrain();
	PoolRelMapNewBlock(dirIndex, blkno, frame);
	return blkno;
}

/*
 * IplTryAdd - place tup on page if it fits; caller holds the page lock
 * exclusively.  Returns the new offset or InvalidOffsetNumber.  A line
 * pointer freed by pruning is reused; otherwise one is appended.
 */
static OffsetNumber
IplTryAdd(Page page, BlockNumber blkno, HeapTuple tup, bool keepCtid)
{
	PageHeader	ph = (PageHeader) page;
	Size		alignedSize = MAXALIGN(tup->t_len);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off = InvalidOffsetNumber;
	uint16		lower;
	uint16		upper;
	HeapTupleHeader dst;
	ItemId		lp;
	ItemIdData	newlp;
	uint16		word[4];

	if (PageGetHeapFreeSpace(page) < alignedSize)
		return InvalidOffsetNumber;
	if (PageHasFreeLinePointers(page))
	{
		for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i++)
		{
			if (!ItemIdIsUsed(PageGetItemId(page, i)))
			{
				off = i;
				break;
			}
		}
	}
	lower = ph->pd_lower;
	if (off == InvalidOffsetNumber)
	{
		off = OffsetNumberNext(maxoff);
		lower += sizeof(ItemIdData);
	}
	upper = ph->pd_upper - alignedSize;
	if (lower > upper)
		return InvalidOffsetNumber;

	dst = (HeapTupleHeader) ((char *) page + upper);
	memcpy(dst, tup->t_data, tup->t_len);
	if (!keepCtid)
		ItemPointerSet(&dst->t_ctid, blkno, off);
	PoolFlush(dst, tup->t_len);
	lp = PageGetItemId(page, off);
	ItemIdSetNormal(&newlp, upper, tup->t_len);

	if (off <= maxoff)
	{
		/*
		 * Reusing a line pointer: claim the space first (publish pd_upper),
		 * then make the line pointer point to it.  A crash in between only
		 * leaks the space until the page is next compacted.
		 */
		PoolDrain();
		memcpy(word, (char *) page + 8, sizeof(word));
		word[3] = upper;
		PoolPublish64((uint64 *) ((char *) page + 8), *(uint64 *) word);
		*lp = newlp;
		PoolPersist(lp, sizeof(ItemIdData));
	}
	else
	{
		/* a new line pointer is beyond pd_lower until the publish */
		*lp = newlp;
		PoolFlush(lp, sizeof(ItemIdData));
		PoolDrain();
		memcpy(word, (char *) page + 8, sizeof(word));
		word[2] = lower;
		word[3] = upper;
		PoolPublish64((uint64 *) ((char *) page + 8), *(uint64 *) word);
	}

	ItemPointerSet(&tup->t_self, blkno, off);
	if (!keepCtid)
		tup->t_data->t_ctid = tup->t_self;
	return off;
}

/*
 * IplPlaceTupleOnPage - place tup on this page (a HOT update keeps the new
 * version on the page of the old one); InvalidOffsetNumber if it does not
 * fit.  Sets tup->t_self.  Caller holds the page lock exclusively.
 */
OffsetNumber
IplPlaceTupleOnPage(Page page, BlockNumber blkno, HeapTuple tup)
{
	return IplTryAdd(page, blkno, tup, false);
}

/*
 * IplChainNext - the line pointer of the HOT-chain member that follows the
 * tuple t on page blkno, or InvalidOffsetNumber when t ends its chain or
 * its successor is not there any more.  The successor must be a heap-only
 * tuple created by t's updater.  Its raw xmin is compared, not the one
 * HeapTupleHeaderGetXmin reports: freezing keeps the raw xmin, and a
 * frozen member must not cut its chain.  Caller holds the page lock.
 */
static OffsetNumber
IplChainNext(Page page, BlockNumber blkno, HeapTupleHeader t)
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
 * IplChainStart - the first tuple of the HOT chain whose root is the line
 * pointer root: the root itself when it holds a tuple that is not heap-only,
 * the target of a redirect when that is a heap-only tuple, otherwise none.
 */
static OffsetNumber
IplChainStart(Page page, OffsetNumber root)
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
 * IplGetRootTuples - roots[off - 1] is the root line pointer of the HOT
 * chain the tuple at off belongs to, InvalidOffsetNumber for a tuple no
 * chain reaches (heap_get_root_tuples, but with IplChainNext's rule for
 * frozen members).  Caller holds the page lock.
 */
void
IplGetRootTuples(Page page, BlockNumber blkno, OffsetNumber *roots)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	MemSet(roots, InvalidOffsetNumber, MaxHeapTuplesPerPage * sizeof(OffsetNumber));
	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		OffsetNumber off = IplChainStart(page, root);

		while (off != InvalidOffsetNumber && roots[off - 1] == InvalidOffsetNumber)
		{
			roots[off - 1] = root;
			off = IplChainNext(page, blkno,
							   (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off)));
		}
	}
}

/*
 * IplPrunePage - reclaim the space of row versions on page blkno that no
 * transaction can see any more.  Like heap's pruning: in a HOT chain the
 * dead versions before the first live one are removed and the root line
 * pointer redirects to that one (or is marked dead when the whole chain
 * is dead: index entries still point to it); a dead tuple outside any
 * chain leaves a dead line pointer.  Line pointers of removed heap-only
 * tuples are freed for reuse, since no index points to them.
 *
 * A version is dead when its deleter committed before every running
 * transaction's snapshot (GlobalVis, or oldestXmin when VACUUM gives its
 * own horizon) and that commit is durable (NvmXidCommitDurable): a version
 * removed for an asynchronous commit that a crash then loses would leave
 * its row with no version at all.
 *
 * The page is rewritten copy-on-write: compacted in local memory, written
 * to a new frame and published by swinging its page-table entry; the old
 * frame is freed once no backend has it pinned.  Returns true if the page
 * was rewritten (callers must fetch the page again).  Caller holds the
 * page lock exclusively.
 */
bool
IplPrunePage(Relation rel, int dirIndex, BlockNumber blkno, bool force,
			 TransactionId oldestXmin)
{
	Page		page = PoolRelGetPage(dirIndex, blkno);
	PGAlignedBlock copy;
	Page		np = copy.data;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	bool		dead[MaxHeapTuplesPerPage + 1];
	bool		reached[MaxHeapTuplesPerPage + 1];
	TransactionId pruneXid = ((PageHeader) page)->pd_prune_xid;
	TransactionId nextPrune = InvalidTransactionId;
	bool		changed = false;
	uint64		frame;

	if (!force &&
		(!TransactionIdIsValid(pruneXid) ||
		 !GlobalVisTestIsRemovableXid(vistest, pruneXid)))
		return false;

	memcpy(np, page, BLCKSZ);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(np, off);
		HeapTupleData tup;
		TransactionId deleter = InvalidTransactionId;
		HTSV_Result r;

		dead[off] = false;
		reached[off] = false;
		if (!ItemIdIsNormal(lp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(np, lp);
		tup.t_len = ItemIdGetLength(lp);
		ItemPointerSet(&tup.t_self, blkno, off);
		tup.t_tableOid = RelationGetRelid(rel);
		r = NvmTupleSatisfiesVacuum(&tup, InvalidTransactionId, &deleter);
		if (r == HEAPTUPLE_DEAD)
			dead[off] = true;
		else if (r == HEAPTUPLE_RECENTLY_DEAD &&
				 NvmXidCommitDurable(deleter) &&
				 (GlobalVisTestIsRemovableXid(vistest, deleter) ||
				  (TransactionIdIsValid(oldestXmin) &&
				   TransactionIdPrecedes(deleter, oldestXmin))))
			dead[off] = true;
		else if (TransactionIdIsNormal(deleter) &&
				 (!TransactionIdIsValid(nextPrune) || TransactionIdPrecedes(deleter, nextPrune)))
			nextPrune = deleter;
	}

	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		ItemId		rootlp = PageGetItemId(np, root);
		OffsetNumber chain[MaxHeapTuplesPerPage];
		int			n = 0;
		int			ndead = 0;
		OffsetNumber off;

		if (!ItemIdIsRedirected(rootlp) && !ItemIdIsNormal(rootlp))
			continue;
		off = IplChainStart(np, root);
		if (off == InvalidOffsetNumber && ItemIdIsNormal(rootlp))
			continue;			/* a heap-only tuple: not a root */

		/* collect the chain */
		while (off != InvalidOffsetNumber && !reached[off])
		{
			chain[n++] = off;
			reached[off] = true;
			off = IplChainNext(np, blkno,
							   (HeapTupleHeader) PageGetItem(np, PageGetItemId(np, off)));
		}
		while (ndead < n && dead[chain[ndead]])
			ndead++;
		if (ndead == 0)
		{
			if (n == 0 && ItemIdIsRedirected(rootlp))
			{
				/* the redirect target is gone: the whole chain is dead */
				ItemIdSetDead(rootlp);
				changed = true;
			}
			continue;
		}

		changed = true;
		if (ndead == n)
			ItemIdSetDead(rootlp);
		else
			ItemIdSetRedirect(rootlp, chain[ndead]);
		for (int i = 0; i < ndead; i++)
			if (chain[i] != root)
				ItemIdSetUnused(PageGetItemId(np, chain[i]));
	}

	/* dead heap-only tuples that no chain reaches (their update aborted) */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(np, off);

		if (dead[off] && !reached[off] && ItemIdIsNormal(lp))
		{
			if (HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(np, lp)))
				ItemIdSetUnused(lp);
			else
				ItemIdSetDead(lp);
			changed = true;
		}
	}

	((PageHeader) np)->pd_prune_xid = nextPrune;
	if (!changed)
	{
		/* remember when pruning may pay next time: a hint, not persisted */
		((PageHeader) page)->pd_prune_xid = nextPrune;
		return false;
	}

	/* with the pool full, leave the page as it is rather than fail */
	frame = PoolTryAllocFrame();
	if (frame == 0)
		return false;
	PageRepairFragmentation(np);
	memcpy(PoolFramePage(frame), np, BLCKSZ);
	PoolFlush(PoolFramePage(frame), BLCKSZ);
	PoolDrain();
	PoolRetireFrame(PoolRelSwapFrame(dirIndex, blkno, frame));
	PoolCountAdd(NVM_STAT_PAGES_PRUNED, 1);
	return true;
}

/*
 * IplPlaceTuple - store a prepared tuple in some page of the relation with
 * room for it, extending the relation when none has.  Sets tup->t_self.
 * With keepCtid the tuple's t_ctid (a speculative token) is kept as given.
 * Caller holds a lock on the relation that allows inserts.
 */
void
IplPlaceTuple(Relation rel, int dirIndex, HeapTuple tup, bool keepCtid)
{
	BlockNumber nblocks;
	BlockNumber blkno;
	int			fsmTries = 0;

	if (tup->t_len > MaxHeapTupleSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(size_t) tup->t_len, (size_t) MaxHeapTupleSize)));

	nblocks = PoolRelNBlocks(dirIndex);
	if (target_dir_index == dirIndex && target_block < nblocks)
		blkno = target_block;
	else
		blkno = nblocks > 0 ? nblocks - 1 : InvalidBlockNumber;

	for (;;)
	{
		Size		avail = 0;

		if (blkno != InvalidBlockNumber)
		{
			LWLock	   *lock = PoolPageLock(dirIndex, blkno);
			OffsetNumber off;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			off = IplTryAdd(PoolRelGetPage(dirIndex, blkno), blkno, tup, keepCtid);
			if (off == InvalidOffsetNumber && IplPrunePage(rel, dirIndex, blkno, false,
															  InvalidTransactionId))
				off = IplTryAdd(PoolRelGetPage(dirIndex, blkno), blkno, tup, keepCtid);
			if (off == InvalidOffsetNumber)
				avail = PageGetHeapFreeSpace(PoolRelGetPage(dirIndex, blkno));
			LWLockRelease(lock);
			if (off != InvalidOffsetNumber)
			{
				target_dir_index = dirIndex;
				target_block = blkno;
				return;
			}
		}

		/*
		 * The page is full: ask the free space map (filled by VACUUM) for a
		 * page with room, correcting what it said about this one; a few
		 * times at most.  FSM pages live in shared buffers: never consult
		 * it with a page lock held.
		 */
		nblocks = PoolRelNBlocks(dirIndex);
		if (fsmTries < 4)
		{
			BlockNumber cand;

			cand = (fsmTries == 0 || blkno == InvalidBlockNumber) ?
				GetPageWithFreeSpace(rel, MAXALIGN(tup->t_len)) :
				RecordAndGetPageWithFreeSpace(rel, blkno, avail, MAXALIGN(tup->t_len));
			fsmTries++;
			if (cand != InvalidBlockNumber && cand < nblocks && cand != blkno)
			{
				blkno = cand;
				continue;
			}
		}
		/* try a newer last page, else extend */
		if (blkno != InvalidBlockNumber && blkno + 1 < nblocks)
		{
			blkno = nblocks - 1;
			continue;
		}
		LockRelationForExtension(rel, ExclusiveLock);
		nblocks = PoolRelNBlocks(dirIndex);
		if (blkno == InvalidBlockNumber ? nblocks > 0 : blkno + 1 < nblocks)
			blkno = nblocks - 1;	/* someone else extended meanwhile */
		else
		{
			blkno = IplNewPage(dirIndex);
			NvmStorageExtended(RelationGetSmgr(rel), blkno);
		}
		UnlockRelationForExtension(rel, ExclusiveLock);
	}
}

/*
 * IplWriteTupleHeader - replace the visibility fields of the tuple at off
 * (xmin, xmax, command id, ctid, t_infomask2, t_infomask) with those of
 * newhdr.  Caller holds the page lock exclusively.
 */
void
IplWriteTupleHeader(Page page, OffsetNumber off, HeapTupleHeader newhdr)
{
	ItemId		lp = PageGetItemId(page, off);
	char	   *dst;
	uint64		word;

	Assert(ItemIdIsNormal(lp));
	dst = (char *) PageGetItem(page, lp);
	Assert(((uintptr_t) dst % 8) == 0);

	memcpy(dst, newhdr, 16);
	PoolFlush(dst, 16);
	PoolDrain();

	memcpy(&word, dst + 16, sizeof(word));
	memcpy(&word, (char *) newhdr + 16, 6);	/* ctid offset, infomask2, infomask */
	PoolPublish64((uint64 *) (dst + 16), word);

	/* a deleted or updated version may be pruned later: a hint */
	if (!(newhdr->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(newhdr->t_infomask))
		PageSetPrunable(page, HeapTupleHeaderGetUpdateXid(newhdr));
	else if (!TransactionIdIsValid(HeapTupleHeaderGetRawXmin(newhdr)))
		PageSetPrunable(page, RecentXmin);	/* a super-deleted insert */
}

/*
 * IplSetUnused - free the dead line pointers offs[0..n-1] of page for reuse
 * (VACUUM, after their index entries were removed).  Caller holds the page
 * lock exclusively.
 */
void
IplSetUnused(Page page, OffsetNumber *offs, int n)
{
	uint16		word[4];
	bool		any = false;

	for (int i = 0; i < n; i++)
	{
		ItemId		lp = PageGetItemId(page, offs[i]);

		if (!ItemIdIsDead(lp))
			continue;
		ItemIdSetUnused(lp);
		PoolFlush(lp, sizeof(ItemIdData));
		any = true;
	}
	if (!any)
		return;
	PoolDrain();
	/* pd_flags shares the 8-byte word with pd_lower and pd_upper */
	memcpy(word, (char *) page + 8, sizeof(word));
	word[1] |= PD_HAS_FREE_LINES;
	PoolPublish64((uint64 *) ((char *) page + 8), *(uint64 *) word);
}

/*
 * IplSetHintBits - set hint bits (HEAP_XMIN_COMMITTED and the like) in a
 * tuple's t_infomask.  Hints are not persisted and not logged: each can be
 * derived again from clog.  Caller holds the page lock, shared is enough;
 * two backends setting hints at once can only lose a hint.
 */
void
IplSetHintBits(HeapTupleHeader tup, uint16 bits)
{
	tup->t_infomask |= bits;
}

/*
 * IplCopyRelation - append a copy of every page of relation srcIndex to the
 * empty relation dstIndex.  Caller holds AccessExclusiveLock on the source
 * and is the only user of the destination.
 */
void
IplCopyRelation(int srcIndex, int dstIndex, SMgrRelation dstsmgr)
{
	BlockNumber nblocks = PoolRelNBlocks(srcIndex);

	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		uint64		frame;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		PoolRelEnsurePath(dstIndex, blkno);
		frame = PoolAllocFrame();
		page = PoolFramePage(frame);
		memcpy(page, PoolRelGetPage(srcIndex, blkno), BLCKSZ);
		PoolFlush(page, BLCKSZ);
		PoolDrain();
		PoolRelMapNewBlock(dstIndex, blkno, frame);
		NvmStorageExtended(dstsmgr, blkno);
	}
}
