/*-------------------------------------------------------------------------
 *
 * ipl_wal.c
 *	  WAL mode of nvm_am's page operations (nvm_am.wal_log): the WAL record
 *	  of every change of a logged relation's page (IplWalChange, IplWalPage,
 *	  called by ipl_log.c under the page lock, before the change reaches
 *	  the pool), its compact body (IplWalBody), and its redo on the server
 *	  that replays it (IplWalRedo, installed in nvm_xlog.c's resource
 *	  manager), which turns the body back into an in-page log record and
 *	  applies it through ipl_log.c's IplApply, as the primary did.
 *
 * Locks: the caller of IplWalChange and IplWalPage holds the page lock
 * exclusively (for a new page, the relation's extension lock); redo takes
 * the page lock exclusively.
 *
 * On-pool layout owned here: none (the pages are ipl_log.c's); in WAL: the
 * page records' bodies, described below.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "storage/bufpage.h"
#include "storage/standby.h"

#include "ipl_internal.h"

/* set while this process redoes a WAL record: nothing is logged again */
bool		ipl_in_redo = false;

/* the in-page log record redo rebuilds from a page record */
static IplRecBuf redobuf;

/* ----------------------------------------------------------------
 * WAL mode (nvm_am.wal_log): every change of a logged relation's page is
 * also a WAL record of nvm_am's resource manager, written under the page
 * lock before the change reaches the pool, and redone here, through the
 * same page operations, on the server that replays it (a standby, a
 * restored base backup, crash recovery).  The first record of a page after
 * a checkpoint's redo pointer carries the page's image from before the
 * change, as heap's full-page writes: replay from a checkpoint starts every
 * page it touches from that image, so it neither depends on a copy of the
 * pool taken while it changed nor applies a change twice.  The LSN of a
 * page's last record is kept per frame in shared memory
 * (NvmPoolFrameWalLsn), carried along when the page moves to another frame;
 * after a start every page gets an image with its next record.
 * ----------------------------------------------------------------
 */

/*
 * IplWalLogged - are the changes of pages of entry dirIndex WAL-logged?
 * With nvm_am.wal_log, for every relation but unlogged and temporary ones,
 * and never while redoing.
 */
bool
IplWalLogged(int dirIndex)
{
	return nvm_wal_log && !ipl_in_redo &&
		!(NvmPoolRelGetState(dirIndex) & NVM_REL_UNLOGGED);
}

/*
 * IplWalNeeded - does a change of a page of entry dirIndex go to WAL
 * (IplWalLogged)?  Refuses (ERROR, before anything changed) when
 * full-page images are off: replay from a checkpoint would then apply
 * changes to pages that already have them.
 */
bool
IplWalNeeded(int dirIndex)
{
	if (!IplWalLogged(dirIndex))
		return false;
	if (!fullPageWrites)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("nvm_am.wal_log requires full_page_writes = on"),
				 errdetail("Without full-page images, WAL replay could apply a change of an nvm_am page twice."),
				 errhint("Set full_page_writes = on and reload the configuration.")));
	return true;
}

