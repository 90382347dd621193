/*-------------------------------------------------------------------------
 *
 * nvm_visibility.c
 *	  Tuple visibility for nvm_am: which tuple versions a snapshot sees,
 *	  whether a tuple may be updated, and whether it is dead to everyone.
 *
 *	  The rules are PostgreSQL's MVCC rules over xmin, xmax, command ids,
 *	  snapshots and clog.  heapam_visibility.c cannot be used: it needs a
 *	  shared buffer.  Like heap, these routines set hint bits once the fate
 *	  of an xmin or xmax is known (through the page layer, IplSetHintBits, without persisting
 *	  them: a lost hint costs a clog lookup, nothing more).  A "committed"
 *	  hint can never outlive a commit lost in a crash: it is set only once
 *	  the commit is durable.  Without WAL mode every transaction that
 *	  writes to the pool commits durably before clog shows it committed (a
 *	  pmem commit record, or a forced synchronous WAL commit); in WAL mode
 *	  NvmCommitXidCommitted says when an asynchronous commit is not flushed
 *	  yet, and then no hint is set, as heap's SetHintBits does.
 *
 *	  Several lockers of a row, or lockers and an updater, are a multixact
 *	  in xmax, as in heap: HEAP_XMAX_IS_MULTI, with HEAP_XMAX_LOCK_ONLY when
 *	  no member updated the row.  No hint bits are set for multixacts.
 *
 * Locks: the caller holds the tuple's page lock (shared is enough), so the
 * header does not change while it is read.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "access/subtrans.h"
#include "utils/snapmgr.h"

#include "nvm_am.h"

static inline bool
NvmTupleXminKnownInvalid(HeapTupleHeader t)
{
	return (t->t_infomask & HEAP_XMIN_INVALID) && !HeapTupleHeaderXminFrozen(t);
}

static inline bool
NvmTupleXminKnownCommitted(HeapTupleHeader t)
{
	return (t->t_infomask & HEAP_XMIN_COMMITTED) != 0;
}

/*
 * NvmTupleXidFateHint - the transaction xid of tuple t is no longer running (the
 * caller made sure): did it commit?  Records the answer in a hint bit.
 */
static bool
NvmTupleXidFateHint(HeapTupleHeader t, TransactionId xid, bool isXmin)
{
	bool		durable;

	if (!isXmin && (t->t_infomask & HEAP_XMAX_IS_MULTI))
		return NvmCommitXidCommitted(xid, NULL);	/* no hints for multixacts */
	if (NvmCommitXidCommitted(xid, &durable))
	{
		/* a commit a crash can still lose gets no hint (WAL mode) */
		if (durable)
			IplSetHintBits(t, isXmin ? HEAP_XMIN_COMMITTED : HEAP_XMAX_COMMITTED);
		return true;
	}
	IplSetHintBits(t, isXmin ? HEAP_XMIN_INVALID : HEAP_XMAX_INVALID);
	return false;
}

/* a hint says the (non-locker) xmax committed */
static inline bool
NvmTupleXmaxKnownCommitted(HeapTupleHeader t)
{
	return (t->t_infomask & HEAP_XMAX_COMMITTED) != 0;
}

/*
 * NvmTupleUpdateXid - the transaction that updated or deleted t (xmax is not
 * locker-only); InvalidTransactionId when a multixact has none left.
 */
static inline TransactionId
NvmTupleUpdateXid(HeapTupleHeader t)
{
	if (t->t_infomask & HEAP_XMAX_IS_MULTI)
		return HeapTupleGetUpdateXid(t);
	return HeapTupleHeaderGetRawXmax(t);
}

/*
 * NvmTupleSatisfiesMVCC - visible to an MVCC snapshot?
 */
