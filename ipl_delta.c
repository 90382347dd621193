/*-------------------------------------------------------------------------
 *
 * ipl_delta.c
 *	  The compact form of a PATCH record of an in-page log: the record as
 *	  operations against the page it is applied to, leaving out whatever
 *	  can be derived from that page (IplDeltaEncode, IplDeltaDecode).  It
 *	  is the body of a DELTA record in an in-page log (pool format
 *	  version 7; ipl_log.c) and of a page record in WAL (ipl_wal.c), so a
 *	  change is encoded once for both.  A DELTA record, like a WAL record,
 *	  applies only to the page it was made against: the page's base image
 *	  with the records before it applied, which the log's prefix rule
 *	  (ipl_log.c) guarantees.
 *
 * Locks: none of its own.  Callers hold the lock of the page they pass
 *	  (exclusively when the page is about to change).
 *
 * On-pool layout owned here: the operations below, which follow the
 *	  transaction id in the body of a DELTA record (the record itself is
 *	  ipl_log.c's) and are the body of a WAL page record.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "storage/bufpage.h"

#include "ipl_internal.h"

/*
 * A PATCH record (ipl_log.c) lists page bytes to write.  Its compact form
 * lists operations instead, and leaves out whatever the reader can derive
 * from the page before the record, as heap's WAL records leave out what
 * redo derives: the line pointer and pd_lower/pd_upper of a new tuple, the
 * fields of its header that are as expected (xmin the record's xid, no
 * xmax, the first command id, t_ctid pointing to itself), the fields of a
 * changed tuple header that stay as they were, and the data a new version
 * shares with the version it updates (a prefix and a suffix, copied from
 * the old version by the reader).  The reader (a merge of the page's log,
 * or WAL redo) has the same page before the record wherever records wrote
 * it; it may differ only in hints (t_infomask's hint bits, pd_prune_xid as
 * a hint, pd_checksum between frame writes), so t_infomask always travels
 * and derived pd_flags/pd_checksum are the reader's own.  The encoder uses
 * a derived form only when deriving it from its own page before the record
 * gives exactly the bytes of the PATCH record; anything else travels as
 * literal bytes.  Decoding gives back the PATCH record's patches, in
 * order (with the bytes of the base that a patch names: a DELTA record is
 * not made of a record that has such patches).
 *
 * Operations (integers little-endian as in memory, unaligned):
 *   IPL_DELTA_BYTES  off:2 len:2 bytes[len]            write bytes at off
 *   IPL_DELTA_TUPLE  len:2 lp:2 mask:1 infomask2:2 infomask:2 hoff:1
 *                  [xmin:4] [xmax:4] [cid:4] [ctid:6]
 *                  [oldlp:2 prefix:2 suffix:2]     (IPL_DELTAF_SHARED)
 *                  data[len - 23 - prefix - suffix]
 *                  a new tuple of len bytes under line pointer lp, placed
 *                  as IplTupleRecord places it: at pd_upper - MAXALIGN(len)
 *                  (its place, line pointer and pd_lower/pd_upper derived)
 *   IPL_DELTA_HEADER off:2 mask:1 infomask2:2 infomask:2
 *                  [xmin:4] [xmax:4] [cid:4] [ctid:6]
 *                  new visibility fields of the tuple header at off; a
 *                  field not in mask keeps the page's value, except that
 *                  IPL_DELTAF_CTID_NEW points t_ctid to the record's new tuple
 *   IPL_DELTA_PRUNABLE                                 pd_prune_xid becomes
 *                  the record's xid (IplRecPrunable)
 *   IPL_DELTA_END    (0) the end: only zeros follow (a DELTA record's
 *                  padding to 8 bytes; a WAL body has none)
 */
#define IPL_DELTA_END	0
#define IPL_DELTA_BYTES	1
#define IPL_DELTA_TUPLE	2
#define IPL_DELTA_HEADER	3
#define IPL_DELTA_PRUNABLE	4

