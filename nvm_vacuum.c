/*-------------------------------------------------------------------------
 *
 * nvm_vacuum.c
 *	  VACUUM of nvm_am tables.  (VACUUM FULL and CLUSTER: nvm_rewrite.c.)
 *
 *	  Lazy VACUUM prunes every page the visibility map does not let it skip
 *	  (forced, with VACUUM's own OldestXmin as horizon), collects the dead line pointers, deletes their index
 *	  entries (index_bulk_delete), flushes WAL -- the index deletions are
 *	  in WAL while the line pointers are in the pool, and a crash must not
 *	  bring back index entries for a TID that was reused -- and only then
 *	  frees the line pointers.  It freezes xmins older than the freeze
 *	  limit, forgets finished lockers and aborted deleters, sets
 *	  relfrozenxid to the oldest xid left, marks the pages whose tuples
 *	  are all visible to everyone (and frozen) in the visibility map
 *	  (nvm_vismap.c), and records each page's free space in the free space
 *	  map.  As heap's, it skips runs of at least 32 pages the map calls
 *	  all-frozen, or, unless aggressive (or DISABLE_PAGE_SKIPPING),
 *	  all-visible, leaving relfrozenxid where it was when it skipped one
 *	  not frozen, and always looks at the table's last page (whether it
 *	  may be cut off).  Freezing looks at the raw xmax: hint bits are not
 *	  durable here.  Whether the indexes are vacuumed is decided as heap
 *	  decides it: INDEX_CLEANUP off / on / auto (the single pass skipped
 *	  for a handful of dead line pointers, which then stay), and the
 *	  wraparound failsafe.
 *
 * Locks: VACUUM's ShareUpdateExclusiveLock on the table; the page lock,
 * exclusively, while one page is pruned and frozen.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/storage.h"
#include "commands/progress.h"
#include "commands/dbcommands.h"
#include "commands/vacuum.h"
#include "executor/instrument.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/autovacuum.h"
#include "utils/backend_progress.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/pg_rusage.h"
#include "utils/timestamp.h"

#include "nvm_am.h"

/*
 * Index vacuuming, as heap's VACUUM decides it (PostgreSQL 15): INDEX_CLEANUP
 * off never removes index entries (dead line pointers stay until a VACUUM
 * that does); on always does; auto (the default) skips the index pass when
 * it would be the only one and fewer pages than NVM_BYPASS_PAGES_FRACTION
 * of the table's, rounded down as heap rounds it, have dead line pointers,
 * fewer than NVM_BYPASS_MAX_ITEMS of them
 * (the bulk-delete pass is then still followed by the indexes' cleanup).
 * The wraparound failsafe (vacuum_failsafe_age) stops index vacuuming,
 * index cleanup, truncation and the cost-based delay.
 */
#define NVM_BYPASS_PAGES_FRACTION	0.02
#define NVM_BYPASS_MAX_ITEMS	(32L * 1024L * 1024L / (long) sizeof(ItemPointerData))

typedef struct NvmVacuumIndexing
{
	bool		vacuum;			/* index entries of dead TIDs are removed */
	bool		cleanup;		/* the indexes' cleanup runs at the end */
	bool		considerBypass; /* auto: the single pass may be skipped */
	bool		failsafe;		/* the failsafe stopped both */
	BlockNumber lpdeadPages;	/* pages left with dead line pointers by pruning */
	int64		lpdeadItems;	/* and those line pointers */
} NvmVacuumIndexing;

/*
 * What VACUUM's report needs beyond its counts: the resources and WAL
 * used since the start, the removable cutoff, relfrozenxid and relminmxid
 * old and new, and a line per index (heap's lines, in heap's order).  As
 * heap's VACUUM, it measures resources and formats index lines only when
 * a report may be made (instrument: VERBOSE, or an autovacuum worker with
 * log_autovacuum_min_duration set).
 */
typedef struct NvmVacuumInstr
{
	bool		instrument;
	TimestampTz start;
	PGRUsage	ru0;
	WalUsage	walusage0;
	PgStat_Counter readtime0;
	PgStat_Counter writetime0;
	TransactionId OldestXmin;
	TransactionId frozenXid;
	TransactionId oldFrozenXid;
	bool		frozenXidUpdated;
	MultiXactId minMxid;
	MultiXactId oldMinMxid;
	bool		minMxidUpdated;
	StringInfoData indexLines;
} NvmVacuumInstr;

/* the dead TIDs one VACUUM collects, in TID order */
typedef struct NvmDeadTids
{
	ItemPointerData *tids;
	int64		n;
	int64		max;
} NvmDeadTids;

