/*-------------------------------------------------------------------------
 *
 * pmem_smgr_hook.c
 *	  The hooks of nvm_am into PostgreSQL:
 *
 *	  - relation storage lifecycle.  Storage in the pool is created when a
 *		relation gets a new relfilenode and dropped when the relfilenode is
 *		dropped (DROP TABLE, DROP SCHEMA ... CASCADE, TRUNCATE, the rewrite of
 *		VACUUM FULL, CLUSTER and ALTER TABLE, DROP DATABASE).  Like heap's
 *		pending deletes, both take effect at commit and are undone at abort
 *		or at the abort of the subtransaction that made them.
 *	  - the custom WAL resource manager (id NVM_RMGR_ID, 141) and its two
 *		records: XID_IN_USE makes every transaction id that is written into
 *		the pool (in a tuple or a directory entry) known to WAL first, a
 *		batch of ids per record; COMMIT_RESOLVED commits, in clog, a
 *		transaction whose commit recovery found in the pmem commit log only
 *		(nvm_commit.c).
 *	  - the transaction callbacks that drive the commit path of
 *		nvm_commit.c.
 *	  - the resolution, after a restart, of lifecycle changes that a crash
 *		interrupted.
 *	  - the relation's main-fork file, kept sparse at the table's size for
 *		PostgreSQL's size functions and prefetching.
 *	  - transaction end: frame pins of scans that an error ended are
 *		dropped.
 *
 * Crash safety of the lifecycle: a directory entry is created with state
 * USED|CREATING|xid and a drop sets DROPPING|xid, where xid is the
 * top-level transaction id.  At commit or abort the flags are cleared or
 * the entry freed.  After a crash the first backend that touches nvm_am
 * (before any nvm table can be read) asks clog for each flagged entry:
 * created by a transaction that did not commit, or dropped by one that
 * did, means freed; anything else means kept.  The XID_IN_USE record
 * makes sure that a transaction id whose writes reached the pool cannot be
 * handed out again after a crash: redo advances nextXid past the end of
 * its batch.  It must lie after the redo pointer of the last checkpoint to
 * be replayed, so a checkpoint starts a new batch.
 *
 * Locks: the pool's directory lock (exclusive) for every state change;
 * a spinlock around the shared protected-xid horizon; XactTruncationLock
 * (shared) while clog is asked about an old xid.  Drops happen while
 * the dropping transaction holds AccessExclusiveLock on the relation.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/commit_ts.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlog_internal.h"
#include "access/xlogreader.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "storage/shmem.h"
#include "storage/fd.h"
#include "storage/smgr.h"
#include "common/relpath.h"
#include <unistd.h>
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "nvm_am.h"

#define NVM_RMGR_ID			141
#define XLOG_NVM_XID_IN_USE		0x00
#define XLOG_NVM_COMMIT_RESOLVED 0x10

/* xids covered by one XID_IN_USE record, at most */
#define NVM_XID_BATCH			4096
/* clog's transactions per page (clog.c does not export it) */
#define NVM_CLOG_XACTS_PER_PAGE (BLCKSZ * 4)
/* commit_ts's transactions per page (commit_ts.c does not export it) */
#define NVM_COMMIT_TS_XACTS_PER_PAGE (BLCKSZ / (sizeof(TimestampTz) + sizeof(RepOriginId)))

typedef struct NvmHooksShared
{
	bool		resolved;		/* interrupted lifecycle changes resolved */
	slock_t		mutex;
	TransactionId protected_xid;	/* end of the newest flushed batch */
	XLogRecPtr	protected_lsn;	/* where its record is */
} NvmHooksShared;

typedef struct PendingAction
{
	RelFileNode node;
	int			dirIndex;
	bool		isCreate;
	int			nestLevel;
	struct PendingAction *next;
} PendingAction;

static NvmHooksShared *hooks_shared = NULL;
static PendingAction *pending = NULL;
static TransactionId last_logged_xid = InvalidTransactionId;
static object_access_hook_type prev_object_access_hook = NULL;

/* ----------------------------------------------------------------
 * WAL resource manager
 * ----------------------------------------------------------------
 */

/* XID_IN_USE: xids up to and including high may be in the pool */
typedef struct XlNvmXidInUse
{
	TransactionId xid;			/* the xid that started the batch */
	TransactionId high;			/* end of the batch */
} XlNvmXidInUse;

