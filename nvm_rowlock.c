/*-------------------------------------------------------------------------
 *
 * nvm_rowlock.c
 *	  Row locks of nvm_am (tuple_lock) and the xmax decisions that deletes
 *	  and updates share with them: who holds a row, whether a new holder
 *	  must wait, the new xmax (one transaction, or a multixact), and the
 *	  locking of the newer versions of a row whose running update a lock
 *	  was compatible with; and the pin on a locked row's page that the
 *	  caller's slot holds while it holds the row, as heap's slot does.
 *
 *	  As in heap, xmax holds either one transaction (a locker with its lock
 *	  strength in the infomask, or an updater) or a multixact of several
 *	  lockers and at most one updater.  Lock strengths conflict as the
 *	  heavyweight modes they stand for: FOR KEY SHARE only with FOR UPDATE
 *	  and key-changing updates and deletes, and so on.  A lock belongs to the
 *	  (sub)transaction that took it, and a lock or update inside a
 *	  savepoint keeps a lock taken before it as a multixact member.
 *
 * Locks: the page lock of the row, exclusively, while its header is read
 * and written (never two page locks at once); transaction locks
 * (XactLockTableWait) to wait for a conflicting holder, taken with no page
 * lock held.
 *
 * On-pool layout: none of its own (tuple headers are changed through
 * IplWriteTupleHeader).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/multixact.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "nvm_am.h"

/* ----------------------------------------------------------------
 * The pin a locked row's slot holds
 *
 * heap's tuple_lock leaves the row in the caller's slot with its buffer
 * pinned until the executor clears the slot or stores another row in it.
 * Until then the backend's own index fetches cannot prune that page
 * (heap_page_prune_opt needs a cleanup lock: no pin but the fetch's own):
 * the unique checks of ON CONFLICT DO UPDATE's update, for one, do not
 * prune the page of the row it locked.  nvm_am's slots (TTSOpsHeapTuple,
 * which JIT can deform) hold a copy of the row, so the page is pinned here
 * on the slot's behalf (IplPinPage), and the pin is dropped once the slot
 * no longer holds that copy -- found when a reader is about to ask whether
 * a page is in use (NvmRowLockSlotPinsCheck) -- when the memory the slot
 * lives in goes (the executor's end, an error), or with every pin at the
 * transaction's end (the epoch).  A slot is looked at only while its
 * memory lives: a reset callback on that memory forgets it first.  A
 * handful of slots at a time; past that the oldest gives its pin up early.
 * ----------------------------------------------------------------
 */
#define NVM_SLOT_PINS	8

typedef struct NvmSlotPin
{
	TupleTableSlot *slot;		/* NULL: a free entry */
	HeapTuple	tuple;			/* the copy stored in it */
	uint64		held;			/* the page's pin (IplPinPage), 0: none */
	uint64		epoch;			/* NvmPoolPinEpoch() when taken */
} NvmSlotPin;

static NvmSlotPin slot_pins[NVM_SLOT_PINS];
static int	n_slot_pins = 0;	/* entries holding a pin */
static int	next_slot_pin = 0;	/* the entry to reuse when all are taken */

/*
 * NvmRowLockSlotPinRelease - entry p's slot lets its row go: drop the pin,
 * unless the transaction that took it has ended (its pins went with it).
 * The entry stays the slot's (its memory's reset callback is registered
 * once).
 */
static void
NvmRowLockSlotPinRelease(NvmSlotPin *p)
{
	if (p->held == 0)
		return;
	if (p->epoch == NvmPoolPinEpoch())
		IplDropPage(&p->held);
	p->held = 0;
	p->tuple = NULL;
	n_slot_pins--;
}

/*
 * NvmRowLockSlotMemoryGone - reset callback of the memory a slot lives in:
 * the slot goes, and its pin with it.
 */
static void
NvmRowLockSlotMemoryGone(void *arg)
{
	for (int i = 0; i < NVM_SLOT_PINS; i++)
		if (slot_pins[i].slot == (TupleTableSlot *) arg)
		{
			NvmRowLockSlotPinRelease(&slot_pins[i]);
			slot_pins[i].slot = NULL;
		}
}

/*
 * NvmRowLockSlotPinsCheck - drop the pins of slots that no longer hold the
 * row they were given (cleared, or holding another), as heap's slot drops
 * its buffer pin then.  Called before a reader decides whether a page is
 * in use; cheap when no slot holds a pin.
 */
void
NvmRowLockSlotPinsCheck(void)
{
	if (n_slot_pins == 0)
		return;
	for (int i = 0; i < NVM_SLOT_PINS; i++)
	{
		NvmSlotPin *p = &slot_pins[i];
		TupleTableSlot *slot = p->slot;

		if (p->held == 0)
			continue;
		if (p->epoch != NvmPoolPinEpoch() || TTS_EMPTY(slot) ||
			!TTS_IS_HEAPTUPLE(slot) ||
			((HeapTupleTableSlot *) slot)->tuple != p->tuple)
			NvmRowLockSlotPinRelease(p);
	}
}

/*
 * NvmRowLockStoreRow - store a copy of tup, the row tuple_lock looked at,
 * in the caller's slot, and pin its page for as long as the slot holds it
 * (see above).  Caller holds the page lock.
 */
static void
NvmRowLockStoreRow(HeapTuple tup, TupleTableSlot *slot, int dirIndex)
{
	HeapTuple	copy = heap_copytuple(tup);
	NvmSlotPin *p = NULL;

	ExecStoreHeapTuple(copy, slot, true);
	for (int i = 0; i < NVM_SLOT_PINS && p == NULL; i++)
		if (slot_pins[i].slot == slot)
			p = &slot_pins[i];
	if (p == NULL)
	{
		MemoryContextCallback *cb;

		for (int i = 0; i < NVM_SLOT_PINS && p == NULL; i++)
			if (slot_pins[i].slot == NULL)
				p = &slot_pins[i];
		if (p == NULL)
		{
			/* all taken: the oldest gives its pin up early */
			p = &slot_pins[next_slot_pin];
			next_slot_pin = (next_slot_pin + 1) % NVM_SLOT_PINS;
		}
		NvmRowLockSlotPinRelease(p);
		cb = MemoryContextAlloc(slot->tts_mcxt, sizeof(MemoryContextCallback));
		cb->func = NvmRowLockSlotMemoryGone;
		cb->arg = slot;
		MemoryContextRegisterResetCallback(slot->tts_mcxt, cb);
		p->slot = slot;
	}
	else
		NvmRowLockSlotPinRelease(p);	/* the slot's row before this one */
	p->held = IplPinPage(dirIndex, ItemPointerGetBlockNumber(&tup->t_self));
	p->epoch = NvmPoolPinEpoch();
	p->tuple = copy;
	n_slot_pins++;
}

