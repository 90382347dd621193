/*-------------------------------------------------------------------------
 *
 * ipl_log.c
 *	  Page operations of nvm_am, through in-page logging (IPL).  This is the
 *	  only code that changes a page: initialising a new page, placing a
 *	  tuple, rewriting a tuple's header (xmax, command id, ctid, infomask
 *	  bits), freeing line pointers, setting hint bits, pruning a page and
 *	  copying pages.
 *
 *	  A page lives in a frame of the pool (its base image) and the frame's
 *	  log area (nvm_am.ipl_log_size bytes).  A change is a redo record
 *	  appended to the log and persisted, then applied, by the same redo
 *	  routine that merges logs on read, to the page's image in the merge
 *	  cache (ipl_cache.c).  The base image is never written after it was
 *	  published, so a reader may point into it with nothing but a pin:
 *
 *	  - reading a page: its cached image if there is one; else, when its
 *		log is empty, the frame itself (redirected read, zero copies); else
 *		the base with the log's records applied, merged into a cache slot
 *		(merges_on_read).
 *	  - changing a page: the caller holds the page lock exclusively and got
 *		the page through IplGetPage, which then returns the cached image
 *		(made from the frame and its log if need be).  The record is
 *		appended to the log, persisted, and applied to that image.
 *	  - a record that does not fit in the log (always, with ipl_log_size
 *		0): the change is applied to the image and the image is written to
 *		a new frame with an empty log, published by swinging the page-table
 *		entry (merges_on_full).  The old frame is freed once unpinned.
 *	  - pruning moves tuples, so it never changes an image readers may point
 *		into: the pruned image goes to a new cache slot (its record, the
 *		list of line-pointer changes, to the log) or, with the log full, to
 *		a new frame.
 *	  - hint bits and pd_prune_xid are hints: written into whatever image
 *		is current, never logged.
 *
 *	  On-pmem format of a log area: records one after the other from its
 *	  start, each an IplRecord header (16 bytes) and a body, padded to 8
 *	  bytes.  A record belongs to the base image whose generation number it
 *	  carries; the generation is in the base's pd_lsn (unused otherwise:
 *	  nvm_am pages are not WAL-logged) and is new for every base image ever
 *	  written (PoolNextGeneration), so records of a frame's earlier life
 *	  never match.  Reading stops at the first record with another
 *	  generation, an impossible length or a CRC-32C mismatch: a record torn
 *	  by a crash is never applied.  Records are persisted (flushed and
 *	  drained) one by one, under the page lock: a record that another
 *	  backend appends after it may belong to a transaction that commits,
 *	  and must not outlive a torn predecessor.
 *
 *	  Record bodies: PATCH, a list of (offset, length, bytes) written into
 *	  the page; PRUNE, pd_prune_xid and a list of (offset, line pointer)
 *	  followed by PageRepairFragmentation, which is deterministic.
 *
 *	  Base images carry a checksum in pd_checksum (IplPageChecksum), set
 *	  whenever a base is written and checked the first time a frame is
 *	  read after it was allocated or the server started.  It leaves out
 *	  what changes in a published base without a record: pd_lsn (the
 *	  generation), pd_flags and pd_prune_xid, the free space (tuples
 *	  appended in place are vouched for by their record's CRC until
 *	  IplApplyInPlace covers them) and the hint bits of t_infomask.
 *	  IplApplyInPlace publishes the new checksum in the same 8-byte word as
 *	  the pd_lower and pd_upper it goes with.
 *
 * Locks: the caller holds the page's LWLock (PoolPageLock) exclusively for
 * every change, and the relation's extension lock to add a page.  Readers
 * take the page lock shared.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/bufpage.h"
#include "storage/freespace.h"
#include "storage/lmgr.h"
#include "storage/smgr.h"
#include "utils/snapmgr.h"
#include "storage/procarray.h"

#include "nvm_am.h"

StaticAssertDecl(offsetof(PageHeaderData, pd_checksum) == 8 &&
				 offsetof(PageHeaderData, pd_lower) == 12 &&
				 offsetof(PageHeaderData, pd_upper) == 14,
				 "pd_lower and pd_upper share one aligned 8-byte word");
StaticAssertDecl(offsetof(HeapTupleHeaderData, t_hoff) == 22,
				 "the visibility fields of a tuple header are its first 22 bytes");

/* GUC */
int			nvm_read_mode = NVM_READ_REDIRECT;

/* ----------------------------------------------------------------
 * Records
 * ----------------------------------------------------------------
 */
typedef struct IplRecord
{
	uint64		gen;			/* generation of the base image */
	pg_crc32c	crc;			/* CRC-32C of the record with crc = 0 */
	uint16		len;			/* bytes, header included, multiple of 8 */
	uint8		type;			/* IPL_REC_* */
	uint8		flags;			/* IPL_RECF_* */
} IplRecord;

/*
 * The record only adds a line pointer past the base's pd_lower, for a
 * tuple written into the base's free space (IPL_PATCH_BASE), and moves
 * pd_lower and pd_upper: a log of such records can be applied to the base
 * in place (IplSeal).
 */
#define IPL_RECF_APPEND	0x01

#define IPL_REC_PATCH	1
#define IPL_REC_PRUNE	2

typedef struct IplPatch
{
	uint16		off;
	uint16		len;			/* 0 ends the list; | IPL_PATCH_BASE */
} IplPatch;

/*
 * A patch whose bytes were written into the base image's free space before
 * the record (a tuple appended in place): the record carries the CRC-32C of
 * those bytes instead of the bytes.
 */
#define IPL_PATCH_BASE	0x8000

typedef struct IplPruneItem
{
	uint16		off;
	uint16		pad;
	uint32		lp;				/* the new line pointer, raw */
} IplPruneItem;

/* a record being built */
typedef struct IplRecBuf
{
	union
	{
		IplRecord	hdr;
		char		data[2 * BLCKSZ];
		uint64		force_align;
	}			u;
	int			len;
} IplRecBuf;

static IplRecBuf recbuf;

static void IplApplyInPlace(int slot, Page image);
static Page IplImage(int dirIndex, BlockNumber blkno, uint64 *framep);

/* backend-local insertion target, like heap's rd_targblock */
static int	target_dir_index = -1;
static BlockNumber target_block = InvalidBlockNumber;

static inline uint64
PageGen(Page page)
{
	return PageXLogRecPtrGet(((PageHeader) page)->pd_lsn);
}

static inline void
PageSetGen(Page page, uint64 gen)
{
	PageXLogRecPtrSet(((PageHeader) page)->pd_lsn, gen);
}

