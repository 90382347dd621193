/*-------------------------------------------------------------------------
 *
 * nvm_modify.c
 *	  Changing the rows of nvm_am tables: insert, multi-insert,
 *	  speculative insert (INSERT ... ON CONFLICT), delete and update, and
 *	  choosing the page a new tuple goes to (the counterpart of heap's
 *	  hio.c: the backend's last target page, the free space map, pruning a
 *	  full page, extending the relation).
 *
 *	  UPDATE that changes no indexed column and fits on the page is a HOT
 *	  update, done entirely under the page lock: the new version is placed
 *	  as a heap-only tuple, then the old version gets xmax, HEAP_HOT_UPDATED
 *	  and a ctid pointing to it, all one in-page record.  A new version
 *	  that goes to another page is placed first, with no page lock held,
 *	  then the old version is marked and linked to it in one record, if
 *	  nobody changed it meanwhile (else the new version is super-deleted
 *	  and the update starts over): two records, never two page locks at
 *	  once.  An update with TOAST work takes three steps: mark the old
 *	  version updated by us (ctid = itself; its old TOAST values must not
 *	  be deleted by anyone else), place the new version, link the old one
 *	  to it; between them the old version reads "being updated by a
 *	  transaction in progress": others wait for us.  A crash at any point
 *	  leaves changes of a transaction that never committed.  TOAST values
 *	  go to an ordinary heap TOAST table.
 *
 * Locks: the usual relation locks taken by the executor; the page lock,
 * exclusively, around each change (never two at once); the relation's
 * extension lock to add a page.  Before its first write a transaction
 * protects its xid and marks its slot (NvmCommitBeforeWrite).
 *
 * On-pool layout: none of its own (pages are changed through ipl_log.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/relcache.h"

#include "nvm_am.h"

/* the free space a page must have to take a tuple too big for a fillfactor */
#define NVM_NEARLY_EMPTY_FREE_SPACE \
	(MaxHeapTupleSize - (MaxHeapTuplesPerPage / 8 * sizeof(ItemIdData)))

/*
 * NvmModifyPrepareInsert - set the header of a tuple to insert and TOAST it if
 * needed; returns the tuple to store (tup itself or a toasted copy).
 */
static HeapTuple
NvmModifyPrepareInsert(Relation rel, HeapTuple tup, TransactionId xid,
					   CommandId cid, int options, HeapTuple oldtup)
{
	tup->t_data->t_infomask &= ~HEAP_XACT_MASK;
	tup->t_data->t_infomask2 &= ~HEAP2_XACT_MASK;
	tup->t_data->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(tup->t_data, xid);
	if (options & HEAP_INSERT_FROZEN)
		HeapTupleHeaderSetXminFrozen(tup->t_data);
	HeapTupleHeaderSetCmin(tup->t_data, cid);
	HeapTupleHeaderSetXmax(tup->t_data, 0);
	tup->t_tableOid = RelationGetRelid(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		return tup;
	if (HeapTupleHasExternal(tup) || tup->t_len > TOAST_TUPLE_THRESHOLD ||
		(oldtup != NULL && HeapTupleHasExternal(oldtup)))
		return heap_toast_insert_or_update(rel, tup, oldtup, options);
	return tup;
}

/*
 * NvmModifyLogsInserts - do inserts into rel with options write logical
 * decoding's records?
 */
static bool
NvmModifyLogsInserts(Relation rel, int options)
{
	return (options & TABLE_INSERT_NO_LOGICAL) == 0 && NvmLogicalWanted(rel);
}

/*
 * NvmModifySlotInserted - tup, slot's row, was inserted as stored (tup
 * itself or a TOASTed copy, freed here): the row's TID, and its t_ctid.
 */
static void
NvmModifySlotInserted(TupleTableSlot *slot, HeapTuple tup, HeapTuple stored)
{
	if (stored != tup)
	{
		tup->t_self = stored->t_self;
		heap_freetuple(stored);
	}
	slot->tts_tid = tup->t_self;
	ItemPointerCopy(&tup->t_self, &tup->t_data->t_ctid);
}

/*
 * NvmModifyInsert - insert one tuple; returns the tuple stored (tup itself
 * or a TOASTed copy), its t_self set.
 */
static HeapTuple
NvmModifyInsert(Relation rel, HeapTuple tup, CommandId cid, int options,
				uint32 specToken)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTuple	heaptup;

	NvmCommitBeforeWrite();
	heaptup = NvmModifyPrepareInsert(rel, tup, xid, cid, options, NULL);
	if (specToken != 0)
		HeapTupleHeaderSetSpeculativeToken(heaptup->t_data, specToken);
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	NvmModifyPlaceTuple(rel, dirIndex, heaptup, specToken != 0, true,
						(options & TABLE_INSERT_SKIP_FSM) == 0);
	/* a speculative insert is logged when it is confirmed */
	if (specToken == 0 && NvmModifyLogsInserts(rel, options))
		NvmLogicalLog(rel, NVM_LOGICAL_INSERT, heaptup, NULL, false);
	NvmPoolCountAdd(NVM_STAT_TUPLES_INSERTED, 1);
	return heaptup;
}

