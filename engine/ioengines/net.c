/*
 * engine/ioengines/net.c - fio's net and netsplice engines: a job's I/O is a
 * socket's traffic.
 *
 * A sender (rw=write) connects to hostname:port (or a unix socket path) and
 * sends each block; a receiver (listen, rw=read) binds port, accepts one peer
 * and receives blocks, so one job file can measure a network path with a
 * receiver job and a sender job, as fio's examples/netio.fio does.  TCP, UDP,
 * both over IPv6, and SOCK_STREAM unix sockets, as fio 3.33's engines/net.c;
 * netsplice moves TCP data through a pipe with splice/vmsplice instead of
 * send/recv.  UDP peers open and close the link with fio's two control
 * datagrams, so either side may be fio.
 *
 * Where ioplan differs from fio (man page COMPATIBILITY): a block is received
 * whole (fio counts a short TCP read as a finished I/O, so its receiver stops
 * a few KiB short of size= by chance); a peer that closes ends the receiver's
 * job without error; a wait for a peer or data gives up on a stop or at the
 * end of runtime; a unix listener replaces only a socket at its path, never
 * another file (fio unlinks whatever is there).
 *
 * Hand-written: no Debian library wraps BSD sockets in a way that would save
 * code here, and fio's wire format (control datagrams) must match byte for byte.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "engine/ioengine.h"
#include "engine/target.h"

#define NET_POLL_MS 100			/* how often a wait looks at stop/runtime */
#define NET_LINK_MAGIC 0x6c696e6bu	/* fio's FIO_LINK_OPEN_CLOSE_MAGIC */
#define NET_LINK_CLOSE 0x89u
#define NET_LINK_OPEN 0x98u
#define NET_UDP_SEQ_MAGIC 0x657375716e556563ull	/* fio's FIO_UDP_SEQ_MAGIC */

/*
 * Its options (plan_engopts.h), net's and netsplice's: the parser fills one per
 * job from the table below, with hostname= already taken from filename= when
 * only that is given, and checks fio_netio_init's rules (parser/remote_engines.cpp).
 */
struct net_opts {
	char *host;			/* peer, multicast group or unix path; NULL = none */
	char *interface;		/* multicast interface address; NULL = the default */
	long long proto;		/* enum plan_net_proto */
	long long port;			/* clone k uses port + k; 0 for unix sockets */
	long long window_size_bytes;	/* SO_RCVBUF/SO_SNDBUF; 0 = the kernel's */
	long long mss_bytes;		/* TCP_MAXSEG; 0 = the kernel's */
	long long ttl;			/* multicast time-to-live */
	bool listen;
	bool pingpong;			/* each I/O waits for the peer's echo of it */
	bool nodelay;			/* TCP_NODELAY */
};

static const struct plan_engopt_choice net_protocols[] = {
	{ "tcp", "TCP over IPv4", PLAN_NET_TCP },
	{ "tcpv6", "TCP over IPv6", PLAN_NET_TCPV6 },
	{ "udp", "UDP over IPv4 (multicast when hostname is a group)", PLAN_NET_UDP },
	{ "udpv6", "UDP over IPv6", PLAN_NET_UDPV6 },
	{ "unix", "a stream unix socket at hostname= (or filename=)", PLAN_NET_UNIX },
	{ NULL, NULL, 0 },
};

