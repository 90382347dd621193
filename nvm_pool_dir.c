/*-------------------------------------------------------------------------
 *
 * nvm_pool_dir.c
 *	  The relation directory and the page tables of the pool: finding,
 *	  creating, flagging and freeing a relation's directory entry, and
 *	  mapping its blocks to frames.
 *
 *	  A relation's page table has two levels: the directory entry names a
 *	  root frame holding NVM_PT_FANOUT frame numbers of leaf frames, each
 *	  leaf holds NVM_PT_FANOUT frame numbers of data pages; 0 means "none".
 *	  Every change is one aligned 8-byte store, persisted (NvmPoolPublish64),
 *	  so every change is crash-atomic (see nvm_pool.c: a frame is in use if
 *	  and only if a used entry reaches it).
 *
 * Locks: the directory lock (NvmPoolDirLock), exclusive to create, free or
 * change an entry's state, shared to look one up; a relation's extension
 * lock (heavyweight, taken by the caller) to add blocks; the page's lock,
 * exclusive, to swap the frame of a block.
 *
 * On-pool layout owned here: the directory entries (NvmDirEntry, 64 bytes
 * each, from the header's dir_offset) and the page-table frames.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/lwlock.h"

#include "nvm_pool_internal.h"

static void NvmPoolPageTableCorrupt(NvmDirEntry *e, BlockNumber blkno) pg_attribute_noreturn();

int
NvmPoolDirSize(void)
{
	return (int) pool_header->dir_entries;
}

static inline bool
NvmPoolEntryMatches(NvmDirEntry *e, const RelFileNode *node)
{
	return (e->state & NVM_REL_USED) &&
		e->relNode == node->relNode &&
		e->dbNode == node->dbNode &&
		e->spcNode == node->spcNode;
}

/*
 * NvmPoolRelLookup - directory index of a relation's storage, or -1.
 * Takes the directory lock shared.
 */
int
NvmPoolRelLookup(const RelFileNode *node)
{
	int			result = -1;

	LWLockAcquire(NvmPoolDirLock(), LW_SHARED);
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		if (NvmPoolEntryMatches(&pool_dir[i], node))
		{
			result = i;
			break;
		}
	}
	LWLockRelease(NvmPoolDirLock());
	return result;
}

/*
 * NvmPoolRelGetKey - read an entry's key and state; false if it is free.
 * Caller holds the directory lock.
 */
bool
NvmPoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state)
{
	NvmDirEntry *e = &pool_dir[dirIndex];

	*state = e->state;
	if (!(e->state & NVM_REL_USED))
		return false;
	node->spcNode = e->spcNode;
	node->dbNode = e->dbNode;
	node->relNode = e->relNode;
	return true;
}

/*
 * NvmPoolRelCreate - allocate a directory entry for new, empty storage, marked
 * as being created by xid.  Caller holds the directory lock exclusively.
 */
int
NvmPoolRelCreate(const RelFileNode *node, TransactionId xid)
{
	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		if (NvmPoolEntryMatches(&pool_dir[i], node))
			elog(ERROR, "nvm_am storage for relation %u/%u/%u exists already",
				 node->spcNode, node->dbNode, node->relNode);
	}
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
	{
		NvmDirEntry *e = &pool_dir[i];

		if (e->state != 0)
			continue;
		e->spcNode = node->spcNode;
		e->dbNode = node->dbNode;
		e->relNode = node->relNode;
		e->pad = 0;
		e->root = 0;
		e->nblocks = 0;
		memset(e->reserved, 0, sizeof(e->reserved));
		NvmPoolFlush(e, sizeof(*e));
		NvmPoolPublish64(&e->state, NVM_REL_USED | NVM_REL_CREATING | xid);
		NvmPoolCountAdd(NVM_STAT_RELS_CREATED, 1);
		return i;
	}
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("nvm_am relation directory is full"),
			 errdetail("The pool holds at most %llu nvm_am relations.",
					   (unsigned long long) pool_header->dir_entries),
			 errhint("Drop unused nvm_am tables, or create the cluster's pool with a larger nvm_am.pool_size.")));
	return -1;					/* keep compiler quiet */
}

uint64
NvmPoolRelGetState(int dirIndex)
{
	return pool_dir[dirIndex].state;
}

/*
 * NvmPoolRelSetState - publish a new state word.  Caller holds the directory
 * lock exclusively.
 */
void
NvmPoolRelSetState(int dirIndex, uint64 state)
{
	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	Assert(state & NVM_REL_USED);
	NvmPoolPublish64(&pool_dir[dirIndex].state, state);
}

/*
 * NvmPoolCollectFrames - list every frame reachable from a page table.
 */
