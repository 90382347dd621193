/*-------------------------------------------------------------------------
 *
 * nvm_rewrite.c
 *	  The copy VACUUM FULL and CLUSTER make of an nvm_am table: every
 *	  version some transaction may still see (HeapTupleSatisfiesVacuum's
 *	  LIVE and RECENTLY_DEAD, against the OldestXmin the command computed)
 *	  goes to the new storage, in table order, in the order of the
 *	  clustering index, or sorted by it, as the planner chose.  Xmins older
 *	  than the freeze cutoff are frozen, lockers older than it go (as
 *	  heap's freezing lets them), aborted updaters are forgotten, and every
 *	  version gets index entries of its own (no HOT
 *	  chains in the copy).  Each version is formed anew from its columns,
 *	  as heap's copy forms it: columns added with a default since it was
 *	  written get that value in the copy, since the command then clears
 *	  the catalog's copy of it (RelationClearMissing), and dropped columns
 *	  become null.
 *
 *	  Update chains are kept, as heap's rewriteheap.c keeps them: a kept
 *	  version whose update committed points (t_ctid) to its successor's
 *	  place in the new table, so that a transaction whose snapshot predates
 *	  the command, and that then updates, deletes or locks the old version,
 *	  is told of a concurrent update rather than a delete, and can follow
 *	  the chain.  The successor's new place is known only once it is
 *	  written: an older version met first waits in memory for it (and is
 *	  written right after it, which is where heap puts it too); a successor
 *	  met first leaves its new place for the older version to find.  Both
 *	  tables are keyed on the successor's xmin and its place in the old
 *	  table.  A version still waiting at the end is written pointing to
 *	  itself; one whose successor turns out dead is dropped with it.
 *
 * Locks: the caller holds AccessExclusiveLock on the old table and on the
 * new one; the page operations take page locks one at a time.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "commands/progress.h"
#include "executor/tuptable.h"
#include "pgstat.h"
#include "storage/procarray.h"
#include "utils/backend_progress.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "nvm_am.h"

/* a newer version of a row: its xmin, its place in the old table */
typedef struct NvmRewriteKey
{
	TransactionId xmin;
	ItemPointerData tid;
} NvmRewriteKey;

/* NvmRewriteKeyOf - the key of the version with xmin at tid (old table) */
static inline NvmRewriteKey
NvmRewriteKeyOf(TransactionId xmin, ItemPointerData tid)
{
	NvmRewriteKey key;

	memset(&key, 0, sizeof(key));	/* no padding bytes in the hash */
	key.xmin = xmin;
	key.tid = tid;
	return key;
}

/* a newer version already written: where it went */
typedef struct NvmRewriteWritten
{
	NvmRewriteKey key;
	ItemPointerData newTid;
} NvmRewriteWritten;

/* an older version waiting for its successor (key) to be written */
typedef struct NvmRewriteWaiting
{
	NvmRewriteKey key;
	ItemPointerData oldTid;		/* its own place in the old table */
	HeapTuple	copy;
} NvmRewriteWaiting;

typedef struct NvmRewriteState
{
	Relation	newTable;
	int			newIndex;
	TransactionId oldestXmin;
	MemoryContext cxt;			/* the tables and the waiting copies */
	HTAB	   *written;		/* NvmRewriteWritten */
	HTAB	   *waiting;		/* NvmRewriteWaiting */
	int64		stored;			/* copies written, for the progress view */
} NvmRewriteState;

/*
 * NvmRewriteCopy - a surviving version tup of the old table, formed anew
 * for the new one as heap's rewrite forms it: every column of the new
 * table's descriptor, a column added since the row was written with the
 * value the catalog kept for it (the command clears those values once the
 * copy is done), a dropped column null.  With no dropped column in the
 * table and every column in the row, a plain copy (the same bytes).  Its
 * visibility fields are tup's, and its t_ctid and t_self still the old
 * table's.  Then xmins before
 * cutoff are frozen (so relfrozenxid may be cutoff), lockers before cutoff
 * and multixacts before cutoffMulti (or with members before cutoff) go as
 * heap's freezing lets them go (a multixact leaves its updater), aborted
 * updaters are forgotten, and the HOT flags of t_infomask2 dropped (every
 * version gets index entries of its own in the new table).
 * HEAP_KEYS_UPDATED stays with a kept updater that changed the key or
 * deleted the row: a FOR KEY SHARE lock (a foreign-key check) of a
 * snapshot older than the rewrite must still be told of the change.
 * heap's rewrite drops it with the HOT flags, and such a check then locks
 * the deleted row and passes: heap lets a REPEATABLE READ transaction
 * insert a child of a parent deleted before a VACUUM FULL
 * (specs/nvm_rewrite_key_flag.spec).  values and isnull have room for the
 * descriptor's columns.
 */
