/*-------------------------------------------------------------------------
 *
 * nvm_check.c
 *	  Looking into one nvm_am table from SQL.  nvm_am_stattuple(regclass):
 *	  pgstattuple's figures (live and dead tuples, free space) and the
 *	  table's in-page logs.  nvm_am_get_raw_page(regclass, bigint): a page
 *	  as readers see it, for pageinspect; nvm_am_page_log(regclass,
 *	  bigint): the records of its in-page log.  nvm_am_rowlocks(regclass):
 *	  pgrowlocks' rows, the row versions locked or changed by transactions
 *	  in progress.  nvm_am_check(regclass): an amcheck-style
 *	  verification of an nvm_am table.  It walks every page of the table
 *	  in the pool and every entry of its indexes and returns one row per
 *	  inconsistency found (none for a sound table).  It never changes anything and never trusts what it
 *	  reads: every offset and length is checked before it is followed.
 *
 *	  Checked: the checksum of each page's base image (a page that fails
 *	  it is reported and not read further), page headers (bounds, version),
 *	  line pointers (bounds, alignment, overlapping tuples, storage of dead
 *	  and unused ones; a line pointer outside the tuple area ends the
 *	  checks of its page after the line pointers), redirects (to a heap-only tuple on the page), tuple headers (header
 *	  length, attribute count, xmin and xmax not in the future and not
 *	  older than relfrozenxid unless frozen, ctid inside the table when
 *	  an updater that did not abort may lead a reader along it),
 *	  heap-only tuples reachable from a root, what the visibility map says
 *	  of each page (all-visible: every tuple live, no dead line pointer;
 *	  all-frozen: every tuple frozen; not on a hot standby), and index
 *	  entries (for index types that can return TIDs) pointing at a root
 *	  line pointer.
 *
 * Locks: AccessShareLock on the table and its indexes; each page's lock
 * shared while the page is checked or counted.
 *
 * On-pmem layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "nvm_am.h"

/* functions that SQL calls, exported by name (see nvm_am.c) */
PGDLLEXPORT Datum nvm_am_check(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum nvm_am_stattuple(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum nvm_am_get_raw_page(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum nvm_am_page_log(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum nvm_am_rowlocks(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(nvm_am_check);
PG_FUNCTION_INFO_V1(nvm_am_stattuple);
PG_FUNCTION_INFO_V1(nvm_am_get_raw_page);
PG_FUNCTION_INFO_V1(nvm_am_page_log);
PG_FUNCTION_INFO_V1(nvm_am_rowlocks);

typedef struct NvmCheckState
{
	Tuplestorestate *ts;
	TupleDesc	desc;
	int64		problems;
	Bitmapset  *badpages;		/* blocks whose base fails its checksum */
} NvmCheckState;

static void
NvmCheckReport(NvmCheckState *cs, BlockNumber blkno, OffsetNumber off,
			   const char *fmt,...) pg_attribute_printf(4, 5);

static void
NvmCheckReport(NvmCheckState *cs, BlockNumber blkno, OffsetNumber off,
			   const char *fmt,...)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	StringInfoData buf;
	va_list		args;

	initStringInfo(&buf);
	for (;;)
	{
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(&buf, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&buf, needed);
	}
	values[0] = Int64GetDatum((int64) blkno);
	if (off == InvalidOffsetNumber)
		nulls[1] = true;
	else
		values[1] = Int32GetDatum((int32) off);
	values[2] = CStringGetTextDatum(buf.data);
	tuplestore_putvalues(cs->ts, cs->desc, values, nulls);
	cs->problems++;
}

/*
 * NvmCheckXid - is xid of a tuple plausible?  NULL if so, else the problem.
 */
static const char *
NvmCheckXid(TransactionId xid, TransactionId next, TransactionId frozen)
{
	if (!TransactionIdIsNormal(xid))
		return NULL;
	if (TransactionIdFollowsOrEquals(xid, next))
		return "is in the future";
	if (TransactionIdIsNormal(frozen) && TransactionIdPrecedes(xid, frozen))
		return "precedes relfrozenxid";
	return NULL;
}

/*
 * NvmCheckCtidFollowed - may a reader follow t's ctid to a newer version:
 * does it have an updater (not only lockers) that committed or is running?
 * A tuple whose updater aborted keeps the ctid of the version that was
 * pruned, and VACUUM may have cut the table below it since, as heap's
 * tuples do; nobody follows that ctid.  An xmax that is itself implausible
 * is reported on its own; its ctid is checked too.
 */
static bool
NvmCheckCtidFollowed(Relation rel, HeapTupleHeader t, TransactionId next,
					 TransactionId frozen)
{
	TransactionId upd;

	if ((t->t_infomask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return false;
	if (t->t_infomask & HEAP_XMAX_IS_MULTI)
	{
		MultiXactId multi = HeapTupleHeaderGetRawXmax(t);

		if (!MultiXactIdIsValid(multi) ||
			MultiXactIdPrecedes(multi, rel->rd_rel->relminmxid))
			return true;
		upd = HeapTupleGetUpdateXid(t);
	}
	else
		upd = HeapTupleHeaderGetRawXmax(t);
	if (!TransactionIdIsNormal(upd))
		return false;
	if (NvmCheckXid(upd, next, frozen) != NULL)
		return true;
	return TransactionIdIsInProgress(upd) || NvmCommitXidCommitted(upd, NULL);
}

typedef struct ItemRange
{
	uint16		start;
	uint16		end;
	OffsetNumber off;
} ItemRange;

static int
NvmCheckItemRangeCmp(const void *a, const void *b)
{
	return (int) ((const ItemRange *) a)->start - (int) ((const ItemRange *) b)->start;
}

/*
 * NvmCheckPage - check one page; caller holds its lock.
 */
static void
NvmCheckPage(NvmCheckState *cs, Relation rel, Page page, BlockNumber blkno,
			 BlockNumber nblocks, TransactionId next, TransactionId frozen)
{
	PageHeader	ph = (PageHeader) page;
	OffsetNumber maxoff;
	OffsetNumber roots[MaxHeapTuplesPerPage];
	ItemRange	ranges[MaxHeapTuplesPerPage];
	int			nranges = 0;
	bool		outside = false;
	int			natts = RelationGetDescr(rel)->natts;

	if (PageIsNew(page))
	{
		NvmCheckReport(cs, blkno, InvalidOffsetNumber, "page is not initialised");
		return;
	}
	if (PageGetPageSize(page) != BLCKSZ ||
		PageGetPageLayoutVersion(page) != PG_PAGE_LAYOUT_VERSION ||
		ph->pd_lower < SizeOfPageHeaderData || ph->pd_lower > ph->pd_upper ||
		ph->pd_upper > ph->pd_special || ph->pd_special != BLCKSZ)
	{
		NvmCheckReport(cs, blkno, InvalidOffsetNumber,
					   "page header is corrupt: lower %u, upper %u, special %u, size %u, version %u",
					   ph->pd_lower, ph->pd_upper, ph->pd_special,
					   (unsigned) PageGetPageSize(page), PageGetPageLayoutVersion(page));
		return;
	}
	maxoff = PageGetMaxOffsetNumber(page);
	if (maxoff > MaxHeapTuplesPerPage)
	{
		NvmCheckReport(cs, blkno, InvalidOffsetNumber, "page has %u line pointers", maxoff);
		return;
	}

	/* line pointers and their storage */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		unsigned	lpoff = ItemIdGetOffset(lp);
		unsigned	lplen = ItemIdGetLength(lp);

		if (ItemIdIsRedirected(lp))
		{
			OffsetNumber target = ItemIdGetRedirect(lp);
			ItemId		tlp;

			if (target < FirstOffsetNumber || target > maxoff)
			{
				NvmCheckReport(cs, blkno, off, "redirect to line pointer %u beyond %u", target, maxoff);
				continue;
			}
			tlp = PageGetItemId(page, target);
			if (!ItemIdIsNormal(tlp) ||
				!HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, tlp)))
				NvmCheckReport(cs, blkno, off, "redirect to %u, which is not a heap-only tuple", target);
			continue;
		}
		if (!ItemIdIsNormal(lp))
		{
			if (ItemIdHasStorage(lp))
				NvmCheckReport(cs, blkno, off, "%s line pointer has storage",
							   ItemIdIsDead(lp) ? "dead" : "unused");
			continue;
		}
		if (lpoff < ph->pd_upper || lpoff + lplen > ph->pd_special ||
			lpoff != MAXALIGN(lpoff) || lplen < SizeofHeapTupleHeader)
		{
			NvmCheckReport(cs, blkno, off, "tuple at offset %u, length %u lies outside the tuple area [%u, %u)",
						   lpoff, lplen, ph->pd_upper, ph->pd_special);
			outside = true;
			continue;
		}
		ranges[nranges].start = lpoff;
		ranges[nranges].end = lpoff + lplen;
		ranges[nranges].off = off;
		nranges++;
	}
	qsort(ranges, nranges, sizeof(ItemRange), NvmCheckItemRangeCmp);
	for (int i = 1; i < nranges; i++)
		if (ranges[i].start < ranges[i - 1].end)
			NvmCheckReport(cs, blkno, ranges[i].off, "tuple overlaps the tuple at line pointer %u",
						   ranges[i - 1].off);

	/*
	 * Tuple headers, unless a line pointer points outside the tuple area:
	 * following chains through it would read past the page.
	 */
	if (outside)
		return;
	NvmPruneGetRootTuples(page, blkno, roots);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleHeader t;
		const char *why;

		if (!ItemIdIsNormal(lp))
			continue;
		t = (HeapTupleHeader) PageGetItem(page, lp);
		if (t->t_hoff < SizeofHeapTupleHeader || t->t_hoff > ItemIdGetLength(lp) ||
			t->t_hoff != MAXALIGN(t->t_hoff))
			NvmCheckReport(cs, blkno, off, "tuple header length %u is invalid", t->t_hoff);
		if (HeapTupleHeaderGetNatts(t) > natts)
			NvmCheckReport(cs, blkno, off, "tuple has %d attributes, the table %d",
						   HeapTupleHeaderGetNatts(t), natts);
		if (!HeapTupleHeaderXminFrozen(t) &&
			(why = NvmCheckXid(HeapTupleHeaderGetRawXmin(t), next, frozen)) != NULL)
			NvmCheckReport(cs, blkno, off, "xmin %u %s", HeapTupleHeaderGetRawXmin(t), why);
		if (!(t->t_infomask & HEAP_XMAX_INVALID) && !(t->t_infomask & HEAP_XMAX_IS_MULTI) &&
			(why = NvmCheckXid(HeapTupleHeaderGetRawXmax(t), next, frozen)) != NULL)
			NvmCheckReport(cs, blkno, off, "xmax %u %s", HeapTupleHeaderGetRawXmax(t), why);
		if ((t->t_infomask & HEAP_XMAX_IS_MULTI) && !(t->t_infomask & HEAP_XMAX_INVALID) &&
			MultiXactIdIsValid(HeapTupleHeaderGetRawXmax(t)) &&
			MultiXactIdPrecedes(HeapTupleHeaderGetRawXmax(t), rel->rd_rel->relminmxid))
			NvmCheckReport(cs, blkno, off, "xmax multixact %u precedes relminmxid %u",
						   HeapTupleHeaderGetRawXmax(t), rel->rd_rel->relminmxid);
		if (!HeapTupleHeaderIndicatesMovedPartitions(t) &&
			ItemPointerGetBlockNumberNoCheck(&t->t_ctid) >= nblocks &&
			NvmCheckCtidFollowed(rel, t, next, frozen))
			NvmCheckReport(cs, blkno, off, "ctid (%u,%u) points beyond the table's %u blocks",
						   ItemPointerGetBlockNumberNoCheck(&t->t_ctid),
						   ItemPointerGetOffsetNumberNoCheck(&t->t_ctid), nblocks);
		if (HeapTupleHeaderIsHeapOnly(t) && !OffsetNumberIsValid(roots[off - 1]) &&
			(HeapTupleHeaderXminFrozen(t) ||
			 (!(t->t_infomask & HEAP_XMIN_INVALID) &&
			  NvmCommitXidCommitted(HeapTupleHeaderGetRawXmin(t), NULL))))
			NvmCheckReport(cs, blkno, off, "heap-only tuple is not reachable from any root");
	}
}

/*
 * NvmCheckIndex - every entry of index must point at a root line pointer (a
 * normal tuple that is not heap-only, a redirect, or a dead stub).
 */
static void
NvmCheckIndex(NvmCheckState *cs, Relation rel, Relation index, int dirIndex)
{
	IndexScanDesc scan;
	ItemPointer tid;
	BlockNumber nblocks = NvmPoolRelNBlocks(dirIndex);

	if (index->rd_indam->amgettuple == NULL || !index->rd_indam->amoptionalkey)
		return;					/* BRIN, GIN, hash: cannot list all TIDs */
	scan = index_beginscan(rel, index, SnapshotAny, 0, 0);
	index_rescan(scan, NULL, 0, NULL, 0);
	while ((tid = index_getnext_tid(scan, ForwardScanDirection)) != NULL)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(tid);
		OffsetNumber off = ItemPointerGetOffsetNumber(tid);
		LWLock	   *lock;
		Page		page;
		ItemId		lp;
		bool		ok;

		CHECK_FOR_INTERRUPTS();
		if (blkno >= nblocks)
		{
			NvmCheckReport(cs, blkno, off, "index \"%s\" points beyond the table's %u blocks",
						   RelationGetRelationName(index), nblocks);
			continue;
		}
		if (bms_is_member((int) blkno, cs->badpages))
			continue;			/* reported already, cannot be read */
		lock = NvmPoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		ok = off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page);
		if (ok)
		{
			lp = PageGetItemId(page, off);
			ok = ItemIdIsRedirected(lp) || ItemIdIsDead(lp) ||
				(ItemIdIsNormal(lp) &&
				 !HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)));
		}
		LWLockRelease(lock);
		if (!ok)
			NvmCheckReport(cs, blkno, off, "index \"%s\" points at a line pointer that is not a root",
						   RelationGetRelationName(index));
	}
	index_endscan(scan);
}

