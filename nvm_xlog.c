/*-------------------------------------------------------------------------
 *
 * nvm_xlog.c
 *	  The custom WAL resource manager of nvm_am (id NVM_RMGR_ID, 141) and
 *	  its two records:
 *
 *	  - XID_IN_USE makes every transaction id that is written into the pool
 *		(in a tuple or a directory entry) known to WAL first, a batch of ids
 *		per record: redo advances nextXid past the end of the batch, so an
 *		xid found in the pool after a crash is never handed out again and
 *		clog can be asked about it.  The record must lie after the redo
 *		pointer of the last checkpoint to be replayed, so a checkpoint
 *		starts a new batch.  One record covers up to NVM_XID_BATCH ids,
 *		never past the xid's clog page (nor its commit_ts page when commit
 *		timestamps are tracked): redo moves nextXid to the end of the batch
 *		and those pages must exist.  Nor more than a standby can take as
 *		skipped (NvmXlogBatchEnd).
 *	  - COMMIT_RESOLVED commits, in clog, a transaction whose commit
 *		recovery found in the pmem commit log only (nvm_commit.c); redo
 *		commits it again (a later crash, a standby).
 *
 *	  With nvm_am.wal_log = on (docs/design.md, "WAL mode") every change of
 *	  the data of a logged relation is in WAL too:
 *
 *	  - REL_CREATE, REL_DROP, REL_TRUNCATE: a directory entry taken (with
 *		its state word), freed, or its relation cut; written here, redone
 *		here through the pool.  Temporary relations are not logged;
 *		unlogged ones are created and dropped, nothing else.
 *	  - PAGE_CHANGE, NEW_PAGE, PAGE_MOVE: the page layer's (ipl_wal.c), which
 *		writes them; their redo is the page layer's too, reached through a
 *		function the access method installs (NvmXlogSetPageRedo), since
 *		this layer does not call the page layer.
 *
 *	  With wal_level = logical, in either mode, LOGICAL records carry the
 *	  rows of changes for logical decoding: nvm_logical.c writes and
 *	  decodes them (the decode callback of the resource manager); redo
 *	  ignores them.
 *
 * Locks: a spinlock around the shared protected-xid horizon; the pool's
 * directory lock, exclusive, to redo relation records.
 *
 * On-pool layout: none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/commit_ts.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogrecovery.h"
#include "miscadmin.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "nvm_hooks.h"

/* xids covered by one XID_IN_USE record, at most */
#define NVM_XID_BATCH			4096
/* clog's transactions per page (clog.c does not export it) */
#define NVM_CLOG_XACTS_PER_PAGE (BLCKSZ * 4)
/* commit_ts's transactions per page (commit_ts.c does not export it) */
#define NVM_COMMIT_TS_XACTS_PER_PAGE (BLCKSZ / (sizeof(TimestampTz) + sizeof(RepOriginId)))

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

/* the newest flushed batch, shared */
typedef struct NvmXlogShared
{
	slock_t		mutex;
	TransactionId protected_xid;	/* end of the newest flushed batch */
	XLogRecPtr	protected_lsn;	/* where its record is */
} NvmXlogShared;

static NvmXlogShared *xlog_shared = NULL;

/* the redo of the page layer's records (NvmXlogSetPageRedo) */
static NvmXlogPageRedoFn page_redo = NULL;
static NvmXlogPageDescFn page_desc = NULL;

/* the xid this backend made sure of last (reset at transaction end) */
static TransactionId last_logged_xid = InvalidTransactionId;

/* ----------------------------------------------------------------
 * Resource manager callbacks
 * ----------------------------------------------------------------
 */

/*
 * NvmXlogRedoCommitResolved - replay of COMMIT_RESOLVED: the transaction
 * committed.
 */
static void
NvmXlogRedoCommitResolved(const XlNvmCommitResolved *xlrec)
{
	TransactionId maxxid = xlrec->xid;

	for (int i = 0; i < xlrec->nsubxids; i++)
		if (TransactionIdFollows(xlrec->subxids[i], maxxid))
			maxxid = xlrec->subxids[i];
	AdvanceNextFullTransactionIdPastXid(maxxid);
	TransactionIdCommitTree(xlrec->xid, xlrec->nsubxids,
							(TransactionId *) xlrec->subxids);
}

/*
 * NvmXlogRedoRel - replay of REL_CREATE, REL_DROP and REL_TRUNCATE.
 */