static HeapTuple
NvmRewriteCopy(HeapTuple tup, TupleDesc oldDesc, TupleDesc newDesc, bool dropped,
			   Datum *values, bool *isnull, TransactionId cutoff,
			   MultiXactId cutoffMulti)
{
	HeapTuple	copy;
	HeapTupleHeader t;
	bool		keyChanged;
	TransactionId upd;
	NvmXmaxFate fate;
	MultiXactId minMxid = cutoffMulti;	/* (what NvmVacuumXmaxFate lowers: */
	TransactionId frozenXid = cutoff;	/* unused, the cutoffs stand) */

	if (dropped || HeapTupleHeaderGetNatts(tup->t_data) < newDesc->natts)
	{
		heap_deform_tuple(tup, oldDesc, values, isnull);
		for (int i = 0; i < newDesc->natts; i++)
		{
			if (TupleDescAttr(newDesc, i)->attisdropped)
				isnull[i] = true;
		}
		copy = heap_form_tuple(newDesc, values, isnull);
		t = copy->t_data;
		memcpy(&t->t_choice.t_heap, &tup->t_data->t_choice.t_heap,
			   sizeof(HeapTupleFields));
		t->t_infomask &= ~HEAP_XACT_MASK;
		t->t_infomask |= tup->t_data->t_infomask & HEAP_XACT_MASK;
		t->t_ctid = tup->t_data->t_ctid;
	}
	else
	{
		/*
		 * Every column there and none dropped: forming the row anew would
		 * give the same bytes (tuples are formed by heap_form_tuple, which
		 * always lays values out alike), so a copy does, for 10 % less time
		 * (VACUUM FULL of 1 M rows)
		 */
		copy = heap_copytuple(tup);
		t = copy->t_data;
	}
	t->t_infomask2 &= ~HEAP2_XACT_MASK;
	copy->t_self = tup->t_self;
	keyChanged = !(t->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask) &&
		NvmRowLockUpdaterStatus(tup->t_data) == MultiXactStatusUpdate;

	if (TransactionIdIsNormal(HeapTupleHeaderGetRawXmin(t)) &&
		TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(t), cutoff) &&
		NvmCommitXidCommitted(HeapTupleHeaderGetRawXmin(t), NULL))
		HeapTupleHeaderSetXminFrozen(t);

	/*
	 * heap's freezing of the xmax (the cutoffs become the new table's
	 * relfrozenxid and relminmxid); an aborted updater the cutoff has not
	 * passed stays, hinted invalid, so that the copy waits for no
	 * successor (its version is not copied)
	 */
	fate = NvmVacuumXmaxFate(t, InvalidTransactionId, cutoff, cutoffMulti, &upd,
							 &minMxid, &frozenXid);
	NvmVacuumSetXmax(t, fate, upd);
	if (keyChanged && !(t->t_infomask & HEAP_XMAX_INVALID))
		t->t_infomask2 |= HEAP_KEYS_UPDATED;
	return copy;
}

/*
 * NvmRewriteStore - write a prepared copy to the new table, its long values
 * to the new table's TOAST table; with keepCtid its t_ctid as set, else
 * pointing to itself.  Returns its place.
 */
static ItemPointerData
NvmRewriteStore(NvmRewriteState *rw, HeapTuple copy, bool keepCtid)
{
	HeapTuple	stored = copy;
	ItemPointerData newTid;

	copy->t_tableOid = RelationGetRelid(rw->newTable);
	if (HeapTupleHasExternal(copy) || copy->t_len > TOAST_TUPLE_THRESHOLD)
		stored = heap_toast_insert_or_update(rw->newTable, copy, NULL,
											 HEAP_INSERT_SKIP_FSM | HEAP_INSERT_NO_LOGICAL);
	NvmModifyPlaceTuple(rw->newTable, rw->newIndex, stored, keepCtid, true, false);
	newTid = stored->t_self;
	if (stored != copy)
		heap_freetuple(stored);
	pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_WRITTEN, ++rw->stored);
	return newTid;
}

/*
 * NvmRewriteTuple - write copy (prepared; t_self its place in the old
 * table), keeping its update chain: an updated version waits for its
 * successor unless that is written already; a successor, once written,
 * lets the version waiting for it be written, and so on down the chain.
 * copy stays the caller's.
 */
