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
 *		and those pages must exist.
 *	  - COMMIT_RESOLVED commits, in clog, a transaction whose commit
 *		recovery found in the pmem commit log only (nvm_commit.c); redo
 *		commits it again (a later crash, a standby).
 *
 *	  nvm_am's page changes are not in WAL (the pool is durable by itself);
 *	  these records carry transaction outcomes only.
 *
 * Locks: a spinlock around the shared protected-xid horizon.
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
#include "storage/shmem.h"
#include "storage/spin.h"

#include "nvm_hooks.h"

#define NVM_RMGR_ID			141
#define XLOG_NVM_XID_IN_USE		0x00
#define XLOG_NVM_COMMIT_RESOLVED 0x10

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

static void
NvmXlogRedo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;

	if (info == XLOG_NVM_XID_IN_USE)
	{
		XlNvmXidInUse xlrec;

		memcpy(&xlrec, XLogRecGetData(record), sizeof(xlrec));
		AdvanceNextFullTransactionIdPastXid(xlrec.high);
	}
	else if (info == XLOG_NVM_COMMIT_RESOLVED)
		NvmXlogRedoCommitResolved((XlNvmCommitResolved *) XLogRecGetData(record));
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
	}
	return NULL;
}

static RmgrData nvm_rmgr = {
	.rm_name = "nvm_am",
	.rm_redo = NvmXlogRedo,
	.rm_desc = NvmXlogDesc,
	.rm_identify = NvmXlogIdentify,
};

/*
 * NvmXlogInit - register the resource manager; called from _PG_init in the
 * postmaster.
 */
void
NvmXlogInit(void)
{
	RegisterCustomRmgr(NVM_RMGR_ID, &nvm_rmgr);
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
	uint64		end = (uint64) xid + NVM_XID_BATCH - 1;

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