static void
RecStart(IplRecBuf *rb, uint8 type)
{
	memset(&rb->u.hdr, 0, sizeof(IplRecord));
	rb->u.hdr.type = type;
	rb->len = sizeof(IplRecord);
}

static void
RecAdd(IplRecBuf *rb, const void *data, int len)
{
	Assert(rb->len + len <= (int) sizeof(rb->u.data) - 8);
	memcpy(rb->u.data + rb->len, data, len);
	rb->len += len;
}

/* RecPatch - add "write len bytes of data at page offset off" */
/* BytesCrc - CRC-32C of len bytes at data */
static pg_crc32c
BytesCrc(const void *data, Size len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

/* RecPatchBase - add "copy len bytes at offset off of the base image" */
static void
RecPatchBase(IplRecBuf *rb, int off, const void *data, int len)
{
	IplPatch	p;
	pg_crc32c	crc = BytesCrc(data, len);

	Assert(off >= 8 && len > 0 && off + len <= BLCKSZ);
	p.off = (uint16) off;
	p.len = (uint16) (len | IPL_PATCH_BASE);
	RecAdd(rb, &p, sizeof(p));
	RecAdd(rb, &crc, sizeof(crc));
}

static void
RecPatch(IplRecBuf *rb, int off, const void *data, int len)
{
	IplPatch	p;

	Assert(off >= 8 && len > 0 && off + len <= BLCKSZ);
	p.off = (uint16) off;
	p.len = (uint16) len;
	RecAdd(rb, &p, sizeof(p));
	RecAdd(rb, data, len);
}

static pg_crc32c
RecCrc(const IplRecord *rec)
{
	IplRecord	h = *rec;
	pg_crc32c	crc;

	h.crc = 0;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, &h, sizeof(h));
	COMP_CRC32C(crc, (const char *) rec + sizeof(h), rec->len - sizeof(h));
	FIN_CRC32C(crc);
	return crc;
}

/* RecFinish - pad, and seal the record for the base image of generation gen */
static void
RecFinish(IplRecBuf *rb, uint64 gen)
{
	while (rb->len % 8 != 0)
		rb->u.data[rb->len++] = 0;
	rb->u.hdr.gen = gen;
	rb->u.hdr.len = (uint16) rb->len;
	rb->u.hdr.crc = RecCrc(&rb->u.hdr);
}

/*
 * IplRedoExt - apply record rec to page; base is the base image of the page
 * (the frame the log belongs to).  With verify, bytes the record takes from
 * the base must match the CRC it carries of them.  Returns false for a
 * record whose contents do not fit the page (which its CRC should have ruled
 * out) or whose bytes in the base do not match (they did not reach the pool
 * before a power failure; the record did).  With dry, only checks: page is
 * not changed.  Without dry, a false return may leave page partly changed.
 */
static bool
IplRedoExt(Page page, const IplRecord *rec, Page base, bool verify, bool dry)
{
	const char *p = (const char *) rec + sizeof(IplRecord);
	const char *end = (const char *) rec + rec->len;

	switch (rec->type)
	{
		case IPL_REC_PATCH:
			while (p + sizeof(IplPatch) <= end)
			{
				IplPatch	patch;

				memcpy(&patch, p, sizeof(patch));
				if (patch.len == 0)
					break;
				if (patch.len & IPL_PATCH_BASE)
				{
					int			len = patch.len & ~IPL_PATCH_BASE;
					pg_crc32c	want;

					if (patch.off < 8 || patch.off + len > BLCKSZ ||
						p + sizeof(patch) + sizeof(want) > end)
						return false;
					memcpy(&want, p + sizeof(patch), sizeof(want));
					if (verify && BytesCrc((char *) base + patch.off, len) != want)
						return false;
					if (!dry && page != base)
						memcpy((char *) page + patch.off, (char *) base + patch.off, len);
					p += sizeof(patch) + sizeof(want);
					continue;
				}
				if (patch.off < 8 || patch.off + patch.len > BLCKSZ ||
					p + sizeof(patch) + patch.len > end)
					return false;
				if (!dry)
					memcpy((char *) page + patch.off, p + sizeof(patch), patch.len);
				p += sizeof(patch) + patch.len;
			}
			return true;
		case IPL_REC_PRUNE:
			{
				uint32		pruneXid;
				uint32		n;

				if (p + 8 > end)
					return false;
				memcpy(&pruneXid, p, 4);
				memcpy(&n, p + 4, 4);
				p += 8;
				if (p + n * sizeof(IplPruneItem) > end)
					return false;
				for (uint32 i = 0; i < n; i++)
				{
					IplPruneItem item;

					memcpy(&item, p + i * sizeof(IplPruneItem), sizeof(item));
					if (item.off < FirstOffsetNumber || item.off > PageGetMaxOffsetNumber(page))
						return false;
					if (!dry)
						memcpy(PageGetItemId(page, item.off), &item.lp, sizeof(ItemIdData));
				}
				if (dry)
					return true;
				PageRepairFragmentation(page);
				((PageHeader) page)->pd_prune_xid = pruneXid;
				return true;
			}
		default:
			return false;
	}
}

/* IplRedoCheck - would a record read from a log apply, base bytes and all? */
static inline bool
IplRedoCheck(Page page, const IplRecord *rec, Page base)
{
	return IplRedoExt(page, rec, base, true, true);
}

/* IplRedoOwn - apply a record this backend just built (its CRCs are fresh) */
static inline bool
IplRedoOwn(Page page, const IplRecord *rec, Page base)
{
	return IplRedoExt(page, rec, base, false, false);
}

/* the t_infomask bits a base image may gain without a record */
#define IPL_HINT_BITS	(HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID | \
						 HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID)

/*
 * IplPageChecksum - the 16-bit checksum of a base image: CRC-32C of its
 * layout fields, line pointers, tuples (hint bits masked) and special
 * space, folded.  Returns false when the layout fields are impossible (the
 * page cannot even be walked).
 */
