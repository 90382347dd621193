/*-------------------------------------------------------------------------
 *
 * precommit_fail.c
 *	  A test module (t/049): an ERROR raised at commit after nvm_am's
 *	  pre-commit step has written its commit record, as PostgreSQL raises
 *	  one for a full NOTIFY queue or an ON COMMIT action that fails.
 *
 *	  Loaded before nvm_am in shared_preload_libraries, its transaction
 *	  callback is registered first and therefore called last (callbacks run
 *	  newest first): after nvm_am's.  With precommit_fail.enabled set in a
 *	  session, every commit of that session that has an xid fails there.
 *
 *	  Not part of the extension; built by the test that uses it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static bool precommit_fail_enabled = false;

/*
 * PrecommitFailCallback - raise the ERROR at pre-commit when asked to.
 */
static void
PrecommitFailCallback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_PRE_COMMIT && precommit_fail_enabled &&
		TransactionIdIsValid(GetTopTransactionIdIfAny()))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("precommit_fail: an error after the pre-commit callbacks")));
}

void
_PG_init(void)
{
	DefineCustomBoolVariable("precommit_fail.enabled",
							 "Fail every commit of a transaction with an xid after the pre-commit callbacks.",
							 NULL, &precommit_fail_enabled, false, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	MarkGUCPrefixReserved("precommit_fail");
	RegisterXactCallback(PrecommitFailCallback, NULL);
}
