/*-------------------------------------------------------------------------
 *
 * nvm_commit.c
 *	  Durable commits through libpmem, and the recovery of transactions
 *	  after a crash: transaction slots, the pmem commit log, the commit
 *	  path driven by this module's transaction callback, and the resolution
 *	  of the transactions a crash interrupted (called by nvm_recovery.c).
 *
 * The protocol (docs/design.md, "Commit and recovery", says why):
 *
 *	1. Before a (sub)transaction's xid first reaches the pool, WAL must
 *	   hold a flushed nvm_am XID_IN_USE record covering it (see
 *	   NvmXlogProtectXid in nvm_xlog.c: one record covers a batch of
 *	   xids, so this costs one WAL flush per batch, not per transaction).
 *	   After a crash, redo therefore sets nextXid beyond every xid in the
 *	   pool: no xid found in the pool is ever handed out again, and clog
 *	   can be asked about each of them.
 *	2. At its first change to nvm data a transaction marks its slot
 *	   ACTIVE with its full xid (flushed; the change's own drain covers it).
 *	3. At pre-commit, a transaction that changed nvm data and nothing that
 *	   is WAL-logged appends a commit record (its full xid and committed
 *	   subxids, CRC-32C) to the commit log, flushed and drained once.  It is
 *	   durable from then on: PostgreSQL's own commit record, written next,
 *	   is asynchronous (the transaction wrote no WAL), exactly as for
 *	   unlogged tables, and no fsync happens.  The record is persisted
 *	   before clog and the proc array show the commit, so nothing can see
 *	   the transaction committed before it is durable.
 *	4. A transaction that also wrote WAL (heap tables, DDL, a new
 *	   XID_IN_USE batch) commits through WAL: its slot is marked PREPARED
 *	   and PostgreSQL writes its commit record as usual, so clog decides
 *	   both halves at once.  SERIALIZABLE transactions, transactions with
 *	   more committed subtransactions than a commit record holds, a
 *	   commit log that stays full, and transactions whose WAL commit record
 *	   carries what a crash must not lose beside the commit (a commit
 *	   timestamp, a replication origin's progress) take this path too.
 *	   Without WAL mode this commit is always synchronous, whatever
 *	   synchronous_commit says:
 *	   clog never shows a commit of a transaction that wrote to the pool
 *	   before that commit is durable, so hint bits, pruning and index kills
 *	   need not wait for the WAL writer.  In WAL mode (nvm_am.wal_log) it
 *	   follows synchronous_commit, as heap's does; see 6.
 *	   Before its record is persisted, a pmem commit flushes WAL past
 *	   every asynchronous WAL commit it could have seen and past the WAL
 *	   records of the sequences that ended transactions, of any session,
 *	   took values from (NvmCommitOrderFlush, NvmCommitSequencesPublish):
 *	   a durable pmem commit never outlives a transaction it read from,
 *	   nor a sequence value it holds, which PostgreSQL's commits, flushed
 *	   in WAL order, never do either.
 *	5. A commit-log entry is retired once WAL is flushed past the
 *	   transaction's PostgreSQL commit record: clog then knows.
 *	6. In WAL mode a transaction that wrote to the pool may commit
 *	   asynchronously (synchronous_commit = off), and a crash can then lose
 *	   its commit with the end of WAL.  Its changes in the pool are harmless
 *	   then (its xid is not committed after redo), but nothing that lasts
 *	   beyond the crash may rely on the commit before it is flushed: heap
 *	   has the rule that a page never reaches disk before the WAL that
 *	   changed it; the pool is written at once, so the rule is kept at the
 *	   decisions instead.  NvmCommitXidCommitted says when a commit is not
 *	   durable yet: the visibility code then sets no hint bit (heap's
 *	   SetHintBits does the same), and the newest such commit this backend
 *	   relied on is remembered.  Before a prune removes versions in the pool
 *	   NvmCommitFlushRelied flushes WAL that far; an index fetch does not
 *	   tell the index that a chain is dead while NvmCommitReliedPending.
 *
 * Recovery (NvmCommitRecover, called by NvmRecoveryEnsureReady before any
 * transaction can read an nvm table, after WAL redo):
 *	- every valid commit-log entry whose transaction clog does not show
 *	  committed is a winner whose PostgreSQL commit record was lost: it is
 *	  committed in clog through an nvm_am COMMIT_RESOLVED WAL record
 *	  (flushed first, replayed by later recoveries and by standbys), which
 *	  fixes its outcome for good ("frozen winners");
 *	- an ACTIVE slot whose transaction did not commit is a loser.  By rule
 *	  1 its xid is below nextXid and not committed, so PostgreSQL's
 *	  visibility rules and ours treat its changes as aborted, exactly like
 *	  heap tuples of a crashed transaction, and pruning removes them; no
 *	  page has to be rewritten;
 *	- a PREPARED slot is resolved through clog (commit or abort);
 *	- frames orphaned by a crash during a merge or an extension were
 *	  already reclaimed by the rebuild of the allocation state (nvm_pool.c).
 *	The work is bounded by the slots and the commit log (a few MB), not by
 *	the amount of nvm data or of WAL.
 *
 * Locks: the lock of a part of the commit log (exclusive) around that
 * part's allocation state in shared memory (NVM_COMMIT_LOG_PARTS parts; a
 * backend starts in the part of its PGPROC number); each backend writes only its own slot
 * and the entry it allocated.  Recovery runs under the pool's directory
 * lock held exclusively by NvmRecoveryEnsureReady, before any backend can
 * write to the pool; XactTruncationLock (shared) while clog is asked.
 *
 * On-pmem layout owned here (placed by nvm_pool.c): NVM_XACT_SLOTS slots
 * of 64 bytes, one per PGPROC number (a backend with a higher number runs
 * without a slot and commits through WAL), and NVM_COMMIT_LOG_ENTRIES
 * commit-log entries of 64 bytes (NvmCommitEntry in nvm_pool.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/commit_ts.h"
#include "access/relation.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/origin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/wait_event.h"

#include "nvm_hooks.h"

/* retire_lsn of an entry whose transaction has not finished */
#define ENTRY_BUSY		PG_UINT64_MAX