/*
 * NvmRowLockPage - lock the page of tid exclusively; returns the page and
 * points tup at the tuple.  A tid that names no tuple is an error, or, with
 * missing_ok, NULL (the page is not locked then).  The page counts as read
 * in the statistics, as the buffer heap reads for a change does.
 */
Page
NvmRowLockPage(Relation rel, int dirIndex, ItemPointer tid, HeapTuple tup,
			   LWLock **lockp, bool missing_ok)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Page		page;
	IplReadSource src;

	if (blkno >= NvmPoolRelNBlocks(dirIndex))
		elog(ERROR, "nvm_am: tid (%u,%u) beyond the end of relation \"%s\"",
			 blkno, off, RelationGetRelationName(rel));
	*lockp = NvmPoolPageLock(dirIndex, blkno);
	LWLockAcquire(*lockp, LW_EXCLUSIVE);
	page = IplReadPage(dirIndex, blkno, &src);
	NvmScanCountChange(rel, src == IPL_READ_CACHED);
	if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page) ||
		!ItemIdIsNormal(PageGetItemId(page, off)))
	{
		LWLockRelease(*lockp);
		if (missing_ok)
			return NULL;
		elog(ERROR, "nvm_am: tid (%u,%u) of relation \"%s\" names no tuple",
			 blkno, off, RelationGetRelationName(rel));
	}
	NvmSetTuple(tup, rel, page, blkno, off);
	return page;
}

static LOCKMODE
NvmRowLockModeOf(MultiXactStatus status)
{
	switch (status)
	{
		case MultiXactStatusForKeyShare:
			return AccessShareLock;
		case MultiXactStatusForShare:
			return RowShareLock;
		case MultiXactStatusForNoKeyUpdate:
		case MultiXactStatusNoKeyUpdate:
			return ExclusiveLock;
		case MultiXactStatusForUpdate:
		case MultiXactStatusUpdate:
			return AccessExclusiveLock;
	}
	return AccessExclusiveLock;	/* keep compiler quiet */
}

static MultiXactStatus
NvmRowLockStatusOf(LockTupleMode mode)
{
	switch (mode)
	{
		case LockTupleKeyShare:
			return MultiXactStatusForKeyShare;
		case LockTupleShare:
			return MultiXactStatusForShare;
		case LockTupleNoKeyExclusive:
			return MultiXactStatusForNoKeyUpdate;
		case LockTupleExclusive:
			return MultiXactStatusForUpdate;
	}
	return MultiXactStatusForUpdate;	/* keep compiler quiet */
}

static inline bool
NvmRowLockIsUpdate(MultiXactStatus status)
{
	return status == MultiXactStatusNoKeyUpdate || status == MultiXactStatusUpdate;
}

/*
 * NvmRowLockHolders - the transactions in t's xmax that are still running,
 * with what they hold.  Caller holds the page lock.
 */
