/*-------------------------------------------------------------------------
 *
 * nvm_am.c
 *	  The nvm_am table access method: module start (_PG_init: settings,
 *	  shared memory, the hooks of the layers below, the utility hook) and
 *	  the TableAmRoutine with its nvm_* callbacks, in the order of
 *	  tableam.h.  The callbacks and the hook are thin: each calls the file
 *	  that owns the work (see nvm_am.h).
 *
 *	  Tuples use PostgreSQL's heap tuple format and page layout, so that the
 *	  executor's deforming, TOAST and tuple routines work unchanged.  A
 *	  tuple returned by a scan or an index fetch points straight into a
 *	  page image (the frame in the pool: a redirected read, or a merged
 *	  image in the merge cache) that stays pinned while it is used.
 *
 *	  Layers (docs/design.md): these callbacks -> page operations
 *	  (nvm_page.h) and PostgreSQL integration (nvm_hooks.h) -> the pool
 *	  (nvm_pool.h).  Nothing calls upward.
 *
 * Locks: the usual relation locks taken by the executor; everything finer
 * is taken by the files the callbacks call.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/multixact.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlogreader.h"
#include "catalog/pg_am.h"
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/smgr.h"
#include "tcop/utility.h"
#include "utils/snapmgr.h"

#include "nvm_am.h"

PG_MODULE_MAGIC;

/*
 * Functions that SQL calls: the library's symbols are hidden (Makefile), and
 * PostgreSQL 15's PG_FUNCTION_INFO_V1 exports only the info function, while
 * the server looks the function itself up by name too.
 */
PGDLLEXPORT Datum nvm_am_handler(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(nvm_am_handler);

static const TableAmRoutine nvm_methods;

PGDLLEXPORT void _PG_init(void);

#define NVM_OVERHEAD_BYTES_PER_TUPLE \
	(MAXALIGN(SizeofHeapTupleHeader) + sizeof(ItemIdData))
#define NVM_USABLE_BYTES_PER_PAGE (BLCKSZ - SizeOfPageHeaderData)

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;
static ProcessUtility_hook_type prev_process_utility_hook = NULL;

static void nvm_process_utility(PlannedStmt *pstmt, const char *queryString,
								bool readOnlyTree, ProcessUtilityContext context,
								ParamListInfo params, QueryEnvironment *queryEnv,
								DestReceiver *dest, QueryCompletion *qc);

/* ------------------------------------------------------------------------
 * Module start
 * ------------------------------------------------------------------------
 */

/*
 * nvm_shmem_request - shared memory of every module and the pool's locks.
 * The merge cache's image slots are pinned like frames: the pool keeps
 * their pin words after the frames'.
 */
static void
nvm_shmem_request(void)
{
	Size		size = NvmPoolShmemSize(IplCacheSlots());

	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	size = add_size(size, IplCacheShmemSize());
	size = add_size(size, NvmXlogShmemSize());
	size = add_size(size, NvmCommitShmemSize());
	size = add_size(size, NvmRecoveryShmemSize());
	size = add_size(size, NvmVismapShmemSize());
	RequestAddinShmemSpace(size);
	NvmPoolRequestLocks();
}

static void
nvm_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	NvmPoolShmemInit(IplCacheSlots());
	IplCacheShmemInit();
	NvmXlogShmemInit();
	NvmCommitShmemInit();
	NvmRecoveryShmemInit();
	NvmVismapShmemInit();
	if (!IsUnderPostmaster)
	{
		NvmStorageResetAtStart();
		NvmVismapResetAtStartup();
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * nvm_page_redo - WAL redo of the page records (nvm_am.wal_log): the page
 * layer's, and for a new page the relation's main-fork file grown with it,
 * as on the primary (NvmStorageExtended), for pg_relation_size() on a
 * standby.
 */
static void
nvm_page_redo(XLogReaderState *record)
{
	RelFileNode node;
	ForkNumber	fork;
	BlockNumber blkno;

	IplWalRedo(record);
	if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_NVM_NEW_PAGE &&
		XLogRecGetBlockTagExtended(record, 0, &node, &fork, &blkno, NULL))
	{
		SMgrRelation smgr = smgropen(node, InvalidBackendId);

		if (smgrexists(smgr, MAIN_FORKNUM))
			NvmStorageExtended(smgr, blkno);
	}
}

/*
 * nvm_xact_callback - the page layer's part of a transaction's end: at
 * pre-commit and pre-prepare the pages of storage the transaction created
 * are persisted (IplXactPreCommit).  Any point before the commit record in
 * WAL will do: after a crash the storage is kept only if clog calls its
 * creator committed.
 */
static void
nvm_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			IplXactPreCommit();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			IplXactEnd();
			break;
		default:
			break;
	}
}

