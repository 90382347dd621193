/*-------------------------------------------------------------------------
 *
 * ipl_log.c
 *	  Page operations of nvm_am, through in-page logging (IPL).  This is the
 *	  only code that changes a page: initialising a new page, placing a
 *	  tuple, rewriting a tuple's header (xmax, command id, ctid, infomask
 *	  bits), freeing line pointers, setting hint bits, carrying out a
 *	  pruning decision and copying pages.  Which tuples a pruned page loses
 *	  and which page a new tuple goes to are decided above (nvm_prune.c,
 *	  nvm_modify.c) and come here as arguments.
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
 *	  - hint bits are hints: written into whatever image is current, never
 *		logged.  pd_prune_xid is set by the record of the change that
 *		deletes or updates a tuple (IplRecPrunable), so that it outlives the
 *		image; lowering it when a prune finds nothing to do is a hint.
 *
 *	  On-pmem format of a log area: records one after the other from its
 *	  start, each an IplRecord header (16 bytes) and a body, padded to 8
 *	  bytes.  A record belongs to the base image whose generation number it
 *	  carries; the generation is in the base's pd_lsn (unused otherwise:
 *	  nvm_am pages are not WAL-logged) and is new for every base image ever
 *	  written (NvmPoolNextGeneration), so records of a frame's earlier life
 *	  never match.  Reading stops at the first record with another
 *	  generation, an impossible length or a CRC-32C mismatch: a record torn
 *	  by a crash is never applied.  Records are persisted (flushed and
 *	  drained) one by one, under the page lock: a record that another
 *	  backend appends after it may belong to a transaction that commits,
 *	  and must not outlive a torn predecessor.  The exception is storage
 *	  the current transaction created, which nobody else reaches: it is
 *	  flushed once, at pre-commit (see "Storage created in this
 *	  transaction").
 *
 *	  Record bodies: PATCH, a list of (offset, length, bytes) written into
 *	  the page; DELTA (pools of format version 7), the transaction id it
 *	  was encoded for and then the same change as ipl_delta.c's operations
 *	  against the page before it, appended instead of a PATCH record when
 *	  shorter and turned back into one when read (IplRecExpand; one that
 *	  does not decode ends the log as a CRC mismatch does); PRUNE_FILL and
 *	  PRUNE, pd_prune_xid and a list of (offset, line pointer), followed by
 *	  a deterministic compaction: IplPruneFill (PRUNE_FILL, pools of format
 *	  version 6 and later) or PageRepairFragmentation (PRUNE, version 5
 *	  pools).
 *
 *	  Base images carry a checksum in pd_checksum (ipl_checksum.c), set
 *	  whenever a base is written and checked the first time a frame is
 *	  read after it was allocated or the server started.  It leaves out
 *	  what changes in a published base without a record: pd_lsn (the
 *	  generation), pd_flags and pd_prune_xid, the free space (tuples
 *	  appended in place are vouched for by their record's CRC until
 *	  IplApplyInPlace covers them) and the hint bits of t_infomask.
 *	  IplApplyInPlace publishes the new checksum in the same 8-byte word as
 *	  the pd_lower and pd_upper it goes with.
 *
 *	  With nvm_am.wal_log every change of a logged relation's page is also a
 *	  WAL record, written before the change reaches the pool (ipl_wal.c,
 *	  which redoes it through IplApply).  The record format and what the two
 *	  files share is in ipl_internal.h.
 *
 * Locks: the caller holds the page's LWLock (NvmPoolPageLock) exclusively for
 * every change, and the relation's extension lock to add a page.  Readers
 * take the page lock shared.
 *
 * On-pool layout owned here: the page images in frames and the records in
 * their log areas (described above); where frames and log areas lie is
 * nvm_pool.c's.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/bufpage.h"
#include "utils/snapmgr.h"


#include "ipl_internal.h"

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
typedef struct IplPruneItem
{
	uint16		off;
	uint16		pad;
	uint32		lp;				/* the new line pointer, raw */
} IplPruneItem;

static IplRecBuf recbuf;

static void IplApplyInPlace(int slot, Page image);
static void IplRecPrunable(IplRecBuf *rb, Page page, HeapTupleHeader hdr);
static Page IplImage(int dirIndex, BlockNumber blkno, uint64 *framep,
					 IplReadSource *src);


/* IplBytesCrc - CRC-32C of len bytes at data */
static pg_crc32c
IplBytesCrc(const void *data, Size len)
{
	pg_crc32c	crc;

	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return crc;
}

/*
 * IplRecPatchBase - add "copy len bytes at offset off of the base image",
 * data being those bytes: the patch (IPL_PATCH_BASE) carries their CRC-32C.
 */
static void
IplRecPatchBase(IplRecBuf *rb, int off, const void *data, int len)
{
	IplPatch	p;
	pg_crc32c	crc = IplBytesCrc(data, len);

	Assert(off >= 8 && len > 0 && off + len <= BLCKSZ);
	p.off = (uint16) off;
	p.len = (uint16) (len | IPL_PATCH_BASE);
	IplRecAdd(rb, &p, sizeof(p));
	IplRecAdd(rb, &crc, sizeof(crc));
	rb->hasBasePatch = true;
}

static pg_crc32c
IplRecCrc(const IplRecord *rec)
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

/* IplRecFinish - pad, and seal the record for the base image of generation gen */
static void
IplRecFinish(IplRecBuf *rb, uint64 gen)
{
	while (rb->len % 8 != 0)
		rb->u.data[rb->len++] = 0;
	rb->u.hdr.gen = gen;
	rb->u.hdr.len = (uint16) rb->len;
	rb->u.hdr.crc = IplRecCrc(&rb->u.hdr);
}

/*
 * IplPatchNext - read the patch at *p of a PATCH body that ends at end
 * and move *p past it: its offset and length in *patch (IPL_PATCH_BASE
 * taken off), *bytes where its bytes are in the body, or NULL for bytes
 * the patch takes from the base image (IPL_PATCH_BASE), whose CRC-32C is
 * then in *crc.
 * Returns 1 for a patch, 0 at the end of the list, -1 for a patch that
 * does not fit the body or the page.
 */
int
IplPatchNext(const char **p, const char *end, IplPatch *patch,
			 const char **bytes, pg_crc32c *crc)
{
	bool		inBase;

	if (*p + sizeof(IplPatch) > end)
		return 0;
	memcpy(patch, *p, sizeof(IplPatch));
	if (patch->len == 0)
		return 0;
	inBase = (patch->len & IPL_PATCH_BASE) != 0;
	patch->len &= ~IPL_PATCH_BASE;
	if (patch->off < 8 || patch->off + patch->len > BLCKSZ ||
		*p + sizeof(IplPatch) + (inBase ? sizeof(pg_crc32c) : patch->len) > end)
		return -1;
	if (inBase)
	{
		memcpy(crc, *p + sizeof(IplPatch), sizeof(pg_crc32c));
		*bytes = NULL;
		*p += sizeof(IplPatch) + sizeof(pg_crc32c);
	}
	else
	{
		*bytes = *p + sizeof(IplPatch);
		*p += sizeof(IplPatch) + patch->len;
	}
	return 1;
}

/* a tuple's storage that a prune frees: offset and MAXALIGNed length */
typedef struct IplHole
{
	int			off;
	int			len;
} IplHole;

/*
 * IplPruneFill - compact page after a prune freed the storage of the
 * tuples in holes[0..n): the compaction of a PRUNE_FILL record.  Before the
 * prune the tuples filled [pd_upper, pd_special) without a gap (tuples are
 * placed at pd_upper, and every prune leaves them so), so a hole is closed
 * by moving the lowest tuple, the one at pd_upper, into it, when their
 * lengths match, and a hole at pd_upper by moving pd_upper past it: one
 * tuple moved per version a prune removes, where PageRepairFragmentation
 * moves every tuple below the lowest hole (and copies the tuple area twice
 * to do it), at the prune and again at each merge of the page from its log.
 * The tuples that can move are the lowest ones, below pd_upper plus the
 * holes' bytes: one pass over the line pointers finds them.  Row versions
 * of one table are mostly of one length; when a hole and the tuple at
 * pd_upper differ, or the page is not as described, the rest is left to
 * PageRepairFragmentation.  The result is deterministic, the same free
 * space as PageRepairFragmentation's (one run from pd_lower to pd_upper),
 * free line pointers at the end of the array cut off and PD_HAS_FREE_LINES
 * set as it does; only where the tuples lie differs, which nothing above
 * the page layer sees.
 */
