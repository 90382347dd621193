/*-------------------------------------------------------------------------
 *
 * nvm_am.c
 *	  The nvm_am table access method: module initialisation (GUCs, shared
 *	  memory, hooks) and the TableAmRoutine callbacks, in the order of
 *	  tableam.h.
 *
 *	  Tuples use PostgreSQL's heap tuple format and page layout, so that the
 *	  executor's deforming, TOAST and tuple routines work unchanged.  A
 *	  tuple returned by a scan or an index fetch points straight into the
 *	  page frame in the pool (a redirected read: no copy).  That is safe
 *	  because a frame a backend points into is pinned: changes write only
 *	  tuple headers and new tuples in place, and pruning (which moves
 *	  tuples) writes a new frame and frees the old one after the last pin.
 *
 *	  Updates that change no indexed column and fit on the page are HOT
 *	  updates; row locks of all four strengths work as in heap, with
 *	  multixacts for several holders.
 *
 *	  TOAST values go to an ordinary heap TOAST table (relation_toast_am).
 *
 * Locks: the usual relation locks taken by the executor; the page LWLocks
 * of the pool (shared to read a page's tuples and headers, exclusive to
 * change them, never two at once); the relation extension lock to add
 * pages (in ipl_log.c); transaction locks (XactLockTableWait) to wait for
 * a running holder of a row whose lock or update conflicts with ours.
 *
 * On-pmem layout: none of its own; see nvm_pool.c and ipl_log.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/relscan.h"
#include "access/tableam.h"
#include "access/tsmapi.h"
#include "access/valid.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "catalog/index.h"
#include "catalog/pg_am.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "commands/progress.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/freespace.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "nodes/bitmapset.h"
#include "utils/relcache.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "nvm_am.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(nvm_am_handler);

void		_PG_init(void);

bool		nvm_am_preloaded = false;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

#define NVM_OVERHEAD_BYTES_PER_TUPLE \
	(MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData))
#define NVM_USABLE_BYTES_PER_PAGE (BLCKSZ - SizeOfPageHeaderData)
#define NVM_POOL_SIZE_MIN_MB	16
#define NVM_POOL_SIZE_MAX_MB	(1024 * 1024)

/* ----------------------------------------------------------------
 * Module initialisation
 * ----------------------------------------------------------------
 */

static bool
check_pool_path(char **newval, void **extra, GucSource source)
{
	if (*newval == NULL || (*newval)[0] == '\0')
	{
		GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
		GUC_check_errmsg("nvm_am.pool_path must not be empty");
		GUC_check_errhint("Set it to a file path, absolute or relative to the data directory.");
		return false;
	}
	return true;
}

static bool
check_ipl_log_size(int *newval, void **extra, GucSource source)
{
	if (*newval == 0 ||
		(*newval >= NVM_IPL_LOG_SIZE_MIN && *newval <= NVM_IPL_LOG_SIZE_MAX &&
		 *newval % 64 == 0))
		return true;
	GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	GUC_check_errmsg("nvm_am.ipl_log_size must be 0 or a multiple of 64 bytes between 256B and 8kB");
	GUC_check_errhint("0 turns in-page logging off.");
	return false;
}

static const struct config_enum_entry read_mode_options[] = {
	{"redirect", NVM_READ_REDIRECT, false},
	{"copy", NVM_READ_COPY, false},
	{NULL, 0, false}
};

/*
 * NvmDefineGucs - every nvm_am.* setting.
 */
static void
NvmDefineGucs(void)
{
	DefineCustomStringVariable("nvm_am.pool_path",
							   "Path of the persistent-memory pool file.",
							   "Relative paths are relative to the data directory. Use a file on a DAX file system, or on /dev/shm with PMEM_IS_PMEM_FORCE=1 to emulate persistent memory.",
							   &nvm_pool_path,
							   "pg_nvm/nvm_am.pool",
							   PGC_POSTMASTER,
							   0,
							   check_pool_path, NULL, NULL);
	DefineCustomIntVariable("nvm_am.pool_size",
							"Size of the persistent-memory pool file.",
							"Used when the pool is created; an existing pool must have this size.",
							&nvm_pool_size_mb,
							1024,
							NVM_POOL_SIZE_MIN_MB,
							NVM_POOL_SIZE_MAX_MB,
							PGC_POSTMASTER,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("nvm_am.ipl_log_size",
							"Size of the in-page log area of each page frame.",
							"A page change is a record appended to its page's log; a full log is merged into a new page version. 0 turns in-page logging off: every change writes the whole page. Fixed when the pool is created.",
							&nvm_ipl_log_size,
							NVM_IPL_LOG_SIZE_DEFAULT,
							0,
							NVM_IPL_LOG_SIZE_MAX,
							PGC_POSTMASTER,
							GUC_UNIT_BYTE,
							check_ipl_log_size, NULL, NULL);
	DefineCustomIntVariable("nvm_am.merge_cache_size",
							"Shared memory for merged page images.",
							"Pages that have in-page log records are read from here, merged once.",
							&nvm_merge_cache_size,
							NVM_MERGE_CACHE_SIZE_DEFAULT,
							NVM_MERGE_CACHE_SIZE_MIN,
							NVM_MERGE_CACHE_SIZE_MAX,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	DefineCustomStringVariable("nvm_am.persist_trace",
							   "Directory for persist traces (crash simulation in tests).",
							   "When set, every flush and drain into the pool is also written to a trace file per process in this directory. Slow; for tests only.",
							   &nvm_persist_trace,
							   "",
							   PGC_POSTMASTER,
							   GUC_NOT_IN_SAMPLE,
							   NULL, NULL, NULL);
	DefineCustomEnumVariable("nvm_am.read_mode",
							 "How scans read pages without log records.",
							 "redirect reads tuples straight from the pool mapping; copy copies every page into local memory first.",
							 &nvm_read_mode,
							 NVM_READ_REDIRECT,
							 read_mode_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("nvm_am");
}

/*
 * NvmCheckGucs - refuse to start on an invalid nvm_am setting.  PostgreSQL
 * applies a bad value of a setting defined by a library only with a
 * WARNING and keeps the default; for the pool that would mean creating a
 * pool somewhere else or of another size, so nvm_am stops instead.
 * raw_size and raw_path are the values as written, read before the
 * settings were defined.
 */
static void
NvmCheckGucs(const char *raw_size, const char *raw_path,
			 const char *raw_log, const char *raw_cache)
{
	int			mb;
	int			v;

	if (raw_size != NULL &&
		(!parse_int(raw_size, &mb, GUC_UNIT_MB, NULL) ||
		 mb < NVM_POOL_SIZE_MIN_MB || mb > NVM_POOL_SIZE_MAX_MB))
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"nvm_am.pool_size\": \"%s\"",
						raw_size),
				 errhint("Set nvm_am.pool_size to a size between 16MB and 1TB, such as '1GB'.")));
	if (raw_log != NULL &&
		(!parse_int(raw_log, &v, GUC_UNIT_BYTE, NULL) ||
		 !(v == 0 || (v >= NVM_IPL_LOG_SIZE_MIN && v <= NVM_IPL_LOG_SIZE_MAX && v % 64 == 0))))
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"nvm_am.ipl_log_size\": \"%s\"",
						raw_log),
				 errhint("Set nvm_am.ipl_log_size to 0 (no in-page logging) or to a multiple of 64 bytes between 256B and 8kB, such as '1kB'.")));
	if (raw_cache != NULL &&
		(!parse_int(raw_cache, &v, GUC_UNIT_KB, NULL) ||
		 v < NVM_MERGE_CACHE_SIZE_MIN || v > NVM_MERGE_CACHE_SIZE_MAX))
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"nvm_am.merge_cache_size\": \"%s\"",
						raw_cache),
				 errhint("Set nvm_am.merge_cache_size to a size between 1MB and 64GB, such as '64MB'.")));
	if (raw_path != NULL && raw_path[0] == '\0')
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"nvm_am.pool_path\": \"\""),
				 errhint("Set nvm_am.pool_path to a file path, absolute or relative to the data directory.")));
}

static void
nvm_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(add_size(add_size(PoolShmemSize(), NvmHooksShmemSize()),
									add_size(IplCacheShmemSize(), NvmCommitShmemSize())));
	PoolRequestLocks();
}

static void
nvm_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	PoolShmemInit();
	IplCacheShmemInit();
	NvmHooksShmemInit();
	NvmCommitShmemInit();
	LWLockRelease(AddinShmemInitLock);
}

void
_PG_init(void)
{
	const char *raw_size;
	const char *raw_path;
	const char *raw_log;
	const char *raw_cache;

	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am must be loaded via shared_preload_libraries"),
				 errdetail("The pool must be mapped by the postmaster before it starts any backend."),
				 errhint("Add nvm_am to shared_preload_libraries in postgresql.conf and restart the server.")));

	raw_size = GetConfigOption("nvm_am.pool_size", true, false);
	raw_path = GetConfigOption("nvm_am.pool_path", true, false);
	raw_log = GetConfigOption("nvm_am.ipl_log_size", true, false);
	raw_cache = GetConfigOption("nvm_am.merge_cache_size", true, false);
	raw_size = raw_size ? pstrdup(raw_size) : NULL;
	raw_path = raw_path ? pstrdup(raw_path) : NULL;
	raw_log = raw_log ? pstrdup(raw_log) : NULL;
	raw_cache = raw_cache ? pstrdup(raw_cache) : NULL;
	NvmDefineGucs();
	NvmCheckGucs(raw_size, raw_path, raw_log, raw_cache);
	PoolOpenOrCreate();
	NvmHooksInit();
	NvmCommitRegisterWorker();

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = nvm_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = nvm_shmem_startup;
	nvm_am_preloaded = true;
}

/*
 * NvmCheckPreloaded - error out unless the library was preloaded.
 */
void
NvmCheckPreloaded(void)
{
	if (!nvm_am_preloaded)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am must be loaded via shared_preload_libraries"),
				 errhint("Add nvm_am to shared_preload_libraries in postgresql.conf and restart the server.")));
}

/*
 * NvmRelDirIndex - the pool directory index of rel's current storage,
 * cached in rd_amcache.
 */
int
NvmRelDirIndex(Relation rel)
{
	NvmRelHandle *h = (NvmRelHandle *) rel->rd_amcache;
	int			idx;

	if (h != NULL && RelFileNodeEquals(h->node, rel->rd_node))
		return h->dirIndex;

	NvmEnsureReady();
	idx = PoolRelLookup(&rel->rd_node);
	if (idx < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("nvm_am storage of relation \"%s\" is missing from the pool",
						RelationGetRelationName(rel)),
				 errdetail("The pool file holds no storage for relfilenode %u/%u/%u.",
						   rel->rd_node.spcNode, rel->rd_node.dbNode, rel->rd_node.relNode),
				 errhint("The pool file was replaced or recreated after the table was created. Restore the original pool file, or drop the table.")));
	if (h == NULL)
	{
		h = MemoryContextAlloc(CacheMemoryContext, sizeof(NvmRelHandle));
		rel->rd_amcache = h;
	}
	h->node = rel->rd_node;
	h->dirIndex = idx;
	return idx;
}

/* ----------------------------------------------------------------
 * Scan state
 * ----------------------------------------------------------------
 */

typedef struct NvmScanDescData
{
	TableScanDescData rs_base;
	int			dirIndex;
	BlockNumber nblocks;		/* blocks at scan start */
	BlockNumber startblock;		/* range of a limited scan */
	BlockNumber endblock;		/* exclusive */
	bool		inited;
	BlockNumber cblock;			/* current block */
	int			ntuples;		/* visible tuples of cblock */
	int			cindex;			/* current index in vis[] */
	uint64		cframe;			/* pinned image of cblock, 0 if none */
	Page		cpage;			/* its page */
	char	   *copybuf;		/* cblock's copy (nvm_am.read_mode = copy) */
	OffsetNumber vis[MaxHeapTuplesPerPage];
	HeapTupleData tuple;		/* current tuple, points into the pool */
	ParallelBlockTableScanWorkerData pwork;
	OffsetNumber next_offset;	/* analyze scans */
} NvmScanDescData;

typedef NvmScanDescData *NvmScanDesc;

typedef struct NvmIndexFetchData
{
	IndexFetchTableData base;
	int			dirIndex;
	uint64		held;			/* pinned image of the tuple returned last */
	char	   *copybuf;		/* its page's copy (nvm_am.read_mode = copy) */
	TransactionId lastXmin;		/* its xmin, checked when the caller comes back */
	HeapTupleData tuple;
} NvmIndexFetchData;

/*
 * NvmSetTuple - point tup at the tuple at (blkno, off) of page.
 */
static inline void
NvmSetTuple(HeapTuple tup, Relation rel, Page page, BlockNumber blkno,
			OffsetNumber off)
{
	ItemId		lp = PageGetItemId(page, off);

	tup->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tup->t_len = ItemIdGetLength(lp);
	tup->t_tableOid = RelationGetRelid(rel);
	ItemPointerSet(&tup->t_self, blkno, off);
}

static bool NvmAttrsEqual(Relation rel, Bitmapset *attrs, HeapTuple oldtup,
						  HeapTuple newtup);