static void
NvmXlogRedoRel(uint8 info, const XlNvmRel *xlrec)
{
	RelFileNode node;
	uint64		state;
	bool		same;

	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	same = xlrec->dirIndex >= 0 && xlrec->dirIndex < NvmPoolDirSize() &&
		NvmPoolRelGetKey(xlrec->dirIndex, &node, &state) &&
		RelFileNodeEquals(node, xlrec->node);
	if (info == XLOG_NVM_REL_CREATE)
		NvmPoolRelCreateAt(xlrec->dirIndex, &xlrec->node, xlrec->state);
	else if (info == XLOG_NVM_REL_DROP && same)
		NvmPoolRelFree(xlrec->dirIndex);
	else if (info == XLOG_NVM_REL_TRUNCATE && same)
		NvmPoolRelTruncate(xlrec->dirIndex, xlrec->nblocks);
	LWLockRelease(NvmPoolDirLock());
}

static void
NvmXlogRedo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	/*
	 * Until a base backup's copy of the pool is replayed to consistency
	 * (the backup's end), its page tables may reach a frame twice: free
	 * none.
	 */
	if (NvmPoolCopyPending() && reachedConsistency)
		NvmPoolCopySettled();
	NvmPoolSetKeepFrames(NvmPoolCopyPending());
	if (info == XLOG_NVM_REL_CREATE || info == XLOG_NVM_REL_DROP ||
		info == XLOG_NVM_REL_TRUNCATE)
	{
		XlNvmRel	xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		NvmXlogRedoRel(info, &xlrec);
	}
	else if (info == XLOG_NVM_PAGE_CHANGE || info == XLOG_NVM_NEW_PAGE ||
			 info == XLOG_NVM_PAGE_MOVE)
	{
		if (page_redo == NULL)
			elog(PANIC, "nvm_am redo: no page redo installed");
		page_redo(record);
	}
	else if (info == XLOG_NVM_XID_IN_USE)
	{
		XlNvmXidInUse xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		AdvanceNextFullTransactionIdPastXid(xlrec.high);
	}
	else if (info == XLOG_NVM_COMMIT_RESOLVED)
		NvmXlogRedoCommitResolved((XlNvmCommitResolved *) XLogRecGetData(record));
	else if (info == XLOG_NVM_LOGICAL)
		return;					/* for logical decoding only */
	else
		elog(PANIC, "nvm_am redo: unknown record type %u", info);
}

static void
NvmXlogDesc(StringInfo buf, XLogReaderState *record)
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
	else if (info == XLOG_NVM_REL_CREATE || info == XLOG_NVM_REL_DROP ||
			 info == XLOG_NVM_REL_TRUNCATE)
	{
		XlNvmRel	xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		appendStringInfo(buf, "rel %u/%u/%u entry %d", xlrec.node.spcNode,
						 xlrec.node.dbNode, xlrec.node.relNode, xlrec.dirIndex);
		if (info == XLOG_NVM_REL_CREATE)
			appendStringInfo(buf, " xid %u%s%s", NVM_REL_STATE_XID(xlrec.state),
							 (xlrec.state & NVM_REL_UNLOGGED) ? " unlogged" : "",
							 (xlrec.state & NVM_REL_CREATING) ? " creating" : "");
		else if (info == XLOG_NVM_REL_TRUNCATE)
			appendStringInfo(buf, " to %u blocks", xlrec.nblocks);
	}
	else if (info == XLOG_NVM_PAGE_CHANGE || info == XLOG_NVM_NEW_PAGE ||
			 info == XLOG_NVM_PAGE_MOVE)
	{
		XlNvmPage	xlrec;
		TransactionId conflictXid;
		const char *body;
		int			len;

		if (!XlNvmPageParse(XLogRecGetData(record), (int) XLogRecGetDataLen(record),
							&xlrec, &conflictXid, &body, &len))
		{
			appendStringInfoString(buf, "too short");
			return;
		}
		appendStringInfo(buf, "entry %d", xlrec.dirIndex);
		if (info == XLOG_NVM_PAGE_CHANGE)
			appendStringInfo(buf, " %s, %d bytes",
							 page_desc ? page_desc(xlrec.type) : "record", len);
		if (TransactionIdIsValid(conflictXid))
			appendStringInfo(buf, ", conflict horizon %u", conflictXid);
		if (XLogRecHasBlockImage(record, 0))
			appendStringInfoString(buf, info == XLOG_NVM_NEW_PAGE ?
								   ", whole page" : ", with the page before it");
	}
	else if (info == XLOG_NVM_LOGICAL)
		NvmLogicalDesc(buf, XLogRecGetData(record), XLogRecGetDataLen(record));
}

static const char *
NvmXlogIdentify(uint8 info)
{
	switch (info & ~XLR_INFO_MASK)
	{
		case XLOG_NVM_XID_IN_USE:
			return "XID_IN_USE";
		case XLOG_NVM_COMMIT_RESOLVED:
			return "COMMIT_RESOLVED";
		case XLOG_NVM_PAGE_CHANGE:
			return "PAGE_CHANGE";
		case XLOG_NVM_NEW_PAGE:
			return "NEW_PAGE";
		case XLOG_NVM_PAGE_MOVE:
			return "PAGE_MOVE";
		case XLOG_NVM_REL_CREATE:
			return "REL_CREATE";
		case XLOG_NVM_REL_DROP:
			return "REL_DROP";
		case XLOG_NVM_REL_TRUNCATE:
			return "REL_TRUNCATE";
		case XLOG_NVM_LOGICAL:
			return "LOGICAL";
	}
	return NULL;
}