static void
IplPruneFill(Page page, IplHole *holes, int n)
{
	PageHeader	ph = (PageHeader) page;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	int			upper = ph->pd_upper;
	int			limit = upper;
	int			top = 0;			/* holes[top..n) are still open */
	struct
	{
		int			off;
		OffsetNumber lp;
	}			low[MaxHeapTuplesPerPage];	/* tuples below limit, by offset */
	int			nlow = 0;
	int			next = 0;		/* low[next] is the tuple at upper */
	int			nunused = 0;
	OffsetNumber lastused = InvalidOffsetNumber;

	/* holes by offset, highest first; few: insertion sort */
	for (int i = 1; i < n; i++)
	{
		IplHole		h = holes[i];
		int			j = i;

		for (; j > 0 && holes[j - 1].off < h.off; j--)
			holes[j] = holes[j - 1];
		holes[j] = h;
	}
	for (int i = 0; i < n; i++)
		limit += holes[i].len;

	/*
	 * The tuples below limit, by offset, lowest first; the free line
	 * pointers, and the last used one
	 */
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		int			j;

		if (!ItemIdIsUsed(lp))
			nunused++;
		else
			lastused = off;
		if (!ItemIdIsNormal(lp) || (int) ItemIdGetOffset(lp) >= limit ||
			nlow == lengthof(low))
			continue;
		for (j = nlow++; j > 0 && low[j - 1].off > (int) ItemIdGetOffset(lp); j--)
			low[j] = low[j - 1];
		low[j].off = ItemIdGetOffset(lp);
		low[j].lp = off;
	}

	while (top < n)
	{
		ItemId		lp;

		/* the lowest open hole at pd_upper: no tuple to move */
		if (holes[n - 1].off == upper)
		{
			upper += holes[n - 1].len;
			n--;
			continue;
		}
		lp = next < nlow ? PageGetItemId(page, low[next].lp) : NULL;
		if (lp == NULL || low[next].off != upper ||
			(int) MAXALIGN(ItemIdGetLength(lp)) != holes[top].len ||
			holes[top].off < upper + holes[top].len ||
			holes[top].off + holes[top].len > ph->pd_special)
		{
			ph->pd_upper = upper;
			PageRepairFragmentation(page);
			return;
		}
		memmove((char *) page + holes[top].off, (char *) page + upper,
				ItemIdGetLength(lp));
		lp->lp_off = holes[top].off;
		upper += holes[top].len;
		next++;
		top++;
	}
	ph->pd_upper = upper;

	/*
	 * As PageRepairFragmentation: free line pointers at the end of the
	 * array are cut off, and PD_HAS_FREE_LINES tells of the others
	 */
	if (lastused < maxoff)
	{
		nunused -= maxoff - lastused;
		ph->pd_lower -= sizeof(ItemIdData) * (maxoff - lastused);
	}
	if (nunused > 0)
		PageSetHasFreeLinePointers(page);
	else
		PageClearHasFreeLinePointers(page);
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
			{
				IplPatch	patch;
				const char *bytes;
				pg_crc32c	want;
				int			r;

				while ((r = IplPatchNext(&p, end, &patch, &bytes, &want)) > 0)
				{
					if (bytes == NULL)
					{
						if (verify && IplBytesCrc((char *) base + patch.off, patch.len) != want)
							return false;
						bytes = (char *) base + patch.off;
						if (page == base)
							continue;
					}
					if (!dry)
						memcpy((char *) page + patch.off, bytes, patch.len);
				}
				return r == 0;
			}
		case IPL_REC_PRUNE:
		case IPL_REC_PRUNE_FILL:
			{
				uint32		pruneXid;
				uint32		n;
				IplHole		holes[MaxHeapTuplesPerPage];
				int			nholes = 0;
				bool		fill = rec->type == IPL_REC_PRUNE_FILL;

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
					ItemId		lp;

					memcpy(&item, p + i * sizeof(IplPruneItem), sizeof(item));
					if (item.off < FirstOffsetNumber || item.off > PageGetMaxOffsetNumber(page))
						return false;
					if (dry)
						continue;
					lp = PageGetItemId(page, item.off);
					/*
					 * The storage a normal line pointer gives up is a hole
					 * (one more than a page can have tuples: a damaged
					 * record, compacted as a whole)
					 */
					if (fill && ItemIdIsNormal(lp))
					{
						if (nholes == lengthof(holes))
							fill = false;
						else
						{
							holes[nholes].off = ItemIdGetOffset(lp);
							holes[nholes].len = MAXALIGN(ItemIdGetLength(lp));
							nholes++;
						}
					}
					memcpy(lp, &item.lp, sizeof(ItemIdData));
					if (fill && ItemIdIsNormal(lp))
						fill = false;	/* not a prune's change: compact */
				}
				if (dry)
					return true;
				if (fill)
					IplPruneFill(page, holes, nholes);
				else
					PageRepairFragmentation(page);
				((PageHeader) page)->pd_prune_xid = pruneXid;
				PageClearFull(page);
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

/*
 * IplRecExpand - the record to apply for rec, read from the log of page
 * blkno, to page (the base image with the records before rec applied):
 * rec itself, or for a DELTA record the PATCH record it stands for
 * (IplDeltaDecode; in a static buffer, valid until the next call).  NULL
 * for a DELTA record that does not decode against page.  Caller holds the
 * page lock.
 */
static const IplRecord *
IplRecExpand(const IplRecord *rec, Page page, BlockNumber blkno)
{
	static IplRecBuf expanded;
	const char *body = (const char *) rec + sizeof(IplRecord) + sizeof(TransactionId);
	TransactionId xid;

	if (rec->type != IPL_REC_DELTA)
		return rec;
	if (rec->len < sizeof(IplRecord) + sizeof(TransactionId))
		return NULL;
	memcpy(&xid, (const char *) rec + sizeof(IplRecord), sizeof(xid));
	if (!IplDeltaDecode(&expanded, body, (const char *) rec + rec->len - body,
						page, blkno, xid))
		return NULL;
	expanded.u.hdr.flags = rec->flags;
	expanded.u.hdr.len = (uint16) expanded.len;
	return &expanded.u.hdr;
}

#ifdef USE_ASSERT_CHECKING
/*
 * IplDeltaCheck - does the DELTA record delta, about to be appended, stand
 * for the PATCH record rb on page (the page before both) of block blkno?
 * Its patches must come back byte for byte.
 */
static void
IplDeltaCheck(const IplRecBuf *rb, const IplRecBuf *delta, Page page,
			  BlockNumber blkno)
{
	const IplRecord *back = IplRecExpand(&delta->u.hdr, page, blkno);
	int			blen;

	Assert(back != NULL);
	blen = back->len;
	/* rb is padded to 8 bytes with zeros, the decoded record is not */
	Assert(blen <= rb->len && rb->len - blen < 8);
	Assert(memcmp((const char *) back + sizeof(IplRecord),
				  rb->u.data + sizeof(IplRecord), blen - sizeof(IplRecord)) == 0);
	for (int i = blen; i < rb->len; i++)
		Assert(rb->u.data[i] == 0);
}
#endif

/* the hint of every error about a damaged page */
#define IPL_DAMAGED_PAGE_HINT \
	"Restore the table from a backup, or copy its other pages out (nvm_am_check() lists the damaged ones). Other tables are not affected."

/*
 * IplPageOwner - the RelFileNode of the relation in directory entry
 * dirIndex, all zero when the entry holds none.
 */
void
IplPageOwner(int dirIndex, RelFileNode *node)
{
	uint64		state;

	if (!NvmPoolRelGetKey(dirIndex, node, &state))
		memset(node, 0, sizeof(*node));
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

	if (NvmPoolFrameVerified(frame))
		return;
	if (!IplFrameChecksumOk(dirIndex, blkno, frame, &stored, &computed))
	{
		NvmPoolCountAdd(NVM_STAT_CHECKSUM_FAILURES, 1);
		IplPageOwner(dirIndex, &node);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("nvm_am page %u of relation with relfilenode %u has a bad checksum",
						blkno, node.relNode),
				 errdetail("Frame %llu of the pool stores checksum %u, its contents give %u.",
						   (unsigned long long) frame, stored, computed),
				 errhint(IPL_DAMAGED_PAGE_HINT)));
	}
	NvmPoolSetFrameVerified(frame);
}

/*
 * IplLogEmpty - has frame no log record for its current base image?
 */
static inline bool
IplLogEmpty(uint64 frame)
{
	char	   *log = NvmPoolFrameLog(frame);

	return log == NULL ||
		((IplRecord *) log)->gen != IplPageGen(NvmPoolFramePage(frame));
}

/*
 * IplRecAppended - is rec, at byte off of a log of size bytes, a header of
 * generation gen with a possible length that fits the log?  When gen was
 * handed out in this run, that is a record IplLogAppend appended: it ends
 * the log with a generation of 0, so no CRC is needed (the bytes after the
 * end may be an older log's, even tuple bytes that look like a header of
 * gen, but never where IplLogAppend left its end mark).
 */
static inline bool
IplRecAppended(const IplRecord *rec, uint64 gen, uint32 off, uint32 size)
{
	return rec->gen == gen && rec->len >= sizeof(IplRecord) && rec->len % 8 == 0 &&
		off + rec->len <= size;
}

/*
 * IplRecWhole - is rec, at byte off of a log of size bytes, a whole record
 * of generation gen, whatever run wrote it: IplRecAppended, and its CRC?
 */
static inline bool
IplRecWhole(const IplRecord *rec, uint64 gen, uint32 off, uint32 size)
{
	return IplRecAppended(rec, gen, off, size) && rec->crc == IplRecCrc(rec);
}

/*
 * IplLogValidAfter - is there a whole, valid record of generation gen in
 * frame's log at or after offset from?  Records are appended one after
 * another and each is persisted before the next is written, and a
 * generation is never reused: a crash leaves at most one bad record, the
 * last.  A valid record behind a bad one is damage.
 */
static bool
IplLogValidAfter(uint64 frame, uint64 gen, uint32 from)
{
	char	   *log = NvmPoolFrameLog(frame);
	uint32		size = NvmPoolFrameLogSize(frame);

	for (uint32 off = TYPEALIGN(8, from); off + sizeof(IplRecord) <= size; off += 8)
	{
		const IplRecord *rec = (const IplRecord *) (log + off);

		if (IplRecWhole(rec, gen, off, size))
			return true;
	}
	return false;
}

/*
 * IplLogDamaged - ERROR for a damaged in-page log: a record that fails its
 * checks with valid records after it.
 */
static void
IplLogDamaged(int dirIndex, BlockNumber blkno, uint64 frame, uint32 off)
{
	RelFileNode node;

	IplPageOwner(dirIndex, &node);
	NvmPoolCountAdd(NVM_STAT_CHECKSUM_FAILURES, 1);
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("nvm_am page %u of relation with relfilenode %u has a damaged in-page log",
					blkno, node.relNode),
			 errdetail("The record at byte %u of the log of frame %llu fails its check and valid records follow it; a crash leaves a bad record only at the end.",
					   off, (unsigned long long) frame),
			 errhint(IPL_DAMAGED_PAGE_HINT)));
}

/*
 * IplLogUsed - the bytes of the valid records at the start of frame's log
 * (0 for a frame without one).  Caller holds the page lock.
 */
uint32
IplLogUsed(uint64 frame)
{
	char	   *log = NvmPoolFrameLog(frame);
	uint32		size = NvmPoolFrameLogSize(frame);
	uint64		gen = IplPageGen(NvmPoolFramePage(frame));
	uint32		used = 0;

	if (log == NULL)
		return 0;
	while (used + sizeof(IplRecord) <= size)
	{
		const IplRecord *rec = (const IplRecord *) (log + used);

		if (!IplRecWhole(rec, gen, used, size))
			break;
		used += rec->len;
	}
	return used;
}

/*
 * IplLogDescribe - the valid records at the start of the log of frame,
 * page blkno's, as many as fit in recs[0..max): where each starts, its
 * length, kind and flags; for a patch record (a DELTA record: the patch
 * record it stands for) the number of patches and the page bytes they
 * write (those of a tuple appended into the base's free space included),
 * for a prune the line pointers it changes.  The records are applied to a
 * copy of the base as they are described (a DELTA record decodes against
 * the page before it).  Returns the number of records.  Caller holds the
 * page lock.
 */
