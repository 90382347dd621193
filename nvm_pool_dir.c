/*-------------------------------------------------------------------------
 *
 * nvm_pool_dir.c
 *	  The relation directory and the page tables of the pool: finding,
 *	  creating, flagging and freeing a relation's directory entry, and
 *	  mapping its blocks to frames.
 *
 *	  A relation's page table is a radix tree of frames of NVM_PT_FANOUT
 *	  frame numbers each (0 means "none"): the directory entry's root word
 *	  names the root frame and the number of levels, two (leaves name data
 *	  pages, the root names leaves: 8 GB) until the relation outgrows them,
 *	  then three (8 TB, more than a pool holds).
 *	  Every change is one aligned 8-byte store, persisted (NvmPoolPublish64),
 *	  so every change is crash-atomic (see nvm_pool.c: a frame is in use if
 *	  and only if a used entry reaches it).  The words of an entry carry
 *	  checks (NvmDirEntry): an entry that fails them at start is marked
 *	  damaged, and nothing acts on it -- its relation cannot be read or
 *	  changed (an ERROR naming it), nothing of it is reclaimed, and dropping
 *	  it only frees the entry (its frames come back at the next start).
 *
 * Locks: the directory lock (NvmPoolDirLock), exclusive to create, free,
 * truncate or change an entry's state, shared to look one up (and by a
 * backend sealing a page of a relation it has not locked); a relation's extension
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
static void NvmPoolDirDamaged(NvmDirEntry *e) pg_attribute_noreturn();

int
NvmPoolDirSize(void)
{
	return (int) pool_header->dir_entries;
}

/* a 64-bit mixer (MurmurHash3's finaliser) */
static inline uint64
NvmPoolDirMix(uint64 x)
{
	x ^= x >> 33;
	x *= UINT64CONST(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64CONST(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return x;
}

/* the hash of an entry's key and place, which every check includes */
static inline uint64
NvmPoolDirKeyHash(NvmDirEntry *e)
{
	uint64		idx = (uint64) (e - pool_dir);

	return NvmPoolDirMix((((uint64) e->spcNode << 32) | e->dbNode) ^
						 NvmPoolDirMix(((uint64) e->relNode << 24) ^ idx));
}

/*
 * NvmPoolDirKeyCheck - the check of entry e's key and index (never 0, so a
 * zeroed key fails it).
 */
uint32
NvmPoolDirKeyCheck(NvmDirEntry *e)
{
	uint32		c = (uint32) (NvmPoolDirKeyHash(e) >> 32);

	return c == 0 ? 1 : c;
}

/*
 * NvmPoolDirEncode - word w of entry e holding value (below 2^48), with its
 * check in the top 16 bits.  e's key must be written.
 */
uint64
NvmPoolDirEncode(NvmDirEntry *e, NvmDirWord w, uint64 value)
{
	uint64		h = NvmPoolDirMix(value ^ ((uint64) (w + 1) << 56) ^ NvmPoolDirKeyHash(e));

	Assert((value & ~NVM_DIR_VALUE_MASK) == 0);
	return value | (h & ~NVM_DIR_VALUE_MASK);
}

/*
 * NvmPoolDirCheckEntry - NULL when the entry e, not free, passes its checks;
 * else what of it is damaged.
 */
const char *
NvmPoolDirCheckEntry(NvmDirEntry *e)
{
	uint64		state = NvmPoolDirValue(e->state);
	uint64		root;
	int			levels;

	if (e->keycheck != NvmPoolDirKeyCheck(e))
		return "its key (the relation it belongs to)";
	if (e->state != NvmPoolDirEncode(e, NVM_DIR_STATE, state) ||
		!(state & NVM_REL_USED) ||
		(state & ~(NVM_REL_USED | NVM_REL_CREATING | NVM_REL_DROPPING |
				   NVM_REL_KEPT_FLAGS | UINT64CONST(0xFFFFFFFF))) != 0)
		return "its state word";
	root = NvmPoolPtRoot(e, &levels);
	if (e->root != NvmPoolDirEncode(e, NVM_DIR_ROOT, NvmPoolDirValue(e->root)) ||
		levels > NVM_PT_MAX_LEVELS ||
		(root != 0 && !NvmPoolFrameValid(root)) ||
		(root == 0 && levels != 2))
		return "its page-table root";
	if (e->nblocks != NvmPoolDirEncode(e, NVM_DIR_NBLOCKS, NvmPoolDirValue(e->nblocks)) ||
		NvmPoolDirValue(e->nblocks) > NVM_PT_CAPACITY(levels))
		return "its block count";
	return NULL;
}

/* publish value as word w of entry e */
static inline void
NvmPoolDirPut(NvmDirEntry *e, NvmDirWord w, uint64 value)
{
	uint64	   *word = w == NVM_DIR_STATE ? &e->state :
		w == NVM_DIR_ROOT ? &e->root : &e->nblocks;

	NvmPoolPublish64(word, NvmPoolDirEncode(e, w, value));
}

/*
 * NvmPoolDirDamaged - ERROR for an entry the start found damaged.
 */
static void
NvmPoolDirDamaged(NvmDirEntry *e)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am pool directory entry %d of relation %u/%u/%u is damaged",
					(int) (e - pool_dir), e->spcNode, e->dbNode, e->relNode),
			 errdetail("The entry failed its checks when the server started; nvm_am does not read, change or reclaim anything through it."),
			 errhint("Drop the table (its space comes back at the next start), or restore the pool file \"%s\" from a backup.",
					 pool_resolved_path)));
}

