/*-------------------------------------------------------------------------
 *
 * ipl_checksum.c
 *	  Checksums of the base images of nvm_am pages: what a checksum covers
 *	  (IplPageChecksum), setting it before a base is written
 *	  (IplSetChecksum), checking it at a frame's first read after a start
 *	  (IplFrameChecksumOk, called by ipl_log.c and nvm_am_check()), and the
 *	  CRC-32C they are made of, computed with carry-less multiplication
 *	  where the CPU has it.
 *
 *	  A checksum is CRC-32C over the parts of the page it covers, in order:
 *	  the page's identity (RelFileNode and block number), pd_lower,
 *	  pd_upper, pd_special and pd_pagesize_version, the line pointers, each
 *	  tuple a normal line pointer names (in line-pointer order, hint bits
 *	  of t_infomask masked) and the special space; folded to 16 bits in
 *	  pd_checksum.  It leaves out what changes in a published base without
 *	  a record (ipl_log.c's header says which).  The definition is part of
 *	  the pool format: every way of computing the CRC here gives the same
 *	  value.
 *
 * Locks: none of its own.  The callers hold the page lock of the page whose
 * image they pass (or own the image: a base about to be written).
 *
 * On-pool layout owned here: the pd_checksum field of base images.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "port/pg_crc32c.h"
#include "storage/bufpage.h"

#include "ipl_internal.h"
#include "nvm_pool.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define IPL_CRC_FOLD 1
#endif

/* the t_infomask bits a base image may gain without a record */
#define IPL_HINT_BITS	(HEAP_XMIN_COMMITTED | HEAP_XMIN_INVALID | \
						 HEAP_XMAX_COMMITTED | HEAP_XMAX_INVALID)

/* ----------------------------------------------------------------
 * CRC-32C by folding
 *
 * PostgreSQL's CRC-32C runs one chain of the CPU's crc32 instruction, each
 * step waiting for the one before (8 bytes per 3 cycles), and checksums
 * were most of the extra time of a scan's first read of a table after a
 * start, when every frame is checked.  Long runs are folded instead, with
 * carry-less multiplication, many bytes per cycle.
 *
 * A CRC register is linear.  Take 16 bytes V of the message (the register
 * xored into its first 4), as a polynomial of degree < 128, and the d bits
 * that follow: the register after all of them is the one after the 16
 * bytes (V * x^d mod P) xor the d bits.  With V = H * x^64 + L,
 * V * x^d = H * (x^(d+64) mod P) + L * (x^d mod P): two 64 x 32-bit
 * carry-less products, less than 96 bits, so the fold stays 16 bytes.  In
 * the reflected bit order of CRC-32C a product comes out one bit short of
 * where the message order needs it; the constants are taken one power of
 * x lower (x^(d+63), x^(d-1)) to make up for it.  Four 16-byte
 * accumulators fold side by side, 64 bytes apart (pclmulqdq), or sixteen,
 * four per 64-byte register, 256 bytes apart (vpclmulqdq with AVX-512);
 * at the end they fold into one, and two crc32 instructions from a zero
 * register turn its 16 bytes into the CRC register.  Bytes short of 16
 * are left to COMP_CRC32C.
 *
 * IplCrcSetUp picks the widest fold the CPU has that gives PostgreSQL's
 * CRC-32C on a test buffer at lengths that take every path of the folds
 * (and Asserts that each does).
 * ----------------------------------------------------------------
 */
#ifdef IPL_CRC_FOLD

/* fold distances in bits, the index of each in ipl_crc_k */
enum
{
	IPL_K128, IPL_K256, IPL_K384, IPL_K512, IPL_K1024, IPL_K1536, IPL_K2048,
	IPL_NK
};
static const int ipl_crc_k_bits[IPL_NK] = {128, 256, 384, 512, 1024, 1536, 2048};

/* per distance: {x^(d+63) mod P, x^(d-1) mod P}, as IplCrcXPow gives them */
static uint64 ipl_crc_k[IPL_NK][2];

/* 0 unknown; else the bytes folded per step: 1 (none), 64 or 256 */
static int	ipl_crc_fold = 0;