static uint64 *
NvmPoolCollectFrames(NvmDirEntry *e, uint64 root, uint64 nblocks, int *n)
{
	int			cap = 64;
	uint64	   *frames = palloc(cap * sizeof(uint64));
	uint64	   *rootarr;

	*n = 0;
	if (root == 0 || !NvmPoolFrameValid(root))
		return frames;
	frames[(*n)++] = root;
	rootarr = (uint64 *) NvmPoolFrameAddr(root);
	for (uint64 l = 0; l < NVM_PT_FANOUT; l++)
	{
		uint64	   *leaf;

		if (rootarr[l] == 0 || !NvmPoolFrameValid(rootarr[l]))
			continue;
		if (*n + (int) NVM_PT_FANOUT + 1 > cap)
		{
			cap = cap * 2 + NVM_PT_FANOUT + 1;
			frames = repalloc(frames, cap * sizeof(uint64));
		}
		frames[(*n)++] = rootarr[l];
		leaf = (uint64 *) NvmPoolFrameAddr(rootarr[l]);
		for (uint64 k = 0; k < NVM_PT_FANOUT; k++)
			if (leaf[k] != 0)
				frames[(*n)++] = leaf[k];
	}
	return frames;
}

/*
 * NvmPoolRelFree - free an entry and all its frames.  The state word is
 * published first; from then on nothing in the pool reaches the frames.
 * Caller holds the directory lock exclusively and makes sure no backend
 * uses the relation.
 */
void
NvmPoolRelFree(int dirIndex)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *frames;
	int			n;

	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	frames = NvmPoolCollectFrames(e, e->root, e->nblocks, &n);
	NvmPoolPublish64(&e->state, 0);
	NvmPoolFreeFrames(frames, n);
	pfree(frames);
	NvmPoolCountAdd(NVM_STAT_RELS_DROPPED, 1);
}

/*
 * NvmPoolRelTruncate - cut a relation down to its first nblocks blocks
 * (0: drop them all, as a nontransactional TRUNCATE does; more: VACUUM
 * giving back empty pages at the end).  nblocks is published first: a
 * crash after it leaves page-table entries beyond nblocks, which the
 * rebuild of the allocation state clears.  The frames of the blocks cut
 * are freed once no backend has them pinned.  Caller holds
 * AccessExclusiveLock on the relation.
 */
void
NvmPoolRelTruncate(int dirIndex, BlockNumber nblocks)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64		root = e->root;
	uint64		old = e->nblocks;
	uint64	   *rootarr;
	uint64	   *frames;
	int			n;

	if (nblocks >= old)
		return;
	if (nblocks == 0)
	{
		frames = NvmPoolCollectFrames(e, root, old, &n);
		NvmPoolPublish64(&e->nblocks, 0);
		NvmPoolPublish64(&e->root, 0);
		NvmPoolFreeFrames(frames, n);
		pfree(frames);
		return;
	}
	NvmPoolPublish64(&e->nblocks, nblocks);
	rootarr = (uint64 *) NvmPoolFrameAddr(root);
	for (uint64 blk = nblocks; blk < old; blk++)
	{
		uint64		l = blk / NVM_PT_FANOUT;
		uint64	   *leaf;
		uint64		frame;

		if (!NvmPoolFrameValid(rootarr[l]))
			NvmPoolPageTableCorrupt(e, (BlockNumber) blk);
		leaf = (uint64 *) NvmPoolFrameAddr(rootarr[l]);
		frame = leaf[blk % NVM_PT_FANOUT];
		if (frame != 0)
		{
			NvmPoolPublish64(&leaf[blk % NVM_PT_FANOUT], 0);
			if (NvmPoolFrameValid(frame))
				NvmPoolRetireFrame(frame);
		}
		/* a leaf that no block below nblocks uses goes too */
		if ((blk + 1) % NVM_PT_FANOUT == 0 || blk + 1 == old)
		{
			if (l * NVM_PT_FANOUT >= nblocks)
			{
				uint64		leafframe = rootarr[l];

				NvmPoolPublish64(&rootarr[l], 0);
				NvmPoolFreeFrames(&leafframe, 1);
			}
		}
	}
}

BlockNumber
NvmPoolRelNBlocks(int dirIndex)
{
	return (BlockNumber) pool_dir[dirIndex].nblocks;
}


static void
NvmPoolPageTableCorrupt(NvmDirEntry *e, BlockNumber blkno)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am page table of relation %u is corrupt at block %u",
					e->relNode, blkno),
			 errdetail("A page-table entry points outside pool file \"%s\".",
					   pool_resolved_path)));
}

/*
 * NvmPoolRelLeafEntry - the page-table entry of block blkno, which must be
 * below nblocks, after checking that the path to it stays in the pool.
 * The caller holds a lock on the relation.
 */