/*
 * The WAL body of a PATCH record is not the in-page log record itself but a
 * list of operations that redo turns back into one (IplWalUnpackBody).
 * Whatever redo can derive from the page before the record is left out, as
 * heap's records leave out what redo derives: the line pointer and
 * pd_lower/pd_upper of a new tuple, the fields of its header that are as
 * expected (xmin the record's xid, no xmax, the first command id, t_ctid
 * pointing to itself), the fields of a changed tuple header that stay as
 * they were, and the data a new version shares with the version it updates
 * (a prefix and a suffix, copied from the old version by redo).  Redo's
 * page before the record has the same bytes wherever records wrote them;
 * it may differ only in hints (t_infomask's hint bits, pd_prune_xid as a
 * hint, pd_checksum between frame writes), so t_infomask always travels
 * and derived pd_flags/pd_checksum are the redoing server's own.  The
 * encoder uses a derived form only when deriving it from its own page
 * before the record gives exactly the bytes of the in-page record;
 * anything else travels as literal bytes.
 *
 * Operations (integers little-endian as in memory, unaligned):
 *   IPL_WAL_BYTES  off:2 len:2 bytes[len]            write bytes at off
 *   IPL_WAL_TUPLE  len:2 lp:2 mask:1 infomask2:2 infomask:2 hoff:1
 *                  [xmin:4] [xmax:4] [cid:4] [ctid:6]
 *                  [oldlp:2 prefix:2 suffix:2]     (IPL_WALF_DELTA)
 *                  data[len - 23 - prefix - suffix]
 *                  a new tuple of len bytes under line pointer lp, placed
 *                  as IplTupleRecord places it: at pd_upper - MAXALIGN(len)
 *                  (its place, line pointer and pd_lower/pd_upper derived)
 *   IPL_WAL_HEADER off:2 mask:1 infomask2:2 infomask:2
 *                  [xmin:4] [xmax:4] [cid:4] [ctid:6]
 *                  new visibility fields of the tuple header at off; a
 *                  field not in mask keeps the page's value, except that
 *                  IPL_WALF_CTID_NEW points t_ctid to the record's new tuple
 *   IPL_WAL_PRUNABLE                                 pd_prune_xid becomes
 *                  the record's xid (IplRecPrunable)
 */
#define IPL_WAL_BYTES	1
#define IPL_WAL_TUPLE	2
#define IPL_WAL_HEADER	3
#define IPL_WAL_PRUNABLE	4

#define IPL_WALF_XMIN		0x01
#define IPL_WALF_XMAX		0x02
#define IPL_WALF_CID		0x04
#define IPL_WALF_CTID		0x08
#define IPL_WALF_CTID_NEW	0x10
#define IPL_WALF_DELTA		0x20

/* the visibility fields of a tuple header: all of it up to t_hoff */
#define IPL_HDR_FIELDS	offsetof(HeapTupleHeaderData, t_hoff)
/* where a tuple's data (null bitmap, padding, columns) starts */
#define IPL_TUPLE_DATA	offsetof(HeapTupleHeaderData, t_bits)
/* shared bytes (prefix + suffix) worth the 6 bytes that name them */
#define IPL_WAL_DELTA_MIN	8

/*
 * A WAL body being built: static, at most one at a time.  An operation
 * takes at most one byte more than the patch (4-byte header, at least one
 * byte) it stands for, and an in-page record at most 2 * BLCKSZ.
 */
typedef struct IplWalBuf
{
	char		data[2 * BLCKSZ * 6 / 5 + 64];
	int			len;
} IplWalBuf;

static void
IplWalPut(IplWalBuf *wb, const void *data, int len)
{
	Assert(wb->len + len <= (int) sizeof(wb->data));
	memcpy(wb->data + wb->len, data, len);
	wb->len += len;
}

static void
IplWalPut1(IplWalBuf *wb, uint8 v)
{
	IplWalPut(wb, &v, 1);
}

static void
IplWalPut2(IplWalBuf *wb, uint16 v)
{
	IplWalPut(wb, &v, 2);
}

/*
 * IplWalPutFields - the optional header fields of an IPL_WAL_TUPLE or
 * IPL_WAL_HEADER operation: those of hdr that differ from expect (ctid:
 * unless it is newSelf, which sets IPL_WALF_CTID_NEW instead).  The mask
 * byte is at maskAt in wb.
 */
