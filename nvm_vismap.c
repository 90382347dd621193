/*-------------------------------------------------------------------------
 *
 * nvm_vismap.c
 *	  The visibility map of nvm_am tables: which pages hold only tuples
 *	  visible to every transaction (all-visible) and need no freezing
 *	  (all-frozen).  Index-only scans, bitmap scans that need no columns,
 *	  the planner (pg_class.relallvisible) and ANALYZE read it through
 *	  PostgreSQL's own visibility-map code, so it is PostgreSQL's
 *	  visibility-map fork of the relation, in shared buffers, in heap's
 *	  format.  VACUUM sets the bits (NvmVismapSet); every change to a page
 *	  clears them under the page's lock, before any index entry or commit
 *	  can lead a reader to the change (NvmVismapClear); a row lock clears
 *	  all-frozen.
 *
 *	  Unlike heap, nvm_am writes no WAL for the map: the pool's pages are
 *	  durable the moment they change, the map only at the next checkpoint,
 *	  so after a crash the map on disk may claim pages that changed since.
 *	  Such a bit must never be believed: a start of the server that does
 *	  not follow a clean shutdown (a crash, every reinitialisation after a
 *	  backend crash, a start from a base backup, a standby) removes the map
 *	  forks of all nvm_am relations before any backend runs
 *	  (NvmVismapResetAtStartup); VACUUM builds them again.  A clean
 *	  shutdown's checkpoint wrote the map after the last change, so a start
 *	  after one keeps the maps, as heap's survive a restart: index-only
 *	  scans and all-visible pages need no new VACUUM.
 *
 *	  Heap avoids reading the map on every change through PD_ALL_VISIBLE in
 *	  the page header.  Here a flag per relation in shared memory says
 *	  whether the relation may have bits set at all (VACUUM raised it since
 *	  the server started); a table never vacuumed pays nothing, one that
 *	  was pays one look at a pinned map page per change.
 *
 * Locks: the caller of NvmVismapSet and NvmVismapClear holds the page's
 * lock (NvmPoolPageLock), exclusively for Clear, in either mode for Set:
 * so a bit is set only while nobody can change the page, and a change sees
 * the bit that VACUUM set.  The map page's buffer lock is taken under the
 * page lock, never the other way round.  NvmVismapSet's caller pinned the
 * map page beforehand (NvmVismapPin): extending the map takes the
 * relation's extension lock, which must not be waited for under a page
 * lock.
 *
 * On-pool layout: none (the map lives in the relation's _vm fork).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "access/visibilitymap.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/pg_control.h"
#include "catalog/storage_xlog.h"
#include "common/controldata_utils.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/smgr.h"

#include "nvm_am.h"

/* heap's map layout (visibilitymap.c): two bits per page after a header */
#define VISMAP_BYTES_PER_PAGE	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData))
#define VISMAP_BLOCKS_PER_BYTE	(BITS_PER_BYTE / BITS_PER_HEAPBLOCK)
#define VISMAP_BLOCKS_PER_PAGE	(VISMAP_BYTES_PER_PAGE * VISMAP_BLOCKS_PER_BYTE)

/* per directory entry: may the relation's map have bits set? */
static pg_atomic_uint32 *vismap_may_have_bits = NULL;

Size
NvmVismapShmemSize(void)
{
	return mul_size(NvmPoolDirSize(), sizeof(pg_atomic_uint32));
}

/*
 * NvmVismapShmemInit - the per-relation flags, all clear
 * (NvmVismapResetAtStartup raises those of the maps a start keeps).
 * Caller holds AddinShmemInitLock.
 */
void
NvmVismapShmemInit(void)
{
	bool		found;
	int			n = NvmPoolDirSize();

	vismap_may_have_bits = ShmemInitStruct("nvm_am visibility map flags",
										   NvmVismapShmemSize(), &found);
	if (!found)
		for (int i = 0; i < n; i++)
			pg_atomic_init_u32(&vismap_may_have_bits[i], 0);
}

/*
 * NvmVismapStoppedCleanly - did the server stop cleanly, and starts now
 * from its own data directory?  pg_control says shut down (not in
 * recovery, not crashed), and no backup_label or recovery signal file says
 * the directory is a copy or a standby.  Called in the postmaster, whose
 * working directory is the data directory.
 */