static void
NvmModifyInsertSlot(Relation rel, TupleTableSlot *slot, CommandId cid,
					int options, uint32 specToken)
{
	bool		shouldFree = true;
	HeapTuple	tup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);

	slot->tts_tableOid = RelationGetRelid(rel);
	NvmModifySlotInserted(slot, tup, NvmModifyInsert(rel, tup, cid, options, specToken));
	if (shouldFree)
		pfree(tup);
}

void
NvmModifyTupleInsert(Relation rel, TupleTableSlot *slot, CommandId cid,
					 int options)
{
	NvmModifyInsertSlot(rel, slot, cid, options, 0);
	pgstat_count_heap_insert(rel, 1);
}

void
NvmModifyInsertSpeculative(Relation rel, TupleTableSlot *slot,
						   CommandId cid, int options, uint32 specToken)
{
	Assert(specToken != 0);
	NvmModifyInsertSlot(rel, slot, cid, options, specToken);
	pgstat_count_heap_insert(rel, 1);
}

/*
 * NvmModifySuperDelete - make hdr the header of a tuple that was never
 * visible to anyone: an aborted speculative insertion ("super-delete", as
 * heap_abort_speculative), or the new version of an update that had to
 * start over.  Its xmin is invalid: every snapshot ignores it and pruning
 * removes it.
 */
static void
NvmModifySuperDelete(HeapTupleHeader hdr)
{
	HeapTupleHeaderSetXmin(hdr, InvalidTransactionId);
	hdr->t_infomask |= HEAP_XMIN_INVALID;
}

/*
 * NvmModifyKill - super-delete (NvmModifySuperDelete) the tuple at tid,
 * which this transaction stored and nobody has seen.  Takes its page lock.
 * The tuple is one more dead tuple for autovacuum whatever becomes of the
 * transaction (heap counts an aborted speculative insertion as an insert
 * and a delete, one dead tuple either way; the placement of an update's
 * new version was never counted): pg_stat's dead tuples go up by one.
 */
static void
NvmModifyKill(Relation rel, int dirIndex, ItemPointer tid)
{
	LWLock	   *lock;
	HeapTupleData tup;
	HeapTupleHeaderData hdr;
	Page		page = NvmRowLockPage(rel, dirIndex, tid, &tup, &lock, false);

	memcpy(&hdr, tup.t_data, sizeof(hdr));
	NvmModifySuperDelete(&hdr);
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(tid), &hdr);
	LWLockRelease(lock);
	/* (its argument is the number of dead tuples removed) */
	pgstat_update_heap_dead_tuples(rel, -1);
}

void
NvmModifyCompleteSpeculative(Relation rel, TupleTableSlot *slot,
							 uint32 specToken, bool succeeded)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	LWLock	   *lock;
	HeapTupleData tup;
	HeapTupleHeaderData hdr;
	HeapTuple	toastcopy = NULL;
	HeapTuple	logged = NULL;
	Page		page = NvmRowLockPage(rel, dirIndex, &slot->tts_tid, &tup, &lock, false);

	memcpy(&hdr, tup.t_data, sizeof(hdr));
	if (!succeeded)
		NvmModifySuperDelete(&hdr);
	hdr.t_ctid = tup.t_self;
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(&tup.t_self), &hdr);
	if (!succeeded && HeapTupleHasExternal(&tup))
		toastcopy = heap_copytuple(&tup);
	if (succeeded && NvmLogicalWanted(rel))
		logged = heap_copytuple(&tup);
	LWLockRelease(lock);
	if (logged)
	{
		NvmLogicalLog(rel, NVM_LOGICAL_INSERT, logged, NULL, false);
		heap_freetuple(logged);
	}
	if (toastcopy)
	{
		/* its TOAST values were never visible either */
		heap_toast_delete(rel, toastcopy, true);
		heap_freetuple(toastcopy);
	}
	if (!succeeded)
		pgstat_count_heap_delete(rel);
}

/*
 * NvmModifyCheckSize - a row longer than a page can hold (after TOAST) is
 * an error, as in heap.
 */
static void
NvmModifyCheckSize(HeapTuple tup)
{
	if (tup->t_len > MaxHeapTupleSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(size_t) tup->t_len, (size_t) MaxHeapTupleSize)));
}

/*
 * NvmModifyTargetFreeSpace - the free space a page must have to take a
 * tuple of len bytes, as RelationGetBufferForTuple computes it: the tuple
 * and the fillfactor's reserve, or for a tuple too big for a page that
 * keeps the reserve, a nearly empty page.
 */
static Size
NvmModifyTargetFreeSpace(Relation rel, Size len)
{
	Size		saveFreeSpace = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);

	len = MAXALIGN(len);
	if (len + saveFreeSpace > MaxHeapTupleSize)
		return Max(len, NVM_NEARLY_EMPTY_FREE_SPACE);
	return len + saveFreeSpace;
}

