/*-------------------------------------------------------------------------
 *
 * nvm_storage.c
 *	  The storage lifecycle of nvm_am relations.  Storage in the pool is
 *	  created when a relation gets a new relfilenode and dropped when the
 *	  relfilenode is dropped (DROP TABLE, DROP SCHEMA ... CASCADE, TRUNCATE,
 *	  the rewrite of VACUUM FULL, CLUSTER and ALTER TABLE, DROP DATABASE).
 *	  Table AMs get no callback when storage is dropped, so drops are seen
 *	  through the object-access hook.  Like heap's pending deletes, creations
 *	  and drops take effect at commit and are undone at abort or at the
 *	  abort of the subtransaction that made them (this module's own
 *	  transaction callbacks).  Also here: the relation's main-fork file,
 *	  kept sparse at the table's size for PostgreSQL's size functions and
 *	  prefetching, and the mapping of a relation to its directory entry.
 *
 * Crash safety: a directory entry is created with state USED|CREATING|xid
 * and a drop sets DROPPING|xid, where xid is the top-level transaction id,
 * made safe against reuse first (NvmXlogProtectXid).  At commit or abort
 * the flags are cleared or the entry freed.  After a crash,
 * nvm_recovery.c decides each flagged entry through clog before any nvm
 * table can be read.
 *
 * Locks: the pool's directory lock (exclusive) for every state change.
 * Drops happen while the dropping transaction holds AccessExclusiveLock on
 * the relation; the caller of NvmStorageExtended holds the relation's
 * extension lock.
 *
 * On-pool layout: none of its own (directory entries: nvm_pool.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_control.h"
#include "commands/defrem.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "common/relpath.h"
#include "storage/fd.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/wait_event.h"

#include "nvm_hooks.h"

/* Backend-local handle of a relation's storage, cached in rd_amcache */
typedef struct NvmRelHandle
{
	int			dirIndex;		/* index into the relation directory */
	RelFileNode node;			/* its key, to validate cached handles */
} NvmRelHandle;

typedef struct PendingAction
{
	RelFileNode node;
	int			dirIndex;
	bool		isCreate;
	int			nestLevel;
	struct PendingAction *next;
} PendingAction;

static PendingAction *pending = NULL;
static const TableAmRoutine *nvm_routine = NULL;	/* nvm_am's callbacks */
static object_access_hook_type prev_object_access_hook = NULL;

/*
 * The main-fork segment file NvmStorageExtended last sized, kept open (a
 * virtual file descriptor) until the end of the transaction, so that a load
 * does not open and close it for every page.  Only in a transaction: the
 * storage cannot be dropped and its relfilenode reused while the
 * transaction extends it, and the transaction callbacks close it.
 */
static RelFileNodeBackend extend_rnode;
static BlockNumber extend_segno;
static File extend_file = -1;

/* NvmStorageExtendCacheClose - forget the segment file kept open, if any */
static void
NvmStorageExtendCacheClose(void)
{
	if (extend_file >= 0)
		FileClose(extend_file);
	extend_file = -1;
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
	BlockNumber segno = blkno / RELSEG_SIZE;
	off_t		size = (off_t) (blkno % RELSEG_SIZE + 1) * BLCKSZ;
	bool		cache = IsTransactionState();

	if (blkno > 0 && blkno % RELSEG_SIZE == 0)
	{
		PGAlignedBlock zero;

		memset(zero.data, 0, BLCKSZ);
		smgrextend(smgr, MAIN_FORKNUM, blkno, zero.data, true);
		return;
	}
	if (!cache || extend_file < 0 || extend_segno != segno ||
		!RelFileNodeBackendEquals(extend_rnode, smgr->smgr_rnode))
	{
		char	   *path;
		char	   *segpath;

		NvmStorageExtendCacheClose();
		path = relpathbackend(smgr->smgr_rnode.node, smgr->smgr_rnode.backend, MAIN_FORKNUM);
		segpath = segno == 0 ? path : psprintf("%s.%u", path, segno);
		extend_file = PathNameOpenFile(segpath, O_RDWR | PG_BINARY);
		extend_rnode = smgr->smgr_rnode;
		extend_segno = segno;
		if (segpath != path)
			pfree(segpath);
		pfree(path);
	}
	/* the size is information only: a failure is not worth an error */
	if (extend_file >= 0 &&
		FileTruncate(extend_file, size, WAIT_EVENT_DATA_FILE_TRUNCATE) != 0)
		elog(DEBUG1, "could not set size of \"%s\": %m", FilePathName(extend_file));
	if (!cache)
		NvmStorageExtendCacheClose();
}