static bool
NvmTupleSatisfiesMVCC(HeapTupleHeader t, Snapshot snapshot)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(t);
	TransactionId xmax;

	/* a version deleted before the snapshot, the hints say: the usual dead one */
	if (NvmTupleGoneBefore(t, snapshot->xmin))
		return false;
	if (NvmTupleXminKnownInvalid(t) || !TransactionIdIsValid(xmin))
		return false;
	if (!NvmTupleXminKnownCommitted(t))
	{
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (HeapTupleHeaderGetCmin(t) >= snapshot->curcid)
				return false;	/* inserted after the scan started */
			if (t->t_infomask & HEAP_XMAX_INVALID)
				return true;
			if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
				return true;
			xmax = NvmTupleUpdateXid(t);
			if (!TransactionIdIsValid(xmax) ||
				!TransactionIdIsCurrentTransactionId(xmax))
				return true;	/* deleting subtransaction aborted */
			return HeapTupleHeaderGetCmax(t) >= snapshot->curcid;
		}
		if (XidInMVCCSnapshot(xmin, snapshot))
			return false;
		if (!NvmTupleXidFateHint(t, xmin, true))
			return false;
	}
	else if (!HeapTupleHeaderXminFrozen(t) && XidInMVCCSnapshot(xmin, snapshot))
		return false;

	/* the inserting transaction is visible; now the deleter */
	if (t->t_infomask & HEAP_XMAX_INVALID)
		return true;
	if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return true;
	xmax = NvmTupleUpdateXid(t);
	if (!TransactionIdIsValid(xmax))
		return true;
	if (NvmTupleXmaxKnownCommitted(t))
		return XidInMVCCSnapshot(xmax, snapshot);
	if (TransactionIdIsCurrentTransactionId(xmax))
		return HeapTupleHeaderGetCmax(t) >= snapshot->curcid;
	if (XidInMVCCSnapshot(xmax, snapshot))
		return true;
	return !NvmTupleXidFateHint(t, xmax, false);
}

/*
 * NvmTupleSatisfiesSelfOrDirty - SnapshotSelf, or SnapshotDirty when dirty is true
 * (then in-progress inserts count as visible and the snapshot reports the
 * transactions to wait for, as heap does).
 */
static bool
NvmTupleSatisfiesSelfOrDirty(HeapTupleHeader t, Snapshot snapshot, bool dirty)
{
	TransactionId xmin = HeapTupleHeaderGetRawXmin(t);
	TransactionId xmax;

	if (dirty)
	{
		snapshot->xmin = snapshot->xmax = InvalidTransactionId;
		snapshot->speculativeToken = 0;
	}
	if (NvmTupleXminKnownInvalid(t) || !TransactionIdIsValid(xmin))
		return false;
	if (!NvmTupleXminKnownCommitted(t))
	{
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (t->t_infomask & HEAP_XMAX_INVALID)
				return true;
			if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
				return true;
			xmax = NvmTupleUpdateXid(t);
			return !TransactionIdIsValid(xmax) ||
				!TransactionIdIsCurrentTransactionId(xmax);
		}
		if (TransactionIdIsInProgress(xmin))
		{
			if (!dirty)
				return false;
			if (HeapTupleHeaderIsSpeculative(t))
				snapshot->speculativeToken = HeapTupleHeaderGetSpeculativeToken(t);
			snapshot->xmin = xmin;
			return true;
		}
		if (!NvmTupleXidFateHint(t, xmin, true))
			return false;
	}

	if (t->t_infomask & HEAP_XMAX_INVALID)
		return true;
	if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return true;
	if (NvmTupleXmaxKnownCommitted(t))
		return false;
	xmax = NvmTupleUpdateXid(t);
	if (!TransactionIdIsValid(xmax))
		return true;
	if (TransactionIdIsCurrentTransactionId(xmax))
		return false;
	if (TransactionIdIsInProgress(xmax))
	{
		if (dirty)
			snapshot->xmax = xmax;
		return true;
	}
	return !NvmTupleXidFateHint(t, xmax, false);
}

/*
 * NvmTupleSatisfiesVacuum - classify a tuple for vacuum and index builds.
 * For a tuple deleted by a committed transaction that is not yet older
 * than OldestXmin, the result is HEAPTUPLE_RECENTLY_DEAD and *deadXid the
 * deleter (when deadXid is not NULL).
 */
