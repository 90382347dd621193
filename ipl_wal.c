/*-------------------------------------------------------------------------
 *
 * ipl_wal.c
 *	  WAL mode of nvm_am's page operations (nvm_am.wal_log): the WAL record
 *	  of every change of a logged relation's page (IplWalChange, IplWalPage,
 *	  called by ipl_log.c under the page lock, before the change reaches
 *	  the pool), whose body is the in-page log record in its compact form
 *	  (ipl_delta.c), and its redo on the server that replays it
 *	  (IplWalRedo, installed in nvm_xlog.c's resource manager), which turns
 *	  the body back into an in-page log record and applies it through
 *	  ipl_log.c's IplApply, as the primary did.
 *
 * Locks: the caller of IplWalChange and IplWalPage holds the page lock
 * exclusively (for a new page, the relation's extension lock); redo takes
 * the page lock exclusively.
 *
 * On-pool layout owned here: none (the pages are ipl_log.c's); in WAL: the
 * page records (XlNvmPage, then the body: ipl_delta.c's compact form of a
 * PATCH record, the body of any other record as it is).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/standby.h"

#include "ipl_internal.h"

/* set while this process redoes a WAL record: nothing is logged again */
bool		ipl_in_redo = false;
/* meanwhile, the transaction that wrote it (XLogRecGetXid; IplRecordXid) */
static TransactionId ipl_redo_xid = InvalidTransactionId;

/* the in-page log record redo rebuilds from a page record */
static IplRecBuf redobuf;

/* ----------------------------------------------------------------
 * WAL mode (nvm_am.wal_log): every change of a logged relation's page is
 * also a WAL record of nvm_am's resource manager, written under the page
 * lock before the change reaches the pool, and redone here, through the
 * same page operations, on the server that replays it (a standby, a
 * restored base backup, crash recovery).  The first record of a page after
 * a checkpoint's redo pointer carries the page's image from before the
 * change, as heap's full-page writes: replay from a checkpoint starts every
 * page it touches from that image, so it neither depends on a copy of the
 * pool taken while it changed nor applies a change twice.  The LSN of a
 * page's last record is kept per frame in shared memory
 * (NvmPoolFrameWalLsn), carried along when the page moves to another frame;
 * after a start every page gets an image with its next record.
 * ----------------------------------------------------------------
 */

/*
 * IplWalLogged - are the changes of pages of entry dirIndex WAL-logged?
 * With nvm_am.wal_log, for every relation but unlogged and temporary ones,
 * and never while redoing.
 */
bool
IplWalLogged(int dirIndex)
{
	return nvm_wal_log && !ipl_in_redo &&
		!(NvmPoolRelGetState(dirIndex) & NVM_REL_UNLOGGED);
}

/*
 * IplWalNeeded - does a change of a page of entry dirIndex go to WAL
 * (IplWalLogged)?  Refuses (ERROR, before anything changed) when
 * full-page images are off: replay from a checkpoint would then apply
 * changes to pages that already have them.
 */
bool
IplWalNeeded(int dirIndex)
{
	if (!IplWalLogged(dirIndex))
		return false;
	if (!fullPageWrites)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am.wal_log requires full_page_writes = on"),
				 errdetail("Without full-page images, WAL replay could apply a change of an nvm_am page twice."),
				 errhint("Set full_page_writes = on and reload the configuration.")));
	return true;
}

/*
 * IplWalChange - write the WAL record of the change in rb (finished, not
 * applied yet) of the page in slot s, whose image page is (so far
 * unchanged).  body (len bytes) is a PATCH record's compact form, made by
 * IplApply (IplDeltaEncode); NULL for a record of another type, whose body
 * is logged as it is.  A change that removes tuples names
 * the newest of their xids in conflictXid: a hot standby's queries that
 * may still see them are cancelled (or waited for) before it is redone.
 * Caller holds the page lock exclusively.
 */