/* NvmVacuumTidKey - a TID as one number, ordered as the TIDs are */
static inline uint64
NvmVacuumTidKey(ItemPointer tid)
{
	return ((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
		ItemPointerGetOffsetNumberNoCheck(tid);
}

/* NvmVacuumDeadTidsAdd - add (blkno, off), after every TID d has */
static void
NvmVacuumDeadTidsAdd(NvmDeadTids *d, BlockNumber blkno, OffsetNumber off)
{
	if (d->n >= d->max)
	{
		d->max = Max(1024, d->max * 2);
		d->tids = d->tids ?
			repalloc_huge(d->tids, d->max * sizeof(ItemPointerData)) :
			palloc_extended(d->max * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	}
	/* ItemPointerSet is a macro that evaluates its pointer more than once */
	ItemPointerSet(&d->tids[d->n], blkno, off);
	/* in TID order, as NvmVacuumTidReaped's search needs */
	Assert(d->n == 0 || NvmVacuumTidKey(&d->tids[d->n - 1]) < NvmVacuumTidKey(&d->tids[d->n]));
	d->n++;
}

/*
 * NvmVacuumTidReaped - index_bulk_delete callback: is the entry's TID one
 * of the dead ones?  They are in TID order (collected page after page), so
 * a TID outside their range is answered at once, any other by a binary
 * search on their keys (called once per index entry: no comparison
 * function called through a pointer).
 */
static bool
NvmVacuumTidReaped(ItemPointer itemptr, void *state)
{
	NvmDeadTids *d = (NvmDeadTids *) state;
	uint64		key = NvmVacuumTidKey(itemptr);
	int64		lo = 0;
	int64		hi = d->n;

	if (d->n == 0 || key < NvmVacuumTidKey(&d->tids[0]) ||
		key > NvmVacuumTidKey(&d->tids[d->n - 1]))
		return false;
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		uint64		k = NvmVacuumTidKey(&d->tids[mid]);

		if (k == key)
			return true;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* NvmVacuumRelName - "database.schema.table", as heap's VACUUM names it */
static char *
NvmVacuumRelName(Relation rel)
{
	return psprintf("%s.%s.%s", get_database_name(MyDatabaseId),
					get_namespace_name(RelationGetNamespace(rel)),
					RelationGetRelationName(rel));
}

/*
 * NvmVacuumCharge - add one page to the cost-based vacuum delay's balance
 * (vacuum_cost_delay, autovacuum_vacuum_cost_delay), as heap's buffer
 * accesses do: a page examined costs vacuum_cost_page_hit (the pool is
 * memory; there is no miss), one VACUUM changed vacuum_cost_page_dirty
 * more.  vacuum_delay_point() sleeps when the balance reaches the limit.
 * The page counts as a hit (and dirtied) in the report's buffer usage too.
 */
static inline void
NvmVacuumCharge(bool dirtied)
{
	VacuumPageHit++;
	if (dirtied)
		VacuumPageDirty++;
	if (!VacuumCostActive)
		return;
	VacuumCostBalance += VacuumCostPageHit;
	if (dirtied)
		VacuumCostBalance += VacuumCostPageDirty;
}

/*
 * NvmVacuumDonePage - VACUUM is done with page blkno for now: set its bits
 * in the visibility map if all its tuples are visible to everyone (and
 * frozen) -- such a page gives its log frame back when log frames run
 * short (IplSettle) -- release its lock, and with recordFree record its
 * free space while VACUUM has it in hand (read again at the end, an image
 * merged from a log would be merged again).  Caller holds the page's lock
 * exclusively (lock) and pinned the map page (NvmVismapPin).
 */
static void
NvmVacuumDonePage(Relation rel, int dirIndex, BlockNumber blkno, LWLock *lock,
				  TransactionId OldestXmin, Buffer vmbuf, bool recordFree)
{
	Page		page = IplGetPage(dirIndex, blkno);
	Size		avail = PageGetHeapFreeSpace(page);
	uint8		flags = NvmVismapPageStatus(rel, page, blkno, OldestXmin);

	if (flags != 0)
	{
		NvmVismapSet(rel, dirIndex, blkno, vmbuf, flags);
		/* it stopped changing: its log frame may be wanted elsewhere */
		IplSettle(dirIndex, blkno);		/* (page may be unmapped now) */
	}
	LWLockRelease(lock);
	if (recordFree)
		RecordPageWithFreeSpace(rel, blkno, avail);
}

/*
 * NvmVacuumMultiKept - does the multixact xmax (with infomask) stay as it
 * is, by heap's rule (FreezeMultiXactId): running, or not older than
 * cutoffMulti and no member older than freezeLimit?  If so, lowers
 * *minMxid and *frozenXid to it and its oldest member.
 */
static bool
NvmVacuumMultiKept(MultiXactId xmax, uint16 infomask, bool running,
				   MultiXactId cutoffMulti, TransactionId freezeLimit,
				   MultiXactId *minMxid, TransactionId *frozenXid)
{
	MultiXactMember *members;
	int			n;
	TransactionId oldest = InvalidTransactionId;

	if (!running && MultiXactIdPrecedes(xmax, cutoffMulti))
		return false;
	n = GetMultiXactIdMembers(xmax, &members, false, HEAP_XMAX_IS_LOCKED_ONLY(infomask));
	for (int i = 0; i < n; i++)
	{
		if (!TransactionIdIsValid(oldest) || TransactionIdPrecedes(members[i].xid, oldest))
			oldest = members[i].xid;
	}
	if (n > 0)
		pfree(members);
	if (!running && (n <= 0 || TransactionIdPrecedes(oldest, freezeLimit)))
		return false;
	if (MultiXactIdPrecedes(xmax, *minMxid))
		*minMxid = xmax;
	if (TransactionIdIsNormal(oldest) && TransactionIdPrecedes(oldest, *frozenXid))
		*frozenXid = oldest;
	return true;
}

/*
 * NvmVacuumXmaxFate - heap's freezing rule for the raw xmax of the tuple
 * header t, which VACUUM and the copy of VACUUM FULL and CLUSTER
 * (nvm_rewrite.c) apply: NVM_XMAX_KEEP, it stays (a multixact
 * NvmVacuumMultiKept keeps, which lowers *minMxid and *frozenXid; a locker
 * freezeLimit has not passed; a committed or running updater);
 * NVM_XMAX_ABORTED, an aborted updater (one the hint calls invalid or
 * that did not commit, before abortedBefore or, with abortedBefore
 * invalid, not running) freezeLimit has not passed stays, as in heap, and
 * gets the hint that calls it invalid; NVM_XMAX_UPDATER, a multixact gives
 * way to its committed updater, *upd; NVM_XMAX_FORGET, nothing stays (a
 * multixact with nothing to keep, a locker or an aborted updater before
 * freezeLimit).  The raw xmax counts, whatever the hint bits say: nvm_am's
 * hint bits are not made durable, so after a crash a reader may have to
 * ask clog (or the multixact SLRU) about an xmax again, and relfrozenxid
 * must not have passed it.
 */
NvmXmaxFate
NvmVacuumXmaxFate(HeapTupleHeader t, TransactionId abortedBefore,
				  TransactionId freezeLimit, MultiXactId cutoffMulti,
				  TransactionId *upd, MultiXactId *minMxid, TransactionId *frozenXid)
{
	TransactionId xmax = HeapTupleHeaderGetRawXmax(t);
	bool		lockOnly = HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask);

	if (t->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		/*
		 * A finished multixact becomes its updater, or nothing, when heap's
		 * freezing would replace it (older than the multixact cutoff, or a
		 * member older than the freeze limit).  Otherwise it stays, as in
		 * heap: its members say more than one xid can (a FOR UPDATE lock
		 * beside an update that kept the key: a foreign-key check that
		 * follows the row's chain goes by the update, FOR KEY SHARE of this
		 * version by the lock), and the new relminmxid and relfrozenxid
		 * must not pass it and its members.  One the hint calls invalid has
		 * no member locking or updating any more.
		 */
		if (!(t->t_infomask & HEAP_XMAX_INVALID) && MultiXactIdIsValid(xmax) &&
			NvmVacuumMultiKept(xmax, t->t_infomask, MultiXactIdIsRunning(xmax, lockOnly),
							   cutoffMulti, freezeLimit, minMxid, frozenXid))
			return NVM_XMAX_KEEP;
		*upd = lockOnly || (t->t_infomask & HEAP_XMAX_INVALID) || !MultiXactIdIsValid(xmax) ?
			InvalidTransactionId : HeapTupleGetUpdateXid(t);
		return TransactionIdIsValid(*upd) && NvmCommitXidCommitted(*upd, NULL) ?
			NVM_XMAX_UPDATER : NVM_XMAX_FORGET;
	}
	if (!TransactionIdIsNormal(xmax))
		return NVM_XMAX_KEEP;
	if (lockOnly)
	{
		/* a locker stays until the freeze limit passes it, as in heap */
		return TransactionIdPrecedes(xmax, freezeLimit) ? NVM_XMAX_FORGET : NVM_XMAX_KEEP;
	}
	if ((TransactionIdIsValid(abortedBefore) ? TransactionIdPrecedes(xmax, abortedBefore) :
		 !TransactionIdIsInProgress(xmax)) &&
		((t->t_infomask & HEAP_XMAX_INVALID) || !NvmCommitXidCommitted(xmax, NULL)))
	{
		/* an aborted updater stays until the freeze limit passes it */
		return TransactionIdPrecedes(xmax, freezeLimit) ? NVM_XMAX_FORGET : NVM_XMAX_ABORTED;
	}
	return NVM_XMAX_KEEP;
}

/*
 * NvmVacuumSetXmax - write into the tuple header hdr the xmax that fate,
 * from NvmVacuumXmaxFate with its updater upd, leaves: the aborted xmax
 * hinted invalid (NVM_XMAX_ABORTED), upd as a plain xmax
 * (NVM_XMAX_UPDATER) or none (NVM_XMAX_FORGET, which drops the flags of
 * an update too, as heap's freezing does; the ctid stays, pointing where
 * the update went even when that version is gone: nobody follows the ctid
 * of a row without xmax).  Returns whether hdr changed.  The caller's
 * copy of a header, written back by the caller.
 */
bool
NvmVacuumSetXmax(HeapTupleHeader hdr, NvmXmaxFate fate, TransactionId upd)
{
	if (fate == NVM_XMAX_KEEP)
		return false;
	if (fate == NVM_XMAX_ABORTED)
	{
		if (hdr->t_infomask & HEAP_XMAX_INVALID)
			return false;
		hdr->t_infomask |= HEAP_XMAX_INVALID;
		return true;
	}
	hdr->t_infomask &= ~HEAP_XMAX_BITS;
	if (fate == NVM_XMAX_FORGET)
	{
		hdr->t_infomask |= HEAP_XMAX_INVALID;
		hdr->t_infomask2 &= ~(HEAP_HOT_UPDATED | HEAP_KEYS_UPDATED);
		upd = InvalidTransactionId;
	}
	HeapTupleHeaderSetXmax(hdr, upd);
	return true;
}

/*
 * NvmVacuumPage - prune one page, collect its dead line pointers, count
 * and freeze its tuples.  *removed gains the tuples the prune removed,
 * *frozenXid is lowered to the oldest xid left unfrozen, *minMxid to the
 * oldest multixact left (MultiXactCutoff: heap's rule for which go).
 *
 * Pruning uses VACUUM's OldestXmin, the horizon the freeze limit comes
 * from, so that every version OldestXmin calls dead is gone before anything
 * is frozen.  Should one stay (the pool had no frame for the pruned page),
 * nothing on the page is frozen: freezing the successor of a version that
 * is still on the page would let pruning see two chains where there is one
 * (heap's lazy_scan_prune prunes again for the same reason).
 *
 * *hasTuples is set when a tuple or a redirect is left on the page after
 * the prune (heap's hastup: dead line pointers alone do not count), which
 * tells VACUUM where the table's rows end (NvmVacuumTruncate).
 *
 * With freeNow (a table without indexes: no index entry can point to a
 * dead line pointer) the page's dead line pointers are freed at once, as
 * heap's VACUUM does for such a table, instead of being collected for a
 * second pass that would merge the page again; returns how many were
 * freed (0 otherwise).
 *
 * The page's free space goes to the free space map now, unless dead line
 * pointers of the page wait for an index pass (indexPass): the second pass
 * records it then, as heap's does; should the pass be bypassed after all
 * (a handful of such pages), the map keeps what it had, as heap's keeps it.
 */
static int
NvmVacuumPage(Relation rel, int dirIndex, BlockNumber blkno,
			  TransactionId OldestXmin, TransactionId FreezeLimit,
			  MultiXactId MultiXactCutoff, MultiXactId *minMxid, bool freeNow,
			  bool indexPass, NvmDeadTids *dead, int64 *removed, double *live, double *deadrows,
			  TransactionId *frozenXid, Buffer *vmbuf, bool *hasTuples)
{
	LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
	Page		page;
	OffsetNumber maxoff;
	bool		mayFreeze = true;
	bool		dirtied;
	HTSV_Result status[MaxHeapTuplesPerPage + 1];
	OffsetNumber unused[MaxHeapTuplesPerPage];
	int			nunused = 0;
	int			ndeleted;
	int64		deadBefore = dead->n;

	NvmVismapPin(rel, blkno, vmbuf);
	LWLockAcquire(lock, LW_EXCLUSIVE);
	dirtied = NvmPrunePage(rel, dirIndex, blkno, true, OldestXmin, &ndeleted);
	*removed += ndeleted;
	page = IplGetPage(dirIndex, blkno);
	maxoff = PageGetMaxOffsetNumber(page);
	*hasTuples = false;
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (ItemIdIsNormal(lp) || ItemIdIsRedirected(lp))
			*hasTuples = true;
		if (ItemIdIsDead(lp))
		{
			if (freeNow)
				unused[nunused++] = off;
			else
				NvmVacuumDeadTidsAdd(dead, blkno, off);
			continue;
		}
		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		status[off] = NvmTupleSatisfiesVacuum(&tup, OldestXmin, NULL);
		switch (status[off])
		{
			case HEAPTUPLE_DEAD:
				mayFreeze = false;
				*deadrows += 1;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				/*
				 * not counted (as heap's): the inserter's commit will count
				 * it; a delete in progress counts as live, as it is until
				 * the deleter commits and counts it dead
				 */
				break;
			default:
				*live += 1;
				break;
		}
	}
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		HeapTupleHeader t;
		TransactionId xmin;
		TransactionId xmax;
		TransactionId upd;
		NvmXmaxFate fate;
		bool		change = false;
		HeapTupleHeaderData hdr;

		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);

		/* freeze what is older than the freeze limit */
		t = tup.t_data;
		memcpy(&hdr, t, sizeof(hdr));
		xmin = HeapTupleHeaderGetRawXmin(t);
		if (mayFreeze && !HeapTupleHeaderXminFrozen(t) && TransactionIdIsNormal(xmin) &&
			(t->t_infomask & HEAP_XMIN_COMMITTED) &&
			TransactionIdPrecedes(xmin, FreezeLimit))
		{
			HeapTupleHeaderSetXminFrozen(&hdr);
			change = true;
		}

		/*
		 * heap's freezing of the xmax: an aborted deleter OldestXmin has
		 * passed stays, hinted invalid, until the freeze limit passes it
		 */
		fate = NvmVacuumXmaxFate(t, OldestXmin, FreezeLimit, MultiXactCutoff, &upd,
								 minMxid, frozenXid);
		if (NvmVacuumSetXmax(&hdr, fate, upd))
			change = true;
		if (change)
		{
			IplWriteTupleHeader(page, off, &hdr);
			dirtied = true;
		}

		/* what the new relfrozenxid must not pass */
		if (!HeapTupleHeaderXminFrozen(&hdr) && TransactionIdIsNormal(xmin) &&
			TransactionIdPrecedes(xmin, *frozenXid))
			*frozenXid = xmin;
		xmax = HeapTupleHeaderGetRawXmax(&hdr);
		if (!(hdr.t_infomask & HEAP_XMAX_IS_MULTI) &&
			TransactionIdIsNormal(xmax) && TransactionIdPrecedes(xmax, *frozenXid))
			*frozenXid = xmax;
	}
	if (nunused > 0)
	{
		IplSetUnused(page, unused, nunused);
		dirtied = true;
	}
	NvmVacuumDonePage(rel, dirIndex, blkno, lock, OldestXmin, *vmbuf,
					  !(indexPass && dead->n > deadBefore));
	NvmVacuumCharge(dirtied);
	return nunused;
}