static bool
NvmVismapStoppedCleanly(void)
{
	struct stat st;
	ControlFileData *control;
	bool		crc_ok;
	bool		clean;

	if (stat(BACKUP_LABEL_FILE, &st) == 0 || stat(STANDBY_SIGNAL_FILE, &st) == 0 ||
		stat(RECOVERY_SIGNAL_FILE, &st) == 0)
		return false;
	control = get_controlfile(".", &crc_ok);
	clean = crc_ok && control->state == DB_SHUTDOWNED;
	pfree(control);
	return clean;
}

/*
 * NvmVismapResetAtStartup - after anything but a clean shutdown, remove the
 * visibility-map fork of every relation in the pool directory; after a
 * clean one, keep them and raise the flag of every relation that has one.
 * Called in the postmaster while it sets up shared memory, after
 * NvmVismapShmemInit, before any process that could read a map exists.
 * A fork that cannot be removed keeps the server from starting: a stale
 * bit would make index-only scans return deleted rows.
 */
void
NvmVismapResetAtStartup(void)
{
	int			n = NvmPoolDirSize();
	bool		keep = NvmVismapStoppedCleanly();

	for (int i = 0; i < n; i++)
	{
		RelFileNode node;
		uint64		state;
		char	   *path;
		struct stat st;

		if (!NvmPoolRelGetKey(i, &node, &state) || !(state & NVM_REL_USED))
			continue;
		path = relpathperm(node, VISIBILITYMAP_FORKNUM);
		if (keep)
		{
			if (stat(path, &st) == 0)
				pg_atomic_write_u32(&vismap_may_have_bits[i], 1);
		}
		else if (unlink(path) != 0 && errno != ENOENT)
			ereport(FATAL,
					(errcode_for_file_access(),
					 errmsg("could not remove visibility map \"%s\" of an nvm_am relation: %m",
							path),
					 errdetail("The map may claim pages that changed before the server stopped."),
					 errhint("Remove the file by hand and start the server again.")));
		pfree(path);
	}
}

/*
 * NvmVismapStorageCreated - directory entry dirIndex holds new storage,
 * whose map has no bits: changes to it need not look at the map until
 * something sets one (the entry's previous storage may have raised the
 * flag).  Caller created the storage; nobody else uses the entry yet.
 */
void
NvmVismapStorageCreated(int dirIndex)
{
	pg_atomic_write_u32(&vismap_may_have_bits[dirIndex], 0);
}

/*
 * NvmVismapStorageCopied - directory entry dirIndex holds new storage whose
 * pages are copies of another relation's, and PostgreSQL copies that
 * relation's map fork with its files (ALTER DATABASE ... SET TABLESPACE):
 * its map may have bits, so changes must look.  Caller created the
 * storage.
 */
void
NvmVismapStorageCopied(int dirIndex)
{
	pg_atomic_write_u32(&vismap_may_have_bits[dirIndex], 1);
}

/*
 * NvmVismapEmptyCopiedFork - empty the map fork of relation node, whose
 * files CREATE DATABASE copied, and its new storage (NvmVismapStorageCreated
 * says: no bits).  The copy of a permanent relation's map went to WAL as
 * page images (the wal_log strategy); so does this truncation: redo after
 * a crash and a standby must not take those images' bits back, since
 * nvm_am's changes clear bits without WAL.  Caller created the storage in
 * its transaction; nobody else can reach the relation yet.
 */
void
NvmVismapEmptyCopiedFork(const RelFileNode *node, bool permanent)
{
	SMgrRelation srel = smgropen(*node, InvalidBackendId);
	ForkNumber	fork = VISIBILITYMAP_FORKNUM;
	BlockNumber nblocks = 0;

	if (!smgrexists(srel, fork))
		return;
	if (permanent)
	{
		xl_smgr_truncate xlrec;
		XLogRecPtr	lsn;

		xlrec.blkno = 0;
		xlrec.rnode = *node;
		xlrec.flags = SMGR_TRUNCATE_VM;
		XLogBeginInsert();
		XLogRegisterData((char *) &xlrec, sizeof(xlrec));
		lsn = XLogInsert(RM_SMGR_ID, XLOG_SMGR_TRUNCATE | XLR_SPECIAL_REL_UPDATE);
		/* as RelationTruncate: the record is durable before the file is cut */
		XLogFlush(lsn);
	}
	smgrtruncate(srel, &fork, 1, &nblocks);
}