/* COMMIT_RESOLVED: xid and its subxids committed */
typedef struct XlNvmCommitResolved
{
	TransactionId xid;
	int32		nsubxids;
	TransactionId subxids[FLEXIBLE_ARRAY_MEMBER];
} XlNvmCommitResolved;

static void
nvm_rmgr_redo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_NVM_XID_IN_USE)
	{
		XlNvmXidInUse xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		AdvanceNextFullTransactionIdPastXid(xlrec.high);
	}
	else if (info == XLOG_NVM_COMMIT_RESOLVED)
	{
		XlNvmCommitResolved *xlrec = (XlNvmCommitResolved *) XLogRecGetData(record);

		NvmCommitRedo(xlrec->xid, xlrec->nsubxids, xlrec->subxids);
	}
	else
		elog(PANIC, "nvm_am redo: unknown record type %u", info);
}

static void
nvm_rmgr_desc(StringInfo buf, XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_NVM_XID_IN_USE)
	{
		XlNvmXidInUse xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		appendStringInfo(buf, "xid %u up to %u", xlrec.xid, xlrec.high);
	}
	else if (info == XLOG_NVM_COMMIT_RESOLVED)
	{
		XlNvmCommitResolved *xlrec = (XlNvmCommitResolved *) XLogRecGetData(record);

		appendStringInfo(buf, "xid %u with %d subtransactions", xlrec->xid,
						 xlrec->nsubxids);
	}
}

static const char *
nvm_rmgr_identify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_NVM_XID_IN_USE:
			return "XID_IN_USE";
		case XLOG_NVM_COMMIT_RESOLVED:
			return "COMMIT_RESOLVED";
	}
	return NULL;
}

static RmgrData nvm_rmgr = {
	.rm_name = "nvm_am",
	.rm_redo = nvm_rmgr_redo,
	.rm_desc = nvm_rmgr_desc,
	.rm_identify = nvm_rmgr_identify,
};

/*
 * XidBatchEnd - the last xid of the batch that xid starts: at most
 * NVM_XID_BATCH ids, and never beyond xid's clog page (or commit_ts page,
 * if commit timestamps are tracked), because after a crash redo moves
 * nextXid to the end of the batch and those pages must exist already.
 */
static TransactionId
XidBatchEnd(TransactionId xid)
{
	uint64		end = (uint64) xid + NVM_XID_BATCH - 1;

	end = Min(end, (uint64) (xid | (NVM_CLOG_XACTS_PER_PAGE - 1)));
	if (track_commit_timestamp)
		end = Min(end, ((uint64) xid / NVM_COMMIT_TS_XACTS_PER_PAGE + 1) *
				  NVM_COMMIT_TS_XACTS_PER_PAGE - 1);
	end = Min(end, (uint64) MaxTransactionId);
	return (TransactionId) end;
}

/*
 * NvmProtectXid - make sure xid cannot be handed out again after a crash
 * once something carrying it reaches the pool.  A flushed XID_IN_USE
 * record at or after the last checkpoint's redo pointer must cover it;
 * one record covers a batch of xids, so most calls only compare.
 */
static void
NvmProtectXid(TransactionId xid)
{
	XLogRecPtr	redo;
	XLogRecPtr	lsn;
	bool		covered;
	XlNvmXidInUse xlrec;

	if (xid == last_logged_xid)
		return;
	redo = GetRedoRecPtr();
	SpinLockAcquire(&hooks_shared->mutex);
	covered = TransactionIdIsValid(hooks_shared->protected_xid) &&
		hooks_shared->protected_lsn >= redo &&
		!TransactionIdFollows(xid, hooks_shared->protected_xid);
	SpinLockRelease(&hooks_shared->mutex);

	if (!covered)
	{
		xlrec.xid = xid;
		xlrec.high = XidBatchEnd(xid);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		lsn = XLogInsert(NVM_RMGR_ID, XLOG_NVM_XID_IN_USE);
		XLogFlush(lsn);
		PoolCountAdd(NVM_STAT_XID_WAL_RECORDS, 1);

		SpinLockAcquire(&hooks_shared->mutex);
		if (!TransactionIdIsValid(hooks_shared->protected_xid) ||
			hooks_shared->protected_lsn < redo ||
			TransactionIdFollows(xlrec.high, hooks_shared->protected_xid))
		{
			hooks_shared->protected_xid = xlrec.high;
			hooks_shared->protected_lsn = lsn;
		}
		SpinLockRelease(&hooks_shared->mutex);
	}
	last_logged_xid = xid;
}

