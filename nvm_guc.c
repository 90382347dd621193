/*-------------------------------------------------------------------------
 *
 * nvm_guc.c
 *	  The nvm_am.* settings, defined once: one table gives each setting's
 *	  name, descriptions, variable, default, range and context, and the
 *	  definition, the check hooks and the start-up check all read it.
 *
 *	  Start-up check: PostgreSQL applies a bad value of a setting that a
 *	  library defines with only a WARNING and keeps the default; for the
 *	  pool that would mean creating a pool somewhere else or of another
 *	  size, so nvm_am refuses to start instead (FATAL naming the setting,
 *	  the value and what is allowed).  The values as written are read
 *	  before the settings are defined.
 *
 *	  The variables belong to the layers that use them (nvm_pool.h,
 *	  nvm_page.h), as do the constants of their ranges.
 *
 * Locks: none; runs in the postmaster from _PG_init.
 *
 * On-pool layout: none (but pool_size and ipl_log_size are fixed in the
 * pool's header when it is created; nvm_pool.c checks them).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/guc.h"

#include "nvm_am.h"

typedef enum NvmGucType
{
	NVM_GUC_STRING,
	NVM_GUC_INT,
	NVM_GUC_ENUM
} NvmGucType;

typedef struct NvmGuc
{
	const char *name;
	NvmGucType	type;
	const char *short_desc;
	const char *long_desc;
	void	   *variable;
	const char *boot_string;	/* NVM_GUC_STRING */
	int			boot_int;		/* NVM_GUC_INT, NVM_GUC_ENUM */
	int			min;			/* NVM_GUC_INT: smallest value but 0 */
	int			max;
	int			step;			/* NVM_GUC_INT: value a multiple of it */
	bool		zero_ok;		/* NVM_GUC_INT: 0 allowed besides the range */
	bool		nonempty;		/* NVM_GUC_STRING: must not be empty */
	const char *example;		/* a valid value, for hints */
	const char *zero_means;		/* what 0 does, for hints */
	const struct config_enum_entry *options;	/* NVM_GUC_ENUM */
	GucStringCheckHook string_check;	/* its check hook, if any */
	GucIntCheckHook int_check;	/* its check hook, if any */
	GucContext	context;
	int			flags;			/* GUC_UNIT_* and others */
} NvmGuc;

static const struct config_enum_entry read_mode_options[] = {
	{"redirect", NVM_READ_REDIRECT, false},
	{"copy", NVM_READ_COPY, false},
	{NULL, 0, false}
};

static const struct config_enum_entry wal_log_options[] = {
	{"off", 0, false},
	{"on", 1, false},
	{"false", 0, true},
	{"true", 1, true},
	{"no", 0, true},
	{"yes", 1, true},
	{"0", 0, true},
	{"1", 1, true},
	{NULL, 0, false}
};

static bool NvmGucCheckPoolPath(char **newval, void **extra, GucSource source);
static bool NvmGucCheckIplLogSize(int *newval, void **extra, GucSource source);

