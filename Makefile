# nvm_am: PGXS build for PostgreSQL 15
MODULE_big = nvm_am
OBJS = \
	nvm_am.o \
	ipl_log.o \
	ipl_cache.o \
	nvm_pool.o \
	nvm_visibility.o \
	nvm_monitor.o \
	nvm_check.o \
	nvm_commit.o \
	pmem_smgr_hook.o

EXTENSION = nvm_am
DATA = nvm_am--0.1.sql
PGFILEDESC = "nvm_am - table access method on persistent memory"

SHLIB_LINK += -lpmem
PG_CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers

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

# every module includes the one internal header
$(OBJS): nvm_am.h