/*
 * NvmModifyFirstPage - the page RelationGetBufferForTuple tries first for a
 * tuple that needs targetFreeSpace: the page this backend last inserted
 * into (kept with the relation's smgr entry), else one the free space map
 * (useFsm) offers, else the last page; InvalidBlockNumber for an empty
 * relation of nblocks 0.
 */
static BlockNumber
NvmModifyFirstPage(Relation rel, BlockNumber nblocks, bool useFsm,
				   Size targetFreeSpace)
{
	BlockNumber blkno = RelationGetTargetBlock(rel);

	if (blkno >= nblocks && useFsm && nblocks > 0)
		blkno = GetPageWithFreeSpace(rel, targetFreeSpace);
	if (blkno >= nblocks)
		blkno = nblocks > 0 ? nblocks - 1 : InvalidBlockNumber;
	return blkno;
}

/*
 * NvmModifyPageFree - the free space of page blkno as the free space map
 * records it (PageGetHeapFreeSpace).  Takes the page lock shared.
 */
static Size
NvmModifyPageFree(int dirIndex, BlockNumber blkno)
{
	LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
	Size		avail;

	LWLockAcquire(lock, LW_SHARED);
	avail = PageGetHeapFreeSpace(IplGetPage(dirIndex, blkno));
	LWLockRelease(lock);
	return avail;
}

/*
 * NvmModifyFillsPage - would tups[0..n) fill a new page within the
 * fillfactor's free space (saveFreeSpace)?
 */
static bool
NvmModifyFillsPage(HeapTuple *tups, int n, Size saveFreeSpace)
{
	Size		total = SizeOfPageHeaderData + saveFreeSpace;

	for (int i = 0; i < n && total < BLCKSZ; i++)
		total += MAXALIGN(tups[i]->t_len) + sizeof(ItemIdData);
	return total >= BLCKSZ;
}

/*
 * NvmModifyFillNewPages - place the first of tups[0..n) and those after it
 * on new pages, each built in memory and written whole (IplNewPageFilled),
 * for as long as they fill a page, provided no page has room for the first:
 * not the page heap's multi-insert would try first (RelationGetBufferForTuple:
 * the page this backend inserts into, else one the free space map offers,
 * else the last page), nor, that one being full, one the free space map
 * offers then.  Returns how many it placed (0: none, they go one by one
 * (NvmModifyPlaceTuple, which finds the same page); then *fitCurrent tells
 * how many the page tried first has room for).  As heap's multi-insert, a
 * new page takes as many rows as fit within the fillfactor.
 */
static int
NvmModifyFillNewPages(Relation rel, int dirIndex, HeapTuple *tups, int n,
					  bool useFsm, int *fitCurrent)
{
	Size		saveFreeSpace = RelationGetTargetPageFreeSpace(rel, HEAP_DEFAULT_FILLFACTOR);
	Size		need = NvmModifyTargetFreeSpace(rel, tups[0]->t_len);
	BlockNumber target = NvmModifyFirstPage(rel, NvmPoolRelNBlocks(dirIndex),
											useFsm, need);
	int			placed = 0;

	*fitCurrent = 0;
	if (target != InvalidBlockNumber)
	{
		Size		avail = NvmModifyPageFree(dirIndex, target);
		Size		left = avail;

		/* that page first: how many of the rows it takes */
		while (*fitCurrent < n &&
			   MAXALIGN(tups[*fitCurrent]->t_len) + saveFreeSpace <= left)
			left -= MAXALIGN(tups[(*fitCurrent)++]->t_len) + sizeof(ItemIdData);
		/*
		 * NvmModifyPlaceTuple starts from the page chosen here: the free
		 * space map is asked no more often than heap asks it, since each
		 * search moves where its next one starts
		 */
		if (*fitCurrent > 0)
		{
			RelationSetTargetBlock(rel, target);
			return 0;
		}

		/* full: the free space map learns so, and may offer another */
		if (useFsm)
		{
			BlockNumber cand = RecordAndGetPageWithFreeSpace(rel, target, avail, need);

			if (cand < NvmPoolRelNBlocks(dirIndex))
			{
				RelationSetTargetBlock(rel, cand);
				return 0;
			}
		}
	}
	do
	{
		BlockNumber blkno;
		int			got;

		/*
		 * The page filled last is full: as heap's next batch finds it, the
		 * free space map learns what it has left
		 */
		if (placed > 0 && useFsm)
		{
			BlockNumber last = RelationGetTargetBlock(rel);

			RecordPageWithFreeSpace(rel, last, NvmModifyPageFree(dirIndex, last));
		}
		LockRelationForExtension(rel, ExclusiveLock);
		got = IplNewPageFilled(dirIndex, tups + placed, n - placed, saveFreeSpace,
							   &blkno);
		NvmScanCountNewPage(rel);
		NvmStorageExtended(RelationGetSmgr(rel), blkno);
		NvmVismapClear(rel, dirIndex, blkno, VISIBILITYMAP_VALID_BITS);
		UnlockRelationForExtension(rel, ExclusiveLock);
		if (got == 0)
			elog(ERROR, "nvm_am could not place a row of %u bytes on a new page",
				 tups[placed]->t_len);
		RelationSetTargetBlock(rel, blkno);
		placed += got;
	} while (placed < n && NvmModifyFillsPage(tups + placed, n - placed, saveFreeSpace));
	return placed;
}