/*
 * IplCrcXPow - x^n mod P (P the CRC-32C polynomial) in the form the folds
 * multiply by: bit 63 - i of the result is the coefficient of x^i.
 */
static uint64
IplCrcXPow(int n)
{
	uint32		r = 0x80000000;	/* x^0, reflected: bit 31 - i is x^i */

	while (n-- > 0)
		r = (r & 1) ? (r >> 1) ^ 0x82F63B78 : r >> 1;
	return (uint64) r << 32;
}

/* IplCrcK - the two constants of fold distance k, in one register */
static inline __m128i
IplCrcK(int k)
{
	return _mm_set_epi64x((int64) ipl_crc_k[k][1], (int64) ipl_crc_k[k][0]);
}

/* IplFold128 - x folded over the distance of k (constants kv), xor with */
__attribute__((target("pclmul,sse4.2")))
static inline __m128i
IplFold128(__m128i x, __m128i kv, __m128i with)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, kv, 0x00),
									   _mm_clmulepi64_si128(x, kv, 0x11)),
						 with);
}

/*
 * IplCrcReduce - the CRC register after the 16 bytes of v (their register
 * already xored in) and the 16-byte blocks of len bytes at p after them
 */
__attribute__((target("pclmul,sse4.2")))
static pg_crc32c
IplCrcReduce(__m128i v, const char *p, size_t len)
{
	__m128i		k1 = IplCrcK(IPL_K128);
	uint64		crc;

	for (; len >= 16; p += 16, len -= 16)
		v = IplFold128(v, k1, _mm_loadu_si128((const __m128i *) p));
	crc = _mm_crc32_u64(0, (uint64) _mm_cvtsi128_si64(v));
	crc = _mm_crc32_u64(crc, (uint64) _mm_extract_epi64(v, 1));
	return (pg_crc32c) crc;
}

/*
 * IplCrcFold64 - crc advanced over len bytes at p, len a multiple of 16 and
 * at least 64: four 16-byte accumulators (pclmulqdq).
 */
__attribute__((target("pclmul,sse4.2")))
static pg_crc32c
IplCrcFold64(pg_crc32c crc, const char *p, size_t len)
{
	__m128i		x0 = _mm_loadu_si128((const __m128i *) p);
	__m128i		x1 = _mm_loadu_si128((const __m128i *) (p + 16));
	__m128i		x2 = _mm_loadu_si128((const __m128i *) (p + 32));
	__m128i		x3 = _mm_loadu_si128((const __m128i *) (p + 48));
	__m128i		k4 = IplCrcK(IPL_K512);

	x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int) crc));
	for (p += 64, len -= 64; len >= 64; p += 64, len -= 64)
	{
		x0 = IplFold128(x0, k4, _mm_loadu_si128((const __m128i *) p));
		x1 = IplFold128(x1, k4, _mm_loadu_si128((const __m128i *) (p + 16)));
		x2 = IplFold128(x2, k4, _mm_loadu_si128((const __m128i *) (p + 32)));
		x3 = IplFold128(x3, k4, _mm_loadu_si128((const __m128i *) (p + 48)));
	}
	x3 = IplFold128(x0, IplCrcK(IPL_K384), x3);
	x3 = IplFold128(x1, IplCrcK(IPL_K256), x3);
	x3 = IplFold128(x2, IplCrcK(IPL_K128), x3);
	return IplCrcReduce(x3, p, len);
}

/* IplFold512 - the four lanes of z folded over the distance of k, xor with */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))
static inline __m512i
IplFold512(__m512i z, int k, __m512i with)
{
	__m512i		kv = _mm512_broadcast_i32x4(IplCrcK(k));

	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, kv, 0x00),
									 _mm512_clmulepi64_epi128(z, kv, 0x11),
									 with, 0x96);
}

/*
 * IplCrcFold256 - crc advanced over len bytes at p, len a multiple of 16
 * and at least 256: four 64-byte accumulators of four lanes each
 * (vpclmulqdq).
 */
__attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))
static pg_crc32c
IplCrcFold256(pg_crc32c crc, const char *p, size_t len)
{
	__m512i		z0 = _mm512_loadu_si512(p);
	__m512i		z1 = _mm512_loadu_si512(p + 64);
	__m512i		z2 = _mm512_loadu_si512(p + 128);
	__m512i		z3 = _mm512_loadu_si512(p + 192);
	__m128i		v;

	z0 = _mm512_xor_si512(z0, _mm512_castsi128_si512(_mm_cvtsi32_si128((int) crc)));
	for (p += 256, len -= 256; len >= 256; p += 256, len -= 256)
	{
		z0 = IplFold512(z0, IPL_K2048, _mm512_loadu_si512(p));
		z1 = IplFold512(z1, IPL_K2048, _mm512_loadu_si512(p + 64));
		z2 = IplFold512(z2, IPL_K2048, _mm512_loadu_si512(p + 128));
		z3 = IplFold512(z3, IPL_K2048, _mm512_loadu_si512(p + 192));
	}
	z3 = IplFold512(z0, IPL_K1536, z3);
	z3 = IplFold512(z1, IPL_K1024, z3);
	z3 = IplFold512(z2, IPL_K512, z3);
	/* its four lanes, 16 bytes apart, into the last */
	v = _mm512_extracti32x4_epi32(z3, 3);
	v = IplFold128(_mm512_extracti32x4_epi32(z3, 0), IplCrcK(IPL_K384), v);
	v = IplFold128(_mm512_extracti32x4_epi32(z3, 1), IplCrcK(IPL_K256), v);
	v = IplFold128(_mm512_extracti32x4_epi32(z3, 2), IplCrcK(IPL_K128), v);
	return IplCrcReduce(v, p, len);
}

/*
 * IplCrcFolded - crc advanced over len bytes at p with the fold of step
 * bytes (1: none), the tail (len % 16) with COMP_CRC32C
 */
static pg_crc32c
IplCrcFolded(int step, pg_crc32c crc, const char *p, size_t len)
{
	size_t		n = len & ~(size_t) 15;

	if (step == 256 && n >= 256)
		crc = IplCrcFold256(crc, p, n);
	else if (step >= 64 && n >= 64)
		crc = IplCrcFold64(crc, p, n);
	else
		n = 0;
	COMP_CRC32C(crc, p + n, len - n);
	return crc;
}

/*
 * IplCrcFoldWorks - does the fold of step bytes give COMP_CRC32C's register
 * on a test buffer?  The lengths take every path of the folds: no fold,
 * one round and several of each width, 16-byte blocks after the rounds and
 * a tail short of 16; two alignments.  A few dozen CRCs: each process runs
 * this once, parallel workers and short connections included.
 */
static bool
IplCrcFoldWorks(int step)
{
	static const int lengths[] = {0, 1, 15, 16, 63, 64, 65, 79, 80, 127, 128,
	200, 255, 256, 257, 271, 272, 511, 512, 600, 1023, 1100};
	char		test[1104];
	bool		ok = true;

	for (size_t i = 0; i < sizeof(test); i++)
		test[i] = (char) (i * 131 + (i >> 3) + (i >> 9) * 7);
	for (int off = 0; off < 4; off += 3)
	{
		for (size_t i = 0; i < lengthof(lengths); i++)
		{
			size_t		len = lengths[i];
			pg_crc32c	want = 0xFFFFFFFF ^ (pg_crc32c) (len * 40503);
			pg_crc32c	got = want;

			COMP_CRC32C(want, test + off, len);
			got = IplCrcFolded(step, got, test + off, len);
			if (got != want)
				ok = false;
		}
	}
	return ok;
}

/*
 * IplCrcSetUp - decide once which fold to use: the widest the CPU has
 * (AVX-512 with vpclmulqdq, else pclmulqdq) that gives PostgreSQL's CRC-32C
 * (a wrong fold would make every frame look damaged; a build with
 * assertions stops on one).
 */