/*
 * NvmCommitLogResolved - WAL-log that xid (with nsubxids committed
 * subtransactions) committed; recovery calls it for a winner whose
 * PostgreSQL commit record was lost.  The caller flushes WAL.
 */
void
NvmCommitLogResolved(TransactionId xid, int nsubxids, TransactionId *subxids)
{
	XlNvmCommitResolved xlrec;

	xlrec.xid = xid;
	xlrec.nsubxids = nsubxids;
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, offsetof(XlNvmCommitResolved, subxids));
	if (nsubxids > 0)
		XLogRegisterData((char *) subxids, nsubxids * sizeof(TransactionId));
	(void) XLogInsert(NVM_RMGR_ID, XLOG_NVM_COMMIT_RESOLVED);
}

/*
 * NvmBeforeWrite - call before the current (sub)transaction's first write
 * of tuple data into the pool.
 */
void
NvmBeforeWrite(void)
{
	NvmProtectXid(GetCurrentTransactionId());
	NvmCommitFirstWrite();
}

/*
 * NvmStorageExtended - called after block blkno was added to a relation.
 * Grows the relation's main-fork file, sparsely, to the same number of
 * blocks, so that what reads file sizes (pg_relation_size(), \d+, and the
 * prefetching of ANALYZE and bitmap heap scans) sees the table's real size.
 * The pages themselves are never read from the file.  At a 1 GB boundary
 * smgrextend() creates the next segment.  Caller holds the extension lock.
 */
void
NvmStorageExtended(SMgrRelation smgr, BlockNumber blkno)
{
	char	   *path;
	char	   *segpath;
	int			fd;
	BlockNumber segno = blkno / RELSEG_SIZE;

	if (blkno > 0 && blkno % RELSEG_SIZE == 0)
	{
		PGAlignedBlock zero;

		memset(zero.data, 0, BLCKSZ);
		smgrextend(smgr, MAIN_FORKNUM, blkno, zero.data, true);
		return;
	}
	path = relpathbackend(smgr->smgr_rnode.node, smgr->smgr_rnode.backend, MAIN_FORKNUM);
	segpath = segno == 0 ? path : psprintf("%s.%u", path, segno);
	fd = OpenTransientFile(segpath, O_RDWR | PG_BINARY);
	if (fd >= 0)
	{
		/* the size is information only: a failure is not worth an error */
		if (ftruncate(fd, (off_t) (blkno % RELSEG_SIZE + 1) * BLCKSZ) != 0)
			elog(DEBUG1, "could not set size of \"%s\": %m", segpath);
		CloseTransientFile(fd);
	}
	if (segpath != path)
		pfree(segpath);
	pfree(path);
}

/* ----------------------------------------------------------------
 * Shared memory and resolution after a restart
 * ----------------------------------------------------------------
 */

Size
NvmHooksShmemSize(void)
{
	return sizeof(NvmHooksShared);
}

void
NvmHooksShmemInit(void)
{
	bool		found;

	hooks_shared = ShmemInitStruct("nvm_am hooks", sizeof(NvmHooksShared), &found);
	if (!found)
	{
		hooks_shared->resolved = false;
		SpinLockInit(&hooks_shared->mutex);
		hooks_shared->protected_xid = InvalidTransactionId;
		hooks_shared->protected_lsn = InvalidXLogRecPtr;
	}
}

/*
 * NvmEnsureReady - make sure nvm_am can be used by this backend: the
 * library is preloaded, and lifecycle changes interrupted by a crash are
 * resolved through clog.  Every entry point that reads or writes the pool
 * calls this first.
 */