static bool
IplPageChecksum(Page page, uint16 *sum)
{
	PageHeader	ph = (PageHeader) page;
	uint16		lower = ph->pd_lower;
	uint16		upper = ph->pd_upper;
	uint16		special = ph->pd_special;
	OffsetNumber maxoff;
	pg_crc32c	crc;

	if (lower < SizeOfPageHeaderData || lower > upper || upper > special ||
		special > BLCKSZ || (lower - SizeOfPageHeaderData) % sizeof(ItemIdData) != 0)
		return false;
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, (char *) page + offsetof(PageHeaderData, pd_lower),
				offsetof(PageHeaderData, pd_prune_xid) - offsetof(PageHeaderData, pd_lower));
	COMP_CRC32C(crc, (char *) page + SizeOfPageHeaderData, lower - SizeOfPageHeaderData);
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		uint32		start = ItemIdGetOffset(lp);
		uint32		len = ItemIdGetLength(lp);
		HeapTupleHeaderData hdr;

		if (!ItemIdIsNormal(lp))
			continue;
		if (start < upper || start + len > special || len < SizeofHeapTupleHeader)
			return false;
		memcpy(&hdr, (char *) page + start, SizeofHeapTupleHeader);
		hdr.t_infomask &= ~IPL_HINT_BITS;
		COMP_CRC32C(crc, &hdr, SizeofHeapTupleHeader);
		COMP_CRC32C(crc, (char *) page + start + SizeofHeapTupleHeader,
					len - SizeofHeapTupleHeader);
	}
	COMP_CRC32C(crc, (char *) page + special, BLCKSZ - special);
	FIN_CRC32C(crc);
	*sum = (uint16) (crc ^ (crc >> 16));
	return true;
}

/*
 * IplSetChecksum - store the checksum of base image page, about to be
 * written.
 */
static void
IplSetChecksum(Page page)
{
	uint16		sum;

	if (!IplPageChecksum(page, &sum))
		elog(ERROR, "nvm_am is about to write a page with an impossible layout");
	((PageHeader) page)->pd_checksum = sum;
}

/*
 * IplFrameChecksumOk - does the base image in frame match its checksum?
 * *stored and *computed tell the two (computed 0 for an impossible
 * layout).  Caller holds the page lock.
 */
bool
IplFrameChecksumOk(uint64 frame, uint16 *stored, uint16 *computed)
{
	Page		base = PoolFramePage(frame);

	*stored = ((PageHeader) base)->pd_checksum;
	if (!IplPageChecksum(base, computed))
	{
		*computed = 0;
		return false;
	}
	return *stored == *computed;
}

/*
 * IplVerifyFrame - check the checksum of the base image of page blkno in
 * frame, once per frame after it was allocated or the server started;
 * ERROR on a mismatch.  Caller holds the page lock.
 */
static void
IplVerifyFrame(int dirIndex, BlockNumber blkno, uint64 frame)
{
	uint16		stored;
	uint16		computed;
	RelFileNode node;
	uint64		state;

	if (PoolFrameVerified(frame))
		return;
	if (!IplFrameChecksumOk(frame, &stored, &computed))
	{
		PoolCountAdd(NVM_STAT_CHECKSUM_FAILURES, 1);
		if (!PoolRelGetKey(dirIndex, &node, &state))
			node.relNode = InvalidOid;
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("nvm_am page %u of relation with relfilenode %u has a bad checksum",
						blkno, node.relNode),
				 errdetail("Frame %llu of the pool stores checksum %u, its contents give %u.",
						   (unsigned long long) frame, stored, computed),
				 errhint("Restore the table from a backup, or copy its other pages out (nvm_am_check() lists the damaged ones). Other tables are not affected.")));
	}
	PoolSetFrameVerified(frame);
}

/*
 * IplLogEmpty - has frame no log record for its current base image?
 */
static inline bool
IplLogEmpty(uint64 frame)
{
	char	   *log = PoolFrameLog(frame);

	return log == NULL ||
		((IplRecord *) log)->gen != PageGen(PoolFramePage(frame));
}

/*
 * IplMerge - dst = the base image of frame with the valid records of its
 * log applied; returns the bytes of log they take.  Caller holds the page
 * lock (no record is being appended).
 */
static uint32
IplMerge(Page dst, uint64 frame, bool *hasPrune, bool *appendOnly)
{
	char	   *log = PoolFrameLog(frame);
	uint32		size = PoolLogSize();
	uint32		used = 0;
	uint64		gen;
	int			n = 0;

	*hasPrune = false;
	*appendOnly = true;
	memcpy(dst, PoolFramePage(frame), BLCKSZ);
	if (log == NULL)
		return 0;
	gen = PageGen(dst);
	while (used + sizeof(IplRecord) <= size)
	{
		const IplRecord *rec = (const IplRecord *) (log + used);

		if (rec->gen != gen)
			break;
		/*
		 * A torn record, or a whole record whose appended tuple bytes in the
		 * base did not reach the pool (they are flushed with the record and
		 * drained once): it and everything after it never happened; the
		 * records before it stand.
		 */
		if (rec->len < sizeof(IplRecord) || rec->len % 8 != 0 ||
			used + rec->len > size || rec->crc != RecCrc(rec) ||
			!IplRedoCheck(dst, rec, PoolFramePage(frame)))
		{
			PoolCountAdd(NVM_STAT_IPL_TORN_RECORDS, 1);
			break;
		}
		if (!IplRedoExt(dst, rec, PoolFramePage(frame), false, false))
			elog(ERROR, "nvm_am in-page log record of frame %llu applies after its check",
				 (unsigned long long) frame);
		if (rec->type == IPL_REC_PRUNE)
			*hasPrune = true;
		if (!(rec->flags & IPL_RECF_APPEND))
			*appendOnly = false;
		used += rec->len;
		n++;
	}
	if (n > 0)
		PoolCountAdd(NVM_STAT_MERGES_ON_READ, 1);
	return used;
}

/*
 * IplLoad - bring the image of the page in frame into the merge cache;
 * returns its slot.  Caller holds the page lock.
 */
static int
IplLoad(int dirIndex, BlockNumber blkno, uint64 frame)
{
	int			slot = IplCacheAlloc();
	bool		hasPrune;
	bool		appendOnly;
	uint32		used = IplMerge(IplSlotPage(slot), frame, &hasPrune, &appendOnly);

	slot = IplCacheMap(slot, dirIndex, blkno, frame, used, hasPrune);
	if (IplSlotById(slot)->frame == frame && IplSlotById(slot)->logUsed == used)
		IplSlotById(slot)->logAppendOnly = appendOnly;
	return slot;
}

/*
 * IplGetPage - the current image of page blkno of relation dirIndex.  With
 * the page lock held exclusively it is the page's image in the merge cache,
 * the one the change functions below change; with the page lock held
 * shared it may be the frame itself.
 */
Page
IplGetPage(int dirIndex, BlockNumber blkno)
{
	uint64		frame;

	return IplImage(dirIndex, blkno, &frame);
}

