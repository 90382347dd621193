/*-------------------------------------------------------------------------
 *
 * ipl_cache.c
 *	  The merge cache: page images in shared memory (DRAM), each the base
 *	  page of a frame with the records of the frame's in-page log applied.
 *	  ipl_log.c keeps the image of every page it changes here and applies
 *	  each record to it as it appends the record, so a hot page is merged
 *	  once, when it is first read after a restart, not at every read.
 *
 *	  Nothing here is persistent.  An image can be dropped at any time when
 *	  nobody uses it, because the frame and its log hold everything; after a
 *	  crash the cache starts empty.
 *
 * Layout in shared memory: nvm_am.merge_cache_size / BLCKSZ slots, each an
 * IplSlot (which frame, how much of its log is applied) and a BLCKSZ image;
 * one int32 per pool frame maps a frame to the slot holding its image.
 *
 * Locks: a frame's map entry and the slot it names are read and changed
 * under the page lock (NvmPoolPageLock) of the page living in that frame:
 * shared to read, exclusive to change or drop the image.  There is no
 * cache-wide lock.  IPL_CACHE_STRIPES spinlocks, each on its own cache
 * line, guard the map: every change of frame_slot[F], and every change of
 * a slot's frame away from F, is made under the stripe of frame F, so a
 * backend holding that stripe sees both stay as they are.  A slot's frame
 * moves from 0 (free) to reserved under the stripe of the slot's number;
 * from reserved only the backend that reserved it moves it.  A backend
 * that merges under a shared page lock installs its image under the
 * frame's stripe; the loser of a race frees its copy.  Slots are pinned
 * like frames (NvmPoolPinFrame, with the numbers above the pool's frames),
 * so a reader may keep pointers into an image after releasing the page
 * lock; a pinned slot is never reused.  To reuse a slot that holds an
 * image, the evicting backend takes that page's lock with
 * LWLockConditionalAcquire (it may hold another page lock itself), then
 * the frame's stripe, and checks again.  A stripe is never held together
 * with another one.
 *
 * Also here, as shared state of the page layer that nothing persists: the
 * ring of pages given a log frame lately (IplCacheNoteLogFrame), from which
 * a backend that finds no log frame free takes one back (atomics only).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/bufpage.h"
#include "storage/shmem.h"
#include "storage/spin.h"

#include "nvm_page.h"

/* slot->frame of a slot taken by a backend and not yet mapped */
#define SLOT_RESERVED	PG_UINT64_MAX

/* the clock's usage count of a slot rises to this at most (as heap's BM_MAX_USAGE_COUNT) */
#define IPL_CACHE_MAX_USAGE	3

/* spinlocks guarding the map, each on a cache line of its own */
#define IPL_CACHE_STRIPES	128

typedef union IplCacheStripe
{
	slock_t		mutex;
	char		pad[PG_CACHE_LINE_SIZE];
} IplCacheStripe;

/*
 * The pages given a log frame, oldest first, by every backend (a ring of
 * IPL_LOGGED_RING entries, (dirIndex + 1) << 32 | blkno, 0 = none): when
 * log frames run out, a backend seals the oldest to take its frame
 * (IplStealLogFrame).  head counts pushes, tail pops; entries older than
 * IPL_LOGGED_RING pushes are overwritten.  An entry may name a page that
 * has left its log frame since, or a relation dropped since: the taker
 * checks, and sealing a page never changes its contents.
 */
#define IPL_LOGGED_RING		8192

typedef struct IplCacheShared
{
	IplCacheStripe stripes[IPL_CACHE_STRIPES];
	pg_atomic_uint32 hand;		/* clock hand */
	pg_atomic_uint64 loggedHead;	/* pushes so far */
	pg_atomic_uint64 loggedTail;	/* pops so far */
	pg_atomic_uint64 logged[IPL_LOGGED_RING];
	int			nslots;
	IplSlot		slots[FLEXIBLE_ARRAY_MEMBER];
} IplCacheShared;

/* GUC: size of the cache in kB */
int			nvm_merge_cache_size = NVM_MERGE_CACHE_SIZE_DEFAULT;

static IplCacheShared *cache = NULL;
static char *cache_images = NULL;
static int32 *frame_slot = NULL;	/* per frame: slot + 1, 0 = none */

/*
 * per frame: what a reader merged from it last, (base generation & 0xFFFF)
 * << 16 | (log bytes applied / 8 + 1); 0 = nothing (IplCacheNoteReadMerge)
 */
static uint32 *frame_read = NULL;

/* the stripe guarding frame_slot[frame] and moves of a slot away from frame */
static inline slock_t *
IplCacheFrameMutex(uint64 frame)
{
	return &cache->stripes[frame % IPL_CACHE_STRIPES].mutex;
}

