/*-------------------------------------------------------------------------
 *
 * nvm_logical.c
 *	  Logical decoding of nvm_am changes (logical replication, output
 *	  plugins such as pgoutput and test_decoding).
 *
 *	  With wal_level = logical every insert, update and delete of a
 *	  logically logged nvm_am table (a permanent user table:
 *	  RelationIsLogicallyLogged) also writes one LOGICAL record of nvm_am's
 *	  resource manager, after the change: the new row as stored (TOAST
 *	  pointers included, as heap logs it; the TOAST table is an ordinary
 *	  heap table whose chunks heap logs) and, for updates and deletes, the
 *	  old row's replica identity chosen as heap chooses it — the whole old
 *	  row with REPLICA IDENTITY FULL, else its key columns (nulls
 *	  elsewhere) for a delete or an update that changes the key or whose
 *	  old key has a value stored out of line, nothing with REPLICA IDENTITY
 *	  NOTHING or no key.  Values out of line in the old row are fetched and
 *	  logged inline, since the decoder cannot read the table.
 *
 *	  The decode callback of the resource manager (NvmLogicalDecode) turns
 *	  each LOGICAL record into an insert, update or delete of the reorder
 *	  buffer, so that output plugins see nvm_am changes exactly as heap
 *	  changes; the other records of the resource manager only have their
 *	  xid noted.  A speculative insert (INSERT ... ON CONFLICT) is logged
 *	  as an insert when it is confirmed, and not at all when it is
 *	  withdrawn.
 *
 *	  The record carries rows, not changes of pages, so it serves both
 *	  modes of nvm_am.wal_log: redo ignores it.  A transaction that wrote
 *	  one wrote WAL, so its commit goes through WAL (rule 4 of the commit
 *	  protocol), as a heap transaction's does under wal_level = logical.
 *
 * Locks: NvmLogicalOldRow runs under the caller's page lock and only
 * copies; NvmLogicalLog is called with no page lock held (it may fetch
 * TOAST values).
 *
 * On-pool layout: none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/xlog_internal.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "catalog/catalog.h"
#include "replication/decode.h"
#include "replication/logical.h"
#include "replication/origin.h"
#include "replication/reorderbuffer.h"
#include "replication/snapbuild.h"
#include "utils/rel.h"

#include "nvm_hooks.h"

/* XlNvmLogical.flags */
#define XLNVM_LOGICAL_HAS_NEW	0x01	/* the new row follows */
#define XLNVM_LOGICAL_HAS_OLD	0x02	/* then the old row's identity */
#define XLNVM_LOGICAL_MORE		0x04	/* more rows of one multi-insert follow */

/*
 * LOGICAL: the change's relation and kind, then each row present as an
 * XlNvmLogicalRow and the row's bytes after its fixed header (null bitmap,
 * padding, data: t_len - SizeofHeapTupleHeader bytes).
 */
typedef struct XlNvmLogical
{
	RelFileNode node;
	uint8		action;			/* NVM_LOGICAL_INSERT, _UPDATE, _DELETE */
	uint8		flags;
	uint16		pad;
	uint32		newLen;			/* bytes of the new row's part */
	uint32		oldLen;			/* bytes of the old row's part */
} XlNvmLogical;

typedef struct XlNvmLogicalRow
{
	uint16		t_infomask2;
	uint16		t_infomask;
	uint8		t_hoff;
} XlNvmLogicalRow;

#define SizeOfXlNvmLogicalRow	(offsetof(XlNvmLogicalRow, t_hoff) + sizeof(uint8))

static const char *const action_names[] = {"insert", "update", "delete"};

/*
 * NvmLogicalWanted - does a change of rel need a LOGICAL record?
 */
bool
NvmLogicalWanted(Relation rel)
{
	return RelationIsLogicallyLogged(rel);
}

/*
 * NvmLogicalIdentity - the replica identity columns of rel (offset by
 * FirstLowInvalidHeapAttributeNumber), for NvmLogicalOldRow.  Takes catalog
 * lookups: call it before locking a page.
 */
Bitmapset *
NvmLogicalIdentity(Relation rel)
{
	if (rel->rd_rel->relreplident == REPLICA_IDENTITY_NOTHING ||
		rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL)
		return NULL;
	return RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_IDENTITY_KEY);
}

/*
 * NvmLogicalOldRow - what to log of oldtup, the row an update or a delete
 * replaces (keyChanged: a delete, or an update that changes a column of
 * idattrs): a palloc'd copy of the whole row (REPLICA IDENTITY FULL), of
 * its identity columns with nulls elsewhere, or NULL (nothing to log).
 * Values out of line stay pointers here (NvmLogicalLog fetches them).
 * Caller holds the page lock of oldtup.
 */