/*
 * NvmCheckVismap - what the visibility map says of page blkno (bits, read
 * with the page under its lock) must hold of it, tuple by tuple as VACUUM
 * decides it (NvmVismapTupleStatus): on an all-visible page every tuple is
 * live (index-only scans and page-at-a-time scans skip the visibility
 * checks there), no line pointer is dead; on an all-frozen one every tuple
 * is frozen, without an xmax.  The age VACUUM also asks of an unfrozen
 * xmin (before its OldestXmin) is not checked: the horizon computed now
 * can be older than VACUUM's.  pg_visibility's pg_check_visible() and
 * pg_check_frozen() read a table's pages through the buffer manager,
 * where an nvm_am table's are empty, so they find nothing to report.
 * page is a copy that passed NvmCheckPage.
 */
static void
NvmCheckVismap(NvmCheckState *cs, Relation rel, Page page, BlockNumber blkno,
			   uint8 bits, TransactionId oldestXmin)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	if (!(bits & VISIBILITYMAP_ALL_VISIBLE))
	{
		NvmCheckReport(cs, blkno, InvalidOffsetNumber,
					   "visibility map marks the page all-frozen but not all-visible");
		return;
	}
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		uint8		allows;

		if (ItemIdIsDead(lp))
		{
			NvmCheckReport(cs, blkno, off,
						   "dead line pointer on a page the visibility map marks all-visible");
			continue;
		}
		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		allows = NvmVismapTupleStatus(&tup, oldestXmin);
		if (!(allows & VISIBILITYMAP_ALL_VISIBLE))
			NvmCheckReport(cs, blkno, off,
						   "tuple not visible to every transaction on a page the visibility map marks all-visible");
		else if ((bits & VISIBILITYMAP_ALL_FROZEN) && !(allows & VISIBILITYMAP_ALL_FROZEN))
			NvmCheckReport(cs, blkno, off,
						   "tuple not frozen on a page the visibility map marks all-frozen");
	}
}