#define NET_OPT(field) .off = offsetof(struct net_opts, field)
static const struct plan_engopt net_opts[] = {
	{ .name = "hostname", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0, NET_OPT(host),
	  .help = "net, netsplice: host to send to (a name or address), a UDP multicast group, or the unix "
		  "socket's path; sets filename=, as fio." },
	{ .name = "port", .type = PLAN_ENGOPT_INT, .min = 1, .max = 65535, NET_OPT(port),
	  .help = "net, netsplice: TCP or UDP port to listen on or send to; clone k of numjobs uses port + k." },
	{ .name = "protocol", .alias = "proto", .type = PLAN_ENGOPT_CHOICE, .def = "tcp", .min = 1, .max = 0,
	  .choices = net_protocols, .help = "net, netsplice: network protocol.", NET_OPT(proto) },
	{ .name = "listen", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0, NET_OPT(listen),
	  .help = "net, netsplice: wait for a TCP peer on port= instead of connecting (the receiver)." },
	{ .name = "pingpong", .type = PLAN_ENGOPT_FLAG, .def = "0", .min = 1, .max = 0, NET_OPT(pingpong),
	  .help = "net, netsplice: the peer sends each block back, so a latency is a round trip." },
	{ .name = "nodelay", .type = PLAN_ENGOPT_BOOL, .def = "0", .min = 1, .max = 0, NET_OPT(nodelay),
	  .help = "net, netsplice: TCP_NODELAY on TCP connections." },
	{ .name = "window_size", .type = PLAN_ENGOPT_SIZE, .unit = "bytes", .def = "0", .min = 0, .max = 2147483647,
	  NET_OPT(window_size_bytes), .help = "net, netsplice: socket buffer size (SO_RCVBUF on a receiver, "
					      "SO_SNDBUF on a sender); 0: the kernel's." },
	{ .name = "mss", .type = PLAN_ENGOPT_SIZE, .unit = "bytes", .def = "0", .min = 0, .max = 65535,
	  NET_OPT(mss_bytes), .help = "net, netsplice: TCP maximum segment size (TCP_MAXSEG); 0: the kernel's." },
	{ .name = "ttl", .type = PLAN_ENGOPT_INT, .def = "1", .min = 0, .max = 255, NET_OPT(ttl),
	  .help = "net, netsplice: time-to-live of UDP multicast datagrams." },
	{ .name = "interface", .type = PLAN_ENGOPT_STRING, .min = 1, .max = 0, NET_OPT(interface),
	  .help = "net, netsplice: IP address of the interface UDP multicast goes through." },
};
#undef NET_OPT

PLAN_ENGOPTS_DEFINE(net, struct net_opts, net_opts);

union net_addr {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
	struct sockaddr_un un;
};

struct net_data {
	const struct net_opts *o;
	int fd;				/* the connected (or datagram) socket */
	int listenfd;
	int pipes[2];			/* netsplice: socket <-> pipe <-> buffer */
	size_t pipe_bytes;		/* the pipe's capacity: one splice moves at most this */
	bool splice;
	bool listen;
	union net_addr peer;
	socklen_t peer_len;
	struct ioe *e;
	uint64_t send_seq, recv_seq;	/* UDP: fio's sequence trailer, to count lost datagrams */
	bool seq_off;			/* the peer's trailers do not match our block size */
	/* UDP receiver: the socket's overflow count (SO_RXQ_OVFL) as of the datagram last
	 * received, and as of the last data datagram: what overflowed after it is the tail
	 * no later sequence number shows. */
	uint32_t rx_drops, rx_drops_at_data;
};

/* The last bytes of each datagram without verify=, little-endian, as fio's struct udp_seq. */
struct net_udp_seq {
	uint64_t magic;
	uint64_t seq;
	uint64_t bs;
};

/* fio's control datagram: magic and command, in the byte order fio's sender uses for each. */
struct net_link_msg {
	uint32_t magic;
	uint32_t cmd;
};

static bool is_udp(const struct net_opts *o)
{
	return o->proto == PLAN_NET_UDP || o->proto == PLAN_NET_UDPV6;
}

static bool is_tcp(const struct net_opts *o)
{
	return o->proto == PLAN_NET_TCP || o->proto == PLAN_NET_TCPV6;
}

static bool is_v6(const struct net_opts *o)
{
	return o->proto == PLAN_NET_TCPV6 || o->proto == PLAN_NET_UDPV6;
}

static bool is_multicast(const char *host)
{
	struct in_addr a;

	return host && inet_aton(host, &a) && IN_MULTICAST(ntohl(a.s_addr));
}

/* Waits until fd is ready for events: 0, or -EINTR/-ETIMEDOUT when the run stops waiting. */
static int net_wait(struct net_data *nd, int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r;

	for (;;) {
		r = nd->e->cfg.stopping ? nd->e->cfg.stopping(nd->e->cfg.stop_arg) : 0;
		if (r)
			return r;
		r = poll(&p, 1, NET_POLL_MS);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 0;	/* ready, or an error/hang-up the next call reports */
	}
}

static int sockopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) ? -errno : 0;
}