/*
 * IplImage - IplGetPage, also telling the page's frame.
 */
static Page
IplImage(int dirIndex, BlockNumber blkno, uint64 *framep)
{
	uint64		frame = PoolRelGetFrame(dirIndex, blkno);
	int			slot = IplCacheLookup(frame);

	*framep = frame;
	if (slot >= 0)
	{
		IplSlot    *s = IplSlotById(slot);

		/*
		 * The cache is not told when a frame is freed: an image of the
		 * frame's earlier page has another page or generation.
		 */
		if (s->dirIndex == dirIndex && s->blkno == blkno &&
			PageGen(IplSlotPage(slot)) == PageGen(PoolFramePage(frame)))
			return IplSlotPage(slot);
		IplCacheDropStale(slot, frame);
	}
	IplVerifyFrame(dirIndex, blkno, frame);
	if (IplLogEmpty(frame) &&
		!LWLockHeldByMeInMode(PoolPageLock(dirIndex, blkno), LW_EXCLUSIVE))
		return PoolFramePage(frame);
	return IplSlotPage(IplLoad(dirIndex, blkno, frame));
}

/*
 * IplHoldPage - read page blkno for a scan or an index fetch that keeps
 * pointers into it after releasing the page lock: the image is pinned in
 * *held (and the pin of what *held pinned before dropped).  With
 * nvm_am.read_mode = copy and a copy buffer given, the image is copied
 * there instead, and nothing stays pinned.  Caller holds the page lock.
 */
Page
IplHoldPage(int dirIndex, BlockNumber blkno, uint64 *held, char *copybuf)
{
	uint64		frame;
	Page		page = IplImage(dirIndex, blkno, &frame);
	int			slot = IplSlotOfPage(page);
	uint64		id;

	if (copybuf != NULL && nvm_read_mode == NVM_READ_COPY)
	{
		IplDropPage(held);
		memcpy(copybuf, page, BLCKSZ);
		PoolCountAdd(NVM_STAT_COPIED_PAGE_READS, 1);
		return (Page) copybuf;
	}
	if (slot >= 0)
	{
		id = IplSlotPinId(slot);
		PoolCountAdd(NVM_STAT_MERGED_PAGE_READS, 1);
	}
	else
	{
		id = frame;
		PoolCountAdd(NVM_STAT_REDIRECTED_PAGE_READS, 1);
	}
	if (*held != id)
	{
		PoolPinFrame(id);
		if (*held != 0)
			PoolUnpinFrame(*held);
		*held = id;
	}
	return page;
}

/*
 * IplDropPage - drop the pin IplHoldPage left in *held, if any.
 */
void
IplDropPage(uint64 *held)
{
	if (*held != 0)
		PoolUnpinFrame(*held);
	*held = 0;
}

/*
 * IplWriteFrame - write image, with a new generation (so its log area is
 * empty), to newframe and make that block blkno's frame; the old frame is
 * retired.  Caller holds the page lock exclusively and allocated newframe.
 */
static void
IplWriteFrame(int dirIndex, BlockNumber blkno, Page image, uint64 newframe)
{
	Page		dst = PoolFramePage(newframe);

	PageSetGen(image, PoolNextGeneration());
	IplSetChecksum(image);
	memcpy(dst, image, BLCKSZ);
	PoolPersist(dst, BLCKSZ);
	PoolRetireFrame(PoolRelSwapFrame(dirIndex, blkno, newframe));
	PoolCountAdd(NVM_STAT_MERGES_ON_FULL, 1);
	PoolCountAdd(NVM_STAT_MERGE_BYTES_WRITTEN, BLCKSZ);
}

/*
 * IplWriteBack - write image, the page's cached image in slot, to newframe
 * (IplWriteFrame); the slot stays the page's image.
 */
static void
IplWriteBack(int slot, Page image, uint64 newframe)
{
	IplSlot    *s = IplSlotById(slot);

	IplWriteFrame(s->dirIndex, s->blkno, image, newframe);
	IplCacheRemap(slot, newframe);
}

/*
 * IplLogAppend - append the finished record in rb to the log of the page
 * in slot s and persist it; s->logUsed moves past it.  Caller holds the
 * page lock exclusively and made sure it fits.
 */
static void
IplLogAppend(IplSlot *s, IplRecBuf *rb)
{
	char	   *dst = PoolFrameLog(s->frame) + s->logUsed;

	Assert(s->logUsed + rb->len <= PoolLogSize());
	memcpy(dst, rb->u.data, rb->len);
	PoolPersist(dst, rb->len);
	if (s->logUsed == 0)
		s->logAppendOnly = true;
	if (!(rb->u.hdr.flags & IPL_RECF_APPEND))
		s->logAppendOnly = false;
	s->logUsed += rb->len;
	PoolCountAdd(NVM_STAT_IPL_RECORDS, 1);
	PoolCountAdd(NVM_STAT_IPL_BYTES, rb->len);
}

/*
 * IplApply - make the record in rb a change of page, which must be the
 * cached image IplGetPage returned under the exclusive page lock: append
 * it to the page's log and apply it, or, when the log has no room, apply
 * it and write the page to a new frame.
 */