/*
 * NvmLoadPage - collect the offsets of the tuples of blkno that the scan's
 * snapshot sees and that pass its keys.  Takes the page lock shared.
 */
static void
NvmLoadPage(NvmScanDesc scan, BlockNumber blkno)
{
	Relation	rel = scan->rs_base.rs_rd;
	Snapshot	snapshot = scan->rs_base.rs_snapshot;
	LWLock	   *lock = PoolPageLock(scan->dirIndex, blkno);
	Page		page;
	OffsetNumber maxoff;
	int			n = 0;
	HeapTupleData tup;
	bool		visible;

	LWLockAcquire(lock, LW_SHARED);
	page = IplHoldPage(scan->dirIndex, blkno, &scan->cframe, scan->copybuf);
	scan->cpage = page;
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		if (!ItemIdIsNormal(PageGetItemId(page, off)))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		visible = NvmTupleSatisfies(&tup, snapshot);
		NvmCheckConflictOut(visible, rel, &tup, snapshot);
		if (!visible)
			continue;
		if (scan->rs_base.rs_nkeys > 0)
		{
			bool		ok;

			HeapKeyTest(&tup, RelationGetDescr(rel), scan->rs_base.rs_nkeys,
						scan->rs_base.rs_key, ok);
			if (!ok)
				continue;
		}
		scan->vis[n++] = off;
	}
	LWLockRelease(lock);
	PoolCountAdd(NVM_STAT_PAGE_READS, 1);
	scan->cblock = blkno;
	scan->ntuples = n;
}

static BlockNumber
NvmScanFirstBlock(NvmScanDesc scan, ScanDirection dir)
{
	ParallelBlockTableScanDesc pbscan =
	(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

	if (pbscan != NULL)
	{
		table_block_parallelscan_startblock_init(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
		return table_block_parallelscan_nextpage(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
	}
	if (scan->startblock >= scan->endblock)
		return InvalidBlockNumber;
	return ScanDirectionIsBackward(dir) ? scan->endblock - 1 : scan->startblock;
}

static BlockNumber
NvmScanNextBlock(NvmScanDesc scan, ScanDirection dir)
{
	ParallelBlockTableScanDesc pbscan =
	(ParallelBlockTableScanDesc) scan->rs_base.rs_parallel;

	if (pbscan != NULL)
		return table_block_parallelscan_nextpage(scan->rs_base.rs_rd,
												 &scan->pwork, pbscan);
	if (ScanDirectionIsBackward(dir))
		return scan->cblock > scan->startblock ? scan->cblock - 1 : InvalidBlockNumber;
	return scan->cblock + 1 < scan->endblock ? scan->cblock + 1 : InvalidBlockNumber;
}

/*
 * NvmScanNext - advance to the next visible tuple in direction dir; false
 * at the end (then the scan restarts from the other end, as heap does).
 */
static bool
NvmScanNext(NvmScanDesc scan, ScanDirection dir)
{
	bool		backward = ScanDirectionIsBackward(dir);

	if (!scan->inited)
	{
		BlockNumber blk = NvmScanFirstBlock(scan, dir);

		if (blk == InvalidBlockNumber)
			return false;
		NvmLoadPage(scan, blk);
		scan->cindex = backward ? scan->ntuples : -1;
		scan->inited = true;
	}
	for (;;)
	{
		BlockNumber blk;

		CHECK_FOR_INTERRUPTS();
		scan->cindex += backward ? -1 : 1;
		if (scan->cindex >= 0 && scan->cindex < scan->ntuples)
		{
			NvmSetTuple(&scan->tuple, scan->rs_base.rs_rd, scan->cpage,
						scan->cblock, scan->vis[scan->cindex]);
			return true;
		}
		blk = NvmScanNextBlock(scan, dir);
		if (blk == InvalidBlockNumber)
		{
			scan->inited = false;
			IplDropPage(&scan->cframe);
			return false;
		}
		NvmLoadPage(scan, blk);
		scan->cindex = backward ? scan->ntuples : -1;
	}
}

/* ------------------------------------------------------------------------
 * Slot related callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

static const TupleTableSlotOps *
nvm_slot_callbacks(Relation relation)
{
	return &TTSOpsHeapTuple;
}

/* ------------------------------------------------------------------------
 * Table scan callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

static TableScanDesc
nvm_scan_begin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
			   ParallelTableScanDesc pscan, uint32 flags)
{
	NvmScanDesc scan = palloc0(sizeof(NvmScanDescData));

	scan->copybuf = palloc(BLCKSZ);

	RelationIncrementReferenceCount(rel);
	scan->rs_base.rs_rd = rel;
	scan->rs_base.rs_snapshot = snapshot;
	scan->rs_base.rs_nkeys = nkeys;
	scan->rs_base.rs_flags = flags;
	scan->rs_base.rs_parallel = pscan;
	scan->dirIndex = NvmRelDirIndex(rel);
	scan->nblocks = PoolRelNBlocks(scan->dirIndex);
	scan->startblock = 0;
	scan->endblock = scan->nblocks;
	scan->inited = false;
	if (nkeys > 0)
	{
		scan->rs_base.rs_key = palloc(sizeof(ScanKeyData) * nkeys);
		memcpy(scan->rs_base.rs_key, key, sizeof(ScanKeyData) * nkeys);
	}
	/*
	 * A sequential or sample scan of a serializable transaction locks the
	 * whole relation: nothing finer covers rows inserted later.
	 */
	if (flags & (SO_TYPE_SEQSCAN | SO_TYPE_SAMPLESCAN))
		PredicateLockRelation(rel, snapshot);
	if (flags & SO_TYPE_SEQSCAN)
		pgstat_count_heap_scan(rel);
	return (TableScanDesc) scan;
}

static void
nvm_scan_end(TableScanDesc sscan)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	IplDropPage(&scan->cframe);
	RelationDecrementReferenceCount(sscan->rs_rd);
	if (sscan->rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(sscan->rs_snapshot);
	if (sscan->rs_key)
		pfree(sscan->rs_key);
	pfree(scan);
}

static void
nvm_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (key != NULL && sscan->rs_nkeys > 0)
		memcpy(sscan->rs_key, key, sizeof(ScanKeyData) * sscan->rs_nkeys);
	IplDropPage(&scan->cframe);
	scan->nblocks = PoolRelNBlocks(scan->dirIndex);
	scan->startblock = 0;
	scan->endblock = scan->nblocks;
	scan->inited = false;
}

static bool
nvm_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (!NvmScanNext(scan, direction))
	{
		ExecClearTuple(slot);
		return false;
	}
	pgstat_count_heap_getnext(sscan->rs_rd);
	ExecStoreHeapTuple(&scan->tuple, slot, false);
	return true;
}

static void
nvm_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
					  ItemPointer maxtid)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber lo = ItemPointerGetBlockNumberNoCheck(mintid);
	BlockNumber hi = ItemPointerGetBlockNumberNoCheck(maxtid);

	scan->startblock = Min(lo, scan->nblocks);
	scan->endblock = Min((uint64) hi + 1, scan->nblocks);
	scan->inited = false;
	ItemPointerCopy(mintid, &sscan->rs_mintid);
	ItemPointerCopy(maxtid, &sscan->rs_maxtid);
}

static bool
nvm_scan_getnextslot_tidrange(TableScanDesc sscan, ScanDirection direction,
							  TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	while (NvmScanNext(scan, direction))
	{
		if (ItemPointerCompare(&scan->tuple.t_self, &sscan->rs_mintid) < 0 ||
			ItemPointerCompare(&scan->tuple.t_self, &sscan->rs_maxtid) > 0)
			continue;
		pgstat_count_heap_getnext(sscan->rs_rd);
		ExecStoreHeapTuple(&scan->tuple, slot, false);
		return true;
	}
	ExecClearTuple(slot);
	return false;
}

/* ------------------------------------------------------------------------
 * Parallel table scan related callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

/* the generic block-oriented helpers of tableam.c serve as they are */

/* ------------------------------------------------------------------------
 * Index scan callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

static IndexFetchTableData *
nvm_index_fetch_begin(Relation rel)
{
	NvmIndexFetchData *f = palloc0(sizeof(NvmIndexFetchData));

	f->copybuf = palloc(BLCKSZ);

	f->base.rel = rel;
	f->dirIndex = NvmRelDirIndex(rel);
	return &f->base;
}

static void
nvm_index_fetch_reset(IndexFetchTableData *scan)
{
	IplDropPage(&((NvmIndexFetchData *) scan)->held);
}

static void
nvm_index_fetch_end(IndexFetchTableData *scan)
{
	IplDropPage(&((NvmIndexFetchData *) scan)->held);
	pfree(scan);
}

/*
 * NvmDeadToAll - can no transaction that exists or may start see tup?
 * *deleter is set to its deleting xid, if any.  Caller holds the page lock.
 */
static bool
NvmDeadToAll(Relation rel, HeapTuple tup, TransactionId *deleter)
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
 * NvmChainStep - the next member of the HOT chain after tup, or
 * InvalidOffsetNumber at the end of the chain.  *priorXmax gets the xid
 * the next member must have as its xmin.
 */
static inline OffsetNumber
NvmChainStep(HeapTuple tup, TransactionId *priorXmax)
{
	if (!HeapTupleIsHotUpdated(tup))
		return InvalidOffsetNumber;
	Assert(ItemPointerGetBlockNumber(&tup->t_data->t_ctid) ==
		   ItemPointerGetBlockNumber(&tup->t_self));
	*priorXmax = HeapTupleHeaderGetUpdateXid(tup->t_data);
	return ItemPointerGetOffsetNumber(&tup->t_data->t_ctid);
}

/*
 * NvmChainMember - point tup at the chain member at off, or return false
 * when off does not hold one (a broken or pruned chain).  A root may be a
 * redirect; members after the root are heap-only tuples created by
 * priorXmax.
 */
static bool
NvmChainMember(Relation rel, Page page, BlockNumber blkno, OffsetNumber *off,
			   bool atRoot, TransactionId priorXmax, HeapTuple tup)
{
	ItemId		lp;

	if (*off < FirstOffsetNumber || *off > PageGetMaxOffsetNumber(page))
		return false;
	lp = PageGetItemId(page, *off);
	if (ItemIdIsRedirected(lp) && atRoot)
	{
		*off = ItemIdGetRedirect(lp);
		lp = PageGetItemId(page, *off);
		atRoot = false;
	}
	if (!ItemIdIsNormal(lp))
		return false;
	NvmSetTuple(tup, rel, page, blkno, *off);
	if (atRoot && HeapTupleHeaderIsHeapOnly(tup->t_data))
		return false;			/* an index never points at a heap-only tuple */
	if (TransactionIdIsValid(priorXmax) &&
		!TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup->t_data)))
		return false;
	return true;
}

/*
 * NvmFetchVisible - test the tuple at tid against snapshot; false for a tid
 * that names no tuple.  When it is visible and copy is given, *copy is a
 * palloc'd copy of it.  Takes the page lock shared.
 */
static bool
NvmFetchVisible(Relation rel, int dirIndex, ItemPointer tid,
				Snapshot snapshot, bool *visible, HeapTuple *copy)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	LWLock	   *lock;
	Page		page;
	bool		found = false;
	HeapTupleData tup;

	*visible = false;
	if (blkno >= PoolRelNBlocks(dirIndex))
		return false;
	lock = PoolPageLock(dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);
	page = IplGetPage(dirIndex, blkno);
	if (off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page) &&
		ItemIdIsNormal(PageGetItemId(page, off)))
	{
		found = true;
		NvmSetTuple(&tup, rel, page, blkno, off);
		*visible = NvmTupleSatisfies(&tup, snapshot);
		NvmCheckConflictOut(*visible, rel, &tup, snapshot);
		if (*visible && copy)
		{
			PredicateLockTID(rel, tid, snapshot, HeapTupleHeaderGetXmin(tup.t_data));
			*copy = heap_copytuple(&tup);
		}
	}
	LWLockRelease(lock);
	return found;
}

/*
 * nvm_index_fetch_tuple - the version of the HOT chain rooted at tid that
 * snapshot sees.  With a non-MVCC snapshot more than one version may
 * qualify: *call_again asks the caller to come back for the next one.
 */