/* the stripe guarding the reservation of free slot number slot */
static inline slock_t *
IplCacheSlotMutex(int slot)
{
	return &cache->stripes[(uint32) slot % IPL_CACHE_STRIPES].mutex;
}

/*
 * IplCacheSlots - number of image slots the settings give.
 */
int
IplCacheSlots(void)
{
	return (int) (((int64) nvm_merge_cache_size * 1024) / BLCKSZ);
}

Size
IplCacheShmemSize(void)
{
	Size		size = add_size(offsetof(IplCacheShared, slots),
								mul_size(IplCacheSlots(), sizeof(IplSlot)));

	size = add_size(TYPEALIGN(ALIGNOF_BUFFER, size), ALIGNOF_BUFFER);
	size = add_size(size, mul_size(IplCacheSlots(), BLCKSZ));
	size = add_size(size, mul_size(NvmPoolFrameCount() + 1, sizeof(int32)));
	return add_size(size, mul_size(NvmPoolFrameCount() + 1, sizeof(uint32)));
}

void
IplCacheShmemInit(void)
{
	bool		found;
	int			nslots = IplCacheSlots();
	char	   *p;

	cache = ShmemInitStruct("nvm_am merge cache", IplCacheShmemSize(), &found);
	p = (char *) cache + offsetof(IplCacheShared, slots) + nslots * sizeof(IplSlot);
	cache_images = (char *) TYPEALIGN(ALIGNOF_BUFFER, p);
	frame_slot = (int32 *) (cache_images + (Size) nslots * BLCKSZ);
	frame_read = (uint32 *) (frame_slot + NvmPoolFrameCount() + 1);
	if (!found)
	{
		for (int i = 0; i < IPL_CACHE_STRIPES; i++)
			SpinLockInit(&cache->stripes[i].mutex);
		pg_atomic_init_u32(&cache->hand, 0);
		pg_atomic_init_u64(&cache->loggedHead, 0);
		pg_atomic_init_u64(&cache->loggedTail, 0);
		for (int i = 0; i < IPL_LOGGED_RING; i++)
			pg_atomic_init_u64(&cache->logged[i], 0);
		cache->nslots = nslots;
		for (int i = 0; i < nslots; i++)
		{
			cache->slots[i].frame = 0;
			cache->slots[i].logUsed = 0;
			cache->slots[i].usage = 0;
		}
		memset(frame_slot, 0, (NvmPoolFrameCount() + 1) * sizeof(int32));
		memset(frame_read, 0, (NvmPoolFrameCount() + 1) * sizeof(uint32));
	}
}

/*
 * IplCacheSlotById - the slot, its image and its pin number.
 */
IplSlot *
IplCacheSlotById(int slot)
{
	Assert(slot >= 0 && slot < cache->nslots);
	return &cache->slots[slot];
}

Page
IplCacheSlotPage(int slot)
{
	Assert(slot >= 0 && slot < cache->nslots);
	return (Page) (cache_images + (Size) slot * BLCKSZ);
}

uint64
IplCacheSlotPinId(int slot)
{
	return NvmPoolFrameCount() + 1 + slot;
}

/*
 * IplCacheSlotOfPage - the slot whose image page is, or -1 when page is not an
 * image of the cache (a frame in the pool, or local memory).
 */
int
IplCacheSlotOfPage(Page page)
{
	char	   *p = (char *) page;

	if (p < cache_images || p >= cache_images + (Size) cache->nslots * BLCKSZ)
		return -1;
	Assert((p - cache_images) % BLCKSZ == 0);
	return (int) ((p - cache_images) / BLCKSZ);
}

/*
 * IplCacheLookup - the slot holding the image of frame, or -1.  The slot's
 * usage count (a hint for the clock) is raised only while below its
 * ceiling: a hot page's slot is then read, not written, by the many
 * backends reading it, and its cache line stays shared among their cores.
 * Caller holds the lock of the page in the frame.
 */
int
IplCacheLookup(uint64 frame)
{
	int			slot = (int) frame_slot[frame] - 1;

	if (slot >= 0 && cache->slots[slot].usage < IPL_CACHE_MAX_USAGE)
		cache->slots[slot].usage++;
	return slot;
}

/*
 * IplCachePeek - the image the cache holds for frame, or NULL, for a hint
 * (a prefetch): read without the lock of the page in the frame, so it may
 * be an image on its way out or one of the frame's earlier page; the
 * address is always one of the cache's slots.  Unlike IplCacheLookup it
 * leaves the usage count alone: nobody has read the image yet.
 */
Page
IplCachePeek(uint64 frame)
{
	int			slot = (int) ((volatile int32 *) frame_slot)[frame] - 1;

	if (slot < 0 || slot >= cache->nslots)
		return NULL;
	return IplCacheSlotPage(slot);
}