static void
IplWalPutFields(IplWalBuf *wb, int maskAt, const HeapTupleHeaderData *hdr,
				const HeapTupleHeaderData *expect, const ItemPointerData *newSelf)
{
	uint8		mask = 0;

	if (HeapTupleHeaderGetRawXmin(hdr) != HeapTupleHeaderGetRawXmin(expect))
	{
		mask |= IPL_WALF_XMIN;
		IplWalPut(wb, &hdr->t_choice.t_heap.t_xmin, 4);
	}
	if (HeapTupleHeaderGetRawXmax(hdr) != HeapTupleHeaderGetRawXmax(expect))
	{
		mask |= IPL_WALF_XMAX;
		IplWalPut(wb, &hdr->t_choice.t_heap.t_xmax, 4);
	}
	if (hdr->t_choice.t_heap.t_field3.t_cid != expect->t_choice.t_heap.t_field3.t_cid)
	{
		mask |= IPL_WALF_CID;
		IplWalPut(wb, &hdr->t_choice.t_heap.t_field3.t_cid, 4);
	}
	if (newSelf != NULL && ItemPointerEquals((ItemPointer) &hdr->t_ctid, (ItemPointer) newSelf) &&
		!ItemPointerEquals((ItemPointer) &expect->t_ctid, (ItemPointer) newSelf))
		mask |= IPL_WALF_CTID_NEW;
	else if (memcmp(&hdr->t_ctid, &expect->t_ctid, sizeof(ItemPointerData)) != 0)
	{
		mask |= IPL_WALF_CTID;
		IplWalPut(wb, &hdr->t_ctid, sizeof(ItemPointerData));
	}
	wb->data[maskAt] |= mask;
}

/* IplWalNewHeader - the header redo expects of a new tuple at lp */
static void
IplWalNewHeader(HeapTupleHeaderData *expect, TransactionId xid,
				BlockNumber blkno, OffsetNumber lp)
{
	memset(expect, 0, sizeof(*expect));
	HeapTupleHeaderSetXmin(expect, xid);
	expect->t_choice.t_heap.t_field3.t_cid = FirstCommandId;
	ItemPointerSet(&expect->t_ctid, blkno, lp);
}

/*
 * IplWalPutTuple - the IPL_WAL_TUPLE operation of the tuple (len bytes at
 * off, from patch bytes) that IplTupleRecord added under line pointer lp,
 * if its line pointer and pd_lower/pd_upper patches (lpPatch, wordPatch)
 * are those redo derives; false (nothing added) otherwise.  xid is the
 * record's (the expected xmin).  oldLp is the
 * version it updates (0: none), whose data may supply a prefix and suffix.
 */
static bool
IplWalPutTuple(IplWalBuf *wb, Page page, BlockNumber blkno, TransactionId xid,
			   OffsetNumber lp,
			   OffsetNumber oldLp, int off, const char *bytes, int len,
			   const IplPatch *lpPatch, const char *lpBytes,
			   const IplPatch *wordPatch, const char *wordBytes)
{
	ItemIdData	item;
	uint16		word[4];
	HeapTupleHeaderData hdr;
	HeapTupleHeaderData expect;
	int			prefix = 0;
	int			suffix = 0;
	int			maskAt;
	int			data = len - IPL_TUPLE_DATA;

	if (len < (int) SizeofHeapTupleHeader || lp < FirstOffsetNumber ||
		lp > PageGetMaxOffsetNumber(page) + 1 ||
		off != IplTuplePlace(page, len))
		return false;
	IplTupleItem(page, lp, off, len, &item, word);
	if (lpBytes == NULL || wordBytes == NULL ||
		lpPatch->off != (char *) PageGetItemId(page, lp) - (char *) page ||
		lpPatch->len != sizeof(item) || memcmp(lpBytes, &item, sizeof(item)) != 0 ||
		wordPatch->off != 8 || wordPatch->len != sizeof(word) ||
		memcmp(wordBytes, word, sizeof(word)) != 0)
		return false;

	if (oldLp != InvalidOffsetNumber && ItemIdIsNormal(PageGetItemId(page, oldLp)))
	{
		ItemId		old = PageGetItemId(page, oldLp);
		const char *o = (char *) page + ItemIdGetOffset(old) + IPL_TUPLE_DATA;
		int			odata = (int) ItemIdGetLength(old) - IPL_TUPLE_DATA;
		const char *n = bytes + IPL_TUPLE_DATA;

		if (odata > 0 && ItemIdGetOffset(old) + ItemIdGetLength(old) <= BLCKSZ)
		{
			while (prefix < data && prefix < odata && n[prefix] == o[prefix])
				prefix++;
			while (suffix < data - prefix && suffix < odata - prefix &&
				   n[data - 1 - suffix] == o[odata - 1 - suffix])
				suffix++;
		}
		if (prefix + suffix < IPL_WAL_DELTA_MIN)
			prefix = suffix = 0;
	}

	memcpy(&hdr, bytes, SizeofHeapTupleHeader);
	IplWalNewHeader(&expect, xid, blkno, lp);
	IplWalPut1(wb, IPL_WAL_TUPLE);
	IplWalPut2(wb, len);
	IplWalPut2(wb, lp);
	maskAt = wb->len;
	IplWalPut1(wb, (prefix + suffix) > 0 ? IPL_WALF_DELTA : 0);
	IplWalPut2(wb, hdr.t_infomask2);
	IplWalPut2(wb, hdr.t_infomask);
	IplWalPut1(wb, hdr.t_hoff);
	IplWalPutFields(wb, maskAt, &hdr, &expect, NULL);
	if (prefix + suffix > 0)
	{
		IplWalPut2(wb, oldLp);
		IplWalPut2(wb, prefix);
		IplWalPut2(wb, suffix);
	}
	IplWalPut(wb, bytes + IPL_TUPLE_DATA + prefix, data - prefix - suffix);
	return true;
}

