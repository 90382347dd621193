/*-------------------------------------------------------------------------
 *
 * nvm_monitor.c
 *	  SQL-callable monitoring functions: the counters behind the
 *	  nvm_am_stats view and nvm_am_pool_info().
 *
 * Locks: none of its own; the pool takes its directory and allocation
 * locks shared while it reads them.  Counters are read atomically one by
 * one, so a row set is not a consistent snapshot of all counters.
 *
 * On-pmem layout: none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "nvm_am.h"

/* functions that SQL calls, exported by name (see nvm_am.c) */
PGDLLEXPORT Datum nvm_am_stats_values(PG_FUNCTION_ARGS);
PGDLLEXPORT Datum nvm_am_pool_info(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(nvm_am_stats_values);
PG_FUNCTION_INFO_V1(nvm_am_pool_info);

static void
NvmMonitorPutRow(Tuplestorestate *ts, TupleDesc desc, const char *name, uint64 value)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(name);
	values[1] = Int64GetDatum((int64) value);
	tuplestore_putvalues(ts, desc, values, nulls);
}

/*
 * nvm_am_stats_values - one row (name, value) per counter.
 */
Datum
nvm_am_stats_values(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	NvmPoolInfo info;

	NvmRecoveryEnsureReady();
	InitMaterializedSRF(fcinfo, 0);
	NvmPoolGetInfo(&info);
	for (int c = 0; c < NVM_NUM_COUNTERS; c++)
		NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc,
						 NvmPoolCounterName((NvmCounter) c),
						 NvmPoolCounterValue((NvmCounter) c));
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "frames_allocated",
					 info.frames_total - info.frames_free);
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "frames_free", info.frames_free);
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "log_frames_free", info.log_frames_free);
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "relations", info.relations);
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "recovery_ms",
					 (NvmPoolCounterValue(NVM_STAT_RECOVERY_US) + 500) / 1000);
	return (Datum) 0;
}

/*
 * nvm_am_pool_info - the pool: its path and size; its frames (a frame holds
 * one page): in all, in use, free, and the bytes of each; the log frames
 * among them (those with an in-page log area) in all, in use, free, and
 * the bytes of a log area; the bytes of the pool in use (frames and log
 * areas in use, and the metadata: header, directory, transaction slots,
 * commit log) and free (free frames and log areas), which add up to the
 * size; format version, whether it is persistent memory, whether that is
 * emulated.
 */
Datum
nvm_am_pool_info(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[16];
	bool		nulls[16] = {0};
	NvmPoolInfo info;
	uint64		used_frames;
	uint64		used_logs;

	NvmRecoveryEnsureReady();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	NvmPoolGetInfo(&info);
	used_frames = info.frames_total - info.frames_free;
	used_logs = info.log_frames_total - info.log_frames_free;
	values[0] = CStringGetTextDatum(info.path);
	values[1] = Int64GetDatum((int64) info.size);
	values[2] = Int64GetDatum((int64) info.frames_total);
	values[3] = Int64GetDatum((int64) used_frames);
	values[4] = Int64GetDatum((int64) info.frames_free);
	values[5] = Int32GetDatum((int32) info.frame_bytes);
	values[6] = Int64GetDatum((int64) info.log_frames_total);
	values[7] = Int64GetDatum((int64) used_logs);
	values[8] = Int64GetDatum((int64) info.log_frames_free);
	values[9] = Int32GetDatum((int32) info.log_bytes);
	values[10] = Int64GetDatum((int64) (used_frames * info.frame_bytes +
										used_logs * info.log_bytes + info.metadata_bytes));
	values[11] = Int64GetDatum((int64) (info.frames_free * info.frame_bytes +
										info.log_frames_free * info.log_bytes));
	values[12] = Int64GetDatum((int64) info.metadata_bytes);
	values[13] = Int32GetDatum((int32) info.format_version);
	values[14] = BoolGetDatum(info.is_pmem);
	values[15] = BoolGetDatum(info.emulated);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