/*
 * _PG_init - in the postmaster (shared_preload_libraries): define the
 * settings, map the pool (before any child is forked, so that every
 * process sees it at the same address) and install the hooks.
 */
void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am must be loaded via shared_preload_libraries"),
				 errdetail("The pool must be mapped by the postmaster before it starts any backend."),
				 errhint("Add nvm_am to shared_preload_libraries in postgresql.conf and restart the server.")));

	NvmGucDefine();
	NvmPoolOpenOrCreate();
	NvmXlogInit();
	NvmXlogSetPageRedo(nvm_page_redo, IplWalTypeName);
	NvmCommitInit();
	NvmStorageInit(&nvm_methods);
	NvmRecoveryInit();
	RegisterXactCallback(nvm_xact_callback, NULL);

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = nvm_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = nvm_shmem_startup;
	prev_process_utility_hook = ProcessUtility_hook;
	ProcessUtility_hook = nvm_process_utility;
}

/*
 * nvm_process_utility - the utility hook: the statements that move nvm_am
 * storage with whole databases (nvm_database.c), and the end of a prepared
 * transaction, whose storage changes are settled at once (nvm_storage.c).
 */
static void
nvm_process_utility(PlannedStmt *pstmt, const char *queryString,
					bool readOnlyTree, ProcessUtilityContext context,
					ParamListInfo params, QueryEnvironment *queryEnv,
					DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	bool		endsPrepared = IsA(stmt, TransactionStmt) &&
		(((TransactionStmt *) stmt)->kind == TRANS_STMT_COMMIT_PREPARED ||
		 ((TransactionStmt *) stmt)->kind == TRANS_STMT_ROLLBACK_PREPARED);

	if (IsA(stmt, AlterDatabaseStmt))
		NvmDatabaseBeforeAlter((AlterDatabaseStmt *) stmt);
	if (prev_process_utility_hook)
		prev_process_utility_hook(pstmt, queryString, readOnlyTree, context,
								  params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
	if (IsA(stmt, CreatedbStmt))
		NvmDatabaseAfterCreate((CreatedbStmt *) stmt);
	else if (endsPrepared)
		NvmStorageAfterEndPrepared();
}

/* ------------------------------------------------------------------------
 * Slot related callbacks
 * ------------------------------------------------------------------------
 */

static const TupleTableSlotOps *
nvm_slot_callbacks(Relation relation)
{
	return &TTSOpsHeapTuple;
}

/* ------------------------------------------------------------------------
 * Table scan callbacks
 * ------------------------------------------------------------------------
 */

static TableScanDesc
nvm_scan_begin(Relation rel, Snapshot snapshot, int nkeys, ScanKey key,
			   ParallelTableScanDesc pscan, uint32 flags)
{
	return NvmScanBegin(rel, snapshot, nkeys, key, pscan, flags);
}

static void
nvm_scan_end(TableScanDesc sscan)
{
	NvmScanEnd(sscan);
}

static void
nvm_scan_rescan(TableScanDesc sscan, ScanKey key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	NvmScanRescan(sscan, key);
}

static bool
nvm_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	return NvmScanGetNextSlot(sscan, direction, slot);
}

static void
nvm_scan_set_tidrange(TableScanDesc sscan, ItemPointer mintid,
					  ItemPointer maxtid)
{
	NvmScanSetTidRange(sscan, mintid, maxtid);
}

static bool
nvm_scan_getnextslot_tidrange(TableScanDesc sscan, ScanDirection direction,
							  TupleTableSlot *slot)
{
	return NvmScanGetNextSlotTidRange(sscan, direction, slot);
}

/* ------------------------------------------------------------------------
 * Index scan callbacks
 * ------------------------------------------------------------------------
 */

