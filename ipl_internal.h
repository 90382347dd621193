/*-------------------------------------------------------------------------
 *
 * ipl_internal.h
 *	  What the files of nvm_am's page operations share and nothing else
 *	  may use (scripts/check_layers.py): the format of an in-page log
 *	  record and the buffer one is built in, the generation in pd_lsn,
 *	  the record operations that ipl_wal.c (WAL mode) needs of ipl_log.c,
 *	  those ipl_log.c needs of it, the compact form of a record both use
 *	  (ipl_delta.c), and the checksum ipl_log.c sets before it writes a
 *	  base (ipl_checksum.c).  The other layers use nvm_page.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef IPL_INTERNAL_H
#define IPL_INTERNAL_H

#include "port/pg_crc32c.h"
#include "storage/bufpage.h"

#include "nvm_page.h"

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
#define IPL_REC_PRUNE	2		/* then PageRepairFragmentation */
#define IPL_REC_PRUNE_FILL 3	/* then IplPruneFill (records of older builds
								 * are PRUNE) */
#define IPL_REC_DELTA	4		/* a PATCH record in compact form: the xid it
								 * was encoded for, then ipl_delta.c's
								 * operations (pool format version 7) */

/* IplRecIsPrune - a record of either prune type? */
#define IplRecIsPrune(type) ((type) == IPL_REC_PRUNE || (type) == IPL_REC_PRUNE_FILL)

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
	/*
	 * What the record's patches are, for its compact form (IplDeltaEncode): the line
	 * pointer of the tuple IplTupleRecord added (its first three patches),
	 * the version an update replaced (its data is mostly the new one's), the
	 * offset of a patch of a tuple header's visibility fields; 0 for none.
	 * Set where the record is made, and by IplDeltaDecode from a compact
	 * body (WAL redo encodes the record it rebuilt again).
	 */
	OffsetNumber walTupleLp;
	OffsetNumber walOldLp;
	uint16		walHdrOff;
	bool		hasBasePatch;	/* a patch takes its bytes from the base */
} IplRecBuf;

static inline uint64
IplPageGen(Page page)
{
	return PageXLogRecPtrGet(((PageHeader) page)->pd_lsn);
}

static inline void
IplPageSetGen(Page page, uint64 gen)
{
	PageXLogRecPtrSet(((PageHeader) page)->pd_lsn, gen);
}

static inline void
IplRecStart(IplRecBuf *rb, uint8 type)
{
	memset(&rb->u.hdr, 0, sizeof(IplRecord));
	rb->u.hdr.type = type;
	rb->len = sizeof(IplRecord);
	rb->walTupleLp = InvalidOffsetNumber;
	rb->walOldLp = InvalidOffsetNumber;
	rb->walHdrOff = 0;
	rb->hasBasePatch = false;
}

static inline void
IplRecAdd(IplRecBuf *rb, const void *data, int len)
{
	Assert(rb->len + len <= (int) sizeof(rb->u.data) - 8);
	memcpy(rb->u.data + rb->len, data, len);
	rb->len += len;
}

/* IplRecPatch - add "write len bytes of data at page offset off" */
static inline void
IplRecPatch(IplRecBuf *rb, int off, const void *data, int len)
{
	IplPatch	p;

	Assert(off >= 8 && len > 0 && off + len <= BLCKSZ);
	p.off = (uint16) off;
	p.len = (uint16) len;
	IplRecAdd(rb, &p, sizeof(p));
	IplRecAdd(rb, data, len);
}

/*
 * IplTuplePlace - where IplTupleRecord puts a tuple of len bytes on page:
 * just below pd_upper
 */
static inline int
IplTuplePlace(Page page, int len)
{
	return ((PageHeader) page)->pd_upper - (int) MAXALIGN(len);
}

/* ipl_log.c */
extern void IplTupleItem(Page page, OffsetNumber lp, int off, int len,
						 ItemIdData *item, uint16 word[4]);
extern void IplRecTupleItem(IplRecBuf *rb, Page page, OffsetNumber lp, int off,
							int len);
extern int	IplPatchNext(const char **p, const char *end, IplPatch *patch,
						 const char **bytes, pg_crc32c *crc);
extern void IplApply(Page page, IplRecBuf *rb);
extern bool IplPruneApply(Page page, IplRecBuf *rb, Page np,
						  TransactionId conflictXid);
extern void IplPageOwner(int dirIndex, RelFileNode *node);
extern void IplWriteFrame(int dirIndex, BlockNumber blkno, Page image,
						  uint64 newframe, int slot);

/* ipl_delta.c */
extern const char *IplDeltaEncode(const IplRecBuf *rb, Page base, Page page,
								  BlockNumber blkno, TransactionId xid, int *len);
extern bool IplDeltaDecode(IplRecBuf *rb, const char *body, int len, Page page,
						   BlockNumber blkno, TransactionId xid);

/* ipl_checksum.c */
extern void IplSetChecksum(int dirIndex, BlockNumber blkno, Page page);

/* ipl_wal.c */
extern bool ipl_in_redo;
extern TransactionId IplRecordXid(void);
extern bool IplWalLogged(int dirIndex);
extern bool IplWalNeeded(int dirIndex);
extern void IplWalChange(IplSlot *s, Page page, const IplRecBuf *rb,
						 const char *body, int len, TransactionId conflictXid);
extern void IplWalPage(uint8 info, int dirIndex, BlockNumber blkno, Page page,
					   uint64 *lsn, uint8 type, const char *body, int len,
					   TransactionId conflictXid, uint8 regflags);

#endif							/* IPL_INTERNAL_H */