HTSV_Result
NvmTupleSatisfiesVacuum(HeapTuple tup, TransactionId OldestXmin,
						TransactionId *deadXid)
{
	HeapTupleHeader t = tup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(t);
	TransactionId xmax;

	if (deadXid)
		*deadXid = InvalidTransactionId;
	if (NvmTupleXminKnownInvalid(t) || !TransactionIdIsValid(xmin))
		return HEAPTUPLE_DEAD;
	if (!NvmTupleXminKnownCommitted(t))
	{
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if ((t->t_infomask & HEAP_XMAX_INVALID) ||
				HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
				return HEAPTUPLE_INSERT_IN_PROGRESS;
			xmax = NvmTupleUpdateXid(t);
			if (TransactionIdIsValid(xmax) && TransactionIdIsCurrentTransactionId(xmax))
				return HEAPTUPLE_DELETE_IN_PROGRESS;
			return HEAPTUPLE_INSERT_IN_PROGRESS;
		}
		if (TransactionIdIsInProgress(xmin))
			return HEAPTUPLE_INSERT_IN_PROGRESS;
		if (!NvmTupleXidFateHint(t, xmin, true))
			return HEAPTUPLE_DEAD;
	}

	if (t->t_infomask & HEAP_XMAX_INVALID)
		return HEAPTUPLE_LIVE;
	if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return HEAPTUPLE_LIVE;
	xmax = NvmTupleUpdateXid(t);
	if (!TransactionIdIsValid(xmax))
		return HEAPTUPLE_LIVE;
	if (!NvmTupleXmaxKnownCommitted(t))
	{
		if (TransactionIdIsInProgress(xmax))
			return HEAPTUPLE_DELETE_IN_PROGRESS;
		if (!NvmTupleXidFateHint(t, xmax, false))
			return HEAPTUPLE_LIVE;
	}
	if (deadXid)
		*deadXid = xmax;
	if (TransactionIdIsValid(OldestXmin) && TransactionIdPrecedes(xmax, OldestXmin))
		return HEAPTUPLE_DEAD;
	return HEAPTUPLE_RECENTLY_DEAD;
}

/*
 * NvmTupleSatisfies - does snapshot see tup?
 */
bool
NvmTupleSatisfies(HeapTuple tup, Snapshot snapshot)
{
	switch (snapshot->snapshot_type)
	{
		case SNAPSHOT_MVCC:
			return NvmTupleSatisfiesMVCC(tup->t_data, snapshot);
		case SNAPSHOT_SELF:
			return NvmTupleSatisfiesSelfOrDirty(tup->t_data, snapshot, false);
		case SNAPSHOT_DIRTY:
			return NvmTupleSatisfiesSelfOrDirty(tup->t_data, snapshot, true);
		case SNAPSHOT_ANY:
			return true;
		case SNAPSHOT_TOAST:
			return !NvmTupleXminKnownInvalid(tup->t_data) &&
				TransactionIdIsValid(HeapTupleHeaderGetRawXmin(tup->t_data));
		case SNAPSHOT_NON_VACUUMABLE:
			{
				TransactionId dead;
				HTSV_Result r = NvmTupleSatisfiesVacuum(tup, InvalidTransactionId, &dead);

				if (r == HEAPTUPLE_DEAD)
					return false;
				if (r == HEAPTUPLE_RECENTLY_DEAD)
					return !GlobalVisTestIsRemovableXid(snapshot->vistest, dead);
				return true;
			}
		case SNAPSHOT_HISTORIC_MVCC:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("nvm_am tables cannot be read by logical decoding"),
					 errdetail("An output plugin read table %u with a historic snapshot, which only a user catalog table allows.",
							   tup->t_tableOid),
					 errhint("Make tables that output plugins read with user_catalog_table = true heap tables (CREATE TABLE ... USING heap).")));
	}
	return false;				/* keep compiler quiet */
}

/*
 * NvmTupleSatisfiesUpdate - may the current command update or lock tup?
 * On TM_BeingModified *xwait is the transaction to wait for.
 */