static void
IplApply(Page page, IplRecBuf *rb)
{
	int			slot = IplSlotOfPage(page);
	IplSlot    *s;
	uint32		size = PoolLogSize();

	if (slot < 0)
		elog(ERROR, "nvm_am page change outside the merge cache");
	s = IplSlotById(slot);
	Assert(LWLockHeldByMeInMode(PoolPageLock(s->dirIndex, s->blkno), LW_EXCLUSIVE));
	RecFinish(rb, PageGen(page));
	if (s->logUsed + rb->len <= size)
	{
		IplLogAppend(s, rb);
		if (!IplRedoOwn(page, &rb->u.hdr, PoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
	}
	else if (s->logAppendOnly && (rb->u.hdr.flags & IPL_RECF_APPEND))
	{
		/* appends only: apply them to the base in place, no new frame */
		if (!IplRedoOwn(page, &rb->u.hdr, PoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
		IplApplyInPlace(slot, page);
	}
	else
	{
		/* allocate first: a full pool must fail before anything changed */
		uint64		frame = PoolAllocFrame();

		if (!IplRedoOwn(page, &rb->u.hdr, PoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
		IplWriteBack(slot, page, frame);
	}
}

/*
 * IplApplyInPlace - apply a log of IPL_RECF_APPEND records (image, the
 * page's cached image in slot, holds their result) to the base image in
 * place, and empty the log.  Every record only appended a tuple whose
 * bytes are in the base already: write the new line pointers past the
 * base's pd_lower (nobody reads there), persist them, publish pd_lower and
 * pd_upper, then publish a new generation, which empties the log.  A crash
 * between the last two steps leaves records that apply again to the same
 * bytes.  Caller holds the page lock exclusively.
 */
static void
IplApplyInPlace(int slot, Page image)
{
	IplSlot    *s = IplSlotById(slot);
	Page		base = PoolFramePage(s->frame);
	uint16		blower = ((PageHeader) base)->pd_lower;
	uint16		lower = ((PageHeader) image)->pd_lower;
	uint64		word;

	Assert(s->logAppendOnly && lower >= blower);
	memcpy((char *) base + blower, (char *) image + blower, lower - blower);
	PoolPersist((char *) base + blower, lower - blower);
	/* the checksum travels with pd_lower and pd_upper in one 8-byte word */
	IplSetChecksum(image);
	memcpy(&word, (char *) image + 8, sizeof(word));
	PoolPublish64((uint64 *) ((char *) base + 8), word);
	PageSetGen(image, PoolNextGeneration());
	PoolPublish64((uint64 *) base, *(uint64 *) image);
	s->logUsed = 0;
	s->logHasPrune = false;
	s->logAppendOnly = true;
	PoolCountAdd(NVM_STAT_PAGES_SEALED_IN_PLACE, 1);
}

/*
 * IplSeal - the inserter leaves page blkno, full: merge its log into a new
 * frame now, once, so that the scans that will read the page read it in
 * place instead of merging it again and again.  Nothing happens when the
 * log is empty or the pool has no free frame.  Caller holds the page lock
 * exclusively.
 */
static void
IplSeal(int dirIndex, BlockNumber blkno)
{
	Page		page = IplGetPage(dirIndex, blkno);
	int			slot = IplSlotOfPage(page);
	IplSlot    *s;
	uint64		frame;

	if (slot < 0 || IplSlotById(slot)->logUsed == 0)
		return;
	s = IplSlotById(slot);
	if (s->logAppendOnly)
	{
		IplApplyInPlace(slot, page);
		IplCacheUnmap(slot);
		return;
	}
	frame = PoolTryAllocFrame();
	if (frame == 0)
		return;
	IplWriteBack(slot, page, frame);
	IplCacheUnmap(slot);
}

/*
 * IplNewPage - add an empty page at the end of a relation; returns its
 * block number.  Caller holds the relation's extension lock.
 */
BlockNumber
IplNewPage(int dirIndex)
{
	BlockNumber blkno = PoolRelNBlocks(dirIndex);
	uint64		frame;
	Page		page;

	/* page-table frames first: nothing can fail between alloc and publish */
	PoolRelEnsurePath(dirIndex, blkno);
	frame = PoolAllocFrame();
	page = PoolFramePage(frame);
	PageInit(page, BLCKSZ, 0);
	PageSetGen(page, PoolNextGeneration());
	IplSetChecksum(page);
	PoolPersist(page, BLCKSZ);
	PoolRelMapNewBlock(dirIndex, blkno, frame);
	return blkno;
}

/*
 * IplTryAdd - place tup on page if it fits; caller holds the page lock
 * exclusively and got page from IplGetPage.  Returns the new offset or
 * InvalidOffsetNumber.  A line pointer freed by pruning is reused;
 * otherwise one is appended.
 */
static OffsetNumber
IplTryAdd(Page page, BlockNumber blkno, HeapTuple tup, bool keepCtid)
{
	PageHeader	ph = (PageHeader) page;
	Size		alignedSize = MAXALIGN(tup->t_len);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off = InvalidOffsetNumber;
	uint16		lower;
	uint16		upper;
	ItemIdData	newlp;
	uint16		word[4];
	IplRecBuf  *rb = &recbuf;
	HeapTupleHeader body;
	int			slot;
	bool		inBase = false;

	if (PageGetHeapFreeSpace(page) < alignedSize)
		return InvalidOffsetNumber;
	if (PageHasFreeLinePointers(page))
	{
		for (OffsetNumber i = FirstOffsetNumber; i <= maxoff; i++)
		{
			if (!ItemIdIsUsed(PageGetItemId(page, i)))
			{
				off = i;
				break;
			}
		}
	}
	lower = ph->pd_lower;
	if (off == InvalidOffsetNumber)
	{
		off = OffsetNumberNext(maxoff);
		lower += sizeof(ItemIdData);
	}
	upper = ph->pd_upper - alignedSize;
	if (lower > upper)
		return InvalidOffsetNumber;

	/*
	 * One record: the tuple, its line pointer, pd_lower and pd_upper.  The
	 * tuple itself goes straight into the free space of the base image when
	 * that is free space there too (no PRUNE record has rearranged the page
	 * since the base was written, so the image's free space lies within the
	 * base's): nobody reads that space, and the record only carries the
	 * bytes' CRC.  A crash before the record is durable leaves bytes in free
	 * space that nothing reads.
	 */
	RecStart(rb, IPL_REC_PATCH);
	slot = IplSlotOfPage(page);
	if (slot >= 0 && PoolLogSize() > 0 && !IplSlotById(slot)->logHasPrune)
	{
		Page		base = PoolFramePage(IplSlotById(slot)->frame);
		PageHeader	bph = (PageHeader) base;

		if (upper >= bph->pd_lower && upper + tup->t_len <= bph->pd_upper)
		{
			body = (HeapTupleHeader) ((char *) base + upper);
			memcpy(body, tup->t_data, tup->t_len);
			if (!keepCtid)
				ItemPointerSet(&body->t_ctid, blkno, off);
			/*
			 * No drain of its own: the record's drain covers it, and should
			 * the record outlive a power failure without these bytes, the
			 * CRC it carries of them rejects it.
			 */
			PoolFlush(body, tup->t_len);
			RecPatchBase(rb, upper, body, tup->t_len);
			inBase = true;
			if (off > PageGetMaxOffsetNumber(base))
				rb->u.hdr.flags |= IPL_RECF_APPEND;
		}
	}
	if (!inBase)
	{
		body = (HeapTupleHeader) (rb->u.data + rb->len + sizeof(IplPatch));
		RecPatch(rb, upper, tup->t_data, tup->t_len);
		if (!keepCtid)
			ItemPointerSet(&body->t_ctid, blkno, off);
	}
	ItemIdSetNormal(&newlp, upper, tup->t_len);
	RecPatch(rb, (char *) PageGetItemId(page, off) - (char *) page, &newlp, sizeof(newlp));
	memcpy(word, (char *) page + 8, sizeof(word));
	word[2] = lower;
	word[3] = upper;
	RecPatch(rb, 8, word, sizeof(word));
	IplApply(page, rb);

	ItemPointerSet(&tup->t_self, blkno, off);
	if (!keepCtid)
		tup->t_data->t_ctid = tup->t_self;
	return off;
}

/*
 * IplPlaceTupleOnPage - place tup on this page (a HOT update keeps the new
 * version on the page of the old one); InvalidOffsetNumber if it does not
 * fit.  Sets tup->t_self.  Caller holds the page lock exclusively.
 */
OffsetNumber
IplPlaceTupleOnPage(Page page, BlockNumber blkno, HeapTuple tup)
{
	return IplTryAdd(page, blkno, tup, false);
}

/*
 * IplChainNext - the line pointer of the HOT-chain member that follows the
 * tuple t on page blkno, or InvalidOffsetNumber when t ends its chain or
 * its successor is not there any more.  The successor must be a heap-only
 * tuple created by t's updater.  Its raw xmin is compared, not the one
 * HeapTupleHeaderGetXmin reports: freezing keeps the raw xmin, and a
 * frozen member must not cut its chain.  Caller holds the page lock.
 */
static OffsetNumber
IplChainNext(Page page, BlockNumber blkno, HeapTupleHeader t)
{
	OffsetNumber next;
	ItemId		lp;
	HeapTupleHeader nt;

	if (!HeapTupleHeaderIsHotUpdated(t) ||
		ItemPointerGetBlockNumber(&t->t_ctid) != blkno)
		return InvalidOffsetNumber;
	next = ItemPointerGetOffsetNumber(&t->t_ctid);
	if (next < FirstOffsetNumber || next > PageGetMaxOffsetNumber(page))
		return InvalidOffsetNumber;
	lp = PageGetItemId(page, next);
	if (!ItemIdIsNormal(lp))
		return InvalidOffsetNumber;
	nt = (HeapTupleHeader) PageGetItem(page, lp);
	if (!HeapTupleHeaderIsHeapOnly(nt) ||
		!TransactionIdEquals(HeapTupleHeaderGetUpdateXid(t),
							 HeapTupleHeaderGetRawXmin(nt)))
		return InvalidOffsetNumber;
	return next;
}

/*
 * IplChainStart - the first tuple of the HOT chain whose root is the line
 * pointer root: the root itself when it holds a tuple that is not heap-only,
 * the target of a redirect when that is a heap-only tuple, otherwise none.
 */
static OffsetNumber
IplChainStart(Page page, OffsetNumber root)
{
	ItemId		lp = PageGetItemId(page, root);
	OffsetNumber off = root;

	if (ItemIdIsRedirected(lp))
	{
		off = ItemIdGetRedirect(lp);
		if (off < FirstOffsetNumber || off > PageGetMaxOffsetNumber(page))
			return InvalidOffsetNumber;
		lp = PageGetItemId(page, off);
		if (!ItemIdIsNormal(lp) ||
			!HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)))
			return InvalidOffsetNumber;
		return off;
	}
	if (!ItemIdIsNormal(lp) ||
		HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(page, lp)))
		return InvalidOffsetNumber;
	return off;
}

/*
 * IplGetRootTuples - roots[off - 1] is the root line pointer of the HOT
 * chain the tuple at off belongs to, InvalidOffsetNumber for a tuple no
 * chain reaches (heap_get_root_tuples, but with IplChainNext's rule for
 * frozen members).  Caller holds the page lock.
 */
void
IplGetRootTuples(Page page, BlockNumber blkno, OffsetNumber *roots)
{
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);

	MemSet(roots, InvalidOffsetNumber, MaxHeapTuplesPerPage * sizeof(OffsetNumber));
	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		OffsetNumber off = IplChainStart(page, root);

		while (off != InvalidOffsetNumber && roots[off - 1] == InvalidOffsetNumber)
		{
			roots[off - 1] = root;
			off = IplChainNext(page, blkno,
							   (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off)));
		}
	}
}