static int
NvmRowLockHolders(HeapTupleHeader t, MultiXactMember **holders)
{
	TransactionId xmax = HeapTupleHeaderGetRawXmax(t);
	MultiXactMember *m;
	int			n = 0;

	*holders = NULL;
	if (t->t_infomask & HEAP_XMAX_INVALID)
		return 0;
	if (t->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		int			nmembers = GetMultiXactIdMembers(xmax, &m, false,
													 HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask));

		if (nmembers <= 0)
			return 0;
		for (int i = 0; i < nmembers; i++)
			if (TransactionIdIsInProgress(m[i].xid))
				m[n++] = m[i];
		*holders = m;
		return n;
	}
	if (!TransactionIdIsNormal(xmax) || !TransactionIdIsInProgress(xmax))
		return 0;
	m = palloc(sizeof(MultiXactMember));
	m->xid = xmax;
	if (!HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		m->status = (t->t_infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
	else if (HEAP_XMAX_IS_SHR_LOCKED(t->t_infomask))
		m->status = MultiXactStatusForShare;
	else if (HEAP_XMAX_IS_EXCL_LOCKED(t->t_infomask))
		m->status = (t->t_infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusForUpdate : MultiXactStatusForNoKeyUpdate;
	else
		m->status = MultiXactStatusForKeyShare;
	*holders = m;
	return 1;
}

/*
 * NvmRowLockUpdaterStatus - the kind of update the updater of t made (t's
 * xmax is not lock-only): a key update (or delete) or one that kept the
 * key.  Caller holds the page lock, or has t to itself (a copy).
 */
MultiXactStatus
NvmRowLockUpdaterStatus(HeapTupleHeader t)
{
	MultiXactMember *m;
	int			n;
	MultiXactStatus result = MultiXactStatusUpdate;

	if (!(t->t_infomask & HEAP_XMAX_IS_MULTI))
		return (t->t_infomask2 & HEAP_KEYS_UPDATED) ?
			MultiXactStatusUpdate : MultiXactStatusNoKeyUpdate;
	n = GetMultiXactIdMembers(HeapTupleHeaderGetRawXmax(t), &m, false, false);
	for (int i = 0; i < n; i++)
		if (m[i].status == MultiXactStatusNoKeyUpdate ||
			m[i].status == MultiXactStatusUpdate)
			result = m[i].status;
	if (n > 0)
		pfree(m);
	return result;
}

/*
 * NvmRowLockConflicting - a running transaction other than ours holding t
 * in a way that conflicts with want, or InvalidTransactionId.
 */
static TransactionId
NvmRowLockConflicting(HeapTupleHeader t, MultiXactStatus want)
{
	MultiXactMember *holders;
	int			n = NvmRowLockHolders(t, &holders);
	TransactionId result = InvalidTransactionId;

	for (int i = 0; i < n; i++)
	{
		if (TransactionIdIsCurrentTransactionId(holders[i].xid))
			continue;

		/*
		 * A lock compatible with a running update of the row is granted, as
		 * in heap; NvmRowLockTuple then locks the new versions as well
		 * (NvmRowLockUpdateChain), so that a FOR KEY SHARE lock of a
		 * foreign-key check covers the row whichever version survives.
		 */
		if (DoLockModesConflict(NvmRowLockModeOf(holders[i].status),
								NvmRowLockModeOf(want)))
		{
			result = holders[i].xid;
			break;
		}
	}
	if (holders)
		pfree(holders);
	return result;
}

/*
 * NvmRowLockUpdater - the transaction that updated or deleted t (finished or
 * not), or InvalidTransactionId when xmax holds lockers only or nothing.
 */
static TransactionId
NvmRowLockUpdater(HeapTupleHeader t)
{
	if ((t->t_infomask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return InvalidTransactionId;
	return HeapTupleHeaderGetUpdateXid(t);
}

/*
 * NvmRowLockUnlinkedUpdater - the running transaction (not ours) that is updating
 * tup without having linked the new version yet, or InvalidTransactionId.
 * An update with TOAST work (or one that found the row changed under it
 * too often) writes the old version's xmax, releases the page to store the
 * new version and only then sets the old version's ctid; a lock taken in
 * between could not follow the chain to the new version, so it waits for
 * the updater instead (heap lets a FOR KEY SHARE lock through: it marks
 * the old version locked, not updated, meanwhile).  Caller holds the page
 * lock.
 */
static TransactionId
NvmRowLockUnlinkedUpdater(HeapTuple tup)
{
	TransactionId updater = NvmRowLockUpdater(tup->t_data);

	if (!TransactionIdIsValid(updater) ||
		!ItemPointerEquals(&tup->t_data->t_ctid, &tup->t_self) ||
		TransactionIdIsCurrentTransactionId(updater) ||
		!TransactionIdIsInProgress(updater))
		return InvalidTransactionId;
	return updater;
}

/*
 * NvmRowLockHoldsAtLeast - does the current transaction (under any of its xids)
 * hold a lock on t at least as strong as want?  Caller holds the page lock.
 */
static bool
NvmRowLockHoldsAtLeast(HeapTupleHeader t, MultiXactStatus want)
{
	MultiXactMember *holders;
	int			n = NvmRowLockHolders(t, &holders);
	bool		result = false;

	for (int i = 0; i < n && !result; i++)
		result = TransactionIdIsCurrentTransactionId(holders[i].xid) &&
			!NvmRowLockIsUpdate(holders[i].status) &&
			holders[i].status >= want;
	if (holders)
		pfree(holders);
	return result;
}

/*
 * NvmRowLockBits - infomask bits for xmax held with status (one
 * transaction), or by a multixact whose strongest member has it.
 */
static void
NvmRowLockBits(MultiXactStatus status, bool lockOnly, uint16 *infomask,
			   uint16 *infomask2)
{
	*infomask = lockOnly ? HEAP_XMAX_LOCK_ONLY : 0;
	*infomask2 = 0;
	switch (status)
	{
		case MultiXactStatusForKeyShare:
			*infomask |= HEAP_XMAX_KEYSHR_LOCK;
			break;
		case MultiXactStatusForShare:
			*infomask |= HEAP_XMAX_SHR_LOCK;
			break;
		case MultiXactStatusForNoKeyUpdate:
			*infomask |= HEAP_XMAX_EXCL_LOCK;
			break;
		case MultiXactStatusForUpdate:
			*infomask |= HEAP_XMAX_EXCL_LOCK;
			*infomask2 |= HEAP_KEYS_UPDATED;
			break;
		case MultiXactStatusNoKeyUpdate:
			break;
		case MultiXactStatusUpdate:
			*infomask2 |= HEAP_KEYS_UPDATED;
			break;
	}
}

/*
 * NvmRowLockMultiBits - the infomask bits of a multixact xmax with these n
 * members, as heap derives them (GetMultiXactIdHintBits): those of the
 * strongest lock (an update counts as the lock it takes: FOR UPDATE when
 * it changed the key, which sets HEAP_KEYS_UPDATED), LOCK_ONLY unless a
 * member is an update.
 */
static void
NvmRowLockMultiBits(const MultiXactMember *members, int n, uint16 *infomask,
					uint16 *infomask2)
{
	MultiXactStatus strongest = MultiXactStatusForKeyShare;
	bool		anyUpdate = false;

	for (int i = 0; i < n; i++)
	{
		MultiXactStatus lock = members[i].status;

		if (NvmRowLockIsUpdate(lock))
		{
			anyUpdate = true;
			lock = lock == MultiXactStatusUpdate ?
				MultiXactStatusForUpdate : MultiXactStatusForNoKeyUpdate;
		}
		if (lock > strongest)
			strongest = lock;
	}
	NvmRowLockBits(strongest, !anyUpdate, infomask, infomask2);
	*infomask |= HEAP_XMAX_IS_MULTI;
}

/*
 * NvmRowLockCarriedBits - the infomask bits with which the new version of
 * an updated row carries the old one's lockers (xmax, held with infomask):
 * heap's -- a multixact's from its members, one transaction's as FOR KEY
 * SHARE (the only lock an update leaves to another transaction).
 */
void
NvmRowLockCarriedBits(TransactionId xmax, uint16 infomask, uint16 *newmask,
					  uint16 *newmask2)
{
	MultiXactMember *members;
	int			n;

	if (!(infomask & HEAP_XMAX_IS_MULTI))
	{
		*newmask = HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK;
		*newmask2 = 0;
		return;
	}
	n = GetMultiXactIdMembers(xmax, &members, false, false);
	NvmRowLockMultiBits(members, Max(n, 0), newmask, newmask2);
	if (n > 0)
		pfree(members);
}

/* NvmRowLockIsMember - is xid among the n members? */
static bool
NvmRowLockIsMember(const MultiXactMember *members, int n, TransactionId xid)
{
	for (int i = 0; i < n; i++)
		if (TransactionIdEquals(members[i].xid, xid))
			return true;
	return false;
}

/*
 * NvmRowLockComputeXmax - NvmRowLockNewXmax without the WAL flush: a
 * multixact it returns may exist only in WAL not flushed yet.
 */
static TransactionId
NvmRowLockComputeXmax(HeapTupleHeader t, MultiXactStatus want, TransactionId myxid,
					  uint16 *infomask, uint16 *infomask2, bool *lockers)
{
	MultiXactMember *holders;
	int			n;
	MultiXactMember *members;
	TransactionId updater = NvmRowLockUpdater(t);
	bool		ownLock = false;
	int			nmembers = 0;
	MultiXactStatus mine = want;
	TransactionId result;

	/*
	 * Before our xid goes into any xmax, as heap does for every lock, update
	 * and delete: another transaction may make it a member of a multixact
	 * at once, and readers take a multixact older than every running
	 * transaction's oldest member for one whose lockers are all gone.
	 * Setting it only when we create a multixact ourselves let a foreign-key
	 * check's FOR KEY SHARE lock vanish once a FOR SHARE locker joined it and
	 * committed: a DELETE of the parent row then did not wait.
	 */
	MultiXactIdSetOldestMember();
	n = NvmRowLockHolders(t, &holders);
	members = palloc((n + 2) * sizeof(MultiXactMember));
	for (int i = 0; i < n; i++)
	{
		if (TransactionIdEquals(holders[i].xid, myxid))
		{
			/*
			 * Our own lock under the same xid: the stronger of the two
			 * counts.  With our xid alone in xmax, an update that keeps the
			 * key, of a row we locked FOR UPDATE, becomes a key update: the
			 * lock promised that nobody would even take FOR KEY SHARE (ON
			 * CONFLICT DO UPDATE locks the row so before it updates it).  In
			 * a multixact heap keeps the lock as a member beside the update
			 * (MultiXactIdExpand), and so do we: the update itself kept the
			 * key, which a FOR KEY SHARE lock that follows the row's chain
			 * once we committed goes by (specs/nvm_subxact_lock_update).
			 */
			if (NvmRowLockIsUpdate(holders[i].status))
				continue;
			ownLock = true;
			if (!NvmRowLockIsUpdate(want))
			{
				/*
				 * A lock: with our xid alone in xmax the stronger of the
				 * two; in a multixact heap keeps our lock as a member
				 * beside the new one (MultiXactIdExpand: we are a running
				 * member), and so do we.  A later update of the row then
				 * keeps them beside a no-key update, which a FOR KEY SHARE
				 * lock following the chain is not refused by
				 * (specs/nvm_lock_multi_own: isolation_fuzz seed 230620).
				 */
				if (t->t_infomask & HEAP_XMAX_IS_MULTI)
					members[nmembers++] = holders[i];
				else if (holders[i].status > mine)
					mine = holders[i].status;
				continue;
			}
			if (t->t_infomask & HEAP_XMAX_IS_MULTI)
				members[nmembers++] = holders[i];
			else if (want == MultiXactStatusNoKeyUpdate &&
					 holders[i].status == MultiXactStatusForUpdate)
				mine = MultiXactStatusUpdate;
			continue;
		}

		/*
		 * A lock we took under another of our xids (before a savepoint) stays
		 * a member: rolling back to the savepoint must not drop it.
		 */
		if (TransactionIdIsCurrentTransactionId(holders[i].xid) &&
			NvmRowLockIsUpdate(holders[i].status))
			continue;
		members[nmembers++] = holders[i];
	}
	*lockers = nmembers > 0 || ownLock;

	/*
	 * A committed update stays recorded next to the new lock: the version is
	 * still updated (a lock compatible with the update was granted on it).
	 * Once only: the holders, read a moment ago, may have it as a running
	 * member, committed since.
	 */
	if (TransactionIdIsValid(updater) && !NvmRowLockIsMember(members, nmembers, updater) &&
		!TransactionIdIsInProgress(updater) && TransactionIdDidCommit(updater))
	{
		members[nmembers].xid = updater;
		members[nmembers].status = NvmRowLockUpdaterStatus(t);
		nmembers++;
	}
	if (nmembers == 0)
	{
		NvmRowLockBits(mine, !NvmRowLockIsUpdate(mine), infomask, infomask2);
		result = myxid;
	}
	else
	{
		members[nmembers].xid = myxid;
		members[nmembers].status = mine;
		nmembers++;
		result = MultiXactIdCreateFromMembers(nmembers, members);
		NvmRowLockMultiBits(members, nmembers, infomask, infomask2);
	}
	if (holders)
		pfree(holders);
	pfree(members);
	return result;
}

/*
 * NvmRowLockNewXmax - the xmax of t once the current transaction (as myxid) takes
 * it with status want, keeping the other running holders (all compatible
 * with want: the caller waited for the others).  Returns the xmax and its
 * infomask bits; *lockers tells whether locks remain beside want: other
 * holders, or a lock the current transaction held (an update carries them
 * to the new version).  A multixact's WAL record is durable before the
 * pool holds its id (NvmCommitFlushOwnWal); callers that asked
 * NvmRowLockFlushMulti first find it flushed, and a flush here, under
 * the caller's page lock, is the rare case of holders that changed
 * between the two looks.  Caller holds the page lock exclusively.
 */
TransactionId
NvmRowLockNewXmax(HeapTupleHeader t, MultiXactStatus want, TransactionId myxid,
				  uint16 *infomask, uint16 *infomask2, bool *lockers)
{
	TransactionId result = NvmRowLockComputeXmax(t, want, myxid, infomask,
												 infomask2, lockers);

	if (*infomask & HEAP_XMAX_IS_MULTI)
		NvmCommitFlushOwnWal(true);
	return result;
}

/*
 * NvmRowLockFlushMulti - the WAL flush that must come before a new
 * multixact's id goes into the pool, made with the page unlocked.  If the
 * current transaction's taking t with status want makes its xmax a
 * multixact whose WAL record is not flushed yet, makes that multixact,
 * releases lock (the page lock; a tuple lock the caller holds after waiting
 * stays, and with it its place among the row's waiters), flushes, takes
 * lock again if retake, and returns true: the caller looks at the row
 * again.  With the same holders NvmRowLockNewXmax then gets the same
 * multixact back from PostgreSQL's per-transaction cache of multixacts,
 * with no new WAL record and nothing to flush.  Under the page lock the
 * flush kept every other session off the page for as long as it took
 * (concurrent foreign-key checks of the rows of one parent page; a flush to
 * disk takes milliseconds).  A multixact made here and not used after all
 * (the holders changed meanwhile) is left to PostgreSQL's truncation, as
 * heap's retries leave theirs.  Caller holds lock exclusively and waited
 * for the conflicting holders.
 */
static bool
NvmRowLockFlushMulti(HeapTupleHeader t, MultiXactStatus want, LWLock *lock,
					 bool retake)
{
	uint16		infomask;
	uint16		infomask2;
	bool		lockers;

	if (!TransactionIdIsValid(HeapTupleHeaderGetRawXmax(t)) ||
		(t->t_infomask & HEAP_XMAX_INVALID))
		return false;
	(void) NvmRowLockComputeXmax(t, want, GetCurrentTransactionId(), &infomask,
								 &infomask2, &lockers);
	if (!(infomask & HEAP_XMAX_IS_MULTI) || !NvmCommitOwnWalPending())
		return false;
	LWLockRelease(lock);
	NvmCommitFlushOwnWal(false);
	if (retake)
		LWLockAcquire(lock, LW_EXCLUSIVE);
	return true;
}

/*
 * NvmRowLockSatisfies - NvmTupleSatisfiesUpdate for a change or lock of
 * strength want: a committed update does not stop a FOR KEY SHARE lock
 * while the version's xmax says no key changed and nobody held it FOR
 * UPDATE (HEAP_KEYS_UPDATED clear) -- the lock goes on this version and on
 * the newer ones, as in heap.  The flag, not the update's own strength, is
 * heap's test: an update that kept the key, by a transaction that had
 * locked the row FOR UPDATE in a subtransaction it released, leaves a
 * multixact with the flag set, and heap reports the update.  Caller holds
 * the page lock.
 */
static TM_Result
NvmRowLockSatisfies(HeapTuple tup, CommandId cid, MultiXactStatus want,
					TransactionId *xwait)
{
	TM_Result	result = NvmTupleSatisfiesUpdate(tup, cid, xwait);

	if (result == TM_Updated && want == MultiXactStatusForKeyShare &&
		!(tup->t_data->t_infomask2 & HEAP_KEYS_UPDATED))
		result = TM_Ok;
	return result;
}

/*
 * NvmRowLockWaitFor - the running transaction a request for want on tup
 * (xmax being modified) must wait for: a holder whose lock conflicts with
 * want, or for a lock an updater that has not linked its new version yet;
 * InvalidTransactionId when none.  Caller holds the page lock.
 */
static TransactionId
NvmRowLockWaitFor(HeapTuple tup, MultiXactStatus want)
{
	TransactionId xwait = NvmRowLockConflicting(tup->t_data, want);

	if (!TransactionIdIsValid(xwait) && !NvmRowLockIsUpdate(want))
		xwait = NvmRowLockUnlinkedUpdater(tup);
	return xwait;
}

/*
 * NvmRowLockNotAvailable - the error of NOWAIT when the row is held.  No
 * page lock held.
 */
static void NvmRowLockNotAvailable(Relation rel) pg_attribute_noreturn();

static void
NvmRowLockNotAvailable(Relation rel)
{
	ereport(ERROR,
			(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
			 errmsg("could not obtain lock on row in relation \"%s\"",
					RelationGetRelationName(rel))));
}

/*
 * NvmRowLockMoved - the error of a lock that followed its row to a version
 * an update moved to another partition.  No page lock held.
 */
static void NvmRowLockMoved(void) pg_attribute_noreturn();

static void
NvmRowLockMoved(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("tuple to be locked was already moved to another partition due to concurrent update")));
}

/*
 * NvmRowLockCheck - decide whether the current command may change the
 * tuple tup (page locked exclusively).  Waits for a concurrent writer when
 * wait is set (releasing and retaking the page lock: *relocked is set and
 * the caller must re-read).  Fills tmfd for every result but TM_Ok.
 *
 * Before it waits it takes the row's heavyweight tuple lock, as heap does,
 * so that waiters get the row in the order they came (*tuplock: the mode
 * held, NoLock for none, -1 when it was skipped because we hold a row lock
 * already; the caller releases it with NvmRowLockReleaseTuple once its
 * change or lock is done).
 */
static TM_Result
NvmRowLockCheck(Relation rel, HeapTuple tup, CommandId cid, Snapshot crosscheck,
				MultiXactStatus want, LockWaitPolicy policy, LWLock *lock,
				TM_FailureData *tmfd, bool *relocked, LOCKMODE *tuplock)
{
	TransactionId xwait;
	TM_Result	result = NvmRowLockSatisfies(tup, cid, want, &xwait);

	*relocked = false;
	if (result == TM_Invisible)
		return result;
	if (result == TM_BeingModified)
		xwait = NvmRowLockWaitFor(tup, want);
	else if ((result == TM_Updated || result == TM_Deleted) &&
			 (tup->t_data->t_infomask & HEAP_XMAX_IS_MULTI))
	{
		/*
		 * The update committed, but a locker that came while it ran (a
		 * foreign-key check's FOR KEY SHARE) may still be running, with a
		 * lock that conflicts with ours.  heap reports such a multixact as
		 * being modified while any member runs, and waits for the
		 * conflicting members before it reports the update; so do we.
		 */
		xwait = NvmRowLockConflicting(tup->t_data, want);
		if (TransactionIdIsValid(xwait))
			result = TM_BeingModified;
	}
	if (result == TM_BeingModified && !TransactionIdIsValid(xwait))
	{
		if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_data->t_infomask))
			result = TM_Ok;		/* only compatible lockers are running */
		else
		{
			/*
			 * An updater is among the holders, compatible with us or
			 * finished since we looked: ask again, so that a commit in
			 * between gives TM_Updated and not a second new version.
			 */
			result = NvmRowLockSatisfies(tup, cid, want, &xwait);
			if (result == TM_BeingModified)
			{
				xwait = NvmRowLockWaitFor(tup, want);
				if (!TransactionIdIsValid(xwait))
					result = TM_Ok;
			}
		}
	}
	if (result == TM_BeingModified)
	{
		ItemPointerData self = tup->t_self;
		TransactionId xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
		int			dirIndex = NvmStorageRelDirIndex(rel);
		Page		page;
		ItemId		lp;

		switch (policy)
		{
			case LockWaitBlock:
				/*
				 * Not when we hold a lock on the row already (we want a
				 * stronger one): queueing behind the waiters for our own
				 * lock would deadlock, as heap knows.
				 */
				if (*tuplock == NoLock &&
					NvmRowLockHoldsAtLeast(tup->t_data, MultiXactStatusForKeyShare))
					*tuplock = -1;
				LWLockRelease(lock);
				if (*tuplock == NoLock)
				{
					*tuplock = NvmRowLockModeOf(want);
					LockTuple(rel, &self, *tuplock);
				}
				XactLockTableWait(xwait, rel, &self, XLTW_Update);
				LWLockAcquire(lock, LW_EXCLUSIVE);

				/*
				 * If the transaction we waited for inserted the row and
				 * aborted, the row may have been pruned meanwhile and its line
				 * pointer reused: then it is gone.
				 */
				page = IplGetPage(dirIndex, ItemPointerGetBlockNumber(&self));
				lp = PageGetItemId(page, ItemPointerGetOffsetNumber(&self));
				if (ItemPointerGetOffsetNumber(&self) > PageGetMaxOffsetNumber(page) ||
					!ItemIdIsNormal(lp) ||
					!TransactionIdEquals(xmin,
										 HeapTupleHeaderGetRawXmin((HeapTupleHeader) PageGetItem(page, lp))))
				{
					tmfd->ctid = self;
					tmfd->xmax = xwait;
					tmfd->cmax = InvalidCommandId;
					tmfd->traversed = false;
					return TM_Deleted;
				}
				*relocked = true;
				return result;
			case LockWaitSkip:
				result = TM_WouldBlock;
				break;
			case LockWaitError:
				LWLockRelease(lock);
				NvmRowLockNotAvailable(rel);
		}
	}
	if (result == TM_Ok && crosscheck != InvalidSnapshot &&
		!NvmTupleSatisfies(tup, crosscheck))
		result = TM_Updated;
	if (result != TM_Ok)
	{
		tmfd->ctid = tup->t_data->t_ctid;
		tmfd->xmax = (tup->t_data->t_infomask & HEAP_XMAX_INVALID) ?
			InvalidTransactionId : HeapTupleHeaderGetUpdateXid(tup->t_data);
		tmfd->cmax = result == TM_SelfModified ?
			HeapTupleHeaderGetCmax(tup->t_data) : InvalidCommandId;
		tmfd->traversed = false;
	}
	return result;
}