TM_Result
NvmTupleSatisfiesUpdate(HeapTuple tup, CommandId curcid, TransactionId *xwait)
{
	HeapTupleHeader t = tup->t_data;
	TransactionId xmin = HeapTupleHeaderGetRawXmin(t);
	TransactionId xmax;

	*xwait = InvalidTransactionId;
	if (NvmTupleXminKnownInvalid(t) || !TransactionIdIsValid(xmin))
		return TM_Invisible;
	if (!NvmTupleXminKnownCommitted(t))
	{
		if (TransactionIdIsCurrentTransactionId(xmin))
		{
			if (HeapTupleHeaderGetCmin(t) >= curcid)
				return TM_Invisible;
			if (t->t_infomask & HEAP_XMAX_INVALID)
				return TM_Ok;
			if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
			{
				/*
				 * Our own new version can still be locked by others: an
				 * update carries the key-share lockers of the old version
				 * (foreign-key checks) over to the new one.  Whoever wants
				 * to change it must reckon with them.
				 */
				xmax = HeapTupleHeaderGetRawXmax(t);
				if (t->t_infomask & HEAP_XMAX_IS_MULTI)
				{
					*xwait = xmax;
					return MultiXactIdIsRunning(xmax, true) ? TM_BeingModified : TM_Ok;
				}
				if (TransactionIdIsCurrentTransactionId(xmax) ||
					!TransactionIdIsInProgress(xmax))
					return TM_Ok;
				*xwait = xmax;
				return TM_BeingModified;
			}
			xmax = NvmTupleUpdateXid(t);
			if (!TransactionIdIsValid(xmax) ||
				!TransactionIdIsCurrentTransactionId(xmax))
			{
				/*
				 * The subtransaction that changed it aborted; lockers that
				 * were in the same multixact may still hold it.
				 */
				if ((t->t_infomask & HEAP_XMAX_IS_MULTI) &&
					MultiXactIdIsRunning(HeapTupleHeaderGetRawXmax(t), false))
				{
					*xwait = HeapTupleHeaderGetRawXmax(t);
					return TM_BeingModified;
				}
				return TM_Ok;
			}
			return HeapTupleHeaderGetCmax(t) >= curcid ? TM_SelfModified : TM_Invisible;
		}
		if (TransactionIdIsInProgress(xmin) || !NvmTupleXidFateHint(t, xmin, true))
			return TM_Invisible;
	}

	if (t->t_infomask & HEAP_XMAX_INVALID)
		return TM_Ok;
	if (t->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		MultiXactId multi = HeapTupleHeaderGetRawXmax(t);

		/*
		 * Several lockers, or lockers and an updater.  The caller decides
		 * which running members conflict with what it wants to do.
		 */
		*xwait = multi;
		if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
			return MultiXactIdIsRunning(multi, true) ? TM_BeingModified : TM_Ok;
		xmax = HeapTupleGetUpdateXid(t);
		if (TransactionIdIsValid(xmax) && TransactionIdIsCurrentTransactionId(xmax))
			return HeapTupleHeaderGetCmax(t) >= curcid ? TM_SelfModified : TM_Invisible;
		if (TransactionIdIsValid(xmax) && TransactionIdIsInProgress(xmax))
			return TM_BeingModified;
		if (TransactionIdIsValid(xmax) && NvmCommitXidCommitted(xmax, NULL))
			return ItemPointerEquals(&tup->t_self, &t->t_ctid) ? TM_Deleted : TM_Updated;
		return MultiXactIdIsRunning(multi, false) ? TM_BeingModified : TM_Ok;
	}
	xmax = NvmTupleUpdateXid(t);
	if (NvmTupleXmaxKnownCommitted(t))
		return ItemPointerEquals(&tup->t_self, &t->t_ctid) ? TM_Deleted : TM_Updated;
	if (TransactionIdIsCurrentTransactionId(xmax))
	{
		if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
			return TM_Ok;		/* our own row lock */
		return HeapTupleHeaderGetCmax(t) >= curcid ? TM_SelfModified : TM_Invisible;
	}
	if (TransactionIdIsInProgress(xmax))
	{
		*xwait = xmax;
		return TM_BeingModified;
	}
	if (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask) || !NvmCommitXidCommitted(xmax, NULL))
		return TM_Ok;
	if (ItemPointerEquals(&tup->t_self, &t->t_ctid))
		return TM_Deleted;
	return TM_Updated;
}