int
IplLogDescribe(uint64 frame, BlockNumber blkno, IplRecInfo *recs, int max)
{
	char	   *log = NvmPoolFrameLog(frame);
	uint32		used = IplLogUsed(frame);
	Page		base = NvmPoolFramePage(frame);
	PGAlignedBlock image;
	bool		applies = true;
	int			n = 0;

	memcpy(image.data, base, BLCKSZ);
	for (uint32 off = 0; off < used && n < max;)
	{
		const IplRecord *rec = (const IplRecord *) (log + off);
		const IplRecord *apply = applies ? IplRecExpand(rec, image.data, blkno) : NULL;
		IplRecInfo *ri = &recs[n++];

		ri->off = off;
		ri->len = rec->len;
		ri->append = (rec->flags & IPL_RECF_APPEND) != 0;
		ri->prune = IplRecIsPrune(rec->type);
		ri->fill = rec->type == IPL_REC_PRUNE_FILL;
		ri->delta = rec->type == IPL_REC_DELTA;
		ri->items = 0;
		ri->bytes = 0;
		if (apply != NULL && apply->type == IPL_REC_PATCH)
		{
			const char *p = (const char *) apply + sizeof(IplRecord);
			const char *end = (const char *) apply + apply->len;
			IplPatch	patch;
			const char *bytes;
			pg_crc32c	crc;

			while (IplPatchNext(&p, end, &patch, &bytes, &crc) > 0)
			{
				ri->items++;
				ri->bytes += patch.len;
			}
		}
		else if (ri->prune && rec->len >= sizeof(IplRecord) + 8)
		{
			uint32		items;

			memcpy(&items, (const char *) rec + sizeof(IplRecord) + 4, sizeof(items));
			ri->items = (int) items;
		}
		/* a record that does not apply (damage): the DELTA ones after it cannot */
		applies = apply != NULL &&
			IplRedoExt(image.data, apply, base, false, false);
		off += rec->len;
	}
	return n;
}

/*
 * IplLogCheck - does the log of frame end cleanly (its records
 * all valid, or a bad one last)?  Else *badOff is the first bad record.
 * Caller holds the page lock.
 */
bool
IplLogCheck(uint64 frame, uint32 *badOff)
{
	if (NvmPoolFrameLog(frame) == NULL)
		return true;
	*badOff = IplLogUsed(frame);
	return !IplLogValidAfter(frame, IplPageGen(NvmPoolFramePage(frame)), *badOff + 8);
}

/*
 * IplMerge - dst = the base image of page blkno (of the relation in entry
 * dirIndex) in frame with the valid records of its log applied; returns the
 * bytes of log they take.  A damaged log is an ERROR.  Caller holds the
 * page lock (no record is being appended).
 */
static uint32
IplMerge(int dirIndex, BlockNumber blkno, Page dst, uint64 frame,
		 bool *hasPrune, bool *appendOnly)
{
	char	   *log = NvmPoolFrameLog(frame);
	uint32		size = NvmPoolFrameLogSize(frame);
	uint32		used = 0;
	uint64		gen;
	bool		thisRun;
	int			n = 0;

	*hasPrune = false;
	*appendOnly = true;
	memcpy(dst, NvmPoolFramePage(frame), BLCKSZ);
	if (log == NULL)
		return 0;
	gen = IplPageGen(dst);

	/*
	 * A base image written since the server started has only records this
	 * run appended whole, after the tuple bytes they vouch for: nothing of
	 * it can be torn, and damage at rest was looked for when the page was
	 * first read after the start (below).  Its log ends where
	 * IplLogAppend's end mark is (IplRecAppended): no record CRC to check.
	 */
	thisRun = NvmPoolGenerationIsNew(gen);
	while (used + sizeof(IplRecord) <= size)
	{
		const IplRecord *rec = (const IplRecord *) (log + used);
		const IplRecord *apply = NULL;	/* rec, or the PATCH a DELTA stands for */

		/*
		 * The end of the log: a record of an earlier generation (or none);
		 * or a torn record, or a whole record whose appended tuple bytes in
		 * the base did not reach the pool (they are flushed with the record
		 * and drained once), or that does not apply to the page: it and
		 * everything after it never happened; the records before it stand.
		 * But only the last record can be torn: a valid record after the
		 * end means the log is damaged.
		 */
		if (thisRun ? !IplRecAppended(rec, gen, used, size) :
			(!IplRecWhole(rec, gen, used, size) ||
			 (apply = IplRecExpand(rec, dst, blkno)) == NULL ||
			 !IplRedoCheck(dst, apply, NvmPoolFramePage(frame))))
		{
			if (!thisRun && IplLogValidAfter(frame, gen, used + 8))
				IplLogDamaged(dirIndex, blkno, frame, used);
			if (!thisRun && rec->gen == gen)
				NvmPoolCountAdd(NVM_STAT_IPL_TORN_RECORDS, 1);
			break;
		}
		if (thisRun)
			apply = IplRecExpand(rec, dst, blkno);
		if (apply == NULL ||
			!IplRedoExt(dst, apply, NvmPoolFramePage(frame), false, false))
			elog(ERROR, "nvm_am in-page log record of frame %llu applies after its check",
				 (unsigned long long) frame);
		if (IplRecIsPrune(rec->type))
			*hasPrune = true;
		if (!(rec->flags & IPL_RECF_APPEND))
			*appendOnly = false;
		used += rec->len;
		n++;
	}
	if (n > 0)
		NvmPoolCountAdd(NVM_STAT_MERGES_ON_READ, 1);
	return used;
}

/*
 * IplLoad - bring the image of the page in frame into the merge cache;
 * returns its slot.  A merge that fails (a damaged log) gives the slot it
 * reserved back: every read of a damaged page fails, and none may take a
 * slot with it.  Caller holds the page lock.
 */
static int
IplLoad(int dirIndex, BlockNumber blkno, uint64 frame)
{
	int			slot = IplCacheAlloc();
	bool		hasPrune;
	bool		appendOnly;
	uint32		used;

	PG_TRY();
	{
		used = IplMerge(dirIndex, blkno, IplCacheSlotPage(slot), frame,
						&hasPrune, &appendOnly);
	}
	PG_CATCH();
	{
		IplCacheFree(slot);
		PG_RE_THROW();
	}
	PG_END_TRY();
	slot = IplCacheMap(slot, dirIndex, blkno, frame, used, hasPrune);
	if (IplCacheSlotById(slot)->frame == frame && IplCacheSlotById(slot)->logUsed == used)
		IplCacheSlotById(slot)->logAppendOnly = appendOnly;
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

	return IplImage(dirIndex, blkno, &frame, NULL);
}

/*
 * IplReadPage - IplGetPage, also telling where the image came from (*src).
 */
Page
IplReadPage(int dirIndex, BlockNumber blkno, IplReadSource *src)
{
	uint64		frame;

	return IplImage(dirIndex, blkno, &frame, src);
}

/*
 * IplImage - IplGetPage, also telling the page's frame and (src, may be
 * NULL) where its image came from.
 */
static Page
IplImage(int dirIndex, BlockNumber blkno, uint64 *framep, IplReadSource *src)
{
	uint64		frame = NvmPoolRelGetFrame(dirIndex, blkno);
	int			slot = IplCacheLookup(frame);
	bool		reader;

	*framep = frame;
	if (slot >= 0)
	{
		IplSlot    *s = IplCacheSlotById(slot);

		/*
		 * The cache is not told when a frame is freed: an image of the
		 * frame's earlier page has another page or generation.
		 */
		if (s->dirIndex == dirIndex && s->blkno == blkno &&
			IplPageGen(IplCacheSlotPage(slot)) == IplPageGen(NvmPoolFramePage(frame)))
		{
			if (src)
				*src = IPL_READ_CACHED;
			return IplCacheSlotPage(slot);
		}
		IplCacheDropStale(slot, frame);
	}
	IplVerifyFrame(dirIndex, blkno, frame);
	reader = !LWLockHeldByMeInMode(NvmPoolPageLock(dirIndex, blkno), LW_EXCLUSIVE);
	if (reader && IplLogEmpty(frame))
	{
		if (src)
			*src = IPL_READ_IN_PLACE;
		return NvmPoolFramePage(frame);
	}
	slot = IplLoad(dirIndex, blkno, frame);
	if (src)
		*src = reader &&
			IplCacheNoteReadMerge(frame, IplPageGen(NvmPoolFramePage(frame)),
								  IplCacheSlotById(slot)->logUsed) ?
			IPL_READ_MERGED_AGAIN : IPL_READ_MERGED;
	return IplCacheSlotPage(slot);
}

/*
 * IplLookPage - look page blkno up for a reader that will keep pointers
 * into it (IplHoldRef): *ref gets its image, its frame and where the image
 * came from.  A reader that first decides whether to prune the page
 * (NvmPruneBeforeRead) then holds the image it looked at, one page-table
 * walk and merge-cache lookup rather than two.  The reference stays good
 * while the caller keeps the page lock.  Caller holds the page lock.
 */
void
IplLookPage(int dirIndex, BlockNumber blkno, IplPageRef *ref)
{
	ref->page = IplImage(dirIndex, blkno, &ref->frame, &ref->src);
}

/*
 * IplPageInUse - whether a backend holds page blkno pinned: its current
 * image (a merge-cache slot), its frame, which a reader of the page in
 * place pins, or the frame the slot's image was in before the page moved
 * to a new frame while that reader was on it (a scan that read a clean
 * page in place, then updated rows on it).  The opportunistic prune asks
 * it, as heap's needs a cleanup lock (no pin but its own).  Caller holds
 * the page lock exclusively (a stale earlier frame is forgotten here).
 */
bool
IplPageInUse(int dirIndex, BlockNumber blkno)
{
	IplPageRef	ref;
	int			slot;
	IplSlot    *s;

	IplLookPage(dirIndex, blkno, &ref);
	if (NvmPoolPinCount(ref.frame) > 0)
		return true;
	slot = IplCacheSlotOfPage(ref.page);
	if (slot < 0)
		return false;
	s = IplCacheSlotById(slot);
	if (NvmPoolPinCount(IplCacheSlotPinId(slot)) > 0)
		return true;
	if (s->readerFrame == 0)
		return false;
	/*
	 * The earlier frame counts while it is retired and pinned.  Its last
	 * unpin frees it, and then it may hold another page, whose readers must
	 * not keep this one from being pruned: forget it.
	 */
	if (NvmPoolFrameRetiredPinned(s->readerFrame))
		return true;
	s->readerFrame = 0;
	return false;
}

/*
 * IplPinIdOf - what holding a page's image pins: its merge-cache slot
 * (slot, from IplCacheSlotOfPage), or else frame, which it is read from in
 * place.
 */