static const NvmGuc nvm_gucs[] = {
	{
		.name = "nvm_am.pool_path", .type = NVM_GUC_STRING,
		.short_desc = "Path of the persistent-memory pool file.",
		.long_desc = "Relative paths are relative to the data directory. Use a file on a DAX file system, or on /dev/shm with PMEM_IS_PMEM_FORCE=1 to emulate persistent memory.",
		.variable = &nvm_pool_path, .boot_string = "pg_nvm/nvm_am.pool",
		.nonempty = true, .example = "/mnt/pmem0/nvm_am.pool",
		.string_check = NvmGucCheckPoolPath,
		.context = PGC_POSTMASTER, .flags = GUC_SUPERUSER_ONLY,
	},
	{
		.name = "nvm_am.pool_size", .type = NVM_GUC_INT,
		.short_desc = "Size of the persistent-memory pool file.",
		.long_desc = "Used when the pool is created; an existing pool must have this size.",
		.variable = &nvm_pool_size_mb, .boot_int = NVM_POOL_SIZE_DEFAULT_MB,
		.min = NVM_POOL_SIZE_MIN_MB, .max = NVM_POOL_SIZE_MAX_MB, .step = 1,
		.example = "1GB",
		.context = PGC_POSTMASTER, .flags = GUC_UNIT_MB,
	},
	{
		.name = "nvm_am.ipl_log_size", .type = NVM_GUC_INT,
		.short_desc = "Size of the in-page log area of each page frame.",
		.long_desc = "A page change is a record appended to its page's log; a full log is merged into a new page version. 0 turns in-page logging off: every change writes the whole page. Fixed when the pool is created.",
		.variable = &nvm_ipl_log_size, .boot_int = NVM_IPL_LOG_SIZE_DEFAULT,
		.min = NVM_IPL_LOG_SIZE_MIN, .max = NVM_IPL_LOG_SIZE_MAX,
		.step = NVM_IPL_LOG_SIZE_STEP, .zero_ok = true,
		.example = "1kB", .zero_means = "turns in-page logging off",
		.int_check = NvmGucCheckIplLogSize,
		.context = PGC_POSTMASTER, .flags = GUC_UNIT_BYTE,
	},
	{
		.name = "nvm_am.merge_cache_size", .type = NVM_GUC_INT,
		.short_desc = "Shared memory for merged page images.",
		.long_desc = "Pages that have in-page log records are read from here, merged once.",
		.variable = &nvm_merge_cache_size, .boot_int = NVM_MERGE_CACHE_SIZE_DEFAULT,
		.min = NVM_MERGE_CACHE_SIZE_MIN, .max = NVM_MERGE_CACHE_SIZE_MAX, .step = 1,
		.example = "64MB",
		.context = PGC_POSTMASTER, .flags = GUC_UNIT_KB,
	},
	{
		.name = "nvm_am.persist_trace", .type = NVM_GUC_STRING,
		.short_desc = "Directory for persist traces (crash simulation in tests).",
		.long_desc = "When set, every flush and drain into the pool is also written to a trace file per process in this directory. Slow; for tests only.",
		.variable = &nvm_persist_trace, .boot_string = "",
		.context = PGC_POSTMASTER, .flags = GUC_NOT_IN_SAMPLE | GUC_SUPERUSER_ONLY,
	},
	{
		.name = "nvm_am.wal_log", .type = NVM_GUC_ENUM,
		.short_desc = "Writes every change of nvm_am data to WAL too.",
		.long_desc = "on: base backups, streaming standbys and point-in-time recovery carry the nvm_am tables, and their commits follow WAL as heap's do. Needs wal_level replica or logical and full_page_writes on.",
		.variable = &nvm_wal_log, .boot_int = 0,
		.options = wal_log_options,
		.context = PGC_POSTMASTER,
	},
	{
		.name = "nvm_am.read_mode", .type = NVM_GUC_ENUM,
		.short_desc = "How scans read pages without log records.",
		.long_desc = "redirect reads tuples straight from the pool mapping; copy copies every page into local memory first.",
		.variable = &nvm_read_mode, .boot_int = NVM_READ_REDIRECT,
		.options = read_mode_options,
		.context = PGC_USERSET,
	},
};

#define NVM_NUM_GUCS	lengthof(nvm_gucs)

/*
 * NvmGucByVariable - the table entry of the setting stored in variable.
 */
static const NvmGuc *
NvmGucByVariable(const void *variable)
{
	for (int i = 0; i < (int) NVM_NUM_GUCS; i++)
		if (nvm_gucs[i].variable == variable)
			return &nvm_gucs[i];
	elog(ERROR, "nvm_am setting not in the table");
	return NULL;				/* keep compiler quiet */
}

/*
 * NvmGucFormat - value v of a setting in its unit as the largest unit that
 * shows it whole ("16MB", "1TB", "256B").
 */
static char *
NvmGucFormat(const NvmGuc *g, int v)
{
	static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
	uint64		bytes = (uint64) v;
	int			u = 0;

	if ((g->flags & GUC_UNIT_MEMORY) == GUC_UNIT_KB)
		bytes *= 1024;
	else if ((g->flags & GUC_UNIT_MEMORY) == GUC_UNIT_MB)
		bytes *= 1024 * 1024;
	else if ((g->flags & GUC_UNIT_MEMORY) != GUC_UNIT_BYTE)
		return psprintf("%d", v);
	while (u < (int) lengthof(units) - 1 && bytes != 0 && bytes % 1024 == 0)
	{
		bytes /= 1024;
		u++;
	}
	return psprintf("%llu%s", (unsigned long long) bytes, units[u]);
}

/*
 * NvmGucAllowed - what values g allows, in words, for messages.
 */
static char *
NvmGucAllowed(const NvmGuc *g)
{
	if (g->type == NVM_GUC_STRING)
		return pstrdup("a file path, absolute or relative to the data directory");
	if (g->step > 1)
		return psprintf("%sa multiple of %d bytes between %s and %s",
						g->zero_ok ? "0 or " : "", g->step,
						NvmGucFormat(g, g->min), NvmGucFormat(g, g->max));
	return psprintf("a size between %s and %s",
					NvmGucFormat(g, g->min), NvmGucFormat(g, g->max));
}