/*
 * NvmVacuumFreeDeadTids - free the dead line pointers collected by VACUUM; their
 * index entries are gone.  A page left with visible tuples only is marked
 * so in the visibility map; the free space map gets the page's free space
 * again.  *vacuumed counts the pages (progress view).
 */
static void
NvmVacuumFreeDeadTids(Relation rel, int dirIndex, NvmDeadTids *dead,
					  TransactionId OldestXmin, Buffer *vmbuf, int64 *vacuumed)
{
	int64		i = 0;

	while (i < dead->n)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&dead->tids[i]);
		OffsetNumber offs[MaxHeapTuplesPerPage];
		int			n = 0;
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);

		while (i < dead->n && ItemPointerGetBlockNumber(&dead->tids[i]) == blkno &&
			   n < MaxHeapTuplesPerPage)
		{
			/* (the ItemPointer macros evaluate their argument twice) */
			offs[n++] = ItemPointerGetOffsetNumber(&dead->tids[i]);
			i++;
		}
		NvmVismapPin(rel, blkno, vmbuf);
		LWLockAcquire(lock, LW_EXCLUSIVE);
		IplSetUnused(IplGetPage(dirIndex, blkno), offs, n);
		NvmVacuumDonePage(rel, dirIndex, blkno, lock, OldestXmin, *vmbuf, true);
		NvmVacuumCharge(true);
		pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_VACUUMED,
									 ++(*vacuumed));
		vacuum_delay_point();
	}
}