/*
 * NvmPoolRelIsDamaged - did the start find entry dirIndex damaged?
 */
bool
NvmPoolRelIsDamaged(int dirIndex)
{
	return pool_dir_damaged != NULL && pool_dir_damaged[dirIndex];
}

/* entry dirIndex, which must not be damaged */
static inline NvmDirEntry *
NvmPoolDirEntryOk(int dirIndex)
{
	NvmDirEntry *e = &pool_dir[dirIndex];

	if (unlikely(NvmPoolRelIsDamaged(dirIndex)))
		NvmPoolDirDamaged(e);
	return e;
}

static inline bool
NvmPoolEntryMatches(NvmDirEntry *e, const RelFileNode *node)
{
	return e->state != 0 &&
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
 * A damaged entry reads as used and settled (no CREATING or DROPPING flag
 * for anyone to act on).  Caller holds the directory lock.
 */
bool
NvmPoolRelGetKey(int dirIndex, RelFileNode *node, uint64 *state)
{
	NvmDirEntry *e = &pool_dir[dirIndex];

	*state = NvmPoolRelGetState(dirIndex);
	if (!(*state & NVM_REL_USED))
		return false;
	node->spcNode = e->spcNode;
	node->dbNode = e->dbNode;
	node->relNode = e->relNode;
	return true;
}

/*
 * NvmPoolEntryInit - make entry i hold new, empty storage of node with
 * state word state.
 */
static void
NvmPoolEntryInit(int i, const RelFileNode *node, uint64 state)
{
	NvmDirEntry *e = &pool_dir[i];

	e->spcNode = node->spcNode;
	e->dbNode = node->dbNode;
	e->relNode = node->relNode;
	e->keycheck = NvmPoolDirKeyCheck(e);
	e->root = NvmPoolDirEncode(e, NVM_DIR_ROOT, 0);
	e->nblocks = NvmPoolDirEncode(e, NVM_DIR_NBLOCKS, 0);
	memset(e->reserved, 0, sizeof(e->reserved));
	NvmPoolFlush(e, sizeof(*e));
	pool_dir_damaged[i] = false;
	NvmPoolDirPut(e, NVM_DIR_STATE, state);
	NvmPoolCountAdd(NVM_STAT_RELS_CREATED, 1);
}

/*
 * NvmPoolRelCreate - allocate a directory entry for new, empty storage, marked
 * as being created by xid, with flags (NVM_REL_KEPT_FLAGS) for its life.
 * Caller holds the directory lock exclusively.
 */
int
NvmPoolRelCreate(const RelFileNode *node, TransactionId xid, uint64 flags)
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
		if (pool_dir[i].state != 0)
			continue;
		NvmPoolEntryInit(i, node, NVM_REL_USED | NVM_REL_CREATING | flags | xid);
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
	uint64		word = pool_dir[dirIndex].state;

	if (word == 0)
		return 0;
	if (NvmPoolRelIsDamaged(dirIndex))
		return NVM_REL_USED;
	return NvmPoolDirValue(word);
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
	NvmPoolDirPut(&pool_dir[dirIndex], NVM_DIR_STATE, state);
}