/*
 * IplWalPutHeader - the IPL_WAL_HEADER operation of a patch of the
 * visibility fields (bytes) of the tuple header at off of page; newSelf is
 * the record's new tuple, if it adds one.
 */
static void
IplWalPutHeader(IplWalBuf *wb, Page page, int off, const char *bytes,
				const ItemPointerData *newSelf)
{
	HeapTupleHeaderData hdr;
	HeapTupleHeaderData expect;
	int			maskAt;

	memcpy(&hdr, bytes, IPL_HDR_FIELDS);
	memcpy(&expect, (char *) page + off, IPL_HDR_FIELDS);
	IplWalPut1(wb, IPL_WAL_HEADER);
	IplWalPut2(wb, off);
	maskAt = wb->len;
	IplWalPut1(wb, 0);
	IplWalPut2(wb, hdr.t_infomask2);
	IplWalPut2(wb, hdr.t_infomask);
	IplWalPutFields(wb, maskAt, &hdr, &expect, newSelf);
}

/*
 * IplWalBody - the WAL body of the finished in-page log record in rb (see
 * above), written on page blkno, whose image before the record is page and
 * whose base image is base (bytes a patch takes from it are sent).
 * Returns the body (valid until the next call) and its length in *len.
 */
static const char *
IplWalBody(const IplRecBuf *rb, Page base, Page page, BlockNumber blkno,
		   int *len)
{
	static IplWalBuf wb;
	const char *p = rb->u.data + sizeof(IplRecord);
	const char *end = rb->u.data + rb->len;
	IplPatch	patch[3];
	const char *bytes[3];
	ItemPointerData newSelf;
	bool		haveNew = false;
	TransactionId xid = GetCurrentTransactionIdIfAny();
	pg_crc32c	crc;
	int			n = 0;
	int			r;

	if (rb->u.hdr.type != IPL_REC_PATCH)
	{
		*len = end - p;
		return p;
	}
	wb.len = 0;

	/* a record of IplTupleRecord starts with the tuple, its line pointer, pd_lower/pd_upper */
	if (rb->walTupleLp != InvalidOffsetNumber)
	{
		while (n < 3 && (r = IplPatchNext(&p, end, &patch[n], &bytes[n], &crc)) > 0)
		{
			if (bytes[n] == NULL)
				bytes[n] = (char *) base + patch[n].off;
			n++;
		}
		if (n == 3 &&
			IplWalPutTuple(&wb, page, blkno, xid, rb->walTupleLp, rb->walOldLp,
						   patch[0].off, bytes[0], patch[0].len,
						   &patch[1], bytes[1], &patch[2], bytes[2]))
		{
			ItemPointerSet(&newSelf, blkno, rb->walTupleLp);
			haveNew = true;
			n = 0;
		}
	}
	for (int i = 0;; i++)
	{
		IplPatch	pt;
		const char *b;

		if (i < n)
		{
			pt = patch[i];
			b = bytes[i];
		}
		else if ((r = IplPatchNext(&p, end, &pt, &b, &crc)) > 0)
		{
			if (b == NULL)
				b = (char *) base + pt.off;
		}
		else if (r < 0)
			elog(PANIC, "nvm_am in-page log record does not parse");
		else
			break;

		if (pt.off == rb->walHdrOff && pt.len == IPL_HDR_FIELDS &&
			pt.off + SizeofHeapTupleHeader <= BLCKSZ)
			IplWalPutHeader(&wb, page, pt.off, b, haveNew ? &newSelf : NULL);
		else if (pt.off == offsetof(PageHeaderData, pd_prune_xid) &&
				 pt.len == sizeof(TransactionId) &&
				 memcmp(b, &xid, sizeof(xid)) == 0 && TransactionIdIsValid(xid))
			IplWalPut1(&wb, IPL_WAL_PRUNABLE);
		else
		{
			IplWalPut1(&wb, IPL_WAL_BYTES);
			IplWalPut2(&wb, pt.off);
			IplWalPut2(&wb, pt.len);
			IplWalPut(&wb, b, pt.len);
		}
	}
	*len = wb.len;
	return wb.data;
}