static inline uint64
IplPinIdOf(int slot, uint64 frame)
{
	return slot >= 0 ? IplCacheSlotPinId(slot) : frame;
}

/*
 * IplHoldRef - hold the image IplLookPage found, for a scan or an index
 * fetch that keeps pointers into it after releasing the page lock: the
 * image is pinned in *held (and the pin of what *held pinned before
 * dropped).  With nvm_am.read_mode = copy and a copy buffer given, the
 * image is copied there and the copy returned; the pin is taken all the
 * same, as heap's scan keeps its buffer pinned: an opportunistic prune
 * leaves a page alone while a reader is on it (IplPageInUse), in both
 * modes, so that rows go where heap puts them.  Caller holds the page
 * lock, taken before ref was filled and held since.
 */
Page
IplHoldRef(const IplPageRef *ref, uint64 *held, char *copybuf)
{
	Page		page = ref->page;
	int			slot = IplCacheSlotOfPage(page);
	bool		copy = copybuf != NULL && nvm_read_mode == NVM_READ_COPY;
	uint64		id = IplPinIdOf(slot, ref->frame);

	if (*held != id)
	{
		NvmPoolPinFrame(id);
		if (*held != 0)
			NvmPoolUnpinFrame(*held);
		*held = id;
	}
	if (copy)
	{
		memcpy(copybuf, page, BLCKSZ);
		NvmPoolCountAdd(NVM_STAT_COPIED_PAGE_READS, 1);
		return (Page) copybuf;
	}
	NvmPoolCountAdd(slot >= 0 ? NVM_STAT_MERGED_PAGE_READS :
					NVM_STAT_REDIRECTED_PAGE_READS, 1);
	return page;
}

/*
 * IplPrefetchStart - set cur up to ask the CPU for the image of page blkno (of
 * the relation in directory entry dirIndex) that a read will find, the merge
 * cache's if it holds one (IplCachePeek), else the base image, over steps
 * calls of IplPrefetchStep.  A sequential scan calls it for the page it reads
 * next and steps once per tuple it returns of the page before, so that the
 * next page's bytes come in while the executor works on the tuples before
 * instead of being waited for when the scan gets there: on the first read
 * after a start the checksum check, which reads all of the page (about as long
 * as the checksum itself when the pool is in memory); on later reads the line
 * pointers and tuple headers the scan's visibility loop reads and the tuples
 * the executor deforms, in place or in the copy of read_mode = copy (warm
 * TPC-H Q6, one session alternating with and without on a quiet machine: 11 %
 * faster in place, level with the copy mode, which it leaves as it was).  A
 * page whose image is merged from its log reads the base too when the merge
 * cache has no image of it.  (The base alone missed every page a read finds in
 * the cache: after a bulk load the cache keeps the images of its last pages,
 * 8,192 of the 20,000 of a 156 MB table with the default cache, and in-place
 * Q1 and Q6 ran at 1.02 and 1.03 of the copy mode's time.)  With no steps to
 * come every line is asked for at once.  A hint: the frame is looked up
 * without the page lock and may be one the page is leaving.  Caller holds a
 * lock on the relation.
 */
void
IplPrefetchStart(IplPrefetchCursor *cur, int dirIndex, BlockNumber blkno,
				 int steps)
{
	uint64		frame = NvmPoolRelPeekFrame(dirIndex, blkno);
	int			lines = BLCKSZ / IPL_CPU_LINE;
	Page		image;

	cur->next = cur->end = NULL;
	if (frame == 0)
		return;
	/* the cached image, which IplImage will return, else the base */
	image = IplCachePeek(frame);
	cur->next = (const char *) (image ? image : NvmPoolFramePage(frame));
	cur->end = cur->next + BLCKSZ;
	cur->step = (steps > 0 ? (lines + steps - 1) / steps : lines) * IPL_CPU_LINE;
	if (steps == 0)
		IplPrefetchStep(cur);
}

/*
 * IplCopyBuffer - the copy buffer a reader hands IplHoldRef: a page's worth
 * of memory in the current memory context under nvm_am.read_mode = copy,
 * NULL otherwise (the reader then reads in place, also should the setting
 * change while it runs).  Readers begin per statement, and an 8 kB
 * allocation is a malloc of its own: about 0.3 % of the backends' CPU in a
 * profile of primary-key reads, for a buffer the default mode never used.
 */
char *
IplCopyBuffer(void)
{
	return nvm_read_mode == NVM_READ_COPY ? palloc(BLCKSZ) : NULL;
}

/*
 * IplPinPage - pin page blkno's current image (a merge-cache slot, or its
 * frame) for a caller that keeps a copy of one of its rows the way heap's
 * tuple slots keep the row's buffer pinned, so that the page counts as in
 * use (IplPageInUse); returns the pin, for IplDropPage.  No read is
 * counted.  Caller holds the page lock.
 */
uint64
IplPinPage(int dirIndex, BlockNumber blkno)
{
	IplPageRef	ref;
	uint64		id;

	IplLookPage(dirIndex, blkno, &ref);
	id = IplPinIdOf(IplCacheSlotOfPage(ref.page), ref.frame);
	NvmPoolPinFrame(id);
	return id;
}

/*
 * IplDropPage - drop the pin IplHoldRef left in *held, if any.
 */
void
IplDropPage(uint64 *held)
{
	if (*held != 0)
		NvmPoolUnpinFrame(*held);
	*held = 0;
}

/*
 * IplHoldAlso - pin in *also the image IplHoldRef pinned in held (none when
 * held is 0), and drop what *also pinned before.  An index fetch keeps the
 * image of the row it returned last pinned this way until it returns the
 * next, as heap's tuple slot keeps the row's buffer pinned while the fetch
 * goes on to other pages: coming back to that page, an opportunistic prune
 * leaves it alone (IplPageInUse), as heap's finds no cleanup lock, and the
 * next update on it puts its row where heap's does.  Caller holds the lock
 * of the page in held's image.
 */
void
IplHoldAlso(uint64 held, uint64 *also)
{
	if (*also == held)
		return;
	if (held != 0)
		NvmPoolPinFrame(held);
	if (*also != 0)
		NvmPoolUnpinFrame(*also);
	*also = held;
}

/* ----------------------------------------------------------------
 * Storage created in this transaction
 *
 * Nobody but the transaction that creates a relfilenode (CREATE TABLE,
 * CREATE TABLE AS, TRUNCATE, the rewrites of ALTER TABLE, CLUSTER and
 * VACUUM FULL, SET TABLESPACE) can reach its pages before that transaction
 * commits, and when it does not commit, the storage is freed: at abort,
 * or after a crash by recovery, which finds the directory entry flagged
 * CREATING by an xid that clog does not call committed.  The pages of such
 * storage need not be persisted change by change, each state
 * recoverable: their bytes go to the pool as any page's do, unflushed, and
 * IplXactPreCommit flushes every frame of the storage once, with one
 * drain, before the commit record that makes it reachable.  (heap does
 * the same with wal_level = minimal: no WAL for a new relfilenode, an
 * fsync of it at commit.)  A bulk load otherwise flushed and drained each
 * tuple, its record and every page it filled while the lines were hot:
 * an eighth of the time of a CREATE TABLE AS of 1.5 M rows, against a
 * tenth of a percent for the flush at pre-commit, when most lines have
 * left the cache already.
 *
 * Not with nvm_am.wal_log (its relations, not unlogged ones): WAL replay
 * applies records to the frames, which must then hold what the records
 * were made against.
 *
 * The list is backend-local and short: the first IPL_NEW_STORAGE_MAX
 * relfilenodes the current transaction creates (one that creates more,
 * say a restore in a single transaction, persists the others change by
 * change as before, and no lookup walks a long list).  An entry counts
 * only while the directory entry still says CREATING by this
 * transaction's xid, so storage a subtransaction's abort freed, and whose
 * entry another relation took, is never skipped.
 * ----------------------------------------------------------------
 */
#define IPL_NEW_STORAGE_MAX 32

static int	ipl_new_storage[IPL_NEW_STORAGE_MAX];
static int	ipl_new_count = 0;

/* IplStorageOurs - is directory entry dirIndex storage this transaction is creating? */
static bool
IplStorageOurs(int dirIndex)
{
	uint64		state = NvmPoolRelGetState(dirIndex);

	return (state & NVM_REL_CREATING) != 0 &&
		NVM_REL_STATE_XID(state) == GetTopTransactionIdIfAny();
}

/*
 * IplDeferred - are changes of pages of directory entry dirIndex persisted
 * at pre-commit rather than one by one?
 */
static inline bool
IplDeferred(int dirIndex)
{
	if (likely(ipl_new_count == 0))
		return false;
	for (int i = 0; i < ipl_new_count; i++)
		if (ipl_new_storage[i] == dirIndex)
			return IplStorageOurs(dirIndex);
	return false;
}

/* IplPersist - persist len bytes at addr of a page of dirIndex (flush and drain) */
static inline void
IplPersist(int dirIndex, const void *addr, Size len)
{
	if (!IplDeferred(dirIndex))
		NvmPoolPersist(addr, len);
}

/* IplFlush - flush len bytes at addr of a page of dirIndex, no drain */
static inline void
IplFlush(int dirIndex, const void *addr, Size len)
{
	if (!IplDeferred(dirIndex))
		NvmPoolFlush(addr, len);
}

/* IplPublish64 - store an aligned 8-byte word of a page of dirIndex, persisted */
static inline void
IplPublish64(int dirIndex, uint64 *addr, uint64 value)
{
	if (IplDeferred(dirIndex))
		*(volatile uint64 *) addr = value;
	else
		NvmPoolPublish64(addr, value);
}

/*
 * IplStorageCreated - the current transaction created the storage in
 * directory entry dirIndex: persist its pages at pre-commit, unless its
 * changes go to WAL.  The entry may be one that a subtransaction's abort
 * freed and this transaction took again: a stale list entry of it goes
 * when the new storage is WAL-logged.
 */
void
IplStorageCreated(int dirIndex)
{
	bool		walLogged = IplWalLogged(dirIndex);

	for (int i = 0; i < ipl_new_count; i++)
	{
		if (ipl_new_storage[i] != dirIndex)
			continue;
		if (walLogged)
			ipl_new_storage[i] = ipl_new_storage[--ipl_new_count];
		return;
	}
	if (!walLogged && IplStorageOurs(dirIndex) && ipl_new_count < IPL_NEW_STORAGE_MAX)
		ipl_new_storage[ipl_new_count++] = dirIndex;
}