/*
 * IplCacheDropStale - forget the image in slot, found for frame but made
 * for an earlier use of the frame (its relation was dropped or truncated,
 * and the frame freed and taken again).  Caller holds the lock of the page
 * now in frame.
 */
void
IplCacheDropStale(int slot, uint64 frame)
{
	SpinLockAcquire(IplCacheFrameMutex(frame));
	if (frame_slot[frame] == slot + 1)
	{
		frame_slot[frame] = 0;
		cache->slots[slot].frame = 0;
	}
	SpinLockRelease(IplCacheFrameMutex(frame));
}

/*
 * IplCacheEvict - try to take slot i from the image it holds; caller
 * holds no spinlock.  Returns true with the slot reserved.
 */
static bool
IplCacheEvict(int i)
{
	IplSlot    *s = &cache->slots[i];
	uint64		frame = s->frame;
	int			dirIndex = s->dirIndex;
	BlockNumber blkno = s->blkno;
	LWLock	   *lock;
	bool		taken = false;

	if (frame == 0 || frame == SLOT_RESERVED || NvmPoolPinCount(IplCacheSlotPinId(i)) != 0)
		return false;
	lock = NvmPoolPageLock(dirIndex, blkno);
	if (!LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
		return false;
	SpinLockAcquire(IplCacheFrameMutex(frame));
	if (s->frame == frame && s->dirIndex == dirIndex && s->blkno == blkno &&
		frame_slot[frame] == i + 1 && NvmPoolPinCount(IplCacheSlotPinId(i)) == 0)
	{
		frame_slot[frame] = 0;
		s->frame = SLOT_RESERVED;
		taken = true;
	}
	SpinLockRelease(IplCacheFrameMutex(frame));
	LWLockRelease(lock);
	if (taken)
		NvmPoolCountAdd(NVM_STAT_CACHE_EVICTIONS, 1);
	return taken;
}

/*
 * IplCacheTryAlloc - reserve a slot for a new image: a free one, or one
 * whose image nobody uses (clock sweep); -1 when every slot is pinned.
 */
int
IplCacheTryAlloc(void)
{
	int			nslots = cache->nslots;

	for (int pass = 0; pass < 6 * nslots + 8; pass++)
	{
		int			i = (int) (pg_atomic_fetch_add_u32(&cache->hand, 1) % (uint32) nslots);
		IplSlot    *s = &cache->slots[i];

		if (s->frame == 0)
		{
			bool		ok = false;

			/*
			 * Nobody can pin a slot that no frame maps to, so a count of
			 * 0 stays 0.
			 */
			SpinLockAcquire(IplCacheSlotMutex(i));
			if (s->frame == 0 && NvmPoolPinCount(IplCacheSlotPinId(i)) == 0)
			{
				s->frame = SLOT_RESERVED;
				ok = true;
			}
			SpinLockRelease(IplCacheSlotMutex(i));
			if (ok)
				return i;
			continue;
		}
		if (s->usage > 0)
		{
			s->usage--;
			continue;
		}
		if (IplCacheEvict(i))
			return i;
	}
	return -1;
}

/*
 * IplCacheAlloc - IplCacheTryAlloc, erroring out when every slot is pinned.
 */
int
IplCacheAlloc(void)
{
	int			slot = IplCacheTryAlloc();
	int			nslots = cache->nslots;

	if (slot >= 0)
		return slot;
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("nvm_am merge cache has no free slot"),
			 errdetail("All %d page images of the cache are in use.", nslots),
			 errhint("Raise nvm_am.merge_cache_size.")));
	return -1;					/* keep compiler quiet */
}

/*
 * IplCacheFree - give back a reserved slot that was not mapped (its merge
 * failed).
 */
void
IplCacheFree(int slot)
{
	SpinLockAcquire(IplCacheSlotMutex(slot));
	Assert(cache->slots[slot].frame == SLOT_RESERVED);
	cache->slots[slot].frame = 0;
	SpinLockRelease(IplCacheSlotMutex(slot));
}

/*
 * IplCacheMap - make the reserved slot the image of frame (block blkno of
 * relation dirIndex) with logUsed bytes of its log applied (among them a
 * PRUNE record when logHasPrune).  Returns the
 * slot that holds the frame's image: this one, or (when another backend
 * merged the same page under a shared lock meanwhile) that backend's, in
 * which case this one is freed.  Caller holds the page lock.
 */