/*
 * NvmRowLockReleaseTuple - release the heavyweight tuple lock NvmRowLockCheck
 * took on tid while it waited, if any.
 */
void
NvmRowLockReleaseTuple(Relation rel, ItemPointer tid, LOCKMODE *tuplock)
{
	if (*tuplock > NoLock)
		UnlockTuple(rel, tid, *tuplock);
	*tuplock = NoLock;
}

/*
 * NvmRowLockSetXmax - build in hdr the header of tup with a new xmax (one
 * transaction or a multixact) and its infomask bits; for an update or
 * delete by the current transaction also its command id.
 */
void
NvmRowLockSetXmax(HeapTupleHeader hdr, HeapTuple tup, TransactionId xmax,
				  CommandId cid, uint16 infomask, uint16 infomask2, bool byMe)
{
	bool		iscombo = false;

	memcpy(hdr, tup->t_data, sizeof(HeapTupleHeaderData));
	if (byMe)
		HeapTupleHeaderAdjustCmax(hdr, &cid, &iscombo);
	hdr->t_infomask &= ~(HEAP_XMAX_BITS | HEAP_MOVED);
	hdr->t_infomask2 &= ~(HEAP_KEYS_UPDATED | HEAP_HOT_UPDATED);
	hdr->t_infomask |= infomask;
	hdr->t_infomask2 |= infomask2;
	HeapTupleHeaderSetXmax(hdr, xmax);
	if (byMe)
		HeapTupleHeaderSetCmax(hdr, cid, iscombo);
	hdr->t_ctid = tup->t_self;
}