static IndexFetchTableData *
nvm_index_fetch_begin(Relation rel)
{
	return NvmIndexFetchBegin(rel);
}

static void
nvm_index_fetch_reset(IndexFetchTableData *scan)
{
	NvmIndexFetchReset(scan);
}

static void
nvm_index_fetch_end(IndexFetchTableData *scan)
{
	NvmIndexFetchEnd(scan);
}

static bool
nvm_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					  Snapshot snapshot, TupleTableSlot *slot,
					  bool *call_again, bool *all_dead)
{
	return NvmIndexFetchTuple(scan, tid, snapshot, slot, call_again, all_dead);
}

/* ------------------------------------------------------------------------
 * Callbacks for non-modifying operations on individual tuples
 * ------------------------------------------------------------------------
 */

static bool
nvm_tuple_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
							TupleTableSlot *slot)
{
	return NvmIndexFetchRowVersion(rel, tid, snapshot, slot);
}

static bool
nvm_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return NvmScanTidValid(scan, tid);
}

static void
nvm_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	NvmIndexGetLatestTid(scan, tid);
}

static bool
nvm_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							 Snapshot snapshot)
{
	return NvmIndexTupleSatisfiesSnapshot(rel, slot, snapshot);
}

static TransactionId
nvm_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	return NvmIndexDeleteTuples(rel, delstate);
}

/* ------------------------------------------------------------------------
 * Manipulations of physical tuples
 * ------------------------------------------------------------------------
 */

static void
nvm_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				 int options, BulkInsertState bistate)
{
	NvmModifyTupleInsert(rel, slot, cid, options);
}

static void
nvm_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							 CommandId cid, int options,
							 BulkInsertState bistate, uint32 specToken)
{
	NvmModifyInsertSpeculative(rel, slot, cid, options, specToken);
}

static void
nvm_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
							   uint32 specToken, bool succeeded)
{
	NvmModifyCompleteSpeculative(rel, slot, specToken, succeeded);
}

static void
nvm_multi_insert(Relation rel, TupleTableSlot **slots, int ntuples,
				 CommandId cid, int options, BulkInsertState bistate)
{
	NvmModifyMultiInsert(rel, slots, ntuples, cid, options);
}

static TM_Result
nvm_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				 Snapshot snapshot, Snapshot crosscheck, bool wait,
				 TM_FailureData *tmfd, bool changingPart)
{
	return NvmModifyDelete(rel, tid, cid, crosscheck, wait, tmfd, changingPart);
}

static TM_Result
nvm_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				 bool *update_indexes)
{
	return NvmModifyUpdate(rel, otid, slot, cid, crosscheck, wait, tmfd,
						   lockmode, update_indexes);
}

static TM_Result
nvm_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
			   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
			   LockWaitPolicy wait_policy, uint8 flags,
			   TM_FailureData *tmfd)
{
	return NvmRowLockTuple(rel, tid, snapshot, slot, cid, mode, wait_policy,
						   flags, tmfd);
}

/*
 * nvm_finish_bulk_insert - every insert is durable already; after a frozen
 * load the visibility map is set as heap's is.
 */
static void
nvm_finish_bulk_insert(Relation rel, int options)
{
	if ((options & TABLE_INSERT_FROZEN) &&
		(rel->rd_createSubid != InvalidSubTransactionId ||
		 rel->rd_firstRelfilenodeSubid != InvalidSubTransactionId))
		NvmVismapSetAfterFrozenLoad(rel, NvmStorageRelDirIndex(rel));
}

/* ------------------------------------------------------------------------
 * DDL related callbacks
 * ------------------------------------------------------------------------
 */

/*
 * NvmAmCreateInitFork - an unlogged relation gets an (empty) init fork, as
 * heap's: it marks the relation as one that a crash empties.  PostgreSQL's
 * recovery resets the relation's files and its indexes from their init
 * forks; nvm_am empties its pool storage (NvmStorageResetAtStart).
 */
static void
NvmAmCreateInitFork(SMgrRelation srel, char persistence)
{
	if (persistence != RELPERSISTENCE_UNLOGGED)
		return;
	smgrcreate(srel, INIT_FORKNUM, false);
	log_smgrcreate(&srel->smgr_rnode.node, INIT_FORKNUM);
	smgrimmedsync(srel, INIT_FORKNUM);
}