/*
 * The allocation state of the commit log: an entry is free once WAL is
 * flushed up to its retire_lsn (0 for an entry never used or withdrawn).
 */
typedef struct NvmCommitShared
{
	int			hand[NVM_COMMIT_LOG_PARTS]; /* next entry to look at, per part */
	XLogRecPtr	retire_lsn[NVM_COMMIT_LOG_ENTRIES];

	/*
	 * Asynchronous WAL commits (NvmCommitAsyncBegin): how many are between
	 * their pre-commit and their end, and the newest end of the commit
	 * record of one that ended.  Touched only by such commits, and read by
	 * pmem commits.
	 */
	pg_atomic_uint32 async_running;
	pg_atomic_uint64 async_end;

	/*
	 * The newest LSN of a sequence's page that a transaction ending without
	 * a WAL flush of its own took values from (NvmCommitSequencesPublish):
	 * every pmem commit flushes WAL that far first.
	 */
	pg_atomic_uint64 seq_end;
} NvmCommitShared;

/*
 * The commit log is cut into parts, each with its own lock and hand, so
 * that commits of different backends do not all take one lock: a backend
 * starts in the part of its PGPROC number and moves on only when that part
 * is full.
 */
#define NVM_COMMIT_PART_ENTRIES	(NVM_COMMIT_LOG_ENTRIES / NVM_COMMIT_LOG_PARTS)
StaticAssertDecl(NVM_COMMIT_LOG_ENTRIES % NVM_COMMIT_LOG_PARTS == 0,
				 "the commit log divides into equal parts");

static NvmCommitShared *commit_shared = NULL;

/* this backend's current transaction */
static bool xact_wrote_nvm = false;
static int	xact_entry = -1;
static bool xact_async = false; /* counted in async_running */
static bool xact_had_xid = false;	/* at pre-commit: writes a commit record */

/*
 * Sequences this session took values from (nextval, currval and setval
 * lock a sequence RowExclusiveLock until the transaction ends), whose WAL
 * record covering those values may still be unflushed, until the next
 * pre-commit of the session publishes their pages' LSNs (seq_end) or a
 * commit of the session is flushed.  seq_lost: one may have been missed
 * (too many to remember, or a lock outside the fast-path slots): the WAL
 * insert position is published instead.
 */
#define NVM_SEQ_REMEMBERED	8
static Oid	seq_used[NVM_SEQ_REMEMBERED];
static int	seq_nused = 0;
static bool seq_lost = false;

/*
 * RowExclusiveLock's bit in fast-path slot n of a PGPROC's fpLockBits:
 * lock.c's layout (FAST_PATH_BIT_POSITION), 3 bits per slot for the lock
 * modes 1 to 3.
 */
#define NVM_FP_BITS_PER_SLOT	3
#define NVM_FP_SLOT_BITS(bits, n) (((bits) >> (NVM_FP_BITS_PER_SLOT * (n))) & 7)
#define NVM_FP_ROW_EXCLUSIVE(bits, n) \
	((NVM_FP_SLOT_BITS(bits, n) & (1 << (RowExclusiveLock - 1))) != 0)

/*
 * WAL mode: the newest commit LSN, not known to be flushed, that this
 * backend's visibility decisions relied on (step 6 of the protocol).
 */
static XLogRecPtr relied_commit_lsn = InvalidXLogRecPtr;

Size
NvmCommitShmemSize(void)
{
	return sizeof(NvmCommitShared);
}

void
NvmCommitShmemInit(void)
{
	bool		found;

	commit_shared = ShmemInitStruct("nvm_am commit log", sizeof(NvmCommitShared), &found);
	if (!found)
	{
		memset(commit_shared, 0, sizeof(NvmCommitShared));
		pg_atomic_init_u32(&commit_shared->async_running, 0);
		pg_atomic_init_u64(&commit_shared->async_end, InvalidXLogRecPtr);
		pg_atomic_init_u64(&commit_shared->seq_end, InvalidXLogRecPtr);
	}
}