/* a WAL body being read */
typedef struct IplWalReader
{
	const char *p;
	const char *end;
	bool		ok;
} IplWalReader;

static void
IplWalGet(IplWalReader *r, void *dst, int len)
{
	if (!r->ok || len < 0 || r->end - r->p < len)
	{
		r->ok = false;
		memset(dst, 0, Max(len, 0));
		return;
	}
	memcpy(dst, r->p, len);
	r->p += len;
}

static uint16
IplWalGet2(IplWalReader *r)
{
	uint16		v;

	IplWalGet(r, &v, 2);
	return v;
}

/* IplWalGetFields - the optional fields of mask into hdr */
static void
IplWalGetFields(IplWalReader *r, uint8 mask, HeapTupleHeader hdr,
				const ItemPointerData *newSelf)
{
	if (mask & IPL_WALF_XMIN)
		IplWalGet(r, &hdr->t_choice.t_heap.t_xmin, 4);
	if (mask & IPL_WALF_XMAX)
		IplWalGet(r, &hdr->t_choice.t_heap.t_xmax, 4);
	if (mask & IPL_WALF_CID)
		IplWalGet(r, &hdr->t_choice.t_heap.t_field3.t_cid, 4);
	if (mask & IPL_WALF_CTID)
		IplWalGet(r, &hdr->t_ctid, sizeof(ItemPointerData));
	if (mask & IPL_WALF_CTID_NEW)
	{
		if (newSelf == NULL)
			r->ok = false;
		else
			hdr->t_ctid = *newSelf;
	}
}

/*
 * IplWalUnpackTuple - the IPL_WAL_TUPLE operation at r (its code read) as
 * patches of rb: the tuple, its line pointer, pd_lower/pd_upper.  page is
 * the page before the record, xid the record's.  Sets *newSelf.
 */