/*
 * NvmStorageRelDirIndex - the pool directory index of rel's current storage,
 * cached in rd_amcache.
 */
int
NvmStorageRelDirIndex(Relation rel)
{
	NvmRelHandle *h = (NvmRelHandle *) rel->rd_amcache;
	int			idx;

	if (h != NULL && RelFileNodeEquals(h->node, rel->rd_node))
		return h->dirIndex;

	NvmRecoveryEnsureReady();
	idx = NvmPoolRelLookup(&rel->rd_node);
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

/*
 * NvmStorageRelSize - rel's size in bytes, of fork forkNumber or of all its
 * forks (InvalidForkNumber), as heap's table_block_relation_size counts
 * them: the main fork's pages are the pool's, the free space map and the
 * visibility map are the relation's own fork files, in heap's format
 * (pg_prewarm and pageinspect's get_raw_page read them through this
 * size).  A fork without a file has none, where heap's would
 * fail to open it.  Caller holds a lock on rel.
 */
uint64
NvmStorageRelSize(Relation rel, ForkNumber forkNumber)
{
	uint64		size = 0;

	if (forkNumber == MAIN_FORKNUM || forkNumber == InvalidForkNumber)
		size = (uint64) NvmPoolRelNBlocks(NvmStorageRelDirIndex(rel)) * BLCKSZ;
	for (ForkNumber f = MAIN_FORKNUM + 1; f <= MAX_FORKNUM; f++)
	{
		if ((forkNumber == f || forkNumber == InvalidForkNumber) &&
			smgrexists(RelationGetSmgr(rel), f))
			size += (uint64) smgrnblocks(RelationGetSmgr(rel), f) * BLCKSZ;
	}
	return size;
}

/* ----------------------------------------------------------------
 * Pending lifecycle actions
 * ----------------------------------------------------------------
 */

static void
NvmStoragePendingAdd(const RelFileNode *node, int dirIndex, bool isCreate)
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
 * NvmStorageCreate - create empty storage for a new relfilenode of a
 * relation with persistence (RELPERSISTENCE_*); it is freed again if the
 * (sub)transaction aborts.  Returns its directory index.
 */
int
NvmStorageCreate(const RelFileNode *node, char persistence)
{
	TransactionId xid = GetTopTransactionId();
	uint64		flags = persistence == RELPERSISTENCE_TEMP ? NVM_REL_TEMP | NVM_REL_UNLOGGED :
		persistence == RELPERSISTENCE_UNLOGGED ? NVM_REL_UNLOGGED : 0;
	int			idx;

	NvmRecoveryEnsureReady();
	NvmXlogProtectXid(xid);
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	idx = NvmXlogRelCreate(node, xid, flags);
	LWLockRelease(NvmPoolDirLock());
	NvmStoragePendingAdd(node, idx, true);
	return idx;
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

	NvmRecoveryEnsureReady();
	idx = NvmPoolRelLookup(node);
	if (idx < 0)
		return;
	NvmXlogProtectXid(GetTopTransactionId());
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	/* flags another, finished (prepared) transaction left are settled first */
	NvmRecoverySettle(idx);
	state = NvmPoolRelGetState(idx);
	if (!(state & NVM_REL_DROPPING))
	{
		/* keep CREATING; a creating xid left now is our own top-level xid */
		NvmPoolRelSetState(idx, (state & ~UINT64CONST(0xFFFFFFFF)) |
						   NVM_REL_DROPPING | GetTopTransactionId());
		LWLockRelease(NvmPoolDirLock());
		NvmStoragePendingAdd(node, idx, false);
	}
	else
		LWLockRelease(NvmPoolDirLock());
}

/*
 * NvmStoragePendingApply - carry out (commit) or undo (abort) the pending actions of
 * nesting level minLevel and deeper, newest first.
 */
static void
NvmStoragePendingApply(bool commit, int minLevel)
{
	PendingAction **prev = &pending;
	PendingAction *a = pending;

	if (pending == NULL)
		return;
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
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
		if (NvmPoolRelGetKey(a->dirIndex, &node, &state) &&
			RelFileNodeEquals(node, a->node))
		{
			if (a->isCreate == commit)
			{
				/* created and committed, or dropped and aborted: keep */
				uint64		flag = commit ? NVM_REL_CREATING : NVM_REL_DROPPING;

				state &= ~flag;
				if (!(state & (NVM_REL_CREATING | NVM_REL_DROPPING)))
					state = NVM_REL_USED | (state & NVM_REL_KEPT_FLAGS);
				NvmPoolRelSetState(a->dirIndex, state);
			}
			else
				NvmXlogRelFree(a->dirIndex);
		}
		*prev = next;
		pfree(a);
		a = next;
	}
	LWLockRelease(NvmPoolDirLock());
}