/*
 * NvmTupleCheckConflictOutSerializable - for SERIALIZABLE transactions
 * (NvmTupleCheckConflictOut calls it for them only): report a rw-conflict
 * out to the transaction that wrote a version of tup this snapshot does not
 * see (an insert after it, or a delete it cannot see yet).  visible is what
 * NvmTupleSatisfies said for snapshot.
 */
void
NvmTupleCheckConflictOutSerializable(bool visible, Relation rel, HeapTuple tup,
									 Snapshot snapshot)
{
	TransactionId xid;

	if (!CheckForSerializableConflictOutNeeded(rel, snapshot))
		return;
	switch (NvmTupleSatisfiesVacuum(tup, TransactionXmin, NULL))
	{
		case HEAPTUPLE_LIVE:
			if (visible)
				return;
			xid = HeapTupleHeaderGetXmin(tup->t_data);
			break;
		case HEAPTUPLE_RECENTLY_DEAD:
		case HEAPTUPLE_DELETE_IN_PROGRESS:
			xid = visible ? NvmTupleUpdateXid(tup->t_data) : HeapTupleHeaderGetXmin(tup->t_data);
			break;
		case HEAPTUPLE_INSERT_IN_PROGRESS:
			xid = HeapTupleHeaderGetXmin(tup->t_data);
			break;
		case HEAPTUPLE_DEAD:
		default:
			return;
	}
	if (!TransactionIdIsNormal(xid) || TransactionIdPrecedes(xid, TransactionXmin))
		return;
	xid = SubTransGetTopmostTransaction(xid);
	if (TransactionIdPrecedes(xid, TransactionXmin) ||
		TransactionIdEquals(xid, GetTopTransactionIdIfAny()))
		return;
	CheckForSerializableConflictOut(rel, xid, snapshot);
}

/*
 * NvmTupleDeadToAll - can no transaction that exists or may start see tup?
 * *deleter is set to its deleting xid, if any.  Caller holds the page lock.
 */
bool
NvmTupleDeadToAll(Relation rel, HeapTuple tup, TransactionId *deleter)
{
	TransactionId dead = InvalidTransactionId;
	HTSV_Result r = NvmTupleSatisfiesVacuum(tup, InvalidTransactionId, &dead);

	*deleter = dead;
	if (r == HEAPTUPLE_DEAD)
		return true;
	return r == HEAPTUPLE_RECENTLY_DEAD &&
		GlobalVisTestIsRemovableXid(GlobalVisTestFor(rel), dead);
}

/*
 * NvmTupleKeepOldSnapshots - move a VACUUM's or a rewrite's horizon
 * (*oldestXmin, and *freezeLimit where it lies beyond) back to the oldest
 * xmin of any snapshot, where old_snapshot_threshold had moved it past the
 * snapshots older than the threshold (vacuum_set_xid_limits).  Heap may
 * remove what those snapshots see because its readers then refuse them
 * ("snapshot too old"), knowing from a page's LSN that it changed after the
 * snapshot was taken; an nvm_am page has no such LSN, and a reader would
 * silently miss the removed versions.  So nvm_am keeps them: old snapshots
 * keep their answers, and old_snapshot_threshold limits no bloat of nvm_am
 * tables.  The freeze limit never goes below the table's relfrozenxid.
 * Caller holds a lock on rel that keeps VACUUM out.
 */
void
NvmTupleKeepOldSnapshots(Relation rel, TransactionId *oldestXmin,
						 TransactionId *freezeLimit)
{
	TransactionId kept;

	if (!OldSnapshotThresholdActive())
		return;
	kept = GetOldestNonRemovableTransactionId(rel);
	if (!TransactionIdPrecedes(kept, *oldestXmin))
		return;
	*oldestXmin = kept;
	if (freezeLimit == NULL || !TransactionIdPrecedes(kept, *freezeLimit))
		return;
	if (TransactionIdIsNormal(rel->rd_rel->relfrozenxid) &&
		TransactionIdPrecedes(kept, rel->rd_rel->relfrozenxid))
		kept = rel->rd_rel->relfrozenxid;
	if (TransactionIdPrecedes(kept, *freezeLimit))
		*freezeLimit = kept;
}
