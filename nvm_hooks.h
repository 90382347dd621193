/*-------------------------------------------------------------------------
 *
 * nvm_hooks.h
 *	  The PostgreSQL-integration layer of nvm_am: what ties the pool to
 *	  PostgreSQL's transactions, WAL and catalog.  It sits beside the page
 *	  operations, above the pool (nvm_pool.h), and includes nothing above
 *	  it.  Inside the layer the files call each other in one direction
 *	  only:
 *
 *	  nvm_storage.c		relation storage lifecycle: pending create/drop at
 *						commit/abort, the sparse main-fork file, the
 *						object-access hook, relation -> directory entry
 *	  nvm_recovery.c	settles what a crash interrupted before any backend
 *						reads the pool; the recovery worker
 *	  nvm_commit.c		transaction slots, the pmem commit log, the
 *						commit-time transaction callbacks
 *	  nvm_xlog.c		the custom WAL resource manager and its records
 *	  nvm_logical.c		logical decoding: the LOGICAL record of a row
 *						change, and the resource manager's decode callback
 *
 *	  (storage -> recovery -> commit -> xlog -> logical -> pool;
 *	  storage -> xlog.)
 *
 *-------------------------------------------------------------------------
 */
#ifndef NVM_HOOKS_H
#define NVM_HOOKS_H

#include "access/htup.h"
#include "storage/block.h"
#include "storage/relfilenode.h"
#include "utils/relcache.h"

#include "nvm_pool.h"

struct SMgrRelationData;
struct XLogReaderState;
struct XLogRecordBuffer;
struct LogicalDecodingContext;
struct Bitmapset;
struct StringInfoData;

/* nvm_storage.c */
struct TableAmRoutine;
extern void NvmStorageInit(const struct TableAmRoutine *routine);
extern bool NvmStorageIsNvmRelation(Relation rel);
extern void NvmStorageResetAtStart(void);
extern void NvmStorageAfterEndPrepared(void);
extern int	NvmStorageRelDirIndex(Relation rel);
extern uint64 NvmStorageRelSize(Relation rel, ForkNumber forkNumber);
extern int	NvmStorageCreate(const RelFileNode *node, char persistence);
extern void NvmStorageScheduleDrop(const RelFileNode *node);
extern void NvmStorageExtended(struct SMgrRelationData *smgr, BlockNumber blkno);

/* nvm_recovery.c */
extern Size NvmRecoveryShmemSize(void);
extern void NvmRecoveryShmemInit(void);
extern void NvmRecoveryInit(void);
extern void NvmRecoveryEnsureReady(void);
extern void NvmRecoverySettle(int dirIndex);
extern void NvmRecoveryNoteUnsettled(void);
extern void NvmRecoverySettleUnsettled(void);

/* nvm_commit.c */
extern Size NvmCommitShmemSize(void);
extern void NvmCommitShmemInit(void);
extern void NvmCommitInit(void);
extern void NvmCommitBeforeWrite(void);
extern bool NvmCommitWriteReady(void);
extern bool NvmCommitXidCommitted(TransactionId xid, bool *durable);
extern bool NvmCommitReliedPending(void);
extern void NvmCommitFlushRelied(void);
extern bool NvmCommitOwnWalPending(void);
extern void NvmCommitFlushOwnWal(bool pageLocked);
extern void NvmCommitRecover(void);

/* nvm_xlog.c */
extern Size NvmXlogShmemSize(void);
extern void NvmXlogShmemInit(void);
extern void NvmXlogInit(void);
extern void NvmXlogProtectXid(TransactionId xid);
extern bool NvmXlogXidProtected(TransactionId xid);
extern void NvmXlogCommitResolved(TransactionId xid, int nsubxids,
								  TransactionId *subxids);
extern void NvmXlogAtXactEnd(void);
typedef void (*NvmXlogPageRedoFn) (struct XLogReaderState *record);
typedef const char *(*NvmXlogPageDescFn) (uint8 type);
extern void NvmXlogSetPageRedo(NvmXlogPageRedoFn redo, NvmXlogPageDescFn desc);
extern int	NvmXlogRelCreate(const RelFileNode *node, TransactionId xid,
							 uint64 flags);
extern void NvmXlogRelFree(int dirIndex);
extern void NvmXlogRelTruncate(int dirIndex, BlockNumber nblocks);

/* nvm_logical.c */
#define NVM_LOGICAL_INSERT	0
#define NVM_LOGICAL_UPDATE	1
#define NVM_LOGICAL_DELETE	2
extern bool NvmLogicalWanted(Relation rel);
extern struct Bitmapset *NvmLogicalIdentity(Relation rel);
extern HeapTuple NvmLogicalOldRow(Relation rel, struct Bitmapset *idattrs,
								  HeapTuple oldtup, bool keyChanged);
extern void NvmLogicalLog(Relation rel, uint8 action, HeapTuple newtup,
						  HeapTuple oldrow, bool moreRows);
extern void NvmLogicalDecode(struct LogicalDecodingContext *ctx,
							 struct XLogRecordBuffer *buf);
extern void NvmLogicalDesc(struct StringInfoData *buf, const char *data, Size len);

#endif							/* NVM_HOOKS_H */