void
IplWalChange(IplSlot *s, Page page, const IplRecBuf *rb, const char *body,
			 int len, TransactionId conflictXid)
{
	if (body == NULL)
	{
		Assert(rb->u.hdr.type != IPL_REC_PATCH);
		body = rb->u.data + sizeof(IplRecord);
		len = rb->len - sizeof(IplRecord);
	}

	IplWalPage(XLOG_NVM_PAGE_CHANGE, s->dirIndex, s->blkno, page,
			   NvmPoolFrameWalLsn(s->frame), rb->u.hdr.type, body, len,
			   conflictXid, 0);
}

/*
 * IplWalPage - write a page record (info) of page blkno of entry dirIndex,
 * whose image is page (unchanged so far; NULL for a new, empty page), with
 * the body of an in-page log record of type type and its conflict horizon
 * (PAGE_CHANGE, IplWalChange).  *lsn is
 * the LSN of the page's previous record (0: unknown): at or before the
 * redo pointer, the record carries the image (XLogInsert decides, from the
 * page LSN, as for a buffer).  Sets *lsn to the record's.  Caller holds
 * the page lock exclusively (for a new page, the extension lock).
 */
void
IplWalPage(uint8 info, int dirIndex, BlockNumber blkno, Page page,
		   uint64 *lsn, uint8 type, const char *body, int len,
		   TransactionId conflictXid, uint8 regflags)
{
	static PGAlignedBlock empty;
	XlNvmPage	xlrec;
	RelFileNode node;
	uint64		gen = 0;

	IplPageOwner(dirIndex, &node);
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.dirIndex = dirIndex;
	xlrec.type = type;
	if (TransactionIdIsValid(conflictXid))
		xlrec.flags |= XLNVM_PAGE_CONFLICT;

	/*
	 * pd_lsn of an nvm_am page holds its generation; for XLogInsert it
	 * holds the page's last LSN, for the time of the call.  Readers that
	 * pinned the image do not look at it, and no error may leave it so.
	 */
	START_CRIT_SECTION();
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfXlNvmPage);
	if (xlrec.flags & XLNVM_PAGE_CONFLICT)
		XLogRegisterData((char *) &conflictXid, sizeof(conflictXid));
	if (len > 0)
		XLogRegisterData((char *) body, len);
	if (page != NULL)
	{
		gen = IplPageGen(page);
		IplPageSetGen(page, *lsn);
		XLogRegisterBlock(0, &node, MAIN_FORKNUM, blkno, page, REGBUF_STANDARD | regflags);
	}
	else
		XLogRegisterBlock(0, &node, MAIN_FORKNUM, blkno, empty.data, regflags);
	*lsn = XLogInsert(NVM_RMGR_ID, info);
	if (page != NULL)
		IplPageSetGen(page, gen);
	END_CRIT_SECTION();
}

/*
 * IplRedoReplace - make image the page blkno of entry dirIndex: written to
 * a new frame (with a new generation, an empty log) that replaces the
 * page's frame, which is not read.  Caller holds the page lock
 * exclusively; redo only.
 */
static void
IplRedoReplace(int dirIndex, BlockNumber blkno, Page image)
{
	uint64		old = NvmPoolRelGetFrame(dirIndex, blkno);
	int			slot = IplCacheLookup(old);

	/* an image of the old frame is stale from now on; readers keep theirs */
	if (slot >= 0)
		IplCacheUnmap(slot);
	IplWriteFrame(dirIndex, blkno, image, NvmPoolAllocFrame(true), -1);
}

/*
 * IplRecordXid - the transaction a page record being made belongs to: the
 * current (sub)transaction's xid, or in redo the replayed WAL record's,
 * the one the primary made its record for, so that redo's in-page records
 * take the same compact form (IplDeltaEncode) as the primary's.  Needs no
 * lock.
 */
TransactionId
IplRecordXid(void)
{
	return ipl_in_redo ? ipl_redo_xid : GetCurrentTransactionIdIfAny();
}

/*
 * IplWalRedo - redo a page record (PAGE_CHANGE, NEW_PAGE, PAGE_MOVE) on
 * this server's pool; installed in nvm_xlog.c by _PG_init.  Records of a
 * relation that is gone (dropped later in the WAL) or of blocks it no
 * longer has (truncated later) are skipped.
 */