static bool
nvm_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					  Snapshot snapshot, TupleTableSlot *slot,
					  bool *call_again, bool *all_dead)
{
	NvmIndexFetchData *f = (NvmIndexFetchData *) scan;
	Relation	rel = scan->rel;
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	bool		first = !*call_again;
	bool		skip = !first;	/* come back: start after the last result */
	bool		atRoot = first;
	bool		deadSoFar = true;
	TransactionId priorXmax = InvalidTransactionId;
	LWLock	   *lock;
	Page		page;
	HeapTupleData tup;

	*call_again = false;
	if (all_dead)
		*all_dead = false;
	if (blkno >= PoolRelNBlocks(f->dirIndex))
		return false;
	lock = PoolPageLock(f->dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);
	page = IplHoldPage(f->dirIndex, blkno, &f->held, f->copybuf);
	for (;;)
	{
		TransactionId deleter;
		bool		visible;

		if (!NvmChainMember(rel, page, blkno, &off, atRoot, priorXmax, &tup))
			break;
		/* coming back: the version returned last must still be there */
		if (skip && !TransactionIdEquals(HeapTupleHeaderGetRawXmin(tup.t_data), f->lastXmin))
			break;
		if (!skip)
		{
			visible = NvmTupleSatisfies(&tup, snapshot);
			NvmCheckConflictOut(visible, rel, &tup, snapshot);
			if (visible)
			{
				PredicateLockTID(rel, &tup.t_self, snapshot,
								 HeapTupleHeaderGetXmin(tup.t_data));
				LWLockRelease(lock);
				f->tuple = tup;
				f->lastXmin = HeapTupleHeaderGetRawXmin(tup.t_data);
				*tid = tup.t_self;
				*call_again = !IsMVCCSnapshot(snapshot);
				ExecStoreHeapTuple(&f->tuple, slot, false);
				return true;
			}
			if (deadSoFar && !NvmDeadToAll(rel, &tup, &deleter))
				deadSoFar = false;
		}
		skip = false;
		atRoot = false;
		off = NvmChainStep(&tup, &priorXmax);
		if (off == InvalidOffsetNumber)
			break;
	}
	LWLockRelease(lock);

	/*
	 * Tell the index when no transaction can see any version of the chain
	 * any more: it marks the entry dead, and later scans skip it.
	 */
	if (all_dead && first)
		*all_dead = deadSoFar;
	return false;
}

/* ------------------------------------------------------------------------
 * Callbacks for non-modifying operations on individual tuples for nvm_am
 * ------------------------------------------------------------------------
 */

static bool
nvm_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
					  TupleTableSlot *slot)
{
	HeapTuple	copy;
	bool		visible;

	if (!NvmFetchVisible(rel, NvmRelDirIndex(rel), tid, snapshot, &visible, &copy) ||
		!visible)
		return false;
	ExecStoreHeapTuple(copy, slot, true);
	return true;
}

static bool
nvm_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	NvmScanDesc nscan = (NvmScanDesc) scan;

	return ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) < PoolRelNBlocks(nscan->dirIndex);
}

static void
nvm_get_latest_tid(TableScanDesc sscan, ItemPointer tid)
{
	Relation	rel = sscan->rs_rd;
	Snapshot	snapshot = sscan->rs_snapshot;
	int			dirIndex = NvmRelDirIndex(rel);
	ItemPointerData ctid = *tid;
	TransactionId priorXmax = InvalidTransactionId;

	for (;;)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&ctid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&ctid);
		LWLock	   *lock;
		Page		page;
		HeapTupleData tup;
		bool		more = false;

		if (blkno >= PoolRelNBlocks(dirIndex))
			break;
		lock = PoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		if (off >= FirstOffsetNumber && off <= PageGetMaxOffsetNumber(page) &&
			ItemIdIsNormal(PageGetItemId(page, off)))
		{
			NvmSetTuple(&tup, rel, page, blkno, off);
			if (!TransactionIdIsValid(priorXmax) ||
				TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup.t_data)))
			{
				if (NvmTupleSatisfies(&tup, snapshot))
					*tid = ctid;
				if (!(tup.t_data->t_infomask & HEAP_XMAX_INVALID) &&
					!HEAP_XMAX_IS_LOCKED_ONLY(tup.t_data->t_infomask) &&
					!ItemPointerEquals(&tup.t_self, &tup.t_data->t_ctid) &&
					!HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
				{
					priorXmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
					ctid = tup.t_data->t_ctid;
					more = true;
				}
			}
		}
		LWLockRelease(lock);
		if (!more)
			break;
	}
}

static bool
nvm_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							 Snapshot snapshot)
{
	bool		visible;

	if (!NvmFetchVisible(rel, NvmRelDirIndex(rel), &slot->tts_tid, snapshot,
						 &visible, NULL))
		return false;
	return visible;
}

/* the newer of two xids, either of which may be invalid */
static inline TransactionId
NvmNewerXid(TransactionId a, TransactionId b)
{
	if (!TransactionIdIsNormal(b))
		return a;
	if (!TransactionIdIsValid(a) || TransactionIdFollows(b, a))
		return b;
	return a;
}

/*
 * nvm_index_delete_tuples - tell an index which of its entries point to
 * row versions that no transaction can see any more, so that it can remove
 * them instead of splitting a page.  Safe because nvm_am never reuses a
 * TID.  Returns the newest xid that deleted one of them (for conflicts on
 * a standby reading the index).
 */
static TransactionId
nvm_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	int			dirIndex = NvmRelDirIndex(rel);
	TransactionId latest = InvalidTransactionId;

	for (int i = 0; i < delstate->ndeltids; i++)
	{
		TM_IndexDelete *d = &delstate->deltids[i];
		TM_IndexStatus *st = &delstate->status[d->id];
		BlockNumber blkno = ItemPointerGetBlockNumber(&d->tid);
		OffsetNumber off = ItemPointerGetOffsetNumber(&d->tid);
		TransactionId priorXmax = InvalidTransactionId;
		TransactionId chainLatest = InvalidTransactionId;
		bool		atRoot = true;
		bool		dead = true;
		LWLock	   *lock;
		Page		page;
		HeapTupleData tup;

		if (blkno >= PoolRelNBlocks(dirIndex))
			continue;
		lock = PoolPageLock(dirIndex, blkno);
		LWLockAcquire(lock, LW_SHARED);
		page = IplGetPage(dirIndex, blkno);
		/* deletable when every version of the chain is dead to all */
		while (NvmChainMember(rel, page, blkno, &off, atRoot, priorXmax, &tup))
		{
			TransactionId deleter;

			if (!NvmDeadToAll(rel, &tup, &deleter))
			{
				dead = false;
				break;
			}
			chainLatest = NvmNewerXid(chainLatest, deleter);
			atRoot = false;
			off = NvmChainStep(&tup, &priorXmax);
			if (off == InvalidOffsetNumber)
				break;
		}
		LWLockRelease(lock);
		if (!dead)
			continue;
		st->knowndeletable = true;
		latest = NvmNewerXid(latest, chainLatest);
	}
	return latest;
}

/* ----------------------------------------------------------------------------
 *  Functions for manipulations of physical tuples for nvm_am.
 * ----------------------------------------------------------------------------
 */

/*
 * NvmPrepareInsert - set the header of a tuple to insert and TOAST it if
 * needed; returns the tuple to store (tup itself or a toasted copy).
 */
static HeapTuple
NvmPrepareInsert(Relation rel, HeapTuple tup, TransactionId xid,
				 CommandId cid, int options, HeapTuple oldtup)
{
	tup->t_data->t_infomask &= ~HEAP_XACT_MASK;
	tup->t_data->t_infomask2 &= ~HEAP2_XACT_MASK;
	tup->t_data->t_infomask |= HEAP_XMAX_INVALID;
	HeapTupleHeaderSetXmin(tup->t_data, xid);
	if (options & HEAP_INSERT_FROZEN)
		HeapTupleHeaderSetXminFrozen(tup->t_data);
	HeapTupleHeaderSetCmin(tup->t_data, cid);
	HeapTupleHeaderSetXmax(tup->t_data, 0);
	tup->t_tableOid = RelationGetRelid(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION &&
		rel->rd_rel->relkind != RELKIND_MATVIEW)
		return tup;
	if (HeapTupleHasExternal(tup) || tup->t_len > TOAST_TUPLE_THRESHOLD ||
		(oldtup != NULL && HeapTupleHasExternal(oldtup)))
		return heap_toast_insert_or_update(rel, tup, oldtup, options);
	return tup;
}

/*
 * NvmInsertTuple - insert one tuple; sets tup->t_self.
 */
static void
NvmInsertTuple(Relation rel, HeapTuple tup, CommandId cid, int options,
			   uint32 specToken)
{
	int			dirIndex = NvmRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTuple	heaptup;

	NvmBeforeWrite();
	heaptup = NvmPrepareInsert(rel, tup, xid, cid, options, NULL);
	if (specToken != 0)
		HeapTupleHeaderSetSpeculativeToken(heaptup->t_data, specToken);
	CheckForSerializableConflictIn(rel, NULL, InvalidBlockNumber);
	IplPlaceTuple(rel, dirIndex, heaptup, specToken != 0);
	if (heaptup != tup)
	{
		tup->t_self = heaptup->t_self;
		heap_freetuple(heaptup);
	}
	PoolCountAdd(NVM_STAT_TUPLES_INSERTED, 1);
}

static void
nvm_tuple_insert_internal(Relation rel, TupleTableSlot *slot, CommandId cid,
						  int options, uint32 specToken)
{
	bool		shouldFree = true;
	HeapTuple	tup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);

	slot->tts_tableOid = RelationGetRelid(rel);
	NvmInsertTuple(rel, tup, cid, options, specToken);
	slot->tts_tid = tup->t_self;
	ItemPointerCopy(&tup->t_self, &tup->t_data->t_ctid);
	if (shouldFree)
		pfree(tup);
}

static void
nvm_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				 int options, BulkInsertState bistate)
{
	nvm_tuple_insert_internal(rel, slot, cid, options, 0);
	pgstat_count_heap_insert(rel, 1);
}

static void
nvm_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							 CommandId cid, int options,
							 BulkInsertState bistate, uint32 specToken)
{
	Assert(specToken != 0);
	nvm_tuple_insert_internal(rel, slot, cid, options, specToken);
	pgstat_count_heap_insert(rel, 1);
}

/*
 * NvmLockPageOf - lock the page of tid exclusively; returns the page and
 * points tup at the tuple.  Errors out for a tid that names no tuple.
 */
static Page
NvmLockPageOfExt(Relation rel, int dirIndex, ItemPointer tid, HeapTuple tup,
				 LWLock **lockp, bool missing_ok)
{
	BlockNumber blkno = ItemPointerGetBlockNumber(tid);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	Page		page;

	if (blkno >= PoolRelNBlocks(dirIndex))
		elog(ERROR, "nvm_am: tid (%u,%u) beyond the end of relation \"%s\"",
			 blkno, off, RelationGetRelationName(rel));
	*lockp = PoolPageLock(dirIndex, blkno);
	LWLockAcquire(*lockp, LW_EXCLUSIVE);
	page = IplGetPage(dirIndex, blkno);
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

static inline Page
NvmLockPageOf(Relation rel, int dirIndex, ItemPointer tid, HeapTuple tup,
			  LWLock **lockp)
{
	return NvmLockPageOfExt(rel, dirIndex, tid, tup, lockp, false);
}

static void
nvm_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
							   uint32 specToken, bool succeeded)
{
	int			dirIndex = NvmRelDirIndex(rel);
	LWLock	   *lock;
	HeapTupleData tup;
	HeapTupleHeaderData hdr;
	HeapTuple	toastcopy = NULL;
	Page		page = NvmLockPageOf(rel, dirIndex, &slot->tts_tid, &tup, &lock);

	memcpy(&hdr, tup.t_data, sizeof(hdr));
	if (succeeded)
		hdr.t_ctid = tup.t_self;
	else
	{
		/* "super-delete": the tuple was never visible to anyone */
		HeapTupleHeaderSetXmin(&hdr, InvalidTransactionId);
		hdr.t_infomask |= HEAP_XMIN_INVALID;
		hdr.t_ctid = tup.t_self;
	}
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(&tup.t_self), &hdr);
	if (!succeeded && HeapTupleHasExternal(&tup))
		toastcopy = heap_copytuple(&tup);
	LWLockRelease(lock);
	if (toastcopy)
	{
		/* its TOAST values were never visible either */
		heap_toast_delete(rel, toastcopy, true);
		heap_freetuple(toastcopy);
	}
	if (!succeeded)
		pgstat_count_heap_delete(rel);
}

static void
nvm_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				 CommandId cid, int options, BulkInsertState bistate)
{
	for (int i = 0; i < ntuples; i++)
		nvm_tuple_insert_internal(rel, slots[i], cid, options, 0);
	pgstat_count_heap_insert(rel, ntuples);
}

/* ----------------------------------------------------------------
 * Row locks and multixacts
 *
 * As in heap, xmax holds either one transaction (a locker with its lock
 * strength in the infomask, or an updater) or a multixact of several
 * lockers and at most one updater.  Lock strengths conflict as the
 * heavyweight modes they stand for: FOR KEY SHARE only with FOR UPDATE and
 * key-changing updates and deletes, and so on.
 * ----------------------------------------------------------------
 */

static LOCKMODE
NvmStatusLockMode(MultiXactStatus status)
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
NvmLockStatus(LockTupleMode mode)
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
NvmStatusIsUpdate(MultiXactStatus status)
{
	return status == MultiXactStatusNoKeyUpdate || status == MultiXactStatusUpdate;
}

/*
 * NvmXmaxHolders - the transactions in t's xmax that are still running,
 * with what they hold.  Caller holds the page lock.
 */
static int
NvmXmaxHolders(HeapTupleHeader t, MultiXactMember **holders)
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
 * NvmConflictingHolder - a running transaction other than ours holding t
 * in a way that conflicts with want, or InvalidTransactionId.
 */