/*
 * IplXactPreCommit - at pre-commit or pre-prepare: flush every frame (page
 * and log area) of the storage this transaction created and still has,
 * then drain.  Called before the transaction's commit record is written;
 * no lock needed (nobody else reaches the storage yet).
 */
void
IplXactPreCommit(void)
{
	bool		flushed = false;

	for (int i = 0; i < ipl_new_count; i++)
	{
		int			dirIndex = ipl_new_storage[i];
		BlockNumber nblocks;

		if (!IplStorageOurs(dirIndex) ||
			(NvmPoolRelGetState(dirIndex) & NVM_REL_DROPPING))
			continue;
		nblocks = NvmPoolRelNBlocks(dirIndex);
		for (BlockNumber blkno = 0; blkno < nblocks; blkno++)
		{
			uint64		frame = NvmPoolRelGetFrame(dirIndex, blkno);
			uint32		logSize = NvmPoolFrameLogSize(frame);

			NvmPoolFlush(NvmPoolFramePage(frame), BLCKSZ);
			if (logSize > 0)
				NvmPoolFlush(NvmPoolFrameLog(frame), logSize);
			if ((blkno & 1023) == 1023)
				CHECK_FOR_INTERRUPTS();
		}
		flushed = true;
	}
	if (flushed)
		NvmPoolDrain();
	ipl_new_count = 0;
}

/* IplXactEnd - the transaction ended (after IplXactPreCommit or aborted) */
void
IplXactEnd(void)
{
	ipl_new_count = 0;
}

/*
 * IplWriteFrame - write image, with a new generation (so its log area is
 * empty), to newframe and make that block blkno's frame; slot, when not
 * -1, is the page's cache slot and follows it to newframe.  The old frame
 * is retired last: once free, another backend may take it and map an
 * image of it, which must not find this page's slot still mapped there.
 * Caller holds the page lock exclusively and allocated newframe.
 */
void
IplWriteFrame(int dirIndex, BlockNumber blkno, Page image, uint64 newframe,
			  int slot)
{
	Page		dst = NvmPoolFramePage(newframe);
	uint64		old;

	IplPageSetGen(image, NvmPoolNextGeneration());
	IplSetChecksum(dirIndex, blkno, image);
	memcpy(dst, image, BLCKSZ);
	IplPersist(dirIndex, dst, BLCKSZ);
	/* its checksum was computed from these bytes: no check at its first read */
	NvmPoolSetFrameVerified(newframe);
	old = NvmPoolRelSwapFrame(dirIndex, blkno, newframe);
	*NvmPoolFrameWalLsn(newframe) = ipl_in_redo ? InvalidXLogRecPtr : *NvmPoolFrameWalLsn(old);
	if (slot >= 0)
		IplCacheRemap(slot, newframe);
	NvmPoolRetireFrame(old);
	NvmPoolCountAdd(NVM_STAT_MERGES_ON_FULL, 1);
	NvmPoolCountAdd(NVM_STAT_MERGE_BYTES_WRITTEN, BLCKSZ);
}

/*
 * IplWriteBack - write image, the page's cached image in slot, to newframe
 * (IplWriteFrame); the slot stays the page's image.
 */
static void
IplWriteBack(int slot, Page image, uint64 newframe)
{
	IplSlot    *s = IplCacheSlotById(slot);

	IplWriteFrame(s->dirIndex, s->blkno, image, newframe, slot);
}

/*
 * IplLogAppend - append the finished record in rb to the log of the page
 * in slot s and persist it; s->logUsed moves past it.  Caller holds the
 * page lock exclusively and made sure it fits.
 */
static void
IplLogAppend(IplSlot *s, IplRecBuf *rb)
{
	char	   *dst = NvmPoolFrameLog(s->frame) + s->logUsed;
	uint32		size = NvmPoolFrameLogSize(s->frame);

	Assert(s->logUsed + rb->len <= size);
	memcpy(dst, rb->u.data, rb->len);
	IplPersist(s->dirIndex, dst, rb->len);

	/*
	 * The end mark: a generation no page has, where the next record would
	 * start.  It is for this run's merges only (IplRecAppended), so it is
	 * not persisted: after a crash every generation is an earlier run's,
	 * whose logs are checked record by record.
	 */
	if (s->logUsed + rb->len + sizeof(IplRecord) <= size)
		((IplRecord *) (dst + rb->len))->gen = 0;
	if (s->logUsed == 0)
		s->logAppendOnly = true;
	if (!(rb->u.hdr.flags & IPL_RECF_APPEND))
		s->logAppendOnly = false;
	s->logUsed += rb->len;
	NvmPoolCountAdd(NVM_STAT_IPL_RECORDS, 1);
	NvmPoolCountAdd(NVM_STAT_IPL_BYTES, rb->len);
}

/*
 * IplStealLogFrame - log frames have run out: seal (IplSeal) the page that
 * was given a log frame longest ago, by any backend (IplCacheNoteLogFrame),
 * if its lock can be had at once, so that its frame is free for page blkno
 * of dirIndex.  Most likely that page has stopped changing: a statement
 * that changes a large table moves on through it, and the next statement,
 * in another session maybe, changes other pages.  Without this the page
 * being changed would be written whole at each of its changes until some
 * VACUUM gives log frames back.  Returns whether a page gave its log frame
 * back.
 *
 * The candidate's relation is not locked by us: it may be dropped or cut
 * short meanwhile, its directory entry reused.  The directory lock, held
 * shared while we seal, keeps its page tables from being freed (both take
 * it exclusively); a page of whatever relation holds the entry now may be
 * sealed, which does not change its contents.  Caller holds the lock of
 * page blkno (the same lock as a candidate's: that one is passed over);
 * the other locks are only tried, never waited for.
 */
static bool
IplStealLogFrame(int dirIndex, BlockNumber blkno)
{
	LWLock	   *own = NvmPoolPageLock(dirIndex, blkno);
	int			vdir;
	BlockNumber vblk;
	bool		sealed = false;

	if (!LWLockConditionalAcquire(NvmPoolDirLock(), LW_SHARED))
		return false;
	for (int tries = 0; tries < 8 && !sealed && IplCacheOldestLogFrame(&vdir, &vblk); tries++)
	{
		LWLock	   *lock;

		if (vdir < 0 || vdir >= NvmPoolDirSize() || NvmPoolRelIsDamaged(vdir) ||
			!(NvmPoolRelGetState(vdir) & NVM_REL_USED) ||
			vblk >= NvmPoolRelNBlocks(vdir))
			continue;
		lock = NvmPoolPageLock(vdir, vblk);
		if (lock == own || !LWLockConditionalAcquire(lock, LW_EXCLUSIVE))
			continue;
		/* (a page sealed since, or with no plain frame to go to, frees none) */
		sealed = NvmPoolFrameLogSize(NvmPoolRelGetFrame(vdir, vblk)) > 0 &&
			IplSeal(vdir, vblk, false) &&
			NvmPoolFrameLogSize(NvmPoolRelGetFrame(vdir, vblk)) == 0;
		LWLockRelease(lock);
	}
	LWLockRelease(NvmPoolDirLock());
	if (sealed)
		NvmPoolCountAdd(NVM_STAT_LOG_FRAMES_STOLEN, 1);
	return sealed;
}

/*
 * IplDeltaWanted - may the record in rb go to a log as a DELTA record?  A
 * PATCH record with no patch of bytes in the base (those bytes would go
 * into the DELTA record), in a pool of format version 7 or later (the
 * builds of older versions do not read DELTA records).
 */
static inline bool
IplDeltaWanted(const IplRecBuf *rb)
{
	return rb->u.hdr.type == IPL_REC_PATCH && !rb->hasBasePatch &&
		NvmPoolFormatVersion() >= 7;
}

/*
 * IplDeltaRecord - the DELTA record that stands for the finished PATCH
 * record rb (IplDeltaWanted) in the log, into delta, when it is shorter:
 * body (len bytes) is rb's compact form for xid (IplDeltaEncode).  Returns
 * the record to append: delta or rb.
 */
static IplRecBuf *
IplDeltaRecord(IplRecBuf *rb, IplRecBuf *delta, const char *body, int len,
			   TransactionId xid)
{
	if ((int) TYPEALIGN(8, sizeof(IplRecord) + sizeof(xid) + len) >= rb->len)
		return rb;
	IplRecStart(delta, IPL_REC_DELTA);
	delta->u.hdr.flags = rb->u.hdr.flags;
	IplRecAdd(delta, &xid, sizeof(xid));
	IplRecAdd(delta, body, len);
	IplRecFinish(delta, rb->u.hdr.gen);
	return delta;
}

/*
 * IplApply - make the record in rb a change of page, which must be the
 * cached image IplGetPage returned under the exclusive page lock: append
 * it to the page's log (as a DELTA record when that is shorter:
 * IplDeltaRecord) and apply it, or, when the log has no room, apply it and
 * write the page to a new frame.  WAL mode logs the record's compact form,
 * made once for both.
 */