/*
 * IplPruneWrite - make the pruned line pointers of np (a copy of page
 * with line pointers changed, nothing else) the page's new state: a PRUNE
 * record in the log, applied to a copy of the image in a new cache slot,
 * or, when the log is full or no slot is free, a new frame.  page is the
 * page's cached image; readers may point into it, so it is left as it is
 * and unmapped.  Returns false, changing nothing, when the pool has no
 * frame for the page.  Caller holds the page lock exclusively.
 */
static bool
IplPruneWrite(Page page, Page np, TransactionId pruneXid)
{
	int			slot = IplSlotOfPage(page);
	IplSlot    *s;
	IplRecBuf  *rb = &recbuf;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	uint32		n = 0;
	uint32		hdr[2];
	int			newslot = -1;
	uint64		frame = 0;
	int			dirIndex;
	BlockNumber blkno;

	if (slot < 0)
		elog(ERROR, "nvm_am page change outside the merge cache");
	s = IplSlotById(slot);

	RecStart(rb, IPL_REC_PRUNE);
	hdr[0] = pruneXid;
	hdr[1] = 0;
	RecAdd(rb, hdr, sizeof(hdr));
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		IplPruneItem item;

		if (memcmp(PageGetItemId(page, off), PageGetItemId(np, off), sizeof(ItemIdData)) == 0)
			continue;
		item.off = off;
		item.pad = 0;
		memcpy(&item.lp, PageGetItemId(np, off), sizeof(ItemIdData));
		RecAdd(rb, &item, sizeof(item));
		n++;
	}
	memcpy(rb->u.data + sizeof(IplRecord) + 4, &n, sizeof(n));
	RecFinish(rb, PageGen(page));

	if (s->logUsed + rb->len <= PoolLogSize())
		newslot = IplCacheTryAlloc();
	if (newslot < 0)
	{
		/* with the pool full, leave the page as it is rather than fail */
		frame = PoolTryAllocFrame();
		if (frame == 0)
			return false;
	}

	/* the new image: np, compacted as redo compacts it */
	memcpy(np, page, BLCKSZ);
	if (!IplRedoOwn(np, &rb->u.hdr, PoolFramePage(s->frame)))
		elog(PANIC, "nvm_am could not apply its own prune record");

	/* the old slot is unmapped (readers may still point into it) */
	dirIndex = s->dirIndex;
	blkno = s->blkno;
	if (newslot >= 0)
	{
		uint64		pageframe = s->frame;

		IplLogAppend(s, rb);
		memcpy(IplSlotPage(newslot), np, BLCKSZ);
		IplCacheUnmap(slot);
		(void) IplCacheMap(newslot, dirIndex, blkno, pageframe, s->logUsed, true);
	}
	else
	{
		IplCacheUnmap(slot);
		IplWriteFrame(dirIndex, blkno, np, frame);
	}
	return true;
}