void
NvmEnsureReady(void)
{
	NvmCheckPreloaded();
	if (hooks_shared->resolved)
		return;
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am tables cannot be accessed during recovery"),
				 errdetail("nvm_am data is not carried by WAL, so a standby has none.")));

	LWLockAcquire(PoolDirLock(), LW_EXCLUSIVE);
	if (!hooks_shared->resolved)
	{
		int			n = PoolDirSize();

		for (int i = 0; i < n; i++)
		{
			RelFileNode node;
			uint64		state;
			TransactionId xid;
			bool		known;
			bool		committed;

			if (!PoolRelGetKey(i, &node, &state))
				continue;
			if (!(state & (NVM_REL_CREATING | NVM_REL_DROPPING)))
				continue;
			xid = NVM_REL_STATE_XID(state);

			/*
			 * clog no longer knows an xid older than oldestClogXid.  Such an
			 * entry's relation cannot exist any more: a relation holds its
			 * database's datfrozenxid, and so clog truncation, back to before
			 * the xids that created or tried to drop it.  So it is freed.
			 */
			LWLockAcquire(XactTruncationLock, LW_SHARED);
			known = !TransactionIdIsNormal(xid) ||
				!TransactionIdPrecedes(xid, ShmemVariableCache->oldestClogXid);
			committed = known && NvmXidCommitted(xid);
			LWLockRelease(XactTruncationLock);
			if (!known ||
				((state & NVM_REL_CREATING) && !committed) ||
				((state & NVM_REL_DROPPING) && committed))
				PoolRelFree(i);
			else
				PoolRelSetState(i, NVM_REL_USED);
			PoolCountAdd(NVM_STAT_PENDING_RESOLVED, 1);
		}
		NvmCommitRecover();
		hooks_shared->resolved = true;
	}
	LWLockRelease(PoolDirLock());
}

/* ----------------------------------------------------------------
 * Pending lifecycle actions
 * ----------------------------------------------------------------
 */

static void
PendingAdd(const RelFileNode *node, int dirIndex, bool isCreate)
{
	PendingAction *a = MemoryContextAlloc(TopMemoryContext, sizeof(PendingAction));

	a->node = *node;
	a->dirIndex = dirIndex;
	a->isCreate = isCreate;
	a->nestLevel = GetCurrentTransactionNestLevel();
	a->next = pending;
	pending = a;
}

/*
 * NvmStorageCreate - create empty storage for a new relfilenode; it is
 * freed again if the (sub)transaction aborts.
 */
void
NvmStorageCreate(const RelFileNode *node)
{
	TransactionId xid = GetTopTransactionId();
	int			idx;

	NvmEnsureReady();
	NvmProtectXid(xid);
	LWLockAcquire(PoolDirLock(), LW_EXCLUSIVE);
	idx = PoolRelCreate(node, xid);
	LWLockRelease(PoolDirLock());
	PendingAdd(node, idx, true);
}

/*
 * NvmStorageScheduleDrop - free a relfilenode's storage at commit, if the
 * pool holds it.  Caller holds AccessExclusiveLock on the relation.
 */
void
NvmStorageScheduleDrop(const RelFileNode *node)
{
	int			idx;
	uint64		state;

	NvmEnsureReady();
	idx = PoolRelLookup(node);
	if (idx < 0)
		return;
	NvmProtectXid(GetTopTransactionId());
	LWLockAcquire(PoolDirLock(), LW_EXCLUSIVE);
	state = PoolRelGetState(idx);
	if (!(state & NVM_REL_DROPPING))
	{
		/* keep CREATING; a creating xid is our own top-level xid */
		PoolRelSetState(idx, (state & ~UINT64CONST(0xFFFFFFFF)) |
						NVM_REL_DROPPING | GetTopTransactionId());
		LWLockRelease(PoolDirLock());
		PendingAdd(node, idx, false);
	}
	else
		LWLockRelease(PoolDirLock());
}

/*
 * PendingApply - carry out (commit) or undo (abort) the pending actions of
 * nesting level minLevel and deeper, newest first.
 */