/*
 * NvmRowLockForModify - lock the page of tid exclusively and decide whether
 * the current command may delete or update the tuple there, waiting for a
 * concurrent writer when wait is set.  On TM_Ok the page stays locked and
 * *tup, *page, *lock describe the tuple; any other result is returned with
 * the page unlocked and tmfd filled.  what names the operation in the
 * error for an invisible tuple.  On TM_Ok the caller releases *tuplock
 * (NvmRowLockReleaseTuple) once it has changed the tuple.
 */
TM_Result
NvmRowLockForModify(Relation rel, int dirIndex, ItemPointer tid, CommandId cid,
					Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
					HeapTuple tup, Page *page, LWLock **lock, const char *what,
					Bitmapset *keyattrs, HeapTuple newtup, MultiXactStatus *want,
					LOCKMODE *tuplock)
{
	TM_Result	result;
	bool		relocked;

	*tuplock = NoLock;

	*page = NvmRowLockPage(rel, dirIndex, tid, tup, lock, false);
	do
	{
		/* the page may have moved to a new frame while we waited */
		*page = IplGetPage(dirIndex, ItemPointerGetBlockNumber(tid));
		NvmSetTuple(tup, rel, *page, ItemPointerGetBlockNumber(tid),
					ItemPointerGetOffsetNumber(tid));
		/* an update that keeps the key does not conflict with FOR KEY SHARE */
		*want = (newtup != NULL && NvmRowLockAttrsEqual(rel, keyattrs, tup, newtup)) ?
			MultiXactStatusNoKeyUpdate : MultiXactStatusUpdate;
		result = NvmRowLockCheck(rel, tup, cid, crosscheck, *want,
								 wait ? LockWaitBlock : LockWaitSkip, *lock,
								 tmfd, &relocked, tuplock);
		/* a new multixact's WAL is flushed with the page unlocked */
		if (result == TM_Ok && !relocked &&
			NvmRowLockFlushMulti(tup->t_data, *want, *lock, true))
			relocked = true;
	} while (relocked);
	if (result == TM_Invisible)
	{
		LWLockRelease(*lock);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to %s invisible tuple", what)));
	}
	if (result != TM_Ok)
	{
		LWLockRelease(*lock);
		NvmRowLockReleaseTuple(rel, tid, tuplock);
	}
	return result;
}