static void
NvmRewriteTuple(NvmRewriteState *rw, HeapTuple copy)
{
	HeapTupleHeader t = copy->t_data;
	ItemPointerData oldTid = copy->t_self;
	bool		keepCtid = false;
	bool		found;
	HeapTuple	waited = NULL;	/* a copy from rw->waiting, written */

	if (!(t->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask) &&
		!HeapTupleHeaderIndicatesMovedPartitions(t) &&
		!ItemPointerEquals(&oldTid, &t->t_ctid))
	{
		NvmRewriteKey key = NvmRewriteKeyOf(HeapTupleHeaderGetUpdateXid(t), t->t_ctid);
		NvmRewriteWritten *next = hash_search(rw->written, &key, HASH_REMOVE, NULL);

		if (next == NULL)
		{
			/* the successor comes later: wait for it */
			MemoryContext old = MemoryContextSwitchTo(rw->cxt);
			NvmRewriteWaiting *w = hash_search(rw->waiting, &key, HASH_ENTER, &found);

			if (found)
				elog(ERROR, "two versions of a row in \"%s\" name one successor",
					 RelationGetRelationName(rw->newTable));
			w->oldTid = oldTid;
			w->copy = heap_copytuple(copy);
			MemoryContextSwitchTo(old);
			return;
		}
		/* (a removed entry stays readable until the next insertion) */
		t->t_ctid = next->newTid;
		keepCtid = true;
	}

	for (;;)
	{
		ItemPointerData newTid = NvmRewriteStore(rw, copy, keepCtid);
		NvmRewriteKey key;
		NvmRewriteWaiting *w;

		/*
		 * The successor in an update pair whose older version a snapshot
		 * may still see (its xmin, the older one's updater, is not before
		 * OldestXmin): write the older version now if it waits, else leave
		 * this version's place for it
		 */
		if (!(copy->t_data->t_infomask & HEAP_UPDATED) ||
			TransactionIdPrecedes(HeapTupleHeaderGetXmin(copy->t_data), rw->oldestXmin))
			break;
		key = NvmRewriteKeyOf(HeapTupleHeaderGetXmin(copy->t_data), oldTid);
		w = hash_search(rw->waiting, &key, HASH_REMOVE, NULL);
		if (w == NULL)
		{
			NvmRewriteWritten *mine = hash_search(rw->written, &key, HASH_ENTER, &found);

			mine->newTid = newTid;
			break;
		}
		if (waited != NULL)
			heap_freetuple(waited);
		copy = waited = w->copy;
		oldTid = w->oldTid;
		copy->t_data->t_ctid = newTid;
		keepCtid = true;
	}
	if (waited != NULL)
		heap_freetuple(waited);
}

/*
 * NvmRewriteDead - tup (in the old table) is dead to everyone: an older
 * version waiting for it as its successor is dead as well.  Returns
 * whether there was one (it is dropped).
 */
static bool
NvmRewriteDead(NvmRewriteState *rw, HeapTuple tup)
{
	NvmRewriteKey key = NvmRewriteKeyOf(HeapTupleHeaderGetXmin(tup->t_data), tup->t_self);
	NvmRewriteWaiting *w = hash_search(rw->waiting, &key, HASH_REMOVE, NULL);

	if (w == NULL)
		return false;
	heap_freetuple(w->copy);
	return true;
}

/*
 * NvmRewriteFinish - write the versions still waiting (their successors
 * never came: they point to themselves), and free the tables.
 */
static void
NvmRewriteFinish(NvmRewriteState *rw)
{
	HASH_SEQ_STATUS seq;
	NvmRewriteWaiting *w;

	hash_seq_init(&seq, rw->waiting);
	while ((w = hash_seq_search(&seq)) != NULL)
		NvmRewriteStore(rw, w->copy, false);
	MemoryContextDelete(rw->cxt);
}

/*
 * NvmRewriteCopyForCluster - VACUUM FULL and CLUSTER: copy the versions of
 * OldTable that some transaction may still see into NewTable, in the
 * order of OldIndex when given: read through the index, or (use_sort, as
 * the planner chose) read in table order and sorted, as heap does.
 * Caller holds AccessExclusiveLock on OldTable.
 */