/*
 * NvmPoolPtFree - free page-table frame frame of level level (1: a leaf,
 * whose entries name data frames) and every frame below it.  Children go
 * first, a leaf's data frames in one batch: a frame is read only before it
 * is freed, so the walk may run after the table became unreachable.
 * Caller holds what NvmPoolRelFree's caller holds.
 */
static void
NvmPoolPtFree(uint64 frame, int level)
{
	uint64	   *arr = (uint64 *) NvmPoolFrameAddr(frame);
	uint64		data[NVM_PT_FANOUT];
	int			n = 0;

	for (uint64 i = 0; i < NVM_PT_FANOUT; i++)
	{
		uint64		child = arr[i];

		if (child == 0 || !NvmPoolFrameValid(child))
			continue;
		if (level == 1)
			data[n++] = child;
		else
			NvmPoolPtFree(child, level - 1);
	}
	if (n > 0)
		NvmPoolFreeFrames(data, n);
	NvmPoolFreeFrames(&frame, 1);
}

/*
 * NvmPoolRelFree - free an entry and all its frames.  The state word is
 * published first; from then on nothing in the pool reaches the frames.
 * Caller holds the directory lock exclusively and makes sure no backend
 * uses the relation.  Of a damaged entry only the entry is freed.
 */
void
NvmPoolRelFree(int dirIndex)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	uint64		root;
	int			levels;

	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	if (NvmPoolRelIsDamaged(dirIndex))
	{
		/* what its words say cannot be trusted: free the entry alone */
		NvmPoolPublish64(&e->state, 0);
		pool_dir_damaged[dirIndex] = false;
		NvmPoolCountAdd(NVM_STAT_RELS_DROPPED, 1);
		return;
	}
	root = NvmPoolPtRoot(e, &levels);
	NvmPoolPublish64(&e->state, 0);
	if (root != 0)
		NvmPoolPtFree(root, levels);
	NvmPoolCountAdd(NVM_STAT_RELS_DROPPED, 1);
}

/*
 * NvmPoolRelCreateAt - WAL redo of a creation: entry dirIndex holds new,
 * empty storage of node with state word state.  What the entry held
 * before, and any other entry of node, is freed (before the replayed pool
 * is consistent its frames are kept: NvmPoolSetKeepFrames).  Caller holds
 * the directory lock exclusively.
 */
void
NvmPoolRelCreateAt(int dirIndex, const RelFileNode *node, uint64 state)
{
	Assert(LWLockHeldByMeInMode(NvmPoolDirLock(), LW_EXCLUSIVE));
	if (dirIndex < 0 || dirIndex >= (int) pool_header->dir_entries)
		elog(PANIC, "nvm_am WAL record names directory entry %d of %llu",
			 dirIndex, (unsigned long long) pool_header->dir_entries);
	for (int i = 0; i < (int) pool_header->dir_entries; i++)
		if (pool_dir[i].state != 0 &&
			(i == dirIndex || NvmPoolEntryMatches(&pool_dir[i], node)))
			NvmPoolRelFree(i);
	NvmPoolEntryInit(dirIndex, node, state);
}