HeapTuple
NvmLogicalOldRow(Relation rel, Bitmapset *idattrs, HeapTuple oldtup,
				 bool keyChanged)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Datum	   *values;
	bool	   *nulls;
	bool		external = false;
	HeapTuple	key;

	if (rel->rd_rel->relreplident == REPLICA_IDENTITY_NOTHING)
		return NULL;
	if (rel->rd_rel->relreplident == REPLICA_IDENTITY_FULL)
		return heap_copytuple(oldtup);
	if (bms_is_empty(idattrs))
		return NULL;
	values = palloc(desc->natts * sizeof(Datum));
	nulls = palloc(desc->natts * sizeof(bool));
	heap_deform_tuple(oldtup, desc, values, nulls);
	for (int i = 0; i < desc->natts; i++)
	{
		if (!bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber, idattrs))
			nulls[i] = true;
		else if (!nulls[i] && TupleDescAttr(desc, i)->attlen == -1 &&
				 VARATT_IS_EXTERNAL(DatumGetPointer(values[i])))
			external = true;
	}

	/*
	 * As in heap, an update that keeps the key logs it only when a key value
	 * is out of line (the new row then holds just a pointer to it).
	 */
	key = (keyChanged || external) ? heap_form_tuple(desc, values, nulls) : NULL;
	pfree(values);
	pfree(nulls);
	return key;
}

/*
 * NvmLogicalPutRow - register the part of tup that a LOGICAL record
 * carries; *hdr must live until XLogInsert.
 */
static uint32
NvmLogicalPutRow(HeapTuple tup, XlNvmLogicalRow *hdr)
{
	hdr->t_infomask2 = tup->t_data->t_infomask2;
	hdr->t_infomask = tup->t_data->t_infomask;
	hdr->t_hoff = tup->t_data->t_hoff;
	XLogRegisterData((char *) hdr, SizeOfXlNvmLogicalRow);
	XLogRegisterData((char *) tup->t_data + SizeofHeapTupleHeader,
					 tup->t_len - SizeofHeapTupleHeader);
	return SizeOfXlNvmLogicalRow + tup->t_len - SizeofHeapTupleHeader;
}

/*
 * NvmLogicalLog - write the LOGICAL record of a change of rel: action, the
 * new row as stored (NULL for a delete) and oldrow from NvmLogicalOldRow
 * (NULL if none; freed here).  moreRows: an insert of a multi-insert whose
 * later rows' TOAST chunks were stored before it (the decoder keeps the
 * chunks it has reassembled).  Caller holds no page lock and made sure
 * NvmLogicalWanted(rel); the transaction has an xid.
 */
void
NvmLogicalLog(Relation rel, uint8 action, HeapTuple newtup, HeapTuple oldrow,
			  bool moreRows)
{
	XlNvmLogical xlrec;
	XlNvmLogicalRow newhdr;
	XlNvmLogicalRow oldhdr;

	if (oldrow != NULL && HeapTupleHasExternal(oldrow))
	{
		HeapTuple	flat = toast_flatten_tuple(oldrow, RelationGetDescr(rel));

		heap_freetuple(oldrow);
		oldrow = flat;
	}
	memset(&xlrec, 0, sizeof(xlrec));
	xlrec.node = rel->rd_node;
	xlrec.action = action;
	if (moreRows)
		xlrec.flags |= XLNVM_LOGICAL_MORE;
	XLogBeginInsert();
	XLogSetRecordFlags(XLOG_INCLUDE_ORIGIN);
	XLogRegisterData((char *) &xlrec, sizeof(xlrec));
	if (newtup != NULL)
	{
		xlrec.flags |= XLNVM_LOGICAL_HAS_NEW;
		xlrec.newLen = NvmLogicalPutRow(newtup, &newhdr);
	}
	if (oldrow != NULL)
	{
		xlrec.flags |= XLNVM_LOGICAL_HAS_OLD;
		xlrec.oldLen = NvmLogicalPutRow(oldrow, &oldhdr);
	}
	(void) XLogInsert(NVM_RMGR_ID, XLOG_NVM_LOGICAL);
	if (oldrow != NULL)
		heap_freetuple(oldrow);
}

/*
 * NvmLogicalParse - the fixed part of a LOGICAL record's data; false if
 * the data is too short for it or for the rows it announces.
 */
static bool
NvmLogicalParse(const char *data, Size len, XlNvmLogical *xlrec)
{
	Size		need = sizeof(XlNvmLogical);

	if (len < need)
		return false;
	memcpy(xlrec, data, sizeof(XlNvmLogical));
	if (xlrec->flags & XLNVM_LOGICAL_HAS_NEW)
		need += xlrec->newLen;
	if (xlrec->flags & XLNVM_LOGICAL_HAS_OLD)
		need += xlrec->oldLen;
	return len >= need && xlrec->action <= NVM_LOGICAL_DELETE;
}

/*
 * NvmLogicalReadRow - a row of len bytes of a LOGICAL record at *p, as a
 * tuple of the reorder buffer; advances *p.
 */
