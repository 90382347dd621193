/*-------------------------------------------------------------------------
 *
 * nvm_database.c
 *	  Whole databases: CREATE DATABASE ... TEMPLATE and ALTER DATABASE ...
 *	  SET TABLESPACE.  PostgreSQL copies a database's relation files itself
 *	  (both strategies of CREATE DATABASE, and movedb()), but the pages of
 *	  nvm_am tables are in the pool, keyed by (tablespace, database,
 *	  relfilenode).  Both commands keep the relfilenodes; CREATE DATABASE
 *	  gives them a new database, and both map the source's default
 *	  tablespace to the destination's (a table placed in another tablespace
 *	  keeps it), as PostgreSQL maps the directories.  So this file copies
 *	  the pool storage of every nvm_am relation of the source to its new
 *	  key: after createdb() for CREATE DATABASE, before movedb() for ALTER
 *	  DATABASE ... SET TABLESPACE, which also drops the old storage (the
 *	  utility hook in nvm_am.c calls this file).
 *
 *	  The copies are pending creations (and the old storage pending drops)
 *	  of the transaction that changes pg_database (nvm_storage.c): they
 *	  become the database's storage at its commit and are freed at its
 *	  abort, or by recovery after a crash before it.  movedb() commits that
 *	  transaction itself, before it removes the old files, which is why the
 *	  move is copied before it runs.  Each page is copied merged into one
 *	  base image (IplCopyPage, as ALTER TABLE ... SET TABLESPACE does), in
 *	  WAL too in WAL mode.  The visibility-map forks travel with the
 *	  relation files.  CREATE DATABASE's copy of a map goes to WAL as page
 *	  images (its wal_log strategy), which redo after a crash or a standby
 *	  would take back after changes that cleared bits without WAL; so the
 *	  new database's maps are emptied, through WAL (NvmVismapEmptyCopiedFork),
 *	  and its index-only scans visit the table until VACUUM sets bits again.
 *	  movedb() checkpoints after it copies the files, so a moved map is kept
 *	  and looked at (NvmVismapStorageCopied).
 *
 * Locks: createdb() holds ShareLock on the template database until the
 * commit and found no session in it; a session cannot connect to it while
 * that lock is held, so its storage does not change during the copy.
 * Before a move this file takes what movedb() takes, AccessExclusiveLock
 * on the database, and refuses with movedb()'s error when another session
 * is connected to it, as movedb() would.  The directory lock is taken by
 * the functions called.
 *
 * On-pool layout: none of its own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_database.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/tablespace.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/syscache.h"

#include "nvm_am.h"

/* The storage of one relation of the source database */
typedef struct NvmDatabaseRel
{
	int			dirIndex;
	RelFileNode node;
	bool		unlogged;
} NvmDatabaseRel;

/*
 * NvmDatabaseRelations - the directory entries of database dbid's
 * relations, temporary ones left out (CREATE DATABASE does not copy them
 * either); *n is set to their number.  Flags that a finished prepared
 * transaction left are settled first; the callers made sure that no
 * session works in the database, so no other flags can be there.
 */
static NvmDatabaseRel *
NvmDatabaseRelations(Oid dbid, int *n)
{
	int			size = NvmPoolDirSize();
	NvmDatabaseRel *rels = palloc(sizeof(NvmDatabaseRel) * Max(size, 1));

	NvmRecoveryEnsureReady();
	*n = 0;
	LWLockAcquire(NvmPoolDirLock(), LW_EXCLUSIVE);
	for (int i = 0; i < size; i++)
	{
		RelFileNode node;
		uint64		state;

		if (!NvmPoolRelGetKey(i, &node, &state) || node.dbNode != dbid ||
			!(state & NVM_REL_USED))
			continue;
		if (state & (NVM_REL_CREATING | NVM_REL_DROPPING))
		{
			NvmRecoverySettle(i);
			if (!NvmPoolRelGetKey(i, &node, &state) || node.dbNode != dbid ||
				!(state & NVM_REL_USED))
				continue;
			if (state & (NVM_REL_CREATING | NVM_REL_DROPPING))
				elog(ERROR, "nvm_am storage of relation %u/%u/%u is being created or dropped by transaction %u",
					 node.spcNode, node.dbNode, node.relNode,
					 NVM_REL_STATE_XID(state));
		}
		if (state & NVM_REL_TEMP)
			continue;
		rels[*n].dirIndex = i;
		rels[*n].node = node;
		rels[*n].unlogged = (state & NVM_REL_UNLOGGED) != 0;
		(*n)++;
	}
	LWLockRelease(NvmPoolDirLock());
	return rels;
}

/*
 * NvmDatabaseCopyStorage - copy the pool storage of rels[0..n), the
 * relations of a database (NvmDatabaseRelations), to database dstDb, a
 * relation in srcSpc (the source's default tablespace) to dstSpc, one in
 * another tablespace to the same; with move (dstDb is the source), only
 * those in srcSpc, and drop the source's storage at commit.  Caller holds
 * what keeps every session out of the source database (see the file
 * header) and is in the transaction that changes pg_database.
 */