static RmgrData nvm_rmgr = {
	.rm_name = "nvm_am",
	.rm_redo = NvmXlogRedo,
	.rm_desc = NvmXlogDesc,
	.rm_identify = NvmXlogIdentify,
	.rm_decode = NvmLogicalDecode,
};

/*
 * NvmXlogInit - register the resource manager; called from _PG_init in the
 * postmaster.
 */
void
NvmXlogInit(void)
{
	if (nvm_wal_log && wal_level < WAL_LEVEL_REPLICA)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nvm_am.wal_log = on requires wal_level replica or logical"),
				 errdetail("WAL of level minimal serves neither base backups nor standbys, which nvm_am.wal_log is for."),
				 errhint("Set wal_level = replica, or nvm_am.wal_log = off.")));
	if (nvm_wal_log && !fullPageWrites)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("nvm_am.wal_log = on requires full_page_writes = on"),
				 errdetail("Without full-page images, WAL replay could apply a change of an nvm_am page twice."),
				 errhint("Set full_page_writes = on, or nvm_am.wal_log = off.")));
	RegisterCustomRmgr(NVM_RMGR_ID, &nvm_rmgr);
}

/*
 * NvmXlogSetPageRedo - install the redo and the description of the page
 * records (the page layer's); called from _PG_init.
 */
void
NvmXlogSetPageRedo(NvmXlogPageRedoFn redo, NvmXlogPageDescFn desc)
{
	page_redo = redo;
	page_desc = desc;
}

/*
 * NvmXlogRelLogged - does WAL carry the creation and drop of the relation
 * of an entry with state word state?  With nvm_am.wal_log, every but a
 * temporary one's.
 */
static bool
NvmXlogRelLogged(uint64 state)
{
	return nvm_wal_log && !(state & NVM_REL_TEMP) && XLogInsertAllowed();
}

/*
 * NvmXlogRel - write a relation record (info) of entry dirIndex, which
 * holds node with state word state.
 */
static void
NvmXlogRel(uint8 info, int dirIndex, const RelFileNode *node, uint64 state,
		   BlockNumber nblocks)
{
	XlNvmRel	xlrec;

	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.dirIndex = dirIndex;
	xlrec.node = *node;
	xlrec.state = state;
	xlrec.nblocks = nblocks;
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, sizeof(xlrec));
	(void) XLogInsert(NVM_RMGR_ID, info);
}

/*
 * NvmXlogRelCreate - NvmPoolRelCreate (a directory entry for new storage of
 * node, created by xid, with flags), and with nvm_am.wal_log its REL_CREATE
 * record.  Returns the entry.  Caller holds the directory lock exclusively.
 */
int
NvmXlogRelCreate(const RelFileNode *node, TransactionId xid, uint64 flags)
{
	int			dirIndex = NvmPoolRelCreate(node, xid, flags);
	uint64		state = NvmPoolRelGetState(dirIndex);

	if (NvmXlogRelLogged(state))
		NvmXlogRel(XLOG_NVM_REL_CREATE, dirIndex, node, state, 0);
	return dirIndex;
}

/*
 * NvmXlogRelFree - NvmPoolRelFree, after the REL_DROP record of the entry
 * with nvm_am.wal_log.  Caller holds the directory lock exclusively.
 */
void
NvmXlogRelFree(int dirIndex)
{
	RelFileNode node;
	uint64		state;

	if (NvmPoolRelGetKey(dirIndex, &node, &state) && NvmXlogRelLogged(state))
		NvmXlogRel(XLOG_NVM_REL_DROP, dirIndex, &node, state, 0);
	NvmPoolRelFree(dirIndex);
}

/*
 * NvmXlogRelTruncate - NvmPoolRelTruncate (cut the relation of entry
 * dirIndex to nblocks blocks), after its REL_TRUNCATE record with
 * nvm_am.wal_log (none for an unlogged relation, whose pages are not in
 * WAL).  Takes the directory lock exclusively: a backend that takes a log
 * frame back from a page of a relation it has not locked
 * (IplStealLogFrame) holds it shared.  Caller holds AccessExclusiveLock on
 * the relation.
 */