/*
 * NvmPoolPtCut - empty what page-table frame frame of level level (1: a
 * leaf) maps at blocks from nblocks up to old; first is the first block it
 * maps.  The data frames go through retirement (a reader may still have
 * them pinned); a page-table frame that maps no block below nblocks any
 * more is unlinked and freed after its children.  Caller holds what
 * NvmPoolRelTruncate's caller holds.
 */
static void
NvmPoolPtCut(NvmDirEntry *e, uint64 frame, int level, uint64 first,
			 uint64 nblocks, uint64 old)
{
	uint64	   *arr = (uint64 *) NvmPoolFrameAddr(frame);
	uint64		span = NVM_PT_CAPACITY(level - 1);	/* blocks per entry */

	for (uint64 i = nblocks > first ? (nblocks - first) / span : 0;
		 i < NVM_PT_FANOUT && first + i * span < old; i++)
	{
		uint64		child = arr[i];
		uint64		childFirst = first + i * span;

		if (child == 0)
			continue;
		if (!NvmPoolFrameValid(child) && level > 1)
			NvmPoolPageTableCorrupt(e, (BlockNumber) Max(childFirst, nblocks));
		if (level > 1)
			NvmPoolPtCut(e, child, level - 1, childFirst, nblocks, old);
		if (childFirst < nblocks)
			continue;			/* maps blocks that stay */
		NvmPoolPublish64(&arr[i], 0);
		if (level > 1)
			NvmPoolFreeFrames(&child, 1);
		else if (NvmPoolFrameValid(child))
			NvmPoolRetireFrame(child);
	}
}

/*
 * NvmPoolRelTruncate - cut a relation down to its first nblocks blocks
 * (0: drop them all, as a nontransactional TRUNCATE does; more: VACUUM
 * giving back empty pages at the end).  nblocks is published first: a
 * crash after it leaves page-table entries beyond nblocks, which the
 * rebuild of the allocation state clears.  The frames of the blocks cut
 * are freed once no backend has them pinned.  Caller holds
 * AccessExclusiveLock on the relation and the directory lock exclusively
 * (a backend taking a log frame back walks the page tables of relations it
 * has not locked: IplStealLogFrame), or runs alone (the start).
 */
void
NvmPoolRelTruncate(int dirIndex, BlockNumber nblocks)
{
	NvmDirEntry *e = NvmPoolDirEntryOk(dirIndex);
	uint64		old = NvmPoolDirValue(e->nblocks);
	int			levels;
	uint64		root = NvmPoolPtRoot(e, &levels);

	if (nblocks >= old)
		return;
	if (nblocks == 0)
	{
		NvmPoolDirPut(e, NVM_DIR_NBLOCKS, 0);
		NvmPoolDirPut(e, NVM_DIR_ROOT, 0);
		if (root != 0)
			NvmPoolPtFree(root, levels);
		return;
	}
	NvmPoolDirPut(e, NVM_DIR_NBLOCKS, nblocks);
	if (!NvmPoolFrameValid(root))
		NvmPoolPageTableCorrupt(e, nblocks);
	NvmPoolPtCut(e, root, levels, 0, nblocks, old);
}