#define IPL_DELTAF_XMIN		0x01
#define IPL_DELTAF_XMAX		0x02
#define IPL_DELTAF_CID		0x04
#define IPL_DELTAF_CTID		0x08
#define IPL_DELTAF_CTID_NEW	0x10
#define IPL_DELTAF_SHARED		0x20

/* the visibility fields of a tuple header: all of it up to t_hoff */
#define IPL_HDR_FIELDS	offsetof(HeapTupleHeaderData, t_hoff)
/* where a tuple's data (null bitmap, padding, columns) starts */
#define IPL_TUPLE_DATA	offsetof(HeapTupleHeaderData, t_bits)
/* shared bytes (prefix + suffix) worth the 6 bytes that name them */
#define IPL_DELTA_SHARED_MIN	8

/*
 * A compact body being built: static, at most one at a time.  An operation
 * takes at most one byte more than the patch (4-byte header, at least one
 * byte) it stands for, and an in-page record at most 2 * BLCKSZ.
 */
typedef struct IplDeltaBuf
{
	char		data[2 * BLCKSZ * 6 / 5 + 64];
	int			len;
} IplDeltaBuf;

static void
IplDeltaPut(IplDeltaBuf *wb, const void *data, int len)
{
	Assert(wb->len + len <= (int) sizeof(wb->data));
	memcpy(wb->data + wb->len, data, len);
	wb->len += len;
}

static void
IplDeltaPut1(IplDeltaBuf *wb, uint8 v)
{
	IplDeltaPut(wb, &v, 1);
}

static void
IplDeltaPut2(IplDeltaBuf *wb, uint16 v)
{
	IplDeltaPut(wb, &v, 2);
}

/*
 * IplDeltaPutFields - the optional header fields of an IPL_DELTA_TUPLE or
 * IPL_DELTA_HEADER operation: those of hdr that differ from expect (ctid:
 * unless it is newSelf, which sets IPL_DELTAF_CTID_NEW instead).  The mask
 * byte is at maskAt in wb.
 */
static void
IplDeltaPutFields(IplDeltaBuf *wb, int maskAt, const HeapTupleHeaderData *hdr,
				const HeapTupleHeaderData *expect, const ItemPointerData *newSelf)
{
	uint8		mask = 0;

	if (HeapTupleHeaderGetRawXmin(hdr) != HeapTupleHeaderGetRawXmin(expect))
	{
		mask |= IPL_DELTAF_XMIN;
		IplDeltaPut(wb, &hdr->t_choice.t_heap.t_xmin, 4);
	}
	if (HeapTupleHeaderGetRawXmax(hdr) != HeapTupleHeaderGetRawXmax(expect))
	{
		mask |= IPL_DELTAF_XMAX;
		IplDeltaPut(wb, &hdr->t_choice.t_heap.t_xmax, 4);
	}
	if (hdr->t_choice.t_heap.t_field3.t_cid != expect->t_choice.t_heap.t_field3.t_cid)
	{
		mask |= IPL_DELTAF_CID;
		IplDeltaPut(wb, &hdr->t_choice.t_heap.t_field3.t_cid, 4);
	}
	if (newSelf != NULL && ItemPointerEquals((ItemPointer) &hdr->t_ctid, (ItemPointer) newSelf) &&
		!ItemPointerEquals((ItemPointer) &expect->t_ctid, (ItemPointer) newSelf))
		mask |= IPL_DELTAF_CTID_NEW;
	else if (memcmp(&hdr->t_ctid, &expect->t_ctid, sizeof(ItemPointerData)) != 0)
	{
		mask |= IPL_DELTAF_CTID;
		IplDeltaPut(wb, &hdr->t_ctid, sizeof(ItemPointerData));
	}
	wb->data[maskAt] |= mask;
}