/*
 * NvmVacuumIndexInfo - what index AMs are told of the table: live rows,
 * counted, or estimated when VACUUM skipped pages.
 */
static void
NvmVacuumIndexInfo(IndexVacuumInfo *ivinfo, Relation index, double live,
				   bool estimated, BufferAccessStrategy bstrategy)
{
	ivinfo->index = index;
	ivinfo->analyze_only = false;
	ivinfo->report_progress = false;
	ivinfo->estimated_count = estimated;
	ivinfo->message_level = DEBUG2;
	ivinfo->num_heap_tuples = live;
	ivinfo->strategy = bstrategy;
}

/*
 * NvmVacuumIndexPass - remove the index entries of the dead TIDs collected
 * so far, then free their line pointers; *passes counts the index passes,
 * *vacuumed the pages whose line pointers were freed and *deadItems those
 * line pointers.  Index AMs are
 * told the table's last row count, estimated, as heap's VACUUM tells them.
 */
static void
NvmVacuumIndexPass(Relation rel, int dirIndex, Relation *Irel, int nindexes,
				   IndexBulkDeleteResult **istats, double live,
				   BufferAccessStrategy bstrategy, NvmDeadTids *dead,
				   TransactionId OldestXmin, Buffer *vmbuf, int *passes,
				   int64 *vacuumed, int64 *deadItems)
{
	*deadItems += dead->n;
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_VACUUM_INDEX);
	for (int i = 0; i < nindexes; i++)
	{
		IndexVacuumInfo ivinfo;

		NvmVacuumIndexInfo(&ivinfo, Irel[i], live, true, bstrategy);
		istats[i] = index_bulk_delete(&ivinfo, istats[i], NvmVacuumTidReaped, dead);
	}

	/*
	 * The index deletions are in WAL, the line pointers in the pool: make the
	 * former durable before a line pointer can be reused, or a crash could
	 * bring back index entries pointing to someone else's row.
	 * (XactLastRecEnd is the end of the last WAL record this backend wrote:
	 * the index deletions.)
	 */
	XLogFlush(XactLastRecEnd);
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_VACUUM_HEAP);
	NvmVacuumFreeDeadTids(rel, dirIndex, dead, OldestXmin, vmbuf, vacuumed);
	dead->n = 0;
	pgstat_progress_update_param(PROGRESS_VACUUM_NUM_INDEX_VACUUMS, ++(*passes));
	pgstat_progress_update_param(PROGRESS_VACUUM_NUM_DEAD_TUPLES, 0);
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_SCAN_HEAP);
}

/*
 * NvmVacuumFailsafe - has the table's relfrozenxid or relminmxid grown so
 * old (vacuum_failsafe_age, vacuum_multixact_failsafe_age) that VACUUM
 * must only freeze?  Then index vacuuming, index cleanup, truncation and
 * the cost-based delay stop for the rest of this VACUUM, as in heap's.
 */