/*
 * NvmModifyMultiInsert - insert the rows of slots (COPY, CTAS, INSERT ...
 * SELECT into a new table) as heap_multi_insert does: every row prepared
 * (its long values stored in the TOAST table) first, then each placed.
 * Logical decoding therefore sees all their TOAST chunks before their rows,
 * as with heap, and each row's record but the last asks the decoder to keep
 * the chunks it has put together.
 */
void
NvmModifyMultiInsert(Relation rel, TupleTableSlot **slots, int ntuples,
					 CommandId cid, int options)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	bool		logical = NvmModifyLogsInserts(rel, options);
	bool		useFsm = (options & TABLE_INSERT_SKIP_FSM) == 0;
	HeapTuple  *stored = palloc(ntuples * sizeof(HeapTuple));

	NvmCommitBeforeWrite();
	for (int i = 0; i < ntuples; i++)
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slots[i], true, NULL);

		slots[i]->tts_tableOid = RelationGetRelid(rel);
		stored[i] = NvmModifyPrepareInsert(rel, tup, xid, cid, options, NULL);
		NvmModifyCheckSize(stored[i]);
	}
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	for (int i = 0, bulk = 0, single = 0; i < ntuples; i++)
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slots[i], true, NULL);

		/*
		 * Rows that would fill a new page go onto one built in memory and
		 * written whole; the others one by one (first those the page this
		 * backend inserts into has room for; then, if less than a page is
		 * left, one the free space map offers, or a new one).
		 */
		if (i >= bulk && i >= single)
		{
			int			fit;

			bulk = i + NvmModifyFillNewPages(rel, dirIndex, stored + i, ntuples - i,
											 useFsm, &fit);
			single = i + fit;
		}
		if (i >= bulk)
			NvmModifyPlaceTuple(rel, dirIndex, stored[i], false, true, useFsm);
		if (logical)
			NvmLogicalLog(rel, NVM_LOGICAL_INSERT, stored[i], NULL, i + 1 < ntuples);
		NvmModifySlotInserted(slots[i], tup, stored[i]);
	}
	pfree(stored);
	NvmPoolCountAdd(NVM_STAT_TUPLES_INSERTED, ntuples);
	pgstat_count_heap_insert(rel, ntuples);
}

TM_Result
NvmModifyDelete(Relation rel, ItemPointer tid, CommandId cid,
				Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				bool changingPart)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTupleData tup;
	HeapTupleHeaderData hdr;
	LWLock	   *lock;
	Page		page;
	TM_Result	result;
	HeapTuple	oldcopy = NULL;
	MultiXactStatus want;
	LOCKMODE	tuplock;
	TransactionId xmax;
	uint16		bits;
	uint16		bits2;
	bool		lockers;
	bool		logical = NvmLogicalWanted(rel);
	Bitmapset  *idattrs = logical ? NvmLogicalIdentity(rel) : NULL;
	HeapTuple	oldrow = NULL;

	NvmCommitBeforeWrite();
	result = NvmRowLockForModify(rel, dirIndex, tid, cid, crosscheck, wait, tmfd,
								 &tup, &page, &lock, "delete", NULL, NULL, &want,
								 &tuplock);
	if (result != TM_Ok)
		return result;
	CheckForSerializableConflictIn(rel, tid, ItemPointerGetBlockNumber(tid));
	NvmVismapClear(rel, dirIndex, ItemPointerGetBlockNumber(tid),
				   VISIBILITYMAP_VALID_BITS);
	xmax = NvmRowLockNewXmax(tup.t_data, want, xid, &bits, &bits2, &lockers);
	NvmRowLockSetXmax(&hdr, &tup, xmax, cid, bits, bits2, true);
	if (changingPart)
		HeapTupleHeaderSetMovedPartitions(&hdr);
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(tid), &hdr);
	if (HeapTupleHasExternal(&tup))
		oldcopy = heap_copytuple(&tup);
	if (logical)
		oldrow = NvmLogicalOldRow(rel, idattrs, &tup, true);
	LWLockRelease(lock);
	NvmRowLockReleaseTuple(rel, tid, &tuplock);
	if (logical)
		NvmLogicalLog(rel, NVM_LOGICAL_DELETE, NULL, oldrow, false);
	bms_free(idattrs);

	if (oldcopy)
	{
		heap_toast_delete(rel, oldcopy, false);
		heap_freetuple(oldcopy);
	}
	pgstat_count_heap_delete(rel);
	NvmPoolCountAdd(NVM_STAT_TUPLES_DELETED, 1);
	return TM_Ok;
}

static TM_Result NvmModifyUpdated(Relation rel, TupleTableSlot *slot,
								  HeapTuple newtup, HeapTuple stored,
								  HeapTuple oldrow, bool hot, bool shouldFree,
								  bool *update_indexes, Bitmapset *hotattrs,
								  Bitmapset *keyattrs, Bitmapset *idattrs);

