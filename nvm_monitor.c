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
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "relations", info.relations);
	NvmMonitorPutRow(rsinfo->setResult, rsinfo->setDesc, "recovery_ms",
					 (NvmPoolCounterValue(NVM_STAT_RECOVERY_US) + 500) / 1000);
	return (Datum) 0;
}

/*
 * nvm_am_pool_info - path, size, used, free, format version, is_pmem,
 * emulated.
 */
Datum
nvm_am_pool_info(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[7];
	bool		nulls[7] = {0};
	NvmPoolInfo info;
	uint64		used;

	NvmRecoveryEnsureReady();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	NvmPoolGetInfo(&info);
	used = info.size - info.frames_free * BLCKSZ;
	values[0] = CStringGetTextDatum(info.path);
	values[1] = Int64GetDatum((int64) info.size);
	values[2] = Int64GetDatum((int64) used);
	values[3] = Int64GetDatum((int64) (info.frames_free * BLCKSZ));
	values[4] = Int32GetDatum((int32) info.format_version);
	values[5] = BoolGetDatum(info.is_pmem);
	values[6] = BoolGetDatum(info.emulated);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