static TransactionId
NvmConflictingHolder(HeapTupleHeader t, MultiXactStatus want)
{
	MultiXactMember *holders;
	int			n = NvmXmaxHolders(t, &holders);
	TransactionId result = InvalidTransactionId;

	for (int i = 0; i < n; i++)
	{
		if (TransactionIdIsCurrentTransactionId(holders[i].xid))
			continue;

		/*
		 * A lock compatible with a running update of the row is granted, as
		 * in heap; nvm_tuple_lock then locks the new versions as well
		 * (NvmLockUpdateChain), so that a FOR KEY SHARE lock of a
		 * foreign-key check covers the row whichever version survives.
		 */
		if (DoLockModesConflict(NvmStatusLockMode(holders[i].status),
								NvmStatusLockMode(want)))
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
 * NvmTupleUpdater - the transaction that updated or deleted t (finished or
 * not), or InvalidTransactionId when xmax holds lockers only or nothing.
 */
static TransactionId
NvmTupleUpdater(HeapTupleHeader t)
{
	if ((t->t_infomask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask))
		return InvalidTransactionId;
	return HeapTupleHeaderGetUpdateXid(t);
}

/*
 * NvmUnlinkedUpdater - the running transaction (not ours) that is updating
 * tup without having linked the new version yet, or InvalidTransactionId.
 * A non-HOT update writes the old version's xmax, releases the page to
 * store the new version elsewhere and only then sets the old version's
 * ctid; a lock taken in between could not follow the chain to the new
 * version, so it waits for the updater instead (heap would not: it keeps
 * the new locker in the new version's xmax).  Caller holds the page lock.
 */
static TransactionId
NvmUnlinkedUpdater(HeapTuple tup)
{
	TransactionId updater = NvmTupleUpdater(tup->t_data);

	if (!TransactionIdIsValid(updater) ||
		!ItemPointerEquals(&tup->t_data->t_ctid, &tup->t_self) ||
		TransactionIdIsCurrentTransactionId(updater) ||
		!TransactionIdIsInProgress(updater))
		return InvalidTransactionId;
	return updater;
}

/*
 * NvmHoldsAtLeast - does the current transaction (under any of its xids)
 * hold a lock on t at least as strong as want?
 */
static bool
NvmHoldsAtLeast(HeapTupleHeader t, MultiXactStatus want)
{
	MultiXactMember *holders;
	int			n = NvmXmaxHolders(t, &holders);
	bool		result = false;

	for (int i = 0; i < n && !result; i++)
		result = TransactionIdIsCurrentTransactionId(holders[i].xid) &&
			!NvmStatusIsUpdate(holders[i].status) &&
			holders[i].status >= want;
	if (holders)
		pfree(holders);
	return result;
}

/*
 * NvmStatusBits - infomask bits for xmax held with status (one
 * transaction), or by a multixact whose strongest member has it.
 */
static void
NvmStatusBits(MultiXactStatus status, bool lockOnly, uint16 *infomask,
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
 * NvmNewXmax - the xmax of t once the current transaction (as myxid) takes
 * it with status want, keeping the other running holders (all compatible
 * with want: the caller waited for the others).  Returns the xmax and its
 * infomask bits; *others tells whether other holders remain.
 */
static TransactionId
NvmNewXmax(HeapTupleHeader t, MultiXactStatus want, TransactionId myxid,
		   uint16 *infomask, uint16 *infomask2, bool *others)
{
	MultiXactMember *holders;
	int			n = NvmXmaxHolders(t, &holders);
	MultiXactMember *members = palloc((n + 1) * sizeof(MultiXactMember));
	int			nmembers = 0;
	MultiXactStatus mine = want;
	MultiXactStatus strongest;
	bool		anyUpdate;
	TransactionId result;

	for (int i = 0; i < n; i++)
	{
		if (TransactionIdEquals(holders[i].xid, myxid))
		{
			/* our own lock under the same xid: keep the stronger */
			if (!NvmStatusIsUpdate(want) && !NvmStatusIsUpdate(holders[i].status) &&
				holders[i].status > mine)
				mine = holders[i].status;
			continue;
		}

		/*
		 * A lock we took under another of our xids (before a savepoint) stays
		 * a member: rolling back to the savepoint must not drop it.
		 */
		if (TransactionIdIsCurrentTransactionId(holders[i].xid) &&
			NvmStatusIsUpdate(holders[i].status))
			continue;
		members[nmembers++] = holders[i];
	}
	*others = nmembers > 0;
	if (nmembers == 0)
	{
		NvmStatusBits(mine, !NvmStatusIsUpdate(mine), infomask, infomask2);
		result = myxid;
	}
	else
	{
		members[nmembers].xid = myxid;
		members[nmembers].status = mine;
		nmembers++;
		strongest = mine;
		anyUpdate = NvmStatusIsUpdate(mine);
		for (int i = 0; i < nmembers; i++)
		{
			if (NvmStatusLockMode(members[i].status) > NvmStatusLockMode(strongest))
				strongest = members[i].status;
			anyUpdate |= NvmStatusIsUpdate(members[i].status);
		}
		MultiXactIdSetOldestMember();
		result = MultiXactIdCreateFromMembers(nmembers, members);
		NvmStatusBits(strongest, !anyUpdate, infomask, infomask2);
		if (anyUpdate)
			*infomask &= ~HEAP_LOCK_MASK;	/* an update, not a lock */
		*infomask |= HEAP_XMAX_IS_MULTI;
	}
	if (holders)
		pfree(holders);
	pfree(members);
	return result;
}

/*
 * NvmCheckModify - decide whether the current command may change the
 * tuple tup (page locked exclusively).  Waits for a concurrent writer when
 * wait is set (releasing and retaking the page lock: *relocked is set and
 * the caller must re-read).  Fills tmfd for every result but TM_Ok.
 */
static TM_Result
NvmCheckModify(Relation rel, HeapTuple tup, CommandId cid, Snapshot crosscheck,
			   MultiXactStatus want, LockWaitPolicy policy, LWLock *lock,
			   TM_FailureData *tmfd, bool *relocked)
{
	TransactionId xwait;
	TM_Result	result = NvmTupleSatisfiesUpdate(tup, cid, &xwait);

	*relocked = false;
	if (result == TM_Invisible)
		return result;
	if (result == TM_BeingModified)
	{
		/* only a running holder whose lock conflicts with ours matters */
		xwait = NvmConflictingHolder(tup->t_data, want);
		if (!TransactionIdIsValid(xwait) && !NvmStatusIsUpdate(want))
			xwait = NvmUnlinkedUpdater(tup);
		if (!TransactionIdIsValid(xwait))
		{
			if (HEAP_XMAX_IS_LOCKED_ONLY(tup->t_data->t_infomask))
				result = TM_Ok; /* only compatible lockers are running */
			else
			{
				/*
				 * An updater is among the holders, compatible with us or
				 * finished since we looked: ask again, so that a commit in
				 * between gives TM_Updated and not a second new version.
				 */
				result = NvmTupleSatisfiesUpdate(tup, cid, &xwait);
				if (result == TM_BeingModified)
				{
					xwait = NvmConflictingHolder(tup->t_data, want);
					if (!TransactionIdIsValid(xwait) && !NvmStatusIsUpdate(want))
						xwait = NvmUnlinkedUpdater(tup);
					if (!TransactionIdIsValid(xwait))
						result = TM_Ok;
				}
			}
		}
	}
	if (result == TM_BeingModified)
	{
		ItemPointerData self = tup->t_self;
		TransactionId xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
		int			dirIndex = NvmRelDirIndex(rel);
		Page		page;
		ItemId		lp;

		switch (policy)
		{
			case LockWaitBlock:
				LWLockRelease(lock);
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
				ereport(ERROR,
						(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
						 errmsg("could not obtain lock on row in relation \"%s\"",
								RelationGetRelationName(rel))));
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
 * NvmSetXmaxHeader - build in hdr the header of tup with a new xmax (one
 * transaction or a multixact) and its infomask bits; for an update or
 * delete by the current transaction also its command id.
 */
static void
NvmSetXmaxHeader(HeapTupleHeader hdr, HeapTuple tup, TransactionId xmax,
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
 * NvmLockForModify - lock the page of tid exclusively and decide whether
 * the current command may delete or update the tuple there, waiting for a
 * concurrent writer when wait is set.  On TM_Ok the page stays locked and
 * *tup, *page, *lock describe the tuple; any other result is returned with
 * the page unlocked and tmfd filled.  what names the operation in the
 * error for an invisible tuple.
 */
static TM_Result
NvmLockForModify(Relation rel, int dirIndex, ItemPointer tid, CommandId cid,
				 Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
				 HeapTuple tup, Page *page, LWLock **lock, const char *what,
				 Bitmapset *keyattrs, HeapTuple newtup, MultiXactStatus *want)
{
	TM_Result	result;
	bool		relocked;

	*page = NvmLockPageOf(rel, dirIndex, tid, tup, lock);
	do
	{
		/* the page may have moved to a new frame while we waited */
		*page = IplGetPage(dirIndex, ItemPointerGetBlockNumber(tid));
		NvmSetTuple(tup, rel, *page, ItemPointerGetBlockNumber(tid),
					ItemPointerGetOffsetNumber(tid));
		/* an update that keeps the key does not conflict with FOR KEY SHARE */
		*want = (newtup != NULL && NvmAttrsEqual(rel, keyattrs, tup, newtup)) ?
			MultiXactStatusNoKeyUpdate : MultiXactStatusUpdate;
		result = NvmCheckModify(rel, tup, cid, crosscheck, *want,
								wait ? LockWaitBlock : LockWaitSkip, *lock,
								tmfd, &relocked);
	} while (relocked);
	if (result == TM_Invisible)
	{
		LWLockRelease(*lock);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("attempted to %s invisible tuple", what)));
	}
	if (result != TM_Ok)
		LWLockRelease(*lock);
	return result;
}

static TM_Result
nvm_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				 Snapshot snapshot, Snapshot crosscheck, bool wait,
				 TM_FailureData *tmfd, bool changingPart)
{
	int			dirIndex = NvmRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTupleData tup;
	HeapTupleHeaderData hdr;
	LWLock	   *lock;
	Page		page;
	TM_Result	result;
	HeapTuple	oldcopy = NULL;
	MultiXactStatus want;
	TransactionId xmax;
	uint16		bits;
	uint16		bits2;
	bool		others;

	NvmBeforeWrite();
	result = NvmLockForModify(rel, dirIndex, tid, cid, crosscheck, wait, tmfd,
							  &tup, &page, &lock, "delete", NULL, NULL, &want);
	if (result != TM_Ok)
		return result;
	CheckForSerializableConflictIn(rel, tid, ItemPointerGetBlockNumber(tid));
	xmax = NvmNewXmax(tup.t_data, want, xid, &bits, &bits2, &others);
	NvmSetXmaxHeader(&hdr, &tup, xmax, cid, bits, bits2, true);
	if (changingPart)
		HeapTupleHeaderSetMovedPartitions(&hdr);
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(tid), &hdr);
	if (HeapTupleHasExternal(&tup))
		oldcopy = heap_copytuple(&tup);
	LWLockRelease(lock);

	if (oldcopy)
	{
		heap_toast_delete(rel, oldcopy, false);
		heap_freetuple(oldcopy);
	}
	pgstat_count_heap_delete(rel);
	PoolCountAdd(NVM_STAT_TUPLES_DELETED, 1);
	return TM_Ok;
}

/*
 * NvmCarryLockers - give the new version of an updated row the xmax of
 * the lockers that still hold the old one (none: xmax stays invalid).
 */
static void
NvmCarryLockers(HeapTuple newtup, TransactionId lockers, uint16 mask)
{
	if (!TransactionIdIsValid(lockers))
		return;
	newtup->t_data->t_infomask &= ~HEAP_XMAX_BITS;
	newtup->t_data->t_infomask |= mask;
	HeapTupleHeaderSetXmax(newtup->t_data, lockers);
}

/*
 * NvmCanHot - may newtup replace oldtup as a heap-only tuple (a HOT
 * update: no index entries)?  Only if no indexed column changed and no
 * TOAST work is needed.
 */
static bool
NvmCanHot(Relation rel, Bitmapset *attrs, HeapTuple oldtup, HeapTuple newtup)
{
	if (HeapTupleHasExternal(oldtup) || HeapTupleHasExternal(newtup) ||
		newtup->t_len > TOAST_TUPLE_THRESHOLD)
		return false;
	return NvmAttrsEqual(rel, attrs, oldtup, newtup);
}

/*
 * NvmAttrsEqual - do oldtup and newtup hold binary-equal values in every
 * attribute of attrs (offset by FirstLowInvalidHeapAttributeNumber)?
 */
static bool
NvmAttrsEqual(Relation rel, Bitmapset *attrs, HeapTuple oldtup, HeapTuple newtup)
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

static TM_Result
nvm_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				 bool *update_indexes)
{
	int			dirIndex = NvmRelDirIndex(rel);
	TransactionId xid = GetCurrentTransactionId();
	HeapTupleData oldtup;
	HeapTupleHeaderData hdr;
	LWLock	   *lock;
	Page		page;
	TM_Result	result;
	bool		shouldFree = true;
	HeapTuple	newtup;
	HeapTuple	heaptup;
	HeapTuple	oldcopy = NULL;
	Bitmapset  *hotattrs;
	Bitmapset  *keyattrs;
	MultiXactStatus want;
	TransactionId xmax;
	TransactionId lockersXmax = InvalidTransactionId;
	uint16		lockersMask = 0;
	uint16		bits;
	uint16		bits2;
	bool		others;

	*update_indexes = true;
	NvmBeforeWrite();
	/* catalog lookups and copying before the page is locked */
	hotattrs = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_ALL);
	keyattrs = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_KEY);
	newtup = ExecFetchSlotHeapTuple(slot, true, &shouldFree);
	slot->tts_tableOid = RelationGetRelid(rel);

	/* step 1: mark the old version as updated by us */
	result = NvmLockForModify(rel, dirIndex, otid, cid, crosscheck, wait, tmfd,
							  &oldtup, &page, &lock, "update", keyattrs, newtup,
							  &want);
	*lockmode = want == MultiXactStatusNoKeyUpdate ?
		LockTupleNoKeyExclusive : LockTupleExclusive;
	bms_free(keyattrs);
	if (result != TM_Ok)
	{
		bms_free(hotattrs);
		return result;
	}

	/*
	 * The new xmax keeps the FOR KEY SHARE lockers of a row whose key stays;
	 * as in heap, they hold the new version as well.
	 */
	xmax = NvmNewXmax(oldtup.t_data, want, xid, &bits, &bits2, &others);
	if (others)
	{
		lockersXmax = HeapTupleHeaderGetRawXmax(oldtup.t_data);
		lockersMask = (oldtup.t_data->t_infomask & HEAP_XMAX_IS_MULTI) ?
			(HEAP_XMAX_IS_MULTI | HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK) :
			(HEAP_XMAX_LOCK_ONLY | HEAP_XMAX_KEYSHR_LOCK);
	}
	CheckForSerializableConflictIn(rel, otid, ItemPointerGetBlockNumber(otid));

	/*
	 * A HOT update: the new version goes on the same page as a heap-only
	 * tuple that the indexes reach through the old one, all while the page
	 * stays locked.  The new version is placed first: a crash before the old
	 * version points to it leaves an unreachable tuple of a transaction that
	 * never committed, which pruning removes.
	 */
	if (NvmCanHot(rel, hotattrs, &oldtup, newtup))
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(otid);
		OffsetNumber off;

		heaptup = NvmPrepareInsert(rel, newtup, xid, cid, 0, NULL);
		Assert(heaptup == newtup);
		heaptup->t_data->t_infomask |= HEAP_UPDATED;
		NvmCarryLockers(heaptup, lockersXmax, lockersMask);
		HeapTupleHeaderSetHeapOnly(heaptup->t_data);
		off = IplPlaceTupleOnPage(page, blkno, heaptup);
		if (off == InvalidOffsetNumber &&
			IplPrunePage(rel, dirIndex, blkno, false, InvalidTransactionId))
		{
			page = IplGetPage(dirIndex, blkno);
			NvmSetTuple(&oldtup, rel, page, blkno, ItemPointerGetOffsetNumber(otid));
			off = IplPlaceTupleOnPage(page, blkno, heaptup);
		}
		if (off != InvalidOffsetNumber)
		{
			NvmSetXmaxHeader(&hdr, &oldtup, xmax, cid, bits, bits2, true);
			hdr.t_ctid = heaptup->t_self;
			hdr.t_infomask2 |= HEAP_HOT_UPDATED;
			IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(otid), &hdr);
			LWLockRelease(lock);
			slot->tts_tid = heaptup->t_self;
			*update_indexes = false;
			if (shouldFree)
				pfree(newtup);
			bms_free(hotattrs);
			pgstat_count_heap_update(rel, true);
			PoolCountAdd(NVM_STAT_TUPLES_UPDATED, 1);
			PoolCountAdd(NVM_STAT_HOT_UPDATES, 1);
			return TM_Ok;
		}
		HeapTupleHeaderClearHeapOnly(heaptup->t_data);
	}

	NvmSetXmaxHeader(&hdr, &oldtup, xmax, cid, bits, bits2, true);
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(otid), &hdr);
	if (HeapTupleHasExternal(&oldtup))
		oldcopy = heap_copytuple(&oldtup);
	LWLockRelease(lock);

	/*
	 * Step 2: store the new version.  Until step 3 the old version says
	 * "updated by a transaction in progress" with ctid pointing to itself;
	 * anyone who wants to change it waits for us, and a crash leaves an
	 * update by a transaction that never committed.
	 */
	heaptup = NvmPrepareInsert(rel, newtup, xid, cid, 0, oldcopy);
	heaptup->t_data->t_infomask |= HEAP_UPDATED;
	NvmCarryLockers(heaptup, lockersXmax, lockersMask);
	IplPlaceTuple(rel, dirIndex, heaptup, false);
	if (heaptup != newtup)
	{
		newtup->t_self = heaptup->t_self;
		heap_freetuple(heaptup);
	}
	slot->tts_tid = newtup->t_self;
	ItemPointerCopy(&newtup->t_self, &newtup->t_data->t_ctid);

	/* step 3: link the old version to the new one */
	page = NvmLockPageOf(rel, dirIndex, otid, &oldtup, &lock);
	memcpy(&hdr, oldtup.t_data, sizeof(hdr));
	hdr.t_ctid = newtup->t_self;
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(otid), &hdr);
	LWLockRelease(lock);

	if (oldcopy)
		heap_freetuple(oldcopy);
	if (shouldFree)
		pfree(newtup);
	bms_free(hotattrs);
	pgstat_count_heap_update(rel, false);
	PoolCountAdd(NVM_STAT_TUPLES_UPDATED, 1);
	return TM_Ok;
}