/*
 * NvmRowLockAttrsEqual - do oldtup and newtup hold binary-equal values in every
 * attribute of attrs (offset by FirstLowInvalidHeapAttributeNumber)?
 */
bool
NvmRowLockAttrsEqual(Relation rel, Bitmapset *attrs, HeapTuple oldtup, HeapTuple newtup)
{
	TupleDesc	desc = RelationGetDescr(rel);
	bool		result = true;
	int			x = -1;

	while (result && (x = bms_next_member(attrs, x)) >= 0)
	{
		int			attnum = x + FirstLowInvalidHeapAttributeNumber;
		bool		null1;
		bool		null2;
		Datum		d1;
		Datum		d2;
		Form_pg_attribute att;

		if (attnum <= 0)
		{
			result = false;		/* a system column or the whole row */
			break;
		}
		d1 = heap_getattr(oldtup, attnum, desc, &null1);
		d2 = heap_getattr(newtup, attnum, desc, &null2);
		att = TupleDescAttr(desc, attnum - 1);
		if (null1 != null2 ||
			(!null1 && !datumIsEqual(d1, d2, att->attbyval, att->attlen)))
			result = false;
	}
	return result;
}

/*
 * NvmRowLockJoin - add the current transaction's lock of strength want to
 * the holders of tup (a multixact when others hold it).  Caller holds the
 * page lock exclusively and made sure no running holder conflicts.  As in
 * heap, the page stays all-visible but is no longer all-frozen.
 */