static void
IplWalUnpackTuple(IplWalReader *r, IplRecBuf *rb, Page page, BlockNumber blkno,
				  TransactionId xid, ItemPointerData *newSelf)
{
	PGAlignedBlock tuple;
	HeapTupleHeader hdr = (HeapTupleHeader) tuple.data;
	int			len = IplWalGet2(r);
	int			off = IplTuplePlace(page, len);
	OffsetNumber lp = IplWalGet2(r);
	uint8		mask;
	int			prefix = 0;
	int			suffix = 0;
	const char *old = NULL;
	int			oldlen = 0;

	IplWalGet(r, &mask, 1);
	if (!r->ok || len < (int) SizeofHeapTupleHeader ||
		off < ((PageHeader) page)->pd_lower +
		(lp > PageGetMaxOffsetNumber(page) ? (int) sizeof(ItemIdData) : 0) ||
		off + len > BLCKSZ || lp < FirstOffsetNumber ||
		lp > PageGetMaxOffsetNumber(page) + 1 ||
		(lp <= PageGetMaxOffsetNumber(page) && ItemIdIsUsed(PageGetItemId(page, lp))))
	{
		r->ok = false;
		return;
	}
	IplWalNewHeader(hdr, xid, blkno, lp);
	hdr->t_infomask2 = IplWalGet2(r);
	hdr->t_infomask = IplWalGet2(r);
	IplWalGet(r, &hdr->t_hoff, 1);
	IplWalGetFields(r, mask & ~IPL_WALF_CTID_NEW, hdr, NULL);
	if (mask & IPL_WALF_DELTA)
	{
		OffsetNumber oldLp = IplWalGet2(r);
		ItemId		oid;

		prefix = IplWalGet2(r);
		suffix = IplWalGet2(r);
		if (!r->ok || oldLp < FirstOffsetNumber || oldLp > PageGetMaxOffsetNumber(page) ||
			!ItemIdIsNormal(oid = PageGetItemId(page, oldLp)) ||
			ItemIdGetOffset(oid) + ItemIdGetLength(oid) > BLCKSZ ||
			prefix + suffix > len - (int) IPL_TUPLE_DATA ||
			prefix + suffix > (int) ItemIdGetLength(oid) - (int) IPL_TUPLE_DATA)
		{
			r->ok = false;
			return;
		}
		old = (char *) page + ItemIdGetOffset(oid) + IPL_TUPLE_DATA;
		oldlen = ItemIdGetLength(oid) - IPL_TUPLE_DATA;
	}
	if (prefix > 0)
		memcpy(tuple.data + IPL_TUPLE_DATA, old, prefix);
	IplWalGet(r, tuple.data + IPL_TUPLE_DATA + prefix,
			  len - IPL_TUPLE_DATA - prefix - suffix);
	if (suffix > 0)
		memcpy(tuple.data + len - suffix, old + oldlen - suffix, suffix);
	if (!r->ok)
		return;

	IplRecPatch(rb, off, tuple.data, len);
	IplRecTupleItem(rb, page, lp, off, len);
	ItemPointerSet(newSelf, blkno, lp);
}

/*
 * IplWalUnpackBody - the in-page log record of the PATCH body of a WAL
 * record (IplWalBody) into rb: page is the page blkno before the record,
 * xid the record's.  False for a body that does not parse or does not fit
 * the page.
 */
static bool
IplWalUnpackBody(IplRecBuf *rb, const char *body, int len, Page page,
				 BlockNumber blkno, TransactionId xid)
{
	IplWalReader r = {body, body + len, true};
	ItemPointerData newSelf;
	bool		haveNew = false;

	IplRecStart(rb, IPL_REC_PATCH);
	while (r.ok && r.p < r.end)
	{
		uint8		op;
		int			off;

		IplWalGet(&r, &op, 1);
		if (op == IPL_WAL_TUPLE && !haveNew)
		{
			IplWalUnpackTuple(&r, rb, page, blkno, xid, &newSelf);
			haveNew = true;
			continue;
		}
		if (op == IPL_WAL_PRUNABLE)
		{
			if (!TransactionIdIsValid(xid))
				return false;
			IplRecPatch(rb, offsetof(PageHeaderData, pd_prune_xid), &xid, sizeof(xid));
			continue;
		}
		off = IplWalGet2(&r);
		if (op == IPL_WAL_BYTES)
		{
			int			n = IplWalGet2(&r);

			if (!r.ok || off < 8 || n <= 0 || off + n > BLCKSZ || r.end - r.p < n)
				return false;
			IplRecPatch(rb, off, r.p, n);
			r.p += n;
		}
		else if (op == IPL_WAL_HEADER)
		{
			HeapTupleHeaderData hdr;
			uint8		mask;

			if (off < (int) SizeOfPageHeaderData || off + (int) SizeofHeapTupleHeader > BLCKSZ)
				return false;
			memcpy(&hdr, (char *) page + off, IPL_HDR_FIELDS);
			IplWalGet(&r, &mask, 1);
			hdr.t_infomask2 = IplWalGet2(&r);
			hdr.t_infomask = IplWalGet2(&r);
			IplWalGetFields(&r, mask, &hdr, haveNew ? &newSelf : NULL);
			if (r.ok)
				IplRecPatch(rb, off, &hdr, IPL_HDR_FIELDS);
		}
		else
			return false;
	}
	return r.ok;
}