static uint64 *
NvmPoolRelLeafEntry(int dirIndex, BlockNumber blkno)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64		root = e->root;
	uint64		leaf;

	if (blkno >= e->nblocks)
		elog(ERROR, "block %u is beyond the end of nvm_am relation %u (%llu blocks)",
			 blkno, e->relNode, (unsigned long long) e->nblocks);
	if (!NvmPoolFrameValid(root))
		NvmPoolPageTableCorrupt(e, blkno);
	leaf = ((uint64 *) NvmPoolFrameAddr(root))[blkno / NVM_PT_FANOUT];
	if (!NvmPoolFrameValid(leaf))
		NvmPoolPageTableCorrupt(e, blkno);
	return &((uint64 *) NvmPoolFrameAddr(leaf))[blkno % NVM_PT_FANOUT];
}

static uint64
NvmPoolNewTableFrame(void)
{
	uint64		f = NvmPoolAllocFrame();
	char	   *p = NvmPoolFrameAddr(f);

	memset(p, 0, NVM_FRAME_SIZE);
	NvmPoolFlush(p, NVM_FRAME_SIZE);
	return f;
}

/*
 * NvmPoolRelMapNewBlock - publish an initialised, persisted frame as block
 * blkno, which must be the relation's current nblocks.  Caller holds the
 * relation's extension lock.
 */
void
NvmPoolRelEnsurePath(int dirIndex, BlockNumber blkno)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *root;

	if ((uint64) blkno >= NVM_MAX_REL_BLOCKS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("nvm_am relation %u cannot grow beyond %llu blocks",
						e->relNode, (unsigned long long) NVM_MAX_REL_BLOCKS)));
	if (e->root == 0)
	{
		uint64		r = NvmPoolNewTableFrame();

		NvmPoolDrain();
		NvmPoolPublish64(&e->root, r);
	}
	root = (uint64 *) NvmPoolFrameAddr(e->root);
	if (root[blkno / NVM_PT_FANOUT] == 0)
	{
		uint64		l = NvmPoolNewTableFrame();

		NvmPoolDrain();
		NvmPoolPublish64(&root[blkno / NVM_PT_FANOUT], l);
	}
}

/*
 * NvmPoolRelMapNewBlock - publish an initialised, persisted frame as block
 * blkno, which must be the relation's current nblocks.  Caller holds the
 * relation's extension lock and called NvmPoolRelEnsurePath for blkno.
 */
void
NvmPoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64	   *root;
	uint64	   *leaf;

	if (blkno != e->nblocks)
		elog(ERROR, "nvm_am extension of relation %u at block %u, expected %llu",
			 e->relNode, blkno, (unsigned long long) e->nblocks);
	NvmPoolRelEnsurePath(dirIndex, blkno);
	root = (uint64 *) NvmPoolFrameAddr(e->root);
	leaf = (uint64 *) NvmPoolFrameAddr(root[blkno / NVM_PT_FANOUT]);
	NvmPoolPublish64(&leaf[blkno % NVM_PT_FANOUT], frame);
	NvmPoolPublish64(&e->nblocks, (uint64) blkno + 1);
	NvmPoolCountAdd(NVM_STAT_PAGES_EXTENDED, 1);
}

/* ----------------------------------------------------------------
 * Frame pins and retirement
 *
 * A backend that keeps a pointer into a page frame after releasing the
 * page lock (a scan's current page, a tuple returned by an index fetch)
 * pins the frame while it holds the page lock.  A page that is rewritten
 * (copy-on-write) gets a new frame; the old one is retired and freed once
 * its last pin is gone.  Since pins are taken under the page lock and
 * frames are swapped under the page lock held exclusively, no pin can be
 * taken on a frame after it was retired.
 * ----------------------------------------------------------------
 */

/*
 * NvmPoolRelGetFrame - frame number of a block.  Caller holds the page lock.
 */
uint64
NvmPoolRelGetFrame(int dirIndex, BlockNumber blkno)
{
	uint64		frame = *NvmPoolRelLeafEntry(dirIndex, blkno);

	if (!NvmPoolFrameValid(frame))
		NvmPoolPageTableCorrupt(&pool_dir[dirIndex], blkno);
	return frame;
}

/*
 * NvmPoolRelSwapFrame - make block blkno live in newframe (initialised and
 * persisted by the caller); returns the old frame, which the caller
 * retires.  Caller holds the page lock exclusively.
 */
uint64
NvmPoolRelSwapFrame(int dirIndex, BlockNumber blkno, uint64 newframe)
{
	uint64	   *entry = NvmPoolRelLeafEntry(dirIndex, blkno);
	uint64		old = *entry;

	NvmPoolPublish64(entry, newframe);
	return old;
}