static void
NvmRowLockJoin(Relation rel, int dirIndex, Page page, HeapTuple tup,
			   MultiXactStatus want, CommandId cid)
{
	HeapTupleHeaderData hdr;
	uint16		bits;
	uint16		bits2;
	bool		lockers;
	TransactionId xmax;

	xmax = NvmRowLockNewXmax(tup->t_data, want, GetCurrentTransactionId(),
							 &bits, &bits2, &lockers);
	NvmRowLockSetXmax(&hdr, tup, xmax, cid, bits, bits2, false);
	NvmVismapClear(rel, dirIndex, ItemPointerGetBlockNumber(&tup->t_self),
				   VISIBILITYMAP_ALL_FROZEN);
	/* with an updater among the holders, keep its link to the new version */
	if (!(bits & HEAP_XMAX_LOCK_ONLY))
	{
		hdr.t_ctid = tup->t_data->t_ctid;
		hdr.t_infomask2 |= tup->t_data->t_infomask2 & HEAP_HOT_UPDATED;
	}
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(&tup->t_self), &hdr);
}

/*
 * NvmRowLockUpdateChain - lock, in mode want, the versions that follow a row
 * version whose update (by priorXmax) our lock was compatible with, like
 * heap_lock_updated_tuple: whichever version the updaters leave behind
 * carries our lock.  Waits for running holders that conflict.  A version
 * whose updater committed with a change our lock cannot live with (a
 * delete, a key update against FOR KEY SHARE) ends it with TM_Deleted or
 * TM_Updated: the row we locked is gone in effect.  Versions we changed
 * ourselves are passed over.  The chain ends (TM_Ok) at a version nobody
 * updated, at a version whose inserter aborted, or where it was pruned
 * away.  No page lock held on entry.
 */
static TM_Result
NvmRowLockUpdateChain(Relation rel, int dirIndex, ItemPointerData ctid,
					  TransactionId priorXmax, MultiXactStatus want)
{
	for (;;)
	{
		HeapTupleData tup;
		LWLock	   *lock;
		Page		page;
		TransactionId xwait;
		TransactionId updater;
		ItemPointerData next;

		CHECK_FOR_INTERRUPTS();
		if (ItemPointerGetBlockNumber(&ctid) >= NvmPoolRelNBlocks(dirIndex))
			return TM_Ok;
		page = NvmRowLockPage(rel, dirIndex, &ctid, &tup, &lock, true);
		if (page == NULL)
			return TM_Ok;
		if (!TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup.t_data)) ||
			TransactionIdDidAbort(priorXmax))
		{
			LWLockRelease(lock);
			return TM_Ok;
		}
		xwait = NvmRowLockConflicting(tup.t_data, want);
		if (!TransactionIdIsValid(xwait))
			xwait = NvmRowLockUnlinkedUpdater(&tup);
		if (TransactionIdIsValid(xwait))
		{
			LWLockRelease(lock);
			XactLockTableWait(xwait, rel, &ctid, XLTW_LockUpdated);
			continue;			/* look at the same version again */
		}
		updater = NvmRowLockUpdater(tup.t_data);
		next = tup.t_data->t_ctid;
		if (TransactionIdIsValid(updater) &&
			!TransactionIdIsCurrentTransactionId(updater) &&
			!TransactionIdIsInProgress(updater) &&
			TransactionIdDidCommit(updater) &&
			DoLockModesConflict(NvmRowLockModeOf(NvmRowLockUpdaterStatus(tup.t_data)),
								NvmRowLockModeOf(want)))
		{
			LWLockRelease(lock);
			return ItemPointerEquals(&next, &ctid) ? TM_Deleted : TM_Updated;
		}
		if (!(TransactionIdIsValid(updater) &&
			  TransactionIdIsCurrentTransactionId(updater)) &&
			!NvmRowLockHoldsAtLeast(tup.t_data, want))
		{
			if (NvmRowLockFlushMulti(tup.t_data, want, lock, false))
				continue;		/* look at the same version again */
			NvmRowLockJoin(rel, dirIndex, page, &tup, want,
						   GetCurrentCommandId(false));
		}
		LWLockRelease(lock);
		if (!TransactionIdIsValid(updater) || ItemPointerEquals(&next, &ctid) ||
			HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
			return TM_Ok;
		priorXmax = updater;
		ctid = next;
	}
}

/*
 * NvmRowLockTuple - lock a row in mode: the locker's xid in xmax with
 * HEAP_XMAX_LOCK_ONLY and its strength, or a multixact when other
 * transactions hold compatible locks.  A conflicting holder is waited for
 * (or NOWAIT / SKIP LOCKED).
 */