static pg_crc32c
NvmCommitEntryCrc(const NvmCommitEntry *e)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &e->fxid, sizeof(e->fxid));
	COMP_CRC32C(crc, &e->nsubxids, sizeof(e->nsubxids));
	COMP_CRC32C(crc, e->subxids, sizeof(e->subxids));
	FIN_CRC32C(crc);
	return crc;
}

static bool
NvmCommitEntryValid(const NvmCommitEntry *e)
{
	return e->fxid != 0 && e->nsubxids <= NVM_COMMIT_MAX_SUBXIDS &&
		e->crc == NvmCommitEntryCrc(e);
}

/*
 * NvmCommitMySlot - this backend's transaction slot, or NULL if its PGPROC number is
 * beyond the slots of the pool.
 */
static NvmXactSlot *
NvmCommitMySlot(void)
{
	if (MyProc == NULL || MyProc->pgprocno >= NVM_XACT_SLOTS)
		return NULL;
	return NvmPoolXactSlot(MyProc->pgprocno);
}

/*
 * NvmCommitFirstWrite - marks the slot ACTIVE before the current
 * transaction's first write to the pool.
 */
static void
NvmCommitFirstWrite(void)
{
	NvmXactSlot *slot;

	if (xact_wrote_nvm)
		return;
	xact_wrote_nvm = true;
	slot = NvmCommitMySlot();
	if (slot != NULL)
	{
		slot->word = NVM_SLOT_ACTIVE |
			(U64FromFullTransactionId(GetTopFullTransactionId()) & NVM_SLOT_FXID_MASK);
		/* the drain of the change that follows makes it durable */
		NvmPoolFlush(&slot->word, sizeof(uint64));
	}
}

/*
 * NvmCommitBeforeWrite - call before each write of tuple data of the
 * current (sub)transaction into the pool: protects its xid (nvm_xlog.c)
 * and marks the transaction's slot ACTIVE the first time.
 */
void
NvmCommitBeforeWrite(void)
{
	NvmXlogProtectXid(GetCurrentTransactionId());
	NvmCommitFirstWrite();
}

/*
 * NvmCommitWriteReady - has NvmCommitBeforeWrite been done for the current
 * (sub)transaction's xid, so that a write of its data may follow at once?
 * A caller that holds a page lock and finds it false lets the lock go
 * before it calls NvmCommitBeforeWrite, which may assign the xid and write
 * and flush WAL.  (false for an xid protected by an earlier batch record
 * but not through this backend's last call: one needless round, no harm.)
 */
bool
NvmCommitWriteReady(void)
{
	return xact_wrote_nvm && NvmXlogXidProtected(GetCurrentTransactionIdIfAny());
}

/*
 * NvmCommitXidCommitted - did xid commit?  Handles the permanent xids
 * (bootstrap and frozen: committed).  When durable is not NULL, *durable
 * says whether the commit is also durable, so that the answer may be
 * recorded in the pool (a hint bit).  It is false only in WAL mode, for an
 * asynchronous commit whose WAL is not flushed yet; such a commit is
 * remembered as relied on (see NvmCommitFlushRelied).  A hot standby's
 * commits are durable: it replays only WAL it has flushed.
 */
bool
NvmCommitXidCommitted(TransactionId xid, bool *durable)
{
	XLogRecPtr	lsn;

	if (durable != NULL)
		*durable = true;
	if (!TransactionIdIsValid(xid))
		return false;
	if (!TransactionIdIsNormal(xid))
		return true;
	if (!TransactionIdDidCommit(xid))
		return false;
	if (!nvm_wal_log || RecoveryInProgress())
		return true;
	lsn = TransactionIdGetCommitLSN(xid);
	if (XLogNeedsFlush(lsn))
	{
		if (durable != NULL)
			*durable = false;
		if (lsn > relied_commit_lsn)
			relied_commit_lsn = lsn;
	}
	return true;
}

/*
 * NvmCommitReliedPending - did a decision of this backend rely on a commit
 * that a crash could still lose?
 */
bool
NvmCommitReliedPending(void)
{
	if (XLogRecPtrIsInvalid(relied_commit_lsn))
		return false;
	if (XLogNeedsFlush(relied_commit_lsn))
		return true;
	relied_commit_lsn = InvalidXLogRecPtr;
	return false;
}

/*
 * NvmCommitFlushRelied - make durable every commit that this backend's
 * decisions relied on, before a change to the pool that rests on them (a
 * prune).  Costs nothing unless asynchronous commits were relied on.
 */
void
NvmCommitFlushRelied(void)
{
	if (!NvmCommitReliedPending())
		return;
	XLogFlush(relied_commit_lsn);
	relied_commit_lsn = InvalidXLogRecPtr;
	NvmPoolCountAdd(NVM_STAT_RELIED_COMMIT_FLUSHES, 1);
}

/*
 * NvmCommitFlushOwnWal - make the WAL this backend has written so far
 * durable, before the pool holds something that exists only through it: a
 * multixact's id (its members are in pg_multixact, and in WAL until the next
 * checkpoint).  Heap's rule that a buffer reaches disk only after the WAL
 * that changed it gives the same order; the pool is written at once.
 * Without it a crash left an xmax naming a multixact that redo never
 * created: the row could not be updated ("MultiXactId 1 has not been created
 * yet"), and once later multixacts took the id again it was locked by their
 * unrelated members (t/046).  Costs a WAL flush per multixact made by this
 * transaction (counted by multixact_wal_flushes, and by
 * multixact_wal_flushes_locked when pageLocked says the caller holds a page
 * lock: callers look first, NvmRowLockFlushMulti, and flush unlocked).
 */
