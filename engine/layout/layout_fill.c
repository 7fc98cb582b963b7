/*
 * engine/layout/layout_fill.c - the layout's write loop (layout_fill.h).
 *
 * dd bs=1M oflag=direct is the yardstick: one 1 MiB write at a time leaves
 * the device idle between a completion and the next submission.  Keeping a
 * few writes in flight through io_uring removes that gap for the price of a
 * few more buffers; each buffer is refreshed (buf_vary) before it is reused,
 * so every chunk on disk differs, and the bytes are seeded by the file (its
 * device and inode), so two files are no copies of each other either: a
 * deduplicating device would otherwise store one.  A ring that cannot be set up (old kernel,
 * seccomp) falls back to plain pwrite(), which is what buffered layouts use
 * anyway: the page cache already overlaps them.
 *
 * The data is what the first job using the file writes, as fio fills its
 * layout with fill_io_buffer(): random by default, zeroes (zero_buffers), its
 * buffer_pattern restarting at every largest write of the job, or random with
 * buffer_compress_percentage's share of zeroes and dedupe_percentage's repeats,
 * in pieces of that largest write.  A file laid out as zeroes would read back
 * from a thin or compressing device at another speed than random data: the
 * content is the job's choice, not the layout's.
 */
#include <errno.h>
#include <liburing.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/buffers.h"
#include "engine/layout/layout_fill.h"
#include "engine/gen/rng.h"

struct filler {
	int fd;
	struct bufpool pool;
	uint64_t rng;
	struct buffill fill;		/* the job's content */
	struct dedupe dedupe;		/* dedupe_percentage's repeats, or pct 0 */
	uint64_t piece;			/* the job's largest write: a pattern restarts there */
	uint64_t into;			/* bytes of the current piece already filled (chunks split pieces) */
	bool same;			/* every chunk holds the same bytes: filled once */
	_Atomic uint64_t *done;
	const _Atomic int *stop;
};

struct chunk {
	uint64_t off;
	uint32_t len;
};

static bool is_stopped(const struct filler *f)
{
	return atomic_load_explicit(f->stop, memory_order_relaxed) != 0;
}

static uint32_t chunk_len(uint64_t off, uint64_t to)
{
	return to - off < LAYOUT_FILL_CHUNK ? (uint32_t)(to - off) : LAYOUT_FILL_CHUNK;
}