/*
 * NvmCheckOpenTable - open table relid for SQL function func (what it
 * does to a table: verb), with AccessShareLock: it must exist, be an
 * nvm_am table, and the user must be allowed to read it.
 */
static Relation
NvmCheckOpenTable(Oid relid, const char *func, const char *verb)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!NvmStorageIsNvmRelation(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not an nvm_am table", RelationGetRelationName(rel)),
				 errhint("nvm_am.%s() %s tables created with USING nvm_am.", func, verb)));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", RelationGetRelationName(rel))));
	return rel;
}

/*
 * nvm_am_check - (blkno, offnum, problem) for every inconsistency found
 * in an nvm_am table and its indexes.
 */
Datum
nvm_am_check(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	NvmCheckState	cs;
	Relation	rel;
	int			dirIndex;
	BlockNumber nblocks;
	TransactionId next;
	TransactionId frozen;
	List	   *indexes;
	ListCell   *lc;
	bool		checkMap;
	TransactionId oldestXmin;
	Buffer		vmbuf = InvalidBuffer;
	uint8		vmbits;
	int64		before;

	NvmRecoveryEnsureReady();
	InitMaterializedSRF(fcinfo, 0);
	cs.ts = rsinfo->setResult;
	cs.desc = rsinfo->setDesc;
	cs.problems = 0;
	cs.badpages = NULL;

	rel = NvmCheckOpenTable(relid, "nvm_am_check", "checks");
	dirIndex = NvmStorageRelDirIndex(rel);
	/* a hot standby's map need not match its pages (see nvm_vismap.c) */
	checkMap = !RecoveryInProgress();
	oldestXmin = checkMap ? GetOldestNonRemovableTransactionId(rel) : InvalidTransactionId;
	nblocks = NvmPoolRelNBlocks(dirIndex);
	next = ReadNextTransactionId();
	frozen = rel->rd_rel->relfrozenxid;
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
		PGAlignedBlock copy;
		uint16		stored;
		uint16		computed;
		uint32		badOff;
		uint64		frame;

		CHECK_FOR_INTERRUPTS();
		/* check a copy: the checks may not write the page, hint bits aside */
		LWLockAcquire(lock, LW_SHARED);
		frame = NvmPoolRelGetFrame(dirIndex, blkno);
		if (!IplFrameChecksumOk(dirIndex, blkno, frame, &stored, &computed))
		{
			LWLockRelease(lock);
			NvmCheckReport(&cs, blkno, InvalidOffsetNumber,
						   "page checksum mismatch: stored %u, computed %u", stored, computed);
			cs.badpages = bms_add_member(cs.badpages, (int) blkno);
			continue;
		}
		if (!IplLogCheck(frame, &badOff))
		{
			LWLockRelease(lock);
			NvmCheckReport(&cs, blkno, InvalidOffsetNumber,
						   "in-page log damaged: the record at byte %u fails its check and valid records follow",
						   badOff);
			cs.badpages = bms_add_member(cs.badpages, (int) blkno);
			continue;
		}
		memcpy(copy.data, IplGetPage(dirIndex, blkno), BLCKSZ);
		/* the map's bits as they go with the page: changes clear them first */
		vmbits = checkMap ? NvmVismapStatus(rel, dirIndex, blkno, &vmbuf) : 0;
		LWLockRelease(lock);
		before = cs.problems;
		NvmCheckPage(&cs, rel, copy.data, blkno, nblocks, next, frozen);
		if (vmbits != 0 && cs.problems == before)
			NvmCheckVismap(&cs, rel, copy.data, blkno, vmbits, oldestXmin);
	}
	if (BufferIsValid(vmbuf))
		ReleaseBuffer(vmbuf);

	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		/*
		 * An index that a failed or unfinished CREATE INDEX CONCURRENTLY left
		 * behind may have no pages yet and lacks entries: as amcheck does,
		 * say so and go on.
		 */
		if (!index->rd_index->indisvalid || !index->rd_index->indisready)
			ereport(NOTICE,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("skipping index \"%s\" of table \"%s\": it is not valid",
							RelationGetRelationName(index), RelationGetRelationName(rel)),
					 errdetail("A CREATE INDEX CONCURRENTLY or REINDEX CONCURRENTLY failed or has not finished."),
					 errhint("Drop the index or build it again with REINDEX.")));
		else
			NvmCheckIndex(&cs, rel, index, dirIndex);
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}