void
NvmCommitFlushOwnWal(bool pageLocked)
{
	if (!NvmCommitOwnWalPending())
		return;
	XLogFlush(XactLastRecEnd);
	NvmPoolCountAdd(NVM_STAT_MULTIXACT_WAL_FLUSHES, 1);
	if (pageLocked)
		NvmPoolCountAdd(NVM_STAT_MULTIXACT_WAL_FLUSHES_LOCKED, 1);
}

/* NvmCommitOwnWalPending - has this backend written WAL not flushed yet? */
bool
NvmCommitOwnWalPending(void)
{
	return XactLastRecEnd != InvalidXLogRecPtr && XLogNeedsFlush(XactLastRecEnd);
}

/*
 * NvmCommitLogAlloc - allocate a free commit-log entry, or -1.  An entry whose
 * transaction's PostgreSQL commit record is flushed is free.
 */
static int
NvmCommitLogAlloc(void)
{
	XLogRecPtr	flushed = GetFlushRecPtr(NULL);
	int			first = MyProc != NULL ? MyProc->pgprocno % NVM_COMMIT_LOG_PARTS : 0;

	for (int k = 0; k < NVM_COMMIT_LOG_PARTS; k++)
	{
		int			part = (first + k) % NVM_COMMIT_LOG_PARTS;
		int			base = part * NVM_COMMIT_PART_ENTRIES;
		int			result = -1;

		LWLockAcquire(NvmPoolCommitLogLock(part), LW_EXCLUSIVE);
		for (int n = 0; n < NVM_COMMIT_PART_ENTRIES; n++)
		{
			int			i = base + commit_shared->hand[part];

			commit_shared->hand[part] = (commit_shared->hand[part] + 1) % NVM_COMMIT_PART_ENTRIES;
			if (commit_shared->retire_lsn[i] <= flushed)
			{
				commit_shared->retire_lsn[i] = ENTRY_BUSY;
				result = i;
				break;
			}
		}
		LWLockRelease(NvmPoolCommitLogLock(part));
		if (result >= 0)
			return result;
	}
	return -1;
}

/*
 * NvmCommitRecordCarriesMore - whether PostgreSQL's commit record of the
 * current transaction carries something a crash must not lose and a pmem
 * commit record does not hold: its commit timestamp (track_commit_timestamp)
 * or the progress of the session's replication origin (a logical
 * replication apply worker).  A pmem commit would outlive its asynchronous
 * WAL record, and these with it (a subscriber would apply the transaction
 * again); such a transaction commits through WAL, as heap's does.
 */
static bool
NvmCommitRecordCarriesMore(void)
{
	return track_commit_timestamp ||
		(replorigin_session_origin != InvalidRepOriginId &&
		 replorigin_session_origin != DoNotReplicateId);
}

/*
 * NvmCommitRaiseLsn - raise the shared LSN *lsn to at least target (an
 * atomic maximum: async_end, seq_end).  No lock needed.
 */
static void
NvmCommitRaiseLsn(pg_atomic_uint64 *lsn, XLogRecPtr target)
{
	uint64		now = pg_atomic_read_u64(lsn);

	while (now < target && !pg_atomic_compare_exchange_u64(lsn, &now, target))
		;
}

/*
 * NvmCommitAsyncBegin - at pre-commit of a transaction that commits through
 * WAL: if its commit record may be left unflushed (it has an xid, wrote WAL
 * and synchronous_commit is off), count it in async_running until its end
 * (NvmCommitAsyncEnd), so that pmem commits that may see it flush it first.
 * Counted before the commit becomes visible, uncounted after its end is
 * published.  Transactions without an xid are left out: their WAL (a prune,
 * a hint's page image) carries nothing a later transaction can depend on;
 * a sequence that logs its next values assigns an xid for this reason.
 */
static void
NvmCommitAsyncBegin(void)
{
	if (synchronous_commit > SYNCHRONOUS_COMMIT_OFF ||
		XactLastRecEnd == InvalidXLogRecPtr || !xact_had_xid)
		return;
	pg_atomic_fetch_add_u32(&commit_shared->async_running, 1);
	xact_async = true;
}

/*
 * NvmCommitAsyncEnd - the end of a transaction NvmCommitAsyncBegin counted:
 * publish the end of its commit record (XactLastCommitEnd, set by its
 * commit) as async_end, then uncount it.
 */
static void
NvmCommitAsyncEnd(bool committed)
{
	if (!xact_async)
		return;
	xact_async = false;
	if (committed)
		NvmCommitRaiseLsn(&commit_shared->async_end, XactLastCommitEnd);
	/* a full barrier: a reader that sees it uncounted sees its end */
	pg_atomic_fetch_sub_u32(&commit_shared->async_running, 1);
}