/* pwrite()s buf over [off, off + len) until all of it is written. */
static int write_all(struct filler *f, const char *buf, uint64_t off, uint64_t len)
{
	while (len) {
		ssize_t w = pwrite(f->fd, buf, len, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -ENOSPC;
		atomic_fetch_add_explicit(f->done, (uint64_t)w, memory_order_relaxed);
		buf += w;
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	return 0;
}

/* The job's content over buf, in pieces of its largest write (dedupe's repeats are whole pieces). */
static void fill_pieces(struct filler *f, void *to, uint32_t len)
{
	uint8_t *buf = to;

	for (uint32_t off = 0, n; off < len; off += n) {
		uint64_t seed;

		n = len - off < f->piece - f->into ? len - off : (uint32_t)(f->piece - f->into);
		if (f->into && f->fill.kind == PLAN_BUF_PATTERN) {
			/* A piece the last chunk began: the pattern goes on where it stopped. */
			for (uint32_t i = 0; i < n; i++)
				buf[off + i] = f->fill.pattern[(f->into + i) % f->fill.pattern_len];
		} else if (f->dedupe.pct) {
			seed = dedupe_next_seed(&f->dedupe);
			buf_fill(buf + off, n, &f->fill, &seed);
		} else {
			buf_fill(buf + off, n, &f->fill, &f->rng);
		}
		f->into = (f->into + n) % f->piece;
	}
}

/* Before each chunk's write: its bytes, which differ from the last chunk's unless the content repeats. */
static void refresh(struct filler *f, void *buf, uint32_t len)
{
	if (f->same)
		return;
	if (f->fill.kind == PLAN_BUF_RANDOM && !f->fill.compress_pct && !f->dedupe.pct)
		buf_vary(buf, len, &f->rng);
	else
		fill_pieces(f, buf, len);
}

static int fill_sync(struct filler *f, uint64_t from, uint64_t to)
{
	char *buf = bufpool_at(&f->pool, 0);
	int ret = 0;

	for (uint64_t off = from; off < to && !ret; off += LAYOUT_FILL_CHUNK) {
		if (is_stopped(f))
			return -EINTR;
		refresh(f, buf, chunk_len(off, to));
		ret = write_all(f, buf, off, chunk_len(off, to));
	}
	return ret;
}

/* One completion: bytes counted, a short write finished synchronously.  0 or -errno. */
static int completed(struct filler *f, const struct chunk *c, uint32_t slot, int res)
{
	if (res < 0)
		return res;
	if (!res)
		return -ENOSPC;
	atomic_fetch_add_explicit(f->done, (uint64_t)res, memory_order_relaxed);
	if ((uint32_t)res == c->len)
		return 0;
	return write_all(f, (char *)bufpool_at(&f->pool, slot) + res, c->off + (uint64_t)res,
			 c->len - (uint32_t)res);
}

static void queue_chunk(struct filler *f, struct io_uring *ring, struct chunk *c, uint32_t slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);	/* never NULL: depth = ring size */

	refresh(f, bufpool_at(&f->pool, slot), c->len);
	io_uring_prep_write(sqe, f->fd, bufpool_at(&f->pool, slot), c->len, c->off);
	io_uring_sqe_set_data(sqe, (void *)(uintptr_t)slot);
}

static int fill_ring(struct filler *f, struct io_uring *ring, uint64_t from, uint64_t to)
{
	struct chunk c[LAYOUT_FILL_DEPTH];
	uint32_t free_slot[LAYOUT_FILL_DEPTH], nr_free = LAYOUT_FILL_DEPTH, inflight = 0;
	struct io_uring_cqe *cqe;
	uint64_t next = from;
	int ret = 0, r;

	for (uint32_t i = 0; i < LAYOUT_FILL_DEPTH; i++)
		free_slot[i] = i;
	while (inflight || (next < to && !ret)) {
		for (; !ret && next < to && nr_free; inflight++) {
			uint32_t k = free_slot[--nr_free];

			if (is_stopped(f)) {
				ret = -EINTR;
				free_slot[nr_free++] = k;
				break;
			}
			c[k].off = next;
			c[k].len = chunk_len(next, to);
			queue_chunk(f, ring, &c[k], k);
			next += c[k].len;
		}
		r = io_uring_submit_and_wait(ring, inflight ? 1 : 0);
		if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
			return ret ? ret : r;	/* io_uring_queue_exit() waits out the rest */
		while (!io_uring_peek_cqe(ring, &cqe)) {
			uint32_t k = (uint32_t)(uintptr_t)io_uring_cqe_get_data(cqe);

			r = completed(f, &c[k], k, cqe->res);
			io_uring_cqe_seen(ring, cqe);
			if (r && !ret)
				ret = r;
			free_slot[nr_free++] = k;
			inflight--;
		}
	}
	return ret;
}

/*
 * The job's content, and whether the buffers filled once hold every chunk's
 * bytes: zeroes, or a pattern whose pieces tile a chunk (else each chunk is
 * filled before its write, over the random bytes the buffers start with).
 */
static int content_init(struct filler *f, const struct plan_job *j, uint64_t span, uint32_t nbufs)
{
	int ret = j ? buffill_from_job(&f->fill, j) : 0;

	if (ret)
		return ret;
	f->piece = j ? plan_bs_max(&j->bs[PLAN_DDIR_WRITE]) : 0;	/* fio's max_bs[DDIR_WRITE] */
	if (!f->piece)
		f->piece = LAYOUT_FILL_CHUNK;
	if (j && j->dedupe_pct)
		dedupe_init(&f->dedupe, j, f->rng, span, f->piece);
	f->same = !f->fill.in_chunks && (f->fill.kind == PLAN_BUF_ZERO ||
					 (f->fill.kind == PLAN_BUF_PATTERN && !(LAYOUT_FILL_CHUNK % f->piece)));
	for (uint32_t i = 0; f->same && i < nbufs; i++)
		fill_pieces(f, bufpool_at(&f->pool, i), (uint32_t)f->pool.stride);
	return 0;
}

/* Which file this is, as a seed: files laid out alike must still differ. */
static uint64_t file_seed(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return 0;
	return (uint64_t)st.st_ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)st.st_dev;
}

int layout_fill(int fd, uint64_t from, uint64_t to, bool direct, const struct plan_job *j,
		_Atomic uint64_t *done, const _Atomic int *stop)
{
	struct filler f = { .fd = fd, .done = done, .stop = stop };
	/* Buffers no bigger than the range: a 4 KiB file costs a 4 KiB buffer,
	 * not a 1 MiB one filled at random, and a one-write file no ring. */
	uint64_t span = to > from ? to - from : 0;
	uint64_t chunks = (span + LAYOUT_FILL_CHUNK - 1) / LAYOUT_FILL_CHUNK;
	uint32_t nbufs = direct && chunks > 1 ? LAYOUT_FILL_DEPTH : 1;
	struct io_uring ring;
	int ret;

	f.rng = rng_seed(from ^ to ^ file_seed(fd), 0x1a70);
	ret = bufpool_alloc(&f.pool, nbufs, chunks > 1 ? LAYOUT_FILL_CHUNK : span, 4096);
	if (ret)
		return ret;
	buf_fill_random(f.pool.mem, (uint64_t)nbufs * f.pool.stride, &f.rng);
	ret = content_init(&f, j, span, nbufs);
	if (ret) {
		bufpool_free(&f.pool);
		return ret;
	}
	if (direct && chunks > 1 && !io_uring_queue_init(LAYOUT_FILL_DEPTH, &ring, 0)) {
		ret = fill_ring(&f, &ring, from, to);
		io_uring_queue_exit(&ring);
	} else {
		ret = fill_sync(&f, from, to);
	}
	bufpool_free(&f.pool);
	buffill_release(&f.fill);
	return ret;
}