/*
 * NvmCheckPercent - n as a percentage of total, to two decimals as
 * pgstattuple prints it, as a float8 datum
 */
static Datum
NvmCheckPercent(uint64 n, uint64 total)
{
	char		buf[64];

	snprintf(buf, sizeof(buf), "%.2f",
			 total == 0 ? 0.0 : 100.0 * (double) n / (double) total);
	return Float8GetDatum(strtod(buf, NULL));
}

/*
 * nvm_am_stattuple - pgstattuple's figures for an nvm_am table (pgstattuple
 * reads heap tables only), plus the pages living in log frames and the
 * bytes of records in their logs.  As pgstattuple: tuples (with storage)
 * that a dirty snapshot sees are live, the others dead, and free space is
 * what each page has for a new tuple (PageGetHeapFreeSpace).  Each page is
 * read as scans read it, its lock held shared; no lock is held from one
 * page to the next, so the figures are not a snapshot of the whole table.
 */
Datum
nvm_am_stattuple(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	TupleDesc	desc;
	Datum		values[11];
	bool		nulls[11] = {0};
	Relation	rel;
	int			dirIndex;
	BlockNumber nblocks;
	SnapshotData dirty;
	uint64		tableLen;
	uint64		tupleCount = 0,
				tupleLen = 0,
				deadCount = 0,
				deadLen = 0,
				freeSpace = 0,
				logPages = 0,
				logBytes = 0;

	NvmRecoveryEnsureReady();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	rel = NvmCheckOpenTable(relid, "nvm_am_stattuple", "reads");
	dirIndex = NvmStorageRelDirIndex(rel);
	nblocks = NvmPoolRelNBlocks(dirIndex);
	InitDirtySnapshot(dirty);
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
		uint64		frame;
		Page		page;
		OffsetNumber maxoff;

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(lock, LW_SHARED);
		page = IplReadPage(dirIndex, blkno, NULL);
		frame = NvmPoolRelGetFrame(dirIndex, blkno);
		if (NvmPoolFrameLogSize(frame) > 0)
		{
			logPages++;
			logBytes += IplLogUsed(frame);
		}
		freeSpace += PageGetHeapFreeSpace(page);
		maxoff = PageGetMaxOffsetNumber(page);
		for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
		{
			HeapTupleData tup;

			if (!ItemIdIsNormal(PageGetItemId(page, off)))
				continue;
			NvmSetTuple(&tup, rel, page, blkno, off);
			if (NvmTupleSatisfies(&tup, &dirty))
			{
				tupleCount++;
				tupleLen += tup.t_len;
			}
			else
			{
				deadCount++;
				deadLen += tup.t_len;
			}
		}
		LWLockRelease(lock);
	}
	relation_close(rel, AccessShareLock);

	tableLen = (uint64) nblocks * BLCKSZ;