/*
 * IplPrunePage - reclaim the space of row versions on page blkno that no
 * transaction can see any more.  Like heap's pruning: in a HOT chain the
 * dead versions before the first live one are removed and the root line
 * pointer redirects to that one (or is marked dead when the whole chain
 * is dead: index entries still point to it); a dead tuple outside any
 * chain leaves a dead line pointer.  Line pointers of removed heap-only
 * tuples are freed for reuse, since no index points to them.
 *
 * A version is dead when its deleter committed before every running
 * transaction's snapshot (GlobalVis, or oldestXmin when VACUUM gives its
 * own horizon).  That commit is durable: a transaction that wrote to the
 * pool never commits asynchronously (nvm_commit.c), so no crash can lose
 * it and leave the row with no version at all.
 *
 * The page is rewritten copy-on-write: compacted in local memory, written
 * to a new frame and published by swinging its page-table entry; the old
 * frame is freed once no backend has it pinned.  Returns true if the page
 * was rewritten (callers must fetch the page again).  Caller holds the
 * page lock exclusively.
 */
bool
IplPrunePage(Relation rel, int dirIndex, BlockNumber blkno, bool force,
			 TransactionId oldestXmin)
{
	Page		page = IplGetPage(dirIndex, blkno);
	PGAlignedBlock copy;
	Page		np = copy.data;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	GlobalVisState *vistest = GlobalVisTestFor(rel);
	bool		dead[MaxHeapTuplesPerPage + 1];
	bool		reached[MaxHeapTuplesPerPage + 1];
	TransactionId pruneXid = ((PageHeader) page)->pd_prune_xid;
	TransactionId nextPrune = InvalidTransactionId;
	bool		changed = false;

	if (!force &&
		(!TransactionIdIsValid(pruneXid) ||
		 !GlobalVisTestIsRemovableXid(vistest, pruneXid)))
		return false;

	memcpy(np, page, BLCKSZ);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(np, off);
		HeapTupleData tup;
		TransactionId deleter = InvalidTransactionId;
		HTSV_Result r;

		dead[off] = false;
		reached[off] = false;
		if (!ItemIdIsNormal(lp))
			continue;
		tup.t_data = (HeapTupleHeader) PageGetItem(np, lp);
		tup.t_len = ItemIdGetLength(lp);
		ItemPointerSet(&tup.t_self, blkno, off);
		tup.t_tableOid = RelationGetRelid(rel);
		r = NvmTupleSatisfiesVacuum(&tup, InvalidTransactionId, &deleter);
		if (r == HEAPTUPLE_DEAD)
			dead[off] = true;
		else if (r == HEAPTUPLE_RECENTLY_DEAD &&
				 (GlobalVisTestIsRemovableXid(vistest, deleter) ||
				  (TransactionIdIsValid(oldestXmin) &&
				   TransactionIdPrecedes(deleter, oldestXmin))))
			dead[off] = true;
		else if (TransactionIdIsNormal(deleter) &&
				 (!TransactionIdIsValid(nextPrune) || TransactionIdPrecedes(deleter, nextPrune)))
			nextPrune = deleter;
	}

	for (OffsetNumber root = FirstOffsetNumber; root <= maxoff; root++)
	{
		ItemId		rootlp = PageGetItemId(np, root);
		OffsetNumber chain[MaxHeapTuplesPerPage];
		int			n = 0;
		int			ndead = 0;
		OffsetNumber off;

		if (!ItemIdIsRedirected(rootlp) && !ItemIdIsNormal(rootlp))
			continue;
		off = IplChainStart(np, root);
		if (off == InvalidOffsetNumber && ItemIdIsNormal(rootlp))
			continue;			/* a heap-only tuple: not a root */

		/* collect the chain */
		while (off != InvalidOffsetNumber && !reached[off])
		{
			chain[n++] = off;
			reached[off] = true;
			off = IplChainNext(np, blkno,
							   (HeapTupleHeader) PageGetItem(np, PageGetItemId(np, off)));
		}
		while (ndead < n && dead[chain[ndead]])
			ndead++;
		if (ndead == 0)
		{
			if (n == 0 && ItemIdIsRedirected(rootlp))
			{
				/* the redirect target is gone: the whole chain is dead */
				ItemIdSetDead(rootlp);
				changed = true;
			}
			continue;
		}

		changed = true;
		if (ndead == n)
			ItemIdSetDead(rootlp);
		else
			ItemIdSetRedirect(rootlp, chain[ndead]);
		for (int i = 0; i < ndead; i++)
			if (chain[i] != root)
				ItemIdSetUnused(PageGetItemId(np, chain[i]));
	}

	/* dead heap-only tuples that no chain reaches (their update aborted) */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(np, off);

		if (dead[off] && !reached[off] && ItemIdIsNormal(lp))
		{
			if (HeapTupleHeaderIsHeapOnly((HeapTupleHeader) PageGetItem(np, lp)))
				ItemIdSetUnused(lp);
			else
				ItemIdSetDead(lp);
			changed = true;
		}
	}

	if (!changed)
	{
		/* remember when pruning may pay next time: a hint, not logged */
		((PageHeader) page)->pd_prune_xid = nextPrune;
		return false;
	}
	if (!IplPruneWrite(page, np, nextPrune))
		return false;
	PoolCountAdd(NVM_STAT_PAGES_PRUNED, 1);
	return true;
}

/*
 * IplPlaceTuple - store a prepared tuple in some page of the relation with
 * room for it, extending the relation when none has.  Sets tup->t_self.
 * With keepCtid the tuple's t_ctid (a speculative token) is kept as given.
 * Caller holds a lock on the relation that allows inserts.
 */
