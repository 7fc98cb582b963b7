/*
 * engine/idleprof.c - CPU idleness threads (idleprof.h): one pinned
 * SCHED_IDLE thread per CPU, a calibrated unit of work, units counted over
 * the run.  Hand-written: no Debian library measures idleness this way, and
 * matching fio's figures needs fio's method (a page of byte stores per unit,
 * the stop flag read after every store, the fastest of 10 x 1000 units).
 */
#include "idleprof.h"

#include "engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define IP_CALIBRATE_RUNS 10
#define IP_CALIBRATE_SCALE 1000

enum ip_status { IP_WAIT = 0, IP_GO, IP_STOP };

struct ip_thread {
	struct idleprof *ip;
	pthread_t th;
	uint32_t cpu;
	bool started;
	bool ok;			/* pinned, calibrated, at SCHED_IDLE */
	unsigned char *page;
	double unit_us;			/* calibration: one unit's time */
	double units;			/* done over the run */
	uint64_t t0_ns, t1_ns;
};

struct idleprof {
	enum res_idle_mode mode;
	_Atomic int status;
	size_t page_size;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t ready;			/* threads done calibrating (guarded by mu) */
	uint32_t nr;
	struct ip_thread *t;
};

static uint64_t ip_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Units of work from unit number j on until the status becomes IP_STOP or max
 * units are done: the count, with the unit cut by a stop counted as its done
 * fraction.  Calibration runs this same loop (status read and all), so a
 * unit costs the same in both.
 */
static double ip_work(struct ip_thread *t, uint64_t j, uint64_t max)
{
	volatile unsigned char *data = t->page;
	size_t ps = t->ip->page_size;
	uint64_t start = j;

	for (; j - start < max; j++) {
		for (size_t k = 0; k < ps; k++) {
			data[(k + j) % ps] = (unsigned char)(k % 256);
			if (atomic_load_explicit(&t->ip->status, memory_order_relaxed) == IP_STOP)
				return (double)(j - start) + (double)k / (double)ps;
		}
	}
	return (double)(j - start);
}

/* The fastest of IP_CALIBRATE_RUNS runs, per unit (us). */
static double ip_calibrate_unit(struct ip_thread *t)
{
	double best = 0;

	for (int i = 0; i < IP_CALIBRATE_RUNS; i++) {
		uint64_t s = ip_now_ns();

		ip_work(t, (uint64_t)i * IP_CALIBRATE_SCALE, IP_CALIBRATE_SCALE);
		double us = (double)(ip_now_ns() - s) / 1000.0;
		if (us > 0 && (best == 0 || us < best))
			best = us;
	}
	return best / IP_CALIBRATE_SCALE;
}

static bool ip_setup(struct ip_thread *t)
{
	cpu_set_t set;
	struct sched_param sp = { 0 };

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return false;
	/* Calibrated at normal priority, as fio: the unit is a CPU's full speed. */
	t->unit_us = ip_calibrate_unit(t);
	return t->unit_us > 0 && pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0;
}

static void *ip_thread_fn(void *arg)
{
	struct ip_thread *t = arg;
	struct idleprof *ip = t->ip;

	t->ok = ip_setup(t);
	pthread_mutex_lock(&ip->mu);
	ip->ready++;
	pthread_cond_broadcast(&ip->cv);
	while (atomic_load(&ip->status) == IP_WAIT)
		pthread_cond_wait(&ip->cv, &ip->mu);
	pthread_mutex_unlock(&ip->mu);
	if (!t->ok || atomic_load(&ip->status) != IP_GO)
		return NULL;
	t->t0_ns = ip_now_ns();
	t->units = ip_work(t, 0, UINT64_MAX);
	t->t1_ns = ip_now_ns();
	return NULL;
}

static void ip_set_status(struct idleprof *ip, enum ip_status s)
{
	pthread_mutex_lock(&ip->mu);
	atomic_store(&ip->status, s);
	pthread_cond_broadcast(&ip->cv);
	pthread_mutex_unlock(&ip->mu);
}

static void ip_free(struct idleprof *ip)
{
	for (uint32_t i = 0; i < ip->nr; i++)
		free(ip->t[i].page);
	free(ip->t);
	pthread_cond_destroy(&ip->cv);
	pthread_mutex_destroy(&ip->mu);
	free(ip);
}