/*
 * NvmJoinLock - add the current transaction's lock of strength want to
 * the holders of tup (a multixact when others hold it).  Caller holds the
 * page lock exclusively and made sure no running holder conflicts.
 */
static void
NvmJoinLock(Page page, HeapTuple tup, MultiXactStatus want, CommandId cid)
{
	HeapTupleHeaderData hdr;
	uint16		bits;
	uint16		bits2;
	bool		others;
	TransactionId xmax;

	xmax = NvmNewXmax(tup->t_data, want, GetCurrentTransactionId(),
					  &bits, &bits2, &others);
	NvmSetXmaxHeader(&hdr, tup, xmax, cid, bits, bits2, false);
	/* with an updater among the holders, keep its link to the new version */
	if (!(bits & HEAP_XMAX_LOCK_ONLY))
	{
		hdr.t_ctid = tup->t_data->t_ctid;
		hdr.t_infomask2 |= tup->t_data->t_infomask2 & HEAP_HOT_UPDATED;
	}
	IplWriteTupleHeader(page, ItemPointerGetOffsetNumber(&tup->t_self), &hdr);
}

/*
 * NvmLockUpdateChain - lock, in mode want, the versions that follow a row
 * version whose running update (by priorXmax) our lock was compatible
 * with, like heap_lock_updated_tuple: whichever version the updaters leave
 * behind carries our lock.  Waits for running holders that conflict.
 * Versions whose updater committed are passed over (they cannot be changed
 * any more); the chain ends at a version nobody updated, at a version
 * whose inserter aborted, or where it was pruned away.  No page lock held
 * on entry.
 */
static void
NvmLockUpdateChain(Relation rel, int dirIndex, ItemPointerData ctid,
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
		if (ItemPointerGetBlockNumber(&ctid) >= PoolRelNBlocks(dirIndex))
			return;
		page = NvmLockPageOfExt(rel, dirIndex, &ctid, &tup, &lock, true);
		if (page == NULL)
			return;
		if (!TransactionIdEquals(priorXmax, HeapTupleHeaderGetRawXmin(tup.t_data)) ||
			TransactionIdDidAbort(priorXmax))
		{
			LWLockRelease(lock);
			return;
		}
		xwait = NvmConflictingHolder(tup.t_data, want);
		if (!TransactionIdIsValid(xwait))
			xwait = NvmUnlinkedUpdater(&tup);
		if (TransactionIdIsValid(xwait))
		{
			LWLockRelease(lock);
			XactLockTableWait(xwait, rel, &ctid, XLTW_LockUpdated);
			continue;			/* look at the same version again */
		}
		updater = NvmTupleUpdater(tup.t_data);
		next = tup.t_data->t_ctid;
		if (TransactionIdIsValid(updater) &&
			TransactionIdIsCurrentTransactionId(updater))
		{
			/* we updated this version ourselves: nothing to lock beyond */
			LWLockRelease(lock);
			return;
		}
		if (TransactionIdIsValid(updater) && TransactionIdDidCommit(updater))
		{
			/* a committed update: only its newer version matters */
		}
		else if (!NvmHoldsAtLeast(tup.t_data, want))
			NvmJoinLock(page, &tup, want, GetCurrentCommandId(false));
		LWLockRelease(lock);
		if (!TransactionIdIsValid(updater) || ItemPointerEquals(&next, &ctid))
			return;
		priorXmax = updater;
		ctid = next;
	}
}

/*
 * nvm_tuple_lock - lock a row in mode: the locker's xid in xmax with
 * HEAP_XMAX_LOCK_ONLY and its strength, or a multixact when other
 * transactions hold compatible locks.  A conflicting holder is waited for
 * (or NOWAIT / SKIP LOCKED).
 */
static TM_Result
nvm_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
			   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
			   LockWaitPolicy wait_policy, uint8 flags,
			   TM_FailureData *tmfd)
{
	int			dirIndex = NvmRelDirIndex(rel);
	ItemPointerData ctid = *tid;
	TransactionId priorXmax = InvalidTransactionId;

	NvmBeforeWrite();
	tmfd->traversed = false;
	for (;;)
	{
		HeapTupleData tup;
		LWLock	   *lock;
		Page		page;
		TM_Result	result;
		bool		relocked;
		MultiXactStatus want = NvmLockStatus(mode);

		if (ItemPointerGetBlockNumber(&ctid) >= PoolRelNBlocks(dirIndex))
			return TM_Deleted;
		/* a later version may have been pruned away: the row is gone */
		page = NvmLockPageOfExt(rel, dirIndex, &ctid, &tup, &lock,
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
		do
		{
			/* the page may have moved to a new frame while we waited */
			page = IplGetPage(dirIndex, ItemPointerGetBlockNumber(&ctid));
			NvmSetTuple(&tup, rel, page, ItemPointerGetBlockNumber(&ctid),
						ItemPointerGetOffsetNumber(&ctid));
			result = NvmCheckModify(rel, &tup, cid, InvalidSnapshot, want,
									wait_policy, lock, tmfd, &relocked);
		} while (relocked);

		if (result == TM_Updated &&
			(flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION) &&
			!HeapTupleHeaderIndicatesMovedPartitions(tup.t_data))
		{
			priorXmax = HeapTupleHeaderGetUpdateXid(tup.t_data);
			ctid = tup.t_data->t_ctid;
			LWLockRelease(lock);
			/* the caller goes on with the newest version: tell it where */
			*tid = ctid;
			tmfd->traversed = true;
			continue;
		}
		if (result != TM_Ok)
		{
			LWLockRelease(lock);
			return result;
		}

		/*
		 * Join the running holders whose locks are compatible with ours (a
		 * multixact when there are any).  As in heap, the lock belongs to the
		 * current subtransaction, and a lock held from before a savepoint
		 * stays a member; nothing is written when we hold a lock at least as
		 * strong already.
		 */
		if (!NvmHoldsAtLeast(tup.t_data, want))
		{
			ItemPointerData next = tup.t_data->t_ctid;
			TransactionId updater = NvmTupleUpdater(tup.t_data);

			NvmJoinLock(page, &tup, want, cid);
			ExecStoreHeapTuple(heap_copytuple(&tup), slot, true);
			LWLockRelease(lock);
			/* a running, compatible update: lock its new versions too */
			if (TransactionIdIsValid(updater) && !ItemPointerEquals(&next, &ctid))
				NvmLockUpdateChain(rel, dirIndex, next, updater, want);
			return TM_Ok;
		}
		ExecStoreHeapTuple(heap_copytuple(&tup), slot, true);
		LWLockRelease(lock);
		return TM_Ok;
	}
}

static void
nvm_finish_bulk_insert(Relation rel, int options)
{
	/* every insert is durable already */
}

/* ------------------------------------------------------------------------
 * DDL related callbacks for nvm_am.
 * ------------------------------------------------------------------------
 */

static void
nvm_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode,
							  char persistence, TransactionId *freezeXid,
							  MultiXactId *minmulti)
{
	SMgrRelation srel;

	NvmEnsureReady();
	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();

	/*
	 * An empty main-fork file keeps PostgreSQL's own relation-file code
	 * (prefetch during ANALYZE and bitmap scans) working; the pages live in
	 * the pool.  PostgreSQL's pending deletes remove the file.
	 */
	srel = RelationCreateStorage(*newrnode, persistence, true);
	smgrclose(srel);

	if (!RelFileNodeEquals(rel->rd_node, *newrnode) &&
		OidIsValid(rel->rd_node.relNode))
		NvmStorageScheduleDrop(&rel->rd_node);
	NvmStorageCreate(newrnode);
}

