# nvm_am: PGXS build for PostgreSQL 15
MODULE_big = nvm_am
OBJS = \
	nvm_am.o \
	nvm_guc.o \
	nvm_scan.o \
	nvm_index.o \
	nvm_modify.o \
	nvm_rowlock.o \
	nvm_prune.o \
	nvm_vacuum.o \
	nvm_rewrite.o \
	nvm_visibility.o \
	nvm_vismap.o \
	nvm_check.o \
	nvm_monitor.o \
	nvm_database.o \
	ipl_log.o \
	ipl_wal.o \
	ipl_delta.o \
	ipl_cache.o \
	ipl_checksum.o \
	nvm_storage.o \
	nvm_recovery.o \
	nvm_commit.o \
	nvm_xlog.o \
	nvm_logical.o \
	nvm_pool.o \
	nvm_pool_dir.o

EXTENSION = nvm_am
DATA = nvm_am--0.1.sql
PGFILEDESC = "nvm_am - table access method on persistent memory"

SHLIB_LINK += -lpmem
PG_CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
# only what PostgreSQL looks up by name is exported (_PG_init, the magic
# block, the SQL functions, the recovery worker's entry): calls inside the
# library go straight to the callee instead of through the PLT, and global
# variables are addressed directly instead of through the GOT, as
# PostgreSQL 16 builds every extension
PG_CFLAGS += -fvisibility=hidden
PG_CPPFLAGS += -DPGDLLEXPORT='__attribute__((visibility("default")))'
# link-time optimisation: the small functions of one layer that another
# calls on every read (page lock, page table, merge-cache lookup, pins) are
# inlined across files; PGXS puts CFLAGS on the link line too
# (not in a coverage build: gcov needs the objects as compiled)
ifndef NVM_COVERAGE
PG_CFLAGS += -flto=auto
endif

# make NVM_COVERAGE=1: a build that counts the lines it runs (gcov), for
# scripts/coverage.sh; each process writes its counts into *.gcda beside the
# objects when it exits normally (not when it is killed)
ifdef NVM_COVERAGE
PG_CFLAGS += --coverage -O0
SHLIB_LINK += --coverage
endif
EXTRA_CLEAN = *.gcno *.gcda *.gcov

# make NVM_ASSERTS=1: enable nvm_am's Assert()s on a server built without
# --enable-cassert (the test command builds this way)
ifdef NVM_ASSERTS
PG_CPPFLAGS += -DUSE_ASSERT_CHECKING
endif

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
ISOLATION = $(patsubst specs/%.spec,%,$(sort $(wildcard specs/*.spec)))
TAP_TESTS = 1

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# each layer's header includes the headers of the layers it uses
$(OBJS): nvm_pool.h
nvm_pool.o nvm_pool_dir.o: nvm_pool_internal.h
nvm_am.o nvm_guc.o nvm_scan.o nvm_index.o nvm_modify.o nvm_rowlock.o \
nvm_prune.o nvm_vacuum.o nvm_rewrite.o nvm_visibility.o nvm_vismap.o nvm_check.o nvm_monitor.o nvm_database.o: nvm_am.h nvm_page.h nvm_hooks.h
ipl_log.o ipl_cache.o ipl_wal.o ipl_checksum.o: nvm_page.h
ipl_log.o ipl_wal.o ipl_checksum.o: ipl_internal.h
nvm_storage.o nvm_recovery.o nvm_commit.o nvm_xlog.o nvm_logical.o: nvm_hooks.h

# Developer shortcuts for scripts/test.sh's single-test options (see
# bash scripts/test.sh --help).  They use the installed nvm_am (make install
# first); regress and isolation tests run against the server named by
# PGHOST/PGPORT/PGUSER, TAP files start their own clusters.
#   make check-layers
#   make installcheck-regress TESTS='nvm_basic nvm_hot'
#   make installcheck-isolation TESTS=nvm_row_locks
#   make installcheck-tap TESTS=t/001_pool_errors.pl
.PHONY: check-layers installcheck-regress installcheck-isolation installcheck-tap
check-layers:
	python3 scripts/check_layers.py
installcheck-regress:
	bash scripts/test.sh --regress $(TESTS)
installcheck-isolation:
	bash scripts/test.sh --isolation $(TESTS)
installcheck-tap:
	bash scripts/test.sh --tap $(TESTS)