/*
 * NvmCommitInsertEnd - the WAL insert position as a position WAL can be
 * flushed to: every record inserted so far ends at or before it.
 * GetXLogInsertRecPtr gives the position where the next record's data
 * would start, which, at the start of a WAL page, is after the page's
 * header: that page is not written yet, and XLogFlush fails for a request
 * beyond what has been ("xlog flush request ... is not satisfied", t/045).
 * The page boundary is returned then.
 */
static XLogRecPtr
NvmCommitInsertEnd(void)
{
	XLogRecPtr	pos = GetXLogInsertRecPtr();

	if (XLogSegmentOffset(pos, wal_segment_size) == SizeOfXLogLongPHD)
		return pos - SizeOfXLogLongPHD;
	if (pos % XLOG_BLCKSZ == SizeOfXLogShortPHD)
		return pos - SizeOfXLogShortPHD;
	return pos;
}

/*
 * NvmCommitNoteSequences - at the end of a transaction (pre-commit, or
 * abort with look = false): remember the sequences it took values from.
 * nextval logs a sequence's values ahead (32 at a time), and the values a
 * later call hands out are durable only once that WAL record is flushed:
 * heap's commits flush every record before their own, so a row that kept
 * such a value outlives a crash only with the record, and the sequence
 * never hands the value out again.  A pmem commit does not flush WAL, and
 * the record may belong to a transaction still open (a concurrent insert
 * that logged the sequence) or committed asynchronously.  Found through
 * this backend's fast-path lock slots, which hold the RowExclusiveLock a
 * sequence function takes (all slots in use: a lock may have gone to the
 * main lock table, and seq_lost is set).  With look, only sequences are
 * kept (a catalog lookup); an aborted transaction cannot look, and keeps
 * every relation so locked for the next pmem commit to sort out.
 */
static void
NvmCommitNoteSequences(bool look)
{
	Oid			relids[FP_LOCK_SLOTS_PER_BACKEND];
	int			n = 0;
	bool		full = true;

	/*
	 * A standby's transactions take no values: they only read sequences
	 * (and an unlogged one has no main fork there to read its LSN from)
	 */
	if (MyProc == NULL || RecoveryInProgress())
		return;
	LWLockAcquire(&MyProc->fpInfoLock, LW_SHARED);
	for (int i = 0; i < FP_LOCK_SLOTS_PER_BACKEND; i++)
	{
		if (NVM_FP_SLOT_BITS(MyProc->fpLockBits, i) == 0)
			full = false;
		else if (NVM_FP_ROW_EXCLUSIVE(MyProc->fpLockBits, i))
			relids[n++] = MyProc->fpRelId[i];
	}
	LWLockRelease(&MyProc->fpInfoLock);
	if (full)
		seq_lost = true;
	for (int i = 0; i < n; i++)
	{
		bool		known = false;

		if (look && get_rel_relkind(relids[i]) != RELKIND_SEQUENCE)
			continue;
		for (int j = 0; j < seq_nused && !known; j++)
			known = seq_used[j] == relids[i];
		if (known)
			continue;
		if (seq_nused < NVM_SEQ_REMEMBERED)
			seq_used[seq_nused++] = relids[i];
		else
			seq_lost = true;
	}
}

/*
 * NvmCommitSequenceTarget - how far WAL must be flushed for the values of
 * the sequences NvmCommitNoteSequences remembered: the newest LSN of their
 * pages (each value is covered by a record at or before it), or the insert
 * position when one may have been missed.  Caller is in a transaction that
 * can read catalogs and buffers (pre-commit).
 */
static XLogRecPtr
NvmCommitSequenceTarget(void)
{
	XLogRecPtr	target = InvalidXLogRecPtr;

	if (seq_lost)
		return NvmCommitInsertEnd();
	for (int i = 0; i < seq_nused; i++)
	{
		Relation	seqrel;
		Buffer		buf;

		/* a relation an aborted transaction locked, or a dropped sequence */
		if (get_rel_relkind(seq_used[i]) != RELKIND_SEQUENCE)
			continue;
		seqrel = try_relation_open(seq_used[i], AccessShareLock);
		if (seqrel == NULL)
			continue;
		/* an unlogged or temporary sequence's values are not in WAL */
		if (!RelationNeedsWAL(seqrel))
		{
			relation_close(seqrel, AccessShareLock);
			continue;
		}
		buf = ReadBuffer(seqrel, 0);
		target = Max(target, BufferGetLSNAtomic(buf));
		ReleaseBuffer(buf);
		relation_close(seqrel, AccessShareLock);
	}
	return target;
}

/*
 * NvmCommitSequencesForget - the sequences remembered are covered (WAL is
 * flushed past their records, or their LSN is published): forget them.
 */
static void
NvmCommitSequencesForget(void)
{
	seq_nused = 0;
	seq_lost = false;
}