/* IplDeltaNewHeader - the header redo expects of a new tuple at lp */
static void
IplDeltaNewHeader(HeapTupleHeaderData *expect, TransactionId xid,
				BlockNumber blkno, OffsetNumber lp)
{
	memset(expect, 0, sizeof(*expect));
	HeapTupleHeaderSetXmin(expect, xid);
	expect->t_choice.t_heap.t_field3.t_cid = FirstCommandId;
	ItemPointerSet(&expect->t_ctid, blkno, lp);
}

/*
 * IplDeltaPutTuple - the IPL_DELTA_TUPLE operation of the tuple (len bytes at
 * off, from patch bytes) that IplTupleRecord added under line pointer lp,
 * if its line pointer and pd_lower/pd_upper patches (lpPatch, wordPatch)
 * are those redo derives; false (nothing added) otherwise.  xid is the
 * record's (the expected xmin).  oldLp is the
 * version it updates (0: none), whose data may supply a prefix and suffix.
 */
static bool
IplDeltaPutTuple(IplDeltaBuf *wb, Page page, BlockNumber blkno, TransactionId xid,
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
		if (prefix + suffix < IPL_DELTA_SHARED_MIN)
			prefix = suffix = 0;
	}

	memcpy(&hdr, bytes, SizeofHeapTupleHeader);
	IplDeltaNewHeader(&expect, xid, blkno, lp);
	IplDeltaPut1(wb, IPL_DELTA_TUPLE);
	IplDeltaPut2(wb, len);
	IplDeltaPut2(wb, lp);
	maskAt = wb->len;
	IplDeltaPut1(wb, (prefix + suffix) > 0 ? IPL_DELTAF_SHARED : 0);
	IplDeltaPut2(wb, hdr.t_infomask2);
	IplDeltaPut2(wb, hdr.t_infomask);
	IplDeltaPut1(wb, hdr.t_hoff);
	IplDeltaPutFields(wb, maskAt, &hdr, &expect, NULL);
	if (prefix + suffix > 0)
	{
		IplDeltaPut2(wb, oldLp);
		IplDeltaPut2(wb, prefix);
		IplDeltaPut2(wb, suffix);
	}
	IplDeltaPut(wb, bytes + IPL_TUPLE_DATA + prefix, data - prefix - suffix);
	return true;
}

/*
 * IplDeltaPutHeader - the IPL_DELTA_HEADER operation of a patch of the
 * visibility fields (bytes) of the tuple header at off of page; newSelf is
 * the record's new tuple, if it adds one.
 */
static void
IplDeltaPutHeader(IplDeltaBuf *wb, Page page, int off, const char *bytes,
				const ItemPointerData *newSelf)
{
	HeapTupleHeaderData hdr;
	HeapTupleHeaderData expect;
	int			maskAt;

	memcpy(&hdr, bytes, IPL_HDR_FIELDS);
	memcpy(&expect, (char *) page + off, IPL_HDR_FIELDS);
	IplDeltaPut1(wb, IPL_DELTA_HEADER);
	IplDeltaPut2(wb, off);
	maskAt = wb->len;
	IplDeltaPut1(wb, 0);
	IplDeltaPut2(wb, hdr.t_infomask2);
	IplDeltaPut2(wb, hdr.t_infomask);
	IplDeltaPutFields(wb, maskAt, &hdr, &expect, newSelf);
}

/*
 * IplDeltaEncode - the compact form (above) of the finished PATCH record in
 * rb, made for page blkno by transaction xid (the expected xmin of a new
 * tuple; InvalidTransactionId when there is none), whose image before the
 * record is page and whose base image is base (bytes a patch takes from
 * the base are written out).  Returns the body (valid until the next
 * call) and its length in *len.  Caller holds the page lock exclusively.
 */