/* updates that place the new version before marking the old one, at most */
#define NVM_UPDATE_PLACE_FIRST_TRIES	3

/*
 * NvmModifyHeaderSame - is the tuple header now (SizeofHeapTupleHeader bytes)
 * the one seen before, but for hint bits (which readers set, and an image
 * merged again may lack) and freezing (which VACUUM may add)?
 */
static bool
NvmModifyHeaderSame(HeapTupleHeader now, HeapTupleHeader seen)
{
	HeapTupleHeaderData a;
	HeapTupleHeaderData b;
	const uint16 hints = HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID |
		HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID;

	memcpy(&a, now, SizeofHeapTupleHeader);
	memcpy(&b, seen, SizeofHeapTupleHeader);
	a.t_infomask &= ~hints;
	b.t_infomask &= ~hints;
	return memcmp(&a, &b, SizeofHeapTupleHeader) == 0;
}

/*
 * NvmModifyCarryLockers - give the new version of an updated row the xmax of
 * the lockers that still hold the old one (none: xmax stays invalid).
 */
static void
NvmModifyCarryLockers(HeapTuple newtup, TransactionId lockers, uint16 mask,
					  uint16 mask2)
{
	if (!TransactionIdIsValid(lockers))
		return;
	newtup->t_data->t_infomask &= ~HEAP_XMAX_BITS;
	newtup->t_data->t_infomask |= mask;
	newtup->t_data->t_infomask2 &= ~HEAP_KEYS_UPDATED;
	newtup->t_data->t_infomask2 |= mask2;
	HeapTupleHeaderSetXmax(newtup->t_data, lockers);
}

/*
 * NvmModifyNoToastWork - can newtup replace oldtup with no TOAST work (no
 * value to store out of line or to delete)?  Only such an update may be
 * done with the page locked throughout.
 */
static bool
NvmModifyNoToastWork(HeapTuple oldtup, HeapTuple newtup)
{
	return !HeapTupleHasExternal(oldtup) && !HeapTupleHasExternal(newtup) &&
		newtup->t_len <= TOAST_TUPLE_THRESHOLD;
}

TM_Result
NvmModifyUpdate(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				CommandId cid, Snapshot crosscheck, bool wait,
				TM_FailureData *tmfd, LockTupleMode *lockmode,
				bool *update_indexes)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTupleData oldtup;
	HeapTupleHeaderData hdr;
	HeapTupleHeaderData seen;
	bool		noToast;
	bool		hot;
	int			tries = 0;
	LWLock	   *lock;
	Page		page;
	TM_Result	result;
	bool		shouldFree = true;
	HeapTuple	newtup;
	HeapTuple	heaptup;
	HeapTuple	oldcopy = NULL;
	Bitmapset  *hotattrs;
	Bitmapset  *keyattrs;
	MultiXactStatus want;
	LOCKMODE	tuplock;
	TransactionId xmax;
	TransactionId lockersXmax;
	uint16		lockersMask;
	uint16		lockersMask2;
	uint16		bits;
	uint16		bits2;
	bool		lockers;
	bool		logical = NvmLogicalWanted(rel);
	Bitmapset  *idattrs = NULL;
	HeapTuple	oldrow = NULL;

	*update_indexes = true;
	NvmCommitBeforeWrite();
	/* catalog lookups and copying before the page is locked */
	hotattrs = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_ALL);
	keyattrs = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_KEY);
	if (logical)
		idattrs = NvmLogicalIdentity(rel);
	newtup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);
	slot->tts_tableOid = RelationGetRelid(rel);