static bool
NvmVacuumFailsafe(Relation rel, NvmVacuumIndexing *ix, int indexScans)
{
	if (ix->failsafe)
		return true;
	if (!vacuum_xid_failsafe_check(rel->rd_rel->relfrozenxid, rel->rd_rel->relminmxid))
		return false;
	ix->failsafe = true;
	ix->vacuum = false;
	ix->cleanup = false;
	VacuumCostActive = false;
	VacuumCostBalance = 0;
	ereport(WARNING,
			(errmsg("skipping index vacuuming and truncation of table \"%s\" as a failsafe against transaction ID wraparound, after %d index scans",
					NvmVacuumRelName(rel), indexScans),
			 errdetail("The relfrozenxid or relminmxid of the table is older than vacuum_failsafe_age or vacuum_multixact_failsafe_age."),
			 errhint("Let this VACUUM finish freezing; a later VACUUM removes the index entries of dead rows.")));
	return true;
}

/*
 * NvmVacuumDeadTidsDone - the dead TIDs collected so far are dealt with:
 * by an index pass, or forgotten (the line pointers stay dead) when index
 * vacuuming is off, bypassed (last: the end of the scan, and no pass ran
 * yet) or stopped by the failsafe.  (A table without indexes collects
 * none: NvmVacuumPage frees its dead line pointers at once.)
 */
static void
NvmVacuumDeadTidsDone(Relation rel, int dirIndex, Relation *Irel, int nindexes,
					  IndexBulkDeleteResult **istats, BufferAccessStrategy bstrategy,
					  NvmDeadTids *dead, TransactionId OldestXmin, Buffer *vmbuf,
					  NvmVacuumIndexing *ix, bool last, BlockNumber nblocks,
					  int *indexScans, int64 *vacuumed, int64 *deadItems)
{
	BlockNumber threshold = (BlockNumber) (nblocks * NVM_BYPASS_PAGES_FRACTION);

	Assert(nindexes > 0);
	if (ix->vacuum && last && ix->considerBypass &&
		ix->lpdeadPages < threshold &&
		ix->lpdeadItems < NVM_BYPASS_MAX_ITEMS)
		ix->vacuum = false;		/* so few: as if there were none */
	ix->considerBypass = false;
	if (ix->vacuum && !NvmVacuumFailsafe(rel, ix, *indexScans))
		NvmVacuumIndexPass(rel, dirIndex, Irel, nindexes, istats, rel->rd_rel->reltuples,
						   bstrategy, dead, OldestXmin, vmbuf, indexScans, vacuumed,
						   deadItems);
	else
		dead->n = 0;
}

/*
 * NvmVacuumNonEmptyPages - the number of blocks up to and including the
 * last one, below nblocks, that has a line pointer in use.  Takes each
 * page's lock shared.
 */
static BlockNumber
NvmVacuumNonEmptyPages(int dirIndex, BlockNumber nblocks)
{
	while (nblocks > 0)
	{
		BlockNumber blkno = nblocks - 1;
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
		Page		page;
		bool		used = false;

		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		for (OffsetNumber off = FirstOffsetNumber;
			 off <= PageGetMaxOffsetNumber(page) && !used; off++)
			used = ItemIdIsUsed(PageGetItemId(page, off));
		LWLockRelease(lock);
		if (used)
			break;
		nblocks--;
	}
	return nblocks;
}

/*
 * NvmVacuumTruncate - cut off the empty pages at the end of the table, as
 * heap's VACUUM does, unless the TRUNCATE option or the vacuum_truncate
 * storage parameter says no, or too few pages may go (fewer than
 * NVM_TRUNCATE_MINIMUM and than a NVM_TRUNCATE_FRACTION-th of the table).
 * What may go is decided as heap decides it: the pages after nonEmpty, the
 * last page the scan found rows on (pages it skipped count as empty: after
 * a VACUUM that skipped all but an empty last page, heap tries, and cuts
 * that page off); then, under the lock, the pages really empty go.
 * It needs AccessExclusiveLock, and tries to get it for a few seconds
 * only: other sessions are not kept waiting for it.  Returns the table's
 * number of blocks afterwards.  Caller holds VACUUM's lock on the table.
 */
#define NVM_TRUNCATE_MINIMUM	1000
#define NVM_TRUNCATE_FRACTION	16
#define NVM_TRUNCATE_LOCK_TRIES	100		/* 50 ms apart */

static BlockNumber
NvmVacuumTruncate(Relation rel, int dirIndex, struct VacuumParams *params,
				  BlockNumber nblocks, BlockNumber nonEmpty, bool failsafe)
{
	BlockNumber keep;
	BlockNumber freeable;
	int			tries = 0;

	if (params->truncate == VACOPTVALUE_DISABLED || failsafe)
		return nblocks;
	freeable = nblocks - Min(nonEmpty, nblocks);
	if (freeable == 0 ||
		(freeable < NVM_TRUNCATE_MINIMUM &&
		 freeable < nblocks / NVM_TRUNCATE_FRACTION))
		return nblocks;
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_TRUNCATE);
	while (!ConditionalLockRelation(rel, AccessExclusiveLock))
	{
		if (++tries >= NVM_TRUNCATE_LOCK_TRIES)
			return nblocks;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(50 * 1000L);
	}

	/* inserts may have used or added pages before we got the lock */
	nblocks = NvmPoolRelNBlocks(dirIndex);
	keep = NvmVacuumNonEmptyPages(dirIndex, nblocks);
	if (keep < nblocks)
	{
		SMgrRelation smgr = RelationGetSmgr(rel);

		NvmXlogRelTruncate(dirIndex, keep);

		/*
		 * The relation file's size and its free space map follow.  The file
		 * is sized along with the table (NvmStorageExtended) but not made
		 * durable with it: after a crash it may be shorter than the table,
		 * and RelationTruncate refuses (in a critical section) to truncate
		 * a file to more blocks than it has.
		 */
		if (keep > 0 && smgrnblocks(smgr, MAIN_FORKNUM) < keep)
			NvmStorageExtended(smgr, keep - 1);
		RelationTruncate(rel, keep);
		nblocks = keep;
	}
	UnlockRelation(rel, AccessExclusiveLock);
	return nblocks;
}

/*
 * VACUUM skips only runs of at least this many pages it may skip, as heap's
 * (SKIP_PAGES_THRESHOLD in vacuumlazy.c): an all-visible page is cheap to
 * look at, and a VACUUM that skipped one not frozen cannot advance
 * relfrozenxid.
 */