/* nodelay, window_size and mss, as fio applies them (window: receive side for listeners). */
static int tune(struct net_data *nd, int fd)
{
	const struct net_opts *o = nd->o;
	bool rcv = nd->listen || o->pingpong, snd = !nd->listen || o->pingpong;
	int ret = 0;

	if (o->nodelay && is_tcp(o))
		ret = sockopt(fd, IPPROTO_TCP, TCP_NODELAY, 1);
	if (!ret && o->window_size_bytes && rcv)
		ret = sockopt(fd, SOL_SOCKET, SO_RCVBUF, (int)o->window_size_bytes);
	if (!ret && o->window_size_bytes && snd)
		ret = sockopt(fd, SOL_SOCKET, SO_SNDBUF, (int)o->window_size_bytes);
	if (!ret && o->mss_bytes && is_tcp(o))
		ret = sockopt(fd, IPPROTO_TCP, TCP_MAXSEG, (int)o->mss_bytes);
	return ret;
}

/* The peer's address from host (a literal or a name) and port. */
static int resolve(struct net_data *nd, uint16_t port)
{
	const struct net_opts *o = nd->o;
	struct addrinfo hints = { 0 }, *res = NULL;
	int af = is_v6(o) ? AF_INET6 : AF_INET, r;

	memset(&nd->peer, 0, sizeof(nd->peer));
	hints.ai_family = af;
	hints.ai_socktype = is_udp(o) ? SOCK_DGRAM : SOCK_STREAM;
	r = o->host ? getaddrinfo(o->host, NULL, &hints, &res) : EAI_NONAME;
	/* An unknown name is EINVAL, as fio reports a failed getaddrinfo. */
	if (r || !res)
		return r == EAI_SYSTEM ? -errno : -EINVAL;
	memcpy(&nd->peer, res->ai_addr, res->ai_addrlen);
	nd->peer_len = res->ai_addrlen;
	freeaddrinfo(res);
	if (af == AF_INET6)
		nd->peer.in6.sin6_port = htons(port);
	else
		nd->peer.in.sin_port = htons(port);
	return 0;
}

static int unix_addr(struct net_data *nd)
{
	size_t n = nd->o->host ? strlen(nd->o->host) : 0;

	memset(&nd->peer, 0, sizeof(nd->peer));
	if (!n || n >= sizeof(nd->peer.un.sun_path))
		return -ENAMETOOLONG;
	nd->peer.un.sun_family = AF_UNIX;
	memcpy(nd->peer.un.sun_path, nd->o->host, n);
	nd->peer_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	return 0;
}

static int family(const struct net_opts *o)
{
	return o->proto == PLAN_NET_UNIX ? AF_UNIX : is_v6(o) ? AF_INET6 : AF_INET;
}