static void
IplCrcSetUp(void)
{
	for (int k = 0; k < IPL_NK; k++)
	{
		ipl_crc_k[k][0] = IplCrcXPow(ipl_crc_k_bits[k] + 63);
		ipl_crc_k[k][1] = IplCrcXPow(ipl_crc_k_bits[k] - 1);
	}
	ipl_crc_fold = 1;
	if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul"))
	{
		bool		ok = IplCrcFoldWorks(64);

		Assert(ok);
		if (ok)
			ipl_crc_fold = 64;
		if (ok && __builtin_cpu_supports("avx512f") &&
			__builtin_cpu_supports("avx512vl") &&
			__builtin_cpu_supports("vpclmulqdq"))
		{
			ok = IplCrcFoldWorks(256);
			Assert(ok);
			if (ok)
				ipl_crc_fold = 256;
		}
	}
}
#endif							/* IPL_CRC_FOLD */

/*
 * IplCrcBytes - the CRC-32C register crc advanced over len bytes at p (as
 * COMP_CRC32C), folded where the CPU can.
 */
static pg_crc32c
IplCrcBytes(pg_crc32c crc, const char *p, size_t len)
{
#ifdef IPL_CRC_FOLD
	if (ipl_crc_fold == 0)
		IplCrcSetUp();
	if (ipl_crc_fold > 1)
		return IplCrcFolded(ipl_crc_fold, crc, p, len);
#endif
	COMP_CRC32C(crc, p, len);
	return crc;
}

/* ----------------------------------------------------------------
 * Page checksums
 * ----------------------------------------------------------------
 */

/* the bytes IplCrcAddTuple copies at a time */
#define IPL_CRC_CHUNK	32

/*
 * The parts of a page its checksum covers, gathered (IplPageChecksum).  A
 * sound page's parts fit in one buffer; a damaged page's line pointers may
 * name the same bytes many times, and then full buffers are added to the
 * CRC as they fill.
 */
typedef struct IplCrcBuf
{
	pg_crc32c	crc;
	int			used;
	char		data[2 * BLCKSZ + IPL_CRC_CHUNK];	/* slack: IplCrcAddTuple */
} IplCrcBuf;

/*
 * IplCrcReserve - room for len (at most BLCKSZ) more bytes at the end of the
 * buffer, adding what it holds to the CRC first when they would not fit.
 */
static inline char *
IplCrcReserve(IplCrcBuf *cb, size_t len)
{
	char	   *at;

	Assert(len <= BLCKSZ);
	if (cb->used + len > sizeof(cb->data) - IPL_CRC_CHUNK)
	{
		cb->crc = IplCrcBytes(cb->crc, cb->data, cb->used);
		cb->used = 0;
	}
	at = cb->data + cb->used;
	cb->used += len;
	return at;
}

/* IplCrcAdd - append len (at most BLCKSZ) bytes at p */
static inline void
IplCrcAdd(IplCrcBuf *cb, const void *p, size_t len)
{
	memcpy(IplCrcReserve(cb, len), p, len);
}

/*
 * IplCrcAddTuple - append the len bytes of the tuple at p, a tuple of the
 * page that ends at end, and return where they went.  They are copied in
 * 32-byte chunks when the last chunk stays in the page (the bytes past len
 * land in the buffer's slack or are overwritten by what is appended next):
 * gcc expands a short copy of unknown length into rep movsq, whose start-up
 * was three quarters of the time of the checksum of a page of 100-byte
 * tuples, and 8-byte words took twice as long as these chunks.
 */
static inline char *
IplCrcAddTuple(IplCrcBuf *cb, const char *p, size_t len, const char *end)
{
	size_t		chunks = TYPEALIGN(IPL_CRC_CHUNK, len);
	char	   *at = IplCrcReserve(cb, len);

	if (p + chunks <= end)
	{
		for (size_t i = 0; i < chunks; i += IPL_CRC_CHUNK)
		{
			char		chunk[IPL_CRC_CHUNK];

			memcpy(chunk, p + i, IPL_CRC_CHUNK);
			memcpy(at + i, chunk, IPL_CRC_CHUNK);
		}
	}
	else
		memcpy(at, p, len);
	return at;
}

/*
 * IplPageChecksum - the 16-bit checksum of the base image of page blkno of
 * the relation in directory entry dirIndex: CRC-32C of the page's identity
 * (the relation's RelFileNode and the block number, as PostgreSQL's page
 * checksum includes the block number), its layout fields, line pointers,
 * tuples (hint bits masked) and special space, folded.  Returns false when
 * the layout fields are impossible (the page cannot even be walked).
 */