/*
 * IplWalChange - write the WAL record of the change in rb (finished, not
 * applied yet) of the page in slot s, whose image page is (so far
 * unchanged).  A change that removes tuples names the newest of their xids
 * in conflictXid: a hot standby's queries that may still see them are
 * cancelled (or waited for) before it is redone.  Caller holds the page
 * lock exclusively.
 */
void
IplWalChange(IplSlot *s, Page page, const IplRecBuf *rb,
			 TransactionId conflictXid)
{
	int			len;
	const char *body = IplWalBody(rb, NvmPoolFramePage(s->frame), page, s->blkno, &len);

	IplWalPage(XLOG_NVM_PAGE_CHANGE, s->dirIndex, s->blkno, page,
			   NvmPoolFrameWalLsn(s->frame), rb->u.hdr.type, body, len,
			   conflictXid, 0);
}

/*
 * IplWalPage - write a page record (info) of page blkno of entry dirIndex,
 * whose image is page (unchanged so far; NULL for a new, empty page), with
 * the body of an in-page log record of type type and its conflict horizon
 * (PAGE_CHANGE, IplWalChange).  *lsn is
 * the LSN of the page's previous record (0: unknown): at or before the
 * redo pointer, the record carries the image (XLogInsert decides, from the
 * page LSN, as for a buffer).  Sets *lsn to the record's.  Caller holds
 * the page lock exclusively (for a new page, the extension lock).
 */
void
IplWalPage(uint8 info, int dirIndex, BlockNumber blkno, Page page,
		   uint64 *lsn, uint8 type, const char *body, int len,
		   TransactionId conflictXid, uint8 regflags)
{
	static PGAlignedBlock empty;
	XlNvmPage	xlrec;
	RelFileNode node;
	uint64		gen = 0;

	IplPageOwner(dirIndex, &node);
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.dirIndex = dirIndex;
	xlrec.type = type;
	if (TransactionIdIsValid(conflictXid))
		xlrec.flags |= XLNVM_PAGE_CONFLICT;

	/*
	 * pd_lsn of an nvm_am page holds its generation; for XLogInsert it
	 * holds the page's last LSN, for the time of the call.  Readers that
	 * pinned the image do not look at it, and no error may leave it so.
	 */
	START_CRIT_SECTION();
	XLogBeginInsert();
	XLogRegisterData((char *) &xlrec, SizeOfXlNvmPage);
	if (xlrec.flags & XLNVM_PAGE_CONFLICT)
		XLogRegisterData((char *) &conflictXid, sizeof(conflictXid));
	if (len > 0)
		XLogRegisterData((char *) body, len);
	if (page != NULL)
	{
		gen = IplPageGen(page);
		IplPageSetGen(page, *lsn);
		XLogRegisterBlock(0, &node, MAIN_FORKNUM, blkno, page, REGBUF_STANDARD | regflags);
	}
	else
		XLogRegisterBlock(0, &node, MAIN_FORKNUM, blkno, empty.data, regflags);
	*lsn = XLogInsert(NVM_RMGR_ID, info);
	if (page != NULL)
		IplPageSetGen(page, gen);
	END_CRIT_SECTION();
}

/*
 * IplRedoReplace - make image the page blkno of entry dirIndex: written to
 * a new frame (with a new generation, an empty log) that replaces the
 * page's frame, which is not read.  Caller holds the page lock
 * exclusively; redo only.
 */
static void
IplRedoReplace(int dirIndex, BlockNumber blkno, Page image)
{
	uint64		old = NvmPoolRelGetFrame(dirIndex, blkno);
	int			slot = IplCacheLookup(old);

	/* an image of the old frame is stale from now on; readers keep theirs */
	if (slot >= 0)
		IplCacheUnmap(slot);
	IplWriteFrame(dirIndex, blkno, image, NvmPoolAllocFrame(true), -1);
}

/*
 * IplWalRedo - redo a page record (PAGE_CHANGE, NEW_PAGE, PAGE_MOVE) on
 * this server's pool; installed in nvm_xlog.c by _PG_init.  Records of a
 * relation that is gone (dropped later in the WAL) or of blocks it no
 * longer has (truncated later) are skipped.
 */