TM_Result
NvmRowLockTuple(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags,
				TM_FailureData *tmfd)
{
	int			dirIndex = NvmStorageRelDirIndex(rel);
	ItemPointerData ctid = *tid;
	TransactionId priorXmax = InvalidTransactionId;

	tmfd->traversed = false;
	for (;;)
	{
		HeapTupleData tup;
		LWLock	   *lock;
		Page		page;
		TM_Result	result;
		bool		relocked;
		LOCKMODE	tuplock = NoLock;
		MultiXactStatus want = NvmRowLockStatusOf(mode);

		if (ItemPointerGetBlockNumber(&ctid) >= NvmPoolRelNBlocks(dirIndex))
			return TM_Deleted;
		/* a later version may have been pruned away: the row is gone */
		page = NvmRowLockPage(rel, dirIndex, &ctid, &tup, &lock,
							  TransactionIdIsValid(priorXmax));
		if (page == NULL)
			return TM_Deleted;
		if (TransactionIdIsValid(priorXmax) &&
			!TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup.t_data)))
		{
			/* the chain ends here: the updated version is gone */
			LWLockRelease(lock);
			return TM_Deleted;
		}
		if (TransactionIdIsValid(priorXmax))
		{
			TransactionId updater = NvmRowLockUpdater(tup.t_data);

			/*
			 * Following the chain to the newest version, as heap's
			 * tuple_lock looks for it (a dirty snapshot), whatever the lock
			 * wanted -- a FOR KEY SHARE lock that an update keeping the key
			 * would allow goes on the newest version, not on one in
			 * between: a version this transaction or a committed one
			 * updated is passed over (a deleted one ends the row, one moved
			 * to another partition is an error); one this transaction
			 * inserted after the current command started stops it -- the
			 * caller must not change that one (TM_SelfModified, with its
			 * cmin to tell whether this command or one it triggered made
			 * it); one another transaction is updating is waited for and
			 * looked at again.  Only then is the version locked.
			 */
			if (TransactionIdIsValid(updater) &&
				(TransactionIdIsCurrentTransactionId(updater) ||
				 (!TransactionIdIsInProgress(updater) && TransactionIdDidCommit(updater))))
			{
				ItemPointerData next = tup.t_data->t_ctid;
				bool		moved = HeapTupleHeaderIndicatesMovedPartitions(tup.t_data);

				LWLockRelease(lock);
				if (moved)
					NvmRowLockMoved();
				if (ItemPointerEquals(&next, &ctid))
					return TM_Deleted;
				priorXmax = updater;
				ctid = next;
				*tid = ctid;
				continue;
			}
			if (TransactionIdIsCurrentTransactionId(priorXmax) &&
				HeapTupleHeaderGetCmin(tup.t_data) >= cid)
			{
				tmfd->ctid = tup.t_self;
				tmfd->xmax = priorXmax;
				tmfd->cmax = HeapTupleHeaderGetCmin(tup.t_data);
				NvmRowLockStoreRow(&tup, slot, dirIndex);
				LWLockRelease(lock);
				return TM_SelfModified;
			}
			if (TransactionIdIsValid(updater) && TransactionIdIsInProgress(updater))
			{
				LWLockRelease(lock);
				switch (wait_policy)
				{
					case LockWaitBlock:
						XactLockTableWait(updater, rel, &ctid, XLTW_FetchUpdated);
						break;
					case LockWaitSkip:
						if (!ConditionalXactLockTableWait(updater))
							return TM_WouldBlock;
						break;
					case LockWaitError:
						if (!ConditionalXactLockTableWait(updater))
							NvmRowLockNotAvailable(rel);
						break;
				}
				continue;
			}
		}
		do
		{
			/* the page may have moved to a new frame while we waited */
			page = IplGetPage(dirIndex, ItemPointerGetBlockNumber(&ctid));
			NvmSetTuple(&tup, rel, page, ItemPointerGetBlockNumber(&ctid),
						ItemPointerGetOffsetNumber(&ctid));
			result = NvmRowLockCheck(rel, &tup, cid, InvalidSnapshot, want,
									 wait_policy, lock, tmfd, &relocked,
									 &tuplock);

			/*
			 * Our lock is to be written: only now does the transaction
			 * need its xid (protected, its slot marked), as heap assigns it
			 * only when it locks -- a lock that waited and then skipped the
			 * row or found it gone takes none.  Not under the page lock
			 * (it may write and flush WAL); then look again.
			 */
			if (result == TM_Ok && !relocked && !NvmCommitWriteReady() &&
				!NvmRowLockHoldsAtLeast(tup.t_data, want))
			{
				LWLockRelease(lock);
				NvmCommitBeforeWrite();
				LWLockAcquire(lock, LW_EXCLUSIVE);
				relocked = true;
			}
			/* and a new multixact's WAL is flushed with the page unlocked */
			else if (result == TM_Ok && !relocked &&
					 !NvmRowLockHoldsAtLeast(tup.t_data, want) &&
					 NvmRowLockFlushMulti(tup.t_data, want, lock, true))
				relocked = true;
		} while (relocked);

		if (result == TM_Updated &&
			(flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
		{
			ItemPointerData next = tup.t_data->t_ctid;

			/* a row moved to another partition has no newer version here */
			if (HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
			{
				LWLockRelease(lock);
				NvmRowLockMoved();
			}
			priorXmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
			LWLockRelease(lock);
			NvmRowLockReleaseTuple(rel, &ctid, &tuplock);
			ctid = next;
			/* the caller goes on with the newest version: tell it where */
			*tid = ctid;
			tmfd->traversed = true;
			continue;
		}
		if (result != TM_Ok)
		{
			/*
			 * The caller may look at the row it could not lock (ON CONFLICT
			 * DO UPDATE tells a row its own command made from a concurrent
			 * one by its xmin), so it gets it, as from heap.
			 */
			NvmRowLockStoreRow(&tup, slot, dirIndex);
			LWLockRelease(lock);
			NvmRowLockReleaseTuple(rel, &ctid, &tuplock);
			return result;
		}

		/*
		 * Join the running holders whose locks are compatible with ours (a
		 * multixact when there are any).  As in heap, the lock belongs to the
		 * current subtransaction, and a lock held from before a savepoint
		 * stays a member; nothing is written when we hold a lock at least as
		 * strong already.
		 */
		if (!NvmRowLockHoldsAtLeast(tup.t_data, want))
		{
			ItemPointerData next = tup.t_data->t_ctid;
			TransactionId updater = NvmRowLockUpdater(tup.t_data);

			NvmRowLockJoin(rel, dirIndex, page, &tup, want, cid);
			NvmRowLockStoreRow(&tup, slot, dirIndex);
			tmfd->ctid = next;
			tmfd->xmax = updater;
			tmfd->cmax = InvalidCommandId;
			LWLockRelease(lock);
			/* our lock is in place: later waiters queue on it now */
			NvmRowLockReleaseTuple(rel, &ctid, &tuplock);

			/*
			 * A compatible update, running or committed: lock its new
			 * versions too.  Should one of them be gone for our lock (a
			 * committed delete), so is the row: as heap, report that.
			 */
			if (TransactionIdIsValid(updater) && !ItemPointerEquals(&next, &ctid) &&
				!HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
			{
				TM_Result	chain = NvmRowLockUpdateChain(rel, dirIndex, next,
														  updater, want);

				if (chain == TM_Updated &&
					(flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
				{
					/* go on with the newest version, as for TM_Updated above */
					priorXmax = updater;
					ctid = next;
					*tid = ctid;
					tmfd->traversed = true;
					ExecClearTuple(slot);
					continue;
				}
				if (chain != TM_Ok)
					return chain;
			}
			return TM_Ok;
		}
		NvmRowLockStoreRow(&tup, slot, dirIndex);
		LWLockRelease(lock);
		NvmRowLockReleaseTuple(rel, &ctid, &tuplock);
		return TM_Ok;
	}
}