const char *
IplDeltaEncode(const IplRecBuf *rb, Page base, Page page, BlockNumber blkno,
			   TransactionId xid, int *len)
{
	static IplDeltaBuf wb;
	const char *p = rb->u.data + sizeof(IplRecord);
	const char *end = rb->u.data + rb->len;
	IplPatch	patch[3];
	const char *bytes[3];
	ItemPointerData newSelf;
	bool		haveNew = false;
	pg_crc32c	crc;
	int			n = 0;
	int			r;

	Assert(rb->u.hdr.type == IPL_REC_PATCH);
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
			IplDeltaPutTuple(&wb, page, blkno, xid, rb->walTupleLp, rb->walOldLp,
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
			elog(PANIC, "nvm_am page record does not parse");
		else
			break;

		if (pt.off == rb->walHdrOff && pt.len == IPL_HDR_FIELDS &&
			pt.off + SizeofHeapTupleHeader <= BLCKSZ)
			IplDeltaPutHeader(&wb, page, pt.off, b, haveNew ? &newSelf : NULL);
		else if (pt.off == offsetof(PageHeaderData, pd_prune_xid) &&
				 pt.len == sizeof(TransactionId) &&
				 memcmp(b, &xid, sizeof(xid)) == 0 && TransactionIdIsValid(xid))
			IplDeltaPut1(&wb, IPL_DELTA_PRUNABLE);
		else
		{
			IplDeltaPut1(&wb, IPL_DELTA_BYTES);
			IplDeltaPut2(&wb, pt.off);
			IplDeltaPut2(&wb, pt.len);
			IplDeltaPut(&wb, b, pt.len);
		}
	}
	*len = wb.len;
	return wb.data;
}

/* a WAL body being read */
typedef struct IplDeltaReader
{
	const char *p;
	const char *end;
	bool		ok;
} IplDeltaReader;

static void
IplDeltaGet(IplDeltaReader *r, void *dst, int len)
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
IplDeltaGet2(IplDeltaReader *r)
{
	uint16		v;

	IplDeltaGet(r, &v, 2);
	return v;
}

/* IplDeltaGetFields - the optional fields of mask into hdr */
static void
IplDeltaGetFields(IplDeltaReader *r, uint8 mask, HeapTupleHeader hdr,
				const ItemPointerData *newSelf)
{
	if (mask & IPL_DELTAF_XMIN)
		IplDeltaGet(r, &hdr->t_choice.t_heap.t_xmin, 4);
	if (mask & IPL_DELTAF_XMAX)
		IplDeltaGet(r, &hdr->t_choice.t_heap.t_xmax, 4);
	if (mask & IPL_DELTAF_CID)
		IplDeltaGet(r, &hdr->t_choice.t_heap.t_field3.t_cid, 4);
	if (mask & IPL_DELTAF_CTID)
		IplDeltaGet(r, &hdr->t_ctid, sizeof(ItemPointerData));
	if (mask & IPL_DELTAF_CTID_NEW)
	{
		if (newSelf == NULL)
			r->ok = false;
		else
			hdr->t_ctid = *newSelf;
	}
}

/*
 * IplDeltaDecodeTuple - the IPL_DELTA_TUPLE operation at r (its code read) as
 * patches of rb: the tuple, its line pointer, pd_lower/pd_upper.  page is
 * the page before the record, xid the record's.  Sets *newSelf.
 */