static bool
IplPageChecksum(int dirIndex, BlockNumber blkno, Page page, uint16 *sum)
{
	PageHeader	ph = (PageHeader) page;
	uint32		ident[4];
	RelFileNode node;
	uint16		lower = ph->pd_lower;
	uint16		upper = ph->pd_upper;
	uint16		special = ph->pd_special;
	OffsetNumber maxoff;
	pg_crc32c	crc;
	static IplCrcBuf crcbuf;
	IplCrcBuf  *cb = &crcbuf;

	if (lower < SizeOfPageHeaderData || lower > upper || upper > special ||
		special > BLCKSZ || (lower - SizeOfPageHeaderData) % sizeof(ItemIdData) != 0)
		return false;
	INIT_CRC32C(cb->crc);
	cb->used = 0;
	/* whose page it is: a frame read as another page's does not match */
	IplPageOwner(dirIndex, &node);
	ident[0] = node.spcNode;
	ident[1] = node.dbNode;
	ident[2] = node.relNode;
	ident[3] = blkno;
	IplCrcAdd(cb, ident, sizeof(ident));
	IplCrcAdd(cb, (char *) page + offsetof(PageHeaderData, pd_lower),
			  offsetof(PageHeaderData, pd_prune_xid) - offsetof(PageHeaderData, pd_lower));
	IplCrcAdd(cb, (char *) page + SizeOfPageHeaderData, lower - SizeOfPageHeaderData);
	maxoff = PageGetMaxOffsetNumber(page);
	for (OffsetNumber off = FirstOffsetNumber; off <= maxoff; off++)
	{
		ItemId		lp = PageGetItemId(page, off);
		uint32		start = ItemIdGetOffset(lp);
		uint32		len = ItemIdGetLength(lp);
		char	   *copy;
		uint16		infomask;

		if (!ItemIdIsNormal(lp))
			continue;
		if (start < upper || start + len > special || len < SizeofHeapTupleHeader)
			return false;
		/* the tuple as it is, then its hint bits masked in the copy */
		copy = IplCrcAddTuple(cb, (char *) page + start, len, (char *) page + BLCKSZ);
		memcpy(&infomask, copy + offsetof(HeapTupleHeaderData, t_infomask),
			   sizeof(infomask));
		infomask &= ~IPL_HINT_BITS;
		memcpy(copy + offsetof(HeapTupleHeaderData, t_infomask), &infomask,
			   sizeof(infomask));
	}
	IplCrcAdd(cb, (char *) page + special, BLCKSZ - special);
	crc = IplCrcBytes(cb->crc, cb->data, cb->used);
	FIN_CRC32C(crc);
	*sum = (uint16) (crc ^ (crc >> 16));
	return true;
}

/*
 * IplSetChecksum - store the checksum of base image page, about to be
 * written.
 */
void
IplSetChecksum(int dirIndex, BlockNumber blkno, Page page)
{
	uint16		sum;

	if (!IplPageChecksum(dirIndex, blkno, page, &sum))
		elog(ERROR, "nvm_am is about to write a page with an impossible layout");
	((PageHeader) page)->pd_checksum = sum;
}

/*
 * IplFrameChecksumOk - does the base image in frame match its checksum as
 * page blkno of the relation in directory entry dirIndex?
 * *stored and *computed tell the two (computed 0 for an impossible
 * layout).  The frame is read from the pool, on a first read after a start
 * from memory: its tuple area is prefetched before the checksum walks it
 * (the images whose checksums are set before a write are in the cache
 * already).  Caller holds the page lock.
 */
pg_noinline bool
IplFrameChecksumOk(int dirIndex, BlockNumber blkno, uint64 frame,
				   uint16 *stored, uint16 *computed)
{
	Page		base = NvmPoolFramePage(frame);

	IplPrefetchTuples(base);
	*stored = ((PageHeader) base)->pd_checksum;
	if (!IplPageChecksum(dirIndex, blkno, base, computed))
	{
		*computed = 0;
		return false;
	}
	return *stored == *computed;
}