static void
nvm_relation_nontransactional_truncate(Relation rel)
{
	PoolRelTruncate(NvmRelDirIndex(rel));
	/* the file's size follows the table's (and its free space map goes) */
	RelationTruncate(rel, 0);
}

static void
nvm_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	int			src = NvmRelDirIndex(rel);
	int			dst;
	SMgrRelation srel;

	srel = RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	NvmStorageCreate(newrnode);
	dst = PoolRelLookup(newrnode);
	IplCopyRelation(src, dst, srel);
	smgrclose(srel);
	NvmStorageScheduleDrop(&rel->rd_node);
	RelationDropStorage(rel);
}

static void
nvm_relation_copy_for_cluster(Relation OldTable, Relation NewTable,
							  Relation OldIndex, bool use_sort,
							  TransactionId OldestXmin,
							  TransactionId *xid_cutoff,
							  MultiXactId *multi_cutoff,
							  double *num_tuples,
							  double *tups_vacuumed,
							  double *tups_recently_dead)
{
	int			newIndex = NvmRelDirIndex(NewTable);
	TupleTableSlot *slot = table_slot_create(OldTable, NULL);
	TableScanDesc tscan = NULL;
	IndexScanDesc iscan = NULL;
	TransactionId cutoff = *xid_cutoff;

	*num_tuples = *tups_vacuumed = *tups_recently_dead = 0;
	NvmBeforeWrite();

	/* ordering by the index: the index order is the result either way */
	if (OldIndex != NULL)
	{
		iscan = index_beginscan(OldTable, OldIndex, SnapshotAny, 0, 0);
		index_rescan(iscan, NULL, 0, NULL, 0);
	}
	else
		tscan = table_beginscan(OldTable, SnapshotAny, 0, NULL);

	for (;;)
	{
		HeapTuple	tup;
		HeapTuple	copy;
		HeapTuple	stored;
		bool		shouldFree;

		CHECK_FOR_INTERRUPTS();
		if (iscan != NULL ? !index_getnext_slot(iscan, ForwardScanDirection, slot)
			: !table_scan_getnextslot(tscan, ForwardScanDirection, slot))
			break;
		tup = ExecFetchSlotHeapTuple(slot, false, &shouldFree);
		switch (NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL))
		{
			case HEAPTUPLE_DEAD:
				*tups_vacuumed += 1;
				continue;
			case HEAPTUPLE_RECENTLY_DEAD:
				*tups_recently_dead += 1;
				break;
			default:
				*num_tuples += 1;
				break;
		}
		copy = heap_copytuple(tup);

		/* freeze what precedes the cutoff, so relfrozenxid may be cutoff */
		if (TransactionIdIsNormal(HeapTupleHeaderGetRawXmin(copy->t_data)) &&
			TransactionIdPrecedes(HeapTupleHeaderGetRawXmin(copy->t_data), cutoff) &&
			NvmXidCommitted(HeapTupleHeaderGetRawXmin(copy->t_data)))
			HeapTupleHeaderSetXminFrozen(copy->t_data);
		if (!(copy->t_data->t_infomask & HEAP_XMAX_INVALID) &&
			(copy->t_data->t_infomask & HEAP_XMAX_IS_MULTI) &&
			!HEAP_XMAX_IS_LOCKED_ONLY(copy->t_data->t_infomask))
		{
			/* the copy keeps the updater of a multixact, not its lockers */
			TransactionId upd = HeapTupleGetUpdateXid(copy->t_data);

			copy->t_data->t_infomask &= ~HEAP_XMAX_BITS;
			HeapTupleHeaderSetXmax(copy->t_data, upd);
			if (!TransactionIdIsValid(upd))
				copy->t_data->t_infomask |= HEAP_XMAX_INVALID;
		}
		if (!(copy->t_data->t_infomask & HEAP_XMAX_INVALID) &&
			(HEAP_XMAX_IS_LOCKED_ONLY(copy->t_data->t_infomask) ||
			 (!TransactionIdIsInProgress(HeapTupleHeaderGetRawXmax(copy->t_data)) &&
			  !NvmXidCommitted(HeapTupleHeaderGetRawXmax(copy->t_data)))))
		{
			copy->t_data->t_infomask &= ~HEAP_XMAX_BITS;
			copy->t_data->t_infomask |= HEAP_XMAX_INVALID;
			HeapTupleHeaderSetXmax(copy->t_data, InvalidTransactionId);
		}
		/* chains do not survive the copy: every version gets index entries */
		HeapTupleHeaderClearHotUpdated(copy->t_data);
		HeapTupleHeaderClearHeapOnly(copy->t_data);
		copy->t_tableOid = RelationGetRelid(NewTable);
		stored = copy;
		if (HeapTupleHasExternal(copy) || copy->t_len > TOAST_TUPLE_THRESHOLD)
			stored = heap_toast_insert_or_update(NewTable, copy, NULL,
												 HEAP_INSERT_NO_LOGICAL);
		IplPlaceTuple(NewTable, newIndex, stored, false);
		if (stored != copy)
			heap_freetuple(stored);
		heap_freetuple(copy);
	}
	if (iscan)
		index_endscan(iscan);
	if (tscan)
		table_endscan(tscan);
	ExecDropSingleTupleTableSlot(slot);
}

/* the dead TIDs one VACUUM collects, in TID order */
typedef struct NvmDeadTids
{
	ItemPointerData *tids;
	int64		n;
	int64		max;
} NvmDeadTids;

static void
NvmDeadTidsAdd(NvmDeadTids *d, BlockNumber blkno, OffsetNumber off)
{
	if (d->n >= d->max)
	{
		d->max = Max(1024, d->max * 2);
		d->tids = d->tids ?
			repalloc_huge(d->tids, d->max * sizeof(ItemPointerData)) :
			palloc_extended(d->max * sizeof(ItemPointerData), MCXT_ALLOC_HUGE);
	}
	/* ItemPointerSet is a macro that evaluates its pointer more than once */
	ItemPointerSet(&d->tids[d->n], blkno, off);
	d->n++;
}

static int
NvmTidCmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

/* index_bulk_delete callback: is the entry's TID one of the dead ones? */
static bool
NvmTidReaped(ItemPointer itemptr, void *state)
{
	NvmDeadTids *d = (NvmDeadTids *) state;

	return bsearch(itemptr, d->tids, d->n, sizeof(ItemPointerData), NvmTidCmp) != NULL;
}

/*
 * NvmVacuumPage - prune one page, collect its dead line pointers, count
 * and freeze its tuples.  *frozenXid is lowered to the oldest xid left
 * unfrozen.
 *
 * Pruning uses VACUUM's OldestXmin, the horizon the freeze limit comes
 * from, so that every version OldestXmin calls dead is gone before anything
 * is frozen.  Should one stay (the pool had no frame for the pruned page),
 * nothing on the page is frozen: freezing the successor of a version that
 * is still on the page would let pruning see two chains where there is one
 * (heap's lazy_scan_prune prunes again for the same reason).
 */
static void
NvmVacuumPage(Relation rel, int dirIndex, BlockNumber blkno,
			  TransactionId OldestXmin, TransactionId FreezeLimit,
			  NvmDeadTids *dead, double *live, double *deadrows,
			  TransactionId *frozenXid)
{
	LWLock	   *lock = PoolPageLock(dirIndex, blkno);
	Page		page;
	OffsetNumber maxoff;
	bool		mayFreeze = true;
	HTSV_Result status[MaxHeapTuplesPerPage + 1];

	LWLockAcquire(lock, LW_EXCLUSIVE);
	(void) IplPrunePage(rel, dirIndex, blkno, true, OldestXmin);
	page = IplGetPage(dirIndex, blkno);
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;

		if (ItemIdIsDead(lp))
		{
			NvmDeadTidsAdd(dead, blkno, off);
			continue;
		}
		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);
		status[off] = NvmTupleSatisfiesVacuum(&tup, OldestXmin, NULL);
		switch (status[off])
		{
			case HEAPTUPLE_DEAD:
				mayFreeze = false;
				*deadrows += 1;
				break;
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			default:
				*live += 1;
				break;
		}
	}
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		HeapTupleData tup;
		HeapTupleHeader t;
		TransactionId xmin;
		TransactionId xmax;
		bool		change = false;
		HeapTupleHeaderData hdr;

		if (!ItemIdIsNormal(lp))
			continue;
		NvmSetTuple(&tup, rel, page, blkno, off);

		/* freeze what is older than the freeze limit */
		t = tup.t_data;
		memcpy(&hdr, t, sizeof(hdr));
		xmin = HeapTupleHeaderGetRawXmin(t);
		if (mayFreeze && !HeapTupleHeaderXminFrozen(t) && TransactionIdIsNormal(xmin) &&
			(t->t_infomask & HEAP_XMIN_COMMITTED) &&
			TransactionIdPrecedes(xmin, FreezeLimit))
		{
			HeapTupleHeaderSetXminFrozen(&hdr);
			change = true;
		}
		xmax = HeapTupleHeaderGetRawXmax(t);
		if (!(t->t_infomask & HEAP_XMAX_INVALID) && (t->t_infomask & HEAP_XMAX_IS_MULTI))
		{
			/* a finished multixact becomes its updater, or nothing */
			if (!MultiXactIdIsRunning(xmax, HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask)))
			{
				TransactionId upd = HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask) ?
					InvalidTransactionId : HeapTupleGetUpdateXid(t);

				hdr.t_infomask &= ~HEAP_XMAX_BITS;
				if (TransactionIdIsValid(upd) && NvmXidCommitted(upd))
					HeapTupleHeaderSetXmax(&hdr, upd);
				else
				{
					hdr.t_infomask |= HEAP_XMAX_INVALID;
					hdr.t_infomask2 &= ~(HEAP_HOT_UPDATED | HEAP_KEYS_UPDATED);
					HeapTupleHeaderSetXmax(&hdr, InvalidTransactionId);
				}
				change = true;
			}
		}
		else if (!(t->t_infomask & HEAP_XMAX_INVALID) && TransactionIdIsNormal(xmax) &&
				 TransactionIdPrecedes(xmax, OldestXmin) &&
				 (HEAP_XMAX_IS_LOCKED_ONLY(t->t_infomask) || !NvmXidCommitted(xmax)))
		{
			/* a finished locker or an aborted deleter: forget it */
			hdr.t_infomask &= ~HEAP_XMAX_BITS;
			hdr.t_infomask |= HEAP_XMAX_INVALID;
			hdr.t_infomask2 &= ~(HEAP_HOT_UPDATED | HEAP_KEYS_UPDATED);
			HeapTupleHeaderSetXmax(&hdr, InvalidTransactionId);
			change = true;
		}
		if (change)
			IplWriteTupleHeader(page, off, &hdr);

		/* what the new relfrozenxid must not pass */
		if (!HeapTupleHeaderXminFrozen(&hdr) && TransactionIdIsNormal(xmin) &&
			TransactionIdPrecedes(xmin, *frozenXid))
			*frozenXid = xmin;
		xmax = HeapTupleHeaderGetRawXmax(&hdr);
		if (!(hdr.t_infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI)) &&
			TransactionIdIsNormal(xmax) && TransactionIdPrecedes(xmax, *frozenXid))
			*frozenXid = xmax;
	}
	LWLockRelease(lock);
}

/*
 * NvmFreeDeadTids - free the dead line pointers collected by VACUUM; their
 * index entries are gone.
 */
static void
NvmFreeDeadTids(int dirIndex, NvmDeadTids *dead)
{
	int64		i = 0;

	while (i < dead->n)
	{
		BlockNumber blkno = ItemPointerGetBlockNumber(&dead->tids[i]);
		OffsetNumber offs[MaxHeapTuplesPerPage];
		int			n = 0;
		LWLock	   *lock = PoolPageLock(dirIndex, blkno);

		while (i < dead->n && ItemPointerGetBlockNumber(&dead->tids[i]) == blkno &&
			   n < MaxHeapTuplesPerPage)
		{
			/* (the ItemPointer macros evaluate their argument twice) */
			offs[n++] = ItemPointerGetOffsetNumber(&dead->tids[i]);
			i++;
		}
		LWLockAcquire(lock, LW_EXCLUSIVE);
		IplSetUnused(IplGetPage(dirIndex, blkno), offs, n);
		LWLockRelease(lock);
	}
}

static void
NvmIndexVacuumInfo(IndexVacuumInfo *ivinfo, Relation index, double live,
				   BufferAccessStrategy bstrategy)
{
	ivinfo->index = index;
	ivinfo->analyze_only = false;
	ivinfo->report_progress = false;
	ivinfo->estimated_count = false;
	ivinfo->message_level = DEBUG2;
	ivinfo->num_heap_tuples = live;
	ivinfo->strategy = bstrategy;
}