int
IplCacheMap(int slot, int dirIndex, BlockNumber blkno, uint64 frame,
			uint32 logUsed, bool logHasPrune)
{
	IplSlot    *s = &cache->slots[slot];
	int			result = slot;

	SpinLockAcquire(IplCacheFrameMutex(frame));
	Assert(s->frame == SLOT_RESERVED);
	if (frame_slot[frame] != 0)
	{
		result = frame_slot[frame] - 1;
		s->frame = 0;
	}
	else
	{
		s->dirIndex = dirIndex;
		s->blkno = blkno;
		s->logUsed = logUsed;
		s->logHasPrune = logHasPrune;
		s->logAppendOnly = (logUsed == 0);
		s->usage = 1;
		s->readerFrame = 0;
		s->frame = frame;
		frame_slot[frame] = slot + 1;
	}
	SpinLockRelease(IplCacheFrameMutex(frame));
	return result;
}

/*
 * IplCacheRemap - the page in slot moved to newframe (its image was
 * written there, with an empty log).  Caller holds the page lock
 * exclusively.
 */
void
IplCacheRemap(int slot, uint64 newframe)
{
	IplSlot    *s = &cache->slots[slot];
	uint64		oldframe = s->frame;

	/* away from the old frame under its stripe, reserved in between */
	SpinLockAcquire(IplCacheFrameMutex(oldframe));
	Assert(frame_slot[oldframe] == slot + 1);
	frame_slot[oldframe] = 0;
	s->frame = SLOT_RESERVED;
	SpinLockRelease(IplCacheFrameMutex(oldframe));

	SpinLockAcquire(IplCacheFrameMutex(newframe));
	/* an image left from an earlier use of newframe is stale: free it */
	if (frame_slot[newframe] != 0)
		cache->slots[frame_slot[newframe] - 1].frame = 0;
	s->logUsed = 0;
	s->logHasPrune = false;
	s->logAppendOnly = true;
	if (NvmPoolPinCount(oldframe) > 0)
		s->readerFrame = oldframe;
	s->frame = newframe;
	frame_slot[newframe] = slot + 1;
	SpinLockRelease(IplCacheFrameMutex(newframe));
}

/*
 * IplCacheUnmap - drop the image in slot; readers that pinned it keep
 * reading it, and it is reused only after their pins are gone.  Caller
 * holds the page lock exclusively.
 */
void
IplCacheUnmap(int slot)
{
	IplSlot    *s = &cache->slots[slot];
	uint64		frame = s->frame;

	Assert(frame != 0 && frame != SLOT_RESERVED);
	SpinLockAcquire(IplCacheFrameMutex(frame));
	frame_slot[frame] = 0;
	s->frame = 0;
	SpinLockRelease(IplCacheFrameMutex(frame));
}

/*
 * IplCacheNoteLogFrame - page blkno of relation dirIndex was given a log
 * frame.  Caller holds the page lock exclusively.
 */
void
IplCacheNoteLogFrame(int dirIndex, BlockNumber blkno)
{
	uint64		pos = pg_atomic_fetch_add_u64(&cache->loggedHead, 1);

	pg_atomic_write_u64(&cache->logged[pos % IPL_LOGGED_RING],
						((uint64) (dirIndex + 1) << 32) | blkno);
}

/*
 * IplCacheOldestLogFrame - take the page given a log frame longest ago
 * (of the last IPL_LOGGED_RING) off the ring; false when it is empty.  The
 * page may have left its log frame since.  No lock needed.
 */
bool
IplCacheOldestLogFrame(int *dirIndex, BlockNumber *blkno)
{
	for (;;)
	{
		uint64		tail = pg_atomic_read_u64(&cache->loggedTail);
		uint64		head = pg_atomic_read_u64(&cache->loggedHead);
		uint64		entry;

		if (tail >= head)
			return false;
		if (head - tail > IPL_LOGGED_RING)
		{
			/* overwritten: skip to the oldest entry still there */
			pg_atomic_compare_exchange_u64(&cache->loggedTail, &tail,
										   head - IPL_LOGGED_RING);
			continue;
		}
		entry = pg_atomic_read_u64(&cache->logged[tail % IPL_LOGGED_RING]);
		if (!pg_atomic_compare_exchange_u64(&cache->loggedTail, &tail, tail + 1))
			continue;
		if (entry == 0)
			continue;			/* pushed, not written yet: pass it over */
		*dirIndex = (int) (entry >> 32) - 1;
		*blkno = (BlockNumber) (entry & 0xFFFFFFFF);
		return true;
	}
}

/*
 * IplCacheNoteReadMerge - a reader merged the page in frame, base image of
 * generation gen, with used bytes of its log applied; returns whether a
 * reader merged the same before (nothing changed the page since: a new
 * record moves used, a new base changes gen).  Readers racing here under
 * the shared page lock store the same word.  Nothing to clear when the
 * page changes: no cost on the change path.  Caller holds the page lock.
 */
bool
IplCacheNoteReadMerge(uint64 frame, uint64 gen, uint32 used)
{
	uint32		word = ((uint32) (gen & 0xFFFF) << 16) | (used / 8 + 1);

	if (frame_read[frame] == word)
		return true;
	frame_read[frame] = word;
	return false;
}
