/*-------------------------------------------------------------------------
 *
 * nvm_page.h
 *	  The page-operations layer of nvm_am: the only code that changes page
 *	  bytes.  ipl_log.c reads pages (base frame, merged image or local copy)
 *	  and changes them through in-page log records; ipl_cache.c keeps merged
 *	  page images in shared memory.  This layer uses the pool (nvm_pool.h)
 *	  and nothing above it: what it needs from above (which tuples a pruned
 *	  page loses, which page a tuple goes to) comes as arguments.
 *
 *	  Every function that reads or changes a page requires the caller to hold
 *	  the page's lock (NvmPoolPageLock): shared to read, exclusive to change.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_PAGE_H
#define NVM_PAGE_H

#include "access/htup.h"
#include "access/htup_details.h"
#include "storage/block.h"
#include "storage/bufpage.h"
#include "storage/off.h"

#include "nvm_pool.h"

/* ----------------------------------------------------------------
 * Settings owned by the page layer (defined in nvm_guc.c's table)
 * ----------------------------------------------------------------
 */
typedef enum NvmReadMode
{
	NVM_READ_REDIRECT,
	NVM_READ_COPY
} NvmReadMode;

extern int	nvm_read_mode;
extern int	nvm_merge_cache_size;

#define NVM_MERGE_CACHE_SIZE_DEFAULT	(64 * 1024)	/* kB */
#define NVM_MERGE_CACHE_SIZE_MIN		1024	/* kB */
#define NVM_MERGE_CACHE_SIZE_MAX		(64 * 1024 * 1024)	/* kB */

/* ----------------------------------------------------------------
 * ipl_log.c: reading and changing pages
 * ----------------------------------------------------------------
 */

/* reading: where IplLookPage found the image it returns */
typedef enum IplReadSource
{
	IPL_READ_CACHED,			/* in the merge cache already */
	IPL_READ_IN_PLACE,			/* the frame itself: its log is empty */
	IPL_READ_MERGED,			/* merged from the frame's log just now */
	IPL_READ_MERGED_AGAIN		/* that, and a reader merged it before: its
								 * image was evicted from the cache since */
} IplReadSource;

extern Page IplGetPage(int dirIndex, BlockNumber blkno);
extern Page IplReadPage(int dirIndex, BlockNumber blkno, IplReadSource *src);

/* a page a reader looked up (IplLookPage), to hold (IplHoldRef) */
typedef struct IplPageRef
{
	Page		page;			/* its image: the frame, or a merge-cache slot */
	uint64		frame;			/* its frame */
	IplReadSource src;			/* where the image came from (the first look,
								 * when NvmPruneBeforeRead looked again) */
} IplPageRef;

extern void IplLookPage(int dirIndex, BlockNumber blkno, IplPageRef *ref);
extern bool IplPageInUse(int dirIndex, BlockNumber blkno);
extern Page IplHoldRef(const IplPageRef *ref, uint64 *held, char *copybuf);
extern char *IplCopyBuffer(void);
extern void IplDropPage(uint64 *held);
extern void IplHoldAlso(uint64 held, uint64 *also);
extern uint64 IplPinPage(int dirIndex, BlockNumber blkno);

#define IPL_CPU_LINE	64		/* the CPU's cache line, not PG_CACHE_LINE_SIZE */

/*
 * IplPrefetchTuples - ask the CPU for every cache line of page's tuple area
 * [pd_upper, BLCKSZ), in address order, before code that reads its tuples
 * one after another: each would otherwise wait for its own cache misses.
 * A hint only: it changes nothing and cannot fault.  Caller holds the page
 * lock (or a copy of the page).
 *
 * Always inlined: a function of prefetches alone looks pure to gcc, which
 * then drops every call to it (gcc 12 at -O1 and -O2 did, for this one and
 * for the scan's wrapper, so release builds never prefetched).
 */
static pg_attribute_always_inline void
IplPrefetchTuples(Page page)
{
	const char *start = (const char *) page;
	int			upper = Min(((PageHeader) page)->pd_upper, BLCKSZ);

	for (int at = upper & ~(IPL_CPU_LINE - 1); at < BLCKSZ; at += IPL_CPU_LINE)
		__builtin_prefetch(start + at, 0, 3);
}

/*
 * IplPrefetchCursor - a page image asked of the CPU a few cache lines at a
 * time (IplPrefetchStart, IplPrefetchStep)
 */
typedef struct IplPrefetchCursor
{
	const char *next;			/* the next line to ask for */
	const char *end;			/* NULL (next too): nothing to ask for */
	int			step;			/* bytes per step */
} IplPrefetchCursor;

/* IplPrefetchStep - ask for the next step's lines of cur's image, if any */
static pg_attribute_always_inline void
IplPrefetchStep(IplPrefetchCursor *cur)
{
	if (cur->next < cur->end)
	{
		for (int at = 0; at < cur->step; at += IPL_CPU_LINE)
			__builtin_prefetch(cur->next + at, 0, 3);
		cur->next += cur->step;
	}
}

extern bool IplLogCheck(uint64 frame, uint32 *badOff);
extern uint32 IplLogUsed(uint64 frame);