/*
 * NvmCommitSequencesPublish - at pre-commit of a transaction that will not
 * flush WAL itself: raise seq_end to the LSN its session's sequence values
 * need (NvmCommitSequenceTarget), and forget them.  Every pmem commit
 * flushes WAL that far first, whichever session it runs in: the value a
 * session took may reach another session that stores it in an nvm_am
 * table (an application that asks for the next id in one transaction and
 * inserts it in another, through another connection of its pool), and
 * heap's commit there would flush WAL past the sequence's record too.
 * Published before the commit: a value the transaction took is known to
 * others only once it has ended (or, if it hands the value on while still
 * open, not covered).
 */
static void
NvmCommitSequencesPublish(void)
{
	XLogRecPtr	target;

	if (seq_nused == 0 && !seq_lost)
		return;
	target = NvmCommitSequenceTarget();
	NvmCommitSequencesForget();
	NvmCommitRaiseLsn(&commit_shared->seq_end, target);
}

/*
 * NvmCommitOrderFlush - before a pmem commit record is persisted: flush WAL
 * past every asynchronous WAL commit this transaction may have seen, and
 * past the records of the sequences that transactions ending without a
 * flush took values from (seq_end, NvmCommitSequencesPublish: this one
 * published its own just before).  An asynchronous commit became visible
 * after NvmCommitAsyncBegin counted it; while any is counted, WAL is
 * flushed up to the insert position (their records are before it), else
 * up to the newest end published.  Without it a crash kept the pmem commit
 * and lost the asynchronous one it had read from (a row copied from a heap
 * table, a sequence value handed out again: t/045); PostgreSQL's own
 * commits are durable in WAL order.  Costs three atomic reads and a
 * compare when no asynchronous commit and no sequence record is unflushed.
 */
static void
NvmCommitOrderFlush(void)
{
	XLogRecPtr	target;

	if (pg_atomic_read_u32(&commit_shared->async_running) > 0)
		target = NvmCommitInsertEnd();
	else
	{
		pg_read_barrier();
		target = pg_atomic_read_u64(&commit_shared->async_end);
	}
	target = Max(target, pg_atomic_read_u64(&commit_shared->seq_end));
	if (!XLogNeedsFlush(target))
		return;
	XLogFlush(target);
	NvmPoolCountAdd(NVM_STAT_ASYNC_COMMIT_FLUSHES, 1);
}

/*
 * NvmCommitPreCommit - the pre-commit step of a transaction that changed
 * nvm data: write and persist its commit record (nvm-only transactions) or
 * mark its slot PREPARED and leave the decision to WAL and clog.  Any
 * other transaction only has its commit counted if it may be asynchronous
 * (NvmCommitAsyncBegin).
 */
static void
NvmCommitPreCommit(void)
{
	FullTransactionId fxid;
	TransactionId *children;
	int			nchildren;
	int			entry = -1;
	NvmXactSlot *slot;

	fxid = GetTopFullTransactionIdIfAny();
	xact_had_xid = FullTransactionIdIsValid(fxid);

	/*
	 * A commit that will flush WAL (an xid, WAL written, synchronous_commit
	 * on: RecordTransactionCommit's rule) makes every sequence record before
	 * it durable, and NvmCommitEnd forgets the notes: no need to take them.
	 */
	if (!xact_had_xid || XactLastRecEnd == InvalidXLogRecPtr ||
		synchronous_commit == SYNCHRONOUS_COMMIT_OFF)
	{
		NvmCommitNoteSequences(true);
		NvmCommitSequencesPublish();
	}
	if (!xact_wrote_nvm || !xact_had_xid)
	{
		NvmCommitAsyncBegin();
		return;
	}
	nchildren = xactGetCommittedChildren(&children);

	if (XactLastRecEnd == InvalidXLogRecPtr && !IsolationIsSerializable() &&
		nchildren <= NVM_COMMIT_MAX_SUBXIDS && !NvmCommitRecordCarriesMore())
	{
		NvmCommitOrderFlush();
		entry = NvmCommitLogAlloc();
		if (entry < 0)
		{
			/*
			 * Every entry waits for a WAL flush: flush WAL ourselves.  Rare:
			 * the XID_IN_USE record that every batch of NVM_XID_BATCH xids
			 * flushes frees the entries of all commits before it, so only
			 * commits since then and those between their pre-commit and
			 * their end (one per backend) hold entries: 20,000 nvm-only
			 * commits with the WAL writer stopped never filled the log.
			 */
			NvmPoolCountAdd(NVM_STAT_COMMIT_LOG_FULL, 1);
			XLogFlush(NvmCommitInsertEnd());
			entry = NvmCommitLogAlloc();
		}
	}

	if (entry >= 0)
	{
		NvmCommitEntry rec;

		/* ours from now on: an error withdraws and frees it */
		xact_entry = entry;
		memset(&rec, 0, sizeof(rec));
		rec.fxid = U64FromFullTransactionId(fxid);
		rec.nsubxids = nchildren;
		memcpy(rec.subxids, children, nchildren * sizeof(TransactionId));
		rec.crc = NvmCommitEntryCrc(&rec);
		memcpy(NvmPoolCommitEntry(entry), &rec, sizeof(rec));
		NvmPoolPersist(NvmPoolCommitEntry(entry), sizeof(rec));
		NvmPoolCountAdd(NVM_STAT_COMMIT_RECORDS, 1);
		NvmPoolCountAdd(NVM_STAT_COMMIT_DRAINS, 1);
		return;
	}

	/*
	 * Commit through WAL and clog.  Without WAL mode synchronously even if
	 * synchronous_commit is off: clog must never show a commit of an xid in
	 * the pool that a crash can still lose (hint bits, pruning and index
	 * kills rely on it).  In WAL mode as synchronous_commit says (step 6).
	 */
	if (!nvm_wal_log)
		ForceSyncCommit();
	else
		NvmCommitAsyncBegin();
	slot = NvmCommitMySlot();
	if (slot != NULL)
	{
		NvmPoolPublish64(&slot->word, NVM_SLOT_PREPARED |
						 (U64FromFullTransactionId(fxid) & NVM_SLOT_FXID_MASK));
		NvmPoolCountAdd(NVM_STAT_COMMIT_DRAINS, 1);
	}
	NvmPoolCountAdd(NVM_STAT_COMMITS_THROUGH_WAL, 1);
}