BlockNumber
NvmPoolRelNBlocks(int dirIndex)
{
	return (BlockNumber) NvmPoolDirValue(NvmPoolDirEntryOk(dirIndex)->nblocks);
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
 * NvmPoolPtEntry - the page-table entry of block blkno in the page table
 * under root (levels levels), after checking that the path to it stays in
 * the pool.
 */
static inline uint64 *
NvmPoolPtEntry(NvmDirEntry *e, uint64 root, int levels, BlockNumber blkno)
{
	uint64		frame = root;

	for (int shift = NVM_PT_BITS * (levels - 1); shift > 0; shift -= NVM_PT_BITS)
	{
		if (!NvmPoolFrameValid(frame))
			NvmPoolPageTableCorrupt(e, blkno);
		frame = ((uint64 *) NvmPoolFrameAddr(frame))[(blkno >> shift) & (NVM_PT_FANOUT - 1)];
	}
	if (!NvmPoolFrameValid(frame))
		NvmPoolPageTableCorrupt(e, blkno);
	return &((uint64 *) NvmPoolFrameAddr(frame))[blkno & (NVM_PT_FANOUT - 1)];
}

/*
 * NvmPoolRelLeafEntry - the page-table entry of block blkno, which must be
 * below nblocks.  nblocks is read before the root: a block below it was
 * mapped after the root that maps it was published (NvmPoolRelEnsurePath).
 * The caller holds a lock on the relation.
 */
static uint64 *
NvmPoolRelLeafEntry(int dirIndex, BlockNumber blkno)
{
	NvmDirEntry *e = NvmPoolDirEntryOk(dirIndex);
	uint64		nblocks = NvmPoolDirValue(e->nblocks);
	uint64		root;
	int			levels;

	if (blkno >= nblocks)
		elog(ERROR, "block %u is beyond the end of nvm_am relation %u (%llu blocks)",
			 blkno, e->relNode, (unsigned long long) nblocks);
	pg_read_barrier();
	root = NvmPoolPtRoot(e, &levels);
	return NvmPoolPtEntry(e, root, levels, blkno);
}

/*
 * NvmPoolNewTableFrame - a new page-table frame, persisted (not drained),
 * all entries 0 but the first, which is first.
 */
static uint64
NvmPoolNewTableFrame(uint64 first)
{
	uint64		f = NvmPoolAllocFrame(false);	/* page tables have no log */
	char	   *p = NvmPoolFrameAddr(f);

	memset(p, 0, NVM_FRAME_SIZE);
	((uint64 *) p)[0] = first;
	NvmPoolFlush(p, NVM_FRAME_SIZE);
	return f;
}

/*
 * NvmPoolPtPath - make the page-table frames on the path to block blkno of
 * entry e, and return the block's page-table entry.  A table that outgrows
 * its page table gets a level more: a new root whose first entry is the
 * old root, persisted before the entry's root word (frame and levels in
 * one store) swings to it, so a reader or a crash finds the old table or
 * the new one, each mapping every block.  Caller holds the relation's
 * extension lock.
 */
static uint64 *
NvmPoolPtPath(NvmDirEntry *e, BlockNumber blkno)
{
	int			levels;
	uint64		frame = NvmPoolPtRoot(e, &levels);

	if ((uint64) blkno >= NVM_MAX_REL_BLOCKS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("nvm_am relation %u cannot grow beyond %llu blocks",
						e->relNode, (unsigned long long) NVM_MAX_REL_BLOCKS)));
	if (frame == 0)
	{
		frame = NvmPoolNewTableFrame(0);
		NvmPoolDrain();
		NvmPoolDirPut(e, NVM_DIR_ROOT, NvmPoolPtRootValue(frame, levels));
	}
	while ((uint64) blkno >= NVM_PT_CAPACITY(levels))
	{
		frame = NvmPoolNewTableFrame(frame);
		NvmPoolDrain();
		levels++;
		NvmPoolDirPut(e, NVM_DIR_ROOT, NvmPoolPtRootValue(frame, levels));
	}
	for (int shift = NVM_PT_BITS * (levels - 1); shift > 0; shift -= NVM_PT_BITS)
	{
		uint64	   *entry;

		if (!NvmPoolFrameValid(frame))
			NvmPoolPageTableCorrupt(e, blkno);
		entry = &((uint64 *) NvmPoolFrameAddr(frame))[(blkno >> shift) & (NVM_PT_FANOUT - 1)];
		if (*entry == 0)
		{
			uint64		child = NvmPoolNewTableFrame(0);

			NvmPoolDrain();
			NvmPoolPublish64(entry, child);
		}
		frame = *entry;
	}
	if (!NvmPoolFrameValid(frame))
		NvmPoolPageTableCorrupt(e, blkno);
	return &((uint64 *) NvmPoolFrameAddr(frame))[blkno & (NVM_PT_FANOUT - 1)];
}