void
IplWalRedo(XLogReaderState *record)
{
	uint8		info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
	XlNvmPage	xlrec;
	RelFileNode node;
	RelFileNode owner;
	ForkNumber	fork;
	BlockNumber blkno;
	uint64		state;
	PGAlignedBlock image;
	bool		hasImage;
	LWLock	   *lock;
	TransactionId conflictXid;
	const char *body;
	int			len;

	if (!XlNvmPageParse(XLogRecGetData(record), (int) XLogRecGetDataLen(record),
						&xlrec, &conflictXid, &body, &len))
		elog(PANIC, "nvm_am redo: a page record too short");
	if (!XLogRecGetBlockTagExtended(record, 0, &node, &fork, &blkno, NULL))
		elog(PANIC, "nvm_am redo: page record without its page");
	if (xlrec.dirIndex < 0 || xlrec.dirIndex >= NvmPoolDirSize() ||
		!NvmPoolRelGetKey(xlrec.dirIndex, &owner, &state) ||
		!RelFileNodeEquals(owner, node))
		return;
	hasImage = XLogRecHasBlockImage(record, 0);
	if (hasImage && !RestoreBlockImage(record, 0, image.data))
		elog(PANIC, "nvm_am redo: %s", record->errormsg_buf);

	/*
	 * Queries of a hot standby that may still see tuples this removes are
	 * cancelled, or waited for, first: never under the page lock, which
	 * they may be waiting for.
	 */
	if (InHotStandby && TransactionIdIsValid(conflictXid))
		ResolveRecoveryConflictWithSnapshot(conflictXid, node);

	ipl_in_redo = true;
	if (info == XLOG_NVM_NEW_PAGE)
	{
		/* the page may exist already (crash recovery of this pool): anew */
		if (blkno < NvmPoolRelNBlocks(xlrec.dirIndex) && !hasImage)
		{
			PageInit(image.data, BLCKSZ, 0);
			hasImage = true;
		}
		while (NvmPoolRelNBlocks(xlrec.dirIndex) <= blkno)
			(void) IplNewPage(xlrec.dirIndex);
	}
	if (blkno < NvmPoolRelNBlocks(xlrec.dirIndex))
	{
		lock = NvmPoolPageLock(xlrec.dirIndex, blkno);
		LWLockAcquire(lock, LW_EXCLUSIVE);
		if (hasImage)
			IplRedoReplace(xlrec.dirIndex, blkno, image.data);
		if (info == XLOG_NVM_PAGE_CHANGE)
		{
			IplRecBuf  *rb = &redobuf;
			Page		page = IplGetPage(xlrec.dirIndex, blkno);

			if (xlrec.type == IPL_REC_PATCH)
			{
				if (!IplWalUnpackBody(rb, body, len, page, blkno,
									  XLogRecGetXid(record)))
					elog(PANIC, "nvm_am redo: a page record of block %u does not parse", blkno);
			}
			else
			{
				IplRecStart(rb, xlrec.type);
				IplRecAdd(rb, body, len);
			}
			/* a prune moves tuples: never under readers that pinned the image */
			if (IplRecIsPrune(xlrec.type))
			{
				if (!IplPruneApply(page, rb, image.data, InvalidTransactionId))
					ereport(ERROR,
							(errcode(ERRCODE_DISK_FULL),
							 errmsg("nvm_am pool is full"),
							 errdetail("WAL redo of a prune of block %u found no free page frame.", blkno),
							 errhint("Raise nvm_am.pool_size and restart the server: the pool grows.")));
			}
			else
				IplApply(page, rb);
		}
		LWLockRelease(lock);
	}
	ipl_in_redo = false;
}

/*
 * IplWalTypeName - the name of an in-page log record type, for the
 * description of a page record (rm_desc: pg_walinspect, error contexts).
 */
const char *
IplWalTypeName(uint8 type)
{
	return type == IPL_REC_PATCH ? "patch" : type == IPL_REC_PRUNE ? "prune" :
		type == IPL_REC_PRUNE_FILL ? "prune_fill" : "unknown";
}