/* a record of an in-page log, as IplLogDescribe tells it */
typedef struct IplRecInfo
{
	uint32		off;			/* byte of the log where it starts */
	uint16		len;			/* bytes, header included */
	bool		prune;			/* a prune; else a patch record */
	bool		fill;			/* a prune whose compaction fills holes */
	bool		delta;			/* a patch record in compact form */
	bool		append;			/* only appends a tuple */
	int			items;			/* patches, or line pointers pruned */
	int			bytes;			/* page bytes the patches write */
} IplRecInfo;

extern int	IplLogDescribe(uint64 frame, BlockNumber blkno, IplRecInfo *recs,
						   int max);
extern void IplPrefetchStart(IplPrefetchCursor *cur, int dirIndex,
							 BlockNumber blkno, int steps);
extern bool IplFrameChecksumOk(int dirIndex, BlockNumber blkno, uint64 frame,
							   uint16 *stored, uint16 *computed);

/* changing: tuples and line pointers */
extern BlockNumber IplNewPage(int dirIndex);
extern int	IplNewPageFilled(int dirIndex, HeapTuple *tups, int n, Size reserve,
							 BlockNumber *blkno);
extern OffsetNumber IplAddTuple(Page page, BlockNumber blkno, HeapTuple tup,
								bool keepCtid, Size reserve);
extern bool IplSeal(int dirIndex, BlockNumber blkno, bool appendedOnly);
extern void IplSettle(int dirIndex, BlockNumber blkno);
extern OffsetNumber IplUpdateTuple(Page page, BlockNumber blkno,
								  HeapTuple newtup, OffsetNumber oldoff,
								  HeapTupleHeader oldhdr);
extern void IplWriteTupleHeader(Page page, OffsetNumber off,
								HeapTupleHeader newhdr);
extern void IplWriteMovedHeader(Page page, OffsetNumber off,
								HeapTupleHeader newhdr, bool moved);
extern void IplSetUnused(Page page, OffsetNumber *offs, int n);
extern void IplSetHintBits(HeapTupleHeader tup, uint16 bits);
extern void IplSetPruneXid(Page page, TransactionId xid);
extern bool IplPruneExecute(int dirIndex, BlockNumber blkno,
							OffsetNumber *redirected, int nredirected,
							OffsetNumber *nowdead, int ndead,
							OffsetNumber *nowunused, int nunused,
							TransactionId nextPrune, TransactionId conflictXid);
extern void IplCopyPage(int srcIndex, int dstIndex, BlockNumber blkno);

/* storage created in this transaction: persisted at pre-commit */
extern void IplStorageCreated(int dirIndex);
extern void IplXactPreCommit(void);
extern void IplXactEnd(void);

/* ----------------------------------------------------------------
 * ipl_wal.c: WAL mode (nvm_am.wal_log): redo of the page records, their
 * names
 * ----------------------------------------------------------------
 */
struct XLogReaderState;
extern void IplWalRedo(struct XLogReaderState *record);
extern const char *IplWalTypeName(uint8 type);

/* ----------------------------------------------------------------
 * ipl_cache.c: merged page images in shared memory (used by ipl_log.c;
 * nvm_am.c sizes and initialises it)
 * ----------------------------------------------------------------
 */
typedef struct IplSlot
{
	uint64		frame;			/* frame whose page this is; 0 = free */
	int			dirIndex;		/* the page: relation and block */
	BlockNumber blkno;
	uint32		logUsed;		/* bytes of the frame's log applied */
	bool		logHasPrune;	/* a PRUNE record among them: the image's
								 * layout differs from the base's */
	bool		logAppendOnly;	/* only IPL_RECF_APPEND records among them */
	uint32		usage;			/* clock-sweep usage count */
	uint64		readerFrame;	/* an earlier frame of the page, left while
								 * a reader had it pinned (IplPageInUse);
								 * 0 = none */
} IplSlot;

extern int	IplCacheSlots(void);
extern void IplCacheNoteLogFrame(int dirIndex, BlockNumber blkno);
extern bool IplCacheNoteReadMerge(uint64 frame, uint64 gen, uint32 used);
extern bool IplCacheOldestLogFrame(int *dirIndex, BlockNumber *blkno);
extern Size IplCacheShmemSize(void);
extern void IplCacheShmemInit(void);
extern IplSlot *IplCacheSlotById(int slot);
extern Page IplCacheSlotPage(int slot);
extern uint64 IplCacheSlotPinId(int slot);
extern int	IplCacheSlotOfPage(Page page);
extern int	IplCacheLookup(uint64 frame);
extern Page IplCachePeek(uint64 frame);
extern int	IplCacheAlloc(void);
extern int	IplCacheTryAlloc(void);
extern void IplCacheFree(int slot);
extern int	IplCacheMap(int slot, int dirIndex, BlockNumber blkno, uint64 frame,
						uint32 logUsed, bool logHasPrune);
extern void IplCacheRemap(int slot, uint64 newframe);
extern void IplCacheUnmap(int slot);
extern void IplCacheDropStale(int slot, uint64 frame);

#endif							/* NVM_PAGE_H */