/*
 * NvmAmStorageCreate - the pool storage of a new relfilenode, told to the
 * page layer (persisted at pre-commit) and the visibility map (no bits);
 * returns its directory index.  Freed again if the (sub)transaction aborts.
 */
int
NvmAmStorageCreate(const RelFileNode *rnode, char persistence)
{
	int			dirIndex = NvmStorageCreate(rnode, persistence);

	IplStorageCreated(dirIndex);
	NvmVismapStorageCreated(dirIndex);
	return dirIndex;
}

static void
nvm_relation_set_new_filenode(Relation rel, const RelFileNode *newrnode,
							  char persistence, TransactionId *freezeXid,
							  MultiXactId *minmulti)
{
	SMgrRelation srel;

	/*
	 * pg_upgrade makes the tables anew in the new cluster and then copies
	 * their files over; an nvm_am table's rows are in the old cluster's
	 * pool, not in its files, so it would arrive empty.  Stop it here,
	 * before anything is copied (the old cluster stays as it was).
	 */
	if (IsBinaryUpgrade)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("pg_upgrade cannot carry nvm_am table \"%s\" over",
						RelationGetRelationName(rel)),
				 errdetail("The rows of an nvm_am table are in the old cluster's pool, which pg_upgrade does not copy; the table would arrive empty."),
				 errhint("Before the upgrade, change such tables to heap (ALTER TABLE ... SET ACCESS METHOD heap), or dump them with pg_dump and restore them after it.")));

	NvmRecoveryEnsureReady();
	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();

	/*
	 * An empty main-fork file keeps PostgreSQL's own relation-file code
	 * (prefetch during ANALYZE and bitmap scans) working; the pages live in
	 * the pool.  PostgreSQL's pending deletes remove the file.
	 */
	srel = RelationCreateStorage(*newrnode, persistence, true);
	NvmAmCreateInitFork(srel, persistence);
	smgrclose(srel);

	if (!RelFileNodeEquals(rel->rd_node, *newrnode) &&
		OidIsValid(rel->rd_node.relNode))
		NvmStorageScheduleDrop(&rel->rd_node);
	(void) NvmAmStorageCreate(newrnode, persistence);
}

static void
nvm_relation_nontransactional_truncate(Relation rel)
{
	NvmXlogRelTruncate(NvmStorageRelDirIndex(rel), 0);
	/* the file's size follows the table's (and its free space map goes) */
	RelationTruncate(rel, 0);
}

static void
nvm_relation_copy_data(Relation rel, const RelFileNode *newrnode)
{
	int			src = NvmStorageRelDirIndex(rel);
	BlockNumber nblocks = NvmPoolRelNBlocks(src);
	int			dst;
	SMgrRelation srel;

	/* SET TABLESPACE: a copy of every page, each merged into one base */
	srel = RelationCreateStorage(*newrnode, rel->rd_rel->relpersistence, true);
	NvmAmCreateInitFork(srel, rel->rd_rel->relpersistence);
	dst = NvmAmStorageCreate(newrnode, rel->rd_rel->relpersistence);
	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		CHECK_FOR_INTERRUPTS();
		IplCopyPage(src, dst, blkno);
		NvmStorageExtended(srel, blkno);
	}
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
	NvmRewriteCopyForCluster(OldTable, NewTable, OldIndex, use_sort, OldestXmin,
							 xid_cutoff, multi_cutoff, num_tuples,
							 tups_vacuumed, tups_recently_dead);
}

static void
nvm_relation_vacuum(Relation rel, struct VacuumParams *params,
					BufferAccessStrategy bstrategy)
{
	NvmVacuumRelation(rel, params, bstrategy);
}

static bool
nvm_scan_analyze_next_block(TableScanDesc scan, BlockNumber blockno,
							BufferAccessStrategy bstrategy)
{
	return NvmScanAnalyzeNextBlock(scan, blockno);
}

static bool
nvm_scan_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin,
							double *liverows, double *deadrows,
							TupleTableSlot *slot)
{
	return NvmScanAnalyzeNextTuple(scan, OldestXmin, liverows, deadrows, slot);
}