#define NVM_PERCENT(n) NvmCheckPercent(n, tableLen)
	values[0] = Int64GetDatum((int64) tableLen);
	values[1] = Int64GetDatum((int64) tupleCount);
	values[2] = Int64GetDatum((int64) tupleLen);
	values[3] = NVM_PERCENT(tupleLen);
	values[4] = Int64GetDatum((int64) deadCount);
	values[5] = Int64GetDatum((int64) deadLen);
	values[6] = NVM_PERCENT(deadLen);
	values[7] = Int64GetDatum((int64) freeSpace);
	values[8] = NVM_PERCENT(freeSpace);
	values[9] = Int64GetDatum((int64) logPages);
	values[10] = Int64GetDatum((int64) logBytes);
#undef NVM_PERCENT
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * NvmCheckOpenPage - for the raw page functions: the superuser's check (a
 * page shows rows and columns that privileges and row security hide, as
 * pageinspect's get_raw_page does), table relid opened, block blkno in it.
 */
static Relation
NvmCheckOpenPage(Oid relid, int64 blkno, const char *func)
{
	Relation	rel;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be superuser to use raw page functions")));
	rel = NvmCheckOpenTable(relid, func, "reads");
	if (blkno < 0 || blkno >= (int64) NvmPoolRelNBlocks(NvmStorageRelDirIndex(rel)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block number %lld is out of range for relation \"%s\"",
						(long long) blkno, RelationGetRelationName(rel))));
	return rel;
}