retry:
	CHECK_FOR_INTERRUPTS();
	lockersXmax = InvalidTransactionId;
	lockersMask = lockersMask2 = 0;
	/* step 1: may we update the old version?  (its page stays locked) */
	result = NvmRowLockForModify(rel, dirIndex, otid, cid, crosscheck, wait, tmfd,
								 &oldtup, &page, &lock, "update", keyattrs, newtup,
								 &want, &tuplock);
	*lockmode = want == MultiXactStatusNoKeyUpdate ?
		LockTupleNoKeyExclusive : LockTupleExclusive;
	if (result != TM_Ok)
	{
		if (oldrow)
			heap_freetuple(oldrow);
		bms_free(keyattrs);
		bms_free(hotattrs);
		bms_free(idattrs);
		return result;
	}
	if (logical)
	{
		if (oldrow)
			heap_freetuple(oldrow);
		oldrow = NvmLogicalOldRow(rel, idattrs, &oldtup,
								  !NvmRowLockAttrsEqual(rel, idattrs, &oldtup, newtup));
	}

	/*
	 * The new xmax keeps the FOR KEY SHARE lockers of a row whose key stays;
	 * as in heap, they hold the new version as well.
	 */
	xmax = NvmRowLockNewXmax(oldtup.t_data, want, xid, &bits, &bits2, &lockers);

	/*
	 * A lock we hold ourselves stays on the new version as well (heap keeps
	 * it: INSERT ... ON CONFLICT DO UPDATE locks the row, then updates it,
	 * and RETURNING xmax shows the updater), with heap's bits.
	 */
	if (lockers)
	{
		lockersXmax = HeapTupleHeaderGetRawXmax(oldtup.t_data);
		NvmRowLockCarriedBits(lockersXmax, oldtup.t_data->t_infomask,
							  &lockersMask, &lockersMask2);
	}
	CheckForSerializableConflictIn(rel, otid, ItemPointerGetBlockNumber(otid));
	NvmVismapClear(rel, dirIndex, ItemPointerGetBlockNumber(otid),
				   VISIBILITYMAP_VALID_BITS);

	/*
	 * When no TOAST work is needed, the new version goes on the page of the
	 * old one if it fits there (as in heap), all while the page stays
	 * locked; if no indexed column changed it is a HOT update: a heap-only
	 * tuple that the indexes reach through the old one.  The new version and
	 * the old one's new xmax and ctid are one in-page log record
	 * (IplUpdateTuple): one drain, and a crash keeps both or neither.
	 */
	noToast = NvmModifyNoToastWork(&oldtup, newtup);
	hot = NvmRowLockAttrsEqual(rel, hotattrs, &oldtup, newtup);
	if (noToast)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(otid);
		OffsetNumber off;

		heaptup = NvmModifyPrepareInsert(rel, newtup, xid, cid, 0, NULL);
		Assert(heaptup == newtup);
		heaptup->t_data->t_infomask |= HEAP_UPDATED;
		NvmModifyCarryLockers(heaptup, lockersXmax, lockersMask, lockersMask2);
		if (hot)
			HeapTupleHeaderSetHeapOnly(heaptup->t_data);
		/* one record: the new version, and the old one's xmax and ctid */
		NvmRowLockSetXmax(&hdr, &oldtup, xmax, cid, bits, bits2, true);
		if (hot)
			hdr.t_infomask2 |= HEAP_HOT_UPDATED;
		/*
		 * A page without room is not pruned here, as heap does not: the
		 * new version goes to another page, and the old page is marked
		 * full for its next reader to prune (IplWriteMovedHeader).
		 */
		off = IplUpdateTuple(page, blkno, heaptup,
							 ItemPointerGetOffsetNumber(otid), &hdr);
		if (off != InvalidOffsetNumber)
		{
			LWLockRelease(lock);
			NvmRowLockReleaseTuple(rel, otid, &tuplock);
			return NvmModifyUpdated(rel, slot, newtup, heaptup, oldrow, hot,
									shouldFree, update_indexes, hotattrs, keyattrs,
									idattrs);
		}
		if (hot)
			HeapTupleHeaderClearHeapOnly(heaptup->t_data);
	}

	/*
	 * The new version goes to another page, and never two page locks at
	 * once: place it first, then mark and link the old version in one
	 * record (xmax and ctid) if nobody changed it meanwhile; the new version
	 * is invisible to everyone until then (its xmin is in progress, and this
	 * command does not see its own insertions).  If somebody did (a row
	 * lock, an update), the new version is super-deleted as an aborted
	 * speculative insertion is, and the update starts over, as if it had
	 * come after that change.  Nobody waits for us meanwhile, so a stream of
	 * lockers could make us start over and over: after a few tries the old
	 * version is marked first, as with TOAST work (below).
	 */
	if (noToast && ++tries <= NVM_UPDATE_PLACE_FIRST_TRIES)
	{
		memcpy(&seen, oldtup.t_data, SizeofHeapTupleHeader);
		LWLockRelease(lock);
		NvmModifyPlaceTuple(rel, dirIndex, heaptup, false, false, true);
		page = NvmRowLockPage(rel, dirIndex, otid, &oldtup, &lock, false);
		if (!NvmModifyHeaderSame(oldtup.t_data, &seen))
		{
			LWLockRelease(lock);
			NvmModifyKill(rel, dirIndex, &heaptup->t_self);
			NvmRowLockReleaseTuple(rel, otid, &tuplock);
			NvmPoolCountAdd(NVM_STAT_UPDATE_RETRIES, 1);
			goto retry;
		}

		/*
		 * A reader of the old version meanwhile saw it live: as heap checks
		 * after getting the new page, check again for a serializable reader
		 * (an ERROR leaves the new version to our abort).  A VACUUM may have
		 * found the page all-visible again.
		 */
		CheckForSerializableConflictIn(rel, otid, ItemPointerGetBlockNumber(otid));
		NvmVismapClear(rel, dirIndex, ItemPointerGetBlockNumber(otid),
					   VISIBILITYMAP_VALID_BITS);
		/* from the header as it is now: hint bits may have come, or freezing */
		NvmRowLockSetXmax(&hdr, &oldtup, xmax, cid, bits, bits2, true);
		hdr.t_ctid = heaptup->t_self;
		IplWriteMovedHeader(page, ItemPointerGetOffsetNumber(otid), &hdr,
							ItemPointerGetBlockNumber(&heaptup->t_self) !=
							ItemPointerGetBlockNumber(otid));
		LWLockRelease(lock);
		NvmRowLockReleaseTuple(rel, otid, &tuplock);
		return NvmModifyUpdated(rel, slot, newtup, heaptup, oldrow, false,
								shouldFree, update_indexes, hotattrs, keyattrs,
								idattrs);
	}

	NvmRowLockSetXmax(&hdr, &oldtup, xmax, cid, bits, bits2, true);
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(otid), &hdr);
	if (HeapTupleHasExternal(&oldtup))
		oldcopy = heap_copytuple(&oldtup);
	LWLockRelease(lock);
	/* the old version says "being updated by us" now: others wait for that */
	NvmRowLockReleaseTuple(rel, otid, &tuplock);

	/*
	 * Step 2: store the new version.  Until step 3 the old version says
	 * "updated by a transaction in progress" with ctid pointing to itself;
	 * anyone who wants to change it waits for us, and a crash leaves an
	 * update by a transaction that never committed.
	 */
	heaptup = NvmModifyPrepareInsert(rel, newtup, xid, cid, 0, oldcopy);
	heaptup->t_data->t_infomask |= HEAP_UPDATED;
	NvmModifyCarryLockers(heaptup, lockersXmax, lockersMask, lockersMask2);

	/*
	 * As heap_update after its TOAST work: the new version stays on the old
	 * one's page when it fits there, a HOT update if no indexed column
	 * changed (hot, decided on the values before TOAST); then the old
	 * version is linked to it in the same record.  Nobody changed the old
	 * version meanwhile: it says "being updated by us".
	 */
	page = NvmRowLockPage(rel, dirIndex, otid, &oldtup, &lock, false);
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(otid);
		OffsetNumber off;

		if (hot)
			HeapTupleHeaderSetHeapOnly(heaptup->t_data);
		memcpy(&hdr, oldtup.t_data, sizeof(hdr));
		if (hot)
			hdr.t_infomask2 |= HEAP_HOT_UPDATED;
		off = IplUpdateTuple(page, blkno, heaptup, ItemPointerGetOffsetNumber(otid),
							 &hdr);
		if (off != InvalidOffsetNumber)
		{
			LWLockRelease(lock);
			newtup->t_self = heaptup->t_self;
			ItemPointerCopy(&newtup->t_self, &newtup->t_data->t_ctid);
			if (oldcopy)
				heap_freetuple(oldcopy);
			result = NvmModifyUpdated(rel, slot, newtup, heaptup, oldrow, hot,
									  shouldFree, update_indexes, hotattrs,
									  keyattrs, idattrs);
			if (heaptup != newtup)
				heap_freetuple(heaptup);
			return result;
		}
		if (hot)
			HeapTupleHeaderClearHeapOnly(heaptup->t_data);
	}
	LWLockRelease(lock);
	NvmModifyPlaceTuple(rel, dirIndex, heaptup, false, false, true);
	newtup->t_self = heaptup->t_self;
	ItemPointerCopy(&newtup->t_self, &newtup->t_data->t_ctid);

	/* step 3: link the old version to the new one */
	page = NvmRowLockPage(rel, dirIndex, otid, &oldtup, &lock, false);
	memcpy(&hdr, oldtup.t_data, sizeof(hdr));
	hdr.t_ctid = newtup->t_self;
	IplWriteMovedHeader(page, ItemPointerGetOffsetNumber(otid), &hdr,
						ItemPointerGetBlockNumber(&newtup->t_self) !=
						ItemPointerGetBlockNumber(otid));
	LWLockRelease(lock);

	if (oldcopy)
		heap_freetuple(oldcopy);
	result = NvmModifyUpdated(rel, slot, newtup, heaptup, oldrow, false, shouldFree,
							  update_indexes, hotattrs, keyattrs, idattrs);
	if (heaptup != newtup)
		heap_freetuple(heaptup);
	return result;
}