static double
nvm_index_build_range_scan(Relation table_rel, Relation index_rel,
						   IndexInfo *index_info, bool allow_sync,
						   bool anyvisible, bool progress,
						   BlockNumber start_blockno, BlockNumber numblocks,
						   IndexBuildCallback callback, void *callback_state,
						   TableScanDesc scan)
{
	return NvmIndexBuildRangeScan(table_rel, index_rel, index_info, allow_sync,
								  anyvisible, progress, start_blockno, numblocks,
								  callback, callback_state, scan);
}

static void
nvm_index_validate_scan(Relation table_rel, Relation index_rel,
						IndexInfo *index_info, Snapshot snapshot,
						ValidateIndexState *state)
{
	NvmIndexValidateScan(table_rel, index_rel, index_info, snapshot, state);
}

/* ------------------------------------------------------------------------
 * Miscellaneous callbacks
 * ------------------------------------------------------------------------
 */

static uint64
nvm_relation_size(Relation rel, ForkNumber forkNumber)
{
	return NvmStorageRelSize(rel, forkNumber);
}

static bool
nvm_relation_needs_toast_table(Relation rel)
{
	return NvmModifyNeedsToastTable(rel);
}

static Oid
nvm_relation_toast_am(Relation rel)
{
	/* heap's TOAST code inserts with heap_insert: the TOAST table is a heap */
	return HEAP_TABLE_AM_OID;
}

/* ------------------------------------------------------------------------
 * Planner related callbacks
 * ------------------------------------------------------------------------
 */

static void
nvm_relation_estimate_size(Relation rel, int32 *attr_widths, BlockNumber *pages,
						   double *tuples, double *allvisfrac)
{
	table_block_relation_estimate_size(rel, attr_widths, pages, tuples,
									   allvisfrac,
									   NVM_OVERHEAD_BYTES_PER_TUPLE,
									   NVM_USABLE_BYTES_PER_PAGE);
}

/* ------------------------------------------------------------------------
 * Executor related callbacks
 * ------------------------------------------------------------------------
 */

static bool
nvm_scan_bitmap_next_block(TableScanDesc scan, TBMIterateResult *tbmres)
{
	return NvmScanBitmapNextBlock(scan, tbmres);
}

static bool
nvm_scan_bitmap_next_tuple(TableScanDesc scan, TBMIterateResult *tbmres,
						   TupleTableSlot *slot)
{
	return NvmScanBitmapNextTuple(scan, tbmres, slot);
}

static bool
nvm_scan_sample_next_block(TableScanDesc scan, SampleScanState *scanstate)
{
	return NvmScanSampleNextBlock(scan, scanstate);
}

static bool
nvm_scan_sample_next_tuple(TableScanDesc scan, SampleScanState *scanstate,
						   TupleTableSlot *slot)
{
	return NvmScanSampleNextTuple(scan, scanstate, slot);
}

/* ------------------------------------------------------------------------
 * Definition of the nvm_am table access method
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

	.tuple_fetch_row_version = nvm_tuple_fetch_row_version,
	.tuple_tid_valid = nvm_tuple_tid_valid,
	.tuple_get_latest_tid = nvm_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = nvm_tuple_satisfies_snapshot,
	.index_delete_tuples = nvm_index_delete_tuples,

	.tuple_insert = nvm_tuple_insert,
	.tuple_insert_speculative = nvm_tuple_insert_speculative,
	.tuple_complete_speculative = nvm_tuple_complete_speculative,
	.multi_insert = nvm_multi_insert,
	.tuple_delete = nvm_tuple_delete,
	.tuple_update = nvm_tuple_update,
	.tuple_lock = nvm_tuple_lock,
	.finish_bulk_insert = nvm_finish_bulk_insert,

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

	.relation_estimate_size = nvm_relation_estimate_size,

	.scan_bitmap_next_block = nvm_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = nvm_scan_bitmap_next_tuple,
	.scan_sample_next_block = nvm_scan_sample_next_block,
	.scan_sample_next_tuple = nvm_scan_sample_next_tuple
};

Datum
nvm_am_handler(PG_FUNCTION_ARGS)
{
	NvmPoolCheckPreloaded();
	PG_RETURN_POINTER(&nvm_methods);
}
