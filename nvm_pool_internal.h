/*-------------------------------------------------------------------------
 *
 * nvm_pool_internal.h
 *	  Definitions private to the pool layer, shared by its two files:
 *	  nvm_pool.c (the file, its header, persist primitives, shared memory,
 *	  frame allocation and pins) and nvm_pool_dir.c (the relation directory
 *	  and page tables).  Nothing outside the pool layer includes this.
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_POOL_INTERNAL_H
#define NVM_POOL_INTERNAL_H

#include "port/pg_crc32c.h"

#include "nvm_pool.h"

/* the pool file's header, at offset 0, checksummed, written at creation */
typedef struct NvmPoolHeader
{
	uint64		magic;
	uint32		format_version;
	uint32		frame_size;
	uint64		system_identifier;
	uint64		pool_size;
	uint64		dir_offset;
	uint64		dir_entries;
	uint64		frames_offset;
	uint64		nframes;
	uint64		logs_offset;	/* first byte of the in-page log areas */
	uint32		log_size;		/* bytes of a log area (0: no IPL) */
	uint32		log_share;		/* 1 frame in log_share has a log area */
	uint64		xact_offset;	/* transaction slots */
	uint64		xact_slots;
	uint64		clog_offset;	/* commit log */
	uint64		clog_entries;
	int64		created_at;		/* pg_time_t of creation */
	pg_crc32c	checksum;		/* CRC-32C of the bytes above */
} NvmPoolHeader;

/*
 * A relation directory entry: 64 bytes.  Each of the three words that
 * change (state, root, nblocks) carries a 16-bit check in its top bits,
 * computed from the value, the word's place and the entry's key, and is
 * published with it in one 8-byte store: a crash never leaves a word and
 * its check apart, so a mismatch is damage (NvmPoolDirDecode).  keycheck
 * does the same for the key, written once when the entry is created.  A
 * free entry is all zeros.
 */
typedef struct NvmDirEntry
{
	uint64		state;			/* NVM_REL_* flags | xid, with check; 0 = free */
	uint32		spcNode;
	uint32		dbNode;
	uint32		relNode;
	uint32		keycheck;		/* check of the key and the entry's index */
	uint64		root;			/* frame of the page-table root, with check */
	uint64		nblocks;		/* blocks below this are valid, with check */
	uint64		reserved[3];
} NvmDirEntry;

#define NVM_DIR_VALUE_MASK		UINT64CONST(0x0000FFFFFFFFFFFF)

typedef enum NvmDirWord
{
	NVM_DIR_STATE,
	NVM_DIR_ROOT,
	NVM_DIR_NBLOCKS
} NvmDirWord;

/* the value of a directory word, its check bits taken off */
static inline uint64
NvmPoolDirValue(uint64 word)
{
	return word & NVM_DIR_VALUE_MASK;
}

/*
 * The root word's value: the root frame of the page table in the low 44
 * bits, the number of levels above two in the bits above (0 in every pool
 * written before page tables could grow a level, so those read as before).
 */
#define NVM_PT_ROOT_FRAME_BITS	44

static inline uint64
NvmPoolPtRootValue(uint64 frame, int levels)
{
	return frame | ((uint64) (levels - 2) << NVM_PT_ROOT_FRAME_BITS);
}

/* the root frame of entry e's page table (0: none), and *levels its levels */
static inline uint64
NvmPoolPtRoot(const NvmDirEntry *e, int *levels)
{
	uint64		v = NvmPoolDirValue(e->root);

	*levels = 2 + (int) (v >> NVM_PT_ROOT_FRAME_BITS);
	return v & ((UINT64CONST(1) << NVM_PT_ROOT_FRAME_BITS) - 1);
}
/* the mapping and its parts (nvm_pool.c) */
extern char *pool_base;
extern NvmPoolHeader *pool_header;
extern NvmDirEntry *pool_dir;
extern char *pool_resolved_path;

/*
 * Extents added by growing the pool (raising nvm_am.pool_size): each holds
 * nframes frames followed by the log areas of its first log frames
 * (NvmPoolLogFrames), from offset; its frames are numbered after those of
 * the extents before it (the header's frames first).  Described in
 * NvmPoolRuntime (nvm_pool.c).
 */
#define NVM_MAX_EXTENTS		32

typedef struct NvmPoolExtent
{
	uint64		offset;			/* first byte of its frames */
	uint64		nframes;
} NvmPoolExtent;

extern uint64 pool_nframes;		/* all frames: the header's and the extents' */
extern char *NvmPoolExtentFrameAddr(uint64 frame, bool log);

/*
 * NvmPoolLogFrames - how many of a region's nframes frames (the header's,
 * or an extent's) have a log area of logSize bytes: the first 1 in share,
 * rounded up; none when in-page logging is off.
 */
static inline uint64
NvmPoolLogFrames(uint64 nframes, uint32 logSize, uint32 share)
{
	return logSize == 0 ? 0 : (nframes + share - 1) / share;
}

/* the address of frame (numbered from 1) */
static inline char *
NvmPoolFrameAddr(uint64 frame)
{
	if (likely(frame <= pool_header->nframes))
		return pool_base + pool_header->frames_offset + (frame - 1) * NVM_FRAME_SIZE;
	return NvmPoolExtentFrameAddr(frame, false);
}

/* is frame a frame number of the pool? */
static inline bool
NvmPoolFrameValid(uint64 frame)
{
	return frame >= 1 && frame <= pool_nframes;
}


/* nvm_pool.c */
extern void NvmPoolFreeFrames(uint64 *frames, int n);
extern bool NvmPoolMarkUsed(uint64 frame, int dirIndex);
extern bool *pool_dir_damaged;

/* nvm_pool_dir.c */
extern uint64 NvmPoolDirEncode(NvmDirEntry *e, NvmDirWord w, uint64 value);
extern uint32 NvmPoolDirKeyCheck(NvmDirEntry *e);
extern const char *NvmPoolDirCheckEntry(NvmDirEntry *e);
extern void NvmPoolRelMarkFrames(int dirIndex, bool damaged);

#endif							/* NVM_POOL_INTERNAL_H */