static void
PendingApply(bool commit, int minLevel)
{
	PendingAction **prev = &pending;
	PendingAction *a = pending;

	if (pending == NULL)
		return;
	LWLockAcquire(PoolDirLock(), LW_EXCLUSIVE);
	while (a != NULL)
	{
		PendingAction *next = a->next;
		RelFileNode node;
		uint64		state;

		if (a->nestLevel < minLevel)
		{
			prev = &a->next;
			a = next;
			continue;
		}
		/* the entry may have gone already: created and dropped here */
		if (PoolRelGetKey(a->dirIndex, &node, &state) &&
			RelFileNodeEquals(node, a->node))
		{
			if (a->isCreate == commit)
			{
				/* created and committed, or dropped and aborted: keep */
				uint64		flag = commit ? NVM_REL_CREATING : NVM_REL_DROPPING;

				state &= ~flag;
				if (!(state & (NVM_REL_CREATING | NVM_REL_DROPPING)))
					state = NVM_REL_USED;
				PoolRelSetState(a->dirIndex, state);
			}
			else
				PoolRelFree(a->dirIndex);
		}
		*prev = next;
		pfree(a);
		a = next;
	}
	LWLockRelease(PoolDirLock());
}

static void
NvmXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			NvmCommitPreCommit();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			NvmCommitEnd(true);
			PendingApply(true, 0);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			NvmCommitEnd(false);
			PendingApply(false, 0);
			break;
		case XACT_EVENT_PREPARE:
			NvmCommitEnd(false);
			break;
		case XACT_EVENT_PRE_PREPARE:
			if (pending != NULL)
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("cannot prepare a transaction that created or dropped nvm_am storage"),
						 errhint("Commit the DDL on nvm_am tables before using PREPARE TRANSACTION.")));
			break;
		default:
			break;
	}
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT)
	{
		last_logged_xid = InvalidTransactionId;
		/* scans are over: drop frame pins left by scans an error ended */
		PoolReleaseAllPins();
	}
}

static void
NvmSubXactCallback(SubXactEvent event, SubTransactionId mySubid,
				   SubTransactionId parentSubid, void *arg)
{
	int			level = GetCurrentTransactionNestLevel();

	if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		for (PendingAction *a = pending; a != NULL; a = a->next)
			if (a->nestLevel >= level)
				a->nestLevel = level - 1;
	}
	else if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		/*
		 * Frame pins of scans that the error ended stay until the end of the
		 * top-level transaction: a scan (cursor) opened before the savepoint
		 * may still hold pins it took inside it.
		 */
		PendingApply(false, level);
	}
}

/* ----------------------------------------------------------------
 * Drops: object access hook
 * ----------------------------------------------------------------
 */

static void
NvmScheduleDropDatabase(Oid dbid)
{
	int			n = PoolDirSize();

	for (int i = 0; i < n; i++)
	{
		RelFileNode node;
		uint64		state;
		bool		found;

		LWLockAcquire(PoolDirLock(), LW_SHARED);
		found = PoolRelGetKey(i, &node, &state);
		LWLockRelease(PoolDirLock());
		if (found && node.dbNode == dbid)
			NvmStorageScheduleDrop(&node);
	}
}

static void
NvmScheduleDropRelation(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class form;
	Oid			amoid;

	if (!HeapTupleIsValid(tp))
		return;
	form = (Form_pg_class) GETSTRUCT(tp);
	amoid = get_table_am_oid("nvm_am", true);
	if (RELKIND_HAS_TABLE_AM(form->relkind) && OidIsValid(amoid) &&
		form->relam == amoid && OidIsValid(form->relfilenode))
	{
		RelFileNode node;

		node.spcNode = OidIsValid(form->reltablespace) ? form->reltablespace : MyDatabaseTableSpace;
		node.dbNode = MyDatabaseId;
		node.relNode = form->relfilenode;
		NvmStorageScheduleDrop(&node);
	}
	ReleaseSysCache(tp);
}

static void
NvmObjectAccess(ObjectAccessType access, Oid classId, Oid objectId,
				int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access != OAT_DROP || !nvm_am_preloaded)
		return;
	if (classId == RelationRelationId && subId == 0)
		NvmScheduleDropRelation(objectId);
	else if (classId == DatabaseRelationId)
		NvmScheduleDropDatabase(objectId);
}

/*
 * NvmHooksInit - install the hooks; called from _PG_init in the postmaster.
 */
void
NvmHooksInit(void)
{
	RegisterCustomRmgr(NVM_RMGR_ID, &nvm_rmgr);
	prev_object_access_hook = object_access_hook;
	object_access_hook = NvmObjectAccess;
	RegisterXactCallback(NvmXactCallback, NULL);
	RegisterSubXactCallback(NvmSubXactCallback, NULL);
}