/*
 * NvmPoolRelEnsurePath - make the page-table frames on the path to block
 * blkno (NvmPoolPtPath), so that a full pool fails before the page is
 * written.  Caller holds the relation's extension lock.
 */
void
NvmPoolRelEnsurePath(int dirIndex, BlockNumber blkno)
{
	(void) NvmPoolPtPath(NvmPoolDirEntryOk(dirIndex), blkno);
}

/*
 * NvmPoolRelMapNewBlock - publish an initialised, persisted frame as block
 * blkno, which must be the relation's current nblocks.  Caller holds the
 * relation's extension lock and called NvmPoolRelEnsurePath for blkno.
 */
void
NvmPoolRelMapNewBlock(int dirIndex, BlockNumber blkno, uint64 frame)
{
	NvmDirEntry *e = NvmPoolDirEntryOk(dirIndex);

	if (blkno != NvmPoolDirValue(e->nblocks))
		elog(ERROR, "nvm_am extension of relation %u at block %u, expected %llu",
			 e->relNode, blkno, (unsigned long long) NvmPoolDirValue(e->nblocks));
	NvmPoolPublish64(NvmPoolPtPath(e, blkno), frame);
	NvmPoolDirPut(e, NVM_DIR_NBLOCKS, (uint64) blkno + 1);
	NvmPoolCountAdd(NVM_STAT_PAGES_EXTENDED, 1);
}

/*
 * NvmPoolPtMark - the rebuild's walk of page-table frame frame of level
 * level (1: a leaf) of entry dirIndex, which maps blocks from first on:
 * mark it and every frame below it in use, and clear the entries of data
 * blocks at or beyond nblocks (an extension a crash interrupted).
 */
static void
NvmPoolPtMark(int dirIndex, uint64 frame, int level, uint64 first,
			  uint64 nblocks)
{
	uint64	   *arr;
	uint64		span = NVM_PT_CAPACITY(level - 1);

	if (!NvmPoolMarkUsed(frame, dirIndex))
		return;
	arr = (uint64 *) NvmPoolFrameAddr(frame);
	for (uint64 i = 0; i < NVM_PT_FANOUT; i++)
	{
		if (arr[i] == 0)
			continue;
		if (level > 1)
			NvmPoolPtMark(dirIndex, arr[i], level - 1, first + i * span, nblocks);
		else if (first + i >= nblocks)
		{
			NvmPoolPublish64(&arr[i], 0);
			NvmPoolCountAdd(NVM_STAT_ORPHANS_RECLAIMED, 1);
		}
		else
			(void) NvmPoolMarkUsed(arr[i], dirIndex);
	}
}

/*
 * NvmPoolRelMarkFrames - at the rebuild of the allocation state (the
 * postmaster, alone): mark every frame entry dirIndex reaches in use.  Of a
 * damaged entry everything its root may reach is kept, and nothing
 * cleared.
 */
void
NvmPoolRelMarkFrames(int dirIndex, bool damaged)
{
	NvmDirEntry *e = &pool_dir[dirIndex];
	int			levels;
	uint64		root = NvmPoolPtRoot(e, &levels);

	if (root == 0)
		return;
	levels = Min(levels, NVM_PT_MAX_LEVELS);
	NvmPoolPtMark(dirIndex, root, levels, 0,
				  damaged ? NVM_MAX_REL_BLOCKS : NvmPoolDirValue(e->nblocks));
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
 * NvmPoolRelPeekFrame - the frame block blkno lives in, for a hint (a
 * prefetch): read without the page lock, so it may be a frame the page is
 * leaving; 0 for a block at or past the end of the relation.  The caller
 * holds a lock on the relation.
 */
uint64
NvmPoolRelPeekFrame(int dirIndex, BlockNumber blkno)
{
	uint64		frame;

	if (blkno >= NvmPoolRelNBlocks(dirIndex))
		return 0;
	frame = *NvmPoolRelLeafEntry(dirIndex, blkno);
	return NvmPoolFrameValid(frame) ? frame : 0;
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