void
IplWalRedo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	XlNvmPage	xlrec;
	RelFileNode node;
	RelFileNode owner;
	ForkNumber	fork;
	BlockNumber blkno;
	uint64		state;
	PGAlignedBlock image;
	bool		hasImage;
	LWLock	   *lock;
	TransactionId conflictXid;
	const char *body;
	int			len;

	if (!XlNvmPageParse(XLogRecGetData(record), (int) XLogRecGetDataLen(record),
						&xlrec, &conflictXid, &body, &len))
		elog(PANIC, "nvm_am redo: a page record too short");
	if (!XLogRecGetBlockTagExtended(record, 0, &node, &fork, &blkno, NULL))
		elog(PANIC, "nvm_am redo: page record without its page");
	if (xlrec.dirIndex < 0 || xlrec.dirIndex >= NvmPoolDirSize() ||
		!NvmPoolRelGetKey(xlrec.dirIndex, &owner, &state) ||
		!RelFileNodeEquals(owner, node))
		return;
	hasImage = XLogRecHasBlockImage(record, 0);
	if (hasImage && !RestoreBlockImage(record, 0, image.data))
		elog(PANIC, "nvm_am redo: %s", record->errormsg_buf);

	/*
	 * Queries of a hot standby that may still see tuples this removes are
	 * cancelled, or waited for, first: never under the page lock, which
	 * they may be waiting for.
	 */
	if (InHotStandby && TransactionIdIsValid(conflictXid))
		ResolveRecoveryConflictWithSnapshot(conflictXid, node);

	ipl_in_redo = true;
	ipl_redo_xid = XLogRecGetXid(record);
	if (info == XLOG_NVM_NEW_PAGE)
	{
		/* the page may exist already (crash recovery of this pool): anew */
		if (blkno < NvmPoolRelNBlocks(xlrec.dirIndex) && !hasImage)
		{
			PageInit(image.data, BLCKSZ, 0);
			hasImage = true;
		}
		while (NvmPoolRelNBlocks(xlrec.dirIndex) <= blkno)
			(void) IplNewPage(xlrec.dirIndex);
	}
	if (blkno < NvmPoolRelNBlocks(xlrec.dirIndex))
	{
		lock = NvmPoolPageLock(xlrec.dirIndex, blkno);
		LWLockAcquire(lock, LW_EXCLUSIVE);
		if (hasImage)
			IplRedoReplace(xlrec.dirIndex, blkno, image.data);
		if (info == XLOG_NVM_PAGE_CHANGE)
		{
			IplRecBuf  *rb = &redobuf;
			Page		page = IplGetPage(xlrec.dirIndex, blkno);

			if (xlrec.type == IPL_REC_PATCH)
			{
				if (!IplDeltaDecode(rb, body, len, page, blkno,
									  XLogRecGetXid(record)))
					elog(PANIC, "nvm_am redo: a page record of block %u does not parse", blkno);
			}
			else
			{
				IplRecStart(rb, xlrec.type);
				IplRecAdd(rb, body, len);
			}
			/* a prune moves tuples: never under readers that pinned the image */
			if (IplRecIsPrune(xlrec.type))
			{
				if (!IplPruneApply(page, rb, image.data, InvalidTransactionId))
					ereport(ERROR,
							(errcode(ERRCODE_DISK_FULL),
							 errmsg("nvm_am pool is full"),
							 errdetail("WAL redo of a prune of block %u found no free page frame.", blkno),
							 errhint("Raise nvm_am.pool_size and restart the server: the pool grows.")));
			}
			else
				IplApply(page, rb);
		}
		LWLockRelease(lock);
	}
	ipl_in_redo = false;
	ipl_redo_xid = InvalidTransactionId;
}

/*
 * IplWalTypeName - the name of an in-page log record type, for the
 * description of a page record (rm_desc: pg_walinspect, error contexts).
 */
const char *
IplWalTypeName(uint8 type)
{
	return type == IPL_REC_PATCH ? "patch" : type == IPL_REC_PRUNE ? "prune" :
		type == IPL_REC_PRUNE_FILL ? "prune_fill" : "unknown";
}