/* Stops (if running) and joins every started thread. */
static void ip_join(struct idleprof *ip)
{
	ip_set_status(ip, IP_STOP);
	for (uint32_t i = 0; i < ip->nr; i++)
		if (ip->t[i].started)
			pthread_join(ip->t[i].th, NULL);
}

/* One thread slot per CPU this process may run on. */
static int ip_alloc(enum res_idle_mode mode, struct idleprof **out)
{
	cpu_set_t set;
	struct idleprof *ip = calloc(1, sizeof(*ip));

	if (!ip)
		return -ENOMEM;
	ip->mode = mode;
	ip->page_size = (size_t)sysconf(_SC_PAGESIZE);
	pthread_mutex_init(&ip->mu, NULL);
	pthread_cond_init(&ip->cv, NULL);
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	ip->t = calloc((size_t)CPU_COUNT(&set) + 1, sizeof(*ip->t));
	for (uint32_t c = 0; ip->t && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		struct ip_thread *t = &ip->t[ip->nr++];
		t->ip = ip;
		t->cpu = c;
		t->page = malloc(ip->page_size);
		if (!t->page)
			break;
	}
	*out = ip;
	if (!ip->t || !ip->nr || !ip->t[ip->nr - 1].page) {
		ip_free(ip);
		return -ENOMEM;
	}
	return 0;
}

int idleprof_start(enum res_idle_mode mode, struct idleprof **out)
{
	struct idleprof *ip;
	int ret = ip_alloc(mode, &ip);

	*out = NULL;
	if (ret)
		return ret;
	for (uint32_t i = 0; i < ip->nr && !ret; i++) {
		ret = -pthread_create(&ip->t[i].th, NULL, ip_thread_fn, &ip->t[i]);
		ip->t[i].started = ret == 0;
	}
	pthread_mutex_lock(&ip->mu);
	while (!ret && ip->ready < ip->nr)
		pthread_cond_wait(&ip->cv, &ip->mu);
	pthread_mutex_unlock(&ip->mu);
	if (ret) {
		ip_join(ip);
		ip_free(ip);
		return ret;
	}
	*out = ip;
	return 0;
}

void idleprof_go(struct idleprof *ip)
{
	if (ip)
		ip_set_status(ip, IP_GO);
}

/*
 * Mean and sample standard deviation of the calibrated unit over the CPUs
 * whose thread could be set up; 0 when none could.
 */
static void ip_unit_stats(const struct idleprof *ip, double *mean, double *stddev)
{
	double sum = 0, var = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < ip->nr; i++)
		if (ip->t[i].ok) {
			sum += ip->t[i].unit_us;
			n++;
		}
	*mean = n ? sum / n : 0;
	for (uint32_t i = 0; i < ip->nr; i++)
		if (ip->t[i].ok)
			var += pow(ip->t[i].unit_us - *mean, 2);
	*stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
}

double idleprof_pct(double units, double unit_us, double run_us)
{
	double pct;

	if (!(run_us > 0))
		return 0;
	pct = 100.0 * units * unit_us / run_us;
	return pct < 100.0 ? pct : 100.0;
}

void idleprof_stop(struct idleprof *ip, struct results *r)
{
	struct res_idle *o = &r->idle;

	if (!ip)
		return;
	ip_join(ip);
	o->cpus = calloc(ip->nr, sizeof(*o->cpus));
	if (o->cpus) {
		o->mode = ip->mode;
		o->nr_cpus = ip->nr;
		ip_unit_stats(ip, &o->unit_mean_us, &o->unit_stddev_us);
		for (uint32_t i = 0; i < ip->nr; i++) {
			const struct ip_thread *t = &ip->t[i];
			double run_us = (double)(t->t1_ns - t->t0_ns) / 1000.0;

			o->cpus[i].id = t->cpu;
			/* fio's figure: units done at the mean unit's speed over the run. */
			if (t->ok)
				o->cpus[i].pct = idleprof_pct(t->units, o->unit_mean_us, run_us);
			o->system_pct += o->cpus[i].pct / ip->nr;
		}
	}
	ip_free(ip);
}

int eng_idle_calibrate(double *mean_us, double *stddev_us)
{
	struct idleprof *ip;
	int ret = idleprof_start(RES_IDLE_SYSTEM, &ip);

	if (ret)
		return ret;
	ip_join(ip);
	ip_unit_stats(ip, mean_us, stddev_us);
	ip_free(ip);
	return 0;
}