/*
 * NvmGucIntValid - is v a valid value of the integer setting g?
 */
static bool
NvmGucIntValid(const NvmGuc *g, int v)
{
	if (v == 0 && g->zero_ok)
		return true;
	return v >= g->min && v <= g->max && v % g->step == 0;
}

/*
 * NvmGucCheckIntRule - check hook body for an integer setting with a rule
 * beyond its range (a step, 0 allowed).
 */
static bool
NvmGucCheckIntRule(const NvmGuc *g, int newval)
{
	if (NvmGucIntValid(g, newval))
		return true;
	GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	GUC_check_errmsg("%s must be %s", g->name, NvmGucAllowed(g));
	if (g->zero_means)
		GUC_check_errhint("0 %s.", g->zero_means);
	return false;
}

/*
 * NvmGucCheckNonEmpty - check hook body for a string setting that must not
 * be empty.
 */
static bool
NvmGucCheckNonEmpty(const NvmGuc *g, const char *newval)
{
	if (newval != NULL && newval[0] != '\0')
		return true;
	GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	GUC_check_errmsg("%s must not be empty", g->name);
	GUC_check_errhint("Set it to %s.", NvmGucAllowed(g));
	return false;
}

static bool
NvmGucCheckPoolPath(char **newval, void **extra, GucSource source)
{
	return NvmGucCheckNonEmpty(NvmGucByVariable(&nvm_pool_path), *newval);
}

static bool
NvmGucCheckIplLogSize(int *newval, void **extra, GucSource source)
{
	return NvmGucCheckIntRule(NvmGucByVariable(&nvm_ipl_log_size), *newval);
}

/*
 * NvmGucCheckRaw - refuse to start (FATAL) when the value written for
 * setting g, raw (NULL: not set), is invalid.
 */
static void
NvmGucCheckRaw(const NvmGuc *g, const char *raw)
{
	int			v;
	bool		ok;

	if (raw == NULL || g->context != PGC_POSTMASTER)
		return;
	if (g->type == NVM_GUC_STRING)
		ok = !g->nonempty || raw[0] != '\0';
	else if (g->type == NVM_GUC_INT)
		ok = parse_int(raw, &v, g->flags & GUC_UNIT, NULL) &&
			NvmGucIntValid(g, v);
	else
		ok = true;
	if (!ok)
		ereport(FATAL,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid value for parameter \"%s\": \"%s\"", g->name, raw),
				 errdetail("nvm_am does not start with an invalid setting rather than use its default."),
				 errhint("Set %s to %s, such as '%s'.", g->name,
						 NvmGucAllowed(g), g->example)));
}

/*
 * NvmGucDefine - define every nvm_am.* setting from the table, reserve the
 * prefix, and refuse to start on an invalid value.  Called from _PG_init.
 */
void
NvmGucDefine(void)
{
	char	   *raw[NVM_NUM_GUCS];

	for (int i = 0; i < (int) NVM_NUM_GUCS; i++)
	{
		const char *r = GetConfigOption(nvm_gucs[i].name, true, false);

		raw[i] = r ? pstrdup(r) : NULL;
	}
	for (int i = 0; i < (int) NVM_NUM_GUCS; i++)
	{
		const NvmGuc *g = &nvm_gucs[i];

		switch (g->type)
		{
			case NVM_GUC_STRING:
				DefineCustomStringVariable(g->name, g->short_desc, g->long_desc,
										   (char **) g->variable, g->boot_string,
										   g->context, g->flags, g->string_check,
										   NULL, NULL);
				break;
			case NVM_GUC_INT:
				DefineCustomIntVariable(g->name, g->short_desc, g->long_desc,
										(int *) g->variable, g->boot_int,
										g->zero_ok ? 0 : g->min, g->max,
										g->context, g->flags, g->int_check,
										NULL, NULL);
				break;
			case NVM_GUC_ENUM:
				DefineCustomEnumVariable(g->name, g->short_desc, g->long_desc,
										 (int *) g->variable, g->boot_int,
										 g->options, g->context, g->flags,
										 NULL, NULL, NULL);
				break;
		}
	}
	MarkGUCPrefixReserved("nvm_am");
	for (int i = 0; i < (int) NVM_NUM_GUCS; i++)
		NvmGucCheckRaw(&nvm_gucs[i], raw[i]);
}