void
IplPlaceTuple(Relation rel, int dirIndex, HeapTuple tup, bool keepCtid)
{
	BlockNumber nblocks;
	BlockNumber blkno;
	int			fsmTries = 0;

	if (tup->t_len > MaxHeapTupleSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too big: size %zu, maximum size %zu",
						(size_t) tup->t_len, (size_t) MaxHeapTupleSize)));

	nblocks = PoolRelNBlocks(dirIndex);
	if (target_dir_index == dirIndex && target_block < nblocks)
		blkno = target_block;
	else
		blkno = nblocks > 0 ? nblocks - 1 : InvalidBlockNumber;

	for (;;)
	{
		Size		avail = 0;

		if (blkno != InvalidBlockNumber)
		{
			LWLock	   *lock = PoolPageLock(dirIndex, blkno);
			OffsetNumber off;

			LWLockAcquire(lock, LW_EXCLUSIVE);
			off = IplTryAdd(IplGetPage(dirIndex, blkno), blkno, tup, keepCtid);
			if (off == InvalidOffsetNumber && IplPrunePage(rel, dirIndex, blkno, false,
															  InvalidTransactionId))
				off = IplTryAdd(IplGetPage(dirIndex, blkno), blkno, tup, keepCtid);
			if (off == InvalidOffsetNumber)
			{
				avail = PageGetHeapFreeSpace(IplGetPage(dirIndex, blkno));
				if (dirIndex == target_dir_index && blkno == target_block)
					IplSeal(dirIndex, blkno);
			}
			LWLockRelease(lock);
			if (off != InvalidOffsetNumber)
			{
				target_dir_index = dirIndex;
				target_block = blkno;
				return;
			}
		}

		/*
		 * The page is full: ask the free space map (filled by VACUUM) for a
		 * page with room, correcting what it said about this one; a few
		 * times at most.  FSM pages live in shared buffers: never consult
		 * it with a page lock held.
		 */
		nblocks = PoolRelNBlocks(dirIndex);
		if (fsmTries < 4)
		{
			BlockNumber cand;

			cand = (fsmTries == 0 || blkno == InvalidBlockNumber) ?
				GetPageWithFreeSpace(rel, MAXALIGN(tup->t_len)) :
				RecordAndGetPageWithFreeSpace(rel, blkno, avail, MAXALIGN(tup->t_len));
			fsmTries++;
			if (cand != InvalidBlockNumber && cand < nblocks && cand != blkno)
			{
				blkno = cand;
				continue;
			}
		}
		/* try a newer last page, else extend */
		if (blkno != InvalidBlockNumber && blkno + 1 < nblocks)
		{
			blkno = nblocks - 1;
			continue;
		}
		LockRelationForExtension(rel, ExclusiveLock);
		nblocks = PoolRelNBlocks(dirIndex);
		if (blkno == InvalidBlockNumber ? nblocks > 0 : blkno + 1 < nblocks)
			blkno = nblocks - 1;	/* someone else extended meanwhile */
		else
		{
			blkno = IplNewPage(dirIndex);
			NvmStorageExtended(RelationGetSmgr(rel), blkno);
		}
		UnlockRelationForExtension(rel, ExclusiveLock);
	}
}

/*
 * IplWriteTupleHeader - replace the visibility fields of the tuple at off
 * (xmin, xmax, command id, ctid, t_infomask2, t_infomask) with those of
 * newhdr.  Caller holds the page lock exclusively and got page from
 * IplGetPage.
 */
void
IplWriteTupleHeader(Page page, OffsetNumber off, HeapTupleHeader newhdr)
{
	ItemId		lp = PageGetItemId(page, off);
	IplRecBuf  *rb = &recbuf;

	Assert(ItemIdIsNormal(lp));
	RecStart(rb, IPL_REC_PATCH);
	RecPatch(rb, ItemIdGetOffset(lp), newhdr, offsetof(HeapTupleHeaderData, t_hoff));
	IplApply(page, rb);

	/* a deleted or updated version may be pruned later: a hint */
	if (!(newhdr->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(newhdr->t_infomask))
		PageSetPrunable(page, HeapTupleHeaderGetUpdateXid(newhdr));
	else if (!TransactionIdIsValid(HeapTupleHeaderGetRawXmin(newhdr)))
		PageSetPrunable(page, RecentXmin);	/* a super-deleted insert */
}

/*
 * IplSetUnused - free the dead line pointers offs[0..n-1] of page for reuse
 * (VACUUM, after their index entries were removed).  Caller holds the page
 * lock exclusively and got page from IplGetPage.
 */
void
IplSetUnused(Page page, OffsetNumber *offs, int n)
{
	IplRecBuf  *rb = &recbuf;
	ItemIdData	unused;
	uint16		word[4];
	bool		any = false;

	ItemIdSetUnused(&unused);
	RecStart(rb, IPL_REC_PATCH);
	for (int i = 0; i < n; i++)
	{
		ItemId		lp = PageGetItemId(page, offs[i]);

		if (!ItemIdIsDead(lp))
			continue;
		RecPatch(rb, (char *) lp - (char *) page, &unused, sizeof(unused));
		any = true;
	}
	if (!any)
		return;
	memcpy(word, (char *) page + 8, sizeof(word));
	word[1] |= PD_HAS_FREE_LINES;
	RecPatch(rb, 8, word, sizeof(word));
	IplApply(page, rb);
}

/*
 * IplSetHintBits - set hint bits (HEAP_XMIN_COMMITTED and the like) in a
 * tuple's t_infomask.  Hints are not persisted and not logged: each can be
 * derived again from clog.  Caller holds the page lock, shared is enough;
 * two backends setting hints at once can only lose a hint.
 */
void
IplSetHintBits(HeapTupleHeader tup, uint16 bits)
{
	tup->t_infomask |= bits;
}

/*
 * IplCopyRelation - append a copy of every page of relation srcIndex to the
 * empty relation dstIndex, each merged into one base image.  Caller holds
 * AccessExclusiveLock on the source and is the only user of the
 * destination.
 */
void
IplCopyRelation(int srcIndex, int dstIndex, SMgrRelation dstsmgr)
{
	BlockNumber nblocks = PoolRelNBlocks(srcIndex);

	for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
	{
		LWLock	   *lock = PoolPageLock(srcIndex, blkno);
		uint64		frame;
		Page		page;

		CHECK_FOR_INTERRUPTS();
		PoolRelEnsurePath(dstIndex, blkno);
		frame = PoolAllocFrame();
		page = PoolFramePage(frame);
		LWLockAcquire(lock, LW_SHARED);
		memcpy(page, IplGetPage(srcIndex, blkno), BLCKSZ);
		LWLockRelease(lock);
		PageSetGen(page, PoolNextGeneration());
		IplSetChecksum(page);
		PoolPersist(page, BLCKSZ);
		PoolRelMapNewBlock(dstIndex, blkno, frame);
		NvmStorageExtended(dstsmgr, blkno);
	}
}
