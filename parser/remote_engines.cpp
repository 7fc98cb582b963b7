// parser/remote_engines.cpp - jobs of the net, netsplice and nbd engines: what
// fio 3.33 refuses when such a job starts (engines/net.c fio_netio_init,
// engines/nbd.c), refused here before anything runs and with the option's
// position, and the remote target copied into the plan.
#include <arpa/inet.h>
#include <netinet/in.h>

#include "parser/planner.hpp"

namespace parser {

namespace {

bool is_net(plan_ioengine e)
{
    return e == PLAN_IOENGINE_NET || e == PLAN_IOENGINE_NETSPLICE;
}

bool is_multicast(const std::string &host)
{
    in_addr a{};
    return inet_aton(host.c_str(), &a) && IN_MULTICAST(ntohl(a.s_addr));
}

// hostname=, else filename= (fio's hostname= sets the filename).
std::string net_host(const job_def &d)
{
    if (!d.spec.net_host.empty())
        return d.spec.net_host;
    return d.spec.filenames.empty() ? "" : d.spec.filenames[0];
}

const loc &host_loc(const job_def &d)
{
    return d.spec.net_host.empty() ? option_loc(d, "filename") : option_loc(d, "hostname");
}

void check_net_ports(const job_def &d, const std::string &who)
{
    const plan_net &n = d.spec.pj.net;
    if (n.proto == PLAN_NET_UNIX && n.port)
        fail(option_loc(d, "port"), who + "port= is not valid with protocol=unix (the socket is hostname=)");
    if (n.proto != PLAN_NET_UNIX && !n.port)
        fail(option_loc(d, "protocol"), who + "the net engine needs port= for tcp or udp");
    if (n.port && n.port + d.spec.numjobs - 1 > 65535)
        fail(option_loc(d, "numjobs"), who + "clone k uses port + k: numjobs=" + std::to_string(d.spec.numjobs) +
                                           " runs past port 65535");
}

// fio_netio_init's rules: one direction per datagram/unix job, listen for TCP only, no random offsets.
void check_net_shape(const job_def &d, const std::string &who)
{
    const plan_job &j = d.spec.pj;
    bool tcp = j.net.proto == PLAN_NET_TCP || j.net.proto == PLAN_NET_TCPV6;
    if (plan_rw_is_random(j.rw))
        fail(option_loc(d, "rw"), who + "network I/O cannot be random (rw=" + plan_rw_name(j.rw) + ")");
    if (plan_rw_has_ddir(j.rw, PLAN_DDIR_TRIM))
        fail(option_loc(d, "rw"), who + "a socket cannot be trimmed (rw=" + plan_rw_name(j.rw) + ")");
    if (!tcp && j.net.listen)
        fail(option_loc(d, "listen"), who + "listen is for TCP only; a udp or unix job with rw=read receives");
    if (!tcp && plan_rw_has_ddir(j.rw, PLAN_DDIR_READ) && plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
        fail(option_loc(d, "rw"), who + "a udp or unix job must either read or write, not rw=" + plan_rw_name(j.rw));
}

void check_net_host(const job_def &d, const std::string &who)
{
    const plan_net &n = d.spec.pj.net;
    std::string host = net_host(d);
    bool tcp = n.proto == PLAN_NET_TCP || n.proto == PLAN_NET_TCPV6;
    bool receives = tcp ? n.listen : n.proto != PLAN_NET_UNIX && !plan_rw_has_ddir(d.spec.pj.rw, PLAN_DDIR_WRITE);
    if (n.proto == PLAN_NET_UNIX && host.empty())
        fail(d.header, who + "protocol=unix needs the socket's path in hostname= or filename=");
    if (receives && !host.empty() && !(n.proto == PLAN_NET_UDP && is_multicast(host)))
        fail(host_loc(d), who + "a receiver takes no hostname (" + host +
                              "): it binds port= on every address, unless hostname is a UDP multicast group");
    if (!receives && host.empty())
        fail(d.header, who + "a sender needs hostname= (or filename=) to send to" +
                           (plan_rw_has_ddir(d.spec.pj.rw, PLAN_DDIR_READ) ? "; did you forget listen?" : ""));
}

} // namespace

void check_remote_job(job_def &d)
{
    plan_job &j = d.spec.pj;
    std::string who = "job '" + job_name(d) + "': ";
    if (is_net(j.ioengine)) {
        check_net_ports(d, who);
        check_net_shape(d, who);
        check_net_host(d, who);
        if (!j.size_bytes && !j.size_ppm && !j.filesize_min_bytes)
            fail(d.header, who + "the net engine needs size= (a socket has no size to take)");
        // The receiver checks each block as it comes; a sender has nothing to read back.
        if (plan_rw_has_ddir(j.rw, PLAN_DDIR_WRITE))
            j.do_verify = false;
        return;
    }
    if (!d.spec.remote_opt.empty())
        fail(option_loc(d, d.spec.remote_opt.c_str()),
             who + d.spec.remote_opt + " is an option of ioengine=net or netsplice, not of ioengine=" +
                 plan_ioengine_name(j.ioengine));
    if (j.ioengine == PLAN_IOENGINE_NBD && d.spec.nbd_uri.empty())
        fail(d.header, who + "ioengine=nbd needs uri= (the NBD server and export it writes to)");
    if (j.ioengine != PLAN_IOENGINE_NBD && !d.spec.nbd_uri.empty())
        fail(option_loc(d, "uri"), who + "uri is an option of ioengine=nbd, not of ioengine=" +
                                       plan_ioengine_name(j.ioengine));
}

void fill_remote(plan_job &j, const job_def &d)
{
    if (is_net(j.ioengine)) {
        std::string host = net_host(d);
        j.net.host = host.empty() ? nullptr : plan_strdup(host.c_str());
        j.net.interface = d.spec.net_interface.empty() ? nullptr : plan_strdup(d.spec.net_interface.c_str());
    } else {
        j.net.host = j.net.interface = nullptr;
    }
    j.nbd_uri = d.spec.nbd_uri.empty() ? nullptr : plan_strdup(d.spec.nbd_uri.c_str());
}

} // namespace parser
