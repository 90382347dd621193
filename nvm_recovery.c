/*-------------------------------------------------------------------------
 *
 * nvm_recovery.c
 *	  Settling what a crash interrupted, before any backend reads or writes
 *	  the pool: relation creations and drops whose transaction did not
 *	  finish (the directory entries' CREATING and DROPPING flags), and the
 *	  transactions in the slots and the commit log (nvm_commit.c).  The
 *	  "nvm_am recovery" background worker runs it as soon as the server
 *	  accepts connections; failing that, the first backend that touches
 *	  nvm_am does (NvmRecoveryEnsureReady, called by every entry point).
 *	  Entries a prepared transaction left flagged (it cannot be told when
 *	  COMMIT PREPARED or ROLLBACK PREPARED ends it) are settled the same
 *	  way by the worker, which looks for them every second while there
 *	  are any, and by a session that drops such a relation.
 *
 *	  A directory entry is created with state USED|CREATING|xid and a drop
 *	  sets DROPPING|xid, where xid is the top-level transaction id
 *	  (nvm_storage.c); commit or abort clears the flags or frees the entry.
 *	  After a crash each flagged entry is decided through clog: created by
 *	  a transaction that did not commit, or dropped by one that did, means
 *	  freed; anything else means kept; an entry of a transaction still in
 *	  progress (a prepared one) waits.  Every such xid is below nextXid
 *	  after redo (nvm_xlog.c, XID_IN_USE), so clog can be asked.
 *
 * Locks: the pool's directory lock, exclusive, for the whole resolution;
 * XactTruncationLock (shared) while clog is asked about an old xid.
 *
 * On-pool layout: none of its own (directory entries: nvm_pool.c; slots
 * and commit log: nvm_commit.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "utils/wait_event.h"

#include "nvm_hooks.h"

typedef struct NvmRecoveryShared
{
	bool		resolved;		/* what the last crash interrupted is settled */
	pg_atomic_uint32 unsettled; /* entries flagged by prepared transactions */
} NvmRecoveryShared;

static NvmRecoveryShared *recovery_shared = NULL;

/* how often the worker looks for entries of finished prepared transactions */
#define NVM_RECOVERY_NAP_MS		1000

PGDLLEXPORT void nvm_am_recovery_main(Datum arg);

Size
NvmRecoveryShmemSize(void)
{
	return sizeof(NvmRecoveryShared);
}

void
NvmRecoveryShmemInit(void)
{
	bool		found;

	recovery_shared = ShmemInitStruct("nvm_am recovery", sizeof(NvmRecoveryShared), &found);
	if (!found)
	{
		recovery_shared->resolved = false;
		pg_atomic_init_u32(&recovery_shared->unsettled, 0);
	}
}

/*
 * NvmRecoverySettleEntry - decide directory entry i if its CREATING or
 * DROPPING flag belongs to a transaction that has finished (see the file
 * header); returns true if a flag stays because its transaction is still
 * running (after a restart: a prepared transaction).  Caller holds the
 * directory lock exclusively.
 */
static bool
NvmRecoverySettleEntry(int i)
{
	RelFileNode node;
	uint64		state;
	TransactionId xid;
	bool		known;
	bool		committed;

	if (!NvmPoolRelGetKey(i, &node, &state) ||
		!(state & (NVM_REL_CREATING | NVM_REL_DROPPING)))
		return false;
	xid = NVM_REL_STATE_XID(state);
	if (TransactionIdIsNormal(xid) && TransactionIdIsInProgress(xid))
		return true;

	/*
	 * clog no longer knows an xid older than oldestClogXid.  Such an
	 * entry's relation cannot exist any more: a relation holds its
	 * database's datfrozenxid, and so clog truncation, back to before the
	 * xids that created or tried to drop it.  So it is freed.
	 */
	LWLockAcquire(XactTruncationLock, LW_SHARED);
	known = !TransactionIdIsNormal(xid) ||
		!TransactionIdPrecedes(xid, ShmemVariableCache->oldestClogXid);
	committed = known && NvmCommitXidCommitted(xid, NULL);
	LWLockRelease(XactTruncationLock);
	if (!known ||
		((state & NVM_REL_CREATING) && !committed) ||
		((state & NVM_REL_DROPPING) && committed))
		NvmXlogRelFree(i);
	else
		NvmPoolRelSetState(i, NVM_REL_USED | (state & NVM_REL_KEPT_FLAGS));
	NvmPoolCountAdd(NVM_STAT_PENDING_RESOLVED, 1);
	return false;
}