static ReorderBufferTupleBuf *
NvmLogicalReadRow(ReorderBuffer *rb, const char **p, uint32 len)
{
	XlNvmLogicalRow hdr;
	ReorderBufferTupleBuf *buf;
	HeapTupleHeader t;
	Size		datalen;

	if (len < SizeOfXlNvmLogicalRow)
		elog(ERROR, "nvm_am LOGICAL record: a row of %u bytes", len);
	datalen = len - SizeOfXlNvmLogicalRow;
	memcpy(&hdr, *p, SizeOfXlNvmLogicalRow);
	buf = ReorderBufferGetTupleBuf(rb, datalen);
	t = buf->tuple.t_data;
	memset(t, 0, SizeofHeapTupleHeader);
	t->t_infomask2 = hdr.t_infomask2;
	t->t_infomask = hdr.t_infomask;
	t->t_hoff = hdr.t_hoff;
	memcpy((char *) t + SizeofHeapTupleHeader, *p + SizeOfXlNvmLogicalRow, datalen);
	buf->tuple.t_len = datalen + SizeofHeapTupleHeader;
	ItemPointerSetInvalid(&buf->tuple.t_self);
	buf->tuple.t_tableOid = InvalidOid;
	*p += len;
	return buf;
}

/*
 * NvmLogicalDecode - the resource manager's decode callback: every record
 * has its xid noted; a LOGICAL record of this database, once the snapshot
 * builder lets changes through, becomes a change of the reorder buffer.
 */
void
NvmLogicalDecode(LogicalDecodingContext *ctx, XLogRecordBuffer *buf)
{
	XLogReaderState *r = buf->record;
	TransactionId xid = XLogRecGetXid(r);
	XlNvmLogical xlrec;
	ReorderBufferChange *change;
	const char *p;
	static const ReorderBufferChangeType actions[] = {
		REORDER_BUFFER_CHANGE_INSERT, REORDER_BUFFER_CHANGE_UPDATE,
		REORDER_BUFFER_CHANGE_DELETE
	};

	ReorderBufferProcessXid(ctx->reorder, xid, buf->origptr);
	if ((XLogRecGetInfo(r) & ~XLR_INFO_MASK) != XLOG_NVM_LOGICAL ||
		SnapBuildCurrentState(ctx->snapshot_builder) < SNAPBUILD_FULL_SNAPSHOT)
		return;

	/*
	 * Even when fast-forwarding (a slot advanced without output), the change
	 * goes to the snapshot builder: it gives the transaction its base
	 * snapshot, whose xmin holds the slot's catalog_xmin back.
	 */
	if (!SnapBuildProcessChange(ctx->snapshot_builder, xid, buf->origptr) ||
		ctx->fast_forward)
		return;
	if (!NvmLogicalParse(XLogRecGetData(r), XLogRecGetDataLen(r), &xlrec))
		elog(ERROR, "nvm_am LOGICAL record at %X/%X is malformed",
			 LSN_FORMAT_ARGS(buf->origptr));
	if (xlrec.node.dbNode != ctx->slot->data.database)
		return;
	if (ctx->callbacks.filter_by_origin_cb &&
		filter_by_origin_cb_wrapper(ctx, XLogRecGetOrigin(r)))
		return;

	change = ReorderBufferGetChange(ctx->reorder);
	change->action = actions[xlrec.action];
	change->origin_id = XLogRecGetOrigin(r);
	change->data.tp.relnode = xlrec.node;
	p = XLogRecGetData(r) + sizeof(XlNvmLogical);
	if (xlrec.flags & XLNVM_LOGICAL_HAS_NEW)
		change->data.tp.newtuple = NvmLogicalReadRow(ctx->reorder, &p, xlrec.newLen);
	if (xlrec.flags & XLNVM_LOGICAL_HAS_OLD)
		change->data.tp.oldtuple = NvmLogicalReadRow(ctx->reorder, &p, xlrec.oldLen);
	change->data.tp.clear_toast_afterwards = (xlrec.flags & XLNVM_LOGICAL_MORE) == 0;
	ReorderBufferQueueChange(ctx->reorder, xid, buf->origptr, change, false);
}

/*
 * NvmLogicalDesc - pg_waldump's description of a LOGICAL record.
 */
void
NvmLogicalDesc(StringInfo buf, const char *data, Size len)
{
	XlNvmLogical xlrec;

	if (!NvmLogicalParse(data, len, &xlrec))
	{
		appendStringInfoString(buf, "malformed");
		return;
	}
	appendStringInfo(buf, "%s in rel %u/%u/%u", action_names[xlrec.action],
					 xlrec.node.spcNode, xlrec.node.dbNode, xlrec.node.relNode);
	if (xlrec.flags & XLNVM_LOGICAL_HAS_NEW)
		appendStringInfo(buf, ", new row %u bytes", xlrec.newLen);
	if (xlrec.flags & XLNVM_LOGICAL_HAS_OLD)
		appendStringInfo(buf, ", old row's identity %u bytes", xlrec.oldLen);
}
