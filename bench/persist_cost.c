/*
 * persist_cost.c - the cost of making 64 bytes durable, the unit of an
 * nvm_am commit record, on the file system that holds the pool.
 *
 * Usage: persist_cost FILE [ITERATIONS]
 *
 * Maps a 4 MB FILE with pmem_map_file (created, removed at the end) and
 * times ITERATIONS (default 200000) stores of 64 bytes, each at the next
 * cache line, followed by
 *   persist      pmem_persist(addr, 64)
 *   flush+drain  pmem_flush(addr, 64); pmem_drain()
 *   msync        pmem_msync(addr, 64)  (the durable way when the mapping
 *                is not persistent memory; at most ITERATIONS / 100 times
 *                and 2 seconds)
 * and prints one line per method: "<method> <ns per op>", after a line
 * "is_pmem <0|1>".  On a non-pmem mapping pmem_persist only writes the
 * line back to the page cache (not durable); msync is the figure to use.
 * Run it with PMEM_IS_PMEM_FORCE=1 for /dev/shm (as the benchmark's pool),
 * without it for a file on disk.
 *
 * Build: gcc -O2 -o persist_cost bench/persist_cost.c -lpmem
 */
#include <libpmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAP_LEN		(4u << 20)
#define LINE		64

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* method: 0 persist, 1 flush+drain, 2 msync */
static double
run(char *base, long iters, int method, double budget_ns)
{
	uint64_t	rec[LINE / 8];
	long		i;
	double		t0 = now_ns(), t = t0;

	for (i = 0; i < iters; i++)
	{
		char	   *p = base + ((size_t) i * LINE) % MAP_LEN;

		for (int k = 0; k < LINE / 8; k++)
			rec[k] = (uint64_t) i * 8 + k;
		memcpy(p, rec, LINE);
		if (method == 0)
			pmem_persist(p, LINE);
		else if (method == 1)
		{
			pmem_flush(p, LINE);
			pmem_drain();
		}
		else if (pmem_msync(p, LINE) != 0)
		{
			perror("pmem_msync");
			exit(1);
		}
		if (budget_ns > 0 && (i & 15) == 15 && (t = now_ns()) - t0 > budget_ns)
		{
			i++;
			break;
		}
	}
	t = now_ns();
	return (t - t0) / (double) i;
}

int
main(int argc, char **argv)
{
	size_t		len;
	int			is_pmem;
	char	   *base;
	long		iters = argc > 2 ? atol(argv[2]) : 200000;

	if (argc < 2 || iters <= 0)
	{
		fprintf(stderr, "usage: %s FILE [ITERATIONS]\n", argv[0]);
		return 2;
	}
	base = pmem_map_file(argv[1], MAP_LEN, PMEM_FILE_CREATE, 0600, &len, &is_pmem);
	if (base == NULL)
	{
		perror(argv[1]);
		return 1;
	}
	memset(base, 0, len);		/* fault every page in before timing */
	pmem_msync(base, len);
	printf("is_pmem %d\n", is_pmem);
	run(base, iters / 10, 0, 0);	/* warm-up */
	printf("persist %.1f\n", run(base, iters, 0, 0));
	printf("flush+drain %.1f\n", run(base, iters, 1, 0));
	printf("msync %.1f\n", run(base, iters / 100 > 0 ? iters / 100 : 1, 2, 2e9));
	pmem_unmap(base, len);
	unlink(argv[1]);
	return 0;
}