/*
 * NvmRecoveryResolveLifecycle - settle every directory entry whose flags
 * belong to a finished transaction; remember, for the recovery worker,
 * whether some belong to running (prepared) ones.  Caller holds the
 * directory lock exclusively.
 */
static void
NvmRecoveryResolveLifecycle(void)
{
	int			n = NvmPoolDirSize();
	bool		unsettled = false;

	pg_atomic_write_u32(&recovery_shared->unsettled, 0);
	for (int i = 0; i < n; i++)
		unsettled |= NvmRecoverySettleEntry(i);
	if (unsettled)
		NvmRecoveryNoteUnsettled();
}

/*
 * NvmRecoverySettle - settle directory entry dirIndex now if another,
 * finished transaction left its flags (a prepared one that was committed
 * or rolled back).  Caller holds the directory lock exclusively.
 */
void
NvmRecoverySettle(int dirIndex)
{
	RelFileNode node;
	uint64		state;

	if (NvmPoolRelGetKey(dirIndex, &node, &state) &&
		(state & (NVM_REL_CREATING | NVM_REL_DROPPING)) &&
		!TransactionIdIsCurrentTransactionId(NVM_REL_STATE_XID(state)))
		(void) NvmRecoverySettleEntry(dirIndex);
}

/*
 * NvmRecoverySettleUnsettled - settle, now, the entries prepared
 * transactions left flagged, if there are any.
 */
void
NvmRecoverySettleUnsettled(void)
{
	if (pg_atomic_read_u32(&recovery_shared->unsettled) == 0)
		return;
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	NvmRecoveryResolveLifecycle();
	LWLockRelease(NvmPoolDirLock());
}

/*
 * NvmRecoveryNoteUnsettled - a prepared transaction left directory entries
 * flagged: the recovery worker settles them once it has finished.
 */
void
NvmRecoveryNoteUnsettled(void)
{
	pg_atomic_write_u32(&recovery_shared->unsettled, 1);
}

/*
 * NvmRecoveryEnsureReady - make sure nvm_am can be used by this backend:
 * the library is preloaded, and what a crash interrupted is settled.
 * Every entry point that reads or writes the pool calls this first.
 */
void
NvmRecoveryEnsureReady(void)
{
	NvmPoolCheckPreloaded();
	if (recovery_shared->resolved)
		return;

	/*
	 * A hot standby in WAL mode reads what redo wrote; what a crash left
	 * unsettled is settled after promotion, by the first access then.
	 */
	if (RecoveryInProgress() && nvm_wal_log)
		return;
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am tables cannot be accessed during recovery"),
				 errdetail("nvm_am data is not carried by WAL unless nvm_am.wal_log is on, so this standby has none."),
				 errhint("Set nvm_am.wal_log = on on the primary and on the standby, and make the standby anew from a base backup.")));

	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	if (!recovery_shared->resolved)
	{
		/* frames that WAL redo kept (a base backup's copy) come back */
		NvmPoolReclaimKept();
		NvmRecoveryResolveLifecycle();
		NvmCommitRecover();
		recovery_shared->resolved = true;
	}
	LWLockRelease(NvmPoolDirLock());
}

/* ----------------------------------------------------------------
 * The recovery worker: runs recovery as soon as connections are possible,
 * then idles (a worker that exits would not be started again after the
 * next crash).
 * ----------------------------------------------------------------
 */

/*
 * NvmRecoveryInit - register the recovery worker; called from _PG_init in
 * the postmaster.
 */
void
NvmRecoveryInit(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "nvm_am");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "nvm_am_recovery_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "nvm_am recovery");
	snprintf(worker.bgw_type, BGW_MAXLEN, "nvm_am recovery");
	RegisterBackgroundWorker(&worker);
}

void
nvm_am_recovery_main(Datum arg)
{
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	NvmRecoveryEnsureReady();
	while (!ShutdownRequestPending)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 NVM_RECOVERY_NAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();

		/* entries that prepared transactions left flagged */
		NvmRecoverySettleUnsettled();
	}
	proc_exit(0);
}
