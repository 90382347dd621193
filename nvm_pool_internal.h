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
	uint32		log_size;		/* bytes of log area per frame (0: no IPL) */
	uint32		pad;
	uint64		xact_offset;	/* transaction slots */
	uint64		xact_slots;
	uint64		clog_offset;	/* commit log */
	uint64		clog_entries;
	int64		created_at;		/* pg_time_t of creation */
	pg_crc32c	checksum;		/* CRC-32C of the bytes above */
} NvmPoolHeader;

/* a relation directory entry: 64 bytes */
typedef struct NvmDirEntry
{
	uint64		state;			/* NVM_REL_* flags | xid; 0 = free */
	uint32		spcNode;
	uint32		dbNode;
	uint32		relNode;
	uint32		pad;
	uint64		root;			/* frame number of the page-table root */
	uint64		nblocks;		/* blocks below this are valid */
	uint64		reserved[3];
} NvmDirEntry;
/* the mapping and its parts (nvm_pool.c) */
extern char *pool_base;
extern NvmPoolHeader *pool_header;
extern NvmDirEntry *pool_dir;
extern char *pool_resolved_path;

/* the address of frame (numbered from 1) */
static inline char *
NvmPoolFrameAddr(uint64 frame)
{
	return pool_base + pool_header->frames_offset + (frame - 1) * NVM_FRAME_SIZE;
}

/* is frame a frame number of the pool? */
static inline bool
NvmPoolFrameValid(uint64 frame)
{
	return frame >= 1 && frame <= pool_header->nframes;
}


/* nvm_pool.c */
extern void NvmPoolFreeFrames(uint64 *frames, int n);

#endif							/* NVM_POOL_INTERNAL_H */