/*
 * NvmVacuumIndexPass - remove the index entries of the dead TIDs collected
 * so far, then free their line pointers.
 */
static void
NvmVacuumIndexPass(Relation rel, int dirIndex, Relation *Irel, int nindexes,
				   IndexBulkDeleteResult **istats, double live,
				   BufferAccessStrategy bstrategy, NvmDeadTids *dead)
{
	for (int i = 0; i < nindexes; i++)
	{
		IndexVacuumInfo ivinfo;

		NvmIndexVacuumInfo(&ivinfo, Irel[i], live, bstrategy);
		istats[i] = index_bulk_delete(&ivinfo, istats[i], NvmTidReaped, dead);
	}

	/*
	 * The index deletions are in WAL, the line pointers in the pool: make the
	 * former durable before a line pointer can be reused, or a crash could
	 * bring back index entries pointing to someone else's row.
	 * (XactLastRecEnd is the end of the last WAL record this backend wrote:
	 * the index deletions.)
	 */
	XLogFlush(XactLastRecEnd);
	NvmFreeDeadTids(dirIndex, dead);
	dead->n = 0;
}

/*
 * nvm_relation_vacuum - lazy VACUUM: prune every page, remove the index
 * entries of dead line pointers and then free the line pointers, freeze
 * old tuples, and advance relfrozenxid to the oldest xid left.
 */
static void
nvm_relation_vacuum(Relation rel, struct VacuumParams *params,
					BufferAccessStrategy bstrategy)
{
	int			dirIndex = NvmRelDirIndex(rel);
	BlockNumber nblocks = PoolRelNBlocks(dirIndex);
	TransactionId OldestXmin;
	TransactionId FreezeLimit;
	MultiXactId OldestMxact;
	MultiXactId MultiXactCutoff;
	TransactionId frozenXid;
	NvmDeadTids dead = {0};
	double		live = 0;
	double		deadrows = 0;
	Relation   *Irel = NULL;
	int			nindexes = 0;
	IndexBulkDeleteResult **istats;
	int64		maxDead = Max((int64) maintenance_work_mem * 1024 / (int64) sizeof(ItemPointerData),
							  MaxHeapTuplesPerPage);

	vacuum_set_xid_limits(rel, params->freeze_min_age, params->freeze_table_age,
						  params->multixact_freeze_min_age,
						  params->multixact_freeze_table_age,
						  &OldestXmin, &OldestMxact, &FreezeLimit, &MultiXactCutoff);
	frozenXid = OldestXmin;
	vac_open_indexes(rel, RowExclusiveLock, &nindexes, &Irel);
	istats = palloc0(Max(nindexes, 1) * sizeof(IndexBulkDeleteResult *));

	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		CHECK_FOR_INTERRUPTS();
		vacuum_delay_point();
		NvmVacuumPage(rel, dirIndex, blkno, OldestXmin, FreezeLimit,
					  &dead, &live, &deadrows, &frozenXid);
		/* dead TIDs are kept within maintenance_work_mem: pass over now */
		if (dead.n >= maxDead)
			NvmVacuumIndexPass(rel, dirIndex, Irel, nindexes, istats, live,
							   bstrategy, &dead);
	}
	if (dead.n > 0)
		NvmVacuumIndexPass(rel, dirIndex, Irel, nindexes, istats, live,
						   bstrategy, &dead);
	if (dead.tids)
		pfree(dead.tids);

	for (int i = 0; i < nindexes; i++)
	{
		IndexVacuumInfo ivinfo;

		NvmIndexVacuumInfo(&ivinfo, Irel[i], live, bstrategy);
		istats[i] = index_vacuum_cleanup(&ivinfo, istats[i]);
		if (istats[i] && !istats[i]->estimated_count)
			vac_update_relstats(Irel[i], istats[i]->num_pages, istats[i]->num_index_tuples,
								0, false, InvalidTransactionId, InvalidMultiXactId,
								NULL, NULL, false);
		if (istats[i])
			pfree(istats[i]);
	}
	vac_close_indexes(nindexes, Irel, NoLock);
	pfree(istats);

	/* tell inserts where the reclaimed space is */
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = PoolPageLock(dirIndex, blkno);
		Size		avail;

		LWLockAcquire(lock, LW_SHARED);
		avail = PageGetHeapFreeSpace(IplGetPage(dirIndex, blkno));
		LWLockRelease(lock);
		RecordPageWithFreeSpace(rel, blkno, avail);
	}
	FreeSpaceMapVacuum(rel);

	vac_update_relstats(rel, nblocks, live, 0, nindexes > 0,
						frozenXid, OldestMxact, NULL, NULL, false);
	pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
						 (PgStat_Counter) live, (PgStat_Counter) deadrows);
}

static bool
nvm_scan_analyze_next_block(TableScanDesc sscan, BlockNumber blockno,
							BufferAccessStrategy bstrategy)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (blockno >= PoolRelNBlocks(scan->dirIndex))
		return false;
	scan->cblock = blockno;
	scan->next_offset = FirstOffsetNumber;
	return true;
}

static bool
nvm_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							double *liverows, double *deadrows,
							TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	LWLock	   *lock = PoolPageLock(scan->dirIndex, scan->cblock);
	Page		page;
	OffsetNumber maxoff;

	LWLockAcquire(lock, LW_SHARED);
	page = IplHoldPage(scan->dirIndex, scan->cblock, &scan->cframe, scan->copybuf);
	maxoff = PageGetMaxOffsetNumber(page);
	for (; scan->next_offset <= maxoff; scan->next_offset++)
	{
		HeapTuple	tup = &scan->tuple;
		bool		sample = false;

		if (!ItemIdIsNormal(PageGetItemId(page, scan->next_offset)))
			continue;
		NvmSetTuple(tup, sscan->rs_rd, page, scan->cblock, scan->next_offset);
		switch (NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL))
		{
			case HEAPTUPLE_LIVE:
				sample = true;
				*liverows += 1;
				break;
			case HEAPTUPLE_DEAD:
			case HEAPTUPLE_RECENTLY_DEAD:
				*deadrows += 1;
				break;
			case HEAPTUPLE_INSERT_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetRawXmin(tup->t_data)))
				{
					sample = true;
					*liverows += 1;
				}
				break;
			case HEAPTUPLE_DELETE_IN_PROGRESS:
				if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetRawXmax(tup->t_data)))
					*deadrows += 1;
				else
				{
					sample = true;
					*liverows += 1;
				}
				break;
		}
		if (sample)
		{
			scan->next_offset++;
			LWLockRelease(lock);
			ExecStoreHeapTuple(tup, slot, false);
			return true;
		}
	}
	LWLockRelease(lock);
	ExecClearTuple(slot);
	return false;
}

/*
 * NvmRootTid - the TID an index entry for tup must have: tup's own, or for
 * a heap-only tuple that of the root of its HOT chain.  The root offsets of
 * the scan's current page are computed once per page into roots[].
 */
static void
NvmRootTid(TableScanDesc sscan, HeapTuple tup, OffsetNumber *roots,
		   BlockNumber *rootsBlock, ItemPointer result)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber blkno = ItemPointerGetBlockNumber(&tup->t_self);
	OffsetNumber off = ItemPointerGetOffsetNumber(&tup->t_self);

	*result = tup->t_self;
	if (!HeapTupleIsHeapOnly(tup))
		return;
	if (*rootsBlock != blkno)
	{
		LWLock	   *lock = PoolPageLock(scan->dirIndex, blkno);

		Assert(scan->cblock == blkno);
		LWLockAcquire(lock, LW_SHARED);
		IplGetRootTuples(scan->cpage, blkno, roots);
		LWLockRelease(lock);
		*rootsBlock = blkno;
	}
	if (!OffsetNumberIsValid(roots[off - 1]))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg_internal("failed to find parent tuple for heap-only tuple at (%u,%u) in table \"%s\"",
								 blkno, off, RelationGetRelationName(sscan->rs_rd))));
	ItemPointerSetOffsetNumber(result, roots[off - 1]);
}

static double
nvm_index_build_range_scan(Relation heapRelation, Relation indexRelation,
						   IndexInfo *indexInfo, bool allow_sync,
						   bool anyvisible, bool progress,
						   BlockNumber start_blockno, BlockNumber numblocks,
						   IndexBuildCallback callback, void *callback_state,
						   TableScanDesc scan)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	double		reltuples = 0;
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = table_slot_create(heapRelation, NULL);
	ExprState  *predicate;
	Snapshot	snapshot;
	bool		need_unregister = false;
	TransactionId OldestXmin = InvalidTransactionId;
	OffsetNumber roots[MaxHeapTuplesPerPage];
	BlockNumber rootsBlock = InvalidBlockNumber;
	int			buildDirIndex = NvmRelDirIndex(heapRelation);

	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);

	if (scan == NULL)
	{
		if (IsBootstrapProcessingMode() || indexInfo->ii_Concurrent)
		{
			snapshot = RegisterSnapshot(GetTransactionSnapshot());
			need_unregister = true;
		}
		else
			snapshot = SnapshotAny;
		scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL,
									 true, allow_sync);
	}
	else
		snapshot = scan->rs_snapshot;
	if (snapshot == SnapshotAny)
		OldestXmin = GetOldestNonRemovableTransactionId(heapRelation);

	if (start_blockno != 0 || numblocks != InvalidBlockNumber)
	{
		NvmScanDesc nscan = (NvmScanDesc) scan;

		nscan->startblock = Min(start_blockno, nscan->nblocks);
		nscan->endblock = numblocks == InvalidBlockNumber ? nscan->nblocks :
			Min((uint64) start_blockno + numblocks, nscan->nblocks);
	}
	if (progress)
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL,
									 ((NvmScanDesc) scan)->nblocks);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		HeapTuple	tup = ExecFetchSlotHeapTuple(slot, false, NULL);
		bool		indexIt = true;
		bool		alive = true;
		ItemPointerData rootTid;

		CHECK_FOR_INTERRUPTS();
		if (snapshot == SnapshotAny)
		{
			for (;;)
			{
				TransactionId xwait = InvalidTransactionId;
				LWLock	   *lock = PoolPageLock(buildDirIndex,
												ItemPointerGetBlockNumber(&tup->t_self));
				HTSV_Result r;

				/* a row locker may change the header meanwhile */
				LWLockAcquire(lock, LW_SHARED);
				r = NvmTupleSatisfiesVacuum(tup, OldestXmin, NULL);
				LWLockRelease(lock);

				switch (r)
				{
					case HEAPTUPLE_DEAD:
						indexIt = false;
						break;
					case HEAPTUPLE_LIVE:
						break;
					case HEAPTUPLE_RECENTLY_DEAD:
						alive = false;

						/*
						 * Only the end of a HOT chain gets an entry; snapshots
						 * older than the index may miss this version, so the
						 * index is marked unsafe for them, as heap does.
						 */
						if (HeapTupleIsHotUpdated(tup))
						{
							indexIt = false;
							indexInfo->ii_BrokenHotChain = true;
						}
						break;
					case HEAPTUPLE_INSERT_IN_PROGRESS:
						xwait = HeapTupleHeaderGetRawXmin(tup->t_data);
						if (anyvisible || TransactionIdIsCurrentTransactionId(xwait))
							xwait = InvalidTransactionId;
						break;
					case HEAPTUPLE_DELETE_IN_PROGRESS:
						xwait = HeapTupleHeaderGetRawXmax(tup->t_data);
						if (anyvisible)
							xwait = InvalidTransactionId;
						else if (TransactionIdIsCurrentTransactionId(xwait))
						{
							alive = false;
							xwait = InvalidTransactionId;
							if (HeapTupleIsHotUpdated(tup))
							{
								indexIt = false;
								indexInfo->ii_BrokenHotChain = true;
							}
						}
						break;
				}
				if (!TransactionIdIsValid(xwait))
					break;
				XactLockTableWait(xwait, heapRelation, &tup->t_self,
								  XLTW_InsertIndexUnique);
				indexIt = true;
				alive = true;
			}
		}
		if (!indexIt)
			continue;
		if (alive)
			reltuples += 1;

		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(indexInfo, slot, estate, values, isnull);
		NvmRootTid(scan, tup, roots, &rootsBlock, &rootTid);
		callback(indexRelation, &rootTid, values, isnull, alive,
				 callback_state);
	}

	table_endscan(scan);
	if (need_unregister)
		UnregisterSnapshot(snapshot);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
	return reltuples;
}

/*
 * nvm_index_validate_scan - second pass of CREATE INDEX CONCURRENTLY:
 * insert every tuple visible to the snapshot whose TID is not in the index
 * yet (state->tuplesort holds those TIDs, sorted).
 */