static void
NvmDatabaseCopyStorage(const NvmDatabaseRel *rels, int n, Oid srcSpc,
					   Oid dstDb, Oid dstSpc, bool move)
{
	for (int i = 0; i < n; i++)
	{
		RelFileNode dst = rels[i].node;
		BlockNumber nblocks = NvmPoolRelNBlocks(rels[i].dirIndex);
		int			dstIndex;

		Assert(move == (dst.dbNode == dstDb));
		if (dst.spcNode == srcSpc)
			dst.spcNode = dstSpc;
		else if (move)
			continue;
		dst.dbNode = dstDb;
		dstIndex = NvmAmStorageCreate(&dst, rels[i].unlogged ?
									  RELPERSISTENCE_UNLOGGED : RELPERSISTENCE_PERMANENT);
		if (move)
			NvmVismapStorageCopied(dstIndex);	/* movedb() copies the map */
		else
			NvmVismapEmptyCopiedFork(&dst, !rels[i].unlogged);
		for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
		{
			CHECK_FOR_INTERRUPTS();
			IplCopyPage(rels[i].dirIndex, dstIndex, blkno);
		}
		if (move)
			NvmStorageScheduleDrop(&rels[i].node);
	}
}

/* NvmDatabaseTablespace - the default tablespace of database dbid */
static Oid
NvmDatabaseTablespace(Oid dbid)
{
	HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(dbid));
	Oid			spc;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for database %u", dbid);
	spc = ((Form_pg_database) GETSTRUCT(tup))->dattablespace;
	ReleaseSysCache(tup);
	return spc;
}

/* NvmDatabaseOption - the string of option name of a statement, or NULL */
static const char *
NvmDatabaseOption(List *options, const char *name)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);

		if (strcmp(def->defname, name) == 0 && def->arg != NULL)
			return defGetString(def);
	}
	return NULL;
}

/*
 * NvmDatabaseAfterCreate - createdb() has made database stmt->dbname from
 * its template and not committed yet: copy the template's nvm_am storage.
 * Called by the utility hook (nvm_am.c).
 */
void
NvmDatabaseAfterCreate(CreatedbStmt *stmt)
{
	const char *template = NvmDatabaseOption(stmt->options, "template");
	Oid			srcDb;
	Oid			dstDb;
	int			n;
	NvmDatabaseRel *rels;

	if (!NvmPoolIsMapped())
		return;
	CommandCounterIncrement();	/* see the new pg_database row */
	srcDb = get_database_oid(template ? template : "template1", false);
	dstDb = get_database_oid(stmt->dbname, false);
	rels = NvmDatabaseRelations(srcDb, &n);
	NvmDatabaseCopyStorage(rels, n, NvmDatabaseTablespace(srcDb),
						   dstDb, NvmDatabaseTablespace(dstDb), false);
	pfree(rels);
}

/*
 * NvmDatabaseBeforeMove - ALTER DATABASE stmt->dbname SET TABLESPACE
 * tablespace is about to run (movedb()): move the database's nvm_am
 * storage in its default tablespace to keys of the new one.  Where
 * movedb() refuses for reasons it finds before it takes the database's
 * lock (no such database or tablespace, the current database, no
 * privilege), nothing is done here and movedb() says why.  Under the lock,
 * the two refusals that depend on who else works in the database are
 * raised here, with movedb()'s words: a move it made without the copy
 * would leave the tables without their pages.
 */
static void
NvmDatabaseBeforeMove(AlterDatabaseStmt *stmt, const char *tablespace)
{
	Oid			dbid = get_database_oid(stmt->dbname, true);
	Oid			newSpc = get_tablespace_oid(tablespace, true);
	Oid			oldSpc;
	int			others;
	int			prepared;
	int			n;
	NvmDatabaseRel *rels;

	if (!OidIsValid(dbid) || !OidIsValid(newSpc) || dbid == MyDatabaseId ||
		newSpc == GLOBALTABLESPACE_OID ||
		!pg_database_ownercheck(dbid, GetUserId()) ||
		pg_tablespace_aclcheck(newSpc, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		return;
	oldSpc = NvmDatabaseTablespace(dbid);
	if (oldSpc == newSpc)
		return;

	/* movedb() takes this lock too: no session can connect from here on */
	LockSharedObject(DatabaseRelationId, dbid, 0, AccessExclusiveLock);
	if (CountOtherDBBackends(dbid, &others, &prepared))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("database \"%s\" is being accessed by other users",
						stmt->dbname),
				 errdetail("There are %d other session(s) and %d prepared transaction(s) using the database.",
						   others, prepared)));

	rels = NvmDatabaseRelations(dbid, &n);
	for (int i = 0; i < n; i++)
		if (rels[i].node.spcNode == newSpc)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("some relations of database \"%s\" are already in tablespace \"%s\"",
							stmt->dbname, tablespace),
					 errhint("You must move them back to the database's default tablespace before using this command.")));
	NvmDatabaseCopyStorage(rels, n, oldSpc, dbid, newSpc, true);
	pfree(rels);
}

/*
 * NvmDatabaseBeforeAlter - ALTER DATABASE stmt is about to run: when it
 * sets a tablespace, move the nvm_am storage first (NvmDatabaseBeforeMove).
 * Called by the utility hook (nvm_am.c).
 */
void
NvmDatabaseBeforeAlter(AlterDatabaseStmt *stmt)
{
	const char *tablespace = NvmDatabaseOption(stmt->options, "tablespace");

	if (tablespace != NULL && NvmPoolIsMapped())
		NvmDatabaseBeforeMove(stmt, tablespace);
}