/*
 * NvmStorageXactCallback - carry out or undo the pending creations and drops
 * at the end of the transaction.  A prepared transaction leaves them
 * flagged in the pool with its xid: whoever ends it (COMMIT PREPARED or
 * ROLLBACK PREPARED, in any session, or after a restart) cannot tell us,
 * so nvm_recovery.c settles such entries through clog once the xid has
 * finished.
 */
static void
NvmStorageXactCallback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			NvmStorageExtendCacheClose();
			NvmStoragePendingApply(true, 0);
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			NvmStorageExtendCacheClose();
			NvmStoragePendingApply(false, 0);
			break;
		case XACT_EVENT_PREPARE:
			NvmStorageExtendCacheClose();
			if (pending != NULL)
			{
				while (pending != NULL)
				{
					PendingAction *next = pending->next;

					pfree(pending);
					pending = next;
				}
				NvmRecoveryNoteUnsettled();
			}
			break;
		default:
			break;
	}
}

static void
NvmStorageSubXactCallback(SubXactEvent event, SubTransactionId mySubid,
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
		/* the subtransaction may have created the file it extended */
		NvmStorageExtendCacheClose();
		/*
		 * Frame pins of scans that the error ended stay until the end of the
		 * top-level transaction: a scan (cursor) opened before the savepoint
		 * may still hold pins it took inside it.
		 */
		NvmStoragePendingApply(false, level);
	}
}

/* ----------------------------------------------------------------
 * Drops: object access hook
 * ----------------------------------------------------------------
 */

static void
NvmStorageDropDatabase(Oid dbid)
{
	int			n = NvmPoolDirSize();

	for (int i = 0; i < n; i++)
	{
		RelFileNode node;
		uint64		state;
		bool		found;

		LWLockAcquire(NvmPoolDirLock(), LW_SHARED);
		found = NvmPoolRelGetKey(i, &node, &state);
		LWLockRelease(NvmPoolDirLock());
		if (found && node.dbNode == dbid)
			NvmStorageScheduleDrop(&node);
	}
}

/*
 * NvmStorageIsNvmRelation - does rel keep its pages in the pool?  Decided
 * by the access method's routine, not its name: every access method whose
 * handler is nvm_am's (CREATE ACCESS METHOD another TYPE TABLE HANDLER
 * nvm_am.nvm_am_handler) stores its tables here.
 */
bool
NvmStorageIsNvmRelation(Relation rel)
{
	return RELKIND_HAS_TABLE_AM(rel->rd_rel->relkind) &&
		nvm_routine != NULL && rel->rd_tableam == nvm_routine;
}

static void
NvmStorageDropRelation(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	bool		hasTableAm;
	Relation	rel;

	if (!HeapTupleIsValid(tp))
		return;
	hasTableAm = RELKIND_HAS_TABLE_AM(((Form_pg_class) GETSTRUCT(tp))->relkind);
	ReleaseSysCache(tp);
	if (!hasTableAm)
		return;
	/* the dropping command has it open: this finds the relcache entry */
	rel = RelationIdGetRelation(relid);
	if (!RelationIsValid(rel))
		return;
	if (NvmStorageIsNvmRelation(rel) && OidIsValid(rel->rd_node.relNode))
		NvmStorageScheduleDrop(&rel->rd_node);
	RelationClose(rel);
}