/*
 * nvm_am_get_raw_page - page blkno of an nvm_am table as readers see it
 * (its base image with the records of its in-page log applied), for
 * pageinspect's functions that take a page (heap_page_items, page_header).
 */
Datum
nvm_am_get_raw_page(PG_FUNCTION_ARGS)
{
	Relation	rel;
	int			dirIndex;
	BlockNumber blkno = (BlockNumber) PG_GETARG_INT64(1);
	LWLock	   *lock;
	bytea	   *raw = palloc(VARHDRSZ + BLCKSZ);

	NvmRecoveryEnsureReady();
	rel = NvmCheckOpenPage(PG_GETARG_OID(0), PG_GETARG_INT64(1), "nvm_am_get_raw_page");
	dirIndex = NvmStorageRelDirIndex(rel);
	lock = NvmPoolPageLock(dirIndex, blkno);
	SET_VARSIZE(raw, VARHDRSZ + BLCKSZ);
	LWLockAcquire(lock, LW_SHARED);
	memcpy(VARDATA(raw), IplReadPage(dirIndex, blkno, NULL), BLCKSZ);
	LWLockRelease(lock);
	relation_close(rel, AccessShareLock);
	PG_RETURN_BYTEA_P(raw);
}

/*
 * nvm_am_page_log - the records of the in-page log of page blkno, oldest
 * first, each (byte_offset, length, kind, append, items, bytes): kind
 * 'patch' (a change: items patches writing bytes page bytes; append when it
 * only adds a tuple), 'delta' (the same change in compact form: pools of
 * format version 7), 'prune_fill' (items line pointers changed, holes
 * filled by moving tuples) or 'prune' (the same, compacted by
 * PageRepairFragmentation: pools of format version 5).  None for a page in
 * a plain frame, or whose log is empty.
 */