void
IplApply(Page page, IplRecBuf *rb)
{
	static IplRecBuf deltabuf;
	int			slot = IplCacheSlotOfPage(page);
	IplSlot    *s;
	uint32		size;
	bool		wal;
	bool		delta;
	IplRecBuf  *logrec;
	const char *body = NULL;
	int			len = 0;

	if (slot < 0)
		elog(ERROR, "nvm_am page change outside the merge cache");
	s = IplCacheSlotById(slot);
	Assert(LWLockHeldByMeInMode(NvmPoolPageLock(s->dirIndex, s->blkno), LW_EXCLUSIVE));
	wal = IplWalNeeded(s->dirIndex);
	size = NvmPoolFrameLogSize(s->frame);
	IplRecFinish(rb, IplPageGen(page));
	logrec = rb;
	/* (no DELTA record for a log without room for the shortest one) */
	delta = s->logUsed + sizeof(IplRecord) + 8 <= size && IplDeltaWanted(rb);
	if (wal || delta)
	{
		TransactionId xid = IplRecordXid();

		body = IplDeltaEncode(rb, NvmPoolFramePage(s->frame), page, s->blkno, xid, &len);
		if (delta)
			logrec = IplDeltaRecord(rb, &deltabuf, body, len, xid);
#ifdef USE_ASSERT_CHECKING
		if (logrec != rb)
			IplDeltaCheck(rb, logrec, page, s->blkno);
#endif
	}
	if (s->logUsed + logrec->len <= size)
	{
		if (wal)
			IplWalChange(s, page, rb, body, len, InvalidTransactionId);
		IplLogAppend(s, logrec);
		if (!IplRedoOwn(page, &rb->u.hdr, NvmPoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
	}
	else if (s->logAppendOnly && (rb->u.hdr.flags & IPL_RECF_APPEND))
	{
		/* appends only: apply them to the base in place, no new frame */
		if (wal)
			IplWalChange(s, page, rb, body, len, InvalidTransactionId);
		if (!IplRedoOwn(page, &rb->u.hdr, NvmPoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
		IplApplyInPlace(slot, page);
	}
	else
	{
		/*
		 * A full log, or a page in a plain frame that is being changed: the
		 * page goes to a log frame, where its next changes are records.
		 * Allocate first: a full pool must fail before anything changed.
		 */
		uint64		frame = NvmPoolAllocFrame(true);

		if (NvmPoolFrameLogSize(frame) == 0 && NvmPoolLogSize() > 0 && !ipl_in_redo &&
			IplStealLogFrame(s->dirIndex, s->blkno))
		{
			uint64		other = NvmPoolTryAllocFrame(true);

			if (other != 0 && NvmPoolFrameLogSize(other) > 0)
			{
				NvmPoolGiveBackFrame(frame);
				frame = other;
			}
			else if (other != 0)
				NvmPoolGiveBackFrame(other);
		}
		if (NvmPoolFrameLogSize(frame) > 0)
			IplCacheNoteLogFrame(s->dirIndex, s->blkno);
		if (wal)
			IplWalChange(s, page, rb, body, len, InvalidTransactionId);
		if (!IplRedoOwn(page, &rb->u.hdr, NvmPoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own page record");
		IplWriteBack(slot, page, frame);
		if (size == 0 && NvmPoolFrameLogSize(frame) > 0)
			NvmPoolCountAdd(NVM_STAT_LOG_FRAME_PROMOTIONS, 1);
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
	IplSlot    *s = IplCacheSlotById(slot);
	Page		base = NvmPoolFramePage(s->frame);
	uint16		blower = ((PageHeader) base)->pd_lower;
	uint16		lower = ((PageHeader) image)->pd_lower;
	uint64		word;

	Assert(s->logAppendOnly && lower >= blower);
	memcpy((char *) base + blower, (char *) image + blower, lower - blower);
	IplPersist(s->dirIndex, (char *) base + blower, lower - blower);
	/* the checksum travels with pd_lower and pd_upper in one 8-byte word */
	IplSetChecksum(s->dirIndex, s->blkno, image);
	memcpy(&word, (char *) image + 8, sizeof(word));
	IplPublish64(s->dirIndex, (uint64 *) ((char *) base + 8), word);
	IplPageSetGen(image, NvmPoolNextGeneration());
	IplPublish64(s->dirIndex, (uint64 *) base, *(uint64 *) image);
	s->logUsed = 0;
	s->logHasPrune = false;
	s->logAppendOnly = true;
	NvmPoolCountAdd(NVM_STAT_PAGES_SEALED_IN_PLACE, 1);
}

/*
 * IplSeal - page blkno stops changing for now (its inserter leaves it
 * full): when it is in a log frame, merge it into a plain frame, once, so
 * that it takes no log area and the scans that will read it read it in
 * place instead of merging it again and again.  With no plain frame free,
 * a log of appends only is applied in place instead.  With appendedOnly,
 * only a page whose log holds appended tuples and nothing else: no row of
 * it changed since it came to its frame.  Returns true when the log was
 * merged away (into a plain frame, or in place).  Caller holds the page
 * lock exclusively.
 */
bool
IplSeal(int dirIndex, BlockNumber blkno, bool appendedOnly)
{
	Page		page = IplGetPage(dirIndex, blkno);
	int			slot = IplCacheSlotOfPage(page);
	IplSlot    *s;
	uint64		frame;
	bool		wal;
	bool		inPlace;
	bool		merged = false;

	if (slot < 0)
		return false;
	s = IplCacheSlotById(slot);
	if (NvmPoolFrameLogSize(s->frame) == 0)
		return false;			/* a plain frame: no log to merge */
	if (appendedOnly && (s->logUsed == 0 || !s->logAppendOnly))
		return false;
	wal = IplWalNeeded(dirIndex);
	frame = NvmPoolTryAllocFrame(false);

	/* no plain frame free: keep the log frame, a log of appends applied */
	inPlace = frame == 0 || (NvmPoolFrameLogSize(frame) > 0 && s->logAppendOnly);
	if (inPlace && frame != 0)
		NvmPoolGiveBackFrame(frame);
	if (!inPlace || (s->logUsed > 0 && s->logAppendOnly))
	{
		if (wal)
			IplWalPage(XLOG_NVM_PAGE_MOVE, dirIndex, blkno, page,
					   NvmPoolFrameWalLsn(s->frame), 0, NULL, 0,
					   InvalidTransactionId, 0);
		if (inPlace)
			IplApplyInPlace(slot, page);
		else
		{
			IplWriteBack(slot, page, frame);
			if (NvmPoolFrameLogSize(frame) == 0)
				NvmPoolCountAdd(NVM_STAT_LOG_FRAME_DEMOTIONS, 1);
		}
		merged = true;
	}
	IplCacheUnmap(slot);
	return merged;
}

/*
 * IplSettle - page blkno has stopped changing (VACUUM found it
 * all-visible): when log frames run short, give its log frame back
 * (IplSeal).  Caller holds the page lock exclusively.
 */
void
IplSettle(int dirIndex, BlockNumber blkno)
{
	if (NvmPoolLogFramesScarce())
		IplSeal(dirIndex, blkno, false);
}

/*
 * IplFinishBase - the base image in frame, page blkno of relation dirIndex
 * about to be published as a new page, gets a new generation and its
 * checksum; its first len bytes are persisted (the rest must need no
 * persisting), and the frame counts as verified: its checksum was computed
 * from these bytes, no check at its first read.  Caller holds what keeps
 * others from adding block blkno.
 */
static void
IplFinishBase(int dirIndex, BlockNumber blkno, uint64 frame, Size len)
{
	Page		page = NvmPoolFramePage(frame);

	IplPageSetGen(page, NvmPoolNextGeneration());
	IplSetChecksum(dirIndex, blkno, page);
	IplPersist(dirIndex, page, len);
	NvmPoolSetFrameVerified(frame);
}

/*
 * IplNewPage - add an empty page at the end of a relation; returns its
 * block number.  Caller holds the relation's extension lock.
 */
BlockNumber
IplNewPage(int dirIndex)
{
	BlockNumber blkno = NvmPoolRelNBlocks(dirIndex);
	bool		wal = IplWalNeeded(dirIndex);
	uint64		frame;
	Page		page;

	/* page-table frames first: nothing can fail between alloc and publish */
	NvmPoolRelEnsurePath(dirIndex, blkno);
	frame = NvmPoolAllocFrame(true);	/* it is about to be filled */
	page = NvmPoolFramePage(frame);
	PageInit(page, BLCKSZ, 0);

	/*
	 * Only the header is made durable: the rest of an empty heap page is
	 * free space, which no reader and no checksum looks at (a tuple
	 * appended there is persisted with its record, whose CRC of it tells
	 * whether it survived).  Persisting all of it cost a page of pool
	 * writes per page a table grows by: 8 kB per 55 single-row inserts.
	 */
	Assert(((PageHeader) page)->pd_special == BLCKSZ);
	IplFinishBase(dirIndex, blkno, frame, SizeOfPageHeaderData);
	*NvmPoolFrameWalLsn(frame) = InvalidXLogRecPtr;
	if (wal)
		IplWalPage(XLOG_NVM_NEW_PAGE, dirIndex, blkno, NULL, NvmPoolFrameWalLsn(frame),
				   0, NULL, 0, InvalidTransactionId, REGBUF_WILL_INIT);
	NvmPoolRelMapNewBlock(dirIndex, blkno, frame);
	if (NvmPoolFrameLogSize(frame) > 0)
		IplCacheNoteLogFrame(dirIndex, blkno);
	return blkno;
}

/*
 * IplPublishNewPage - make frame, which holds a whole page, block blkno of
 * relation dirIndex, past its end: the page's WAL record with its image
 * (WAL mode), a new generation and checksum, persisted, then mapped.  Its
 * checksum is computed from these bytes: no check at its first read.
 * Caller made the page-table path (NvmPoolRelEnsurePath) and holds what
 * keeps others from adding block blkno.
 */
static void
IplPublishNewPage(int dirIndex, BlockNumber blkno, uint64 frame)
{
	Page		page = NvmPoolFramePage(frame);

	*NvmPoolFrameWalLsn(frame) = InvalidXLogRecPtr;
	if (IplWalNeeded(dirIndex))
		IplWalPage(XLOG_NVM_NEW_PAGE, dirIndex, blkno, page, NvmPoolFrameWalLsn(frame),
				   0, NULL, 0, InvalidTransactionId, REGBUF_FORCE_IMAGE);
	IplFinishBase(dirIndex, blkno, frame, BLCKSZ);
	NvmPoolRelMapNewBlock(dirIndex, blkno, frame);
}

/*
 * IplNewPageFilled - add a page at the end of a relation holding tuples
 * tups[0..n), as many as fit with reserve bytes left free (the first one
 * always: it fits an empty page), placed as IplTupleRecord places them one
 * by one; sets their t_self and t_ctid; returns how many it placed and the
 * page's block number in *blkno.  The page is built in ordinary memory and
 * written to its frame once, as a copy is (IplCopyPage): one page write
 * instead of an empty page and one in-page record per tuple, for a
 * multi-insert that fills new pages (COPY).  A page it fills goes to a
 * plain frame; one with room left to a log frame, for the inserts that
 * follow.  Caller holds the relation's extension lock; the tuples' xmin is
 * its transaction's, so a crash before the commit leaves them aborted.
 */
int
IplNewPageFilled(int dirIndex, HeapTuple *tups, int n, Size reserve,
				 BlockNumber *blkno)
{
	PGAlignedBlock image;
	Page		page = image.data;
	uint64		frame;
	int			placed = 0;

	*blkno = NvmPoolRelNBlocks(dirIndex);
	PageInit(page, BLCKSZ, 0);
	while (placed < n)
	{
		HeapTuple	tup = tups[placed];
		Size		need = MAXALIGN(tup->t_len) + (placed > 0 ? reserve : 0);
		OffsetNumber off;
		HeapTupleHeader body;

		if (PageGetHeapFreeSpace(page) < need)
			break;
		off = OffsetNumberNext(PageGetMaxOffsetNumber(page));
		((PageHeader) page)->pd_upper = IplTuplePlace(page, tup->t_len);
		((PageHeader) page)->pd_lower += sizeof(ItemIdData);
		ItemIdSetNormal(PageGetItemId(page, off), ((PageHeader) page)->pd_upper,
						tup->t_len);
		body = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, off));
		memcpy(body, tup->t_data, tup->t_len);
		ItemPointerSet(&tup->t_self, *blkno, off);
		body->t_ctid = tup->t_self;
		placed++;
	}

	/* page-table frames first: nothing can fail between alloc and publish */
	NvmPoolRelEnsurePath(dirIndex, *blkno);
	frame = NvmPoolAllocFrame(placed == n);	/* full: a plain frame */
	memcpy(NvmPoolFramePage(frame), page, BLCKSZ);
	IplPublishNewPage(dirIndex, *blkno, frame);
	NvmPoolCountAdd(NVM_STAT_TUPLES_BULK_PLACED, placed);
	return placed;
}

/*
 * IplTupleItem - what placing a tuple of len bytes at off under line
 * pointer lp changes on page (as it is before) besides the tuple: the line
 * pointer, in item, and the 8-byte word at offset 8 (pd_checksum,
 * pd_flags, pd_lower, pd_upper), in word.  A line pointer appended while
 * PD_HAS_FREE_LINES is set means none was free (IplTupleRecord looked):
 * the hint is cleared, as PageAddItem clears it.  IplTupleRecord places
 * tuples so, and WAL redo derives from it what a page record leaves out
 * (ipl_wal.c).
 */
void
IplTupleItem(Page page, OffsetNumber lp, int off, int len, ItemIdData *item,
			 uint16 word[4])
{
	StaticAssertStmt(offsetof(PageHeaderData, pd_flags) == 10,
					 "page header layout");
	ItemIdSetNormal(item, off, len);
	memcpy(word, (char *) page + 8, 4 * sizeof(uint16));
	if (lp > PageGetMaxOffsetNumber(page))
	{
		word[2] += sizeof(ItemIdData);
		word[1] &= ~PD_HAS_FREE_LINES;
	}
	word[3] = off;
}

/* IplRecTupleItem - add IplTupleItem's line pointer and word to rb */
void
IplRecTupleItem(IplRecBuf *rb, Page page, OffsetNumber lp, int off, int len)
{
	ItemIdData	item;
	uint16		word[4];

	IplTupleItem(page, lp, off, len, &item, word);
	IplRecPatch(rb, (char *) PageGetItemId(page, lp) - (char *) page, &item, sizeof(item));
	IplRecPatch(rb, 8, word, sizeof(word));
}

/*
 * IplTupleRecord - start in rb the record that places tup on page blkno,
 * if it fits and leaves at least reserve bytes free (a fillfactor), and
 * return the new offset (tup->t_self is set); InvalidOffsetNumber, with
 * nothing changed, when it does not fit.  A line pointer freed by pruning
 * is reused; otherwise one is appended.  With keepCtid the tuple's t_ctid
 * (a speculative token) is kept as given, else it points to the tuple
 * itself.  The caller may add patches and then applies the record
 * (IplApply).  Caller holds the page lock exclusively and got page from
 * IplGetPage.
 */
static OffsetNumber
IplTupleRecord(IplRecBuf *rb, Page page, BlockNumber blkno, HeapTuple tup,
			   bool keepCtid, Size reserve)
{
	PageHeader	ph = (PageHeader) page;
	Size		alignedSize = MAXALIGN(tup->t_len);
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	OffsetNumber off = InvalidOffsetNumber;
	int			lower;
	int			upper;
	HeapTupleHeader body;
	int			slot;
	bool		inBase = false;

	if (PageGetHeapFreeSpace(page) < alignedSize + reserve)
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
	upper = IplTuplePlace(page, tup->t_len);
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
	IplRecStart(rb, IPL_REC_PATCH);
	slot = IplCacheSlotOfPage(page);
	if (slot >= 0 && NvmPoolLogSize() > 0 && !IplCacheSlotById(slot)->logHasPrune)
	{
		Page		base = NvmPoolFramePage(IplCacheSlotById(slot)->frame);
		PageHeader	bph = (PageHeader) base;

		if (upper >= bph->pd_lower && upper + tup->t_len <= bph->pd_upper)
		{
			body = (HeapTupleHeader) ((char *) base + upper);
			memcpy(body, tup->t_data, tup->t_len);
			if (!keepCtid)
				ItemPointerSet(&body->t_ctid, blkno, off);
			/*
			 * The CRC first, while the bytes are in the cache (a flush may
			 * evict them).  No drain of its own: the record's drain covers
			 * it, and should the record outlive a power failure without
			 * these bytes, the CRC it carries of them rejects it.
			 */
			IplRecPatchBase(rb, upper, body, tup->t_len);
			IplFlush(IplCacheSlotById(slot)->dirIndex, body, tup->t_len);
			inBase = true;
			if (off > PageGetMaxOffsetNumber(base))
				rb->u.hdr.flags |= IPL_RECF_APPEND;
		}
	}
	if (!inBase)
	{
		body = (HeapTupleHeader) (rb->u.data + rb->len + sizeof(IplPatch));
		IplRecPatch(rb, upper, tup->t_data, tup->t_len);
		if (!keepCtid)
			ItemPointerSet(&body->t_ctid, blkno, off);
	}
	IplRecTupleItem(rb, page, off, upper, tup->t_len);

	rb->walTupleLp = off;
	ItemPointerSet(&tup->t_self, blkno, off);
	if (!keepCtid)
		tup->t_data->t_ctid = tup->t_self;
	return off;
}

/*
 * IplAddTuple - place tup on page blkno if it fits and leaves at least
 * reserve bytes free: one record (IplTupleRecord).  Returns the new offset
 * (and sets tup->t_self) or InvalidOffsetNumber.  Caller holds the page
 * lock exclusively and got page from IplGetPage.
 */
OffsetNumber
IplAddTuple(Page page, BlockNumber blkno, HeapTuple tup, bool keepCtid,
			Size reserve)
{
	OffsetNumber off = IplTupleRecord(&recbuf, page, blkno, tup, keepCtid,
									  reserve);

	if (off != InvalidOffsetNumber)
		IplApply(page, &recbuf);
	return off;
}

/*
 * IplUpdateTuple - an update that stays on its page, as one record: place
 * newtup on page blkno (IplTupleRecord, no reserve) and give the old
 * version at oldoff the visibility fields of oldhdr, its t_ctid pointing
 * to newtup.  One record means one drain, and a crash keeps both halves or
 * neither.  Returns newtup's offset (newtup->t_self and oldhdr->t_ctid are
 * set) or InvalidOffsetNumber, changing nothing, when newtup does not fit.
 * Caller holds the page lock exclusively and got page from IplGetPage.
 */
OffsetNumber
IplUpdateTuple(Page page, BlockNumber blkno, HeapTuple newtup,
			   OffsetNumber oldoff, HeapTupleHeader oldhdr)
{
	IplRecBuf  *rb = &recbuf;
	OffsetNumber off;

	Assert(ItemIdIsNormal(PageGetItemId(page, oldoff)));
	off = IplTupleRecord(rb, page, blkno, newtup, false, 0);
	if (off == InvalidOffsetNumber)
		return off;
	oldhdr->t_ctid = newtup->t_self;
	IplRecPatch(rb, ItemIdGetOffset(PageGetItemId(page, oldoff)), oldhdr,
				offsetof(HeapTupleHeaderData, t_hoff));
	IplRecPrunable(rb, page, oldhdr);
	rb->walOldLp = oldoff;
	rb->walHdrOff = ItemIdGetOffset(PageGetItemId(page, oldoff));
	/* more than an append now: not for IplSeal's in-place path */
	rb->u.hdr.flags &= ~IPL_RECF_APPEND;
	IplApply(page, rb);
	return off;
}

/*
 * IplPruneWrite - make the pruned line pointers of np (a copy of page's
 * header and line pointers, some of them changed; the rest of np is
 * scratch space) the page's new state: a PRUNE
 * record (IplPruneApply).  conflictXid is the newest xid of a tuple the
 * prune removes (for the conflicts of a hot standby's queries).  Returns
 * false, changing nothing, when the pool has no frame for the page.
 * Caller holds the page lock exclusively.
 */
static bool
IplPruneWrite(Page page, Page np, TransactionId pruneXid,
			  TransactionId conflictXid)
{
	IplRecBuf  *rb = &recbuf;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	uint32		n = 0;
	uint32		hdr[2];

	/* a pool older than the fill keeps PRUNE records, for older builds */
	IplRecStart(rb, NvmPoolFormatVersion() >= 6 ? IPL_REC_PRUNE_FILL : IPL_REC_PRUNE);
	hdr[0] = pruneXid;
	hdr[1] = 0;
	IplRecAdd(rb, hdr, sizeof(hdr));
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		IplPruneItem item;

		if (memcmp(PageGetItemId(page, off), PageGetItemId(np, off), sizeof(ItemIdData)) == 0)
			continue;
		item.off = off;
		item.pad = 0;
		memcpy(&item.lp, PageGetItemId(np, off), sizeof(ItemIdData));
		IplRecAdd(rb, &item, sizeof(item));
		n++;
	}
	memcpy(rb->u.data + sizeof(IplRecord) + 4, &n, sizeof(n));
	return IplPruneApply(page, rb, np, conflictXid);
}

/*
 * IplPruneApply - make the PRUNE record in rb (not finished yet) a change
 * of page, the page's cached image: in its log, applied to the image in
 * place when nobody has it pinned, else to a copy of the image in a new
 * cache slot, or, when the log is full or no slot is free, a new frame.
 * Readers that pinned the image may point into it, so then it is left as
 * it is and unmapped.  np is scratch space for a page.  Returns false,
 * changing nothing, when the pool has no frame for the page.  Caller holds
 * the page lock exclusively.
 */
bool
IplPruneApply(Page page, IplRecBuf *rb, Page np, TransactionId conflictXid)
{
	int			slot = IplCacheSlotOfPage(page);
	IplSlot    *s;
	int			newslot = -1;
	uint64		frame = 0;
	int			dirIndex;
	BlockNumber blkno;
	bool		fits;
	bool		wal;

	if (slot < 0)
		elog(ERROR, "nvm_am page change outside the merge cache");
	s = IplCacheSlotById(slot);
	wal = IplWalNeeded(s->dirIndex);
	IplRecFinish(rb, IplPageGen(page));

	/*
	 * Nobody points into the image when nobody has it pinned (and no pin
	 * can be taken while the page lock is held exclusively): compact it in
	 * place, as heap prunes under a cleanup lock.
	 */
	fits = s->logUsed + rb->len <= NvmPoolFrameLogSize(s->frame);
	if (fits && NvmPoolPinCount(IplCacheSlotPinId(slot)) == 0)
	{
		if (wal)
			IplWalChange(s, page, rb, NULL, 0, conflictXid);
		IplLogAppend(s, rb);
		if (!IplRedoOwn(page, &rb->u.hdr, NvmPoolFramePage(s->frame)))
			elog(PANIC, "nvm_am could not apply its own prune record");
		s->logHasPrune = true;
		NvmPoolCountAdd(NVM_STAT_PAGES_PRUNED_IN_PLACE, 1);
		return true;
	}
	if (fits)
		newslot = IplCacheTryAlloc();
	if (newslot < 0)
	{
		/* with the pool full, leave the page as it is rather than fail */
		frame = NvmPoolTryAllocFrame(true);
		if (frame == 0)
			return false;
	}
	if (wal)
		IplWalChange(s, page, rb, NULL, 0, conflictXid);

	/* the new image: np, compacted as redo compacts it */
	memcpy(np, page, BLCKSZ);
	if (!IplRedoOwn(np, &rb->u.hdr, NvmPoolFramePage(s->frame)))
		elog(PANIC, "nvm_am could not apply its own prune record");

	/* the old slot is unmapped (readers may still point into it) */
	dirIndex = s->dirIndex;
	blkno = s->blkno;
	if (newslot >= 0)
	{
		uint64		pageframe = s->frame;

		IplLogAppend(s, rb);
		memcpy(IplCacheSlotPage(newslot), np, BLCKSZ);
		IplCacheUnmap(slot);
		(void) IplCacheMap(newslot, dirIndex, blkno, pageframe, s->logUsed, true);
	}
	else
	{
		IplCacheUnmap(slot);
		IplWriteFrame(dirIndex, blkno, np, frame, -1);
	}
	return true;
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
	IplWriteMovedHeader(page, off, newhdr, false);
}

/*
 * IplWriteMovedHeader - IplWriteTupleHeader for the old version of an
 * update; moved says its new version went to another page, and then the
 * same record sets PD_PAGE_FULL, as heap_update's PageSetFull: the page
 * had no room, and the next reader prunes it (the hint is part of the
 * record, so that it survives the image, as pd_prune_xid; a prune clears
 * it).  Caller holds the page lock exclusively and got page from
 * IplGetPage.
 */
void
IplWriteMovedHeader(Page page, OffsetNumber off, HeapTupleHeader newhdr,
					bool moved)
{
	ItemId		lp = PageGetItemId(page, off);
	IplRecBuf  *rb = &recbuf;

	Assert(ItemIdIsNormal(lp));
	IplRecStart(rb, IPL_REC_PATCH);
	IplRecPatch(rb, ItemIdGetOffset(lp), newhdr, offsetof(HeapTupleHeaderData, t_hoff));
	rb->walHdrOff = ItemIdGetOffset(lp);
	IplRecPrunable(rb, page, newhdr);
	if (moved && !PageIsFull(page))
	{
		uint16		flags = ((PageHeader) page)->pd_flags | PD_PAGE_FULL;

		IplRecPatch(rb, offsetof(PageHeaderData, pd_flags), &flags, sizeof(flags));
	}
	IplApply(page, rb);
}

/*
 * IplRecPrunable - a tuple of page gets the header hdr in the record being
 * built in rb: when that deletes or updates it, the record also makes the
 * page's pd_prune_xid that deleter, if older than the one it has (heap's
 * PageSetPrunable), so that a later change prunes the page before it runs
 * out of room.  It is part of the record, not a hint of the image: the
 * image is written to a new frame, or leaves the merge cache, and is made
 * again from the frame and its log, and a prune xid set only in the image
 * would be lost then, the old versions left until VACUUM, and updates of
 * the page's rows no longer HOT.
 */
static void
IplRecPrunable(IplRecBuf *rb, Page page, HeapTupleHeader hdr)
{
	TransactionId cur = ((PageHeader) page)->pd_prune_xid;
	TransactionId xid;

	if (!(hdr->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(hdr->t_infomask))
		xid = HeapTupleHeaderGetUpdateXid(hdr);
	else if (!TransactionIdIsValid(HeapTupleHeaderGetRawXmin(hdr)))
		xid = RecentXmin;		/* a super-deleted insert */
	else
		return;
	if (!TransactionIdIsNormal(xid) ||
		(TransactionIdIsValid(cur) && !TransactionIdPrecedes(xid, cur)))
		return;
	IplRecPatch(rb, offsetof(PageHeaderData, pd_prune_xid), &xid, sizeof(xid));
}

/*
 * IplSetUnused - free the dead line pointers offs[0..n-1] of page for reuse
 * (VACUUM, after their index entries were removed), and, as heap's VACUUM
 * does, cut the unused line pointers at the end of the array (never the
 * first): the page gets their bytes back.  PD_HAS_FREE_LINES then says
 * whether unused ones remain below.  One patch record; no tuple moves, so
 * readers that keep pointers into the image are not disturbed, and those
 * that look up a line pointer check it against the new end.  Caller holds
 * the page lock exclusively and got page from IplGetPage.
 */
void
IplSetUnused(Page page, OffsetNumber *offs, int n)
{
	IplRecBuf  *rb = &recbuf;
	OffsetNumber maxoff = PageGetMaxOffsetNumber(page);
	bool		freed[MaxHeapTuplesPerPage + 1] = {0};
	ItemIdData	unused;
	uint16		word[4];
	OffsetNumber end;
	bool		any = false;
	bool		holes = false;

	for (int i = 0; i < n; i++)
		if (offs[i] >= FirstOffsetNumber && offs[i] <= maxoff &&
			ItemIdIsDead(PageGetItemId(page, offs[i])))
			freed[offs[i]] = any = true;
	if (!any)
		return;
	/* the new end: the last line pointer in use, or the first */
	end = maxoff;
	while (end > FirstOffsetNumber &&
		   (freed[end] || !ItemIdIsUsed(PageGetItemId(page, end))))
		end--;
	ItemIdSetUnused(&unused);
	IplRecStart(rb, IPL_REC_PATCH);
	for (OffsetNumber off = FirstOffsetNumber; off <= end; off++)
	{
		ItemId		lp = PageGetItemId(page, off);

		if (freed[off])
			IplRecPatch(rb, (char *) lp - (char *) page, &unused, sizeof(unused));
		holes |= freed[off] || !ItemIdIsUsed(lp);
	}
	/* pd_flags and pd_lower, in the 8 bytes from pd_checksum to pd_upper */
	memcpy(word, (char *) page + 8, sizeof(word));
	StaticAssertStmt(offsetof(PageHeaderData, pd_flags) == 10 &&
					 offsetof(PageHeaderData, pd_lower) == 12,
					 "page header layout");
	if (holes)
		word[1] |= PD_HAS_FREE_LINES;
	else
		word[1] &= ~PD_HAS_FREE_LINES;
	word[2] = SizeOfPageHeaderData + end * sizeof(ItemIdData);
	IplRecPatch(rb, 8, word, sizeof(word));
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
 * IplSetPruneXid - remember in pd_prune_xid when pruning the page may pay
 * next time, after a look that found nothing to prune, which clears
 * PD_PAGE_FULL too, as heap_page_prune (hints, like hint bits: not logged).
 * Caller holds the page lock exclusively.
 */
void
IplSetPruneXid(Page page, TransactionId xid)
{
	((PageHeader) page)->pd_prune_xid = xid;
	PageClearFull(page);
}

/*
 * IplPruneExecute - carry out what the pruning decision (NvmPrunePage)
 * chose for page blkno: the line pointers in redirected[] (pairs: from,
 * to) redirect, those in nowdead[] become dead, those in nowunused[] are
 * freed; nextPrune becomes the page's pd_prune_xid; conflictXid is the
 * newest xid of a removed tuple (the hot-standby conflict horizon, or
 * InvalidTransactionId).  Each line pointer is
 * named at most once.  The page is compacted in place when nobody has it
 * pinned, else rewritten copy-on-write (IplPruneWrite).
 * Returns false, changing nothing, when the pool has no frame for it.
 * Caller holds the page lock exclusively.
 */
bool
IplPruneExecute(int dirIndex, BlockNumber blkno,
				OffsetNumber *redirected, int nredirected,
				OffsetNumber *nowdead, int ndead,
				OffsetNumber *nowunused, int nunused,
				TransactionId nextPrune, TransactionId conflictXid)
{
	Page		page = IplGetPage(dirIndex, blkno);
	PGAlignedBlock copy;
	Page		np = copy.data;

	/*
	 * np needs only the header and the line pointers here: IplPruneWrite
	 * compares line pointers alone, and IplPruneApply copies the whole
	 * page into np itself before it uses np for a new image.
	 */
	memcpy(np, page, Min(((PageHeader) page)->pd_lower, BLCKSZ));
	for (int i = 0; i < nredirected; i++)
		ItemIdSetRedirect(PageGetItemId(np, redirected[2 * i]), redirected[2 * i + 1]);
	for (int i = 0; i < ndead; i++)
		ItemIdSetDead(PageGetItemId(np, nowdead[i]));
	for (int i = 0; i < nunused; i++)
		ItemIdSetUnused(PageGetItemId(np, nowunused[i]));
	if (!IplPruneWrite(page, np, nextPrune, conflictXid))
		return false;
	NvmPoolCountAdd(NVM_STAT_PAGES_PRUNED, 1);
	return true;
}

/*
 * IplCopyPage - append to the empty-so-far relation dstIndex, as its block
 * blkno, a copy of block blkno of relation srcIndex merged into one base
 * image.  Caller holds AccessExclusiveLock on the source and is the only
 * user of the destination; it adds the blocks in order.
 */
void
IplCopyPage(int srcIndex, int dstIndex, BlockNumber blkno)
{
	LWLock	   *lock = NvmPoolPageLock(srcIndex, blkno);
	uint64		frame;

	NvmPoolRelEnsurePath(dstIndex, blkno);
	frame = NvmPoolAllocFrame(false);	/* a copy is not being changed */
	LWLockAcquire(lock, LW_SHARED);
	memcpy(NvmPoolFramePage(frame), IplGetPage(srcIndex, blkno), BLCKSZ);
	LWLockRelease(lock);
	IplPublishNewPage(dstIndex, blkno, frame);
}