/*
 * NvmCommitEnd - the transaction committed, aborted or was prepared for
 * two-phase commit (committed = false): retire or withdraw its commit
 * record and free its slot.
 */
static void
NvmCommitEnd(bool committed)
{
	NvmXactSlot *slot;

	NvmCommitAsyncEnd(committed);
	/* a commit record flushed: so is every WAL record before it */
	if (committed && xact_had_xid && !XLogNeedsFlush(XactLastCommitEnd))
		NvmCommitSequencesForget();
	xact_had_xid = false;

	if (xact_entry >= 0)
	{
		int			i = xact_entry;

		xact_entry = -1;
		if (!committed)
		{
			/* an error after pre-commit: the record must not count */
			NvmPoolPublish64(&NvmPoolCommitEntry(i)->fxid, 0);
		}
		LWLockAcquire(NvmPoolCommitLogLock(i / NVM_COMMIT_PART_ENTRIES), LW_EXCLUSIVE);
		/* a commit record is behind the insert position */
		commit_shared->retire_lsn[i] = committed ? NvmCommitInsertEnd() : 0;
		LWLockRelease(NvmPoolCommitLogLock(i / NVM_COMMIT_PART_ENTRIES));
	}
	if (xact_wrote_nvm)
	{
		xact_wrote_nvm = false;
		slot = NvmCommitMySlot();
		if (slot != NULL)
		{
			/* no drain: a stale slot only costs recovery a clog lookup */
			slot->word = 0;
			NvmPoolFlush(&slot->word, sizeof(uint64));
		}
	}
}

/*
 * NvmCommitXidKnownToClog - can clog be asked about fxid?  It must be older than
 * nextXid and not older than the oldest xid clog keeps.  Caller holds
 * XactTruncationLock shared.
 */
static bool
NvmCommitXidKnownToClog(FullTransactionId fxid, FullTransactionId next)
{
	TransactionId xid = XidFromFullTransactionId(fxid);

	if (!FullTransactionIdPrecedes(fxid, next))
		return false;
	if (U64FromFullTransactionId(next) - U64FromFullTransactionId(fxid) >
		(uint64) MaxTransactionId / 2)
		return false;
	return TransactionIdIsNormal(xid) &&
		!TransactionIdPrecedes(xid, ShmemVariableCache->oldestClogXid);
}

/*
 * NvmCommitRecover - resolve the transactions a crash interrupted (see the
 * file header).  Caller (NvmRecoveryEnsureReady) holds the pool's directory lock
 * exclusively, so no backend writes to the pool meanwhile.
 */