/*
 * NvmModifyUpdated - an update is done: newtup (t_self set) is the slot's
 * new version, stored (newtup itself, or its copy with TOAST pointers) is
 * what was stored and what logical decoding gets, with the old row's
 * replica identity (oldrow); counts it and frees what the update
 * allocated (newtup when shouldFree, not stored).  Returns TM_Ok.
 */
static TM_Result
NvmModifyUpdated(Relation rel, TupleTableSlot *slot, HeapTuple newtup,
				 HeapTuple stored, HeapTuple oldrow, bool hot, bool shouldFree,
				 bool *update_indexes, Bitmapset *hotattrs, Bitmapset *keyattrs,
				 Bitmapset *idattrs)
{
	slot->tts_tid = newtup->t_self;
	*update_indexes = !hot;
	if (NvmLogicalWanted(rel))
		NvmLogicalLog(rel, NVM_LOGICAL_UPDATE, stored, oldrow, false);
	if (shouldFree)
		pfree(newtup);
	bms_free(hotattrs);
	bms_free(keyattrs);
	bms_free(idattrs);
	pgstat_count_heap_update(rel, hot);
	NvmPoolCountAdd(NVM_STAT_TUPLES_UPDATED, 1);
	if (hot)
		NvmPoolCountAdd(NVM_STAT_HOT_UPDATES, 1);
	return TM_Ok;
}