Datum
nvm_am_page_log(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	int			dirIndex;
	BlockNumber blkno;
	LWLock	   *lock;
	uint64		frame;
	IplRecInfo *recs;
	int			n;

	NvmRecoveryEnsureReady();
	rel = NvmCheckOpenPage(PG_GETARG_OID(0), PG_GETARG_INT64(1), "nvm_am_page_log");
	InitMaterializedSRF(fcinfo, 0);
	dirIndex = NvmStorageRelDirIndex(rel);
	blkno = (BlockNumber) PG_GETARG_INT64(1);
	lock = NvmPoolPageLock(dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);
	frame = NvmPoolRelGetFrame(dirIndex, blkno);
	recs = palloc(sizeof(IplRecInfo) * (NvmPoolFrameLogSize(frame) / 8 + 1));
	n = IplLogDescribe(frame, blkno, recs, NvmPoolFrameLogSize(frame) / 8 + 1);
	LWLockRelease(lock);
	for (int i = 0; i < n; i++)
	{
		Datum		values[6];
		bool		nulls[6] = {0};

		values[0] = Int32GetDatum((int32) recs[i].off);
		values[1] = Int32GetDatum((int32) recs[i].len);
		values[2] = CStringGetTextDatum(recs[i].fill ? "prune_fill" :
										recs[i].prune ? "prune" :
										recs[i].delta ? "delta" : "patch");
		values[3] = BoolGetDatum(recs[i].append);
		values[4] = Int32GetDatum(recs[i].items);
		values[5] = Int32GetDatum(recs[i].bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}

/* NvmCheckMemberMode - pgrowlocks' name of a multixact member's lock */
static const char *
NvmCheckMemberMode(MultiXactStatus status)
{
	switch (status)
	{
		case MultiXactStatusUpdate:
			return "Update";
		case MultiXactStatusNoKeyUpdate:
			return "No Key Update";
		case MultiXactStatusForUpdate:
			return "For Update";
		case MultiXactStatusForNoKeyUpdate:
			return "For No Key Update";
		case MultiXactStatusForShare:
			return "Share";
		case MultiXactStatusForKeyShare:
			return "Key Share";
	}
	return "unknown";
}

/* NvmCheckXmaxMode - pgrowlocks' name of the lock a plain xmax holds */
static const char *
NvmCheckXmaxMode(HeapTupleHeader t)
{
	if (!HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return (t->t_infomask2 & HEAP_KEYS_UPDATED) ? "Update" : "No Key Update";
	if (HEAP_XMAX_IS_SHR_LOCKED(t->t_infomask))
		return "For Share";
	if (HEAP_XMAX_IS_KEYSHR_LOCKED(t->t_infomask))
		return "For Key Share";
	if (HEAP_XMAX_IS_EXCL_LOCKED(t->t_infomask))
		return (t->t_infomask2 & HEAP_KEYS_UPDATED) ? "For Update" : "For No Key Update";
	return "unknown";
}

/*
 * nvm_am_rowlocks - pgrowlocks' rows for an nvm_am table (pgrowlocks reads
 * heap tables only): one per row version that transactions in progress
 * lock or change, (locked_row, locker, multi, xids, modes, pids), with
 * pgrowlocks' names of the lock modes.  A page is looked at under its
 * lock (shared), the lockers' members and pids afterwards, so a lock
 * released meanwhile may still show, as with pgrowlocks.
 */
Datum
nvm_am_rowlocks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	int			dirIndex;
	BlockNumber nblocks;
	CommandId	cid = GetCurrentCommandId(false);

	NvmRecoveryEnsureReady();
	rel = NvmCheckOpenTable(PG_GETARG_OID(0), "nvm_am_rowlocks", "reads");
	InitMaterializedSRF(fcinfo, 0);
	dirIndex = NvmStorageRelDirIndex(rel);
	nblocks = NvmPoolRelNBlocks(dirIndex);
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = NvmPoolPageLock(dirIndex, blkno);
		HeapTupleHeaderData locked[MaxHeapTuplesPerPage];
		OffsetNumber offs[MaxHeapTuplesPerPage];
		int			n = 0;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		LWLockAcquire(lock, LW_SHARED);
		page = IplReadPage(dirIndex, blkno, NULL);
		for (OffsetNumber off = FirstOffsetNumber; off <= PageGetMaxOffsetNumber(page); off++)
		{
			HeapTupleData tup;
			TransactionId xwait;

			if (!ItemIdIsNormal(PageGetItemId(page, off)))
				continue;
			NvmSetTuple(&tup, rel, page, blkno, off);
			if (NvmTupleSatisfiesUpdate(&tup, cid, &xwait) != TM_BeingModified)
				continue;
			memcpy(&locked[n], tup.t_data, SizeofHeapTupleHeader);
			offs[n++] = off;
		}
		LWLockRelease(lock);

		for (int i = 0; i < n; i++)
		{
			HeapTupleHeader t = &locked[i];
			TransactionId xmax = HeapTupleHeaderGetRawXmax(t);
			Datum		values[6];
			bool		nulls[6] = {0};
			bool		multi = (t->t_infomask & HEAP_XMAX_IS_MULTI) != 0;
			MultiXactMember *members = NULL;
			int			nmembers = 1;
			Datum	   *xids;
			Datum	   *modes;
			Datum	   *pids;
			ItemPointerData tid;

			ItemPointerSet(&tid, blkno, offs[i]);
			values[0] = PointerGetDatum(&tid);
			values[1] = TransactionIdGetDatum(xmax);
			values[2] = BoolGetDatum(multi);
			if (multi)
				nmembers = Max(GetMultiXactIdMembers(xmax, &members, false,
													 HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask)),
							   0);
			xids = palloc(sizeof(Datum) * Max(nmembers, 1));
			modes = palloc(sizeof(Datum) * Max(nmembers, 1));
			pids = palloc(sizeof(Datum) * Max(nmembers, 1));
			for (int j = 0; j < nmembers; j++)
			{
				TransactionId xid = multi ? members[j].xid : xmax;

				xids[j] = TransactionIdGetDatum(xid);
				modes[j] = CStringGetTextDatum(multi ? NvmCheckMemberMode(members[j].status) :
											   NvmCheckXmaxMode(t));
				pids[j] = Int32GetDatum(BackendXidGetPid(xid));
			}
			values[3] = PointerGetDatum(construct_array(xids, nmembers, XIDOID, sizeof(TransactionId), true, TYPALIGN_INT));
			values[4] = PointerGetDatum(construct_array(modes, nmembers, TEXTOID, -1, false, TYPALIGN_INT));
			values[5] = PointerGetDatum(construct_array(pids, nmembers, INT4OID, sizeof(int32), true, TYPALIGN_INT));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	relation_close(rel, AccessShareLock);
	return (Datum) 0;
}