void
NvmXlogRelTruncate(int dirIndex, BlockNumber nblocks)
{
	RelFileNode node;
	uint64		state;

	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	if (NvmPoolRelGetKey(dirIndex, &node, &state) &&
		NvmXlogRelLogged(state) && !(state & NVM_REL_UNLOGGED))
		NvmXlogRel(XLOG_NVM_REL_TRUNCATE, dirIndex, &node, state, nblocks);
	NvmPoolRelTruncate(dirIndex, nblocks);
	LWLockRelease(NvmPoolDirLock());
}

Size
NvmXlogShmemSize(void)
{
	return sizeof(NvmXlogShared);
}

void
NvmXlogShmemInit(void)
{
	bool		found;

	xlog_shared = ShmemInitStruct("nvm_am xid batches", sizeof(NvmXlogShared), &found);
	if (!found)
	{
		SpinLockInit(&xlog_shared->mutex);
		xlog_shared->protected_xid = InvalidTransactionId;
		xlog_shared->protected_lsn = InvalidXLogRecPtr;
	}
}

/* ----------------------------------------------------------------
 * Records
 * ----------------------------------------------------------------
 */

/*
 * NvmXlogBatchEnd - the last xid of the batch that xid starts (see the
 * file header for the limits).
 */
static TransactionId
NvmXlogBatchEnd(TransactionId xid)
{
	/*
	 * After a crash the primary hands out xids from the end of its last
	 * batch on.  A hot standby takes the ids skipped for transactions still
	 * running (KnownAssignedXids) until the next snapshot of running
	 * transactions, and has room for 65 per backend of the primary's
	 * MaxBackends (its own is at least as large); more stops its replay for
	 * good ("too many KnownAssignedXids", t/042).  So a batch is at most
	 * half that.
	 */
	uint64		batch = Min(NVM_XID_BATCH, (uint64) 32 * MaxBackends);
	uint64		end = (uint64) xid + batch - 1;

	end = Min(end, (uint64) (xid | (NVM_CLOG_XACTS_PER_PAGE - 1)));
	if (track_commit_timestamp)
		end = Min(end, ((uint64) xid / NVM_COMMIT_TS_XACTS_PER_PAGE + 1) *
				  NVM_COMMIT_TS_XACTS_PER_PAGE - 1);
	end = Min(end, (uint64) MaxTransactionId);
	return (TransactionId) end;
}

/*
 * NvmXlogProtectXid - make sure xid cannot be handed out again after a
 * crash once something carrying it reaches the pool.  A flushed XID_IN_USE
 * record at or after the last checkpoint's redo pointer must cover it;
 * one record covers a batch of xids, so most calls only compare.  Call
 * before xid is first written into the pool.
 */
void
NvmXlogProtectXid(TransactionId xid)
{
	XLogRecPtr	redo;
	XLogRecPtr	lsn;
	bool		covered;
	XlNvmXidInUse xlrec;

	if (xid == last_logged_xid)
		return;
	redo = GetRedoRecPtr();
	SpinLockAcquire(&xlog_shared->mutex);
	covered = TransactionIdIsValid(xlog_shared->protected_xid) &&
		xlog_shared->protected_lsn >= redo &&
		!TransactionIdFollows(xid, xlog_shared->protected_xid);
	SpinLockRelease(&xlog_shared->mutex);

	if (!covered)
	{
		xlrec.xid = xid;
		xlrec.high = NvmXlogBatchEnd(xid);
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		lsn = XLogInsert(NVM_RMGR_ID, XLOG_NVM_XID_IN_USE);
		XLogFlush(lsn);
		NvmPoolCountAdd(NVM_STAT_XID_WAL_RECORDS, 1);

		SpinLockAcquire(&xlog_shared->mutex);
		if (!TransactionIdIsValid(xlog_shared->protected_xid) ||
			xlog_shared->protected_lsn < redo ||
			TransactionIdFollows(xlrec.high, xlog_shared->protected_xid))
		{
			xlog_shared->protected_xid = xlrec.high;
			xlog_shared->protected_lsn = lsn;
		}
		SpinLockRelease(&xlog_shared->mutex);
	}
	last_logged_xid = xid;
}

/*
 * NvmXlogXidProtected - did this backend's last NvmXlogProtectXid protect
 * xid (so that the next call for it only compares)?
 */
bool
NvmXlogXidProtected(TransactionId xid)
{
	return TransactionIdIsValid(xid) && xid == last_logged_xid;
}

/*
 * NvmXlogAtXactEnd - the transaction ended: its xids are not ours any more.
 */
void
NvmXlogAtXactEnd(void)
{
	last_logged_xid = InvalidTransactionId;
}

/*
 * NvmXlogCommitResolved - WAL-log that xid (with nsubxids committed
 * subtransactions) committed; recovery calls it for a winner whose
 * PostgreSQL commit record was lost.  The caller flushes WAL.
 */
void
NvmXlogCommitResolved(TransactionId xid, int nsubxids, TransactionId *subxids)
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