/*
 * NvmVismapPin - pin the map page for blkno into *vmbuf, extending the map
 * as needed.  Caller holds no page lock.
 */
void
NvmVismapPin(Relation rel, BlockNumber blkno, Buffer *vmbuf)
{
	visibilitymap_pin(rel, blkno, vmbuf);
}

/*
 * NvmVismapSet - set flags (VISIBILITYMAP_ALL_VISIBLE, _ALL_FROZEN) for
 * blkno.  Caller holds the page's lock and pinned the map page with
 * NvmVismapPin.  No WAL: the map does not outlive a restart.
 */
void
NvmVismapSet(Relation rel, int dirIndex, BlockNumber blkno, Buffer vmbuf,
			 uint8 flags)
{
	BlockNumber mapBlock = blkno / VISMAP_BLOCKS_PER_PAGE;
	uint32		mapByte = (blkno % VISMAP_BLOCKS_PER_PAGE) / VISMAP_BLOCKS_PER_BYTE;
	uint8		mapShift = (blkno % VISMAP_BLOCKS_PER_BYTE) * BITS_PER_HEAPBLOCK;
	uint8	   *map;

	Assert(flags != 0 && (flags & ~VISIBILITYMAP_VALID_BITS) == 0);
	if (!BufferIsValid(vmbuf) || BufferGetBlockNumber(vmbuf) != mapBlock)
		elog(ERROR, "nvm_am: wrong visibility map page pinned for block %u", blkno);

	/* first say that the map may have bits, then set one */
	if (pg_atomic_read_u32(&vismap_may_have_bits[dirIndex]) == 0)
		pg_atomic_write_u32(&vismap_may_have_bits[dirIndex], 1);
	pg_memory_barrier();

	LockBuffer(vmbuf, BUFFER_LOCK_EXCLUSIVE);
	map = (uint8 *) PageGetContents(BufferGetPage(vmbuf));
	if (((map[mapByte] >> mapShift) & flags) != flags)
	{
		map[mapByte] |= flags << mapShift;
		MarkBufferDirty(vmbuf);
	}
	LockBuffer(vmbuf, BUFFER_LOCK_UNLOCK);
}

/*
 * NvmVismapClear - clear flags for blkno, whose page changes.  Caller holds
 * the page's lock exclusively, from before the change until after this.
 */
void
NvmVismapClear(Relation rel, int dirIndex, BlockNumber blkno, uint8 flags)
{
	Buffer		vmbuf = InvalidBuffer;

	if (pg_atomic_read_u32(&vismap_may_have_bits[dirIndex]) == 0)
		return;
	if (visibilitymap_get_status(rel, blkno, &vmbuf) & flags)
		visibilitymap_clear(rel, blkno, vmbuf, flags);
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
}

/*
 * NvmVismapAllVisible - is blkno marked all-visible?  The map page stays
 * pinned in *vmbuf for the next call (the caller releases it).  Caller
 * holds the page's lock, so that no change can clear the bit meanwhile.
 */
bool
NvmVismapAllVisible(Relation rel, int dirIndex, BlockNumber blkno, Buffer *vmbuf)
{
	return (NvmVismapStatus(rel, dirIndex, blkno, vmbuf) & VISIBILITYMAP_ALL_VISIBLE) != 0;
}

/*
 * NvmVismapStatus - the map's bits for blkno (VISIBILITYMAP_ALL_VISIBLE,
 * VISIBILITYMAP_ALL_FROZEN), as NvmVismapAllVisible reads them.
 */
uint8
NvmVismapStatus(Relation rel, int dirIndex, BlockNumber blkno, Buffer *vmbuf)
{
	if (pg_atomic_read_u32(&vismap_may_have_bits[dirIndex]) == 0)
		return 0;
	return visibilitymap_get_status(rel, blkno, vmbuf);
}