static int new_socket(const struct net_opts *o)
{
	int fd = socket(family(o), (is_udp(o) ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

static int send_link(struct net_data *nd, uint32_t cmd, bool network_order)
{
	struct net_link_msg m;

	/* fio sends the open message in network order and the close message little-endian. */
	m.magic = network_order ? htonl(NET_LINK_MAGIC) : NET_LINK_MAGIC;
	m.cmd = network_order ? htonl(cmd) : cmd;
	return sendto(nd->fd, &m, sizeof(m), 0, &nd->peer.sa, nd->peer_len) < 0 ? -errno : 0;
}

/* A non-blocking connect, waited for in slices so a stop reaches it. */
static int connect_peer(struct net_data *nd)
{
	int err = 0;
	socklen_t el = sizeof(err);
	int fl = fcntl(nd->fd, F_GETFL), ret;

	if (fl < 0 || fcntl(nd->fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	if (connect(nd->fd, &nd->peer.sa, nd->peer_len) && errno != EINPROGRESS)
		return -errno;
	ret = net_wait(nd, nd->fd, POLLOUT);
	if (!ret && getsockopt(nd->fd, SOL_SOCKET, SO_ERROR, &err, &el))
		ret = -errno;
	if (!ret && err)
		ret = -err;
	if (!ret && fcntl(nd->fd, F_SETFL, fl))
		ret = -errno;
	return ret;
}

static int multicast_out(struct net_data *nd)
{
	struct in_addr ifa;

	if (nd->o->interface) {
		if (!inet_aton(nd->o->interface, &ifa))
			return -EINVAL;
		if (setsockopt(nd->fd, IPPROTO_IP, IP_MULTICAST_IF, &ifa, sizeof(ifa)))
			return -errno;
	}
	return sockopt(nd->fd, IPPROTO_IP, IP_MULTICAST_TTL, (int)nd->o->ttl);
}

static int setup_sender(struct net_data *nd, uint16_t port)
{
	const struct net_opts *o = nd->o;
	int ret = o->proto == PLAN_NET_UNIX ? unix_addr(nd) : resolve(nd, port);

	if (ret)
		return ret;
	nd->fd = new_socket(o);
	if (nd->fd < 0)
		return nd->fd;
	ret = tune(nd, nd->fd);
	if (ret)
		return ret;
	if (!is_udp(o))
		return connect_peer(nd);
	if (is_multicast(o->host) && (ret = multicast_out(nd)))
		return ret;
	return plan_rw_has_ddir(nd->e->cfg.job->rw, PLAN_DDIR_WRITE) ? send_link(nd, NET_LINK_OPEN, true) : 0;
}

static bool is_socket(int dirfd, const char *aside, const struct stat *st, void *arg)
{
	(void)dirfd;
	(void)aside;
	(void)arg;
	return S_ISSOCK(st->st_mode);
}

/* A unix listener replaces a stale socket at its path, and nothing else (not even one swapped in meanwhile). */
static int unix_bind(struct net_data *nd, int fd)
{
	int ret = unix_addr(nd);

	if (ret)
		return ret;
	ret = tgt_remove_if(AT_FDCWD, nd->o->host, is_socket, NULL, NULL, 0);
	if (ret && ret != -ENOENT)
		return ret == -ESTALE ? -EEXIST : ret;
	return bind(fd, &nd->peer.sa, nd->peer_len) ? -errno : 0;
}

static int join_group(struct net_data *nd, int fd)
{
	struct ip_mreq mr;

	memset(&mr, 0, sizeof(mr));
	inet_aton(nd->o->host, &mr.imr_multiaddr);
	mr.imr_interface.s_addr = htonl(INADDR_ANY);
	if (nd->o->interface && !inet_aton(nd->o->interface, &mr.imr_interface))
		return -EINVAL;
	return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)) ? -errno : 0;
}

static int inet_bind(struct net_data *nd, int fd, uint16_t port)
{
	union net_addr a;
	socklen_t len;
	int ret = sockopt(fd, SOL_SOCKET, SO_REUSEADDR, 1);

	if (!ret)
		ret = sockopt(fd, SOL_SOCKET, SO_REUSEPORT, 1);
	if (!ret && is_multicast(nd->o->host))
		ret = join_group(nd, fd);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	if (is_v6(nd->o)) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_addr = in6addr_any;
		a.in6.sin6_port = htons(port);
		len = sizeof(a.in6);
	} else {
		a.in.sin_family = AF_INET;
		a.in.sin_addr.s_addr = htonl(INADDR_ANY);
		if (is_multicast(nd->o->host))
			inet_aton(nd->o->host, &a.in.sin_addr);
		a.in.sin_port = htons(port);
		len = sizeof(a.in);
	}
	return bind(fd, &a.sa, len) ? -errno : 0;
}

/* A datagram receiver starts at the sender's open message, as fio's. */
static int await_open(struct net_data *nd)
{
	struct net_link_msg m;
	ssize_t r;
	int ret;

	for (;;) {
		ret = net_wait(nd, nd->fd, POLLIN);
		if (ret)
			return ret;
		nd->peer_len = sizeof(nd->peer);
		r = recvfrom(nd->fd, &m, sizeof(m), MSG_DONTWAIT, &nd->peer.sa, &nd->peer_len);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (r == sizeof(m) && ntohl(m.magic) == NET_LINK_MAGIC && ntohl(m.cmd) == NET_LINK_OPEN)
			return 0;
	}
}

static int accept_peer(struct net_data *nd)
{
	int ret = net_wait(nd, nd->listenfd, POLLIN);

	if (ret)
		return ret;
	nd->fd = accept4(nd->listenfd, NULL, NULL, SOCK_CLOEXEC);
	if (nd->fd < 0)
		return -errno;
	return nd->o->nodelay && is_tcp(nd->o) ? sockopt(nd->fd, IPPROTO_TCP, TCP_NODELAY, 1) : 0;
}

static int setup_listener(struct net_data *nd, uint16_t port)
{
	const struct net_opts *o = nd->o;
	int fd = new_socket(o), ret;

	if (fd < 0)
		return fd;
	ret = o->proto == PLAN_NET_UNIX ? 0 : tune(nd, fd);
	if (!ret)
		ret = o->proto == PLAN_NET_UNIX ? unix_bind(nd, fd) : inet_bind(nd, fd, port);
	if (ret) {
		close(fd);
		return ret;
	}
	if (is_udp(o)) {
		nd->fd = fd;
		/* Without it (an old kernel) the tail of lost datagrams goes uncounted, as fio's. */
		sockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, 1);
		return await_open(nd);
	}
	nd->listenfd = fd;
	if (listen(fd, 10))
		return -errno;
	return accept_peer(nd);
}

static int net_pipe(struct net_data *nd)
{
	int sz;

	if (pipe2(nd->pipes, O_CLOEXEC))
		return -errno;
	sz = fcntl(nd->pipes[0], F_GETPIPE_SZ);
	nd->pipe_bytes = sz > 0 ? (size_t)sz : 4096;
	return 0;
}

static int net_start(struct ioe *e, bool splice)
{
	struct net_data *nd = calloc(1, sizeof(*nd));
	const struct net_opts *o = ioe_job_opts(e);
	uint16_t port = (uint16_t)(o->port + e->cfg.clone_index);
	int ret = 0;

	if (!nd)
		return -ENOMEM;
	e->priv = nd;
	nd->e = e;
	nd->o = o;
	nd->fd = nd->listenfd = nd->pipes[0] = nd->pipes[1] = -1;
	/* fio: datagram and unix readers listen whatever listen= says. */
	nd->listen = is_tcp(o) ? o->listen : !plan_rw_has_ddir(e->cfg.job->rw, PLAN_DDIR_WRITE);
	nd->splice = splice && is_tcp(o);
	if (nd->splice)
		ret = net_pipe(nd);
	if (!ret)
		ret = nd->listen ? setup_listener(nd, port) : setup_sender(nd, port);
	/*
	 * splice() blocks on a blocking socket whatever its flags say, and a peer
	 * that stops reading then held the run past a stop and runtime: netsplice's
	 * socket does not block, and its waits are net_wait's.  (net's calls pass
	 * MSG_DONTWAIT each.)
	 */
	if (!ret && nd->splice && fcntl(nd->fd, F_SETFL, fcntl(nd->fd, F_GETFL) | O_NONBLOCK))
		ret = -errno;
	return ret;
}

static void net_exit(struct ioe *e)
{
	struct net_data *nd = e->priv;

	if (!nd)
		return;
	/* A datagram sender tells the receiver the link is done (fio's close message). */
	if (nd->fd >= 0 && is_udp(nd->o) && !nd->listen)
		send_link(nd, NET_LINK_CLOSE, false);
	for (int i = 0; i < 2; i++)
		if (nd->pipes[i] >= 0)
			close(nd->pipes[i]);
	if (nd->fd >= 0)
		close(nd->fd);
	if (nd->listenfd >= 0)
		close(nd->listenfd);
	free(nd);
}

/* ioe_open does not call exit after a failed init: a half-made connection is closed here. */
static int net_init(struct ioe *e)
{
	int ret = net_start(e, false);

	if (ret) {
		net_exit(e);
		e->priv = NULL;
	}
	return ret;
}

static int netsplice_init(struct ioe *e)
{
	int ret = net_start(e, true);

	if (ret) {
		net_exit(e);
		e->priv = NULL;
	}
	return ret;
}

static bool is_close_msg(const void *buf, ssize_t n)
{
	const struct net_link_msg *m = buf;

	return n == (ssize_t)sizeof(*m) && m->magic == NET_LINK_MAGIC && m->cmd == NET_LINK_CLOSE;
}

/* One datagram into buf, noting the socket's overflow count the kernel attaches (absent: none yet). */
static ssize_t udp_recv(struct net_data *nd, int fd, void *buf, size_t len)
{
	char ctl[CMSG_SPACE(sizeof(uint32_t))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT);

	if (r < 0)
		return r;
	nd->rx_drops = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
			memcpy(&nd->rx_drops, CMSG_DATA(c), sizeof(nd->rx_drops));
	return r;
}

/* One call of op, retried after a wait while the socket would block: bytes, 0 at the end, or -errno. */
static ssize_t net_xfer(struct net_data *nd, int fd, bool out, void *buf, size_t len)
{
	ssize_t r;
	int ret;

	for (;;) {
		if (out)
			r = is_udp(nd->o) ? sendto(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, &nd->peer.sa,
						   nd->peer_len)
					  : send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		else
			r = is_udp(nd->o) ? udp_recv(nd, fd, buf, len) : recv(fd, buf, len, MSG_DONTWAIT);
		if (r >= 0 || (errno != EAGAIN && errno != EINTR))
			return r < 0 ? -errno : r;
		ret = net_wait(nd, fd, out ? POLLOUT : POLLIN);
		if (ret)
			return ret;
	}
}

/*
 * netsplice: len bytes from buf into the pipe and on to the socket, a pipe's
 * worth at a time.  The socket does not block (net_start): a receiver that
 * stops reading is waited on as net_xfer waits, so a stop or runtime's end
 * ends the wait (a blocking splice held the run past both).  Stopped there,
 * what the socket took counts and the pipe's rest is dropped: peer_done ends
 * the job, so no later call sends after it.
 */
static ssize_t splice_out(struct net_data *nd, uint8_t *buf, size_t len)
{
	size_t n = len < nd->pipe_bytes ? len : nd->pipe_bytes, moved = 0;
	struct iovec iov = { .iov_base = buf, .iov_len = n };
	ssize_t r = vmsplice(nd->pipes[1], &iov, 1, 0);

	if (r <= 0)
		return r < 0 ? -errno : 0;
	while (moved < (size_t)r) {
		ssize_t s = splice(nd->pipes[0], NULL, nd->fd, NULL, (size_t)r - moved,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		int ret;

		if (s < 0 && (errno == EAGAIN || errno == EINTR)) {
			if ((ret = net_wait(nd, nd->fd, POLLOUT))) {
				nd->e->peer_done = true;
				return moved ? (ssize_t)moved : ret;
			}
			continue;
		}
		if (s <= 0)
			return s < 0 ? -errno : -EPIPE;
		moved += (size_t)s;
	}
	return r;
}

/* netsplice: what the socket has (up to len) into the pipe, then out of it into buf. */
static ssize_t splice_in(struct net_data *nd, uint8_t *buf, size_t len)
{
	size_t n = len < nd->pipe_bytes ? len : nd->pipe_bytes, got = 0;
	ssize_t r;
	int ret;

	/* The socket does not block (net_start): a wake-up with nothing to read waits again. */
	do {
		if ((ret = net_wait(nd, nd->fd, POLLIN)))
			return ret;
		r = splice(nd->fd, NULL, nd->pipes[1], NULL, n, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	} while (r < 0 && (errno == EAGAIN || errno == EINTR));
	if (r <= 0)
		return r < 0 ? -errno : 0;
	while (got < (size_t)r) {
		struct iovec iov = { .iov_base = buf + got, .iov_len = (size_t)r - got };
		ssize_t v = vmsplice(nd->pipes[0], &iov, 1, 0);

		if (v <= 0)
			return v < 0 ? -errno : -EIO;
		got += (size_t)v;
	}
	return r;
}

static bool seq_trailer(const struct net_data *nd, uint32_t len)
{
	return is_udp(nd->o) && nd->e->cfg.job->verify == PLAN_VERIFY_NONE && len >= sizeof(struct net_udp_seq);
}

static void stamp_seq(struct net_data *nd, uint8_t *buf, uint32_t len)
{
	struct net_udp_seq s = { htole64(NET_UDP_SEQ_MAGIC), htole64(nd->send_seq++), htole64(len) };

	memcpy(buf + len - sizeof(s), &s, sizeof(s));
}

/* A gap in the sequence is datagrams lost on the way: fio's dropped count. */
static void check_seq(struct net_data *nd, const uint8_t *buf, uint32_t len)
{
	struct net_udp_seq s;
	uint64_t seq;

	memcpy(&s, buf + len - sizeof(s), sizeof(s));
	if (nd->seq_off || le64toh(s.magic) != NET_UDP_SEQ_MAGIC)
		return;
	if (le64toh(s.bs) != len) {
		nd->seq_off = true;
		return;
	}
	seq = le64toh(s.seq);
	if (seq > nd->recv_seq)
		nd->e->dropped += seq - nd->recv_seq;
	nd->recv_seq = seq + 1;
}

/*
 * The UDP tail no sequence number shows: what the socket's overflow count
 * (drops, the kernel's) gained after the last data datagram, less not_data of
 * them that were no block.
 */
static void count_tail(struct net_data *nd, uint32_t len, uint32_t drops, uint32_t not_data)
{
	uint32_t tail = drops - nd->rx_drops_at_data;

	if (seq_trailer(nd, len) && !nd->seq_off && tail > not_data)
		nd->e->dropped += tail - not_data;
}

/*
 * UDP: the run stopped waiting (a stop, or runtime passed with nothing queued):
 * the job ends with what came, and a receiver counts its tail.  A receiver's
 * sender closes last, and that close never came, so it was lost with the tail:
 * one less, exact when the sender ended its stream, one short when it sent no
 * close (killed, or still sending when this run was stopped).  (A pingpong
 * sender waiting for an echo gets no close from its echoer.)
 */
static int64_t udp_stopped(struct net_data *nd, bool out, uint32_t len)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t mem_len = sizeof(mem);

	nd->e->peer_done = true;
	if (!out && !getsockopt(nd->fd, SOL_SOCKET, SO_MEMINFO, mem, &mem_len) &&
	    mem_len > SK_MEMINFO_DROPS * sizeof(*mem))
		count_tail(nd, len, mem[SK_MEMINFO_DROPS], nd->listen ? 1 : 0);
	return 0;
}

/* A whole block each way on a stream; one datagram on UDP.  Bytes, or -errno. */
static int64_t net_move(struct net_data *nd, bool out, uint8_t *buf, uint32_t len)
{
	uint32_t done = 0;
	ssize_t r;

	if (is_udp(nd->o)) {
		if (out && seq_trailer(nd, len))
			stamp_seq(nd, buf, len);
		/* An empty datagram carries no block (a stray sender's): the next one is the I/O, as fio's. */
		do
			r = net_xfer(nd, nd->fd, out, buf, len);
		while (r == 0 && !out);
		if (r == -EINTR || r == -ETIMEDOUT)
			return udp_stopped(nd, out, len);
		if (!out && is_close_msg(buf, r)) {
			/* The sender sent the close after its last datagram: those that overflowed
			 * in between were lost too, though no sequence number came after them. */
			count_tail(nd, len, nd->rx_drops, 0);
			nd->e->peer_done = true;
			return 0;
		}
		if (!out && r == (ssize_t)len && seq_trailer(nd, len)) {
			check_seq(nd, buf, len);
			nd->rx_drops_at_data = nd->rx_drops;
		}
		return r;
	}
	while (done < len) {
		if (nd->splice)
			r = out ? splice_out(nd, buf + done, len - done) : splice_in(nd, buf + done, len - done);
		else
			r = net_xfer(nd, nd->fd, out, buf + done, len - done);
		if (r == 0 || r == -EINTR || r == -ETIMEDOUT) {
			nd->e->peer_done = true;	/* the peer closed, or the run stopped waiting */
			break;
		}
		if (r < 0)
			return r;
		done += (uint32_t)r;
		if (nd->e->peer_done)
			break;	/* splice_out stopped with part of a chunk sent */
	}
	return done;
}

static int net_queue(struct ioe *e, struct io_u *u)
{
	struct net_data *nd = e->priv;
	bool out = u->ddir == PLAN_DDIR_WRITE;
	int64_t r;

	if (u->ddir == PLAN_DDIR_TRIM) {
		u->result = -EOPNOTSUPP;
		return IOE_Q_COMPLETED;
	}
	r = net_move(nd, out, u->buf, u->len);
	/* pingpong: the peer echoes each block, so an I/O's latency is a round trip. */
	if (nd->o->pingpong && r == (int64_t)u->len)
		r = net_move(nd, !out, u->buf, u->len);
	u->result = r;
	return IOE_Q_COMPLETED;
}

const struct ioe_ops ioe_net = {
	.no_open = true,
	.no_layout = true,		/* nothing local: the peer or export is the target */
	.remote = true,
	.id = PLAN_IOENGINE_NET,
	.sync = true,
	.init = net_init,
	.exit = net_exit,
	.queue = net_queue,
};

const struct ioe_ops ioe_netsplice = {
	.no_open = true,
	.no_layout = true,		/* nothing local: the peer or export is the target */
	.remote = true,
	.id = PLAN_IOENGINE_NETSPLICE,
	.sync = true,
	.init = netsplice_init,
	.exit = net_exit,
	.queue = net_queue,
};