#define NVM_SKIP_PAGES_THRESHOLD	32

/*
 * NvmVacuumNextUnskippable - the first block from "from" on that VACUUM must
 * look at (from itself when skipping is off).  As heap's: a page the
 * visibility map calls all-frozen has nothing for VACUUM to do, and one it
 * calls all-visible only old xids to freeze, which a VACUUM that is not
 * aggressive leaves for later.  *skipRun says whether the pages before the
 * returned block are a run long enough to skip; when it is and holds a
 * page not frozen, *skippedUnfrozen is set.  A page changed after the map
 * was read has only tuples newer than OldestXmin, which this VACUUM could
 * not remove or freeze either.  Caller holds no page lock.
 */
static BlockNumber
NvmVacuumNextUnskippable(Relation rel, BlockNumber from, BlockNumber nblocks,
						 bool skipping, bool aggressive, Buffer *vmbuf,
						 bool *skipRun, bool *skippedUnfrozen)
{
	BlockNumber blkno = from;
	bool		unfrozen = false;

	for (; skipping && blkno < nblocks; blkno++)
	{
		uint8		status = visibilitymap_get_status(rel, blkno, vmbuf);

		if (status & VISIBILITYMAP_ALL_FROZEN)
			continue;
		if (aggressive || !(status & VISIBILITYMAP_ALL_VISIBLE))
			break;
		unfrozen = true;
	}
	*skipRun = blkno - from >= NVM_SKIP_PAGES_THRESHOLD;
	if (*skipRun && unfrozen)
		*skippedUnfrozen = true;
	return blkno;
}

/*
 * NvmVacuumMaxDead - how many dead TIDs VACUUM collects before an index
 * pass, sized as heap's VACUUM sizes its array (pg_stat_progress_vacuum
 * shows it as max_dead_tuples): what autovacuum_work_mem (in an
 * autovacuum worker, when set) or maintenance_work_mem holds after heap's
 * 8-byte array header, no more than 1 GB of them or than nblocks pages can
 * have, at least one page's worth; one page's worth for a table without
 * indexes, whose dead line pointers are freed page by page.
 */
static int64
NvmVacuumMaxDead(BlockNumber nblocks, int nindexes)
{
	int			workMem = IsAutoVacuumWorkerProcess() && autovacuum_work_mem != -1 ?
		autovacuum_work_mem : maintenance_work_mem;
	int64		n;

	if (nindexes == 0)
		return MaxHeapTuplesPerPage;
	n = ((int64) workMem * 1024 - 2 * sizeof(int)) / (int64) sizeof(ItemPointerData);
	n = Min(n, (int64) (MaxAllocSize / sizeof(ItemPointerData)));
	n = Min(n, (int64) nblocks * MaxHeapTuplesPerPage);
	return Max(n, MaxHeapTuplesPerPage);
}

/* NvmVacuumPercent - pages as a percentage of the table's (100 when empty) */
static double
NvmVacuumPercent(BlockNumber pages, BlockNumber total)
{
	return total == 0 ? 100.0 : 100.0 * pages / total;
}

/*
 * NvmVacuumReport - VACUUM VERBOSE's report, and autovacuum's log line when
 * it ran longer than log_autovacuum_min_duration: heap's lines in heap's
 * order, so that what reads heap's reports reads these (buffer usage counts
 * the table's pages as hits, read once each, and the indexes' buffers).
 */
static void
NvmVacuumReport(Relation rel, struct VacuumParams *params, NvmVacuumInstr *instr,
				int indexScans, BlockNumber origBlocks, BlockNumber nblocks,
				BlockNumber scanned, int64 removed, double live, double deadrows,
				int64 deadItems, const NvmVacuumIndexing *ix, bool aggressive)
{
	int			elevel;
	StringInfoData buf;
	const char *what;
	WalUsage	walusage;
	long		secs;
	int			usecs;
	double		elapsed;

	if (!instr->instrument)
		return;
	if (params->options & VACOPT_VERBOSE)
		elevel = INFO;
	else if (TimestampDifferenceExceeds(instr->start, GetCurrentTimestamp(),
										params->log_min_duration))
		elevel = LOG;
	else
		return;
	initStringInfo(&buf);
	if (!IsAutoVacuumWorkerProcess())
		what = "finished vacuuming";
	else if (aggressive)
		what = params->is_wraparound ?
			"automatic aggressive vacuum to prevent wraparound of table" :
			"automatic aggressive vacuum of table";
	else
		what = params->is_wraparound ?
			"automatic vacuum to prevent wraparound of table" :
			"automatic vacuum of table";
	appendStringInfo(&buf, "%s \"%s\": index scans: %d\n", what,
					 NvmVacuumRelName(rel), indexScans);
	appendStringInfo(&buf, "pages: %u removed, %u remain, %u scanned (%.2f%% of total)\n",
					 origBlocks > nblocks ? origBlocks - nblocks : 0, nblocks, scanned,
					 NvmVacuumPercent(scanned, origBlocks));
	appendStringInfo(&buf, "tuples: %lld removed, %.0f remain, %.0f are dead but not yet removable\n",
					 (long long) removed, live, deadrows);
	appendStringInfo(&buf, "removable cutoff: %u, which was %d XIDs old when operation ended\n",
					 instr->OldestXmin, (int32) (ReadNextTransactionId() - instr->OldestXmin));
	if (instr->frozenXidUpdated)
		appendStringInfo(&buf, "new relfrozenxid: %u, which is %d XIDs ahead of previous value\n",
						 instr->frozenXid, (int32) (instr->frozenXid - instr->oldFrozenXid));
	if (instr->minMxidUpdated)
		appendStringInfo(&buf, "new relminmxid: %u, which is %d MXIDs ahead of previous value\n",
						 instr->minMxid, (int32) (instr->minMxid - instr->oldMinMxid));
	/* the dead line pointers pruning left, and what became of them */
	if (ix->vacuum)
		appendStringInfo(&buf, "index scan %s: %u pages from table (%.2f%% of total) had %lld dead item identifiers removed\n",
						 indexScans > 0 ? "needed" : "not needed", ix->lpdeadPages,
						 NvmVacuumPercent(ix->lpdeadPages, origBlocks), (long long) deadItems);
	else
		appendStringInfo(&buf, "index scan bypassed%s: %u pages from table (%.2f%% of total) have %lld dead item identifiers\n",
						 ix->failsafe ? " by failsafe" : "", ix->lpdeadPages,
						 NvmVacuumPercent(ix->lpdeadPages, origBlocks), (long long) ix->lpdeadItems);
	appendBinaryStringInfo(&buf, instr->indexLines.data, instr->indexLines.len);
	if (track_io_timing)
		appendStringInfo(&buf, "I/O timings: read: %.3f ms, write: %.3f ms\n",
						 (double) (pgStatBlockReadTime - instr->readtime0) / 1000,
						 (double) (pgStatBlockWriteTime - instr->writetime0) / 1000);
	TimestampDifference(instr->start, GetCurrentTimestamp(), &secs, &usecs);
	elapsed = secs + usecs / 1000000.0;
	appendStringInfo(&buf, "avg read rate: %.3f MB/s, avg write rate: %.3f MB/s\n",
					 elapsed > 0 ? (double) BLCKSZ * VacuumPageMiss / (1024 * 1024) / elapsed : 0.0,
					 elapsed > 0 ? (double) BLCKSZ * VacuumPageDirty / (1024 * 1024) / elapsed : 0.0);
	appendStringInfo(&buf, "buffer usage: %lld hits, %lld misses, %lld dirtied\n",
					 (long long) VacuumPageHit, (long long) VacuumPageMiss,
					 (long long) VacuumPageDirty);
	memset(&walusage, 0, sizeof(walusage));
	WalUsageAccumDiff(&walusage, &pgWalUsage, &instr->walusage0);
	appendStringInfo(&buf, "WAL usage: %lld records, %lld full page images, %llu bytes\n",
					 (long long) walusage.wal_records, (long long) walusage.wal_fpi,
					 (unsigned long long) walusage.wal_bytes);
	appendStringInfo(&buf, "system usage: %s", pg_rusage_show(&instr->ru0));
	ereport(elevel, (errmsg_internal("%s", buf.data)));
	pfree(buf.data);
}