static void
IplDeltaDecodeTuple(IplDeltaReader *r, IplRecBuf *rb, Page page, BlockNumber blkno,
				  TransactionId xid, ItemPointerData *newSelf)
{
	PGAlignedBlock tuple;
	HeapTupleHeader hdr = (HeapTupleHeader) tuple.data;
	int			len = IplDeltaGet2(r);
	int			off = IplTuplePlace(page, len);
	OffsetNumber lp = IplDeltaGet2(r);
	uint8		mask;
	int			prefix = 0;
	int			suffix = 0;
	const char *old = NULL;
	int			oldlen = 0;
	OffsetNumber oldLp = InvalidOffsetNumber;

	IplDeltaGet(r, &mask, 1);
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
	IplDeltaNewHeader(hdr, xid, blkno, lp);
	hdr->t_infomask2 = IplDeltaGet2(r);
	hdr->t_infomask = IplDeltaGet2(r);
	IplDeltaGet(r, &hdr->t_hoff, 1);
	IplDeltaGetFields(r, mask & ~IPL_DELTAF_CTID_NEW, hdr, NULL);
	if (mask & IPL_DELTAF_SHARED)
	{
		ItemId		oid;

		oldLp = IplDeltaGet2(r);
		prefix = IplDeltaGet2(r);
		suffix = IplDeltaGet2(r);
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
	IplDeltaGet(r, tuple.data + IPL_TUPLE_DATA + prefix,
			  len - IPL_TUPLE_DATA - prefix - suffix);
	if (suffix > 0)
		memcpy(tuple.data + len - suffix, old + oldlen - suffix, suffix);
	if (!r->ok)
		return;

	IplRecPatch(rb, off, tuple.data, len);
	IplRecTupleItem(rb, page, lp, off, len);
	ItemPointerSet(newSelf, blkno, lp);
	/* what IplTupleRecord and IplUpdateTuple note, so rb encodes again alike */
	rb->walTupleLp = lp;
	if (old != NULL)
		rb->walOldLp = oldLp;
}

/*
 * IplDeltaDecode - the PATCH record (started, not finished) that the
 * compact body of len bytes (IplDeltaEncode) stands for, into rb: page is
 * the page blkno before the record, xid the one it was encoded for.  False
 * for a body that does not parse or does not fit the page, which is then
 * not changed.  Caller holds the page lock.
 */
bool
IplDeltaDecode(IplRecBuf *rb, const char *body, int len, Page page,
			   BlockNumber blkno, TransactionId xid)
{
	IplDeltaReader r = {body, body + len, true};
	ItemPointerData newSelf;
	bool		haveNew = false;

	IplRecStart(rb, IPL_REC_PATCH);
	while (r.ok && r.p < r.end)
	{
		uint8		op;
		int			off;

		IplDeltaGet(&r, &op, 1);
		if (op == IPL_DELTA_END)
		{
			while (r.p < r.end)
				if (*r.p++ != 0)
					return false;
			break;
		}
		if (op == IPL_DELTA_TUPLE && !haveNew)
		{
			IplDeltaDecodeTuple(&r, rb, page, blkno, xid, &newSelf);
			haveNew = true;
			continue;
		}
		if (op == IPL_DELTA_PRUNABLE)
		{
			if (!TransactionIdIsValid(xid))
				return false;
			IplRecPatch(rb, offsetof(PageHeaderData, pd_prune_xid), &xid, sizeof(xid));
			continue;
		}
		off = IplDeltaGet2(&r);
		if (op == IPL_DELTA_BYTES)
		{
			int			n = IplDeltaGet2(&r);

			if (!r.ok || off < 8 || n <= 0 || off + n > BLCKSZ || r.end - r.p < n)
				return false;
			IplRecPatch(rb, off, r.p, n);
			r.p += n;
		}
		else if (op == IPL_DELTA_HEADER)
		{
			HeapTupleHeaderData hdr;
			uint8		mask;

			if (off < (int) SizeOfPageHeaderData || off + (int) SizeofHeapTupleHeader > BLCKSZ)
				return false;
			memcpy(&hdr, (char *) page + off, IPL_HDR_FIELDS);
			IplDeltaGet(&r, &mask, 1);
			hdr.t_infomask2 = IplDeltaGet2(&r);
			hdr.t_infomask = IplDeltaGet2(&r);
			IplDeltaGetFields(&r, mask, &hdr, haveNew ? &newSelf : NULL);
			if (r.ok)
				IplRecPatch(rb, off, &hdr, IPL_HDR_FIELDS);
			rb->walHdrOff = off;
		}
		else
			return false;
	}
	return r.ok;
}