bool
NvmModifyNeedsToastTable(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int32		tuple_length = 0;
	bool		maxlength_unknown = false;
	bool		has_toastable = false;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		tuple_length = att_align_nominal(tuple_length, att->attalign);
		if (att->attlen > 0)
			tuple_length += att->attlen;
		else
		{
			int32		maxlen = type_maximum_size(att->atttypid, att->atttypmod);

			if (maxlen < 0)
				maxlength_unknown = true;
			else
				tuple_length += maxlen;
			if (att->attstorage != TYPSTORAGE_PLAIN)
				has_toastable = true;
		}
	}
	if (!has_toastable)
		return false;
	if (maxlength_unknown)
		return true;
	tuple_length = MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(desc->natts)) +
		MAXALIGN(tuple_length);
	return (Size) tuple_length > TOAST_TUPLE_THRESHOLD;
}

/*
 * NvmModifyPlaceTuple - store a prepared tuple in some page of the relation with
 * room for it, extending the relation when none has.  Sets tup->t_self.
 * With keepCtid the tuple's t_ctid (a speculative token) is kept as given.
 * The page this backend filled is sealed when it leaves it (IplSeal): an
 * inserter adds rows to it no more.  An update's new version leaving its
 * target page full (inserting false) seals it only when only tuples were
 * added to the page since it came to its frame, as when a bulk update
 * fills new pages at the end: when its rows were being changed, they go
 * on being changed, and a sealed page changed again moves back to a log
 * frame, two page writes for nothing (a YCSB-A run sealed a page at one
 * update in thirty).  Without useFsm (TABLE_INSERT_SKIP_FSM: storage new
 * in this transaction, whose free space map is empty) a full page is
 * followed by a new one, as in heap: asking the map costs a failed open()
 * of its missing fork per page (5 % of a COPY's samples).  Caller holds a
 * lock on the relation that allows inserts.
 */
void
NvmModifyPlaceTuple(Relation rel, int dirIndex, HeapTuple tup, bool keepCtid,
					bool inserting, bool useFsm)
{
	BlockNumber blkno;
	Size		len = MAXALIGN(tup->t_len);
	Size		targetFreeSpace;
	Size		reserve;

	NvmModifyCheckSize(tup);

	/*
	 * The fillfactor keeps part of each page free for later updates of its
	 * rows (HOT updates ignore it).  A tuple too big for a page that keeps
	 * that space goes to a nearly empty page instead, as in heap.
	 */
	targetFreeSpace = NvmModifyTargetFreeSpace(rel, len);
	reserve = targetFreeSpace - len;

	/* as heap's RelationGetBufferForTuple */
	blkno = NvmModifyFirstPage(rel, NvmPoolRelNBlocks(dirIndex), useFsm,
							   targetFreeSpace);

	for (;;)
	{
		while (blkno != InvalidBlockNumber)
		{
			LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
			OffsetNumber off;
			IplReadSource src;
			Page		page;
			Size		avail;
			BlockNumber cand;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			page = IplReadPage(dirIndex, blkno, &src);
			NvmScanCountChange(rel, src == IPL_READ_CACHED);
			off = IplAddTuple(page, blkno, tup, keepCtid, reserve);

			/*
			 * A page that took the tuple is not all-visible any more (still
			 * under the page lock, before any index entry can lead to the
			 * tuple); a full page keeps its bits.  A full page is not pruned
			 * here, as heap does not: its dead versions wait for the next
			 * reader (NvmPruneBeforeRead), and the tuple goes where heap
			 * would put it.
			 */
			if (off != InvalidOffsetNumber)
			{
				NvmVismapClear(rel, dirIndex, blkno, VISIBILITYMAP_VALID_BITS);
				LWLockRelease(lock);
				RelationSetTargetBlock(rel, blkno);
				return;
			}
			avail = PageGetHeapFreeSpace(IplGetPage(dirIndex, blkno));
			if (blkno == RelationGetTargetBlock(rel))
				IplSeal(dirIndex, blkno, !inserting);
			LWLockRelease(lock);

			/*
			 * The page is full: tell the free space map what it has, and ask
			 * it for a page with room, as often as it offers one.  FSM pages
			 * live in shared buffers: never consult it with a page lock held.
			 */
			if (!useFsm)
				break;
			cand = RecordAndGetPageWithFreeSpace(rel, blkno, avail, targetFreeSpace);
			blkno = (cand < NvmPoolRelNBlocks(dirIndex) && cand != blkno) ?
				cand : InvalidBlockNumber;
		}

		/*
		 * Extend, with a page of our own, as heap does.  Not the last page
		 * another backend just added: that is its target, and two backends
		 * inserting into one page wait for each other's page lock at every
		 * row (a fifth of the time of two clients' 100-row inserts went to
		 * waking each other).
		 */
		LockRelationForExtension(rel, ExclusiveLock);
		blkno = IplNewPage(dirIndex);
		NvmStorageExtended(RelationGetSmgr(rel), blkno);
		UnlockRelationForExtension(rel, ExclusiveLock);
	}
}
