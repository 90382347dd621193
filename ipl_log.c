/*-------------------------------------------------------------------------
 *
 * ipl_log.c
 *	  Page operations of nvm_am.  This is the only code that writes a page
 *	  frame: initialising a new page, placing a tuple, rewriting a tuple's
 *	  header (xmax, command id, ctid, infomask bits) and copying pages.
 *
 *	  This version applies every change in place, in an order that makes
 *	  each change crash-atomic with nothing but 8-byte publishes:
 *
 *	  - placing a tuple writes the tuple body and its line pointer past the
 *		page's pd_lower, persists them, and then publishes the 8-byte word
 *		holding pd_checksum, pd_flags, pd_lower and pd_upper.  A crash before
 *		the publish leaves bytes beyond pd_lower that nothing reads.
 *	  - rewriting a tuple header persists bytes 0-15 (xmin, xmax, command
 *		id, ctid block) first and then publishes bytes 16-23 (ctid offset,
 *		t_infomask2, t_infomask).  The infomask is what makes a new xmax
 *		count, so a crash in between leaves the old meaning of the tuple.
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
#include "storage/lmgr.h"
#include "storage/smgr.h"

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
	uint64		frame = PoolAllocFrame();
	Page		page = PoolFramePage(frame);
	BlockNumber blkno = PoolRelNBlocks(dirIndex);

	PageInit(page, BLCKSZ, 0);
	PoolFlush(page, BLCKSZ);
	PoolDrain();
	PoolRelMapNewBlock(dirIndex, blkno, frame);
	return blkno;
}

/*
 * IplTryAdd - place tup on page if it fits; caller holds the page lock
 * exclusively.  Returns the new offset or InvalidOffsetNumber.
 */
static OffsetNumber
IplTryAdd(Page page, BlockNumber blkno, HeapTuple tup, bool keepCtid)
{
	PageHeader	ph = (PageHeader) page;
	Size		alignedSize = MAXALIGN(tup->t_len);
	OffsetNumber off;
	uint16		lower;
	uint16		upper;
	HeapTupleHeader dst;
	ItemId		lp;
	uint16		word[4];

	if (PageGetHeapFreeSpace(page) < alignedSize)
		return InvalidOffsetNumber;
	off = OffsetNumberNext(PageGetMaxOffsetNumber(page));
	lower = ph->pd_lower + sizeof(ItemIdData);
	upper = ph->pd_upper - alignedSize;
	if (lower > upper)
		return InvalidOffsetNumber;

	dst = (HeapTupleHeader) ((char *) page + upper);
	memcpy(dst, tup->t_data, tup->t_len);
	if (!keepCtid)
		ItemPointerSet(&dst->t_ctid, blkno, off);
	lp = PageGetItemId(page, off);
	ItemIdSetNormal(lp, upper, tup->t_len);
	PoolFlush(dst, tup->t_len);
	PoolFlush(lp, sizeof(ItemIdData));
	PoolDrain();

	memcpy(word, (char *) page + 8, sizeof(word));
	word[2] = lower;
	word[3] = upper;
	PoolPublish64((uint64 *) ((char *) page + 8), *(uint64 *) word);

	ItemPointerSet(&tup->t_self, blkno, off);
	if (!keepCtid)
		tup->t_data->t_ctid = tup->t_self;
	return off;
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
		if (blkno != InvalidBlockNumber)
		{
			LWLock	   *lock = PoolPageLock(dirIndex, blkno);
			OffsetNumber off;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			off = IplTryAdd(PoolRelGetPage(dirIndex, blkno), blkno, tup, keepCtid);
			LWLockRelease(lock);
			if (off != InvalidOffsetNumber)
			{
				target_dir_index = dirIndex;
				target_block = blkno;
				return;
			}
			/* the last page is full: try a newer last page, else extend */
			nblocks = PoolRelNBlocks(dirIndex);
			if (blkno + 1 < nblocks)
			{
				blkno = nblocks - 1;
				continue;
			}
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
		uint64		frame = PoolAllocFrame();
		Page		page = PoolFramePage(frame);

		CHECK_FOR_INTERRUPTS();
		memcpy(page, PoolRelGetPage(srcIndex, blkno), BLCKSZ);
		PoolFlush(page, BLCKSZ);
		PoolDrain();
		PoolRelMapNewBlock(dstIndex, blkno, frame);
		NvmStorageExtended(dstsmgr, blkno);
	}
}