static void
NvmStorageObjectAccess(ObjectAccessType access, Oid classId, Oid objectId,
					   int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (access != OAT_DROP || !NvmPoolIsMapped())
		return;
	if (classId == RelationRelationId && subId == 0)
		NvmStorageDropRelation(objectId);
	else if (classId == DatabaseRelationId)
		NvmStorageDropDatabase(objectId);
}

/*
 * NvmStorageAfterEndPrepared - after COMMIT PREPARED or ROLLBACK PREPARED,
 * settle the creations and drops the prepared transaction left flagged, so
 * that the space of a dropped or rolled-back table is free when the
 * command returns (the recovery worker would find them within a second
 * too).  Called by the utility hook (nvm_am.c).
 */
void
NvmStorageAfterEndPrepared(void)
{
	if (NvmPoolIsMapped())
		NvmRecoverySettleUnsettled();
}

/*
 * NvmStorageResetAtStart - in one pass over the directory: free the pool
 * storage of every temporary relation, and after a crash empty that of
 * every unlogged relation (one with an init fork).  Called in the
 * postmaster while it sets up shared memory (at every start, and again
 * after a backend crash), before any process can read a table.
 *
 * No temporary relation outlives the sessions that made it: PostgreSQL
 * removes their files at every start (RemovePgTempFiles).  After a crash
 * their catalog rows are still there, until a session that gets the same
 * temporary schema drops them; that drop finds no storage in the pool
 * (NvmStorageScheduleDrop).  Without this, the pages of a crashed session's
 * temporary tables kept their frames until then, and a later relation
 * given the same relfilenode (relfilenodes are unique among files, and
 * these files are gone) could not get storage.
 *
 * An unlogged table is empty after a crash, with its indexes, as
 * PostgreSQL's recovery resets heap's files and the indexes from their
 * init forks.  After a clean shutdown (the control file says so) they keep
 * their rows, as heap's do.
 */
void
NvmStorageResetAtStart(void)
{
	bool		crc_ok;
	ControlFileData *cf = get_controlfile(DataDir, &crc_ok);
	bool		clean = crc_ok && (cf->state == DB_SHUTDOWNED ||
								   cf->state == DB_SHUTDOWNED_IN_RECOVERY);
	int			n = NvmPoolDirSize();

	pfree(cf);
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	for (int i = 0; i < n; i++)
	{
		RelFileNode node;
		uint64		state;
		char	   *init;

		if (!NvmPoolRelGetKey(i, &node, &state) || !(state & NVM_REL_USED))
			continue;
		if (state & NVM_REL_TEMP)
		{
			elog(LOG, "nvm_am: freeing temporary relation %u/%u/%u of a session that ended with the server",
				 node.spcNode, node.dbNode, node.relNode);
			NvmPoolRelFree(i);
			continue;
		}
		if (clean || NvmPoolRelIsDamaged(i))
			continue;
		init = relpathperm(node, INIT_FORKNUM);
		if (access(init, F_OK) == 0 && NvmPoolRelNBlocks(i) > 0)
		{
			elog(LOG, "nvm_am: emptying unlogged relation %u/%u/%u after a crash",
				 node.spcNode, node.dbNode, node.relNode);
			NvmPoolRelTruncate(i, 0);
		}
		pfree(init);
	}
	LWLockRelease(NvmPoolDirLock());
}

/*
 * NvmStorageInit - install the object-access hook and the
 * transaction callbacks, and remember the access method's routine (which
 * tells nvm_am's relations); called from _PG_init in the postmaster.
 */
void
NvmStorageInit(const TableAmRoutine *routine)
{
	nvm_routine = routine;
	prev_object_access_hook = object_access_hook;
	object_access_hook = NvmStorageObjectAccess;
	RegisterXactCallback(NvmStorageXactCallback, NULL);
	RegisterSubXactCallback(NvmStorageSubXactCallback, NULL);
}