/*
 * NvmVacuumRelation - lazy VACUUM: prune every page the visibility map does
 * not let it skip, remove the index entries of dead line pointers and then
 * free the line pointers, freeze old tuples, and advance relfrozenxid to
 * the oldest xid left when no page with unfrozen tuples was skipped.
 */
void
NvmVacuumRelation(Relation rel, struct VacuumParams *params,
				  BufferAccessStrategy bstrategy)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	BlockNumber nblocks = NvmPoolRelNBlocks(dirIndex);
	BlockNumber origBlocks = nblocks;
	BlockNumber scanned = 0;
	TransactionId OldestXmin;
	TransactionId FreezeLimit;
	MultiXactId OldestMxact;
	MultiXactId MultiXactCutoff;
	TransactionId frozenXid;
	NvmDeadTids dead = {0};
	int64		removed = 0;
	double		live = 0;
	double		deadrows = 0;
	double		remain;
	int64		deadItems = 0;
	int			indexScans = 0;
	NvmVacuumIndexing ix = {
		.vacuum = params->index_cleanup != VACOPTVALUE_DISABLED,
		.cleanup = params->index_cleanup != VACOPTVALUE_DISABLED,
		.considerBypass = params->index_cleanup == VACOPTVALUE_AUTO,
	};
	int64		vacuumedPages = 0;
	Relation   *Irel = NULL;
	int			nindexes = 0;
	IndexBulkDeleteResult **istats;
	Buffer		vmbuf = InvalidBuffer;
	BlockNumber allVisible;
	bool		aggressive;
	bool		skipping = (params->options & VACOPT_DISABLE_PAGE_SKIPPING) == 0;
	bool		skippedUnfrozen = false;
	bool		skipRange;
	BlockNumber nextScan;
	BlockNumber nonEmpty = 0;	/* last page scanned with rows, plus one */
	bool		hasTuples;
	NvmVacuumInstr instr;
	int64		deadBefore;
	int			freed;
	int64		maxDead;

	instr.instrument = (params->options & VACOPT_VERBOSE) != 0 ||
		(IsAutoVacuumWorkerProcess() && params->log_min_duration >= 0);
	instr.start = GetCurrentTimestamp();
	if (instr.instrument)
	{
		pg_rusage_init(&instr.ru0);
		instr.walusage0 = pgWalUsage;
		instr.readtime0 = pgStatBlockReadTime;
		instr.writetime0 = pgStatBlockWriteTime;
		initStringInfo(&instr.indexLines);
	}
	aggressive = vacuum_set_xid_limits(rel, params->freeze_min_age, params->freeze_table_age,
									   params->multixact_freeze_min_age,
									   params->multixact_freeze_table_age,
									   &OldestXmin, &OldestMxact, &FreezeLimit,
									   &MultiXactCutoff);
	NvmTupleKeepOldSnapshots(rel, &OldestXmin, &FreezeLimit);
	/* DISABLE_PAGE_SKIPPING makes the VACUUM aggressive too (as heap's) */
	if (!skipping)
		aggressive = true;
	frozenXid = OldestXmin;
	instr.OldestXmin = OldestXmin;
	vac_open_indexes(rel, RowExclusiveLock, &nindexes, &Irel);
	istats = palloc0(Max(nindexes, 1) * sizeof(IndexBulkDeleteResult *));
	maxDead = NvmVacuumMaxDead(nblocks, nindexes);

	/*
	 * Index passes are never parallel here; say so where heap does, for a
	 * temporary table (its pages are local to this backend there).
	 */
	if (params->nworkers > 0 && nindexes > 1 &&
		params->index_cleanup != VACOPTVALUE_DISABLED &&
		RelationUsesLocalBuffers(rel))
		ereport(WARNING,
				(errmsg("disabling parallel option of vacuum on \"%s\" --- cannot vacuum temporary tables in parallel",
						RelationGetRelationName(rel))));
	if (params->options & VACOPT_VERBOSE)
		ereport(INFO,
				(errmsg(aggressive ? "aggressively vacuuming \"%s\"" : "vacuuming \"%s\"",
						NvmVacuumRelName(rel))));
	(void) NvmVacuumFailsafe(rel, &ix, 0);

	/* pg_stat_progress_vacuum, as heap's VACUUM reports it */
	{
		const int	index[] = {PROGRESS_VACUUM_PHASE, PROGRESS_VACUUM_TOTAL_HEAP_BLKS,
		PROGRESS_VACUUM_MAX_DEAD_TUPLES};
		const int64 value[] = {PROGRESS_VACUUM_PHASE_SCAN_HEAP, nblocks, maxDead};

		pgstat_progress_start_command(PROGRESS_COMMAND_VACUUM, RelationGetRelid(rel));
		pgstat_progress_update_multi_param(3, index, value);
	}

	/* the run of skippable pages at the start, if long enough, is skipped */
	nextScan = NvmVacuumNextUnskippable(rel, 0, nblocks, skipping, aggressive,
										&vmbuf, &skipRange, &skippedUnfrozen);
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		CHECK_FOR_INTERRUPTS();
		/* (skipped pages count as scanned here, as in heap's view) */
		pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_SCANNED, blkno);
		if (blkno == nextScan)
		{
			/* this page is scanned; may the run of pages after it be skipped? */
			nextScan = NvmVacuumNextUnskippable(rel, blkno + 1, nblocks, skipping,
												aggressive, &vmbuf, &skipRange,
												&skippedUnfrozen);
		}
		else if (skipRange && blkno < nblocks - 1)
			continue;			/* (the last page is always looked at, as heap's) */
		vacuum_delay_point();
		deadBefore = dead.n;
		freed = NvmVacuumPage(rel, dirIndex, blkno, OldestXmin, FreezeLimit,
							  MultiXactCutoff, &OldestMxact, nindexes == 0,
							  nindexes > 0 && ix.vacuum,
							  &dead, &removed, &live, &deadrows, &frozenXid, &vmbuf,
							  &hasTuples);
		scanned++;
		if (hasTuples)
			nonEmpty = blkno + 1;
		if (dead.n > deadBefore || freed > 0)
		{
			ix.lpdeadPages++;
			ix.lpdeadItems += dead.n - deadBefore + freed;
		}
		if (freed > 0)
		{
			deadItems += freed;
			pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_VACUUMED,
										 ++vacuumedPages);
		}
		pgstat_progress_update_param(PROGRESS_VACUUM_NUM_DEAD_TUPLES, dead.n);
		/* dead TIDs are kept within maintenance_work_mem: deal with them now */
		if (dead.n >= maxDead)
			NvmVacuumDeadTidsDone(rel, dirIndex, Irel, nindexes, istats, bstrategy,
								  &dead, OldestXmin, &vmbuf, &ix, false, origBlocks,
								  &indexScans, &vacuumedPages, &deadItems);
	}
	pgstat_progress_update_param(PROGRESS_VACUUM_HEAP_BLKS_SCANNED, nblocks);
	if (dead.n > 0)
		NvmVacuumDeadTidsDone(rel, dirIndex, Irel, nindexes, istats, bstrategy,
							  &dead, OldestXmin, &vmbuf, &ix, true, origBlocks,
							  &indexScans, &vacuumedPages, &deadItems);
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
	if (dead.tids)
		pfree(dead.tids);

	/* the rows of skipped pages are estimated from the last count */
	if (scanned < origBlocks)
		live = vac_estimate_reltuples(rel, origBlocks, scanned, live);
	/*
	 * the row versions that stay, the dead ones not yet removable too:
	 * what the indexes still point to, and the report's "remain" (heap's
	 * new_rel_tuples; an estimate of -1 counts as none)
	 */
	remain = Max(live, 0) + deadrows;

	if (ix.cleanup)
		pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
									 PROGRESS_VACUUM_PHASE_INDEX_CLEANUP);
	for (int i = 0; i < nindexes && ix.cleanup; i++)
	{
		IndexVacuumInfo ivinfo;

		NvmVacuumIndexInfo(&ivinfo, Irel[i], remain, scanned < origBlocks, bstrategy);
		istats[i] = index_vacuum_cleanup(&ivinfo, istats[i]);
		if (istats[i] && !istats[i]->estimated_count)
			vac_update_relstats(Irel[i], istats[i]->num_pages, istats[i]->num_index_tuples,
								0, false, InvalidTransactionId, InvalidMultiXactId,
								NULL, NULL, false);
	}
	for (int i = 0; i < nindexes; i++)
	{
		if (!istats[i])
			continue;
		if (instr.instrument)
			appendStringInfo(&instr.indexLines,
							 "index \"%s\": pages: %u in total, %u newly deleted, %u currently deleted, %u reusable\n",
							 RelationGetRelationName(Irel[i]), istats[i]->num_pages,
							 istats[i]->pages_newly_deleted, istats[i]->pages_deleted,
							 istats[i]->pages_free);
		pfree(istats[i]);
	}
	vac_close_indexes(nindexes, Irel, NoLock);
	pfree(istats);

	/* give back the empty pages at the end */
	nblocks = NvmVacuumTruncate(rel, dirIndex, params, nblocks, nonEmpty, ix.failsafe);
	pgstat_progress_update_param(PROGRESS_VACUUM_PHASE,
								 PROGRESS_VACUUM_PHASE_FINAL_CLEANUP);

	/*
	 * The scanned pages' free space is recorded; pages added since VACUUM
	 * started get theirs now (skipped pages: as before)
	 */
	for (BlockNumber blkno = origBlocks; blkno < nblocks; blkno++)
	{
		LWLock	   *lock;
		Size		avail;

		lock = NvmPoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		avail = PageGetHeapFreeSpace(IplGetPage(dirIndex, blkno));
		LWLockRelease(lock);
		RecordPageWithFreeSpace(rel, blkno, avail);
	}
	FreeSpaceMapVacuum(rel);

	/* a skipped page may hold xids older than the oldest one seen */
	if (skippedUnfrozen)
	{
		frozenXid = InvalidTransactionId;
		OldestMxact = InvalidMultiXactId;
	}
	visibilitymap_count(rel, &allVisible, NULL);
	instr.frozenXid = frozenXid;
	instr.oldFrozenXid = rel->rd_rel->relfrozenxid;
	instr.frozenXidUpdated = false;
	instr.minMxid = OldestMxact;
	instr.oldMinMxid = rel->rd_rel->relminmxid;
	instr.minMxidUpdated = false;
	vac_update_relstats(rel, nblocks, live, Min(allVisible, nblocks), nindexes > 0,
						frozenXid, OldestMxact, &instr.frozenXidUpdated,
						&instr.minMxidUpdated, false);
	/* (an estimate is -1 when nothing was ever counted: heap's rule) */
	pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
						 (PgStat_Counter) Max(live, 0), (PgStat_Counter) deadrows);
	pgstat_progress_end_command();
	NvmVacuumReport(rel, params, &instr, indexScans, origBlocks, nblocks, scanned,
					removed, remain, deadrows, deadItems, &ix, aggressive);
}