void
NvmRewriteCopyForCluster(Relation OldTable, Relation NewTable,
						 Relation OldIndex, bool use_sort,
						 TransactionId OldestXmin,
						 TransactionId *xid_cutoff,
						 MultiXactId *multi_cutoff,
						 double *num_tuples,
						 double *tups_vacuumed,
						 double *tups_recently_dead)
{
	NvmRewriteState rw;
	HASHCTL		ctl;
	TupleTableSlot *slot = table_slot_create(OldTable, NULL);
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	Tuplesortstate *sort = NULL;
	HeapTuple	sorted;
	BlockNumber nblocks = NvmPoolRelNBlocks(NvmStorageRelDirIndex(OldTable));
	BlockNumber scannedBlocks = 0;
	int64		scannedTuples = 0;
	int			natts = Max(RelationGetDescr(OldTable)->natts,
							RelationGetDescr(NewTable)->natts);
	Datum	   *values = palloc(natts * sizeof(Datum));
	bool	   *isnull = palloc(natts * sizeof(bool));
	bool		dropped = false;	/* has the table dropped columns? */

	for (int i = 0; i < RelationGetDescr(NewTable)->natts; i++)
		dropped |= TupleDescAttr(RelationGetDescr(NewTable), i)->attisdropped;

	*num_tuples = *tups_vacuumed = *tups_recently_dead = 0;
	/* the command's horizon, as VACUUM's (old_snapshot_threshold) */
	NvmTupleKeepOldSnapshots(OldTable, &OldestXmin, xid_cutoff);
	NvmCommitBeforeWrite();

	memset(&rw, 0, sizeof(rw));
	rw.newTable = NewTable;
	rw.newIndex = NvmStorageRelDirIndex(NewTable);
	rw.oldestXmin = OldestXmin;
	rw.cxt = AllocSetContextCreate(CurrentMemoryContext, "nvm_am rewrite",
								   ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(NvmRewriteKey);
	ctl.hcxt = rw.cxt;
	ctl.entrysize = sizeof(NvmRewriteWritten);
	rw.written = hash_create("nvm_am rewrite: written successors", 128, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	ctl.entrysize = sizeof(NvmRewriteWaiting);
	rw.waiting = hash_create("nvm_am rewrite: waiting versions", 128, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	/* pg_stat_progress_cluster, as heap's copy reports it */
	if (OldIndex != NULL && !use_sort)
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_INDEX_SCAN_HEAP);
	else
	{
		const int	index[] = {PROGRESS_CLUSTER_PHASE, PROGRESS_CLUSTER_TOTAL_HEAP_BLKS};
		const int64 value[] = {PROGRESS_CLUSTER_PHASE_SEQ_SCAN_HEAP, nblocks};

		pgstat_progress_update_multi_param(2, index, value);
	}

	if (OldIndex != NULL && use_sort)
		sort = tuplesort_begin_cluster(RelationGetDescr(OldTable), OldIndex,
									   maintenance_work_mem, NULL, TUPLESORT_NONE);
	if (OldIndex != NULL && !use_sort)
	{
		iscan = index_beginscan(OldTable, OldIndex, SnapshotAny, 0, 0);
		index_rescan(iscan, NULL, 0, NULL, 0);
	}
	else
		tscan = table_beginscan(OldTable, SnapshotAny, 0, NULL);

	for (;;)
	{
		HeapTuple	tup;
		HeapTuple	copy;
		bool		shouldFree;

		CHECK_FOR_INTERRUPTS();
		if (iscan != NULL ? !index_getnext_slot(iscan, ForwardScanDirection, slot)
			: !table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			break;
		tup = ExecFetchSlotHeapTuple(slot, false, &shouldFree);
		pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_TUPLES_SCANNED, ++scannedTuples);
		if (tscan != NULL && ItemPointerGetBlockNumber(&tup->t_self) > scannedBlocks)
		{
			/* the blocks before this tuple's are done */
			scannedBlocks = ItemPointerGetBlockNumber(&tup->t_self);
			pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED, scannedBlocks);
		}
		switch (NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL))
		{
			case HEAPTUPLE_DEAD:
				*tups_vacuumed += 1;
				if (NvmRewriteDead(&rw, tup))
				{
					/* a recently dead version waiting for it is dead too */
					*tups_vacuumed += 1;
					*tups_recently_dead -= 1;
				}
				continue;
			case HEAPTUPLE_RECENTLY_DEAD:
				*tups_recently_dead += 1;
				break;
			default:
				*num_tuples += 1;
				break;
		}
		copy = NvmRewriteCopy(tup, RelationGetDescr(OldTable), RelationGetDescr(NewTable),
							  dropped, values, isnull, *xid_cutoff, *multi_cutoff);
		if (sort != NULL)
			tuplesort_putheaptuple(sort, copy);
		else
			NvmRewriteTuple(&rw, copy);
		heap_freetuple(copy);
	}
	if (iscan)
		index_endscan(iscan);
	if (tscan)
	{
		table_endscan(tscan);
		pgstat_progress_update_param(PROGRESS_CLUSTER_HEAP_BLKS_SCANNED, nblocks);
	}
	ExecDropSingleTupleTableSlot(slot);

	if (sort != NULL)
	{
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_SORT_TUPLES);
		tuplesort_performsort(sort);
		pgstat_progress_update_param(PROGRESS_CLUSTER_PHASE,
									 PROGRESS_CLUSTER_PHASE_WRITE_NEW_HEAP);
		while ((sorted = tuplesort_getheaptuple(sort, true)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			NvmRewriteTuple(&rw, sorted);
		}
		tuplesort_end(sort);
	}
	NvmRewriteFinish(&rw);
	pfree(values);
	pfree(isnull);
}