void
NvmCommitRecover(void)
{
	FullTransactionId next = ReadNextFullTransactionId();
	instr_time	start;
	instr_time	duration;
	int			nwinners = 0;
	int			nlosers = 0;
	int			nprepared_committed = 0;
	int			nprepared_aborted = 0;
	int		   *winners = palloc(sizeof(int) * NVM_COMMIT_LOG_ENTRIES);
	XLogRecPtr	lastlsn = InvalidXLogRecPtr;

	INSTR_TIME_SET_CURRENT(start);
	LWLockAcquire(XactTruncationLock, LW_SHARED);

	/* commit records: find the winners and log their resolution */
	for (int i = 0; i < NVM_COMMIT_LOG_ENTRIES; i++)
	{
		NvmCommitEntry *e = NvmPoolCommitEntry(i);
		FullTransactionId fxid;
		TransactionId xid;

		if (e->fxid == 0)
			continue;
		fxid = FullTransactionIdFromU64(e->fxid);
		xid = XidFromFullTransactionId(fxid);
		if (!NvmCommitEntryValid(e))
		{
			/* torn: its drain never completed, so it was never a commit */
		}
		else if (!NvmCommitXidKnownToClog(fxid, next))
		{
			if (!FullTransactionIdPrecedes(fxid, next))
				ereport(WARNING,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("nvm_am commit log holds transaction %u, which is not older than the next transaction id %u",
								xid, XidFromFullTransactionId(next)),
						 errdetail("Its commit cannot be restored; WAL that covered it was lost or reset."),
						 errhint("Check the nvm_am tables with nvm_am_check().")));
		}
		else if (!TransactionIdDidCommit(xid) && !TransactionIdDidAbort(xid))
		{
			NvmXlogCommitResolved(xid, e->nsubxids, e->subxids);
			lastlsn = NvmCommitInsertEnd();
			winners[nwinners++] = i;
			continue;			/* cleared below, once clog knows */
		}
		/* resolved already, or never a commit */
		e->fxid = 0;
		NvmPoolFlush(&e->fxid, sizeof(uint64));
	}
	if (nwinners > 0)
	{
		XLogFlush(lastlsn);
		for (int w = 0; w < nwinners; w++)
		{
			NvmCommitEntry *e = NvmPoolCommitEntry(winners[w]);

			TransactionIdCommitTree(XidFromFullTransactionId(FullTransactionIdFromU64(e->fxid)),
									e->nsubxids, e->subxids);
			e->fxid = 0;
			NvmPoolFlush(&e->fxid, sizeof(uint64));
		}
	}

	/* slots: losers and prepared transactions */
	for (int i = 0; i < NVM_XACT_SLOTS; i++)
	{
		NvmXactSlot *slot = NvmPoolXactSlot(i);
		FullTransactionId fxid;
		bool		committed;

		if (slot->word == 0)
			continue;
		fxid = FullTransactionIdFromU64(slot->word & NVM_SLOT_FXID_MASK);
		committed = NvmCommitXidKnownToClog(fxid, next) &&
			TransactionIdDidCommit(XidFromFullTransactionId(fxid));
		if (slot->word & NVM_SLOT_PREPARED)
		{
			if (committed)
				nprepared_committed++;
			else
				nprepared_aborted++;
		}
		else if (!committed)
			nlosers++;
		slot->word = 0;
		NvmPoolFlush(&slot->word, sizeof(uint64));
	}
	LWLockRelease(XactTruncationLock);
	NvmPoolDrain();
	pfree(winners);

	INSTR_TIME_SET_CURRENT(duration);
	INSTR_TIME_SUBTRACT(duration, start);
	NvmPoolCountAdd(NVM_STAT_RECOVERY_US, INSTR_TIME_GET_MICROSEC(duration));
	NvmPoolCountAdd(NVM_STAT_FROZEN_WINNERS, nwinners);
	NvmPoolCountAdd(NVM_STAT_RECOVERED_LOSERS, nlosers);
	NvmPoolCountAdd(NVM_STAT_PREPARED_RESOLVED_COMMIT, nprepared_committed);
	NvmPoolCountAdd(NVM_STAT_PREPARED_RESOLVED_ABORT, nprepared_aborted);
	if (nwinners + nlosers + nprepared_committed + nprepared_aborted > 0)
		ereport(LOG,
				(errmsg("nvm_am recovered %d committed, %d interrupted and %d prepared transactions in %.3f ms",
						nwinners, nlosers, nprepared_committed + nprepared_aborted,
						NvmPoolCounterValue(NVM_STAT_RECOVERY_US) / 1000.0)));
}

/*
 * NvmCommitXactCallback - the commit path at the points of a transaction's
 * end (the other modules' end-of-transaction work has callbacks of its
 * own): pre-commit writes the commit record, the end retires or withdraws
 * it; then this backend's frame pins and protected xid are released.
 */
static void
NvmCommitXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			NvmCommitPreCommit();
			return;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			NvmCommitEnd(true);
			break;
		case XACT_EVENT_ABORT:
			/* values taken in a transaction that aborts stay taken */
			NvmCommitNoteSequences(false);
			NvmCommitEnd(false);
			break;
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			NvmCommitEnd(false);
			break;
		default:
			return;
	}
	NvmXlogAtXactEnd();
	/* scans are over: drop frame pins left by scans an error ended */
	NvmPoolReleaseAllPins();
}

/*
 * NvmCommitInit - register the transaction callback, and make the WAL
 * writer flush what it writes unless the configuration sets
 * wal_writer_flush_after; called from _PG_init in the postmaster, before
 * the WAL writer is started.
 *
 * Why: the PostgreSQL commit record of a transaction that wrote only to
 * the pool is asynchronous (step 3 above).  An asynchronous commit wakes
 * the WAL writer whenever WAL is flushed less far than the last completed
 * WAL page (XLogSetAsyncXactLSN).  With wal_writer_flush_after at its
 * built-in default the writer writes WAL but flushes it only every 1 MB or
 * wal_writer_delay, so that is the case after almost every commit: each
 * commit sent the writer a signal and cost two context switches (a fifth
 * of a core at 50,000 commits a second, and 45 % of YCSB-A's throughput
 * on two cores).  With 0 the writer flushes what it writes, and commits
 * wake it about once per WAL page.  The value is a default
 * (PGC_S_DYNAMIC_DEFAULT): a value in postgresql.conf or ALTER SYSTEM
 * wins.  Heap transactions that commit synchronously flush WAL themselves
 * and are not affected.
 */
void
NvmCommitInit(void)
{
	RegisterXactCallback(NvmCommitXactCallback, NULL);
	SetConfigOption("wal_writer_flush_after", "0", PGC_POSTMASTER,
					PGC_S_DYNAMIC_DEFAULT);
}