static void
nvm_index_validate_scan(Relation heapRelation, Relation indexRelation,
						IndexInfo *indexInfo, Snapshot snapshot,
						ValidateIndexState *state)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	EState	   *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = table_slot_create(heapRelation, NULL);
	ExprState  *predicate;
	TableScanDesc scan;
	ItemPointerData indexcursor;
	bool		tuplesort_empty = false;
	bool		have_cursor = false;
	OffsetNumber roots[MaxHeapTuplesPerPage];
	BlockNumber rootsBlock = InvalidBlockNumber;
	bool		inIndex[MaxHeapTuplesPerPage];
	BlockNumber inIndexBlock = InvalidBlockNumber;

	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(indexInfo->ii_Predicate, estate);
	scan = table_beginscan_strat(heapRelation, snapshot, 0, NULL, true, false);
	ItemPointerSetInvalid(&indexcursor);

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		ItemPointerData rootTid;
		ItemPointer tid = &rootTid;

		NvmRootTid(scan, ExecFetchSlotHeapTuple(slot, false, NULL), roots,
				   &rootsBlock, &rootTid);

		CHECK_FOR_INTERRUPTS();
		if (ItemPointerGetBlockNumber(tid) != inIndexBlock)
		{
			memset(inIndex, 0, sizeof(inIndex));
			inIndexBlock = ItemPointerGetBlockNumber(tid);
			if (have_cursor && ItemPointerGetBlockNumber(&indexcursor) == inIndexBlock)
				inIndex[ItemPointerGetOffsetNumber(&indexcursor) - 1] = true;
		}

		/*
		 * Advance the sorted index TIDs up to this tuple's root, noting the
		 * entries of this block: root TIDs of heap-only tuples do not come
		 * in order.
		 */
		while (!tuplesort_empty &&
			   (!have_cursor || ItemPointerCompare(&indexcursor, tid) < 0))
		{
			Datum		ts_val;
			bool		ts_isnull;

			if (tuplesort_getdatum(state->tuplesort, true, &ts_val, &ts_isnull, NULL))
			{
				itemptr_decode(&indexcursor, DatumGetInt64(ts_val));
				have_cursor = true;
				if (ItemPointerGetBlockNumber(&indexcursor) == inIndexBlock)
					inIndex[ItemPointerGetOffsetNumber(&indexcursor) - 1] = true;
			}
			else
			{
				tuplesort_empty = true;
				have_cursor = false;
			}
		}
		if ((have_cursor && ItemPointerEquals(&indexcursor, tid)) ||
			inIndex[ItemPointerGetOffsetNumber(tid) - 1])
			continue;

		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(indexInfo, slot, estate, values, isnull);
		index_insert(indexRelation, values, isnull, tid, heapRelation,
					 indexInfo->ii_Unique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, indexInfo);
		state->tups_inserted += 1;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	indexInfo->ii_ExpressionsState = NIL;
	indexInfo->ii_PredicateState = NULL;
}

/* ------------------------------------------------------------------------
 * Miscellaneous callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

static uint64
nvm_relation_size(Relation rel, ForkNumber forkNumber)
{
	if (forkNumber != MAIN_FORKNUM && forkNumber != InvalidForkNumber)
		return 0;
	return (uint64) PoolRelNBlocks(NvmRelDirIndex(rel)) * BLCKSZ;
}

static bool
nvm_relation_needs_toast_table(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int32		tuple_length = 0;
	bool		maxlength_unknown = false;
	bool		has_toastable = false;

	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		tuple_length = att_align_nominal(tuple_length, att->attalign);
		if (att->attlen > 0)
			tuple_length += att->attlen;
		else
		{
			int32		maxlen = type_maximum_size(att->atttypid, att->atttypmod);

			if (maxlen < 0)
				maxlength_unknown = true;
			else
				tuple_length += maxlen;
			if (att->attstorage != TYPSTORAGE_PLAIN)
				has_toastable = true;
		}
	}
	if (!has_toastable)
		return false;
	if (maxlength_unknown)
		return true;
	tuple_length = MAXALIGN(SizeofHeapTupleHeader + BITMAPLEN(desc->natts)) +
		MAXALIGN(tuple_length);
	return (Size) tuple_length > TOAST_TUPLE_THRESHOLD;
}

static Oid
nvm_relation_toast_am(Relation rel)
{
	return HEAP_TABLE_AM_OID;
}

/* ------------------------------------------------------------------------
 * Planner related callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

static void
nvm_estimate_rel_size(Relation rel, int32 *attr_widths, BlockNumber *pages,
					  double *tuples, double *allvisfrac)
{
	table_block_relation_estimate_size(rel, attr_widths, pages, tuples,
									   allvisfrac,
									   NVM_OVERHEAD_BYTES_PER_TUPLE,
									   NVM_USABLE_BYTES_PER_PAGE);
	*allvisfrac = 0;
}

/* ------------------------------------------------------------------------
 * Executor related callbacks for nvm_am
 * ------------------------------------------------------------------------
 */

/*
 * NvmBitmapVisible - does the bitmap scan's snapshot see tup?  Takes the
 * predicate lock and checks for rw-conflicts like any read.
 */
static bool
NvmBitmapVisible(TableScanDesc sscan, HeapTuple tup)
{
	bool		visible = NvmTupleSatisfies(tup, sscan->rs_snapshot);

	NvmCheckConflictOut(visible, sscan->rs_rd, tup, sscan->rs_snapshot);
	if (visible)
		PredicateLockTID(sscan->rs_rd, &tup->t_self, sscan->rs_snapshot,
						 HeapTupleHeaderGetXmin(tup->t_data));
	return visible;
}

static bool
nvm_scan_bitmap_next_block(TableScanDesc sscan, TBMIterateResult *tbmres)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	BlockNumber blkno = tbmres->blockno;
	Page		page;
	LWLock	   *lock;
	int			n = 0;

	scan->ntuples = 0;
	scan->cindex = 0;
	if (blkno >= PoolRelNBlocks(scan->dirIndex))
		return false;
	lock = PoolPageLock(scan->dirIndex, blkno);
	LWLockAcquire(lock, LW_SHARED);
	page = IplHoldPage(scan->dirIndex, blkno, &scan->cframe, scan->copybuf);
	scan->cpage = page;
	{
		OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
		bool		exact = tbmres->ntuples >= 0;
		int			count = exact ? tbmres->ntuples : maxoff;

		for (int i = 0; i < count; i++)
		{
			OffsetNumber off = exact ? tbmres->offsets[i] : i + 1;
			TransactionId priorXmax = InvalidTransactionId;
			bool		atRoot = true;
			HeapTupleData tup;

			/*
			 * An exact bitmap names index entries, i.e. roots of HOT chains:
			 * the visible version may be further down the chain.  A lossy
			 * one means every tuple of the page.
			 */
			if (!exact)
			{
				if (!ItemIdIsNormal(PageGetItemId(page, off)))
					continue;
				NvmSetTuple(&tup, sscan->rs_rd, page, blkno, off);
				if (NvmBitmapVisible(sscan, &tup))
					scan->vis[n++] = off;
				continue;
			}
			while (NvmChainMember(sscan->rs_rd, page, blkno, &off, atRoot, priorXmax, &tup))
			{
				if (NvmBitmapVisible(sscan, &tup))
				{
					scan->vis[n++] = off;
					break;
				}
				atRoot = false;
				off = NvmChainStep(&tup, &priorXmax);
				if (off == InvalidOffsetNumber)
					break;
			}
		}
	}
	LWLockRelease(lock);
	scan->cblock = blkno;
	scan->ntuples = n;
	PoolCountAdd(NVM_STAT_PAGE_READS, 1);
	return n > 0;
}

static bool
nvm_scan_bitmap_next_tuple(TableScanDesc sscan, TBMIterateResult *tbmres,
						   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;

	if (scan->cindex >= scan->ntuples)
		return false;
	NvmSetTuple(&scan->tuple, sscan->rs_rd, scan->cpage, scan->cblock,
				scan->vis[scan->cindex++]);
	pgstat_count_heap_fetch(sscan->rs_rd);
	ExecStoreHeapTuple(&scan->tuple, slot, false);
	return true;
}

static bool
nvm_scan_sample_next_block(TableScanDesc sscan, SampleScanState *scanstate)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber blkno;

	if (scan->nblocks == 0)
		return false;
	if (tsm->NextSampleBlock)
		blkno = tsm->NextSampleBlock(scanstate, scan->nblocks);
	else if (!scan->inited)
		blkno = 0;
	else
		blkno = scan->cblock + 1 < scan->nblocks ? scan->cblock + 1 : InvalidBlockNumber;
	if (!BlockNumberIsValid(blkno))
	{
		scan->inited = false;
		return false;
	}
	scan->inited = true;
	scan->cblock = blkno;
	return true;
}

static bool
nvm_scan_sample_next_tuple(TableScanDesc sscan, SampleScanState *scanstate,
						   TupleTableSlot *slot)
{
	NvmScanDesc scan = (NvmScanDesc) sscan;
	TsmRoutine *tsm = scanstate->tsmroutine;
	LWLock	   *lock = PoolPageLock(scan->dirIndex, scan->cblock);
	Page		page;
	OffsetNumber maxoff;

	LWLockAcquire(lock, LW_SHARED);
	page = IplHoldPage(scan->dirIndex, scan->cblock, &scan->cframe, scan->copybuf);
	maxoff = PageGetMaxOffsetNumber(page);
	LWLockRelease(lock);
	for (;;)
	{
		OffsetNumber off;
		bool		visible = false;

		CHECK_FOR_INTERRUPTS();
		off = tsm->NextSampleTuple(scanstate, scan->cblock, maxoff);
		if (!OffsetNumberIsValid(off))
		{
			ExecClearTuple(slot);
			return false;
		}
		LWLockAcquire(lock, LW_SHARED);
		if (off <= maxoff && ItemIdIsNormal(PageGetItemId(page, off)))
		{
			NvmSetTuple(&scan->tuple, sscan->rs_rd, page, scan->cblock, off);
			visible = NvmTupleSatisfies(&scan->tuple, sscan->rs_snapshot);
			NvmCheckConflictOut(visible, sscan->rs_rd, &scan->tuple, sscan->rs_snapshot);
		}
		LWLockRelease(lock);
		if (visible)
		{
			pgstat_count_heap_getnext(sscan->rs_rd);
			ExecStoreHeapTuple(&scan->tuple, slot, false);
			return true;
		}
	}
}

/* ------------------------------------------------------------------------
 * Definition of the nvm_am table access method.
 * ------------------------------------------------------------------------
 */

static const TableAmRoutine nvm_methods = {
	.type = T_TableAmRoutine,

	.slot_callbacks = nvm_slot_callbacks,

	.scan_begin = nvm_scan_begin,
	.scan_end = nvm_scan_end,
	.scan_rescan = nvm_scan_rescan,
	.scan_getnextslot = nvm_scan_getnextslot,

	.scan_set_tidrange = nvm_scan_set_tidrange,
	.scan_getnextslot_tidrange = nvm_scan_getnextslot_tidrange,

	.parallelscan_estimate = table_block_parallelscan_estimate,
	.parallelscan_initialize = table_block_parallelscan_initialize,
	.parallelscan_reinitialize = table_block_parallelscan_reinitialize,

	.index_fetch_begin = nvm_index_fetch_begin,
	.index_fetch_reset = nvm_index_fetch_reset,
	.index_fetch_end = nvm_index_fetch_end,
	.index_fetch_tuple = nvm_index_fetch_tuple,

	.tuple_insert = nvm_tuple_insert,
	.tuple_insert_speculative = nvm_tuple_insert_speculative,
	.tuple_complete_speculative = nvm_tuple_complete_speculative,
	.multi_insert = nvm_multi_insert,
	.tuple_delete = nvm_tuple_delete,
	.tuple_update = nvm_tuple_update,
	.tuple_lock = nvm_tuple_lock,
	.finish_bulk_insert = nvm_finish_bulk_insert,

	.tuple_fetch_row_version = nvm_fetch_row_version,
	.tuple_get_latest_tid = nvm_get_latest_tid,
	.tuple_tid_valid = nvm_tuple_tid_valid,
	.tuple_satisfies_snapshot = nvm_tuple_satisfies_snapshot,
	.index_delete_tuples = nvm_index_delete_tuples,

	.relation_set_new_filenode = nvm_relation_set_new_filenode,
	.relation_nontransactional_truncate = nvm_relation_nontransactional_truncate,
	.relation_copy_data = nvm_relation_copy_data,
	.relation_copy_for_cluster = nvm_relation_copy_for_cluster,
	.relation_vacuum = nvm_relation_vacuum,
	.scan_analyze_next_block = nvm_scan_analyze_next_block,
	.scan_analyze_next_tuple = nvm_scan_analyze_next_tuple,
	.index_build_range_scan = nvm_index_build_range_scan,
	.index_validate_scan = nvm_index_validate_scan,

	.relation_size = nvm_relation_size,
	.relation_needs_toast_table = nvm_relation_needs_toast_table,
	.relation_toast_am = nvm_relation_toast_am,
	.relation_fetch_toast_slice = heap_fetch_toast_slice,

	.relation_estimate_size = nvm_estimate_rel_size,

	.scan_bitmap_next_block = nvm_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = nvm_scan_bitmap_next_tuple,
	.scan_sample_next_block = nvm_scan_sample_next_block,
	.scan_sample_next_tuple = nvm_scan_sample_next_tuple
};

Datum
nvm_am_handler(PG_FUNCTION_ARGS)
{
	NvmCheckPreloaded();
	PG_RETURN_POINTER(&nvm_methods);
}