/*
 * NvmVismapTupleStatus - what tup lets the map say of its page:
 * VISIBILITYMAP_ALL_VISIBLE when it is live (inserted by a committed
 * transaction, not deleted), and VISIBILITYMAP_ALL_FROZEN as well when its
 * xmin is frozen and it has no raw xmax (a hint bit saying an xmax is
 * invalid may not survive a crash; VACUUM forgets aborted ones once the
 * freeze limit passes them).  Caller holds the page's lock, or reads a
 * copy.
 */
uint8
NvmVismapTupleStatus(HeapTuple tup, TransactionId OldestXmin)
{
	bool		frozen = HeapTupleHeaderXminFrozen(tup->t_data) &&
		HeapTupleHeaderGetRawXmax(tup->t_data) == InvalidTransactionId;

	/* frozen and without xmax: live for everyone, no clog to ask */
	if (!(frozen && (tup->t_data->t_infomask & HEAP_XMAX_INVALID)) &&
		NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL) != HEAPTUPLE_LIVE)
		return 0;
	return VISIBILITYMAP_ALL_VISIBLE | (frozen ? VISIBILITYMAP_ALL_FROZEN : 0);
}

/*
 * NvmVismapPageStatus - what VACUUM may set for a page: all-visible when
 * every tuple is live (NvmVismapTupleStatus) and, unless frozen, inserted
 * before OldestXmin, and no line pointer is dead; all-frozen when besides
 * every tuple allows it.  Caller holds the page's lock.
 */
uint8
NvmVismapPageStatus(Relation rel, Page page, BlockNumber blkno,
					TransactionId OldestXmin)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	uint8		status = VISIBILITYMAP_ALL_VISIBLE | VISIBILITYMAP_ALL_FROZEN;

	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (ItemIdIsDead(lp))
			return 0;
		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		status &= NvmVismapTupleStatus(&tup, OldestXmin);
		if (status == 0 ||
			(!HeapTupleHeaderXminFrozen(tup.t_data) &&
			 !TransactionIdPrecedes(HeapTupleHeaderGetXmin(tup.t_data), OldestXmin)))
			return 0;
	}
	return status;
}

/*
 * NvmVismapSetAfterFrozenLoad - after COPY FREEZE or REFRESH MATERIALIZED
 * VIEW (TABLE_INSERT_FROZEN, only allowed into storage new in the
 * transaction), mark the pages whose tuples are all frozen all-visible and
 * all-frozen, as heap's multi-insert does while it fills them: the VACUUM
 * that usually follows a load then skips them (pgbench -i's scanned the
 * whole table: 80 ms against heap's 0.6 for 1 M rows), and index-only
 * scans need not visit them.  Pages marked already are passed over, so a
 * transaction's several loads look at each page once.  Caller holds a lock
 * on the relation; nobody else can insert into storage new in this
 * transaction.
 */
void
NvmVismapSetAfterFrozenLoad(Relation rel, int dirIndex)
{
	BlockNumber nblocks = NvmPoolRelNBlocks(dirIndex);
	TransactionId oldestXmin;
	Buffer		vmbuf = InvalidBuffer;

	/*
	 * With wal_level = minimal the commit of new storage may write its forks
	 * to WAL whole (smgrDoPendingSyncs), the map's too; replay after a crash
	 * would bring back bits that the start removed and nothing clears any
	 * more.  The VACUUM after the load sets them then.
	 */
	if (RelationIsPermanent(rel) && !XLogIsNeeded())
		return;
	oldestXmin = GetOldestNonRemovableTransactionId(rel);

	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
		uint8		flags;

		CHECK_FOR_INTERRUPTS();
		if (visibilitymap_get_status(rel, blkno, &vmbuf) & VISIBILITYMAP_ALL_FROZEN)
			continue;
		NvmVismapPin(rel, blkno, &vmbuf);
		LWLockAcquire(lock, LW_SHARED);
		flags = NvmVismapPageStatus(rel, IplGetPage(dirIndex, blkno), blkno, oldestXmin);
		if (flags & VISIBILITYMAP_ALL_FROZEN)
			NvmVismapSet(rel, dirIndex, blkno, vmbuf, flags);
		LWLockRelease(lock);
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);
}
